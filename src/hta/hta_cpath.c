/*
 * hta_cpath.c - HTA's critical path on one rank (spec/hta.md §9): the
 * window, the graph's nodes, the three edge passes, the longest path and
 * the attribution of its edges.
 *
 * Window: the annotation events (names containing the annotation, in
 * table order), instances first..last, give [start, end]; kept are the
 * CPU events (stream -1) starting inside with dur > 0, the GPU events
 * whose launch (a CPU event whose index_correlation is the GPU event's
 * index) is such an event, and every Stream Wait Event.  Slots are the
 * kept events by traceEvents index (HTA's union of two indexes); a GPU
 * row the iteration filter repeated is kept once.
 *
 * Nodes: cpu_op, cuda_runtime and cuda_driver events and GPU events with
 * index_correlation >= 0 get a start and an end node, numbered by (time,
 * index, start first).
 */
#include "hta_cpath.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sortutil.h"

const char *tlm_cp_type_name(int type)
{
    static const char *const n[] = {
        "critical_path_operator", "critical_path_dependency",
        "critical_path_kernel_launch_delay",
        "critical_path_kernel_kernel_delay", "critical_path_sync_dependency"};
    return type >= 0 && type < 5 ? n[type] : "";
}

const char *tlm_cp_bound_name(int bound)
{
    static const char *const n[] = {"",
                                    "cpu_bound",
                                    "gpu_communication_bound",
                                    "gpu_compute_bound",
                                    "gpu_kernel_kernel_overhead",
                                    "gpu_kernel_launch_overhead"};
    return bound >= 0 && bound < TLM_CP_BOUND_COUNT ? n[bound] : "";
}

int32_t tlm_cp_slot(const tlm_cp_graph *g, int64_t index)
{
    if (index < 0)
        return -1;
    return tlm_i3map_get(&g->slot_of, index, 0, 0);
}

const tlm_hta_ev *tlm_cp_ev(const tlm_cp_graph *g, int32_t slot)
{
    return &g->ev->ev[g->win[slot]];
}

uint32_t tlm_cp_name_id(const tlm_cp_graph *g, const char *lit)
{
    return tlm_trace_str_find(g->ev->trace, lit, strlen(lit));
}

/* ---------------------------------------------------------------- MARK: -
 * names */

static int has_brackets(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '<' || s[i] == '>' || s[i] == '(' || s[i] == ')')
            return 1;
    }
    return 0;
}

size_t tlm_hta_shorten_name(const char *s, size_t len, char *dst)
{
    size_t n = 0; /* the stack: dst[0..n) */
    if (!has_brackets(s, len))
        goto whole;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '-' && i + 1 < len && s[i + 1] == '>') {
            i++;
            continue;
        }
        if (c == '>' || c == ')') {
            char open = c == '>' ? '<' : '(';
            while (n > 0 && dst[n - 1] != open)
                n--;
            if (n > 0)
                n--;
        } else {
            dst[n++] = c;
        }
    }
    size_t b = n;
    while (b > 0 && dst[b - 1] != ' ')
        b--;
    if (n - b == 0)
        goto whole;
    memmove(dst, dst + b, n - b);
    dst[n - b] = '\0';
    return n - b;
whole:
    memcpy(dst, s, len);
    dst[len] = '\0';
    return len;
}

static int starts(const char *s, size_t len, const char *p)
{
    size_t l = strlen(p);
    return len >= l && memcmp(s, p, l) == 0;
}

int tlm_hta_is_comm_name(const char *s, size_t len)
{
    if (starts(s, len, "nccl") || starts(s, len, "hip") ||
        starts(s, len, "hccl"))
        return 1;
    for (size_t i = 0; i + 10 <= len; i++) {
        if (s[i] == '\n')
            return 0; /* Python's '.' does not match a newline */
        if (memcmp(s + i, "ncclKernel", 10) == 0)
            return 1;
    }
    return 0;
}

/* 1 when s[0..len) contains a[0..alen) (alen > 0). */
static int has_sub(const char *s, size_t len, const char *a, size_t alen)
{
    const char *p = s, *end = s + len;
    while ((size_t)(end - p) >= alen) {
        p = memchr(p, a[0], (size_t)(end - p) - alen + 1);
        if (!p)
            return 0;
        if (memcmp(p, a, alen) == 0)
            return 1;
        p++;
    }
    return 0;
}

