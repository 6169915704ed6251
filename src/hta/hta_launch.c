/*
 * hta_launch.c - HTA's kernel launch statistics (spec §7,
 * CudaKernelAnalysis.cuda_kernel_launch_stats): one row per (CPU event,
 * GPU event) pair sharing the correlation of a launch call, with the
 * runtime call's duration, the GPU operation's and the launch delay; and
 * the per-rank summary HTA plots from them.  tlmpi also knows the ROCm
 * launch calls (quirk Q8; identical to HTA on CUDA traces); driver-API
 * launches (cuLaunchKernel*) stay out, as in HTA, and are counted.
 */
#include "hta_internal.h"
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const tlm_hta_col stats_cols[] = {
    {"rank", TLM_HTA_I64, "", NULL},
    {"correlation", TLM_HTA_I64, "", NULL},
    {"cpu_duration", TLM_HTA_F64, "us", NULL},
    {"gpu_duration", TLM_HTA_F64, "us", NULL},
    {"launch_delay", TLM_HTA_F64, "us", NULL},
};
const tlm_hta_tdef tlm_hta_def_launch_stats = {
    "cuda_kernel_launch_stats",
    "HTA kernel launches per rank (spec/hta.md §7): runtime call and GPU "
    "durations, delay from the call's end to the GPU start (>= 0)",
    stats_cols, sizeof stats_cols / sizeof stats_cols[0], 0, 0};

static const tlm_hta_col sum_cols[] = {
    {"rank", TLM_HTA_I64, "", NULL},
    {"launches", TLM_HTA_I64, "", NULL},
    {"short_kernels", TLM_HTA_I64, "", NULL},
    {"runtime_outliers", TLM_HTA_I64, "", NULL},
    {"launch_delay_outliers", TLM_HTA_I64, "", NULL},
    {"cpu_duration_sum", TLM_HTA_F64, "us", NULL},
    {"gpu_duration_sum", TLM_HTA_F64, "us", NULL},
    {"launch_delay_sum", TLM_HTA_F64, "us", NULL},
    {"launch_delay_mean", TLM_HTA_F64, "us", NULL},
    {"launch_delay_max", TLM_HTA_F64, "us", NULL},
};
const tlm_hta_tdef tlm_hta_def_launch_summary = {
    "cuda_kernel_launch_summary",
    "HTA kernel launch summary per rank (spec/hta.md §7): counts of short "
    "kernels and outliers by --hta_runtime_cutoff and "
    "--hta_launch_delay_cutoff, sums",
    sum_cols, sizeof sum_cols / sizeof sum_cols[0], 0, 0};

static int name_in(const char *s, size_t len, const char *const *names,
                   size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(names[i]) == len && memcmp(s, names[i], len) == 0)
            return 1;
    }
    return 0;
}

static const char *const cuda_launch[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC",
    "runFunction - job_prep_and_submit_for_execution", "cudaMemsetAsync",
    "cudaMemcpyAsync"};
static const char *const rocm_launch[] = {
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipModuleLaunchKernel",
    "hipMemcpyAsync", "hipMemsetAsync"};
static const char *const driver_launch[] = {"cuLaunchKernel",
                                            "cuLaunchKernelEx"};

typedef struct crow {
    int64_t corr;
    size_t row;
} crow;

static int cmp_crow(const void *a, const void *b)
{
    const crow *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The launch correlations (sorted), counting the ROCm and driver ones. */
static tlm_status launch_corrs(const tlm_hta_events *ev, tlm_hta_notes *nt,
                               int64_t **out, size_t *n)
{
    int64_t *c = malloc((ev->n ? ev->n : 1) * sizeof *c);
    if (!c)
        return TLM_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const tlm_hta_ev *r = &ev->ev[i];
        size_t len;
        const char *s = tlm_trace_str(ev->trace, r->name, &len);
        int cuda = name_in(s, len, cuda_launch, 5);
        int rocm = !cuda && name_in(s, len, rocm_launch, 5);
        if (!cuda && !rocm) {
            nt->n_driver_launches += name_in(s, len, driver_launch, 2);
            continue;
        }
        nt->n_rocm_launches += rocm;
        if (r->corr != -1)
            c[m++] = r->corr;
    }
    qsort(c, m, sizeof *c, cmp_i64);
    *out = c;
    *n = m;
    return TLM_OK;
}

/* Whether key is in the sorted array a[0..n). */
static int has(const int64_t *a, size_t n, int64_t key)
{
    size_t i = tlm_lower_bound_i64(a, n, key);
    return i < n && a[i] == key;
}

