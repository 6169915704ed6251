/*
 * tab.c - tlm_tab, the typed in-memory table (tlm_table.h): rows of
 * cells (double, int64, text, bool, or null), the text in an arena the
 * table owns, columns appended, inserted, moved and dropped, rows
 * permuted and truncated.  Its CSV form is tab_csv.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_table.h"

#include "grow.h"

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
    free(t->colint);
    free(t->gpu_row);
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
    /* rows of ncols cells (one at least) */
    if (t->nrows == t->cap_rows &&
        tlm_grow((void **)&t->cells, &t->cap_rows, t->nrows + 1,
                 (t->ncols ? t->ncols : 1) * sizeof *t->cells, 16)) {
        t->oom = 1;
        return -1;
    }
    size_t r = t->nrows++;
    for (size_t i = 0; i < t->ncols; i++) {
        tlm_cell *c = &t->cells[r * t->ncols + i];
        memset(c, 0, sizeof *c);
        c->null = 1;
    }
    return (long)r;
}

tlm_status tlm_tab_append_col(tlm_tab *t, const char *name, tlm_coltype ty)
{
    size_t m = t->ncols, l = strlen(name);
    char *nm = malloc(l + 1);
    char **cn = realloc(t->colnames, (m + 1) * sizeof *cn);
    if (cn)
        t->colnames = cn;
    tlm_coltype *ct = cn ? realloc(t->coltypes, (m + 1) * sizeof *ct) : NULL;
    if (ct)
        t->coltypes = ct;
    uint8_t *ci = NULL;
    if (ct && t->colint) {
        ci = realloc(t->colint, m + 1);
        if (ci)
            t->colint = ci;
    }
    tlm_cell *c = NULL;
    if (ct && (!t->colint || ci) && t->cap_rows)
        c = realloc(t->cells, t->cap_rows * (m + 1) * sizeof *c);
    if (!nm || !cn || !ct || (t->colint && !ci) || (t->cap_rows && !c)) {
        free(nm);
        return TLM_ENOMEM;
    }
    if (c)
        t->cells = c;
    for (size_t r = t->nrows; r-- > 0;) {
        memmove(t->cells + r * (m + 1), t->cells + r * m, m * sizeof *c);
        tlm_cell *x = &t->cells[r * (m + 1) + m];
        memset(x, 0, sizeof *x);
        x->null = 1;
    }
    memcpy(nm, name, l + 1);
    t->colnames[m] = nm;
    t->coltypes[m] = ty;
    if (t->colint)
        t->colint[m] = 0;
    t->ncols = m + 1;
    return TLM_OK;
}

