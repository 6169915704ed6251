/*
 * report_opts.c - the options that shape a single-trace report, shared by
 * `tlmpi report` and `tlmpi compare` (which builds the report of a trace
 * it is given with the same options), and building that report from a
 * trace file: read with the tree's per-event pass, tree, tables.
 */
#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_COUNT */
#include "report_opts.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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

void tlm_cli_ropts_init(tlm_cli_ropts *o)
{
    memset(o, 0, sizeof *o);
    tlm_report_opts_init(&o->ro);
    o->ro.threads = cpus_available() >= 2 ? 2 : 1;
}

/* A decimal number into *out: 1, else 0. */
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

/* Options with a value. */
static int value_opt(const char *cmd, const char *a, const char *v,
                     tlm_cli_ropts *o)
{
    double d;
    tlm_report_opts *ro = &o->ro;
    if (!strcmp(a, "--gpu_arch")) {
        ro->gpu_arch = v;
    } else if (!strcmp(a, "--gpu_arch_json_path")) {
        ro->gpu_arch_json_path = v;
    } else if (!strcmp(a, "--tracelens_compat")) {
        o->compat = v;
    } else if (!strcmp(a, "--threads")) {
        if (!parse_double(v, &d) || (d != 1 && d != 2)) {
            fprintf(stderr, "tlmpi %s: --threads takes 1 or 2 (got %s)\n",
                    cmd, v);
            return -1;
        }
        ro->threads = (int)d;
    } else {
        if (!parse_double(v, &d) || d < 0) {
            fprintf(stderr, "tlmpi %s: bad value for %s: %s\n", cmd, a, v);
            return -1;
        }
        if (!strcmp(a, "--micro_idle_thresh_us"))
            ro->micro_idle_thresh_us = d;
        else if (!strcmp(a, "--short_kernel_threshold_us"))
            ro->short_kernel_threshold_us = d;
        else if (!strcmp(a, "--short_kernel_histogram_bins"))
            ro->short_kernel_bins = d >= 1 ? (int)d : 1;
        else
            ro->topk_short_kernels = (long)d;
    }
    return 1;
}

int tlm_cli_ropt(const char *cmd, int argc, char **argv, int *i,
                 tlm_cli_ropts *o)
{
    static const char *const with_value[] = {
        "--gpu_arch", "--gpu_arch_json_path", "--tracelens_compat",
        "--threads", "--micro_idle_thresh_us", "--short_kernel_threshold_us",
        "--short_kernel_histogram_bins", "--topk_short_kernels"};
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) {
        if (strcmp(a, with_value[k]) != 0)
            continue;
        if (*i + 1 >= argc) {
            fprintf(stderr, "tlmpi %s: %s needs a value\n", cmd, a);
            return -1;
        }
        *i += 1;
        return value_opt(cmd, a, argv[*i], o);
    }
    if (!strcmp(a, "--bleed_tolerance"))
        o->bleed_tolerance = 1;
    else if (!strcmp(a, "--include_unlinked_kernels"))
        o->ro.include_unlinked_kernels = 1;
    else if (!strcmp(a, "--disable_kernel_summary"))
        o->ro.kernel_summary = 0;
    else if (!strcmp(a, "--disable_short_kernel_study"))
        o->ro.short_kernel_study = 0;
    else if (!strcmp(a, "--disable_coll_analysis"))
        o->ro.coll_analysis = 0;
    else
        return 0;
    return 1;
}

tlm_status tlm_cli_ropts_finish(tlm_cli_ropts *o, tlm_error *err)
{
    return tlm_compat_parse(o->compat, &o->ro.compat, err);
}

void tlm_cli_built_free(tlm_cli_built *b)
{
    tlm_report_free(b->rep);
    tlm_tree_free(b->tree);
    tlm_tree_stream_free(b->ts);
    tlm_trace_free(b->tr);
    memset(b, 0, sizeof *b);
}

