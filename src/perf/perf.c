/*
 * perf.c - op categorisation, kernel-name categories, sheet assignment,
 * dtype tables, Python-style number formatting and the derived metrics
 * (TFLOPS/s, TB/s, roofline) of TraceLens's perf reports.
 *
 * The op registry is in perf_registry.c; the models in perf_models.c,
 * perf_models_ext.c, perf_infattn.c and perf_triton.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_internal.h"
#include "pyrepr.h"
#include "tlmpi/tlm_perf.h"

/* ------------------------------------------------------------------ */
/* MARK: - Op category (categorize_torch_op)                          */
/* ------------------------------------------------------------------ */

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *tlm_op_category(const char *name, const char *first_kernel_name)
{
    const tlm_perf_op_entry *e;
    if (name == NULL) {
        name = "";
    }
    /* 1. registry, exact name */
    e = tlm_perf_op_find(name);
    if (e != NULL) {
        return e->category;
    }
    /* 2. name patterns anchored at the start */
    if (starts_with(name, "triton")) {
        return "triton";
    }
    if (starts_with(name, "record_param_comms")) {
        return "record_param_comms";
    }
    /* 3. first kernel's name (case-sensitive, like Python's `in`) */
    if (first_kernel_name != NULL &&
        starts_with(first_kernel_name, "void at::native")) {
        if (strstr(first_kernel_name, "elementwise") != NULL) {
            return "elementwise";
        }
        if (strstr(first_kernel_name, "reduce") != NULL) {
            return "reduce";
        }
        if (strstr(first_kernel_name, "multi_tensor_apply") != NULL) {
            return "multi_tensor_apply";
        }
    }
    return "other";
}

/* ------------------------------------------------------------------ */
/* MARK: - Kernel-name categories                                     */
/* ------------------------------------------------------------------ */

/* tolower() of the "C" locale, the only one tlmpi runs in (nothing calls
 * setlocale): ASCII letters only. */
static unsigned char lower(char c)
{
    unsigned char u = (unsigned char)c;
    return u >= 'A' && u <= 'Z' ? (unsigned char)(u + ('a' - 'A')) : u;
}

/* A kernel name in lower case, for strstr() with the lower-case patterns
 * below: names are matched against dozens of patterns, so the name is
 * lowered once, not once per pattern and position.  Names longer than
 * the buffer are matched in place (icontains). */
typedef struct lname {
    char buf[1024];
    const char *s; /* buf, or NULL: too long */
} lname;

static void lname_set(lname *l, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof l->buf; i++)
        l->buf[i] = (char)lower(name[i]);
    l->buf[i] = '\0';
    l->s = name[i] ? NULL : l->buf;
}

/* Case-insensitive strstr. */
static int icontains(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);
    if (nl == 0) {
        return 1;
    }
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        while (i < nl && h[i] && lower(h[i]) == lower(needle[i])) {
            i++;
        }
        if (i == nl) {
            return 1;
        }
    }
    return 0;
}

/* needle (lower case) in the name. */
static int lcontains(const lname *l, const char *hay, const char *needle)
{
    return l->s ? strstr(l->s, needle) != NULL : icontains(hay, needle);
}

static int icontains_any(const lname *l, const char *hay,
                         const char *const *needles)
{
    size_t i;
    for (i = 0; needles[i] != NULL; i++) {
        if (lcontains(l, hay, needles[i])) {
            return 1;
        }
    }
    return 0;
}

static int is_comm(const lname *l, const char *name)
{
    return lcontains(l, name, "nccl") || lcontains(l, name, "rccl") ||
           lcontains(l, name, "cross_device_reduce");
}

int tlm_kernel_is_communication(const char *kernel_name)
{
    if (kernel_name == NULL) {
        return 0;
    }
    lname l;
    lname_set(&l, kernel_name);
    return is_comm(&l, kernel_name);
}

/* Pattern lists, one per category, tried in TLM_KCAT_LIST order, in
 * lower case (matched against the lowered name).  Sources:
 * TraceLens's JaxOpKeys and Agent classify_kernels.py ([perfreport] §5.2,
 * §5.3), checked against the kernels of the H100 Qwen and MI300 ResNet
 * traces. */
