/*
 * grow.c - growable arrays (grow.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

tlm_status tlm_grow(void **p, size_t *cap, size_t need, size_t elem,
                    size_t first)
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
    void *q = realloc(*p, nc * elem);
    if (!q)
        return TLM_ENOMEM;
    *p = q;
    *cap = nc;
    return TLM_OK;
}
