/*
 * sortutil.c - stable merge sorts: indices by a callback, and (key, value)
 * pairs over the input's natural runs (TLM_DEFINE_RUN_SORT).  Scratch arrays are allocated
 * populated (mem_internal.h); TLM_ENOMEM when they cannot be.
 */
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"
#include "sortutil.h"

/* Stable merge sort of indices (bottom-up, one scratch array). */
tlm_status tlm_sort_idx(size_t *idx, size_t n, tlm_idx_cmp cmp,
                        const void *ctx)
{
    if (n < 2)
        return TLM_OK;
    /* already sorted? common for file-ordered data */
    size_t k = 1;
    while (k < n && cmp(ctx, idx[k - 1], idx[k]) <= 0)
        k++;
    if (k == n)
        return TLM_OK;
    size_t *tmp = tlm_malloc_warm(n * sizeof *tmp);
    if (!tmp)
        return TLM_ENOMEM;
    size_t *src = idx, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                if (cmp(ctx, src[j], src[i]) < 0)
                    dst[o++] = src[j++];
                else
                    dst[o++] = src[i++];
            }
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        size_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof *idx);
    free(tmp);
    return TLM_OK;
}

TLM_DEFINE_RUN_SORT(sort_pairs, tlm_pair, tlm_pair_le)

tlm_status tlm_sort_pairs(tlm_pair *a, size_t n)
{
    return sort_pairs(a, n);
}
