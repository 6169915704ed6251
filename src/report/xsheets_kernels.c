/*
 * xsheets_kernels.c - kernel_launchers_summary,
 * kernel_launchers_summary_by_category and xla_summary of the JAX report
 * (xsheets.h), as TraceLens's JaxTreePerfAnalyzer builds them:
 *
 * - the kernels: events of GPU-plane threads whose name starts with
 *   "Stream", except names starting with copy/memcpy/memset (any case):
 *   TraceLens's categorizer calls those memcpy/memset, not kernel; in
 *   JAX a kernel is its own launcher, so its "direct kernel time" is its
 *   duration (microseconds);
 * - the op category: the first JaxOpKeys class whose keyword is in the
 *   name, then, when the kernel has an hlo_op, the first class whose
 *   keyword is in the hlo_op (which wins); else "Uncategorized
 *   Events/XLA";
 * - kernel_launchers_summary: grouped by name (byte order), columns
 *   name, total_direct_kernel_time_sum, total_subtree_kernel_time_sum,
 *   total_direct_kernel_time_ms, total_subtree_kernel_time_ms, Count,
 *   Categories (OrderedSet([...]) as TraceLens's shipped JAX CSVs print it in
 *   compat, else a sorted list), Percentage (%), Cumulative
 *   Percentage (%), time ms per gpu (= ms / number of distinct pids),
 *   sorted by the sum descending;
 * - by_category: grouped by op category: op category, Count,
 *   total_direct_kernel_time_ms, Percentage (%), Cumulative Percentage
 *   (%), time ms per gpu;
 * - xla_summary: the summary of the "Uncategorized Events/XLA" kernels
 *   with every decimal digit removed from their names
 *   (loop_slice_fusion_202 -> loop_slice_fusion_).
 * Empty: TraceLens writes an empty DataFrame (a bare CSV); tlmpi writes
 * the header unless tracelens_columns.
 */
#include "xsheets.h"
#include "report_internal.h"

#include <stdlib.h>
#include <string.h>

#include "npsort.h"

#define XK_NCAT 8
#define XK_UNCAT 7

static const char *const cat_names[XK_NCAT] = {
    "GEMM", "FA BWD", "FA FWD", "FA V3", "Conv", "TE",
    "Communication rccl/nccl", "Uncategorized Events/XLA"};

/* Keywords per category (NULL-terminated), TraceLens's JaxOpKeys. */
static const char *const cat_keys[XK_NCAT - 1][6] = {
    {"Cijk", "gemm", "nvjet", "cublasLt", NULL},
    {"FmhaBwd", "flash_bprop", "ck_fused_attn::dk_dv_reduce_thd",
     "fmha_bwd", NULL},
    {"FmhaFwd", "flash_fprop", "fmha_fwd", NULL},
    {"kernel_func", NULL},
    {"FillBuffer", "conv_", "conv.", "conv-", NULL},
    {"transformer_engine", NULL},
    {"rccl", "nccl", NULL},
};

static int match(const char *s)
{
    for (int c = 0; c < XK_NCAT - 1; c++)
        for (int k = 0; cat_keys[c][k]; k++)
            if (strstr(s, cat_keys[c][k]))
                return c;
    return -1;
}

static int category_of(const char *name, const char *hlo)
{
    int c = match(name);
    if (hlo && *hlo) {
        int h = match(hlo);
        if (h >= 0)
            c = h;
    }
    return c < 0 ? XK_UNCAT : c;
}

const char *tlm_xsheets_category(const char *name, const char *hlo_op)
{
    return cat_names[category_of(name, hlo_op)];
}

/* One group of the summaries. */
typedef struct grp {
    const char *key; /* owned by keys (or by the model) */
    int64_t sum_ps;
    int64_t count;
    unsigned cats;   /* bit per category */
    uint8_t first[XK_NCAT]; /* categories in order of first appearance */
    uint8_t nfirst;
} grp;

typedef struct agg {
    grp *g;
    size_t n, cap;
    uint8_t pids[128]; /* distinct pids seen */
    size_t npids;
    char **own;        /* keys made here (digits removed) */
    size_t nown, cap_own;
} agg;

static void agg_free(agg *a)
{
    for (size_t i = 0; i < a->nown; i++)
        free(a->own[i]);
    free(a->own);
    free(a->g);
}

