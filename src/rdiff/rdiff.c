/*
 * rdiff.c - the TraceDiff enrichment of a report (rdiff.h): the diff_stats
 * sheet and the comparison columns of unified_perf_summary.
 *
 * TraceLens (tracediff_comparison_extension.py): the diff_stats rows with
 * an LCA; trace-1 rows grouped by LCA id ascending; per LCA its totals
 * (the first busy_time of each side, 0 without trace-2 rows) and whether
 * trace 2 has rows there; each trace-1 row's gpu_op_uid names the summary
 * row of the op that launched it, and every (summary row, LCA) pair is
 * added once: ids and names "; "-joined, totals summed, lca_count_trace2
 * the number of those LCAs with trace-2 rows.  speedup = LCA trace-2
 * total / LCA trace-1 total (NaN at 0); delta = LCA trace-2 total - the
 * row's own Kernel Time (µs)_sum (TraceLens's mix of scopes).
 */
#include "rdiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"

#include "sbuf.h"
#include "sortutil.h"

#define KT_SUM "Kernel Time (\xc2\xb5s)_sum"

const char *const tlm_rdiff_cols[TLM_RDIFF_NCOLS] = {
    "speedup (trace2/trace1)", "delta_us (trace2 - trace1)",
    "lca_count_trace2", "lca_id", "lca_name",
    "lca_total_kernel_time_trace1_us", "lca_total_kernel_time_trace2_us"};

/* What one summary row gathers. */
typedef struct rmeta {
    int has;
    int32_t last_lca; /* the "once per (row, LCA)" stamp */
    double t1, t2, count;
    tlm_sbuf ids, names;
    int nnames;
} rmeta;

/* Per LCA id: the first busy_time of each side and the row count. */
typedef struct lca_tot {
    double first[2];
    size_t n[2];
} lca_tot;

static int cmp_by_lca(const void *ud, size_t a, size_t b)
{
    const int32_t *lca = ud;
    int32_t x = lca[a], y = lca[b];
    return x < y ? -1 : x > y;
}

/* ---- the diff_stats sheet -------------------------------------------- */

static int is_num_col(int c)
{
    return c == 2 || c == 8 || c == 9 || c == 11 || c == 12;
}

/* I64 when every non-empty cell of column c is an integer, else F64. */
static tlm_status col_type(tlm_diff *d, int c, int ident, tlm_coltype *ty)
{
    *ty = TLM_COL_I64;
    for (size_t i = 0; i < tlm_diff_row_count(d); i++) {
        tlm_diff_row dr;
        tlm_diff_row_get(d, i, &dr);
        if (ident && dr.side)
            continue;
        const char *t;
        size_t n;
        tlm_status st = tlm_diff_stats_cell(d, i, c, &t, &n);
        if (st != TLM_OK)
            return st;
        if (n && strspn(t, "-0123456789") != n)
            *ty = TLM_COL_F64;
    }
    return TLM_OK;
}

static tlm_status stats_sheet(tlm_diff *d, tlm_tab **out)
{
    int ident = tlm_diff_stats_get(d)->identical;
    const char *names[TLM_DIFF_STATS_NCOLS];
    tlm_coltype ty[TLM_DIFF_STATS_NCOLS];
    int src[TLM_DIFF_STATS_NCOLS];
    size_t nc = 0;
    tlm_status st = TLM_OK;
    for (int c = 0; c < TLM_DIFF_STATS_NCOLS && st == TLM_OK; c++) {
        if (ident && c == 3) /* source: dropped for identical traces */
            continue;
        names[nc] = tlm_diff_stats_colname(c);
        ty[nc] = TLM_COL_STR;
        if (is_num_col(c))
            st = col_type(d, c, ident, &ty[nc]);
        src[nc++] = c;
    }
    tlm_tab *t = st == TLM_OK ? tlm_tab_new("diff_stats", nc, names, ty)
                              : NULL;
    if (!t)
        return st == TLM_OK ? TLM_ENOMEM : st;
    for (size_t i = 0; i < tlm_diff_row_count(d) && st == TLM_OK; i++) {
        tlm_diff_row dr;
        tlm_diff_row_get(d, i, &dr);
        if (ident && dr.side)
            continue;
        long R = tlm_tab_add_row(t);
        if (R < 0)
            st = TLM_ENOMEM;
        for (size_t j = 0; j < nc && st == TLM_OK; j++) {
            const char *x;
            size_t n;
            st = tlm_diff_stats_cell(d, i, src[j], &x, &n);
            if (st != TLM_OK || !n)
                continue;
            if (ty[j] == TLM_COL_I64)
                tlm_tab_set_i(t, (size_t)R, j, strtoll(x, NULL, 10));
            else if (ty[j] == TLM_COL_F64)
                tlm_tab_set_f(t, (size_t)R, j, strtod(x, NULL));
            else
                tlm_tab_set_s(t, (size_t)R, j, x, n);
        }
    }
    if (st == TLM_OK && t->oom)
        st = TLM_ENOMEM;
    if (st != TLM_OK) {
        tlm_tab_free(t);
        return st;
    }
    *out = t;
    return TLM_OK;
}

