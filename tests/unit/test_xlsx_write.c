/*
 * test_xlsx_write.c - the workbook writer (src/report/xlsx_write.c,
 * xlsx_names.c), read back with the workbook reader (src/cmp):
 * - every column type round-trips: floats (null and NaN empty, inf
 *   empty; 16 significant digits, libxlsxwriter's %.16G), ints (above
 *   2^53 as exact text), texts (µ, a formula-like
 *   "=1+1" stays a string, an empty text is an empty cell, a literal
 *   _x0041_ and a control character come back as written, a text
 *   above 32,767 characters is cut there), booleans;
 *   typed again (tlm_rawtab_to_tab) the table writes the same CSV;
 * - sheets in order with their names, an empty table (header only), a
 *   table with no columns;
 * - the worksheet XML: hidden columns hidden, the header row frozen,
 *   strings inline (constant-memory mode), no formula;
 * - refused names (too long, forbidden characters, apostrophes, a
 *   case-insensitive duplicate) give TLM_EINVAL and write nothing; an
 *   unwritable path gives TLM_EIO naming it;
 * - tlm_xlsx_sheet_names: pandas' 31-character cut counted in
 *   characters (µ is one), collisions renamed ~2, ~3, forbidden
 *   characters replaced, an empty name.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include <cmocka.h>

#include "tlm_test_util.h"
#include "sbuf.h"
#include "xlsx_read.h"
#include "xlsx_write.h"

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    tt_tmpdir(g_dir, sizeof g_dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tt_rm_rf(g_dir);
    return 0;
}

static const char *tmp(const char *name)
{
    static char p[8][512];
    static unsigned k;
    char *b = p[k++ % 8];
    snprintf(b, sizeof p[0], "%s/%s", g_dir, name);
    return b;
}

static tlm_tab *sample(void)
{
    const char *cols[] = {"f", "i", "s", "b", "big", "name µs"};
    const tlm_coltype ty[] = {TLM_COL_F64, TLM_COL_I64, TLM_COL_STR,
                              TLM_COL_BOOL, TLM_COL_I64, TLM_COL_STR};
    tlm_tab *t = tlm_tab_new("sample", 6, cols, ty);
    for (int r = 0; r < 4; r++)
        tlm_tab_add_row(t);
    tlm_tab_set_f(t, 0, 0, 1.5);
    tlm_tab_set_f(t, 1, 0, NAN);
    tlm_tab_set_f(t, 2, 0, -2.161555419921878);
    tlm_tab_set_f(t, 3, 0, 1e-05);
    for (int r = 0; r < 4; r++) {
        tlm_tab_set_i(t, (size_t)r, 1, 48 - r);
        tlm_tab_set_b(t, (size_t)r, 3, r % 2);
        tlm_tab_set_i(t, (size_t)r, 4, r);
    }
    tlm_tab_set_s(t, 0, 2, "µ", strlen("µ"));
    tlm_tab_set_s(t, 1, 2, "=1+1", 4);
    tlm_tab_set_s(t, 2, 2, "a,\"b\"\nc", 7);
    tlm_tab_set_s(t, 0, 5, "aten::mm", 8);
    tlm_tab_set_s(t, 3, 5, "x_x0041_\001y", 10); /* reads back as is */
    return t;
}

static void csv_of(const tlm_tab *t, tlm_sbuf *b)
{
    tlm_sbuf_init(b);
    tlm_tab_csv_sbuf(t, b);
    assert_false(b->oom);
}

static tlm_tab *read_back(const char *path, const char *sheet)
{
    tlm_xlsx *x = NULL;
    tlm_rawtab *r = NULL;
    tlm_tab *t = NULL;
    assert_int_equal(tlm_xlsx_open(path, &x, NULL), TLM_OK);
    assert_int_equal(tlm_xlsx_read_sheet(x, sheet, &r, NULL), TLM_OK);
    assert_int_equal(tlm_rawtab_to_tab(r, sheet, &t, NULL), TLM_OK);
    tlm_rawtab_free(r);
    tlm_xlsx_close(x);
    return t;
}

/* The text of one zip entry (caller frees). */
static char *entry_text(const char *path, const char *name)
{
    int e = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &e);
    assert_non_null(z);
    zip_stat_t st;
    assert_int_equal(zip_stat(z, name, 0, &st), 0);
    char *p = calloc(1, st.size + 1);
    zip_file_t *f = zip_fopen(z, name, 0);
    assert_non_null(f);
    assert_int_equal(zip_fread(f, p, st.size), (zip_int64_t)st.size);
    zip_fclose(f);
    zip_discard(z);
    return p;
}

