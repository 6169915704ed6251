/*
 * rocprof_sheets.c - TraceLens's rocprof report sheets (rocprof_report.h)
 * from the records of a rocprofv3 JSON.
 *
 * TraceLens (Reporting/rocprof_analysis.py) keeps every kernel duration in
 * nanoseconds but labels the columns in microseconds; only gpu_timeline
 * divides.  Compat mode reproduces that (integers where pandas keeps
 * int64), the short-kernel threshold compared with nanoseconds, the
 * cumulative percentages taken in name order before the sort, and the
 * order of pandas' unstable quicksort (npsort.h).  Default mode gives
 * microseconds, the threshold in microseconds, cumulative percentages
 * down the sorted rows and a stable sort.  The statistics follow pandas'
 * groupby (Kahan sums, Welford std, ddof 1) in both modes.
 */
#include "rocprof_report.h"
#include "report_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ivl.h"
#include "npsort.h"

const char *const tlm_rp_sheet_names[TLM_RP_NSHEETS] = {
    "gpu_timeline", "kernel_summary", "kernel_summary_by_category",
    "kernel_details", "short_kernels_summary", "short_kernel_histogram"};

void tlm_rp_sheet_opts_init(tlm_rp_sheet_opts *o)
{
    o->compat = 0;
    o->short_threshold_us = 10.0;
    o->hist_bins = 100;
}

/* ------------------------------------------------------------------ *
 * MARK: - categories
 * ------------------------------------------------------------------ */

static int has_any(const char *low, const char *const *w)
{
    for (; *w; w++)
        if (strstr(low, *w))
            return 1;
    return 0;
}

/* name lowered as Python's str.lower() does for these keywords: ASCII
 * letters, and U+212A KELVIN SIGN (UTF-8 E2 84 AA), whose lower case is
 * ASCII 'k' ("CIJ\u212a..." is a GEMM in TraceLens).  Every other
 * non-ASCII lower case stays non-ASCII or (U+0130) puts U+0307 after the
 * 'i', so it cannot form a keyword; those bytes are copied.  out holds
 * strlen(name) + 1 bytes; at most n bytes of name are read. */
static void rp_lower(const char *name, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == 0xE2 && i + 2 < n && (unsigned char)name[i + 1] == 0x84 &&
            (unsigned char)name[i + 2] == 0xAA) {
            out[o++] = 'k';
            i += 2;
            continue;
        }
        out[o++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    out[o] = 0;
}

const char *tlm_rp_category(const char *name)
{
    static const char *const gemm[] = {"gemm", "matmul", "cijk", NULL};
    static const char *const elt[] = {"elementwise", NULL};
    static const char *const red[] = {"reduce", "sum", NULL};
    static const char *const conv[] = {"conv", NULL};
    static const char *const norm[] = {"norm", NULL};
    static const char *const attn[] = {"flash", "attn", "fmha", NULL};
    static const char *const mem[] = {"copy", "memcpy", NULL};
    char buf[512];
    size_t L = strlen(name);
    /* a name longer than the buffer: look at all of it for the words
     * (on ENOMEM, at its first bytes) */
    char *big = L < sizeof buf ? NULL : malloc(L + 1);
    char *low = big ? big : buf;
    rp_lower(name, big || L < sizeof buf ? L : sizeof buf - 1, low);
    const char *cat = has_any(low, gemm)   ? "GEMM"
                      : has_any(low, elt)  ? "Elementwise"
                      : has_any(low, red)  ? "Reduction"
                      : has_any(low, conv) ? "Convolution"
                      : has_any(low, norm) ? "Normalization"
                      : has_any(low, attn) ? "Attention"
                      : has_any(low, mem)  ? "Memory"
                      : tlm_kernel_is_communication(low) ? "COMM"
                                                         : "Other";
    free(big);
    return cat;
}

/* ------------------------------------------------------------------ *
 * MARK: - shared
 * ------------------------------------------------------------------ */

