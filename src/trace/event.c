/*
 * event.c - predicates of one event (public twins of trace_event.h) and
 * the exact microseconds of large nanosecond counts.
 */
#include "trace_event.h"

#include <math.h>
#include <stdlib.h>

int tlm_event_is_gpu(const tlm_event *ev)
{
    return tlm_ev_gpu(ev);
}

/* |ns| > 2^53: (double)ns would round before the division.  The value is
 * q.rrr microseconds exactly; its correctly rounded double is strtod's
 * (the C locale's '.', as everywhere in tlmpi). */
double tlm_ns_to_us_big(int64_t ns)
{
    int64_t q = ns / 1000, r = ns % 1000;
    if (r == 0)
        return (double)q;
    char buf[32];
    size_t k = sizeof buf;
    buf[--k] = '\0';
    uint64_t f = (uint64_t)(r < 0 ? -r : r);
    for (int i = 0; i < 3; i++) {
        buf[--k] = (char)('0' + f % 10);
        f /= 10;
    }
    buf[--k] = '.';
    uint64_t u = q < 0 ? 0 - (uint64_t)q : (uint64_t)q;
    do {
        buf[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (ns < 0)
        buf[--k] = '-';
    return strtod(buf + k, NULL);
}

int64_t tlm_ts_key_big(int64_t ns)
{
    double d = tlm_ns_to_us_big(ns);
    double w = floor(d);
    /* w is integral and < 2^63 / 1000; d - w is exact; the spacing of
     * doubles here is >= 2^-9 us (~1.95 ns), so rounding the fraction to
     * the nanosecond keeps distinct doubles distinct and in order */
    return (int64_t)w * 1000 + (int64_t)llround((d - w) * 1000.0);
}