static void test_round_trip(void **state)
{
    (void)state;
    tlm_tab *t = sample();
    const char *cols[] = {"only"};
    tlm_tab *empty = tlm_tab_new("e", 1, cols, NULL);
    tlm_tab *none = tlm_tab_new("n", 0, NULL, NULL);
    const unsigned char hide[] = {0, 1, 0, 0, 0, 1};
    tlm_xlsx_sheet s[] = {{t, "ops_summary_intersect_mi300_x", hide},
                          {empty, "µ empty", NULL},
                          {none, "none", NULL}};
    const char *path = tmp("rt.xlsx");
    tlm_error err;
    assert_int_equal(tlm_xlsx_write(path, s, 3, &err), TLM_OK);

    tlm_xlsx *x = NULL;
    assert_int_equal(tlm_xlsx_open(path, &x, NULL), TLM_OK);
    assert_int_equal(tlm_xlsx_nsheets(x), 3);
    assert_string_equal(tlm_xlsx_sheet_name(x, 0), s[0].name);
    assert_string_equal(tlm_xlsx_sheet_name(x, 1), "µ empty");
    assert_string_equal(tlm_xlsx_sheet_name(x, 2), "none");
    tlm_xlsx_close(x);

    tlm_tab *b = read_back(path, s[0].name);
    tlm_sbuf want, got;
    csv_of(t, &want);
    csv_of(b, &got);
    assert_string_equal(got.p, want.p);
    const tlm_coltype ty[] = {TLM_COL_F64, TLM_COL_I64, TLM_COL_STR,
                              TLM_COL_BOOL, TLM_COL_I64, TLM_COL_STR};
    for (size_t c = 0; c < 6; c++)
        assert_int_equal(b->coltypes[c], ty[c]);
    tlm_sbuf_free(&want);
    tlm_sbuf_free(&got);
    tlm_tab_free(b);

    b = read_back(path, "µ empty");
    assert_int_equal(b->ncols, 1);
    assert_int_equal(b->nrows, 0);
    assert_string_equal(b->colnames[0], "only");
    tlm_tab_free(b);
    b = read_back(path, "none");
    assert_int_equal(b->ncols, 0);
    tlm_tab_free(b);

    /* the sheet's XML: columns B and F hidden, header frozen, no
     * formula, strings inline */
    char *xml = entry_text(path, "xl/worksheets/sheet1.xml");
    assert_non_null(strstr(xml, "<col min=\"2\" max=\"2\""));
    assert_non_null(strstr(xml, "<col min=\"6\" max=\"6\""));
    int hidden = 0;
    for (const char *p = xml; (p = strstr(p, "hidden=\"1\"")); p++)
        hidden++;
    assert_int_equal(hidden, 2);
    assert_non_null(strstr(xml, "ySplit=\"1\""));
    assert_non_null(strstr(xml, "state=\"frozen\""));
    assert_null(strstr(xml, "<f>"));
    assert_non_null(strstr(xml, "t=\"inlineStr\""));
    free(xml);
    tlm_tab_free(t);
    tlm_tab_free(empty);
    tlm_tab_free(none);
}

static void test_special_values(void **state)
{
    (void)state;
    const char *cols[] = {"f", "i"};
    const tlm_coltype ty[] = {TLM_COL_F64, TLM_COL_I64};
    tlm_tab *t = tlm_tab_new("v", 2, cols, ty);
    for (int r = 0; r < 3; r++)
        tlm_tab_add_row(t);
    tlm_tab_set_f(t, 0, 0, INFINITY);
    tlm_tab_set_f(t, 1, 0, -INFINITY);
    tlm_tab_set_f(t, 2, 0, 2.5);
    tlm_tab_set_i(t, 0, 1, INT64_MAX);
    tlm_tab_set_i(t, 1, 1, 9007199254740992LL); /* 2^53: still a number */
    tlm_tab_set_i(t, 2, 1, -9007199254740993LL);
    tlm_tab_add_row(t);
    tlm_tab_set_f(t, 3, 0, -2.1615554199218785); /* needs 17 digits */
    tlm_xlsx_sheet s = {t, "v", NULL};
    const char *path = tmp("special.xlsx");
    assert_int_equal(tlm_xlsx_write(path, &s, 1, NULL), TLM_OK);
    tlm_xlsx *x = NULL;
    tlm_rawtab *r = NULL;
    assert_int_equal(tlm_xlsx_open(path, &x, NULL), TLM_OK);
    assert_int_equal(tlm_xlsx_read_sheet(x, "v", &r, NULL), TLM_OK);
    assert_int_equal(r->cells[0].kind, TLM_RAW_EMPTY); /* inf */
    assert_int_equal(r->cells[2].kind, TLM_RAW_EMPTY); /* -inf */
    assert_int_equal(r->cells[1].kind, TLM_RAW_STR);   /* > 2^53: text */
    assert_string_equal(r->cells[1].s, "9223372036854775807");
    assert_int_equal(r->cells[3].kind, TLM_RAW_INT);
    assert_int_equal(r->cells[3].v.i, 9007199254740992LL);
    assert_int_equal(r->cells[5].kind, TLM_RAW_STR);
    assert_string_equal(r->cells[5].s, "-9007199254740993");
    /* libxlsxwriter writes 16 significant digits (%.16G) */
    assert_int_equal(r->cells[6].kind, TLM_RAW_NUM);
    assert_true(fabs(r->cells[6].v.f + 2.1615554199218785) < 1e-15);
    tlm_rawtab_free(r);
    tlm_xlsx_close(x);
    tlm_tab_free(t);
}

