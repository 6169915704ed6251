/*
 * pyrepr.c - Python's text for values, as pandas writes them into CSV
 * cells (TraceLens's sheets, [perfreport] §4.13):
 * floats as repr() (shortest round-trip digits, exponent form below 1e-4
 * and from 1e16, "nan", "inf"), str as repr() (quotes chosen as Python
 * does), and compact JSON text as the repr of the Python value json.loads
 * would give (arrays as tuples or lists, true/false/null as
 * True/False/None).
 * Floats take an exact integer path (the reference's binary search over
 * the precision, each step in 128-bit integers instead of printf and
 * strtod), byte for byte the reference's text.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hexnum.h"
#include "pyrepr.h"

/* The shortest precision (1..17 digits) whose "%.*e" text reads back as
 * v; round-tripping is monotone in the precision, so a binary search. */
static int shortest_e(double v, char *buf, size_t size)
{
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(buf, size, "%.*e", mid - 1, v);
        if (strtod(buf, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(buf, size, "%.*e", lo - 1, v);
    return lo;
}

static size_t py_layout(int neg, const char *digits, size_t nd, int ex,
                        char *buf, size_t size);

/* The reference: the digits of "%.*e" at the least precision that strtod
 * reads back, by a binary search; slow (printf and strtod five times
 * each), kept as the fast path's fallback and the tests' oracle. */
size_t tlm_py_float_repr_ref(double v, char *buf, size_t size)
{
    if (isnan(v))
        return (size_t)snprintf(buf, size, "nan");
    if (isinf(v))
        return (size_t)snprintf(buf, size, v < 0 ? "-inf" : "inf");
    if (v == 0.0)
        return (size_t)snprintf(buf, size, signbit(v) ? "-0.0" : "0.0");
    if (fabs(v) < 1e16 && v == floor(v)) /* integral: "<int>.0" */
        return (size_t)snprintf(buf, size, "%lld.0", (long long)v);
    char e[40];
    shortest_e(v, e, sizeof e);
    /* e: [-]d[.ddd]e[+-]xx */
    char digits[24];
    size_t nd = 0;
    const char *s = e;
    int neg = *s == '-';
    if (neg)
        s++;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && nd < sizeof digits - 1)
            digits[nd++] = *s;
    int ex = (*s == 'e') ? (int)strtol(s + 1, NULL, 10) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    return py_layout(neg, digits, nd, ex, buf, size);
}


/* MARK: - floats */

/* Copies the n-byte text out into buf as snprintf would (at most size
 * bytes, NUL included); returns n. */
static size_t put_text(const char *out, size_t n, char *buf, size_t size)
{
    if (size) {
        size_t c = n < size ? n : size - 1;
        memcpy(buf, out, c);
        buf[c] = '\0';
    }
    return n;
}

/* Writes the decimal digits of u at p (no NUL); returns their count. */
static size_t put_u64(char *p, uint64_t u)
{
    char t[20];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    for (size_t i = 0; i < n; i++)
        p[i] = t[n - 1 - i];
    return n;
}

/* Python's layout of the significant digits d[0..nd) (no trailing zero
 * but the first) times 10^ex: fixed notation for -4 <= ex < 16, else
 * d[.ddd]e[+-]XX. */
static size_t py_layout(int neg, const char *digits, size_t nd, int ex,
                        char *buf, size_t size)
{
    char out[TLM_PY_FLOAT_MAX + 8];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    int decpt = ex + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -decpt; i++)
                out[o++] = '0';
            memcpy(out + o, digits, nd);
            o += nd;
        } else if ((size_t)decpt >= nd) {
            memcpy(out + o, digits, nd);
            o += nd;
            for (size_t i = nd; i < (size_t)decpt; i++)
                out[o++] = '0';
            out[o++] = '.';
            out[o++] = '0';
        } else {
            memcpy(out + o, digits, (size_t)decpt);
            o += (size_t)decpt;
            out[o++] = '.';
            memcpy(out + o, digits + decpt, nd - (size_t)decpt);
            o += nd - (size_t)decpt;
        }
    } else {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, nd - 1);
            o += nd - 1;
        }
        out[o++] = 'e';
        out[o++] = ex < 0 ? '-' : '+';
        unsigned ax = (unsigned)(ex < 0 ? -ex : ex);
        if (ax < 10)
            out[o++] = '0';
        o += put_u64(out + o, ax);
    }
    return put_text(out, o, buf, size);
}

