/*
 * cmd_report.c - `tlmpi report TRACE --output_csvs_dir DIR ...`: the
 * single-trace performance report (TraceLens's
 * TraceLens_generate_perf_report_pytorch), without MPI.  Reads the trace,
 * builds the call tree and every table, writes one CSV per sheet with
 * TraceLens's names and columns, and report.md (docs/report.md), and/or
 * the same tables as one Excel workbook (--output_xlsx_path).
 */
#include "cli.h"
#include "report_opts.h"
#include "sigclean.h"

#include "tlmpi/tlm_perf.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "find.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        "  --platform NAME              findings: hardware peaks of a bundled "
        "GPU\n"
        "                               (its max-achievable -MAF entry when "
        "there is\n"
        "                               one); default: the report's GPU\n"
        "  --findings_<name> VALUE      findings thresholds (docs/findings.md;"
        "\n"
        "                               each printed in report.md's "
        "appendix)\n"
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

static int need(int i, int argc, char **argv)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "tlmpi report: %s needs a value\n", argv[i]);
        return 0;
    }
    return 1;
}

/* The findings (src/find): their section of report.md and, unless
 * TraceLens's columns only are asked for, findings.csv staged in set. */
static tlm_status add_findings(tlm_report *rep, const tlm_find_opts *fo,
                               tlm_outset *set, const char *dir, int csv,
                               tlm_error *err)
{
    tlm_findings *f = NULL;
    tlm_status st = tlm_find_report(rep, fo, &f, err);
    if (st != TLM_OK)
        return st;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_findings_md(f, &b, 0);
    st = b.oom ? TLM_ENOMEM
               : tlm_report_set_findings_md(rep, b.p ? b.p : "", b.len);
    tlm_sbuf_free(&b);
    tlm_tab *t = NULL;
    if (st == TLM_OK && csv) {
        t = tlm_findings_table(f);
        st = t ? TLM_OK : TLM_ENOMEM;
    }
    tlm_findings_free(f);
    if (st == TLM_ENOMEM)
        tlm_error_set(err, st, NULL, -1, "findings: out of memory");
    if (st == TLM_OK && t) {
        char path[4200];
        const char *tmp = NULL;
        snprintf(path, sizeof path, "%s/findings.csv", dir);
        st = tlm_outset_stage(set, path, &tmp, err);
        if (st == TLM_OK)
            st = tlm_tab_write_csv(t, tmp, err);
    }
    tlm_tab_free(t);
    return st;
}

int tlm_cmd_report(int argc, char **argv)
{
    const char *trace_path = NULL, *dir = NULL, *md = NULL, *xlsx = NULL;
    int quiet = 0, force = 0;
    tlm_cli_ropts co;
    tlm_cli_ropts_init(&co);
    tlm_find_opts fo;
    tlm_find_opts_init(&fo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = tlm_cli_ropt("report", argc, argv, &i, &co);
        if (r == 0)
            r = tlm_cli_find_opt("report", argc, argv, &i, &fo);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
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
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--force")) {
            force = 1;
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
    if (tlm_cli_ropts_finish(&co, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi report: %s\n", err.msg);
        return 2;
    }
    if (fo.platform) { /* an unknown name fails before any work */
        tlm_find_hw hw;
        if (tlm_find_hw_resolve(&fo, NULL, NULL, &hw, &err) != TLM_OK) {
            fprintf(stderr, "tlmpi report: %s\n", err.msg);
            return 2;
        }
    }
    char mdpath[4096];
    if (!md && dir) {
        snprintf(mdpath, sizeof mdpath, "%s/report.md", dir);
        md = mdpath;
    }
    tlm_outset set;
    if (start_outputs(&set, force, trace_path, dir, md, xlsx) != 0)
        return 1;
    double t0 = tlm_cli_now();
    tlm_cli_built b = {0};
    char msg[1024];
    int rc = 1;
    if (tlm_cli_build_report(trace_path, &co, &b, &err) != TLM_OK)
        goto fail;
    tlm_report *rep = b.rep;
    double t1 = b.t_read, t2 = b.t_tree, t3 = b.t_tables;
    if (add_findings(rep, &fo, &set, dir, dir &&
                     !(co.ro.compat & TLM_COMPAT_COLUMNS), &err) != TLM_OK)
        goto fail;
    if (tlm_report_stage(rep, &set, dir, md, &err) != TLM_OK ||
        (xlsx && tlm_report_stage_xlsx(rep, &set, xlsx, &err) != TLM_OK) ||
        tlm_outset_commit(&set, &err) != TLM_OK)
        goto fail;
    double t4 = tlm_cli_now();
    if (!quiet) {
        const tlm_tree_stats *s = tlm_tree_stats_get(b.tree);
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
    tlm_cli_built_free(&b);
    return rc;
}
