/*
 * report0_tl.c - the parts of TraceLens's multi-rank collective report
 * (generate_multi_rank_collective_report_pytorch, 171dd747) beyond
 * report0.c's sheets: the node columns (add_node_span_columns: node_id =
 * rank / GPUs per node, node_span of "Process Group Ranks"), the per-rank
 * column order of its per-instance sheets (first appearance across rows,
 * tlm_coll_tl_first_seen), and the all_to_allv sheets nccl_all2allv and
 * nccl_summary_all2allv ([collectives] 3.6), made from nccl_long's rows.
 * Cells as pandas writes them (report0.c): Python's repr of floats, NaN
 * empty, an integer column with a missing value printed as floats.
 */
#include "report0_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"

/* MARK: - node columns and column order */

const char *tlm_out_node_span(const char *ranks, size_t cap, long gpn)
{
    size_t n = strnlen(ranks, cap);
    long node = -1;
    int any = 0;
    for (size_t i = 0; i < n;) {
        if (ranks[i] < '0' || ranks[i] > '9') {
            i++;
            continue;
        }
        long v = 0;
        for (; i < n && ranks[i] >= '0' && ranks[i] <= '9'; i++)
            if (v < 1000000000L)
                v = v * 10 + (ranks[i] - '0');
        long nd = gpn > 0 ? v / gpn : v;
        if (any && nd != node)
            return "inter_node";
        node = nd;
        any = 1;
    }
    return any ? "intra_node" : "unknown";
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

tlm_status tlm_out_tlcols_make(const int32_t *ranks, const int32_t *row,
                               size_t n, tlm_out_tlcols *c, tlm_error *err)
{
    memset(c, 0, sizeof *c);
    tlm_status st = tlm_coll_tl_first_seen(ranks, row, n, NULL, &c->cols,
                                           &c->batch, &c->n, err);
    if (st != TLM_OK)
        return st;
    c->sorted = malloc((c->n ? c->n : 1) * sizeof *c->sorted);
    c->at = malloc((c->n ? c->n : 1) * sizeof *c->at);
    if (!c->sorted || !c->at) {
        tlm_out_tlcols_free(c);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    if (c->n)
        memcpy(c->sorted, c->cols, c->n * sizeof *c->sorted);
    qsort(c->sorted, c->n, sizeof *c->sorted, cmp_i32);
    for (size_t i = 0; i < c->n; i++) {
        const int32_t *p = bsearch(&c->cols[i], c->sorted, c->n,
                                   sizeof *c->sorted, cmp_i32);
        c->at[p - c->sorted] = (int32_t)i;
    }
    return TLM_OK;
}

int64_t tlm_out_tlcols_find(const tlm_out_tlcols *c, int32_t rank)
{
    const int32_t *p = c->n ? bsearch(&rank, c->sorted, c->n,
                                      sizeof *c->sorted, cmp_i32)
                            : NULL;
    return p ? c->at[p - c->sorted] : -1;
}

size_t tlm_out_tlcols_batch_end(const tlm_out_tlcols *c, size_t s)
{
    size_t e = s;
    while (e < c->n && c->batch[e] == c->batch[s])
        e++;
    return e;
}

void tlm_out_tlcols_free(tlm_out_tlcols *c)
{
    tlm_coll_free(NULL, c->cols);
    tlm_coll_free(NULL, c->batch);
    free(c->sorted);
    free(c->at);
    memset(c, 0, sizeof *c);
}

/* MARK: - cells */

static void sep(FILE *f, int *k)
{
    if ((*k)++)
        putc_unlocked(',', f);
}

static void cnum(FILE *f, int *k, double v)
{
    char b[64];
    sep(f, k);
    tlm_out_csv_number(b, sizeof b, v);
    fputs(b, f);
}

/* An integer cell: empty for None (v < 0), "N.0" in a column pandas holds
 * as floats (one with a missing value). */
static void cint(FILE *f, int *k, int64_t v, int as_float)
{
    sep(f, k);
    if (v >= 0)
        tlm_out_put_i64(f, v, as_float);
}

static void cstr(FILE *f, int *k, const char *s, size_t cap)
{
    sep(f, k);
    tlm_csv_fput(f, s, strnlen(s, cap));
}

#define CSTR(f, k, field) cstr((f), (k), (field), sizeof(field))

/* MARK: - all_to_allv instances */

/* One all_to_allv instance: its members (nccl_long rows, by rank) and
 * what nccl_all2allv shows of it. */
typedef struct a2a {
    const tlm_out_tl_long **m;
    size_t n;
    double total_mib, wall, max_dur, min_dur, avg_dur, thr, max_thr,
        min_thr, imbalance, skew_start, skew_end, min_s, max_e;
    int64_t total_nelems; /* -1: None */
} a2a;

static int cmp_long_id(const void *a, const void *b)
{
    const tlm_out_tl_long *x = *(const tlm_out_tl_long *const *)a;
    const tlm_out_tl_long *y = *(const tlm_out_tl_long *const *)b;
    int c = strncmp(x->row.collective_id, y->row.collective_id,
                    sizeof x->row.collective_id);
    if (c)
        return c;
    return x->row.rank < y->row.rank ? -1 : x->row.rank > y->row.rank;
}

/* Where the instance's id first appears in nccl_long: (rank, event). */
static int cmp_a2a_appear(const void *a, const void *b)
{
    const tlm_out_tl_long *x = ((const a2a *)a)->m[0];
    const tlm_out_tl_long *y = ((const a2a *)b)->m[0];
    if (x->row.rank != y->row.rank)
        return x->row.rank < y->row.rank ? -1 : 1;
    return (x->row.event_index > y->row.event_index) -
           (x->row.event_index < y->row.event_index);
}

/* The per-instance numbers ([collectives] 3.6; a missing size: NaN where
 * TraceLens stops with an error). */
static void a2a_metrics(a2a *x)
{
    double mins = INFINITY, maxs = -INFINITY, mine = INFINITY,
           maxe = -INFINITY, sum_in = 0, sum_dur = 0, max_in = -INFINITY;
    x->max_dur = -INFINITY;
    x->min_dur = INFINITY;
    x->max_thr = NAN;
    x->min_thr = NAN;
    x->total_nelems = 0;
    for (size_t q = 0; q < x->n; q++) {
        const tlm_out_tl_long *e = x->m[q];
        double s = e->row.ts_us, d = e->row.dur_us, en = s + d;
        mins = s < mins ? s : mins;
        maxs = s > maxs ? s : maxs;
        mine = en < mine ? en : mine;
        maxe = en > maxe ? en : maxe;
        x->max_dur = d > x->max_dur ? d : x->max_dur;
        x->min_dur = d < x->min_dur ? d : x->min_dur;
        sum_dur += d;
        sum_in += e->row.in_mib;
        max_in = e->row.in_mib > max_in ? e->row.in_mib : max_in;
        if (e->in_nelems < 0 || x->total_nelems < 0)
            x->total_nelems = -1;
        else
            x->total_nelems += e->in_nelems;
        double mb = e->row.in_mib;
        if (mb > 0 && d > 0) {
            double t = (mb / 1024.0) / (d / 1e6);
            if (isnan(x->max_thr) || t > x->max_thr)
                x->max_thr = t;
            if (isnan(x->min_thr) || t < x->min_thr)
                x->min_thr = t;
        }
    }
    x->min_s = mins;
    x->max_e = maxe;
    x->skew_start = maxs - mins;
    x->skew_end = maxe - mine;
    x->total_mib = sum_in;
    x->wall = maxe - mins;
    x->avg_dur = sum_dur / (double)x->n;
    x->thr = x->wall > 0 ? (sum_in / 1024.0) / (x->wall / 1e6) : NAN;
    double mean = sum_in / (double)x->n;
    x->imbalance = mean > 0 ? max_in / mean : NAN;
}

/* The all_to_allv instances of the long rows (*out, *n_out; *p keeps the
 * sorted row pointers they point into), in order of appearance. */
static tlm_status a2a_find(const tlm_out_results *r,
                           const tlm_out_tl_long ***p, a2a **out,
                           size_t *n_out, tlm_error *err)
{
    size_t n = r->n_tl_long;
    *out = NULL;
    *n_out = 0;
    *p = malloc((n ? n : 1) * sizeof **p);
    a2a *v = calloc(n ? n : 1, sizeof *v);
    if (!*p || !v) {
        free(v);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        (*p)[i] = &r->tl_long[i];
    qsort(*p, n, sizeof **p, cmp_long_id);
    size_t nv = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strncmp((*p)[j]->row.collective_id,
                                (*p)[i]->row.collective_id,
                                sizeof (*p)[i]->row.collective_id) == 0)
            j++;
        if (strcmp((*p)[i]->coll_name, "all_to_allv") == 0) {
            v[nv].m = &(*p)[i];
            v[nv].n = j - i;
            a2a_metrics(&v[nv]);
            nv++;
        }
        i = j;
    }
    qsort(v, nv, sizeof *v, cmp_a2a_appear);
    *out = v;
    *n_out = nv;
    return TLM_OK;
}

/* Stable order by total data, descending, NaN last (pandas' nargsort). */
static void a2a_sort(a2a *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        a2a t = v[i];
        size_t k = i;
        while (k > 0 && (isnan(v[k - 1].total_mib)
                             ? !isnan(t.total_mib)
                             : (!isnan(t.total_mib) &&
                                t.total_mib > v[k - 1].total_mib)))
            k--;
        memmove(&v[k + 1], &v[k], (i - k) * sizeof *v);
        v[k] = t;
    }
}

