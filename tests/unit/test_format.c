/*
 * test_format.c - the table of trace formats (src/trace/format.c): every
 * row named as the sniff names it, what each format holds, detection of
 * files and folders (a JAX profile folder stands for its XPlane; each file
 * sniffed once), and each row's read, summary and free on a small file.
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

#include "tlm_test_util.h"
#include "tlmpi/tlm_format.h"

static const char kineto[] =
    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
    "\"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}";
/* XSpace { planes { id: 1 } } */
static const unsigned char xspace[] = {0x0a, 0x02, 0x08, 0x01};

/* Every row: its id at its index, the sniff's name, what it holds. */
static void test_rows(void **state)
{
    (void)state;
    assert_null(tlm_format_get(TLM_FORMAT_UNKNOWN));
    assert_null(tlm_format_get(-1));
    assert_null(tlm_format_get(TLM_FORMAT_COUNT));
    static const char *const names[] = {"unknown", "kineto-json",
                                        "rocprof-json", "xplane"};
    for (int f = 1; f < TLM_FORMAT_COUNT; f++) {
        const tlm_format *r = tlm_format_get(f);
        assert_non_null(r);
        assert_int_equal(r->id, f);
        assert_string_equal(r->name, names[f]);
        assert_string_equal(tlm_sniff_format_name(f), names[f]);
        assert_non_null(r->title);
        assert_non_null(r->read);
        assert_non_null(r->summary);
        assert_non_null(r->free);
    }
    assert_string_equal(tlm_sniff_format_name(0), "unknown");
    assert_int_equal(tlm_format_get(TLM_FORMAT_KINETO_JSON)->host_stacks, 1);
    assert_int_equal(tlm_format_get(TLM_FORMAT_ROCPROF_JSON)->host_stacks, 0);
    assert_int_equal(tlm_format_get(TLM_FORMAT_XPLANE)->host_stacks, 0);
    assert_int_equal(tlm_format_get(TLM_FORMAT_ROCPROF_JSON)->analysis, 1);
    assert_int_equal(tlm_format_get(TLM_FORMAT_XPLANE)->analysis, 0);
    assert_non_null(tlm_format_get(TLM_FORMAT_XPLANE)->locate);
    assert_null(tlm_format_get(TLM_FORMAT_KINETO_JSON)->locate);
}

/* Reads path through its row and checks the summary. */
static void read_through(const char *path, int id, int gzip,
                         uint64_t min_records)
{
    const tlm_format *r = tlm_format_get(id);
    void *m = NULL;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = r->read(path, &m, &err);
    if (st != TLM_OK)
        fail_msg("%s: %s", path, err.msg);
    assert_non_null(m);
    tlm_format_summary s;
    memset(&s, 0xff, sizeof s);
    r->summary(m, &s);
    assert_int_equal(s.gzip, gzip);
    assert_true(s.bytes_in > 0);
    assert_true(s.bytes_content > 0);
    assert_true(s.n_records >= min_records);
    r->free(m);
    r->free(NULL);
}

/* Files and folders of each format, and what no format claims. */
static void test_detect(void **state)
{
    (void)state;
    char dir[256], p[512], q[600];
    tt_tmpdir(dir, sizeof dir);
    int id = -1;

    snprintf(p, sizeof p, "%s/k.json", dir);
    tt_write_file(p, kineto, sizeof kineto - 1);
    assert_int_equal(tlm_format_detect(p, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_KINETO_JSON);
    assert_int_equal(tlm_format_of_file(p, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_KINETO_JSON);
    read_through(p, id, 0, 1);

    size_t gz_n = 0;
    unsigned char *gz = tt_gzip(kineto, sizeof kineto - 1, &gz_n);
    snprintf(p, sizeof p, "%s/k.bin", dir); /* the name never matters */
    tt_write_file(p, gz, gz_n);
    free(gz);
    assert_int_equal(tlm_format_detect(p, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_KINETO_JSON);
    read_through(p, id, 1, 1);

    const char *src = getenv("TLM_SOURCE_DIR");
    if (src) {
        snprintf(q, sizeof q, "%s/tests/data/rocprof/run1.dat", src);
        assert_int_equal(tlm_format_detect(q, &id), TLM_OK);
        assert_int_equal(id, TLM_FORMAT_ROCPROF_JSON);
        read_through(q, id, 0, 1);
    }

    /* an XPlane, then a JAX profile folder holding it */
    snprintf(p, sizeof p, "%s/plugins", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/plugins/profile", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/plugins/profile/run1", dir);
    mkdir(p, 0700);
    snprintf(q, sizeof q, "%s/host.xplane.pb", p);
    tt_write_file(q, xspace, sizeof xspace);
    assert_int_equal(tlm_format_detect(q, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_XPLANE);
    read_through(q, id, 0, 0);
    assert_int_equal(tlm_format_detect(dir, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_XPLANE);
    /* the folder is not a file: of_file does not look into it */
    assert_int_equal(tlm_format_of_file(dir, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_UNKNOWN);

    /* what no format claims */
    snprintf(p, sizeof p, "%s/plain.txt", dir);
    tt_write_file(p, "hello\n", 6);
    assert_int_equal(tlm_format_detect(p, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_UNKNOWN);
    snprintf(p, sizeof p, "%s/missing.json", dir);
    assert_int_equal(tlm_format_detect(p, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_UNKNOWN);
    snprintf(p, sizeof p, "%s/empty", dir);
    mkdir(p, 0700);
    assert_int_equal(tlm_format_detect(p, &id), TLM_OK);
    assert_int_equal(id, TLM_FORMAT_UNKNOWN);
    tt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_detect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
