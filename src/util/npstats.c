/*
 * npstats.c - numpy's and pandas' arithmetic, reproduced exactly: numpy's
 * pairwise summation and std, np.median, pandas' Kahan group sums and
 * Welford std, round(x, 2); and the summary statistics of a column.
 * TraceLens computes its aggregates with these, so the same algorithms
 * give the same last digits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npstats.h"

/* Element i of the summed sequence: a[i], or (a[i] - mean)^2 for the
 * variance (numpy squares the deviation by multiplying it by itself). */
static inline double pw_val(const double *a, size_t i, double mean, int sq)
{
    return sq ? (a[i] - mean) * (a[i] - mean) : a[i];
}

/* numpy's pairwise summation (8 accumulators below 128 elements). */
static double pairwise(const double *a, size_t n, double mean, int sq)
{
    if (n < 8) {
        double r = 0.0;
        for (size_t i = 0; i < n; i++)
            r += pw_val(a, i, mean, sq);
        return r;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        for (int j = 0; j < 8; j++)
            r[j] = pw_val(a, (size_t)j, mean, sq);
        for (i = 8; i < n - n % 8; i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += pw_val(a, i + (size_t)j, mean, sq);
        double s = ((r[0] + r[1]) + (r[2] + r[3])) +
                   ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            s += pw_val(a, i, mean, sq);
        return s;
    }
    size_t m = n / 2;
    m -= m % 8;
    return pairwise(a, m, mean, sq) + pairwise(a + m, n - m, mean, sq);
}

double tlm_np_sum(const double *a, size_t n)
{
    return pairwise(a, n, 0.0, 0);
}

/* Population standard deviation as numpy computes it; needs no memory. */
double tlm_np_std(const double *a, size_t n, double mean)
{
    if (!n)
        return NAN;
    return sqrt(pairwise(a, n, mean, 1) / (double)n);
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : (a > b);
}

/* k-th smallest (0-based) by quickselect; reorders a. */
static double select_kth(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double x = a[i];
                a[i] = a[j];
                a[j] = x;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

double tlm_np_median(double *a, size_t n)
{
    if (!n)
        return NAN;
    if (n < 32) {
        qsort(a, n, sizeof *a, cmp_dbl);
        if (n % 2)
            return a[n / 2];
        return (a[n / 2 - 1] + a[n / 2]) / 2.0;
    }
    double hi = select_kth(a, n, n / 2);
    if (n % 2)
        return hi;
    /* after selection a[0 .. n/2) holds the smaller half */
    double lo = a[0];
    for (size_t i = 1; i < n / 2; i++)
        if (a[i] > lo)
            lo = a[i];
    return (lo + hi) / 2.0;
}

double tlm_sample_std(const double *a, size_t n)
{
    if (n < 2)
        return NAN;
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m += a[i];
    m /= (double)n;
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (a[i] - m) * (a[i] - m);
    return sqrt(s / (double)(n - 1));
}

double tlm_pd_sum(const double *a, size_t n)
{
    tlm_kahan k = {0.0, 0.0};
    for (size_t i = 0; i < n; i++)
        tlm_kahan_add(&k, a[i]);
    return k.sum;
}

double tlm_pd_std(const double *a, size_t n)
{
    if (n < 2)
        return NAN;
    double mean = 0.0, m2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double old = mean;
        mean += (a[i] - old) / (double)(i + 1);
        m2 += (a[i] - mean) * (a[i] - old);
    }
    return sqrt(m2 / (double)(n - 1));
}

double tlm_np_round2(double x)
{
    double y = x * 100.0;
    double r = nearbyint(y);
    return r / 100.0;
}

void tlm_stats_of(double *v, size_t n, tlm_stats *s)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    s->count = k;
    s->sum = tlm_pd_sum(v, k);
    if (!k) {
        s->mean = s->median = s->std = s->min = s->max = NAN;
        return;
    }
    s->mean = s->sum / (double)k;
    s->std = tlm_pd_std(v, k);
    s->min = s->max = v[0];
    for (size_t i = 1; i < k; i++) {
        if (v[i] < s->min)
            s->min = v[i];
        if (v[i] > s->max)
            s->max = v[i];
    }
    s->median = tlm_np_median(v, k);
}
