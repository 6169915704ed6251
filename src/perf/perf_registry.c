/*
 * perf_registry.c - the op registry: TraceLens's op_to_perf_model_class_map
 * (with the pseudo-op extension mappings of newer TraceLens, addendum A3)
 * plus CATEGORY_ONLY_OP_MAPPING (AMD-AGI/TraceLens:TraceLens/PerfModel/
 * torch_op_mapping.py, [perfreport] 5.1): every name maps to the category
 * categorize_torch_op prints and to the model tlmpi runs for it
 * (TLM_PM_NONE when tlmpi only knows the category).  It is kept sorted by
 * strcmp so lookups are a binary search; test_perf checks the order.
 */
#include <string.h>

#include "perf_internal.h"
#include "search.h"

/* ------------------------------------------------------------------ */
/* MARK: - Op registry                                                */
/* ------------------------------------------------------------------ */

#define M_NONE TLM_PM_NONE
#define M_MM TLM_PM_MM
#define M_ADDMM TLM_PM_ADDMM
#define M_SCALED_MM TLM_PM_SCALED_MM
#define M_BMM TLM_PM_BMM
#define M_BADDBMM TLM_PM_BADDBMM
#define M_TE_GEMM_TS TLM_PM_TE_GEMM_TS
#define M_VLLM_GEMM_DQ TLM_PM_VLLM_GEMM_DQ
#define M_TEV2_GEMM TLM_PM_TEV2_GEMM
#define M_SDPA_FLASH TLM_PM_SDPA_FLASH
#define M_SDPA_EFFICIENT TLM_PM_SDPA_EFFICIENT
#define M_SDPA_CUDNN TLM_PM_SDPA_CUDNN
#define M_FA TLM_PM_FA
#define M_FA_BWD TLM_PM_FA_BWD
#define M_FA_VARLEN_FWD TLM_PM_FA_VARLEN_FWD
#define M_FA_VARLEN_BWD TLM_PM_FA_VARLEN_BWD
#define M_AITER_FA_FWD TLM_PM_AITER_FA_FWD
#define M_AITER_FA_BWD TLM_PM_AITER_FA_BWD
#define M_AITER_WRAP_V3_FWD TLM_PM_AITER_WRAP_V3_FWD
#define M_AITER_WRAP_V3_BWD TLM_PM_AITER_WRAP_V3_BWD
#define M_AITER_MHA_FWD TLM_PM_AITER_MHA_FWD
#define M_AITER_MHA_BWD TLM_PM_AITER_MHA_BWD
#define M_FA3_FWD TLM_PM_FA3_FWD
#define M_VLLM_ATTN TLM_PM_VLLM_ATTN
#define M_EVOFORMER TLM_PM_EVOFORMER
#define M_CONV TLM_PM_CONV
#define M_CONV_BWD TLM_PM_CONV_BWD
#define M_CONVBIAS TLM_PM_CONVBIAS
#define M_CONVBIAS_BWD TLM_PM_CONVBIAS_BWD
#define M_UNARY TLM_PM_UNARY
#define M_BINARY TLM_PM_BINARY
#define M_LIGER TLM_PM_LIGER
#define M_REDUCE TLM_PM_REDUCE
#define M_BATCHNORM TLM_PM_BATCHNORM
#define M_BATCHNORM_BWD TLM_PM_BATCHNORM_BWD
#define M_LAYERNORM TLM_PM_LAYERNORM
#define M_LAYERNORM_BWD TLM_PM_LAYERNORM_BWD
#define M_GROUPNORM TLM_PM_GROUPNORM
#define M_GROUPNORM_BWD TLM_PM_GROUPNORM_BWD
#define M_INSTANCENORM TLM_PM_INSTANCENORM
#define M_INSTANCENORM_BWD TLM_PM_INSTANCENORM_BWD
#define M_RMSNORM TLM_PM_RMSNORM
#define M_RMSNORM_BWD TLM_PM_RMSNORM_BWD
#define M_GEMM_A16W16 TLM_PM_GEMM_A16W16
#define M_GEMM_A16W16_ATOMIC TLM_PM_GEMM_A16W16_ATOMIC
#define M_ROCM_UNQ_GEMM TLM_PM_ROCM_UNQ_GEMM
#define M_AITER_RMSNORM TLM_PM_AITER_RMSNORM
#define M_SILU_AND_MUL TLM_PM_SILU_AND_MUL
#define M_UPSAMPLE TLM_PM_UPSAMPLE
#define M_REPPAD TLM_PM_REPPAD
#define M_SGL_ROTARY TLM_PM_SGL_ROTARY
#define M_STORE_CACHE TLM_PM_STORE_CACHE
#define M_INF_ATTN TLM_PM_INF_ATTN
#define M_INF_ATTN_PREFILL TLM_PM_INF_ATTN_PREFILL

