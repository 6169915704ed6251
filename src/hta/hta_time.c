/*
 * hta_time.c - the tables made of merged GPU intervals: the temporal
 * breakdown (spec §2), communication/computation overlap (§4) and the GPU
 * time by kernel type (§6, gpu_kernel_breakdown_by_type).  All three merge
 * the GPU events (stream != -1) of one rank, per kernel type or all
 * together (§1.7), and the last two sweep the merged groups of several
 * types with one bit per type.
 */
#include "hta_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const tlm_hta_col temporal_cols[] = {
    {"rank", TLM_HTA_I64, "", NULL},
    {"idle_time(us)", TLM_HTA_F64, "us", NULL},
    {"compute_time(us)", TLM_HTA_F64, "us", NULL},
    {"non_compute_time(us)", TLM_HTA_F64, "us", NULL},
    {"kernel_time(us)", TLM_HTA_F64, "us", NULL},
    {"idle_time_pctg", TLM_HTA_F64, "%", NULL},
    {"compute_time_pctg", TLM_HTA_F64, "%", NULL},
    {"non_compute_time_pctg", TLM_HTA_F64, "%", NULL},
};
const tlm_hta_tdef tlm_hta_def_temporal = {
    "temporal_breakdown",
    "HTA temporal breakdown per rank (spec/hta.md §2): GPU idle, compute "
    "and non-compute time over the span of its GPU events",
    temporal_cols, sizeof temporal_cols / sizeof temporal_cols[0], 0, 0};

static const tlm_hta_col overlap_cols[] = {
    {"rank", TLM_HTA_I64, "", NULL},
    {"comp_comm_overlap_pctg", TLM_HTA_F64, "%", NULL},
};
const tlm_hta_tdef tlm_hta_def_overlap = {
    "comm_comp_overlap",
    "HTA communication/computation overlap per rank (spec/hta.md §4): "
    "share of the communication time during which computation runs",
    overlap_cols, sizeof overlap_cols / sizeof overlap_cols[0], 0, 0};

static const tlm_hta_col by_type_cols[] = {
    {"kernel_type", TLM_HTA_STR, "", NULL},
    {"sum", TLM_HTA_F64, "us", NULL},
    {"percentage", TLM_HTA_F64, "%", NULL},
};
const tlm_hta_tdef tlm_hta_def_by_type = {
    "gpu_kernel_breakdown_by_type",
    "HTA GPU time by kernel type, summed over ranks (spec/hta.md §6): "
    "merged time per type and per overlap of types",
    by_type_cols, sizeof by_type_cols / sizeof by_type_cols[0], 1, 0};

/* ---------------------------------------------------------------- MARK: -
 * intervals of one rank */

/* Merged groups of the GPU events whose type is in mask (bit per
 * tlm_hta_ktype; ~0 = every event).  *out malloc'd. */
static tlm_status groups_of(const tlm_hta_events *ev, const uint8_t *kt,
                            unsigned mask, tlm_ivl **out, size_t *n)
{
    tlm_ivl *iv = malloc((ev->n ? ev->n : 1) * sizeof *iv);
    if (!iv)
        return TLM_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const tlm_hta_ev *r = &ev->ev[i];
        if (!tlm_hta_is_gpu(r) || !(mask & (1u << kt[i])))
            continue;
        iv[m].s = r->ts;
        iv[m].e = r->ts + r->dur;
        m++;
    }
    tlm_status st = tlm_ivl_union_stable(iv, m, n);
    if (st != TLM_OK) {
        free(iv);
        return st;
    }
    *out = iv;
    return TLM_OK;
}

/* Kernel type of every row (OTHER for CPU rows too; callers test GPU). */
static tlm_status types_of(const tlm_hta_events *ev, uint8_t **out)
{
    uint8_t *kt = malloc(ev->n ? ev->n : 1);
    if (!kt)
        return TLM_ENOMEM;
    for (size_t i = 0; i < ev->n; i++)
        kt[i] = ev->ev[i].ktype;
    *out = kt;
    return TLM_OK;
}

typedef struct step {
    int64_t t;
    int v;
} step;

static int cmp_step(const void *a, const void *b)
{
    const step *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* Sweep over the groups of up to three types (bit values 1, 2, 4): the
 * time spent under each non-zero running sum, into span[8]. */
static tlm_status sweep(tlm_ivl *const g[3], const size_t ng[3],
                        int64_t span[8])
{
    size_t n = 2 * (ng[0] + ng[1] + ng[2]), k = 0;
    step *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return TLM_ENOMEM;
    for (int t = 0; t < 3; t++) {
        for (size_t i = 0; i < ng[t]; i++) {
            s[k].t = g[t][i].s;
            s[k++].v = 1 << t;
            s[k].t = g[t][i].e;
            s[k++].v = -(1 << t);
        }
    }
    qsort(s, n, sizeof *s, cmp_step);
    memset(span, 0, 8 * sizeof *span);
    int sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += s[i].v;
        if (i + 1 < n && sum > 0 && sum < 8)
            span[sum] += s[i + 1].t - s[i].t;
    }
    free(s);
    return TLM_OK;
}

/* ---------------------------------------------------------------- MARK: -
 * the three tables */

static double pct2(int64_t v, int64_t of)
{
    if (of == 0)
        return NAN;
    return tlm_hta_round(100.0 * tlm_hta_us(v) / tlm_hta_us(of), 2);
}

