/*
 * test_rdiff.c - the TraceDiff enrichment of a report (src/rdiff,
 * --comparison_json_path; tracediff.md §10.2): the GPU op -> summary row
 * map kept by unified_perf_summary, the diff_stats sheet after it, the
 * columns inserted after Kernel Time (µs)_sum, a row with two LCAs (ids
 * and names joined, totals summed, one without trace-2 rows), rows
 * without an LCA, and tlm_tab_insert_cols.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"

#include "rdiff.h"

typedef struct tb {
    char buf[8192];
    size_t n;
    int corr;
} tb;

static void tb_add(tb *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t->n += (size_t)vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
    va_end(ap);
    assert_true(t->n < sizeof t->buf);
}

static void op(tb *t, const char *name, int ts, int dur)
{
    tb_add(t, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,"
              "\"tid\":1,\"ts\":%d,\"dur\":%d,\"args\":{\"Input Dims\":[[4]]}},",
           name, ts, dur);
}

static void launch(tb *t, int ts, const char *kname, int kts, int kdur)
{
    int c = ++t->corr;
    tb_add(t, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
              "\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,"
              "\"args\":{\"correlation\":%d}},", ts, c);
    tb_add(t, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,"
              "\"tid\":7,\"ts\":%d,\"dur\":%d,\"args\":{\"correlation\":%d}},",
           kname, kts, kdur, c);
}

typedef struct side {
    tlm_trace *tr;
    tlm_tree *tree;
} side;

static void build(tb *t, side *s)
{
    tb_add(t, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0}]}");
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(t->buf, t->n, "mem", NULL, &s->tr,
                                        &err), TLM_OK);
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    assert_int_equal(tlm_tree_build(s->tr, &o, &s->tree, &err), TLM_OK);
}

static void side_free(side *s)
{
    tlm_tree_free(s->tree);
    tlm_trace_free(s->tr);
}

/* The cell of table `tab`, column `col`, row r as CSV text. */
static const char *cell(const tlm_report *r, const char *tab, size_t row,
                        const char *col)
{
    static char buf[512];
    long i = tlm_report_table_find(r, tab);
    assert_true(i >= 0);
    const tlm_tab *t = tlm_report_tab(r, (size_t)i);
    long c = tlm_tab_col(t, col);
    assert_true(c >= 0);
    tlm_report_cell_text(r, (size_t)i, row, (size_t)c, buf, sizeof buf);
    return buf;
}

/* trace 1: aten::foo launches kA1 (3 us) and kA2 (4 us), aten::bar kX;
 * trace 2: aten::foo launches kB1 (6 us).  The first launch is trace 1's
 * only (LCA aten::foo, no trace-2 rows), the second pairs kA2 with kB1
 * (their own LCA); aten::bar is a trace-1 root (no LCA). */
static void run(int keep, tlm_report **out, tlm_diff **dout, side s[2])
{
    tb a = {.n = 0}, b = {.n = 0};
    tb_add(&a, "{\"traceEvents\":[");
    op(&a, "aten::foo", 0, 50);
    launch(&a, 1, "kA1", 10, 3);
    launch(&a, 5, "kA2", 20, 4);
    op(&a, "aten::bar", 60, 10);
    launch(&a, 61, "kX", 70, 2);
    build(&a, &s[0]);
    tb_add(&b, "{\"traceEvents\":[");
    op(&b, "aten::foo", 0, 50);
    launch(&b, 5, "kB1", 20, 6);
    build(&b, &s[1]);
    tlm_report_opts ro;
    tlm_report_opts_init(&ro);
    ro.keep_gpu_rows = keep;
    tlm_error err;
    assert_int_equal(tlm_report_build(s[0].tree, &ro, out, &err), TLM_OK);
    assert_int_equal(tlm_diff_build(s[0].tree, s[1].tree, NULL, dout, &err),
                     TLM_OK);
    assert_int_equal(tlm_rdiff_enrich(*out, *dout, &err), TLM_OK);
}

