/*
 * test_perf_models_sheets.c - the rows the extension families give in the
 * sheets (addendum A3-A5), from the hand-written traces
 * tests/data/parity_b_{registry,models,columns,nometrics}.json, with the
 * expected values worked out from the spec's formulas:
 *
 *  A3  ops_summary / unified categories: _C::rms_norm is other, category-
 *      only ops (GEMM, InferenceAttention, MoE_aux) without a model, a
 *      Synthetic row named in the category-only table.
 *  A4  GEMM, RMSNorm_fwd, UnaryElementwise, RoPE_fwd,
 *      InferenceAttention_fwd and Normalization rows; unified rows of the
 *      failure modes: TypeError (no annotation sums, upsample .vec) kept
 *      without metrics, NotImplementedError (no tokens) dropped with its
 *      kernels; a Triton op collected as itself.
 *  A5  param columns in order of first appearance ("nan" where a row's
 *      model lacks the key); unified perf columns only when some row has
 *      metrics (compat tracelens_columns), always in the default mode.
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

static tr_fix open_data(const char *name, unsigned compat)
{
    char path[1024];
    const char *src = getenv("TLM_SOURCE_DIR");
    tr_fix f;
    tlm_report_opts o;
    tlm_error err;
    snprintf(path, sizeof path, "%s/tests/data/%s", src ? src : ".", name);
    if (tlm_trace_read_file(path, NULL, &f.tr, &err) != TLM_OK)
        fail_msg("%s: %s", path, err.msg);
    tlm_report_opts_init(&o);
    o.compat = compat;
    f.r = tr_build(f.tr, &o, &f.tree);
    return f;
}

/* Cell (tab, row whose name is nm, col) as a number. */
static double num(const tlm_report *r, const char *tab, const char *nm,
                  const char *col)
{
    size_t i = tr_find_row(r, tab, "name", nm);
    return strtod(tr_cell(r, tab, i, col), NULL);
}

static const char *cell(const tlm_report *r, const char *tab, const char *nm,
                        const char *col)
{
    return tr_cell(r, tab, tr_find_row(r, tab, "name", nm), col);
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 + 1e-9 * fabs(want)))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* MARK: - A3 ------------------------------------------------------------ */

static void test_registry(void **state)
{
    (void)state;
    tr_fix f = open_data("parity_b_registry.json", TLM_COMPAT_ALL);
    const tlm_report *r = f.r;
    assert_string_equal(cell(r, "ops_summary", "_C::rms_norm", "Categories"),
                        "['other']");
    assert_string_equal(
        cell(r, "ops_summary", "_C::fused_add_rms_norm", "Categories"),
        "['other']");
    assert_string_equal(cell(r, "ops_summary", "aiter::rmsnorm", "Categories"),
                        "['RMSNorm']");
    assert_string_equal(
        cell(r, "unified_perf_summary", "aiter::gemm_a8w8_ck", "op category"),
        "GEMM");
    assert_string_equal(cell(r, "unified_perf_summary", "aiter::gemm_a8w8_ck",
                             "has_perf_model"),
                        "False");
    assert_string_equal(cell(r, "unified_perf_summary",
                             "_C_cache_ops::reshape_and_cache_flash",
                             "op category"),
                        "InferenceAttention");
    assert_string_equal(cell(r, "unified_perf_summary",
                             "aiter::fused_dynamic_mxfp4_quant_moe_sort_hip",
                             "op category"),
                        "MoE_aux");
    assert_string_equal(
        cell(r, "unified_perf_summary",
             "hipModuleLaunchKernel->kv_indices_generate_kernel (Synthetic Op)",
             "op category"),
        "InferenceAttention");
    /* aiter::rmsnorm (32, 2880): (E/C)(2C+2) + 2E; 2E*2 + C*2 bytes */
    near(num(r, "RMSNorm_fwd", "aiter::rmsnorm", "GFLOPS_first"), 368704e-9);
    near(num(r, "RMSNorm_fwd", "aiter::rmsnorm", "Data Moved (MB)_first"),
         374400.0 / 1048576.0);
    assert_int_equal(tr_rows(r, "GEMM"), 0);
    tr_close(&f);
}

/* MARK: - A4 ------------------------------------------------------------ */

