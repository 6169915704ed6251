/*
 * cmp_internal.h - what the report comparison's files share (spec
 * compare.md; docs/compare.md):
 *
 *   csv_read.c   a CSV sheet as pandas.read_csv reads it (raw text cells)
 *   rawtab.c     raw cells -> typed tlm_tab (pandas' column typing)
 *   xlsx_read.c  a workbook sheet (libzip + expat) as raw cells
 *   rsrc.c       a report: a folder of CSVs, a workbook, or tables in
 *                memory (a report tlmpi built from a trace)
 *   (column selections and copies of typed tables: the table layer's
 *   tab_ops.c, tlm_table.h)
 *   join.c       the keyed outer join, diff and percentage columns
 *   compare.c    the sheets TraceLens compares, the three-way split
 */
#ifndef TLM_CMP_INTERNAL_H
#define TLM_CMP_INTERNAL_H

#include <stddef.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"

#include "rawtab.h"
#include "sbuf.h"

/* MARK: - CSV ------------------------------------------------------------ */

/* A CSV sheet's bounds: columns (Excel's 16,384, as a workbook's sheet)
 * and cells (rows x columns, 2^23: 256 MiB of raw cells). */
enum { TLM_CSV_MAX_COLS = 16384, TLM_CSV_MAX_CELLS = 1 << 23 };

/* Parses CSV text (label names it in errors).  Errors: TLM_EFORMAT (an
 * unclosed quote, a row with more fields than the header), TLM_ELIMIT
 * (over TLM_CSV_MAX_COLS columns or TLM_CSV_MAX_CELLS cells),
 * TLM_ENOMEM. */
tlm_status tlm_csv_parse(const char *buf, size_t n, const char *label,
                         tlm_rawtab **out, tlm_error *err);
/* Reads a file.  Errors: those of tlm_csv_parse, TLM_ENOTFOUND, TLM_EIO. */
tlm_status tlm_csv_read(const char *path, tlm_rawtab **out, tlm_error *err);

/* MARK: - reports ------------------------------------------------------- */

typedef struct tlm_rsrc tlm_rsrc;

/* A folder of <sheet>.csv files, or any other path as a workbook.
 * Errors: TLM_ENOTFOUND, TLM_EIO, TLM_EFORMAT (not a workbook). */
tlm_status tlm_rsrc_open(const char *path, tlm_rsrc **out, tlm_error *err);
/* A report held as CSV texts (copied): names[i] -> csv[i]. */
tlm_status tlm_rsrc_mem(const char *label, size_t n,
                        const char *const *names, const char *const *csv,
                        const size_t *len, tlm_rsrc **out, tlm_error *err);
void tlm_rsrc_free(tlm_rsrc *r);
const char *tlm_rsrc_path(const tlm_rsrc *r);
/* Sheet names: a folder's *.csv sorted, a workbook's in order. */
size_t tlm_rsrc_nsheets(const tlm_rsrc *r);
const char *tlm_rsrc_sheet(const tlm_rsrc *r, size_t i);
int tlm_rsrc_has(const tlm_rsrc *r, const char *sheet);
/* Loads and types one sheet.  Errors: TLM_ENOTFOUND ("<path> has no
 * '<S>.csv'" / "... no sheet named '<S>'"), those of the readers. */
tlm_status tlm_rsrc_load(tlm_rsrc *r, const char *sheet, tlm_tab **out,
                         tlm_error *err);

/* MARK: - typed table operations ---------------------------------------- */

/* tlm_tab_select, _copy_cell, _cell_text, _col_empty, _sort_desc and
 * _num are the table layer's (tlm_table.h, src/table/tab_ops.c). */

/* MARK: - the comparison ----------------------------------------------- */

/* Where a column of a comparison table came from. */
typedef enum tlm_cmp_colkind {
    TLM_CMP_KEY = 0,  /* a join key */
    TLM_CMP_DATA = 1, /* <tag>::<column> of report `tag` */
    TLM_CMP_DIFF = 2  /* <metric>__<tag>_diff / _pct */
} tlm_cmp_colkind;

/* A joined table and the origin of each column. */
typedef struct tlm_cmp_tab {
    tlm_tab *t;
    unsigned char *kind; /* tlm_cmp_colkind per column */
    int *tag;            /* report index of DATA and DIFF columns, else -1 */
    int np_order;        /* built with compat: the descending sorts are
                          * pandas 1.5's sort_values (numpy's introsort,
                          * ties where it leaves them), else stable */
} tlm_cmp_tab;

void tlm_cmp_tab_free(tlm_cmp_tab *c);

/* compare.md §3: prefixes every non-key column of tabs[i] with tags[i],
 * outer-joins them left to right on keys, adds the diff and percentage
 * columns of metrics against tabs[0] and orders the columns.  label[i]
 * names report i in errors.  Errors: TLM_EFORMAT (a key or metric column
 * missing, a key typed text in one report and numbers in another, a
 * metric that is text), TLM_ENOMEM. */
