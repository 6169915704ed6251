/*
 * test_sheets.c - the perf-model sheets (src/report/sheets.c): the GEMM
 * row of a known aten::addmm (parameters, FLOPs, bytes, roofline against
 * the H100) and of two aten::mm of one shape grouped into one row (the
 * per-group statistics), and the option that turns the sheets off.
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

/* One row's expected text, column by column. */
typedef struct want_cell {
    const char *col, *text;
} want_cell;

static void row_is(const tlm_report *r, const char *tab, size_t row,
                   const want_cell *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(tr_cell(r, tab, row, w[i].col), w[i].text))
            fail_msg("%s row %zu %s: '%s', expected '%s'", tab, row,
                     w[i].col, tr_cell(r, tab, row, w[i].col), w[i].text);
}

/* addmm M=8 K=32 N=16 in bf16 with bias, 20 us of kernel: 2*8*16*32 +
 * 8*16 = 8320 FLOPs; (8*32 + 32*16 + 8*16 + 16) * 2 = 1824 bytes
 * (0.001739501953125 MiB); 1824 B / 20 us = 9.12e-05 TB/s; against the
 * H100's 3350 GB/s the roofline time is 1824 / 3.35e9 us. */
static void test_gemm_addmm(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), "H100");
    const tlm_report *r = f.r;
    assert_int_equal(tr_rows(r, "GEMM"), 1);
    static const want_cell w[] = {
        {"name", "aten::addmm"},
        {"param: M", "8"},
        {"param: N", "16"},
        {"param: K", "32"},
        {"param: bias", "True"},
        {"param: stride_A", "(32, 1)"},
        {"param: stride_B", "(16, 1)"},
        {"param: dtype_A_B", "('c10::BFloat16', 'c10::BFloat16')"},
        {"param: B", "1"},
        {"GFLOPS_first", "8.32e-06"},
        {"Data Moved (MB)_first", "0.001739501953125"},
        {"FLOPS/Byte_first", "4.56140350877193"},
        {"TB/s_mean", "9.12e-05"},
        {"TB/s_std", ""},
        {"TFLOPS/s_max", "0.0004159999999999999"},
        {"Compute Spec", "matrix_bf16"},
        {"Roofline Time (\xc2\xb5s)_first", "0.0005444776119402985"},
        {"Roofline Bound_first", "MEMORY_BOUND"},
        {"Pct Roofline_mean", "0.0027223880597014925"},
        {"kernel_details__summarize_kernel_stats",
         "[{'name': 'sm90_gemm', 'stream': 7, 'count': 1, "
         "'total_duration_us': 20.0, 'mean_duration_us': 20.0, "
         "'median_duration_us': 20.0, 'std_dev_duration_us': 0.0, "
         "'min_duration_us': 20.0, 'max_duration_us': 20.0}]"},
        {"Input Dims_first", "[[16], [8, 32], [32, 16]]"},
        {"Input Strides_first", "[[1], [32, 1], [16, 1]]"},
        {"Concrete Inputs_first", "['', '', '']"},
        {"Kernel Time (\xc2\xb5s)_sum", "20.0"},
        {"name_count", "1"},
        {"UID_first", "1"}};
    row_is(r, "GEMM", 0, w, sizeof w / sizeof w[0]);
    long g = tlm_report_table_find(r, "GEMM");
    assert_int_equal(tlm_report_table_cols(r, (size_t)g), 47);
    tr_close(&f);
}

#define MM(ts, corr, kts, kdur)                                           \
    "{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':1,'tid':1,'ts':"    \
    #ts ",'dur':40,'args':{'Input Dims':[[64,128],[128,32]],"             \
    "'Input type':['float','float'],'Input Strides':[[128,1],[32,1]],"    \
    "'Concrete Inputs':['','']}}," TR_RT("cudaLaunchKernel", ts, corr)    \
    "," TR_KER("sm80_sgemm", kts, kdur, corr)

/* Two fp32 mm of 64x128 @ 128x32 (524288 FLOPs, 57344 bytes), 10 and
 * 30 us: one row; kernel statistics over the two (std: sample). */
static void test_gemm_mm_grouped(void **state)
{
    (void)state;
    tr_fix f = tr_open("{'traceEvents':[" MM(0, 1, 100, 10) ","
                       MM(50, 2, 200, 30) "]}",
                       "H100");
    assert_int_equal(tr_rows(f.r, "GEMM"), 1);
    static const want_cell w[] = {
        {"param: M", "64"},
        {"param: N", "32"},
        {"param: K", "128"},
        {"param: bias", "False"},
        {"param: dtype_A_B", "('float', 'float')"},
        {"GFLOPS_first", "0.000524288"},
        {"Data Moved (MB)_first", "0.0546875"},
        {"FLOPS/Byte_first", "9.142857142857142"},
        {"TB/s_min", "0.0019114666666666667"},
        {"TB/s_max", "0.0057344"},
        {"TFLOPS/s_max", "0.0524288"},
        {"Compute Spec", "matrix_fp32"},
        {"Roofline Time (\xc2\xb5s)_first", "0.017117611940298507"},
        {"Pct Roofline_max", "0.17117611940298508"},
        {"Kernel Time (\xc2\xb5s)_mean", "20.0"},
        {"Kernel Time (\xc2\xb5s)_median", "20.0"},
        {"Kernel Time (\xc2\xb5s)_std", "14.142135623730951"},
        {"Kernel Time (\xc2\xb5s)_min", "10.0"},
        {"Kernel Time (\xc2\xb5s)_max", "30.0"},
        {"Kernel Time (\xc2\xb5s)_sum", "40.0"},
        {"name_count", "2"},
        {"UID_first", "0"}};
    row_is(f.r, "GEMM", 0, w, sizeof w / sizeof w[0]);
    /* perf_sheets off: no GEMM sheet, the others stay */
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.perf_sheets = 0;
    tr_rebuild(&f, &o);
    assert_int_equal(tlm_report_table_find(f.r, "GEMM"), -1);
    assert_true(tlm_report_table_find(f.r, "unified_perf_summary") >= 0);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_addmm),
        cmocka_unit_test(test_gemm_mm_grouped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
