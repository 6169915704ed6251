/*
 * tlm_table.h - the table model (the table layer, src/table/), in two
 * forms that share one column vocabulary (a name and a type; a unit and
 * one line of doc where known):
 *
 * - tlm_tab: a typed in-memory table of cells (double, int64, text,
 *   bool; any cell may be null), rows appended, columns added, moved or
 *   dropped; the report's sheets, the comparison's tables, the findings
 *   and the HTA tables are built into it, and it prints itself as
 *   pandas' DataFrame.to_csv(index=False) would (tab.c, tab_csv.c).
 * - tlm_rowtab: fixed-size flat C row structs described column by column
 *   (tlm_col: name, element type, offsetof, sizeof, unit, doc), usually
 *   generated from an X-macro list (src/table/tables.h: the datasets of
 *   the HDF5 file).  The same descriptors give the row struct, the HDF5
 *   compound type (mpi/h5write.c), docs/hdf5-schema.md, and a tlm_tab of
 *   the rows (tlm_tab_from_rows) for the CSV, Markdown and workbook
 *   writers.
 */
#ifndef TLM_TABLE_H
#define TLM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================ tlm_tab */

typedef enum tlm_coltype {
    TLM_COL_F64 = 0, /* double; NaN prints as empty */
    TLM_COL_I64 = 1, /* int64 */
    TLM_COL_STR = 2, /* text cell, NULL prints as empty */
    TLM_COL_BOOL = 3 /* True / False */
} tlm_coltype;

typedef struct tlm_cell {
    union {
        double f;
        int64_t i;
        const char *s; /* owned by the table's text arena */
    } v;
    uint8_t null;
    uint32_t len; /* a text cell's length in bytes (tlm_tab_set_s) */
} tlm_cell;

typedef struct tlm_tab_text tlm_tab_text;

typedef struct tlm_tab {
    char name[256];
    size_t ncols;
    char **colnames;
    tlm_coltype *coltypes;
    size_t nrows;
    size_t cap_rows;
    tlm_cell *cells; /* row-major, nrows * ncols */
    tlm_tab_text *text;
    int oom;
    uint8_t *colint; /* NULL, or per column 1: a TLM_COL_F64 column of
                        integral values printed as integers (the report's
                        inttype.c) */
    int32_t *gpu_row; /* NULL, or (the report's unified_perf_summary with
                         opts.keep_gpu_rows) per event UID < n_gpu_row the
                         row whose kernel_details hold that GPU op, -1;
                         freed with the table */
    size_t n_gpu_row;
    uint8_t text_bytes; /* 1: a text cell prints as its len bytes, NULs
                           included (pandas writes them: the HTA tables);
                           0: as a C string, up to its first NUL (the
                           report's sheets, docs/tracelens-differences.md) */
    uint8_t csv_guard; /* 1: CSV text cells and names a spreadsheet would
                          run as a formula get a leading "'" (outside
                          --tracelens_compat; tlm_formula_like) */
} tlm_tab;

/* New empty table.  Column names are copied; types NULL: all
 * TLM_COL_F64.  NULL on ENOMEM. */
tlm_tab *tlm_tab_new(const char *name, size_t ncols,
                     const char *const *colnames, const tlm_coltype *types);
void tlm_tab_free(tlm_tab *t);
/* Appends a row of null cells and returns its index, or -1 on ENOMEM. */
long tlm_tab_add_row(tlm_tab *t);
/* Appends a column of null cells (last).  TLM_ENOMEM (table unchanged). */
tlm_status tlm_tab_append_col(tlm_tab *t, const char *name, tlm_coltype ty);
/* Moves column from to position to, the columns between shifting. */
void tlm_tab_move_col(tlm_tab *t, size_t from, size_t to);
void tlm_tab_set_f(tlm_tab *t, size_t row, size_t col, double v);
void tlm_tab_set_i(tlm_tab *t, size_t row, size_t col, int64_t v);
void tlm_tab_set_b(tlm_tab *t, size_t row, size_t col, int v);
/* Copies n bytes of text into the table (lengths past UINT32_MAX are
 * not kept in len). */
