/*
 * rawtab_type.c - pandas-style column typing of a tlm_rawtab (spec
 * compare.md §2.2), as pandas' C parser (read_csv) decides it:
 *
 * - missing: an empty field or exactly one of the default NA strings
 *   (pandas >= 2.0, "None" included); whole-field matches only;
 * - integer: optional blanks (space, \t, \n, \v, \f, \r), optional sign,
 *   decimal digits, optional blanks (" 48 " is 48);
 * - float: optional blanks, optional sign, digits with an optional '.'
 *   (at least one digit), optional exponent e[+-]digits, optional
 *   blanks; also inf / infinity with an optional sign in any case, no
 *   blanks.  Read with strtod (correctly rounded; pandas' own parser is
 *   off by 1 ulp at times, compare.md Q13).  A value that overflows
 *   ("1e400") is not a float (pandas keeps the column as text); hex,
 *   "1_000", "1d5", "+nan", " nan" are not numbers;
 * - boolean: true / false in any case, no blanks;
 * - an integer outside int64 counts as a float (pandas gives uint64 or
 *   object there; tlm_tab has neither);
 * - else text.
 *
 * Column type over its non-missing cells: none at all -> F64 (all null);
 * all integers -> I64, or F64 when a cell is missing; integers and floats
 * -> F64; all booleans -> BOOL, or with a missing cell an object column
 * of "True" / "False"; anything else (a text, or booleans beside numbers)
 * -> STR, where a CSV field keeps its original text, a workbook string
 * its text, a workbook number Python's str() (48, 1.5) and a boolean
 * True / False.  A table with no rows has STR columns (pandas: object).
 * Workbook cells: NUM / INT are numbers (a NaN NUM is missing), BOOL a
 * boolean, EMPTY missing, and a STR is typed as a CSV field is: pandas'
 * read_excel hands the cells to its TextParser, which applies the NA
 * strings ("None" -> missing) and the numeric and boolean inference to
 * text cells too (a column of "48" strings is numeric); in an object
 * column a string keeps its text.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pyrepr.h"
#include "rawtab.h"

/* What a cell is to the typing. */
enum { K_MISS, K_INT, K_FLOAT, K_BOOL, K_TEXT };

static const char *const na_values[] = {
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
    "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "n/a",
    "nan", "null", "None"};

