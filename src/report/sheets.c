/*
 * sheets.c - perf-model sheets ([perfreport] §4.6): GEMM, SDPA_fwd,
 * SDPA_bwd, CONV_fwd, CONV_bwd, BinaryElementwise, UnaryElementwise,
 * Normalization, Reduce_fwd, Reduce_bwd.
 *
 * Rows: every op event (UID order) whose name has a perf model in
 * tlm_perf.h, for the forward pass (its own subtree kernels) and, for ops
 * with an autograd backward node, the backward pass (kernels under the
 * backward nodes of the op and of its descendants).  The model gives FLOPs,
 * bytes and parameters; the measured kernel time is the busy time of the
 * row's kernels.  Rows are grouped by name + parameter values and
 * summarised as TraceLens's summarize_df_perf_metrics does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

#define MAX_PCOLS 64

/* One op's row of a sheet: 32 bytes (they are held, for every sheet,
 * beside unified_perf_summary's rows). */
typedef struct prow {
    int32_t uid;
    int32_t grp;
    int32_t next;  /* next row of the same group */
    int32_t perf_idx; /* model result in ctx->perf_res */
    uint32_t k0, nk; /* kernel slice in the pool */
    double T;
} prow;

typedef struct pvec {
    int32_t *v;
    size_t n, cap;
} pvec;

static int pvec_push(pvec *p, int32_t x)
{
    if (tlm_grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v, 1024))
        return -1;
    p->v[p->n++] = x;
    return 0;
}

typedef struct ts_ctx {
    const tlm_event *ev;
    const int32_t *v;
} ts_ctx;

static int cmp_ts(const void *vc, size_t a, size_t b)
{
    const ts_ctx *c = vc;
    int64_t x = c->ev[c->v[a]].ts, y = c->ev[c->v[b]].ts;
    if (x != y)
        return x < y ? -1 : 1;
    return 0;
}

/* Appends the row's kernels (sorted by ts) to pool. */
static int collect_kernels(tlm_rctx *ctx, int32_t u, int bwd, pvec *pool,
                           size_t *tmpcap, size_t **tmp)
{
    size_t start = pool->n;
    if (!bwd) {
        size_t ng;
        const int32_t *g = tlm_nd_gpu(ctx->tree, u, &ng);
        for (size_t i = 0; i < ng; i++)
            if (pvec_push(pool, g[i]))
                return -1;
    } else {
        /* bwd nodes of u and of every descendant */
        int32_t x = u;
        for (;;) {
            int32_t b = tlm_tree_bwd_event(ctx->tree, x);
            if (b >= 0) {
                size_t ng;
                const int32_t *g = tlm_nd_gpu(ctx->tree, b, &ng);
                for (size_t i = 0; i < ng; i++)
                    if (pvec_push(pool, g[i]))
                        return -1;
            }
            int32_t c = tlm_nd(ctx->tree, x)->first_child;
            if (c >= 0) {
                x = c;
                continue;
            }
            while (x != u && tlm_nd(ctx->tree, x)->next_sibling < 0)
                x = tlm_nd(ctx->tree, x)->parent;
            if (x == u)
                break;
            x = tlm_nd(ctx->tree, x)->next_sibling;
        }
    }
    size_t n = pool->n - start;
    if (n > 1) {
        if (tlm_grow((void **)tmp, tmpcap, n, sizeof **tmp, 64))
            return -1;
        for (size_t i = 0; i < n; i++)
            (*tmp)[i] = i;
        ts_ctx tc = {ctx->ev, pool->v + start};
        if (tlm_sort_idx(*tmp, n, cmp_ts, &tc) != TLM_OK)
            return -1;
        int32_t *cp = malloc(n * sizeof *cp);
        if (!cp)
            return -1;
        for (size_t i = 0; i < n; i++)
            cp[i] = pool->v[start + (*tmp)[i]];
        memcpy(pool->v + start, cp, n * sizeof *cp);
        free(cp);
    }
    return 0;
}

