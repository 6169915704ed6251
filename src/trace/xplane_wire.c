/*
 * xplane_wire.c - the bounded first pass over an XSpace's wire format,
 * before any byte is handed to protobuf-c (tlm_xplane.h).
 *
 * A small schema table says, per message kind, each known field's wire
 * type and, for a length-delimited field holding a message, the kind of
 * that message.  The walk checks every key (field number > 0, wire type
 * 0, 1, 2 or 5; groups refused), every varint (at most 10 bytes, inside
 * the message), every length (not past the end of the enclosing
 * message), and each known field's wire type (a packed repeated varint
 * field may also be length-delimited: its varints are checked too).
 * Unknown fields are skipped by their wire type, as protobuf does.  The
 * schema nests at most five deep (XSpace > XPlane > XLine > XEvent >
 * XStat), so the recursion is bounded by the schema, not by the input.
 *
 * A shallow walk (deep 0) stops at the XLine.events entries: their
 * lengths are bounded and they are counted, their insides are left to
 * the event decoder (xplane_line.c), which checks each field the same
 * way as it decodes it (tlm_xpw_field for anything off its fast path),
 * so that the bulk of a file is walked once.
 */
#include "xplane_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5, WT_PACKED = 8 };

typedef struct xpw_field {
    uint8_t msg;       /* tlm_xpw_msg it belongs to */
    uint8_t num;       /* field number */
    uint8_t wt;        /* expected wire type; WT_PACKED: varint or packed */
    int8_t child;      /* message kind of a WT_LEN field, or -1 */
    const char *name;
} xpw_field;

static const char *const msg_names[TLM_XPW_COUNT] = {
    "XSpace", "XPlane", "XLine", "XEvent", "XStat",
    "XPlane.event_metadata entry", "XPlane.stat_metadata entry",
    "XEventMetadata", "XStatMetadata"};

static const xpw_field fields[] = {
    {TLM_XPW_SPACE, 1, WT_LEN, TLM_XPW_PLANE, "planes"},
    {TLM_XPW_SPACE, 2, WT_LEN, -1, "errors"},
    {TLM_XPW_SPACE, 3, WT_LEN, -1, "warnings"},
    {TLM_XPW_SPACE, 4, WT_LEN, -1, "hostnames"},
    {TLM_XPW_PLANE, 1, WT_VARINT, -1, "id"},
    {TLM_XPW_PLANE, 2, WT_LEN, -1, "name"},
    {TLM_XPW_PLANE, 3, WT_LEN, TLM_XPW_LINE, "lines"},
    {TLM_XPW_PLANE, 4, WT_LEN, TLM_XPW_EMD_ENTRY, "event_metadata"},
    {TLM_XPW_PLANE, 5, WT_LEN, TLM_XPW_SMD_ENTRY, "stat_metadata"},
    {TLM_XPW_PLANE, 6, WT_LEN, TLM_XPW_STAT, "stats"},
    {TLM_XPW_LINE, 1, WT_VARINT, -1, "id"},
    {TLM_XPW_LINE, 2, WT_LEN, -1, "name"},
    {TLM_XPW_LINE, 3, WT_VARINT, -1, "timestamp_ns"},
    {TLM_XPW_LINE, 4, WT_LEN, TLM_XPW_EVENT, "events"},
    {TLM_XPW_LINE, 9, WT_VARINT, -1, "duration_ps"},
    {TLM_XPW_LINE, 10, WT_VARINT, -1, "display_id"},
    {TLM_XPW_LINE, 11, WT_LEN, -1, "display_name"},
    {TLM_XPW_EVENT, 1, WT_VARINT, -1, "metadata_id"},
    {TLM_XPW_EVENT, 2, WT_VARINT, -1, "offset_ps"},
    {TLM_XPW_EVENT, 3, WT_VARINT, -1, "duration_ps"},
    {TLM_XPW_EVENT, 4, WT_LEN, TLM_XPW_STAT, "stats"},
    {TLM_XPW_EVENT, 5, WT_VARINT, -1, "num_occurrences"},
    {TLM_XPW_STAT, 1, WT_VARINT, -1, "metadata_id"},
    {TLM_XPW_STAT, 2, WT_I64, -1, "double_value"},
    {TLM_XPW_STAT, 3, WT_VARINT, -1, "uint64_value"},
    {TLM_XPW_STAT, 4, WT_VARINT, -1, "int64_value"},
    {TLM_XPW_STAT, 5, WT_LEN, -1, "str_value"},
    {TLM_XPW_STAT, 6, WT_LEN, -1, "bytes_value"},
    {TLM_XPW_STAT, 7, WT_VARINT, -1, "ref_value"},
    {TLM_XPW_EMD_ENTRY, 1, WT_VARINT, -1, "key"},
    {TLM_XPW_EMD_ENTRY, 2, WT_LEN, TLM_XPW_EMD, "value"},
    {TLM_XPW_SMD_ENTRY, 1, WT_VARINT, -1, "key"},
    {TLM_XPW_SMD_ENTRY, 2, WT_LEN, TLM_XPW_SMD, "value"},
    {TLM_XPW_EMD, 1, WT_VARINT, -1, "id"},
    {TLM_XPW_EMD, 2, WT_LEN, -1, "name"},
    {TLM_XPW_EMD, 3, WT_LEN, -1, "metadata"},
    {TLM_XPW_EMD, 4, WT_LEN, -1, "display_name"},
    {TLM_XPW_EMD, 5, WT_LEN, TLM_XPW_STAT, "stats"},
    {TLM_XPW_EMD, 6, WT_PACKED, -1, "child_id"},
    {TLM_XPW_SMD, 1, WT_VARINT, -1, "id"},
    {TLM_XPW_SMD, 2, WT_LEN, -1, "name"},
    {TLM_XPW_SMD, 3, WT_LEN, -1, "description"},
};

