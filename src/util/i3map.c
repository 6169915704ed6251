/*
 * i3map.c - open-addressing hash map from an int64 triple to an int32
 * (linear probing, power-of-two capacity, grown at half load).
 */
#include <stdlib.h>
#include <string.h>

#include "i3map.h"
#include "mem_internal.h"

static uint64_t mix3(int64_t a, int64_t b, int64_t c)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)b + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)c * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

tlm_status tlm_i3map_init(tlm_i3map *m, size_t expect)
{
    size_t cap = 16;
    while (cap < expect * 2 + 1)
        cap <<= 1;
    m->keys = tlm_malloc_warm(cap * 3 * sizeof *m->keys);
    m->vals = tlm_malloc_warm(cap * sizeof *m->vals);
    m->cap = cap;
    m->count = 0;
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        m->cap = 0;
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        m->vals[i] = -1;
    return TLM_OK;
}

void tlm_i3map_free(tlm_i3map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->count = 0;
}

static tlm_status i3map_grow(tlm_i3map *m)
{
    tlm_i3map n;
    tlm_status st = tlm_i3map_init(&n, m->cap);
    if (st != TLM_OK)
        return st;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] < 0)
            continue;
        const int64_t *k = m->keys + 3 * i;
        size_t j = mix3(k[0], k[1], k[2]) & (n.cap - 1);
        while (n.vals[j] >= 0)
            j = (j + 1) & (n.cap - 1);
        memcpy(n.keys + 3 * j, k, 3 * sizeof *k);
        n.vals[j] = m->vals[i];
        n.count++;
    }
    tlm_i3map_free(m);
    *m = n;
    return TLM_OK;
}

tlm_status tlm_i3map_put(tlm_i3map *m, int64_t a, int64_t b, int64_t c,
                         int32_t v)
{
    if ((m->count + 1) * 2 > m->cap) {
        tlm_status st = i3map_grow(m);
        if (st != TLM_OK)
            return st;
    }
    size_t j = mix3(a, b, c) & (m->cap - 1);
    while (m->vals[j] >= 0) {
        const int64_t *k = m->keys + 3 * j;
        if (k[0] == a && k[1] == b && k[2] == c) {
            m->vals[j] = v;
            return TLM_OK;
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[3 * j] = a;
    m->keys[3 * j + 1] = b;
    m->keys[3 * j + 2] = c;
    m->vals[j] = v;
    m->count++;
    return TLM_OK;
}

int32_t tlm_i3map_get(const tlm_i3map *m, int64_t a, int64_t b, int64_t c)
{
    if (!m->cap)
        return -1;
    size_t j = mix3(a, b, c) & (m->cap - 1);
    while (m->vals[j] >= 0) {
        const int64_t *k = m->keys + 3 * j;
        if (k[0] == a && k[1] == b && k[2] == c)
            return m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

