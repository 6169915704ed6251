/*
 * test_job.c - the job layer's pure parts (src/job/): the ops of every
 * trace merged by name (sums, extremes and their ranks, percentages, the
 * order), and the same merge one row at a time, the local report rows put in trace-rank order by their spans,
 * the step rows' (trace_rank, step) order, and the checks of the set of
 * traces (duplicate and missing ranks, the world size, their messages),
 * GPUs per node (option, deviceProperties, unknown).
 */
#include <math.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "job.h"

/* An op row of trace rank r. */
static tlm_row_op op(const char *name, int32_t r, double direct, int64_t n)
{
    tlm_row_op o;
    memset(&o, 0, sizeof o);
    o.trace_rank = r;
    strncpy(o.name, name, sizeof o.name - 1);
    o.direct_kernel_ns = direct;
    o.subtree_kernel_ns = direct;
    o.count = n;
    return o;
}

/* Two names over three ranks: one row per name, largest first. */
static void test_merge_ops(void **state)
{
    (void)state;
    tlm_row_op all[] = {op("b", 2, 10, 1), op("a", 1, 30, 2),
                        op("b", 0, 50, 3), op("a", 0, NAN, 1)};
    tlm_row_op_merged *m = NULL;
    size_t n = 0;
    assert_int_equal(tlm_job_merge_ops(all, 4, &m, &n), TLM_OK);
    assert_int_equal(n, 2);
    assert_string_equal(m[0].name, "b");
    assert_int_equal(m[0].n_ranks, 2);
    assert_int_equal(m[0].count, 4);
    assert_true(m[0].direct_kernel_ns == 60.0);
    assert_int_equal(m[0].min_rank, 2);
    assert_int_equal(m[0].max_rank, 0);
    assert_true(m[0].mean_rank_ns == 30.0);
    assert_true(fabs(m[0].percent - 200.0 / 3.0) < 1e-9);
    assert_string_equal(m[1].name, "a");
    assert_true(m[1].direct_kernel_ns == 30.0); /* NaN counts as 0 */
    assert_int_equal(m[1].min_rank, 0);
    free(m);
}

/* Rows of traces read in the order 3, 1: back in the order 1, 3. */
/* The merge one row at a time (rows in tlm_job_op_before's order, as
 * the driver streams them): the same bytes as tlm_job_merge_ops. */
static void test_merger(void **state)
{
    (void)state;
    tlm_row_op rows[] = {op("a", 0, 0.1, 1),  op("a", 3, 0.2, 1),
                         op("a", 7, 0.3, 2),  op("b", 1, 1e17, 1),
                         op("b", 2, 1.0, 1),  op("b", 9, -1.0, 1),
                         op("c", 4, NAN, 1)};
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i + 1 < n; i++) {
        assert_true(tlm_job_op_before(&rows[i], &rows[i + 1]));
        assert_false(tlm_job_op_before(&rows[i + 1], &rows[i]));
    }
    tlm_row_op all[sizeof rows / sizeof rows[0]];
    for (size_t i = 0; i < n; i++) /* reversed: merge_ops sorts */
        all[i] = rows[n - 1 - i];
    tlm_row_op_merged *want = NULL, *got = NULL;
    size_t n_want = 0, n_got = 0;
    assert_int_equal(tlm_job_merge_ops(all, n, &want, &n_want), TLM_OK);
    tlm_job_op_merger g;
    tlm_job_merger_init(&g);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tlm_job_merger_add(&g, &rows[i]), TLM_OK);
    assert_int_equal(tlm_job_merger_finish(&g, &got, &n_got), TLM_OK);
    assert_int_equal(n_got, 3);
    assert_int_equal(n_got, n_want);
    assert_memory_equal(got, want, n_want * sizeof *want);
    free(got);
    free(want);
}

static void test_order_rows(void **state)
{
    (void)state;
    tlm_row_op ops[] = {op("x", 3, 1, 1), op("y", 3, 2, 1),
                        op("z", 1, 3, 1)};
    tlm_job_rtabs rt;
    memset(&rt, 0, sizeof rt);
    rt.ops = ops;
    rt.n_ops = 3;
    tlm_job_fileres fr[2];
    memset(fr, 0, sizeof fr);
    fr[0].row.trace_rank = 3;
    fr[0].span[TLM_JOB_SPAN_OPS][0] = 0;
    fr[0].span[TLM_JOB_SPAN_OPS][1] = 2;
    fr[1].row.trace_rank = 1;
    fr[1].span[TLM_JOB_SPAN_OPS][0] = 2;
    fr[1].span[TLM_JOB_SPAN_OPS][1] = 1;
    tlm_row_op *o = NULL;
    tlm_row_uargs *ua = NULL;
    tlm_row_kernel *kn = NULL;
    assert_int_equal(tlm_job_order_rows(fr, 2, &rt, &o, &ua, &kn), TLM_OK);
    assert_string_equal(o[0].name, "z");
    assert_string_equal(o[1].name, "x");
    assert_string_equal(o[2].name, "y");
    free(o);
    free(ua);
    free(kn);
}

