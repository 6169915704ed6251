/*
 * perf_triton.c - TraceLens's TritonCompiledPerfModel (addendum A4.5):
 * FLOPs and bytes of a Triton kernel compiled by torch.compile, from its
 * op event (triton_poi_*, triton_red_*, triton_per_*).
 *
 * The fused aten ops come from the kernel name
 * (triton_<poi|red|per>_fused_<ops>_<n>), segmented into known aten op
 * names by dynamic programming; each op has a FLOPs-per-element weight.
 * xnumel / rnumel are the last integer Concrete Inputs.  Bytes are the
 * sizes of the tensor inputs with a c10 dtype (Kineto's "float" and
 * "long int" count 0 [QUIRK]); pointwise kernels add one output.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_pm.h"
#include "search.h"

/* Names of PyTorch's aten operators the model knows (the KNOWN_OPS set
 * TraceLens generates from torch.ops.aten: 960 names), sorted by strcmp
 * for tlm_lower_bound. */
static const char *const known_ops[] = {
    "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward",
    "_adaptive_avg_pool3d", "_adaptive_avg_pool3d_backward", "_add_relu",
    "_addmm_activation", "_amp_foreach_non_finite_check_and_unscale_",
    "_assert_async", "_assert_scalar", "_assert_tensor_metadata",
    "_batch_norm_no_update", "_batch_norm_with_update",
    "_batch_norm_with_update_functional", "_cdist_backward", "_cdist_forward",
    "_cholesky_solve_helper", "_chunk_cat", "_convert_weight_to_int4pack",
    "_convert_weight_to_int4pack_for_cpu", "_convolution_pointwise",
    "_cslt_sparse_mm", "_cudnn_rnn", "_dir", "_dyn_quant_matmul_4bit",
    "_dyn_quant_pack_4bit_weight", "_efficient_attention_backward",
    "_efficient_attention_forward", "_embedding_bag",
    "_embedding_bag_backward", "_embedding_bag_dense_backward",
    "_embedding_bag_forward_only",
    "_embedding_bag_per_sample_weights_backward", "_euclidean_dist",
    "_fft_c2c", "_fft_c2r", "_fft_r2c", "_flash_attention_backward",
    "_flash_attention_forward", "_foreach_norm", "_functional_assert_async",
    "_functional_sym_constrain_range",
    "_functional_sym_constrain_range_for_size", "_fused_adam", "_fused_adam_",
    "_fused_adamw_", "_fused_dropout", "_fused_moving_avg_obs_fq_helper",
    "_fused_rms_norm", "_fused_rms_norm_backward", "_grouped_mm", "_int_mm",
    "_jagged_to_padded_dense_forward", "_linalg_det", "_linalg_eigh",
    "_linalg_eigvals", "_linalg_slogdet", "_linalg_solve_ex", "_linalg_svd",
    "_linear_pointwise", "_list_to_tensor", "_local_scalar_dense",
    "_log_softmax", "_log_softmax_backward_data", "_make_dep_token",
    "_make_token", "_masked_scale", "_mkl_linear", "_native_batch_norm_legit",
    "_native_batch_norm_legit_functional",
    "_native_batch_norm_legit_no_training", "_native_multi_head_attention",
    "_nested_tensor_from_tensor_list", "_nested_view_from_buffer",
    "_nested_view_from_buffer_copy", "_pack_padded_sequence",
    "_padded_dense_to_jagged_forward", "_pdist_backward", "_pdist_forward",
    "_pin_memory", "_prelu_kernel", "_prelu_kernel_backward", "_print",
    "_record_function_enter", "_record_function_enter_new",
    "_record_function_exit", "_reshape_alias", "_reshape_copy",
    "_resize_output", "_resize_output_", "_safe_softmax",
    "_scaled_dot_product_attention_math_for_mps",
    "_scaled_dot_product_cudnn_attention",
    "_scaled_dot_product_cudnn_attention_backward",
    "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_efficient_attention_backward",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_flash_attention_backward",
    "_scaled_dot_product_flash_attention_for_cpu",
    "_scaled_dot_product_flash_attention_for_cpu_backward",
    "_scaled_dot_product_fused_attention_overrideable", "_scaled_grouped_mm",
    "_scaled_mm", "_scaled_mm_v2", "_segment_reduce_backward", "_sink_tokens",
    "_softmax", "_softmax_backward_data",
    "_sparse_coo_tensor_with_dims_and_tensors",
    "_sparse_semi_structured_addmm", "_sparse_semi_structured_linear",
    "_sparse_semi_structured_mm", "_thnn_fused_lstm_cell",
    "_thnn_fused_lstm_cell_backward_impl", "_to_copy", "_unique2",
    "_unsafe_index", "_unsafe_index_put", "_unsafe_masked_index",
    "_unsafe_masked_index_put_accumulate", "_unsafe_view",
    "_upsample_bicubic2d_aa", "_upsample_bilinear2d_aa",
    "_upsample_bilinear2d_aa_backward", "_upsample_nearest_exact1d",
    "_upsample_nearest_exact2d", "_upsample_nearest_exact2d_backward",
    "_upsample_nearest_exact3d", "_weight_int4pack_mm",
    "_weight_int4pack_mm_for_cpu",
    "_weight_int4pack_mm_with_scales_and_zeros", "_weight_int8pack_mm",
    "_weight_norm_interface", "_weight_norm_interface_backward", "abs",
    "abs_", "absolute", "absolute_", "accumulate_grad_", "acos", "acos_",
    "acosh", "acosh_", "adaptive_max_pool2d", "adaptive_max_pool2d_backward",
    "adaptive_max_pool3d", "adaptive_max_pool3d_backward", "add", "add_",
    "addbmm", "addbmm_", "addcdiv", "addcdiv_", "addcmul", "addcmul_",
    "addmm", "addmm_", "addmv", "addmv_", "addr", "affine_grid_generator",
    "alias", "alias_copy", "all", "all_gather", "all_gather_coalesced",
    "all_gather_into_tensor", "all_gather_object", "all_reduce",
    "all_reduce_coalesced", "all_to_all", "all_to_all_single",
    "alpha_dropout", "amax", "amin", "aminmax", "angle", "annotate", "any",
    "append", "arange", "arccos", "arccos_", "arccosh", "arccosh_", "arcsin",
    "arcsin_", "arcsinh", "arcsinh_", "arctan", "arctan2", "arctan2_",
    "arctan_", "arctanh", "arctanh_", "argmax", "argmin", "as_strided",
    "as_strided_", "as_strided_copy", "as_strided_scatter", "asin", "asin_",
    "asinh", "asinh_", "atan", "atan2", "atan2_", "atan_", "atanh", "atanh_",
    "avg_pool2d", "avg_pool2d_backward", "avg_pool3d", "avg_pool3d_backward",
    "baddbmm", "baddbmm_", "batch_isend_irecv", "batch_norm_backward",
    "bernoulli", "bernoulli_", "bessel_i0", "bessel_i0e", "bessel_i1",
    "bessel_i1e", "bessel_j0", "bessel_j1", "binary_cross_entropy",
    "binary_cross_entropy_backward", "binary_cross_entropy_with_logits",
    "bincount", "bitwise_and", "bitwise_and_", "bitwise_left_shift",
    "bitwise_left_shift_", "bitwise_not", "bitwise_not_", "bitwise_or",
    "bitwise_or_", "bitwise_right_shift", "bitwise_right_shift_",
    "bitwise_xor", "bitwise_xor_", "block_diag", "bmm", "broadcast_in_dim",
    "broadcast_object_list", "broadcast_tensors", "bucketize", "c10d_logger",
    "cat", "cauchy", "cauchy_", "cbrt", "ceil", "ceil_", "celu", "celu_",
    "channel_shuffle", "cholesky", "cholesky_inverse", "cholesky_solve",
    "clamp", "clamp_", "clamp_max", "clamp_max_", "clamp_min", "clamp_min_",
    "clear", "clip", "clip_", "clone", "col2im", "collapse", "collapse_view",
    "complex", "conj", "conj_physical", "conj_physical_", "constant_pad_nd",
    "conv2d", "convert_element_type", "convolution", "convolution_backward",
    "copy", "copy_", "copy_strided", "copy_to", "copysign", "copysign_",
    "cos", "cos_", "cosh", "cosh_", "count", "count_nonzero",
    "cudnn_batch_norm", "cudnn_batch_norm_backward", "cummax", "cummin",
    "cumprod", "cumprod_", "cumsum", "cumsum_", "default_pg_timeout",
    "deg2rad", "deg2rad_", "dense_dim", "destroy_process_group", "detach",
    "device", "device_mesh", "device_put", "diag", "diag_embed", "diagonal",
    "diagonal_backward", "diagonal_copy", "diagonal_scatter", "difference",
    "difference_update", "digamma", "digamma_", "dim", "discard", "dist",
    "distributed_c10d", "div", "div_", "divide", "divide_", "dot", "dropout",
    "elu", "elu_", "elu_backward", "embedding", "embedding_dense_backward",
    "empty", "empty_like", "empty_permuted", "empty_strided", "eq", "eq_",
    "erf", "erf_", "erf_inv", "erfc", "erfc_", "erfcx", "erfinv", "erfinv_",
    "exp", "exp2", "exp2_", "exp_", "expand", "expand_copy", "expm1",
    "expm1_", "exponential", "exponential_", "extend", "eye", "fft_c2c",
    "fft_c2r", "fft_fft", "fft_fft2", "fft_fftn", "fft_fftshift", "fft_hfft",
    "fft_hfft2", "fft_hfftn", "fft_ifft", "fft_ifft2", "fft_ifftn",
    "fft_ifftshift", "fft_ihfft", "fft_ihfft2", "fft_ihfftn", "fft_irfft",
    "fft_irfft2", "fft_irfftn", "fft_r2c", "fft_rfft", "fft_rfft2",
    "fft_rfftn", "fill", "fill_", "fix", "fix_", "flip", "float_power_",
    "floor", "floor_", "floor_divide", "floor_divide_", "fmax", "fmin",
    "fmod", "fmod_", "frac", "frac_", "fractional_max_pool2d", "frexp",
    "full", "full_like", "gather", "gather_object", "gcd", "gcd_", "ge",
    "ge_", "gelu", "gelu_", "gelu_backward", "geometric", "geometric_",
    "get_backend", "get_backend_config", "get_debug_level",
    "get_default_backend_for_device", "get_global_rank", "get_group_rank",
    "get_node_local_rank", "get_pg_count", "get_process_group_ranks",
    "get_rank", "get_world_size", "glu", "glu_backward", "greater",
    "greater_", "greater_equal", "greater_equal_", "grid_sampler_2d",
    "grid_sampler_2d_backward", "grid_sampler_3d", "grid_sampler_3d_backward",
    "gru", "gt", "gt_", "hardshrink", "hardsigmoid", "hardsigmoid_",
    "hardsigmoid_backward", "hardswish", "hardswish_", "hardswish_backward",
    "hardtanh", "hardtanh_", "hardtanh_backward", "heaviside", "heaviside_",
    "hinge_embedding_loss", "histc", "huber_loss", "huber_loss_backward",
    "hypot", "hypot_", "i0", "i0_", "igamma", "igamma_", "igammac",
    "igammac_", "im2col", "imag", "index", "index_add", "index_add_",
    "index_copy", "index_copy_", "index_fill", "index_fill_", "index_put",
    "index_put_", "index_reduce", "index_reduce_", "index_select",
    "init_device_mesh", "init_process_group", "insert", "instance_norm",
    "int4mm_packed_weight_cpu", "intersection", "intersection_update", "iota",
    "is_available", "is_backend_available", "is_coalesced", "is_complex",
    "is_contiguous", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_non_overlapping_and_dense",
    "is_pinned", "is_same_size", "is_strides_like_format",
    "is_torchelastic_launched", "is_ucc_available", "is_xccl_available",
    "isdisjoint", "isfinite", "isin", "isinf", "isnan", "isneginf",
    "isposinf", "issubset", "issuperset", "istft", "item", "kthvalue",
    "layer_norm", "lcm", "lcm_", "ldexp", "ldexp_", "le", "le_", "leaky_relu",
    "leaky_relu_", "leaky_relu_backward", "lerp", "lerp_", "less", "less_",
    "less_equal", "less_equal_", "lgamma", "lgamma_", "lift", "lift_fresh",
    "lift_fresh_copy", "linalg_cholesky_ex", "linalg_cross", "linalg_eig",
    "linalg_eigvals", "linalg_householder_product", "linalg_inv_ex",
    "linalg_ldl_factor_ex", "linalg_ldl_solve", "linalg_lu",
    "linalg_lu_factor_ex", "linalg_lu_solve", "linalg_matrix_exp",
    "linalg_qr", "linalg_solve_triangular", "linalg_vector_norm", "linear",
    "linear_backward", "linear_dynamic_fp16", "linear_relu_dynamic_fp16",
    "linspace", "log", "log10", "log10_", "log1p", "log1p_", "log2", "log2_",
    "log_", "log_normal", "log_normal_", "log_sigmoid_backward",
    "log_sigmoid_forward", "logaddexp", "logaddexp2", "logcumsumexp",
    "logging_handlers", "logical_and", "logical_and_", "logical_not",
    "logical_not_", "logical_or", "logical_or_", "logical_xor",
    "logical_xor_", "logit", "logit_", "logit_backward", "logspace",
    "logsumexp", "lstm", "lt", "lt_", "lu_unpack", "margin_ranking_loss",
    "masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_",
    "masked_scatter_backward", "masked_select", "matmul", "max", "max_pool2d",
    "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "max_pool3d_with_indices", "max_pool3d_with_indices_backward",
    "max_unpool2d", "max_unpool3d", "maximum", "maximum_value", "mean",
    "median", "meshgrid", "min", "minimum", "minimum_value",
    "miopen_batch_norm", "miopen_batch_norm_backward", "miopen_rnn", "mish",
    "mish_", "mish_backward", "mkldnn_rnn_layer", "mkldnn_rnn_layer_backward",
    "mm", "mode", "monitored_barrier", "mse_loss", "mse_loss_backward", "mul",
    "mul_", "multi_margin_loss", "multilabel_margin_loss_forward",
    "multinomial", "multiply", "multiply_", "mv", "mvlgamma", "mvlgamma_",
    "name", "nan_to_num", "nan_to_num_", "nanmedian", "nansum", "narrow",
    "narrow_copy", "native_batch_norm", "native_batch_norm_backward",
    "native_dropout", "native_dropout_backward", "native_group_norm",
    "native_group_norm_backward", "native_layer_norm",
    "native_layer_norm_backward", "ndtri", "ne", "ne_", "neg", "neg_",
    "negative", "negative_", "new_empty", "new_empty_strided", "new_full",
    "new_group", "new_ones", "new_subgroups", "new_subgroups_by_enumeration",
    "new_zeros", "nextafter", "nextafter_", "nll_loss", "nll_loss2d_backward",
    "nll_loss2d_forward", "nll_loss_backward", "nll_loss_forward", "nonzero",
    "nonzero_numpy", "nonzero_static", "norm", "normal", "normal_",
    "not_equal", "not_equal_", "numel", "ones", "ones_like", "ormqr",
    "pad_sequence", "pairwise_distance", "pdist", "permute", "permute_copy",
    "philox_rand", "pin_memory", "pixel_shuffle", "pixel_unshuffle",
    "poisson", "polar", "polygamma", "pop", "positive", "pow", "pow_",
    "prelu", "prod", "qconv2d_pointwise", "qconv_pointwise",
    "qlinear_pointwise", "quantized_gru", "quantized_lstm", "rad2deg",
    "rad2deg_", "rand", "rand_like", "randint", "randint_like", "randn",
    "randn_like", "randperm", "real", "reciprocal", "reciprocal_",
    "recv_object_list", "reduce_op", "reduce_scatter",
    "reduce_scatter_tensor", "reflection_pad1d", "reflection_pad1d_backward",
    "reflection_pad2d", "reflection_pad2d_backward", "reflection_pad3d",
    "reflection_pad3d_backward", "register_rendezvous_handler", "relu",
    "relu6", "relu_", "remainder", "remainder_", "remote_device", "remove",
    "renorm", "renorm_", "repeat", "repeat_interleave", "replication_pad1d",
    "replication_pad1d_backward", "replication_pad2d",
    "replication_pad2d_backward", "replication_pad3d",
    "replication_pad3d_backward", "reshape", "resize", "resize_as",
    "resize_as_", "resize_storage_bytes_", "rev", "reverse", "rnn_relu",
    "rnn_tanh", "roll", "rot90", "round", "round_", "rrelu_with_noise",
    "rrelu_with_noise_", "rrelu_with_noise_backward",
    "rrelu_with_noise_functional", "rsqrt", "rsqrt_", "rsub", "scalar_tensor",
    "scatter", "scatter_", "scatter_add", "scatter_add_",
    "scatter_object_list", "scatter_reduce", "scatter_reduce_",
    "searchsorted", "segment_reduce", "select", "select_backward",
    "select_scatter", "selu", "selu_", "send_object_list", "set_",
    "set_debug_level", "set_debug_level_from_env", "sgn", "sgn_",
    "shift_left", "shift_right_arithmetic", "shrink_group", "sigmoid",
    "sigmoid_", "sigmoid_backward", "sign", "sign_", "signbit", "silu",
    "silu_", "silu_backward", "sin", "sin_", "sinc", "sinc_", "sinh", "sinh_",
    "size", "slice", "slice_backward", "slice_scatter", "smooth_l1_loss",
    "smooth_l1_loss_backward", "soft_margin_loss",
    "soft_margin_loss_backward", "softplus", "softplus_backward",
    "softshrink", "sort", "sparse_dim", "special_airy_ai",
    "special_bessel_j0", "special_bessel_j1", "special_bessel_y0",
    "special_bessel_y1", "special_chebyshev_polynomial_t",
    "special_chebyshev_polynomial_u", "special_chebyshev_polynomial_v",
    "special_chebyshev_polynomial_w", "special_entr", "special_erfcx",
    "special_hermite_polynomial_h", "special_hermite_polynomial_he",
    "special_i0e", "special_i1", "special_i1e",
    "special_laguerre_polynomial_l", "special_legendre_polynomial_p",
    "special_log_ndtr", "special_modified_bessel_i0",
    "special_modified_bessel_i1", "special_modified_bessel_k0",
    "special_modified_bessel_k1", "special_ndtr", "special_ndtri",
    "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
    "special_shifted_chebyshev_polynomial_t",
    "special_shifted_chebyshev_polynomial_u",
    "special_shifted_chebyshev_polynomial_v",
    "special_shifted_chebyshev_polynomial_w", "special_spherical_bessel_j0",
    "special_xlog1py", "special_zeta", "spherical_bessel_j0", "split",
    "split_dim", "split_group", "split_with_sizes", "split_with_sizes_copy",
    "sqrt", "sqrt_", "square", "square_", "squeeze", "squeeze_copy", "stack",
    "std", "std_mean", "stft", "storage_offset", "stride", "sub", "sub_",
    "subtract", "subtract_", "sum", "supports_complex", "svd",
    "sym_constrain_range", "sym_constrain_range_for_size", "sym_numel",
    "sym_size", "sym_storage_offset", "sym_stride", "symmetric_difference",
    "symmetric_difference_update", "t", "t_", "t_copy", "take", "tan", "tan_",
    "tanh", "tanh_", "tanh_backward", "tensor_split", "threshold",
    "threshold_", "threshold_backward", "to", "topk", "trace", "transpose",
    "transpose_", "transpose_copy", "triangular_solve", "tril", "tril_",
    "tril_indices", "triu", "triu_", "triu_indices", "true_divide",
    "true_divide_", "trunc", "trunc_", "unbind", "unbind_copy", "unfold",
    "unfold_backward", "unfold_copy", "uniform", "uniform_", "union",
    "unique_consecutive", "unique_dim", "unsafe_chunk", "unsafe_split",
    "unsafe_split_with_sizes", "unsqueeze", "unsqueeze_", "unsqueeze_copy",
    "update", "upsample_bicubic2d", "upsample_bilinear2d",
    "upsample_linear1d", "upsample_nearest1d", "upsample_nearest2d",
    "upsample_nearest2d_backward", "upsample_nearest3d",
    "upsample_trilinear3d", "var", "var_mean", "vdot", "view",
    "view_as_complex", "view_as_real", "view_copy", "view_of",
    "view_of_dtype", "where", "xlogy", "xlogy_", "xor_sum", "zero", "zero_",
    "zeros", "zeros_like", "zeta",
};

