/*
 * report_md.c - report.md: the page a performance engineer reads first.
 *
 * Top-down: findings first (idle share, exposed communication and memcpy,
 * the op category that dominates, the least efficient heavy ops against
 * the roofline), then the GPU timeline, op categories, ops, shapes and
 * kernels, each a short Markdown table read from the report's own tables
 * (so the page and the CSVs never disagree), then how the call tree was
 * built (links, warnings).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "report_internal.h"

static const tlm_tab *find(const tlm_report *r, const char *name)
{
    for (size_t i = 0; i < r->ntabs; i++)
        if (!strcmp(r->tabs[i]->name, name))
            return r->tabs[i];
    return NULL;
}

static double fcell(const tlm_tab *t, size_t row, const char *col)
{
    long c = tlm_tab_col(t, col);
    if (c < 0)
        return NAN;
    const tlm_cell *x = tlm_tab_cell(t, row, (size_t)c);
    if (x->null)
        return NAN;
    if (t->coltypes[c] == TLM_COL_I64)
        return (double)x->v.i;
    return t->coltypes[c] == TLM_COL_F64 ? x->v.f : NAN;
}

static const char *scell(const tlm_tab *t, size_t row, const char *col)
{
    long c = tlm_tab_col(t, col);
    if (c < 0 || t->coltypes[c] != TLM_COL_STR)
        return "";
    const tlm_cell *x = tlm_tab_cell(t, row, (size_t)c);
    return x->null ? "" : x->v.s;
}

/* Markdown-safe, shortened text of a cell (util's one escape). */
static void md_text(tlm_sbuf *b, const char *s, size_t maxlen)
{
    tlm_sbuf_md(b, s, maxlen, TLM_MD_CELL);
}

