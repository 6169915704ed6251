/*
 * test_table.c - the table layer's in-memory table and its CSV form
 * (src/table/tab.c, tab_csv.c): typed cells and nulls, column lookup, row
 * permutation and truncation, and the CSV text exactly as pandas'
 * to_csv(index=False) writes it (minimal quoting with doubled quotes, NaN
 * and None empty, True/False, floats as Python's repr), in memory and in a
 * file.
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

#include "tlmpi/tlm_table.h"

#include "sbuf.h"
#include "tlm_test_report.h"
#include "tlm_test_util.h"

/* The CSV text of t, compared with want. */
static void csv_is(const tlm_tab *t, const char *want)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    assert_false(b.oom);
    assert_string_equal(b.p, want);
    tlm_sbuf_free(&b);
}

static void test_cells(void **state)
{
    (void)state;
    char name[] = "n,1";
    const char *cols[] = {name, "v"};
    /* no types: every column is a float column */
    tlm_tab *t = tlm_tab_new("a-table-name", 2, cols, NULL);
    assert_non_null(t);
    name[0] = 'X'; /* the names were copied */
    assert_string_equal(t->name, "a-table-name");
    assert_string_equal(t->colnames[0], "n,1");
    assert_int_equal(t->coltypes[0], TLM_COL_F64);
    assert_int_equal(t->coltypes[1], TLM_COL_F64);
    assert_int_equal(tlm_tab_col(t, "v"), 1);
    assert_int_equal(tlm_tab_col(t, "n,1"), 0);
    assert_int_equal(tlm_tab_col(t, "V"), -1);
    assert_int_equal(t->nrows, 0);
    /* new rows are null; 40 rows grow the storage past its first 16 */
    for (long i = 0; i < 40; i++)
        assert_int_equal(tlm_tab_add_row(t), i);
    assert_int_equal(t->nrows, 40);
    assert_true(tlm_tab_cell(t, 39, 1)->null);
    tlm_tab_set_f(t, 39, 1, 2.5);
    assert_false(tlm_tab_cell(t, 39, 1)->null);
    assert_true(tlm_tab_cell(t, 39, 1)->v.f == 2.5);
    tlm_tab_set_f(t, 39, 1, (double)NAN); /* NaN is a null cell */
    assert_true(tlm_tab_cell(t, 39, 1)->null);
    tlm_tab_set_f(t, 0, 0, 1.0);
    tlm_tab_set_null(t, 0, 0);
    assert_true(tlm_tab_cell(t, 0, 0)->null);
    assert_false(t->oom);
    tlm_tab_free(t);
    tlm_tab_free(NULL);

    const char *c3[] = {"s", "i", "b"};
    tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_I64, TLM_COL_BOOL};
    t = tlm_tab_new("x", 3, c3, ty);
    assert_non_null(t);
    assert_int_equal(tlm_tab_add_row(t), 0);
    char text[] = "abcdef";
    tlm_tab_set_s(t, 0, 0, text, 3); /* n bytes, NUL added */
    text[0] = 'Z';
    assert_string_equal(tlm_tab_cell(t, 0, 0)->v.s, "abc");
    tlm_tab_set_i(t, 0, 1, INT64_MIN);
    assert_true(tlm_tab_cell(t, 0, 1)->v.i == INT64_MIN);
    tlm_tab_set_b(t, 0, 2, 42); /* any nonzero is True */
    assert_int_equal(tlm_tab_cell(t, 0, 2)->v.i, 1);
    csv_is(t, "s,i,b\nabc,-9223372036854775808,True\n");
    tlm_tab_set_b(t, 0, 2, 0);
    tlm_tab_set_s(t, 0, 0, NULL, 0); /* empty text, not null */
    assert_false(tlm_tab_cell(t, 0, 0)->null);
    csv_is(t, "s,i,b\n,-9223372036854775808,False\n");
    tlm_tab_free(t);
}

