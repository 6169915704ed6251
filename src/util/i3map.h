/*
 * i3map.h - an open-addressing hash map from a triple of int64 keys to an
 * int32 value (threads, flow ids, correlation ids, grouping keys).
 */
#ifndef TLM_I3MAP_H
#define TLM_I3MAP_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_common.h"

typedef struct tlm_i3map {
    int64_t *keys; /* 3 per slot */
    int32_t *vals; /* -1 = empty slot */
    size_t cap;    /* power of two */
    size_t count;
} tlm_i3map;

tlm_status tlm_i3map_init(tlm_i3map *m, size_t expect);
void tlm_i3map_free(tlm_i3map *m);
/* Sets (overwrites) the value for the key. */
tlm_status tlm_i3map_put(tlm_i3map *m, int64_t a, int64_t b, int64_t c,
                         int32_t v);
/* Value for the key, or -1. */
int32_t tlm_i3map_get(const tlm_i3map *m, int64_t a, int64_t b, int64_t c);

#endif /* TLM_I3MAP_H */
