/*
 * xlsx_write.c - report tables as one workbook (xlsx_write.h), written
 * with libxlsxwriter in constant-memory mode (rows streamed in order;
 * strings inline, no shared-string table kept in memory).
 *
 * Layout as pandas' to_excel(index=False) with openpyxl (compare.md
 * §5.2): the header in row 1 (bold, thin borders, centred, as pandas'
 * header style) and frozen, data from row 2.  Cells:
 * - F64: a number; null and NaN an empty cell; +-inf an empty cell too
 *   (an .xlsx number cannot hold an infinity: Excel refuses the file).
 *   libxlsxwriter prints numbers with 16 significant digits (%.16G), so
 *   a value that needs 17 for a round trip comes back within 1 ulp or
 *   so (relative 1e-16; Excel itself shows 15);
 * - I64: a number when |v| <= 2^53 (exact in Excel's doubles), else the
 *   decimal digits as text, so no digit is lost;
 * - STR: always a string cell (never a formula), cut to Excel's 32,767
 *   characters; an empty text is an empty cell; a literal _xHHHH_ is
 *   written _x005F_xHHHH_ (Excel's escape) so that it is not decoded;
 * - BOOL: a boolean.
 * Column widths follow the header's and the first 100 rows' text
 * lengths (numbers estimated, not printed: num_width), bounded to 8..60
 * characters.  Hidden columns are hidden.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "pyrepr.h"
#include "xlsx_write.h"

enum { STR_MAX = 32767, WIDTH_ROWS = 100, WIDTH_MIN = 8, WIDTH_MAX = 60 };
#define EXACT_INT 9007199254740992LL /* 2^53 */

static size_t text_width(const char *s)
{
    size_t k = 0;
    for (; *s; s++)
        k += (*s & 0xC0) != 0x80;
    return k;
}

/* Characters of a number's text, without printing it (printing the
 * floats of 100 rows per column was a third of the workbook's time): an
 * integral value's digits, ".0" and the sign; another value in Python
 * repr's fixed range [1e-4, 1e16) 17 significant digits, the point and
 * the sign; else the exponent form's 22 at most. */
static size_t num_width(double v)
{
    double a = fabs(v);
    size_t sign = v < 0;
    if (isnan(v) || isinf(v))
        return 0;
    if (a < 1e16 && a == floor(a)) {
        size_t d = 1;
        for (double p = 10; p <= a; p *= 10)
            d++;
        return sign + d + 2;
    }
    return sign + (a >= 1e-4 && a < 1e16 ? 18 : 22);
}

static size_t cell_width(const tlm_tab *t, size_t row, size_t col)
{
    const tlm_cell *c = tlm_tab_cell(t, row, col);
    if (c->null)
        return 0;
    switch (t->coltypes[col]) {
    case TLM_COL_F64:
        return num_width(c->v.f);
    case TLM_COL_I64:
        return num_width((double)c->v.i) - 2; /* no ".0" */
    case TLM_COL_BOOL:
        return c->v.i ? 4 : 5;
    default:
        return c->v.s ? text_width(c->v.s) : 0;
    }
}

static double col_width(const tlm_tab *t, size_t col)
{
    size_t w = text_width(t->colnames[col]);
    for (size_t r = 0; r < t->nrows && r < WIDTH_ROWS; r++) {
        size_t cw = cell_width(t, r, col);
        w = cw > w ? cw : w;
    }
    w += 2;
    return (double)(w < WIDTH_MIN ? WIDTH_MIN : w > WIDTH_MAX ? WIDTH_MAX : w);
}

/* Bytes of the first STR_MAX code points of s. */
static size_t excel_prefix(const char *s, int *cut)
{
    size_t i = 0, k = 0;
    while (s[i] && k < STR_MAX) {
        i++;
        while ((s[i] & 0xC0) == 0x80)
            i++;
        k++;
    }
    *cut = s[i] != '\0';
    return i;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

/* s[i..] reads _xHHHH_, which Excel (and the reader) would decode. */
static int escape_like(const char *s, size_t i, size_t n)
{
    return i + 7 <= n && s[i] == '_' && s[i + 1] == 'x' && is_hex(s[i + 2]) &&
           is_hex(s[i + 3]) && is_hex(s[i + 4]) && is_hex(s[i + 5]) &&
           s[i + 6] == '_';
}

/* A string cell of the first n bytes of s, a literal _xHHHH_ written
 * _x005F_xHHHH_ so that it reads back as written (libxlsxwriter escapes
 * control characters as _xHHHH_ but not such literals). */
static lxw_error write_str(lxw_worksheet *ws, lxw_row_t r, lxw_col_t c,
                           const char *s, size_t n, lxw_format *fmt)
{
    size_t extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += escape_like(s, i, n) ? 6 : 0;
    if (!extra && s[n] == '\0')
        return worksheet_write_string(ws, r, c, s, fmt);
    char *p = malloc(n + extra + 1);
    if (!p)
        return LXW_ERROR_MEMORY_MALLOC_FAILED;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (escape_like(s, i, n)) {
            memcpy(p + k, "_x005F", 6);
            k += 6;
        }
        p[k++] = s[i];
    }
    p[k] = '\0';
    int cut;
    p[excel_prefix(p, &cut)] = '\0'; /* the escapes count too */
    lxw_error e = worksheet_write_string(ws, r, c, p, fmt);
    free(p);
    return e;
}