/* MARK: - nccl_all2allv */

static void a2a_header(FILE *f, const tlm_out_tlcols *c, long gpn)
{
    static const char *per[8] = {"ts", "dur", "In msg nelems",
                                 "Out msg nelems", "In msg size (MB)",
                                 "Out msg size (MB)", "In split size",
                                 "Out split size"};
    fputs("collective_id,Process Group Name,Process Group Ranks,Collective "
          "name,Group size,dtype,stream,total data communicated (MB),total "
          "nelems communicated,wall_time (us),max_rank_dur (us),"
          "min_rank_dur (us),avg_rank_dur (us),throughput (GB/s),"
          "max_rank_throughput (GB/s),min_rank_throughput (GB/s),"
          "size_imbalance,skew in start time,skew in end time",
          f);
    for (size_t s = 0; s < c->n;) {
        size_t e = tlm_out_tlcols_batch_end(c, s);
        for (size_t i = s; i < e; i++)
            for (int k = 0; k < 8; k++)
                fprintf(f, ",rank_%d_%s", c->cols[i], per[k]);
        for (size_t i = s; i < e; i++)
            fprintf(f, ",rank_%d_skew in start time,rank_%d_skew in end "
                       "time",
                    c->cols[i], c->cols[i]);
        s = e;
    }
    fputs(gpn > 0 ? ",node_span\n" : "\n", f);
}

