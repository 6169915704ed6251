/*
 * tables.h - schema v1 of the tlmpi HDF5 file: one X-macro column list per
 * dataset.  Each list generates the flat row struct the driver fills, the
 * compound type written (h5write.c), and the Markdown reference printed by
 * `tlmpi --print_schema` (docs/hdf5-schema.md).  Lines read
 *     X(KIND, field, string size, "unit", "description")
 * with KIND one of I32, I64, U64, F64, STR.  Units are SI: ns, bytes,
 * GB/s = 1e9 bytes/s.  Unknown integers are -1, unknown floats NaN, unknown
 * strings "".
 */
#ifndef TLM_TABLES_H
#define TLM_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TLM_SCHEMA_VERSION 1

/* The column lists below are data, one line a column: their shared shape
 * is that of a schema, not repeated code. */

/* /traces: one row per trace file, sorted by trace_rank. */
#define TLM_TAB_TRACES(X)                                                   \
    X(I32, trace_rank, 0, "", "rank of the trace in the job")              \
    X(STR, file, 256, "", "trace file path as discovered (tail kept)")     \
    X(I64, bytes_on_disk, 0, "bytes", "file size (compressed for .gz)")    \
    X(I64, bytes_json, 0, "bytes", "JSON bytes tokenized (decompressed)")  \
    X(I32, gzip, 0, "", "1 when the file is gzip-compressed")              \
    X(I64, n_events, 0, "", "events in traceEvents")                       \
    X(I64, dist_rank, 0, "", "distributedInfo.rank, -1 if absent")         \
    X(I64, dist_world_size, 0, "", "distributedInfo.world_size, -1")       \
    X(I64, name_rank, 0, "", "rank parsed from the file name, -1")         \
    X(I32, node, 0, "", "trace_rank / GPUs per node (--gpus_per_node, "      \
      "else the first trace's deviceProperties count), -1 if unknown")     \
    X(I64, base_time_ns, 0, "ns", "baseTimeNanoseconds, 0 if absent")      \
    X(I64, n_coll_records, 0, "", "NCCL/RCCL kernel records extracted")    \
    X(I64, n_seq_trace, 0, "", "records with a Seq from the trace")        \
    X(I64, n_seq_ordinal, 0, "", "records matched by order")               \
    X(I64, clock_offset_ns, 0, "ns",                                       \
      "estimated clock offset (trace clock - reference clock)")           \
    X(I64, n_bad_time, 0, "", "events without a valid ts/dur (left out)") \
    X(I64, n_gpu_unlinked, 0, "", "GPU events with no launch")             \
    X(I64, n_flow_warnings, 0, "",                                         \
      "flows with a target that is not a GPU event or one half missing")   \
    X(I64, n_lone_surrogates, 0, "",                                       \
      "lone \\uD800-\\uDFFF escapes replaced by U+FFFD")                  \
    X(STR, device_name, 64, "",                                            \
      "deviceProperties[0].name (printable ASCII, cut to 63 bytes)")       \
    X(I32, devices_mixed, 0, "", "1: deviceProperties names differ")       \
    X(STR, gpu_arch, 32, "", "GPU used for this trace, \"\" if none")     \
    X(STR, gpu_arch_source, 8, "", "option | json | trace | none")       \
    X(STR, format, 16, "", "trace format: kineto-json | rocprof-json")

/* /timeline: GPU timeline of every trace (TraceLens's gpu_timeline sheet in
 * nanoseconds), sorted by trace_rank. */
