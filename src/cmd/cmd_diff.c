/*
 * cmd_diff.c - `tlmpi diff TRACE_A TRACE_B --output_dir D`: TraceLens's
 * TraceDiff without MPI (docs/diff.md).  Reads both traces in two threads,
 * builds both call trees, merges them and writes the outputs as one
 * output set (all or nothing).
 */
#include "cli.h"
#include "slip.h"
#include "sigclean.h"

#include "tlmpi/tlm_diff.h"
#include "tlmpi/tlm_outset.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The usage text of tlmpi diff. */
static void diff_usage(FILE *f)
{
    fprintf(f,
        "usage: tlmpi diff TRACE_A TRACE_B --output_dir DIR [options]\n\n"
        "TraceDiff (TraceLens): aligns the call trees of two traces (A the\n"
        "baseline) and writes merged_tree_output.txt, diff_stats.csv,\n"
        "diff_stats_unique_args_summary.csv, cpu_op_map.json,\n"
        "cpu_op_map_trace1.json, cpu_op_map_trace2.json and\n"
        "diff_summary.csv (per cpu_op name: count and GPU time in A and B).\n\n"
        "options:\n"
        "  --output_dir DIR      output folder (created if missing)\n"
        "  --bleed_tolerance     nest events overrunning the parent by < 1 us\n"
        "  --no_corr_fallback    link launches by ac2g flows only "
        "(TraceLens)\n"
        "  --max_events N        refuse traces with more than N events\n"
        "  --max_output_mb N     refuse (before writing) an output that may\n"
        "                        exceed N MB (default 4096)\n"
        "  --force               replace outputs that exist already\n"
        "  --quiet               no summary on stderr\n");
}

typedef struct side {
    const char *path;
    tlm_tree_opts to;
    uint64_t max_events;
    tlm_trace *tr;
    tlm_tree *tree;
    tlm_error err;
    tlm_status st;
} side;

/* One side read and its tree built (a thread's body). */
static void *load(void *arg)
{
    side *s = arg;
    tlm_tree_stream *ts = NULL;
    tlm_error_clear(&s->err);
    s->st = tlm_tree_stream_new(&s->to, &ts);
    if (s->st != TLM_OK) {
        tlm_error_set(&s->err, s->st, s->path, -1, "out of memory");
        return NULL;
    }
    tlm_read_opts ro;
    tlm_read_opts_init(&ro);
    ro.on_event = tlm_tree_stream_event;
    ro.on_move = tlm_tree_stream_move;
    ro.on_event_ud = ts;
    ro.max_events = s->max_events;
    s->st = tlm_trace_read_file(s->path, &ro, &s->tr, &s->err);
    if (s->st == TLM_OK)
        s->st = tlm_tree_build_stream(s->tr, ts, &s->tree, &s->err);
    tlm_tree_stream_free(ts);
    return NULL;
}

/* Monotonic seconds. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Prints the error; exit code 1. */
static int err_out(const tlm_error *e)
{
    char m[1200];
    fprintf(stderr, "tlmpi diff: error: %s\n",
            tlm_error_format(e, m, sizeof m));
    return 1;
}

/* The output set: every output checked before any work. */
static int check_outputs(tlm_outset *set, int force, side *s,
                         const char *dir)
{
    tlm_error err;
    tlm_error_clear(&err);
    if (tlm_outset_init(set, force, &err) != TLM_OK ||
        tlm_outset_add_input(set, s[0].path, &err) != TLM_OK ||
        tlm_outset_add_input(set, s[1].path, &err) != TLM_OK)
        return err_out(&err);
    for (int f = 0; f < TLM_DIFF_NFILES; f++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir,
                 tlm_diff_file_name((tlm_diff_file)f));
        if (tlm_outset_check(set, p, &err) != TLM_OK) {
            tlm_outset_free(set);
            return err_out(&err);
        }
    }
    return 0;
}

