/*
 * hta_mpi.h - HTA's tables in the analysis mode: the module of phase_hta.c
 * and its HDF5 side hta_h5.c (docs/hta.md).
 */
#ifndef TLM_MPI_HTA_MPI_H
#define TLM_MPI_HTA_MPI_H

#include <hdf5.h>
#include <stdio.h>

#include "tlmpi/tlm_hta.h"
#include "tlmpi/tlm_trace.h"

struct tlm_mpi_ctx;

/* Writes /hta/<table> of hta, the joined tables (every rank calls it;
 * rank 0's rows; nothing when hta is NULL).  Collective. */
tlm_status tlm_mpi_hta_write_h5(const struct tlm_mpi_ctx *c,
                                const tlm_hta_result *hta, hid_t f,
                                tlm_error *err);

#endif