static const char *const k_memcpy[] = {
    "memcpy", "memory_copy_", "__amd_rocclr_copybuffer", NULL};
static const char *const k_memset[] = {
    "memset", "__amd_rocclr_fillbuffer", NULL};
static const char *const k_attention[] = {
    "flash_fwd", "flash_bwd", "flash_attn", "flash_fprop", "flash_bprop",
    "fmha", "attention", "attn_fwd", "attn_bwd", "mha_fwd", "mha_bwd",
    "ck_fused_attn", "reduce_segments", NULL};
static const char *const k_moe[] = {
    "fmoe", "moe_", "moegemm", "moesorting", "topkgating", "topk_forward",
    "finalizekernel", "routingindices", NULL};
static const char *const k_norm[] = {
    "rmsnorm", "rms_norm", "layernorm", "layer_norm", "batchnorm",
    "batch_norm", "groupnorm", "group_norm", "instancenorm", "instance_norm",
    "l2norm", NULL};
static const char *const k_conv[] = {
    "convolution", "conv1d", "conv2d", "conv3d", "grouped_conv",
    "naive_conv", "igemm_fwd", "igemm_bwd", "igemm_wrw", "fprop", "dgrad",
    "wgrad", "implicit_gemm", "implicit_convolve", "conv_fwd", "conv_bwd",
    "sp3asmconv", NULL};
static const char *const k_gemm[] = {
    "cijk_", "gemm", "nvjet", "cublas", "matmul", "bmm_", "wvsplitk",
    "splitkreduce", "xdlops", NULL};
static const char *const k_softmax[] = {"softmax", NULL};
static const char *const k_reduce[] = {
    "reduce", "triton_red_", "triton_per_", "cub::", "devicescan",
    "deviceradixsort", "radixsort", "pool_", "_pool", "argmax", "argmin",
    "topk", "top_k", NULL};
static const char *const k_quant[] = {"quant", NULL};
static const char *const k_elementwise[] = {
    "elementwise", "copy", "transpose", "fill", "index", "gather",
    "scatter", "embedding", "rotary", "rope", "silu", "gelu", "relu",
    "tensorop", "triton_poi_", "cat", "multi_tensor_apply", NULL};

tlm_kernel_category tlm_kernel_category_of(const char *kernel_name)
{
    if (kernel_name == NULL) {
        return TLM_KCAT_OTHER;
    }
    lname l;
    lname_set(&l, kernel_name);
    if (is_comm(&l, kernel_name)) {
        return TLM_KCAT_COMMUNICATION;
    }
    if (icontains_any(&l, kernel_name, k_memcpy)) {
        return TLM_KCAT_MEMCPY;
    }
    if (icontains_any(&l, kernel_name, k_memset)) {
        return TLM_KCAT_MEMSET;
    }
    if (icontains_any(&l, kernel_name, k_attention)) {
        return TLM_KCAT_ATTENTION;
    }
    if (icontains_any(&l, kernel_name, k_moe)) {
        return TLM_KCAT_MOE;
    }
    if (icontains_any(&l, kernel_name, k_norm)) {
        return TLM_KCAT_NORM;
    }
    if (icontains_any(&l, kernel_name, k_conv)) {
        return TLM_KCAT_CONV;
    }
    if (icontains_any(&l, kernel_name, k_gemm)) {
        return TLM_KCAT_GEMM;
    }
    if (icontains_any(&l, kernel_name, k_softmax)) {
        return TLM_KCAT_SOFTMAX;
    }
    if (icontains_any(&l, kernel_name, k_reduce)) {
        return TLM_KCAT_REDUCE;
    }
    if (icontains_any(&l, kernel_name, k_quant)) {
        return TLM_KCAT_QUANT;
    }
    if (icontains_any(&l, kernel_name, k_elementwise)) {
        return TLM_KCAT_ELEMENTWISE;
    }
    return TLM_KCAT_OTHER;
}

