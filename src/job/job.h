/*
 * job.h - one trace of a multi-rank job on the process that reads it,
 * without MPI (the job layer, docs/architecture.md): the trace read, its
 * rank told, its tree, report and collective records built and handed to
 * a collect callback (the driver's modules, mpi/module.h), its result
 * (the row of /traces and /timeline, all-gathered by the driver); the
 * report rows a process keeps for /ops and /kernels; the per-step rows and
 * their summary; the ops merged across ranks.
 */
#ifndef TLM_JOB_H
#define TLM_JOB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "discover.h"
#include "opts.h"
#include "tables.h"
#include "tlmpi/tlm_coll.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TLM_JOB_MSG_CAP 768
#define TLM_JOB_MAX_WORLD (1 << 24)

/* Per-trace report tables kept by a process, in span[] order. */
enum { TLM_JOB_SPAN_OPS, TLM_JOB_SPAN_UARGS, TLM_JOB_SPAN_KERNELS };

/* Result of one file (all-gathered by the driver). */
typedef struct tlm_job_fileres {
    int64_t file_idx;
    int32_t status;
    int32_t owner;
    tlm_row_trace row;
    tlm_row_timeline tl;
    int64_t span[3][2];      /* local rows of ops, uargs, kernels: first,
                              * count (meaningful on the owner only) */
    int32_t n_device_props;  /* entries of deviceProperties, 0: none
                              * (GPUs per node, as TraceLens detects it) */
    /* a failed file's message stays with the process that read it
     * (tlm_job_reader.msg): rank 0 fetches the few it names (issue 35) */
} tlm_job_fileres;

/* Rows of the per-trace report tables held by a process. */
typedef struct tlm_job_rtabs {
    tlm_row_op *ops;
    size_t n_ops, cap_ops;
    tlm_row_uargs *ua;
    size_t n_ua, cap_ua;
    tlm_row_kernel *kn;
    size_t n_kn, cap_kn;
} tlm_job_rtabs;

/* One trace, as the collect callback sees it (while it is in memory). */
typedef struct tlm_job_trace_in {
    const char *path;
    const tlm_trace *tr;          /* its events */
    size_t n_events;
    const tlm_tree *tree;         /* TLM_JOB_ON_TREE only */
    const tlm_report *rep;        /* TLM_JOB_ON_TREE only; NULL: no GPU
                                   * events */
    const tlm_coll_record *recs;  /* TLM_JOB_ON_TRACE only: its collective
                                   * records */
    size_t n_recs;
    tlm_job_fileres *fr;          /* its result */
} tlm_job_trace_in;

/* When the collect callback is called: with the call tree and the report
 * (before the tree is freed), then with the events and the records. */
enum { TLM_JOB_ON_TREE, TLM_JOB_ON_TRACE };

typedef tlm_status (*tlm_job_collect_fn)(void *arg, int when,
                                         const tlm_job_trace_in *in,
                                         tlm_error *err);

/* What reading one trace needs (job_trace.c). */
typedef struct tlm_job_reader {
    const tlm_cli_opts *o;
    const tlm_cli_filelist *fl;
    int owner;                   /* the process reading (fr->owner) */
    tlm_job_rtabs *rt;           /* a rocprof trace's kernel rows go here */
    tlm_job_collect_fn collect;  /* NULL: nothing collected */
    void *arg;
    char *msg;                   /* gets the message of a failed read */
    size_t msg_cap;              /* (TLM_JOB_MSG_CAP) */
} tlm_job_reader;

/* Reads file fi of rd->fl and fills fr; hands the trace to rd->collect.
 * A failure is recorded in fr (status, message), never fatal. */
void tlm_job_read_trace(const tlm_job_reader *rd, size_t fi,
                        tlm_job_fileres *fr);

/* Copies the ops_summary, ops_unique_args and kernel_summary rows of one
 * trace's report into rt (job_tables.c); fr->span records where.
 * Errors: TLM_ENOMEM. */
tlm_status tlm_job_keep_report_rows(tlm_job_rtabs *rt, const tlm_report *rep,
                                    int32_t rank, tlm_job_fileres *fr);