static void test_model_rows(void **state)
{
    (void)state;
    tr_fix f = open_data("parity_b_models.json", TLM_COMPAT_ALL);
    const tlm_report *r = f.r;
    static const struct {
        const char *tab, *name;
        double gflops, mb, kt;
        const char *spec;
    } t[] = {
        {"GEMM", "aiter::gemm_a16w16", 3092.37645312, 1032.0, 1000.0,
         "matrix_bf16"},
        {"RMSNorm_fwd", "aiter::rmsnorm", 0.25264128, 240.000244140625, 100.0,
         "vector_bf16"},
        {"RMSNorm_fwd", "aiter::add_rmsnorm", 0.31460352, 480.0078125, 200.0,
         "vector_bf16"},
        {"UnaryElementwise", "sgl_kernel::silu_and_mul", 0.9437184, 1080.0,
         50.0, "vector_bf16"},
        {"UnaryElementwise", "aten::upsample_nearest1d", 9.8304e-05,
         0.19921875, 2.0, "vector_bf16"},
        {"RoPE_fwd", "sgl_kernel::rotary_embedding", 0.2359296, 300.0, 20.0,
         "vector_bf16"},
        {"InferenceAttention_fwd", "sglang::store_cache", 0.0, 120.0, 10.0,
         "vector_bf16"},
        {"InferenceAttention_fwd", "vllm::unified_attention_with_output",
         65.010180096, 211.826171875, 40.0, "matrix_bf16"},
        {"Normalization", "aiter::_groupnorm_run", 0.671089408,
         512.00146484375, 25.0, "vector_bf16"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        near(num(r, t[i].tab, t[i].name, "GFLOPS_first"), t[i].gflops);
        near(num(r, t[i].tab, t[i].name, "Data Moved (MB)_first"), t[i].mb);
        near(num(r, t[i].tab, t[i].name, "Kernel Time (\xc2\xb5s)_sum"),
             t[i].kt);
        assert_string_equal(cell(r, t[i].tab, t[i].name, "Compute Spec"),
                            t[i].spec);
        /* the same numbers in unified_perf_summary */
        near(num(r, "unified_perf_summary", t[i].name, "GFLOPS"),
             t[i].gflops);
    }
    near(num(r, "UnaryElementwise", "sgl_kernel::silu_and_mul",
             "FLOPS/Byte_first"),
         0.8333333333333334);
    /* TypeError rows: not in the sheets, kept in unified without metrics */
    assert_int_equal(tr_rows(r, "InferenceAttention_fwd"), 2);
    size_t n = tr_rows(r, "UnaryElementwise");
    assert_int_equal(n, 2);
    size_t u = tr_find_row(r, "unified_perf_summary", "name",
                           "aiter::mha_batch_prefill");
    assert_string_equal(tr_cell(r, "unified_perf_summary", u, "GFLOPS"), "");
    assert_string_equal(
        tr_cell(r, "unified_perf_summary", u, "has_perf_model"), "True");
    assert_string_equal(tr_cell(r, "unified_perf_summary", u, "perf_params"),
                        "");
    near(strtod(tr_cell(r, "unified_perf_summary", u,
                        "Kernel Time (\xc2\xb5s)_sum"),
                NULL),
         30.0);
    /* the outer upsample_nearest2d.vec (failing model) hides the inner one */
    u = tr_find_row(r, "unified_perf_summary", "name",
                    "aten::upsample_nearest2d");
    assert_string_equal(tr_cell(r, "unified_perf_summary", u, "GFLOPS"), "");
    assert_string_equal(
        tr_cell(r, "unified_perf_summary", u, "operation_count"), "1");
    /* vLLM: one row with metrics (40 us), one without (8 us, native
     * annotation); the op with zero tokens is dropped with its kernel */
    size_t nu = tr_rows(r, "unified_perf_summary"), nv = 0;
    for (size_t i = 0; i < nu; i++) {
        const char *nm = tr_cell(r, "unified_perf_summary", i, "name");
        assert_null(strstr(nm, "dropped_attention_kernel"));
        if (!strcmp(nm, "vllm::unified_attention_with_output"))
            nv++;
    }
    assert_int_equal(nv, 2);
    /* Triton op launched through cuLaunchKernel: its own row, category
     * triton, lower-cased c10 precision */
    const char *tn = "triton_poi_fused__unsafe_view_mul_silu_2";
    assert_string_equal(cell(r, "unified_perf_summary", tn, "op category"),
                        "triton");
    assert_string_equal(cell(r, "unified_perf_summary", tn, "Compute Spec"),
                        "vector_bfloat16");
    near(num(r, "unified_perf_summary", tn, "GFLOPS"), 1.34217728);
    near(num(r, "unified_perf_summary", tn, "Data Moved (MB)"), 1536.0);
    assert_string_equal(cell(r, "unified_perf_summary", tn, "perf_params"),
                        "{'fused_ops': 'aten._unsafe_view, aten.mul, "
                        "aten.silu', 'xnumel': 268435456, 'rnumel': 1}");
    tr_close(&f);
}

/* MARK: - A5 ------------------------------------------------------------ */

static void check_header(const tlm_report *r, const char *tab,
                         const char *const *want, size_t n)
{
    long t = tlm_report_table_find(r, tab);
    assert_true(t >= 0);
    for (size_t c = 0; c < n; c++)
        assert_string_equal(tlm_report_table_colname(r, (size_t)t, c),
                            want[c]);
}

static void test_columns(void **state)
{
    (void)state;
    tr_fix f = open_data("parity_b_columns.json", TLM_COMPAT_ALL);
    const tlm_report *r = f.r;
    static const char *const gemm[] = {
        "name",           "param: M",         "param: N",
        "param: K",       "param: bias",      "param: dtype_A_B",
        "param: B",       "param: transpose", "param: stride_A",
        "param: stride_B", "GFLOPS_first"};
    check_header(r, "GEMM", gemm, sizeof gemm / sizeof gemm[0]);
    const char *v = "vllm::rocm_unquantized_gemm";
    assert_string_equal(cell(r, "GEMM", v, "param: stride_A"), "nan");
    assert_string_equal(cell(r, "GEMM", v, "param: transpose"),
                        "(True, False)");
    assert_string_equal(cell(r, "GEMM", v, "param: dtype_A_B"),
                        "('c10::BFloat16', 'c10::BFloat16', '')");
    assert_string_equal(cell(r, "GEMM", "aten::mm", "param: transpose"),
                        "nan");
    near(num(r, "GEMM", v, "GFLOPS_first"), 37.06454016);
    near(num(r, "GEMM", v, "Data Moved (MB)_first"), 1117.05859375);
    /* unified: the modelled parent replaces its aten::mm */
    assert_int_equal(tr_rows(r, "unified_perf_summary"), 3);
    static const char *const unary[] = {
        "name",
        "param: op_shape",
        "param: dtype_in_out",
        "param: stride_input",
        "param: stride_output",
        "param: input_shape",
        "param: output_shape",
        "GFLOPS_first"};
    check_header(r, "UnaryElementwise", unary, sizeof unary / sizeof unary[0]);
    assert_string_equal(
        cell(r, "UnaryElementwise", "aten::copy_", "param: input_shape"),
        "nan");
    assert_string_equal(cell(r, "UnaryElementwise", "aten::upsample_nearest1d",
                             "param: output_shape"),
                        "(1, 768, 128)");
    tr_close(&f);
}

static void test_unified_without_metrics(void **state)
{
    (void)state;
    tr_fix f = open_data("parity_b_nometrics.json", TLM_COMPAT_COLUMNS);
    long t = tlm_report_table_find(f.r, "unified_perf_summary");
    assert_true(t >= 0);
    size_t nc = tlm_report_table_cols(f.r, (size_t)t);
    assert_int_equal(nc, 29);
    static const char *const tail[] = {"Kernel Time (\xc2\xb5s)_mean",
                                       "Kernel Time (\xc2\xb5s)_std",
                                       "Kernel Time (\xc2\xb5s)_sum",
                                       "duration_us_median"};
    for (size_t c = 0; c < 4; c++)
        assert_string_equal(tlm_report_table_colname(f.r, (size_t)t, 14 + c),
                            tail[c]);
    for (size_t c = 0; c < nc; c++) {
        const char *nm = tlm_report_table_colname(f.r, (size_t)t, c);
        assert_null(strstr(nm, "GFLOPS"));
        assert_null(strstr(nm, "TB/s"));
        assert_null(strstr(nm, "Compute Spec"));
    }
    assert_string_equal(
        cell(f.r, "unified_perf_summary", "_C::rms_norm", "op category"),
        "other");
    near(num(f.r, "unified_perf_summary", "_C::rms_norm",
             "Kernel Time (\xc2\xb5s)_sum"),
         5.0);
    /* default mode: the stable header keeps the perf columns */
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    tr_rebuild(&f, &o);
    t = tlm_report_table_find(f.r, "unified_perf_summary");
    assert_int_equal(tlm_report_table_cols(f.r, (size_t)t), 43);
    assert_string_equal(cell(f.r, "unified_perf_summary", "aten::relu",
                             "GFLOPS"),
                        "");
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_model_rows),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_unified_without_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
