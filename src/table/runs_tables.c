/*
 * runs_tables.c - the descriptors of comparison.h5's datasets (`tlmpi
 * compare A.h5 B.h5`), generated from the X-macro column lists of
 * runs_tables.h (as tables.c does for tlmpi.h5): what the HDF5 writer
 * (mpi/compare_runs_h5.c) and --print_schema use.
 */
#include "runs_tables.h"

#define TLM_ROW tlm_cr_sum
TLM_ROWTAB_(tlm_crtab_summary, tlm_cr_sum, "summary",
               "One row per job-level metric: step time, GPU timeline "
               "means over ranks, collective time and wait per rank, the "
               "straggler; A the baseline, B the variant.",
               TLM_TAB_CR_SUMMARY)
#undef TLM_ROW
#define TLM_ROW tlm_cr_coll
TLM_ROWTAB_(tlm_crtab_colls, tlm_cr_coll, "collectives",
               "One row per (coll, group, dtype, bytes) of either run, the "
               "process groups of a key summed (group: pg_desc, else "
               "size<N>); sorted by |impact_ns| descending.",
               TLM_TAB_CR_COLLS)
#undef TLM_ROW
#define TLM_ROW tlm_cr_op
TLM_ROWTAB_(tlm_crtab_ops, tlm_cr_op, "ops",
               "One row per op name of /ops/merged of either run, times "
               "per rank (per step when both runs have steps); sorted by "
               "|impact_ns| descending.",
               TLM_TAB_CR_OPS)
#undef TLM_ROW
#define TLM_ROW tlm_cr_strag
TLM_ROWTAB_(tlm_crtab_strag, tlm_cr_strag, "stragglers",
               "One row per trace rank of either run (the overall rows of "
               "/stragglers), sorted by trace_rank.",
               TLM_TAB_CR_STRAG)
#undef TLM_ROW
#define TLM_ROW tlm_row_finding
TLM_ROWTAB_(tlm_crtab_findings, tlm_row_finding, "findings",
               "The comparative findings (rules R1-R6), in report order.",
               TLM_TAB_FINDINGS)
#undef TLM_ROW

const tlm_rowtab *const tlm_cr_tables[] = {
    &tlm_crtab_summary, &tlm_crtab_colls, &tlm_crtab_ops, &tlm_crtab_strag,
    &tlm_crtab_findings, NULL};
