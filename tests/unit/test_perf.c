/*
 * test_perf.c - src/perf/perf.c: the op registry (sorted, every entry
 * found), sheet and model category per op, op and kernel categories,
 * dtype tables, the params of a result (lookup, repr, truncation), the
 * float repr wrapper, and the derived metrics and roofline.  The models
 * themselves: test_perf_models.c.
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

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"

/* ------------------------------------------------------------------ */
/* MARK: - Params of a result                                         */
/* ------------------------------------------------------------------ */

static void test_param_lookup_and_repr(void **state)
{
    tlm_perf_args a;
    tlm_perf_result r;
    const tlm_perf_param *p;
    char small[16];
    (void)state;
    memset(&a, 0, sizeof(a));
    a.name = "aten::convolution";
    a.input_dims = "[[1,3,8,8],[4,3,3,3]]";
    a.input_types = "[\"float\",\"float\"]";
    a.concrete_inputs = "[\"\",\"\",\"\",\"\",\"\",\"\",\"False\",\"\",\"1\"]";
    assert_int_equal(tlm_perf_compute(&a, 0, &r, NULL), TLM_OK);
    p = tlm_perf_result_param(&r, "convNd");
    assert_non_null(p);
    assert_string_equal(p->value, "conv2d"); /* CSV cell: unquoted */
    assert_int_equal(p->is_str, 1);
    p = tlm_perf_result_param(&r, "input_stride");
    assert_non_null(p);
    assert_int_equal(p->is_none, 1);
    assert_string_equal(p->value, "None");
    assert_null(tlm_perf_result_param(&r, "nope"));
    assert_int_equal(tlm_perf_params_repr(&r, small, sizeof(small)),
                     TLM_ELIMIT);
    assert_int_equal(strlen(small), sizeof(small) - 1);
    assert_int_equal(r.sheet, TLM_PERF_SHEET_CONV_FWD);
    /* bwd pass of a fwd conv: computed (unified uses it) but no sheet */
    assert_int_equal(tlm_perf_compute(&a, 1, &r, NULL), TLM_OK);
    assert_int_equal(r.sheet, TLM_PERF_SHEET_NONE);
    assert_true(r.flops > 0.0);
    /* NULL arguments */
    assert_int_equal(tlm_perf_compute(NULL, 0, &r, NULL), TLM_EINVAL);
    assert_int_equal(tlm_perf_compute(&a, 0, NULL, NULL), TLM_EINVAL);
}

/* ------------------------------------------------------------------ */
/* MARK: - Sheets, categories                                         */
/* ------------------------------------------------------------------ */

static void test_registry_sorted(void **state)
{
    size_t n, i;
    const tlm_perf_op_entry *t = tlm_perf_op_table(&n);
    (void)state;
    assert_true(n > 100);
    for (i = 1; i < n; i++) {
        if (strcmp(t[i - 1].name, t[i].name) >= 0) {
            fail_msg("op table not sorted at %s / %s", t[i - 1].name,
                     t[i].name);
        }
    }
    for (i = 0; i < n; i++) {
        assert_ptr_equal(tlm_perf_op_find(t[i].name), &t[i]);
    }
    assert_null(tlm_perf_op_find("aten::nope"));
    assert_null(tlm_perf_op_find(NULL));
}