typedef struct sheet_state {
    prow *rows;
    size_t nrows, cap;
    pvec pool;
    char pcols[MAX_PCOLS][TLM_PERF_PARAM_NAME];
    size_t npcols;
    uint8_t *seen; /* per model result: parameter names registered */
    size_t nseen;
} sheet_state;

static tlm_status compute_row(tlm_rctx *ctx, int32_t u, int bwd,
                              sheet_state *s, size_t *tmpcap, size_t **tmp,
                              int *ok)
{
    *ok = 0;
    size_t k0 = s->pool.n;
    if (collect_kernels(ctx, u, bwd, &s->pool, tmpcap, tmp))
        return TLM_ENOMEM;
    size_t nk = s->pool.n - k0;
    /* no kernels: the pool may still be unallocated (NULL) */
    const int32_t *ks = nk ? s->pool.v + k0 : NULL;
    const tlm_perf_result *res = NULL;
    tlm_status st = tlm_rctx_perf(ctx, u, bwd, ks, nk, &res);
    if (st == TLM_ENOMEM)
        return st;
    if (st != TLM_OK) {
        s->pool.n = k0;
        return TLM_OK;
    }
    double T = 0.0;
    st = tlm_rctx_busy_us(ctx, ks, nk, &T);
    if (st != TLM_OK)
        return st;
    if (tlm_grow((void **)&s->rows, &s->cap, s->nrows + 1, sizeof *s->rows,
                 256))
        return TLM_ENOMEM;
    if (s->pool.n > UINT32_MAX) /* the slice does not fit the row */
        return TLM_ENOMEM;
    prow *r = &s->rows[s->nrows++];
    r->uid = u;
    r->k0 = (uint32_t)k0;
    r->nk = (uint32_t)nk;
    r->T = T;
    r->grp = -1;
    r->next = -1;
    r->perf_idx = (int32_t)(res - ctx->perf_res);
    /* parameter columns: once per distinct model result */
    size_t pi = (size_t)r->perf_idx;
    if (pi >= s->nseen) { /* flags, the new ones cleared */
        size_t nn = s->nseen;
        if (tlm_grow((void **)&s->seen, &nn,
                     ctx->nperf > pi + 1 ? ctx->nperf : pi + 1, 1, 64))
            return TLM_ENOMEM;
        memset(s->seen + s->nseen, 0, nn - s->nseen);
        s->nseen = nn;
    }
    if (s->seen[pi]) {
        *ok = 1;
        return TLM_OK;
    }
    s->seen[pi] = 1;
    for (size_t i = 0; i < res->n_params; i++) {
        size_t q = 0;
        while (q < s->npcols && strcmp(s->pcols[q], res->params[i].name))
            q++;
        if (q == s->npcols && s->npcols < MAX_PCOLS) {
            memcpy(s->pcols[q], res->params[i].name, TLM_PERF_PARAM_NAME);
            s->pcols[q][TLM_PERF_PARAM_NAME - 1] = '\0';
            s->npcols++;
        }
    }
    *ok = 1;
    return TLM_OK;
}

/* MARK: - one sheet ------------------------------------------------------ */

/* The columns of a sheet and the first index of each group of them (the
 * roofline ones only with --gpu_arch). */
typedef struct scols {
    char (*names)[96];
    const char **cn;
    tlm_coltype *ty;
    size_t n;
    size_t pc0, first, tbs, proc, roof, kd, kt;
} scols;

static void col_add(scols *k, const char *nm, tlm_coltype tp)
{
    snprintf(k->names[k->n], sizeof k->names[k->n], "%s", nm);
    k->ty[k->n++] = tp;
}

/* Five statistics columns "<prefix>_mean" .. "<prefix>_max". */
static void col_stats5(scols *k, const char *prefix)
{
    static const char *const stat_names[5] = {"mean", "median", "std", "min",
                                              "max"};
    for (int q = 0; q < 5; q++) {
        snprintf(k->names[k->n], sizeof k->names[k->n], "%s_%s", prefix,
                 stat_names[q]);
        k->ty[k->n++] = TLM_COL_F64;
    }
}

