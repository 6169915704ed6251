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

#include "ivl.h"

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
    tlm_ivld *gpu_se;      /* (start, end) us of each gpu_order entry */
    int32_t *roots;
    size_t n_roots;
    tlm_tree_stats stats;
    int pseudo_done; /* tlm_tree_pseudo_ops ran (once per tree) */
    tlm_ivld *scratch; /* busy-time intervals */
    size_t scratch_cap;
};

/* tlm_tree_busy_us with the caller's scratch (*scratch, capacity *cap in
 * intervals, grown with tlm_grow as needed), so that threads can share a
 * finished tree. */
tlm_status tlm_tree_busy_us_buf(const tlm_tree *t, const int32_t *uids,
                                size_t n, double *out, tlm_ivld **scratch,
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

#endif /* TLM_TREE_INTERNAL_H */