static void test_sheets(void **state)
{
    static const struct {
        const char *name;
        tlm_perf_sheet fwd, bwd;
        const char *cat_fwd, *cat_bwd;
    } t[] = {
        {"aten::mm", TLM_PERF_SHEET_GEMM, TLM_PERF_SHEET_NONE, "GEMM", NULL},
        {"aten::_scaled_dot_product_flash_attention", TLM_PERF_SHEET_SDPA_FWD,
         TLM_PERF_SHEET_SDPA_BWD, "SDPA_fwd", "SDPA_bwd"},
        {"flash_attn::_flash_attn_backward", TLM_PERF_SHEET_SDPA_FWD,
         TLM_PERF_SHEET_SDPA_BWD, "SDPA_bwd", "SDPA_bwd"},
        {"flash_attn::_flash_attn_varlen_backward", TLM_PERF_SHEET_SDPA_BWD,
         TLM_PERF_SHEET_SDPA_BWD, "SDPA_bwd", "SDPA_bwd"},
        {"vllm::unified_attention_with_output",
         TLM_PERF_SHEET_INFATTN_FWD, TLM_PERF_SHEET_NONE,
         "InferenceAttention", NULL},
        {"aten::convolution", TLM_PERF_SHEET_CONV_FWD, TLM_PERF_SHEET_NONE,
         "CONV_fwd", "CONV_bwd"},
        {"aten::convolution_backward", TLM_PERF_SHEET_CONV_BWD,
         TLM_PERF_SHEET_CONV_BWD, "CONV_bwd", "CONV_bwd"},
        {"aten::add", TLM_PERF_SHEET_BINARY, TLM_PERF_SHEET_NONE,
         "elementwise", NULL},
        {"aten::copy_", TLM_PERF_SHEET_UNARY, TLM_PERF_SHEET_NONE,
         "elementwise", NULL},
        {"aten::native_layer_norm", TLM_PERF_SHEET_NORM, TLM_PERF_SHEET_NONE,
         "NORM_fwd", "NORM_bwd"},
        {"aten::native_batch_norm_backward", TLM_PERF_SHEET_NORM,
         TLM_PERF_SHEET_NONE, "NORM_bwd", "NORM_bwd"},
        {"aten::sum", TLM_PERF_SHEET_REDUCE_FWD, TLM_PERF_SHEET_REDUCE_BWD,
         "reduce", NULL},
        {"aten::linear", TLM_PERF_SHEET_NONE, TLM_PERF_SHEET_NONE, NULL,
         NULL},
        {"aten::miopen_convolution", TLM_PERF_SHEET_NONE, TLM_PERF_SHEET_NONE,
         NULL, NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const char *c0 = tlm_perf_model_category(t[i].name, 0);
        const char *c1 = tlm_perf_model_category(t[i].name, 1);
        assert_int_equal(tlm_perf_sheet_for(t[i].name, 0), t[i].fwd);
        assert_int_equal(tlm_perf_sheet_for(t[i].name, 1), t[i].bwd);
        if (t[i].cat_fwd == NULL) {
            assert_null(c0);
        } else {
            assert_non_null(c0);
            assert_string_equal(c0, t[i].cat_fwd);
        }
        if (t[i].cat_bwd == NULL) {
            assert_null(c1);
        } else {
            assert_non_null(c1);
            assert_string_equal(c1, t[i].cat_bwd);
        }
        assert_int_equal(tlm_perf_has_model(t[i].name),
                         t[i].fwd != TLM_PERF_SHEET_NONE);
    }
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_GEMM), "GEMM");
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_REDUCE_BWD),
                        "Reduce_bwd");
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_BINARY),
                        "BinaryElementwise");
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_NONE), "");
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_COUNT), "");
}