typedef struct ctx {
    const tlm_rocprof *rp;
    const tlm_rp_kernel *k;
    size_t nk;
    int compat;
    double *dur;     /* per kernel: ns (compat) or us */
    size_t *by_name; /* kernel indices sorted by (name, index) */
} ctx;

static const char *kname(const ctx *c, size_t i, size_t *len)
{
    return tlm_rocprof_str(c->rp, c->k[i].name, len);
}

static int name_cmp(const void *cv, size_t a, size_t b)
{
    const ctx *c = cv;
    size_t la, lb;
    const char *x = kname(c, a, &la), *y = kname(c, b, &lb);
    int r = memcmp(x, y, la < lb ? la : lb);
    if (r == 0 && la != lb)
        r = la < lb ? -1 : 1;
    return r;
}

static tlm_tab *new_tab(const char *name, size_t n, const char *const *cols,
                        const tlm_coltype *ty)
{
    return tlm_tab_new(name, n, cols, ty);
}

/* Sets a duration-valued cell: int64 in compat mode where pandas keeps
 * the int64 of the ns durations, else a double. */
static void set_dur(const ctx *c, tlm_tab *t, size_t r, size_t col,
                    double v)
{
    if (c->compat && t->coltypes[col] == TLM_COL_I64)
        tlm_tab_set_i(t, r, col, (int64_t)llround(v));
    else
        tlm_tab_set_f(t, r, col, v);
}

/* Compat: TraceLens writes `(col / total * 100) if total > 0 else 0`, so
 * when every kernel lasts 0 ns the percentage column is pandas' int 0
 * (and its cumsum too): columns cols[0..n) become int64 zeros. */
static void compat_zero_pct(const ctx *c, tlm_tab *t, double total,
                            const size_t *cols, size_t n)
{
    if (!c->compat || total > 0)
        return;
    for (size_t j = 0; j < n; j++) {
        t->coltypes[cols[j]] = TLM_COL_I64;
        for (size_t r = 0; r < t->nrows; r++)
            tlm_tab_set_i(t, r, cols[j], 0);
    }
}

/* ------------------------------------------------------------------ *
 * MARK: - gpu_timeline
 * ------------------------------------------------------------------ */

static tlm_status sheet_timeline(const ctx *c, tlm_tab **out)
{
    static const char *const cols[] = {"type", "time ms", "percent"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64, TLM_COL_F64};
    tlm_tab *t = new_tab("gpu_timeline", 3, cols, ty);
    *out = t;
    if (!t)
        return TLM_ENOMEM;
    if (c->nk == 0)
        return TLM_OK;
    size_t nc;
    const tlm_rp_copy *cp = tlm_rocprof_copies(c->rp, &nc);
    tlm_ivld *v = malloc((c->nk + nc + 1) * sizeof *v);
    if (!v)
        return TLM_ENOMEM;
    for (size_t i = 0; i < c->nk; i++) {
        v[i].s = (double)c->k[i].start / 1000.0;
        v[i].e = (double)c->k[i].end / 1000.0;
    }
    for (size_t i = 0; i < nc; i++) {
        v[c->nk + i].s = (double)cp[i].start / 1000.0;
        v[c->nk + i].e = (double)cp[i].end / 1000.0;
    }
    double kern = tlm_ivld_union_len(v, c->nk);
    for (size_t i = 0; i < c->nk; i++) { /* the union merged them in place */
        v[i].s = (double)c->k[i].start / 1000.0;
        v[i].e = (double)c->k[i].end / 1000.0;
    }
    double mem = tlm_ivld_union_len(v + c->nk, nc);
    for (size_t i = 0; i < nc; i++) {
        v[c->nk + i].s = (double)cp[i].start / 1000.0;
        v[c->nk + i].e = (double)cp[i].end / 1000.0;
    }
    double busy = tlm_ivld_union_len(v, c->nk + nc);
    free(v);
    const tlm_rp_meta *m = tlm_rocprof_meta(c->rp);
    /* TraceLens: metadata.get("init_time", 0), get("fini_time", 0) */
    double total = (m->has_times & 2 ? (double)m->fini_time / 1000.0 : 0.0) -
                   (m->has_times & 1 ? (double)m->init_time / 1000.0 : 0.0);
    if (m->has_times != 3 && !c->compat) { /* the span of the records */
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t i = 0; i < c->nk; i++) {
            lo = c->k[i].start < lo ? c->k[i].start : lo;
            hi = c->k[i].end > hi ? c->k[i].end : hi;
        }
        for (size_t i = 0; i < nc; i++) {
            lo = cp[i].start < lo ? cp[i].start : lo;
            hi = cp[i].end > hi ? cp[i].end : hi;
        }
        total = (double)hi / 1000.0 - (double)lo / 1000.0;
    }
    double idle = total - busy > 0 ? total - busy : 0.0;
    const char *names[] = {"total_time", "kernel", "memory", "busy_time",
                           "idle"};
    double us[] = {total, kern, mem, busy, idle};
    for (int i = 0; i < 5; i++) {
        long r = tlm_tab_add_row(t);
        if (r < 0)
            return TLM_ENOMEM;
        tlm_tab_set_s(t, (size_t)r, 0, names[i], strlen(names[i]));
        tlm_tab_set_f(t, (size_t)r, 1, us[i] / 1000.0);
        tlm_tab_set_f(t, (size_t)r, 2,
                      i == 0 ? 100.0
                             : (total > 0 ? us[i] / total * 100.0 : 0.0));
    }
    return t->oom ? TLM_ENOMEM : TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - kernel_summary
 * ------------------------------------------------------------------ */

