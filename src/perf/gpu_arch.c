/*
 * gpu_arch.c - GPU architectures for the roofline: a bundled table and a
 * loader for TraceLens's --gpu_arch_json_path files ([perfreport]
 * 6.1):
 *
 *   {"name": "MI300X", "mem_bw_gbps": 5300,
 *    "max_achievable_tflops": {"matrix_bf16": 708, "vector_fp32": 81, ...}}
 *
 * Keys of max_achievable_tflops are Compute Spec strings
 * ("<matrix|vector>_<precision>"), so the roofline looks a row's Compute
 * Spec up directly.  The bundled entries carry vendor datasheet peaks
 * (dense, i.e. without structured sparsity); the "-MAF" entries carry the
 * max-achievable numbers TraceLens ships for its --gpu_arch_platform, so
 * a tlmpi roofline can be compared with a TraceLens one.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"

/* ------------------------------------------------------------------ */
/* MARK: - Bundled table                                              */
/* ------------------------------------------------------------------ */

/* Largest arch JSON file or deviceProperties text read. */
#define ARCH_MAX_BYTES (1024 * 1024)

#define PK(k, v) {k, v}

/* The dense compute peaks of the MI300X, which the MI325X shares. */
#define MI300_PEAKS                                                           \
    {PK("matrix_fp64", 163.4), PK("matrix_fp32", 163.4),                      \
     PK("matrix_tf32", 653.7), PK("matrix_fp16", 1307.4),                     \
     PK("matrix_bf16", 1307.4), PK("matrix_fp8", 2614.9),                     \
     PK("matrix_int8", 2614.9), PK("vector_fp64", 81.7),                      \
     PK("vector_fp32", 163.4), PK("vector_fp16", 163.4),                      \
     PK("vector_bf16", 163.4)}

/* The V100's datasheet rates (dense; tensor cores FP16 only). */
#define V100_SXM2_PEAKS                                                       \
    {PK("matrix_fp16", 125.0), PK("matrix_fp32", 15.7),                      \
     PK("matrix_fp64", 7.8), PK("vector_fp32", 15.7), PK("vector_fp64", 7.8)}
#define V100_PCIE_PEAKS                                                       \
    {PK("matrix_fp16", 112.0), PK("matrix_fp32", 14.0),                      \
     PK("matrix_fp64", 7.0), PK("vector_fp32", 14.0), PK("vector_fp64", 7.0)}

