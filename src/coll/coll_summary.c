/*
 * coll_summary.c - summaries of matched collective instances and the
 * straggler table.
 *
 * Summaries group instances by (process group, collective type, collective
 * name, dtype, size in bytes) and give mean, median, min, max and p95 of
 * each metric.  Values are sorted before any sum, so the result does not
 * depend on the order in which owners delivered their instances.
 *
 * Straggler rows are integer sums per (process group, rank) and per rank
 * over all groups, so partial tables of several owners merge exactly.
 * "Arrived last" ties (starts within the matcher's tie_ns) share one
 * arrival: 1e6 micro-credits split evenly, and the wait the late ranks
 * caused (the sum of the other members' waits) is split the same way.
 */
#include "coll_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* MARK: - instances set aside */

tlm_coll_aside tlm_coll_inst_aside(uint32_t flags)
{
    if (flags & (TLM_COLL_INST_INCOMPLETE | TLM_COLL_INST_OVERFULL))
        return TLM_COLL_ASIDE_INCOMPLETE;
    if (flags & (TLM_COLL_INST_SIG_MISMATCH | TLM_COLL_INST_GROUP_MISMATCH))
        return TLM_COLL_ASIDE_MISMATCH;
    if (flags & TLM_COLL_INST_LATENCY_SUSPECT)
        return TLM_COLL_ASIDE_SUSPECT;
    return TLM_COLL_ASIDE_NONE;
}

const char *tlm_coll_aside_name(tlm_coll_aside why)
{
    switch (why) {
    case TLM_COLL_ASIDE_INCOMPLETE: return "incomplete";
    case TLM_COLL_ASIDE_MISMATCH: return "mismatch";
    case TLM_COLL_ASIDE_SUSPECT: return "latency_suspect";
    default: return "";
    }
}

size_t tlm_coll_members_complete(const tlm_coll_match_result *res,
                                 tlm_coll_member *out)
{
    size_t n = 0, j = 0;
    const uint32_t bad = TLM_COLL_INST_INCOMPLETE | TLM_COLL_INST_OVERFULL;
    for (size_t i = 0; res && i < res->n_inst; i++) {
        const tlm_coll_instance *in = &res->inst[i];
        while (j < res->n_mem && tlm_coll_inst_mem_cmp(in, &res->mem[j]) > 0)
            j++;
        for (; j < res->n_mem && tlm_coll_inst_mem_cmp(in, &res->mem[j]) == 0;
             j++)
            if (!(in->flags & bad))
                out[n++] = res->mem[j];
    }
    return n;
}

/* MARK: - statistics */

/* Fills st from v[0..n) (NaN skipped; v is reordered). */
static void stat_of(double *v, size_t n, tlm_coll_stat *st)
{
    double sum;
    size_t k = tlm_coll_sort_values(v, n, &sum);
    st->n = (int64_t)k;
    if (k == 0) {
        st->mean = st->median = st->min = st->max = st->p95 = NAN;
        return;
    }
    st->mean = sum / (double)k;
    st->min = v[0];
    st->max = v[k - 1];
    st->median = tlm_coll_quantile_sorted(v, k, 0.5);
    st->p95 = tlm_coll_quantile_sorted(v, k, 0.95);
}

/* A summary group: (pg, collective type, collective name, dtype, bytes),
 * read from an instance or from the row made from one. */
typedef struct group_key {
    uint64_t pg_hash;
    const char *pg_name;
    int64_t coll;
    const char *coll_name;
    int64_t dtype;
    int64_t bytes;
} group_key;

static int cmp_key(group_key x, group_key y)
{
    int c = tlm_coll_cmp_u64(x.pg_hash, y.pg_hash);
    if (!c)
        c = strcmp(x.pg_name, y.pg_name);
    if (!c)
        c = tlm_coll_cmp_i64(x.coll, y.coll);
    if (!c)
        c = strcmp(x.coll_name, y.coll_name);
    if (!c)
        c = tlm_coll_cmp_i64(x.dtype, y.dtype);
    if (!c)
        c = tlm_coll_cmp_i64(x.bytes, y.bytes);
    return c;
}

/* One accessor per type (the same key in another struct). */
static group_key inst_key(const tlm_coll_instance *x)
{
    return (group_key){x->pg_hash, x->pg_name, x->coll,
                       x->coll_name, x->dtype, x->bytes};
}