static int not_kernel_name(const char *n)
{
    static const char *const not_k[] = {"copy", "memcpy", "memset"};
    for (int k = 0; k < 3; k++) {
        size_t m = strlen(not_k[k]), i = 0;
        for (; i < m && n[i]; i++) {
            char c = n[i] >= 'A' && n[i] <= 'Z' ? (char)(n[i] + 32) : n[i];
            if (c != not_k[k][i])
                break;
        }
        if (i == m)
            return 1;
    }
    return 0;
}

/* Per string id, computed once: 0 unknown, else 1 + match() (so 0 = no
 * class), and bit 0x40: a copy/memcpy/memset name. */
static uint8_t str_info(const tlm_xplane *x, uint8_t *cache, uint32_t id)
{
    if (!cache[id]) {
        const char *s = tlm_xplane_str(x, id);
        cache[id] = (uint8_t)(0x80 | (1 + match(s)) |
                              (not_kernel_name(s) ? 0x40 : 0));
    }
    return cache[id];
}

/* Per event: its op category when it is a kernel (an event of a
 * "Stream..." thread of a GPU process, pid <= 100, not copy/memcpy/
 * memset), else -1.  NULL on ENOMEM. */
static int8_t *kernel_cats(const tlm_xplane *x)
{
    size_t np, nl, ne;
    const tlm_xp_plane *pl = tlm_xplane_planes(x, &np);
    const tlm_xp_line *ln = tlm_xplane_lines(x, &nl);
    const tlm_xp_event *ev = tlm_xplane_events(x, &ne);
    int8_t *k = malloc(ne + 1);
    uint8_t *cache = calloc(tlm_xplane_str_count(x) + 1, 1);
    uint8_t *stream = calloc(nl + 1, 1);
    if (!k || !cache || !stream) {
        free(k);
        k = NULL;
        goto done;
    }
    for (size_t i = 0; i < nl; i++)
        stream[i] = pl[ln[i].plane].pid <= 100 &&
                    strncmp(ln[i].name, "Stream", 6) == 0;
    for (size_t i = 0; i < ne; i++) {
        uint8_t n = str_info(x, cache, ev[i].name);
        k[i] = -1;
        if (!stream[ev[i].line] || (n & 0x40))
            continue;
        int c = (n & 0x3f) - 1;
        if (ev[i].hlo_op) {
            int h = (str_info(x, cache, ev[i].hlo_op) & 0x3f) - 1;
            if (h >= 0)
                c = h;
        }
        k[i] = (int8_t)(c < 0 ? XK_UNCAT : c);
    }
done:
    free(cache);
    free(stream);
    return k;
}

/* name without decimal digits (owned by a). */
static const char *strip_digits(agg *a, const char *s)
{
    size_t n = strlen(s), k = 0;
    char *o = malloc(n + 1);
    if (!o || tlm_grow((void **)&a->own, &a->cap_own, a->nown + 1,
                       sizeof *a->own, 64) != TLM_OK) {
        free(o);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            o[k++] = s[i];
    o[k] = 0;
    a->own[a->nown++] = o;
    return o;
}

static int grp_le(const grp *p, const grp *q)
{
    return strcmp(p->key, q->key) <= 0;
}
TLM_DEFINE_RUN_SORT(sort_groups, grp, grp_le)

static void add_cat(grp *g, int c)
{
    if (!(g->cats & (1u << c)))
        g->first[g->nfirst++] = (uint8_t)c;
    g->cats |= 1u << c;
}

/* The group of (name id or category) k: slot[k] is its index + 1. */
static grp *group(agg *a, uint32_t *slot, size_t k, const char *key)
{
    if (!slot[k]) {
        if (!key || tlm_grow((void **)&a->g, &a->cap, a->n + 1,
                             sizeof *a->g, 256) != TLM_OK)
            return NULL;
        memset(&a->g[a->n], 0, sizeof a->g[a->n]);
        a->g[a->n].key = key;
        slot[k] = (uint32_t)++a->n;
    }
    return &a->g[slot[k] - 1];
}

/* Groups per name id (ids are dense) or category, then sorted by key and
 * merged where keys are equal (names that differ only by digits). */
static tlm_status gather(const tlm_xplane *x, const int8_t *kc, int xla,
                         int by_cat, agg *a)
{
    size_t ne, np, nl;
    const tlm_xp_event *ev = tlm_xplane_events(x, &ne);
    const tlm_xp_plane *pl = tlm_xplane_planes(x, &np);
    const tlm_xp_line *ln = tlm_xplane_lines(x, &nl);
    memset(a, 0, sizeof *a);
    uint32_t *slot = calloc(tlm_xplane_str_count(x) + XK_NCAT, sizeof *slot);
    if (!slot)
        return TLM_ENOMEM;
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < ne && st == TLM_OK; i++) {
        int c = kc[i];
        if (c < 0 || (xla && c != XK_UNCAT))
            continue;
        const char *nm = tlm_xplane_str(x, ev[i].name);
        grp *g = by_cat ? group(a, slot, (size_t)c, cat_names[c])
                 : slot[ev[i].name]
                     ? &a->g[slot[ev[i].name] - 1]
                     : group(a, slot, ev[i].name,
                             xla ? strip_digits(a, nm) : nm);
        if (!g) {
            st = TLM_ENOMEM;
            break;
        }
        g->sum_ps += ev[i].dur_ps;
        g->count++;
        add_cat(g, c);
        uint32_t pid = pl[ln[ev[i].line].plane].pid;
        a->npids += !a->pids[pid];
        a->pids[pid] = 1;
    }
    free(slot);
    if (st == TLM_OK)
        st = sort_groups(a->g, a->n);
    size_t k = 0;
    for (size_t i = 0; st == TLM_OK && i < a->n; i++) {
        if (k && strcmp(a->g[k - 1].key, a->g[i].key) == 0) {
            a->g[k - 1].sum_ps += a->g[i].sum_ps;
            a->g[k - 1].count += a->g[i].count;
            for (int j = 0; j < a->g[i].nfirst; j++)
                add_cat(&a->g[k - 1], a->g[i].first[j]);
        } else {
            a->g[k++] = a->g[i];
        }
    }
    if (st == TLM_OK)
        a->n = k;
    return st;
}

