/*
 * hta_callstack.c - the call stacks behind HTA's frequent kernel
 * sequences (spec §8, hta/common/trace_call_graph.py and
 * trace_call_stack.py) and the sequences themselves.
 *
 * Per (pid, tid) that is not a GPU stream, the events with stream -1 are
 * nested by time through start and end records in HTA's order (equal
 * times: zero-length events inside longer ones, ends before starts,
 * longer starts first, shorter ends first); a start becomes a child of
 * the innermost open event and an end closes the innermost open event.
 * Durations below 0 (HTA's rounding, Q1) are taken as 0 (HTA raises, Q9)
 * and counted.  Kernels hang under their launch; the backward thread
 * hangs under the main thread's "## backward ##" (else ProfilerStep#)
 * annotations.  Roots are the events whose name contains the operator at
 * the smallest depth of such events, with at least --hta_min_pattern_len
 * kernels below; a pattern is the root's name and its kernels' names by
 * start time, joined by '|'.
 */
#include "hta_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- MARK: -
 * nesting */

typedef struct rec {
    int64_t t;
    size_t row;
    int end;       /* 0 start, 1 end */
    int64_t dur;   /* the event's (clamped) duration */
    int64_t index; /* its traceEvents index */
} rec;

typedef struct nest {
    const tlm_hta_events *ev;
    int64_t *dur;  /* clamped durations, per row */
    int32_t *parent;
    uint8_t *in_stack;
    int32_t *group; /* group id per row (-1: none) */
} nest;

static int cmp_rec(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->row == b->row)
        return a->end - b->end;
    int64_t da = a->dur, db = b->dur, ia = a->index, ib = b->index;
    if (da == 0 || db == 0) {
        if (da == 0 && db == 0) {
            if (!a->end && !b->end)
                return ia < ib ? -1 : 1;
            if (a->end && b->end)
                return ia > ib ? -1 : 1;
            return a->end ? 1 : -1; /* start first */
        }
        /* the zero-length one sits inside the longer one */
        int a_zero = da == 0;
        const rec *l = a_zero ? b : a;
        int z_first = l->end; /* before the longer one's end */
        return (a_zero ? z_first : !z_first) ? -1 : 1;
    }
    if (a->end != b->end)
        return a->end ? -1 : 1; /* end before start */
    if (!a->end) {
        if (da != db)
            return da > db ? -1 : 1;
        return ia < ib ? -1 : 1;
    }
    if (da != db)
        return da < db ? -1 : 1;
    return ia > ib ? -1 : 1;
}

static tlm_status nest_group(nest *n, const size_t *rows, size_t m)
{
    rec *r = malloc((2 * m + 1) * sizeof *r);
    size_t *stack = malloc((m + 1) * sizeof *stack);
    if (!r || !stack) {
        free(r);
        free(stack);
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < m; i++) {
        const tlm_hta_ev *e = &n->ev->ev[rows[i]];
        int64_t d = n->dur[rows[i]];
        r[2 * i] = (rec){e->ts, rows[i], 0, d, e->index};
        r[2 * i + 1] = (rec){e->ts + d, rows[i], 1, d, e->index};
    }
    qsort(r, 2 * m, sizeof *r, cmp_rec);
    size_t sp = 0;
    for (size_t i = 0; i < 2 * m; i++) {
        if (!r[i].end) {
            n->parent[r[i].row] = sp ? (int32_t)stack[sp - 1] : -1;
            n->in_stack[r[i].row] = 1;
            stack[sp++] = r[i].row;
        } else if (sp) {
            sp--;
        }
    }
    free(r);
    free(stack);
    return TLM_OK;
}

typedef struct gkey {
    int64_t pid, tid;
    size_t row;
} gkey;

