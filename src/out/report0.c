/*
 * report0.c - rank 0's human-readable output: report.md (report0_md.c)
 * and the CSV sheets of TraceLens's multi-rank collective report, with its
 * file and column names ([collectives] §4.1) so existing notebooks
 * keep working.  TraceLens units in those CSVs: µs, MiB ("MB"), GiB/s
 * ("GB/s").
 *
 * Numbers in the CSVs are printed like Python's repr (the shortest text
 * that reads back to the same double), missing values as empty cells, as
 * pandas' to_csv does.  Every file is written to a temporary name; the
 * caller publishes them all (with the HDF5 file) or removes them all.
 */
#include "report0.h"
#include "tlmpi/tlm_hta.h"
#include "report0_out.h"

#include "pyrepr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Python repr of a double; NaN -> "" (pandas writes missing values as
 * empty cells). */
void tlm_out_csv_number(char *buf, size_t cap, double v)
{
    if (isnan(v)) {
        buf[0] = 0;
        return;
    }
    tlm_py_float_repr(v, buf, cap);
}

static void csv_num(FILE *f, double v)
{
    char b[64];
    tlm_out_csv_number(b, sizeof b, v);
    fputs(b, f);
}

static void csv_int(FILE *f, int64_t v, int none_if_negative)
{
    if (none_if_negative && v < 0)
        return;
    tlm_out_put_i64(f, v, 0);
}

/* Quoted when it contains a comma, quote or newline (csv.QUOTE_MINIMAL). */
static void csv_str(FILE *f, const char *s, size_t cap)
{
    tlm_csv_fput(f, s, strnlen(s, cap));
}

/* A CSV row being written: every cell but the first follows a comma. */
typedef struct csvrow {
    FILE *f;
    int n; /* cells written so far */
} csvrow;

static void cell_sep(csvrow *w)
{
    if (w->n++ > 0)
        putc_unlocked(',', w->f);
}

static void cell_num(csvrow *w, double v)
{
    cell_sep(w);
    csv_num(w->f, v);
}

/* none_if_negative: an empty cell (None) for a negative value. */
static void cell_int(csvrow *w, int64_t v, int none_if_negative)
{
    cell_sep(w);
    csv_int(w->f, v, none_if_negative);
}

static void cell_str(csvrow *w, const char *s, size_t cap)
{
    cell_sep(w);
    csv_str(w->f, s, cap);
}

/* A fixed string field as a cell. */
#define CELL_STR(w, field) cell_str((w), (field), sizeof(field))

static void row_end(csvrow *w)
{
    putc_unlocked('\n', w->f);
    w->n = 0;
}

/* ------------------------------------------------------------------ *
 * MARK: - TraceLens sheets
 * ------------------------------------------------------------------ */

static void agg_cols(FILE *f, const char *metric)
{
    static const char *aggs[4] = {"mean", "median", "min", "max"};
    for (int i = 0; i < 4; i++)
        fprintf(f, ",%s_%s", metric, aggs[i]);
}

static void agg_vals(csvrow *w, const tlm_coll_tl_agg *a)
{
    cell_num(w, a->mean);
    cell_num(w, a->median);
    cell_num(w, a->min);
    cell_num(w, a->max);
}

static tlm_status sheet_summary(const tlm_out_results *r,
                                const tlm_out_dest *dir, tlm_error *err)
{
    tlm_out_file o;
    tlm_status st =
        tlm_out_open(&o, dir, "nccl_summary_implicit_sync.csv", err);
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
    csvrow w = {f, 0};
    for (size_t i = 0; i < r->n_tl_sum; i++) {
        const tlm_coll_tl_summary_row *s = &r->tl_sum[i];
        CELL_STR(&w, s->coll_name);
        CELL_STR(&w, s->dtype);
        CELL_STR(&w, s->in_nelems);
        CELL_STR(&w, s->pg_name);
        cell_int(&w, s->group_size, 1);
        cell_num(&w, s->full_mib);
        agg_vals(&w, &s->comm_latency_us);
        agg_vals(&w, &s->skew_start_us);
        agg_vals(&w, &s->skew_end_us);
        if (algo)
            agg_vals(&w, &s->algbw_gibps);
        if (bus)
            agg_vals(&w, &s->busbw_gibps);
        cell_int(&w, s->count, 0);
        cell_num(&w, s->total_comm_latency_ms);
        row_end(&w);
    }
    return tlm_out_close(&o, err);
}