int tlm_cmd_diff(int argc, char **argv)
{
    side s[2];
    memset(s, 0, sizeof s);
    const char *dir = NULL;
    int force = 0, quiet = 0, bleed = 0, corr = 1;
    uint64_t max_events = 0, max_out_mb = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            diff_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--output_dir") || !strcmp(a, "--max_events") ||
                   !strcmp(a, "--max_output_mb")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tlmpi diff: %s needs a value\n", a);
                return 2;
            }
            if (!strcmp(a, "--output_dir")) {
                dir = argv[++i];
            } else {
                char *end;
                uint64_t v = strtoull(argv[++i], &end, 10);
                if (*end || !*argv[i] || argv[i][0] == '-') {
                    fprintf(stderr, "tlmpi diff: bad %s %s\n", a,
                            tlm_esc(argv[i]));
                    return 2;
                }
                *(!strcmp(a, "--max_events") ? &max_events : &max_out_mb) = v;
            }
        } else if (!strcmp(a, "--force")) {
            force = 1;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--bleed_tolerance")) {
            bleed = 1;
        } else if (!strcmp(a, "--no_corr_fallback")) {
            corr = 0;
        } else if (a[0] == '-' && a[1]) {
            tlm_cmd_unknown_opt("diff", a, diff_usage);
            return 2;
        } else if (!s[0].path) {
            s[0].path = a;
        } else if (!s[1].path) {
            s[1].path = a;
        } else {
            fprintf(stderr, "tlmpi diff: two traces only (got %s)\n", a);
            return 2;
        }
    }
    if (!s[0].path || !s[1].path || !dir) {
        diff_usage(stderr);
        return 2;
    }
    tlm_outset set;
    if (check_outputs(&set, force, s, dir) != 0)
        return 1;
    tlm_cli_signals_install();
    tlm_cli_signals_track(&set);
    double t0 = now_s();
    for (int k = 0; k < 2; k++) {
        tlm_tree_opts_init(&s[k].to);
        s[k].to.bleed_tolerance = bleed;
        s[k].to.corr_fallback = corr;
        s[k].max_events = max_events;
    }
    pthread_t th;
    int threaded = pthread_create(&th, NULL, load, &s[1]) == 0;
    load(&s[0]);
    if (threaded)
        pthread_join(th, NULL);
    else
        load(&s[1]);
    double t1 = now_s();
    int rc = 1;
    tlm_diff *d = NULL;
    tlm_error err;
    tlm_error_clear(&err);
    for (int k = 0; k < 2; k++)
        if (s[k].st != TLM_OK) {
            err_out(&s[k].err);
            goto done;
        }
    tlm_diff_opts dopts;
    tlm_diff_opts_init(&dopts);
    dopts.max_output_bytes =
        max_out_mb > UINT64_MAX / 1000000 ? UINT64_MAX : max_out_mb * 1000000;
    if (tlm_diff_build(s[0].tree, s[1].tree, &dopts, &d, &err) != TLM_OK) {
        err_out(&err);
        goto done;
    }
    double t2 = now_s();
    if (tlm_diff_stage(d, &set, dir, &err) != TLM_OK ||
        tlm_outset_commit(&set, &err) != TLM_OK) {
        err_out(&err);
        goto done;
    }
    double t3 = now_s();
    const tlm_diff_stats *ds = tlm_diff_stats_get(d);
    if (ds->no_gpu && !quiet) /* a note: the empty tables say it too */
        fprintf(stderr, "tlmpi diff: no GPU op under any cpu_op in either "
                        "trace: the tables have no rows\n");
    if (!quiet) {
        fprintf(stderr,
                "tlmpi diff: %zu roots in trace1, %zu in trace2; %zu merged "
                "nodes; diff_stats rows %zu (trace1) + %zu (trace2), %zu "
                "LCAs%s (read %.3f s, diff %.3f s, write %.3f s)\n",
                ds->roots1, ds->roots2, ds->merged_nodes, ds->rows1,
                ds->rows2, ds->lcas,
                ds->identical && !ds->no_gpu ? "; identical traces" : "",
                t1 - t0, t2 - t1, t3 - t2);
        if (ds->wf_fallbacks)
            fprintf(stderr, "tlmpi diff: warning: %zu sibling alignments "
                            "too large for Wagner-Fischer: suffix matched, "
                            "rest deleted/inserted\n", ds->wf_fallbacks);
    }
    rc = 0;
done:
    tlm_cli_signals_untrack(&set);
    tlm_outset_free(&set);
    tlm_diff_free(d);
    for (int k = 0; k < 2; k++) {
        tlm_tree_free(s[k].tree);
        tlm_trace_free(s[k].tr);
    }
    return rc;
}