static int cmp_gkey(const void *pa, const void *pb)
{
    const gkey *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* Groups by (pid, tid); nests the CPU ones. */
static tlm_status nest_all(nest *n, tlm_hta_notes *notes)
{
    const tlm_hta_events *ev = n->ev;
    gkey *k = malloc((ev->n ? ev->n : 1) * sizeof *k);
    size_t *rows = malloc((ev->n ? ev->n : 1) * sizeof *rows);
    tlm_status st = k && rows ? TLM_OK : TLM_ENOMEM;
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        /* string pids/tids get their own key space */
        k[i] = (gkey){ev->ev[i].pid * 2 + ev->ev[i].pid_str,
                      ev->ev[i].tid * 2 + ev->ev[i].tid_str, i};
    }
    if (st == TLM_OK)
        qsort(k, ev->n, sizeof *k, cmp_gkey);
    int32_t gid = 0;
    for (size_t lo = 0; lo < ev->n && st == TLM_OK; gid++) {
        size_t hi = lo, m = 0;
        int all_streams = 1, all_pid0 = 1, all_tid0 = 1;
        while (hi < ev->n && k[hi].pid == k[lo].pid && k[hi].tid == k[lo].tid) {
            const tlm_hta_ev *e = &ev->ev[k[hi].row];
            all_streams &= e->stream > 0;
            all_pid0 &= !e->pid_str && e->pid == 0;
            all_tid0 &= !e->tid_str && e->tid == 0;
            hi++;
        }
        if (!(all_streams || all_pid0 || all_tid0)) {
            for (size_t j = lo; j < hi; j++) {
                if (ev->ev[k[j].row].stream != -1)
                    continue;
                rows[m++] = k[j].row;
                n->group[k[j].row] = gid;
                notes->n_seq_clamped += ev->ev[k[j].row].dur < 0;
            }
            st = nest_group(n, rows, m);
        }
        lo = hi;
    }
    free(k);
    free(rows);
    return st;
}

/* ---------------------------------------------------------------- MARK: -
 * kernels and the backward thread */

static int name_has(const tlm_hta_events *ev, size_t row, const char *x,
                    int prefix)
{
    size_t len, l = strlen(x);
    const char *s = tlm_trace_str(ev->trace, ev->ev[row].name, &len);
    if (prefix)
        return len >= l && memcmp(s, x, l) == 0;
    for (size_t i = 0; i + l <= len; i++) {
        if (memcmp(s + i, x, l) == 0)
            return 1;
    }
    return 0;
}

static int is_kernel(const tlm_hta_ev *e)
{
    return e->stream > 0 && e->icorr > 0;
}

static void hang_kernels(nest *n)
{
    const tlm_hta_events *ev = n->ev;
    for (size_t i = 0; i < ev->n; i++) {
        const tlm_hta_ev *e = &ev->ev[i];
        if (!is_kernel(e))
            continue;
        const tlm_hta_ev *l = tlm_hta_events_find(ev, e->icorr);
        if (!l)
            continue;
        size_t lr = (size_t)(l - ev->ev);
        if (n->in_stack[lr]) {
            n->parent[i] = (int32_t)lr;
            n->in_stack[i] = 1;
        }
    }
}

/* The one group holding a name (prefix or substring), -2 if none or
 * several, skipping group `not`. */
static int32_t only_group(const nest *n, const char *x, int prefix,
                          int32_t not)
{
    int32_t g = -2;
    for (size_t i = 0; i < n->ev->n; i++) {
        int32_t gi = n->group[i];
        if (gi < 0 || gi == not || !name_has(n->ev, i, x, prefix))
            continue;
        if (g != -2 && g != gi)
            return -2;
        g = gi;
    }
    return g;
}

