/*
 * diff_align.c - aligning two sibling lists (§4.1, §4.2): Wagner-Fischer
 * with TraceLens's backtrack ties over one bit per cell, and the
 * same-name disambiguation by the child names of the first four levels
 * below each candidate.
 */
#include "diff_internal.h"

#include <stdlib.h>
#include <string.h>

/* Backtrack bits of the DP over a[0..m) x b[0..n): bit (i-1)*n + (j-1)
 * is dp[i][j] == dp[i-1][j] + 1. */
static uint64_t *wf_bits(const int32_t *a, size_t m, const int32_t *b,
                         size_t n)
{
    uint64_t *bits = calloc((m * n + 63) / 64 + 1, sizeof *bits);
    uint32_t *prev = malloc((n + 1) * sizeof *prev);
    uint32_t *cur = malloc((n + 1) * sizeof *cur);
    if (!bits || !prev || !cur) {
        free(bits);
        bits = NULL;
        goto done;
    }
    for (size_t j = 0; j <= n; j++)
        prev[j] = (uint32_t)j;
    for (size_t i = 1; i <= m; i++) {
        cur[0] = (uint32_t)i;
        size_t base = (i - 1) * n;
        for (size_t j = 1; j <= n; j++) {
            uint32_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            uint32_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            uint32_t v = del < ins ? del : ins;
            v = v < sub ? v : sub;
            cur[j] = v;
            if (v == del)
                bits[(base + j - 1) >> 6] |= 1ull << ((base + j - 1) & 63);
        }
        uint32_t *t = prev;
        prev = cur;
        cur = t;
    }
done:
    free(prev);
    free(cur);
    return bits;
}

tlm_status tlm_diff_wf(const int32_t *a, size_t m, const int32_t *b,
                       size_t n, size_t max_cells, tlm_dopvec *out,
                       int *fallback)
{
    int oom = 0;
    tlm_dopvec rev = {0};
    /* the backtrack matches a common suffix first, whatever the DP says */
    size_t sm = m, sn = n;
    while (sm && sn && a[sm - 1] == b[sn - 1]) {
        sm--;
        sn--;
        tlm_dopvec_push(&rev, TLM_DOP_MATCH, (int32_t)sm, (int32_t)sn, &oom);
    }
    if (sm == 0 || sn == 0 || (max_cells && sm * sn > max_cells) ||
        (sm > 0 && sn > SIZE_MAX / 2 / sm)) {
        if (sm && sn)
            *fallback = 1;
        for (size_t j = sn; j-- > 0;)
            tlm_dopvec_push(&rev, TLM_DOP_INS, -1, (int32_t)j, &oom);
        for (size_t i = sm; i-- > 0;)
            tlm_dopvec_push(&rev, TLM_DOP_DEL, (int32_t)i, -1, &oom);
    } else {
        uint64_t *bits = wf_bits(a, sm, b, sn);
        if (!bits) {
            tlm_dopvec_free(&rev);
            return TLM_ENOMEM;
        }
        size_t i = sm, j = sn;
        while (i > 0 || j > 0) {
            if (i > 0 && j > 0 && a[i - 1] == b[j - 1]) {
                i--;
                j--;
                tlm_dopvec_push(&rev, TLM_DOP_MATCH, (int32_t)i, (int32_t)j,
                                &oom);
            } else if (i > 0 &&
                       (j == 0 || ((bits[((i - 1) * sn + j - 1) >> 6] >>
                                    (((i - 1) * sn + j - 1) & 63)) & 1))) {
                i--;
                tlm_dopvec_push(&rev, TLM_DOP_DEL, (int32_t)i, -1, &oom);
            } else {
                j--;
                tlm_dopvec_push(&rev, TLM_DOP_INS, -1, (int32_t)j, &oom);
            }
        }
        free(bits);
    }
    for (size_t k = rev.n; k-- > 0 && !oom;)
        tlm_dopvec_push(out, rev.p[k].type, rev.p[k].i, rev.p[k].j, &oom);
    tlm_dopvec_free(&rev);
    return oom ? TLM_ENOMEM : TLM_OK;
}

/* ------------------------------------------------- disambiguation §4.2 */