static void test_permute_truncate(void **state)
{
    (void)state;
    const char *cols[] = {"k", "s"};
    tlm_coltype ty[] = {TLM_COL_I64, TLM_COL_STR};
    tlm_tab *t = tlm_tab_new("p", 2, cols, ty);
    assert_non_null(t);
    static const char *const s[4] = {"a", "b", "c", "d"};
    for (size_t i = 0; i < 4; i++) {
        tlm_tab_add_row(t);
        tlm_tab_set_i(t, i, 0, (int64_t)i * 10);
        tlm_tab_set_s(t, i, 1, s[i], 1);
    }
    tlm_tab_set_null(t, 2, 1);
    /* new row i = old row perm[i] */
    static const size_t perm[4] = {2, 0, 3, 1};
    assert_int_equal(tlm_tab_permute(t, perm), TLM_OK);
    csv_is(t, "k,s\n20,\n0,a\n30,d\n10,b\n");
    /* the table still grows after a permutation */
    assert_int_equal(tlm_tab_add_row(t), 4);
    tlm_tab_set_i(t, 4, 0, 40);
    tlm_tab_truncate(t, 7); /* more than there are: nothing changes */
    assert_int_equal(t->nrows, 5);
    tlm_tab_truncate(t, 2);
    assert_int_equal(t->nrows, 2);
    csv_is(t, "k,s\n20,\n0,a\n");
    tlm_tab_truncate(t, 1);
    assert_int_equal(tlm_tab_permute(t, perm), TLM_OK); /* < 2 rows */
    csv_is(t, "k,s\n20,\n");
    tlm_tab_truncate(t, 0);
    csv_is(t, "k,s\n");
    tlm_tab_free(t);
}

static void test_csv(void **state)
{
    (void)state;
    const char *cols[] = {"s", "f", "i", "b"};
    tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64, TLM_COL_I64, TLM_COL_BOOL};
    tlm_tab *t = tlm_tab_new("x", 4, cols, ty);
    assert_non_null(t);
    long r = tlm_tab_add_row(t);
    tlm_tab_set_s(t, (size_t)r, 0, "a,\"b\"", 5);
    tlm_tab_set_f(t, (size_t)r, 1, 0.5);
    tlm_tab_set_i(t, (size_t)r, 2, -3);
    tlm_tab_set_b(t, (size_t)r, 3, 1);
    r = tlm_tab_add_row(t); /* all null */
    r = tlm_tab_add_row(t);
    tlm_tab_set_s(t, (size_t)r, 0, "\xc2\xb5s", 3);
    tlm_tab_set_f(t, (size_t)r, 1, (double)NAN);
    csv_is(t, "s,f,i,b\n\"a,\"\"b\"\"\",0.5,-3,True\n,,,\n"
              "\xc2\xb5s,,,\n");
    tlm_tab_free(t);
}

/* A column appended to a table with rows (null cells, then set), moved
 * forward and back; an empty table too. */
static void test_append_move_col(void **state)
{
    (void)state;
    const char *cols[] = {"a", "b", "c"};
    tlm_tab *t = tlm_tab_new("x", 3, cols, NULL);
    for (int k = 0; k < 20; k++) { /* past the first 16-row block */
        long r = tlm_tab_add_row(t);
        for (size_t c = 0; c < 3; c++)
            tlm_tab_set_f(t, (size_t)r, c, (double)(k * 10 + (int)c));
    }
    assert_int_equal(tlm_tab_append_col(t, "d", TLM_COL_BOOL), TLM_OK);
    assert_int_equal(t->ncols, 4);
    assert_true(tlm_tab_cell(t, 19, 3)->null);
    assert_true(tlm_tab_cell(t, 19, 2)->v.f == 192.0);
    tlm_tab_set_b(t, 0, 3, 1);
    tlm_tab_move_col(t, 3, 1);
    assert_string_equal(t->colnames[1], "d");
    assert_string_equal(t->colnames[3], "c");
    assert_int_equal(t->coltypes[1], TLM_COL_BOOL);
    assert_int_equal(tlm_tab_cell(t, 0, 1)->v.i, 1);
    assert_true(tlm_tab_cell(t, 0, 2)->v.f == 1.0);
    assert_true(tlm_tab_cell(t, 7, 3)->v.f == 72.0);
    tlm_tab_move_col(t, 1, 3);
    assert_string_equal(t->colnames[3], "d");
    assert_true(tlm_tab_cell(t, 5, 1)->v.f == 51.0);
    tlm_tab_free(t);
    t = tlm_tab_new("y", 1, cols, NULL);
    assert_int_equal(tlm_tab_append_col(t, "z", TLM_COL_STR), TLM_OK);
    assert_int_equal(tlm_tab_add_row(t), 0);
    assert_true(tlm_tab_cell(t, 0, 1)->null);
    tlm_tab_free(t);
}

/* Quoting of every special character, in a header too, and floats as
 * Python prints them. */
