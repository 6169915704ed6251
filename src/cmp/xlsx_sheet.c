/*
 * xlsx_sheet.c - one worksheet part into a raw table (xlsx_read.h), as
 * openpyxl reads it and pandas' read_excel keeps it:
 *
 * - cells are placed by their reference (r="C5"), or after the previous
 *   cell / row when the reference is absent; a later cell at the same
 *   place wins;
 * - the grid starts at A1; row 1 is the header; the data rows run to the
 *   last row that holds a value (pandas trims trailing blank rows and
 *   keeps blank rows inside the data: read_excel passes
 *   skip_blank_lines=False); the width is the last column holding a
 *   value in any row;
 * - numbers: openpyxl reads text with '.', 'e' or 'E' as float, else as
 *   int; pandas then turns an integral float into an int: a number whose
 *   value is integral and fits int64 is TLM_RAW_INT, others TLM_RAW_NUM;
 * - t="s" (shared), t="inlineStr" (<is>, runs concatenated), t="str"
 *   (formula result) and t="d" are strings; an empty string is an empty
 *   cell (pandas: NaN); t="b" is a boolean; t="e" (#N/A, #DIV/0!) is
 *   missing (pandas' openpyxl reader gives NaN for error cells);
 * - header names: text as is, numbers and booleans as Python's str(),
 *   empty as "Unnamed: <i>", duplicates mangled to x.1, x.2 as pandas'
 *   dedup does.
 * Bounds: references within Excel's grid (XFD1048576); the dense table
 * at most 16 cells per stored value plus 2^20; the string cells'
 * texts at most TLM_XLSX_MAX_TEXT bytes, a shared string counted once
 * per cell that uses it (a cell references it, never copies it: one 4 MiB
 * string in 3,000 cells is refused after 64 cells, not copied 3,000
 * times).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "pyrepr.h"
#include "xlsx_internal.h"

enum { COL_MAX = 16384, ROW_MAX = 1048576 };
enum { T_NUM, T_SST, T_STR, T_INLINE, T_BOOL, T_ERR };

typedef struct rec {
    uint32_t row, col; /* 1-based */
    uint8_t kind;      /* tlm_rawkind */
    uint8_t shared;    /* TLM_RAW_STR: off, len in the shared strings */
    union {
        double f;
        int64_t i;
        int b;
    } v;
    size_t off, len; /* TLM_RAW_STR: in text (or the shared strings) */
} rec;

typedef struct sheet_state {
    tlm_xml xs; /* first */
    int in_data, in_v, in_is, in_t, in_rph;
    uint32_t row, col; /* current row; last cell's column */
    uint32_t crow, ccol;
    int ctype, in_cell;
    tlm_sbuf val; /* <v> or the inline string of the current cell */
    tlm_sbuf text; /* the texts of string cells but shared ones */
    size_t text_total; /* bytes of every string cell, shared ones too */
    rec *v;
    size_t n, cap;
} sheet_state;

/* "C5" -> col 3, row 5; 0 when not a reference. */
static int parse_ref(const char *s, uint32_t *row, uint32_t *col)
{
    uint32_t c = 0, r = 0;
    size_t nl = 0, nd = 0;
    for (; *s >= 'A' && *s <= 'Z'; s++, nl++)
        if ((c = c * 26 + (uint32_t)(*s - 'A' + 1)) > COL_MAX)
            return 0;
    for (; *s >= '0' && *s <= '9'; s++, nd++)
        if ((r = r * 10 + (uint32_t)(*s - '0')) > ROW_MAX)
            return 0;
    if (*s || !nl || !nd || !r)
        return 0;
    *row = r;
    *col = c;
    return 1;
}

static int parse_row(const char *s, uint32_t *row)
{
    uint32_t r = 0;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9' || (r = r * 10 + (uint32_t)(*s - '0')) >
                                        ROW_MAX)
            return 0;
    *row = r;
    return r > 0;
}

static int cell_type(const char *t)
{
    if (!t || !strcmp(t, "n"))
        return T_NUM;
    if (!strcmp(t, "s"))
        return T_SST;
    if (!strcmp(t, "inlineStr"))
        return T_INLINE;
    if (!strcmp(t, "b"))
        return T_BOOL;
    if (!strcmp(t, "e"))
        return T_ERR;
    return T_STR; /* str, d */
}

static void cell_start(sheet_state *s, const XML_Char **atts)
{
    const char *r = tlm_xml_attr(atts, NULL, "r");
    uint32_t row = s->row, col = s->col + 1;
    if (r && !parse_ref(r, &row, &col)) {
        tlm_xml_fail(&s->xs, TLM_EFORMAT, "bad cell reference '%.40s'", r);
        return;
    }
    if (!r && (col > COL_MAX || row == 0)) {
        tlm_xml_fail(&s->xs, TLM_EFORMAT, "cell outside the grid");
        return;
    }
    s->crow = row;
    s->ccol = col;
    s->col = col;
    s->ctype = cell_type(tlm_xml_attr(atts, NULL, "t"));
    s->in_cell = 1;
    tlm_sbuf_reset(&s->val);
}