/* Frees the arrays of rt and zeroes it. */
void tlm_job_rtabs_free(tlm_job_rtabs *rt);

/* ---- rank 0's results as rows of the HDF5 tables (job_rows.c) */

/* The rows of rank 0's tables. */
typedef struct tlm_job_rows {
    tlm_row_trace *tr;
    tlm_row_timeline *tl;
    size_t n;                /* rows of tr and tl */
    tlm_row_instance *ir;
    size_t ni;
    tlm_row_unmatched *ur;
    size_t nu;
    tlm_row_summary *sr;
    size_t ns;
    tlm_row_clock *cr;
    size_t nc;
    tlm_row_straggler *gr;
    size_t ng;
    tlm_row_cause *xr;       /* /straggler_causes (filled by the driver's
                              * collectives module) */
    size_t nx;
} tlm_job_rows;

/* What they are made of: every file's result (sorted by rank) with its
 * clock offset (offsets[i] of res[i]; NULL: 0), and the collective
 * results of tlm_coll.h. */
typedef struct tlm_job_rows_in {
    const tlm_job_fileres *res;
    size_t n_res;
    const int64_t *offsets;
    const tlm_coll_instance *inst;
    size_t n_inst;
    const tlm_coll_unmatched *unm;
    size_t n_unm;
    const tlm_coll_summary_row *sum;
    size_t n_sum;
    const tlm_coll_clock *clk;
    size_t n_clk;
    const tlm_coll_straggler_row *strag;
    size_t n_strag;
} tlm_job_rows_in;

/* Fills *h from in (every array allocated, at least one row, zeroed).
 * Errors: TLM_ENOMEM. */
tlm_status tlm_job_rows_build(const tlm_job_rows_in *in, tlm_job_rows *h);
/* Frees the arrays of h (not xr) and zeroes it. */
void tlm_job_rows_free(tlm_job_rows *h);

/* ---- the checks of the set of traces (job_check.c) */

/* Items a message lists before "and N more". */
#define TLM_JOB_LIST_MAX 20

/* What the checks see: every file's result, the options, the file list,
 * and where their messages go ("error: ...", "warning: ...", lines
 * without the program's prefix; NULL: nowhere). */
typedef struct tlm_job_check {
    const tlm_job_fileres *res;
    size_t n_res;
    const tlm_cli_opts *o;
    const tlm_cli_filelist *fl;
    void (*say)(void *arg, const char *fmt, va_list ap);
    void *arg;
    /* the messages of the first TLM_JOB_LIST_MAX bad traces in file
     * order (tlm_job_name_bad); an entry NULL or past n_bad_msg: none */
    const char *const *bad_msg;
    size_t n_bad_msg;
} tlm_job_check;

/* Sorts results by the rank in the file name (none last), then discovery
 * order: the order bad traces are named in. */
void tlm_job_sort_by_file(tlm_job_fileres *res, size_t n);
/* Sorts results by trace rank, then discovery order. */
void tlm_job_sort_by_rank(tlm_job_fileres *res, size_t n);
/* Names the bad traces (the first TLM_JOB_LIST_MAX, then how many more);
 * returns their number. */
size_t tlm_job_name_bad(const tlm_job_check *c);
/* Warns about odd input (bad times, half flows, lone surrogates), one
 * line per kind with the files. */
void tlm_job_warn_traces(const tlm_job_check *c);
/* Warns when ranks came from the sorted file order. */
void tlm_job_warn_order_ranks(const tlm_job_check *c);
/* TLM_EMISMATCH (each named) when a trace rank is in several files (res
 * sorted by rank). */
tlm_status tlm_job_check_duplicates(const tlm_job_check *c);
/* The world size *w and where it came from (*wsrc, for messages);
 * TLM_EMISMATCH when a trace's rank is outside it, TLM_ERANGE above
 * TLM_JOB_MAX_WORLD (res sorted by rank). */
tlm_status tlm_job_world_size(const tlm_job_check *c, int64_t *w,
                              const char **wsrc);
/* Ranks below w without a trace: TLM_ENOTFOUND, or a warning with
 * --allow_missing (res sorted by rank, ranks distinct). */
