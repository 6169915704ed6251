/*
 * mpi_test_allocfail.c - the N-th allocation fails, for every N, across the
 * full analysis of a small synthesized job: the single-trace report
 * (`tlmpi report`: reader, tree, every table, perf models, CSV and
 * Markdown writers) and the MPI analysis (`tlmpi --trace_dir`: discovery,
 * per-trace tables, collective extraction, exchange, matching, clock fit,
 * HDF5, rank-0 report).
 *
 * Every allocation the project's code makes (core and driver) goes through
 * malloc/calloc/realloc, which this program wraps at link time
 * (-Wl,--wrap=..., see tests/tests.cmake); the libraries underneath (MPI,
 * HDF5, zlib, libc) are not affected.  For each N the run must end with
 * exit status 0, or 1 with an "out of memory" message; a failed run must
 * leave no output file behind; and every block the code allocated during
 * the run must have been freed when it returns (the wrapper keeps the set
 * of live blocks).  curl's "torture" mode and SQLite's malloc tests work
 * the same way.
 */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
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
#include <mpi.h>

#include "analyze.h"
#include "cli.h"
#include "tlmpi/tlm_synth.h"
#include "tlm_wrap_alloc.h"

/* ---------------------------------------------------------------- MARK:
 * The wrapped allocator: counts, fails the N-th, tracks live blocks. */

#define LIVE_CAP (1u << 21) /* open addressing, power of two */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_armed;      /* counting and tracking */
static long g_count;     /* allocations attempted while armed */
static long g_fail_at;   /* 0: none */
static long g_failed;    /* allocations refused */
static void *g_fail_site; /* return address of the refused allocation */
static size_t g_live;    /* blocks in the set */
static int g_overflow;   /* the set filled up (test setup problem) */
static void *g_set[LIVE_CAP];

static size_t slot_of(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)(x & (LIVE_CAP - 1));
}

static void set_add(void *p)
{
    if (g_live >= LIVE_CAP / 2) {
        g_overflow = 1;
        return;
    }
    size_t i = slot_of(p);
    while (g_set[i])
        i = (i + 1) & (LIVE_CAP - 1);
    g_set[i] = p;
    g_live++;
}

/* Removes p (linear probing with backward-shift deletion). */
static void set_del(void *p)
{
    size_t i = slot_of(p);
    while (g_set[i] != p) {
        if (!g_set[i])
            return; /* not ours: allocated before arming or by libc */
        i = (i + 1) & (LIVE_CAP - 1);
    }
    size_t j = i;
    for (;;) {
        j = (j + 1) & (LIVE_CAP - 1);
        if (!g_set[j])
            break;
        size_t k = slot_of(g_set[j]);
        /* can g_set[j] move back into the hole at i? */
        int move = (i <= j) ? (k <= i || k > j) : (k <= i && k > j);
        if (move) {
            g_set[i] = g_set[j];
            i = j;
        }
    }
    g_set[i] = NULL;
    g_live--;
}

/* 1: refuse this allocation. */
static int should_fail(void)
{
    if (!g_armed)
        return 0;
    g_count++;
    if (g_fail_at > 0 && g_count == g_fail_at) {
        g_failed++;
        return 1;
    }
    return 0;
}

#define SITE() (g_fail_site = __builtin_return_address(0))

void *__wrap_malloc(size_t size)
{
    pthread_mutex_lock(&g_mu);
    void *p = should_fail() ? (SITE(), NULL) : __real_malloc(size);
    if (p && g_armed)
        set_add(p);
    pthread_mutex_unlock(&g_mu);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    pthread_mutex_lock(&g_mu);
    void *p = should_fail() ? (SITE(), NULL) : __real_calloc(n, size);
    if (p && g_armed)
        set_add(p);
    pthread_mutex_unlock(&g_mu);
    return p;
}

