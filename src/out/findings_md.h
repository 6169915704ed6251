/*
 * findings_md.h - the Markdown of the analysis' and the run comparison's
 * findings (rules M1-M4 of src/find/find_coll.c, R1-R6 of find_runs.c),
 * from their /findings rows: the one table both report.md and
 * comparison.md print, report.md's section and its appendix of
 * thresholds, and the thresholds of the analysis' options.  No MPI calls.
 */
#ifndef TLM_OUT_FINDINGS_MD_H
#define TLM_OUT_FINDINGS_MD_H

#include <stdio.h>

#include "find_coll.h"
#include "opts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The finding thresholds of the analysis options. */
void tlm_out_find_opts_of(const tlm_cli_opts *o, tlm_find_coll_opts *fo);

/* "| id | rule | severity | impact % | finding | action |" and a line per
 * row; the impact printed with pct_fmt ("-" when NaN), the text and the
 * first action as cells (tlm_out_md_cell). */
void tlm_out_findings_table(FILE *f, const tlm_row_finding *rows, size_t n,
                            const char *pct_fmt);

/* report.md's Findings section and its appendix of thresholds. */
void tlm_out_findings_md(FILE *f, const tlm_row_finding *rows, size_t n,
                         const tlm_find_coll_opts *o);
void tlm_out_findings_md_appendix(FILE *f, const tlm_find_coll_opts *o);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUT_FINDINGS_MD_H */
