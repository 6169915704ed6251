/*
 * cmd_report.c - `tlmpi report TRACE --output_csvs_dir DIR ...`: the
 * single-trace performance report (TraceLens's
 * TraceLens_generate_perf_report_pytorch), without MPI.  Reads the trace,
 * builds the call tree and every table, writes one CSV per sheet with
 * TraceLens's names and columns, and report.md (docs/report.md), and/or
 * the same tables as one Excel workbook (--output_xlsx_path).
 */
#include "cli.h"
#include "hta_cli.h"
#include "report_hta_nogpu.h"
#include "report_opts.h"
#include "report_rp.h"
#include "report_tl.h"
#include "sigclean.h"
#include "slip.h"
#include "xplane_cli.h"

#include "tlmpi/tlm_perf.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_format.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "coverage.h"
#include "find.h"
#include "xlsx_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The usage text of tlmpi report. */
static void report_usage(FILE *f)
{
    fprintf(f,
        "usage: tlmpi report TRACE [--output_csvs_dir DIR] "
        "[--output_xlsx_path F] [options]\n\n"
        "Single-trace performance report (TraceLens's perf report): one CSV\n"
        "per sheet in DIR plus DIR/report.md, and/or one workbook F.  With\n"
        "neither, the workbook <trace>_perf_report.xlsx beside the trace\n"
        "(TraceLens's default).  A rocprofv3 JSON (told by content) gets\n"
        "TraceLens's rocprof report: gpu_timeline, kernel_summary,\n"
        "kernel_summary_by_category, kernel_details, short_kernels_summary,\n"
        "short_kernel_histogram (docs/formats.md).  An XPlane (JAX\n"
        "*.xplane.pb, by content; a folder in JAX's plugins/profile/<run>/\n"
        "layout too) gets the five sheets of TraceLens's JAX report\n"
        "(docs/formats.md, \"XPlane\").\n\n"
        "options:\n"
        "  --output_csvs_dir DIR        output folder (created if missing)\n"
        "  --output_xlsx_path F         the sheets as one .xlsx workbook\n"
        "  --output_md FILE             Markdown report path "
        "(default DIR/report.md;\n"
        "                               without DIR: none)\n"
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
        "\nTraceLens's command line (TraceLens_generate_perf_report_pytorch;"
        "\n"
        "tlmpi-tracelens runs this with TraceLens's defaults):\n"
        "  --profile_json_path TRACE    the trace\n"
        "  --enable_kernel_summary      kernel_summary sheet (on by default "
        "here)\n"
        "  --short_kernel_study         short-kernel sheets (on by default "
        "here)\n"
        "  --gpu_arch_platform NAME     roofline against TraceLens's "
        "platform file\n"
        "                               (MI300X, MI325X: their -MAF entries),"
        " else\n"
        "                               the bundled GPU NAME\n"
        "  --topk_ops N, --topk_roofline_ops N  accepted; no effect, as in "
        "TraceLens\n"
        "  --group_by_num_kernels       ops_unique_args: num_kernels as a "
        "group key\n"
        "  --include_first_occurrence_time  ops_unique_args: "
        "first_occurrence_time\n"
        "  --include_call_stack         python functions in the tree; "
        "entry_point,\n"
        "                               call_stack_full in "
        "unified_perf_summary\n"
        "  --detect_recompute           is_recompute split of gpu_timeline, "
        "the ops\n"
        "                               tables, unified_perf_summary and the "
        "perf-model\n"
        "                               sheets\n"
        "  --comparison_json_path T2    TraceDiff against trace T2: a "
        "diff_stats sheet\n"
        "                               and speedup/delta/LCA columns in\n"
        "                               unified_perf_summary\n"
        "  --inductor_cache_dir D       Triton ops without usable arguments:"
        " FLOPs\n"
        "                               and bytes from Inductor's wrapper "
        "files in D\n"
        "                               (read as text, never run)\n"
        "  --include_overlap_info       *_kl_overlap sheets: ops_unique_args,"
        "\n"
        "                               unified_perf_summary and perf "
        "sheets regrouped\n"
        "                               by the names of the kernels that "
        "overlapped\n"
        "  --hta                        also HTA's tables in DIR/hta/ and a "
        "report.md\n"
        "                               section (docs/hta.md); with:\n"
        "  --hta_time us|ns             HTA's microsecond rounding (us) or "
        "full ns\n"
        "  --hta_consecutive_kernel_delay US  kernel_wait bound (30)\n"
        "  --hta_runtime_cutoff US      launch summary bound (50)\n"
        "  --hta_launch_delay_cutoff US launch summary bound (100)\n"
        "  --hta_include_last_step      keep the last ProfilerStep\n"
        "  --hta_kernel_sequences OP    frequent_cuda_kernel_sequences under "
        "OP\n"
        "  --hta_min_pattern_len N      shortest kernel sequence (3)\n"
        "  --hta_critical_path A[:I[-J]] critical path window "
        "(ProfilerStep:0)\n"
        "  --hta_rank R                 rank of the sequences / critical "
        "path\n"
        "  --enable_pseudo_ops          pseudo ops between MoE ops and "
        "their kernels\n"
        "                               (AITER fused, Triton unfused, "
        "GPTQ/AWQ,\n"
        "                               flydsl MoE)\n"
        "  refused, with the reason: --extension_file, --python_path,\n"
        "    --enable-origami (Python code)\n"
        "\nbundled GPUs:");
    for (size_t i = 0; i < tlm_gpu_arch_count(); i++)
        fprintf(f, " %s", tlm_gpu_arch_at(i)->name);
    fprintf(f, "\n");
}

