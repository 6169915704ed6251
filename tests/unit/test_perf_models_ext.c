/*
 * test_perf_models_ext.c - the op families of newer TraceLens (addendum
 * A3/A4; src/perf/perf_models_ext.c, perf_infattn.c, perf_triton.c and
 * the registry in perf.c).
 *
 * 1. Registry: categories (incl. _C::rms_norm = other, category-only and
 *    Synthetic names), sheets and the sheet order of A5.
 * 2. Models: every check value the addendum gives (FLOPs, bytes, Compute
 *    Spec, perf_params), and each failure mode with the status that
 *    decides what the sheets do (TypeError -> kept without metrics,
 *    NotImplementedError -> dropped).
 * 3. Triton: can_model, the op segmentation, the byte and precision
 *    quirks; KNOWN_OPS sorted and complete.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"

#define BF "\"c10::BFloat16\""

/* MARK: - registry ------------------------------------------------------ */

static void test_categories(void **state)
{
    static const char *const t[][2] = {
        {"_C::rms_norm", "other"},
        {"_C::fused_add_rms_norm", "other"},
        {"_C::rotary_embedding", "other"},
        {"aiter::rmsnorm", "RMSNorm"},
        {"aiter::add_rmsnorm", "RMSNorm"},
        {"aiter::gemm_a16w16", "GEMM"},
        {"vllm::rocm_unquantized_gemm", "GEMM"},
        {"aiter::gemm_a8w8_blockscale_ck", "GEMM"},
        {"vllm::unified_attention_with_output", "InferenceAttention"},
        {"aiter::mha_batch_prefill", "InferenceAttention"},
        {"sglang::store_cache", "InferenceAttention"},
        {"_C_cache_ops::reshape_and_cache_flash", "InferenceAttention"},
        {"hipModuleLaunchKernel->kv_indices_generate_kernel (Synthetic Op)",
         "InferenceAttention"},
        {"aiter::_groupnorm_run", "NORM_fwd"},
        {"sgl_kernel::rotary_embedding", "RoPE_fwd"},
        {"sgl_kernel::silu_and_mul", "elementwise"},
        {"aiter::dynamic_per_token_scaled_quant", "GroupQuant"},
        {"aiter::fmoe_g1u1", "MoE_fused"},
        {"aiter::ck_moe_stage1", "MoE_unfused"},
        {"aiter::fused_dynamic_mxfp4_quant_moe_sort_hip", "MoE_aux"},
        {"aiter::fused_moe_->_fused_dynamic_mxfp4_quant_moe_sort_kernel "
         "(Synthetic Op)",
         "MoE_aux"},
        {"_C_custom_ar::all_reduce", "CustomCollective"},
        {"aiter::mhc_post", "mHC"},
        {"triton_poi_fused_add_0", "triton"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(tlm_op_category(t[i][0], NULL), t[i][1]) != 0)
            fail_msg("%s: %s, expected %s", t[i][0],
                     tlm_op_category(t[i][0], NULL), t[i][1]);
    /* a partial Synthetic name does not match */
    assert_string_equal(
        tlm_op_category("hipModuleLaunchKernel->kv_indices_generate_kernel",
                        NULL),
        "other");
}

static void test_sheets(void **state)
{
    static const struct {
        const char *name;
        tlm_perf_sheet sh;
    } t[] = {
        {"aiter::gemm_a16w16", TLM_PERF_SHEET_GEMM},
        {"vllm::rocm_unquantized_gemm", TLM_PERF_SHEET_GEMM},
        {"aiter::rmsnorm", TLM_PERF_SHEET_RMSNORM_FWD},
        {"aiter::_groupnorm_run", TLM_PERF_SHEET_NORM},
        {"sgl_kernel::rotary_embedding", TLM_PERF_SHEET_ROPE_FWD},
        {"sglang::store_cache", TLM_PERF_SHEET_INFATTN_FWD},
        {"vllm::unified_attention_with_output", TLM_PERF_SHEET_INFATTN_FWD},
        {"_C::silu_and_mul", TLM_PERF_SHEET_UNARY},
        {"aten::upsample_nearest2d", TLM_PERF_SHEET_UNARY},
        {"aten::replication_pad2d", TLM_PERF_SHEET_UNARY},
        {"triton_poi_fused_add_0", TLM_PERF_SHEET_NONE},
        {"aiter::gemm_a8w8_ck", TLM_PERF_SHEET_NONE},
        {"_C::rms_norm", TLM_PERF_SHEET_NONE},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        assert_int_equal(tlm_perf_sheet_for(t[i].name, 0), t[i].sh);
        assert_int_equal(tlm_perf_sheet_for(t[i].name, 1),
                         TLM_PERF_SHEET_NONE);
    }
    /* A5 family order: ... CONV, InferenceAttention, BinaryElementwise,
     * ..., RoPE, ..., UnaryElementwise, ..., RMSNorm, ..., Normalization,
     * Reduce */
    assert_true(TLM_PERF_SHEET_CONV_BWD < TLM_PERF_SHEET_INFATTN_FWD);
    assert_true(TLM_PERF_SHEET_INFATTN_FWD < TLM_PERF_SHEET_BINARY);
    assert_true(TLM_PERF_SHEET_BINARY < TLM_PERF_SHEET_ROPE_FWD);
    assert_true(TLM_PERF_SHEET_ROPE_FWD < TLM_PERF_SHEET_UNARY);
    assert_true(TLM_PERF_SHEET_UNARY < TLM_PERF_SHEET_RMSNORM_FWD);
    assert_true(TLM_PERF_SHEET_RMSNORM_FWD < TLM_PERF_SHEET_NORM);
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_INFATTN_FWD),
                        "InferenceAttention_fwd");
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_RMSNORM_FWD),
                        "RMSNorm_fwd");
    assert_string_equal(tlm_perf_sheet_name(TLM_PERF_SHEET_ROPE_FWD),
                        "RoPE_fwd");
    /* has_model: modelled names, Triton names; not category-only ones */
    assert_true(tlm_perf_has_model("aiter::rmsnorm"));
    assert_true(tlm_perf_has_model("triton_red_fused_sum_0"));
    assert_false(tlm_perf_has_model("triton_fused_sum_0"));
    assert_false(tlm_perf_has_model("_C::rms_norm"));
    assert_string_equal(tlm_perf_model_category("aiter::rmsnorm", 0),
                        "RMSNorm");
    assert_null(tlm_perf_model_category("aiter::rmsnorm", 1));
}

