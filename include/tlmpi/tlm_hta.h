/*
 * tlm_hta.h - Holistic Trace Analysis (HTA) per-rank analyses
 * (spec/hta.md; docs/hta.md).
 *
 * Layer src/hta/ (links trace, util; never MPI or HDF5).  Two parts:
 *
 * 1. The event table HTA analyses (spec §1.1-1.5), one per rank
 *    (tlm_hta_events):  every traceEvents entry with a "dur" and a "cat"
 *    (not "Trace"), keyed by its position in traceEvents, with HTA's
 *    stream / correlation columns, HTA's microsecond rounding (§1.2, or
 *    nanoseconds with TLM_HTA_TIME_NS), the correlation links
 *    (index_correlation, §1.3), the job's time origin (§1.4) and the
 *    iteration filter (§1.5).  Job-level inputs (the job's distinct
 *    ProfilerStep names, the earliest ts over all ranks) come from the
 *    caller: the driver reduces them over MPI ranks, `tlmpi report` uses
 *    the one trace.  Build order:
 *
 *        tlm_hta_events_build(trace, rank, time, &ev, err);
 *        ... job: union of tlm_hta_events_step_name() over ranks,
 *                 min of ev->min_ts over ranks ...
 *        tlm_hta_events_filter(ev, n_job_step_names, include_last, err);
 *        tlm_hta_events_shift(ev, job_min_ts);
 *
 * 2. The tables of spec §2-§8 (tlm_hta_tables_*), built from a filtered
 *    event table (see below in this header).
 *
 * Times in tlm_hta_ev are int64 nanoseconds.  With TLM_HTA_TIME_US and a
 * trace HTA rounds (any non-integer or missing ts), they are whole
 * microseconds (multiples of 1000 ns) and durations may be -1000 (spec Q1);
 * outputs divide by 1000 to print microseconds.
 */
#ifndef TLM_HTA_H
#define TLM_HTA_H

#include "tlm_common.h"
#include "tlm_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Time base of the HTA tables (--hta_time). */
typedef enum tlm_hta_time {
    TLM_HTA_TIME_US = 0, /* HTA's rounding (§1.2) when HTA would round */
    TLM_HTA_TIME_NS = 1  /* full nanoseconds (HTA_DISABLE_NS_ROUNDING=1) */
} tlm_hta_time;

/* One row of HTA's event table. */
typedef struct tlm_hta_ev {
    int64_t ts;       /* ns, HTA time base, minus the job origin once
                       * tlm_hta_events_shift() ran */
    int64_t dur;      /* ns; may be < 0 after the rounding (Q1) */
    int64_t stream;   /* args.stream as an integer; -1 missing/not numeric */
    int64_t corr;     /* args.correlation; -1 missing */
    int64_t icorr;    /* index_correlation (§1.3): partner's index, 0 = has
                       * a correlation but no partner, -1 = none */
    int64_t index;    /* position in traceEvents (0-based, every entry) */
    int64_t pid, tid; /* as in tlm_event (string ids when pid_str/tid_str) */
    uint32_t name;    /* interned in the trace (tlm_trace_str) */
    uint32_t cat_str; /* interned category text */
    uint16_t cat;     /* tlm_cat */
    uint8_t gpu_side; /* 1: GPU-side by §1.3 (stream >= 0 and corr >= 0,
                       * or named "Event Sync" / "Context Sync") */
    uint8_t pid_str;  /* 1: pid is a string id */
    uint8_t tid_str;  /* 1: tid is a string id */
    uint8_t step;     /* 1: name matches ^ProfilerStep#\d+ */
    uint8_t ktype;    /* HTA's kernel type of the name (§1.6): 0
                       * COMPUTATION, 1 COMMUNICATION, 2 MEMORY, 3 OTHER;
                       * set for rows with stream != -1, else 3 */
    uint8_t reserved_;
} tlm_hta_ev;

/* A rank's event table.  Plain data: read the fields; change it only
 * through the functions below. */
