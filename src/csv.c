/*
 * csv.c - the report's in-memory tables and their CSV form.
 *
 * TraceLens writes every sheet with pandas' DataFrame.to_csv(index=False):
 * comma separated, minimal quoting (a field containing ',', '"', '\r' or
 * '\n' is quoted, quotes doubled), "\n" line ends, floats as Python's repr
 * (shortest round-trip digits, exponent form below 1e-4 and from 1e16),
 * NaN/None as an empty field, booleans as True/False, list/tuple cells as
 * their Python repr (spec/perfreport.md §4.13).  This module reproduces
 * that formatting: tlm_sbuf_pyfloat, tlm_sbuf_pystr and
 * tlm_sbuf_json_pyrepr turn values into Python's text, tlm_tab holds the
 * typed cells and tlm_tab_write_csv writes them.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* MARK: - string buffer -------------------------------------------------- */

void tlm_sbuf_init(tlm_sbuf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void tlm_sbuf_free(tlm_sbuf *b)
{
    free(b->p);
    tlm_sbuf_init(b);
}

void tlm_sbuf_reset(tlm_sbuf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

static int sbuf_reserve(tlm_sbuf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void tlm_sbuf_putn(tlm_sbuf *b, const char *s, size_t n)
{
    if (sbuf_reserve(b, n))
        return;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void tlm_sbuf_puts(tlm_sbuf *b, const char *s)
{
    tlm_sbuf_putn(b, s, strlen(s));
}

void tlm_sbuf_putc(tlm_sbuf *b, char c)
{
    tlm_sbuf_putn(b, &c, 1);
}

void tlm_sbuf_printf(tlm_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        tlm_sbuf_putn(b, small, (size_t)n);
        return;
    }
    if (sbuf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* MARK: - Python repr ---------------------------------------------------- */

void tlm_sbuf_pyfloat(tlm_sbuf *b, double v)
{
    if (isnan(v)) {
        tlm_sbuf_puts(b, "nan");
        return;
    }
    if (isinf(v)) {
        tlm_sbuf_puts(b, v < 0 ? "-inf" : "inf");
        return;
    }
    /* shortest precision that round-trips; round-tripping is monotone in
     * the precision, so binary search over 1..17 digits */
    char buf[40];
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(buf, sizeof buf, "%.*e", mid - 1, v);
        if (strtod(buf, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(buf, sizeof buf, "%.*e", lo - 1, v);
    /* buf: [-]d[.ddd]e[+-]xx */
    char digits[24];
    size_t nd = 0;
    const char *s = buf;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && nd < sizeof digits - 1)
            digits[nd++] = *s;
    int ex = (*s == 'e') ? (int)strtol(s + 1, NULL, 10) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    if (neg)
        tlm_sbuf_putc(b, '-');
    int decpt = ex + 1;
    if (v == 0.0) {
        tlm_sbuf_puts(b, "0.0");
        return;
    }
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            tlm_sbuf_puts(b, "0.");
            for (int i = 0; i < -decpt; i++)
                tlm_sbuf_putc(b, '0');
            tlm_sbuf_putn(b, digits, nd);
        } else if ((size_t)decpt >= nd) {
            tlm_sbuf_putn(b, digits, nd);
            for (size_t i = nd; i < (size_t)decpt; i++)
                tlm_sbuf_putc(b, '0');
            tlm_sbuf_puts(b, ".0");
        } else {
            tlm_sbuf_putn(b, digits, (size_t)decpt);
            tlm_sbuf_putc(b, '.');
            tlm_sbuf_putn(b, digits + decpt, nd - (size_t)decpt);
        }
    } else {
        tlm_sbuf_putc(b, digits[0]);
        if (nd > 1) {
            tlm_sbuf_putc(b, '.');
            tlm_sbuf_putn(b, digits + 1, nd - 1);
        }
        tlm_sbuf_printf(b, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
    }
}

void tlm_sbuf_pystr(tlm_sbuf *b, const char *s, size_t n)
{
    int has_sq = memchr(s, '\'', n) != NULL;
    int has_dq = memchr(s, '"', n) != NULL;
    char q = (has_sq && !has_dq) ? '"' : '\'';
    tlm_sbuf_putc(b, q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\') {
            tlm_sbuf_putc(b, '\\');
            tlm_sbuf_putc(b, (char)c);
        } else if (c == '\n') {
            tlm_sbuf_puts(b, "\\n");
        } else if (c == '\r') {
            tlm_sbuf_puts(b, "\\r");
        } else if (c == '\t') {
            tlm_sbuf_puts(b, "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            tlm_sbuf_printf(b, "\\x%02x", c);
        } else {
            tlm_sbuf_putc(b, (char)c);
        }
    }
    tlm_sbuf_putc(b, q);
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

static int hexval(char h)
{
    if (h >= '0' && h <= '9')
        return h - '0';
    if (h >= 'a' && h <= 'f')
        return h - 'a' + 10;
    if (h >= 'A' && h <= 'F')
        return h - 'A' + 10;
    return -1;
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
                int h = hexval(c->s[c->i + (size_t)k]);
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

/* MARK: - tables --------------------------------------------------------- */

struct tlm_tab_text {
    tlm_tab_text *next;
    size_t used, cap;
    char data[];
};

tlm_tab *tlm_tab_new(const char *name, size_t ncols,
                     const char *const *colnames, const tlm_coltype *types)
{
    tlm_tab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ncols = ncols;
    t->colnames = calloc(ncols ? ncols : 1, sizeof *t->colnames);
    t->coltypes = calloc(ncols ? ncols : 1, sizeof *t->coltypes);
    if (!t->colnames || !t->coltypes)
        goto fail;
    for (size_t i = 0; i < ncols; i++) {
        size_t l = strlen(colnames[i]);
        t->colnames[i] = malloc(l + 1);
        if (!t->colnames[i])
            goto fail;
        memcpy(t->colnames[i], colnames[i], l + 1);
        t->coltypes[i] = types ? types[i] : TLM_COL_F64;
    }
    return t;
fail:
    tlm_tab_free(t);
    return NULL;
}

void tlm_tab_free(tlm_tab *t)
{
    if (!t)
        return;
    if (t->colnames)
        for (size_t i = 0; i < t->ncols; i++)
            free(t->colnames[i]);
    free(t->colnames);
    free(t->coltypes);
    free(t->cells);
    tlm_tab_text *x = t->text;
    while (x) {
        tlm_tab_text *nx = x->next;
        free(x);
        x = nx;
    }
    free(t);
}

long tlm_tab_add_row(tlm_tab *t)
{
    if (t->nrows == t->cap_rows) {
        size_t cap = t->cap_rows ? t->cap_rows * 2 : 16;
        tlm_cell *c = realloc(t->cells, cap * (t->ncols ? t->ncols : 1) *
                                            sizeof *c);
        if (!c) {
            t->oom = 1;
            return -1;
        }
        t->cells = c;
        t->cap_rows = cap;
    }
    size_t r = t->nrows++;
    for (size_t i = 0; i < t->ncols; i++) {
        tlm_cell *c = &t->cells[r * t->ncols + i];
        memset(c, 0, sizeof *c);
        c->null = 1;
    }
    return (long)r;
}

tlm_cell *tlm_tab_cell(const tlm_tab *t, size_t row, size_t col)
{
    return &t->cells[row * t->ncols + col];
}

void tlm_tab_set_f(tlm_tab *t, size_t row, size_t col, double v)
{
    tlm_cell *c = tlm_tab_cell(t, row, col);
    c->v.f = v;
    c->null = isnan(v) ? 1 : 0;
}

void tlm_tab_set_i(tlm_tab *t, size_t row, size_t col, int64_t v)
{
    tlm_cell *c = tlm_tab_cell(t, row, col);
    c->v.i = v;
    c->null = 0;
}

void tlm_tab_set_b(tlm_tab *t, size_t row, size_t col, int v)
{
    tlm_cell *c = tlm_tab_cell(t, row, col);
    c->v.i = v ? 1 : 0;
    c->null = 0;
}

void tlm_tab_set_null(tlm_tab *t, size_t row, size_t col)
{
    tlm_tab_cell(t, row, col)->null = 1;
}

static char *tab_text(tlm_tab *t, size_t n)
{
    tlm_tab_text *x = t->text;
    if (!x || x->cap - x->used < n + 1) {
        size_t cap = n + 1 > 65536 ? n + 1 : 65536;
        tlm_tab_text *nx = malloc(sizeof *nx + cap);
        if (!nx) {
            t->oom = 1;
            return NULL;
        }
        nx->next = t->text;
        nx->used = 0;
        nx->cap = cap;
        t->text = nx;
        x = nx;
    }
    char *p = x->data + x->used;
    x->used += n + 1;
    return p;
}

void tlm_tab_set_s(tlm_tab *t, size_t row, size_t col, const char *s,
                   size_t n)
{
    tlm_cell *c = tlm_tab_cell(t, row, col);
    char *p = tab_text(t, n);
    if (!p) {
        c->null = 1;
        return;
    }
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    c->v.s = p;
    c->null = 0;
}

long tlm_tab_col(const tlm_tab *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->colnames[i], name))
            return (long)i;
    return -1;
}

tlm_status tlm_tab_permute(tlm_tab *t, const size_t *perm)
{
    if (t->nrows < 2)
        return TLM_OK;
    tlm_cell *c = malloc(t->nrows * t->ncols * sizeof *c);
    if (!c)
        return TLM_ENOMEM;
    for (size_t i = 0; i < t->nrows; i++)
        memcpy(c + i * t->ncols, t->cells + perm[i] * t->ncols,
               t->ncols * sizeof *c);
    free(t->cells);
    t->cells = c;
    t->cap_rows = t->nrows;
    return TLM_OK;
}

void tlm_tab_truncate(tlm_tab *t, size_t n)
{
    if (n < t->nrows)
        t->nrows = n;
}

/* MARK: - CSV ------------------------------------------------------------ */

static void csv_field(tlm_sbuf *b, const char *s, size_t n)
{
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') {
            q = 1;
            break;
        }
    if (!q) {
        tlm_sbuf_putn(b, s, n);
        return;
    }
    tlm_sbuf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            tlm_sbuf_putc(b, '"');
        tlm_sbuf_putc(b, s[i]);
    }
    tlm_sbuf_putc(b, '"');
}

static void csv_row(const tlm_tab *t, size_t r, tlm_sbuf *b)
{
    for (size_t j = 0; j < t->ncols; j++) {
        if (j)
            tlm_sbuf_putc(b, ',');
        const tlm_cell *c = tlm_tab_cell(t, r, j);
        if (c->null)
            continue;
        switch (t->coltypes[j]) {
        case TLM_COL_F64:
            tlm_sbuf_pyfloat(b, c->v.f);
            break;
        case TLM_COL_I64:
            tlm_sbuf_printf(b, "%lld", (long long)c->v.i);
            break;
        case TLM_COL_BOOL:
            tlm_sbuf_puts(b, c->v.i ? "True" : "False");
            break;
        case TLM_COL_STR:
            csv_field(b, c->v.s, strlen(c->v.s));
            break;
        }
    }
    tlm_sbuf_putc(b, '\n');
}

static void csv_header(const tlm_tab *t, tlm_sbuf *b)
{
    for (size_t j = 0; j < t->ncols; j++) {
        if (j)
            tlm_sbuf_putc(b, ',');
        csv_field(b, t->colnames[j], strlen(t->colnames[j]));
    }
    tlm_sbuf_putc(b, '\n');
}

void tlm_tab_csv_sbuf(const tlm_tab *t, tlm_sbuf *b)
{
    csv_header(t, b);
    for (size_t r = 0; r < t->nrows; r++)
        csv_row(t, r, b);
}

tlm_status tlm_tab_write_csv(const tlm_tab *t, const char *path,
                             tlm_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot create: %s",
                             strerror(errno));
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    csv_header(t, &b);
    int ok = 1, oom = 0, io_errno = 0;
    for (size_t r = 0; r < t->nrows && ok; r++) {
        csv_row(t, r, &b);
        if (b.len > (1u << 20) || r + 1 == t->nrows) {
            if (b.oom) {
                ok = 0;
                oom = 1;
            } else if (fwrite(b.p, 1, b.len, f) != b.len) {
                ok = 0;
                io_errno = errno;
            }
            tlm_sbuf_reset(&b);
        }
    }
    if (ok && b.oom) {
        ok = 0;
        oom = 1;
    } else if (ok && b.len && fwrite(b.p, 1, b.len, f) != b.len) {
        ok = 0;
        io_errno = errno;
    }
    tlm_sbuf_free(&b);
    if (fclose(f) != 0 && ok) {
        ok = 0;
        io_errno = errno;
    }
    if (oom)
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "writing table %s: out of memory", t->name);
    if (!ok)
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "writing table %s failed: %s", t->name,
                             strerror(io_errno ? io_errno : EIO));
    return TLM_OK;
}
