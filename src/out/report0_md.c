/*
 * report0_md.c - report.md, the job at a glance for a human: what was read
 * and how long each phase took, the GPU timeline spread over ranks with
 * the outlier named, exposed communication per rank, the steps with their
 * outliers, the top ops merged
 * across ranks, the collective summary, the stragglers and the clock
 * offsets, each section a function below.  Long tables are cut (the HDF5
 * file has every row) so that the report stays readable for big jobs.
 */
#include "report0_out.h"

#include "cause.h"
#include "findings_md.h"
#include "jobinfo.h"
#include "plots.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : (x > y);
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* One line of the timeline table: min (rank), median, max (rank) and the
 * rank farthest from the median, named when it is more than 5% (and at
 * least 1 us) away. */
static void spread_line(FILE *f, const tlm_out_results *r, const char *label,
                        size_t off, int64_t *tmp)
{
    size_t n = r->n_traces;
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    int32_t rmn = -1, rmx = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t v = *(const int64_t *)(const void *)((const char *)&r
                                                         ->timeline[i] +
                                                     off);
        tmp[i] = v;
        if (v < mn) {
            mn = v;
            rmn = r->timeline[i].trace_rank;
        }
        if (v > mx) {
            mx = v;
            rmx = r->timeline[i].trace_rank;
        }
    }
    qsort(tmp, n, sizeof *tmp, cmp_i64);
    double med = n % 2 ? (double)tmp[n / 2]
                       : 0.5 * ((double)tmp[n / 2 - 1] + (double)tmp[n / 2]);
    double dmn = med - (double)mn, dmx = (double)mx - med;
    int32_t out_rank = dmx >= dmn ? rmx : rmn;
    double dev = dmx >= dmn ? dmx : dmn;
    fprintf(f, "| %s | %.3f (rank %d) | %.3f | %.3f (rank %d) | ", label,
            ms(mn), rmn, med / 1e6, ms(mx), rmx);
    if (n >= 3 && dev > 0.05 * (med > 0 ? med : 1) && dev >= 1000.0)
        fprintf(f, "rank %d (%+.3f ms vs median) |\n", out_rank,
                (dmx >= dmn ? dev : -dev) / 1e6);
    else
        fputs("- |\n", f);
}

/* A size in bytes for people: "512 B", "4.0 KiB", "1.5 MiB", "2.00 GiB"
 * (binary prefixes; "-" when unknown). */
static const char *human_bytes(int64_t b, char *buf, size_t cap)
{
    double v = (double)b;
    if (b < 0)
        snprintf(buf, cap, "-");
    else if (b < 1024)
        snprintf(buf, cap, "%lld B", (long long)b);
    else if (v < 1024.0 * 1024.0)
        snprintf(buf, cap, "%.1f KiB", v / 1024.0);
    else if (v < 1024.0 * 1024.0 * 1024.0)
        snprintf(buf, cap, "%.1f MiB", v / (1024.0 * 1024.0));
    else
        snprintf(buf, cap, "%.2f GiB", v / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

/* A text of at most cap bytes as a Markdown table cell: '|' escaped,
 * control characters (already '?' in the records) printed as '?'. */
void tlm_out_md_cell(FILE *f, const char *s, size_t cap)
{
    for (size_t i = 0; i < cap && s[i]; i++) {
        if (s[i] == '|')
            fputs("\\|", f);
        else
            fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], f);
    }
}

/* The TLM_COLL_CLOCK_* flags as words. */
static const char *flags_text(uint32_t fl, char *buf, size_t cap)
{
    buf[0] = 0;
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{TLM_COLL_CLOCK_REFERENCE, "reference"},
                 {TLM_COLL_CLOCK_NO_DATA, "no data"},
                 {TLM_COLL_CLOCK_CLAMPED, "clamped"},
                 {TLM_COLL_CLOCK_INFEASIBLE, "infeasible"},
                 {TLM_COLL_CLOCK_LARGE, "large"},
                 {TLM_COLL_CLOCK_NOISY, "noisy"},
                 {TLM_COLL_CLOCK_FEW_SAMPLES, "few samples: not applied"}};
    size_t len = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (fl & names[i].bit) {
            int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "",
                             names[i].name);
            if (w > 0 && (size_t)w < cap - len)
                len += (size_t)w;
        }
    }
    return buf;
}

