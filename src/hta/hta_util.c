/*
 * hta_util.c - what several HTA tables use: kernel types by name (§1.6,
 * HTA's get_kernel_type regexes written out as prefix / substring tests),
 * pandas' describe() (count, mean, sample std, linear quantiles as numpy
 * 1.24 computes them) and numpy's round.  Merged intervals (§1.7) are
 * util's tlm_ivl_union_stable.
 */
#include "hta_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npstats.h"

/* ---------------------------------------------------------------- MARK: -
 * kernel types */

static int starts(const char *s, size_t n, const char *p)
{
    size_t l = strlen(p);
    return n >= l && memcmp(s, p, l) == 0;
}

/* Python's `.*X` under re.match: X before the first newline ('.' does not
 * match '\n'); at > 0 also needs X at or after offset `at`. */
static const char *find(const char *s, size_t n, const char *x, size_t at)
{
    size_t l = strlen(x);
    const char *nl = memchr(s, '\n', n);
    size_t lim = nl ? (size_t)(nl - s) : n;
    for (size_t i = at; i + l <= lim; i++) {
        if (memcmp(s + i, x, l) == 0)
            return s + i;
    }
    /* a match may run past the newline only as its last part: "X" itself
     * holds no newline, so matches end before lim or not at all */
    return NULL;
}

static int is_comm(const char *s, size_t n)
{
    return starts(s, n, "nccl") || starts(s, n, "hip") ||
           starts(s, n, "hccl") || find(s, n, "ncclKernel", 0) != NULL;
}

static int is_memory(const char *s, size_t n)
{
    return starts(s, n, "Memcpy") || starts(s, n, "hipMemcpy") ||
           starts(s, n, "Memset") || starts(s, n, "hipMemset") ||
           starts(s, n, "dma");
}

static int not_compute(const char *s, size_t n)
{
    static const char *const pre[] = {
        "nccl", "Stream Wait Event", "runFunction", "hip", "job_exe",
        "packet", "pe_exe", "cpum_exe_subgraph", "hccl",
        "collective_subgraph_execution"};
    static const char *const sub[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        if (starts(s, n, pre[i]))
            return 1;
    }
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        if (find(s, n, sub[i], 0))
            return 1;
    }
    return starts(s, n, "cuda") && find(s, n, "LaunchKernel", 4) != NULL;
}

tlm_hta_ktype tlm_hta_kernel_type(const char *name, size_t len)
{
    if (is_comm(name, len))
        return TLM_HTA_K_COMMUNICATION;
    if (is_memory(name, len))
        return TLM_HTA_K_MEMORY;
    if (!not_compute(name, len))
        return TLM_HTA_K_COMPUTATION;
    return TLM_HTA_K_OTHER;
}

const char *tlm_hta_ktype_name(tlm_hta_ktype k)
{
    static const char *const names[] = {"COMPUTATION", "COMMUNICATION",
                                        "MEMORY", "OTHER"};
    return (unsigned)k < 4 ? names[k] : "OTHER";
}

/* ---------------------------------------------------------------- MARK: -
 * statistics */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy 1.24 percentile, method "linear" (its _lerp). */
static double quantile(const double *v, size_t n, double q)
{
    double idx = (double)(n - 1) * q;
    size_t lo = (size_t)floor(idx);
    double t = idx - (double)lo;
    double a = v[lo], b = lo + 1 < n ? v[lo + 1] : v[lo];
    double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

void tlm_hta_describe_of(double *v, size_t n, tlm_hta_describe *d)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(v[i]))
            v[m++] = v[i];
    }
    d->count = (double)m;
    d->mean = d->std = d->min = d->q25 = d->q50 = d->q75 = d->max = NAN;
    if (m == 0)
        return;
    d->mean = tlm_np_sum(v, m) / (double)m;
    if (m > 1) {
        double *sq = malloc(m * sizeof *sq);
        if (sq) {
            for (size_t i = 0; i < m; i++)
                sq[i] = (v[i] - d->mean) * (v[i] - d->mean);
            d->std = sqrt(tlm_np_sum(sq, m) / (double)(m - 1));
            free(sq);
        }
    }
    qsort(v, m, sizeof *v, cmp_d);
    d->min = v[0];
    d->max = v[m - 1];
    d->q25 = quantile(v, m, 0.25);
    d->q50 = quantile(v, m, 0.5);
    d->q75 = quantile(v, m, 0.75);
}

double tlm_hta_round(double x, int digits)
{
    double s = digits == 1 ? 10.0 : 100.0;
    return rint(x * s) / s;
}
