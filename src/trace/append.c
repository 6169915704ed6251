/*
 * append.c - synthetic events appended after a trace's own (the pseudo ops
 * of `--enable_pseudo_ops`, src/tree/pseudo_ops.c).  They get the next
 * UIDs and their arguments go into the trace's argument blob in the
 * reader's encoding, so every accessor (tlm_trace_events, tlm_event_arg)
 * sees them as ordinary events.  And the renaming of events that the
 * same option does (tlm_trace_rename_event).
 */
#include <string.h>

#include "grow.h"
#include "trace_internal.h"

static size_t varint_put(unsigned char *d, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        d[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    d[n++] = (unsigned char)v;
    return n;
}

tlm_status tlm_trace_append_event(tlm_trace *t, const tlm_event *ev,
                                  const tlm_arg *keys, const tlm_argv *vals,
                                  size_t n_args, uint64_t *uid,
                                  tlm_error *err)
{
    if (!t || !ev || (n_args && (!keys || !vals)) || !t->events)
        return tlm_error_set(err, TLM_EINVAL, t ? t->path : NULL, -1,
                             "synthetic event: no kept events to append to");
    for (size_t i = 0; i < n_args; i++)
        if (keys[i] <= TLM_ARG_END_ || keys[i] >= TLM_ARG_COUNT ||
            (vals[i].type != TLM_ARGV_INT && vals[i].type != TLM_ARGV_STR))
            return tlm_error_set(err, TLM_EINVAL, t->path, -1,
                                 "synthetic event: bad argument");
    size_t need = t->blob_len + 1 + n_args * 11;
    void *ep = t->events, *bp = t->blob;
    if (tlm_grow_al(t->a, &ep, &t->cap_events, t->n_events + 1,
                    sizeof *t->events, 16) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, t->path, -1,
                             "out of memory for a synthetic event");
    t->events = ep;
    if (tlm_grow_al(t->a, &bp, &t->blob_cap, need, 1, 4096) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, t->path, -1,
                             "out of memory for a synthetic event");
    t->blob = bp;
    tlm_event *e = &t->events[t->n_events];
    *e = *ev;
    e->args = 0;
    if (n_args) {
        if (t->blob_len == 0)
            t->blob[t->blob_len++] = 0; /* offset 0 means "no args" */
        e->args = t->blob_len;
        unsigned char *d = t->blob + t->blob_len;
        for (size_t i = 0; i < n_args; i++) {
            uint64_t v = vals[i].type == TLM_ARGV_INT
                             ? ((uint64_t)vals[i].i << 1) ^
                                   (uint64_t)(vals[i].i >> 63)
                             : vals[i].str;
            *d++ = (unsigned char)((unsigned)keys[i] |
                                   ((unsigned)vals[i].type << 6));
            d += varint_put(d, v);
        }
        *d++ = 0;
        t->blob_len = (size_t)(d - t->blob);
    }
    if (uid)
        *uid = t->n_events;
    t->n_events++;
    return TLM_OK;
}

tlm_status tlm_trace_rename_event(tlm_trace *t, uint64_t uid, uint32_t name,
                                  tlm_error *err)
{
    if (!t || uid >= t->n_events || name >= tlm_trace_str_count(t))
        return tlm_error_set(err, TLM_EINVAL, t ? t->path : NULL, -1,
                             "rename: no such event or string");
    t->events[uid].name = name;
    return TLM_OK;
}
