/*
 * kernels.c - kernel-level tables ([perfreport] §4.5, §4.8, §4.9):
 *
 *   kernel_details_summary   per-position kernel statistics of a group of
 *                            ops, bit-identical to numpy (pairwise sums,
 *                            population std) because TraceLens's tests
 *                            compare these strings exactly;
 *   kernel_summary           every kernel grouped by its parent op's
 *                            category and name, kernel name and stream;
 *   short_kernel_histogram   numpy.histogram of kernels shorter than the
 *                            threshold;
 *   short_kernels_summary    short kernels grouped by parent op + shapes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* MARK: - kernel_details summary ---------------------------------------- */

typedef struct kd_entry {
    int32_t uid; /* template kernel */
    size_t count;
    double total, mean, median, std, min, max;
    int is_int; /* numpy int64 array: total, min, max print as ints */
} kd_entry;

typedef struct kd_sort {
    const kd_entry *e;
    const tlm_rctx *ctx;
} kd_sort;

static int cmp_kd(const void *vc, size_t a, size_t b)
{
    const kd_sort *c = vc;
    const kd_entry *x = &c->e[a], *y = &c->e[b];
    if (x->total != y->total)
        return x->total < y->total ? -1 : 1;
    return strcmp(tlm_rctx_name(c->ctx, x->uid),
                  tlm_rctx_name(c->ctx, y->uid));
}

static void put_stream(tlm_rctx *ctx, tlm_sbuf *b, int32_t u)
{
    int64_t s;
    if (tlm_event_arg_int(ctx->trace, &ctx->ev[u], TLM_ARG_STREAM, &s))
        tlm_sbuf_printf(b, "%lld", (long long)s);
    else
        tlm_sbuf_puts(b, "None");
}

/* A duration statistic: numpy int64 (sum, min, max of integer durations)
 * prints as an integer, else Python's float repr. */
static void put_dur(tlm_sbuf *b, double v, int is_int)
{
    if (is_int && fabs(v) < 9.2e18)
        tlm_sbuf_printf(b, "%lld", (long long)v);
    else
        tlm_sbuf_pyfloat(b, v);
}

void tlm_kd_set(tlm_rctx *ctx, tlm_tab *t, size_t R, size_t col)
{
    if (ctx->s1.oom || ctx->s2.oom)
        t->oom = 1; /* a cut summary would go unnoticed otherwise */
    tlm_tab_set_s(t, R, col, ctx->s1.p ? ctx->s1.p : "", ctx->s1.len);
    if (ctx->s2.len)
        tlm_tab_set_s(t, R, col + 1, ctx->s2.p, ctx->s2.len);
}

void tlm_kd_summary(tlm_rctx *ctx, const int32_t *pool, const size_t *off,
                    const size_t *len, size_t nrows, tlm_sbuf *summary,
                    tlm_sbuf *trunc)
{
    tlm_sbuf_reset(summary);
    tlm_sbuf_reset(trunc);
    size_t tr = nrows;
    for (size_t r = 0; r < nrows; r++)
        if (len[r]) {
            tr = r;
            break;
        }
    if (tr == nrows) {
        tlm_sbuf_puts(summary, "[]");
        return;
    }
    size_t L = len[tr];
    kd_entry *ent = calloc(L, sizeof *ent);
    double *d = malloc(nrows * sizeof *d);
    size_t *ord = malloc(L * sizeof *ord);
    if (!ent || !d || !ord) {
        summary->oom = 1;
        free(ent);
        free(d);
        free(ord);
        return;
    }
    int ints = (ctx->opts.compat & TLM_COMPAT_INT_TIMES) != 0;
    for (size_t i = 0; i < L; i++) {
        size_t k = 0;
        int is_int = ints;
        for (size_t r = 0; r < nrows; r++) {
            size_t ra = r + TLM_PREFETCH_AHEAD;
            if (ra < nrows && len[ra] == L)
                TLM_PREFETCH(&ctx->ev[pool[off[ra] + i]]);
            if (len[r] == L) {
                const tlm_event *ke = &ctx->ev[pool[off[r] + i]];
                d[k++] = tlm_ns_to_us(tlm_ev_dur(ke));
                if (!(ke->tflags & TLM_EVT_DUR_INT))
                    is_int = 0;
            }
        }
        kd_entry *e = &ent[i];
        e->is_int = is_int;
        e->uid = pool[off[tr] + i];
        e->count = k;
        e->total = tlm_np_sum(d, k);
        e->mean = e->total / (double)k;
        e->std = tlm_np_std(d, k, e->mean);
        e->min = e->max = d[0];
        for (size_t q = 1; q < k; q++) {
            if (d[q] < e->min)
                e->min = d[q];
            if (d[q] > e->max)
                e->max = d[q];
        }
        e->median = tlm_np_median(d, k);
        ord[i] = i;
    }
    kd_sort ks = {ent, ctx};
    if (tlm_sort_idx(ord, L, cmp_kd, &ks) != TLM_OK)
        summary->oom = 1;
    tlm_sbuf_putc(summary, '[');
    tlm_sbuf_putc(trunc, '[');
    for (size_t q = 0; q < L; q++) {
        const kd_entry *e = &ent[ord[q]];
        const char *nm = tlm_rctx_name(ctx, e->uid);
        size_t nl = strlen(nm);
        if (q) {
            tlm_sbuf_puts(summary, ", ");
            tlm_sbuf_puts(trunc, ", ");
        }
        tlm_sbuf_puts(summary, "{'name': ");
        tlm_sbuf_pystr(summary, nm, nl);
        tlm_sbuf_puts(summary, ", 'stream': ");
        put_stream(ctx, summary, e->uid);
        tlm_sbuf_printf(summary, ", 'count': %zu, 'total_duration_us': ",
                        e->count);
        put_dur(summary, e->total, e->is_int);
        const struct {
            const char *key;
            double v;
            int is_int;
        } stat[] = {{"mean", e->mean, 0},
                    {"median", e->median, 0},
                    {"std_dev", e->std, 0},
                    {"min", e->min, e->is_int},
                    {"max", e->max, e->is_int}};
        for (size_t k = 0; k < sizeof stat / sizeof stat[0]; k++) {
            tlm_sbuf_printf(summary, ", '%s_duration_us': ", stat[k].key);
            put_dur(summary, stat[k].v, stat[k].is_int);
        }
        tlm_sbuf_putc(summary, '}');

        tlm_sbuf_puts(trunc, "{'name': ");
        if (nl > 64) {
            /* 64 characters (UTF-8 aware) + "..." */
            size_t cut = 0, chars = 0;
            while (cut < nl && chars < 64) {
                cut++;
                while (cut < nl && ((unsigned char)nm[cut] & 0xC0) == 0x80)
                    cut++;
                chars++;
            }
            tlm_sbuf s;
            tlm_sbuf_init(&s);
            tlm_sbuf_putn(&s, nm, cut);
            tlm_sbuf_puts(&s, "...");
            tlm_sbuf_pystr(trunc, s.p ? s.p : "", s.len);
            if (s.oom)
                trunc->oom = 1;
            tlm_sbuf_free(&s);
        } else {
            tlm_sbuf_pystr(trunc, nm, nl);
        }
        tlm_sbuf_puts(trunc, ", 'stream': ");
        put_stream(ctx, trunc, e->uid);
        tlm_sbuf_puts(trunc, ", 'mean_duration_us': ");
        tlm_sbuf_pyfloat(trunc, tlm_np_round2(e->mean));
        tlm_sbuf_putc(trunc, '}');
    }
    tlm_sbuf_putc(summary, ']');
    tlm_sbuf_putc(trunc, ']');
    free(ent);
    free(d);
    free(ord);
}

