/*
 * tab_rows.c - the two forms of the table model side by side: a tlm_tab
 * from column descriptors (tlm_tabcol), and a tlm_tab holding the rows of
 * a fixed-row table (tlm_rowtab: the HDF5 file's datasets), so that one
 * CSV, Markdown or workbook writer serves both.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_table.h"

/* Column names and types out of descriptors, into a new table. */
tlm_tab *tlm_tab_new_cols(const char *name, const tlm_tabcol *cols, size_t n)
{
    const char **names = calloc(n ? n : 1, sizeof *names);
    tlm_coltype *types = calloc(n ? n : 1, sizeof *types);
    tlm_tab *t = NULL;
    if (names && types) {
        for (size_t i = 0; i < n; i++) {
            names[i] = cols[i].name;
            types[i] = cols[i].type;
        }
        t = tlm_tab_new(name, n, names, types);
    }
    free(names);
    free(types);
    return t;
}

/* The tlm_tab type a fixed-row column's values take. */
tlm_coltype tlm_col_tabtype(tlm_ctype t)
{
    switch (t) {
    case TLM_CT_I32:
    case TLM_CT_I64:
        return TLM_COL_I64;
    case TLM_CT_F64:
        return TLM_COL_F64;
    case TLM_CT_U64:
    case TLM_CT_STR:
        break;
    }
    return TLM_COL_STR;
}

/* Cell (r, j) of t from the field c of one row. */
static void set_field(tlm_tab *t, size_t r, size_t j, const tlm_col *c,
                      const char *row)
{
    const char *p = row + c->offset;
    int32_t i32;
    int64_t i64;
    uint64_t u64;
    double d;
    char buf[24];
    switch (c->type) {
    case TLM_CT_I32:
        memcpy(&i32, p, sizeof i32);
        tlm_tab_set_i(t, r, j, i32);
        break;
    case TLM_CT_I64:
        memcpy(&i64, p, sizeof i64);
        tlm_tab_set_i(t, r, j, i64);
        break;
    case TLM_CT_U64:
        memcpy(&u64, p, sizeof u64);
        snprintf(buf, sizeof buf, "%" PRIu64, u64);
        tlm_tab_set_s(t, r, j, buf, strlen(buf));
        break;
    case TLM_CT_F64:
        memcpy(&d, p, sizeof d);
        tlm_tab_set_f(t, r, j, d); /* NaN: null */
        break;
    case TLM_CT_STR:
        tlm_tab_set_s(t, r, j, p, strnlen(p, c->size));
        break;
    }
}

/* The rows as a new table, one tlm_tabcol per tlm_col. */
tlm_status tlm_tab_from_rows(const tlm_rowtab *rt, const void *rows,
                             size_t n, tlm_tab **out)
{
    *out = NULL;
    size_t nc = rt->n_cols;
    tlm_tabcol *cols = calloc(nc ? nc : 1, sizeof *cols);
    if (!cols)
        return TLM_ENOMEM;
    for (size_t j = 0; j < nc; j++)
        cols[j] = (tlm_tabcol){rt->cols[j].name,
                               tlm_col_tabtype(rt->cols[j].type),
                               rt->cols[j].unit, rt->cols[j].doc};
    tlm_tab *t = tlm_tab_new_cols(rt->name, cols, nc);
    free(cols);
    if (!t)
        return TLM_ENOMEM;
    for (size_t r = 0; r < n; r++) {
        const char *row = (const char *)rows + r * rt->row_size;
        long k = tlm_tab_add_row(t);
        if (k < 0)
            break;
        for (size_t j = 0; j < nc; j++)
            set_field(t, (size_t)k, j, &rt->cols[j], row);
    }
    if (t->oom) {
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    *out = t;
    return TLM_OK;
}
