/*
 * report0.h - what rank 0 writes besides the HDF5 file: report.md (the job
 * at a glance) and CSV sheets named like TraceLens's multi-rank collective
 * report (nccl_summary_implicit_sync, nccl_long, nccl_implicit_sync,
 * nccl_summary_long, straggler_summary), plus the Markdown rendering of the
 * HDF5 schema (tlmpi --print_schema).  No MPI calls.
 */
#ifndef TLM_OUT_REPORT0_H
#define TLM_OUT_REPORT0_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opts.h"
#include "tables.h"
#include "tlmpi/tlm_cause.h"
#include "tlmpi/tlm_coll.h"
#include "tlmpi/tlm_outset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One nccl_long row with the record fields TraceLens prints next to it. */
typedef struct tlm_out_tl_long {
    tlm_coll_tl_long_row row;
    char pg_ranks[TLM_COLL_TEXT_LEN];
    char coll_name[TLM_COLL_NAME_LEN];   /* "" = None */
    char dtype[TLM_COLL_DTYPE_LEN];      /* "" = None */
    char in_split[TLM_COLL_SPLIT_LEN];
    char out_split[TLM_COLL_SPLIT_LEN];
    int64_t group_size;                  /* -1 = None */
    int64_t in_nelems;                   /* -1 = None */
    int64_t out_nelems;
    int64_t stream;                      /* -1 = None */
} tlm_out_tl_long;

/* Everything rank 0 holds at the end of a run (arrays sorted canonically).
 * A plain list of (rows, count) pairs, one a table, alike by nature. */
typedef struct tlm_out_results {
    const tlm_cli_opts *opts;            /* opts->gpus_per_node: the
                                          * job's, detected or given */
    const char *gpn_source;              /* where it came from
                                          * (tlm_job_gpus_per_node) */
    const char *h5_path;                 /* final name */
    int nprocs;
    int64_t world_size;
    double elapsed_s;
    double t_read_s;                     /* reading + per-trace tables */
    double t_collectives_s;              /* exchange, matching, clocks */
    double t_hdf5_s;                     /* the parallel HDF5 write */
    uint64_t bytes_read;
    const tlm_row_trace *traces;         /* by trace_rank */
    size_t n_traces;
    const tlm_row_timeline *timeline;    /* by trace_rank */
    const tlm_row_op_merged *ops;        /* by direct kernel time, desc */
    size_t n_ops;
    const tlm_coll_instance *inst;
    size_t n_inst;
    size_t n_unmatched;
    const tlm_coll_summary_row *sum;
    size_t n_sum;
    const tlm_coll_straggler_row *strag;
    size_t n_strag;
    const tlm_coll_cause_row *cause;     /* why the straggler is late */
    size_t n_cause;
    const tlm_coll_clock *clk;
    size_t n_clk;
    int tl_simplified;
    const tlm_coll_tl_sync_row *tl_sync;
    size_t n_tl_sync;
    const tlm_coll_tl_sync_member *tl_smem;
    size_t n_tl_smem;
    const tlm_out_tl_long *tl_long;      /* by (rank, event_index) */
    size_t n_tl_long;
    const tlm_coll_tl_summary_row *tl_sum;
    size_t n_tl_sum;
    const tlm_coll_tl_straggler_row *tl_strag;
    size_t n_tl_strag;
    const tlm_row_step *steps;           /* by (trace_rank, step) */
    size_t n_steps;
    const tlm_row_step_sum *step_sum;    /* by step */
    size_t n_step_sum;
    const tlm_row_finding *find;         /* collective findings, in order */
    size_t n_find;
    const char *hta_md;                  /* --hta: report.md's section */
} tlm_out_results;

#define TLM_OUT_PATH_MAX 4200

/* The files tlm_out_report_write writes: report.md into the report
 * folder, then these CSV sheets into the CSV folder (NULL-terminated).
 * The setup phase checks them all before any trace is read. */
extern const char *const tlm_out_report_csvs[];

/* Writes <report_dir>/report.md and the CSV sheets into csv_dir, each
 * staged in *set under a temporary name.  Nothing is published: the
 * caller commits or aborts the set.  Errors: TLM_EIO (message names the
 * file and the errno text), TLM_ENOMEM, those of tlm_outset_stage. */
tlm_status tlm_out_report_write(const tlm_out_results *r,
                                const char *report_dir, const char *csv_dir,
                                tlm_outset *set, tlm_error *err);

/* The report files in two parts, so that two processes format them at
 * once (the driver's publish phase): PART_LONG nccl_long and the
 * all_to_allv sheets (nccl_all2allv, nccl_summary_all2allv), made from
 * the nccl_long rows (r->opts->gpus_per_node, r->tl_long and r->n_tl_long
 * are all they read), PART_MAIN the others (about as much work, measured
 * on 16 ranks). */
#define TLM_OUT_PART_MAIN 1u
#define TLM_OUT_PART_LONG 2u
#define TLM_OUT_PART_ALL 3u

/* Files formatted into memory instead of the output set: each one's name
 * (its folder's: report.md or a CSV sheet) and bytes. */
typedef struct tlm_out_memfile {
    char name[64];
    char *data;
    size_t len;
} tlm_out_memfile;
typedef struct tlm_out_memset {
    tlm_out_memfile *f;
    size_t n;
} tlm_out_memset;
void tlm_out_memset_free(tlm_out_memset *m);

/* tlm_out_report_write of the parts given (TLM_OUT_PART_*); mem non-NULL:
 * the files go to *mem instead (report_dir, csv_dir and set unused). */
tlm_status tlm_out_report_write_parts(const tlm_out_results *r,
                                      unsigned parts, const char *report_dir,
                                      const char *csv_dir, tlm_outset *set,
                                      tlm_out_memset *mem, tlm_error *err);

/* The workbook of the analysis (report0_xlsx.c), staged in *set after
 * tlm_out_report_write staged the CSVs in csv_dir: TraceLens's collective
 * sheets (the staged CSVs read back, so the cells are theirs), then the
 * per-rank summaries (traces, timeline, steps, step_summary).  Errors:
 * those of tlm_outset_stage, the CSV reader and the workbook writer,
 * TLM_ENOMEM. */
tlm_status tlm_out_report_xlsx(const tlm_out_results *r, const char *csv_dir,
                               const char *path, tlm_outset *set,
                               tlm_error *err);

/* A double as Python's repr() prints it (shortest text that reads back to
 * the same value; fixed notation for 1e-4 <= |v| < 1e16 with at least one
 * decimal, else "1e-05" style), NaN as "" (pandas' to_csv).  cap >= 32. */
void tlm_out_csv_number(char *buf, size_t cap, double v);

/* Prints docs/hdf5-schema.md's dataset reference (every table of
 * tlm_rowtabs, column by column with units) as Markdown. */
void tlm_out_schema_markdown(FILE *f);

/* The datasets of tabs (NULL-terminated) as Markdown, column by column
 * (the body of tlm_out_schema_markdown). */
void tlm_out_schema_tables(FILE *f, const tlm_rowtab *const *tabs);

/* A table's rows as CSV: a header of column names, numbers as in the CSV
 * sheets (tlm_out_csv_number; NaN empty), strings quoted when needed. */
void tlm_out_table_csv(FILE *f, const tlm_rowtab *t, const void *rows,
                       size_t n);

/* A text of at most cap bytes as a Markdown table cell: '|' escaped,
 * control characters printed as '?'. */
void tlm_out_md_cell(FILE *f, const char *s, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUT_REPORT0_H */
