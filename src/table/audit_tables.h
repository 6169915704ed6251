/*
 * audit_tables.h - the datasets of audit.h5 (`tlmpi audit`, docs/cli.md),
 * one X-macro column list per dataset as in tables.h: each list gives the
 * row struct, the HDF5 compound type and the Markdown reference of
 * docs/hdf5-schema.md (`tlmpi audit --print_schema`).  Units are SI (ns,
 * bytes, GB/s = 1e9 B/s); unknown integers are -1, unknown floats NaN,
 * unknown strings "".  Definitions: docs/metrics-audit.md.
 */
#ifndef TLM_AUDIT_TABLES_H
#define TLM_AUDIT_TABLES_H

#include "tables.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TLM_AUDIT_SCHEMA_VERSION 1

/* Collective kinds with a bus-bandwidth column in /runs. */
#define TLM_AUDIT_KINDS(X)                                                  \
    X(allreduce) X(allgather) X(reducescatter) X(alltoall) X(broadcast)    \
    X(p2p)
enum {
#define TLM_X_(k) TLM_AUDIT_K_##k,
    TLM_AUDIT_KINDS(TLM_X_)
#undef TLM_X_
    TLM_AUDIT_N_KINDS
};

/* /runs: one row per run, sorted by run path. */
#define TLM_TAB_AUDIT_RUNS(X)                                               \
    X(I32, index, 0, "", "run number (runs sorted by path)")               \
    X(STR, run, 256, "", "run folder relative to the audit root (. = root)")\
    X(STR, job, 256, "",                                                    \
      "job of the run: its parent folder; a run directly under the root "  \
      "is its own job (. = the root itself)")                              \
    X(STR, status, 8, "", "ok | failed")                                    \
    X(STR, reason, 1024, "",                                                \
      "failed: why (every error); ok: its warnings; else empty")           \
    X(I64, world_size, 0, "", "world size (traces' declaration or inferred)")\
    X(I64, ranks_read, 0, "", "traces read")                               \
    X(I64, n_files, 0, "", "trace files found in the run")                 \
    X(I64, bytes_on_disk, 0, "bytes", "size of the run's trace files")     \
    X(I64, instances, 0, "", "collective instances matched across ranks")  \
    X(I64, incomplete, 0, "", "instances missing some member")             \
    X(I64, mismatch, 0, "",                                                 \
      "set aside: members disagree on signature or group size")            \
    X(I64, latency_suspect, 0, "",                                          \
      "set aside: latency does not fit the clocks (LATENCY_SUSPECT)")      \
    X(I64, unmatched, 0, "", "collective kernels matched to no instance")  \
    X(I64, n_steps, 0, "", "ProfilerStep#N steps used for step_time_ns")   \
    X(I64, step_time_ns, 0, "ns",                                           \
      "median over steps of the slowest rank's step time")                 \
    X(I64, gpu_total_ns, 0, "ns", "mean over ranks of the GPU timeline span")\
    X(I64, comm_ns, 0, "ns", "mean over ranks of communication time")      \
    X(I64, exposed_comm_ns, 0, "ns",                                        \
      "mean over ranks of communication not hidden by computation")        \
    X(I64, exposed_transfer_ns, 0, "ns",                                    \
      "the part of exposed_comm_ns after each collective's last start")   \
    X(I64, exposed_waiting_ns, 0, "ns",                                     \
      "the part of exposed_comm_ns waiting for late ranks")                \
    X(I64, exposed_unknown_ns, 0, "ns",                                     \
      "the rest: incomplete instances, unmatched kernels")                 \
    X(F64, comm_share, 0, "", "exposed communication / step (or GPU) time")\
    X(F64, busbw_allreduce_gbps, 0, "GB/s",                                 \
      "latency-weighted bus bandwidth of complete all-reduce instances")   \
    X(F64, busbw_allgather_gbps, 0, "GB/s", "same, all-gather")            \
    X(F64, busbw_reducescatter_gbps, 0, "GB/s", "same, reduce-scatter")    \
    X(F64, busbw_alltoall_gbps, 0, "GB/s", "same, all-to-all(v)")          \
    X(F64, busbw_broadcast_gbps, 0, "GB/s", "same, broadcast")             \
    X(F64, busbw_p2p_gbps, 0, "GB/s", "same, send/recv")                   \
    X(I64, max_start_skew_ns, 0, "ns",                                      \
      "largest arrival spread of a complete all-members instance")        \
    X(I64, p95_start_skew_ns, 0, "ns", "95th percentile of the same")      \
    X(I64, clock_offset_max_ns, 0, "ns", "largest |clock offset| estimated")\
    X(I32, straggler_rank, 0, "", "rank named straggler, -1 none")         \
    X(I64, straggler_wait_ns, 0, "ns",                                      \
      "wait per collective the top late rank caused")                     \
    X(I64, straggler_cost_ns, 0, "ns", "total wait the top late rank caused")\
    X(F64, straggler_cost_share, 0, "",                                     \
      "straggler_cost_ns / sum over ranks of the GPU timeline span")       \
    X(STR, gpu_arch, 32, "", "GPU of the run, \"\" unknown")               \
    X(STR, h5, 512, "", "the run's tlmpi.h5 relative to audit.h5, \"\"")