const char *tlm_kernel_category_str(tlm_kernel_category c)
{
    static const char *const names[] = {
#define TLM_X_(e, s) s,
        TLM_KCAT_LIST(TLM_X_)
#undef TLM_X_
    };
    if ((int)c < 0 || c >= TLM_KCAT_COUNT) {
        return "other";
    }
    return names[c];
}

/* ------------------------------------------------------------------ */
/* MARK: - Sheets                                                     */
/* ------------------------------------------------------------------ */

const char *tlm_perf_sheet_name(tlm_perf_sheet s)
{
    static const char *const names[] = {
#define TLM_X_(e, str) str,
        TLM_PERF_SHEET_LIST(TLM_X_)
#undef TLM_X_
    };
    if ((int)s < 0 || s >= TLM_PERF_SHEET_COUNT) {
        return "";
    }
    return names[s];
}

int tlm_perf_has_model(const char *op_name)
{
    return tlm_perf_model_of(op_name) != TLM_PM_NONE;
}

int tlm_perf_can_model(const tlm_perf_args *args)
{
    tlm_perf_model_id m;
    if (args == NULL)
        return 0;
    m = tlm_perf_model_of(args->name);
    if (m == TLM_PM_TRITON)
        return tlm_perf_triton_can_model(args->input_dims, args->input_types,
                                         args->concrete_inputs) ||
               tlm_inductor_cache_has(args->inductor, args->name);
    return m != TLM_PM_NONE;
}

tlm_perf_family tlm_perf_family_of(tlm_perf_model_id m)
{
    switch (m) {
    case TLM_PM_MM: case TLM_PM_ADDMM: case TLM_PM_SCALED_MM:
    case TLM_PM_BMM: case TLM_PM_BADDBMM: case TLM_PM_TE_GEMM_TS:
    case TLM_PM_VLLM_GEMM_DQ: case TLM_PM_TEV2_GEMM:
        return TLM_FAM_GEMM;
    case TLM_PM_SDPA_FLASH: case TLM_PM_SDPA_EFFICIENT:
    case TLM_PM_SDPA_CUDNN: case TLM_PM_FA: case TLM_PM_FA_BWD:
    case TLM_PM_FA_VARLEN_FWD: case TLM_PM_FA_VARLEN_BWD:
    case TLM_PM_AITER_FA_FWD: case TLM_PM_AITER_FA_BWD:
    case TLM_PM_AITER_WRAP_V3_FWD: case TLM_PM_AITER_WRAP_V3_BWD:
    case TLM_PM_AITER_MHA_FWD: case TLM_PM_AITER_MHA_BWD:
    case TLM_PM_FA3_FWD: case TLM_PM_VLLM_ATTN: case TLM_PM_EVOFORMER:
        return TLM_FAM_SDPA;
    case TLM_PM_CONV: case TLM_PM_CONV_BWD: case TLM_PM_CONVBIAS:
    case TLM_PM_CONVBIAS_BWD:
        return TLM_FAM_CONV;
    case TLM_PM_UNARY:
        return TLM_FAM_UNARY;
    case TLM_PM_BINARY: case TLM_PM_LIGER:
        return TLM_FAM_BINARY;
    case TLM_PM_REDUCE:
        return TLM_FAM_REDUCE;
    case TLM_PM_BATCHNORM: case TLM_PM_BATCHNORM_BWD:
    case TLM_PM_LAYERNORM: case TLM_PM_LAYERNORM_BWD:
    case TLM_PM_GROUPNORM: case TLM_PM_GROUPNORM_BWD:
    case TLM_PM_INSTANCENORM: case TLM_PM_INSTANCENORM_BWD:
    case TLM_PM_RMSNORM: case TLM_PM_RMSNORM_BWD:
        return TLM_FAM_NORM;
    case TLM_PM_GEMM_A16W16: case TLM_PM_GEMM_A16W16_ATOMIC:
    case TLM_PM_ROCM_UNQ_GEMM:
        return TLM_FAM_GEMM;
    case TLM_PM_SILU_AND_MUL: case TLM_PM_UPSAMPLE: case TLM_PM_REPPAD:
        return TLM_FAM_UNARY;
    case TLM_PM_AITER_RMSNORM:
        return TLM_FAM_RMSNORM_EXT;
    case TLM_PM_SGL_ROTARY:
        return TLM_FAM_ROPE;
    case TLM_PM_STORE_CACHE: case TLM_PM_INF_ATTN:
    case TLM_PM_INF_ATTN_PREFILL:
        return TLM_FAM_INFATTN;
    case TLM_PM_TRITON:
        return TLM_FAM_TRITON;
    case TLM_PM_NONE:
    default:
        return TLM_FAM_NONE;
    }
}