typedef struct tlm_hta_events {
    const tlm_trace *trace;  /* not owned; must outlive this table */
    tlm_hta_ev *ev;          /* rows (HTA's table order, see filter) */
    size_t n;
    int64_t rank;            /* the rank given to build */
    tlm_hta_time time;
    int rounded;             /* 1: §1.2 rounding applied to this trace */
    size_t n_trace_events;   /* entries of traceEvents */
    size_t n_neg_dur;        /* rows with dur < 0 after rounding (Q1),
                              * counted before the filter */
    size_t n_neg_dur_gpu;    /* ... of which GPU events (stream != -1) */
    size_t n_no_ts;          /* kept-category events without "ts",
                              * left out (HTA would carry NaN) */
    size_t n_dup_corr;       /* correlations with > 1 CPU-side or > 1
                              * GPU-side event (last pairing wins, §1.3) */
    int64_t min_ts;          /* smallest ts of the rows before the shift;
                              * INT64_MAX without rows */
    int64_t origin;          /* subtracted by tlm_hta_events_shift */
    int filtered;            /* 1: the iteration filter ran */
    int64_t last_start;      /* its bound (ns, unshifted), when filtered */
    size_t n_before_filter;  /* rows before the filter */
    uint32_t *step_names;    /* distinct ProfilerStep#N name ids of the
                              * rows (before the filter), first-seen order */
    size_t n_step_names;
    int32_t *row_of_index;   /* n_trace_events entries: the first row with
                              * that index, -1 when not in the table */
} tlm_hta_events;

/* Builds the rank's table (§1.1-§1.3) from a trace read with keep_events.
 * rank is written in every table's rank column.  On success *out is a new
 * table the caller frees with tlm_hta_events_free().  Errors: TLM_EINVAL
 * (no kept events in the trace), TLM_ENOMEM. */
TLM_API tlm_status tlm_hta_events_build(const tlm_trace *trace, int64_t rank,
                                        tlm_hta_time time,
                                        tlm_hta_events **out,
                                        tlm_error *err);

/* Releases the table (not the trace).  NULL is allowed. */
TLM_API void tlm_hta_events_free(tlm_hta_events *ev);

/* Text of the i-th distinct ProfilerStep name of the rank (i <
 * ev->n_step_names); *len may be NULL.  The job-level filter needs the
 * number of distinct names over all ranks. */
TLM_API const char *tlm_hta_events_step_name(const tlm_hta_events *ev,
                                             size_t i, size_t *len);

/* Number of distinct strings among names[0..n) (lens[i] bytes each; NULL
 * lens: NUL-terminated).  Helper for the job-level step-name union. */
TLM_API size_t tlm_hta_count_distinct(const char *const *names,
                                      const size_t *lens, size_t n);

/* The iteration filter (§1.5): runs when n_job_step_names >= 2 (distinct
 * ProfilerStep#N names over all ranks), else changes nothing.  Keeps the
 * CPU-side rows with ts < last_start (include_last: ts <= the last end of
 * a step), and per kept CPU-side row the GPU-side rows of its
 * correlation; rows become: kept GPU-side in file order (repeated per
 * partner), then kept CPU-side in file order.  Call once, before
 * tlm_hta_events_shift.  Errors: TLM_ENOMEM (the table is unchanged). */
TLM_API tlm_status tlm_hta_events_filter(tlm_hta_events *ev,
                                         size_t n_job_step_names,
                                         int include_last, tlm_error *err);

/* Subtracts the job's time origin (§1.4: the smallest min_ts over all
 * ranks) from every ts.  Call once. */
TLM_API void tlm_hta_events_shift(tlm_hta_events *ev, int64_t origin);

/* The row whose traceEvents index is `index` (the first, for a GPU event
 * the filter repeated), or NULL when not in the table (index < 0 too). */
TLM_API const tlm_hta_ev *tlm_hta_events_find(const tlm_hta_events *ev,
                                              int64_t index);

/* HTA's rounding of one event (§1.2), exposed for tests: given the
 * trace's ts and dur in ns, writes ts' = ceil(ts) and dur' = floor(ts +
 * dur, in double) - ts', both in ns (multiples of 1000). */
TLM_API void tlm_hta_round_us(int64_t ts_ns, int64_t dur_ns,
                              int64_t *ts_out, int64_t *dur_out);