void tlm_tab_set_s(tlm_tab *t, size_t row, size_t col, const char *s,
                   size_t n);
void tlm_tab_set_null(tlm_tab *t, size_t row, size_t col);
tlm_cell *tlm_tab_cell(const tlm_tab *t, size_t row, size_t col);
/* Index of a column by name or -1. */
long tlm_tab_col(const tlm_tab *t, const char *name);
/* Reorders rows: new row i = old row perm[i]. */
tlm_status tlm_tab_permute(tlm_tab *t, const size_t *perm);
/* Truncates to n rows (n <= nrows). */
void tlm_tab_truncate(tlm_tab *t, size_t n);
/* Removes column col (the cells stay in place, rows closer together). */
void tlm_tab_drop_col(tlm_tab *t, size_t col);
/* Inserts k empty (null) columns before column at (at <= ncols), names
 * copied.  Errors: TLM_ENOMEM (the table unchanged). */
tlm_status tlm_tab_insert_cols(tlm_tab *t, size_t at, size_t k,
                               const char *const *names,
                               const tlm_coltype *types);

/* A column of a tlm_tab described as a tlm_col is (the same vocabulary:
 * a name and a type; unit and doc optional, NULL or ""): the HTA tables'
 * definitions, tlm_tab_new_cols. */
typedef struct tlm_tabcol {
    const char *name;
    tlm_coltype type;
    const char *unit; /* "us", "ns", "%", "" or NULL */
    const char *doc;  /* one line, or NULL */
} tlm_tabcol;

/* New empty table of the columns cols[0..n) (names copied).  NULL on
 * ENOMEM. */
tlm_tab *tlm_tab_new_cols(const char *name, const tlm_tabcol *cols,
                          size_t n);

/* ---- operations over tables (tab_ops.c) */
struct tlm_sbuf; /* util's string buffer (sbuf.h) */
/* A new table of the rows rows[0..nr) (all when rows is NULL) and the
 * columns cols[0..nc) of t, named names[i] (t's names when NULL).  NULL
 * on ENOMEM. */
tlm_tab *tlm_tab_select(const tlm_tab *t, const char *name,
                        const size_t *cols, size_t nc,
                        const char *const *names, const size_t *rows,
                        size_t nr);
/* Copies cell (sr, sc) of s into (dr, dc) of d (types may differ: a number
 * into a text column prints as Python's str()). */
void tlm_tab_copy_cell(tlm_tab *d, size_t dr, size_t dc, const tlm_tab *s,
                       size_t sr, size_t sc);
/* Appends a non-missing cell's text as pandas prints an object column's
 * value (Python's str(): 48, 1.5, True, the text itself). */
void tlm_tab_cell_text(const tlm_tab *t, size_t r, size_t c,
                       struct tlm_sbuf *b);
/* 1 when every cell of column c is missing. */
int tlm_tab_col_empty(const tlm_tab *t, size_t c);
/* Stable sort of row indices by column c descending, missing last. */
tlm_status tlm_tab_sort_desc(const tlm_tab *t, size_t c, size_t *rows,
                             size_t n);
/* Number of a numeric cell (int, float, bool); 0 when missing or text. */
int tlm_tab_num(const tlm_tab *t, size_t r, size_t c, double *v);

/* ---- CSV (tab_csv.c): pandas' to_csv(index=False) */
/* Writes the table as pandas' to_csv(index=False) would.  Errors:
 * TLM_EIO, TLM_ENOMEM (messages name path). */
tlm_status tlm_tab_write_csv(const tlm_tab *t, const char *path,
                             tlm_error *err);
/* Same, into a buffer (used by tests). */
void tlm_tab_csv_sbuf(const tlm_tab *t, struct tlm_sbuf *b);
/* The header line, and row r's line, appended to b (for writers that
 * stream the rows themselves). */
void tlm_tab_csv_header(const tlm_tab *t, struct tlm_sbuf *b);
void tlm_tab_csv_row(const tlm_tab *t, size_t r, struct tlm_sbuf *b);

/* ========================================================= tlm_rowtab */

