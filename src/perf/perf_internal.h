/*
 * perf_internal.h - a tiny JSON DOM for the small texts the perf module
 * reads: an op event's argument lists ("Input Dims", "Concrete Inputs", ...)
 * and GPU arch files.  Not for traces (the streaming reader does those).
 *
 * The parser builds a flat node array (children linked by index) in one
 * allocation sized from the input length, so it never reallocates.  Strings
 * are unescaped into a side buffer (\u escapes become UTF-8).
 */
#ifndef TLM_PERF_INTERNAL_H
#define TLM_PERF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_common.h"

typedef enum tlm_pj_type {
    TLM_PJ_NULL,
    TLM_PJ_BOOL,
    TLM_PJ_NUM,
    TLM_PJ_STR,
    TLM_PJ_ARR,
    TLM_PJ_OBJ
} tlm_pj_type;

typedef struct tlm_pj_node {
    tlm_pj_type type;
    int first;          /* first child (array element / object member) */
    int next;           /* next sibling */
    size_t count;       /* number of children */
    int is_int;         /* number written without '.', 'e', 'E' */
    int bval;           /* TLM_PJ_BOOL */
    int64_t ival;       /* TLM_PJ_NUM when is_int (and fits) */
    double dval;        /* TLM_PJ_NUM (always) */
    const char *str;    /* TLM_PJ_STR: unescaped, NUL-terminated */
    size_t slen;
    const char *key;    /* member name when the parent is an object */
    size_t klen;
    size_t offset;      /* byte offset of the value in the input */
} tlm_pj_node;

typedef struct tlm_pj_doc {
    tlm_pj_node *nodes;
    size_t n;
    size_t cap;
    char *sbuf;
    size_t sused;
    size_t scap;
    int root;
} tlm_pj_doc;

/* Parses text[0..len) as one JSON value (surrounding whitespace allowed).
 * max_depth bounds nesting.  On failure returns TLM_EFORMAT (syntax),
 * TLM_ELIMIT (too deep) or TLM_ENOMEM, and sets *err_off to the byte offset
 * and *err_what to a static description.  An integer too large for int64
 * is not an error: it keeps is_int = 0 and its double value.  doc must be freed with
 * tlm_pj_free even on failure. */
tlm_status tlm_pj_parse(const char *text, size_t len, size_t max_depth,
                        tlm_pj_doc *doc, size_t *err_off,
                        const char **err_what);
void tlm_pj_free(tlm_pj_doc *doc);

/* Node by index, NULL for -1. */
const tlm_pj_node *tlm_pj_node_at(const tlm_pj_doc *doc, int idx);
/* i-th child of an array/object node, NULL if out of range. */
const tlm_pj_node *tlm_pj_child(const tlm_pj_doc *doc,
                                const tlm_pj_node *n, size_t i);
/* Member of an object by key, NULL if absent (first match). */
const tlm_pj_node *tlm_pj_member(const tlm_pj_doc *doc,
                                 const tlm_pj_node *n, const char *key);

/* ---------------------------------------------------------------- */
/* Op registry shared by perf.c (categories, sheets) and             */
/* perf_models.c (the models).                                       */

typedef enum tlm_perf_model_id {
    TLM_PM_NONE = 0, /* category only: TraceLens knows the op, no model */
    TLM_PM_MM,
    TLM_PM_ADDMM,
    TLM_PM_SCALED_MM,
    TLM_PM_BMM,
    TLM_PM_BADDBMM,
    TLM_PM_TE_GEMM_TS,
    TLM_PM_VLLM_GEMM_DQ,
    TLM_PM_TEV2_GEMM,
    TLM_PM_SDPA_FLASH,
    TLM_PM_SDPA_EFFICIENT,
    TLM_PM_SDPA_CUDNN,
    TLM_PM_FA,
    TLM_PM_FA_BWD,
    TLM_PM_FA_VARLEN_FWD,
    TLM_PM_FA_VARLEN_BWD,
    TLM_PM_AITER_FA_FWD,
    TLM_PM_AITER_FA_BWD,
    TLM_PM_AITER_WRAP_V3_FWD,
    TLM_PM_AITER_WRAP_V3_BWD,
    TLM_PM_AITER_MHA_FWD,
    TLM_PM_AITER_MHA_BWD,
    TLM_PM_FA3_FWD,
    TLM_PM_VLLM_ATTN,
    TLM_PM_EVOFORMER,
    TLM_PM_CONV,
    TLM_PM_CONV_BWD,
    TLM_PM_CONVBIAS,
    TLM_PM_CONVBIAS_BWD,
    TLM_PM_UNARY,
    TLM_PM_BINARY,
    TLM_PM_LIGER,
    TLM_PM_REDUCE,
    TLM_PM_BATCHNORM,
    TLM_PM_BATCHNORM_BWD,
    TLM_PM_LAYERNORM,
    TLM_PM_LAYERNORM_BWD,
    TLM_PM_GROUPNORM,
    TLM_PM_GROUPNORM_BWD,
    TLM_PM_INSTANCENORM,
    TLM_PM_INSTANCENORM_BWD,
    TLM_PM_RMSNORM,
    TLM_PM_RMSNORM_BWD,
    /* newer TraceLens extension families (perf_models_ext.c, addendum
     * A3/A4); everything from here on is dispatched there */
    TLM_PM_EXT_FIRST,
    TLM_PM_GEMM_A16W16 = TLM_PM_EXT_FIRST,
    TLM_PM_GEMM_A16W16_ATOMIC,
    TLM_PM_ROCM_UNQ_GEMM,
    TLM_PM_AITER_RMSNORM,
    TLM_PM_SILU_AND_MUL,
    TLM_PM_UPSAMPLE,
    TLM_PM_REPPAD,
    TLM_PM_SGL_ROTARY,
    TLM_PM_STORE_CACHE,
    TLM_PM_INF_ATTN,
    TLM_PM_INF_ATTN_PREFILL,
    TLM_PM_TRITON /* not in the registry: the triton_* name matcher */
} tlm_perf_model_id;

