/*
 * coverage.h - what the roofline leaves out: the ops of a report's
 * unified_perf_summary that have no perf model (has_perf_model False),
 * by name, with their count and GPU kernel time, and the share of all
 * op kernel time they hold.  Read from the report's own table, so
 * report.md, stderr and the workbook never disagree.
 */
#ifndef TLM_COVERAGE_H
#define TLM_COVERAGE_H

#include <stddef.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"

#include "sbuf.h"

typedef struct tlm_cov_op {
    const char *name; /* points into the report's table */
    double count;     /* Σ operation_count */
    double time_us;   /* Σ Kernel Time (µs)_sum */
} tlm_cov_op;

typedef struct tlm_coverage {
    int available;       /* 0: no unified_perf_summary (GPU-only trace) */
    double all_us;       /* Σ Kernel Time (µs)_sum over every row */
    double all_count;    /* Σ operation_count over every row */
    double none_us;      /* the same over the rows without a model */
    double none_count;
    tlm_cov_op *v;       /* ops without a model, by time desc, name asc */
    size_t n;
    double nofig_count;  /* ops with a model but no figures (dims out of
                            range: negative, overflowing; issue 33) */
} tlm_coverage;

/* Fills c from r's unified_perf_summary.  Errors: TLM_ENOMEM. */
tlm_status tlm_report_coverage(const tlm_report *r, tlm_coverage *c);
void tlm_coverage_free(tlm_coverage *c);

/* report.md's "Perf-model coverage" section: the top ops without a model
 * (at most top) and the total.  Names are Markdown-escaped. */
void tlm_coverage_md(const tlm_coverage *c, size_t top, tlm_sbuf *b);

#endif /* TLM_COVERAGE_H */