static void test_enrich(void **state)
{
    (void)state;
    side s[2];
    tlm_report *r;
    tlm_diff *d;
    run(1, &r, &d, s);
    long u = tlm_report_table_find(r, "unified_perf_summary");
    assert_true(u >= 0);
    assert_string_equal(tlm_report_table_name(r, (size_t)u + 1),
                        "diff_stats");
    const tlm_tab *t = tlm_report_tab(r, (size_t)u);
    long kc = tlm_tab_col(t, "Kernel Time (\xc2\xb5s)_sum");
    for (int k = 0; k < TLM_RDIFF_NCOLS; k++)
        assert_string_equal(t->colnames[kc + 1 + k], tlm_rdiff_cols[k]);
    /* row 0: aten::foo (7 us), two LCAs */
    assert_string_equal(cell(r, "unified_perf_summary", 0, "name"),
                        "aten::foo");
    assert_string_equal(cell(r, "unified_perf_summary", 0, "lca_id"),
                        "0.0; 4.0");
    assert_string_equal(cell(r, "unified_perf_summary", 0, "lca_name"),
                        "aten::foo; kA2 | kB1");
    assert_string_equal(cell(r, "unified_perf_summary", 0,
                             "lca_total_kernel_time_trace1_us"), "7.0");
    assert_string_equal(cell(r, "unified_perf_summary", 0,
                             "lca_total_kernel_time_trace2_us"), "6.0");
    assert_string_equal(cell(r, "unified_perf_summary", 0,
                             "lca_count_trace2"), "1.0");
    assert_string_equal(cell(r, "unified_perf_summary", 0,
                             "speedup (trace2/trace1)"),
                        "0.8571428571428571");
    assert_string_equal(cell(r, "unified_perf_summary", 0,
                             "delta_us (trace2 - trace1)"), "-1.0");
    /* row 1: aten::bar, whose kernel has no LCA: empty */
    assert_string_equal(cell(r, "unified_perf_summary", 1, "name"),
                        "aten::bar");
    assert_string_equal(cell(r, "unified_perf_summary", 1, "lca_id"), "");
    assert_string_equal(cell(r, "unified_perf_summary", 1,
                             "speedup (trace2/trace1)"), "");
    /* diff_stats: the file's rows, typed (float LCA ids: a row has none) */
    assert_int_equal(tlm_report_table_rows(r, (size_t)u + 1),
                     tlm_diff_row_count(d));
    assert_string_equal(cell(r, "diff_stats", 0, "name"), "kA1");
    assert_string_equal(cell(r, "diff_stats", 0, "lowest_common_ancestor_id"),
                        "0.0");
    assert_string_equal(cell(r, "diff_stats", 0, "kernel_time"), "3");
    tlm_diff_free(d);
    tlm_report_free(r);
    side_free(&s[0]);
    side_free(&s[1]);
}

/* Without the map (the option off) no column is added; diff_stats is. */
static void test_no_map(void **state)
{
    (void)state;
    side s[2];
    tlm_report *r;
    tlm_diff *d;
    run(0, &r, &d, s);
    long u = tlm_report_table_find(r, "unified_perf_summary");
    assert_true(tlm_tab_col(tlm_report_tab(r, (size_t)u), "lca_id") < 0);
    assert_true(tlm_report_table_find(r, "diff_stats") == u + 1);
    tlm_diff_free(d);
    tlm_report_free(r);
    side_free(&s[0]);
    side_free(&s[1]);
}

static void test_insert_cols(void **state)
{
    (void)state;
    const char *names[] = {"a", "b"};
    tlm_coltype ty[] = {TLM_COL_I64, TLM_COL_STR};
    tlm_tab *t = tlm_tab_new("t", 2, names, ty);
    assert_non_null(t);
    for (int i = 0; i < 20; i++) {
        long r = tlm_tab_add_row(t);
        tlm_tab_set_i(t, (size_t)r, 0, i);
        tlm_tab_set_s(t, (size_t)r, 1, "x", 1);
    }
    const char *nn[] = {"m1", "m2"};
    tlm_coltype nt[] = {TLM_COL_F64, TLM_COL_STR};
    assert_int_equal(tlm_tab_insert_cols(t, 1, 2, nn, nt), TLM_OK);
    assert_int_equal(t->ncols, 4);
    assert_string_equal(t->colnames[1], "m1");
    assert_string_equal(t->colnames[3], "b");
    assert_int_equal(tlm_tab_cell(t, 19, 0)->v.i, 19);
    assert_true(tlm_tab_cell(t, 19, 1)->null);
    assert_string_equal(tlm_tab_cell(t, 19, 3)->v.s, "x");
    long r = tlm_tab_add_row(t); /* rows still grow */
    tlm_tab_set_f(t, (size_t)r, 1, 1.5);
    assert_true(tlm_tab_cell(t, 20, 1)->v.f == 1.5);
    tlm_tab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enrich),
        cmocka_unit_test(test_no_map),
        cmocka_unit_test(test_insert_cols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
