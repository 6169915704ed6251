/*
 * compare_find.c - the comparative findings of `tlmpi compare` (spec
 * findings.md §5, src/find): each variant is the target, the baseline the
 * reference.  The tables come from the reports as compared (CSV folders,
 * workbooks or traces); the hardware of each report from --platform
 * (one name for all, or a comma list with one name per report) or
 * --gpu_arch_json_path, else, for a trace, the GPU its report chose.
 */
#include "compare_find.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SHEETS[] = {
    "gpu_timeline", "ops_summary",   "unified_perf_summary",
    "GEMM",         "kernel_summary", "short_kernel_histogram",
    "coll_analysis", "memcpy_summary"};
#define NSHEETS (sizeof SHEETS / sizeof *SHEETS)

/* The platform of report i from a comma list (one name: every report). */
static tlm_status platform_of(const char *list, size_t i, size_t n,
                              char *out, size_t cap, tlm_error *err)
{
    out[0] = '\0';
    if (!list)
        return TLM_OK;
    size_t parts = 1;
    for (const char *p = list; *p; p++)
        parts += *p == ',';
    if (parts != 1 && parts != n)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--platform: give one name, or one per report "
                             "(%zu reports, %zu names)", n, parts);
    const char *s = list;
    for (size_t k = 0; parts > 1 && k < i; k++)
        s = strchr(s, ',') + 1;
    size_t l = strcspn(s, ",");
    if (l >= cap)
        l = cap - 1;
    memcpy(out, s, l);
    out[l] = '\0';
    return TLM_OK;
}

/* Report i's hardware peaks: --platform's entry for it, else its GPU. */
static tlm_status side_hw(const tlm_find_opts *fo, const tlm_cmp_side *sd,
                          size_t i, size_t n, tlm_find_hw *hw,
                          tlm_error *err)
{
    char plat[128];
    tlm_status st = platform_of(fo->platform, i, n, plat, sizeof plat, err);
    if (st != TLM_OK)
        return st;
    tlm_find_opts o = *fo;
    o.platform = plat[0] ? plat : NULL;
    return tlm_find_hw_resolve(&o, sd->has_arch ? &sd->arch : NULL,
                               "report GPU", hw, err);
}

/* The tables findings read, loaded from report i. */
static tlm_status side_tabs(tlm_rsrc *r, tlm_tab **tabs, size_t *n,
                            tlm_error *err)
{
    *n = 0;
    for (size_t s = 0; s < NSHEETS; s++) {
        if (!tlm_rsrc_has(r, SHEETS[s]))
            continue;
        tlm_status st = tlm_rsrc_load(r, SHEETS[s], &tabs[*n], err);
        if (st != TLM_OK)
            return st;
        (*n)++;
    }
    return TLM_OK;
}

/* Frees the tables loaded. */
static void free_tabs(tlm_tab **tabs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tlm_tab_free(tabs[i]);
}

/* Findings of variant v against the baseline, appended to md. */
static tlm_status one_pair(const tlm_cmp_find_in *in, size_t v,
                           tlm_sbuf *md, tlm_tab **csv, tlm_error *err)
{
    tlm_tab *ta[NSHEETS], *tb[NSHEETS];
    size_t na = 0, nb = 0;
    tlm_find_hw ha, hb;
    tlm_findings *f = NULL;
    tlm_status st = side_hw(in->fo, &in->sides[0], 0, in->n, &hb, err);
    if (st == TLM_OK)
        st = side_hw(in->fo, &in->sides[v], v, in->n, &ha, err);
    if (st == TLM_OK)
        st = side_tabs(in->reps[0], tb, &nb, err);
    if (st == TLM_OK)
        st = side_tabs(in->reps[v], ta, &na, err);
    if (st == TLM_OK) {
        tlm_find_input tgt = {(const tlm_tab *const *)ta, na, &ha,
                              in->tags[v]};
        tlm_find_input ref = {(const tlm_tab *const *)tb, nb, &hb,
                              in->tags[0]};
        st = tlm_find_compare(&tgt, &ref, in->fo, &f, err);
    }
    if (st == TLM_OK) {
        tlm_sbuf_puts(md, "## Findings: ");
        tlm_sbuf_md(md, in->tags[v], 128, TLM_MD_TEXT);
        tlm_sbuf_puts(md, " (target) against ");
        tlm_sbuf_md(md, in->tags[0], 128, TLM_MD_TEXT);
        tlm_sbuf_puts(md, " (reference)\n\n");
        tlm_findings_md(f, md, 1);
        tlm_sbuf_putc(md, '\n');
        *csv = tlm_findings_table(f);
        if (!*csv)
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    tlm_findings_free(f);
    free_tabs(ta, na);
    free_tabs(tb, nb);
    return st;
}

tlm_status tlm_cmp_findings(const tlm_cmp_find_in *in, tlm_sbuf *md,
                            tlm_tab **csv, tlm_error *err)
{
    for (size_t v = 1; v < in->n; v++) {
        csv[v] = NULL;
        tlm_status st = one_pair(in, v, md, &csv[v], err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}