static lxw_error write_text(lxw_worksheet *ws, lxw_row_t r, lxw_col_t c,
                            const char *s, lxw_format *fmt)
{
    int cut;
    size_t n = excel_prefix(s, &cut);
    return n ? write_str(ws, r, c, s, n, fmt) : LXW_NO_ERROR;
}

static lxw_error write_cell(lxw_worksheet *ws, const tlm_tab *t, size_t row,
                            size_t col)
{
    const tlm_cell *c = tlm_tab_cell(t, row, col);
    lxw_row_t r = (lxw_row_t)(row + 1);
    lxw_col_t k = (lxw_col_t)col;
    char buf[32];
    if (c->null)
        return LXW_NO_ERROR;
    switch (t->coltypes[col]) {
    case TLM_COL_F64:
        if (!isfinite(c->v.f))
            return LXW_NO_ERROR;
        return worksheet_write_number(ws, r, k, c->v.f, NULL);
    case TLM_COL_I64:
        if (c->v.i >= -EXACT_INT && c->v.i <= EXACT_INT)
            return worksheet_write_number(ws, r, k, (double)c->v.i, NULL);
        snprintf(buf, sizeof buf, "%" PRId64, c->v.i);
        return worksheet_write_string(ws, r, k, buf, NULL);
    case TLM_COL_BOOL:
        return worksheet_write_boolean(ws, r, k, c->v.i != 0, NULL);
    default:
        return c->v.s ? write_text(ws, r, k, c->v.s, NULL) : LXW_NO_ERROR;
    }
}

static lxw_error write_sheet(lxw_worksheet *ws, const tlm_xlsx_sheet *s,
                             lxw_format *head)
{
    const tlm_tab *t = s->tab;
    lxw_error e = LXW_NO_ERROR;
    if (t->ncols > LXW_COL_MAX || t->nrows >= LXW_ROW_MAX)
        return LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE;
    for (size_t c = 0; c < t->ncols && !e; c++) {
        lxw_row_col_options o = {0};
        o.hidden = s->hidden && s->hidden[c];
        e = worksheet_set_column_opt(ws, (lxw_col_t)c, (lxw_col_t)c,
                                     col_width(t, c), NULL, &o);
    }
    if (!e && t->ncols)
        worksheet_freeze_panes(ws, 1, 0);
    for (size_t c = 0; c < t->ncols && !e; c++)
        e = t->colnames[c][0]
                ? write_text(ws, 0, (lxw_col_t)c, t->colnames[c], head)
                : worksheet_write_blank(ws, 0, (lxw_col_t)c, head);
    for (size_t r = 0; r < t->nrows && !e; r++)
        for (size_t c = 0; c < t->ncols && !e; c++)
            e = write_cell(ws, t, r, c);
    return e;
}

/* TLM_EINVAL unless every name is valid and distinct. */
static tlm_status check_names(const char *path, const tlm_xlsx_sheet *sheets,
                              size_t n, tlm_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *nm = sheets[i].name ? sheets[i].name : "";
        if (!tlm_xlsx_name_ok(nm))
            return tlm_error_set(err, TLM_EINVAL, path, -1,
                                 "invalid worksheet name '%s' (at most 31 "
                                 "characters, none of []:*?/\\, no ' at "
                                 "either end)", nm);
        for (size_t j = 0; j < i; j++)
            if (tlm_xlsx_same_name(sheets[j].name, nm))
                return tlm_error_set(err, TLM_EINVAL, path, -1,
                                     "two worksheets named '%s'", nm);
        if (!sheets[i].tab)
            return tlm_error_set(err, TLM_EINVAL, path, -1,
                                 "worksheet '%s' has no table", nm);
    }
    return TLM_OK;
}