tlm_status tlm_cli_build_tree(const char *path, const tlm_cli_ropts *o,
                              tlm_cli_built *b, tlm_error *err)
{
    memset(b, 0, sizeof *b);
    tlm_report_opts ro = o->ro;
    /* the tree's per-event pass runs on each event as it is read */
    tlm_tree_opts to;
    tlm_tree_opts_init(&to);
    to.bleed_tolerance = o->bleed_tolerance;
    to.corr_fallback = !(ro.compat & TLM_COMPAT_NO_CORR_FALLBACK);
    to.threads = ro.threads;
    /* --include_call_stack, --detect_recompute: TraceLens's
     * add_python_func */
    to.python_functions = ro.include_call_stack || ro.detect_recompute;
    if (tlm_tree_stream_new(&to, &b->ts) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "out of memory before reading");
    tlm_read_opts rdo;
    tlm_read_opts_init(&rdo);
    rdo.on_event = tlm_tree_stream_event;
    rdo.on_move = tlm_tree_stream_move;
    rdo.on_event_ud = b->ts;
    rdo.drop_args = TLM_ARGS_UNREAD; /* a smaller argument blob */
    /* 256 KiB steps (not 1 MiB): the reader's window and the inflate
     * thread's blocks are 1.75 MiB, not 7, at the end of the read (one of
     * the report's peaks), and no slower */
    rdo.chunk_size = 256 << 10;
    /* a large plain file: a second parser beside this one */
    rdo.parse_helper = ro.threads >= 2;
#ifdef __GLIBC__
    /* Every block of 256 KiB or more its own mapping, at a fixed
     * threshold, for the whole report: glibc's dynamic one rises as the
     * reader's growing arrays are freed and moved, after which the next
     * ones land in the heap and leave holes there that stay resident.
     * During the read: 0.4-0.7 MB less at the peak of a 190 MB trace's
     * report.  For the tree and the tables too (their large temporary
     * arrays): 0.5 MB less at the tables' peak, for about 1,300 more page
     * faults and no measurable wall (the threshold was raised to glibc's
     * maximum after the read before). */
    (void)mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
    tlm_status st = tlm_trace_read_file(path, &rdo, &b->tr, err);
    b->t_read = tlm_cli_now();
    if (st == TLM_OK)
        st = tlm_tree_build_stream(b->tr, b->ts, &b->tree, err);
    if (st == TLM_OK && o->pseudo_ops) /* before anything reads the tree */
        st = tlm_tree_pseudo_ops(b->tree, b->tr, NULL, err);
    b->t_tree = tlm_cli_now();
    if (st != TLM_OK)
        tlm_cli_built_free(b);
    return st;
}

tlm_status tlm_cli_build_report(const char *path, const tlm_cli_ropts *o,
                                tlm_cli_built *b, tlm_error *err)
{
    tlm_report_opts ro = o->ro;
    tlm_status st = tlm_cli_build_tree(path, o, b, err);
#ifdef __GLIBC__
    /* and keep up to 1 MiB that the tables free at the top of the heap
     * for their next allocations (the default, 128 KiB, trims too often;
     * 1 GiB kept 2 MB more at the peak for no measurable cpu) */
    (void)mallopt(M_TRIM_THRESHOLD, 1 << 20);
#endif
    ro.trace_label = path;
    if (st == TLM_OK)
        st = tlm_report_build(b->tree, &ro, &b->rep, err);
    b->t_tables = tlm_cli_now();
    if (st != TLM_OK)
        tlm_cli_built_free(b);
    return st;
}

double tlm_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int tlm_cli_find_opt(const char *cmd, int argc, char **argv, int *i,
                     tlm_find_opts *fo)
{
    const char *a = argv[*i];
    if (strcmp(a, "--platform") != 0 && strncmp(a, "--findings_", 11) != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "tlmpi %s: %s needs a value\n", cmd, a);
        return -1;
    }
    tlm_error fe;
    tlm_error_clear(&fe);
    *i += 1;
    if (tlm_find_opt_parse(a, argv[*i], fo, &fe) != TLM_FIND_OPT_OK) {
        fprintf(stderr, "tlmpi %s: %s\n", cmd, fe.msg);
        return -1;
    }
    return 1;
}
