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
    size_t cap, pos, end, max_tok;
    uint64_t base; /* absolute offset of buf[0] */
    int eof;
    char *scr;
    size_t scr_cap;
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
tlm_status rp_next(rp_lex *lx);

/* Skips one whole value whose first token is current (depth-bounded,
 * without recursion); leaves its last token current (a scalar, or the
 * closing bracket).  TLM_OK or an error. */
tlm_status rp_skip(rp_lex *lx, unsigned max_depth);

/* Name of a token kind for messages ("a string", "'{'", ...). */
const char *rp_tok_name(int tok);

#endif /* TLM_RP_LEX_H */