/* MARK: - per-kernel parent info ---------------------------------------- */

typedef struct kinfo {
    int32_t uid;
    int32_t parent_op; /* nearest cpu_op above the launch, -1 */
    int32_t launcher;  /* runtime event, -1 when unlinked */
    uint32_t name;     /* the kernel's name id */
    double d;          /* duration, us */
    int64_t stream_id; /* tlm_rctx_arg_id of "stream" */
} kinfo;

static int32_t nearest_cpu_op(const tlm_rctx *ctx, int32_t r)
{
    for (int32_t a = tlm_nd(ctx->tree, r)->parent; a >= 0;
         a = tlm_nd(ctx->tree, a)->parent)
        if (tlm_nd(ctx->tree, a)->cat == TLM_CAT_CPU_OP)
            return a;
    return -1;
}

static int ci_has(const char *s, const char *pat)
{
    size_t lp = strlen(pat);
    for (; *s; s++) {
        size_t i = 0;
        while (i < lp && s[i]) {
            char c = s[i];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c + 32);
            if (c != pat[i])
                break;
            i++;
        }
        if (i == lp)
            return 1;
    }
    return 0;
}

/* Parent op category / name of a kernel (NULL = pandas null). */
/* The parent name key of kernel k: the interned id of the op or launch
 * name, -1 without either (read where it is needed, not kept per
 * kernel: the kernel tables run beside unified_perf_summary). */
static int64_t parent_key(const tlm_rctx *ctx, const kinfo *k)
{
    return k->parent_op >= 0  ? (int64_t)ctx->ev[k->parent_op].name
           : k->launcher >= 0 ? (int64_t)ctx->ev[k->launcher].name
                              : -1;
}

static void parent_cols(tlm_rctx *ctx, const kinfo *k, const char **cat,
                        const char **name)
{
    *cat = *name = NULL;
    if (k->parent_op >= 0) {
        *cat = tlm_rctx_op_category(ctx, k->parent_op);
        *name = tlm_rctx_name(ctx, k->parent_op);
        return;
    }
    if (k->launcher >= 0) {
        *name = tlm_rctx_name(ctx, k->launcher);
        *cat = (ci_has(*name, "cudagraph") || ci_has(*name, "graphlaunch"))
                   ? "graph"
                   : "runtime";
    }
}

typedef struct col_ctx {
    const tlm_tab *t;
    size_t col;
} col_ctx;

static int cmp_col_desc(const void *vc, size_t a, size_t b)
{
    const col_ctx *c = vc;
    double x = tlm_tab_cell(c->t, a, c->col)->v.f;
    double y = tlm_tab_cell(c->t, b, c->col)->v.f;
    if (x != y)
        return x > y ? -1 : 1;
    return 0;
}

