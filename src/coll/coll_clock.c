/*
 * coll_clock.c - clock offsets between traces from collective end times.
 *
 * Traces recorded on different hosts carry different clocks (NTP/PTP
 * error).  Durations are clock-free, start and end times are not.  For an
 * implicit-sync collective every member finishes at nearly the same true
 * time, so the observed end of rank r in instance c is modelled as
 *
 *     end(c, r) = E_c + theta_d(r) + noise        (d(r): r's clock domain)
 *
 * Only differences between domains are observable: an instance whose
 * members all share one domain says nothing about the offsets between
 * domains (its E_c absorbs that domain's theta) and is left out of the
 * fit.  Starting values: per domain pair the median over shared instances
 * of the difference of the two domains' median ends, walked along a
 * maximum spanning tree of the pairs (weight: instances observed).  Then
 * median polish on the cross-domain instances (alternating medians: E_c
 * over the members of c, theta_d over the instances of d), which ignores
 * outliers such as a rank whose kernel ran on after the others.  The fit
 * is anchored in each connected component (domains linked by shared
 * instances) at the reference rank's domain.
 *
 * Causality check: no rank can finish an instance before another member
 * started it.  On corrected clocks this gives, for domain a and any member
 * b of another domain, s_a - e'_b <= theta_a <= e_a - s'_b.  The
 * intersection over all instances (other domains at their estimates) is
 * [lo, hi]; an estimate outside it is clamped into it.
 *
 * Evidence: a domain's offset rests on the instances that span it and
 * another domain.  With fewer than min_samples of them (default 3) the
 * offset is not applied: it stays 0 throughout the fit (the other domains
 * are fitted around its raw clock), its free estimate is reported in
 * end_estimate_ns and it is flagged FEW_SAMPLES.  One or two collectives
 * cannot tell a clock error from a late rank.
 */
#include "coll_internal.h"
#include "search.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct sample {
    uint64_t key;
    int64_t seq;
    int64_t start, end;
    int64_t dkey;     /* domain key */
    int32_t rank;
    int32_t dom;      /* dense domain index */
    int32_t inst;     /* dense instance index */
    uint8_t seq_src;
} sample;

static int cmp_sample(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    int c = tlm_coll_cmp_u64(x->key, y->key);
    if (!c)
        c = tlm_coll_cmp_i64(x->seq, y->seq);
    if (!c)
        c = tlm_coll_cmp_i64(x->seq_src, y->seq_src);
    if (!c)
        c = tlm_coll_cmp_i64(x->rank, y->rank);
    return c;
}

static int cmp_rank_skew(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->start, y->start);
    return c ? c : tlm_coll_cmp_i64(x->end, y->end);
}

