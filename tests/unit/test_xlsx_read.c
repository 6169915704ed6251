/*
 * test_xlsx_read.c - the workbook reader (src/cmp/xlsx_read.c,
 * xlsx_sheet.c, xlsx_zip.c):
 * - a workbook written by libxlsxwriter (shared strings): sheet names in
 *   workbook order, numbers, integral numbers as ints, strings, µ,
 *   booleans, empty cells, skipped columns, a blank row kept inside the
 *   data and trailing ones dropped, header cells that are numbers,
 *   empty and duplicate header names (pandas' Unnamed: i, x.1);
 * - a hand-made package: a sheet part reached through an absolute
 *   target with "..", shared strings with rich-text and phonetic runs,
 *   inline strings (runs), formula strings, error cells as missing,
 *   cells and rows without references, _xHHHH_ escapes, xml:space;
 * - bad input, each with a clear error naming the file and the part: a
 *   missing file, bytes that are not a zip, a truncated workbook, a
 *   missing sheet (compare.md's message), a sheet that is not well
 *   formed (with its line), a zip bomb, a DTD, XML nested too deep, a
 *   bad cell reference, a shared string index out of range, a sheet too
 *   sparse to expand; the same bytes through tlm_xlsx_open_mem.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include <cmocka.h>

#include "tlm_test_util.h"
#include "tlm_test_xlsx.h"
#include "sbuf.h"
#include "xlsx_read.h"

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
    static char p[16][512]; /* a few paths live at once */
    static unsigned k;
    char *b = p[k++ % 16];
    snprintf(b, sizeof p[0], "%s/%s", g_dir, name);
    return b;
}

static const tlm_rawcell *cell(const tlm_rawtab *r, size_t row, size_t col)
{
    assert_true(row < r->nrows && col < r->ncols);
    return &r->cells[row * r->ncols + col];
}

static void is_str(const tlm_rawtab *r, size_t row, size_t col,
                   const char *s)
{
    const tlm_rawcell *c = cell(r, row, col);
    assert_int_equal(c->kind, TLM_RAW_STR);
    assert_string_equal(c->s, s);
    assert_int_equal(c->n, strlen(s));
}

static void is_int(const tlm_rawtab *r, size_t row, size_t col, int64_t v)
{
    assert_int_equal(cell(r, row, col)->kind, TLM_RAW_INT);
    assert_int_equal(cell(r, row, col)->v.i, v);
}

static void is_kind(const tlm_rawtab *r, size_t row, size_t col, int kind)
{
    assert_int_equal(cell(r, row, col)->kind, kind);
}

static tlm_rawtab *read_sheet(const char *path, const char *sheet)
{
    tlm_xlsx *x = NULL;
    tlm_error err;
    tlm_rawtab *r = NULL;
    tlm_status st = tlm_xlsx_open(path, &x, &err);
    if (st)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, TLM_OK);
    st = tlm_xlsx_read_sheet(x, sheet, &r, &err);
    if (st)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, TLM_OK);
    tlm_xlsx_close(x);
    return r;
}