void *__wrap_realloc(void *old, size_t size)
{
    pthread_mutex_lock(&g_mu);
    void *p = NULL;
    if (should_fail()) {
        SITE();
        p = NULL; /* old stays valid, as C says */
    } else {
        p = __real_realloc(old, size);
        if (p && old && g_armed)
            set_del(old);
        if (p && g_armed)
            set_add(p);
    }
    pthread_mutex_unlock(&g_mu);
    return p;
}

void __wrap_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&g_mu);
    if (g_armed)
        set_del(p);
    __real_free(p);
    pthread_mutex_unlock(&g_mu);
}

static void arm(long fail_at)
{
    pthread_mutex_lock(&g_mu);
    g_armed = 1;
    g_count = 0;
    g_fail_at = fail_at;
    g_failed = 0;
    pthread_mutex_unlock(&g_mu);
}

static void disarm(void)
{
    pthread_mutex_lock(&g_mu);
    g_armed = 0;
    pthread_mutex_unlock(&g_mu);
}

/* ---------------------------------------------------------------- MARK:
 * Running a CLI entry point with its output captured. */

static char g_dir[64];       /* temporary folder of the test */
static char g_job[128];      /* the synthesized job */
static char g_out[128];      /* output folder */

typedef int (*entry_fn)(int argc, char **argv);

/* Runs fn with stdout and stderr sent to log; returns its exit status. */
static int run_captured(entry_fn fn, int argc, char **argv,
                        const char *log)
{
    fflush(stdout);
    fflush(stderr);
    int save_out = dup(1), save_err = dup(2);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(save_out >= 0 && save_err >= 0 && fd >= 0);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    int rc = fn(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(save_out, 1);
    dup2(save_err, 2);
    close(save_out);
    close(save_err);
    return rc;
}

static int log_has(const char *log, const char *what)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, what) != NULL;
    fclose(f);
    return found;
}

/* Number of entries of dir (not . and ..). */
static int dir_entries(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* 1 when every CSV file of ref has an identical copy in dir (the tables a
 * run that went on without an allocation wrote must be the same). */
static int same_csvs(const char *ref, const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for f in *.csv; do cmp -s \"$f\" '%s'/\"$f\" || "
             "exit 1; done",
             ref, dir);
    return system(cmd) == 0;
}

static void empty_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/* '%s'/.[!.]*", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* The torture loop over one entry point.  out_dir must be empty after any
 * failed run; it is emptied after each successful one. */
