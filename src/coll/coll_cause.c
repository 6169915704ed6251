/*
 * coll_cause.c - attributes a straggler's delay to causes (tlm_cause.h).
 *
 * For each complete implicit-sync instance with >= 2 members that rank S
 * arrived last at (corrected clocks; ties split evenly), the delay is
 * S's corrected start minus the median member's (the lower median of the
 * corrected starts).  With the windows of S and of the median member M
 * (coll_window.c) the delay splits exactly into
 *
 *     delay = apart + (busy_S - busy_M) + (host_S - host_M)
 *                   + (launch_S - launch_M) + (coll_S - coll_M)
 *                   + (other_S - other_M)
 *
 * where apart = corrected window start of S minus that of M.  When both
 * windows start at the group's previous instance (which should end
 * together on both), apart is clock error (clock); else both windows'
 * parts from the step's start are compared and apart, how far the steps
 * started apart, is other.  Each term is a candidate cause (slow_kernels,
 * host_busy, late_launch, waiting_elsewhere, clock, other); the delay is
 * shared out in proportion to the positive terms (terms <= 0 get nothing;
 * all <= 0: other).  Missing windows put the whole delay into other.
 * Integer shares, the remainder to the largest term, so the causes of an
 * instance add up to its delay.
 * docs/straggler-causes.md states the rule for users.
 */
#include "coll_internal.h"
#include "tlmpi/tlm_cause.h"

#include <stdlib.h>
#include <string.h>

typedef struct cmap {
    tlm_coll_cause_row *rows;
    size_t n, cap;
    const tlm_alloc *a;
} cmap;

/* The row (pg of inst, cause, op) of rank, appended when new (linear
 * search from the end: rows of one group are added together). */
static tlm_coll_cause_row *row_get(cmap *m, const tlm_coll_instance *in,
                                   int32_t rank, int cause,
                                   const tlm_cause_op *op)
{
    uint64_t oh = op ? op->hash : 0;
    for (size_t i = m->n; i-- > 0;) {
        tlm_coll_cause_row *r = &m->rows[i];
        if (r->pg_hash == in->pg_hash && r->cause == cause &&
            r->op_hash == oh)
            return r;
    }
    if (!tlm_coll_grow(m->a, (void **)&m->rows, &m->cap, m->n + 1,
                       sizeof *m->rows))
        return NULL;
    tlm_coll_cause_row *r = &m->rows[m->n++];
    memset(r, 0, sizeof *r);
    r->pg_hash = in->pg_hash;
    r->op_hash = oh;
    r->trace_rank = rank;
    r->cause = cause;
    memcpy(r->pg_name, in->pg_name, sizeof r->pg_name);
    r->pg_name[sizeof r->pg_name - 1] = 0;
    if (op)
        memcpy(r->op_name, op->name, sizeof r->op_name);
    return r;
}

static int cmp_win(const void *a, const void *b)
{
    const tlm_coll_window *x = a, *y = b;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    return x->event_index < y->event_index ? -1
                                           : x->event_index > y->event_index;
}