/* ---- the comparison columns ------------------------------------------- */

/* Totals per LCA id (ids < nl). */
static void lca_totals(const tlm_diff *d, lca_tot *tot, size_t nl)
{
    for (size_t i = 0; i < tlm_diff_row_count(d); i++) {
        tlm_diff_row r;
        tlm_diff_row_get(d, i, &r);
        if (r.lca_id < 0 || (size_t)r.lca_id >= nl)
            continue;
        lca_tot *x = &tot[r.lca_id];
        if (!x->n[r.side]++)
            x->first[r.side] = r.busy_time;
    }
}

/* Adds LCA `lca` to summary row m (once). */
static void add_lca(rmeta *m, int32_t lca, const lca_tot *x,
                    const tlm_diff_row *r, int lca_float)
{
    if (m->has && m->last_lca == lca)
        return;
    if (m->has)
        tlm_sbuf_puts(&m->ids, "; ");
    tlm_sbuf_printf(&m->ids, lca_float ? "%ld.0" : "%ld", (long)lca);
    if (r->lca_name_len) {
        if (m->nnames++)
            tlm_sbuf_puts(&m->names, "; ");
        tlm_sbuf_putn(&m->names, r->lca_name, r->lca_name_len);
    }
    m->t1 += x->first[0];
    m->t2 += x->n[1] ? x->first[1] : 0.0;
    m->count += x->n[1] ? 1.0 : 0.0;
    m->has = 1;
    m->last_lca = lca;
}

/* Fills meta from the trace-1 rows, LCA by LCA (ascending ids). */
static tlm_status gather(const tlm_diff *d, const tlm_tab *u, rmeta *meta,
                         int *any)
{
    size_t nd = tlm_diff_row_count(d), nl = 0, nk = 0;
    int lca_float = 0;
    for (size_t i = 0; i < nd; i++) {
        tlm_diff_row r;
        tlm_diff_row_get(d, i, &r);
        lca_float |= r.lca_id < 0;
        if (r.lca_id >= 0 && (size_t)r.lca_id + 1 > nl)
            nl = (size_t)r.lca_id + 1;
    }
    lca_tot *tot = calloc(nl + 1, sizeof *tot);
    int32_t *lca = malloc((nd + 1) * sizeof *lca);
    size_t *ix = malloc((nd + 1) * sizeof *ix);
    if (!tot || !lca || !ix) {
        free(tot);
        free(lca);
        free(ix);
        return TLM_ENOMEM;
    }
    lca_totals(d, tot, nl);
    for (size_t i = 0; i < nd; i++) {
        tlm_diff_row r;
        tlm_diff_row_get(d, i, &r);
        lca[i] = r.lca_id;
        if (r.lca_id >= 0 && r.side == 0)
            ix[nk++] = i;
    }
    tlm_status st = tlm_sort_idx(ix, nk, cmp_by_lca, lca);
    for (size_t k = 0; k < nk && st == TLM_OK; k++) {
        tlm_diff_row r;
        tlm_diff_row_get(d, ix[k], &r);
        if (r.gpu_uid < 0 || (size_t)r.gpu_uid >= u->n_gpu_row)
            continue;
        int32_t R = u->gpu_row[r.gpu_uid];
        if (R < 0 || (size_t)R >= u->nrows)
            continue;
        add_lca(&meta[R], r.lca_id, &tot[r.lca_id], &r, lca_float);
        if (meta[R].ids.oom || meta[R].names.oom)
            st = TLM_ENOMEM;
        *any = 1;
    }
    free(tot);
    free(lca);
    free(ix);
    return st;
}