static void test_op_category(void **state)
{
    static const struct {
        const char *name, *kernel, *want;
    } t[] = {
        {"aten::mm", NULL, "GEMM"},
        {"aten::addmm", "Cijk_Ailk", "GEMM"},
        {"aten::convolution", NULL, "CONV_fwd"},
        {"aten::cudnn_convolution", NULL, "CONV_fwd"},
        {"aten::convolution_backward", NULL, "CONV_bwd"},
        {"aten::_scaled_dot_product_flash_attention", NULL, "SDPA_fwd"},
        {"aten::_scaled_dot_product_flash_attention_backward", NULL,
         "SDPA_bwd"},
        {"aten::_efficient_attention_forward", NULL, "SDPA_fwd"},
        {"flash_attn::_flash_attn_backward", NULL, "SDPA_bwd"},
        {"aten::native_layer_norm", NULL, "NORM_fwd"},
        {"aten::native_batch_norm_backward", NULL, "NORM_bwd"},
        {"aten::_fused_rms_norm_backward", NULL, "NORM_bwd"},
        {"aten::sum", NULL, "reduce"},
        {"aten::mul", NULL, "elementwise"},
        {"aten::upsample_nearest2d", NULL, "elementwise"},
        {"primus_turbo::grouped_gemm", NULL, "GroupedGEMM_fwd"},
        {"MoEDispatchBackward", NULL, "MoE_comm_bwd"},
        {"triton_poi_fused_add_0", NULL, "triton"},
        {"tritonsomething", NULL, "triton"},
        {"record_param_comms", NULL, "record_param_comms"},
        {"aten::fill_",
         "void at::native::vectorized_elementwise_kernel<4, "
         "at::native::FillFunctor<float> >",
         "elementwise"},
        {"aten::all",
         "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool>>",
         "reduce"},
        {"aten::_foreach_add_",
         "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<>",
         "multi_tensor_apply"},
        {"aten::arange",
         "void (anonymous namespace)::elementwise_kernel_with_index<int>",
         "other"},
        {"aten::_flash_attention_forward",
         "void pytorch_flash::flash_fwd_kernel<>", "other"},
        {"aten::linear", NULL, "other"},
        {"aten::index", "void at::native::indexSelectLargeIndex<>", "other"},
        {NULL, NULL, "other"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const char *got = tlm_op_category(t[i].name, t[i].kernel);
        if (strcmp(got, t[i].want) != 0) {
            fail_msg("%s: got %s want %s", t[i].name ? t[i].name : "(null)",
                     got, t[i].want);
        }
    }
}

static void test_kernel_category(void **state)
{
    static const struct {
        const char *k;
        tlm_kernel_category want;
    } t[] = {
        {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
         TLM_KCAT_COMMUNICATION},
        {"ncclKernel_AllReduce_RING_LL_Sum_float", TLM_KCAT_COMMUNICATION},
        {"void vllm::cross_device_reduce_1stage<>", TLM_KCAT_COMMUNICATION},
        {"Memcpy DtoD (Device -> Device)", TLM_KCAT_MEMCPY},
        {"MEMORY_COPY_DEVICE_TO_HOST", TLM_KCAT_MEMCPY},
        {"__amd_rocclr_copyBuffer.kd", TLM_KCAT_MEMCPY},
        {"Memset (Device)", TLM_KCAT_MEMSET},
        {"__amd_rocclr_fillBufferAligned.kd", TLM_KCAT_MEMSET},
        {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_"
         "kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>",
         TLM_KCAT_ATTENTION},
        {"fmha_fwd_d128_bf16_batch", TLM_KCAT_ATTENTION},
        {"kernel_moe_gemm<...>", TLM_KCAT_MOE},
        {"void at::native::batch_norm_collect_statistics_kernel<>",
         TLM_KCAT_NORM},
        {"void at::native::(anonymous namespace)::unrolled_elementwise_"
         "kernel_for_multi_outputs<3, batch_norm_update_stats_and_invert>",
         TLM_KCAT_NORM},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_"
         "kernel<>",
         TLM_KCAT_NORM},
        {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32", TLM_KCAT_CONV},
        {"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_"
         "fwd_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3",
         TLM_KCAT_CONV},
        {"sm90_xmma_fprop_implicit_gemm_bf16", TLM_KCAT_CONV},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
         TLM_KCAT_GEMM},
        {"Cijk_Ailk_Bljk_BBS_BH_MT32x32x64_MI16x16x16x1", TLM_KCAT_GEMM},
        {"nvjet_tst_128x64_64x4_1x2_h_bz_coopA_TNT", TLM_KCAT_GEMM},
        {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>",
         TLM_KCAT_GEMM},
        {"_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_"
         "weight",
         TLM_KCAT_GEMM},
        {"void (anonymous namespace)::softmax_warp_forward<>",
         TLM_KCAT_SOFTMAX},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
         "at::native::MeanOps<float, float, float, float>>>",
         TLM_KCAT_REDUCE},
        {"void at::native::(anonymous namespace)::max_pool_forward_nchw<>",
         TLM_KCAT_REDUCE},
        {"triton_red_fused_mean_0", TLM_KCAT_REDUCE},
        {"dynamic_per_group_scaled_quant_kernel", TLM_KCAT_QUANT},
        {"void at::native::vectorized_elementwise_kernel<4, "
         "at::native::silu_kernel>",
         TLM_KCAT_ELEMENTWISE},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<>",
         TLM_KCAT_ELEMENTWISE},
        {"batched_transpose_16x32_half", TLM_KCAT_ELEMENTWISE},
        {"SubTensorOpWithScalar1d", TLM_KCAT_ELEMENTWISE},
        {"triton_poi_fused_add_mul_0", TLM_KCAT_ELEMENTWISE},
        {"some_unknown_kernel", TLM_KCAT_OTHER},
        {NULL, TLM_KCAT_OTHER},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        tlm_kernel_category got = tlm_kernel_category_of(t[i].k);
        if (got != t[i].want) {
            fail_msg("%s: got %s want %s", t[i].k ? t[i].k : "(null)",
                     tlm_kernel_category_str(got),
                     tlm_kernel_category_str(t[i].want));
        }
    }
    assert_string_equal(tlm_kernel_category_str(TLM_KCAT_GEMM), "GEMM");
    assert_string_equal(tlm_kernel_category_str(TLM_KCAT_COUNT), "other");
    assert_true(tlm_kernel_is_communication("RCCL_all_reduce"));
    assert_false(tlm_kernel_is_communication("Cijk_Ailk"));
    assert_false(tlm_kernel_is_communication(NULL));
}