static int name_has(const tlm_hta_events *ev, uint32_t name, const char *a,
                    size_t alen)
{
    size_t len = 0;
    const char *s = tlm_trace_str(ev->trace, name, &len);
    return s && has_sub(s, len, a, alen);
}

/* ---------------------------------------------------------------- MARK: -
 * window */

/* [start, end] of the chosen annotation instances; reason set when none. */
static int window_bounds(const tlm_hta_events *ev, const tlm_hta_cp_opts *o,
                         tlm_hta_cpath *out)
{
    out->win_start = INT64_MIN;
    out->win_end = INT64_MAX;
    if (o->annotation_len == 0)
        return 1;
    int64_t k = 0, lo = INT64_MAX, hi = INT64_MIN;
    uint32_t last_name = 0;
    int last_has = 0, have_last = 0;
    for (size_t r = 0; r < ev->n; r++) {
        const tlm_hta_ev *e = &ev->ev[r];
        if (!have_last || e->name != last_name) {
            last_has = name_has(ev, e->name, o->annotation,
                                o->annotation_len);
            last_name = e->name;
            have_last = 1;
        }
        if (!last_has)
            continue;
        if (k >= o->first && k <= o->last) {
            lo = e->ts < lo ? e->ts : lo;
            int64_t end = tlm_cp_add(e->ts, e->dur);
            hi = end > hi ? end : hi;
        }
        k++;
    }
    char raw[96], ann[128];
    size_t al = o->annotation_len < sizeof raw - 1 ? o->annotation_len
                                                   : sizeof raw - 1;
    memcpy(raw, o->annotation, al);
    raw[al] = '\0';
    tlm_escape_ctrl(ann, sizeof ann, raw);
    if (k == 0) {
        snprintf(out->reason, sizeof out->reason,
                 "no event name contains \"%s\"", ann);
        return 0;
    }
    if (lo == INT64_MAX) {
        snprintf(out->reason, sizeof out->reason,
                 "\"%s\" has %lld instances, none in %lld-%lld", ann,
                 (long long)k, (long long)o->first, (long long)o->last);
        return 0;
    }
    out->win_start = lo;
    out->win_end = hi;
    return 1;
}

static int cpu_in(const tlm_hta_ev *e, const tlm_hta_cpath *out)
{
    return e->stream == -1 && e->ts >= out->win_start &&
           e->ts <= out->win_end && e->dur > 0;
}

typedef struct ikey {
    int64_t index;
    int32_t row;
} ikey;
static int ikey_le(const ikey *a, const ikey *b)
{
    return a->index != b->index ? a->index < b->index : a->row <= b->row;
}
TLM_DEFINE_RUN_SORT(sort_ikeys, ikey, ikey_le)

/* Fills g->win (rows by index) and g->slot_of. */
static tlm_status window_rows(tlm_cp_graph *g)
{
    const tlm_hta_events *ev = g->ev;
    tlm_i3map launched; /* GPU indexes some window CPU event points at */
    ikey *k = NULL;
    size_t n = 0, cap = 0;
    uint32_t wait = tlm_cp_name_id(g, "Stream Wait Event");
    tlm_status st = tlm_i3map_init(&launched, 64);
    if (st != TLM_OK)
        return st;
    for (size_t r = 0; r < ev->n; r++) {
        const tlm_hta_ev *e = &ev->ev[r];
        if (!cpu_in(e, g->out))
            continue;
        if (tlm_grow((void **)&k, &cap, n + 1, sizeof *k, 256) != TLM_OK)
            goto oom;
        k[n].index = e->index;
        k[n++].row = (int32_t)r;
        if (e->icorr >= 0 &&
            tlm_i3map_put(&launched, e->icorr, 0, 0, 1) != TLM_OK)
            goto oom;
    }
    for (size_t r = 0; r < ev->n; r++) {
        const tlm_hta_ev *e = &ev->ev[r];
        if (e->stream == -1)
            continue;
        if (tlm_i3map_get(&launched, e->index, 0, 0) < 0 &&
            !(wait != 0 && e->name == wait))
            continue;
        if (tlm_grow((void **)&k, &cap, n + 1, sizeof *k, 256) != TLM_OK)
            goto oom;
        k[n].index = e->index;
        k[n++].row = (int32_t)r;
    }
    if (n >= (size_t)INT32_MAX / 2 || sort_ikeys(k, n) != TLM_OK)
        goto oom; /* slots and node ids are int32 */
    g->win = malloc((n ? n : 1) * sizeof *g->win);
    if (!g->win || tlm_i3map_init(&g->slot_of, n) != TLM_OK)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && k[i].index == k[i - 1].index)
            continue; /* a row the filter repeated */
        if (tlm_i3map_put(&g->slot_of, k[i].index, 0, 0,
                          (int32_t)g->nwin) != TLM_OK)
            goto oom;
        g->win[g->nwin++] = k[i].row;
    }
    free(k);
    tlm_i3map_free(&launched);
    return TLM_OK;
