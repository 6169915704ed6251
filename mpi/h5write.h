/*
 * h5write.h - generic HDF5 table writer of the tlmpi driver.
 *
 * A table is a list of columns over a flat C row struct (offsetof/sizeof,
 * tlm_table.h), usually generated from an X-macro list (src/table/tables.h).  The writer turns
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
#include "tlmpi/tlm_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the in-memory compound type of the table (caller H5Tclose()s).
 * Returns a negative id on failure. */
hid_t tlm_mpi_h5_type(const tlm_rowtab *t);

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
tlm_status tlm_mpi_h5_write_table(hid_t loc, const tlm_rowtab *t,
                                  const void *rows, size_t n_local,
                                  MPI_Comm comm, tlm_error *err);

/* Same, but each rank writes its rows into explicit, disjoint row ranges
 * of a dataset of total rows: segments (first row, count) pairs, sorted by
 * first row and not overlapping; rows holds the segments' rows back to
 * back in that order.  Collective; total must be equal on every rank and
 * the ranges of all ranks must tile [0, total). */
tlm_status tlm_mpi_h5_write_segments(hid_t loc, const tlm_rowtab *t,
                                     const void *rows, const int64_t *seg,
                                     size_t n_seg, int64_t total,
                                     MPI_Comm comm, tlm_error *err);

/* The rows of this rank's segment i (its count rows, valid until the next
 * call): where they are kept, or unpacked into a buffer. */
typedef const void *(*tlm_mpi_seg_fn)(void *arg, size_t i);

/* The same with the rows of segment i at src(arg, i), called once per
 * segment in order (src NULL: rows back to back from rows), so that rows
 * kept per trace are written from where they are, without a copy of the
 * whole table in row order.  With src, no segment may be empty. */
tlm_status tlm_mpi_h5_write_segments_src(hid_t loc, const tlm_rowtab *t,
                                         const void *rows, tlm_mpi_seg_fn src,
                                         void *arg, const int64_t *seg,
                                         size_t n_seg, int64_t total,
                                         MPI_Comm comm, tlm_error *err);

/* The same in one process, without MPI (tlmpi compare): the n rows of
 * rows as dataset t->name below loc, with its attributes. */
tlm_status tlm_mpi_h5_write_local(hid_t loc, const tlm_rowtab *t,
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
