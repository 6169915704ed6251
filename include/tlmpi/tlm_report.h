/*
 * tlm_report.h - the single-trace performance report (TraceLens's
 * generate_perf_report_pytorch, [perfreport] §3-§6): GPU timeline,
 * op summaries, unique-args table, unified perf summary, perf-model sheets,
 * kernel summary and short-kernel study, written as CSV files with
 * TraceLens's file names and columns, plus a Markdown story (report.md).
 *
 * Usage:
 *     tlm_tree *tree;  tlm_tree_build(trace, NULL, &tree, &err);
 *     tlm_report_opts o;  tlm_report_opts_init(&o);
 *     tlm_report *r;  tlm_report_build(tree, &o, &r, &err);
 *     tlm_report_write_csvs(r, "out/", &err);
 *     tlm_report_write_md(r, "out/report.md", &err);
 *     tlm_report_free(r);  tlm_tree_free(tree);
 *
 * Ownership: the report copies every value it needs; the tree and trace may
 * be freed after tlm_report_build.  Not thread-safe per report.
 * Units: times in the tables are microseconds ("_ms" columns
 * milliseconds), "MB" is MiB as in TraceLens (docs/report.md).
 */
#ifndef TLM_REPORT_H
#define TLM_REPORT_H

#include "tlm_common.h"
#include "tlm_outset.h"
#include "tlm_perf.h"
#include "tlm_table.h"
#include "tlm_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TraceLens behaviours that tlmpi corrects by default; setting the bit
 * reproduces TraceLens (--tracelens_compat NAME[,NAME...] | all).
 * X(enum, bit, "name", description) */
#define TLM_COMPAT_LIST(X)                                                   \
    X(TLM_COMPAT_SHORT_NULL_DROP, 0, "short_kernel_null_keys",               \
      "short_kernels_summary drops kernels whose parent op lacks shapes")    \
    X(TLM_COMPAT_NO_CORR_FALLBACK, 1, "no_corr_fallback",                    \
      "launches without ac2g flows stay unlinked")                           \
    X(TLM_COMPAT_LEAF_NO_DRIVER, 2, "leaf_skips_cuda_driver",                \
      "unified leaf test does not traverse cuda_driver children")          \
    X(TLM_COMPAT_COLUMNS, 3, "tracelens_columns",                            \
      "no tlmpi-only columns (kernel_summary's Kernel category)")           \
    X(TLM_COMPAT_NO_ARCH_FROM_TRACE, 4, "no_arch_from_trace",                \
      "no GPU from deviceProperties: roofline only with --gpu_arch")         \
    X(TLM_COMPAT_NP_SORT, 16, "numpy_sort_order",                             \
      "single-column descending sorts in numpy 1.24 quicksort order")       \
    X(TLM_COMPAT_INT_TIMES, 17, "integer_times",                             \
      "sums of integer JSON times print as integers")                       \
    X(TLM_COMPAT_SYNTH_CATEGORY, 18, "synthetic_row_category",               \
      "Synthetic rows take the parent's category (earliest kernel)")        \
    X(TLM_COMPAT_SHORT_EMPTY, 19, "short_kernel_empty_sheets",               \
      "no short kernel / all keys null: TraceLens's bare CSV files")        \
    X(TLM_COMPAT_GPU_ONLY, 20, "gpu_only_sheets",                            \
      "GPU-only traces: TraceLens's kernel_summary / short-kernel keys") \
    X(TLM_COMPAT_ROCPROF, 21, "rocprof_quirks",                              \
      "rocprof traces: ns under us labels, short threshold in ns, pandas "   \
      "order")

enum {
#define TLM_X_(e, bit, name, desc) e = 1u << (bit),
    TLM_COMPAT_LIST(TLM_X_)
#undef TLM_X_
};
/* Every bit of the list. */
#define TLM_X_(e, bit, name, desc) | (1u << (bit))
enum { TLM_COMPAT_ALL = 0u TLM_COMPAT_LIST(TLM_X_) };
#undef TLM_X_

