/*
 * report0.c - rank 0's human-readable output: report.md (the job at a
 * glance, GPU timeline spread over ranks with the outlier named, exposed
 * communication, collective summary, stragglers, clock offsets) and the
 * CSV sheets of TraceLens's multi-rank collective report, with its file
 * and column names (spec/collectives.md §4.1) so existing notebooks keep
 * working.  TraceLens units in those CSVs: µs, MiB ("MB"), GiB/s ("GB/s").
 *
 * Numbers in the CSVs are printed like Python's repr (the shortest text
 * that reads back to the same double), missing values as empty cells, as
 * pandas' to_csv does.  Every file is written to a temporary name; the
 * caller publishes them all (with the HDF5 file) or removes them all.
 */
#include "report0.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ *
 * MARK: - output files
 * ------------------------------------------------------------------ */

/* Where files go: the folder, and the list of files written to
 * temporary names, published or removed together at the end. */
typedef struct dest {
    const char *dir;
    tlm_mpi_pending *pend;
} dest;

typedef struct out {
    FILE *f;
    tlm_mpi_pending *pend;
    char path[TLM_MPI_PATH_MAX];
    char tmp[TLM_MPI_PATH_MAX + 32];
} out;

static tlm_status out_open(out *o, const dest *d, const char *name,
                           tlm_error *err)
{
    o->pend = d->pend;
    o->f = NULL;
    if (d->pend->n >= TLM_MPI_MAX_PENDING)
        return tlm_error_set(err, TLM_EINVAL, name, -1,
                             "too many report files");
    int w = snprintf(o->path, sizeof o->path, "%s/%s", d->dir, name);
    if (w < 0 || (size_t)w >= sizeof o->path)
        return tlm_error_set(err, TLM_EINVAL, d->dir, -1,
                             "output path too long");
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", o->path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f)
        return tlm_error_set(err, TLM_EIO, o->path, -1, "cannot write: %s",
                             strerror(errno));
    return TLM_OK;
}

/* Closes the temporary file and adds it to the pending list (or removes
 * it when writing failed). */
static tlm_status out_close(out *o, tlm_error *err)
{
    int bad = ferror(o->f);
    int e = bad ? EIO : 0;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (bad) {
        unlink(o->tmp);
        return tlm_error_set(err, TLM_EIO, o->path, -1, "write failed: %s",
                             strerror(e));
    }
    tlm_mpi_pending *p = o->pend;
    memcpy(p->tmp[p->n], o->tmp, sizeof o->tmp);
    memcpy(p->path[p->n], o->path, sizeof o->path);
    p->n++;
    return TLM_OK;
}

void tlm_mpi_pending_abort(tlm_mpi_pending *p)
{
    for (size_t i = 0; i < p->n; i++)
        unlink(p->tmp[i]);
    p->n = 0;
}

tlm_status tlm_mpi_pending_commit(tlm_mpi_pending *p, tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < p->n; i++) {
        if (st == TLM_OK && rename(p->tmp[i], p->path[i]) != 0)
            st = tlm_error_set(err, TLM_EIO, p->path[i], -1,
                               "cannot rename %s: %s", p->tmp[i],
                               strerror(errno));
        if (st != TLM_OK)
            unlink(p->tmp[i]);
    }
    p->n = 0;
    return st;
}

/* Python repr of a double; NaN -> "" (pandas writes missing values as
 * empty cells). */
