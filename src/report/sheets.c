/*
 * sheets.c - perf-model sheets (spec/perfreport.md §4.6): GEMM, SDPA_fwd,
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
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

#define MAX_PCOLS 64

typedef struct prow {
    int32_t uid;
    int32_t grp;
    int32_t next;  /* next row of the same group */
    uint8_t bwd;
    size_t k0, nk; /* kernel slice in the pool */
    double T;
    int32_t perf_idx; /* model result in ctx->perf_res */
} prow;

typedef struct pvec {
    int32_t *v;
    size_t n, cap;
} pvec;

static int pvec_push(pvec *p, int32_t x)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        int32_t *q = realloc(p->v, cap * sizeof *q);
        if (!q)
            return -1;
        p->v = q;
        p->cap = cap;
    }
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
        if (*tmpcap < n) {
            size_t *p = realloc(*tmp, n * sizeof *p);
            if (!p)
                return -1;
            *tmp = p;
            *tmpcap = n;
        }
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
    if (s->nrows == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        prow *p = realloc(s->rows, cap * sizeof *p);
        if (!p)
            return TLM_ENOMEM;
        s->rows = p;
        s->cap = cap;
    }
    prow *r = &s->rows[s->nrows++];
    r->uid = u;
    r->bwd = (uint8_t)bwd;
    r->k0 = k0;
    r->nk = nk;
    r->T = T;
    r->grp = -1;
    r->next = -1;
    r->perf_idx = (int32_t)(res - ctx->perf_res);
    /* parameter columns: once per distinct model result */
    size_t pi = (size_t)r->perf_idx;
    if (pi >= s->nseen) {
        size_t nn = ctx->nperf > pi + 1 ? ctx->nperf : pi + 1;
        nn = nn * 2 + 64;
        uint8_t *p = realloc(s->seen, nn);
        if (!p)
            return TLM_ENOMEM;
        memset(p + s->nseen, 0, nn - s->nseen);
        s->seen = p;
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



static tlm_status emit_sheet(tlm_rctx *ctx, tlm_perf_sheet sh,
                             sheet_state *s)
{
    const char *stat_names[5] = {"mean", "median", "std", "min", "max"};
    int arch = ctx->has_arch;
    size_t ncols = 1 + s->npcols + 3 + 10 + 3 + 1 + (arch ? 7 : 0) + 2 + 4 +
                   6 + 2;
    tlm_i3map map = {0};
    int32_t *head = NULL, *tail = NULL;
    double *vals = NULL;
    size_t ngroups = 0;
    char (*names)[96] = calloc(ncols, sizeof *names);
    const char **cn = calloc(ncols, sizeof *cn);
    tlm_coltype *ty = calloc(ncols, sizeof *ty);
    tlm_status st = TLM_ENOMEM;
    tlm_tab *t = NULL;
    if (!names || !cn || !ty)
        goto done;
    size_t c = 0;
#define COL(nm, tp)                                                       \
    do {                                                                  \
        snprintf(names[c], sizeof names[c], "%s", nm);                    \
        ty[c++] = tp;                                                     \
    } while (0)
    COL("name", TLM_COL_STR);
    size_t pc0 = c;
    for (size_t i = 0; i < s->npcols; i++) {
        snprintf(names[c], sizeof names[c], "param: %s", s->pcols[i]);
        ty[c++] = TLM_COL_STR;
    }
    size_t c_first = c;
    COL("GFLOPS_first", TLM_COL_F64);
    COL("Data Moved (MB)_first", TLM_COL_F64);
    COL("FLOPS/Byte_first", TLM_COL_F64);
    size_t c_tbs = c;
    for (int q = 0; q < 5; q++) {
        snprintf(names[c], sizeof names[c], "TB/s_%s", stat_names[q]);
        ty[c++] = TLM_COL_F64;
    }
    for (int q = 0; q < 5; q++) {
        snprintf(names[c], sizeof names[c], "TFLOPS/s_%s", stat_names[q]);
        ty[c++] = TLM_COL_F64;
    }
    size_t c_proc = c;
    COL("process_name_first", TLM_COL_STR);
    COL("process_label_first", TLM_COL_STR);
    COL("thread_name_first", TLM_COL_STR);
    COL("Compute Spec", TLM_COL_STR);
    size_t c_roof = c;
    if (arch) {
        COL("Roofline Time (\xc2\xb5s)_first", TLM_COL_F64);
        COL("Roofline Bound_first", TLM_COL_STR);
        for (int q = 0; q < 5; q++) {
            snprintf(names[c], sizeof names[c], "Pct Roofline_%s",
                     stat_names[q]);
            ty[c++] = TLM_COL_F64;
        }
    }
    size_t c_kd = c;
    COL("kernel_details__summarize_kernel_stats", TLM_COL_STR);
    COL("trunc_kernel_details", TLM_COL_STR);
    COL("Input Dims_first", TLM_COL_STR);
    COL("Input type_first", TLM_COL_STR);
    COL("Input Strides_first", TLM_COL_STR);
    COL("Concrete Inputs_first", TLM_COL_STR);
    size_t c_kt = c;
    for (int q = 0; q < 5; q++) {
        snprintf(names[c], sizeof names[c], "Kernel Time (\xc2\xb5s)_%s",
                 stat_names[q]);
        ty[c++] = TLM_COL_F64;
    }
    COL("Kernel Time (\xc2\xb5s)_sum", TLM_COL_F64);
    COL("name_count", TLM_COL_I64);
    COL("UID_first", TLM_COL_I64);
#undef COL
    for (size_t i = 0; i < c; i++)
        cn[i] = names[i];
    t = tlm_tab_new(tlm_perf_sheet_name(sh), c, cn, ty);
    if (!t)
        goto done;

    /* group rows by name + params */
    if (tlm_i3map_init(&map, 1024) != TLM_OK)
        goto done;
    head = malloc((s->nrows + 1) * sizeof *head);
    tail = malloc((s->nrows + 1) * sizeof *tail);
    vals = malloc((s->nrows + 1) * 4 * sizeof *vals);
    size_t *off = malloc((s->nrows + 1) * sizeof *off);
    size_t *len = malloc((s->nrows + 1) * sizeof *len);
    if (!head || !tail || !vals || !off || !len) {
        free(off);
        free(len);
        goto done;
    }
    /* group of each model result: rows with one result (same name id and
     * inputs) have the same key text, so it is hashed once per result */
    int32_t *gof = malloc((ctx->nperf + 1) * sizeof *gof);
    if (!gof) {
        free(off);
        free(len);
        goto done;
    }
    memset(gof, 0xff, (ctx->nperf + 1) * sizeof *gof);
    for (size_t i = 0; i < s->nrows; i++) {
        prow *r = &s->rows[i];
        /* rows exist only for models that succeeded (compute_row) */
        const tlm_perf_result *pr = &ctx->perf_res[r->perf_idx];
        tlm_status cst = TLM_OK;
        int32_t g = gof[r->perf_idx];
        if (g >= 0 && ctx->ev[s->rows[head[g]].uid].name ==
                          ctx->ev[r->uid].name) {
            s->rows[tail[g]].next = (int32_t)i;
            tail[g] = (int32_t)i;
            r->grp = g;
            continue;
        }
        tlm_sbuf *b = &ctx->s1;
        tlm_sbuf_reset(b);
        tlm_sbuf_puts(b, tlm_rctx_name(ctx, r->uid));
        if (cst == TLM_OK)
            for (size_t q = 0; q < pr->n_params; q++) {
                tlm_sbuf_putc(b, '\x1f');
                tlm_sbuf_puts(b, pr->params[q].name);
                tlm_sbuf_putc(b, '=');
                if (pr->params[q].is_none)
                    tlm_sbuf_putc(b, '\x01');
                else
                    tlm_sbuf_puts(b, pr->params[q].value);
            }
        if (b->oom) {
            free(off);
            free(len);
            free(gof);
            goto done;
        }
        int64_t hk[3];
        tlm_key_hash(b, hk);
        g = tlm_i3map_get(&map, hk[0], hk[1], hk[2]);
        if (g < 0) {
            g = (int32_t)ngroups++;
            if (tlm_i3map_put(&map, hk[0], hk[1], hk[2], g)) {
                free(off);
                free(len);
                free(gof);
                goto done;
            }
            head[g] = tail[g] = (int32_t)i;
        } else {
            s->rows[tail[g]].next = (int32_t)i;
            tail[g] = (int32_t)i;
        }
        gof[r->perf_idx] = g;
        r->grp = g;
    }
    free(gof);
    for (size_t g = 0; g < ngroups; g++) {
        const prow *r0 = &s->rows[head[g]];
        long rr = tlm_tab_add_row(t);
        if (rr < 0)
            break;
        size_t R = (size_t)rr;
        const tlm_event *e0 = &ctx->ev[r0->uid];
        const char *nm = tlm_rctx_name(ctx, r0->uid);
        tlm_tab_set_s(t, R, 0, nm, strlen(nm));
        /* params of the first row */
        {
            prow *r = &s->rows[head[g]];
            const tlm_perf_result *pr = &ctx->perf_res[r->perf_idx];
            {
                /* a column this op's model lacks is NaN, which
                   astype(str) turns into "nan" (pandas 1.5) */
                for (size_t pc = 0; pc < s->npcols; pc++)
                    tlm_tab_set_s(t, R, pc0 + pc, "nan", 3);
                for (size_t q = 0; q < pr->n_params; q++) {
                    size_t pc = 0;
                    while (pc < s->npcols &&
                           strcmp(s->pcols[pc], pr->params[q].name))
                        pc++;
                    /* a missing value prints "None" (astype(str) under
                       pandas 1.5, as in the reference CSVs) */
                    if (pc == s->npcols)
                        continue;
                    tlm_tab_set_s(t, R, pc0 + pc, pr->params[q].value,
                                  strlen(pr->params[q].value));
                }
                tlm_tab_set_s(t, R, c_proc + 3, pr->compute_spec,
                              strlen(pr->compute_spec));
            }
        }
        /* firsts (first non-null) */
        double fg = NAN, fm = NAN, ff = NAN, frt = NAN;
        const char *fb = NULL;
        size_t k = 0;
        /* per-row metrics, computed once: vals[nrows + 1 ..] */
        double *mv = vals + s->nrows + 1;
        for (int32_t j = head[g]; j >= 0; j = s->rows[j].next) {
            const prow *r = &s->rows[j];
            tlm_perf_metrics m;
            tlm_perf_metrics_compute(&ctx->perf_res[r->perf_idx], r->T,
                                     arch ? &ctx->arch : NULL, &m);
            mv[3 * k] = m.tb_s;
            mv[3 * k + 1] = m.tflops_s;
            mv[3 * k + 2] = m.pct_roofline;
            if (isnan(fg))
                fg = m.gflops;
            if (isnan(fm))
                fm = m.data_moved_mb;
            if (isnan(ff))
                ff = m.flops_per_byte;
            if (isnan(frt))
                frt = m.roofline_time_us;
            if (!fb && m.bound != TLM_ROOFLINE_NONE)
                fb = tlm_roofline_bound_str(m.bound);
            off[k] = r->k0;
            len[k] = r->nk;
            k++;
        }
        tlm_tab_set_f(t, R, c_first, fg);
        tlm_tab_set_f(t, R, c_first + 1, fm);
        tlm_tab_set_f(t, R, c_first + 2, ff);
        double *v = vals;
        tlm_stats sv;
        for (int which = 0; which < 4; which++) {
            size_t q = 0;
            for (int32_t j = head[g]; j >= 0; j = s->rows[j].next) {
                v[q] = which < 3 ? mv[3 * q + (size_t)which]
                                 : s->rows[j].T;
                q++;
            }
            tlm_stats_of(v, q, &sv);
            double a5[6] = {sv.mean, sv.median, sv.std, sv.min, sv.max,
                            sv.sum};
            size_t base = which == 0   ? c_tbs
                          : which == 1 ? c_tbs + 5
                          : which == 2 ? c_roof + 2
                                       : c_kt;
            if (which == 2 && !arch)
                continue;
            for (int z = 0; z < (which == 3 ? 6 : 5); z++)
                tlm_tab_set_f(t, R, base + (size_t)z, a5[z]);
        }
        const char *s1 = tlm_rctx_process_name(ctx, e0);
        tlm_tab_set_s(t, R, c_proc, s1, strlen(s1));
        s1 = tlm_rctx_process_label(ctx, e0);
        tlm_tab_set_s(t, R, c_proc + 1, s1, strlen(s1));
        s1 = tlm_rctx_thread_name(ctx, e0);
        tlm_tab_set_s(t, R, c_proc + 2, s1, strlen(s1));
        if (arch) {
            tlm_tab_set_f(t, R, c_roof, frt);
            if (fb)
                tlm_tab_set_s(t, R, c_roof + 1, fb, strlen(fb));
        }
        tlm_kd_summary(ctx, s->pool.v, off, len, k, &ctx->s1, &ctx->s2);
        tlm_kd_set(ctx, t, R, c_kd);
        static const tlm_arg sa[4] = {TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE,
                                      TLM_ARG_INPUT_STRIDES,
                                      TLM_ARG_CONCRETE_INPUTS};
        for (int q = 0; q < 4; q++) {
            /* first non-null over the group */
            int32_t j = head[g];
            while (j >= 0 && !tlm_event_arg_str(ctx->trace,
                                                &ctx->ev[s->rows[j].uid],
                                                sa[q], NULL))
                j = s->rows[j].next;
            if (j >= 0)
                tlm_rctx_set_arg(ctx, t, R, c_kd + 2 + (size_t)q,
                                 &ctx->ev[s->rows[j].uid], sa[q], 0);
        }
        tlm_tab_set_i(t, R, c_kt + 6, (int64_t)k);
        tlm_tab_set_i(t, R, c_kt + 7, r0->uid);
    }
    free(off);
    free(len);
    {
        size_t *perm = malloc((t->nrows + 1) * sizeof *perm);
        if (!perm)
            goto done;
        for (size_t i = 0; i < t->nrows; i++)
            perm[i] = i;
        tlm_sum_uid_key sc = {t, c_kt + 5, c_kt + 7};
        st = tlm_sort_idx(perm, t->nrows, tlm_cmp_sum_uid, &sc);
        if (st == TLM_OK)
            st = tlm_tab_permute(t, perm);
        free(perm);
        if (st == TLM_OK && t->oom)
            st = TLM_ENOMEM;
    }
done:
    tlm_i3map_free(&map);
    free(head);
    free(tail);
    free(vals);
    free(names);
    free(cn);
    free(ty);
    if (st != TLM_OK) {
        tlm_tab_free(t);
        return st;
    }
    if (!t->nrows) {
        tlm_tab_free(t);
        return TLM_OK;
    }
    return tlm_rctx_add_tab(ctx, t);
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
    for (int sh = 1; sh < TLM_PERF_SHEET_COUNT && st == TLM_OK; sh++)
        if (ss[sh].nrows)
            st = emit_sheet(ctx, (tlm_perf_sheet)sh, &ss[sh]);
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