typedef struct sig {
    int32_t off[5]; /* level k = names[off[k] .. off[k+1]) */
    int32_t nlev;
} sig;

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* BFS levels below v (depth 1..4), each a sorted list of nnames. */
static void make_sig(tlm_diff *d, int side, int32_t v, sig *s,
                     tlm_ivec *names, tlm_ivec *fr, tlm_ivec *nx, int *oom)
{
    fr->n = 0;
    tlm_ivec_push(fr, v, oom);
    s->nlev = 0;
    s->off[0] = (int32_t)names->n;
    for (int depth = 1; depth <= 4 && !*oom; depth++) {
        nx->n = 0;
        for (size_t k = 0; k < fr->n; k++)
            tlm_diff_gpu_kids(&d->s[side], fr->p[k], nx, oom);
        size_t at = names->n;
        for (size_t k = 0; k < nx->n && !*oom; k++)
            tlm_ivec_push(names, tlm_diff_nname(d, side, nx->p[k]), oom);
        if (*oom)
            return;
        if (names->n - at > 1)
            qsort(names->p + at, names->n - at, sizeof *names->p, cmp_i32);
        s->nlev++;
        s->off[s->nlev] = (int32_t)names->n;
        if (!nx->n)
            break;
        tlm_ivec t = *fr;
        *fr = *nx;
        *nx = t;
    }
}

typedef struct cand {
    int32_t depth, overlap, old, i, j;
} cand;

