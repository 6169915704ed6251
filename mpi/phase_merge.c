/*
 * phase_merge.c - the per-trace report tables (ops_summary,
 * ops_unique_args, kernel_summary rows kept by src/job/job_tables.c) stay
 * where they were kept, in read order: the write phase writes each
 * trace's span as a segment (phase_write.c, write_spans); the ops of every
 * trace are merged by name on rank 0, every process's rows streamed to it
 * in the merge's order, a chunk at a time (/ops/merged and report.md's top
 * ops; src/job/job_merge.c).  One module of the driver (module.h, its row
 * tlm_mpi_mod_merge at the end): while reading it keeps each trace's rows
 * (src/job/job_tables.c).
 */
#include "driver.h"
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "grow.h"
#include "zrun.h"

#define TAG_OPS 4343

/* Rows per message of the ops stream: about 4 MiB of buffers on rank 0
 * over every process, 16 to 512 rows (the same on every rank). */
static size_t chunk_rows(int np)
{
    size_t r = (4u << 20) / (size_t)(np > 0 ? np : 1) / sizeof(tlm_row_op);
    return r < 16 ? 16 : r > 512 ? 512 : r;
}

/* qsort order of row pointers: the merge's (name, trace rank). */
static int cmp_op_ptr(const void *a, const void *b)
{
    const tlm_row_op *x = *(const tlm_row_op *const *)a;
    const tlm_row_op *y = *(const tlm_row_op *const *)b;
    return tlm_job_op_before(x, y) ? -1 : tlm_job_op_before(y, x) ? 1 : 0;
}

/* One process's rows in merge order, on rank 0: its own (sorted
 * pointers) or another's (chunks received one at a time). */
typedef struct stream {
    const tlm_row_op **own;  /* rank 0's rows, sorted; NULL: remote */
    tlm_row_op *buf;         /* remote: the chunk received */
    size_t n, at;            /* rows in own or buf, the next one */
    int64_t left;            /* remote: rows still to receive */
    int src;
} stream;

static const tlm_row_op *head(const stream *s)
{
    return s->own ? s->own[s->at] : &s->buf[s->at];
}

/* 1 when s has a next row (a chunk received when needed), 0 at its end. */
static int refill(stream *s, size_t chunk, MPI_Comm comm)
{
    if (s->at < s->n)
        return 1;
    if (s->own || s->left <= 0)
        return 0;
    size_t m = (size_t)s->left < chunk ? (size_t)s->left : chunk;
    MPI_Recv(s->buf, (int)(m * sizeof *s->buf), MPI_BYTE, s->src, TAG_OPS,
             comm, MPI_STATUS_IGNORE);
    s->n = m;
    s->at = 0;
    s->left -= (int64_t)m;
    return 1;
}

/* Min-heap of streams by their head row: moves h[i] down. */
static void sift(stream **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && tlm_job_op_before(head(h[l]), head(h[m])))
            m = l;
        if (l + 1 < n && tlm_job_op_before(head(h[l + 1]), head(h[m])))
            m = l + 1;
        if (m == i)
            return;
        stream *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Rank 0: every process's rows merged in (name, trace rank) order into
 * the merger, a chunk per process held at a time; after a failure the
 * rows are still received (no sender waits forever). */
static tlm_status merge0(tlm_mpi_ctx *c, stream *ss, stream **h,
                         size_t chunk)
{
    tlm_job_op_merger g;
    tlm_job_merger_init(&g);
    tlm_status st = TLM_OK;
    size_t nh = 0;
    for (int p = 0; p < c->np; p++)
        if (refill(&ss[p], chunk, c->comm))
            h[nh++] = &ss[p];
    for (size_t i = nh; i-- > 0;)
        sift(h, nh, i);
    while (nh > 0) {
        if (st == TLM_OK)
            st = tlm_job_merger_add(&g, head(h[0]));
        h[0]->at++;
        if (!refill(h[0], chunk, c->comm))
            h[0] = h[--nh];
        sift(h, nh, 0);
    }
    if (st == TLM_OK && g.n > 0)
        st = tlm_job_merger_finish(&g, &c->mops, &c->n_mops);
    free(g.m);
    return st;
}

