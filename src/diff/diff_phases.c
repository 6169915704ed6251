/*
 * diff_phases.c - the child ops of one merged node (§4 steps 5-9): the
 * child lists with missing names brought back, the list-level collapse
 * (Phase 1), the alignment (Phase 2), the wrapper reconciliation (Phase
 * 3) and the collapse of the unmatched (Phase 4).  The trees are read,
 * never changed.
 */
#include "diff_internal.h"

#include <stdlib.h>
#include <string.h>

void tlm_diff_gpu_kids(const tlm_dside *s, int32_t u, tlm_ivec *out,
                       int *oom)
{
    if (u < 0)
        return;
    for (int32_t c = s->t->nd[u].first_child; c >= 0;
         c = s->t->nd[c].next_sibling)
        if (tlm_don_path(s, c))
            tlm_ivec_push(out, c, oom);
}

static int has_dispatch_child(const tlm_dside *s, int32_t u)
{
    for (int32_t c = s->t->nd[u].first_child; c >= 0;
         c = s->t->nd[c].next_sibling)
        if (tlm_ddispatch(s, c))
            return 1;
    return 0;
}

int32_t tlm_diff_collapse(tlm_diff *d, int side, int32_t v, tlm_ivec *kids,
                          int *oom)
{
    const tlm_dside *s = &d->s[side];
    int32_t cur = v;
    kids->n = 0;
    for (;;) {
        if (cur < 0 || tlm_ddispatch(s, cur))
            break;
        if (s->t->nd[cur].cat == TLM_CAT_CPU_OP && has_dispatch_child(s, cur))
            break;
        kids->n = 0;
        tlm_diff_gpu_kids(s, cur, kids, oom);
        if (kids->n != 1 || *oom)
            break;
        cur = kids->p[0];
        kids->n = 0;
    }
    return cur;
}

/* Stable sort of UIDs by ts (insertion sort when nearly sorted). */
static void sort_ts(const tlm_dside *s, int32_t *u, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int32_t x = u[i];
        int64_t t = s->ev[x].ts;
        size_t k = i;
        while (k > 0 && s->ev[u[k - 1]].ts > t) {
            u[k] = u[k - 1];
            k--;
        }
        u[k] = x;
    }
}

void tlm_dwork_free(tlm_dwork *w)
{
    for (int k = 0; k < 2; k++) {
        tlm_ivec_free(&w->c[k]);
        tlm_ivec_free(&w->r[k]);
        tlm_ivec_free(&w->x[k]);
        tlm_ivec_free(&w->u[k]);
        tlm_ivec_free(&w->f[k]);
        tlm_ivec_free(&w->kd[k]);
        tlm_ivec_free(&w->koff[k]);
        tlm_ivec_free(&w->fl[k]);
    }
    tlm_ivec_free(&w->kids);
    tlm_ivec_free(&w->tmp);
    tlm_dopvec_free(&w->ops);
    tlm_dopvec_free(&w->p);
    tlm_dopvec_free(&w->q);
    tlm_dopvec_free(&w->out);
}

/* §4 step 5: GPU-path children plus the other side's missing names. */
static void children_with_missing(tlm_diff *d, tlm_dwork *w, int32_t u1,
                                  int32_t u2)
{
    int32_t u[2] = {u1, u2};
    for (int k = 0; k < 2; k++) {
        w->c[k].n = 0;
        tlm_diff_gpu_kids(&d->s[k], u[k], &w->c[k], &w->oom);
    }
    if (u1 < 0 || u2 < 0 || w->oom)
        return;
    /* intern every name first: the stamped scratch covers them */
    for (int k = 0; k < 2; k++)
        for (int32_t c = d->s[k].t->nd[u[k]].first_child; c >= 0;
             c = d->s[k].t->nd[c].next_sibling)
            if (tlm_diff_nname(d, k, c) < 0)
                w->oom = 1;
    uint32_t st = tlm_diff_mark_begin(d);
    if (!st || w->oom) {
        w->oom = 1;
        return;
    }
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < w->c[k].n; i++) {
            int32_t nm = tlm_diff_nname(d, k, w->c[k].p[i]);
            if (d->mark[nm] != st) {
                d->mark[nm] = st;
                d->mval[nm] = 0;
            }
            d->mval[nm] |= 1 << k;
        }
    for (int k = 0; k < 2; k++) {
        int o = 1 - k; /* names only in side o come back on side k */
        for (int32_t c = d->s[k].t->nd[u[k]].first_child; c >= 0;
             c = d->s[k].t->nd[c].next_sibling) {
            int32_t nm = tlm_diff_nname(d, k, c);
            if (d->mark[nm] == st && (d->mval[nm] & 3) == (1 << o))
                tlm_ivec_push(&w->tmp, c, &w->oom); /* candidates */
        }
        /* the last child of each such name, taken once */
        for (size_t i = w->tmp.n; i-- > 0 && !w->oom;) {
            int32_t c = w->tmp.p[i];
            int32_t nm = tlm_diff_nname(d, k, c);
            if (d->mval[nm] & 4)
                continue;
            d->mval[nm] |= 4;
            tlm_ivec_push(&w->c[k], c, &w->oom);
        }
        w->tmp.n = 0;
    }
    for (int k = 0; k < 2 && !w->oom; k++)
        sort_ts(&d->s[k], w->c[k].p, w->c[k].n);
}

