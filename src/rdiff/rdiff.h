/*
 * rdiff.h - the TraceDiff enrichment of a report (TraceLens's
 * --comparison_json_path, shared/spec/tracediff.md §10.2, perfreport.md
 * §7.3): a report of trace 1 and the TraceDiff of its tree against a
 * trace 2 in, the report's unified_perf_summary with the comparison
 * columns and a diff_stats sheet out.  Layer rdiff: report and diff.
 */
#ifndef TLM_RDIFF_H
#define TLM_RDIFF_H

#include "tlmpi/tlm_diff.h"
#include "tlmpi/tlm_report.h"

/* The columns inserted after "Kernel Time (µs)_sum", in order. */
#define TLM_RDIFF_NCOLS 7
extern const char *const tlm_rdiff_cols[TLM_RDIFF_NCOLS];

/* Adds to r (built with opts.keep_gpu_rows; d = TraceDiff(r's tree,
 * tree 2)) the diff_stats sheet, right after unified_perf_summary, and
 * the columns of tlm_rdiff_cols to unified_perf_summary: per row the LCAs
 * of its trace-1 GPU ops (gpu_op_uid -> the row whose kernel_details hold
 * it), each LCA counted once per row, its totals the first busy_time of
 * each side.  Nothing is added without diff rows; no column without a
 * row mapped to an LCA (as TraceLens).  Errors: TLM_ENOMEM. */
tlm_status tlm_rdiff_enrich(tlm_report *r, tlm_diff *d, tlm_error *err);

#endif