#define TLM_TAB_TIMELINE(X)                                                 \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(I64, total_ns, 0, "ns", "first GPU event start to last GPU event end")\
    X(I64, busy_ns, 0, "ns", "union of GPU event intervals")              \
    X(I64, idle_ns, 0, "ns", "total - busy")                               \
    X(I64, computation_ns, 0, "ns", "kernels other than communication")   \
    X(I64, exposed_comm_ns, 0, "ns",                                       \
      "communication not overlapped by computation")                       \
    X(I64, exposed_transfer_ns, 0, "ns",                                   \
      "exposed communication after its instance's last member started")    \
    X(I64, exposed_waiting_ns, 0, "ns",                                    \
      "exposed communication waiting for late ranks (before the last start)")\
    X(I64, exposed_unknown_ns, 0, "ns",                                    \
      "exposed communication of incomplete instances or unmatched kernels")\
    X(I64, exposed_memcpy_ns, 0, "ns",                                     \
      "memcpy/memset not overlapped by computation or communication")      \
    X(I64, total_comm_ns, 0, "ns", "union of communication kernels")       \
    X(I64, total_memcpy_ns, 0, "ns", "union of memcpy/memset events")      \
    X(I64, n_gpu_events, 0, "", "GPU events used")

/* /ops/per_rank: TraceLens's ops_summary of every trace (CPU ops by GPU
 * kernel time they launch), sorted by (trace_rank, rank order). */
#define TLM_TAB_OPS(X)                                                      \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(STR, name, 256, "", "op name (truncated to 255 bytes)")              \
    X(STR, categories, 64, "", "op categories")                            \
    X(I64, count, 0, "", "calls")                                          \
    X(F64, direct_kernel_ns, 0, "ns", "GPU time of kernels it launches")   \
    X(F64, subtree_kernel_ns, 0, "ns", "GPU time of its whole subtree")    \
    X(F64, percent, 0, "%", "share of the trace's direct kernel time")

/* /ops/merged: ops_summary merged across ranks (rank 0). */
#define TLM_TAB_OPS_MERGED(X)                                               \
    X(STR, name, 256, "", "op name")                                        \
    X(STR, categories, 64, "", "op categories (lowest rank's)")            \
    X(I32, n_ranks, 0, "", "ranks running it")                             \
    X(I64, count, 0, "", "calls over all ranks")                           \
    X(F64, direct_kernel_ns, 0, "ns", "launched kernels' GPU time, all ranks")\
    X(F64, subtree_kernel_ns, 0, "ns", "subtree GPU time, all ranks")      \
    X(F64, mean_rank_ns, 0, "ns", "direct kernel time per rank (mean)")    \
    X(F64, min_rank_ns, 0, "ns", "direct kernel time, fastest rank")       \
    X(I32, min_rank, 0, "", "the fastest rank")                            \
    X(F64, max_rank_ns, 0, "ns", "direct kernel time, slowest rank")       \
    X(I32, max_rank, 0, "", "the slowest rank")                            \
    X(F64, percent, 0, "%", "share of all ranks' direct kernel time")

/* /ops_unique_args: TraceLens's ops_unique_args of every trace (one row
 * per op name and argument signature). */
#define TLM_TAB_UARGS(X)                                                    \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(STR, name, 128, "", "op name")                                        \
    X(STR, op_category, 32, "", "op category")                             \
    X(STR, input_dims, 256, "", "Input Dims (truncated to 255 bytes)")     \
    X(STR, input_type, 128, "", "Input type")                              \
    X(STR, input_strides, 256, "", "Input Strides")                        \
    X(STR, concrete_inputs, 128, "", "Concrete Inputs")                    \
    X(I64, count, 0, "", "calls")                                          \
    X(F64, direct_kernel_ns_mean, 0, "ns", "direct kernel time per call")  \
    X(F64, direct_kernel_ns_median, 0, "ns", "median per call")            \
    X(F64, direct_kernel_ns_min, 0, "ns", "min per call")                  \
    X(F64, direct_kernel_ns_max, 0, "ns", "max per call")                  \
    X(F64, direct_kernel_ns_sum, 0, "ns", "sum over calls")                \
    X(F64, subtree_kernel_ns_sum, 0, "ns", "subtree kernel time, sum")     \
    X(I64, ex_uid, 0, "", "event index of an example call")                \
    X(F64, percent, 0, "%", "share of the trace's direct kernel time")