static int any_dispatch(tlm_diff *d, const int32_t *a, size_t m,
                        const int32_t *b, size_t n)
{
    for (size_t i = 0; i < m; i++)
        if (tlm_ddispatch(&d->s[0], a[i]))
            return 1;
    for (size_t j = 0; j < n; j++)
        if (tlm_ddispatch(&d->s[1], b[j]))
            return 1;
    return 0;
}

/* Positional pairing when the lengths agree and no dispatch event is
 * among the items, else align(strip = 0). */
static tlm_status pair_or_align(tlm_diff *d, const int32_t *a, size_t m,
                                const int32_t *b, size_t n, tlm_dopvec *out,
                                int *oom)
{
    if (m == n && !any_dispatch(d, a, m, b, n)) {
        out->n = 0;
        for (size_t i = 0; i < m; i++)
            tlm_dopvec_push(out, TLM_DOP_MATCH, (int32_t)i, (int32_t)i, oom);
        return *oom ? TLM_ENOMEM : TLM_OK;
    }
    return tlm_diff_align(d, a, m, b, n, 0, out);
}

static int eligible(const tlm_dside *s, int32_t u)
{
    unsigned c = s->t->nd[u].cat;
    if (c != TLM_CAT_KERNEL && c != TLM_CAT_CUDA_RUNTIME &&
        c != TLM_CAT_CUDA_DRIVER)
        return 1;
    return tlm_dgraph(s, u);
}


/* Replaces the substituted entries of c by their lists (kd/koff), then
 * sorts by ts, into r. */
static void expand(const tlm_dside *s, const tlm_ivec *c, const tlm_ivec *fl,
                   const tlm_ivec *kd, const tlm_ivec *koff, tlm_ivec *r,
                   int *oom)
{
    r->n = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (fl->p[i] < 0) {
            tlm_ivec_push(r, c->p[i], oom);
            continue;
        }
        int32_t k = fl->p[i];
        for (int32_t q = koff->p[k]; q < koff->p[k + 1]; q++)
            tlm_ivec_push(r, kd->p[q], oom);
    }
    if (!*oom)
        sort_ts(s, r->p, r->n);
}

static uint64_t list_hash(tlm_diff *d, int side, const int32_t *u, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)(uint32_t)tlm_diff_nname(d, side, u[i])) *
            1099511628211ull;
    return h ^ n;
}

static int same_names(tlm_diff *d, const int32_t *a, size_t m,
                      const int32_t *b, size_t n)
{
    if (m != n)
        return 0;
    for (size_t i = 0; i < m; i++)
        if (tlm_diff_nname(d, 0, a[i]) != tlm_diff_nname(d, 1, b[i]))
            return 0;
    return 1;
}

/* Which deletes / inserts get substituted (fl[k][index] = slot of its
 * child list, -1 = kept).  Returns 1 when any is. */