/* The ops merged by name on rank 0 (src/job/job_merge.c), every
 * process's rows streamed to it in merge order in synchronous messages of
 * chunk_rows rows: rank 0 holds one chunk per process and the merged rows
 * (one per name), never a row per trace; the sums are those of the rows
 * in that order, as a merge of every row gathered would make them. */
static tlm_status merge_ops(tlm_mpi_ctx *c)
{
    size_t n = c->rt.n_ops, chunk = chunk_rows(c->np);
    int64_t mine = (int64_t)n, *cnt = NULL;
    const tlm_row_op **by = malloc((n ? n : 1) * sizeof *by);
    tlm_row_op *buf = malloc(chunk * sizeof *buf);
    stream *ss = NULL;
    stream **h = NULL;
    if (c->me == 0) {
        cnt = calloc((size_t)c->np, sizeof *cnt);
        ss = calloc((size_t)c->np, sizeof *ss);
        h = calloc((size_t)c->np, sizeof *h);
    }
    tlm_status st = by && buf && (c->me != 0 || (cnt && ss && h))
                        ? TLM_OK
                        : TLM_ENOMEM;
    if (by) {
        for (size_t i = 0; i < n; i++)
            by[i] = &c->rt.ops[i];
        qsort(by, n, sizeof *by, cmp_op_ptr);
    }
    st = tlm_mpi_agree(st, c->comm);
    if (st == TLM_OK)
        MPI_Gather(&mine, 1, MPI_INT64_T, cnt, 1, MPI_INT64_T, 0, c->comm);
    if (st == TLM_OK && c->me != 0) {
        for (size_t i = 0; i < n; i += chunk) {
            size_t m = n - i < chunk ? n - i : chunk;
            for (size_t k = 0; k < m; k++)
                buf[k] = *by[i + k];
            MPI_Ssend(buf, (int)(m * sizeof *buf), MPI_BYTE, 0, TAG_OPS,
                      c->comm);
        }
    } else if (st == TLM_OK) {
        ss[0] = (stream){by, NULL, n, 0, 0, 0};
        for (int p = 1; p < c->np; p++) {
            ss[p] = (stream){NULL, NULL, 0, 0, cnt[p], p};
            if (cnt[p] > 0 && !(ss[p].buf = malloc(chunk * sizeof *buf)))
                st = TLM_ENOMEM; /* rows still received, into buf */
            if (!ss[p].buf)
                ss[p].buf = buf;
        }
        tlm_status ms = merge0(c, ss, h, chunk);
        if (st == TLM_OK)
            st = ms;
        for (int p = 1; p < c->np; p++)
            if (ss[p].buf != buf)
                free(ss[p].buf);
    }
    free(by);
    free(buf);
    free(cnt);
    free(ss);
    free(h);
    return st;
}

/* The exchange hook: the phase. */
static tlm_status merge_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_status st = tlm_mpi_agree(merge_ops(c), c->comm);
    if (st != TLM_OK)
        tlm_mpi_say0(c, "error: out of memory merging ops");
    return st;
}

