/*
 * hta_cpath_kernels.c - the GPU-side edges of HTA's critical-path graph
 * (spec/hta.md §9, pass 3) and the queue lengths they read (§5).
 *
 * Queue length: over the whole rank, a launch (a §5 launch name with
 * index_correlation > 0) is +1 at its ts on its kernel's stream, the
 * kernel -1 at its start; per stream in (ts, launch first, index) order
 * the running sum after each step is the value at that event.  Only the
 * window's kernels and launches need it: they are sorted, and one scan of
 * the rank's launches counts every step into the window events at or
 * after it (no array of the rank's steps).
 *
 * Kernels (and sync events) of the window in (ts - cuda_sync events by
 * their end -, index) order: an operator edge start -> end, then a launch
 * delay edge when the launch found an empty queue (1 after it, 0 at the
 * kernel) and the stream's previous kernel ended before the launch, else
 * a kernel-kernel edge from the previous kernel's end if it ended less
 * than 1500 us before.  Context Sync and Stream Sync add sync edges from
 * the streams' last kernels to the CPU call's end.
 */
#include "hta_cpath.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sortutil.h"
#include "search.h"

#define Q_NONE INT64_MIN
/* A gap this long or longer between two kernels of a stream is no
 * kernel-kernel edge (spec §9: 1500 us). */
#define KK_MAX_NS ((int64_t)1500 * 1000)

static const char *const launch_names[] = {
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipMemcpyAsync",
    "hipMemsetAsync",
    "hipMemcpyWithStream",
    "runFunction - job_prep_and_submit_for_execution",
};
#define N_LAUNCH (sizeof launch_names / sizeof launch_names[0])

/* ---------------------------------------------------------------- MARK: -
 * queue lengths */

/* A step of the queue-length series (a query when it is a window
 * event's): per stream in (ts, launch first, index) order. */
typedef struct step {
    int64_t stream, ts, index;
    int32_t slot; /* window slot (queries) */
    int8_t kind;  /* 0 launch (+1), 1 kernel (-1) */
    int8_t valid; /* query: the step exists (a launch pairs with it) */
} step;

static int step_lt(const step *a, const step *b)
{
    if (a->stream != b->stream)
        return a->stream < b->stream;
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->index < b->index;
}
static int step_le(const step *a, const step *b)
{
    return !step_lt(b, a);
}
TLM_DEFINE_RUN_SORT(sort_steps, step, step_le)

static int is_launch(const uint32_t *ids, uint32_t name)
{
    for (size_t i = 0; i < N_LAUNCH; i++) {
        if (ids[i] != 0 && ids[i] == name)
            return 1;
    }
    return 0;
}

/* The kernel a launch row pairs with (its index_correlation, when that
 * row is a GPU event of the same correlation), or NULL. */
static const tlm_hta_ev *partner(const tlm_cp_graph *g, const tlm_hta_ev *l)
{
    const tlm_hta_ev *k = tlm_hta_events_find(g->ev, l->icorr);
    if (!k || k->stream == -1 || k->corr != l->corr)
        return NULL;
    return k;
}

/* tlm_lower_bound's order: > 0 when query elem is before step key. */
static int cmp_step(const void *key, const void *elem)
{
    return step_lt(elem, key);
}

/* First query not before s (queries sorted). */
static size_t lower(const step *qs, size_t n, const step *s)
{
    return tlm_lower_bound(qs, n, sizeof *qs, s, cmp_step);
}

/* First query of a later stream than `stream`. */
static size_t stream_end(const step *qs, size_t n, int64_t stream)
{
    return tlm_upper_bound_i64_at(qs, n, sizeof *qs, offsetof(step, stream),
                                  stream);
}

/* Adds step s to every query at or after it on its stream. */
static void count_step(const step *qs, size_t n, int64_t *diff, const step *s,
                       int sign)
{
    size_t from = lower(qs, n, s);
    if (from >= n || qs[from].stream != s->stream)
        return;
    diff[from] += sign;
    diff[stream_end(qs, n, s->stream)] -= sign;
}

/* The window's queries: its launches (on their kernel's stream) and its
 * GPU events; *n of them, sorted. */