static int cmp_strag_caused(const void *a, const void *b)
{
    const tlm_coll_straggler_row *x = *(const tlm_coll_straggler_row *const *)a;
    const tlm_coll_straggler_row *y = *(const tlm_coll_straggler_row *const *)b;
    if (x->wait_caused_corr_ns != y->wait_caused_corr_ns)
        return x->wait_caused_corr_ns > y->wait_caused_corr_ns ? -1 : 1;
    return x->trace_rank - y->trace_rank;
}


/* What a GPU outside the bundled table (or one without a link peak)
 * leaves out, and the option that gives it back. */
static void md_gpu_unknown(FILE *f, const tlm_out_results *r,
                           const tlm_out_gpu_sum *g)
{
    tlm_find_coll_opts fo;
    if (r->opts)
        tlm_out_find_opts_of(r->opts, &fo);
    else
        tlm_find_coll_opts_init(&fo);
    int mixed = strcmp(g->arch, "mixed") == 0;
    int known = g->arch[0] && !mixed;
    int no_m3 = !(tlm_find_link_peak(&fo, known ? g->arch : "", 1) > 0);
    if ((known && !no_m3) || strcmp(g->source, "option") == 0 ||
        (mixed && !no_m3))
        return; /* all there, or --gpu_arch none asked for none */
    if (known || mixed)
        fprintf(f, "- **No link peak for %s**", known ? g->arch
                                                      : "mixed GPUs");
    else if (g->device[0])
        fprintf(f, "- **GPU not in tlmpi's table**: \"%s\" (as "
                   "deviceProperties names it) has no bundled peaks",
                g->device);
    else
        fputs("- **GPU unknown**: the traces name no device "
              "(deviceProperties)", f);
    if (no_m3)
        fputs(": the low bus bandwidth finding M3 is skipped for groups "
              "within a node (give `--link_peak_gbps X`, the link's GB/s "
              "per GPU)", f);
    if (!known && !mixed)
        fprintf(f, "%s `tlmpi report` on one of its traces computes no "
                   "roofline (give `--gpu_arch_json_path FILE`)",
                no_m3 ? ";" : ":");
    fputs("\n", f);
}

/* The GPU line of the glance: the architecture, where it came from, and
 * a note when the traces name different devices. */
static void md_gpu(FILE *f, const tlm_out_results *r)
{
    tlm_out_gpu_sum g;
    tlm_out_gpu_summary(r->traces, r->n_traces, &g);
    fprintf(f, "- GPU: %s (source: %s", g.arch[0] ? g.arch : "none",
            g.source);
    if (g.device[0])
        fprintf(f, "; deviceProperties: \"%s\"", g.device);
    fputs(")\n", f);
    if (g.devices_mixed)
        fputs("- **Note: mixed devices**: the traces' deviceProperties name "
              "different GPU models (per trace: `/traces` columns "
              "`device_name`, `gpu_arch`)\n",
              f);
    md_gpu_unknown(f, r, &g);
}

/* Where GPUs per node came from (node columns, clock domains). */
static void md_gpn(FILE *f, const tlm_out_results *r)
{
    const char *src = r->gpn_source ? r->gpn_source : "none";
    long g = r->opts ? r->opts->gpus_per_node : -1;
    if (g > 0 && strcmp(src, "deviceProperties") == 0)
        fprintf(f, "- GPUs per node: %ld (from the deviceProperties of "
                   "the first trace, as TraceLens detects it; "
                   "`--gpus_per_node` overrides)\n", g);
    else if (g > 0)
        fprintf(f, "- GPUs per node: %ld (from `--gpus_per_node`)\n", g);
    else
        fputs("- GPUs per node: unknown (no `--gpus_per_node`, no "
              "deviceProperties in the first trace): every rank is its "
              "own clock domain; the TraceLens sheets have no node_id / "
              "node_span columns\n", f);
}

/* The instances set aside, by reason (tlm_coll_aside: why[1..3]). */
static void aside_counts(const tlm_out_results *r, size_t why[4])
{
    for (size_t i = 0; i < r->n_inst; i++)
        why[tlm_coll_inst_aside(r->inst[i].flags)]++;
}