static lxw_format *header_format(lxw_workbook *wb)
{
    lxw_format *f = workbook_add_format(wb);
    if (f) {
        format_set_bold(f);
        format_set_border(f, LXW_BORDER_THIN);
        format_set_align(f, LXW_ALIGN_CENTER);
        format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
    }
    return f;
}

/* libxlsxwriter prints its errors to stderr: find an unwritable path
 * first (the usual failure) so that the core stays quiet. */
static tlm_status check_path(const char *path, tlm_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "cannot create the workbook: %s",
                             strerror(errno));
    fclose(f);
    return TLM_OK;
}

/* libxlsxwriter's own "[ERROR] ..." lines (its temporary files on a
 * full disk, ...) are kept from the terminal: fd 2 goes to a pipe whose
 * writes never block (a full pipe drops the rest) while the workbook is
 * written; on failure its first line joins tlmpi's message (issue 33,
 * case 14). */
typedef struct lxw_quiet {
    int saved, rd;
} lxw_quiet;

static void quiet_begin(lxw_quiet *q)
{
    int p[2];
    q->saved = q->rd = -1;
    fflush(stderr);
    if (pipe(p) != 0)
        return;
    (void)fcntl(p[1], F_SETFL, O_NONBLOCK);
    (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
    q->saved = dup(2);
    if (q->saved < 0 || dup2(p[1], 2) < 0) {
        if (q->saved >= 0)
            close(q->saved);
        q->saved = -1;
        close(p[0]);
        close(p[1]);
        return;
    }
    close(p[1]);
    q->rd = p[0];
}

/* Puts fd 2 back; the first captured line (without "[ERROR] ") into
 * line. */
static void quiet_end(lxw_quiet *q, char *line, size_t cap)
{
    line[0] = '\0';
    if (q->saved < 0)
        return;
    fflush(stderr);
    dup2(q->saved, 2);
    close(q->saved);
    char buf[1024];
    ssize_t k = read(q->rd, buf, sizeof buf - 1);
    close(q->rd);
    if (k <= 0)
        return;
    buf[k] = '\0';
    char *s = buf, *nl = strchr(s, '\n');
    if (nl)
        *nl = '\0';
    if (!strncmp(s, "[ERROR]", 7))
        s += 7;
    while (*s == ' ' || *s == ':')
        s++;
    size_t m = strlen(s) < cap ? strlen(s) : cap - 1;
    memcpy(line, s, m);
    line[m] = '\0';
}

/* Appends the library's own words to err's message, when there are any. */
static void add_lib_words(tlm_error *err, const char *line)
{
    if (!err || !line[0])
        return;
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, " (libxlsxwriter: %.200s)",
             line);
}

static tlm_status write_book(const char *path, const tlm_xlsx_sheet *sheets,
                             size_t n, tlm_error *err);

tlm_status tlm_xlsx_write(const char *path, const tlm_xlsx_sheet *sheets,
                          size_t n, tlm_error *err)
{
    tlm_status st = check_names(path, sheets, n, err);
    if (!st)
        st = check_path(path, err);
    if (st)
        return st;
    lxw_quiet q;
    char line[512];
    quiet_begin(&q);
    st = write_book(path, sheets, n, err);
    quiet_end(&q, line, sizeof line);
    if (st)
        add_lib_words(err, line);
    return st;
}

/* The workbook itself (names and path checked). */
static tlm_status write_book(const char *path, const tlm_xlsx_sheet *sheets,
                             size_t n, tlm_error *err)
{
    lxw_workbook_options opt = {0};
    opt.constant_memory = LXW_TRUE;
    lxw_workbook *wb = workbook_new_opt(path, &opt);
    if (!wb)
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "cannot start the workbook (out of memory)");
    lxw_format *head = header_format(wb);
    lxw_error e = head ? LXW_NO_ERROR : LXW_ERROR_MEMORY_MALLOC_FAILED;
    size_t i = 0;
    for (; i < n && !e; i++) {
        lxw_worksheet *ws = workbook_add_worksheet(wb, sheets[i].name);
        e = ws ? write_sheet(ws, &sheets[i], head)
               : LXW_ERROR_MEMORY_MALLOC_FAILED;
    }
    if (e) {
        lxw_workbook_free(wb);
        remove(path);
        return tlm_error_set(err, e == LXW_ERROR_MEMORY_MALLOC_FAILED
                                      ? TLM_ENOMEM : TLM_EIO,
                             path, -1, "cannot write worksheet '%s': %s",
                             sheets[i - 1].name, lxw_strerror(e));
    }
    e = workbook_close(wb);
    if (e) {
        remove(path);
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "cannot write the workbook: %s",
                             lxw_strerror(e));
    }
    return TLM_OK;
}