void tlm_mpi_rows_pack(tlm_mpi_ctx *c, tlm_job_fileres *fr, char *msg,
                       size_t cap)
{
    static const int ks[] = {TLM_JOB_SPAN_UARGS, TLM_JOB_SPAN_KERNELS};
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        int k = ks[j];
        tlm_mpi_packed *pk = &c->pk[k];
        const char *rows = k == TLM_JOB_SPAN_UARGS ? (const char *)c->rt.ua
                                                   : (const char *)c->rt.kn;
        size_t *n = k == TLM_JOB_SPAN_UARGS ? &c->rt.n_ua : &c->rt.n_kn;
        size_t sz = k == TLM_JOB_SPAN_UARGS ? sizeof *c->rt.ua
                                            : sizeof *c->rt.kn;
        int64_t first = fr->span[k][0], cnt = fr->span[k][1];
        fr->span[k][0] = (int64_t)pk->len;
        if (cnt > 0 && (first < 0 || (size_t)(first + cnt) > *n)) {
            cnt = 0; /* not this trace's rows: none kept */
            fr->span[k][1] = 0;
        }
        if (cnt > 0 && tlm_grow((void **)&pk->buf, &pk->cap,
                                pk->len + (size_t)cnt * TLM_ZRUN_BOUND(sz),
                                1, 1u << 16) != TLM_OK) {
            fr->span[k][1] = 0;
            if (fr->status == TLM_OK) {
                fr->status = TLM_ENOMEM;
                snprintf(msg, cap, "out of memory keeping report tables");
            }
            cnt = 0;
        }
        for (int64_t i = 0; i < cnt; i++)
            pk->len += tlm_zrun_pack(rows + (size_t)(first + i) * sz, sz,
                                     pk->buf + pk->len);
        *n = 0; /* the next trace's rows start over */
    }
}

void tlm_mpi_rows_free(tlm_mpi_ctx *c)
{
    tlm_job_rtabs_free(&c->rt);
    for (int k = 0; k < 3; k++) {
        free(c->pk[k].buf);
        memset(&c->pk[k], 0, sizeof c->pk[k]);
    }
}

/* The collect hook: the trace's ops and kernel rows (src/job/job_tables.c). */
static tlm_status merge_tree(tlm_mpi_ctx *c, void **sp,
                             const tlm_job_trace_in *in, tlm_error *err)
{
    (void)sp;
    if (!in->rep) /* no GPU events: no rows */
        return TLM_OK;
    tlm_status st = tlm_job_keep_report_rows(&c->rt, in->rep,
                                             in->fr->row.trace_rank, in->fr);
    if (st != TLM_OK)
        return tlm_error_set(err, st, in->path, -1,
                             "out of memory keeping report tables");
    return TLM_OK;
}

/* The write hook: /ops/per_rank, /ops/merged, /ops/unique_args,
 * /kernels. */
static tlm_status merge_h5(tlm_mpi_ctx *c, void **sp, tlm_job_rows *h,
                           tlm_mpi_dataset *sets, size_t *n)
{
    (void)sp;
    (void)h;
    const tlm_mpi_dataset mine[] = {
        {&tlm_tab_ops, c->rt.ops, c->rt.n_ops, 2 + TLM_JOB_SPAN_OPS},
        {&tlm_tab_ops_merged, c->mops, c->me == 0 ? c->n_mops : 0, 0},
        {&tlm_tab_uargs, NULL, 0, 2 + TLM_JOB_SPAN_UARGS},
        {&tlm_tab_kernels, NULL, 0, 2 + TLM_JOB_SPAN_KERNELS},
    };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        if (*n < TLM_MPI_MAX_DATASETS)
            sets[(*n)++] = mine[i];
    return TLM_OK;
}

/* report.md's top ops. */
static void merge_results(const tlm_mpi_ctx *c, void *const *sp,
                          tlm_out_results *r)
{
    (void)sp;
    r->ops = c->mops;
    r->n_ops = c->n_mops;
}

/* The free hook. */
static void merge_free(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_mpi_rows_free(c);
    free(c->mops);
    c->mops = NULL;
    c->n_mops = 0;
}

const tlm_mpi_module tlm_mpi_mod_merge = {
    .name = "merge",
    .mark = TLM_MPI_T_TABLES,
    .on_tree = merge_tree,
    .exchange = merge_phase,
    .h5_tables = merge_h5,
    .results = merge_results,
    .free = merge_free,
};
