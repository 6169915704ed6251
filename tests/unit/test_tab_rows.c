/*
 * test_tab_rows.c - the table model's two forms together (src/table/
 * tab_rows.c): a tlm_tab from column descriptors, and a tlm_tab of
 * fixed-size rows described by a tlm_rowtab (every element type: I32,
 * I64, U64 past INT64_MAX as its decimal text, F64 with NaN empty, a STR
 * field filled to its end without a NUL), printed as the driver's CSV
 * writers print the rows; and the HDF5 schema's own descriptors.
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
#include "tables.h"

/* A small fixed-row table, declared as the schema's are. */
#define TEST_COLS(X)                                                        \
    X(I32, rank, 0, "", "rank")                                             \
    X(I64, dur, 0, "ns", "a duration")                                     \
    X(U64, hash, 0, "", "a hash")                                          \
    X(F64, gbps, 0, "GB/s", "a bandwidth")                                 \
    X(STR, name, 8, "", "a name")

typedef struct test_row {
    TEST_COLS(TLM_FIELD_)
} test_row;

#define TLM_ROW test_row
static const tlm_col test_cols[] = {TEST_COLS(TLM_COL_)};
#undef TLM_ROW
static const tlm_rowtab test_tab = {"test/rows", "rows of a test", test_cols,
                                    5, sizeof(test_row)};

static char *csv_of(const tlm_tab *t)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    assert_false(b.oom);
    return b.p;
}

static void test_from_rows(void **state)
{
    (void)state;
    test_row rows[3];
    memset(rows, 0, sizeof rows);
    rows[0] = (test_row){-1, 1234567890123, 18446744073709551615ull, 0.1, ""};
    tlm_strset(rows[0].name, sizeof rows[0].name, "gemm, 1");
    rows[1] = (test_row){7, -5, 42, NAN, ""};
    memcpy(rows[1].name, "abcdefgh", 8); /* full, no NUL */
    rows[2] = (test_row){0, 0, 0, 1e20, ""};
    tlm_strset(rows[2].name, sizeof rows[2].name, "q\"t");
    tlm_tab *t = NULL;
    assert_int_equal(tlm_tab_from_rows(&test_tab, rows, 3, &t), TLM_OK);
    assert_string_equal(t->name, "test/rows");
    assert_int_equal(t->ncols, 5);
    assert_int_equal(t->nrows, 3);
    assert_int_equal(t->coltypes[0], TLM_COL_I64);
    assert_int_equal(t->coltypes[2], TLM_COL_STR);
    assert_int_equal(t->coltypes[3], TLM_COL_F64);
    assert_true(tlm_tab_cell(t, 1, 3)->null);
    assert_int_equal(tlm_tab_col(t, "gbps"), 3);
    char *csv = csv_of(t);
    assert_string_equal(csv, "rank,dur,hash,gbps,name\n"
                             "-1,1234567890123,18446744073709551615,0.1,"
                             "\"gemm, 1\"\n"
                             "7,-5,42,,abcdefgh\n"
                             "0,0,0,1e+20,\"q\"\"t\"\n");
    free(csv);
    tlm_tab_free(t);
    /* no rows: the header alone */
    assert_int_equal(tlm_tab_from_rows(&test_tab, NULL, 0, &t), TLM_OK);
    csv = csv_of(t);
    assert_string_equal(csv, "rank,dur,hash,gbps,name\n");
    free(csv);
    tlm_tab_free(t);
}

static void test_new_cols(void **state)
{
    (void)state;
    const tlm_tabcol cols[] = {{"kernel", TLM_COL_STR, "", "its name"},
                               {"time (us)", TLM_COL_F64, "us", NULL},
                               {"count", TLM_COL_I64, NULL, NULL}};
    tlm_tab *t = tlm_tab_new_cols("k", cols, 3);
    assert_non_null(t);
    long r = tlm_tab_add_row(t);
    assert_int_equal(r, 0);
    tlm_tab_set_s(t, 0, 0, "a", 1);
    tlm_tab_set_f(t, 0, 1, 2.5);
    tlm_tab_set_i(t, 0, 2, 3);
    char *csv = csv_of(t);
    assert_string_equal(csv, "kernel,time (us),count\na,2.5,3\n");
    free(csv);
    tlm_tab_free(t);
    assert_int_equal(tlm_col_tabtype(TLM_CT_I32), TLM_COL_I64);
    assert_int_equal(tlm_col_tabtype(TLM_CT_U64), TLM_COL_STR);
}

/* Every dataset of the HDF5 schema gives a table of its columns. */
static void test_schema_tables(void **state)
{
    (void)state;
    const tlm_rowtab *const tabs[] = {&tlm_tab_traces, &tlm_tab_timeline,
                                      &tlm_tab_ops};
    for (size_t k = 0; k < sizeof tabs / sizeof tabs[0]; k++) {
        const tlm_rowtab *rt = tabs[k];
        char *rows = calloc(2, rt->row_size);
        assert_non_null(rows);
        tlm_tab *t = NULL;
        assert_int_equal(tlm_tab_from_rows(rt, rows, 2, &t), TLM_OK);
        assert_int_equal(t->ncols, rt->n_cols);
        assert_int_equal(t->nrows, 2);
        for (size_t j = 0; j < rt->n_cols; j++)
            assert_string_equal(t->colnames[j], rt->cols[j].name);
        tlm_tab_free(t);
        free(rows);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_rows),
        cmocka_unit_test(test_new_cols),
        cmocka_unit_test(test_schema_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