/* The per-rank columns of nccl_implicit_sync: the ranks of the rows'
 * members (r->tl_smem at each row's mem_off, tlm_coll_tl_order) as they
 * first appear. */
static tlm_status sync_columns(const tlm_out_results *r, tlm_out_tlcols *c,
                               tlm_error *err)
{
    size_t nm = r->n_tl_smem, k = 0;
    int32_t *rk = malloc((nm ? nm : 1) * sizeof *rk);
    int32_t *rw = malloc((nm ? nm : 1) * sizeof *rw);
    tlm_status st = TLM_ENOMEM;
    memset(c, 0, sizeof *c);
    if (rk && rw) {
        for (size_t i = 0; i < r->n_tl_sync; i++) {
            const tlm_coll_tl_sync_row *s = &r->tl_sync[i];
            for (int32_t q = 0; s->mem_off >= 0 && q < s->n_ranks &&
                                (size_t)s->mem_off + (size_t)q < nm;
                 q++) {
                rk[k] = r->tl_smem[s->mem_off + q].rank;
                rw[k++] = (int32_t)i;
            }
        }
        st = tlm_out_tlcols_make(rk, rw, k, c, err);
    } else {
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    free(rk);
    free(rw);
    return st;
}

/* The per-rank cells of sync row s: ts, dur and wait of each column's
 * rank (NaN where it is not a member) into row[3 * column ...]. */
static void sync_members(const tlm_out_results *r,
                         const tlm_coll_tl_sync_row *s,
                         const tlm_out_tlcols *c, double *row)
{
    for (size_t k = 0; k < 3 * c->n; k++)
        row[k] = NAN;
    for (int32_t q = 0; s->mem_off >= 0 && q < s->n_ranks &&
                        (size_t)s->mem_off + (size_t)q < r->n_tl_smem;
         q++) {
        const tlm_coll_tl_sync_member *mm = &r->tl_smem[s->mem_off + q];
        int64_t k = tlm_out_tlcols_find(c, mm->rank);
        if (k < 0)
            continue;
        row[3 * k] = mm->ts_us;
        row[3 * k + 1] = mm->dur_us;
        row[3 * k + 2] = mm->wait_us;
    }
}

/* The columns of nccl_implicit_sync that do not depend on the ranks. */
static void sync_cells(csvrow *w, const tlm_coll_tl_sync_row *s)
{
    CELL_STR(w, s->collective_id);
    CELL_STR(w, s->pg_name);
    CELL_STR(w, s->pg_ranks);
    CELL_STR(w, s->coll_name);
    cell_int(w, s->group_size, 1);
    CELL_STR(w, s->dtype);
    cell_int(w, s->in_nelems, 1);
    cell_int(w, s->out_nelems, 1);
    cell_num(w, s->in_mib);
    cell_num(w, s->out_mib);
    cell_num(w, s->full_mib);
    cell_num(w, s->comm_latency_us);
    cell_num(w, s->skew_start_us);
    cell_int(w, s->earliest_arrival_rank, 0);
    cell_num(w, s->avg_wait_us);
    cell_num(w, s->skew_end_us);
    cell_num(w, s->algbw_gibps);
    cell_num(w, s->busbw_gibps);
}

static tlm_status sheet_sync(const tlm_out_results *r,
                             const tlm_out_dest *dir, tlm_error *err)
{
    long gpn = r->opts ? r->opts->gpus_per_node : -1;
    tlm_out_tlcols c;
    tlm_status st = sync_columns(r, &c, err);
    if (st != TLM_OK)
        return st;
    double *row = malloc(3 * (c.n ? c.n : 1) * sizeof *row);
    tlm_out_file o;
    if (!row)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    else
        st = tlm_out_open(&o, dir, "nccl_implicit_sync.csv", err);
    if (st != TLM_OK) {
        free(row);
        tlm_out_tlcols_free(&c);
        return st;
    }
    FILE *f = o.f;
    fputs("collective_id,Process Group Name,Process Group Ranks,Collective "
          "name,Group size,dtype,In msg nelems,Out msg nelems,In msg size "
          "(MB),Out msg size (MB),Full msg size (MB),comm_latency,skew in "
          "start time,earliest arrival rank,avg_wait_time,skew in end "
          "time,algo bw (GB/s),bus bw (GB/s)",
          f);
    /* TraceLens's columns: per row that brings new ranks, their ts and
     * dur, then their wait_time */
    for (size_t s = 0; s < c.n;) {
        size_t e = tlm_out_tlcols_batch_end(&c, s);
        for (size_t k = s; k < e; k++)
            fprintf(f, ",rank_%d_ts,rank_%d_dur", c.cols[k], c.cols[k]);
        for (size_t k = s; k < e; k++)
            fprintf(f, ",rank_%d_wait_time", c.cols[k]);
        s = e;
    }
    fputs(gpn > 0 && r->n_tl_sync ? ",node_span\n" : "\n", f);
    csvrow w = {f, 0};
    for (size_t i = 0; i < r->n_tl_sync; i++) {
        const tlm_coll_tl_sync_row *s = &r->tl_sync[i];
        sync_cells(&w, s);
        sync_members(r, s, &c, row);
        for (size_t b = 0; b < c.n;) {
            size_t e = tlm_out_tlcols_batch_end(&c, b);
            for (size_t k = b; k < e; k++) {
                cell_num(&w, row[3 * k]);
                cell_num(&w, row[3 * k + 1]);
            }
            for (size_t k = b; k < e; k++)
                cell_num(&w, row[3 * k + 2]);
            b = e;
        }
        if (gpn > 0)
            cell_str(&w, tlm_out_node_span(s->pg_ranks, sizeof s->pg_ranks,
                                           gpn),
                     32);
        row_end(&w);
    }
    free(row);
    tlm_out_tlcols_free(&c);
    return tlm_out_close(&o, err);
}

static tlm_status sheet_straggler(const tlm_out_results *r,
                                  const tlm_out_dest *dir, tlm_error *err)
{
    if (r->n_tl_strag == 0)
        return TLM_OK; /* TraceLens writes the sheet only when non-empty */
    tlm_out_file o;
    tlm_status st = tlm_out_open(&o, dir, "straggler_summary.csv", err);
    if (st != TLM_OK)
        return st;
    FILE *f = o.f;
    fputs("rank,total_wait_time_us,mean_wait_time_us,times_arrived_last,"
          "times_arrived_first,pct_arrived_last,num_collectives,"
          "total_nccl_dur_us",
          f);
    long gpn = r->opts ? r->opts->gpus_per_node : -1;
    fputs(gpn > 0 ? ",node_id\n" : "\n", f);
    csvrow w = {f, 0};
    for (size_t i = 0; i < r->n_tl_strag; i++) {
        const tlm_coll_tl_straggler_row *s = &r->tl_strag[i];
        cell_int(&w, s->rank, 0);
        cell_num(&w, s->total_wait_time_us);
        cell_num(&w, s->mean_wait_time_us);
        cell_int(&w, s->times_arrived_last, 0);
        cell_int(&w, s->times_arrived_first, 0);
        cell_num(&w, s->pct_arrived_last);
        cell_int(&w, s->num_collectives, 0);
        cell_num(&w, s->total_nccl_dur_us);
        if (gpn > 0)
            cell_int(&w, s->rank / gpn, 0);
        row_end(&w);
    }
    return tlm_out_close(&o, err);
}

static tlm_status sheet_long(const tlm_out_results *r,
                             const tlm_out_dest *dir, tlm_error *err)
{
    tlm_out_file o;
    tlm_status st = tlm_out_open(&o, dir, "nccl_long.csv", err);
    if (st != TLM_OK)
        return st;
    FILE *f = o.f;
    fputs("collective_id,index_in_group,rank,Process Group Name,Process "
          "Group Ranks,Collective name,Group size,dtype,In msg nelems,In msg "
          "size (MB),Out msg nelems,Out msg size (MB),In split size,Out "
          "split size,stream,ts,dur",
          f);
    long gpn = r->opts ? r->opts->gpus_per_node : -1;
    fputs(gpn > 0 && r->n_tl_long ? ",node_id,node_span\n" : "\n", f);
    csvrow w = {f, 0};
    for (size_t i = 0; i < r->n_tl_long; i++) {
        const tlm_out_tl_long *e = &r->tl_long[i];
        CELL_STR(&w, e->row.collective_id);
        cell_int(&w, e->row.index_in_group, 0);
        cell_int(&w, e->row.rank, 0);
        CELL_STR(&w, e->row.pg_name);
        CELL_STR(&w, e->pg_ranks);
        CELL_STR(&w, e->coll_name);
        cell_int(&w, e->group_size, 1);
        CELL_STR(&w, e->dtype);
        cell_int(&w, e->in_nelems, 1);
        cell_num(&w, e->row.in_mib);
        cell_int(&w, e->out_nelems, 1);
        cell_num(&w, e->row.out_mib);
        CELL_STR(&w, e->in_split);
        CELL_STR(&w, e->out_split);
        cell_int(&w, e->stream, 1);
        cell_num(&w, e->row.ts_us);
        cell_num(&w, e->row.dur_us);
        if (gpn > 0) {
            cell_int(&w, e->row.rank / gpn, 0);
            cell_str(&w, tlm_out_node_span(e->pg_ranks, sizeof e->pg_ranks,
                                           gpn),
                     32);
        }
        row_end(&w);
    }
    return tlm_out_close(&o, err);
}

/* nccl_summary_long: group by the eleven key columns (groups with a None
 * key dropped, as pandas' groupby), aggregate dur, sort by dur_sum desc. */
typedef struct lgrp {
    const tlm_out_tl_long *first;
    double sum, sumsq, min, max;
    int64_t n;
} lgrp;

static int cmp_long_key(const tlm_out_tl_long *a, const tlm_out_tl_long *b)
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
    const tlm_out_tl_long *x = *(const tlm_out_tl_long *const *)a;
    const tlm_out_tl_long *y = *(const tlm_out_tl_long *const *)b;
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

static int long_has_keys(const tlm_out_tl_long *e)
{
    return e->row.pg_name[0] && e->pg_ranks[0] && e->coll_name[0] &&
           e->group_size >= 0 && e->dtype[0] && e->in_nelems >= 0 &&
           e->out_nelems >= 0 && e->in_split[0] && e->out_split[0] &&
           e->stream >= 0;
}

/* Groups the nccl_long rows that have every key (p: room for n pointers)
 * into g, sorted by dur_sum, descending; returns the number of groups. */
static size_t group_long(const tlm_out_results *r, const tlm_out_tl_long **p,
                         lgrp *g)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n_tl_long; i++)
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
    return ng;
}