/* MARK: - models -------------------------------------------------------- */

typedef struct xcase {
    const char *label, *name, *dims, *types, *strides, *concrete;
    const char *kernel, *annotation;
    tlm_status st;
    double flops, bytes; /* has_bytes always 1 when st == TLM_OK */
    const char *spec;
    const char *params; /* NULL: not checked */
} xcase;

static const xcase xcases[] = {
    /* A4.1 */
    {"aiter::gemm_a16w16 (sglang)", "aiter::gemm_a16w16",
     "[[15360,4096],[24576,4096]]", "[" BF "," BF "]", NULL, NULL, NULL, NULL,
     TLM_OK, 3092376453120.0, 1082130432.0, "matrix_bf16",
     "{'B': 1, 'M': 15360, 'N': 24576, 'K': 4096, 'bias': False, "
     "'dtype_A_B': ('c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16')}"},
    {"aiter::gemm_a16w16 bias", "aiter::gemm_a16w16",
     "[[2,4],[8,4],[8]]", "[" BF "," BF "," BF "]", NULL, NULL, NULL, NULL,
     TLM_OK, 2.0 * 2 * 8 * 4 + 16, 16 + 64 + 32 + 16, "matrix_bf16", NULL},
    {"vllm::rocm_unquantized_gemm (vllm decode)",
     "vllm::rocm_unquantized_gemm", "[[32,2880],[201088,2880],[]]",
     "[" BF "," BF ",\"\"]", NULL, NULL,
     "Cijk_Alik_Bljk_BBS_BH_MT16x16x256", NULL, TLM_OK, 37064540160.0,
     1171320832.0, "matrix_bf16",
     "{'M': 32, 'N': 201088, 'K': 2880, 'bias': False, 'dtype_A_B': "
     "('c10::BFloat16', 'c10::BFloat16', ''), 'B': 1, 'transpose': (True, "
     "False)}"},
    {"gemm_a16w16_atomic_: out dtype default", "aiter::gemm_a16w16_atomic_",
     "[[2,4],[8,4],[2,8]]", "[" BF "," BF ",\"float\"]", NULL, NULL, NULL,
     NULL, TLM_OK, 128.0, 16 + 64 + 32, "matrix_bf16",
     "{'B': 1, 'M': 2, 'N': 8, 'K': 4, 'bias': False, 'dtype_A_B': "
     "('c10::BFloat16', 'c10::BFloat16', 'c10::bfloat16')}"},
    /* A4.2 */
    {"aiter::_groupnorm_run (xdit)", "aiter::_groupnorm_run",
     "[[1,128,1024,1024],[],[128],[128],[]]", "[" BF ",\"\"," BF "," BF "]",
     "[[134217728,1048576,1024,1],[],[1],[1],[]]", "[\"\",\"32\"]", NULL,
     NULL, TLM_OK, 671089408.0, 536872448.0, "vector_bf16", NULL},
    {"aiter::rmsnorm (sglang)", "aiter::rmsnorm",
     "[[491520,128],[491520,128],[128],[]]", "[" BF "," BF "," BF ",\"\"]",
     "[[128,1],[128,1],[1],[]]", NULL, NULL, NULL, TLM_OK, 252641280.0,
     251658496.0, "vector_bf16",
     "{'op_shape': (491520, 128), 'dtype_in_out': ('c10::BFloat16', None), "
     "'stride_input': (128, 1), 'stride_output': None, 'num_channels': 128, "
     "'has_bias': False, 'is_affine': True, 'is_training': False}"},
    {"aiter::add_rmsnorm (sglang)", "aiter::add_rmsnorm",
     "[[15360,4096],[15360,4096],[15360,4096],[15360,4096],[4096],[]]",
     "[" BF "," BF "," BF "," BF "," BF ",\"\"]", NULL, NULL, NULL, NULL,
     TLM_OK, 314603520.0, 503324672.0, "vector_bf16", NULL},
    {"aiter::rms_norm (vllm capture)", "aiter::rms_norm",
     "[[32,2880],[2880],[]]", "[" BF "," BF ",\"\"]", NULL, NULL, NULL, NULL,
     TLM_OK, 368704.0, 374400.0, "vector_bf16", NULL},
    {"aiter::rmsnorm unknown dtype", "aiter::rmsnorm",
     "[[4,8],[4,8],[8]]", "[\"bool\",\"bool\",\"bool\"]", NULL, NULL, NULL,
     NULL, TLM_ERANGE, 0, 0, NULL, NULL},
    /* A4.3 */
    {"sgl_kernel::silu_and_mul (sglang)", "sgl_kernel::silu_and_mul",
     "[[15360,12288],[15360,24576]]", "[" BF "," BF "]",
     "[[12288,1],[24576,1]]", NULL, NULL, NULL, TLM_OK, 943718400.0,
     1132462080.0, "vector_bf16",
     "{'op_shape': (15360, 12288), 'dtype_in_out': ('c10::BFloat16', "
     "'c10::BFloat16'), 'stride_input': (24576, 1), 'stride_output': "
     "(12288, 1)}"},
    {"upsample_nearest1d (timesformer)", "aten::upsample_nearest1d",
     "[[1,768,8],[]]", "[" BF ",\"\"]", "[[6144,8,1],[]]",
     "[\"\",\"[128]\",\"\"]", NULL, NULL, TLM_OK, 98304.0, 208896.0,
     "vector_bf16",
     "{'input_shape': (1, 768, 8), 'output_shape': (1, 768, 128), "
     "'op_shape': (1, 768, 128), 'dtype_in_out': ('c10::BFloat16', "
     "'c10::BFloat16'), 'stride_input': (6144, 8, 1), 'stride_output': "
     "None}"},
    {"upsample_nearest2d.vec: no output size (literal_eval error)",
     "aten::upsample_nearest2d", "[[1,4,8,8],[],[]]", "[" BF ",\"\",\"\"]",
     "[[256,64,8,1],[],[]]", "[\"\",\"\",\"[2.0, 2.0]\"]", NULL, NULL,
     TLM_EFORMAT, 0, 0, NULL, NULL},
    {"replication_pad1d", "aten::replication_pad1d", "[[1,4,8],[]]",
     "[\"float\",\"\"]", "[[32,8,1],[]]", "[\"\",\"[1, 2]\"]", NULL, NULL,
     TLM_OK, 44.0, 304.0, "vector_fp32",
     "{'input_shape': (1, 4, 8), 'output_shape': (1, 4, 11), 'padding': "
     "[1, 2], 'op_shape': (1, 4, 11), 'dtype_in_out': ('float', 'float'), "
     "'stride_input': (32, 8, 1), 'stride_output': None}"},
    {"sgl_kernel::rotary_embedding (sglang)", "sgl_kernel::rotary_embedding",
     "[[15360],[15360,4096],[15360,1024],[]]",
     "[\"long int\"," BF "," BF ",\"\"]", NULL,
     "[\"\",\"\",\"\",\"128\",\"True\"]", NULL, NULL, TLM_OK, 235929600.0,
     314572800.0, "vector_bf16", "{'num_elements': 78643200}"},
    {"rotary head 0", "sgl_kernel::rotary_embedding",
     "[[4],[4,8],[4,8],[]]", "[\"long int\"," BF "," BF ",\"\"]", NULL,
     "[\"\",\"\",\"\",\"0\",\"True\"]", NULL, NULL, TLM_ERANGE, 0, 0, NULL,
     NULL},
    {"sglang::store_cache (sglang)", "sglang::store_cache",
     "[[15360,1024],[15360,1024]]", "[" BF "," BF "]", NULL, NULL, NULL, NULL,
     TLM_OK, 0.0, 125829120.0, "vector_bf16",
     "{'op_shape': (15360, 1024), 'nelems': 15728640, 'dtype': "
     "'c10::BFloat16'}"},
    /* A4.4 */
    {"vLLM attention, detailed annotation (piecewise)",
     "vllm::unified_attention_with_output",
     "[[8192,64,64],[8192,8,64],[8192,8,64],[8192,64,64]]",
     "[" BF "," BF "," BF "," BF "]", NULL, NULL, NULL,
     "execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)"
     "_generation_37(sq37sk34489sqsq37sqsk34489)",
     TLM_OK, 65010180096.0, 222115840.0, "matrix_bf16",
     "{'B': 1, 'N_Q': 8192, 'H_Q': 64, 'H_V': 8, 'H_K': 8, 'N_KV': 8192, "
     "'H_KV': 8, 'd_h_qk': 64, 'd_h_v': 64, 'dropout': 0.0, 'causal': "
     "False, 'flash_impl': True, 'c_sq': 8155, 'c_sk': 8430, 'c_sqsq': "
     "7475785, 'c_sqsk': 7671310, 'g_sq': 37, 'g_sk': 34489, 'g_sqsq': 37, "
     "'g_sqsk': 34489, 'dtype_Q': 'c10::BFloat16', 'dtype_KV': "
     "'c10::BFloat16'}"},
    {"vLLM attention, native annotation: TypeError",
     "vllm::unified_attention_with_output", "[[4,2,8],[4,2,8]]",
     "[" BF "," BF "]", NULL, NULL, NULL,
     "execute_context_1(888_788544)_generation_0(0)", TLM_ERANGE, 0, 0, NULL,
     NULL},
    {"vLLM attention, NA: TypeError", "vllm::unified_attention_with_output",
     "[[4,2,8],[4,2,8]]", "[" BF "," BF "]", NULL, NULL, NULL, "NA",
     TLM_ERANGE, 0, 0, NULL, NULL},
    {"vLLM attention, no tokens: NotImplementedError",
     "vllm::unified_attention_with_output", "[[4,2,8],[4,2,8]]",
     "[" BF "," BF "]", NULL, NULL, NULL,
     "execute_0_context_0(sq0sk0sqsq0sqsk0)_generation_0(sq0sk0sqsq0sqsk0)",
     TLM_EINVAL, 0, 0, NULL, NULL},
    /* SGLang decode: H_Q 4, d 8 both, H_KV 2:
     * flops = 4 * (2*262144*8*2) = 33554432;
     * Eq = 128 * (32+32+16+16) = 12288; Ekv = (131072-128)*2*16 = 4190208 */
    {"mha_batch_prefill, SGLang decode annotation", "aiter::mha_batch_prefill",
     "[[128,4,8],[64,2,8],[64,2,8]]", "[" BF "," BF "," BF "]", NULL, NULL,
     NULL, "step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]",
     TLM_OK, 33554432.0, (12288.0 + 4190208.0) * 2, "matrix_bf16", NULL},
    {"mha_batch_prefill, never annotated", "aiter::mha_batch_prefill",
     "[[128,4,8],[64,2,8],[64,2,8]]", "[" BF "," BF "," BF "]", NULL, NULL,
     NULL, NULL, TLM_ERANGE, 0, 0, NULL, NULL},
    /* ATOM prefill: c_sq = tok 16, c_sk 16, sqsq 136, sqsk 136; H 1, d 8 */
    {"InferenceAttention, ATOM prefill annotation", "aiter::mha_varlen_fwd",
     "[[16,1,8],[16,1,8]]", "[\"c10::Half\",\"c10::Half\"]", NULL, NULL, NULL,
     "prefill[bs=1 tok=16 ctx=[16] sqsq=136 sqsk=136 sk=16]", TLM_OK,
     2.0 * 136 * 8 * 2 - 136.0 * 8 * 2, 16.0 * 32 * 2, "matrix_fp16", NULL},
    /* A4.5 */
    {"triton poi (torch_compile_triton)",
     "triton_poi_fused__unsafe_view_mul_silu_2",
     "[[8,4096,8192],[32768,8192],[]]", "[" BF "," BF ",\"Scalar\"]", NULL,
     "[\"\",\"\",\"268435456\"]", NULL, NULL, TLM_OK, 1342177280.0,
     1610612736.0, "vector_bfloat16",
     "{'fused_ops': 'aten._unsafe_view, aten.mul, aten.silu', 'xnumel': "
     "268435456, 'rnumel': 1}"},
    {"triton red", "triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1",
     "[[32768,2048],[32768,2048],[32768,2048],[2048],[],[]]",
     "[" BF "," BF "," BF "," BF ",\"Scalar\",\"Scalar\"]", NULL,
     "[\"\",\"\",\"\",\"\",\"32768\",\"2048\"]", NULL, NULL, TLM_OK,
     469762048.0, 402657280.0, "vector_bfloat16",
     "{'fused_ops': 'aten._unsafe_view, aten.add, aten.mean, aten.mul, "
     "aten.pow, aten.rsqrt', 'xnumel': 32768, 'rnumel': 2048}"},
    {"triton fp32 (HTA triton_example): 0 bytes, no spec",
     "triton_poi_fused_add_cos_sin_0", "[[100],[100],[]]",
     "[\"float\",\"float\",\"Scalar\"]", NULL, "[\"\",\"\",\"100\"]", NULL,
     NULL, TLM_OK, 100.0, 0.0, "",
     "{'fused_ops': 'aten.add, aten.cos, aten.sin', 'xnumel': 100, "
     "'rnumel': 1}"},
    {"triton: unknown ops, no segmentation", "triton_per_fused_xyzzy_3",
     "[[4,8]]", "[\"c10::Half\"]", NULL, "[\"4\",\" \",\"8\"]", NULL, NULL,
     TLM_OK, 0.0, 64.0, "vector_half",
     "{'fused_ops': '', 'xnumel': 4, 'rnumel': 8}"},
    {"triton without integer Concrete Inputs", "triton_poi_fused_add_0",
     "[[4]]", "[\"float\"]", NULL, "[\"\",\"x\"]", NULL, NULL,
     TLM_ENOTFOUND, 0, 0, NULL, NULL},
};

