/*
 * tab_csv.c - a tlm_tab as CSV text.
 *
 * TraceLens writes every sheet with pandas' DataFrame.to_csv(index=False):
 * comma separated, minimal quoting (a field containing ',', '"', '\r' or
 * '\n' is quoted, quotes doubled), "\n" line ends, floats as Python's repr
 * (shortest round-trip digits, exponent form below 1e-4 and from 1e16),
 * NaN/None as an empty field, booleans as True/False, list/tuple cells as
 * their Python repr ([perfreport] §4.13).  The Python text comes from
 * util/pyrepr.c, the quoting from util/csvq.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tlmpi/tlm_table.h"

#include "pyrepr.h"
#include "sbuf.h"

/* MARK: - CSV ------------------------------------------------------------ */

/* Row r: null cells empty (a lone column's as "" so that the line stays),
 * numbers and booleans as pandas prints them, text quoted when needed. */
void tlm_tab_csv_row(const tlm_tab *t, size_t r, tlm_sbuf *b)
{
    for (size_t j = 0; j < t->ncols; j++) {
        if (j)
            tlm_sbuf_putc(b, ',');
        const tlm_cell *c = tlm_tab_cell(t, r, j);
        if (c->null && t->ncols == 1)
            tlm_sbuf_puts(b, "\"\""); /* pandas: a blank line would vanish */
        if (c->null)
            continue;
        switch (t->coltypes[j]) {
        case TLM_COL_F64:
            if (t->colint && t->colint[j])
                tlm_sbuf_printf(b, "%lld", (long long)c->v.f);
            else
                tlm_sbuf_pyfloat(b, c->v.f);
            break;
        case TLM_COL_I64:
            tlm_sbuf_printf(b, "%lld", (long long)c->v.i);
            break;
        case TLM_COL_BOOL:
            tlm_sbuf_puts(b, c->v.i ? "True" : "False");
            break;
        case TLM_COL_STR:
            (t->csv_guard ? tlm_sbuf_csv_guarded : tlm_sbuf_csv_field)(
                b, c->v.s, t->text_bytes ? c->len : strlen(c->v.s));
            break;
        }
    }
    tlm_sbuf_putc(b, '\n');
}

/* The column names, quoted when needed. */
void tlm_tab_csv_header(const tlm_tab *t, tlm_sbuf *b)
{
    for (size_t j = 0; j < t->ncols; j++) {
        if (j)
            tlm_sbuf_putc(b, ',');
        (t->csv_guard ? tlm_sbuf_csv_guarded : tlm_sbuf_csv_field)(
            b, t->colnames[j], strlen(t->colnames[j]));
    }
    tlm_sbuf_putc(b, '\n');
}

/* The whole table into b. */
void tlm_tab_csv_sbuf(const tlm_tab *t, tlm_sbuf *b)
{
    tlm_tab_csv_header(t, b);
    for (size_t r = 0; r < t->nrows; r++)
        tlm_tab_csv_row(t, r, b);
}

/* The whole table into the file path, in pieces of about 1 MiB. */
tlm_status tlm_tab_write_csv(const tlm_tab *t, const char *path,
                             tlm_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot create: %s",
                             strerror(errno));
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_header(t, &b);
    int ok = 1, oom = 0, io_errno = 0;
    for (size_t r = 0; r < t->nrows && ok; r++) {
        tlm_tab_csv_row(t, r, &b);
        if (b.len > (1u << 20) || r + 1 == t->nrows) {
            if (b.oom) {
                ok = 0;
                oom = 1;
            } else if (fwrite(b.p, 1, b.len, f) != b.len) {
                ok = 0;
                io_errno = errno;
            }
            tlm_sbuf_reset(&b);
        }
    }
    if (ok && b.oom) {
        ok = 0;
        oom = 1;
    } else if (ok && b.len && fwrite(b.p, 1, b.len, f) != b.len) {
        ok = 0;
        io_errno = errno;
    }
    tlm_sbuf_free(&b);
    if (fclose(f) != 0 && ok) {
        ok = 0;
        io_errno = errno;
    }
    if (oom)
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "writing table %s: out of memory", t->name);
    if (!ok)
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "writing table %s failed: %s", t->name,
                             strerror(io_errno ? io_errno : EIO));
    return TLM_OK;
}
