/*
 * test_cmp.c - the report comparison's core (src/cmp; spec compare.md):
 *
 *   - the outer join's row order (§3.2): text by code point, numbers by
 *     value (int 1 == float 1.0), False < True, booleans equal to the
 *     booleans of an object column, missing equal to missing
 *     and after every value, m x n duplicates, one-sided rows in table
 *     order;
 *   - diff and pct (§3.3): int - int stays int, pct always float, base 0
 *     -> missing pct, an int column that received a missing value -> float;
 *     a header-only sheet (text columns without values) compares;
 *   - the column order (§3.4): keys, diff block metric then tag, data by
 *     report; the unanchored regex only in compat mode (Q7);
 *   - key typed text in one report and numbers in another -> EFORMAT;
 *   - the stable descending sort, missing last;
 *   - the three-way split (§4.5): membership by the split metric, other
 *     tags' columns and all-empty columns dropped, the empty split;
 *   - tlm_cmp_tags (§1): auto tags, trailing '/', .json.gz, duplicates,
 *     empty tags;
 *   - the CSV reader: BOM, CRLF, quoted newlines, blank lines, short rows,
 *     too many fields (line number), repeated and empty header names;
 *     the names fixed in one pass, 16,384 columns and 2^23 cells;
 *   - the spreadsheet-formula guard.
 *
 * Expected texts were produced by tests/integration/compare_ref.py (pandas
 * 1.5.3 with the spec's order rules), i.e. the CSV TraceLens would write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmp_internal.h"

/* MARK: - helpers ------------------------------------------------------- */

static tlm_tab *tab_of(const char *csv)
{
    tlm_rawtab *r = NULL;
    tlm_tab *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_csv_parse(csv, strlen(csv), "t.csv", &r, &err),
                     TLM_OK);
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
    assert_string_equal(b.p ? b.p : "", want);
    tlm_sbuf_free(&b);
}

/* tlm_cmp_build of the CSV texts csv[0..n) tagged tags[]. */
static tlm_status build(const char *const *csv, const char *const *tags,
                        size_t n, const char *const *keys, size_t nk,
                        const char *const *m, size_t nm, int compat,
                        tlm_cmp_tab *out, tlm_error *err)
{
    tlm_tab *tabs[4];
    const char *labels[4] = {"r0", "r1", "r2", "r3"};
    for (size_t i = 0; i < n; i++)
        tabs[i] = tab_of(csv[i]);
    tlm_status st = tlm_cmp_build((const tlm_tab *const *)tabs, tags, labels,
                                  n, keys, nk, m, nm, compat, out, err);
    for (size_t i = 0; i < n; i++)
        tlm_tab_free(tabs[i]);
    return st;
}

static void build_is(const char *const *csv, const char *const *tags,
                     size_t n, const char *const *keys, size_t nk,
                     const char *const *m, size_t nm, const char *want)
{
    tlm_cmp_tab c;
    tlm_error err;
    assert_int_equal(build(csv, tags, n, keys, nk, m, nm, 0, &c, &err),
                     TLM_OK);
    csv_is(c.t, want);
    tlm_cmp_tab_free(&c);
}

static const char *const K[] = {"k"};
static const char *const LR[] = {"l", "r"};

/* MARK: - the join ------------------------------------------------------- */

static void test_join_text_order(void **state)
{
    (void)state;
    const char *in[] = {"k,x\nb,1\n,2\na,3\nb,4\n\xc3\xa9,5\n",
                        "k,x\n,5\nc,6\nb,7\nb,8\nZ,9\nB,10\n"};
    static const char *const x[] = {"x"};
    build_is(in, LR, 2, K, 1, x, 1,
             "k,x__r_diff,x__r_pct,l::x,r::x\n"
             "B,,,,10.0\nZ,,,,9.0\na,,,3.0,\n"
             "b,6.0,600.0,1.0,7.0\nb,7.0,700.0,1.0,8.0\n"
             "b,3.0,75.0,4.0,7.0\nb,4.0,100.0,4.0,8.0\n"
             "c,,,,6.0\n\xc3\xa9,,,5.0,\n,3.0,150.0,2.0,5.0\n");
}

