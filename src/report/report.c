/*
 * report.c - assembles the single-trace report: options, the shared build
 * context (metadata names, op categories, argument reprs), the order in
 * which sheets are built (TraceLens's emission order, [perfreport]
 * §4.12), table accessors and the CSV directory writer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* MARK: - options -------------------------------------------------------- */

void tlm_report_opts_init(tlm_report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kernel_summary = 1;
    o->short_kernel_study = 1;
    o->short_kernel_threshold_us = 10.0;
    o->short_kernel_bins = 100;
    o->topk_short_kernels = -1;
    o->micro_idle_thresh_us = -1.0;
    o->perf_sheets = 1;
    o->unified = 1;
    o->coll_analysis = 1;
    o->threads = 1;
}

tlm_status tlm_compat_parse(const char *list, unsigned *bits, tlm_error *err)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {
#define TLM_X_(e, bit, name, desc) {name, e},
        TLM_COMPAT_LIST(TLM_X_)
#undef TLM_X_
    };
    *bits = 0;
    if (!list)
        return TLM_OK;
    const char *p = list;
    while (*p) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == 3 && !strncmp(p, "all", 3)) {
            *bits |= TLM_COMPAT_ALL;
        } else if (len) {
            size_t i;
            for (i = 0; i < sizeof names / sizeof names[0]; i++)
                if (strlen(names[i].name) == len &&
                    !strncmp(names[i].name, p, len))
                    break;
            if (i == sizeof names / sizeof names[0])
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "unknown --tracelens_compat item "
                                     "'%.*s'",
                                     (int)len, p);
            *bits |= names[i].bit;
        }
        if (!q)
            break;
        p = q + 1;
    }
    return TLM_OK;
}

/* MARK: - context helpers ------------------------------------------------ */

enum { META_PROCESS_NAME = 1, META_PROCESS_LABELS = 2, META_THREAD_NAME = 3 };

static const char *meta_str(const tlm_rctx *ctx, int64_t pid, int64_t tid,
                            int field)
{
    int32_t u = tlm_i3map_get(&ctx->meta, pid, tid, field);
    if (u < 0)
        return "Unknown";
    const char *s = tlm_event_arg_str(
        ctx->trace, &ctx->ev[u],
        field == META_PROCESS_LABELS ? TLM_ARG_LABELS : TLM_ARG_NAME, NULL);
    return s ? s : "Unknown";
}

const char *tlm_rctx_process_name(const tlm_rctx *ctx, const tlm_event *e)
{
    return meta_str(ctx, tlm_ev_pid(e), 0, META_PROCESS_NAME);
}

const char *tlm_rctx_process_label(const tlm_rctx *ctx, const tlm_event *e)
{
    return meta_str(ctx, tlm_ev_pid(e), 0, META_PROCESS_LABELS);
}

const char *tlm_rctx_thread_name(const tlm_rctx *ctx, const tlm_event *e)
{
    return meta_str(ctx, tlm_ev_pid(e), tlm_ev_tid(e), META_THREAD_NAME);
}

const char *tlm_rctx_name(const tlm_rctx *ctx, int32_t u)
{
    return tlm_trace_str(ctx->trace, ctx->ev[u].name, NULL);
}

/* A yes/no property of an event's name, computed once per name: cache[id]
 * is 0 (not yet), 1 (no) or 2 (yes); without a cache, computed each time. */
static int name_flag(const tlm_rctx *ctx, uint8_t *cache, int32_t u,
                     int (*pred)(const char *))
{
    uint32_t id = ctx->ev[u].name;
    if (cache && id < ctx->n_names) {
        if (!cache[id])
            cache[id] = pred(tlm_rctx_name(ctx, u)) ? 2 : 1;
        return cache[id] == 2;
    }
    return pred(tlm_rctx_name(ctx, u));
}

int tlm_rctx_is_comm(const tlm_rctx *ctx, int32_t u)
{
    return name_flag(ctx, ctx->comm_cache, u, tlm_kernel_is_communication);
}

/* Appends a category string to the distinct ones seen; its index, or -1
 * when out of memory. */
static long cats_append(tlm_rctx *m, const char *c)
{
    if (tlm_grow((void **)&m->cats, &m->cap_cats, m->ncats + 1,
                 sizeof *m->cats, 32) != TLM_OK)
        return -1;
    m->cats[m->ncats] = c;
    return (long)m->ncats++;
}

const char *tlm_rctx_op_category(const tlm_rctx *ctx, int32_t u)
{
    const char *first = NULL;
    int64_t fid = 0;
    int32_t li = tlm_lkmap_get(ctx->lk_of, u);
    if (li >= 0) {
        const tlm_launcher *L = &ctx->lk[li];
        if (L->nk) {
            first = tlm_rctx_name(ctx, ctx->lk_kernels[L->k0]);
            fid = (int64_t)ctx->ev[ctx->lk_kernels[L->k0]].name + 1;
        }
    }
    int64_t nid = ctx->ev[u].name;
    if (ctx->cat_cache) {
        int32_t k = tlm_i3map_get(ctx->cat_cache, nid, fid, 0);
        if (k >= 0)
            return ctx->cats[k];
    }
    const char *c = tlm_op_category(tlm_rctx_name(ctx, u), first);
    if (!ctx->cat_cache)
        return c;
    /* remember it (the cache lives behind pointers: ctx stays const) */
    tlm_rctx *m = (tlm_rctx *)(uintptr_t)ctx;
    size_t k = 0;
    while (k < m->ncats && m->cats[k] != c)
        k++;
    if (k == m->ncats && cats_append(m, c) < 0)
        return c;
    if (tlm_i3map_put(m->cat_cache, nid, fid, 0, (int32_t)k) != TLM_OK)
        return c;
    return c;
}

