/*
 * npstats.h - the statistics of numpy and pandas, reproduced bit for bit
 * (pairwise and Kahan sums, Welford's variance, median, round(x, 2)) so
 * that tables agree with TraceLens's to the last digit.
 */
#ifndef TLM_NPSTATS_H
#define TLM_NPSTATS_H

#include <stddef.h>

/* numpy's pairwise summation (np.sum of a float64 array). */
double tlm_np_sum(const double *a, size_t n);
/* Population std (np.std, ddof=0) with numpy's algorithm. */
double tlm_np_std(const double *a, size_t n, double mean);
/* np.median; sorts a in place. */
double tlm_np_median(double *a, size_t n);
/* Sample std (ddof=1), NaN for n < 2 (pandas). */
double tlm_sample_std(const double *a, size_t n);
/* pandas' groupby sum (Kahan-compensated, row order). */
double tlm_pd_sum(const double *a, size_t n);
/* pandas' groupby std: Welford's running variance, ddof=1, NaN for n < 2. */
double tlm_pd_std(const double *a, size_t n);

/* Summary statistics over the non-NaN values of v (v is compacted and
 * sorted in place); all NaN when there are none. */
typedef struct tlm_stats {
    double mean, median, std, min, max, sum;
    size_t count;
} tlm_stats;
void tlm_stats_of(double *v, size_t n, tlm_stats *s);
/* Kahan accumulator as pandas' group_sum keeps one per group. */
typedef struct tlm_kahan {
    double sum, comp;
} tlm_kahan;
static inline void tlm_kahan_add(tlm_kahan *k, double v)
{
    double y = v - k->comp;
    double t = k->sum + y;
    k->comp = t - k->sum - y;
    k->sum = t;
}
/* Python/numpy round(x, 2) == rint(x*100)/100. */
double tlm_np_round2(double x);

#endif /* TLM_NPSTATS_H */
