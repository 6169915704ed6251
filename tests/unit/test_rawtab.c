/*
 * test_rawtab.c - pandas-style column typing of raw cells (src/cmp/
 * rawtab.c, rawtab_type.c; compare.md §2.2): the missing-value set
 * (whole fields only), integers (blanks around, sign, leading zeros,
 * outside int64 -> float), floats (syntax, inf words, overflow stays
 * text, hex and "1_000" are text), booleans (any case; with a missing
 * cell an object column of True/False), object columns keeping the
 * original text, int + missing -> float, all missing -> float, no rows
 * -> object; workbook cells by kind (a string typed as a CSV field, as
 * text, numbers in a mixed column print as Python's str()); cells set
 * out of range are ignored.  Values are checked through the CSV form
 * pandas would write (tlm_tab_csv_sbuf).  The expectations were taken
 * from pandas' read_csv (1.5.3; "None" as in pandas >= 2).
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

#include "rawtab.h"
#include "sbuf.h"

/* A one-column table "a" of CSV fields (NULL: cell not set), typed. */
static tlm_tab *typed(const char *const *fields, size_t n)
{
    const char *names[] = {"a"};
    tlm_rawtab *r = tlm_rawtab_new(1, names);
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) {
        long row = tlm_rawtab_add_row(r);
        assert_true(row >= 0);
        if (fields[i])
            tlm_rawtab_set_text(r, (size_t)row, 0, fields[i],
                                strlen(fields[i]));
    }
    tlm_tab *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_rawtab_to_tab(r, "s", &t, &err), TLM_OK);
    tlm_rawtab_free(r);
    return t;
}

static void csv_is(const tlm_tab *t, const char *want)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    assert_false(b.oom);
    assert_string_equal(b.p, want);
    tlm_sbuf_free(&b);
}

#define COLUMN(type, csv, ...)                                           \
    do {                                                                 \
        const char *f_[] = {__VA_ARGS__};                                \
        tlm_tab *t_ = typed(f_, sizeof f_ / sizeof *f_);                 \
        assert_int_equal(t_->coltypes[0], type);                         \
        csv_is(t_, csv);                                                 \
        tlm_tab_free(t_);                                                \
    } while (0)

static void test_missing(void **state)
{
    (void)state;
    static const char *na[] = {
        "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN",
        "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN",
        "n/a", "nan", "null", "None"};
    for (size_t i = 0; i < sizeof na / sizeof *na; i++) {
        const char *f[] = {"1", na[i]};
        tlm_tab *t = typed(f, 2);
        assert_int_equal(t->coltypes[0], TLM_COL_F64);
        assert_true(tlm_tab_cell(t, 1, 0)->null);
        tlm_tab_free(t);
    }
    /* whole fields only: a missing word with blanks or inside is text */
    COLUMN(TLM_COL_STR, "a\n1\n nan\n\"('float', None)\"\n", "1", " nan",
           "('float', None)");
    COLUMN(TLM_COL_STR, "a\n1\n+nan\n", "1", "+nan");
    /* all missing: float64, every cell null */
    COLUMN(TLM_COL_F64, "a\n\"\"\n\"\"\n\"\"\n", "", "NA", NULL);
}

static void test_integers(void **state)
{
    (void)state;
    COLUMN(TLM_COL_I64, "a\n48\n48\n48\n12\n0\n-7\n",
           " 48", "48 ", "+48", "00012", "-0", "\t-7");
    COLUMN(TLM_COL_I64, "a\n9223372036854775807\n-9223372036854775808\n",
           "9223372036854775807", "-9223372036854775808");
    /* with a missing cell the column is float */
    COLUMN(TLM_COL_F64, "a\n48.0\n\"\"\n", "48", "NA");
    /* outside int64: a float (pandas: uint64 or object) */
    COLUMN(TLM_COL_F64, "a\n1.0\n1e+20\n", "1", "100000000000000000000");
    COLUMN(TLM_COL_F64, "a\n-9.223372036854776e+18\n",
           "-9223372036854775809");
    /* not integers */
    COLUMN(TLM_COL_STR, "a\n1_000\n0x10\n1 2\n", "1_000", "0x10", "1 2");
}

