/*
 * cmp_md.c - the comparison's Markdown story (comparison.md, before the
 * findings the command appends): the reports and their tags, the GPU
 * timeline of each against the baseline, and the ops whose GPU time
 * changed most (ops_summary), largest absolute change first.  And the
 * spreadsheet-formula guard of the CSV and workbook cells.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"
#include "sbuf.h"

#define TOP_OPS 15

static const tlm_tab *find_out(const tlm_cmp_result *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->v[i].t->name, name))
            return r->v[i].t;
    return NULL;
}

/* Number in column `<tag>::<col>` (or col itself when tag is NULL). */
static int num_at(const tlm_tab *t, size_t row, const char *tag,
                  const char *col, double *v)
{
    char name[512];
    if (tag)
        snprintf(name, sizeof name, "%s::%s", tag, col);
    else
        snprintf(name, sizeof name, "%s", col);
    long c = tlm_tab_col(t, name);
    *v = NAN;
    return c >= 0 && tlm_tab_num(t, row, (size_t)c, v);
}

/* The number of num_at(t, row, tag, col), or "-". */
static void put_num(tlm_sbuf *b, const tlm_tab *t, size_t row,
                    const char *tag, const char *col, const char *fmt)
{
    double v;
    if (num_at(t, row, tag, col, &v))
        tlm_sbuf_printf(b, fmt, v);
    else
        tlm_sbuf_puts(b, "-");
}

/* Cell (row, col) of t, of any type, escaped (empty when missing). */
static void put_cell(tlm_sbuf *b, const tlm_tab *t, size_t row, size_t col,
                     size_t maxlen)
{
    tlm_sbuf s;
    tlm_sbuf_init(&s);
    if (!tlm_tab_cell(t, row, col)->null)
        tlm_tab_cell_text(t, row, col, &s);
    if (s.oom)
        b->oom = 1;
    tlm_sbuf_md(b, s.len ? s.p : "", maxlen, TLM_MD_TEXT);
    tlm_sbuf_free(&s);
}

static void inputs(const tlm_cmp_md_in *in, tlm_sbuf *b)
{
    tlm_sbuf_puts(b, "| tag | role | report |\n|---|---|---|\n");
    for (size_t i = 0; i < in->n; i++) {
        tlm_sbuf_puts(b, "| ");
        tlm_sbuf_md(b, in->tags[i], 128, TLM_MD_TEXT);
        tlm_sbuf_puts(b, i ? " | variant | " : " | baseline | ");
        tlm_sbuf_md(b, tlm_rsrc_path(in->reps[i]), 512, TLM_MD_TEXT);
        tlm_sbuf_puts(b, " |\n");
    }
    tlm_sbuf_putc(b, '\n');
}

static void timeline(const tlm_cmp_md_in *in, tlm_sbuf *b)
{
    const tlm_tab *t = find_out(in->res, "gpu_timeline");
    long ty = t ? tlm_tab_col(t, "type") : -1;
    if (ty < 0)
        return;
    tlm_sbuf_puts(b, "## GPU timeline (ms)\n\n| type | ");
    tlm_sbuf_md(b, in->tags[0], 128, TLM_MD_TEXT);
    for (size_t v = 1; v < in->n; v++) {
        tlm_sbuf_puts(b, " | ");
        tlm_sbuf_md(b, in->tags[v], 128, TLM_MD_TEXT);
        tlm_sbuf_puts(b, " | diff | %");
    }
    tlm_sbuf_puts(b, " |\n|---|---:");
    for (size_t v = 1; v < in->n; v++)
        tlm_sbuf_puts(b, "|---:|---:|---:");
    tlm_sbuf_puts(b, "|\n");
    for (size_t r = 0; r < t->nrows; r++) {
        tlm_sbuf_puts(b, "| ");
        put_cell(b, t, r, (size_t)ty, 64);
        tlm_sbuf_puts(b, " | ");
        put_num(b, t, r, in->tags[0], "time ms", "%.3f");
        for (size_t v = 1; v < in->n; v++) {
            char d[300], p[300];
            snprintf(d, sizeof d, "time ms__%s_diff", in->tags[v]);
            snprintf(p, sizeof p, "time ms__%s_pct", in->tags[v]);
            tlm_sbuf_puts(b, " | ");
            put_num(b, t, r, in->tags[v], "time ms", "%.3f");
            tlm_sbuf_puts(b, " | ");
            put_num(b, t, r, NULL, d, "%+.3f");
            tlm_sbuf_puts(b, " | ");
            put_num(b, t, r, NULL, p, "%+.1f");
        }
        tlm_sbuf_puts(b, " |\n");
    }
    tlm_sbuf_putc(b, '\n');
}

typedef struct delta {
    size_t row;
    double d;
} delta;

static int by_abs_desc(const void *a, const void *b)
{
    double x = fabs(((const delta *)a)->d), y = fabs(((const delta *)b)->d);
    if (x != y)
        return x < y ? 1 : -1;
    size_t i = ((const delta *)a)->row, j = ((const delta *)b)->row;
    return (i > j) - (i < j);
}

