/*
 * grow.h - the one convention for growable arrays: an array pointer and
 * its capacity in elements, grown by doubling.  Callers keep their count;
 * parallel arrays sharing one capacity grow each from a copy of it.
 */
#ifndef TLM_GROW_H
#define TLM_GROW_H

#include <stddef.h>

#include "tlmpi/tlm_common.h"

/* Makes *p (capacity *cap elements of elem bytes) hold at least need
 * elements: the capacity doubles from max(*cap, first) until it does.
 * New elements are uninitialised.  TLM_OK, or TLM_ENOMEM (size overflow
 * or allocation failure) with *p and *cap unchanged. */
tlm_status tlm_grow(void **p, size_t *cap, size_t need, size_t elem,
                    size_t first);

/* tlm_grow through the allocator a (its realloc_fn; NULL: the C
 * library's realloc), for arrays the caller's allocator owns. */
tlm_status tlm_grow_al(const tlm_alloc *a, void **p, size_t *cap,
                       size_t need, size_t elem, size_t first);

#endif /* TLM_GROW_H */
