/*
 * perf_models_ext.c - the perf models of the op families newer TraceLens
 * registers from its extension modules (addendum A4): GEMM extensions
 * (aiter / vLLM / SGLang), the RMSNorm extension family, silu_and_mul,
 * upsample_nearest / replication_pad, sgl_kernel::rotary_embedding,
 * sglang::store_cache and the InferenceAttention classes with their
 * iteration annotations.  Status mapping as in perf_models.c:
 * NotImplementedError -> TLM_EINVAL, any other Python exception ->
 * TLM_EFORMAT / TLM_ERANGE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_pm.h"

/* bpe of a dtype string, 0 for None. */
static int bpe(const char *dt)
{
    return dt != NULL ? tlm_perf_dtype_bpe(dt) : 0;
}

static void set_out(pm_ctx *c, double flops, int has_bytes, double bytes,
                    const char *prec_dtype, const char *maf)
{
    c->out->flops = flops;
    c->out->has_bytes = has_bytes;
    c->out->bytes = has_bytes ? bytes : 0.0;
    c->prec_dtype = prec_dtype;
    c->maf = maf;
}

/* ------------------------------------------------------------------ */
/* MARK: - GEMM extensions (A4.1)                                     */
/* ------------------------------------------------------------------ */

/* M = D0[0], K = D0[1], N = D1[0] (weights [N, K]); bias = a non-empty
 * third Input Dims entry. */
static int gemm_ext_shapes(pm_ctx *c, int64_t *M, int64_t *N, int64_t *K,
                           int *bias)
{
    int64_t a[MAX_DIMS], w[MAX_DIMS];
    size_t na, nw, nd;
    if (!dims_shape(c, 0, a, &na) || !dims_shape(c, 1, w, &nw) ||
        !arg_len(c, A_DIMS, &nd))
        return 0;
    if (na < 2 || nw < 1) {
        pm_fail(c, TLM_EFORMAT, "GEMM operand has too few dims", NULL);
        return 0;
    }
    *M = a[0];
    *K = a[1];
    *N = w[0];
    *bias = 0;
    if (nd > 2) {
        const tlm_pj_node *d2 = arg_at(c, A_DIMS, 2);
        *bias = d2 != NULL && d2->type == TLM_PJ_ARR && d2->count > 0;
    }
    return 1;
}

/* Appends the transpose param parsed from the kernel names. */
static tlm_status gemm_ext_transpose(pm_ctx *c)
{
    int ta = -1, tb = -1;
    int tr = gemm_transpose(c->a, &ta, &tb);
    if (tr < 0)
        return pm_fail(c, TLM_EFORMAT, "nvjet kernel name too short", NULL);
    if (tr > 0) {
        static const char *const tv[3] = {"None", "False", "True"};
        char t[32];
        snprintf(t, sizeof(t), "(%s, %s)", tv[ta + 1], tv[tb + 1]);
        TRY(p_text(c, "transpose", t, 0));
    }
    return TLM_OK;
}

