/*
 * exchange.h - moves flat, fixed-size records between MPI ranks: routing
 * to owners (MPI_Alltoallv), gathering to one rank and to all.
 *
 * Records are pointer-free structs of one build (tlm_coll_record, table
 * rows), moved as opaque bytes with a contiguous MPI datatype, so counts
 * are in records.  All functions are collective over comm.  On success
 * *out is malloc'd (free()) and may be NULL when *n_out is 0.  Errors:
 * TLM_ENOMEM (agreed across ranks: every rank returns it), TLM_EMPI.
 */
#ifndef TLM_MPI_EXCHANGE_H
#define TLM_MPI_EXCHANGE_H

#include <stddef.h>

#include <mpi.h>

#include "tlmpi/tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sends record i (size bytes at recs + i*size) to rank dest[i]; *out gets
 * the records received, ordered by source rank, then by their order at the
 * source. */
tlm_status tlm_mpi_route(const void *recs, size_t n, size_t size,
                         const int *dest, MPI_Comm comm, void **out,
                         size_t *n_out, tlm_error *err);

/* Concatenation of every rank's records in rank order, on root only (other
 * ranks get NULL / 0). */
tlm_status tlm_mpi_gather(const void *recs, size_t n, size_t size, int root,
                          MPI_Comm comm, void **out, size_t *n_out,
                          tlm_error *err);

/* Same, on every rank. */
tlm_status tlm_mpi_allgather(const void *recs, size_t n, size_t size,
                             MPI_Comm comm, void **out, size_t *n_out,
                             tlm_error *err);

/* MPI_Allreduce(MPI_MAX) of a status: every rank gets the worst (defined
 * in ctx.c beside tlm_mpi_check). */
tlm_status tlm_mpi_agree(tlm_status st, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_EXCHANGE_H */
