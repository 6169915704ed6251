/*
 * tree.c - Trace2Tree ([perfreport] §2): host call stacks per thread,
 * launch -> GPU event links, fwd/bwd links, GPU-event ranges per subtree.
 *
 * Layout.  One 24-byte node record per UID (event index), tlm_tnode in
 * tree_internal.h: parent, first child, next sibling, GPU slice, flags
 * and category together, so a walk touches one cache line per node and
 * not the 64-byte events.  Children are kept as first_child /
 * next_sibling lists in insertion order (host children in timestamp
 * order, then GPU children in launch order), as TraceLens's children
 * lists are.  After linking, one stackless pre-order walk numbers the
 * linked GPU events so that the GPU events below any node form one
 * contiguous slice of gpu_order[] (TraceLens copies a gpu_events list into
 * every ancestor instead; same set, O(n) memory here).
 *
 * Speed.  One classification pass over the events collects compact lists
 * (host events, launches and GPU events with their link ids, flows,
 * sequence numbers); later steps walk those lists, never the whole event
 * array.  Host events sort by an in-place radix sort of (thread, ts); flows and
 * link ids join through direct tables when the ids are dense (they are
 * in Kineto traces), hash maps otherwise.
 *
 * Time.  Stacks compare double microseconds (ts, ts + dur), as TraceLens
 * does, so that the bleed and touching rules decide exactly as it does;
 * sorting uses the exact int64 nanoseconds (same order, no ties lost).
 *
 * Printing (the tree and nn.Module views) is in tree_print.c.
 */
#include "tlmpi/tlm_tree.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "i3map.h"
#include "mem_internal.h"
#include "sbuf.h"
#include "sortutil.h"
#include "trace_event.h"
#include "trace_internal.h"
#include "tree_internal.h"
#include "search.h"

/* MARK: - tree object ---------------------------------------------------- */

void tlm_tree_opts_init(tlm_tree_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->corr_fallback = 1;
    opts->threads = 1;
}

static int has_time(const tlm_event *e)
{
    return (e->flags & TLM_EV_HAS_TS) && (e->flags & TLM_EV_HAS_DUR) &&
           tlm_ev_dur(e) >= 0;
}

static int name_has_launch(const char *s)
{
    for (; *s; s++) {
        if ((s[0] | 32) == 'l' && (s[1] | 32) == 'a' && (s[2] | 32) == 'u' &&
            (s[3] | 32) == 'n' && (s[4] | 32) == 'c' && (s[5] | 32) == 'h')
            return 1;
        if (!s[1] || !s[2] || !s[3] || !s[4] || !s[5])
            return 0;
    }
    return 0;
}

/* Children are prepended while building (no last-child array: 4 bytes per
 * event saved) and every list is reversed once at the end, which restores
 * insertion order. */
static void add_child(tlm_tree *t, int32_t p, int32_t c)
{
    t->nd[c].parent = p;
    t->nd[c].next_sibling = t->nd[p].first_child;
    t->nd[p].first_child = c;
}

static void reverse_children(tlm_tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        int32_t prev = -1, c = t->nd[i].first_child;
        while (c >= 0) {
            int32_t nx = t->nd[c].next_sibling;
            t->nd[c].next_sibling = prev;
            prev = c;
            c = nx;
        }
        t->nd[i].first_child = prev;
    }
}

static void uidmap_free(struct tlm_uidmap *m);

void tlm_tree_free(tlm_tree *t)
{
    if (!t)
        return;
    free(t->nd);
    uidmap_free(t->fwd);
    uidmap_free(t->bwd);
    free(t->gpu_order);
    free(t->gbits);
    free(t->gown);
    free(t->grank);
    free(t->grng);
    free(t->roots);
    free(t->scratch);
    free(t);
}

/* MARK: - classification ------------------------------------------------- */

/* The array v (n used, *cap allocated, elements of size bytes) with room
 * for one more: v itself, or v grown by doubling from 4096 (*cap updated),
 * its page tables populated ahead of use (w); NULL when out of memory (v
 * is still valid then). */
static void *grow1(void *v, size_t n, size_t *cap, size_t size, tlm_warm *w)
{
    if (n >= *cap && tlm_grow(&v, cap, n + 1, size, 4096))
        return NULL;
    tlm_warm_ahead(w, v, (n + 1) * size, *cap * size);
    return v;
}

/* A launch (runtime) or GPU event with its two possible link ids. */
typedef struct linkev {
    int64_t corr;  /* "correlation" when an integer */
    int64_t ext;   /* "External id" when an integer */
    int32_t uid;
    uint8_t has;   /* LK_* */
} linkev;

enum {
    LK_CORR_INT = 1, /* corr valid */
    LK_EXT_INT = 2,  /* ext valid */
    LK_CORR_ANY = 4, /* "correlation" present, any type */
    LK_GRAPH = 8     /* a graph launch (runtime events) */
};

typedef struct lkvec {
    linkev *v;
    size_t n, cap;
    tlm_warm w;
} lkvec;

static linkev *lkvec_push(lkvec *a)
{
    linkev *p = grow1(a->v, a->n, &a->cap, sizeof *p, &a->w);
    if (!p)
        return NULL;
    a->v = p;
    return &a->v[a->n++];
}

/* A host event as the stacks sort it: (thread, ts), then UID. */
typedef struct hkey {
    int64_t ts;
    int32_t th;
    int32_t uid;
} hkey;

typedef struct hkvec {
    hkey *v;
    size_t n, cap;
    tlm_warm w;
} hkvec;

/* A flow event (ac2g "s" or "f") with an id. */
typedef struct flowrec {
    int64_t id;
    int32_t uid;
    int32_t ph; /* 's' or 'f' */
} flowrec;

typedef struct flvec {
    flowrec *v;
    size_t n, cap;
    tlm_warm w;
} flvec;

/* Everything the build steps need from one pass over the events, copied
 * while each event is at hand (later steps read these compact lists, not
 * the events). */
typedef struct classes {
    hkvec host;    /* host events with ts and dur, UID order */
    lkvec gpu;     /* GPU events */
    lkvec rt;      /* runtime events */
    flvec flows;   /* ac2g s/f events with an id */
    tlm_pair *seq; /* cpu_ops with an integer "Sequence number": key the
                      number, val UID << 32 | name id */
    size_t nseq, capseq;
    tlm_warm wseq;
    int key;       /* TLM_ARG_CORRELATION or TLM_ARG_EXTERNAL_ID */
} classes;

static void classes_free(classes *c)
{
    free(c->host.v);
    free(c->gpu.v);
    free(c->rt.v);
    free(c->flows.v);
    free(c->seq);
}

static int host_cat(const tlm_event *e, const tlm_tree_opts *o)
{
    return e->cat == TLM_CAT_CPU_OP || e->cat == TLM_CAT_CUDA_RUNTIME ||
           e->cat == TLM_CAT_CUDA_DRIVER ||
           (o->python_functions && e->cat == TLM_CAT_PYTHON_FUNCTION);
}

static int is_graph_launch(const char *name)
{
    return !strcmp(name, "cudaGraphLaunch") ||
           !strcmp(name, "hipGraphLaunch");
}

/* The link ids of a launch or GPU event: one scan of its arguments. */
static void link_args(const tlm_trace *tr, const tlm_event *e, linkev *l)
{
    uint64_t it = 0;
    tlm_arg k;
    tlm_argv v;
    l->has = 0;
    l->corr = l->ext = 0;
    if (!e->args)
        return;
    /* the last occurrence of a key wins, as in tlm_event_arg */
    while (tlm_event_arg_next(tr, e, &it, &k, &v)) {
        if (k == TLM_ARG_CORRELATION) {
            l->has = (uint8_t)((l->has & ~LK_CORR_INT) | LK_CORR_ANY);
            if (v.type == TLM_ARGV_INT) {
                l->has |= LK_CORR_INT;
                l->corr = v.i;
            }
        } else if (k == TLM_ARG_EXTERNAL_ID) {
            l->has = (uint8_t)(l->has & ~LK_EXT_INT);
            if (v.type == TLM_ARGV_INT) {
                l->has |= LK_EXT_INT;
                l->ext = v.i;
            }
        }
    }
}

