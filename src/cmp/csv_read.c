/*
 * csv_read.c - a report's CSV sheet as pandas.read_csv (defaults) sees it:
 * comma separated, '"' quoting with doubled quotes, fields that span
 * lines inside quotes, "\n" or "\r\n" line ends, a leading UTF-8 BOM
 * dropped, blank lines skipped, the first row the header (an empty name
 * becomes "Unnamed: i", a repeated one "x.1", "x.2" ...).  A file with no
 * header at all (0 bytes, only blank lines) is a table with no columns;
 * a row with fewer fields than the header is padded with missing cells,
 * one with more is an error (pandas: "Expected N fields").  Fields stay
 * text (TLM_RAW_TEXT): typing is tlm_rawtab_to_tab's (compare.md §2.2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"
#include "grow.h"
#include "sbuf.h"

/* MARK: - the tokenizer ------------------------------------------------- */

typedef struct csv_lex {
    const char *p, *end, *base;
    size_t line;      /* 1-based line of p */
    tlm_sbuf field;   /* the current field, unquoted */
    int eol;          /* the last field ended its record */
} csv_lex;

/* Reads one field into lx->field.  Returns 1, 0 at the end of input, -1
 * on an unterminated quote. */
static int next_field(csv_lex *lx)
{
    tlm_sbuf_reset(&lx->field);
    const char *p = lx->p;
    if (p >= lx->end)
        return 0;
    int quoted = 0;
    for (;;) {
        if (p >= lx->end) {
            if (quoted == 1)
                return -1;
            lx->eol = 1;
            break;
        }
        char c = *p;
        if (quoted == 1) {
            if (c == '"') {
                if (p + 1 < lx->end && p[1] == '"') {
                    tlm_sbuf_putc(&lx->field, '"');
                    p += 2;
                    continue;
                }
                quoted = 2;
                p++;
                continue;
            }
            if (c == '\n')
                lx->line++;
            tlm_sbuf_putc(&lx->field, c);
            p++;
            continue;
        }
        if (c == ',') {
            p++;
            lx->eol = 0;
            break;
        }
        if (c == '\n' || c == '\r') {
            p += (c == '\r' && p + 1 < lx->end && p[1] == '\n') ? 2 : 1;
            lx->line++;
            lx->eol = 1;
            break;
        }
        if (c == '"' && quoted == 0 && lx->field.len == 0) {
            quoted = 1;
            p++;
            continue;
        }
        tlm_sbuf_putc(&lx->field, c); /* text after a closing quote too */
        p++;
    }
    lx->p = p;
    return 1;
}

/* Skips blank lines before a record. */
static void skip_blank(csv_lex *lx)
{
    while (lx->p < lx->end && (*lx->p == '\n' || *lx->p == '\r')) {
        if (*lx->p == '\n')
            lx->line++;
        else if (lx->p + 1 >= lx->end || lx->p[1] != '\n')
            lx->line++;
        lx->p++;
    }
}

/* MARK: - header --------------------------------------------------------- */

typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static int strv_push(strv *s, const char *x, size_t n)
{
    if (tlm_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, 16))
        return -1;
    char *c = malloc(n + 1);
    if (!c)
        return -1;
    if (n)
        memcpy(c, x, n);
    c[n] = '\0';
    s->v[s->n++] = c;
    return 0;
}