/* Stable sort of the rows by a double column, descending. */
static tlm_status sort_desc(tlm_tab *t, size_t col)
{
    size_t *perm = malloc((t->nrows + 1) * sizeof *perm);
    if (!perm)
        return TLM_ENOMEM;
    for (size_t r = 0; r < t->nrows; r++)
        perm[r] = r;
    col_ctx cc = {t, col};
    tlm_status st = tlm_sort_idx(perm, t->nrows, cmp_col_desc, &cc);
    if (st == TLM_OK)
        st = tlm_tab_permute(t, perm);
    free(perm);
    return st;
}

typedef struct kgroup {
    kinfo first;   /* the group's first kernel */
    double sum, min, max;
    double comp;   /* Kahan compensation (pandas group_sum) */
    size_t count;
} kgroup;

/* The group of the key in b (a new one starts with kernel x, *g grown
 * as groups come); -1 when out of memory. */
static int32_t kg_of(tlm_i3map *map, const tlm_sbuf *b, size_t *ng,
                     kgroup **g, size_t *cap, const kinfo *x)
{
    int is_new;
    if (tlm_grow((void **)g, cap, *ng + 1, sizeof **g, 64))
        return -1;
    int32_t q = b->oom ? -1 : tlm_group_of(map, b, ng, &is_new);
    if (q >= 0 && is_new) {
        kgroup *k = &(*g)[q];
        k->first = *x;
        k->sum = k->comp = 0.0;
        k->count = 0;
        k->min = k->max = x->d;
    }
    return q;
}

static void kg_add(kgroup *g, double d)
{
    tlm_kahan k = {g->sum, g->comp};
    tlm_kahan_add(&k, d);
    g->sum = k.sum;
    g->comp = k.comp;
}

/* The kernel at position j of the GPU events (a TLM_GPU_KERNEL one). */
static void kinfo_at(tlm_rctx *ctx, size_t j, kinfo *x)
{
    size_t i = (size_t)ctx->gpu[j];
    x->uid = (int32_t)i;
    x->name = ctx->ev[i].name;
    x->d = tlm_ns_to_us(tlm_ev_dur(&(ctx->ev[i])));
    x->stream_id = tlm_rctx_arg_id(ctx, &ctx->ev[i], TLM_ARG_STREAM);
    x->launcher = tlm_nd(ctx->tree, (int32_t)i)->parent;
    x->parent_op = x->launcher >= 0 ? nearest_cpu_op(ctx, x->launcher) : -1;
}

/* kernel_summary: every kernel read where it is used, no array of them
 * (the kernel tables run beside unified_perf_summary); all: the sum of
 * every kernel's duration. */