static void run_case(const xcase *x)
{
    tlm_perf_args a;
    tlm_perf_result r;
    tlm_error err;
    const char *kn[1] = {x->kernel};
    memset(&a, 0, sizeof a);
    a.name = x->name;
    a.input_dims = x->dims;
    a.input_types = x->types;
    a.input_strides = x->strides;
    a.concrete_inputs = x->concrete;
    a.annotation = x->annotation;
    if (x->kernel) {
        a.kernel_names = kn;
        a.n_kernels = 1;
    }
    tlm_error_clear(&err);
    tlm_status st = tlm_perf_compute(&a, 0, &r, &err);
    if (st != x->st)
        fail_msg("%s: status %d (%s), expected %d", x->label, (int)st,
                 err.msg, (int)x->st);
    if (st != TLM_OK)
        return;
    if (r.flops != x->flops || !r.has_bytes || r.bytes != x->bytes)
        fail_msg("%s: flops %.17g bytes %.17g (has %d), expected %.17g %.17g",
                 x->label, r.flops, r.bytes, r.has_bytes, x->flops, x->bytes);
    if (strcmp(r.compute_spec, x->spec) != 0)
        fail_msg("%s: spec '%s', expected '%s'", x->label, r.compute_spec,
                 x->spec);
    if (x->params) {
        char buf[4096];
        assert_int_equal(tlm_perf_params_repr(&r, buf, sizeof buf), TLM_OK);
        if (strcmp(buf, x->params) != 0)
            fail_msg("%s:\n got  %s\n want %s", x->label, buf, x->params);
    }
    /* no backward model for any of them */
    assert_int_not_equal(tlm_perf_compute(&a, 1, &r, NULL), TLM_OK);
}

