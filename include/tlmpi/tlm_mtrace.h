/*
 * tlm_mtrace.h - the merged, clock-aligned timeline of a job (coll layer):
 * one Chrome / Perfetto JSON trace (gzip) holding every rank as its own
 * process, timestamps corrected by the clock offsets of tlm_coll.h, and
 * each matched collective instance linked across ranks by flow events
 * (docs/views.md).
 *
 * The driver (mpi/phase_timeline.c) streams it in three steps, so that memory
 * never depends on the number of events:
 *
 *   read     tlm_mtrace_part_write(): the events of one trace that the
 *            filter keeps, as binary "part" records in a local temporary
 *            file (timestamp apart from the rest of the JSON text, since
 *            the offsets are not known yet), plus one anchor per
 *            collective (its first kernel) kept in memory
 *   roles    tlm_mtrace_roles(): the anchors of each instance, routed to
 *            one owner, ordered by corrected time: the first starts the
 *            flow (ph "s"), the last ends it ("f"), the others step ("t")
 *   emit     tlm_mtrace_emit_part() / tlm_mtrace_emit_flows() through a
 *            tlm_mtrace_z: raw deflate segments ending on a byte
 *            boundary (Z_SYNC_FLUSH) that rank 0 joins into one gzip
 *            member (tlm_mtrace_gzip_header / _trailer, crc32_combine).
 *
 * Every string taken from a trace (event, thread and process-group names)
 * is hostile: cut at TLM_MTRACE_STR_MAX bytes on a UTF-8 boundary, invalid
 * UTF-8 replaced by U+FFFD, quotes, backslashes and control characters
 * escaped.  No printing, no exiting.
 */
#ifndef TLM_MTRACE_H
#define TLM_MTRACE_H

#include <stdint.h>
#include <stdio.h>

#include "tlm_coll.h"
#include "tlm_common.h"
#include "tlm_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest string copied from a trace into the merged trace (bytes). */
#define TLM_MTRACE_STR_MAX 512

/* Which events --merged_trace_filter keeps. */
typedef enum tlm_mtrace_filter {
    TLM_MTRACE_ALL = 0,         /* every complete ("X") event */
    TLM_MTRACE_KERNELS = 1,     /* GPU events: kernels, memcpy, memset */
    TLM_MTRACE_COLLECTIVES = 2  /* collective kernels and the CPU ops that
                                 * launched them */
} tlm_mtrace_filter;

/* "all", "kernels" or "collectives" into *out.  Returns 0, or -1 for any
 * other text (out untouched). */
TLM_API int tlm_mtrace_filter_parse(const char *s, tlm_mtrace_filter *out);

/* Name of a filter ("all", ...). */
TLM_API const char *tlm_mtrace_filter_name(tlm_mtrace_filter f);

/* Flow roles (tlm_mtrace_anchor.role). */
enum {
    TLM_MTRACE_ROLE_NONE = 0,  /* no flow: unmatched or alone */
    TLM_MTRACE_ROLE_START = 's',
    TLM_MTRACE_ROLE_STEP = 't',
    TLM_MTRACE_ROLE_END = 'f'
};

/* A collective member's first kernel on one trace, where its flow event
 * goes.  Flat, pointer-free (moved between MPI ranks as bytes). */
typedef struct tlm_mtrace_anchor {
    uint64_t match_key;      /* instance identity (tlm_coll_record) */
    int64_t seq;
    int64_t ts_ns;           /* flow time: the middle of the kernel, on the
                              * trace's clock (the event's "ts") */
    uint64_t event_index;    /* the kernel's index in its trace */
    uint64_t flow_id;        /* tlm_mtrace_flow_id(match_key, seq) */
    int32_t trace_rank;
    uint32_t tid;            /* the kernel's thread id in the merged trace */
    int32_t role;            /* TLM_MTRACE_ROLE_* (set by the driver) */
    int32_t reserved_;
} tlm_mtrace_anchor;

/* The flow id of an instance: a 53-bit hash of (match_key, seq), exact in
 * the doubles of JavaScript and Python. */
TLM_API uint64_t tlm_mtrace_flow_id(uint64_t match_key, int64_t seq);

/* One member in the role assignment (the driver routes these to the
 * instance's owner and back). */
typedef struct tlm_mtrace_item {
    uint64_t match_key;
    int64_t seq;
    int64_t ts_ns;           /* corrected flow time */
    int64_t idx;             /* the sender's index (its anchor) */
    int32_t trace_rank;
    int32_t src;             /* the sender (MPI rank) */
    int32_t role;            /* out: TLM_MTRACE_ROLE_* */
    int32_t reserved_;
} tlm_mtrace_item;

/* Sorts items by (match_key, seq, ts_ns, trace_rank) and sets each role:
 * in an instance of two or more members the first is START, the last END,
 * the others STEP; a lone member NONE.  Pure; no allocation. */
TLM_API void tlm_mtrace_roles(tlm_mtrace_item *items, size_t n);