/* Names, types and group indices of the columns of a sheet whose models
 * gave the parameter names s->pcols.  Errors: TLM_ENOMEM. */
static tlm_status sheet_columns(scols *k, const sheet_state *s, int arch)
{
    size_t ncols = 1 + s->npcols + 3 + 10 + 3 + 1 + (arch ? 7 : 0) + 2 + 4 +
                   6 + 2;
    k->names = calloc(ncols, sizeof *k->names);
    k->cn = calloc(ncols, sizeof *k->cn);
    k->ty = calloc(ncols, sizeof *k->ty);
    if (!k->names || !k->cn || !k->ty)
        return TLM_ENOMEM;
    k->n = 0;
#define COL(nm, tp) col_add(k, nm, tp)
    COL("name", TLM_COL_STR);
    k->pc0 = k->n;
    for (size_t i = 0; i < s->npcols; i++) {
        snprintf(k->names[k->n], sizeof k->names[k->n], "param: %s",
                 s->pcols[i]);
        k->ty[k->n++] = TLM_COL_STR;
    }
    k->first = k->n;
    COL("GFLOPS_first", TLM_COL_F64);
    COL("Data Moved (MB)_first", TLM_COL_F64);
    COL("FLOPS/Byte_first", TLM_COL_F64);
    k->tbs = k->n;
    col_stats5(k, "TB/s");
    col_stats5(k, "TFLOPS/s");
    k->proc = k->n;
    COL("process_name_first", TLM_COL_STR);
    COL("process_label_first", TLM_COL_STR);
    COL("thread_name_first", TLM_COL_STR);
    COL("Compute Spec", TLM_COL_STR);
    k->roof = k->n;
    if (arch) {
        COL("Roofline Time (\xc2\xb5s)_first", TLM_COL_F64);
        COL("Roofline Bound_first", TLM_COL_STR);
        col_stats5(k, "Pct Roofline");
    }
    k->kd = k->n;
    COL("kernel_details__summarize_kernel_stats", TLM_COL_STR);
    COL("trunc_kernel_details", TLM_COL_STR);
    COL("Input Dims_first", TLM_COL_STR);
    COL("Input type_first", TLM_COL_STR);
    COL("Input Strides_first", TLM_COL_STR);
    COL("Concrete Inputs_first", TLM_COL_STR);
    k->kt = k->n;
    col_stats5(k, "Kernel Time (\xc2\xb5s)");
    COL("Kernel Time (\xc2\xb5s)_sum", TLM_COL_F64);
    COL("name_count", TLM_COL_I64);
    COL("UID_first", TLM_COL_I64);
#undef COL
    for (size_t i = 0; i < k->n; i++)
        k->cn[i] = k->names[i];
    return TLM_OK;
}

/* A sheet being built: its columns, the groups of its rows and the
 * per-group scratch. */
typedef struct sheet_build {
    tlm_rctx *ctx;
    sheet_state *s;
    int arch;
    scols col;
    tlm_tab *t;
    tlm_i3map map;        /* key hash -> group */
    int32_t *head, *tail; /* first and last row of each group */
    size_t ngroups;
    size_t gmax;       /* rows of the largest group */
    double *vals;      /* statistics scratch, then 4 metrics per row of a
                          group: 5 (gmax + 1) */
    size_t *off, *len; /* kernel slices of a group's rows */
    size_t kc;         /* the first overlap column (ctx->kl) */
} sheet_build;

/* Grouping key of row r in ctx->s1: its name and parameter values.
 * Returns 0 when out of memory. */