static tlm_status temporal(const tlm_hta_events *ev, const uint8_t *kt,
                           tlm_hta_result *res)
{
    tlm_hta_table *t = tlm_hta_result_add(res, &tlm_hta_def_temporal);
    if (!t)
        return TLM_ENOMEM;
    tlm_ivl *all = NULL, *comp = NULL;
    size_t na, nc;
    tlm_status st = groups_of(ev, kt, ~0u, &all, &na);
    if (st == TLM_OK)
        st = groups_of(ev, kt, 1u << TLM_HTA_K_COMPUTATION, &comp, &nc);
    if (st == TLM_OK && na > 0) {
        int64_t kernel = all[na - 1].e - all[0].s;
        int64_t idle = kernel - tlm_ivl_length(all, na);
        int64_t compute = tlm_ivl_length(comp, nc);
        int64_t non = kernel - compute - idle;
        if (idle > kernel || compute > kernel || non < 0 || idle < 0)
            res->notes.n_temporal_neg++;
        size_t row;
        st = tlm_hta_row_add(t, &row);
        if (st == TLM_OK) {
            tlm_hta_set_i64(t, row, 0, ev->rank);
            tlm_hta_set_f64(t, row, 1, tlm_hta_us(idle));
            tlm_hta_set_f64(t, row, 2, tlm_hta_us(compute));
            tlm_hta_set_f64(t, row, 3, tlm_hta_us(non));
            tlm_hta_set_f64(t, row, 4, tlm_hta_us(kernel));
            tlm_hta_set_f64(t, row, 5, pct2(idle, kernel));
            tlm_hta_set_f64(t, row, 6, pct2(compute, kernel));
            tlm_hta_set_f64(t, row, 7, pct2(non, kernel));
        }
    }
    free(all);
    free(comp);
    return st;
}

static tlm_status by_type(const tlm_hta_events *ev, const uint8_t *kt,
                          tlm_hta_result *res, int want_overlap)
{
    tlm_ivl *g[3] = {NULL, NULL, NULL};
    size_t ng[3] = {0, 0, 0};
    int64_t span[8];
    tlm_status st = TLM_OK;
    /* bit 0 computation, 1 communication, 2 memory (tlm_hta_ktype) */
    for (int k = 0; k < 3 && st == TLM_OK; k++)
        st = groups_of(ev, kt, 1u << k, &g[k], &ng[k]);
    if (st == TLM_OK && want_overlap) {
        /* §4: communication 1, computation 2; overlap = sum 3 */
        tlm_ivl *g2[3] = {g[1], g[0], NULL};
        size_t n2[3] = {ng[1], ng[0], 0};
        st = sweep(g2, n2, span);
        tlm_hta_table *t = tlm_hta_result_add(res, &tlm_hta_def_overlap);
        size_t row;
        if (st == TLM_OK && !t)
            st = TLM_ENOMEM;
        if (st == TLM_OK && ev->n && tlm_hta_has_gpu(ev))
            st = tlm_hta_row_add(t, &row);
        if (st == TLM_OK && t->tab->nrows) {
            tlm_hta_set_i64(t, row, 0, ev->rank);
            int64_t comm = tlm_ivl_length(g[1], ng[1]);
            tlm_hta_set_f64(t, row, 1, ng[1] ? pct2(span[3], comm) : NAN);
        }
    } else if (st == TLM_OK) {
        st = sweep(g, ng, span);
        tlm_hta_table *t = tlm_hta_result_add(res, &tlm_hta_def_by_type);
        if (st == TLM_OK && !t)
            st = TLM_ENOMEM;
        int64_t total = 0;
        for (int s = 1; s < 8 && st == TLM_OK; s++)
            total += span[s];
        for (int s = 1; s < 8 && st == TLM_OK; s++) {
            if (span[s] == 0)
                continue;
            size_t row;
            char label[96];
            tlm_hta_by_type_label(s, label, sizeof label);
            st = tlm_hta_row_add(t, &row);
            if (st == TLM_OK)
                st = tlm_hta_set_str(t, row, 0, label, strlen(label));
            if (st == TLM_OK) {
                tlm_hta_set_f64(t, row, 1, tlm_hta_us(span[s]));
                tlm_hta_set_f64(t, row, 2,
                                total ? tlm_hta_round(100.0 * span[s] /
                                                          total, 1)
                                      : NAN);
            }
        }
    }
    for (int k = 0; k < 3; k++)
        free(g[k]);
    return st;
}

void tlm_hta_by_type_label(int bits, char *buf, size_t size)
{
    static const char *const names[] = {"COMPUTATION", "COMMUNICATION",
                                        "MEMORY"};
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < 3; k++) {
        if (!(bits & (1 << k)))
            continue;
        const char *sep = len ? " overlapping " : "";
        size_t need = strlen(sep) + strlen(names[k]);
        if (len + need + 1 > size)
            break;
        memcpy(buf + len, sep, strlen(sep));
        len += strlen(sep);
        memcpy(buf + len, names[k], strlen(names[k]));
        len += strlen(names[k]);
        buf[len] = '\0';
    }
}

int tlm_hta_has_gpu(const tlm_hta_events *ev)
{
    for (size_t i = 0; i < ev->n; i++) {
        if (tlm_hta_is_gpu(&ev->ev[i]))
            return 1;
    }
    return 0;
}

tlm_status tlm_hta_build_temporal(const tlm_hta_events *ev,
                                  const tlm_hta_opts *o, tlm_hta_result *r,
                                  tlm_error *err)
{
    (void)o;
    (void)err;
    uint8_t *kt = NULL;
    tlm_status st = types_of(ev, &kt);
    if (st == TLM_OK)
        st = temporal(ev, kt, r);
    if (st == TLM_OK)
        st = by_type(ev, kt, r, 1);
    if (st == TLM_OK)
        st = by_type(ev, kt, r, 0);
    free(kt);
    return st;
}
