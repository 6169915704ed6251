/*
 * reader.c - the streaming Chrome-trace tokenizer.
 *
 * The input stream (instream.c) fills a window buffer.  A small state
 * machine walks the top level (object with "traceEvents" anywhere among its
 * keys, or a bare array).  Each event, and each kept metadata value, is
 * parsed by a recursive-descent parser over the window; if it runs off the
 * end of the window it reports "need more", the window is refilled (the
 * unparsed tail moved to the front, the buffer grown up to max_event_bytes)
 * and that one value is parsed again.  Parsing is free of side effects that
 * a retry would repeat, except interning, which is idempotent.  Unknown
 * top-level values are skipped by a streaming scanner that never needs more
 * than the current window, so a huge unknown key costs nothing in memory.
 *
 * Errors carry the absolute offset in the decompressed JSON and what was
 * being read ("traceEvents[51234].args").
 */
#include "bytes_eq.h"
#include "grow.h"
#include "mem_internal.h"
#include "hexnum.h"
#include "trace_internal.h"
#include "utf8_put.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ MARK:
 * Names of categories and argument keys. */

static const char *const cat_names[TLM_CAT_COUNT] = {
#define TLM_X_(e, s) s,
    TLM_CAT_LIST(TLM_X_)
#undef TLM_X_
};

const char *tlm_cat_name(tlm_cat cat)
{
    if ((unsigned)cat >= TLM_CAT_COUNT)
        return NULL;
    return cat_names[cat];
}

static const char *const arg_keys[TLM_ARG_COUNT] = {
    NULL,
#define TLM_X_(e, s) s,
    TLM_ARG_LIST(TLM_X_)
#undef TLM_X_
};

_Static_assert(TLM_ARG_COUNT <= 64, "argument tag holds the key in 6 bits");

const char *tlm_arg_key(tlm_arg key)
{
    if ((unsigned)key >= TLM_ARG_COUNT || key == TLM_ARG_END_)
        return NULL;
    return arg_keys[key];
}

/* Argument keys by (length, first byte, last byte): a 256-slot table of
 * short candidate lists, built once per read. */
typedef struct arg_table {
    unsigned char slot[256][4]; /* candidate keys, 0-terminated */
    unsigned char len[TLM_ARG_COUNT];
} arg_table;

static unsigned arg_slot(const char *s, size_t len)
{
    return ((unsigned)len * 31u + (unsigned char)s[0] * 7u +
            (unsigned char)s[len - 1]) & 255u;
}

static void arg_table_init(arg_table *t)
{
    memset(t, 0, sizeof *t);
    for (int k = 1; k < TLM_ARG_COUNT; k++) {
        size_t n = strlen(arg_keys[k]);
        t->len[k] = (unsigned char)n;
        unsigned char *c = t->slot[arg_slot(arg_keys[k], n)];
        int i = 0;
        while (c[i])
            i++;
        c[i] = (unsigned char)k; /* at most 3 per slot (checked in tests) */
    }
}

static tlm_arg arg_lookup(const arg_table *t, const char *s, size_t len)
{
    const unsigned char *c = t->slot[arg_slot(s, len)];
    for (int i = 0; i < 4 && c[i]; i++)
        if (t->len[c[i]] == len && tlm_bytes_eq(arg_keys[c[i]], s, len))
            return (tlm_arg)c[i];
    return TLM_ARG_END_;
}

/* ------------------------------------------------------------------ MARK:
 * Reader state. */

enum { P_OK = 0, P_NEED = 1, P_ERR = 2 };

enum top_state {
    S_START,
    S_OBJ_FIRST,
    S_OBJ_MEMBER,
    S_OBJ_NEXT,
    S_SKIP,
    S_ARR_FIRST,
    S_ARR_EVENT,
    S_ARR_NEXT,
    S_END,
    S_DONE
};

/* UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF): need continuation bytes are still expected, the next one
 * in [lo, hi]. */
typedef struct utf8_state {
    unsigned char need, lo, hi;
} utf8_state;

/* Feeds one byte; 0 when it cannot occur here. */
static inline int utf8_step(utf8_state *u, unsigned char c)
{
    if (u->need > 0) {
        if (c < u->lo || c > u->hi)
            return 0;
        u->need--;
        u->lo = 0x80;
        u->hi = 0xbf;
        return 1;
    }
    u->lo = 0x80;
    u->hi = 0xbf;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        u->need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        u->need = 2;
        if (c == 0xe0)
            u->lo = 0xa0; /* overlong */
        else if (c == 0xed)
            u->hi = 0x9f; /* UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        u->need = 3;
        if (c == 0xf0)
            u->lo = 0x90; /* overlong */
        else if (c == 0xf4)
            u->hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0;
    }
    return 1;
}

enum { KM_SLOTS = 256, KM_MAX = 31 };

typedef struct rd {
    tlm_trace *t;
    tlm_read_opts o;
    tlm_instream in;
    tlm_error *err;
    const char *path;
    unsigned char *buf;
    size_t cap, beg, end;
    uint64_t base; /* absolute offset of buf[0] */
    int eof;
    char *scr; /* scratch: unescaped strings, compact text */
    size_t scr_len, scr_cap;
    /* context for messages */
    uint64_t ev_index;
    const char *field; /* current event field, or NULL */
    const char *top_key; /* current top-level key, or NULL */
    uint32_t ev_name;
    int in_events;
    /* streaming skip state */
    unsigned skip_depth;
    int skip_in_str, skip_esc, skip_scalar;
    utf8_state skip_utf8;   /* a UTF-8 sequence cut by the window */
    uint64_t surr_next;     /* lone surrogates before this stream offset
                             * are counted already (values are re-read
                             * after a window refill) */
    unsigned char *skip_stack;
    /* pre-interned category strings */
    uint32_t cat_ids[TLM_CAT_COUNT];
    size_t cat_lens[TLM_CAT_COUNT];
    unsigned char cat_memo[64]; /* category by its first 8 bytes; 0: none */
    arg_table keys;
    uint32_t smemo[4096];    /* intern_str memo: ids by a cheap key */
    struct kmemo {           /* object keys seen, by their first 8 bytes */
        unsigned char len;   /* 0: empty */
        unsigned char arg;   /* the key's tlm_arg (TLM_ARG_END_: none) */
        unsigned char s[KM_MAX];
    } kmemo[KM_SLOTS];
    int key_arg;             /* the current key's tlm_arg from the memo,
                                -1: not known (parse_object's callbacks) */
    struct cmemo_way *cmemo; /* compact_value memo (NULL: none yet) */
    unsigned cmemo_sets;     /* sets of the memo (CM_SETS_SMALL, CM_SETS) */
    uint64_t cmemo_live[8];  /* sets of the memo cleared so far (bits) */
    tlm_warm warm_ev, warm_blob; /* page tables populated ahead */
    /* With an input that lends its blocks (tlm_instream_view), buf is the
     * lent block (viewing) or, for a value that runs across blocks, own:
     * the value's start copied, then the next block's bytes up to vp;
     * [vp, vp + vn) not copied yet, the vtail bytes before vp at the end
     * of own (see back_to_view). */
    int views, viewing;
    unsigned char *own;  /* the window the reader allocated */
    unsigned char *vp;
    size_t vn, vtail;
    /* The second parser (see "A second parser" below).  On this thread:
     * par, the helper (NULL: none), and par_start, the offset of its next
     * block; err_at, when has_err_at, the offset of messages (an event
     * taken over).  On the helper's: local (pid, tid and duration kept
     * in cs, not in the process's tables). */
    struct par *par;
    uint64_t par_start;
    int has_err_at;
    uint64_t err_at;
    int local;
    struct pside {
        int64_t pid, tid, dur;
        uint64_t end;          /* offset after the event */
        uint8_t any_pt, has_dur;
    } cs;
} rd;

static const unsigned char str_special[256] = {
    /* control characters, '"' and '\\' end the fast scan */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* bytes >= 0x80 start a UTF-8 sequence to validate */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static inline int is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Describes what is being read, for messages. */
static void describe(const rd *r, char *out, size_t size)
{
    if (r->in_events) {
        char name[64] = "";
        if (r->ev_name) {
            size_t n;
            const char *s = tlm_trace_str(r->t, r->ev_name, &n);
            if (n > 40)
                snprintf(name, sizeof name, " (\"%.40s...\")", s);
            else
                snprintf(name, sizeof name, " (\"%s\")", s);
        }
        if (r->field)
            snprintf(out, size, "traceEvents[%llu].%s%s",
                     (unsigned long long)r->ev_index, r->field, name);
        else
            snprintf(out, size, "traceEvents[%llu]%s",
                     (unsigned long long)r->ev_index, name);
    } else if (r->top_key) {
        snprintf(out, size, "top-level key \"%s\"", r->top_key);
    } else {
        snprintf(out, size, "the top-level value");
    }
}

static int failv(rd *r, uint64_t off, tlm_status code, const char *fmt,
                 va_list ap)
{
    char what[256], ctx[160];
    vsnprintf(what, sizeof what, fmt, ap);
    describe(r, ctx, sizeof ctx);
    tlm_error_set(r->err, code, r->path, (int64_t)off, "%s while reading %s",
                  what, ctx);
    return P_ERR;
}

static int fail_at(rd *r, const unsigned char *at, tlm_status code,
                   const char *fmt, ...) TLM_PRINTF(4, 5);
static int fail_at(rd *r, const unsigned char *at, tlm_status code,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(r, r->has_err_at ? r->err_at : r->base + (uint64_t)(at - r->buf),
          code, fmt, ap);
    va_end(ap);
    return P_ERR;
}

static int fail_nomem(rd *r)
{
    tlm_error_set(r->err, TLM_ENOMEM, r->path, -1, "out of memory");
    return P_ERR;
}

static int scr_reserve(rd *r, size_t extra)
{
    if (r->scr_len + extra <= r->scr_cap)
        return 0;
    return tlm_grow_al(r->t->a, (void **)&r->scr, &r->scr_cap,
                       r->scr_len + extra, 1, 256) != TLM_OK ? -1 : 0;
}

/* ------------------------------------------------------------------ MARK:
 * Tokens over the window [p, e). */

static inline int skip_ws(const unsigned char **pp, const unsigned char *e)
{
    const unsigned char *p = *pp;
    if (p < e && *p > ' ')
        return P_OK; /* the common cases: nothing to skip, */
    if (e - p >= 2 && *p == ' ' && p[1] > ' ') {
        *pp = p + 1; /* or one space */
        return P_OK;
    }
    while (p < e && is_ws(*p))
        p++;
    *pp = p;
    return p < e ? P_OK : P_NEED;
}

/* Between a key and its value: white space, ':', white space. */
static inline int colon(rd *r, const unsigned char **pp,
                        const unsigned char *e)
{
    const unsigned char *p = *pp;
    int rc = skip_ws(&p, e);
    if (rc != P_OK)
        return rc;
    if (*p != ':')
        return fail_at(r, p, TLM_EFORMAT, "expected ':'");
    p++;
    if ((rc = skip_ws(&p, e)) != P_OK)
        return rc;
    *pp = p;
    return P_OK;
}

/* Steps the cursor *pp into the container opening there (its contents at
 * nesting depth depth) and over the white space inside.  When `close`
 * follows at once, *empty = 1 and *done gets the position past it (the
 * caller is done with the container).  *pp moves only on P_OK. */
static inline int open_container(rd *r, const unsigned char **pp,
                                 const unsigned char **done,
                                 const unsigned char *e, unsigned depth,
                                 unsigned char close, int *empty)
{
    const unsigned char *p = *pp;
    if (depth > r->o.max_depth)
        return fail_at(r, p, TLM_ELIMIT, "nesting deeper than %u",
                       r->o.max_depth);
    p++;
    int rc = skip_ws(&p, e);
    if (rc != P_OK)
        return rc;
    *empty = *p == close;
    if (*empty)
        *done = p + 1;
    *pp = p;
    return P_OK;
}

/* After a member or element of a container that `close` ends: skips white
 * space, then either a ',' and the white space after it (*more = 1) or
 * `close` (*more = 0).  *pp moves only on P_OK. */
static inline int next_item(rd *r, const unsigned char **pp,
                            const unsigned char *e, unsigned char close,
                            int *more)
{
    const unsigned char *p = *pp;
    int rc = skip_ws(&p, e);
    if (rc != P_OK)
        return rc;
    if (*p == ',') {
        p++;
        rc = skip_ws(&p, e);
        if (rc != P_OK)
            return rc;
        *more = 1;
    } else if (*p == close) {
        p++;
        *more = 0;
    } else {
        return fail_at(r, p, TLM_EFORMAT, "expected ',' or '%c'", close);
    }
    *pp = p;
    return P_OK;
}

/* First byte in [p, e) that is '"', '\\', a control character or a byte
 * >= 0x80 (or e): eight bytes at a time, then byte by byte. */
static inline const unsigned char *scan_plain(const unsigned char *p,
                                              const unsigned char *e)
{
    const uint64_t ones = 0x0101010101010101ull, highs = ones * 0x80;
    while (e - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) |
                       (w - ones * 0x20);
        hit = (hit & ~w & highs) | (w & highs);
        if (hit != 0) {
            /* the lowest flagged byte is exact (borrows only run upward
             * from a real match) */
#if (defined(__GNUC__) || defined(__clang__)) && \
    defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return p + (__builtin_ctzll(hit) >> 3);
#else
            break;
#endif
        }
        p += 8;
    }
    while (p < e && !str_special[*p])
        p++;
    return p;
}

/* Scans a string starting at the opening quote.  On success *s and *len give
 * the raw bytes between the quotes, *esc says if escapes occur, and *pp is
 * past the closing quote. */
