/*
 * tree.c - Trace2Tree (spec/perfreport.md §2): host call stacks per thread,
 * launch -> GPU event links, fwd/bwd links, GPU-event ranges per subtree.
 *
 * Layout.  Every array is indexed by UID (event index).  Children are kept
 * as first_child / next_sibling lists in insertion order (host children in
 * timestamp order, then GPU children in launch order), as TraceLens's
 * children lists are.  After linking, one stackless pre-order walk numbers
 * the linked GPU events so that the GPU events below any node form one
 * contiguous slice of gpu_order[] (TraceLens copies a gpu_events list into
 * every ancestor instead; same set, O(n) memory here).
 *
 * Time.  Stacks compare double microseconds (ts, ts + dur), as TraceLens
 * does, so that the bleed and touching rules decide exactly as it does;
 * sorting uses the exact int64 nanoseconds (same order, no ties lost).
 *
 * Also here: the int-triple hash map and the stable index sort used by the
 * other report modules (report_internal.h).
 */
#include "tlmpi/tlm_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* MARK: - small containers ---------------------------------------------- */

static uint64_t mix3(int64_t a, int64_t b, int64_t c)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)b + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)c * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

tlm_status tlm_i3map_init(tlm_i3map *m, size_t expect)
{
    size_t cap = 16;
    while (cap < expect * 2 + 1)
        cap <<= 1;
    m->keys = malloc(cap * 3 * sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    m->cap = cap;
    m->count = 0;
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        m->cap = 0;
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        m->vals[i] = -1;
    return TLM_OK;
}

void tlm_i3map_free(tlm_i3map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->count = 0;
}

static tlm_status i3map_grow(tlm_i3map *m)
{
    tlm_i3map n;
    tlm_status st = tlm_i3map_init(&n, m->cap);
    if (st != TLM_OK)
        return st;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] < 0)
            continue;
        const int64_t *k = m->keys + 3 * i;
        size_t j = mix3(k[0], k[1], k[2]) & (n.cap - 1);
        while (n.vals[j] >= 0)
            j = (j + 1) & (n.cap - 1);
        memcpy(n.keys + 3 * j, k, 3 * sizeof *k);
        n.vals[j] = m->vals[i];
        n.count++;
    }
    tlm_i3map_free(m);
    *m = n;
    return TLM_OK;
}