const char *tlm_perf_model_category(const char *op_name, int bwd)
{
    const tlm_perf_op_entry *e = tlm_perf_op_find(op_name);
    if (e == NULL || e->model == TLM_PM_NONE) {
        return NULL;
    }
    switch (tlm_perf_family_of(e->model)) {
    case TLM_FAM_RMSNORM_EXT:
    case TLM_FAM_ROPE:
    case TLM_FAM_INFATTN:
        return bwd ? NULL : e->category;
    case TLM_FAM_GEMM:
        return bwd ? NULL : "GEMM";
    case TLM_FAM_SDPA:
        if (!bwd) {
            return e->category; /* SDPA_fwd, or SDPA_bwd for bwd ops */
        }
        return "SDPA_bwd";
    case TLM_FAM_CONV:
        return bwd ? "CONV_bwd" : e->category;
    case TLM_FAM_UNARY:
    case TLM_FAM_BINARY:
        return bwd ? NULL : "elementwise";
    case TLM_FAM_REDUCE:
        return bwd ? NULL : "reduce";
    case TLM_FAM_NORM:
        return bwd ? "NORM_bwd" : e->category;
    case TLM_FAM_NONE:
    default:
        return NULL;
    }
}

tlm_perf_sheet tlm_perf_sheet_for(const char *op_name, int bwd)
{
    const tlm_perf_op_entry *e = tlm_perf_op_find(op_name);
    if (e == NULL || e->model == TLM_PM_NONE) {
        return TLM_PERF_SHEET_NONE;
    }
    switch (tlm_perf_family_of(e->model)) {
    case TLM_FAM_RMSNORM_EXT:
        return bwd ? TLM_PERF_SHEET_NONE : TLM_PERF_SHEET_RMSNORM_FWD;
    case TLM_FAM_ROPE:
        return bwd ? TLM_PERF_SHEET_NONE : TLM_PERF_SHEET_ROPE_FWD;
    case TLM_FAM_INFATTN:
        return bwd ? TLM_PERF_SHEET_NONE : TLM_PERF_SHEET_INFATTN_FWD;
    case TLM_FAM_GEMM:
        return bwd ? TLM_PERF_SHEET_NONE : TLM_PERF_SHEET_GEMM;
    case TLM_FAM_SDPA:
        if (!bwd) {
            /* [QUIRK] only the varlen backward is moved to SDPA_bwd */
            return e->model == TLM_PM_FA_VARLEN_BWD ? TLM_PERF_SHEET_SDPA_BWD
                                                    : TLM_PERF_SHEET_SDPA_FWD;
        }
        return e->model == TLM_PM_VLLM_ATTN ? TLM_PERF_SHEET_NONE
                                            : TLM_PERF_SHEET_SDPA_BWD;
    case TLM_FAM_CONV:
        if (!bwd) {
            return (e->model == TLM_PM_CONV_BWD ||
                    e->model == TLM_PM_CONVBIAS_BWD)
                       ? TLM_PERF_SHEET_CONV_BWD
                       : TLM_PERF_SHEET_CONV_FWD;
        }
        /* [QUIRK] forward conv ops are removed from the bwd table */
        return (e->model == TLM_PM_CONV_BWD || e->model == TLM_PM_CONVBIAS_BWD)
                   ? TLM_PERF_SHEET_CONV_BWD
                   : TLM_PERF_SHEET_NONE;
    case TLM_FAM_UNARY:
        return bwd ? TLM_PERF_SHEET_NONE : TLM_PERF_SHEET_UNARY;
    case TLM_FAM_BINARY:
        return bwd ? TLM_PERF_SHEET_NONE : TLM_PERF_SHEET_BINARY;
    case TLM_FAM_NORM:
        return bwd ? TLM_PERF_SHEET_NONE : TLM_PERF_SHEET_NORM;
    case TLM_FAM_REDUCE:
        return bwd ? TLM_PERF_SHEET_REDUCE_BWD : TLM_PERF_SHEET_REDUCE_FWD;
    case TLM_FAM_NONE:
    default:
        return TLM_PERF_SHEET_NONE;
    }
}