void tlm_rctx_set_arg(tlm_rctx *ctx, tlm_tab *t, size_t row, size_t col,
                      const tlm_event *e, tlm_arg key, int as_tuple)
{
    size_t len;
    const char *v = tlm_event_arg_str(ctx->trace, e, key, &len);
    if (!v) {
        int64_t iv;
        if (tlm_event_arg_int(ctx->trace, e, key, &iv)) {
            char num[32];
            int n = snprintf(num, sizeof num, "%lld", (long long)iv);
            tlm_tab_set_s(t, row, col, num, (size_t)n);
            return;
        }
        tlm_tab_set_null(t, row, col);
        return;
    }
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    if (tlm_sbuf_json_pyrepr(&b, v, len, as_tuple) != 0) {
        tlm_sbuf_reset(&b);
        tlm_sbuf_pystr(&b, v, len);
    }
    if (b.oom)
        t->oom = 1;
    else
        tlm_tab_set_s(t, row, col, b.p ? b.p : "", b.len);
    tlm_sbuf_free(&b);
}

void tlm_rctx_meta_ids(const tlm_rctx *ctx, const tlm_event *e,
                       int64_t ids[3])
{
    /* rows come in runs of one thread: remember the last one */
    tlm_rctx *m = (tlm_rctx *)(uintptr_t)ctx;
    if (!m->meta_last_ok || m->meta_last_pid != tlm_ev_pid(e) ||
        m->meta_last_tid != tlm_ev_tid(e)) {
        for (int f = 1; f <= 3; f++)
            m->meta_last[f - 1] = tlm_rctx_meta_id(ctx, e, f);
        m->meta_last_pid = tlm_ev_pid(e);
        m->meta_last_tid = tlm_ev_tid(e);
        m->meta_last_ok = 1;
    }
    memcpy(ids, m->meta_last, sizeof m->meta_last);
}

static const tlm_arg shape_keys[4] = {
    TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE, TLM_ARG_INPUT_STRIDES,
    TLM_ARG_CONCRETE_INPUTS};

/* The four shape arguments of e as texts (NULL when absent). */
static void shape_texts(const tlm_rctx *ctx, const tlm_argv *sv,
                        tlm_perf_args *pa)
{
    const char **ps[4] = {&pa->input_dims, &pa->input_types,
                          &pa->input_strides, &pa->concrete_inputs};
    for (int q = 0; q < 4; q++)
        *ps[q] = sv[q].type == TLM_ARGV_STR
                     ? tlm_trace_str(ctx->trace, sv[q].str, NULL)
                     : NULL;
}

int tlm_rctx_has_model(const tlm_rctx *ctx, int32_t u)
{
    if (!name_flag(ctx, ctx->model_cache, u, tlm_perf_has_model))
        return 0;
    const char *nm = tlm_rctx_name(ctx, u);
    if (strncmp(nm, "triton_", 7) != 0)
        return 1;
    /* a Triton-compiled op has a model only when its args allow */
    tlm_argv sv[4];
    tlm_perf_args pa;
    memset(&pa, 0, sizeof pa);
    pa.name = nm;
    pa.inductor = ctx->inductor;
    tlm_rctx_args(ctx, &ctx->ev[u], shape_keys, 4, sv);
    shape_texts(ctx, sv, &pa);
    return tlm_perf_can_model(&pa);
}

int64_t tlm_rctx_meta_id(const tlm_rctx *ctx, const tlm_event *e, int field)
{
    int64_t tid = field == META_THREAD_NAME ? tlm_ev_tid(e) : 0;
    int32_t u = tlm_i3map_get(&ctx->meta, tlm_ev_pid(e), tid, field);
    if (u < 0)
        return 0;
    tlm_argv v;
    if (tlm_event_arg(ctx->trace, &ctx->ev[u],
                      field == META_PROCESS_LABELS ? TLM_ARG_LABELS
                                                   : TLM_ARG_NAME,
                      &v) != TLM_ARGV_STR)
        return 0;
    return (int64_t)v.str + 1;
}

int64_t tlm_rctx_cat_index(const tlm_rctx *ctx, const char *cat)
{
    tlm_rctx *m = (tlm_rctx *)(uintptr_t)ctx;
    for (size_t k = 0; k < m->ncats; k++)
        if (m->cats[k] == cat)
            return (int64_t)k;
    for (size_t k = 0; k < m->ncats; k++)
        if (!strcmp(m->cats[k], cat))
            return (int64_t)k;
    long k = cats_append(m, cat);
    return k >= 0 ? k : -1 - (int64_t)(uintptr_t)cat; /* still distinct */
}