/* The families of models: one sheet kind and one model function each. */
typedef enum tlm_perf_family {
    TLM_FAM_NONE,
    TLM_FAM_GEMM,
    TLM_FAM_SDPA,
    TLM_FAM_CONV,
    TLM_FAM_UNARY,
    TLM_FAM_BINARY,
    TLM_FAM_NORM,
    TLM_FAM_REDUCE,
    TLM_FAM_RMSNORM_EXT, /* sheet RMSNorm_fwd */
    TLM_FAM_ROPE,        /* sheet RoPE_fwd */
    TLM_FAM_INFATTN,     /* sheet InferenceAttention_fwd */
    TLM_FAM_TRITON       /* no sheet: unified_perf_summary only */
} tlm_perf_family;

/* The family of a model id (TLM_FAM_NONE for TLM_PM_NONE). */
tlm_perf_family tlm_perf_family_of(tlm_perf_model_id m);

typedef struct tlm_perf_op_entry {
    const char *name;
    const char *category; /* registry category (categorize_torch_op) */
    tlm_perf_model_id model;
} tlm_perf_op_entry;

/* Exact-name lookup in the registry (binary search); NULL if absent. */
const tlm_perf_op_entry *tlm_perf_op_find(const char *name);
/* The whole registry, sorted by strcmp (tests check the order). */
const tlm_perf_op_entry *tlm_perf_op_table(size_t *n);

/* The model of an op name: the registry's, else TLM_PM_TRITON for names
 * starting with triton_poi_, triton_red_ or triton_per_ (TraceLens's name
 * matcher), else TLM_PM_NONE. */
tlm_perf_model_id tlm_perf_model_of(const char *name);

/* TritonCompiledPerfModel.can_model over the arg texts (NULL = absent):
 * Concrete Inputs, Input Dims and Input type all non-empty lists and at
 * least one Concrete Inputs entry that int() parses. */
int tlm_perf_triton_can_model(const char *dims, const char *types,
                              const char *concrete);

/* KNOWN_OPS of TraceLens's Triton model (aten op names, sorted by strcmp)
 * and an exact lookup. */
const char *const *tlm_perf_known_aten_ops(size_t *n);
int tlm_perf_is_known_aten_op(const char *s, size_t len);

/* The Inductor cache (perf_inductor.c): V1's view of one kernel. */
typedef struct tlm_inductor_cache tlm_inductor_cache;
typedef struct tlm_inductor_v1_meta {
    const char *fused_ops; /* the comment's ops, ", "-joined */
    double fpe;            /* Σ FLOPs per element over them */
    double xnumel, rnumel;
    unsigned nptr, bpe0;   /* pointer args of a known dtype, bytes per
                              element of the first */
} tlm_inductor_v1_meta;
/* 1 and *m when kernel `name` is in c (c may be NULL). */
int tlm_inductor_v1(const tlm_inductor_cache *c, const char *name,
                    tlm_inductor_v1_meta *m);
/* One file's text (modified in place): counted, parsed; 0, or -1 when out
 * of memory.  tlm_inductor_finalize sorts once every file is in. */
int tlm_inductor_take_text(tlm_inductor_cache *c, char *buf, size_t n);
void tlm_inductor_finalize(tlm_inductor_cache *c);
/* Counts a file that was not read (file = 1) and / or left out. */
void tlm_inductor_count(tlm_inductor_cache *c, int file, int skipped);

#endif /* TLM_PERF_INTERNAL_H */
