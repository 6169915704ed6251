/*
 * unified.c - unified_perf_summary ([perfreport] §4.7): one row per
 * analysable op instance without double counting: ops with a perf model,
 * else leaf ops, plus "Synthetic Op" rows for GPU work no collected op
 * covers.  Rows are grouped by name, category, thread and shapes.
 *
 * The collection walk starts at every parentless python_function (when
 * python functions are in the tree; they are transparent), then at every
 * cpu_op root in (ts, UID) order.  The
 * test "some cpu_op below has a perf model and GPU work" is answered from a
 * memo filled bottom-up once per node, so the walk is linear.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "callstack.h"
#include "report_internal.h"

enum { ROW_OWN = 0, ROW_SOLE_BWD = 1, ROW_LEAF = 2, ROW_SYNTH = 3 };
enum { U_BELOW_KNOWN = 1, U_BELOW = 2, U_VISITED = 4, U_COVERED = 8 };

typedef struct urow {
    int32_t uid;      /* event the row is copied from */
    int32_t row_uid;  /* UID printed (new for synthetic rows) */
    int32_t fwd;      /* sole bwd: forward op */
    int32_t kernel;   /* synthetic: the kernel */
    double T;
    int32_t perf_idx; /* index in ctx->perf_res when metrics_ok */
    uint32_t params_off; /* perf_params text in the pool, or UINT32_MAX */
    const char *category;
    int32_t next;
    int32_t k_lo, k_n; /* the op's GPU events: gpu_order slice */
    uint8_t kind;      /* (the bytes here: 64 bytes a row, not 72) */
    uint8_t has_model;
    uint8_t metrics_ok;
    double dur_us;     /* the op's duration */
} urow;

typedef struct uctx {
    tlm_rctx *ctx;
    /* per event: model_below memo (U_BELOW_KNOWN, U_BELOW), visited,
     * covered (GPU event covered by a collected row); one byte, not three:
     * this runs beside the other sheets */
    uint8_t *fl;
    urow *rows;
    size_t nrows, cap;
    tlm_warm wrows;
    tlm_sbuf text;       /* perf_params strings, NUL separated */
    const tlm_perf_result *cur; /* last model result (cache owned) */
    tlm_i3map pp_map;           /* result index -> perf_params text */
    tlm_status st;
} uctx;

static int is_cpu_op(const uctx *u, int32_t x)
{
    return tlm_nd(u->ctx->tree, x)->cat == TLM_CAT_CPU_OP;
}

static int has_gpu(const uctx *u, int32_t x)
{
    size_t n;
    tlm_nd_gpu(u->ctx->tree, x, &n);
    return n > 0;
}

static int has_model(const uctx *u, int32_t x)
{
    return tlm_rctx_has_model(u->ctx, x);
}

/* 1 when some cpu_op strictly below x (through cpu_op / python_function
 * nodes) has a perf model and GPU work. */
static int model_below(uctx *u, int32_t x, int depth)
{
    if (u->fl[x] & U_BELOW_KNOWN)
        return (u->fl[x] & U_BELOW) != 0;
    int r = 0;
    tlm_tree *t = u->ctx->tree;
    for (int32_t c = tlm_nd(t, x)->first_child; c >= 0 && !r;
         c = tlm_nd(t, c)->next_sibling) {
        tlm_cat cat = (tlm_cat)tlm_nd(t, c)->cat;
        if (cat != TLM_CAT_CPU_OP && cat != TLM_CAT_PYTHON_FUNCTION)
            continue;
        if (cat == TLM_CAT_CPU_OP && has_model(u, c) && has_gpu(u, c))
            r = 1;
        else if (depth < 2000)
            r = model_below(u, c, depth + 1);
    }
    u->fl[x] |= (uint8_t)(U_BELOW_KNOWN | (r ? U_BELOW : 0));
    return r;
}

static int leaf_rec(uctx *u, int32_t x, int depth)
{
    tlm_tree *t = u->ctx->tree;
    int driver_ok = !(u->ctx->opts.compat & TLM_COMPAT_LEAF_NO_DRIVER);
    for (int32_t c = tlm_nd(t, x)->first_child; c >= 0;
         c = tlm_nd(t, c)->next_sibling) {
        const tlm_tnode *d = tlm_nd(t, c);
        if (d->flags & TLM_NODE_GPU)
            return 1;
        if (depth < 10 &&
            (d->cat == TLM_CAT_CUDA_RUNTIME ||
             d->cat == TLM_CAT_PYTHON_FUNCTION ||
             (driver_ok && d->cat == TLM_CAT_CUDA_DRIVER)) &&
            leaf_rec(u, c, depth + 1))
            return 1;
    }
    return 0;
}

static int is_leaf(uctx *u, int32_t x)
{
    return is_cpu_op(u, x) && leaf_rec(u, x, 1);
}

/* Kernels of x's subtree sorted by ts -> names (perf model input). */
typedef struct kts {
    const tlm_event *ev;
    const int32_t *v;
} kts;

static int cmp_kts(const void *vc, size_t a, size_t b)
{
    const kts *c = vc;
    int64_t x = c->ev[c->v[a]].ts, y = c->ev[c->v[b]].ts;
    return x < y ? -1 : (x > y);
}

/* Runs the model of op x (pass bwd) over kernels g[0..n).  Returns the
 * status of tlm_perf_compute. */
