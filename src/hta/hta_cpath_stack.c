/*
 * hta_cpath_stack.c - the CPU-side edges of HTA's critical-path graph
 * (spec/hta.md §9, passes 1 and 2).
 *
 * Pass 1, the CUDA runtime lock (Q11: cudaHostAlloc, cudaLaunchKernel,
 * cudaMemcpyAsync only): their nodes in node order, across threads; a
 * start is stacked, an end pops every stacked start (own start: operator
 * edge, others: dependency edges to this end) and follows the previous
 * lock end with a dependency edge.
 *
 * Pass 2, call stacks (hta/common/call_stack.py): the window's events of
 * each (pid, tid) group whose streams are all negative, nested by the
 * module's event order, then walked depth first (explicit stack, children
 * in the order they were attached) linking consecutive node-bearing
 * events.  If exactly one thread has forward and one other thread
 * autograd cpu_op/user_annotation events, the backward thread counts as
 * the forward one.
 */
#include "hta_cpath.h"

#include <stdlib.h>
#include <string.h>

#include "sortutil.h"

/* ---------------------------------------------------------------- MARK: -
 * pass 1 */

tlm_status tlm_cp_pass_lock(tlm_cp_graph *g)
{
    int32_t *stack = malloc((g->nn ? g->nn : 1) * sizeof *stack);
    size_t ns = 0;
    int32_t last = -1;
    if (!stack)
        return TLM_ENOMEM;
    for (size_t k = 0; k < g->nn; k++) {
        const tlm_cp_node *n = &g->node[k];
        if (!n->lock)
            continue;
        if (n->start) {
            stack[ns++] = (int32_t)k;
        } else {
            while (ns > 0) {
                int32_t p = stack[--ns];
                if (g->node[p].slot == n->slot) {
                    int32_t e = tlm_cp_add_edge(g, p, (int32_t)k,
                                                TLM_CP_OPERATOR, 0);
                    if (e == -1)
                        goto oom;
                    tlm_cp_attribute(g, e, n->slot);
                } else if (tlm_cp_add_edge(g, p, (int32_t)k,
                                           TLM_CP_DEPENDENCY, 0) == -1) {
                    goto oom;
                }
            }
            if (last >= 0 && !g->node[last].start &&
                tlm_cp_add_edge(g, last, (int32_t)k, TLM_CP_DEPENDENCY, 0) ==
                    -1)
                goto oom;
        }
        last = (int32_t)k;
    }
    free(stack);
    return TLM_OK;
oom:
    free(stack);
    return TLM_ENOMEM;
}

/* ---------------------------------------------------------------- MARK: -
 * threads */

static int contains(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    const char *p = s, *end = s + n;
    while ((size_t)(end - p) >= l) {
        p = memchr(p, lit[0], (size_t)(end - p) - l + 1);
        if (!p)
            return 0;
        if (memcmp(p, lit, l) == 0)
            return 1;
        p++;
    }
    return 0;
}

/* The one tid with cpu_op/user_annotation events naming `what`, or
 * *found 0 (none or several). */
static int64_t tid_for(const tlm_cp_graph *g, const char *what, int *found)
{
    int64_t tid = 0;
    *found = 0;
    for (size_t s = 0; s < g->nwin; s++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, (int32_t)s);
        if (e->cat != TLM_CAT_CPU_OP && e->cat != TLM_CAT_USER_ANNOTATION)
            continue;
        size_t len = 0;
        const char *nm = tlm_trace_str(g->ev->trace, e->name, &len);
        if (!nm || !contains(nm, len, what))
            continue;
        if (*found && tid != e->tid) {
            *found = 0;
            return 0;
        }
        tid = e->tid;
        *found = 1;
    }
    return tid;
}

typedef struct grp_key {
    int64_t pid, tid;
    int32_t slot;
} grp_key;

static int grp_le(const grp_key *a, const grp_key *b)
{
    if (a->pid != b->pid)
        return a->pid < b->pid;
    if (a->tid != b->tid)
        return a->tid < b->tid;
    return a->slot <= b->slot;
}
TLM_DEFINE_RUN_SORT(sort_groups, grp_key, grp_le)

/* ---------------------------------------------------------------- MARK: -
 * nesting */

typedef struct rec {
    int64_t time, dur, index;
    int32_t slot;
    uint8_t start;
} rec;

/* call_stack.py compare_events: < 0 when x goes first. */
static int rec_cmp(const rec *x, const rec *y)
{
    if (x->slot == y->slot)
        return x->start ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->start == y->start) {
        if (x->dur != y->dur) {
            if (x->start)
                return x->dur < y->dur ? 1 : -1;
            return x->dur < y->dur ? -1 : 1;
        }
        if (x->index == y->index)
            return 0;
        if (x->start)
            return x->index < y->index ? -1 : 1;
        return x->index < y->index ? 1 : -1;
    }
    if (x->dur > 0 && y->dur > 0)
        return x->start ? 1 : -1;
    if (x->dur == 0 && y->dur == 0)
        return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
    return x->start ? -1 : 1;
}

static int rec_le(const rec *x, const rec *y)
{
    return rec_cmp(x, y) <= 0;
}
TLM_DEFINE_RUN_SORT(sort_recs, rec, rec_le)

typedef struct tree {
    int32_t *parent, *first, *next, *last; /* per slot; -1 none */
    uint8_t *seen;
    int32_t root_first, root_last;
} tree;

static void attach(tree *t, int32_t parent, int32_t child)
{
    t->parent[child] = parent;
    t->seen[child] = 1;
    int32_t *first = parent < 0 ? &t->root_first : &t->first[parent];
    int32_t *last = parent < 0 ? &t->root_last : &t->last[parent];
    if (*first < 0)
        *first = child;
    else
        t->next[*last] = child;
    *last = child;
}

