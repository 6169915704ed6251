/*
 * coll_window.c - the window before each collective of one trace, for the
 * straggler causes (tlm_cause.h, docs/straggler-causes.md).
 *
 * The window of a collective is [end of the previous instance of the same
 * process group on this rank, start of this collective's kernel) when that
 * instance lined the ranks up (compute ran beside at most half of it):
 * every implicit-sync instance ends at nearly the same true time on all of
 * its members, so the windows of two members of one instance start
 * together and their lengths differ by how much later one arrived than
 * the other.  Otherwise (the group's first collective here, or one that
 * ran beside compute) it starts at the step's start (ProfilerStep#N, else
 * the trace's first timestamp); the parts from the step's start are kept
 * for every window.
 *
 * Inside the window the GPU (every stream of the trace) is busy with
 * compute, copies or memsets, or idle; collective kernels are left out (a
 * collective kernel that waits for its peers is not work).  Each idle gap
 * ends when a GPU op starts (or the collective itself); the host launch of
 * that op (cuda_runtime/cuda_driver event with the same correlation)
 * splits the gap: before the launch began, the GPU waited for the host
 * (host_busy, attributed to the innermost host event on the launching
 * thread, "(untraced)" where none; but where that thread sat in a
 * cuda*Synchronize call the host waited for the GPU: collective kernels
 * running then are waiting_elsewhere, the rest late_launch); after it, the op waited for the
 * collective kernel launched before it that ended last in the gap
 * (waiting_elsewhere; before that kernel started, the same split for it),
 * else the work was issued but had not started (late_launch).  The time
 * the window's collective was ready (its launch and every op launched
 * before it done) but had not started is late_launch even where other
 * streams were busy.  A gap whose op has no launch goes to other.  GPU
 * busy time is attributed to the op that launched it (the innermost host
 * event around its launch; else the GPU op's name).
 *
 * Cost: one sort of the GPU ops and of the host events, then each window
 * looks only at the GPU ops it overlaps and, for each of its host parts,
 * at the chain of host events open at its start (parent links computed
 * once) and at most HOST_SCAN events starting inside it: O(E log E) per
 * trace.
 */
#include "coll_internal.h"
#include "i3map.h"
#include "tlmpi/tlm_cause.h"
#include "search.h"

#include <stdlib.h>
#include <string.h>

#define HOST_SCAN 512   /* host events starting inside one host part */
#define MAX_DEPTH 64    /* nesting of host events followed */
#define MAX_OPS 32      /* distinct ops counted per window and kind */
#define GATE_SCAN 4096  /* GPU ops looked at for one gap's collective */
#define MAX_CHAIN 8     /* collective kernels followed back from a gap */

static const char *const cause_names[TLM_CAUSE_COUNT] = {
#define TLM_X_(e, s) s,
    TLM_CAUSE_LIST(TLM_X_)
#undef TLM_X_
};

const char *tlm_cause_name(int cause)
{
    return cause >= 0 && cause < TLM_CAUSE_COUNT ? cause_names[cause] : NULL;
}

/* MARK: - per-trace indexes */

typedef struct gop {
    int64_t t0, t1;
    int64_t lts;    /* its launch's start, NO_TS when none */
    uint32_t ev;    /* event index */
    uint32_t name;  /* the op it is charged to (gop_name) */
    int32_t launch; /* its launch event, -1 none */
    int32_t comm;   /* a collective kernel (a record of this trace) */
} gop;

#define NO_TS INT64_MIN

typedef struct hev {
    int64_t pid, tid, t0, t1;
    uint32_t ev;
} hev;

typedef struct wctx {
    const tlm_trace *tr;
    const tlm_event *e;
    size_t ne;
    gop *g;         /* GPU ops by start */
    int64_t *gmax;  /* prefix maximum of their ends */
    size_t ng;
    hev *h;         /* host events by (pid, tid, start, -dur) */
    int32_t *up;    /* per host event: the one enclosing it, -1 none */
    hev *sy;        /* cuda*Synchronize calls by (pid, tid, start) */
    size_t nsy;
    size_t nh;
    tlm_i3map corr; /* correlation -> launch event */
    int64_t *steps; /* starts of the ProfilerStep#N annotations, sorted */
    size_t nsteps;
    int64_t t_first; /* the trace's first timestamp */
} wctx;