/* One nccl_summary_long row: the group's keys, then dur statistics. */
static void summary_long_row(csvrow *w, const lgrp *g, long gpn)
{
    const tlm_out_tl_long *e = g->first;
    cell_int(w, e->row.rank, 0);
    CELL_STR(w, e->row.pg_name);
    CELL_STR(w, e->pg_ranks);
    CELL_STR(w, e->coll_name);
    cell_int(w, e->group_size, 0);
    CELL_STR(w, e->dtype);
    cell_int(w, e->in_nelems, 0);
    cell_int(w, e->out_nelems, 0);
    CELL_STR(w, e->in_split);
    CELL_STR(w, e->out_split);
    cell_int(w, e->stream, 0);
    cell_num(w, e->row.in_mib);
    cell_num(w, e->row.out_mib);
    double mean = g->sum / (double)g->n;
    double var = g->n > 1 ? (g->sumsq - g->sum * mean) / (double)(g->n - 1)
                          : NAN;
    cell_num(w, g->sum);
    cell_num(w, mean);
    cell_num(w, g->n > 1 ? sqrt(var > 0 ? var : 0) : NAN);
    cell_num(w, g->min);
    cell_num(w, g->max);
    cell_int(w, g->n, 0);
    if (gpn > 0) {
        cell_int(w, e->row.rank / gpn, 0);
        cell_str(w, tlm_out_node_span(e->pg_ranks, sizeof e->pg_ranks, gpn),
                 32);
    }
    row_end(w);
}