/* /kernels: TraceLens's kernel_summary of every trace. */
#define TLM_TAB_KERNELS(X)                                                  \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(STR, parent_op_category, 32, "", "category of the launching op")     \
    X(STR, parent_op, 128, "", "launching cpu_op")                          \
    X(STR, kernel, 256, "", "kernel name (truncated to 255 bytes)")        \
    X(I64, stream, 0, "", "GPU stream")                                    \
    X(I64, count, 0, "", "launches")                                       \
    X(F64, dur_ns_sum, 0, "ns", "total duration")                          \
    X(F64, dur_ns_mean, 0, "ns", "mean duration")                          \
    X(F64, dur_ns_min, 0, "ns", "shortest")                                \
    X(F64, dur_ns_max, 0, "ns", "longest")                                 \
    X(F64, percent_kernels, 0, "%", "share of all kernel time")            \
    X(F64, percent_total, 0, "%", "share of the GPU timeline")

/* /collectives/instances: one row per matched collective instance, sorted
 * by (match_key, seq). */
#define TLM_TAB_INSTANCES(X)                                                \
    X(STR, pg_name, 64, "", "process group name (or synthesized)")        \
    X(STR, pg_desc, 32, "",                                                \
      "process group description (pg_desc: \"TP\", \"default_pg\"), \"\"")   \
    X(I64, seq, 0, "", "sequence number within the process group")        \
    X(STR, seq_src, 12, "", "trace | concrete | ordinal | p2p")            \
    X(I64, match_seq, 0, "", "tlmpi's matching order (p2p: own count)")    \
    X(STR, coll, 16, "", "collective type (allreduce, allgather, ...)")   \
    X(STR, coll_name, 32, "", "Collective name as in the trace")          \
    X(STR, dtype, 24, "", "element type (c10 name)")                       \
    X(STR, algo, 16, "", "NCCL algorithm/protocol from the kernel name")  \
    X(I32, group_size, 0, "", "process group size, -1 unknown")           \
    X(I32, n_members, 0, "", "ranks present")                              \
    X(I64, in_nelems, 0, "", "input elements per rank")                    \
    X(I64, out_nelems, 0, "", "output elements per rank")                  \
    X(I64, bytes, 0, "bytes", "nccl-tests message size S")                 \
    X(I64, first_start_ns, 0, "ns", "earliest kernel start (raw clock)")   \
    X(I64, last_start_ns, 0, "ns", "latest kernel start (raw clock)")      \
    X(I64, first_end_ns, 0, "ns", "earliest kernel end (raw clock)")       \
    X(I64, last_end_ns, 0, "ns", "latest kernel end (raw clock)")          \
    X(I64, comm_latency_ns, 0, "ns", "min member duration")                \
    X(I64, max_dur_ns, 0, "ns", "max member duration")                     \
    X(I64, start_skew_ns, 0, "ns", "last start - first start (raw)")       \
    X(I64, end_skew_ns, 0, "ns", "last end - first end (raw)")             \
    X(I64, wait_sum_ns, 0, "ns", "sum of member waits (raw)")              \
    X(I64, wall_ns, 0, "ns", "last end - first start (raw)")               \
    X(I64, start_skew_corr_ns, 0, "ns", "start skew, corrected clocks")    \
    X(I64, end_skew_corr_ns, 0, "ns", "end skew, corrected clocks")        \
    X(I64, wait_sum_corr_ns, 0, "ns", "sum of waits, corrected clocks")   \
    X(I64, wall_corr_ns, 0, "ns", "wall time, corrected clocks")           \
    X(I64, send_bytes_total, 0, "bytes", "bytes sent to other ranks")     \
    X(I64, recv_bytes_total, 0, "bytes", "bytes received from others")    \
    X(F64, algbw_gbps, 0, "GB/s", "bytes / comm_latency")                 \
    X(F64, busbw_gbps, 0, "GB/s", "algbw x nccl-tests bus factor")        \
    X(F64, throughput_gbps, 0, "GB/s", "send_bytes_total / wall_corr")    \
    X(F64, send_imbalance, 0, "", "max / mean bytes sent (all-to-all)")   \
    X(F64, recv_imbalance, 0, "", "max / mean bytes received")            \
    X(I32, first_rank, 0, "", "earliest starter (raw)")                    \
    X(I32, last_rank, 0, "", "latest starter (raw), ties: lowest")         \
    X(I32, n_last, 0, "", "ranks tied for last (raw)")                     \
    X(I32, first_rank_corr, 0, "", "earliest starter (corrected)")         \
    X(I32, last_rank_corr, 0, "", "latest starter (corrected)")            \
    X(I32, n_last_corr, 0, "", "ranks tied for last (corrected)")          \
    X(I32, incomplete, 0, "", "1: fewer members than group_size")          \
    X(I64, flags, 0, "", "TLM_COLL_INST_* bits (hdf5-schema.md)")          \
    X(STR, set_aside, 16, "",                                              \
      "\"\" used; else why it is left out of the statistics: "           \
      "incomplete, mismatch or latency_suspect")                          \
    X(U64, match_key, 0, "", "hash of the process group identity")         \
    X(U64, pg_hash, 0, "", "hash of pg_name")