static void test_models(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof xcases / sizeof xcases[0]; i++)
        run_case(&xcases[i]);
}

/* Metrics of the spec's checks: FLOPS/Byte of silu_and_mul, store_cache's
 * zero FLOPs and a Triton op without bytes. */
static void test_metrics(void **state)
{
    tlm_perf_metrics m;
    (void)state;
    tlm_perf_metrics_from(943718400.0, 1, 1132462080.0, "vector_bf16", 10.0,
                          NULL, &m);
    assert_true(m.flops_per_byte == 0.8333333333333334);
    tlm_perf_metrics_from(0.0, 1, 125829120.0, "vector_bf16", 0.0, NULL, &m);
    assert_true(m.gflops == 0.0 && m.flops_per_byte == 0.0);
    assert_true(isnan(m.tb_s) && isnan(m.tflops_s));
    tlm_perf_metrics_from(100.0, 1, 0.0, "", 2.0, NULL, &m);
    assert_true(isnan(m.flops_per_byte));
    assert_true(m.tb_s == 0.0);
}

/* MARK: - Triton -------------------------------------------------------- */

static void test_triton_can_model(void **state)
{
    tlm_perf_args a;
    (void)state;
    memset(&a, 0, sizeof a);
    a.name = "triton_poi_fused_add_0";
    a.input_dims = "[[4]]";
    a.input_types = "[\"float\"]";
    a.concrete_inputs = "[\"\",\"4\"]";
    assert_true(tlm_perf_can_model(&a));
    a.concrete_inputs = "[\"\",\" \"]";
    assert_false(tlm_perf_can_model(&a));
    a.concrete_inputs = "[]";
    assert_false(tlm_perf_can_model(&a));
    a.concrete_inputs = "[\"4\"]";
    a.input_types = NULL;
    assert_false(tlm_perf_can_model(&a));
    a.input_types = "[\"float\"]";
    a.input_dims = "not json";
    assert_false(tlm_perf_can_model(&a));
    a.name = "aten::mm";
    assert_true(tlm_perf_can_model(&a));
    a.name = "aten::linear";
    assert_false(tlm_perf_can_model(&a));
    assert_false(tlm_perf_can_model(NULL));
}

