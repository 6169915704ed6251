/*
 * mpi_test_plots.c - --plots (mpi/plots.c) and the merged trace's paths
 * (mpi/phase_timeline.c) without MPI: the plot script run through a stand-in
 * interpreter (/bin/sh) that records its arguments and exits 0, 3 (a
 * module missing) or 5 (a failure); a missing interpreter and a missing
 * script; the PNG names checked as outputs (refused when they exist,
 * accepted with force); the merged trace's path in the analysis and in an
 * audit run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mtrace.h"
#include "plots.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tlm_mpi_test_plots_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A stand-in plot script: records "$@" in dir/args, exits with code. */
static void fake_script(int code)
{
    char p[512];
    snprintf(p, sizeof p, "%s/fake_plot.sh", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "echo \"$@\" > '%s/args'\nexit %d\n", dir, code);
    fclose(f);
    setenv("TLMPI_PLOT_SCRIPT", p, 1);
    setenv("TLMPI_PYTHON", "/bin/sh", 1);
}

static void read_args(char *buf, size_t cap)
{
    char p[512];
    snprintf(p, sizeof p, "%s/args", dir);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, (int)cap, f));
    fclose(f);
    unlink(p);
}

static void test_run_ok(void **state)
{
    (void)state;
    fake_script(0);
    assert_int_equal(tlm_mpi_plots("/x/tlmpi.h5", "/x/out", 1), 0);
    char a[512];
    read_args(a, sizeof a);
    assert_string_equal(a, "/x/tlmpi.h5 --out /x/out/plots --quiet\n");
    assert_int_equal(tlm_mpi_plots("a b.h5", "o", 0), 0);
    read_args(a, sizeof a);
    assert_string_equal(a, "a b.h5 --out o/plots\n");
}

static void test_run_missing(void **state)
{
    (void)state;
    fake_script(3);
    assert_int_equal(tlm_mpi_plots("t.h5", dir, 1), -1);
    fake_script(5);
    assert_int_equal(tlm_mpi_plots("t.h5", dir, 1), -1);
    setenv("TLMPI_PYTHON", "/nonexistent/python3", 1);
    assert_int_equal(tlm_mpi_plots("t.h5", dir, 1), -1);
    setenv("TLMPI_PLOT_SCRIPT", "/nonexistent/tlmpi_plot.py", 1);
    assert_int_equal(tlm_mpi_plots("t.h5", dir, 1), -1);
    unsetenv("TLMPI_PLOT_SCRIPT");
    unsetenv("TLMPI_PYTHON");
}

static void test_check(void **state)
{
    (void)state;
    tlm_outset s;
    tlm_error err;
    assert_int_equal(tlm_outset_init(&s, 0, &err), TLM_OK);
    assert_int_equal(tlm_mpi_plots_check(&s, dir, &err), TLM_OK);
    char p[512];
    snprintf(p, sizeof p, "%s/plots", dir);
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0); /* the folder is created */
    snprintf(p, sizeof p, "%s/plots/%s", dir, tlm_mpi_plot_names[1]);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(tlm_mpi_plots_check(&s, dir, &err), TLM_EEXIST);
    assert_non_null(strstr(err.file, "busbw.png"));
    tlm_outset_free(&s);
    assert_int_equal(tlm_outset_init(&s, 1, &err), TLM_OK);
    assert_int_equal(tlm_mpi_plots_check(&s, dir, &err), TLM_OK);
    tlm_outset_free(&s);
}

static void test_mtrace_path(void **state)
{
    (void)state;
    tlm_mpi_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    char p[64];
    c->o.merged_trace = "out/m.json.gz";
    assert_int_equal(tlm_mpi_mtrace_path(c, p, sizeof p), 0);
    assert_string_equal(p, "out/m.json.gz");
    c->label = "llama/n8"; /* an audit run: its folder + the name */
    c->o.merged_trace = "merged.json.gz";
    tlm_strset(c->su.rdir, sizeof c->su.rdir, "D/runs/llama/n8");
    assert_int_equal(tlm_mpi_mtrace_path(c, p, sizeof p), 0);
    assert_string_equal(p, "D/runs/llama/n8/merged.json.gz");
    assert_int_equal(tlm_mpi_mtrace_path(c, p, 10), -1);
    tlm_mpi_mtrace_free(c); /* nothing held: a no-op */
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_ok),
        cmocka_unit_test(test_run_missing),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_mtrace_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