static tlm_status run_model(uctx *u, int32_t x, int bwd, const int32_t *g,
                            size_t n)
{
    size_t *idx = malloc((n + 1) * sizeof *idx);
    int32_t *k = malloc((n + 1) * sizeof *k);
    if (!idx || !k) {
        free(idx);
        free(k);
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    kts kc = {u->ctx->ev, g};
    tlm_status st = tlm_sort_idx(idx, n, cmp_kts, &kc);
    for (size_t i = 0; i < n; i++)
        k[i] = g[idx[i]];
    if (st == TLM_OK)
        st = tlm_rctx_perf(u->ctx, x, bwd, k, n, &u->cur);
    free(idx);
    free(k);
    return st;
}

/* GPU events below the bwd nodes of x and its descendants. */
static int32_t *bwd_kernels(uctx *u, int32_t x, size_t *n)
{
    tlm_tree *t = u->ctx->tree;
    size_t cap = 64, k = 0;
    int32_t *v = malloc(cap * sizeof *v);
    if (!v)
        return NULL;
    int32_t y = x;
    for (;;) {
        int32_t b = tlm_tree_bwd_event(t, y);
        if (b >= 0) {
            size_t ng;
            const int32_t *g = tlm_nd_gpu(t, b, &ng);
            if (tlm_grow((void **)&v, &cap, k + ng, sizeof *v, 64)) {
                free(v);
                return NULL;
            }
            memcpy(v + k, g, ng * sizeof *g);
            k += ng;
        }
        int32_t c = tlm_nd(t, y)->first_child;
        if (c >= 0) {
            y = c;
            continue;
        }
        while (y != x && tlm_nd(t, y)->next_sibling < 0)
            y = tlm_nd(t, y)->parent;
        if (y == x)
            break;
        y = tlm_nd(t, y)->next_sibling;
    }
    *n = k;
    return v;
}

static urow *new_row(uctx *u, int32_t x, int kind)
{
    if (u->nrows == u->cap) {
        /* a row per event at most (ops and uncovered kernels): that much
         * address space at first, whose pages are populated only as rows
         * come, so that no growth copies the rows; where the system will
         * not reserve it (strict overcommit), grown by doubling */
        size_t first = u->cap ? 0 : u->ctx->n + 1, need = u->nrows + 1;
        if (tlm_grow((void **)&u->rows, &u->cap, need, sizeof *u->rows,
                     first) &&
            (first <= 256 || tlm_grow((void **)&u->rows, &u->cap, need,
                                      sizeof *u->rows, 256))) {
            u->st = TLM_ENOMEM;
            return NULL;
        }
    }
    tlm_warm_ahead(&u->wrows, u->rows, (u->nrows + 1) * sizeof *u->rows,
                   u->cap * sizeof *u->rows);
    urow *r = &u->rows[u->nrows++];
    memset(r, 0, sizeof *r);
    r->uid = r->row_uid = x;
    r->fwd = r->kernel = -1;
    r->kind = (uint8_t)kind;
    r->params_off = UINT32_MAX;
    r->next = -1;
    r->perf_idx = -1;
    /* copied now, while the node and event are in cache: the summary
     * visits rows group by group, in no memory order */
    tlm_grange g = tlm_nd_grange(u->ctx->tree, x);
    r->k_lo = g.lo;
    r->k_n = g.hi - g.lo;
    r->dur_us = tlm_ns_to_us(tlm_ev_dur(&(u->ctx->ev[x])));
    return r;
}

/* Metrics of a row, recomputed from its model result (rows keep an index,
 * not the 88-byte metrics: one row per op instance). */
static void row_metrics(const uctx *u, const urow *r, tlm_perf_metrics *m)
{
    if (!r->metrics_ok || r->perf_idx < 0) {
        m->gflops = m->data_moved_mb = m->flops_per_byte = NAN;
        m->tflops_s = m->tb_s = m->roofline_time_us = NAN;
        m->pct_roofline = NAN;
        m->bound = TLM_ROOFLINE_NONE;
        return;
    }
    tlm_perf_metrics_compute(&u->ctx->perf_res[r->perf_idx], r->T,
                             u->ctx->has_arch ? &u->ctx->arch : NULL, m);
}

static void set_metrics(uctx *u, urow *r)
{
    /* perf_params text once per distinct model result */
    int64_t ri = (int64_t)(u->cur - u->ctx->perf_res);
    r->perf_idx = (int32_t)ri;
    int32_t off = tlm_i3map_get(&u->pp_map, ri, 0, 0);
    if (off < 0) {
        char buf[4096];
        tlm_perf_params_repr(u->cur, buf, sizeof buf);
        if (u->text.len > (size_t)INT32_MAX - sizeof buf) {
            u->st = TLM_ELIMIT;
            return;
        }
        off = (int32_t)u->text.len;
        tlm_sbuf_puts(&u->text, buf);
        tlm_sbuf_putc(&u->text, '\0');
        if (tlm_i3map_put(&u->pp_map, ri, 0, 0, off) != TLM_OK) {
            u->st = TLM_ENOMEM;
            return;
        }
    }
    r->params_off = (uint32_t)off;
    r->metrics_ok = 1;
}

static void cover(uctx *u, int32_t x)
{
    size_t n;
    const int32_t *g = tlm_nd_gpu(u->ctx->tree, x, &n);
    for (size_t i = 0; i < n; i++)
        u->fl[g[i]] |= U_COVERED;
}

static void collect_own(uctx *u, int32_t x)
{
    size_t n;
    const int32_t *g = tlm_nd_gpu(u->ctx->tree, x, &n);
    tlm_status st = run_model(u, x, 0, g, n);
    if (st == TLM_ENOMEM) {
        u->st = st;
        return;
    }
    cover(u, x);
    if (st == TLM_EINVAL)
        return; /* NotImplementedError: row dropped, kernels covered */
    if (st != TLM_OK && u->cur && u->cur->out_of_range)
        u->ctx->n_out_of_range += 1; /* no figures: the coverage says so */
    urow *r = new_row(u, x, ROW_OWN);
    if (!r)
        return;
    r->has_model = 1; /* category: once the launchers are known */
    if (tlm_rctx_busy_us(u->ctx, g, n, &r->T) != TLM_OK) {
        u->st = TLM_ENOMEM;
        return;
    }
    if (st == TLM_OK)
        set_metrics(u, r);
}

static int sole_bwd(uctx *u, int32_t x, int32_t *fwd_out)
{
    tlm_tree *t = u->ctx->tree;
    int32_t w = x;
    for (int i = 0; i < 5 && w >= 0; i++) {
        if (tlm_tree_fwd_event(t, w) >= 0)
            break;
        w = tlm_nd(t, w)->parent;
    }
    if (w < 0 || tlm_tree_fwd_event(t, w) < 0)
        return 0;
    int32_t f = tlm_tree_fwd_event(t, w);
    const char *fname = tlm_rctx_name(u->ctx, f);
    if (!tlm_rctx_has_model(u->ctx, f) ||
        !tlm_perf_model_category(fname, 1))
        return 0;
    const char *wn = tlm_rctx_name(u->ctx, w);
    const char *colon = strstr(wn, ": ");
    if (!colon)
        return 0;
    const char *want = colon + 2;
    /* exactly one cpu_op descendant of w with GPU work named `want` */
    int count = 0, self = 0;
    int32_t y = tlm_nd(t, w)->first_child;
    while (y >= 0) {
        if (is_cpu_op(u, y) && has_gpu(u, y) &&
            !strcmp(tlm_rctx_name(u->ctx, y), want)) {
            count++;
            if (y == x)
                self = 1;
        }
        int32_t c = tlm_nd(t, y)->first_child;
        if (c >= 0 && !(tlm_nd(t, y)->flags & TLM_NODE_GPU)) {
            y = c;
            continue;
        }
        while (y != w && tlm_nd(t, y)->next_sibling < 0)
            y = tlm_nd(t, y)->parent;
        if (y == w)
            break;
        y = tlm_nd(t, y)->next_sibling;
    }
    if (count != 1 || !self)
        return 0;
    size_t n;
    int32_t *g = bwd_kernels(u, f, &n);
    if (!g) {
        u->st = TLM_ENOMEM;
        return 0;
    }
    tlm_status st = run_model(u, f, 1, g, n);
    free(g);
    if (st == TLM_ENOMEM)
        u->st = st;
    if (st != TLM_OK)
        return 0;
    *fwd_out = f;
    return 1;
}

static void collect_sole(uctx *u, int32_t x, int32_t f)
{
    size_t n;
    int32_t *g = bwd_kernels(u, f, &n);
    if (!g) {
        u->st = TLM_ENOMEM;
        return;
    }
    tlm_status st = run_model(u, f, 1, g, n);
    urow *r = st == TLM_ENOMEM ? NULL : new_row(u, x, ROW_SOLE_BWD);
    if (!r) {
        free(g);
        if (st == TLM_ENOMEM)
            u->st = st;
        return;
    }
    cover(u, x);
    r->fwd = f;
    r->has_model = 1;
    /* else the op's category, once the launchers are known */
    r->category = tlm_perf_model_category(tlm_rctx_name(u->ctx, f), 1);
    if (tlm_rctx_busy_us(u->ctx, g, n, &r->T) != TLM_OK)
        u->st = TLM_ENOMEM;
    free(g);
    if (st == TLM_OK && u->st == TLM_OK)
        set_metrics(u, r);
}

static void collect_leaf(uctx *u, int32_t x)
{
    urow *r = new_row(u, x, ROW_LEAF);
    if (!r)
        return;
    cover(u, x); /* category: once the launchers are known */
    size_t n;
    const int32_t *g = tlm_nd_gpu(u->ctx->tree, x, &n);
    if (tlm_rctx_busy_us(u->ctx, g, n, &r->T) != TLM_OK)
        u->st = TLM_ENOMEM;
}

static int launches_comm(uctx *u, int32_t x)
{
    size_t n;
    const int32_t *g = tlm_nd_gpu(u->ctx->tree, x, &n);
    for (size_t i = 0; i < n; i++)
        if (tlm_rctx_is_comm(u->ctx, g[i]))
            return 1;
    return 0;
}

static void visit(uctx *u, int32_t x, int depth);

static void visit_children(uctx *u, int32_t x, int depth)
{
    tlm_tree *t = u->ctx->tree;
    for (int32_t c = tlm_nd(t, x)->first_child; c >= 0 && u->st == TLM_OK;
         c = tlm_nd(t, c)->next_sibling)
        visit(u, c, depth + 1);
}

static void visit(uctx *u, int32_t x, int depth)
{
    if ((u->fl[x] & U_VISITED) || depth > 4000)
        return;
    u->fl[x] |= U_VISITED;
    if (!has_gpu(u, x))
        return;
    /* python functions (in the tree with --include_call_stack or
     * --detect_recompute) are transparent */
    if (tlm_nd(u->ctx->tree, x)->cat == TLM_CAT_PYTHON_FUNCTION) {
        visit_children(u, x, depth);
        return;
    }
    if (!is_cpu_op(u, x))
        return;
    if (has_model(u, x)) {
        collect_own(u, x);
        return;
    }
    int32_t f;
    if (sole_bwd(u, x, &f)) {
        if (model_below(u, x, 0))
            visit_children(u, x, depth);
        else
            collect_sole(u, x, f);
        return;
    }
    if (model_below(u, x, 0)) {
        visit_children(u, x, depth);
        return;
    }
    if (is_leaf(u, x)) {
        tlm_tree *t = u->ctx->tree;
        int any = 0;
        for (int32_t c = tlm_nd(t, x)->first_child; c >= 0;
             c = tlm_nd(t, c)->next_sibling)
            if (is_cpu_op(u, c) && has_model(u, c) && has_gpu(u, c)) {
                any = 1;
                visit(u, c, depth + 1);
            }
        if (!any && !launches_comm(u, x))
            collect_leaf(u, x);
        return;
    }
    visit_children(u, x, depth);
}

/* MARK: - synthetic rows and the summary --------------------------------- */

static int32_t cpu_ancestor(const tlm_rctx *ctx, int32_t g)
{
    for (int32_t a = tlm_nd(ctx->tree, g)->parent; a >= 0;
         a = tlm_nd(ctx->tree, a)->parent)
        if (tlm_nd(ctx->tree, a)->cat == TLM_CAT_CPU_OP)
            return a;
    return -1;
}

static void synthetic(uctx *u)
{
    tlm_rctx *ctx = u->ctx;
    int32_t next_uid = ctx->max_uid + 1;
    for (int pass = 0; pass < 2 && u->st == TLM_OK; pass++) {
        for (size_t j = 0; j < ctx->ngpu && u->st == TLM_OK; j++) {
            int32_t g = ctx->gpu[j];
            if (u->fl[g] & U_COVERED)
                continue;
            if (!(tlm_nd(ctx->tree, g)->flags & TLM_NODE_TREE))
                continue;
            if (ctx->gpu_fl[j] & TLM_GPU_COMM)
                continue;
            int32_t p = cpu_ancestor(ctx, g);
            int32_t src = p >= 0 ? p : tlm_nd(ctx->tree, g)->parent;
            if (src < 0 || (pass == 0) != (p < 0))
                continue;
            urow *r = new_row(u, src, ROW_SYNTH);
            if (!r)
                return;
            r->row_uid = next_uid++;
            r->kernel = g;
            r->T = tlm_ev_end_us(&ctx->ev[g]) - tlm_ev_ts_us(&ctx->ev[g]);
            r->category = "other"; /* set from the row name below */
        }
    }
}

/* Kernel name the category of a Synthetic row falls back on: its own
 * kernel, or with TLM_COMPAT_SYNTH_CATEGORY the first of the parent's
 * kernel_details, which the row inherits (dict(parent)): the launcher's
 * direct kernels by ts, so every row of a graph launch takes the
 * category of the graph's earliest kernel (addendum §A6). */
static const char *synth_first_kernel(const uctx *u, const urow *r)
{
    const tlm_rctx *ctx = u->ctx;
    int32_t k = r->kernel;
    int32_t li = (ctx->opts.compat & TLM_COMPAT_SYNTH_CATEGORY)
                     ? tlm_lkmap_get(ctx->lk_of, r->uid)
                     : -1;
    if (li >= 0) {
        const tlm_launcher *L = &ctx->lk[li];
        if (L->nk)
            k = ctx->lk_kernels[L->k0];
    }
    return tlm_rctx_name(ctx, k);
}

static void row_name(const uctx *u, const urow *r, tlm_sbuf *b)
{
    tlm_sbuf_reset(b);
    tlm_sbuf_puts(b, tlm_rctx_name(u->ctx, r->uid));
    if (r->kind == ROW_SYNTH) {
        tlm_sbuf_puts(b, "->");
        tlm_sbuf_puts(b, tlm_rctx_name(u->ctx, r->kernel));
        tlm_sbuf_puts(b, " (Synthetic Op)");
    }
}

static const int32_t *row_kernels(const uctx *u, const urow *r, size_t *n)
{
    if (r->kind == ROW_SYNTH) {
        *n = 1;
        return &r->kernel;
    }
    *n = (size_t)r->k_n;
    return u->ctx->tree->gpu_order + r->k_lo;
}

/* Columns of unified_perf_summary and the first index of each group of
 * them (the Roofline and Pct Roofline ones only with --gpu_arch). */
typedef struct ucols {
    const char *name[64];
    tlm_coltype ty[64];
    size_t n;
    size_t ex, dur, g, rb, ms, pms, kms, dm, mmm, pmm, kmm, kd, cs, pct;
} ucols;

static void unified_columns(ucols *k, int arch, int call_stack)
{
    k->n = 0;
#define COL(nm, tp) (k->name[k->n] = (nm), k->ty[k->n++] = (tp))
    COL("name", TLM_COL_STR);
    COL("op category", TLM_COL_STR);
    COL("process_name", TLM_COL_STR);
    COL("process_label", TLM_COL_STR);
    COL("thread_name", TLM_COL_STR);
    COL("Input Dims", TLM_COL_STR);
    COL("Input type", TLM_COL_STR);
    COL("Input Strides", TLM_COL_STR);
    COL("Concrete Inputs", TLM_COL_STR);
    k->ex = k->n;
    COL("ex_UID", TLM_COL_I64);
    COL("operation_count", TLM_COL_I64);
    k->dur = k->n;
    COL("total_duration_us", TLM_COL_F64);
    COL("mean_duration_us", TLM_COL_F64);
    COL("std_duration_us", TLM_COL_F64);
    k->g = k->n;
    COL("GFLOPS", TLM_COL_F64);
    COL("Data Moved (MB)", TLM_COL_F64);
    COL("FLOPS/Byte", TLM_COL_F64);
    COL("Compute Spec", TLM_COL_STR);
    k->rb = k->n;
    if (arch) {
        COL("Roofline Bound", TLM_COL_STR);
        COL("Roofline Time (\xc2\xb5s)", TLM_COL_F64);
    }
    k->ms = k->n;
    COL("TB/s_mean", TLM_COL_F64);
    COL("TB/s_std", TLM_COL_F64);
    COL("TFLOPS/s_mean", TLM_COL_F64);
    COL("TFLOPS/s_std", TLM_COL_F64);
    k->pms = k->n;
    if (arch) {
        COL("Pct Roofline_mean", TLM_COL_F64);
        COL("Pct Roofline_std", TLM_COL_F64);
    }
    k->kms = k->n;
    COL("Kernel Time (\xc2\xb5s)_mean", TLM_COL_F64);
    COL("Kernel Time (\xc2\xb5s)_std", TLM_COL_F64);
    COL("Kernel Time (\xc2\xb5s)_sum", TLM_COL_F64);
    k->dm = k->n;
    COL("duration_us_median", TLM_COL_F64);
    COL("duration_us_min", TLM_COL_F64);
    COL("duration_us_max", TLM_COL_F64);
    k->mmm = k->n;
    COL("TB/s_median", TLM_COL_F64);
    COL("TB/s_min", TLM_COL_F64);
    COL("TB/s_max", TLM_COL_F64);
    COL("TFLOPS/s_median", TLM_COL_F64);
    COL("TFLOPS/s_min", TLM_COL_F64);
    COL("TFLOPS/s_max", TLM_COL_F64);
    k->pmm = k->n;
    if (arch) {
        COL("Pct Roofline_median", TLM_COL_F64);
        COL("Pct Roofline_min", TLM_COL_F64);
        COL("Pct Roofline_max", TLM_COL_F64);
    }
    k->kmm = k->n;
    COL("Kernel Time (\xc2\xb5s)_median", TLM_COL_F64);
    COL("Kernel Time (\xc2\xb5s)_min", TLM_COL_F64);
    COL("Kernel Time (\xc2\xb5s)_max", TLM_COL_F64);
    k->kd = k->n;
    COL("kernel_details_summary", TLM_COL_STR);
    COL("trunc_kernel_details", TLM_COL_STR);
    COL("perf_params", TLM_COL_STR);
    COL("has_perf_model", TLM_COL_BOOL);
    k->cs = k->n;
    if (call_stack) { /* --include_call_stack */
        COL("entry_point", TLM_COL_STR);
        COL("call_stack_full", TLM_COL_STR);
    }
    k->pct = k->n;
    COL("Percentage (%)", TLM_COL_F64);
    COL("Cumulative Percentage (%)", TLM_COL_F64);
#undef COL
}

static const tlm_arg shape_args[4] = {TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE,
                                      TLM_ARG_INPUT_STRIDES,
                                      TLM_ARG_CONCRETE_INPUTS};

/* The summary being built: the rows' groups, the table and the scratch
 * sized by the largest group. */
typedef struct usum {
    uctx *u;
    int arch;
    ucols col;
    tlm_tab *t;
    tlm_i3map map;        /* key hash -> group */
    tlm_sbuf key;         /* a row's key, then a group's name */
    int32_t *head, *tail; /* first and last row of each group */
    size_t ng;
    double *v;  /* statistics scratch: a group's rows, or the groups */
    double *mv; /* 4 metrics per row of a group (tlm_grp_metrics) */
    int32_t *pool;     /* kernels of a group's rows */
    size_t *off, *len; /* each row's slice of pool */
    tlm_cstack *cs;    /* with --include_call_stack */
    size_t kc;         /* the first overlap column (ctx->kl) */
} usum;

/* Grouping key of row r into s->key: name, synthetic kernel, category,
 * process and thread, and the four shape arguments. */
static void row_key(usum *s, const urow *r)
{
    tlm_rctx *ctx = s->u->ctx;
    const tlm_event *e = &ctx->ev[r->uid];
    tlm_sbuf *key = &s->key;
    tlm_sbuf_reset(key);
    tlm_key_id(key, e->name);
    tlm_key_id(key,
               r->kind == ROW_SYNTH ? (int64_t)ctx->ev[r->kernel].name : -1);
    tlm_key_id(key, tlm_rctx_cat_index(ctx, r->category));
    int64_t mid[3];
    tlm_argv av[4];
    tlm_rctx_meta_ids(ctx, e, mid);
    for (int f = 0; f < 3; f++)
        tlm_key_id(key, mid[f]);
    if (r->kind == ROW_OWN && r->perf_idx >= 0) {
        /* the model ran on this op: its inputs are these arguments'
         * ids (tlm_rctx_perf), no second scan */
        const int64_t *pi = ctx->perf_ids[r->perf_idx];
        for (int q = 0; q < 4; q++)
            tlm_key_id(key, pi[1 + q]);
    } else {
        tlm_rctx_args(ctx, e, shape_args, 4, av);
        for (int q = 0; q < 4; q++)
            tlm_key_id(key, tlm_argv_id(&av[q]));
    }
    if (ctx->rc) /* --detect_recompute: a key after Concrete Inputs */
        tlm_key_id(key, tlm_rctx_rc(ctx, r->uid));
}

/* The overlapping kernel names of row r, a key (*_kl_overlap).  Errors:
 * TLM_ENOMEM. */
static tlm_status row_kl_key(usum *s, const urow *r)
{
    size_t n;
    const int32_t *kg = row_kernels(s->u, r, &n);
    tlm_status st = tlm_rctx_kl_eval(s->u->ctx, kg, n);
    if (st == TLM_OK)
        tlm_rctx_kl_key(s->u->ctx, &s->key);
    return st;
}

/* The overlap columns of row R: names and details of group g's first
 * row, the mean overlap_pct of its rows.  Errors: TLM_ENOMEM. */
static tlm_status set_kl(usum *s, size_t R, size_t g)
{
    const uctx *u = s->u;
    tlm_kl_acc acc = {0.0, 0};
    size_t n;
    for (int32_t j = s->head[g]; j >= 0; j = u->rows[j].next) {
        const int32_t *kg = row_kernels(u, &u->rows[j], &n);
        if (tlm_rctx_kl_eval(u->ctx, kg, n) != TLM_OK)
            return TLM_ENOMEM;
        tlm_kl_acc_add(&acc, tlm_rctx_kl_pct(u->ctx));
    }
    const int32_t *k0 = row_kernels(u, &u->rows[s->head[g]], &n);
    if (tlm_rctx_kl_eval(u->ctx, k0, n) != TLM_OK)
        return TLM_ENOMEM;
    tlm_rctx_kl_set(u->ctx, s->t, R, s->kc, tlm_kl_acc_mean(&acc));
    return TLM_OK;
}

/* Chains the rows into groups of equal key (head, tail, next).  Errors:
 * TLM_ENOMEM. */
static tlm_status group_rows(usum *s)
{
    uctx *u = s->u;
    size_t nr = u->nrows;
    for (size_t i = 0; i < nr; i++) /* a second summary regroups */
        u->rows[i].next = -1;
    for (size_t i = 0; i < nr; i++) {
        urow *r = &u->rows[i];
        if (i + TLM_PREFETCH_AHEAD < nr)
            TLM_PREFETCH(
                &u->ctx->ev[u->rows[i + TLM_PREFETCH_AHEAD].uid]);
        row_key(s, r);
        if (u->ctx->kl && row_kl_key(s, r) != TLM_OK)
            return TLM_ENOMEM;
        if (s->key.oom)
            return TLM_ENOMEM;
        int is_new;
        int32_t g = tlm_group_of(&s->map, &s->key, &s->ng, &is_new);
        if (g < 0)
            return TLM_ENOMEM;
        if (is_new) {
            s->head[g] = s->tail[g] = (int32_t)i;
        } else {
            u->rows[s->tail[g]].next = (int32_t)i;
            s->tail[g] = (int32_t)i;
        }
    }
    return TLM_OK;
}

/* The scratch of the groups: sized by the largest one, and one pool for
 * the kernel lists of all rows.  Errors: TLM_ENOMEM. */
static tlm_status alloc_group_scratch(usum *s)
{
    const uctx *u = s->u;
    size_t maxg = 0;
    for (size_t g = 0; g < s->ng; g++) {
        size_t k = 0;
        for (int32_t j = s->head[g]; j >= 0; j = u->rows[j].next)
            k++;
        maxg = k > maxg ? k : maxg;
    }
    s->v = malloc(((maxg > s->ng ? maxg : s->ng) + 1) * sizeof *s->v);
    s->mv = malloc((maxg + 1) * 4 * sizeof *s->mv);
    s->off = malloc((maxg + 1) * sizeof *s->off);
    s->len = malloc((maxg + 1) * sizeof *s->len);
    if (!s->v || !s->mv || !s->off || !s->len)
        return TLM_ENOMEM;
    size_t total = 0;
    for (size_t i = 0; i < u->nrows; i++) {
        size_t n;
        row_kernels(u, &u->rows[i], &n);
        total += n;
    }
    s->pool = malloc((total + 1) * sizeof *s->pool);
    return s->pool ? TLM_OK : TLM_ENOMEM;
}

/* Name, category, process, thread, arguments and ex_UID of row R from
 * the group's first row r0. */
static void set_group_identity(usum *s, size_t R, const urow *r0)
{
    tlm_rctx *ctx = s->u->ctx;
    tlm_tab *t = s->t;
    const tlm_event *e0 = &ctx->ev[r0->uid];
    row_name(s->u, r0, &s->key);
    tlm_tab_set_s(t, R, 0, s->key.p, s->key.len);
    tlm_tab_set_s(t, R, 1, r0->category, strlen(r0->category));
    tlm_rctx_set_proc(ctx, t, R, 2, e0);
    for (int q = 0; q < 4; q++)
        tlm_rctx_set_arg(ctx, t, R, (size_t)(5 + q), e0, shape_args[q], 1);
    tlm_tab_set_i(t, R, s->col.ex, r0->row_uid);
}

/* First non-null values of a group beyond the metrics. */
typedef struct ufirst {
    const char *spec; /* Compute Spec */
    const char *pp;   /* perf_params */
    int hm;           /* has_perf_model; -1 before the first row */
} ufirst;

/* Metrics, firsts and kernel lists (into s->pool) of group g's rows. */
static void gather_group(usum *s, size_t g, tlm_grp_metrics *gm,
                         ufirst *f)
{
    const uctx *u = s->u;
    size_t pk = 0;
    tlm_grp_metrics_init(gm, s->mv);
    f->spec = f->pp = NULL;
    f->hm = -1;
    for (int32_t j = s->head[g]; j >= 0; j = u->rows[j].next) {
        const urow *r = &u->rows[j];
        tlm_perf_metrics m;
        row_metrics(u, r, &m);
        if (!f->spec && r->metrics_ok)
            f->spec = u->ctx->perf_res[r->perf_idx].compute_spec;
        if (!f->pp && r->params_off != UINT32_MAX)
            f->pp = u->text.p + r->params_off;
        if (f->hm < 0)
            f->hm = r->has_model;
        size_t n;
        const int32_t *kg = row_kernels(u, r, &n);
        memcpy(s->pool + pk, kg, n * sizeof *kg);
        s->off[gm->k] = pk;
        s->len[gm->k] = n;
        pk += n;
        tlm_grp_metrics_add(gm, &m, r->T);
    }
}

/* Duration statistics of group g into row R. */
static void set_duration_stats(usum *s, size_t R, size_t g)
{
    const uctx *u = s->u;
    size_t q = 0;
    for (int32_t j = s->head[g]; j >= 0; j = u->rows[j].next)
        s->v[q++] = u->rows[j].dur_us;
    tlm_stats o;
    tlm_stats_of(s->v, q, &o);
    tlm_tab_set_f(s->t, R, s->col.dur, o.sum);
    tlm_tab_set_f(s->t, R, s->col.dur + 1, o.mean);
    tlm_tab_set_f(s->t, R, s->col.dur + 2, o.std);
    tlm_tab_set_f(s->t, R, s->col.dm, o.median);
    tlm_tab_set_f(s->t, R, s->col.dm + 1, o.min);
    tlm_tab_set_f(s->t, R, s->col.dm + 2, o.max);
}

/* TB/s, TFLOPS/s, Pct Roofline (with --gpu_arch) and Kernel Time
 * statistics into row R: mean and std in one column group, median, min
 * and max in another; Kernel Time has the sum too. */
static void set_rate_stats(usum *s, size_t R, const tlm_grp_metrics *gm)
{
    const ucols *k = &s->col;
    const size_t ms[4] = {k->ms, k->ms + 2, k->pms, k->kms};
    const size_t mmm[4] = {k->mmm, k->mmm + 3, k->pmm, k->kmm};
    for (size_t which = 0; which < 4; which++) {
        if (which == 2 && !s->arch)
            continue;
        tlm_stats o;
        tlm_grp_metrics_stats(gm, which, s->v, &o);
        tlm_tab_set_f(s->t, R, ms[which], o.mean);
        tlm_tab_set_f(s->t, R, ms[which] + 1, o.std);
        if (which == 3)
            tlm_tab_set_f(s->t, R, ms[which] + 2, o.sum);
        tlm_tab_set_f(s->t, R, mmm[which], o.median);
        tlm_tab_set_f(s->t, R, mmm[which] + 1, o.min);
        tlm_tab_set_f(s->t, R, mmm[which] + 2, o.max);
    }
}

/* entry_point and call_stack_full of row R: the stacks of the kernels of
 * group g's first row (the kernel_details_summary template).  Errors:
 * TLM_ENOMEM. */
static tlm_status set_call_stack(usum *s, size_t R, size_t g)
{
    const urow *r0 = &s->u->rows[s->head[g]];
    size_t n;
    const int32_t *kg = row_kernels(s->u, r0, &n);
    row_name(s->u, r0, &s->key);
    tlm_status st =
        tlm_cstack_row(s->cs, s->u->ctx, kg, n, s->key.p, s->key.len);
    if (st != TLM_OK)
        return st;
    const tlm_sbuf *ep = tlm_cstack_entry_point(s->cs);
    const tlm_sbuf *full = tlm_cstack_full(s->cs);
    tlm_tab_set_s(s->t, R, s->col.cs, ep->p, ep->len);
    tlm_tab_set_s(s->t, R, s->col.cs + 1, full->p, full->len);
    return TLM_OK;
}

/* Adds the table row of group g.  Errors: TLM_ENOMEM. */
static tlm_status fill_group(usum *s, size_t g)
{
    tlm_rctx *ctx = s->u->ctx;
    tlm_tab *t = s->t;
    const ucols *k = &s->col;
    long rr = tlm_tab_add_row(t);
    if (rr < 0)
        return TLM_ENOMEM;
    size_t R = (size_t)rr;
    set_group_identity(s, R, &s->u->rows[s->head[g]]);
    tlm_grp_metrics gm;
    ufirst f;
    gather_group(s, g, &gm, &f);
    tlm_tab_set_i(t, R, k->ex + 1, (int64_t)gm.k);
    set_duration_stats(s, R, g);
    tlm_tab_set_f(t, R, k->g, gm.gflops);
    tlm_tab_set_f(t, R, k->g + 1, gm.data_moved_mb);
    tlm_tab_set_f(t, R, k->g + 2, gm.flops_per_byte);
    if (f.spec)
        tlm_tab_set_s(t, R, k->g + 3, f.spec, strlen(f.spec));
    if (s->arch) {
        if (gm.bound)
            tlm_tab_set_s(t, R, k->rb, gm.bound, strlen(gm.bound));
        tlm_tab_set_f(t, R, k->rb + 1, gm.roofline_time_us);
    }
    set_rate_stats(s, R, &gm);
    tlm_kd_summary(ctx, s->pool, s->off, s->len, gm.k, &ctx->s1, &ctx->s2);
    tlm_kd_set(ctx, t, R, k->kd);
    if (f.pp)
        tlm_tab_set_s(t, R, k->kd + 2, f.pp, strlen(f.pp));
    tlm_tab_set_b(t, R, k->kd + 3, f.hm > 0);
    if (ctx->rc) /* appended after the columns of unified_columns */
        tlm_tab_set_b(t, R, k->n,
                      tlm_rctx_rc(ctx, s->u->rows[s->head[g]].uid));
    if (ctx->kl && set_kl(s, R, g) != TLM_OK)
        return TLM_ENOMEM;
    return s->cs ? set_call_stack(s, R, g) : TLM_OK;
}

/* Sorts the rows by kernel time and fills the percentage columns. */
static tlm_status set_percentages(usum *s)
{
    tlm_tab *t = s->t;
    size_t ksum = s->col.kms + 2;
    tlm_status st = tlm_tab_sort_sum_uid(t, ksum, s->col.ex);
    if (st != TLM_OK)
        return st;
    double cum = 0.0;
    for (size_t i = 0; i < t->nrows; i++)
        s->v[i] = tlm_tab_cell(t, i, ksum)->v.f;
    /* pandas Series.sum: numpy's pairwise sum in row order */
    double tot = tlm_np_sum(s->v, t->nrows);
    for (size_t i = 0; i < t->nrows; i++) {
        double p = tlm_tab_cell(t, i, ksum)->v.f / tot * 100.0;
        cum += p;
        tlm_tab_set_f(t, i, s->col.pct, p);
        tlm_tab_set_f(t, i, s->col.pct + 1, cum);
    }
    return TLM_OK;
}

/* 1 for the perf columns that exist only when some row computed metrics
 * (GFLOPS .. Compute Spec, roofline, TB/s_*, TFLOPS/s_*, Pct Roofline_*). */
static int perf_col(const ucols *k, size_t i)
{
    return (i >= k->g && i < k->kms) || (i >= k->mmm && i < k->kmm);
}

/* TraceLens builds the frame from the rows' dicts: without any row with
 * metrics the perf columns do not exist (addendum A5).  Removes them in
 * place. */
static void drop_perf_cols(tlm_tab *t, const ucols *k)
{
    size_t on = t->ncols, nn = 0;
    size_t keep[64];
    for (size_t i = 0; i < on && i < 64; i++) {
        if (perf_col(k, i)) {
            free(t->colnames[i]);
            continue;
        }
        keep[nn] = i;
        t->colnames[nn] = t->colnames[i];
        t->coltypes[nn] = t->coltypes[i];
        nn++;
    }
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t j = 0; j < nn; j++)
            t->cells[r * nn + j] = t->cells[r * on + keep[j]];
    t->ncols = nn;
}

