/*
 * test_perf_models.c - TraceLens's perf models (src/perf/perf_models.c).
 *
 * 1. Hand-computed cases per op family (table-driven): FLOPs, bytes,
 *    Compute Spec and the perf_params repr, or the expected failure; the
 *    quoting of string params.
 * 2. Hostile inputs for every model: a status, never a crash.
 * 3. Conformance with TraceLens's reference CSVs in $TLM_SHARED_DIR:
 *    every row of every perf sheet and of unified_perf_summary is
 *    recomputed from the row's own Input Dims/type/Strides/Concrete Inputs
 *    and must give the CSV's GFLOPS, Data Moved (MB), Compute Spec and
 *    param columns (and the op category of its rows).  Skipped when
 *    TLM_SHARED_DIR is unset.
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
/* MARK: - Hand-computed model cases                                  */
/* ------------------------------------------------------------------ */

typedef struct pcase {
    const char *label;
    const char *name;
    const char *dims;
    const char *types;
    const char *strides;
    const char *concrete;
    const char *outtype;
    const char *kernel; /* one kernel name or NULL */
    int bwd;
    tlm_status st;
    double flops;
    int has_bytes;
    double bytes;
    const char *spec;
    const char *params; /* expected perf_params repr, NULL = not checked */
} pcase;

#define BF "\"c10::BFloat16\""

