/*
 * ivl.c - interval sets (ivl.h): the routines of ivl_tmpl.h for int64 and
 * double intervals, and HTA's stable union.
 */
#include "ivl.h"

#include <stdlib.h>
#include <string.h>

#include <stddef.h>

#include "grow.h"
#include "search.h"
#include "sortutil.h"

#define IVL_T tlm_ivl
#define IVL_V int64_t
#define IVL_VEC tlm_ivl_vec
#define IVL_FN(x) tlm_ivl_##x
#define IVL_SN(x) ivl_##x##_i64
#define IVL_UB tlm_upper_bound_i64_at
#include "ivl_tmpl.h"
#undef IVL_T
#undef IVL_V
#undef IVL_VEC
#undef IVL_FN
#undef IVL_SN
#undef IVL_UB

#define IVL_T tlm_ivld
#define IVL_V double
#define IVL_VEC tlm_ivld_vec
#define IVL_FN(x) tlm_ivld_##x
#define IVL_SN(x) ivl_##x##_dbl
#define IVL_UB tlm_upper_bound_f64_at
#include "ivl_tmpl.h"
#undef IVL_T
#undef IVL_V
#undef IVL_VEC
#undef IVL_FN
#undef IVL_SN
#undef IVL_UB

/* Start order alone: x may come before y (the stable sort keeps ties). */
static inline int start_le(const tlm_ivl *x, const tlm_ivl *y)
{
    return x->s <= y->s;
}

/* Stable merge sort by start over the natural runs. */
TLM_DEFINE_RUN_SORT(sort_by_start, tlm_ivl, start_le)

tlm_status tlm_ivl_union_stable(tlm_ivl *v, size_t n, size_t *m)
{
    *m = 0;
    if (sort_by_start(v, n) != TLM_OK)
        return TLM_ENOMEM;
    *m = tlm_ivl_merge(v, n);
    return TLM_OK;
}