int64_t tlm_rctx_arg_id(const tlm_rctx *ctx, const tlm_event *e, tlm_arg key)
{
    tlm_argv v;
    if (tlm_event_arg(ctx->trace, e, key, &v) == TLM_ARGV_NONE)
        return 0;
    return tlm_argv_id(&v);
}

void tlm_rctx_args(const tlm_rctx *ctx, const tlm_event *e,
                   const tlm_arg *keys, size_t n, tlm_argv *vals)
{
    for (size_t i = 0; i < n; i++) {
        vals[i].type = TLM_ARGV_NONE;
        vals[i].i = 0;
        vals[i].str = 0;
    }
    if (!e->args)
        return;
    /* one bit per wanted key: most arguments are skipped by one test */
    uint64_t want = 0;
    for (size_t i = 0; i < n; i++)
        want |= 1ull << (keys[i] & 63);
    uint64_t it = 0;
    tlm_arg k;
    tlm_argv v;
    while (tlm_event_arg_next(ctx->trace, e, &it, &k, &v)) {
        if (!(want & (1ull << (k & 63))))
            continue;
        for (size_t i = 0; i < n; i++)
            if (keys[i] == k)
                vals[i] = v;
    }
}

tlm_status tlm_rctx_perf(tlm_rctx *ctx, int32_t u, int bwd, const int32_t *k,
                         size_t nk, const tlm_perf_result **out)
{
    const tlm_event *e = &ctx->ev[u];
    tlm_argv sv[4];
    tlm_rctx_args(ctx, e, shape_keys, 4, sv);
    int64_t ids[5] = {(int64_t)e->name, tlm_argv_id(&sv[0]),
                      tlm_argv_id(&sv[1]), tlm_argv_id(&sv[2]),
                      tlm_argv_id(&sv[3])};
    uint64_t kh = 0x9E3779B97F4A7C15ull * (uint64_t)(bwd + 1);
    for (size_t i = 0; i < nk; i++)
        kh = (kh ^ ctx->ev[k[i]].name) * 0x100000001B3ull;
    kh ^= (uint64_t)nk << 40;
    int32_t ann = tlm_rctx_annotation(ctx, u);
    if (ann >= 0)
        kh = (kh ^ (uint64_t)(ctx->ev[ann].name + 1)) * 0x9E3779B97F4A7C15ull;
    int64_t a = (int64_t)(((uint64_t)ids[0] << 32) ^ (uint64_t)ids[1]);
    int64_t b = (int64_t)(((uint64_t)ids[2] << 32) ^ (uint64_t)ids[3]);
    int64_t c = (int64_t)(((uint64_t)ids[4] << 40) ^ kh);
    int32_t hit = tlm_i3map_get(ctx->perf_cache, a, b, c);
    int cache = 1;
    if (hit >= 0) {
        const int64_t *h = ctx->perf_ids[hit];
        if (h[0] == ids[0] && h[1] == ids[1] && h[2] == ids[2] &&
            h[3] == ids[3] && h[4] == ids[4] && h[5] == (int64_t)kh) {
            *out = &ctx->perf_res[hit];
            return ctx->perf_st[hit];
        }
        cache = 0; /* another input with the same key: compute, keep out */
    }
    /* three parallel arrays, one capacity */
    size_t c1 = ctx->cap_perf, c2 = ctx->cap_perf, c3 = ctx->cap_perf;
    if (tlm_grow((void **)&ctx->perf_res, &c1, ctx->nperf + 1,
                 sizeof *ctx->perf_res, 64) ||
        tlm_grow((void **)&ctx->perf_st, &c2, ctx->nperf + 1,
                 sizeof *ctx->perf_st, 64) ||
        tlm_grow((void **)&ctx->perf_ids, &c3, ctx->nperf + 1,
                 sizeof *ctx->perf_ids, 64))
        return TLM_ENOMEM;
    ctx->cap_perf = c1;
    const char *stack_names[16];
    const char **kn = nk <= 16 ? stack_names : malloc(nk * sizeof *kn);
    if (!kn)
        return TLM_ENOMEM;
    for (size_t i = 0; i < nk; i++)
        kn[i] = tlm_rctx_name(ctx, k[i]);
    tlm_perf_args pa;
    memset(&pa, 0, sizeof pa);
    pa.name = tlm_rctx_name(ctx, u);
    shape_texts(ctx, sv, &pa);
    pa.annotation = ann >= 0 ? tlm_rctx_name(ctx, ann) : NULL;
    pa.inductor = ctx->inductor;
    pa.kernel_names = kn;
    pa.n_kernels = nk;
    size_t i = ctx->nperf;
    tlm_status st = tlm_perf_compute(&pa, bwd, &ctx->perf_res[i], NULL);
    if (kn != stack_names)
        free(kn);
    if (st == TLM_ENOMEM)
        return st;
    ctx->perf_st[i] = st;
    memcpy(ctx->perf_ids[i], ids, sizeof ids);
    ctx->perf_ids[i][5] = (int64_t)kh;
    ctx->nperf++;
    if (!cache) {
        *out = &ctx->perf_res[i];
        return st;
    }
    if (tlm_i3map_put(ctx->perf_cache, a, b, c, (int32_t)i) != TLM_OK)
        return TLM_ENOMEM;
    *out = &ctx->perf_res[i];
    return st;
}

