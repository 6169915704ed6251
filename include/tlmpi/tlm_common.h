/*
 * tlm_common.h - status codes, error reports and the allocator interface
 * shared by every tlmpi module.
 *
 * Contract
 * --------
 * Fallible functions return a tlm_status (TLM_OK == 0).  They take an
 * optional, caller-owned tlm_error *err (NULL allowed): on failure it is
 * filled with the code, the file being read, the byte offset (for .gz input,
 * in the decompressed stream) and a message that says what was being read:
 *
 *     rank3.json.gz: offset 18734211: expected ',' or '}' while reading
 *     traceEvents[51234].args
 *
 * The library never prints, exits or aborts on input or on a failed
 * allocation.  It is not thread-safe per object, but distinct objects may be
 * used from distinct threads.
 */
#ifndef TLM_COMMON_H
#define TLM_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TLM_API __attribute__((visibility("default")))
#define TLM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TLM_API
#define TLM_PRINTF(a, b)
#endif

/* Status codes.  X(name, value, short description). */
#define TLM_STATUS_LIST(X)                                           \
    X(TLM_OK, 0, "success")                                          \
    X(TLM_ENOMEM, 1, "out of memory")                                \
    X(TLM_EIO, 2, "I/O error")                                       \
    X(TLM_EGZIP, 3, "corrupt or truncated gzip stream")              \
    X(TLM_EFORMAT, 4, "malformed JSON")                              \
    X(TLM_ESCHEMA, 5, "unexpected JSON type for a trace field")      \
    X(TLM_ELIMIT, 6, "input exceeds a configured bound")             \
    X(TLM_ERANGE, 7, "number out of range")                          \
    X(TLM_EINVAL, 8, "invalid argument")                             \
    X(TLM_ENOTFOUND, 9, "not found")                                 \
    X(TLM_EEXIST, 10, "already exists")                              \
    X(TLM_EHDF5, 11, "HDF5 error")                                   \
    X(TLM_EMPI, 12, "MPI error")                                     \
    X(TLM_EMISMATCH, 13, "inconsistent data across traces")

typedef enum tlm_status {
#define TLM_X_(name, value, desc) name = value,
    TLM_STATUS_LIST(TLM_X_)
#undef TLM_X_
} tlm_status;

/* Short, static description of a status code ("malformed JSON"). */
TLM_API const char *tlm_status_str(tlm_status st);

/* Where and why something failed.  Caller-owned; fill with tlm_error_set. */
typedef struct tlm_error {
    tlm_status code;
    int64_t offset;   /* byte offset in the (decompressed) input, -1 if none */
    char file[256];   /* file being read, "" if none (truncated if longer) */
    char msg[512];    /* what went wrong and what was being read */
} tlm_error;

/* Clears err (code TLM_OK, offset -1, empty strings).  err may be NULL. */
TLM_API void tlm_error_clear(tlm_error *err);

/* Fills err (if not NULL) and returns code.  file may be NULL. */
TLM_API tlm_status tlm_error_set(tlm_error *err, tlm_status code,
                                 const char *file, int64_t offset,
                                 const char *fmt, ...) TLM_PRINTF(5, 6);

/* Formats err as "file: offset N: msg" into buf (always NUL-terminated when
 * size > 0).  Returns buf. */
TLM_API char *tlm_error_format(const tlm_error *err, char *buf, size_t size);

/* Copies src into dst (always NUL-terminated when cap > 0) with control
 * characters (bytes below 0x20, and 0x7f) written as \n, \r, \t or \xNN,
 * so that a hostile file name or message prints on one line and cannot
 * move the cursor (a backslash stays as it is: messages quote JSON
 * text).  Other bytes (UTF-8) are kept.  A result that does not fit ends
 * in "...".  Returns dst. */
TLM_API char *tlm_escape_ctrl(char *dst, size_t cap, const char *src);

/* tlm_escape_ctrl into one of 8 rotating thread-local buffers of 1 KiB,
 * for a name printed on any line (success lines too): the result stays
 * valid until 8 more calls of the same thread. */
TLM_API const char *tlm_esc(const char *src);

/* What a file of mode m is, for messages: "a folder", "a FIFO", "a
 * socket", "a device", "a regular file" or "not a regular file". */
TLM_API const char *tlm_file_kind(unsigned mode);

/* Opens path for reading as a regular file, the one check every input
 * goes through (traces, reports, workbooks, CSVs, run files): the open
 * has O_NONBLOCK, so a FIFO (or a file swapped for one after it was
 * found) never blocks it, then fstat refuses anything but a regular file
 * (TLM_EINVAL, "not a regular file (a FIFO)", a folder "cannot open:
 * Is a directory"); O_NONBLOCK is cleared
 * before the descriptor is returned.  A failed open is TLM_ENOTFOUND
 * (ENOENT) or TLM_EIO, "cannot open: <errno text>".  *fd: the
 * descriptor (O_CLOEXEC), or -1 on error. */
TLM_API tlm_status tlm_open_input(const char *path, int *fd,
                                  tlm_error *err);
/* "<directory of this executable>/rel" into out (/proc/self/exe, links
 * resolved); 0 when it fits, -1 otherwise.  How tlmpi finds tlmpi-mpi
 * and the install tree beside it. */
TLM_API int tlm_self_dir_path(const char *rel, char *out, size_t cap);

/* The same as a stream ("rb"); *f NULL on error. */
TLM_API tlm_status tlm_fopen_input(const char *path, FILE **f,
                                   tlm_error *err);

/* Allocator hook (NULL: the C library's malloc/realloc/free).  What goes
 * through the tlm_alloc an options struct names: the JSON trace reader's
 * allocations (tlm_trace_read_file/_mem: the trace, its events, argument
 * blob, interned strings, input and inflate buffers; docs/reader.md), the
 * rocprofv3 reader's (tlm_rocprof_read_file/_mem) and the arrays the
 * collective analysis returns (tlm_coll.h, tlm_cause.h; freed with
 * tlm_coll_free).  Everything else (the XPlane reader, tree, perf,
 * report, cmp, diff, hta, find, synth, replay, util's helpers, the merged
 * timeline of tlm_mtrace.h, coll_window's correlation map, the driver)
 * calls the C library's malloc, calloc, realloc, strdup and free
 * directly; mpi_test_allocfail fails those allocations one by one by
 * wrapping malloc, calloc and realloc at link time (docs/robustness.md).
 * Either way a failed allocation is TLM_ENOMEM, never an abort. */
typedef struct tlm_alloc {
    void *(*malloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t size);
    void (*free_fn)(void *ctx, void *ptr);
    void *ctx;
} tlm_alloc;

/* The default allocator (never NULL). */
TLM_API const tlm_alloc *tlm_alloc_default(void);

/* Deterministic 64-bit hash (FNV-1a, then a 64-bit finaliser) of len bytes.
 * The same bytes hash to the same value on every rank and every run. */
TLM_API uint64_t tlm_hash64(const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* TLM_COMMON_H */