/* Parses "name,name" or "all" into *bits.  TLM_EINVAL on unknown names. */
TLM_API tlm_status tlm_compat_parse(const char *list, unsigned *bits,
                                    tlm_error *err);

typedef struct tlm_report_opts {
    int kernel_summary;            /* kernel_summary sheet (default 1) */
    int short_kernel_study;        /* short-kernel sheets (default 1) */
    double short_kernel_threshold_us; /* strict '<' (default 10) */
    int short_kernel_bins;         /* histogram bins (default 100) */
    long topk_short_kernels;       /* < 0: all (default) */
    int include_unlinked_kernels;  /* timeline uses unlinked GPU ops too */
    double micro_idle_thresh_us;   /* < 0: off (default) */
    int perf_sheets;               /* perf-model sheets (default 1) */
    int unified;                   /* unified_perf_summary (default 1) */
    int coll_analysis;             /* coll_analysis sheet (default 1) */
    unsigned compat;               /* TLM_COMPAT_* bits */
    const char *gpu_arch;          /* bundled GPU name, "none" (no
                                      roofline, no detection) or NULL
                                      (from the trace's deviceProperties
                                      unless TLM_COMPAT_NO_ARCH_FROM_TRACE
                                      or gpu_arch_json_path) */
    const char *gpu_arch_json_path; /* TraceLens arch JSON or NULL */
    const char *trace_label;       /* name shown in report.md, or NULL */
    int threads;                   /* threads building the tables: 1
                                      (default) or 2 (unified_perf_summary
                                      beside the other sheets; the same
                                      tables either way) */
    int group_by_num_kernels;      /* ops_unique_args: num_kernels (the
                                      launcher's direct kernel count) as
                                      an extra group key (default 0) */
    int first_occurrence_time;     /* ops_unique_args: the group's
                                      earliest launcher ts minus the
                                      table's earliest, us (default 0) */
    int include_call_stack;        /* unified_perf_summary's entry_point
                                      and call_stack_full (build the tree
                                      with python_functions for TraceLens's
                                      stacks; default 0) */
    int detect_recompute;          /* split gpu_timeline, the ops tables,
                                      unified_perf_summary and the
                                      perf-model sheets by
                                      is_recompute (needs python_functions
                                      in the tree; default 0) */
    const char *inductor_cache_dir; /* Inductor's cache folder: the
                                      Triton model's V1 fallback
                                      (tlm_inductor_cache_load), or NULL */
    int include_overlap_info;      /* the *_kl_overlap sheets of
                                      ops_unique_args, unified_perf_summary
                                      and the perf-model sheets: the
                                      overlapping kernel names as an extra
                                      key (perfreport §4.11; default 0) */
    int keep_gpu_rows;             /* keep, beside unified_perf_summary,
                                      the row of each GPU op (the TraceDiff
                                      enrichment of --comparison_json_path;
                                      default 0) */
} tlm_report_opts;

TLM_API void tlm_report_opts_init(tlm_report_opts *opts);

/* GPU timeline (§3), microseconds. */
typedef struct tlm_gpu_timeline {
    double computation_us;
    double exposed_comm_us;
    double exposed_memcpy_us;
    double busy_us;
    double idle_us;
    double total_us;
    double total_comm_us;
    double total_memcpy_us;
    int has_micro_idle;   /* micro/macro split requested */
    double micro_idle_us;
    double macro_idle_us;
    size_t n_events;      /* GPU events used */
} tlm_gpu_timeline;

/* Computes the timeline from the tree's GPU events (linked only unless
 * include_unlinked).  micro_idle_thresh_us < 0: no micro/macro split.
 * Errors: TLM_ENOTFOUND (no GPU events), TLM_ENOMEM. */