tlm_status tlm_rctx_add_tab(tlm_rctx *ctx, tlm_tab *t)
{
    if (!t)
        return TLM_ENOMEM;
    if (t->oom) {
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    if (tlm_grow((void **)&ctx->tabs, &ctx->cap_tabs, ctx->ntabs + 1,
                 sizeof *ctx->tabs, 16) != TLM_OK) {
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    ctx->tabs[ctx->ntabs++] = t;
    return TLM_OK;
}

tlm_status tlm_rctx_finish_tab(tlm_rctx *ctx, tlm_tab *t, tlm_status st)
{
    if (st != TLM_OK) {
        tlm_tab_free(t);
        return st;
    }
    return tlm_rctx_add_tab(ctx, t);
}

/* MARK: - build ---------------------------------------------------------- */

/* Room for one more GPU event in ctx->gpu / gpu_fl (*cap entries). */
static tlm_status gpu_room(tlm_rctx *ctx, size_t *cap)
{
    if (ctx->ngpu < *cap)
        return TLM_OK;
    size_t nc = *cap * 2;
    int32_t *g = realloc(ctx->gpu, nc * sizeof *g);
    if (g)
        ctx->gpu = g;
    uint8_t *f = g ? realloc(ctx->gpu_fl, nc) : NULL;
    if (!f)
        return TLM_ENOMEM;
    ctx->gpu_fl = f;
    *cap = nc;
    return TLM_OK;
}

/* One pass over the events: metadata names, the list of GPU events, and
 * whether the trace has cpu_ops at all.  The list is sized by the tree's
 * count of timed GPU events (no counting pass), grown for untimed ones. */
static tlm_status build_meta(tlm_rctx *ctx)
{
    tlm_status st = tlm_i3map_init(&ctx->meta, 64);
    if (st != TLM_OK)
        return st;
    size_t cap = (size_t)tlm_tree_stats_get(ctx->tree)->n_gpu;
    cap = cap < 16 ? 16 : cap;
    ctx->gpu = malloc(cap * sizeof *ctx->gpu);
    ctx->gpu_fl = malloc(cap);
    if (!ctx->gpu || !ctx->gpu_fl)
        return TLM_ENOMEM;
    uint32_t pn = tlm_trace_str_find(ctx->trace, "process_name", 12);
    uint32_t pl = tlm_trace_str_find(ctx->trace, "process_labels", 14);
    uint32_t tn = tlm_trace_str_find(ctx->trace, "thread_name", 11);
    uint32_t pyf = tlm_trace_str_find(ctx->trace, "python_func", 11);
    ctx->gpu_only = 1;
    ctx->int_times = TLM_INT_GPU | TLM_INT_HOST;
    for (size_t i = 0; i < ctx->n && st == TLM_OK; i++) {
        const tlm_event *e = &ctx->ev[i];
        if (e->ph == 'X' &&
            (((e->flags & TLM_EV_HAS_TS) && !(e->tflags & TLM_EVT_TS_INT)) ||
             ((e->flags & TLM_EV_HAS_DUR) &&
              !(e->tflags & TLM_EVT_DUR_INT))))
            ctx->int_times &= tlm_ev_gpu(e) ? ~TLM_INT_GPU : ~TLM_INT_HOST;
        if (e->cat == TLM_CAT_CPU_OP || (pyf && e->cat_str == pyf))
            ctx->gpu_only = 0;
        if (tlm_ev_gpu(e)) {
            if ((st = gpu_room(ctx, &cap)) != TLM_OK)
                break;
            /* what the table builders ask of every GPU event, kept in a
             * byte per event: no second read of the event */
            ctx->gpu_fl[ctx->ngpu] =
                (uint8_t)((e->cat == TLM_CAT_KERNEL ? TLM_GPU_KERNEL : 0) |
                          (tlm_rctx_is_comm(ctx, (int32_t)i) ? TLM_GPU_COMM
                                                             : 0));
            ctx->gpu[ctx->ngpu++] = (int32_t)i;
            continue;
        }
        if (e->cat == TLM_CAT_CPU_OP)
            ctx->has_cpu_ops = 1;
        if (e->ph != 'M' || !e->name)
            continue;
        int f = 0;
        if (pn && e->name == pn)
            f = META_PROCESS_NAME;
        else if (pl && e->name == pl)
            f = META_PROCESS_LABELS;
        else if (tn && e->name == tn)
            f = META_THREAD_NAME;
        if (f)
            st = tlm_i3map_put(&ctx->meta, tlm_ev_pid(e), tlm_ev_tid(e), f,
                               (int32_t)i);
    }
    return st;
}

/* What each thread's context owns: its tables, scratch and caches. */
static void ctx_free_own(tlm_rctx *ctx)
{
    for (size_t i = 0; i < ctx->ntabs; i++)
        tlm_tab_free(ctx->tabs[i]);
    free(ctx->tabs);
    tlm_sbuf_free(&ctx->s1);
    tlm_sbuf_free(&ctx->s2);
    free(ctx->comm_cache);
    free(ctx->model_cache);
    if (ctx->cat_cache)
        tlm_i3map_free(ctx->cat_cache);
    free(ctx->cat_cache);
    free(ctx->cats);
    if (ctx->perf_cache)
        tlm_i3map_free(ctx->perf_cache);
    free(ctx->perf_cache);
    free(ctx->perf_res);
    free(ctx->perf_st);
    free(ctx->perf_ids);
    free(ctx->busy);
    tlm_rctx_ovs_free(ctx);
}

static void ctx_free(tlm_rctx *ctx)
{
    ctx_free_own(ctx);
    free(ctx->lk);
    free(ctx->lk_kernels);
    free(ctx->lk_of);
    free(ctx->gpu);
    free(ctx->gpu_fl);
    free(ctx->ann);
    free(ctx->rc);
    tlm_rctx_overlap_free(ctx);
    tlm_i3map_free(&ctx->meta);
}

/* The per-thread parts of a fresh context (empty caches, no tables). */
static tlm_status ctx_init_own(tlm_rctx *ctx)
{
    ctx->tabs = NULL;
    ctx->ntabs = ctx->cap_tabs = 0;
    tlm_sbuf_init(&ctx->s1);
    tlm_sbuf_init(&ctx->s2);
    ctx->meta_last_ok = 0;
    ctx->cats = NULL;
    ctx->ncats = ctx->cap_cats = 0;
    ctx->perf_res = NULL;
    ctx->perf_st = NULL;
    ctx->perf_ids = NULL;
    ctx->nperf = ctx->cap_perf = 0;
    ctx->busy = NULL;
    ctx->busy_cap = 0;
    ctx->ovs = NULL;
    ctx->kl = 0;
    ctx->comm_cache = calloc(ctx->n_names ? ctx->n_names : 1, 1);
    ctx->model_cache = calloc(ctx->n_names ? ctx->n_names : 1, 1);
    ctx->cat_cache = calloc(1, sizeof *ctx->cat_cache);
    ctx->perf_cache = calloc(1, sizeof *ctx->perf_cache);
    if (!ctx->comm_cache || !ctx->model_cache || !ctx->cat_cache ||
        !ctx->perf_cache)
        return TLM_ENOMEM;
    if (tlm_i3map_init(ctx->cat_cache, 256) != TLM_OK ||
        tlm_i3map_init(ctx->perf_cache, 256) != TLM_OK)
        return TLM_ENOMEM;
    return TLM_OK;
}

/* unified_perf_summary in a second thread, on its own context: it reads
 * the tree, events and launchers (shared) and writes only what its
 * context owns.  It starts while this thread still finds the launchers
 * and waits for them (launchers_wait) only when it needs them. */
typedef struct uworker {
    tlm_rctx ctx;
    tlm_status st;
    const tlm_rctx *main;   /* whose launchers are shared */
    pthread_mutex_t mu;     /* with cv: lk_done, lk_st */
    pthread_cond_t cv;
    int lk_done;
    tlm_status lk_st;
} uworker;

static tlm_status launchers_wait(tlm_rctx *ctx)
{
    uworker *w = ctx->launchers_ud;
    pthread_mutex_lock(&w->mu);
    while (!w->lk_done)
        pthread_cond_wait(&w->cv, &w->mu);
    tlm_status st = w->lk_st;
    pthread_mutex_unlock(&w->mu);
    if (st == TLM_OK) {
        ctx->lk = w->main->lk;
        ctx->nlk = w->main->nlk;
        ctx->lk_kernels = w->main->lk_kernels;
        ctx->lk_of = w->main->lk_of;
    }
    ctx->launchers_wait = NULL;
    return st;
}

static void launchers_done(uworker *w, tlm_status st)
{
    pthread_mutex_lock(&w->mu);
    w->lk_done = 1;
    w->lk_st = st;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void *unified_thread(void *arg)
{
    uworker *w = arg;
    w->st = tlm_rctx_unified(&w->ctx);
    return NULL;
}

/* Moves src's tables into dst's list at position at (src keeps none;
 * on failure they are freed). */
static tlm_status insert_tabs(tlm_rctx *dst, size_t at, tlm_rctx *src)
{
    size_t k = src->ntabs;
    src->ntabs = 0;
    if (tlm_grow((void **)&dst->tabs, &dst->cap_tabs, dst->ntabs + k,
                 sizeof *dst->tabs, 16)) {
        for (size_t i = 0; i < k; i++)
            tlm_tab_free(src->tabs[i]);
        return TLM_ENOMEM;
    }
    memmove(dst->tabs + at + k, dst->tabs + at,
            (dst->ntabs - at) * sizeof *dst->tabs);
    memcpy(dst->tabs + at, src->tabs, k * sizeof *dst->tabs);
    dst->ntabs += k;
    return TLM_OK;
}

/* The sheets in TraceLens's order: timeline, op tables,
 * unified_perf_summary, perf-model sheets, kernel tables, collectives.
 * With two threads unified_perf_summary is built beside all the others
 * (once the launchers are known) and its table put back in its place. */
static tlm_status build_tables(tlm_rctx *ctx, tlm_error *err)
{
    tlm_status st = TLM_OK;
    uworker w;
    pthread_t th;
    int threaded = 0, sync = 0;
    size_t mark = 0; /* where unified_perf_summary goes */
    memset(&w, 0, sizeof w);
    if (ctx->has_cpu_ops) {
        if (ctx->opts.unified && ctx->opts.threads >= 2) {
            w.ctx = *ctx;
            w.main = ctx;
            st = ctx_init_own(&w.ctx);
            if (st == TLM_OK && pthread_mutex_init(&w.mu, NULL) == 0) {
                if (pthread_cond_init(&w.cv, NULL) == 0)
                    sync = 1;
                else
                    pthread_mutex_destroy(&w.mu);
            }
            w.ctx.launchers_wait = launchers_wait;
            w.ctx.launchers_ud = &w;
            /* no thread: everything in this one */
            if (sync && pthread_create(&th, NULL, unified_thread, &w) == 0)
                threaded = 1;
            else
                ctx_free_own(&w.ctx);
            if (st != TLM_OK)
                goto unsync;
        }
        st = tlm_rctx_launchers(ctx);
        if (threaded)
            launchers_done(&w, st);
        if (st != TLM_OK)
            goto join;
    }
    st = tlm_rctx_timeline(ctx, err);
    if (st == TLM_OK && ctx->has_cpu_ops) {
        st = tlm_rctx_ops_tables(ctx);
        mark = ctx->ntabs;
        if (st == TLM_OK && ctx->opts.unified && !threaded)
            st = tlm_rctx_unified(ctx);
        if (st == TLM_OK && ctx->opts.perf_sheets)
            st = tlm_rctx_perf_sheets(ctx);
    }
    if (st == TLM_OK)
        st = tlm_rctx_kernel_tables(ctx);
    if (st == TLM_OK && ctx->opts.coll_analysis)
        st = tlm_rctx_coll_analysis(ctx);
join:
    if (threaded) {
        pthread_join(th, NULL);
        if (st == TLM_OK)
            st = w.st;
        if (st == TLM_OK)
            st = insert_tabs(ctx, mark, &w.ctx);
        ctx->n_out_of_range += w.ctx.n_out_of_range; /* unified's count */
        ctx_free_own(&w.ctx);
    }
unsync:
    if (sync) {
        pthread_cond_destroy(&w.cv);
        pthread_mutex_destroy(&w.mu);
    }
    return st;
}

tlm_status tlm_report_build(tlm_tree *tree, const tlm_report_opts *opts,
                            tlm_report **out, tlm_error *err)
{
    tlm_rctx ctx;
    tlm_status st;
    tlm_inductor_cache *ic = NULL;
    memset(&ctx, 0, sizeof ctx);
    *out = NULL;
    if (!tree)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "report: NULL tree");
    if (opts)
        ctx.opts = *opts;
    else
        tlm_report_opts_init(&ctx.opts);
    ctx.tree = tree;
    ctx.trace = tlm_tree_trace(tree);
    ctx.ev = tlm_trace_events(ctx.trace, &ctx.n);
    ctx.max_uid = (int32_t)ctx.n - 1;
    tlm_sbuf_init(&ctx.s1);
    tlm_sbuf_init(&ctx.s2);
    const char *path = tlm_trace_path(ctx.trace);

    tlm_report_gpu gpu;
    st = tlm_report_gpu_select(&ctx.opts, ctx.trace, &gpu, err);
    if (st != TLM_OK)
        goto fail;
    ctx.arch = gpu.arch;
    ctx.has_arch = gpu.has_arch;
    ctx.n_names = tlm_trace_str_count(ctx.trace);
    ctx.comm_cache = calloc(ctx.n_names ? ctx.n_names : 1, 1);
    ctx.model_cache = calloc(ctx.n_names ? ctx.n_names : 1, 1);
    ctx.cat_cache = calloc(1, sizeof *ctx.cat_cache);
    ctx.perf_cache = calloc(1, sizeof *ctx.perf_cache);
    if (!ctx.comm_cache || !ctx.model_cache || !ctx.cat_cache ||
        !ctx.perf_cache ||
        tlm_i3map_init(ctx.cat_cache, 256) != TLM_OK ||
        tlm_i3map_init(ctx.perf_cache, 256) != TLM_OK)
        goto oom;
    st = build_meta(&ctx);
    if (st == TLM_OK)
        st = tlm_rctx_annotations(&ctx);
    if (st == TLM_OK && ctx.opts.detect_recompute)
        st = tlm_rctx_recompute(&ctx);
    if (st != TLM_OK)
        goto oom;
    if (ctx.opts.include_overlap_info && ctx.has_cpu_ops) {
        st = tlm_rctx_overlap(&ctx);
        if (st == TLM_ENOMEM)
            goto oom;
        if (st != TLM_OK) {
            st = tlm_error_set(err, st, path, -1,
                               st == TLM_ELIMIT
                                   ? "--include_overlap_info: too many GPU "
                                     "events of different streams run at "
                                     "the same time for the overlap sweep"
                                   : "--include_overlap_info: the overlap "
                                     "sweep failed");
            goto fail;
        }
    }
    if (ctx.opts.inductor_cache_dir) {
        st = tlm_inductor_cache_load(ctx.opts.inductor_cache_dir, &ic, err);
        if (st != TLM_OK)
            goto fail;
        ctx.inductor = ic;
    }
    st = build_tables(&ctx, err);
    for (size_t i = 0; i < ctx.ntabs && st == TLM_OK; i++)
        if (ctx.opts.compat & TLM_COMPAT_INT_TIMES)
            st = tlm_tab_int_columns(ctx.tabs[i], ctx.int_times);
    for (size_t i = 0; i < ctx.ntabs && st == TLM_OK; i++)
        ctx.tabs[i]->csv_guard = !ctx.opts.compat; /* formulas (sbuf.h) */
    if (st == TLM_ENOMEM)
        goto oom; /* the table builders do not fill err */
    if (st != TLM_OK)
        goto fail;

    tlm_report *r = calloc(1, sizeof *r);
    if (!r)
        goto oom;
    r->tabs = ctx.tabs;
    r->ntabs = ctx.ntabs;
    ctx.tabs = NULL;
    ctx.ntabs = 0;
    r->tl = ctx.tl;
    r->stats = *tlm_tree_stats_get(tree);
    r->has_arch = ctx.has_arch;
    r->arch = ctx.arch;
    r->gpu = gpu;
    snprintf(r->label, sizeof r->label, "%s",
             ctx.opts.trace_label ? ctx.opts.trace_label : path);
    r->n_out_of_range = ctx.n_out_of_range;
    r->n_gpu_total = (size_t)r->stats.n_gpu;
    r->n_gpu_linked = (size_t)r->stats.n_gpu_linked;
    int unl = ctx.opts.include_unlinked_kernels;
    ctx_free(&ctx);
    tlm_inductor_cache_free(ic);
    if (tlm_memcpy_summary(tree, unl, &r->memcpy_tab) != TLM_OK) {
        tlm_report_free(r);
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "report: out of memory while building tables");
    }
    *out = r;
    return TLM_OK;
oom:
    st = tlm_error_set(err, TLM_ENOMEM, path, -1,
                       "report: out of memory while building tables");
fail:
    ctx_free(&ctx);
    tlm_inductor_cache_free(ic);
    return st;
}

void tlm_report_free(tlm_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ntabs; i++)
        tlm_tab_free(r->tabs[i]);
    free(r->tabs);
    tlm_tab_free(r->memcpy_tab);
    free(r->findings_md);
    free(r);
}

