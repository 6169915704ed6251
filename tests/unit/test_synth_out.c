/*
 * test_synth_out.c - tlmpi-synth's output writer (src/synth/synth_out.c):
 * integers, microsecond timestamps and JSON strings formatted by hand; a
 * counting sink; the 4 MiB buffer flushed across its edge; gzip output
 * that inflates to the plain output, also for a whole synthesized trace;
 * I/O errors kept and reported at close.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "synth_internal.h"
#include "tlm_test_synth.h"
#include "tlm_test_util.h"

/* The whole content of a gzip file, inflated; caller frees. */
static unsigned char *inflate_file(const char *path, size_t *n)
{
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    size_t cap = 1 << 16;
    unsigned char *b = malloc(cap);
    assert_non_null(b);
    *n = 0;
    for (;;) {
        if (*n == cap) {
            cap *= 2;
            b = realloc(b, cap);
            assert_non_null(b);
        }
        int got = gzread(gz, b + *n, (unsigned)(cap - *n));
        assert_true(got >= 0);
        if (got == 0)
            break;
        *n += (size_t)got;
    }
    gzclose(gz);
    return b;
}

/* Writes every kind of value into o. */
static void put_values(tlm_synth_out *o)
{
    tlm_synth_puti(o, 0);
    tlm_synth_putc(o, ' ');
    tlm_synth_puti(o, -1);
    tlm_synth_putc(o, ' ');
    tlm_synth_puti(o, INT64_MAX);
    tlm_synth_putc(o, ' ');
    tlm_synth_puti(o, INT64_MIN);
    tlm_synth_puts(o, "\n");
    static const int64_t ns[] = {0, 1, 999, 1000, 2000000030499, -5, -1500};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        tlm_synth_putus(o, ns[i]);
        tlm_synth_putc(o, ' ');
    }
    tlm_synth_putn(o, "\nxyz", 2); /* n bytes only */
    tlm_synth_putq(o, "plain");
    tlm_synth_putq(o, "a\"b\\c\nd\x01\x1f \xc2\xb5");
    tlm_synth_putq(o, "");
}

static const char values_text[] =
    "0 -1 9223372036854775807 -9223372036854775808\n"
    "0.000 0.001 0.999 1.000 2000000030.499 -0.005 -1.500 "
    "\nx\"plain\"\"a\\\"b\\\\c\\u000ad\\u0001\\u001f \xc2\xb5\"\"\"";

static void test_values(void **state)
{
    (void)state;
    char dir[256], path[512];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/v.json", dir);
    tlm_synth_out o;
    assert_int_equal(tlm_synth_out_open(&o, path, 0, 0), TLM_OK);
    put_values(&o);
    assert_int_equal(o.total, sizeof values_text - 1);
    assert_int_equal(tlm_synth_out_close(&o), TLM_OK);
    assert_null(o.buf);
    size_t n = 0;
    unsigned char *b = tt_slurp(path, &n);
    assert_non_null(b);
    assert_int_equal(n, sizeof values_text - 1);
    assert_memory_equal(b, values_text, n);
    free(b);

    /* a counting sink: the same total, nothing written */
    assert_int_equal(tlm_synth_out_open(&o, NULL, 0, 0), TLM_OK);
    assert_true(o.discard);
    put_values(&o);
    assert_int_equal(o.total, sizeof values_text - 1);
    assert_int_equal(tlm_synth_out_close(&o), TLM_OK);
    tt_rm_rf(dir);
}

/* 10 MiB through the 4 MiB buffer, plain and gzip (levels clamped to
 * 1..9): the gzip file inflates to the plain file's bytes. */
