/*
 * test_builders.c - what the report's table builders share
 * (src/report/builders.c): grouping rows by a binary key, the per-group
 * perf metrics ("_first" values, statistics of the per-row rates), the
 * order by kernel-time sum then UID, and the end of a builder that keeps
 * or drops its table.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_internal.h"

/* The group of the key (a, b). */
static int32_t group(tlm_i3map *m, size_t *ng, int64_t a, int64_t b,
                     int *is_new)
{
    tlm_sbuf k;
    tlm_sbuf_init(&k);
    tlm_key_id(&k, a);
    tlm_key_id(&k, b);
    assert_false(k.oom);
    int32_t g = tlm_group_of(m, &k, ng, is_new);
    tlm_sbuf_free(&k);
    return g;
}

static void test_group_of(void **state)
{
    (void)state;
    tlm_i3map m;
    assert_int_equal(tlm_i3map_init(&m, 4), TLM_OK);
    size_t ng = 0;
    int is_new = -1;
    /* new keys get 0, 1, 2 in order of first sight; old keys their group */
    assert_int_equal(group(&m, &ng, 7, 1, &is_new), 0);
    assert_int_equal(is_new, 1);
    assert_int_equal(group(&m, &ng, 7, 2, &is_new), 1);
    assert_int_equal(is_new, 1);
    assert_int_equal(group(&m, &ng, 7, 1, &is_new), 0);
    assert_int_equal(is_new, 0);
    assert_int_equal(group(&m, &ng, 1, 7, &is_new), 2); /* order counts */
    assert_int_equal(is_new, 1);
    assert_int_equal(ng, 3);
    /* many keys: every one keeps its group through the map's growth */
    for (int64_t i = 0; i < 1000; i++)
        assert_int_equal(group(&m, &ng, 100 + i, -i, &is_new), 3 + i);
    for (int64_t i = 0; i < 1000; i++) {
        assert_int_equal(group(&m, &ng, 100 + i, -i, &is_new), 3 + i);
        assert_int_equal(is_new, 0);
    }
    assert_int_equal(ng, 1003);
    tlm_i3map_free(&m);
}

static tlm_perf_metrics metrics(double gflops, double tb_s, double tflops_s,
                                double pct, tlm_roofline_bound bound)
{
    tlm_perf_metrics m;
    memset(&m, 0, sizeof m);
    m.gflops = gflops;
    m.data_moved_mb = gflops * 2;
    m.flops_per_byte = NAN;
    m.roofline_time_us = NAN;
    m.tb_s = tb_s;
    m.tflops_s = tflops_s;
    m.pct_roofline = pct;
    m.bound = bound;
    return m;
}

static void test_grp_metrics(void **state)
{
    (void)state;
    double mv[4 * 3], v[3];
    tlm_grp_metrics g;
    tlm_grp_metrics_init(&g, mv);
    assert_true(isnan(g.gflops));
    assert_null(g.bound);
    /* "_first": the first value that is not NaN, field by field */
    tlm_perf_metrics a = metrics(NAN, 1.0, 10.0, 50.0, TLM_ROOFLINE_NONE);
    tlm_perf_metrics b = metrics(3.0, 2.0, 20.0, 70.0,
                                 TLM_ROOFLINE_MEMORY_BOUND);
    tlm_perf_metrics c = metrics(5.0, 4.0, 30.0, 90.0,
                                 TLM_ROOFLINE_COMPUTE_BOUND);
    tlm_grp_metrics_add(&g, &a, 100.0);
    tlm_grp_metrics_add(&g, &b, 200.0);
    tlm_grp_metrics_add(&g, &c, 600.0);
    assert_int_equal(g.k, 3);
    assert_true(g.gflops == 3.0);
    assert_true(g.data_moved_mb == 6.0);
    assert_true(isnan(g.flops_per_byte));
    assert_string_equal(g.bound,
                        tlm_roofline_bound_str(TLM_ROOFLINE_MEMORY_BOUND));
    /* statistics per metric: 0 TB/s, 1 TFLOPS/s, 2 Pct Roofline, 3 time */
    tlm_stats s;
    tlm_grp_metrics_stats(&g, 0, v, &s);
    assert_int_equal(s.count, 3);
    assert_true(s.sum == 7.0 && s.min == 1.0 && s.max == 4.0);
    assert_true(s.median == 2.0);
    tlm_grp_metrics_stats(&g, 2, v, &s);
    assert_true(s.mean == 70.0 && s.std == 20.0);
    tlm_grp_metrics_stats(&g, 3, v, &s);
    assert_true(s.sum == 900.0 && s.median == 200.0);
}

static tlm_tab *sum_uid_table(void)
{
    const char *cols[] = {"sum", "uid"};
    tlm_coltype ty[] = {TLM_COL_F64, TLM_COL_I64};
    tlm_tab *t = tlm_tab_new("x", 2, cols, ty);
    assert_non_null(t);
    static const double sums[] = {1.5, 9.0, 1.5, 9.0, 0.25};
    static const int64_t uids[] = {40, 30, 10, 20, 5};
    for (size_t i = 0; i < 5; i++) {
        long r = tlm_tab_add_row(t);
        assert_true(r >= 0);
        tlm_tab_set_f(t, (size_t)r, 0, sums[i]);
        tlm_tab_set_i(t, (size_t)r, 1, uids[i]);
    }
    return t;
}

static void test_sort_sum_uid(void **state)
{
    (void)state;
    tlm_tab *t = sum_uid_table();
    /* the sum descending, ties by UID ascending */
    assert_int_equal(tlm_tab_sort_sum_uid(t, 0, 1), TLM_OK);
    static const int64_t want[] = {20, 30, 10, 40, 5};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(tlm_tab_cell(t, i, 1)->v.i, want[i]);
    tlm_tab_free(t);
}

static void test_keep_tab(void **state)
{
    (void)state;
    tlm_rctx ctx;
    memset(&ctx, 0, sizeof ctx);
    /* a table with rows is added */
    assert_int_equal(tlm_rctx_keep_tab(&ctx, sum_uid_table(), TLM_OK),
                     TLM_OK);
    assert_int_equal(ctx.ntabs, 1);
    /* an empty table is dropped, without an error */
    const char *cols[] = {"a"};
    tlm_coltype ty[] = {TLM_COL_I64};
    tlm_tab *e = tlm_tab_new("empty", 1, cols, ty);
    assert_non_null(e);
    assert_int_equal(tlm_rctx_keep_tab(&ctx, e, TLM_OK), TLM_OK);
    assert_int_equal(ctx.ntabs, 1);
    /* a builder's error: the table is freed and the error returned */
    assert_int_equal(tlm_rctx_keep_tab(&ctx, sum_uid_table(), TLM_ENOMEM),
                     TLM_ENOMEM);
    assert_int_equal(ctx.ntabs, 1);
    /* a table that ran out of memory: ENOMEM, not added */
    tlm_tab *o = sum_uid_table();
    o->oom = 1;
    assert_int_equal(tlm_rctx_finish_tab(&ctx, o, TLM_OK), TLM_ENOMEM);
    assert_int_equal(ctx.ntabs, 1);
    assert_string_equal(ctx.tabs[0]->name, "x");
    tlm_tab_free(ctx.tabs[0]);
    free(ctx.tabs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_of),
        cmocka_unit_test(test_grp_metrics),
        cmocka_unit_test(test_sort_sum_uid),
        cmocka_unit_test(test_keep_tab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