const tlm_tab *tlm_report_tab(const tlm_report *r, size_t i)
{
    return r && i < r->ntabs ? r->tabs[i] : NULL;
}

tlm_tab *tlm_report_tab_mut(tlm_report *r, size_t i)
{
    return r && i < r->ntabs ? r->tabs[i] : NULL;
}

tlm_status tlm_report_insert_tab(tlm_report *r, size_t at, tlm_tab *t)
{
    tlm_tab **p = realloc(r->tabs, (r->ntabs + 1) * sizeof *p);
    if (!p) {
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    r->tabs = p;
    if (at > r->ntabs)
        at = r->ntabs;
    memmove(p + at + 1, p + at, (r->ntabs - at) * sizeof *p);
    p[at] = t;
    r->ntabs++;
    return TLM_OK;
}

const tlm_tab *tlm_report_memcpy_tab(const tlm_report *r)
{
    return r ? r->memcpy_tab : NULL;
}

/* The trace's label (report.md's name for it). */
const char *tlm_report_label(const tlm_report *r)
{
    return r->label;
}

tlm_status tlm_report_set_findings_md(tlm_report *r, const char *md,
                                      size_t n)
{
    char *p = NULL;
    if (md) {
        p = malloc(n + 1);
        if (!p)
            return TLM_ENOMEM;
        memcpy(p, md, n);
        p[n] = 0;
    }
    free(r->findings_md);
    r->findings_md = p;
    return TLM_OK;
}

/* MARK: - accessors ------------------------------------------------------ */

const tlm_gpu_timeline *tlm_report_timeline(const tlm_report *r)
{
    return &r->tl;
}

const tlm_report_gpu *tlm_report_gpu_get(const tlm_report *r)
{
    return &r->gpu;
}

size_t tlm_report_table_count(const tlm_report *r) { return r->ntabs; }

const char *tlm_report_table_name(const tlm_report *r, size_t i)
{
    return i < r->ntabs ? r->tabs[i]->name : NULL;
}

size_t tlm_report_table_rows(const tlm_report *r, size_t i)
{
    return i < r->ntabs ? r->tabs[i]->nrows : 0;
}

size_t tlm_report_table_cols(const tlm_report *r, size_t i)
{
    return i < r->ntabs ? r->tabs[i]->ncols : 0;
}

const char *tlm_report_table_colname(const tlm_report *r, size_t i,
                                     size_t col)
{
    if (i >= r->ntabs || col >= r->tabs[i]->ncols)
        return NULL;
    return r->tabs[i]->colnames[col];
}

long tlm_report_table_find(const tlm_report *r, const char *name)
{
    for (size_t i = 0; i < r->ntabs; i++)
        if (!strcmp(r->tabs[i]->name, name))
            return (long)i;
    return -1;
}

/* Cell (row, col) of table i; NULL when out of range or null. */
static const tlm_cell *cell_at(const tlm_report *r, size_t i, size_t row,
                               size_t col)
{
    if (i >= r->ntabs || row >= r->tabs[i]->nrows ||
        col >= r->tabs[i]->ncols)
        return NULL;
    const tlm_cell *c = tlm_tab_cell(r->tabs[i], row, col);
    return c->null ? NULL : c;
}

size_t tlm_report_cell_text(const tlm_report *r, size_t i, size_t row,
                            size_t col, char *buf, size_t size)
{
    if (size)
        buf[0] = '\0';
    const tlm_cell *c = cell_at(r, i, row, col);
    if (!c)
        return 0;
    const tlm_tab *t = r->tabs[i];
    char num[64];
    const char *s = num;
    size_t need;
    switch (t->coltypes[col]) {
    case TLM_COL_F64:
        need = tlm_py_float_repr(c->v.f, num, sizeof num);
        break;
    case TLM_COL_I64:
        need = (size_t)snprintf(num, sizeof num, "%lld", (long long)c->v.i);
        break;
    case TLM_COL_BOOL:
        s = c->v.i ? "True" : "False";
        need = strlen(s);
        break;
    default: /* TLM_COL_STR */
        s = c->v.s ? c->v.s : "";
        need = strlen(s);
        break;
    }
    if (size) {
        size_t k = need < size - 1 ? need : size - 1;
        if (k)
            memcpy(buf, s, k);
        buf[k] = '\0';
    }
    return need;
}

int tlm_report_cell_num(const tlm_report *r, size_t i, size_t row,
                        size_t col, double *out)
{
    *out = NAN;
    const tlm_cell *c = cell_at(r, i, row, col);
    if (!c)
        return 0;
    const tlm_tab *t = r->tabs[i];
    switch (t->coltypes[col]) {
    case TLM_COL_F64:
        *out = c->v.f;
        return 1;
    case TLM_COL_I64:
    case TLM_COL_BOOL:
        *out = (double)c->v.i;
        return 1;
    default:
        return 0;
    }
}

/* Final name of output i (i == r->ntabs: report.md). */
static tlm_status out_name(const tlm_report *r, size_t i, const char *dir,
                           const char *md_path, char *path, size_t size,
                           tlm_error *err)
{
    int n = i < r->ntabs
                ? snprintf(path, size, "%s/%s.csv", dir, r->tabs[i]->name)
                : snprintf(path, size, "%s", md_path);
    if (n < 0 || (size_t)n >= size)
        return tlm_error_set(err, TLM_EINVAL, dir, -1,
                             "output path too long");
    return TLM_OK;
}

tlm_status tlm_report_stage(const tlm_report *r, tlm_outset *set,
                            const char *dir, const char *md_path,
                            tlm_error *err)
{
    size_t n = (dir ? r->ntabs : 0) + (md_path ? 1 : 0);
    size_t first = dir ? 0 : r->ntabs;
    char path[4096];
    tlm_status st = TLM_OK;
    for (size_t i = first; st == TLM_OK && i < first + n; i++) {
        const char *tmp = NULL;
        st = out_name(r, i, dir, md_path, path, sizeof path, err);
        if (st == TLM_OK)
            st = tlm_outset_stage(set, path, &tmp, err);
        if (st == TLM_OK)
            st = i < r->ntabs ? tlm_tab_write_csv(r->tabs[i], tmp, err)
                              : tlm_report_md_to(r, path, tmp, err);
        if (st != TLM_OK && tmp && err) { /* the file, not its temporary */
            char m[sizeof err->msg];
            memcpy(m, err->msg, sizeof m);
            tlm_error_set(err, err->code, path, -1, "%s", m);
        }
    }
    if (st != TLM_OK)
        tlm_outset_abort(set);
    return st;
}

/* Stages the outputs in a set of their own and publishes it: all files or
 * none, existing regular files replaced. */
static tlm_status write_all(const tlm_report *r, const char *dir,
                            const char *md_path, tlm_error *err)
{
    tlm_outset set;
    tlm_status st = tlm_outset_init(&set, 1, err);
    if (st == TLM_OK)
        st = tlm_report_stage(r, &set, dir, md_path, err);
    if (st == TLM_OK)
        st = tlm_outset_commit(&set, err);
    tlm_outset_free(&set);
    return st;
}

tlm_status tlm_report_write_csvs(const tlm_report *r, const char *dir,
                                 tlm_error *err)
{
    return write_all(r, dir, NULL, err);
}

tlm_status tlm_report_write_all(const tlm_report *r, const char *dir,
                                const char *md_path, tlm_error *err)
{
    return write_all(r, dir, md_path, err);
}

tlm_status tlm_report_write_md(const tlm_report *r, const char *path,
                               tlm_error *err)
{
    return write_all(r, NULL, path, err);
}