static tlm_status m_gemm_ext(pm_ctx *c, tlm_perf_model_id m)
{
    int64_t M, N, K;
    int bias;
    size_t nt;
    const char *dt[3];
    int b1, b2, bo, bb;
    double bytes = 0.0;
    TRY(gemm_ext_shapes(c, &M, &N, &K, &bias));
    TRY(arg_len(c, A_TYPES, &nt));
    TRY(dt[0] = type_at(c, 0));
    TRY(dt[1] = type_at(c, 1));
    if (m == TLM_PM_GEMM_A16W16) {
        dt[2] = dt[0];
    } else if (m == TLM_PM_GEMM_A16W16_ATOMIC) {
        bias = 0;
        dt[2] = "c10::bfloat16";
        if (nt > 3)
            TRY(dt[2] = type_at(c, 3));
    } else {
        dt[2] = "";
        if (nt > 2)
            TRY(dt[2] = type_at(c, 2));
    }
    if (m != TLM_PM_ROCM_UNQ_GEMM)
        TRY(p_int(c, "B", 1));
    TRY(p_int(c, "M", M) && p_int(c, "N", N) && p_int(c, "K", K) &&
        p_bool(c, "bias", bias));
    TRY(p_str_tuple(c, "dtype_A_B", dt, 3));
    if (m == TLM_PM_ROCM_UNQ_GEMM)
        TRY(p_int(c, "B", 1));
    tlm_status st = gemm_ext_transpose(c);
    if (st != TLM_OK)
        return st;
    b1 = bpe(dt[0]);
    b2 = bpe(dt[1]);
    if (m == TLM_PM_GEMM_A16W16) {
        bo = bb = b1;
    } else if (m == TLM_PM_GEMM_A16W16_ATOMIC) {
        bo = bb = bpe(dt[2]);
    } else {
        bo = bb = bias ? bpe(dt[2]) : b2;
    }
    int has = b1 && b2 && bo && bb;
    if (has)
        bytes = (double)M * K * b1 + (double)K * N * b2 +
                (double)M * N * bo + (bias ? (double)N * bb : 0.0);
    set_out(c, 2.0 * M * N * K + (bias ? (double)M * N : 0.0), has, bytes,
            dt[0], "matrix");
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "backward pass of a GEMM is not defined",
                       NULL);
    return TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - RMSNorm extension family (A4.2)                            */
/* ------------------------------------------------------------------ */

static tlm_status m_aiter_rmsnorm(pm_ctx *c)
{
    size_t ix = 0, ic = 1;
    int with_add = 0;
    int64_t shp[MAX_DIMS], cd[MAX_DIMS];
    size_t n, ncd;
    const char *dt[2] = {NULL, NULL};
    if (!strcmp(c->name, "aiter::rmsnorm")) {
        ix = 1;
        ic = 2;
    } else if (!strcmp(c->name, "aiter::rmsnorm2d_fwd_with_add_ck") ||
               !strcmp(c->name, "aiter::add_rmsnorm")) {
        ix = 1;
        ic = 4;
        with_add = 1;
    }
    TRY(dims_shape(c, ix, shp, &n));
    TRY(dt[0] = type_at(c, ix));
    TRY(dims_shape(c, ic, cd, &ncd));
    if (ncd < 1)
        return pm_fail(c, TLM_EFORMAT, "weight shape is empty", NULL);
    TRY(p_shape(c, "op_shape", shp, n));
    TRY(p_str_tuple(c, "dtype_in_out", dt, 2));
    TRY(p_stride_opt(c, "stride_input", ix));
    TRY(p_none(c, "stride_output"));
    TRY(p_int(c, "num_channels", cd[0]));
    TRY(p_bool(c, "has_bias", 0) && p_bool(c, "is_affine", 1) &&
        p_bool(c, "is_training", 0));
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "backward pass is not defined", NULL);
    double E = prod(shp, n), C = (double)cd[0];
    int b = bpe(dt[0]);
    if (C == 0.0)
        return pm_fail(c, TLM_ERANGE, "division by zero (num_channels)", NULL);
    if (b == 0)
        return pm_fail(c, TLM_ERANGE, "no bytes-per-element for dtype ",
                       dt[0]);
    double f = E / C * (2.0 * C + 2.0) + 2.0 * E;
    double by = 2.0 * E * b + C * b;
    if (with_add) {
        f += E;
        by = 4.0 * E * b + C * b;
    }
    set_out(c, f, 1, by, dt[0], "vector");
    return TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - Elementwise-derived (A4.3)                                 */
/* ------------------------------------------------------------------ */

static tlm_status m_silu_and_mul(pm_ctx *c)
{
    int64_t shp[MAX_DIMS];
    size_t n;
    const char *dt[2];
    TRY(dims_shape(c, 0, shp, &n));
    TRY(dt[0] = type_at(c, 1));
    TRY(dt[1] = type_at(c, 0));
    TRY(p_shape(c, "op_shape", shp, n));
    TRY(p_str_tuple(c, "dtype_in_out", dt, 2));
    TRY(p_stride(c, "stride_input", 1));
    TRY(p_stride(c, "stride_output", 0));
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    double ne = prod(shp, n);
    int bi = bpe(dt[0]), bo = bpe(dt[1]);
    set_out(c, 5.0 * ne, bi && bo, 2.0 * ne * bi + ne * bo, dt[0], "vector");
    return TLM_OK;
}

