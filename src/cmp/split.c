/*
 * split.c - compare.md §4.5: the three-way split of a joined op-level
 * table for one variant (intersect, only_baseline, only_variant), decided
 * by the split metric's presence, each sorted by that metric descending
 * (stable, missing last; with --tracelens_compat all as pandas'
 * sort_values, tlm_cmp_order_desc), keeping the keys and the columns of the tags
 * involved, then dropping every column that is missing in all its rows
 * (so an empty split has no columns at all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"

/* Rows of one part: want_b / want_v = the base / variant value present. */
static tlm_status part_rows(const tlm_tab *t, size_t cb, size_t cv,
                            int want_b, int want_v, int np, size_t **rows,
                            size_t *n)
{
    size_t *ix = malloc((t->nrows ? t->nrows : 1) * sizeof *ix), k = 0;
    if (!ix)
        return TLM_ENOMEM;
    for (size_t r = 0; r < t->nrows; r++) {
        double x;
        int hb = tlm_tab_num(t, r, cb, &x), hv = tlm_tab_num(t, r, cv, &x);
        if (hb == want_b && hv == want_v)
            ix[k++] = r;
    }
    tlm_status st = tlm_cmp_order_desc(t, want_b ? cb : cv, ix, k, np);
    if (st != TLM_OK) {
        free(ix);
        return st;
    }
    *rows = ix;
    *n = k;
    return TLM_OK;
}

/* The part's table: kept columns, then without all-missing columns. */
static tlm_tab *part_tab(const tlm_cmp_tab *c, const char *name,
                         const size_t *rows, size_t nr, int keep0, int keepv,
                         int v)
{
    const tlm_tab *t = c->t;
    size_t *cols = malloc((t->ncols ? t->ncols : 1) * sizeof *cols), nc = 0;
    if (!cols)
        return NULL;
    for (size_t i = 0; i < t->ncols; i++) {
        int tg = c->tag[i];
        if (c->kind[i] == TLM_CMP_KEY || (tg == 0 && keep0) ||
            (tg == v && keepv))
            cols[nc++] = i;
    }
    tlm_tab *a = tlm_tab_select(t, name, cols, nc, NULL, rows, nr);
    tlm_tab *b = NULL;
    if (a) {
        size_t k = 0;
        for (size_t i = 0; i < a->ncols; i++)
            if (!tlm_tab_col_empty(a, i))
                cols[k++] = i;
        b = tlm_tab_select(a, name, cols, k, NULL, NULL, 0);
        tlm_tab_free(a);
    }
    free(cols);
    return b;
}

tlm_status tlm_cmp_split(const tlm_cmp_tab *c, const char *base,
                         const char *const *tags, int v, const char *split,
                         tlm_tab *out[3], tlm_error *err)
{
    static const char *const part[3] = {"intersect", "only_baseline",
                                        "only_variant"};
    static const int wb[3] = {1, 1, 0}, wv[3] = {1, 0, 1};
    out[0] = out[1] = out[2] = NULL;
    long cb = tlm_cmp_data_col(c, 0, tags[0], split);
    long cv = tlm_cmp_data_col(c, v, tags[v], split);
    if (cb < 0 || cv < 0)
        return tlm_error_set(err, TLM_EFORMAT, NULL, -1,
                             "sheet %s has no column '%s'", base, split);
    for (int p = 0; p < 3; p++) {
        size_t *rows = NULL, nr = 0;
        char name[256];
        int w = snprintf(name, sizeof name, "%s_%s_%s", base, part[p],
                         tags[v]);
        if (w < 0 || (size_t)w >= sizeof name)
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "sheet name %s_%s_%s is too long", base,
                                 part[p], tags[v]);
        if (part_rows(c->t, (size_t)cb, (size_t)cv, wb[p], wv[p],
                      c->np_order, &rows, &nr) == TLM_OK)
            out[p] = part_tab(c, name, rows, nr, wb[p], wv[p], v);
        free(rows);
        if (!out[p]) {
            for (int q = 0; q < p; q++) {
                tlm_tab_free(out[q]);
                out[q] = NULL;
            }
            return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        }
    }
    return TLM_OK;
}
