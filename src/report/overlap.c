/*
 * overlap.c - the overlap sweep and the per-op overlap summary
 * (overlap.h; perfreport §4.11).
 *
 * The sweep visits the events by start.  Before an event starts, the
 * active events that ended at or before that instant leave (a min-heap of
 * ends).  The active events are kept in one list per stream, so a new
 * event is compared only with the active events of the other streams (and
 * of the unknown stream): events of one stream never overlap by rule, and
 * a stream with many stacked events costs nothing.  The partners found
 * at a start are put in start order, so that every event's list of
 * partners is in start order.
 */
#include "overlap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "npstats.h"
#include "sortutil.h"

/* MARK: - the sweep ------------------------------------------------------ */

typedef struct ord {
    double ts;
    int32_t uid;
    uint32_t i; /* index in the input */
} ord;

static inline int ord_le(const ord *a, const ord *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    return a->uid <= b->uid;
}
TLM_DEFINE_RUN_SORT(sort_ord, ord, ord_le)

typedef struct found {
    int32_t a, b; /* a started first */
    double lo, hi;
} found;

/* The state of one sweep: sweep events by start (rank r), stream buckets
 * with their active lists, the heap of ends, the pairs found. */
typedef struct sweep {
    const tlm_ovl_in *in;
    ord *o;          /* by start */
    size_t n;        /* sweep events */
    uint32_t *bk;    /* per rank: bucket */
    size_t nb;       /* buckets; nb - 1 is the unknown stream */
    int32_t *head, *tail, *next, *prev; /* bucket lists of ranks */
    uint32_t *nz, *nzpos; /* non-empty buckets, and where each is in nz */
    size_t nnz;
    uint32_t *heap;  /* ranks by end */
    size_t nheap;
    uint32_t *cand;  /* partners of the event starting */
    found *f;
    size_t nf, capf;
    uint64_t work, max_work;
} sweep;

static double te_of(const sweep *w, uint32_t r)
{
    return w->in[w->o[r].i].te;
}

static void heap_push(sweep *w, uint32_t r)
{
    size_t i = w->nheap++;
    double t = te_of(w, r);
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (te_of(w, w->heap[p]) <= t)
            break;
        w->heap[i] = w->heap[p];
        i = p;
    }
    w->heap[i] = r;
}

static uint32_t heap_pop(sweep *w)
{
    uint32_t top = w->heap[0], last = w->heap[--w->nheap];
    size_t i = 0, n = w->nheap;
    double t = te_of(w, last);
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && te_of(w, w->heap[c + 1]) < te_of(w, w->heap[c]))
            c++;
        if (te_of(w, w->heap[c]) >= t)
            break;
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (n)
        w->heap[i] = last;
    return top;
}

static void bucket_add(sweep *w, uint32_t r)
{
    uint32_t b = w->bk[r];
    w->next[r] = -1;
    w->prev[r] = w->tail[b];
    if (w->tail[b] >= 0)
        w->next[w->tail[b]] = (int32_t)r;
    else {
        w->head[b] = (int32_t)r;
        w->nzpos[b] = (uint32_t)w->nnz;
        w->nz[w->nnz++] = b;
    }
    w->tail[b] = (int32_t)r;
}

