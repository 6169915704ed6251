/*
 * compare_runs_md.c - comparison.md (`tlmpi compare A.h5 B.h5`): the step
 * time of A and B, the findings ranked by impact, then the top rows of
 * the collective, op and straggler comparisons (comparison.h5 has every
 * row).  Names from traces are printed through tlm_out_md_cell.
 */
#include "compare_runs.h"

#include "findings_md.h"
#include "report0.h"

#include <math.h>
#include <string.h>

#define CELL(f, s) tlm_out_md_cell((f), (s), sizeof(s))

/* A number scaled, in fm, as a table cell; "-" when not finite. */
static void num(FILE *f, double v, const char *fm, double scale)
{
    if (isfinite(v)) {
        fputc(' ', f);
        fprintf(f, fm, v / scale);
        fputs(" |", f);
    } else {
        fputs(" - |", f);
    }
}

/* The title and the two runs side by side. */
static void head(FILE *f, const tlm_cr_run *a, const tlm_cr_run *b,
                 const tlm_cr_result *r)
{
    fputs("# tlmpi compare\n\n| | A (baseline) | B (variant) |\n"
          "|---|---|---|\n| name | ", f);
    tlm_out_md_cell(f, a->name, strlen(a->name));
    fputs(" | ", f);
    tlm_out_md_cell(f, b->name, strlen(b->name));
    fputs(" |\n| file | ", f);
    tlm_out_md_cell(f, a->path, strlen(a->path));
    fputs(" | ", f);
    tlm_out_md_cell(f, b->path, strlen(b->path));
    fputs(" |\n", f);
    for (size_t i = 0; i < r->n_sum; i++) {
        const tlm_cr_sum *s = &r->sum[i];
        int ns = !strcmp(s->unit, "ns");
        size_t ml = strlen(s->metric); /* step_time_ns in ms: step_time */
        if (ns && ml > 3 && !strcmp(s->metric + ml - 3, "_ns"))
            ml -= 3;
        fprintf(f, "| %.*s%s |", (int)ml, s->metric, ns ? " (ms)" : "");
        num(f, s->a, ns ? "%.3f" : "%.0f", ns ? 1e6 : 1);
        num(f, s->b, ns ? "%.3f" : "%.0f", ns ? 1e6 : 1);
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->n_sum; i++) {
        const tlm_cr_sum *s = &r->sum[i];
        if (strcmp(s->metric, "exposed_transfer_ns") ||
            (isfinite(s->a) && isfinite(s->b)))
            continue;
        fprintf(f, "\nThe split of exposed communication into transfer and "
                   "waiting is unknown for %s: its file has no "
                   "exposed_transfer_ns column (an older tlmpi wrote it).\n",
                !isfinite(s->a) && !isfinite(s->b) ? "A and B"
                : !isfinite(s->a)                  ? "A"
                                                   : "B");
    }
    fprintf(f, "\nImpacts are per rank %s; diff = B - A, %% = 100 diff / A "
               "(docs/compare-runs.md).\n\n",
            r->per_step ? "per step (both runs have ProfilerStep#N)"
                        : "over the whole profile (a run has no steps)");
    if (isfinite(r->step_a) && isfinite(r->step_b))
        fprintf(f, "**%s: A %.3f ms, B %.3f ms (%+.1f %%).**\n\n",
                r->per_step ? "Step time" : "GPU time per rank",
                r->step_a / 1e6, r->step_b / 1e6,
                tlm_cr_pct(r->step_a, r->step_b));
}

/* The findings, ranked. */
static void findings(FILE *f, const tlm_cr_result *r)
{
    fputs("## Findings\n\nRegressions (R2, R4) and improvements (R3, R5) "
          "ranked by impact (% of B's step time), the straggler (R6).\n\n",
          f);
    if (!r->n_find) {
        fputs("No finding.\n\n", f);
        return;
    }
    tlm_out_findings_table(f, r->find, r->n_find, "%+.2f");
}