static int param_key(tlm_rctx *ctx, const prow *r)
{
    /* rows exist only for models that succeeded (compute_row) */
    const tlm_perf_result *pr = &ctx->perf_res[r->perf_idx];
    tlm_sbuf *b = &ctx->s1;
    tlm_sbuf_reset(b);
    tlm_sbuf_puts(b, tlm_rctx_name(ctx, r->uid));
    for (size_t q = 0; q < pr->n_params; q++) {
        tlm_sbuf_putc(b, '\x1f');
        tlm_sbuf_puts(b, pr->params[q].name);
        tlm_sbuf_putc(b, '=');
        if (pr->params[q].is_none)
            tlm_sbuf_putc(b, '\x01');
        else
            tlm_sbuf_puts(b, pr->params[q].value);
    }
    if (ctx->rc) /* --detect_recompute: a key after the params */
        tlm_sbuf_puts(b, tlm_rctx_rc(ctx, r->uid) ? "\x1frc" : "\x1f");
    return !b->oom;
}

/* The kernels of row r (NULL when the sheet has none at all). */
static const int32_t *row_pool(const sheet_state *s, const prow *r)
{
    return s->pool.v ? s->pool.v + r->k0 : NULL;
}

/* Appends row i to group g. */
static void chain_row(sheet_build *b, int32_t g, size_t i)
{
    b->s->rows[b->tail[g]].next = (int32_t)i;
    b->tail[g] = (int32_t)i;
}

/* Chains the rows into groups of equal name + params (head, tail, next).
 * Errors: TLM_ENOMEM. */
static tlm_status group_sheet_rows(sheet_build *b)
{
    tlm_rctx *ctx = b->ctx;
    sheet_state *s = b->s;
    tlm_status st = TLM_ENOMEM;
    /* group of each model result: rows with one result (same name id and
     * inputs) have the same key text, so it is hashed once per result */
    int32_t *gof = malloc((ctx->nperf + 1) * sizeof *gof);
    if (!gof)
        return TLM_ENOMEM;
    memset(gof, 0xff, (ctx->nperf + 1) * sizeof *gof);
    for (size_t i = 0; i < s->nrows; i++) /* a second sheet regroups */
        s->rows[i].next = -1;
    for (size_t i = 0; i < s->nrows; i++) {
        prow *r = &s->rows[i];
        int32_t g = gof[r->perf_idx];
        if (g >= 0 && !ctx->kl &&
            ctx->ev[s->rows[b->head[g]].uid].name == ctx->ev[r->uid].name &&
            tlm_rctx_rc(ctx, s->rows[b->head[g]].uid) ==
                tlm_rctx_rc(ctx, r->uid)) {
            chain_row(b, g, i);
        } else {
            if (!param_key(ctx, r))
                goto done;
            if (ctx->kl) { /* the overlapping kernel names, a key */
                if (tlm_rctx_kl_eval(ctx, row_pool(s, r), r->nk))
                    goto done;
                tlm_rctx_kl_key(ctx, &ctx->s1);
                if (ctx->s1.oom)
                    goto done;
            }
            int is_new;
            g = tlm_group_of(&b->map, &ctx->s1, &b->ngroups, &is_new);
            if (g < 0)
                goto done;
            if (is_new)
                b->head[g] = b->tail[g] = (int32_t)i;
            else
                chain_row(b, g, i);
            gof[r->perf_idx] = g;
        }
        r->grp = g;
    }
    st = TLM_OK;
done:
    free(gof);
    return st;
}

/* The "param: " columns and Compute Spec of row R from the model result
 * of the group's first row r0. */
static void set_group_params(sheet_build *b, size_t R, const prow *r0)
{
    const sheet_state *s = b->s;
    const tlm_perf_result *pr = &b->ctx->perf_res[r0->perf_idx];
    /* a column this op's model lacks is NaN, which astype(str) turns into
     * "nan" (pandas 1.5) */
    for (size_t pc = 0; pc < s->npcols; pc++)
        tlm_tab_set_s(b->t, R, b->col.pc0 + pc, "nan", 3);
    for (size_t q = 0; q < pr->n_params; q++) {
        size_t pc = 0;
        while (pc < s->npcols && strcmp(s->pcols[pc], pr->params[q].name))
            pc++;
        /* a missing value prints "None" (astype(str) under pandas 1.5, as
         * in the reference CSVs) */
        if (pc == s->npcols)
            continue;
        tlm_tab_set_s(b->t, R, b->col.pc0 + pc, pr->params[q].value,
                      strlen(pr->params[q].value));
    }
    tlm_tab_set_s(b->t, R, b->col.proc + 3, pr->compute_spec,
                  strlen(pr->compute_spec));
}