static int phase3_subs(tlm_diff *d, tlm_dwork *w)
{
    tlm_ivec *di = &w->u[0], *ii = &w->u[1];
    for (int k = 0; k < 2; k++) {
        w->kd[k].n = w->koff[k].n = 0;
        w->fl[k].n = 0;
        for (size_t i = 0; i < w->c[k].n; i++)
            tlm_ivec_push(&w->fl[k], -1, &w->oom);
        const tlm_ivec *ix = k ? ii : di;
        tlm_ivec_push(&w->koff[k], 0, &w->oom);
        for (size_t q = 0; q < ix->n; q++) {
            int32_t node = w->c[k].p[ix->p[q]];
            if (eligible(&d->s[k], node))
                tlm_diff_gpu_kids(&d->s[k], node, &w->kd[k], &w->oom);
            tlm_ivec_push(&w->koff[k], (int32_t)w->kd[k].n, &w->oom);
            (void)tlm_diff_nname(d, k, node);
        }
        for (size_t q = 0; q < w->kd[k].n; q++)
            (void)tlm_diff_nname(d, k, w->kd[k].p[q]);
    }
    if (w->oom)
        return 0;
    int any = 0;
    for (int k = 0; k < 2; k++) {
        int o = 1 - k;
        const tlm_ivec *ix = k ? ii : di, *ox = o ? ii : di;
        uint32_t st = tlm_diff_mark_begin(d);
        if (!st) {
            w->oom = 1;
            return 0;
        }
        for (size_t q = 0; q < ox->n; q++) {
            int32_t node = w->c[o].p[ox->p[q]];
            int32_t nm = tlm_diff_nname(d, o, node);
            if (nm && eligible(&d->s[o], node))
                d->mark[nm] = st;
        }
        for (size_t q = 0; q < ix->n; q++) {
            int32_t node = w->c[k].p[ix->p[q]];
            if (!eligible(&d->s[k], node))
                continue;
            for (int32_t z = w->koff[k].p[q]; z < w->koff[k].p[q + 1]; z++)
                if (d->mark[tlm_diff_nname(d, k, w->kd[k].p[z])] == st) {
                    w->fl[k].p[ix->p[q]] = (int32_t)q;
                    any = 1;
                    break;
                }
        }
    }
    /* equal non-empty child name lists */
    for (size_t a = 0; a < di->n; a++) {
        int32_t a0 = w->koff[0].p[a], a1 = w->koff[0].p[a + 1];
        if (a0 == a1)
            continue;
        uint64_t ha = list_hash(d, 0, w->kd[0].p + a0, (size_t)(a1 - a0));
        for (size_t b = 0; b < ii->n; b++) {
            int32_t b0 = w->koff[1].p[b], b1 = w->koff[1].p[b + 1];
            if (b1 - b0 != a1 - a0 ||
                list_hash(d, 1, w->kd[1].p + b0, (size_t)(b1 - b0)) != ha ||
                !same_names(d, w->kd[0].p + a0, (size_t)(a1 - a0),
                            w->kd[1].p + b0, (size_t)(b1 - b0)))
                continue;
            w->fl[0].p[di->p[a]] = (int32_t)a;
            w->fl[1].p[ii->p[b]] = (int32_t)b;
            any = 1;
        }
    }
    return any;
}

/* Position of each UID of r (the last one wins), stamped. */
static void index_positions(tlm_dside *s, const tlm_ivec *r)
{
    if (++s->stamp == 0) {
        memset(s->pos_stamp, 0, s->n * sizeof *s->pos_stamp);
        s->stamp = 1;
    }
    for (size_t i = 0; i < r->n; i++) {
        s->pos[r->p[i]] = (int32_t)i;
        s->pos_stamp[r->p[i]] = s->stamp;
    }
}

static int32_t position(const tlm_dside *s, int32_t u)
{
    return s->pos_stamp[u] == s->stamp ? s->pos[u] : -1;
}

/* Phase 3 (§4 step 8). */
/* dst[k] = the items of src[k] at the free positions w->f[k] (both
 * sides).  -1 when out of memory. */
static int gather_free(tlm_dwork *w, const tlm_ivec src[2], tlm_ivec dst[2])
{
    for (int k = 0; k < 2; k++) {
        dst[k].n = 0;
        for (size_t i = 0; i < w->f[k].n; i++)
            tlm_ivec_push(&dst[k], src[k].p[w->f[k].p[i]], &w->oom);
    }
    return w->oom ? -1 : 0;
}