/* The top collective rows. */
static void colls(FILE *f, const tlm_cr_result *r, int top)
{
    fprintf(f, "## Collectives\n\nKey (coll, group, dtype, bytes); group = "
               "pg_desc, else size<N>.  Top %d of %zu by |impact|.\n\n",
            top, r->n_colls);
    fputs("| coll | group | dtype | bytes | groups A/B | calls A | calls B "
          "| latency us A | B | % | busbw GB/s A | B | % | wait us A | B | "
          "skew us A | B | last rank A/B | impact ms |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
          "---|---|---|\n", f);
    for (size_t i = 0; i < r->n_colls && (int)i < top; i++) {
        const tlm_cr_coll *c = &r->colls[i];
        fputs("| ", f);
        CELL(f, c->coll);
        fputs(" | ", f);
        CELL(f, c->group);
        fputs(" | ", f);
        CELL(f, c->dtype);
        fprintf(f, " | %lld | %lld/%lld |", (long long)c->bytes,
                (long long)c->n_groups_a, (long long)c->n_groups_b);
        num(f, c->calls_a, "%.1f", 1);
        num(f, c->calls_b, "%.1f", 1);
        num(f, c->latency_ns_a, "%.1f", 1e3);
        num(f, c->latency_ns_b, "%.1f", 1e3);
        num(f, c->latency_ns_pct, "%+.1f", 1);
        num(f, c->busbw_gbps_a, "%.1f", 1);
        num(f, c->busbw_gbps_b, "%.1f", 1);
        num(f, c->busbw_gbps_pct, "%+.1f", 1);
        num(f, c->wait_ns_a, "%.1f", 1e3);
        num(f, c->wait_ns_b, "%.1f", 1e3);
        num(f, c->skew_ns_a, "%.1f", 1e3);
        num(f, c->skew_ns_b, "%.1f", 1e3);
        fprintf(f, " %d/%d |", c->last_rank_a, c->last_rank_b);
        num(f, c->impact_ns, "%+.3f", 1e6);
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The top op rows. */
static void ops(FILE *f, const tlm_cr_result *r, int top)
{
    fprintf(f, "## Ops\n\nGPU time per rank (/ops/merged), top %d of %zu "
               "by |impact|.\n\n", top, r->n_ops);
    fputs("| op | calls A | calls B | mean ms A | B | % | max ms A | B | "
          "slowest rank B | impact ms |\n"
          "|---|---|---|---|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < r->n_ops && (int)i < top; i++) {
        const tlm_cr_op *o = &r->ops[i];
        fputs("| ", f);
        CELL(f, o->name);
        fputs(" |", f);
        num(f, o->count_a, "%.1f", 1);
        num(f, o->count_b, "%.1f", 1);
        num(f, o->mean_rank_ns_a, "%.3f", 1e6);
        num(f, o->mean_rank_ns_b, "%.3f", 1e6);
        num(f, o->mean_rank_ns_pct, "%+.1f", 1);
        num(f, o->max_rank_ns_a, "%.3f", 1e6);
        num(f, o->max_rank_ns_b, "%.3f", 1e6);
        fprintf(f, " %d |", o->max_rank_b);
        num(f, o->impact_ns, "%+.3f", 1e6);
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The stragglers of either run, then the largest changes. */
static void strag(FILE *f, const tlm_cr_result *r, int top)
{
    fputs("## Stragglers\n\nRanks named straggler in either run, then the "
          "largest changes of the wait they caused.\n\n"
          "| rank | named A | named B | times last A | B | wait caused ms A "
          "| B | per collective us A | B |\n"
          "|---|---|---|---|---|---|---|---|---|\n", f);
    int shown = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->n_strag && shown < top; i++) {
            const tlm_cr_strag *s = &r->strag[i];
            int named = s->named_a || s->named_b;
            if (pass == 0 ? !named
                          : named || !(fabs(s->wait_caused_ns_diff) > 0))
                continue;
            fprintf(f, "| %d | %s | %s |", s->trace_rank,
                    s->named_a ? "yes" : "", s->named_b ? "yes" : "");
            num(f, s->times_last_a, "%.0f", 1);
            num(f, s->times_last_b, "%.0f", 1);
            num(f, s->wait_caused_ns_a, "%.3f", 1e6);
            num(f, s->wait_caused_ns_b, "%.3f", 1e6);
            num(f, s->wait_per_coll_ns_a, "%.1f", 1e3);
            num(f, s->wait_per_coll_ns_b, "%.1f", 1e3);
            fputc('\n', f);
            shown++;
        }
    fputc('\n', f);
}

/* comparison.md: every section in order. */
void tlm_cr_write_md(FILE *f, const tlm_cr_run *a, const tlm_cr_run *b,
                     const tlm_cr_result *res, const tlm_cr_opts *o)
{
    int top = o->top > 0 ? o->top : 10;
    head(f, a, b, res);
    findings(f, res);
    colls(f, res, top);
    ops(f, res, top);
    strag(f, res, top);
    fprintf(f, "## Appendix\n\n| option | value |\n|---|---|\n"
               "| --min_impact_pct | %g |\n| --top | %d |\n", o->min_impact_pct,
            top);
}