#define N_KNOWN (sizeof known_ops / sizeof known_ops[0])

const char *const *tlm_perf_known_aten_ops(size_t *n)
{
    if (n != NULL)
        *n = N_KNOWN;
    return known_ops;
}

/* A name that is not NUL-terminated: s[0..len). */
typedef struct opkey {
    const char *s;
    size_t len;
} opkey;

/* tlm_lower_bound's order: the key's name against a known_ops entry. */
static int cmp_opkey(const void *key, const void *elem)
{
    const opkey *k = key;
    const char *name = *(const char *const *)elem;
    int c = strncmp(k->s, name, k->len);
    if (c == 0 && name[k->len] != '\0')
        c = -1; /* s[0..len) is a proper prefix: it sorts first */
    return c;
}

int tlm_perf_is_known_aten_op(const char *s, size_t len)
{
    /* the names are unique (test_perf_models_ext checks the order) */
    opkey k = {s, len};
    size_t i = tlm_lower_bound(known_ops, N_KNOWN, sizeof *known_ops, &k,
                               cmp_opkey);
    return i < N_KNOWN && cmp_opkey(&k, &known_ops[i]) == 0;
}

/* FLOPs per element of an op (0 for anything else). */
static int fpe(const char *op)
{
    static const char *const w1[] = {"add", "sub", "mul", "div", "relu",
                                     "abs", "neg", "ne", "eq", "lt", "gt",
                                     "mean", "sum"};
    static const char *const w2[] = {"pow", "sqrt", "rsqrt", "var",
                                     "reciprocal"};
    static const char *const w4[] = {"exp", "log", "sigmoid", "tanh",
                                     "silu"};
    for (size_t i = 0; i < sizeof w1 / sizeof w1[0]; i++)
        if (!strcmp(op, w1[i]))
            return 1;
    for (size_t i = 0; i < sizeof w2 / sizeof w2[0]; i++)
        if (!strcmp(op, w2[i]))
            return 2;
    for (size_t i = 0; i < sizeof w4 / sizeof w4[0]; i++)
        if (!strcmp(op, w4[i]))
            return 4;
    return !strcmp(op, "gelu") ? 8 : 0;
}