tlm_status tlm_job_check_missing(const tlm_job_check *c, int64_t w,
                                 const char *wsrc);
/* GPUs per node of the job (res sorted by rank): opt (--gpus_per_node)
 * when > 0, else the number of deviceProperties entries of the first
 * trace (the lowest rank), as TraceLens detects it, else 0 (unknown).
 * Sets every trace's node column (rank / G, -1 when unknown); *src gets
 * where G came from: "--gpus_per_node", "deviceProperties" or "none". */
long tlm_job_gpus_per_node(tlm_job_fileres *res, size_t n, long opt,
                           const char **src);
/* Position of trace rank r in res (sorted by rank), or -1. */
int64_t tlm_job_rank_pos(const tlm_job_fileres *res, size_t n, int64_t r);

/* The rows of rt's three tables (TLM_JOB_SPAN_*) of the traces lres
 * (their spans) concatenated in trace-rank order into *ops, *ua, *kn
 * (job_merge.c; each allocated, or NULL).  Errors: TLM_ENOMEM. */
tlm_status tlm_job_order_rows(const tlm_job_fileres *lres, size_t n_lres,
                              const tlm_job_rtabs *rt, tlm_row_op **ops,
                              tlm_row_uargs **ua, tlm_row_kernel **kn);

/* Every trace's ops (all, n rows; sorted in place by name and rank)
 * merged by name into *out (*n_out rows), by direct kernel time
 * descending.  Errors: TLM_ENOMEM (*out NULL). */
tlm_status tlm_job_merge_ops(tlm_row_op *all, size_t n,
                             tlm_row_op_merged **out, size_t *n_out);

/* The ops merge one row at a time (job_merge.c), the rows coming in
 * (name, trace rank) order: what tlm_job_merge_ops does over its sorted
 * rows, for rows streamed from every process (mpi/phase_merge.c). */
typedef struct tlm_job_op_merger {
    tlm_row_op_merged *m;    /* one row per name so far */
    size_t n, cap;
    double total;            /* direct kernel time of every row so far */
} tlm_job_op_merger;

void tlm_job_merger_init(tlm_job_op_merger *g);
/* Adds row r (after every row that sorts before it).  Errors:
 * TLM_ENOMEM (g unchanged). */
tlm_status tlm_job_merger_add(tlm_job_op_merger *g, const tlm_row_op *r);
/* Hands the merged rows (by direct kernel time descending) to *out and
 * empties g.  Errors: TLM_ENOMEM. */
tlm_status tlm_job_merger_finish(tlm_job_op_merger *g,
                                 tlm_row_op_merged **out, size_t *n_out);
/* 1 when op row a sorts before b in the merge's order (name, then trace
 * rank). */
int tlm_job_op_before(const tlm_row_op *a, const tlm_row_op *b);

/* Per-step rows (job_steps.c). */
typedef struct tlm_job_steps {
    tlm_row_step *rows;      /* rows of the local traces; sorted by
                              * (trace_rank, step) before the gather */
    size_t n_rows, cap_rows;
    tlm_row_step *all;       /* rank 0: every trace's rows, same order */
    size_t n_all;
    tlm_row_step_sum *sum;   /* rank 0: one row per step, by step */
    size_t n_sum;
} tlm_job_steps;

/* Appends the ProfilerStep#N rows of one trace (those steps_opt, the
 * --steps text, selects) to s->rows.  Errors: TLM_ENOMEM. */
tlm_status tlm_job_steps_keep(tlm_job_steps *s, const tlm_tree *tree,
                              int32_t rank, const char *steps_opt,
                              tlm_error *err);

/* Sorts step rows by (trace_rank, step). */
void tlm_job_steps_sort(tlm_row_step *rows, size_t n);

/* s->sum from s->all (sorted): one row per step across ranks, outliers
 * above outlier (a fraction) over the median.  Errors: TLM_ENOMEM. */
tlm_status tlm_job_steps_summarize(tlm_job_steps *s, double outlier);

/* Frees the arrays of s and zeroes it. */
void tlm_job_steps_free(tlm_job_steps *s);

#ifdef __cplusplus
}
#endif
#endif /* TLM_JOB_H */