/* One entry per GPU: rows of data, alike in shape by nature. */
static const tlm_gpu_arch bundled[] = {
    /* NVIDIA H100 SXM5 80GB.  NVIDIA H100 Tensor Core GPU Architecture
     * whitepaper (Table "H100 SXM5"), matching the H100 datasheet's dense
     * numbers: HBM3 3.35 TB/s; FP64 33.5, FP64 Tensor 66.9, FP32 66.9,
     * FP16/BF16 (non-tensor) 133.8, TF32 Tensor 494.7, FP16/BF16 Tensor
     * 989.4, FP8 Tensor 1978.9, INT8 Tensor 1978.9 TOPS. */
    {"H100", 3350.0, 80.0, 11,
     {PK("matrix_fp64", 66.9), PK("matrix_fp32", 66.9),
      PK("matrix_tf32", 494.7), PK("matrix_fp16", 989.4),
      PK("matrix_bf16", 989.4), PK("matrix_fp8", 1978.9),
      PK("matrix_int8", 1978.9), PK("vector_fp64", 33.5),
      PK("vector_fp32", 66.9), PK("vector_fp16", 133.8),
      PK("vector_bf16", 133.8)},
     "NVIDIA H100 SXM5 datasheet / H100 architecture whitepaper, dense"},
    /* NVIDIA H200 SXM 141GB.  NVIDIA H200 datasheet: HBM3e 4.8 TB/s;
     * compute as H100 SXM (same GH100 configuration; the datasheet's
     * sparse 1979 / 3958 TFLOPS are halved for dense). */
    {"H200", 4800.0, 141.0, 11,
     {PK("matrix_fp64", 66.9), PK("matrix_fp32", 66.9),
      PK("matrix_tf32", 494.7), PK("matrix_fp16", 989.4),
      PK("matrix_bf16", 989.4), PK("matrix_fp8", 1978.9),
      PK("matrix_int8", 1978.9), PK("vector_fp64", 33.5),
      PK("vector_fp32", 66.9), PK("vector_fp16", 133.8),
      PK("vector_bf16", 133.8)},
     "NVIDIA H200 SXM datasheet, dense (sparse figures halved)"},
    /* NVIDIA B200 (one GPU of HGX B200).  NVIDIA HGX B200 datasheet
     * figures for 8 GPUs divided by 8, sparse tensor figures halved:
     * HBM3e 8 TB/s, FP4 9000, FP8 4500, INT8 4500, FP16/BF16 2250,
     * TF32 1125, FP32 75, FP64/FP64 Tensor 37. */
    {"B200", 8000.0, 180.0, 12,
     {PK("matrix_fp64", 37.0), PK("matrix_fp32", 75.0),
      PK("matrix_tf32", 1125.0), PK("matrix_fp16", 2250.0),
      PK("matrix_bf16", 2250.0), PK("matrix_fp8", 4500.0),
      PK("matrix_int8", 4500.0), PK("matrix_fp4", 9000.0),
      PK("vector_fp64", 37.0), PK("vector_fp32", 75.0),
      PK("vector_fp16", 75.0), PK("vector_bf16", 75.0)},
     "NVIDIA HGX B200 datasheet / 8, dense (sparse figures halved)"},
    /* NVIDIA A100 SXM4 80GB.  NVIDIA A100 datasheet and A100 architecture
     * whitepaper: HBM2e 2039 GB/s; FP64 9.7, FP64 Tensor 19.5, FP32 19.5,
     * TF32 156, FP16/BF16 Tensor 312, INT8 624 TOPS, FP16 (non-tensor) 78,
     * BF16 (non-tensor) 39.  No FP8. */
    {"A100", 2039.0, 80.0, 10,
     {PK("matrix_fp64", 19.5), PK("matrix_fp32", 19.5),
      PK("matrix_tf32", 156.0), PK("matrix_fp16", 312.0),
      PK("matrix_bf16", 312.0), PK("matrix_int8", 624.0),
      PK("vector_fp64", 9.7), PK("vector_fp32", 19.5),
      PK("vector_fp16", 78.0), PK("vector_bf16", 39.0)},
     "NVIDIA A100 SXM4 80GB datasheet / A100 whitepaper, dense"},
    /* AMD Instinct MI300X.  AMD MI300X datasheet: HBM3 5.3 TB/s, 192 GB;
     * FP64 vector 81.7, FP32 vector 163.4, FP64 matrix 163.4, FP32 matrix
     * 163.4, TF32 653.7, FP16/BF16 1307.4, FP8 2614.9, INT8 2614.9 TOPS
     * (dense).  The datasheet gives no separate FP16/BF16 vector rate;
     * tlmpi uses the FP32 vector rate. */
    {"MI300X", 5300.0, 192.0, 11,
     MI300_PEAKS,
     "AMD Instinct MI300X datasheet, dense"},
    /* AMD Instinct MI325X.  AMD MI325X datasheet: HBM3E 6 TB/s, 256 GB;
     * compute as MI300X. */
    {"MI325X", 6000.0, 256.0, 11,
     MI300_PEAKS,
     "AMD Instinct MI325X datasheet, dense"},
    /* AMD Instinct MI355X.  AMD MI355X datasheet: HBM3E 8 TB/s, 288 GB;
     * FP64 vector/matrix 78.6, FP32 vector/matrix 157.3, FP16/BF16 2516.6,
     * FP8 5033.2, INT8 5033.2 TOPS, MXFP4 10066.3 (dense). */
    {"MI355X", 8000.0, 288.0, 11,
     {PK("matrix_fp64", 78.6), PK("matrix_fp32", 157.3),
      PK("matrix_fp16", 2516.6), PK("matrix_bf16", 2516.6),
      PK("matrix_fp8", 5033.2), PK("matrix_int8", 5033.2),
      PK("matrix_fp4", 10066.3), PK("vector_fp64", 78.6),
      PK("vector_fp32", 157.3), PK("vector_fp16", 157.3),
      PK("vector_bf16", 157.3)},
     "AMD Instinct MI355X datasheet, dense"},
    /* NVIDIA Tesla V100 (Volta).  NVIDIA Tesla V100 GPU Accelerator
     * datasheet (https://images.nvidia.com/content/technologies/volta/pdf/
     * volta-v100-datasheet-update-us-1165301-r5.pdf): V100 for NVLink
     * (SXM2): double precision 7.8, single precision 15.7, tensor 125
     * TFLOPS; V100 for PCIe: 7, 14, 112; both HBM2 900 GB/s, 16 or 32 GB.
     * Tensor cores are FP16 only (no TF32/BF16); the datasheet gives no
     * other rate.  Device names "Tesla V100-SXM2-32GB", ... (the SXM3,
     * DGXS, FHHL and V100S parts run at other clocks: not matched). */
    {"V100-SXM2-32GB", 900.0, 32.0, 5, V100_SXM2_PEAKS,
     "NVIDIA Tesla V100 datasheet (V100 for NVLink), dense"},
    {"V100-SXM2-16GB", 900.0, 16.0, 5, V100_SXM2_PEAKS,
     "NVIDIA Tesla V100 datasheet (V100 for NVLink), dense"},
    {"V100-PCIe-32GB", 900.0, 32.0, 5, V100_PCIE_PEAKS,
     "NVIDIA Tesla V100 datasheet (V100 for PCIe), dense"},
    {"V100-PCIe-16GB", 900.0, 16.0, 5, V100_PCIE_PEAKS,
     "NVIDIA Tesla V100 datasheet (V100 for PCIe), dense"},
    /* NVIDIA A10.  NVIDIA A10 Tensor Core GPU datasheet
     * (https://www.nvidia.com/en-us/data-center/products/a10-gpu/):
     * GDDR6 24 GB, 600 GB/s; FP32 31.2, TF32 tensor 62.5, BF16/FP16
     * tensor 125, INT8 tensor 250 TOPS (dense; the sparse figures are
     * twice these).  FP32 GEMMs without TF32 run at the FP32 rate. */
    {"A10", 600.0, 24.0, 6,
     {PK("matrix_fp32", 31.2), PK("matrix_tf32", 62.5),
      PK("matrix_fp16", 125.0), PK("matrix_bf16", 125.0),
      PK("matrix_int8", 250.0), PK("vector_fp32", 31.2)},
     "NVIDIA A10 datasheet, dense"},
    /* NVIDIA A40.  NVIDIA A40 datasheet
     * (https://www.nvidia.com/en-us/data-center/a40/): GDDR6 48 GB,
     * 696 GB/s; FP32 37.4, TF32 tensor 74.8, BF16/FP16 tensor 149.7,
     * INT8 tensor 299.3 TOPS (dense). */
    {"A40", 696.0, 48.0, 6,
     {PK("matrix_fp32", 37.4), PK("matrix_tf32", 74.8),
      PK("matrix_fp16", 149.7), PK("matrix_bf16", 149.7),
      PK("matrix_int8", 299.3), PK("vector_fp32", 37.4)},
     "NVIDIA A40 datasheet, dense"},
    /* NVIDIA L4.  NVIDIA L4 Tensor Core GPU datasheet
     * (https://www.nvidia.com/en-us/data-center/l4/): GDDR6 24 GB,
     * 300 GB/s; FP32 30.3; sparse TF32 120, BF16/FP16 242, FP8 485, INT8
     * 485 TOPS, halved here for dense. */
    {"L4", 300.0, 24.0, 7,
     {PK("matrix_fp32", 30.3), PK("matrix_tf32", 60.0),
      PK("matrix_fp16", 121.0), PK("matrix_bf16", 121.0),
      PK("matrix_fp8", 242.5), PK("matrix_int8", 242.5),
      PK("vector_fp32", 30.3)},
     "NVIDIA L4 datasheet, dense (sparse figures halved)"},
    /* NVIDIA L40S.  NVIDIA L40S datasheet
     * (https://www.nvidia.com/en-us/data-center/l40s/): GDDR6 48 GB,
     * 864 GB/s; FP32 91.6, TF32 tensor 183, BF16/FP16 tensor 362.05, FP8
     * 733, INT8 733 TOPS (dense; sparse twice these). */
    {"L40S", 864.0, 48.0, 7,
     {PK("matrix_fp32", 91.6), PK("matrix_tf32", 183.0),
      PK("matrix_fp16", 362.05), PK("matrix_bf16", 362.05),
      PK("matrix_fp8", 733.0), PK("matrix_int8", 733.0),
      PK("vector_fp32", 91.6)},
     "NVIDIA L40S datasheet, dense"},
    /* AMD Instinct MI250X, one GCD.  AMD Instinct MI250X datasheet
     * (https://www.amd.com/en/products/accelerators/instinct/mi200/
     * mi250x.html): per OAM module FP64/FP32 vector 47.9, FP64/FP32
     * matrix 95.7, FP16/BF16 383.0, INT8 383.0 TOPS, HBM2e 128 GB at
     * 3.2 TB/s.  The module holds two GCDs and PyTorch sees each GCD as
     * one device, so every figure here is half the module's. */
    {"MI250X", 1600.0, 64.0, 7,
     {PK("matrix_fp64", 47.85), PK("matrix_fp32", 47.85),
      PK("matrix_fp16", 191.5), PK("matrix_bf16", 191.5),
      PK("matrix_int8", 191.5), PK("vector_fp64", 23.95),
      PK("vector_fp32", 23.95)},
     "AMD Instinct MI250X datasheet / 2 (one GCD), dense"},
    /* AMD Instinct MI210.  AMD Instinct MI210 datasheet
     * (https://www.amd.com/en/products/accelerators/instinct/mi200/
     * mi210.html): FP64/FP32 vector 22.6, FP64/FP32 matrix 45.3,
     * FP16/BF16 181.0, INT8 181.0 TOPS, HBM2e 64 GB at 1.6 TB/s. */
    {"MI210", 1600.0, 64.0, 7,
     {PK("matrix_fp64", 45.3), PK("matrix_fp32", 45.3),
      PK("matrix_fp16", 181.0), PK("matrix_bf16", 181.0),
      PK("matrix_int8", 181.0), PK("vector_fp64", 22.6),
      PK("vector_fp32", 22.6)},
     "AMD Instinct MI210 datasheet, dense"},
    /* TraceLens's bundled max-achievable (MAF) numbers
     * (TraceLens's MI300-series arch JSON files, [perfreport] §6.1). */
    {"MI300X-MAF", 5300.0, 192.0, 10,
     {PK("matrix_fp16", 654.0), PK("matrix_bf16", 708.0),
      PK("matrix_fp32", 163.0), PK("matrix_fp64", 81.0),
      PK("matrix_fp8", 1273.0), PK("matrix_int8", 2600.0),
      PK("vector_fp16", 163.0), PK("vector_bf16", 163.0),
      PK("vector_fp32", 81.0), PK("vector_fp64", 40.0)},
     "TraceLens bundled MI300X max-achievable FLOPS"},
    {"MI325X-MAF", 6000.0, 256.0, 10,
     {PK("matrix_fp16", 794.0), PK("matrix_bf16", 843.0),
      PK("matrix_fp32", 194.0), PK("matrix_fp64", 97.0),
      PK("matrix_fp8", 1519.0), PK("matrix_int8", 3094.0),
      PK("vector_fp16", 194.0), PK("vector_bf16", 194.0),
      PK("vector_fp32", 97.0), PK("vector_fp64", 48.0)},
     "TraceLens bundled MI325X max-achievable FLOPS"},
};

