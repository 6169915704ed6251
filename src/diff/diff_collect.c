/*
 * diff_collect.c - the rows of diff_stats (§6.1, §6.2): the walk of the
 * merged tree that finds each lowest common ancestor (LCA) of a
 * divergence, the GPU ops of each side's group and their busy time.
 * Explicit stack; a visited flag per merged node.
 */
#include "diff_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

typedef struct cstate {
    tlm_ivec g[2];     /* GPU ops of a group, per side */
    tlm_ivld *scr;     /* busy-time scratch */
    size_t scap;
    uint8_t *visited;
    int oom;
} cstate;

/* strip_paren_digits(opname(u)) interned (0 = none). */
static int32_t lca_part(tlm_diff *d, int side, int32_t u, tlm_sbuf *b)
{
    char num[24];
    size_t n;
    const char *s = tlm_diff_opname(d, side, u, &n, num);
    tlm_diff_strip_paren_digits(b, s, n);
    return 0;
}

static int32_t lca_name(tlm_diff *d, const tlm_dnode *n)
{
    tlm_sbuf a, b;
    tlm_sbuf_init(&a);
    tlm_sbuf_init(&b);
    lca_part(d, 0, n->u1, &a);
    lca_part(d, 1, n->u2, &b);
    if (a.len != b.len || (a.len && memcmp(a.p, b.p, a.len) != 0)) {
        tlm_sbuf_putn(&a, " | ", 3);
        tlm_sbuf_putn(&a, b.p ? b.p : "", b.len);
    }
    int32_t id = a.oom || b.oom ? -1
                                : tlm_dstrtab_intern(&d->names,
                                                     a.p ? a.p : "", a.len);
    tlm_sbuf_free(&a);
    tlm_sbuf_free(&b);
    return id;
}

static int32_t cpu_ancestor(const tlm_dside *s, int32_t g)
{
    for (int32_t p = s->t->nd[g].parent; p >= 0; p = s->t->nd[p].parent)
        if (s->t->nd[p].cat == TLM_CAT_CPU_OP)
            return p;
    return -1;
}

static void emit(tlm_diff *d, cstate *c, int side, const int32_t *g,
                 size_t n, int32_t lca, int32_t name)
{
    double busy = 0.0;
    if (n && tlm_tree_busy_us_buf(d->s[side].t, g, n, &busy, &c->scr,
                                  &c->scap) != TLM_OK) {
        c->oom = 1;
        return;
    }
    busy = rint(busy * 1000.0) / 1000.0;
    for (size_t i = 0; i < n; i++) {
        int32_t cpu = cpu_ancestor(&d->s[side], g[i]);
        if (cpu < 0)
            continue;
        if (tlm_grow((void **)&d->rows, &d->caprows, d->nrows + 1,
                     sizeof *d->rows, 1024)) {
            c->oom = 1;
            return;
        }
        tlm_drow *r = &d->rows[d->nrows++];
        r->g = g[i];
        r->cpu = cpu;
        r->lca = lca;
        r->lca_name = name;
        r->side = (int8_t)side;
        r->busy = busy;
    }
}

/* Group of side k under LCA n: the GPU events of the one-sided children
 * (and the child itself when kernel-like), then the node itself. */
static void group(tlm_diff *d, cstate *c, const tlm_dnode *n, int k)
{
    const tlm_dside *s = &d->s[k];
    tlm_ivec *g = &c->g[k];
    g->n = 0;
    for (int32_t q = 0; q < n->nkid; q++) {
        const tlm_dnode *ch = &d->nodes[d->kids.p[n->kid_off + q]];
        int32_t u = k ? ch->u2 : ch->u1;
        int32_t o = k ? ch->u1 : ch->u2;
        if (o >= 0 || !tlm_don_path(s, u))
            continue;
        size_t ng;
        const int32_t *ge = tlm_dgpu_events(s, u, &ng);
        for (size_t i = 0; i < ng; i++)
            tlm_ivec_push(g, ge[i], &c->oom);
        if (tlm_dkernel_like(s, u))
            tlm_ivec_push(g, u, &c->oom);
        c->visited[d->kids.p[n->kid_off + q]] = 1;
    }
    int32_t e = k ? n->u2 : n->u1;
    if (tlm_dkernel_like(s, e))
        tlm_ivec_push(g, e, &c->oom);
}