static int cmp_gop(const void *a, const void *b)
{
    const gop *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int cmp_hev(const void *a, const void *b)
{
    const hev *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    if (x->t1 != y->t1)
        return x->t1 > y->t1 ? -1 : 1; /* longer (outer) first */
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int is_host(const tlm_event *ev)
{
    return ev->ph == 'X' && ev->has_tid && (ev->flags & TLM_EV_HAS_TS) &&
           (ev->cat == TLM_CAT_CPU_OP || ev->cat == TLM_CAT_PYTHON_FUNCTION ||
            ev->cat == TLM_CAT_USER_ANNOTATION) && tlm_ev_dur(ev) >= 0;
}

/* A runtime call that blocks the host until the GPU is done
 * (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize). */
static int is_sync(const tlm_trace *tr, const tlm_event *ev)
{
    size_t len = 0;
    if (ev->ph != 'X' || !ev->has_tid || !(ev->flags & TLM_EV_HAS_TS) ||
        tlm_ev_dur(ev) < 0 ||
        (ev->cat != TLM_CAT_CUDA_RUNTIME && ev->cat != TLM_CAT_CUDA_DRIVER))
        return 0;
    const char *s = tlm_trace_str(tr, ev->name, &len);
    static const char k[] = "Synchronize";
    for (size_t i = 0; s && i + sizeof k - 1 <= len; i++)
        if (memcmp(s + i, k, sizeof k - 1) == 0)
            return 1;
    return 0;
}

/* A ProfilerStep#N annotation (the step a first window starts at). */
static int is_step(const tlm_trace *tr, const tlm_event *ev)
{
    static const char pre[] = "ProfilerStep#";
    size_t len = 0;
    if (ev->ph != 'X' || ev->cat != TLM_CAT_USER_ANNOTATION ||
        !(ev->flags & TLM_EV_HAS_TS))
        return 0;
    const char *s = tlm_trace_str(tr, ev->name, &len);
    return s && len >= sizeof pre - 1 && memcmp(s, pre, sizeof pre - 1) == 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static tlm_status index_trace(wctx *w, const tlm_alloc *a)
{
    size_t ng = 0, nh = 0, nr = 0, ns = 0, nsy = 0;
    w->t_first = INT64_MAX;
    for (size_t i = 0; i < w->ne; i++) {
        const tlm_event *ev = &w->e[i];
        ng += tlm_event_is_gpu(ev) != 0;
        nh += is_host(ev);
        nr += ev->cat == TLM_CAT_CUDA_RUNTIME || ev->cat == TLM_CAT_CUDA_DRIVER;
        ns += is_step(w->tr, ev);
        nsy += is_sync(w->tr, ev);
        if (ev->ph == 'X' && (ev->flags & TLM_EV_HAS_TS) && ev->ts < w->t_first)
            w->t_first = ev->ts;
    }
    w->steps = tlm_coll_malloc(a, (ns ? ns : 1) * sizeof *w->steps);
    w->sy = tlm_coll_malloc(a, (nsy ? nsy : 1) * sizeof *w->sy);
    w->g = tlm_coll_malloc(a, (ng ? ng : 1) * sizeof *w->g);
    w->gmax = tlm_coll_malloc(a, (ng ? ng : 1) * sizeof *w->gmax);
    w->h = tlm_coll_malloc(a, (nh ? nh : 1) * sizeof *w->h);
    w->up = tlm_coll_malloc(a, (nh ? nh : 1) * sizeof *w->up);
    if (!w->steps || !w->sy || !w->g || !w->gmax || !w->h || !w->up ||
        tlm_i3map_init(&w->corr, nr) != TLM_OK)
        return TLM_ENOMEM;
    for (size_t i = 0; i < w->ne && i <= INT32_MAX; i++) {
        const tlm_event *ev = &w->e[i];
        int64_t v;
        if (tlm_event_is_gpu(ev)) {
            w->g[w->ng].t0 = ev->ts;
            w->g[w->ng].t1 = ev->ts + tlm_ev_dur(ev);
            w->g[w->ng++].ev = (uint32_t)i;
        } else if ((ev->cat == TLM_CAT_CUDA_RUNTIME ||
                    ev->cat == TLM_CAT_CUDA_DRIVER) &&
                   (ev->flags & TLM_EV_HAS_TS) &&
                   tlm_event_arg_int(w->tr, ev, TLM_ARG_CORRELATION, &v)) {
            if (tlm_i3map_put(&w->corr, v, 0, 0, (int32_t)i) != TLM_OK)
                return TLM_ENOMEM;
        }
        if (is_step(w->tr, ev))
            w->steps[w->nsteps++] = ev->ts;
        if (is_sync(w->tr, ev)) {
            hev *y = &w->sy[w->nsy++];
            y->pid = tlm_ev_pid(ev);
            y->tid = tlm_ev_tid(ev);
            y->t0 = ev->ts;
            y->t1 = ev->ts + tlm_ev_dur(ev);
            y->ev = (uint32_t)i;
        }
        if (is_host(ev)) {
            hev *h = &w->h[w->nh++];
            h->pid = tlm_ev_pid(ev);
            h->tid = tlm_ev_tid(ev);
            h->t0 = ev->ts;
            h->t1 = ev->ts + tlm_ev_dur(ev);
            h->ev = (uint32_t)i;
        }
    }
    qsort(w->h, w->nh, sizeof *w->h, cmp_hev);
    qsort(w->steps, w->nsteps, sizeof *w->steps, cmp_i64);
    qsort(w->sy, w->nsy, sizeof *w->sy, cmp_hev);
    /* parent links: a stack per thread (up[] doubles as the stack) */
    int32_t top = -1;
    for (size_t i = 0; i < w->nh; i++) {
        const hev *h = &w->h[i];
        if (i && (h->pid != w->h[i - 1].pid || h->tid != w->h[i - 1].tid))
            top = -1;
        while (top >= 0 && w->h[top].t1 <= h->t0)
            top = w->up[top];
        w->up[i] = top;
        top = (int32_t)i;
    }
    return TLM_OK;
}

/* MARK: - op tallies */

typedef struct tally {
    uint32_t name[MAX_OPS]; /* interned name; 0 = "(untraced)" */
    int64_t ns[MAX_OPS];
    int n;
    int cut;
} tally;

static void tally_add(tally *t, uint32_t name, int64_t ns)
{
    if (ns <= 0)
        return;
    for (int i = 0; i < t->n; i++) {
        if (t->name[i] == name) {
            t->ns[i] += ns;
            return;
        }
    }
    if (t->n == MAX_OPS) {
        t->cut = 1;
        return;
    }
    t->name[t->n] = name;
    t->ns[t->n++] = ns;
}

static void op_set(const tlm_trace *tr, tlm_cause_op *o, uint32_t name,
                   int64_t ns)
{
    size_t len = 0;
    const char *s = name ? tlm_trace_str(tr, name, &len) : "(untraced)";
    if (!name)
        len = strlen(s);
    o->hash = tlm_hash64(s, len);
    if (o->hash == 0)
        o->hash = 1;
    o->ns = ns;
    size_t n = len < TLM_CAUSE_OP_LEN - 1 ? len : TLM_CAUSE_OP_LEN - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        o->name[i] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
    }
    o->name[n] = 0;
}

/* The TLM_CAUSE_TOP largest entries into out (largest first; ties: the
 * lower name id). */
static void tally_top(const tlm_trace *tr, const tally *t, tlm_cause_op *out)
{
    int used[MAX_OPS] = {0};
    for (int k = 0; k < TLM_CAUSE_TOP; k++) {
        int best = -1;
        for (int i = 0; i < t->n; i++)
            if (!used[i] && (best < 0 || t->ns[i] > t->ns[best] ||
                             (t->ns[i] == t->ns[best] &&
                              t->name[i] < t->name[best])))
                best = i;
        if (best < 0)
            break;
        used[best] = 1;
        op_set(tr, &out[k], t->name[best], t->ns[best]);
    }
}

/* MARK: - one window */

/* The launch event of GPU op ev, or -1. */
static int32_t launch_of(const wctx *w, uint32_t ev)
{
    int64_t c;
    if (!tlm_event_arg_int(w->tr, &w->e[ev], TLM_ARG_CORRELATION, &c))
        return -1;
    return tlm_i3map_get(&w->corr, c, 0, 0);
}

/* tlm_lower_bound's order: > 0 when host event elem is before key by
 * (pid, tid, t0). */
static int hev_before(const void *key, const void *elem)
{
    const hev *k = key, *h = elem;
    return h->pid < k->pid ||
           (h->pid == k->pid &&
            (h->tid < k->tid || (h->tid == k->tid && h->t0 < k->t0)));
}

/* First host event of (pid, tid) with start >= t, as an index in w->h. */
static size_t host_lower(const wctx *w, int64_t pid, int64_t tid, int64_t t)
{
    hev key = {.pid = pid, .tid = tid, .t0 = t};
    return tlm_lower_bound(w->h, w->nh, sizeof *w->h, &key, hev_before);
}

/* The name GPU op ev is charged to: the innermost host event running on
 * the launching thread when launch l began, else the GPU op's own name. */
static uint32_t gop_name(const wctx *w, uint32_t ev, int32_t l)
{
    if (l >= 0) {
        const tlm_event *le = &w->e[l];
        size_t k = host_lower(w, tlm_ev_pid(le), tlm_ev_tid(le), le->ts + 1);
        if (k > 0 && w->h[k - 1].pid == tlm_ev_pid(le) &&
            w->h[k - 1].tid == tlm_ev_tid(le)) {
            for (int32_t j = (int32_t)k - 1; j >= 0; j = w->up[j])
                if (w->h[j].t1 > le->ts)
                    return w->e[w->h[j].ev].name;
        }
    }
    return w->e[ev].name;
}

/* Resolves each GPU op's charged name, launch and whether it is a
 * collective kernel (its event index in comm[0..ncomm), sorted) once (the
 * windows of several groups overlap), then orders them by start. */
static void finish_index(wctx *w, const uint64_t *comm, size_t ncomm)
{
    for (size_t i = 0; i < w->ng; i++) {
        gop *g = &w->g[i];
        uint64_t ev = g->ev;
        g->launch = launch_of(w, g->ev);
        g->lts = g->launch >= 0 ? w->e[g->launch].ts : NO_TS;
        g->name = gop_name(w, g->ev, g->launch);
        g->comm = bsearch(&ev, comm, ncomm, sizeof *comm, cmp_u64) != NULL;
    }
    qsort(w->g, w->ng, sizeof *w->g, cmp_gop);
    for (size_t i = 0; i < w->ng; i++)
        w->gmax[i] = i && w->gmax[i - 1] > w->g[i].t1 ? w->gmax[i - 1]
                                                      : w->g[i].t1;
}

/* Charges [h0, h1) on the launching thread of launch event l to the
 * innermost host event covering each instant (self time clipped to the
 * interval), "(untraced)" where none covers. */
static void host_part(const wctx *w, int32_t l, int64_t h0, int64_t h1,
                      tally *t)
{
    const tlm_event *le = &w->e[l];
    /* the events open at h0 (the chain above the last one starting at or
     * before h0, outermost first), then those starting in (h0, h1) */
    size_t first = host_lower(w, tlm_ev_pid(le), tlm_ev_tid(le), h0 + 1);
    size_t end = host_lower(w, tlm_ev_pid(le), tlm_ev_tid(le), h1);
    int32_t chain[MAX_DEPTH];
    int nc = 0;
    if (first > 0 && w->h[first - 1].pid == tlm_ev_pid(le) &&
        w->h[first - 1].tid == tlm_ev_tid(le)) {
        for (int32_t j = (int32_t)first - 1; j >= 0; j = w->up[j]) {
            if (w->h[j].t1 <= h0)
                continue;
            if (nc == MAX_DEPTH) {
                t->cut = 1;
                break;
            }
            chain[nc++] = j;
        }
    }
    if (end - first > HOST_SCAN) {
        end = first + HOST_SCAN;
        t->cut = 1;
    }
    /* stack of open events (clipped), self time = clipped - children */
    int32_t stk[MAX_DEPTH];
    int64_t self[MAX_DEPTH];
    int64_t s_end[MAX_DEPTH];
    int depth = 0;
    int64_t covered = 0;
    for (size_t k = 0; k < (size_t)nc + (end - first); k++) {
        size_t i = k < (size_t)nc ? (size_t)chain[nc - 1 - (int)k]
                                  : first + (k - (size_t)nc);
        const hev *h = &w->h[i];
        int64_t c0 = h->t0 > h0 ? h->t0 : h0;
        int64_t c1 = h->t1 < h1 ? h->t1 : h1;
        if (c1 <= c0)
            continue;
        while (depth > 0 && s_end[depth - 1] <= h->t0) {
            depth--;
            tally_add(t, w->e[stk[depth]].name, self[depth]);
        }
        if (depth > 0)
            self[depth - 1] -= c1 - c0;
        else
            covered += c1 - c0;
        if (depth == MAX_DEPTH) {
            t->cut = 1;
            continue;
        }
        stk[depth] = (int32_t)h->ev;
        self[depth] = c1 - c0;
        s_end[depth++] = h->t1;
    }
    while (depth > 0) {
        depth--;
        tally_add(t, w->e[stk[depth]].name, self[depth]);
    }
    tally_add(t, 0, (h1 - h0) - covered);
}

static int64_t ops_in(const wctx *w, int64_t t0, int64_t t1, int comm);

/* [h0, h1) before the launch (event l) of the op ending an idle gap: the
 * host's (host_busy, charged by host_part) except where the launching
 * thread sat in a cuda*Synchronize call, waiting for the GPU: there the
 * collective kernels running are coll, the rest launch. */
static void host_span(const wctx *w, int32_t l, int64_t h0, int64_t h1,
                      tlm_coll_window *o, tally *ht)
{
    const tlm_event *le = &w->e[l];
    hev key = {.pid = tlm_ev_pid(le), .tid = tlm_ev_tid(le), .t0 = h0};
    size_t k = tlm_lower_bound(w->sy, w->nsy, sizeof *w->sy, &key,
                               hev_before);
    if (k > 0 && w->sy[k - 1].pid == tlm_ev_pid(le) &&
        w->sy[k - 1].tid == tlm_ev_tid(le))
        k--; /* a call open at h0 */
    int64_t cur = h0;
    for (size_t n = 0; k < w->nsy && w->sy[k].pid == tlm_ev_pid(le) &&
                       w->sy[k].tid == tlm_ev_tid(le) && w->sy[k].t0 < h1;
         k++, n++) {
        if (n == HOST_SCAN) {
            o->flags |= TLM_WIN_CUT;
            break;
        }
        int64_t s0 = w->sy[k].t0 > cur ? w->sy[k].t0 : cur;
        int64_t s1 = w->sy[k].t1 < h1 ? w->sy[k].t1 : h1;
        if (s1 <= s0)
            continue;
        if (s0 > cur) {
            o->host_ns += s0 - cur;
            host_part(w, l, cur, s0, ht);
        }
        int64_t c = ops_in(w, s0, s1, 1);
        o->coll_ns += c;
        o->launch_ns += (s1 - s0) - c;
        cur = s1;
    }
    if (h1 > cur) {
        o->host_ns += h1 - cur;
        host_part(w, l, cur, h1, ht);
    }
}

/* The collective kernel (of another collective than event skip) that an
 * op launched at lb waited for in (lo, hi]: among those launched before lb
 * (or without a launch in the trace), the one ending last in (lo, hi];
 * -1 none.  At most GATE_SCAN ops are looked at (*cut set beyond). */
static long gate_of(const wctx *w, int64_t lo, int64_t hi, int64_t lb,
                    uint32_t skip, int *cut)
{
    size_t i = tlm_upper_bound_i64_at(w->gmax, w->ng, sizeof *w->gmax, 0, lo);
    long best = -1;
    for (size_t k = 0; i < w->ng && w->g[i].t0 < hi; i++, k++) {
        const gop *g = &w->g[i];
        if (k == GATE_SCAN) {
            *cut = 1;
            break;
        }
        if (!g->comm || g->ev == skip || g->t1 <= lo || g->t1 > hi ||
            (g->lts != NO_TS && lb != NO_TS && g->lts >= lb))
            continue;
        if (best < 0 || g->t1 > w->g[best].t1)
            best = (long)i;
    }
    return best;
}

/* Idle gap [g0, g1) (no compute, copy or memset running) ending when the
 * GPU op ev launched by event l (-1: none found) starts: before the launch
 * began, the host (host_busy); after it, the collective kernel it waited
 * for, if one ends in the gap (waiting_elsewhere, and the time before that
 * kernel started split the same way for it), else the launch (late_launch).
 * No launch: other. */
static void gap(const wctx *w, int32_t l, uint32_t ev, int64_t g0,
                int64_t g1, tlm_coll_window *o, tally *ht, int depth)
{
    if (g1 <= g0)
        return;
    if (l < 0) {
        o->other_ns += g1 - g0;
        return;
    }
    int64_t l0 = w->e[l].ts;
    int64_t split = l0 < g0 ? g0 : l0 > g1 ? g1 : l0;
    if (split > g0)
        host_span(w, l, g0, split, o, ht);
    if (split >= g1)
        return;
    int cut = 0;
    long c = depth < MAX_CHAIN ? gate_of(w, split, g1, l0, ev, &cut) : -1;
    if (cut || depth >= MAX_CHAIN)
        o->flags |= TLM_WIN_CUT;
    if (c < 0) {
        o->launch_ns += g1 - split;
        return;
    }
    const gop *cg = &w->g[c];
    int64_t c0 = cg->t0 > split ? cg->t0 : split;
    gap(w, cg->launch, cg->ev, split, c0, o, ht, depth + 1);
    o->coll_ns += cg->t1 - c0;
    o->launch_ns += g1 - cg->t1;
}

/* When the collective's kernel (event ev, launch l) could have started
 * in [w0, w1]: the end of its launch and of every GPU op launched before
 * it that ended by w1 (its stream's earlier work, whatever it waited for);
 * w1 when it has no launch in the trace. */
static int64_t ready_at(const wctx *w, uint32_t ev, int32_t l, int64_t w0,
                        int64_t w1)
{
    if (l < 0)
        return w1;
    const tlm_event *le = &w->e[l];
    int64_t r = le->ts + (tlm_ev_dur(le) > 0 ? tlm_ev_dur(le) : 0);
    if (r < w0)
        r = w0;
    size_t lo = tlm_upper_bound_i64_at(w->gmax, w->ng, sizeof *w->gmax, 0,
                                       r);
    for (size_t i = lo; i < w->ng && w->g[i].t0 < w1; i++) {
        const gop *g = &w->g[i];
        if (g->ev != ev && g->t1 > r && g->t1 <= w1 &&
            (g->lts == NO_TS || g->lts < le->ts))
            r = g->t1;
    }
    return r < w1 ? r : w1;
}

/* The window [w0, start of r's kernel): GPU busy with compute, copies and
 * memsets (collective kernels are left out: the time an op waited for one
 * is waiting_elsewhere, see gap()), the idle gaps split by gap(), and the
 * time after the kernel was ready (ready_at) late_launch even when other
 * streams were busy. */
static void window(const wctx *w, const tlm_coll_record *r, int64_t w0,
                   tlm_coll_window *o)
{
    int64_t w1 = r->ts_ns;
    tally kt, ht;
    memset(&kt, 0, sizeof kt);
    memset(&ht, 0, sizeof ht);
    o->win_ns = w1 > w0 ? w1 - w0 : 0;
    if (w1 <= w0)
        return;
    uint32_t xev = (uint32_t)r->event_index;
    int32_t xl = launch_of(w, xev);
    int64_t rx = ready_at(w, xev, xl, w0, w1);
    /* first GPU op that may overlap w0 */
    size_t lo = tlm_upper_bound_i64_at(w->gmax, w->ng, sizeof *w->gmax, 0,
                                       w0);
    int64_t cur = w0; /* busy up to here */
    for (size_t i = lo; i < w->ng && w->g[i].t0 < rx; i++) {
        const gop *g = &w->g[i];
        if (g->ev == xev || g->comm || g->t1 <= w0)
            continue;
        int64_t c0 = g->t0 > w0 ? g->t0 : w0;
        int64_t c1 = g->t1 < rx ? g->t1 : rx;
        tally_add(&kt, g->name, c1 - c0);
        if (c0 > cur) {
            gap(w, g->launch, g->ev, cur, c0, o, &ht, 0);
            cur = c0;
        }
        if (c1 > cur) {
            o->busy_ns += c1 - cur;
            cur = c1;
        }
    }
    if (cur < rx)
        gap(w, xl, xev, cur, rx, o, &ht, 0);
    o->launch_ns += w1 - rx;
    if (kt.cut || ht.cut)
        o->flags |= TLM_WIN_CUT;
    tally_top(w->tr, &kt, o->kop);
    tally_top(w->tr, &ht, o->hop);
}

/* How long GPU ops ran in [t0, t1) (their union): compute, copies and
 * memsets (comm 0) or collective kernels (comm 1). */
static int64_t ops_in(const wctx *w, int64_t t0, int64_t t1, int comm)
{
    size_t lo = tlm_upper_bound_i64_at(w->gmax, w->ng, sizeof *w->gmax, 0,
                                       t0);
    int64_t cur = t0, sum = 0;
    for (size_t i = lo; i < w->ng && w->g[i].t0 < t1; i++) {
        const gop *g = &w->g[i];
        if (g->comm != comm || g->t1 <= cur)
            continue;
        int64_t c0 = g->t0 > cur ? g->t0 : cur;
        int64_t c1 = g->t1 < t1 ? g->t1 : t1;
        if (c1 > c0)
            sum += c1 - c0;
        cur = c1 > cur ? c1 : cur;
    }
    return sum;
}

/* Where the window of a collective (event ev, kernel start ts) starts
 * when the group's previous instance does not line the ranks up (the
 * first instance here, or one that ran beside compute): the start of the last ProfilerStep#N that
 * began by the collective's launch (its kernel when it has none), else the
 * trace's first timestamp. */
static int64_t step_start(const wctx *w, uint32_t ev, int64_t ts)
{
    int32_t l = launch_of(w, ev);
    int64_t key = l >= 0 && w->e[l].ts < ts ? w->e[l].ts : ts;
    size_t k = tlm_upper_bound_i64_at(w->steps, w->nsteps, sizeof *w->steps,
                                      0, key);
    int64_t a = k > 0 ? w->steps[k - 1] : w->t_first;
    return a < ts ? a : ts;
}

/* The step_* parts of o: o's own when its window starts at the step,
 * else a second window from the step's start. */
static void step_parts(const wctx *w, const tlm_coll_record *r,
                       tlm_coll_window *o)
{
    tlm_coll_window t;
    const tlm_coll_window *src = o;
    if (!(o->flags & TLM_WIN_STEP)) {
        memset(&t, 0, sizeof t);
        int64_t w0 = step_start(w, (uint32_t)r->event_index, r->ts_ns);
        t.win_start_ns = tlm_coll_sat_sub(r->start_ns, r->ts_ns - w0);
        window(w, r, w0, &t);
        src = &t;
    }
    o->step_start_ns = src->win_start_ns;
    o->step_busy_ns = src->busy_ns;
    o->step_host_ns = src->host_ns;
    o->step_launch_ns = src->launch_ns;
    o->step_other_ns = src->other_ns;
    o->step_coll_ns = src->coll_ns;
    if (src == &t && (t.flags & TLM_WIN_CUT))
        o->flags |= TLM_WIN_CUT;
}

/* MARK: - all windows of a trace */

static int cmp_rec(const void *a, const void *b)
{
    const tlm_coll_record *x = *(const tlm_coll_record *const *)a;
    const tlm_coll_record *y = *(const tlm_coll_record *const *)b;
    if (x->match_key != y->match_key)
        return x->match_key < y->match_key ? -1 : 1;
    if (x->ts_ns != y->ts_ns)
        return x->ts_ns < y->ts_ns ? -1 : 1;
    return x->event_index < y->event_index ? -1
                                           : x->event_index > y->event_index;
}

static int wanted(const tlm_coll_record *r)
{
    return r->part == 0 && tlm_coll_type_implicit_sync(r->coll);
}

tlm_status tlm_coll_windows(const tlm_trace *trace,
                            const tlm_coll_record *recs, size_t n,
                            const tlm_alloc *a, tlm_coll_window **out,
                            size_t *n_out, tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)out, n_out,
                                     trace && (recs || !n),
                                     "tlm_coll_windows", err);
    if (st != TLM_OK)
        return st;
    wctx w;
    memset(&w, 0, sizeof w);
    w.tr = trace;
    w.e = tlm_trace_events(trace, &w.ne);
    size_t nw = 0;
    for (size_t i = 0; i < n; i++)
        nw += wanted(&recs[i]);
    const tlm_coll_record **p =
        tlm_coll_malloc(a, (nw ? nw : 1) * sizeof *p);
    tlm_coll_window *o = tlm_coll_calloc(a, nw ? nw : 1, sizeof *o);
    uint64_t *comm = tlm_coll_malloc(a, (n ? n : 1) * sizeof *comm);
    if (!p || !o || !comm || (nw && index_trace(&w, a) != TLM_OK))
        goto nomem;
    for (size_t i = 0; i < n; i++)
        comm[i] = recs[i].event_index;
    qsort(comm, n, sizeof *comm, cmp_u64);
    if (nw)
        finish_index(&w, comm, n);
    nw = 0;
    for (size_t i = 0; i < n; i++)
        if (wanted(&recs[i]))
            p[nw++] = &recs[i];
    qsort(p, nw, sizeof *p, cmp_rec);
    for (size_t i = 0; i < nw; i++) {
        const tlm_coll_record *r = p[i];
        tlm_coll_window *wi = &o[i];
        wi->owner_key = tlm_coll_record_owner_key(r);
        wi->event_index = r->event_index;
        wi->trace_rank = r->trace_rank;
        if (r->event_index >= w.ne) {
            wi->flags |= TLM_WIN_NO_PREV;
            wi->win_start_ns = r->start_ns;
            continue;
        }
        int64_t w0;
        const tlm_coll_record *q = i > 0 ? p[i - 1] : NULL;
        if (q && q->match_key == r->match_key &&
            2 * ops_in(&w, q->ts_ns, q->ts_ns + q->dur_ns, 0) <= q->dur_ns) {
            w0 = q->ts_ns + q->dur_ns;
        } else {
            /* the group's first collective here, or its previous one ran
             * beside compute: from the step start */
            w0 = step_start(&w, (uint32_t)r->event_index, r->ts_ns);
            wi->flags |= TLM_WIN_STEP;
        }
        wi->win_start_ns = tlm_coll_sat_sub(r->start_ns, r->ts_ns - w0);
        window(&w, r, w0, wi);
        step_parts(&w, r, wi);
    }
    *out = o;
    *n_out = nw;
    o = NULL;
    st = TLM_OK;
    goto done;
nomem:
    st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                       "out of memory computing collective windows");
done:
    tlm_coll_mfree(a, o);
    tlm_coll_mfree(a, p);
    tlm_coll_mfree(a, comm);
    tlm_coll_mfree(a, w.steps);
    tlm_coll_mfree(a, w.sy);
    tlm_coll_mfree(a, w.g);
    tlm_coll_mfree(a, w.gmax);
    tlm_coll_mfree(a, w.h);
    tlm_coll_mfree(a, w.up);
    tlm_i3map_free(&w.corr);
    return st;
}
