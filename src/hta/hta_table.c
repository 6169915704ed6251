/*
 * hta_table.c - the tables HTA's analyses fill: the table layer's tlm_tab
 * (typed columns: int64, double with NaN as an empty cell, text of any
 * bytes) beside its definition, rows appended by the builders, a result
 * (the tables of one rank, or of a job after tlm_hta_merge), its
 * serialisation for the driver's gathers, and the CSV files
 * <dir>/hta/<table>.csv staged in an output set (tlm_tab's CSV rows).
 */
#include "hta_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"

/* ---------------------------------------------------------------- MARK: -
 * tables */

const char *tlm_hta_table_name(const tlm_hta_table *t)
{
    return t->def->name;
}
const char *tlm_hta_table_doc(const tlm_hta_table *t)
{
    return t->def->doc;
}
size_t tlm_hta_table_cols(const tlm_hta_table *t)
{
    return t->def->ncols;
}
const tlm_hta_col *tlm_hta_table_col(const tlm_hta_table *t, size_t c)
{
    return c < t->def->ncols ? &t->def->cols[c] : NULL;
}
size_t tlm_hta_table_rows(const tlm_hta_table *t)
{
    return t->tab->nrows;
}

/* Cell (r, c) of the table's tlm_tab. */
static const tlm_cell *cell(const tlm_hta_table *t, size_t r, size_t c)
{
    return tlm_tab_cell(t->tab, r, c);
}

int64_t tlm_hta_cell_i64(const tlm_hta_table *t, size_t row, size_t col)
{
    return cell(t, row, col)->v.i;
}
/* NaN for an empty cell (tlm_tab_set_f keeps the NaN it was given). */
double tlm_hta_cell_f64(const tlm_hta_table *t, size_t row, size_t col)
{
    return cell(t, row, col)->v.f;
}
const char *tlm_hta_cell_str(const tlm_hta_table *t, size_t row, size_t col,
                             size_t *len)
{
    const tlm_cell *c = cell(t, row, col);
    if (len)
        *len = c->null ? 0 : c->len;
    return c->null ? "" : c->v.s;
}

tlm_status tlm_hta_row_add(tlm_hta_table *t, size_t *row)
{
    long r = tlm_tab_add_row(t->tab);
    if (r < 0)
        return TLM_ENOMEM;
    for (size_t c = 0; c < t->def->ncols; c++) {
        if (t->def->cols[c].type == TLM_HTA_I64)
            tlm_tab_set_i(t->tab, (size_t)r, c, 0);
        else if (t->def->cols[c].type == TLM_HTA_F64)
            tlm_tab_set_f(t->tab, (size_t)r, c, NAN);
    }
    *row = (size_t)r;
    return TLM_OK;
}

void tlm_hta_set_i64(tlm_hta_table *t, size_t row, size_t col, int64_t v)
{
    tlm_tab_set_i(t->tab, row, col, v);
}

void tlm_hta_set_f64(tlm_hta_table *t, size_t row, size_t col, double v)
{
    tlm_tab_set_f(t->tab, row, col, v);
}

tlm_status tlm_hta_set_str(tlm_hta_table *t, size_t row, size_t col,
                           const char *s, size_t len)
{
    if (len > UINT32_MAX)
        return TLM_ENOMEM; /* a cell keeps 32 bits of length */
    tlm_tab_set_s(t->tab, row, col, s, len);
    return t->tab->oom ? TLM_ENOMEM : TLM_OK;
}

void tlm_hta_table_free(tlm_hta_table *t)
{
    if (!t)
        return;
    tlm_tab_free(t->tab);
    free(t);
}

/* ---------------------------------------------------------------- MARK: -
 * results */

tlm_hta_table *tlm_hta_result_add(tlm_hta_result *r, const tlm_hta_tdef *def)
{
    if (r->n >= TLM_HTA_MAX_TABLES)
        return NULL;
    tlm_hta_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->def = def;
    t->tab = tlm_tab_new_cols(def->name, def->cols, def->ncols);
    if (!t->tab) {
        free(t);
        return NULL;
    }
    t->tab->text_bytes = 1; /* names print whole, as pandas writes them */
    r->t[r->n++] = t;
    return t;
}

void tlm_hta_result_free(tlm_hta_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        tlm_hta_table_free(r->t[i]);
    free(r);
}

size_t tlm_hta_result_tables(const tlm_hta_result *r)
{
    return r->n;
}
const tlm_hta_table *tlm_hta_result_table(const tlm_hta_result *r, size_t i)
{
    return i < r->n ? r->t[i] : NULL;
}
const tlm_hta_table *tlm_hta_result_find(const tlm_hta_result *r,
                                         const char *name)
{
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->t[i]->def->name, name) == 0)
            return r->t[i];
    }
    return NULL;
}
const tlm_hta_notes *tlm_hta_result_notes(const tlm_hta_result *r)
{
    return &r->notes;
}

/* ---------------------------------------------------------------- MARK: -
 * serialisation: "HTA1", notes, n tables; per table its name, rows, and
 * the cells row by row (8 bytes per number, length + bytes per text) */

static void put(tlm_sbuf *b, const void *p, size_t n)
{
    tlm_sbuf_putn(b, (const char *)p, n);
}

