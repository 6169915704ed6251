/*
 * report_tl.c - TraceLens's perf-report command line in `tlmpi report`
 * (perfreport.md §8; docs/cli.md "TraceLens's command line").  Each
 * option either maps onto tlmpi's report options with TraceLens's meaning
 * or is refused with one sentence: why, and what to do instead.
 */
#include "report_tl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_perf.h"

/* Options refused, and why. */
static const struct {
    const char *name;
    int has_value;
    const char *why;
} refused[] = {
    {"--extension_file", 1,
     "TraceLens extensions are Python code, which tlmpi cannot run; run "
     "TraceLens itself for an extension, or ask for the extension's perf "
     "model or sheet in tlmpi"},
    {"--python_path", 1,
     "it names the Python interpreter of Origami's GEMM/SDPA simulation, "
     "which tlmpi does not run; run TraceLens itself for simulated times"},
    {"--enable-origami", 0,
     "Origami's simulated GEMM/SDPA times come from a Python package that "
     "tlmpi does not run; run TraceLens itself for them"},
};

/* TraceLens parses these and applies them nowhere (perfreport.md §8). */
static const char *const unused[] = {"--topk_ops", "--topk_roofline_ops"};

/* An option TraceLens applies nowhere: its count checked, a note. */
static int count_value(const char *a, const char *v)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 0) {
        fprintf(stderr, "tlmpi report: %s takes a count (got %s)\n", a, v);
        return -1;
    }
    fprintf(stderr,
            "tlmpi report: note: %s %ld has no effect: TraceLens parses it "
            "but applies it to no sheet, and tlmpi does the same\n",
            a, n);
    return 1;
}

/* A TraceLens option tlmpi refuses: -1 after the reason, else 0. */
static int refuse(int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        if (strcmp(a, refused[k].name) != 0)
            continue;
        if (refused[k].has_value && *i + 1 < argc)
            fprintf(stderr, "tlmpi report: %s %s: not supported: %s.\n", a,
                    argv[*i + 1], refused[k].why);
        else
            fprintf(stderr, "tlmpi report: %s: not supported: %s.\n", a,
                    refused[k].why);
        return -1;
    }
    return 0;
}

int tlm_cli_tl_opt(int argc, char **argv, int *i, tlm_cli_tl *t,
                   tlm_cli_ropts *co)
{
    const char *a = argv[*i];
    int r = refuse(argc, argv, i);
    if (r)
        return r;
    if (!strcmp(a, "--enable_kernel_summary")) {
        co->ro.kernel_summary = 1;
        return 1;
    }
    if (!strcmp(a, "--short_kernel_study")) {
        co->ro.short_kernel_study = 1;
        return 1;
    }
    if (!strcmp(a, "--group_by_num_kernels")) {
        co->ro.group_by_num_kernels = 1;
        return 1;
    }
    if (!strcmp(a, "--include_first_occurrence_time")) {
        co->ro.first_occurrence_time = 1;
        return 1;
    }
    if (!strcmp(a, "--detect_recompute")) {
        /* python functions join the tree too */
        co->ro.detect_recompute = 1;
        return 1;
    }
    if (!strcmp(a, "--include_overlap_info")) {
        /* the *_kl_overlap sheets */
        co->ro.include_overlap_info = 1;
        return 1;
    }
    if (!strcmp(a, "--enable_pseudo_ops")) {
        /* pseudo ops between MoE ops and their kernels, after the tree
         * is built (tlm_cli_build_tree) */
        co->pseudo_ops = 1;
        return 1;
    }
    if (!strcmp(a, "--include_call_stack")) {
        /* python functions join the tree (tlm_cli_build_report) */
        co->ro.include_call_stack = 1;
        return 1;
    }
    const char **dst = !strcmp(a, "--profile_json_path")  ? &t->profile_json_path
                       : !strcmp(a, "--output_xlsx_path") ? &t->output_xlsx_path
                       : !strcmp(a, "--gpu_arch_platform") ? &t->platform
                       : !strcmp(a, "--comparison_json_path")
                           ? &t->comparison_json_path
                       : !strcmp(a, "--inductor_cache_dir")
                           ? &co->ro.inductor_cache_dir
                           : NULL;
    int is_unused = 0;
    for (size_t k = 0; k < sizeof unused / sizeof *unused; k++)
        is_unused |= !strcmp(a, unused[k]);
    if (!dst && !is_unused)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "tlmpi report: %s needs a value\n", a);
        return -1;
    }
    *i += 1;
    if (is_unused)
        return count_value(a, argv[*i]);
    *dst = argv[*i];
    return 1;
}

int tlm_cli_tl_finish(tlm_cli_tl *t, tlm_cli_ropts *co)
{
    if (t->comparison_json_path) /* the GPU op -> summary row map */
        co->ro.keep_gpu_rows = 1;
    if (!t->platform)
        return 0;
    if (co->ro.gpu_arch_json_path || co->ro.gpu_arch) {
        fprintf(stderr, "tlmpi report: --gpu_arch_platform and %s are "
                "mutually exclusive\n",
                co->ro.gpu_arch_json_path ? "--gpu_arch_json_path"
                                          : "--gpu_arch");
        return -1;
    }
    /* TraceLens's platform files hold max-achievable numbers: the -MAF
     * entry of the bundled table when there is one */
    snprintf(t->arch, sizeof t->arch, "%.40s-MAF", t->platform);
    if (!tlm_gpu_arch_lookup(t->arch))
        snprintf(t->arch, sizeof t->arch, "%.60s", t->platform);
    if (!tlm_gpu_arch_lookup(t->arch)) {
        char known[256];
        fprintf(stderr, "tlmpi report: --gpu_arch_platform %s: unknown "
                "platform (known: %s)\n",
                t->platform, tlm_gpu_arch_names(known, sizeof known));
        return -1;
    }
    co->ro.gpu_arch = t->arch;
    return 0;
}

int tlm_cli_tl_default_xlsx(const char *trace, char *out, size_t cap)
{
    size_t n = strlen(trace);
    if (n > 13 && !strcmp(trace + n - 13, ".xplane.pb.gz"))
        n -= 13; /* TraceLens's JAX report: <name>_perf_report.xlsx */
    else if (n > 10 && !strcmp(trace + n - 10, ".xplane.pb"))
        n -= 10;
    else if (n > 8 && !strcmp(trace + n - 8, ".json.gz"))
        n -= 8;
    else if (n > 5 && !strcmp(trace + n - 5, ".json"))
        n -= 5;
    int w = snprintf(out, cap, "%.*s_perf_report.xlsx", (int)n, trace);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}