static void attach_backward(nest *n)
{
    int32_t main_g = only_group(n, "ProfilerStep#", 1, -1);
    if (main_g < 0)
        return;
    int32_t bwd = only_group(n, "autograd::", 0, main_g);
    if (bwd < 0)
        return;
    const tlm_hta_events *ev = n->ev;
    int any_bwd = 0;
    for (size_t i = 0; i < ev->n && !any_bwd; i++)
        any_bwd = n->group[i] == main_g &&
                  name_has(ev, i, "## backward ##", 0);
    for (size_t a = 0; a < ev->n; a++) {
        if (n->group[a] != main_g ||
            !(any_bwd ? name_has(ev, a, "## backward ##", 0)
                      : name_has(ev, a, "ProfilerStep#", 1)))
            continue;
        int64_t s = ev->ev[a].ts, e = s + n->dur[a];
        for (size_t i = 0; i < ev->n; i++) {
            const tlm_hta_ev *x = &ev->ev[i];
            if (n->group[i] == bwd && n->parent[i] == -1 && x->ts >= s &&
                x->ts + n->dur[i] <= e)
                n->parent[i] = (int32_t)a;
        }
    }
}

/* ---------------------------------------------------------------- MARK: -
 * patterns */

typedef struct pat {
    char *text;
    size_t len;
    int64_t kdur, cdur;
} pat;

static int cmp_pat_text(const void *pa, const void *pb)
{
    const pat *a = pa, *b = pb;
    size_t l = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->text, b->text, l);
    if (c)
        return c;
    return (a->len > b->len) - (a->len < b->len);
}

typedef struct agg {
    const pat *p;
    int64_t count, kdur, cdur;
} agg;

static int cmp_agg(const void *pa, const void *pb)
{
    const agg *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return cmp_pat_text(a->p, b->p);
}

static int32_t depth_of(const nest *n, size_t row)
{
    if (!n->in_stack[row])
        return -1;
    int32_t d = 0;
    for (int32_t p = n->parent[row]; p >= 0 && d <= (int32_t)n->ev->n;
         p = n->parent[p])
        d++;
    return d;
}

typedef struct kref {
    int64_t ts;
    size_t row;
} kref;

static int cmp_kref(const void *pa, const void *pb)
{
    const kref *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* The pattern text of root r over its kernels k[0..m) (sorted). */
static char *pattern_of(const tlm_hta_events *ev, size_t r, const kref *k,
                        size_t m, size_t *len)
{
    size_t total = 0, l;
    tlm_trace_str(ev->trace, ev->ev[r].name, &l);
    total = l;
    for (size_t i = 0; i < m; i++) {
        tlm_trace_str(ev->trace, ev->ev[k[i].row].name, &l);
        total += 1 + l;
    }
    char *s = malloc(total + 1);
    if (!s)
        return NULL;
    const char *x = tlm_trace_str(ev->trace, ev->ev[r].name, &l);
    memcpy(s, x, l);
    size_t o = l;
    for (size_t i = 0; i < m; i++) {
        x = tlm_trace_str(ev->trace, ev->ev[k[i].row].name, &l);
        s[o++] = '|';
        memcpy(s + o, x, l);
        o += l;
    }
    s[o] = '\0';
    *len = o;
    return s;
}

static tlm_status emit(pat *p, size_t np, tlm_hta_table *t)
{
    qsort(p, np, sizeof *p, cmp_pat_text);
    agg *a = malloc((np ? np : 1) * sizeof *a);
    if (!a)
        return TLM_ENOMEM;
    size_t na = 0;
    for (size_t i = 0; i < np; i++) {
        if (na && cmp_pat_text(a[na - 1].p, &p[i]) == 0) {
            a[na - 1].count++;
            a[na - 1].kdur += p[i].kdur;
            a[na - 1].cdur += p[i].cdur;
        } else {
            a[na++] = (agg){&p[i], 1, p[i].kdur, p[i].cdur};
        }
    }
    qsort(a, na, sizeof *a, cmp_agg);
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < na && st == TLM_OK; i++) {
        size_t row;
        st = tlm_hta_row_add(t, &row);
        if (st == TLM_OK)
            st = tlm_hta_set_str(t, row, 0, a[i].p->text, a[i].p->len);
        if (st == TLM_OK) {
            tlm_hta_set_i64(t, row, 1, a[i].count);
            tlm_hta_set_f64(t, row, 2, tlm_hta_us(a[i].kdur));
            tlm_hta_set_f64(t, row, 3, tlm_hta_us(a[i].cdur));
        }
    }
    free(a);
    return st;
}