/* One rank's eight cells (empty when it is not a member: e NULL). */
static void a2a_rank_cells(FILE *f, int *k, const tlm_out_tl_long *e,
                           int nel_float)
{
    if (!e) {
        for (int i = 0; i < 8; i++)
            sep(f, k);
        return;
    }
    cnum(f, k, e->row.ts_us);
    cnum(f, k, e->row.dur_us);
    cint(f, k, e->in_nelems, nel_float);
    cint(f, k, e->out_nelems, nel_float);
    cnum(f, k, e->row.in_mib);
    cnum(f, k, e->row.out_mib);
    CSTR(f, k, e->in_split);
    CSTR(f, k, e->out_split);
}

/* One instance's row; by: room for c->n member pointers; full[i]: column
 * i has every instance (an integer column pandas keeps as integers). */
static void a2a_row(FILE *f, const a2a *x, const tlm_out_tlcols *c,
                    const tlm_out_tl_long **by, const char *full, long gpn)
{
    const tlm_out_tl_long *h = x->m[0];
    int k = 0;
    CSTR(f, &k, h->row.collective_id);
    CSTR(f, &k, h->row.pg_name);
    CSTR(f, &k, h->pg_ranks);
    CSTR(f, &k, h->coll_name);
    cint(f, &k, h->group_size, 0);
    CSTR(f, &k, h->dtype);
    cint(f, &k, h->stream, 0);
    cnum(f, &k, x->total_mib);
    cint(f, &k, x->total_nelems, 0);
    cnum(f, &k, x->wall);
    cnum(f, &k, x->max_dur);
    cnum(f, &k, x->min_dur);
    cnum(f, &k, x->avg_dur);
    cnum(f, &k, x->thr);
    cnum(f, &k, x->max_thr);
    cnum(f, &k, x->min_thr);
    cnum(f, &k, x->imbalance);
    cnum(f, &k, x->skew_start);
    cnum(f, &k, x->skew_end);
    for (size_t i = 0; i < c->n; i++)
        by[i] = NULL;
    for (size_t q = 0; q < x->n; q++) {
        int64_t ci = tlm_out_tlcols_find(c, x->m[q]->row.rank);
        if (ci >= 0)
            by[ci] = x->m[q];
    }
    for (size_t s = 0; s < c->n;) {
        size_t e = tlm_out_tlcols_batch_end(c, s);
        for (size_t i = s; i < e; i++)
            a2a_rank_cells(f, &k, by[i], !full[i]);
        for (size_t i = s; i < e; i++) {
            const tlm_out_tl_long *m = by[i];
            cnum(f, &k, m ? m->row.ts_us - x->min_s : NAN);
            cnum(f, &k, m ? x->max_e - (m->row.ts_us + m->row.dur_us) : NAN);
        }
        s = e;
    }
    if (gpn > 0)
        cstr(f, &k, tlm_out_node_span(h->pg_ranks, sizeof h->pg_ranks, gpn),
             32);
    fputc('\n', f);
}

