/*
 * event.c - predicates of one event (public twins of trace_event.h), the
 * exact microseconds of large nanosecond counts, and the process's table
 * of wide durations and of (pid, tid) pairs (tlm_event's 32-bit fields).
 */
#include "trace_event.h"
#include "trace_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The tables live while a trace does (tlm_event_tables_ref / _unref):
 * emptied when the last trace is freed, the generation counted up so
 * that the threads' caches forget their entries. */
static atomic_uint tbl_gen;
static size_t tbl_users; /* under trk_mu */

/* Wide durations: chunks that never move (readers index them without the
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

/* Doubles an open-addressing hash of n entries (index + 1 per slot; the
 * lock held), slot(i, cap) placing entry i; 0 on success.  Both tables
 * of this file use it. */
static int hash_double(uint32_t **hash, size_t *hcap, uint32_t n,
                       size_t (*slot)(uint32_t i, size_t cap))
{
    size_t nc = *hcap ? *hcap * 2 : 64;
    uint32_t *h = calloc(nc, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        size_t s = slot(i, nc);
        while (h[s])
            s = (s + 1) & (nc - 1);
        h[s] = i + 1;
    }
    free(*hash);
    *hash = h;
    *hcap = nc;
    return 0;
}

/* Slot of wide entry i. */
static size_t wide_islot(uint32_t i, size_t cap)
{
    return wide_slot(tlm_event_wide((int32_t)i), cap);
}

/* Doubles the hash (the lock held); 0 on success. */
static int wide_rehash(void)
{
    return hash_double(&wide_hash, &wide_hcap, wide_n, wide_islot);
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

/* The index of wide value v (the lock taken); -1: no memory. */
static int64_t wide_index(int64_t v)
{
    static _Thread_local int64_t last_v;
    static _Thread_local int64_t last_i = -1;
    static _Thread_local unsigned last_gen;
    unsigned gen = atomic_load(&tbl_gen);
    if (last_i >= 0 && last_v == v && last_gen == gen)
        return last_i; /* a trace repeats its long spans */
    pthread_mutex_lock(&wide_mu);
    int64_t i = wide_index_locked(v);
    pthread_mutex_unlock(&wide_mu);
    if (i >= 0) {
        last_v = v;
        last_i = i;
        last_gen = gen;
    }
    return i;
}

/* Sets ev's duration (tlm_trace.h). */
tlm_status tlm_ev_set_dur(tlm_event *ev, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) {
        ev->dur_ = (int32_t)v;
        ev->tflags = (uint8_t)(ev->tflags & ~TLM_EVT_DUR_WIDE) & 0x7f;
        return TLM_OK;
    }
    int64_t i = wide_index(v);
    if (i < 0)
        return TLM_ENOMEM;
    ev->dur_ = (int32_t)i;
    ev->tflags = (uint8_t)(ev->tflags | TLM_EVT_DUR_WIDE) & 0x7f;
    return TLM_OK;
}

/* Tracks: (pid, tid) pairs in chunks that never move, index 0 = (0, 0),
 * a hash of the pairs to their index, and per thread a small cache of
 * the pairs last looked up (a trace has a few dozen). */
enum { TRK_CHUNK = 4096, TRK_CHUNKS = 16384, TRK_CACHE = 256 };
static int64_t (*trk_chunk[TRK_CHUNKS])[2];
static uint32_t trk_n;
static uint32_t *trk_hash; /* index + 1; 0 = empty */
static size_t trk_hcap;    /* power of two */
static pthread_mutex_t trk_mu = PTHREAD_MUTEX_INITIALIZER;

/* The (pid, tid) pair of track (tlm_trace.h). */
const int64_t *tlm_event_track(uint32_t track)
{
    return trk_chunk[track / TRK_CHUNK][track % TRK_CHUNK];
}

/* Hash of a pair. */
static uint64_t trk_h(int64_t pid, int64_t tid)
{
    uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)tid + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

/* Slot of pair i. */
static size_t trk_islot(uint32_t i, size_t cap)
{
    const int64_t *p = tlm_event_track(i);
    return (size_t)(trk_h(p[0], p[1]) >> 32) & (cap - 1);
}

/* Doubles the pair hash (the lock held); 0 on success. */
static int trk_rehash(void)
{
    return hash_double(&trk_hash, &trk_hcap, trk_n, trk_islot);
}

