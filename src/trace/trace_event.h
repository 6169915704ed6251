/*
 * trace_event.h - inline predicates and time conversions of one event,
 * for the hot loops of the tree and the report (tlm_event_is_gpu is the
 * public twin of tlm_ev_gpu).
 */
#ifndef TLM_TRACE_EVENT_H
#define TLM_TRACE_EVENT_H

#include <stdint.h>

#include "tlmpi/tlm_trace.h"

/* Microseconds as TraceLens sees them: the correctly rounded double of the
 * decimal value (exact for <= 3 fractional digits, see docs).  One IEEE
 * division of exact operands while |ns| <= 2^53; above (absolute epoch
 * microseconds, ~1.7e18 ns) (double)ns would already be rounded, so the
 * decimal is converted instead (spec addendum §A1). */
double tlm_ns_to_us_big(int64_t ns);
static inline double tlm_ns_to_us(int64_t ns)
{
    const int64_t exact = (int64_t)1 << 53;
    if (ns <= exact && ns >= -exact)
        return (double)ns / 1000.0;
    return tlm_ns_to_us_big(ns);
}

/* Sort key of a timestamp that orders as TraceLens's parsed double does
 * (addendum §A1 rule 3): ns itself while |ns| <= 2^53 (distinct there);
 * above, the nanosecond nearest that double, so that timestamps rounding
 * to the same double tie (and keep UID order in the stable sorts). */
int64_t tlm_ts_key_big(int64_t ns);
static inline int64_t tlm_ts_key(int64_t ns)
{
    const int64_t exact = (int64_t)1 << 53;
    if (ns <= exact && ns >= -exact)
        return ns;
    return tlm_ts_key_big(ns);
}

static inline double tlm_ev_ts_us(const tlm_event *e)
{
    return tlm_ns_to_us(e->ts);
}

/* t_end = ts + dur computed once, in double, as TraceLens does. */
static inline double tlm_ev_end_us(const tlm_event *e)
{
    return tlm_ns_to_us(e->ts) + tlm_ns_to_us(tlm_ev_dur(e));
}

/* Starts loading an event a loop will read a few iterations later (the
 * loops over UID lists are latency-bound: one cache miss per event). */
#if defined(__GNUC__) || defined(__clang__)
#define TLM_PREFETCH(p) __builtin_prefetch(p)
#else
#define TLM_PREFETCH(p) ((void)(p))
#endif
#define TLM_PREFETCH_AHEAD 8

/* kernel / gpu_memset / gpu_memcpy (inline twin of tlm_event_is_gpu). */
/* tlm_event_is_gpu(), inline for the table builders' loops. */
static inline int tlm_ev_gpu(const tlm_event *e)
{
    const unsigned both = TLM_EV_HAS_TS | TLM_EV_HAS_DUR;
    return (e->cat == TLM_CAT_KERNEL || e->cat == TLM_CAT_GPU_MEMSET ||
            e->cat == TLM_CAT_GPU_MEMCPY) &&
           (e->flags & both) == both && tlm_ev_dur(e) >= 0;
}

#endif /* TLM_TRACE_EVENT_H */
