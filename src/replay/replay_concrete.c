/*
 * replay_concrete.c - the strict grammar of "Concrete Inputs" (spec
 * replay.md §10.3, rule S2):
 *   ""  |  integer -?[0-9]{1,19} fitting int64  |  a finite decimal float
 *   -?[0-9]*(.[0-9]*)?([eE][+-]?[0-9]+)? with a '.' or an exponent and
 *   at least one digit before the exponent  |  True | False
 *   |  "[" item (", " item)* "]" | "[]"
 * at most 4096 bytes.  Values become typed JSON (null, integers, floats
 * with a '.' or an exponent, true/false, arrays); the original text is
 * never passed on.  Python's float() is laxer (nan, inf, 1_0, spaces):
 * those are refused here.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pyrepr.h"
#include "replay_internal.h"

static int is_word(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    if (n != k)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != w[i])
            return 0;
    return 1;
}

static int nonfinite_word(const char *s, size_t n)
{
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        s++;
        n--;
    }
    return is_word(s, n, "nan") || is_word(s, n, "inf") ||
           is_word(s, n, "infinity");
}

/* -?[0-9]{1,19} fitting int64: 1 and *v. */
static int parse_int(const char *s, size_t n, int64_t *v)
{
    size_t i = s[0] == '-' ? 1 : 0;
    if (n - i < 1 || n - i > 19)
        return 0;
    uint64_t u = 0;
    for (size_t k = i; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        u = u * 10 + (uint64_t)(s[k] - '0'); /* 19 digits: no wrap */
    }
    if (i ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
        return 0;
    *v = i ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u)
           : (int64_t)u;
    return 1;
}

/* The float syntax (no strtod yet): 1 when s[0..n) matches it and has a
 * '.' or an exponent (digits alone are an integer, which must fit
 * int64). */
static int float_syntax(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (!memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n))
        return 0;
    if (i < n && s[i] == '-')
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        i++;
        digits++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e)
            return 0;
    }
    return i == n;
}

/* One scalar item (not a list). */
static tlm_replay_reason scalar(const char *s, size_t n, tlm_sbuf *out,
                                tlm_rp_value *v)
{
    if (n == 0)
        return TLM_RR_BAD_CONCRETE;
    if (n == 4 && memcmp(s, "True", 4) == 0) {
        v->kind = TLM_RPV_BOOL;
        v->i = 1;
        tlm_sbuf_puts(out, "true");
        return TLM_RR_OK;
    }
    if (n == 5 && memcmp(s, "False", 5) == 0) {
        v->kind = TLM_RPV_BOOL;
        v->i = 0;
        tlm_sbuf_puts(out, "false");
        return TLM_RR_OK;
    }
    if (nonfinite_word(s, n))
        return TLM_RR_NONFINITE;
    if (parse_int(s, n, &v->i)) {
        v->kind = TLM_RPV_INT;
        tlm_sbuf_printf(out, "%lld", (long long)v->i);
        return TLM_RR_OK;
    }
    if (n > 64 || !float_syntax(s, n))
        return TLM_RR_BAD_CONCRETE;
    char buf[72];
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double d = strtod(buf, &end);
    if (*end)
        return TLM_RR_BAD_CONCRETE;
    if (!isfinite(d))
        return TLM_RR_NONFINITE;
    char r[TLM_PY_FLOAT_MAX];
    tlm_py_float_repr(d, r, sizeof r);
    v->kind = TLM_RPV_FLOAT;
    v->f = d;
    tlm_sbuf_puts(out, r);
    if (!strpbrk(r, ".e"))
        tlm_sbuf_puts(out, ".0");
    return TLM_RR_OK;
}

static int64_t iabs_sat(int64_t x)
{
    return x == INT64_MIN ? INT64_MAX : (x < 0 ? -x : x);
}

static tlm_replay_reason list(const char *s, size_t n, tlm_sbuf *out,
                              tlm_rp_value *v)
{
    v->kind = TLM_RPV_LIST;
    v->n_items = 0;
    v->product = 1;
    v->max_abs = 0;
    tlm_sbuf_putc(out, '[');
    if (n == 2) {
        tlm_sbuf_putc(out, ']');
        return TLM_RR_OK;
    }
    size_t i = 1;
    for (;;) {
        size_t j = i;
        while (j < n - 1 && s[j] != ',')
            j++;
        tlm_rp_value it = {0};
        if (v->n_items)
            tlm_sbuf_putc(out, ',');
        tlm_replay_reason r = scalar(s + i, j - i, out, &it);
        if (r != TLM_RR_OK)
            return r;
        v->n_items++;
        if (it.kind == TLM_RPV_INT) {
            int64_t a = iabs_sat(it.i);
            v->product *= a ? (double)a : 1.0;
            if (a > v->max_abs)
                v->max_abs = a;
        }
        if (j == n - 1)
            break;
        if (j + 1 >= n - 1 || s[j + 1] != ' ')
            return TLM_RR_BAD_CONCRETE; /* items separated by ", " */
        i = j + 2;
    }
    tlm_sbuf_putc(out, ']');
    return TLM_RR_OK;
}

tlm_replay_reason tlm_rp_concrete(const char *s, size_t n, tlm_sbuf *out,
                                  tlm_rp_value *v)
{
    memset(v, 0, sizeof *v);
    if (n > TLM_RP_MAX_CONCRETE || memchr(s, '\0', n))
        return TLM_RR_BAD_CONCRETE;
    if (n == 0) {
        v->kind = TLM_RPV_EMPTY;
        tlm_sbuf_puts(out, "null");
        return TLM_RR_OK;
    }
    if (s[0] == '[') {
        if (n < 2 || s[n - 1] != ']')
            return TLM_RR_BAD_CONCRETE;
        return list(s, n, out, v);
    }
    tlm_replay_reason r = scalar(s, n, out, v);
    if (r == TLM_RR_OK && v->kind == TLM_RPV_INT)
        v->max_abs = iabs_sat(v->i);
    return r;
}
