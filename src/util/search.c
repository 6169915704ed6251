/*
 * search.c - the lower-bound search by callback (search.h).
 */
#include "search.h"

size_t tlm_lower_bound(const void *base, size_t n, size_t size,
                       const void *key,
                       int (*cmp)(const void *key, const void *elem))
{
    const char *b = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(key, b + mid * size) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