#ifdef __SIZEOF_INT128__
/*
 * The fast exact path.  The reference (tlm_py_float_repr_ref) takes the
 * digits of "%.*e" at the least precision p whose text strtod reads back
 * as v, found by a binary search over p = 1..17.  The same search here,
 * with both steps done in integers: |v| = m 2^e is held exactly as
 * q + r / 2^k = |v| 10^s (q of nd >= 17 digits), "%.*e" at precision p is
 * q rounded to p digits (ties to an even digit, as glibc rounds an exact
 * decimal tie), and "strtod gives v back" is "the candidate lies inside
 * v's rounding interval" (half an ulp each side, a quarter below a power
 * of two; the ends belong to v when m is even, strtod's ties to even).
 * Doubles outside the range the 128-bit integers cover (|v| below about
 * 1e-6, subnormals, above 2^126) take the reference.
 */
__extension__ typedef unsigned __int128 tlm_u128;

/* 10^n for 0 <= n <= 38. */
static tlm_u128 p10(int n)
{
    static const uint64_t t[20] = {1ULL,
                                   10ULL,
                                   100ULL,
                                   1000ULL,
                                   10000ULL,
                                   100000ULL,
                                   1000000ULL,
                                   10000000ULL,
                                   100000000ULL,
                                   1000000000ULL,
                                   10000000000ULL,
                                   100000000000ULL,
                                   1000000000000ULL,
                                   10000000000000ULL,
                                   100000000000000ULL,
                                   1000000000000000ULL,
                                   10000000000000000ULL,
                                   100000000000000000ULL,
                                   1000000000000000000ULL,
                                   10000000000000000000ULL};
    return n < 20 ? t[n] : (tlm_u128)t[19] * t[n - 19];
}

/* |v| exactly: q + r / 2^k == |v| * 10^s (k == 0: r == 0), q of nd
 * digits; m, e: |v| == m 2^e; quarter: the lower neighbour is half an
 * ulp away (m a power of two). */
typedef struct xdec {
    tlm_u128 q, r;
    int k, nd, s, e;
    uint64_t m;
    int quarter;
} xdec;

/* Fills x for a finite a > 0; -1 where the 128-bit range does not
 * reach (the caller takes the reference). */
static int xdec_make(double a, xdec *x)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int be = (int)((bits >> 52) & 0x7ff);
    uint64_t frac = bits & ((1ULL << 52) - 1);
    if (be == 0 || be == 0x7ff)
        return -1;
    x->m = frac | (1ULL << 52);
    x->e = be - 1075;
    x->quarter = frac == 0 && be > 1;
    if (x->e >= 0) { /* an integer below 2^126 */
        if (x->e > 73)
            return -1;
        x->q = (tlm_u128)x->m << x->e;
        x->r = 0;
        x->k = x->s = 0;
        x->nd = 17;
        while (x->nd < 38 && x->q >= p10(x->nd))
            x->nd++;
        return x->q >= p10(16) ? 0 : -1;
    }
    x->k = -x->e;
    x->nd = 17;
    /* floor(log10 |v|) is E or E + 1 */
    int E = (int)floor((double)(x->e + 52) * 0.30102999566398120);
    x->s = 16 - E;
    for (int tries = 0; tries < 3; tries++) {
        if (x->s < 0 || x->s > 22 || x->k > 120)
            return -1;
        tlm_u128 A = (tlm_u128)x->m * p10(x->s);
        x->q = A >> x->k;
        x->r = A & (((tlm_u128)1 << x->k) - 1);
        if (x->q >= p10(17))
            x->s--;
        else if (x->q < p10(16))
            x->s++;
        else
            return 0;
    }
    return -1;
}

