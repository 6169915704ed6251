/*
 * sortutil.h - stable sorts that allocate through the caller's checks
 * (TLM_ENOMEM, never abort): index sort by callback, (key, value) pairs
 * over natural runs.
 */
#ifndef TLM_SORTUTIL_H
#define TLM_SORTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"
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

/* Defines `static tlm_status name(T *a, size_t n)`: a stable merge sort
 * of a[0..n) by le(const T *x, const T *y) (x may come first) that merges
 * the input's natural runs, so input made of a few sorted runs (one per
 * thread, one per stream) sorts in a few passes and sorted input in one
 * scan.  Errors: TLM_ENOMEM (a is unchanged).  One definition for every
 * record type, so that the comparison inlines. */
#define TLM_DEFINE_RUN_SORT(name, T, le)                                      \
    static tlm_status name(T *a, size_t n)                                    \
    {                                                                         \
        size_t k = 1;                                                         \
        while (k < n && le(&a[k - 1], &a[k]))                                 \
            k++;                                                              \
        if (k >= n)                                                           \
            return TLM_OK;                                                    \
        T *tmp = tlm_malloc_warm(n * sizeof *tmp);                            \
        if (!tmp)                                                             \
            return TLM_ENOMEM;                                                \
        T *src = a, *dst = tmp;                                               \
        size_t runs;                                                          \
        do {                                                                  \
            size_t lo = 0;                                                    \
            runs = 0;                                                         \
            while (lo < n) {                                                  \
                size_t mid = lo + 1;                                          \
                while (mid < n && le(&src[mid - 1], &src[mid]))               \
                    mid++;                                                    \
                size_t hi = mid;                                              \
                if (hi < n) {                                                 \
                    hi++;                                                     \
                    while (hi < n && le(&src[hi - 1], &src[hi]))              \
                        hi++;                                                 \
                }                                                             \
                size_t i = lo, j = mid, o = lo;                               \
                while (i < mid && j < hi)                                     \
                    dst[o++] = le(&src[i], &src[j]) ? src[i++] : src[j++];    \
                while (i < mid)                                               \
                    dst[o++] = src[i++];                                      \
                while (j < hi)                                                \
                    dst[o++] = src[j++];                                      \
                lo = hi;                                                      \
                runs++;                                                       \
            }                                                                 \
            T *t_ = src;                                                      \
            src = dst;                                                        \
            dst = t_;                                                         \
        } while (runs > 1);                                                   \
        if (src != a)                                                         \
            memcpy(a, src, n * sizeof *a);                                    \
        free(tmp);                                                            \
        return TLM_OK;                                                        \
    }

#endif /* TLM_SORTUTIL_H */