static int scan_string(rd *r, const unsigned char **pp, const unsigned char *e,
                       const unsigned char **s, size_t *len, int *esc)
{
    const unsigned char *p = *pp + 1, *beg = p;
    int has_esc = 0;
    for (;;) {
        p = scan_plain(p, e);
        if (p >= e)
            break;
        /* past the bound, the string is too long whatever follows (the
         * same error wherever the window ends) */
        if ((size_t)(p - beg) > r->o.max_string)
            break;
        if (*p == '"') {
            *s = beg;
            *len = (size_t)(p - beg);
            *esc = has_esc;
            *pp = p + 1;
            return P_OK;
        }
        if (*p == '\\') {
            has_esc = 1;
            if (p + 1 >= e)
                break;
            unsigned char c = p[1];
            if (c == 'u') {
                if (p + 6 > e)
                    break;
                for (int k = 2; k < 6; k++)
                    if (tlm_hexval(p[k]) < 0)
                        return fail_at(r, p + k, TLM_EFORMAT,
                                       "bad \\u escape");
                p += 6;
            } else if (c == '"' || c == '\\' || c == '/' || c == 'b' ||
                       c == 'f' || c == 'n' || c == 'r' || c == 't') {
                p += 2;
            } else {
                return fail_at(r, p, TLM_EFORMAT, "bad escape '\\%c'",
                               c >= 0x20 && c < 0x7f ? c : '?');
            }
            continue;
        }
        if (*p >= 0x80) {
            utf8_state u = {0, 0, 0};
            const unsigned char *q = p;
            do {
                if (q >= e)
                    goto need; /* cut by the window: rescanned whole */
                if (!utf8_step(&u, *q))
                    return fail_at(r, q, TLM_EFORMAT,
                                   "invalid UTF-8 byte 0x%02x in string",
                                   *q);
                q++;
            } while (u.need > 0);
            p = q;
            continue;
        }
        return fail_at(r, p, TLM_EFORMAT,
                       "control character 0x%02x in string", *p);
    }
need:
    if ((size_t)(p - beg) > r->o.max_string)
        return fail_at(r, beg, TLM_ELIMIT, "string longer than %zu bytes",
                       r->o.max_string);
    return P_NEED;
}

static uint32_t hex4(const unsigned char *p)
{
    return (uint32_t)(tlm_hexval(p[0]) << 12 | tlm_hexval(p[1]) << 8 |
                      tlm_hexval(p[2]) << 4 | tlm_hexval(p[3]));
}

/* Unescapes a scanned string into the scratch buffer (appending). */
static int unescape(rd *r, const unsigned char *s, size_t len)
{
    if (scr_reserve(r, len + 1) != 0)
        return fail_nomem(r);
    char *d = r->scr + r->scr_len;
    const unsigned char *p = s, *e = s + len;
    while (p < e) {
        if (*p != '\\') {
            *d++ = (char)*p++;
            continue;
        }
        unsigned char c = p[1];
        p += 2;
        switch (c) {
        case 'b': *d++ = '\b'; break;
        case 'f': *d++ = '\f'; break;
        case 'n': *d++ = '\n'; break;
        case 'r': *d++ = '\r'; break;
        case 't': *d++ = '\t'; break;
        case 'u': {
            uint32_t cp = hex4(p);
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p + 6 <= e && p[0] == '\\' &&
                p[1] == 'u') {
                uint32_t lo = hex4(p + 2);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p += 6;
                }
            }
            if (cp >= 0xd800 && cp < 0xe000) {
                cp = 0xfffd; /* lone surrogate */
                uint64_t off = r->base + (uint64_t)(p - 6 - r->buf);
                if (off >= r->surr_next) {
                    r->t->stats.n_lone_surrogates++;
                    r->surr_next = off + 1;
                }
            }
            if (cp == 0) { /* U+0000: kept as its 6-byte escape (the
                              names are C strings: never a silent cut) */
                memcpy(d, "\\u0000", 6);
                d += 6;
                break;
            }
            d += tlm_put_utf8(d, cp);
            break;
        }
        default: *d++ = (char)c; break; /* " \ / */
        }
    }
    /* a \u escape (6 bytes) yields at most 6 bytes (U+0000), a pair (12)
     * 4: fits */
    r->scr_len = (size_t)(d - r->scr);
    return P_OK;
}

/* Steps over the digits at *pp; 0 when there is none before another
 * character (a fraction or exponent needs one; the window's end may
 * still bring one). */
static inline int digits_after(const unsigned char **pp,
                               const unsigned char *e)
{
    const unsigned char *p = *pp, *d = p;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    *pp = p;
    return !(p < e && p == d);
}

/* Scans a JSON number; *is_int when it has no fraction or exponent. */
static int scan_number(rd *r, const unsigned char **pp, const unsigned char *e,
                       int *is_int)
{
    const unsigned char *p = *pp;
    int integer = 1;
    if (p < e && *p == '-')
        p++;
    if (p >= e)
        return P_NEED;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    } else {
        return fail_at(r, p, TLM_EFORMAT, "bad number");
    }
    if (p < e && *p == '.') {
        integer = 0;
        p++;
        if (!digits_after(&p, e))
            return fail_at(r, p, TLM_EFORMAT, "bad number: digit expected");
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        integer = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (!digits_after(&p, e))
            return fail_at(r, p, TLM_EFORMAT, "bad number: digit expected");
    }
    if (p >= e)
        return P_NEED; /* the number may go on in the next window */
    *is_int = integer;
    *pp = p;
    return P_OK;
}

/* int64 from an integer token; 0 on overflow. */
static int parse_i64(const unsigned char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (s[0] == '-') {
        neg = 1;
        i = 1;
    }
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; i < len; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 1;
}

/* Steps over a leading '-'; 1 when there was one. */
static inline int skip_minus(const unsigned char **pp, const unsigned char *e)
{
    if (*pp < e && **pp == '-') {
        (*pp)++;
        return 1;
    }
    return 0;
}

/* Fast path for the common number shapes.  A plain integer of at most 18
 * digits ending inside the window: 1, *out and *endp set.  Else 0 (the
 * caller takes the general path). */
static inline int fast_int(const unsigned char *p, const unsigned char *e,
                           int64_t *out, const unsigned char **endp)
{
    int neg = skip_minus(&p, e);
    const unsigned char *d = p;
    uint64_t v = 0;
    while (p < e && (unsigned)(*p - '0') < 10 && p - d < 19) {
        v = v * 10 + (unsigned)(*p - '0');
        p++;
    }
    size_t n = (size_t)(p - d);
    if (n == 0 || n > 18 || p >= e || (n > 1 && *d == '0'))
        return 0;
    if (*p == '.' || *p == 'e' || *p == 'E' || (unsigned)(*p - '0') < 10)
        return 0;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *endp = p;
    return 1;
}

/* Eight ASCII digits at p (little-endian word tricks): 1 and their value,
 * or 0 when one of them is not a digit. */
