/*
 * search.h - the one lower-bound search: the first element of a sorted
 * array that is not less than a key.  tlm_lower_bound orders by a
 * callback (any key, any element); the inline typed variants read one
 * integer field of each element (an array of integers, or a field of an
 * array of structs, found by its offset) for the hot paths.  Upper bounds
 * and "found or -1" lookups are expressed through the lower bound.
 */
#ifndef TLM_SEARCH_H
#define TLM_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The first index i of base[0..n) (elements of size bytes) whose element
 * is not less than key: cmp(key, elem) > 0 means "elem is less than key"
 * (before it), anything else "not less".  n when every element is less.
 * The array must be partitioned that way (sorted by the order cmp
 * compares in); an upper bound is this with a cmp that also puts the
 * elements equal to the key before it. */
size_t tlm_lower_bound(const void *base, size_t n, size_t size,
                       const void *key,
                       int (*cmp)(const void *key, const void *elem));

/* tlm_lower_bound_<T>_at(base, n, stride, off, key): the lower bound of
 * key over the T fields at byte offset off of n elements stride bytes
 * apart (off 0, stride sizeof(T): an array of T). */
#define TLM_LOWER_BOUND_AT_(name, T)                                         \
    static inline size_t name(const void *base, size_t n, size_t stride,     \
                              size_t off, T key)                             \
    {                                                                        \
        const char *b = (const char *)base;                                  \
        size_t lo = 0, hi = n;                                               \
        while (lo < hi) {                                                    \
            size_t mid = lo + (hi - lo) / 2;                                 \
            T v;                                                             \
            memcpy(&v, b + mid * stride + off, sizeof v);                    \
            if (v < key)                                                     \
                lo = mid + 1;                                                \
            else                                                             \
                hi = mid;                                                    \
        }                                                                    \
        return lo;                                                           \
    }
TLM_LOWER_BOUND_AT_(tlm_lower_bound_i64_at, int64_t)
TLM_LOWER_BOUND_AT_(tlm_lower_bound_i32_at, int32_t)
TLM_LOWER_BOUND_AT_(tlm_lower_bound_u64_at, uint64_t)
TLM_LOWER_BOUND_AT_(tlm_lower_bound_f64_at, double)
#undef TLM_LOWER_BOUND_AT_

/* The first index of the double fields greater than key (the elements
 * equal to the key count as before it; NaN fields are not expected). */
static inline size_t tlm_upper_bound_f64_at(const void *base, size_t n,
                                            size_t stride, size_t off,
                                            double key)
{
    const char *b = (const char *)base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double v;
        memcpy(&v, b + mid * stride + off, sizeof v);
        if (v <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first index of the int64 fields greater than key (an upper bound:
 * the lower bound of key + 1). */
static inline size_t tlm_upper_bound_i64_at(const void *base, size_t n,
                                            size_t stride, size_t off,
                                            int64_t key)
{
    return key == INT64_MAX
               ? n
               : tlm_lower_bound_i64_at(base, n, stride, off, key + 1);
}

/* The lower bound of key in the sorted int64 array a[0..n). */
static inline size_t tlm_lower_bound_i64(const int64_t *a, size_t n,
                                         int64_t key)
{
    return tlm_lower_bound_i64_at(a, n, sizeof *a, 0, key);
}

#endif /* TLM_SEARCH_H */
