/*
 * sortutil.h - stable sorts that allocate through the caller's checks
 * (TLM_ENOMEM, never abort): index sort by callback, (key, value) pairs
 * over natural runs.
 */
#ifndef TLM_SORTUTIL_H
#define TLM_SORTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_common.h"

/* (key, value) pairs ordered by key then value: a total order when the
 * values are distinct (UIDs). */
typedef struct tlm_pair {
    int64_t key;
    int64_t val;
} tlm_pair;
static inline int tlm_pair_le(const tlm_pair *a, const tlm_pair *b)
{
    return a->key != b->key ? a->key < b->key : a->val <= b->val;
}
/* Merge sort of pairs by (key, val) over the input's natural runs (fast
 * for a few sorted runs).  Errors: TLM_ENOMEM. */
tlm_status tlm_sort_pairs(tlm_pair *a, size_t n);

/* Stable sort of size_t indices by a comparison callback. */
typedef int (*tlm_idx_cmp)(const void *ctx, size_t a, size_t b);
tlm_status tlm_sort_idx(size_t *idx, size_t n, tlm_idx_cmp cmp,
                        const void *ctx);

#endif /* TLM_SORTUTIL_H */