static void test_dtypes(void **state)
{
    (void)state;
    assert_int_equal(tlm_perf_dtype_bpe("c10::BFloat16"), 2);
    assert_int_equal(tlm_perf_dtype_bpe("C10::bfloat16"), 2);
    assert_int_equal(tlm_perf_dtype_bpe("Scalar"), 4);
    assert_int_equal(tlm_perf_dtype_bpe("long int"), 8);
    assert_int_equal(tlm_perf_dtype_bpe("c10::Float8_e5m2"), 1);
    assert_int_equal(tlm_perf_dtype_bpe("ScalarList"), 0);
    assert_int_equal(tlm_perf_dtype_bpe(""), 0);
    assert_int_equal(tlm_perf_dtype_bpe(NULL), 0);
    assert_int_equal(tlm_perf_dtype_bpe("mxfp4"), 0);
    assert_string_equal(tlm_perf_dtype_precision("float"), "fp32");
    assert_string_equal(tlm_perf_dtype_precision("c10::Half"), "fp16");
    assert_string_equal(tlm_perf_dtype_precision("c10::Float8_e4m3fnuz"),
                        "fp8");
    assert_string_equal(tlm_perf_dtype_precision("unsigned char"), "fp8");
    assert_string_equal(tlm_perf_dtype_precision("mxfp4"), "fp4");
    assert_null(tlm_perf_dtype_precision("c10::Float8_e5m2"));
    assert_null(tlm_perf_dtype_precision("long int"));
    assert_null(tlm_perf_dtype_precision("Scalar"));
}

/* The C API's float repr is tlm_py_float_repr (its cases: test_pyrepr.c)
 * behind a NULL / zero-size guard, returning buf. */
static void test_float_repr(void **state)
{
    char buf[8];
    (void)state;
    assert_ptr_equal(tlm_perf_float_repr(0.1, buf, sizeof(buf)), buf);
    assert_string_equal(buf, "0.1");
    assert_ptr_equal(tlm_perf_float_repr(123456789.0, buf, sizeof(buf)),
                     buf);
    assert_string_equal(buf, "1234567");
    buf[0] = 'x';
    assert_ptr_equal(tlm_perf_float_repr(0.1, buf, 0), buf);
    assert_int_equal(buf[0], 'x');
    assert_null(tlm_perf_float_repr(0.1, NULL, 8));
}

/* ------------------------------------------------------------------ */
/* MARK: - Metrics and roofline                                       */
/* ------------------------------------------------------------------ */