/* Growable array of anchors (caller-owned; free(a->v)). */
typedef struct tlm_mtrace_anchors {
    tlm_mtrace_anchor *v;
    size_t n, cap;
} tlm_mtrace_anchors;

/* Writes the events of tr that filter keeps to the part file f (binary
 * records, read back by tlm_mtrace_emit_part), with pid = rank, dense
 * thread ids (GPU streams after CPU threads) and their thread_name /
 * thread_sort_index metadata; collective kernels (recs: this trace's
 * records, any order) carry args coll, pg, seq, bytes.  Appends one anchor
 * per collective (the record of part 0) to *an.  *bytes (may be NULL)
 * gets the bytes written.  Errors: TLM_ENOMEM, TLM_EIO (errno text). */
TLM_API tlm_status tlm_mtrace_part_write(const tlm_trace *tr, int32_t rank,
                                         tlm_mtrace_filter filter,
                                         const tlm_coll_record *recs,
                                         size_t n_recs, FILE *f,
                                         tlm_mtrace_anchors *an,
                                         uint64_t *bytes, tlm_error *err);

/* A raw-deflate segment of the merged trace being written to out: crc32
 * and length of the uncompressed text, for the gzip trailer. */
typedef struct tlm_mtrace_z {
    void *zs;                /* z_stream (private) */
    FILE *out;
    uint32_t crc;
    uint64_t in_bytes;       /* uncompressed */
    uint64_t out_bytes;      /* compressed, written to out */
    unsigned char *buf;
    size_t fill;             /* uncompressed bytes waiting in buf */
} tlm_mtrace_z;

/* Starts a segment written to out at zlib level (1..9).  Errors:
 * TLM_ENOMEM, TLM_EGZIP. */
TLM_API tlm_status tlm_mtrace_z_open(tlm_mtrace_z *z, FILE *out, int level,
                                     tlm_error *err);

/* Appends n bytes of text.  Errors: TLM_EIO, TLM_EGZIP. */
TLM_API tlm_status tlm_mtrace_z_write(tlm_mtrace_z *z, const void *p,
                                      size_t n, tlm_error *err);

/* Ends the segment: last = 0 flushes to a byte boundary without ending
 * the deflate stream (Z_SYNC_FLUSH: another segment may follow), last = 1
 * ends it (Z_FINISH).  Frees the stream in both cases (out stays open).
 * Errors: TLM_EIO, TLM_EGZIP. */
TLM_API tlm_status tlm_mtrace_z_close(tlm_mtrace_z *z, int last,
                                      tlm_error *err);

/* Frees a segment without writing (after a failure). */
TLM_API void tlm_mtrace_z_abort(tlm_mtrace_z *z);

/* Reads the part records in [from, to) of part and writes them as JSON
 * events (each preceded by ",\n") with ts + shift_ns.  Errors: TLM_EIO,
 * TLM_EFORMAT (a damaged part), TLM_EGZIP. */
TLM_API tlm_status tlm_mtrace_emit_part(FILE *part, uint64_t from,
                                        uint64_t to, int64_t shift_ns,
                                        tlm_mtrace_z *z, tlm_error *err);

/* Writes the flow event of every anchor with a role (",\n"-preceded, at
 * ts + shift_of(arg, trace_rank), on the anchor's pid and tid, binding to
 * the enclosing slice).  Errors: TLM_EINVAL (shift_of NULL), TLM_EIO,
 * TLM_EGZIP. */
TLM_API tlm_status tlm_mtrace_emit_flows(const tlm_mtrace_anchor *a,
                                         size_t n,
                                         int64_t (*shift_of)(void *arg,
                                                             int32_t rank),
                                         void *arg, tlm_mtrace_z *z,
                                         tlm_error *err);

/* Appends the JSON string s[0..n) (quotes included) to buf[0..cap) at
 * *len, escaped as described above.  Returns 0, or -1 when buf is too
 * small (needs at most 6 x TLM_MTRACE_STR_MAX + 3 bytes). */
TLM_API int tlm_mtrace_json_str(char *buf, size_t cap, size_t *len,
                                const char *s, size_t n);

/* Appends ns as microseconds with exactly three decimals ("-1.500").
 * Returns 0, or -1 when buf is too small (needs 26 bytes). */
TLM_API int tlm_mtrace_json_us(char *buf, size_t cap, size_t *len,
                               int64_t ns);

/* The 10-byte gzip header into out[10]. */
TLM_API void tlm_mtrace_gzip_header(unsigned char out[10]);

/* The 8-byte gzip trailer (crc, length mod 2^32) into out[8]. */
TLM_API void tlm_mtrace_gzip_trailer(uint32_t crc, uint64_t len,
                                     unsigned char out[8]);

/* crc32 of the concatenation of two texts (zlib's crc32_combine). */
TLM_API uint32_t tlm_mtrace_crc_combine(uint32_t crc1, uint32_t crc2,
                                        uint64_t len2);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MTRACE_H */