/* ------------------------------------------------------------------ */
/* MARK: - Dtypes ([perfreport] §6.1 table)                                  */
/* ------------------------------------------------------------------ */

typedef struct dtype_info {
    const char *name; /* lower case */
    int bpe;          /* 0 = None */
    const char *precision;
} dtype_info;

static const dtype_info dtypes[] = {
    {"double", 8, "fp64"},
    {"long int", 8, NULL},
    {"float", 4, "fp32"},
    {"scalar", 4, NULL},
    {"int", 4, NULL},
    {"c10::half", 2, "fp16"},
    {"c10::bfloat16", 2, "bf16"},
    {"c10::float8_e4m3fnuz", 1, "fp8"},
    {"c10::float8_e4m3fn", 1, "fp8"},
    {"c10::float8_e5m2", 1, NULL},
    {"c10::float8_e8m0fnu", 1, NULL},
    {"unsigned char", 1, "fp8"},
    {"signed char", 1, NULL},
    {"fp8", 1, "fp8"},
    {"c10::float4_e2m1fn_x2", 1, "fp4"},
    {"fp4", 1, "fp4"},
    {"mxfp4", 0, "fp4"},
};

static const dtype_info *dtype_find(const char *dtype)
{
    size_t i;
    if (dtype == NULL) {
        return NULL;
    }
    for (i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
        const char *a = dtypes[i].name;
        const char *b = dtype;
        while (*a && *b && *a == (char)tolower((unsigned char)*b)) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0') {
            return &dtypes[i];
        }
    }
    return NULL;
}

int tlm_perf_dtype_bpe(const char *dtype)
{
    const dtype_info *d = dtype_find(dtype);
    return d ? d->bpe : 0;
}

const char *tlm_perf_dtype_precision(const char *dtype)
{
    const dtype_info *d = dtype_find(dtype);
    return d ? d->precision : NULL;
}

/* ------------------------------------------------------------------ */
/* MARK: - Python float repr                                          */
/* ------------------------------------------------------------------ */

char *tlm_perf_float_repr(double x, char *buf, size_t size)
{
    if (buf != NULL && size > 0)
        tlm_py_float_repr(x, buf, size);
    return buf;
}

/* ------------------------------------------------------------------ */
/* MARK: - Params                                                     */
/* ------------------------------------------------------------------ */

const tlm_perf_param *tlm_perf_result_param(const tlm_perf_result *r,
                                            const char *name)
{
    size_t i;
    if (r == NULL || name == NULL) {
        return NULL;
    }
    for (i = 0; i < r->n_params && i < TLM_PERF_MAX_PARAMS; i++) {
        if (strcmp(r->params[i].name, name) == 0) {
            return &r->params[i];
        }
    }
    return NULL;
}