tlm_status tlm_i3map_put(tlm_i3map *m, int64_t a, int64_t b, int64_t c,
                         int32_t v)
{
    if ((m->count + 1) * 2 > m->cap) {
        tlm_status st = i3map_grow(m);
        if (st != TLM_OK)
            return st;
    }
    size_t j = mix3(a, b, c) & (m->cap - 1);
    while (m->vals[j] >= 0) {
        const int64_t *k = m->keys + 3 * j;
        if (k[0] == a && k[1] == b && k[2] == c) {
            m->vals[j] = v;
            return TLM_OK;
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[3 * j] = a;
    m->keys[3 * j + 1] = b;
    m->keys[3 * j + 2] = c;
    m->vals[j] = v;
    m->count++;
    return TLM_OK;
}

int32_t tlm_i3map_get(const tlm_i3map *m, int64_t a, int64_t b, int64_t c)
{
    if (!m->cap)
        return -1;
    size_t j = mix3(a, b, c) & (m->cap - 1);
    while (m->vals[j] >= 0) {
        const int64_t *k = m->keys + 3 * j;
        if (k[0] == a && k[1] == b && k[2] == c)
            return m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

/* Stable merge sort of indices (bottom-up, one scratch array). */
tlm_status tlm_sort_idx(size_t *idx, size_t n, tlm_idx_cmp cmp,
                        const void *ctx)
{
    if (n < 2)
        return TLM_OK;
    /* already sorted? common for file-ordered data */
    size_t k = 1;
    while (k < n && cmp(ctx, idx[k - 1], idx[k]) <= 0)
        k++;
    if (k == n)
        return TLM_OK;
    size_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return TLM_ENOMEM;
    size_t *src = idx, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                if (cmp(ctx, src[j], src[i]) < 0)
                    dst[o++] = src[j++];
                else
                    dst[o++] = src[i++];
            }
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        size_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof *idx);
    free(tmp);
    return TLM_OK;
}

/* MARK: - tree object ---------------------------------------------------- */

struct tlm_tree {
    const tlm_trace *trace;
    const tlm_event *ev;
    size_t n;
    int32_t *parent;
    int32_t *first_child;
    int32_t *next_sibling;
    int32_t *gpu_lo; /* slice of gpu_order for the subtree */
    int32_t *gpu_hi;
    uint8_t *flags;
    tlm_i3map *fwd; /* bwd node -> fwd op; NULL without sequence numbers */
    tlm_i3map *bwd; /* fwd op -> bwd node */
    int32_t *gpu_order;
    size_t n_gpu_order;
    int32_t *roots;
    size_t n_roots;
    tlm_tree_stats stats;
    double *scratch; /* busy-time pairs */
    size_t scratch_cap;
};

void tlm_tree_opts_init(tlm_tree_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->corr_fallback = 1;
}

int tlm_event_is_gpu(const tlm_event *ev)
{
    return ev->cat == TLM_CAT_KERNEL || ev->cat == TLM_CAT_GPU_MEMSET ||
           ev->cat == TLM_CAT_GPU_MEMCPY;
}

static int has_time(const tlm_event *e)
{
    return (e->flags & TLM_EV_HAS_TS) && (e->flags & TLM_EV_HAS_DUR);
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

typedef struct sort_ctx {
    const tlm_event *ev;
    const int32_t *thread;
} sort_ctx;

typedef struct hkey {
    int64_t ts;
    int32_t th;
    int32_t uid;
} hkey;

static int hkey_le(const hkey *a, const hkey *b)
{
    if (a->th != b->th)
        return a->th < b->th;
    if (a->ts != b->ts)
        return a->ts < b->ts;
    return a->uid <= b->uid;
}

/* Bottom-up merge sort by (thread, ts, UID); UIDs are distinct, so the
 * order is total and stability is moot. */
static tlm_status sort_hkeys(hkey *a, size_t n)
{
    size_t k = 1;
    while (k < n && hkey_le(&a[k - 1], &a[k]))
        k++;
    if (k >= n)
        return TLM_OK;
    hkey *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return TLM_ENOMEM;
    hkey *src = a, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            if (mid < hi && hkey_le(&src[mid - 1], &src[mid])) {
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
                continue;
            }
            while (i < mid && j < hi)
                dst[o++] = hkey_le(&src[i], &src[j]) ? src[i++] : src[j++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        hkey *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
    return TLM_OK;
}

static int cmp_ts_uid(const void *vctx, size_t a, size_t b)
{
    const sort_ctx *c = vctx;
    int64_t xa = c->ev[a].ts, xb = c->ev[b].ts;
    if (xa != xb)
        return xa < xb ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Children are prepended while building (no last-child array: 4 bytes per
 * event saved) and every list is reversed once at the end, which restores
 * insertion order. */
static void add_child(tlm_tree *t, int32_t p, int32_t c)
{
    t->parent[c] = p;
    t->next_sibling[c] = t->first_child[p];
    t->first_child[p] = c;
}

static void reverse_children(tlm_tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        int32_t prev = -1, c = t->first_child[i];
        while (c >= 0) {
            int32_t nx = t->next_sibling[c];
            t->next_sibling[c] = prev;
            prev = c;
            c = nx;
        }
        t->first_child[i] = prev;
    }
}

void tlm_tree_free(tlm_tree *t)
{
    if (!t)
        return;
    free(t->parent);
    free(t->first_child);
    free(t->next_sibling);
    free(t->gpu_lo);
    free(t->gpu_hi);
    free(t->flags);
    if (t->fwd)
        tlm_i3map_free(t->fwd);
    if (t->bwd)
        tlm_i3map_free(t->bwd);
    free(t->fwd);
    free(t->bwd);
    free(t->gpu_order);
    free(t->roots);
    free(t->scratch);
    free(t);
}

/* MARK: - host stacks ---------------------------------------------------- */

static int host_cat(const tlm_event *e, const tlm_tree_opts *o)
{
    return e->cat == TLM_CAT_CPU_OP || e->cat == TLM_CAT_CUDA_RUNTIME ||
           e->cat == TLM_CAT_CUDA_DRIVER ||
           (o->python_functions && e->cat == TLM_CAT_PYTHON_FUNCTION);
}

static tlm_status build_stacks(tlm_tree *t, const tlm_tree_opts *o)
{
    const tlm_event *ev = t->ev;
    tlm_status st = TLM_OK;
    tlm_i3map threads = {0};
    size_t nh = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (ev[i].ph == 'X' && host_cat(&ev[i], o)) {
            if (!has_time(&ev[i])) {
                t->stats.n_no_time++;
                continue;
            }
            nh++;
        }
    }
    t->stats.n_host = nh;
    size_t *idx = malloc((nh ? nh : 1) * sizeof *idx);
    /* gpu_lo / gpu_hi are not used before number_gpu(): borrow them as
     * the per-event thread index and the list of roots (no extra n-sized
     * arrays while building) */
    int32_t *thread = t->gpu_lo;
    int32_t *rootbuf = t->gpu_hi;
    int32_t *stack = malloc((nh ? nh : 1) * sizeof *stack);
    size_t *roots = NULL;
    if (!idx || !stack) {
        st = TLM_ENOMEM;
        goto done;
    }
    st = tlm_i3map_init(&threads, 64);
    if (st != TLM_OK)
        goto done;
    int32_t nthreads = 0, last_th = -1;
    int64_t last_pid = 0, last_tid = 0, last_fl = 0;
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tlm_event *e = &ev[i];
        if (e->ph != 'X' || !host_cat(e, o) || !has_time(e))
            continue;
        int64_t fl = e->flags & (TLM_EV_PID_STR | TLM_EV_TID_STR);
        int32_t th;
        if (nthreads && e->pid == last_pid && e->tid == last_tid &&
            fl == last_fl) {
            thread[i] = last_th;
            idx[k++] = i;
            t->flags[i] |= TLM_NODE_HOST;
            continue;
        }
        th = tlm_i3map_get(&threads, e->pid, e->tid, fl);
        if (th < 0) {
            th = nthreads++;
            st = tlm_i3map_put(&threads, e->pid, e->tid, fl, th);
            if (st != TLM_OK)
                goto done;
        }
        thread[i] = th;
        idx[k++] = i;
        t->flags[i] |= TLM_NODE_HOST;
        last_pid = e->pid;
        last_tid = e->tid;
        last_fl = fl;
        last_th = th;
    }
    sort_ctx sc = {ev, thread};
    {
        /* sort compact (thread, ts, UID) records, no indirection through
         * the events: merge sort, with a fast path for sorted input */
        hkey *hk = malloc((nh ? nh : 1) * sizeof *hk);
        if (!hk) {
            st = TLM_ENOMEM;
            goto done;
        }
        for (size_t q = 0; q < nh; q++) {
            hk[q].th = thread[idx[q]];
            hk[q].uid = (int32_t)idx[q];
            hk[q].ts = ev[idx[q]].ts;
        }
        st = sort_hkeys(hk, nh);
        if (st == TLM_OK)
            for (size_t q = 0; q < nh; q++)
                idx[q] = (size_t)hk[q].uid;
        free(hk);
        if (st != TLM_OK)
            goto done;
    }

    size_t nroots = 0;
    size_t sp = 0;
    int cpu_depth = 0;
    int32_t cur_thread = -1;
    for (size_t q = 0; q < nh; q++) {
        int32_t u = (int32_t)idx[q];
        const tlm_event *e = &ev[u];
        if (thread[u] != cur_thread) {
            cur_thread = thread[u];
            sp = 0;
            cpu_depth = 0;
        }
        double ts = tlm_ev_ts_us(e), te = tlm_ev_end_us(e);
        while (sp && ts >= tlm_ev_end_us(&ev[stack[sp - 1]])) {
            if (ev[stack[sp - 1]].cat == TLM_CAT_CPU_OP)
                cpu_depth--;
            sp--;
        }
        if (sp) {
            double top_end = tlm_ev_end_us(&ev[stack[sp - 1]]);
            int bleeds = o->bleed_tolerance ? te > top_end + 1.0
                                            : te > top_end;
            if (bleeds) {
                double overlap = top_end - ts;
                if (overlap < 1.0 && sp >= 2) {
                    if (ev[stack[sp - 1]].cat == TLM_CAT_CPU_OP)
                        cpu_depth--;
                    sp--;
                    t->stats.n_bleed_sibling++;
                } else {
                    t->flags[u] |= TLM_NODE_BLEED_DROP;
                    t->stats.n_bleed_drop++;
                    continue;
                }
            }
        }
        t->flags[u] |= TLM_NODE_TREE;
        if (sp)
            add_child(t, stack[sp - 1], u);
        stack[sp++] = u;
        if (e->cat == TLM_CAT_CPU_OP) {
            if (cpu_depth == 0) {
                t->flags[u] |= TLM_NODE_CPU_ROOT;
                rootbuf[nroots++] = u;
            }
            cpu_depth++;
        }
    }
    free(idx);
    idx = NULL;
    roots = malloc((nroots ? nroots : 1) * sizeof *roots);
    if (!roots) {
        st = TLM_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < nroots; i++)
        roots[i] = (size_t)rootbuf[i];
    st = tlm_sort_idx(roots, nroots, cmp_ts_uid, &sc);
    if (st != TLM_OK)
        goto done;
    t->roots = malloc((nroots ? nroots : 1) * sizeof *t->roots);
    if (!t->roots) {
        st = TLM_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < nroots; i++)
        t->roots[i] = (int32_t)roots[i];
    t->n_roots = nroots;
    t->stats.n_cpu_roots = nroots;
done:
    tlm_i3map_free(&threads);
    free(idx);
    free(stack);
    free(roots);
    return st;
}

/* MARK: - linking -------------------------------------------------------- */

static int is_graph_launch(const char *name)
{
    return !strcmp(name, "cudaGraphLaunch") ||
           !strcmp(name, "hipGraphLaunch");
}

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

static void link_gpu(tlm_tree *t, int32_t r, int32_t g)
{
    if (t->flags[g] & TLM_NODE_TREE) {
        t->stats.n_gpu_dup_link++;
        return;
    }
    add_child(t, r, g);
    t->flags[g] |= TLM_NODE_TREE;
    t->stats.n_gpu_linked++;
}

static tlm_status link_gpu_events(tlm_tree *t, const tlm_tree_opts *o)
{
    const tlm_event *ev = t->ev;
    const tlm_trace *tr = t->trace;
    tlm_status st = TLM_OK;
    tlm_i3map fs = {0}, ff = {0}, gmap = {0};
    glk *gl = NULL; /* (link id, UID) of GPU events, sorted */
    int key = TLM_ARG_CORRELATION;
    int key_set = 0;
    size_t ngpu = 0, nflow = 0;
    uint32_t nnames = tlm_trace_str_count(tr);
    uint8_t *glc = calloc(nnames ? nnames : 1, 1); /* graph launch name? */
    if (!glc)
        return TLM_ENOMEM;

    for (size_t i = 0; i < t->n; i++) {
        const tlm_event *e = &ev[i];
        if (tlm_ev_gpu(e)) {
            ngpu++;
            t->flags[i] |= TLM_NODE_GPU;
        } else if (e->cat == TLM_CAT_AC2G) {
            nflow++;
        } else if (e->cat == TLM_CAT_CUDA_RUNTIME ||
                   e->cat == TLM_CAT_CUDA_DRIVER) {
            t->flags[i] |= TLM_NODE_RUNTIME;
            t->stats.n_runtime++;
            uint32_t id = e->name;
            if (id < nnames && !glc[id])
                glc[id] = is_graph_launch(tlm_trace_str(tr, id, NULL)) ? 2
                                                                       : 1;
            const char *nm = NULL;
            if (!key_set)
                nm = tlm_trace_str(tr, e->name, NULL);
            if (id < nnames && glc[id] == 2) {
                t->flags[i] |= TLM_NODE_GRAPH_LAUNCH;
                t->stats.n_graph_launches++;
            }
            if (!key_set && name_has_launch(nm)) {
                key_set = 1;
                key = tlm_event_arg(tr, e, TLM_ARG_CORRELATION, NULL) !=
                              TLM_ARGV_NONE
                          ? TLM_ARG_CORRELATION
                          : TLM_ARG_EXTERNAL_ID;
            }
        }
    }
    t->stats.n_gpu = ngpu;
    t->stats.link_key = key;

    if ((st = tlm_i3map_init(&fs, nflow / 2 + 1)) != TLM_OK ||
        (st = tlm_i3map_init(&ff, nflow / 2 + 1)) != TLM_OK ||
        (st = tlm_i3map_init(&gmap, ngpu + 1)) != TLM_OK)
        goto done;
    gl = malloc((ngpu ? ngpu : 1) * sizeof *gl);
    if (!gl) {
        st = TLM_ENOMEM;
        goto done;
    }
    size_t ng = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tlm_event *e = &ev[i];
        if (e->cat == TLM_CAT_AC2G && (e->flags & TLM_EV_HAS_ID)) {
            if (e->ph == 's')
                st = tlm_i3map_put(&fs, e->flow_id, 0, 0, (int32_t)i);
            else if (e->ph == 'f')
                st = tlm_i3map_put(&ff, e->flow_id, 0, 0, (int32_t)i);
            if (st != TLM_OK)
                goto done;
        } else if (t->flags[i] & TLM_NODE_GPU) {
            int64_t lv;
            if (tlm_event_arg_int(tr, e, (tlm_arg)key, &lv)) {
                st = tlm_i3map_put(&gmap, e->pid, e->tid, lv, (int32_t)i);
                if (st != TLM_OK)
                    goto done;
                gl[ng].link = lv;
                gl[ng].uid = (int32_t)i;
                ng++;
            }
        }
    }
    qsort(gl, ng, sizeof *gl, cmp_glk);

    for (size_t i = 0; i < t->n; i++) {
        if (!(t->flags[i] & TLM_NODE_RUNTIME))
            continue;
        const tlm_event *r = &ev[i];
        int64_t k;
        if (!tlm_event_arg_int(tr, r, (tlm_arg)key, &k))
            continue;
        int use_all = (t->flags[i] & TLM_NODE_GRAPH_LAUNCH) != 0;
        if (!use_all) {
            int32_t s = tlm_i3map_get(&fs, k, 0, 0);
            int32_t f = tlm_i3map_get(&ff, k, 0, 0);
            if (s >= 0 && f >= 0) {
                const tlm_event *fe = &ev[f];
                int32_t g = tlm_i3map_get(&gmap, fe->pid, fe->tid,
                                          fe->flow_id);
                if (g < 0) {
                    t->stats.n_flow_bad_target++;
                    continue;
                }
                link_gpu(t, (int32_t)i, g);
                continue;
            }
            if (s >= 0 || f >= 0)
                t->stats.n_flow_half++;
            if (!o->corr_fallback)
                continue;
        }
        /* every GPU event with this link id (graph launch / fallback) */
        size_t lo = 0, hi = ng;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (gl[mid].link < k)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t j = lo; j < ng && gl[j].link == k; j++) {
            int32_t g = gl[j].uid;
            if (!use_all) {
                if (t->flags[g] & TLM_NODE_TREE)
                    continue;
                t->stats.n_corr_fallback++;
            }
            link_gpu(t, (int32_t)i, g);
        }
    }
    t->stats.n_gpu_unlinked = ngpu - t->stats.n_gpu_linked;
done:
    tlm_i3map_free(&fs);
    tlm_i3map_free(&ff);
    tlm_i3map_free(&gmap);
    free(gl);
    free(glc);
    return st;
}