static int is_na(const char *s, size_t n)
{
    if (n == 0)
        return 1;
    for (size_t i = 0; i < sizeof na_values / sizeof *na_values; i++)
        if (strlen(na_values[i]) == n && !memcmp(na_values[i], s, n))
            return 1;
    return 0;
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

/* [b, e) without the blanks around it. */
static void trim(const char **b, const char **e)
{
    while (*b < *e && blank(**b))
        (*b)++;
    while (*e > *b && blank((*e)[-1]))
        (*e)--;
}

/* 1 and *v when [b, e) is [sign]digits fitting int64; 2 when it is an
 * integer outside int64; 0 when it is not an integer. */
static int parse_int(const char *b, const char *e, int64_t *v)
{
    int neg = 0;
    if (b < e && (*b == '+' || *b == '-'))
        neg = *b++ == '-';
    if (b == e)
        return 0;
    uint64_t acc = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
    int over = 0;
    for (; b < e; b++) {
        if (!digit(*b))
            return 0;
        unsigned d = (unsigned)(*b - '0');
        if (acc > (lim - d) / 10)
            over = 1;
        else
            acc = acc * 10 + d;
    }
    if (over)
        return 2;
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return 1;
}

/* [b, e) has the float syntax of the header comment (no blanks). */
static int float_syntax(const char *b, const char *e)
{
    if (b < e && (*b == '+' || *b == '-'))
        b++;
    size_t nd = 0;
    while (b < e && digit(*b))
        b++, nd++;
    if (b < e && *b == '.') {
        b++;
        while (b < e && digit(*b))
            b++, nd++;
    }
    if (!nd)
        return 0;
    if (b < e && (*b == 'e' || *b == 'E')) {
        b++;
        if (b < e && (*b == '+' || *b == '-'))
            b++;
        if (b == e || !digit(*b))
            return 0;
        while (b < e && digit(*b))
            b++;
    }
    return b == e;
}

/* inf / infinity with an optional sign, any case: 1 (+inf), -1, 0. */
static int inf_word(const char *s, size_t n)
{
    int sign = 1;
    if (n && (*s == '+' || *s == '-')) {
        sign = *s == '-' ? -1 : 1;
        s++, n--;
    }
    if ((n == 3 && !strncasecmp(s, "inf", 3)) ||
        (n == 8 && !strncasecmp(s, "infinity", 8)))
        return sign;
    return 0;
}

/* strtod of [b, e) (validated): 0 and *v, or -1 on overflow. */
static int to_double(const char *b, const char *e, double *v)
{
    char small[64];
    size_t n = (size_t)(e - b);
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return -1;
    memcpy(buf, b, n);
    buf[n] = '\0';
    errno = 0;
    double d = strtod(buf, NULL);
    int over = errno == ERANGE && isinf(d);
    if (buf != small)
        free(buf);
    if (over)
        return -1;
    *v = d;
    return 0;
}

/* The kind of a CSV field, its number in *f (K_FLOAT), *i (K_INT) or
 * *b (K_BOOL). */
static int text_kind(const char *s, size_t n, double *f, int64_t *i, int *b)
{
    if (is_na(s, n))
        return K_MISS;
    const char *p = s, *e = s + n;
    trim(&p, &e);
    int r = parse_int(p, e, i);
    if (r == 1)
        return K_INT;
    if ((r == 2 || float_syntax(p, e)) && to_double(p, e, f) == 0)
        return K_FLOAT;
    int inf = inf_word(s, n);
    if (inf) {
        *f = inf * (double)INFINITY;
        return K_FLOAT;
    }
    if ((n == 4 && !strncasecmp(s, "true", 4)) ||
        (n == 5 && !strncasecmp(s, "false", 5))) {
        *b = n == 4;
        return K_BOOL;
    }
    return K_TEXT;
}

static int cell_kind(const tlm_rawcell *c, double *f, int64_t *i, int *b)
{
    switch (c->kind) {
    case TLM_RAW_TEXT:
        return text_kind(c->s, c->n, f, i, b);
    case TLM_RAW_NUM:
        *f = c->v.f;
        return isnan(c->v.f) ? K_MISS : K_FLOAT;
    case TLM_RAW_INT:
        *i = c->v.i;
        return K_INT;
    case TLM_RAW_STR: /* read_excel: TextParser infers text cells too */
        return text_kind(c->s, c->n, f, i, b);
    case TLM_RAW_BOOL:
        *b = c->v.b;
        return K_BOOL;
    default:
        return K_MISS;
    }
}

static tlm_coltype column_type(const tlm_rawtab *r, size_t col)
{
    size_t seen[K_TEXT + 1] = {0};
    for (size_t row = 0; row < r->nrows; row++) {
        double f;
        int64_t i;
        int b;
        seen[cell_kind(&r->cells[row * r->ncols + col], &f, &i, &b)]++;
    }
    int num = seen[K_INT] || seen[K_FLOAT];
    if (r->nrows == 0 || seen[K_TEXT] || (seen[K_BOOL] && num))
        return TLM_COL_STR;
    if (seen[K_BOOL])
        return seen[K_MISS] ? TLM_COL_STR : TLM_COL_BOOL;
    if (seen[K_INT] && !seen[K_FLOAT] && !seen[K_MISS])
        return TLM_COL_I64;
    return TLM_COL_F64;
}

/* An object cell: the original text, Python's str() of a number, or
 * True / False. */
static void set_object(tlm_tab *t, size_t row, size_t col,
                       const tlm_rawcell *c, int k, double f, int64_t i,
                       int b)
{
    char buf[TLM_PY_FLOAT_MAX + 8];
    int text = c->kind == TLM_RAW_TEXT || c->kind == TLM_RAW_STR;
    if (k == K_TEXT || (text && k != K_BOOL)) {
        tlm_tab_set_s(t, row, col, c->s, c->n);
        return;
    }
    size_t n;
    if (k == K_BOOL) {
        tlm_tab_set_s(t, row, col, b ? "True" : "False", b ? 4 : 5);
    } else if (k == K_INT) {
        n = (size_t)snprintf(buf, sizeof buf, "%" PRId64, i);
        tlm_tab_set_s(t, row, col, buf, n);
    } else {
        n = tlm_py_float_repr(f, buf, sizeof buf);
        tlm_tab_set_s(t, row, col, buf, n);
    }
}

static void fill_column(tlm_tab *t, const tlm_rawtab *r, size_t col,
                        int mixed_bool_text)
{
    for (size_t row = 0; row < r->nrows; row++) {
        const tlm_rawcell *c = &r->cells[row * r->ncols + col];
        double f = 0;
        int64_t i = 0;
        int b = 0;
        int k = cell_kind(c, &f, &i, &b);
        if (k == K_MISS)
            continue; /* tlm_tab rows start null */
        switch (t->coltypes[col]) {
        case TLM_COL_I64:
            tlm_tab_set_i(t, row, col, i);
            break;
        case TLM_COL_F64:
            tlm_tab_set_f(t, row, col, k == K_INT ? (double)i : f);
            break;
        case TLM_COL_BOOL:
            tlm_tab_set_b(t, row, col, b);
            break;
        default:
            /* a boolean keeps its text only beside texts or numbers;
             * a column of booleans and missing cells holds bool objects */
            if (k == K_BOOL && mixed_bool_text &&
                (c->kind == TLM_RAW_TEXT || c->kind == TLM_RAW_STR))
                tlm_tab_set_s(t, row, col, c->s, c->n);
            else
                set_object(t, row, col, c, k, f, i, b);
        }
    }
}

/* The column is all booleans and missing cells (an object column of
 * Python bools): 1 when some cell is not a boolean. */
static int has_non_bool(const tlm_rawtab *r, size_t col)
{
    for (size_t row = 0; row < r->nrows; row++) {
        double f;
        int64_t i;
        int b;
        int k = cell_kind(&r->cells[row * r->ncols + col], &f, &i, &b);
        if (k != K_BOOL && k != K_MISS)
            return 1;
    }
    return 0;
}

tlm_status tlm_rawtab_to_tab(const tlm_rawtab *r, const char *name,
                             tlm_tab **out, tlm_error *err)
{
    *out = NULL;
    if (r->oom)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory while reading table '%s'",
                             name);
    tlm_coltype *types = malloc((r->ncols ? r->ncols : 1) * sizeof *types);
    if (!types)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    for (size_t c = 0; c < r->ncols; c++)
        types[c] = column_type(r, c);
    tlm_tab *t = tlm_tab_new(name, r->ncols,
                             (const char *const *)r->colnames, types);
    free(types);
    if (!t)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    for (size_t row = 0; row < r->nrows; row++)
        if (tlm_tab_add_row(t) < 0)
            break;
    if (!t->oom)
        for (size_t c = 0; c < r->ncols; c++)
            fill_column(t, r, c,
                        t->coltypes[c] == TLM_COL_STR && has_non_bool(r, c));
    if (t->oom) {
        tlm_tab_free(t);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory while typing table '%s'", name);
    }
    *out = t;
    return TLM_OK;
}
