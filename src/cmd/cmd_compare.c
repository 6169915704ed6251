/*
 * cmd_compare.c - `tlmpi compare REPORT REPORT [REPORT...]`: TraceLens's
 * perf-report comparison (TraceLens_compare_perf_reports_pytorch; spec
 * compare.md, docs/compare.md).  A REPORT is a folder of per-sheet CSVs,
 * an .xlsx workbook, or a trace (.json / .json.gz, recognised by its
 * content), whose report is built first with the options of `tlmpi
 * report`.  When every REPORT is an HDF5 file of the multi-rank analysis,
 * the run comparison the caller hands over (the driver's compare_runs.c,
 * which reads HDF5) answers instead.  Without MPI.
 */
#include "cli.h"
#include "slip.h"
#include "cmp_internal.h"
#include "compare_find.h"
#include "report_opts.h"
#include "sigclean.h"
#include "xlsx_write.h"

#include "tlmpi/tlm_sniff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_REPORTS 64

/* The usage text of tlmpi compare. */
static void compare_usage(FILE *f)
{
    fprintf(f,
        "usage: tlmpi compare REPORT REPORT [REPORT...] [options]\n"
        "       tlmpi compare RUN_A.h5 RUN_B.h5 [--output_dir D] [options]\n\n"
        "Compares perf reports as TraceLens_compare_perf_reports_pytorch "
        "does\n"
        "(the first REPORT is the baseline).  A REPORT is a folder of "
        "per-sheet\n"
        "CSVs, an .xlsx workbook, or a trace (its report is built first).  "
        "Two\n"
        "HDF5 files of the multi-rank analysis are compared run to run "
        "instead\n"
        "(tlmpi compare RUN_A.h5 RUN_B.h5 --help).\n\n"
        "options:\n"
        "  --names TAG...          one tag per report (default: each "
        "path's\n"
        "                          base name without its suffix)\n"
        "  --sheets WORD...        gpu_timeline ops_summary kernel_summary "
        "ops_all\n"
        "                          roofline all (default all)\n"
        "  --output_csvs_dir DIR   one CSV per result sheet, and "
        "comparison.md\n"
        "  -o, --output FILE.xlsx  the workbook (default comparison.xlsx "
        "when no\n"
        "                          --output_csvs_dir is given)\n"
        "  --output_md FILE        comparison.md path (default: in "
        "DIR, else\n"
        "                          beside the workbook)\n"
        "  --tracelens_compat LIST TraceLens's quirks (all, or the report "
        "names)\n"
        "  --platform NAME[,NAME...]  findings: hardware peaks, one name "
        "for every\n"
        "                          report or one per report (default: a "
        "trace's GPU)\n"
        "  --findings_<name> VALUE findings thresholds (docs/findings.md)\n"
        "  --force                 replace outputs that exist already\n"
        "  --quiet                 no summary on stderr\n"
        "  report options (for trace inputs): --gpu_arch NAME, "
        "--gpu_arch_json_path F,\n"
        "    --bleed_tolerance, --include_unlinked_kernels, "
        "--disable_kernel_summary,\n"
        "    --disable_short_kernel_study, --disable_coll_analysis, "
        "--threads N,\n"
        "    --micro_idle_thresh_us X, --short_kernel_threshold_us X,\n"
        "    --short_kernel_histogram_bins B, --topk_short_kernels N\n");
}

typedef struct cargs {
    const char *paths[MAX_REPORTS];
    size_t n;
    const char *names[MAX_REPORTS];
    size_t nnames;
    int has_names;
    tlm_cmp_opts co;
    const char *csv_dir, *xlsx, *md;
    int force, quiet;
    tlm_cli_ropts ro;
    tlm_find_opts fo;
    tlm_cmd_fn runs; /* the run comparison (NULL: none) */
} cargs;

/* Not an option (a lone "-" is a word). */
static int is_word(const char *a)
{
    return !(a[0] == '-' && a[1]);
}