/* MARK: - GPU ranges ----------------------------------------------------- */

static tlm_status number_gpu(tlm_tree *t)
{
    size_t cnt = 0;
    t->gpu_order =
        malloc((t->stats.n_gpu_linked ? t->stats.n_gpu_linked : 1) *
               sizeof *t->gpu_order);
    if (!t->gpu_order)
        return TLM_ENOMEM;
    memset(t->gpu_lo, 0, t->n * sizeof *t->gpu_lo);
    memset(t->gpu_hi, 0, t->n * sizeof *t->gpu_hi);
    for (size_t i = 0; i < t->n; i++) {
        int32_t root = (int32_t)i;
        if (t->parent[root] >= 0 || t->first_child[root] < 0)
            continue;
        int32_t u = root;
        for (;;) {
            t->gpu_lo[u] = (int32_t)cnt;
            if (t->flags[u] & TLM_NODE_GPU)
                t->gpu_order[cnt++] = u;
            if (t->first_child[u] >= 0) {
                u = t->first_child[u];
                continue;
            }
            for (;;) {
                t->gpu_hi[u] = (int32_t)cnt;
                if (u == root)
                    goto next_root;
                if (t->next_sibling[u] >= 0) {
                    u = t->next_sibling[u];
                    break;
                }
                u = t->parent[u];
            }
        }
    next_root:;
    }
    t->n_gpu_order = cnt;
    return TLM_OK;
}