static void timeline_section(const tlm_report *r, tlm_sbuf *b)
{
    const tlm_gpu_timeline *g = &r->tl;
    tlm_sbuf_puts(b, "## GPU timeline\n\n");
    tlm_sbuf_printf(b,
                    "%zu GPU operations; all devices and streams pooled "
                    "(as TraceLens does).\n\n",
                    g->n_events);
    tlm_sbuf_puts(b, "| type | time (ms) | % of total |\n|---|---:|---:|\n");
    struct {
        const char *n;
        double v;
    } rows[] = {{"computation", g->computation_us},
                {"exposed communication", g->exposed_comm_us},
                {"exposed memcpy", g->exposed_memcpy_us},
                {"busy", g->busy_us},
                {"idle", g->idle_us},
                {"total", g->total_us},
                {"all communication", g->total_comm_us},
                {"all memcpy", g->total_memcpy_us}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        tlm_sbuf_printf(b, "| %s | %.3f | %.2f |\n", rows[i].n,
                        rows[i].v / 1e3,
                        g->total_us > 0 ? rows[i].v / g->total_us * 100.0
                                        : 0.0);
    if (g->has_micro_idle)
        tlm_sbuf_printf(b, "| micro idle | %.3f | %.2f |\n| macro idle | "
                           "%.3f | %.2f |\n",
                        g->micro_idle_us / 1e3,
                        g->micro_idle_us / g->total_us * 100.0,
                        g->macro_idle_us / 1e3,
                        g->macro_idle_us / g->total_us * 100.0);
    tlm_sbuf_putc(b, '\n');
}

static void top_table(tlm_sbuf *b, const tlm_tab *t, const char *title,
                      const char *const *cols, const char *const *heads,
                      size_t ncols, size_t top)
{
    if (!t || !t->nrows)
        return;
    tlm_sbuf_printf(b, "## %s\n\n|", title);
    for (size_t c = 0; c < ncols; c++)
        tlm_sbuf_printf(b, " %s |", heads[c]);
    tlm_sbuf_puts(b, "\n|");
    for (size_t c = 0; c < ncols; c++)
        tlm_sbuf_puts(b, c ? "---:|" : "---|");
    tlm_sbuf_putc(b, '\n');
    size_t n = t->nrows < top ? t->nrows : top;
    for (size_t r = 0; r < n; r++) {
        tlm_sbuf_putc(b, '|');
        for (size_t c = 0; c < ncols; c++) {
            long k = tlm_tab_col(t, cols[c]);
            tlm_sbuf_putc(b, ' ');
            if (k >= 0) {
                const tlm_cell *x = tlm_tab_cell(t, r, (size_t)k);
                if (x->null)
                    tlm_sbuf_puts(b, "-");
                else if (t->coltypes[k] == TLM_COL_F64)
                    tlm_sbuf_printf(b, "%.3f", x->v.f);
                else if (t->coltypes[k] == TLM_COL_I64)
                    tlm_sbuf_printf(b, "%lld", (long long)x->v.i);
                else if (t->coltypes[k] == TLM_COL_BOOL)
                    tlm_sbuf_puts(b, x->v.i ? "yes" : "no");
                else
                    md_text(b, x->v.s, 70);
            }
            tlm_sbuf_puts(b, " |");
        }
        tlm_sbuf_putc(b, '\n');
    }
    if (t->nrows > n)
        tlm_sbuf_printf(b, "\n(%zu of %zu rows; full table: %s.csv)\n", n,
                        t->nrows, t->name);
    tlm_sbuf_putc(b, '\n');
}

/* The GPU line of the header: which architecture and where it came
 * from, and the trace's device names when they differ. */
static void gpu_line(const tlm_report *r, tlm_sbuf *b)
{
    const tlm_report_gpu *g = &r->gpu;
    const tlm_gpu_devices *d = &g->devices;
    tlm_sbuf_puts(b, "GPU: ");
    if (g->has_arch)
        md_text(b, g->arch.name, 63);
    else
        tlm_sbuf_puts(b, "none");
    tlm_sbuf_printf(b, " (source: %s", tlm_arch_source_name(g->source));
    if (d->n_devices > 0) {
        tlm_sbuf_puts(b, "; deviceProperties: \"");
        md_text(b, d->name, 63);
        tlm_sbuf_printf(b, "\"%s", d->mixed ? " and others" : "");
    }
    tlm_sbuf_puts(b, ").");
    if (!g->has_arch && g->source == TLM_ARCH_SRC_NONE && !d->arch &&
        d->n_devices > 0)
        tlm_sbuf_puts(b, " Not in tlmpi's GPU table: no roofline (give "
                         "--gpu_arch_json_path FILE, or --gpu_arch NAME "
                         "for a bundled GPU); in a multi-rank job also no "
                         "low bus bandwidth finding M3 within a node (give "
                         "--link_peak_gbps X).");
    if (d->mixed)
        tlm_sbuf_printf(b, " Note: the trace lists %zu devices of "
                           "different models%s.",
                        d->n_devices,
                        g->source == TLM_ARCH_SRC_TRACE
                            ? ""
                            : "; none was taken for the roofline");
    tlm_sbuf_puts(b, "\n\n");
}

/* Least efficient heavy ops: unified rows with a roofline percentage among
 * those that make up 80% of the kernel time. */
static void roofline_findings(const tlm_report *r, tlm_sbuf *b,
                              tlm_sbuf *find_b)
{
    const tlm_tab *u = find(r, "unified_perf_summary");
    if (!u)
        return;
    if (!r->has_arch) {
        tlm_sbuf_puts(find_b, "- No GPU known (--gpu_arch / "
                              "--gpu_arch_json_path, or a GPU the "
                              "trace's deviceProperties name): roofline "
                              "efficiency not computed.\n");
        return;
    }
    tlm_sbuf_printf(b, "## Roofline (%s: %.0f GB/s)\n\n", r->arch.name,
                    r->arch.mem_bw_gbps);
    double tot = 0.0;
    for (size_t i = 0; i < u->nrows; i++) {
        double k = fcell(u, i, "Kernel Time (\xc2\xb5s)_sum");
        if (!isnan(k))
            tot += k;
    }
    size_t cand[16], nc = 0;
    double cum = 0.0;
    for (size_t i = 0; i < u->nrows && cum < 0.8 * tot; i++) {
        double k = fcell(u, i, "Kernel Time (\xc2\xb5s)_sum");
        cum += isnan(k) ? 0.0 : k;
        double p = fcell(u, i, "Pct Roofline_mean");
        if (isnan(p) || nc == 16)
            continue;
        cand[nc++] = i;
    }
    /* by efficiency, ascending */
    for (size_t a = 1; a < nc; a++) {
        size_t v = cand[a], j = a;
        while (j > 0 && fcell(u, cand[j - 1], "Pct Roofline_mean") >
                            fcell(u, v, "Pct Roofline_mean")) {
            cand[j] = cand[j - 1];
            j--;
        }
        cand[j] = v;
    }
    if (!nc) {
        tlm_sbuf_puts(b, "No heavy op has a perf model with a roofline "
                         "for this GPU.\n\n");
        return;
    }
    tlm_sbuf_puts(b, "Heavy ops (together 80% of kernel time), least "
                     "efficient first:\n\n| op | input dims | category | "
                     "bound | % of roofline | kernel time (ms) | count |\n"
                     "|---|---|---|---|---:|---:|---:|\n");
    for (size_t q = 0; q < nc; q++) {
        size_t i = cand[q];
        tlm_sbuf_puts(b, "| ");
        md_text(b, scell(u, i, "name"), 60);
        tlm_sbuf_puts(b, " | ");
        md_text(b, scell(u, i, "Input Dims"), 50);
        tlm_sbuf_puts(b, " | ");
        md_text(b, scell(u, i, "op category"), 30);
        tlm_sbuf_printf(b, " | %s | %.1f | %.3f | %.0f |\n",
                        scell(u, i, "Roofline Bound"),
                        fcell(u, i, "Pct Roofline_mean"),
                        fcell(u, i, "Kernel Time (\xc2\xb5s)_sum") / 1e3,
                        fcell(u, i, "operation_count"));
    }
    tlm_sbuf_putc(b, '\n');
    size_t i = cand[0];
    tlm_sbuf_puts(find_b, "- Least efficient heavy op: `");
    md_text(find_b, scell(u, i, "name"), 60);
    tlm_sbuf_printf(find_b,
                    "` runs at %.1f%% of its roofline (%s) over %.3f ms "
                    "of kernel time.\n",
                    fcell(u, i, "Pct Roofline_mean"),
                    scell(u, i, "Roofline Bound"),
                    fcell(u, i, "Kernel Time (\xc2\xb5s)_sum") / 1e3);
}

/* The findings from the timeline and the summary tables (GPU idle,
 * communication, memcpy, heaviest category and op, short kernels). */
static void basic_findings(const tlm_report *r, tlm_sbuf *fin)
{
    const tlm_gpu_timeline *g = &r->tl;
    double tot = g->total_us > 0 ? g->total_us : 1.0;

    tlm_sbuf_printf(fin,
                    "- GPU idle %.1f%% of the %.3f ms window (busy %.3f "
                    "ms).\n",
                    g->idle_us / tot * 100.0, g->total_us / 1e3,
                    g->busy_us / 1e3);
    if (g->total_comm_us > 0)
        tlm_sbuf_printf(fin,
                        "- Communication %.3f ms, of which %.3f ms "
                        "(%.1f%% of the window) is exposed (not hidden "
                        "behind compute).\n",
                        g->total_comm_us / 1e3, g->exposed_comm_us / 1e3,
                        g->exposed_comm_us / tot * 100.0);
    else
        tlm_sbuf_puts(fin, "- No communication kernels.\n");
    if (g->exposed_memcpy_us > 0.01 * tot)
        tlm_sbuf_printf(fin, "- Exposed memcpy %.1f%% of the window.\n",
                        g->exposed_memcpy_us / tot * 100.0);
    const tlm_tab *cat = find(r, "ops_summary_by_category");
    if (cat && cat->nrows)
        tlm_sbuf_printf(fin,
                        "- Largest op category: `%s`, %.1f%% of op kernel "
                        "time (%.0f ops).\n",
                        scell(cat, 0, "op category"),
                        fcell(cat, 0, "Percentage (%)"),
                        fcell(cat, 0, "Count"));
    const tlm_tab *ops = find(r, "ops_summary");
    if (ops && ops->nrows) {
        tlm_sbuf_puts(fin, "- Heaviest op: `");
        md_text(fin, scell(ops, 0, "name"), 60);
        tlm_sbuf_printf(fin, "`, %.1f%% of op kernel time.\n",
                        fcell(ops, 0, "Percentage (%)"));
    }
    const tlm_tab *sk = find(r, "short_kernel_histogram");
    if (sk) {
        double n = 0;
        for (size_t i = 0; i < sk->nrows; i++)
            n += fcell(sk, i, "count");
        tlm_sbuf_printf(fin, "- %.0f kernels shorter than the short-kernel "
                             "threshold (launch-bound candidates).\n",
                        n);
    }
}

/* The tables of the largest categories, ops, shapes, kernels and short
 * kernels, and what the roofline leaves out. */
static void top_tables(const tlm_report *r, tlm_sbuf *body)
{
    const tlm_tab *cat = find(r, "ops_summary_by_category");
    const tlm_tab *ops = find(r, "ops_summary");
    {
        const char *c[] = {"op category", "Count",
                           "total_direct_kernel_time_ms", "Percentage (%)"};
        const char *h[] = {"category", "ops", "kernel time (ms)", "%"};
        top_table(body, cat, "Op categories", c, h, 4, 20);
    }
    {
        const char *c[] = {"name", "Count", "total_direct_kernel_time_ms",
                           "Percentage (%)", "Cumulative Percentage (%)"};
        const char *h[] = {"op", "count", "kernel time (ms)", "%", "cum %"};
        top_table(body, ops, "Top ops", c, h, 5, 15);
    }
    {
        const char *c[] = {"name", "Input Dims", "Input type",
                           "operation_count", "total_direct_kernel_time_sum",
                           "total_direct_kernel_time_mean", "Percentage (%)"};
        const char *h[] = {"op", "input dims", "input types", "count",
                           "kernel time (us)", "mean (us)", "%"};
        top_table(body, find(r, "ops_unique_args"), "Top shapes", c, h, 7,
                  15);
    }
    {
        const char *c[] = {"Kernel name", "Parent cpu_op",
                           "Kernel duration (\xc2\xb5s)_count",
                           "Kernel duration (\xc2\xb5s)_sum",
                           "Kernel duration (\xc2\xb5s)_mean",
                           "Percent of kernels time (%)"};
        const char *h[] = {"kernel", "parent op", "count", "total (us)",
                           "mean (us)", "% of kernel time"};
        top_table(body, find(r, "kernel_summary"), "Top kernels", c, h, 6,
                  15);
    }
    {
        const char *c[] = {"Parent cpu_op", "Kernel name",
                           "Short Kernel count",
                           "Short Kernel duration (\xc2\xb5s) sum",
                           ("Short Kernel duration (\xc2\xb5s) percent of "
                            "total time")};
        const char *h[] = {"parent op", "kernel", "count", "total (us)",
                           "% of window"};
        top_table(body, find(r, "short_kernels_summary"), "Short kernels",
                  c, h, 5, 10);
    }
    { /* what the roofline leaves out (coverage.c) */
        tlm_coverage cov;
        if (tlm_report_coverage(r, &cov) == TLM_OK)
            tlm_coverage_md(&cov, 10, body);
        else
            body->oom = 1;
        tlm_coverage_free(&cov);
    }
}

/* How the call tree was built: its counts and warnings. */
static void tree_section(const tlm_report *r, tlm_sbuf *body)
{
    const tlm_tree_stats *s = &r->stats;
    tlm_sbuf_printf(body,
                    "## How the call tree was built\n\n"
                    "- %llu events, %llu host events in the stacks, %llu "
                    "cpu_op roots.\n"
                    "- %llu GPU operations, %llu linked to their launch "
                    "(%llu unlinked: launched before the capture window or "
                    "without flow events); %llu linked by correlation id "
                    "without a flow; %llu graph launches.\n"
                    "- Warnings: %llu host events dropped by the bleed rule, "
                    "%llu made siblings by it, %llu flows whose target is "
                    "not a GPU event, %llu incomplete flow pairs, %llu GPU "
                    "events claimed twice, %llu events without a valid "
                    "ts/dur (left out).\n\n",
                    (unsigned long long)s->n_events,
                    (unsigned long long)s->n_host,
                    (unsigned long long)s->n_cpu_roots,
                    (unsigned long long)s->n_gpu,
                    (unsigned long long)s->n_gpu_linked,
                    (unsigned long long)s->n_gpu_unlinked,
                    (unsigned long long)s->n_corr_fallback,
                    (unsigned long long)s->n_graph_launches,
                    (unsigned long long)s->n_bleed_drop,
                    (unsigned long long)s->n_bleed_sibling,
                    (unsigned long long)s->n_flow_bad_target,
                    (unsigned long long)s->n_flow_half,
                    (unsigned long long)s->n_gpu_dup_link,
                    (unsigned long long)s->n_no_time);
}

/* Renders report.md into the file tmp (messages name path). */
tlm_status tlm_report_md_to(const tlm_report *r, const char *path,
                            const char *tmp, tlm_error *err)
{
    tlm_sbuf b, body, fin;
    tlm_sbuf_init(&b);
    tlm_sbuf_init(&body);
    tlm_sbuf_init(&fin);

    basic_findings(r, &fin);
    timeline_section(r, &body);
    roofline_findings(r, &body, &fin);
    top_tables(r, &body);
    tree_section(r, &body);

    tlm_sbuf_puts(&b, "# Performance report: ");
    md_text(&b, r->label, 200);
    tlm_sbuf_puts(&b, "\n\nUnits: times in ms unless marked; bandwidth "
                      "GB/s = 10^9 B/s.  Tables: the CSV files beside this "
                      "page keep TraceLens's names, columns and units "
                      "(\"MB\" there is MiB; see docs/report.md).\n\n");
    gpu_line(r, &b);
    tlm_sbuf_puts(&b, "## Findings\n\n");
    if (r->findings_md) /* the findings engine's section (src/find) */
        tlm_sbuf_puts(&b, r->findings_md);
    else
        tlm_sbuf_putn(&b, fin.p ? fin.p : "", fin.len);
    tlm_sbuf_putc(&b, '\n');
    tlm_sbuf_putn(&b, body.p ? body.p : "", body.len);
    tlm_status st = TLM_OK;
    if (b.oom || body.oom || fin.oom) {
        st = tlm_error_set(err, TLM_ENOMEM, path, -1,
                           "report.md: out of memory");
    } else {
        FILE *f = fopen(tmp, "wb");
        if (!f) {
            st = tlm_error_set(err, TLM_EIO, path, -1, "cannot create: %s",
                               strerror(errno));
        } else {
            size_t w = fwrite(b.p, 1, b.len, f);
            int e = w != b.len ? errno : 0;
            if (fclose(f) != 0 && !e)
                e = errno;
            if (e || w != b.len)
                st = tlm_error_set(err, TLM_EIO, path, -1,
                                   "write failed: %s",
                                   strerror(e ? e : EIO));
            if (st != TLM_OK)
                remove(tmp);
        }
    }
    tlm_sbuf_free(&b);
    tlm_sbuf_free(&body);
    tlm_sbuf_free(&fin);
    return st;
}