static tlm_status sheet_summary_long(const tlm_out_results *r,
                                     const tlm_out_dest *dir, tlm_error *err)
{
    size_t n = r->n_tl_long;
    const tlm_out_tl_long **p = malloc((n ? n : 1) * sizeof *p);
    lgrp *g = malloc((n ? n : 1) * sizeof *g);
    if (!p || !g) {
        free(p);
        free(g);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    size_t ng = group_long(r, p, g);
    tlm_out_file o;
    tlm_status st = tlm_out_open(&o, dir, "nccl_summary_long.csv", err);
    if (st == TLM_OK) {
        fputs("rank,Process Group Name,Process Group Ranks,Collective "
              "name,Group size,dtype,In msg nelems,Out msg nelems,In split "
              "size,Out split size,stream,In msg size (MB)_first,Out msg "
              "size (MB)_first,dur_sum,dur_mean,dur_std,dur_min,dur_max,"
              "operation_count",
              o.f);
        /* TraceLens adds the node columns to a sheet with rows only */
        long gpn = r->opts && ng ? r->opts->gpus_per_node : -1;
        fputs(gpn > 0 ? ",node_id,node_span\n" : "\n", o.f);
        csvrow w = {o.f, 0};
        for (size_t i = 0; i < ng; i++)
            summary_long_row(&w, &g[i], gpn);
        st = tlm_out_close(&o, err);
    }
    free(p);
    free(g);
    return st;
}

/* In TraceLens's order (its workbook's sheets follow it). */
const char *const tlm_out_report_csvs[] = {
    "nccl_summary_implicit_sync.csv", "nccl_summary_long.csv",
    "nccl_summary_all2allv.csv", "nccl_long.csv", "nccl_implicit_sync.csv",
    "nccl_all2allv.csv", "straggler_summary.csv", "findings.csv", NULL};

/* findings.csv: the collective findings (/findings), always written. */
static tlm_status sheet_findings(const tlm_out_results *r,
                                 const tlm_out_dest *dir, tlm_error *err)
{
    tlm_out_file o;
    tlm_status st = tlm_out_open(&o, dir, "findings.csv", err);
    if (st != TLM_OK)
        return st;
    tlm_out_table_csv(o.f, &tlm_tab_findings, r->find, r->n_find);
    return tlm_out_close(&o, err);
}

tlm_status tlm_out_report_write(const tlm_out_results *r,
                                const char *report_dir, const char *csv_dir,
                                tlm_outset *set, tlm_error *err)
{
    return tlm_out_report_write_parts(r, TLM_OUT_PART_ALL, report_dir,
                                      csv_dir, set, NULL, err);
}

tlm_status tlm_out_report_write_parts(const tlm_out_results *r,
                                      unsigned parts, const char *report_dir,
                                      const char *csv_dir, tlm_outset *set,
                                      tlm_out_memset *mem, tlm_error *err)
{
    tlm_out_dest rd = {report_dir, set, mem}, cd = {csv_dir, set, mem};
    int m = (parts & TLM_OUT_PART_MAIN) != 0;
    int l = (parts & TLM_OUT_PART_LONG) != 0;
    tlm_status st = TLM_OK;
    if (m)
        st = tlm_out_report_md(r, &rd, err);
    if (st == TLM_OK && m)
        st = sheet_summary(r, &cd, err);
    if (st == TLM_OK && m)
        st = sheet_summary_long(r, &cd, err);
    if (st == TLM_OK && l) /* only when there are all_to_allv collectives */
        st = tlm_out_sheets_a2a(r, 1, &cd, err);
    if (st == TLM_OK && l)
        st = sheet_long(r, &cd, err);
    if (st == TLM_OK && m)
        st = sheet_sync(r, &cd, err);
    if (st == TLM_OK && l)
        st = tlm_out_sheets_a2a(r, 0, &cd, err);
    if (st == TLM_OK && m)
        st = sheet_straggler(r, &cd, err);
    if (st == TLM_OK && m)
        st = sheet_findings(r, &cd, err);
    if (st != TLM_OK && !mem)
        tlm_outset_abort(set);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - schema reference
 * ------------------------------------------------------------------ */

static const char *type_text(const tlm_col *c, char *buf, size_t cap)
{
    switch (c->type) {
    case TLM_CT_I32:
        return "int32";
    case TLM_CT_I64:
        return "int64";
    case TLM_CT_U64:
        return "uint64";
    case TLM_CT_F64:
        return "float64";
    case TLM_CT_STR:
        snprintf(buf, cap, "string[%zu]", c->size);
        return buf;
    }
    return "?";
}

/* The /hta part of --print_schema: HTA's tables (tlm_hta_table_def). */
static void hta_schema(FILE *f)
{
    const char *name, *doc;
    const tlm_hta_col *cols;
    size_t nc;
    fputs("### `/hta/<table>` (with `--hta`)\n\nHTA's per-rank tables "
          "(docs/hta.md): one compound dataset per table, field names = "
          "the CSV headers of `<csv dir>/hta/<table>.csv`, rows of all "
          "ranks in rank order; text fields as wide as their longest "
          "value, at most 65536 bytes (longer text is cut there).\n\n",
          f);
    for (size_t i = 0; tlm_hta_table_def(i, &name, &doc, &cols, &nc); i++) {
        fprintf(f, "#### `/hta/%s`\n\n%s\n\n| column | type | unit |\n"
                   "|---|---|---|\n",
                name, doc);
        for (size_t k = 0; k < nc; k++)
            fprintf(f, "| `%s` | %s | %s |\n", cols[k].name,
                    cols[k].type == TLM_HTA_I64   ? "int64"
                    : cols[k].type == TLM_HTA_F64 ? "float64"
                                                  : "string",
                    cols[k].unit[0] ? cols[k].unit : "-");
        fputc('\n', f);
    }
}

void tlm_out_schema_markdown(FILE *f)
{
    fprintf(f, "<!-- generated by `tlmpi --print_schema`; do not edit by "
               "hand -->\n\n## Datasets (schema version %d)\n\n",
            TLM_SCHEMA_VERSION);
    tlm_out_schema_tables(f, tlm_rowtabs);
    hta_schema(f);
}

void tlm_out_schema_tables(FILE *f, const tlm_rowtab *const *tabs)
{
    for (size_t t = 0; tabs[t]; t++) {
        const tlm_rowtab *tb = tabs[t];
        fprintf(f, "### `/%s`\n\n%s\n\n| column | type | unit | meaning "
                   "|\n|---|---|---|---|\n",
                tb->name, tb->doc);
        for (size_t i = 0; i < tb->n_cols; i++) {
            char b[32];
            const tlm_col *c = &tb->cols[i];
            fprintf(f, "| `%s` | %s | %s | %s |\n", c->name,
                    type_text(c, b, sizeof b), c->unit[0] ? c->unit : "-",
                    c->doc);
        }
        fputc('\n', f);
    }
}

void tlm_out_table_csv(FILE *f, const tlm_rowtab *t, const void *rows,
                       size_t n)
{
    for (size_t i = 0; i < t->n_cols; i++)
        fprintf(f, "%s%s", i ? "," : "", t->cols[i].name);
    fputc('\n', f);
    for (size_t r = 0; r < n; r++) {
        const char *row = (const char *)rows + r * t->row_size;
        for (size_t i = 0; i < t->n_cols; i++) {
            const tlm_col *c = &t->cols[i];
            const char *p = row + c->offset;
            int32_t i32;
            int64_t i64;
            uint64_t u64;
            double d;
            if (i)
                fputc(',', f);
            switch (c->type) {
            case TLM_CT_I32: memcpy(&i32, p, 4); fprintf(f, "%d", i32); break;
            case TLM_CT_I64:
                memcpy(&i64, p, 8);
                fprintf(f, "%lld", (long long)i64);
                break;
            case TLM_CT_U64:
                memcpy(&u64, p, 8);
                fprintf(f, "%llu", (unsigned long long)u64);
                break;
            case TLM_CT_F64: memcpy(&d, p, 8); csv_num(f, d); break;
            case TLM_CT_STR: csv_str(f, p, c->size); break;
            }
        }
        fputc('\n', f);
    }
}