/* ================================================================ tables
 * The tables of spec §2-§8 (§9, the critical path, plugs in through
 * tlm_hta_build's builder list: see hta_tables.c).  One tlm_hta_result
 * per rank (tlm_hta_build), rows of several ranks joined by tlm_hta_merge
 * (the job: rank order, gpu_kernel_breakdown_by_type summed over ranks).
 */

#include "tlm_outset.h"
#include "tlm_table.h"

/* Options (HTA's defaults by tlm_hta_opts_init). */
typedef struct tlm_hta_opts {
    tlm_hta_time time;            /* --hta_time (us) */
    double consecutive_kernel_delay; /* us, idle kernel_wait bound (30) */
    double runtime_cutoff;        /* us, launch summary (50) */
    double launch_delay_cutoff;   /* us, launch summary (100) */
    int min_pattern_len;          /* kernel sequences (3) */
    int include_last_step;        /* iteration filter (0) */
    const char *kernel_seq_op;    /* --hta_kernel_sequences; NULL = none */
    char cp_annotation[256];      /* --hta_critical_path (ProfilerStep) */
    int cp_first, cp_last;        /* instance range (0, 0) */
} tlm_hta_opts;

TLM_API void tlm_hta_opts_init(tlm_hta_opts *o);

/* "ANNOTATION[:I[-J]]" into o->cp_* (instances I..J, 0-based; I alone:
 * I..I).  Errors: TLM_EINVAL (message in err). */
TLM_API tlm_status tlm_hta_cp_parse(const char *text, tlm_hta_opts *o,
                                    tlm_error *err);

/* The tables are the table layer's tlm_tab (tlm_table.h), their columns
 * described in its vocabulary: a column is a tlm_tabcol (name: HTA's CSV
 * header; type; unit "us", "%" or ""), of type int64, double (NaN = an
 * empty cell) or text. */
typedef tlm_coltype tlm_hta_type;
#define TLM_HTA_I64 TLM_COL_I64
#define TLM_HTA_F64 TLM_COL_F64
#define TLM_HTA_STR TLM_COL_STR
typedef tlm_tabcol tlm_hta_col;

typedef struct tlm_hta_table tlm_hta_table;

TLM_API const char *tlm_hta_table_name(const tlm_hta_table *t);
TLM_API const char *tlm_hta_table_doc(const tlm_hta_table *t);
TLM_API size_t tlm_hta_table_cols(const tlm_hta_table *t);
TLM_API const tlm_hta_col *tlm_hta_table_col(const tlm_hta_table *t,
                                             size_t c);
TLM_API size_t tlm_hta_table_rows(const tlm_hta_table *t);
/* Cells; the accessor must match the column's type. */
TLM_API int64_t tlm_hta_cell_i64(const tlm_hta_table *t, size_t row,
                                 size_t col);
TLM_API double tlm_hta_cell_f64(const tlm_hta_table *t, size_t row,
                                size_t col);
TLM_API const char *tlm_hta_cell_str(const tlm_hta_table *t, size_t row,
                                     size_t col, size_t *len);

/* Counts report.md states (quirks that changed a number, bad input). */
typedef struct tlm_hta_notes {
    uint64_t n_events;        /* rows analysed (after the filter) */
    uint64_t n_neg_dur;       /* Q1: durations -1 us after the rounding */
    uint64_t n_neg_dur_gpu;   /* ... of GPU events */
    uint64_t n_no_ts;         /* kept-category events without ts */
    uint64_t n_dup_corr;      /* correlations shared by > 1 event a side */
    uint64_t n_filtered_out;  /* rows the iteration filter removed */
    uint64_t n_ranks_filtered;/* ranks the filter ran on */
    uint64_t n_rounded_ranks; /* ranks HTA's rounding applied to */
    uint64_t n_no_gpu;        /* ranks without GPU events */
    uint64_t n_temporal_neg;  /* Q2: ranks with a negative time */
    uint64_t n_seq_clamped;   /* Q9: durations < 0 taken as 0 */
    uint64_t n_driver_launches; /* Q8: cuLaunchKernel* kept out */
    uint64_t n_rocm_launches;   /* Q8: hip* launches added */
    uint64_t n_orphan_kernels;  /* GPU events without a launch partner */
    uint64_t n_cp_neg_edges;  /* Q10: critical-path graph edges of weight
                               * <= -1 us (0 in the path search) */
    uint64_t n_cp_neg_on_path;/* ... of them on the path */
    uint64_t n_cp_left_out;   /* critical-path edges HTA stops on (a
                               * partner without a node; Event Sync /
                               * Stream Wait Event), left out */
    int has_seq;              /* the kernel-sequence table was asked */
    int seq_rank_found;
    char cp_reason[160];      /* why no critical path ("" = built) */
    char steps[160];          /* ProfilerStep names analysed on the
                               * first rank (after the filter; Q4) */
    int64_t steps_rank;       /* that rank; -1 none */
} tlm_hta_notes;