/* Step rows by trace rank, then step. */
static void test_steps_sort(void **state)
{
    (void)state;
    tlm_row_step r[3];
    memset(r, 0, sizeof r);
    r[0].trace_rank = 1;
    r[0].step = 2;
    r[1].trace_rank = 0;
    r[1].step = 5;
    r[2].trace_rank = 1;
    r[2].step = 1;
    tlm_job_steps_sort(r, 3);
    assert_int_equal(r[0].trace_rank, 0);
    assert_int_equal(r[1].step, 1);
    assert_int_equal(r[2].step, 2);
}

/* The messages of the checks, one after the other. */
static char said[4096];

static void say(void *arg, const char *fmt, va_list ap)
{
    (void)arg;
    size_t len = strlen(said);
    vsnprintf(said + len, sizeof said - len, fmt, ap);
    strncat(said, "\n", sizeof said - strlen(said) - 1);
}

/* Traces of ranks 0, 2, 2 and 5: a duplicate; without it ranks 1, 3, 4
 * are missing from the world size the highest rank gives. */
static void test_checks(void **state)
{
    (void)state;
    tlm_job_fileres r[4];
    memset(r, 0, sizeof r);
    int32_t ranks[] = {5, 2, 0, 2};
    for (int i = 0; i < 4; i++) {
        r[i].file_idx = i;
        r[i].row.trace_rank = ranks[i];
        r[i].row.dist_world_size = -1;
        snprintf(r[i].row.file, sizeof r[i].row.file, "t%d.json", i);
    }
    tlm_cli_opts o;
    memset(&o, 0, sizeof o);
    o.world_size = -1;
    tlm_cli_filelist fl;
    memset(&fl, 0, sizeof fl);
    tlm_job_sort_by_rank(r, 4);
    assert_int_equal(r[0].row.trace_rank, 0);
    assert_int_equal(tlm_job_rank_pos(r, 4, 5), 3);
    assert_int_equal(tlm_job_rank_pos(r, 4, 3), -1);
    tlm_job_check k = {r, 4, &o, &fl, say, NULL, NULL, 0};
    said[0] = '\0';
    assert_int_equal(tlm_job_check_duplicates(&k), TLM_EMISMATCH);
    assert_string_equal(said,
                        "error: rank 2 appears twice: t1.json and t3.json\n");
    k.n_res = 3; /* ranks 0, 2, 5 */
    r[2] = r[3];
    int64_t w = 0;
    const char *src = NULL;
    assert_int_equal(tlm_job_world_size(&k, &w, &src), TLM_OK);
    assert_int_equal(w, 6);
    said[0] = '\0';
    assert_int_equal(tlm_job_check_missing(&k, w, src), TLM_ENOTFOUND);
    assert_non_null(strstr(said, "3 of 6 ranks have no trace"));
    assert_non_null(strstr(said, ": 1, 3, 4;"));
}

/* GPUs per node: the option, else the first trace's deviceProperties
 * length (TraceLens's rule), else unknown; each trace's node follows. */
static void test_gpus_per_node(void **state)
{
    (void)state;
    tlm_job_fileres res[3];
    memset(res, 0, sizeof res);
    for (int i = 0; i < 3; i++) {
        res[i].row.trace_rank = 2 * i + 1; /* 1, 3, 5 */
        res[i].n_device_props = i == 0 ? 2 : 8;
    }
    const char *src = NULL;
    assert_int_equal(tlm_job_gpus_per_node(res, 3, -1, &src), 2);
    assert_string_equal(src, "deviceProperties");
    assert_int_equal(res[0].row.node, 0);
    assert_int_equal(res[1].row.node, 1);
    assert_int_equal(res[2].row.node, 2);
    assert_int_equal(tlm_job_gpus_per_node(res, 3, 4, &src), 4);
    assert_string_equal(src, "--gpus_per_node");
    assert_int_equal(res[2].row.node, 1);
    res[0].n_device_props = 0;
    assert_int_equal(tlm_job_gpus_per_node(res, 3, -1, &src), -1);
    assert_string_equal(src, "none");
    assert_int_equal(res[1].row.node, -1);
    assert_int_equal(tlm_job_gpus_per_node(NULL, 0, -1, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpus_per_node),
        cmocka_unit_test(test_merge_ops),
        cmocka_unit_test(test_merger),
        cmocka_unit_test(test_order_rows),
        cmocka_unit_test(test_steps_sort),
        cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
