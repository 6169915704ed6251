/*
 * mtrace.h - --merged_trace in the analysis and the audit (docs/views.md):
 * one Chrome / Perfetto trace of the whole job, clock-aligned, with flow
 * events across the ranks of each collective instance.  The core pieces
 * are in tlmpi/tlm_mtrace.h; this is the driver side, all of it in
 * phase_timeline.c (the timeline module):
 *
 *   setup  (rank 0)  tlm_mpi_mtrace_stage: the output checked and staged
 *                    in the run's output set
 *   read   (every)   tlm_mpi_mtrace_add: each trace's events into this
 *                    process's part file (a local, already unlinked
 *                    temporary), its collective anchors kept
 *   timeline phase   the timeline module's exchange: flow roles per instance
 *                    (one exchange there and back), then every process
 *                    compresses its parts with its traces' clock shifts;
 *                    rank 0 writes the head, its own segment, every other
 *                    process's segment in rank order (bounded messages),
 *                    the tail, into the staged temporary
 *
 * Memory per process: the anchors (one per collective of its traces) and
 * fixed buffers, never the events.
 */
#ifndef TLM_MPI_MTRACE_H
#define TLM_MPI_MTRACE_H

#include "driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rank 0, setup phase: checks and stages the merged trace of c (its path:
 * --merged_trace, or in an audit the run's folder + that file name).
 * Errors as tlm_outset_stage, TLM_ENOMEM, TLM_ELIMIT. */
tlm_status tlm_mpi_mtrace_stage(tlm_mpi_ctx *c, tlm_error *err);

/* Read phase: appends the events of trace tr (rank, its records) to this
 * process's part file.  Errors: TLM_ENOMEM, TLM_EIO. */
tlm_status tlm_mpi_mtrace_add(tlm_mpi_ctx *c, const tlm_trace *tr,
                              int32_t rank, const tlm_coll_record *recs,
                              size_t n_recs, tlm_error *err);

/* Frees c->mt (closing its part file). */
void tlm_mpi_mtrace_free(tlm_mpi_ctx *c);

/* The path of --merged_trace for a run (audit: dir/name), in out[cap].
 * Returns 0, or -1 when too long. */
int tlm_mpi_mtrace_path(const tlm_mpi_ctx *c, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_MTRACE_H */