static const pcase cases[] = {
    /* ---- GEMM ---- */
    {"mm bf16 (Qwen)", "aten::mm", "[[8944,1024],[1024,2816]]",
     "[" BF "," BF "]", "[[1024,1],[1,1024]]", "[\"\",\"\"]", NULL, NULL, 0,
     TLM_OK, 51581550592.0, 1, 74457088.0, "matrix_bf16",
     "{'M': 8944, 'N': 2816, 'K': 1024, 'bias': False, 'stride_A': "
     "(1024, 1), 'stride_B': (1, 1024), 'dtype_A_B': ('c10::BFloat16', "
     "'c10::BFloat16'), 'B': 1}"},
    {"addmm bias", "aten::addmm",
     "[[1024],[8944,1024],[1024,1024],[],[]]",
     "[" BF "," BF "," BF ",\"Scalar\",\"Scalar\"]",
     "[[1],[1024,1],[1,1024],[],[]]", "[\"\",\"\",\"\",\"1\",\"1\"]", NULL,
     NULL, 0, TLM_OK, 18766086144.0, 1, 38733824.0, "matrix_bf16",
     "{'M': 8944, 'N': 1024, 'K': 1024, 'bias': True, 'stride_A': "
     "(1024, 1), 'stride_B': (1, 1024), 'dtype_A_B': ('c10::BFloat16', "
     "'c10::BFloat16'), 'B': 1}"},
    {"addmm Tensile transpose", "aten::addmm",
     "[[1000],[10,512],[512,1000],[],[]]",
     "[" BF "," BF "," BF ",\"Scalar\",\"Scalar\"]",
     "[[1],[512,1],[1,512],[],[]]", "[\"\",\"\",\"\",\"1\",\"1\"]", NULL,
     "Cijk_Alik_Bljk_BBS_BH_Bias_HAS_SAV_UserArgs_MT16x16x256", 0, TLM_OK,
     10250000.0, 1, 1056240.0, "matrix_bf16",
     "{'M': 10, 'N': 1000, 'K': 512, 'bias': True, 'stride_A': (512, 1), "
     "'stride_B': (1, 512), 'dtype_A_B': ('c10::BFloat16', "
     "'c10::BFloat16'), 'B': 1, 'transpose': (True, False)}"},
    {"mm nvjet transpose, no strides", "aten::mm", "[[64,32],[32,16]]",
     "[\"c10::Half\",\"c10::Half\"]", NULL, NULL, NULL,
     "nvjet_tst_128x64_64x4_1x2_h_bz_coopA_TNT", 0, TLM_OK, 65536.0, 1,
     (64.0 * 32 + 32 * 16 + 64 * 16) * 2, "matrix_fp16",
     "{'M': 64, 'N': 16, 'K': 32, 'bias': False, 'stride_A': None, "
     "'stride_B': None, 'dtype_A_B': ('c10::Half', 'c10::Half'), 'B': 1, "
     "'transpose': (True, False)}"},
    {"bmm fp32 (Qwen)", "aten::bmm", "[[1,32,1],[1,1,559]]",
     "[\"float\",\"float\"]", "[[32,1,1],[559,559,1]]", "[\"\",\"\"]", NULL,
     NULL, 0, TLM_OK, 35776.0, 1, 73916.0, "matrix_fp32",
     "{'B': 1, 'M': 32, 'N': 559, 'K': 1, 'bias': False, 'stride_A': "
     "(32, 1, 1), 'stride_B': (559, 559, 1), 'dtype_A_B': ('float', "
     "'float')}"},
    {"bmm batch 4", "aten::bmm", "[[4,128,64],[4,64,256]]",
     "[\"c10::Half\",\"c10::Half\"]", "[[8192,64,1],[16384,256,1]]", NULL,
     NULL, NULL, 0, TLM_OK, 16777216.0, 1, 458752.0, "matrix_fp16", NULL},
    {"baddbmm", "aten::baddbmm",
     "[[4,128,256],[4,128,64],[4,64,256],[],[]]",
     "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"]",
     "[[32768,256,1],[8192,64,1],[16384,256,1],[],[]]", NULL, NULL, NULL,
     0, TLM_OK, 16908288.0, 1, 460800.0, "matrix_fp16", NULL},
    {"scaled_mm fp8 out fp16", "aten::_scaled_mm",
     "[[16,32],[32,64],[],[],[],[],[]]",
     "[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\","
     "\"\",\"\",\"\"]",
     "[[32,1],[1,32],[],[],[],[],[]]", NULL, NULL, NULL, 0, TLM_OK,
     65536.0, 1, 4608.0, "matrix_fp8", NULL},
    {"mm unknown dtype: bytes None", "aten::mm", "[[4,4],[4,4]]",
     "[\"bool\",\"bool\"]", "[[4,1],[4,1]]", NULL, NULL, NULL, 0, TLM_OK,
     128.0, 0, 0.0, "", NULL},
    {"mm bwd not defined", "aten::mm", "[[4,4],[4,4]]",
     "[\"float\",\"float\"]", "[[4,1],[4,1]]", NULL, NULL, NULL, 1,
     TLM_EINVAL, 0, 0, 0, NULL, NULL},
    {"mm missing Input Dims", "aten::mm", NULL, "[\"float\",\"float\"]",
     NULL, NULL, NULL, NULL, 0, TLM_EFORMAT, 0, 0, 0, NULL, NULL},
    {"mm one operand", "aten::mm", "[[4,4]]", "[\"float\"]", NULL, NULL,
     NULL, NULL, 0, TLM_EFORMAT, 0, 0, 0, NULL, NULL},
    {"mm malformed JSON", "aten::mm", "[[4,4],[4,4]", "[\"float\"]", NULL,
     NULL, NULL, NULL, 0, TLM_EFORMAT, 0, 0, 0, NULL, NULL},
    {"te_gemm_ts", "tex_ts::te_gemm_ts",
     "[[32,64],[],[],[],[],[16,64],[],[],[],[],[32,16],[],[],[],[16],[],"
     "[],[],[]]",
     "[" BF ",\"\",\"\",\"\",\"\"," BF ",\"\",\"\",\"\",\"\"," BF ",\"\","
     "\"\",\"\",\"\",\"\",\"\",\"\"," BF "]",
     NULL,
     "[\"\",\"\",\"\",\"\",\"0\",\"\",\"\",\"\",\"\",\"0\",\"\",\"\",\"\","
     "\"\",\"x\"]",
     NULL, NULL, 0, TLM_OK, 2.0 * 64 * 16 * 32 + 64 * 16, 1,
     (64.0 * 32 + 32 * 16 + 64 * 16 + 16) * 2, "matrix_bf16", NULL},

    /* ---- SDPA ---- */
    {"sdpa flash causal (Qwen)", "aten::_scaled_dot_product_flash_attention",
     "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[],[],[],[]]",
     "[" BF "," BF "," BF ",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
     "[[572416,35776,64,1],[572416,35776,64,1],[572416,35776,64,1],[],[],"
     "[],[]]",
     "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"0.125\"]", NULL, NULL, 0,
     TLM_OK, 10239377408.0, 1, 73269248.0, "matrix_bf16",
     "{'B': 16, 'N_Q': 559, 'H_Q': 16, 'N_KV': 559, 'H_KV': 16, 'd_h_qk': "
     "64, 'd_h_v': 64, 'dropout': 0.0, 'causal': True, 'flash_impl': True, "
     "'dtype_A_B': ('c10::BFloat16', 'c10::BFloat16')}"},
    {"sdpa efficient non-causal", "aten::_scaled_dot_product_efficient_attention",
     "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[],[]]",
     "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"\",\"Scalar\",\"Scalar\","
     "\"Scalar\",\"\"]",
     NULL, "[\"\",\"\",\"\",\"\",\"False\",\"0.1\",\"False\",\"\"]", NULL,
     NULL, 0, TLM_OK, 67108864.0, 1, 1048576.0, "matrix_fp16",
     "{'B': 2, 'N_Q': 128, 'H_Q': 8, 'N_KV': 128, 'H_KV': 8, 'd_h_qk': 64, "
     "'d_h_v': 64, 'dropout': 0.1, 'causal': False, 'flash_impl': False, "
     "'dtype_A_B': ('c10::Half', 'c10::Half')}"},
    {"sdpa causal N_Q != N_KV", "aten::_scaled_dot_product_flash_attention",
     "[[1,2,4,8],[1,2,6,8],[1,2,6,8]]", "[" BF "," BF "," BF "]", NULL,
     "[\"\",\"\",\"\",\"0.0\",\"True\"]", NULL, NULL, 0, TLM_ERANGE, 0, 0, 0,
     NULL, NULL},
    {"sdpa flash bwd pass causal", "aten::_scaled_dot_product_flash_attention",
     "[[1,2,4,8],[1,2,4,8],[1,2,4,8]]", "[" BF "," BF "," BF "]", NULL,
     "[\"\",\"\",\"\",\"0.0\",\"True\"]", NULL, NULL, 1, TLM_OK, 1280.0, 1,
     896.0, "matrix_bf16", NULL},
    {"sdpa GQA bwd pass (efficient)",
     "aten::_scaled_dot_product_efficient_attention",
     "[[1,8,4,8],[1,2,4,8],[1,2,4,8]]", "[\"float\",\"float\",\"float\"]",
     NULL, "[\"\",\"\",\"\",\"\",\"\",\"0.0\",\"False\"]", NULL, NULL, 1,
     TLM_OK, 8384.0, 1, 2.0 * (2 * 256 + 2 * 64 + 2 * 64 + 256),
     "matrix_fp32", NULL},
    {"sdpa batch mismatch", "aten::_scaled_dot_product_flash_attention",
     "[[1,2,4,8],[2,2,4,8],[2,2,4,8]]", "[" BF "," BF "," BF "]", NULL,
     "[\"\",\"\",\"\",\"0.0\",\"False\"]", NULL, NULL, 0, TLM_ERANGE, 0, 0,
     0, NULL, NULL},
    {"FlashAttnFunc (B,N,H,d) with strides", "FlashAttnFunc",
     "[[2,128,8,64],[2,128,8,64],[2,128,8,64]]", "[" BF "," BF "," BF "]",
     "[[65536,512,64,1],[65536,512,64,1],[65536,512,64,1]]",
     "[\"\",\"\",\"\",\"0.0\",\"0.125\",\"True\"]", NULL, NULL, 0, TLM_OK,
     33554432.0, 1, 1048576.0, "matrix_bf16",
     "{'B': 2, 'N_Q': 128, 'H_Q': 8, 'N_KV': 128, 'H_KV': 8, 'd_h_qk': 64, "
     "'d_h_v': 64, 'q_stride': (65536, 512, 64, 1), 'k_stride': (65536, "
     "512, 64, 1), 'v_stride': (65536, 512, 64, 1), 'dropout': 0.0, "
     "'causal': True, 'flash_impl': True, 'dtype_A_B': ('c10::BFloat16', "
     "'c10::BFloat16')}"},
    {"flash_attn backward op, dtype bytes", "flash_attn::_flash_attn_backward",
     "[[1,4,2,8],[1,4,2,8],[1,4,2,8],[1,4,2,8]]",
     "[\"float\",\"float\",\"float\",\"float\"]",
     "[[64,16,8,1],[64,16,8,1],[64,16,8,1],[64,16,8,1]]", NULL, NULL, NULL,
     0, TLM_OK, 1280.0, 1, 7.0 * 64 * 4, "matrix_fp32", NULL},
    {"varlen forward", "flash_attn::_flash_attn_varlen_forward",
     "[[300,4,64],[300,4,64],[300,4,64],[4],[4]]",
     "[" BF "," BF "," BF ",\"int\",\"int\"]",
     "[[256,64,1],[256,64,1],[256,64,1],[1],[1]]",
     "[\"\",\"\",\"\",\"\",\"\",\"128\",\"128\",\"0.0\",\"0.125\","
     "\"False\"]",
     NULL, NULL, 0, TLM_OK, 31924224.0, 1, 614400.0, "matrix_bf16", NULL},
    {"aiter mha_fwd: no dtype, empty spec", "aiter::mha_fwd",
     "[[1,4,2,8],[1,4,2,8],[1,4,2,8]]", "[" BF "," BF "," BF "]", NULL,
     "[\"\",\"\",\"\",\"0.0\",\"0.125\",\"True\"]", NULL, NULL, 0, TLM_OK,
     512.0, 1, 512.0, "", NULL},
    {"vllm attention without annotation (TypeError)",
     "vllm::unified_attention_with_output",
     "[[4,2,8],[4,2,8],[],[4,2,8]]", NULL, NULL, NULL, NULL, NULL, 0,
     TLM_ERANGE, 0, 0, 0, NULL, NULL},

    /* ---- CONV ---- */
    {"conv2d fwd (ResNet)", "aten::convolution",
     "[[10,64,56,56],[64,64,3,3],[],[],[],[],[],[],[]]",
     "[" BF "," BF ",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
     "\"Scalar\",\"ScalarList\",\"Scalar\"]",
     "[[200704,3136,56,1],[576,9,3,1],[],[],[],[],[],[],[]]",
     "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\","
     "\"[0, 0]\",\"1\"]",
     NULL, NULL, 0, TLM_OK, 2312110080.0, 1, 8101888.0, "matrix_bf16",
     "{'convNd': 'conv2d', 'input_shape': (10, 64, 56, 56), "
     "'filter_shape': (64, 64, 3, 3), 'dtype_input_weight': "
     "('c10::BFloat16', 'c10::BFloat16'), 'input_stride': (200704, 3136, "
     "56, 1), 'weight_stride': (576, 9, 3, 1), 'bias': False, 'stride': "
     "(1, 1), 'padding': (1, 1), 'dilation': (1, 1), 'transposed_conv': "
     "False, 'output_padding': (0, 0), 'groups': 1}"},
    {"conv2d ViT patch (spec check)", "aten::convolution",
     "[[4,3,224,224],[768,3,16,16],[768],[],[],[],[],[],[]]",
     "[" BF "," BF "," BF ",\"ScalarList\",\"ScalarList\",\"ScalarList\","
     "\"Scalar\",\"ScalarList\",\"Scalar\"]",
     NULL,
     "[\"\",\"\",\"\",\"[16, 16]\",\"[0, 0]\",\"[1, 1]\",\"False\","
     "\"[0, 0]\",\"1\"]",
     NULL, NULL, 0, TLM_OK, 924844032.0, 1, 3.421875 * 1048576.0,
     "matrix_bf16", NULL},
    {"conv bwd (ResNet), bias []", "aten::convolution_backward",
     "[[10,64,56,56],[10,64,56,56],[64,64,3,3],[],[],[],[],[],[],[],[]]",
     "[" BF "," BF "," BF ",\"ScalarList\",\"ScalarList\",\"ScalarList\","
     "\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"]",
     "[[200704,3136,56,1],[200704,3136,56,1],[576,9,3,1],[],[],[],[],[],[],"
     "[],[]]",
     "[\"\",\"\",\"\",\"[0]\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\","
     "\"[0, 0]\",\"1\",\"[True, True, False]\"]",
     NULL, NULL, 0, TLM_OK, 4624220160.0, 1, 15.453125 * 1048576.0,
     "matrix_bf16",
     "{'convNd': 'conv2d', 'input_shape': (10, 64, 56, 56), "
     "'filter_shape': (64, 64, 3, 3), 'dtype_input_weight': "
     "('c10::BFloat16', 'c10::BFloat16'), 'input_stride': (200704, 3136, "
     "56, 1), 'weight_stride': (576, 9, 3, 1), 'bias': [], 'stride': "
     "(1, 1), 'padding': (1, 1), 'dilation': (1, 1), 'transposed_conv': "
     "False, 'output_padding': (0, 0), 'groups': 1}"},
    {"conv1d transposed", "aten::convolution",
     "[[1,4,10],[4,2,3],[],[],[],[],[],[],[]]", "[" BF "," BF "]", NULL,
     "[\"\",\"\",\"\",\"[2]\",\"[0]\",\"[1]\",\"True\",\"[1]\",\"1\"]",
     NULL, NULL, 0, TLM_OK, 480.0, 1, 216.0, "matrix_bf16", NULL},
    {"conv with bias via 3 dims", "aten::convolution",
     "[[1,3,8,8],[4,3,3,3],[4]]", "[\"float\",\"float\",\"float\"]", NULL,
     "[\"\",\"\",\"\",\"\",\"\",\"\",\"False\",\"\",\"1\"]", NULL, NULL, 0,
     TLM_OK, 7920.0, 1, 1792.0, "matrix_fp32", NULL},
    {"conv mixed dtypes", "aten::convolution",
     "[[1,3,8,8],[4,3,3,3]]", "[\"float\"," BF "]", NULL,
     "[\"\",\"\",\"\",\"\",\"\",\"\",\"False\",\"\",\"1\"]", NULL, NULL, 0,
     TLM_ERANGE, 0, 0, 0, NULL, NULL},
    {"conv bad stride text", "aten::convolution",
     "[[1,3,8,8],[4,3,3,3]]", "[\"float\",\"float\"]", NULL,
     "[\"\",\"\",\"\",\"[]\",\"\",\"\",\"False\",\"\",\"1\"]", NULL, NULL,
     0, TLM_EFORMAT, 0, 0, 0, NULL, NULL},

    /* ---- elementwise ---- */
    {"binary mul broadcast (Qwen)", "aten::mul",
     "[[16,559,1024],[16,559,1]]", "[\"float\",\"float\"]",
     "[[572416,1024,1],[559,1,1]]", "[\"\",\"\"]", NULL, NULL, 0, TLM_OK,
     9158656.0, 1, 69.90911865234375 * 1048576.0, "vector_fp32",
     "{'shape_in1': (16, 559, 1024), 'shape_in2': (16, 559, 1), "
     "'dtype_in1_in2_out': ('float', 'float', None), 'stride_input1': "
     "(572416, 1024, 1), 'stride_input2': (559, 1, 1), 'stride_output': "
     "None}"},
    {"binary div by Scalar", "aten::div", "[[10,512,7,7],[]]",
     "[" BF ",\"Scalar\"]", "[[512,1,0,0],[]]", "[\"\",\"49\"]", NULL, NULL,
     0, TLM_OK, 250880.0, 1, 1003524.0, "vector_bf16",
     "{'shape_in1': (10, 512, 7, 7), 'shape_in2': (), 'dtype_in1_in2_out': "
     "('c10::BFloat16', 'Scalar', None), 'stride_input1': (512, 1, 0, 0), "
     "'stride_input2': (), 'stride_output': None}"},
    {"binary with out tensor", "aten::mul", "[[512],[],[512]]",
     "[" BF ",\"double\"," BF "]", "[[1],[],[1]]", "[\"\",\"\",\"\"]", NULL,
     NULL, 0, TLM_OK, 512.0, 1, 2056.0, "vector_bf16", NULL},
    {"binary mixed precision -> max bpe", "aten::add",
     "[[8,4],[4]]", "[" BF ",\"float\"]", "[[4,1],[1]]", NULL, NULL, NULL,
     0, TLM_OK, 32.0, 1, 32 * 2 + 4 * 4 + 32 * 4, "vector_bf16", NULL},
    {"binary not broadcastable", "aten::add", "[[8,4],[3]]",
     "[\"float\",\"float\"]", "[[4,1],[1]]", NULL, NULL, NULL, 0,
     TLM_ERANGE, 0, 0, 0, NULL, NULL},
    {"binary missing strides", "aten::add", "[[8,4],[4]]",
     "[\"float\",\"float\"]", NULL, NULL, NULL, NULL, 0, TLM_EFORMAT, 0, 0,
     0, NULL, NULL},
    {"unary copy_ float->bf16", "aten::copy_",
     "[[16,559,1024],[16,559,1024],[]]", "[\"float\"," BF ",\"Scalar\"]",
     "[[572416,1024,1],[572416,1024,1],[]]", "[\"\",\"\",\"False\"]", NULL,
     NULL, 0, TLM_OK, 9158656.0, 1, 52.40625 * 1048576.0, "vector_fp32",
     "{'op_shape': (16, 559, 1024), 'dtype_in_out': ('float', "
     "'c10::BFloat16'), 'stride_input': (572416, 1024, 1), "
     "'stride_output': (572416, 1024, 1)}"},
    {"unary silu", "aten::silu", "[[16,559,2816]]", "[" BF "]",
     "[[1574144,2816,1]]", "[\"\"]", NULL, NULL, 0, TLM_OK, 25186304.0, 1,
     96.078125 * 1048576.0, "vector_bf16",
     "{'op_shape': (16, 559, 2816), 'dtype_in_out': ('c10::BFloat16', "
     "None), 'stride_input': (1574144, 2816, 1), 'stride_output': None}"},
    {"unary long int scalar copy: no spec", "aten::copy_", "[[],[],[]]",
     "[\"long int\",\"long int\",\"Scalar\"]", "[[],[],[]]",
     "[\"\",\"\",\"True\"]", NULL, NULL, 0, TLM_OK, 1.0, 1, 16.0, "",
     "{'op_shape': (), 'dtype_in_out': ('long int', None), "
     "'stride_input': (), 'stride_output': None}"},
    {"unary 1-D shape tuple", "aten::neg", "[[1024]]", "[\"unsigned char\"]",
     "[[1]]", NULL, NULL, NULL, 0, TLM_OK, 1024.0, 1, 2048.0, "vector_fp8",
     "{'op_shape': (1024,), 'dtype_in_out': ('unsigned char', None), "
     "'stride_input': (1,), 'stride_output': None}"},

    /* ---- reduce ---- */
    {"reduce mean (Qwen)", "aten::mean", "[[16,559,1024],[],[],[]]",
     "[\"float\",\"ScalarList\",\"Scalar\",\"\"]",
     "[[572416,1024,1],[],[],[]]", "[\"\",\"[-1]\",\"True\",\"\"]", NULL,
     NULL, 0, TLM_OK, 9158656.0, 1, 36634628.0, "vector_fp32",
     "{'num_input_elems': 9158656, 'num_output_elems': 1, 'dtype_in_out': "
     "('float', None), 'reduce_type': 'mean'}"},
    {"reduce cumsum keeps n", "aten::cumsum", "[[4,8],[]]",
     "[" BF ",\"Scalar\"]", "[[8,1],[]]", "[\"\",\"1\"]", NULL, NULL, 0,
     TLM_OK, 32.0, 1, 128.0, "vector_bf16", NULL},
    {"reduce JSON dim list + keepdim", "aten::sum", "[[4,3,5]]",
     "[\"float\"]", NULL, "[\"\",[1],true]", NULL, NULL, 0, TLM_OK, 60.0, 1,
     60.0 * 4 + 20.0 * 4, "vector_fp32", NULL},
    {"reduce Output type", "aten::amax", "[[10,10]]", "[" BF "]", NULL,
     NULL, "[\"float\"]", NULL, 0, TLM_OK, 100.0, 1, 204.0, "vector_bf16",
     "{'num_input_elems': 100, 'num_output_elems': 1, 'dtype_in_out': "
     "('c10::BFloat16', 'float'), 'reduce_type': 'max'}"},
    {"reduce bwd pass", "aten::mean", "[[10,512,7,7],[],[],[]]",
     "[" BF ",\"ScalarList\",\"Scalar\",\"\"]", NULL,
     "[\"\",\"[-1, -2]\",\"True\",\"\"]", NULL, NULL, 1, TLM_OK, 250880.0,
     1, 501762.0, "vector_bf16", NULL},
    {"reduce without dims", "aten::sum", NULL, NULL, NULL, NULL, NULL, NULL,
     0, TLM_OK, 0.0, 0, 0.0, "",
     "{'num_input_elems': 0, 'num_output_elems': 0, 'dtype_in_out': (None, "
     "None)}"},

    /* ---- normalization ---- */
    {"batch_norm fwd (ResNet)", "aten::batch_norm",
     "[[10,64,56,56],[64],[64],[64],[64],[],[],[],[]]",
     "[" BF "," BF "," BF "," BF "," BF ",\"Scalar\",\"Scalar\",\"Scalar\","
     "\"Scalar\"]",
     "[[200704,3136,56,1],[1],[1],[1],[1],[],[],[],[]]",
     "[\"\",\"\",\"\",\"\",\"\",\"True\",\"0.1\",\"1e-05\",\"True\"]", NULL,
     NULL, 0, TLM_OK, 10035584.0, 1, 7.656982421875 * 1048576.0,
     "vector_bf16",
     "{'op_shape': (10, 64, 56, 56), 'dtype_in_out': ('c10::BFloat16', "
     "None), 'stride_input': (200704, 3136, 56, 1), 'stride_output': None, "
     "'num_channels': 64, 'has_bias': True, 'is_affine': True, "
     "'is_training': True}"},
    {"batch_norm bwd op (ResNet)", "aten::native_batch_norm_backward",
     "[[10,64,112,112],[10,64,112,112],[64],[64],[64],[64],[64],[],[],[]]",
     "[" BF "," BF "," BF "," BF "," BF ",\"float\",\"float\",\"Scalar\","
     "\"Scalar\",\"ScalarList\"]",
     "[[802816,12544,112,1],[802816,12544,112,1],[1],[1],[1],[1],[1],[],[],"
     "[]]",
     "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"True\",\"1e-05\","
     "\"[True, True, True]\"]",
     NULL, NULL, 0, TLM_OK, 72253440.0, 1, 45.93798828125 * 1048576.0,
     "vector_bf16",
     "{'op_shape': (10, 64, 112, 112), 'dtype_in_out': ('c10::BFloat16', "
     "None), 'stride_input': (802816, 12544, 112, 1), 'stride_output': "
     "None, 'num_channels': 64, 'has_bias': True, 'is_affine': True, "
     "'is_training': True, 'output_mask': [True]}"},
    {"batch_norm bwd pass undefined", "aten::batch_norm",
     "[[10,64,56,56],[64],[64],[64],[64],[],[],[],[]]",
     "[" BF "," BF "," BF "," BF "," BF "]",
     "[[200704,3136,56,1],[1],[1],[1],[1],[],[],[],[]]",
     "[\"\",\"\",\"\",\"\",\"\",\"True\"]", NULL, NULL, 1, TLM_EINVAL, 0, 0,
     0, NULL, NULL},
    {"layer_norm (ViT spec check)", "aten::layer_norm",
     "[[4,197,768],[],[768],[768],[],[]]",
     "[" BF ",\"ScalarList\"," BF "," BF ",\"Scalar\",\"Scalar\"]",
     "[[151296,768,1],[],[1],[1],[],[]]",
     "[\"\",\"[768]\",\"\",\"\",\"1e-06\",\"True\"]", NULL, NULL, 0, TLM_OK,
     3030528.0, 1, 2.3173828125 * 1048576.0, "vector_bf16", NULL},
    {"layer_norm backward", "aten::native_layer_norm_backward",
     "[[4,197,768],[4,197,768],[],[4,197,1],[4,197,1],[768],[768],[]]",
     "[" BF "," BF ",\"ScalarList\",\"float\",\"float\"," BF "," BF
     ",\"ScalarList\"]",
     "[[151296,768,1],[151296,768,1],[],[197,1,1],[197,1,1],[1],[1],[]]",
     "[\"\",\"\",\"[768]\",\"\",\"\",\"\",\"\",\"[True, True, True]\"]",
     NULL, NULL, 0, TLM_OK, 5446656.0, 1, 3637248.0, "vector_bf16", NULL},
    {"rms_norm fwd", "aten::_fused_rms_norm", "[[2,8,64],[],[64],[]]",
     "[" BF ",\"ScalarList\"," BF ",\"Scalar\"]", "[[512,64,1],[],[1],[]]",
     "[\"\",\"[64]\",\"\",\"1e-06\"]", NULL, NULL, 0, TLM_OK, 4128.0, 1,
     4224.0, "vector_bf16",
     "{'op_shape': (2, 8, 64), 'dtype_in_out': ('c10::BFloat16', None), "
     "'stride_input': (512, 64, 1), 'stride_output': None, 'num_channels': "
     "64, 'has_bias': False, 'is_affine': True, 'is_training': False}"},
    {"rms_norm backward", "aten::_fused_rms_norm_backward",
     "[[2,8,64],[2,8,64],[],[2,8,1],[64]]",
     "[" BF "," BF ",\"ScalarList\",\"float\"," BF "]",
     "[[512,64,1],[512,64,1],[],[8,1,1],[1]]",
     "[\"\",\"\",\"[64]\",\"\",\"\",\"[True, True]\"]", NULL, NULL, 0,
     TLM_OK, 10240.0, 1, 6400.0, "vector_bf16", NULL},
    {"group_norm backward: float channels", "aten::native_group_norm_backward",
     "[[2,32,8,8],[2,32,8,8],[2,4],[2,4],[32],[],[],[],[],[]]",
     "[\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\","
     "\"Scalar\",\"Scalar\",\"Scalar\",\"ScalarList\"]",
     "[[2048,64,8,1],[2048,64,8,1],[4,1],[4,1],[1],[],[],[],[],[]]",
     "[\"\",\"\",\"\",\"\",\"\",\"2\",\"32\",\"64\",\"4\","
     "\"[True, True, True]\"]",
     NULL, NULL, 0, TLM_OK, 8.0 * (4.0 * 512 + 5.0 * 512), 1,
     4096.0 * 4 + 4096.0 * 4 * 2 + 8 * 4 + 8 * 4 + 8 * 4 * 2, "vector_fp32",
     "{'op_shape': (2, 32, 8, 8), 'dtype_in_out': ('float', None), "
     "'stride_input': (2048, 64, 8, 1), 'stride_output': None, "
     "'num_channels': 8.0, 'has_bias': True, 'is_affine': True, "
     "'is_training': True, 'output_mask': [True, True, True]}"},
    {"instance_norm backward undefined", "aten::instance_norm_backward",
     "[[1]]", NULL, NULL, NULL, NULL, NULL, 0, TLM_EINVAL, 0, 0, 0, NULL,
     NULL},
    {"norm unknown dtype fails", "aten::layer_norm",
     "[[4,8],[],[8],[8],[],[]]", "[\"bool\"]", "[[8,1]]",
     "[\"\",\"[8]\"]", NULL, NULL, 0, TLM_ERANGE, 0, 0, 0, NULL, NULL},

    /* ---- no model ---- */
    {"no model", "aten::linear", "[[4,4],[4,4]]", NULL, NULL, NULL, NULL,
     NULL, 0, TLM_ENOTFOUND, 0, 0, 0, NULL, NULL},
    {"category-only op", "aten::miopen_convolution", "[[4,4],[4,4]]", NULL,
     NULL, NULL, NULL, NULL, 0, TLM_ENOTFOUND, 0, 0, 0, NULL, NULL},
};