static int cmp_i64v(const void *a, const void *b)
{
    return tlm_coll_cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

void tlm_coll_clock_opts_init(tlm_coll_clock_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->max_iter = 10;
    opts->tol_ns = 1000;
    opts->large_ratio = 0.5;
    opts->min_samples = TLM_COLL_CLOCK_MIN_SAMPLES;
}

void tlm_coll_clock_offsets(const tlm_coll_clock *clk, size_t n,
                            int64_t *offset_ns)
{
    if (!offset_ns)
        return;
    for (size_t i = 0; i < n; i++)
        offset_ns[i] = clk ? clk[i].offset_ns : 0;
}

static int32_t uf_find(int32_t *p, int32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

/* Joins the sets of x and y (the lower root stays the root); 1 when they
 * were apart. */
static int uf_union(int32_t *p, int32_t x, int32_t y)
{
    x = uf_find(p, x);
    y = uf_find(p, y);
    if (x == y)
        return 0;
    if (x < y)
        p[y] = x;
    else
        p[x] = y;
    return 1;
}

static int64_t i64abs(int64_t v)
{
    return tlm_coll_sat_abs(v);
}

/* Saturating a - b (times of traces that may lie far apart). */
static int64_t sub(int64_t a, int64_t b)
{
    return tlm_coll_sat_sub(a, b);
}

/* One observation of theta_b - theta_a (a < b) from one instance. */
typedef struct dedge {
    int32_t a, b;
    int64_t diff;  /* median end of b's members - median end of a's */
    int64_t count; /* after grouping: instances behind the edge */
} dedge;

typedef struct dend {
    int32_t dom;
    int64_t end;
} dend;

static int cmp_dend(const void *p, const void *q)
{
    const dend *x = p, *y = q;
    int c = tlm_coll_cmp_i64(x->dom, y->dom);
    return c ? c : tlm_coll_cmp_i64(x->end, y->end);
}

static int cmp_dedge(const void *p, const void *q)
{
    const dedge *x = p, *y = q;
    int c = tlm_coll_cmp_i64(x->a, y->a);
    if (!c)
        c = tlm_coll_cmp_i64(x->b, y->b);
    return c ? c : tlm_coll_cmp_i64(x->diff, y->diff);
}

/* heaviest first, then by endpoints: a deterministic spanning tree */
static int cmp_dedge_weight(const void *p, const void *q)
{
    const dedge *x = p, *y = q;
    int c = tlm_coll_cmp_i64(y->count, x->count);
    if (!c)
        c = tlm_coll_cmp_i64(x->a, y->a);
    return c ? c : tlm_coll_cmp_i64(x->b, y->b);
}

/*
 * Starting offsets from relative information only.  In each instance the
 * members of one domain give that domain's median end; the differences to
 * the instance's lowest domain are observations of theta_b - theta_a (an
 * instance inside one domain gives none).  Each domain pair's difference
 * is the median of its observations; a maximum spanning tree of the pairs
 * (weight: instances observed) is walked from each component's anchor.
 * Marks cross[c] = 1 for instances spanning two or more domains.
 * Returns 0, or -1 when out of memory.
 */
static int tree_offsets(const tlm_alloc *a, const sample *s, size_t ns,
                        const size_t *istart, size_t ni, size_t nd,
                        const int32_t *ref_dom, int32_t *comp,
                        int64_t *theta, uint8_t *cross, int64_t *tmp)
{
    size_t ndd = nd ? nd : 1;
    dend *de = tlm_coll_malloc(a, (ns ? ns : 1) * sizeof *de);
    dedge *ed = tlm_coll_malloc(a, (ns ? ns : 1) * sizeof *ed);
    int32_t *uf = tlm_coll_malloc(a, ndd * sizeof *uf);
    size_t *adj_start = tlm_coll_calloc(a, ndd + 1, sizeof *adj_start);
    size_t *adj = tlm_coll_malloc(a, (2 * ndd) * sizeof *adj);
    int32_t *queue = tlm_coll_malloc(a, ndd * sizeof *queue);
    uint8_t *done = tlm_coll_calloc(a, ndd, sizeof *done);
    int rc = -1;
    size_t ne = 0, ng = 0, nt = 0;
    if (!de || !ed || !uf || !adj_start || !adj || !queue || !done)
        goto out;
    for (size_t c = 0; c < ni; c++) {
        size_t k = 0;
        for (size_t q = istart[c]; q < istart[c + 1]; q++) {
            de[k].dom = s[q].dom;
            de[k].end = s[q].end;
            k++;
        }
        qsort(de, k, sizeof *de, cmp_dend);
        cross[c] = de[0].dom != de[k - 1].dom;
        if (!cross[c])
            continue;
        int64_t m0 = 0;
        for (size_t i = 0; i < k;) {
            size_t j = i;
            size_t nk = 0;
            while (j < k && de[j].dom == de[i].dom)
                tmp[nk++] = de[j++].end;
            int64_t med = tlm_coll_median_i64(tmp, nk);
            if (i == 0) {
                m0 = med;
            } else {
                ed[ne].a = de[0].dom;
                ed[ne].b = de[i].dom;
                ed[ne].diff = sub(med, m0);
                ed[ne].count = 1;
                ne++;
            }
            i = j;
        }
    }
    /* one edge per domain pair: median difference */
    qsort(ed, ne, sizeof *ed, cmp_dedge);
    for (size_t i = 0; i < ne;) {
        size_t j = i, nk = 0;
        while (j < ne && ed[j].a == ed[i].a && ed[j].b == ed[i].b)
            tmp[nk++] = ed[j++].diff;
        dedge g = ed[i];
        g.diff = tlm_coll_median_i64(tmp, nk);
        g.count = (int64_t)nk;
        ed[ng++] = g;
        i = j;
    }
    /* maximum spanning tree (Kruskal), kept in ed[0..nt) */
    qsort(ed, ng, sizeof *ed, cmp_dedge_weight);
    for (size_t d = 0; d < nd; d++)
        uf[d] = (int32_t)d;
    for (size_t i = 0; i < ng; i++)
        if (uf_union(uf, ed[i].a, ed[i].b))
            ed[nt++] = ed[i];
    /* adjacency (edge indices) and a walk from each anchor */
    for (size_t i = 0; i < nt; i++) {
        adj_start[ed[i].a + 1]++;
        adj_start[ed[i].b + 1]++;
    }
    for (size_t d = 0; d < nd; d++)
        adj_start[d + 1] += adj_start[d];
    {
        size_t *fill = tlm_coll_malloc(a, ndd * sizeof *fill);
        if (!fill)
            goto out;
        memcpy(fill, adj_start, ndd * sizeof *fill);
        for (size_t i = 0; i < nt; i++) {
            adj[fill[ed[i].a]++] = i;
            adj[fill[ed[i].b]++] = i;
        }
        tlm_coll_mfree(a, fill);
    }
    for (size_t d = 0; d < nd; d++)
        theta[d] = 0;
    for (size_t r = 0; r < nd; r++) {
        int32_t root = uf_find(comp, (int32_t)r);
        int32_t anchor = ref_dom[root];
        if (anchor < 0 || done[anchor])
            continue;
        size_t qh = 0, qt = 0;
        queue[qt++] = anchor;
        done[anchor] = 1;
        while (qh < qt) {
            int32_t d = queue[qh++];
            for (size_t p = adj_start[d]; p < adj_start[d + 1]; p++) {
                const dedge *e = &ed[adj[p]];
                int32_t o = e->a == d ? e->b : e->a;
                if (done[o])
                    continue;
                theta[o] = e->a == d ? tlm_coll_sat_add(theta[d], e->diff)
                                     : sub(theta[d], e->diff);
                done[o] = 1;
                queue[qt++] = o;
            }
        }
    }
    rc = 0;
out:
    tlm_coll_mfree(a, de);
    tlm_coll_mfree(a, ed);
    tlm_coll_mfree(a, uf);
    tlm_coll_mfree(a, adj_start);
    tlm_coll_mfree(a, adj);
    tlm_coll_mfree(a, queue);
    tlm_coll_mfree(a, done);
    return rc;
}

/* State of one estimate, passed between its steps.  Samples s[] are sorted
 * by instance; istart[c] is where instance c begins; bydom[dstart[d] ..
 * dstart[d + 1]) are the indices of domain d's samples. */
typedef struct clk {
    const tlm_alloc *a;
    tlm_coll_clock_opts o;
    int32_t nranks;
    sample *s;
    size_t ns, ni, nd;
    int64_t *tmp, *theta, *E, *dkeys;
    int64_t *lo, *hi, *est, *mad;
    int64_t *nviol, *nsamp_r, *skew;
    size_t *istart, *bydom, *dstart;
    int32_t *parent, *ref_dom, *ref_rank;
    uint8_t *cross;
    uint32_t *dflags;
    int64_t *dsamp;    /* per domain: cross-domain instances it joins */
    int64_t *free_est; /* per domain: the estimate of a FEW one */
    uint8_t *few;      /* per domain: too few samples, offset kept 0 */
    tlm_coll_clock *res;
} clk;

/* Frees the work arrays of an estimate (not the result). */
static void clk_free(clk *c)
{
    const tlm_alloc *a = c->a;
    tlm_coll_mfree(a, c->dflags);
    tlm_coll_mfree(a, c->dsamp);
    tlm_coll_mfree(a, c->free_est);
    tlm_coll_mfree(a, c->few);
    tlm_coll_mfree(a, c->cross);
    tlm_coll_mfree(a, c->s);
    tlm_coll_mfree(a, c->tmp);
    tlm_coll_mfree(a, c->theta);
    tlm_coll_mfree(a, c->E);
    tlm_coll_mfree(a, c->dkeys);
    tlm_coll_mfree(a, c->lo);
    tlm_coll_mfree(a, c->hi);
    tlm_coll_mfree(a, c->est);
    tlm_coll_mfree(a, c->mad);
    tlm_coll_mfree(a, c->nviol);
    tlm_coll_mfree(a, c->nsamp_r);
    tlm_coll_mfree(a, c->skew);
    tlm_coll_mfree(a, c->istart);
    tlm_coll_mfree(a, c->bydom);
    tlm_coll_mfree(a, c->dstart);
    tlm_coll_mfree(a, c->parent);
    tlm_coll_mfree(a, c->ref_dom);
    tlm_coll_mfree(a, c->ref_rank);
}

/* End (exclusive) of the instance that starts at sample i. */
static size_t inst_end(const sample *s, size_t ns, size_t i)
{
    size_t j = i + 1;
    while (j < ns && s[j].key == s[i].key && s[j].seq == s[i].seq &&
           s[j].seq_src == s[i].seq_src)
        j++;
    return j;
}

void tlm_coll_clock_pts_of(const tlm_coll_member *mem, size_t n,
                           tlm_coll_clock_pt *out)
{
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_member *m = &mem[i];
        tlm_coll_clock_pt *p = &out[i];
        memset(p, 0, sizeof *p);
        p->match_key = m->match_key;
        p->seq = m->seq;
        p->start_ns = m->start_ns;
        p->end_ns = m->end_ns;
        p->bytes = m->bytes;
        p->trace_rank = m->trace_rank;
        p->coll = m->coll;
        p->seq_src = m->seq_src;
        p->sig_mismatch = m->sig_mismatch;
    }
}

/* Samples from the implicit-sync members (mem, or their points pts when
 * mem is NULL; sorted by instance, singleton instances dropped) and the
 * zeroed result.  0, or -1 when out of memory. */
static int clk_collect(clk *c, const tlm_coll_member *mem,
                       const tlm_coll_clock_pt *pts, size_t n_mem)
{
    const tlm_coll_clock_opts *o = &c->o;
    c->res = tlm_coll_calloc(c->a, c->nranks ? (size_t)c->nranks : 1,
                             sizeof *c->res);
    c->s = tlm_coll_malloc(c->a, (n_mem ? n_mem : 1) * sizeof *c->s);
    if (!c->res || !c->s)
        return -1;
    sample *s = c->s;
    size_t ns = 0;
    for (size_t i = 0; i < n_mem; i++) {
        tlm_coll_clock_pt one;
        if (mem)
            tlm_coll_clock_pts_of(&mem[i], 1, &one);
        const tlm_coll_clock_pt *m = mem ? &one : &pts[i];
        if (!tlm_coll_type_implicit_sync(m->coll) || m->sig_mismatch ||
            m->trace_rank < 0 || m->trace_rank >= c->nranks)
            continue;
        int64_t b = m->bytes < 0 ? 0 : m->bytes;
        if (b < o->min_bytes)
            continue;
        sample *x = &s[ns++];
        memset(x, 0, sizeof *x);
        x->key = m->match_key;
        x->seq = m->seq;
        x->seq_src = m->seq_src;
        x->start = m->start_ns;
        x->end = m->end_ns;
        x->rank = m->trace_rank;
        if (o->domain_of_rank &&
            (size_t)m->trace_rank < o->n_domain_of_rank)
            x->dkey = o->domain_of_rank[m->trace_rank];
        else
            x->dkey = ((int64_t)1 << 40) + m->trace_rank;
    }
    qsort(s, ns, sizeof *s, cmp_sample);
    /* instances with >= 2 members (drop singletons) */
    size_t keep = 0;
    for (size_t i = 0; i < ns;) {
        size_t j = inst_end(s, ns, i);
        if (j - i >= 2)
            for (size_t q = i; q < j; q++)
                s[keep++] = s[q];
        i = j;
    }
    c->ns = keep;
    return 0;
}

/* Dense instance (istart, s[].inst) and domain (s[].dom) indices.  0, or
 * -1 when out of memory. */
static int clk_index(clk *c)
{
    sample *s = c->s;
    size_t ns = c->ns;
    c->istart = tlm_coll_malloc(c->a, (ns + 1) * sizeof *c->istart);
    c->dkeys = tlm_coll_malloc(c->a, (ns ? ns : 1) * sizeof *c->dkeys);
    c->tmp = tlm_coll_malloc(c->a, (ns ? ns : 1) * sizeof *c->tmp);
    if (!c->istart || !c->dkeys || !c->tmp)
        return -1;
    for (size_t i = 0; i < ns;) {
        size_t j = inst_end(s, ns, i);
        c->istart[c->ni] = i;
        for (size_t q = i; q < j; q++)
            s[q].inst = (int32_t)c->ni;
        c->ni++;
        i = j;
    }
    c->istart[c->ni] = ns;
    /* dense domains */
    int64_t *dkeys = c->dkeys;
    for (size_t i = 0; i < ns; i++)
        dkeys[i] = s[i].dkey;
    qsort(dkeys, ns, sizeof *dkeys, cmp_i64v);
    for (size_t i = 0; i < ns; i++)
        if (i == 0 || dkeys[i] != dkeys[i - 1])
            dkeys[c->nd++] = dkeys[i];
    for (size_t i = 0; i < ns; i++) {
        s[i].dom = (int32_t)tlm_lower_bound_i64(dkeys, c->nd, s[i].dkey);
    }
    return 0;
}

/* The per-domain, per-instance and per-rank work arrays.  0, or -1 when
 * out of memory. */
static int clk_alloc(clk *c)
{
    const tlm_alloc *a = c->a;
    size_t ndd = c->nd ? c->nd : 1, ni1 = c->ni ? c->ni : 1;
    size_t nr1 = (size_t)(c->nranks ? c->nranks : 1);
    c->theta = tlm_coll_calloc(a, ndd, sizeof *c->theta);
    c->E = tlm_coll_calloc(a, ni1, sizeof *c->E);
    c->lo = tlm_coll_malloc(a, ndd * sizeof *c->lo);
    c->hi = tlm_coll_malloc(a, ndd * sizeof *c->hi);
    c->est = tlm_coll_calloc(a, ndd, sizeof *c->est);
    c->mad = tlm_coll_calloc(a, ndd, sizeof *c->mad);
    c->parent = tlm_coll_malloc(a, ndd * sizeof *c->parent);
    c->ref_dom = tlm_coll_malloc(a, ndd * sizeof *c->ref_dom);
    c->ref_rank = tlm_coll_malloc(a, ndd * sizeof *c->ref_rank);
    c->bydom = tlm_coll_malloc(a, (c->ns ? c->ns : 1) * sizeof *c->bydom);
    c->dstart = tlm_coll_calloc(a, ndd + 1, sizeof *c->dstart);
    c->nviol = tlm_coll_calloc(a, nr1, sizeof *c->nviol);
    c->nsamp_r = tlm_coll_calloc(a, nr1, sizeof *c->nsamp_r);
    c->skew = tlm_coll_calloc(a, ni1, sizeof *c->skew);
    if (!c->theta || !c->E || !c->lo || !c->hi || !c->est || !c->mad ||
        !c->parent || !c->ref_dom || !c->ref_rank || !c->bydom ||
        !c->dstart || !c->nviol || !c->nsamp_r || !c->skew)
        return -1;
    return 0;
}

/* Samples grouped by domain (counting sort, stable).  0, or -1 when out of
 * memory. */
static int clk_group_domains(clk *c)
{
    size_t nd = c->nd;
    for (size_t i = 0; i < c->ns; i++)
        c->dstart[c->s[i].dom + 1]++;
    for (size_t d = 0; d < nd; d++)
        c->dstart[d + 1] += c->dstart[d];
    size_t *fill = tlm_coll_malloc(c->a, (nd ? nd : 1) * sizeof *fill);
    if (!fill)
        return -1;
    for (size_t d = 0; d < nd; d++)
        fill[d] = c->dstart[d];
    for (size_t i = 0; i < c->ns; i++)
        c->bydom[fill[c->s[i].dom]++] = i;
    tlm_coll_mfree(c->a, fill);
    return 0;
}

/* Components of domains linked by shared instances (parent[]) and their
 * reference: the reference rank's domain if present, else the domain of
 * the component's lowest rank. */
static void clk_components(clk *c)
{
    const sample *s = c->s;
    int32_t *parent = c->parent, *ref_dom = c->ref_dom;
    int32_t *ref_rank = c->ref_rank;
    int32_t want = c->o.reference_rank;
    for (size_t d = 0; d < c->nd; d++)
        parent[d] = (int32_t)d;
    for (size_t i = 0; i < c->ni; i++)
        for (size_t q = c->istart[i] + 1; q < c->istart[i + 1]; q++)
            uf_union(parent, s[c->istart[i]].dom, s[q].dom);
    for (size_t d = 0; d < c->nd; d++) {
        ref_dom[d] = -1;
        ref_rank[d] = INT32_MAX;
    }
    for (size_t i = 0; i < c->ns; i++) {
        int32_t root = uf_find(parent, s[i].dom);
        if (s[i].rank == want) {
            ref_dom[root] = s[i].dom;
            ref_rank[root] = s[i].rank;
        }
    }
    for (size_t i = 0; i < c->ns; i++) {
        int32_t root = uf_find(parent, s[i].dom);
        if (ref_dom[root] >= 0 && ref_rank[root] == want)
            continue;
        if (s[i].rank < ref_rank[root]) {
            ref_rank[root] = s[i].rank;
            ref_dom[root] = s[i].dom;
        }
    }
}

/* Median over instance i's members of their ends on corrected clocks. */
static int64_t inst_median_end(const clk *c, size_t i)
{
    size_t k = 0;
    for (size_t q = c->istart[i]; q < c->istart[i + 1]; q++)
        c->tmp[k++] = sub(c->s[q].end, c->theta[c->s[q].dom]);
    return tlm_coll_median_i64(c->tmp, k);
}

/* Evidence per domain (dsamp[]: cross-domain instances it takes part in;
 * its samples are in instance order in bydom) and few[]: below
 * min_samples and not its component's anchor.  0, or -1 when out of
 * memory. */
static int clk_evidence(clk *c)
{
    size_t ndd = c->nd ? c->nd : 1;
    c->dsamp = tlm_coll_calloc(c->a, ndd, sizeof *c->dsamp);
    c->free_est = tlm_coll_calloc(c->a, ndd, sizeof *c->free_est);
    c->few = tlm_coll_calloc(c->a, ndd, sizeof *c->few);
    if (!c->dsamp || !c->free_est || !c->few)
        return -1;
    for (size_t d = 0; d < c->nd; d++) {
        int32_t last = -1;
        for (size_t q = c->dstart[d]; q < c->dstart[d + 1]; q++) {
            const sample *x = &c->s[c->bydom[q]];
            if (c->cross[x->inst] && x->inst != last)
                c->dsamp[d]++;
            last = x->inst;
        }
        int32_t root = uf_find(c->parent, (int32_t)d);
        c->few[d] = c->o.min_samples > 1 && c->dsamp[d] < c->o.min_samples &&
                    c->ref_dom[root] != (int32_t)d;
    }
    return 0;
}

/* Relative fit: start from the spanning tree of pairwise differences, then
 * median polish over the instances that span two or more domains (one
 * inside a domain says nothing about offsets between domains; with its own
 * E_c it would only pull toward the current estimate).  Leaves the fit in
 * theta[] and est[].  0, or -1 when out of memory. */
static int clk_fit(clk *c)
{
    const sample *s = c->s;
    int64_t *theta = c->theta, *est = c->est, *tmp = c->tmp;
    c->cross = tlm_coll_calloc(c->a, c->ni ? c->ni : 1, sizeof *c->cross);
    if (!c->cross || tree_offsets(c->a, s, c->ns, c->istart, c->ni, c->nd,
                                  c->ref_dom, c->parent, theta, c->cross,
                                  tmp) ||
        clk_evidence(c))
        return -1;
    for (size_t d = 0; d < c->nd; d++)
        if (c->few[d]) { /* not applied: fitted around its raw clock */
            c->free_est[d] = theta[d];
            theta[d] = 0;
        }
    for (int it = 0; it < c->o.max_iter; it++) {
        for (size_t i = 0; i < c->ni; i++)
            if (c->cross[i])
                c->E[i] = inst_median_end(c, i);
        int changed = 0;
        for (size_t d = 0; d < c->nd; d++) {
            size_t k = 0;
            for (size_t q = c->dstart[d]; q < c->dstart[d + 1]; q++) {
                const sample *x = &s[c->bydom[q]];
                if (c->cross[x->inst])
                    tmp[k++] = sub(x->end, c->E[x->inst]);
            }
            est[d] = k ? tlm_coll_median_i64(tmp, k) : 0;
        }
        for (size_t d = 0; d < c->nd; d++) {
            int32_t root = uf_find(c->parent, (int32_t)d);
            int64_t v = sub(est[d], est[c->ref_dom[root]]);
            if (c->few[d]) {
                changed |= v != c->free_est[d];
                c->free_est[d] = v;
                continue;
            }
            if (v != theta[d])
                changed = 1;
            theta[d] = v;
        }
        if (!changed)
            break;
    }
    for (size_t d = 0; d < c->nd; d++)
        est[d] = c->few[d] ? c->free_est[d] : theta[d];
    return 0;
}

/* The best value seen and the best from a domain other than the best's. */
typedef struct top2 {
    int64_t v1, v2;
    int32_t dom; /* domain of v1, -1 before the first */
} top2;

/* Adds value v of domain dom; "best" is the largest when want_max, else
 * the smallest. */
static void top2_add(top2 *t, int64_t v, int32_t dom, int want_max)
{
    if (want_max ? v > t->v1 : v < t->v1) {
        if (dom != t->dom)
            t->v2 = t->v1;
        t->v1 = v;
        t->dom = dom;
    } else if (dom != t->dom && (want_max ? v > t->v2 : v < t->v2)) {
        t->v2 = v;
    }
}

/* The best value of the domains other than dom. */
static int64_t top2_other(const top2 *t, int32_t dom)
{
    return dom == t->dom ? t->v2 : t->v1;
}

/* Causality bounds lo[] / hi[] given the other domains' estimates, and the
 * raw start skew of every instance. */
static void clk_bounds(clk *c)
{
    const sample *s = c->s;
    int64_t tol = c->o.tol_ns;
    for (size_t d = 0; d < c->nd; d++) {
        c->lo[d] = INT64_MIN;
        c->hi[d] = INT64_MAX;
    }
    for (size_t i = 0; i < c->ni; i++) {
        /* top-2 by distinct domain of corrected start (max) and corrected
         * end (min) */
        top2 st = {INT64_MIN, INT64_MIN, -1}, et = {INT64_MAX, INT64_MAX, -1};
        int64_t smin = INT64_MAX, smax = INT64_MIN;
        for (size_t q = c->istart[i]; q < c->istart[i + 1]; q++) {
            if (s[q].start < smin)
                smin = s[q].start;
            if (s[q].start > smax)
                smax = s[q].start;
            top2_add(&st, sub(s[q].start, c->theta[s[q].dom]), s[q].dom, 1);
            top2_add(&et, sub(s[q].end, c->theta[s[q].dom]), s[q].dom, 0);
        }
        c->skew[i] = sub(smax, smin);
        for (size_t q = c->istart[i]; q < c->istart[i + 1]; q++) {
            int32_t d = s[q].dom;
            int64_t so = top2_other(&st, d); /* max corrected start */
            int64_t eo = top2_other(&et, d); /* min corrected end */
            if (so != INT64_MIN) {
                int64_t h = tlm_coll_sat_add(sub(s[q].end, so), tol);
                if (h < c->hi[d])
                    c->hi[d] = h;
            }
            if (eo != INT64_MAX) {
                int64_t l = sub(sub(s[q].start, eo), tol);
                if (l > c->lo[d])
                    c->lo[d] = l;
            }
        }
    }
}

/* Clamps each offset into its bounds (never the anchors) and notes the
 * flags of each domain.  0, or -1 when out of memory. */
static int clk_clamp(clk *c)
{
    int64_t *theta = c->theta;
    size_t ndd = c->nd ? c->nd : 1;
    c->dflags = (uint32_t *)tlm_coll_calloc(c->a, ndd, sizeof *c->dflags);
    if (!c->dflags)
        return -1;
    for (size_t d = 0; d < c->nd; d++) {
        int32_t root = uf_find(c->parent, (int32_t)d);
        if (c->few[d])
            c->dflags[d] |= TLM_COLL_CLOCK_FEW_SAMPLES;
        if (c->lo[d] > c->hi[d]) {
            c->dflags[d] |= TLM_COLL_CLOCK_INFEASIBLE;
            continue;
        }
        if (c->ref_dom[root] == (int32_t)d || c->few[d])
            continue;
        if (theta[d] < c->lo[d]) {
            theta[d] = c->lo[d];
            c->dflags[d] |= TLM_COLL_CLOCK_CLAMPED;
        } else if (theta[d] > c->hi[d]) {
            theta[d] = c->hi[d];
            c->dflags[d] |= TLM_COLL_CLOCK_CLAMPED;
        }
    }
    return 0;
}

/* Residual spread (mad[] per domain) and causality violations and samples
 * per rank on the final offsets. */
static void clk_residuals(clk *c)
{
    const sample *s = c->s;
    const int64_t *theta = c->theta;
    for (size_t i = 0; i < c->ni; i++) {
        c->E[i] = inst_median_end(c, i);
        top2 st = {INT64_MIN, INT64_MIN, -1};
        for (size_t q = c->istart[i]; q < c->istart[i + 1]; q++)
            top2_add(&st, sub(s[q].start, theta[s[q].dom]), s[q].dom, 1);
        for (size_t q = c->istart[i]; q < c->istart[i + 1]; q++) {
            int64_t so = top2_other(&st, s[q].dom);
            if (so != INT64_MIN &&
                sub(s[q].end, theta[s[q].dom]) < sub(so, c->o.tol_ns))
                c->nviol[s[q].rank]++;
            c->nsamp_r[s[q].rank]++;
        }
    }
    for (size_t d = 0; d < c->nd; d++) {
        size_t k = 0;
        for (size_t q = c->dstart[d]; q < c->dstart[d + 1]; q++) {
            const sample *x = &s[c->bydom[q]];
            c->tmp[k++] = i64abs(sub(sub(x->end, theta[d]), c->E[x->inst]));
        }
        c->mad[d] = k ? tlm_coll_median_i64(c->tmp, k) : 0;
    }
}

/* The result per rank: defaults for ranks without data, then each sampled
 * rank's domain values. */
static void clk_write(clk *c)
{
    const tlm_coll_clock_opts *o = &c->o;
    for (int32_t r = 0; r < c->nranks; r++) {
        tlm_coll_clock *ck = &c->res[r];
        ck->trace_rank = r;
        ck->domain = (o->domain_of_rank && (size_t)r < o->n_domain_of_rank)
                         ? o->domain_of_rank[r]
                         : r;
        ck->reference_rank = r;
        ck->lo_ns = INT64_MIN;
        ck->hi_ns = INT64_MAX;
        ck->flags = TLM_COLL_CLOCK_NO_DATA;
    }
    for (size_t d = 0; d < c->nd; d++) {
        int32_t root = uf_find(c->parent, (int32_t)d);
        /* ranks of this domain with samples */
        for (size_t q = c->dstart[d]; q < c->dstart[d + 1]; q++) {
            const sample *x = &c->s[c->bydom[q]];
            tlm_coll_clock *ck = &c->res[x->rank];
            ck->offset_ns = c->theta[d];
            ck->end_estimate_ns = c->est[d];
            ck->lo_ns = c->lo[d];
            ck->hi_ns = c->hi[d];
            ck->mad_ns = c->mad[d];
            ck->reference_rank = c->ref_rank[root];
            ck->flags = c->dflags[d];
            ck->n_offset_samples = c->dsamp[d];
            if (x->rank == c->ref_rank[root])
                ck->flags |= TLM_COLL_CLOCK_REFERENCE;
        }
    }
}

/* Median raw start skew per rank, counts and the LARGE / NOISY flags:
 * (rank, skew) pairs sorted by rank (reuses s[].start / s[].end as
 * scratch, so this comes last). */
static void clk_write_skew(clk *c)
{
    sample *s = c->s;
    size_t ns = c->ns;
    for (size_t i = 0; i < ns; i++) {
        s[i].start = s[i].rank;
        s[i].end = c->skew[s[i].inst];
    }
    qsort(s, ns, sizeof *s, cmp_rank_skew);
    for (size_t i = 0; i < ns;) {
        size_t j = i, k = 0;
        while (j < ns && s[j].start == s[i].start)
            c->tmp[k++] = s[j++].end;
        tlm_coll_clock *ck = &c->res[s[i].start];
        ck->n_samples = c->nsamp_r[s[i].start];
        ck->n_causality_violations = c->nviol[s[i].start];
        ck->median_skew_ns = tlm_coll_median_i64(c->tmp, k);
        int64_t ao = i64abs(ck->offset_ns);
        if (ao > c->o.tol_ns &&
            (double)ao >= c->o.large_ratio * (double)ck->median_skew_ns)
            ck->flags |= TLM_COLL_CLOCK_LARGE;
        if (ao > 0 && ck->mad_ns >= ao)
            ck->flags |= TLM_COLL_CLOCK_NOISY;
        i = j;
    }
}

/* The estimate over members (mem) or their points (pts, mem NULL). */
static tlm_status clk_estimate(const tlm_coll_member *mem,
                               const tlm_coll_clock_pt *pts, size_t n_mem,
                               const tlm_coll_clock_opts *opts,
                               tlm_coll_clock **out, size_t *n_out,
                               tlm_error *err)
{
    if (out)
        *out = NULL;
    if (n_out)
        *n_out = 0;
    if (!out || !n_out || (!mem && !pts && n_mem))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_coll_clock_estimate: NULL argument");
    clk c;
    memset(&c, 0, sizeof c);
    if (opts)
        c.o = *opts;
    else
        tlm_coll_clock_opts_init(&c.o);
    if (c.o.max_iter <= 0)
        c.o.max_iter = 10;
    c.a = c.o.alloc;
    c.nranks = c.o.n_ranks;
    if (c.nranks <= 0) {
        c.nranks = 0;
        for (size_t i = 0; i < n_mem; i++) {
            int32_t r = mem ? mem[i].trace_rank : pts[i].trace_rank;
            if (r >= c.nranks)
                c.nranks = r + 1;
        }
    }
    if (clk_collect(&c, mem, pts, n_mem) || clk_index(&c) || clk_alloc(&c) ||
        clk_group_domains(&c))
        goto nomem;
    clk_components(&c);
    if (clk_fit(&c))
        goto nomem;
    clk_bounds(&c);
    if (clk_clamp(&c))
        goto nomem;
    clk_residuals(&c);
    clk_write(&c);
    clk_write_skew(&c);
    clk_free(&c);
    *out = c.res;
    *n_out = (size_t)c.nranks;
    return TLM_OK;
nomem:
    clk_free(&c);
    tlm_coll_mfree(c.a, c.res);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "out of memory while estimating clock offsets");
}

tlm_status tlm_coll_clock_estimate(const tlm_coll_member *mem,
                                   size_t n_mem,
                                   const tlm_coll_clock_opts *opts,
                                   tlm_coll_clock **out, size_t *n_out,
                                   tlm_error *err)
{
    return clk_estimate(mem, NULL, n_mem, opts, out, n_out, err);
}

tlm_status tlm_coll_clock_estimate_pts(const tlm_coll_clock_pt *pts,
                                       size_t n_pts,
                                       const tlm_coll_clock_opts *opts,
                                       tlm_coll_clock **out, size_t *n_out,
                                       tlm_error *err)
{
    return clk_estimate(NULL, pts, n_pts, opts, out, n_out, err);
}