static void test_gzip_inflates(void **state)
{
    (void)state;
    char dir[256], plain[512], gz[512];
    tt_tmpdir(dir, sizeof dir);
    snprintf(plain, sizeof plain, "%s/p.json", dir);
    for (int level = 0; level <= 10; level += 5) {
        snprintf(gz, sizeof gz, "%s/p%d.json.gz", dir, level);
        tlm_synth_out p, z;
        assert_int_equal(tlm_synth_out_open(&p, plain, 0, 0), TLM_OK);
        assert_int_equal(tlm_synth_out_open(&z, gz, 1, level), TLM_OK);
        tlm_synth_out *outs[2] = {&p, &z};
        for (int k = 0; k < 2; k++)
            for (int64_t i = 0; i < 600000; i++) {
                tlm_synth_puts(outs[k], "{\"ts\": ");
                tlm_synth_putus(outs[k], i * 1237);
                tlm_synth_putc(outs[k], '}');
            }
        assert_true(p.total > ((uint64_t)8 << 20));
        assert_int_equal(p.total, z.total);
        assert_int_equal(tlm_synth_out_close(&p), TLM_OK);
        assert_int_equal(tlm_synth_out_close(&z), TLM_OK);
        size_t np = 0, nz = 0;
        unsigned char *bp = tt_slurp(plain, &np);
        unsigned char *bz = inflate_file(gz, &nz);
        assert_non_null(bp);
        assert_int_equal(np, p.total);
        assert_int_equal(nz, np);
        assert_memory_equal(bz, bp, np);
        assert_memory_equal(bp, "{\"ts\": 0.000}{\"ts\": 1.237}", 26);
        free(bp);
        free(bz);
    }
    tt_rm_rf(dir);
}

/* Rank 0 of the small job written plain and gzipped: the same JSON but
 * for the trace's name. */
static void test_job_gzip(void **state)
{
    (void)state;
    char d[2][256];
    tlm_synth_truth *t[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        tt_tmpdir(d[k], sizeof d[k]);
        tlm_synth_opts o;
        ts_small_opts(&o, d[k]);
        static const int only[1] = {0};
        o.only_ranks = only;
        o.n_only_ranks = 1;
        o.gzip = k;
        assert_int_equal(tlm_synth_run(&o, &t[k], NULL), TLM_OK);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/rank0_trace.json", d[0]);
    size_t np = 0, nz = 0;
    unsigned char *bp = tt_slurp(path, &np);
    assert_non_null(bp);
    snprintf(path, sizeof path, "%s/rank0_trace.json.gz", d[1]);
    unsigned char *bz = inflate_file(path, &nz);
    assert_int_equal(np, t[0]->ranks[0].n_bytes);
    assert_int_equal(nz, t[1]->ranks[0].n_bytes);
    assert_int_equal(nz, np + 3);
    /* the name is in the footer, after the last event */
    static const char name[] = "\"traceName\": \"rank0_trace.json";
    size_t at = np - (sizeof name - 1);
    while (at > 0 && memcmp(bp + at, name, sizeof name - 1) != 0)
        at--;
    assert_true(at > np - 200);
    size_t end = at + sizeof name - 1;
    assert_memory_equal(bp, bz, end);
    assert_memory_equal(bz + end, ".gz", 3);
    assert_memory_equal(bp + end, bz + end + 3, np - end);
    free(bp);
    free(bz);
    for (int k = 0; k < 2; k++) {
        tlm_synth_truth_free(t[k]);
        tt_rm_rf(d[k]);
    }
}

/* A file that cannot be created; a device that refuses writes: the error
 * is kept and returned by close. */
static void test_errors(void **state)
{
    (void)state;
    tlm_synth_out o;
    assert_int_equal(tlm_synth_out_open(&o, "/nonexistent/x.json", 0, 0),
                     TLM_EIO);
    assert_null(o.buf);
    assert_int_equal(tlm_synth_out_open(&o, "/nonexistent/x.gz", 1, 1),
                     TLM_EIO);
    assert_null(o.buf);
    FILE *f = fopen("/dev/full", "wb");
    if (!f)
        skip();
    fclose(f);
    /* 5 MiB: the buffer's first flush fails */
    assert_int_equal(tlm_synth_out_open(&o, "/dev/full", 0, 0), TLM_OK);
    static char block[4096];
    memset(block, 'x', sizeof block);
    for (int i = 0; i < 1280; i++)
        tlm_synth_putn(&o, block, sizeof block);
    assert_int_equal(o.st, TLM_EIO);
    assert_int_equal(tlm_synth_out_close(&o), TLM_EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_gzip_inflates),
        cmocka_unit_test(test_job_gzip),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