static tlm_status queries(const tlm_cp_graph *g, const uint32_t *ids,
                          step **out, size_t *n)
{
    step *qs = malloc((g->nwin ? g->nwin : 1) * sizeof *qs);
    size_t m = 0;
    if (!qs)
        return TLM_ENOMEM;
    for (size_t s = 0; s < g->nwin; s++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, (int32_t)s);
        step q = {e->stream, e->ts, e->index, (int32_t)s, 1, 0};
        if (e->stream == -1) {
            const tlm_hta_ev *k;
            if (e->icorr <= 0 || !is_launch(ids, e->name) ||
                !(k = partner(g, e)))
                continue;
            q.stream = k->stream;
            q.kind = 0;
            q.valid = 1;
        }
        qs[m++] = q;
    }
    if (sort_steps(qs, m) != TLM_OK) {
        free(qs);
        return TLM_ENOMEM;
    }
    *out = qs;
    *n = m;
    return TLM_OK;
}

/* q[slot] = the queue length at that window event (§5: over the whole
 * rank, the running sum of its stream's steps up to and including the
 * event's own), Q_NONE elsewhere.  One scan of the rank's launches counts
 * each step into the window's queries at or after it (a difference array
 * over the sorted queries): memory linear in the window. */
static tlm_status queue_lengths(const tlm_cp_graph *g, int64_t *q)
{
    uint32_t ids[N_LAUNCH];
    step *qs = NULL;
    size_t n = 0;
    for (size_t i = 0; i < N_LAUNCH; i++)
        ids[i] = tlm_cp_name_id(g, launch_names[i]);
    for (size_t s = 0; s < g->nwin; s++)
        q[s] = Q_NONE;
    if (queries(g, ids, &qs, &n) != TLM_OK)
        return TLM_ENOMEM;
    int64_t *diff = calloc(n + 1, sizeof *diff);
    if (!diff) {
        free(qs);
        return TLM_ENOMEM;
    }
    for (size_t r = 0; r < g->ev->n; r++) {
        const tlm_hta_ev *l = &g->ev->ev[r];
        if (l->icorr <= 0 || !is_launch(ids, l->name))
            continue;
        const tlm_hta_ev *k = partner(g, l);
        if (!k)
            continue;
        step a = {k->stream, l->ts, l->index, -1, 0, 0};
        step b = {k->stream, k->ts, k->index, -1, 1, 0};
        count_step(qs, n, diff, &a, 1);
        count_step(qs, n, diff, &b, -1);
        size_t at = lower(qs, n, &b); /* the kernel's own query */
        if (at < n && !step_lt(&b, &qs[at]))
            qs[at].valid = 1;
    }
    int64_t run = 0;
    for (size_t i = 0; i < n; i++) {
        run += diff[i];
        if (qs[i].valid)
            q[qs[i].slot] = run;
    }
    free(diff);
    free(qs);
    return TLM_OK;
}

/* ---------------------------------------------------------------- MARK: -
 * the kernel pass */

typedef struct kkey {
    int64_t t, index;
    int32_t slot;
} kkey;

static int kkey_le(const kkey *a, const kkey *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    return a->index <= b->index;
}
TLM_DEFINE_RUN_SORT(sort_kkeys, kkey, kkey_le)

/* Last kernel end node per stream, streams in first-seen order. */
typedef struct lastmap {
    int64_t *stream;
    int32_t *node;
    size_t n, cap_s, cap_n;
} lastmap;

static int32_t *last_of(lastmap *m, int64_t stream, int add)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->stream[i] == stream)
            return &m->node[i];
    }
    if (!add)
        return NULL;
    if (tlm_grow((void **)&m->stream, &m->cap_s, m->n + 1, sizeof(int64_t),
                 8) != TLM_OK ||
        tlm_grow((void **)&m->node, &m->cap_n, m->n + 1, sizeof(int32_t),
                 8) != TLM_OK)
        return NULL;
    m->stream[m->n] = stream;
    m->node[m->n] = -1;
    return &m->node[m->n++];
}

static int is_sync_cat(const tlm_cp_graph *g, const tlm_hta_ev *e)
{
    size_t len = 0;
    const char *c = tlm_trace_str(g->ev->trace, e->cat_str, &len);
    return c && len == 9 && memcmp(c, "cuda_sync", 9) == 0;
}

typedef struct names {
    uint32_t ctx_sync, stream_sync, event_sync, wait_event;
} names;

static tlm_status sync_edge(tlm_cp_graph *g, int32_t gpu_node, int64_t cpu)
{
    int32_t s = tlm_cp_slot(g, cpu);
    int32_t en = s >= 0 ? g->end_of[s] : -1;
    if (gpu_node < 0)
        return TLM_OK;
    if (en < 0) {
        g->out->n_missing_node++;
        return TLM_OK;
    }
    return tlm_cp_add_edge(g, gpu_node, en, TLM_CP_SYNC, 0) == -1
               ? TLM_ENOMEM
               : TLM_OK;
}

