/*
 * tlm_sniff.h - is this file a trace?  Decided from its content only (the
 * name never matters), from at most the first head_cap bytes (inflated
 * when the file is gzip-compressed), without reading the whole file.
 *
 * Used by every place that finds traces in folders (`--trace_dir` of the
 * analysis, `tlmpi audit`) and by every command that reads a trace, to
 * dispatch on tlm_sniff.format (docs/formats.md).  The full read (tlm_trace.h) stays the
 * judge of whether a trace is valid: a file sniffed as TRACE may still
 * fail to read (it is then named as a bad trace); a file sniffed as
 * NOT_TRACE is never handed to the reader.
 *
 * Bounds: one open, one read of at most head_cap bytes of the file, at
 * most head_cap bytes inflated (a gzip bomb costs nothing more); FIFOs,
 * devices, sockets and folders are never read (verdict NOT_TRACE, reason
 * "not a regular file").  No allocation beyond two head_cap buffers.
 */
#ifndef TLM_SNIFF_H
#define TLM_SNIFF_H

#include <stddef.h>
#include <stdint.h>

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default head size (bytes) looked at. */
#define TLM_SNIFF_HEAD_DEFAULT (64 * 1024)

typedef enum tlm_sniff_verdict {
    TLM_SNIFF_NOT_TRACE = 0, /* reason says what it is instead */
    TLM_SNIFF_TRACE = 1,
    TLM_SNIFF_UNREADABLE = 2 /* open/read failed: reason has strerror */
} tlm_sniff_verdict;

/* What the content is (later formats extend the list). */
typedef enum tlm_sniff_format {
    TLM_FORMAT_UNKNOWN = 0,
    TLM_FORMAT_KINETO_JSON = 1, /* {"traceEvents": ...} or a bare [event] */
    TLM_FORMAT_ROCPROF_JSON = 2, /* rocprofv3 --output-format json:
                                  * {"rocprofiler-sdk-tool": [...]} */
    TLM_FORMAT_XPLANE = 3,       /* XSpace protobuf (JAX *.xplane.pb) */
} tlm_sniff_format;

/* Short stable name of a format: "kineto-json", "rocprof-json",
 * "xplane", or "unknown" (never NULL). */
TLM_API const char *tlm_sniff_format_name(int format);

typedef struct tlm_sniff {
    int verdict;          /* tlm_sniff_verdict */
    int format;           /* tlm_sniff_format */
    int gzip;             /* 1: the file is gzip-compressed */
    int64_t dist_rank;    /* distributedInfo.rank, -1 when not seen */
    int64_t dist_world;   /* distributedInfo.world_size, -1 when not seen */
    int64_t size;         /* bytes on disk */
    uint64_t dev, ino;    /* identity of the file (symlinks resolved) */
    int by_tlmpi;         /* 1: a JSON that names tlmpi as its writer
                           * at its start (otherData.generator "tlmpi
                           * ...": tlmpi's --merged_trace) */
    char reason[96];      /* NOT_TRACE / UNREADABLE: why, e.g. "JSON
                           * without traceEvents", "HDF5 file", "empty
                           * file", "Permission denied" */
} tlm_sniff;

/* Sniffs the file at path (symlinks followed; only a regular file is
 * read).  head_cap 0 means TLM_SNIFF_HEAD_DEFAULT.  Always fills *out;
 * returns TLM_OK, or TLM_ENOMEM (nothing else: an unreadable file is a
 * verdict, not an error). */
TLM_API tlm_status tlm_trace_sniff(const char *path, size_t head_cap, tlm_sniff *out);

/* The same on a head already in memory: the first n bytes of the
 * (inflated) content; complete is 1 when they are the whole document.
 * Fills verdict, format, dist_rank, dist_world and reason (not gzip,
 * size, dev, ino).  Reads nothing past head[n - 1]. */
TLM_API void tlm_trace_sniff_mem(const char *head, size_t n, int complete,
                                 tlm_sniff *out);

#ifdef __cplusplus
}
#endif
#endif /* TLM_SNIFF_H */