#undef PK

/* Aliases, already normalised (lower case, no '-', '_', ' ').  No alias
 * may stand for two GPUs: "mi300" (MI300A or MI300X?) is not one, so
 * --gpu_arch MI300 is refused instead of being taken as the MI300X. */
static const struct {
    const char *alias;
    const char *name;
} aliases[] = {
    {"h100", "H100"},       {"h100sxm", "H100"},     {"h100sxm5", "H100"},
    {"h10080gb", "H100"},   {"gh100", "H100"},       {"h200", "H200"},
    {"h200sxm", "H200"},    {"b200", "B200"},        {"hgxb200", "B200"},
    {"a100", "A100"},       {"a100sxm", "A100"},     {"a100sxm4", "A100"},
    {"a10080gb", "A100"},   {"a100sxm480gb", "A100"}, {"mi300x", "MI300X"},
    {"gfx942", "MI300X"},   {"mi325x", "MI325X"},
    {"mi355x", "MI355X"},   {"gfx950", "MI355X"},    {"mi300xmaf", "MI300X-MAF"},
    {"mi325xmaf", "MI325X-MAF"},
    {"v100sxm232gb", "V100-SXM2-32GB"}, {"v100sxm216gb", "V100-SXM2-16GB"},
    {"v100pcie32gb", "V100-PCIe-32GB"}, {"v100pcie16gb", "V100-PCIe-16GB"},
    {"a10", "A10"},         {"a40", "A40"},          {"l4", "L4"},
    {"l40s", "L40S"},       {"mi250x", "MI250X"},    {"mi210", "MI210"},
};

