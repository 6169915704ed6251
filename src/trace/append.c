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
    if (need > TLM_BLOB_MAX)
        return tlm_error_set(err, TLM_ELIMIT, t->path, -1,
                             "synthetic event: argument blob full");
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
    /* no flow id: it would live in the args */
    e->flags &= (uint8_t)~(TLM_EV_HAS_ID | TLM_EV_ID_STR);
    if (n_args) {
        if (t->blob_len == 0)
            t->blob[t->blob_len++] = 0; /* offset 0 means "no args" */
        e->args = (uint32_t)t->blob_len;
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

/* Gives back the unused tail of an array of cap elements holding n: a
 * shrinking realloc (for the large arrays, an mremap that frees the
 * pages populated ahead).  Kept as it is when the allocator says no. */
static void fit_one(const tlm_alloc *a, void **p, size_t *cap, size_t n,
                    size_t elem)
{
    if (!*p || n >= *cap || n == 0)
        return;
    void *q = a->realloc_fn(a->ctx, *p, n * elem);
    if (q) {
        *p = q;
        *cap = n;
    }
}

void tlm_trace_fit(tlm_trace *t, void (*on_move)(void *ud, int phase),
                   void *ud)
{
    if (t->a != tlm_alloc_default())
        return; /* a caller's allocator sees only the reads it expects */
    if (on_move)
        on_move(ud, TLM_MOVE_BEGIN);
    fit_one(t->a, (void **)&t->events, &t->cap_events, t->n_events,
            sizeof *t->events);
    fit_one(t->a, (void **)&t->blob, &t->blob_cap, t->blob_len, 1);
    if (on_move)
        on_move(ud, TLM_MOVE_END);
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