static tlm_status kernel_summary(tlm_rctx *ctx, double all)
{
    static const char *const cols[] = {
        TLM_COLNAME_KERNEL_PARENT_CATEGORY, TLM_COLNAME_KERNEL_PARENT_OP,
        TLM_COLNAME_KERNEL_NAME, TLM_COLNAME_KERNEL_STREAM,
        TLM_COLNAME_KERNEL_DUR_SUM, TLM_COLNAME_KERNEL_DUR_COUNT,
        TLM_COLNAME_KERNEL_DUR_MEAN, TLM_COLNAME_KERNEL_DUR_MIN,
        TLM_COLNAME_KERNEL_DUR_MAX, TLM_COLNAME_KERNEL_PCT_KERNELS,
        TLM_COLNAME_KERNEL_PCT_TOTAL, "Kernel category"};
    static const tlm_coltype ty[] = {
        TLM_COL_STR, TLM_COL_STR, TLM_COL_STR, TLM_COL_I64,
        TLM_COL_F64, TLM_COL_I64, TLM_COL_F64, TLM_COL_F64,
        TLM_COL_F64, TLM_COL_F64, TLM_COL_F64, TLM_COL_STR};
    /* tlmpi adds "Kernel category" (kernel-name rules of tlm_perf.h) as a
     * last column unless TraceLens's exact columns are asked for */
    size_t ncols = (ctx->opts.compat & TLM_COMPAT_COLUMNS) ? 11 : 12;
    /* GPU-only trace: no "Parent cpu_op" column, no such key (§A8) */
    int no_parent =
        ctx->gpu_only && (ctx->opts.compat & TLM_COMPAT_GPU_ONLY) != 0;
    tlm_status st = TLM_ENOMEM;
    tlm_i3map map = {0};
    kgroup *g = NULL;
    size_t ng = 0, gcap = 0;
    tlm_tab *t = tlm_tab_new(TLM_TABNAME_KERNEL_SUMMARY, ncols, cols, ty);
    if (!t || tlm_i3map_init(&map, 1024) != TLM_OK)
        goto done;
    for (size_t j = 0; j < ctx->ngpu; j++) {
        if (j + TLM_PREFETCH_AHEAD < ctx->ngpu)
            TLM_PREFETCH(&ctx->ev[ctx->gpu[j + TLM_PREFETCH_AHEAD]]);
        if (!(ctx->gpu_fl[j] & TLM_GPU_KERNEL))
            continue;
        kinfo x;
        const char *pcat, *pname;
        kinfo_at(ctx, j, &x);
        parent_cols(ctx, &x, &pcat, &pname);
        double d = x.d;
        tlm_sbuf *b = &ctx->s1;
        tlm_sbuf_reset(b);
        tlm_key_id(b, pcat ? tlm_rctx_cat_index(ctx, pcat) : -1);
        tlm_key_id(b, no_parent ? -1 : parent_key(ctx, &x));
        tlm_key_id(b, x.name);
        tlm_key_id(b, x.stream_id);
        int32_t q = kg_of(&map, b, &ng, &g, &gcap, &x);
        if (q < 0)
            goto done;
        kg_add(&g[q], d);
        g[q].count++;
        if (d < g[q].min)
            g[q].min = d;
        if (d > g[q].max)
            g[q].max = d;
    }
    double tot_us = ctx->tl.total_us;
    for (size_t q = 0; q < ng; q++) {
        long r = tlm_tab_add_row(t);
        if (r < 0)
            goto done;
        size_t R = (size_t)r;
        const kinfo *x = &g[q].first;
        const char *pcat, *pname;
        parent_cols(ctx, x, &pcat, &pname);
        if (pcat)
            tlm_tab_set_s(t, R, 0, pcat, strlen(pcat));
        if (pname)
            tlm_tab_set_s(t, R, 1, pname, strlen(pname));
        const char *nm = tlm_rctx_name(ctx, x->uid);
        tlm_tab_set_s(t, R, 2, nm, strlen(nm));
        int64_t s;
        if (tlm_event_arg_int(ctx->trace, &ctx->ev[x->uid],
                              TLM_ARG_STREAM, &s))
            tlm_tab_set_i(t, R, 3, s);
        tlm_tab_set_f(t, R, 4, g[q].sum);
        tlm_tab_set_i(t, R, 5, (int64_t)g[q].count);
        tlm_tab_set_f(t, R, 6, g[q].sum / (double)g[q].count);
        tlm_tab_set_f(t, R, 7, g[q].min);
        tlm_tab_set_f(t, R, 8, g[q].max);
        tlm_tab_set_f(t, R, 9, g[q].sum / all * 100.0);
        tlm_tab_set_f(t, R, 10, g[q].sum / (tot_us / 1e3 * 1e3) * 100.0);
        if (ncols > 11) {
            const char *kc =
                tlm_kernel_category_str(tlm_kernel_category_of(nm));
            tlm_tab_set_s(t, R, 11, kc, strlen(kc));
        }
    }
    if (no_parent)
        tlm_tab_drop_col(t, 1);
    size_t sc = no_parent ? 3 : 4; /* Kernel duration (µs)_sum */
    if (ctx->opts.compat & TLM_COMPAT_NP_SORT) {
        /* groupby's sorted keys, then numpy's quicksort (§A9) */
        static const size_t keys[] = {0, 1, 2, 3};
        st = tlm_tab_sort_keys_asc(t, keys, NULL, sc);
        if (st == TLM_OK)
            st = tlm_tab_sort_desc_np(t, sc);
    } else {
        st = sort_desc(t, sc); /* a table out of memory: ENOMEM when added */
    }
done:
    tlm_i3map_free(&map);
    free(g);
    return tlm_rctx_finish_tab(ctx, t, st);
}

/* MARK: - short kernels --------------------------------------------------- */