/* The job at a glance: traces, timings, the file, collective counts. */
static void md_glance(FILE *f, const tlm_out_results *r)
{
    size_t n = r->n_traces;
    fprintf(f, "# tlmpi report\n\nUnits: times in ms unless a column says "
               "otherwise; bandwidth GB/s = 10^9 B/s; message sizes in "
               "binary units (KiB, MiB, GiB); the HDF5 file holds raw ns "
               "and bytes; the TraceLens-style CSV sheets keep TraceLens's "
               "units (below).\n\n## The job at a glance\n\n");
    char rd[32];
    fprintf(f, "- traces: %zu of world size %lld, %s read by %d MPI "
               "rank%s in %.2f s\n",
            n, (long long)r->world_size,
            human_bytes((int64_t)r->bytes_read, rd, sizeof rd), r->nprocs,
            r->nprocs > 1 ? "s" : "", r->elapsed_s);
    fprintf(f, "- time: reading and per-trace tables %.2f s, collective "
               "exchange and matching %.2f s, HDF5 write %.2f s\n",
            r->t_read_s, r->t_collectives_s, r->t_hdf5_s);
    fprintf(f, "- HDF5 file: `%s` (schema v%d; load with %s)\n",
            r->h5_path, TLM_SCHEMA_VERSION,
            tlm_out_installed() ? "`import tlmpi_h5` in Python: "
                                  "`tlmpi_h5.load(path)`"
                                : "`scripts/tlmpi_h5.py`");
    md_gpu(f, r);
    md_gpn(f, r);
    size_t why[4] = {0};
    aside_counts(r, why);
    fprintf(f, "- collective instances matched across ranks: %zu (%zu set "
               "aside: %zu incomplete, %zu mismatched, %zu latency-suspect);"
               " NCCL kernels left unmatched: %zu\n",
            r->n_inst, why[1] + why[2] + why[3], why[1], why[2], why[3],
            r->n_unmatched);
    if (why[TLM_COLL_ASIDE_INCOMPLETE])
        fprintf(f, "- **%zu of %zu instances lack ranks (%zu of %lld ranks "
                   "read)**: no bandwidth, and left out of every mean, "
                   "percentile, skew, straggler and clock verdict (flag "
                   "INCOMPLETE in `/collectives/instances`)\n",
                why[TLM_COLL_ASIDE_INCOMPLETE], r->n_inst, n,
                (long long)r->world_size);
    fprintf(f, "- TraceLens parity mode: %s\n\n",
            r->tl_simplified ? "simplified (no process group names)"
                             : "regular");
}

/* Exposed and total communication of every rank (the first 64 of a big
 * job). */
static void md_exposed_comm(FILE *f, const tlm_out_results *r)
{
    size_t n = r->n_traces;
    fputs("\n### Exposed communication per rank\n\n"
          "Transfer: after the collective's last member started; waiting: "
          "before it, for late ranks; unknown: instances lacking ranks, "
          "unmatched kernels (docs/metrics-collectives.md).\n\n"
          "| rank | exposed comm (ms) | transfer (ms) | waiting (ms) | "
          "unknown (ms) | total comm (ms) | % of timeline |\n"
          "|---|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const tlm_row_timeline *t = &r->timeline[i];
        fprintf(f, "| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f |\n",
                t->trace_rank, ms(t->exposed_comm_ns),
                ms(t->exposed_transfer_ns), ms(t->exposed_waiting_ns),
                ms(t->exposed_unknown_ns), ms(t->total_comm_ns),
                t->total_ns > 0 ? 100.0 * (double)t->exposed_comm_ns /
                                      (double)t->total_ns
                                : 0.0);
        if (i == 63 && n > 65) {
            fprintf(f, "| ... | %zu more ranks in /timeline | | | | | |\n",
                    n - 64);
            break;
        }
    }
    fputc('\n', f);
}

