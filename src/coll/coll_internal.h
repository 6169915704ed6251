/*
 * coll_internal.h - helpers shared by the collective modules
 * (coll_records.c, coll_match.c, coll_clock.c, coll_summary.c, coll_tl.c,
 * dtype.c).  Not part of the public API.
 */
#ifndef TLM_COLL_INTERNAL_H
#define TLM_COLL_INTERNAL_H

#include "mix.h"
#include "tlmpi/tlm_coll.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "grow.h"

static inline const tlm_alloc *tlm_coll_al(const tlm_alloc *a)
{
    return a ? a : tlm_alloc_default();
}

static inline void *tlm_coll_malloc(const tlm_alloc *a, size_t n)
{
    a = tlm_coll_al(a);
    return a->malloc_fn(a->ctx, n ? n : 1);
}

static inline void *tlm_coll_calloc(const tlm_alloc *a, size_t cnt,
                                    size_t sz)
{
    if (sz && cnt > SIZE_MAX / sz)
        return NULL;
    void *p = tlm_coll_malloc(a, cnt * sz);
    if (p && cnt != 0 && sz != 0)
        memset(p, 0, cnt * sz);
    return p;
}

static inline void *tlm_coll_realloc(const tlm_alloc *a, void *p, size_t n)
{
    a = tlm_coll_al(a);
    return a->realloc_fn(a->ctx, p, n ? n : 1);
}

static inline void tlm_coll_mfree(const tlm_alloc *a, void *p)
{
    if (!p)
        return;
    a = tlm_coll_al(a);
    a->free_fn(a->ctx, p);
}

/* Grows *arr (element size sz) so that it holds at least need elements:
 * util's tlm_grow through the caller's tlm_alloc (the collective layer's
 * arrays are freed with tlm_coll_free).  1 on success, 0 out of memory. */
static inline int tlm_coll_grow(const tlm_alloc *a, void **arr, size_t *cap,
                                size_t need, size_t sz)
{
    if (need <= *cap) /* room (none needed: nothing allocated) */
        return 1;
    return tlm_grow_al(tlm_coll_al(a), arr, cap, need, sz, 16) == TLM_OK;
}

/* Order-dependent 64-bit mix of two values (deterministic everywhere). */
static inline uint64_t tlm_coll_mix(uint64_t a, uint64_t b)
{
    return tlm_mix64(a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2)));
}

/* Copies at most len bytes of s into dst[cap] (NUL-terminated). */
static inline void tlm_coll_strlcpy(char *dst, size_t cap, const char *s,
                                    size_t len)
{
    if (cap == 0)
        return;
    if (!s)
        len = 0;
    if (len >= cap)
        len = cap - 1;
    if (len)
        memcpy(dst, s, len);
    dst[len] = '\0';
}

static inline int tlm_coll_cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static inline int tlm_coll_cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* Order of (match key, seq, seq source) triples: the order of instances,
 * and of members (then by rank), so members follow their instance. */
static inline int tlm_coll_cmp_seq(uint64_t xkey, int64_t xseq, int xsrc,
                                   uint64_t ykey, int64_t yseq, int ysrc)
{
    int c = tlm_coll_cmp_u64(xkey, ykey);
    if (!c)
        c = tlm_coll_cmp_i64(xseq, yseq);
    return c ? c : tlm_coll_cmp_i64(xsrc, ysrc);
}

/* The canonical orders of tlm_coll_instances_sort and
 * tlm_coll_members_sort (coll_match.c), and an instance against a member
 * in them: 0 when m is one of in's members. */
int tlm_coll_inst_cmp(const tlm_coll_instance *x, const tlm_coll_instance *y);
int tlm_coll_mem_cmp(const tlm_coll_member *x, const tlm_coll_member *y);
int tlm_coll_inst_mem_cmp(const tlm_coll_instance *in,
                          const tlm_coll_member *m);

/* The opening of a function returning a new array: clears *out and *n_out
 * (where given), then TLM_EINVAL "fn: NULL argument" when either is NULL
 * or !in_ok (an input array NULL with a nonzero count); else TLM_OK. */
static inline tlm_status tlm_coll_outputs(void **out, size_t *n_out,
                                          int in_ok, const char *fn,
                                          tlm_error *err)
{
    if (out)
        *out = NULL;
    if (n_out)
        *n_out = 0;
    if (!out || !n_out || !in_ok)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "%s: NULL argument",
                             fn);
    return TLM_OK;
}

/* Times keep the whole int64 range of the trace (no clamping: a clock far
 * behind gives negative times).  Durations are bounded at extraction;
 * every sum or difference of two times goes through tlm_coll_sat_add /
 * tlm_coll_sat_sub, exact whenever the true value fits in int64 (times
 * less than 2^63 ns, 292 years, apart) and saturated otherwise, never
 * undefined. */
#define TLM_COLL_DUR_MAX ((int64_t)1 << 59)  /* ~18 years */
#define TLM_COLL_NELEMS_MAX ((int64_t)1 << 48)

static inline int64_t tlm_coll_clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* Saturating int64 addition (sums of waits, bytes over many members). */
static inline int64_t tlm_coll_sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

/* Saturating int64 subtraction a - b (differences of times). */
static inline int64_t tlm_coll_sat_sub(int64_t a, int64_t b)
{
    if (b < 0 && a > INT64_MAX + b)
        return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b)
        return INT64_MIN;
    return a - b;
}

/* |v|, INT64_MAX for INT64_MIN. */
static inline int64_t tlm_coll_sat_abs(int64_t v)
{
    return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/* Signature of a record: p2p types fold to one, so a send and its recv
 * agree. */
uint64_t tlm_coll_signature(int coll, int dtype, int64_t in_nelems,
                            int64_t out_nelems);

/* Median of v[0..n) (sorts v in place); n > 0.  Mean of the two middle
 * values (rounded toward negative infinity) for even n. */
int64_t tlm_coll_median_i64(int64_t *v, size_t n);

/* Moves the non-NaN values of v[0..n) to its front, sorted ascending, and
 * returns how many there are; *sum gets their sum in that order (0 when
 * none). */
size_t tlm_coll_sort_values(double *v, size_t n, double *sum);

/* Linear-interpolated quantile q of sorted doubles (numpy default). */
double tlm_coll_quantile_sorted(const double *v, size_t n, double q);

#endif /* TLM_COLL_INTERNAL_H */
