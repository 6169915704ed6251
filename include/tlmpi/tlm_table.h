/*
 * tlm_table.h - the table model's column descriptors (the table layer,
 * src/table/): a table of flat C row structs described column by column
 * (name, element type, offsetof, sizeof, unit, one line of doc), usually
 * generated from an X-macro list (src/table/tables.h: the datasets of the
 * HDF5 file).  The same descriptors give the row struct, the HDF5
 * compound type (mpi/h5write.c), the typed tlm_tab view the CSV,
 * Markdown and workbook writers read, and docs/hdf5-schema.md.
 */
#ifndef TLM_TABLE_H
#define TLM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