static void test_known_ops(void **state)
{
    size_t n;
    const char *const *k = tlm_perf_known_aten_ops(&n);
    (void)state;
    assert_int_equal(n, 960);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(k[i - 1], k[i]) < 0);
    for (size_t i = 0; i < n; i++)
        assert_true(tlm_perf_is_known_aten_op(k[i], strlen(k[i])));
    assert_true(tlm_perf_is_known_aten_op("_unsafe_viewX", 12));
    assert_false(tlm_perf_is_known_aten_op("_unsafe_vie", 11));
    assert_false(tlm_perf_is_known_aten_op("", 0));
    assert_false(tlm_perf_is_known_aten_op("zzz", 3));
}

/* Hostile names, annotations and args: a status, never a crash (ASan /
 * UBSan in CI). */
static void test_robustness(void **state)
{
    static const char *const names[] = {
        "triton_poi_", "triton_red_fused_", "triton_per_fused__0",
        "triton_poi_fused_____1", "triton_poi_fused_add_x",
        "triton_red_fused_add_add_add_add_add_add_add_add_add_add_add_add_"
        "add_add_add_add_add_add_add_add_add_add_add_add_add_add_add_add_"
        "add_add_add_add_add_add_add_add_add_add_add_add_add_add_add_add_"
        "add_add_add_add_add_add_add_add_add_add_add_add_add_add_add_add_"
        "add_add_add_add_add_7",
        "triton_poi_fused_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaa_add_3",
        "vllm::unified_attention_with_output", "aiter::mha_batch_prefill",
        "sgl_kernel::rotary_embedding", "aten::replication_pad3d"};
    static const char *const anns[] = {
        NULL, "", "execute_", "execute_1_context_1(sq", "step[DECODE]",
        "step[MIXED sqsq=]", "step[EXTEND sqsq=1", "prefill[sqsq=1 sqsk=2]",
        "decode[sqsq=99999999999999999999999999 sqsk=1 tok=1]",
        "step[DECODEX g_sq=1 sqsq=1]",
        "execute_1_context_1(sq1sk1sqsq1sqsk1)_generation_1(sq1sk1sqsq1sqsk1)"};
    static const char *const dims[] = {
        NULL, "[]", "[[]]", "[[1,2,3],[4,5,6],[7,8,9],[1],[1,2]]",
        "[[-1,-2,-3],[0,0,0],[0]]", "[[9223372036854775807,2,3],[1,2,3]]"};
    static const char *const types[] = {
        NULL, "[]", "[\"c10::BFloat16\",\"Scalar\",\"float\",\"x\",\"\"]",
        "[1,null]"};
    static const char *const conc[] = {
        NULL, "[]", "[\"1\",\"2\",\"-3\",\"0\",\"[1, 2, 3, 4, 5, 6]\"]",
        "[\" \",\"x\",\"99999999999999999999\",\"-1\",\"[1,\"]",
        "[\"\",\"\",\"\",\"-1\"]"};
    (void)state;
    for (size_t a = 0; a < sizeof names / sizeof names[0]; a++)
        for (size_t b = 0; b < sizeof anns / sizeof anns[0]; b++)
            for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
                for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
                    for (size_t k = 0; k < sizeof conc / sizeof conc[0];
                         k++) {
                        tlm_perf_args x;
                        tlm_perf_result r;
                        tlm_error err;
                        memset(&x, 0, sizeof x);
                        x.name = names[a];
                        x.annotation = anns[b];
                        x.input_dims = dims[d];
                        x.input_types = types[t];
                        x.input_strides = dims[(d + 1) % 6];
                        x.concrete_inputs = conc[k];
                        tlm_status st = tlm_perf_compute(&x, 0, &r, &err);
                        if (st != TLM_OK) {
                            assert_int_equal(err.code, st);
                        } else {
                            char buf[8192];
                            assert_int_equal(
                                tlm_perf_params_repr(&r, buf, sizeof buf),
                                TLM_OK);
                        }
                    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_categories),
        cmocka_unit_test(test_sheets),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_triton_can_model),
        cmocka_unit_test(test_known_ops),
        cmocka_unit_test(test_robustness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
