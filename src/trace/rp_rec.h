/*
 * rp_rec.h - the buffer records of the rocprofv3 reader as they are
 * being read, and the whole-record fast paths (rp_fast.c) that rocprof.c
 * tries before its token-at-a-time path.  Not part of the public API.
 */
#ifndef TLM_RP_REC_H
#define TLM_RP_REC_H

#include "tlmpi/tlm_rocprof.h"

#include "rp_keys.h"

/* What every timed record shares. */
typedef struct rp_timed {
    int64_t start, end, thread_id, corr, operation, stream;
    int seen; /* 1 start, 2 end */
} rp_timed;

/* A kernel dispatch being read. */
typedef struct rp_kd {
    rp_timed t;
    tlm_rp_kernel k;
    int has_kid;
} rp_kd;

/* A memory copy being read. */
typedef struct rp_mc {
    rp_timed t;
    tlm_rp_copy c;
} rp_mc;

/* The starting values of each (what a record without the key gets). */
void rp_kd_init(rp_kd *d);
void rp_mc_init(rp_mc *m);
void rp_timed_init(rp_timed *t);

/* Object kinds of the fast paths, each with its own key predictions. */
enum { RP_SITE_KD, RP_SITE_MC, RP_SITE_API, RP_SITE_DINFO, RP_SITE_HANDLE,
       RP_SITE_CORR, RP_SITE_DIMS, RP_SITE_SKIPPED, RP_SITES };

/* The window a fast path reads, and the limits the slow path applies. */
typedef struct rp_fast {
    const unsigned char *end;  /* the window's end */
    const unsigned char *attn; /* rp_lex.attn */
    const rp_keys *keys;
    /* [site * RP_FKEY_N + entry of the key before (0 at the start)]: the
     * entry of the key that came next last time (learned, zeroed at the
     * start of a read) */
    unsigned char *pred;
    size_t max_str;
    unsigned max_depth;
} rp_fast;

/* Reads one record from p (just after its '{'; level: the record's
 * nesting level, at most max_depth - 3).  Returns the byte after its
 * '}', or NULL to give up: the record is not wholly in the window or not
 * in the plain shape (escapes, non-ASCII, negative or long numbers,
 * unexpected types, bad syntax).  On NULL the record struct holds
 * partial values: start it again before the slow path. */
const unsigned char *rp_fast_kd(const rp_fast *f, const unsigned char *p,
                                unsigned level, rp_kd *d);
const unsigned char *rp_fast_mc(const rp_fast *f, const unsigned char *p,
                                unsigned level, rp_mc *m);
const unsigned char *rp_fast_api(const rp_fast *f, const unsigned char *p,
                                 unsigned level, rp_timed *t);

#endif /* TLM_RP_REC_H */