static void test_join_numbers(void **state)
{
    (void)state;
    const char *in[] = {"k,x\n1,1\n10,2\n2,3\n", "k,x\n2.5,4\n1.0,5\n"};
    static const char *const x[] = {"x"};
    build_is(in, LR, 2, K, 1, x, 1,
             "k,x__r_diff,x__r_pct,l::x,r::x\n1.0,4.0,400.0,1.0,5.0\n"
             "2.0,,,3.0,\n2.5,,,,4.0\n10.0,,,2.0,\n");
}

static void test_join_bool_and_missing_keys(void **state)
{
    (void)state;
    const char *in[] = {"k1,k2,v\nx,True,1\nx,False,2\n,True,3\n",
                        "k1,k2,v\nx,False,4\n,True,5\n,False,6\n"};
    static const char *const k[] = {"k1", "k2"}, *const ab[] = {"a", "b"};
    static const char *const v[] = {"v"};
    build_is(in, ab, 2, k, 2, v, 1,
             "k1,k2,v__b_diff,v__b_pct,a::v,b::v\n"
             "x,False,2.0,100.0,2.0,4.0\nx,True,,,1.0,\n"
             ",False,,,,6.0\n,True,2.0,66.66666666666666,3.0,5.0\n");
}

/* A boolean key column against an object column of booleans (a boolean
 * column with a missing value, e.g. param: bias) matches by value. */
static void test_join_bool_vs_object(void **state)
{
    (void)state;
    static const char *const v[] = {"v"};
    const char *in[] = {"k,v\nTrue,1\nFalse,2\n", "k,v\nTrue,3\n,4\nFalse,5\n"};
    build_is(in, LR, 2, K, 1, v, 1,
             "k,v__r_diff,v__r_pct,l::v,r::v\nFalse,3.0,150.0,2.0,5\n"
             "True,2.0,200.0,1.0,3\n,,,,4\n");
    const char *rev[] = {"k,v\nTrue,3\n,4\nTrue,5\n", "k,v\nFalse,1\nTrue,2\n"};
    build_is(rev, LR, 2, K, 1, v, 1,
             "k,v__r_diff,v__r_pct,l::v,r::v\nFalse,,,,1.0\n"
             "True,-1.0,-33.33333333333333,3.0,2.0\n"
             "True,-3.0,-60.0,5.0,2.0\n,,,4.0,\n");
}

static void test_diff_types(void **state)
{
    (void)state;
    /* int - int stays int; base 0 -> missing pct; pct is float */
    const char *in[] = {"k,m\na,0\nb,2\nc,4\n", "k,m\na,3\nb,2\nc,5\n"};
    static const char *const m[] = {"m"};
    build_is(in, LR, 2, K, 1, m, 1,
             "k,m__r_diff,m__r_pct,l::m,r::m\na,3,,0,3\nb,0,0.0,2,2\n"
             "c,1,25.0,4,5\n");
}

/* A sheet with a header and no rows: every column is text (pandas:
 * object) yet its metric subtracts as missing. */
static void test_empty_sheet(void **state)
{
    (void)state;
    static const char *const m[] = {"m"};
    const char *in[] = {"k,m\na,1\nb,0\n", "k,m\n"};
    build_is(in, LR, 2, K, 1, m, 1,
             "k,m__r_diff,m__r_pct,l::m,r::m\na,,,1,\nb,,,0,\n");
    const char *rev[] = {"k,m\n", "k,m\na,1\n"};
    build_is(rev, LR, 2, K, 1, m, 1, "k,m__r_diff,m__r_pct,l::m,r::m\na,,,,1\n");
}

