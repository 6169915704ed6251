/*
 * hta_events.c - the per-rank event table of Holistic Trace Analysis
 * (spec/hta.md §1.1-§1.5): which traceEvents entries HTA keeps, its
 * stream/correlation columns, its microsecond rounding, the correlation
 * links (index_correlation), the job time origin and the iteration filter.
 *
 * Every later HTA table (hta_*.c, and the critical path) reads only this
 * table.  Rows carry the entry's position in traceEvents (`index`), which
 * is also how index_correlation points at a partner; row_of_index maps an
 * index back to its row in O(1).
 *
 * Rounding (§1.2) is decided over the whole traceEvents array, as pandas
 * decides the dtype of the "ts" column: one entry without "ts" or with a
 * ts token that is not a JSON integer makes every ts a double, and HTA then
 * rounds every event (start up, end down, end computed in double).
 */
#include "hta_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace_event.h"

/* ---------------------------------------------------------------- MARK: -
 * rounding */

void tlm_hta_round_us(int64_t ts_ns, int64_t dur_ns, int64_t *ts_out,
                      int64_t *dur_out)
{
    double ts = tlm_ns_to_us(ts_ns);
    double end = floor(ts + tlm_ns_to_us(dur_ns));
    double start = ceil(ts);
    *ts_out = (int64_t)start * 1000;
    *dur_out = (int64_t)(end - start) * 1000;
}

/* pandas makes "ts" float64 when one entry lacks it or one is not an
 * integer token (Python's json gives a float for "100.0" too). */
static int trace_rounds(const tlm_event *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!(e[i].flags & TLM_EV_HAS_TS) || !(e[i].tflags & TLM_EVT_TS_INT))
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- MARK: -
 * columns */