static group_key row_key(const tlm_coll_summary_row *x)
{
    return (group_key){x->pg_hash, x->pg_name, x->coll,
                       x->coll_name, x->dtype, x->bytes};
}

static int cmp_group(const tlm_coll_instance *x, const tlm_coll_instance *y)
{
    return cmp_key(inst_key(x), inst_key(y));
}

static int cmp_inst_ptr(const void *a, const void *b)
{
    const tlm_coll_instance *x = *(const tlm_coll_instance *const *)a;
    const tlm_coll_instance *y = *(const tlm_coll_instance *const *)b;
    int c = cmp_group(x, y);
    return c ? c : tlm_coll_inst_cmp(x, y);
}

static int cmp_row(const void *a, const void *b)
{
    const tlm_coll_summary_row *x = a, *y = b;
    if (x->total_latency_ns != y->total_latency_ns)
        return x->total_latency_ns > y->total_latency_ns ? -1 : 1;
    return cmp_key(row_key(x), row_key(y));
}

tlm_status tlm_coll_summarize(const tlm_coll_instance *inst, size_t n,
                              int include_incomplete, const tlm_alloc *a,
                              tlm_coll_summary_row **rows, size_t *n_rows,
                              tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)rows, n_rows, inst || !n,
                                     "tlm_coll_summarize", err);
    if (st != TLM_OK)
        return st;
    if (n == 0)
        return TLM_OK;
    const tlm_coll_instance **p = tlm_coll_malloc(a, n * sizeof *p);
    double *v = tlm_coll_malloc(a, n * sizeof *v);
    tlm_coll_summary_row *out = NULL;
    size_t nout = 0, cap = 0;
    if (!p || !v)
        goto nomem;
    for (size_t i = 0; i < n; i++)
        p[i] = &inst[i];
    qsort(p, n, sizeof *p, cmp_inst_ptr);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cmp_group(p[i], p[j]) == 0)
            j++;
        if (!tlm_coll_grow(a, (void **)&out, &cap, nout + 1, sizeof *out))
            goto nomem;
        tlm_coll_summary_row *r = &out[nout++];
        memset(r, 0, sizeof *r);
        /* the group's key and description, from its first instance (as
         * emit_instance takes them from a record: another type) */
        const tlm_coll_instance *f = p[i];
        r->pg_hash = f->pg_hash;
        r->bytes = f->bytes;
        r->in_nelems = f->in_nelems;
        r->out_nelems = f->out_nelems;
        r->group_size = f->group_size;
        r->coll = f->coll;
        r->dtype = f->dtype;
        memcpy(r->pg_name, f->pg_name, sizeof r->pg_name);
        memcpy(r->pg_desc, f->pg_desc, sizeof r->pg_desc);
        memcpy(r->coll_name, f->coll_name, sizeof r->coll_name);
        memcpy(r->dtype_name, f->dtype_name, sizeof r->dtype_name);
        /* the instances used */
        size_t k = 0;
        const tlm_coll_instance **u = p + i;
        size_t nu = 0;
        for (size_t q = i; q < j; q++) {
            tlm_coll_aside why = tlm_coll_inst_aside(p[q]->flags);
            r->n_incomplete += why == TLM_COLL_ASIDE_INCOMPLETE;
            r->n_mismatch += why == TLM_COLL_ASIDE_MISMATCH;
            r->n_suspect += why == TLM_COLL_ASIDE_SUSPECT;
            if (why != TLM_COLL_ASIDE_NONE && !include_incomplete)
                continue;
            u[nu++] = p[q]; /* compacts in place, order kept */
        }
        r->count = (int64_t)nu;
        for (size_t q = 0; q < nu; q++) {
            r->total_latency_ns =
                tlm_coll_sat_add(r->total_latency_ns, u[q]->comm_latency_ns);
            r->total_wall_ns =
                tlm_coll_sat_add(r->total_wall_ns, u[q]->wall_corr_ns);
        }
