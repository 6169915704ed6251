/*
 * cause.h - rank 0's outputs of why the straggler is late
 * (docs/straggler-causes.md): the windows before each collective are
 * computed by the process that read the trace (tlm_coll_windows), routed
 * to the collective's owner and compared there (tlm_coll_cause_compute),
 * the small per-group tables merged on rank 0 (tlm_coll_cause_merge) by
 * the driver (mpi/cause_mpi.h); this header turns the merged rows into
 * /straggler_causes rows and Markdown sentences.  No MPI calls.
 */
#ifndef TLM_OUT_CAUSE_H
#define TLM_OUT_CAUSE_H

#include <stdio.h>

#include "tables.h"
#include "tlmpi/tlm_cause.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rank 0's HDF5 rows of /straggler_causes from merged cause rows (cause
 * rows with a delay > 0, their top op from the op rows).  *out: new array
 * (free()), possibly empty.  Errors: TLM_ENOMEM. */
tlm_status tlm_out_cause_rows(const tlm_coll_cause_row *rows, size_t n,
                              tlm_row_cause **out, size_t *n_out);

/* One sentence per cause with its share, per process group, as Markdown
 * lines ("- ...") into f; nothing when there are no rows. */
void tlm_out_cause_md(FILE *f, const tlm_coll_cause_row *rows, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUT_CAUSE_H */