tlm_status tlm_perf_params_repr(const tlm_perf_result *r, char *buf,
                                size_t size)
{
    size_t used = 0;
    size_t i;
    int trunc = 0;
    if (buf == NULL || size == 0) {
        return TLM_EINVAL;
    }
    buf[0] = '\0';
    if (r == NULL) {
        return TLM_EINVAL;
    }
#define APPEND_(...)                                                      \
    do {                                                                  \
        int k_ = snprintf(buf + used, size - used, __VA_ARGS__);          \
        if (k_ < 0 || (size_t)k_ >= size - used) {                        \
            trunc = 1;                                                    \
            used = size - 1;                                              \
        } else {                                                          \
            used += (size_t)k_;                                           \
        }                                                                 \
    } while (0)
    APPEND_("{");
    for (i = 0; i < r->n_params && i < TLM_PERF_MAX_PARAMS && !trunc; i++) {
        const tlm_perf_param *pp = &r->params[i];
        APPEND_("%s'%s': ", i ? ", " : "", pp->name);
        if (pp->is_none) {
            APPEND_("None");
        } else if (pp->is_str) {
            char q[2 * TLM_PERF_PARAM_VALUE + 8];
            tlm_py_str_repr(pp->value, strlen(pp->value), q, sizeof(q));
            APPEND_("%s", q);
        } else {
            APPEND_("%s", pp->value);
        }
    }
    if (!trunc) {
        APPEND_("}");
    }
#undef APPEND_
    return trunc ? TLM_ELIMIT : TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - Metrics and roofline                                       */
/* ------------------------------------------------------------------ */

const char *tlm_roofline_bound_str(tlm_roofline_bound b)
{
    switch (b) {
    case TLM_ROOFLINE_COMPUTE_BOUND:
        return "COMPUTE_BOUND";
    case TLM_ROOFLINE_MEMORY_BOUND:
        return "MEMORY_BOUND";
    case TLM_ROOFLINE_NONE:
    default:
        return "";
    }
}

void tlm_perf_metrics_from(double flops, int has_bytes, double bytes,
                           const char *compute_spec, double kernel_time_us,
                           const tlm_gpu_arch *arch, tlm_perf_metrics *m)
{
    double t = kernel_time_us;
    double peak;
    double bw;
    m->gflops = flops / 1e9;
    m->tflops_s = t != 0.0 ? (m->gflops / 1e3) / (t / 1e6) : NAN;
    m->data_moved_mb = has_bytes ? bytes / 1048576.0 : NAN;
    m->flops_per_byte =
        (has_bytes && bytes != 0.0) ? m->gflops * 1e9 / bytes : NAN;
    m->tb_s = (has_bytes && t != 0.0) ? (bytes / 1e12) / (t / 1e6) : NAN;
    m->roofline_time_us = NAN;
    m->bound = TLM_ROOFLINE_NONE;
    m->pct_roofline = NAN;
    m->peak_tflops = NAN;
    m->attainable_tflops = NAN;
    m->ridge_flops_per_byte = NAN;
    if (arch == NULL) {
        return;
    }
    peak = tlm_gpu_arch_peak_tflops(arch, compute_spec);
    bw = arch->mem_bw_gbps;
    m->peak_tflops = peak;
    if (!isnan(peak) && peak > 0.0 && bw > 0.0) {
        m->ridge_flops_per_byte = peak * 1e12 / (bw * 1e9);
        if (!isnan(m->flops_per_byte)) {
            double mem_tflops = m->flops_per_byte * bw * 1e9 / 1e12;
            m->attainable_tflops = mem_tflops < peak ? mem_tflops : peak;
        }
    }
    if (!isnan(peak) && peak != 0.0 && bw != 0.0 && has_bytes &&
        m->gflops > 0.0) {
        double compute_us = m->gflops * 1e9 / (peak * 1e12) * 1e6;
        double memory_us = bytes / (bw * 1e9) * 1e6;
        m->roofline_time_us = compute_us > memory_us ? compute_us : memory_us;
        m->bound = compute_us >= memory_us ? TLM_ROOFLINE_COMPUTE_BOUND
                                           : TLM_ROOFLINE_MEMORY_BOUND;
        m->pct_roofline = t != 0.0 ? m->roofline_time_us / t * 100.0 : NAN;
    }
}

void tlm_perf_metrics_compute(const tlm_perf_result *r, double kernel_time_us,
                              const tlm_gpu_arch *arch, tlm_perf_metrics *m)
{
    tlm_perf_metrics_from(r->flops, r->has_bytes, r->bytes, r->compute_spec,
                          kernel_time_us, arch, m);
}
