/*
 * test_perf_json.c - the small JSON DOM of the perf module
 * (src/perf/perf_json.c): a TraceLens GPU-arch file parsed from memory and
 * walked (members, children, keys, byte offsets), numbers (int64 range,
 * floats), strings (escapes, \u and surrogate pairs to UTF-8), duplicate
 * keys, and every syntax error with its offset and message, the depth
 * limit included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perf_internal.h"

/* Parses text (must succeed); the root node. */
static const tlm_pj_node *parse_ok(const char *text, size_t max_depth,
                                   tlm_pj_doc *d)
{
    size_t off;
    const char *what;
    tlm_status st = tlm_pj_parse(text, strlen(text), max_depth, d, &off,
                                 &what);
    if (st != TLM_OK)
        fail_msg("%s: %s at %zu", text, what, off);
    return tlm_pj_node_at(d, d->root);
}

/* The small JSON DOM under the loader and the perf-model args. */
static void test_json_dom(void **state)
{
    tlm_pj_doc d;
    size_t off;
    const char *what;
    const tlm_pj_node *r, *n;
    const char *txt = "{\"s\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\"\\n\","
                      "\"i\":-42,\"big\":12345678901234567890,"
                      "\"f\":1.5e-3,\"b\":[true,false,null],\"e\":[],"
                      "\"o\":{}}";
    (void)state;
    assert_int_equal(tlm_pj_parse(txt, strlen(txt), 8, &d, &off, &what),
                     TLM_OK);
    r = tlm_pj_node_at(&d, d.root);
    assert_int_equal(r->type, TLM_PJ_OBJ);
    assert_int_equal(r->count, 7);
    n = tlm_pj_member(&d, r, "s");
    assert_string_equal(n->str, "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\"\n");
    n = tlm_pj_member(&d, r, "i");
    assert_int_equal(n->is_int, 1);
    assert_int_equal(n->ival, -42);
    n = tlm_pj_member(&d, r, "big");
    assert_int_equal(n->is_int, 0); /* beyond int64: double only */
    assert_true(n->dval > 1.2e19);
    n = tlm_pj_member(&d, r, "f");
    assert_int_equal(n->is_int, 0);
    assert_true(n->dval == 1.5e-3);
    n = tlm_pj_member(&d, r, "b");
    assert_int_equal(n->count, 3);
    assert_int_equal(tlm_pj_child(&d, n, 0)->bval, 1);
    assert_int_equal(tlm_pj_child(&d, n, 1)->type, TLM_PJ_BOOL);
    assert_int_equal(tlm_pj_child(&d, n, 2)->type, TLM_PJ_NULL);
    assert_null(tlm_pj_child(&d, n, 3));
    assert_int_equal(tlm_pj_member(&d, r, "e")->count, 0);
    assert_int_equal(tlm_pj_member(&d, r, "o")->type, TLM_PJ_OBJ);
    assert_null(tlm_pj_member(&d, r, "zz"));
    assert_null(tlm_pj_member(&d, n, "zz")); /* not an object */
    tlm_pj_free(&d);

    /* errors */
    assert_int_equal(tlm_pj_parse("[1,2", 4, 8, &d, &off, &what),
                     TLM_EFORMAT);
    assert_int_equal(off, 4);
    tlm_pj_free(&d);
    assert_int_equal(tlm_pj_parse("\"a\\x\"", 5, 8, &d, &off, &what),
                     TLM_EFORMAT);
    tlm_pj_free(&d);
    assert_int_equal(tlm_pj_parse("\"a\x01\"", 4, 8, &d, &off, &what),
                     TLM_EFORMAT);
    assert_int_equal(off, 2);
    tlm_pj_free(&d);
    assert_int_equal(tlm_pj_parse("-", 1, 8, &d, &off, &what), TLM_EFORMAT);
    tlm_pj_free(&d);
    assert_int_equal(tlm_pj_parse("01", 2, 8, &d, &off, &what), TLM_EFORMAT);
    assert_int_equal(off, 1);
    tlm_pj_free(&d);
    assert_int_equal(tlm_pj_parse("\"\\u12\"", 6, 8, &d, &off, &what),
                     TLM_EFORMAT);
    tlm_pj_free(&d);
    assert_int_equal(tlm_pj_parse(NULL, 0, 8, &d, &off, &what), TLM_EFORMAT);
    tlm_pj_free(&d);
    tlm_pj_free(NULL);
}

