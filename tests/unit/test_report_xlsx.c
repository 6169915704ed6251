/*
 * test_report_xlsx.c - the report as a workbook (src/report/
 * report_xlsx.c), read back with the workbook reader (src/cmp):
 * - one worksheet per report table in the report's order, each with its
 *   table's header and row count;
 * - staged in an output set: nothing at the final name before the
 *   commit, the workbook after it; the same written in a thread
 *   (tlm_report_xlsx_start / _finish); a job finished with ok = 0 leaves
 *   no temporary;
 * - a path in a folder that is a file: an error naming the path, nothing
 *   written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlm_test_report.h"

#include "xlsx_read.h"
#include "xlsx_write.h"

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    tt_tmpdir(g_dir, sizeof g_dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tt_rm_rf(g_dir);
    return 0;
}

/* The workbook at path holds r's tables. */
static void check_book(const tlm_report *r, const char *path)
{
    tlm_error err;
    tlm_xlsx *x = NULL;
    assert_int_equal(tlm_xlsx_open(path, &x, &err), TLM_OK);
    size_t n = tlm_report_table_count(r);
    assert_true(n >= 5);
    assert_int_equal(tlm_xlsx_nsheets(x), n);
    for (size_t i = 0; i < n; i++) {
        const char *name = tlm_report_table_name(r, i);
        assert_string_equal(tlm_xlsx_sheet_name(x, i), name);
        tlm_rawtab *rt = NULL;
        assert_int_equal(tlm_xlsx_read_sheet(x, name, &rt, &err), TLM_OK);
        const tlm_tab *t = tlm_report_tab(r, i);
        assert_int_equal(rt->ncols, t->ncols);
        assert_int_equal(rt->nrows, t->nrows);
        for (size_t c = 0; c < t->ncols; c++)
            assert_string_equal(rt->colnames[c], t->colnames[c]);
        tlm_rawtab_free(rt);
    }
    tlm_xlsx_close(x);
}

static void test_sheets(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), "H100");
    char path[512];
    snprintf(path, sizeof path, "%s/r.xlsx", g_dir);
    tlm_outset set;
    tlm_error err;
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    assert_int_equal(tlm_report_stage_xlsx(f.r, &set, path, &err), TLM_OK);
    assert_int_not_equal(access(path, F_OK), 0); /* staged, not published */
    assert_int_equal(tlm_outset_commit(&set, &err), TLM_OK);
    tlm_outset_free(&set);
    check_book(f.r, path);
    tr_close(&f);
}

static void test_thread(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/t.xlsx", g_dir);
    tlm_outset set;
    tlm_error err;
    tlm_xlsx_job *j = NULL;
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    assert_int_equal(tlm_report_xlsx_start(f.r, &set, path, 1, &j, &err),
                     TLM_OK);
    assert_int_equal(tlm_report_xlsx_finish(j, 1, &err), TLM_OK);
    assert_int_equal(tlm_outset_commit(&set, &err), TLM_OK);
    tlm_outset_free(&set);
    check_book(f.r, path);
    /* the caller's other outputs failed: no temporary left behind */
    snprintf(path, sizeof path, "%s/u.xlsx", g_dir);
    for (int threaded = 0; threaded < 2; threaded++) {
        assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
        assert_int_equal(tlm_report_xlsx_start(f.r, &set, path, threaded, &j,
                                               &err),
                         TLM_OK);
        const char *tmp = set.f[set.n - 1].tmp;
        assert_int_equal(tlm_report_xlsx_finish(j, 0, &err), TLM_OK);
        assert_int_not_equal(access(tmp, F_OK), 0);
        tlm_outset_free(&set);
        assert_int_not_equal(access(path, F_OK), 0);
    }
    tr_close(&f);
}

static void test_unwritable(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    char file[512], path[600];
    snprintf(file, sizeof file, "%s/file", g_dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/r.xlsx", file);
    tlm_outset set;
    tlm_error err;
    tlm_error_clear(&err);
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    tlm_status st = tlm_report_stage_xlsx(f.r, &set, path, &err);
    assert_int_not_equal(st, TLM_OK);
    char m[1200];
    assert_non_null(strstr(tlm_error_format(&err, m, sizeof m), "file"));
    tlm_outset_free(&set);
    assert_int_not_equal(access(path, F_OK), 0);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sheets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