/* Words after a list option (--names, --sheets) up to the next option. */
static int list_opt(int argc, char **argv, int *i, cargs *c)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--names")) {
        c->has_names = 1;
        while (*i + 1 < argc && is_word(argv[*i + 1])) {
            if (c->nnames == MAX_REPORTS)
                return -1;
            c->names[c->nnames++] = argv[++*i];
        }
        return 1;
    }
    if (strcmp(a, "--sheets") != 0)
        return 0;
    c->co.sheets = 0;
    int any = 0;
    while (*i + 1 < argc && is_word(argv[*i + 1])) {
        any = 1;
        if (tlm_cmp_sheet_word(argv[++*i], &c->co.sheets, &c->co.named)) {
            fprintf(stderr, "tlmpi compare: --sheets: unknown word '%s' "
                    "(gpu_timeline ops_summary kernel_summary ops_all "
                    "roofline all)\n", argv[*i]);
            return -1;
        }
    }
    if (!any) {
        fprintf(stderr, "tlmpi compare: --sheets needs at least one word\n");
        return -1;
    }
    return 1;
}

/* The output options with a value: 1 taken, 0 not one of them, -1 error. */
static int value_opt(int argc, char **argv, int *i, cargs *c)
{
    const char *a = argv[*i];
    const char **dst = !strcmp(a, "--output_csvs_dir") ? &c->csv_dir
                       : !strcmp(a, "-o") || !strcmp(a, "--output") ? &c->xlsx
                       : !strcmp(a, "--output_md") ? &c->md
                                                   : NULL;
    if (!dst)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "tlmpi compare: %s needs a value\n", a);
        return -1;
    }
    *dst = argv[++*i];
    return 1;
}

/* 0 ok, 1 --help printed, 2 usage error. */
static int parse(int argc, char **argv, cargs *c)
{
    c->co.sheets = TLM_CMP_ALL;
    tlm_cli_ropts_init(&c->ro);
    tlm_find_opts_init(&c->fo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = tlm_cli_ropt("compare", argc, argv, &i, &c->ro);
        if (r == 0)
            r = tlm_cli_find_opt("compare", argc, argv, &i, &c->fo);
        if (r == 0)
            r = list_opt(argc, argv, &i, c);
        if (r == 0)
            r = value_opt(argc, argv, &i, c);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            compare_usage(stdout);
            fputs("\n", stdout);
            fflush(stdout);
            char *h[] = {argv[0], (char *)"--help", NULL};
            if (c->runs)
                (void)c->runs(2, h); /* the run comparison's */
            return 1;
        } else if (!strcmp(a, "--force")) {
            c->force = 1;
        } else if (!strcmp(a, "--quiet")) {
            c->quiet = 1;
        } else if (!is_word(a)) {
            tlm_cmd_unknown_opt("compare", a, compare_usage);
            return 2;
        } else if (c->n == MAX_REPORTS) {
            fprintf(stderr, "tlmpi compare: at most %d reports\n",
                    MAX_REPORTS);
            return 2;
        } else {
            c->paths[c->n++] = a;
        }
    }
    if (c->n < 2) {
        compare_usage(stderr);
        fprintf(stderr, "tlmpi compare: error: Need at least two report "
                "files\n");
        return 2;
    }
    if (c->has_names && c->nnames && c->nnames != c->n) {
        fprintf(stderr, "tlmpi compare: error: --names has %zu tags for %zu "
                "reports\n", c->nnames, c->n);
        return 2;
    }
    return 0;
}

/* MARK: - inputs ---------------------------------------------------------- */

/* An HDF5 file by its signature. */
static int is_hdf5(const char *path)
{
    FILE *f;
    (void)tlm_fopen_input(path, &f, NULL); /* never a FIFO's open */
    unsigned char h[8];
    int yes = f && fread(h, 1, 8, f) == 8 &&
              !memcmp(h, "\x89HDF\r\n\x1a\n", 8);
    if (f)
        fclose(f);
    return yes;
}