static inline int digits8(const unsigned char *p, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    if (((v & 0xf0f0f0f0f0f0f0f0ull) |
         (((v + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) !=
        0x3333333333333333ull)
        return 0;
    v = (v & 0x0f0f0f0f0f0f0f0full) * 2561 >> 8;
    v = (v & 0x00ff00ff00ff00ffull) * 6553601 >> 16;
    *out = (v & 0x0000ffff0000ffffull) * 42949672960001ull >> 32;
    return 1;
#else
    (void)p;
    (void)out;
    return 0;
#endif
}

/* Decimal microseconds with at most 3 fractional digits and no exponent
 * (what Kineto writes), to ns.  1 on success, else 0. */
static inline int fast_us(const unsigned char *p, const unsigned char *e,
                          int64_t *out, const unsigned char **endp,
                          int *is_int)
{
    int neg = skip_minus(&p, e);
    const unsigned char *d = p;
    uint64_t v = 0;
    if (e - p > 8 && digits8(p, &v))
        p += 8; /* the head of a timestamp at once */
    while (p < e && (unsigned)(*p - '0') < 10 && p - d < 16) {
        v = v * 10 + (unsigned)(*p - '0');
        p++;
    }
    size_t n = (size_t)(p - d);
    if (n == 0 || n > 15 || p >= e || (n > 1 && *d == '0'))
        return 0;
    unsigned frac = 0, nf = 0;
    if (*p == '.') {
        p++;
        while (p < e && (unsigned)(*p - '0') < 10 && nf < 4) {
            frac = frac * 10 + (unsigned)(*p - '0');
            nf++;
            p++;
        }
        if (nf == 0 || nf > 3 || p >= e)
            return 0;
    }
    if (*p == 'e' || *p == 'E' || (unsigned)(*p - '0') < 10 || *p == '.')
        return 0;
    static const unsigned scale[4] = {1000, 100, 10, 1};
    uint64_t ns = v * 1000 + (uint64_t)frac * scale[nf];
    *out = neg ? -(int64_t)ns : (int64_t)ns;
    *endp = p;
    *is_int = nf == 0;
    return 1;
}

static int scan_literal(rd *r, const unsigned char **pp, const unsigned char *e)
{
    const unsigned char *p = *pp;
    const char *lit = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
    size_t n = strlen(lit);
    for (size_t k = 0; k < n; k++) {
        if (p + k >= e)
            return P_NEED;
        if (p[k] != (unsigned char)lit[k])
            return fail_at(r, p, TLM_EFORMAT, "invalid literal");
    }
    *pp = p + n;
    return P_OK;
}

/* Validates one value (depth = nesting of its container) and moves *pp
 * past it. */
static int value(rd *r, const unsigned char **pp, const unsigned char *e,
                 unsigned depth)
{
    const unsigned char *p = *pp;
    int rc;
    if (p >= e)
        return P_NEED;
    unsigned char c = *p;
    if (c == '{' || c == '[') {
        unsigned char close = c == '{' ? '}' : ']';
        int empty = 0;
        if ((rc = open_container(r, &p, pp, e, depth + 1, close, &empty)) !=
                P_OK ||
            empty)
            return rc;
        for (;;) {
            if (c == '{') {
                const unsigned char *ks;
                size_t kl;
                int esc;
                if (*p != '"')
                    return fail_at(r, p, TLM_EFORMAT,
                                   "expected '\"' (object key)");
                if ((rc = scan_string(r, &p, e, &ks, &kl, &esc)) != P_OK)
                    return rc;
                if ((rc = colon(r, &p, e)) != P_OK)
                    return rc;
            }
            int more = 0;
            if ((rc = value(r, &p, e, depth + 1)) != P_OK ||
                (rc = next_item(r, &p, e, close, &more)) != P_OK)
                return rc;
            if (!more) {
                *pp = p;
                return P_OK;
            }
        }
    }
    if (c == '"') {
        const unsigned char *s;
        size_t len;
        int esc;
        rc = scan_string(r, &p, e, &s, &len, &esc);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        int is_int;
        rc = scan_number(r, &p, e, &is_int);
    } else if (c == 't' || c == 'f' || c == 'n') {
        rc = scan_literal(r, &p, e);
    } else {
        return fail_at(r, p, TLM_EFORMAT, "unexpected character '%c'",
                       c >= 0x20 && c < 0x7f ? c : '?');
    }
    if (rc != P_OK)
        return rc;
    *pp = p;
    return P_OK;
}

/* ------------------------------------------------------------------ MARK:
 * Interning helpers. */

static int intern_scr(rd *r, size_t from, uint32_t *id)
{
    uint32_t v = tlm_intern_add(&r->t->strs, r->scr + from, r->scr_len - from);
    r->scr_len = from;
    if (v == UINT32_MAX)
        return fail_nomem(r);
    *id = v;
    return P_OK;
}

/* The compact-value memo.  Argument values such as "Input Dims" repeat
 * across millions of events, and validating, compacting, hashing and
 * interning each one again is the reader's largest single cost.  The memo
 * remembers the raw text of recent array and object values with their
 * interned id, in sets chosen by a hash of the argument key and the first
 * CM_KEY bytes at the value.  A hit needs the raw text again byte for byte:
 * an array or object is self-delimiting, so the same bytes are the same
 * value, already validated at the same depth; the id is the one the slow
 * path would give.  A miss costs one hash and up to CM_WAYS short
 * compares. */
enum { CM_SETS = 512, CM_WAYS = 4, CM_KEY = 32, CM_RAW = 244 };

/* The memo starts with CM_SETS_SMALL sets and gets all CM_SETS (a new,
 * empty memo) once CM_GROW_AT bytes of the input have gone by: a trace of
 * a few hundred KB (a large job has thousands) then touches a few pages
 * of memo, not 512 KB of them, in page faults that cost more than reading
 * it.  The memo is a cache: its size changes no result. */
#define CM_SETS_SMALL 32u
#define CM_GROW_AT ((uint64_t)4 << 20)

typedef struct cmemo_way {
    uint32_t id;
    uint32_t len; /* 0: empty */
    uint32_t tag; /* the argument key and depth */
    unsigned char raw[CM_RAW];
} cmemo_way;

static inline unsigned cmemo_set(const unsigned char *p, uint32_t tag)
{
    uint64_t w[4];
    memcpy(w, p, sizeof w);
    uint64_t h = (w[0] * 0x9e3779b185ebca87ull) ^
                 (w[1] * 0xc2b2ae3d27d4eb4full) ^
                 (w[2] * 0x165667b19e3779f9ull) ^
                 (w[3] * 0x27d4eb2f165667c5ull) ^ tag;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return (unsigned)(h >> 40);
}

/* A new, empty memo of the size for the input read so far (no set
 * cleared yet).  Returns 0, or -1 out of memory. */
static int cmemo_alloc(rd *r)
{
    unsigned n = r->base >= CM_GROW_AT ? CM_SETS : CM_SETS_SMALL;
    if (r->cmemo)
        r->t->a->free_fn(r->t->a->ctx, r->cmemo);
    r->cmemo = r->t->a->malloc_fn(r->t->a->ctx,
                                  sizeof(cmemo_way) * CM_WAYS * n);
    r->cmemo_sets = n;
    memset(r->cmemo_live, 0, sizeof r->cmemo_live);
    return r->cmemo ? 0 : -1;
}

/* The set of hash h in the memo, cleared on its first use. */
static cmemo_way *cmemo_get(rd *r, unsigned h)
{
    _Static_assert(CM_SETS <= 64 * sizeof r->cmemo_live / sizeof(uint64_t),
                   "cmemo_live covers every set");
    unsigned s = h & (r->cmemo_sets - 1);
    cmemo_way *set = r->cmemo + (size_t)s * CM_WAYS;
    uint64_t bit = 1ull << (s % 64);
    if (!(r->cmemo_live[s / 64] & bit)) {
        memset(set, 0, CM_WAYS * sizeof *set);
        r->cmemo_live[s / 64] |= bit;
    }
    return set;
}

/* Validates one value, then interns its compact text: the JSON text with
 * the whitespace outside strings removed.  tag != 0 names the argument for
 * the memo. */
static int compact_value(rd *r, const unsigned char **pp,
                         const unsigned char *e, unsigned depth,
                         uint32_t *id, uint32_t tag)
{
    const unsigned char *p = *pp, *v0 = p;
    cmemo_way *set = NULL;
    if (tag && (*p == '[' || *p == '{') && e - p >= CM_KEY) {
        if ((!r->cmemo ||
             (r->cmemo_sets < CM_SETS && r->base >= CM_GROW_AT)) &&
            cmemo_alloc(r) != 0)
            return fail_nomem(r);
        {
            tag = tag << 8 | depth;
            set = cmemo_get(r, cmemo_set(p, tag));
            for (int w = 0; w < CM_WAYS; w++) {
                cmemo_way *c = &set[w];
                if (c->tag == tag && c->len != 0 &&
                    (size_t)(e - p) >= c->len &&
                    memcmp(c->raw, p, c->len) == 0) {
                    *id = c->id;
                    *pp = p + c->len;
                    if (w > 0) { /* most recent first */
                        cmemo_way t = *c;
                        memmove(set + 1, set, sizeof *set * (size_t)w);
                        set[0] = t;
                    }
                    return P_OK;
                }
            }
        }
    }
    int rc = value(r, &p, e, depth);
    if (rc != P_OK)
        return rc;
    size_t n = (size_t)(p - v0), from = r->scr_len;
    if (scr_reserve(r, n + 1) != 0)
        return fail_nomem(r);
    char *d = r->scr + from;
    int in_str = 0;
    for (const unsigned char *q = v0; q < p; q++) {
        unsigned char c = *q;
        if (in_str) {
            if (c == '\\') {
                *d++ = (char)c;
                c = *++q; /* the escaped byte is copied as is */
            } else if (c == '"') {
                in_str = 0;
            }
        } else if (is_ws(c)) {
            continue;
        } else if (c == '"') {
            in_str = 1;
        }
        *d++ = (char)c;
    }
    r->scr_len = (size_t)(d - r->scr);
    if ((rc = intern_scr(r, from, id)) != P_OK)
        return rc;
    if (set && n <= CM_RAW) {
        memmove(set + 1, set, sizeof *set * (CM_WAYS - 1));
        set[0].id = *id;
        set[0].len = (uint32_t)n;
        set[0].tag = tag;
        memcpy(set[0].raw, v0, n);
    }
    *pp = p;
    return P_OK;
}

/* Interns the content of a scanned string (unescaped when needed). */
static int intern_str(rd *r, const unsigned char *s, size_t len, int esc,
                      uint32_t *id)
{
    if (!esc) {
        /* Names repeat: a direct-mapped memo keyed by the length and a few
         * words of the string saves hashing all of it (kernel names run to
         * hundreds of bytes); the id is checked against the bytes. */
        uint64_t a = 0, b = 0, m = 0;
        if (len >= 8) {
            memcpy(&a, s, 8);
            memcpy(&b, s + len - 8, 8);
            memcpy(&m, s + (len - 8) / 2, 8);
        } else {
            for (size_t i = 0; i < len; i++)
                a |= (uint64_t)s[i] << (8 * i);
        }
        uint64_t h = (a * 0x9e3779b185ebca87ull) ^
                     (b * 0xc2b2ae3d27d4eb4full) ^
                     (m * 0x165667b19e3779f9ull) ^ len;
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ull;
        uint32_t *slot = &r->smemo[h >> 52];
        const tlm_strent *c = &r->t->strs.ents[*slot];
        if (*slot != 0 && c->len == len && memcmp(c->s, s, len) == 0) {
            *id = *slot;
            return P_OK;
        }
        uint32_t v = tlm_intern_add(&r->t->strs, (const char *)s, len);
        if (v == UINT32_MAX)
            return fail_nomem(r);
        *id = v;
        *slot = v;
        return P_OK;
    }
    size_t from = r->scr_len;
    int rc = unescape(r, s, len);
    if (rc != P_OK)
        return rc;
    return intern_scr(r, from, id);
}

/* ------------------------------------------------------------------ MARK:
 * The argument blob: per event, entries [tag][varint...] ended by 0.  The
 * tag holds the key (low 6 bits) and the type (high 2 bits). */

static int blob_grow(rd *r, size_t extra)
{
    tlm_trace *t = r->t;
    if (t->blob_len + extra > TLM_BLOB_MAX)
        return -1; /* tlm_event.args is a 32-bit offset */
    if (r->o.on_move)
        r->o.on_move(r->o.on_event_ud, TLM_MOVE_BEGIN);
    tlm_status st = tlm_grow_al(t->a, (void **)&t->blob, &t->blob_cap,
                                t->blob_len + extra, 1, 4096);
    if (r->o.on_move)
        r->o.on_move(r->o.on_event_ud, TLM_MOVE_END);
    return st == TLM_OK ? 0 : -1;
}

static inline int blob_reserve(rd *r, size_t extra)
{
    tlm_trace *t = r->t;
    if (t->blob_len + extra > t->blob_cap && blob_grow(r, extra) != 0)
        return -1;
    tlm_warm_ahead(&r->warm_blob, t->blob, t->blob_len + extra, t->blob_cap);
    return 0;
}

static void put_varint(unsigned char **dp, uint64_t v)
{
    unsigned char *d = *dp;
    while (v >= 0x80) {
        *d++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *d++ = (unsigned char)v;
    *dp = d;
}

static uint64_t get_varint(const unsigned char **pp)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
        unsigned char b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    *pp = p;
    return v;
}

static int blob_put(rd *r, tlm_arg key, tlm_argv_type type, uint64_t v)
{
    if (blob_reserve(r, 12) != 0)
        return fail_nomem(r);
    unsigned char *d = r->t->blob + r->t->blob_len;
    *d++ = (unsigned char)((unsigned)key | ((unsigned)type << 6));
    put_varint(&d, v);
    r->t->blob_len = (size_t)(d - r->t->blob);
    return P_OK;
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ------------------------------------------------------------------ MARK:
 * Events. */

/* A member "key": value of an object we read field by field.  Calls back
 * for each key with the cursor at the value; the callback consumes it. */
typedef int (*member_fn)(rd *r, const unsigned char *ks, size_t kl,
                         const unsigned char **pp, const unsigned char *e,
                         void *ud);

static int parse_object(rd *r, const unsigned char **pp,
                        const unsigned char *e, unsigned depth, member_fn fn,
                        void *ud)
{
    const unsigned char *p = *pp;
    int rc;
    if (*p != '{')
        return fail_at(r, p, TLM_ESCHEMA, "expected an object");
    int empty = 0;
    if ((rc = open_container(r, &p, pp, e, depth, '}', &empty)) != P_OK ||
        empty)
        return rc;
    for (;;) {
        const unsigned char *ks;
        size_t kl;
        int esc;
        if (*p != '"')
            return fail_at(r, p, TLM_EFORMAT, "expected '\"' (object key)");
        /* Keys repeat from object to object: a key seen before (no escapes,
         * nothing special in it) is recognised by comparing its bytes and
         * the closing quote, without the scan. */
        struct kmemo *km = NULL;
        if (e - p >= KM_MAX + 2) {
            uint64_t w;
            memcpy(&w, p + 1, 8);
            km = &r->kmemo[(w * 0x9e3779b185ebca87ull) >> 56];
            if (km->len != 0 && p[1 + km->len] == '"' &&
                tlm_bytes_eq((const char *)km->s, (const char *)p + 1,
                             km->len)) {
                ks = p + 1;
                kl = km->len;
                esc = 0;
                p += kl + 2;
                r->key_arg = km->arg;
                km = NULL;
                goto key_done;
            }
        }
        if ((rc = scan_string(r, &p, e, &ks, &kl, &esc)) != P_OK)
            return rc;
        r->key_arg = -1;
        if (km && !esc && kl >= 1 && kl <= KM_MAX) {
            km->len = (unsigned char)kl;
            memcpy(km->s, ks, kl);
            km->arg = (unsigned char)arg_lookup(&r->keys, (const char *)ks,
                                                kl);
        }
    key_done:
        if ((rc = colon(r, &p, e)) != P_OK)
            return rc;
        int more = 0;
        if ((rc = fn(r, esc ? (const unsigned char *)"" : ks, esc ? 0 : kl,
                     &p, e, ud)) != P_OK ||
            (rc = next_item(r, &p, e, '}', &more)) != P_OK)
            return rc;
        if (!more) {
            *pp = p;
            return P_OK;
        }
    }
}

/* One member of "args": kept keys are stored in the blob, others skipped. */
static int args_member(rd *r, const unsigned char *ks, size_t kl,
                       const unsigned char **pp, const unsigned char *e,
                       void *ud)
{
    int *any = ud;
    const unsigned char *p = *pp;
    int rc, esc;
    tlm_arg key = r->key_arg >= 0 ? (tlm_arg)r->key_arg
                  : kl > 0        ? arg_lookup(&r->keys, (const char *)ks, kl)
                                  : TLM_ARG_END_;
    if ((r->o.drop_args >> ((unsigned)key & 63)) & 1)
        key = TLM_ARG_END_; /* not asked for: skipped as unknown */
    const unsigned char *v0 = p;
    if (key == TLM_ARG_END_) {
        if ((rc = value(r, &p, e, 4)) != P_OK)
            return rc;
    } else if (*p == '"') {
        const unsigned char *s;
        size_t len;
        uint32_t id;
        if ((rc = scan_string(r, &p, e, &s, &len, &esc)) != P_OK)
            return rc;
        if ((rc = intern_str(r, s, len, esc, &id)) != P_OK)
            return rc;
        if ((rc = blob_put(r, key, TLM_ARGV_STR, id)) != P_OK)
            return rc;
        *any = 1;
    } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
        int is_int = 1;
        int64_t iv;
        if (!fast_int(p, e, &iv, &p)) {
            if ((rc = scan_number(r, &p, e, &is_int)) != P_OK)
                return rc;
            if (is_int && !parse_i64(v0, (size_t)(p - v0), &iv))
                is_int = 0; /* beyond int64: kept as text */
        }
        if (is_int) {
            rc = blob_put(r, key, TLM_ARGV_INT, zigzag(iv));
        } else {
            uint32_t id = tlm_intern_add(&r->t->strs, (const char *)v0,
                                         (size_t)(p - v0));
            if (id == UINT32_MAX)
                return fail_nomem(r);
            rc = blob_put(r, key, TLM_ARGV_STR, id);
        }
        if (rc != P_OK)
            return rc;
        *any = 1;
    } else {
        uint32_t id;
        if ((rc = compact_value(r, &p, e, 4, &id, (uint32_t)key)) != P_OK)
            return rc;
        if ((rc = blob_put(r, key, TLM_ARGV_STR, id)) != P_OK)
            return rc;
        *any = 1;
    }
    *pp = p;
    return P_OK;
}

static int parse_time(rd *r, const unsigned char **pp, const unsigned char *e,
                      int64_t *out, int *is_int)
{
    const unsigned char *p = *pp, *v0 = p;
    int rc;
    if (fast_us(p, e, out, pp, is_int))
        return P_OK;
    if (!(*p == '-' || (*p >= '0' && *p <= '9'))) {
        if (*p == '"' || *p == '{' || *p == '[' || *p == 't' ||
            *p == 'f' || *p == 'n')
            return fail_at(r, p, TLM_ESCHEMA, "expected a number");
        return fail_at(r, p, TLM_EFORMAT, "unexpected character");
    }
    if ((rc = scan_number(r, &p, e, is_int)) != P_OK)
        return rc;
    tlm_status st = tlm_parse_us_to_ns((const char *)v0, (size_t)(p - v0), out);
    if (st != TLM_OK)
        return fail_at(r, v0, TLM_ERANGE,
                       "time out of range for int64 nanoseconds");
    *pp = p;
    return P_OK;
}

/* pid / tid / id: integer, or string (interned); *is_str tells which. */
static int parse_id(rd *r, const unsigned char **pp, const unsigned char *e,
                    int64_t *out, int *is_str)
{
    const unsigned char *p = *pp, *v0 = p;
    int rc;
    if (*p == '"') {
        const unsigned char *s;
        size_t len;
        int esc;
        uint32_t id;
        if ((rc = scan_string(r, &p, e, &s, &len, &esc)) != P_OK)
            return rc;
        if ((rc = intern_str(r, s, len, esc, &id)) != P_OK)
            return rc;
        *out = id;
        *is_str = 1;
    } else if (fast_int(p, e, out, &p)) {
        *is_str = 0;
    } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
        int is_int;
        if ((rc = scan_number(r, &p, e, &is_int)) != P_OK)
            return rc;
        if (!is_int || !parse_i64(v0, (size_t)(p - v0), out)) {
            /* a non-integer id: keep its text */
            uint32_t v = tlm_intern_add(&r->t->strs, (const char *)v0,
                                        (size_t)(p - v0));
            if (v == UINT32_MAX)
                return fail_nomem(r);
            *out = v;
            *is_str = 1;
        } else {
            *is_str = 0;
        }
    } else {
        return fail_at(r, p, TLM_ESCHEMA, "expected a number or a string");
    }
    *pp = p;
    return P_OK;
}

static int parse_cat(rd *r, const unsigned char *s, size_t len, int esc,
                     tlm_event *ev)
{
    if (!esc) {
        for (int c = 1; c < TLM_CAT_OTHER; c++) {
            if (r->cat_lens[c] == len &&
                tlm_bytes_eq(cat_names[c], (const char *)s, len)) {
                ev->cat = (uint16_t)c;
                ev->cat_str = r->cat_ids[c];
                return P_OK;
            }
        }
    }
    uint32_t id;
    int rc = intern_str(r, s, len, esc, &id);
    if (rc != P_OK)
        return rc;
    ev->cat_str = id;
    ev->cat = TLM_CAT_OTHER;
    size_t n;
    const char *str = tlm_trace_str(r->t, id, &n);
    for (int c = 1; c < TLM_CAT_OTHER; c++)
        if (r->cat_lens[c] == n && memcmp(cat_names[c], str, n) == 0)
            ev->cat = (uint16_t)c;
    if (n == 0)
        ev->cat = TLM_CAT_OTHER;
    return P_OK;
}

#define KEYIS(lit) (kl == sizeof(lit) - 1 && memcmp(ks, lit, kl) == 0)

/* Length of the event key at p (p[0] is the opening quote) when it is one
 * of the usual short keys, else 0.  Needs 8 readable bytes. */
static inline size_t short_key(const unsigned char *p)
{
    switch (p[1]) {
    case 'p':
        if (p[2] == 'h' && p[3] == '"')
            return 2;
        if (p[2] == 'i' && p[3] == 'd' && p[4] == '"')
            return 3;
        break;
    case 't':
        if (p[2] == 's' && p[3] == '"')
            return 2;
        if (p[2] == 'i' && p[3] == 'd' && p[4] == '"')
            return 3;
        break;
    case 'c':
        if (p[2] == 'a' && p[3] == 't' && p[4] == '"')
            return 3;
        break;
    case 'd':
        if (p[2] == 'u' && p[3] == 'r' && p[4] == '"')
            return 3;
        break;
    case 'n':
        if (p[2] == 'a' && p[3] == 'm' && p[4] == 'e' && p[5] == '"')
            return 4;
        break;
    case 'a':
        if (p[2] == 'r' && p[3] == 'g' && p[4] == 's' && p[5] == '"')
            return 4;
        break;
    case 'i':
        if (p[2] == 'd' && p[3] == '"')
            return 2;
        break;
    case 'b':
        if (p[2] == 'p' && p[3] == '"')
            return 2;
        break;
    default:
        break;
    }
    return 0;
}

/* An event's "ph": its first character (0 when empty). */
static inline int field_ph(rd *r, const unsigned char **pp,
                           const unsigned char *e, tlm_event *ev)
{
    const unsigned char *p = *pp, *s;
    size_t len;
    int esc, rc;
    if (*p != '"')
        return fail_at(r, p, TLM_ESCHEMA, "expected a string");
    if (e - p >= 3 && p[2] == '"' && p[1] >= 0x20 && p[1] < 0x80 &&
        p[1] != '\\' && p[1] != '"') {
        ev->ph = (char)p[1]; /* one plain character: no scan */
        *pp = p + 3;
        return P_OK;
    }
    if ((rc = scan_string(r, pp, e, &s, &len, &esc)) != P_OK)
        return rc;
    ev->ph = len ? (char)s[0] : 0;
    return P_OK;
}

/* An event's "name": a string interned, anything else as its compact
 * text. */
static inline int field_name(rd *r, const unsigned char **pp,
                             const unsigned char *e, tlm_event *ev)
{
    const unsigned char *s;
    size_t len;
    int esc, rc;
    if (**pp == '"') {
        if ((rc = scan_string(r, pp, e, &s, &len, &esc)) != P_OK)
            return rc;
        if ((rc = intern_str(r, s, len, esc, &ev->name)) != P_OK)
            return rc;
    } else {
        /* a non-string name: keep its compact text */
        if ((rc = compact_value(r, pp, e, 3, &ev->name, 0)) != P_OK)
            return rc;
    }
    r->ev_name = ev->name;
    return P_OK;
}

/* An event's "cat": a known category found by its first 8 bytes in the
 * memo, else scanned, classified and memoized. */
static inline int field_cat(rd *r, const unsigned char **pp,
                            const unsigned char *e, tlm_event *ev)
{
    const unsigned char *p = *pp, *s;
    size_t len;
    int esc, rc;
    if (*p != '"')
        return fail_at(r, p, TLM_ESCHEMA, "expected a string");
    if (e - p >= 24) {
        /* the known categories differ in their first 8 bytes: one
         * candidate by those, checked with the closing quote */
        uint64_t w;
        memcpy(&w, p + 1, 8);
        int c = r->cat_memo[(w * 0x9e3779b185ebca87ull) >> 58];
        size_t cl = r->cat_lens[c];
        if (c != 0 && cl + 2 <= (size_t)(e - p) && p[1 + cl] == '"' &&
            tlm_bytes_eq(cat_names[c], (const char *)p + 1, cl)) {
            ev->cat = (uint16_t)c;
            ev->cat_str = r->cat_ids[c];
            *pp = p + cl + 2;
            return P_OK;
        }
    }
    if ((rc = scan_string(r, pp, e, &s, &len, &esc)) != P_OK)
        return rc;
    if ((rc = parse_cat(r, s, len, esc, ev)) != P_OK)
        return rc;
    if (ev->cat != TLM_CAT_OTHER && e - *pp >= 24) {
        uint64_t w;
        memcpy(&w, s, 8);
        r->cat_memo[(w * 0x9e3779b185ebca87ull) >> 58] =
            (unsigned char)ev->cat;
    }
    return P_OK;
}

/* An event's "bp": the flag TLM_EV_BP_E when it is the string "e". */
static inline int field_bp(rd *r, const unsigned char **pp,
                           const unsigned char *e, tlm_event *ev)
{
    const unsigned char *s;
    size_t len;
    int esc, rc;
    ev->flags &= (uint8_t)~TLM_EV_BP_E;
    if (**pp != '"')
        return value(r, pp, e, 3);
    if ((rc = scan_string(r, pp, e, &s, &len, &esc)) != P_OK)
        return rc;
    if (len == 1 && s[0] == 'e')
        ev->flags |= TLM_EV_BP_E;
    return P_OK;
}

/* The event's duration; on the helper's reader (local), kept in cs and set
 * when the event is taken over. */
static int ev_dur(rd *r, tlm_event *ev, int64_t v)
{
    if (r->local) {
        r->cs.dur = v;
        r->cs.has_dur = 1;
        return P_OK;
    }
    return tlm_ev_set_dur(ev, v) == TLM_OK ? P_OK : fail_nomem(r);
}

/* The event's pid and tid, as ev_dur. */
static int ev_track(rd *r, tlm_event *ev, int64_t pid, int64_t tid)
{
    if (r->local) {
        r->cs.pid = pid;
        r->cs.tid = tid;
        r->cs.any_pt = 1;
        return P_OK;
    }
    return tlm_ev_set_track(ev, pid, tid) == TLM_OK ? P_OK : fail_nomem(r);
}

/* One event object at *pp: the usual keys into ev, its args into the
 * blob (ev->args), other keys skipped. */
static int parse_event(rd *r, const unsigned char **pp, const unsigned char *e,
                       tlm_event *ev)
{
    const unsigned char *p = *pp;
    int rc;
    memset(ev, 0, sizeof *ev);
    if (r->local)
        memset(&r->cs, 0, sizeof r->cs);
    r->field = NULL;
    r->ev_name = 0;
    size_t blob_mark = r->t->blob_len;
    int any_args = 0;
    int64_t flow_id = 0; /* kept in the blob (tlm_event_flow_id) */
    int64_t idv;         /* a pid / tid / dur before tlm_ev_set_* */
    /* pid and tid, set at the end: one look-up of the pair */
    int64_t pidv = 0, tidv = 0;
    int any_pt = 0;
    if (*p != '{') {
        if (*p == '"' || *p == '[' || *p == '-' || (*p >= '0' && *p <= '9') ||
            *p == 't' || *p == 'f' || *p == 'n')
            return fail_at(r, p, TLM_ESCHEMA, "expected an event object");
        return fail_at(r, p, TLM_EFORMAT, "unexpected character");
    }
    int empty = 0;
    if ((rc = open_container(r, &p, pp, e, 3, '}', &empty)) != P_OK || empty)
        return rc;
    for (;;) {
        const unsigned char *ks;
        size_t kl;
        int esc, is_str;
        r->field = NULL;
        if (*p != '"')
            return fail_at(r, p, TLM_EFORMAT, "expected '\"' (object key)");
        if (e - p >= 8 && (kl = short_key(p)) != 0) {
            /* one of the usual keys, no escapes: skip the scan */
            ks = p + 1;
            esc = 0;
            p += kl + 2;
        } else if ((rc = scan_string(r, &p, e, &ks, &kl, &esc)) != P_OK) {
            return rc;
        }
        if ((rc = colon(r, &p, e)) != P_OK)
            return rc;
        if (esc) {
            r->field = "(escaped key)";
            if ((rc = value(r, &p, e, 3)) != P_OK)
                return rc;
        } else if (kl == 2 && ks[0] == 'p' && ks[1] == 'h') {
            r->field = "ph";
            if ((rc = field_ph(r, &p, e, ev)) != P_OK)
                return rc;
        } else if (kl == 2 && ks[0] == 't' && ks[1] == 's') {
            r->field = "ts";
            int isint = 0;
            if ((rc = parse_time(r, &p, e, &ev->ts, &isint)) != P_OK)
                return rc;
            ev->flags |= TLM_EV_HAS_TS;
            ev->tflags = (uint8_t)((ev->tflags & ~TLM_EVT_TS_INT) |
                                   (isint ? TLM_EVT_TS_INT : 0));
        } else if (KEYIS("dur")) {
            r->field = "dur";
            int isint = 0;
            if ((rc = parse_time(r, &p, e, &idv, &isint)) != P_OK)
                return rc;
            if (ev_dur(r, ev, idv) != P_OK)
                return P_ERR;
            ev->flags |= TLM_EV_HAS_DUR;
            ev->tflags = (uint8_t)((ev->tflags & ~TLM_EVT_DUR_INT) |
                                   (isint ? TLM_EVT_DUR_INT : 0));
        } else if (KEYIS("name")) {
            r->field = "name";
            if ((rc = field_name(r, &p, e, ev)) != P_OK)
                return rc;
        } else if (KEYIS("cat")) {
            r->field = "cat";
            if ((rc = field_cat(r, &p, e, ev)) != P_OK)
                return rc;
        } else if (KEYIS("pid")) {
            r->field = "pid";
            if ((rc = parse_id(r, &p, e, &idv, &is_str)) != P_OK)
                return rc;
            pidv = idv;
            any_pt = 1;
            /* a repeated key replaces the earlier value, type included */
            ev->flags &= (uint8_t)~TLM_EV_PID_STR;
            ev->flags |= TLM_EV_HAS_PID | (is_str ? TLM_EV_PID_STR : 0);
        } else if (KEYIS("tid")) {
            r->field = "tid";
            if ((rc = parse_id(r, &p, e, &idv, &is_str)) != P_OK)
                return rc;
            tidv = idv;
            any_pt = 1;
            ev->has_tid = 1;
            ev->flags &= (uint8_t)~TLM_EV_TID_STR;
            if (is_str)
                ev->flags |= TLM_EV_TID_STR;
        } else if (KEYIS("id")) {
            r->field = "id";
            if ((rc = parse_id(r, &p, e, &flow_id, &is_str)) != P_OK)
                return rc;
            ev->flags &= (uint8_t)~TLM_EV_ID_STR;
            ev->flags |= TLM_EV_HAS_ID | (is_str ? TLM_EV_ID_STR : 0);
        } else if (KEYIS("bp")) {
            r->field = "bp";
            if ((rc = field_bp(r, &p, e, ev)) != P_OK)
                return rc;
        } else if (KEYIS("args")) {
            r->field = "args";
            if (*p != '{')
                return fail_at(r, p, TLM_ESCHEMA,
                               "expected an object for args");
            if ((rc = parse_object(r, &p, e, 4, args_member, &any_args)) !=
                P_OK) {
                r->t->blob_len = blob_mark;
                return rc;
            }
        } else {
            r->field = NULL;
            if ((rc = value(r, &p, e, 3)) != P_OK)
                return rc;
        }
        r->field = NULL;
        int more = 0;
        if ((rc = next_item(r, &p, e, '}', &more)) != P_OK)
            return rc;
        if (!more)
            break;
    }
    if (any_pt && ev_track(r, ev, pidv, tidv) != P_OK)
        return P_ERR;
    if (ev->flags & TLM_EV_HAS_ID) {
        if ((rc = blob_put(r, (tlm_arg)TLM_ARG_FLOW_ID_, TLM_ARGV_INT,
                           zigzag(flow_id))) != P_OK)
            return rc;
        any_args = 1;
    }
    if (any_args) {
        if (blob_reserve(r, 1) != 0)
            return fail_nomem(r);
        r->t->blob[r->t->blob_len++] = 0;
        ev->args = (uint32_t)blob_mark;
    } else {
        r->t->blob_len = blob_mark;
    }
    *pp = p;
    return P_OK;
}

/* ------------------------------------------------------------------ MARK:
 * Top-level metadata. */

static void free_pgs(tlm_trace *t)
{
    tlm_trace_meta *m = &t->meta;
    for (size_t i = 0; i < m->n_pgs; i++)
        t->a->free_fn(t->a->ctx, m->pgs[i].ranks);
    t->a->free_fn(t->a->ctx, m->pgs);
    m->pgs = NULL;
    m->n_pgs = 0;
}

/* Integer member, or -1 kept when the value is not an integer. */
static int member_int(rd *r, const unsigned char **pp, const unsigned char *e,
                      int64_t *out)
{
    const unsigned char *p = *pp, *v0 = p;
    int rc, is_int;
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        if ((rc = scan_number(r, &p, e, &is_int)) != P_OK)
            return rc;
        int64_t v;
        if (is_int && parse_i64(v0, (size_t)(p - v0), &v))
            *out = v;
        *pp = p;
        return P_OK;
    }
    /* metadata of another type is treated as absent (tolerated) */
    return value(r, pp, e, 3);
}

/* String member (interned), or compact text of another value. */
static int member_text(rd *r, const unsigned char **pp,
                       const unsigned char *e, unsigned depth, uint32_t *out)
{
    const unsigned char *p = *pp;
    int rc;
    if (*p == '"') {
        const unsigned char *s;
        size_t len;
        int esc;
        if ((rc = scan_string(r, &p, e, &s, &len, &esc)) != P_OK)
            return rc;
        if ((rc = intern_str(r, s, len, esc, out)) != P_OK)
            return rc;
        *pp = p;
        return P_OK;
    }
    if ((rc = compact_value(r, &p, e, depth, out, 0)) != P_OK)
        return rc;
    *pp = p;
    return P_OK;
}

#undef KEYIS
#define KEYIS(lit) (kl == sizeof(lit) - 1 && memcmp(ks, lit, kl) == 0)

static int pg_member(rd *r, const unsigned char *ks, size_t kl,
                     const unsigned char **pp, const unsigned char *e,
                     void *ud)
{
    tlm_pg_config *pg = ud;
    if (KEYIS("pg_name"))
        return member_text(r, pp, e, 4, &pg->pg_name);
    if (KEYIS("pg_desc"))
        return member_text(r, pp, e, 4, &pg->pg_desc);
    if (KEYIS("backend_config"))
        return member_text(r, pp, e, 4, &pg->backend_config);
    if (KEYIS("pg_size"))
        return member_int(r, pp, e, &pg->pg_size);
    if (KEYIS("uid"))
        return member_int(r, pp, e, &pg->uid);
    if (KEYIS("ranks")) {
        int rc = member_text(r, pp, e, 4, &pg->ranks_text);
        if (rc != P_OK)
            return rc;
        size_t n;
        const char *s = tlm_trace_str(r->t, pg->ranks_text, &n);
        r->t->a->free_fn(r->t->a->ctx, pg->ranks);
        pg->ranks = NULL;
        pg->n_ranks = 0;
        /* parsed once per distinct list per process (pg_ranks.c) */
        if (tlm_pg_ranks_parse(s, n, r->o.share_pg_ranks, r->t->a,
                               &pg->ranks, &pg->n_ranks) != TLM_OK)
            return fail_nomem(r);
        return P_OK;
    }
    return value(r, pp, e, 4);
}

static int dist_member(rd *r, const unsigned char *ks, size_t kl,
                       const unsigned char **pp, const unsigned char *e,
                       void *ud)
{
    tlm_trace_meta *m = &r->t->meta;
    (void)ud;
    if (KEYIS("rank"))
        return member_int(r, pp, e, &m->rank);
    if (KEYIS("world_size"))
        return member_int(r, pp, e, &m->world_size);
    if (KEYIS("pg_count"))
        return member_int(r, pp, e, &m->pg_count);
    if (KEYIS("backend"))
        return member_text(r, pp, e, 3, &m->backend);
    if (KEYIS("nccl_version"))
        return member_text(r, pp, e, 3, &m->nccl_version);
    if (KEYIS("pg_config")) {
        const unsigned char *p = *pp;
        int rc;
        if (*p != '[')
            return value(r, pp, e, 3);
        free_pgs(r->t);
        p++;
        if ((rc = skip_ws(&p, e)) != P_OK)
            return rc;
        if (*p == ']') {
            *pp = p + 1;
            return P_OK;
        }
        size_t cap = 0;
        for (;;) {
            if (tlm_grow_al(r->t->a, (void **)&m->pgs, &cap, m->n_pgs + 1,
                            sizeof *m->pgs, 8))
                return fail_nomem(r);
            tlm_pg_config *pg = &m->pgs[m->n_pgs++];
            memset(pg, 0, sizeof *pg);
            pg->pg_size = -1;
            pg->uid = -1;
            if (*p == '{') {
                if ((rc = parse_object(r, &p, e, 4, pg_member, pg)) != P_OK)
                    return rc;
            } else if ((rc = value(r, &p, e, 4)) != P_OK) {
                return rc;
            }
            int more = 0;
            if ((rc = next_item(r, &p, e, ']', &more)) != P_OK)
                return rc;
            if (!more) {
                *pp = p;
                return P_OK;
            }
        }
    }
    return value(r, pp, e, 3);
}

enum meta_key { MK_NONE, MK_EVENTS, MK_DIST, MK_DEVPROPS, MK_BASE, MK_SCHEMA,
                MK_NAME };

static enum meta_key meta_lookup(const unsigned char *ks, size_t kl)
{
    if (KEYIS("traceEvents"))
        return MK_EVENTS;
    if (KEYIS("distributedInfo"))
        return MK_DIST;
    if (KEYIS("deviceProperties"))
        return MK_DEVPROPS;
    if (KEYIS("baseTimeNanoseconds"))
        return MK_BASE;
    if (KEYIS("schemaVersion"))
        return MK_SCHEMA;
    if (KEYIS("traceName"))
        return MK_NAME;
    return MK_NONE;
}
#undef KEYIS

static const char *meta_key_name(enum meta_key k)
{
    switch (k) {
    case MK_EVENTS: return "traceEvents";
    case MK_DIST: return "distributedInfo";
    case MK_DEVPROPS: return "deviceProperties";
    case MK_BASE: return "baseTimeNanoseconds";
    case MK_SCHEMA: return "schemaVersion";
    case MK_NAME: return "traceName";
    case MK_NONE: break;
    }
    return NULL;
}

/* One member of the top-level object, from its key through its value (for
 * traceEvents: through the '['; for unknown keys: through the ':'). */
static int top_member(rd *r, const unsigned char **pp, const unsigned char *e,
                      enum top_state *next)
{
    const unsigned char *p = *pp, *ks;
    size_t kl;
    int esc, rc;
    r->top_key = NULL;
    if (*p != '"')
        return fail_at(r, p, TLM_EFORMAT, "expected '\"' (object key)");
    if ((rc = scan_string(r, &p, e, &ks, &kl, &esc)) != P_OK)
        return rc;
    enum meta_key mk = esc ? MK_NONE : meta_lookup(ks, kl);
    r->top_key = meta_key_name(mk);
    if ((rc = colon(r, &p, e)) != P_OK)
        return rc;
    tlm_trace_meta *m = &r->t->meta;
    switch (mk) {
    case MK_EVENTS:
        if (*p != '[')
            return fail_at(r, p, TLM_ESCHEMA, "expected '[' for traceEvents");
        p++;
        m->has_trace_events = 1;
        *next = S_ARR_FIRST;
        break;
    case MK_DIST:
        if (*p == '{') {
            m->rank = m->world_size = m->pg_count = -1;
            if ((rc = parse_object(r, &p, e, 2, dist_member, NULL)) != P_OK)
                return rc;
            m->has_distributed = 1;
        } else if ((rc = value(r, &p, e, 1)) != P_OK) {
            return rc;
        }
        *next = S_OBJ_NEXT;
        break;
    case MK_DEVPROPS:
        if ((rc = member_text(r, &p, e, 1, &m->device_properties)) != P_OK)
            return rc;
        *next = S_OBJ_NEXT;
        break;
    case MK_BASE: {
        int64_t v = INT64_MIN;
        if ((rc = member_int(r, &p, e, &v)) != P_OK)
            return rc;
        if (v != INT64_MIN) {
            m->has_base_time = 1;
            m->base_time_ns = v;
        }
        *next = S_OBJ_NEXT;
        break;
    }
    case MK_SCHEMA:
        if ((rc = member_int(r, &p, e, &m->schema_version)) != P_OK)
            return rc;
        *next = S_OBJ_NEXT;
        break;
    case MK_NAME:
        if ((rc = member_text(r, &p, e, 1, &m->trace_name)) != P_OK)
            return rc;
        *next = S_OBJ_NEXT;
        break;
    case MK_NONE:
        r->skip_depth = 0;
        r->skip_in_str = r->skip_esc = r->skip_scalar = 0;
        r->skip_utf8.need = 0;
        *next = S_SKIP;
        break;
    }
    *pp = p;
    return P_OK;
}

/* Streaming skip of one value: consumes what it can of [p, e) and returns
 * P_OK when the value ended (the byte after it is not consumed), P_NEED
 * when the window ran out (everything consumed). */
static int skip_stream(rd *r, const unsigned char **pp, const unsigned char *e)
{
    const unsigned char *p = *pp;
    while (p < e) {
        if (r->skip_in_str) {
            if (r->skip_esc) {
                r->skip_esc = 0;
                p++;
                continue;
            }
            if (r->skip_utf8.need == 0) {
                p = scan_plain(p, e);
                if (p >= e)
                    break;
            }
            /* inside a multi-byte character, or at the start of one */
            if (r->skip_utf8.need > 0 || *p >= 0x80) {
                if (!utf8_step(&r->skip_utf8, *p)) {
                    *pp = p;
                    return fail_at(r, p, TLM_EFORMAT,
                                   "invalid UTF-8 byte 0x%02x in string",
                                   *p);
                }
                p++;
                continue;
            }
            if (*p == '\\') {
                r->skip_esc = 1;
            } else if (*p == '"') {
                r->skip_in_str = 0;
                if (r->skip_depth == 0) {
                    *pp = p + 1;
                    return P_OK;
                }
            } else {
                *pp = p;
                return fail_at(r, p, TLM_EFORMAT,
                               "control character 0x%02x in string", *p);
            }
            p++;
            continue;
        }
        unsigned char c = *p;
        if (is_ws(c) || c == ',' || c == '}' || c == ']') {
            if (r->skip_depth == 0 && r->skip_scalar) {
                *pp = p;
                return P_OK;
            }
            if (c == '}' || c == ']') {
                if (r->skip_depth == 0)
                    return fail_at(r, p, TLM_EFORMAT,
                                   "unexpected '%c'", c);
                unsigned char open = r->skip_stack[--r->skip_depth];
                if ((open == '{') != (c == '}'))
                    return fail_at(r, p, TLM_EFORMAT,
                                   "mismatched '%c'", c);
                if (r->skip_depth == 0) {
                    *pp = p + 1;
                    return P_OK;
                }
            } else if (c == ',' && r->skip_depth == 0) {
                return fail_at(r, p, TLM_EFORMAT, "value expected");
            }
            p++;
            continue;
        }
        if (c == '{' || c == '[') {
            if (r->skip_depth + 2 > r->o.max_depth)
                return fail_at(r, p, TLM_ELIMIT, "nesting deeper than %u",
                               r->o.max_depth);
            r->skip_stack[r->skip_depth++] = c;
        } else if (c == '"') {
            r->skip_in_str = 1;
        } else if (c == ':') {
            if (r->skip_depth == 0)
                return fail_at(r, p, TLM_EFORMAT, "unexpected ':'");
        } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' ||
                   c == '.' || (c >= 'a' && c <= 'z') ||
                   (c >= 'A' && c <= 'Z')) {
            if (r->skip_depth == 0)
                r->skip_scalar = 1;
        } else {
            return fail_at(r, p, TLM_EFORMAT, "unexpected character '%c'",
                           c >= 0x20 && c < 0x7f ? c : '?');
        }
        p++;
    }
    *pp = p;
    return P_NEED;
}

