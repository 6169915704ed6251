/*
 * tlm_cause.h - why a straggler is late (coll layer).
 *
 * For each collective record of a trace, tlm_coll_windows() summarises the
 * rank's "window" before the collective: from the end of the previous
 * instance of the same process group on that rank (when it lined the
 * ranks up: compute did not run beside most of it), else from the step's
 * start (ProfilerStep#N, else the trace's start), to the start of this
 * collective's kernel, split into GPU busy time (compute, copies, memsets:
 * collective kernels left out), GPU idle time while the host had not yet
 * issued the next launch (host_busy), idle time while the next op waited
 * for another collective's kernel (waiting_elsewhere), idle time after the
 * next launch was issued and the time the collective was ready but had not
 * started (late_launch), and what cannot be placed (other), with the ops
 * that took the most time in each.  The same parts from the step's start
 * are kept too.  The summary is
 * small and flat (no pointers), so the driver moves it between processes
 * as bytes next to the record it belongs to.
 *
 * tlm_coll_cause_compute() compares, for every complete implicit-sync
 * instance that a given rank arrived last at, its window with the window
 * of the instance's median member, and attributes the delay (last start -
 * median start, corrected clocks) to causes; partial tables of several
 * owners merge exactly with tlm_coll_cause_merge().  The rule is in
 * docs/straggler-causes.md.
 *
 * Thread-safety: no globals; distinct calls may run concurrently.
 */
#ifndef TLM_CAUSE_H
#define TLM_CAUSE_H

#include "tlm_coll.h"
#include "tlm_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Causes.  X(enum, "name written in the outputs"). */
#define TLM_CAUSE_LIST(X)                          \
    X(TLM_CAUSE_SLOW_KERNELS, "slow_kernels")      \
    X(TLM_CAUSE_HOST_BUSY, "host_busy")            \
    X(TLM_CAUSE_LATE_LAUNCH, "late_launch")        \
    X(TLM_CAUSE_WAITING_ELSEWHERE, "waiting_elsewhere") \
    X(TLM_CAUSE_CLOCK, "clock")                    \
    X(TLM_CAUSE_OTHER, "other")

typedef enum tlm_cause {
#define TLM_X_(e, s) e,
    TLM_CAUSE_LIST(TLM_X_)
#undef TLM_X_
    TLM_CAUSE_COUNT
} tlm_cause;

/* "slow_kernels", ...; NULL out of range. */
TLM_API const char *tlm_cause_name(int cause);

/* Ops kept per window and kind (kernel ops, host ops). */
#define TLM_CAUSE_TOP 2
#define TLM_CAUSE_OP_LEN 48

/* One op of a window: name (cut to TLM_CAUSE_OP_LEN - 1 bytes, control
 * characters replaced by '?'), its hash (tlm_hash64 of the whole name),
 * its time in the window. */
typedef struct tlm_cause_op {
    uint64_t hash;            /* 0: slot unused */
    int64_t ns;
    char name[TLM_CAUSE_OP_LEN];
} tlm_cause_op;

/* Window flags. */
enum {
    TLM_WIN_NO_PREV = 1u << 0, /* no window: the record's kernel is not
                                * among the trace's events (everything goes
                                * to other) */
    TLM_WIN_CUT = 1u << 1,     /* a bound was hit (too many ops or host
                                * events): some time went to other */
    TLM_WIN_STEP = 1u << 2     /* first collective of its group here: the
                                * window starts at the ProfilerStep#N (else
                                * the trace) start, not at a collective
                                * end */
};

