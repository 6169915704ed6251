/*
 * perf_infattn.c - TraceLens's InferenceAttention perf model (addendum
 * A4.4): attention FLOPs and bytes of an inference step from the
 * iteration annotation around the op (the sums of query lengths sq, key
 * lengths sk and their products over the context and generation
 * requests), written by vLLM, SGLang or ATOM in their "detailed" formats:
 *
 *   execute_<n>_context_<r>(sq<a>sk<b>sqsq<c>sqsk<d>)_generation_<r>(sq..)
 *   step[EXTEND|DECODE|MIXED ... c_sq=.. c_sk=.. c_sqsq=.. g_sqsk=..]
 *   prefill[... tok=.. sk=.. sqsq=.. sqsk=..]  /  decode[...]
 *
 * Without such an annotation the model has no sums and its flops() is
 * None: TraceLens raises a TypeError (status TLM_ERANGE: the perf sheet
 * skips the row, unified_perf_summary keeps it without metrics).  Sums
 * whose c_sq and g_sq are both 0 raise NotImplementedError (TLM_EINVAL:
 * the unified row is dropped).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "perf_pm.h"

/* The eight sums, in param order. */
enum { C_SQ, C_SK, C_SQSQ, C_SQSK, G_SQ, G_SK, G_SQSQ, G_SQSK, N_SUMS };

static const char *const sum_names[N_SUMS] = {
    "c_sq", "c_sk", "c_sqsq", "c_sqsk", "g_sq", "g_sk", "g_sqsq", "g_sqsk"};

/* Matches literal lit at *p. */
static int lit(const char **p, const char *lit_)
{
    size_t n = strlen(lit_);
    if (strncmp(*p, lit_, n) != 0)
        return 0;
    *p += n;
    return 1;
}

/* One or more digits at *p into *v (0 when it overflows, like a failed
 * _safe_int). */
static int digits(const char **p, double *v)
{
    const char *s = *p;
    double x = 0.0;
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        x = x * 10.0 + (*s++ - '0');
    *p = s;
    if (v != NULL)
        *v = x;
    return 1;
}

/* "(sq<a>sk<b>sqsq<c>sqsk<d>)" into v[0..3]. */
static int vllm_group(const char **p, double *v)
{
    return lit(p, "(sq") && digits(p, &v[0]) && lit(p, "sk") &&
           digits(p, &v[1]) && lit(p, "sqsq") && digits(p, &v[2]) &&
           lit(p, "sqsk") && digits(p, &v[3]) && lit(p, ")");
}

/* vLLM detailed format, matched at the start. */
static int parse_vllm(const char *s, double *v)
{
    const char *p = s;
    return lit(&p, "execute_") && digits(&p, NULL) &&
           lit(&p, "_context_") && digits(&p, NULL) &&
           vllm_group(&p, &v[C_SQ]) && lit(&p, "_generation_") &&
           digits(&p, NULL) && vllm_group(&p, &v[G_SQ]);
}

/* Value of key=<digits> in body[0..n) (the last occurrence wins, as in a
 * dict built from findall); 0 when absent. */
static double kv_num(const char *body, size_t n, const char *key)
{
    size_t kl = strlen(key);
    double v = 0.0;
    for (size_t i = 0; i + kl < n; i++) {
        if (strncmp(body + i, key, kl) != 0 || body[i + kl] != '=')
            continue;
        if (i > 0 && (isalnum((unsigned char)body[i - 1]) || body[i - 1] == '_'))
            continue;
        const char *q = body + i + kl + 1;
        double x;
        if (digits(&q, &x))
            v = x;
    }
    return v;
}

/* Body between the first '[' after prefix and the last ']'; NULL when the
 * text does not have that shape. */
static const char *bracket_body(const char *s, size_t *n)
{
    const char *a = strchr(s, '[');
    const char *b = strrchr(s, ']');
    if (a == NULL || b == NULL || b < a)
        return NULL;
    *n = (size_t)(b - a - 1);
    return a + 1;
}

/* SGLang detailed: step[EXTEND|DECODE|MIXED<boundary>...sqsq=<d>...]. */
static int parse_sglang(const char *s, double *v)
{
    const char *p = s;
    size_t n;
    if (!lit(&p, "step["))
        return 0;
    if (!lit(&p, "EXTEND") && !lit(&p, "DECODE") && !lit(&p, "MIXED"))
        return 0;
    if (isalnum((unsigned char)*p) || *p == '_')
        return 0;
    const char *close = strchr(p, ']');
    const char *sq = strstr(p, "sqsq=");
    if (close == NULL || sq == NULL || sq > close ||
        !isdigit((unsigned char)sq[5]))
        return 0;
    const char *body = bracket_body(s, &n);
    if (body == NULL)
        return 0;
    for (int i = 0; i < N_SUMS; i++)
        v[i] = kv_num(body, n, sum_names[i]);
    return 1;
}

/* ATOM detailed: prefill[...sqsq=<d>...] / decode[...]; needs sqsq= and
 * sqsk= to carry sums. */