static void test_three_reports(void **state)
{
    (void)state;
    const char *in[] = {"k,m,n\na,1,0.0\nb,2,1.5\n", "k,m,n\na,3,1.0\nb,,3.0\n",
                        "k,m,n\na,1,\nc,1,2\n"};
    static const char *const t[] = {"t0", "t1", "t2"}, *const m[] = {"m", "n"};
    build_is(in, t, 3, K, 1, m, 2,
             "k,m__t1_diff,m__t1_pct,m__t2_diff,m__t2_pct,n__t1_diff,"
             "n__t1_pct,n__t2_diff,n__t2_pct,t0::m,t0::n,t1::m,t1::n,t2::m,"
             "t2::n\n"
             "a,2.0,200.0,0.0,0.0,1.0,,,,1.0,0.0,3.0,1.0,1.0,\n"
             "b,,,,,1.5,100.0,,,2.0,1.5,,3.0,,\n"
             "c,,,,,,,,,,,,,1.0,2.0\n");
}

static void test_diff_regex_compat(void **state)
{
    (void)state;
    const char *in[] = {"k,m,x__y_diffusion\na,1,2\n",
                        "k,m,x__y_diffusion\na,2,3\n"};
    static const char *const m[] = {"m"};
    tlm_cmp_tab c;
    tlm_error err;
    /* default: only the computed columns form the diff block */
    assert_int_equal(build(in, LR, 2, K, 1, m, 1, 0, &c, &err), TLM_OK);
    csv_is(c.t, "k,m__r_diff,m__r_pct,l::m,l::x__y_diffusion,r::m,"
                "r::x__y_diffusion\na,1,100.0,1,2,2,3\n");
    tlm_cmp_tab_free(&c);
    /* compat: re.match(".*__.*_diff|.*__.*_pct") pulls them in (Q7) */
    assert_int_equal(build(in, LR, 2, K, 1, m, 1, 1, &c, &err), TLM_OK);
    csv_is(c.t, "k,l::x__y_diffusion,r::x__y_diffusion,m__r_diff,m__r_pct,"
                "l::m,r::m\na,2,3,1,100.0,1,2\n");
    tlm_cmp_tab_free(&c);
}

static void test_build_errors(void **state)
{
    (void)state;
    static const char *const m[] = {"m"};
    tlm_cmp_tab c;
    tlm_error err;
    const char *mixed[] = {"k,m\n1,1\n", "k,m\na,1\n"};
    assert_int_equal(build(mixed, LR, 2, K, 1, m, 1, 0, &c, &err),
                     TLM_EFORMAT);
    assert_non_null(strstr(err.msg, "key column 'k'"));
    const char *nokey[] = {"k,m\n1,1\n", "j,m\n1,1\n"};
    assert_int_equal(build(nokey, LR, 2, K, 1, m, 1, 0, &c, &err),
                     TLM_EFORMAT);
    assert_string_equal(err.file, "r1");
    const char *nometric[] = {"k,m\na,1\n", "k,n\na,1\n"};
    assert_int_equal(build(nometric, LR, 2, K, 1, m, 1, 0, &c, &err),
                     TLM_EFORMAT);
    assert_non_null(strstr(err.msg, "'m'"));
    const char *text[] = {"k,m\na,x\n", "k,m\na,1\n"};
    assert_int_equal(build(text, LR, 2, K, 1, m, 1, 0, &c, &err),
                     TLM_EFORMAT);
    assert_null(c.t);
}

