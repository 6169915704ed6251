/*
 * hta_cpath_out.c - the critical path's two HTA tables (spec/hta.md §9,
 * §10): critical_path_summary (duration, edges and share per bound_by,
 * plus `total`) and critical_path_edges (one row per path edge with its
 * attributed event), built by tlm_hta_build_critical_path for the rank
 * --hta_rank picks.  No window, no graph HTA would accept: no tables and
 * a one-line notes.cp_reason.
 */
#include "hta_cpath.h"
#include "hta_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tlm_hta_col summary_cols[] = {
    {"bound_by", TLM_HTA_STR, "", NULL},
    {"duration", TLM_HTA_F64, "us", NULL},
    {"edges", TLM_HTA_I64, "", NULL},
    {"duration_pctg", TLM_HTA_F64, "%", NULL},
};
const tlm_hta_tdef tlm_hta_def_cp_summary = {
    "critical_path_summary",
    "HTA critical path of the --hta_rank rank in its --hta_critical_path "
    "window (spec/hta.md §9): per bound_by the summed edge weights on the "
    "path (us), their count and share, and the total; edge weights <= -1 "
    "us count 0 in the path search but their own weight here (Q10)",
    summary_cols, sizeof summary_cols / sizeof summary_cols[0], 0, 1};

static const tlm_hta_col edge_cols[] = {
    {"event_idx", TLM_HTA_F64, "", NULL}, {"type", TLM_HTA_STR, "", NULL},
    {"duration", TLM_HTA_F64, "us", NULL}, {"bound_by", TLM_HTA_STR, "", NULL},
    {"s_name", TLM_HTA_STR, "", NULL},    {"cat", TLM_HTA_STR, "", NULL},
    {"pid", TLM_HTA_STR, "", NULL},       {"tid", TLM_HTA_STR, "", NULL},
    {"stream", TLM_HTA_F64, "", NULL},
};
const tlm_hta_tdef tlm_hta_def_cp_edges = {
    "critical_path_edges",
    "HTA critical path edges of the --hta_rank rank in path order "
    "(spec/hta.md §9): the attributed event (traceEvents index; empty "
    "when none: dependency, sync and launch-delay edges), edge type, "
    "weight (us), bound_by, HTA's shortened name, category, pid, tid, "
    "stream",
    edge_cols, sizeof edge_cols / sizeof edge_cols[0], 0, 1};

/* ---------------------------------------------------------------- MARK: -
 * summary */

static tlm_status summary(tlm_hta_table *t, const tlm_hta_cpath *cp)
{
    double total = (double)cp->total_ns / 1000.0;
    for (int b = 0; b <= TLM_CP_BOUND_COUNT; b++) {
        int is_total = b == TLM_CP_BOUND_COUNT;
        if (!is_total && cp->bound_edges[b] == 0)
            continue;
        size_t row;
        tlm_status st = tlm_hta_row_add(t, &row);
        const char *name = is_total ? "total" : tlm_cp_bound_name(b);
        if (st == TLM_OK)
            st = tlm_hta_set_str(t, row, 0, name, strlen(name));
        if (st != TLM_OK)
            return st;
        double d = is_total ? total : (double)cp->bound_ns[b] / 1000.0;
        tlm_hta_set_f64(t, row, 1, d);
        tlm_hta_set_i64(t, row, 2,
                        (int64_t)(is_total ? cp->n : cp->bound_edges[b]));
        tlm_hta_set_f64(t, row, 3, total != 0 ? d / total * 100.0 : NAN);
    }
    return TLM_OK;
}

/* ---------------------------------------------------------------- MARK: -
 * edges */

static tlm_status set_id(tlm_hta_table *t, size_t row, size_t col,
                         const tlm_trace *tr, int64_t v, int is_str)
{
    char buf[32];
    if (is_str) {
        size_t len = 0;
        const char *s = tlm_trace_str(tr, (uint32_t)v, &len);
        return tlm_hta_set_str(t, row, col, s ? s : "", s ? len : 0);
    }
    int n = snprintf(buf, sizeof buf, "%" PRId64, v);
    return tlm_hta_set_str(t, row, col, buf, (size_t)n);
}