static void bucket_remove(sweep *w, uint32_t r)
{
    uint32_t b = w->bk[r];
    if (w->prev[r] >= 0)
        w->next[w->prev[r]] = w->next[r];
    else
        w->head[b] = w->next[r];
    if (w->next[r] >= 0)
        w->prev[w->next[r]] = w->prev[r];
    else
        w->tail[b] = w->prev[r];
    if (w->head[b] < 0) { /* swap-remove from the non-empty list */
        uint32_t last = w->nz[--w->nnz];
        w->nz[w->nzpos[b]] = last;
        w->nzpos[last] = w->nzpos[b];
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Stream buckets: known streams numbered in value order, the unknown
 * stream last.  Errors: TLM_ENOMEM. */
static tlm_status make_buckets(sweep *w)
{
    tlm_pair *p = malloc((w->n + 1) * sizeof *p);
    if (!p)
        return TLM_ENOMEM;
    size_t k = 0;
    for (size_t r = 0; r < w->n; r++) {
        const tlm_ovl_in *e = &w->in[w->o[r].i];
        if (e->has_stream) {
            p[k].key = e->stream;
            p[k++].val = (int64_t)r;
        }
    }
    tlm_status st = tlm_sort_pairs(p, k);
    if (st != TLM_OK) {
        free(p);
        return st;
    }
    size_t nb = 0;
    for (size_t j = 0; j < k; j++) {
        if (j > 0 && p[j].key != p[j - 1].key)
            nb++;
        w->bk[p[j].val] = (uint32_t)nb;
    }
    w->nb = (k ? nb + 1 : 0) + 1;
    for (size_t r = 0; r < w->n; r++)
        if (!w->in[w->o[r].i].has_stream)
            w->bk[r] = (uint32_t)(w->nb - 1);
    free(p);
    return TLM_OK;
}

static tlm_status add_found(sweep *w, uint32_t ra, uint32_t rb)
{
    if (tlm_grow((void **)&w->f, &w->capf, w->nf + 1, sizeof *w->f, 256))
        return TLM_ENOMEM;
    const tlm_ovl_in *a = &w->in[w->o[ra].i], *b = &w->in[w->o[rb].i];
    found *x = &w->f[w->nf++];
    x->a = a->uid;
    x->b = b->uid;
    x->lo = b->ts;
    x->hi = a->te < b->te ? a->te : b->te;
    return TLM_OK;
}

/* The active partners of rank r, in start order, into w->f. */
static tlm_status start_event(sweep *w, uint32_t r)
{
    const tlm_ovl_in *e = &w->in[w->o[r].i];
    uint32_t own = w->bk[r], unknown = (uint32_t)(w->nb - 1);
    size_t nc = 0;
    for (size_t z = 0; z < w->nnz; z++) {
        uint32_t b = w->nz[z];
        if (b == own && own != unknown)
            continue;
        for (int32_t a = w->head[b]; a >= 0; a = w->next[a]) {
            if (++w->work > w->max_work)
                return TLM_ELIMIT;
            const tlm_ovl_in *x = &w->in[w->o[a].i];
            double hi = x->te < e->te ? x->te : e->te;
            if (hi - e->ts < TLM_OVL_MIN_US)
                continue;
            if (x->anc >= 0 && x->anc == e->anc)
                continue;
            w->cand[nc++] = (uint32_t)a;
        }
    }
    qsort(w->cand, nc, sizeof *w->cand, cmp_u32);
    for (size_t c = 0; c < nc; c++)
        if (add_found(w, w->cand[c], r) != TLM_OK)
            return TLM_ENOMEM;
    return TLM_OK;
}

static tlm_status run_sweep(sweep *w)
{
    for (size_t r = 0; r < w->n; r++) {
        double ts = w->o[r].ts;
        while (w->nheap && te_of(w, w->heap[0]) <= ts)
            bucket_remove(w, heap_pop(w));
        tlm_status st = start_event(w, (uint32_t)r);
        if (st != TLM_OK)
            return st;
        bucket_add(w, (uint32_t)r);
        heap_push(w, (uint32_t)r);
    }
    return TLM_OK;
}

/* MARK: - the result ----------------------------------------------------- */

static tlm_status alloc_result(tlm_ovl *o, const tlm_ovl_in *in, size_t n,
                               size_t n_uid)
{
    size_t m = n_uid ? n_uid : 1;
    o->n_uid = n_uid;
    o->off = calloc(m + 1, sizeof *o->off);
    o->name = malloc(m * sizeof *o->name);
    o->stream = calloc(m, sizeof *o->stream);
    o->has_stream = calloc(m, 1);
    o->ts = calloc(m, sizeof *o->ts);
    o->te = calloc(m, sizeof *o->te);
    if (!o->off || !o->name || !o->stream || !o->has_stream || !o->ts ||
        !o->te)
        return TLM_ENOMEM;
    memset(o->name, 0xff, m * sizeof *o->name);
    for (size_t i = 0; i < n; i++) {
        const tlm_ovl_in *e = &in[i];
        size_t u = (size_t)e->uid;
        o->name[u] = e->name;
        o->stream[u] = e->stream;
        o->has_stream[u] = e->has_stream;
        o->ts[u] = e->ts;
        o->te[u] = e->te;
        if (e->name != UINT32_MAX && e->name + 1 > o->n_names)
            o->n_names = e->name + 1;
    }
    return TLM_OK;
}

/* Both directions of the pairs found, per uid in discovery order (which
 * is partner start order).  Errors: TLM_ENOMEM, TLM_ELIMIT (over 2^32). */
static tlm_status fill_pairs(tlm_ovl *o, const sweep *w)
{
    if (w->nf > (UINT32_MAX - 1) / 2)
        return TLM_ELIMIT;
    o->npairs = 2 * w->nf;
    o->pairs = malloc((o->npairs + 1) * sizeof *o->pairs);
    if (!o->pairs)
        return TLM_ENOMEM;
    for (size_t j = 0; j < w->nf; j++) {
        o->off[w->f[j].a + 1]++;
        o->off[w->f[j].b + 1]++;
    }
    for (size_t u = 0; u < o->n_uid; u++)
        o->off[u + 1] += o->off[u];
    uint32_t *fill = malloc((o->n_uid + 1) * sizeof *fill);
    if (!fill)
        return TLM_ENOMEM;
    memcpy(fill, o->off, (o->n_uid + 1) * sizeof *fill);
    for (size_t j = 0; j < w->nf; j++) {
        const found *x = &w->f[j];
        o->pairs[fill[x->a]++] = (tlm_ovl_pair){x->b, x->lo, x->hi};
        o->pairs[fill[x->b]++] = (tlm_ovl_pair){x->a, x->lo, x->hi};
    }
    free(fill);
    return TLM_OK;
}

static void sweep_free(sweep *w)
{
    free(w->o);
    free(w->bk);
    free(w->head);
    free(w->tail);
    free(w->next);
    free(w->prev);
    free(w->nz);
    free(w->nzpos);
    free(w->heap);
    free(w->cand);
    free(w->f);
}

static tlm_status sweep_alloc(sweep *w, const tlm_ovl_in *in, size_t n)
{
    size_t m = n + 2;
    w->o = malloc(m * sizeof *w->o);
    w->bk = malloc(m * sizeof *w->bk);
    w->next = malloc(m * sizeof *w->next);
    w->prev = malloc(m * sizeof *w->prev);
    w->heap = malloc(m * sizeof *w->heap);
    w->cand = malloc(m * sizeof *w->cand);
    if (!w->o || !w->bk || !w->next || !w->prev || !w->heap || !w->cand)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (in[i].sweep && in[i].te > in[i].ts)
            w->o[w->n++] = (ord){in[i].ts, in[i].uid, (uint32_t)i};
    tlm_status st = sort_ord(w->o, w->n);
    if (st == TLM_OK)
        st = make_buckets(w);
    if (st != TLM_OK)
        return st;
    w->head = malloc(w->nb * sizeof *w->head);
    w->tail = malloc(w->nb * sizeof *w->tail);
    w->nz = malloc(w->nb * sizeof *w->nz);
    w->nzpos = malloc(w->nb * sizeof *w->nzpos);
    if (!w->head || !w->tail || !w->nz || !w->nzpos)
        return TLM_ENOMEM;
    memset(w->head, 0xff, w->nb * sizeof *w->head);
    memset(w->tail, 0xff, w->nb * sizeof *w->tail);
    return TLM_OK;
}

tlm_status tlm_ovl_build(const tlm_ovl_in *in, size_t n, size_t n_uid,
                         uint64_t max_work, tlm_ovl *out)
{
    if (n_uid >= INT32_MAX || n >= UINT32_MAX)
        return TLM_ELIMIT;
    for (size_t i = 0; i < n; i++)
        if (in[i].uid < 0 || (size_t)in[i].uid >= n_uid)
            return TLM_EINVAL;
    sweep w;
    tlm_ovl o;
    memset(&w, 0, sizeof w);
    memset(&o, 0, sizeof o);
    w.in = in;
    w.max_work = max_work;
    tlm_status st = sweep_alloc(&w, in, n);
    if (st == TLM_OK)
        st = run_sweep(&w);
    if (st == TLM_OK)
        st = alloc_result(&o, in, n, n_uid);
    if (st == TLM_OK)
        st = fill_pairs(&o, &w);
    sweep_free(&w);
    if (st != TLM_OK) {
        tlm_ovl_free(&o);
        return st;
    }
    *out = o;
    return TLM_OK;
}

void tlm_ovl_free(tlm_ovl *o)
{
    if (!o)
        return;
    free(o->off);
    free(o->pairs);
    free(o->name);
    free(o->stream);
    free(o->has_stream);
    free(o->ts);
    free(o->te);
    memset(o, 0, sizeof *o);
}

const tlm_ovl_pair *tlm_ovl_of(const tlm_ovl *o, int32_t uid, size_t *n)
{
    if (!o || !o->off || uid < 0 || (size_t)uid >= o->n_uid) {
        *n = 0;
        return NULL;
    }
    *n = o->off[uid + 1] - o->off[uid];
    return o->pairs + o->off[uid];
}
