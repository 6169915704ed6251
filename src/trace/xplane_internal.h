/*
 * xplane_internal.h - what the XPlane reader's files share (xplane_wire.c:
 * the bounded wire-format pass; xplane_read.c: loading, splitting planes
 * into their header (unpacked by protobuf-c) and their lines;
 * xplane_model.c: the flat model and the metadata maps; xplane_line.c: a
 * GPU line and its events decoded from the wire, checked as they are
 * decoded).  Not part of the public API.
 */
#ifndef TLM_XPLANE_INTERNAL_H
#define TLM_XPLANE_INTERNAL_H

#include "tlmpi/tlm_xplane.h"

#include "trace_internal.h"
#include "mem_internal.h"
#include "xplane.pb-c.h"

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
 * the offset of buf in the file (for messages).  deep 0: the insides of
 * XLine.events entries are left out (counted, their lengths bounded; the
 * event decoder checks them).  Errors: TLM_EFORMAT with the byte offset
 * and "Message.field (number)". */
tlm_status tlm_xpw_check(const unsigned char *buf, size_t n, tlm_xpw_msg m,
                         int64_t base, tlm_xpw_counts *c, int deep,
                         const char *file, tlm_error *err);

/* Where a checked walk is: b0 is at file offset base (for messages). */
typedef struct tlm_xpw_ctx {
    const unsigned char *b0;
    int64_t base;
    tlm_xpw_counts *c; /* may be NULL */
    int deep;
    const char *file;
    tlm_error *err;
} tlm_xpw_ctx;

/* One field, as the wire pass found it. */
typedef struct tlm_xpw_fv {
    uint64_t num;
    unsigned wt;
    const unsigned char *v, *ve; /* its value (a length-delimited one's
                                    payload, past the length) */
} tlm_xpw_fv;

/* The field of message kind m at *pp (before e), every check of
 * tlm_xpw_check made (a message inside it walked per cx->deep); *pp moves
 * past it.  The decoders' path for what their fast path does not take. */
tlm_status tlm_xpw_field(tlm_xpw_ctx *cx, const unsigned char **pp,
                         const unsigned char *e, tlm_xpw_msg m,
                         tlm_xpw_fv *fv);

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
    tlm_warm warm; /* the events array, populated ahead of its writes */
    tlm_xp_plane *planes;
    size_t n_planes, cap_planes;
    tlm_xp_line *lines;
    size_t n_lines, cap_lines;
    tlm_xp_event *events;
    size_t n_events, cap_events;
    tlm_xplane_stats stats;
};

/* A plane's metadata maps, resolved (xplane_model.c). */
typedef struct tlm_xp_maps {
    const TlmXp__XPlaneHead *p;
    struct tlm_xp_kv *emd, *smd; /* sorted by key */
    size_t n_emd, n_smd;
    uint32_t *emd_name;   /* per event_metadata entry: interned name */
    uint32_t *emd_hlo;    /* per entry: interned hlo_op of its stats, 0 */
    uint8_t *smd_is_hlo;  /* per stat_metadata entry: named "hlo_op" */
    int64_t hlo_id[4];    /* the keys named "hlo_op" (n_hlo_id <= 4) */
    int n_hlo_id;         /* -1: more than 4, look them up */
    long *emd_dense;      /* keys emd_lo .. emd_lo + n_dense - 1: entry
                             index or -1; NULL when the keys are sparse */
    int64_t emd_lo;
    size_t n_dense;
} tlm_xp_maps;

/* The event metadata entry of key k, or -1. */
long tlm_xp_emd_find_slow(const tlm_xp_maps *m, int64_t k);
static inline long tlm_xp_emd_find(const tlm_xp_maps *m, int64_t k)
{
    if (m->emd_dense) {
        uint64_t i = (uint64_t)k - (uint64_t)m->emd_lo;
        return k >= m->emd_lo && i < m->n_dense ? m->emd_dense[i] : -1;
    }
    return tlm_xp_emd_find_slow(m, k);
}

/* Whether stat metadata id names "hlo_op". */
int tlm_xp_stat_is_hlo_slow(const tlm_xp_maps *m, int64_t id);
static inline int tlm_xp_stat_is_hlo(const tlm_xp_maps *m, int64_t id)
{
    if (m->n_hlo_id >= 0) {
        for (int k = 0; k < m->n_hlo_id; k++)
            if (m->hlo_id[k] == id)
                return 1;
        return 0;
    }
    return tlm_xp_stat_is_hlo_slow(m, id);
}

/* The stat's value as the trace viewer prints it, interned; 0 for none
 * (*oom set when the table is full). */
uint32_t tlm_xp_stat_value(tlm_xplane *x, const tlm_xp_maps *m,
                           const TlmXp__XStat *s, int *oom);

/* Bytes of a message in the buffer. */
typedef struct tlm_xp_span {
    const unsigned char *p;
    size_t n;
} tlm_xp_span;

/* Adds the plane to x: head is the plane unpacked by protobuf-c without
 * its lines, plane its bytes (checked by the shallow wire pass: its lines
 * are read from them), cx the walk context of the buffer (deep) for the
 * events' checks.
 * Errors: TLM_ENOMEM, TLM_EFORMAT (a wire fault inside an event, with its
 * offset and field; a time that overflows, a negative duration: offset
 * is the plane's). */
tlm_status tlm_xplane_add_plane(tlm_xplane *x, const TlmXp__XPlaneHead *head,
                                tlm_xp_span plane, tlm_xpw_ctx *cx,
                                int64_t off);

/* Decodes the GPU line l (an XLine, its events checked as they are
 * decoded) into x's lines and events, its event names and hlo_op from
 * m; *n_ev: its events.  Errors as tlm_xplane_add_plane's. */
tlm_status tlm_xp_gpu_line(tlm_xplane *x, const tlm_xp_maps *m,
                           tlm_xpw_ctx *cx, tlm_xp_span l, int64_t off,
                           uint64_t *n_ev);

#endif
