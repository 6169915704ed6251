/*
 * report_opts.h - the report options `tlmpi report` and `tlmpi compare`
 * share, and building a report from a trace file.
 */
#ifndef TLM_CMD_REPORT_OPTS_H
#define TLM_CMD_REPORT_OPTS_H

#include <time.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "find.h"

typedef struct tlm_cli_ropts {
    tlm_report_opts ro;
    int bleed_tolerance;
    int pseudo_ops;     /* --enable_pseudo_ops: tlm_tree_pseudo_ops */
    const char *compat; /* --tracelens_compat text, parsed by _finish */
} tlm_cli_ropts;

void tlm_cli_ropts_init(tlm_cli_ropts *o);
/* Consumes argv[*i] (and its value) when it is a report option: 1, 0 when
 * it is not one, -1 after printing why a value is bad (usage error). */
int tlm_cli_ropt(const char *cmd, int argc, char **argv, int *i,
                 tlm_cli_ropts *o);
/* Parses the compat list.  Errors: TLM_EINVAL. */
tlm_status tlm_cli_ropts_finish(tlm_cli_ropts *o, tlm_error *err);

/* A report built from a trace, with what it was built from. */
typedef struct tlm_cli_built {
    tlm_trace *tr;
    tlm_tree_stream *ts;
    tlm_tree *tree;
    tlm_report *rep;
    double t_read, t_tree, t_tables; /* tlm_cli_now() after each stage */
    double t_hta;                    /* after the HTA tables (--hta) */
} tlm_cli_built;

tlm_status tlm_cli_build_report(const char *path, const tlm_cli_ropts *o,
                                tlm_cli_built *b, tlm_error *err);
void tlm_cli_built_free(tlm_cli_built *b);
/* The trace and its tree only (b->rep stays NULL), with the same options
 * (--comparison_json_path's trace 2). */
tlm_status tlm_cli_build_tree(const char *path, const tlm_cli_ropts *o,
                              tlm_cli_built *b, tlm_error *err);
double tlm_cli_now(void);

/* Consumes a findings option (--platform, --findings_<name>) as
 * tlm_cli_ropt does: 1, 0 not one, -1 after printing why. */
int tlm_cli_find_opt(const char *cmd, int argc, char **argv, int *i,
                     tlm_find_opts *fo);

#endif
