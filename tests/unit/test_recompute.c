/*
 * test_recompute.c - --detect_recompute (src/report/recompute.c and the
 * splits of timeline.c, ops.c, unified.c) on tests/data/recompute_small.json:
 * three aten::mm with one kernel each, the second under a python_function
 * of torch/utils/checkpoint.py's recompute_fn on the backward thread:
 * - the marks: that op, its launch and its kernel, nothing else;
 * - gpu_timeline: each subset on its own (total_time 330 us and 10 us),
 *   is_recompute last; the report's own timeline stays the whole trace;
 * - ops_summary_by_category, ops_summary: one row per (key, is_recompute),
 *   the column second, percentages over both;
 * - ops_unique_args, unified_perf_summary: is_recompute after Concrete
 *   Inputs; perf-model sheets (GEMM): after the param columns;
 * - python functions left out of the tree: nothing is marked, every row
 *   False; the option off: no such column anywhere.
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

static tlm_trace *read_data(char **js)
{
    const char *src = getenv("TLM_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/recompute_small.json",
             src ? src : ".");
    *js = tr_text(path);
    tlm_trace *tr = NULL;
    assert_int_equal(
        tlm_trace_read_mem(*js, strlen(*js), "rc.json", NULL, &tr, NULL),
        TLM_OK);
    return tr;
}

static tlm_report *build(tlm_trace *tr, int python, int rc, tlm_tree **tree)
{
    tlm_tree_opts to;
    tlm_tree_opts_init(&to);
    to.python_functions = python;
    assert_int_equal(tlm_tree_build(tr, &to, tree, NULL), TLM_OK);
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.detect_recompute = rc;
    tlm_report *r = NULL;
    assert_int_equal(tlm_report_build(*tree, &o, &r, NULL), TLM_OK);
    return r;
}

static const char *colname(const tlm_report *r, const char *tab, size_t c)
{
    long t = tlm_report_table_find(r, tab);
    assert_true(t >= 0);
    return tlm_report_table_colname(r, (size_t)t, c);
}

static int has_col(const tlm_report *r, const char *tab, const char *col)
{
    long t = tlm_report_table_find(r, tab);
    if (t < 0)
        return 0;
    for (size_t c = 0; c < tlm_report_table_cols(r, (size_t)t); c++)
        if (!strcmp(tlm_report_table_colname(r, (size_t)t, c), col))
            return 1;
    return 0;
}

static void test_split(void **state)
{
    (void)state;
    char *js;
    tlm_trace *tr = read_data(&js);
    tlm_tree *tree;
    tlm_report *r = build(tr, 1, 1, &tree);
    /* timeline: 8 rows per subset */
    assert_int_equal(tr_rows(r, "gpu_timeline"), 16);
    assert_string_equal(colname(r, "gpu_timeline", 3), "is_recompute");
    assert_string_equal(tr_cell(r, "gpu_timeline", 5, "type"), "total_time");
    assert_string_equal(tr_cell(r, "gpu_timeline", 5, "time ms"), "0.33");
    assert_string_equal(tr_cell(r, "gpu_timeline", 5, "is_recompute"),
                        "False");
    assert_string_equal(tr_cell(r, "gpu_timeline", 13, "time ms"), "0.01");
    assert_string_equal(tr_cell(r, "gpu_timeline", 13, "is_recompute"),
                        "True");
    assert_true(tlm_report_timeline(r)->busy_us == 40.0); /* whole trace */
    /* ops tables */
    assert_string_equal(colname(r, "ops_summary_by_category", 1),
                        "is_recompute");
    assert_string_equal(colname(r, "ops_summary", 1), "is_recompute");
    assert_int_equal(tr_rows(r, "ops_summary"), 2);
    assert_string_equal(tr_cell(r, "ops_summary", 0, "Count"), "2");
    assert_string_equal(tr_cell(r, "ops_summary", 0, "is_recompute"),
                        "False");
    assert_string_equal(tr_cell(r, "ops_summary", 1, "Count"), "1");
    assert_string_equal(tr_cell(r, "ops_summary", 1, "is_recompute"),
                        "True");
    assert_string_equal(tr_cell(r, "ops_summary", 1, "Percentage (%)"),
                        "25.0");
    assert_string_equal(tr_cell(r, "ops_summary_by_category", 1, "Count"),
                        "1");
    assert_string_equal(colname(r, "ops_unique_args", 9), "is_recompute");
    assert_string_equal(colname(r, "unified_perf_summary", 9),
                        "is_recompute");
    /* perf-model sheets: after the param columns */
    assert_int_equal(tr_rows(r, "GEMM"), 2);
    assert_string_equal(colname(r, "GEMM", 9), "is_recompute");
    assert_string_equal(tr_cell(r, "GEMM", 1, "is_recompute"), "True");
    assert_string_equal(tr_cell(r, "GEMM", 1, "name_count"), "1");
    size_t i = tr_find_row(r, "unified_perf_summary", "is_recompute", "True");
    assert_string_equal(tr_cell(r, "unified_perf_summary", i, "ex_UID"), "9");
    tlm_report_free(r);
    tlm_tree_free(tree);
    /* no python functions: nothing marked */
    r = build(tr, 0, 1, &tree);
    assert_int_equal(tr_rows(r, "ops_summary"), 1);
    assert_string_equal(tr_cell(r, "ops_summary", 0, "is_recompute"),
                        "False");
    assert_int_equal(tr_rows(r, "gpu_timeline"), 8);
    tlm_report_free(r);
    tlm_tree_free(tree);
    /* off */
    r = build(tr, 1, 0, &tree);
    static const char *const tabs[] = {"gpu_timeline",
                                       "ops_summary_by_category",
                                       "ops_summary", "ops_unique_args",
                                       "unified_perf_summary", "GEMM"};
    for (size_t k = 0; k < 6; k++)
        assert_false(has_col(r, tabs[k], "is_recompute"));
    assert_int_equal(tr_rows(r, "ops_summary"), 1);
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
    free(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