/* Roots, their kernels, the patterns. */
static tlm_status patterns(const nest *n, const tlm_hta_opts *o,
                           tlm_hta_table *t)
{
    const tlm_hta_events *ev = n->ev;
    size_t N = ev->n ? ev->n : 1;
    int32_t *depth = malloc(N * sizeof *depth);
    int32_t *root_of = malloc(N * sizeof *root_of); /* kernel -> root */
    int64_t *nk = calloc(N, sizeof *nk);
    kref *k = malloc(N * sizeof *k);
    pat *p = malloc(N * sizeof *p);
    size_t np = 0;
    tlm_status st = depth && root_of && nk && k && p ? TLM_OK : TLM_ENOMEM;
    int32_t min_d = INT32_MAX;
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        depth[i] = depth_of(n, i);
        if (name_has(ev, i, o->kernel_seq_op, 0) && depth[i] < min_d)
            min_d = depth[i];
    }
    /* kernels below every event */
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        root_of[i] = -1;
        if (!is_kernel(&ev->ev[i]) || !n->in_stack[i])
            continue;
        for (int32_t a = n->parent[i], d = 0; a >= 0 && d <= (int32_t)N;
             a = n->parent[a], d++)
            nk[a]++;
    }
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        if (!is_kernel(&ev->ev[i]) || !n->in_stack[i])
            continue;
        for (int32_t a = n->parent[i], d = 0; a >= 0 && d <= (int32_t)N;
             a = n->parent[a], d++) {
            if (depth[a] == min_d && nk[a] >= o->min_pattern_len &&
                name_has(ev, (size_t)a, o->kernel_seq_op, 0)) {
                root_of[i] = a;
                break;
            }
        }
    }
    for (size_t r = 0; r < ev->n && st == TLM_OK; r++) {
        if (depth[r] != min_d || nk[r] < o->min_pattern_len ||
            !name_has(ev, r, o->kernel_seq_op, 0))
            continue;
        size_t m = 0;
        int64_t kd = 0;
        for (size_t i = 0; i < ev->n; i++) {
            if (root_of[i] == (int32_t)r) {
                k[m++] = (kref){ev->ev[i].ts, i};
                kd += ev->ev[i].dur;
            }
        }
        qsort(k, m, sizeof *k, cmp_kref);
        p[np].text = pattern_of(ev, r, k, m, &p[np].len);
        if (!p[np].text) {
            st = TLM_ENOMEM;
            break;
        }
        p[np].kdur = kd;
        p[np].cdur = ev->ev[r].dur;
        np++;
    }
    if (st == TLM_OK)
        st = emit(p, np, t);
    for (size_t i = 0; p && i < np; i++)
        free(p[i].text);
    free(depth);
    free(root_of);
    free(nk);
    free(k);
    free(p);
    return st;
}

tlm_status tlm_hta_seq_rows(const tlm_hta_events *ev, const tlm_hta_opts *o,
                            tlm_hta_table *t, tlm_hta_notes *notes)
{
    size_t N = ev->n ? ev->n : 1;
    nest n = {ev, malloc(N * sizeof(int64_t)), malloc(N * sizeof(int32_t)),
              calloc(N, 1), malloc(N * sizeof(int32_t))};
    tlm_status st = n.dur && n.parent && n.in_stack && n.group ? TLM_OK
                                                               : TLM_ENOMEM;
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        n.dur[i] = ev->ev[i].dur < 0 ? 0 : ev->ev[i].dur;
        n.parent[i] = -1;
        n.group[i] = -1;
    }
    if (st == TLM_OK)
        st = nest_all(&n, notes);
    if (st == TLM_OK) {
        hang_kernels(&n);
        attach_backward(&n);
        st = patterns(&n, o, t);
    }
    free(n.dur);
    free(n.parent);
    free(n.in_stack);
    free(n.group);
    return st;
}