/* The ops of ops_summary whose GPU time changed most for variant v. */
static void top_ops(const tlm_cmp_md_in *in, size_t v, tlm_sbuf *b)
{
    const tlm_tab *t = find_out(in->res, "ops_summary");
    long nm = t ? tlm_tab_col(t, "name") : -1;
    if (nm < 0)
        return;
    char dn[300];
    snprintf(dn, sizeof dn, "total_direct_kernel_time_ms__%s_diff",
             in->tags[v]);
    delta *d = malloc((t->nrows ? t->nrows : 1) * sizeof *d);
    size_t k = 0;
    for (size_t r = 0; d && r < t->nrows; r++) {
        double x, a, c;
        int ha = num_at(t, r, in->tags[0], "total_direct_kernel_time_ms", &a);
        int hc = num_at(t, r, in->tags[v], "total_direct_kernel_time_ms", &c);
        if (num_at(t, r, NULL, dn, &x))
            d[k++] = (delta){r, x};
        else if (ha != hc) /* on one side only */
            d[k++] = (delta){r, ha ? -a : c};
    }
    if (!d)
        return;
    qsort(d, k, sizeof *d, by_abs_desc);
    tlm_sbuf_puts(b, "## Ops whose GPU time changed most: ");
    tlm_sbuf_md(b, in->tags[v], 128, TLM_MD_TEXT);
    tlm_sbuf_puts(b, " vs ");
    tlm_sbuf_md(b, in->tags[0], 128, TLM_MD_TEXT);
    tlm_sbuf_puts(b, "\n\n| op | baseline ms | variant ms | diff ms | % |\n"
                     "|---|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < k && i < TOP_OPS; i++) {
        size_t r = d[i].row;
        char pn[300];
        snprintf(pn, sizeof pn, "total_direct_kernel_time_ms__%s_pct",
                 in->tags[v]);
        tlm_sbuf_puts(b, "| ");
        put_cell(b, t, r, (size_t)nm, 120);
        tlm_sbuf_puts(b, " | ");
        put_num(b, t, r, in->tags[0], "total_direct_kernel_time_ms", "%.3f");
        tlm_sbuf_puts(b, " | ");
        put_num(b, t, r, in->tags[v], "total_direct_kernel_time_ms", "%.3f");
        tlm_sbuf_printf(b, " | %+.3f | ", d[i].d);
        put_num(b, t, r, NULL, pn, "%+.1f");
        tlm_sbuf_puts(b, " |\n");
    }
    if (!k)
        tlm_sbuf_puts(b, "| (no op) | | | | |\n");
    tlm_sbuf_putc(b, '\n');
    free(d);
}

void tlm_cmp_md(const tlm_cmp_md_in *in, tlm_sbuf *b)
{
    tlm_sbuf_puts(b, "# Comparison\n\n");
    tlm_sbuf_puts(b, "Differences are variant minus baseline; % is 100 * "
                     "diff / baseline (positive: the variant takes "
                     "longer).\n\n");
    inputs(in, b);
    timeline(in, b);
    for (size_t v = 1; v < in->n; v++)
        top_ops(in, v, b);
    tlm_sbuf_puts(b, "## Sheets\n\n| sheet | rows | columns |\n"
                     "|---|---:|---:|\n");
    for (size_t i = 0; i < in->res->n; i++) {
        const tlm_tab *t = in->res->v[i].t;
        tlm_sbuf_puts(b, "| ");
        tlm_sbuf_md(b, t->name, 200, TLM_MD_TEXT);
        tlm_sbuf_printf(b, " | %zu | %zu |\n", t->nrows, t->ncols);
    }
    tlm_sbuf_putc(b, '\n');
    for (size_t i = 0; i < in->res->nnotes; i++) {
        tlm_sbuf_puts(b, i ? "- " : "Notes:\n\n- ");
        tlm_sbuf_md(b, in->res->notes[i], 600, TLM_MD_TEXT);
        tlm_sbuf_puts(b, i + 1 == in->res->nnotes ? "\n\n" : "\n");
    }
}

/* MARK: - formulas ------------------------------------------------------- */

/* The one formula rule (util/sbuf.h). */
static int formula_like(const char *s)
{
    return tlm_formula_like(s);
}

/* A column name (a tag or a report's header) guarded as a cell is. */
static int guard_name(char **name)
{
    if (!formula_like(*name))
        return 0;
    size_t n = strlen(*name);
    char *p = malloc(n + 2);
    if (!p)
        return -1;
    p[0] = '\'';
    memcpy(p + 1, *name, n + 1);
    free(*name);
    *name = p;
    return 0;
}

tlm_status tlm_cmp_guard_formulas(tlm_cmp_result *r, tlm_error *err)
{
    for (size_t i = 0; i < r->n; i++) {
        tlm_tab *t = r->v[i].t;
        for (size_t c = 0; c < t->ncols; c++)
            if (guard_name(&t->colnames[c]) != 0)
                return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                     "out of memory");
        for (size_t c = 0; c < t->ncols; c++) {
            if (t->coltypes[c] != TLM_COL_STR)
                continue;
            for (size_t row = 0; row < t->nrows; row++) {
                tlm_cell *x = tlm_tab_cell(t, row, c);
                if (x->null || !formula_like(x->v.s))
                    continue;
                size_t n = strlen(x->v.s);
                char *p = malloc(n + 2);
                if (!p)
                    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                         "out of memory");
                p[0] = '\'';
                memcpy(p + 1, x->v.s, n + 1);
                tlm_tab_set_s(t, row, c, p, n + 1);
                free(p);
                if (t->oom)
                    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                         "out of memory");
            }
        }
    }
    return TLM_OK;
}
