/*
 * test_progress.c - rank 0's progress display (src/cli/progress.c): the
 * mode chosen for the options, the terminal line (rewritten with '\r',
 * erased at the end), the plain lines of --progress, and the options that
 * drive it (src/cli/opts.c: --progress, --quiet, --version; every option the
 * parser knows is named in the usage text).  No MPI calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "opts.h"
#include "progress.h"

/* A progress display writing into memory. */
typedef struct sink {
    char *buf;
    size_t len;
    FILE *f;
} sink;

static void sink_open(sink *s)
{
    s->buf = NULL;
    s->len = 0;
    s->f = open_memstream(&s->buf, &s->len);
    assert_non_null(s->f);
}

static const char *sink_text(sink *s)
{
    fflush(s->f);
    return s->buf ? s->buf : "";
}

static void sink_close(sink *s)
{
    fclose(s->f);
    free(s->buf);
}

static void test_mode(void **state)
{
    (void)state;
    assert_int_equal(tlm_cli_progress_mode(0, 0, 0, 1), TLM_CLI_PROG_TTY);
    assert_int_equal(tlm_cli_progress_mode(0, 0, 0, 0), TLM_CLI_PROG_OFF);
    assert_int_equal(tlm_cli_progress_mode(0, 1, 0, 0), TLM_CLI_PROG_LINES);
    assert_int_equal(tlm_cli_progress_mode(0, 1, 0, 1), TLM_CLI_PROG_LINES);
    assert_int_equal(tlm_cli_progress_mode(1, 0, 0, 1), TLM_CLI_PROG_OFF);
    /* only rank 0 shows anything */
    assert_int_equal(tlm_cli_progress_mode(0, 1, 3, 1), TLM_CLI_PROG_OFF);
    assert_int_equal(tlm_cli_progress_mode(0, 0, 1, 1), TLM_CLI_PROG_OFF);
}

static void test_text(void **state)
{
    (void)state;
    tlm_cli_progress p;
    char t[256];
    tlm_cli_progress_init(&p, TLM_CLI_PROG_OFF, stderr, 100.0);
    tlm_cli_progress_phase(&p, "write", 100.0);
    tlm_cli_progress_text(&p, 102.5, t, sizeof t);
    assert_string_equal(t, "[write] 2.5 s");
    tlm_cli_progress_phase(&p, "read", 110.0);
    tlm_cli_progress_files(&p, 5, 8, 4600000, 3, 4, 112.0, 0);
    tlm_cli_progress_text(&p, 112.0, t, sizeof t);
    assert_string_equal(t, "[read] 5/8 traces, 4.6 MB on disk, 2.3 MB/s, "
                           "3/4 ranks done");
    /* a phase starts without counts */
    tlm_cli_progress_phase(&p, "check", 113.0);
    tlm_cli_progress_text(&p, 113.0, t, sizeof t);
    assert_string_equal(t, "[check] 0.0 s");
}

static void test_lines(void **state)
{
    (void)state;
    sink s;
    sink_open(&s);
    tlm_cli_progress p;
    tlm_cli_progress_init(&p, TLM_CLI_PROG_LINES, s.f, 0.0);
    tlm_cli_progress_phase(&p, "setup", 0.0);
    tlm_cli_progress_phase(&p, "read", 0.25);
    /* the first count at once, then at most one a second, and the last */
    tlm_cli_progress_files(&p, 1, 4, 1000000, 0, 2, 0.5, 0);
    tlm_cli_progress_files(&p, 2, 4, 2000000, 1, 2, 0.75, 0);
    tlm_cli_progress_files(&p, 3, 4, 3000000, 1, 2, 1.75, 0);
    tlm_cli_progress_files(&p, 4, 4, 4000000, 2, 2, 2.25, 1);
    tlm_cli_progress_phase(&p, "write", 2.25);
    tlm_cli_progress_phase(&p, NULL, 3.0); /* the end: no "done" line */
    assert_string_equal(
        sink_text(&s),
        "tlmpi: [setup] done in 0.25 s\n"
        "tlmpi: [read] 1/4 traces, 1.0 MB on disk, 4.0 MB/s, 0/2 ranks "
        "done\n"
        "tlmpi: [read] 3/4 traces, 3.0 MB on disk, 2.0 MB/s, 1/2 ranks "
        "done\n"
        "tlmpi: [read] 4/4 traces, 4.0 MB on disk, 2.0 MB/s, 2/2 ranks "
        "done\n"
        "tlmpi: [read] done in 2.00 s\n");
    sink_close(&s);
}