/* Column element types.  Strings are fixed-length, NUL-terminated, UTF-8. */
typedef enum tlm_ctype {
    TLM_CT_I32 = 0,
    TLM_CT_I64 = 1,
    TLM_CT_U64 = 2,
    TLM_CT_F64 = 3,
    TLM_CT_STR = 4
} tlm_ctype;

typedef struct tlm_col {
    const char *name;   /* HDF5 field name */
    tlm_ctype type;
    size_t offset;      /* offsetof in the row struct */
    size_t size;        /* sizeof the member (STR: buffer incl. NUL) */
    const char *unit;   /* "ns", "bytes", "GB/s", "" ... */
    const char *doc;    /* one line for docs/hdf5-schema.md */
} tlm_col;

typedef struct tlm_rowtab {
    const char *name;   /* dataset path below the root, "collectives/summary" */
    const char *doc;    /* one paragraph: what a row is */
    const tlm_col *cols;
    size_t n_cols;
    size_t row_size;    /* sizeof the row struct */
} tlm_rowtab;

/* Generates a column entry from an X-macro line
 * X(KIND, field, strsize, unit, doc); TLM_ROW must name the row struct. */
#define TLM_COL_(k, f, n, u, d)                                           \
    {#f, TLM_CT_##k, offsetof(TLM_ROW, f),                             \
     sizeof(((TLM_ROW *)0)->f), u, d},
/* Generates a struct member from the same line. */
#define TLM_FIELD_I32(f, n) int32_t f;
#define TLM_FIELD_I64(f, n) int64_t f;
#define TLM_FIELD_U64(f, n) uint64_t f;
#define TLM_FIELD_F64(f, n) double f;
#define TLM_FIELD_STR(f, n) char f[n];
#define TLM_FIELD_(k, f, n, u, d) TLM_FIELD_##k(f, n)

/* The tlm_tab type of a fixed-row column: I32 and I64 -> TLM_COL_I64,
 * F64 -> TLM_COL_F64, STR -> TLM_COL_STR, and U64 -> TLM_COL_STR holding
 * the decimal text (a cell holds an int64; the U64 columns are hashes). */
tlm_coltype tlm_col_tabtype(tlm_ctype t);

/* A tlm_tab of the n fixed-size rows rows[0..n) that rt describes
 * (tab_rows.c): named rt->name, one column per tlm_col (its name, its
 * tlm_col_tabtype), a NaN double null, a string up to its NUL or its
 * field's end.  Its CSV (tlm_tab_write_csv) is the dataset's rows as the
 * driver's CSV writers print them, so rank 0 can print any HDF5
 * dataset's rows as a tlm_tab.  Errors: TLM_ENOMEM (*out NULL). */
tlm_status tlm_tab_from_rows(const tlm_rowtab *rt, const void *rows,
                             size_t n, tlm_tab **out);

/* Generates a row struct NAME from an X-macro column list. */
#define TLM_ROWDEF_(NAME, LIST)                                             \
    typedef struct NAME {                                                   \
        LIST(TLM_FIELD_)                                                    \
    } NAME;

/* Defines the descriptor VAR (a tlm_rowtab named NAME, paragraph DOC)
 * of the rows ROW from the same list; TLM_ROW must name ROW. */
#define TLM_ROWTAB_(VAR, ROW, NAME, DOC, LIST)                              \
    static const tlm_col VAR##_cols[] = {LIST(TLM_COL_)};                   \
    const tlm_rowtab VAR = {NAME, DOC, VAR##_cols,                          \
                            sizeof VAR##_cols / sizeof VAR##_cols[0],       \
                            sizeof(ROW)};

/* Copies s into a fixed string field of size cap (truncating at a UTF-8
 * character boundary, always NUL-terminated and NUL-padded).  cap may be
 * 0 (nothing happens). */
void tlm_strset(char *dst, size_t cap, const char *s);

/* Length of s[0..n) without a trailing incomplete UTF-8 sequence. */
size_t tlm_utf8_cut(const char *s, size_t n);

/* Same from a fixed field of srccap bytes that may lack its NUL. */
void tlm_strnset(char *dst, size_t cap, const char *src, size_t srccap);

#ifdef __cplusplus
}
#endif
#endif /* TLM_TABLE_H */
