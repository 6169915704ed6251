/*
 * test_kernels.c - kernel-level tables and the numeric/formatting helpers
 * they rely on (src/report/kernels.c): numpy's pairwise sum, std and
 * median bit for bit, Python float/tuple repr, the kernel_details summary
 * string, kernel_summary, the short-kernel histogram and summary (with and
 * without the null-key quirk), and coll_analysis.  (The CSV writer's tests
 * are in test_table.c.)
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

#include "report_internal.h"
#include "tlm_test_report.h"

/* MARK: - numpy ---------------------------------------------------------- */

static void test_numpy(void **state)
{
    (void)state;
    /* expected values printed by numpy 1.24 (repr) */
    static const struct {
        size_t n;
        double sum, std, median;
    } cases[] = {{5, 1.81, 0.32649961715138354, 0.20400000000000001},
                 {77, 49.12600000000001, 0.3791178756486743,
                  0.6380000000000001},
                 {200, 138.70000000000002, 0.3796014357190974, 0.6965},
                 {1001, 1101.1, 0.47423622805517507, 1.1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c].n;
        double *a = malloc(n * sizeof *a);
        assert_non_null(a);
        for (size_t i = 0; i < n; i++)
            a[i] = (double)((i * 7) % 13) * 0.1 + (double)i * 1e-3;
        double s = tlm_np_sum(a, n);
        assert_true(s == cases[c].sum);
        assert_true(tlm_np_std(a, n, s / (double)n) == cases[c].std);
        assert_true(tlm_np_median(a, n) == cases[c].median);
        free(a);
    }
    assert_true(tlm_np_round2(2.675) == 2.68); /* rint(267.49999..) */
    assert_true(tlm_np_round2(0.125) == 0.12); /* half to even */
    assert_true(tlm_np_round2(83.65627083333332) == 83.66);
    double one[1] = {3.0};
    assert_true(tlm_sample_std(one, 1) != tlm_sample_std(one, 1)); /* NaN */
}

/* MARK: - Python repr and CSV ------------------------------------------- */

static void pyf(double v, const char *want)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_pyfloat(&b, v);
    assert_string_equal(b.p, want);
    tlm_sbuf_free(&b);
}

static void pyj(const char *json, int tuple, const char *want)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    int rc = tlm_sbuf_json_pyrepr(&b, json, strlen(json), tuple);
    if (!want) {
        assert_int_equal(rc, -1);
    } else {
        assert_int_equal(rc, 0);
        assert_string_equal(b.p, want);
    }
    tlm_sbuf_free(&b);
}

static void test_repr(void **state)
{
    (void)state;
    pyf(0.1, "0.1");
    pyf(1e16, "1e+16");
    pyf(1e-5, "1e-05");
    pyf(123456789.0, "123456789.0");
    pyf(3.5776e-05, "3.5776e-05");
    pyf(0.0001, "0.0001");
    pyf(1.0 / 3, "0.3333333333333333");
    pyf(2.5e-7, "2.5e-07");
    pyf(1e22, "1e+22");
    pyf(-0.0, "-0.0");
    pyf(84.4844258626302, "84.4844258626302");
    pyf(9007199254740992.0, "9007199254740992.0");
    pyf(0.0, "0.0");

    pyj("[[8944,1024],[1024,2816]]", 1, "((8944, 1024), (1024, 2816))");
    pyj("[[8944,1024],[1024,2816]]", 0, "[[8944, 1024], [1024, 2816]]");
    pyj("[\"\"]", 1, "('',)");
    pyj("[\"\",\"1\"]", 1, "('', '1')");
    pyj("[[],[3]]", 1, "((), (3,))");
    pyj("[\"it's\"]", 1, "(\"it's\",)");
    pyj("[0.125,true,false,null,-2]", 1, "(0.125, True, False, None, -2)");
    pyj("{\"a\":[1]}", 0, "{'a': [1]}");
    pyj("[\"a\\\"b\\\\\"]", 0, "['a\"b\\\\']");
    pyj("[1,", 1, NULL);
    pyj("nope", 1, NULL);
}

/* MARK: - tables on a small trace ---------------------------------------- */