static void normalise(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (; *in && o + 1 < size; in++) {
        char ch = *in;
        if (ch == '-' || ch == '_' || ch == ' ') {
            continue;
        }
        out[o++] = (char)tolower((unsigned char)ch);
    }
    out[o] = '\0';
}

size_t tlm_gpu_arch_count(void)
{
    return sizeof(bundled) / sizeof(bundled[0]);
}

const tlm_gpu_arch *tlm_gpu_arch_at(size_t i)
{
    return i < tlm_gpu_arch_count() ? &bundled[i] : NULL;
}

char *tlm_gpu_arch_names(char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < tlm_gpu_arch_count(); i++) {
        int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                         bundled[i].name);
        if (w < 0 || (size_t)w >= cap - len) {
            buf[len] = '\0'; /* whole names only */
            break;
        }
        len += (size_t)w;
    }
    return buf;
}

const tlm_gpu_arch *tlm_gpu_arch_lookup(const char *name)
{
    char key[64];
    size_t i, j;
    if (name == NULL) {
        return NULL;
    }
    normalise(name, key, sizeof(key));
    for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        if (strcmp(key, aliases[i].alias) == 0) {
            for (j = 0; j < tlm_gpu_arch_count(); j++) {
                if (strcmp(bundled[j].name, aliases[i].name) == 0) {
                    return &bundled[j];
                }
            }
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* MARK: - Device names from traces                                   */
/* ------------------------------------------------------------------ */

/* Model tokens of the device names that vendors' drivers report ("NVIDIA
 * H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "AMD Instinct MI300X",
 * "Tesla V100-SXM2-32GB"), and the bundled GPU each pattern stands for.
 * A pattern matches when the name's alphanumeric tokens include all of
 * its tokens (case-insensitively) and none of its "not" token; the first
 * matching pattern wins.  "A10G" or "GH200" match nothing, "MI300A" is
 * not an MI300X, "V100S-PCIE-32GB" (other clocks) is no V100, and "AMD
 * Instinct MI250X/MI250" (the name ROCm gives both parts) is neither. */
static const struct {
    const char *tok[3]; /* all present; unused slots NULL */
    const char *not;    /* absent, or NULL */
    const char *name;
} device_pats[] = {
    {{"h100"}, NULL, "H100"},     {{"h200"}, NULL, "H200"},
    {{"b200"}, NULL, "B200"},     {{"a100"}, NULL, "A100"},
    {{"mi300x"}, NULL, "MI300X"}, {{"mi325x"}, NULL, "MI325X"},
    {{"mi355x"}, NULL, "MI355X"},
    {{"v100", "sxm2", "32gb"}, NULL, "V100-SXM2-32GB"},
    {{"v100", "sxm2", "16gb"}, NULL, "V100-SXM2-16GB"},
    {{"v100", "pcie", "32gb"}, NULL, "V100-PCIe-32GB"},
    {{"v100", "pcie", "16gb"}, NULL, "V100-PCIe-16GB"},
    {{"a10"}, NULL, "A10"},       {{"a40"}, NULL, "A40"},
    {{"l4"}, NULL, "L4"},         {{"l40s"}, NULL, "L40S"},
    {{"mi250x"}, "mi250", "MI250X"},
    {{"mi210"}, NULL, "MI210"},
};

#define DEV_MAX_TOKENS 16

static const tlm_gpu_arch *bundled_named(const char *name)
{
    for (size_t j = 0; j < tlm_gpu_arch_count(); j++)
        if (strcmp(bundled[j].name, name) == 0)
            return &bundled[j];
    return NULL;
}

/* Whether tok is one of toks[0..n). */
static int has_token(char (*toks)[16], size_t n, const char *tok)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(toks[i], tok) == 0)
            return 1;
    return 0;
}

