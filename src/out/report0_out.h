/*
 * report0_out.h - what rank 0's report writers share (report0.c: the CSV
 * sheets, report0_md.c: report.md): files staged in the run's output set
 * (tlm_outset.h) under temporary names, published or removed together at
 * the end (with the HDF5 file).  No MPI calls.
 */
#ifndef TLM_OUT_REPORT0_OUT_H
#define TLM_OUT_REPORT0_OUT_H

#include <stdio.h>

#include "report0.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where files go: the folder, and the set they are staged in. */
typedef struct tlm_out_dest {
    const char *dir;
    tlm_outset *set;
} tlm_out_dest;

/* One file being written. */
typedef struct tlm_out_file {
    FILE *f;
    char path[TLM_OUT_PATH_MAX];
} tlm_out_file;

/* Stages <d->dir>/<name> in d->set and opens its temporary.  Errors:
 * TLM_EINVAL (path too long), those of tlm_outset_stage, TLM_EIO. */
tlm_status tlm_out_open(tlm_out_file *o, const tlm_out_dest *d,
                        const char *name, tlm_error *err);

/* Closes the temporary file; TLM_EIO (with errno's text) when any write
 * failed.  The file stays staged: the caller publishes or aborts the
 * whole set. */
tlm_status tlm_out_close(tlm_out_file *o, tlm_error *err);

/* Writes report.md into dir (report0_md.c).  Errors: TLM_EIO, TLM_ENOMEM,
 * TLM_EINVAL. */
tlm_status tlm_out_report_md(const tlm_out_results *r,
                             const tlm_out_dest *dir, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUT_REPORT0_OUT_H */