/* The window of one collective record (part 0, implicit-sync types). */
typedef struct tlm_coll_window {
    uint64_t owner_key;       /* tlm_coll_record_owner_key of the record */
    uint64_t event_index;     /* the record's kernel (joins the member) */
    int64_t win_start_ns;     /* previous instance's end (TLM_WIN_STEP:
                               * the step's start), on start_ns's time base
                               * (raw trace clock) */
    int64_t win_ns;           /* start - win_start (>= 0) */
    int64_t busy_ns;          /* GPU busy with compute, copies, memsets
                               * (union, all streams; collective kernels
                               * left out) */
    int64_t host_ns;          /* GPU idle before the next launch */
    int64_t launch_ns;        /* idle after the next launch, and the time
                               * the collective's kernel was ready but had
                               * not started */
    int64_t other_ns;         /* GPU idle with no launch found */
    int64_t coll_ns;          /* idle while the next op waited for a
                               * collective kernel of another collective
                               * (waiting for its peers, or its transfer) */
    /* the same parts from the step's start (the window itself when
     * TLM_WIN_STEP): used when the two windows compared do not start at
     * the same kind of point */
    int64_t step_start_ns;    /* on start_ns's time base */
    int64_t step_busy_ns, step_host_ns, step_launch_ns, step_other_ns,
        step_coll_ns;
    int32_t trace_rank;
    uint32_t flags;           /* TLM_WIN_* */
    tlm_cause_op kop[TLM_CAUSE_TOP]; /* GPU busy by launching op, largest
                                       * first */
    tlm_cause_op hop[TLM_CAUSE_TOP]; /* host_ns by innermost host event,
                                       * largest first */
} tlm_coll_window;

/* Windows of one trace's records (recs as tlm_coll_extract gave them, all
 * of this trace).  The trace must have kept its events.  *out: new array
 * (one entry per part-0 record of an implicit-sync type), freed with
 * tlm_coll_free(alloc, *out).  Errors: TLM_EINVAL (NULL arguments),
 * TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_windows(const tlm_trace *trace,
                                    const tlm_coll_record *recs, size_t n,
                                    const tlm_alloc *alloc,
                                    tlm_coll_window **out, size_t *n_out,
                                    tlm_error *err);

/* A row of the cause table of one straggler rank.  Cause rows (op_hash 0)
 * hold, per (process group, cause), the delay attributed to the cause and
 * the group's whole delay; op rows (op_hash != 0) the extra time of one op
 * over the median member (slow_kernels: GPU time, host_busy: host time).
 * All sums of integers: partial tables merge exactly by addition. */
typedef struct tlm_coll_cause_row {
    uint64_t pg_hash;
    uint64_t op_hash;         /* 0: cause row */
    int64_t delay_ns;         /* cause row: attributed delay; op row: the
                               * op's extra time */
    int64_t total_delay_ns;   /* cause row: the group's delay (every
                               * cause); op row: 0 */
    int64_t n_instances;      /* cause row: instances the rank delayed */
    int32_t trace_rank;
    int32_t cause;            /* tlm_cause */
    char pg_name[TLM_COLL_PG_NAME_LEN];
    char op_name[TLM_CAUSE_OP_LEN];
} tlm_coll_cause_row;

/* Cause rows of rank `rank` over the instances (offsets applied, so that
 * members' offset_ns is set) it arrived last at, from the windows of their
 * members (win: any order; a member without a window counts as other).
 * *rows: new array sorted by (pg_hash, cause, op_hash), freed with
 * tlm_coll_free(alloc, *rows); every group with a delayed instance has one
 * row per cause.  Errors: TLM_EINVAL, TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_cause_compute(
    const tlm_coll_instance *inst, size_t n_inst,
    const tlm_coll_member *mem, size_t n_mem,
    const tlm_coll_window *win, size_t n_win, int32_t rank,
    const tlm_alloc *alloc, tlm_coll_cause_row **rows, size_t *n_rows,
    tlm_error *err);

/* Merges concatenated partial tables in place (sums rows with the same
 * (trace_rank, pg_hash, cause, op_hash)); sorted as above. */
TLM_API void tlm_coll_cause_merge(tlm_coll_cause_row *rows, size_t *n);

#ifdef __cplusplus
}
#endif
#endif /* TLM_CAUSE_H */