/* /collectives/per_rank: one row per (instance, rank), sorted by
 * (trace_rank, match_key, seq). */
#define TLM_TAB_MEMBERS(X)                                                  \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(STR, pg_name, 64, "", "process group name")                          \
    X(I64, seq, 0, "", "sequence number (as in /collectives/instances)")   \
    X(I64, match_seq, 0, "", "match_seq of its instance")                  \
    X(STR, coll, 16, "", "collective type")                                \
    X(I64, start_ns, 0, "ns", "kernel start (raw trace clock)")            \
    X(I64, end_ns, 0, "ns", "kernel end (raw trace clock)")                \
    X(I64, dur_ns, 0, "ns", "sum of the member's kernel durations")        \
    X(I64, wait_ns, 0, "ns", "latest start - own start (raw)")             \
    X(I64, wait_corr_ns, 0, "ns", "same on corrected clocks")              \
    X(I64, offset_ns, 0, "ns", "clock offset applied")                     \
    X(I64, send_bytes, 0, "bytes", "bytes sent to other ranks, -1")        \
    X(I64, recv_bytes, 0, "bytes", "bytes received, -1")                   \
    X(I32, n_kernels, 0, "", "kernels merged into this member")           \
    X(I32, sig_mismatch, 0, "", "1: signature differs from the instance") \
    X(I64, event_index, 0, "", "first kernel's index in the trace")        \
    X(U64, match_key, 0, "", "hash of the process group identity")

/* /collectives/unmatched: NCCL kernels not part of any instance. */
#define TLM_TAB_UNMATCHED(X)                                                \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(STR, pg_name, 64, "", "process group name")                          \
    X(I64, seq, 0, "", "the record's own sequence number")                 \
    X(STR, coll, 16, "", "collective type")                                \
    X(STR, reason, 16, "", "sig_mismatch | no_overlap | duplicate")        \
    X(I64, start_ns, 0, "ns", "kernel start (raw)")                        \
    X(I64, dur_ns, 0, "ns", "kernel duration")                             \
    X(I64, event_index, 0, "", "kernel's index in the trace")              \
    X(U64, match_key, 0, "", "hash of the process group identity")