/* MARK: - fwd / bwd ------------------------------------------------------ */

typedef struct seqp {
    int64_t seq;
    int32_t uid;
} seqp;

static int cmp_seqp(const void *x, const void *y)
{
    const seqp *a = x, *b = y;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return (a->uid > b->uid) - (a->uid < b->uid);
}

/* One pass collects (Sequence number, UID) of cpu_ops (Kineto writes the
 * number nowhere else), one sort groups them; the links live in two small
 * hash maps (uid -> uid), not in n-sized arrays. */
static tlm_status link_fwd_bwd(tlm_tree *t)
{
    const tlm_event *ev = t->ev;
    seqp *sp = NULL;
    size_t ns = 0, cap = 0;
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < t->n; i++) {
        int64_t v;
        if (!ev[i].args || ev[i].cat != TLM_CAT_CPU_OP ||
            !tlm_event_arg_int(t->trace, &ev[i], TLM_ARG_SEQUENCE_NUMBER,
                               &v))
            continue;
        if (ns == cap) {
            size_t nc = cap ? cap * 2 : 1024;
            seqp *p = realloc(sp, nc * sizeof *p);
            if (!p) {
                free(sp);
                return TLM_ENOMEM;
            }
            sp = p;
            cap = nc;
        }
        sp[ns].seq = v;
        sp[ns].uid = (int32_t)i;
        ns++;
    }
    if (!ns)
        return TLM_OK;
    qsort(sp, ns, sizeof *sp, cmp_seqp);
    t->fwd = calloc(1, sizeof *t->fwd);
    t->bwd = calloc(1, sizeof *t->bwd);
    if (!t->fwd || !t->bwd || tlm_i3map_init(t->fwd, ns / 2) != TLM_OK ||
        tlm_i3map_init(t->bwd, ns / 2) != TLM_OK) {
        st = TLM_ENOMEM;
        goto done;
    }
    static const char pfx[] = "autograd::engine::evaluate_function:";
    for (size_t a = 0; a < ns && st == TLM_OK;) {
        size_t b = a;
        while (b < ns && sp[b].seq == sp[a].seq)
            b++;
        int32_t bw = -1;
        for (size_t j = a; j < b && bw < 0; j++) {
            const char *nm = tlm_trace_str(t->trace, ev[sp[j].uid].name, NULL);
            if (!strncmp(nm, pfx, sizeof pfx - 1))
                bw = sp[j].uid;
        }
        if (bw >= 0) {
            int32_t fw = -1;
            for (size_t j = a; j < b; j++) {
                const tlm_event *e = &ev[sp[j].uid];
                if (e->pid == ev[bw].pid && e->tid == ev[bw].tid)
                    continue;
                if (fw < 0 || e->ts > ev[fw].ts)
                    fw = sp[j].uid;
            }
            if (fw >= 0) {
                st = tlm_i3map_put(t->fwd, bw, 0, 0, fw);
                if (st == TLM_OK)
                    st = tlm_i3map_put(t->bwd, fw, 0, 0, bw);
                t->stats.n_fwd_bwd++;
            }
        }
        a = b;
    }
