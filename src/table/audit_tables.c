/*
 * audit_tables.c - descriptors of the audit.h5 datasets, generated from
 * the X-macro column lists of audit_tables.h (as tables.c does for
 * tlmpi.h5).
 */
#include "audit_tables.h"

#define TLM_ROW tlm_arow_run
TLM_ROWTAB_(tlm_atab_runs, tlm_arow_run, "runs",
               "One row per run (a folder holding the traces of one job), "
               "sorted by run path; failed runs keep their reason.",
               TLM_TAB_AUDIT_RUNS)
#undef TLM_ROW
#define TLM_ROW tlm_arow_job
TLM_ROWTAB_(tlm_atab_jobs, tlm_arow_job, "scaling/jobs",
               "One row per ok run: its step time and communication share "
               "against the base run of its series (the runs of its job "
               "whose collective and op signatures agree: --baseline when "
               "of the series, else the smallest world size), sorted by "
               "(job, series, world_size, run).",
               TLM_TAB_AUDIT_JOBS)
#undef TLM_ROW
#define TLM_ROW tlm_arow_coll
TLM_ROWTAB_(tlm_atab_colls, tlm_arow_coll, "scaling/collectives",
               "One row per (ok run, collective signature: type, process "
               "group description, dtype, bytes, group size), with the "
               "bus bandwidth of the same signature in the base run; "
               "sorted by (job, world_size, run, coll, pg_desc, dtype, "
               "bytes, group_size).",
               TLM_TAB_AUDIT_COLLS)
#undef TLM_ROW
#define TLM_ROW tlm_arow_strag
TLM_ROWTAB_(tlm_atab_strag, tlm_arow_strag, "scaling/stragglers",
               "One row per (job, series, trace rank) that caused waiting "
               "in an ok run (never summed across jobs or series), sorted "
               "by (job, series, runs_named descending, wait caused "
               "descending, trace_rank).",
               TLM_TAB_AUDIT_STRAG)
#undef TLM_ROW
#define TLM_ROW tlm_arow_cmp
TLM_ROWTAB_(tlm_atab_cmp, tlm_arow_cmp, "comparison",
               "With --baseline: one row per (ok run, metric), the run's "
               "value against the baseline run's; sorted by (run, metric "
               "order).",
               TLM_TAB_AUDIT_CMP)
#undef TLM_ROW
#define TLM_ROW tlm_arow_skip
TLM_ROWTAB_(tlm_atab_skipped, tlm_arow_skip, "skipped",
               "Files under the root that are not traces (by content) and "
               "folders or files that could not be read, sorted by path.",
               TLM_TAB_AUDIT_SKIPPED)
#undef TLM_ROW

const tlm_rowtab *const tlm_audit_tables[] = {
    &tlm_atab_runs, &tlm_atab_jobs,  &tlm_atab_colls,   &tlm_atab_strag,
    &tlm_atab_cmp,  &tlm_atab_skipped, NULL,
};