static int any_metrics(const uctx *u)
{
    for (size_t i = 0; i < u->nrows; i++)
        if (u->rows[i].metrics_ok)
            return 1;
    return 0;
}

/* With opts.keep_gpu_rows: the final row of every GPU op of the rows'
 * kernel_details (t->gpu_row), the rows in collection order, a later row
 * winning (TraceLens's uid -> summary row map of --comparison_json_path).
 * A group's table row is found by its ex_UID (its first row's, distinct
 * per group) as the rows are sorted by now.  Errors: TLM_ENOMEM. */
static tlm_status keep_gpu_rows(usum *s)
{
    const uctx *u = s->u;
    tlm_tab *t = s->t;
    size_t n = u->ctx->n;
    tlm_i3map m;
    int32_t *rowof = malloc((u->nrows + 1) * sizeof *rowof);
    t->gpu_row = malloc((n + 1) * sizeof *t->gpu_row);
    if (!rowof || !t->gpu_row || tlm_i3map_init(&m, t->nrows + 1) != TLM_OK) {
        free(rowof);
        return TLM_ENOMEM;
    }
    tlm_status st = TLM_OK;
    for (size_t R = 0; R < t->nrows && st == TLM_OK; R++)
        st = tlm_i3map_put(&m, tlm_tab_cell(t, R, s->col.ex)->v.i, 0, 0,
                           (int32_t)R);
    for (size_t g = 0; g < s->ng && st == TLM_OK; g++) {
        int32_t R = tlm_i3map_get(&m, u->rows[s->head[g]].row_uid, 0, 0);
        for (int32_t j = s->head[g]; j >= 0; j = u->rows[j].next)
            rowof[j] = R;
    }
    for (size_t k = 0; k < n; k++)
        t->gpu_row[k] = -1;
    for (size_t i = 0; i < u->nrows && st == TLM_OK; i++) {
        size_t nk;
        const int32_t *kg = row_kernels(u, &u->rows[i], &nk);
        for (size_t q = 0; q < nk; q++)
            if (kg[q] >= 0 && (size_t)kg[q] < n)
                t->gpu_row[kg[q]] = rowof[i];
    }
    t->n_gpu_row = n;
    tlm_i3map_free(&m);
    free(rowof);
    return st;
}

