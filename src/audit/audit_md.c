/*
 * audit_md.c - audit.md (the audit at a glance: problems first, then the
 * runs by world size, scaling per job, collectives losing bandwidth,
 * stragglers, runs that stand out, the baseline comparison), runs.csv and
 * the Markdown schema of audit.h5.  Every path and reason is printed
 * through tlm_out_md_cell (escaped).  Definitions: docs/metrics-audit.md.
 */
#include "audit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL(f, s) tlm_out_md_cell((f), (s), sizeof(s))

/* A duration in ms as a table cell, "-" when unknown. */
static void ms_cell(FILE *f, int64_t ns)
{
    if (ns < 0)
        fputs(" - |", f);
    else
        fprintf(f, " %.3f |", (double)ns / 1e6);
}

/* A number as a table cell in fmt, "-" when not finite. */
static void num_cell(FILE *f, double v, const char *fmt)
{
    if (isfinite(v)) {
        fputc(' ', f);
        fprintf(f, fmt, v);
        fputs(" |", f);
    } else {
        fputs(" - |", f);
    }
}

/* The runs whose status is ok. */
static size_t n_ok(const tlm_audit_acc *acc)
{
    size_t n = 0;
    for (size_t i = 0; i < acc->n_runs; i++)
        n += strcmp(acc->runs[i].status, "ok") == 0;
    return n;
}

/* The title and the audit's key figures. */
static void md_head(FILE *f, const tlm_audit_acc *acc, const tlm_audit_meta *m)
{
    fputs("# tlmpi audit\n\n| | |\n|---|---|\n| root | ", f);
    tlm_out_md_cell(f, m->o->root, strlen(m->o->root));
    fprintf(f, " |\n| runs | %zu ok, %zu failed |\n", n_ok(acc),
            acc->n_runs - n_ok(acc));
    fprintf(f, "| files | %zu looked at, %zu traces, %zu skipped |\n",
            m->plan->n_seen, m->plan->n_tr, m->plan->n_skip);
    fprintf(f, "| MPI processes | %d |\n", m->nprocs);
    fprintf(f, "| time | %.2f s (walk and sniff %.2f s, runs %.2f s) |\n",
            m->t_total_s, m->t_walk_s, m->t_runs_s);
    if (m->o->baseline) {
        fputs("| baseline | ", f);
        tlm_out_md_cell(f, m->o->baseline, strlen(m->o->baseline));
        fputs(" |\n", f);
    }
    fputs("\nTimes in ms unless said; bandwidths in GB/s (1e9 B/s), bus "
          "bandwidth weighted by latency; definitions in "
          "docs/metrics-audit.md.\n\n", f);
}