/* The columns of the instances (in appearance order) into *c, and which
 * of them every instance has (*full). */
static tlm_status a2a_columns(const a2a *v, size_t nv, tlm_out_tlcols *c,
                              char **full, tlm_error *err)
{
    size_t nf = 0;
    for (size_t i = 0; i < nv; i++)
        nf += v[i].n;
    int32_t *rk = calloc(nf ? nf : 1, sizeof *rk);
    int32_t *rw = calloc(nf ? nf : 1, sizeof *rw);
    tlm_status st = TLM_ENOMEM;
    *full = NULL;
    if (rk && rw) {
        nf = 0;
        for (size_t i = 0; i < nv; i++)
            for (size_t q = 0; q < v[i].n; q++) {
                rk[nf] = v[i].m[q]->row.rank;
                rw[nf++] = (int32_t)i;
            }
        st = tlm_out_tlcols_make(rk, rw, nf, c, err);
    }
    int64_t *cnt = NULL;
    if (st == TLM_OK) {
        cnt = calloc(c->n ? c->n : 1, sizeof *cnt);
        *full = calloc(c->n ? c->n : 1, 1);
        if (!cnt || !*full)
            st = TLM_ENOMEM;
    }
    for (size_t q = 0; st == TLM_OK && q < nf; q++)
        cnt[tlm_out_tlcols_find(c, rk[q])]++;
    for (size_t i = 0; st == TLM_OK && i < c->n; i++)
        (*full)[i] = cnt[i] == (int64_t)nv;
    free(cnt);
    free(rk);
    free(rw);
    if (st == TLM_ENOMEM) {
        free(*full);
        *full = NULL;
        tlm_out_tlcols_free(c);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    return st;
}

static tlm_status sheet_a2a(const a2a *v, size_t nv, const tlm_out_dest *d,
                            long gpn, tlm_error *err)
{
    tlm_out_tlcols c;
    char *full = NULL;
    tlm_status st = a2a_columns(v, nv, &c, &full, err);
    if (st != TLM_OK)
        return st;
    const tlm_out_tl_long **by = malloc((c.n ? c.n : 1) * sizeof *by);
    a2a *s = malloc(nv * sizeof *s);
    tlm_out_file o;
    if (!by || !s)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    else
        st = tlm_out_open(&o, d, "nccl_all2allv.csv", err);
    if (st == TLM_OK) {
        memcpy(s, v, nv * sizeof *s);
        a2a_sort(s, nv);
        a2a_header(o.f, &c, gpn);
        for (size_t i = 0; i < nv; i++)
            a2a_row(o.f, &s[i], &c, by, full, gpn);
        st = tlm_out_close(&o, err);
    }
    free(by);
    free(s);
    free(full);
    tlm_out_tlcols_free(&c);
    return st;
}

/* MARK: - nccl_summary_all2allv */

/* Mean, median, min, max, sum of the non-NaN values of v[0..n) (sorted
 * in place); NaN (sum 0) when there is none. */
static void agg5(double *v, size_t n, double *g)
{
    size_t k = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            sum += v[i];
            v[k++] = v[i];
        }
    for (size_t i = 1; i < k; i++) { /* few values: insertion sort */
        double t = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > t) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = t;
    }
    g[4] = sum;
    if (k == 0) {
        g[0] = g[1] = g[2] = g[3] = NAN;
        return;
    }
    g[0] = sum / (double)k;
    g[1] = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
    g[2] = v[0];
    g[3] = v[k - 1];
}