/* TB/s, TFLOPS/s, Pct Roofline (with --gpu_arch) and Kernel Time
 * statistics of row R; Kernel Time has the sum too. */
static void set_group_stats(sheet_build *b, size_t R,
                            const tlm_grp_metrics *gm)
{
    const size_t base[4] = {b->col.tbs, b->col.tbs + 5, b->col.roof + 2,
                            b->col.kt};
    for (size_t which = 0; which < 4; which++) {
        if (which == 2 && !b->arch)
            continue;
        tlm_stats sv;
        tlm_grp_metrics_stats(gm, which, b->vals, &sv);
        double a5[6] = {sv.mean, sv.median, sv.std, sv.min, sv.max, sv.sum};
        for (size_t z = 0; z < (which == 3 ? 6 : 5); z++)
            tlm_tab_set_f(b->t, R, base[which] + z, a5[z]);
    }
}

/* The argument columns of row R: each the first non-null over the group
 * starting at row j0. */
static void set_group_args(sheet_build *b, size_t R, int32_t j0)
{
    static const tlm_arg sa[4] = {TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE,
                                  TLM_ARG_INPUT_STRIDES,
                                  TLM_ARG_CONCRETE_INPUTS};
    tlm_rctx *ctx = b->ctx;
    const prow *rows = b->s->rows;
    for (int q = 0; q < 4; q++) {
        int32_t j = j0;
        while (j >= 0 && !tlm_event_arg_str(ctx->trace, &ctx->ev[rows[j].uid],
                                            sa[q], NULL))
            j = rows[j].next;
        if (j >= 0)
            tlm_rctx_set_arg(ctx, b->t, R, b->col.kd + 2 + (size_t)q,
                             &ctx->ev[rows[j].uid], sa[q], 0);
    }
}

/* The overlap columns of row R: names and details of group g's first
 * row, the mean overlap_pct of its rows.  Returns -1 when out of memory
 * (the table is marked). */
static int set_kl(sheet_build *b, size_t R, size_t g)
{
    tlm_rctx *ctx = b->ctx;
    const prow *rows = b->s->rows;
    tlm_kl_acc acc = {0.0, 0};
    for (int32_t j = b->head[g]; j >= 0; j = rows[j].next) {
        if (tlm_rctx_kl_eval(ctx, row_pool(b->s, &rows[j]), rows[j].nk)) {
            b->t->oom = 1;
            return -1;
        }
        tlm_kl_acc_add(&acc, tlm_rctx_kl_pct(ctx));
    }
    const prow *r0 = &rows[b->head[g]];
    if (tlm_rctx_kl_eval(ctx, row_pool(b->s, r0), r0->nk)) {
        b->t->oom = 1;
        return -1;
    }
    tlm_rctx_kl_set(ctx, b->t, R, b->kc, tlm_kl_acc_mean(&acc));
    return 0;
}

/* Adds the table row of group g.  Returns -1 when out of memory (the
 * table is marked). */
