/*
 * synth_internal.h - pieces shared by synth.c (options, job model, passes,
 * ground truth), synth_gen.c (step program, lock-step engine, event
 * writer) and synth_out.c (buffered plain/gzip writer with hand-rolled
 * number formatting).
 */
#ifndef TLM_SYNTH_INTERNAL_H
#define TLM_SYNTH_INTERNAL_H

#include "tlmpi/tlm_synth.h"

#include <stdio.h>

/* Buffered output: plain FILE, gzip (zlib gzFile) or discard (count only).
 * The put functions never fail individually; the first I/O error is kept in
 * st and later writes are dropped. */
typedef struct tlm_synth_out {
    char *buf;
    size_t len;
    size_t cap;
    FILE *fp;
    void *gz;          /* gzFile */
    int discard;       /* count bytes, write nothing */
    uint64_t total;    /* bytes put so far */
    tlm_status st;
} tlm_synth_out;

/* Opens path for writing (gzip when gzip != 0, at level); path NULL means a
 * counting sink.  Returns TLM_OK, TLM_EIO or TLM_ENOMEM. */
tlm_status tlm_synth_out_open(tlm_synth_out *o, const char *path, int gzip,
                              int level);
/* Flushes and closes; returns the first error seen (TLM_OK otherwise). */
tlm_status tlm_synth_out_close(tlm_synth_out *o);

void tlm_synth_flush(tlm_synth_out *o);
void tlm_synth_putn(tlm_synth_out *o, const char *s, size_t n);
void tlm_synth_puts(tlm_synth_out *o, const char *s);
void tlm_synth_putc(tlm_synth_out *o, char c);
void tlm_synth_puti(tlm_synth_out *o, int64_t v);
/* ns as decimal microseconds with exactly three fractional digits. */
void tlm_synth_putus(tlm_synth_out *o, int64_t ns);
/* v[0..n) as "1, 2, 3" (no brackets). */
void tlm_synth_put_ints(tlm_synth_out *o, const int *v, int n);
/* JSON string with quotes and escapes. */
void tlm_synth_putq(tlm_synth_out *o, const char *s);

/* ------------------------------------------------------------ job model */

/* Kinds of process group; every rank belongs to at most one group of each
 * kind (p2p groups are pairs of DP neighbours and may leave a rank out). */
enum {
    SYN_PG_DEFAULT = 0,
    SYN_PG_TP,
    SYN_PG_DP,
    SYN_PG_P2P,
    SYN_PG_KINDS
};

/* Collective kinds of the step program. */
enum {
    SYN_C_TP_AR = 0,   /* TP all_reduce of activations / input grads */
    SYN_C_DP_RS,       /* DP reduce_scatter of a layer's gradients */
    SYN_C_DP_AG,       /* DP all_gather of a layer's updated shard */
    SYN_C_LOSS_AR,     /* default-pg all_reduce of the loss (Float) */
    SYN_C_BCAST,       /* default-pg broadcast of a step counter (Long) */
    SYN_C_A2A,         /* DP all_to_all (expert dispatch) */
    SYN_C_A2AV,        /* DP all_to_allv (expert combine) */
    SYN_C_P2P,         /* send / recv between a p2p pair */
    SYN_C_KINDS
};

/* One member slot per rank and collective, kept outside the public truth. */
typedef struct syn_job {
    tlm_synth_opts o;
    int dp;
    int n_nodes;
    int n_groups[SYN_PG_KINDS];      /* groups of each kind */
    int first_pg[SYN_PG_KINDS];      /* index of kind's group 0 in pgs */
    int *gidx;                       /* [rank * SYN_PG_KINDS + kind], -1 */
    int *gpos;                       /* position of rank in that group */
    tlm_synth_truth *t;
    size_t cap_colls;
    size_t cap_members;
    int64_t *member_issue;           /* CPU issue time per member (global) */
    int64_t *pg_seq;                 /* next seq per pg */
    size_t **rank_members;           /* per rank: member indices, in order */
    size_t *rank_nmem;
    size_t *rank_capmem;
    int64_t t0;                      /* global time of the first event */
    int *clipped;                    /* per rank: 1 = window applies */
    int *write;                      /* per rank: 1 = trace file wanted */
} syn_job;

/* Engine modes. */
enum {
    SYN_RESOLVE = 0,   /* arrivals of all ranks decide the collective times,
                          recorded into the truth */
    SYN_REPLAY = 1     /* collective end times come from the truth */
};

/* Runs `steps` steps for the ranks in `ranks` (n of them) in lock-step.
 * outs: NULL, or one output per listed rank (events are written there).
 * step_bytes: NULL, or n * (steps + 1) entries receiving each output's byte
 * count after the header and after each step.  Returns TLM_OK or
 * TLM_ENOMEM / TLM_EIO. */
tlm_status tlm_synth_engine(syn_job *job, int mode, const int *ranks, int n,
                            int steps, tlm_synth_out **outs,
                            uint64_t *step_bytes);

#endif /* TLM_SYNTH_INTERNAL_H */
