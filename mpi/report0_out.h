/*
 * report0_out.h - what rank 0's report writers share (report0.c: the CSV
 * sheets, report0_md.c: report.md): files written under a temporary name
 * and recorded in a tlm_mpi_pending list, published or removed together
 * at the end (with the HDF5 file).  No MPI calls.
 */
#ifndef TLM_MPI_REPORT0_OUT_H
#define TLM_MPI_REPORT0_OUT_H

#include <stdio.h>

#include "report0.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where files go: the folder, and the list of files written to temporary
 * names. */
typedef struct tlm_mpi_dest {
    const char *dir;
    tlm_mpi_pending *pend;
} tlm_mpi_dest;

/* One file being written. */
typedef struct tlm_mpi_out {
    FILE *f;
    tlm_mpi_pending *pend;
    char path[TLM_MPI_PATH_MAX];
    char tmp[TLM_MPI_PATH_MAX + 32];
} tlm_mpi_out;

/* Opens <d->dir>/<name> under a temporary name.  Errors: TLM_EINVAL (too
 * many files, path too long), TLM_EIO. */
tlm_status tlm_mpi_out_open(tlm_mpi_out *o, const tlm_mpi_dest *d,
                            const char *name, tlm_error *err);

/* Closes the temporary file and adds it to the pending list (or removes
 * it when writing failed: TLM_EIO). */
tlm_status tlm_mpi_out_close(tlm_mpi_out *o, tlm_error *err);

/* Writes report.md into dir (report0_md.c).  Errors: TLM_EIO, TLM_ENOMEM,
 * TLM_EINVAL. */
tlm_status tlm_mpi_report_md(const tlm_mpi_results *r,
                             const tlm_mpi_dest *dir, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_REPORT0_OUT_H */