tlm_status tlm_cmp_build(const tlm_tab *const *tabs,
                         const char *const *tags, const char *const *labels,
                         size_t n, const char *const *keys, size_t nkeys,
                         const char *const *metrics, size_t nmetrics,
                         int compat, tlm_cmp_tab *out, tlm_error *err);

/* Index of DATA column <tagname>::<col> of report tag, or -1. */
long tlm_cmp_data_col(const tlm_cmp_tab *c, int tag, const char *tagname,
                      const char *col);

/* Sorts rows by DATA column `<tag>::<col>` descending (missing last;
 * stable, or pandas' default sort_values with c->np_order).  A missing
 * column leaves the order. */
tlm_status tlm_cmp_sort_desc(tlm_cmp_tab *c, int tag, const char *tagname,
                             const char *col);

/* rows[0..n) of table t ordered by column col descending, missing last:
 * stable (np 0), or as pandas 1.5's sort_values(col, ascending=False)
 * orders those rows (np 1: numpy 1.24's quicksort, src/util/npsort.h;
 * TraceLens's sorts, ties where numpy's introsort leaves them).  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_cmp_order_desc(const tlm_tab *t, size_t col, size_t *rows,
                              size_t n, int np);

/* compare.md §4.5: the split of c for variant v against baseline 0 on the
 * metric `split` (intersect, only_baseline, only_variant); names are
 * <base>_intersect_<vtag> etc.  Errors: TLM_ENOMEM. */
tlm_status tlm_cmp_split(const tlm_cmp_tab *c, const char *base,
                         const char *const *tags, int v, const char *split,
                         tlm_tab *out[3], tlm_error *err);

/* Sheet groups (--sheets). */
enum {
    TLM_CMP_GPU_TIMELINE = 1u << 0,
    TLM_CMP_OPS_SUMMARY = 1u << 1,
    TLM_CMP_KERNEL_SUMMARY = 1u << 2,
    TLM_CMP_OPS_ALL = 1u << 3,
    TLM_CMP_ROOFLINE = 1u << 4,
    TLM_CMP_ALL = (1u << 5) - 1
};

/* Parses one --sheets word ("all" included) into bits (and into named
 * unless it is "all").  -1 if unknown. */
int tlm_cmp_sheet_word(const char *w, unsigned *bits, unsigned *named);

typedef struct tlm_cmp_opts {
    unsigned sheets;     /* TLM_CMP_* (default all) */
    int compat;          /* --tracelens_compat all: TraceLens's quirks */
    unsigned named;      /* groups asked for by their own word */
} tlm_cmp_opts;

/* One output sheet. */
typedef struct tlm_cmp_out {
    tlm_tab *t;           /* name = the full result name */
    unsigned char *hidden; /* per column: hidden in the workbook */
} tlm_cmp_out;

typedef struct tlm_cmp_result {
    tlm_cmp_out *v;
    size_t n, cap;
    char **notes; /* what was skipped and why, for the command to print */
    size_t nnotes;
} tlm_cmp_result;

void tlm_cmp_result_free(tlm_cmp_result *r);

/* compare.md §4: every sheet TraceLens compares, in its order.  reps[0]
 * is the baseline.  Errors: TLM_ENOTFOUND (a sheet missing from a
 * report, naming the report and sheet), TLM_EFORMAT, TLM_ENOMEM. */
tlm_status tlm_cmp_run(tlm_rsrc *const *reps, const char *const *tags,
                       size_t n, const tlm_cmp_opts *o, tlm_cmp_result *out,
                       tlm_error *err);

/* Tags: names[i] when given, else the path's base name without its last
 * suffix (a trailing '/' ignored outside compat; ".json.gz" and ".json"
 * both dropped for traces).  Errors: TLM_EINVAL (empty or repeated tag,
 * a tag longer than 128 bytes or holding a control character or '/'). */
tlm_status tlm_cmp_tags(const char *const *paths, const char *const *names,
                        size_t n, int compat, char **tags, tlm_error *err);

/* MARK: - Markdown and formulas ------------------------------------------ */

typedef struct tlm_cmp_md_in {
    tlm_rsrc *const *reps;
    const char *const *tags;
    size_t n;
    const tlm_cmp_result *res;
    int compat;
} tlm_cmp_md_in;

/* comparison.md before the findings: inputs, GPU timeline, the ops whose
 * time changed most, the sheets written; trace text escaped. */
void tlm_cmp_md(const tlm_cmp_md_in *in, tlm_sbuf *b);

/* Text cells a spreadsheet would run as a formula (= + - @ first, not a
 * number) get a leading "'" (default mode).  Errors: TLM_ENOMEM. */
tlm_status tlm_cmp_guard_formulas(tlm_cmp_result *r, tlm_error *err);

#endif