/* The GPU timeline spread over ranks (tmp: room for one value a trace). */
static void md_timeline(FILE *f, const tlm_out_results *r, int64_t *tmp)
{
    /* one line a timeline column: label and field */
    static const struct {
        const char *label;
        size_t off;
    } lines[] = {
        {"total (first to last GPU event)",
         offsetof(tlm_row_timeline, total_ns)},
        {"busy", offsetof(tlm_row_timeline, busy_ns)},
        {"idle", offsetof(tlm_row_timeline, idle_ns)},
        {"computation", offsetof(tlm_row_timeline, computation_ns)},
        {"exposed communication",
         offsetof(tlm_row_timeline, exposed_comm_ns)},
        {"- exposed transfer",
         offsetof(tlm_row_timeline, exposed_transfer_ns)},
        {"- exposed waiting for late ranks",
         offsetof(tlm_row_timeline, exposed_waiting_ns)},
        {"- exposed, unknown which",
         offsetof(tlm_row_timeline, exposed_unknown_ns)},
        {"total communication", offsetof(tlm_row_timeline, total_comm_ns)},
        {"exposed memcpy/memset",
         offsetof(tlm_row_timeline, exposed_memcpy_ns)},
    };
    fprintf(f, "## GPU timeline across ranks (ms)\n\n");
    if (r->n_traces == 0) {
        fputs("No traces.\n\n", f);
        return;
    }
    fputs("| metric | min | median | max | outlier |\n"
          "|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        spread_line(f, r, lines[i].label, lines[i].off, tmp);
    md_exposed_comm(f, r);
}

/* One line of the per-step table. */
static void md_step_row(FILE *f, const tlm_row_step_sum *s)
{
    fprintf(f, "| %lld | %d | %.3f | %.3f | %.3f (rank %d) | %.3f | %.3f "
               "| %.3f | %.2f | %s |\n",
            (long long)s->step, s->n_ranks, ms(s->dur_min_ns),
            s->dur_median_ns / 1e6, ms(s->dur_max_ns), s->slowest_rank,
            s->gpu_busy_median_ns / 1e6, ms(s->exposed_comm_max_ns),
            ms(s->comm_max_ns), s->vs_median,
            s->outlier ? "**yes**" : "-");
}

/* Per-step table (docs/metrics-steps.md): every step up to 48, then only
 * the outliers.  Nothing when the traces have no ProfilerStep#N and
 * --steps was not given. */
static void md_steps(FILE *f, const tlm_out_results *r)
{
    const char *sel = r->opts ? r->opts->steps : NULL;
    if (r->n_step_sum == 0 && !sel)
        return;
    fputs("## Steps (ms)\n\n", f);
    if (r->n_step_sum == 0) {
        fprintf(f, "No ProfilerStep#N spans selected by --steps %s.\n\n",
                sel);
        return;
    }
    size_t n_out = 0;
    for (size_t i = 0; i < r->n_step_sum; i++)
        n_out += r->step_sum[i].outlier != 0;
    fprintf(f, "%zu step%s (CPU annotations ProfilerStep#N%s%s) over the "
               "ranks; step time = the span's duration, GPU figures "
               "clipped to it.  Outlier: longest step time over ranks > "
               "%ld%% above the median over steps (%zu outlier%s).\n\n",
            r->n_step_sum, r->n_step_sum == 1 ? "" : "s",
            sel ? ", --steps " : "", sel ? sel : "",
            r->opts ? r->opts->step_outlier_pct : 20L, n_out,
            n_out == 1 ? "" : "s");
    fputs("| step | ranks | min | median | max (slowest rank) | GPU busy "
          "(median) | exposed comm (max) | collective (max) | vs median | "
          "outlier |\n|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    size_t shown = 0;
    for (size_t i = 0; i < r->n_step_sum; i++) {
        if (i >= 48 && !r->step_sum[i].outlier)
            continue;
        md_step_row(f, &r->step_sum[i]);
        shown++;
    }
    if (shown < r->n_step_sum)
        fprintf(f, "| ... | %zu more steps in /steps/summary | | | | | | | "
                   "| |\n",
                r->n_step_sum - shown);
    fputc('\n', f);
}

/* The top 15 ops merged across ranks. */
static void md_ops(FILE *f, const tlm_out_results *r)
{
    fprintf(f, "## Top ops, merged across ranks (by GPU kernel time they "
               "launch)\n\n");
    if (r->n_ops == 0) {
        fputs("No ops with GPU kernels.\n\n", f);
        return;
    }
    fputs("| op | ranks | calls | kernel time, all ranks (ms) | per rank, "
          "mean (ms) | slowest rank (ms) | % |\n"
          "|---|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < r->n_ops && i < 15; i++) {
        const tlm_row_op_merged *m = &r->ops[i];
        fprintf(f, "| `%.*s` | %d | %lld | %.3f | %.3f | rank %d: %.3f | "
                   "%.1f |\n",
                80, m->name, m->n_ranks, (long long)m->count,
                m->direct_kernel_ns / 1e6, m->mean_rank_ns / 1e6,
                m->max_rank, m->max_rank_ns / 1e6, m->percent);
    }
    fputs("\nPer rank: `/ops/per_rank`, `/ops_unique_args` and "
          "`/kernels` in the HDF5 file.\n\n",
          f);
}

/* v with fmt, or "-" when it is NaN (no instance used). */
static void num_or_dash(char *buf, size_t cap, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, fmt, v);
}

/* One row of the collective summary. */
static void md_summary_row(FILE *f, const tlm_coll_summary_row *s)
{
    char bw[32], name[48], size[32], lat[32], skew[32];
    num_or_dash(bw, sizeof bw, "%.2f", s->busbw_gbps.mean);
    num_or_dash(lat, sizeof lat, "%.3f", s->latency_ns.mean / 1e3);
    num_or_dash(skew, sizeof skew, "%.3f", s->start_skew_corr_ns.mean / 1e3);
    if (s->coll_name[0])
        snprintf(name, sizeof name, " (%.*s)",
                 (int)strnlen(s->coll_name, sizeof s->coll_name),
                 s->coll_name);
    else
        name[0] = 0;
    fputs("| ", f);
    tlm_out_md_cell(f, s->pg_name, sizeof s->pg_name);
    fputs(" | ", f);
    tlm_out_md_cell(f, s->pg_desc, sizeof s->pg_desc);
    fprintf(f, " | %s%s | %.*s | %s | %lld | %lld | %.3f | %s | %s | %s "
               "|\n",
            tlm_coll_type_name((tlm_coll_type)s->coll), name,
            (int)strnlen(s->dtype_name, sizeof s->dtype_name),
            s->dtype_name, human_bytes(s->bytes, size, sizeof size),
            (long long)s->count,
            (long long)(s->n_incomplete + s->n_mismatch + s->n_suspect),
            ms(s->total_latency_ns), lat, bw, skew);
}

/* The top 20 collective summary rows by total latency. */
/* rocprofv3 traces give GPU and RCCL kernel time, not collectives: say
 * so rather than match their kernels by guess. */
static void md_rocprof_note(FILE *f, const tlm_out_results *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_traces; i++)
        n += strcmp(r->traces[i].format, "rocprof-json") == 0;
    if (n == 0)
        return;
    fprintf(f, "%zu of %zu traces are rocprofv3 JSON: their GPU time and "
            "RCCL kernel time are in the timeline (total_comm_ns, "
            "exposed_comm_ns), but their collectives are not matched: "
            "matching needs the per-call metadata (process group, sequence "
            "number, message size and dtype) that rocprof does not "
            "record, and tlmpi does not guess it from kernel order.\n\n",
            n, r->n_traces);
}