/* ast.literal_eval of a list of ints ("[128]", "[2, 2]"); 0 when the text
 * is not one (an empty text raises SyntaxError in Python). */
static int int_list(const char *s, int64_t *v, size_t *n)
{
    const char *p = s;
    char *end;
    size_t k = 0;
    while (*p == ' ')
        p++;
    if (*p++ != '[')
        return 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ']' && k == 0)
            break;
        if (k >= MAX_DIMS)
            return 0;
        long long x = strtoll(p, &end, 10);
        if (end == p)
            return 0;
        v[k++] = (int64_t)x;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ']')
            break;
        return 0;
    }
    p++;
    while (*p == ' ')
        p++;
    *n = k;
    return *p == '\0';
}

/* upsample_nearest: out = D0[:2] + C[1]; replication_pad: the pairs of
 * C[1], innermost dim first, widen the last dims. */
static tlm_status resize_out(pm_ctx *c, int pad, const int64_t *in, size_t ni,
                             const int64_t *lv, size_t nl, int64_t *out,
                             size_t *no)
{
    if (!pad) {
        if (ni < 2 || nl + 2 > MAX_DIMS)
            return pm_fail(c, TLM_EFORMAT, "input has < 2 dims", NULL);
        memcpy(out, in, 2 * sizeof *in);
        memcpy(out + 2, lv, nl * sizeof *lv);
        *no = nl + 2;
        return TLM_OK;
    }
    if (nl % 2 != 0 || nl / 2 > ni)
        return pm_fail(c, TLM_EFORMAT, "padding does not fit the input", NULL);
    memcpy(out, in, ni * sizeof *in);
    for (size_t i = 0; i < nl / 2; i++)
        out[ni - 1 - i] += lv[2 * i] + lv[2 * i + 1];
    *no = ni;
    return TLM_OK;
}

static tlm_status m_resize(pm_ctx *c, int pad)
{
    int64_t in[MAX_DIMS], lv[MAX_DIMS], out[MAX_DIMS + 2];
    size_t ni, nl, no = 0;
    const char *dt[2];
    const char *s;
    TRY(dims_shape(c, 0, in, &ni));
    TRY(dt[0] = type_at(c, 0));
    dt[1] = dt[0];
    TRY(s = concrete_str(c, 1));
    if (!int_list(s, lv, &nl))
        return pm_fail(c, TLM_EFORMAT, "size list: ", s);
    tlm_status st = resize_out(c, pad, in, ni, lv, nl, out, &no);
    if (st != TLM_OK)
        return st;
    TRY(p_shape(c, "input_shape", in, ni));
    TRY(p_shape(c, "output_shape", out, no));
    if (pad) {
        char t[TLM_PERF_PARAM_VALUE];
        size_t k = 0;
        t[k++] = '[';
        for (size_t i = 0; i < nl; i++)
            k += (size_t)snprintf(t + k, sizeof t - k, "%s%lld", i ? ", " : "",
                                  (long long)lv[i]);
        snprintf(t + k, sizeof t - k, "]");
        TRY(p_text(c, "padding", t, 0));
    }
    TRY(p_shape(c, "op_shape", out, no));
    TRY(p_str_tuple(c, "dtype_in_out", dt, 2));
    TRY(p_stride(c, "stride_input", 0));
    TRY(p_none(c, "stride_output"));
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    int b = bpe(dt[0]);
    double pi = prod(in, ni), po = prod(out, no);
    set_out(c, po, b != 0, pi * b + po * b, dt[0], "vector");
    return TLM_OK;
}

