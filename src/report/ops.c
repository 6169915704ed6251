/*
 * ops.c - kernel launchers and the op tables built on them
 * ([perfreport] §4.1-§4.4, §4.6):
 *
 *   launchers            every non-communication GPU event is attributed
 *                        to the nearest cpu_op above its launch (skipping
 *                        python functions and "execute"), else to the
 *                        launch itself;
 *   ops_summary_by_category, ops_summary, ops_unique_args
 *                        group the launchers by category, name, and name +
 *                        shapes + thread;
 *   perf-model sheets    one row per op event with a perf model (tlm_perf.h),
 *                        grouped by name + model parameters.
 *
 * Grouping uses hash maps keyed by interned name ids or by a 64+64-bit hash
 * of the key text; no per-row allocation.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* MARK: - launchers ------------------------------------------------------ */

typedef struct ts_ctx {
    const tlm_event *ev;
    const tlm_launcher *lk;
    const int32_t *pool;
} ts_ctx;

static int cmp_k_ts(const void *vc, size_t a, size_t b)
{
    const ts_ctx *c = vc;
    int64_t x = tlm_ts_key(c->ev[c->pool[a]].ts);
    int64_t y = tlm_ts_key(c->ev[c->pool[b]].ts);
    if (x != y)
        return x < y ? -1 : 1;
    return 0;
}

/* A launcher's UID and kernel count while the launchers are reordered. */
typedef struct lk_perm {
    int32_t uid;
    uint32_t nk;
} lk_perm;

/* The UID -> index map of the nlk launchers lk among n UIDs; NULL when
 * out of memory. */
static tlm_lkmap *lkmap_new(const tlm_launcher *lk, size_t nlk, size_t n)
{
    size_t words = (n + 63) / 64;
    tlm_lkmap *m = calloc(1, sizeof *m + words * sizeof *m->bits +
                                 words * sizeof *m->rank +
                                 (nlk ? nlk : 1) * sizeof *m->idx);
    if (!m)
        return NULL;
    m->words = words;
    m->rank = (uint32_t *)(m->bits + words);
    m->idx = (int32_t *)(m->rank + words);
    for (size_t j = 0; j < nlk; j++)
        m->bits[(size_t)lk[j].uid >> 6] |= (uint64_t)1
                                           << ((unsigned)lk[j].uid & 63u);
    uint32_t r = 0;
    for (size_t w = 0; w < words; w++) {
        m->rank[w] = r;
        r += (uint32_t)__builtin_popcountll(m->bits[w]);
    }
    for (size_t j = 0; j < nlk; j++) {
        size_t u = (size_t)lk[j].uid, w = u >> 6;
        uint64_t bit = (uint64_t)1 << (u & 63u);
        m->idx[m->rank[w] + (uint32_t)__builtin_popcountll(m->bits[w] &
                                                           (bit - 1))] =
            (int32_t)j;
    }
    return m;
}

/* Each launcher's busy times (direct kernels, whole subtree) and
 * category. */
static tlm_status launcher_times(tlm_rctx *ctx)
{
    tlm_status st = TLM_OK;
    for (size_t j = 0; j < ctx->nlk && st == TLM_OK; j++) {
        tlm_launcher *L = &ctx->lk[j];
        if (j + TLM_PREFETCH_AHEAD < ctx->nlk) {
            int32_t x = ctx->lk[j + TLM_PREFETCH_AHEAD].uid;
            TLM_PREFETCH(&ctx->ev[x]);
            TLM_PREFETCH(&ctx->tree->nd[x]);
        }
        size_t ng;
        const int32_t *g = tlm_nd_gpu(ctx->tree, L->uid, &ng);
        st = tlm_rctx_busy_us(ctx, ctx->lk_kernels + L->k0, L->nk,
                              &L->direct_us);
        if (st == TLM_OK)
            st = tlm_rctx_busy_us(ctx, g, ng, &L->subtree_us);
        L->category = tlm_rctx_op_category(ctx, L->uid);
    }
    return st;
}