static tlm_status short_histogram(tlm_rctx *ctx, const double *x, size_t n)
{
    static const char *const cols[] = {"bin_start", "bin_end", "count"};
    static const tlm_coltype ty[] = {TLM_COL_F64, TLM_COL_F64, TLM_COL_I64};
    tlm_tab *t = tlm_tab_new("short_kernel_histogram", 3, cols, ty);
    if (!t)
        return TLM_ENOMEM;
    size_t B = ctx->opts.short_kernel_bins > 0
                   ? (size_t)ctx->opts.short_kernel_bins
                   : 100;
    double *edge = malloc((B + 1) * sizeof *edge);
    int64_t *cnt = calloc(B, sizeof *cnt);
    if (!edge || !cnt) {
        free(edge);
        free(cnt);
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    double lo = 0.0, hi = 1.0;
    if (n) {
        lo = hi = x[0];
        for (size_t i = 1; i < n; i++) {
            if (x[i] < lo)
                lo = x[i];
            if (x[i] > hi)
                hi = x[i];
        }
    }
    if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
    }
    double step = (hi - lo) / (double)B;
    for (size_t i = 0; i <= B; i++)
        edge[i] = (double)i * step + lo;
    edge[B] = hi;
    double norm = (double)B / (hi - lo);
    for (size_t i = 0; i < n; i++) {
        long idx = (long)((x[i] - lo) * norm);
        if (idx == (long)B)
            idx--;
        if (idx < 0)
            idx = 0;
        if (idx >= (long)B)
            idx = (long)B - 1;
        if (x[i] < edge[idx])
            idx--;
        if (idx >= 0 && x[i] >= edge[idx + 1] && idx != (long)B - 1)
            idx++;
        if (idx >= 0 && idx < (long)B)
            cnt[idx]++;
    }
    /* TraceLens writes the header only when no kernel is short (§A7) */
    if (!n && (ctx->opts.compat & TLM_COMPAT_SHORT_EMPTY))
        B = 0;
    for (size_t i = 0; i < B; i++) {
        long r = tlm_tab_add_row(t);
        if (r < 0)
            break;
        tlm_tab_set_f(t, (size_t)r, 0, edge[i]);
        tlm_tab_set_f(t, (size_t)r, 1, edge[i + 1]);
        tlm_tab_set_i(t, (size_t)r, 2, cnt[i]);
    }
    free(edge);
    free(cnt);
    if (t->oom) {
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    return tlm_rctx_add_tab(ctx, t);
}

/* short_kernels_summary when no group is left (TraceLens, §A7): no short
 * kernel gives an empty DataFrame, written as one newline (a table
 * without columns); short kernels whose keys are all null give the
 * grouped frame's two header lines (its un-flattened columns) and no
 * rows: the second line is kept as a row of text. */
static tlm_status short_summary_bare(tlm_tab **out, size_t nshort)
{
    static const char *const cols[] = {"Kernel duration (\xc2\xb5s)",
                                       "Kernel duration (\xc2\xb5s)",
                                       "Kernel duration (\xc2\xb5s)"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_STR, TLM_COL_STR};
    static const char *const sub[] = {"sum", "count", "mean"};
    tlm_tab *t = tlm_tab_new("short_kernels_summary", nshort ? 3 : 0, cols,
                             ty);
    if (!t)
        return TLM_ENOMEM;
    if (nshort) {
        long r = tlm_tab_add_row(t);
        for (size_t c = 0; r >= 0 && c < 3; c++)
            tlm_tab_set_s(t, (size_t)r, c, sub[c], strlen(sub[c]));
    }
    if (t->oom) {
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    *out = t;
    return TLM_OK;
}

/* short_kernels_summary over the short kernels ks[0..nk) (in kernel
 * order), their parent names read where they are used. */
static tlm_status short_summary(tlm_rctx *ctx, const kinfo *ki, size_t nk)
{
    static const char *const cols[] = {
        "Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs",
        "Kernel name", "Short Kernel duration (\xc2\xb5s) sum",
        "Short Kernel count", "Short Kernel duration (\xc2\xb5s) mean",
        "Short Kernel duration (\xc2\xb5s) percent of total time"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_STR, TLM_COL_STR,
                                     TLM_COL_STR, TLM_COL_STR, TLM_COL_F64,
                                     TLM_COL_I64, TLM_COL_F64, TLM_COL_F64};
    static const tlm_arg sa[3] = {TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_STRIDES,
                                  TLM_ARG_CONCRETE_INPUTS};
    int drop_null = (ctx->opts.compat & TLM_COMPAT_SHORT_NULL_DROP) != 0;
    /* GPU-only trace: grouped by Kernel name alone (§A8); the columns
     * from "Kernel name" on, o = 4 fewer */
    size_t o =
        ctx->gpu_only && (ctx->opts.compat & TLM_COMPAT_GPU_ONLY) ? 4 : 0;
    double thr = ctx->opts.short_kernel_threshold_us;
    tlm_status st = TLM_ENOMEM;
    tlm_i3map map = {0};
    kgroup *g = NULL;
    size_t ng = 0, gcap = 0, nshort = 0;
    tlm_tab *t =
        tlm_tab_new("short_kernels_summary", 9 - o, cols + o, ty + o);
    if (!t || tlm_i3map_init(&map, 1024) != TLM_OK)
        goto done;
    for (size_t i = 0; i < nk; i++) {
        double d = ki[i].d;
        if (!(d < thr))
            continue;
        nshort++;
        tlm_sbuf *b = &ctx->s1;
        tlm_sbuf_reset(b);
        if (o) {
            tlm_key_id(b, ki[i].name);
            int32_t q = kg_of(&map, b, &ng, &g, &gcap, &ki[i]);
            if (q < 0)
                goto done;
            kg_add(&g[q], d);
            g[q].count++;
            continue;
        }
        const char *pcat, *pname;
        parent_cols(ctx, &ki[i], &pcat, &pname);
        int has_null = pname == NULL;
        tlm_key_id(b, parent_key(ctx, &ki[i]));
        tlm_argv av[3];
        if (ki[i].parent_op >= 0)
            tlm_rctx_args(ctx, &ctx->ev[ki[i].parent_op], sa, 3, av);
        for (int q = 0; q < 3; q++) {
            int64_t v = 0;
            if (ki[i].parent_op >= 0)
                v = tlm_argv_id(&av[q]);
            if (!v)
                has_null = 1;
            tlm_key_id(b, v);
        }
        tlm_key_id(b, ki[i].name);
        if (has_null && drop_null)
            continue;
        int32_t q = kg_of(&map, b, &ng, &g, &gcap, &ki[i]);
        if (q < 0)
            goto done;
        kg_add(&g[q], d);
        g[q].count++;
    }
    if (!ng && (ctx->opts.compat & TLM_COMPAT_SHORT_EMPTY)) {
        tlm_tab_free(t);
        t = NULL;
        st = short_summary_bare(&t, nshort);
        goto done;
    }
    double tot = ctx->tl.total_us / 1e3 * 1e3;
    for (size_t q = 0; q < ng; q++) {
        long r = tlm_tab_add_row(t);
        if (r < 0)
            goto done;
        size_t R = (size_t)r;
        const kinfo *x = &g[q].first;
        const char *pcat, *pname;
        parent_cols(ctx, x, &pcat, &pname);
        if (pname && !o)
            tlm_tab_set_s(t, R, 0, pname, strlen(pname));
        if (x->parent_op >= 0 && !o)
            for (int c = 0; c < 3; c++)
                tlm_rctx_set_arg(ctx, t, R, (size_t)(1 + c),
                                 &ctx->ev[x->parent_op], sa[c], 1);
        const char *nm = tlm_rctx_name(ctx, x->uid);
        tlm_tab_set_s(t, R, 4 - o, nm, strlen(nm));
        tlm_tab_set_f(t, R, 5 - o, g[q].sum);
        tlm_tab_set_i(t, R, 6 - o, (int64_t)g[q].count);
        tlm_tab_set_f(t, R, 7 - o, g[q].sum / (double)g[q].count);
        tlm_tab_set_f(t, R, 8 - o, g[q].sum / tot * 100.0);
    }
    {
        st = sort_desc(t, 5 - o);
        if (st == TLM_OK && ctx->opts.topk_short_kernels >= 0)
            tlm_tab_truncate(t, (size_t)ctx->opts.topk_short_kernels);
        if (st == TLM_OK && t->oom)
            st = TLM_ENOMEM;
    }
done:
    tlm_i3map_free(&map);
    free(g);
    return tlm_rctx_finish_tab(ctx, t, st);
}

/* kernel_summary, short_kernel_histogram and short_kernels_summary.
 * Kept per kernel: its duration (for numpy's pairwise sum over all of
 * them) and, for the short ones only, their kinfo. */
tlm_status tlm_rctx_kernel_tables(tlm_rctx *ctx)
{
    size_t nk = 0, ns = 0, cap_ks = 0, cap_sd = 0;
    for (size_t j = 0; j < ctx->ngpu; j++)
        if (ctx->gpu_fl[j] & TLM_GPU_KERNEL)
            nk++;
    double *durs = tlm_malloc_warm((nk + 1) * sizeof *durs);
    kinfo *ks = NULL;    /* the short kernels */
    double *shortd = NULL;
    int shorts = ctx->opts.short_kernel_study;
    double thr = ctx->opts.short_kernel_threshold_us;
    tlm_status st = TLM_ENOMEM;
    if (!durs)
        goto done;
    size_t k = 0;
    for (size_t j = 0; j < ctx->ngpu; j++) {
        if (!(ctx->gpu_fl[j] & TLM_GPU_KERNEL))
            continue;
        double d = tlm_ns_to_us(tlm_ev_dur(&(ctx->ev[ctx->gpu[j]])));
        durs[k++] = d;
        if (!shorts || !(d < thr))
            continue;
        if (tlm_grow((void **)&ks, &cap_ks, ns + 1, sizeof *ks, 256) ||
            tlm_grow((void **)&shortd, &cap_sd, ns + 1, sizeof *shortd, 256))
            goto done;
        kinfo_at(ctx, j, &ks[ns]);
        shortd[ns++] = d;
    }
    /* pandas Series.sum: numpy's pairwise sum over all kernel rows */
    double all = tlm_np_sum(durs, nk);
    free(durs);
    durs = NULL;
    st = TLM_OK;
    if (ctx->opts.kernel_summary)
        st = kernel_summary(ctx, all);
    if (st == TLM_OK && shorts)
        st = short_histogram(ctx, shortd, ns);
    if (st == TLM_OK && shorts)
        st = short_summary(ctx, ks, ns);
done:
    free(durs);
    free(ks);
    free(shortd);
    return st;
}

/* MARK: - coll_analysis (§4.10) ------------------------------------------- */

static int coll_bpe(const char *dtype)
{
    static const struct {
        const char *n;
        int b;
    } t[] = {{"Float", 4}, {"Int", 4},  {"Long", 8},   {"BFloat16", 2},
             {"Bool", 1},  {"Byte", 1}, {"Double", 8}, {"Half", 2},
             {"Short", 2}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (dtype && !strcmp(dtype, t[i].n))
            return t[i].b;
    return 0;
}

enum { CK_PGN, CK_PGR, CK_COLL, CK_GS, CK_DT, CK_IN, CK_OUT, CK_INS,
       CK_OUTS, CK_STREAM, CK_N };

static const tlm_arg coll_args[CK_N] = {
    TLM_ARG_PG_NAME,        TLM_ARG_PG_RANKS,     TLM_ARG_COLLECTIVE_NAME,
    TLM_ARG_GROUP_SIZE,     TLM_ARG_DTYPE,        TLM_ARG_IN_MSG_NELEMS,
    TLM_ARG_OUT_MSG_NELEMS, TLM_ARG_IN_SPLIT_SIZE, TLM_ARG_OUT_SPLIT_SIZE,
    TLM_ARG_STREAM};

/* Decimal text of v into buf (>= 21 bytes), as "%lld" prints it. */
static void fmt_i64(char *buf, int64_t v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[k++] = '-';
    while (n)
        buf[k++] = tmp[--n];
    buf[k] = '\0';
}

/* Text of one key of a collective kernel; NULL when null.  Integer values
 * print as integers here; columns with any null switch to float text.
 * vals: the event's coll_args (one tlm_rctx_args scan); buf (>= 24 bytes)
 * receives integer text. */
static const char *coll_key(tlm_rctx *ctx, const tlm_event *e,
                            const tlm_argv *vals, int k, int simplified,
                            char *buf, int *is_int, int64_t *iv)
{
    *is_int = 0;
    if (vals[k].type == TLM_ARGV_INT) {
        *is_int = 1;
        *iv = vals[k].i;
        fmt_i64(buf, *iv);
        return buf;
    }
    if (vals[k].type == TLM_ARGV_STR)
        return tlm_trace_str(ctx->trace, vals[k].str, NULL);
    if (k == CK_PGN)
        return simplified ? "all" : "Unknown_Group";
    if (k == CK_COLL) {
        const char *nm = tlm_trace_str(ctx->trace, e->name, NULL);
        if (strstr(nm, "cross_device_reduce"))
            return "allreduce";
    }
    return NULL;
}

/* One row of coll_analysis: the keys of e (the group's first kernel;
 * av receives its arguments), the message sizes and the statistics of the
 * group's m durations d.  -1 when the row cannot be added. */
static int coll_row(tlm_rctx *ctx, tlm_tab *t, const tlm_event *e,
                    const tlm_arg *keys, tlm_argv *av, int simplified,
                    const int *any_null, const double *d, size_t m)
{
    char buf[64];
    long rr = tlm_tab_add_row(t);
    if (rr < 0)
        return -1;
    size_t R = (size_t)rr;
    tlm_rctx_args(ctx, e, keys, CK_N, av);
    tlm_tab_set_i(t, R, 0, 0);
    for (int q = 0; q < CK_N; q++) {
        int isint;
        int64_t iv;
        const char *v =
            coll_key(ctx, e, av, q, simplified, buf, &isint, &iv);
        if (isint && any_null[q]) {
            tlm_sbuf_reset(&ctx->s2);
            tlm_sbuf_pyfloat(&ctx->s2, (double)iv);
            tlm_tab_set_s(t, R, (size_t)(1 + q), ctx->s2.p, ctx->s2.len);
        } else {
            tlm_tab_set_s(t, R, (size_t)(1 + q), v, strlen(v));
        }
    }
    const char *dt = av[CK_DT].type == TLM_ARGV_STR
                         ? tlm_trace_str(ctx->trace, av[CK_DT].str, NULL)
                         : NULL;
    int bpe = coll_bpe(dt);
    if (bpe && av[CK_IN].type == TLM_ARGV_INT)
        tlm_tab_set_f(t, R, 11, (double)av[CK_IN].i * bpe / 1048576.0);
    if (bpe && av[CK_OUT].type == TLM_ARGV_INT)
        tlm_tab_set_f(t, R, 12, (double)av[CK_OUT].i * bpe / 1048576.0);
    double s = tlm_pd_sum(d, m), mn = d[0], mx = d[0];
    for (size_t j = 0; j < m; j++) {
        if (d[j] < mn)
            mn = d[j];
        if (d[j] > mx)
            mx = d[j];
    }
    tlm_tab_set_f(t, R, 13, s);
    tlm_tab_set_f(t, R, 14, s / (double)m);
    tlm_tab_set_f(t, R, 15, tlm_pd_std(d, m));
    tlm_tab_set_f(t, R, 16, mn);
    tlm_tab_set_f(t, R, 17, mx);
    tlm_tab_set_i(t, R, 18, (int64_t)m);
    return 0;
}

/* coll_analysis's row order: by dur_sum descending (ties by the keys in
 * the numpy-sort mode). */
static tlm_status coll_sort(const tlm_rctx *ctx, tlm_tab *t)
{
    if (ctx->opts.compat & TLM_COMPAT_NP_SORT) {
        /* the Python values behind the text: sizes and stream numbers,
         * ranks and split sizes tuples */
        static const size_t kcols[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        static const unsigned char kmode[] = {
            TLM_KEY_NUM,   TLM_KEY_TEXT,  TLM_KEY_TUPLE, TLM_KEY_TEXT,
            TLM_KEY_NUM,   TLM_KEY_TEXT,  TLM_KEY_NUM,   TLM_KEY_NUM,
            TLM_KEY_TUPLE, TLM_KEY_TUPLE, TLM_KEY_NUM};
        tlm_status st = tlm_tab_sort_keys_asc(t, kcols, kmode, 11);
        if (st == TLM_OK)
            st = tlm_tab_sort_desc_np(t, 13);
        return st;
    }
    return sort_desc(t, 13);
}

tlm_status tlm_rctx_coll_analysis(tlm_rctx *ctx)
{
    static const char *const cols[] = {
        "rank", "Process Group Name", "Process Group Ranks",
        "Collective name", "Group size", "dtype", "In msg nelems",
        "Out msg nelems", "In split size", "Out split size", "stream",
        "In msg size (MB)_first", "Out msg size (MB)_first", "dur_sum",
        "dur_mean", "dur_std", "dur_min", "dur_max", "operation_count"};
    tlm_coltype ty[19];
    for (int i = 0; i < 19; i++)
        ty[i] = i <= 10 ? TLM_COL_STR : TLM_COL_F64;
    ty[0] = TLM_COL_I64;
    ty[18] = TLM_COL_I64;
    size_t n = 0, has_pg = 0;
    int64_t streams[2];
    size_t nstreams = 0;
    /* coll_args, then the link ids: one argument scan per kernel */
    tlm_arg keys[CK_N + 2];
    tlm_argv av[CK_N + 2];
    memcpy(keys, coll_args, sizeof coll_args);
    keys[CK_N] = TLM_ARG_CORRELATION;
    keys[CK_N + 1] = TLM_ARG_EXTERNAL_ID;
    int32_t *uids = malloc((ctx->ngpu + 1) * sizeof *uids);
    int32_t *next = malloc((ctx->ngpu + 1) * sizeof *next);
    int32_t *head = malloc((ctx->ngpu + 1) * sizeof *head);
    int32_t *tail = malloc((ctx->ngpu + 1) * sizeof *tail);
    double *d = malloc((ctx->ngpu + 1) * sizeof *d);
    tlm_i3map map = {0};
    tlm_tab *t = tlm_tab_new("coll_analysis", 19, cols, ty);
    tlm_status st = TLM_ENOMEM;
    int any_null[CK_N] = {0};
    size_t ng = 0, k = 0;
    char buf[64];
    if (!uids || !next || !head || !tail || !d || !t ||
        tlm_i3map_init(&map, 1024) != TLM_OK)
        goto done;
    /* TraceLens writes no coll_analysis for a GPU-only trace (§A8) */
    size_t ngpu = ctx->ngpu;
    if (ctx->gpu_only && (ctx->opts.compat & TLM_COMPAT_GPU_ONLY))
        ngpu = 0;
    for (size_t j = 0; j < ngpu; j++) {
        if ((ctx->gpu_fl[j] & (TLM_GPU_KERNEL | TLM_GPU_COMM)) !=
            (TLM_GPU_KERNEL | TLM_GPU_COMM))
            continue;
        size_t i = (size_t)ctx->gpu[j];
        const tlm_event *e = &ctx->ev[i];
        tlm_rctx_args(ctx, e, keys, CK_N + 2, av);
        if (av[CK_N].type == TLM_ARGV_NONE &&
            av[CK_N + 1].type == TLM_ARGV_NONE)
            continue;
        n++;
        if (av[CK_PGN].type != TLM_ARGV_NONE)
            has_pg = 1;
        if (av[CK_STREAM].type == TLM_ARGV_INT) {
            int64_t sv = av[CK_STREAM].i;
            size_t q = 0;
            while (q < nstreams && streams[q] != sv)
                q++;
            if (q == nstreams && nstreams < 2)
                streams[nstreams++] = sv;
        }
        /* the key text of an absent group name ("all" when simplified,
         * else "Unknown_Group") is the same for every row, and "all" is
         * used only when no kernel has a group name: grouping with
         * "Unknown_Group" here gives the same groups */
        tlm_sbuf *b = &ctx->s1;
        tlm_sbuf_reset(b);
        int null = 0;
        for (int q = 0; q < CK_N; q++) {
            int isint;
            int64_t iv;
            const char *v = coll_key(ctx, e, av, q, 0, buf, &isint, &iv);
            if (!v) {
                null = 1;
                any_null[q] = 1;
            }
            tlm_sbuf_puts(b, v ? v : "\x01");
            tlm_sbuf_putc(b, '\x1f');
        }
        if (null)
            continue; /* pandas groupby drops rows with a null key */
        if (b->oom)
            goto done;
        int64_t hk[3];
        tlm_key_hash(b, hk);
        int32_t g = tlm_i3map_get(&map, hk[0], hk[1], hk[2]);
        if (g < 0) {
            g = (int32_t)ng++;
            if (tlm_i3map_put(&map, hk[0], hk[1], hk[2], g))
                goto done;
            head[g] = (int32_t)k;
        } else {
            next[tail[g]] = (int32_t)k;
        }
        tail[g] = (int32_t)k;
        next[k] = -1;
        uids[k++] = (int32_t)i;
    }
    if (!n) {
        st = TLM_OK;
        goto done;
    }
    int simplified = !has_pg && nstreams <= 1;
    for (size_t g = 0; g < ng; g++) {
        size_t m = 0;
        int32_t first = uids[head[g]];
        for (int32_t j = head[g]; j >= 0; j = next[j])
            d[m++] = tlm_ns_to_us(tlm_ev_dur(&(ctx->ev[uids[j]])));
        if (coll_row(ctx, t, &ctx->ev[first], keys, av, simplified,
                     any_null, d, m) != 0)
            goto done;
    }
    st = coll_sort(ctx, t);
    if (st == TLM_OK && t->oom)
        st = TLM_ENOMEM;
done:
    tlm_i3map_free(&map);
    free(uids);
    free(next);
    free(head);
    free(tail);
    free(d);
    if (st != TLM_OK || !t || !t->nrows) {
        tlm_tab_free(t);
        return st;
    }
    return tlm_rctx_add_tab(ctx, t);
}