static tlm_status handle_sync(tlm_cp_graph *g, const names *nm,
                              const tlm_hta_ev *e, lastmap *lm)
{
    if (e->name == nm->event_sync || e->name == nm->wait_event) {
        g->out->n_event_sync++;
        return TLM_OK;
    }
    if (e->name == nm->ctx_sync) {
        for (size_t i = 0; i < lm->n; i++) {
            if (sync_edge(g, lm->node[i], e->icorr) != TLM_OK)
                return TLM_ENOMEM;
        }
        return TLM_OK;
    }
    if (e->name == nm->stream_sync) {
        int32_t *p = last_of(lm, e->stream, 0);
        return sync_edge(g, p ? *p : -1, e->icorr);
    }
    return TLM_OK;
}

static tlm_status one_kernel(tlm_cp_graph *g, int32_t s, const int64_t *q,
                             lastmap *lm)
{
    const tlm_hta_ev *e = tlm_cp_ev(g, s);
    int32_t sn = g->start_of[s], en = g->end_of[s];
    if (sn < 0 || en < 0)
        return TLM_OK;
    int32_t op = tlm_cp_add_edge(g, sn, en, TLM_CP_OPERATOR, 0);
    if (op == -1)
        return TLM_ENOMEM;
    tlm_cp_attribute(g, op, -1);
    int32_t rs = tlm_cp_slot(g, e->icorr);
    int64_t q_rt = rs >= 0 ? q[rs] : Q_NONE;
    int32_t *lastp = last_of(lm, e->stream, 1);
    if (!lastp)
        return TLM_ENOMEM;
    int32_t last = *lastp;
    const tlm_hta_ev *rt = tlm_hta_events_find(g->ev, e->icorr);
    int launch_ok = q_rt == 1 && q[s] == 0 &&
                    (last < 0 || (rt && g->node[last].ts < rt->ts));
    int32_t r = 0;
    if (launch_ok) {
        int32_t rsn = rs >= 0 ? g->start_of[rs] : -1;
        if (rsn < 0)
            g->out->n_missing_node++;
        else
            r = tlm_cp_add_edge(g, rsn, sn, TLM_CP_LAUNCH_DELAY, 0);
    } else if (last >= 0 &&
               tlm_cp_sub(g->node[sn].ts, g->node[last].ts) < KK_MAX_NS) {
        r = tlm_cp_add_edge(g, last, sn, TLM_CP_KERNEL_DELAY, 0);
        tlm_cp_attribute(g, r, -1);
    } else {
        g->out->n_no_edge++;
    }
    if (r == -1)
        return TLM_ENOMEM;
    *lastp = en;
    return TLM_OK;
}

tlm_status tlm_cp_pass_kernels(tlm_cp_graph *g)
{
    tlm_status st = TLM_ENOMEM;
    names nm = {tlm_cp_name_id(g, "Context Sync"),
                tlm_cp_name_id(g, "Stream Sync"),
                tlm_cp_name_id(g, "Event Sync"),
                tlm_cp_name_id(g, "Stream Wait Event")};
    lastmap lm = {0};
    size_t n = g->nwin, nk = 0;
    int64_t *q = malloc((n ? n : 1) * sizeof *q);
    kkey *k = malloc((n ? n : 1) * sizeof *k);
    if (!q || !k || queue_lengths(g, q) != TLM_OK)
        goto done;
    for (size_t s = 0; s < n; s++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, (int32_t)s);
        int named = e->name != 0 &&
                    (e->name == nm.event_sync || e->name == nm.ctx_sync);
        if (!(e->stream != -1 || named) || e->icorr < 0)
            continue;
        kkey kk = {e->ts, e->index, (int32_t)s};
        if (is_sync_cat(g, e))
            kk.t = tlm_cp_add(e->ts, e->dur);
        k[nk++] = kk;
    }
    if (sort_kkeys(k, nk) != TLM_OK)
        goto done;
    for (size_t i = 0; i < nk; i++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, k[i].slot);
        if (is_sync_cat(g, e))
            st = handle_sync(g, &nm, e, &lm);
        else
            st = one_kernel(g, k[i].slot, q, &lm);
        if (st != TLM_OK)
            goto done;
    }
    st = TLM_OK;
done:
    free(q);
    free(k);
    free(lm.stream);
    free(lm.node);
    return st;
}