/* ------------------------------------------------------------------ MARK:
 * The window. */

/* Moves the unparsed tail to the front and reads more.  Grows the buffer
 * when a single value fills it. */
static int refill(rd *r)
{
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->base += r->beg;
        r->end -= r->beg;
        r->beg = 0;
    }
    if (r->end == r->cap) {
        if (r->cap >= r->o.max_event_bytes)
            return fail_at(r, r->buf, TLM_ELIMIT,
                           "value larger than %zu bytes",
                           r->o.max_event_bytes);
        size_t ncap = r->cap * 2;
        if (ncap > r->o.max_event_bytes)
            ncap = r->o.max_event_bytes;
        unsigned char *nb = r->t->a->realloc_fn(r->t->a->ctx, r->buf, ncap);
        if (!nb)
            return fail_nomem(r);
        r->own = r->buf = nb;
        r->cap = ncap;
    }
    while (r->end < r->cap) {
        size_t got = 0;
        tlm_status st = tlm_instream_read(&r->in, r->buf + r->end,
                                          r->cap - r->end, &got, r->err);
        if (st != TLM_OK)
            return P_ERR;
        if (got == 0) {
            r->eof = 1;
            break;
        }
        r->end += got;
    }
    return P_OK;
}

/* The least of a lent block copied after a value cut by the previous
 * block's end: enough for the usual event, small to go back to the block
 * soon (a longer value gets as many bytes as it has, so that its re-reads
 * stay linear). */
