/*
 * publish_split.h - the publish phase's report files formatted by two
 * processes at once: rank 1 formats nccl_long and the all_to_allv
 * sheets from the nccl_long rows (TLM_OUT_PART_LONG) while rank 0
 * formats the others, then sends them to rank 0, which stages them with its own (publish_split.c).
 */
#ifndef TLM_MPI_PUBLISH_SPLIT_H
#define TLM_MPI_PUBLISH_SPLIT_H

#include "driver.h"
#include "report0.h"

/* Whether rank 1 formats the nccl_long sheets in this run. */
int tlm_mpi_pub_split(const tlm_mpi_ctx *c);

/* Rank 0, first: hands rank 1 what it formats from (go 0: nothing to
 * format, when rank 0 failed before; r unused then). */
void tlm_mpi_pub_send(const tlm_mpi_ctx *c, int go,
                      const tlm_out_results *r);

/* Rank 0, after its own part (st its status): receives rank 1's files
 * and stages them in c->out under the CSV folder (only when st is
 * TLM_OK); returns the worse status, with the message in *err. */
tlm_status tlm_mpi_pub_take(tlm_mpi_ctx *c, tlm_status st, tlm_error *err);

/* Rank 1: receives, formats into memory, sends the files back. */
tlm_status tlm_mpi_pub_helper(tlm_mpi_ctx *c);

#endif /* TLM_MPI_PUBLISH_SPLIT_H */