static void test_tty(void **state)
{
    (void)state;
    sink s;
    sink_open(&s);
    tlm_cli_progress p;
    tlm_cli_progress_init(&p, TLM_CLI_PROG_TTY, s.f, 0.0);
    /* nothing during the first second */
    tlm_cli_progress_phase(&p, "setup", 0.0);
    tlm_cli_progress_phase(&p, "read", 0.5);
    tlm_cli_progress_files(&p, 1, 2, 1000000, 0, 2, 0.9, 0);
    assert_string_equal(sink_text(&s), "");
    tlm_cli_progress_clear(&p); /* nothing drawn: nothing to erase */
    assert_string_equal(sink_text(&s), "");
    /* then one line, rewritten in place */
    tlm_cli_progress_files(&p, 2, 2, 2000000, 2, 2, 1.5, 1);
    tlm_cli_progress_phase(&p, "write", 1.5);
    tlm_cli_progress_phase(&p, NULL, 2.0); /* the end erases it */
    assert_string_equal(sink_text(&s),
                        "\rtlmpi: [read] 2/2 traces, 2.0 MB on disk, "
                        "2.0 MB/s, 2/2 ranks done\033[K"
                        "\rtlmpi: [write] 0.0 s\033[K"
                        "\r\033[K");
    sink_close(&s);
}

static void test_off(void **state)
{
    (void)state;
    sink s;
    sink_open(&s);
    tlm_cli_progress p;
    tlm_cli_progress_init(&p, TLM_CLI_PROG_OFF, s.f, 0.0);
    tlm_cli_progress_phase(&p, "read", 0.0);
    tlm_cli_progress_files(&p, 1, 1, 10, 1, 1, 5.0, 1);
    tlm_cli_progress_phase(&p, NULL, 9.0);
    assert_string_equal(sink_text(&s), "");
    sink_close(&s);
    /* a NULL display is allowed everywhere */
    tlm_cli_progress_phase(NULL, "read", 0.0);
    tlm_cli_progress_files(NULL, 1, 1, 10, 1, 1, 5.0, 1);
    tlm_cli_progress_clear(NULL);
}

static tlm_status parse(tlm_cli_opts *o, tlm_error *err, int n, ...)
{
    static char *argv[16];
    va_list ap;
    va_start(ap, n);
    argv[0] = "tlmpi";
    for (int i = 0; i < n; i++)
        argv[i + 1] = va_arg(ap, char *);
    va_end(ap);
    return tlm_cli_opts_parse(n + 1, argv, o, err);
}

static void test_options(void **state)
{
    (void)state;
    tlm_cli_opts o;
    tlm_error err;
    assert_int_equal(parse(&o, &err, 3, "--trace_dir", "d", "--progress"),
                     TLM_OK);
    assert_true(o.progress);
    assert_false(o.quiet);
    assert_int_equal(parse(&o, &err, 3, "--trace_dir", "d", "--quiet"),
                     TLM_OK);
    assert_true(o.quiet);
    assert_int_equal(
        parse(&o, &err, 4, "--trace_dir", "d", "--quiet", "--progress"),
        TLM_EINVAL);
    assert_non_null(strstr(err.msg, "exclude each other"));
    assert_int_equal(parse(&o, &err, 1, "--version"), TLM_OK);
    assert_true(o.version);
    assert_int_equal(parse(&o, &err, 1, "--progress=1"), TLM_EINVAL);
}

/* Every option the parser knows is in the usage text ("--name "). */
static void test_usage_names_every_option(void **state)
{
    (void)state;
    const char *u = tlm_cli_opts_usage();
    size_t n = 0;
    for (const char *name; (name = tlm_cli_opts_name(n)) != NULL; n++) {
        char opt[128];
        snprintf(opt, sizeof opt, "  --%s ", name);
        if (!strstr(u, opt))
            fail_msg("--%s is not described in the usage text", name);
    }
    assert_true(n >= 18);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_tty),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_usage_names_every_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