oom:
    free(k);
    tlm_i3map_free(&launched);
    return TLM_ENOMEM;
}

/* ---------------------------------------------------------------- MARK: -
 * nodes */

static int node_le(const tlm_cp_node *a, const tlm_cp_node *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->slot != b->slot)
        return a->slot < b->slot; /* slots are in index order */
    return a->start >= b->start;
}
TLM_DEFINE_RUN_SORT(sort_nodes, tlm_cp_node, node_le)

static int has_nodes(const tlm_hta_ev *e)
{
    return e->cat == TLM_CAT_CPU_OP || e->cat == TLM_CAT_CUDA_RUNTIME ||
           e->cat == TLM_CAT_CUDA_DRIVER || (e->stream != -1 && e->icorr >= 0);
}

static int in_ids(const uint32_t *ids, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++) {
        if (ids[i] != 0 && ids[i] == id)
            return 1;
    }
    return 0;
}

static tlm_status make_nodes(tlm_cp_graph *g)
{
    static const char *const blocking[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
        "cudaEventSynchronize",  "cudaMemcpy",            "cudaMemcpyAsync"};
    static const char *const lock[] = {"cudaHostAlloc", "cudaLaunchKernel",
                                       "cudaMemcpyAsync"};
    uint32_t bid[6], lid[3];
    for (size_t i = 0; i < 6; i++)
        bid[i] = tlm_cp_name_id(g, blocking[i]);
    for (size_t i = 0; i < 3; i++)
        lid[i] = tlm_cp_name_id(g, lock[i]);
    size_t n = g->nwin;
    g->node = malloc((n ? 2 * n : 1) * sizeof *g->node);
    g->start_of = malloc((n ? n : 1) * sizeof *g->start_of);
    g->end_of = malloc((n ? n : 1) * sizeof *g->end_of);
    if (!g->node || !g->start_of || !g->end_of)
        return TLM_ENOMEM;
    for (size_t s = 0; s < n; s++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, (int32_t)s);
        g->start_of[s] = g->end_of[s] = -1;
        if (!has_nodes(e))
            continue;
        tlm_cp_node a = {e->ts, (int32_t)s, 1, 0, 0, 0};
        a.lock = (uint8_t)in_ids(lid, 3, e->name);
        a.blocking = (uint8_t)in_ids(bid, 6, e->name);
        tlm_cp_node b = a;
        b.ts = tlm_cp_add(e->ts, e->dur);
        b.start = 0;
        g->node[g->nn++] = a;
        g->node[g->nn++] = b;
    }
    if (sort_nodes(g->node, g->nn) != TLM_OK)
        return TLM_ENOMEM;
    for (size_t k = 0; k < g->nn; k++) {
        int32_t *m = g->node[k].start ? g->start_of : g->end_of;
        m[g->node[k].slot] = (int32_t)k;
    }
    return TLM_OK;
}

/* ---------------------------------------------------------------- MARK: -
 * the path */