tlm_status tlm_rctx_launchers(tlm_rctx *ctx)
{
    const tlm_event *ev = ctx->ev;
    tlm_tree *tree = ctx->tree;
    size_t n = ctx->n;
    tlm_status st = TLM_OK;
    /* lk_of is indexed by UID: launchers are host events, kernels GPU
     * events, so while attributing, lk_of[kernel] holds the kernel's
     * launcher (reset to -1 below) and no second n-sized array is needed */
    int32_t *kl, *lk_of;
    size_t *order = NULL, *idx = NULL;
    int32_t *pool2 = NULL;
    lk_perm *lk2 = NULL;
    size_t ngpu = ctx->ngpu;
    lk_of = tlm_malloc_warm((n ? n : 1) * sizeof *lk_of);
    /* at most one launcher per GPU event: the array is that large, its
     * pages populated as launchers are found (nlk is usually far less) */
    ctx->lk = malloc((ngpu ? ngpu : 1) * sizeof *ctx->lk);
    tlm_warm wlk = {NULL, 0};
    kl = lk_of;
    if (!lk_of || !ctx->lk) {
        st = TLM_ENOMEM;
        goto done;
    }
    memset(lk_of, 0xff, (n ? n : 1) * sizeof *lk_of); /* -1 */
    size_t nk = 0;
    uint32_t exec_id = tlm_trace_str_find(ctx->trace, "execute", 7);
    for (size_t j = 0; j < ctx->ngpu; j++) {
        size_t i = (size_t)ctx->gpu[j];
        if (j + TLM_PREFETCH_AHEAD < ctx->ngpu)
            TLM_PREFETCH(&tree->nd[ctx->gpu[j + TLM_PREFETCH_AHEAD]]);
        if (ctx->gpu_fl[j] & TLM_GPU_COMM)
            continue;
        int32_t r = tlm_nd(tree, (int32_t)i)->parent;
        if (r < 0)
            continue;
        int32_t a = tlm_nd(tree, r)->parent, L = -1;
        while (a >= 0) {
            unsigned acat = tlm_nd(tree, a)->cat;
            if (acat == TLM_CAT_PYTHON_FUNCTION) {
                a = tlm_nd(tree, a)->parent;
                continue;
            }
            if (acat == TLM_CAT_CPU_OP) {
                if (exec_id && ev[a].name == exec_id) {
                    a = tlm_nd(tree, a)->parent;
                    continue;
                }
                L = a;
            }
            break;
        }
        if (L < 0)
            L = r;
        if (lk_of[L] < 0) {
            tlm_warm_ahead(&wlk, ctx->lk, (ctx->nlk + 1) * sizeof *ctx->lk,
                           ngpu * sizeof *ctx->lk);
            lk_of[L] = (int32_t)ctx->nlk;
            memset(&ctx->lk[ctx->nlk], 0, sizeof *ctx->lk);
            ctx->lk[ctx->nlk].uid = L;
            ctx->nlk++;
        }
        kl[i] = lk_of[L];
        ctx->lk[kl[i]].nk++;
        nk++;
    }
    ctx->lk_kernels =
        tlm_malloc_warm((nk ? nk : 1) * sizeof *ctx->lk_kernels);
    order = tlm_malloc_warm((ctx->nlk ? ctx->nlk : 1) * sizeof *order);
    idx = tlm_malloc_warm((nk ? nk : 1) * sizeof *idx);
    pool2 = tlm_malloc_warm((nk ? nk : 1) * sizeof *pool2);
    lk2 = tlm_malloc_warm((ctx->nlk ? ctx->nlk : 1) * sizeof *lk2);
    if (!ctx->lk_kernels || !order || !idx || !pool2 || !lk2) {
        st = TLM_ENOMEM;
        goto done;
    }
    uint32_t off = 0;
    for (size_t j = 0; j < ctx->nlk; j++) {
        ctx->lk[j].k0 = off;
        off += ctx->lk[j].nk;
        ctx->lk[j].nk = 0;
    }
    for (size_t j = 0; j < ctx->ngpu; j++) {
        size_t i = (size_t)ctx->gpu[j];
        if (kl[i] < 0)
            continue;
        tlm_launcher *L = &ctx->lk[kl[i]];
        ctx->lk_kernels[L->k0 + L->nk++] = (int32_t)i;
        kl[i] = -1;
    }
    /* launchers by ts (stable: first-seen order on ties), as compact
     * (ts, index) pairs */
    {
        tlm_pair *pr =
            tlm_malloc_warm((ctx->nlk ? ctx->nlk : 1) * sizeof *pr);
        if (!pr) {
            st = TLM_ENOMEM;
            goto done;
        }
        for (size_t j = 0; j < ctx->nlk; j++) {
            pr[j].key = tlm_ts_key(ev[ctx->lk[j].uid].ts);
            pr[j].val = (int64_t)j;
        }
        st = tlm_sort_pairs(pr, ctx->nlk);
        for (size_t j = 0; j < ctx->nlk; j++)
            order[j] = (size_t)pr[j].val;
        free(pr);
        if (st != TLM_OK)
            goto done;
    }
    ts_ctx tc = {ev, ctx->lk, ctx->lk_kernels};
    off = 0;
    for (size_t j = 0; j < ctx->nlk; j++) {
        const tlm_launcher *L = &ctx->lk[order[j]];
        lk2[j].uid = L->uid;
        lk2[j].nk = L->nk;
        /* kernels by ts, stable */
        for (uint32_t q = 0; q < L->nk; q++)
            idx[q] = L->k0 + q;
        st = tlm_sort_idx(idx, L->nk, cmp_k_ts, &tc);
        if (st != TLM_OK)
            goto done;
        for (uint32_t q = 0; q < L->nk; q++)
            pool2[off + q] = ctx->lk_kernels[idx[q]];
        off += L->nk;
    }
    off = 0;
    for (size_t j = 0; j < ctx->nlk; j++) { /* the rest is filled below */
        ctx->lk[j] = (tlm_launcher){lk2[j].uid, off, lk2[j].nk, 0.0, 0.0,
                                    NULL};
        off += lk2[j].nk;
    }
    memcpy(ctx->lk_kernels, pool2, nk * sizeof *pool2);
    free(lk_of);
    lk_of = NULL;
    ctx->lk_of = lkmap_new(ctx->lk, ctx->nlk, n);
    if (!ctx->lk_of) {
        st = TLM_ENOMEM;
        goto done;
    }
    st = launcher_times(ctx);
done:
    free(lk_of);
    free(order);
    free(idx);
    free(pool2);
    free(lk2);
    return st;
}