static int fill_sheet_group(sheet_build *b, size_t g)
{
    tlm_rctx *ctx = b->ctx;
    const sheet_state *s = b->s;
    tlm_tab *t = b->t;
    const prow *r0 = &s->rows[b->head[g]];
    long rr = tlm_tab_add_row(t);
    if (rr < 0)
        return -1;
    size_t R = (size_t)rr;
    const char *nm = tlm_rctx_name(ctx, r0->uid);
    tlm_tab_set_s(t, R, 0, nm, strlen(nm));
    set_group_params(b, R, r0);
    /* per-row metrics, computed once: vals[nrows + 1 ..] */
    tlm_grp_metrics gm;
    tlm_grp_metrics_init(&gm, b->vals + b->gmax + 1);
    for (int32_t j = b->head[g]; j >= 0; j = s->rows[j].next) {
        const prow *r = &s->rows[j];
        tlm_perf_metrics m;
        tlm_perf_metrics_compute(&ctx->perf_res[r->perf_idx], r->T,
                                 b->arch ? &ctx->arch : NULL, &m);
        b->off[gm.k] = r->k0;
        b->len[gm.k] = r->nk;
        tlm_grp_metrics_add(&gm, &m, r->T);
    }
    tlm_tab_set_f(t, R, b->col.first, gm.gflops);
    tlm_tab_set_f(t, R, b->col.first + 1, gm.data_moved_mb);
    tlm_tab_set_f(t, R, b->col.first + 2, gm.flops_per_byte);
    set_group_stats(b, R, &gm);
    tlm_rctx_set_proc(ctx, t, R, b->col.proc, &ctx->ev[r0->uid]);
    if (b->arch) {
        tlm_tab_set_f(t, R, b->col.roof, gm.roofline_time_us);
        if (gm.bound)
            tlm_tab_set_s(t, R, b->col.roof + 1, gm.bound, strlen(gm.bound));
    }
    tlm_kd_summary(ctx, s->pool.v, b->off, b->len, gm.k, &ctx->s1, &ctx->s2);
    tlm_kd_set(ctx, t, R, b->col.kd);
    set_group_args(b, R, b->head[g]);
    tlm_tab_set_i(t, R, b->col.kt + 6, (int64_t)gm.k);
    tlm_tab_set_i(t, R, b->col.kt + 7, r0->uid);
    if (ctx->rc) /* appended after the columns of sheet_columns */
        tlm_tab_set_b(t, R, b->col.n, tlm_rctx_rc(ctx, r0->uid));
    return ctx->kl ? set_kl(b, R, g) : 0;
}

/* Builds sheet sh from its rows s: one table row per group of rows with
 * the same name and params, sorted by kernel time. */
static tlm_status emit_sheet(tlm_rctx *ctx, tlm_perf_sheet sh,
                             sheet_state *s)
{
    sheet_build b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.s = s;
    b.arch = ctx->has_arch;
    tlm_status st = TLM_ENOMEM;
    if (sheet_columns(&b.col, s, b.arch) != TLM_OK)
        goto done;
    char tname[300];
    if (ctx->kl)
        tlm_rctx_kl_name(tlm_perf_sheet_name(sh), tname, sizeof tname);
    else
        snprintf(tname, sizeof tname, "%s", tlm_perf_sheet_name(sh));
    b.t = tlm_tab_new(tname, b.col.n, b.col.cn, b.col.ty);
    if (!b.t || tlm_i3map_init(&b.map, 1024) != TLM_OK)
        goto done;
    size_t n1 = s->nrows + 1;
    b.head = malloc(n1 * sizeof *b.head);
    b.tail = malloc(n1 * sizeof *b.tail);
    if (!b.head || !b.tail || group_sheet_rows(&b) != TLM_OK)
        goto done;
    /* the per-group scratch as large as the largest group, not the sheet */
    for (size_t g = 0; g < b.ngroups; g++) {
        size_t k = 0;
        for (int32_t j = b.head[g]; j >= 0; j = s->rows[j].next)
            k++;
        b.gmax = k > b.gmax ? k : b.gmax;
    }
    b.vals = malloc((b.gmax + 1) * 5 * sizeof *b.vals);
    b.off = malloc((b.gmax + 1) * sizeof *b.off);
    b.len = malloc((b.gmax + 1) * sizeof *b.len);
    if (!b.vals || !b.off || !b.len)
        goto done;
    if (ctx->rc &&
        tlm_tab_append_col(b.t, "is_recompute", TLM_COL_BOOL) != TLM_OK)
        goto done;
    if (ctx->kl && tlm_rctx_kl_add_cols(b.t, &b.kc) != TLM_OK)
        goto done;
    for (size_t g = 0; g < b.ngroups; g++)
        if (fill_sheet_group(&b, g))
            break;
    st = tlm_tab_sort_sum_uid(b.t, b.col.kt + 5, b.col.kt + 7);
    size_t keys_end = b.col.pc0 + s->npcols;
    if (ctx->rc) /* is_recompute follows the param columns */
        tlm_tab_move_col(b.t, b.col.n, keys_end++);
    if (ctx->kl) /* overlapping_kernel_names: the last key */
        tlm_tab_move_col(b.t, b.kc, keys_end);
    if (st == TLM_OK && b.t->oom)
        st = TLM_ENOMEM;
done:
    tlm_i3map_free(&b.map);
    free(b.head);
    free(b.tail);
    free(b.vals);
    free(b.off);
    free(b.len);
    free(b.col.names);
    free(b.col.cn);
    free(b.col.ty);
    return tlm_rctx_keep_tab(ctx, b.t, st);
}

