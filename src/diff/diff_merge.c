/*
 * diff_merge.c - the merged tree (§3, §4): the roots of each side (with
 * the descent through single-child wrappers), paired by position, and the
 * DFS that gives merged ids in pre-order, with one explicit stack (no
 * recursion) and a memo of (uid1, uid2) pairs.
 */
#include "diff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* §3: the root used for cpu root r. */
static int32_t top_root(const tlm_dside *s, int32_t r)
{
    int32_t a = r;
    while (s->t->nd[a].parent >= 0)
        a = s->t->nd[a].parent;
    int32_t cur = a;
    for (;;) {
        int32_t c = s->t->nd[cur].first_child;
        if (c < 0 || s->t->nd[c].next_sibling >= 0)
            break;
        if (s->t->nd[c].cat == TLM_CAT_CPU_OP || tlm_ddispatch(s, c))
            break;
        cur = c;
    }
    return cur;
}

static tlm_status side_roots(tlm_dside *s, tlm_ivec *out)
{
    size_t nr;
    const int32_t *r = tlm_tree_cpu_roots(s->t, &nr);
    int oom = 0;
    if (++s->stamp == 0) {
        memset(s->pos_stamp, 0, s->n * sizeof *s->pos_stamp);
        s->stamp = 1;
    }
    for (size_t i = 0; i < nr; i++) {
        int32_t u = top_root(s, r[i]);
        if (s->pos_stamp[u] == s->stamp)
            continue; /* duplicates: first occurrence */
        s->pos_stamp[u] = s->stamp;
        tlm_ivec_push(out, u, &oom);
    }
    s->n_roots = out->n;
    return oom ? TLM_ENOMEM : TLM_OK;
}

typedef struct frame {
    int32_t id, off, n, next;
} frame;

typedef struct mstack {
    frame *f;
    size_t n, cap;
    tlm_ivec pairs; /* (u1, u2) of every open frame's children */
} mstack;

/* Starts merged node (u1, u2): id, memo, child pairs, frame.  -1 on
 * error (*st set). */
static int32_t start_node(tlm_diff *d, tlm_dwork *w, mstack *S, int32_t u1,
                          int32_t u2, tlm_status *st)
{
    int oom = 0;
    if (tlm_grow((void **)&d->nodes, &d->capn, d->nn + 1, sizeof *d->nodes,
                 1024) ||
        tlm_grow((void **)&S->f, &S->cap, S->n + 1, sizeof *S->f, 64))
        goto nomem;
    int32_t id = (int32_t)d->nn++;
    if (tlm_i3map_put(&d->memo, u1, u2, 0, id) != TLM_OK)
        goto nomem;
    int32_t a = u1, b = u2;
    *st = tlm_diff_node_ops(d, w, &a, &b);
    if (*st != TLM_OK)
        return -1;
    tlm_dnode *nd = &d->nodes[id];
    nd->u1 = a;
    nd->u2 = b;
    nd->nkid = (int32_t)w->ops.n;
    nd->kid_off = (int32_t)d->kids.n;
    frame *f = &S->f[S->n++];
    f->id = id;
    f->off = (int32_t)S->pairs.n;
    f->n = (int32_t)w->ops.n;
    f->next = 0;
    for (size_t k = 0; k < w->ops.n; k++) {
        tlm_dop o = w->ops.p[k];
        tlm_ivec_push(&S->pairs, o.i >= 0 ? w->c[0].p[o.i] : -1, &oom);
        tlm_ivec_push(&S->pairs, o.j >= 0 ? w->c[1].p[o.j] : -1, &oom);
        tlm_ivec_push(&d->kids, -1, &oom);
    }
    if (oom)
        goto nomem;
    return id;
nomem:
    *st = TLM_ENOMEM;
    return -1;
}

/* The whole DFS below the pair (u1, u2); its id in *id. */
static tlm_status merge_pair(tlm_diff *d, tlm_dwork *w, mstack *S,
                             int32_t u1, int32_t u2, int32_t *id)
{
    tlm_status st = TLM_OK;
    int32_t m = tlm_i3map_get(&d->memo, u1, u2, 0);
    if (m >= 0) {
        *id = m;
        return TLM_OK;
    }
    if ((*id = start_node(d, w, S, u1, u2, &st)) < 0)
        return st;
    while (S->n) {
        frame *f = &S->f[S->n - 1];
        if (f->next == f->n) {
            S->pairs.n = (size_t)f->off;
            S->n--;
            continue;
        }
        int32_t a = S->pairs.p[f->off + 2 * f->next];
        int32_t b = S->pairs.p[f->off + 2 * f->next + 1];
        size_t slot = (size_t)(d->nodes[f->id].kid_off + f->next);
        f->next++;
        int32_t c = tlm_i3map_get(&d->memo, a, b, 0);
        if (c < 0 && (c = start_node(d, w, S, a, b, &st)) < 0)
            return st;
        d->kids.p[slot] = c;
    }
    return TLM_OK;
}

tlm_status tlm_diff_merge(tlm_diff *d, tlm_error *err)
{
    tlm_ivec r[2] = {{0}, {0}};
    tlm_dwork w;
    mstack S;
    memset(&w, 0, sizeof w);
    memset(&S, 0, sizeof S);
    tlm_status st = TLM_OK;
    for (int k = 0; k < 2 && st == TLM_OK; k++)
        st = side_roots(&d->s[k], &r[k]);
    if (st != TLM_OK)
        goto done;
    d->st.roots1 = r[0].n;
    d->st.roots2 = r[1].n;
    if (!r[0].n || !r[1].n) {
        const char *p = tlm_trace_path(d->s[r[0].n ? 1 : 0].tr);
        st = tlm_error_set(err, TLM_EINVAL, p && *p ? p : r[0].n ? "trace2"
                                                             : "trace1",
                           -1, "no cpu_op in the call tree (TraceDiff needs "
                           "at least one root node in each trace)");
        goto done;
    }
    size_t nr = r[0].n > r[1].n ? r[0].n : r[1].n;
    int oom = 0;
    for (size_t i = 0; i < nr && st == TLM_OK; i++) {
        int32_t id;
        st = merge_pair(d, &w, &S, i < r[0].n ? r[0].p[i] : -1,
                        i < r[1].n ? r[1].p[i] : -1, &id);
        if (st == TLM_OK)
            tlm_ivec_push(&d->roots, id, &oom);
    }
    if (st == TLM_OK && oom)
        st = TLM_ENOMEM;
    if (st != TLM_OK && err && err->code == TLM_OK)
        tlm_error_set(err, st, NULL, -1, "merging the call trees");
    d->st.merged_nodes = d->nn;
done:
    tlm_ivec_free(&r[0]);
    tlm_ivec_free(&r[1]);
    tlm_ivec_free(&S.pairs);
    free(S.f);
    tlm_dwork_free(&w);
    return st;
}
