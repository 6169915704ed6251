/*
 * grow.h - the one convention for growable arrays: an array pointer and
 * its capacity in elements, grown by doubling.  Callers keep their count.
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

#endif /* TLM_GROW_H */
