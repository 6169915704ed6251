/*
 * coverage.c - the ops of unified_perf_summary without a perf model, by
 * name (count and kernel time), and report.md's section about them
 * (docs/report.md, "Perf-model coverage").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "report_internal.h"

static double num(const tlm_tab *t, size_t row, long c)
{
    if (c < 0)
        return 0;
    const tlm_cell *x = tlm_tab_cell(t, row, (size_t)c);
    if (x->null)
        return 0;
    if (t->coltypes[c] == TLM_COL_F64)
        return isnan(x->v.f) ? 0 : x->v.f;
    return (double)x->v.i;
}

static int by_time(const void *a, const void *b)
{
    const tlm_cov_op *x = a, *y = b;
    if (x->time_us != y->time_us)
        return x->time_us < y->time_us ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
    const tlm_cov_op *x = a, *y = b;
    return strcmp(x->name, y->name);
}

/* Adds the rows' entries of the same name together (v sorted by name). */
static size_t merge_names(tlm_cov_op *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && !strcmp(v[k - 1].name, v[i].name)) {
            v[k - 1].count += v[i].count;
            v[k - 1].time_us += v[i].time_us;
        } else {
            v[k++] = v[i];
        }
    }
    return k;
}

tlm_status tlm_report_coverage(const tlm_report *r, tlm_coverage *c)
{
    memset(c, 0, sizeof *c);
    const tlm_tab *t = NULL;
    for (size_t i = 0; tlm_report_tab(r, i); i++)
        if (!strcmp(tlm_report_tab(r, i)->name, "unified_perf_summary"))
            t = tlm_report_tab(r, i);
    if (!t)
        return TLM_OK;
    long cn = tlm_tab_col(t, "name"), cm = tlm_tab_col(t, "has_perf_model");
    long ct = tlm_tab_col(t, "Kernel Time (\xc2\xb5s)_sum");
    long cc = tlm_tab_col(t, "operation_count");
    if (cn < 0 || cm < 0 || ct < 0 || t->coltypes[cn] != TLM_COL_STR)
        return TLM_OK;
    c->available = 1;
    c->nofig_count = r->n_out_of_range;
    c->v = malloc((t->nrows ? t->nrows : 1) * sizeof *c->v);
    if (!c->v)
        return TLM_ENOMEM;
    for (size_t i = 0; i < t->nrows; i++) {
        double us = num(t, i, ct), k = cc >= 0 ? num(t, i, cc) : 1;
        c->all_us += us;
        c->all_count += k;
        const tlm_cell *m = tlm_tab_cell(t, i, (size_t)cm);
        if (!m->null && m->v.i)
            continue;
        const tlm_cell *nm = tlm_tab_cell(t, i, (size_t)cn);
        c->none_us += us;
        c->none_count += k;
        c->v[c->n].name = nm->null || !nm->v.s ? "" : nm->v.s;
        c->v[c->n].count = k;
        c->v[c->n].time_us = us;
        c->n++;
    }
    qsort(c->v, c->n, sizeof *c->v, by_name);
    c->n = merge_names(c->v, c->n);
    qsort(c->v, c->n, sizeof *c->v, by_time);
    return TLM_OK;
}

void tlm_coverage_free(tlm_coverage *c)
{
    free(c->v);
    memset(c, 0, sizeof *c);
}

void tlm_coverage_md(const tlm_coverage *c, size_t top, tlm_sbuf *b)
{
    tlm_sbuf_puts(b, "## Perf-model coverage\n\n");
    if (!c->available) {
        tlm_sbuf_puts(b, "No unified_perf_summary (no CPU ops in the "
                         "trace): no op has a perf model.\n\n");
        return;
    }
    double all = c->all_us > 0 ? c->all_us : 1.0;
    if (c->nofig_count > 0)
        tlm_sbuf_printf(b, "%.0f ops have a perf model but no figures: "
                           "their dims are out of range (negative, or "
                           "FLOPs or bytes past 2^63).\n\n",
                        c->nofig_count);
    if (!c->n) {
        tlm_sbuf_printf(b, "Every op with GPU time has a perf model "
                           "(%.0f ops, %.3f ms): the roofline columns "
                           "cover all of it.\n\n",
                        c->all_count, c->all_us / 1e3);
        return;
    }
    tlm_sbuf_printf(b,
                    "%zu op names (%.0f of %.0f ops) have no perf model: "
                    "%.3f ms, %.1f%% of the %.3f ms of op kernel time in "
                    "unified_perf_summary, is outside the roofline "
                    "columns (GFLOPS, TB/s, Pct Roofline).\n\n"
                    "| op without a perf model | kernel time (ms) | %% of op "
                    "kernel time | count |\n|---|---|---|---|\n",
                    c->n, c->none_count, c->all_count, c->none_us / 1e3,
                    c->none_us / all * 100.0, c->all_us / 1e3);
    size_t k = c->n < top ? c->n : top;
    for (size_t i = 0; i < k; i++) {
        tlm_sbuf_puts(b, "| ");
        tlm_sbuf_md(b, c->v[i].name, 80, TLM_MD_CELL);
        tlm_sbuf_printf(b, " | %.3f | %.1f | %.0f |\n",
                        c->v[i].time_us / 1e3,
                        c->v[i].time_us / all * 100.0, c->v[i].count);
    }
    if (c->n > k) {
        double us = 0, n = 0;
        for (size_t i = k; i < c->n; i++) {
            us += c->v[i].time_us;
            n += c->v[i].count;
        }
        tlm_sbuf_printf(b, "| (%zu more) | %.3f | %.1f | %.0f |\n",
                        c->n - k, us / 1e3, us / all * 100.0, n);
    }
    tlm_sbuf_printf(b, "| **total without a model** | %.3f | %.1f | %.0f "
                       "|\n\n",
                    c->none_us / 1e3, c->none_us / all * 100.0,
                    c->none_count);
}