/* Groups of c->by_name: starts[g] .. starts[g + 1]. */
static size_t *groups(const ctx *c, size_t *ng)
{
    size_t *st = malloc((c->nk + 1) * sizeof *st);
    size_t n = 0;
    if (!st)
        return NULL;
    for (size_t i = 0; i < c->nk; i++)
        if (i == 0 || c->k[c->by_name[i]].name != c->k[c->by_name[i - 1]].name)
            st[n++] = i;
    st[n] = c->nk;
    *ng = n;
    return st;
}

/* Descending by a double key (tlm_sort_idx is a stable merge sort). */
static int key_desc(const void *key, size_t a, size_t b)
{
    const double *k = key;
    return k[a] > k[b] ? -1 : k[a] < k[b];
}

/* Row order: compat, pandas' quicksort of the key descending; else a
 * stable descending sort (ties keep their order). */
static tlm_status order_desc(const ctx *c, const double *key, size_t n,
                             size_t *perm)
{
    if (c->compat)
        return tlm_np_nargsort_desc(key, n, perm);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    return tlm_sort_idx(perm, n, key_desc, key);
}

typedef struct gstat {
    double count, sum, mean, median, std, min, max;
} gstat;

static void group_stats(const ctx *c, size_t a, size_t b, double *tmp,
                        gstat *g)
{
    tlm_kahan k = {0, 0};
    size_t n = b - a;
    for (size_t i = a; i < b; i++) {
        tmp[i - a] = c->dur[c->by_name[i]];
        tlm_kahan_add(&k, tmp[i - a]);
    }
    g->count = (double)n;
    g->sum = k.sum;
    g->mean = k.sum / (double)n;
    g->std = tlm_pd_std(tmp, n);
    g->min = g->max = tmp[0];
    for (size_t i = 1; i < n; i++) {
        g->min = tmp[i] < g->min ? tmp[i] : g->min;
        g->max = tmp[i] > g->max ? tmp[i] : g->max;
    }
    g->median = tlm_np_median(tmp, n);
}