static void test_floats(void **state)
{
    (void)state;
    COLUMN(TLM_COL_F64, "a\n1.0\n1.5\n0.5\n5.0\n100000.0\n100000.0\n1.5\n"
                        "100000.0\n-0.0\n",
           "1", " 1.5 ", ".5", "5.", "1e5", "1E+05", "+1.5", "1.e5",
           "-0.0");
    /* correctly rounded (pandas' own parser is 1 ulp off here) */
    COLUMN(TLM_COL_F64, "a\n31.905483154296874\n", "31.905483154296874");
    COLUMN(TLM_COL_F64, "a\ninf\ninf\n-inf\ninf\ninf\n0.0\n", "inf",
           "Infinity", "-Infinity", "+inf", "iNf", "1e-400");
    /* overflow and malformed numbers stay text, verbatim */
    COLUMN(TLM_COL_STR, "a\n1e400\n1.5\n", "1e400", "1.5");
    COLUMN(TLM_COL_STR, "a\n1e\n.e5\n1d5\n.\n-\n", "1e", ".e5", "1d5", ".",
           "-");
    COLUMN(TLM_COL_STR, "a\n 1.5\nx\n", " 1.5", "x");
}

static void test_booleans(void **state)
{
    (void)state;
    COLUMN(TLM_COL_BOOL, "a\nTrue\nTrue\nTrue\nFalse\nTrue\nFalse\n",
           "True", "true", "TRUE", "False", "tRUE", "false");
    /* with a missing cell: an object column of Python bools */
    COLUMN(TLM_COL_STR, "a\nTrue\n\"\"\nFalse\n", "true", "", "FALSE");
    /* beside a number or a text: the original texts */
    COLUMN(TLM_COL_STR, "a\n1\ntrue\n", "1", "true");
    COLUMN(TLM_COL_STR, "a\ntrue\nyes\n", "true", "yes");
    /* blanks around a boolean make it text */
    COLUMN(TLM_COL_STR, "a\nTrue\n False \n", "True", " False ");
}

static void test_objects(void **state)
{
    (void)state;
    /* a text column keeps every field as written, missing ones null */
    COLUMN(TLM_COL_STR, "a\n1\n2.50\nx\n\"\"\n007\n", "1", "2.50", "x", "NA",
           "007");
    /* a column of integers and floats is float */
    COLUMN(TLM_COL_F64, "a\n1.0\n2.5\n", "1", "2.5");
}

static void test_empty_and_shape(void **state)
{
    (void)state;
    const char *names[] = {"x", "y"};
    tlm_rawtab *r = tlm_rawtab_new(2, names);
    tlm_tab *t = NULL;
    assert_int_equal(tlm_rawtab_to_tab(r, "empty", &t, NULL), TLM_OK);
    assert_int_equal(t->nrows, 0);
    assert_int_equal(t->coltypes[0], TLM_COL_STR); /* pandas: object */
    assert_string_equal(t->name, "empty");
    csv_is(t, "x,y\n");
    tlm_tab_free(t);
    /* cells set outside the table are ignored */
    long row = tlm_rawtab_add_row(r);
    tlm_rawtab_set_int(r, (size_t)row, 5, 1);
    tlm_rawtab_set_text(r, 3, 0, "x", 1);
    tlm_rawtab_set_int(r, (size_t)row, 0, 3);
    tlm_rawtab_set_text(r, (size_t)row, 1, "b", 1);
    assert_int_equal(tlm_rawtab_to_tab(r, "s", &t, NULL), TLM_OK);
    csv_is(t, "x,y\n3,b\n");
    tlm_tab_free(t);
    tlm_rawtab_free(r);
    /* no columns */
    r = tlm_rawtab_new(0, NULL);
    tlm_rawtab_add_row(r);
    assert_int_equal(tlm_rawtab_to_tab(r, "none", &t, NULL), TLM_OK);
    assert_int_equal(t->ncols, 0);
    tlm_tab_free(t);
    tlm_rawtab_free(r);
    /* out of memory is reported */
    r = tlm_rawtab_new(1, names);
    r->oom = 1;
    tlm_error err;
    assert_int_equal(tlm_rawtab_to_tab(r, "s", &t, &err), TLM_ENOMEM);
    assert_null(t);
    tlm_rawtab_free(r);
}

