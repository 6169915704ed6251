/*
 * replay_internal.h - what the files of the replay layer share: the
 * policy tables (op-name grammar, namespace allow-list, deny-list, type
 * table), the strict Concrete Inputs grammar, and the set's layout.
 */
#ifndef TLM_REPLAY_INTERNAL_H
#define TLM_REPLAY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"
#include "tlmpi/tlm_replay.h"

#define TLM_RP_MAX_ARGS 64
#define TLM_RP_MAX_DIMS 16
#define TLM_RP_MAX_LIST 256           /* tensors of a TensorList */
#define TLM_RP_MAX_DIM (1LL << 40)
#define TLM_RP_MAX_STRIDE (1LL << 48)
#define TLM_RP_MAX_CONCRETE 4096      /* bytes of one Concrete Input */
#define TLM_RP_MAX_NAME 128           /* bytes of a bad name kept */
#define TLM_RP_MAX_NS 16              /* namespaces in the allow-list */

/* Kind of an "Input type" entry. */
typedef enum tlm_rp_kind {
    TLM_RPK_TENSOR,     /* a dtype of the table */
    TLM_RPK_SCALAR,     /* "Scalar" */
    TLM_RPK_SCALARLIST, /* "ScalarList" */
    TLM_RPK_TENSORLIST, /* "TensorList" */
    TLM_RPK_NONE        /* "": None or not recorded */
} tlm_rp_kind;

typedef struct tlm_rp_type {
    const char *name;   /* as Kineto writes it; written from this table */
    tlm_rp_kind kind;
    unsigned elsize;    /* bytes per element (tensors) */
} tlm_rp_type;

/* The entry of the type table for s[0..n), or NULL (unknown_type). */
const tlm_rp_type *tlm_rp_type_find(const char *s, size_t n);
/* Element size of the tensors of a TensorList when the op has no other
 * tensor (no dtype is recorded; the runner then builds them as float32,
 * else with the dtype of the op's first tensor). */
#define TLM_RP_LIST_ELSIZE 4u

/* The op-name rules: TLM_RR_OK, _BAD_OP_NAME, _NAMESPACE or _DENIED_OP.
 * nslist: comma list of allowed namespaces (NULL = "aten"). */
tlm_replay_reason tlm_rp_check_name(const char *s, size_t n,
                                    const char *nslist);
/* 1 when s[0..n) is an identifier of the grammar's component: at most
 * max bytes of [A-Za-z0-9_], not starting with a digit nor with "__". */
int tlm_rp_ident(const char *s, size_t n, size_t max);

/* A parsed Concrete Input. */
typedef enum tlm_rp_vkind {
    TLM_RPV_EMPTY,   /* "" */
    TLM_RPV_INT,
    TLM_RPV_FLOAT,
    TLM_RPV_BOOL,
    TLM_RPV_LIST     /* items in the caller's sbuf as JSON */
} tlm_rp_vkind;

typedef struct tlm_rp_value {
    tlm_rp_vkind kind;
    int64_t i;        /* INT, BOOL (0/1) */
    double f;         /* FLOAT */
    size_t n_items;   /* LIST */
    double product;   /* LIST: product of |integer items| (0 as 1) */
    int64_t max_abs;  /* INT / LIST: largest |integer| (saturated) */
} tlm_rp_value;

/* Parses s[0..n) in the strict grammar (spec replay.md §10.3) and appends
 * the typed JSON value to out (null for ""; lists as JSON arrays).
 * Returns TLM_RR_OK, TLM_RR_BAD_CONCRETE or TLM_RR_NONFINITE. */
tlm_replay_reason tlm_rp_concrete(const char *s, size_t n, tlm_sbuf *out,
                                  tlm_rp_value *v);

/* ASCII printable copy of s (at most max bytes; other bytes as '?'),
 * malloc'd; NULL when out of memory. */
char *tlm_rp_printable(const char *s, size_t n, size_t max);

/* JSON string of ASCII-printable text (the callers only pass such). */
void tlm_rp_json_str(tlm_sbuf *b, const char *s);

struct tlm_replay_set {
    tlm_replay_op *ops;
    size_t n, cap;
    char *trace_name;   /* printable basename */
};

#endif /* TLM_REPLAY_INTERNAL_H */
