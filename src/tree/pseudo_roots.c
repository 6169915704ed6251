/*
 * pseudo_roots.c - the cpu roots after pseudo ops wrapped python frames
 * (pseudo_inject.c, docs/pseudo-ops.md): a root is a cpu_op with no
 * cpu_op above it, as when the tree was built; the roots below a
 * wrapping pseudo op are roots no more, the pseudo op is one when no
 * cpu_op is above it.  Sorted by (start, UID) as tlm_tree_build does.
 */
#include <stdlib.h>

#include "pseudo_internal.h"
#include "sortutil.h"
#include "trace_event.h"

static int cpu_op_above(const tlm_tree *t, int32_t u)
{
    size_t steps = 0;
    for (int32_t a = t->nd[u].parent; a >= 0 && steps <= t->n;
         a = t->nd[a].parent, steps++)
        if (t->ev[a].cat == TLM_CAT_CPU_OP)
            return 1;
    return 0;
}

tlm_status tlm_pseudo_roots(tlm_tree *t, size_t n0)
{
    size_t cap = t->n_roots + (t->n - n0), m = 0;
    tlm_pair *pr = malloc((cap ? cap : 1) * sizeof *pr);
    int32_t *r = malloc((cap ? cap : 1) * sizeof *r);
    if (!pr || !r) {
        free(pr);
        free(r);
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < t->n_roots; i++) {
        int32_t u = t->roots[i];
        if (cpu_op_above(t, u))
            t->nd[u].flags &= (uint8_t)~TLM_NODE_CPU_ROOT;
        else
            r[m++] = u;
    }
    for (size_t i = n0; i < t->n; i++) {
        int32_t u = (int32_t)i;
        if (t->nd[u].cat == TLM_CAT_CPU_OP && !cpu_op_above(t, u)) {
            t->nd[u].flags |= TLM_NODE_CPU_ROOT;
            r[m++] = u;
        }
    }
    for (size_t i = 0; i < m; i++)
        pr[i] = (tlm_pair){tlm_ts_key(t->ev[r[i]].ts), r[i]};
    if (tlm_sort_pairs(pr, m) != TLM_OK) {
        free(pr);
        free(r);
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < m; i++)
        r[i] = (int32_t)pr[i].val;
    free(pr);
    free(t->roots);
    t->roots = r;
    t->n_roots = m;
    t->stats.n_cpu_roots = m;
    return TLM_OK;
}
