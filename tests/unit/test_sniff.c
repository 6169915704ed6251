/*
 * test_sniff.c - content sniffing (src/trace/sniff.c): every head case at
 * every split point (n = 1..len, complete 0 and 1) in an exactly sized
 * buffer, so a read past head[n - 1] is caught by the sanitizers; the
 * verdict must be the expected one from the decisive byte on.  Files:
 * FIFO (never read, never blocks), folder, missing file, gzip (plain,
 * truncated, corrupt, empty, a 100 MB bomb), heads capped small, and the
 * real traces of TLM_SHARED_DIR when present.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlm_test_util.h"
#include "tlmpi/tlm_sniff.h"

/* One head.  The verdict is checked for every n >= the end of `after` (the
 * decisive text; NULL: only the whole text, complete), and for every n
 * below it too when `before` is set (the verdict before the decision). */
typedef struct scase {
    const char *text;
    int verdict;
    const char *after;
    int before;     /* -1: unchecked below the decision, else a verdict */
    const char *reason; /* expected in the reason of the complete text */
    int64_t rank, world; /* expected once `rank_after` is in (-1: never) */
    const char *rank_after;
} scase;

#define NT TLM_SNIFF_NOT_TRACE
#define TR TLM_SNIFF_TRACE

static const scase cases[] = {
    /* Kineto: decided by the first Kineto key */
    {"{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", "
     "\"rank\": 3, \"world_size\": 8, \"pg_config\": [{\"ranks\": [0,1]}]}, "
     "\"traceEvents\": [{\"ph\": \"X\"}]}",
     TR, "\"schemaVersion\"", NT, "", 3, 8, "\"world_size\": 8,"},
    /* a custom key first, "traceEvents" as text in its value */
    {"{\"metadata\": {\"x\": \"\\\"traceEvents\\\": [\", \"y\": [[{\"a\": "
     "\"}\"}]], \"traceEvents\": 1}, \"traceEvents\": [{\"ph\": \"X\"}]}",
     TR, "}, \"traceEvents\"", NT, "", -1, -1, NULL},
    /* distributedInfo after a custom key, cut inside it */
    {"{\"metadata\": {\"a\": [1, 2]}, \"distributedInfo\": {\"rank\": 12, "
     "\"world_size\": 16, \"pg_config\": [{\"pg_name\": \"0\"}]}, \"x\": [",
     TR, "\"distributedInfo\"", NT, "", 12, 16, "\"world_size\": 16,"},
    /* closed without traceEvents: not a trace, Kineto keys or not */
    {"{\"distributedInfo\": {\"rank\": 1}}", NT, NULL, -1,
     "JSON without traceEvents", 1, -1, "\"rank\": 1}"},
    /* escapes in keys are decoded */
    {"{\"trace\\u0045vents\": []}", TR, "\"trace\\u0045vents\"", NT, "", -1,
     -1, NULL},
    {"\xEF\xBB\xBF \n\t\r{ \"traceEvents\" : [ ] }", TR, "\"traceEvents\"", NT,
     "", -1, -1, NULL},
    /* bare arrays: the first element is an event */
    {"[{\"ph\": \"X\", \"ts\": 1}]", TR, "\"ph\"", NT, "", -1, -1, NULL},
    {"[ {\"args\": {\"ph\": 1}, \"name\": \"a\"}]", TR, "\"name\"", NT, "", -1,
     -1, NULL},
    {"[]", NT, NULL, NT, "empty JSON array", -1, -1, NULL},
    {"[1, {\"ph\": \"X\"}]", NT, NULL, NT, "not of trace events", -1, -1,
     NULL},
    {"[{\"cat\": \"x\", \"args\": {}}]", NT, NULL, NT, "not of trace events",
     -1, -1, NULL},
    /* JSON that is not a trace */
    {"{\"a\": 1, \"b\": [true, null, \"x\\\"y\"], \"c\": {}}", NT, NULL, NT,
     "JSON without traceEvents", -1, -1, NULL},
    {"{}", NT, NULL, NT, "JSON without traceEvents", -1, -1, NULL},
    {"{\"a\": 1,}", NT, NULL, NT, "JSON without traceEvents", -1, -1, NULL},
    {"{\"traceEvents\": {}}", NT, "\"traceEvents\": {", -1,
     "traceEvents is not an array", -1, -1, NULL},
    {"{\"rank\": 3, \"distributedInfo\": 5, \"x", TR, "\"distributedInfo\"", NT,
     "", -1, -1, NULL},
    {"{\"distributedInfo\": {\"rank\": 1.5, \"world_size\": 1e3}, ", TR,
     "\"distributedInfo\"", NT, "", -1, -1, NULL},
    {"{\"a\" 1}", NT, NULL, NT, "not JSON (offset 5)", -1, -1, NULL},
    {"{\"a\": 1 \"b\": 2}", NT, NULL, NT, "not JSON", -1, -1, NULL},
    {"{\"tr\\x\": 1}", NT, NULL, NT, "not JSON", -1, -1, NULL},
    {"# README\n\nNot a trace.\n", NT, "#", NT, "not JSON", -1, -1, NULL},
    {"\"traceEvents\"", NT, "\"", NT, "not JSON", -1, -1, NULL},
    {" \n ", NT, NULL, NT, "only whitespace", -1, -1, NULL},
    {"\x89HDF\r\n\x1a\n\0\0", NT, "\x89HDF", -1, "HDF5 file", -1, -1, NULL},
    {"PK\3\4{\"traceEvents\":[]}", NT, "PK\3\4", -1, "zip file", -1, -1, NULL},
    {"\x7f" "ELF\2\1\1", NT, "\x7f" "ELF", -1, "ELF file", -1, -1, NULL},
    /* a cut Kineto trace is still a trace (the reader names the cut) */
    {"{\"schemaVersion\": 1, \"traceNa", TR, "\"schemaVersion\"", NT, "", -1,
     -1, NULL},
};

