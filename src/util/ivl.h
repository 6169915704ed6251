/*
 * ivl.h - interval sets, one copy: the union (sorted by start, overlapping
 * or touching intervals merged: [a, b) and [b, c) give [a, c)), its
 * length, the difference of two unions and the length inside a window.
 *
 * Two element types with the same routines: tlm_ivl (int64: ns or ps,
 * exact) and tlm_ivld (double: TraceLens's microseconds).  Lengths are
 * summed left to right over the merged list, from zero, as TraceLens sums
 * them.  An interval may end before it starts (a negative length: HTA's
 * Q1): it is kept as it is, and the order of such intervals among equal
 * starts decides the merge (see the two sorts below).
 */
#ifndef TLM_IVL_H
#define TLM_IVL_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_common.h"

/* [s, e) in integer units. */
typedef struct tlm_ivl {
    int64_t s, e;
} tlm_ivl;

/* [s, e) in double units (microseconds). */
typedef struct tlm_ivld {
    double s, e;
} tlm_ivld;

/* Growable lists (tlm_grow's convention: v, count n, capacity cap). */
typedef struct tlm_ivl_vec {
    tlm_ivl *v;
    size_t n, cap;
} tlm_ivl_vec;
typedef struct tlm_ivld_vec {
    tlm_ivld *v;
    size_t n, cap;
} tlm_ivld_vec;

/* ---- int64 intervals */

/* Appends [s, e) to a.  Errors: TLM_ENOMEM (a unchanged). */
tlm_status tlm_ivl_push(tlm_ivl_vec *a, int64_t s, int64_t e);
/* Sorts v[0..n) by (start, end): a merge of the natural runs (one per
 * stream or line, as events come), qsort when out of memory. */
void tlm_ivl_sort(tlm_ivl *v, size_t n);
/* Merges v[0..n), sorted by start, in place: overlapping or touching
 * intervals join (the next one joins while its start <= the group's end).
 * Returns the number of groups, at the front of v. */
size_t tlm_ivl_merge(tlm_ivl *v, size_t n);
/* tlm_ivl_sort then tlm_ivl_merge: the union, in place; its count. */
size_t tlm_ivl_union(tlm_ivl *v, size_t n);
/* Sum of (e - s) over v[0..n), left to right. */
int64_t tlm_ivl_length(const tlm_ivl *v, size_t n);
/* The length of the union of v[0..n) (v becomes the union's groups). */
int64_t tlm_ivl_union_len(tlm_ivl *v, size_t n);
/* out = base minus rm (both unions, sorted), out->n reset first; out must
 * not be either input.  Errors: TLM_ENOMEM (out holds a prefix). */
tlm_status tlm_ivl_subtract(const tlm_ivl *base, size_t nb,
                            const tlm_ivl *rm, size_t nr, tlm_ivl_vec *out);
/* The length of the union v[0..n) (sorted, merged) inside [s, e). */
int64_t tlm_ivl_clipped(const tlm_ivl *v, size_t n, int64_t s, int64_t e);
/* The union with HTA's order (merge_kernel_intervals): v[0..n) sorted
 * stably by start alone, ties keeping the input order, then merged in
 * place; *m groups at the front.  Differs from tlm_ivl_union only where a
 * negative interval shares its start with another.  Errors: TLM_ENOMEM
 * (v unchanged, *m = 0). */
tlm_status tlm_ivl_union_stable(tlm_ivl *v, size_t n, size_t *m);

/* ---- double intervals: as above */

tlm_status tlm_ivld_push(tlm_ivld_vec *a, double s, double e);
void tlm_ivld_sort(tlm_ivld *v, size_t n);
size_t tlm_ivld_merge(tlm_ivld *v, size_t n);
size_t tlm_ivld_union(tlm_ivld *v, size_t n);
double tlm_ivld_length(const tlm_ivld *v, size_t n);
double tlm_ivld_union_len(tlm_ivld *v, size_t n);
tlm_status tlm_ivld_subtract(const tlm_ivld *base, size_t nb,
                             const tlm_ivld *rm, size_t nr,
                             tlm_ivld_vec *out);
double tlm_ivld_clipped(const tlm_ivld *v, size_t n, double s, double e);

#endif /* TLM_IVL_H */