/* Appends a pair (the lock held); its index, or -1. */
static int64_t trk_append(int64_t pid, int64_t tid)
{
    uint32_t i = trk_n;
    if (i / TRK_CHUNK >= TRK_CHUNKS)
        return -1;
    if (!trk_chunk[i / TRK_CHUNK]) {
        trk_chunk[i / TRK_CHUNK] = malloc(TRK_CHUNK * sizeof(int64_t[2]));
        if (!trk_chunk[i / TRK_CHUNK])
            return -1;
    }
    trk_chunk[i / TRK_CHUNK][i % TRK_CHUNK][0] = pid;
    trk_chunk[i / TRK_CHUNK][i % TRK_CHUNK][1] = tid;
    trk_n = i + 1;
    return i;
}

/* The index of the pair (pid, tid), added when new (the lock held); -1:
 * no memory, or 64 Mi distinct pairs kept. */
static int64_t trk_index_locked(int64_t pid, int64_t tid)
{
    if (trk_n == 0 && trk_append(0, 0) != 0)
        return -1;
    if ((size_t)trk_n * 2 >= trk_hcap && trk_rehash() != 0)
        return -1;
    uint64_t h = trk_h(pid, tid);
    size_t s = (size_t)(h >> 32) & (trk_hcap - 1);
    while (trk_hash[s]) {
        const int64_t *p = tlm_event_track(trk_hash[s] - 1);
        if (p[0] == pid && p[1] == tid)
            return trk_hash[s] - 1;
        s = (s + 1) & (trk_hcap - 1);
    }
    int64_t i = trk_append(pid, tid);
    if (i >= 0)
        trk_hash[s] = (uint32_t)i + 1;
    return i;
}

/* The track of (pid, tid): the thread's cache, else the table. */
static int64_t trk_index(int64_t pid, int64_t tid)
{
    static _Thread_local struct {
        int64_t pid, tid;
        uint32_t idx1; /* index + 1; 0 = empty */
        unsigned gen;  /* tbl_gen when cached */
    } cache[TRK_CACHE];
    if (pid == 0 && tid == 0)
        return 0;
    unsigned gen = atomic_load(&tbl_gen);
    size_t c = (size_t)(trk_h(pid, tid) >> 56) & (TRK_CACHE - 1);
    if (cache[c].idx1 && cache[c].pid == pid && cache[c].tid == tid &&
        cache[c].gen == gen)
        return cache[c].idx1 - 1;
    pthread_mutex_lock(&trk_mu);
    int64_t i = trk_index_locked(pid, tid);
    pthread_mutex_unlock(&trk_mu);
    if (i >= 0) {
        cache[c].pid = pid;
        cache[c].tid = tid;
        cache[c].idx1 = (uint32_t)i + 1;
        cache[c].gen = gen;
    }
    return i;
}

/* One more trace using the tables (trace_internal.h). */
void tlm_event_tables_ref(void)
{
    pthread_mutex_lock(&trk_mu);
    tbl_users++;
    pthread_mutex_unlock(&trk_mu);
}

/* One trace fewer; the last one empties both tables (trace_internal.h). */
void tlm_event_tables_unref(void)
{
    pthread_mutex_lock(&trk_mu);
    if (tbl_users > 0 && --tbl_users == 0) {
        pthread_mutex_lock(&wide_mu);
        for (size_t k = 0; k < TRK_CHUNKS && trk_chunk[k]; k++) {
            free(trk_chunk[k]);
            trk_chunk[k] = NULL;
        }
        free(trk_hash);
        trk_hash = NULL;
        trk_hcap = 0;
        trk_n = 0;
        for (size_t k = 0; k < WIDE_CHUNKS && wide_chunk[k]; k++) {
            free(wide_chunk[k]);
            wide_chunk[k] = NULL;
        }
        free(wide_hash);
        wide_hash = NULL;
        wide_hcap = 0;
        wide_n = 0;
        atomic_fetch_add(&tbl_gen, 1);
        pthread_mutex_unlock(&wide_mu);
    }
    pthread_mutex_unlock(&trk_mu);
}

/* Sets ev's pid (tlm_trace.h). */
tlm_status tlm_ev_set_pid(tlm_event *ev, int64_t v)
{
    int64_t i = trk_index(v, tlm_ev_tid(ev));
    if (i < 0)
        return TLM_ENOMEM;
    ev->track = (uint32_t)i;
    return TLM_OK;
}

/* Sets ev's pid and tid (trace_internal.h). */
tlm_status tlm_ev_set_track(tlm_event *ev, int64_t pid, int64_t tid)
{
    int64_t i = trk_index(pid, tid);
    if (i < 0)
        return TLM_ENOMEM;
    ev->track = (uint32_t)i;
    return TLM_OK;
}

/* Sets ev's tid (tlm_trace.h). */
tlm_status tlm_ev_set_tid(tlm_event *ev, int64_t v)
{
    int64_t i = trk_index(tlm_ev_pid(ev), v);
    if (i < 0)
        return TLM_ENOMEM;
    ev->track = (uint32_t)i;
    return TLM_OK;
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
