/*
 * compare_runs.c - `tlmpi compare RUN_A.h5 RUN_B.h5 [--output_dir D]`: the
 * command line of the run-to-run comparison (compare_runs.h), one
 * process, no MPI.  Both outputs (comparison.h5, comparison.md) are
 * checked before any work, staged, and published together
 * (tlm_outset.h); an existing output is refused without --force.
 */
#include "compare_runs.h"

#include "sigclean.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct cr_args {
    const char *in[2], *names[2], *dir;
    int force, quiet;
    tlm_cr_opts o;
} cr_args;

static void usage(FILE *f)
{
    fputs("usage: tlmpi compare RUN_A.h5 RUN_B.h5 [--output_dir D] "
          "[--names A B]\n"
          "                     [--top N] [--min_impact_pct X] [--force] "
          "[--quiet]\n\n"
          "Compares two analyses of whole jobs (files written by mpirun -n N "
          "tlmpi\n--trace_dir DIR --output FILE.h5): A the baseline, B the "
          "variant.  Per\ncollective (coll, group, dtype, bytes), per op, "
          "per rank and the step time;\nwrites D/comparison.h5 and "
          "D/comparison.md (docs/compare-runs.md).\n\n"
          "options:\n"
          "  --output_dir D        output folder (default .; created if "
          "missing)\n"
          "  --names A B           names of the two runs (default: the file "
          "names)\n"
          "  --top N               rows per table and findings per kind in "
          "comparison.md\n"
          "                        (default 10)\n"
          "  --min_impact_pct X    a change becomes a finding when its "
          "impact is at least\n"
          "                        X % of B's step time (default 1)\n"
          "  --force               replace outputs that exist already\n"
          "  --quiet               no summary on stderr\n", f);
}

static int parse_num(const char *opt, const char *s, double lo, double *v)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s || *end || !(d >= lo)) {
        fprintf(stderr, "tlmpi compare: bad value for %s: %s\n", opt, s);
        return 0;
    }
    *v = d;
    return 1;
}

/* 0 ok, 2 usage error, -1 help printed. */
static int parse(int argc, char **argv, cr_args *a)
{
    memset(a, 0, sizeof *a);
    a->dir = ".";
    a->o.min_impact_pct = 1.0;
    a->o.top = 10;
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int has = i + 1 < argc;
        double d;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(s, "--force")) {
            a->force = 1;
        } else if (!strcmp(s, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(s, "--output_dir") && has) {
            a->dir = argv[++i];
        } else if (!strcmp(s, "--names") && i + 2 < argc) {
            a->names[0] = argv[++i];
            a->names[1] = argv[++i];
        } else if (!strcmp(s, "--top") && has) {
            if (!parse_num(s, argv[++i], 1, &d))
                return 2;
            a->o.top = (int)(d < 1e6 ? d : 1e6);
        } else if (!strcmp(s, "--min_impact_pct") && has) {
            if (!parse_num(s, argv[++i], 0, &a->o.min_impact_pct))
                return 2;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "tlmpi compare: unknown option or missing "
                            "value: %s\n", s);
            return 2;
        } else if (n < 2) {
            a->in[n++] = s;
        } else {
            fprintf(stderr, "tlmpi compare: two runs only (got %s)\n", s);
            return 2;
        }
    }
    if (n != 2) {
        usage(stderr);
        return 2;
    }
    if (a->names[0] && (!a->names[0][0] || !a->names[1][0] ||
                        !strcmp(a->names[0], a->names[1]))) {
        fprintf(stderr, "tlmpi compare: --names needs two different, "
                        "non-empty names\n");
        return 2;
    }
    for (int k = 0; k < 2; k++)
        if (!a->names[k]) {
            const char *sl = strrchr(a->in[k], '/');
            a->names[k] = sl ? sl + 1 : a->in[k];
        }
    if (!strcmp(a->names[0], a->names[1])) {
        a->names[0] = "A";
        a->names[1] = "B";
    }
    return 0;
}

static int fail(const tlm_error *err)
{
    char m[1200];
    fprintf(stderr, "tlmpi compare: error: %s\n",
            tlm_error_format(err, m, sizeof m));
    return 1;
}

/* Checks and stages both outputs; tmp[0] the .h5, tmp[1] the .md. */
static tlm_status outputs(tlm_outset *set, const cr_args *a,
                          const char *tmp[2], tlm_error *err)
{
    static const char *const base[2] = {"comparison.h5", "comparison.md"};
    tlm_status st = tlm_outset_init(set, a->force, err);
    for (int k = 0; st == TLM_OK && k < 2; k++)
        st = tlm_outset_add_input(set, a->in[k], err);
    char p[2][4200];
    for (int k = 0; k < 2; k++)
        snprintf(p[k], sizeof p[k], "%s/%s", a->dir, base[k]);
    for (int k = 0; st == TLM_OK && k < 2; k++)
        st = tlm_outset_check(set, p[k], err);
    for (int k = 0; st == TLM_OK && k < 2; k++)
        st = tlm_outset_stage(set, p[k], &tmp[k], err);
    return st;
}

static tlm_status write_all(const cr_args *a, const tlm_cr_run r[2],
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

int tlm_cmd_compare_runs(int argc, char **argv)
{
    cr_args a;
    int rc = parse(argc, argv, &a);
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
    tlm_status st = tlm_cr_read(&r[0], a.in[0], a.names[0], &err);
    if (st == TLM_OK)
        st = tlm_cr_read(&r[1], a.in[1], a.names[1], &err);
    if (st != TLM_OK) {
        tlm_cr_run_free(&r[0]);
        return fail(&err);
    }
    st = outputs(&set, &a, tmp, &err);
    if (st == TLM_OK) {
        tlm_mpi_signals_install();
        tlm_mpi_signals_track(&set);
        st = tlm_cr_compare(&r[0], &r[1], &a.o, &res, &err);
        if (st == TLM_OK)
            st = write_all(&a, r, &res, tmp, &err);
        if (st == TLM_OK)
            st = tlm_outset_commit(&set, &err);
        if (st != TLM_OK)
            tlm_outset_abort(&set);
        tlm_mpi_signals_untrack(&set);
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
