/*
 * event.c - predicates of one event (public twins of trace_event.h), the
 * exact microseconds of large nanosecond counts, and the process's table
 * of wide pid / tid values (those that do not fit tlm_event's 32 bits).
 */
#include "trace_event.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

/* Wide values: chunks that never move (readers index them without the
 * lock, having got the index through the event), and a hash of the
 * values to their index (so a value is kept once per process). */
enum { WIDE_CHUNK = 4096, WIDE_CHUNKS = 16384 };
static int64_t *wide_chunk[WIDE_CHUNKS];
static uint32_t wide_n;
static uint32_t *wide_hash; /* index + 1; 0 = empty */
static size_t wide_hcap;    /* power of two */
static pthread_mutex_t wide_mu = PTHREAD_MUTEX_INITIALIZER;

/* The wide value at index (tlm_trace.h). */
int64_t tlm_event_wide(int32_t index)
{
    uint32_t i = (uint32_t)index;
    return wide_chunk[i / WIDE_CHUNK][i % WIDE_CHUNK];
}

/* Hash slot of v in a table of capacity cap. */
static size_t wide_slot(int64_t v, size_t cap)
{
    uint64_t h = (uint64_t)v * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

/* Doubles the hash (the lock held); 0 on success. */
static int wide_rehash(void)
{
    size_t nc = wide_hcap ? wide_hcap * 2 : 64;
    uint32_t *h = calloc(nc, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t i = 0; i < wide_n; i++) {
        size_t s = wide_slot(tlm_event_wide((int32_t)i), nc);
        while (h[s])
            s = (s + 1) & (nc - 1);
        h[s] = i + 1;
    }
    free(wide_hash);
    wide_hash = h;
    wide_hcap = nc;
    return 0;
}

/* The index of wide value v, added when new (the lock held); -1: no
 * memory, or 64 Mi distinct values kept. */
static int64_t wide_index_locked(int64_t v)
{
    if ((size_t)wide_n * 2 >= wide_hcap && wide_rehash() != 0)
        return -1;
    size_t s = wide_slot(v, wide_hcap);
    while (wide_hash[s]) {
        if (tlm_event_wide((int32_t)(wide_hash[s] - 1)) == v)
            return wide_hash[s] - 1;
        s = (s + 1) & (wide_hcap - 1);
    }
    uint32_t i = wide_n;
    if (i / WIDE_CHUNK >= WIDE_CHUNKS)
        return -1;
    if (!wide_chunk[i / WIDE_CHUNK]) {
        wide_chunk[i / WIDE_CHUNK] = malloc(WIDE_CHUNK * sizeof(int64_t));
        if (!wide_chunk[i / WIDE_CHUNK])
            return -1;
    }
    wide_chunk[i / WIDE_CHUNK][i % WIDE_CHUNK] = v;
    wide_n = i + 1;
    wide_hash[s] = i + 1;
    return i;
}

/* Stores v in *slot: directly when it fits, else as a wide index (the
 * last value per thread remembered, as a trace repeats its few tids). */
static tlm_status set_id(int32_t *slot, uint8_t *tflags, uint8_t bit,
                         int64_t v)
{
    static _Thread_local int64_t last_v;
    static _Thread_local int64_t last_i = -1;
    if (v >= INT32_MIN && v <= INT32_MAX) {
        *slot = (int32_t)v;
        *tflags = (uint8_t)(*tflags & ~bit);
        return TLM_OK;
    }
    int64_t i = last_i >= 0 && last_v == v ? last_i : -1;
    if (i < 0) {
        pthread_mutex_lock(&wide_mu);
        i = wide_index_locked(v);
        pthread_mutex_unlock(&wide_mu);
        if (i < 0)
            return TLM_ENOMEM;
        last_v = v;
        last_i = i;
    }
    *slot = (int32_t)i;
    *tflags = (uint8_t)(*tflags | bit);
    return TLM_OK;
}

/* Sets ev's pid (tlm_trace.h). */
tlm_status tlm_ev_set_pid(tlm_event *ev, int64_t v)
{
    uint8_t tf = ev->tflags;
    tlm_status st = set_id(&ev->pid_, &tf, TLM_EVT_PID_WIDE, v);
    ev->tflags = tf & 0x7f;
    return st;
}

/* Sets ev's tid (tlm_trace.h). */
tlm_status tlm_ev_set_tid(tlm_event *ev, int64_t v)
{
    uint8_t tf = ev->tflags;
    tlm_status st = set_id(&ev->tid_, &tf, TLM_EVT_TID_WIDE, v);
    ev->tflags = tf & 0x7f;
    return st;
}

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