/* Groups by (PG name, dtype) of the sorted instances (without a dtype:
 * left out, as pandas' groupby drops NaN keys). */
static int cmp_a2a_grp(const void *a, const void *b)
{
    const a2a *x = *(const a2a *const *)a, *y = *(const a2a *const *)b;
    int c = strncmp(x->m[0]->row.pg_name, y->m[0]->row.pg_name,
                    sizeof x->m[0]->row.pg_name);
    if (!c)
        c = strncmp(x->m[0]->dtype, y->m[0]->dtype, sizeof x->m[0]->dtype);
    return c ? c : (x > y) - (x < y);
}

/* One summary group g[0..n) (in the detailed sheet's order). */
typedef struct a2a_sum {
    const a2a *const *g;
    size_t n;
    double tot[5], wall[5], thr[5], imb[5], mxd[5], sks[5], ske[5];
} a2a_sum;

#define A2A_AGG(s, field, out)                   \
    do {                                         \
        for (size_t q = 0; q < (s)->n; q++)      \
            tmp[q] = (s)->g[q]->field;           \
        agg5(tmp, (s)->n, (s)->out);             \
    } while (0)

static void a2a_sum_of(a2a_sum *s, double *tmp)
{
    A2A_AGG(s, total_mib, tot);
    A2A_AGG(s, wall, wall);
    A2A_AGG(s, thr, thr);
    A2A_AGG(s, imbalance, imb);
    A2A_AGG(s, max_dur, mxd);
    A2A_AGG(s, skew_start, sks);
    A2A_AGG(s, skew_end, ske);
}

static void a2a_sum_row(FILE *f, const a2a_sum *s, long gpn)
{
    const tlm_out_tl_long *h = s->g[0]->m[0];
    const char *ranks = "", *name = "";
    int64_t gs = -1;
    for (size_t q = 0; q < s->n; q++) { /* pandas' first: first non-null */
        const tlm_out_tl_long *e = s->g[q]->m[0];
        if (!ranks[0] && e->pg_ranks[0])
            ranks = e->pg_ranks;
        if (!name[0] && e->coll_name[0])
            name = e->coll_name;
        if (gs < 0 && e->group_size >= 0)
            gs = e->group_size;
    }
    int k = 0;
    CSTR(f, &k, h->row.pg_name);
    CSTR(f, &k, h->dtype);
    for (int i = 0; i < 4; i++)
        cnum(f, &k, s->tot[i]);
    for (int i = 0; i < 5; i++)
        cnum(f, &k, s->wall[i]);
    for (int i = 0; i < 4; i++)
        cnum(f, &k, s->thr[i]);
    const double *mm[4] = {s->imb, s->mxd, s->sks, s->ske};
    for (int i = 0; i < 4; i++) {
        cnum(f, &k, mm[i][0]);
        cnum(f, &k, mm[i][3]);
    }
    cint(f, &k, (int64_t)s->n, 0);
    cstr(f, &k, ranks, TLM_COLL_TEXT_LEN);
    cstr(f, &k, name, TLM_COLL_NAME_LEN);
    cint(f, &k, gs, 0);
    cnum(f, &k, s->wall[4] / 1000.0);
    if (gpn > 0)
        cstr(f, &k, tlm_out_node_span(ranks, TLM_COLL_TEXT_LEN, gpn), 32);
    fputc('\n', f);
}

