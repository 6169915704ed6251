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
 */
#include "coll_internal.h"

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

static int64_t i64abs(int64_t v)
{
    return v < 0 ? -v : v;
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
                ed[ne].diff = med - m0;
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
    for (size_t i = 0; i < ng; i++) {
        int32_t x = uf_find(uf, ed[i].a), y = uf_find(uf, ed[i].b);
        if (x == y)
            continue;
        if (x < y)
            uf[y] = x;
        else
            uf[x] = y;
        ed[nt++] = ed[i];
    }
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
                theta[o] = e->a == d ? theta[d] + e->diff
                                     : theta[d] - e->diff;
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

tlm_status tlm_coll_clock_estimate(const tlm_coll_member *mem,
                                   size_t n_mem,
                                   const tlm_coll_clock_opts *opts,
                                   tlm_coll_clock **out, size_t *n_out,
                                   tlm_error *err)
{
    if (out)
        *out = NULL;
    if (n_out)
        *n_out = 0;
    if (!out || !n_out || (!mem && n_mem))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_coll_clock_estimate: NULL argument");
    tlm_coll_clock_opts o;
    if (opts)
        o = *opts;
    else
        tlm_coll_clock_opts_init(&o);
    if (o.max_iter <= 0)
        o.max_iter = 10;
    const tlm_alloc *a = o.alloc;
    int32_t nranks = o.n_ranks;
    if (nranks <= 0) {
        nranks = 0;
        for (size_t i = 0; i < n_mem; i++)
            if (mem[i].trace_rank >= nranks)
                nranks = mem[i].trace_rank + 1;
    }
    sample *s = NULL;
    int64_t *tmp = NULL, *theta = NULL, *E = NULL, *dkeys = NULL;
    int64_t *lo = NULL, *hi = NULL, *est = NULL, *mad = NULL;
    int64_t *nviol = NULL, *nsamp_r = NULL, *skew = NULL;
    size_t *istart = NULL, *bydom = NULL, *dstart = NULL;
    int32_t *parent = NULL, *ref_dom = NULL, *ref_rank = NULL;
    tlm_coll_clock *res = NULL;
    uint8_t *cross = NULL;
    size_t ns = 0, ni = 0, nd = 0;

    res = tlm_coll_calloc(a, nranks ? (size_t)nranks : 1, sizeof *res);
    s = tlm_coll_malloc(a, (n_mem ? n_mem : 1) * sizeof *s);
    if (!res || !s)
        goto nomem;
    for (size_t i = 0; i < n_mem; i++) {
        const tlm_coll_member *m = &mem[i];
        if (!tlm_coll_type_implicit_sync(m->coll) || m->sig_mismatch ||
            m->trace_rank < 0 || m->trace_rank >= nranks)
            continue;
        int64_t b = m->bytes < 0 ? 0 : m->bytes;
        if (b < o.min_bytes)
            continue;
        sample *x = &s[ns++];
        memset(x, 0, sizeof *x);
        x->key = m->match_key;
        x->seq = m->seq;
        x->seq_src = m->seq_src;
        x->start = m->start_ns;
        x->end = m->end_ns;
        x->rank = m->trace_rank;
        if (o.domain_of_rank && (size_t)m->trace_rank < o.n_domain_of_rank)
            x->dkey = o.domain_of_rank[m->trace_rank];
        else
            x->dkey = ((int64_t)1 << 40) + m->trace_rank;
    }
    qsort(s, ns, sizeof *s, cmp_sample);
    /* instances with >= 2 members (drop singletons) */
    {
        size_t keep = 0;
        for (size_t i = 0; i < ns;) {
            size_t j = i + 1;
            while (j < ns && s[j].key == s[i].key && s[j].seq == s[i].seq &&
                   s[j].seq_src == s[i].seq_src)
                j++;
            if (j - i >= 2)
                for (size_t q = i; q < j; q++)
                    s[keep++] = s[q];
            i = j;
        }
        ns = keep;
    }
    istart = tlm_coll_malloc(a, (ns + 1) * sizeof *istart);
    dkeys = tlm_coll_malloc(a, (ns ? ns : 1) * sizeof *dkeys);
    tmp = tlm_coll_malloc(a, (ns ? ns : 1) * sizeof *tmp);
    if (!istart || !dkeys || !tmp)
        goto nomem;
    for (size_t i = 0; i < ns;) {
        size_t j = i + 1;
        while (j < ns && s[j].key == s[i].key && s[j].seq == s[i].seq &&
               s[j].seq_src == s[i].seq_src)
            j++;
        istart[ni] = i;
        for (size_t q = i; q < j; q++)
            s[q].inst = (int32_t)ni;
        ni++;
        i = j;
    }
    istart[ni] = ns;
    /* dense domains */
    for (size_t i = 0; i < ns; i++)
        dkeys[i] = s[i].dkey;
    qsort(dkeys, ns, sizeof *dkeys, cmp_i64v);
    for (size_t i = 0; i < ns; i++)
        if (i == 0 || dkeys[i] != dkeys[i - 1])
            dkeys[nd++] = dkeys[i];
    for (size_t i = 0; i < ns; i++) {
        size_t l = 0, h = nd;
        while (l < h) {
            size_t mid = l + (h - l) / 2;
            if (dkeys[mid] < s[i].dkey)
                l = mid + 1;
            else
                h = mid;
        }
        s[i].dom = (int32_t)l;
    }
    size_t ndd = nd ? nd : 1;
    theta = tlm_coll_calloc(a, ndd, sizeof *theta);
    E = tlm_coll_calloc(a, ni ? ni : 1, sizeof *E);
    lo = tlm_coll_malloc(a, ndd * sizeof *lo);
    hi = tlm_coll_malloc(a, ndd * sizeof *hi);
    est = tlm_coll_calloc(a, ndd, sizeof *est);
    mad = tlm_coll_calloc(a, ndd, sizeof *mad);
    parent = tlm_coll_malloc(a, ndd * sizeof *parent);
    ref_dom = tlm_coll_malloc(a, ndd * sizeof *ref_dom);
    ref_rank = tlm_coll_malloc(a, ndd * sizeof *ref_rank);
    bydom = tlm_coll_malloc(a, (ns ? ns : 1) * sizeof *bydom);
    dstart = tlm_coll_calloc(a, ndd + 1, sizeof *dstart);
    nviol = tlm_coll_calloc(a, (size_t)(nranks ? nranks : 1), sizeof *nviol);
    nsamp_r = tlm_coll_calloc(a, (size_t)(nranks ? nranks : 1),
                              sizeof *nsamp_r);
    skew = tlm_coll_calloc(a, ni ? ni : 1, sizeof *skew);
    if (!theta || !E || !lo || !hi || !est || !mad || !parent || !ref_dom ||
        !ref_rank || !bydom || !dstart || !nviol || !nsamp_r || !skew)
        goto nomem;
    /* samples grouped by domain (counting sort, stable) */
    for (size_t i = 0; i < ns; i++)
        dstart[s[i].dom + 1]++;
    for (size_t d = 0; d < nd; d++)
        dstart[d + 1] += dstart[d];
    {
        size_t *fill = tlm_coll_malloc(a, ndd * sizeof *fill);
        if (!fill)
            goto nomem;
        for (size_t d = 0; d < nd; d++)
            fill[d] = dstart[d];
        for (size_t i = 0; i < ns; i++)
            bydom[fill[s[i].dom]++] = i;
        tlm_coll_mfree(a, fill);
    }
    /* components */
    for (size_t d = 0; d < nd; d++)
        parent[d] = (int32_t)d;
    for (size_t c = 0; c < ni; c++)
        for (size_t q = istart[c] + 1; q < istart[c + 1]; q++) {
            int32_t x = uf_find(parent, s[istart[c]].dom);
            int32_t y = uf_find(parent, s[q].dom);
            if (x != y) {
                if (x < y)
                    parent[y] = x;
                else
                    parent[x] = y;
            }
        }
    /* reference per component: the reference rank's domain if present,
     * else the domain of the component's lowest rank */
    for (size_t d = 0; d < nd; d++) {
        ref_dom[d] = -1;
        ref_rank[d] = INT32_MAX;
    }
    for (size_t i = 0; i < ns; i++) {
        int32_t root = uf_find(parent, s[i].dom);
        if (s[i].rank == o.reference_rank) {
            ref_dom[root] = s[i].dom;
            ref_rank[root] = s[i].rank;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        int32_t root = uf_find(parent, s[i].dom);
        if (ref_dom[root] >= 0 && ref_rank[root] == o.reference_rank)
            continue;
        if (s[i].rank < ref_rank[root]) {
            ref_rank[root] = s[i].rank;
            ref_dom[root] = s[i].dom;
        }
    }
    /* relative fit: start from the spanning tree of pairwise
     * differences, then median polish over the instances that span two or
     * more domains (one inside a domain says nothing about offsets between
     * domains; with its own E_c it would only pull toward the current
     * estimate) */
    cross = tlm_coll_calloc(a, ni ? ni : 1, sizeof *cross);
    if (!cross || tree_offsets(a, s, ns, istart, ni, nd, ref_dom, parent,
                               theta, cross, tmp))
        goto nomem;
    for (int it = 0; it < o.max_iter; it++) {
        for (size_t c = 0; c < ni; c++) {
            if (!cross[c])
                continue;
            size_t k = 0;
            for (size_t q = istart[c]; q < istart[c + 1]; q++)
                tmp[k++] = s[q].end - theta[s[q].dom];
            E[c] = tlm_coll_median_i64(tmp, k);
        }
        int changed = 0;
        for (size_t d = 0; d < nd; d++) {
            size_t k = 0;
            for (size_t q = dstart[d]; q < dstart[d + 1]; q++) {
                const sample *x = &s[bydom[q]];
                if (cross[x->inst])
                    tmp[k++] = x->end - E[x->inst];
            }
            est[d] = k ? tlm_coll_median_i64(tmp, k) : 0;
        }
        for (size_t d = 0; d < nd; d++) {
            int32_t root = uf_find(parent, (int32_t)d);
            int64_t v = est[d] - est[ref_dom[root]];
            if (v != theta[d])
                changed = 1;
            theta[d] = v;
        }
        if (!changed)
            break;
    }
    for (size_t d = 0; d < nd; d++)
        est[d] = theta[d];
    /* causality bounds given the other domains' estimates */
    for (size_t d = 0; d < nd; d++) {
        lo[d] = INT64_MIN;
        hi[d] = INT64_MAX;
    }
    for (size_t c = 0; c < ni; c++) {
        /* top-2 by distinct domain of corrected start (max) and corrected
         * end (min) */
        int64_t s1 = INT64_MIN, s2 = INT64_MIN, e1 = INT64_MAX,
                e2 = INT64_MAX;
        int32_t sd = -1, ed = -1;
        int64_t smin = INT64_MAX, smax = INT64_MIN;
        for (size_t q = istart[c]; q < istart[c + 1]; q++) {
            int64_t sc = s[q].start - theta[s[q].dom];
            int64_t ec = s[q].end - theta[s[q].dom];
            if (s[q].start < smin)
                smin = s[q].start;
            if (s[q].start > smax)
                smax = s[q].start;
            if (sc > s1) {
                if (s[q].dom != sd)
                    s2 = s1;
                s1 = sc;
                sd = s[q].dom;
            } else if (s[q].dom != sd && sc > s2) {
                s2 = sc;
            }
            if (ec < e1) {
                if (s[q].dom != ed)
                    e2 = e1;
                e1 = ec;
                ed = s[q].dom;
            } else if (s[q].dom != ed && ec < e2) {
                e2 = ec;
            }
        }
        skew[c] = smax - smin;
        for (size_t q = istart[c]; q < istart[c + 1]; q++) {
            int32_t d = s[q].dom;
            int64_t so = d == sd ? s2 : s1; /* max corrected start of others */
            int64_t eo = d == ed ? e2 : e1; /* min corrected end of others */
            if (so != INT64_MIN) {
                int64_t h = s[q].end - so + o.tol_ns;
                if (h < hi[d])
                    hi[d] = h;
            }
            if (eo != INT64_MAX) {
                int64_t l = s[q].start - eo - o.tol_ns;
                if (l > lo[d])
                    lo[d] = l;
            }
        }
    }
    /* clamp (never the anchors) */
    uint32_t *dflags = (uint32_t *)tlm_coll_calloc(a, ndd, sizeof *dflags);
    if (!dflags)
        goto nomem;
    for (size_t d = 0; d < nd; d++) {
        int32_t root = uf_find(parent, (int32_t)d);
        if (lo[d] > hi[d]) {
            dflags[d] |= TLM_COLL_CLOCK_INFEASIBLE;
            continue;
        }
        if (ref_dom[root] == (int32_t)d)
            continue;
        if (theta[d] < lo[d]) {
            theta[d] = lo[d];
            dflags[d] |= TLM_COLL_CLOCK_CLAMPED;
        } else if (theta[d] > hi[d]) {
            theta[d] = hi[d];
            dflags[d] |= TLM_COLL_CLOCK_CLAMPED;
        }
    }
    /* residual spread and causality violations on final offsets */
    for (size_t c = 0; c < ni; c++) {
        size_t k = 0;
        for (size_t q = istart[c]; q < istart[c + 1]; q++)
            tmp[k++] = s[q].end - theta[s[q].dom];
        E[c] = tlm_coll_median_i64(tmp, k);
        int64_t s1 = INT64_MIN, s2 = INT64_MIN;
        int32_t sd = -1;
        for (size_t q = istart[c]; q < istart[c + 1]; q++) {
            int64_t sc = s[q].start - theta[s[q].dom];
            if (sc > s1) {
                if (s[q].dom != sd)
                    s2 = s1;
                s1 = sc;
                sd = s[q].dom;
            } else if (s[q].dom != sd && sc > s2) {
                s2 = sc;
            }
        }
        for (size_t q = istart[c]; q < istart[c + 1]; q++) {
            int64_t so = s[q].dom == sd ? s2 : s1;
            if (so != INT64_MIN &&
                s[q].end - theta[s[q].dom] < so - o.tol_ns)
                nviol[s[q].rank]++;
            nsamp_r[s[q].rank]++;
        }
    }
    for (size_t d = 0; d < nd; d++) {
        size_t k = 0;
        for (size_t q = dstart[d]; q < dstart[d + 1]; q++) {
            const sample *x = &s[bydom[q]];
            tmp[k++] = i64abs(x->end - theta[d] - E[x->inst]);
        }
        mad[d] = k ? tlm_coll_median_i64(tmp, k) : 0;
    }
    /* output by rank */
    for (int32_t r = 0; r < nranks; r++) {
        tlm_coll_clock *ck = &res[r];
        ck->trace_rank = r;
        ck->domain = (o.domain_of_rank && (size_t)r < o.n_domain_of_rank)
                         ? o.domain_of_rank[r]
                         : r;
        ck->reference_rank = r;
        ck->lo_ns = INT64_MIN;
        ck->hi_ns = INT64_MAX;
        ck->flags = TLM_COLL_CLOCK_NO_DATA;
    }
    for (size_t d = 0; d < nd; d++) {
        int32_t root = uf_find(parent, (int32_t)d);
        /* ranks of this domain with samples */
        for (size_t q = dstart[d]; q < dstart[d + 1]; q++) {
            const sample *x = &s[bydom[q]];
            tlm_coll_clock *ck = &res[x->rank];
            ck->offset_ns = theta[d];
            ck->end_estimate_ns = est[d];
            ck->lo_ns = lo[d];
            ck->hi_ns = hi[d];
            ck->mad_ns = mad[d];
            ck->reference_rank = ref_rank[root];
            ck->flags = dflags[d];
            if (x->rank == ref_rank[root])
                ck->flags |= TLM_COLL_CLOCK_REFERENCE;
        }
    }
    /* median raw start skew per rank, LARGE / NOISY: (rank, skew) pairs
     * sorted by rank (reuses s[].start / s[].end as scratch) */
    for (size_t i = 0; i < ns; i++) {
        s[i].start = s[i].rank;
        s[i].end = skew[s[i].inst];
    }
    qsort(s, ns, sizeof *s, cmp_rank_skew);
    for (size_t i = 0; i < ns;) {
        size_t j = i, k = 0;
        while (j < ns && s[j].start == s[i].start)
            tmp[k++] = s[j++].end;
        tlm_coll_clock *ck = &res[s[i].start];
        ck->n_samples = nsamp_r[s[i].start];
        ck->n_causality_violations = nviol[s[i].start];
        ck->median_skew_ns = tlm_coll_median_i64(tmp, k);
        int64_t ao = i64abs(ck->offset_ns);
        if (ao > o.tol_ns &&
            (double)ao >= o.large_ratio * (double)ck->median_skew_ns)
            ck->flags |= TLM_COLL_CLOCK_LARGE;
        if (ao > 0 && ck->mad_ns >= ao)
            ck->flags |= TLM_COLL_CLOCK_NOISY;
        i = j;
    }
    tlm_coll_mfree(a, dflags);
    tlm_coll_mfree(a, cross);
    tlm_coll_mfree(a, s);
    tlm_coll_mfree(a, tmp);
    tlm_coll_mfree(a, theta);
    tlm_coll_mfree(a, E);
    tlm_coll_mfree(a, dkeys);
    tlm_coll_mfree(a, lo);
    tlm_coll_mfree(a, hi);
    tlm_coll_mfree(a, est);
    tlm_coll_mfree(a, mad);
    tlm_coll_mfree(a, nviol);
    tlm_coll_mfree(a, nsamp_r);
    tlm_coll_mfree(a, skew);
    tlm_coll_mfree(a, istart);
    tlm_coll_mfree(a, bydom);
    tlm_coll_mfree(a, dstart);
    tlm_coll_mfree(a, parent);
    tlm_coll_mfree(a, ref_dom);
    tlm_coll_mfree(a, ref_rank);
    *out = res;
    *n_out = (size_t)nranks;
    return TLM_OK;
nomem:
    tlm_coll_mfree(a, res);
    tlm_coll_mfree(a, cross);
    tlm_coll_mfree(a, s);
    tlm_coll_mfree(a, tmp);
    tlm_coll_mfree(a, theta);
    tlm_coll_mfree(a, E);
    tlm_coll_mfree(a, dkeys);
    tlm_coll_mfree(a, lo);
    tlm_coll_mfree(a, hi);
    tlm_coll_mfree(a, est);
    tlm_coll_mfree(a, mad);
    tlm_coll_mfree(a, nviol);
    tlm_coll_mfree(a, nsamp_r);
    tlm_coll_mfree(a, skew);
    tlm_coll_mfree(a, istart);
    tlm_coll_mfree(a, bydom);
    tlm_coll_mfree(a, dstart);
    tlm_coll_mfree(a, parent);
    tlm_coll_mfree(a, ref_dom);
    tlm_coll_mfree(a, ref_rank);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "out of memory while estimating clock offsets");
}