/* Before any work: the output rules on the files every run writes (the
 * folders are created and probed; the trace is never an output), and the
 * set tracked by the signal handlers.  0, or 1 with a message naming the
 * option and the file. */
static int start_outputs(tlm_outset *set, int force, const char *trace_path,
                         const char *trace2, const char *dir, const char *md,
                         const char *xlsx)
{
    tlm_error err;
    char gt[4200];
    const char *what = "--output_xlsx_path", *file = xlsx;
    tlm_status st = tlm_outset_init(set, force, &err);
    if (st == TLM_OK)
        st = tlm_outset_add_input(set, trace_path, &err);
    if (st == TLM_OK && trace2) /* --comparison_json_path: never written */
        st = tlm_outset_add_input(set, trace2, &err);
    if (st == TLM_OK && xlsx)
        st = tlm_outset_check(set, xlsx, &err);
    if (st == TLM_OK && dir) {
        what = "--output_csvs_dir";
        file = dir;
        snprintf(gt, sizeof gt, "%s/gpu_timeline.csv", dir);
        st = tlm_outset_check(set, gt, &err);
    }
    if (st == TLM_OK && md) {
        what = "--output_md";
        file = md;
        st = tlm_outset_check(set, md, &err);
    }
    if (st != TLM_OK) {
        char m[1200];
        fprintf(stderr, "tlmpi report: error: %s %s: %s\n", what,
                file ? file : "", tlm_error_format(&err, m, sizeof m));
        tlm_outset_free(set);
        return 1;
    }
    tlm_cli_signals_install();
    tlm_cli_signals_track(set);
    return 0;
}

/* --hta: DIR/hta/<table>.csv checked before any work, as the other
 * outputs.  0, or 1 after a message. */
static int check_hta_outputs(tlm_outset *set, const char *dir)
{
    const char *name, *doc;
    const tlm_hta_col *cols;
    size_t nc;
    tlm_error err;
    tlm_error_clear(&err);
    for (size_t i = 0; tlm_hta_table_def(i, &name, &doc, &cols, &nc); i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/hta/%s.csv", dir, name);
        if (tlm_outset_check(set, path, &err) != TLM_OK) {
            char m[1024];
            fprintf(stderr, "tlmpi report: error: --hta: %s\n",
                    tlm_error_format(&err, m, sizeof m));
            return 1;
        }
    }
    return 0;
}

/* Whether option i has its value; says so when not. */
static int need(int i, int argc, char **argv)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "tlmpi report: %s needs a value\n", argv[i]);
        return 0;
    }
    return 1;
}

/* The findings (src/find): their section of report.md and, unless
 * TraceLens's columns only are asked for, findings.csv's table in *tab
 * (staged by the caller in the CSV folder; the workbook's last sheet,
 * after TraceLens's). */