/* Workbook cells: typed by kind. */
static void test_workbook_cells(void **state)
{
    (void)state;
    const char *names[] = {"num", "int", "intna", "str", "mix", "bool",
                           "boolna", "nan", "µ"};
    tlm_rawtab *r = tlm_rawtab_new(9, names);
    for (int i = 0; i < 2; i++)
        tlm_rawtab_add_row(r);
    tlm_rawtab_set_num(r, 0, 0, 1.5);
    tlm_rawtab_set_int(r, 1, 0, 2);
    tlm_rawtab_set_int(r, 0, 1, 48);
    tlm_rawtab_set_int(r, 1, 1, -1);
    tlm_rawtab_set_int(r, 0, 2, 48);
    /* read_excel types text cells as read_csv types fields */
    tlm_rawtab_set_str(r, 0, 3, "48", 2); /* numeric */
    tlm_rawtab_set_str(r, 1, 3, "NA", 2); /* missing */
    tlm_rawtab_set_str(r, 0, 4, "x", 1);
    tlm_rawtab_set_num(r, 1, 4, 1.5);
    tlm_rawtab_set_bool(r, 0, 5, 1);
    tlm_rawtab_set_bool(r, 1, 5, 0);
    tlm_rawtab_set_bool(r, 0, 6, 0);
    tlm_rawtab_set_num(r, 0, 7, NAN);
    tlm_rawtab_set_str(r, 0, 8, "µs", strlen("µs"));
    tlm_tab *t = NULL;
    assert_int_equal(tlm_rawtab_to_tab(r, "wb", &t, NULL), TLM_OK);
    const tlm_coltype want[] = {TLM_COL_F64, TLM_COL_I64, TLM_COL_F64,
                                TLM_COL_F64, TLM_COL_STR, TLM_COL_BOOL,
                                TLM_COL_STR, TLM_COL_F64, TLM_COL_STR};
    for (size_t c = 0; c < 9; c++)
        assert_int_equal(t->coltypes[c], want[c]);
    csv_is(t, "num,int,intna,str,mix,bool,boolna,nan,µ\n"
              "1.5,48,48.0,48.0,x,True,False,,µs\n"
              "2.0,-1,,,1.5,False,,,\n");
    tlm_tab_free(t);
    /* a mixed column prints ints as ints and booleans as True/False */
    tlm_rawtab_free(r);
    const char *one[] = {"m"};
    r = tlm_rawtab_new(1, one);
    for (int i = 0; i < 4; i++)
        tlm_rawtab_add_row(r);
    tlm_rawtab_set_int(r, 0, 0, 48);
    tlm_rawtab_set_num(r, 1, 0, 1e16);
    tlm_rawtab_set_bool(r, 2, 0, 1);
    tlm_rawtab_set_str(r, 3, 0, "a,b", 3);
    assert_int_equal(tlm_rawtab_to_tab(r, "wb", &t, NULL), TLM_OK);
    csv_is(t, "m\n48\n1e+16\nTrue\n\"a,b\"\n");
    tlm_tab_free(t);
    tlm_rawtab_free(r);
    /* text cells beside texts keep their text ("007", "1.50"); "None"
     * is missing; "True" text beside booleans is a boolean (pandas'
     * TextParser, as read_excel runs it) */
    const char *two[] = {"s", "b"};
    r = tlm_rawtab_new(2, two);
    for (int i = 0; i < 4; i++)
        tlm_rawtab_add_row(r);
    tlm_rawtab_set_str(r, 0, 0, "007", 3);
    tlm_rawtab_set_str(r, 1, 0, "1.50", 4);
    tlm_rawtab_set_str(r, 2, 0, "None", 4);
    tlm_rawtab_set_str(r, 3, 0, "x", 1);
    tlm_rawtab_set_bool(r, 0, 1, 1);
    tlm_rawtab_set_str(r, 1, 1, "True", 4);
    tlm_rawtab_set_bool(r, 2, 1, 0);
    tlm_rawtab_set_str(r, 3, 1, "False", 5);
    assert_int_equal(tlm_rawtab_to_tab(r, "wb", &t, NULL), TLM_OK);
    assert_int_equal(t->coltypes[1], TLM_COL_BOOL);
    csv_is(t, "s,b\n007,True\n1.50,True\n,False\nx,False\n");
    tlm_tab_free(t);
    tlm_rawtab_free(r);
}

/* Many cells: texts spread over several arena blocks stay intact. */
static void test_many(void **state)
{
    (void)state;
    const char *names[] = {"s"};
    tlm_rawtab *r = tlm_rawtab_new(1, names);
    char buf[64];
    for (int i = 0; i < 20000; i++) {
        long row = tlm_rawtab_add_row(r);
        int n = snprintf(buf, sizeof buf, "text number %d", i);
        tlm_rawtab_set_text(r, (size_t)row, 0, buf, (size_t)n);
    }
    tlm_tab *t = NULL;
    assert_int_equal(tlm_rawtab_to_tab(r, "many", &t, NULL), TLM_OK);
    assert_int_equal(t->nrows, 20000);
    assert_string_equal(tlm_tab_cell(t, 19999, 0)->v.s, "text number 19999");
    assert_string_equal(tlm_tab_cell(t, 0, 0)->v.s, "text number 0");
    tlm_tab_free(t);
    tlm_rawtab_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_booleans),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_empty_and_shape),
        cmocka_unit_test(test_workbook_cells),
        cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
