/*
 * tlm_xplane.h - XPlane profiles (the `*.xplane.pb` files JAX and
 * TensorFlow write, an XSpace protobuf), read into the flat event model
 * the JAX report needs (docs/formats-xplane.md).
 *
 * What is kept: every plane (its id and name), and of the GPU planes
 * ("/device:GPU:<n>") every line (its display id and display name) and
 * every event: start and duration in picoseconds, the display name of its
 * metadata, and its `hlo_op` stat.  Other planes (the host, metadata
 * planes) are counted, not kept.
 *
 * Bounds: the input (plain or gzip, by content) is decoded in memory up
 * to max_bytes of protobuf; every varint, every length against the bytes
 * left in the enclosing message and every known field's wire type is
 * checked (a first pass over the structure, the events as they are
 * decoded), naming the byte offset and the field on error; each plane's
 * header (name, metadata maps) is unpacked by protobuf-c through an
 * allocator whose total is capped by its size.  The library prints
 * nothing; errors are returned in tlm_error.
 */
#ifndef TLM_XPLANE_H
#define TLM_XPLANE_H

#include <stddef.h>
#include <stdint.h>

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlm_xplane tlm_xplane;

typedef struct tlm_xp_plane {
    int64_t id;       /* XPlane.id (the device ordinal of a GPU plane) */
    const char *name; /* XPlane.name */
    int gpu;          /* 1: a "/device:GPU:<n>" plane (lines kept) */
    uint32_t pid;     /* trace-viewer process id: 1 + id (uint32) */
    uint32_t n_lines; /* lines of the plane (all planes) */
    uint64_t n_events;/* events of the plane (all planes) */
} tlm_xp_plane;

typedef struct tlm_xp_line {
    uint32_t plane;   /* index into the planes */
    uint32_t tid;     /* trace-viewer thread id: display_id, else id */
    const char *name; /* display_name, else name */
} tlm_xp_line;

typedef struct tlm_xp_event {
    int64_t ts_ps;    /* line timestamp_ns * 1000 + offset_ps */
    int64_t dur_ps;   /* duration_ps (>= 0) */
    uint32_t line;    /* index into the lines */
    uint32_t name;    /* string id: metadata display_name, else name */
    uint32_t hlo_op;  /* string id of the hlo_op stat; 0: none */
    uint32_t pad_;
} tlm_xp_event;

typedef struct tlm_xplane_stats {
    uint64_t bytes_in;    /* bytes of the file */
    uint64_t bytes_pb;    /* bytes of protobuf (inflated) */
    int gzip;             /* 1: the file was gzip-compressed */
    uint32_t n_planes, n_gpu_planes;
    uint64_t n_events;    /* all events of all planes */
} tlm_xplane_stats;

typedef struct tlm_xplane_opts {
    uint64_t max_bytes;   /* cap on the protobuf bytes (default 8 GiB) */
} tlm_xplane_opts;

TLM_API void tlm_xplane_opts_init(tlm_xplane_opts *o);

/* Reads an XSpace from path (gzip or not), or, when path is a folder,
 * from the one `*.xplane.pb` file found in it or below it (the
 * `plugins/profile/<run>/` layout; tlm_xplane_locate).  o may be NULL.
 * Errors: TLM_EIO, TLM_EGZIP, TLM_EFORMAT (wire format; offset and field
 * named), TLM_ELIMIT (max_bytes, or an allocation past the cap),
 * TLM_ENOTFOUND (a folder without an xplane), TLM_ENOMEM. */
TLM_API tlm_status tlm_xplane_read_file(const char *path,
                                        const tlm_xplane_opts *o,
                                        tlm_xplane **out, tlm_error *err);
/* The same from memory (name is used in messages). */
TLM_API tlm_status tlm_xplane_read_mem(const void *data, size_t n,
                                       const char *name,
                                       const tlm_xplane_opts *o,
                                       tlm_xplane **out, tlm_error *err);
TLM_API void tlm_xplane_free(tlm_xplane *x);

/* The file an xplane folder stands for: path itself when it is not a
 * folder; else the single `*.xplane.pb` (or `.xplane.pb.gz`) in it or in
 * its subfolders (at most 4 levels, the newest run folder first when JAX
 * wrote several: the last name in byte order).  Errors: TLM_ENOTFOUND,
 * TLM_EINVAL (several in one folder), TLM_ELIMIT (out too small). */
TLM_API tlm_status tlm_xplane_locate(const char *path, char *out,
                                     size_t cap, tlm_error *err);

TLM_API const tlm_xp_plane *tlm_xplane_planes(const tlm_xplane *x,
                                              size_t *n);
TLM_API const tlm_xp_line *tlm_xplane_lines(const tlm_xplane *x, size_t *n);
/* Events of the GPU planes, in file order. */
TLM_API const tlm_xp_event *tlm_xplane_events(const tlm_xplane *x,
                                              size_t *n);
/* An interned string ("" for id 0 or an unknown id). */
TLM_API const char *tlm_xplane_str(const tlm_xplane *x, uint32_t id);
/* Number of string ids (ids are dense: 0 .. count - 1). */
TLM_API uint32_t tlm_xplane_str_count(const tlm_xplane *x);
TLM_API const tlm_xplane_stats *tlm_xplane_stats_get(const tlm_xplane *x);

/* Nonzero when the first n bytes (of inflated content) start like an
 * XSpace: field 1 (planes) with a length that fits, and inside it an
 * XPlane's first field.  complete: the n bytes are the whole file. */
TLM_API int tlm_xplane_sniff(const unsigned char *head, size_t n,
                             int complete);

#ifdef __cplusplus
}
#endif
#endif /* TLM_XPLANE_H */