static void strv_free(strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static int name_taken(const strv *s, size_t upto, const char *name)
{
    for (size_t i = 0; i < upto; i++)
        if (!strcmp(s->v[i], name))
            return 1;
    return 0;
}

/* pandas' names: "" -> "Unnamed: i"; a repeat of x -> "x.1", "x.2" ... */
static int fix_names(strv *s)
{
    char buf[64];
    for (size_t i = 0; i < s->n; i++) {
        if (!s->v[i][0]) {
            snprintf(buf, sizeof buf, "Unnamed: %zu", i);
            char *c = strdup(buf);
            if (!c)
                return -1;
            free(s->v[i]);
            s->v[i] = c;
        }
        if (!name_taken(s, i, s->v[i]))
            continue;
        size_t l = strlen(s->v[i]);
        char *c = malloc(l + 24);
        if (!c)
            return -1;
        for (unsigned k = 1;; k++) {
            snprintf(c, l + 24, "%s.%u", s->v[i], k);
            if (!name_taken(s, s->n, c))
                break;
        }
        free(s->v[i]);
        s->v[i] = c;
    }
    return 0;
}

/* MARK: - parse --------------------------------------------------------- */

static tlm_status read_header(csv_lex *lx, strv *names, const char *label,
                              tlm_error *err)
{
    int r;
    lx->eol = 0;
    while (!lx->eol && (r = next_field(lx)) == 1)
        if (strv_push(names, lx->field.p, lx->field.len) != 0)
            return tlm_error_set(err, TLM_ENOMEM, label, -1,
                                 "reading the header: out of memory");
    if (lx->field.oom)
        return tlm_error_set(err, TLM_ENOMEM, label, -1,
                             "reading the header: out of memory");
    if (names->n && fix_names(names) != 0)
        return tlm_error_set(err, TLM_ENOMEM, label, -1, "out of memory");
    return TLM_OK;
}

static tlm_status read_rows(csv_lex *lx, tlm_rawtab *t, const char *label,
                            tlm_error *err)
{
    for (;;) {
        skip_blank(lx);
        if (lx->p >= lx->end)
            return TLM_OK;
        size_t line = lx->line;
        int64_t off = (int64_t)(lx->p - lx->base);
        long row = tlm_rawtab_add_row(t);
        if (row < 0)
            return tlm_error_set(err, TLM_ENOMEM, label, off, "out of memory");
        size_t col = 0;
        lx->eol = 0;
        while (!lx->eol) {
            int r = next_field(lx);
            if (r < 0)
                return tlm_error_set(err, TLM_EFORMAT, label, off,
                                     "line %zu: a quoted field is not "
                                     "closed", line);
            if (r == 0)
                break;
            if (col >= t->ncols)
                return tlm_error_set(err, TLM_EFORMAT, label, off,
                                     "line %zu: expected %zu fields, saw "
                                     "more", line, t->ncols);
            if (lx->field.len)
                tlm_rawtab_set_text(t, (size_t)row, col, lx->field.p,
                                    lx->field.len);
            col++;
        }
        if (t->oom || lx->field.oom)
            return tlm_error_set(err, TLM_ENOMEM, label, off, "out of memory");
    }
}

tlm_status tlm_csv_parse(const char *buf, size_t n, const char *label,
                         tlm_rawtab **out, tlm_error *err)
{
    *out = NULL;
    csv_lex lx = {.p = buf, .end = buf + n, .base = buf, .line = 1};
    if (n >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
        lx.p += 3;
    tlm_sbuf_init(&lx.field);
    strv names = {0};
    skip_blank(&lx);
    tlm_status st = read_header(&lx, &names, label, err);
    tlm_rawtab *t = NULL;
    if (st == TLM_OK) {
        t = tlm_rawtab_new(names.n, (const char *const *)names.v);
        if (!t)
            st = tlm_error_set(err, TLM_ENOMEM, label, -1, "out of memory");
    }
    if (st == TLM_OK)
        st = read_rows(&lx, t, label, err);
    tlm_sbuf_free(&lx.field);
    strv_free(&names);
    if (st != TLM_OK) {
        tlm_rawtab_free(t);
        return st;
    }
    *out = t;
    return TLM_OK;
}

tlm_status tlm_csv_read(const char *path, tlm_rawtab **out, tlm_error *err)
{
    *out = NULL;
    FILE *f;
    tlm_status ost = tlm_fopen_input(path, &f, err);
    if (ost != TLM_OK)
        return ost;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
        tlm_sbuf_putn(&b, chunk, k);
    int rerr = ferror(f);
    fclose(f);
    tlm_status st;
    if (rerr)
        st = tlm_error_set(err, TLM_EIO, path, -1, "read error");
    else if (b.oom)
        st = tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    else
        st = tlm_csv_parse(b.p ? b.p : "", b.len, path, out, err);
    tlm_sbuf_free(&b);
    return st;
}