#define OP(name, ts, dur, corr)                                           \
    "{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':"    \
    #ts ",'dur':" #dur ",'args':{'Input Dims':[[4,4],[4,4]],"             \
    "'Input type':['float','float'],'Input Strides':[[4,1],[4,1]],"       \
    "'Concrete Inputs':['','']}},"                                        \
    "{'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel','pid':1,"   \
    "'tid':1,'ts':" #ts ",'dur':1,'args':{'correlation':" #corr "}}"
#define ELT "void at::native::elementwise_kernel<4>"

static const char *small =
    "{'traceEvents':["
    "{'ph':'M','name':'process_name','pid':1,'tid':0,"
    "'args':{'name':'python3'}},"
    "{'ph':'M','name':'thread_name','pid':1,'tid':1,"
    "'args':{'name':'main'}},"
    OP("aten::mul", 0, 5, 1) "," TR_KER(ELT, 10, 1.5, 1) ","
    OP("aten::mul", 20, 5, 2) "," TR_KER(ELT, 30, 2.5, 2) ","
    OP("aten::mul", 40, 5, 3) "," TR_KER(ELT, 50, 3, 3) ","
    TR_KER("stray", 60, 4, 99) ","
    TR_KER("ncclDevKernel_Generic", 70, 50, 98) "]}";

static tlm_report *report_of(tlm_trace *tr, unsigned compat,
                             tlm_tree **tree)
{
    tlm_tree_opts to;
    tlm_tree_opts_init(&to);
    assert_int_equal(tlm_tree_build(tr, &to, tree, NULL), TLM_OK);
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.compat = compat;
    tlm_report *r = NULL;
    tlm_error err;
    tlm_status st = tlm_report_build(*tree, &o, &r, &err);
    if (st != TLM_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, TLM_OK);
    return r;
}

static void test_kernel_tables(void **state)
{
    (void)state;
    tlm_trace *tr = tr_read(small);
    tlm_tree *tree = NULL;
    tlm_report *r = report_of(tr, 0, &tree);
    /* kernel_summary: linked elementwise kernels, the stray kernel, the
     * nccl kernel (unlinked: null parent and category) */
    assert_int_equal(tr_rows(r, "kernel_summary"), 3);
    assert_string_equal(tr_cell(r, "kernel_summary", 0, "Kernel name"),
                        "ncclDevKernel_Generic");
    assert_string_equal(tr_cell(r, "kernel_summary", 0, "Parent cpu_op"), "");
    assert_string_equal(tr_cell(r, "kernel_summary", 1, "Parent cpu_op"),
                        "aten::mul");
    assert_string_equal(tr_cell(r, "kernel_summary", 1, "Parent op category"),
                        "elementwise");
    assert_string_equal(
        tr_cell(r, "kernel_summary", 1, "Kernel duration (\xc2\xb5s)_sum"),
        "7.0");
    /* 7 of 61 us of kernels */
    assert_string_equal(
        tr_cell(r, "kernel_summary", 1, "Percent of kernels time (%)"),
        "11.475409836065573");
    assert_string_equal(tr_cell(r, "kernel_summary", 0, "Kernel category"),
                        "communication");
    assert_string_equal(tr_cell(r, "kernel_summary", 1, "Kernel category"),
                        "elementwise");
    /* short kernels: 1.5, 2.5, 3 (linked) and 4 (stray) */
    assert_int_equal(tr_rows(r, "short_kernel_histogram"), 100);
    assert_string_equal(tr_cell(r, "short_kernel_histogram", 0, "bin_start"),
                        "1.5");
    assert_string_equal(tr_cell(r, "short_kernel_histogram", 99, "bin_end"),
                        "4.0");
    assert_string_equal(tr_cell(r, "short_kernel_histogram", 0, "count"), "1");
    assert_string_equal(tr_cell(r, "short_kernel_histogram", 99, "count"),
                        "1");
    /* corrected: the stray kernel has its own row with empty keys */
    assert_int_equal(tr_rows(r, "short_kernels_summary"), 2);
    assert_string_equal(tr_cell(r, "short_kernels_summary", 0, "Input dims"),
                        "((4, 4), (4, 4))");
    assert_string_equal(
        tr_cell(r, "short_kernels_summary", 0, "Short Kernel count"), "3");
    /* unique args: one group of three, numpy statistics per kernel */
    assert_string_equal(tr_cell(r, "ops_unique_args", 0, "operation_count"),
                        "3");
    assert_string_equal(tr_cell(r, "ops_unique_args", 0, "process_name"),
                        "python3");
    assert_string_equal(tr_cell(r, "ops_unique_args", 0, "process_label"),
                        "Unknown");
    assert_string_equal(
        tr_cell(r, "ops_unique_args", 0, "kernel_details_summary"),
        "[{'name': 'void at::native::elementwise_kernel<4>', 'stream': 7, "
        "'count': 3, 'total_duration_us': 7.0, 'mean_duration_us': "
        "2.3333333333333335, 'median_duration_us': 2.5, "
        "'std_dev_duration_us': 0.6236095644623235, 'min_duration_us': 1.5, "
        "'max_duration_us': 3.0}]");
    assert_string_equal(
        tr_cell(r, "ops_unique_args", 0, "trunc_kernel_details"),
        "[{'name': 'void at::native::elementwise_kernel<4>', 'stream': 7, "
        "'mean_duration_us': 2.33}]");
    assert_string_equal(tr_cell(r, "ops_unique_args", 0,
                             "total_direct_kernel_time_std"),
                        "0.7637626158259733"); /* pandas */
    /* coll_analysis: the nccl kernel lacks metadata: dropped -> no sheet */
    assert_true(tlm_report_table_find(r, "coll_analysis") < 0);
    tlm_report_free(r);
    tlm_tree_free(tree);

    r = report_of(tr, TLM_COMPAT_ALL, &tree);
    assert_int_equal(tr_rows(r, "short_kernels_summary"), 1);
    /* TraceLens's exact columns: no Kernel category */
    assert_int_equal(tlm_report_table_cols(
                         r, (size_t)tlm_report_table_find(r, "kernel_summary")),
                     11);
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
}