/* /scaling/jobs: one row per ok run, by (job, series, world_size, run). */
#define TLM_TAB_AUDIT_JOBS(X)                                               \
    X(STR, job, 256, "", "job")                                             \
    X(STR, series, 256, "",                                                 \
      "first run of its series: the runs of the job whose collective and " \
      "op signatures agree (only they are compared)")                      \
    X(STR, run, 256, "", "run")                                             \
    X(I64, world_size, 0, "", "world size")                                 \
    X(STR, base_run, 256, "", "run it is compared with (\"\" none)")       \
    X(I64, base_world_size, 0, "", "its world size")                       \
    X(I64, step_time_ns, 0, "ns", "step time")                              \
    X(I64, base_step_time_ns, 0, "ns", "step time of the base run")        \
    X(F64, eff_weak, 0, "", "base step time / step time")                  \
    X(F64, eff_strong, 0, "",                                               \
      "(base step time x base world) / (step time x world)")               \
    X(F64, comm_share, 0, "", "communication share")                       \
    X(F64, comm_share_delta, 0, "", "comm_share - the base run's")         \
    X(I32, stands_out, 0, "", "bit mask of the rules it breaks (metrics)")

/* /scaling/collectives: one row per (ok run, collective signature). */
#define TLM_TAB_AUDIT_COLLS(X)                                              \
    X(STR, job, 256, "", "job")                                             \
    X(STR, run, 256, "", "run")                                             \
    X(I64, world_size, 0, "", "world size of the run")                     \
    X(STR, coll, 16, "", "collective type")                                \
    X(STR, pg_desc, 32, "", "process group description")                  \
    X(STR, dtype, 24, "", "element type")                                  \
    X(I64, bytes, 0, "bytes", "message size S (nccl-tests)")               \
    X(I32, group_size, 0, "", "ranks in the process group")                \
    X(I64, count, 0, "", "instances used (none set aside)")                \
    X(I64, n_incomplete, 0, "", "set aside: ranks of the group missing")   \
    X(I64, n_mismatch, 0, "", "set aside: signature or group mismatch")    \
    X(I64, n_suspect, 0, "", "set aside: latency suspect")                 \
    X(I64, latency_median_ns, 0, "ns", "median communication latency")     \
    X(F64, busbw_gbps, 0, "GB/s", "latency-weighted bus bandwidth")        \
    X(F64, algbw_gbps, 0, "GB/s", "latency-weighted algorithm bandwidth")  \
    X(F64, time_share, 0, "", "its latency / all collective latency")      \
    X(F64, base_busbw_gbps, 0, "GB/s", "same signature in the base run")   \
    X(F64, busbw_ratio, 0, "", "busbw_gbps / base_busbw_gbps")

/* /scaling/stragglers: one row per (job, series, trace rank) late in an
 * ok run. */
#define TLM_TAB_AUDIT_STRAG(X)                                              \
    X(STR, job, 256, "", "job")                                             \
    X(STR, series, 256, "", "first run of its series (as /scaling/jobs)")  \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(I64, runs, 0, "", "ok runs of the series with this rank")            \
    X(I64, runs_named, 0, "", "runs naming it the straggler")              \
    X(I64, runs_top, 0, "", "runs where it caused the most waiting")       \
    X(F64, frequency, 0, "", "runs_named / runs")                          \
    X(I64, wait_caused_ns, 0, "ns", "wait it caused, all runs")            \
    X(I64, wait_per_coll_ns, 0, "ns", "the same per collective it joined")

/* /comparison: with --baseline, one row per (run, metric). */
#define TLM_TAB_AUDIT_CMP(X)                                                \
    X(STR, run, 256, "", "run")                                             \
    X(STR, metric, 32, "", "a column of /runs")                            \
    X(F64, baseline, 0, "", "the baseline run's value")                    \
    X(F64, value, 0, "", "this run's value")                               \
    X(F64, delta, 0, "", "value - baseline")                               \
    X(F64, ratio, 0, "", "value / baseline")

/* /skipped: files under the root that are not traces, and folders that
 * could not be read. */
#define TLM_TAB_AUDIT_SKIPPED(X)                                            \
    X(STR, path, 512, "", "path relative to the audit root")               \
    X(STR, reason, 96, "", "why it was left out")

TLM_ROWDEF_(tlm_arow_run, TLM_TAB_AUDIT_RUNS)
TLM_ROWDEF_(tlm_arow_job, TLM_TAB_AUDIT_JOBS)
TLM_ROWDEF_(tlm_arow_coll, TLM_TAB_AUDIT_COLLS)
TLM_ROWDEF_(tlm_arow_strag, TLM_TAB_AUDIT_STRAG)
TLM_ROWDEF_(tlm_arow_cmp, TLM_TAB_AUDIT_CMP)
TLM_ROWDEF_(tlm_arow_skip, TLM_TAB_AUDIT_SKIPPED)

extern const tlm_rowtab tlm_atab_runs;
extern const tlm_rowtab tlm_atab_jobs;
extern const tlm_rowtab tlm_atab_colls;
extern const tlm_rowtab tlm_atab_strag;
extern const tlm_rowtab tlm_atab_cmp;
extern const tlm_rowtab tlm_atab_skipped;

/* Every table of audit.h5, in file order (NULL-terminated). */
extern const tlm_rowtab *const tlm_audit_tables[];

#ifdef __cplusplus
}
#endif
#endif /* TLM_AUDIT_TABLES_H */
