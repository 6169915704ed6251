/*
 * cmd_report.c - `tlmpi report TRACE --output_csvs_dir DIR ...`: the
 * single-trace performance report (TraceLens's
 * TraceLens_generate_perf_report_pytorch), without MPI.  Reads the trace,
 * builds the call tree and every table, writes one CSV per sheet with
 * TraceLens's names and columns, and report.md (docs/report.md), and/or
 * the same tables as one Excel workbook (--output_xlsx_path).
 */
#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_COUNT */
#include "cli.h"
#include "sigclean.h"

#include "tlmpi/tlm_perf.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static void report_usage(FILE *f)
{
    fprintf(f,
        "usage: tlmpi report TRACE --output_csvs_dir DIR [options]\n"
        "       tlmpi report TRACE --output_xlsx_path FILE.xlsx [options]\n\n"
        "Single-trace performance report (TraceLens's perf report): one CSV\n"
        "per sheet in DIR plus DIR/report.md, and/or one workbook.\n\n"
        "options:\n"
        "  --output_csvs_dir DIR        output folder (created if missing)\n"
        "  --output_xlsx_path FILE      Excel workbook, one worksheet per "
        "sheet\n"
        "  --output_md FILE             Markdown report path "
        "(default DIR/report.md)\n"
        "  --gpu_arch NAME              roofline against a bundled GPU "
        "(none: no\n"
        "                               roofline); default: the GPU the "
        "trace's\n"
        "                               deviceProperties name, if known\n"
        "  --gpu_arch_json_path FILE    roofline against a TraceLens arch "
        "JSON\n"
        "  --tracelens_compat LIST      reproduce TraceLens quirks: all, or "
        "a\n"
        "                               comma list of:");
#define TLM_X_(e, bit, name, desc) fprintf(f, " %s", name);
    TLM_COMPAT_LIST(TLM_X_)
#undef TLM_X_
    fprintf(f,
        "\n"
        "  --bleed_tolerance            nest events overrunning the parent "
        "by < 1 us\n"
        "                               (TraceLens PR #904)\n"
        "  --include_unlinked_kernels   timeline uses unlinked GPU ops too\n"
        "  --micro_idle_thresh_us X     split idle time into micro/macro\n"
        "  --short_kernel_threshold_us X  (default 10)\n"
        "  --short_kernel_histogram_bins B (default 100)\n"
        "  --topk_short_kernels N\n"
        "  --disable_kernel_summary     no kernel_summary sheet\n"
        "  --disable_short_kernel_study no short-kernel sheets\n"
        "  --disable_coll_analysis      no coll_analysis sheet\n"
        "  --threads N                  1 or 2 (default 2 when this process "
        "may run\n"
        "                               on 2 CPUs or more, else 1)\n"
        "  --force                      replace outputs that exist already\n"
        "  --quiet                      no summary on stderr\n"
        "\nbundled GPUs:");
    for (size_t i = 0; i < tlm_gpu_arch_count(); i++)
        fprintf(f, " %s", tlm_gpu_arch_at(i)->name);
    fprintf(f, "\n");
}

/* Before any work: the output rules on the files every run writes (the
 * folder is created and probed; the trace is never an output), and the
 * set tracked by the signal handlers.  0, or 1 with a message. */
static int start_outputs(tlm_outset *set, int force, const char *trace_path,
                         const char *dir, const char *md, const char *xlsx)
{
    tlm_error err;
    char gt[4200];
    snprintf(gt, sizeof gt, "%s/gpu_timeline.csv", dir ? dir : ".");
    if (tlm_outset_init(set, force, &err) != TLM_OK ||
        tlm_outset_add_input(set, trace_path, &err) != TLM_OK ||
        (md && tlm_outset_check(set, md, &err) != TLM_OK) ||
        (dir && tlm_outset_check(set, gt, &err) != TLM_OK) ||
        (xlsx && tlm_outset_check(set, xlsx, &err) != TLM_OK)) {
        char m[1200];
        fprintf(stderr, "tlmpi report: error: %s\n",
                tlm_error_format(&err, m, sizeof m));
        tlm_outset_free(set);
        return 1;
    }
    tlm_mpi_signals_install();
    tlm_mpi_signals_track(set);
    return 0;
}

