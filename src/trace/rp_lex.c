/*
 * rp_lex.c - the pull JSON lexer of rp_lex.h.
 *
 * Why not the Chrome-trace tokenizer of reader.c: that one is a
 * recursive-descent parser specialised for trace events (it knows their
 * keys, interns as it goes and retries a whole event after a refill).
 * rocprofv3 JSON nests its records three levels deep under one key, so
 * its reader wants tokens, one at a time.  Both stand on the same input
 * stream (instream.c: chunked reads, gzip inflated on the fly, in a
 * helper thread for large chunks).
 *
 * The hot path is a string or a number wholly inside the window: one scan
 * with a table of the bytes that need attention.  Only when a token runs
 * off the window is it scanned again after a refill.
 */
#include "rp_lex.h"

#include <stdlib.h>
#include <string.h>

#include "hexnum.h"
#include "utf8_put.h"

#define RP_SLACK 64

const char *rp_tok_name(int tok)
{
    static const char *const names[] = {
        "the end of the input", "'{'", "'}'", "'['", "']'", "','", "':'",
        "a string", "an integer", "a number", "true", "false", "null"};
    return tok >= 0 && tok <= RP_NULL ? names[tok] : "?";
}

static int num_syntax(const unsigned char *p, const unsigned char *e,
                      int *is_int);

int rp_num_syntax(const unsigned char *p, const unsigned char *e)
{
    int is_int;
    return num_syntax(p, e, &is_int);
}

static tlm_status fail(rp_lex *lx, uint64_t off, tlm_status code,
                       const char *what)
{
    return tlm_error_set(lx->err, code, lx->name, (int64_t)off, "%s", what);
}

tlm_status rp_open(rp_lex *lx, const char *path, const void *data,
                   size_t size, size_t chunk, size_t max_string,
                   const tlm_alloc *a, tlm_error *err)
{
    memset(lx, 0, sizeof *lx);
    /* 1: a string byte that is not plain ASCII text */
    for (int c = 0; c < 256; c++)
        lx->attn[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
    lx->a = a;
    lx->err = err;
    lx->name = path ? path : "";
    lx->max_str = max_string;
    lx->max_tok = max_string + RP_SLACK;
    if (chunk == 0)
        chunk = (size_t)1 << 20;
    tlm_status st =
        data ? tlm_instream_open_mem(&lx->in, data, size, path, chunk, a, err)
             : tlm_instream_open_file(&lx->in, path, chunk, a, err);
    lx->in_open = 1; /* closed by rp_close even after a failed open */
    if (st != TLM_OK)
        return st;
    if (chunk >= ((size_t)64 << 10))
        tlm_instream_start_thread(&lx->in);
    lx->cap = chunk * 2;
    lx->buf = a->malloc_fn(a->ctx, lx->cap);
    if (!lx->buf)
        return fail(lx, 0, TLM_ENOMEM, "out of memory");
    return TLM_OK;
}

void rp_close(rp_lex *lx)
{
    if (lx->in_open)
        tlm_instream_close(&lx->in);
    lx->in_open = 0;
    if (lx->buf)
        lx->a->free_fn(lx->a->ctx, lx->buf);
    if (lx->scr)
        lx->a->free_fn(lx->a->ctx, lx->scr);
    lx->buf = NULL;
    lx->scr = NULL;
}

/* More bytes behind buf[end], keeping buf[keep..end) (moved to the
 * front).  Returns 1 when bytes were added, 0 at the end of the input,
 * -1 on error (err set). */
static int refill(rp_lex *lx, size_t keep)
{
    if (lx->eof)
        return 0;
    if (keep > 0) {
        memmove(lx->buf, lx->buf + keep, lx->end - keep);
        lx->end -= keep;
        lx->pos -= keep;
        lx->base += keep;
    }
    if (lx->end == lx->cap) {
        if (lx->cap >= lx->max_tok) {
            fail(lx, lx->base, TLM_ELIMIT, "a string or number longer "
                 "than max_string");
            return -1;
        }
        size_t nc = lx->cap * 2 > lx->max_tok ? lx->max_tok : lx->cap * 2;
        unsigned char *nb = lx->a->realloc_fn(lx->a->ctx, lx->buf, nc);
        if (!nb) {
            fail(lx, lx->base, TLM_ENOMEM, "out of memory");
            return -1;
        }
        lx->buf = nb;
        lx->cap = nc;
    }
    size_t got = 0;
    if (tlm_instream_read(&lx->in, lx->buf + lx->end, lx->cap - lx->end,
                          &got, lx->err) != TLM_OK)
        return -1;
    if (got == 0) {
        lx->eof = 1;
        return 0;
    }
    lx->end += got;
    return 1;
}

/* Validates one UTF-8 sequence at p (first byte >= 0x80) of at most
 * n bytes; its length, or 0 when invalid, -1 when cut by n. */
static int utf8_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xbf;
    int need;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    for (int i = 1; i <= need; i++) {
        if ((size_t)i >= n)
            return -1;
        if (p[i] < lo || p[i] > hi)
            return 0;
        lo = 0x80;
        hi = 0xbf;
    }
    return need + 1;
}