done:
    free(sp);
    return st;
}

/* MARK: - build ---------------------------------------------------------- */

tlm_status tlm_tree_build(const tlm_trace *trace, const tlm_tree_opts *opts,
                          tlm_tree **out, tlm_error *err)
{
    tlm_tree_opts defo;
    tlm_status st;
    if (out)
        *out = NULL;
    if (!trace || !out)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_tree_build: NULL trace or out");
    if (!opts) {
        tlm_tree_opts_init(&defo);
        opts = &defo;
    }
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(trace, &n);
    if (!ev && n)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "tree: the trace kept no events");
    if (n > (size_t)INT32_MAX - 1)
        return tlm_error_set(err, TLM_ELIMIT, tlm_trace_path(trace), -1,
                             "tree: %zu events exceed the int32 UID range",
                             n);
    tlm_tree *t = calloc(1, sizeof *t);
    if (!t)
        goto oom;
    t->trace = trace;
    t->ev = ev;
    t->n = n;
    t->stats.n_events = n;
    size_t m = n ? n : 1;
    t->parent = malloc(m * sizeof *t->parent);
    t->first_child = malloc(m * sizeof *t->first_child);
    t->next_sibling = malloc(m * sizeof *t->next_sibling);
    t->gpu_lo = malloc(m * sizeof *t->gpu_lo);
    t->gpu_hi = malloc(m * sizeof *t->gpu_hi);
    t->flags = calloc(m, 1);
    if (!t->parent || !t->first_child || !t->next_sibling || !t->gpu_lo ||
        !t->gpu_hi || !t->flags)
        goto oom;
    uint32_t nnames = tlm_trace_str_count(trace);
    uint8_t *is_mod = calloc(nnames ? nnames : 1, 1); /* 0 ?, 1 no, 2 yes */
    if (!is_mod)
        goto oom;
    /* all bytes 0xff == -1 for int32 */
    memset(t->parent, 0xff, m * sizeof *t->parent);
    memset(t->first_child, 0xff, m * sizeof *t->first_child);
    memset(t->next_sibling, 0xff, m * sizeof *t->next_sibling);
    for (size_t i = 0; i < n; i++) {
        if (ev[i].cat == TLM_CAT_PYTHON_FUNCTION) {
            uint32_t id = ev[i].name;
            if (id < nnames && !is_mod[id]) {
                const char *nm = tlm_trace_str(trace, id, NULL);
                is_mod[id] = strncmp(nm, "nn.Module:", 10) ? 1 : 2;
            }
            if (id < nnames && is_mod[id] == 2)
                t->flags[i] |= TLM_NODE_NN_MODULE;
        }
    }
    free(is_mod);
    st = build_stacks(t, opts);
    if (st == TLM_OK)
        st = link_gpu_events(t, opts);
    if (st == TLM_OK) {
        reverse_children(t);
        st = number_gpu(t);
    }
    if (st == TLM_OK)
        st = link_fwd_bwd(t);
    if (st != TLM_OK) {
        tlm_tree_free(t);
        return tlm_error_set(err, st, tlm_trace_path(trace), -1,
                             "tree: %s while building the call tree",
                             tlm_status_str(st));
    }
    *out = t;
    return TLM_OK;
oom:
    tlm_tree_free(t);
    return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                         "tree: out of memory for %zu events", n);
}

/* MARK: - accessors ------------------------------------------------------ */

const tlm_trace *tlm_tree_trace(const tlm_tree *t) { return t->trace; }
const tlm_tree_stats *tlm_tree_stats_get(const tlm_tree *t)
{
    return &t->stats;
}
size_t tlm_tree_size(const tlm_tree *t) { return t->n; }
int32_t tlm_tree_parent(const tlm_tree *t, int32_t u) { return t->parent[u]; }
int32_t tlm_tree_first_child(const tlm_tree *t, int32_t u)
{
    return t->first_child[u];
}
int32_t tlm_tree_next_sibling(const tlm_tree *t, int32_t u)
{
    return t->next_sibling[u];
}
unsigned tlm_tree_flags(const tlm_tree *t, int32_t u) { return t->flags[u]; }
int32_t tlm_tree_fwd_event(const tlm_tree *t, int32_t u)
{
    return t->fwd ? tlm_i3map_get(t->fwd, u, 0, 0) : -1;
}
int32_t tlm_tree_bwd_event(const tlm_tree *t, int32_t u)
{
    return t->bwd ? tlm_i3map_get(t->bwd, u, 0, 0) : -1;
}