static void test_sort_desc(void **state)
{
    (void)state;
    const char *in[] = {"k,m\na,1\nb,\nc,3\nd,1\ne,3\n", "k,m\nf,1\n"};
    static const char *const m[] = {"m"};
    tlm_cmp_tab c;
    tlm_error err;
    assert_int_equal(build(in, LR, 2, K, 1, m, 1, 0, &c, &err), TLM_OK);
    assert_int_equal(tlm_cmp_sort_desc(&c, 0, "l", "m"), TLM_OK);
    csv_is(c.t, "k,m__r_diff,m__r_pct,l::m,r::m\nc,,,3.0,\ne,,,3.0,\n"
                "a,,,1.0,\nd,,,1.0,\nb,,,,\nf,,,,1.0\n");
    assert_int_equal(tlm_cmp_sort_desc(&c, 0, "l", "absent"), TLM_OK);
    tlm_cmp_tab_free(&c);
}

/* MARK: - the split -------------------------------------------------------- */

static void split_is(const char *a, const char *b, const char *want[3])
{
    const char *in[] = {a, b};
    static const char *const m[] = {"m"}, *const t[] = {"base", "v"};
    tlm_cmp_tab c;
    tlm_error err;
    tlm_tab *p[3];
    assert_int_equal(build(in, t, 2, K, 1, m, 1, 0, &c, &err), TLM_OK);
    assert_int_equal(tlm_cmp_split(&c, "s", t, 1, "m", p, &err), TLM_OK);
    static const char *const names[3] = {"s_intersect_v", "s_only_baseline_v",
                                         "s_only_variant_v"};
    for (int i = 0; i < 3; i++) {
        assert_string_equal(p[i]->name, names[i]);
        csv_is(p[i], want[i]);
        tlm_tab_free(p[i]);
    }
    assert_int_equal(tlm_cmp_split(&c, "s", t, 1, "nope", p, &err),
                     TLM_EFORMAT);
    tlm_cmp_tab_free(&c);
}

static void test_split(void **state)
{
    (void)state;
    /* b: metric empty on the variant side -> only_baseline (Q8); c: empty
     * on the baseline side -> only_variant; o empty in a split: dropped */
    const char *want[3] = {("k,m__v_diff,m__v_pct,base::m,base::o,v::m\n"
                            "a,4.0,400.0,1.0,x,5.0\n"),
                           "k,base::m\nd,3.0\nb,2.0\n",
                           "k,v::m\ne,6.0\nc,4.0\n"};
    split_is("k,m,o\na,1,x\nb,2,\nc,,z\nd,3,\n",
             "k,m,o\na,5,\nb,,\nc,4,\ne,6,\n", want);
    /* nothing in common: the intersect has no columns at all */
    const char *none[3] = {"\n", "k,base::m\na,1.0\n", "k,v::m\nb,2.0\n"};
    split_is("k,m\na,1\n", "k,m\nb,2\n", none);
}

/* MARK: - tags --------------------------------------------------------------- */

static void tags_are(const char *const *paths, size_t n, int compat,
                     const char *const *want)
{
    char *tags[8];
    tlm_error err;
    assert_int_equal(tlm_cmp_tags(paths, NULL, n, compat, tags, &err),
                     TLM_OK);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(tags[i], want[i]);
        free(tags[i]);
    }
}

static void test_tags(void **state)
{
    (void)state;
    const char *p[] = {"a/run.v2.xlsx", "x/h100_csvs/", "t/trace.json.gz",
                       "t/b.json", "run.1", "d/.hidden"};
    const char *w[] = {"run.v2", "h100_csvs", "trace", "b", "run", ".hidden"};
    tags_are(p, 6, 0, w);
    const char *pc[] = {"t/trace.json.gz", "x/h100_csvs"};
    const char *wc[] = {"trace.json", "h100_csvs"};
    tags_are(pc, 2, 1, wc); /* compat: splitext */
    char *tags[4];
    tlm_error err;
    const char *slash[] = {"a/x/", "b"};
    assert_int_equal(tlm_cmp_tags(slash, NULL, 2, 1, tags, &err),
                     TLM_EINVAL); /* TraceLens: the empty tag */
    assert_non_null(strstr(err.msg, "empty tag"));
    const char *dup[] = {"a/x", "b/x.xlsx"};
    assert_int_equal(tlm_cmp_tags(dup, NULL, 2, 0, tags, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "Tags must be unique"));
    assert_null(tags[0]);
    const char *names[] = {"a", "a"};
    assert_int_equal(tlm_cmp_tags(dup, names, 2, 0, tags, &err), TLM_EINVAL);
    const char *empty[] = {"", "b"};
    assert_int_equal(tlm_cmp_tags(dup, empty, 2, 0, tags, &err), TLM_EINVAL);
    const char *bad[] = {"a/b", "c"};
    assert_int_equal(tlm_cmp_tags(dup, bad, 2, 0, tags, &err), TLM_EINVAL);
    const char *ok[] = {"h100", "mi300"};
    assert_int_equal(tlm_cmp_tags(dup, ok, 2, 0, tags, &err), TLM_OK);
    assert_string_equal(tags[1], "mi300");
    free(tags[0]);
    free(tags[1]);
}

