/*
 * tree_internal.h - the inside of a tlm_tree: one node record per UID and
 * the GPU-event slices.  The report layer reads them inline in its walks
 * (tlm_nd, tlm_nd_gpu): one cache line per node visited.
 */
#ifndef TLM_TREE_INTERNAL_H
#define TLM_TREE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_tree.h"

/* One node of the call tree, indexed by UID: everything a walk reads in
 * one 24-byte record (one cache line per node visited, not six arrays). */
typedef struct tlm_tnode {
    int32_t parent, first_child, next_sibling; /* -1 = none */
    int32_t gpu_lo, gpu_hi; /* slice of gpu_order for the subtree */
    uint8_t flags;          /* TLM_NODE_* */
    uint8_t cat;            /* the event's tlm_cat */
    uint16_t pad_;
} tlm_tnode;

struct tlm_uidmap;

struct tlm_tree {
    const tlm_trace *trace;
    const tlm_event *ev;
    size_t n;
    tlm_tnode *nd;
    struct tlm_uidmap *fwd; /* bwd node -> fwd op; NULL without sequence
                               numbers */
    struct tlm_uidmap *bwd; /* fwd op -> bwd node */
    int32_t *gpu_order;
    size_t n_gpu_order;
    double *gpu_se;        /* (start, end) us of each gpu_order entry */
    int32_t *roots;
    size_t n_roots;
    tlm_tree_stats stats;
    int pseudo_done; /* tlm_tree_pseudo_ops ran (once per tree) */
    double *scratch; /* busy-time pairs */
    size_t scratch_cap;
};

/* tlm_tree_busy_us with the caller's scratch (*scratch, *cap grown with
 * realloc as needed), so that threads can share a finished tree. */
tlm_status tlm_tree_busy_us_buf(const tlm_tree *t, const int32_t *uids,
                                size_t n, double *out, double **scratch,
                                size_t *cap);

/* Inline twins of the tlm_tree_* accessors for the report modules. */
static inline const tlm_tnode *tlm_nd(const tlm_tree *t, int32_t u)
{
    return &t->nd[u];
}
static inline const int32_t *tlm_nd_gpu(const tlm_tree *t, int32_t u,
                                        size_t *n)
{
    *n = (size_t)(t->nd[u].gpu_hi - t->nd[u].gpu_lo);
    return t->gpu_order + t->nd[u].gpu_lo;
}

/* Pseudo ops (--enable_pseudo_ops, pseudo_ops.c / pseudo_inject.c): one
 * planned injection, "donor op -> pseudo op -> launch -> kernel". */
typedef enum tlm_pseudo_rule {
    TLM_PSEUDO_AITER_FUSED = 0, /* pseudo_op::moe_aiter_fused_1stage */
    TLM_PSEUDO_TRITON_UP,       /* pseudo_op::moe_triton_unfused_up */
    TLM_PSEUDO_TRITON_DOWN,     /* pseudo_op::moe_triton_unfused_down */
    TLM_PSEUDO_TRITON_SCATTER,  /* ..._finalize_matmul_scatter */
    TLM_PSEUDO_GPTQ_UP,         /* pseudo_op::moe_gptq_awq_up */
    TLM_PSEUDO_GPTQ_DOWN,       /* pseudo_op::moe_gptq_awq_down */
    TLM_PSEUDO_RULE_COUNT
} tlm_pseudo_rule;

typedef struct tlm_pseudo_spec {
    int32_t kernel; /* the GPU event the pseudo op isolates */
    int32_t donor;  /* the op whose shapes and sequence number it takes */
    int32_t rule;   /* tlm_pseudo_rule */
} tlm_pseudo_spec;

/* Name of a rule's pseudo op. */
const char *tlm_pseudo_rule_name(int rule);

/* The injections the rules ask for, in TraceLens's order (at most one per
 * kernel).  *out is malloc'ed (free it), *n its length.  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_pseudo_plan(const tlm_tree *t, tlm_pseudo_spec **out,
                           size_t *n);

/* TraceLens's first step: "sglang_profiler::<op>_<n>" names lose "_<n>"
 * (pseudo_names.c); *renamed counts the events renamed.  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_pseudo_sglang_names(tlm_tree *t, tlm_trace *trace,
                                   size_t *renamed, tlm_error *err);

/* Appends one pseudo op per spec to the trace (UIDs n, n + 1, ...) and
 * to the tree; a spec whose kernel has no launch, whose launch has no
 * parent, or whose launch already went under a pseudo op is skipped
 * (*skipped counts them).  Errors: TLM_EINVAL (trace is not the tree's),
 * TLM_ENOMEM. */
tlm_status tlm_pseudo_inject(tlm_tree *t, tlm_trace *trace,
                             const tlm_pseudo_spec *sp, size_t n,
                             size_t *added, size_t *skipped,
                             tlm_error *err);

#endif /* TLM_TREE_INTERNAL_H */
