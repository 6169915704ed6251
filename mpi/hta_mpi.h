/*
 * hta_mpi.h - HTA's tables in the analysis mode (phase_hta.c, hta_h5.c;
 * docs/hta.md).
 */
#ifndef TLM_MPI_HTA_MPI_H
#define TLM_MPI_HTA_MPI_H

#include <hdf5.h>
#include <stdio.h>

#include "tlmpi/tlm_hta.h"
#include "tlmpi/tlm_trace.h"

struct tlm_mpi_ctx;
struct tlm_mpi_fileres;

/* The trace's HTA tables, packed and kept on this rank (trace.c calls it
 * with --hta after the trace's rank is known); its step names go into
 * fr.  Errors: TLM_ENOMEM, those of tlm_hta_events_build. */
tlm_status tlm_mpi_hta_trace(struct tlm_mpi_ctx *c, const tlm_trace *tr,
                             struct tlm_mpi_fileres *fr, tlm_error *err);
/* Frees what the HTA part of c holds. */
void tlm_mpi_hta_free(struct tlm_mpi_ctx *c);
/* Writes /hta/<table> (every rank calls it; rank 0's rows).  Collective. */
tlm_status tlm_mpi_hta_write_h5(struct tlm_mpi_ctx *c, hid_t f,
                                tlm_error *err);

#endif