static int has_onesided_kid(tlm_diff *d, const tlm_dnode *n)
{
    for (int32_t q = 0; q < n->nkid; q++) {
        const tlm_dnode *ch = &d->nodes[d->kids.p[n->kid_off + q]];
        if (ch->u1 >= 0 && ch->u2 >= 0)
            continue;
        if ((ch->u1 >= 0 && tlm_don_path(&d->s[0], ch->u1)) ||
            (ch->u2 >= 0 && tlm_don_path(&d->s[1], ch->u2)))
            return 1;
    }
    return 0;
}

/* visit(n, parent) of §6.1; children to visit pushed on st (reversed). */
static void visit(tlm_diff *d, cstate *c, int32_t id, int32_t parent,
                  tlm_ivec *st)
{
    if (c->visited[id])
        return;
    const tlm_dnode *n = &d->nodes[id];
    if (n->u1 >= 0 && n->u2 >= 0) {
        int p1 = tlm_don_path(&d->s[0], n->u1);
        int p2 = tlm_don_path(&d->s[1], n->u2);
        if (p1 && p2 &&
            (has_onesided_kid(d, n) || (tlm_dkernel_like(&d->s[0], n->u1) &&
                                        tlm_dkernel_like(&d->s[1], n->u2)))) {
            int32_t nm = lca_name(d, n);
            if (nm < 0) {
                c->oom = 1;
                return;
            }
            group(d, c, n, 0);
            group(d, c, n, 1);
            emit(d, c, 0, c->g[0].p, c->g[0].n, id, nm);
            emit(d, c, 1, c->g[1].p, c->g[1].n, id, nm);
            c->visited[id] = 1;
        }
        if (p1 || p2)
            for (int32_t q = n->nkid; q-- > 0;) {
                tlm_ivec_push(st, d->kids.p[n->kid_off + q], &c->oom);
                tlm_ivec_push(st, id, &c->oom);
            }
        return;
    }
    int k = n->u1 >= 0 ? 0 : 1;
    int32_t u = k ? n->u2 : n->u1;
    if (tlm_don_path(&d->s[k], u)) {
        int32_t nm = 0, lid = -1;
        if (parent >= 0) {
            const tlm_dnode *p = &d->nodes[parent];
            int32_t pu = k ? p->u2 : p->u1;
            tlm_sbuf b;
            tlm_sbuf_init(&b);
            lca_part(d, k, pu, &b);
            nm = b.oom ? -1 : tlm_dstrtab_intern(&d->names, b.p ? b.p : "",
                                                 b.len);
            tlm_sbuf_free(&b);
            if (nm < 0) {
                c->oom = 1;
                return;
            }
            lid = parent;
        }
        size_t ng;
        const int32_t *ge = tlm_dgpu_events(&d->s[k], u, &ng);
        emit(d, c, k, ge, ng, lid, nm);
    }
    c->visited[id] = 1;
}

tlm_status tlm_diff_collect(tlm_diff *d, tlm_error *err)
{
    cstate c;
    memset(&c, 0, sizeof c);
    tlm_ivec st = {0};
    c.visited = calloc(d->nn + 1, 1);
    if (!c.visited)
        c.oom = 1;
    for (size_t r = 0; r < d->roots.n && !c.oom; r++) {
        st.n = 0;
        tlm_ivec_push(&st, d->roots.p[r], &c.oom);
        tlm_ivec_push(&st, -1, &c.oom);
        while (st.n && !c.oom) {
            int32_t parent = st.p[--st.n];
            int32_t id = st.p[--st.n];
            visit(d, &c, id, parent, &st);
        }
    }
    free(c.visited);
    free(c.scr);
    tlm_ivec_free(&c.g[0]);
    tlm_ivec_free(&c.g[1]);
    tlm_ivec_free(&st);
    if (c.oom)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory collecting diff_stats rows");
    return TLM_OK;
}
