/*
 * report0_out.h - what rank 0's report writers share (report0.c: the CSV
 * sheets, report0_md.c: report.md): files staged in the run's output set
 * (tlm_outset.h) under temporary names, published or removed together at
 * the end (with the HDF5 file).  No MPI calls.
 */
#ifndef TLM_OUT_REPORT0_OUT_H
#define TLM_OUT_REPORT0_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "report0.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where files go: the folder, and the set they are staged in. */
typedef struct tlm_out_dest {
    const char *dir;
    tlm_outset *set;
    tlm_out_memset *mem; /* non-NULL: into memory instead (dir, set unused) */
} tlm_out_dest;

/* One file being written. */
typedef struct tlm_out_file {
    FILE *f;
    char path[TLM_OUT_PATH_MAX];
    tlm_out_memset *mem; /* non-NULL: f is a memory stream of mbuf */
    char *mbuf;
    size_t mlen;
} tlm_out_file;

/* Stages <d->dir>/<name> in d->set and opens its temporary.  Errors:
 * TLM_EINVAL (path too long), those of tlm_outset_stage, TLM_EIO. */
tlm_status tlm_out_open(tlm_out_file *o, const tlm_out_dest *d,
                        const char *name, tlm_error *err);

/* Closes the temporary file; TLM_EIO (with errno's text) when any write
 * failed.  The file stays staged: the caller publishes or aborts the
 * whole set. */
tlm_status tlm_out_close(tlm_out_file *o, tlm_error *err);

/* v in decimal ("%lld"; as_float: "%lld.0", pandas's float column of
 * integers), without printf. */
void tlm_out_put_i64(FILE *f, int64_t v, int as_float);

/* Writes report.md into dir (report0_md.c).  Errors: TLM_EIO, TLM_ENOMEM,
 * TLM_EINVAL. */
tlm_status tlm_out_report_md(const tlm_out_results *r,
                             const tlm_out_dest *dir, tlm_error *err);

/* ---- TraceLens's sheets beyond report0.c's (report0_tl.c) */

/* TraceLens's node_span of a "Process Group Ranks" text (at most cap
 * bytes; "" is None) with gpn GPUs per node: "intra_node" when every rank
 * named is on one node (rank / gpn), "inter_node" when not, "unknown"
 * when it names none.  Unlike TraceLens, a list cut with "..." counts the
 * ranks it shows instead of stopping the report. */
const char *tlm_out_node_span(const char *ranks, size_t cap, long gpn);

/* The per-rank columns of a per-instance sheet (tlm_coll_tl_first_seen):
 * cols[0..n) in order, batch[i] the row that brought cols[i]; sorted/at
 * find a rank's column. */
typedef struct tlm_out_tlcols {
    int32_t *cols, *batch, *sorted, *at;
    size_t n;
} tlm_out_tlcols;

/* The columns of the (rank, row) lists (rows non-decreasing).  Errors:
 * TLM_ENOMEM, TLM_EINVAL (*c empty). */
tlm_status tlm_out_tlcols_make(const int32_t *ranks, const int32_t *row,
                               size_t n, tlm_out_tlcols *c, tlm_error *err);
/* The column of rank, or -1. */
int64_t tlm_out_tlcols_find(const tlm_out_tlcols *c, int32_t rank);
/* The end of the batch (the columns one row brought) that starts at s. */
size_t tlm_out_tlcols_batch_end(const tlm_out_tlcols *c, size_t s);
void tlm_out_tlcols_free(tlm_out_tlcols *c);

/* nccl_all2allv.csv (summary 0) or nccl_summary_all2allv.csv (1) from
 * r's nccl_long rows, written only when there are all_to_allv
 * collectives (TraceLens's rule).  Errors: TLM_ENOMEM, those of
 * tlm_out_open / tlm_out_close. */
tlm_status tlm_out_sheets_a2a(const tlm_out_results *r, int summary,
                              const tlm_out_dest *d, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUT_REPORT0_OUT_H */
