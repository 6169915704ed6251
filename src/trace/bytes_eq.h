/*
 * bytes_eq.h - a short byte compare, inline, for the key lookups of the
 * JSON readers (reader.c, rp_keys.h): a libc call costs more than these
 * keys.  Not part of the public API.
 */
#ifndef TLM_BYTES_EQ_H
#define TLM_BYTES_EQ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 1 when a[0..n) equals b[0..n). */
static inline int tlm_bytes_eq(const char *a, const char *b, size_t n)
{
    while (n >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return 0;
        a += 8;
        b += 8;
        n -= 8;
    }
    while (n > 0) {
        if (*a++ != *b++)
            return 0;
        n--;
    }
    return 1;
}

#endif /* TLM_BYTES_EQ_H */