TLM_API tlm_status tlm_gpu_timeline_compute(tlm_tree *tree,
                                            int include_unlinked,
                                            double micro_idle_thresh_us,
                                            tlm_gpu_timeline *out,
                                            tlm_error *err);

/* The exposed communication of the timeline above (communication
 * kernels' union minus computation's) as *n_iv sorted, disjoint [s, e)
 * intervals in ns on the trace's clock plus base_ns (the collective
 * records' clock): (*iv)[2i], (*iv)[2i + 1]; *iv malloc'ed (NULL when
 * none).  For the split into exposed transfer and waiting
 * (docs/metrics-collectives.md).  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_gpu_exposed_comm_ns(const tlm_tree *tree,
                                           int include_unlinked,
                                           int64_t base_ns, int64_t **iv,
                                           size_t *n_iv);

/* Where the GPU architecture of the roofline came from. */
typedef enum tlm_arch_source {
    TLM_ARCH_SRC_NONE = 0, /* none: no roofline columns */
    TLM_ARCH_SRC_OPTION,   /* --gpu_arch NAME */
    TLM_ARCH_SRC_JSON,     /* --gpu_arch_json_path F */
    TLM_ARCH_SRC_TRACE     /* the trace's deviceProperties[].name */
} tlm_arch_source;

/* "none", "option", "json", "trace" (static; "none" for other values). */
TLM_API const char *tlm_arch_source_name(tlm_arch_source src);

/* The GPU a report uses and what the trace says about its devices. */
typedef struct tlm_report_gpu {
    int has_arch;            /* arch is set */
    tlm_arch_source source;
    tlm_gpu_arch arch;       /* a copy; zeroed without one */
    tlm_gpu_devices devices; /* deviceProperties (devices.arch points to
                              * static storage) */
} tlm_report_gpu;

/* Chooses the GPU for a report of trace: opts->gpu_arch ("none": no GPU),
 * else opts->gpu_arch_json_path, else (unless TLM_COMPAT_NO_ARCH_FROM_TRACE)
 * the bundled GPU every deviceProperties entry's name stands for
 * (tlm_gpu_arch_match_device); none when the names are unknown or stand
 * for different GPUs.  A deviceProperties text that does not parse counts
 * as no devices.  opts may be NULL (defaults).  Errors: TLM_EINVAL (both
 * options, or an unknown --gpu_arch: the message lists the known names),
 * the errors of tlm_gpu_arch_load_json, TLM_ENOMEM. */
TLM_API tlm_status tlm_report_gpu_select(const tlm_report_opts *opts,
                                         const tlm_trace *trace,
                                         tlm_report_gpu *out,
                                         tlm_error *err);

typedef struct tlm_report tlm_report;

/* Builds every table.  opts may be NULL (defaults).  The tree must have
 * been built from a trace with kept events.  Errors: TLM_ENOMEM,
 * TLM_ENOTFOUND (no GPU events: TraceLens raises), TLM_EINVAL / TLM_EIO /
 * TLM_EFORMAT (unknown --gpu_arch, unreadable arch JSON). */
TLM_API tlm_status tlm_report_build(tlm_tree *tree,
                                    const tlm_report_opts *opts,
                                    tlm_report **out, tlm_error *err);

TLM_API void tlm_report_free(tlm_report *r);

TLM_API const tlm_gpu_timeline *tlm_report_timeline(const tlm_report *r);

/* The GPU the report was built for (tlm_report_gpu_select). */
TLM_API const tlm_report_gpu *tlm_report_gpu_get(const tlm_report *r);

/* Names of the tables and columns that other modules look up by name (the
 * MPI driver keeps these cells of every trace's report); src/ops.c and
 * src/kernels.c define those tables with the same constants. */
