/*
 * zrun.c - zero-run packing of fixed-size rows (zrun.h).  A row is a
 * sequence of pieces: a 16-bit count of literal bytes, those bytes, a
 * 16-bit count of zero bytes; only runs of at least 4 zeros end a piece
 * (shorter ones stay literal), so a piece never costs more than it saves.
 */
#include "zrun.h"

#include <string.h>

/* Writes v as 2 bytes, little-endian. */
static uint8_t *put16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static size_t get16(const uint8_t *p)
{
    return (size_t)p[0] | (size_t)p[1] << 8;
}

/* Length of the run of zeros at b[i..n) (8 bytes at a time). */
static size_t zeros_at(const uint8_t *b, size_t i, size_t n)
{
    size_t j = i;
    uint64_t w;
    while (j + 8 <= n && (memcpy(&w, b + j, 8), w == 0))
        j += 8;
    while (j < n && b[j] == 0)
        j++;
    return j - i;
}

size_t tlm_zrun_pack(const void *row, size_t n, uint8_t *out)
{
    const uint8_t *b = row;
    uint8_t *o = out;
    size_t i = 0;
    while (i < n) {
        size_t lit = i, z = 0;
        for (;;) { /* the next run of zeros (memchr finds its start) */
            const uint8_t *q = memchr(b + lit, 0, n - lit);
            if (!q) {
                lit = n;
                z = 0;
                break;
            }
            lit = (size_t)(q - b);
            z = zeros_at(b, lit, n);
            if (z >= 4)
                break;
            if (lit + z >= n) { /* short zeros at the end: literal */
                lit = n;
                z = 0;
                break;
            }
            lit += z;
        }
        o = put16(o, lit - i);
        memcpy(o, b + i, lit - i);
        o += lit - i;
        o = put16(o, z);
        i = lit + z;
    }
    return (size_t)(o - out);
}

size_t tlm_zrun_unpack(const uint8_t *in, size_t len, void *row, size_t n)
{
    uint8_t *r = row;
    size_t i = 0, at = 0;
    while (i < n) {
        if (len - at < 2)
            return 0;
        size_t lit = get16(in + at);
        at += 2;
        if (lit > n - i || len - at < lit + 2)
            return 0;
        memcpy(r + i, in + at, lit);
        at += lit;
        i += lit;
        size_t z = get16(in + at);
        at += 2;
        if (z > n - i)
            return 0;
        memset(r + i, 0, z);
        i += z;
        if (lit == 0 && z == 0)
            return 0; /* no progress: not a packed row */
    }
    return at;
}