static tlm_status phase3(tlm_diff *d, tlm_dwork *w)
{
    w->u[0].n = w->u[1].n = 0;
    for (size_t k = 0; k < w->ops.n; k++) {
        if (w->ops.p[k].type == TLM_DOP_DEL)
            tlm_ivec_push(&w->u[0], w->ops.p[k].i, &w->oom);
        else if (w->ops.p[k].type == TLM_DOP_INS)
            tlm_ivec_push(&w->u[1], w->ops.p[k].j, &w->oom);
    }
    if (w->oom)
        return TLM_ENOMEM;
    if (!w->u[0].n || !w->u[1].n || !phase3_subs(d, w))
        return w->oom ? TLM_ENOMEM : TLM_OK;
    for (int k = 0; k < 2; k++) {
        expand(&d->s[k], &w->c[k], &w->fl[k], &w->kd[k], &w->koff[k],
               &w->r[k], &w->oom);
        if (w->oom)
            return TLM_ENOMEM;
        index_positions(&d->s[k], &w->r[k]);
        w->f[k].n = 0;
        w->x[k].n = 0; /* used flags */
        for (size_t i = 0; i < w->r[k].n; i++)
            tlm_ivec_push(&w->x[k], 0, &w->oom);
    }
    if (w->oom)
        return TLM_ENOMEM;
    w->out.n = 0;
    for (size_t k = 0; k < w->ops.n; k++) {
        tlm_dop o = w->ops.p[k];
        if (o.type != TLM_DOP_MATCH)
            continue;
        int32_t p1 = position(&d->s[0], w->c[0].p[o.i]);
        int32_t p2 = position(&d->s[1], w->c[1].p[o.j]);
        if (p1 < 0 || p2 < 0)
            continue;
        tlm_dopvec_push(&w->out, TLM_DOP_MATCH, p1, p2, &w->oom);
        w->x[0].p[p1] = w->x[1].p[p2] = 1;
    }
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < w->r[k].n; i++)
            if (!w->x[k].p[i])
                tlm_ivec_push(&w->f[k], (int32_t)i, &w->oom);
    }
    if (w->oom)
        return TLM_ENOMEM;
    if (w->f[0].n && w->f[1].n) {
        /* the free items themselves */
        tlm_ivec *a = &w->x[0], *b = &w->x[1];
        if (gather_free(w, w->r, w->x) != 0)
            return TLM_ENOMEM;
        tlm_status st = pair_or_align(d, a->p, a->n, b->p, b->n, &w->p,
                                      &w->oom);
        if (st != TLM_OK)
            return st;
        for (size_t k = 0; k < w->p.n; k++) {
            tlm_dop o = w->p.p[k];
            tlm_dopvec_push(&w->out, o.type, o.i >= 0 ? w->f[0].p[o.i] : -1,
                            o.j >= 0 ? w->f[1].p[o.j] : -1, &w->oom);
        }
    } else {
        for (size_t i = 0; i < w->f[0].n; i++)
            tlm_dopvec_push(&w->out, TLM_DOP_DEL, w->f[0].p[i], -1, &w->oom);
        for (size_t i = 0; i < w->f[1].n; i++)
            tlm_dopvec_push(&w->out, TLM_DOP_INS, -1, w->f[1].p[i], &w->oom);
    }
    if (w->oom)
        return TLM_ENOMEM;
    tlm_dopvec t = w->ops;
    w->ops = w->out;
    w->out = t;
    for (int k = 0; k < 2; k++) {
        tlm_ivec c = w->c[k];
        w->c[k] = w->r[k];
        w->r[k] = c;
    }
    return TLM_OK;
}

