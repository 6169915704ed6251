/*
 * test_roworder.c - TraceLens's row order (src/report/roworder.c): the
 * groupby's sorted keys (strings in code-point order, numbers and tuples
 * of integers as numbers, nulls last at each level) and the descending
 * numpy-quicksort order of one column, against orders pandas 1.5.3 /
 * numpy 1.24.2 gave (written out below).
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

static void put_s(tlm_tab *t, size_t r, size_t c, const char *s)
{
    if (s)
        tlm_tab_set_s(t, r, c, s, strlen(s));
}

/* Keys: (text, int stream, ranks text); nulls last at each level. */
static void test_keys_asc(void **state)
{
    (void)state;
    const char *cols[] = {"k", "stream", "ranks"};
    const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_I64, TLM_COL_STR};
    tlm_tab *t = tlm_tab_new("t", 3, cols, ty);
    assert_non_null(t);
    const struct {
        const char *k;
        long stream; /* -1: null */
        const char *ranks;
    } rows[] = {
        {"b", 7, "(0, 10)"},   {NULL, 1, "(0, 1)"},  {"a", 20, "(0, 2)"},
        {"a", 3, "(0, 2)"},    {"\xc3\xa9", 1, "(0, 1)"}, /* e-acute */
        {"B", -1, "(0, 1)"},   {"B", 2, "(0, 1)"},   {"b", 7, "(0, 2)"},
    };
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++) {
        long r = tlm_tab_add_row(t);
        put_s(t, (size_t)r, 0, rows[i].k);
        if (rows[i].stream >= 0)
            tlm_tab_set_i(t, (size_t)r, 1, rows[i].stream);
        put_s(t, (size_t)r, 2, rows[i].ranks);
    }
    static const size_t keys[] = {0, 1, 2};
    static const unsigned char mode[] = {TLM_KEY_TEXT, TLM_KEY_TEXT,
                                         TLM_KEY_TUPLE};
    assert_int_equal(tlm_tab_sort_keys_asc(t, keys, mode, 3), TLM_OK);
    /* "B" < "a" < "b" < "é" < null; streams numerically, null last;
     * (0, 2) < (0, 10) as tuples, not as text */
    const char *want[] = {"B|2|(0, 1)",  "B|-|(0, 1)",  "a|3|(0, 2)",
                          "a|20|(0, 2)", "b|7|(0, 2)",  "b|7|(0, 10)",
                          "\xc3\xa9|1|(0, 1)", "-|1|(0, 1)"};
    for (size_t r = 0; r < n; r++) {
        char got[64];
        const tlm_cell *k = tlm_tab_cell(t, r, 0);
        const tlm_cell *s = tlm_tab_cell(t, r, 1);
        char sv[24] = "-";
        if (!s->null)
            snprintf(sv, sizeof sv, "%lld", (long long)s->v.i);
        snprintf(got, sizeof got, "%s|%s|%s", k->null ? "-" : k->v.s, sv,
                 tlm_tab_cell(t, r, 2)->v.s);
        assert_string_equal(got, want[r]);
    }
    tlm_tab_free(t);
}

/* 18 rows (more than insertion sort's 16): pandas'
 * DataFrame({"v": v}).sort_values("v", ascending=False).index with
 * pandas 1.5.3 / numpy 1.24.2; a NaN row goes last. */
static void test_desc_np(void **state)
{
    (void)state;
    const char *cols[] = {"id", "v"};
    const tlm_coltype ty[] = {TLM_COL_I64, TLM_COL_F64};
    tlm_tab *t = tlm_tab_new("t", 2, cols, ty);
    const double v[18] = {4.575927734375, 1.0, 4.575927734375, 2.0, 1.0,
                          4.575927734375, 2.0, 1.0, 4.575927734375, 2.0,
                          1.0, 4.575927734375, 2.0, NAN, 1.0, 2.0, 1.0,
                          4.575927734375};
    for (size_t i = 0; i < 18; i++) {
        long r = tlm_tab_add_row(t);
        tlm_tab_set_i(t, (size_t)r, 0, (int64_t)i);
        tlm_tab_set_f(t, (size_t)r, 1, v[i]);
    }
    assert_int_equal(tlm_tab_sort_desc_np(t, 1), TLM_OK);
    static const int64_t want[18] = {0, 5, 11, 8, 2, 17, 3, 6, 9,
                                     12, 15, 4, 7, 1, 10, 14, 16, 13};
    for (size_t r = 0; r < 18; r++)
        if (tlm_tab_cell(t, r, 0)->v.i != want[r])
            fail_msg("row %zu: %lld, want %lld", r,
                     (long long)tlm_tab_cell(t, r, 0)->v.i,
                     (long long)want[r]);
    tlm_tab_free(t);
}

/* Numbers kept as text compare as numbers only where asked: a process
 * group named "10" sorts before "2" (a str in pandas), a size 10 after 2. */
static void test_text_modes(void **state)
{
    (void)state;
    const char *cols[] = {"name", "size"};
    const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_STR};
    tlm_tab *t = tlm_tab_new("t", 2, cols, ty);
    const char *v[3][2] = {{"2", "10"}, {"10", "2"}, {"10", "3"}};
    for (size_t i = 0; i < 3; i++) {
        long r = tlm_tab_add_row(t);
        put_s(t, (size_t)r, 0, v[i][0]);
        put_s(t, (size_t)r, 1, v[i][1]);
    }
    static const size_t keys[] = {0, 1};
    static const unsigned char mode[] = {TLM_KEY_TEXT, TLM_KEY_NUM};
    assert_int_equal(tlm_tab_sort_keys_asc(t, keys, mode, 2), TLM_OK);
    const char *want[3][2] = {{"10", "2"}, {"10", "3"}, {"2", "10"}};
    for (size_t r = 0; r < 3; r++) {
        assert_string_equal(tlm_tab_cell(t, r, 0)->v.s, want[r][0]);
        assert_string_equal(tlm_tab_cell(t, r, 1)->v.s, want[r][1]);
    }
    tlm_tab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_asc),
        cmocka_unit_test(test_text_modes),
        cmocka_unit_test(test_desc_np),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