/* Nests one group's records (sorted) into t. */
static void nest(tree *t, const rec *r, size_t n, int32_t *stack)
{
    size_t ns = 0;
    t->root_first = t->root_last = -1;
    for (size_t i = 0; i < n; i++) {
        if (r[i].start) {
            int32_t p = ns ? stack[ns - 1] : -1;
            if (!t->seen[r[i].slot])
                attach(t, p, r[i].slot);
            stack[ns++] = r[i].slot;
        } else if (ns > 0) {
            ns--;
        }
    }
}

/* ---------------------------------------------------------------- MARK: -
 * the walk */

typedef struct walk {
    tlm_cp_graph *g;
    const tree *t;
    int32_t last;        /* node visited last, -1 */
    int32_t last_parent; /* its event's call-stack parent */
    int depth;           /* open node-bearing events */
    int oom;
} walk;

static int shares_lock(const tlm_cp_graph *g, int32_t a, int32_t b)
{
    const tlm_cp_node *x = &g->node[a], *y = &g->node[b];
    return x->lock && y->lock && (x->start || !y->start);
}

static void enter(walk *w, int32_t s)
{
    tlm_cp_graph *g = w->g;
    int32_t sn = g->start_of[s];
    if (sn < 0 || g->end_of[s] < 0)
        return;
    if (w->last >= 0 && !shares_lock(g, w->last, sn)) {
        int type = w->depth == 0 ? TLM_CP_DEPENDENCY : TLM_CP_OPERATOR;
        int32_t e = tlm_cp_add_edge(g, w->last, sn, type, 0);
        if (e == -1)
            w->oom = 1;
        tlm_cp_attribute(g, e, w->last_parent);
    }
    w->last = sn;
    w->last_parent = w->t->parent[s];
    w->depth++;
}

static void leave(walk *w, int32_t s)
{
    tlm_cp_graph *g = w->g;
    int32_t sn = g->start_of[s], en = g->end_of[s];
    if (sn < 0 || en < 0)
        return;
    if (w->last >= 0 && !shares_lock(g, w->last, en)) {
        int32_t e = tlm_cp_add_edge(g, w->last, en, TLM_CP_OPERATOR,
                                    g->node[sn].blocking);
        if (e == -1)
            w->oom = 1;
        tlm_cp_attribute(g, e, w->last_parent);
    }
    w->last = en;
    w->last_parent = w->t->parent[s];
    w->depth--;
}

/* Depth-first walk from the root; stack holds the open slots. */
static void dfs(walk *w, const tree *t, int32_t *stack)
{
    size_t ns = 0;
    int32_t cur = t->root_first;
    while (cur >= 0 || ns > 0) {
        if (cur >= 0) {
            enter(w, cur);
            stack[ns++] = cur;
            cur = t->first[cur];
            continue;
        }
        int32_t done = stack[--ns];
        leave(w, done);
        cur = t->next[done];
    }
}

/* ---------------------------------------------------------------- MARK: -
 * pass 2 */

static tlm_status one_group(tlm_cp_graph *g, tree *t, const grp_key *k,
                            size_t n, rec *r, int32_t *stack)
{
    for (size_t i = 0; i < n; i++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, k[i].slot);
        if (e->stream >= 0)
            return TLM_OK; /* a GPU stream or an unknown device */
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, k[i].slot);
        int64_t d = e->dur > 0 ? e->dur : 0;
        rec a = {e->ts, d, e->index, k[i].slot, 1};
        rec b = {tlm_cp_add(e->ts, d), d, e->index, k[i].slot, 0};
        r[m++] = a;
        r[m++] = b;
    }
    if (sort_recs(r, m) != TLM_OK)
        return TLM_ENOMEM;
    nest(t, r, m, stack);
    walk w = {g, t, -1, -1, 0, 0};
    dfs(&w, t, stack);
    return w.oom ? TLM_ENOMEM : TLM_OK;
}

tlm_status tlm_cp_pass_stacks(tlm_cp_graph *g)
{
    tlm_status st = TLM_ENOMEM;
    size_t n = g->nwin;
    int fwd_ok, bwd_ok;
    int64_t fwd = tid_for(g, "forward", &fwd_ok);
    int64_t bwd = tid_for(g, "autograd", &bwd_ok);
    int remap = fwd_ok && bwd_ok && fwd != bwd;
    tree t;
    grp_key *k = malloc((n ? n : 1) * sizeof *k);
    rec *r = malloc((n ? 2 * n : 1) * sizeof *r);
    int32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    int32_t *arr = malloc((n ? 4 * n : 1) * sizeof *arr);
    t.seen = calloc(n ? n : 1, 1);
    if (!k || !r || !stack || !arr || !t.seen)
        goto done;
    g->out->remapped_bwd = remap;
    t.parent = arr;
    t.first = arr + n;
    t.next = arr + 2 * n;
    t.last = arr + 3 * n;
    for (size_t i = 0; i < 4 * n; i++)
        arr[i] = -1;
    for (size_t s = 0; s < n; s++) {
        const tlm_hta_ev *e = tlm_cp_ev(g, (int32_t)s);
        k[s].pid = e->pid;
        k[s].tid = remap && e->tid == bwd ? fwd : e->tid;
        k[s].slot = (int32_t)s;
    }
    if (sort_groups(k, n) != TLM_OK)
        goto done;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && k[j].pid == k[i].pid && k[j].tid == k[i].tid)
            j++;
        st = one_group(g, &t, k + i, j - i, r, stack);
        if (st != TLM_OK)
            goto done;
        i = j;
    }
    st = TLM_OK;
done:
    free(k);
    free(r);
    free(stack);
    free(arr);
    free(t.seen);
    return st;
}