/* Row order: the sums descending (numpy's quicksort order in compat,
 * else stable on the key order). */
static int by_sum_desc(const void *ctx, size_t i, size_t j)
{
    const agg *a = ctx;
    int64_t x = a->g[i].sum_ps, y = a->g[j].sum_ps;
    return (x < y) - (x > y);
}

static tlm_status order(const agg *a, unsigned compat, size_t *perm)
{
    for (size_t i = 0; i < a->n; i++)
        perm[i] = i;
    if (!(compat & TLM_COMPAT_NP_SORT))
        return tlm_sort_idx(perm, a->n, by_sum_desc, a);
    double *v = malloc((a->n + 1) * sizeof *v);
    if (!v)
        return TLM_ENOMEM;
    for (size_t i = 0; i < a->n; i++)
        v[i] = (double)a->g[i].sum_ps / 1e6;
    tlm_status st = tlm_np_nargsort_desc(v, a->n, perm);
    free(v);
    return st;
}

/* Categories as TraceLens's shipped JAX CSVs print them (compat:
 * "OrderedSet(['GEMM', 'TE'])", first appearance first) or as tlmpi's
 * ops_summary does ("['GEMM', 'TE']", sorted). */
static void cats_repr(const grp *g, int compat, char *buf, size_t cap)
{
    const char *v[XK_NCAT];
    size_t n = 0, k = 0;
    for (int i = 0; i < g->nfirst; i++)
        v[n++] = cat_names[g->first[i]];
    for (size_t i = 1; !compat && i < n; i++)
        for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            const char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    k += (size_t)snprintf(buf, cap, "%s[", compat ? "OrderedSet(" : "");
    for (size_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s'%s'", i ? ", " : "",
                              v[i]);
    if (k < cap)
        snprintf(buf + k, cap - k, "]%s", compat ? ")" : "");
}

static tlm_tab *summary_tab(const char *name, int by_cat)
{
    static const char *const c_sum[] = {
        "name", "total_direct_kernel_time_sum",
        "total_subtree_kernel_time_sum", "total_direct_kernel_time_ms",
        "total_subtree_kernel_time_ms", "Count", "Categories",
        "Percentage (%)", "Cumulative Percentage (%)", "time ms per gpu"};
    static const tlm_coltype t_sum[] = {
        TLM_COL_STR, TLM_COL_F64, TLM_COL_F64, TLM_COL_F64, TLM_COL_F64,
        TLM_COL_I64, TLM_COL_STR, TLM_COL_F64, TLM_COL_F64, TLM_COL_F64};
    static const char *const c_cat[] = {
        "op category", "Count", "total_direct_kernel_time_ms",
        "Percentage (%)", "Cumulative Percentage (%)", "time ms per gpu"};
    static const tlm_coltype t_cat[] = {TLM_COL_STR, TLM_COL_I64,
                                        TLM_COL_F64, TLM_COL_F64,
                                        TLM_COL_F64, TLM_COL_F64};
    return by_cat ? tlm_tab_new(name, 6, c_cat, t_cat)
                  : tlm_tab_new(name, 10, c_sum, t_sum);
}

