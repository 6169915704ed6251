/*
 * compare_runs_h5.c - comparison.h5 (`tlmpi compare A.h5 B.h5`): the
 * tables of compare_runs.h written in one process with the plain default
 * file access (no MPI), root attributes kind = "comparison",
 * schema_version, creator, the inputs' paths and names
 * (docs/compare-runs.md).
 */
#include "h5write.h"
#include "compare_runs.h"

#include "tlmpi/tlm_version.h"

#define TLM_ROWTAB_(VAR, ROW, NAME, DOC, LIST)                           \
    static const tlm_col VAR##_cols[] = {LIST(TLM_COL_)};           \
    const tlm_rowtab VAR = {NAME, DOC, VAR##_cols,                       \
                               sizeof VAR##_cols / sizeof VAR##_cols[0],    \
                               sizeof(ROW)};

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

static tlm_status attrs(hid_t f, const tlm_cr_run *a, const tlm_cr_run *b,
                        const tlm_cr_result *res, tlm_error *err)
{
    const char *sv[][2] = {
        {"kind", "comparison"},
        {"creator", "tlmpi " TLM_VERSION_STRING},
        {"path_a", a->path},
        {"path_b", b->path},
        {"name_a", a->name},
        {"name_b", b->name},
        {"impact_per", res->per_step ? "step" : "profile"},
        {"units", "times and durations ns; sizes bytes; GB/s = 1e9 bytes/s; "
                  "diff = B - A, pct = 100 diff / A"},
    };
    tlm_status st = tlm_mpi_h5_attr_i64(f, "schema_version",
                                        TLM_CR_SCHEMA_VERSION, err);
    for (size_t i = 0; st == TLM_OK && i < sizeof sv / sizeof sv[0]; i++)
        st = tlm_mpi_h5_attr_str(f, sv[i][0], sv[i][1], err);
    return st;
}

tlm_status tlm_cr_write_h5(const char *path, const tlm_cr_run *a,
                           const tlm_cr_run *b, const tlm_cr_result *res,
                           tlm_error *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return tlm_error_set(err, TLM_EHDF5, path, -1, "cannot create it");
    tlm_status st = attrs(f, a, b, res, err);
    const struct {
        const tlm_rowtab *t;
        const void *rows;
        size_t n;
    } tabs[] = {
        {&tlm_crtab_summary, res->sum, res->n_sum},
        {&tlm_crtab_colls, res->colls, res->n_colls},
        {&tlm_crtab_ops, res->ops, res->n_ops},
        {&tlm_crtab_strag, res->strag, res->n_strag},
        {&tlm_crtab_findings, res->find, res->n_find},
    };
    for (size_t i = 0; st == TLM_OK && i < sizeof tabs / sizeof tabs[0]; i++)
        st = tlm_mpi_h5_write_local(f, tabs[i].t, tabs[i].rows, tabs[i].n,
                                    err);
    if (H5Fclose(f) < 0 && st == TLM_OK)
        st = tlm_error_set(err, TLM_EHDF5, path, -1, "cannot close it");
    return st;
}
