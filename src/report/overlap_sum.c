/*
 * overlap_sum.c - the overlap summary of a set of kernels (overlap.h):
 * the partners' names (unique, first seen: own kernels in ts order, each
 * one's partners in start order), per name the pair count, the partners'
 * mean duration and fraction overlapped and the first partner's stream,
 * and the fraction of the set's busy time covered by the common parts.
 */
#include "overlap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "npstats.h"

/* Per-name slots sized for o's names; a new generation forgets the last
 * summary's names.  Errors: TLM_ENOMEM. */
static tlm_status new_generation(const tlm_ovl *o, tlm_ovl_sum *s)
{
    if (o->n_names > s->nslot) {
        uint32_t *a = realloc(s->slot, o->n_names * sizeof *a);
        if (!a)
            return TLM_ENOMEM;
        s->slot = a;
        uint32_t *b = realloc(s->stamp, o->n_names * sizeof *b);
        if (!b)
            return TLM_ENOMEM;
        s->stamp = b;
        memset(s->stamp + s->nslot, 0,
               (o->n_names - s->nslot) * sizeof *s->stamp);
        s->nslot = o->n_names;
    }
    if (++s->gen == 0) { /* wrapped: every stamp is stale again */
        memset(s->stamp, 0, s->nslot * sizeof *s->stamp);
        s->gen = 1;
    }
    s->nnames = 0;
    return TLM_OK;
}

/* The entry of name nm, added (first seen) when new.  NULL on ENOMEM. */
static tlm_ovl_name *name_entry(tlm_ovl_sum *s, uint32_t nm, int64_t stream,
                                uint8_t has_stream)
{
    if (nm < s->nslot && s->stamp[nm] == s->gen)
        return &s->names[s->slot[nm]];
    if (tlm_grow((void **)&s->names, &s->cap_names, s->nnames + 1,
                 sizeof *s->names, 16))
        return NULL;
    tlm_ovl_name *e = &s->names[s->nnames];
    memset(e, 0, sizeof *e);
    e->name = nm;
    e->stream = stream;
    e->has_stream = has_stream;
    if (nm < s->nslot) {
        s->stamp[nm] = s->gen;
        s->slot[nm] = (uint32_t)s->nnames;
    }
    s->nnames++;
    return e;
}

tlm_status tlm_ovl_summarize(const tlm_ovl *o, const int32_t *k, size_t nk,
                             tlm_ovl_sum *s)
{
    s->pct = NAN;
    tlm_status st = new_generation(o, s);
    if (st != TLM_OK)
        return st;
    size_t npairs = 0;
    for (size_t i = 0; i < nk; i++) {
        size_t m;
        tlm_ovl_of(o, k[i], &m);
        npairs += m;
    }
    if ((st = tlm_grow((void **)&s->iv, &s->cap_iv, nk + npairs + 1,
                       sizeof *s->iv, 64)) != TLM_OK)
        return st;
    tlm_ivld *own = s->iv, *com;
    size_t no = 0, nc = 0;
    for (size_t i = 0; i < nk; i++) {
        int32_t u = k[i];
        if (u >= 0 && (size_t)u < o->n_uid && o->name[u] != UINT32_MAX &&
            o->te[u] > o->ts[u])
            own[no++] = (tlm_ivld){o->ts[u], o->te[u]};
    }
    com = own + no;
    for (size_t i = 0; i < nk; i++) {
        size_t m;
        const tlm_ovl_pair *p = tlm_ovl_of(o, k[i], &m);
        for (size_t j = 0; j < m; j++) {
            int32_t q = p[j].peer;
            tlm_ovl_name *e =
                name_entry(s, o->name[q], o->stream[q], o->has_stream[q]);
            if (!e)
                return TLM_ENOMEM;
            double d = o->te[q] - o->ts[q];
            e->count++;
            e->dur_sum += d;
            e->frac_sum += (p[j].hi - p[j].lo) / d;
            com[nc++] = (tlm_ivld){p[j].lo, p[j].hi};
        }
    }
    double busy = tlm_ivld_union_len(own, no);
    if (busy > 0)
        s->pct = tlm_np_round2(tlm_ivld_union_len(com, nc) / busy);
    return TLM_OK;
}

void tlm_ovl_sum_free(tlm_ovl_sum *s)
{
    if (!s)
        return;
    free(s->names);
    free(s->slot);
    free(s->stamp);
    free(s->iv);
    memset(s, 0, sizeof *s);
}