void tlm_mpi_csv_number(char *buf, size_t cap, double v)
{
    if (isnan(v)) {
        buf[0] = 0;
        return;
    }
    if (isinf(v)) {
        snprintf(buf, cap, "%s", v > 0 ? "inf" : "-inf");
        return;
    }
    /* shortest round-trip digits, then Python's layout: fixed for
     * 1e-4 <= |v| < 1e16 (at least one decimal), else scientific */
    int p = 1;
    char e[40];
    for (; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    const char *ep = strchr(e, 'e');
    long ex = ep ? strtol(ep + 1, NULL, 10) : 0;
    if (ex >= -4 && ex < 16) {
        int dec = p - 1 - (int)ex;
        if (dec < 0)
            dec = 0;
        snprintf(buf, cap, "%.*f", dec, v);
        if (dec == 0) {
            size_t n = strlen(buf);
            if (n + 2 < cap)
                memcpy(buf + n, ".0", 3);
        }
    } else {
        snprintf(buf, cap, "%s", e);
    }
}

static void csv_num(FILE *f, double v)
{
    char b[64];
    tlm_mpi_csv_number(b, sizeof b, v);
    fputs(b, f);
}

static void csv_int(FILE *f, int64_t v, int none_if_negative)
{
    if (none_if_negative && v < 0)
        return;
    fprintf(f, "%lld", (long long)v);
}

/* Quoted when it contains a comma, quote or newline (csv.QUOTE_MINIMAL). */
static void csv_str(FILE *f, const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            q = 1;
    if (!q) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

#define SEP(f) fputc(',', f)

/* ------------------------------------------------------------------ *
 * MARK: - TraceLens sheets
 * ------------------------------------------------------------------ */

static void agg_cols(FILE *f, const char *metric)
{
    static const char *aggs[4] = {"mean", "median", "min", "max"};
    for (int i = 0; i < 4; i++)
        fprintf(f, ",%s_%s", metric, aggs[i]);
}

static void agg_vals(FILE *f, const tlm_coll_tl_agg *a)
{
    SEP(f);
    csv_num(f, a->mean);
    SEP(f);
    csv_num(f, a->median);
    SEP(f);
    csv_num(f, a->min);
    SEP(f);
    csv_num(f, a->max);
}

static tlm_status sheet_summary(const tlm_mpi_results *r, const dest *dir,
                                tlm_error *err)
{
    out o;
    tlm_status st = out_open(&o, dir, "nccl_summary_implicit_sync.csv", err);
    if (st != TLM_OK)
        return st;
    int algo = 0, bus = 0;
    for (size_t i = 0; i < r->n_tl_sum; i++) {
        algo |= !isnan(r->tl_sum[i].algbw_gibps.mean);
        bus |= !isnan(r->tl_sum[i].busbw_gibps.mean);
    }
    FILE *f = o.f;
    fputs("Collective name,dtype,In msg nelems,Process Group Name,Group "
          "size,Full msg size (MB)",
          f);
    agg_cols(f, "comm_latency");
    agg_cols(f, "skew in start time");
    agg_cols(f, "skew in end time");
    if (algo)
        agg_cols(f, "algo bw (GB/s)");
    if (bus)
        agg_cols(f, "bus bw (GB/s)");
    fputs(",count,Total comm latency (ms)\n", f);
    for (size_t i = 0; i < r->n_tl_sum; i++) {
        const tlm_coll_tl_summary_row *s = &r->tl_sum[i];
        csv_str(f, s->coll_name, sizeof s->coll_name);
        SEP(f);
        csv_str(f, s->dtype, sizeof s->dtype);
        SEP(f);
        csv_str(f, s->in_nelems, sizeof s->in_nelems);
        SEP(f);
        csv_str(f, s->pg_name, sizeof s->pg_name);
        SEP(f);
        csv_int(f, s->group_size, 1);
        SEP(f);
        csv_num(f, s->full_mib);
        agg_vals(f, &s->comm_latency_us);
        agg_vals(f, &s->skew_start_us);
        agg_vals(f, &s->skew_end_us);
        if (algo)
            agg_vals(f, &s->algbw_gibps);
        if (bus)
            agg_vals(f, &s->busbw_gibps);
        fprintf(f, ",%lld,", (long long)s->count);
        csv_num(f, s->total_comm_latency_ms);
        fputc('\n', f);
    }
    return out_close(&o, err);
}

/* Ranks that have a trace, ascending. */
static size_t rank_list(const tlm_mpi_results *r, int32_t *ranks)
{
    for (size_t i = 0; i < r->n_traces; i++)
        ranks[i] = r->traces[i].trace_rank;
    return r->n_traces;
}

static int smem_before(const tlm_coll_tl_sync_member *m,
                       const tlm_coll_tl_sync_row *s)
{
    if (m->pg_hash != s->pg_hash)
        return m->pg_hash < s->pg_hash;
    int c = strncmp(m->collective_id, s->collective_id,
                    sizeof m->collective_id);
    if (m->index_in_group != s->index_in_group)
        return m->index_in_group < s->index_in_group;
    return c < 0;
}

static int smem_of(const tlm_coll_tl_sync_member *m,
                   const tlm_coll_tl_sync_row *s)
{
    return m->pg_hash == s->pg_hash &&
           m->index_in_group == s->index_in_group &&
           strncmp(m->collective_id, s->collective_id,
                   sizeof m->collective_id) == 0;
}

static tlm_status sheet_sync(const tlm_mpi_results *r, const dest *dir,
                             tlm_error *err)
{
    int32_t *ranks = malloc((r->n_traces ? r->n_traces : 1) * sizeof *ranks);
    double *row = malloc(3 * (r->n_traces ? r->n_traces : 1) * sizeof *row);
    if (!ranks || !row) {
        free(ranks);
        free(row);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    size_t nr = rank_list(r, ranks);
    out o;
    tlm_status st = out_open(&o, dir, "nccl_implicit_sync.csv", err);
    if (st != TLM_OK) {
        free(ranks);
        free(row);
        return st;
    }
    FILE *f = o.f;
    fputs("collective_id,Process Group Name,Process Group Ranks,Collective "
          "name,Group size,dtype,In msg nelems,Out msg nelems,In msg size "
          "(MB),Out msg size (MB),Full msg size (MB),comm_latency,skew in "
          "start time,earliest arrival rank,avg_wait_time,skew in end "
          "time,algo bw (GB/s),bus bw (GB/s)",
          f);
    for (size_t k = 0; k < nr; k++)
        fprintf(f, ",rank_%d_ts,rank_%d_dur", ranks[k], ranks[k]);
    for (size_t k = 0; k < nr; k++)
        fprintf(f, ",rank_%d_wait_time", ranks[k]);
    fputc('\n', f);
    size_t m = 0;
    for (size_t i = 0; i < r->n_tl_sync; i++) {
        const tlm_coll_tl_sync_row *s = &r->tl_sync[i];
        csv_str(f, s->collective_id, sizeof s->collective_id);
        SEP(f);
        csv_str(f, s->pg_name, sizeof s->pg_name);
        SEP(f);
        csv_str(f, s->pg_ranks, sizeof s->pg_ranks);
        SEP(f);
        csv_str(f, s->coll_name, sizeof s->coll_name);
        SEP(f);
        csv_int(f, s->group_size, 1);
        SEP(f);
        csv_str(f, s->dtype, sizeof s->dtype);
        SEP(f);
        csv_int(f, s->in_nelems, 1);
        SEP(f);
        csv_int(f, s->out_nelems, 1);
        SEP(f);
        csv_num(f, s->in_mib);
        SEP(f);
        csv_num(f, s->out_mib);
        SEP(f);
        csv_num(f, s->full_mib);
        SEP(f);
        csv_num(f, s->comm_latency_us);
        SEP(f);
        csv_num(f, s->skew_start_us);
        fprintf(f, ",%d,", s->earliest_arrival_rank);
        csv_num(f, s->avg_wait_us);
        SEP(f);
        csv_num(f, s->skew_end_us);
        SEP(f);
        csv_num(f, s->algbw_gibps);
        SEP(f);
        csv_num(f, s->busbw_gibps);
        for (size_t k = 0; k < 3 * nr; k++)
            row[k] = NAN;
        while (m < r->n_tl_smem && smem_before(&r->tl_smem[m], s))
            m++;
        while (m < r->n_tl_smem && smem_of(&r->tl_smem[m], s)) {
            const tlm_coll_tl_sync_member *mm = &r->tl_smem[m];
            for (size_t k = 0; k < nr; k++) {
                if (ranks[k] == mm->rank) {
                    row[3 * k] = mm->ts_us;
                    row[3 * k + 1] = mm->dur_us;
                    row[3 * k + 2] = mm->wait_us;
                }
            }
            m++;
        }
        for (size_t k = 0; k < nr; k++) {
            SEP(f);
            csv_num(f, row[3 * k]);
            SEP(f);
            csv_num(f, row[3 * k + 1]);
        }
        for (size_t k = 0; k < nr; k++) {
            SEP(f);
            csv_num(f, row[3 * k + 2]);
        }
        fputc('\n', f);
    }
    free(ranks);
    free(row);
    return out_close(&o, err);
}

static tlm_status sheet_straggler(const tlm_mpi_results *r, const dest *dir,
                                  tlm_error *err)
{
    if (r->n_tl_strag == 0)
        return TLM_OK; /* TraceLens writes the sheet only when non-empty */
    out o;
    tlm_status st = out_open(&o, dir, "straggler_summary.csv", err);
    if (st != TLM_OK)
        return st;
    FILE *f = o.f;
    fputs("rank,total_wait_time_us,mean_wait_time_us,times_arrived_last,"
          "times_arrived_first,pct_arrived_last,num_collectives,"
          "total_nccl_dur_us\n",
          f);
    for (size_t i = 0; i < r->n_tl_strag; i++) {
        const tlm_coll_tl_straggler_row *s = &r->tl_strag[i];
        fprintf(f, "%d,", s->rank);
        csv_num(f, s->total_wait_time_us);
        SEP(f);
        csv_num(f, s->mean_wait_time_us);
        fprintf(f, ",%lld,%lld,", (long long)s->times_arrived_last,
                (long long)s->times_arrived_first);
        csv_num(f, s->pct_arrived_last);
        fprintf(f, ",%lld,", (long long)s->num_collectives);
        csv_num(f, s->total_nccl_dur_us);
        fputc('\n', f);
    }
    return out_close(&o, err);
}

static tlm_status sheet_long(const tlm_mpi_results *r, const dest *dir,
                             tlm_error *err)
{
    out o;
    tlm_status st = out_open(&o, dir, "nccl_long.csv", err);
    if (st != TLM_OK)
        return st;
    FILE *f = o.f;
    fputs("collective_id,index_in_group,rank,Process Group Name,Process "
          "Group Ranks,Collective name,Group size,dtype,In msg nelems,In msg "
          "size (MB),Out msg nelems,Out msg size (MB),In split size,Out "
          "split size,stream,ts,dur\n",
          f);
    for (size_t i = 0; i < r->n_tl_long; i++) {
        const tlm_mpi_tl_long *e = &r->tl_long[i];
        csv_str(f, e->row.collective_id, sizeof e->row.collective_id);
        fprintf(f, ",%lld,%d,", (long long)e->row.index_in_group, e->row.rank);
        csv_str(f, e->row.pg_name, sizeof e->row.pg_name);
        SEP(f);
        csv_str(f, e->pg_ranks, sizeof e->pg_ranks);
        SEP(f);
        csv_str(f, e->coll_name, sizeof e->coll_name);
        SEP(f);
        csv_int(f, e->group_size, 1);
        SEP(f);
        csv_str(f, e->dtype, sizeof e->dtype);
        SEP(f);
        csv_int(f, e->in_nelems, 1);
        SEP(f);
        csv_num(f, e->row.in_mib);
        SEP(f);
        csv_int(f, e->out_nelems, 1);
        SEP(f);
        csv_num(f, e->row.out_mib);
        SEP(f);
        csv_str(f, e->in_split, sizeof e->in_split);
        SEP(f);
        csv_str(f, e->out_split, sizeof e->out_split);
        SEP(f);
        csv_int(f, e->stream, 1);
        SEP(f);
        csv_num(f, e->row.ts_us);
        SEP(f);
        csv_num(f, e->row.dur_us);
        fputc('\n', f);
    }
    return out_close(&o, err);
}

/* nccl_summary_long: group by the eleven key columns (groups with a None
 * key dropped, as pandas' groupby), aggregate dur, sort by dur_sum desc. */
typedef struct lgrp {
    const tlm_mpi_tl_long *first;
    double sum, sumsq, min, max;
    int64_t n;
} lgrp;

static int cmp_long_key(const tlm_mpi_tl_long *a, const tlm_mpi_tl_long *b)
{
    int c;
    if (a->row.rank != b->row.rank)
        return a->row.rank < b->row.rank ? -1 : 1;
    if ((c = strncmp(a->row.pg_name, b->row.pg_name, sizeof a->row.pg_name)))
        return c;
    if ((c = strncmp(a->pg_ranks, b->pg_ranks, sizeof a->pg_ranks)))
        return c;
    if ((c = strncmp(a->coll_name, b->coll_name, sizeof a->coll_name)))
        return c;
    if (a->group_size != b->group_size)
        return a->group_size < b->group_size ? -1 : 1;
    if ((c = strncmp(a->dtype, b->dtype, sizeof a->dtype)))
        return c;
    if (a->in_nelems != b->in_nelems)
        return a->in_nelems < b->in_nelems ? -1 : 1;
    if (a->out_nelems != b->out_nelems)
        return a->out_nelems < b->out_nelems ? -1 : 1;
    if ((c = strncmp(a->in_split, b->in_split, sizeof a->in_split)))
        return c;
    if ((c = strncmp(a->out_split, b->out_split, sizeof a->out_split)))
        return c;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    return 0;
}

static int cmp_long_ptr(const void *a, const void *b)
{
    const tlm_mpi_tl_long *x = *(const tlm_mpi_tl_long *const *)a;
    const tlm_mpi_tl_long *y = *(const tlm_mpi_tl_long *const *)b;
    int c = cmp_long_key(x, y);
    if (c)
        return c;
    return x < y ? -1 : (x > y);
}

static int cmp_grp(const void *a, const void *b)
{
    const lgrp *x = a, *y = b;
    if (x->sum != y->sum)
        return x->sum > y->sum ? -1 : 1;
    return cmp_long_key(x->first, y->first);
}

static int long_has_keys(const tlm_mpi_tl_long *e)
{
    return e->row.pg_name[0] && e->pg_ranks[0] && e->coll_name[0] &&
           e->group_size >= 0 && e->dtype[0] && e->in_nelems >= 0 &&
           e->out_nelems >= 0 && e->in_split[0] && e->out_split[0] &&
           e->stream >= 0;
}

static tlm_status sheet_summary_long(const tlm_mpi_results *r,
                                     const dest *dir, tlm_error *err)
{
    size_t n = r->n_tl_long;
    const tlm_mpi_tl_long **p = malloc((n ? n : 1) * sizeof *p);
    lgrp *g = malloc((n ? n : 1) * sizeof *g);
    if (!p || !g) {
        free(p);
        free(g);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (long_has_keys(&r->tl_long[i]))
            p[k++] = &r->tl_long[i];
    qsort(p, k, sizeof *p, cmp_long_ptr);
    size_t ng = 0;
    for (size_t i = 0; i < k; i++) {
        double d = p[i]->row.dur_us;
        if (ng == 0 || cmp_long_key(g[ng - 1].first, p[i]) != 0) {
            g[ng].first = p[i];
            g[ng].sum = 0;
            g[ng].sumsq = 0;
            g[ng].min = d;
            g[ng].max = d;
            g[ng].n = 0;
            ng++;
        }
        lgrp *q = &g[ng - 1];
        q->sum += d;
        q->sumsq += d * d;
        q->min = d < q->min ? d : q->min;
        q->max = d > q->max ? d : q->max;
        q->n++;
    }
    qsort(g, ng, sizeof *g, cmp_grp);
    out o;
    tlm_status st = out_open(&o, dir, "nccl_summary_long.csv", err);
    if (st == TLM_OK) {
        FILE *f = o.f;
        fputs("rank,Process Group Name,Process Group Ranks,Collective "
              "name,Group size,dtype,In msg nelems,Out msg nelems,In split "
              "size,Out split size,stream,In msg size (MB)_first,Out msg "
              "size (MB)_first,dur_sum,dur_mean,dur_std,dur_min,dur_max,"
              "operation_count\n",
              f);
        for (size_t i = 0; i < ng; i++) {
            const tlm_mpi_tl_long *e = g[i].first;
            fprintf(f, "%d,", e->row.rank);
            csv_str(f, e->row.pg_name, sizeof e->row.pg_name);
            SEP(f);
            csv_str(f, e->pg_ranks, sizeof e->pg_ranks);
            SEP(f);
            csv_str(f, e->coll_name, sizeof e->coll_name);
            fprintf(f, ",%lld,", (long long)e->group_size);
            csv_str(f, e->dtype, sizeof e->dtype);
            fprintf(f, ",%lld,%lld,", (long long)e->in_nelems,
                    (long long)e->out_nelems);
            csv_str(f, e->in_split, sizeof e->in_split);
            SEP(f);
            csv_str(f, e->out_split, sizeof e->out_split);
            fprintf(f, ",%lld,", (long long)e->stream);
            csv_num(f, e->row.in_mib);
            SEP(f);
            csv_num(f, e->row.out_mib);
            double mean = g[i].sum / (double)g[i].n;
            double var = g[i].n > 1 ? (g[i].sumsq - g[i].sum * mean) /
                                          (double)(g[i].n - 1)
                                    : NAN;
            SEP(f);
            csv_num(f, g[i].sum);
            SEP(f);
            csv_num(f, mean);
            SEP(f);
            csv_num(f, g[i].n > 1 ? sqrt(var > 0 ? var : 0) : NAN);
            SEP(f);
            csv_num(f, g[i].min);
            SEP(f);
            csv_num(f, g[i].max);
            fprintf(f, ",%lld\n", (long long)g[i].n);
        }
        st = out_close(&o, err);
    }
    free(p);
    free(g);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - report.md
 * ------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : (x > y);
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* One line of the timeline table: min (rank), median, max (rank) and the
 * rank farthest from the median, named when it is more than 5% (and at
 * least 1 us) away. */
static void spread_line(FILE *f, const tlm_mpi_results *r, const char *label,
                        size_t off, int64_t *tmp)
{
    size_t n = r->n_traces;
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    int32_t rmn = -1, rmx = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t v = *(const int64_t *)(const void *)((const char *)&r
                                                         ->timeline[i] +
                                                     off);
        tmp[i] = v;
        if (v < mn) {
            mn = v;
            rmn = r->timeline[i].trace_rank;
        }
        if (v > mx) {
            mx = v;
            rmx = r->timeline[i].trace_rank;
        }
    }
    qsort(tmp, n, sizeof *tmp, cmp_i64);
    double med = n % 2 ? (double)tmp[n / 2]
                       : 0.5 * ((double)tmp[n / 2 - 1] + (double)tmp[n / 2]);
    double dmn = med - (double)mn, dmx = (double)mx - med;
    int32_t out_rank = dmx >= dmn ? rmx : rmn;
    double dev = dmx >= dmn ? dmx : dmn;
    fprintf(f, "| %s | %.3f (rank %d) | %.3f | %.3f (rank %d) | ", label,
            ms(mn), rmn, med / 1e6, ms(mx), rmx);
    if (n >= 3 && dev > 0.05 * (med > 0 ? med : 1) && dev >= 1000.0)
        fprintf(f, "rank %d (%+.3f ms vs median) |\n", out_rank,
                (dmx >= dmn ? dev : -dev) / 1e6);
    else
        fputs("- |\n", f);
}

static const char *flags_text(uint32_t fl, char *buf, size_t cap)
{
    buf[0] = 0;
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{TLM_COLL_CLOCK_REFERENCE, "reference"},
                 {TLM_COLL_CLOCK_NO_DATA, "no data"},
                 {TLM_COLL_CLOCK_CLAMPED, "clamped"},
                 {TLM_COLL_CLOCK_INFEASIBLE, "infeasible"},
                 {TLM_COLL_CLOCK_LARGE, "large"},
                 {TLM_COLL_CLOCK_NOISY, "noisy"}};
    size_t len = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (fl & names[i].bit) {
            int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "",
                             names[i].name);
            if (w > 0 && (size_t)w < cap - len)
                len += (size_t)w;
        }
    }
    return buf;
}

static int cmp_strag_caused(const void *a, const void *b)
{
    const tlm_coll_straggler_row *x = *(const tlm_coll_straggler_row *const *)a;
    const tlm_coll_straggler_row *y = *(const tlm_coll_straggler_row *const *)b;
    if (x->wait_caused_corr_ns != y->wait_caused_corr_ns)
        return x->wait_caused_corr_ns > y->wait_caused_corr_ns ? -1 : 1;
    return x->trace_rank - y->trace_rank;
}

static tlm_status report_md(const tlm_mpi_results *r, const dest *dir,
                            tlm_error *err)
{
    out o;
    tlm_status st = out_open(&o, dir, "report.md", err);
    if (st != TLM_OK)
        return st;
    FILE *f = o.f;
    size_t n = r->n_traces;
    int64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    const tlm_coll_straggler_row **sp =
        malloc((r->n_strag ? r->n_strag : 1) * sizeof *sp);
    if (!tmp || !sp) {
        free(tmp);
        free(sp);
        fclose(o.f);
        unlink(o.tmp);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }

    fprintf(f, "# tlmpi report\n\n## The job at a glance\n\n");
    fprintf(f, "- traces: %zu of world size %lld, %.1f MB read by %d MPI "
               "rank%s in %.2f s\n",
            n, (long long)r->world_size, (double)r->bytes_read / 1e6,
            r->nprocs, r->nprocs > 1 ? "s" : "", r->elapsed_s);
    fprintf(f, "- time: reading and per-trace tables %.2f s, collective "
               "exchange and matching %.2f s, HDF5 write %.2f s\n",
            r->t_read_s, r->t_collectives_s, r->t_hdf5_s);
    fprintf(f, "- HDF5 file: `%s` (schema v%d; load with "
               "`scripts/tlmpi_h5.py`)\n",
            r->h5_path, TLM_MPI_SCHEMA_VERSION);
    size_t n_inc = 0;
    for (size_t i = 0; i < r->n_inst; i++)
        n_inc += (r->inst[i].flags & TLM_COLL_INST_INCOMPLETE) != 0;
    fprintf(f, "- collective instances matched across ranks: %zu (%zu with "
               "missing ranks); NCCL kernels left unmatched: %zu\n",
            r->n_inst, n_inc, r->n_unmatched);
    fprintf(f, "- TraceLens parity mode: %s\n\n",
            r->tl_simplified ? "simplified (no process group names)"
                             : "regular");

    fprintf(f, "## GPU timeline across ranks (ms)\n\n");
    if (n == 0) {
        fputs("No traces.\n\n", f);
    } else {
        fputs("| metric | min | median | max | outlier |\n"
              "|---|---|---|---|---|\n",
              f);
#define LINE_(label, field) \
    spread_line(f, r, label, offsetof(tlm_row_timeline, field), tmp)
        LINE_("total (first to last GPU event)", total_ns);
        LINE_("busy", busy_ns);
        LINE_("idle", idle_ns);
        LINE_("computation", computation_ns);
        LINE_("exposed communication", exposed_comm_ns);
        LINE_("total communication", total_comm_ns);
        LINE_("exposed memcpy/memset", exposed_memcpy_ns);
#undef LINE_
        fputs("\n### Exposed communication per rank\n\n"
              "| rank | exposed comm (ms) | total comm (ms) | % of "
              "timeline |\n|---|---|---|---|\n",
              f);
        for (size_t i = 0; i < n; i++) {
            const tlm_row_timeline *t = &r->timeline[i];
            fprintf(f, "| %d | %.3f | %.3f | %.1f |\n", t->trace_rank,
                    ms(t->exposed_comm_ns), ms(t->total_comm_ns),
                    t->total_ns > 0 ? 100.0 * (double)t->exposed_comm_ns /
                                          (double)t->total_ns
                                    : 0.0);
            if (i == 63 && n > 65) {
                fprintf(f, "| ... | %zu more ranks in /timeline | | |\n",
                        n - 64);
                break;
            }
        }
        fputc('\n', f);
    }

    fprintf(f, "## Top ops, merged across ranks (by GPU kernel time they "
               "launch)\n\n");
    if (r->n_ops == 0) {
        fputs("No ops with GPU kernels.\n\n", f);
    } else {
        fputs("| op | ranks | calls | kernel time, all ranks (ms) | per rank, "
              "mean (ms) | slowest rank (ms) | % |\n"
              "|---|---|---|---|---|---|---|\n",
              f);
        for (size_t i = 0; i < r->n_ops && i < 15; i++) {
            const tlm_row_op_merged *m = &r->ops[i];
            fprintf(f, "| `%.*s` | %d | %lld | %.3f | %.3f | rank %d: %.3f | "
                       "%.1f |\n",
                    80, m->name, m->n_ranks, (long long)m->count,
                    m->direct_kernel_ns / 1e6, m->mean_rank_ns / 1e6,
                    m->max_rank, m->max_rank_ns / 1e6, m->percent);
        }
        fputs("\nPer rank: `/ops/per_rank`, `/ops_unique_args` and "
              "`/kernels` in the HDF5 file.\n\n",
              f);
    }

    fprintf(f, "## Collectives (top 20 by total latency)\n\n");
    if (r->n_sum == 0) {
        fputs("No collective instances.\n\n", f);
    } else {
        fputs("| process group | collective | dtype | bytes | count | total "
              "latency (ms) | mean latency (us) | mean bus bw (GB/s) | mean "
              "start skew (us, corrected) |\n"
              "|---|---|---|---|---|---|---|---|---|\n",
              f);
        for (size_t i = 0; i < r->n_sum && i < 20; i++) {
            const tlm_coll_summary_row *s = &r->sum[i];
            char bw[32], name[48];
            if (isnan(s->busbw_gbps.mean))
                snprintf(bw, sizeof bw, "-");
            else
                snprintf(bw, sizeof bw, "%.2f", s->busbw_gbps.mean);
            if (s->coll_name[0])
                snprintf(name, sizeof name, " (%.*s)",
                         (int)strnlen(s->coll_name, sizeof s->coll_name),
                         s->coll_name);
            else
                name[0] = 0;
            fprintf(f, "| %.*s | %s%s | %.*s | %lld | %lld | %.3f | "
                       "%.3f | %s | %.3f |\n",
                    (int)strnlen(s->pg_name, sizeof s->pg_name), s->pg_name,
                    tlm_coll_type_name((tlm_coll_type)s->coll), name,
                    (int)strnlen(s->dtype_name, sizeof s->dtype_name),
                    s->dtype_name, (long long)s->bytes, (long long)s->count,
                    ms(s->total_latency_ns), s->latency_ns.mean / 1e3, bw,
                    s->start_skew_corr_ns.mean / 1e3);
        }
        fputc('\n', f);
    }

    fprintf(f, "## Stragglers\n\n");
    size_t nsp = 0;
    for (size_t i = 0; i < r->n_strag; i++)
        if (r->strag[i].overall)
            sp[nsp++] = &r->strag[i];
    qsort(sp, nsp, sizeof *sp, cmp_strag_caused);
    if (nsp == 0) {
        fputs("No complete implicit-sync collectives.\n\n", f);
    } else {
        const tlm_coll_straggler_row *t = sp[0];
        if (t->wait_caused_corr_ns > 0)
            fprintf(f, "Rank %d arrives last most expensively: the other "
                       "ranks waited %.3f ms for it in total (corrected "
                       "clocks), it arrived last %.1f times of %lld.\n\n",
                    t->trace_rank, ms(t->wait_caused_corr_ns),
                    (double)t->last_credit_corr_u / 1e6,
                    (long long)t->n_instances);
        fputs("| rank | instances | arrived last (credit) | waits caused "
              "(ms) | own waits (ms) | arrived last, raw clocks |\n"
              "|---|---|---|---|---|---|\n",
              f);
        for (size_t i = 0; i < nsp && i < 16; i++) {
            t = sp[i];
            fprintf(f, "| %d | %lld | %.2f | %.3f | %.3f | %.2f |\n",
                    t->trace_rank, (long long)t->n_instances,
                    (double)t->last_credit_corr_u / 1e6,
                    ms(t->wait_caused_corr_ns), ms(t->wait_suffered_corr_ns),
                    (double)t->last_credit_u / 1e6);
        }
        fputs("\nPer process group: `/stragglers` in the HDF5 file; "
              "TraceLens's table: `straggler_summary.csv`.\n\n",
              f);
    }

    fprintf(f, "## Clock offsets\n\n");
    size_t nz = 0;
    for (size_t i = 0; i < r->n_clk; i++)
        nz += r->clk[i].offset_ns != 0;
    if (r->n_clk == 0) {
        fputs("Not estimated (no collectives).\n\n", f);
    } else {
        fprintf(f, "%zu of %zu ranks have a non-zero estimated clock "
                   "offset (end times of implicit-sync collectives; skews "
                   "and waits \"corrected\" use them).\n\n",
                nz, r->n_clk);
        fputs("| rank | offset (us) | causality bounds (us) | residual MAD "
              "(us) | samples | flags |\n|---|---|---|---|---|---|\n",
              f);
        size_t shown = 0;
        for (size_t i = 0; i < r->n_clk && shown < 64; i++) {
            const tlm_coll_clock *k = &r->clk[i];
            if (r->n_clk > 64 && k->offset_ns == 0)
                continue;
            char fl[128], lo[32], hi[32];
            if (k->lo_ns == INT64_MIN)
                snprintf(lo, sizeof lo, "-inf");
            else
                snprintf(lo, sizeof lo, "%.3f", (double)k->lo_ns / 1e3);
            if (k->hi_ns == INT64_MAX)
                snprintf(hi, sizeof hi, "inf");
            else
                snprintf(hi, sizeof hi, "%.3f", (double)k->hi_ns / 1e3);
            fprintf(f, "| %d | %.3f | [%s, %s] | %.3f | %lld | %s |\n",
                    k->trace_rank, (double)k->offset_ns / 1e3, lo, hi,
                    (double)k->mad_ns / 1e3, (long long)k->n_samples,
                    flags_text(k->flags, fl, sizeof fl));
            shown++;
        }
        fputc('\n', f);
    }
    fputs("## Files\n\n- TraceLens-style CSV sheets: "
          "nccl_summary_implicit_sync.csv, nccl_implicit_sync.csv, "
          "nccl_long.csv, nccl_summary_long.csv, straggler_summary.csv "
          "(µs, MiB as \"MB\", GiB/s as \"GB/s\", as TraceLens)\n",
          f);
    free(tmp);
    free(sp);
    return out_close(&o, err);
}

tlm_status tlm_mpi_report_write(const tlm_mpi_results *r,
                                const char *report_dir, const char *csv_dir,
                                tlm_mpi_pending *pend, tlm_error *err)
{
    dest rd = {report_dir, pend}, cd = {csv_dir, pend};
    tlm_status st = report_md(r, &rd, err);
    if (st == TLM_OK)
        st = sheet_summary(r, &cd, err);
    if (st == TLM_OK)
        st = sheet_summary_long(r, &cd, err);
    if (st == TLM_OK)
        st = sheet_long(r, &cd, err);
    if (st == TLM_OK)
        st = sheet_sync(r, &cd, err);
    if (st == TLM_OK)
        st = sheet_straggler(r, &cd, err);
    if (st != TLM_OK)
        tlm_mpi_pending_abort(pend);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - schema reference
 * ------------------------------------------------------------------ */

static const char *type_text(const tlm_mpi_col *c, char *buf, size_t cap)
{
    switch (c->type) {
    case TLM_MPI_I32:
        return "int32";
    case TLM_MPI_I64:
        return "int64";
    case TLM_MPI_U64:
        return "uint64";
    case TLM_MPI_F64:
        return "float64";
    case TLM_MPI_STR:
        snprintf(buf, cap, "string[%zu]", c->size);
        return buf;
    }
    return "?";
}

void tlm_mpi_schema_markdown(FILE *f)
{
    fprintf(f, "<!-- generated by `tlmpi --print_schema`; do not edit by "
               "hand -->\n\n## Datasets (schema version %d)\n\n",
            TLM_MPI_SCHEMA_VERSION);
    for (size_t t = 0; tlm_mpi_tables[t]; t++) {
        const tlm_mpi_table *tb = tlm_mpi_tables[t];
        fprintf(f, "### `/%s`\n\n%s\n\n| column | type | unit | meaning "
                   "|\n|---|---|---|---|\n",
                tb->name, tb->doc);
        for (size_t i = 0; i < tb->n_cols; i++) {
            char b[32];
            const tlm_mpi_col *c = &tb->cols[i];
            fprintf(f, "| `%s` | %s | %s | %s |\n", c->name,
                    type_text(c, b, sizeof b), c->unit[0] ? c->unit : "-",
                    c->doc);
        }
        fputc('\n', f);
    }
}