#define TLM_TABNAME_OPS_SUMMARY "ops_summary"
#define TLM_TABNAME_OPS_UNIQUE_ARGS "ops_unique_args"
#define TLM_TABNAME_KERNEL_SUMMARY "kernel_summary"
/* ops_summary (times in milliseconds) */
#define TLM_COLNAME_OPS_NAME "name"
#define TLM_COLNAME_OPS_CATEGORIES "Categories"
#define TLM_COLNAME_OPS_COUNT "Count"
#define TLM_COLNAME_OPS_DIRECT_MS "total_direct_kernel_time_ms"
#define TLM_COLNAME_OPS_SUBTREE_MS "total_subtree_kernel_time_ms"
#define TLM_COLNAME_OPS_PERCENT "Percentage (%)"
/* ops_unique_args (times in microseconds) */
#define TLM_COLNAME_UARGS_NAME "name"
#define TLM_COLNAME_UARGS_CATEGORY "op category"
#define TLM_COLNAME_UARGS_INPUT_DIMS "Input Dims"
#define TLM_COLNAME_UARGS_INPUT_TYPE "Input type"
#define TLM_COLNAME_UARGS_INPUT_STRIDES "Input Strides"
#define TLM_COLNAME_UARGS_CONCRETE_INPUTS "Concrete Inputs"
#define TLM_COLNAME_UARGS_COUNT "operation_count"
#define TLM_COLNAME_UARGS_DIRECT_MEAN "total_direct_kernel_time_mean"
#define TLM_COLNAME_UARGS_DIRECT_MEDIAN "total_direct_kernel_time_median"
#define TLM_COLNAME_UARGS_DIRECT_MIN "total_direct_kernel_time_min"
#define TLM_COLNAME_UARGS_DIRECT_MAX "total_direct_kernel_time_max"
#define TLM_COLNAME_UARGS_DIRECT_SUM "total_direct_kernel_time_sum"
#define TLM_COLNAME_UARGS_SUBTREE_SUM "total_subtree_kernel_time_sum"
#define TLM_COLNAME_UARGS_EX_UID "ex_UID"
/* only with group_by_num_kernels / first_occurrence_time */
#define TLM_COLNAME_UARGS_NUM_KERNELS "num_kernels"
#define TLM_COLNAME_UARGS_FIRST_TIME "first_occurrence_time"
#define TLM_COLNAME_UARGS_PERCENT "Percentage (%)"
/* kernel_summary (durations in microseconds; \xc2\xb5 is UTF-8 for µ) */
#define TLM_COLNAME_KERNEL_PARENT_CATEGORY "Parent op category"
#define TLM_COLNAME_KERNEL_PARENT_OP "Parent cpu_op"
#define TLM_COLNAME_KERNEL_NAME "Kernel name"
#define TLM_COLNAME_KERNEL_STREAM "Kernel stream"
#define TLM_COLNAME_KERNEL_DUR_SUM "Kernel duration (\xc2\xb5s)_sum"
#define TLM_COLNAME_KERNEL_DUR_COUNT "Kernel duration (\xc2\xb5s)_count"
#define TLM_COLNAME_KERNEL_DUR_MEAN "Kernel duration (\xc2\xb5s)_mean"
#define TLM_COLNAME_KERNEL_DUR_MIN "Kernel duration (\xc2\xb5s)_min"
#define TLM_COLNAME_KERNEL_DUR_MAX "Kernel duration (\xc2\xb5s)_max"
#define TLM_COLNAME_KERNEL_PCT_KERNELS "Percent of kernels time (%)"
#define TLM_COLNAME_KERNEL_PCT_TOTAL "Percent of total time (%)"

/* The report's tables as the table layer's tlm_tab (tlm_table.h), for
 * the layers above the report (cmp, find, rdiff) and the programs: the
 * i-th table (NULL past the end), and memcpy_summary (not written as a
 * CSV; NULL when not built). */