static void md_collectives(FILE *f, const tlm_out_results *r)
{
    fprintf(f, "## Collectives (top 20 by total latency)\n\n");
    md_rocprof_note(f, r);
    if (r->n_sum == 0) {
        fputs("No collective instances.\n\n", f);
        return;
    }
    fputs("| process group | pg_desc | collective | dtype | size | count | "
          "set aside | total latency (ms) | mean latency (us) | mean bus bw "
          "(GB/s) | mean start skew (us, corrected) |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < r->n_sum && i < 20; i++)
        md_summary_row(f, &r->sum[i]);
    fputc('\n', f);
    size_t why[4] = {0};
    aside_counts(r, why);
    if (why[1] + why[2] + why[3])
        fprintf(f, "Set aside, not in count nor in any figure above: %zu "
                   "instance%s (%zu incomplete: ranks of the group missing; "
                   "%zu mismatched: members disagree on the signature or "
                   "group size; %zu latency-suspect: the shortest member "
                   "is longer than the time all members overlapped, so it "
                   "is not a transfer time).  Each is in "
                   "`/collectives/instances` with `set_aside` saying why; "
                   "`/collectives/summary` counts them per row.\n\n",
                why[1] + why[2] + why[3],
                why[1] + why[2] + why[3] == 1 ? "" : "s", why[1], why[2],
                why[3]);
}

/* One straggler verdict in words: "rank R (W us per collective)" or "no
 * straggler (the most, rank R, W us)". */
static void verdict_words(FILE *f, int32_t s, int32_t top, int64_t wait_ns)
{
    if (s == TLM_OUT_NO_STRAGGLER)
        fprintf(f, "no straggler (the most, rank %d, %.1f us per "
                   "collective)",
                top, (double)wait_ns / 1e3);
    else
        fprintf(f, "rank %d (the others waited %.1f us per collective "
                   "for it)",
                s, (double)wait_ns / 1e3);
}

/* When the clock offsets change the straggler verdict, says so and gives
 * both: on raw clocks and on corrected ones. */
static void md_verdict_clock(FILE *f, const tlm_out_results *r)
{
    double thr = r->opts ? r->opts->straggler_threshold_us
                         : TLM_CLI_DEFAULT_STRAGGLER_US;
    int64_t wc = 0, wr = 0;
    int32_t tc = -1, tr = -1;
    int32_t sc = tlm_out_straggler_pick(r->strag, r->n_strag, thr, &wc, &tc);
    int32_t sr = tlm_out_straggler_pick_raw(r->strag, r->n_strag, thr, &wr,
                                            &tr);
    size_t n_few = 0;
    for (size_t i = 0; i < r->n_clk; i++)
        n_few += (r->clk[i].flags & TLM_COLL_CLOCK_FEW_SAMPLES) != 0;
    if (n_few)
        fprintf(f, "The clock offset%s of %zu rank%s %s not applied "
                   "(estimated from fewer than %d instances, \"Clock "
                   "offsets\"): waits that involve %s are on raw clocks and "
                   "may be clock error, not lateness.\n\n",
                n_few == 1 ? "" : "s", n_few, n_few == 1 ? "" : "s",
                n_few == 1 ? "is" : "are", TLM_COLL_CLOCK_MIN_SAMPLES,
                n_few == 1 ? "it" : "them");
    if (sc == sr)
        return;
    fputs("Clock correction changes the straggler verdict: on raw "
          "(uncorrected) clocks ", f);
    verdict_words(f, sr, tr, wr);
    fputs("; on corrected clocks (the applied offsets under \"Clock "
          "offsets\") ", f);
    verdict_words(f, sc, tc, wc);
    fputs(".\n\n", f);
}

/* The straggler headline: the rank the others waited for most (t, the
 * first overall row by caused wait), named only beyond the threshold. */
static void md_straggler_verdict(FILE *f, const tlm_out_results *r,
                                 const tlm_coll_straggler_row *t)
{
    double thr = r->opts ? r->opts->straggler_threshold_us
                         : TLM_CLI_DEFAULT_STRAGGLER_US;
    int64_t wait_ns = 0;
    int32_t top = -1;
    int32_t s = tlm_out_straggler_pick(r->strag, r->n_strag, thr, &wait_ns,
                                       &top);
    if (s == TLM_OUT_NO_STRAGGLER) {
        fprintf(f, "No straggler: no rank made the others wait more than "
                   "%.1f us per collective (--straggler_threshold_us); the "
                   "most, rank %d, %.1f us.\n\n",
                thr, top, (double)wait_ns / 1e3);
        md_verdict_clock(f, r);
        return;
    }
    fprintf(f, "Straggler: rank %d arrives last most expensively: the "
               "other ranks waited %.3f ms for it in total, %.1f us per "
               "collective (corrected clocks; threshold %.1f us), it "
               "arrived last %.1f times of %lld.\n\n",
            t->trace_rank, ms(t->wait_caused_corr_ns),
            (double)wait_ns / 1e3, thr,
            (double)t->last_credit_corr_u / 1e6, (long long)t->n_instances);
    md_verdict_clock(f, r);
    if (r->n_cause) {
        fprintf(f, "Why rank %d is late (its window before each collective "
                   "it arrived last at against the median rank's; "
                   "docs/straggler-causes.md, `/straggler_causes`):\n\n",
                r->cause[0].trace_rank);
        tlm_out_cause_md(f, r->cause, r->n_cause);
        fputc('\n', f);
    }
}

/* Who arrives last over all process groups, most expensive first (sp:
 * room for a pointer a straggler row). */
static void md_stragglers(FILE *f, const tlm_out_results *r,
                          const tlm_coll_straggler_row **sp)
{
    fprintf(f, "## Stragglers\n\n");
    size_t nsp = 0;
    for (size_t i = 0; i < r->n_strag; i++)
        if (r->strag[i].overall)
            sp[nsp++] = &r->strag[i];
    qsort(sp, nsp, sizeof *sp, cmp_strag_caused);
    if (nsp == 0) {
        size_t why[4] = {0};
        aside_counts(r, why);
        if (why[TLM_COLL_ASIDE_INCOMPLETE])
            fprintf(f, "No straggler named: no implicit-sync collective "
                       "has every rank of its group (%zu of %zu instances "
                       "lack ranks; %zu of %lld ranks read).  Who arrives "
                       "last among the ranks read says nothing about whom "
                       "the group waited for.\n\n",
                    why[TLM_COLL_ASIDE_INCOMPLETE], r->n_inst, r->n_traces,
                    (long long)r->world_size);
        else
            fputs("No complete implicit-sync collectives.\n\n", f);
        return;
    }
    const tlm_coll_straggler_row *t = sp[0];
    md_straggler_verdict(f, r, t);
    fputs("| rank | instances | arrived last (credit) | waits caused "
          "(ms) | own waits (ms) | arrived last, raw clocks |\n"
          "|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < nsp && i < 16; i++) {
        t = sp[i];
        fprintf(f, "| %d | %lld | %.2f | %.3f | %.3f | %.2f |\n",
                t->trace_rank, (long long)t->n_instances,
                (double)t->last_credit_corr_u / 1e6,
                ms(t->wait_caused_corr_ns), ms(t->wait_suffered_corr_ns),
                (double)t->last_credit_u / 1e6);
    }
    fputs("\nPer process group: `/stragglers` in the HDF5 file; "
          "TraceLens's table: `straggler_summary.csv`.\n\n",
          f);
}

/* One row of the clock table. */
static void md_clock_row(FILE *f, const tlm_coll_clock *k)
{
    char fl[128], lo[32], hi[32];
    if (k->lo_ns == INT64_MIN)
        snprintf(lo, sizeof lo, "-inf");
    else
        snprintf(lo, sizeof lo, "%.3f", (double)k->lo_ns / 1e3);
    if (k->hi_ns == INT64_MAX)
        snprintf(hi, sizeof hi, "inf");
    else
        snprintf(hi, sizeof hi, "%.3f", (double)k->hi_ns / 1e3);
    fprintf(f, "| %d | %.3f | [%s, %s] | %.3f | %lld | %s |\n",
            k->trace_rank, (double)k->offset_ns / 1e3, lo, hi,
            (double)k->mad_ns / 1e3, (long long)k->n_offset_samples,
            flags_text(k->flags, fl, sizeof fl));
}

/* The evidence of the offsets: every applied offset over 1 ms and every
 * estimate not applied (fewer than TLM_COLL_CLOCK_MIN_SAMPLES instances),
 * each with its sample count (at most 32 of each, then a count). */
static void md_clock_evidence(FILE *f, const tlm_out_results *r)
{
    for (int few = 0; few < 2; few++) {
        size_t n = 0;
        for (size_t i = 0; i < r->n_clk; i++) {
            const tlm_coll_clock *k = &r->clk[i];
            int is_few = (k->flags & TLM_COLL_CLOCK_FEW_SAMPLES) != 0;
            int64_t v = is_few ? k->end_estimate_ns : k->offset_ns;
            if (is_few != few || (!few && v >= -1000000 && v <= 1000000))
                continue;
            if (n == 0 && few)
                fprintf(f, "Not applied (estimated from fewer than %d "
                           "instances across clock domains: offset 0, the "
                           "rank's times stay on its own clock):",
                        TLM_COLL_CLOCK_MIN_SAMPLES);
            else if (n == 0)
                fputs("Applied offsets over 1 ms:", f);
            if (n < 32)
                fprintf(f, "%s rank %d %s %+.3f ms from %lld sample%s",
                        n ? "," : "", k->trace_rank,
                        few ? "estimate" : "offset", (double)v / 1e6,
                        (long long)k->n_offset_samples,
                        k->n_offset_samples == 1 ? "" : "s");
            n++;
        }
        if (n > 32)
            fprintf(f, " and %zu more", n - 32);
        if (n)
            fputs(".\n\n", f);
        else if (!few)
            fputs("No applied offset exceeds 1 ms.\n\n", f);
    }
}

/* The estimated clock offsets (beyond 64 ranks, only non-zero ones, at
 * most 64). */
static void md_clocks(FILE *f, const tlm_out_results *r)
{
    fprintf(f, "## Clock offsets\n\n");
    size_t nz = 0;
    for (size_t i = 0; i < r->n_clk; i++)
        nz += r->clk[i].offset_ns != 0;
    if (r->n_clk == 0) {
        fputs("Not estimated (no collectives).\n\n", f);
        return;
    }
    fprintf(f, "%zu of %zu ranks have a non-zero estimated clock "
               "offset (end times of implicit-sync collectives; skews "
               "and waits \"corrected\" use them).\n\n",
            nz, r->n_clk);
    md_clock_evidence(f, r);
    fputs("| rank | offset (us) | causality bounds (us) | residual MAD "
          "(us) | offset samples | flags |\n|---|---|---|---|---|---|\n",
          f);
    size_t shown = 0;
    for (size_t i = 0; i < r->n_clk && shown < 64; i++) {
        if (r->n_clk > 64 && r->clk[i].offset_ns == 0)
            continue;
        md_clock_row(f, &r->clk[i]);
        shown++;
    }
    fputc('\n', f);
}

tlm_status tlm_out_report_md(const tlm_out_results *r,
                             const tlm_out_dest *dir, tlm_error *err)
{
    tlm_out_file o;
    tlm_status st = tlm_out_open(&o, dir, "report.md", err);
    if (st != TLM_OK)
        return st;
    FILE *f = o.f;
    size_t n = r->n_traces;
    int64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    const tlm_coll_straggler_row **sp =
        malloc((r->n_strag ? r->n_strag : 1) * sizeof *sp);
    if (!tmp || !sp) {
        free(tmp);
        free(sp);
        fclose(o.f); /* the caller aborts the set */
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    tlm_find_coll_opts fo;
    tlm_out_find_opts_of(r->opts, &fo);
    md_glance(f, r);
    tlm_out_findings_md(f, r->find, r->n_find, &fo);
    md_timeline(f, r, tmp);
    md_steps(f, r);
    md_ops(f, r);
    md_collectives(f, r);
    md_stragglers(f, r, sp);
    md_clocks(f, r);
    if (r->hta_md) /* --hta: the section of src/hta (hta_md.c) */
        fputs(r->hta_md, f);
    fputs("## Files\n\n- TraceLens-style CSV sheets: "
          "nccl_summary_implicit_sync.csv, nccl_implicit_sync.csv, "
          "nccl_long.csv, nccl_summary_long.csv, straggler_summary.csv, "
          "with all_to_allv collectives nccl_all2allv.csv and "
          "nccl_summary_all2allv.csv "
          "(TraceLens's units, not tlmpi's: µs, MiB labelled \"MB\", "
          "GiB/s labelled \"GB/s\"; 1 MiB = 1.048576 MB, 1 GiB/s = "
          "1.073741824 GB/s)\n- findings.csv: the findings above "
          "(also /findings in the HDF5 file)\n\n",
          f);
    tlm_out_findings_md_appendix(f, &fo);
    free(tmp);
    free(sp);
    return tlm_out_close(&o, err);
}