/* "%.*e" of |v| at p digits: its digits (*d, p of them) and exponent
 * (*ex); returns the candidate in q's units (d 10^(nd - p)). */
static tlm_u128 xdec_round(const xdec *x, int p, uint64_t *d, int *ex)
{
    int drop = x->nd - p;
    tlm_u128 div = p10(drop), t, rem;
    if (!(x->q >> 64)) { /* 64-bit division where it fits: faster */
        uint64_t q = (uint64_t)x->q, dv = (uint64_t)div;
        t = q / dv;
        rem = q % dv;
    } else {
        t = x->q / div;
        rem = x->q % div;
    }
    int up;
    if (drop == 0) {
        tlm_u128 half = x->k ? (tlm_u128)1 << (x->k - 1) : 0;
        up = x->k && (x->r > half || (x->r == half && (t & 1)));
    } else {
        tlm_u128 half = div / 2;
        up = rem > half || (rem == half && (x->r != 0 || (t & 1)));
    }
    t += (tlm_u128)up;
    int carry = t == p10(p);
    *d = (uint64_t)(carry ? p10(p - 1) : t);
    *ex = x->nd - 1 - x->s + carry;
    return t * div;
}

/* Whether strtod reads the candidate c (q's units) back as v. */
static int xdec_back(const xdec *x, tlm_u128 c)
{
    int below = c < x->q;
    tlm_u128 dl = below ? x->q - c : c - x->q, t, lim;
    if (x->k == 0) { /* |c - v| against 2^e / 2 (or / 4 below) */
        if (dl >= ((tlm_u128)1 << x->e))
            return 0;
        t = dl;
        lim = (tlm_u128)1 << x->e;
    } else { /* |c - v| 2^k against 10^s / 2 (or / 4 below) */
        if (dl > 64)
            return 0;
        tlm_u128 a = dl << x->k;
        if (below) {
            t = a + x->r;
        } else if (a >= x->r) {
            t = a - x->r;
        } else {
            t = x->r - a;
            below = 1;
        }
        lim = p10(x->s);
    }
    t <<= (below && x->quarter) ? 2 : 1;
    return t < lim || (t == lim && !(x->m & 1));
}

/* The shortest digits as the reference finds them; -1: out of range. */
static int fast_digits(double a, char *digits, size_t *nd, int *ex)
{
    xdec x;
    if (xdec_make(a, &x))
        return -1;
    int lo = 1, hi = 17;
    uint64_t d;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (xdec_back(&x, xdec_round(&x, mid, &d, ex)))
            hi = mid;
        else
            lo = mid + 1;
    }
    xdec_round(&x, lo, &d, ex);
    while (d % 10 == 0 && d >= 10)
        d /= 10;
    *nd = put_u64(digits, d);
    return 0;
}
#else
/* No 128-bit integers: every double takes the reference. */
static int fast_digits(double a, char *digits, size_t *nd, int *ex)
{
    (void)a, (void)digits, (void)nd, (void)ex;
    return -1;
}
#endif

size_t tlm_py_float_repr(double v, char *buf, size_t size)
{
    if (isnan(v))
        return put_text("nan", 3, buf, size);
    if (isinf(v))
        return v < 0 ? put_text("-inf", 4, buf, size)
                     : put_text("inf", 3, buf, size);
    if (v == 0.0)
        return signbit(v) ? put_text("-0.0", 4, buf, size)
                          : put_text("0.0", 3, buf, size);
    int neg = v < 0;
    double a = neg ? -v : v;
    char out[TLM_PY_FLOAT_MAX];
    if (a < 1e16 && a == floor(a)) { /* integral: "<int>.0" */
        size_t o = 0;
        if (neg)
            out[o++] = '-';
        o += put_u64(out + o, (uint64_t)a);
        out[o++] = '.';
        out[o++] = '0';
        return put_text(out, o, buf, size);
    }
    char digits[24];
    size_t nd;
    int ex;
    if (fast_digits(a, digits, &nd, &ex))
        return tlm_py_float_repr_ref(v, buf, size);
    return py_layout(neg, digits, nd, ex, buf, size);
}

