/*
 * tab_ops.c - operations over whole tlm_tabs: a cell as Python's str()
 * prints it, a cell copied between columns of different types, a new
 * table of selected rows and columns (every sheet of the report
 * comparison is a selection of its joined table), a column's emptiness,
 * a cell's number, the stable descending row order by a column.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_table.h"

#include "pyrepr.h"
#include "sbuf.h"
#include "sortutil.h"

/* Python's str() of a non-missing cell. */
void tlm_tab_cell_text(const tlm_tab *s, size_t r, size_t c, tlm_sbuf *b)
{
    const tlm_cell *x = tlm_tab_cell(s, r, c);
    switch (s->coltypes[c]) {
    case TLM_COL_F64:
        tlm_sbuf_pyfloat(b, x->v.f);
        break;
    case TLM_COL_I64:
        tlm_sbuf_printf(b, "%lld", (long long)x->v.i);
        break;
    case TLM_COL_BOOL:
        tlm_sbuf_puts(b, x->v.i ? "True" : "False");
        break;
    case TLM_COL_STR:
        tlm_sbuf_puts(b, x->v.s);
        break;
    }
}

/* One cell into another table's cell, converted to its column's type. */
void tlm_tab_copy_cell(tlm_tab *d, size_t dr, size_t dc, const tlm_tab *s,
                       size_t sr, size_t sc)
{
    const tlm_cell *x = tlm_tab_cell(s, sr, sc);
    if (x->null) {
        tlm_tab_set_null(d, dr, dc);
        return;
    }
    tlm_coltype dt = d->coltypes[dc], st = s->coltypes[sc];
    if (dt == TLM_COL_STR && st != TLM_COL_STR) {
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        tlm_tab_cell_text(s, sr, sc, &b);
        if (b.oom)
            d->oom = 1;
        else
            tlm_tab_set_s(d, dr, dc, b.p, b.len);
        tlm_sbuf_free(&b);
    } else if (dt == TLM_COL_STR) {
        tlm_tab_set_s(d, dr, dc, x->v.s, strlen(x->v.s));
    } else if (dt == TLM_COL_F64 && st == TLM_COL_I64) {
        tlm_tab_set_f(d, dr, dc, (double)x->v.i);
    } else if (dt == TLM_COL_F64 && st == TLM_COL_BOOL) {
        tlm_tab_set_f(d, dr, dc, (double)x->v.i);
    } else if (dt == TLM_COL_I64 && st == TLM_COL_F64) {
        tlm_tab_set_i(d, dr, dc, (int64_t)x->v.f);
    } else {
        *tlm_tab_cell(d, dr, dc) = *x; /* same kind: value as it is */
    }
}

/* A new table of some rows and columns of t. */
tlm_tab *tlm_tab_select(const tlm_tab *t, const char *name,
                        const size_t *cols, size_t nc,
                        const char *const *names, const size_t *rows,
                        size_t nr)
{
    const char **nm = malloc((nc ? nc : 1) * sizeof *nm);
    tlm_coltype *ty = malloc((nc ? nc : 1) * sizeof *ty);
    tlm_tab *d = NULL;
    if (nm && ty) {
        for (size_t j = 0; j < nc; j++) {
            nm[j] = names ? names[j] : t->colnames[cols[j]];
            ty[j] = t->coltypes[cols[j]];
        }
        d = tlm_tab_new(name, nc, nm, ty);
    }
    free(nm);
    free(ty);
    if (!d)
        return NULL;
    size_t n = rows ? nr : t->nrows;
    for (size_t i = 0; i < n; i++) {
        long r = tlm_tab_add_row(d);
        if (r < 0)
            break;
        size_t sr = rows ? rows[i] : i;
        for (size_t j = 0; j < nc; j++)
            tlm_tab_copy_cell(d, (size_t)r, j, t, sr, cols[j]);
    }
    if (d->oom) {
        tlm_tab_free(d);
        return NULL;
    }
    return d;
}

/* 1 when no cell of column c has a value. */
int tlm_tab_col_empty(const tlm_tab *t, size_t c)
{
    for (size_t r = 0; r < t->nrows; r++)
        if (!tlm_tab_cell(t, r, c)->null)
            return 0;
    return 1;
}

/* The number of a numeric cell. */
int tlm_tab_num(const tlm_tab *t, size_t r, size_t c, double *v)
{
    const tlm_cell *x = tlm_tab_cell(t, r, c);
    *v = NAN;
    if (x->null)
        return 0;
    switch (t->coltypes[c]) {
    case TLM_COL_F64:
        *v = x->v.f;
        return !isnan(x->v.f);
    case TLM_COL_I64:
    case TLM_COL_BOOL:
        *v = (double)x->v.i;
        return 1;
    case TLM_COL_STR:
        return 0;
    }
    return 0;
}

typedef struct desc_key {
    const tlm_tab *t;
    size_t c;
} desc_key;

/* Descending by number, rows without one last, ties in input order. */
static int desc_cmp(const void *ctx, size_t a, size_t b)
{
    const desc_key *k = ctx;
    double x, y;
    int hx = tlm_tab_num(k->t, a, k->c, &x);
    int hy = tlm_tab_num(k->t, b, k->c, &y);
    if (!hx || !hy)
        return hx == hy ? 0 : (hx ? -1 : 1);
    return (x < y) - (x > y);
}

/* Row indices by column c descending (tlm_sort_idx: stable). */
tlm_status tlm_tab_sort_desc(const tlm_tab *t, size_t c, size_t *rows,
                             size_t n)
{
    desc_key k = {t, c};
    return tlm_sort_idx(rows, n, desc_cmp, &k);
}
