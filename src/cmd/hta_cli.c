/*
 * hta_cli.c - the --hta options and the single-trace HTA run of `tlmpi
 * report` (the job's run, with ranks, is phase_hta.c).
 */
#include "hta_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tlm_cli_hta_init(tlm_cli_hta *h)
{
    memset(h, 0, sizeof *h);
    h->rank = -1;
    tlm_hta_opts_init(&h->o);
}

/* A number >= 0 into *out: 1, or -1 after a message. */
static int num_opt(const char *cmd, const char *name, const char *v,
                   double *out)
{
    char *end = NULL;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || !end || end == v || *end || !(d >= 0) || d > 1e12) {
        fprintf(stderr, "tlmpi %s: %s: expected a number >= 0 (got %s)\n",
                cmd, name, v);
        return -1;
    }
    *out = d;
    return 1;
}

/* An integer >= lo into *out: 1, or -1 after a message. */
static int int_opt(const char *cmd, const char *name, const char *v,
                   long lo, long *out)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || !end || end == v || *end || x < lo || x > 1000000000L) {
        fprintf(stderr, "tlmpi %s: %s: expected an integer >= %ld (got "
                "%s)\n", cmd, name, lo, v);
        return -1;
    }
    *out = x;
    return 1;
}

/* One --hta_* option with its value: 1 taken, 0 not one, -1 error. */
static int value_opt(const char *cmd, const char *a, const char *v,
                     tlm_cli_hta *h)
{
    long x;
    int r;
    if (!strcmp(a, "--hta_time")) {
        if (strcmp(v, "us") && strcmp(v, "ns")) {
            fprintf(stderr, "tlmpi %s: --hta_time: us or ns (got %s)\n",
                    cmd, v);
            return -1;
        }
        h->o.time = v[0] == 'n' ? TLM_HTA_TIME_NS : TLM_HTA_TIME_US;
        return 1;
    }
    if (!strcmp(a, "--hta_consecutive_kernel_delay"))
        return num_opt(cmd, a, v, &h->o.consecutive_kernel_delay);
    if (!strcmp(a, "--hta_runtime_cutoff"))
        return num_opt(cmd, a, v, &h->o.runtime_cutoff);
    if (!strcmp(a, "--hta_launch_delay_cutoff"))
        return num_opt(cmd, a, v, &h->o.launch_delay_cutoff);
    if (!strcmp(a, "--hta_min_pattern_len")) {
        if ((r = int_opt(cmd, a, v, 1, &x)) > 0)
            h->o.min_pattern_len = (int)x;
        return r;
    }
    if (!strcmp(a, "--hta_rank")) {
        if ((r = int_opt(cmd, a, v, 0, &x)) > 0)
            h->rank = x;
        return r;
    }
    if (!strcmp(a, "--hta_kernel_sequences")) {
        if (!v[0] || strlen(v) > 1000) {
            fprintf(stderr, "tlmpi %s: --hta_kernel_sequences: an operator "
                    "name of 1 to 1000 bytes\n", cmd);
            return -1;
        }
        h->o.kernel_seq_op = v;
        return 1;
    }
    /* --hta_critical_path */
    tlm_error err;
    tlm_error_clear(&err);
    if (tlm_hta_cp_parse(v, &h->o, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi %s: %s\n", cmd, err.msg);
        return -1;
    }
    return 1;
}

int tlm_cli_hta_opt(const char *cmd, int argc, char **argv, int *i,
                    tlm_cli_hta *h)
{
    static const char *const with_value[] = {
        "--hta_time", "--hta_consecutive_kernel_delay",
        "--hta_runtime_cutoff", "--hta_launch_delay_cutoff",
        "--hta_min_pattern_len", "--hta_rank", "--hta_kernel_sequences",
        "--hta_critical_path"};
    const char *a = argv[*i];
    if (!strcmp(a, "--hta")) {
        h->on = 1;
        return 1;
    }
    if (!strcmp(a, "--hta_include_last_step")) {
        h->o.include_last_step = 1;
        h->any = 1;
        return 1;
    }
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) {
        if (strcmp(a, with_value[k]) != 0)
            continue;
        if (*i + 1 >= argc) {
            fprintf(stderr, "tlmpi %s: %s needs a value\n", cmd, a);
            return -1;
        }
        *i += 1;
        h->any = 1;
        return value_opt(cmd, a, argv[*i], h);
    }
    return 0;
}

int tlm_cli_hta_check(const char *cmd, const tlm_cli_hta *h)
{
    if (h->any && !h->on) {
        fprintf(stderr, "tlmpi %s: the --hta_* options need --hta\n", cmd);
        return -1;
    }
    return 0;
}

tlm_status tlm_cli_hta_single(const tlm_trace *tr, const tlm_cli_hta *h,
                              tlm_hta_result **out, tlm_error *err)
{
    *out = NULL;
    const tlm_trace_meta *m = tlm_trace_meta_get(tr);
    int64_t rank = m->rank >= 0 ? m->rank : 0;
    tlm_hta_events *ev = NULL;
    tlm_hta_result *one = NULL;
    tlm_status st = tlm_hta_events_build(tr, rank, h->o.time, &ev, err);
    if (st == TLM_OK)
        st = tlm_hta_events_filter(ev, ev->n_step_names,
                                   h->o.include_last_step, err);
    if (st == TLM_OK) {
        tlm_hta_events_shift(ev, ev->min_ts == INT64_MAX ? 0 : ev->min_ts);
        st = tlm_hta_build(ev, &h->o, h->rank < 0 || h->rank == rank, &one,
                           err);
    }
    if (st == TLM_OK)
        st = tlm_hta_merge(&one, 1, out, err);
    tlm_hta_result_free(one);
    tlm_hta_events_free(ev);
    return st;
}