/* A text cell keeps its length; text_bytes prints it whole, NULs and
 * all (the HTA tables), else up to the first NUL (the report's). */
static void test_text_bytes(void **state)
{
    (void)state;
    const char *names[] = {"name", "n"};
    const tlm_coltype types[] = {TLM_COL_STR, TLM_COL_I64};
    tlm_tab *t = tlm_tab_new("t", 2, names, types);
    assert_non_null(t);
    assert_int_equal(tlm_tab_add_row(t), 0);
    tlm_tab_set_s(t, 0, 0, "a\0b,c", 5);
    tlm_tab_set_i(t, 0, 1, 1);
    assert_int_equal(tlm_tab_cell(t, 0, 0)->len, 5);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    assert_int_equal(b.len, 11);
    assert_memory_equal(b.p, "name,n\na,1\n", 11);
    tlm_sbuf_reset(&b);
    t->text_bytes = 1;
    tlm_tab_csv_sbuf(t, &b);
    assert_int_equal(b.len, 17);
    assert_memory_equal(b.p, "name,n\n\"a\0b,c\",1\n", 17);
    tlm_sbuf_free(&b);
    tlm_tab_free(t);
}

static void test_csv_quoting_and_floats(void **state)
{
    (void)state;
    const char *cols[] = {"Input Dims", "a,b", "say \"hi\""};
    tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64, TLM_COL_F64};
    tlm_tab *t = tlm_tab_new("q", 3, cols, ty);
    assert_non_null(t);
    static const struct {
        const char *s;
        double f;
    } rows[] = {{"((16,), (8, 32))", 1e16},
                {"line\nbreak", 1e-05},
                {"cr\rhere", 0.0001},
                {"it's;fine|here", 123456789.0},
                {"\"", -0.0},
                {"", 1.0 / 3.0},
                {"x", 2.5e-07}};
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++) {
        tlm_tab_add_row(t);
        tlm_tab_set_s(t, i, 0, rows[i].s, strlen(rows[i].s));
        tlm_tab_set_f(t, i, 1, rows[i].f);
        tlm_tab_set_f(t, i, 2, (double)i);
    }
    csv_is(t, "Input Dims,\"a,b\",\"say \"\"hi\"\"\"\n"
              "\"((16,), (8, 32))\",1e+16,0.0\n"
              "\"line\nbreak\",1e-05,1.0\n"
              "\"cr\rhere\",0.0001,2.0\n"
              "it's;fine|here,123456789.0,3.0\n"
              "\"\"\"\",-0.0,4.0\n"
              ",0.3333333333333333,5.0\n"
              "x,2.5e-07,6.0\n");
    tlm_tab_free(t);
}

/* The file has exactly the text of the buffer; errors name the file. */
static void test_write_csv(void **state)
{
    (void)state;
    const char *cols[] = {"name", "us"};
    tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64};
    tlm_tab *t = tlm_tab_new("kernels", 2, cols, ty);
    assert_non_null(t);
    char dir[256], path[512];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/k.csv", dir);
    /* no rows: the header alone */
    assert_int_equal(tlm_tab_write_csv(t, path, NULL), TLM_OK);
    char *got = tr_text(path);
    assert_string_equal(got, "name,us\n");
    free(got);
    for (size_t i = 0; i < 3000; i++) {
        tlm_tab_add_row(t);
        tlm_tab_set_s(t, i, 0, "gemm, fused", 11);
        tlm_tab_set_f(t, i, 1, (double)i / 8.0);
    }
    assert_int_equal(tlm_tab_write_csv(t, path, NULL), TLM_OK);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    got = tr_text(path);
    assert_string_equal(got, b.p);
    assert_memory_equal(b.p, "name,us\n\"gemm, fused\",0.0\n"
                             "\"gemm, fused\",0.125\n", 46);
    free(got);
    tlm_sbuf_free(&b);
    tlm_error err;
    snprintf(path, sizeof path, "%s/missing/k.csv", dir);
    assert_int_equal(tlm_tab_write_csv(t, path, &err), TLM_EIO);
    assert_string_equal(err.msg, "cannot create: No such file or directory");
    assert_string_equal(err.file, path);
    tt_rm_rf(dir);
    tlm_tab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_permute_truncate),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_append_move_col),
        cmocka_unit_test(test_csv_quoting_and_floats),
        cmocka_unit_test(test_text_bytes),
        cmocka_unit_test(test_write_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
