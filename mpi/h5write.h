/*
 * h5write.h - generic HDF5 table writer of the tlmpi driver.
 *
 * A table is a list of columns over a flat C row struct (offsetof/sizeof),
 * usually generated from an X-macro list (see tables.h).  The writer turns
 * the column list into an HDF5 compound type (fixed-length strings, never
 * variable-length) and writes one 1-D dataset, chunked and deflate
 * compressed.  Rank 0 holds the file, built in memory (HDF5's core
 * driver); every rank contributes its rows, sent to rank 0 in bounded
 * messages.  No HDF5 call is collective.
 *
 * The table writers are collective over the communicator (MPI only): all
 * ranks call them, with the same table.  Errors are returned as a
 * tlm_status with a message in err; every rank returns the agreed status.
 */
#ifndef TLM_MPI_H5WRITE_H
#define TLM_MPI_H5WRITE_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>
#include <mpi.h>

#include "tlmpi/tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Column element types.  Strings are fixed-length, NUL-terminated, UTF-8. */
typedef enum tlm_mpi_ctype {
    TLM_MPI_I32 = 0,
    TLM_MPI_I64 = 1,
    TLM_MPI_U64 = 2,
    TLM_MPI_F64 = 3,
    TLM_MPI_STR = 4
} tlm_mpi_ctype;

typedef struct tlm_mpi_col {
    const char *name;   /* HDF5 field name */
    tlm_mpi_ctype type;
    size_t offset;      /* offsetof in the row struct */
    size_t size;        /* sizeof the member (STR: buffer incl. NUL) */
    const char *unit;   /* "ns", "bytes", "GB/s", "" ... */
    const char *doc;    /* one line for docs/hdf5-schema.md */
} tlm_mpi_col;

typedef struct tlm_mpi_table {
    const char *name;   /* dataset path below the root, "collectives/summary" */
    const char *doc;    /* one paragraph: what a row is */
    const tlm_mpi_col *cols;
    size_t n_cols;
    size_t row_size;    /* sizeof the row struct */
} tlm_mpi_table;

/* Generates a column entry from an X-macro line
 * X(KIND, field, strsize, unit, doc); TLM_MPI_ROW must name the row struct. */
#define TLM_MPI_COL_(k, f, n, u, d)                                      \
    {#f, TLM_MPI_##k, offsetof(TLM_MPI_ROW, f),                           \
     sizeof(((TLM_MPI_ROW *)0)->f), u, d},
/* Generates a struct member from the same line. */
#define TLM_MPI_FIELD_I32(f, n) int32_t f;
#define TLM_MPI_FIELD_I64(f, n) int64_t f;
#define TLM_MPI_FIELD_U64(f, n) uint64_t f;
#define TLM_MPI_FIELD_F64(f, n) double f;
#define TLM_MPI_FIELD_STR(f, n) char f[n];
#define TLM_MPI_FIELD_(k, f, n, u, d) TLM_MPI_FIELD_##k(f, n)

/* Copies s into a fixed string field of size cap (truncating at a UTF-8
 * character boundary, always NUL-terminated and NUL-padded).  cap may be
 * 0 (nothing happens). */
void tlm_mpi_strset(char *dst, size_t cap, const char *s);

/* Length of s[0..n) without a trailing incomplete UTF-8 sequence. */
size_t tlm_mpi_utf8_cut(const char *s, size_t n);

/* Same from a fixed field of srccap bytes that may lack its NUL. */
void tlm_mpi_strnset(char *dst, size_t cap, const char *src, size_t srccap);

/* Builds the in-memory compound type of the table (caller H5Tclose()s).
 * Returns a negative id on failure. */
hid_t tlm_mpi_h5_type(const tlm_mpi_table *t);

/* Rank 0: creates the file in memory (written to path when closed); *file
 * is its id.  Other ranks: *file = -1, TLM_OK.  Not collective. */
tlm_status tlm_mpi_h5_create(const char *path, MPI_Comm comm, hid_t *file,
                             tlm_error *err);

/* Closes the file at path.  Collective.  failed (any rank's) says that
 * writing failed and the file will be discarded.  When writing failed (or,
 * in a single process, a flush before the close fails: a full disk), rank
 * 0 truncates the file, which is garbage by then, so that the metadata
 * HDF5 must still write on close fits: HDF5 1.10 leaves a file whose close
 * failed half-closed and crashes in MPI_Finalize.  Returns TLM_EHDF5 when
 * writing, the flush or the close failed (the data is not on disk). */
tlm_status tlm_mpi_h5_close(hid_t file, const char *path, int failed,
                            MPI_Comm comm, tlm_error *err);

/* Writes the table as dataset t->name below loc (intermediate groups are
 * created).  Each rank passes its rows (n_local, may be 0 with rows NULL);
 * rank k's rows land after the rows of ranks 0..k-1 (MPI_Exscan).
 * Collective.  Attributes written: "doc" (string), "columns" and "units"
 * (string arrays, one per column). */
tlm_status tlm_mpi_h5_write_table(hid_t loc, const tlm_mpi_table *t,
                                  const void *rows, size_t n_local,
                                  MPI_Comm comm, tlm_error *err);

/* Same, but each rank writes its rows into explicit, disjoint row ranges
 * of a dataset of total rows: segments (first row, count) pairs, sorted by
 * first row and not overlapping; rows holds the segments' rows back to
 * back in that order.  Collective; total must be equal on every rank and
 * the ranges of all ranks must tile [0, total). */
tlm_status tlm_mpi_h5_write_segments(hid_t loc, const tlm_mpi_table *t,
                                     const void *rows, const int64_t *seg,
                                     size_t n_seg, int64_t total,
                                     MPI_Comm comm, tlm_error *err);

/* The same in one process, without MPI (tlmpi compare): the n rows of
 * rows as dataset t->name below loc, with its attributes. */
tlm_status tlm_mpi_h5_write_local(hid_t loc, const tlm_mpi_table *t,
                                  const void *rows, size_t n,
                                  tlm_error *err);

/* Scalar attributes on an object (file, group or dataset).  Collective:
 * every rank passes the same value. */
tlm_status tlm_mpi_h5_attr_str(hid_t obj, const char *name,
                               const char *value, tlm_error *err);
tlm_status tlm_mpi_h5_attr_i64(hid_t obj, const char *name, int64_t value,
                               tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_H5WRITE_H */