/* What the classification remembers from one event to the next. */
typedef struct clstate {
    /* per name id: bit 0 known, bit 1 graph launch, bit 2 known module,
     * bit 3 nn.Module */
    uint8_t *nc;
    size_t ncap;
    tlm_i3map threads; /* (pid, tid, string flags) -> thread index */
    int32_t nthreads, last_th;
    int64_t last_pid, last_tid, last_fl;
    int key_set;
} clstate;

static void cl_free(clstate *s)
{
    free(s->nc);
    tlm_i3map_free(&s->threads);
    memset(s, 0, sizeof *s);
}

/* Room in the name cache for ids below nnames (new entries zero). */
static tlm_status cl_names(clstate *s, size_t nnames)
{
    size_t old = s->ncap;
    if (tlm_grow((void **)&s->nc, &s->ncap, nnames, 1, 256))
        return TLM_ENOMEM;
    memset(s->nc + old, 0, s->ncap - old);
    return TLM_OK;
}

static tlm_status cl_init(clstate *s, classes *c, size_t nnames)
{
    memset(s, 0, sizeof *s);
    s->last_th = -1;
    c->key = TLM_ARG_CORRELATION;
    tlm_status st = cl_names(s, nnames ? nnames : 1);
    if (st == TLM_OK)
        st = tlm_i3map_init(&s->threads, 64);
    return st;
}

/* Classifies event i (e): node flags (GPU, runtime, graph launch,
 * nn.Module, host), and compact lists for the later steps (host events
 * with their per-thread index, launches, GPU events, flows), so that no
 * later step walks the whole event array again.  Reads e, its arguments
 * and its name only: it runs over the kept events (tlm_tree_build) or on
 * each event as it is read (tlm_tree_stream_event), with the same result.
 * Name ids are below s->ncap. */
static tlm_status classify_one(tlm_tree *t, const tlm_trace *tr,
                               const tlm_tree_opts *o, classes *c,
                               clstate *s, size_t i, const tlm_event *e)
{
    uint32_t id = e->name;
    uint8_t *nc = s->nc;
    size_t nnames = s->ncap;
    tlm_tnode *d = &t->nd[i];
    d->parent = d->first_child = d->next_sibling = -1;
    d->flags = 0;
    d->cat = (uint8_t)(e->cat < 255 ? e->cat : 255);
    d->pad_ = 0;
    switch (e->cat) {
    case TLM_CAT_KERNEL:
    case TLM_CAT_GPU_MEMSET:
    case TLM_CAT_GPU_MEMCPY: {
        if (!has_time(e)) {
            /* no interval to place on the timeline: ignored */
            t->stats.n_no_time++;
            return TLM_OK;
        }
        d->flags |= TLM_NODE_GPU;
        linkev *l = lkvec_push(&c->gpu);
        if (!l)
            return TLM_ENOMEM;
        link_args(tr, e, l);
        l->uid = (int32_t)i;
        return TLM_OK;
    }
    case TLM_CAT_AC2G:
        if ((e->flags & TLM_EV_HAS_ID) && (e->ph == 's' || e->ph == 'f')) {
            flowrec *f = grow1(c->flows.v, c->flows.n, &c->flows.cap,
                               sizeof *f, &c->flows.w);
            if (!f)
                return TLM_ENOMEM;
            c->flows.v = f;
            f[c->flows.n].id = 0;
            (void)tlm_event_flow_id(tr, e, &f[c->flows.n].id);
            f[c->flows.n].uid = (int32_t)i;
            f[c->flows.n++].ph = e->ph;
        }
        return TLM_OK;
    case TLM_CAT_PYTHON_FUNCTION:
        if (id < nnames) {
            if (!(nc[id] & 4)) {
                const char *nm = tlm_trace_str_now(tr, id);
                nc[id] |= (uint8_t)(strncmp(nm, "nn.Module:", 10) ? 4 : 12);
            }
            if (nc[id] & 8)
                d->flags |= TLM_NODE_NN_MODULE;
        }
        break;
    case TLM_CAT_CPU_OP:
        if (e->args) {
            int64_t v;
            if (tlm_event_arg_int(tr, e, TLM_ARG_SEQUENCE_NUMBER, &v)) {
                tlm_pair *p = grow1(c->seq, c->nseq, &c->capseq, sizeof *p,
                                    &c->wseq);
                if (!p)
                    return TLM_ENOMEM;
                c->seq = p;
                c->seq[c->nseq].key = v;
                c->seq[c->nseq].val =
                    (int64_t)(((uint64_t)i << 32) | (uint64_t)id);
                c->nseq++;
            }
        }
        break;
    case TLM_CAT_CUDA_RUNTIME:
    case TLM_CAT_CUDA_DRIVER: {
        d->flags |= TLM_NODE_RUNTIME;
        t->stats.n_runtime++;
        if (id < nnames && !(nc[id] & 1))
            nc[id] |= (uint8_t)(is_graph_launch(tlm_trace_str_now(tr, id))
                                    ? 3
                                    : 1);
        if (id < nnames && (nc[id] & 2)) {
            d->flags |= TLM_NODE_GRAPH_LAUNCH;
            t->stats.n_graph_launches++;
        }
        linkev *l = lkvec_push(&c->rt);
        if (!l)
            return TLM_ENOMEM;
        link_args(tr, e, l);
        l->uid = (int32_t)i;
        if (d->flags & TLM_NODE_GRAPH_LAUNCH)
            l->has |= LK_GRAPH;
        if (!s->key_set && name_has_launch(tlm_trace_str_now(tr, id))) {
            s->key_set = 1;
            c->key = (l->has & LK_CORR_ANY) ? TLM_ARG_CORRELATION
                                            : TLM_ARG_EXTERNAL_ID;
        }
        break;
    }
    default:
        return TLM_OK;
    }
    /* host stacks */
    if (e->ph != 'X' || !host_cat(e, o))
        return TLM_OK;
    if (!has_time(e)) {
        t->stats.n_no_time++;
        return TLM_OK;
    }
    int64_t fl = e->flags & (TLM_EV_PID_STR | TLM_EV_TID_STR);
    int32_t th;
    if (s->nthreads && tlm_ev_pid(e) == s->last_pid &&
        tlm_ev_tid(e) == s->last_tid &&
        fl == s->last_fl) {
        th = s->last_th;
    } else {
        th = tlm_i3map_get(&s->threads, tlm_ev_pid(e), tlm_ev_tid(e), fl);
        if (th < 0) {
            th = s->nthreads++;
            tlm_status st = tlm_i3map_put(&s->threads, tlm_ev_pid(e),
                                          tlm_ev_tid(e), fl, th);
            if (st != TLM_OK)
                return st;
        }
        s->last_pid = tlm_ev_pid(e);
        s->last_tid = tlm_ev_tid(e);
        s->last_fl = fl;
        s->last_th = th;
    }
    d->flags |= TLM_NODE_HOST;
    hkey *h = grow1(c->host.v, c->host.n, &c->host.cap, sizeof *h,
                    &c->host.w);
    if (!h)
        return TLM_ENOMEM;
    c->host.v = h;
    h[c->host.n].ts = tlm_ts_key(e->ts);
    h[c->host.n].th = th;
    h[c->host.n++].uid = (int32_t)i;
    return TLM_OK;
}

static void classify_end(tlm_tree *t, const classes *c)
{
    t->stats.n_host = c->host.n;
    t->stats.n_gpu = c->gpu.n;
    t->stats.link_key = c->key;
}

