/*
 * cause_mpi.h - why the straggler is late, the driver's part
 * (docs/straggler-causes.md): each trace's windows kept while reading,
 * then routed to the collectives' owners, the straggler broadcast and the
 * owners' cause tables merged on rank 0 (cause.c).  Rank 0's rows and
 * sentences: src/out/cause.h.
 */
#ifndef TLM_MPI_CAUSE_MPI_H
#define TLM_MPI_CAUSE_MPI_H

#include "cause.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tlm_mpi_ctx;

/* The windows of one trace's records, appended to c->wins (trace.c, in
 * the read phase).  Errors: TLM_ENOMEM. */
tlm_status tlm_mpi_cause_keep(struct tlm_mpi_ctx *c, const tlm_trace *tr,
                              const tlm_coll_record *recs, size_t n,
                              tlm_error *err);

/* Collective (phase_collectives.c, after the straggler rows are merged and
 * while the owners still hold their instances): the windows to their
 * owners, the straggler picked on rank 0 and broadcast, the owners'
 * partial cause tables merged into c->k.cause on rank 0.  c->wins is
 * released.  Returns the agreed status. */
tlm_status tlm_mpi_cause_phase(struct tlm_mpi_ctx *c, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_CAUSE_MPI_H */