static tlm_status sheet_summary(const ctx *c, tlm_tab **out)
{
    static const char *const cols[] = {
        "name", "Count", "Mean Kernel Time (µs)", "Median Kernel Time (µs)",
        "Std Kernel Time (µs)", "Min Kernel Time (µs)",
        "Max Kernel Time (µs)", "Percentage (%)",
        "Cumulative Percentage (%)", "Total Kernel Time (ms)", "Category"};
    static const char *const empty_cols[] = {
        "name", "Count", "Mean Kernel Time (µs)", "Median Kernel Time (µs)",
        "Std Kernel Time (µs)", "Min Kernel Time (µs)",
        "Max Kernel Time (µs)", "Total Kernel Time (ms)", "Percentage (%)",
        "Cumulative Percentage (%)", "Category"};
    tlm_coltype ty[11] = {TLM_COL_STR, TLM_COL_I64, TLM_COL_F64,
                          TLM_COL_F64, TLM_COL_F64, TLM_COL_F64,
                          TLM_COL_F64, TLM_COL_F64, TLM_COL_F64,
                          TLM_COL_F64, TLM_COL_STR};
    if (c->compat)
        ty[5] = ty[6] = TLM_COL_I64; /* min, max of int64 ns */
    int empty_order = c->nk == 0 && c->compat;
    tlm_tab *t = new_tab("kernel_summary", 11, empty_order ? empty_cols : cols,
                         ty);
    *out = t;
    if (!t)
        return TLM_ENOMEM;
    if (c->nk == 0)
        return TLM_OK;
    size_t ng = 0;
    size_t *gs = groups(c, &ng);
    gstat *g = malloc((ng + 1) * sizeof *g);
    double *tmp = malloc((c->nk + 1) * sizeof *tmp);
    double *key = malloc((ng + 1) * sizeof *key);
    size_t *perm = malloc((ng + 1) * sizeof *perm);
    tlm_status st = TLM_ENOMEM;
    if (!gs || !g || !tmp || !key || !perm)
        goto done;
    double total = 0.0;
    for (size_t i = 0; i < ng; i++) {
        group_stats(c, gs[i], gs[i + 1], tmp, &g[i]);
        key[i] = g[i].sum;
    }
    total = c->compat ? 0.0 : tlm_np_sum(key, ng);
    if (c->compat) /* int64 column: an exact sum */
        for (size_t i = 0; i < ng; i++)
            total += g[i].sum;
    if ((st = order_desc(c, key, ng, perm)) != TLM_OK)
        goto done;
    double cum = 0.0;
    double *cumv = tmp; /* compat: cumsum in name order */
    for (size_t i = 0; i < ng; i++) {
        cum += total > 0 ? g[i].sum / total * 100.0 : 0.0;
        cumv[i] = cum;
    }
    cum = 0.0;
    for (size_t r = 0; r < ng; r++) {
        const gstat *x = &g[perm[r]];
        size_t len;
        const char *nm = kname(c, c->by_name[gs[perm[r]]], &len);
        double pct = total > 0 ? x->sum / total * 100.0 : 0.0;
        cum += pct;
        long row = tlm_tab_add_row(t);
        if (row < 0)
            goto done;
        tlm_tab_set_s(t, (size_t)row, 0, nm, len);
        tlm_tab_set_i(t, (size_t)row, 1, (int64_t)x->count);
        tlm_tab_set_f(t, (size_t)row, 2, x->mean);
        tlm_tab_set_f(t, (size_t)row, 3, x->median);
        tlm_tab_set_f(t, (size_t)row, 4, x->std);
        set_dur(c, t, (size_t)row, 5, x->min);
        set_dur(c, t, (size_t)row, 6, x->max);
        tlm_tab_set_f(t, (size_t)row, 7, pct);
        tlm_tab_set_f(t, (size_t)row, 8, c->compat ? cumv[perm[r]] : cum);
        /* compat: ns / 1000 (TraceLens's "ms" are us); else us / 1000 */
        tlm_tab_set_f(t, (size_t)row, 9, x->sum / 1000.0);
        const char *cat = tlm_rp_category(nm);
        tlm_tab_set_s(t, (size_t)row, 10, cat, strlen(cat));
    }
    compat_zero_pct(c, t, total, (const size_t[]){7, 8}, 2);
    st = t->oom ? TLM_ENOMEM : TLM_OK;
done:
    free(gs);
    free(g);
    free(tmp);
    free(key);
    free(perm);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - kernel_summary_by_category
 * ------------------------------------------------------------------ */

static int str_lt(const char *a, const char *b)
{
    return strcmp(a, b) < 0;
}

static tlm_status sheet_by_category(const ctx *c, tlm_tab **out)
{
    static const char *const cols[] = {
        "op category", "Count", "total_direct_kernel_time_ms",
        "Percentage (%)", "Cumulative Percentage (%)"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_I64, TLM_COL_F64,
                                     TLM_COL_F64, TLM_COL_F64};
    tlm_tab *t = new_tab("kernel_summary_by_category", 5, cols, ty);
    *out = t;
    if (!t)
        return TLM_ENOMEM;
    if (c->nk == 0)
        return TLM_OK;
    /* at most 9 categories: sorted by name as pandas' groupby */
    const char *cat[16];
    double cnt[16], sum[16];
    tlm_kahan ks[16];
    size_t nc = 0;
    for (size_t i = 0; i < c->nk; i++) {
        const char *x = tlm_rp_category(kname(c, i, NULL));
        size_t j = 0;
        while (j < nc && strcmp(cat[j], x) != 0)
            j++;
        if (j == nc) {
            cat[nc] = x;
            cnt[nc] = 0;
            ks[nc].sum = ks[nc].comp = 0;
            nc++;
        }
        cnt[j] += 1;
        tlm_kahan_add(&ks[j], c->dur[i]);
    }
    for (size_t i = 1; i < nc; i++) /* insertion sort by name */
        for (size_t j = i; j > 0 && str_lt(cat[j], cat[j - 1]); j--) {
            const char *tc = cat[j];
            double tn = cnt[j];
            tlm_kahan tk = ks[j];
            cat[j] = cat[j - 1];
            cnt[j] = cnt[j - 1];
            ks[j] = ks[j - 1];
            cat[j - 1] = tc;
            cnt[j - 1] = tn;
            ks[j - 1] = tk;
        }
    double ms[16], pct[16], cum[16], c2 = 0.0;
    for (size_t i = 0; i < nc; i++) {
        sum[i] = ks[i].sum;
        ms[i] = sum[i] / 1000.0; /* compat: ns / 1000, TraceLens's quirk */
    }
    double total = tlm_np_sum(ms, nc);
    for (size_t i = 0; i < nc; i++) {
        pct[i] = total > 0 ? ms[i] / total * 100.0 : 0.0;
        c2 += pct[i];
        cum[i] = c2;
    }
    size_t perm[16];
    tlm_status st = order_desc(c, ms, nc, perm);
    if (st != TLM_OK)
        return st;
    c2 = 0.0;
    for (size_t r = 0; r < nc; r++) {
        size_t i = perm[r];
        long row = tlm_tab_add_row(t);
        if (row < 0)
            return TLM_ENOMEM;
        c2 += pct[i];
        tlm_tab_set_s(t, (size_t)row, 0, cat[i], strlen(cat[i]));
        tlm_tab_set_i(t, (size_t)row, 1, (int64_t)cnt[i]);
        tlm_tab_set_f(t, (size_t)row, 2, ms[i]);
        tlm_tab_set_f(t, (size_t)row, 3, pct[i]);
        tlm_tab_set_f(t, (size_t)row, 4, c->compat ? cum[i] : c2);
    }
    compat_zero_pct(c, t, total, (const size_t[]){3, 4}, 2);
    return t->oom ? TLM_ENOMEM : TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - kernel_details
 * ------------------------------------------------------------------ */

static tlm_status sheet_details(const ctx *c, tlm_tab **out)
{
    static const char *const cols[] = {
        "name", "Kernel duration (µs)", "stream", "dispatch_id", "grid_x",
        "grid_y", "grid_z", "block_x", "block_y", "block_z", "agent_id",
        "thread_id"};
    tlm_coltype ty[12];
    for (int i = 0; i < 12; i++)
        ty[i] = TLM_COL_I64;
    ty[0] = TLM_COL_STR;
    ty[1] = c->compat ? TLM_COL_I64 : TLM_COL_F64;
    /* TraceLens: pd.DataFrame() when there is no kernel (no columns) */
    tlm_tab *t = new_tab("kernel_details", c->nk || !c->compat ? 12 : 0,
                         cols, ty);
    *out = t;
    if (!t)
        return TLM_ENOMEM;
    if (c->nk == 0)
        return TLM_OK;
    size_t *perm = malloc(c->nk * sizeof *perm);
    if (!perm)
        return TLM_ENOMEM;
    tlm_status st = order_desc(c, c->dur, c->nk, perm);
    for (size_t r = 0; st == TLM_OK && r < c->nk; r++) {
        const tlm_rp_kernel *k = &c->k[perm[r]];
        long row = tlm_tab_add_row(t);
        if (row < 0) {
            st = TLM_ENOMEM;
            break;
        }
        size_t len;
        const char *nm = kname(c, perm[r], &len);
        tlm_tab_set_s(t, (size_t)row, 0, nm, len);
        set_dur(c, t, (size_t)row, 1, c->dur[perm[r]]);
        int64_t v[] = {k->stream,   k->dispatch_id, k->grid[0], k->grid[1],
                       k->grid[2],  k->block[0],    k->block[1],
                       k->block[2], k->agent,       k->thread_id};
        for (int j = 0; j < 10; j++)
            tlm_tab_set_i(t, (size_t)row, (size_t)(2 + j), v[j]);
    }
    free(perm);
    return st == TLM_OK && t->oom ? TLM_ENOMEM : st;
}

/* ------------------------------------------------------------------ *
 * MARK: - short kernels
 * ------------------------------------------------------------------ */

/* The threshold in the unit of c->dur: microseconds, or in compat mode
 * the same number compared with nanoseconds (TraceLens's quirk). */
static double threshold(const tlm_rp_sheet_opts *o)
{
    return o->short_threshold_us;
}

static tlm_status sheet_short(const ctx *c, const tlm_rp_sheet_opts *o,
                              tlm_tab **out)
{
    static const char *const cols[] = {
        "name", "Short Kernel count", "Short Kernel duration (µs) sum",
        "Short Kernel duration (µs) mean",
        "Short Kernel duration (µs) percent of total time"};
    tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_I64, TLM_COL_F64, TLM_COL_F64,
                        TLM_COL_F64};
    if (c->compat)
        ty[2] = TLM_COL_I64;
    tlm_tab *t = new_tab("short_kernels_summary", 5, cols, ty);
    *out = t;
    if (!t)
        return TLM_ENOMEM;
    double th = threshold(o), total = 0.0;
    for (size_t i = 0; i < c->nk; i++)
        total += c->dur[i]; /* Python's sum, in file order */
    size_t ng = 0;
    size_t *gs = c->nk ? groups(c, &ng) : NULL;
    double *sum = malloc((ng + 1) * sizeof *sum);
    double *cnt = malloc((ng + 1) * sizeof *cnt);
    size_t *rows = malloc((ng + 1) * sizeof *rows);
    tlm_status st = TLM_ENOMEM;
    if ((c->nk && !gs) || !sum || !cnt || !rows)
        goto done;
    size_t nr = 0;
    for (size_t g = 0; g < ng; g++) {
        tlm_kahan k = {0, 0};
        double n = 0;
        for (size_t i = gs[g]; i < gs[g + 1]; i++)
            if (c->dur[c->by_name[i]] < th) {
                tlm_kahan_add(&k, c->dur[c->by_name[i]]);
                n += 1;
            }
        if (n > 0) {
            sum[g] = k.sum;
            cnt[g] = n;
            rows[nr++] = g;
        }
    }
    /* sum descending, then name (unique) ascending: a stable sort of
     * rows in name order (TraceLens's multi-column sort_values) */
    if (tlm_sort_idx(rows, nr, key_desc, sum) != TLM_OK)
        goto done;
    for (size_t r = 0; r < nr; r++) {
        size_t g = rows[r], len;
        const char *nm = kname(c, c->by_name[gs[g]], &len);
        long row = tlm_tab_add_row(t);
        if (row < 0)
            goto done;
        tlm_tab_set_s(t, (size_t)row, 0, nm, len);
        tlm_tab_set_i(t, (size_t)row, 1, (int64_t)cnt[g]);
        set_dur(c, t, (size_t)row, 2, sum[g]);
        tlm_tab_set_f(t, (size_t)row, 3, sum[g] / cnt[g]);
        tlm_tab_set_f(t, (size_t)row, 4,
                      total > 0 ? sum[g] / total * 100.0 : 0.0);
    }
    compat_zero_pct(c, t, total, (const size_t[]){4}, 1);
    st = t->oom ? TLM_ENOMEM : TLM_OK;
done:
    free(gs);
    free(sum);
    free(cnt);
    free(rows);
    return st;
}

/* np.histogram(v, bins): equal bins from min to max (+-0.5 when equal),
 * edges i * step + first, the last edge exact; a value goes to the bin
 * whose edges hold it (the last bin closed). */
static tlm_status sheet_hist(const ctx *c, const tlm_rp_sheet_opts *o,
                             tlm_tab **out)
{
    static const char *const cols[] = {"bin_start", "bin_end", "count"};
    static const tlm_coltype ty[] = {TLM_COL_F64, TLM_COL_F64, TLM_COL_I64};
    tlm_tab *t = new_tab("short_kernel_histogram", 3, cols, ty);
    *out = t;
    if (!t)
        return TLM_ENOMEM;
    double th = threshold(o), lo = INFINITY, hi = -INFINITY;
    size_t n = 0;
    for (size_t i = 0; i < c->nk; i++)
        if (c->dur[i] < th) {
            lo = c->dur[i] < lo ? c->dur[i] : lo;
            hi = c->dur[i] > hi ? c->dur[i] : hi;
            n++;
        }
    if (n == 0 || o->hist_bins <= 0)
        return TLM_OK;
    if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
    }
    size_t nb = (size_t)o->hist_bins;
    double *edge = malloc((nb + 1) * sizeof *edge);
    int64_t *cnt = calloc(nb, sizeof *cnt);
    if (!edge || !cnt) {
        free(edge);
        free(cnt);
        return TLM_ENOMEM;
    }
    double step = (hi - lo) / (double)nb;
    for (size_t i = 0; i < nb; i++)
        edge[i] = (double)i * step + lo;
    edge[nb] = hi;
    for (size_t i = 0; i < c->nk; i++) {
        double x = c->dur[i];
        if (!(x < th))
            continue;
        double f = (x - lo) / (hi - lo) * (double)nb;
        size_t b = f >= (double)nb ? nb - 1 : (size_t)f;
        if (b > 0 && x < edge[b])
            b--;
        if (b + 1 < nb && x >= edge[b + 1])
            b++;
        cnt[b]++;
    }
    for (size_t i = 0; i < nb; i++) {
        long row = tlm_tab_add_row(t);
        if (row < 0)
            break;
        tlm_tab_set_f(t, (size_t)row, 0, edge[i]);
        tlm_tab_set_f(t, (size_t)row, 1, edge[i + 1]);
        tlm_tab_set_i(t, (size_t)row, 2, cnt[i]);
    }
    free(edge);
    free(cnt);
    return t->oom || t->nrows != nb ? TLM_ENOMEM : TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - all sheets
 * ------------------------------------------------------------------ */

tlm_status tlm_rocprof_sheets(const tlm_rocprof *rp,
                              const tlm_rp_sheet_opts *o,
                              tlm_tab *tabs[TLM_RP_NSHEETS], tlm_error *err)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.rp = rp;
    c.k = tlm_rocprof_kernels(rp, &c.nk);
    c.compat = o->compat;
    for (int i = 0; i < TLM_RP_NSHEETS; i++)
        tabs[i] = NULL;
    c.dur = malloc((c.nk + 1) * sizeof *c.dur);
    c.by_name = malloc((c.nk + 1) * sizeof *c.by_name);
    tlm_status st = c.dur && c.by_name ? TLM_OK : TLM_ENOMEM;
    for (size_t i = 0; st == TLM_OK && i < c.nk; i++) {
        double ns = (double)(c.k[i].end - c.k[i].start);
        c.dur[i] = c.compat ? ns : ns / 1000.0;
        c.by_name[i] = i;
    }
    if (st == TLM_OK)
        st = tlm_sort_idx(c.by_name, c.nk, name_cmp, &c);
    if (st == TLM_OK)
        st = sheet_timeline(&c, &tabs[0]);
    if (st == TLM_OK)
        st = sheet_summary(&c, &tabs[1]);
    if (st == TLM_OK)
        st = sheet_by_category(&c, &tabs[2]);
    if (st == TLM_OK)
        st = sheet_details(&c, &tabs[3]);
    if (st == TLM_OK)
        st = sheet_short(&c, o, &tabs[4]);
    if (st == TLM_OK)
        st = sheet_hist(&c, o, &tabs[5]);
    free(c.dur);
    free(c.by_name);
    if (st != TLM_OK) {
        for (int i = 0; i < TLM_RP_NSHEETS; i++) {
            tlm_tab_free(tabs[i]);
            tabs[i] = NULL;
        }
        return tlm_error_set(err, st, NULL, -1,
                             "rocprof sheets: out of memory");
    }
    return TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - busy time for the multi-rank analysis
 * ------------------------------------------------------------------ */

tlm_status tlm_rocprof_busy(const tlm_rocprof *rp, tlm_rp_busy *out)
{
    size_t nk, nc;
    const tlm_rp_kernel *k = tlm_rocprof_kernels(rp, &nk);
    const tlm_rp_copy *cp = tlm_rocprof_copies(rp, &nc);
    memset(out, 0, sizeof *out);
    tlm_ivl *v = malloc((nk + nc + 1) * sizeof *v);
    if (!v)
        return TLM_ENOMEM;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t n = 0;
    for (size_t i = 0; i < nk; i++) {
        if (!tlm_kernel_is_communication(tlm_rocprof_str(rp, k[i].name,
                                                         NULL)))
            continue;
        v[n].s = k[i].start;
        v[n++].e = k[i].end;
    }
    out->n_comm_kernels = (int64_t)n;
    out->comm_ns = tlm_ivl_union_len(v, n);
    n = 0;
    for (size_t i = 0; i < nk; i++) {
        if (tlm_kernel_is_communication(tlm_rocprof_str(rp, k[i].name,
                                                        NULL)))
            continue;
        v[n].s = k[i].start;
        v[n++].e = k[i].end;
    }
    out->computation_ns = tlm_ivl_union_len(v, n);
    for (size_t i = 0; i < nk; i++) {
        v[i].s = k[i].start;
        v[i].e = k[i].end;
    }
    out->kernel_ns = tlm_ivl_union_len(v, nk);
    for (size_t i = 0; i < nc; i++) {
        v[i].s = cp[i].start;
        v[i].e = cp[i].end;
    }
    out->memcpy_ns = tlm_ivl_union_len(v, nc);
    for (size_t i = 0; i < nk; i++) {
        v[i].s = k[i].start;
        v[i].e = k[i].end;
    }
    for (size_t i = 0; i < nc; i++) {
        v[nk + i].s = cp[i].start;
        v[nk + i].e = cp[i].end;
    }
    for (size_t i = 0; i < nk + nc; i++) {
        lo = v[i].s < lo ? v[i].s : lo;
        hi = v[i].e > hi ? v[i].e : hi;
    }
    out->busy_ns = tlm_ivl_union_len(v, nk + nc);
    free(v);
    const tlm_rp_meta *m = tlm_rocprof_meta(rp);
    if (m->has_times == 3 && m->fini_time >= m->init_time)
        out->total_ns = m->fini_time - m->init_time;
    else if (nk + nc > 0)
        out->total_ns = hi - lo;
    out->idle_ns = out->total_ns > out->busy_ns ? out->total_ns - out->busy_ns
                                                : 0;
    out->n_events = (int64_t)(nk + nc);
    return TLM_OK;
}