typedef struct tlm_hta_result tlm_hta_result;

/* Builds every table of one rank from its filtered, shifted event table.
 * is_seq_rank: this rank gets the kernel sequences and the critical path
 * (--hta_rank).  *out is freed with tlm_hta_result_free.  Errors:
 * TLM_ENOMEM. */
TLM_API tlm_status tlm_hta_build(const tlm_hta_events *ev,
                                 const tlm_hta_opts *o, int is_seq_rank,
                                 tlm_hta_result **out, tlm_error *err);
TLM_API void tlm_hta_result_free(tlm_hta_result *r);

/* Joins the results of several ranks (given in rank order) into one:
 * rows concatenated, gpu_kernel_breakdown_by_type summed per kernel_type
 * with its percentage recomputed, notes summed.  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_hta_merge(tlm_hta_result *const *parts, size_t n,
                                 tlm_hta_result **out, tlm_error *err);

/* Removes the tables built on the --hta_rank rank only (the kernel
 * sequences, the critical path): the job keeps them from one rank. */
TLM_API void tlm_hta_drop_rank_tables(tlm_hta_result *r);

/* Moves the rank-only tables (and the notes that belong to them: Q9
 * count, seq_rank_found, cp_reason) of r into a new result *rank_part
 * (empty when r has none), so that a job sends them only for the chosen
 * rank.  Errors: TLM_ENOMEM (r unchanged). */
TLM_API tlm_status tlm_hta_split_rank_tables(tlm_hta_result *r,
                                             tlm_hta_result **rank_part);

/* The definitions of every table tlmpi may write, for the schema: the
 * i-th's name, doc and columns; 0 past the last. */
TLM_API int tlm_hta_table_def(size_t i, const char **name, const char **doc,
                              const tlm_hta_col **cols, size_t *ncols);

TLM_API size_t tlm_hta_result_tables(const tlm_hta_result *r);
TLM_API const tlm_hta_table *tlm_hta_result_table(const tlm_hta_result *r,
                                                  size_t i);
/* The table named name, or NULL. */
TLM_API const tlm_hta_table *tlm_hta_result_find(const tlm_hta_result *r,
                                                 const char *name);
TLM_API const tlm_hta_notes *tlm_hta_result_notes(const tlm_hta_result *r);

/* Serialises a result into one malloc'd buffer (*buf, *len; the caller
 * frees it) and back, for the driver's gathers.  Errors: TLM_ENOMEM,
 * TLM_EFORMAT (a buffer that is not a packed result). */
TLM_API tlm_status tlm_hta_pack(const tlm_hta_result *r, void **buf,
                                size_t *len);
TLM_API tlm_status tlm_hta_unpack(const void *buf, size_t len,
                                  tlm_hta_result **out);

/* Stages <dir>/hta/<table>.csv for every table in set (the caller
 * commits).  Errors: those of tlm_outset_stage, TLM_EIO. */
TLM_API tlm_status tlm_hta_stage_csvs(const tlm_hta_result *r,
                                      tlm_outset *set, const char *dir,
                                      tlm_error *err);

/* Appends the report.md "HTA" section (Markdown) to a malloc'd string
 * (*md, NUL-terminated; the caller frees it).  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_hta_markdown(const tlm_hta_result *r, char **md);

#ifdef __cplusplus
}
#endif
#endif /* TLM_HTA_H */
