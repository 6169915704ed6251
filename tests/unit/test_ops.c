/*
 * test_ops.c - kernel launchers and the op tables (src/report/ops.c):
 * launcher attribution (python functions and "execute" skipped, graph
 * launches outside ops), ops_summary, ops_summary_by_category and
 * ops_unique_args.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_report.h"

static void test_tables(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    const tlm_report *r = f.r;

    /* launchers: addmm (GEMM), aten::custom through "execute" (reduce by
     * kernel name), the graph launch itself (other) */
    assert_int_equal(tr_rows(r, "ops_summary"), 3);
    assert_string_equal(tr_cell(r, "ops_summary", 0, "name"), "aten::addmm");
    assert_string_equal(tr_cell(r, "ops_summary", 0, "Categories"),
                        "['GEMM']");
    assert_string_equal(
        tr_cell(r, "ops_summary", 0, "total_direct_kernel_time_sum"),
        "20.0");
    size_t c = tr_find_row(r, "ops_summary", "name", "aten::custom");
    assert_string_equal(tr_cell(r, "ops_summary", c, "Categories"),
                        "['reduce']");
    c = tr_find_row(r, "ops_summary", "name", "cudaGraphLaunch");
    assert_string_equal(
        tr_cell(r, "ops_summary", c, "total_direct_kernel_time_sum"), "4.0");
    double cum = strtod(tr_cell(r, "ops_summary", 2,
                                "Cumulative Percentage (%)"), NULL);
    assert_true(cum > 100.0 - 1e-9 && cum < 100.0 + 1e-9);

    assert_int_equal(tr_rows(r, "ops_summary_by_category"), 3);
    assert_string_equal(
        tr_cell(r, "ops_summary_by_category", 0, "op category"), "GEMM");
    assert_string_equal(tr_cell(r, "ops_summary_by_category", 0,
                                "total_direct_kernel_time_ms"),
                        "0.02");
    assert_string_equal(tr_cell(r, "ops_summary_by_category", 0,
                                "Percentage (%)"),
                        "66.66666666666666");

    c = tr_find_row(r, "ops_unique_args", "name", "aten::addmm");
    assert_string_equal(tr_cell(r, "ops_unique_args", c, "Input Dims"),
                        "((16,), (8, 32), (32, 16))");
    assert_string_equal(tr_cell(r, "ops_unique_args", c, "ex_UID"), "1");
    assert_string_equal(tr_cell(r, "ops_unique_args", c, "thread_name"),
                        "Unknown");
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