/* Failed runs, skipped files and merged folders, when there are any. */
static void md_problems(FILE *f, const tlm_audit_acc *acc,
                        const tlm_audit_meta *m)
{
    const tlm_audit_plan *p = m->plan;
    if (n_ok(acc) == acc->n_runs && !p->n_skip && !p->notes[0])
        return;
    fputs("## Problems\n\n", f);
    if (!acc->n_runs)
        fputs("No run found: no file under the root is a trace.\n\n", f);
    if (n_ok(acc) < acc->n_runs) {
        fputs("| failed run | reason |\n|---|---|\n", f);
        for (size_t i = 0; i < acc->n_runs; i++) {
            const tlm_arow_run *r = &acc->runs[i];
            if (!strcmp(r->status, "ok"))
                continue;
            fputs("| ", f);
            CELL(f, r->run);
            fputs(" | ", f);
            CELL(f, r->reason);
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
    if (p->notes[0]) {
        fputs("Grouping: ", f);
        tlm_out_md_cell(f, p->notes, sizeof p->notes);
        fputs("\n\n", f);
    }
    if (p->n_skip) {
        fprintf(f, "%zu entr%s under the root left out (all in /skipped):"
                   "\n\n| path | why |\n|---|---|\n",
                p->n_skip, p->n_skip == 1 ? "y" : "ies");
        for (size_t i = 0; i < p->n_skip && i < 50; i++) {
            fputs("| ", f);
            CELL(f, p->skip[i].path);
            fputs(" | ", f);
            CELL(f, p->skip[i].reason);
            fputs(" |\n", f);
        }
        fprintf(f, "%s\n", p->n_skip > 50 ? "| ... | |\n" : "");
    }
}

/* Runs by world size, then step time (unknown last). */
static int cmp_by_step(const void *a, const void *b)
{
    const tlm_arow_run *x = *(const tlm_arow_run *const *)a,
                       *y = *(const tlm_arow_run *const *)b;
    if (x->world_size != y->world_size)
        return x->world_size < y->world_size ? -1 : 1;
    int64_t s = x->step_time_ns < 0 ? INT64_MAX : x->step_time_ns;
    int64_t t = y->step_time_ns < 0 ? INT64_MAX : y->step_time_ns;
    if (s != t)
        return s < t ? -1 : 1;
    return strcmp(x->run, y->run);
}

/* One run's row of the runs table. */
static void md_run_row(FILE *f, const tlm_arow_run *r)
{
    fputs("| ", f);
    CELL(f, r->run);
    fputs(" | ", f);
    CELL(f, r->job);
    fputs(" |", f);
    ms_cell(f, r->step_time_ns);
    num_cell(f, 100 * r->comm_share, "%.1f");
    ms_cell(f, r->exposed_comm_ns);
    num_cell(f, r->busbw_allreduce_gbps, "%.2f");
    num_cell(f, r->busbw_allgather_gbps, "%.2f");
    num_cell(f, r->busbw_reducescatter_gbps, "%.2f");
    num_cell(f, r->max_start_skew_ns >= 0 ? r->max_start_skew_ns / 1e3 : NAN,
             "%.1f");
    if (r->straggler_rank >= 0)
        fprintf(f, " rank %d |\n", r->straggler_rank);
    else
        fputs(" - |\n", f);
}

/* The runs table, by world size and step time. */
static void md_runs(FILE *f, const tlm_audit_acc *acc)
{
    const tlm_arow_run **v = malloc((acc->n_runs + 1) * sizeof *v);
    if (!v)
        return;
    size_t n = 0;
    for (size_t i = 0; i < acc->n_runs; i++)
        if (!strcmp(acc->runs[i].status, "ok"))
            v[n++] = &acc->runs[i];
    qsort(v, n, sizeof *v, cmp_by_step);
    for (size_t i = 0; i < n; i++) {
        if (!i || v[i]->world_size != v[i - 1]->world_size)
            fprintf(f, "%s## Runs with %lld ranks, by step time\n\n"
                       "| run | job | step | comm share %% | exposed comm | "
                       "all-reduce busbw | all-gather busbw | "
                       "reduce-scatter busbw | max skew (us) | straggler "
                       "|\n|---|---|---|---|---|---|---|---|---|---|\n",
                    i ? "\n" : "", (long long)v[i]->world_size);
        md_run_row(f, v[i]);
    }
    if (n)
        fputc('\n', f);
    int64_t why[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        why[0] += v[i]->incomplete > 0 ? v[i]->incomplete : 0;
        why[1] += v[i]->mismatch > 0 ? v[i]->mismatch : 0;
        why[2] += v[i]->latency_suspect > 0 ? v[i]->latency_suspect : 0;
    }
    if (why[0] + why[1] + why[2])
        fprintf(f, "Set aside from bandwidth, skew and /scaling/collectives "
                   "(as in each run's report.md): %lld instances, %lld "
                   "incomplete (ranks of the group missing), %lld "
                   "mismatched, %lld latency-suspect; per run in /runs "
                   "(incomplete, mismatch, latency_suspect).\n\n",
                (long long)(why[0] + why[1] + why[2]), (long long)why[0],
                (long long)why[1], (long long)why[2]);
    free(v);
}

/* An efficiency cell: flagged, not ranked, above TLM_AUDIT_EFF_FLAG
 * when the run's both efficiencies are. */
static void eff_cell(FILE *f, double v, int flagged)
{
    num_cell(f, v, flagged ? "%.3f (flagged)" : "%.3f");
}

/* Runs of one job folder in different series, each against the job's
 * first series: why they are not compared. */
static void md_series_notes(FILE *f, const tlm_audit_acc *acc)
{
    int any = 0;
    for (size_t i = 0; acc->series && i < acc->n_runs; i++) {
        if (acc->series[i] != (int32_t)i)
            continue;
        size_t h = 0; /* the job's first series head */
        while (h < i && (acc->series[h] != (int32_t)h ||
                         strcmp(acc->runs[h].job, acc->runs[i].job) != 0))
            h++;
        if (h == i)
            continue;
        char why[128] = "";
        if (acc->sig)
            tlm_audit_sig_match(&acc->sig[h], &acc->sig[i], why, sizeof why);
        if (!any)
            fputs("Runs of one job folder whose collective or op "
                  "signatures differ are never one scaling series: they "
                  "are not compared, and their stragglers are not "
                  "summed.\n\n", f);
        any = 1;
        fputs("- job ", f);
        CELL(f, acc->runs[i].job);
        fputs(": ", f);
        CELL(f, acc->runs[i].run);
        fputs(" heads a series of its own (against ", f);
        CELL(f, acc->runs[h].run);
        fprintf(f, ": %s", why[0] ? why : "signatures unknown");
        if (acc->sig && !strncmp(why, "collectives", 11)) {
            fputs(", `", f);
            CELL(f, acc->sig[i].coll);
            fputs("` against `", f);
            CELL(f, acc->sig[h].coll);
            fputc('`', f);
        }
        fputs(")\n", f);
    }
    if (any)
        fputc('\n', f);
}

/* Scaling per job against its base run. */
static void md_scaling(FILE *f, const tlm_audit_acc *acc)
{
    if (!acc->n_jobs)
        return;
    fputs("## Scaling per job\n\nA run folder directly under the root is "
          "its own job; runs share a job when they share a job folder "
          "(ROOT/job/nN), and only those whose collective and op "
          "signatures agree form a series.  Efficiency against the base "
          "run (the smallest world size of the series, or --baseline "
          "when of the series): weak = base step / step, strong = base "
          "step x base ranks / (step x ranks); both above 1.1 is more "
          "than ideal whichever way the job scales (different work per "
          "rank): flagged, not ranked.\n\n| job | run | ranks | step | "
          "weak eff | strong eff | comm share % | vs base | base run |\n"
          "|---|---|---|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < acc->n_jobs; i++) {
        const tlm_arow_job *j = &acc->jobs[i];
        fputs("| ", f);
        CELL(f, j->job);
        fputs(" | ", f);
        CELL(f, j->run);
        fprintf(f, " | %lld |", (long long)j->world_size);
        ms_cell(f, j->step_time_ns);
        int fl = (j->stands_out & TLM_AUDIT_OUT_ABOVE_ONE) != 0;
        eff_cell(f, j->eff_weak, fl);
        eff_cell(f, j->eff_strong, fl);
        num_cell(f, 100 * j->comm_share, "%.1f");
        num_cell(f, 100 * j->comm_share_delta, "%+.1f");
        fputc(' ', f);
        CELL(f, j->base_run);
        fputs(" |\n", f);
    }
    fputc('\n', f);
    md_series_notes(f, acc);
}

/* Loss score of a signature: (1 - busbw ratio) x time share. */
static double loss(const tlm_arow_coll *c)
{
    if (!isfinite(c->busbw_ratio) || !isfinite(c->time_share) ||
        c->busbw_ratio >= 1)
        return 0;
    return (1 - c->busbw_ratio) * c->time_share;
}

/* The collective signatures that lost the most bandwidth (10 at most). */
static void md_colls(FILE *f, const tlm_audit_acc *acc)
{
    size_t shown = 0;
    char used[10] = {0};
    size_t idx[10];
    for (size_t k = 0; k < 10; k++) {
        double best = 0;
        size_t bi = 0;
        for (size_t i = 0; i < acc->n_colls; i++) {
            int dup = 0;
            for (size_t j = 0; j < shown; j++)
                dup |= idx[j] == i;
            if (!dup && loss(&acc->colls[i]) > best) {
                best = loss(&acc->colls[i]);
                bi = i;
            }
        }
        if (best < 1e-3) /* under 0.1% of the run's collective time */
            break;
        idx[shown] = bi;
        used[shown++] = 1;
    }
    if (!shown)
        return;
    fputs("## Collectives losing bandwidth\n\nAgainst the same collective "
          "(type, group, dtype, size) in the base run, ranked by (1 - "
          "ratio) x share of the run's collective time.\n\n| run | coll | "
          "group | dtype | bytes | busbw | base busbw | ratio | time share "
          "% |\n|---|---|---|---|---|---|---|---|---|\n", f);
    for (size_t k = 0; k < shown && used[k]; k++) {
        const tlm_arow_coll *c = &acc->colls[idx[k]];
        fputs("| ", f);
        CELL(f, c->run);
        fputs(" | ", f);
        CELL(f, c->coll);
        fputs(" | ", f);
        CELL(f, c->pg_desc);
        fputs(" | ", f);
        CELL(f, c->dtype);
        fprintf(f, " | %lld |", (long long)c->bytes);
        num_cell(f, c->busbw_gbps, "%.2f");
        num_cell(f, c->base_busbw_gbps, "%.2f");
        num_cell(f, c->busbw_ratio, "%.3f");
        num_cell(f, 100 * c->time_share, "%.1f");
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The ranks named straggler in some run. */
static void md_stragglers(FILE *f, const tlm_audit_acc *acc)
{
    size_t n = 0;
    for (size_t i = 0; i < acc->n_strag; i++)
        n += acc->strag[i].runs_named > 0;
    if (!n)
        return;
    fputs("## Stragglers\n\nRanks named the straggler of a run (they "
          "caused the others to wait more than the threshold per "
          "collective), summed over the runs of one series (its first "
          "run named), never across jobs or series.\n\n| job | series | "
          "rank | runs named | runs | frequency | wait caused | per "
          "collective (us) |\n|---|---|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < acc->n_strag; i++) {
        const tlm_arow_strag *s = &acc->strag[i];
        if (!s->runs_named)
            continue;
        fputs("| ", f);
        CELL(f, s->job);
        fputs(" | ", f);
        CELL(f, s->series);
        fprintf(f, " | %d | %lld | %lld |", s->trace_rank,
                (long long)s->runs_named, (long long)s->runs);
        num_cell(f, s->frequency, "%.2f");
        ms_cell(f, s->wait_caused_ns);
        fprintf(f, " %.1f |\n", (double)s->wait_per_coll_ns / 1e3);
    }
    fputc('\n', f);
}

/* The stand-out bits of m as words. */
static void out_words(FILE *f, int32_t m)
{
    static const char *const w[] = {
        "straggler named", "slow for its size", "low scaling efficiency",
        "collective bandwidth dropped", "incomplete collectives",
        "clock offset over 1 ms",
        "efficiency above 1.1 (flagged, not ranked: different work?)"};
    int first = 1;
    for (int b = 0; b < 7; b++)
        if (m & (1 << b)) {
            fprintf(f, "%s%s", first ? "" : ", ", w[b]);
            first = 0;
        }
}

/* The runs that stand out, with why. */
static void md_stand_out(FILE *f, const tlm_audit_acc *acc)
{
    size_t n = 0;
    for (size_t i = 0; i < acc->n_jobs; i++)
        n += acc->jobs[i].stands_out != 0;
    if (!n)
        return;
    fputs("## Runs that stand out\n\n| run | why |\n|---|---|\n", f);
    for (size_t i = 0; i < acc->n_jobs; i++) {
        if (!acc->jobs[i].stands_out)
            continue;
        fputs("| ", f);
        CELL(f, acc->jobs[i].run);
        fputs(" | ", f);
        out_words(f, acc->jobs[i].stands_out);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

/* The comparison with --baseline, when asked. */
static void md_compare(FILE *f, const tlm_audit_acc *acc)
{
    if (!acc->n_cmp)
        return;
    fputs("## Against the baseline\n\n| run | metric | baseline | value | "
          "ratio |\n|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < acc->n_cmp; i++) {
        const tlm_arow_cmp *c = &acc->cmp[i];
        if (!isfinite(c->value) && !isfinite(c->baseline))
            continue;
        fputs("| ", f);
        CELL(f, c->run);
        fputs(" | ", f);
        CELL(f, c->metric);
        fputs(" |", f);
        num_cell(f, c->baseline, "%.6g");
        num_cell(f, c->value, "%.6g");
        num_cell(f, c->ratio, "%.3f");
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* audit.md: every section in order. */
int tlm_audit_md_write(FILE *f, const tlm_audit_acc *acc,
                       const tlm_audit_meta *m)
{
    md_head(f, acc, m);
    md_problems(f, acc, m);
    md_runs(f, acc);
    md_scaling(f, acc);
    md_colls(f, acc);
    md_stragglers(f, acc);
    if (acc->n_causes_md) {
        fputs("## Why the stragglers are late\n\nEach named straggler's "
              "delay per process group split into causes "
              "(docs/straggler-causes.md; `/straggler_causes` in the "
              "run's tlmpi.h5):\n\n",
              f);
        fputs(acc->causes_md, f);
    }
    md_stand_out(f, acc);
    md_compare(f, acc);
    fprintf(f, "## Settings\n\nstraggler threshold %.1f us per collective; "
               "slow run: step time over %ld%% above the median of its "
               "series and size; low efficiency: below %.2f; bandwidth drop: %.0f%% "
               "below the base run for a collective with at least 5%% of the "
               "time.  Each run's own report: runs/<run>/report.md.\n",
            m->o->a.straggler_threshold_us, m->o->a.step_outlier_pct,
            m->o->min_efficiency, m->o->bw_drop_pct);
    return ferror(f) ? -1 : 0;
}

/* runs.csv: the /runs table. */
int tlm_audit_csv_write(FILE *f, const tlm_audit_acc *acc)
{
    tlm_out_table_csv(f, &tlm_atab_runs, acc->runs, acc->n_runs);
    return ferror(f) ? -1 : 0;
}

/* audit.h5's datasets as Markdown (`--print_schema`). */
void tlm_audit_schema_markdown(FILE *f)
{
    fprintf(f, "<!-- generated by `tlmpi audit --print_schema`; do not edit "
               "by hand -->\n\n## audit.h5 datasets (audit schema version "
               "%d)\n\n", TLM_AUDIT_SCHEMA_VERSION);
    tlm_out_schema_tables(f, tlm_audit_tables);
}