/* The groups of the instances s[0..nv) (sorted as the detailed sheet) by
 * (PG name, dtype), their aggregates, sorted by total wall time, desc. */
static size_t a2a_groups(const a2a *s, size_t nv, const a2a **p,
                         a2a_sum *g, double *tmp)
{
    size_t np = 0, ng = 0;
    for (size_t i = 0; i < nv; i++)
        if (s[i].m[0]->dtype[0])
            p[np++] = &s[i];
    qsort(p, np, sizeof *p, cmp_a2a_grp);
    for (size_t i = 0; i < np;) {
        size_t j = i + 1;
        while (j < np &&
               strcmp(p[j]->m[0]->row.pg_name, p[i]->m[0]->row.pg_name) ==
                   0 &&
               strcmp(p[j]->m[0]->dtype, p[i]->m[0]->dtype) == 0)
            j++;
        g[ng].g = &p[i];
        g[ng].n = j - i;
        a2a_sum_of(&g[ng], tmp);
        ng++;
        i = j;
    }
    for (size_t i = 1; i < ng; i++) { /* stable, descending */
        a2a_sum t = g[i];
        size_t k = i;
        while (k > 0 && t.wall[4] > g[k - 1].wall[4]) {
            g[k] = g[k - 1];
            k--;
        }
        g[k] = t;
    }
    return ng;
}

static tlm_status sheet_a2a_summary(const a2a *v, size_t nv,
                                    const tlm_out_dest *d, long gpn,
                                    tlm_error *err)
{
    a2a *s = malloc(nv * sizeof *s);
    const a2a **p = malloc(nv * sizeof *p);
    a2a_sum *g = malloc(nv * sizeof *g);
    double *tmp = malloc(nv * sizeof *tmp);
    tlm_status st = TLM_OK;
    if (!s || !p || !g || !tmp)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    size_t ng = 0;
    if (st == TLM_OK) {
        memcpy(s, v, nv * sizeof *s);
        a2a_sort(s, nv);
        ng = a2a_groups(s, nv, p, g, tmp);
    }
    tlm_out_file o;
    if (st == TLM_OK && ng > 0)
        st = tlm_out_open(&o, d, "nccl_summary_all2allv.csv", err);
    if (st == TLM_OK && ng > 0) {
        fputs("Process Group Name,dtype,total data communicated (MB)_mean,"
              "total data communicated (MB)_median,total data communicated "
              "(MB)_min,total data communicated (MB)_max,wall_time "
              "(us)_mean,wall_time (us)_median,wall_time (us)_min,"
              "wall_time (us)_max,Total wall_time (us),throughput "
              "(GB/s)_mean,throughput (GB/s)_median,throughput (GB/s)_min,"
              "throughput (GB/s)_max,size_imbalance_mean,size_imbalance_max,"
              "max_rank_dur (us)_mean,max_rank_dur (us)_max,skew in start "
              "time_mean,skew in start time_max,skew in end time_mean,skew "
              "in end time_max,count,Process Group Ranks,Collective name,"
              "Group size,Total wall_time (ms)",
              o.f);
        fputs(gpn > 0 ? ",node_span\n" : "\n", o.f);
        for (size_t i = 0; i < ng; i++)
            a2a_sum_row(o.f, &g[i], gpn);
        st = tlm_out_close(&o, err);
    }
    free(s);
    free(p);
    free(g);
    free(tmp);
    return st;
}

tlm_status tlm_out_sheets_a2a(const tlm_out_results *r, int summary,
                              const tlm_out_dest *d, tlm_error *err)
{
    const tlm_out_tl_long **p = NULL;
    a2a *v = NULL;
    size_t nv = 0;
    long gpn = r->opts ? r->opts->gpus_per_node : -1;
    tlm_status st = a2a_find(r, &p, &v, &nv, err);
    if (st == TLM_OK && nv > 0)
        st = summary ? sheet_a2a_summary(v, nv, d, gpn, err)
                     : sheet_a2a(v, nv, d, gpn, err);
    free(p);
    free(v);
    return st;
}