static void test_libxlsxwriter_book(void **state)
{
    (void)state;
    const char *path = tmp("lxw.xlsx");
    lxw_workbook *wb = workbook_new(path);
    lxw_worksheet *a = workbook_add_worksheet(wb, "zeta");
    lxw_worksheet *b = workbook_add_worksheet(wb, "µ sheet");
    /* header: text, text, number, empty, duplicates, bool */
    worksheet_write_string(a, 0, 0, "name", NULL);
    worksheet_write_string(a, 0, 1, "dur (µs)", NULL);
    worksheet_write_number(a, 0, 2, 5, NULL);
    worksheet_write_string(a, 0, 4, "x", NULL);
    worksheet_write_string(a, 0, 5, "x", NULL);
    worksheet_write_string(a, 0, 6, "x.1", NULL);
    worksheet_write_boolean(a, 0, 7, 1, NULL);
    worksheet_write_number(a, 0, 8, 1.5, NULL);
    /* row 2 */
    worksheet_write_string(a, 1, 0, "aten::mm", NULL);
    worksheet_write_number(a, 1, 1, 1.5, NULL);
    worksheet_write_number(a, 1, 2, 48, NULL);
    worksheet_write_boolean(a, 1, 4, 0, NULL);
    worksheet_write_string(a, 1, 5, "µ", NULL);
    worksheet_write_number(a, 1, 6, 2.0, NULL);
    worksheet_write_number(a, 1, 7, -1e300, NULL);
    /* row 3 blank; row 4 one cell far right; row 6 blank formatted */
    worksheet_write_string(a, 3, 9, "far", NULL);
    worksheet_write_blank(a, 5, 0, workbook_add_format(wb));
    worksheet_write_string(b, 0, 0, "only", NULL);
    assert_int_equal(workbook_close(wb), LXW_NO_ERROR);

    tlm_xlsx *x = NULL;
    assert_int_equal(tlm_xlsx_open(path, &x, NULL), TLM_OK);
    assert_int_equal(tlm_xlsx_nsheets(x), 2);
    assert_string_equal(tlm_xlsx_sheet_name(x, 0), "zeta");
    assert_string_equal(tlm_xlsx_sheet_name(x, 1), "µ sheet");
    assert_null(tlm_xlsx_sheet_name(x, 2));
    tlm_rawtab *r = NULL;
    assert_int_equal(tlm_xlsx_read_sheet(x, "µ sheet", &r, NULL), TLM_OK);
    assert_int_equal(r->ncols, 1);
    assert_int_equal(r->nrows, 0);
    assert_string_equal(r->colnames[0], "only");
    tlm_rawtab_free(r);
    tlm_xlsx_close(x);

    r = read_sheet(path, "zeta");
    const char *names[] = {"name", "dur (µs)", "5", "Unnamed: 3", "x",
                           "x.1", "x.1.1", "True", "1.5", "Unnamed: 9"};
    assert_int_equal(r->ncols, 10);
    for (size_t c = 0; c < 10; c++)
        assert_string_equal(r->colnames[c], names[c]);
    assert_int_equal(r->nrows, 3); /* rows 2..4; the blank row 6 dropped */
    is_str(r, 0, 0, "aten::mm");
    is_kind(r, 0, 1, TLM_RAW_NUM);
    assert_true(cell(r, 0, 1)->v.f == 1.5);
    is_int(r, 0, 2, 48);
    is_kind(r, 0, 3, TLM_RAW_EMPTY);
    is_kind(r, 0, 4, TLM_RAW_BOOL);
    assert_int_equal(cell(r, 0, 4)->v.b, 0);
    is_str(r, 0, 5, "µ");
    is_int(r, 0, 6, 2); /* 2.0: pandas makes integral floats ints */
    is_kind(r, 0, 7, TLM_RAW_NUM);
    for (size_t c = 0; c < 10; c++)
        is_kind(r, 1, c, TLM_RAW_EMPTY); /* the blank row inside */
    is_str(r, 2, 9, "far");
    tlm_rawtab_free(r);
}