#define TLM_STAT_(field, expr)                 \
    do {                                       \
        k = 0;                                 \
        for (size_t q = 0; q < nu; q++) {      \
            const tlm_coll_instance *x = u[q]; \
            v[k++] = (expr);                   \
        }                                      \
        stat_of(v, k, &r->field);              \
    } while (0)
        TLM_STAT_(latency_ns, (double)x->comm_latency_ns);
        TLM_STAT_(start_skew_ns, (double)x->start_skew_ns);
        TLM_STAT_(end_skew_ns, (double)x->end_skew_ns);
        TLM_STAT_(start_skew_corr_ns, (double)x->start_skew_corr_ns);
        TLM_STAT_(end_skew_corr_ns, (double)x->end_skew_corr_ns);
        TLM_STAT_(algbw_gbps, x->algbw_gbps);
        TLM_STAT_(busbw_gbps, x->busbw_gbps);
        TLM_STAT_(wall_ns, (double)x->wall_corr_ns);
        TLM_STAT_(throughput_gbps, x->throughput_gbps);
        TLM_STAT_(send_imbalance, x->send_imbalance);
        TLM_STAT_(recv_imbalance, x->recv_imbalance);
#undef TLM_STAT_
        i = j;
    }
    qsort(out, nout, sizeof *out, cmp_row);
    tlm_coll_mfree(a, p);
    tlm_coll_mfree(a, v);
    *rows = out;
    *n_rows = nout;
    return TLM_OK;
nomem:
    tlm_coll_mfree(a, p);
    tlm_coll_mfree(a, v);
    tlm_coll_mfree(a, out);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "out of memory while summarising collectives");
}

/* MARK: - stragglers */

/* qsort comparators of this file's own keys (a plain function per row
 * type; the chains of the other files look alike but order other
 * fields). */
static int cmp_srow(const void *a, const void *b)
{
    const tlm_coll_straggler_row *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->overall, y->overall);
    if (!c)
        c = tlm_coll_cmp_u64(x->pg_hash, y->pg_hash);
    if (!c)
        c = strcmp(x->pg_name, y->pg_name);
    if (!c)
        c = tlm_coll_cmp_i64(x->trace_rank, y->trace_rank);
    return c;
}

#define TLM_ADD_(f) d->f = tlm_coll_sat_add(d->f, s->f)
static void srow_add(tlm_coll_straggler_row *d,
                     const tlm_coll_straggler_row *s)
{
    TLM_ADD_(n_instances);
    TLM_ADD_(times_last);
    TLM_ADD_(last_credit_u);
    TLM_ADD_(times_first);
    TLM_ADD_(wait_suffered_ns);
    TLM_ADD_(wait_caused_ns);
    TLM_ADD_(times_last_corr);
    TLM_ADD_(last_credit_corr_u);
    TLM_ADD_(wait_suffered_corr_ns);
    TLM_ADD_(wait_caused_corr_ns);
    TLM_ADD_(dur_sum_ns);
}
#undef TLM_ADD_

void tlm_coll_straggler_merge(tlm_coll_straggler_row *rows, size_t *n)
{
    if (!rows || !n || *n == 0)
        return;
    /* already merged (tlm_coll_straggler_compute's rows): no sort, and
     * no temporary copy of the rows by qsort */
    size_t s = 1;
    while (s < *n && cmp_srow(&rows[s - 1], &rows[s]) < 0)
        s++;
    if (s == *n)
        return;
    qsort(rows, *n, sizeof *rows, cmp_srow);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (k > 0 && cmp_srow(&rows[k - 1], &rows[i]) == 0)
            srow_add(&rows[k - 1], &rows[i]);
        else
            rows[k++] = rows[i];
    }
    *n = k;
}

void tlm_coll_straggler_merge_into(tlm_coll_straggler_row *acc,
                                   size_t *n_acc,
                                   const tlm_coll_straggler_row *b, size_t nb)
{
    if (!acc || !n_acc || !b || nb == 0)
        return;
    /* from the back: the write position never passes the next unread row
     * of acc (it stays >= i + j + 1 minus the rows combined) */
    size_t i = *n_acc, j = nb, w = *n_acc + nb;
    while (i > 0 || j > 0) {
        const tlm_coll_straggler_row *next;
        if (j == 0 || (i > 0 && cmp_srow(&acc[i - 1], &b[j - 1]) > 0))
            next = &acc[--i];
        else
            next = &b[--j];
        if (w < *n_acc + nb && cmp_srow(&acc[w], next) == 0)
            srow_add(&acc[w], next);
        else
            acc[--w] = *next;
    }
    size_t n = *n_acc + nb - w;
    if (w > 0)
        memmove(acc, acc + w, n * sizeof *acc);
    *n_acc = n;
}