static tlm_status add_findings(tlm_report *rep, const tlm_find_opts *fo,
                               int csv, const char *extra_md, tlm_tab **tab,
                               tlm_error *err)
{
    *tab = NULL;
    tlm_findings *f = NULL;
    tlm_status st = tlm_find_report(rep, fo, &f, err);
    if (st != TLM_OK)
        return st;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_findings_md(f, &b, 0);
    if (extra_md) /* the HTA section (--hta) follows the findings */
        tlm_sbuf_puts(&b, extra_md);
    st = b.oom ? TLM_ENOMEM
               : tlm_report_set_findings_md(rep, b.p ? b.p : "", b.len);
    tlm_sbuf_free(&b);
    if (st == TLM_OK && csv) {
        *tab = tlm_findings_table(f);
        st = *tab ? TLM_OK : TLM_ENOMEM;
    }
    tlm_findings_free(f);
    if (st == TLM_ENOMEM)
        tlm_error_set(err, st, NULL, -1, "findings: out of memory");
    return st;
}

/* findings.csv staged in the CSV folder. */
static tlm_status stage_findings_csv(const tlm_tab *t, tlm_outset *set,
                                     const char *dir, tlm_error *err)
{
    char path[4200];
    const char *tmp = NULL;
    snprintf(path, sizeof path, "%s/findings.csv", dir);
    tlm_status st = tlm_outset_stage(set, path, &tmp, err);
    if (st == TLM_OK)
        st = tlm_tab_write_csv(t, tmp, err);
    return st;
}

/* The command line of `tlmpi report`, its own and TraceLens's. */
typedef struct rargs {
    const char *trace, *dir, *md, *xlsx;
    int quiet, force, xlsx_default;
    tlm_cli_ropts co;
    tlm_find_opts fo;
    tlm_cli_tl tl;
    tlm_cli_hta hta;
    char xbuf[4096], mbuf[4096];
} rargs;

/* 0 ok, 1 --help printed, 2 usage error (message printed). */
static int parse_args(int argc, char **argv, rargs *a)
{
    tlm_cli_ropts_init(&a->co);
    tlm_find_opts_init(&a->fo);
    tlm_cli_hta_init(&a->hta);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        int r = tlm_cli_ropt("report", argc, argv, &i, &a->co);
        if (r == 0)
            r = tlm_cli_find_opt("report", argc, argv, &i, &a->fo);
        if (r == 0)
            r = tlm_cli_hta_opt("report", argc, argv, &i, &a->hta);
        if (r == 0)
            r = tlm_cli_tl_opt(argc, argv, &i, &a->tl, &a->co);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            report_usage(stdout);
            return 1;
        } else if (!strcmp(o, "--output_csvs_dir")) {
            if (!need(i, argc, argv))
                return 2;
            a->dir = argv[++i];
        } else if (!strcmp(o, "--output_md")) {
            if (!need(i, argc, argv))
                return 2;
            a->md = argv[++i];
        } else if (!strcmp(o, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(o, "--force")) {
            a->force = 1;
        } else if (o[0] == '-' && o[1]) {
            tlm_cmd_unknown_opt("report", o, report_usage);
            return 2;
        } else if (!a->trace) {
            a->trace = o;
        } else {
            fprintf(stderr, "tlmpi report: one trace only (got %s)\n", o);
            return 2;
        }
    }
    if (a->tl.profile_json_path) {
        if (a->trace && strcmp(a->trace, a->tl.profile_json_path) != 0) {
            fprintf(stderr, "tlmpi report: one trace only (got %s and "
                    "--profile_json_path %s)\n", a->trace,
                    a->tl.profile_json_path);
            return 2;
        }
        a->trace = a->tl.profile_json_path;
    }
    if (!a->trace) {
        report_usage(stderr);
        return 2;
    }
    if (tlm_cli_tl_finish(&a->tl, &a->co) != 0)
        return 2;
    if (tlm_cli_hta_check("report", &a->hta) != 0)
        return 2;
    if (a->hta.on && !a->dir) {
        fprintf(stderr, "tlmpi report: --hta writes DIR/hta/*.csv: it "
                "needs --output_csvs_dir DIR\n");
        return 2;
    }
    a->xlsx = a->tl.output_xlsx_path;
    return 0;
}

/* The output paths: TraceLens's workbook beside the trace when neither
 * output is named; report.md in the CSV folder, or where --output_md
 * says (without a CSV folder, none: TraceLens writes only the workbook).
 * 0, or 2 after a message. */
static int output_paths(rargs *a)
{
    if (!a->dir && !a->xlsx) {
        if (tlm_cli_tl_default_xlsx(a->trace, a->xbuf, sizeof a->xbuf)) {
            fprintf(stderr, "tlmpi report: output path too long\n");
            return 2;
        }
        a->xlsx = a->xbuf;
        a->xlsx_default = 1;
    }
    if (!a->md && a->dir) {
        snprintf(a->mbuf, sizeof a->mbuf, "%s/report.md", a->dir);
        a->md = a->mbuf;
    }
    return 0;
}