/* MARK: - statistics helpers --------------------------------------------- */


static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct desc_ctx {
    const double *key;
    const int64_t *tie; /* may be NULL */
} desc_ctx;

static int cmp_desc(const void *vc, size_t a, size_t b)
{
    const desc_ctx *c = vc;
    if (c->key[a] != c->key[b])
        return c->key[a] > c->key[b] ? -1 : 1;
    if (c->tie && c->tie[a] != c->tie[b])
        return c->tie[a] < c->tie[b] ? -1 : 1;
    return 0;
}

/* Appends "Percentage (%)" / "Cumulative Percentage (%)" from column vc. */
static void add_percent(tlm_tab *t, size_t vc, size_t pc)
{
    double cum = 0.0, tot;
    double *col = malloc((t->nrows + 1) * sizeof *col);
    size_t k = 0;
    if (!col) {
        t->oom = 1;
        return;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        tlm_cell *c = tlm_tab_cell(t, r, vc);
        if (!c->null)
            col[k++] = c->v.f;
    }
    /* pandas Series.sum: numpy's pairwise sum in row order */
    tot = tlm_np_sum(col, k);
    free(col);
    for (size_t r = 0; r < t->nrows; r++) {
        tlm_cell *c = tlm_tab_cell(t, r, vc);
        double p = c->null ? NAN : c->v.f / tot * 100.0;
        tlm_tab_set_f(t, r, pc, p);
        if (!isnan(p))
            cum += p;
        tlm_tab_set_f(t, r, pc + 1, cum);
    }
}

/* Sorts the table rows by column kc (double) descending, ties by column
 * tc (int, ascending) when tc >= 0, else stable. */
static tlm_status sort_table(tlm_tab *t, size_t kc, long tc)
{
    size_t n = t->nrows;
    double *k = malloc((n ? n : 1) * sizeof *k);
    int64_t *ti = malloc((n ? n : 1) * sizeof *ti);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    tlm_status st = TLM_ENOMEM;
    if (k && ti && perm) {
        for (size_t r = 0; r < n; r++) {
            tlm_cell *c = tlm_tab_cell(t, r, kc);
            k[r] = c->null ? -INFINITY : c->v.f;
            ti[r] = tc >= 0 ? tlm_tab_cell(t, r, (size_t)tc)->v.i : 0;
            perm[r] = r;
        }
        desc_ctx dc = {k, tc >= 0 ? ti : NULL};
        st = tlm_sort_idx(perm, n, cmp_desc, &dc);
        if (st == TLM_OK)
            st = tlm_tab_permute(t, perm);
    }
    free(k);
    free(ti);
    free(perm);
    return st;
}

/* Groups items by a text key (first-appearance order).  gid[i] receives
 * the group of item i; returns the number of groups or -1 on ENOMEM. */
typedef struct grouper {
    tlm_i3map map;
    size_t ngroups;
} grouper;

static long group_key(grouper *g, const char *key, size_t len)
{
    tlm_sbuf kb = {(char *)(uintptr_t)key, len, len, 0};
    int64_t hk[3];
    tlm_key_hash(&kb, hk);
    int32_t v = tlm_i3map_get(&g->map, hk[0], hk[1], hk[2]);
    if (v >= 0)
        return v;
    v = (int32_t)g->ngroups++;
    if (tlm_i3map_put(&g->map, hk[0], hk[1], hk[2], v))
        return -1;
    return v;
}