/* Sorted by strcmp.  Generated from the lists in [perfreport] §5.1 / 6.x. */
static const tlm_perf_op_entry op_table[] = {
    {"ConvBiasReLU_", "CONV_fwd", M_CONVBIAS},
    {"ConvBiasReLU_Backward", "CONV_bwd", M_CONVBIAS_BWD},
    {"ConvBias_", "CONV_fwd", M_CONVBIAS},
    {"ConvBias_Backward", "CONV_bwd", M_CONVBIAS_BWD},
    {"CrossEntropyFunction", "CrossEntropy_fwd", M_NONE},
    {"CrossEntropyFunctionBackward", "CrossEntropy_bwd", M_NONE},
    {"DaoAILab::_causal_conv1d_bwd_cpp", "SSM_bwd", M_NONE},
    {"DaoAILab::_causal_conv1d_fwd_cpp", "SSM_fwd", M_NONE},
    {"EvoformerAttention", "SDPA_fwd", M_EVOFORMER},
    {"FlashAttnFunc", "SDPA_fwd", M_FA},
    {"FlashAttnFuncBackward", "SDPA_bwd", M_NONE},
    {"FusedAttnFuncBackward", "SDPA_bwd", M_NONE},
    {"FusedRoPEFunc", "RoPE_fwd", M_NONE},
    {"FusedRoPEFuncBackward", "RoPE_bwd", M_NONE},
    {"LigerSiLUMulFunction", "elementwise", M_LIGER},
    {"MambaSplitConv1dScanCombinedFn", "SSM_fwd", M_NONE},
    {"MambaSplitConv1dScanCombinedFnBackward", "SSM_bwd", M_NONE},
    {"MoECombine", "MoE_comm_fwd", M_NONE},
    {"MoECombineBackward", "MoE_comm_bwd", M_NONE},
    {"MoEDispatch", "MoE_comm_fwd", M_NONE},
    {"MoEDispatchBackward", "MoE_comm_bwd", M_NONE},
    {"TokenPermuteMaskMap", "MoE_comm_fwd", M_NONE},
    {"TokenPermuteMaskMapBackward", "MoE_comm_bwd", M_NONE},
    {"_C::silu_and_mul", "elementwise", M_SILU_AND_MUL},
    {"_C_cache_ops::concat_and_cache_mla", "InferenceAttention", M_NONE},
    {"_C_cache_ops::reshape_and_cache_flash", "InferenceAttention", M_NONE},
    {"_C_custom_ar::all_reduce", "CustomCollective", M_NONE},
    {"_C_custom_ar::qr_all_reduce", "CustomCollective", M_NONE},
    {"_LayerNormLinearBackward_wgrad_mm", "GEMM", M_TEV2_GEMM},
    {"_LayerNormLinearBackward_xgrad_mm", "GEMM", M_TEV2_GEMM},
    {"_LayerNormLinear_yfwd_mm", "GEMM", M_TEV2_GEMM},
    {"_LinearBackward_wgrad_mm", "GEMM", M_TEV2_GEMM},
    {"_LinearBackward_xgrad_mm", "GEMM", M_TEV2_GEMM},
    {"_Linear_yfwd_mm", "GEMM", M_TEV2_GEMM},
    {"_OperationFuserAutogradFunction", "MoE_comm_fwd", M_NONE},
    {"_OperationFuserAutogradFunctionBackward", "MoE_comm_bwd", M_NONE},
    {"_moe_C::moe_align_block_size", "MoE_aux", M_NONE},
    {"aiter::_flash_attn_backward", "SDPA_bwd", M_AITER_FA_BWD},
    {"aiter::_flash_attn_forward", "SDPA_fwd", M_AITER_FA_FWD},
    {"aiter::_fuse_rmsnorm_fp4_quant", "RMSNorm", M_NONE},
    {"aiter::_gemm_a16w16_asm", "GEMM", M_NONE},
    {"aiter::_gemm_a4w4_asm", "GEMM", M_NONE},
    {"aiter::_gemm_a8w8_blockscale_bpreshuffle_asm", "GEMM", M_NONE},
    {"aiter::_groupnorm_run", "NORM_fwd", M_GROUPNORM},
    {"aiter::add_rmsnorm", "RMSNorm", M_AITER_RMSNORM},
    {"aiter::all_gather_reg", "CustomCollective", M_NONE},
    {"aiter::batched_gemm_a16wfp4_", "GEMM", M_NONE},
    {"aiter::biased_grouped_topk_hip", "MoE_aux", M_NONE},
    {"aiter::ck_moe_stage1", "MoE_unfused", M_NONE},
    {"aiter::ck_moe_stage2", "MoE_unfused", M_NONE},
    {"aiter::dynamic_per_group_scaled_quant", "GroupQuant", M_NONE},
    {"aiter::dynamic_per_group_scaled_quant_fp4", "GroupQuant", M_NONE},
    {"aiter::dynamic_per_tensor_quant", "GroupQuant", M_NONE},
    {"aiter::dynamic_per_token_scaled_quant", "GroupQuant", M_NONE},
    {"aiter::flatmm_a8w8_blockscale_asm", "GEMM", M_NONE},
    {"aiter::fmha_v3_fwd", "SDPA_fwd", M_AITER_MHA_FWD},
    {"aiter::fmha_v3_varlen_fwd", "InferenceAttention", M_INF_ATTN_PREFILL},
    {"aiter::fmoe_fp8_blockscale_g1u1", "MoE_fused", M_NONE},
    {"aiter::fmoe_g1u1", "MoE_fused", M_NONE},
    {"aiter::fused_add_rmsnorm_pad_", "RMSNorm", M_NONE},
    {"aiter::fused_allreduce_rmsnorm", "CustomCollective", M_NONE},
    {"aiter::fused_allreduce_rmsnorm_", "CustomCollective", M_NONE},
    {"aiter::fused_dynamic_mx_quant_moe_sort_hip", "GroupQuant", M_NONE},
    {"aiter::fused_dynamic_mxfp4_quant_moe_sort_hip", "MoE_aux", M_NONE},
    {"aiter::fused_moe_->_fused_dynamic_mxfp4_quant_moe_sort_kernel (Synthetic Op)",
     "MoE_aux", M_NONE},
    {"aiter::fused_qk_rope_cat_and_cache_mla", "RoPE_fwd", M_NONE},
    {"aiter::fused_qk_rope_concat_and_cache_mla", "RoPE_fwd", M_NONE},
    {"aiter::gelu_and_mul", "elementwise", M_NONE},
    {"aiter::gelu_tanh_and_mul", "elementwise", M_NONE},
    {"aiter::gemm_a16w16", "GEMM", M_GEMM_A16W16},
    {"aiter::gemm_a16w16_atomic_", "GEMM", M_GEMM_A16W16_ATOMIC},
    {"aiter::gemm_a4w4", "GEMM", M_NONE},
    {"aiter::gemm_a8w8_blockscale_bpreshuffle_ck", "GEMM", M_NONE},
    {"aiter::gemm_a8w8_blockscale_bpreshuffle_cktile", "GEMM", M_NONE},
    {"aiter::gemm_a8w8_blockscale_ck", "GEMM", M_NONE},
    {"aiter::gemm_a8w8_blockscale_cktile", "GEMM", M_NONE},
    {"aiter::gemm_a8w8_bpreshuffle", "GEMM", M_NONE},
    {"aiter::gemm_a8w8_bpreshuffle_ck", "GEMM", M_NONE},
    {"aiter::gemm_a8w8_ck", "GEMM", M_NONE},
    {"aiter::gemm_afp4wfp4_", "GEMM", M_NONE},
    {"aiter::get_mla_metadata_v1", "InferenceAttention", M_NONE},
    {"aiter::gfx950_a8w8_blockscale_asm", "GEMM", M_NONE},
    {"aiter::grouped_topk", "MoE_aux", M_NONE},
    {"aiter::indexer_score_topk", "InferenceAttention", M_NONE},
    {"aiter::linear_attention_with_output_base", "InferenceAttention", M_NONE},
    {"aiter::mha_batch_prefill", "InferenceAttention", M_INF_ATTN_PREFILL},
    {"aiter::mha_bwd", "SDPA_bwd", M_AITER_MHA_BWD},
    {"aiter::mha_fwd", "SDPA_fwd", M_AITER_MHA_FWD},
    {"aiter::mha_varlen_fwd", "InferenceAttention", M_INF_ATTN},
    {"aiter::mhc_fused_post_pre_gemm_sqrsum", "mHC", M_NONE},
    {"aiter::mhc_post", "mHC", M_NONE},
    {"aiter::mhc_pre_big_fuse_rmsnorm", "mHC", M_NONE},
    {"aiter::mhc_pre_gemm_sqrsum", "mHC", M_NONE},
    {"aiter::mixed_sample_outer_exponential", "elementwise", M_NONE},
    {"aiter::moe_align_block_size", "MoE_aux", M_NONE},
    {"aiter::moe_cktile2stages_gemm1_ck", "MoE_unfused", M_NONE},
    {"aiter::moe_cktile2stages_gemm2_ck", "MoE_unfused", M_NONE},
    {"aiter::moe_fused_gate", "MoE_aux", M_NONE},
    {"aiter::moe_sorting_fwd", "MoE_aux", M_NONE},
    {"aiter::moe_sorting_opus_fwd", "MoE_aux", M_NONE},
    {"aiter::moe_sum", "MoE_aux", M_NONE},
    {"aiter::mxfp4_moe_sort_hip", "MoE_aux", M_NONE},
    {"aiter::pa_decode_gluon", "InferenceAttention", M_NONE},
    {"aiter::pa_sparse_prefill_opus_fwd", "InferenceAttention", M_NONE},
    {"aiter::reduce_scatter", "CustomCollective", M_NONE},
    {"aiter::rms_norm", "RMSNorm", M_AITER_RMSNORM},
    {"aiter::rmsnorm", "RMSNorm", M_AITER_RMSNORM},
    {"aiter::rmsnorm2d_fwd_ck", "RMSNorm", M_AITER_RMSNORM},
    {"aiter::rmsnorm2d_fwd_with_add_ck", "RMSNorm", M_AITER_RMSNORM},
    {"aiter::rmsnorm2d_fwd_with_dynamicquant_ck", "RMSNorm", M_NONE},
    {"aiter::rmsnorm_quant", "RMSNorm", M_NONE},
    {"aiter::rope_cached_positions_2c_fwd_impl", "RoPE_fwd", M_NONE},
    {"aiter::silu_and_mul", "elementwise", M_SILU_AND_MUL},
    {"aiter::topk_sigmoid", "MoE_aux", M_NONE},
    {"aiter::topk_softmax", "MoE_aux", M_NONE},
    {"aiter::topk_softmax_asm", "MoE_aux", M_NONE},
    {"aiter::topk_softplus", "MoE_aux", M_NONE},
    {"aiter::wrapper_fmha_v3_bwd", "SDPA_bwd", M_AITER_WRAP_V3_BWD},
    {"aiter::wrapper_fmha_v3_fwd", "SDPA_fwd", M_AITER_WRAP_V3_FWD},
    {"aten::_efficient_attention_backward", "SDPA_bwd", M_NONE},
    {"aten::_efficient_attention_forward", "SDPA_fwd", M_NONE},
    {"aten::_fused_rms_norm", "NORM_fwd", M_RMSNORM},
    {"aten::_fused_rms_norm_backward", "NORM_bwd", M_RMSNORM_BWD},
    {"aten::_scaled_dot_product_cudnn_attention", "SDPA_fwd", M_SDPA_CUDNN},
    {"aten::_scaled_dot_product_cudnn_attention_backward", "SDPA_bwd", M_NONE},
    {"aten::_scaled_dot_product_efficient_attention",
     "SDPA_fwd", M_SDPA_EFFICIENT},
    {"aten::_scaled_dot_product_efficient_attention_backward",
     "SDPA_bwd", M_NONE},
    {"aten::_scaled_dot_product_flash_attention", "SDPA_fwd", M_SDPA_FLASH},
    {"aten::_scaled_dot_product_flash_attention_backward", "SDPA_bwd", M_NONE},
    {"aten::_scaled_mm", "GEMM", M_SCALED_MM},
    {"aten::add", "elementwise", M_BINARY},
    {"aten::add_", "elementwise", M_BINARY},
    {"aten::addmm", "GEMM", M_ADDMM},
    {"aten::amax", "reduce", M_REDUCE},
    {"aten::amin", "reduce", M_REDUCE},
    {"aten::baddbmm", "GEMM", M_BADDBMM},
    {"aten::batch_norm", "NORM_fwd", M_BATCHNORM},
    {"aten::batch_norm_backward", "NORM_bwd", M_BATCHNORM_BWD},
    {"aten::bmm", "GEMM", M_BMM},
    {"aten::clamp_max", "elementwise", M_UNARY},
    {"aten::clamp_max_", "elementwise", M_UNARY},
    {"aten::clamp_min", "elementwise", M_UNARY},
    {"aten::clamp_min_", "elementwise", M_UNARY},
    {"aten::convolution", "CONV_fwd", M_CONV},
    {"aten::convolution_backward", "CONV_bwd", M_CONV_BWD},
    {"aten::copy", "elementwise", M_UNARY},
    {"aten::copy_", "elementwise", M_UNARY},
    {"aten::cudnn_batch_norm", "NORM_fwd", M_BATCHNORM},
    {"aten::cudnn_batch_norm_backward", "NORM_bwd", M_BATCHNORM_BWD},
    {"aten::cudnn_convolution", "CONV_fwd", M_NONE},
    {"aten::cudnn_group_norm", "NORM_fwd", M_GROUPNORM},
    {"aten::cudnn_group_norm_backward", "NORM_bwd", M_GROUPNORM_BWD},
    {"aten::cudnn_instance_norm", "NORM_fwd", M_INSTANCENORM},
    {"aten::cudnn_instance_norm_backward", "NORM_bwd", M_INSTANCENORM_BWD},
    {"aten::cudnn_layer_norm", "NORM_fwd", M_LAYERNORM},
    {"aten::cudnn_layer_norm_backward", "NORM_bwd", M_LAYERNORM_BWD},
    {"aten::cudnn_rms_norm_backward", "NORM_bwd", M_RMSNORM_BWD},
    {"aten::cumprod", "reduce", M_REDUCE},
    {"aten::cumsum", "reduce", M_REDUCE},
    {"aten::div", "elementwise", M_BINARY},
    {"aten::div_", "elementwise", M_BINARY},
    {"aten::group_norm", "NORM_fwd", M_GROUPNORM},
    {"aten::group_norm_backward", "NORM_bwd", M_GROUPNORM_BWD},
    {"aten::instance_norm", "NORM_fwd", M_INSTANCENORM},
    {"aten::instance_norm_backward", "NORM_bwd", M_INSTANCENORM_BWD},
    {"aten::layer_norm", "NORM_fwd", M_LAYERNORM},
    {"aten::layer_norm_backward", "NORM_bwd", M_LAYERNORM_BWD},
    {"aten::linalg_norm", "reduce", M_REDUCE},
    {"aten::logsumexp", "reduce", M_REDUCE},
    {"aten::max", "reduce", M_REDUCE},
    {"aten::mean", "reduce", M_REDUCE},
    {"aten::min", "reduce", M_REDUCE},
    {"aten::miopen_batch_norm", "NORM_fwd", M_BATCHNORM},
    {"aten::miopen_batch_norm_backward", "NORM_bwd", M_BATCHNORM_BWD},
    {"aten::miopen_convolution", "CONV_fwd", M_NONE},
    {"aten::miopen_group_norm", "NORM_fwd", M_GROUPNORM},
    {"aten::miopen_group_norm_backward", "NORM_bwd", M_GROUPNORM_BWD},
    {"aten::miopen_instance_norm", "NORM_fwd", M_INSTANCENORM},
    {"aten::miopen_instance_norm_backward", "NORM_bwd", M_INSTANCENORM_BWD},
    {"aten::miopen_layer_norm", "NORM_fwd", M_LAYERNORM},
    {"aten::miopen_layer_norm_backward", "NORM_bwd", M_LAYERNORM_BWD},
    {"aten::miopen_rms_norm_backward", "NORM_bwd", M_RMSNORM_BWD},
    {"aten::mm", "GEMM", M_MM},
    {"aten::mul", "elementwise", M_BINARY},
    {"aten::mul_", "elementwise", M_BINARY},
    {"aten::native_batch_norm", "NORM_fwd", M_BATCHNORM},
    {"aten::native_batch_norm_backward", "NORM_bwd", M_BATCHNORM_BWD},
    {"aten::native_group_norm", "NORM_fwd", M_GROUPNORM},
    {"aten::native_group_norm_backward", "NORM_bwd", M_GROUPNORM_BWD},
    {"aten::native_instance_norm", "NORM_fwd", M_INSTANCENORM},
    {"aten::native_instance_norm_backward", "NORM_bwd", M_INSTANCENORM_BWD},
    {"aten::native_layer_norm", "NORM_fwd", M_LAYERNORM},
    {"aten::native_layer_norm_backward", "NORM_bwd", M_LAYERNORM_BWD},
    {"aten::native_rms_norm_backward", "NORM_bwd", M_RMSNORM_BWD},
    {"aten::neg", "elementwise", M_UNARY},
    {"aten::norm", "reduce", M_REDUCE},
    {"aten::pow", "elementwise", M_UNARY},
    {"aten::replication_pad1d", "elementwise", M_REPPAD},
    {"aten::replication_pad2d", "elementwise", M_REPPAD},
    {"aten::replication_pad3d", "elementwise", M_REPPAD},
    {"aten::rms_norm_backward", "NORM_bwd", M_RMSNORM_BWD},
    {"aten::rsqrt", "elementwise", M_UNARY},
    {"aten::sigmoid", "elementwise", M_UNARY},
    {"aten::sigmoid_backward", "elementwise", M_BINARY},
    {"aten::silu", "elementwise", M_UNARY},
    {"aten::std", "reduce", M_REDUCE},
    {"aten::sum", "reduce", M_REDUCE},
    {"aten::threshold_backward", "elementwise", M_BINARY},
    {"aten::upsample_nearest1d", "elementwise", M_UPSAMPLE},
    {"aten::upsample_nearest2d", "elementwise", M_UPSAMPLE},
    {"aten::upsample_nearest3d", "elementwise", M_UPSAMPLE},
    {"aten::var", "reduce", M_REDUCE},
    {"bitsandbytes::int8_linear_matmul", "GEMM", M_SCALED_MM},
    {"flash_attn::_flash_attn_backward", "SDPA_bwd", M_FA_BWD},
    {"flash_attn::_flash_attn_forward", "SDPA_fwd", M_FA},
    {"flash_attn::_flash_attn_varlen_backward", "SDPA_bwd", M_FA_VARLEN_BWD},
    {"flash_attn::_flash_attn_varlen_forward", "SDPA_fwd", M_FA_VARLEN_FWD},
    {"flash_attn_3::fwd", "SDPA_fwd", M_FA3_FWD},
    {"hipModuleLaunchKernel->kv_indices_generate_kernel (Synthetic Op)",
     "InferenceAttention", M_NONE},
    {"primus::fused_ln_modulate", "NORM_fwd", M_NONE},
    {"primus::fused_ln_modulate_backward", "NORM_bwd", M_NONE},
    {"primus_turbo::grouped_gemm", "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo::grouped_gemm_impl", "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo::grouped_gemm_variable_k", "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo::grouped_gemm_variable_k_impl", "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo::hipblaslt_gemm_fp4", "GEMM", M_NONE},
    {"primus_turbo::hipblaslt_gemm_fp8", "GEMM", M_NONE},
    {"primus_turbo_cpp_extension::ck_grouped_gemm", "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo_cpp_extension::ck_grouped_gemm_variable_k",
     "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo_cpp_extension::grouped_gemm", "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo_cpp_extension::grouped_gemm_variable_k",
     "GroupedGEMM_fwd", M_NONE},
    {"primus_turbo_cpp_extension::hipblaslt_gemm_fp4", "GEMM", M_NONE},
    {"primus_turbo_cpp_extension::hipblaslt_gemm_fp8", "GEMM", M_NONE},
    {"pseudo_mla_decode_fwd", "InferenceAttention", M_NONE},
    {"pseudo_mla_prefill_fwd", "InferenceAttention", M_NONE},
    {"pseudo_op::moe_aiter_fused_1stage", "MoE_fused", M_NONE},
    {"pseudo_op::moe_flydsl_stage1", "MoE_unfused", M_NONE},
    {"pseudo_op::moe_flydsl_stage2", "MoE_unfused", M_NONE},
    {"pseudo_op::moe_gptq_awq_down", "MoE_unfused", M_NONE},
    {"pseudo_op::moe_gptq_awq_up", "MoE_unfused", M_NONE},
    {"pseudo_op::moe_triton_unfused_down", "MoE_unfused", M_NONE},
    {"pseudo_op::moe_triton_unfused_up", "MoE_unfused", M_NONE},
    {"pseudo_v4_paged_decode_csa", "InferenceAttention", M_NONE},
    {"pseudo_v4_paged_decode_hca", "InferenceAttention", M_NONE},
    {"pseudo_v4_paged_decode_swa", "InferenceAttention", M_NONE},
    {"sgl_kernel::all_reduce_reg", "CustomCollective", M_NONE},
    {"sgl_kernel::qr_all_reduce", "CustomCollective", M_NONE},
    {"sgl_kernel::rotary_embedding", "RoPE_fwd", M_SGL_ROTARY},
    {"sgl_kernel::silu_and_mul", "elementwise", M_SILU_AND_MUL},
    {"sglang::reg_all_gather_into_tensor", "CustomCollective", M_NONE},
    {"sglang::store_cache", "InferenceAttention", M_STORE_CACHE},
    {"sglang_profiler::attention_paged_attention_ragged",
     "InferenceAttention", M_NONE},
    {"sglang_profiler::batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant_batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant",
     "GEMM", M_NONE},
    {"sglang_profiler::fp8_utils_gemm_a8w8_blockscale", "GEMM", M_NONE},
    {"sglang_profiler::fused_moe_triton_kernels_fused_append_shared_experts",
     "MoE_aux", M_NONE},
    {"sglang_profiler::fused_moe_triton_kernels_invoke_fused_moe_kernel",
     "MoE_unfused", M_NONE},
    {"sglang_profiler::fused_mxfp4_quant_fused_flatten_mxfp4_quant",
     "GroupQuant", M_NONE},
    {"sglang_profiler::fused_mxfp4_quant_fused_rms_mxfp4_quant",
     "RMSNorm", M_NONE},
    {"sglang_profiler::gemm_a8w8_blockscale_gemm_a8w8_blockscale",
     "GEMM", M_NONE},
    {"sglang_profiler::gemm_kernels_flydsl_hgemm",
     "GEMM", M_GEMM_A16W16_ATOMIC},
    {"sglang_profiler::quant_dynamic_mxfp4_quant", "GroupQuant", M_NONE},
    {"sglang_profiler::tilelang_kernel_tilelang_sparse_fwd",
     "InferenceAttention", M_NONE},
    {"tex_ts::te_gemm_ts", "GEMM", M_TE_GEMM_TS},
    {"trtllm::cublas_scaled_mm", "GEMM", M_SCALED_MM},
    {"vllm::_rocm_aiter_preshuffled_per_token_w8a8_gemm", "GEMM", M_NONE},
    {"vllm::gdn_attention_core", "InferenceAttention", M_NONE},
    {"vllm::gemm_with_dynamic_quant", "GEMM", M_VLLM_GEMM_DQ},
    {"vllm::rocm_aiter_rmsnorm_fp8_group_quant", "RMSNorm", M_NONE},
    {"vllm::rocm_aiter_rmsnorm_with_add_fp8_group_quant", "RMSNorm", M_NONE},
    {"vllm::rocm_aiter_triton_add_rmsnorm_pad", "RMSNorm", M_NONE},
    {"vllm::rocm_aiter_triton_gemm_a8w8_blockscale", "GEMM", M_NONE},
    {"vllm::rocm_unquantized_gemm", "GEMM", M_ROCM_UNQ_GEMM},
    {"vllm::triton_per_token_group_quant_fp8", "GroupQuant", M_NONE},
    {"vllm::unified_attention_with_output", "InferenceAttention", M_INF_ATTN},
};

