/*
 * mtrace_part.c - one trace's share of the merged trace (tlm_mtrace.h):
 * the events the filter keeps, written as part records to a local
 * temporary file while the trace is in memory, and the anchors of its
 * collectives.
 *
 * A part record is a header {int64 ts, uint32 len, uint32 kind} and len
 * bytes of JSON text: for a timed event (kind 0) everything after
 * `{"ts":<ts>,`, for metadata (kind 1) everything after `{`.  The time is
 * kept apart because the clock offsets are only known after the
 * collective phase; tlm_mtrace_emit_part adds them while compressing.
 *
 * Threads: the merged trace has one process per rank (pid = rank), so the
 * trace's (pid, tid) pairs become dense thread ids, made unique across
 * ranks (rank x 1024 + k + 1: Perfetto ties a tid to one process), named
 * after the trace's own thread_name metadata when it has one, else
 * "thread T" / "GPU D stream S"; GPU streams sort after CPU threads.
 * Beyond 1,023 threads the rest share the last id.
 */
#include "tlmpi/tlm_mtrace.h"
#include "search.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define MAX_THREADS 1023
#define EV_BUF (8 * TLM_MTRACE_STR_MAX + 1024)

typedef struct thr {
    int64_t pid, tid;
    uint8_t strf;     /* TLM_EV_PID_STR | TLM_EV_TID_STR of the key */
    uint8_t used;     /* slot taken */
    uint8_t gpu;      /* an emitted GPU event is on it */
    uint8_t emitted;  /* an emitted event is on it */
    uint32_t dense;   /* 0-based */
    uint32_t name;    /* interned thread_name, 0 = none */
} thr;

typedef struct part {
    const tlm_trace *tr;
    int32_t rank;
    FILE *f;
    uint64_t bytes;
    thr *map;         /* open addressing, cap a power of two */
    size_t cap, n;
    uint32_t next;    /* next dense id */
    uint64_t *coll_ev;  /* (event_index << 0) sorted, with coll_rec */
    size_t *coll_rec;
    size_t n_coll;
    uint64_t *launch;   /* sorted link ids (collectives filter) */
    size_t n_launch;
    tlm_error *err;
} part;

/* ------------------------------------------------------------ threads */

static uint64_t thr_hash(int64_t pid, int64_t tid, uint8_t strf)
{
    int64_t k[3] = {pid, tid, strf};
    return tlm_hash64(k, sizeof k);
}

static tlm_status thr_grow(part *p)
{
    size_t ncap = p->cap ? p->cap * 2 : 64;
    thr *nm = calloc(ncap, sizeof *nm);
    if (!nm)
        return TLM_ENOMEM;
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->map[i].used)
            continue;
        size_t h = (size_t)thr_hash(p->map[i].pid, p->map[i].tid,
                                    p->map[i].strf) & (ncap - 1);
        while (nm[h].used)
            h = (h + 1) & (ncap - 1);
        nm[h] = p->map[i];
    }
    free(p->map);
    p->map = nm;
    p->cap = ncap;
    return TLM_OK;
}

/* The thread of ev (created when new), or NULL when out of memory. */
static thr *thr_of(part *p, const tlm_event *ev)
{
    uint8_t strf = ev->flags & (TLM_EV_PID_STR | TLM_EV_TID_STR);
    if ((p->n + 1) * 2 > p->cap && thr_grow(p) != TLM_OK)
        return NULL;
    size_t h = (size_t)thr_hash(tlm_ev_pid(ev), tlm_ev_tid(ev), strf) &
               (p->cap - 1);
    while (p->map[h].used) {
        thr *t = &p->map[h];
        if (t->pid == tlm_ev_pid(ev) && t->tid == tlm_ev_tid(ev) &&
            t->strf == strf)
            return t;
        h = (h + 1) & (p->cap - 1);
    }
    thr *t = &p->map[h];
    memset(t, 0, sizeof *t);
    t->pid = tlm_ev_pid(ev);
    t->tid = tlm_ev_tid(ev);
    t->strf = strf;
    t->used = 1;
    t->dense = p->next < MAX_THREADS ? p->next++ : MAX_THREADS;
    p->n++;
    return t;
}

static int64_t merged_tid(int32_t rank, uint32_t dense)
{
    return (int64_t)rank * 1024 + (int64_t)dense + 1;
}

/* ------------------------------------------------------------ records */

