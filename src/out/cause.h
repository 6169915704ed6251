/*
 * cause.h - why the straggler is late, in the analysis driver
 * (docs/straggler-causes.md).  The windows before each collective are
 * computed by the process that read the trace (tlm_coll_windows), routed
 * to the collective's owner beside its record, compared there for the
 * straggler rank rank 0 names (tlm_coll_cause_compute), and the small
 * per-group tables merged on rank 0 (tlm_coll_cause_merge).
 */
#ifndef TLM_MPI_CAUSE_H
#define TLM_MPI_CAUSE_H

#include <stdio.h>

#include "tables.h"
#include "tlmpi/tlm_cause.h"

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

/* Rank 0's HDF5 rows of /straggler_causes from merged cause rows (cause
 * rows with a delay > 0, their top op from the op rows).  *out: new array
 * (free()), possibly empty.  Errors: TLM_ENOMEM. */
tlm_status tlm_mpi_cause_rows(const tlm_coll_cause_row *rows, size_t n,
                              tlm_row_cause **out, size_t *n_out);

/* One sentence per cause with its share, per process group, as Markdown
 * lines ("- ...") into f; nothing when there are no rows. */
void tlm_mpi_cause_md(FILE *f, const tlm_coll_cause_row *rows, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_CAUSE_H */