#define VIEW_STEP ((size_t)4 << 10)

/* Takes the next lent block into vp / vn (vn = 0: the end of input). */
static int take_view(rd *r)
{
    tlm_status st = tlm_instream_view(&r->in, &r->vp, &r->vn, r->err);
    r->vtail = 0;
    if (st != TLM_OK)
        return P_ERR;
    if (r->vn == 0)
        r->eof = 1;
    return P_OK;
}

/* Makes own hold at least need bytes (at most max_event_bytes), what it
 * holds kept. */
static int own_reserve(rd *r, size_t need)
{
    if (need > r->o.max_event_bytes)
        need = r->o.max_event_bytes;
    if (need <= r->cap)
        return P_OK;
    size_t ncap = r->cap;
    while (ncap < need)
        ncap *= 2;
    if (ncap > r->o.max_event_bytes)
        ncap = r->o.max_event_bytes;
    unsigned char *nb = r->t->a->realloc_fn(r->t->a->ctx, r->own, ncap);
    if (!nb)
        return fail_nomem(r);
    if (!r->viewing)
        r->buf = nb;
    r->own = nb;
    r->cap = ncap;
    return P_OK;
}

/* refill for an input that lends its blocks: the next block becomes the
 * window, or, when a value is cut by the block's end, the value moves to
 * own and the next block's first bytes follow it (VIEW_STEP at a time,
 * as far as the value needs). */
