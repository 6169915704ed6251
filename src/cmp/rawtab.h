/*
 * rawtab.h - a table of untyped cells as a reader finds them (a CSV field,
 * a workbook cell), before pandas-style column typing (spec compare.md
 * §2.2) turns it into a typed tlm_tab.
 *
 *     tlm_rawtab *r = tlm_rawtab_new(ncols, names);
 *     long row = tlm_rawtab_add_row(r);
 *     tlm_rawtab_set_text(r, row, 0, "48", 2);     CSV: classified later
 *     tlm_rawtab_set_num(r, row, 1, 1.5);          workbook number
 *     tlm_rawtab_set_int(r, row, 2, 48);           workbook integer text
 *     tlm_rawtab_set_str(r, row, 3, "x", 1);       workbook string
 *     tlm_rawtab_set_bool(r, row, 4, 1);
 *     tlm_tab *t; tlm_rawtab_to_tab(r, "sheet", &t, &err);
 *
 * Cells not set are empty (missing).  Texts are copied.  Out of memory
 * is sticky (r->oom) and reported by tlm_rawtab_to_tab.
 */
#ifndef TLM_RAWTAB_H
#define TLM_RAWTAB_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_table.h"

typedef enum tlm_rawkind {
    TLM_RAW_EMPTY = 0, /* missing */
    TLM_RAW_TEXT = 1,  /* CSV field: missing/int/float/bool/string by text */
    TLM_RAW_NUM = 2,   /* workbook number (double) */
    TLM_RAW_INT = 3,   /* workbook integer */
    TLM_RAW_STR = 4,   /* workbook string: typed as TEXT (read_excel) */
    TLM_RAW_BOOL = 5   /* workbook boolean */
} tlm_rawkind;

typedef struct tlm_rawcell {
    uint8_t kind;
    union {
        double f;
        int64_t i;
        int b;
    } v;
    const char *s; /* TEXT / STR: NUL-terminated copy */
    size_t n;      /* its length */
} tlm_rawcell;

typedef struct tlm_rawtab {
    size_t ncols, nrows, cap;
    char **colnames;
    tlm_rawcell *cells; /* row-major */
    struct tlm_rawarena *arena;
    int oom;
} tlm_rawtab;

tlm_rawtab *tlm_rawtab_new(size_t ncols, const char *const *colnames);
void tlm_rawtab_free(tlm_rawtab *r);
/* Appends a row of empty cells; its index or -1 (and oom). */
long tlm_rawtab_add_row(tlm_rawtab *r);
void tlm_rawtab_set_text(tlm_rawtab *r, size_t row, size_t col,
                         const char *s, size_t n);
void tlm_rawtab_set_str(tlm_rawtab *r, size_t row, size_t col, const char *s,
                        size_t n);
void tlm_rawtab_set_num(tlm_rawtab *r, size_t row, size_t col, double v);
void tlm_rawtab_set_int(tlm_rawtab *r, size_t row, size_t col, int64_t v);
void tlm_rawtab_set_bool(tlm_rawtab *r, size_t row, size_t col, int v);

/* Types each column as pandas does (compare.md §2.2) and builds the
 * table.  Errors: TLM_ENOMEM. */
tlm_status tlm_rawtab_to_tab(const tlm_rawtab *r, const char *name,
                             tlm_tab **out, tlm_error *err);

#endif