static void test_model_cases(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const pcase *pc = &cases[i];
        tlm_perf_args a;
        tlm_perf_result r;
        tlm_error err;
        tlm_status st;
        const char *kn[1];
        memset(&a, 0, sizeof(a));
        a.name = pc->name;
        a.input_dims = pc->dims;
        a.input_types = pc->types;
        a.input_strides = pc->strides;
        a.concrete_inputs = pc->concrete;
        a.output_type = pc->outtype;
        if (pc->kernel != NULL) {
            kn[0] = pc->kernel;
            a.kernel_names = kn;
            a.n_kernels = 1;
        }
        tlm_error_clear(&err);
        st = tlm_perf_compute(&a, pc->bwd, &r, &err);
        if (st != pc->st) {
            fail_msg("%s: status %d (%s), expected %d", pc->label, (int)st,
                     err.msg, (int)pc->st);
        }
        if (st != TLM_OK) {
            assert_int_equal(err.code, st);
            assert_true(strlen(err.msg) > 0);
            continue;
        }
        if (r.flops != pc->flops) {
            fail_msg("%s: flops %.17g, expected %.17g", pc->label, r.flops,
                     pc->flops);
        }
        if (r.has_bytes != pc->has_bytes) {
            fail_msg("%s: has_bytes %d", pc->label, r.has_bytes);
        }
        if (pc->has_bytes && r.bytes != pc->bytes) {
            fail_msg("%s: bytes %.17g, expected %.17g", pc->label, r.bytes,
                     pc->bytes);
        }
        if (strcmp(r.compute_spec, pc->spec) != 0) {
            fail_msg("%s: spec '%s', expected '%s'", pc->label,
                     r.compute_spec, pc->spec);
        }
        assert_int_equal(r.bwd, pc->bwd);
        assert_int_equal(r.sheet, tlm_perf_sheet_for(pc->name, pc->bwd));
        if (pc->params != NULL) {
            char buf[4096];
            assert_int_equal(tlm_perf_params_repr(&r, buf, sizeof(buf)),
                             TLM_OK);
            if (strcmp(buf, pc->params) != 0) {
                fail_msg("%s:\n got  %s\n want %s", pc->label, buf,
                         pc->params);
            }
        }
    }
}