/* The end of `after` in text (its length when NULL). */
static size_t decisive(const scase *c, size_t len)
{
    if (!c->after)
        return len;
    const char *a = strstr(c->text, c->after);
    assert_non_null(a);
    return (size_t)(a - c->text) + strlen(c->after);
}

static void sniff_exact(const char *text, size_t n, int complete,
                        tlm_sniff *out)
{
    char *h = malloc(n ? n : 1); /* exactly n bytes: overreads are caught */
    assert_non_null(h);
    memcpy(h, text, n);
    memset(out, 0x5A, sizeof *out);
    tlm_trace_sniff_mem(h, n, complete, out);
    free(h);
}

static size_t case_len(const scase *c)
{
    /* the magic cases hold NUL bytes: their length is up to the last one */
    if (strncmp(c->text, "\x89HDF", 4) == 0)
        return 10;
    return strlen(c->text);
}

static void check_case(const scase *c)
{
    size_t len = case_len(c), d = decisive(c, len);
    size_t rd = c->rank_after ? (size_t)(strstr(c->text, c->rank_after) -
                                         c->text) + strlen(c->rank_after)
                              : len + 1;
    for (size_t n = 1; n <= len; n++) {
        for (int complete = 0; complete <= 1; complete++) {
            if (complete && n < len)
                continue; /* a shorter whole document is another case */
            tlm_sniff s;
            sniff_exact(c->text, n, complete, &s);
            assert_true(s.verdict == NT || s.verdict == TR);
            assert_non_null(memchr(s.reason, 0, sizeof s.reason));
            if (n >= d && (n == len || c->after)) {
                if (s.verdict != c->verdict)
                    fail_msg("%s: n=%zu: verdict %d (%s)", c->text, n,
                             s.verdict, s.reason);
            } else if (c->before >= 0 && s.verdict != c->before) {
                fail_msg("%s: n=%zu (before): verdict %d", c->text, n,
                         s.verdict);
            }
            assert_int_equal(s.format, s.verdict == TR
                                           ? TLM_FORMAT_KINETO_JSON
                                           : TLM_FORMAT_UNKNOWN);
            if (n >= rd) {
                assert_int_equal(s.dist_rank, c->rank);
                assert_int_equal(s.dist_world, c->world);
            } else if (!c->rank_after || n + 1 < rd - 3) {
                assert_true(s.dist_rank == -1 || s.dist_rank == c->rank);
            }
            if (n == len && complete && !strstr(s.reason, c->reason))
                fail_msg("%s: reason '%s', want '%s'", c->text, s.reason,
                         c->reason);
        }
    }
}

static void test_heads_at_every_split(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
}