/* unified_perf_summary from the collected rows: one table row per group
 * of rows with the same key, sorted by kernel time. */
static tlm_status summarize(uctx *u)
{
    usum s;
    memset(&s, 0, sizeof s);
    s.u = u;
    s.arch = u->ctx->has_arch;
    unified_columns(&s.col, s.arch, u->ctx->opts.include_call_stack);
    tlm_sbuf_init(&s.key);
    tlm_status st = TLM_ENOMEM;
    size_t nr = u->nrows;
    s.head = malloc((nr + 1) * sizeof *s.head);
    s.tail = malloc((nr + 1) * sizeof *s.tail);
    char tname[64] = "unified_perf_summary";
    if (u->ctx->kl)
        tlm_rctx_kl_name("unified_perf_summary", tname, sizeof tname);
    s.t = tlm_tab_new(tname, s.col.n, s.col.name, s.col.ty);
    if (u->ctx->opts.include_call_stack && !(s.cs = tlm_cstack_new()))
        goto done;
    if (!s.head || !s.tail || !s.t || tlm_i3map_init(&s.map, 1024) != TLM_OK)
        goto done;
    if (group_rows(&s) != TLM_OK || alloc_group_scratch(&s) != TLM_OK)
        goto done;
    if (u->ctx->rc &&
        tlm_tab_append_col(s.t, "is_recompute", TLM_COL_BOOL) != TLM_OK)
        goto done;
    if (u->ctx->kl && tlm_rctx_kl_add_cols(s.t, &s.kc) != TLM_OK)
        goto done;
    for (size_t g = 0; g < s.ng; g++)
        if (fill_group(&s, g) != TLM_OK)
            goto done;
    st = set_percentages(&s);
    if (st == TLM_OK && u->ctx->opts.keep_gpu_rows && !u->ctx->kl)
        st = keep_gpu_rows(&s);
    if (st == TLM_OK && (s.t->oom || s.key.oom))
        st = TLM_ENOMEM;
    if (st == TLM_OK && (u->ctx->opts.compat & TLM_COMPAT_COLUMNS) &&
        !any_metrics(u))
        drop_perf_cols(s.t, &s.col);
    if (st == TLM_OK && u->ctx->rc) /* grouping key after Concrete Inputs */
        tlm_tab_move_col(s.t, s.t->ncols - (u->ctx->kl ? 4 : 1), 9);
    if (st == TLM_OK && u->ctx->kl) /* the names: the last key */
        tlm_tab_move_col(s.t, s.t->ncols - 3, u->ctx->rc ? 10 : 9);
done:
    tlm_i3map_free(&s.map);
    tlm_sbuf_free(&s.key);
    free(s.head);
    free(s.tail);
    free(s.v);
    free(s.mv);
    free(s.pool);
    free(s.off);
    free(s.len);
    tlm_cstack_free(s.cs);
    return tlm_rctx_keep_tab(u->ctx, s.t, st);
}

