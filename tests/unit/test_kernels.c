/*
 * test_kernels.c - kernel-level tables (src/report/kernels.c): the
 * kernel_details summary string, kernel_summary, the short-kernel
 * histogram and summary (with and without the null-key quirk), and
 * coll_analysis.  The numpy statistics and Python reprs they use are
 * tested in test_npstats.c and test_pyrepr.c, the CSV form in
 * test_table.c.
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
    tlm_trace *tr = tt_read_sq(small);
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
    tlm_trace *tr = tt_read_sq(
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
        cmocka_unit_test(test_kernel_tables),
        cmocka_unit_test(test_coll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