/* Bad options and inputs named before any work: the findings platform,
 * the arch JSON (missing, unreadable or not an arch file).  0, or the
 * exit status after a message. */
static int check_inputs(rargs *a)
{
    tlm_error err;
    tlm_error_clear(&err);
    if (tlm_cli_ropts_finish(&a->co, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi report: %s\n", err.msg);
        return 2;
    }
    if (a->fo.platform) {
        tlm_find_hw hw;
        if (tlm_find_hw_resolve(&a->fo, NULL, NULL, &hw, &err) != TLM_OK) {
            fprintf(stderr, "tlmpi report: %s\n", err.msg);
            return 2;
        }
    }
    if (a->co.ro.gpu_arch_json_path) {
        tlm_gpu_arch arch;
        char m[1200];
        if (tlm_gpu_arch_load_json(a->co.ro.gpu_arch_json_path, &arch,
                                   &err) != TLM_OK) {
            fprintf(stderr, "tlmpi report: error: --gpu_arch_json_path "
                    "%s: %s\n", a->co.ro.gpu_arch_json_path,
                    tlm_error_format(&err, m, sizeof m));
            return 1;
        }
    }
    return 0;
}

/* At most 60 bytes of a name from the trace, control characters as '?'
 * (a terminal must not receive escape sequences from a trace). */
static const char *safe_name(const char *s, char *buf, size_t cap)
{
    size_t k = 0;
    for (; s[k] && k < 60 && k + 1 < cap; k++)
        buf[k] = (unsigned char)s[k] < 0x20 || s[k] == 0x7f ? '?' : s[k];
    buf[k] = '\0';
    return buf;
}

/* The ops without a perf model on stderr (coverage.c). */
static void coverage_line(const tlm_report *rep)
{
    tlm_coverage c;
    if (tlm_report_coverage(rep, &c) != TLM_OK || !c.available) {
        tlm_coverage_free(&c);
        return;
    }
    double all = c.all_us > 0 ? c.all_us : 1.0;
    fprintf(stderr,
            "  perf-model coverage: %zu op names without a model (%.0f of "
            "%.0f ops, %.3f ms = %.1f%% of op kernel time)%s",
            c.n, c.none_count, c.all_count, c.none_us / 1e3,
            c.none_us / all * 100.0, c.n ? "; top:" : "\n");
    char nb[64];
    for (size_t i = 0; i < c.n && i < 5; i++)
        fprintf(stderr, "%s %s (%.0f, %.3f ms)", i ? "," : "",
                safe_name(c.v[i].name, nb, sizeof nb), c.v[i].count,
                c.v[i].time_us / 1e3);
    if (c.n)
        fprintf(stderr, "%s\n", c.n > 5 ? ", ..." : "");
    if (c.nofig_count > 0)
        fprintf(stderr, "  perf-model coverage: %.0f ops with a model but "
                "no figures (dims out of range: negative or overflowing)\n",
                c.nofig_count);
    tlm_coverage_free(&c);
}

/* The summary lines on stderr. */
static void summary(const rargs *a, const tlm_cli_built *b, double t0,
                    double t4)
{
    const tlm_report *rep = b->rep;
    const tlm_tree_stats *s = tlm_tree_stats_get(b->tree);
    fprintf(stderr, "tlmpi report: %s: %zu tables in %s%s%s%s (read %.3f s, "
            "tree %.3f s, tables %.3f s, write %.3f s)%s%s\n",
            tlm_esc(a->trace), tlm_report_table_count(rep),
            a->dir ? tlm_esc(a->dir) : "",
            a->dir && a->xlsx ? " and " : "", a->xlsx ? tlm_esc(a->xlsx) : "",
            a->xlsx_default ? " (beside the trace: no --output_csvs_dir "
                              "or --output_xlsx_path)" : "",
            b->t_read - t0, b->t_tree - b->t_read, b->t_tables - b->t_tree,
            t4 - b->t_tables, a->md ? "; " : "", a->md ? a->md : "");
    if (a->hta.on) /* the HTA tables are computed at the start of write */
        fprintf(stderr, "  HTA tables %.3f s (in write)\n",
                b->t_hta - b->t_tables);
    fprintf(stderr,
            "  events %llu, GPU ops %llu (linked %llu), cpu roots %llu; "
            "warnings: GPU ops without launch %llu, bleed-dropped %llu, "
            "flow targets not GPU %llu, "
            "half flows %llu, duplicate links %llu, without valid "
            "ts/dur %llu\n",
            (unsigned long long)s->n_events, (unsigned long long)s->n_gpu,
            (unsigned long long)s->n_gpu_linked,
            (unsigned long long)s->n_cpu_roots,
            (unsigned long long)s->n_gpu_unlinked,
            (unsigned long long)s->n_bleed_drop,
            (unsigned long long)s->n_flow_bad_target,
            (unsigned long long)s->n_flow_half,
            (unsigned long long)s->n_gpu_dup_link,
            (unsigned long long)s->n_no_time);
    if (s->n_pseudo_ops || s->n_pseudo_skipped)
        fprintf(stderr, "  pseudo ops %llu (matched kernels skipped: no "
                "launch or parent op %llu)\n",
                (unsigned long long)s->n_pseudo_ops,
                (unsigned long long)s->n_pseudo_skipped);
    coverage_line(rep);
}

/* Everything staged in set: the workbook (TraceLens's sheets; written
 * in a thread of its own with --threads 2, beside the findings, the CSVs
 * and report.md, as it is mostly deflate), findings.csv, the CSVs and
 * report.md. */
static tlm_status stage_all(rargs *a, tlm_cli_built *b, tlm_outset *set,
                            tlm_error *err)
{
    tlm_report *rep = b->rep;
    tlm_xlsx_job *job = NULL;
    tlm_tab *ft = NULL;
    tlm_hta_result *hta = NULL;
    char *hta_md = NULL;
    tlm_status st = TLM_OK;
    if (a->hta.on) { /* HTA's tables: DIR/hta/ and a report.md section */
        st = tlm_cli_hta_single(b->tr, &a->hta, &hta, err);
        if (st == TLM_OK && tlm_hta_markdown(hta, &hta_md) != TLM_OK)
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        if (st == TLM_OK)
            st = tlm_hta_stage_csvs(hta, set, a->dir, err);
        b->t_hta = tlm_cli_now();
    }
    if (st == TLM_OK)
        st = add_findings(rep, &a->fo,
                          !(a->co.ro.compat & TLM_COMPAT_COLUMNS), hta_md,
                          &ft, err);
    if (st == TLM_OK && a->xlsx) /* findings last, as in the CSV folder */
        st = tlm_report_xlsx_start_with(rep, ft, set, a->xlsx,
                                        a->co.ro.threads >= 2, &job, err);
    if (st == TLM_OK && ft && a->dir)
        st = stage_findings_csv(ft, set, a->dir, err);
    if (st == TLM_OK)
        st = tlm_report_stage(rep, set, a->dir, a->md, err);
    tlm_status sx = tlm_report_xlsx_finish(job, st == TLM_OK,
                                           st == TLM_OK ? err : NULL);
    if (st == TLM_OK)
        st = sx;
    tlm_tab_free(ft);
    free(hta_md);
    tlm_hta_result_free(hta);
    return st;
}

/* A rocprofv3 JSON (found by content): TraceLens's rocprof sheets.  The
 * PyTorch-only options are refused rather than ignored. */
static int report_rocprof(rargs *a, tlm_outset *set)
{
    if (a->tl.comparison_json_path || a->co.ro.inductor_cache_dir) {
        fprintf(stderr, "tlmpi report: %s is a rocprofv3 JSON: "
                "--comparison_json_path and --inductor_cache_dir need a "
                "PyTorch profiler trace\n", tlm_esc(a->trace));
        return 2;
    }
    tlm_rp_cli c;
    memset(&c, 0, sizeof c);
    c.trace = a->trace;
    c.dir = a->dir;
    c.xlsx = a->xlsx;
    c.md = a->md;
    c.compat = (a->co.ro.compat & TLM_COMPAT_ROCPROF) != 0;
    c.short_threshold_us = a->co.ro.short_kernel_threshold_us;
    c.hist_bins = a->co.ro.short_kernel_bins;
    c.kernel_summary = a->co.ro.kernel_summary;
    c.short_kernels = a->co.ro.short_kernel_study;
    c.quiet = a->quiet;
    return tlm_cli_report_rocprof(&c, set);
}

/* --hta on a trace whose report failed for want of GPU events: HTA's
 * tables (headers only) and report.md's reason, exit 0; any other trace
 * keeps the report's error (in *err). */
static int report_nogpu(const rargs *a, tlm_outset *set, tlm_error *err)
{
    char msg[1024];
    tlm_error e2;
    tlm_error_clear(&e2);
    int r = tlm_cli_hta_nogpu(a->trace, &a->co, &a->hta, a->dir, a->md, set,
                              &e2);
    if (r > 0 && tlm_outset_commit(set, &e2) != TLM_OK)
        r = -1;
    if (r > 0 && !a->quiet)
        fprintf(stderr, "tlmpi report: %s: no GPU events: no TraceLens "
                "sheets; HTA's tables (headers only) in %s/hta\n",
                tlm_esc(a->trace), tlm_esc(a->dir));
    if (r <= 0)
        fprintf(stderr, "tlmpi report: error: %s\n",
                tlm_error_format(r < 0 ? &e2 : err, msg, sizeof msg));
    return r > 0 ? 0 : 1;
}

/* A PyTorch profiler trace (Kineto JSON, and what no format claims: the
 * Kineto reader says what is wrong): TraceLens's report. */
static int report_kineto(rargs *a, tlm_outset *set)
{
    double t0 = tlm_cli_now();
    tlm_cli_built b = {0};
    tlm_error err;
    tlm_error_clear(&err);
    char msg[1024];
    int rc = 1;
    tlm_status st = tlm_cli_build_report(a->trace, &a->co, &b, &err);
    if (st == TLM_ENOTFOUND && a->hta.on) /* no GPU events: HTA's tables */
        return report_nogpu(a, set, &err);
    if (st != TLM_OK ||
        tlm_cli_tl_compare(&a->tl, &a->co, &b, &err) != TLM_OK ||
        stage_all(a, &b, set, &err) != TLM_OK ||
        tlm_outset_commit(set, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi report: error: %s\n",
                tlm_error_format(&err, msg, sizeof msg));
    } else {
        rc = 0;
        if (!a->quiet)
            summary(a, &b, t0, tlm_cli_now());
    }
    tlm_cli_built_free(&b);
    return rc;
}

/* An XPlane (JAX; a folder: the XPlane in it): JAX's sheets. */
static int report_xplane(rargs *a, tlm_outset *set)
{
    return tlm_cli_xplane_report(a->trace, a->co.ro.compat, set, a->dir,
                                 a->xlsx, a->quiet);
}

/* The report of each trace format (tlm_format.h), indexed by its id. */
static int (*const report_by_format[TLM_FORMAT_COUNT])(rargs *,
                                                        tlm_outset *) = {
    [TLM_FORMAT_UNKNOWN] = report_kineto,
    [TLM_FORMAT_KINETO_JSON] = report_kineto,
    [TLM_FORMAT_ROCPROF_JSON] = report_rocprof,
    [TLM_FORMAT_XPLANE] = report_xplane,
};

int tlm_cmd_report(int argc, char **argv)
{
    static rargs a; /* large path buffers: not on the stack */
    memset(&a, 0, sizeof a);
    int pr = parse_args(argc, argv, &a);
    if (pr)
        return pr == 1 ? 0 : 2;
    int fmt, rc = 1;
    if (a.trace && tlm_format_detect(a.trace, &fmt) == TLM_OK &&
        fmt != TLM_FORMAT_XPLANE && tlm_cmd_trace_is_folder("report", a.trace))
        return 2; /* a folder that holds no XPlane run */
    if (output_paths(&a))
        return 2;
    int bad = check_inputs(&a);
    if (bad)
        return bad;
    tlm_outset set;
    if (start_outputs(&set, a.force, a.trace, a.tl.comparison_json_path,
                      a.dir, a.md, a.xlsx) != 0)
        return 1;
    if (a.hta.on && check_hta_outputs(&set, a.dir) != 0) {
        tlm_cli_signals_untrack(&set);
        tlm_outset_free(&set);
        return 1;
    }
    if (tlm_format_detect(a.trace, &fmt) != TLM_OK) /* by content */
        fprintf(stderr, "tlmpi report: error: %s: out of memory\n",
                a.trace);
    else
        rc = report_by_format[fmt](&a, &set);
    tlm_cli_signals_untrack(&set);
    tlm_outset_free(&set);
    return rc;
}
