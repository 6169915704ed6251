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
    uint8_t reserved_[2];
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

#ifdef __cplusplus
}
#endif
#endif /* TLM_HTA_H */