static void sheet_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    sheet_state *s = ud;
    if (tlm_xml_enter(&s->xs))
        return;
    const char *l = tlm_xml_local(name);
    if (!strcmp(l, "sheetData")) {
        s->in_data = 1;
    } else if (!s->in_data) {
        return;
    } else if (!strcmp(l, "row")) {
        const char *r = tlm_xml_attr(atts, NULL, "r");
        uint32_t row = s->row + 1;
        if ((r && !parse_row(r, &row)) || row > ROW_MAX) {
            tlm_xml_fail(&s->xs, TLM_EFORMAT, "bad row number '%.40s'",
                         r ? r : "");
            return;
        }
        s->row = row;
        s->col = 0;
    } else if (!strcmp(l, "c")) {
        cell_start(s, atts);
    } else if (s->in_cell && !strcmp(l, "v")) {
        s->in_v = 1;
    } else if (s->in_cell && !strcmp(l, "is")) {
        s->in_is = 1;
    } else if (s->in_is && !strcmp(l, "rPh")) {
        s->in_rph = 1;
    } else if (s->in_is && !s->in_rph && !strcmp(l, "t")) {
        s->in_t = 1;
    }
}

static void sheet_chars(void *ud, const XML_Char *t, int n)
{
    sheet_state *s = ud;
    if (s->in_v || s->in_t)
        tlm_sbuf_putn(&s->val, t, (size_t)n);
}

static rec *new_rec(sheet_state *s)
{
    if (tlm_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, 256)) {
        tlm_xml_fail(&s->xs, TLM_ENOMEM, "out of memory");
        return NULL;
    }
    rec *r = &s->v[s->n++];
    memset(r, 0, sizeof *r);
    r->row = s->crow;
    r->col = s->ccol;
    return r;
}

/* A string cell of n more bytes: within the sheet's bound on its texts
 * (a shared string counts once per cell that uses it), 0 or -1. */
static int text_bound(sheet_state *s, size_t n)
{
    if (n <= TLM_XLSX_MAX_TEXT - s->text_total) {
        s->text_total += n;
        return 0;
    }
    tlm_xml_fail(&s->xs, TLM_ELIMIT, "its string cells add up to more "
                 "than %zu bytes (tlmpi's bound for a sheet; a shared "
                 "string of %zu bytes used by many cells?)",
                 (size_t)TLM_XLSX_MAX_TEXT, n);
    return -1;
}

/* A shared string cell: a reference to string i, not a copy. */
static void add_shared(sheet_state *s, size_t i)
{
    tlm_xlsx *x = s->xs.x;
    if (!x->sst_len[i] || text_bound(s, x->sst_len[i]))
        return; /* an empty string: missing */
    rec *r = new_rec(s);
    if (!r)
        return;
    r->kind = TLM_RAW_STR;
    r->shared = 1;
    r->off = x->sst_off[i];
    r->len = x->sst_len[i];
}

/* The text of a TLM_RAW_STR record. */
static const char *rec_text(const sheet_state *s, const rec *r)
{
    const tlm_xlsx *x = s->xs.x;
    return r->shared ? x->sst_text.p + r->off : s->text.p + r->off;
}

static void add_text(sheet_state *s, const char *p, size_t n, int unescape)
{
    if (!n || text_bound(s, n))
        return; /* an empty string: missing */
    size_t off = s->text.len;
    if (unescape)
        tlm_xlsx_unescape(&s->text, p, n);
    else
        tlm_sbuf_putn(&s->text, p, n);
    tlm_sbuf_putc(&s->text, '\0');
    if (s->text.oom) {
        tlm_xml_fail(&s->xs, TLM_ENOMEM, "out of memory");
        return;
    }
    rec *r = new_rec(s);
    if (!r)
        return;
    r->kind = TLM_RAW_STR;
    r->off = off;
    r->len = s->text.len - 1 - off;
    if (!r->len)
        s->n--;
}