tlm_status tlm_hta_pack(const tlm_hta_result *r, void **buf, size_t *len)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    put(&b, "HTA1", 4);
    put(&b, &r->notes, sizeof r->notes);
    uint64_t n = r->n;
    put(&b, &n, 8);
    for (size_t i = 0; i < r->n; i++) {
        const tlm_hta_table *t = r->t[i];
        uint64_t nl = strlen(t->def->name), rows = t->tab->nrows;
        put(&b, &nl, 8);
        put(&b, t->def->name, nl);
        put(&b, &rows, 8);
        for (size_t k = 0; k < t->tab->nrows * t->def->ncols; k++) {
            const tlm_cell *c = &t->tab->cells[k];
            switch (t->def->cols[k % t->def->ncols].type) {
            case TLM_HTA_I64:
                put(&b, &c->v.i, 8);
                break;
            case TLM_HTA_F64:
                put(&b, &c->v.f, 8);
                break;
            default: {
                uint64_t l = c->null ? 0 : c->len;
                put(&b, &l, 8);
                put(&b, c->null ? "" : c->v.s, (size_t)l);
            }
            }
        }
    }
    if (b.oom) {
        tlm_sbuf_free(&b);
        return TLM_ENOMEM;
    }
    *len = b.len;
    *buf = b.p;
    if (!*buf) {
        *buf = malloc(1);
        if (!*buf)
            return TLM_ENOMEM;
    }
    return TLM_OK;
}

typedef struct rd {
    const unsigned char *p;
    size_t left;
} rd;

static int get(rd *r, void *out, size_t n)
{
    if (r->left < n)
        return 0;
    memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return 1;
}

static tlm_status unpack_table(rd *in, tlm_hta_result *r)
{
    uint64_t nl, rows;
    char name[64];
    if (!get(in, &nl, 8) || nl >= sizeof name || !get(in, name, nl))
        return TLM_EFORMAT;
    name[nl] = '\0';
    const tlm_hta_tdef *def = tlm_hta_tdef_find(name);
    if (!def || !get(in, &rows, 8))
        return TLM_EFORMAT;
    tlm_hta_table *t = tlm_hta_result_add(r, def);
    if (!t)
        return TLM_ENOMEM;
    for (uint64_t i = 0; i < rows; i++) {
        size_t row;
        if (tlm_hta_row_add(t, &row) != TLM_OK)
            return TLM_ENOMEM;
        for (size_t c = 0; c < def->ncols; c++) {
            uint64_t l;
            int64_t iv;
            double d;
            if (def->cols[c].type == TLM_HTA_I64) {
                if (!get(in, &iv, 8))
                    return TLM_EFORMAT;
                tlm_hta_set_i64(t, row, c, iv);
            } else if (def->cols[c].type == TLM_HTA_F64) {
                if (!get(in, &d, 8))
                    return TLM_EFORMAT;
                tlm_hta_set_f64(t, row, c, d);
            } else {
                if (!get(in, &l, 8) || l > in->left)
                    return TLM_EFORMAT;
                if (tlm_hta_set_str(t, row, c, (const char *)in->p, l) !=
                    TLM_OK)
                    return TLM_ENOMEM;
                in->p += l;
                in->left -= l;
            }
        }
    }
    return TLM_OK;
}

tlm_status tlm_hta_unpack(const void *buf, size_t len, tlm_hta_result **out)
{
    rd in = {buf, len};
    char magic[4];
    uint64_t n;
    *out = NULL;
    tlm_hta_result *r = calloc(1, sizeof *r);
    if (!r)
        return TLM_ENOMEM;
    tlm_status st = TLM_EFORMAT;
    if (!get(&in, magic, 4) || memcmp(magic, "HTA1", 4) != 0 ||
        !get(&in, &r->notes, sizeof r->notes) || !get(&in, &n, 8) ||
        n > TLM_HTA_MAX_TABLES)
        goto fail;
    for (uint64_t i = 0; i < n; i++) {
        if ((st = unpack_table(&in, r)) != TLM_OK)
            goto fail;
    }
    *out = r;
    return TLM_OK;
fail:
    tlm_hta_result_free(r);
    return st;
}

/* ---------------------------------------------------------------- MARK: -
 * CSV: tlm_tab's rows (pandas' to_csv), streamed in pieces of 1 MiB */

static tlm_status write_csv(const tlm_hta_table *t, const char *path,
                            tlm_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot create");
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_header(t->tab, &b);
    for (size_t r = 0; r < t->tab->nrows; r++) {
        tlm_tab_csv_row(t->tab, r, &b);
        if (b.len > (1u << 20) && !b.oom) {
            fwrite(b.p, 1, b.len, f);
            tlm_sbuf_reset(&b);
        }
    }
    int oom = b.oom;
    if (!oom && b.len)
        fwrite(b.p, 1, b.len, f);
    tlm_sbuf_free(&b);
    tlm_status st = tlm_outset_fclose(f, path, err);
    if (oom)
        return tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    return st;
}

tlm_status tlm_hta_stage_csvs(const tlm_hta_result *r, tlm_outset *set,
                              const char *dir, tlm_error *err)
{
    for (size_t i = 0; i < r->n; i++) {
        char path[4096];
        int k = snprintf(path, sizeof path, "%s/hta/%s.csv", dir,
                         r->t[i]->def->name);
        if (k < 0 || (size_t)k >= sizeof path)
            return tlm_error_set(err, TLM_EINVAL, dir, -1,
                                 "output path too long");
        const char *tmp = NULL;
        tlm_status st = tlm_outset_stage(set, path, &tmp, err);
        if (st == TLM_OK)
            st = write_csv(r->t[i], tmp, err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}