/* Texts above Excel's 32,767 characters are cut there (characters, not
 * bytes). */
static void test_long_text(void **state)
{
    (void)state;
    const char *cols[] = {"s"};
    const tlm_coltype ty[] = {TLM_COL_STR};
    tlm_tab *t = tlm_tab_new("l", 1, cols, ty);
    size_t n = 40000 * strlen("µ");
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i += 2)
        memcpy(big + i, "µ", 2);
    big[n] = '\0';
    tlm_tab_add_row(t);
    tlm_tab_add_row(t);
    tlm_tab_set_s(t, 0, 0, big, n);
    memset(big, 'a', 40000);
    tlm_tab_set_s(t, 1, 0, big, 40000);
    free(big);
    tlm_xlsx_sheet s = {t, "l", NULL};
    const char *path = tmp("long.xlsx");
    assert_int_equal(tlm_xlsx_write(path, &s, 1, NULL), TLM_OK);
    tlm_tab *b = read_back(path, "l");
    assert_int_equal(strlen(tlm_tab_cell(b, 0, 0)->v.s), 32767 * 2);
    assert_int_equal(strlen(tlm_tab_cell(b, 1, 0)->v.s), 32767);
    tlm_tab_free(b);
    tlm_tab_free(t);
}

static void refused(const char *name1, const char *name2, tlm_status st,
                    const char *want)
{
    tlm_tab *t = sample();
    tlm_xlsx_sheet s[] = {{t, name1, NULL}, {t, name2, NULL}};
    const char *path = tmp("refused.xlsx");
    tlm_error err;
    tlm_error_clear(&err);
    assert_int_equal(tlm_xlsx_write(path, s, name2 ? 2 : 1, &err), st);
    if (!strstr(err.msg, want))
        fprintf(stderr, "message: %s\n", err.msg);
    assert_non_null(strstr(err.msg, want));
    assert_int_equal(access(path, F_OK), -1); /* nothing written */
    tlm_tab_free(t);
}

static void test_refused(void **state)
{
    (void)state;
    refused("unified_perf_summary_intersect_mi300", NULL, TLM_EINVAL,
            "invalid worksheet name 'unified_perf_summary_intersect_mi300'");
    refused("a/b", NULL, TLM_EINVAL, "invalid worksheet name");
    refused("a[1]", NULL, TLM_EINVAL, "invalid worksheet name");
    refused("'quoted'", NULL, TLM_EINVAL, "invalid worksheet name");
    refused("", NULL, TLM_EINVAL, "invalid worksheet name");
    refused("Sheet", "sHEET", TLM_EINVAL, "two worksheets named 'sHEET'");
    /* 31 characters of which one is µ (32 bytes): accepted */
    tlm_tab *t = sample();
    tlm_xlsx_sheet s = {t, "µ123456789012345678901234567890", NULL};
    assert_int_equal(tlm_xlsx_write(tmp("mu.xlsx"), &s, 1, NULL), TLM_OK);
    /* an unwritable path */
    tlm_error err;
    const char *bad = tmp("no/such/dir/x.xlsx");
    assert_int_equal(tlm_xlsx_write(bad, &s, 1, &err), TLM_EIO);
    assert_string_equal(err.file, bad);
    tlm_tab_free(t);
}

static void test_sheet_names(void **state)
{
    (void)state;
    const char *in[] = {
        "unified_perf_summary_intersect_mi300",
        "unified_perf_summary_intersect_mi355",
        "UNIFIED_PERF_SUMMARY_INTERSECT_x",
        "gpu_timeline",
        "a/b:c",
        "",
        "'x'",
        "µµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµ",
    };
    char out[8][TLM_XLSX_NAME_MAX];
    tlm_xlsx_sheet_names(in, 8, out);
    assert_string_equal(out[0], "unified_perf_summary_intersect_");
    assert_string_equal(out[1], "unified_perf_summary_intersec~2");
    assert_string_equal(out[2], "UNIFIED_PERF_SUMMARY_INTERSEC~3");
    assert_string_equal(out[3], "gpu_timeline");
    assert_string_equal(out[4], "a_b_c");
    assert_string_equal(out[5], "Sheet");
    assert_string_equal(out[6], "_x_");
    assert_int_equal(strlen(out[7]), 31 * strlen("µ"));
    for (size_t i = 0; i < 8; i++) {
        assert_true(tlm_xlsx_name_ok(out[i]));
        for (size_t j = 0; j < i; j++)
            assert_false(tlm_xlsx_same_name(out[i], out[j]));
    }
    /* every name a writer accepts */
    tlm_tab *t = sample();
    tlm_xlsx_sheet s[8];
    for (size_t i = 0; i < 8; i++)
        s[i] = (tlm_xlsx_sheet){t, out[i], NULL};
    assert_int_equal(tlm_xlsx_write(tmp("names.xlsx"), s, 8, NULL), TLM_OK);
    tlm_tab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_long_text),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_sheet_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
