/*
 * mix.h - the splitmix64 finaliser: spreads every input bit over the
 * 64-bit result (tlm_hash64's last step, and the collective identity
 * mixes of src/coll).
 */
#ifndef TLM_MIX_H
#define TLM_MIX_H

#include <stdint.h>

static inline uint64_t tlm_mix64(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

#endif /* TLM_MIX_H */