#define XPW_MAXNUM 12 /* field numbers of the schema are below this */

/* index + 1 into fields[] per (message, field number) */
static const uint8_t field_ix[TLM_XPW_COUNT][XPW_MAXNUM] = {
    [TLM_XPW_SPACE] = {[1] = 1, [2] = 2, [3] = 3, [4] = 4},
    [TLM_XPW_PLANE] = {[1] = 5, [2] = 6, [3] = 7, [4] = 8, [5] = 9,
                       [6] = 10},
    [TLM_XPW_LINE] = {[1] = 11, [2] = 12, [3] = 13, [4] = 14, [9] = 15,
                      [10] = 16, [11] = 17},
    [TLM_XPW_EVENT] = {[1] = 18, [2] = 19, [3] = 20, [4] = 21,
                       [5] = 22},
    [TLM_XPW_STAT] = {[1] = 23, [2] = 24, [3] = 25, [4] = 26, [5] = 27,
                      [6] = 28, [7] = 29},
    [TLM_XPW_EMD_ENTRY] = {[1] = 30, [2] = 31},
    [TLM_XPW_SMD_ENTRY] = {[1] = 32, [2] = 33},
    [TLM_XPW_EMD] = {[1] = 34, [2] = 35, [3] = 36, [4] = 37, [5] = 38,
                     [6] = 39},
    [TLM_XPW_SMD] = {[1] = 40, [2] = 41, [3] = 42},
};

static const xpw_field *find_field(tlm_xpw_msg m, uint64_t num)
{
    if (num >= XPW_MAXNUM || !field_ix[m][num])
        return NULL;
    return &fields[field_ix[m][num] - 1];
}

static const char *wt_name(unsigned wt)
{
    switch (wt) {
    case WT_VARINT: return "varint";
    case WT_I64: return "64-bit";
    case WT_LEN: return "length-delimited";
    case WT_I32: return "32-bit";
    case 3: return "group start";
    case 4: return "group end";
    default: return "invalid";
    }
}