static void test_string_param_quoting(void **state)
{
    /* A dtype string holding a quote is repr'd with double quotes. */
    tlm_perf_args a;
    tlm_perf_result r;
    char buf[512];
    (void)state;
    memset(&a, 0, sizeof(a));
    a.name = "aten::neg";
    a.input_dims = "[[2]]";
    a.input_types = "[\"it's\"]";
    a.input_strides = "[[1]]";
    assert_int_equal(tlm_perf_compute(&a, 0, &r, NULL), TLM_OK);
    assert_int_equal(r.has_bytes, 0);
    assert_int_equal(tlm_perf_params_repr(&r, buf, sizeof(buf)), TLM_OK);
    assert_string_equal(buf, "{'op_shape': (2,), 'dtype_in_out': "
                             "(\"it's\", None), 'stride_input': (1,), "
                             "'stride_output': None}");
}

/* Issue 33, case 12: negative or overflowing dims give no figures (never
 * a negative Data Moved), marked out_of_range for the coverage note. */
static void test_dims_out_of_range(void **state)
{
    static const char *const dims[] = {
        "[[-64, 32], [32, 16]]", "[[64, 32], [32, -16]]",
        ("[[4611686018427387904, 4611686018427387904], "
         "[4611686018427387904, 16]]")};
    (void)state;
    for (size_t i = 0; i < 3; i++) {
        tlm_perf_args a;
        tlm_perf_result r;
        memset(&a, 0, sizeof(a));
        a.name = "aten::mm";
        a.input_dims = dims[i];
        a.input_types = "[\"float\", \"float\"]";
        a.input_strides = "[[32, 1], [16, 1]]";
        assert_int_equal(tlm_perf_compute(&a, 0, &r, NULL), TLM_ERANGE);
        assert_int_equal(r.out_of_range, 1);
        assert_false(r.has_bytes && r.bytes < 0);
    }
    tlm_perf_args a;
    tlm_perf_result r;
    memset(&a, 0, sizeof(a));
    a.name = "aten::mm";
    a.input_dims = "[[64, 32], [32, 16]]";
    a.input_types = "[\"float\", \"float\"]";
    assert_int_equal(tlm_perf_compute(&a, 0, &r, NULL), TLM_OK);
    assert_int_equal(r.out_of_range, 0);
}