/* CPUs this process may run on (its affinity mask: a Slurm step or
 * taskset may allow fewer than are online). */
static int cpus_available(void)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int need(int i, int argc, char **argv)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "tlmpi report: %s needs a value\n", argv[i]);
        return 0;
    }
    return 1;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end)
        return 0;
    *out = v;
    return 1;
}

int tlm_cmd_report(int argc, char **argv)
{
    const char *trace_path = NULL, *dir = NULL, *md = NULL, *xlsx = NULL;
    const char *compat = NULL;
    int quiet = 0, bleed_tol = 0, force = 0;
    tlm_report_opts ro;
    tlm_report_opts_init(&ro);
    ro.threads = cpus_available() >= 2 ? 2 : 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double d;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            report_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--output_csvs_dir")) {
            if (!need(i, argc, argv))
                return 2;
            dir = argv[++i];
        } else if (!strcmp(a, "--output_xlsx_path")) {
            if (!need(i, argc, argv))
                return 2;
            xlsx = argv[++i];
        } else if (!strcmp(a, "--output_md")) {
            if (!need(i, argc, argv))
                return 2;
            md = argv[++i];
        } else if (!strcmp(a, "--gpu_arch")) {
            if (!need(i, argc, argv))
                return 2;
            ro.gpu_arch = argv[++i];
        } else if (!strcmp(a, "--gpu_arch_json_path")) {
            if (!need(i, argc, argv))
                return 2;
            ro.gpu_arch_json_path = argv[++i];
        } else if (!strcmp(a, "--tracelens_compat")) {
            if (!need(i, argc, argv))
                return 2;
            compat = argv[++i];
        } else if (!strcmp(a, "--bleed_tolerance")) {
            bleed_tol = 1;
        } else if (!strcmp(a, "--include_unlinked_kernels")) {
            ro.include_unlinked_kernels = 1;
        } else if (!strcmp(a, "--disable_kernel_summary")) {
            ro.kernel_summary = 0;
        } else if (!strcmp(a, "--disable_short_kernel_study")) {
            ro.short_kernel_study = 0;
        } else if (!strcmp(a, "--disable_coll_analysis")) {
            ro.coll_analysis = 0;
        } else if (!strcmp(a, "--threads")) {
            if (!need(i, argc, argv))
                return 2;
            if (!parse_double(argv[++i], &d) || (d != 1 && d != 2)) {
                fprintf(stderr, "tlmpi report: --threads takes 1 or 2 (got "
                        "%s)\n", argv[i]);
                return 2;
            }
            ro.threads = (int)d;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--force")) {
            force = 1;
        } else if (!strcmp(a, "--micro_idle_thresh_us") ||
                   !strcmp(a, "--short_kernel_threshold_us") ||
                   !strcmp(a, "--short_kernel_histogram_bins") ||
                   !strcmp(a, "--topk_short_kernels")) {
            if (!need(i, argc, argv))
                return 2;
            if (!parse_double(argv[++i], &d) || d < 0) {
                fprintf(stderr, "tlmpi report: bad value for %s: %s\n", a,
                        argv[i]);
                return 2;
            }
            if (!strcmp(a, "--micro_idle_thresh_us"))
                ro.micro_idle_thresh_us = d;
            else if (!strcmp(a, "--short_kernel_threshold_us"))
                ro.short_kernel_threshold_us = d;
            else if (!strcmp(a, "--short_kernel_histogram_bins"))
                ro.short_kernel_bins = d >= 1 ? (int)d : 1;
            else
                ro.topk_short_kernels = (long)d;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tlmpi report: unknown option %s\n", a);
            report_usage(stderr);
            return 2;
        } else if (!trace_path) {
            trace_path = a;
        } else {
            fprintf(stderr, "tlmpi report: one trace only (got %s)\n", a);
            return 2;
        }
    }
    if (!trace_path || (!dir && !xlsx)) {
        report_usage(stderr);
        return 2;
    }
    tlm_error err;
    tlm_error_clear(&err);
    if (tlm_compat_parse(compat, &ro.compat, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi report: %s\n", err.msg);
        return 2;
    }
    char mdpath[4096];
    if (!md && dir) {
        snprintf(mdpath, sizeof mdpath, "%s/report.md", dir);
        md = mdpath;
    }
    tlm_outset set;
    if (start_outputs(&set, force, trace_path, dir, md, xlsx) != 0)
        return 1;
    double t0 = now_s();
    tlm_trace *tr = NULL;
    tlm_tree *tree = NULL;
    tlm_tree_stream *ts = NULL;
    tlm_report *rep = NULL;
    char msg[1024];
    int rc = 1;
    /* the tree's per-event pass runs on each event as it is read */
    tlm_tree_opts to;
    tlm_tree_opts_init(&to);
    to.bleed_tolerance = bleed_tol;
    to.corr_fallback = !(ro.compat & TLM_COMPAT_NO_CORR_FALLBACK);
    to.threads = ro.threads;
    if (tlm_tree_stream_new(&to, &ts) != TLM_OK) {
        tlm_error_set(&err, TLM_ENOMEM, trace_path, -1,
                      "out of memory before reading");
        goto fail;
    }
    tlm_read_opts rdo;
    tlm_read_opts_init(&rdo);
    rdo.on_event = tlm_tree_stream_event;
    rdo.on_move = tlm_tree_stream_move;
    rdo.on_event_ud = ts;
    if (tlm_trace_read_file(trace_path, &rdo, &tr, &err) != TLM_OK)
        goto fail;
    double t1 = now_s();
#ifdef __GLIBC__
    /* The tree and the tables allocate and free many large temporary
     * arrays; served by mmap, each one is fresh memory that costs a page
     * fault per 4 KiB when touched.  From here on serve them from the
     * heap (the trace's own arrays are already allocated, so its growth
     * during the read is unaffected). */
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's maximum */
#endif
    if (tlm_tree_build_stream(tr, ts, &tree, &err) != TLM_OK)
        goto fail;
    double t2 = now_s();
#ifdef __GLIBC__
    /* and keep what the tables free for their next allocations (after
     * the tree: trimming its temporaries keeps the peak lower) */
    (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    ro.trace_label = trace_path;
    if (tlm_report_build(tree, &ro, &rep, &err) != TLM_OK)
        goto fail;
    double t3 = now_s();
    if (tlm_report_stage(rep, &set, dir, md, &err) != TLM_OK ||
        (xlsx && tlm_report_stage_xlsx(rep, &set, xlsx, &err) != TLM_OK) ||
        tlm_outset_commit(&set, &err) != TLM_OK)
        goto fail;
    double t4 = now_s();
    if (!quiet) {
        const tlm_tree_stats *s = tlm_tree_stats_get(tree);
        fprintf(stderr,
                "tlmpi report: %s: %zu tables in %s%s%s (read %.3f s, tree "
                "%.3f s, tables %.3f s, write %.3f s)\n",
                trace_path, tlm_report_table_count(rep), dir ? dir : xlsx,
                dir && xlsx ? " and " : "", dir && xlsx ? xlsx : "",
                t1 - t0,
                t2 - t1, t3 - t2, t4 - t3);
        fprintf(stderr,
                "  events %llu, GPU ops %llu (linked %llu), cpu roots %llu; "
                "warnings: GPU ops without launch %llu, bleed-dropped %llu, "
                "flow targets not GPU %llu, "
                "half flows %llu, duplicate links %llu, without valid "
                "ts/dur %llu\n",
                (unsigned long long)s->n_events,
                (unsigned long long)s->n_gpu,
                (unsigned long long)s->n_gpu_linked,
                (unsigned long long)s->n_cpu_roots,
                (unsigned long long)s->n_gpu_unlinked,
                (unsigned long long)s->n_bleed_drop,
                (unsigned long long)s->n_flow_bad_target,
                (unsigned long long)s->n_flow_half,
                (unsigned long long)s->n_gpu_dup_link,
                (unsigned long long)s->n_no_time);
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "tlmpi report: error: %s\n",
            tlm_error_format(&err, msg, sizeof msg));
done:
    tlm_mpi_signals_untrack(&set);
    tlm_outset_free(&set);
    tlm_report_free(rep);
    tlm_tree_free(tree);
    tlm_tree_stream_free(ts);
    tlm_trace_free(tr);
    return rc;
}