/* The name's alphanumeric tokens, lower case, into toks (the first
 * DEV_MAX_TOKENS; a token too long to be a model token is left out). */
static size_t device_tokens(const char *name, char (*toks)[16])
{
    size_t nt = 0, n = 0;
    int skip = 0; /* inside a token too long to be a model token */
    for (const char *p = name; nt < DEV_MAX_TOKENS; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch != 0 && isalnum(ch)) {
            if (n + 1 < 16)
                toks[nt][n++] = (char)tolower(ch);
            else
                skip = 1;
            continue;
        }
        toks[nt][n] = '\0';
        if (n > 0 && !skip)
            nt++;
        n = 0;
        skip = 0;
        if (ch == 0)
            break;
    }
    return nt;
}

const tlm_gpu_arch *tlm_gpu_arch_match_device(const char *device_name)
{
    char toks[DEV_MAX_TOKENS][16];
    if (device_name == NULL)
        return NULL;
    size_t nt = device_tokens(device_name, toks);
    for (size_t i = 0; i < sizeof device_pats / sizeof device_pats[0]; i++) {
        int ok = 1;
        for (size_t k = 0; k < 3 && device_pats[i].tok[k] && ok; k++)
            ok = has_token(toks, nt, device_pats[i].tok[k]);
        if (ok && device_pats[i].not)
            ok = !has_token(toks, nt, device_pats[i].not);
        if (ok)
            return bundled_named(device_pats[i].name);
    }
    return NULL;
}