size_t tlm_xpw_varint_slow(const unsigned char *p, const unsigned char *e,
                           uint64_t *v)
{
    uint64_t x = 0;
    if (e - p >= 10) { /* no bound to check per byte */
        for (size_t i = 0; i < 10; i++) {
            x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
            if (!(p[i] & 0x80)) {
                *v = x;
                return i + 1;
            }
        }
        return 0;
    }
    for (size_t i = 0; i < 10 && p + i < e; i++) {
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

typedef tlm_xpw_ctx walk;

static tlm_status bad(const walk *w, const unsigned char *at,
                      tlm_xpw_msg m, const xpw_field *f, uint64_t num,
                      const char *what)
{
    char fld[96];
    if (f)
        snprintf(fld, sizeof fld, "%s.%s (field %u)", msg_names[m], f->name,
                 (unsigned)f->num);
    else
        snprintf(fld, sizeof fld, "%s field %llu", msg_names[m],
                 (unsigned long long)num);
    return tlm_error_set(w->err, TLM_EFORMAT, w->file,
                         w->base + (int64_t)(at - w->b0),
                         "XPlane protobuf: %s: %s", fld, what);
}

static inline void count(walk *w, tlm_xpw_msg m)
{
    if (!w->c)
        return;
    if (m == TLM_XPW_PLANE)
        w->c->planes++;
    else if (m == TLM_XPW_LINE)
        w->c->lines++;
    else if (m == TLM_XPW_EVENT)
        w->c->events++;
    else if (m == TLM_XPW_STAT)
        w->c->stats++;
}

/* The varints of a packed field's payload [p, e). */
static tlm_status check_packed(walk *w, const unsigned char *p,
                               const unsigned char *e, tlm_xpw_msg m,
                               const xpw_field *f)
{
    while (p < e) {
        uint64_t v;
        size_t k = tlm_xpw_varint(p, e, &v);
        if (!k)
            return bad(w, p, m, f, f->num, "bad varint in packed values");
        p += k;
    }
    return TLM_OK;
}

static tlm_status walk_msg(walk *w, const unsigned char *p,
                           const unsigned char *e, tlm_xpw_msg m);

/* One field whose key (at key: field f or unknown number num, wire type
 * wt) was read; *pp is past the key.  Moves *pp past the value. */
static tlm_status walk_value(walk *w, const unsigned char *key,
                             const unsigned char **pp,
                             const unsigned char *e, tlm_xpw_msg m,
                             const xpw_field *f, uint64_t num, unsigned wt)
{
    const unsigned char *p = *pp;
    uint64_t v;
    size_t k;
    switch (wt) {
    case WT_VARINT:
        if (!(k = tlm_xpw_varint(p, e, &v)))
            return bad(w, p, m, f, num, p + 10 <= e ? "varint longer than "
                       "10 bytes" : "varint cut by the end of the message");
        *pp = p + k;
        return TLM_OK;
    case WT_I64:
    case WT_I32: {
        size_t sz = wt == WT_I64 ? 8 : 4;
        if ((size_t)(e - p) < sz)
            return bad(w, p, m, f, num, "fixed-size value past the end of "
                       "the message");
        *pp = p + sz;
        return TLM_OK;
    }
    case WT_LEN:
        if (!(k = tlm_xpw_varint(p, e, &v)))
            return bad(w, p, m, f, num, "bad length varint");
        p += k;
        if (v > (uint64_t)(e - p)) {
            char what[128];
            snprintf(what, sizeof what, "length %llu past the end of the "
                     "enclosing message (%llu bytes left)",
                     (unsigned long long)v, (unsigned long long)(e - p));
            return bad(w, key, m, f, num, what);
        }
        *pp = p + v;
        if (f && f->child == TLM_XPW_EVENT && !w->deep) {
            count(w, TLM_XPW_EVENT); /* the event decoder's to check */
            return TLM_OK;
        }
        if (f && f->child >= 0)
            return walk_msg(w, p, p + v, (tlm_xpw_msg)f->child);
        if (f && f->wt == WT_PACKED)
            return check_packed(w, p, p + v, m, f);
        return TLM_OK;
    default:
        return bad(w, key, m, f, num, wt == 3 || wt == 4
                   ? "groups are not supported" : "invalid wire type");
    }
}

/* One field at *pp (key and value), every check made; *pp moves past.
 * fv (may be NULL): the field's number, wire type and value bytes. */
static tlm_status walk_field(walk *w, const unsigned char **pp,
                             const unsigned char *e, tlm_xpw_msg m,
                             tlm_xpw_fv *fv)
{
    const unsigned char *key = *pp, *p = *pp;
    uint64_t kv;
    size_t k = tlm_xpw_varint(p, e, &kv);
    if (!k)
        return bad(w, key, m, NULL, 0, "bad field key varint");
    p += k;
    uint64_t num = kv >> 3;
    unsigned wt = (unsigned)(kv & 7);
    if (num == 0 || num > 0x1fffffff)
        return bad(w, key, m, NULL, num, "field number out of range");
    const xpw_field *f = find_field(m, num);
    if (f) {
        int ok = f->wt == wt || (f->wt == WT_PACKED &&
                                 (wt == WT_VARINT || wt == WT_LEN));
        if (!ok) {
            char what[96];
            snprintf(what, sizeof what, "wire type %u (%s), expected %s",
                     wt, wt_name(wt), f->wt == WT_PACKED
                         ? "varint or packed" : wt_name(f->wt));
            return bad(w, key, m, f, num, what);
        }
    }
    *pp = p;
    tlm_status st = walk_value(w, key, pp, e, m, f, num, wt);
    if (fv && st == TLM_OK) {
        fv->num = num;
        fv->wt = wt;
        fv->v = p;
        fv->ve = *pp;
        if (wt == WT_LEN) /* the payload, past its length (checked) */
            fv->v = p + tlm_xpw_varint(p, e, &kv);
    }
    return st;
}

/* Past a varint at p (at most 10 bytes, not past e), or NULL. */
static inline const unsigned char *skip_varint(const unsigned char *p,
                                               const unsigned char *e)
{
    const unsigned char *lim = e - p > 10 ? p + 10 : e;
    while (p < lim)
        if (!(*p++ & 0x80))
            return p;
    return NULL;
}

/* What a one-byte key of an XLine, XEvent or XStat is, when its field is
 * known and its wire type the expected one: 1 varint, 2 fixed 64-bit, 3
 * bytes (no message inside), 4 the XEvent's stats (an XStat), 5 the
 * XLine's events; 0 otherwise (walk_field's to judge). */
static unsigned char leaf_kind(tlm_xpw_msg m, unsigned key)
{
    static const unsigned char ev[0x30] = {[0x08] = 1, [0x10] = 1,
                                           [0x18] = 1, [0x22] = 4,
                                           [0x28] = 1};
    static const unsigned char st[0x40] = {[0x08] = 1, [0x11] = 2,
                                           [0x18] = 1, [0x20] = 1,
                                           [0x2a] = 3, [0x32] = 3,
                                           [0x38] = 1};
    if (m == TLM_XPW_LINE)
        return key == 0x22 ? 5 : 0;
    if (m == TLM_XPW_EVENT)
        return key < sizeof ev ? ev[key] : 0;
    return key < sizeof st ? st[key] : 0;
}

/* An XLine, XEvent or XStat (the bulk of a trace): the common fields read
 * straight; anything else (or anything wrong) goes through walk_field,
 * which makes the same checks and names the same error. */
static tlm_status walk_leaf(walk *w, const unsigned char *p,
                            const unsigned char *e, tlm_xpw_msg m)
{
    count(w, m);
    while (p < e) {
        const unsigned char *q = NULL;
        uint64_t len;
        size_t k;
        switch (leaf_kind(m, *p)) {
        case 1:
            q = skip_varint(p + 1, e);
            break;
        case 2:
            q = e - (p + 1) >= 8 ? p + 9 : NULL;
            break;
        case 3:
        case 4:
        case 5:
            k = tlm_xpw_varint(p + 1, e, &len);
            if (k && len <= (uint64_t)(e - (p + 1 + k))) {
                q = p + 1 + k + len;
                if (*p == 0x22 && m == TLM_XPW_LINE && !w->deep) {
                    count(w, TLM_XPW_EVENT); /* the decoder checks it */
                } else if (*p == 0x22) {
                    tlm_status st = walk_leaf(w, p + 1 + k, q,
                                              m == TLM_XPW_LINE
                                                  ? TLM_XPW_EVENT
                                                  : TLM_XPW_STAT);
                    if (st != TLM_OK)
                        return st;
                }
            }
            break;
        default:
            break;
        }
        if (q) {
            p = q;
            continue;
        }
        tlm_status st = walk_field(w, &p, e, m, NULL);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

static tlm_status walk_msg(walk *w, const unsigned char *p,
                           const unsigned char *e, tlm_xpw_msg m)
{
    if (m == TLM_XPW_LINE || m == TLM_XPW_EVENT || m == TLM_XPW_STAT)
        return walk_leaf(w, p, e, m);
    count(w, m);
    while (p < e) {
        tlm_status st = walk_field(w, &p, e, m, NULL);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

tlm_status tlm_xpw_check(const unsigned char *buf, size_t n, tlm_xpw_msg m,
                         int64_t base, tlm_xpw_counts *c, int deep,
                         const char *file, tlm_error *err)
{
    walk w = {buf, base, c, deep, file, err};
    return walk_msg(&w, buf, buf + n, m);
}

tlm_status tlm_xpw_field(tlm_xpw_ctx *cx, const unsigned char **pp,
                         const unsigned char *e, tlm_xpw_msg m,
                         tlm_xpw_fv *fv)
{
    return walk_field(cx, pp, e, m, fv);
}

/* The first field of the first plane: its id (a varint) or its name (a
 * string that fits), as an XPlane starts (fields are written in number
 * order).  What follows is the reader's to judge: a broken file is
 * still named an XPlane, so that its error says where it breaks. */
static int plane_head(const unsigned char *p, const unsigned char *e,
                      int complete)
{
    uint64_t v;
    if (p == e)
        return 1; /* an empty plane */
    if (*p != 0x08 && *p != 0x12)
        return 0;
    size_t k = tlm_xpw_varint(p + 1, e, &v);
    if (!k)
        return !complete && e - p < 11;
    if (*p == 0x08)
        return 1;
    return v <= (uint64_t)(e - p - 1 - (ptrdiff_t)k) || !complete;
}

int tlm_xplane_sniff(const unsigned char *head, size_t n, int complete)
{
    const unsigned char *e = head + n;
    uint64_t len;
    if (n < 2 || head[0] != 0x0a)
        return 0; /* XSpace.planes (field 1, length-delimited) */
    size_t k = tlm_xpw_varint(head + 1, e, &len);
    if (!k)
        return 0;
    const unsigned char *p = head + 1 + k;
    if (len > (uint64_t)(e - p)) /* a head, or a cut file: the reader */
        return p < e && plane_head(p, e, 0); /* names where it ends */
    e = p + len;
    return plane_head(p, e, complete || e < head + n);
}
