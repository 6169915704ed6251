/*
 * audit_h5.c - audit.h5 (docs/hdf5-schema.md, "audit.h5"): rank 0 alone
 * writes it (MPI_COMM_SELF, built in memory by h5write.c), the tables of
 * audit_tables.h plus, under /by_run, one external link per ok run to its
 * runs/<run>/tlmpi.h5 (a path relative to audit.h5's folder, so the
 * folder can be moved as a whole).
 */
#include "h5write.h"
#include "audit_mpi.h"

#include <stdio.h>
#include <string.h>

#include "tlmpi/tlm_version.h"

/* audit.h5's root attributes: counts, options, versions, the command. */
static tlm_status root_attrs(hid_t f, const tlm_audit_acc *acc,
                             const tlm_audit_meta *m, tlm_error *err)
{
    size_t failed = 0;
    for (size_t i = 0; i < acc->n_runs; i++)
        failed += strcmp(acc->runs[i].status, "ok") != 0;
    struct {
        const char *name;
        int64_t v;
    } iv[] = {
        {"schema_version", TLM_SCHEMA_VERSION},
        {"audit_schema_version", TLM_AUDIT_SCHEMA_VERSION},
        {"n_runs", (int64_t)acc->n_runs},
        {"n_failed", (int64_t)failed},
        {"n_files_seen", (int64_t)m->plan->n_seen},
        {"n_traces", (int64_t)m->plan->n_tr},
        {"n_skipped", (int64_t)m->plan->n_skip},
        {"straggler_threshold_ns",
         (int64_t)(m->o->a.straggler_threshold_us * 1e3 + 0.5)},
        {"step_outlier_pct", m->o->a.step_outlier_pct},
    };
    const char *sv[][2] = {
        {"kind", "audit"},
        {"creator", "tlmpi " TLM_VERSION_STRING},
        {"command_line", m->cmdline},
        {"root", m->o->root},
        {"baseline", m->o->baseline ? m->o->baseline : ""},
        {"units", "times and durations int64 ns; sizes bytes; GB/s = 1e9 "
                  "bytes/s; per-column units in each dataset's 'units' "
                  "attribute"},
    };
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && i < sizeof iv / sizeof iv[0]; i++)
        st = tlm_mpi_h5_attr_i64(f, iv[i].name, iv[i].v, err);
    for (size_t i = 0; st == TLM_OK && i < sizeof sv / sizeof sv[0]; i++)
        st = tlm_mpi_h5_attr_str(f, sv[i][0], sv[i][1], err);
    return st;
}

/* /by_run/<run index>: links to the ok runs' files. */
static tlm_status links(hid_t f, const tlm_audit_acc *acc, tlm_error *err)
{
    hid_t g = H5Gcreate2(f, "by_run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return tlm_error_set(err, TLM_EHDF5, NULL, -1,
                             "cannot create /by_run in audit.h5");
    tlm_status st = tlm_mpi_h5_attr_str(
        g, "doc", "one external link per ok run (named by its index in "
                  "/runs) to the root of its tlmpi.h5", err);
    for (size_t i = 0; st == TLM_OK && i < acc->n_runs; i++) {
        const tlm_arow_run *r = &acc->runs[i];
        if (!r->h5[0])
            continue;
        char name[32];
        snprintf(name, sizeof name, "%05zu", i);
        if (H5Lcreate_external(r->h5, "/", g, name, H5P_DEFAULT,
                               H5P_DEFAULT) < 0)
            st = tlm_error_set(err, TLM_EHDF5, NULL, -1,
                               "cannot link run %s in audit.h5", r->run);
    }
    H5Gclose(g);
    return st;
}

/* audit.h5 at path: attributes, tables, a link per ok run. */
tlm_status tlm_audit_h5_write(const char *path, const tlm_audit_acc *acc,
                              const tlm_audit_meta *m, tlm_error *err)
{
    hid_t f = -1;
    tlm_status st = tlm_mpi_h5_create(path, MPI_COMM_SELF, &f, err);
    if (st != TLM_OK)
        return st;
    st = root_attrs(f, acc, m, err);
    const struct {
        const tlm_rowtab *t;
        const void *rows;
        size_t n;
    } tabs[] = {
        {&tlm_atab_runs, acc->runs, acc->n_runs},
        {&tlm_atab_jobs, acc->jobs, acc->n_jobs},
        {&tlm_atab_colls, acc->colls, acc->n_colls},
        {&tlm_atab_strag, acc->strag, acc->n_strag},
        {&tlm_atab_cmp, acc->cmp, acc->n_cmp},
        {&tlm_atab_skipped, m->plan->skip, m->plan->n_skip},
    };
    for (size_t i = 0; st == TLM_OK && i < sizeof tabs / sizeof tabs[0]; i++)
        st = tlm_mpi_h5_write_table(f, tabs[i].t, tabs[i].rows, tabs[i].n,
                                    MPI_COMM_SELF, err);
    if (st == TLM_OK)
        st = links(f, acc, err);
    tlm_status cst = tlm_mpi_h5_close(f, path, st != TLM_OK, MPI_COMM_SELF,
                                      err);
    return st != TLM_OK ? st : cst;
}
