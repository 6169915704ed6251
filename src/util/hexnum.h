/*
 * hexnum.h - the value of one hexadecimal digit (the four-digit JSON \u
 * escapes in the trace reader, the arch-JSON parser and the Python-repr
 * converter).
 */
#ifndef TLM_HEXNUM_H
#define TLM_HEXNUM_H

/* 0..15 for '0'-'9', 'a'-'f', 'A'-'F'; -1 for any other byte. */
static inline int tlm_hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif /* TLM_HEXNUM_H */