/* Python's int() of the stream argument; -1 when it raises. */
static int64_t stream_of(const tlm_trace *t, const tlm_event *e)
{
    tlm_argv v;
    tlm_argv_type ty = tlm_event_arg(t, e, TLM_ARG_STREAM, &v);
    if (ty == TLM_ARGV_INT)
        return v.i;
    if (ty != TLM_ARGV_STR)
        return -1;
    size_t len = 0;
    const char *s = tlm_trace_str(t, v.str, &len);
    char buf[64];
    if (!s || len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    long long i = strtoll(buf, &end, 10);
    while (end && (*end == ' ' || *end == '\t' || *end == '\n'))
        end++;
    if (end && end != buf && *end == '\0')
        return (int64_t)i;
    double d = strtod(buf, &end);
    if (end && end != buf && *end == '\0' && isfinite(d) &&
        fabs(d) < 9.2e18)
        return (int64_t)d; /* a float number: int() truncates */
    return -1;
}

static int64_t corr_of(const tlm_trace *t, const tlm_event *e)
{
    int64_t c;
    if (tlm_event_arg_int(t, e, TLM_ARG_CORRELATION, &c))
        return c;
    return -1;
}

/* ^ProfilerStep#\d+ */
static int is_step_name(const char *s, size_t len)
{
    static const char pre[] = "ProfilerStep#";
    const size_t pl = sizeof pre - 1;
    return len > pl && memcmp(s, pre, pl) == 0 && s[pl] >= '0' &&
           s[pl] <= '9';
}

static int name_is(const char *s, size_t len, const char *lit)
{
    size_t l = strlen(lit);
    return len == l && memcmp(s, lit, l) == 0;
}

/* The [memory] instant events HTA keeps with dur 0. */
static int is_memory_instant(const tlm_trace *t, const tlm_event *e)
{
    if (e->ph != 'i' || e->cat != TLM_CAT_CPU_INSTANT_EVENT)
        return 0;
    size_t len;
    const char *s = tlm_trace_str(t, e->name, &len);
    return name_is(s, len, "[memory]");
}

/* ---------------------------------------------------------------- MARK: -
 * build */

static tlm_status add_step_name(tlm_hta_events *ev, uint32_t name)
{
    for (size_t i = 0; i < ev->n_step_names; i++) {
        if (ev->step_names[i] == name)
            return TLM_OK;
    }
    uint32_t *p = realloc(ev->step_names,
                                     (ev->n_step_names + 1) * sizeof *p);
    if (!p)
        return TLM_ENOMEM;
    ev->step_names = p;
    ev->step_names[ev->n_step_names++] = name;
    return TLM_OK;
}

/* One kept entry -> one row (no index_correlation yet). */
static tlm_status fill_row(tlm_hta_events *ev, const tlm_event *e,
                           size_t index, int rounds, tlm_hta_ev *r)
{
    const tlm_trace *t = ev->trace;
    size_t len;
    const char *name = tlm_trace_str(t, e->name, &len);
    memset(r, 0, sizeof *r);
    r->index = (int64_t)index;
    r->name = e->name;
    r->cat_str = e->cat_str;
    r->cat = e->cat;
    r->pid = tlm_ev_pid(e);
    r->tid = tlm_ev_tid(e);
    r->pid_str = (e->flags & TLM_EV_PID_STR) ? 1 : 0;
    r->tid_str = (e->flags & TLM_EV_TID_STR) ? 1 : 0;
    r->stream = stream_of(t, e);
    r->corr = corr_of(t, e);
    int64_t dur = (e->flags & TLM_EV_HAS_DUR) ? tlm_ev_dur(e) : 0;
    if (rounds && ev->time == TLM_HTA_TIME_US) {
        tlm_hta_round_us(e->ts, dur, &r->ts, &r->dur);
        if (!(e->flags & TLM_EV_HAS_DUR))
            r->dur = 0; /* [memory]: dur set to 0 after the rounding */
    } else {
        r->ts = e->ts;
        r->dur = dur;
    }
    r->gpu_side = (uint8_t)((r->stream >= 0 && r->corr >= 0) ||
                            name_is(name, len, "Event Sync") ||
                            name_is(name, len, "Context Sync"));
    r->step = (uint8_t)is_step_name(name, len);
    if (r->step)
        return add_step_name(ev, e->name);
    return TLM_OK;
}

/* Kernel type of an interned name, computed once per name. */
static uint8_t kind_of(const tlm_trace *t, uint8_t *cache, uint32_t name)
{
    if (cache[name] == 0xff) {
        size_t len;
        const char *s = tlm_trace_str(t, name, &len);
        cache[name] = (uint8_t)tlm_hta_kernel_type(s, len);
    }
    return cache[name];
}

static int kept(const tlm_trace *t, const tlm_event *e)
{
    if (e->cat_str == 0 || e->cat == TLM_CAT_TRACE)
        return 0;
    if (e->flags & TLM_EV_HAS_DUR)
        return 1;
    return is_memory_instant(t, e);
}

static tlm_status index_rows(tlm_hta_events *ev)
{
    for (size_t i = 0; i < ev->n_trace_events; i++)
        ev->row_of_index[i] = -1;
    for (size_t r = ev->n; r-- > 0;)
        ev->row_of_index[ev->ev[r].index] = (int32_t)r;
    return TLM_OK;
}

tlm_status tlm_hta_events_build(const tlm_trace *trace, int64_t rank,
                                tlm_hta_time time, tlm_hta_events **out,
                                tlm_error *err)
{
    *out = NULL;
    size_t n = 0, nstr = 0;
    uint8_t *kcache = NULL;
    tlm_hta_events *ev = NULL;
    const tlm_event *e = tlm_trace_events(trace, &n);
    if (!e && n == 0 && tlm_trace_stats(trace)->n_events > 0)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "HTA tables need the trace's events kept");
    if (n > INT32_MAX)
        return tlm_error_set(err, TLM_ELIMIT, tlm_trace_path(trace), -1,
                             "HTA tables: more than 2^31 events");
    ev = calloc(1, sizeof *ev);
    if (!ev)
        goto oom;
    ev->trace = trace;
    ev->rank = rank;
    ev->time = time;
    ev->n_trace_events = n;
    ev->min_ts = INT64_MAX;
    ev->rounded = trace_rounds(e, n) && time == TLM_HTA_TIME_US;
    nstr = tlm_trace_str_count(trace);
    kcache = malloc(nstr ? nstr : 1);
    if (!kcache)
        goto oom;
    memset(kcache, 0xff, nstr ? nstr : 1);
    ev->ev = malloc((n ? n : 1) * sizeof *ev->ev);
    ev->row_of_index = malloc((n ? n : 1) * sizeof(int32_t));
    if (!ev->ev || !ev->row_of_index)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        if (!kept(trace, &e[i]))
            continue;
        if (!(e[i].flags & TLM_EV_HAS_TS)) {
            ev->n_no_ts++;
            continue;
        }
        tlm_hta_ev *r = &ev->ev[ev->n];
        if (fill_row(ev, &e[i], i, ev->rounded, r) != TLM_OK)
            goto oom;
        r->ktype = TLM_HTA_K_OTHER;
        if (r->stream != -1) /* kernel type once per name */
            r->ktype = kind_of(trace, kcache, r->name);
        if (r->dur < 0) {
            ev->n_neg_dur++;
            ev->n_neg_dur_gpu += r->stream != -1;
        }
        if (r->ts < ev->min_ts)
            ev->min_ts = r->ts;
        ev->n++;
    }
    index_rows(ev);
    if (tlm_hta_link(ev) != TLM_OK)
        goto oom;
    ev->n_before_filter = ev->n;
    free(kcache);
    *out = ev;
    return TLM_OK;
oom:
    free(kcache);
    tlm_hta_events_free(ev);
    return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                         "out of memory building the HTA event table");
}

void tlm_hta_events_free(tlm_hta_events *ev)
{
    if (!ev)
        return;
    free(ev->ev);
    free(ev->row_of_index);
    free(ev->step_names);
    free(ev);
}

const char *tlm_hta_events_step_name(const tlm_hta_events *ev, size_t i,
                                     size_t *len)
{
    if (i >= ev->n_step_names) {
        if (len)
            *len = 0;
        return NULL;
    }
    return tlm_trace_str(ev->trace, ev->step_names[i], len);
}

size_t tlm_hta_count_distinct(const char *const *names, const size_t *lens,
                              size_t n)
{
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        size_t li = lens ? lens[i] : strlen(names[i]);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            size_t lj = lens ? lens[j] : strlen(names[j]);
            seen = li == lj && memcmp(names[i], names[j], li) == 0;
        }
        distinct += !seen;
    }
    return distinct;
}

void tlm_hta_events_shift(tlm_hta_events *ev, int64_t origin)
{
    ev->origin = origin;
    for (size_t i = 0; i < ev->n; i++)
        ev->ev[i].ts -= origin;
}

const tlm_hta_ev *tlm_hta_events_find(const tlm_hta_events *ev,
                                      int64_t index)
{
    if (index < 0 || (uint64_t)index >= ev->n_trace_events)
        return NULL;
    int32_t r = ev->row_of_index[index];
    return r < 0 ? NULL : &ev->ev[r];
}

tlm_status tlm_hta_reindex(tlm_hta_events *ev)
{
    return index_rows(ev);
}