static void test_coll(void **state)
{
    (void)state;
    tlm_trace *tr = tr_read(
        "{'traceEvents':["
        TR_KER("gemm", 0, 10, 1) ","
        "{'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel','pid':1,"
        "'tid':1,'ts':0,'dur':1,'args':{'correlation':1}},"
        "{'ph':'X','cat':'kernel','name':'ncclDevKernel_AllReduce','pid':0,"
        "'tid':8,'ts':20,'dur':30,'args':{'correlation':5,'stream':8,"
        "'Collective name':'allreduce','In msg nelems':1024,"
        "'Out msg nelems':1024,'Group size':2,'dtype':'Float',"
        "'In split size':'[]','Out split size':'[]',"
        "'Process Group Name':'0','Process Group Ranks':'[0, 1]'}},"
        "{'ph':'X','cat':'kernel','name':'ncclDevKernel_AllReduce','pid':0,"
        "'tid':8,'ts':60,'dur':50,'args':{'correlation':6,'stream':8,"
        "'Collective name':'allreduce','In msg nelems':1024,"
        "'Out msg nelems':1024,'Group size':2,'dtype':'Float',"
        "'In split size':'[]','Out split size':'[]',"
        "'Process Group Name':'0','Process Group Ranks':'[0, 1]'}}]}");
    tlm_tree *tree = NULL;
    tlm_report *r = report_of(tr, 0, &tree);
    assert_int_equal(tr_rows(r, "coll_analysis"), 1);
    assert_string_equal(tr_cell(r, "coll_analysis", 0, "operation_count"), "2");
    assert_string_equal(tr_cell(r, "coll_analysis", 0, "dur_sum"), "80.0");
    assert_string_equal(
        tr_cell(r, "coll_analysis", 0, "In msg size (MB)_first"),
        "0.00390625");
    assert_string_equal(tr_cell(r, "coll_analysis", 0, "Process Group Ranks"),
                        "[0, 1]");
    assert_string_equal(tr_cell(r, "coll_analysis", 0, "Group size"), "2");
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numpy),
        cmocka_unit_test(test_repr),
        cmocka_unit_test(test_kernel_tables),
        cmocka_unit_test(test_coll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