/* head = int(C[3]) when given, else q[-1]; rot = D4[1] when given. */
static int rotary_dims(pm_ctx *c, const int64_t *q, size_t nq, int64_t *head,
                       int64_t *rot)
{
    size_t nc = 0, nd;
    *head = q[nq - 1];
    if (has_arg(c, A_CONCRETE) && !arg_len(c, A_CONCRETE, &nc))
        return 0;
    if (nc > 3) {
        const char *s = concrete_str(c, 3);
        if (s == NULL)
            return 0;
        if (strspn(s, " ") != strlen(s) && !py_int(s, head)) {
            pm_fail(c, TLM_EFORMAT, "head_size: ", s);
            return 0;
        }
    }
    *rot = *head;
    if (!arg_len(c, A_DIMS, &nd))
        return 0;
    if (nd > 4) {
        int64_t d4[MAX_DIMS];
        size_t n4;
        if (!dims_shape(c, 4, d4, &n4))
            return 0;
        if (n4 > 1)
            *rot = d4[1];
    }
    return 1;
}

/* Python's a // b (b != 0, not INT64_MIN // -1). */
static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}

static tlm_status m_sgl_rotary(pm_ctx *c)
{
    int64_t q[MAX_DIMS], k[MAX_DIMS], head, rot;
    size_t nq, nk;
    const char *dt;
    TRY(dims_shape(c, 1, q, &nq));
    TRY(dims_shape(c, 2, k, &nk));
    if (nq < 2 || nk < 2)
        return pm_fail(c, TLM_EFORMAT, "query/key have < 2 dims", NULL);
    TRY(rotary_dims(c, q, nq, &head, &rot));
    if (head == 0)
        return pm_fail(c, TLM_ERANGE, "division by zero (head_size)", NULL);
    TRY(dt = type_at(c, 1));
    if (head == -1 && (q[1] == INT64_MIN || k[1] == INT64_MIN))
        return pm_fail(c, TLM_ERANGE, "head count out of range", NULL);
    double n = (double)q[0] * (double)(floordiv(q[1], head) +
                                       floordiv(k[1], head)) *
               (double)rot;
    TRY(p_count(c, "num_elements", n));
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    int b = bpe(dt);
    set_out(c, 3.0 * n, 1, 2.0 * n * (b ? b : 2), dt, "vector");
    return TLM_OK;
}

static tlm_status m_store_cache(pm_ctx *c)
{
    int64_t shp[MAX_DIMS];
    size_t n;
    const char *dt;
    TRY(dims_shape(c, 0, shp, &n));
    TRY(dt = type_at(c, 0));
    double ne = prod(shp, n);
    TRY(p_shape(c, "op_shape", shp, n));
    TRY(p_count(c, "nelems", ne));
    TRY(p_str(c, "dtype", dt));
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    int b = bpe(dt);
    set_out(c, 0.0, 1, 4.0 * ne * (b ? b : 2), dt, "vector");
    return TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - Dispatch                                                   */
/* ------------------------------------------------------------------ */

tlm_status pm_ext_dispatch(pm_ctx *c, tlm_perf_model_id m)
{
    switch (m) {
    case TLM_PM_GEMM_A16W16:
    case TLM_PM_GEMM_A16W16_ATOMIC:
    case TLM_PM_ROCM_UNQ_GEMM:
        return m_gemm_ext(c, m);
    case TLM_PM_AITER_RMSNORM:
        return m_aiter_rmsnorm(c);
    case TLM_PM_SILU_AND_MUL:
        return m_silu_and_mul(c);
    case TLM_PM_UPSAMPLE:
        return m_resize(c, 0);
    case TLM_PM_REPPAD:
        return m_resize(c, 1);
    case TLM_PM_SGL_ROTARY:
        return m_sgl_rotary(c);
    case TLM_PM_STORE_CACHE:
        return m_store_cache(c);
    case TLM_PM_INF_ATTN:
    case TLM_PM_INF_ATTN_PREFILL:
        return pm_inf_attn(c, m == TLM_PM_INF_ATTN_PREFILL);
    case TLM_PM_TRITON:
        return pm_triton(c);
    default:
        return pm_fail(c, TLM_ENOTFOUND, "no perf model", NULL);
    }
}
