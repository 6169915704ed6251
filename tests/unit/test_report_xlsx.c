/*
 * test_report_xlsx.c - the report as a workbook (src/report/
 * report_xlsx.c), read back with the workbook reader (src/cmp):
 * - one worksheet per report table in the report's order, then the extra
 *   tables; each with its table's header and row count; a text cell and
 *   an integer cell as the table holds them;
 * - staged in an output set: nothing at the final name before the
 *   commit, the workbook after it;
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

static void test_sheets(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), "H100");
    const char *cols[] = {"rule", "n"};
    tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_I64};
    tlm_tab *extra = tlm_tab_new("findings", 2, cols, ty);
    assert_non_null(extra);
    long row = tlm_tab_add_row(extra);
    tlm_tab_set_s(extra, (size_t)row, 0, "=S1", 3);
    tlm_tab_set_i(extra, (size_t)row, 1, 42);
    char path[512];
    snprintf(path, sizeof path, "%s/r.xlsx", g_dir);
    tlm_outset set;
    tlm_error err;
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    const tlm_tab *ex[1] = {extra};
    assert_int_equal(tlm_report_stage_xlsx(f.r, ex, 1, &set, path, &err),
                     TLM_OK);
    assert_int_not_equal(access(path, F_OK), 0); /* staged, not published */
    assert_int_equal(tlm_outset_commit(&set, &err), TLM_OK);
    tlm_outset_free(&set);

    tlm_xlsx *x = NULL;
    assert_int_equal(tlm_xlsx_open(path, &x, &err), TLM_OK);
    size_t n = tlm_report_table_count(f.r);
    assert_true(n >= 5);
    assert_int_equal(tlm_xlsx_nsheets(x), n + 1);
    for (size_t i = 0; i <= n; i++) {
        const char *name = i < n ? tlm_report_table_name(f.r, i) : "findings";
        assert_string_equal(tlm_xlsx_sheet_name(x, i), name);
        tlm_rawtab *rt = NULL;
        assert_int_equal(tlm_xlsx_read_sheet(x, name, &rt, &err), TLM_OK);
        const tlm_tab *t = i < n ? tlm_report_tab(f.r, i) : extra;
        assert_int_equal(rt->ncols, t->ncols);
        assert_int_equal(rt->nrows, t->nrows);
        for (size_t c = 0; c < t->ncols; c++)
            assert_string_equal(rt->colnames[c], t->colnames[c]);
        if (i == n) { /* a formula-like text stays a string */
            assert_int_equal(rt->cells[0].kind, TLM_RAW_STR);
            assert_string_equal(rt->cells[0].s, "=S1");
            assert_int_equal(rt->cells[1].kind, TLM_RAW_INT);
            assert_int_equal(rt->cells[1].v.i, 42);
        }
        tlm_rawtab_free(rt);
    }
    tlm_xlsx_close(x);
    tlm_tab_free(extra);
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
    tlm_status st = tlm_report_stage_xlsx(f.r, NULL, 0, &set, path, &err);
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
        cmocka_unit_test_setup_teardown(test_unwritable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
