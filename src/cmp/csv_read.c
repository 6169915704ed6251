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
 * Bounds (issue 33): at most TLM_CSV_MAX_COLS columns and
 * TLM_CSV_MAX_CELLS cells (rows x columns: the table is dense); reading
 * is linear in the file (the header's names fixed through a hash set).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"
#include "grow.h"
#include "sbuf.h"
#include "tlmpi/tlm_common.h"

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

/* The names seen while fixing a header: "all" (a name some column has
 * or had: a name never stops being taken, see fix_names), "early" (the
 * name of a column already fixed), "next" (the first suffix not yet
 * tried for repeats of this name).  Open addressing, keys copied, sized
 * once for the 3 names per column it can hold. */
typedef struct name_ent {
    char *key;
    uint8_t all, early;
    unsigned next;
} name_ent;

typedef struct name_set {
    name_ent *e;
    size_t cap;
} name_set;

/* The entry of k (new and zeroed when absent), or NULL on ENOMEM. */
static name_ent *name_get(name_set *m, const char *k)
{
    size_t l = strlen(k);
    size_t i = (size_t)tlm_hash64(k, l) & (m->cap - 1);
    while (m->e[i].key && strcmp(m->e[i].key, k))
        i = (i + 1) & (m->cap - 1);
    if (!m->e[i].key && !(m->e[i].key = strdup(k)))
        return NULL;
    return &m->e[i];
}

static int set_name(strv *s, size_t i, const char *name)
{
    char *c = strdup(name);
    if (!c)
        return -1;
    free(s->v[i]);
    s->v[i] = c;
    return 0;
}

/* Column i, a repeat of an earlier name x: the first "x.k" (k from 1)
 * that no column has; as the names taken only grow, the next repeat of
 * x starts where this search ended (linear in the columns). */
static int rename_repeat(strv *s, size_t i, name_set *m, name_ent *base)
{
    size_t l = strlen(s->v[i]) + 24;
    char *c = malloc(l);
    if (!c)
        return -1;
    name_ent *ce = NULL;
    unsigned k = base->next ? base->next : 1;
    for (;; k++) {
        snprintf(c, l, "%s.%u", s->v[i], k);
        if (!(ce = name_get(m, c)) || !ce->all)
            break;
    }
    base->next = k + 1;
    if (ce) {
        ce->all = ce->early = 1;
        free(s->v[i]);
        s->v[i] = c;
        return 0;
    }
    free(c);
    return -1;
}

/* pandas' names: "" -> "Unnamed: i"; a repeat of x -> "x.1", "x.2" ...
 * (a suffix no column of the header has).  A name once held by a column
 * stays held (a renamed repeat's earlier twin keeps it), so "taken" never
 * goes back: one pass with a hash set. */
static int fix_names(strv *s)
{
    char buf[64];
    name_set m = {NULL, 16};
    while (m.cap < 8 * s->n + 8)
        m.cap *= 2;
    if (!(m.e = calloc(m.cap, sizeof *m.e)))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < s->n && !rc; i++) {
        name_ent *e = name_get(&m, s->v[i]);
        if (!e)
            rc = -1;
        else
            e->all = 1;
    }
    for (size_t i = 0; i < s->n && !rc; i++) {
        if (!s->v[i][0]) {
            snprintf(buf, sizeof buf, "Unnamed: %zu", i);
            if ((rc = set_name(s, i, buf)) != 0)
                break;
        }
        name_ent *e = name_get(&m, s->v[i]);
        if (!e) {
            rc = -1;
            break;
        }
        e->all = 1;
        if (!e->early)
            e->early = 1;
        else
            rc = rename_repeat(s, i, &m, e);
    }
    for (size_t i = 0; i < m.cap; i++)
        free(m.e[i].key);
    free(m.e);
    return rc;
}

/* MARK: - parse --------------------------------------------------------- */

static tlm_status read_header(csv_lex *lx, strv *names, const char *label,
                              tlm_error *err)
{
    int r;
    lx->eol = 0;
    while (!lx->eol && (r = next_field(lx)) == 1) {
        if (names->n >= TLM_CSV_MAX_COLS)
            return tlm_error_set(err, TLM_ELIMIT, label, -1,
                                 "the header has more than %d columns "
                                 "(tlmpi's bound for a CSV sheet)",
                                 TLM_CSV_MAX_COLS);
        if (strv_push(names, lx->field.p, lx->field.len) != 0)
            return tlm_error_set(err, TLM_ENOMEM, label, -1,
                                 "reading the header: out of memory");
    }
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
        if (t->ncols && t->nrows >= TLM_CSV_MAX_CELLS / t->ncols)
            return tlm_error_set(err, TLM_ELIMIT, label, off,
                                 "line %zu: more than %zu rows of %zu "
                                 "columns (tlmpi's bound: %d cells in a "
                                 "CSV sheet)", line, t->nrows, t->ncols,
                                 TLM_CSV_MAX_CELLS);
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
