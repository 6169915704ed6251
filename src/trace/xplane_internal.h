/*
 * xplane_internal.h - what the XPlane reader's files share (xplane_wire.c:
 * the bounded wire-format pass; xplane_read.c: loading and unpacking;
 * xplane_model.c: the flat model).  Not part of the public API.
 */
#ifndef TLM_XPLANE_INTERNAL_H
#define TLM_XPLANE_INTERNAL_H

#include "tlmpi/tlm_xplane.h"

#include "trace_internal.h"

/* One message kind of the wire-format schema (xplane_wire.c). */
typedef enum tlm_xpw_msg {
    TLM_XPW_SPACE = 0,
    TLM_XPW_PLANE,
    TLM_XPW_LINE,
    TLM_XPW_EVENT,
    TLM_XPW_STAT,
    TLM_XPW_EMD_ENTRY,
    TLM_XPW_SMD_ENTRY,
    TLM_XPW_EMD,
    TLM_XPW_SMD,
    TLM_XPW_COUNT
} tlm_xpw_msg;

/* What the wire pass counted (for the allocation cap and the stats). */
typedef struct tlm_xpw_counts {
    uint64_t planes, lines, events, stats;
} tlm_xpw_counts;

/* Walks buf[0..n) as a message of kind m: every key, varint, length and
 * known field's wire type checked, nothing read past buf + n.  base is
 * the offset of buf in the file (for messages).  Errors: TLM_EFORMAT
 * with the byte offset and "Message.field (number)". */
tlm_status tlm_xpw_check(const unsigned char *buf, size_t n, tlm_xpw_msg m,
                         int64_t base, tlm_xpw_counts *c, const char *file,
                         tlm_error *err);

/* One varint at p (at most 10 bytes, not past e): the value in *v and the
 * bytes used, or 0 when truncated or longer than 10 bytes. */
size_t tlm_xpw_varint_slow(const unsigned char *p, const unsigned char *e,
                           uint64_t *v);
static inline size_t tlm_xpw_varint(const unsigned char *p,
                                    const unsigned char *e, uint64_t *v)
{
    if (p < e && !(*p & 0x80)) { /* one byte: most keys and lengths */
        *v = *p;
        return 1;
    }
    return tlm_xpw_varint_slow(p, e, v);
}

struct tlm_xplane {
    tlm_intern strs;
    tlm_xp_plane *planes;
    size_t n_planes, cap_planes;
    tlm_xp_line *lines;
    size_t n_lines, cap_lines;
    tlm_xp_event *events;
    size_t n_events, cap_events;
    tlm_xplane_stats stats;
};

/* Adds the unpacked plane (a TlmXp__XPlaneLazy) to x.  Errors: TLM_ENOMEM,
 * TLM_EFORMAT (a time that overflows, a negative duration; offset is the
 * plane's). */
tlm_status tlm_xplane_add_plane(tlm_xplane *x, const void *plane,
                                int64_t off, const char *file,
                                tlm_error *err);

#endif
