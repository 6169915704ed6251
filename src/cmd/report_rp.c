/*
 * report_rp.c - `tlmpi report` on a rocprofv3 JSON (found by content,
 * tlm_sniff.h): TraceLens's rocprof report (its
 * TraceLens_generate_perf_report_rocprof --kernel_details
 * --short_kernel_study) as one CSV per sheet and/or one workbook, plus a
 * short report.md.  Everything is staged in the caller's output set and
 * published together, or not at all.
 */
#include "report_rp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_rocprof.h"

#include "rocprof_report.h"
#include "sbuf.h"
#include "xlsx_write.h"

/* The sheets written: all but those the options leave out (TraceLens's
 * --disable_kernel_summary; --disable_short_kernel_study). */
static int wanted(const tlm_rp_cli *c, int i)
{
    if (i == 1 || i == 2)
        return c->kernel_summary;
    if (i == 4 || i == 5)
        return c->short_kernels;
    return 1;
}

/* Each rocprof sheet as a CSV staged in the set. */
static tlm_status stage_csvs(const tlm_rp_cli *c, tlm_tab *const *tabs,
                             tlm_outset *set, const char *dir, tlm_error *err)
{
    char path[4200];
    for (int i = 0; i < TLM_RP_NSHEETS; i++) {
        if (!wanted(c, i))
            continue;
        const char *tmp = NULL;
        snprintf(path, sizeof path, "%s/%s.csv", dir, tlm_rp_sheet_names[i]);
        tlm_status st = tlm_outset_stage(set, path, &tmp, err);
        if (st == TLM_OK)
            st = tlm_tab_write_csv(tabs[i], tmp, err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* The rocprof sheets as one workbook staged in the set. */
static tlm_status stage_xlsx(const tlm_rp_cli *c, tlm_tab *const *tabs,
                             tlm_outset *set, const char *path,
                             tlm_error *err)
{
    tlm_xlsx_sheet sh[TLM_RP_NSHEETS];
    size_t n = 0;
    for (int i = 0; i < TLM_RP_NSHEETS; i++) {
        if (!wanted(c, i))
            continue;
        sh[n].tab = tabs[i];
        sh[n].name = tlm_rp_sheet_names[i];
        sh[n].hidden = NULL;
        n++;
    }
    const char *tmp = NULL;
    tlm_status st = tlm_outset_stage(set, path, &tmp, err);
    if (st == TLM_OK)
        st = tlm_xlsx_write(tmp, sh, n, err);
    return st;
}

/* At most 80 bytes of trace text, '|' '`' and control bytes as '?'. */
static void md_text(tlm_sbuf *b, const char *s)
{
    size_t k = 0;
    for (; s[k] && k < 80; k++) {
        unsigned char c = (unsigned char)s[k];
        tlm_sbuf_putc(b, c < 0x20 || c == 0x7f || c == '|' || c == '`'
                             ? '?'
                             : (char)c);
    }
}

/* report.md of a rocprofv3 trace staged in the set. */
static tlm_status stage_md(const tlm_rocprof *rp, tlm_tab *const *tabs,
                           int compat, tlm_outset *set, const char *path,
                           tlm_error *err)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    size_t nk, nc, na;
    tlm_rocprof_kernels(rp, &nk);
    tlm_rocprof_copies(rp, &nc);
    tlm_rocprof_apis(rp, &na);
    const char *prod = "", *arch = tlm_rocprof_gpu_arch(rp, &prod);
    tlm_sbuf_puts(&b, "# tlmpi report (rocprofv3 JSON)\n\n");
    tlm_sbuf_printf(&b, "- format: rocprof-json; kernel dispatches %zu, "
                    "memory copies %zu, HIP/HSA API calls %zu\n", nk, nc, na);
    tlm_sbuf_puts(&b, "- GPU arch: ");
    md_text(&b, arch ? arch : "unknown (no GPU agent with a gfx name)");
    if (prod && *prod) {
        tlm_sbuf_puts(&b, " (");
        md_text(&b, prod);
        tlm_sbuf_puts(&b, ")");
    }
    tlm_sbuf_printf(&b, "\n- mode: %s\n\n", compat
                        ? "TraceLens compat (kernel times in ns under "
                          "their us labels, as TraceLens writes them)"
                        : "default (kernel times in us)");
    tlm_sbuf_puts(&b, "## GPU timeline\n\n| type | time ms | percent |\n"
                      "|---|---:|---:|\n");
    const tlm_tab *t = tabs[0];
    for (size_t r = 0; r < t->nrows; r++)
        tlm_sbuf_printf(&b, "| %s | %.6f | %.2f |\n",
                        tlm_tab_cell(t, r, 0)->v.s,
                        tlm_tab_cell(t, r, 1)->v.f,
                        tlm_tab_cell(t, r, 2)->v.f);
    tlm_sbuf_puts(&b, "\nThe sheets: gpu_timeline, kernel_summary, "
                      "kernel_summary_by_category, kernel_details, "
                      "short_kernels_summary, short_kernel_histogram "
                      "(docs/formats.md).\n");
    tlm_status st = b.oom ? TLM_ENOMEM : TLM_OK;
    const char *tmp = NULL;
    if (st == TLM_OK)
        st = tlm_outset_stage(set, path, &tmp, err);
    if (st == TLM_OK) {
        FILE *f = fopen(tmp, "wb");
        if (!f || fwrite(b.p, 1, b.len, f) != b.len) {
            st = tlm_error_set(err, TLM_EIO, path, -1, "cannot write");
        }
        if (f && fclose(f) != 0 && st == TLM_OK)
            st = tlm_error_set(err, TLM_EIO, path, -1, "cannot write");
    } else if (st == TLM_ENOMEM) {
        tlm_error_set(err, st, path, -1, "out of memory");
    }
    tlm_sbuf_free(&b);
    return st;
}

int tlm_cli_report_rocprof(const tlm_rp_cli *c, tlm_outset *set)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_rocprof *rp = NULL;
    tlm_tab *tabs[TLM_RP_NSHEETS] = {0};
    tlm_rp_sheet_opts so;
    tlm_rp_sheet_opts_init(&so);
    so.compat = c->compat;
    so.short_threshold_us = c->short_threshold_us;
    so.hist_bins = c->hist_bins;
    tlm_status st = tlm_rocprof_read_file(c->trace, NULL, &rp, &err);
    if (st == TLM_OK)
        st = tlm_rocprof_sheets(rp, &so, tabs, &err);
    if (st == TLM_OK && c->dir)
        st = stage_csvs(c, tabs, set, c->dir, &err);
    if (st == TLM_OK && c->xlsx)
        st = stage_xlsx(c, tabs, set, c->xlsx, &err);
    if (st == TLM_OK && c->md)
        st = stage_md(rp, tabs, c->compat, set, c->md, &err);
    if (st == TLM_OK)
        st = tlm_outset_commit(set, &err);
    int rc = 0;
    if (st != TLM_OK) {
        char m[1024];
        fprintf(stderr, "tlmpi report: error: %s\n",
                tlm_error_format(&err, m, sizeof m));
        rc = 1;
    } else if (!c->quiet) {
        size_t nk;
        tlm_rocprof_kernels(rp, &nk);
        const char *arch = tlm_rocprof_gpu_arch(rp, NULL);
        fprintf(stderr, "tlmpi report: %s: rocprofv3 JSON, %zu kernel "
                "dispatches, GPU %s; %d sheets in %s%s%s\n", c->trace, nk,
                arch ? arch : "unknown", TLM_RP_NSHEETS, c->dir ? c->dir : "",
                c->dir && c->xlsx ? " and " : "", c->xlsx ? c->xlsx : "");
    }
    for (int i = 0; i < TLM_RP_NSHEETS; i++)
        tlm_tab_free(tabs[i]);
    tlm_rocprof_free(rp);
    return rc;
}