const int32_t *tlm_tree_gpu_events(const tlm_tree *t, int32_t u, size_t *n)
{
    size_t lo = (size_t)t->gpu_lo[u], hi = (size_t)t->gpu_hi[u];
    *n = hi - lo;
    return t->gpu_order + lo;
}

const int32_t *tlm_tree_cpu_roots(const tlm_tree *t, size_t *n)
{
    *n = t->n_roots;
    return t->roots;
}

double tlm_tree_ts_us(const tlm_tree *t, int32_t u)
{
    return tlm_ev_ts_us(&t->ev[u]);
}

double tlm_tree_end_us(const tlm_tree *t, int32_t u)
{
    return tlm_ev_end_us(&t->ev[u]);
}

static int cmp_pair(const void *a, const void *b)
{
    const double *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] < y[1] ? -1 : 1;
    return 0;
}

tlm_status tlm_tree_busy_us(tlm_tree *t, const int32_t *uids, size_t n,
                            double *out)
{
    *out = 0.0;
    if (!n)
        return TLM_OK;
    if (t->scratch_cap < 2 * n) {
        size_t cap = 2 * n + 64;
        double *p = realloc(t->scratch, cap * sizeof *p);
        if (!p)
            return TLM_ENOMEM;
        t->scratch = p;
        t->scratch_cap = cap;
    }
    double *s = t->scratch;
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = tlm_ev_ts_us(&t->ev[uids[i]]);
        s[2 * i + 1] = tlm_ev_end_us(&t->ev[uids[i]]);
        if (i && s[2 * i] < s[2 * i - 2])
            sorted = 0;
    }
    if (!sorted)
        qsort(s, n, 2 * sizeof *s, cmp_pair);
    double total = 0.0, cs = s[0], ce = s[1];
    for (size_t i = 1; i < n; i++) {
        if (s[2 * i] <= ce) {
            if (s[2 * i + 1] > ce)
                ce = s[2 * i + 1];
        } else {
            total += ce - cs;
            cs = s[2 * i];
            ce = s[2 * i + 1];
        }
    }
    total += ce - cs;
    *out = total;
    return TLM_OK;
}

/* MARK: - printing (§2.6, §7.1) ------------------------------------------ */

/* Deeper trees are cut (input-controlled recursion bound). */
#define PRINT_MAX_DEPTH 4096

typedef struct printer {
    tlm_tree *t;
    FILE *out;
    unsigned flags;
    int max_depth;
    tlm_sbuf line;
    tlm_sbuf prefix;
    tlm_status st;
} printer;

static int has_gpu_path(const tlm_tree *t, int32_t u)
{
    return (t->flags[u] & TLM_NODE_GPU) || t->gpu_hi[u] > t->gpu_lo[u];
}

static void put_name64(tlm_sbuf *b, const char *nm)
{
    size_t len = strlen(nm);
    if (len > 64) {
        tlm_sbuf_putn(b, nm, 64);
        tlm_sbuf_puts(b, "..");
    } else {
        tlm_sbuf_putn(b, nm, len);
    }
}

static void node_text(printer *p, int32_t u)
{
    tlm_tree *t = p->t;
    const tlm_event *e = &t->ev[u];
    tlm_sbuf *b = &p->line;
    const char *cat = e->cat_str ? tlm_trace_str(t->trace, e->cat_str, NULL)
                                 : "None";
    tlm_sbuf_printf(b, "UID: %ld, Category: %s, Name: ", (long)u, cat);
    put_name64(b, tlm_trace_str(t->trace, e->name, NULL));
    if (t->flags[u] & TLM_NODE_GPU) {
        tlm_sbuf_puts(b, ", Duration: ");
        tlm_sbuf_pyfloat(b, tlm_ns_to_us(e->dur));
    } else if ((p->flags & TLM_PRINT_GPU_TIME) && has_gpu_path(t, u)) {
        size_t n;
        const int32_t *g = tlm_tree_gpu_events(t, u, &n);
        double busy = 0.0;
        if (tlm_tree_busy_us(t, g, n, &busy) != TLM_OK)
            p->st = TLM_ENOMEM;
        tlm_sbuf_printf(b, ", GPU Time: %.3f us (%zu GPU ops)", busy, n);
    }
}

static void flush_line(printer *p)
{
    if (p->line.oom || p->prefix.oom)
        p->st = TLM_ENOMEM;
    if (p->st == TLM_OK && p->line.len &&
        fwrite(p->line.p, 1, p->line.len, p->out) != p->line.len)
        p->st = TLM_EIO;
    tlm_sbuf_reset(&p->line);
}

static const struct {
    tlm_arg key;
    const char *label;
} shape_fields[] = {{TLM_ARG_INPUT_DIMS, "Input Dims"},
                    {TLM_ARG_INPUT_TYPE, "Input type"},
                    {TLM_ARG_INPUT_STRIDES, "Input Strides"},
                    {TLM_ARG_CONCRETE_INPUTS, "Concrete Inputs"}};

