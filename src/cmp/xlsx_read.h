/*
 * xlsx_read.h - reading the worksheets of an .xlsx workbook (libzip +
 * expat) into raw tables, as pandas' read_excel (openpyxl engine, first
 * row = header) sees them.
 *
 *     tlm_xlsx *x;
 *     if (tlm_xlsx_open("report.xlsx", &x, &err)) ...
 *     for (size_t i = 0; i < tlm_xlsx_nsheets(x); i++)
 *         puts(tlm_xlsx_sheet_name(x, i));          workbook order
 *     tlm_rawtab *r;
 *     tlm_xlsx_read_sheet(x, "ops_summary", &r, &err);
 *     tlm_rawtab_to_tab(r, "ops_summary", &tab, &err);
 *     tlm_rawtab_free(r);
 *     tlm_xlsx_close(x);
 *
 * What a sheet becomes (xlsx_sheet.c has the details): row 1 is the
 * header; data rows run to the last row holding a value (blank rows
 * inside are rows of empty cells; trailing blank rows are dropped); the
 * width is the widest row's last value; header cells that are numbers
 * or booleans become their Python str(); an empty header cell is
 * "Unnamed: <i>"; duplicate names become x, x.1, x.2 (pandas).  Cells:
 * numbers whose value is integral and fits int64 are TLM_RAW_INT (pandas
 * turns such floats into ints), other numbers TLM_RAW_NUM, strings
 * (shared, inline, formula results) TLM_RAW_STR with _xHHHH_ escapes
 * decoded, booleans TLM_RAW_BOOL, error cells (#N/A) and empty strings
 * missing (pandas gives NaN).
 *
 * Hostile input: every part is read through bounded streams (an entry
 * above 1 GiB uncompressed, or above 1 MiB and 200 times its compressed
 * size, is refused as a zip bomb), XML nesting is limited to 256
 * levels, DTDs are refused, the table a sheet makes is bounded by the
 * cells it holds, and its string cells' texts by 256 MiB (a shared
 * string counted in every cell that uses it: referenced, not copied, so
 * one long string in many cells is refused, not multiplied).  Errors name the file and the part:
 * "xl/worksheets/sheet2.xml: line 3: not well-formed (invalid token)".
 */
#ifndef TLM_XLSX_READ_H
#define TLM_XLSX_READ_H

#include <stddef.h>

#include "rawtab.h"

typedef struct tlm_xlsx tlm_xlsx;

/* Opens the workbook at path and reads its sheet list (and shared
 * strings).  Errors: TLM_EIO (cannot open or read the file),
 * TLM_EFORMAT (not a zip archive, a part missing or malformed),
 * TLM_ELIMIT (a bound above), TLM_ENOMEM. */
tlm_status tlm_xlsx_open(const char *path, tlm_xlsx **out, tlm_error *err);
/* The same over n bytes in memory (not copied: they must outlive x);
 * label names them in messages. */
tlm_status tlm_xlsx_open_mem(const void *data, size_t n, const char *label,
                             tlm_xlsx **out, tlm_error *err);
size_t tlm_xlsx_nsheets(const tlm_xlsx *x);
/* Name of sheet i in workbook order; NULL when i is out of range. */
const char *tlm_xlsx_sheet_name(const tlm_xlsx *x, size_t i);
/* Reads sheet name into a new raw table.  Errors: TLM_ENOTFOUND ("<path>
 * has no sheet named '<name>'"), and those of tlm_xlsx_open. */
tlm_status tlm_xlsx_read_sheet(tlm_xlsx *x, const char *name,
                               tlm_rawtab **out, tlm_error *err);
void tlm_xlsx_close(tlm_xlsx *x);

#endif /* TLM_XLSX_READ_H */
