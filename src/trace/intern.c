/*
 * intern.c - string interning for a trace.
 *
 * Every name, category and text argument of a trace is stored once and
 * referred to by a dense 32-bit id (first-seen order, so the same input gives
 * the same ids whatever the read chunk size).  The table is open addressing
 * over ids; the bytes live in large blocks that are never moved, so the
 * pointers handed out stay valid until tlm_intern_free().
 */
#include "trace_internal.h"

#include <string.h>

#include "grow.h"

#define BLOCK_SIZE (1u << 20)

struct tlm_strblock {
    tlm_strblock *next;
    size_t size;
    char data[];
};

static const tlm_strent empty_ent = {"", 0, 0, 0};

tlm_status tlm_intern_init(tlm_intern *in, const tlm_alloc *a)
{
    memset(in, 0, sizeof *in);
    in->a = a;
    in->cap = 1024;
    in->ents = a->malloc_fn(a->ctx, in->cap * sizeof *in->ents);
    in->nslots = 2048;
    in->slots = a->malloc_fn(a->ctx, in->nslots * sizeof *in->slots);
    if (!in->ents || !in->slots) {
        tlm_intern_free(in);
        return TLM_ENOMEM;
    }
    memset(in->slots, 0, in->nslots * sizeof *in->slots);
    in->ents[0] = empty_ent;
    in->ents[0].hash = tlm_hash64("", 0);
    in->n = 1;
    return TLM_OK;
}

void tlm_intern_free(tlm_intern *in)
{
    if (!in || !in->a)
        return;
    const tlm_alloc *a = in->a;
    tlm_strblock *b = in->blocks;
    while (b) {
        tlm_strblock *next = b->next;
        a->free_fn(a->ctx, b);
        b = next;
    }
    a->free_fn(a->ctx, in->ents);
    a->free_fn(a->ctx, in->slots);
    memset(in, 0, sizeof *in);
}

void tlm_intern_clear(tlm_intern *in)
{
    tlm_strblock *keep = NULL, *b = in->blocks;
    while (b) { /* one whole block stays, the others go */
        tlm_strblock *next = b->next;
        if (!keep && b->size == BLOCK_SIZE)
            keep = b;
        else
            in->a->free_fn(in->a->ctx, b);
        b = next;
    }
    in->blocks = keep;
    if (keep) {
        keep->next = NULL;
        in->cur = keep->data;
        in->cur_left = keep->size;
    } else {
        in->cur = NULL;
        in->cur_left = 0;
    }
    memset(in->slots, 0, in->nslots * sizeof *in->slots);
    in->n = 1;
    in->bytes = 0;
}

static char *store_bytes(tlm_intern *in, const char *s, size_t len)
{
    size_t need = len + 1;
    if (need > in->cur_left) {
        size_t size = need > BLOCK_SIZE / 4 ? need : BLOCK_SIZE;
        tlm_strblock *b =
            in->a->malloc_fn(in->a->ctx, sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
        b->next = in->blocks;
        in->blocks = b;
        if (size == BLOCK_SIZE || need <= BLOCK_SIZE / 4) {
            in->cur = b->data;
            in->cur_left = size;
        } else {
            /* a big string gets its own block; keep the current one */
            memcpy(b->data, s, len);
            b->data[len] = '\0';
            in->bytes += need;
            return b->data;
        }
    }
    char *d = in->cur;
    memcpy(d, s, len);
    d[len] = '\0';
    in->cur += need;
    in->cur_left -= need;
    in->bytes += need;
    return d;
}

static int grow_slots(tlm_intern *in)
{
    uint32_t n = in->nslots * 2;
    uint32_t *slots = in->a->malloc_fn(in->a->ctx, (size_t)n * sizeof *slots);
    if (!slots)
        return -1;
    memset(slots, 0, (size_t)n * sizeof *slots);
    for (uint32_t id = 1; id < in->n; id++) {
        uint32_t i = (uint32_t)in->ents[id].hash & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = id + 1;
    }
    in->a->free_fn(in->a->ctx, in->slots);
    in->slots = slots;
    in->nslots = n;
    return 0;
}

uint32_t tlm_intern_add_h(tlm_intern *in, const char *s, size_t len,
                          uint64_t h)
{
    if (len == 0)
        return 0;
    if (len > UINT32_MAX)
        return UINT32_MAX;
    uint32_t mask = in->nslots - 1;
    uint32_t i = (uint32_t)h & mask;
    for (;;) {
        uint32_t v = in->slots[i];
        if (!v)
            break;
        const tlm_strent *e = &in->ents[v - 1];
        if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
            return v - 1;
        i = (i + 1) & mask;
    }
    if (in->n >= UINT32_MAX - 1)
        return UINT32_MAX;
    if (in->n == in->cap) {
        size_t cap = in->cap; /* a 32-bit count */
        if (in->on_move)
            in->on_move(in->move_ud, TLM_MOVE_BEGIN);
        tlm_status st = tlm_grow_al(in->a, (void **)&in->ents, &cap,
                                    (size_t)in->n + 1, sizeof *in->ents, 1);
        if (in->on_move)
            in->on_move(in->move_ud, TLM_MOVE_END);
        if (st != TLM_OK)
            return UINT32_MAX;
        in->cap = (uint32_t)cap;
    }
    char *d = store_bytes(in, s, len);
    if (!d)
        return UINT32_MAX;
    uint32_t id = in->n++;
    in->ents[id].s = d;
    in->ents[id].len = (uint32_t)len;
    in->ents[id].pad_ = 0;
    in->ents[id].hash = h;
    in->slots[i] = id + 1;
    if ((uint64_t)in->n * 2 > in->nslots) {
        if (grow_slots(in) != 0) {
            /* take the string back out, so the table never fills up (a
             * full table would make every probe loop forever): its slot
             * was the last one filled, so emptying it breaks no probe
             * chain.  Its bytes stay unused in the block. */
            in->slots[i] = 0;
            in->n--;
            return UINT32_MAX;
        }
    }
    return id;
}

uint32_t tlm_intern_add(tlm_intern *in, const char *s, size_t len)
{
    return tlm_intern_add_h(in, s, len, tlm_hash64(s, len));
}

uint32_t tlm_intern_find(const tlm_intern *in, const char *s, size_t len)
{
    if (len == 0 || !in->slots)
        return 0;
    uint64_t h = tlm_hash64(s, len);
    uint32_t mask = in->nslots - 1;
    uint32_t i = (uint32_t)h & mask;
    for (;;) {
        uint32_t v = in->slots[i];
        if (!v)
            return 0;
        const tlm_strent *e = &in->ents[v - 1];
        if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
            return v - 1;
        i = (i + 1) & mask;
    }
}