static tlm_status put(part *p, int64_t ts, uint32_t kind, const char *text,
                      size_t len)
{
    struct {
        int64_t ts;
        uint32_t len, kind;
    } h = {ts, (uint32_t)len, kind};
    if (fwrite(&h, sizeof h, 1, p->f) != 1 ||
        fwrite(text, 1, len, p->f) != len)
        return tlm_error_set(p->err, TLM_EIO, NULL, -1,
                             "writing the merged trace's part file: %s",
                             strerror(errno));
    p->bytes += sizeof h + len;
    return TLM_OK;
}

/* Appends printf-free pieces: a literal, an int64, a string. */
static int lit(char *b, size_t cap, size_t *o, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (*o + n >= cap)
        return -1;
    memcpy(b + *o, s, n);
    *o += n;
    return 0;
}

static int num(char *b, size_t cap, size_t *o, int64_t v)
{
    char t[24];
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t k = 0;
    do {
        t[k++] = (char)('0' + a % 10);
        a /= 10;
    } while (a);
    if (v < 0)
        t[k++] = '-';
    if (*o + k >= cap)
        return -1;
    for (size_t i = 0; i < k; i++)
        b[*o + i] = t[k - 1 - i];
    *o += k;
    return 0;
}

static int str_id(char *b, size_t cap, size_t *o, const tlm_trace *tr,
                  uint32_t id)
{
    size_t n = 0;
    const char *s = tlm_trace_str(tr, id, &n);
    return tlm_mtrace_json_str(b, cap, o, s ? s : "", s ? n : 0);
}

/* The record of the collective kernel at event index ei, or NULL. */
static const tlm_coll_record *coll_at(const part *p,
                                      const tlm_coll_record *recs,
                                      uint64_t ei)
{
    size_t lo = tlm_lower_bound_u64_at(p->coll_ev, p->n_coll,
                                       sizeof *p->coll_ev, 0, ei);
    return lo < p->n_coll && p->coll_ev[lo] == ei ? &recs[p->coll_rec[lo]]
                                                  : NULL;
}

static int is_launch(const part *p, uint64_t ei)
{
    size_t lo = tlm_lower_bound_u64_at(p->launch, p->n_launch,
                                       sizeof *p->launch, 0, ei);
    return lo < p->n_launch && p->launch[lo] == ei;
}

/* args of a collective kernel: its identity as the analysis sees it. */
static int coll_args(char *b, size_t cap, size_t *o,
                     const tlm_coll_record *r)
{
    size_t pn = strnlen(r->pg_name, sizeof r->pg_name);
    return lit(b, cap, o, ",\"args\":{\"coll\":\"") ||
           lit(b, cap, o, tlm_coll_type_name((tlm_coll_type)r->coll)) ||
           lit(b, cap, o, "\",\"pg\":") ||
           tlm_mtrace_json_str(b, cap, o, r->pg_name, pn) ||
           lit(b, cap, o, ",\"seq\":") ||
           num(b, cap, o,
               (r->flags & TLM_COLL_REC_TRACE_SEQ) ? r->trace_seq : r->seq) ||
           lit(b, cap, o, ",\"bytes\":") || num(b, cap, o, r->bytes) ||
           lit(b, cap, o, "}");
}

/* One complete event as a timed record. */
static tlm_status put_event(part *p, const tlm_event *ev, thr *t,
                            const tlm_coll_record *rec)
{
    char b[EV_BUF];
    size_t o = 0;
    int bad = lit(b, sizeof b, &o, "\"dur\":") ||
              tlm_mtrace_json_us(b, sizeof b, &o,
                                 tlm_ev_dur(ev) > 0 ? tlm_ev_dur(ev) : 0) ||
              lit(b, sizeof b, &o, ",\"ph\":\"X\",\"pid\":") ||
              num(b, sizeof b, &o, p->rank) ||
              lit(b, sizeof b, &o, ",\"tid\":") ||
              num(b, sizeof b, &o, merged_tid(p->rank, t->dense)) ||
              lit(b, sizeof b, &o, ",\"name\":") ||
              str_id(b, sizeof b, &o, p->tr, ev->name) ||
              lit(b, sizeof b, &o, ",\"cat\":");
    if (!bad) {
        const char *cn = tlm_cat_name((tlm_cat)ev->cat);
        bad = cn ? tlm_mtrace_json_str(b, sizeof b, &o, cn, strlen(cn))
                 : str_id(b, sizeof b, &o, p->tr, ev->cat_str);
    }
    if (!bad && rec)
        bad = coll_args(b, sizeof b, &o, rec);
    if (bad || lit(b, sizeof b, &o, "}"))
        return tlm_error_set(p->err, TLM_ELIMIT, NULL, -1,
                             "merged trace: event text too long");
    return put(p, ev->ts, 0, b, o);
}