static void print_shapes(printer *p, int32_t u, const char *child_prefix,
                         size_t cplen)
{
    const tlm_event *e = &p->t->ev[u];
    if (!(p->flags & TLM_PRINT_SHAPES) || e->cat != TLM_CAT_CPU_OP)
        return;
    int any = 0;
    for (size_t i = 0; i < sizeof shape_fields / sizeof shape_fields[0];
         i++) {
        size_t len;
        const char *v =
            tlm_event_arg_str(p->t->trace, e, shape_fields[i].key, &len);
        if (!v)
            continue;
        tlm_sbuf_putn(&p->line, child_prefix, cplen);
        tlm_sbuf_printf(&p->line, "|   %s: ", shape_fields[i].label);
        if (tlm_sbuf_json_pyrepr(&p->line, v, len, 0) != 0)
            tlm_sbuf_putn(&p->line, v, len);
        tlm_sbuf_putc(&p->line, '\n');
        any = 1;
    }
    if (any) {
        tlm_sbuf_putn(&p->line, child_prefix, cplen);
        tlm_sbuf_puts(&p->line, "|   \n");
    }
    flush_line(p);
}

static int visible(const printer *p, int32_t c)
{
    return (p->flags & TLM_PRINT_NO_PRUNE) || has_gpu_path(p->t, c);
}

static void print_rec(printer *p, int32_t u, int last, int depth)
{
    if (p->st != TLM_OK)
        return;
    size_t plen = p->prefix.len;
    tlm_sbuf_putn(&p->line, p->prefix.p ? p->prefix.p : "", plen);
    tlm_sbuf_puts(&p->line, last ? "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 "
                                 : "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 ");
    node_text(p, u);
    tlm_sbuf_putc(&p->line, '\n');
    flush_line(p);
    tlm_sbuf_puts(&p->prefix, last ? "    " : "\xe2\x94\x82   ");
    print_shapes(p, u, p->prefix.p, p->prefix.len);
    if ((p->max_depth < 0 || depth < p->max_depth) &&
        depth < PRINT_MAX_DEPTH) {
        int32_t c = p->t->first_child[u];
        while (c >= 0 && !visible(p, c))
            c = p->t->next_sibling[c];
        while (c >= 0 && p->st == TLM_OK) {
            int32_t nx = p->t->next_sibling[c];
            while (nx >= 0 && !visible(p, nx))
                nx = p->t->next_sibling[nx];
            print_rec(p, c, nx < 0, depth + 1);
            c = nx;
        }
    }
    p->prefix.len = plen;
}

static tlm_status printer_done(printer *p, tlm_error *err)
{
    tlm_status st = p->st;
    tlm_sbuf_free(&p->line);
    tlm_sbuf_free(&p->prefix);
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1, "tree: printing failed: %s",
                             tlm_status_str(st));
    return TLM_OK;
}

tlm_status tlm_tree_print(tlm_tree *t, FILE *out, int32_t uid,
                          int max_depth, unsigned flags, tlm_error *err)
{
    if (!t || !out || uid < 0 || (size_t)uid >= t->n)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tree: UID %ld out of range", (long)uid);
    printer p = {t, out, flags, max_depth, {0}, {0}, TLM_OK};
    tlm_sbuf_init(&p.line);
    tlm_sbuf_init(&p.prefix);
    tlm_sbuf_putc(&p.prefix, 0);
    p.prefix.len = 0;
    print_rec(&p, uid, 1, 0);
    return printer_done(&p, err);
}

tlm_status tlm_tree_print_parents(tlm_tree *t, FILE *out, int32_t uid,
                                  unsigned flags, tlm_error *err)
{
    if (!t || !out || uid < 0 || (size_t)uid >= t->n)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tree: UID %ld out of range", (long)uid);
    printer p = {t, out, flags, 0, {0}, {0}, TLM_OK};
    tlm_sbuf_init(&p.line);
    tlm_sbuf_init(&p.prefix);
    int32_t u = uid;
    for (int k = 0; u >= 0 && p.st == TLM_OK && k < PRINT_MAX_DEPTH; k++) {
        if (k == 0)
            tlm_sbuf_puts(&p.line, "Node:\n  ");
        else
            tlm_sbuf_printf(&p.line, "%d-up:\n  ", k);
        node_text(&p, u);
        tlm_sbuf_putc(&p.line, '\n');
        flush_line(&p);
        print_shapes(&p, u, "  ", 2);
        u = t->parent[u];
    }
    if (tlm_tree_fwd_event(t, uid) >= 0) {
        tlm_sbuf_puts(&p.line, "Forward op:\n  ");
        node_text(&p, tlm_tree_fwd_event(t, uid));
        tlm_sbuf_putc(&p.line, '\n');
        flush_line(&p);
    }
    return printer_done(&p, err);
}

/* nn.Module view ---------------------------------------------------------- */

static int32_t module_parent(const tlm_tree *t, int32_t u)
{
    for (u = t->parent[u]; u >= 0; u = t->parent[u])
        if (t->flags[u] & TLM_NODE_NN_MODULE)
            return u;
    return -1;
}

/* Module children of m: DFS over children, a module is taken and not
 * descended into.  Appends to *kids (growing array). */
static tlm_status module_children(const tlm_tree *t, int32_t m,
                                  int32_t **kids, size_t *nk, size_t *cap)
{
    int32_t u = t->first_child[m];
    while (u >= 0) {
        int descend = 0;
        if (t->flags[u] & TLM_NODE_NN_MODULE) {
            if (*nk == *cap) {
                size_t nc = *cap ? *cap * 2 : 16;
                int32_t *p = realloc(*kids, nc * sizeof *p);
                if (!p)
                    return TLM_ENOMEM;
                *kids = p;
                *cap = nc;
            }
            (*kids)[(*nk)++] = u;
        } else if (t->first_child[u] >= 0) {
            descend = 1;
        }
        if (descend) {
            u = t->first_child[u];
            continue;
        }
        while (u >= 0 && u != m && t->next_sibling[u] < 0)
            u = t->parent[u];
        if (u < 0 || u == m)
            break;
        u = t->next_sibling[u];
    }
    return TLM_OK;
}