/* Statistic columns of a summary: NAME_mean/median/min/max/p95. */
#define TLM_TAB_STAT_(X, n, u, d)                                           \
    X(F64, n##_mean, 0, u, d " (mean)")                                     \
    X(F64, n##_median, 0, u, d " (median)")                                 \
    X(F64, n##_min, 0, u, d " (min)")                                       \
    X(F64, n##_max, 0, u, d " (max)")                                       \
    X(F64, n##_p95, 0, u, d " (95th percentile)")

/* /collectives/summary: one row per (pg, type, name, dtype, bytes), sorted
 * by total latency, descending. */
#define TLM_TAB_SUMMARY(X)                                                  \
    X(STR, pg_name, 64, "", "process group name")                          \
    X(STR, pg_desc, 32, "", "process group description (pg_desc), \"\"")  \
    X(STR, coll, 16, "", "collective type")                                \
    X(STR, coll_name, 32, "", "Collective name")                           \
    X(STR, dtype, 24, "", "element type")                                  \
    X(I64, bytes, 0, "bytes", "nccl-tests message size S")                 \
    X(I32, group_size, 0, "", "process group size")                        \
    X(I64, in_nelems, 0, "", "input elements per rank")                    \
    X(I64, out_nelems, 0, "", "output elements per rank")                  \
    X(I64, count, 0, "", "instances used in the statistics")               \
    X(I64, n_incomplete, 0, "",                                            \
      "set aside: instances with missing ranks (or overfull)")             \
    X(I64, n_mismatch, 0, "",                                              \
      "set aside: members disagree on signature or group size")            \
    X(I64, n_suspect, 0, "",                                               \
      "set aside: latency suspect (min duration not a transfer time)")     \
    X(I64, total_latency_ns, 0, "ns", "sum of comm_latency")               \
    X(I64, total_wall_ns, 0, "ns", "sum of wall time (corrected)")         \
    TLM_TAB_STAT_(X, latency_ns, "ns", "comm_latency")                      \
    TLM_TAB_STAT_(X, start_skew_ns, "ns", "start skew, raw")                \
    TLM_TAB_STAT_(X, start_skew_corr_ns, "ns", "start skew, corrected")     \
    TLM_TAB_STAT_(X, end_skew_ns, "ns", "end skew, raw")                    \
    TLM_TAB_STAT_(X, algbw_gbps, "GB/s", "algorithm bandwidth")             \
    TLM_TAB_STAT_(X, busbw_gbps, "GB/s", "bus bandwidth")                   \
    X(U64, pg_hash, 0, "", "hash of pg_name")

/* /collectives/clock: one row per trace rank. */
#define TLM_TAB_CLOCK(X)                                                    \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(I32, domain, 0, "", "clock domain (node)")                           \
    X(I32, reference_rank, 0, "", "anchor rank of its component")          \
    X(I64, offset_ns, 0, "ns", "trace clock - reference clock")            \
    X(I64, end_estimate_ns, 0, "ns", "estimate before causality clamp")    \
    X(I64, lo_ns, 0, "ns", "causality lower bound (INT64_MIN: none)")      \
    X(I64, hi_ns, 0, "ns", "causality upper bound (INT64_MAX: none)")      \
    X(I64, mad_ns, 0, "ns", "median |end residual| after correction")      \
    X(I64, median_skew_ns, 0, "ns", "median raw start skew")               \
    X(I64, n_samples, 0, "", "instances used")                             \
    X(I64, n_causality_violations, 0, "", "instances violating causality") \
    X(I64, n_offset_samples, 0, "", "instances across its clock domain")  \
    X(I32, few_samples, 0, "", "1: fewer than 3, offset not applied (0)") \
    X(I64, flags, 0, "", "TLM_COLL_CLOCK_* bits (tlm_coll.h)")

/* /stragglers: one row per (process group, rank) and per rank overall. */
#define TLM_TAB_STRAGGLERS(X)                                               \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(I32, overall, 0, "", "1: over all process groups (pg_name \"*\")")   \
    X(STR, pg_name, 64, "", "process group name")                          \
    X(I64, n_instances, 0, "", "complete implicit-sync instances joined") \
    X(I64, times_last, 0, "", "arrived last alone (raw clocks)")           \
    X(F64, last_credit, 0, "", "arrived-last credit, ties split")          \
    X(I64, times_first, 0, "", "arrived first alone (raw)")                \
    X(I64, wait_suffered_ns, 0, "ns", "sum of own waits (raw)")            \
    X(I64, wait_caused_ns, 0, "ns", "others' waits while it was last")     \
    X(I64, times_last_corr, 0, "", "arrived last alone (corrected)")       \
    X(F64, last_credit_corr, 0, "", "arrived-last credit (corrected)")     \
    X(I64, wait_suffered_corr_ns, 0, "ns", "own waits (corrected)")        \
    X(I64, wait_caused_corr_ns, 0, "ns", "waits caused (corrected)")       \
    X(I64, dur_sum_ns, 0, "ns", "sum of its member durations")             \
    X(U64, pg_hash, 0, "", "hash of pg_name (0 overall)")

/* /straggler_causes: why the straggler of report.md is late, one row per
 * (process group, cause) with a share > 0; docs/straggler-causes.md. */
#define TLM_TAB_STRAGGLER_CAUSES(X)                                         \
    X(STR, group, 64, "", "process group name (pg_name)")                  \
    X(I32, rank, 0, "", "the straggler (root attribute straggler_rank)")   \
    X(STR, cause, 24, "",                                                  \
      "slow_kernels, host_busy, late_launch, waiting_elsewhere, clock or " \
      "other")                                                             \
    X(F64, delay_us, 0, "us", "delay attributed to the cause")             \
    X(F64, share, 0, "", "delay_us / group_delay_us (0..1)")               \
    X(F64, group_delay_us, 0, "us",                                        \
      "the rank's delay in the group: over the instances it arrived last " \
      "at, its start minus the median member's (corrected clocks)")       \
    X(I64, n_instances, 0, "", "instances it delayed in the group")        \
    X(STR, top_op, 48, "",                                                 \
      "op with the most extra time over the median members (slow_kernels:" \
      " GPU time, host_busy: host time), \"\" none")                      \
    X(F64, top_op_extra_us, 0, "us", "that op's extra time, summed")       \
    X(U64, pg_hash, 0, "", "hash of group")

/* /steps/per_rank: one row per (trace, ProfilerStep#N), sorted by
 * (trace_rank, step); docs/metrics-steps.md. */
#define TLM_TAB_STEPS(X)                                                    \
    X(I32, trace_rank, 0, "", "rank")                                       \
    X(I64, step, 0, "", "N of the CPU annotation ProfilerStep#N")          \
    X(I64, start_ns, 0, "ns", "step start (raw)")                          \
    X(I64, dur_ns, 0, "ns", "step time: the span's duration")              \
    X(I64, gpu_busy_ns, 0, "ns", "union of GPU events in the step")        \
    X(I64, compute_ns, 0, "ns", "union of non-communication kernels")      \
    X(I64, comm_ns, 0, "ns", "collective time: union of comm. kernels")    \
    X(I64, exposed_comm_ns, 0, "ns",                                       \
      "communication not overlapped by computation")                       \
    X(I64, idle_ns, 0, "ns", "dur - gpu_busy")                             \
    X(I64, n_gpu_events, 0, "", "GPU events starting in the step")

/* /steps/summary: one row per step across ranks, sorted by step. */
#define TLM_TAB_STEP_SUMMARY(X)                                             \
    X(I64, step, 0, "", "N of ProfilerStep#N")                             \
    X(I32, n_ranks, 0, "", "ranks with this step")                         \
    X(I32, slowest_rank, 0, "", "rank with the longest step, ties: lowest")\
    X(I64, dur_min_ns, 0, "ns", "shortest step time over ranks")           \
    X(F64, dur_median_ns, 0, "ns", "median step time over ranks")          \
    X(I64, dur_max_ns, 0, "ns", "longest step time over ranks")            \
    X(F64, gpu_busy_median_ns, 0, "ns", "median GPU busy time")            \
    X(I64, exposed_comm_max_ns, 0, "ns", "largest exposed communication")  \
    X(I64, comm_max_ns, 0, "ns", "largest collective time")                \
    X(F64, vs_median, 0, "", "dur_max / median over steps of dur_max")     \
    X(I32, outlier, 0, "", "1: vs_median > 1 + --step_outlier_pct / 100")

/* /findings: the collective findings of the analysis (report.md's
 * Findings section; docs/compare-runs.md, "Findings"), with the columns of
 * the single-trace report's findings.csv (shared/spec findings.md §6); also
 * /findings of comparison.h5 (tlmpi compare A.h5 B.h5). */
#define TLM_TAB_FINDINGS(X)                                                 \
    X(STR, id, 8, "", "P1, P2, ... in report order")                       \
    X(STR, rule, 32, "", "M1-M4 (analysis), R1-R6 (compare)")           \
    X(STR, mode, 16, "", "mpi (one job) | compare (two jobs)")            \
    X(STR, severity, 8, "", "high | medium | low | info")                  \
    X(STR, subject, 256, "", "rank, collective or op concerned")           \
    X(F64, pct_e2e, 0, "%",                                                 \
      "impact in % of the job's time (analysis: mean GPU timeline span; "  \
      "compare: B's step time)")                                           \
    X(F64, eff, 0, "%", "efficiency (busbw / peak), NaN when none")        \
    X(STR, bound, 16, "", "\"\" (collective rules)")                        \
    X(F64, impact_low, 0, "%", "impact, low estimate (= pct_e2e here)")    \
    X(F64, impact_mid, 0, "%", "impact, middle estimate (= pct_e2e)")      \
    X(F64, impact_high, 0, "%", "impact, high estimate (= pct_e2e)")       \
    X(STR, text, 512, "", "the finding in one sentence")                   \
    X(STR, action_a, 256, "", "suggested action")                          \
    X(STR, action_b, 256, "", "second suggested action, \"\"")             \
    X(I32, replay, 0, "", "1: a replay artefact applies (0 here)")         \
    X(STR, evidence, 512, "", "table:key:column=value;... the numbers")

TLM_ROWDEF_(tlm_row_trace, TLM_TAB_TRACES)
TLM_ROWDEF_(tlm_row_timeline, TLM_TAB_TIMELINE)
TLM_ROWDEF_(tlm_row_op, TLM_TAB_OPS)
TLM_ROWDEF_(tlm_row_op_merged, TLM_TAB_OPS_MERGED)
TLM_ROWDEF_(tlm_row_uargs, TLM_TAB_UARGS)
TLM_ROWDEF_(tlm_row_kernel, TLM_TAB_KERNELS)
TLM_ROWDEF_(tlm_row_instance, TLM_TAB_INSTANCES)
TLM_ROWDEF_(tlm_row_member, TLM_TAB_MEMBERS)
TLM_ROWDEF_(tlm_row_unmatched, TLM_TAB_UNMATCHED)
TLM_ROWDEF_(tlm_row_summary, TLM_TAB_SUMMARY)
TLM_ROWDEF_(tlm_row_clock, TLM_TAB_CLOCK)
TLM_ROWDEF_(tlm_row_straggler, TLM_TAB_STRAGGLERS)
TLM_ROWDEF_(tlm_row_cause, TLM_TAB_STRAGGLER_CAUSES)
TLM_ROWDEF_(tlm_row_step, TLM_TAB_STEPS)
TLM_ROWDEF_(tlm_row_step_sum, TLM_TAB_STEP_SUMMARY)
TLM_ROWDEF_(tlm_row_finding, TLM_TAB_FINDINGS)

/* Table descriptors (dataset name, doc, columns). */
extern const tlm_rowtab tlm_tab_traces;
extern const tlm_rowtab tlm_tab_timeline;
extern const tlm_rowtab tlm_tab_ops;
extern const tlm_rowtab tlm_tab_ops_merged;
extern const tlm_rowtab tlm_tab_uargs;
extern const tlm_rowtab tlm_tab_kernels;
extern const tlm_rowtab tlm_tab_instances;
extern const tlm_rowtab tlm_tab_members;
extern const tlm_rowtab tlm_tab_unmatched;
extern const tlm_rowtab tlm_tab_summary;
extern const tlm_rowtab tlm_tab_clock;
extern const tlm_rowtab tlm_tab_stragglers;
extern const tlm_rowtab tlm_tab_straggler_causes;
extern const tlm_rowtab tlm_tab_steps;
extern const tlm_rowtab tlm_tab_step_summary;
extern const tlm_rowtab tlm_tab_findings;

/* Every table of schema v1, in file order (NULL-terminated). */
extern const tlm_rowtab *const tlm_rowtabs[];

#ifdef __cplusplus
}
#endif
#endif /* TLM_TABLES_H */