/* Does the filter keep ev (rec: its collective record, if any)? */
static int keep(const part *p, tlm_mtrace_filter filter, const tlm_event *ev,
                const tlm_coll_record *rec, size_t i)
{
    if (ev->ph != 'X' || !(ev->flags & TLM_EV_HAS_TS))
        return 0;
    if (filter == TLM_MTRACE_ALL)
        return 1;
    if (filter == TLM_MTRACE_KERNELS)
        return tlm_event_is_gpu(ev);
    return rec != NULL || is_launch(p, (uint64_t)i);
}

/* A trace's "thread_name" metadata: remembered for its thread. */
static tlm_status note_thread_name(part *p, const tlm_event *ev)
{
    static const char key[] = "thread_name";
    size_t n = 0;
    const char *nm = tlm_trace_str(p->tr, ev->name, &n);
    if (!nm || n != sizeof key - 1 || memcmp(nm, key, n) != 0)
        return TLM_OK;
    tlm_argv v;
    if (tlm_event_arg(p->tr, ev, TLM_ARG_NAME, &v) != TLM_ARGV_STR)
        return TLM_OK;
    thr *t = thr_of(p, ev);
    if (!t)
        return TLM_ENOMEM;
    t->name = v.str;
    return TLM_OK;
}

/* The JSON string naming thread t: the trace's thread_name, else
 * "thread T" / "GPU D stream S", or "other threads" for the shared id. */
static int thread_label(const part *p, const thr *t, char *b, size_t cap,
                        size_t *o)
{
    if (t->dense == MAX_THREADS)
        return lit(b, cap, o, "\"other threads\"");
    if (t->name)
        return str_id(b, cap, o, p->tr, t->name);
    char lab[2 * TLM_MTRACE_STR_MAX + 64];
    size_t lo = 0;
    int bad = lit(lab, sizeof lab, &lo, t->gpu ? "GPU " : "thread ");
    if (t->gpu && !bad) {
        bad = (t->strf & TLM_EV_PID_STR)
                  ? lit(lab, sizeof lab, &lo,
                        tlm_trace_str(p->tr, (uint32_t)t->pid, NULL))
                  : num(lab, sizeof lab, &lo, t->pid);
        bad = bad || lit(lab, sizeof lab, &lo, " stream ");
    }
    if (!bad)
        bad = (t->strf & TLM_EV_TID_STR)
                  ? lit(lab, sizeof lab, &lo,
                        tlm_trace_str(p->tr, (uint32_t)t->tid, NULL))
                  : num(lab, sizeof lab, &lo, t->tid);
    return bad || tlm_mtrace_json_str(b, cap, o, lab, lo);
}

/* The two metadata records of thread t. */
static tlm_status put_thread(part *p, const thr *t)
{
    char b[EV_BUF];
    size_t o = 0;
    int64_t tid = merged_tid(p->rank, t->dense);
    int bad = lit(b, sizeof b, &o, "\"ph\":\"M\",\"pid\":") ||
              num(b, sizeof b, &o, p->rank) ||
              lit(b, sizeof b, &o, ",\"tid\":") ||
              num(b, sizeof b, &o, tid) ||
              lit(b, sizeof b, &o,
                  ",\"name\":\"thread_name\",\"args\":{\"name\":") ||
              thread_label(p, t, b, sizeof b, &o) ||
              lit(b, sizeof b, &o, "}}");
    tlm_status st = bad ? TLM_ELIMIT : put(p, 0, 1, b, o);
    if (st != TLM_OK)
        return st;
    o = 0;
    bad = lit(b, sizeof b, &o, "\"ph\":\"M\",\"pid\":") ||
          num(b, sizeof b, &o, p->rank) ||
          lit(b, sizeof b, &o, ",\"tid\":") || num(b, sizeof b, &o, tid) ||
          lit(b, sizeof b, &o, ",\"name\":\"thread_sort_index\","
                               "\"args\":{\"sort_index\":") ||
          num(b, sizeof b, &o, (t->gpu ? 100000 : 0) + t->dense) ||
          lit(b, sizeof b, &o, "}}");
    return bad ? TLM_ELIMIT : put(p, 0, 1, b, o);
}