static void module_rec(printer *p, int32_t m, int last, int depth,
                       double parent_time)
{
    tlm_tree *t = p->t;
    if (p->st != TLM_OK)
        return;
    size_t ng;
    const int32_t *g = tlm_tree_gpu_events(t, m, &ng);
    double gt = 0.0;
    if (tlm_tree_busy_us(t, g, ng, &gt) != TLM_OK) {
        p->st = TLM_ENOMEM;
        return;
    }
    size_t plen = p->prefix.len;
    tlm_sbuf_putn(&p->line, p->prefix.p ? p->prefix.p : "", plen);
    tlm_sbuf_puts(&p->line, last ? "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 "
                                 : "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 ");
    tlm_sbuf_printf(&p->line, "UID: %ld, Name: ", (long)m);
    tlm_sbuf_puts(&p->line, tlm_trace_str(t->trace, t->ev[m].name, NULL));
    tlm_sbuf_printf(&p->line, ", GPU Time: %.2f \xc2\xb5s", gt);
    if (parent_time > 0.0)
        tlm_sbuf_printf(&p->line, ", Pct Parent: %.2f%%",
                        gt / parent_time * 100.0);
    tlm_sbuf_putc(&p->line, '\n');
    flush_line(p);
    tlm_sbuf_puts(&p->prefix, last ? "    " : "\xe2\x94\x82   ");
    int32_t *kids = NULL;
    size_t nk = 0, cap = 0;
    if (module_children(t, m, &kids, &nk, &cap) != TLM_OK) {
        p->st = TLM_ENOMEM;
        free(kids);
        return;
    }
    /* GPU events of m not under any module child: the slices of the module
     * children are disjoint sub-slices of m's slice, in pre-order. */
    int32_t *rest = malloc((ng ? ng : 1) * sizeof *rest);
    size_t nr = 0;
    if (!rest) {
        p->st = TLM_ENOMEM;
        free(kids);
        return;
    }
    int32_t base = t->gpu_lo[m];
    uint8_t *cover = calloc(ng ? ng : 1, 1);
    if (!cover) {
        p->st = TLM_ENOMEM;
        free(rest);
        free(kids);
        return;
    }
    for (size_t i = 0; i < nk; i++)
        for (int32_t j = t->gpu_lo[kids[i]]; j < t->gpu_hi[kids[i]]; j++)
            cover[j - base] = 1;
    for (size_t j = 0; j < ng; j++)
        if (!cover[j])
            rest[nr++] = g[j];
    free(cover);
    double rt = 0.0;
    if (tlm_tree_busy_us(t, rest, nr, &rt) != TLM_OK)
        p->st = TLM_ENOMEM;
    free(rest);
    if ((p->max_depth < 0 || depth < p->max_depth) &&
        depth < PRINT_MAX_DEPTH) {
        for (size_t i = 0; i < nk && p->st == TLM_OK; i++)
            module_rec(p, kids[i], 0, depth + 1, gt);
    }
    if (p->st == TLM_OK) {
        tlm_sbuf_putn(&p->line, p->prefix.p, p->prefix.len);
        tlm_sbuf_printf(&p->line,
                        "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 Non-nn.Module "
                        "GPU Time: %.2f \xc2\xb5s, Pct Parent: %.2f%%\n",
                        rt, gt > 0.0 ? rt / gt * 100.0 : 0.0);
        flush_line(p);
    }
    free(kids);
    p->prefix.len = plen;
}

tlm_status tlm_tree_print_modules(tlm_tree *t, FILE *out, int max_depth,
                                  tlm_error *err)
{
    if (!t || !out)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tree: NULL tree or stream");
    printer p = {t, out, 0, max_depth, {0}, {0}, TLM_OK};
    tlm_sbuf_init(&p.line);
    tlm_sbuf_init(&p.prefix);
    tlm_sbuf_putc(&p.prefix, 0);
    p.prefix.len = 0;
    size_t nroots = 0;
    for (size_t i = 0; i < t->n && p.st == TLM_OK; i++) {
        int32_t u = (int32_t)i;
        if (!(t->flags[u] & TLM_NODE_NN_MODULE) ||
            !(t->flags[u] & TLM_NODE_TREE) || module_parent(t, u) >= 0)
            continue;
        nroots++;
        module_rec(&p, u, 1, 0, 0.0);
    }
    if (p.st == TLM_OK && nroots == 0) {
        tlm_sbuf_puts(&p.line, "no nn.Module events in the tree "
                               "(python_function events needed)\n");
        flush_line(&p);
    }
    /* GPU work outside any module, at the top level. */
    if (p.st == TLM_OK && t->n_gpu_order) {
        double all = 0.0, outside = 0.0;
        int32_t *rest = malloc(t->n_gpu_order * sizeof *rest);
        size_t nr = 0;
        if (!rest) {
            p.st = TLM_ENOMEM;
        } else {
            for (size_t j = 0; j < t->n_gpu_order; j++) {
                int32_t g = t->gpu_order[j];
                int32_t a = t->parent[g];
                while (a >= 0 && !(t->flags[a] & TLM_NODE_NN_MODULE))
                    a = t->parent[a];
                if (a < 0)
                    rest[nr++] = g;
            }
            if (tlm_tree_busy_us(t, t->gpu_order, t->n_gpu_order, &all) !=
                    TLM_OK ||
                tlm_tree_busy_us(t, rest, nr, &outside) != TLM_OK)
                p.st = TLM_ENOMEM;
            free(rest);
            tlm_sbuf_printf(&p.line,
                            "Non-nn.Module GPU Time (top level): %.2f "
                            "\xc2\xb5s of %.2f \xc2\xb5s linked GPU busy "
                            "time (%.2f%%)\n",
                            outside, all,
                            all > 0.0 ? outside / all * 100.0 : 0.0);
            flush_line(&p);
        }
    }
    return printer_done(&p, err);
}