/* Phase 4 (§4 step 9). */
static tlm_status phase4(tlm_diff *d, tlm_dwork *w)
{
    w->u[0].n = w->u[1].n = 0;
    for (size_t k = 0; k < w->ops.n; k++) {
        if (w->ops.p[k].type == TLM_DOP_DEL)
            tlm_ivec_push(&w->u[0], w->ops.p[k].i, &w->oom);
        else if (w->ops.p[k].type == TLM_DOP_INS)
            tlm_ivec_push(&w->u[1], w->ops.p[k].j, &w->oom);
    }
    if (w->oom)
        return TLM_ENOMEM;
    if (!w->u[0].n || !w->u[1].n)
        return TLM_OK;
    for (int k = 0; k < 2; k++) {
        w->x[k].n = 0;
        for (size_t i = 0; i < w->u[k].n && !w->oom; i++)
            tlm_ivec_push(&w->x[k],
                          tlm_diff_collapse(d, k, w->c[k].p[w->u[k].p[i]],
                                            &w->kids, &w->oom),
                          &w->oom);
    }
    if (w->oom)
        return TLM_ENOMEM;
    tlm_status st = tlm_diff_align(d, w->x[0].p, w->x[0].n, w->x[1].p,
                                   w->x[1].n, 0, &w->p);
    if (st != TLM_OK)
        return st;
    w->f[0].n = w->f[1].n = 0; /* S1, S2 */
    for (size_t k = 0; k < w->p.n; k++) {
        if (w->p.p[k].type == TLM_DOP_DEL)
            tlm_ivec_push(&w->f[0], w->p.p[k].i, &w->oom);
        else if (w->p.p[k].type == TLM_DOP_INS)
            tlm_ivec_push(&w->f[1], w->p.p[k].j, &w->oom);
    }
    w->out.n = 0;
    for (size_t k = 0; k < w->ops.n; k++)
        if (w->ops.p[k].type == TLM_DOP_MATCH)
            tlm_dopvec_push(&w->out, TLM_DOP_MATCH, w->ops.p[k].i,
                            w->ops.p[k].j, &w->oom);
    if (w->oom)
        return TLM_ENOMEM;
    /* combined ops over X indices into p */
    if (w->f[0].n && w->f[1].n) {
        tlm_ivec *a = &w->r[0], *b = &w->r[1];
        if (gather_free(w, w->x, w->r) != 0)
            return TLM_ENOMEM;
        st = tlm_diff_align(d, a->p, a->n, b->p, b->n, 1, &w->q);
        if (st != TLM_OK)
            return st;
        size_t keep = 0;
        for (size_t k = 0; k < w->p.n; k++)
            if (w->p.p[k].type == TLM_DOP_MATCH)
                w->p.p[keep++] = w->p.p[k];
        w->p.n = keep;
        for (size_t k = 0; k < w->q.n; k++) {
            tlm_dop o = w->q.p[k];
            tlm_dopvec_push(&w->p, o.type, o.i >= 0 ? w->f[0].p[o.i] : -1,
                            o.j >= 0 ? w->f[1].p[o.j] : -1, &w->oom);
        }
    }
    for (size_t k = 0; k < w->p.n; k++) {
        tlm_dop o = w->p.p[k];
        int32_t ci = o.i >= 0 ? w->u[0].p[o.i] : -1;
        int32_t cj = o.j >= 0 ? w->u[1].p[o.j] : -1;
        if (ci >= 0)
            w->c[0].p[ci] = w->x[0].p[o.i];
        if (cj >= 0)
            w->c[1].p[cj] = w->x[1].p[o.j];
        tlm_dopvec_push(&w->out, o.type, ci, cj, &w->oom);
    }
    if (w->oom)
        return TLM_ENOMEM;
    tlm_dopvec t = w->ops;
    w->ops = w->out;
    w->out = t;
    return TLM_OK;
}

tlm_status tlm_diff_node_ops(tlm_diff *d, tlm_dwork *w, int32_t *u1,
                             int32_t *u2)
{
    w->oom = 0;
    w->ops.n = 0;
    children_with_missing(d, w, *u1, *u2);
    if (w->oom)
        return TLM_ENOMEM;
    /* Phase 1 */
    if (w->c[0].n != w->c[1].n) {
        int k = w->c[0].n == 1 ? 0 : w->c[1].n == 1 ? 1 : -1;
        if (k >= 0) {
            int32_t x = tlm_diff_collapse(d, k, w->c[k].p[0], &w->kids,
                                          &w->oom);
            if (w->kids.n && !w->oom) {
                if (k == 0)
                    *u1 = x;
                else
                    *u2 = x;
                tlm_ivec t = w->c[k];
                w->c[k] = w->kids;
                w->kids = t;
            }
        }
    }
    if (w->oom)
        return TLM_ENOMEM;
    /* Phase 2 */
    tlm_status st = pair_or_align(d, w->c[0].p, w->c[0].n, w->c[1].p,
                                  w->c[1].n, &w->ops, &w->oom);
    if (st != TLM_OK)
        return st;
    int nonmatch = 0;
    for (size_t k = 0; k < w->ops.n; k++)
        nonmatch |= w->ops.p[k].type != TLM_DOP_MATCH;
    if (!nonmatch)
        return TLM_OK;
    st = phase3(d, w);
    if (st == TLM_OK)
        st = phase4(d, w);
    return st;
}