static int hex4(const unsigned char *p, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int h = tlm_hexval(p[i]);
        if (h < 0)
            return -1;
        *v = *v * 16 + (uint32_t)h;
    }
    return 0;
}

/* Decodes the escaped string body [p, e) (validated already) into the
 * scratch buffer.  Lone surrogates become U+FFFD. */
static tlm_status unescape(rp_lex *lx, const unsigned char *p,
                           const unsigned char *e)
{
    size_t need = (size_t)(e - p) + 4;
    if (need > lx->scr_cap) {
        char *ns = lx->a->realloc_fn(lx->a->ctx, lx->scr, need);
        if (!ns)
            return fail(lx, lx->off, TLM_ENOMEM, "out of memory");
        lx->scr = ns;
        lx->scr_cap = need;
    }
    char *d = lx->scr;
    while (p < e) {
        if (*p != '\\') {
            *d++ = (char)*p++;
            continue;
        }
        unsigned char c = p[1];
        p += 2;
        if (c != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            *d++ = to[strchr(from, c) - from];
            continue;
        }
        uint32_t cp, lo;
        hex4(p, &cp);
        p += 4;
        if (cp >= 0xd800 && cp <= 0xdbff && e - p >= 6 && p[0] == '\\' &&
            p[1] == 'u' && hex4(p + 2, &lo) == 0 && lo >= 0xdc00 &&
            lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            p += 6;
        } else if (cp >= 0xd800 && cp <= 0xdfff) {
            cp = 0xfffd;
        }
        if (cp == 0) { /* U+0000 kept as its escape, never a cut name */
            memcpy(d, "\\u0000", 6);
            d += 6;
            continue;
        }
        d += tlm_put_utf8(d, cp);
    }
    lx->s = lx->scr;
    lx->slen = (size_t)(d - lx->scr);
    return TLM_OK;
}

/* Scans a string from buf[pos] ('"').  0 done, 1 ran off the window,
 * -1 error. */
static int scan_str(rp_lex *lx)
{
    const unsigned char *b = lx->buf, *p = b + lx->pos + 1,
                        *e = b + lx->end;
    const unsigned char *s0 = p;
    int esc = 0;
    for (;;) {
        p = rp_str_stop(p, e, lx->attn);
        /* the bound on the position, so that any window finds it first */
        if ((size_t)(p - s0) > lx->max_str) {
            fail(lx, lx->off, TLM_ELIMIT, "a string longer than max_string");
            return -1;
        }
        if (p >= e)
            return 1;
        unsigned char c = *p;
        if (c == '"')
            break;
        if (c == '\\') {
            if (e - p < 2)
                return 1;
            unsigned char k = p[1];
            if (k == 'u') {
                uint32_t v;
                if (e - p < 6)
                    return 1;
                if (hex4(p + 2, &v) != 0) {
                    fail(lx, lx->base + (size_t)(p - b), TLM_EFORMAT,
                         "bad \\u escape in a string");
                    return -1;
                }
                p += 6;
            } else if (k && strchr("\"\\/bfnrt", k)) {
                p += 2;
            } else {
                fail(lx, lx->base + (size_t)(p - b), TLM_EFORMAT,
                     "bad escape in a string");
                return -1;
            }
            esc = 1;
            continue;
        }
        if (c < 0x20) {
            fail(lx, lx->base + (size_t)(p - b), TLM_EFORMAT,
                 "control character in a string");
            return -1;
        }
        int n = utf8_len(p, (size_t)(e - p));
        if (n < 0)
            return 1;
        if (n == 0) {
            fail(lx, lx->base + (size_t)(p - b), TLM_EFORMAT,
                 "invalid UTF-8 in a string");
            return -1;
        }
        p += n;
    }
    const unsigned char *s = b + lx->pos + 1;
    if ((size_t)(p - s) > lx->max_str) {
        fail(lx, lx->off, TLM_ELIMIT, "a string longer than max_string");
        return -1;
    }
    lx->pos = (size_t)(p - b) + 1;
    lx->tok = RP_STR;
    if (esc)
        return unescape(lx, s, p) == TLM_OK ? 0 : -1;
    lx->s = (const char *)s;
    lx->slen = (size_t)(p - s);
    return 0;
}

