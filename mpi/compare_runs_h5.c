/*
 * compare_runs_h5.c - `tlmpi compare A.h5 B.h5` (docs/compare-runs.md):
 * comparison.h5, the tables of src/runs/compare_runs.h written in one
 * process with the plain default file access (no MPI), root attributes
 * kind = "comparison", schema_version, creator, the inputs' paths and
 * names; and the command itself: its options and output set (src/runs),
 * the inputs read (compare_runs_read.c), compared (src/runs), both
 * outputs written and published together.
 */
#include "h5write.h"
#include "compare_runs_mpi.h"

#include "sigclean.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tlmpi/tlm_version.h"

/* The root attributes of comparison.h5. */
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

/* comparison.h5 at path: its attributes and tables. */
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

/* "tlmpi compare: error: ..." on stderr; returns the exit code 1. */
static int fail(const tlm_error *err)
{
    char m[1200];
    fprintf(stderr, "tlmpi compare: error: %s\n",
            tlm_error_format(err, m, sizeof m));
    return 1;
}

/* Both outputs into their temporaries: tmp[0] the .h5, tmp[1] the .md. */
static tlm_status write_all(const tlm_cr_args *a, const tlm_cr_run r[2],
                            const tlm_cr_result *res, const char *tmp[2],
                            tlm_error *err)
{
    tlm_status st = tlm_cr_write_h5(tmp[0], &r[0], &r[1], res, err);
    if (st != TLM_OK)
        return st;
    FILE *f = fopen(tmp[1], "w");
    if (!f)
        return tlm_error_set(err, TLM_EIO, tmp[1], -1, "cannot create: %s",
                             strerror(errno));
    tlm_cr_write_md(f, &r[0], &r[1], res, &a->o);
    return tlm_outset_fclose(f, tmp[1], err);
}

/* Seconds a run file's trial read may take (compare_runs_read.c). */
enum { TLM_CR_READ_DEADLINE_S = 300 };

/* The command: the exit code (0, 1 failed, 2 usage). */
int tlm_cmd_compare_runs(int argc, char **argv)
{
    tlm_cr_args a;
    int rc = tlm_cr_args_parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tlm_error err;
    tlm_error_clear(&err);
    tlm_outset set;
    const char *tmp[2] = {NULL, NULL};
    tlm_cr_run r[2];
    memset(r, 0, sizeof r);
    tlm_cr_result res;
    memset(&res, 0, sizeof res);
    /* inputs first: a bad input leaves nothing behind, not even a folder */
    tlm_status st = tlm_cr_read_guarded(&r[0], a.in[0], a.names[0],
                                        TLM_CR_READ_DEADLINE_S, &err);
    if (st == TLM_OK)
        st = tlm_cr_read_guarded(&r[1], a.in[1], a.names[1],
                                 TLM_CR_READ_DEADLINE_S, &err);
    if (st != TLM_OK) {
        tlm_cr_run_free(&r[0]);
        return fail(&err);
    }
    st = tlm_cr_outputs(&set, &a, tmp, &err);
    if (st == TLM_OK) {
        tlm_cli_signals_install();
        tlm_cli_signals_track(&set);
        st = tlm_cr_compare(&r[0], &r[1], &a.o, &res, &err);
        if (st == TLM_OK)
            st = write_all(&a, r, &res, tmp, &err);
        if (st == TLM_OK)
            st = tlm_outset_commit(&set, &err);
        if (st != TLM_OK)
            tlm_outset_abort(&set);
        tlm_cli_signals_untrack(&set);
    }
    tlm_outset_free(&set);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st == TLM_OK && !a.quiet)
        fprintf(stderr, "tlmpi compare: wrote %s/comparison.h5 and "
                        "comparison.md (%zu collectives, %zu ops, %zu "
                        "findings) in %.2f s\n", a.dir, res.n_colls,
                res.n_ops, res.n_find,
                (double)(t1.tv_sec - t0.tv_sec) +
                    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    tlm_cr_result_free(&res);
    tlm_cr_run_free(&r[0]);
    tlm_cr_run_free(&r[1]);
    return st == TLM_OK ? 0 : fail(&err);
}
