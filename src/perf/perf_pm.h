/*
 * perf_pm.h - the model context and argument helpers shared by
 * perf_models.c (core TraceLens models) and perf_models_ext.c (the
 * extension families of newer TraceLens, addendum A3/A4).  Private to
 * src/perf.
 *
 * The helpers keep their short names in the sources; the macros below
 * give them tlm_pm_ link names so that nothing collides in the static
 * libraries.
 */
#ifndef TLM_PERF_PM_H
#define TLM_PERF_PM_H

#include <stddef.h>
#include <stdint.h>

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"

#define MAX_DIMS 16

enum { A_DIMS, A_TYPES, A_STRIDES, A_CONCRETE, A_OUTTYPE, A_COUNT };

typedef struct pm_ctx {
    const tlm_perf_args *a;
    const char *name;
    int bwd;
    tlm_pj_doc doc[A_COUNT];
    const tlm_pj_node *root[A_COUNT]; /* NULL when the arg is absent */
    tlm_perf_result *out;
    tlm_error *err;
    tlm_status st;
    /* precision source for Compute Spec */
    const char *prec_dtype;
    const char *maf;
    /* Compute Spec precision text used as is (Triton), else NULL */
    char prec_text[24];
} pm_ctx;

#define pm_fail tlm_pm_fail
#define has_arg tlm_pm_has_arg
#define arg_len tlm_pm_arg_len
#define arg_at tlm_pm_arg_at
#define concrete_str tlm_pm_concrete_str
#define type_at tlm_pm_type_at
#define node_shape tlm_pm_node_shape
#define dims_shape tlm_pm_dims_shape
#define prod tlm_pm_prod
#define p_text tlm_pm_p_text
#define p_none tlm_pm_p_none
#define p_int tlm_pm_p_int
#define p_count tlm_pm_p_count
#define p_bool tlm_pm_p_bool
#define p_float tlm_pm_p_float
#define p_str tlm_pm_p_str
#define p_tuple_node tlm_pm_p_tuple_node
#define p_shape tlm_pm_p_shape
#define p_str_tuple tlm_pm_p_str_tuple
#define p_stride tlm_pm_p_stride
#define p_stride_opt tlm_pm_p_stride_opt
#define py_int tlm_pm_py_int
#define node_truthy tlm_pm_node_truthy
#define gemm_transpose tlm_pm_gemm_transpose
#define pm_ext_dispatch tlm_pm_ext_dispatch
#define pm_triton tlm_pm_triton
#define pm_inf_attn tlm_pm_inf_attn

/* Records the first failure (status st, message fmt + detail) and
 * returns the recorded status. */
tlm_status pm_fail(pm_ctx *c, tlm_status st, const char *fmt,
                   const char *detail);

/* Return early with the recorded status when a step failed. */
#define TRY(expr)                                                          \
    do {                                                                   \
        if (!(expr)) {                                                     \
            return c->st != TLM_OK ? c->st                                 \
                                   : pm_fail(c, TLM_EFORMAT, "bad args",   \
                                             NULL);                        \
        }                                                                  \
    } while (0)

/* Arg access (Python KeyError / IndexError -> TLM_EFORMAT). */
int has_arg(const pm_ctx *c, int which);
int arg_len(pm_ctx *c, int which, size_t *n);
const tlm_pj_node *arg_at(pm_ctx *c, int which, size_t i);
const char *concrete_str(pm_ctx *c, size_t i);
const char *type_at(pm_ctx *c, size_t i);
int node_shape(pm_ctx *c, const tlm_pj_node *n, int64_t *dims, size_t *nd);
int dims_shape(pm_ctx *c, size_t i, int64_t *dims, size_t *nd);
double prod(const int64_t *d, size_t n);
int node_truthy(const tlm_pj_node *n);
int py_int(const char *s, int64_t *out);

/* Params ("param: <name>" columns) in insertion order. */
int p_text(pm_ctx *c, const char *name, const char *text, int is_str);
int p_none(pm_ctx *c, const char *name);
int p_int(pm_ctx *c, const char *name, int64_t v);
int p_count(pm_ctx *c, const char *name, double v);
int p_bool(pm_ctx *c, const char *name, int v);
int p_float(pm_ctx *c, const char *name, double v);
int p_str(pm_ctx *c, const char *name, const char *s);
int p_tuple_node(pm_ctx *c, int which, const char *name,
                 const tlm_pj_node *n);
int p_shape(pm_ctx *c, const char *name, const int64_t *d, size_t nd);
int p_str_tuple(pm_ctx *c, const char *name, const char *const *s,
                size_t n);
int p_stride(pm_ctx *c, const char *name, size_t i);
int p_stride_opt(pm_ctx *c, const char *name, size_t i);

/* GEMM transpose from kernel names ([perfreport] §5.2). */
int gemm_transpose(const tlm_perf_args *a, int *ta, int *tb);

/* perf_models_ext.c: the models from TLM_PM_EXT_FIRST on. */
tlm_status pm_ext_dispatch(pm_ctx *c, tlm_perf_model_id m);
/* perf_infattn.c: the InferenceAttention classes (prefill: d_h_v from
 * the third input, aiter::mha_batch_prefill / fmha_v3_varlen_fwd). */
tlm_status pm_inf_attn(pm_ctx *c, int prefill);
/* perf_triton.c: TritonCompiledPerfModel. */
tlm_status pm_triton(pm_ctx *c);

#endif /* TLM_PERF_PM_H */
