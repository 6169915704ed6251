/*
 * tables.c - descriptors of the schema v1 datasets, generated from the
 * X-macro column lists of tables.h (one source for the row structs, the
 * HDF5 compound types and docs/hdf5-schema.md).
 */
#include "tables.h"

#define TLM_ROW tlm_row_trace
TLM_ROWTAB_(tlm_tab_traces, tlm_row_trace, "traces",
               "One row per trace file (per rank), sorted by trace_rank.",
               TLM_TAB_TRACES)
#undef TLM_ROW
#define TLM_ROW tlm_row_timeline
TLM_ROWTAB_(tlm_tab_timeline, tlm_row_timeline, "timeline",
               "GPU timeline of every trace (busy, idle, computation, "
               "exposed communication and memcpy), sorted by trace_rank.",
               TLM_TAB_TIMELINE)
#undef TLM_ROW
#define TLM_ROW tlm_row_op
TLM_ROWTAB_(tlm_tab_ops, tlm_row_op, "ops/per_rank",
               "TraceLens's ops_summary of every trace: CPU ops by the GPU "
               "kernel time they launch, sorted by trace_rank, then by "
               "direct kernel time as in the trace's report.",
               TLM_TAB_OPS)
#undef TLM_ROW
#define TLM_ROW tlm_row_op_merged
TLM_ROWTAB_(tlm_tab_ops_merged, tlm_row_op_merged, "ops/merged",
               "ops_summary merged across ranks by op name, sorted by total "
               "direct kernel time, descending (ties by name).",
               TLM_TAB_OPS_MERGED)
#undef TLM_ROW
#define TLM_ROW tlm_row_uargs
TLM_ROWTAB_(tlm_tab_uargs, tlm_row_uargs, "ops_unique_args",
               "TraceLens's ops_unique_args of every trace: one row per "
               "(op, argument signature), sorted by trace_rank, then as in "
               "the trace's report.",
               TLM_TAB_UARGS)
#undef TLM_ROW
#define TLM_ROW tlm_row_kernel
TLM_ROWTAB_(tlm_tab_kernels, tlm_row_kernel, "kernels",
               "TraceLens's kernel_summary of every trace: one row per "
               "(parent op, kernel, stream), sorted by trace_rank, then as "
               "in the trace's report.",
               TLM_TAB_KERNELS)
#undef TLM_ROW
#define TLM_ROW tlm_row_instance
TLM_ROWTAB_(tlm_tab_instances, tlm_row_instance, "collectives/instances",
               "One row per collective instance (process group, sequence "
               "number) matched across ranks, sorted by (match_key, "
               "match_seq).",
               TLM_TAB_INSTANCES)
#undef TLM_ROW
#define TLM_ROW tlm_row_member
TLM_ROWTAB_(tlm_tab_members, tlm_row_member, "collectives/per_rank",
               "One row per (collective instance, rank), sorted by "
               "(trace_rank, match_key, match_seq).",
               TLM_TAB_MEMBERS)
#undef TLM_ROW
#define TLM_ROW tlm_row_unmatched
TLM_ROWTAB_(tlm_tab_unmatched, tlm_row_unmatched, "collectives/unmatched",
               "NCCL/RCCL kernels that could not be matched to an instance, "
               "sorted by (match_key, trace_rank, seq, event_index).",
               TLM_TAB_UNMATCHED)
#undef TLM_ROW
#define TLM_ROW tlm_row_summary
TLM_ROWTAB_(tlm_tab_summary, tlm_row_summary, "collectives/summary",
               "One row per (process group, collective, name, dtype, "
               "message size) over the instances not set aside "
               "(incomplete, mismatched or latency-suspect ones are only "
               "counted: n_incomplete, n_mismatch, n_suspect), sorted by "
               "total latency, descending.",
               TLM_TAB_SUMMARY)
#undef TLM_ROW
#define TLM_ROW tlm_row_clock
TLM_ROWTAB_(tlm_tab_clock, tlm_row_clock, "collectives/clock",
               "Estimated clock offset of every rank (end times of "
               "implicit-sync collectives, checked against causality).",
               TLM_TAB_CLOCK)
#undef TLM_ROW
#define TLM_ROW tlm_row_straggler
TLM_ROWTAB_(tlm_tab_stragglers, tlm_row_straggler, "stragglers",
               "Who arrives last at implicit-sync collectives and what it "
               "costs the others: one row per (process group, rank) and one "
               "per rank over all groups (overall = 1), sorted by (overall, "
               "pg_hash, trace_rank).",
               TLM_TAB_STRAGGLERS)
#undef TLM_ROW
#define TLM_ROW tlm_row_cause
TLM_ROWTAB_(tlm_tab_straggler_causes, tlm_row_cause, "straggler_causes",
               "Why the straggler is late: per process group, its delay "
               "(start minus the median member's start at the instances it "
               "arrived last at) split into slow_kernels, host_busy, "
               "late_launch, waiting_elsewhere, clock and other by "
               "comparing its window "
               "before each collective with the median member's; rows "
               "with a share > 0, sorted by (group hash, cause); "
               "docs/straggler-causes.md.",
               TLM_TAB_STRAGGLER_CAUSES)
#undef TLM_ROW

#define TLM_ROW tlm_row_step
TLM_ROWTAB_(tlm_tab_steps, tlm_row_step, "steps/per_rank",
               "One row per (trace, ProfilerStep#N): step time, GPU busy, "
               "compute, collective and exposed communication time clipped "
               "to the step, sorted by (trace_rank, step).",
               TLM_TAB_STEPS)
#undef TLM_ROW
#define TLM_ROW tlm_row_step_sum
TLM_ROWTAB_(tlm_tab_step_summary, tlm_row_step_sum, "steps/summary",
               "One row per step number across ranks: spread of the step "
               "time, the slowest rank, the outlier flag; sorted by step.",
               TLM_TAB_STEP_SUMMARY)
#undef TLM_ROW

#define TLM_ROW tlm_row_finding
TLM_ROWTAB_(tlm_tab_findings, tlm_row_finding, "findings",
               "Findings: deterministic rules over the tables (straggler, "
               "skew, bus bandwidth against the link's peak, exposed "
               "communication), in report order; docs/compare-runs.md.",
               TLM_TAB_FINDINGS)
#undef TLM_ROW

const tlm_rowtab *const tlm_rowtabs[] = {
    &tlm_tab_traces,    &tlm_tab_timeline, &tlm_tab_ops,
    &tlm_tab_ops_merged, &tlm_tab_uargs,  &tlm_tab_kernels,
    &tlm_tab_instances, &tlm_tab_members,
    &tlm_tab_unmatched, &tlm_tab_summary,   &tlm_tab_clock,
    &tlm_tab_stragglers, &tlm_tab_straggler_causes, &tlm_tab_steps,
    &tlm_tab_step_summary,
    &tlm_tab_findings, NULL};
