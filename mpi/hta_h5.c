/*
 * hta_h5.c - the HTA tables as HDF5 datasets /hta/<table> (compound,
 * field names = the CSV headers, "doc"/"columns"/"units" attributes as
 * every table of the file); their part of --print_schema is
 * src/out/report0.c's.  The row layout is made from the table itself: text columns are as wide as their
 * longest value (+ NUL), so every rank, holding the same joined result
 * (phase_hta.c), builds the same layout; rank 0 passes the rows.
 */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "h5write.h"
#include "hta_mpi.h"

/* Widest text field of /hta (bytes with the NUL): longer text (a name
 * from a hostile trace) is cut at a UTF-8 boundary; the CSVs keep it. */
#define TLM_MPI_HTA_STR_MAX 65536

static tlm_ctype ctype(tlm_hta_type t)
{
    return t == TLM_HTA_I64 ? TLM_CT_I64
                            : t == TLM_HTA_F64 ? TLM_CT_F64 : TLM_CT_STR;
}

/* The layout of one table; cols and the names are malloc'd into *mt. */
static tlm_status layout(const tlm_hta_table *t, tlm_rowtab *mt,
                         tlm_col **cols, char *name, size_t ncap)
{
    size_t nc = tlm_hta_table_cols(t), off = 0;
    tlm_col *c = calloc(nc ? nc : 1, sizeof *c);
    if (!c)
        return TLM_ENOMEM;
    for (size_t i = 0; i < nc; i++) {
        const tlm_hta_col *h = tlm_hta_table_col(t, i);
        size_t size = 8;
        if (h->type == TLM_HTA_STR) {
            size = 2;
            for (size_t r = 0; r < tlm_hta_table_rows(t); r++) {
                size_t len;
                tlm_hta_cell_str(t, r, i, &len);
                if (len + 1 > size)
                    size = len + 1;
            }
            if (size > TLM_MPI_HTA_STR_MAX) /* a hostile name: bounded */
                size = TLM_MPI_HTA_STR_MAX;
        }
        c[i] = (tlm_col){h->name, ctype(h->type), off, size,
                             h->unit, "HTA column (docs/hta.md)"};
        off += size;
    }
    snprintf(name, ncap, "hta/%s", tlm_hta_table_name(t));
    *mt = (tlm_rowtab){name, tlm_hta_table_doc(t), c, nc, off ? off : 1};
    *cols = c;
    return TLM_OK;
}

/* The table's doc, with the quirks that changed its numbers (issue 23:
 * "flagged in report.md and in the table's HDF5 doc"). */
static const char *doc_of(const tlm_hta_table *t, const tlm_hta_notes *n,
                          char *buf, size_t cap)
{
    const char *name = tlm_hta_table_name(t), *doc = tlm_hta_table_doc(t);
    if (!strcmp(name, "temporal_breakdown") && n->n_temporal_neg)
        snprintf(buf, cap, "%s. Q2: a negative time on %llu rank(s) "
                 "(HTA raises and gives no table there)", doc,
                 (unsigned long long)n->n_temporal_neg);
    else if (!strcmp(name, "frequent_cuda_kernel_sequences") &&
             n->n_seq_clamped)
        snprintf(buf, cap, "%s. Q9: %llu negative durations taken as 0 in "
                 "the call stacks (HTA raises)", doc,
                 (unsigned long long)n->n_seq_clamped);
    else
        return doc;
    return buf;
}

static void fill_rows(const tlm_hta_table *t, const tlm_rowtab *mt,
                      char *rows)
{
    for (size_t r = 0; r < tlm_hta_table_rows(t); r++) {
        char *row = rows + r * mt->row_size;
        for (size_t i = 0; i < mt->n_cols; i++) {
            const tlm_col *c = &mt->cols[i];
            if (c->type == TLM_CT_I64) {
                int64_t v = tlm_hta_cell_i64(t, r, i);
                memcpy(row + c->offset, &v, 8);
            } else if (c->type == TLM_CT_F64) {
                double v = tlm_hta_cell_f64(t, r, i);
                memcpy(row + c->offset, &v, 8);
            } else {
                size_t len;
                const char *s = tlm_hta_cell_str(t, r, i, &len);
                size_t k = len < c->size ? len : tlm_utf8_cut(s, c->size - 1);
                memset(row + c->offset, 0, c->size);
                memcpy(row + c->offset, s, k);
            }
        }
    }
}

tlm_status tlm_mpi_hta_write_h5(const tlm_mpi_ctx *c,
                                const tlm_hta_result *hta, hid_t f,
                                tlm_error *err)
{
    if (!c->o.hta || !hta)
        return TLM_OK;
    tlm_status st = TLM_OK;
    for (size_t k = 0; k < tlm_hta_result_tables(hta) && st == TLM_OK;
         k++) {
        const tlm_hta_table *t = tlm_hta_result_table(hta, k);
        tlm_rowtab mt;
        tlm_col *cols = NULL;
        char name[128];
        char *rows = NULL;
        size_t n = c->me == 0 ? tlm_hta_table_rows(t) : 0;
        char doc[1024];
        tlm_status ls = layout(t, &mt, &cols, name, sizeof name);
        mt.doc = doc_of(t, tlm_hta_result_notes(hta), doc, sizeof doc);
        if (ls == TLM_OK && n) {
            rows = calloc(n, mt.row_size);
            if (rows)
                fill_rows(t, &mt, rows);
            else
                ls = TLM_ENOMEM;
        }
        st = tlm_mpi_agree(ls, c->comm);
        if (st == TLM_OK)
            st = tlm_mpi_h5_write_table(f, &mt, rows, n, c->comm, err);
        else
            tlm_error_set(err, st, NULL, -1, "out of memory writing /hta");
        free(rows);
        free(cols);
    }
    return st;
}