/* Copies a device name, bounded, printable ASCII only (a trace is input:
 * other bytes become '?'). */
static void copy_device_name(char *dst, size_t cap, const char *src,
                             size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    dst[o] = '\0';
}

/* One deviceProperties entry's name into out. */
static void add_device(tlm_gpu_devices *out, const tlm_pj_node *name)
{
    char nm[TLM_GPU_DEVICE_NAME_LEN];
    const tlm_gpu_arch *a;
    copy_device_name(nm, sizeof nm, name->str, name->slen);
    a = tlm_gpu_arch_match_device(nm);
    if (out->n_devices == 0) {
        memcpy(out->name, nm, sizeof nm);
        out->arch = a;
    } else if (strcmp(out->name, nm) != 0) {
        out->mixed = 1;
        if (a != out->arch)
            out->arch = NULL;
    }
    out->n_devices++;
}

tlm_status tlm_gpu_devices_parse(const char *json, size_t len,
                                 tlm_gpu_devices *out)
{
    tlm_pj_doc doc;
    size_t off = 0;
    const char *what = "";
    tlm_status st;
    if (out == NULL)
        return TLM_EINVAL;
    memset(out, 0, sizeof *out);
    if (json == NULL || len == 0)
        return TLM_OK;
    if (len > ARCH_MAX_BYTES)
        return TLM_ELIMIT;
    st = tlm_pj_parse(json, len, 8, &doc, &off, &what);
    if (st == TLM_OK) {
        const tlm_pj_node *root = tlm_pj_node_at(&doc, doc.root);
        if (root->type == TLM_PJ_ARR)
            out->n_entries = root->count;
        for (size_t i = 0; root->type == TLM_PJ_ARR && i < root->count;
             i++) {
            const tlm_pj_node *d = tlm_pj_child(&doc, root, i);
            const tlm_pj_node *nm =
                d->type == TLM_PJ_OBJ ? tlm_pj_member(&doc, d, "name") : NULL;
            if (nm != NULL && nm->type == TLM_PJ_STR)
                add_device(out, nm);
        }
    }
    tlm_pj_free(&doc);
    if (st != TLM_OK)
        memset(out, 0, sizeof *out);
    return st;
}