static void test_hand_made(void **state)
{
    (void)state;
    const char *path = tmp("hand.xlsx");
    const char *sst =
        "<sst xmlns=\"" TX_NS "\" count=\"3\" uniqueCount=\"3\">"
        "<si><t xml:space=\"preserve\"> a b </t></si>"
        "<si><r><rPr><b/></rPr><t>rich</t></r><r><t xml:space=\"preserve\">"
        " text</t></r><rPh sb=\"0\" eb=\"1\"><t>PHONETIC</t></rPh></si>"
        "<si><t>line_x000A_two_x005F_x0041_</t></si></sst>";
    const char *sheet =
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
        "<worksheet xmlns=\"" TX_NS "\"><sheetData>\n"
        "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c>"
        "<c r=\"B1\" t=\"inlineStr\"><is><t>inl</t></is></c>"
        "<c t=\"str\"><f>X</f><v>C</v></c><c><v>4</v></c></row>\n"
        "<row><c t=\"s\"><v>1</v></c>"
        "<c t=\"inlineStr\"><is><r><t>i</t></r><r><t>n</t></r></is></c>"
        "<c t=\"str\"><f>A1</f><v>form</v></c>"
        "<c t=\"e\"><v>#N/A</v></c></row>\n"
        "<row r=\"4\"><c r=\"A4\" t=\"s\"><v>2</v></c><c r=\"B4\" t=\"b\">"
        "<v>1</v></c><c r=\"C4\" s=\"3\"><v>1.25E2</v></c>"
        "<c r=\"D4\"><v>9007199254740993</v></c></row>\n"
        "<row r=\"5\"><c r=\"A5\" t=\"inlineStr\"><is><t></t></is></c>"
        "<c r=\"B5\" t=\"str\"><v></v></c><c r=\"C5\"><v>-0.5</v></c>"
        "</row>\n"
        "</sheetData></worksheet>";
    assert_int_equal(tx_book(path, "S&amp;1",
                             "/xl/other/../worksheets/data.xml",
                             "xl/worksheets/data.xml", sheet, sst),
                     0);
    tlm_xlsx *x = NULL;
    tlm_error err;
    assert_int_equal(tlm_xlsx_open(path, &x, &err), TLM_OK);
    assert_string_equal(tlm_xlsx_sheet_name(x, 0), "S&1");
    tlm_xlsx_close(x);
    tlm_rawtab *r = read_sheet(path, "S&1");
    assert_int_equal(r->ncols, 4);
    assert_string_equal(r->colnames[0], " a b ");
    assert_string_equal(r->colnames[1], "inl");
    assert_string_equal(r->colnames[2], "C");
    assert_string_equal(r->colnames[3], "4");
    assert_int_equal(r->nrows, 4);
    is_str(r, 0, 0, "rich text");
    is_str(r, 0, 1, "in");
    is_str(r, 0, 2, "form");
    is_kind(r, 0, 3, TLM_RAW_EMPTY); /* #N/A: pandas gives NaN */
    for (size_t c = 0; c < 4; c++)
        is_kind(r, 1, c, TLM_RAW_EMPTY);
    is_str(r, 2, 0, "line\ntwo_x0041_");
    is_kind(r, 2, 1, TLM_RAW_BOOL);
    assert_int_equal(cell(r, 2, 1)->v.b, 1);
    is_int(r, 2, 2, 125);
    is_int(r, 2, 3, 9007199254740993LL); /* exact: integer text */
    is_kind(r, 3, 0, TLM_RAW_EMPTY);     /* empty strings: missing */
    is_kind(r, 3, 1, TLM_RAW_EMPTY);
    is_kind(r, 3, 2, TLM_RAW_NUM);
    tlm_rawtab_free(r);
}

/* Opening or reading path fails with st and a message holding want. */
static void fails(const char *path, const char *sheet, tlm_status st,
                  const char *want)
{
    tlm_xlsx *x = NULL;
    tlm_rawtab *r = NULL;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status got = tlm_xlsx_open(path, &x, &err);
    if (got == TLM_OK) {
        got = tlm_xlsx_read_sheet(x, sheet, &r, &err);
        tlm_xlsx_close(x);
    } else {
        assert_null(x);
    }
    assert_null(r);
    if (got != st || !strstr(err.msg, want))
        fprintf(stderr, "status %d, message: %s\n", got, err.msg);
    assert_int_equal(got, st);
    assert_non_null(strstr(err.msg, want));
    assert_string_equal(err.file, path);
}

static void bad_sheet(const char *name, const char *xml, tlm_status st,
                      const char *want)
{
    const char *path = tmp(name);
    assert_int_equal(tx_book(path, "s", "worksheets/sheet1.xml", NULL, xml, NULL),
                     0);
    fails(path, "s", st, want);
}

#define WS_OPEN "<worksheet xmlns=\"" TX_NS "\"><sheetData>"
#define WS_CLOSE "</sheetData></worksheet>"