/* MARK: - ops_summary_by_category / ops_summary -------------------------- */

static tlm_status ops_by_category(tlm_rctx *ctx)
{
    static const char *const cols[] = {
        "op category", "Count", "total_direct_kernel_time_ms",
        "Percentage (%)", "Cumulative Percentage (%)"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_I64, TLM_COL_F64,
                                     TLM_COL_F64, TLM_COL_F64};
    const char **cats = malloc((ctx->nlk + 1) * sizeof *cats);
    size_t nc = 0;
    if (!cats)
        return TLM_ENOMEM;
    for (size_t j = 0; j < ctx->nlk; j++) {
        const char *c = ctx->lk[j].category;
        size_t q = 0;
        while (q < nc && cats[q] != c)
            q++;
        if (q < nc)
            continue;
        q = 0;
        while (q < nc && strcmp(cats[q], c))
            q++;
        if (q == nc)
            cats[nc++] = c;
    }
    qsort(cats, nc, sizeof *cats, cmp_str_ptr);
    tlm_tab *t = tlm_tab_new("ops_summary_by_category", 5, cols, ty);
    if (!t) {
        free(cats);
        return TLM_ENOMEM;
    }
    /* one pass: each launcher's category slot (pointer compare first, the
     * strings are mostly the same static ones), sums in launcher order */
    /* slot 2q + is_recompute (always 0 without --detect_recompute) */
    tlm_kahan *sums = calloc(2 * nc + 1, sizeof *sums);
    int64_t *cnts = calloc(2 * nc + 1, sizeof *cnts);
    if (!sums || !cnts) {
        free(sums);
        free(cnts);
        free(cats);
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    size_t last = 0;
    for (size_t j = 0; j < ctx->nlk; j++) {
        const char *c = ctx->lk[j].category;
        size_t q = last;
        if (cats[q] != c) {
            for (q = 0; q < nc && cats[q] != c; q++)
                ;
            if (q == nc)
                for (q = 0; q < nc && strcmp(cats[q], c); q++)
                    ;
        }
        last = q;
        size_t qs = 2 * q + (size_t)tlm_rctx_rc(ctx, ctx->lk[j].uid);
        tlm_kahan_add(&sums[qs], ctx->lk[j].direct_us);
        cnts[qs]++;
    }
    if (ctx->rc && tlm_tab_append_col(t, "is_recompute", TLM_COL_BOOL))
        t->oom = 1;
    for (size_t qs = 0; qs < 2 * nc && !t->oom; qs++) {
        size_t q = qs / 2;
        tlm_kahan sum = sums[qs];
        int64_t cnt = cnts[qs];
        if (!cnt)
            continue;
        long r = tlm_tab_add_row(t);
        if (r < 0)
            break;
        tlm_tab_set_s(t, (size_t)r, 0, cats[q], strlen(cats[q]));
        tlm_tab_set_i(t, (size_t)r, 1, cnt);
        tlm_tab_set_f(t, (size_t)r, 2, sum.sum / 1000.0);
        if (ctx->rc)
            tlm_tab_set_b(t, (size_t)r, 5, (int)(qs & 1));
    }
    free(sums);
    free(cnts);
    free(cats);
    /* categories are in ascending order (the groupby's) */
    tlm_status st = (ctx->opts.compat & TLM_COMPAT_NP_SORT)
                        ? tlm_tab_sort_desc_np(t, 2)
                        : sort_table(t, 2, -1);
    add_percent(t, 2, 3);
    if (ctx->rc) /* groupby(["op category", "is_recompute"]) */
        tlm_tab_move_col(t, 5, 1);
    if (st == TLM_OK && t->oom)
        st = TLM_ENOMEM;
    return tlm_rctx_finish_tab(ctx, t, st);
}

typedef struct name_ctx {
    const tlm_rctx *ctx;
    const int32_t *first; /* group -> launcher index */
} name_ctx;

static int cmp_group_name(const void *vc, size_t a, size_t b)
{
    const name_ctx *c = vc;
    int32_t ua = c->ctx->lk[c->first[a]].uid, ub = c->ctx->lk[c->first[b]].uid;
    int d = strcmp(tlm_rctx_name(c->ctx, ua), tlm_rctx_name(c->ctx, ub));
    /* then is_recompute (False first) with --detect_recompute */
    return d ? d : tlm_rctx_rc(c->ctx, ua) - tlm_rctx_rc(c->ctx, ub);
}

static tlm_status ops_summary(tlm_rctx *ctx)
{
    static const char *const cols[] = {
        TLM_COLNAME_OPS_NAME, "total_direct_kernel_time_sum",
        "total_subtree_kernel_time_sum", TLM_COLNAME_OPS_DIRECT_MS,
        TLM_COLNAME_OPS_SUBTREE_MS, TLM_COLNAME_OPS_COUNT,
        TLM_COLNAME_OPS_CATEGORIES, TLM_COLNAME_OPS_PERCENT,
        "Cumulative Percentage (%)"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64, TLM_COL_F64,
                                     TLM_COL_F64, TLM_COL_F64, TLM_COL_I64,
                                     TLM_COL_STR, TLM_COL_F64, TLM_COL_F64};
    tlm_status st = TLM_ENOMEM;
    tlm_i3map m = {0};
    size_t ng = 0;
    int32_t *gid = malloc((ctx->nlk + 1) * sizeof *gid);
    int32_t *first = malloc((ctx->nlk + 1) * sizeof *first);
    size_t *order = malloc((ctx->nlk + 1) * sizeof *order);
    const char **cl = malloc((ctx->nlk + 1) * sizeof *cl);
    tlm_tab *t = tlm_tab_new(TLM_TABNAME_OPS_SUMMARY, 9, cols, ty);
    if (!gid || !first || !order || !cl || !t ||
        tlm_i3map_init(&m, 1024) != TLM_OK)
        goto done;
    for (size_t j = 0; j < ctx->nlk; j++) {
        uint32_t nm = ctx->ev[ctx->lk[j].uid].name;
        int rc = tlm_rctx_rc(ctx, ctx->lk[j].uid);
        int32_t g = tlm_i3map_get(&m, nm, rc, 0);
        if (g < 0) {
            g = (int32_t)ng++;
            first[g] = (int32_t)j;
            if (tlm_i3map_put(&m, nm, rc, 0, g))
                goto done;
        }
        gid[j] = g;
    }
    for (size_t g = 0; g < ng; g++)
        order[g] = g;
    name_ctx nc = {ctx, first};
    if (tlm_sort_idx(order, ng, cmp_group_name, &nc) != TLM_OK)
        goto done;
    /* members of each group: scan (groups are few compared to rows) */
    int32_t *head = malloc((ng + 1) * sizeof *head);
    int32_t *next = malloc((ctx->nlk + 1) * sizeof *next);
    if (!head || !next) {
        free(head);
        free(next);
        goto done;
    }
    if (ctx->rc && tlm_tab_append_col(t, "is_recompute", TLM_COL_BOOL)) {
        free(head);
        free(next);
        goto done;
    }
    for (size_t g = 0; g < ng; g++)
        head[g] = -1;
    for (size_t j = ctx->nlk; j-- > 0;) {
        next[j] = head[gid[j]];
        head[gid[j]] = (int32_t)j;
    }
    tlm_sbuf *b = &ctx->s1;
    for (size_t o = 0; o < ng; o++) {
        size_t g = order[o];
        tlm_kahan kd = {0.0, 0.0}, ks = {0.0, 0.0};
        int64_t cnt = 0;
        size_t ncl = 0;
        for (int32_t j = head[g]; j >= 0; j = next[j]) {
            tlm_kahan_add(&kd, ctx->lk[j].direct_us);
            tlm_kahan_add(&ks, ctx->lk[j].subtree_us);
            cnt++;
            const char *c = ctx->lk[j].category;
            size_t q = 0;
            while (q < ncl && cl[q] != c)
                q++;
            if (q == ncl) {
                q = 0;
                while (q < ncl && strcmp(cl[q], c))
                    q++;
            }
            if (q == ncl)
                cl[ncl++] = c;
        }
        qsort(cl, ncl, sizeof *cl, cmp_str_ptr);
        tlm_sbuf_reset(b);
        tlm_sbuf_putc(b, '[');
        for (size_t q = 0; q < ncl; q++) {
            if (q)
                tlm_sbuf_puts(b, ", ");
            tlm_sbuf_pystr(b, cl[q], strlen(cl[q]));
        }
        tlm_sbuf_putc(b, ']');
        long r = tlm_tab_add_row(t);
        if (r < 0)
            break;
        double sd = kd.sum, ss = ks.sum;
        const char *nm = tlm_rctx_name(ctx, ctx->lk[first[g]].uid);
        tlm_tab_set_f(t, (size_t)r, 1, sd);
        tlm_tab_set_s(t, (size_t)r, 0, nm, strlen(nm));
        tlm_tab_set_f(t, (size_t)r, 2, ss);
        tlm_tab_set_f(t, (size_t)r, 3, sd / 1000.0);
        tlm_tab_set_f(t, (size_t)r, 4, ss / 1000.0);
        tlm_tab_set_i(t, (size_t)r, 5, cnt);
        tlm_tab_set_s(t, (size_t)r, 6, b->p, b->len);
        if (ctx->rc)
            tlm_tab_set_b(t, (size_t)r, 9,
                          tlm_rctx_rc(ctx, ctx->lk[first[g]].uid));
    }
    free(head);
    free(next);
    /* names are in ascending order (the groupby's) */
    st = (ctx->opts.compat & TLM_COMPAT_NP_SORT) ? tlm_tab_sort_desc_np(t, 1)
                                                 : sort_table(t, 1, -1);
    if (st == TLM_OK) {
        add_percent(t, 3, 7);
        if (ctx->rc) /* groupby(["name", "is_recompute"]) */
            tlm_tab_move_col(t, 9, 1);
        st = t->oom ? TLM_ENOMEM : TLM_OK;
    }
done:
    tlm_i3map_free(&m);
    free(gid);
    free(first);
    free(order);
    free(cl);
    return tlm_rctx_finish_tab(ctx, t, st);
}

/* MARK: - ops_unique_args ------------------------------------------------- */

static const tlm_arg shape_args[4] = {TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE,
                                      TLM_ARG_INPUT_STRIDES,
                                      TLM_ARG_CONCRETE_INPUTS};

/* Key text of the string-repr grouping of §4.4 into b. */
static void unique_key(tlm_rctx *ctx, int32_t u, const char *cat,
                       tlm_sbuf *b)
{
    const tlm_event *e = &ctx->ev[u];
    tlm_sbuf_reset(b);
    tlm_key_id(b, e->name);
    tlm_key_id(b, tlm_rctx_cat_index(ctx, cat));
    int64_t mid[3];
    tlm_argv av[4];
    tlm_rctx_meta_ids(ctx, e, mid);
    for (int f = 0; f < 3; f++)
        tlm_key_id(b, mid[f]);
    tlm_rctx_args(ctx, e, shape_args, 4, av);
    for (int k = 0; k < 4; k++)
        tlm_key_id(b, tlm_argv_id(&av[k]));
    if (ctx->rc) /* a grouping key after Concrete Inputs */
        tlm_key_id(b, tlm_rctx_rc(ctx, u));
}

/* Column layout of ops_unique_args: TraceLens's order, with the optional
 * num_kernels (a group key, after the shape keys) and
 * first_occurrence_time (after operation_count). */
typedef struct uargs_layout {
    const char *cols[32];
    tlm_coltype ty[32];
    size_t nc, c_nk, c_cnt, c_first, c_stat, c_ex, c_kd, c_pct;
} uargs_layout;

static size_t ua_add(uargs_layout *u, const char *name, tlm_coltype ty)
{
    u->cols[u->nc] = name;
    u->ty[u->nc] = ty;
    return u->nc++;
}

static void uargs_layout_init(uargs_layout *u, const tlm_report_opts *o)
{
    static const char *const keys[] = {
        TLM_COLNAME_UARGS_NAME, TLM_COLNAME_UARGS_CATEGORY, "process_name",
        "process_label", "thread_name", TLM_COLNAME_UARGS_INPUT_DIMS,
        TLM_COLNAME_UARGS_INPUT_TYPE, TLM_COLNAME_UARGS_INPUT_STRIDES,
        TLM_COLNAME_UARGS_CONCRETE_INPUTS};
    static const char *const stats[] = {
        TLM_COLNAME_UARGS_DIRECT_MEAN, "total_subtree_kernel_time_mean",
        TLM_COLNAME_UARGS_DIRECT_MEDIAN,
        "total_subtree_kernel_time_median", "total_direct_kernel_time_std",
        "total_subtree_kernel_time_std", TLM_COLNAME_UARGS_DIRECT_MIN,
        "total_subtree_kernel_time_min", TLM_COLNAME_UARGS_DIRECT_MAX,
        "total_subtree_kernel_time_max", TLM_COLNAME_UARGS_DIRECT_SUM,
        TLM_COLNAME_UARGS_SUBTREE_SUM};
    memset(u, 0, sizeof *u);
    for (size_t i = 0; i < 9; i++)
        ua_add(u, keys[i], TLM_COL_STR);
    u->c_nk = o->group_by_num_kernels
                  ? ua_add(u, TLM_COLNAME_UARGS_NUM_KERNELS, TLM_COL_I64)
                  : SIZE_MAX;
    u->c_cnt = ua_add(u, TLM_COLNAME_UARGS_COUNT, TLM_COL_I64);
    u->c_first = o->first_occurrence_time
                     ? ua_add(u, TLM_COLNAME_UARGS_FIRST_TIME, TLM_COL_F64)
                     : SIZE_MAX;
    u->c_stat = u->nc;
    for (size_t i = 0; i < 12; i++)
        ua_add(u, stats[i], TLM_COL_F64);
    u->c_ex = ua_add(u, TLM_COLNAME_UARGS_EX_UID, TLM_COL_I64);
    u->c_kd = ua_add(u, "kernel_details_summary", TLM_COL_STR);
    ua_add(u, "trunc_kernel_details", TLM_COL_STR);
    u->c_pct = ua_add(u, TLM_COLNAME_UARGS_PERCENT, TLM_COL_F64);
    ua_add(u, "Cumulative Percentage (%)", TLM_COL_F64);
}

/* first_occurrence_time: the group's earliest launcher ts minus the
 * earliest of the table (pandas' column minus its min, in doubles). */
static void uargs_first_time(tlm_tab *t, size_t c)
{
    double lo = INFINITY;
    for (size_t r = 0; r < t->nrows; r++)
        lo = fmin(lo, tlm_tab_cell(t, r, c)->v.f);
    for (size_t r = 0; r < t->nrows; r++)
        tlm_tab_set_f(t, r, c, tlm_tab_cell(t, r, c)->v.f - lo);
}

static tlm_status ops_unique_args(tlm_rctx *ctx)
{
    uargs_layout U;
    uargs_layout_init(&U, &ctx->opts);
    tlm_status st = TLM_ENOMEM;
    grouper gr = {{0}, 0};
    size_t nl = ctx->nlk;
    int32_t *gid = malloc((nl + 1) * sizeof *gid);
    int32_t *head = malloc((nl + 1) * sizeof *head);
    int32_t *tail = malloc((nl + 1) * sizeof *tail);
    int32_t *next = malloc((nl + 1) * sizeof *next);
    double *vd = malloc((nl + 1) * sizeof *vd);
    double *vs = malloc((nl + 1) * sizeof *vs);
    size_t *off = malloc((nl + 1) * sizeof *off);
    size_t *len = malloc((nl + 1) * sizeof *len);
    /* --include_overlap_info: each launcher's overlap_pct */
    double *pk = ctx->kl ? malloc((nl + 1) * sizeof *pk) : NULL;
    char tname[300];
    if (ctx->kl)
        tlm_rctx_kl_name(TLM_TABNAME_OPS_UNIQUE_ARGS, tname, sizeof tname);
    else
        snprintf(tname, sizeof tname, "%s", TLM_TABNAME_OPS_UNIQUE_ARGS);
    tlm_tab *t = tlm_tab_new(tname, U.nc, U.cols, U.ty);
    size_t kc = 0; /* the first overlap column */
    if (!gid || !head || !tail || !next || !vd || !vs || !off || !len ||
        !t || (ctx->kl && !pk) || tlm_i3map_init(&gr.map, 1024) != TLM_OK)
        goto done;
    for (size_t j = 0; j < nl; j++) {
        if (j + TLM_PREFETCH_AHEAD < nl)
            TLM_PREFETCH(&ctx->ev[ctx->lk[j + TLM_PREFETCH_AHEAD].uid]);
        unique_key(ctx, ctx->lk[j].uid, ctx->lk[j].category, &ctx->s1);
        if (U.c_nk != SIZE_MAX) /* str(num_kernels), an extra key */
            tlm_key_id(&ctx->s1, ctx->lk[j].nk);
        if (ctx->kl) { /* the overlapping kernel names, a key */
            const tlm_launcher *L = &ctx->lk[j];
            if (tlm_rctx_kl_eval(ctx, ctx->lk_kernels + L->k0, L->nk))
                goto done;
            tlm_rctx_kl_key(ctx, &ctx->s1);
            pk[j] = tlm_rctx_kl_pct(ctx);
        }
        if (ctx->s1.oom)
            goto done;
        long g = group_key(&gr, ctx->s1.p, ctx->s1.len);
        if (g < 0)
            goto done;
        gid[j] = (int32_t)g;
        next[j] = -1;
    }
    if (ctx->rc && tlm_tab_append_col(t, "is_recompute", TLM_COL_BOOL))
        goto done;
    if (ctx->kl && tlm_rctx_kl_add_cols(t, &kc))
        goto done;
    for (size_t g = 0; g < gr.ngroups; g++)
        head[g] = tail[g] = -1;
    for (size_t j = 0; j < nl; j++) {
        int32_t g = gid[j];
        if (head[g] < 0)
            head[g] = (int32_t)j;
        else
            next[tail[g]] = (int32_t)j;
        tail[g] = (int32_t)j;
    }
    for (size_t g = 0; g < gr.ngroups; g++) {
        size_t k = 0;
        const tlm_launcher *L0 = &ctx->lk[head[g]];
        double ts0 = INFINITY;
        tlm_kl_acc acc = {0.0, 0};
        for (int32_t j = head[g]; j >= 0; j = next[j]) {
            if (pk)
                tlm_kl_acc_add(&acc, pk[j]);
            ts0 = fmin(ts0, tlm_ev_ts_us(&ctx->ev[ctx->lk[j].uid]));
            vd[k] = ctx->lk[j].direct_us;
            vs[k] = ctx->lk[j].subtree_us;
            off[k] = ctx->lk[j].k0;
            len[k] = ctx->lk[j].nk;
            k++;
        }
        long r = tlm_tab_add_row(t);
        if (r < 0)
            goto done;
        size_t R = (size_t)r;
        const tlm_event *e = &ctx->ev[L0->uid];
        const char *s = tlm_rctx_name(ctx, L0->uid);
        tlm_tab_set_s(t, R, 0, s, strlen(s));
        tlm_tab_set_s(t, R, 1, L0->category, strlen(L0->category));
        tlm_rctx_set_proc(ctx, t, R, 2, e);
        for (int q = 0; q < 4; q++)
            tlm_rctx_set_arg(ctx, t, R, (size_t)(5 + q), e, shape_args[q], 1);
        if (U.c_nk != SIZE_MAX)
            tlm_tab_set_i(t, R, U.c_nk, L0->nk);
        tlm_tab_set_i(t, R, U.c_cnt, (int64_t)k);
        if (U.c_first != SIZE_MAX)
            tlm_tab_set_f(t, R, U.c_first, ts0);
        tlm_kd_summary(ctx, ctx->lk_kernels, off, len, k, &ctx->s1,
                       &ctx->s2);
        tlm_stats a, b;
        tlm_stats_of(vd, k, &a);
        tlm_stats_of(vs, k, &b);
        double av[6] = {a.mean, a.median, a.std, a.min, a.max, a.sum};
        double bv[6] = {b.mean, b.median, b.std, b.min, b.max, b.sum};
        for (int q = 0; q < 6; q++) {
            tlm_tab_set_f(t, R, U.c_stat + 2 * (size_t)q, av[q]);
            tlm_tab_set_f(t, R, U.c_stat + 1 + 2 * (size_t)q, bv[q]);
        }
        tlm_tab_set_i(t, R, U.c_ex, L0->uid);
        tlm_kd_set(ctx, t, R, U.c_kd);
        if (ctx->rc)
            tlm_tab_set_b(t, R, U.nc, tlm_rctx_rc(ctx, L0->uid));
        if (ctx->kl) {
            if (tlm_rctx_kl_eval(ctx, ctx->lk_kernels + L0->k0, L0->nk))
                goto done;
            tlm_rctx_kl_set(ctx, t, R, kc, tlm_kl_acc_mean(&acc));
        }
    }
    if (U.c_first != SIZE_MAX)
        uargs_first_time(t, U.c_first);
    st = sort_table(t, U.c_stat + 10, (long)U.c_ex);
    if (st == TLM_OK) {
        add_percent(t, U.c_stat + 10, U.c_pct);
        size_t keys_end = U.c_nk != SIZE_MAX ? U.c_nk + 1 : 9;
        if (ctx->rc) /* a key: after Concrete Inputs (and num_kernels) */
            tlm_tab_move_col(t, U.nc, keys_end++);
        if (ctx->kl) /* overlapping_kernel_names: the last key */
            tlm_tab_move_col(t, kc, keys_end);
        st = t->oom ? TLM_ENOMEM : TLM_OK;
    }
done:
    tlm_i3map_free(&gr.map);
    free(gid);
    free(head);
    free(tail);
    free(next);
    free(vd);
    free(vs);
    free(off);
    free(len);
    free(pk);
    return tlm_rctx_finish_tab(ctx, t, st);
}

tlm_status tlm_rctx_ops_tables(tlm_rctx *ctx)
{
    tlm_status st = ops_by_category(ctx);
    if (st == TLM_OK)
        st = ops_summary(ctx);
    if (st == TLM_OK)
        st = ops_unique_args(ctx);
    if (st == TLM_OK && ctx->ovl) { /* ops_unique_args_kl_overlap */
        ctx->kl = 1;
        st = ops_unique_args(ctx);
        ctx->kl = 0;
    }
    return st;
}
