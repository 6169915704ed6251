/*
 * test_inttype.c - TraceLens's integer columns (src/report/inttype.c,
 * addendum §A1): a sum / min / max column of durations prints as
 * integers when the trace's times are integer tokens and every cell is
 * integral (the kernels' times for kernel columns), or when every cell
 * is an empty sum (0); other columns, a
 * column with a fraction or a null, and a float trace's non-zero sums
 * keep Python's float repr.  Also tlm_tab_drop_col (table.c) keeps the
 * marks and cells of the columns that stay.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_internal.h"

static tlm_tab *make(const double *sum, const double *mean, size_t n)
{
    const char *cols[] = {"name", "Kernel Time (\xc2\xb5s)_sum",
                          "Kernel Time (\xc2\xb5s)_mean", "dur_max"};
    const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64, TLM_COL_F64,
                              TLM_COL_F64};
    tlm_tab *t = tlm_tab_new("t", 4, cols, ty);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++) {
        long r = tlm_tab_add_row(t);
        tlm_tab_set_s(t, (size_t)r, 0, "op", 2);
        if (!isnan(sum[i]))
            tlm_tab_set_f(t, (size_t)r, 1, sum[i]);
        tlm_tab_set_f(t, (size_t)r, 2, mean[i]);
        tlm_tab_set_f(t, (size_t)r, 3, 2.5);
    }
    return t;
}

static void csv_is(const tlm_tab *t, const char *want)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    assert_false(b.oom);
    assert_string_equal(strchr(b.p, '\n') + 1, want);
    tlm_sbuf_free(&b);
}

static void test_integer_trace(void **state)
{
    (void)state;
    const double s[] = {128460.0, 7.0}, m[] = {64230.0, 3.5};
    tlm_tab *t = make(s, m, 2);
    /* only the host events' times were integers: kernel times are not */
    assert_int_equal(tlm_tab_int_columns(t, TLM_INT_HOST), TLM_OK);
    csv_is(t, "op,128460.0,64230.0,2.5\nop,7.0,3.5,2.5\n");
    assert_int_equal(tlm_tab_int_columns(t, TLM_INT_GPU), TLM_OK);
    /* sums as ints, means stay floats, dur_max has a fraction */
    csv_is(t, "op,128460,64230.0,2.5\nop,7,3.5,2.5\n");
    tlm_tab_drop_col(t, 0);
    assert_int_equal(t->ncols, 3);
    csv_is(t, "128460,64230.0,2.5\n7,3.5,2.5\n");
    tlm_tab_free(t);
}

static void test_float_trace(void **state)
{
    (void)state;
    /* all empty sums: 0 in a float trace too */
    const double z[] = {0.0, 0.0}, m[] = {0.0, 0.0};
    tlm_tab *t = make(z, m, 2);
    assert_int_equal(tlm_tab_int_columns(t, 0), TLM_OK);
    csv_is(t, "op,0,0.0,2.5\nop,0,0.0,2.5\n");
    tlm_tab_free(t);
    /* one non-empty sum: the column is float */
    const double s[] = {0.0, 5.0};
    t = make(s, m, 2);
    assert_int_equal(tlm_tab_int_columns(t, 0), TLM_OK);
    assert_null(t->colint);
    csv_is(t, "op,0.0,0.0,2.5\nop,5.0,0.0,2.5\n");
    tlm_tab_free(t);
    /* a null cell (NaN in pandas) makes the column float */
    const double sn[] = {4.0, NAN};
    t = make(sn, m, 2);
    assert_int_equal(tlm_tab_int_columns(t, TLM_INT_GPU), TLM_OK);
    csv_is(t, "op,4.0,0.0,2.5\nop,,0.0,2.5\n");
    tlm_tab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_trace),
        cmocka_unit_test(test_float_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