static int refill_view(rd *r)
{
    size_t left = r->end - r->beg;
    if (r->viewing && left == 0) {
        r->base += r->end;
        r->buf = r->own;
        r->beg = r->end = 0;
        r->viewing = 0;
        if (take_view(r) != P_OK || r->eof)
            return r->eof ? P_OK : P_ERR;
        r->buf = r->vp;
        r->end = r->vn;
        r->vn = 0;
        r->viewing = 1;
        return P_OK;
    }
    if (left >= r->o.max_event_bytes)
        return fail_at(r, r->buf + r->beg, TLM_ELIMIT,
                       "value larger than %zu bytes", r->o.max_event_bytes);
    if (r->viewing) { /* the whole rest of the block is in [beg, end) */
        if (own_reserve(r, left) != P_OK)
            return P_ERR;
        memcpy(r->own, r->buf + r->beg, left);
        r->vn = 0;
        r->viewing = 0;
    } else {
        memmove(r->own, r->buf + r->beg, left);
    }
    r->buf = r->own;
    r->base += r->beg;
    r->beg = 0;
    r->end = left;
    if (r->vtail > left)
        r->vtail = left;
    if (r->vn == 0 && (take_view(r) != P_OK || r->eof))
        return r->eof ? P_OK : P_ERR;
    size_t k = left > VIEW_STEP ? left : VIEW_STEP;
    if (k > r->vn)
        k = r->vn;
    if (k > r->o.max_event_bytes - left)
        k = r->o.max_event_bytes - left;
    if (own_reserve(r, left + k) != P_OK)
        return P_ERR;
    memcpy(r->own + left, r->vp, k);
    r->end += k;
    r->vp += k;
    r->vn -= k;
    r->vtail += k;
    return P_OK;
}

/* After a value read from own: when what is left of own ([beg, end)) was
 * copied from the lent block just before vp, the block is the window
 * again. */
static inline void back_to_view(rd *r)
{
    size_t left = r->end - r->beg;
    if (r->vn == 0 || left > r->vtail)
        return;
    r->base += r->beg;
    r->buf = r->vp - left;
    r->beg = 0;
    r->end = left + r->vn;
    r->vn = 0;
    r->viewing = 1;
}

static int add_event(rd *r, const tlm_event *ev)
{
    tlm_trace *t = r->t;
    const tlm_event *stored = ev;
    if (r->o.max_events && t->stats.n_events >= r->o.max_events)
        return fail_at(r, r->buf + r->beg, TLM_ELIMIT,
                       "more than %llu events",
                       (unsigned long long)r->o.max_events);
    if (r->o.keep_events) {
        if (t->n_events == t->cap_events) {
            if (r->o.on_move)
                r->o.on_move(r->o.on_event_ud, TLM_MOVE_BEGIN);
            tlm_status st =
                tlm_grow_al(t->a, (void **)&t->events, &t->cap_events,
                            t->n_events + 1, sizeof *t->events, 4096);
            if (r->o.on_move)
                r->o.on_move(r->o.on_event_ud, TLM_MOVE_END);
            if (st != TLM_OK)
                return fail_nomem(r);
        }
        t->events[t->n_events] = *ev;
        stored = &t->events[t->n_events++];
        tlm_warm_ahead(&r->warm_ev, t->events, t->n_events * sizeof *ev,
                       t->cap_events * sizeof *ev);
    }
    t->stats.n_events++;
    if (r->o.on_event) {
        tlm_status st = r->o.on_event(r->o.on_event_ud, t, stored,
                                      t->stats.n_events - 1, r->err);
        if (st != TLM_OK) {
            if (r->err && r->err->code == TLM_OK)
                fail_at(r, r->buf + r->beg, st, "stopped by the callback");
            else if (r->err)
                r->err->code = st;
            return P_ERR;
        }
    }
    if (!r->o.keep_events)
        t->blob_len = 1; /* the args of a dropped event go with it */
    return P_OK;
}

/* ------------------------------------------------------------------ MARK:
 * A second parser.  For a large plain file (tlm_read_opts.parse_helper),
 * the input is cut into units of PAR_UNIT + 1 blocks.  While this thread
 * reads the first block of a unit, a helper thread reads the other
 * PAR_UNIT on its own (pread), from their first event-like start ('}'
 * ',' '{'), into a trace of its own, until the first event that starts
 * in the next unit.  When this thread meets an event at that very
 * offset, it takes the helper's events over, in order: their strings
 * interned in the order a plain read meets them, tracks and durations
 * set, arguments copied with their strings mapped, each delivered through
 * add_event; then it goes on after the last of them.  (Taking an event
 * over costs less than reading it, hence two blocks for the helper to
 * one here.)  Helper blocks that start elsewhere (a false start inside a
 * string, say) or that the helper could not read whole (an error, an
 * event running past the next block, the end of the array) are read
 * here as usual.  Either way the trace, its statistics
 * and any error are those of one parser. */

static tlm_status trace_new(const tlm_alloc *a, const char *path,
                            tlm_trace **out);

typedef struct pres {          /* one helper block */
    int ok;
    uint64_t beg, end;         /* first event's '{', after the last '}' */
    tlm_trace *t;              /* its events, strings and arguments */
    struct pside *side;        /* per event */
    size_t side_cap;
} pres;

/* The helper reads PAR_UNIT blocks, then this thread one, and so on. */
#ifndef PAR_UNIT
#define PAR_UNIT 2
#endif
enum { PAR_DEPTH = 2, PAR_SPARE = PAR_DEPTH + 2 };

typedef struct par {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    uint64_t size;             /* the file's */
    size_t bsize;              /* a block: the reader's lent block */
    const rd *m;               /* the reader's options and path */
    pres q[PAR_DEPTH];         /* results, in block order */
    unsigned head, count;
    int stop, done;
    unsigned char *buf;        /* two blocks */
    /* results given back, for the next blocks (no new pages each time) */
    pres spare[PAR_SPARE];
    unsigned nspare;
    /* the helper's scratch from block to block */
    unsigned char *skip_stack;
    char *scr;
    size_t scr_cap;
    struct cmemo_way *cmemo;
    unsigned cmemo_sets;
} par;

static void pres_free(pres *x)
{
    if (x->t)
        tlm_trace_free(x->t);
    free(x->side);
    memset(x, 0, sizeof *x);
}

/* Gives the result x (taken over or not) back for reuse. */
static void par_give(par *h, pres *x)
{
    pthread_mutex_lock(&h->mu);
    if (h->nspare < PAR_SPARE && x->t) {
        h->spare[h->nspare++] = *x;
        memset(x, 0, sizeof *x);
    }
    pthread_mutex_unlock(&h->mu);
    pres_free(x);
}

/* A spare result, emptied, into *x; 0 when there is none. */
static int par_spare(par *h, pres *x)
{
    pthread_mutex_lock(&h->mu);
    int got = h->nspare > 0;
    if (got)
        *x = h->spare[--h->nspare];
    pthread_mutex_unlock(&h->mu);
    if (!got)
        return 0;
    tlm_trace *t = x->t;
    t->n_events = 0;
    t->blob_len = 1;
    memset(&t->stats, 0, sizeof t->stats);
    tlm_intern_clear(&t->strs);
    x->ok = 0;
    return 1;
}

/* The first '{' in b[0..lim) after a '}' and a ',' (white space around
 * them), as the start of an event; -1 when none. */
static long par_first_event(const unsigned char *b, size_t lim)
{
    for (size_t i = 0; i < lim; i++) {
        if (b[i] != '}')
            continue;
        size_t j = i + 1;
        while (j < lim && is_ws(b[j]))
            j++;
        if (j >= lim || b[j] != ',')
            continue;
        j++;
        while (j < lim && is_ws(b[j]))
            j++;
        if (j < lim && b[j] == '{')
            return (long)j;
    }
    return -1;
}

/* A reader for the helper: the options of m, the trace of res (a spare
 * one, or new) with the category strings first (as read_common interns
 * them), no callbacks, h's scratch. */
static int par_rd_init(rd *L, par *h, pres *res)
{
    memset(L, 0, sizeof *L);
    L->o = h->m->o;
    L->o.on_event = NULL;
    L->o.on_move = NULL;
    L->o.keep_events = 1;
    L->path = h->m->path;
    L->local = 1;
    L->skip_stack = h->skip_stack;
    L->scr = h->scr;
    L->scr_cap = h->scr_cap;
    L->cmemo = h->cmemo; /* emptied: no set live */
    L->cmemo_sets = h->cmemo_sets;
    if (!par_spare(h, res) &&
        trace_new(L->o.alloc, h->m->path, &res->t) != TLM_OK)
        return -1;
    L->t = res->t;
    arg_table_init(&L->keys);
    for (int c = 1; c < TLM_CAT_OTHER; c++) {
        L->cat_lens[c] = strlen(cat_names[c]);
        L->cat_ids[c] = tlm_intern_add(&L->t->strs, cat_names[c],
                                       L->cat_lens[c]);
        if (L->cat_ids[c] == UINT32_MAX)
            return -1;
    }
    return 0;
}

/* Keeps the helper's scratch as L left it (grown, moved) for the next
 * block. */
static void par_rd_keep(par *h, const rd *L)
{
    h->scr = L->scr;
    h->scr_cap = L->scr_cap;
    h->cmemo = L->cmemo;
    h->cmemo_sets = L->cmemo_sets;
}

/* Keeps the event ev just read by L (its side in L->cs, ending at end). */
static int par_keep(rd *L, const tlm_event *ev, struct pside **side,
                    size_t *cap, uint64_t end)
{
    tlm_trace *t = L->t;
    if (tlm_grow_al(t->a, (void **)&t->events, &t->cap_events,
                    t->n_events + 1, sizeof *t->events, 256) ||
        tlm_grow((void **)side, cap, t->n_events + 1, sizeof **side, 256))
        return -1;
    L->cs.end = end;
    (*side)[t->n_events] = L->cs;
    t->events[t->n_events++] = *ev;
    t->stats.n_events++;
    return 0;
}

/* Reads the events of L's window from its start (an event's '{') up to
 * the first that starts at or after lim; *end: after the last one read.
 * 0 when they all read whole, 1 when one runs past the window, -1
 * otherwise. */
static int par_events(rd *L, struct pside **side, size_t *cap,
                      uint64_t lim, uint64_t *end)
{
    for (;;) {
        const unsigned char *p = L->buf + L->beg, *e = L->buf + L->end;
        tlm_event ev;
        L->in_events = 1;
        L->ev_index = L->t->stats.n_events;
        int rc = parse_event(L, &p, e, &ev);
        if (rc != P_OK)
            return rc == P_NEED ? 1 : -1;
        *end = L->base + (uint64_t)(p - L->buf);
        if (par_keep(L, &ev, side, cap, *end) != 0)
            return -1;
        while (p < e && is_ws(*p))
            p++;
        if (p < e && *p == ']')
            return 0; /* the array ends: this thread reads on from *end */
        if (p >= e)
            return 1;
        if (*p != ',')
            return -1;
        p++;
        while (p < e && is_ws(*p))
            p++;
        if (p >= e)
            return 1;
        if (*p != '{')
            return -1;
        L->beg = (size_t)(p - L->buf);
        if (L->base + L->beg >= lim)
            return 0;
    }
}

/* The helper's read of the unit from block j (its blocks, then what its
 * last event needs of the next block) from first, in a window of len
 * bytes. */
static int par_read(par *h, uint64_t j, long first, size_t len, pres *res)
{
    rd L;
    tlm_error err;
    uint64_t b0 = j * h->bsize;
    if (par_rd_init(&L, h, res) != 0) {
        par_rd_keep(h, &L);
        pres_free(res);
        return -1;
    }
    L.err = &err;
    L.buf = h->buf;
    L.cap = L.end = len;
    L.beg = (size_t)first;
    L.base = b0;
    L.eof = b0 + len == h->size; /* else a cut value needs more bytes */
    res->beg = b0 + (uint64_t)first;
    int rc = par_events(&L, &res->side, &res->side_cap,
                        b0 + PAR_UNIT * h->bsize,
                        &res->end);
    par_rd_keep(h, &L);
    res->ok = rc == 0;
    return rc;
}

/* The helper's read of the unit from block j into *res (res->ok = 0:
 * not read whole): its blocks and the next one's first PAR_TAIL bytes,
 * all of the next block when the last event needs more. */
