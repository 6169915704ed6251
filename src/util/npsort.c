/*
 * npsort.c - numpy 1.24's quicksort argsort (introsort) and pandas'
 * descending nargsort, transcribed so that tied rows come out where
 * TraceLens puts them (npsort.h, spec addendum §A9).
 */
#include "npsort.h"

#include <math.h>
#include <stdlib.h>

#define NP_SMALL_QUICKSORT 15
#define NP_STACK 128 /* 2 * bits of a size_t */

/* numpy's DOUBLE_LT: a < b, NaN after everything. */
static int np_lt(double a, double b)
{
    return a < b || (b != b && a == a);
}

static int msb(size_t n)
{
    int d = 0;
    while (n > 1) {
        n >>= 1;
        d++;
    }
    return d;
}

/* numpy's aheapsort over tosort[0..n), its 1-based heap a[k] written
 * as A(k) = tosort[k - 1]. */
#define A(k) tosort[(k) - 1]
static void np_aheapsort(const double *v, size_t *tosort, size_t n)
{
    size_t i, j, l, tmp;
    for (l = n >> 1; l > 0; --l) {
        tmp = A(l);
        for (i = l, j = l << 1; j <= n;) {
            if (j < n && np_lt(v[A(j)], v[A(j + 1)]))
                j += 1;
            if (np_lt(v[tmp], v[A(j)])) {
                A(i) = A(j);
                i = j;
                j += j;
            } else {
                break;
            }
        }
        A(i) = tmp;
    }
    for (; n > 1;) {
        tmp = A(n);
        A(n) = A(1);
        n -= 1;
        for (i = 1, j = 2; j <= n;) {
            if (j < n && np_lt(v[A(j)], v[A(j + 1)]))
                j++;
            if (np_lt(v[tmp], v[A(j)])) {
                A(i) = A(j);
                i = j;
                j += j;
            } else {
                break;
            }
        }
        A(i) = tmp;
    }
}
#undef A

#define SWAP(x, y)          \
    do {                    \
        size_t t_ = (x);    \
        (x) = (y);          \
        (y) = t_;           \
    } while (0)

/* One partition step of [*pl, *pr]: returns the pivot's final place. */
static size_t *np_partition(const double *v, size_t *pl, size_t *pr)
{
    size_t *pm = pl + ((pr - pl) >> 1);
    if (np_lt(v[*pm], v[*pl]))
        SWAP(*pm, *pl);
    if (np_lt(v[*pr], v[*pm]))
        SWAP(*pr, *pm);
    if (np_lt(v[*pm], v[*pl]))
        SWAP(*pm, *pl);
    double vp = v[*pm];
    size_t *pi = pl, *pj = pr - 1;
    SWAP(*pm, *pj);
    for (;;) {
        do
            ++pi;
        while (np_lt(v[*pi], vp));
        do
            --pj;
        while (np_lt(vp, v[*pj]));
        if (pi >= pj)
            break;
        SWAP(*pi, *pj);
    }
    SWAP(*pi, *(pr - 1));
    return pi;
}

static void np_insertion(const double *v, size_t *pl, size_t *pr)
{
    size_t n = (size_t)(pr - pl) + 1;
    for (size_t i = 1; i < n; i++) {
        size_t vi = pl[i], j = i;
        double vp = v[vi];
        while (j > 0 && np_lt(vp, v[pl[j - 1]])) {
            pl[j] = pl[j - 1];
            j--;
        }
        pl[j] = vi;
    }
}

void tlm_np_aquicksort(const double *v, size_t *tosort, size_t num)
{
    if (num < 2)
        return;
    size_t *pl = tosort, *pr = tosort + num - 1;
    size_t *stack[NP_STACK], **sptr = stack;
    int depth[NP_STACK / 2], *psdepth = depth;
    int cdepth = msb(num) * 2;
    for (;;) {
        if (cdepth < 0) {
            np_aheapsort(v, pl, (size_t)(pr - pl) + 1);
            goto stack_pop;
        }
        while ((pr - pl) > NP_SMALL_QUICKSORT) {
            size_t *pi = np_partition(v, pl, pr);
            /* push the larger partition, go on with the smaller */
            if (pi - pl < pr - pi) {
                *sptr++ = pi + 1;
                *sptr++ = pr;
                pr = pi - 1;
            } else {
                *sptr++ = pl;
                *sptr++ = pi - 1;
                pl = pi + 1;
            }
            *psdepth++ = --cdepth;
        }
        np_insertion(v, pl, pr);
    stack_pop:
        if (sptr == stack)
            break;
        pr = *(--sptr);
        pl = *(--sptr);
        cdepth = *(--psdepth);
    }
}

tlm_status tlm_np_nargsort_desc(const double *v, size_t n, size_t *perm)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    size_t *rows = malloc((n ? n : 1) * sizeof *rows);
    double *val = calloc(n ? n : 1, sizeof *val);
    tlm_status st = TLM_ENOMEM;
    if (idx && rows && val) {
        /* the non-NaN rows reversed, their values as a fresh array */
        size_t m = 0;
        for (size_t r = n; r-- > 0;)
            if (!isnan(v[r])) {
                val[m] = v[r];
                rows[m] = r;
                idx[m] = m;
                m++;
            }
        tlm_np_aquicksort(val, idx, m);
        /* reversed back, then the NaN rows in their order */
        for (size_t p = 0; p < m; p++)
            perm[p] = rows[idx[m - 1 - p]];
        for (size_t r = 0; r < n; r++)
            if (isnan(v[r]))
                perm[m++] = r;
        st = TLM_OK;
    }
    free(idx);
    free(rows);
    free(val);
    return st;
}
