/*
 * inttype.c - TraceLens's integer columns (spec addendum §A1 rule 4).
 *
 * Python keeps JSON integers integral and pandas keeps an all-integer
 * column int64: in a trace whose times are integer tokens, sums, minima
 * and maxima of durations print as `128460`, not `128460.0`; so does a
 * column made only of empty sums (`0`) in any trace.  tlmpi computes the
 * same values in double (exact: integers below 2^53) and marks such a
 * column to print without the fraction; the cells stay doubles.  The
 * column's values come from kernel times or from op durations: the
 * integer tokens of those events decide.
 */
#include <math.h>
#include <stdlib.h>

#include "report_internal.h"

/* Columns of sum / min / max of durations, whatever the sheet, and the
 * events whose times they come from. */
static const struct {
    const char *name;
    int src; /* TLM_INT_GPU: kernel times; TLM_INT_HOST: op durations */
} int_cols[] = {
    {"total_direct_kernel_time_sum", TLM_INT_GPU},
    {"total_subtree_kernel_time_sum", TLM_INT_GPU},
    {"total_direct_kernel_time_min", TLM_INT_GPU},
    {"total_subtree_kernel_time_min", TLM_INT_GPU},
    {"total_direct_kernel_time_max", TLM_INT_GPU},
    {"total_subtree_kernel_time_max", TLM_INT_GPU},
    {"total_duration_us", TLM_INT_HOST},
    {"duration_us_min", TLM_INT_HOST},
    {"duration_us_max", TLM_INT_HOST},
    {"Kernel Time (\xc2\xb5s)_sum", TLM_INT_GPU},
    {"Kernel Time (\xc2\xb5s)_min", TLM_INT_GPU},
    {"Kernel Time (\xc2\xb5s)_max", TLM_INT_GPU},
    {TLM_COLNAME_KERNEL_DUR_SUM, TLM_INT_GPU},
    {TLM_COLNAME_KERNEL_DUR_MIN, TLM_INT_GPU},
    {TLM_COLNAME_KERNEL_DUR_MAX, TLM_INT_GPU},
    {"Short Kernel duration (\xc2\xb5s) sum", TLM_INT_GPU},
    {"dur_sum", TLM_INT_GPU},
    {"dur_min", TLM_INT_GPU},
    {"dur_max", TLM_INT_GPU}};

/* The TLM_INT_* source of an integer-candidate column, 0 for others. */
static int int_col_src(const char *name)
{
    for (size_t i = 0; i < sizeof int_cols / sizeof int_cols[0]; i++)
        if (!strcmp(name, int_cols[i].name))
            return int_cols[i].src;
    return 0;
}

/* Every cell a finite integral value (in int64 range); *zero: all 0. */
static int all_integral(const tlm_tab *t, size_t c, int *zero)
{
    *zero = 1;
    for (size_t r = 0; r < t->nrows; r++) {
        const tlm_cell *x = tlm_tab_cell(t, r, c);
        if (x->null)
            return 0;
        double v = x->v.f;
        if (!(fabs(v) < 9.2e18) || v != floor(v))
            return 0;
        if (v != 0.0)
            *zero = 0;
    }
    return 1;
}

tlm_status tlm_tab_int_columns(tlm_tab *t, int int_times)
{
    for (size_t c = 0; c < t->ncols; c++) {
        int zero, src = t->coltypes[c] == TLM_COL_F64
                            ? int_col_src(t->colnames[c])
                            : 0;
        if (!src || !t->nrows || !all_integral(t, c, &zero) ||
            !((int_times & src) || zero))
            continue;
        if (!t->colint) {
            t->colint = calloc(t->ncols, 1);
            if (!t->colint)
                return TLM_ENOMEM;
        }
        t->colint[c] = 1;
    }
    return TLM_OK;
}
