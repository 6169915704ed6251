/*
 * overlap.h - which GPU events ran at the same time as which (perfreport
 * §4.11, --include_overlap_info): one sweep over the events' intervals
 * gives, per event, the events of other streams it overlapped by at least
 * 1 us (not those launched under the same nearest cpu_op); a summary
 * of a set of kernels (an op's) gives the names of the kernels that
 * overlapped it (unique, first seen), per name the mean duration, the
 * stream and the mean fraction overlapped, and the fraction of the set's
 * busy time that something overlapped.
 *
 * No report context here: plain arrays in, plain arrays out (the report
 * layer's kl_overlap.c feeds it and prints the cells).
 */
#ifndef TLM_OVERLAP_H
#define TLM_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_common.h"

#include "ivl.h"

/* One GPU event. */
typedef struct tlm_ovl_in {
    int32_t uid;        /* 0 <= uid < n_uid */
    uint32_t name;      /* interned name id */
    double ts, te;      /* start and end, us */
    int64_t stream;     /* valid when has_stream */
    uint8_t has_stream;
    uint8_t sweep;      /* 1: takes part in the sweep; 0: only known
                           for the busy time of summaries (unlinked) */
    int32_t anc;        /* nearest cpu_op ancestor or -1 (none: never
                           "the same" as another's) */
} tlm_ovl_in;

/* One overlapped partner of an event: the common part [lo, hi]. */
typedef struct tlm_ovl_pair {
    int32_t peer;
    double lo, hi;
} tlm_ovl_pair;

typedef struct tlm_ovl {
    size_t n_uid;
    uint32_t *off;          /* n_uid + 1: pairs of uid u are
                               pairs[off[u] .. off[u + 1]) */
    tlm_ovl_pair *pairs;    /* both directions, partners in start order */
    size_t npairs;
    uint32_t *name;         /* per uid (UINT32_MAX: not a given event) */
    int64_t *stream;
    uint8_t *has_stream;
    double *ts, *te;
    uint32_t n_names;       /* 1 + the largest name id given */
} tlm_ovl;

/* The report's bound on the sweep's comparisons: this many per GPU event
 * plus a base. */
#define TLM_OVL_WORK_PER_EVENT 8u
#define TLM_OVL_WORK_BASE (1u << 20)

/* The minimum common time of two overlapping events, us. */
#define TLM_OVL_MIN_US 1.0

/* Sweeps in[0..n): events sorted by start (ties by uid); an event ends
 * before another starts at the same instant; events with te <= ts or
 * sweep 0 take no part.  Two events overlap when both are active, their
 * streams differ (or either is unknown), their anc differ (or are -1) and
 * they share at least TLM_OVL_MIN_US.  Work is O(n log n + comparisons
 * between active events of different streams); more than max_work
 * comparisons: TLM_ELIMIT (out untouched).  Errors: TLM_ENOMEM,
 * TLM_EINVAL (a uid outside [0, n_uid)). */
tlm_status tlm_ovl_build(const tlm_ovl_in *in, size_t n, size_t n_uid,
                         uint64_t max_work, tlm_ovl *out);
void tlm_ovl_free(tlm_ovl *o);
/* The partners of uid (none for an unknown uid). */
const tlm_ovl_pair *tlm_ovl_of(const tlm_ovl *o, int32_t uid, size_t *n);

/* One overlapping kernel name of a summary. */
typedef struct tlm_ovl_name {
    uint32_t name;
    size_t count;      /* (own kernel, partner) pairs with this name */
    double dur_sum;    /* the partners' durations, us */
    double frac_sum;   /* common time / partner duration */
    int64_t stream;    /* the first partner's */
    uint8_t has_stream;
} tlm_ovl_name;

/* A summary and its scratch (reused from call to call). */
typedef struct tlm_ovl_sum {
    tlm_ovl_name *names;   /* first-seen order */
    size_t nnames, cap_names;
    double pct;            /* round(len(union of common parts) /
                              busy(kernels), 2); NaN when busy is 0 */
    uint32_t *slot, *stamp; /* per name id: index in names when stamped */
    uint32_t gen, nslot;
    tlm_ivld *iv;           /* interval scratch */
    size_t cap_iv;
} tlm_ovl_sum;

/* Summary of the kernels k[0..nk) (in ts order; unknown uids ignored).
 * Errors: TLM_ENOMEM. */
tlm_status tlm_ovl_summarize(const tlm_ovl *o, const int32_t *k, size_t nk,
                             tlm_ovl_sum *s);
void tlm_ovl_sum_free(tlm_ovl_sum *s);

#endif /* TLM_OVERLAP_H */