/* Bytes per element of a dtype: the exact, case-sensitive c10 names. */
static int triton_bpe(const char *t)
{
    static const struct {
        const char *n;
        int b;
    } tab[] = {{"c10::BFloat16", 2}, {"c10::Half", 2}, {"c10::Float", 4},
               {"c10::Double", 8},   {"c10::Byte", 1}, {"c10::Char", 1},
               {"c10::Int", 4},      {"c10::Long", 8}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (!strcmp(t, tab[i].n))
            return tab[i].b;
    return 0;
}

static int node_is_int_text(const tlm_pj_node *n, int64_t *v)
{
    if (n == NULL || n->type != TLM_PJ_STR)
        return 0;
    if (strspn(n->str, " \t") == n->slen)
        return 0;
    return py_int(n->str, v);
}

static int list_nonempty(const tlm_pj_doc *d)
{
    const tlm_pj_node *r = tlm_pj_node_at(d, d->root);
    return r != NULL && r->type == TLM_PJ_ARR && r->count > 0;
}

int tlm_perf_triton_can_model(const char *dims, const char *types,
                              const char *concrete)
{
    const char *t[3] = {dims, types, concrete};
    tlm_pj_doc d[3];
    int ok = 1;
    memset(d, 0, sizeof d);
    for (int i = 0; i < 3; i++) {
        size_t off;
        const char *what;
        d[i].root = -1;
        if (ok && (t[i] == NULL ||
                   tlm_pj_parse(t[i], strlen(t[i]), 32, &d[i], &off,
                                &what) != TLM_OK ||
                   !list_nonempty(&d[i])))
            ok = 0;
    }
    if (ok) {
        const tlm_pj_node *r = tlm_pj_node_at(&d[2], d[2].root);
        int any = 0;
        for (size_t i = 0; i < r->count && !any; i++) {
            int64_t v;
            any = node_is_int_text(tlm_pj_child(&d[2], r, i), &v);
        }
        ok = any;
    }
    for (int i = 0; i < 3; i++)
        tlm_pj_free(&d[i]);
    return ok;
}

/* xnumel, rnumel: the last two integer Concrete Inputs (red/per), else
 * the last one and 1. */
static int triton_numels(pm_ctx *c, int reduction, double *x, double *r)
{
    size_t n;
    int64_t v[2] = {0, 0};
    size_t k = 0;
    if (!arg_len(c, A_CONCRETE, &n))
        return 0;
    for (size_t i = 0; i < n; i++) {
        int64_t t;
        if (node_is_int_text(arg_at(c, A_CONCRETE, i), &t)) {
            v[0] = v[1];
            v[1] = t;
            k++;
        }
    }
    if (k == 0) {
        pm_fail(c, TLM_EFORMAT, "no integer Concrete Inputs", NULL);
        return 0;
    }
    if (reduction && k >= 2) {
        *x = (double)v[0];
        *r = (double)v[1];
    } else {
        *x = (double)v[1];
        *r = 1.0;
    }
    return 1;
}

#define MAX_TOK 64

/* Segments the fused-op part of the name into known ops: ops[] get
 * (start, end) token ranges; returns the count, 0 when none. */
static size_t segment(char *const *tok, size_t nt, size_t (*ops)[2])
{
    /* best[i]: start j of the chosen op ending at token i (SIZE_MAX: i
     * not reachable); longest name first, the lowest j on ties */
    size_t best[MAX_TOK + 1];
    size_t blen[MAX_TOK + 1];
    char buf[512];
    best[0] = 0;
    for (size_t i = 1; i <= nt; i++) {
        best[i] = (size_t)-1;
        blen[i] = 0;
        for (size_t j = 0; j < i; j++) {
            if (j > 0 && best[j] == (size_t)-1)
                continue;
            size_t len = 0;
            int fits = 1;
            for (size_t q = j; q < i && fits; q++) {
                size_t tl = strlen(tok[q]);
                if (len + tl + 2 >= sizeof buf) {
                    fits = 0; /* longer than any known op */
                    break;
                }
                if (q > j)
                    buf[len++] = '_';
                memcpy(buf + len, tok[q], tl);
                len += tl;
            }
            buf[len] = '\0';
            if (fits && tlm_perf_is_known_aten_op(buf, len) &&
                (best[i] == (size_t)-1 || len > blen[i])) {
                best[i] = j;
                blen[i] = len;
            }
        }
    }
    if (nt == 0 || best[nt] == (size_t)-1)
        return 0;
    size_t n = 0;
    for (size_t i = nt; i > 0; i = best[i])
        n++;
    size_t k = n;
    for (size_t i = nt; i > 0; i = best[i]) {
        k--;
        ops[k][0] = best[i];
        ops[k][1] = i;
    }
    return n;
}

/* The fused ops of the name, ", "-joined as "aten.<op>" into list, and
 * their FLOPs per element summed into *w. */
static void fused_ops(const char *name, char *list, size_t cap, double *w)
{
    char tmp[512];
    char *tok[MAX_TOK];
    size_t nt = 0, ops[MAX_TOK][2];
    const char *p = strstr(name, "_fused_");
    list[0] = '\0';
    *w = 0.0;
    /* triton_(poi|red|per)_fused_(.+)_(\d+)$ */
    if (p != name + 10)
        return;
    p += 7;
    const char *us = strrchr(p, '_');
    if (us == NULL || us == p || us[1] == '\0' ||
        strspn(us + 1, "0123456789") != strlen(us + 1) ||
        (size_t)(us - p) >= sizeof tmp)
        return;
    memcpy(tmp, p, (size_t)(us - p));
    tmp[us - p] = '\0';
    for (char *s = tmp; nt < MAX_TOK;) {
        tok[nt++] = s;
        char *e = strchr(s, '_');
        if (e == NULL)
            break;
        *e = '\0';
        s = e + 1;
    }
    size_t n = segment(tok, nt, ops), len = 0;
    for (size_t k = 0; k < n; k++) {
        char op[512];
        size_t ol = 0;
        for (size_t q = ops[k][0]; q < ops[k][1] && ol < sizeof op; q++)
            ol += (size_t)snprintf(op + ol, sizeof op - ol, "%s%s",
                                   q > ops[k][0] ? "_" : "", tok[q]);
        *w += fpe(op);
        len += (size_t)snprintf(list + len, cap - len, "%saten.%s",
                                k ? ", " : "", op);
        if (len >= cap)
            len = cap - 1;
    }
}

/* Bytes of the tensor inputs; b0 = bpe of the first one, prec = dtype of
 * the first one with a size. */
static int triton_bytes(pm_ctx *c, double *bytes, int *b0,
                        const char **prec)
{
    size_t nd, nt;
    *bytes = 0.0;
    *b0 = -1;
    *prec = NULL;
    if (!arg_len(c, A_DIMS, &nd) || !arg_len(c, A_TYPES, &nt))
        return 0;
    for (size_t i = 0; i < nd && i < nt; i++) {
        const tlm_pj_node *d = arg_at(c, A_DIMS, i);
        const char *t = type_at(c, i);
        int64_t shp[MAX_DIMS];
        size_t n;
        if (d == NULL || t == NULL)
            return 0;
        if (!strcmp(t, "Scalar") || d->type != TLM_PJ_ARR || d->count == 0)
            continue;
        if (!node_shape(c, d, shp, &n))
            return 0;
        int b = triton_bpe(t);
        if (*b0 < 0)
            *b0 = b;
        if (b > 0 && *prec == NULL)
            *prec = t;
        *bytes += prod(shp, n) * b;
    }
    if (*b0 < 0)
        *b0 = 0;
    return 1;
}

/* V1 (--inductor_cache_dir): the kernel's wrapper in the Inductor cache
 * when its arguments cannot model it.  FLOPs = Σ fpe · xnumel · rnumel;
 * bytes = n · xnumel · b (pointwise: rnumel 1) or (n - 1) · xnumel ·
 * rnumel · b + xnumel · b, n the pointer args of a known dtype, b the
 * first one's bytes per element. */
static tlm_status pm_triton_v1(pm_ctx *c)
{
    tlm_inductor_v1_meta m;
    if (!tlm_inductor_v1(c->a->inductor, c->name, &m))
        return pm_fail(c, TLM_ENOTFOUND, "Triton op without arguments", NULL);
    TRY(p_str(c, "fused_ops", m.fused_ops));
    TRY(p_count(c, "xnumel", m.xnumel) && p_count(c, "rnumel", m.rnumel));
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    double b = m.bpe0, n = m.nptr, x = m.xnumel, r = m.rnumel;
    c->out->flops = m.fpe * x * r;
    c->out->has_bytes = 1;
    c->out->bytes = !m.nptr ? 0.0
                    : r > 1 ? (n - 1) * x * r * b + x * b
                            : n * x * b;
    c->maf = "vector";
    c->prec_dtype = NULL;
    c->prec_text[0] = '\0';
    return TLM_OK;
}

tlm_status pm_triton(pm_ctx *c)
{
    char list[TLM_PERF_PARAM_VALUE];
    double w, x, r, bytes;
    int b0;
    const char *prec;
    int pointwise = !strncmp(c->name, "triton_poi_", 11);
    if (!tlm_perf_triton_can_model(c->a->input_dims, c->a->input_types,
                                   c->a->concrete_inputs))
        return pm_triton_v1(c);
    TRY(triton_numels(c, !pointwise, &x, &r));
    fused_ops(c->name, list, sizeof list, &w);
    TRY(triton_bytes(c, &bytes, &b0, &prec));
    if (pointwise)
        bytes += (double)b0 * x;
    TRY(p_str(c, "fused_ops", list));
    TRY(p_count(c, "xnumel", x) && p_count(c, "rnumel", r));
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    c->out->flops = w * x * r;
    c->out->has_bytes = 1;
    c->out->bytes = bytes;
    c->maf = "vector";
    c->prec_dtype = NULL;
    if (prec != NULL) {
        const char *s = strrchr(prec, ':');
        s = s ? s + 1 : prec;
        size_t k = 0;
        for (; s[k] && k + 1 < sizeof c->prec_text; k++)
            c->prec_text[k] = (char)tolower((unsigned char)s[k]);
        c->prec_text[k] = '\0';
    }
    return TLM_OK;
}
