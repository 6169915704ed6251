/*
 * compare_runs.h - `tlmpi compare RUN_A.h5 RUN_B.h5`: two analyses of whole
 * jobs (tlmpi.h5, schema v1) compared, A the baseline, B the variant
 * (docs/compare-runs.md).  One process, no MPI: the files are read with
 * the plain HDF5 API, comparison.h5 is written by h5write.c's local table
 * writer, comparison.md beside it, both published as one output set.
 *
 * Sign convention (TraceLens's compare): diff = B - A, pct = 100 diff / A,
 * NaN when A is 0 or missing.  Every metric column comes as four columns
 * <m>_a, <m>_b, <m>_diff, <m>_pct.
 *
 * Files of this layer (src/runs, no MPI, no HDF5): compare_runs.c (the
 * command line, the output set, --print_schema), compare_runs_join.c and
 * compare_runs_sum.c (the joins, the job-level summary), compare_runs_md.c
 * (comparison.md).  Beside them: the comparative findings (rules R1-R6,
 * src/find/find_runs.c), comparison.h5's schema (src/table/
 * runs_tables.[ch]), and in mpi/ (compare_runs_mpi.h) the inputs read with
 * HDF5 (compare_runs_read.c), comparison.h5 and the command's entry
 * (compare_runs_h5.c).
 */
#ifndef TLM_RUNS_COMPARE_RUNS_H
#define TLM_RUNS_COMPARE_RUNS_H

#include <stdio.h>

#include "runs_tables.h"
#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_outset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rows of comparison.h5 (tlm_cr_sum, tlm_cr_coll, tlm_cr_op,
 * tlm_cr_strag) and their descriptors (tlm_crtab_*, tlm_cr_tables):
 * src/table/runs_tables.h. */

/* One input: what the comparison reads of a tlmpi.h5. */
typedef struct tlm_cr_run {
    const char *path, *name;
    int64_t world_size, n_traces, straggler_rank, straggler_wait_ns;
    tlm_row_summary *sum;
    size_t n_sum;
    tlm_row_instance *inst;
    size_t n_inst;
    tlm_row_straggler *strag;
    size_t n_strag;
    tlm_row_op_merged *ops;
    size_t n_ops;
    tlm_row_step_sum *steps;
    size_t n_steps;
    tlm_row_timeline *tl;
    size_t n_tl;
} tlm_cr_run;

/* The comparison: the rows of every output table. */
typedef struct tlm_cr_result {
    tlm_cr_sum *sum;
    size_t n_sum;
    tlm_cr_coll *colls; /* by |impact| descending */
    size_t n_colls;
    tlm_cr_op *ops;     /* by |impact| descending */
    size_t n_ops;
    tlm_cr_strag *strag; /* by trace_rank */
    size_t n_strag;
    tlm_row_finding *find;
    size_t n_find;
    int per_step;       /* impacts are per step (both runs have steps) */
    double step_a, step_b; /* step time (ns), or mean GPU time; NaN */
} tlm_cr_result;

/* Options of the comparative findings. */
typedef struct tlm_cr_opts {
    double min_impact_pct; /* a row's |impact| / step time B, % */
    int top;               /* rows per table in comparison.md */
} tlm_cr_opts;

/* The joins and the comparative findings. */
tlm_status tlm_cr_compare(const tlm_cr_run *a, const tlm_cr_run *b,
                          const tlm_cr_opts *o, tlm_cr_result *res,
                          tlm_error *err);
void tlm_cr_result_free(tlm_cr_result *res);

/* diff and pct of a pair (NaN when either is NaN; pct NaN when a is 0). */
double tlm_cr_diff(double a, double b);
double tlm_cr_pct(double a, double b);

/* Join steps of tlm_cr_compare, one file each. */
tlm_status tlm_cr_join_colls(const tlm_cr_run *a, const tlm_cr_run *b,
                             double sa, double sb, tlm_cr_result *res);
tlm_status tlm_cr_join_ops(const tlm_cr_run *a, const tlm_cr_run *b,
                           double sa, double sb, tlm_cr_result *res);
tlm_status tlm_cr_join_strag(const tlm_cr_run *a, const tlm_cr_run *b,
                             tlm_cr_result *res);

/* comparison.md (compare_runs_md.c). */
void tlm_cr_write_md(FILE *f, const tlm_cr_run *a, const tlm_cr_run *b,
                     const tlm_cr_result *res, const tlm_cr_opts *o);

/* comparison.h5's dataset reference (`tlmpi compare --print_schema`). */
void tlm_cr_schema_markdown(FILE *f);

/* The command line of `tlmpi compare A.h5 B.h5` (compare_runs.c). */
typedef struct tlm_cr_args {
    const char *in[2], *names[2], *dir;
    int force, quiet;
    tlm_cr_opts o;
} tlm_cr_args;

/* Parses argv (argv[0] = "compare").  Returns 0 (parsed), 2 (a usage
 * error, said on stderr) or -1 (--help or --print_schema printed on
 * stdout: nothing else to do). */
int tlm_cr_args_parse(int argc, char **argv, tlm_cr_args *a);

/* The output set: both inputs recorded, comparison.h5 and comparison.md
 * in a->dir checked and staged (tmp[0] the .h5's temporary, tmp[1] the
 * .md's). */
tlm_status tlm_cr_outputs(tlm_outset *set, const tlm_cr_args *a,
                          const char *tmp[2], tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_RUNS_COMPARE_RUNS_H */
