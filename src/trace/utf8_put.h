/*
 * utf8_put.h - one code point as UTF-8 (private to src/trace): the JSON
 * string decoders of the Kineto reader (reader.c) and the rocprofv3
 * lexer (rp_lex.c) share it.
 */
#ifndef TLM_UTF8_PUT_H
#define TLM_UTF8_PUT_H

#include <stddef.h>
#include <stdint.h>

/* Writes cp (at most 0x10FFFF, not a surrogate: the callers check) to d,
 * which has room for 4 bytes; returns the bytes written (1-4). */
static inline size_t tlm_put_utf8(char *d, uint32_t cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xc0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xe0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        d[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    d[0] = (char)(0xf0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    d[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

#endif
