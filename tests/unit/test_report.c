/*
 * test_report.c - building a report and reading it (src/report/report.c):
 * option defaults and --tracelens_compat parsing, the GPU options, the
 * sheet order, table lookup and cell access by index, the sum/UID row
 * order, one thread or two giving the same tables, a trace without GPU
 * events (TLM_ENOTFOUND), and the CSV writer's all-or-nothing files.
 */
#include <math.h>
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

#include "report_internal.h"
#include "tlm_test_report.h"
#include "tlm_test_util.h"

static void test_opts_defaults(void **state)
{
    (void)state;
    tlm_report_opts o;
    memset(&o, 0x5a, sizeof o);
    tlm_report_opts_init(&o);
    assert_int_equal(o.kernel_summary, 1);
    assert_int_equal(o.short_kernel_study, 1);
    assert_true(o.short_kernel_threshold_us == 10.0);
    assert_int_equal(o.short_kernel_bins, 100);
    assert_int_equal(o.topk_short_kernels, -1);
    assert_int_equal(o.include_unlinked_kernels, 0);
    assert_true(o.micro_idle_thresh_us == -1.0);
    assert_int_equal(o.perf_sheets, 1);
    assert_int_equal(o.unified, 1);
    assert_int_equal(o.coll_analysis, 1);
    assert_int_equal(o.compat, 0);
    assert_null(o.gpu_arch);
    assert_null(o.gpu_arch_json_path);
    assert_null(o.trace_label);
    assert_int_equal(o.threads, 1);
}

static void test_compat_parse(void **state)
{
    (void)state;
    unsigned bits = 99;
    tlm_error err;
    assert_int_equal(tlm_compat_parse(NULL, &bits, NULL), TLM_OK);
    assert_int_equal(bits, 0);
    assert_int_equal(tlm_compat_parse("all", &bits, NULL), TLM_OK);
    assert_int_equal(bits, TLM_COMPAT_ALL);
    assert_int_equal(bits, 0x3f001f); /* bit 21: rocprof_quirks */
    assert_int_equal(
        tlm_compat_parse("short_kernel_null_keys,no_corr_fallback", &bits,
                         NULL),
        TLM_OK);
    assert_int_equal(bits, TLM_COMPAT_SHORT_NULL_DROP |
                               TLM_COMPAT_NO_CORR_FALLBACK);
    /* empty items are skipped */
    assert_int_equal(tlm_compat_parse(",tracelens_columns,", &bits, NULL),
                     TLM_OK);
    assert_int_equal(bits, TLM_COMPAT_COLUMNS);
    assert_int_equal(tlm_compat_parse("leaf_skips_cuda_driver", &bits, NULL),
                     TLM_OK);
    assert_int_equal(bits, TLM_COMPAT_LEAF_NO_DRIVER);
    assert_int_equal(tlm_compat_parse("no_corr_fallback,bogus", &bits, &err),
                     TLM_EINVAL);
    assert_string_equal(err.msg, "unknown --tracelens_compat item 'bogus'");
    /* a prefix of a name is not the name */
    assert_int_equal(tlm_compat_parse("no_corr", &bits, &err), TLM_EINVAL);
}

/* Unknown GPU, both GPU options, a bundled GPU (roofline columns). */
static void test_gpu_options(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    tlm_tree *tree = f.tree;
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    tlm_error err;
    tlm_report *r = NULL;
    o.gpu_arch = "no-such-gpu";
    assert_int_equal(tlm_report_build(tree, &o, &r, &err), TLM_EINVAL);
    assert_null(r);
    assert_string_equal(err.msg,
                        "unknown GPU 'no-such-gpu' for --gpu_arch (known: "
                        "H100, H200, B200, A100, MI300X, MI325X, MI355X, "
                        "V100-SXM2-32GB, V100-SXM2-16GB, V100-PCIe-32GB, "
                        "V100-PCIe-16GB, A10, A40, L4, L40S, MI250X, MI210, "
                        "MI300X-MAF, MI325X-MAF, none)");
    /* an ambiguous name is not taken for one of the GPUs it may mean */
    o.gpu_arch = "MI300";
    assert_int_equal(tlm_report_build(tree, &o, &r, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "unknown GPU 'MI300'"));
    o.gpu_arch = "H100";
    o.gpu_arch_json_path = "/nonexistent.json";
    assert_int_equal(tlm_report_build(tree, &o, &r, &err), TLM_EINVAL);
    assert_string_equal(err.msg, "--gpu_arch and --gpu_arch_json_path are "
                                 "mutually exclusive");
    o.gpu_arch_json_path = NULL;
    assert_int_equal(tlm_report_build(tree, &o, &r, &err), TLM_OK);
    assert_string_equal(tr_cell(r, "GEMM", 0, "Roofline Bound_first"),
                        "MEMORY_BOUND");
    tlm_report_free(r);
    /* without a GPU: no roofline columns */
    long g = tlm_report_table_find(f.r, "GEMM");
    assert_true(g >= 0);
    for (size_t c = 0; c < tlm_report_table_cols(f.r, (size_t)g); c++)
        assert_null(strstr(tlm_report_table_colname(f.r, (size_t)g, c),
                           "Roofline"));
    tr_close(&f);
}