static tlm_status event_cells(tlm_hta_table *t, size_t row,
                              const tlm_hta_events *ev, const tlm_hta_ev *e)
{
    const tlm_trace *tr = ev->trace;
    size_t len = 0, clen = 0;
    const char *nm = tlm_trace_str(tr, e->name, &len);
    const char *cat = tlm_trace_str(tr, e->cat_str, &clen);
    char *sn = malloc(len + 1);
    if (!sn)
        return TLM_ENOMEM;
    size_t sl = tlm_hta_shorten_name(nm ? nm : "", nm ? len : 0, sn);
    tlm_hta_set_f64(t, row, 0, (double)e->index);
    tlm_status st = tlm_hta_set_str(t, row, 4, sn, sl);
    free(sn);
    if (st == TLM_OK)
        st = tlm_hta_set_str(t, row, 5, cat ? cat : "", cat ? clen : 0);
    if (st == TLM_OK)
        st = set_id(t, row, 6, tr, e->pid, e->pid_str);
    if (st == TLM_OK)
        st = set_id(t, row, 7, tr, e->tid, e->tid_str);
    tlm_hta_set_f64(t, row, 8, (double)e->stream);
    return st;
}

static tlm_status edges(tlm_hta_table *t, const tlm_hta_events *ev,
                        const tlm_hta_cpath *cp)
{
    for (size_t i = 0; i < cp->n; i++) {
        const tlm_hta_cp_row *r = &cp->rows[i];
        size_t row;
        tlm_status st = tlm_hta_row_add(t, &row);
        const char *ty = tlm_cp_type_name(r->type);
        const char *b = tlm_cp_bound_name(r->bound);
        if (st == TLM_OK)
            st = tlm_hta_set_str(t, row, 1, ty, strlen(ty));
        if (st == TLM_OK)
            st = tlm_hta_set_str(t, row, 3, b, strlen(b));
        tlm_hta_set_f64(t, row, 2, (double)r->dur_ns / 1000.0);
        if (st == TLM_OK && r->row >= 0)
            st = event_cells(t, row, ev, &ev->ev[r->row]);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

tlm_status tlm_hta_build_critical_path(const tlm_hta_events *ev,
                                       const tlm_hta_opts *o,
                                       tlm_hta_result *r, tlm_error *err)
{
    const char *ann = o->cp_annotation;
    tlm_hta_cp_opts co = {ann, strlen(ann), o->cp_first, o->cp_last};
    tlm_hta_cpath cp;
    tlm_status st = tlm_hta_critical_path(ev, &co, &cp, err);
    if (st != TLM_OK)
        return st;
    r->notes.n_cp_neg_edges = cp.n_neg_weight;
    r->notes.n_cp_neg_on_path = cp.n_neg_on_path;
    r->notes.n_cp_left_out = cp.n_missing_node + cp.n_event_sync;
    if (cp.reason[0]) {
        size_t cap = sizeof r->notes.cp_reason;
        size_t n = strlen(cp.reason);
        n = n < cap - 1 ? n : cap - 1;
        memcpy(r->notes.cp_reason, cp.reason, n);
        r->notes.cp_reason[n] = '\0';
        tlm_hta_cpath_free(&cp);
        return TLM_OK;
    }
    tlm_hta_table *ts = tlm_hta_result_add(r, &tlm_hta_def_cp_summary);
    tlm_hta_table *te = ts ? tlm_hta_result_add(r, &tlm_hta_def_cp_edges)
                           : NULL;
    st = te ? summary(ts, &cp) : TLM_ENOMEM;
    if (st == TLM_OK)
        st = edges(te, ev, &cp);
    tlm_hta_cpath_free(&cp);
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1,
                             "critical path tables: out of memory");
    return TLM_OK;
}
