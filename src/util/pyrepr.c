/*
 * pyrepr.c - Python's text for values, as pandas writes them into CSV
 * cells (TraceLens's sheets, [perfreport] §4.13):
 * floats as repr() (shortest round-trip digits, exponent form below 1e-4
 * and from 1e16, "nan", "inf"), str as repr() (quotes chosen as Python
 * does), and compact JSON text as the repr of the Python value json.loads
 * would give (arrays as tuples or lists, true/false/null as
 * True/False/None).
 */
#include <math.h>
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

size_t tlm_py_float_repr(double v, char *buf, size_t size)
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
    char out[TLM_PY_FLOAT_MAX];
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
        out[o] = '\0';
    } else {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, nd - 1);
            o += nd - 1;
        }
        snprintf(out + o, sizeof out - o, "e%c%02d", ex < 0 ? '-' : '+',
                 ex < 0 ? -ex : ex);
    }
    return (size_t)snprintf(buf, size, "%s", out);
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
    size_t o = 0;
#define PUT_(c)                                                               \
    do {                                                                      \
        if (o + 1 < size)                                                     \
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