TLM_API const tlm_tab *tlm_report_tab(const tlm_report *r, size_t i);
TLM_API const tlm_tab *tlm_report_memcpy_tab(const tlm_report *r);
/* The name report.md gives the trace (opts.trace_label, else its path). */
TLM_API const char *tlm_report_label(const tlm_report *r);
/* The i-th table, writable (NULL past the end). */
TLM_API tlm_tab *tlm_report_tab_mut(tlm_report *r, size_t i);
/* Inserts t as table number at (at <= count; takes ownership, frees t on
 * failure).  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_report_insert_tab(tlm_report *r, size_t at,
                                         tlm_tab *t);
/* Replaces report.md's built-in findings list by md (copied; NULL: back
 * to the built-in list).  The findings layer renders it; the report
 * layer only places it.  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_report_set_findings_md(tlm_report *r, const char *md,
                                              size_t n);

/* Tables in emission order (TraceLens's sheet order). */
TLM_API size_t tlm_report_table_count(const tlm_report *r);
TLM_API const char *tlm_report_table_name(const tlm_report *r, size_t i);
TLM_API size_t tlm_report_table_rows(const tlm_report *r, size_t i);
TLM_API size_t tlm_report_table_cols(const tlm_report *r, size_t i);
TLM_API const char *tlm_report_table_colname(const tlm_report *r, size_t i,
                                             size_t col);
/* Index of a table by name, or -1. */
TLM_API long tlm_report_table_find(const tlm_report *r, const char *name);
/* Cell text exactly as the CSV has it ("" for empty).  Returns the length
 * the full text needs; buf (size > 0) is always NUL-terminated.  Never
 * allocates. */
TLM_API size_t tlm_report_cell_text(const tlm_report *r, size_t i,
                                    size_t row, size_t col, char *buf,
                                    size_t size);

/* Numeric value of a float, integer or boolean cell, without formatting
 * (no memory needed).  Returns 1 and sets *out, or 0 (*out = NaN) for an
 * empty or text cell or indices out of range. */
TLM_API int tlm_report_cell_num(const tlm_report *r, size_t i, size_t row,
                                size_t col, double *out);

/* Writes <dir>/<table>.csv for every table (dir NULL: none) and the
 * Markdown report at md_path (NULL: none), each staged in set under a
 * temporary name (tlm_outset.h); the caller publishes the set with
 * tlm_outset_commit.  On failure the set's temporaries are removed and
 * err names the final file.  Errors: TLM_EIO, TLM_ENOMEM, and those of
 * tlm_outset_stage (an output that exists without force, a FIFO ...). */
TLM_API tlm_status tlm_report_stage(const tlm_report *r, tlm_outset *set,
                                    const char *dir, const char *md_path,
                                    tlm_error *err);

/* Writes the workbook path, staged in set like tlm_report_stage: one
 * worksheet per table in the report's order (TraceLens's), named as the
 * CSVs (cut to Excel's 31 characters, distinct: tlm_xlsx_sheet_names),
 * with the same headers and values (numbers as numbers, text as text,
 * empty cells empty; docs/cli.md, "Workbooks").  Errors: TLM_EIO,
 * TLM_ENOMEM, and those of tlm_outset_stage. */
TLM_API tlm_status tlm_report_stage_xlsx(const tlm_report *r,
                                         tlm_outset *set, const char *path,
                                         tlm_error *err);

/* Writes <dir>/<table>.csv for every table.  All files are staged in a
 * set of their own and published together (tlm_outset_commit): on failure
 * no new file is left and existing files of the same names are untouched;
 * existing regular files are replaced, anything else is refused.  Errors:
 * TLM_EIO, TLM_ENOMEM, TLM_EINVAL. */
TLM_API tlm_status tlm_report_write_csvs(const tlm_report *r,
                                         const char *dir, tlm_error *err);

/* The CSVs and the Markdown report at md_path, all or nothing as above. */
TLM_API tlm_status tlm_report_write_all(const tlm_report *r,
                                        const char *dir, const char *md_path,
                                        tlm_error *err);

/* Writes the Markdown report (timeline, categories, ops, shapes, kernels,
 * findings) to a temporary name, then publishes it as above.  Errors:
 * TLM_EIO, TLM_ENOMEM, TLM_EINVAL. */