enum { PAR_TAIL = 16 << 10 };
static void par_block(par *h, uint64_t j, pres *res)
{
    memset(res, 0, sizeof *res);
    uint64_t b0 = j * h->bsize, left = h->size - b0;
    size_t unit = PAR_UNIT * h->bsize, all = unit + h->bsize;
    size_t full = left < all ? (size_t)left : all;
    size_t len = full < unit + PAR_TAIL ? full : unit + PAR_TAIL;
    if (tlm_pread_full(h->fd, h->buf, len, b0, NULL) != 0)
        return;
    long first = par_first_event(h->buf, len < h->bsize ? len : h->bsize);
    if (first < 0)
        return;
    if (par_read(h, j, first, len, res) == 1 && len < full &&
        tlm_pread_full(h->fd, h->buf + len, full - len, b0 + len,
                       NULL) == 0) {
        par_give(h, res);
        (void)par_read(h, j, first, full, res);
    }
}

static void *par_main(void *arg)
{
    par *h = arg;
    for (uint64_t j = 1; j * h->bsize < h->size; j += PAR_UNIT + 1) {
        pthread_mutex_lock(&h->mu);
        while (h->count == PAR_DEPTH && !h->stop)
            pthread_cond_wait(&h->cv, &h->mu);
        int stop = h->stop;
        pthread_mutex_unlock(&h->mu);
        if (stop)
            break;
        pres res;
        par_block(h, j, &res);
        pthread_mutex_lock(&h->mu);
        h->q[(h->head + h->count) % PAR_DEPTH] = res;
        h->count++;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
    }
    pthread_mutex_lock(&h->mu);
    h->done = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* Starts the helper when the read allows it (no helper otherwise). */
static void par_start(rd *r)
{
    struct stat sb;
    size_t bsize = tlm_instream_view_size(&r->in);
    if (!r->o.parse_helper || !r->views || r->in.gzip || !r->in.fp ||
        !r->o.keep_events || r->o.max_events ||
        fstat(fileno(r->in.fp), &sb) != 0 || !S_ISREG(sb.st_mode) ||
        (uint64_t)sb.st_size < 4 * (uint64_t)bsize)
        return;
    par *h = calloc(1, sizeof *h);
    if (!h)
        return;
    h->fd = fileno(r->in.fp);
    h->size = (uint64_t)sb.st_size;
    h->bsize = bsize;
    h->m = r;
    h->buf = malloc((PAR_UNIT + 1) * bsize);
    h->skip_stack = malloc(r->o.max_depth + 2);
    int sync = 0; /* 1: the mutex, 2: and the condition made */
    if (h->buf && h->skip_stack && pthread_mutex_init(&h->mu, NULL) == 0)
        sync = pthread_cond_init(&h->cv, NULL) == 0 ? 2 : 1;
    if (sync == 2 && pthread_create(&h->th, NULL, par_main, h) == 0) {
        r->par = h;
        r->par_start = bsize;
        /* the reading thread leaves the helper's blocks to it */
        tlm_instream_lazy_plan(&r->in, PAR_UNIT + 1, h->size);
        return;
    }
    if (sync == 2) /* no helper: one parser */
        pthread_cond_destroy(&h->cv);
    if (sync >= 1)
        pthread_mutex_destroy(&h->mu);
    free(h->buf);
    free(h->skip_stack);
    free(h);
}

/* Stops the helper and frees what it left. */
static void par_stop(rd *r)
{
    par *h = r->par;
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->stop = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
    for (unsigned i = 0; i < h->count; i++)
        pres_free(&h->q[(h->head + i) % PAR_DEPTH]);
    for (unsigned i = 0; i < h->nspare; i++)
        pres_free(&h->spare[i]);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h->buf);
    free(h->skip_stack);
    r->t->a->free_fn(r->t->a->ctx, h->scr);
    r->t->a->free_fn(r->t->a->ctx, h->cmemo);
    free(h);
    r->par = NULL;
}

/* The helper's next result; 0 when it has no more. */
static int par_take(par *h, pres *out)
{
    pthread_mutex_lock(&h->mu);
    while (h->count == 0 && !h->done)
        pthread_cond_wait(&h->cv, &h->mu);
    int got = h->count > 0;
    if (got) {
        *out = h->q[h->head];
        h->head = (h->head + 1) % PAR_DEPTH;
        h->count--;
        pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    return got;
}

/* Copies the arguments at L's blob offset a into this trace's blob, the
 * text ids mapped; *out: their offset here (as parse_event keeps them). */
static int par_args(rd *r, const tlm_trace *L, uint32_t a,
                    const uint32_t *map, uint32_t *out)
{
    size_t mark = r->t->blob_len;
    const unsigned char *p = L->blob + a;
    for (;;) {
        unsigned char tag = *p++;
        if (tag == 0)
            break;
        uint64_t v = get_varint(&p);
        if ((tlm_argv_type)(tag >> 6) == TLM_ARGV_STR)
            v = map[v];
        if (blob_put(r, (tlm_arg)(tag & 0x3f), (tlm_argv_type)(tag >> 6),
                     v) != P_OK)
            return P_ERR;
    }
    if (blob_reserve(r, 1) != 0)
        return fail_nomem(r);
    r->t->blob[r->t->blob_len++] = 0;
    *out = (uint32_t)mark;
    return P_OK;
}

/* Takes one event of the helper's block x over (map: its text ids here). */
static int par_event(rd *r, const pres *x, size_t i, const uint32_t *map)
{
    tlm_event ev = x->t->events[i];
    const struct pside *sd = &x->side[i];
    ev.name = map[ev.name];
    ev.cat_str = map[ev.cat_str];
    ev.track = 0;
    if (sd->any_pt) {
        int64_t pid = sd->pid, tid = sd->tid;
        if (ev.flags & TLM_EV_PID_STR)
            pid = map[pid];
        if (ev.flags & TLM_EV_TID_STR)
            tid = map[tid];
        if (tlm_ev_set_track(&ev, pid, tid) != TLM_OK)
            return fail_nomem(r);
    }
    if (sd->has_dur && tlm_ev_set_dur(&ev, sd->dur) != TLM_OK)
        return fail_nomem(r);
    if (ev.args && par_args(r, x->t, ev.args, map, &ev.args) != P_OK)
        return P_ERR;
    r->in_events = 1;
    r->ev_index = r->t->stats.n_events;
    r->ev_name = ev.name;
    r->field = NULL;
    r->has_err_at = 1; /* a message names the offset after the event */
    r->err_at = sd->end;
    int rc = add_event(r, &ev);
    r->has_err_at = 0;
    return rc;
}

/* Takes the helper's block x over. */
static int par_replay(rd *r, const pres *x)
{
    uint32_t n = x->t->strs.n;
    uint32_t *map = malloc((n ? n : 1) * sizeof *map);
    if (!map)
        return fail_nomem(r);
    int rc = P_OK;
    map[0] = 0;
    for (uint32_t id = 1; id < n; id++) { /* in the order met */
        const tlm_strent *s = &x->t->strs.ents[id];
        map[id] = tlm_intern_add_h(&r->t->strs, s->s, s->len, s->hash);
        if (map[id] == UINT32_MAX) {
            rc = fail_nomem(r);
            break;
        }
    }
    for (size_t i = 0; rc == P_OK && i < x->t->n_events; i++)
        rc = par_event(r, x, i, map);
    r->t->stats.n_lone_surrogates += x->t->stats.n_lone_surrogates;
    free(map);
    return rc;
}

/* Moves the window to start at offset to (at or after the window's
 * start, inside the lent blocks). */
static int par_skip(rd *r, uint64_t to)
{
    if (to <= r->base + r->end) {
        r->beg = (size_t)(to - r->base);
        return P_OK;
    }
    uint64_t skip = to - (r->base + r->end);
    if (!r->viewing && r->vn > skip) {
        r->buf = r->vp + skip;
        r->end = r->vn - (size_t)skip;
    } else {
        if (!r->viewing)
            skip -= r->vn;
        r->vn = 0;
        size_t passed; /* blocks the helper read: not read here */
        while (tlm_instream_view_pass(&r->in, skip, &passed))
            skip -= passed;
        for (;;) {
            if (take_view(r) != P_OK)
                return P_ERR;
            if (r->eof) /* the helper read these bytes: not here */
                return fail_at(r, r->buf + r->end, TLM_EIO,
                               "input shorter than read before");
            if (r->vn > skip)
                break;
            skip -= r->vn;
        }
        r->buf = r->vp + skip;
        r->end = r->vn - (size_t)skip;
    }
    r->base = to;
    r->beg = 0;
    r->vn = 0;
    r->viewing = 1;
    return P_OK;
}

/* At the start of an event at offset at, at or after the helper's next
 * block: its events taken over when its block starts there (P_OK: the
 * window now after them), else P_NEED (read here). */
static int par_turn(rd *r, uint64_t at)
{
    while (r->par && at >= r->par_start) {
        pres x;
        if (!par_take(r->par, &x)) {
            r->par_start = UINT64_MAX;
            return P_NEED;
        }
        r->par_start += (PAR_UNIT + 1) * (uint64_t)r->par->bsize;
        if (!x.ok || x.beg != at) {
            par_give(r->par, &x);
            continue;
        }
        int rc = par_replay(r, &x);
        uint64_t end = x.end;
        par_give(r->par, &x);
        if (rc != P_OK)
            return P_ERR;
        return par_skip(r, end);
    }
    return P_NEED;
}

/* The top-level state machine. */
static int run(rd *r)
{
    enum top_state s = S_START;
    int in_object = 0;
    for (;;) {
        const unsigned char *p = r->buf + r->beg, *e = r->buf + r->end;
        const unsigned char *p0 = p;
        int rc = P_NEED;
        enum top_state next = s;
        tlm_event ev;
        size_t blob_mark;
        if (s == S_SKIP) {
            rc = skip_stream(r, &p, e);
            r->beg = (size_t)(p - r->buf); /* consumed bytes are gone */
            if (rc == P_OK)
                next = S_OBJ_NEXT;
        } else if (s == S_DONE) {
            return P_OK;
        } else if ((rc = skip_ws(&p, e)) == P_OK) {
            unsigned char c = *p;
            r->beg = (size_t)(p - r->buf); /* whitespace is consumed */
            p0 = p;
            switch (s) {
            case S_START:
                if (c == '{') {
                    in_object = 1;
                    p++;
                    next = S_OBJ_FIRST;
                } else if (c == '[') {
                    r->t->meta.has_trace_events = 1;
                    p++;
                    next = S_ARR_FIRST;
                } else {
                    return fail_at(r, p, TLM_EFORMAT,
                                   "not a JSON trace: expected '{' or '['");
                }
                break;
            case S_OBJ_FIRST:
                if (c == '}') {
                    p++;
                    next = S_END;
                } else {
                    next = S_OBJ_MEMBER;
                }
                break;
            case S_OBJ_MEMBER:
                rc = top_member(r, &p, e, &next);
                break;
            case S_OBJ_NEXT:
                r->top_key = NULL;
                if (c == ',') {
                    p++;
                    next = S_OBJ_MEMBER;
                } else if (c == '}') {
                    p++;
                    next = S_END;
                } else {
                    return fail_at(r, p, TLM_EFORMAT, "expected ',' or '}'");
                }
                break;
            case S_ARR_FIRST:
                r->in_events = 0;
                if (c == ']') {
                    p++;
                    next = in_object ? S_OBJ_NEXT : S_END;
                } else {
                    next = S_ARR_EVENT;
                }
                break;
            case S_ARR_EVENT:
                r->in_events = 1;
                if (r->par &&
                    r->base + (uint64_t)(p - r->buf) >= r->par_start) {
                    rc = par_turn(r, r->base + (uint64_t)(p - r->buf));
                    if (rc == P_ERR)
                        return P_ERR;
                    if (rc == P_OK) { /* the window is after them */
                        s = S_ARR_NEXT;
                        continue;
                    }
                }
                r->ev_index = r->t->stats.n_events;
                blob_mark = r->t->blob_len;
                rc = parse_event(r, &p, e, &ev);
                if (rc != P_OK)
                    r->t->blob_len = blob_mark; /* retried or failed */
                if (rc == P_OK) {
                    r->beg = (size_t)(p - r->buf);
                    if (add_event(r, &ev) != P_OK)
                        return P_ERR;
                    next = S_ARR_NEXT;
                }
                break;
            case S_ARR_NEXT:
                r->in_events = 0;
                if (c == ',') {
                    p++;
                    next = S_ARR_EVENT;
                } else if (c == ']') {
                    p++;
                    next = in_object ? S_OBJ_NEXT : S_END;
                } else {
                    r->in_events = 1;
                    r->ev_index = r->t->stats.n_events - 1;
                    r->field = NULL;
                    return fail_at(r, p, TLM_EFORMAT,
                                   "expected ',' or ']' after the event");
                }
                break;
            case S_END:
                return fail_at(r, p, TLM_EFORMAT,
                               "trailing characters after the JSON value");
            case S_SKIP:
            case S_DONE:
                break;
            }
        } else {
            r->beg = (size_t)(p - r->buf);
            if (s == S_END && r->eof)
                return P_OK;
        }
        if (rc == P_ERR)
            return P_ERR;
        if (rc == P_OK) {
            r->beg = (size_t)(p - r->buf);
            s = next;
            if (r->vn)
                back_to_view(r);
            continue;
        }
        /* P_NEED: the value starting at p0 (= buf + beg) needs more
         * input; it is parsed again from there after the refill */
        (void)p0;
        if (r->eof) {
            if (s == S_END)
                return P_OK;
            if (s == S_START)
                return fail_at(r, r->buf + r->end, TLM_EFORMAT,
                               "empty input: not a JSON trace");
            return fail_at(r, r->buf + r->end, TLM_EFORMAT,
                           "unexpected end of input (truncated JSON)");
        }
        if ((r->views ? refill_view(r) : refill(r)) != P_OK)
            return P_ERR;
    }
}

/* ------------------------------------------------------------------ MARK:
 * Public entry points. */

void tlm_read_opts_init(tlm_read_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->keep_events = 1;
}

static tlm_status trace_new(const tlm_alloc *a, const char *path,
                            tlm_trace **out)
{
    tlm_trace *t = a->malloc_fn(a->ctx, sizeof *t);
    if (!t)
        return TLM_ENOMEM;
    memset(t, 0, sizeof *t);
    t->a = a;
    tlm_event_tables_ref(); /* given back by tlm_trace_free */
    size_t n = strlen(path);
    t->path = a->malloc_fn(a->ctx, n + 1);
    if (!t->path || tlm_intern_init(&t->strs, a) != TLM_OK) {
        a->free_fn(a->ctx, t->path);
        a->free_fn(a->ctx, t);
        tlm_event_tables_unref();
        return TLM_ENOMEM;
    }
    memcpy(t->path, path, n + 1);
    t->meta.rank = t->meta.world_size = t->meta.pg_count = -1;
    t->meta.schema_version = -1;
    t->blob = a->malloc_fn(a->ctx, 4096);
    if (!t->blob) {
        tlm_trace_free(t);
        return TLM_ENOMEM;
    }
    t->blob[0] = 0;
    t->blob_len = 1;
    t->blob_cap = 4096;
    *out = t;
    return TLM_OK;
}

static tlm_status read_common(rd *r, tlm_trace **out)
{
    tlm_trace *t = r->t;
    tlm_status st = TLM_OK;
    t->strs.on_move = r->o.on_move;
    t->strs.move_ud = r->o.on_event_ud;
    arg_table_init(&r->keys);
    for (int c = 1; c < TLM_CAT_OTHER; c++) {
        r->cat_lens[c] = strlen(cat_names[c]);
        r->cat_ids[c] = tlm_intern_add(&t->strs, cat_names[c], r->cat_lens[c]);
        if (r->cat_ids[c] == UINT32_MAX) {
            st = tlm_error_set(r->err, TLM_ENOMEM, r->path, -1,
                               "out of memory");
            goto done;
        }
    }
    r->cap = r->o.chunk_size * 2;
    if (r->cap < 64)
        r->cap = 64;
    if (r->cap > r->o.max_event_bytes)
        r->cap = r->o.max_event_bytes;
    if (!r->o.serial_inflate && r->o.chunk_size >= 65536)
        tlm_instream_start_thread(&r->in);
    /* a value inside a lent block is not measured: lent blocks only when
     * none can exceed max_event_bytes */
    size_t vsize = tlm_instream_view_size(&r->in);
    r->views = vsize > 0 && vsize <= r->o.max_event_bytes;
    if (r->views && r->cap > 16 * VIEW_STEP) /* own: cut values only */
        r->cap = 16 * VIEW_STEP;
    r->own = r->buf = t->a->malloc_fn(t->a->ctx, r->cap);
    r->skip_stack = t->a->malloc_fn(t->a->ctx, r->o.max_depth + 2);
    if (!r->buf || !r->skip_stack) {
        st = tlm_error_set(r->err, TLM_ENOMEM, r->path, -1, "out of memory");
        goto done;
    }
    par_start(r);
    if (run(r) != P_OK) {
        st = r->err ? r->err->code : TLM_EFORMAT;
        if (st == TLM_OK)
            st = TLM_EFORMAT;
        goto done;
    }
    if (!t->meta.has_trace_events) {
        st = tlm_error_set(r->err, TLM_ESCHEMA, r->path,
                           (int64_t)r->in.bytes_out,
                           "no traceEvents array in the top-level object");
        goto done;
    }
    t->stats.bytes_in = r->in.bytes_in;
    t->stats.bytes_json = r->in.bytes_out;
    t->stats.gzip = r->in.gzip;
    t->stats.gzip_members = r->in.members;
done:
    par_stop(r);
    t->a->free_fn(t->a->ctx, r->own);
    t->a->free_fn(t->a->ctx, r->skip_stack);
    t->a->free_fn(t->a->ctx, r->scr);
    t->a->free_fn(t->a->ctx, r->cmemo);
    tlm_instream_close(&r->in);
    if (st != TLM_OK) {
        if (r->o.on_move)
            r->o.on_move(r->o.on_event_ud, TLM_MOVE_FREE);
        tlm_trace_free(t);
        *out = NULL;
        return st;
    }
    t->strs.on_move = NULL; /* the trace outlives the read */
    t->strs.move_ud = NULL;
    if (!r->o.keep_events) {
        t->a->free_fn(t->a->ctx, t->events);
        t->events = NULL;
        t->n_events = t->cap_events = 0;
    } else {
        tlm_trace_fit(t, r->o.on_move, r->o.on_event_ud);
    }
    *out = t;
    return TLM_OK;
}

static void opts_defaults(rd *r, const tlm_read_opts *opts)
{
    if (opts)
        r->o = *opts;
    else
        tlm_read_opts_init(&r->o);
    if (!r->o.chunk_size)
        r->o.chunk_size = 1u << 20;
    if (!r->o.max_depth)
        r->o.max_depth = 64;
    if (!r->o.max_string)
        r->o.max_string = 16u << 20;
    if (!r->o.max_event_bytes)
        r->o.max_event_bytes = 256u << 20;
    if (r->o.max_event_bytes < 64)
        r->o.max_event_bytes = 64;
    if (!r->o.alloc)
        r->o.alloc = tlm_alloc_default();
}

/* The start of a read: a clean reader with the options' defaults, no
 * trace yet, err (not NULL) cleared and kept for messages. */
static tlm_error *rd_begin(rd *r, const tlm_read_opts *opts, tlm_trace **out,
                           tlm_error *err)
{
    memset(r, 0, sizeof *r);
    tlm_error_clear(err);
    *out = NULL;
    opts_defaults(r, opts);
    r->err = err;
    return err;
}

tlm_status tlm_trace_read_file(const char *path, const tlm_read_opts *opts,
                               tlm_trace **out, tlm_error *err)
{
    rd r;
    tlm_error local; /* err is optional; the status must not depend on it */
    err = rd_begin(&r, opts, out, err ? err : &local);
    if (!path)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "no path given");
    r.path = path;
    tlm_status st = trace_new(r.o.alloc, path, &r.t);
    if (st != TLM_OK)
        return tlm_error_set(err, st, path, -1, "out of memory");
    st = tlm_instream_open_file(&r.in, r.t->path, r.o.chunk_size, r.o.alloc,
                                err);
    if (st != TLM_OK) {
        tlm_instream_close(&r.in);
        tlm_trace_free(r.t);
        return st;
    }
    r.path = r.t->path;
    return read_common(&r, out);
}

