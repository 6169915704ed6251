/*
 * cause.c - rank 0's outputs of the straggler causes (cause.h,
 * docs/straggler-causes.md): the HDF5 rows of /straggler_causes from the
 * merged cause rows, and report.md's (and audit.md's) sentences.  The
 * numbers come from src/coll (coll_cause.c); the exchange that merges
 * them is mpi/cause.c.  No MPI calls.
 */
#include "cause.h"

#include <stdlib.h>
#include <string.h>

/* The op row of (pg, cause) with the most extra time, or NULL. */
static const tlm_coll_cause_row *top_op(const tlm_coll_cause_row *rows,
                                        size_t n, const tlm_coll_cause_row *c)
{
    const tlm_coll_cause_row *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_cause_row *r = &rows[i];
        if (r->op_hash && r->pg_hash == c->pg_hash && r->cause == c->cause &&
            r->trace_rank == c->trace_rank &&
            (!best || r->delay_ns > best->delay_ns))
            best = r;
    }
    return best;
}

tlm_status tlm_out_cause_rows(const tlm_coll_cause_row *rows, size_t n,
                              tlm_row_cause **out, size_t *n_out)
{
    *out = calloc(n ? n : 1, sizeof **out);
    *n_out = 0;
    if (!*out)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_cause_row *r = &rows[i];
        if (r->op_hash || r->delay_ns <= 0 || r->total_delay_ns <= 0)
            continue;
        tlm_row_cause *o = &(*out)[(*n_out)++];
        tlm_strnset(o->group, sizeof o->group, r->pg_name,
                        sizeof r->pg_name);
        o->rank = r->trace_rank;
        tlm_strset(o->cause, sizeof o->cause, tlm_cause_name(r->cause));
        o->delay_us = (double)r->delay_ns / 1e3;
        o->group_delay_us = (double)r->total_delay_ns / 1e3;
        o->share = (double)r->delay_ns / (double)r->total_delay_ns;
        o->n_instances = r->n_instances;
        const tlm_coll_cause_row *t = top_op(rows, n, r);
        if (t) {
            tlm_strnset(o->top_op, sizeof o->top_op, t->op_name,
                            sizeof t->op_name);
            o->top_op_extra_us = (double)t->delay_ns / 1e3;
        }
        o->pg_hash = r->pg_hash;
    }
    return TLM_OK;
}

/* An op name between backticks (hostile text: backticks and control
 * characters replaced). */
static void op_code(FILE *f, const char *s, size_t cap)
{
    fputc('`', f);
    for (size_t i = 0; i < cap && s[i]; i++) {
        unsigned char ch = (unsigned char)s[i];
        fputc(ch < 0x20 || ch == '`' || ch == 0x7f ? '?' : ch, f);
    }
    fputc('`', f);
}

static void why(FILE *f, const tlm_coll_cause_row *r,
                const tlm_coll_cause_row *t)
{
    switch (r->cause) {
    case TLM_CAUSE_SLOW_KERNELS:
        fputs("its GPU was busy longer than the median rank's before the "
              "collectives",
              f);
        if (t) {
            fputs(", most of it in ", f);
            op_code(f, t->op_name, sizeof t->op_name);
            fprintf(f, " (+%.3f ms)", (double)t->delay_ns / 1e6);
        }
        break;
    case TLM_CAUSE_HOST_BUSY:
        fputs("its GPU sat idle because the host had not launched the work "
              "yet",
              f);
        if (t) {
            fputs("; the host was in ", f);
            op_code(f, t->op_name, sizeof t->op_name);
            fprintf(f, " (+%.3f ms)", (double)t->delay_ns / 1e6);
        }
        break;
    case TLM_CAUSE_LATE_LAUNCH:
        fputs("its GPU sat idle although the work had been launched (launch "
              "or queueing delay)",
              f);
        break;
    case TLM_CAUSE_WAITING_ELSEWHERE:
        fputs("its GPU sat idle longer than the median rank's while its next "
              "work waited for a collective of another group (waiting there "
              "for other ranks, or its transfer)",
              f);
        break;
    case TLM_CAUSE_CLOCK:
        fputs("the previous collective seems to end at different times on "
              "the two ranks, so this part is clock offset error, not "
              "lateness",
              f);
        break;
    default:
        fputs("not explained by the windows (a GPU op without its launch, "
              "steps that did not start together, or a bound hit)",
              f);
        break;
    }
}

void tlm_out_cause_md(FILE *f, const tlm_coll_cause_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_cause_row *r = &rows[i];
        if (r->op_hash || r->delay_ns <= 0 || r->total_delay_ns <= 0)
            continue;
        fprintf(f, "- %s, %.0f%% of rank %d's delay in group ",
                tlm_cause_name(r->cause),
                100.0 * (double)r->delay_ns / (double)r->total_delay_ns,
                r->trace_rank);
        op_code(f, r->pg_name, sizeof r->pg_name);
        fprintf(f, " (%.3f of %.3f ms over %lld collectives): ",
                (double)r->delay_ns / 1e6, (double)r->total_delay_ns / 1e6,
                (long long)r->n_instances);
        why(f, r, top_op(rows, n, r));
        fputs(".\n", f);
    }
}
