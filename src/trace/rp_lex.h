/*
 * rp_lex.h - a pull JSON lexer over tlm_instream, for readers of JSON
 * layouts other than Chrome traces (rocprofv3).  Not part of the public
 * API.
 *
 * The lexer keeps a window of the decompressed stream; each call to
 * rp_next() yields one token.  A token is never cut by the window: when
 * one runs off its end the window is refilled (the token's start moved to
 * the front, the buffer grown up to max_string + 64 bytes).  String
 * tokens point into the window when they hold no escape, else into a
 * scratch buffer; either stays valid until the next rp_next().  Offsets
 * are absolute in the decompressed stream.  Strings are checked to be
 * UTF-8 and free of raw control characters; numbers to be JSON numbers.
 */
#ifndef TLM_RP_LEX_H
#define TLM_RP_LEX_H

#include "trace_internal.h"

#include <string.h>

enum rp_tok {
    RP_EOF = 0,
    RP_LBRACE,
    RP_RBRACE,
    RP_LBRACK,
    RP_RBRACK,
    RP_COMMA,
    RP_COLON,
    RP_STR,
    RP_INT,   /* an integer that fits int64 (ival) */
    RP_NUM,   /* any other number (fraction, exponent, too large) */
    RP_TRUE,
    RP_FALSE,
    RP_NULL
};

typedef struct rp_lex {
    tlm_instream in;
    int in_open;
    const tlm_alloc *a;
    const char *name;
    tlm_error *err;
    unsigned char *buf;
    size_t cap, pos, end, max_tok, max_str;
    uint64_t base; /* absolute offset of buf[0] */
    int eof;
    char *scr;
    size_t scr_cap;
    unsigned char attn[256]; /* string bytes that need a look */
    /* the current token */
    int tok;
    const char *s; /* RP_STR: bytes (not NUL-terminated) */
    size_t slen;
    int64_t ival;
    uint64_t off; /* absolute offset of the token's first byte */
} rp_lex;

/* Opens on a file (data NULL) or on memory.  chunk 0 = 1 MiB. */
tlm_status rp_open(rp_lex *lx, const char *path, const void *data,
                   size_t size, size_t chunk, size_t max_string,
                   const tlm_alloc *a, tlm_error *err);
void rp_close(rp_lex *lx);

/* Next token into lx->tok.  TLM_OK, or an error naming the offset. */
tlm_status rp_next_slow(rp_lex *lx);

/* The first byte in [p, e) that is '"', '\\', below 0x20 or above 0x7f
 * (e when none): eight bytes at a time, then the table. */
static inline const unsigned char *rp_str_stop(const unsigned char *p,
                                               const unsigned char *e,
                                               const unsigned char *attn)
{
    const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
    while (e - p >= 8) {
        uint64_t x, q, b;
        memcpy(&x, p, 8);
        q = x ^ (ones * '"');
        b = x ^ (ones * '\\');
        uint64_t m = (((q - ones) & ~q) | ((b - ones) & ~b) |
                      (x - ones * 0x20) | x) & high;
        if (m) {
            /* the first flagged byte is a true one (false flags only
             * follow a true one); little- or big-endian alike */
            while (!attn[*p])
                p++;
            return p;
        }
        p += 8;
    }
    while (p < e && !attn[*p])
        p++;
    return p;
}

/* rp_next's fast path, inline in the readers' loops: whitespace, a
 * punctuation byte, a string without escapes or non-ASCII bytes, or a
 * positive integer of at most 18 digits, all inside the window and
 * followed by more window; anything else goes to rp_next_slow. */
#if defined(__GNUC__) || defined(__clang__)
#define RP_INLINE static inline __attribute__((always_inline))
#else
#define RP_INLINE static inline
#endif

RP_INLINE tlm_status rp_next(rp_lex *lx)
{
    const unsigned char *b = lx->buf, *p = b + lx->pos, *e = b + lx->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    if (e - p < 2)
        goto slow;
    switch (*p) {
    case '{':
        lx->tok = RP_LBRACE;
        break;
    case '}':
        lx->tok = RP_RBRACE;
        break;
    case '[':
        lx->tok = RP_LBRACK;
        break;
    case ']':
        lx->tok = RP_RBRACK;
        break;
    case ',':
        lx->tok = RP_COMMA;
        break;
    case ':':
        lx->tok = RP_COLON;
        break;
    case '"': {
        const unsigned char *q = rp_str_stop(p + 1, e, lx->attn);
        if (q >= e || *q != '"' || (size_t)(q - p - 1) > lx->max_str)
            goto slow;
        lx->off = lx->base + (size_t)(p - b);
        lx->tok = RP_STR;
        lx->s = (const char *)p + 1;
        lx->slen = (size_t)(q - p - 1);
        lx->pos = (size_t)(q + 1 - b);
        return TLM_OK;
    }
    default: {
        if (*p == '0' && !(p[1] >= '0' && p[1] <= '9') && p[1] != '.' &&
            p[1] != 'e' && p[1] != 'E' && p[1] != '-' &&
            p[1] != '+') { /* e - p >= 2; "0-" is one bad number */
            lx->off = lx->base + (size_t)(p - b);
            lx->tok = RP_INT;
            lx->ival = 0;
            lx->s = (const char *)p;
            lx->slen = 1;
            lx->pos = (size_t)(p + 1 - b);
            return TLM_OK;
        }
        if (*p < '1' || *p > '9')
            goto slow;
        const unsigned char *q = p;
        uint64_t v = 0;
        while (q < e && *q >= '0' && *q <= '9' && q - p < 18)
            v = v * 10 + (unsigned)(*q++ - '0');
        if (q >= e || (*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' ||
            *q == 'E' || *q == '-' || *q == '+')
            goto slow;
        lx->off = lx->base + (size_t)(p - b);
        lx->tok = RP_INT;
        lx->ival = (int64_t)v;
        lx->s = (const char *)p;
        lx->slen = (size_t)(q - p);
        lx->pos = (size_t)(q - b);
        return TLM_OK;
    }
    }
    lx->off = lx->base + (size_t)(p - b);
    lx->pos = (size_t)(p + 1 - b);
    return TLM_OK;
slow:
    lx->pos = (size_t)(p - b);
    return rp_next_slow(lx);
}

/* After a key or a value: whitespace, then ':' ',' '}' or ']' consumed
 * inline; anything else through rp_next. */
RP_INLINE tlm_status rp_punct(rp_lex *lx)
{
    const unsigned char *b = lx->buf, *p = b + lx->pos, *e = b + lx->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    if (p < e) {
        int t = *p == ':'   ? RP_COLON
                : *p == ',' ? RP_COMMA
                : *p == '}' ? RP_RBRACE
                : *p == ']' ? RP_RBRACK
                            : 0;
        if (t) {
            lx->tok = t;
            lx->off = lx->base + (size_t)(p - b);
            lx->pos = (size_t)(p + 1 - b);
            return TLM_OK;
        }
    }
    lx->pos = (size_t)(p - b);
    return rp_next(lx);
}

/* Skips one whole value whose first token is current (depth-bounded,
 * without recursion); leaves its last token current (a scalar, or the
 * closing bracket).  TLM_OK or an error. */
tlm_status rp_skip(rp_lex *lx, unsigned max_depth);

/* 1 when [p, e) is a JSON number. */
int rp_num_syntax(const unsigned char *p, const unsigned char *e);

/* Name of a token kind for messages ("a string", "'{'", ...). */
const char *rp_tok_name(int tok);

#endif /* TLM_RP_LEX_H */