static void fill_row(tlm_tab *t, size_t r, const grp *g, int by_cat,
                     int compat, double pct, double cum, size_t npids)
{
    size_t c = 0;
    double us = (double)g->sum_ps / 1e6, ms = us / 1000;
    tlm_tab_set_s(t, r, c++, g->key, strlen(g->key));
    if (by_cat) {
        tlm_tab_set_i(t, r, c++, g->count);
        tlm_tab_set_f(t, r, c++, ms);
    } else {
        char cats[256];
        cats_repr(g, compat, cats, sizeof cats);
        tlm_tab_set_f(t, r, c++, us);
        tlm_tab_set_f(t, r, c++, us);
        tlm_tab_set_f(t, r, c++, ms);
        tlm_tab_set_f(t, r, c++, ms);
        tlm_tab_set_i(t, r, c++, g->count);
        tlm_tab_set_s(t, r, c++, cats, strlen(cats));
    }
    tlm_tab_set_f(t, r, c++, pct);
    tlm_tab_set_f(t, r, c++, cum);
    tlm_tab_set_f(t, r, c, ms / (double)npids);
}

static tlm_tab *build(const tlm_xplane *x, const int8_t *kc, unsigned compat,
                      const char *name, int xla, int by_cat)
{
    agg a;
    tlm_tab *t = NULL;
    size_t *perm = NULL;
    if (gather(x, kc, xla, by_cat, &a) != TLM_OK)
        goto done;
    if (a.n == 0 && (compat & TLM_COMPAT_COLUMNS)) { /* empty DataFrame */
        t = tlm_tab_new(name, 0, NULL, NULL);
        goto done;
    }
    t = summary_tab(name, by_cat);
    perm = malloc((a.n + 1) * sizeof *perm);
    if (!t || !perm || order(&a, compat, perm) != TLM_OK)
        goto fail;
    double tot = 0, cum = 0;
    for (size_t i = 0; i < a.n; i++)
        tot += (double)a.g[perm[i]].sum_ps / 1e6 / 1000;
    for (size_t i = 0; i < a.n; i++) {
        const grp *g = &a.g[perm[i]];
        double ms = (double)g->sum_ps / 1e6 / 1000, pct = ms / tot * 100;
        cum += pct;
        long r = tlm_tab_add_row(t);
        if (r < 0)
            goto fail;
        fill_row(t, (size_t)r, g, by_cat, !!(compat & TLM_COMPAT_COLUMNS),
                 pct, cum, a.npids);
    }
    if (!t->oom)
        goto done;
fail:
    tlm_tab_free(t);
    t = NULL;
done:
    free(perm);
    agg_free(&a);
    return t;
}

tlm_status tlm_xsheets_kernels(const tlm_xplane *x, unsigned compat,
                               tlm_tab **summary, tlm_tab **by_cat,
                               tlm_tab **xla)
{
    int8_t *kc = kernel_cats(x);
    *summary = *by_cat = *xla = NULL;
    if (!kc)
        return TLM_ENOMEM;
    *summary = build(x, kc, compat, "kernel_launchers_summary", 0, 0);
    *by_cat = build(x, kc, compat, "kernel_launchers_summary_by_category",
                    0, 1);
    *xla = build(x, kc, compat, "xla_summary", 1, 0);
    free(kc);
    return *summary && *by_cat && *xla ? TLM_OK : TLM_ENOMEM;
}

tlm_status tlm_xsheets_build(const tlm_xplane *x, unsigned compat,
                             tlm_tab **out, tlm_error *err)
{
    const tlm_xplane_stats *s = tlm_xplane_stats_get(x);
    for (int i = 0; i < TLM_XSHEETS_N; i++)
        out[i] = NULL;
    if (s->n_gpu_planes == 0)
        return tlm_error_set(err, TLM_EFORMAT, NULL, -1,
                             "XPlane without GPU planes (/device:GPU:<n>): "
                             "%u plane%s, no GPU to report on",
                             s->n_planes, s->n_planes == 1 ? "" : "s");
    tlm_status st = tlm_xsheets_timeline(x, compat, &out[0], &out[1], err);
    if (st == TLM_OK &&
        tlm_xsheets_kernels(x, compat, &out[2], &out[3], &out[4]) != TLM_OK)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                           "out of memory building the kernel sheets");
    if (st != TLM_OK)
        for (int i = 0; i < TLM_XSHEETS_N; i++) {
            tlm_tab_free(out[i]);
            out[i] = NULL;
        }
    return st;
}
