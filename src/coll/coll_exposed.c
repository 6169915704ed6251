/*
 * coll_exposed.c - one rank's exposed communication split into exposed
 * transfer (its collective kernels after the instance's last member
 * started) and exposed waiting (before: the kernel runs while it waits
 * for late ranks), with what cannot be told apart left unknown
 * (docs/metrics-collectives.md, "Exposed transfer and waiting").
 */
#include "coll_internal.h"

#include "ivl.h"

#include <stdlib.h>

/* The length of x minus rm (both unions); -1 when out of memory. */
static int64_t minus_len(const tlm_ivl *x, size_t nx, const tlm_ivl_vec *rm,
                         tlm_ivl_vec *tmp)
{
    if (tlm_ivl_subtract(x, nx, rm->v, rm->n, tmp) != TLM_OK)
        return -1;
    return tlm_ivl_length(tmp->v, tmp->n);
}

tlm_status tlm_coll_exposed_split(const int64_t *x, size_t n_x,
                                  const tlm_coll_xspan *m, size_t n_m,
                                  tlm_coll_xsplit *out)
{
    out->transfer_ns = out->waiting_ns = out->unknown_ns = 0;
    tlm_ivl_vec xs = {0}, tr = {0}, wt = {0}, un = {0}, t1 = {0}, t2 = {0};
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && i < n_x; i++)
        if (x[2 * i + 1] > x[2 * i])
            st = tlm_ivl_push(&xs, x[2 * i], x[2 * i + 1]);
    for (size_t i = 0; st == TLM_OK && i < n_m; i++) {
        int64_t s = m[i].start_ns, e = m[i].end_ns;
        if (e <= s)
            continue;
        if (!m[i].known) {
            st = tlm_ivl_push(&un, s, e);
            continue;
        }
        /* the last start, clipped to the kernel (unsigned: e - s may
         * pass INT64_MAX, s + w stays below e) */
        uint64_t w = m[i].wait_ns > 0 ? (uint64_t)m[i].wait_ns : 0;
        int64_t at = w < (uint64_t)e - (uint64_t)s
                         ? (int64_t)((uint64_t)s + w)
                         : e;
        if (at > s)
            st = tlm_ivl_push(&wt, s, at);
        if (st == TLM_OK && e > at)
            st = tlm_ivl_push(&tr, at, e);
    }
    if (st != TLM_OK)
        goto done;
    xs.n = tlm_ivl_union(xs.v, xs.n);
    tr.n = tlm_ivl_union(tr.v, tr.n);
    wt.n = tlm_ivl_union(wt.v, wt.n);
    un.n = tlm_ivl_union(un.v, un.n);
    int64_t all = tlm_ivl_length(xs.v, xs.n);
    /* transfer: x inside tr; what is left (t1) goes to unknown members
     * first, then (t2) to waiting */
    st = tlm_ivl_subtract(xs.v, xs.n, tr.v, tr.n, &t1);
    if (st != TLM_OK)
        goto done;
    int64_t rest = tlm_ivl_length(t1.v, t1.n);
    st = tlm_ivl_subtract(t1.v, t1.n, un.v, un.n, &t2);
    if (st != TLM_OK)
        goto done;
    int64_t not_wait = minus_len(t2.v, t2.n, &wt, &t1);
    if (not_wait < 0) {
        st = TLM_ENOMEM;
        goto done;
    }
    out->transfer_ns = all - rest;
    out->waiting_ns = tlm_ivl_length(t2.v, t2.n) - not_wait;
    out->unknown_ns = all - out->transfer_ns - out->waiting_ns;
done:
    free(xs.v);
    free(tr.v);
    free(wt.v);
    free(un.v);
    free(t1.v);
    free(t2.v);
    return st;
}