double tlm_gpu_arch_peak_tflops(const tlm_gpu_arch *arch, const char *key)
{
    size_t i;
    if (arch == NULL || key == NULL || key[0] == '\0') {
        return NAN;
    }
    for (i = 0; i < arch->n_peaks && i < TLM_GPU_ARCH_MAX_PEAKS; i++) {
        if (strcmp(arch->peaks[i].key, key) == 0) {
            return arch->peaks[i].tflops;
        }
    }
    return NAN;
}

/* ------------------------------------------------------------------ */
/* MARK: - JSON loader                                                */
/* ------------------------------------------------------------------ */

tlm_status tlm_gpu_arch_parse_json(const char *text, size_t len,
                                   const char *fname, tlm_gpu_arch *out,
                                   tlm_error *err)
{
    tlm_pj_doc doc;
    const tlm_pj_node *root, *n, *peaks;
    size_t off = 0;
    const char *what = "";
    tlm_status st;
    size_t i;
    if (text == NULL || out == NULL) {
        return tlm_error_set(err, TLM_EINVAL, fname, -1,
                             "GPU arch: NULL argument");
    }
    memset(out, 0, sizeof(*out));
    if (len > ARCH_MAX_BYTES) {
        return tlm_error_set(err, TLM_ELIMIT, fname, -1,
                             "GPU arch file larger than %d bytes",
                             ARCH_MAX_BYTES);
    }
    st = tlm_pj_parse(text, len, 32, &doc, &off, &what);
    if (st != TLM_OK) {
        tlm_pj_free(&doc);
        return tlm_error_set(err, st, fname, (int64_t)off,
                             "%s while reading the GPU arch JSON", what);
    }
    root = tlm_pj_node_at(&doc, doc.root);
    if (root->type != TLM_PJ_OBJ) {
        st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)root->offset,
                           "GPU arch JSON: top level is not an object");
        goto done;
    }
    n = tlm_pj_member(&doc, root, "name");
    if (n != NULL) {
        if (n->type != TLM_PJ_STR) {
            st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)n->offset,
                               "GPU arch JSON: \"name\" is not a string");
            goto done;
        }
        snprintf(out->name, sizeof(out->name), "%s", n->str);
    }
    n = tlm_pj_member(&doc, root, "mem_bw_gbps");
    if (n == NULL) {
        st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)root->offset,
                           "GPU arch JSON: missing \"mem_bw_gbps\"");
        goto done;
    }
    if (n->type != TLM_PJ_NUM || !(n->dval > 0.0) || isinf(n->dval)) {
        st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)n->offset,
                           "GPU arch JSON: \"mem_bw_gbps\" is not a "
                           "positive number");
        goto done;
    }
    out->mem_bw_gbps = n->dval;
    n = tlm_pj_member(&doc, root, "memory_gb");
    if (n != NULL && n->type == TLM_PJ_NUM) {
        out->memory_gb = n->dval;
    } else if (n != NULL && n->type != TLM_PJ_NULL) {
        st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)n->offset,
                           "GPU arch JSON: \"memory_gb\" is not a number");
        goto done;
    }
    n = tlm_pj_member(&doc, root, "_reference");
    if (n != NULL && n->type == TLM_PJ_STR) {
        snprintf(out->source, sizeof(out->source), "%s", n->str);
    } else if (fname != NULL) {
        snprintf(out->source, sizeof(out->source), "%s", fname);
    }
    peaks = tlm_pj_member(&doc, root, "max_achievable_tflops");
    if (peaks == NULL) {
        st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)root->offset,
                           "GPU arch JSON: missing \"max_achievable_tflops\"");
        goto done;
    }
    if (peaks->type != TLM_PJ_OBJ) {
        st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)peaks->offset,
                           "GPU arch JSON: \"max_achievable_tflops\" is not "
                           "an object");
        goto done;
    }
    for (i = 0; i < peaks->count; i++) {
        const tlm_pj_node *p = tlm_pj_child(&doc, peaks, i);
        tlm_gpu_arch_peak *dst;
        if (p->type == TLM_PJ_NULL) {
            continue; /* "no such unit": same as an absent key */
        }
        if (p->type != TLM_PJ_NUM) {
            st = tlm_error_set(err, TLM_ESCHEMA, fname, (int64_t)p->offset,
                               "GPU arch JSON: max_achievable_tflops.%s is "
                               "not a number", p->key);
            goto done;
        }
        if (p->klen >= sizeof(out->peaks[0].key)) {
            st = tlm_error_set(err, TLM_ELIMIT, fname, (int64_t)p->offset,
                               "GPU arch JSON: key \"%s\" is too long",
                               p->key);
            goto done;
        }
        if (out->n_peaks >= TLM_GPU_ARCH_MAX_PEAKS) {
            st = tlm_error_set(err, TLM_ELIMIT, fname, (int64_t)p->offset,
                               "GPU arch JSON: more than %d entries in "
                               "max_achievable_tflops",
                               TLM_GPU_ARCH_MAX_PEAKS);
            goto done;
        }
        dst = &out->peaks[out->n_peaks++];
        snprintf(dst->key, sizeof(dst->key), "%s", p->key);
        dst->tflops = p->dval;
    }
    st = TLM_OK;
