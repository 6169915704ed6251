/*
 * runs_tables.h - the schema of comparison.h5 (`tlmpi compare A.h5 B.h5`,
 * docs/compare-runs.md): its row structs and columns as X-macros, like
 * tables.h's for tlmpi.h5.  The run comparison fills them (its joins),
 * the run comparison's findings (src/find/find_runs.c) read them, the
 * driver writes them.  No MPI, no HDF5.
 */
#ifndef TLM_RUNS_TABLES_H
#define TLM_RUNS_TABLES_H

#include "tables.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of comparison.h5's schema (its schema_version attribute). */
#define TLM_CR_SCHEMA_VERSION 1

/* A metric as its four columns. */
#define TLM_CR_M(X, m, u, d)                                                \
    X(F64, m##_a, 0, u, d " in A")                                          \
    X(F64, m##_b, 0, u, d " in B")                                          \
    X(F64, m##_diff, 0, u, "B - A")                                         \
    X(F64, m##_pct, 0, "%", "100 (B - A) / A, NaN when A is 0 or missing")

/* /summary: one row per job-level metric. */
#define TLM_TAB_CR_SUMMARY(X)                                               \
    X(STR, metric, 32, "", "metric (docs/compare-runs.md)")                \
    X(STR, unit, 8, "", "its unit")                                         \
    X(F64, a, 0, "", "value in A")                                          \
    X(F64, b, 0, "", "value in B")                                          \
    X(F64, diff, 0, "", "B - A")                                            \
    X(F64, pct, 0, "%", "100 (B - A) / A, NaN when A is 0 or missing")

/* /collectives: one row per (coll, group, dtype, bytes). */
#define TLM_TAB_CR_COLLS(X)                                                 \
    X(STR, coll, 16, "", "collective type")                                 \
    X(STR, group, 32, "", "group role: pg_desc, else size<group_size>")   \
    X(STR, dtype, 24, "", "element type")                                   \
    X(I64, bytes, 0, "bytes", "nccl-tests message size S")                 \
    X(STR, status, 8, "", "both | only_a | only_b")                         \
    X(I32, group_size_a, 0, "", "process group size in A, -1")             \
    X(I32, group_size_b, 0, "", "process group size in B, -1")             \
    X(I64, n_groups_a, 0, "", "process groups of this key in A")           \
    X(I64, n_groups_b, 0, "", "process groups of this key in B")           \
    TLM_CR_M(X, count, "", "complete instances")                            \
    TLM_CR_M(X, calls, "", "calls per member rank (per step)")              \
    TLM_CR_M(X, latency_ns, "ns", "mean comm_latency")                      \
    TLM_CR_M(X, total_latency_ns, "ns", "sum of comm_latency")              \
    TLM_CR_M(X, algbw_gbps, "GB/s", "mean algorithm bandwidth")             \
    TLM_CR_M(X, busbw_gbps, "GB/s", "mean bus bandwidth")                   \
    TLM_CR_M(X, skew_ns, "ns", "mean start skew (corrected)")               \
    TLM_CR_M(X, wait_ns, "ns", "mean wait per member (corrected)")          \
    X(I32, last_rank_a, 0, "", "rank most often last in A, -1")            \
    X(I32, last_rank_b, 0, "", "rank most often last in B, -1")            \
    X(F64, impact_ns, 0, "ns",                                              \
      "(latency + wait) x calls per rank: B - A (per step when both have "  \
      "steps)")

/* /ops: one row per op name of /ops/merged. */
#define TLM_TAB_CR_OPS(X)                                                   \
    X(STR, name, 256, "", "op name")                                        \
    X(STR, categories, 64, "", "op categories (A's, else B's)")            \
    X(STR, status, 8, "", "both | only_a | only_b")                         \
    X(I32, n_ranks_a, 0, "", "ranks running it in A")                      \
    X(I32, n_ranks_b, 0, "", "ranks running it in B")                      \
    TLM_CR_M(X, count, "", "calls per rank (per step)")                     \
    TLM_CR_M(X, mean_rank_ns, "ns", "GPU time per rank, mean (per step)")   \
    TLM_CR_M(X, max_rank_ns, "ns", "GPU time per rank, max (per step)")     \
    X(I32, max_rank_a, 0, "", "slowest rank in A")                         \
    X(I32, max_rank_b, 0, "", "slowest rank in B")                         \
    X(F64, impact_ns, 0, "ns", "mean_rank_ns_b - mean_rank_ns_a")

/* /stragglers: one row per trace rank (overall rows of /stragglers). */
#define TLM_TAB_CR_STRAG(X)                                                 \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(STR, status, 8, "", "both | only_a | only_b")                         \
    X(I32, named_a, 0, "", "1: A's straggler")                              \
    X(I32, named_b, 0, "", "1: B's straggler")                              \
    TLM_CR_M(X, n_instances, "", "implicit-sync instances joined")          \
    TLM_CR_M(X, times_last, "", "arrived last alone (corrected)")           \
    TLM_CR_M(X, wait_caused_ns, "ns", "others' waits it caused (corrected)")\
    TLM_CR_M(X, wait_per_coll_ns, "ns", "the same per instance joined")

TLM_ROWDEF_(tlm_cr_sum, TLM_TAB_CR_SUMMARY)
TLM_ROWDEF_(tlm_cr_coll, TLM_TAB_CR_COLLS)
TLM_ROWDEF_(tlm_cr_op, TLM_TAB_CR_OPS)
TLM_ROWDEF_(tlm_cr_strag, TLM_TAB_CR_STRAG)

/* The descriptors of comparison.h5's datasets (runs_tables.c). */
extern const tlm_rowtab tlm_crtab_summary;
extern const tlm_rowtab tlm_crtab_colls;
extern const tlm_rowtab tlm_crtab_ops;
extern const tlm_rowtab tlm_crtab_strag;
extern const tlm_rowtab tlm_crtab_findings;
/* Every table of comparison.h5 in file order (NULL-terminated). */
extern const tlm_rowtab *const tlm_cr_tables[];

#ifdef __cplusplus
}
#endif
#endif /* TLM_RUNS_TABLES_H */