/* A TraceLens --gpu_arch_json_path file, walked node by node. */
static void test_arch_file(void **state)
{
    (void)state;
    const char *txt = "{\n"
                      "  \"name\": \"MI300X\",\n"
                      "  \"mem_bw_gbps\": 5300,\n"
                      "  \"max_achievable_tflops\": {\n"
                      "    \"matrix_bf16\": 708, \"vector_fp64\": 40.5,\n"
                      "    \"matrix_fp4\": null\n"
                      "  }\n"
                      "}\n";
    tlm_pj_doc d;
    const tlm_pj_node *r = parse_ok(txt, 32, &d);
    assert_int_equal(r->type, TLM_PJ_OBJ);
    assert_int_equal(r->count, 3);
    assert_int_equal(r->offset, 0);
    const tlm_pj_node *n = tlm_pj_member(&d, r, "name");
    assert_int_equal(n->type, TLM_PJ_STR);
    assert_string_equal(n->str, "MI300X");
    assert_int_equal(n->slen, 6);
    assert_int_equal(n->klen, 4);
    assert_memory_equal(n->key, "name", 4);
    assert_int_equal(n->offset, (size_t)(strstr(txt, "\"MI300X") - txt));
    n = tlm_pj_member(&d, r, "mem_bw_gbps");
    assert_int_equal(n->is_int, 1);
    assert_int_equal(n->ival, 5300);
    assert_true(n->dval == 5300.0);
    assert_int_equal(n->offset, (size_t)(strstr(txt, "5300") - txt));
    const tlm_pj_node *peaks = tlm_pj_member(&d, r, "max_achievable_tflops");
    assert_ptr_equal(peaks, tlm_pj_child(&d, r, 2));
    assert_int_equal(peaks->count, 3);
    static const struct {
        const char *key;
        tlm_pj_type type;
        double v;
    } want[3] = {{"matrix_bf16", TLM_PJ_NUM, 708.0},
                 {"vector_fp64", TLM_PJ_NUM, 40.5},
                 {"matrix_fp4", TLM_PJ_NULL, 0.0}};
    for (size_t i = 0; i < 3; i++) {
        const tlm_pj_node *c = tlm_pj_child(&d, peaks, i);
        assert_non_null(c);
        assert_int_equal(c->klen, strlen(want[i].key));
        assert_memory_equal(c->key, want[i].key, c->klen);
        assert_int_equal(c->type, want[i].type);
        assert_true(c->dval == want[i].v);
        assert_ptr_equal(tlm_pj_member(&d, peaks, want[i].key), c);
    }
    assert_null(tlm_pj_child(&d, peaks, 3));
    assert_null(tlm_pj_node_at(&d, -1));
    assert_null(tlm_pj_node_at(&d, (int)d.n));
    assert_null(tlm_pj_node_at(NULL, 0));
    assert_null(tlm_pj_member(&d, r, NULL));
    assert_null(tlm_pj_child(&d, NULL, 0));
    assert_null(tlm_pj_child(&d, n, 0)); /* a number has no children */
    tlm_pj_free(&d);
    assert_null(d.nodes);
    assert_int_equal(d.root, -1);
}

/* int64 limits exactly; beyond them the double only. */
static void test_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int is_int;
        int64_t ival;
        double dval;
    } t[] = {
        {"0", 1, 0, 0.0},
        {"-0", 1, 0, -0.0},
        {"42", 1, 42, 42.0},
        {"9223372036854775807", 1, INT64_MAX, 9223372036854775807.0},
        {"-9223372036854775808", 1, INT64_MIN, -9223372036854775808.0},
        {"9223372036854775808", 0, 0, 9223372036854775808.0},
        {"-9223372036854775809", 0, 0, -9223372036854775809.0},
        {"99999999999999999999999", 0, 0, 1e23},
        {"1.0", 0, 0, 1.0},
        {"1E+2", 0, 0, 100.0},
        {"0.5e-3", 0, 0, 0.0005},
        {"-12.25", 0, 0, -12.25},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        tlm_pj_doc d;
        const tlm_pj_node *n = parse_ok(t[i].text, 4, &d);
        assert_int_equal(n->type, TLM_PJ_NUM);
        if (n->is_int != t[i].is_int || n->dval != t[i].dval ||
            (t[i].is_int && n->ival != t[i].ival))
            fail_msg("%s: is_int %d ival %lld dval %.17g", t[i].text,
                     n->is_int, (long long)n->ival, n->dval);
        tlm_pj_free(&d);
    }
}

/* Escapes; a high surrogate without its low half is kept as 3 bytes;
 * duplicate keys: the first one is found, both are children. */