done:
    tlm_pj_free(&doc);
    if (st != TLM_OK) {
        memset(out, 0, sizeof(*out));
    }
    return st;
}

tlm_status tlm_gpu_arch_load_json(const char *path, tlm_gpu_arch *out,
                                  tlm_error *err)
{
    FILE *f;
    char *buf;
    size_t n;
    tlm_status st;
    if (path == NULL || out == NULL) {
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "GPU arch: NULL argument");
    }
    if (tlm_fopen_input(path, &f, err) != TLM_OK) {
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "cannot open the GPU arch file: %s",
                             err && strstr(err->msg, "regular")
                                 ? "not a regular file"
                                 : "no such file or not readable");
    }
    buf = malloc(ARCH_MAX_BYTES + 1);
    if (buf == NULL) {
        fclose(f);
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "out of memory reading the GPU arch file");
    }
    n = fread(buf, 1, ARCH_MAX_BYTES + 1, f);
    if (ferror(f)) {
        fclose(f);
        free(buf);
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "read error on the GPU arch file");
    }
    fclose(f);
    if (n > ARCH_MAX_BYTES) {
        free(buf);
        return tlm_error_set(err, TLM_ELIMIT, path, -1,
                             "GPU arch file larger than %d bytes",
                             ARCH_MAX_BYTES);
    }
    st = tlm_gpu_arch_parse_json(buf, n, path, out, err);
    free(buf);
    return st;
}