tlm_status tlm_rctx_unified(tlm_rctx *ctx)
{
    uctx u;
    memset(&u, 0, sizeof u);
    u.ctx = ctx;
    u.st = TLM_OK;
    tlm_sbuf_init(&u.text);
    size_t n = ctx->n ? ctx->n : 1;
    u.fl = calloc(n, 1);
    if (!u.fl) {
        u.st = TLM_ENOMEM;
        goto done;
    }
    tlm_prefault(u.fl, n); /* zeros still: calloc'd */
    if (tlm_i3map_init(&u.pp_map, 256) != TLM_OK) {
        u.st = TLM_ENOMEM;
        goto done;
    }
    /* python functions in the tree: TraceLens starts from each parentless
     * one (UID order), then from the cpu_op roots not reached */
    for (size_t i = 0; i < ctx->n && u.st == TLM_OK; i++) {
        const tlm_tnode *d = tlm_nd(ctx->tree, (int32_t)i);
        if (d->cat == TLM_CAT_PYTHON_FUNCTION && d->parent < 0 &&
            (d->flags & TLM_NODE_TREE))
            visit(&u, (int32_t)i, 0);
    }
    size_t nr;
    const int32_t *roots = tlm_tree_cpu_roots(ctx->tree, &nr);
    for (size_t i = 0; i < nr && u.st == TLM_OK; i++)
        visit(&u, roots[i], 0);
    if (u.st == TLM_OK)
        synthetic(&u);
    /* categories: of the op (its name and first kernel: the launchers,
     * which may still be in the making in another thread until here), or
     * for synthetic rows from the row (name + its kernel) */
    if (u.st == TLM_OK && ctx->launchers_wait)
        u.st = ctx->launchers_wait(ctx);
    for (size_t i = 0; i < u.nrows && u.st == TLM_OK; i++) {
        urow *r = &u.rows[i];
        if (r->kind != ROW_SYNTH) {
            if (!r->category)
                r->category = tlm_rctx_op_category(ctx, r->uid);
            continue;
        }
        row_name(&u, r, &ctx->s1);
        r->category = tlm_op_category(ctx->s1.p, synth_first_kernel(&u, r));
    }
    if (u.st == TLM_OK && u.text.oom)
        u.st = TLM_ENOMEM;
    if (u.st == TLM_OK)
        u.st = summarize(&u);
    if (u.st == TLM_OK && ctx->ovl) { /* unified_perf_summary_kl_overlap */
        ctx->kl = 1;
        u.st = summarize(&u);
        ctx->kl = 0;
    }
done:
    free(u.fl);
    free(u.rows);
    tlm_i3map_free(&u.pp_map);
    tlm_sbuf_free(&u.text);
    return u.st;
}