/* The classification pass over the kept events. */
static tlm_status classify(tlm_tree *t, const tlm_tree_opts *o, classes *c)
{
    clstate s;
    tlm_status st = cl_init(&s, c, tlm_trace_str_count(t->trace));
    for (size_t i = 0; i < t->n && st == TLM_OK; i++)
        st = classify_one(t, t->trace, o, c, &s, i, &t->ev[i]);
    if (st == TLM_OK)
        classify_end(t, c);
    cl_free(&s);
    return st;
}

/* MARK: - host stacks ---------------------------------------------------- */

static int hkey_le(const hkey *a, const hkey *b)
{
    if (a->th != b->th)
        return a->th < b->th;
    if (a->ts != b->ts)
        return a->ts < b->ts;
    return a->uid <= b->uid;
}

static unsigned bit_width(uint64_t v)
{
    unsigned b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* The radix key of h: thread above the ts offset (tb bits). */
static inline uint64_t hkey_key(const hkey *h, unsigned tb, int64_t lo)
{
    return ((uint64_t)h->th << tb) | ((uint64_t)h->ts - (uint64_t)lo);
}

/* Insertion sort of a few records by (thread, ts, UID). */
static void isort_hkeys(hkey *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        hkey x = a[i];
        size_t j = i;
        while (j > 0 && !hkey_le(&a[j - 1], &x)) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* (thread, ts, UID) order for qsort: records of one key by UID. */
static int cmp_hkey(const void *x, const void *y)
{
    const hkey *a = x, *b = y;
    if (hkey_le(a, b))
        return hkey_le(b, a) ? 0 : -1;
    return 1;
}

/* In-place MSD radix sort (American flag sort) of a[0..n) by the key's
 * 8-bit digit at sh and below; records of one key end by UID.  No scratch
 * array: the host list is the largest array of the tree's build, and a
 * copy of it was the build's peak. */
static void msd_hkeys(hkey *a, size_t n, int sh, unsigned tb, int64_t lo)
{
    while (n > 32 && sh >= 0) {
        size_t cnt[256], beg[256], end[256];
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(hkey_key(&a[i], tb, lo) >> sh) & 255]++;
        size_t sum = 0, nz = 0;
        for (int d = 0; d < 256; d++) {
            nz += cnt[d] != 0;
            beg[d] = end[d] = sum;
            sum += cnt[d];
            end[d] = sum;
        }
        if (nz > 1) {
            size_t next[256];
            memcpy(next, beg, sizeof next);
            for (int d = 0; d < 256; d++) {
                while (next[d] < end[d]) {
                    hkey x = a[next[d]];
                    unsigned k = (unsigned)((hkey_key(&x, tb, lo) >> sh) & 255);
                    while (k != (unsigned)d) { /* place x, take the one there */
                        hkey y = a[next[k]];
                        a[next[k]++] = x;
                        x = y;
                        k = (unsigned)((hkey_key(&x, tb, lo) >> sh) & 255);
                    }
                    a[next[d]++] = x;
                }
            }
            for (int d = 0; d < 256; d++)
                if (cnt[d] > 1)
                    msd_hkeys(a + beg[d], cnt[d], sh - 8, tb, lo);
            return;
        }
        sh -= 8; /* every key has this digit: the next one */
    }
    if (n <= 32)
        isort_hkeys(a, n);
    else /* n records of one key: by UID */
        qsort(a, n, sizeof *a, cmp_hkey);
}

/* Radix sort by (thread, ts) packed into 64 bits, then UID: in place.
 * Returns 1 when the key does not fit (caller merge-sorts). */
static int radix_hkeys(hkey *a, size_t n)
{
    int64_t lo = a[0].ts, hi = a[0].ts;
    int32_t thmax = 0;
    for (size_t i = 0; i < n; i++) {
        lo = a[i].ts < lo ? a[i].ts : lo;
        hi = a[i].ts > hi ? a[i].ts : hi;
        thmax = a[i].th > thmax ? a[i].th : thmax;
    }
    unsigned tb = bit_width((uint64_t)hi - (uint64_t)lo);
    unsigned hb = bit_width((uint64_t)thmax);
    if (tb + hb > 63)
        return 1;
    unsigned total = tb + hb;
    int top = total ? (int)((total - 1) / 8 * 8) : 0;
    msd_hkeys(a, n, top, tb, lo);
    return 0;
}

TLM_DEFINE_RUN_SORT(merge_hkeys, hkey, hkey_le)

/* Sort by (thread, ts, UID); UIDs are distinct, so the order is total:
 * radix sort, else merge sort. */
static tlm_status sort_hkeys(hkey *a, size_t n)
{
    size_t k = 1;
    while (k < n && hkey_le(&a[k - 1], &a[k]))
        k++;
    if (k >= n)
        return TLM_OK;
    return radix_hkeys(a, n) == 0 ? TLM_OK : merge_hkeys(a, n);
}

/* The host stacks; takes (and frees) the host list of c. */
static tlm_status build_stacks(tlm_tree *t, const tlm_tree_opts *o,
                               classes *c)
{
    const tlm_event *ev = t->ev;
    tlm_status st = TLM_OK;
    size_t nh = c->host.n;
    int32_t *rootbuf = NULL, *stack = NULL;
    double *send = NULL;
    uint8_t *scpu = NULL;
    /* sort the compact (thread, ts, UID) records the classification made,
     * no indirection through the events (sort_hkeys: radix sort, merge
     * sort when the key is wide) */
    hkey *hk = c->host.v;
    c->host.v = NULL;
    c->host.n = c->host.cap = 0;
    tlm_pair *roots = NULL;
    st = sort_hkeys(hk, nh);
    if (st != TLM_OK)
        goto done;
    /* allocated after the sort (its scratch is freed): a lower peak */
    rootbuf = malloc((nh ? nh : 1) * sizeof *rootbuf); /* roots <= nh */
    stack = malloc((nh ? nh : 1) * sizeof *stack);
    /* end time and cpu_op-ness of the stack entries: no event reads for
     * the top */
    send = malloc((nh ? nh : 1) * sizeof *send);
    scpu = malloc(nh ? nh : 1);
    if (!stack || !rootbuf || !send || !scpu) {
        st = TLM_ENOMEM;
        goto done;
    }

    size_t nroots = 0;
    size_t sp = 0;
    int cpu_depth = 0;
    int32_t cur_thread = -1;
    for (size_t q = 0; q < nh; q++) {
        int32_t u = hk[q].uid;
        const tlm_event *e = &ev[u];
        if (q + TLM_PREFETCH_AHEAD < nh) {
            TLM_PREFETCH(&ev[hk[q + TLM_PREFETCH_AHEAD].uid]);
            TLM_PREFETCH(&t->nd[hk[q + TLM_PREFETCH_AHEAD].uid]);
        }
        if (hk[q].th != cur_thread) {
            cur_thread = hk[q].th;
            sp = 0;
            cpu_depth = 0;
        }
        double ts = tlm_ev_ts_us(e), te = tlm_ev_end_us(e);
        while (sp && ts >= send[sp - 1]) {
            if (scpu[sp - 1])
                cpu_depth--;
            sp--;
        }
        if (sp) {
            double top_end = send[sp - 1];
            int bleeds = o->bleed_tolerance ? te > top_end + 1.0
                                            : te > top_end;
            if (bleeds) {
                double overlap = top_end - ts;
                if (overlap < 1.0 && sp >= 2) {
                    if (scpu[sp - 1])
                        cpu_depth--;
                    sp--;
                    t->stats.n_bleed_sibling++;
                } else {
                    t->nd[u].flags |= TLM_NODE_BLEED_DROP;
                    t->stats.n_bleed_drop++;
                    continue;
                }
            }
        }
        t->nd[u].flags |= TLM_NODE_TREE;
        if (sp)
            add_child(t, stack[sp - 1], u);
        send[sp] = te;
        scpu[sp] = e->cat == TLM_CAT_CPU_OP;
        stack[sp++] = u;
        if (e->cat == TLM_CAT_CPU_OP) {
            if (cpu_depth == 0) {
                t->nd[u].flags |= TLM_NODE_CPU_ROOT;
                rootbuf[nroots++] = u;
            }
            cpu_depth++;
        }
    }
    free(hk);
    hk = NULL;
    free(stack);
    stack = NULL;
    free(send);
    send = NULL;
    free(scpu);
    scpu = NULL;
    /* roots by (ts, UID): sorted runs per thread, merged */
    roots = tlm_malloc_warm((nroots ? nroots : 1) * sizeof *roots);
    if (!roots) {
        st = TLM_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < nroots; i++) {
        if (i + TLM_PREFETCH_AHEAD < nroots)
            TLM_PREFETCH(&ev[rootbuf[i + TLM_PREFETCH_AHEAD]]);
        roots[i].key = tlm_ts_key(ev[rootbuf[i]].ts);
        roots[i].val = rootbuf[i];
    }
    st = tlm_sort_pairs(roots, nroots);
    if (st != TLM_OK)
        goto done;
    t->roots = tlm_malloc_warm((nroots ? nroots : 1) * sizeof *t->roots);
    if (!t->roots) {
        st = TLM_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < nroots; i++)
        t->roots[i] = (int32_t)roots[i].val;
    t->n_roots = nroots;
    t->stats.n_cpu_roots = nroots;
done:
    free(hk);
    free(stack);
    free(send);
    free(scpu);
    free(roots);
    free(rootbuf);
    return st;
}

/* MARK: - linking -------------------------------------------------------- */

typedef struct glk {
    int64_t link;
    int32_t uid;
} glk;

/* (link, UID): a total order, so qsort gives the stable result. */
static int cmp_glk(const void *x, const void *y)
{
    const glk *a = x, *b = y;
    if (a->link != b->link)
        return a->link < b->link ? -1 : 1;
    return (a->uid > b->uid) - (a->uid < b->uid);
}

/* The launch -> GPU event links, in the order they were made: added as
 * children only once the host stacks are built (the two may run in two
 * threads: linking touches GPU nodes only). */
typedef struct glinks {
    int32_t (*v)[2]; /* (launch, GPU event) */
    size_t n, cap;
    tlm_warm w;
} glinks;

static int link_gpu(tlm_tree *t, glinks *L, int32_t r, int32_t g)
{
    if (t->nd[g].flags & TLM_NODE_TREE) {
        t->stats.n_gpu_dup_link++;
        return 0;
    }
    int32_t(*p)[2] = grow1(L->v, L->n, &L->cap, sizeof *p, &L->w);
    if (!p)
        return -1;
    L->v = p;
    L->v[L->n][0] = r;
    L->v[L->n++][1] = g;
    t->nd[g].flags |= TLM_NODE_TREE;
    t->stats.n_gpu_linked++;
    return 0;
}

/* int64 key -> int32 value (last put wins): a direct table when the keys
 * are dense (correlation ids usually are), else a hash map. */
typedef struct idmap {
    int64_t lo;
    size_t range; /* 0: hash map */
    int32_t *arr;
    tlm_i3map h;
} idmap;

static tlm_status idmap_init(idmap *m, int64_t lo, int64_t hi, size_t count)
{
    memset(m, 0, sizeof *m);
    if (count && hi >= lo && (uint64_t)hi - (uint64_t)lo < 4 * count + 4096) {
        m->lo = lo;
        m->range = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
        m->arr = tlm_malloc_warm(m->range * sizeof *m->arr);
        if (!m->arr)
            return TLM_ENOMEM;
        memset(m->arr, 0xff, m->range * sizeof *m->arr);
        return TLM_OK;
    }
    return tlm_i3map_init(&m->h, count + 1);
}

static void idmap_free(idmap *m)
{
    free(m->arr);
    tlm_i3map_free(&m->h);
}

static tlm_status idmap_put(idmap *m, int64_t k, int32_t v)
{
    if (m->range) {
        /* keys were within [lo, lo + range) when the range was chosen */
        m->arr[(uint64_t)k - (uint64_t)m->lo] = v;
        return TLM_OK;
    }
    return tlm_i3map_put(&m->h, k, 0, 0, v);
}

static int32_t idmap_get(const idmap *m, int64_t k)
{
    if (m->range) {
        uint64_t d = (uint64_t)k - (uint64_t)m->lo;
        return d < m->range ? m->arr[d] : -1;
    }
    return tlm_i3map_get(&m->h, k, 0, 0);
}

static int lk_get(const linkev *l, int key, int64_t *v)
{
    if (key == TLM_ARG_CORRELATION) {
        *v = l->corr;
        return (l->has & LK_CORR_INT) != 0;
    }
    *v = l->ext;
    return (l->has & LK_EXT_INT) != 0;
}

/* First index of gl[0..ng) with link >= k. */
static size_t gl_lower(const glk *gl, size_t ng, int64_t k)
{
    return tlm_lower_bound_i64_at(gl, ng, sizeof *gl, offsetof(glk, link), k);
}

static tlm_status link_gpu_events(tlm_tree *t, const tlm_tree_opts *o,
                                  const classes *c, glinks *L)
{
    const tlm_event *ev = t->ev;
    tlm_status st = TLM_OK;
    idmap fs, ff, glast; /* flow s / f by id; last GPU event by link */
    glk *gl = NULL;      /* (link id, UID) of GPU events, sorted */
    int key = c->key;
    size_t ng = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    memset(&fs, 0, sizeof fs);
    memset(&ff, 0, sizeof ff);
    memset(&glast, 0, sizeof glast);
    gl = tlm_malloc_warm((c->gpu.n ? c->gpu.n : 1) * sizeof *gl);
    if (!gl)
        return TLM_ENOMEM;
    for (size_t j = 0; j < c->gpu.n; j++) {
        int64_t lv;
        if (lk_get(&c->gpu.v[j], key, &lv)) {
            gl[ng].link = lv;
            gl[ng].uid = c->gpu.v[j].uid;
            ng++;
            lo = lv < lo ? lv : lo;
            hi = lv > hi ? lv : hi;
        }
    }
    for (size_t j = 0; j < c->flows.n; j++) {
        int64_t id = c->flows.v[j].id;
        lo = id < lo ? id : lo;
        hi = id > hi ? id : hi;
    }
    if ((st = idmap_init(&fs, lo, hi, c->flows.n)) != TLM_OK ||
        (st = idmap_init(&ff, lo, hi, c->flows.n)) != TLM_OK ||
        (st = idmap_init(&glast, lo, hi, ng)) != TLM_OK)
        goto done;
    for (size_t j = 0; j < c->flows.n; j++) {
        const flowrec *f = &c->flows.v[j];
        st = idmap_put(f->ph == 's' ? &fs : &ff, f->id, f->uid);
        if (st != TLM_OK)
            goto done;
    }
    for (size_t j = 0; j < ng; j++)
        if ((st = idmap_put(&glast, gl[j].link, gl[j].uid)) != TLM_OK)
            goto done;
    /* already in (link, UID) order when link ids grow with UIDs */
    {
        size_t k = 1;
        while (k < ng && cmp_glk(&gl[k - 1], &gl[k]) <= 0)
            k++;
        if (k < ng)
            qsort(gl, ng, sizeof *gl, cmp_glk);
    }

    for (size_t q = 0; q < c->rt.n; q++) {
        const linkev *rl = &c->rt.v[q];
        int32_t i = rl->uid;
        int64_t k;
        if (!lk_get(rl, key, &k))
            continue;
        int use_all = (rl->has & LK_GRAPH) != 0;
        if (!use_all) {
            int32_t s = idmap_get(&fs, k);
            int32_t f = idmap_get(&ff, k);
            if (s >= 0 && f >= 0) {
                const tlm_event *fe = &ev[f];
                int64_t fid = 0;
                (void)tlm_event_flow_id(t->trace, fe, &fid);
                /* the last GPU event with (pid, tid, link) of the flow's
                 * target */
                int32_t g = idmap_get(&glast, fid);
                if (g >= 0 &&
                    (tlm_ev_pid(&ev[g]) != tlm_ev_pid(fe) ||
                     tlm_ev_tid(&ev[g]) != tlm_ev_tid(fe))) {
                    size_t a = gl_lower(gl, ng, fid);
                    size_t b = a;
                    while (b < ng && gl[b].link == fid)
                        b++;
                    g = -1;
                    while (b > a) {
                        b--;
                        if (tlm_ev_pid(&ev[gl[b].uid]) == tlm_ev_pid(fe) &&
                            tlm_ev_tid(&ev[gl[b].uid]) == tlm_ev_tid(fe)) {
                            g = gl[b].uid;
                            break;
                        }
                    }
                }
                if (g < 0) {
                    t->stats.n_flow_bad_target++;
                    continue;
                }
                if (link_gpu(t, L, i, g)) {
                    st = TLM_ENOMEM;
                    goto done;
                }
                continue;
            }
            if (s >= 0 || f >= 0)
                t->stats.n_flow_half++;
            if (!o->corr_fallback)
                continue;
        }
        /* every GPU event with this link id (graph launch / fallback) */
        for (size_t j = gl_lower(gl, ng, k); j < ng && gl[j].link == k;
             j++) {
            int32_t g = gl[j].uid;
            if (!use_all) {
                if (t->nd[g].flags & TLM_NODE_TREE)
                    continue;
                t->stats.n_corr_fallback++;
            }
            if (link_gpu(t, L, i, g)) {
                st = TLM_ENOMEM;
                goto done;
            }
        }
    }
    t->stats.n_gpu_unlinked = t->stats.n_gpu - t->stats.n_gpu_linked;
done:
    idmap_free(&fs);
    idmap_free(&ff);
    idmap_free(&glast);
    free(gl);
    return st;
}

/* MARK: - GPU ranges ----------------------------------------------------- */

/* Marks GPU node u and its ancestors in gbits as having a GPU slice (up
 * to the first one already marked). */
static void gpu_mark_up(tlm_tree *t, int32_t u)
{
    for (; u >= 0; u = t->nd[u].parent) {
        uint64_t *w = &t->gbits[(size_t)u >> 6];
        uint64_t bit = (uint64_t)1 << ((unsigned)u & 63u);
        if (*w & bit)
            return;
        *w |= bit;
    }
}

/* Walks every tree with children in pre-order: with pass 0 numbers the GPU
 * nodes into gpu_order and marks them and their ancestors in gbits; with
 * pass 1 writes the stored slices.  Returns the count. */
static size_t gpu_walk(tlm_tree *t, int pass)
{
    size_t cnt = 0;
    for (size_t i = 0; i < t->n; i++) {
        int32_t root = (int32_t)i;
        if (t->nd[root].parent >= 0 || t->nd[root].first_child < 0)
            continue;
        int32_t u = root;
        for (;;) {
            if (pass && tlm_nd_has_gpu(t, u) && tlm_nd_own(t, u))
                t->grng[tlm_nd_slot(t, u)].lo = (int32_t)cnt;
            if (t->nd[u].flags & TLM_NODE_GPU) {
                if (!pass) {
                    t->gpu_order[cnt] = u;
                    gpu_mark_up(t, u);
                }
                cnt++;
            }
            if (t->nd[u].first_child >= 0) {
                u = t->nd[u].first_child;
                continue;
            }
            for (;;) {
                if (pass && tlm_nd_has_gpu(t, u) && tlm_nd_own(t, u))
                    t->grng[tlm_nd_slot(t, u)].hi = (int32_t)cnt;
                if (u == root)
                    goto next_root;
                if (t->nd[u].next_sibling >= 0) {
                    u = t->nd[u].next_sibling;
                    break;
                }
                u = t->nd[u].parent;
            }
        }
    next_root:;
    }
    return cnt;
}

#define BIT(b, u) (((b)[(size_t)(u) >> 6] >> ((unsigned)(u) & 63u)) & 1u)
#define SETBIT(b, u) ((b)[(size_t)(u) >> 6] |= (uint64_t)1 << ((unsigned)(u) & 63u))

/* The slices' bitmaps and rank directory for t->n nodes, all empty. */
static tlm_status grange_alloc(tlm_tree *t)
{
    free(t->gbits);
    free(t->gown);
    free(t->grank);
    free(t->grng);
    t->grng = NULL;
    t->n_grng = 0;
    t->gwords = (t->n + 63) / 64;
    size_t w = t->gwords ? t->gwords : 1;
    t->gbits = calloc(w, sizeof *t->gbits);
    t->gown = calloc(w, sizeof *t->gown);
    t->grank = malloc(w * sizeof *t->grank);
    if (t->gbits && t->gown && t->grank)
        return TLM_OK;
    t->gwords = 0;
    return TLM_ENOMEM;
}

/* The rank directory of gown and room for the stored slices. */
static tlm_status grange_rank(tlm_tree *t)
{
    size_t r = 0;
    for (size_t w = 0; w < t->gwords; w++) {
        t->grank[w] = (uint32_t)r;
        r += (size_t)__builtin_popcountll(t->gown[w]);
    }
    t->n_grng = r;
    t->grng = malloc((r ? r : 1) * sizeof *t->grng);
    if (t->grng)
        return TLM_OK;
    t->gwords = 0;
    return TLM_ENOMEM;
}

/* Which slices are stored: a node's slice is its parent's when the parent
 * is no GPU event and has no other child with GPU events below it. */
static tlm_status grange_own(tlm_tree *t)
{
    size_t w = t->gwords ? t->gwords : 1;
    uint64_t *one = calloc(w, sizeof *one), *two = calloc(w, sizeof *two);
    if (!one || !two) {
        free(one);
        free(two);
        t->gwords = 0;
        return TLM_ENOMEM;
    }
    for (size_t u = 0; u < t->n; u++) {
        int32_t p = t->nd[u].parent;
        if (!BIT(t->gbits, u) || p < 0)
            continue;
        if (BIT(one, p))
            SETBIT(two, p);
        SETBIT(one, p);
    }
    for (size_t u = 0; u < t->n; u++) {
        int32_t p = t->nd[u].parent;
        if (BIT(t->gbits, u) &&
            (p < 0 || (t->nd[p].flags & TLM_NODE_GPU) || BIT(two, p)))
            SETBIT(t->gown, u);
    }
    free(one);
    free(two);
    return TLM_OK;
}

static tlm_status number_gpu(tlm_tree *t)
{
    t->gpu_order = tlm_malloc_warm(
        (t->stats.n_gpu_linked ? t->stats.n_gpu_linked : 1) *
        sizeof *t->gpu_order);
    if (!t->gpu_order || grange_alloc(t) != TLM_OK)
        return TLM_ENOMEM;
    size_t cnt = gpu_walk(t, 0);
    if (grange_own(t) != TLM_OK || grange_rank(t) != TLM_OK)
        return TLM_ENOMEM;
    gpu_walk(t, 1);
    t->n_gpu_order = cnt;
    return TLM_OK;
}

/* MARK: - fwd / bwd ------------------------------------------------------ */

/* UID -> UID map for the fwd/bwd links: 8-byte slots (open addressing)
 * behind a one-bit-per-event filter, so that the frequent "no link"
 * answer touches one bit. */
typedef struct tlm_uidmap {
    int32_t *kv; /* pairs (key, value); key -1 = empty */
    size_t cap;  /* power of two */
    uint64_t *bits;
} tlm_uidmap;

static tlm_status uidmap_init(tlm_uidmap *m, size_t expect, size_t n)
{
    size_t cap = 16;
    while (cap < expect * 2 + 1)
        cap <<= 1;
    m->cap = cap;
    m->kv = tlm_malloc_warm(cap * 2 * sizeof *m->kv);
    m->bits = calloc(n / 64 + 1, sizeof *m->bits);
    if (!m->kv || !m->bits)
        return TLM_ENOMEM;
    memset(m->kv, 0xff, cap * 2 * sizeof *m->kv);
    return TLM_OK;
}

static void uidmap_free(tlm_uidmap *m)
{
    if (!m)
        return;
    free(m->kv);
    free(m->bits);
    free(m);
}

static size_t uid_slot(const tlm_uidmap *m, int32_t k)
{
    return (size_t)(((uint32_t)k * 0x9E3779B1u) ^ ((uint32_t)k >> 15)) &
           (m->cap - 1);
}

/* Sets (overwrites) k -> v; the map never holds more than expect keys. */
static void uidmap_put(tlm_uidmap *m, int32_t k, int32_t v)
{
    size_t j = uid_slot(m, k);
    while (m->kv[2 * j] >= 0 && m->kv[2 * j] != k)
        j = (j + 1) & (m->cap - 1);
    m->kv[2 * j] = k;
    m->kv[2 * j + 1] = v;
    m->bits[(uint32_t)k / 64] |= 1ull << ((uint32_t)k % 64);
}

static int32_t uidmap_get(const tlm_uidmap *m, int32_t k)
{
    if (!(m->bits[(uint32_t)k / 64] & (1ull << ((uint32_t)k % 64))))
        return -1;
    size_t j = uid_slot(m, k);
    while (m->kv[2 * j] >= 0) {
        if (m->kv[2 * j] == k)
            return m->kv[2 * j + 1];
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

#define SEQ_UID(p) ((int32_t)((uint64_t)(p).val >> 32))
#define SEQ_NAME(p) ((uint32_t)((uint64_t)(p).val & 0xffffffffu))

/* The classification pass collected (Sequence number, UID) of cpu_ops
 * (Kineto writes the number nowhere else); one sort groups them. */
static tlm_status link_fwd_bwd(tlm_tree *t, classes *c)
{
    const tlm_event *ev = t->ev;
    tlm_pair *sp = c->seq;
    size_t ns = c->nseq;
    if (!ns)
        return TLM_OK;
    /* by (number, UID) */
    if (tlm_sort_pairs(sp, ns) != TLM_OK)
        return TLM_ENOMEM;
    t->fwd = calloc(1, sizeof *t->fwd);
    t->bwd = calloc(1, sizeof *t->bwd);
    /* at most one link per sequence-number group */
    size_t ngroups = 0;
    for (size_t a = 0; a < ns; a++)
        ngroups += !a || sp[a].key != sp[a - 1].key;
    if (!t->fwd || !t->bwd || uidmap_init(t->fwd, ngroups, t->n) != TLM_OK ||
        uidmap_init(t->bwd, ngroups, t->n) != TLM_OK)
        return TLM_ENOMEM;
    static const char pfx[] = "autograd::engine::evaluate_function:";
    uint32_t nnames = tlm_trace_str_count(t->trace);
    uint8_t *isbw = calloc(nnames ? nnames : 1, 1); /* 0 ?, 1 no, 2 yes */
    if (!isbw)
        return TLM_ENOMEM;
    for (size_t a = 0; a < ns;) {
        size_t b = a;
        while (b < ns && sp[b].key == sp[a].key)
            b++;
        int32_t bw = -1;
        for (size_t j = a; j < b && bw < 0; j++) {
            uint32_t id = SEQ_NAME(sp[j]);
            uint8_t k = id < nnames ? isbw[id] : 0;
            if (!k) {
                const char *nm = tlm_trace_str(t->trace, id, NULL);
                k = strncmp(nm, pfx, sizeof pfx - 1) ? 1 : 2;
                if (id < nnames)
                    isbw[id] = k;
            }
            if (k == 2)
                bw = SEQ_UID(sp[j]);
        }
        if (bw >= 0) {
            int32_t fw = -1;
            for (size_t j = a; j < b; j++) {
                const tlm_event *e = &ev[SEQ_UID(sp[j])];
                if (tlm_ev_pid(e) == tlm_ev_pid(&ev[bw]) &&
                    tlm_ev_tid(e) == tlm_ev_tid(&ev[bw]))
                    continue;
                if (fw < 0 || tlm_ts_key(e->ts) > tlm_ts_key(ev[fw].ts))
                    fw = SEQ_UID(sp[j]);
            }
            if (fw >= 0) {
                uidmap_put(t->fwd, bw, fw);
                uidmap_put(t->bwd, fw, bw);
                t->stats.n_fwd_bwd++;
            }
        }
        a = b;
    }
    free(isbw);
    return TLM_OK;
}

/* MARK: - build ---------------------------------------------------------- */

/* What runs beside build_stacks: it reads the classification lists and
 * the events, and writes GPU nodes, its link list, the fwd/bwd maps and
 * stats counters of its own. */
typedef struct linkjob {
    tlm_tree *t;
    const tlm_tree_opts *o;
    classes *c;
    glinks *gl;
    tlm_status st;
} linkjob;

static void *link_thread(void *arg)
{
    linkjob *j = arg;
    j->st = link_gpu_events(j->t, j->o, j->c, j->gl);
    if (j->st == TLM_OK)
        j->st = link_fwd_bwd(j->t, j->c);
    return NULL;
}

/* Everything after the classification: host stacks, links, GPU ranges.
 * Takes the lists of cl (freed here). */
static tlm_status build_rest(tlm_tree *t, const tlm_tree_opts *opts,
                             classes *cl)
{
    glinks gl = {NULL, 0, 0, {NULL, 0}};
    /* the stacks (host nodes) beside the links (GPU nodes, the
     * forward/backward maps) */
    linkjob lj = {t, opts, cl, &gl, TLM_OK};
    pthread_t th;
    int threaded = opts->threads >= 2 &&
                   pthread_create(&th, NULL, link_thread, &lj) == 0;
    tlm_status st = build_stacks(t, opts, cl);
    if (threaded)
        pthread_join(th, NULL);
    else if (st == TLM_OK)
        link_thread(&lj);
    if (st == TLM_OK)
        st = lj.st;
    classes_free(cl);
    memset(cl, 0, sizeof *cl);
    if (st == TLM_OK) {
        for (size_t j = 0; j < gl.n; j++)
            add_child(t, gl.v[j][0], gl.v[j][1]);
        reverse_children(t);
        st = number_gpu(t);
    }
    free(gl.v);
    return st;
}

static tlm_status build_failed(tlm_tree *t, const tlm_trace *trace,
                               tlm_status st, size_t n, tlm_error *err)
{
    tlm_tree_free(t);
    if (st == TLM_ENOMEM)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "tree: out of memory for %zu events", n);
    return tlm_error_set(err, st, tlm_trace_path(trace), -1,
                         "tree: %s while building the call tree",
                         tlm_status_str(st));
}

/* The kept events of trace, checked: *ev, *n. */
static tlm_status kept_events(const tlm_trace *trace, const tlm_event **ev,
                              size_t *n, tlm_error *err)
{
    *n = 0;
    *ev = tlm_trace_events(trace, n);
    if (!*ev && *n)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "tree: the trace kept no events");
    if (*n > (size_t)INT32_MAX - 1)
        return tlm_error_set(err, TLM_ELIMIT, tlm_trace_path(trace), -1,
                             "tree: %zu events exceed the int32 UID range",
                             *n);
    return TLM_OK;
}

tlm_status tlm_tree_build(const tlm_trace *trace, const tlm_tree_opts *opts,
                          tlm_tree **out, tlm_error *err)
{
    tlm_tree_opts defo;
    classes cl;
    if (out)
        *out = NULL;
    if (!trace || !out)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_tree_build: NULL trace or out");
    if (!opts) {
        tlm_tree_opts_init(&defo);
        opts = &defo;
    }
    size_t n;
    const tlm_event *ev;
    tlm_status st = kept_events(trace, &ev, &n, err);
    if (st != TLM_OK)
        return st;
    memset(&cl, 0, sizeof cl);
    tlm_tree *t = calloc(1, sizeof *t);
    if (!t)
        return build_failed(t, trace, TLM_ENOMEM, n, err);
    t->trace = trace;
    t->ev = ev;
    t->n = n;
    t->stats.n_events = n;
    t->nd = tlm_malloc_warm((n ? n : 1) * sizeof *t->nd);
    /* classify() initialises every node */
    st = t->nd ? classify(t, opts, &cl) : TLM_ENOMEM;
    if (st == TLM_OK)
        st = build_rest(t, opts, &cl);
    classes_free(&cl);
    if (st != TLM_OK)
        return build_failed(t, trace, st, n, err);
    *out = t;
    return TLM_OK;
}

/* MARK: - streaming ------------------------------------------------------ */

/* With opts.threads >= 2 the per-event pass runs in a thread of its own
 * while the reader goes on: the reader's callback only publishes how many
 * events are complete (every STREAM_BATCH events, and all of them at the
 * end), and the worker classifies them from the trace's arrays.  The
 * worker holds `mv` while it reads those arrays; the reader takes it to
 * move them (tlm_read_opts.on_move) or to free them after a failed read
 * (then `gone` ends the worker). */
#define STREAM_BATCH 4096

struct tlm_tree_stream {
    tlm_tree *t;   /* nodes and stats so far (no trace, no events yet) */
    size_t cap_nd;
    tlm_warm warm_nd;
    tlm_tree_opts o;
    classes cl;
    clstate cs;
    tlm_status st;      /* first failure (the thread classifying) */
    uint64_t seen;      /* events delivered (reader thread) */
    /* the worker */
    int started;        /* thread running (reader thread's view) */
    int sync_ok;        /* mv, mu, cv initialised */
    const tlm_trace *tr;
    pthread_t th;
    pthread_mutex_t mv; /* the trace's arrays: worker reads / reader moves */
    pthread_mutex_t mu; /* with cv: the worker's sleep */
    pthread_cond_t cv;
    atomic_size_t published; /* events the worker may classify */
    atomic_int stop;         /* 1: no more events */
    atomic_int gone;         /* 1: the trace's arrays were freed */
    atomic_int wfail;        /* the worker's status, once it failed */
    tlm_warm ahead; /* stream_prefault: the event array */
};

/* Grows the node array for event t->n and classifies it. */
static tlm_status stream_one(tlm_tree_stream *s, const tlm_trace *tr,
                             const tlm_event *ev)
{
    tlm_tree *t = s->t;
    tlm_tnode *p = grow1(t->nd, t->n, &s->cap_nd, sizeof *p, &s->warm_nd);
    if (!p)
        return TLM_ENOMEM;
    t->nd = p;
    if (ev->name >= s->cs.ncap) {
        tlm_status st = cl_names(&s->cs, (size_t)ev->name + 1);
        if (st != TLM_OK)
            return st;
    }
    tlm_status st = classify_one(t, tr, &s->o, &s->cl, &s->cs, t->n, ev);
    if (st == TLM_OK)
        t->n++;
    return st;
}

/* The worker populates the page tables of the reader's event array ahead
 * of the reader (tlm_prefault changes no contents: no race with the
 * reader's writes), so that the reader's thread does not wait for fresh
 * pages: up to STREAM_AHEAD bytes beyond the last publication, a step at
 * a time (the reader waits for mv to move the array). */
#define STREAM_AHEAD ((size_t)2 << 20) /* resident ahead of use: kept small */
#define STREAM_AHEAD_STEP ((size_t)512 << 10)

static void stream_prefault(tlm_tree_stream *s, size_t pub)
{
    pthread_mutex_lock(&s->mv);
    if (!atomic_load_explicit(&s->gone, memory_order_relaxed)) {
        const tlm_event *ev = tlm_trace_events_now(s->tr);
        size_t cap = tlm_trace_events_cap_now(s->tr) * sizeof *ev;
        size_t at = pub * sizeof *ev;
        size_t from = ev == s->ahead.base && s->ahead.done > at
                          ? s->ahead.done
                          : at;
        size_t end = at + STREAM_AHEAD < cap ? at + STREAM_AHEAD : cap;
        if (end > from + STREAM_AHEAD_STEP)
            end = from + STREAM_AHEAD_STEP;
        tlm_warm_upto(&s->ahead, ev, at, end);
    }
    pthread_mutex_unlock(&s->mv);
}

static void *stream_thread(void *arg)
{
    tlm_tree_stream *s = arg;
    size_t done = 0;
    for (;;) {
        /* stop first: once it is set, published is final */
        int stop = atomic_load_explicit(&s->stop, memory_order_acquire);
        size_t pub =
            atomic_load_explicit(&s->published, memory_order_acquire);
        if (done < pub) {
            size_t end = pub - done > 2 * STREAM_BATCH
                             ? done + 2 * STREAM_BATCH
                             : pub;
            tlm_status st = TLM_OK;
            pthread_mutex_lock(&s->mv);
            if (atomic_load_explicit(&s->gone, memory_order_relaxed)) {
                pthread_mutex_unlock(&s->mv);
                return NULL;
            }
            const tlm_event *ev = tlm_trace_events_now(s->tr);
            for (size_t i = done; i < end && st == TLM_OK; i++)
                st = stream_one(s, s->tr, &ev[i]);
            pthread_mutex_unlock(&s->mv);
            if (st != TLM_OK) {
                s->st = st;
                atomic_store_explicit(&s->wfail, (int)st,
                                      memory_order_release);
                return NULL;
            }
            done = end;
            stream_prefault(s, pub);
            continue;
        }
        if (stop)
            return NULL;
        stream_prefault(s, pub);
        pthread_mutex_lock(&s->mu);
        if (!atomic_load_explicit(&s->stop, memory_order_acquire) &&
            atomic_load_explicit(&s->published, memory_order_acquire) ==
                done) {
            /* a lost wake-up costs at most this wait */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        }
        pthread_mutex_unlock(&s->mu);
    }
}

static void stream_publish(tlm_tree_stream *s, int last)
{
    atomic_store_explicit(&s->published, (size_t)s->seen,
                          memory_order_release);
    if (last)
        atomic_store_explicit(&s->stop, 1, memory_order_release);
    pthread_mutex_lock(&s->mu);
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Ends the worker (after the last publication, or early). */
static void stream_join(tlm_tree_stream *s)
{
    if (!s->started)
        return;
    stream_publish(s, 1);
    pthread_join(s->th, NULL);
    s->started = 0;
}

void tlm_tree_stream_free(tlm_tree_stream *s)
{
    if (!s)
        return;
    stream_join(s);
    if (s->sync_ok) {
        pthread_mutex_destroy(&s->mv);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    tlm_tree_free(s->t);
    classes_free(&s->cl);
    cl_free(&s->cs);
    free(s);
}

tlm_status tlm_tree_stream_new(const tlm_tree_opts *opts,
                               tlm_tree_stream **out)
{
    *out = NULL;
    tlm_tree_stream *s = calloc(1, sizeof *s);
    if (!s)
        return TLM_ENOMEM;
    if (opts)
        s->o = *opts;
    else
        tlm_tree_opts_init(&s->o);
    atomic_init(&s->published, 0);
    atomic_init(&s->stop, 0);
    atomic_init(&s->gone, 0);
    atomic_init(&s->wfail, 0);
    s->t = calloc(1, sizeof *s->t);
    if (!s->t || cl_init(&s->cs, &s->cl, 1) != TLM_OK) {
        tlm_tree_stream_free(s);
        return TLM_ENOMEM;
    }
    if (s->o.threads >= 2) {
        int a = pthread_mutex_init(&s->mv, NULL);
        int b = pthread_mutex_init(&s->mu, NULL);
        int c = pthread_cond_init(&s->cv, NULL);
        if (!a && !b && !c) {
            s->sync_ok = 1;
        } else {
            /* one thread it is */
            if (!a)
                pthread_mutex_destroy(&s->mv);
            if (!b)
                pthread_mutex_destroy(&s->mu);
            if (!c)
                pthread_cond_destroy(&s->cv);
        }
    }
    *out = s;
    return TLM_OK;
}

void tlm_tree_stream_move(void *ud, int phase)
{
    tlm_tree_stream *s = ud;
    if (!s->started)
        return;
    if (phase == TLM_MOVE_END) {
        pthread_mutex_unlock(&s->mv);
        return;
    }
    pthread_mutex_lock(&s->mv);
    if (phase == TLM_MOVE_FREE) {
        atomic_store_explicit(&s->gone, 1, memory_order_relaxed);
        pthread_mutex_unlock(&s->mv);
        stream_join(s);
    }
}

tlm_status tlm_tree_stream_event(void *ud, tlm_trace *trace,
                                 const tlm_event *ev, uint64_t index,
                                 tlm_error *err)
{
    tlm_tree_stream *s = ud;
    if (!s->started && s->st != TLM_OK)
        return s->st;
    if (index != s->seen || index >= (uint64_t)INT32_MAX - 1) {
        tlm_status st = index != s->seen ? TLM_EINVAL : TLM_ELIMIT;
        stream_join(s);
        s->st = st;
        return tlm_error_set(err, st, tlm_trace_path(trace), -1,
                             st == TLM_EINVAL
                                 ? "tree: event %llu out of order"
                                 : "tree: event %llu exceeds the int32 UID "
                                   "range",
                             (unsigned long long)index);
    }
    if (index == 0 && s->sync_ok) {
        /* a worker reads the kept events (this must be one of them),
         * and the reader must tell it when they move */
        if (tlm_trace_events_now(trace) != ev ||
            trace->strs.on_move != tlm_tree_stream_move ||
            trace->strs.move_ud != s) {
            s->st = TLM_EINVAL;
            return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                                 "tree: a threaded stream needs the read "
                                 "to keep its events and call on_move");
        }
        s->tr = trace;
        if (pthread_create(&s->th, NULL, stream_thread, s) == 0)
            s->started = 1;
    }
    s->seen++;
    if (s->started) {
        int f = atomic_load_explicit(&s->wfail, memory_order_acquire);
        if (f) {
            stream_join(s);
            return tlm_error_set(err, (tlm_status)f, tlm_trace_path(trace),
                                 -1, "tree: out of memory after %llu events",
                                 (unsigned long long)index);
        }
        if (s->seen % STREAM_BATCH == 0)
            stream_publish(s, 0);
        return TLM_OK;
    }
    tlm_status st = stream_one(s, trace, ev);
    if (st != TLM_OK) {
        s->st = st;
        return tlm_error_set(err, st, tlm_trace_path(trace), -1,
                             "tree: out of memory after %llu events",
                             (unsigned long long)index);
    }
    return TLM_OK;
}

tlm_status tlm_tree_build_stream(const tlm_trace *trace, tlm_tree_stream *s,
                                 tlm_tree **out, tlm_error *err)
{
    *out = NULL;
    if (!trace || !s)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_tree_build_stream: NULL trace or stream");
    stream_join(s); /* the worker classifies the last events first */
    size_t n;
    const tlm_event *ev;
    tlm_status st = kept_events(trace, &ev, &n, err);
    if (st != TLM_OK)
        return st;
    if (s->st == TLM_ENOMEM)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "tree: out of memory for %zu events", n);
    if (s->st != TLM_OK || !s->t || n != s->t->n)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "tree: the stream saw %zu events, the trace "
                             "kept %zu",
                             s->t ? s->t->n : 0, n);
    tlm_tree *t = s->t;
    s->t = NULL;
    t->trace = trace;
    t->ev = ev;
    t->stats.n_events = n;
    if (!t->nd) {
        t->nd = malloc(sizeof *t->nd);
        if (!t->nd)
            return build_failed(t, trace, TLM_ENOMEM, n, err);
    }
    classify_end(t, &s->cl);
    cl_free(&s->cs);
    st = build_rest(t, &s->o, &s->cl);
    if (st != TLM_OK)
        return build_failed(t, trace, st, n, err);
    *out = t;
    return TLM_OK;
}

