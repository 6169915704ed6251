/*
 * npsort.h - numpy 1.24's argsort(kind="quicksort") for float64 keys and
 * pandas' nargsort descending on top of it: the row order TraceLens gets
 * from `sort_values(one column, ascending=False)` (spec addendum §A9).
 * Not stable: ties come out in the order numpy's introsort leaves them.
 */
#ifndef TLM_NPSORT_H
#define TLM_NPSORT_H

#include <stddef.h>

#include "tlmpi/tlm_common.h"

/* numpy's aquicksort (npysort/quicksort.cpp, numpy 1.24): idx[0..n) holds
 * indices into a, sorted in place by a[idx[k]] ascending: median-of-3
 * partitioning, insertion sort at 16 elements or fewer, heapsort below
 * depth 2*floor(log2 n).  NaN sorts last (numpy's `<` for floats). */
void tlm_np_aquicksort(const double *a, size_t *idx, size_t n);

/* pandas nargsort(ascending=False, na_position="last", kind="quicksort"):
 * perm[0..n) = row order of v[0..n) sorted descending; NaN rows last in
 * their order.  Errors: TLM_ENOMEM. */
tlm_status tlm_np_nargsort_desc(const double *v, size_t n, size_t *perm);

#endif /* TLM_NPSORT_H */