static int bound_of(const tlm_cp_graph *g, const tlm_cp_edge *e)
{
    if (e->type == TLM_CP_KERNEL_DELAY)
        return TLM_CP_BOUND_KK;
    if (e->type == TLM_CP_LAUNCH_DELAY)
        return TLM_CP_BOUND_LAUNCH;
    if (e->type != TLM_CP_OPERATOR)
        return TLM_CP_BOUND_NONE;
    if (e->attr < 0) {
        g->out->n_unattributed++;
        return TLM_CP_BOUND_NONE;
    }
    const tlm_hta_ev *a = tlm_cp_ev(g, e->attr);
    if (a->stream < 0)
        return TLM_CP_BOUND_CPU;
    size_t len = 0;
    const char *nm = tlm_trace_str(g->ev->trace, a->name, &len);
    char *buf = malloc(len + 1);
    if (!buf)
        return -1;
    size_t sl = tlm_hta_shorten_name(nm ? nm : "", nm ? len : 0, buf);
    int comm = tlm_hta_is_comm_name(buf, sl);
    free(buf);
    return comm ? TLM_CP_BOUND_COMM : TLM_CP_BOUND_COMPUTE;
}

static tlm_status path_rows(tlm_cp_graph *g, const int32_t *path, size_t np)
{
    tlm_hta_cpath *out = g->out;
    out->rows = malloc(np * sizeof *out->rows);
    if (!out->rows)
        return TLM_ENOMEM;
    for (size_t i = 0; i + 1 < np; i++) {
        int32_t id = tlm_i3map_get(&g->emap, path[i], path[i + 1], 0);
        const tlm_cp_edge *e = &g->edge[id];
        tlm_hta_cp_row *r = &out->rows[out->n++];
        r->row = e->attr >= 0 ? g->win[e->attr] : -1;
        r->type = e->type;
        int b = bound_of(g, e);
        if (b < 0)
            return TLM_ENOMEM;
        r->bound = (uint8_t)b;
        r->dur_ns = e->w;
        out->bound_ns[r->bound] = tlm_cp_add(out->bound_ns[r->bound], e->w);
        out->bound_edges[r->bound]++;
        out->total_ns = tlm_cp_add(out->total_ns, e->w);
        if (e->w <= -1000)
            out->n_neg_on_path++;
    }
    return TLM_OK;
}

static void graph_free(tlm_cp_graph *g)
{
    free(g->win);
    free(g->start_of);
    free(g->end_of);
    free(g->node);
    free(g->edge);
    tlm_i3map_free(&g->slot_of);
    tlm_i3map_free(&g->emap);
}

void tlm_hta_cpath_free(tlm_hta_cpath *cp)
{
    if (!cp)
        return;
    free(cp->rows);
    cp->rows = NULL;
    cp->n = 0;
}

tlm_status tlm_hta_critical_path(const tlm_hta_events *ev,
                                 const tlm_hta_cp_opts *opts,
                                 tlm_hta_cpath *out, tlm_error *err)
{
    tlm_cp_graph g;
    int32_t *path = NULL;
    size_t np = 0;
    tlm_status st = TLM_ENOMEM;
    if (!ev || !opts || !out)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "critical path: NULL argument");
    memset(out, 0, sizeof *out);
    memset(&g, 0, sizeof g);
    g.ev = ev;
    g.out = out;
    if (!window_bounds(ev, opts, out))
        return TLM_OK;
    if (window_rows(&g) != TLM_OK || make_nodes(&g) != TLM_OK ||
        tlm_i3map_init(&g.emap, 2 * g.nn) != TLM_OK)
        goto done;
    out->n_window = g.nwin;
    out->n_nodes = g.nn;
    if (tlm_cp_pass_lock(&g) != TLM_OK || tlm_cp_pass_stacks(&g) != TLM_OK ||
        tlm_cp_pass_kernels(&g) != TLM_OK)
        goto done;
    out->n_edges = g.ne;
    if (tlm_cp_longest_path(&g, &path, &np) != TLM_OK)
        goto done;
    st = np ? path_rows(&g, path, np) : TLM_OK;
done:
    free(path);
    graph_free(&g);
    if (st != TLM_OK) {
        tlm_hta_cpath_free(out);
        return tlm_error_set(err, st, NULL, -1,
                             "critical path: out of memory");
    }
    return TLM_OK;
}