/* TraceLens's sheet order, lookup by name, access out of range. */
static void test_tables_and_cells(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    const tlm_report *r = f.r;
    static const char *const order[] = {
        "gpu_timeline",         "ops_summary_by_category",
        "ops_summary",          "ops_unique_args",
        "unified_perf_summary", "GEMM",
        "kernel_summary",       "short_kernel_histogram",
        "short_kernels_summary"};
    size_t n = sizeof order / sizeof order[0];
    assert_int_equal(tlm_report_table_count(r), n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(tlm_report_table_name(r, i), order[i]);
        assert_int_equal(tlm_report_table_find(r, order[i]), (long)i);
    }
    assert_null(tlm_report_table_name(r, n));
    assert_int_equal(tlm_report_table_find(r, "coll_analysis"), -1);
    assert_int_equal(tlm_report_table_find(r, "gemm"), -1);
    assert_int_equal(tlm_report_table_rows(r, n), 0);
    assert_int_equal(tlm_report_table_cols(r, n), 0);

    /* ops_summary row 0: aten::addmm, one op, 20 us of kernels */
    size_t t = (size_t)tlm_report_table_find(r, "ops_summary");
    size_t nc = tlm_report_table_cols(r, t);
    assert_string_equal(tlm_report_table_colname(r, t, 0), "name");
    assert_null(tlm_report_table_colname(r, t, nc));
    char buf[64];
    assert_int_equal(tlm_report_cell_text(r, t, 0, 0, buf, sizeof buf), 11);
    assert_string_equal(buf, "aten::addmm");
    /* truncated into a small buffer, the full length returned */
    assert_int_equal(tlm_report_cell_text(r, t, 0, 0, buf, 5), 11);
    assert_string_equal(buf, "aten");
    assert_int_equal(tlm_report_cell_text(r, t, 9, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    double v = 0;
    long kc = -1, cc = -1;
    for (size_t c = 0; c < nc; c++) {
        if (!strcmp(tlm_report_table_colname(r, t, c),
                    "total_direct_kernel_time_sum"))
            kc = (long)c;
        if (!strcmp(tlm_report_table_colname(r, t, c), "Count"))
            cc = (long)c;
    }
    assert_true(kc >= 0 && cc >= 0);
    assert_int_equal(tlm_report_cell_num(r, t, 0, (size_t)kc, &v), 1);
    assert_true(v == 20.0);
    assert_int_equal(tlm_report_cell_num(r, t, 0, (size_t)cc, &v), 1);
    assert_true(v == 1.0);
    assert_int_equal(tlm_report_cell_num(r, t, 0, 0, &v), 0); /* text */
    assert_true(isnan(v));
    assert_int_equal(tlm_report_cell_num(r, t, 3, (size_t)kc, &v), 0);

    /* the timeline the report keeps: [10, 415) us, 30 us busy */
    const tlm_gpu_timeline *g = tlm_report_timeline(r);
    assert_true(g->total_us == 405.0);
    assert_true(g->busy_us == 30.0);
    assert_int_equal(g->n_events, 4);
    tr_close(&f);
}

/* tlm_cmp_sum_uid: the sum column descending, then UID ascending. */
static void test_cmp_sum_uid(void **state)
{
    (void)state;
    const char *cols[] = {"UID", "sum"};
    tlm_coltype ty[] = {TLM_COL_I64, TLM_COL_F64};
    tlm_tab *t = tlm_tab_new("x", 2, cols, ty);
    assert_non_null(t);
    static const int64_t uid[4] = {7, 3, 5, 1};
    static const double sum[4] = {2.0, 5.0, 2.0, 1.0};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(tlm_tab_add_row(t), (long)i);
        tlm_tab_set_i(t, i, 0, uid[i]);
        tlm_tab_set_f(t, i, 1, sum[i]);
    }
    tlm_sum_uid_key k = {t, 1, 0};
    assert_int_equal(tlm_cmp_sum_uid(&k, 1, 0), -1); /* 5.0 before 2.0 */
    assert_int_equal(tlm_cmp_sum_uid(&k, 0, 1), 1);
    assert_int_equal(tlm_cmp_sum_uid(&k, 2, 0), -1); /* tie: UID 5 < 7 */
    assert_int_equal(tlm_cmp_sum_uid(&k, 0, 2), 1);
    assert_int_equal(tlm_cmp_sum_uid(&k, 3, 3), 0);
    tlm_tab_free(t);
}

/* The report of a trace with cpu_ops but no GPU event: TraceLens raises,
 * tlmpi returns TLM_ENOTFOUND. */
static void test_no_gpu_events(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq("{'traceEvents':[" TR_CPU("aten::empty", 0, 1)
                            "]}");
    tlm_tree *tree = NULL;
    assert_int_equal(tlm_tree_build(tr, NULL, &tree, NULL), TLM_OK);
    tlm_report *r = (tlm_report *)1;
    tlm_error err;
    assert_int_equal(tlm_report_build(tree, NULL, &r, &err), TLM_ENOTFOUND);
    assert_null(r);
    assert_int_equal(tlm_report_build(NULL, NULL, &r, &err), TLM_EINVAL);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
}

/* unified_perf_summary built in a second thread (opts.threads = 2) gives
 * the report of one thread, on a synthesized training step with GEMMs,
 * attention, elementwise ops, backward links and collectives, and on the
 * small trace of the op tables. */
static void test_threads_same_report(void **state)
{
    (void)state;
    char dir[256], path[1024];
    tt_synth_rank0(dir, sizeof dir, path, sizeof path, 0, 5);
    tlm_trace *trs[2] = {NULL, tt_read_sq(tr_ops_json())};
    assert_int_equal(tlm_trace_read_file(path, NULL, &trs[0], NULL), TLM_OK);
    for (int k = 0; k < 2; k++) {
        tlm_tree *tree = NULL;
        tlm_report_opts o;
        tlm_report_opts_init(&o);
        o.gpu_arch = "H100";
        assert_int_equal(o.threads, 1);
        tlm_report *r1 = tr_build(trs[k], &o, &tree);
        tlm_tree_free(tree);
        o.threads = 2;
        tlm_report *r2 = tr_build(trs[k], &o, &tree);
        if (k == 0) /* the synthesized step has modelled ops */
            assert_true(tlm_report_table_find(r1, "GEMM") >= 0 &&
                        tr_rows(r1, "unified_perf_summary") > 10);
        else
            assert_int_equal(tr_rows(r1, "unified_perf_summary"), 4);
        tr_same_reports(r1, r2);
        tlm_report_free(r1);
        tlm_report_free(r2);
        tlm_tree_free(tree);
        tlm_trace_free(trs[k]);
    }
    tt_rm_rf(dir);
}

/* Every sheet as <dir>/<name>.csv; a failure leaves no file behind. */
static void test_write_csvs(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    const tlm_report *r = f.r;
    char dir[256], path[512];
    tt_tmpdir(dir, sizeof dir);
    assert_int_equal(tlm_report_write_csvs(r, dir, NULL), TLM_OK);
    for (size_t i = 0; i < tlm_report_table_count(r); i++) {
        snprintf(path, sizeof path, "%s/%s.csv", dir,
                 tlm_report_table_name(r, i));
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        assert_true(sb.st_size > 0);
    }
    snprintf(path, sizeof path, "%s/ops_summary_by_category.csv", dir);
    char *csv = tr_text(path);
    assert_string_equal(csv,
                        "op category,Count,total_direct_kernel_time_ms,"
                        "Percentage (%),Cumulative Percentage (%)\n"
                        "GEMM,1,0.02,66.66666666666666,66.66666666666666\n"
                        "reduce,1,0.006,20.0,86.66666666666666\n"
                        "other,1,0.004,13.333333333333334,99.99999999999999\n");
    free(csv);
    /* all outputs, report.md too */
    snprintf(path, sizeof path, "%s/report.md", dir);
    assert_int_equal(tlm_report_write_all(r, dir, path, NULL), TLM_OK);
    assert_int_equal(access(path, F_OK), 0);
    tt_rm_rf(dir);

    /* a folder that cannot be made (under a regular file) is an error,
     * not a crash */
    tlm_error err;
    char bad[600];
    tt_tmpdir(dir, sizeof dir);
    snprintf(bad, sizeof bad, "%s/file", dir);
    FILE *fp = fopen(bad, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(bad, sizeof bad, "%s/file/dir", dir);
    assert_int_equal(tlm_report_write_csvs(r, bad, &err), TLM_EIO);
    /* report.md cannot be written: not one CSV is left either */
    snprintf(bad, sizeof bad, "%s/file/dir/report.md", dir);
    assert_int_equal(tlm_report_write_all(r, dir, bad, &err), TLM_EIO);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = file", dir);
    assert_int_equal(system(cmd), 0); /* no CSV, no temporary */
    tt_rm_rf(dir);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opts_defaults),
        cmocka_unit_test(test_compat_parse),
        cmocka_unit_test(test_gpu_options),
        cmocka_unit_test(test_tables_and_cells),
        cmocka_unit_test(test_cmp_sum_uid),
        cmocka_unit_test(test_no_gpu_events),
        cmocka_unit_test(test_threads_same_report),
        cmocka_unit_test(test_write_csvs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