/* A trace's report as a report source: its tables as CSV texts. */
static tlm_status trace_source(const char *path, const tlm_cli_ropts *ro,
                               tlm_rsrc **out, tlm_cmp_side *side,
                               tlm_error *err)
{
    tlm_cli_built b;
    tlm_status st = tlm_cli_build_report(path, ro, &b, err);
    if (st != TLM_OK)
        return st;
    const tlm_report_gpu *g = tlm_report_gpu_get(b.rep);
    side->has_arch = g->has_arch;
    side->arch = g->arch;
    /* the sheets, and memcpy_summary that the findings read */
    size_t n = tlm_report_table_count(b.rep) + 1;
    const char **names = calloc(n ? n : 1, sizeof *names);
    const char **csv = calloc(n ? n : 1, sizeof *csv);
    size_t *len = calloc(n ? n : 1, sizeof *len);
    tlm_sbuf *bufs = calloc(n ? n : 1, sizeof *bufs);
    int ok = names && csv && len && bufs;
    for (size_t i = 0; ok && i < n; i++) {
        const tlm_tab *t = i + 1 < n ? tlm_report_tab(b.rep, i)
                                     : tlm_report_memcpy_tab(b.rep);
        tlm_sbuf_init(&bufs[i]);
        if (t)
            tlm_tab_csv_sbuf(t, &bufs[i]);
        ok = !bufs[i].oom;
        names[i] = t ? t->name : "memcpy_summary";
        csv[i] = bufs[i].p ? bufs[i].p : "";
        len[i] = bufs[i].len;
    }
    st = ok ? tlm_rsrc_mem(path, n, names, csv, len, out, err)
            : tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    for (size_t i = 0; bufs && i < n; i++)
        tlm_sbuf_free(&bufs[i]);
    free(names);
    free(csv);
    free(len);
    free(bufs);
    tlm_cli_built_free(&b);
    return st;
}

/* A report input: a trace (sniffed) is built into a report, else a CSV
 * folder or workbook. */
static tlm_status open_report(const char *path, const tlm_cli_ropts *ro,
                              tlm_rsrc **out, tlm_cmp_side *side,
                              tlm_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        tlm_sniff sn;
        tlm_trace_sniff(path, 0, &sn);
        if (sn.verdict == TLM_SNIFF_TRACE)
            return trace_source(path, ro, out, side, err);
    }
    return tlm_rsrc_open(path, out, err);
}

/* MARK: - outputs --------------------------------------------------------- */