static int cmp_cand(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth > b->depth ? -1 : 1;
    if (a->overlap != b->overlap)
        return a->overlap > b->overlap ? -1 : 1;
    if (a->old != b->old)
        return a->old ? -1 : 1;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

static void score(const int32_t *na, const sig *a, const int32_t *nb,
                  const sig *b, int32_t *depth, int32_t *overlap)
{
    int32_t L = a->nlev > b->nlev ? a->nlev : b->nlev;
    for (int32_t dd = 0; dd < L; dd++) {
        const int32_t *x = dd < a->nlev ? na + a->off[dd] : NULL;
        const int32_t *y = dd < b->nlev ? nb + b->off[dd] : NULL;
        size_t nx = x ? (size_t)(a->off[dd + 1] - a->off[dd]) : 0;
        size_t ny = y ? (size_t)(b->off[dd + 1] - b->off[dd]) : 0;
        if (nx == ny && (nx == 0 || memcmp(x, y, nx * sizeof *x) == 0))
            continue;
        int32_t ov = 0;
        for (size_t p = 0, q = 0; p < nx && q < ny;) {
            if (x[p] == y[q]) {
                ov++;
                p++;
                q++;
            } else if (x[p] < y[q]) {
                p++;
            } else {
                q++;
            }
        }
        *depth = dd;
        *overlap = ov;
        return;
    }
    *depth = L;
    *overlap = 0;
}

typedef struct nrec {
    int32_t name, cnt1, cnt2, in_m;
} nrec;

typedef struct dis {
    int32_t *nm1, *nm2, *partner, *h1, *h2, *new1;
    nrec *rec;
    cand *cands;
    sig *sg1, *sg2;
    tlm_ivec l1, l2, sn1, sn2, fr, nx;
} dis;

static void dis_free(dis *s)
{
    free(s->nm1);
    free(s->nm2);
    free(s->partner);
    free(s->h1);
    free(s->h2);
    free(s->new1);
    free(s->rec);
    free(s->cands);
    free(s->sg1);
    free(s->sg2);
    tlm_ivec_free(&s->l1);
    tlm_ivec_free(&s->l2);
    tlm_ivec_free(&s->sn1);
    tlm_ivec_free(&s->sn2);
    tlm_ivec_free(&s->fr);
    tlm_ivec_free(&s->nx);
}

/* Matches of one ambiguous name into s->new1 (side-1 index -> side-2). */
static tlm_status dis_name(tlm_diff *d, dis *s, const int32_t *c1, size_t m,
                           const int32_t *c2, size_t n, int32_t name,
                           int *oom)
{
    s->l1.n = s->l2.n = 0;
    for (size_t i = 0; i < m; i++)
        if (s->nm1[i] == name && s->h1[i])
            tlm_ivec_push(&s->l1, (int32_t)i, oom);
    for (size_t j = 0; j < n; j++)
        if (s->nm2[j] == name && s->h2[j])
            tlm_ivec_push(&s->l2, (int32_t)j, oom);
    size_t a = s->l1.n, b = s->l2.n;
    if (*oom)
        return TLM_ENOMEM;
    s->sn1.n = s->sn2.n = 0;
    /* storage even when every level is empty (no NULL + 0 below) */
    if (tlm_ivec_reserve(&s->sn1, 1, oom) || tlm_ivec_reserve(&s->sn2, 1, oom))
        return TLM_ENOMEM;
    free(s->sg1);
    free(s->sg2);
    free(s->cands);
    s->sg1 = malloc((a + 1) * sizeof *s->sg1);
    s->sg2 = malloc((b + 1) * sizeof *s->sg2);
    s->cands = malloc((a * b + 1) * sizeof *s->cands);
    if (!s->sg1 || !s->sg2 || !s->cands)
        return TLM_ENOMEM;
    for (size_t k = 0; k < a; k++)
        make_sig(d, 0, c1[s->l1.p[k]], &s->sg1[k], &s->sn1, &s->fr, &s->nx,
                 oom);
    for (size_t k = 0; k < b; k++)
        make_sig(d, 1, c2[s->l2.p[k]], &s->sg2[k], &s->sn2, &s->fr, &s->nx,
                 oom);
    if (*oom)
        return TLM_ENOMEM;
    size_t nc = 0;
    for (size_t p = 0; p < a; p++)
        for (size_t q = 0; q < b; q++) {
            cand *c = &s->cands[nc++];
            score(s->sn1.p, &s->sg1[p], s->sn2.p, &s->sg2[q], &c->depth,
                  &c->overlap);
            c->i = s->l1.p[p];
            c->j = s->l2.p[q];
            c->old = s->partner[c->i] == c->j;
        }
    if (nc > 1)
        qsort(s->cands, nc, sizeof *s->cands, cmp_cand);
    size_t want = a < b ? a : b, took = 0;
    for (size_t k = 0; k < nc && took < want; k++) {
        cand *c = &s->cands[k];
        if (s->new1[c->i] >= 0 || s->h2[c->j] == 2)
            continue;
        s->new1[c->i] = c->j;
        s->h2[c->j] = 2; /* used */
        took++;
    }
    return TLM_OK;
}

static tlm_status dis_rebuild(dis *s, size_t m, size_t n, tlm_dopvec *ops)
{
    int oom = 0;
    tlm_dopvec out = {0};
    for (size_t k = 0; k < ops->n; k++) {
        tlm_dop o = ops->p[k];
        if ((o.i >= 0 && s->h1[o.i]) || (o.j >= 0 && s->h2[o.j]))
            continue;
        tlm_dopvec_push(&out, o.type, o.i, o.j, &oom);
    }
    for (size_t i = 0; i < m; i++)
        if (s->new1[i] >= 0)
            tlm_dopvec_push(&out, TLM_DOP_MATCH, (int32_t)i, s->new1[i], &oom);
    for (size_t i = 0; i < m; i++)
        if (s->h1[i] && s->new1[i] < 0)
            tlm_dopvec_push(&out, TLM_DOP_DEL, (int32_t)i, -1, &oom);
    for (size_t j = 0; j < n; j++)
        if (s->h2[j] == 1)
            tlm_dopvec_push(&out, TLM_DOP_INS, -1, (int32_t)j, &oom);
    if (oom) {
        tlm_dopvec_free(&out);
        return TLM_ENOMEM;
    }
    tlm_dopvec_free(ops);
    *ops = out;
    return TLM_OK;
}

tlm_status tlm_diff_disambiguate(tlm_diff *d, const int32_t *c1, size_t m,
                                 const int32_t *c2, size_t n,
                                 tlm_dopvec *ops)
{
    if (m < 2 && n < 2)
        return TLM_OK; /* no name can occur twice on one side */
    int oom = 0;
    tlm_status st = TLM_ENOMEM;
    dis s;
    memset(&s, 0, sizeof s);
    s.nm1 = malloc((m + 1) * sizeof *s.nm1);
    s.nm2 = malloc((n + 1) * sizeof *s.nm2);
    s.partner = malloc((m + 1) * sizeof *s.partner);
    s.h1 = calloc(m + 1, sizeof *s.h1);
    s.h2 = calloc(n + 1, sizeof *s.h2);
    s.new1 = malloc((m + 1) * sizeof *s.new1);
    s.rec = malloc((m + n + 1) * sizeof *s.rec);
    if (!s.nm1 || !s.nm2 || !s.partner || !s.h1 || !s.h2 || !s.new1 ||
        !s.rec)
        goto done;
    for (size_t i = 0; i < m; i++) {
        s.nm1[i] = tlm_diff_nname(d, 0, c1[i]);
        s.partner[i] = -1;
        s.new1[i] = -1;
    }
    for (size_t j = 0; j < n; j++)
        s.nm2[j] = tlm_diff_nname(d, 1, c2[j]);
    uint32_t stamp = tlm_diff_mark_begin(d);
    if (!stamp)
        goto done;
    size_t nr = 0;
    for (size_t k = 0; k < ops->n; k++) {
        tlm_dop o = ops->p[k];
        for (int side = 0; side < 2; side++) {
            int32_t ix = side ? o.j : o.i;
            if (ix < 0)
                continue;
            int32_t nm = side ? s.nm2[ix] : s.nm1[ix];
            if (d->mark[nm] != stamp) {
                d->mark[nm] = stamp;
                d->mval[nm] = (int32_t)nr;
                s.rec[nr].name = nm;
                s.rec[nr].cnt1 = s.rec[nr].cnt2 = s.rec[nr].in_m = 0;
                nr++;
            }
            nrec *r = &s.rec[d->mval[nm]];
            if (side)
                r->cnt2++;
            else
                r->cnt1++;
            if (o.type == TLM_DOP_MATCH)
                r->in_m = 1;
        }
        if (o.type == TLM_DOP_MATCH)
            s.partner[o.i] = o.j;
    }
    int any = 0;
    for (size_t k = 0; k < nr; k++) {
        nrec *r = &s.rec[k];
        r->in_m = r->cnt1 && r->cnt2 && r->in_m &&
                  (r->cnt1 > 1 || r->cnt2 > 1);
        any |= r->in_m;
    }
    st = TLM_OK;
    if (!any)
        goto done;
    /* handled indices: every op index whose name is ambiguous */
    for (size_t k = 0; k < ops->n; k++) {
        tlm_dop o = ops->p[k];
        if (o.i >= 0 && s.rec[d->mval[s.nm1[o.i]]].in_m)
            s.h1[o.i] = 1;
        if (o.j >= 0 && s.rec[d->mval[s.nm2[o.j]]].in_m)
            s.h2[o.j] = 1;
    }
    for (size_t k = 0; k < nr && st == TLM_OK; k++)
        if (s.rec[k].in_m)
            st = dis_name(d, &s, c1, m, c2, n, s.rec[k].name, &oom);
    if (st != TLM_OK)
        goto done;
    int subset = 1;
    for (size_t i = 0; i < m; i++)
        if (s.new1[i] >= 0 && s.partner[i] != s.new1[i])
            subset = 0;
    if (!subset)
        st = dis_rebuild(&s, m, n, ops);
done:
    dis_free(&s);
    return st;
}

tlm_status tlm_diff_align(tlm_diff *d, const int32_t *c1, size_t m,
                          const int32_t *c2, size_t n, int strip,
                          tlm_dopvec *out)
{
    out->n = 0;
    int32_t *a = malloc((m + 1) * sizeof *a);
    int32_t *b = malloc((n + 1) * sizeof *b);
    tlm_status st = TLM_ENOMEM;
    if (!a || !b)
        goto done;
    for (size_t i = 0; i < m; i++)
        if ((a[i] = tlm_diff_name_id(d, 0, c1[i], strip)) < 0)
            goto done;
    for (size_t j = 0; j < n; j++)
        if ((b[j] = tlm_diff_name_id(d, 1, c2[j], strip)) < 0)
            goto done;
    int fb = 0;
    st = tlm_diff_wf(a, m, b, n, d->opts.max_wf_cells, out, &fb);
    if (fb)
        d->st.wf_fallbacks++;
    if (st == TLM_OK)
        st = tlm_diff_disambiguate(d, c1, m, c2, n, out);
done:
    free(a);
    free(b);
    return st;
}
