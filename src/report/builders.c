/*
 * builders.c - what the table builders share: grouping rows by a binary
 * key (tlm_group_of), the per-group perf metrics of the perf sheets and
 * unified_perf_summary (tlm_grp_metrics_*), the process and thread
 * columns, the order by kernel-time sum then UID, and the end of a
 * builder (tlm_rctx_keep_tab).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* MARK: - grouping ------------------------------------------------------- */

void tlm_rctx_set_proc(tlm_rctx *ctx, tlm_tab *t, size_t R, size_t col,
                       const tlm_event *e)
{
    const char *s = tlm_rctx_process_name(ctx, e);
    tlm_tab_set_s(t, R, col, s, strlen(s));
    s = tlm_rctx_process_label(ctx, e);
    tlm_tab_set_s(t, R, col + 1, s, strlen(s));
    s = tlm_rctx_thread_name(ctx, e);
    tlm_tab_set_s(t, R, col + 2, s, strlen(s));
}

void tlm_grp_metrics_init(tlm_grp_metrics *g, double *mv)
{
    g->gflops = g->data_moved_mb = g->flops_per_byte = NAN;
    g->roofline_time_us = NAN;
    g->bound = NULL;
    g->mv = mv;
    g->k = 0;
}

void tlm_grp_metrics_add(tlm_grp_metrics *g, const tlm_perf_metrics *m,
                         double kernel_us)
{
    double *mv = g->mv + 4 * g->k++;
    mv[0] = m->tb_s;
    mv[1] = m->tflops_s;
    mv[2] = m->pct_roofline;
    mv[3] = kernel_us;
    if (isnan(g->gflops))
        g->gflops = m->gflops;
    if (isnan(g->data_moved_mb))
        g->data_moved_mb = m->data_moved_mb;
    if (isnan(g->flops_per_byte))
        g->flops_per_byte = m->flops_per_byte;
    if (isnan(g->roofline_time_us))
        g->roofline_time_us = m->roofline_time_us;
    if (!g->bound && m->bound != TLM_ROOFLINE_NONE)
        g->bound = tlm_roofline_bound_str(m->bound);
}

void tlm_grp_metrics_stats(const tlm_grp_metrics *g, size_t which,
                           double *v, tlm_stats *s)
{
    for (size_t q = 0; q < g->k; q++)
        v[q] = g->mv[4 * q + which];
    tlm_stats_of(v, g->k, s);
}

int32_t tlm_group_of(tlm_i3map *map, const tlm_sbuf *key, size_t *ng,
                     int *is_new)
{
    int64_t hk[3];
    tlm_key_hash(key, hk);
    int32_t g = tlm_i3map_get(map, hk[0], hk[1], hk[2]);
    *is_new = g < 0;
    if (g < 0) {
        g = (int32_t)(*ng)++;
        if (tlm_i3map_put(map, hk[0], hk[1], hk[2], g))
            return -1;
    }
    return g;
}

tlm_status tlm_tab_sort_sum_uid(tlm_tab *t, size_t kc, size_t uc)
{
    size_t *perm = malloc((t->nrows + 1) * sizeof *perm);
    if (!perm)
        return TLM_ENOMEM;
    for (size_t i = 0; i < t->nrows; i++)
        perm[i] = i;
    tlm_sum_uid_key sc = {t, kc, uc};
    tlm_status st = tlm_sort_idx(perm, t->nrows, tlm_cmp_sum_uid, &sc);
    if (st == TLM_OK)
        st = tlm_tab_permute(t, perm);
    free(perm);
    return st;
}

tlm_status tlm_rctx_keep_tab(tlm_rctx *ctx, tlm_tab *t, tlm_status st)
{
    if (st == TLM_OK && !t->nrows) {
        tlm_tab_free(t);
        return st;
    }
    return tlm_rctx_finish_tab(ctx, t, st);
}

int tlm_cmp_sum_uid(const void *key, size_t a, size_t b)
{
    const tlm_sum_uid_key *c = key;
    double x = tlm_tab_cell(c->t, a, c->kc)->v.f;
    double y = tlm_tab_cell(c->t, b, c->kc)->v.f;
    if (x != y)
        return x > y ? -1 : 1;
    int64_t p = tlm_tab_cell(c->t, a, c->uc)->v.i;
    int64_t q = tlm_tab_cell(c->t, b, c->uc)->v.i;
    return p < q ? -1 : (p > q);
}