static void torture(const char *what, entry_fn fn, int argc,
                    char **argv_tmpl, const char *out_dir)
{
    char log[160];
    snprintf(log, sizeof log, "%s/run.log", g_dir);
    char *argv[16];
    assert_true(argc < 16);

    empty_dir(out_dir); /* whatever an earlier failed test left */

    /* a clean run: the number of allocations, and the baseline */
    memcpy(argv, argv_tmpl, (size_t)argc * sizeof *argv);
    arm(0);
    int rc = run_captured(fn, argc, argv, log);
    long total = g_count;
    size_t live = g_live;
    disarm();
    if (rc != 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "cat '%s' >&2", log);
        assert_int_equal(system(cmd), 0);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(live, 0);
    assert_true(dir_entries(out_dir) > 0);
    char ref[160], cmd0[600];
    snprintf(ref, sizeof ref, "%s/ref", g_dir);
    snprintf(cmd0, sizeof cmd0, "rm -rf '%s' && cp -r '%s' '%s'", ref,
             out_dir, ref);
    assert_int_equal(system(cmd0), 0);
    empty_dir(out_dir);

    long n_fail_runs = 0, n_ok_runs = 0;
    for (long n = 1; n <= total; n++) {
        memcpy(argv, argv_tmpl, (size_t)argc * sizeof *argv);
        arm(n);
        rc = run_captured(fn, argc, argv, log);
        long failed = g_failed;
        live = g_live;
        disarm();
        assert_false(g_overflow);
        if (live != 0 || (rc != 0 && rc != 1) ||
            (rc == 1 && !log_has(log, "out of memory")) ||
            (rc != 0 && dir_entries(out_dir) != 0)) {
            char cmd[512];
            fprintf(stderr,
                    "%s: allocation %ld of %ld failed: exit %d, %zu blocks "
                    "still allocated, %d files in %s; output:\n",
                    what, n, total, rc, live, dir_entries(out_dir),
                    out_dir);
            snprintf(cmd, sizeof cmd, "cat '%s' >&2", log);
            assert_int_equal(system(cmd), 0);
            fail();
        }
        assert_int_equal(failed, 1);
        if (rc == 0 && !same_csvs(ref, out_dir)) {
            char cmd[600];
            fprintf(stderr, "%s: allocation %ld of %ld failed, the run went "
                    "on and wrote different tables:\n", what, n, total);
            snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' | head -8 >&2", ref,
                     out_dir);
            assert_true(system(cmd) >= 0);
            fail();
        }
        if (rc == 0) {
            if (getenv("TLM_ALLOCFAIL_VERBOSE")) {
                fprintf(stderr, "%s: went on without allocation %ld at ",
                        what, n);
                fflush(stderr);
                backtrace_symbols_fd(&g_fail_site, 1, 2);
            }
            n_ok_runs++;
            empty_dir(out_dir);
        } else {
            n_fail_runs++;
        }
    }
    printf("%s: %ld allocations; each failing in turn: %ld clean errors, "
           "%ld runs that went on without it\n",
           what, total, n_fail_runs, n_ok_runs);
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/tlm_allocfail_XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    snprintf(g_job, sizeof g_job, "%s/job", g_dir);
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    if (mkdir(g_out, 0755) != 0)
        return -1;
    tlm_synth_opts o;
    tlm_synth_opts_init(&o);
    o.out_dir = g_job;
    o.world_size = 2;
    o.tp = 2;
    o.steps = 1;
    o.layers = 1;
    o.hidden = 256;
    o.heads = 4;
    o.seq_len = 128;
    o.vocab = 1024;
    tlm_error err;
    if (tlm_synth_write(&o, &err) != TLM_OK) {
        fprintf(stderr, "synth: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* tlmpi report with the tables in `threads` threads (with 2, where two
 * CPUs are online, the tree's pass runs beside the reader and
 * unified_perf_summary beside the other sheets; with 1 the N-th allocation
 * is the same one in every run). */
static void report_torture(char *threads)
{
    char trace[160], what[64];
    snprintf(trace, sizeof trace, "%s/rank0_trace.json", g_job);
    snprintf(what, sizeof what, "tlmpi report --threads %s", threads);
    char *argv[] = {"report", trace, "--output_csvs_dir", g_out,
                    "--gpu_arch", "H100", "--quiet", "--threads", threads};
    torture(what, tlm_cmd_report, 9, argv, g_out);
}

static void test_report_torture(void **state)
{
    (void)state;
    report_torture("2");
}

static void test_report_torture_serial(void **state)
{
    (void)state;
    report_torture("1");
}

static void test_analyze_torture(void **state)
{
    (void)state;
    char h5[160];
    snprintf(h5, sizeof h5, "%s/tlmpi.h5", g_out);
    char *argv[] = {"tlmpi", "--trace_dir", g_job, "--output", h5,
                    "--quiet"};
    torture("tlmpi --trace_dir", tlm_mpi_analyze, 6, argv, g_out);
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_torture),
        cmocka_unit_test(test_report_torture_serial),
        cmocka_unit_test(test_analyze_torture),
    };
    /* TLM_ALLOCFAIL_ONLY=<test name glob> runs one of them */
    if (getenv("TLM_ALLOCFAIL_ONLY"))
        cmocka_set_test_filter(getenv("TLM_ALLOCFAIL_ONLY"));
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    MPI_Finalize();
    return rc;
}