static int is_num_byte(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
           c == 'e' || c == 'E';
}

/* Validates JSON number syntax of [p, e); 1 when an integer. */
static int num_syntax(const unsigned char *p, const unsigned char *e,
                      int *is_int)
{
    *is_int = 1;
    if (p < e && *p == '-')
        p++;
    if (p == e || *p < '0' || *p > '9')
        return 0;
    if (*p == '0' && p + 1 < e && p[1] >= '0' && p[1] <= '9')
        return 0; /* leading zero */
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    if (p < e && *p == '.') {
        *is_int = 0;
        p++;
        if (p == e || *p < '0' || *p > '9')
            return 0;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        *is_int = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p == e || *p < '0' || *p > '9')
            return 0;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    return p == e;
}

/* Scans a number from buf[pos].  0 done, 1 ran off the window, -1
 * error. */
static int scan_num(rp_lex *lx)
{
    const unsigned char *b = lx->buf, *s = b + lx->pos, *p = s,
                        *e = b + lx->end;
    /* fast path: a non-negative integer of at most 18 digits followed by
     * a delimiter inside the window */
    if (*s >= '1' && *s <= '9') {
        uint64_t v = 0;
        const unsigned char *q = s;
        while (q < e && *q >= '0' && *q <= '9' && q - s < 18)
            v = v * 10 + (unsigned)(*q++ - '0');
        if (q < e && !is_num_byte(*q)) {
            lx->tok = RP_INT;
            lx->ival = (int64_t)v;
            lx->s = (const char *)s;
            lx->slen = (size_t)(q - s);
            lx->pos = (size_t)(q - b);
            return 0;
        }
    }
    while (p < e && is_num_byte(*p))
        p++;
    if (p == e && !lx->eof)
        return 1;
    int is_int;
    if ((size_t)(p - s) > lx->max_str) {
        fail(lx, lx->off, TLM_ELIMIT, "a number longer than max_string");
        return -1;
    }
    if (!num_syntax(s, p, &is_int)) {
        fail(lx, lx->off, TLM_EFORMAT, "malformed number");
        return -1;
    }
    lx->tok = RP_NUM;
    lx->s = (const char *)s;
    lx->slen = (size_t)(p - s);
    lx->pos = (size_t)(p - b);
    if (!is_int)
        return 0;
    const unsigned char *q = s + (*s == '-');
    uint64_t v = 0, lim = *s == '-' ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
    for (; q < p; q++) {
        unsigned d = (unsigned)(*q - '0');
        if (v > (lim - d) / 10)
            return 0; /* too large: a plain number */
        v = v * 10 + d;
    }
    lx->ival = *s == '-' ? (int64_t)(0 - v) : (int64_t)v;
    lx->tok = RP_INT;
    return 0;
}

static int scan_lit(rp_lex *lx, const char *word, int tok)
{
    size_t n = strlen(word);
    if (lx->end - lx->pos < n)
        return lx->eof ? (fail(lx, lx->off, TLM_EFORMAT,
                               "unexpected end of the input"), -1)
                       : 1;
    if (memcmp(lx->buf + lx->pos, word, n) != 0) {
        fail(lx, lx->off, TLM_EFORMAT, "unexpected character");
        return -1;
    }
    lx->pos += n;
    lx->tok = tok;
    return 0;
}

/* One token from buf[pos] (not whitespace).  0, 1 (need more), -1. */
static int scan_tok(rp_lex *lx)
{
    unsigned char c = lx->buf[lx->pos];
    switch (c) {
    case '{': lx->tok = RP_LBRACE; lx->pos++; return 0;
    case '}': lx->tok = RP_RBRACE; lx->pos++; return 0;
    case '[': lx->tok = RP_LBRACK; lx->pos++; return 0;
    case ']': lx->tok = RP_RBRACK; lx->pos++; return 0;
    case ',': lx->tok = RP_COMMA; lx->pos++; return 0;
    case ':': lx->tok = RP_COLON; lx->pos++; return 0;
    case '"': return scan_str(lx);
    case 't': return scan_lit(lx, "true", RP_TRUE);
    case 'f': return scan_lit(lx, "false", RP_FALSE);
    case 'n': return scan_lit(lx, "null", RP_NULL);
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return scan_num(lx);
        fail(lx, lx->off, TLM_EFORMAT, "unexpected character");
        return -1;
    }
}

