/*
 * test_kl_overlap.c - --include_overlap_info through the report API
 * (src/report/kl_overlap.c and the *_kl_overlap builders of ops.c,
 * unified.c, sheets.c): the sheets and their places, the overlap cells of
 * tests/data/overlap_small.json (worked out in
 * tests/integration/test_tracelens_opts_overlap.sh), the other sheets
 * unchanged by the option, the same report from one thread and from two,
 * and on a synthesized step (communication kernels on their own streams)
 * groups that only split: operation counts add up.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_report.h"

static tlm_trace *read_small(void)
{
    const char *src = getenv("TLM_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/overlap_small.json",
             src ? src : ".");
    char *js = tr_text(path);
    tlm_trace *tr = NULL;
    assert_int_equal(
        tlm_trace_read_mem(js, strlen(js), "overlap_small.json", NULL, &tr,
                           NULL),
        TLM_OK);
    free(js);
    return tr;
}

static tlm_report *build(tlm_trace *tr, int overlap, int threads,
                         tlm_tree **tree)
{
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.include_overlap_info = overlap;
    o.threads = threads;
    return tr_build(tr, &o, tree);
}

/* Sheets in order; the three overlap cells of the rows by ex_UID. */
static void test_small(void **state)
{
    (void)state;
    tlm_trace *tr = read_small();
    tlm_tree *tree;
    tlm_report *r = build(tr, 1, 1, &tree);
    static const char *const order[] = {
        "gpu_timeline", "ops_summary_by_category", "ops_summary",
        "ops_unique_args", "ops_unique_args_kl_overlap",
        "unified_perf_summary", "unified_perf_summary_kl_overlap", "GEMM",
        "GEMM_kl_overlap", "BinaryElementwise",
        "BinaryElementwise_kl_overlap", "UnaryElementwise",
        "UnaryElementwise_kl_overlap"};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        assert_string_equal(tlm_report_table_name(r, i), order[i]);
    const char *O = "ops_unique_args_kl_overlap";
    assert_int_equal(tr_rows(r, O), 6);
    assert_int_equal(tr_rows(r, "ops_unique_args"), 4);
    static const struct {
        const char *uid, *names, *details, *pct;
    } want[] = {
        {"0", "['copy_kernel']",
         "{'copy_kernel': {'dur': 10.0, 'stream': 8, 'overlap_pct': 1.0}}",
         "0.5"},
        {"10", "[]", "{}", "0.0"},
        {"5", "['gemm_a']",
         "{'gemm_a': {'dur': 20.0, 'stream': 7, 'overlap_pct': 0.5}}",
         "1.0"},
        {"15", "[]", "{}", "0.0"},
        {"20", "['fill_kernel']",
         "{'fill_kernel': {'dur': 4.0, 'stream': 9, 'overlap_pct': 0.75}}",
         "0.4"},
        {"29", "['add_kernel', 'add_kernel2']",
         "{'add_kernel': {'dur': 10.0, 'stream': 7, 'overlap_pct': 0.4}, "
         "'add_kernel2': {'dur': 4.0, 'stream': 8, 'overlap_pct': 0.5}}",
         "1.0"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        size_t row = tr_find_row(r, O, "ex_UID", want[i].uid);
        assert_string_equal(tr_cell(r, O, row, "overlapping_kernel_names"),
                            want[i].names);
        assert_string_equal(
            tr_cell(r, O, row, "overlapping_kernels_details"),
            want[i].details);
        assert_string_equal(tr_cell(r, O, row, "overlap_pct_mean"),
                            want[i].pct);
    }
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
}

/* Sum of operation_count (or name_count) over a table. */
static long count_sum(const tlm_report *r, const char *tab, const char *col)
{
    long s = 0;
    for (size_t i = 0; i < tr_rows(r, tab); i++)
        s += atol(tr_cell(r, tab, i, col));
    return s;
}

/* The sheets a report without the option has, unchanged; each split
 * sheet as many operations as its sheet; one thread or two, the same. */
static void check_against_plain(tlm_trace *tr)
{
    tlm_tree *t0, *t1, *t2;
    tlm_report *plain = build(tr, 0, 1, &t0);
    tlm_report *r1 = build(tr, 1, 1, &t1);
    tlm_report *r2 = build(tr, 1, 2, &t2);
    tr_same_reports(r1, r2);
    static char x[8192], y[8192];
    size_t k = 0;
    for (size_t t = 0; t < tlm_report_table_count(r1); t++) {
        const char *nm = tlm_report_table_name(r1, t);
        size_t n = strlen(nm);
        if (n > 11 && !strcmp(nm + n - 11, "_kl_overlap")) {
            char base[256];
            snprintf(base, sizeof base, "%.*s", (int)(n - 11), nm);
            const char *col = !strncmp(base, "ops_", 4) ||
                                      !strcmp(base, "unified_perf_summary")
                                  ? "operation_count"
                                  : "name_count";
            assert_int_equal(count_sum(r1, nm, col),
                             count_sum(r1, base, col));
            assert_true(tr_rows(r1, nm) >= tr_rows(r1, base));
            continue;
        }
        assert_string_equal(nm, tlm_report_table_name(plain, k));
        size_t nr = tlm_report_table_rows(r1, t);
        size_t nc = tlm_report_table_cols(r1, t);
        assert_int_equal(nr, tlm_report_table_rows(plain, k));
        assert_int_equal(nc, tlm_report_table_cols(plain, k));
        for (size_t i = 0; i < nr; i++)
            for (size_t c = 0; c < nc; c++) {
                tlm_report_cell_text(r1, t, i, c, x, sizeof x);
                tlm_report_cell_text(plain, k, i, c, y, sizeof y);
                assert_string_equal(x, y);
            }
        k++;
    }
    assert_int_equal(k, tlm_report_table_count(plain));
    tlm_report_free(plain);
    tlm_report_free(r1);
    tlm_report_free(r2);
    tlm_tree_free(t0);
    tlm_tree_free(t1);
    tlm_tree_free(t2);
}

static void test_small_plain_threads(void **state)
{
    (void)state;
    tlm_trace *tr = read_small();
    check_against_plain(tr);
    tlm_trace_free(tr);
}

/* Rank 0 of a synthesized 8-rank job with tensor parallelism 4 (data
 * parallel gradients reduced on their own stream) into path. */
static void synth_dp(char *dir, size_t dsize, char *path, size_t psize)
{
    tt_tmpdir(dir, dsize);
    tlm_synth_opts so;
    tlm_synth_opts_init(&so);
    so.out_dir = dir;
    so.world_size = 8;
    so.tp = 4;
    so.gpus_per_node = 8;
    so.seed = 5;
    static const int only[1] = {0};
    so.only_ranks = only;
    so.n_only_ranks = 1;
    tlm_synth_truth *truth = NULL;
    if (tlm_synth_run(&so, &truth, NULL) != TLM_OK)
        tt_die("tlm_synth_run");
    snprintf(path, psize, "%s/%s", dir, truth->ranks[0].trace_file);
    tlm_synth_truth_free(truth);
}

/* A synthesized training step: NCCL kernels on their own streams overlap
 * compute kernels, so some groups split. */
static void test_synth(void **state)
{
    (void)state;
    char dir[256], path[1024];
    synth_dp(dir, sizeof dir, path, sizeof path);
    tlm_trace *tr = NULL;
    assert_int_equal(tlm_trace_read_file(path, NULL, &tr, NULL), TLM_OK);
    check_against_plain(tr);
    tlm_tree *tree;
    tlm_report *r = build(tr, 1, 2, &tree);
    const char *O = "ops_unique_args_kl_overlap";
    size_t with = 0;
    for (size_t i = 0; i < tr_rows(r, O); i++)
        with += strcmp(tr_cell(r, O, i, "overlapping_kernel_names"), "[]") != 0;
    assert_true(with > 0);
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
    tt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_small_plain_threads),
        cmocka_unit_test(test_synth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