/* ------------------------------------------------------------------ */
/* MARK: - Reference CSV conformance                                  */
/* ------------------------------------------------------------------ */

typedef struct csv {
    char *data;
    char ***rows; /* rows[r][c] */
    size_t nrows; /* including the header */
    size_t ncols;
} csv;

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* RFC 4180 parse in place (fields unquoted, "" -> "). */
static int csv_load(const char *path, csv *c)
{
    char *p, *w;
    size_t cap_rows = 64;
    memset(c, 0, sizeof(*c));
    c->data = read_all(path);
    if (c->data == NULL) {
        return 0;
    }
    c->rows = calloc(cap_rows, sizeof(char **));
    p = c->data;
    while (*p) {
        size_t cap_f = 16, nf = 0;
        char **fields = calloc(cap_f, sizeof(char *));
        for (;;) {
            char *start;
            if (nf + 1 >= cap_f) {
                cap_f *= 2;
                fields = realloc(fields, cap_f * sizeof(char *));
            }
            start = w = p;
            if (*p == '"') {
                p++;
                for (;;) {
                    if (*p == '"' && p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                    } else if (*p == '"') {
                        p++;
                        break;
                    } else if (*p == '\0') {
                        break;
                    } else {
                        *w++ = *p++;
                    }
                }
            } else {
                while (*p && *p != ',' && *p != '\n' && *p != '\r') {
                    *w++ = *p++;
                }
            }
            fields[nf++] = start;
            if (*p == ',') {
                *w = '\0';
                p++;
                continue;
            }
            if (*p == '\r') {
                *w = '\0';
                p++;
            }
            if (*p == '\n') {
                *w = '\0';
                p++;
            }
            *w = '\0';
            break;
        }
        if (c->nrows + 1 >= cap_rows) {
            cap_rows *= 2;
            c->rows = realloc(c->rows, cap_rows * sizeof(char **));
        }
        c->rows[c->nrows++] = fields;
        if (c->nrows == 1) {
            c->ncols = nf;
        }
    }
    return 1;
}

static void csv_free(csv *c)
{
    size_t i;
    for (i = 0; i < c->nrows; i++) {
        free(c->rows[i]);
    }
    free(c->rows);
    free(c->data);
}

static int csv_col(const csv *c, const char *name)
{
    size_t i;
    for (i = 0; i < c->ncols; i++) {
        if (strcmp(c->rows[0][i], name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Python literal (lists/tuples of ints, strings, None, bools) -> JSON. */
static void py2json(const char *in, char *out, size_t size)
{
    size_t o = 0;
    const char *p = in;
    while (*p && o + 8 < size) {
        if (*p == '\'' || *p == '"') {
            char q = *p++;
            out[o++] = '"';
            while (*p && *p != q && o + 8 < size) {
                if (*p == '\\' && p[1]) {
                    if (p[1] == '\'') {
                        out[o++] = '\'';
                    } else {
                        out[o++] = '\\';
                        out[o++] = p[1];
                    }
                    p += 2;
                    continue;
                }
                if (*p == '"') {
                    out[o++] = '\\';
                }
                out[o++] = *p++;
            }
            out[o++] = '"';
            if (*p) {
                p++;
            }
        } else if (*p == '(') {
            out[o++] = '[';
            p++;
        } else if (*p == ')' || *p == ']') {
            /* drop a trailing comma: (1024,) */
            size_t k = o;
            while (k > 0 && out[k - 1] == ' ') {
                k--;
            }
            if (k > 0 && out[k - 1] == ',') {
                o = k - 1;
            }
            out[o++] = ']';
            p++;
        } else if (strncmp(p, "None", 4) == 0) {
            memcpy(out + o, "null", 4);
            o += 4;
            p += 4;
        } else if (strncmp(p, "True", 4) == 0) {
            memcpy(out + o, "true", 4);
            o += 4;
            p += 4;
        } else if (strncmp(p, "False", 5) == 0) {
            memcpy(out + o, "false", 5);
            o += 5;
            p += 5;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

/* Kernel names from a kernel-details summary cell ('name': '...'). */
static size_t kernel_names(const char *cell, char names[][512], size_t max)
{
    size_t n = 0;
    const char *p = cell;
    while (n < max && (p = strstr(p, "'name': ")) != NULL) {
        char q;
        size_t k = 0;
        p += 8;
        q = *p++;
        while (*p && *p != q && k + 1 < 512) {
            names[n][k++] = *p++;
        }
        names[n][k] = '\0';
        n++;
    }
    return n;
}

static int close_enough(double a, double b)
{
    if (isnan(a) || isnan(b)) {
        return isnan(a) && isnan(b);
    }
    return fabs(a - b) <= 1e-12 * (fabs(b) > 1.0 ? fabs(b) : 1.0);
}

static double cell_num(const char *s)
{
    return s[0] ? strtod(s, NULL) : NAN;
}

/* Columns of a reference CSV that an op's perf model reads and writes:
 * "<col>_first" in the perf sheets, "<col>" in unified_perf_summary. */
typedef struct perf_cols {
    int name, dims, types, strides, concrete, gflops, mb, spec, kernels;
} perf_cols;

static int csv_col_sfx(const csv *c, const char *name, const char *suffix)
{
    char h[128];
    snprintf(h, sizeof(h), "%s%s", name, suffix);
    return csv_col(c, h);
}

static void find_cols(const csv *c, const char *suffix, const char *kcol,
                      perf_cols *k)
{
    k->name = csv_col(c, "name");
    k->dims = csv_col_sfx(c, "Input Dims", suffix);
    k->types = csv_col_sfx(c, "Input type", suffix);
    k->strides = csv_col_sfx(c, "Input Strides", suffix);
    k->concrete = csv_col_sfx(c, "Concrete Inputs", suffix);
    k->gflops = csv_col_sfx(c, "GFLOPS", suffix);
    k->mb = csv_col_sfx(c, "Data Moved (MB)", suffix);
    k->spec = csv_col(c, "Compute Spec");
    k->kernels = csv_col(c, kcol);
    assert_true(k->name >= 0 && k->dims >= 0 && k->types >= 0 &&
                k->strides >= 0 && k->concrete >= 0 && k->gflops >= 0 &&
                k->mb >= 0 && k->spec >= 0 && k->kernels >= 0);
}

/* Recomputes one row from its own input cells (Python literals turned
 * into JSON, kernel names from its kernel summary) and checks GFLOPS,
 * Data Moved and Compute Spec against the row's cells. */
static void check_row(const char *where, size_t r, char **row,
                      const perf_cols *k, int bwd, tlm_perf_result *res)
{
    static char jd[8192], jt[8192], js[8192], jc[8192];
    static char kn[16][512];
    const char *knp[16];
    size_t nk, i;
    tlm_perf_args a;
    tlm_error err;
    tlm_perf_metrics m;
    double g, mb;
    py2json(row[k->dims], jd, sizeof(jd));
    py2json(row[k->types], jt, sizeof(jt));
    py2json(row[k->strides], js, sizeof(js));
    py2json(row[k->concrete], jc, sizeof(jc));
    nk = kernel_names(row[k->kernels], kn, 16);
    for (i = 0; i < nk; i++) {
        knp[i] = kn[i];
    }
    memset(&a, 0, sizeof(a));
    a.name = row[k->name];
    a.input_dims = jd;
    a.input_types = jt;
    a.input_strides = js;
    a.concrete_inputs = jc;
    a.kernel_names = knp;
    a.n_kernels = nk;
    if (tlm_perf_compute(&a, bwd, res, &err) != TLM_OK) {
        fail_msg("%s row %zu %s: %s", where, r, a.name, err.msg);
    }
    tlm_perf_metrics_compute(res, 1.0, NULL, &m);
    g = cell_num(row[k->gflops]);
    mb = cell_num(row[k->mb]);
    if (!close_enough(m.gflops, g) || !close_enough(m.data_moved_mb, mb)) {
        fail_msg("%s row %zu %s: GFLOPS %.17g / %.17g, MB %.17g / %.17g",
                 where, r, a.name, m.gflops, g, m.data_moved_mb, mb);
    }
    if (strcmp(res->compute_spec, row[k->spec]) != 0) {
        fail_msg("%s row %zu %s: spec '%s' want '%s'", where, r, a.name,
                 res->compute_spec, row[k->spec]);
    }
}

/* Checks one perf sheet: every row recomputed from its inputs. */
static size_t check_sheet(const char *dir, const char *sheet, int bwd)
{
    char path[2048];
    csv c;
    perf_cols k;
    size_t r, i, checked = 0;
    tlm_perf_sheet want_sheet = TLM_PERF_SHEET_NONE;
    int s;
    snprintf(path, sizeof(path), "%s/%s.csv", dir, sheet);
    if (!csv_load(path, &c)) {
        return 0; /* the trace has no such sheet */
    }
    for (s = 0; s < TLM_PERF_SHEET_COUNT; s++) {
        if (strcmp(tlm_perf_sheet_name((tlm_perf_sheet)s), sheet) == 0) {
            want_sheet = (tlm_perf_sheet)s;
        }
    }
    find_cols(&c, "_first", "kernel_details__summarize_kernel_stats", &k);
    for (r = 1; r < c.nrows; r++) {
        char **row = c.rows[r];
        tlm_perf_result res;
        if (row[0][0] == '\0') {
            continue;
        }
        check_row(sheet, r, row, &k, bwd, &res);
        assert_int_equal(res.sheet, want_sheet);
        /* every param column: CSV cell == our str() ("" for None) */
        for (i = 0; i < c.ncols; i++) {
            const char *h = c.rows[0][i];
            const tlm_perf_param *p;
            const char *got;
            if (strncmp(h, "param: ", 7) != 0) {
                continue;
            }
            p = tlm_perf_result_param(&res, h + 7);
            got = (p == NULL || p->is_none) ? "" : p->value;
            /* a missing value is an empty cell (pandas >= 3) or "None"
             * (pandas 1.5, which wrote the shared CSVs), spec 4.6 */
            if (p != NULL && p->is_none && strcmp(row[i], "None") == 0) {
                continue;
            }
            /* an absent key: empty, or "nan" with pandas 1.5 */
            if (p == NULL && strcmp(row[i], "nan") == 0) {
                continue;
            }
            if (strcmp(got, row[i]) != 0) {
                fail_msg("%s row %zu %s: %s = '%s' want '%s'", sheet, r,
                         row[k.name], h, got, row[i]);
            }
        }
        checked++;
    }
    csv_free(&c);
    return checked;
}

/* Loads <dir>/<name>.csv, which must exist. */
static void load_ref(const char *dir, const char *name, csv *c)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
    assert_true(csv_load(path, c));
}

/* unified_perf_summary: perf_params repr and metrics of rows whose op has
 * its own model. */
static size_t check_unified(const char *dir)
{
    csv c;
    perf_cols k;
    int cp, cat;
    size_t r, checked = 0;
    load_ref(dir, "unified_perf_summary", &c);
    find_cols(&c, "", "kernel_details_summary", &k);
    cat = csv_col(&c, "op category");
    cp = csv_col(&c, "perf_params");
    assert_true(cp >= 0 && cat >= 0);
    for (r = 1; r < c.nrows; r++) {
        char **row = c.rows[r];
        static char rep[8192];
        tlm_perf_result res;
        if (row[0][0] == '\0' || !tlm_perf_has_model(row[k.name])) {
            continue;
        }
        /* op category as categorize_torch_op prints it */
        assert_string_equal(tlm_op_category(row[k.name], NULL), row[cat]);
        check_row("unified", r, row, &k, 0, &res);
        assert_int_equal(tlm_perf_params_repr(&res, rep, sizeof(rep)),
                         TLM_OK);
        if (strcmp(rep, row[cp]) != 0) {
            fail_msg("unified row %zu %s:\n got  %s\n want %s", r,
                     row[k.name], rep, row[cp]);
        }
        checked++;
    }
    csv_free(&c);
    return checked;
}

/* ops_unique_args: op category for every op, with the kernel fallback. */
static size_t check_categories(const char *dir)
{
    csv c;
    int cn, cat, ck;
    size_t r, checked = 0;
    load_ref(dir, "ops_unique_args", &c);
    cn = csv_col(&c, "name");
    cat = csv_col(&c, "op category");
    ck = csv_col(&c, "kernel_details_summary");
    assert_true(cn >= 0 && cat >= 0 && ck >= 0);
    for (r = 1; r < c.nrows; r++) {
        char **row = c.rows[r];
        static char kn[64][512];
        size_t nk = kernel_names(row[ck], kn, 64), i;
        int ok = 0;
        if (row[0][0] == '\0') {
            continue;
        }
        /* the summary is sorted by time, not ts: some kernel must be the
         * first one and give the category */
        if (nk == 0) {
            ok = strcmp(tlm_op_category(row[cn], NULL), row[cat]) == 0;
        }
        for (i = 0; i < nk && !ok; i++) {
            ok = strcmp(tlm_op_category(row[cn], kn[i]), row[cat]) == 0;
        }
        if (!ok) {
            fail_msg("ops_unique_args row %zu %s: category %s not produced",
                     r, row[cn], row[cat]);
        }
        checked++;
    }
    csv_free(&c);
    return checked;
}

static void test_reference_csvs(void **state)
{
    static const char *const traces[] = {"qwen_h100", "resnet_mi300"};
    static const struct {
        const char *sheet;
        int bwd;
    } sheets[] = {
        {"GEMM", 0},      {"SDPA_fwd", 0},          {"SDPA_bwd", 1},
        {"CONV_fwd", 0},  {"CONV_bwd", 0},          {"UnaryElementwise", 0},
        {"BinaryElementwise", 0}, {"Normalization", 0}, {"Reduce_fwd", 0},
        {"Reduce_bwd", 1},
    };
    const char *shared = getenv("TLM_SHARED_DIR");
    size_t t, s, total = 0;
    (void)state;
    if (shared == NULL || shared[0] == '\0') {
        skip();
    }
    for (t = 0; t < sizeof(traces) / sizeof(traces[0]); t++) {
        char dir[1024];
        char probe[1100];
        FILE *f;
        snprintf(dir, sizeof(dir), "%s/traces/%s/tracelens_csvs", shared,
                 traces[t]);
        snprintf(probe, sizeof(probe), "%s/GEMM.csv", dir);
        f = fopen(probe, "rb");
        if (f == NULL) {
            skip();
        }
        fclose(f);
        for (s = 0; s < sizeof(sheets) / sizeof(sheets[0]); s++) {
            total += check_sheet(dir, sheets[s].sheet, sheets[s].bwd);
        }
        total += check_unified(dir);
        total += check_categories(dir);
    }
    print_message("checked %zu reference CSV rows\n", total);
    /* qwen: 26 perf rows; resnet: ~100 perf rows, plus unified + ops */
    assert_true(total > 200);
}

/* Hostile inputs for every model: any status, never a crash (run under
 * ASan/UBSan in CI). */
static void test_robustness(void **state)
{
    static const char *const dims[] = {
        NULL, "[]", "[[]]", "[[],[],[],[],[],[],[],[],[],[],[],[]]",
        "[1,2,3]", "[null,null,null,null,null,null]", "{\"a\":1}",
        "[[9223372036854775807,9223372036854775807],[9223372036854775807,"
        "9223372036854775807,9223372036854775807,9223372036854775807]]",
        "[[-1,-5,3,2],[-1,-5,3,2],[-1,-5,3,2],[0],[0],[0],[0],[0],[0],[2],"
        "[3],[0]]",
        "[[0,0,0,0,0],[0,0,0,0,0],[0,0,0,0,0],[1],[1],[],[],[],[],[1],[1]]",
        "[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17],[1]]",
        "[[2,2,2,2],[2,2,2,2],[2,2,2,2],[2,2,2,2],[2],[2],[2],[2],[2],[2],"
        "[2],[2],[2],[2],[2],[2],[2],[2],[2]]",
        "[[\"x\"],[1.5,2]]",
    };
    static const char *const types[] = {
        NULL, "[]", "[\"float\",\"float\",\"float\",\"float\",\"float\","
        "\"float\",\"float\",\"float\",\"float\",\"float\",\"float\","
        "\"float\",\"float\",\"float\",\"float\",\"float\",\"float\","
        "\"float\",\"float\"]",
        "[1,2]", "[null,\"\"]", "\"float\"",
    };
    static const char *const concrete[] = {
        NULL, "[]",
        "[\"\",\"[0]\",\"[0]\",\"[0, 0]\",\"[0]\",\"\",\"True\","
        "\"[9223372036854775807]\",\"0\",\"[True]\",\"0\",\"0\",\"1\","
        "\"0\",\"0\",\"True\",\"\",\"\",\"\",\"\",\"\",\"\",\"\","
        "\"\",\"True\"]",
        "[1,[1,2],true,null,{},\"x\"]",
        "[\"[\",\"]\",\"[1,\",\"[,]\",\"nan\",\"1e400\",\"-\","
        "\"[99999999999999999999999]\",\"0\",\"\",\"\"]",
    };
    size_t n, e, i, j, k, n_ok = 0, n_fail = 0;
    const tlm_perf_op_entry *t = tlm_perf_op_table(&n);
    (void)state;
    for (e = 0; e < n; e++) {
        if (t[e].model == TLM_PM_NONE) {
            continue;
        }
        for (i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
            for (j = 0; j < sizeof(types) / sizeof(types[0]); j++) {
                for (k = 0; k < sizeof(concrete) / sizeof(concrete[0]); k++) {
                    tlm_perf_args a;
                    tlm_perf_result r;
                    tlm_error err;
                    int bwd;
                    static const char *const kn[2] = {"nvjet_x_T", "Cijk_"};
                    memset(&a, 0, sizeof(a));
                    a.name = t[e].name;
                    a.input_dims = dims[i];
                    a.input_types = types[j];
                    a.input_strides = dims[(i + 1) % 13];
                    a.concrete_inputs = concrete[k];
                    a.output_type = types[j];
                    a.kernel_names = kn;
                    a.n_kernels = 2;
                    for (bwd = 0; bwd < 2; bwd++) {
                        tlm_status st = tlm_perf_compute(&a, bwd, &r, &err);
                        if (st != TLM_OK) {
                            assert_int_equal(err.code, st);
                            n_fail++;
                        } else {
                            n_ok++;
                            char buf[8192];
                            assert_int_equal(
                                tlm_perf_params_repr(&r, buf, sizeof(buf)),
                                TLM_OK);
                        }
                    }
                }
            }
        }
    }
    print_message("robustness: %zu ok, %zu rejected\n", n_ok, n_fail);
    assert_true(n_ok > 100);
    assert_true(n_fail > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_cases),
        cmocka_unit_test(test_string_param_quoting),
        cmocka_unit_test(test_robustness),
        cmocka_unit_test(test_reference_csvs),
        cmocka_unit_test(test_dims_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