const tlm_perf_op_entry *tlm_perf_op_table(size_t *n)
{
    if (n != NULL) {
        *n = sizeof(op_table) / sizeof(op_table[0]);
    }
    return op_table;
}

/* tlm_lower_bound's order: strcmp of the name and the entry's. */
static int cmp_op_name(const void *key, const void *elem)
{
    return strcmp(key, ((const tlm_perf_op_entry *)elem)->name);
}

const tlm_perf_op_entry *tlm_perf_op_find(const char *name)
{
    size_t n = sizeof(op_table) / sizeof(op_table[0]);
    if (name == NULL) {
        return NULL;
    }
    /* the names are unique (test_perf checks the order) */
    size_t i = tlm_lower_bound(op_table, n, sizeof op_table[0], name,
                               cmp_op_name);
    return i < n && !strcmp(name, op_table[i].name) ? &op_table[i] : NULL;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

tlm_perf_model_id tlm_perf_model_of(const char *name)
{
    const tlm_perf_op_entry *e = tlm_perf_op_find(name);
    if (e != NULL)
        return e->model;
    if (name != NULL && (starts_with(name, "triton_poi_") ||
                         starts_with(name, "triton_red_") ||
                         starts_with(name, "triton_per_")))
        return TLM_PM_TRITON;
    return TLM_PM_NONE;
}