static void test_empty_and_cap_message(void **state)
{
    (void)state;
    tlm_sniff s;
    tlm_trace_sniff_mem("", 0, 1, &s);
    assert_int_equal(s.verdict, NT);
    assert_string_equal(s.reason, "empty file");
    char big[2048];
    memset(big, ' ', sizeof big);
    memcpy(big, "{\"metadata\": \"", 14);
    tlm_trace_sniff_mem(big, sizeof big, 0, &s);
    assert_string_equal(s.reason, "no traceEvents in the first 2 KiB");
    tlm_trace_sniff_mem(big, 100, 0, &s);
    assert_string_equal(s.reason, "no traceEvents in the first 100 bytes");
}

/* [[[[... 2000 deep in a value before traceEvents. */
static void test_deep_nesting(void **state)
{
    (void)state;
    size_t depth = 2000, n = 0;
    char *t = malloc(2 * depth + 64);
    assert_non_null(t);
    n += (size_t)sprintf(t, "{\"a\": ");
    for (size_t i = 0; i < depth; i++)
        t[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        t[n++] = ']';
    n += (size_t)sprintf(t + n, ", \"traceEvents\": []}");
    tlm_sniff s;
    tlm_trace_sniff_mem(t, n, 1, &s);
    assert_int_equal(s.verdict, NT);
    assert_string_equal(s.reason, "JSON nested too deeply");
    /* 1000 deep is allowed */
    n = (size_t)sprintf(t, "{\"a\": ");
    for (size_t i = 0; i < 1000; i++)
        t[n++] = '{';
    for (size_t i = 0; i < 1000; i++)
        t[n++] = '}';
    n += (size_t)sprintf(t + n, ", \"traceEvents\": []}");
    tlm_trace_sniff_mem(t, n, 1, &s);
    assert_int_equal(s.verdict, TR);
    free(t);
}

/* ------------------------------------------------------------------ MARK:
 * files */

typedef struct fx {
    char dir[256];
    char path[512];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    tt_tmpdir(f->dir, sizeof f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tt_rm_rf(f->dir);
    free(f);
    return 0;
}

static const char *fpath(fx *f, const char *name)
{
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    return f->path;
}

static void put(fx *f, const char *name, const void *data, size_t n)
{
    FILE *fp = fopen(fpath(f, name), "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

static void test_fifo_folder_missing(void **state)
{
    fx *f = *state;
    tlm_sniff s;
    assert_int_equal(mkfifo(fpath(f, "fifo"), 0600), 0);
    alarm(10); /* a read of the FIFO would block: fail, never hang */
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    alarm(0);
    assert_int_equal(s.verdict, NT);
    assert_string_equal(s.reason, "not a regular file");
    assert_int_equal(tlm_trace_sniff(f->dir, 0, &s), TLM_OK);
    assert_int_equal(s.verdict, NT);
    assert_string_equal(s.reason, "a folder");
    assert_int_equal(tlm_trace_sniff(fpath(f, "nope.json"), 0, &s), TLM_OK);
    assert_int_equal(s.verdict, TLM_SNIFF_UNREADABLE);
    assert_non_null(strstr(s.reason, "No such file"));
    assert_int_equal(s.dist_rank, -1);
}

static const char trace_text[] =
    "{\"distributedInfo\": {\"rank\": 5, \"world_size\": 6}, "
    "\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1}]}";

static void test_plain_files(void **state)
{
    fx *f = *state;
    tlm_sniff s;
    put(f, "t", trace_text, sizeof trace_text - 1);
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    assert_int_equal(s.verdict, TR);
    assert_int_equal(s.gzip, 0);
    assert_int_equal(s.size, (int64_t)sizeof trace_text - 1);
    assert_int_equal(s.dist_rank, 5);
    assert_int_equal(s.dist_world, 6);
    struct stat sb;
    assert_int_equal(stat(f->path, &sb), 0);
    assert_true(s.ino == (uint64_t)sb.st_ino && s.dev == (uint64_t)sb.st_dev);
    /* a head of 20 bytes: the distributedInfo key is in, the rank not */
    assert_int_equal(tlm_trace_sniff(f->path, 20, &s), TLM_OK);
    assert_int_equal(s.verdict, TR);
    assert_int_equal(s.dist_rank, -1);
    /* a file exactly head_cap long is complete */
    put(f, "j", "{\"a\": 1}", 8);
    assert_int_equal(tlm_trace_sniff(f->path, 8, &s), TLM_OK);
    assert_string_equal(s.reason, "JSON without traceEvents");
    assert_int_equal(tlm_trace_sniff(f->path, 7, &s), TLM_OK);
    assert_string_equal(s.reason, "no traceEvents in the first 7 bytes");
    put(f, "e", "", 0);
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    assert_string_equal(s.reason, "empty file");
}

static void test_gzip_files(void **state)
{
    fx *f = *state;
    tlm_sniff s;
    size_t gl = 0;
    unsigned char *gz = tt_gzip(trace_text, sizeof trace_text - 1, &gl);
    put(f, "t.gz", gz, gl);
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    assert_int_equal(s.verdict, TR);
    assert_int_equal(s.gzip, 1);
    assert_int_equal(s.dist_rank, 5);
    assert_int_equal(s.size, (int64_t)gl);
    /* cut: a head, not an error */
    put(f, "cut.gz", gz, gl / 2 + 5);
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    assert_int_equal(s.verdict, TR);
    /* corrupt: reserved header flag bits */
    gz[3] = 0xE0;
    put(f, "bad.gz", gz, gl);
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    assert_int_equal(s.verdict, NT);
    assert_non_null(strstr(s.reason, "corrupt gzip data"));
    free(gz);
    gz = tt_gzip("", 0, &gl);
    put(f, "empty.gz", gz, gl);
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    assert_string_equal(s.reason, "empty gzip file");
    free(gz);
    /* HDF5 inside gzip is told by its magic */
    gz = tt_gzip("\x89HDF\r\n\x1a\n", 8, &gl);
    put(f, "h.gz", gz, gl);
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    assert_string_equal(s.reason, "HDF5 file");
    free(gz);
}

/* 100 MB of spaces inside a string, gzip'd to ~100 KB: the sniff inflates
 * one head and stops. */
static void test_gzip_bomb(void **state)
{
    fx *f = *state;
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY),
                     Z_OK);
    size_t chunk = 1 << 20, cap = 1 << 20, len = 0;
    unsigned char *in = malloc(chunk), *out = malloc(cap);
    assert_true(in && out);
    memset(in, ' ', chunk);
    memcpy(in, "{\"metadata\": \"", 14);
    for (int i = 0; i <= 100; i++) {
        z.next_in = in;
        z.avail_in = (uInt)chunk;
        int flush = i == 100 ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = out + len;
            z.avail_out = (uInt)(cap - len);
            deflate(&z, flush);
            len = cap - z.avail_out;
            assert_true(len < cap);
        } while (z.avail_out == 0 || (flush == Z_FINISH && z.avail_in));
        memset(in, ' ', 14);
    }
    deflateEnd(&z);
    put(f, "bomb.gz", out, len);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tlm_sniff s;
    assert_int_equal(tlm_trace_sniff(f->path, 0, &s), TLM_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) +
                1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    assert_true(dt < 1.0);
    assert_int_equal(s.verdict, NT);
    assert_string_equal(s.reason, "no traceEvents in the first 64 KiB");
    free(in);
    free(out);
}

/* The real traces (TLM_SHARED_DIR/traces) are traces; their CSVs are not
 * (nor the ground truth a synthetic job carries). */
static void test_real_traces(void **state)
{
    (void)state;
    const char *sh = getenv("TLM_SHARED_DIR");
    char cmd[1200], line[1024];
    if (!sh || !*sh)
        skip();
    snprintf(cmd, sizeof cmd,
             "find '%s/traces' -maxdepth 3 -type f \\( -name '*.json*' -o "
             "-name '*.csv' \\) 2>/dev/null | sort", sh);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n_traces = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        const char *base = strrchr(line, '/');
        if (base && !strcmp(base + 1, "ground_truth.json"))
            continue; /* what tlmpi-synth injected (MANIFEST.md), no trace */
        tlm_sniff s;
        assert_int_equal(tlm_trace_sniff(line, 0, &s), TLM_OK);
        int is_csv = strstr(line, ".csv") != NULL;
        if (s.verdict != (is_csv ? NT : TR))
            fail_msg("%s: verdict %d (%s)", line, s.verdict, s.reason);
        n_traces += !is_csv;
        if (strstr(line, "dlrm_v100_8rank/worker3_"))
            assert_int_equal(s.dist_rank, 3);
    }
    pclose(p);
    if (n_traces == 0)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads_at_every_split),
        cmocka_unit_test(test_empty_and_cap_message),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test_setup_teardown(test_fifo_folder_missing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plain_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gzip_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gzip_bomb, setup, teardown),
        cmocka_unit_test(test_real_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