/* MARK: - the CSV reader --------------------------------------------------- */

static void read_is(const char *in, size_t n, const char *want)
{
    tlm_rawtab *r = NULL;
    tlm_tab *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_csv_parse(in, n, "t.csv", &r, &err), TLM_OK);
    assert_int_equal(tlm_rawtab_to_tab(r, "s", &t, &err), TLM_OK);
    csv_is(t, want);
    tlm_tab_free(t);
    tlm_rawtab_free(r);
}

#define READ_IS(in, want) read_is(in, sizeof in - 1, want)

static void test_csv_reader(void **state)
{
    (void)state;
    READ_IS("\xef\xbb\xbf" "a,b\r\n1,x\r\n\r\n2,y\r\n", "a,b\n1,x\n2,y\n");
    READ_IS("a,b\n\n\n1,\"two\nlines\"\n\n", "a,b\n1,\"two\nlines\"\n");
    READ_IS("a,b,c\n1\n2,3\n", "a,b,c\n1,,\n2,3.0,\n");
    READ_IS("a,\"b,\"\"q\"\"\"\n\"1\",\"\"\n", "a,\"b,\"\"q\"\"\"\n1,\n");
    READ_IS("x,x,x.1,\n1,2,3,4\n", "x,x.2,x.1,Unnamed: 3\n1,2,3,4\n");
    READ_IS("x,x,x\n1,2,3\n", "x,x.1,x.2\n1,2,3\n");
    READ_IS("a,b\n1,2", "a,b\n1,2\n"); /* no final newline */
    READ_IS("\n\n", "\n");             /* no header: no columns */
    READ_IS("", "\n");
    tlm_rawtab *r = NULL;
    tlm_error err;
    static const char more[] = "a,b\n1,2\n\"x\ny\",2,3\n";
    assert_int_equal(tlm_csv_parse(more, sizeof more - 1, "t.csv", &r, &err),
                     TLM_EFORMAT);
    assert_null(r);
    assert_string_equal(err.file, "t.csv");
    assert_non_null(strstr(err.msg, "line 3"));
    assert_non_null(strstr(err.msg, "expected 2 fields"));
    assert_int_equal(err.offset, 8);
    static const char open[] = "a\n\"x\n";
    assert_int_equal(tlm_csv_parse(open, sizeof open - 1, "t.csv", &r, &err),
                     TLM_EFORMAT);
    assert_non_null(strstr(err.msg, "not closed"));
}

/* The header's names as pandas fixes them, in one pass (issue 33: the
 * suffix search resumes where the last repeat of a name ended), and the
 * bounds: 16,384 columns, 2^23 cells. */