static double cell_num(const tlm_tab *t, size_t r, size_t c)
{
    const tlm_cell *x = tlm_tab_cell(t, r, c);
    if (x->null)
        return NAN;
    return t->coltypes[c] == TLM_COL_I64 ? (double)x->v.i : x->v.f;
}

static void fill_row(tlm_tab *u, size_t R, size_t at, const rmeta *m)
{
    if (!m->has)
        return;
    double ks = cell_num(u, R, at - 1);
    tlm_tab_set_f(u, R, at, m->t1 != 0.0 ? m->t2 / m->t1 : NAN);
    tlm_tab_set_f(u, R, at + 1, m->t2 - ks);
    tlm_tab_set_f(u, R, at + 2, m->count);
    tlm_tab_set_s(u, R, at + 3, m->ids.p ? m->ids.p : "", m->ids.len);
    tlm_tab_set_s(u, R, at + 4, m->names.p ? m->names.p : "", m->names.len);
    tlm_tab_set_f(u, R, at + 5, m->t1);
    tlm_tab_set_f(u, R, at + 6, m->t2);
}

static tlm_status enrich_unified(tlm_tab *u, const tlm_diff *d)
{
    long kc = tlm_tab_col(u, KT_SUM);
    if (kc < 0 || !u->gpu_row || !u->nrows)
        return TLM_OK;
    rmeta *meta = calloc(u->nrows, sizeof *meta);
    if (!meta)
        return TLM_ENOMEM;
    for (size_t R = 0; R < u->nrows; R++) {
        tlm_sbuf_init(&meta[R].ids);
        tlm_sbuf_init(&meta[R].names);
    }
    int any = 0;
    tlm_status st = gather(d, u, meta, &any);
    if (st == TLM_OK && any) {
        static const tlm_coltype ty[TLM_RDIFF_NCOLS] = {
            TLM_COL_F64, TLM_COL_F64, TLM_COL_F64, TLM_COL_STR,
            TLM_COL_STR, TLM_COL_F64, TLM_COL_F64};
        size_t at = (size_t)kc + 1;
        st = tlm_tab_insert_cols(u, at, TLM_RDIFF_NCOLS, tlm_rdiff_cols, ty);
        for (size_t R = 0; R < u->nrows && st == TLM_OK; R++)
            fill_row(u, R, at, &meta[R]);
        if (st == TLM_OK && u->oom)
            st = TLM_ENOMEM;
    }
    for (size_t R = 0; R < u->nrows; R++) {
        tlm_sbuf_free(&meta[R].ids);
        tlm_sbuf_free(&meta[R].names);
    }
    free(meta);
    return st;
}

/* Where diff_stats goes: after unified_perf_summary (TraceLens's order),
 * else after the op tables, else after the timeline. */
static size_t sheet_pos(const tlm_report *r)
{
    static const char *const after[] = {"unified_perf_summary",
                                        "ops_unique_args", "gpu_timeline"};
    for (size_t k = 0; k < sizeof after / sizeof *after; k++) {
        long i = tlm_report_table_find(r, after[k]);
        if (i >= 0)
            return (size_t)i + 1;
    }
    return 0;
}

tlm_status tlm_rdiff_enrich(tlm_report *r, tlm_diff *d, tlm_error *err)
{
    if (!tlm_diff_row_count(d))
        return TLM_OK;
    tlm_status st = TLM_OK;
    long ui = tlm_report_table_find(r, "unified_perf_summary");
    if (ui >= 0)
        st = enrich_unified(tlm_report_tab_mut(r, (size_t)ui), d);
    tlm_tab *t = NULL;
    if (st == TLM_OK)
        st = stats_sheet(d, &t);
    if (st == TLM_OK)
        st = tlm_report_insert_tab(r, sheet_pos(r), t);
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1,
                             "--comparison_json_path: out of memory while "
                             "adding the TraceDiff comparison");
    return TLM_OK;
}