typedef struct srow_map {
    const tlm_alloc *a;
    tlm_coll_straggler_row *rows;
    size_t n, cap;
    uint32_t *slot; /* index + 1; 0 empty */
    size_t nslot;
} srow_map;

static uint64_t srow_hash(int overall, uint64_t pg, int32_t rank)
{
    return tlm_coll_mix(tlm_coll_mix(pg, (uint64_t)overall),
                        (uint64_t)(uint32_t)rank);
}

static int srow_rehash(srow_map *m, size_t nslot)
{
    uint32_t *s = tlm_coll_calloc(m->a, nslot, sizeof *s);
    if (!s)
        return 0;
    for (size_t i = 0; i < m->n; i++) {
        const tlm_coll_straggler_row *r = &m->rows[i];
        size_t h = (size_t)srow_hash(r->overall, r->pg_hash, r->trace_rank) &
                   (nslot - 1);
        while (s[h])
            h = (h + 1) & (nslot - 1);
        s[h] = (uint32_t)(i + 1);
    }
    tlm_coll_mfree(m->a, m->slot);
    m->slot = s;
    m->nslot = nslot;
    return 1;
}

static tlm_coll_straggler_row *srow_get(srow_map *m, int overall,
                                        const tlm_coll_instance *in,
                                        int32_t rank)
{
    uint64_t pg = overall ? 0 : in->pg_hash;
    const char *name = overall ? "*" : in->pg_name;
    if ((m->n + 1) * 2 > m->nslot &&
        !srow_rehash(m, m->nslot ? m->nslot * 2 : 64))
        return NULL;
    size_t h = (size_t)srow_hash(overall, pg, rank) & (m->nslot - 1);
    while (m->slot[h]) {
        tlm_coll_straggler_row *r = &m->rows[m->slot[h] - 1];
        if (r->overall == overall && r->pg_hash == pg &&
            r->trace_rank == rank && strcmp(r->pg_name, name) == 0)
            return r;
        h = (h + 1) & (m->nslot - 1);
    }
    if (m->n >= UINT32_MAX - 1 ||
        !tlm_coll_grow(m->a, (void **)&m->rows, &m->cap, m->n + 1,
                       sizeof *m->rows))
        return NULL;
    tlm_coll_straggler_row *r = &m->rows[m->n];
    memset(r, 0, sizeof *r);
    r->overall = overall;
    r->pg_hash = pg;
    r->trace_rank = rank;
    tlm_coll_strlcpy(r->pg_name, sizeof r->pg_name, name, strlen(name));
    m->slot[h] = (uint32_t)(++m->n);
    return r;
}

static int cmp_mem_key(const void *a, const void *b)
{
    return tlm_coll_mem_cmp(*(const tlm_coll_member *const *)a,
                            *(const tlm_coll_member *const *)b);
}

static int cmp_inst_key(const void *a, const void *b)
{
    return tlm_coll_inst_cmp(*(const tlm_coll_instance *const *)a,
                             *(const tlm_coll_instance *const *)b);
}

typedef struct wm {
    int64_t wait;
    int32_t rank;
    int32_t idx;
} wm;

static int cmp_wm(const void *a, const void *b)
{
    const wm *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->wait, y->wait);
    return c ? c : tlm_coll_cmp_i64(x->rank, y->rank);
}