typedef struct acc {
    size_t rows, shorts, rt_out, ld_out;
    double cpu, gpu, ld, ld_max;
} acc;

static tlm_status add_pair(const tlm_hta_events *ev, const tlm_hta_opts *o,
                           const tlm_hta_ev *c, const tlm_hta_ev *g,
                           tlm_hta_table *t, acc *a)
{
    size_t row;
    tlm_status st = tlm_hta_row_add(t, &row);
    if (st != TLM_OK)
        return st;
    double cd = tlm_hta_us(c->dur), gd = tlm_hta_us(g->dur);
    double ld = tlm_hta_us(g->ts - c->ts - c->dur);
    if (ld < 0)
        ld = 0;
    tlm_hta_set_i64(t, row, 0, ev->rank);
    tlm_hta_set_i64(t, row, 1, c->corr);
    tlm_hta_set_f64(t, row, 2, cd);
    tlm_hta_set_f64(t, row, 3, gd);
    tlm_hta_set_f64(t, row, 4, ld);
    a->rows++;
    a->shorts += cd <= o->runtime_cutoff && gd < cd;
    a->rt_out += cd > o->runtime_cutoff;
    a->ld_out += ld > o->launch_delay_cutoff;
    a->cpu += cd;
    a->gpu += gd;
    a->ld += ld;
    if (a->rows == 1 || ld > a->ld_max)
        a->ld_max = ld;
    return TLM_OK;
}

static tlm_status summary(const tlm_hta_events *ev, const acc *a,
                          tlm_hta_result *r)
{
    tlm_hta_table *t = tlm_hta_result_add(r, &tlm_hta_def_launch_summary);
    if (!t)
        return TLM_ENOMEM;
    if (!tlm_hta_has_gpu(ev))
        return TLM_OK;
    size_t row;
    tlm_status st = tlm_hta_row_add(t, &row);
    if (st != TLM_OK)
        return st;
    tlm_hta_set_i64(t, row, 0, ev->rank);
    tlm_hta_set_i64(t, row, 1, (int64_t)a->rows);
    tlm_hta_set_i64(t, row, 2, (int64_t)a->shorts);
    tlm_hta_set_i64(t, row, 3, (int64_t)a->rt_out);
    tlm_hta_set_i64(t, row, 4, (int64_t)a->ld_out);
    tlm_hta_set_f64(t, row, 5, a->cpu);
    tlm_hta_set_f64(t, row, 6, a->gpu);
    tlm_hta_set_f64(t, row, 7, a->ld);
    tlm_hta_set_f64(t, row, 8, a->rows ? a->ld / (double)a->rows : NAN);
    tlm_hta_set_f64(t, row, 9, a->rows ? a->ld_max : NAN);
    return TLM_OK;
}

tlm_status tlm_hta_build_launch(const tlm_hta_events *ev,
                                const tlm_hta_opts *o, tlm_hta_result *r,
                                tlm_error *err)
{
    (void)err;
    tlm_hta_table *t = tlm_hta_result_add(r, &tlm_hta_def_launch_stats);
    int64_t *lc = NULL;
    size_t nlc = 0, m = 0;
    crow *c = malloc((ev->n ? ev->n : 1) * sizeof *c);
    tlm_status st = (t && c) ? launch_corrs(ev, &r->notes, &lc, &nlc)
                             : TLM_ENOMEM;
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        if (has(lc, nlc, ev->ev[i].corr))
            c[m++] = (crow){ev->ev[i].corr, i};
    }
    if (st == TLM_OK)
        qsort(c, m, sizeof *c, cmp_crow);
    acc a;
    memset(&a, 0, sizeof a);
    for (size_t lo = 0; lo < m && st == TLM_OK;) {
        size_t hi = lo;
        while (hi < m && c[hi].corr == c[lo].corr)
            hi++;
        for (size_t i = lo; i < hi && st == TLM_OK; i++) {
            const tlm_hta_ev *cpu = &ev->ev[c[i].row];
            if (cpu->stream != -1)
                continue;
            for (size_t j = lo; j < hi && st == TLM_OK; j++) {
                const tlm_hta_ev *gpu = &ev->ev[c[j].row];
                if (gpu->stream != -1)
                    st = add_pair(ev, o, cpu, gpu, t, &a);
            }
        }
        lo = hi;
    }
    if (st == TLM_OK)
        st = summary(ev, &a, r);
    free(lc);
    free(c);
    return st;
}
