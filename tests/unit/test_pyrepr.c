/*
 * test_pyrepr.c - Python's repr() as pandas writes it into CSV cells
 * (src/util/pyrepr.c): floats (shortest round-trip digits, the switch to
 * the exponent form below 1e-4 and from 1e16, signed zero, nan, inf),
 * str (quote choice, escapes, control bytes, UTF-8 kept), the snprintf
 * truncation contract of both, and compact JSON as the repr of the
 * Python value json.loads gives (tuples or lists, dicts, True/False/None,
 * \u escapes, numbers), with its errors.
 *
 * Expected texts are what CPython 3.11 prints for the same values.
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

#include "pyrepr.h"

/* ------------------------------------------------------------------ MARK:
 * float */

static void test_float_repr(void **state)
{
    static const struct {
        double x;
        const char *want;
    } t[] = {
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {0.1, "0.1"},
        {0.125, "0.125"},
        {-2.5, "-2.5"},
        {100.0, "100.0"},
        {123.0, "123.0"},
        {12345.678, "12345.678"},
        {123456789.0, "123456789.0"},
        {1.0 / 3.0, "0.3333333333333333"},
        {0.30000000000000004, "0.30000000000000004"},
        {84.4844258626302, "84.4844258626302"},
        {610.6657102342793, "610.6657102342793"},
        /* fixed notation from 1e-4 up to 1e16 (exclusive) */
        {0.0001, "0.0001"},
        {9.999999999999999e-05, "9.999999999999999e-05"},
        {1e-5, "1e-05"},
        {3.5776e-05, "3.5776e-05"},
        {2.5e-7, "2.5e-07"},
        {-1e-7, "-1e-07"},
        {1e-09, "1e-09"},
        {1.5e-10, "1.5e-10"},
        {1e15, "1000000000000000.0"},
        {1234567890123456.0, "1234567890123456.0"},
        {9007199254740992.0, "9007199254740992.0"},
        {9999999999999998.0, "9999999999999998.0"},
        {1e16, "1e+16"},
        {1.5e16, "1.5e+16"},
        {1e22, "1e+22"},
        {1e300, "1e+300"},
        /* the ends of the double range: three-digit exponents */
        {5e-324, "5e-324"},
        {1.5e-323, "1.5e-323"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {NAN, "nan"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char buf[TLM_PY_FLOAT_MAX];
        size_t n = tlm_py_float_repr(t[i].x, buf, sizeof buf);
        if (strcmp(buf, t[i].want) != 0)
            fail_msg("repr(%.17g) = %s, want %s", t[i].x, buf, t[i].want);
        assert_int_equal(n, strlen(t[i].want));
        /* the buffer form appends the same text */
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        tlm_sbuf_puts(&b, "=");
        tlm_sbuf_pyfloat(&b, t[i].x);
        assert_string_equal(b.p + 1, t[i].want);
        tlm_sbuf_free(&b);
    }
}

/* Like snprintf: the whole length returned, at most size bytes written,
 * NUL included. */
static void test_float_repr_truncation(void **state)
{
    (void)state;
    char buf[8];
    memset(buf, 'x', sizeof buf);
    assert_int_equal(tlm_py_float_repr(123456789.0, buf, 5), 11);
    assert_string_equal(buf, "1234");
    assert_int_equal(buf[5], 'x');
    assert_int_equal(tlm_py_float_repr(-0.0, buf, 1), 4);
    assert_string_equal(buf, "");
    assert_int_equal(tlm_py_float_repr(NAN, NULL, 0), 3);
    assert_int_equal(tlm_py_float_repr(0.1, buf, sizeof buf), 3);
    assert_string_equal(buf, "0.1");
}

/* ------------------------------------------------------------------ MARK:
 * str */

static void test_str_repr(void **state)
{
    static const struct {
        const char *s;
        size_t n;
        const char *want;
    } t[] = {
        {"", 0, "''"},
        {"abc", 3, "'abc'"},
        {"it's", 4, "\"it's\""},                /* ' only: double quotes */
        {"a\"b", 3, "'a\"b'"},                  /* " only: single quotes */
        {"a'b\"c", 5, "'a\\'b\"c'"},            /* both: \' */
        {"back\\slash", 10, "'back\\\\slash'"},
        {"\t\n\r", 3, "'\\t\\n\\r'"},
        {"\x01\x1f\x7f", 3, "'\\x01\\x1f\\x7f'"},
        {"nul\0byte", 8, "'nul\\x00byte'"},
        {"\xc2\xb5s", 3, "'\xc2\xb5s'"},        /* UTF-8 kept as is */
        {" ~", 2, "' ~'"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char buf[64];
        size_t n = tlm_py_str_repr(t[i].s, t[i].n, buf, sizeof buf);
        if (strcmp(buf, t[i].want) != 0)
            fail_msg("case %zu: %s, want %s", i, buf, t[i].want);
        assert_int_equal(n, strlen(t[i].want));
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        tlm_sbuf_pystr(&b, t[i].s, t[i].n);
        assert_string_equal(b.p, t[i].want);
        assert_int_equal(b.len, strlen(t[i].want));
        tlm_sbuf_free(&b);
    }
}

/* Cut to size - 1 bytes (an escape may be cut in the middle), NUL ended;
 * the return value is the length the whole text needs. */
static void test_str_repr_truncation(void **state)
{
    (void)state;
    char buf[8];
    memset(buf, 'x', sizeof buf);
    assert_int_equal(tlm_py_str_repr("a\nbcdef", 7, buf, 5), 10);
    assert_string_equal(buf, "'a\\n");
    assert_int_equal(buf[5], 'x');
    assert_int_equal(tlm_py_str_repr("a\x01", 2, buf, 4), 7);
    assert_string_equal(buf, "'a\\");
    assert_int_equal(tlm_py_str_repr("abc", 3, buf, 1), 5);
    assert_string_equal(buf, "");
    assert_int_equal(tlm_py_str_repr("abc", 3, NULL, 0), 5);
    assert_int_equal(tlm_py_str_repr("abc", 3, buf, 6), 5);
    assert_string_equal(buf, "'abc'");
}

/* ------------------------------------------------------------------ MARK:
 * JSON as Python objects */

static void pyj(const char *json, int tuple, const char *want)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    int rc = tlm_sbuf_json_pyrepr(&b, json, strlen(json), tuple);
    if (!want) {
        assert_int_equal(rc, -1);
    } else {
        if (rc != 0)
            fail_msg("%s: rejected", json);
        assert_string_equal(b.p, want);
    }
    tlm_sbuf_free(&b);
}

static void test_json_repr(void **state)
{
    (void)state;
    pyj("[[8944,1024],[1024,2816]]", 1, "((8944, 1024), (1024, 2816))");
    pyj("[[8944,1024],[1024,2816]]", 0, "[[8944, 1024], [1024, 2816]]");
    pyj("[\"\"]", 1, "('',)");
    pyj("[\"\",\"1\"]", 1, "('', '1')");
    pyj("[[],[3]]", 1, "((), (3,))");
    pyj("[[],[3]]", 0, "[[], [3]]");
    pyj("[[[1]]]", 1, "(((1,),),)");
    pyj("[\"it's\"]", 1, "(\"it's\",)");
    pyj("[0.125,true,false,null,-2]", 1, "(0.125, True, False, None, -2)");
    pyj("{\"a\":[1]}", 0, "{'a': [1]}");
    pyj("{\"a\":[1],\"b\":{}}", 1, "{'a': (1,), 'b': {}}");
    pyj("[\"a\\\"b\\\\\"]", 0, "['a\"b\\\\']");
    /* escapes: \n, \/, \u to UTF-8 (2 and 3 bytes) */
    pyj("[\"x\\ny\\/\\u00e9\\u20ac\\u0041\"]", 0,
        "['x\\ny/\xc3\xa9\xe2\x82\xac" "A']");
    pyj("\"\\t\\b\\f\"", 0, "'\\t\\x08\\x0c'");
    /* numbers: integers as written, the others as Python floats */
    pyj("[12345678901234567890,-7,1.0,2.50,1e3,-0.0,1E-5]", 0,
        "[12345678901234567890, -7, 1.0, 2.5, 1000.0, -0.0, 1e-05]");
    /* whitespace between tokens */
    pyj(" [ 1 , { \"k\" : null } ] ", 0, "[1, {'k': None}]");
    pyj("true", 0, "True");
}

static void test_json_repr_errors(void **state)
{
    static const char *const bad[] = {
        "", "[1,", "nope", "[1 2]", "{\"a\" 1}", "{1:2}", "\"open",
        "[\"\\u12\"]", "[\"\\u12g4\"]", "tru", "{\"a\":1,}",
        /* a float of 64 characters or more */
        "1.000000000000000000000000000000000000000000000000000000000000000",
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        if (tlm_sbuf_json_pyrepr(&b, bad[i], strlen(bad[i]), 1) != -1)
            fail_msg("accepted: %s", bad[i]);
        tlm_sbuf_free(&b);
    }
    /* nesting deeper than 64 */
    char deep[160];
    memset(deep, '[', 66);
    memset(deep + 66, ']', 66);
    deep[132] = '\0';
    pyj(deep, 0, NULL);
    deep[1] = ']';
    deep[2] = '\0';
    pyj(deep, 0, "[]");
    /* a failure leaves what the buffer held before */
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_puts(&b, "x=");
    assert_int_equal(tlm_sbuf_json_pyrepr(&b, "[1,[2,", 6, 0), -1);
    assert_string_equal(b.p, "x=");
    assert_int_equal(b.len, 2);
    assert_int_equal(tlm_sbuf_json_pyrepr(&b, "[1]", 3, 1), 0);
    assert_string_equal(b.p, "x=(1,)");
    tlm_sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_repr),
        cmocka_unit_test(test_float_repr_truncation),
        cmocka_unit_test(test_str_repr),
        cmocka_unit_test(test_str_repr_truncation),
        cmocka_unit_test(test_json_repr),
        cmocka_unit_test(test_json_repr_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