static void test_metrics(void **state)
{
    tlm_perf_metrics m;
    const tlm_gpu_arch *h100 = tlm_gpu_arch_lookup("H100");
    double F = 51581550592.0, B = 74457088.0, T = 84.4844258626302;
    double cu, mu;
    (void)state;
    assert_non_null(h100);
    tlm_perf_metrics_from(F, 1, B, "matrix_bf16", T, NULL, &m);
    assert_true(m.gflops == F / 1e9);
    assert_true(fabs(m.data_moved_mb - 71.0078125) == 0.0);
    assert_true(fabs(m.flops_per_byte - 692.7688414567059) < 1e-9);
    assert_true(m.tflops_s == (F / 1e9 / 1e3) / (T / 1e6));
    assert_true(fabs(m.tflops_s - 610.5450805320078) < 1e-9);
    assert_true(m.tb_s == (B / 1e12) / (T / 1e6));
    assert_true(isnan(m.roofline_time_us));
    assert_int_equal(m.bound, TLM_ROOFLINE_NONE);
    assert_true(isnan(m.pct_roofline));
    assert_true(isnan(m.attainable_tflops));

    tlm_perf_metrics_from(F, 1, B, "matrix_bf16", T, h100, &m);
    cu = F / 1e9 * 1e9 / (989.4 * 1e12) * 1e6;
    mu = B / (3350.0 * 1e9) * 1e6;
    assert_true(m.roofline_time_us == cu);
    assert_true(cu > mu);
    assert_int_equal(m.bound, TLM_ROOFLINE_COMPUTE_BOUND);
    assert_string_equal(tlm_roofline_bound_str(m.bound), "COMPUTE_BOUND");
    assert_true(m.pct_roofline == cu / T * 100.0);
    assert_true(m.peak_tflops == 989.4);
    assert_true(m.attainable_tflops == 989.4);
    assert_true(fabs(m.ridge_flops_per_byte - 989.4e12 / 3350e9) < 1e-9);

    /* memory-bound elementwise op on MI300X-MAF */
    tlm_perf_metrics_from(9158656.0, 1, 73300000.0, "vector_fp32", 30.0,
                          tlm_gpu_arch_lookup("mi300x-maf"), &m);
    assert_int_equal(m.bound, TLM_ROOFLINE_MEMORY_BOUND);
    assert_string_equal(tlm_roofline_bound_str(m.bound), "MEMORY_BOUND");
    assert_true(m.roofline_time_us == 73300000.0 / (5300.0 * 1e9) * 1e6);
    assert_true(fabs(m.attainable_tflops -
                     9158656.0 / 73300000.0 * 5300e9 / 1e12) < 1e-12);

    /* zero time, no bytes, no spec */
    tlm_perf_metrics_from(100.0, 0, 0.0, "", 0.0, h100, &m);
    assert_true(isnan(m.tflops_s));
    assert_true(isnan(m.tb_s));
    assert_true(isnan(m.data_moved_mb));
    assert_true(isnan(m.flops_per_byte));
    assert_true(isnan(m.roofline_time_us));
    assert_int_equal(m.bound, TLM_ROOFLINE_NONE);
    assert_string_equal(tlm_roofline_bound_str(m.bound), "");
    /* bytes == 0: FLOPS/Byte NaN */
    tlm_perf_metrics_from(100.0, 1, 0.0, "vector_fp32", 1.0, NULL, &m);
    assert_true(isnan(m.flops_per_byte));
    assert_true(m.tb_s == 0.0);
    /* zero flops: no roofline (GFLOPS must be > 0) */
    tlm_perf_metrics_from(0.0, 1, 64.0, "vector_fp32", 1.0, h100, &m);
    assert_true(isnan(m.roofline_time_us));
    /* zero time with an arch: roofline time but NaN percent */
    tlm_perf_metrics_from(F, 1, B, "matrix_bf16", 0.0, h100, &m);
    assert_false(isnan(m.roofline_time_us));
    assert_true(isnan(m.pct_roofline));
    /* via a result */
    {
        tlm_perf_result r;
        memset(&r, 0, sizeof(r));
        r.flops = F;
        r.has_bytes = 1;
        r.bytes = B;
        snprintf(r.compute_spec, sizeof(r.compute_spec), "matrix_fp8");
        tlm_perf_metrics_compute(&r, T, h100, &m);
        assert_true(m.peak_tflops == 1978.9);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_param_lookup_and_repr),
        cmocka_unit_test(test_registry_sorted),
        cmocka_unit_test(test_sheets),
        cmocka_unit_test(test_op_category),
        cmocka_unit_test(test_kernel_category),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_float_repr),
        cmocka_unit_test(test_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