void tlm_tab_move_col(tlm_tab *t, size_t from, size_t to)
{
    if (from >= t->ncols || to >= t->ncols || from == to)
        return;
    size_t m = t->ncols;
    size_t lo = from < to ? from : to, hi = from < to ? to : from;
    for (size_t r = 0; r < t->nrows; r++) {
        tlm_cell *row = t->cells + r * m, x = row[from];
        if (from < to)
            memmove(row + lo, row + lo + 1, (hi - lo) * sizeof x);
        else
            memmove(row + lo + 1, row + lo, (hi - lo) * sizeof x);
        row[to] = x;
    }
    char *n = t->colnames[from];
    tlm_coltype y = t->coltypes[from];
    if (from < to) {
        memmove(t->colnames + lo, t->colnames + lo + 1, (hi - lo) * sizeof n);
        memmove(t->coltypes + lo, t->coltypes + lo + 1, (hi - lo) * sizeof y);
    } else {
        memmove(t->colnames + lo + 1, t->colnames + lo, (hi - lo) * sizeof n);
        memmove(t->coltypes + lo + 1, t->coltypes + lo, (hi - lo) * sizeof y);
    }
    t->colnames[to] = n;
    t->coltypes[to] = y;
    if (t->colint) {
        uint8_t b = t->colint[from];
        if (from < to)
            memmove(t->colint + lo, t->colint + lo + 1, hi - lo);
        else
            memmove(t->colint + lo + 1, t->colint + lo, hi - lo);
        t->colint[to] = b;
    }
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

/* n + 1 bytes of the table's text arena: chunks from 256 bytes, doubling
 * up to 64 KiB (a job's many small tables, e.g. every rank's HTA tables
 * on rank 0, stay small); NULL (and t->oom) when out of memory. */
static char *tab_text(tlm_tab *t, size_t n)
{
    tlm_tab_text *x = t->text;
    if (!x || x->cap - x->used < n + 1) {
        size_t cap = !x ? 256 : x->cap >= 32768 ? 65536 : 2 * x->cap;
        if (cap < n + 1)
            cap = n + 1;
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
    c->len = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
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

void tlm_tab_drop_col(tlm_tab *t, size_t col)
{
    if (col >= t->ncols)
        return;
    size_t m = t->ncols;
    for (size_t r = 0; r < t->nrows; r++) {
        tlm_cell *src = t->cells + r * m;
        tlm_cell *dst = t->cells + r * (m - 1);
        memmove(dst, src, col * sizeof *dst);
        memmove(dst + col, src + col + 1, (m - col - 1) * sizeof *dst);
    }
    free(t->colnames[col]);
    if (t->colint)
        memmove(t->colint + col, t->colint + col + 1, m - col - 1);
    memmove(t->colnames + col, t->colnames + col + 1,
            (m - col - 1) * sizeof *t->colnames);
    memmove(t->coltypes + col, t->coltypes + col + 1,
            (m - col - 1) * sizeof *t->coltypes);
    t->ncols = m - 1;
}

tlm_status tlm_tab_insert_cols(tlm_tab *t, size_t at, size_t k,
                               const char *const *names,
                               const tlm_coltype *types)
{
    size_t m = t->ncols, n = m + k, rows = t->cap_rows;
    if (at > m)
        at = m;
    char **cn = calloc(n + 1, sizeof *cn);
    tlm_coltype *ct = calloc(n + 1, sizeof *ct);
    uint8_t *ci = t->colint ? calloc(n + 1, 1) : NULL;
    tlm_cell *c = malloc((rows ? rows : 1) * (n ? n : 1) * sizeof *c);
    int ok = cn && ct && c && (!t->colint || ci);
    for (size_t j = 0; ok && j < k; j++) {
        size_t l = strlen(names[j]);
        cn[at + j] = malloc(l + 1);
        if (!cn[at + j])
            ok = 0;
        else
            memcpy(cn[at + j], names[j], l + 1);
    }
    if (!ok) {
        for (size_t j = 0; cn && j < k; j++)
            free(cn[at + j]);
        free(cn);
        free(ct);
        free(ci);
        free(c);
        return TLM_ENOMEM;
    }
    for (size_t j = 0; j < m; j++) {
        size_t d = j < at ? j : j + k;
        cn[d] = t->colnames[j];
        ct[d] = t->coltypes[j];
        if (ci)
            ci[d] = t->colint[j];
    }
    for (size_t j = 0; j < k; j++)
        ct[at + j] = types[j];
    for (size_t r = 0; r < t->nrows; r++) {
        tlm_cell *src = t->cells + r * m, *dst = c + r * n;
        memcpy(dst, src, at * sizeof *dst);
        for (size_t j = 0; j < k; j++) {
            memset(&dst[at + j], 0, sizeof *dst);
            dst[at + j].null = 1;
        }
        memcpy(dst + at + k, src + at, (m - at) * sizeof *dst);
    }
    free(t->colnames);
    free(t->coltypes);
    free(t->colint);
    free(t->cells);
    t->colnames = cn;
    t->coltypes = ct;
    t->colint = ci;
    t->cells = c;
    t->ncols = n;
    return TLM_OK;
}