static const tlm_coll_window *win_find(const tlm_coll_window *w, size_t n,
                                       const tlm_coll_member *m)
{
    tlm_coll_window key;
    memset(&key, 0, sizeof key);
    key.trace_rank = m->trace_rank;
    key.event_index = m->event_index;
    const tlm_coll_window *f = bsearch(&key, w, n, sizeof *w, cmp_win);
    return f && !(f->flags & TLM_WIN_NO_PREV) ? f : NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Splits delay over the positive terms t[] into out[] (sums to delay). */
static void split(int64_t delay, const int64_t t[TLM_CAUSE_COUNT],
                  int64_t out[TLM_CAUSE_COUNT])
{
    double pos = 0;
    int big = -1;
    for (int c = 0; c < TLM_CAUSE_COUNT; c++) {
        out[c] = 0;
        if (t[c] > 0) {
            pos += (double)t[c];
            if (big < 0 || t[c] > t[big])
                big = c;
        }
    }
    if (big < 0) {
        out[TLM_CAUSE_OTHER] = delay;
        return;
    }
    int64_t given = 0;
    for (int c = 0; c < TLM_CAUSE_COUNT; c++) {
        if (t[c] > 0) {
            out[c] = (int64_t)((double)delay * ((double)t[c] / pos));
            given += out[c];
        }
    }
    out[big] += delay - given;
}

/* Adds the ops of S's window whose time exceeds M's (same op by hash). */
static int add_ops(cmap *m, const tlm_coll_instance *in, int32_t rank,
                   int cause, const tlm_cause_op *s, const tlm_cause_op *md)
{
    for (int i = 0; i < TLM_CAUSE_TOP; i++) {
        if (!s[i].hash)
            continue;
        int64_t base = 0;
        for (int j = 0; j < TLM_CAUSE_TOP; j++)
            if (md[j].hash == s[i].hash)
                base = md[j].ns;
        if (s[i].ns - base <= 0)
            continue;
        tlm_coll_cause_row *r = row_get(m, in, rank, cause, &s[i]);
        if (!r)
            return 0;
        r->delay_ns += s[i].ns - base;
    }
    return 1;
}

/* The candidate terms of S (window ws) against M (wm).  Both windows
 * start at the group's previous instance: that instance ends together on
 * both, so their corrected starts differ by clock error.  Else (either
 * starts at the step) both step windows are compared, and how far the
 * steps started apart is unexplained (other). */
static void terms(const tlm_coll_member *sm, const tlm_coll_window *ws,
                  const tlm_coll_member *mm, const tlm_coll_window *wm,
                  int64_t t[TLM_CAUSE_COUNT])
{
    int step = ((ws->flags | wm->flags) & TLM_WIN_STEP) != 0;
    int64_t s0 = step ? ws->step_start_ns : ws->win_start_ns;
    int64_t m0 = step ? wm->step_start_ns : wm->win_start_ns;
    t[step ? TLM_CAUSE_OTHER : TLM_CAUSE_CLOCK] =
        tlm_coll_sat_sub(tlm_coll_sat_sub(s0, sm->offset_ns),
                         tlm_coll_sat_sub(m0, mm->offset_ns));
    if (step) {
        t[TLM_CAUSE_SLOW_KERNELS] = ws->step_busy_ns - wm->step_busy_ns;
        t[TLM_CAUSE_HOST_BUSY] = ws->step_host_ns - wm->step_host_ns;
        t[TLM_CAUSE_LATE_LAUNCH] = ws->step_launch_ns - wm->step_launch_ns;
        t[TLM_CAUSE_WAITING_ELSEWHERE] = ws->step_coll_ns - wm->step_coll_ns;
        t[TLM_CAUSE_OTHER] = tlm_coll_sat_add(
            t[TLM_CAUSE_OTHER], ws->step_other_ns - wm->step_other_ns);
        return;
    }
    t[TLM_CAUSE_SLOW_KERNELS] = ws->busy_ns - wm->busy_ns;
    t[TLM_CAUSE_HOST_BUSY] = ws->host_ns - wm->host_ns;
    t[TLM_CAUSE_LATE_LAUNCH] = ws->launch_ns - wm->launch_ns;
    t[TLM_CAUSE_WAITING_ELSEWHERE] = ws->coll_ns - wm->coll_ns;
    t[TLM_CAUSE_OTHER] = ws->other_ns - wm->other_ns;
}

/* One instance (members pm[0..k)): adds its rows when rank was last. */
static int one(cmap *m, const tlm_coll_instance *in,
               const tlm_coll_member *const *pm, size_t k, int32_t rank,
               const tlm_coll_window *w, size_t nw, int64_t *cs)
{
    const tlm_coll_member *sm = NULL;
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < k; i++) {
        cs[i] = tlm_coll_sat_sub(pm[i]->start_ns, pm[i]->offset_ns);
        if (cs[i] > last)
            last = cs[i];
        if (pm[i]->trace_rank == rank)
            sm = pm[i];
    }
    if (!sm || tlm_coll_sat_sub(sm->start_ns, sm->offset_ns) != last)
        return 1;
    int64_t n_last = 0;
    for (size_t i = 0; i < k; i++)
        n_last += cs[i] == last;
    /* the median member: lower median of the corrected starts */
    const tlm_coll_member *mm = NULL;
    qsort(cs, k, sizeof *cs, cmp_i64);
    int64_t med = cs[(k - 1) / 2];
    for (size_t i = 0; i < k && !mm; i++)
        if (tlm_coll_sat_sub(pm[i]->start_ns, pm[i]->offset_ns) == med &&
            pm[i] != sm)
            mm = pm[i];
    int64_t delay = (last - med) / n_last;
    if (!mm || delay <= 0)
        return 1;
    const tlm_coll_window *ws = win_find(w, nw, sm);
    const tlm_coll_window *wm = win_find(w, nw, mm);
    int64_t t[TLM_CAUSE_COUNT] = {0}, part[TLM_CAUSE_COUNT];
    if (ws && wm)
        terms(sm, ws, mm, wm, t);
    split(delay, t, part);
    for (int c = 0; c < TLM_CAUSE_COUNT; c++) {
        tlm_coll_cause_row *r = row_get(m, in, rank, c, NULL);
        if (!r)
            return 0;
        r->delay_ns += part[c];
        r->total_delay_ns += delay;
        r->n_instances++;
    }
    if (ws && wm &&
        (!add_ops(m, in, rank, TLM_CAUSE_SLOW_KERNELS, ws->kop, wm->kop) ||
         !add_ops(m, in, rank, TLM_CAUSE_HOST_BUSY, ws->hop, wm->hop)))
        return 0;
    return 1;
}