static int parse_atom(const char *s, double *v)
{
    const char *p = s;
    size_t n;
    int prefill = lit(&p, "prefill[");
    if (!prefill && !lit(&p, "decode["))
        return 0;
    const char *body = bracket_body(s, &n);
    const char *sq = strstr(p, "sqsq=");
    if (body == NULL || sq == NULL || !isdigit((unsigned char)sq[5]))
        return 0;
    if (strstr(p, "sqsk=") == NULL)
        return 0;
    int o = prefill ? C_SQ : G_SQ;
    v[o] = kv_num(body, n, "tok");
    v[o + 1] = kv_num(body, n, "sk");
    v[o + 2] = kv_num(body, n, "sqsq");
    v[o + 3] = kv_num(body, n, "sqsk");
    return 1;
}

/* The sums of an annotation text; 0 when it carries none. */
static int annotation_sums(const char *ann, double *v)
{
    memset(v, 0, N_SUMS * sizeof *v);
    if (ann == NULL)
        return 0;
    return parse_vllm(ann, v) || parse_sglang(ann, v) || parse_atom(ann, v);
}

typedef struct ia_shape {
    double N_Q, H_Q, d_qk, N_KV, H_KV, d_v;
    const char *dt_q, *dt_kv;
} ia_shape;

static tlm_status ia_shapes(pm_ctx *c, int prefill, ia_shape *s)
{
    int64_t q[MAX_DIMS], kv[MAX_DIMS];
    size_t nq, nkv, nt;
    TRY(dims_shape(c, 0, q, &nq));
    TRY(dims_shape(c, 1, kv, &nkv));
    if (nq != 3 || nkv < 3)
        return pm_fail(c, TLM_EFORMAT, "query must be 3-D, kv at least 3-D",
                       NULL);
    s->N_Q = (double)q[0];
    s->H_Q = (double)q[1];
    s->d_qk = (double)q[2];
    s->N_KV = (double)kv[nkv - 3];
    s->H_KV = (double)kv[nkv - 2];
    s->d_v = (double)kv[nkv - 1];
    if (prefill) {
        int64_t v[MAX_DIMS];
        size_t nv;
        TRY(dims_shape(c, 2, v, &nv));
        if (nv < 1)
            return pm_fail(c, TLM_EFORMAT, "value shape is empty", NULL);
        s->d_v = (double)v[nv - 1];
    }
    TRY(s->dt_q = type_at(c, 0));
    TRY(arg_len(c, A_TYPES, &nt));
    s->dt_kv = s->dt_q;
    if (nt > 1)
        TRY(s->dt_kv = type_at(c, 1));
    return TLM_OK;
}

static tlm_status ia_params(pm_ctx *c, const ia_shape *s, const double *v)
{
    TRY(p_int(c, "B", 1) && p_count(c, "N_Q", s->N_Q) &&
        p_count(c, "H_Q", s->H_Q) && p_count(c, "H_V", s->H_KV) &&
        p_count(c, "H_K", s->H_KV) && p_count(c, "N_KV", s->N_KV) &&
        p_count(c, "H_KV", s->H_KV) && p_count(c, "d_h_qk", s->d_qk) &&
        p_count(c, "d_h_v", s->d_v));
    TRY(p_float(c, "dropout", 0.0) && p_bool(c, "causal", 0) &&
        p_bool(c, "flash_impl", 1));
    for (int i = 0; i < N_SUMS; i++)
        TRY(p_count(c, sum_names[i], v[i]));
    TRY(p_str(c, "dtype_Q", s->dt_q) && p_str(c, "dtype_KV", s->dt_kv));
    return TLM_OK;
}

tlm_status pm_inf_attn(pm_ctx *c, int prefill)
{
    double v[N_SUMS];
    ia_shape s;
    memset(&s, 0, sizeof s);
    if (c->bwd)
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    if (!annotation_sums(c->a->annotation, v))
        return pm_fail(c, TLM_ERANGE,
                       "no attention sums in the annotation (flops() is None)",
                       NULL);
    tlm_status st = ia_shapes(c, prefill, &s);
    if (st == TLM_OK)
        st = ia_params(c, &s, v);
    if (st != TLM_OK)
        return st;
    if (v[C_SQ] == 0.0 && v[G_SQ] == 0.0)
        return pm_fail(c, TLM_EINVAL, "no context or generation tokens", NULL);
    double dq = s.d_qk, dv = s.d_v;
    double f = 2.0 * v[C_SQSK] * dq + 2.0 * v[C_SQSK] * dv -
               v[C_SQSQ] * dq - v[C_SQSQ] * dv + 2.0 * v[G_SQSK] * dq +
               2.0 * v[G_SQSK] * dv;
    double eq = (v[C_SQ] + v[G_SQ]) *
                (s.H_Q * dq + s.H_Q * dv + s.H_KV * dq + s.H_KV * dv);
    double ekv = ((v[C_SK] - v[C_SQ]) + (v[G_SK] - v[G_SQ])) * s.H_KV *
                 (dq + dv);
    int bq = tlm_perf_dtype_bpe(s.dt_q);
    int bkv = tlm_perf_dtype_bpe(s.dt_kv);
    bq = bq ? bq : 2;
    bkv = bkv ? bkv : bq;
    c->out->flops = s.H_Q * f;
    c->out->has_bytes = 1;
    c->out->bytes = eq * bq + ekv * bkv;
    c->prec_dtype = s.dt_q;
    c->maf = "matrix";
    return TLM_OK;
}