/* openpyxl's number then pandas' int conversion. */
static void add_number(sheet_state *s, const char *t)
{
    char *end;
    errno = 0;
    double d = strtod(t, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (end == t || *end) {
        tlm_xml_fail(&s->xs, TLM_EFORMAT, "cell value '%.40s' is not a "
                     "number", t);
        return;
    }
    rec *r = new_rec(s);
    if (!r)
        return;
    int plain = !strpbrk(t, ".eE");
    if (plain) {
        errno = 0;
        long long i = strtoll(t, &end, 10);
        if (errno == 0) {
            r->kind = TLM_RAW_INT;
            r->v.i = (int64_t)i;
            return;
        }
    }
    if (d == trunc(d) && d >= -9223372036854775808.0 &&
        d < 9223372036854775808.0) {
        r->kind = TLM_RAW_INT;
        r->v.i = (int64_t)d;
    } else {
        r->kind = TLM_RAW_NUM;
        r->v.f = d;
    }
}

static void cell_end(sheet_state *s)
{
    const char *t = s->val.p ? s->val.p : "";
    size_t n = s->val.len;
    s->in_cell = 0;
    if (s->val.oom) {
        tlm_xml_fail(&s->xs, TLM_ENOMEM, "out of memory");
        return;
    }
    if (s->ctype == T_INLINE) {
        add_text(s, t, n, 1);
        return;
    }
    if (!n || s->ctype == T_ERR)
        return;
    if (s->ctype == T_STR) {
        add_text(s, t, n, 1);
    } else if (s->ctype == T_SST) {
        char *end;
        errno = 0;
        unsigned long long i = strtoull(t, &end, 10);
        tlm_xlsx *x = s->xs.x;
        if (*end || errno || i >= x->nsst) {
            tlm_xml_fail(&s->xs, TLM_EFORMAT, "shared string index "
                         "'%.40s' out of range (%zu strings)", t, x->nsst);
            return;
        }
        add_shared(s, (size_t)i);
    } else if (s->ctype == T_BOOL) {
        rec *r = new_rec(s);
        if (r) {
            r->kind = TLM_RAW_BOOL;
            r->v.b = strtol(t, NULL, 10) != 0;
        }
    } else {
        add_number(s, t);
    }
}

static void sheet_end(void *ud, const XML_Char *name)
{
    sheet_state *s = ud;
    tlm_xml_leave(&s->xs);
    const char *l = tlm_xml_local(name);
    if (!strcmp(l, "sheetData"))
        s->in_data = 0;
    else if (!s->in_data)
        return;
    else if (!strcmp(l, "c") && s->in_cell)
        cell_end(s);
    else if (!strcmp(l, "v"))
        s->in_v = 0;
    else if (!strcmp(l, "is"))
        s->in_is = 0;
    else if (!strcmp(l, "rPh"))
        s->in_rph = 0;
    else if (!strcmp(l, "t"))
        s->in_t = 0;
}

/* MARK: - the table ------------------------------------------------------- */

/* The header text of a row-1 cell (Python's str()). */
static void header_text(const sheet_state *s, const rec *r, tlm_sbuf *b)
{
    char buf[TLM_PY_FLOAT_MAX + 8];
    switch (r->kind) {
    case TLM_RAW_STR:
        tlm_sbuf_putn(b, rec_text(s, r), r->len);
        break;
    case TLM_RAW_INT:
        tlm_sbuf_printf(b, "%" PRId64, r->v.i);
        break;
    case TLM_RAW_BOOL:
        tlm_sbuf_puts(b, r->v.b ? "True" : "False");
        break;
    default:
        tlm_sbuf_putn(b, buf, tlm_py_float_repr(r->v.f, buf, sizeof buf));
    }
}

/* A string -> count map for pandas' name dedup (open addressing; the
 * map owns copies of its keys). */
typedef struct name_map {
    char **key;
    size_t *count;
    size_t cap;
} name_map;

/* The count of k (0 when new), or NULL on ENOMEM. */
static size_t *map_slot(name_map *m, const char *k)
{
    size_t l = strlen(k);
    size_t i = (size_t)tlm_hash64(k, l) & (m->cap - 1);
    while (m->key[i] && strcmp(m->key[i], k))
        i = (i + 1) & (m->cap - 1);
    if (!m->key[i]) {
        if (!(m->key[i] = malloc(l + 1)))
            return NULL;
        memcpy(m->key[i], k, l + 1);
        m->count[i] = 0;
    }
    return &m->count[i];
}

/* pandas' dedup of column names: x, x.1, x.2 (a new name that is taken
 * goes on counting).  names[i] are malloc'd, replaced in place.  -1 on
 * ENOMEM. */
static int dedup(char **names, size_t n)
{
    name_map m = {0};
    m.cap = 16;
    while (m.cap < 4 * n + 4)
        m.cap *= 2;
    m.key = calloc(m.cap, sizeof *m.key);
    m.count = calloc(m.cap, sizeof *m.count);
    int rc = m.key && m.count ? 0 : -1;
    for (size_t i = 0; i < n && !rc; i++) {
        size_t *slot = map_slot(&m, names[i]);
        if (!slot) {
            rc = -1;
            break;
        }
        size_t cur = *slot;
        while (cur > 0) {
            *slot = cur + 1;
            size_t l = strlen(names[i]) + 24;
            char *nn = malloc(l);
            if (!nn) {
                rc = -1;
                break;
            }
            snprintf(nn, l, "%s.%zu", names[i], cur);
            free(names[i]);
            names[i] = nn;
            if (!(slot = map_slot(&m, nn))) {
                rc = -1;
                break;
            }
            cur = *slot;
        }
        if (!rc)
            *slot = cur + 1;
    }
    for (size_t i = 0; m.key && i < m.cap; i++)
        free(m.key[i]);
    free(m.key);
    free(m.count);
    return rc;
}

/* Column names of a table `width` wide from the row-1 records. */
static char **header_names(const sheet_state *s, size_t width)
{
    char **names = calloc(width ? width : 1, sizeof *names);
    const rec **hdr = calloc(width ? width : 1, sizeof *hdr);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    int ok = names && hdr;
    for (size_t i = 0; ok && i < s->n; i++)
        if (s->v[i].row == 1)
            hdr[s->v[i].col - 1] = &s->v[i];
    for (size_t c = 0; ok && c < width; c++) {
        tlm_sbuf_reset(&b);
        if (hdr[c])
            header_text(s, hdr[c], &b);
        else
            tlm_sbuf_printf(&b, "Unnamed: %zu", c);
        names[c] = b.oom ? NULL : malloc(b.len + 1);
        if (!(ok = names[c] != NULL))
            break;
        memcpy(names[c], b.p ? b.p : "", b.len);
        names[c][b.len] = '\0';
    }
    tlm_sbuf_free(&b);
    free(hdr);
    if (ok && dedup(names, width) == 0)
        return names;
    for (size_t c = 0; names && c < width; c++)
        free(names[c]);
    free(names);
    return NULL;
}

static void put_rec(tlm_rawtab *t, const sheet_state *s, const rec *r)
{
    size_t row = r->row - 2, col = r->col - 1;
    switch (r->kind) {
    case TLM_RAW_STR:
        tlm_rawtab_set_str(t, row, col, rec_text(s, r), r->len);
        break;
    case TLM_RAW_INT:
        tlm_rawtab_set_int(t, row, col, r->v.i);
        break;
    case TLM_RAW_BOOL:
        tlm_rawtab_set_bool(t, row, col, r->v.b);
        break;
    default:
        tlm_rawtab_set_num(t, row, col, r->v.f);
    }
}

static tlm_status build(sheet_state *s, tlm_rawtab **out, tlm_error *err)
{
    tlm_xlsx *x = s->xs.x;
    size_t width = 0, last = 0;
    for (size_t i = 0; i < s->n; i++) {
        width = s->v[i].col > width ? s->v[i].col : width;
        last = s->v[i].row > last ? s->v[i].row : last;
    }
    size_t nrows = last > 1 ? last - 1 : 0;
    if (width && nrows > ((size_t)16 * s->n + ((size_t)1 << 20)) / width)
        return tlm_error_set(err, TLM_ELIMIT, x->path, -1,
                             "%s: %zu rows x %zu columns for %zu values: "
                             "too sparse to read", s->xs.part, nrows, width,
                             s->n);
    char **names = header_names(s, width);
    tlm_rawtab *t = names ? tlm_rawtab_new(width, (const char *const *)names)
                          : NULL;
    for (size_t c = 0; names && c < width; c++)
        free(names[c]);
    free(names);
    for (size_t r = 0; t && r < nrows; r++)
        if (tlm_rawtab_add_row(t) < 0)
            break;
    for (size_t i = 0; t && !t->oom && i < s->n; i++)
        if (s->v[i].row >= 2)
            put_rec(t, s, &s->v[i]);
    if (!t || t->oom) {
        tlm_rawtab_free(t);
        return tlm_error_set(err, TLM_ENOMEM, x->path, -1,
                             "%s: out of memory", s->xs.part);
    }
    *out = t;
    return TLM_OK;
}

tlm_status tlm_xlsx_sheet_read(tlm_xlsx *x, const char *part,
                               tlm_rawtab **out, tlm_error *err)
{
    sheet_state s;
    memset(&s, 0, sizeof s);
    tlm_sbuf_init(&s.val);
    tlm_sbuf_init(&s.text);
    tlm_status st = tlm_xml_init(&s.xs, x, part, err);
    if (!st) {
        XML_SetElementHandler(s.xs.p, sheet_start, sheet_end);
        XML_SetCharacterDataHandler(s.xs.p, sheet_chars);
        st = tlm_xml_run(&s.xs, 0);
        tlm_xml_done(&s.xs);
    }
    if (!st)
        st = build(&s, out, err);
    tlm_sbuf_free(&s.val);
    tlm_sbuf_free(&s.text);
    free(s.v);
    return st;
}