tlm_status rp_next_slow(rp_lex *lx)
{
    for (;;) {
        while (lx->pos < lx->end) {
            unsigned char c = lx->buf[lx->pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
                break;
            lx->pos++;
        }
        if (lx->pos == lx->end) {
            int r = refill(lx, lx->pos);
            if (r < 0)
                return lx->err ? lx->err->code : TLM_EIO;
            if (r == 0) {
                lx->tok = RP_EOF;
                lx->off = lx->base + lx->pos;
                return TLM_OK;
            }
            continue;
        }
        lx->off = lx->base + lx->pos;
        size_t start = lx->pos;
        int r = scan_tok(lx);
        while (r == 1) { /* the token runs off the window */
            lx->pos = start;
            int f = refill(lx, start);
            if (f < 0)
                return lx->err ? lx->err->code : TLM_EIO;
            start = lx->pos;
            if (f == 0 && lx->buf[start] == '"')
                return fail(lx, lx->off, TLM_EFORMAT,
                            "unexpected end of the input inside a string");
            r = scan_tok(lx);
        }
        if (r < 0)
            return lx->err ? lx->err->code : TLM_EFORMAT;
        return TLM_OK;
    }
}

/* What rp_skip expects next. */
enum { SK_VALUE, SK_VALUE_OR_CLOSE, SK_KEY, SK_KEY_OR_CLOSE, SK_COLON,
       SK_AFTER };

static int is_scalar(int t)
{
    return t == RP_STR || t == RP_INT || t == RP_NUM || t == RP_TRUE ||
           t == RP_FALSE || t == RP_NULL;
}

/* The JSON grammar checked on the skipped value too (a bit stack of
 * object / array, RP_SKIP_MAX_DEPTH deep at most). */
#define RP_SKIP_MAX_DEPTH 256

tlm_status rp_skip(rp_lex *lx, unsigned max_depth)
{
    unsigned char obj[RP_SKIP_MAX_DEPTH / 8];
    unsigned depth = 0;
    int state = SK_VALUE;
    if (max_depth > RP_SKIP_MAX_DEPTH)
        max_depth = RP_SKIP_MAX_DEPTH;
    for (;;) {
        int t = lx->tok;
        const char *want = NULL;
        switch (state) {
        case SK_VALUE:
        case SK_VALUE_OR_CLOSE:
            if (t == RP_LBRACE || t == RP_LBRACK) {
                if (depth >= max_depth)
                    return fail(lx, lx->off, TLM_ELIMIT,
                                "JSON nested too deeply");
                unsigned char bit = (unsigned char)(1u << (depth % 8));
                if (t == RP_LBRACE)
                    obj[depth / 8] |= bit;
                else
                    obj[depth / 8] &= (unsigned char)~bit;
                depth++;
                state = t == RP_LBRACE ? SK_KEY_OR_CLOSE : SK_VALUE_OR_CLOSE;
            } else if (is_scalar(t)) {
                state = SK_AFTER;
            } else if (t == RP_RBRACK && state == SK_VALUE_OR_CLOSE) {
                depth--;
                state = SK_AFTER;
            } else {
                want = "expected a value";
            }
            break;
        case SK_KEY:
        case SK_KEY_OR_CLOSE:
            if (t == RP_STR) {
                state = SK_COLON;
            } else if (t == RP_RBRACE && state == SK_KEY_OR_CLOSE) {
                depth--;
                state = SK_AFTER;
            } else {
                want = "expected a key";
            }
            break;
        case SK_COLON:
            if (t == RP_COLON)
                state = SK_VALUE;
            else
                want = "expected ':'";
            break;
        default: { /* SK_AFTER, inside a container */
            int in_obj = (obj[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1;
            if (t == RP_COMMA) {
                state = in_obj ? SK_KEY : SK_VALUE;
            } else if (t == (in_obj ? RP_RBRACE : RP_RBRACK)) {
                depth--;
            } else {
                want = in_obj ? "expected ',' or '}'" : "expected ',' or ']'";
            }
            break;
        }
        }
        if (want)
            return fail(lx, lx->off, TLM_EFORMAT,
                        t == RP_EOF ? "unexpected end of the input" : want);
        if (state == SK_AFTER && depth == 0)
            return TLM_OK;
        tlm_status st = rp_next(lx);
        if (st != TLM_OK)
            return st;
    }
}
