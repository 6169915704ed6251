/*
 * grow.c - growable arrays (grow.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

/* Grows *p through a (NULL: realloc); see grow.h. */
tlm_status tlm_grow_al(const tlm_alloc *a, void **p, size_t *cap,
                       size_t need, size_t elem, size_t first)
{
    if (need <= *cap && *p)
        return TLM_OK;
    size_t nc = *cap > first ? *cap : (first ? first : 1);
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            return TLM_ENOMEM;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem)
        return TLM_ENOMEM;
    void *q = a ? a->realloc_fn(a->ctx, *p, nc * elem)
                : realloc(*p, nc * elem);
    if (!q)
        return TLM_ENOMEM;
    *p = q;
    *cap = nc;
    return TLM_OK;
}

/* Grows *p with realloc; see grow.h. */
tlm_status tlm_grow(void **p, size_t *cap, size_t need, size_t elem,
                    size_t first)
{
    return tlm_grow_al(NULL, p, cap, need, elem, first);
}