/* Adds one instance's contributions (raw: corr = 0, corrected: 1). */
static int straggle_one(srow_map *map, const tlm_coll_instance *in,
                        const tlm_coll_member *const *m, size_t n, wm *w,
                        int corr)
{
    for (size_t i = 0; i < n; i++) {
        w[i].wait = corr ? m[i]->wait_corr_ns : m[i]->wait_ns;
        w[i].rank = m[i]->trace_rank;
        w[i].idx = (int32_t)i;
    }
    qsort(w, n, sizeof *w, cmp_wm);
    size_t k = (size_t)(corr ? in->n_last_corr : in->n_last);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    int64_t caused = 0;
    for (size_t i = k; i < n; i++)
        caused = tlm_coll_sat_add(caused, w[i].wait);
    size_t nfirst = 0;
    for (size_t i = 0; i < n; i++)
        nfirst += w[i].wait == w[n - 1].wait;
    for (int overall = 0; overall < 2; overall++) {
        for (size_t i = 0; i < n; i++) {
            tlm_coll_straggler_row *r = srow_get(map, overall, in,
                                                 w[i].rank);
            if (!r)
                return 0;
            const tlm_coll_member *x = m[w[i].idx];
            if (!corr) {
                r->n_instances++;
                r->dur_sum_ns = tlm_coll_sat_add(r->dur_sum_ns, x->dur_ns);
                r->wait_suffered_ns =
                    tlm_coll_sat_add(r->wait_suffered_ns, w[i].wait);
                if (nfirst == 1 && i == n - 1 && n > 1)
                    r->times_first++;
            } else {
                r->wait_suffered_corr_ns =
                    tlm_coll_sat_add(r->wait_suffered_corr_ns, w[i].wait);
            }
            if (i < k) {
                int64_t credit = 1000000 / (int64_t)k +
                                 ((int64_t)i < 1000000 % (int64_t)k);
                int64_t share = caused / (int64_t)k +
                                ((int64_t)i < caused % (int64_t)k);
                if (!corr) {
                    r->last_credit_u += credit;
                    r->wait_caused_ns =
                        tlm_coll_sat_add(r->wait_caused_ns, share);
                    r->times_last += k == 1;
                } else {
                    r->last_credit_corr_u += credit;
                    r->wait_caused_corr_ns =
                        tlm_coll_sat_add(r->wait_caused_corr_ns, share);
                    r->times_last_corr += k == 1;
                }
            }
        }
    }
    return 1;
}

tlm_status tlm_coll_straggler_compute(const tlm_coll_instance *inst,
                                      size_t n_inst,
                                      const tlm_coll_member *mem,
                                      size_t n_mem, const tlm_alloc *a,
                                      tlm_coll_straggler_row **rows,
                                      size_t *n_rows, tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)rows, n_rows,
                                     (inst || !n_inst) && (mem || !n_mem),
                                     "tlm_coll_straggler_compute", err);
    if (st != TLM_OK)
        return st;
    srow_map map;
    memset(&map, 0, sizeof map);
    map.a = a;
    const tlm_coll_instance **pi = tlm_coll_malloc(a, (n_inst ? n_inst : 1) *
                                                          sizeof *pi);
    const tlm_coll_member **pm = tlm_coll_malloc(a, (n_mem ? n_mem : 1) *
                                                        sizeof *pm);
    wm *w = tlm_coll_malloc(a, (n_mem ? n_mem : 1) * sizeof *w);
    if (!pi || !pm || !w)
        goto nomem;
    for (size_t i = 0; i < n_inst; i++)
        pi[i] = &inst[i];
    for (size_t i = 0; i < n_mem; i++)
        pm[i] = &mem[i];
    qsort(pi, n_inst, sizeof *pi, cmp_inst_key);
    qsort(pm, n_mem, sizeof *pm, cmp_mem_key);
    size_t j = 0;
    for (size_t i = 0; i < n_inst; i++) {
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
        if (usable && (!straggle_one(&map, in, pm + j, k - j, w, 0) ||
                       !straggle_one(&map, in, pm + j, k - j, w, 1)))
            goto nomem;
        j = k;
    }
    tlm_coll_mfree(a, pi);
    tlm_coll_mfree(a, pm);
    tlm_coll_mfree(a, w);
    tlm_coll_mfree(a, map.slot);
    if (map.n)
        qsort(map.rows, map.n, sizeof *map.rows, cmp_srow);
    else {
        tlm_coll_mfree(a, map.rows);
        map.rows = NULL;
    }
    *rows = map.rows;
    *n_rows = map.n;
    return TLM_OK;
nomem:
    tlm_coll_mfree(a, pi);
    tlm_coll_mfree(a, pm);
    tlm_coll_mfree(a, w);
    tlm_coll_mfree(a, map.slot);
    tlm_coll_mfree(a, map.rows);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "out of memory while computing stragglers");
}