/* MARK: - accessors ------------------------------------------------------ */

const tlm_trace *tlm_tree_trace(const tlm_tree *t) { return t->trace; }
const tlm_tree_stats *tlm_tree_stats_get(const tlm_tree *t)
{
    return &t->stats;
}
size_t tlm_tree_size(const tlm_tree *t) { return t->n; }
int32_t tlm_tree_parent(const tlm_tree *t, int32_t u)
{
    return t->nd[u].parent;
}
int32_t tlm_tree_first_child(const tlm_tree *t, int32_t u)
{
    return t->nd[u].first_child;
}
int32_t tlm_tree_next_sibling(const tlm_tree *t, int32_t u)
{
    return t->nd[u].next_sibling;
}
unsigned tlm_tree_flags(const tlm_tree *t, int32_t u) { return t->nd[u].flags; }
int32_t tlm_tree_fwd_event(const tlm_tree *t, int32_t u)
{
    return t->fwd ? uidmap_get(t->fwd, u) : -1;
}
int32_t tlm_tree_bwd_event(const tlm_tree *t, int32_t u)
{
    return t->bwd ? uidmap_get(t->bwd, u) : -1;
}

tlm_grange *tlm_tree_granges_open(const tlm_tree *t, size_t cap)
{
    tlm_grange *r = malloc((cap > t->n ? cap : t->n ? t->n : 1) * sizeof *r);
    if (r)
        for (size_t u = 0; u < t->n; u++)
            r[u] = tlm_nd_grange(t, (int32_t)u);
    return r;
}