static int cmp_row(const void *a, const void *b)
{
    const tlm_coll_cause_row *x = a, *y = b;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    if (x->pg_hash != y->pg_hash)
        return x->pg_hash < y->pg_hash ? -1 : 1;
    if (x->cause != y->cause)
        return x->cause < y->cause ? -1 : 1;
    return x->op_hash < y->op_hash ? -1 : x->op_hash > y->op_hash;
}

static int cmp_pinst(const void *a, const void *b)
{
    const tlm_coll_instance *x = *(const tlm_coll_instance *const *)a;
    const tlm_coll_instance *y = *(const tlm_coll_instance *const *)b;
    if (x->match_key != y->match_key)
        return x->match_key < y->match_key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_pmem(const void *a, const void *b)
{
    const tlm_coll_member *x = *(const tlm_coll_member *const *)a;
    const tlm_coll_member *y = *(const tlm_coll_member *const *)b;
    if (x->match_key != y->match_key)
        return x->match_key < y->match_key ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->trace_rank < y->trace_rank ? -1 : x->trace_rank > y->trace_rank;
}

tlm_status tlm_coll_cause_compute(const tlm_coll_instance *inst,
                                  size_t n_inst, const tlm_coll_member *mem,
                                  size_t n_mem, const tlm_coll_window *win,
                                  size_t n_win, int32_t rank,
                                  const tlm_alloc *a,
                                  tlm_coll_cause_row **rows, size_t *n_rows,
                                  tlm_error *err)
{
    tlm_status st = tlm_coll_outputs(
        (void **)rows, n_rows,
        (inst || !n_inst) && (mem || !n_mem) && (win || !n_win),
        "tlm_coll_cause_compute", err);
    if (st != TLM_OK)
        return st;
    cmap m;
    memset(&m, 0, sizeof m);
    m.a = a;
    const tlm_coll_instance **pi =
        tlm_coll_malloc(a, (n_inst ? n_inst : 1) * sizeof *pi);
    const tlm_coll_member **pm =
        tlm_coll_malloc(a, (n_mem ? n_mem : 1) * sizeof *pm);
    int64_t *cs = tlm_coll_malloc(a, (n_mem ? n_mem : 1) * sizeof *cs);
    tlm_coll_window *w = tlm_coll_malloc(a, (n_win ? n_win : 1) * sizeof *w);
    if (!pi || !pm || !cs || !w)
        goto nomem;
    if (n_win)
        memcpy(w, win, n_win * sizeof *w);
    qsort(w, n_win, sizeof *w, cmp_win);
    for (size_t i = 0; i < n_inst; i++)
        pi[i] = &inst[i];
    for (size_t i = 0; i < n_mem; i++)
        pm[i] = &mem[i];
    qsort(pi, n_inst, sizeof *pi, cmp_pinst);
    qsort(pm, n_mem, sizeof *pm, cmp_pmem);
    size_t j = 0;
    for (size_t i = 0; i < n_inst && rank >= 0; i++) {
        const tlm_coll_instance *in = pi[i];
        while (j < n_mem && tlm_coll_inst_mem_cmp(in, pm[j]) > 0)
            j++;
        size_t k = j;
        while (k < n_mem && tlm_coll_inst_mem_cmp(in, pm[k]) == 0)
            k++;
        int usable = tlm_coll_type_implicit_sync(in->coll) &&
                     !(in->flags & (TLM_COLL_INST_INCOMPLETE |
                                    TLM_COLL_INST_OVERFULL |
                                    TLM_COLL_INST_P2P)) &&
                     k - j >= 2;
        if (usable && !one(&m, in, pm + j, k - j, rank, w, n_win, cs))
            goto nomem;
        j = k;
    }
    if (m.n)
        qsort(m.rows, m.n, sizeof *m.rows, cmp_row);
    *rows = m.rows;
    *n_rows = m.n;
    m.rows = NULL;
    goto done;
nomem:
    st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                       "out of memory attributing straggler causes");
done:
    tlm_coll_mfree(a, m.rows);
    tlm_coll_mfree(a, pi);
    tlm_coll_mfree(a, pm);
    tlm_coll_mfree(a, cs);
    tlm_coll_mfree(a, w);
    return st;
}

void tlm_coll_cause_merge(tlm_coll_cause_row *rows, size_t *n)
{
    if (!rows || !n || *n == 0)
        return;
    qsort(rows, *n, sizeof *rows, cmp_row);
    size_t o = 0;
    for (size_t i = 0; i < *n; i++) {
        if (o > 0 && cmp_row(&rows[o - 1], &rows[i]) == 0) {
            rows[o - 1].delay_ns += rows[i].delay_ns;
            rows[o - 1].total_delay_ns += rows[i].total_delay_ns;
            rows[o - 1].n_instances += rows[i].n_instances;
        } else {
            rows[o++] = rows[i];
        }
    }
    *n = o;
}
