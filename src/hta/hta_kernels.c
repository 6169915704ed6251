/*
 * hta_kernels.c - HTA's per-kernel GPU breakdown (spec §6,
 * gpu_kernel_breakdown): per rank, the GPU events of each kernel type
 * (computation, communication, memory) grouped by full name, with sum,
 * max, min, sample std (0 for one kernel) and mean of their durations.
 * Every name is a row: HTA's folding into "others" (quirk Q6) is not done.
 */
#include "hta_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npstats.h"

static const tlm_hta_col cols[] = {
    {"name", TLM_HTA_STR, "", NULL},
    {"sum (us)", TLM_HTA_F64, "us", NULL},
    {"max (us)", TLM_HTA_F64, "us", NULL},
    {"min (us)", TLM_HTA_F64, "us", NULL},
    {"stddev", TLM_HTA_F64, "us", NULL},
    {"mean (us)", TLM_HTA_F64, "us", NULL},
    {"kernel_type", TLM_HTA_STR, "", NULL},
    {"rank", TLM_HTA_I64, "", NULL},
};
const tlm_hta_tdef tlm_hta_def_kernels = {
    "gpu_kernel_breakdown",
    "HTA GPU kernels per rank, type and name (spec/hta.md §6): duration "
    "statistics, every name (no 'others' row)",
    cols, sizeof cols / sizeof cols[0], 0, 0};

typedef struct krow {
    uint8_t type;
    uint32_t name;
    size_t row;
} krow;

static int cmp_krow(const void *a, const void *b)
{
    const krow *x = a, *y = b;
    if (x->type != y->type)
        return x->type - y->type;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static tlm_status emit(const tlm_hta_events *ev, const krow *k, size_t n,
                       double *v, tlm_hta_table *t)
{
    for (size_t i = 0; i < n; i++)
        v[i] = tlm_hta_us(ev->ev[k[i].row].dur);
    size_t row, len;
    tlm_status st = tlm_hta_row_add(t, &row);
    const char *nm = tlm_trace_str(ev->trace, k[0].name, &len);
    const char *ty = tlm_hta_ktype_name((tlm_hta_ktype)k[0].type);
    if (st == TLM_OK)
        st = tlm_hta_set_str(t, row, 0, nm, len);
    if (st == TLM_OK)
        st = tlm_hta_set_str(t, row, 6, ty, strlen(ty));
    if (st != TLM_OK)
        return st;
    double mx = v[0], mn = v[0];
    for (size_t i = 1; i < n; i++) {
        mx = v[i] > mx ? v[i] : mx;
        mn = v[i] < mn ? v[i] : mn;
    }
    double sum = tlm_pd_sum(v, n);
    tlm_hta_set_f64(t, row, 1, sum);
    tlm_hta_set_f64(t, row, 2, mx);
    tlm_hta_set_f64(t, row, 3, mn);
    tlm_hta_set_f64(t, row, 4, n > 1 ? tlm_pd_std(v, n) : 0.0);
    tlm_hta_set_f64(t, row, 5, sum / (double)n);
    tlm_hta_set_i64(t, row, 7, ev->rank);
    return TLM_OK;
}

tlm_status tlm_hta_build_kernels(const tlm_hta_events *ev,
                                 const tlm_hta_opts *o, tlm_hta_result *r,
                                 tlm_error *err)
{
    (void)o;
    (void)err;
    tlm_hta_table *t = tlm_hta_result_add(r, &tlm_hta_def_kernels);
    krow *k = malloc((ev->n ? ev->n : 1) * sizeof *k);
    double *v = malloc((ev->n ? ev->n : 1) * sizeof *v);
    tlm_status st = (t && k && v) ? TLM_OK : TLM_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        const tlm_hta_ev *e = &ev->ev[i];
        if (!tlm_hta_is_gpu(e))
            continue;
        tlm_hta_ktype ty = (tlm_hta_ktype)e->ktype;
        if (ty != TLM_HTA_K_OTHER)
            k[m++] = (krow){(uint8_t)ty, e->name, i};
    }
    if (st == TLM_OK)
        qsort(k, m, sizeof *k, cmp_krow);
    for (size_t lo = 0; lo < m && st == TLM_OK;) {
        size_t hi = lo;
        while (hi < m && k[hi].type == k[lo].type &&
               k[hi].name == k[lo].name)
            hi++;
        st = emit(ev, k + lo, hi - lo, v, t);
        lo = hi;
    }
    free(k);
    free(v);
    return st;
}
