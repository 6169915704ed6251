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
 * one 16-byte record (one cache line per node visited, not six arrays).
 * The subtree's slice of gpu_order is kept apart (tlm_nd_grange), only
 * for the nodes that have GPU events below them. */
typedef struct tlm_tnode {
    int32_t parent, first_child, next_sibling; /* -1 = none */
    uint8_t flags;          /* TLM_NODE_* */
    uint8_t cat;            /* the event's tlm_cat */
    uint16_t pad_;
} tlm_tnode;

/* A subtree's slice [lo, hi) of gpu_order. */
typedef struct tlm_grange {
    int32_t lo, hi;
} tlm_grange;

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
    /* The GPU slices, stored only where a node's differs from its
     * parent's: bit u of gbits says whether node u has a non-empty one,
     * bit u of gown whether it is stored, as grng[grank[u / 64] + the set
     * bits of u's gown word below u] (a rank directory); a node with a
     * slice not stored has its parent's (the chain op -> launch -> kernel
     * of one kernel keeps one).  2.5 bits a node and 8 bytes a stored
     * slice, not 8 bytes a node. */
    uint64_t *gbits, *gown;
    uint32_t *grank;
    tlm_grange *grng;
    size_t n_grng, gwords; /* ranges; words of gbits and grank */
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
/* Whether node u has GPU events below it (or is one): a non-empty slice. */
static inline int tlm_nd_has_gpu(const tlm_tree *t, int32_t u)
{
    size_t w = (size_t)u >> 6;
    return w < t->gwords && ((t->gbits[w] >> ((unsigned)u & 63u)) & 1u);
}
/* Whether node u's slice is stored (gown). */
static inline int tlm_nd_own(const tlm_tree *t, int32_t u)
{
    return (t->gown[(size_t)u >> 6] >> ((unsigned)u & 63u)) & 1u;
}
/* The index in grng of node u's slice; u must have one stored. */
static inline size_t tlm_nd_slot(const tlm_tree *t, int32_t u)
{
    size_t w = (size_t)u >> 6;
    uint64_t bit = (uint64_t)1 << ((unsigned)u & 63u);
    return t->grank[w] + (size_t)__builtin_popcountll(t->gown[w] & (bit - 1));
}
/* Node u's slice of gpu_order; {0, 0} when it has none. */
static inline tlm_grange tlm_nd_grange(const tlm_tree *t, int32_t u)
{
    if (!tlm_nd_has_gpu(t, u))
        return (tlm_grange){0, 0};
    while (!tlm_nd_own(t, u))
        u = t->nd[u].parent;
    return t->grng[tlm_nd_slot(t, u)];
}
static inline const int32_t *tlm_nd_gpu(const tlm_tree *t, int32_t u,
                                        size_t *n)
{
    tlm_grange g = tlm_nd_grange(t, u);
    *n = (size_t)(g.hi - g.lo);
    return t->gpu_order + g.lo;
}

/* Every node's GPU slice in one array of cap >= t->n entries, for the
 * pseudo ops to relink nodes; NULL when out of memory.  Until
 * tlm_tree_granges_close the tree's slices are not to be read. */
tlm_grange *tlm_tree_granges_open(const tlm_tree *t, size_t cap);
/* Stores the slices r[0 .. t->n) (the tree's nodes as now linked) as the
 * tree's again and frees r; TLM_ENOMEM leaves every slice empty. */
tlm_status tlm_tree_granges_close(tlm_tree *t, tlm_grange *r);

#endif /* TLM_TREE_INTERNAL_H */