/* Each comparison sheet as a CSV staged in the set. */
static tlm_status stage_csvs(tlm_outset *set, const cargs *c,
                             const tlm_cmp_result *res, tlm_error *err)
{
    for (size_t i = 0; i < res->n; i++) {
        const tlm_tab *t = res->v[i].t;
        char p[4400];
        const char *tmp;
        snprintf(p, sizeof p, "%s/%s.csv", c->csv_dir, t->name);
        tlm_status st = tlm_outset_stage(set, p, &tmp, err);
        if (st == TLM_OK)
            st = tlm_tab_write_csv(t, tmp, err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* The comparison sheets as one workbook staged in the set. */
static tlm_status stage_xlsx(tlm_outset *set, const char *path,
                             const tlm_cmp_result *res, tlm_error *err)
{
    size_t n = res->n;
    const char **names = calloc(n ? n : 1, sizeof *names);
    char (*sn)[TLM_XLSX_NAME_MAX] = calloc(n ? n : 1, sizeof *sn);
    tlm_xlsx_sheet *sh = calloc(n ? n : 1, sizeof *sh);
    const char *tmp;
    tlm_status st = names && sn && sh ? TLM_OK : TLM_ENOMEM;
    if (st == TLM_OK) {
        for (size_t i = 0; i < n; i++)
            names[i] = res->v[i].t->name;
        tlm_xlsx_sheet_names(names, n, sn);
        for (size_t i = 0; i < n; i++) {
            sh[i].tab = res->v[i].t;
            sh[i].name = sn[i];
            sh[i].hidden = res->v[i].hidden;
        }
        st = tlm_outset_stage(set, path, &tmp, err);
    } else {
        tlm_error_set(err, st, path, -1, "out of memory");
    }
    if (st == TLM_OK)
        st = tlm_xlsx_write(tmp, sh, n, err);
    free(names);
    free(sn);
    free(sh);
    return st;
}

/* comparison.md staged in the set. */
static tlm_status stage_md(tlm_outset *set, const char *path,
                           const tlm_sbuf *body, tlm_error *err)
{
    const char *tmp;
    tlm_status st = tlm_outset_stage(set, path, &tmp, err);
    if (st != TLM_OK)
        return st;
    const tlm_sbuf b = *body;
    FILE *f = b.oom ? NULL : fopen(tmp, "wb");
    if (!f)
        return tlm_error_set(err, b.oom ? TLM_ENOMEM : TLM_EIO, path, -1,
                             "cannot write the Markdown report");
    if (b.len)
        fwrite(b.p, 1, b.len, f);
    return tlm_outset_fclose(f, path, err);
}

/* The paths of the outputs: defaults filled in. */
static void output_paths(cargs *c, char *xbuf, char *mbuf, size_t cap)
{
    if (!c->xlsx && (!c->csv_dir || c->co.compat))
        c->xlsx = "comparison.xlsx"; /* TraceLens always writes it (Q12) */
    if (c->md)
        return;
    if (c->csv_dir) {
        snprintf(mbuf, cap, "%s/comparison.md", c->csv_dir);
    } else {
        snprintf(xbuf, cap, "%s", c->xlsx);
        size_t l = strlen(xbuf);
        if (l > 5 && !strcmp(xbuf + l - 5, ".xlsx"))
            xbuf[l - 5] = '\0';
        snprintf(mbuf, cap, "%s.md", xbuf);
    }
    c->md = mbuf;
}

/* MARK: - the command ------------------------------------------------------ */

typedef struct cstate {
    tlm_rsrc *reps[MAX_REPORTS];
    tlm_cmp_side sides[MAX_REPORTS];
    tlm_tab *fcsv[MAX_REPORTS]; /* findings of each variant */
    tlm_sbuf md;
    char *tags[MAX_REPORTS];
    tlm_cmp_result res;
    tlm_outset set;
    int set_open;
} cstate;

/* Frees the inputs, results and the output set still open. */
static void cstate_free(cstate *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tlm_rsrc_free(s->reps[i]);
        tlm_tab_free(s->fcsv[i]);
        free(s->tags[i]);
    }
    tlm_sbuf_free(&s->md);
    tlm_cmp_result_free(&s->res);
    if (s->set_open) {
        tlm_cli_signals_untrack(&s->set);
        tlm_outset_free(&s->set);
    }
}

/* The output set: every output checked before any work. */
static tlm_status start_outputs(cstate *s, const cargs *c, tlm_error *err)
{
    char gt[4400];
    tlm_status st = tlm_outset_init(&s->set, c->force, err);
    if (st != TLM_OK)
        return st;
    s->set_open = 1;
    for (size_t i = 0; st == TLM_OK && i < c->n; i++)
        st = tlm_outset_add_input(&s->set, c->paths[i], err);
    if (st == TLM_OK && c->csv_dir) {
        snprintf(gt, sizeof gt, "%s/gpu_timeline.csv", c->csv_dir);
        st = tlm_outset_check(&s->set, gt, err);
    }
    if (st == TLM_OK && c->xlsx)
        st = tlm_outset_check(&s->set, c->xlsx, err);
    if (st == TLM_OK)
        st = tlm_outset_check(&s->set, c->md, err);
    if (st == TLM_OK) {
        tlm_cli_signals_install();
        tlm_cli_signals_track(&s->set);
    }
    return st;
}

/* comparison.md: the tables' story, then the findings of each variant. */
static tlm_status story(cstate *s, const cargs *c, tlm_error *err)
{
    tlm_cmp_md_in in = {s->reps, (const char *const *)s->tags, c->n,
                        &s->res, c->co.compat};
    tlm_cmp_md(&in, &s->md);
    tlm_cmp_find_in fi = {s->reps, s->sides, (const char *const *)s->tags,
                          c->n, &c->fo};
    tlm_status st = tlm_cmp_findings(&fi, &s->md, s->fcsv, err);
    if (st == TLM_OK && s->md.oom)
        st = tlm_error_set(err, TLM_ENOMEM, c->md, -1, "out of memory");
    return st;
}

/* findings_<tag>.csv of every variant (tlmpi's, not TraceLens's). */
static tlm_status stage_findings(cstate *s, const cargs *c, tlm_error *err)
{
    for (size_t v = 1; v < c->n; v++) {
        char p[4400];
        const char *tmp;
        snprintf(p, sizeof p, "%s/findings_%s.csv", c->csv_dir, s->tags[v]);
        tlm_status st = tlm_outset_stage(&s->set, p, &tmp, err);
        if (st == TLM_OK)
            st = tlm_tab_write_csv(s->fcsv[v], tmp, err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* Loads the reports, compares them, adds the findings, stages and
 * publishes. */
static tlm_status run_compare(cstate *s, const cargs *c, tlm_error *err)
{
    tlm_status st = start_outputs(s, c, err);
    for (size_t i = 0; st == TLM_OK && i < c->n; i++)
        st = open_report(c->paths[i], &c->ro, &s->reps[i], &s->sides[i],
                         err);
    if (st == TLM_OK)
        st = tlm_cmp_run(s->reps, (const char *const *)s->tags, c->n, &c->co,
                         &s->res, err);
    if (st == TLM_OK && !c->co.compat)
        st = tlm_cmp_guard_formulas(&s->res, err);
    if (st == TLM_OK && c->csv_dir)
        st = stage_csvs(&s->set, c, &s->res, err);
    if (st == TLM_OK && c->xlsx)
        st = stage_xlsx(&s->set, c->xlsx, &s->res, err);
    if (st == TLM_OK)
        st = story(s, c, err);
    if (st == TLM_OK && c->csv_dir && !c->co.compat)
        st = stage_findings(s, c, err);
    if (st == TLM_OK)
        st = stage_md(&s->set, c->md, &s->md, err);
    if (st == TLM_OK)
        st = tlm_outset_commit(&s->set, err);
    return st;
}

/* The one-line summary on stderr. */
static void summary(const cargs *c, const tlm_cmp_result *res)
{
    for (size_t i = 0; i < res->nnotes; i++)
        fprintf(stderr, "tlmpi compare: note: %s\n", res->notes[i]);
    fprintf(stderr, "tlmpi compare: %zu reports, %zu sheets", c->n, res->n);
    if (c->csv_dir)
        fprintf(stderr, " in %s/", c->csv_dir);
    if (c->xlsx)
        fprintf(stderr, "%s %s", c->csv_dir ? " and" : " in", c->xlsx);
    fprintf(stderr, "; %s\n", c->md);
}

/* The run comparison's turn: --print_schema, or HDF5 inputs (an HDF5
 * file or a name ending in .h5) and no other existing file or folder
 * among the words of the command line. */
static int runs_command(int argc, char **argv)
{
    static const char *const valued[] = {
        "--output_dir", "--output_csvs_dir", "--output_md", "--output", "-o",
        "--top",        "--min_impact_pct"};
    size_t h5 = 0, other = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--print_schema"))
            return 1;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            if (!strcmp(a, valued[k]))
                i++; /* its value is not an input */
        if (i >= argc || !is_word(argv[i]) || argv[i] != a)
            continue;
        size_t l = strlen(a);
        struct stat sb;
        if (is_hdf5(a) || (l > 3 && !strcmp(a + l - 3, ".h5")))
            h5++;
        else if (stat(a, &sb) == 0)
            other++;
    }
    return h5 > 0 && other == 0;
}

int tlm_cmd_compare(int argc, char **argv, tlm_cmd_fn runs)
{
    if (runs && runs_command(argc, argv))
        return runs(argc, argv);
    cargs c;
    memset(&c, 0, sizeof c);
    c.runs = runs;
    int pr = parse(argc, argv, &c);
    if (pr)
        return pr == 1 ? 0 : 2;
    tlm_error err;
    tlm_error_clear(&err);
    char msg[1200], xb[4096], mb[4096];
    if (tlm_cli_ropts_finish(&c.ro, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi compare: %s\n", err.msg);
        return 2;
    }
    c.co.compat = c.ro.ro.compat == TLM_COMPAT_ALL;
    /* an arch JSON gives the findings' peaks of every report, CSV folders
     * and workbooks included (a trace's report uses it as its GPU too) */
    if (c.ro.ro.gpu_arch_json_path && !c.fo.gpu_arch_json)
        c.fo.gpu_arch_json = c.ro.ro.gpu_arch_json_path;
    output_paths(&c, xb, mb, sizeof xb);
    cstate s;
    memset(&s, 0, sizeof s);
    tlm_status st = tlm_cmp_tags(c.paths, c.nnames ? c.names : NULL, c.n,
                                 c.co.compat, s.tags, &err);
    if (st == TLM_OK)
        st = run_compare(&s, &c, &err);
    if (st == TLM_OK && !c.quiet)
        summary(&c, &s.res);
    if (st != TLM_OK)
        fprintf(stderr, "tlmpi compare: error: %s\n",
                tlm_error_format(&err, msg, sizeof msg));
    cstate_free(&s, c.n);
    return st == TLM_OK ? 0 : (st == TLM_EINVAL ? 2 : 1);
}