/* thread_name and thread_sort_index of every thread an event used. */
static tlm_status put_threads(part *p)
{
    int other_done = 0;
    for (size_t i = 0; i < p->cap; i++) {
        const thr *t = &p->map[i];
        if (!t->used || !t->emitted)
            continue;
        if (t->dense == MAX_THREADS) { /* the shared id: named once */
            if (other_done)
                continue;
            other_done = 1;
        }
        tlm_status st = put_thread(p, t);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* ------------------------------------------------------------ indexes */

typedef struct evrec {
    uint64_t ei;
    size_t r;
} evrec;

static int cmp_evrec(const void *a, const void *b)
{
    const evrec *x = a, *y = b;
    return (x->ei > y->ei) - (x->ei < y->ei);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorted event indexes of the collective kernels and their launches. */
static tlm_status index_records(part *p, const tlm_coll_record *recs,
                                size_t n)
{
    evrec *er = malloc((n ? n : 1) * sizeof *er);
    p->coll_ev = malloc((n ? n : 1) * sizeof *p->coll_ev);
    p->coll_rec = malloc((n ? n : 1) * sizeof *p->coll_rec);
    p->launch = malloc((n ? n : 1) * sizeof *p->launch);
    if (!er || !p->coll_ev || !p->coll_rec || !p->launch) {
        free(er);
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        er[i].ei = recs[i].event_index;
        er[i].r = i;
        if (recs[i].link_id >= 0)
            p->launch[p->n_launch++] = (uint64_t)recs[i].link_id;
    }
    qsort(er, n, sizeof *er, cmp_evrec);
    qsort(p->launch, p->n_launch, sizeof *p->launch, cmp_u64);
    for (size_t i = 0; i < n; i++) {
        p->coll_ev[i] = er[i].ei;
        p->coll_rec[i] = er[i].r;
    }
    p->n_coll = n;
    free(er);
    return TLM_OK;
}

/* One anchor per collective: its first kernel's middle and thread. */
static tlm_status add_anchors(part *p, const tlm_coll_record *recs,
                              size_t n, const tlm_event *evs, size_t n_ev,
                              tlm_mtrace_anchors *an)
{
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_record *r = &recs[i];
        if (r->part != 0 || r->event_index >= n_ev)
            continue;
        const tlm_event *ev = &evs[r->event_index];
        thr *t = thr_of(p, ev);
        if (!t)
            return TLM_ENOMEM;
        if (tlm_grow((void **)&an->v, &an->cap, an->n + 1, sizeof *an->v,
                     256))
            return TLM_ENOMEM;
        tlm_mtrace_anchor *a = &an->v[an->n++];
        memset(a, 0, sizeof *a);
        a->match_key = r->match_key;
        a->seq = r->seq;
        a->ts_ns = ev->ts + (tlm_ev_dur(ev) > 0 ? tlm_ev_dur(ev) / 2 : 0);
        a->event_index = r->event_index;
        a->flow_id = tlm_mtrace_flow_id(r->match_key, r->seq);
        a->trace_rank = p->rank;
        a->tid = (uint32_t)merged_tid(p->rank, t->dense);
    }
    return TLM_OK;
}

tlm_status tlm_mtrace_part_write(const tlm_trace *tr, int32_t rank,
                                 tlm_mtrace_filter filter,
                                 const tlm_coll_record *recs, size_t n_recs,
                                 FILE *f, tlm_mtrace_anchors *an,
                                 uint64_t *bytes, tlm_error *err)
{
    part p;
    memset(&p, 0, sizeof p);
    p.tr = tr;
    p.rank = rank;
    p.f = f;
    p.err = err;
    size_t n_ev = 0;
    const tlm_event *evs = tlm_trace_events(tr, &n_ev);
    tlm_status st = index_records(&p, recs, n_recs);
    for (size_t i = 0; st == TLM_OK && i < n_ev; i++) {
        const tlm_event *ev = &evs[i];
        if (ev->ph == 'M') {
            st = note_thread_name(&p, ev);
            continue;
        }
        const tlm_coll_record *rec = coll_at(&p, recs, (uint64_t)i);
        if (!keep(&p, filter, ev, rec, i))
            continue;
        thr *t = thr_of(&p, ev);
        if (!t) {
            st = TLM_ENOMEM;
            break;
        }
        t->emitted = 1;
        t->gpu |= (uint8_t)(tlm_event_is_gpu(ev) != 0);
        st = put_event(&p, ev, t, rec);
    }
    if (st == TLM_OK)
        st = add_anchors(&p, recs, n_recs, evs, n_ev, an);
    if (st == TLM_OK)
        st = put_threads(&p);
    if (st == TLM_ENOMEM)
        tlm_error_set(err, st, NULL, -1,
                      "out of memory writing the merged trace's part");
    else if (st == TLM_ELIMIT && err && err->code == TLM_OK)
        tlm_error_set(err, st, NULL, -1, "merged trace: text too long");
    if (bytes)
        *bytes = p.bytes;
    free(p.map);
    free(p.coll_ev);
    free(p.coll_rec);
    free(p.launch);
    return st;
}