TLM_API tlm_status tlm_report_write_md(const tlm_report *r, const char *path,
                                       tlm_error *err);

/* ---- per-step analysis (steps.c, docs/metrics-steps.md) */

/* A selection of step numbers: "3", "3,5", "2-4,7" (ranges inclusive).
 * n == 0 selects every step. */
#define TLM_STEP_SEL_MAX 64
typedef struct tlm_step_sel {
    size_t n;
    int64_t lo[TLM_STEP_SEL_MAX];
    int64_t hi[TLM_STEP_SEL_MAX];
} tlm_step_sel;

/* Parses text (NULL or "" = every step).  Errors: TLM_EINVAL (not a list
 * of non-negative numbers and ranges lo-hi with lo <= hi, or more than
 * TLM_STEP_SEL_MAX items). */
TLM_API tlm_status tlm_step_sel_parse(const char *text, tlm_step_sel *sel,
                                      tlm_error *err);

/* 1 when step is selected. */
TLM_API int tlm_step_sel_has(const tlm_step_sel *sel, int64_t step);

/* One ProfilerStep#N span of one trace; times int64 ns on the trace's own
 * clock.  GPU figures are unions of the linked GPU events (all devices and
 * streams pooled, as the GPU timeline) clipped to [start, start + dur). */
typedef struct tlm_step_row {
    int32_t trace_rank;
    int64_t step;            /* N of ProfilerStep#N */
    int64_t start_ns;        /* span start + baseTimeNanoseconds (0 when
                              * absent): the collectives' raw clock */
    int64_t dur_ns;          /* step time: span duration */
    int64_t gpu_busy_ns;     /* union of every GPU event */
    int64_t compute_ns;      /* union of the non-communication kernels
                              * (and memsets) */
    int64_t comm_ns;         /* collective time: union of the
                              * communication kernels */
    int64_t exposed_comm_ns; /* communication not overlapped by compute */
    int64_t idle_ns;         /* dur_ns - gpu_busy_ns */
    int64_t n_gpu_events;    /* GPU events overlapping the step */
} tlm_step_row;

/* The rows of the CPU user annotations ProfilerStep#N of the tree's trace
 * (sorted by step; a step number seen more than once spans from its first
 * start to its last end), steps outside sel (NULL: all) left out.  *rows
 * is malloc'd (free()), NULL when *n is 0 (no steps is not an error).
 * Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_steps_compute(const tlm_tree *tree, int32_t rank,
                                     const tlm_step_sel *sel,
                                     tlm_step_row **rows, size_t *n,
                                     tlm_error *err);

/* Default outlier threshold: a step is an outlier when its step time (max
 * over ranks) exceeds the median over the steps by more than this
 * fraction. */
#define TLM_STEP_OUTLIER_DEFAULT 0.2

/* One step across ranks. */
typedef struct tlm_step_summary {
    int64_t step;
    int32_t n_ranks;
    int32_t slowest_rank;       /* largest dur_ns; ties: lowest rank */
    int64_t dur_min_ns;
    double dur_median_ns;
    int64_t dur_max_ns;         /* the step's time for the job */
    double gpu_busy_median_ns;
    int64_t exposed_comm_max_ns;
    int64_t comm_max_ns;
    double vs_median;           /* dur_max_ns / median over steps of
                                 * dur_max_ns (NaN when that is 0) */
    int32_t outlier;            /* 1: vs_median > 1 + threshold */
} tlm_step_summary;

/* Summarises rows (any order, several ranks) per step, sorted by step.
 * *out is malloc'd (free()), NULL when *n_out is 0.  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_steps_summarize(const tlm_step_row *rows, size_t n,
                                       double threshold,
                                       tlm_step_summary **out,
                                       size_t *n_out);

#ifdef __cplusplus
}
#endif
#endif /* TLM_REPORT_H */