void tlm_sbuf_pyfloat(tlm_sbuf *b, double v)
{
    char t[TLM_PY_FLOAT_MAX];
    size_t n = tlm_py_float_repr(v, t, sizeof t);
    tlm_sbuf_putn(b, t, n);
}

size_t tlm_py_str_repr(const char *s, size_t n, char *buf, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    int has_sq = memchr(s, '\'', n) != NULL;
    int has_dq = memchr(s, '"', n) != NULL;
    char q = (has_sq && !has_dq) ? '"' : '\'';
    size_t o = 0, room = size ? size - 1 : 0; /* the last byte: '\0' */
#define PUT_(c)                                                               \
    do {                                                                      \
        if (o < room)                                                         \
            buf[o] = (c);                                                     \
        o++;                                                                  \
    } while (0)
    PUT_(q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\') {
            PUT_('\\');
            PUT_((char)c);
        } else if (c == '\n' || c == '\r' || c == '\t') {
            PUT_('\\');
            PUT_(c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        } else if (c < 0x20 || c == 0x7f) {
            PUT_('\\');
            PUT_('x');
            PUT_(hex[c >> 4]);
            PUT_(hex[c & 15]);
        } else {
            PUT_((char)c);
        }
    }
    PUT_(q);
#undef PUT_
    if (size)
        buf[o < size ? o : size - 1] = '\0';
    return o;
}

void tlm_sbuf_pystr(tlm_sbuf *b, const char *s, size_t n)
{
    /* at most 4 bytes per input byte, 2 quotes */
    if (tlm_sbuf_reserve(b, 4 * n + 2))
        return;
    b->len += tlm_py_str_repr(s, n, b->p + b->len, b->cap - b->len);
}

typedef struct jcur {
    const char *s;
    size_t n, i;
    int depth;
} jcur;

static void jskip_ws(jcur *c)
{
    while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\n' ||
                           c->s[c->i] == '\t' || c->s[c->i] == '\r'))
        c->i++;
}

static int jstring(jcur *c, tlm_sbuf *tmp)
{
    if (c->i >= c->n || c->s[c->i] != '"')
        return -1;
    c->i++;
    while (c->i < c->n && c->s[c->i] != '"') {
        char ch = c->s[c->i++];
        if (ch != '\\') {
            tlm_sbuf_putc(tmp, ch);
            continue;
        }
        if (c->i >= c->n)
            return -1;
        ch = c->s[c->i++];
        switch (ch) {
        case 'n': tlm_sbuf_putc(tmp, '\n'); break;
        case 't': tlm_sbuf_putc(tmp, '\t'); break;
        case 'r': tlm_sbuf_putc(tmp, '\r'); break;
        case 'b': tlm_sbuf_putc(tmp, '\b'); break;
        case 'f': tlm_sbuf_putc(tmp, '\f'); break;
        case 'u': {
            if (c->i + 4 > c->n)
                return -1;
            unsigned cp = 0;
            for (int k = 0; k < 4; k++) {
                int h = tlm_hexval((unsigned char)c->s[c->i + (size_t)k]);
                if (h < 0)
                    return -1;
                cp = cp * 16 + (unsigned)h;
            }
            c->i += 4;
            if (cp < 0x80) {
                tlm_sbuf_putc(tmp, (char)cp);
            } else if (cp < 0x800) {
                tlm_sbuf_putc(tmp, (char)(0xC0 | (cp >> 6)));
                tlm_sbuf_putc(tmp, (char)(0x80 | (cp & 0x3F)));
            } else {
                tlm_sbuf_putc(tmp, (char)(0xE0 | (cp >> 12)));
                tlm_sbuf_putc(tmp, (char)(0x80 | ((cp >> 6) & 0x3F)));
                tlm_sbuf_putc(tmp, (char)(0x80 | (cp & 0x3F)));
            }
            break;
        }
        default: tlm_sbuf_putc(tmp, ch); break;
        }
    }
    if (c->i >= c->n)
        return -1;
    c->i++;
    return 0;
}

