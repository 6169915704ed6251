/*
 * findings_md.c - the Markdown of the findings of the analysis (M1-M4)
 * and of the run comparison (R1-R6) from their /findings rows
 * (findings_md.h): the table both print, report.md's section and the
 * appendix of thresholds.  The rules and their order are src/find's.
 */
#include "findings_md.h"

#include "report0.h"

#include <math.h>
#include <string.h>

void tlm_out_find_opts_of(const tlm_cli_opts *o, tlm_find_coll_opts *fo)
{
    tlm_find_coll_opts_init(fo);
    fo->link_peak_gbps = o->link_peak_gbps;
    fo->skew_pct = o->findings_skew_pct;
    fo->skew_min_us = o->findings_skew_min_us;
    fo->busbw_pct = o->findings_busbw_pct;
    fo->busbw_min_bytes = o->findings_busbw_min_bytes;
    fo->exposed_pct = o->findings_exposed_comm_pct;
    fo->gpus_per_node = o->gpus_per_node;
}

void tlm_out_findings_table(FILE *f, const tlm_row_finding *rows, size_t n,
                            const char *pct_fmt)
{
    fputs("| id | rule | severity | impact % | finding | action |\n"
          "|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < n; i++) {
        const tlm_row_finding *x = &rows[i];
        fprintf(f, "| %s | %s | %s | ", x->id, x->rule, x->severity);
        if (isfinite(x->pct_e2e))
            fprintf(f, pct_fmt, x->pct_e2e);
        else
            fputc('-', f);
        fputs(" | ", f);
        tlm_out_md_cell(f, x->text, sizeof x->text);
        fputs(" | ", f);
        tlm_out_md_cell(f, x->action_a, sizeof x->action_a);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

/* Is a finding of rule r among rows[0..n)? */
static int has_rule(const tlm_row_finding *rows, size_t n, const char *r)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].rule, r))
            return 1;
    return 0;
}

/* Whether the impacts of the findings overlap (so that a sum past 100 %
 * is explained): M1 and M2 both count waiting for late ranks, M4 only
 * exposed transfer and unknown time, M3's lost time lies in the
 * collectives' latency. */
static void overlap_note(FILE *f, const tlm_row_finding *rows, size_t n)
{
    int m1 = has_rule(rows, n, "M1"), m2 = has_rule(rows, n, "M2"),
        m3 = has_rule(rows, n, "M3"), m4 = has_rule(rows, n, "M4");
    if (n < 2)
        return;
    if (!(m1 && m2) && !((m1 || m2) && m4) && !(m3 && m4)) {
        fputs("Impacts overlap: no (each finding counts other time).\n\n",
              f);
        return;
    }
    fputs("Impacts overlap, do not add them:", f);
    const char *sep = " ";
    if (m1 && m2) {
        fprintf(f, "%sM1 and M2 both count waiting for late ranks (M1 the "
                   "waits the straggler causes, M2 each collective's start "
                   "skew)", sep);
        sep = "; ";
    }
    if ((m1 || m2) && m4) {
        fprintf(f, "%sM4 counts exposed transfer only (or, when that is "
                   "under its threshold, the exposed time that cannot be "
                   "split), disjoint from the exposed waiting of %s", sep,
                m1 && m2 ? "M1/M2" : m1 ? "M1" : "M2");
        sep = "; ";
    }
    if (m3 && m4)
        fprintf(f, "%sM3's lost bandwidth lies in the collectives' latency, "
                   "part of M4's transfer where it is exposed", sep);
    fputs(" (docs/metrics-collectives.md, \"Exposed transfer and "
          "waiting\").\n\n", f);
}

void tlm_out_findings_md(FILE *f, const tlm_row_finding *rows, size_t n,
                         const tlm_find_coll_opts *o)
{
    (void)o;
    fputs("## Findings\n\nDeterministic rules over the tables (M1 "
          "straggler, M2 skew, M3 bus bandwidth against the link's peak, "
          "M4 exposed communication); impact in % of the GPU time (mean "
          "timeline span per rank); thresholds in the appendix, "
          "definitions in docs/compare-runs.md.\n\n", f);
    if (!n) {
        fputs("No finding.\n\n", f);
        return;
    }
    tlm_out_findings_table(f, rows, n, "%.2f");
    overlap_note(f, rows, n);
}

void tlm_out_findings_md_appendix(FILE *f, const tlm_find_coll_opts *o)
{
    fputs("## Appendix: finding thresholds\n\n| option | value |\n"
          "|---|---|\n", f);
    if (o->link_peak_gbps > 0)
        fprintf(f, "| --link_peak_gbps | %g |\n", o->link_peak_gbps);
    else
        fprintf(f, "| --link_peak_gbps | 0 (per GPU: A100 300, H100/H200 "
                   "450, B200 900, MI300X/MI325X 448, MI355X 537.6, "
                   "V100-SXM2 150, V100-PCIe 16, A10/A40/L4/L40S 32, other "
                   "GPUs none (no M3); groups "
                   "larger than a node (--gpus_per_node, default 8) %g) |\n",
                TLM_FIND_INTER_GBPS);
    fprintf(f, "| --findings_skew_pct | %g |\n| --findings_skew_min_us | %g "
               "|\n| --findings_busbw_pct | %g |\n"
               "| --findings_busbw_min_bytes | %.0f |\n"
               "| --findings_exposed_comm_pct | %g |\n\n",
            o->skew_pct, o->skew_min_us, o->busbw_pct, o->busbw_min_bytes,
            o->exposed_pct);
}
