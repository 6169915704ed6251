/*
 * report_tl.h - TraceLens's command line (TraceLens_generate_perf_report_
 * pytorch, perfreport.md §8) as `tlmpi report` accepts it: the options
 * tlmpi implements map onto the report options, those that need Python
 * or that tlmpi does not implement are refused with a sentence saying
 * why and what to do instead.  Used by cmd_report.c only.
 */
#ifndef TLM_CMD_REPORT_TL_H
#define TLM_CMD_REPORT_TL_H

#include "report_opts.h"

typedef struct tlm_cli_tl {
    const char *profile_json_path; /* --profile_json_path */
    const char *output_xlsx_path;  /* --output_xlsx_path */
    const char *platform;          /* --gpu_arch_platform NAME */
    const char *comparison_json_path; /* --comparison_json_path T2 */
    char arch[64];                 /* the bundled entry it stands for */
} tlm_cli_tl;

/* Consumes argv[*i] (and its value) when it is one of TraceLens's
 * options: 1, 0 when it is not one, -1 after printing why it is refused
 * or why its value is bad (usage error, exit 2). */
int tlm_cli_tl_opt(int argc, char **argv, int *i, tlm_cli_tl *t,
                   tlm_cli_ropts *co);

/* After parsing: --gpu_arch_platform resolved into co (its MAF entry, as
 * TraceLens's bundled platform files, else the bundled GPU of that name)
 * and checked against --gpu_arch / --gpu_arch_json_path.  0, or -1 after
 * printing why (exit 2). */
int tlm_cli_tl_finish(tlm_cli_tl *t, tlm_cli_ropts *co);

/* --comparison_json_path T2 (report_tdiff.c): T2's tree built with the
 * report's options, TraceDiff(the report's tree, T2's tree), and the
 * report enriched (src/rdiff: unified_perf_summary's comparison columns,
 * the diff_stats sheet).  Nothing without the option.  Errors: those of
 * reading T2, tlm_diff_build (a trace without cpu ops), TLM_ENOMEM. */
tlm_status tlm_cli_tl_compare(const tlm_cli_tl *t, const tlm_cli_ropts *co,
                              tlm_cli_built *b, tlm_error *err);

/* TraceLens's default workbook for a trace: <trace without .json.gz /
 * .json / .xplane.pb(.gz)>_perf_report.xlsx, beside the trace.  0, or -1
 * when too long. */
int tlm_cli_tl_default_xlsx(const char *trace, char *out, size_t cap);

#endif