tlm_status tlm_rctx_perf_sheets(tlm_rctx *ctx)
{
    tlm_status st = TLM_OK;
    /* sheet of each name id, fwd (low byte) and bwd (high byte) */
    uint32_t nnames = tlm_trace_str_count(ctx->trace);
    uint16_t *cache = calloc(nnames ? nnames : 1, sizeof *cache);
    size_t *tmp = NULL, tmpcap = 0;
    sheet_state *ss = calloc(TLM_PERF_SHEET_COUNT, sizeof *ss);
    if (!ss || !cache) {
        st = TLM_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < ctx->n && st == TLM_OK; i++) {
        const tlm_event *e = &ctx->ev[i];
        if (e->ph != 'X' || tlm_ev_gpu(e) || !e->name)
            continue;
        int32_t code;
        if (e->name < nnames && (cache[e->name] & 0x8000)) {
            code = cache[e->name] & 0x7fff;
        } else {
            const char *nm = tlm_rctx_name(ctx, (int32_t)i);
            code = (int32_t)tlm_perf_sheet_for(nm, 0) |
                   ((int32_t)tlm_perf_sheet_for(nm, 1) << 8);
            if (e->name < nnames)
                cache[e->name] = (uint16_t)(0x8000 | code);
        }
        int fs = code & 0xff, bs = (code >> 8) & 0xff;
        int ok;
        if (fs != TLM_PERF_SHEET_NONE)
            st = compute_row(ctx, (int32_t)i, 0, &ss[fs], &tmpcap, &tmp,
                             &ok);
        if (st == TLM_OK && bs != TLM_PERF_SHEET_NONE &&
            tlm_tree_bwd_event(ctx->tree, (int32_t)i) >= 0)
            st = compute_row(ctx, (int32_t)i, 1, &ss[bs], &tmpcap, &tmp,
                             &ok);
    }
    for (int sh = 1; sh < TLM_PERF_SHEET_COUNT && st == TLM_OK; sh++) {
        if (!ss[sh].nrows)
            continue;
        st = emit_sheet(ctx, (tlm_perf_sheet)sh, &ss[sh]);
        if (st == TLM_OK && ctx->ovl) { /* <sheet>_kl_overlap */
            ctx->kl = 1;
            st = emit_sheet(ctx, (tlm_perf_sheet)sh, &ss[sh]);
            ctx->kl = 0;
        }
        /* done with this sheet's rows before the next one's tables */
        free(ss[sh].rows);
        free(ss[sh].pool.v);
        free(ss[sh].seen);
        memset(&ss[sh], 0, sizeof ss[sh]);
    }
done:
    if (ss)
        for (int sh = 0; sh < TLM_PERF_SHEET_COUNT; sh++) {
            free(ss[sh].rows);
            free(ss[sh].pool.v);
            free(ss[sh].seen);
        }
    free(ss);
    free(tmp);
    free(cache);
    return st;
}
