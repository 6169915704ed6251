/*
 * find_runs.h - the comparative findings of `tlmpi compare A.h5 B.h5`
 * (docs/compare-runs.md, "Findings"): rules R1-R6 over the joined rows of
 * comparison.h5 (runs_tables.h), through the findings list of the find
 * layer (find_list.c: record, severity, order, P-numbers, rows).
 *   R1 step time        B's step time (or GPU time per rank) against A's
 *   R2/R3 collectives   a collective key costs / saves time in B
 *   R4/R5 ops           an op costs / saves time in B
 *   R6 straggler        new in B, gone, or the same rank
 * Impact = absolute time change x occurrences, in % of B's step time.
 */
#ifndef TLM_FIND_RUNS_H
#define TLM_FIND_RUNS_H

#include "runs_tables.h"
#include "tlmpi/tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thresholds: a row becomes a finding when its |impact| is at least
 * min_impact_pct of B's step time; at most top per kind (<= 0: 10). */
typedef struct tlm_find_runs_opts {
    double min_impact_pct;
    int top;
} tlm_find_runs_opts;

/* What the rules read: the joined rows (colls and ops by |impact|
 * descending, strag by trace_rank) and each run's verdicts. */
typedef struct tlm_find_runs_in {
    int per_step;            /* impacts per step (both runs have steps) */
    double step_a, step_b;   /* step time (ns), or mean GPU time; NaN */
    double step_pct;         /* 100 (B - A) / A of the two, NaN */
    const tlm_cr_coll *colls;
    size_t n_colls;
    const tlm_cr_op *ops;
    size_t n_ops;
    const tlm_cr_strag *strag;
    size_t n_strag;
    int64_t straggler_rank_a, straggler_rank_b; /* -1: none */
    int64_t straggler_wait_ns_a, straggler_wait_ns_b;
    int64_t n_traces_b, n_steps_b;
} tlm_find_runs_in;

/* The findings in report order (R1 first, then severity, then |impact|);
 * *rows malloc'ed (NULL when *n is 0).  Errors: TLM_ENOMEM. */
tlm_status tlm_find_runs_build(const tlm_find_runs_in *in,
                               const tlm_find_runs_opts *o,
                               tlm_row_finding **rows, size_t *n);

#ifdef __cplusplus
}
#endif
#endif /* TLM_FIND_RUNS_H */