tlm_status tlm_trace_read_mem(const void *data, size_t size, const char *name,
                              const tlm_read_opts *opts, tlm_trace **out,
                              tlm_error *err)
{
    rd r;
    tlm_error local; /* err is optional; the status must not depend on it */
    err = rd_begin(&r, opts, out, err ? err : &local);
    if (r.o.chunk_size > size && size >= 4096)
        r.o.chunk_size = size; /* a small buffer needs no 1 MiB window */
    else if (r.o.chunk_size > 4096 && size < 4096)
        r.o.chunk_size = 4096;
    tlm_status st = trace_new(r.o.alloc, name ? name : "", &r.t);
    if (st != TLM_OK)
        return tlm_error_set(err, st, name, -1, "out of memory");
    r.path = r.t->path;
    st = tlm_instream_open_mem(&r.in, data, size, r.t->path, r.o.chunk_size,
                               r.o.alloc, err);
    if (st != TLM_OK) {
        tlm_instream_close(&r.in);
        tlm_trace_free(r.t);
        return st;
    }
    return read_common(&r, out);
}

void tlm_trace_free(tlm_trace *t)
{
    if (!t)
        return;
    const tlm_alloc *a = t->a;
    free_pgs(t);
    tlm_intern_free(&t->strs);
    a->free_fn(a->ctx, t->events);
    a->free_fn(a->ctx, t->blob);
    a->free_fn(a->ctx, t->path);
    a->free_fn(a->ctx, t);
    tlm_event_tables_unref();
}

const tlm_event *tlm_trace_events(const tlm_trace *t, size_t *n)
{
    if (n)
        *n = t ? t->n_events : 0;
    return t ? t->events : NULL;
}

const tlm_trace_meta *tlm_trace_meta_get(const tlm_trace *t)
{
    return &t->meta;
}

const tlm_read_stats *tlm_trace_stats(const tlm_trace *t)
{
    return &t->stats;
}

const char *tlm_trace_path(const tlm_trace *t)
{
    return t->path;
}

const char *tlm_trace_str(const tlm_trace *t, uint32_t id, size_t *len)
{
    if (!t || id >= t->strs.n) {
        if (len)
            *len = 0;
        return "";
    }
    if (len)
        *len = t->strs.ents[id].len;
    return t->strs.ents[id].s;
}

uint64_t tlm_trace_str_hash(const tlm_trace *t, uint32_t id)
{
    if (!t || id >= t->strs.n)
        return tlm_hash64("", 0);
    return t->strs.ents[id].hash;
}

uint32_t tlm_trace_str_count(const tlm_trace *t)
{
    return t ? t->strs.n : 0;
}

uint32_t tlm_trace_str_find(const tlm_trace *t, const char *s, size_t len)
{
    return tlm_intern_find(&t->strs, s, len);
}

uint32_t tlm_trace_str_intern(tlm_trace *t, const char *s, size_t len,
                              tlm_status *st)
{
    uint32_t id = tlm_intern_add(&t->strs, s, len);
    if (id == UINT32_MAX) {
        if (st)
            *st = TLM_ENOMEM;
        return 0;
    }
    if (st)
        *st = TLM_OK;
    return id;
}

/* ------------------------------------------------------------------ MARK:
 * Argument access. */

int tlm_event_arg_next(const tlm_trace *t, const tlm_event *ev, uint64_t *it,
                       tlm_arg *key, tlm_argv *val)
{
    if (!ev->args)
        return 0;
    const unsigned char *p = t->blob + (*it ? *it : ev->args);
    unsigned char tag = *p++;
    if ((tag & 0x3f) == TLM_ARG_FLOW_ID_) { /* not an argument */
        (void)get_varint(&p);
        tag = *p++;
    }
    if (tag == 0)
        return 0;
    tlm_argv v;
    memset(&v, 0, sizeof v);
    v.type = (tlm_argv_type)(tag >> 6);
    uint64_t raw = get_varint(&p);
    if (v.type == TLM_ARGV_INT)
        v.i = unzigzag(raw);
    else
        v.str = (uint32_t)raw;
    if (key)
        *key = (tlm_arg)(tag & 0x3f);
    if (val)
        *val = v;
    *it = (uint64_t)(p - t->blob);
    return 1;
}

tlm_argv_type tlm_event_arg(const tlm_trace *t, const tlm_event *ev,
                            tlm_arg key, tlm_argv *out)
{
    tlm_argv_type found = TLM_ARGV_NONE;
    if (!ev->args)
        return found;
    const unsigned char *p = t->blob + ev->args;
    for (;;) {
        unsigned char tag = *p++;
        if (tag == 0)
            break;
        uint64_t raw = get_varint(&p);
        if ((tag & 0x3f) == (unsigned)key) {
            /* the last occurrence wins, as with Python's json */
            found = (tlm_argv_type)(tag >> 6);
            if (out) {
                memset(out, 0, sizeof *out);
                out->type = found;
                if (found == TLM_ARGV_INT)
                    out->i = unzigzag(raw);
                else
                    out->str = (uint32_t)raw;
            }
        }
    }
    return found;
}

int tlm_event_flow_id(const tlm_trace *t, const tlm_event *ev, int64_t *out)
{
    tlm_argv v;
    if (!(ev->flags & TLM_EV_HAS_ID) ||
        tlm_event_arg(t, ev, (tlm_arg)TLM_ARG_FLOW_ID_, &v) != TLM_ARGV_INT)
        return 0;
    if (out)
        *out = v.i;
    return 1;
}

int tlm_event_arg_int(const tlm_trace *t, const tlm_event *ev, tlm_arg key,
                      int64_t *out)
{
    tlm_argv v;
    if (tlm_event_arg(t, ev, key, &v) != TLM_ARGV_INT)
        return 0;
    if (out)
        *out = v.i;
    return 1;
}

const char *tlm_event_arg_str(const tlm_trace *t, const tlm_event *ev,
                              tlm_arg key, size_t *len)
{
    tlm_argv v;
    if (tlm_event_arg(t, ev, key, &v) != TLM_ARGV_STR) {
        if (len)
            *len = 0;
        return NULL;
    }
    return tlm_trace_str(t, v.str, len);
}

int tlm_event_arg_dim3(const tlm_trace *t, const tlm_event *ev, tlm_arg key,
                       int64_t xyz[3])
{
    size_t n;
    const char *s = tlm_event_arg_str(t, ev, key, &n);
    if (!s || n < 2 || s[0] != '[' || s[n - 1] != ']')
        return 0;
    size_t i = 1;
    for (int k = 0; k < 3; k++) {
        char *endp;
        char tmp[24];
        size_t j = 0;
        if (i < n && s[i] == '-')
            tmp[j++] = s[i++];
        while (i < n && j < sizeof tmp - 1 && s[i] >= '0' && s[i] <= '9')
            tmp[j++] = s[i++];
        tmp[j] = '\0';
        if (j == 0 || (j == 1 && tmp[0] == '-'))
            return 0;
        xyz[k] = strtoll(tmp, &endp, 10);
        if (i >= n)
            return 0;
        if (k < 2) {
            if (s[i] != ',')
                return 0;
            i++;
        }
    }
    return s[i] == ']' && i == n - 1;
}