static void test_strings_and_keys(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *want;
        size_t len;
    } t[] = {
        {"\"\"", "", 0},
        {"\"\\/\\b\\f\\r\\t\"", "/\b\f\r\t", 5},
        {"\"\\u0000x\"", "\0x", 2},
        {"\"\\u00B5s\"", "\xc2\xb5s", 3},
        {"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4},
        {"\"\\ud83dx\"", "\xed\xa0\xbdx", 4},
        {"\"\\ud83d\\u0041\"", "\xed\xa0\xbd" "A", 4},
        {"\"\xc3\xa9\"", "\xc3\xa9", 2}, /* UTF-8 passes through */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        tlm_pj_doc d;
        const tlm_pj_node *n = parse_ok(t[i].text, 4, &d);
        assert_int_equal(n->type, TLM_PJ_STR);
        assert_int_equal(n->slen, t[i].len);
        assert_memory_equal(n->str, t[i].want, t[i].len + 1);
        tlm_pj_free(&d);
    }
    tlm_pj_doc d;
    const tlm_pj_node *r = parse_ok("{\"a\":1,\"a\":2,\"\":3}", 4, &d);
    assert_int_equal(r->count, 3);
    assert_int_equal(tlm_pj_member(&d, r, "a")->ival, 1);
    assert_int_equal(tlm_pj_child(&d, r, 1)->ival, 2);
    assert_int_equal(tlm_pj_member(&d, r, "")->ival, 3);
    tlm_pj_free(&d);
}

/* Every error: status, the byte offset where the parser stopped, and the
 * message. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t max_depth;
        tlm_status st;
        size_t off;
        const char *what;
    } t[] = {
        {"", 8, TLM_EFORMAT, 0, "unexpected end of input"},
        {"   ", 8, TLM_EFORMAT, 3, "unexpected end of input"},
        {"[1,2", 8, TLM_EFORMAT, 4, "expected ',' or ']'"},
        {"[1 2]", 8, TLM_EFORMAT, 3, "expected ',' or ']'"},
        {"{\"a\":1", 8, TLM_EFORMAT, 6, "expected ',' or '}'"},
        {"{\"a\" 1}", 8, TLM_EFORMAT, 5, "expected ':'"},
        {"{1:2}", 8, TLM_EFORMAT, 1, "expected a string key"},
        {"{\"a\":1,}", 8, TLM_EFORMAT, 7, "expected a string key"},
        {"[1,]", 8, TLM_EFORMAT, 3, "expected a JSON value"},
        {"nul", 8, TLM_EFORMAT, 0, "expected a JSON value"},
        {"True", 8, TLM_EFORMAT, 0, "expected a JSON value"},
        {"\"abc", 8, TLM_EFORMAT, 4, "unterminated string"},
        {"\"a\\", 8, TLM_EFORMAT, 3, "unterminated escape"},
        {"\"a\\x\"", 8, TLM_EFORMAT, 4, "invalid escape"},
        {"\"a\x01\"", 8, TLM_EFORMAT, 2, "control character in string"},
        {"\"\\u12\"", 8, TLM_EFORMAT, 3, "truncated \\u escape"},
        {"\"\\u12g4\"", 8, TLM_EFORMAT, 3, "bad hex digit in \\u escape"},
        {"-", 8, TLM_EFORMAT, 1, "expected a digit"},
        {"-a", 8, TLM_EFORMAT, 1, "expected a digit"},
        {"01", 8, TLM_EFORMAT, 1, "trailing characters after the value"},
        {"1.", 8, TLM_EFORMAT, 2, "expected a digit after '.'"},
        {"1e", 8, TLM_EFORMAT, 2, "expected a digit in exponent"},
        {"1e+", 8, TLM_EFORMAT, 3, "expected a digit in exponent"},
        {"[1] x", 8, TLM_EFORMAT, 4, "trailing characters after the value"},
        {"1000000000000000000000000000000000000000000000000000000000000000"
         "000000",
         8, TLM_EFORMAT, 0, "number too long"},
        {"[[[1]]]", 2, TLM_ELIMIT, 3, "nesting too deep"},
        {"{\"a\":{\"b\":[]}}", 1, TLM_ELIMIT, 10, "nesting too deep"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        tlm_pj_doc d;
        size_t off = 99;
        const char *what = NULL;
        tlm_status st = tlm_pj_parse(t[i].text, strlen(t[i].text),
                                     t[i].max_depth, &d, &off, &what);
        if (st != t[i].st || off != t[i].off || strcmp(what, t[i].what))
            fail_msg("%s: status %d at %zu (%s)", t[i].text, (int)st, off,
                     what);
        assert_int_equal(d.root, -1);
        tlm_pj_free(&d);
    }
    /* the same depths one deeper are fine */
    tlm_pj_doc d;
    parse_ok("[[[1]]]", 3, &d);
    tlm_pj_free(&d);
    parse_ok("{\"a\":{\"b\":[]}}", 2, &d);
    tlm_pj_free(&d);
    /* no input */
    size_t off = 99;
    const char *what = NULL;
    assert_int_equal(tlm_pj_parse(NULL, 3, 8, &d, &off, &what), TLM_EFORMAT);
    assert_int_equal(off, 0);
    assert_string_equal(what, "no input");
    tlm_pj_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_dom),
        cmocka_unit_test(test_arch_file),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings_and_keys),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