tlm_status tlm_tree_granges_close(tlm_tree *t, tlm_grange *r)
{
    tlm_status st = grange_alloc(t);
    for (size_t u = 0; st == TLM_OK && u < t->n; u++) {
        int32_t p = t->nd[u].parent;
        if (r[u].hi <= r[u].lo)
            continue;
        SETBIT(t->gbits, u);
        if (p < 0 || r[p].lo != r[u].lo || r[p].hi != r[u].hi)
            SETBIT(t->gown, u);
    }
    if (st == TLM_OK)
        st = grange_rank(t);
    for (size_t u = 0, k = 0; st == TLM_OK && u < t->n; u++)
        if (BIT(t->gown, u))
            t->grng[k++] = r[u];
    free(r);
    return st;
}

const int32_t *tlm_tree_gpu_events(const tlm_tree *t, int32_t u, size_t *n)
{
    return tlm_nd_gpu(t, u, n);
}

const int32_t *tlm_tree_cpu_roots(const tlm_tree *t, size_t *n)
{
    *n = t->n_roots;
    return t->roots;
}

tlm_status tlm_tree_busy_us(tlm_tree *t, const int32_t *uids, size_t n,
                            double *out)
{
    return tlm_tree_busy_us_buf(t, uids, n, out, &t->scratch,
                                &t->scratch_cap);
}

tlm_status tlm_tree_busy_us_buf(const tlm_tree *t, const int32_t *uids,
                                size_t n, double *out, tlm_ivld **scratch,
                                size_t *cap_io)
{
    *out = 0.0;
    if (!n)
        return TLM_OK;
    if (tlm_grow((void **)scratch, cap_io, n, sizeof **scratch, 32))
        return TLM_ENOMEM;
    tlm_ivld *s = *scratch;
    int sorted = 1;
    /* (a table of the times of gpu_order[] alongside it was 16 bytes a GPU
     * event at the report's peak, and no faster: not kept) */
    for (size_t i = 0; i < n; i++) {
        s[i].s = tlm_ev_ts_us(&t->ev[uids[i]]);
        s[i].e = tlm_ev_end_us(&t->ev[uids[i]]);
        if (i && s[i].s < s[i - 1].s)
            sorted = 0;
    }
    /* sorted by start already: merged as it is */
    if (!sorted)
        tlm_ivld_sort(s, n);
    *out = tlm_ivld_length(s, tlm_ivld_merge(s, n));
    return TLM_OK;
}

