/*
 * fuzz_xlsx.c - libFuzzer target for the workbook reader (src/cmp/
 * xlsx_read.c, xlsx_sheet.c, xlsx_zip.c) and the column typing
 * (rawtab_type.c).
 *
 * Input: the bytes of a file.  Properties: opening never crashes and
 * either fails with a status and a terminated message or lists sheets
 * with names; every sheet then reads or fails cleanly; a table read has
 * named columns and cells of a known kind, texts terminated at their
 * length; typing it gives a table of the same shape.  A violation calls
 * abort().
 */
#include "xlsx_read.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_xlsx: %s\n", what);
        abort();
    }
}

static void check_table(const tlm_rawtab *r, const char *name)
{
    for (size_t c = 0; c < r->ncols; c++)
        check(r->colnames[c] != NULL, "column name");
    for (size_t i = 0; i < r->nrows * r->ncols; i++) {
        const tlm_rawcell *cl = &r->cells[i];
        check(cl->kind <= TLM_RAW_BOOL, "cell kind");
        if (cl->kind == TLM_RAW_STR || cl->kind == TLM_RAW_TEXT)
            check(cl->s && cl->s[cl->n] == '\0', "text");
    }
    tlm_tab *t = NULL;
    tlm_error err;
    if (tlm_rawtab_to_tab(r, name, &t, &err) != TLM_OK)
        return;
    check(t->nrows == r->nrows && t->ncols == r->ncols, "typed shape");
    tlm_tab_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tlm_xlsx *x = NULL;
    tlm_error err;
    tlm_error_clear(&err);
    if (tlm_xlsx_open_mem(data, size, "fuzz.xlsx", &x, &err) != TLM_OK) {
        check(x == NULL, "no book on failure");
        check(memchr(err.msg, 0, sizeof err.msg) != NULL, "message");
        check(err.code != TLM_OK, "status");
        return 0;
    }
    for (size_t i = 0; i < tlm_xlsx_nsheets(x); i++) {
        const char *name = tlm_xlsx_sheet_name(x, i);
        check(name != NULL, "sheet name");
        tlm_rawtab *r = NULL;
        if (tlm_xlsx_read_sheet(x, name, &r, &err) == TLM_OK) {
            check_table(r, name);
            tlm_rawtab_free(r);
        } else {
            check(r == NULL, "no table on failure");
        }
    }
    tlm_xlsx_close(x);
    return 0;
}