static void test_bad_input(void **state)
{
    (void)state;
    fails(tmp("absent.xlsx"), "s", TLM_EIO, "cannot open the workbook");
    const char *junk = tmp("junk.xlsx");
    tt_write_file(junk, "this is not a zip archive at all, not at all", 44);
    fails(junk, "s", TLM_EFORMAT, "not a workbook");
    /* a truncated workbook: the central directory is gone */
    const char *good = tmp("good.xlsx");
    assert_int_equal(tx_book(good, "s", "worksheets/sheet1.xml", NULL,
                             WS_OPEN WS_CLOSE, NULL), 0);
    size_t n = 0;
    unsigned char *bytes = tt_slurp(good, &n);
    assert_non_null(bytes);
    const char *cut = tmp("cut.xlsx");
    tt_write_file(cut, bytes, n / 2);
    fails(cut, "s", TLM_EFORMAT, "not a workbook");
    /* the same bytes from memory */
    tlm_xlsx *x = NULL;
    tlm_error err;
    assert_int_equal(tlm_xlsx_open_mem(bytes, n / 2, "mem", &x, &err),
                     TLM_EFORMAT);
    assert_string_equal(err.file, "mem");
    assert_int_equal(tlm_xlsx_open_mem(bytes, n, "mem", &x, &err), TLM_OK);
    assert_int_equal(tlm_xlsx_nsheets(x), 1);
    tlm_xlsx_close(x);
    free(bytes);
    /* a missing sheet: compare.md's message */
    char want[600];
    snprintf(want, sizeof want, "%s has no sheet named 'nope'", good);
    fails(good, "nope", TLM_ENOTFOUND, want);
    /* a missing workbook part */
    const char *parts[][2] = {{"a.txt", "x"}};
    const char *nobook = tmp("nobook.xlsx");
    assert_int_equal(tx_zip(nobook, parts, 1), 0);
    fails(nobook, "s", TLM_EFORMAT,
          "xl/_rels/workbook.xml.rels: part missing");

    bad_sheet("nwf.xlsx", WS_OPEN "\n<row><c><v>1</v></row>" WS_CLOSE,
              TLM_EFORMAT, "xl/worksheets/sheet1.xml: line 2: mismatched");
    bad_sheet("dtd.xlsx",
              "<!DOCTYPE x [<!ENTITY a \"aaaa\">]>" WS_OPEN WS_CLOSE,
              TLM_EFORMAT, "DTD");
    bad_sheet("ref.xlsx", WS_OPEN "<row><c r=\"XFE1\"><v>1</v></c></row>"
              WS_CLOSE, TLM_EFORMAT, "bad cell reference 'XFE1'");
    bad_sheet("row.xlsx", WS_OPEN "<row r=\"0\"/>" WS_CLOSE, TLM_EFORMAT,
              "bad row number");
    bad_sheet("sst.xlsx", WS_OPEN "<row><c t=\"s\"><v>3</v></c></row>"
              WS_CLOSE, TLM_EFORMAT, "shared string index '3' out of range");
    bad_sheet("num.xlsx", WS_OPEN "<row><c><v>12abc</v></c></row>" WS_CLOSE,
              TLM_EFORMAT, "'12abc' is not a number");
    bad_sheet("sparse.xlsx", WS_OPEN "<row><c r=\"XFD1\"><v>1</v></c></row>"
              "<row r=\"1048576\"><c r=\"A1048576\"><v>1</v></c></row>"
              WS_CLOSE, TLM_ELIMIT, "too sparse");
    /* nesting */
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_puts(&b, WS_OPEN);
    for (int i = 0; i < 300; i++)
        tlm_sbuf_puts(&b, "<x>");
    for (int i = 0; i < 300; i++)
        tlm_sbuf_puts(&b, "</x>");
    tlm_sbuf_puts(&b, WS_CLOSE);
    bad_sheet("deep.xlsx", b.p, TLM_ELIMIT, "nested deeper than 256");
    /* a zip bomb: 16 MiB of blanks deflate more than 200 times */
    tlm_sbuf_reset(&b);
    tlm_sbuf_puts(&b, WS_OPEN);
    tlm_sbuf_reserve(&b, 16u << 20);
    memset(b.p + b.len, ' ', 16u << 20);
    b.len += 16u << 20;
    b.p[b.len] = '\0';
    tlm_sbuf_puts(&b, WS_CLOSE);
    assert_false(b.oom);
    bad_sheet("bomb.xlsx", b.p, TLM_ELIMIT, "zip bomb");
    tlm_sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_libxlsxwriter_book),
        cmocka_unit_test(test_hand_made),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