static void test_csv_names_and_bounds(void **state)
{
    (void)state;
    READ_IS("x,x,x.1,x\n1,2,3,4\n", "x,x.2,x.1,x.3\n1,2,3,4\n");
    READ_IS("x,,x,Unnamed: 1,x.1\n1,2,3,4,5\n",
            "x,Unnamed: 1,x.2,Unnamed: 1.1,x.1\n1,2,3,4,5\n");
    READ_IS("a,a.1,a,a.1,a\n1,2,3,4,5\n",
            "a,a.1,a.2,a.1.1,a.3\n1,2,3,4,5\n");
    /* 16,384 columns read; one more is refused by name */
    size_t w = TLM_CSV_MAX_COLS + 1, cap = w * 8 + 16, n = 0;
    char *b = malloc(cap);
    assert_non_null(b);
    for (size_t i = 0; i < w; i++)
        n += (size_t)snprintf(b + n, cap - n, "%sc", i ? "," : "");
    b[n++] = '\n';
    tlm_rawtab *r = NULL;
    tlm_error err;
    assert_int_equal(tlm_csv_parse(b, n, "w.csv", &r, &err), TLM_ELIMIT);
    assert_null(r);
    assert_string_equal(err.file, "w.csv");
    assert_non_null(strstr(err.msg, "more than 16384 columns"));
    assert_int_equal(tlm_csv_parse(b + 2, n - 2, "w.csv", &r, &err), TLM_OK);
    assert_int_equal(r->ncols, TLM_CSV_MAX_COLS);
    assert_string_equal(r->colnames[TLM_CSV_MAX_COLS - 1], "c.16383");
    tlm_rawtab_free(r);
    free(b);
    /* 8 columns: 2^20 rows read, one more refused with its line */
    size_t rows = (size_t)TLM_CSV_MAX_CELLS / 8 + 1;
    cap = 16 + rows * 9;
    b = malloc(cap);
    assert_non_null(b);
    n = (size_t)snprintf(b, cap, "a,b,c,d,e,f,g,h\n");
    for (size_t i = 0; i < rows; i++) {
        memcpy(b + n, ",,,,,,,\n", 8);
        n += 8;
    }
    assert_int_equal(tlm_csv_parse(b, n, "c.csv", &r, &err), TLM_ELIMIT);
    assert_non_null(strstr(err.msg, "line 1048578: more than 1048576 rows"));
    assert_int_equal(tlm_csv_parse(b, n - 8, "c.csv", &r, &err), TLM_OK);
    assert_int_equal(r->nrows, (size_t)TLM_CSV_MAX_CELLS / 8);
    tlm_rawtab_free(r);
    free(b);
}

/* MARK: - formulas ------------------------------------------------------------ */

static void test_guard_formulas(void **state)
{
    (void)state;
    tlm_cmp_result res;
    memset(&res, 0, sizeof res);
    res.v = calloc(1, sizeof *res.v);
    assert_non_null(res.v);
    res.n = res.cap = 1;
    res.v[0].t = tab_of("a,n\n=HYPERLINK(\"x\"),1\n@SUM(1),2\n-1.5,3\n"
                        "+x,4\n-,5\nplain,6\n,7\n");
    tlm_error err;
    assert_int_equal(tlm_cmp_guard_formulas(&res, &err), TLM_OK);
    csv_is(res.v[0].t, "a,n\n\"'=HYPERLINK(\"\"x\"\")\",1\n'@SUM(1),2\n"
                       "-1.5,3\n'+x,4\n'-,5\nplain,6\n,7\n");
    tlm_cmp_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_text_order),
        cmocka_unit_test(test_join_numbers),
        cmocka_unit_test(test_join_bool_and_missing_keys),
        cmocka_unit_test(test_join_bool_vs_object),
        cmocka_unit_test(test_diff_types),
        cmocka_unit_test(test_empty_sheet),
        cmocka_unit_test(test_three_reports),
        cmocka_unit_test(test_diff_regex_compat),
        cmocka_unit_test(test_build_errors),
        cmocka_unit_test(test_sort_desc),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_tags),
        cmocka_unit_test(test_csv_reader),
        cmocka_unit_test(test_csv_names_and_bounds),
        cmocka_unit_test(test_guard_formulas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