/* A JSON string at the cursor, appended as Python's repr of the str. */
static int jstring_repr(jcur *c, tlm_sbuf *b)
{
    tlm_sbuf tmp;
    tlm_sbuf_init(&tmp);
    if (jstring(c, &tmp)) {
        tlm_sbuf_free(&tmp);
        return -1;
    }
    if (tmp.oom)
        b->oom = 1;
    tlm_sbuf_pystr(b, tmp.p ? tmp.p : "", tmp.len);
    tlm_sbuf_free(&tmp);
    return 0;
}

static int jvalue(jcur *c, tlm_sbuf *b, int as_tuple)
{
    jskip_ws(c);
    if (c->i >= c->n || c->depth > 64)
        return -1;
    char ch = c->s[c->i];
    if (ch == '[' || ch == '{') {
        int obj = ch == '{';
        c->i++;
        c->depth++;
        tlm_sbuf_putc(b, obj ? '{' : (as_tuple ? '(' : '['));
        size_t count = 0;
        jskip_ws(c);
        if (c->i < c->n && c->s[c->i] == (obj ? '}' : ']')) {
            c->i++;
        } else {
            for (;;) {
                if (count)
                    tlm_sbuf_puts(b, ", ");
                if (obj) {
                    jskip_ws(c);
                    if (jstring_repr(c, b))
                        return -1;
                    jskip_ws(c);
                    if (c->i >= c->n || c->s[c->i] != ':')
                        return -1;
                    c->i++;
                    tlm_sbuf_puts(b, ": ");
                }
                if (jvalue(c, b, as_tuple))
                    return -1;
                count++;
                jskip_ws(c);
                if (c->i >= c->n)
                    return -1;
                if (c->s[c->i] == ',') {
                    c->i++;
                    continue;
                }
                if (c->s[c->i] == (obj ? '}' : ']')) {
                    c->i++;
                    break;
                }
                return -1;
            }
        }
        if (!obj && as_tuple && count == 1)
            tlm_sbuf_putc(b, ',');
        tlm_sbuf_putc(b, obj ? '}' : (as_tuple ? ')' : ']'));
        c->depth--;
        return 0;
    }
    if (ch == '"') {
        return jstring_repr(c, b);
    }
    if (c->n - c->i >= 4 && !strncmp(c->s + c->i, "true", 4)) {
        c->i += 4;
        tlm_sbuf_puts(b, "True");
        return 0;
    }
    if (c->n - c->i >= 5 && !strncmp(c->s + c->i, "false", 5)) {
        c->i += 5;
        tlm_sbuf_puts(b, "False");
        return 0;
    }
    if (c->n - c->i >= 4 && !strncmp(c->s + c->i, "null", 4)) {
        c->i += 4;
        tlm_sbuf_puts(b, "None");
        return 0;
    }
    size_t st = c->i;
    int isf = 0;
    while (c->i < c->n) {
        char d = c->s[c->i];
        if (d == '.' || d == 'e' || d == 'E')
            isf = 1;
        else if (!(d == '-' || d == '+' || (d >= '0' && d <= '9')))
            break;
        c->i++;
    }
    if (c->i == st)
        return -1;
    if (!isf) {
        tlm_sbuf_putn(b, c->s + st, c->i - st);
        return 0;
    }
    char num[64];
    size_t ln = c->i - st;
    if (ln >= sizeof num)
        return -1;
    memcpy(num, c->s + st, ln);
    num[ln] = '\0';
    tlm_sbuf_pyfloat(b, strtod(num, NULL));
    return 0;
}

int tlm_sbuf_json_pyrepr(tlm_sbuf *b, const char *json, size_t n,
                         int as_tuple)
{
    jcur c = {json, n, 0, 0};
    size_t mark = b->len;
    if (jvalue(&c, b, as_tuple)) {
        b->len = mark;
        if (b->p)
            b->p[mark] = '\0';
        return -1;
    }
    return 0;
}
