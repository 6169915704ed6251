/*
 * test_sbuf.c - the growable string buffer (src/util/sbuf.c): growth from
 * 64 bytes by doubling, text always NUL-terminated, printf short and long,
 * reset and free, the sticky oom flag (appends after a failure do
 * nothing), and one CSV field as Python's csv.QUOTE_MINIMAL writes it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sbuf.h"

static void test_init_free(void **state)
{
    (void)state;
    tlm_sbuf b;
    memset(&b, 0x5a, sizeof b);
    tlm_sbuf_init(&b);
    assert_null(b.p);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
    assert_int_equal(b.oom, 0);
    tlm_sbuf_reset(&b); /* nothing allocated: still fine */
    assert_null(b.p);
    /* an empty append allocates: the text is "" */
    tlm_sbuf_putn(&b, NULL, 0);
    assert_non_null(b.p);
    assert_string_equal(b.p, "");
    assert_int_equal(b.cap, 64);
    tlm_sbuf_free(&b);
    assert_null(b.p);
    assert_int_equal(b.cap, 0);
    tlm_sbuf_free(&b); /* twice */
}

/* 64 bytes first, then doubling; every append keeps a NUL after len. */
static void test_growth(void **state)
{
    (void)state;
    static const struct {
        size_t len; /* after appending up to this length */
        size_t cap;
    } steps[] = {{1, 64},    {63, 64},   {64, 128},  {127, 128},
                 {128, 256}, {1000, 1024}, {5000, 8192}, {20000, 32768}};
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    size_t s = 0;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        while (b.len < steps[i].len) {
            tlm_sbuf_putc(&b, (char)('a' + b.len % 26));
            assert_int_equal(b.p[b.len], '\0');
        }
        if (b.cap != steps[i].cap)
            fail_msg("len %zu: cap %zu, want %zu", b.len, b.cap,
                     steps[i].cap);
        s = i;
    }
    assert_int_equal(b.len, steps[s].len);
    for (size_t i = 0; i < b.len; i++)
        assert_int_equal(b.p[i], 'a' + i % 26);
    /* one large append: the capacity doubles past it */
    char big[3000];
    memset(big, 'z', sizeof big);
    tlm_sbuf_reset(&b);
    assert_int_equal(b.cap, 32768); /* reset keeps the memory */
    assert_string_equal(b.p, "");
    tlm_sbuf_putn(&b, big, sizeof big);
    tlm_sbuf_puts(&b, "!");
    assert_int_equal(b.len, 3001);
    assert_int_equal(b.p[2999], 'z');
    assert_string_equal(b.p + 3000, "!");
    assert_int_equal(tlm_sbuf_reserve(&b, 40000), 0);
    assert_int_equal(b.cap, 65536);
    assert_int_equal(b.len, 3001);
    tlm_sbuf_free(&b);
}

/* printf below the 256-byte stack buffer and above it. */
static void test_printf(void **state)
{
    (void)state;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "%d-%s-%.2f", 42, "x", 2.5);
    assert_string_equal(b.p, "42-x-2.50");
    assert_int_equal(b.len, 9);
    char long_s[600];
    memset(long_s, 'q', sizeof long_s - 1);
    long_s[sizeof long_s - 1] = '\0';
    tlm_sbuf_printf(&b, "[%s]", long_s);
    assert_int_equal(b.len, 9 + 601);
    assert_memory_equal(b.p, "42-x-2.50[qq", 12);
    assert_string_equal(b.p + b.len - 3, "qq]");
    tlm_sbuf_printf(&b, "%s", "");
    assert_int_equal(b.len, 610);
    tlm_sbuf_free(&b);
}

/* After a failed allocation every append is a no-op and reserve fails,
 * so that the caller checks once at the end. */
static void test_oom_sticky(void **state)
{
    (void)state;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_puts(&b, "kept");
    b.oom = 1; /* as a failed realloc leaves it */
    tlm_sbuf_puts(&b, "lost");
    tlm_sbuf_putc(&b, '!');
    tlm_sbuf_putn(&b, "x", 1);
    tlm_sbuf_printf(&b, "%d", 7);
    tlm_sbuf_printf(&b, "%0300d", 7);
    tlm_sbuf_csv_field(&b, "a,b", 3);
    assert_int_equal(tlm_sbuf_reserve(&b, 1), -1);
    assert_int_equal(b.len, 4);
    assert_string_equal(b.p, "kept");
    assert_int_equal(b.oom, 1);
    tlm_sbuf_reset(&b);
    assert_int_equal(b.oom, 1); /* reset does not clear it */
    tlm_sbuf_free(&b);
    assert_int_equal(b.oom, 0); /* free does */
}

/* csv.QUOTE_MINIMAL: quoted when the field holds , " \r or \n. */
static void test_csv_field(void **state)
{
    static const struct {
        const char *in;
        size_t n;
        const char *want;
    } t[] = {
        {"", 0, ""},
        {"plain", 5, "plain"},
        {" spaced ", 8, " spaced "},
        {"semi;colon|tab\t", 15, "semi;colon|tab\t"},
        {"'single'", 8, "'single'"},
        {"a,b", 3, "\"a,b\""},
        {"say \"hi\"", 8, "\"say \"\"hi\"\"\""},
        {"\"", 1, "\"\"\"\""},
        {"line\nbreak", 10, "\"line\nbreak\""},
        {"cr\r", 3, "\"cr\r\""},
        {"((4, 4), (4, 4))", 16, "\"((4, 4), (4, 4))\""},
        {"\xc2\xb5s", 3, "\xc2\xb5s"},
        {"cut,here", 3, "cut"}, /* n bytes only */
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        tlm_sbuf_puts(&b, "<");
        tlm_sbuf_csv_field(&b, t[i].in, t[i].n);
        tlm_sbuf_puts(&b, ">");
        size_t wl = strlen(t[i].want);
        if (b.len != wl + 2 || memcmp(b.p + 1, t[i].want, wl) != 0)
            fail_msg("case %zu: %s", i, b.p);
        tlm_sbuf_free(&b);
    }
    /* a NUL byte inside the field is copied */
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_csv_field(&b, "a\0,", 3);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.p, "\"a\0,\"", 6);
    tlm_sbuf_free(&b);
}

/* Issue 33, cases 8 and 13: the formula rule, the guarded CSV field and
 * the Markdown cell escape. */
static void test_one_escaping_rule(void **state)
{
    (void)state;
    assert_true(tlm_formula_like("=HYPERLINK(\"x\")"));
    assert_true(tlm_formula_like("+x"));
    assert_true(tlm_formula_like("-x"));
    assert_true(tlm_formula_like("@SUM(A1)"));
    assert_true(tlm_formula_like("\tx"));
    assert_false(tlm_formula_like("-1.5e3"));
    assert_false(tlm_formula_like("aten::mm"));
    assert_false(tlm_formula_like(""));
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_csv_guarded(&b, "=1+2", 4);
    tlm_sbuf_putc(&b, '|');
    tlm_sbuf_csv_guarded(&b, "=A1,\"x\"", 7);
    tlm_sbuf_putc(&b, '|');
    tlm_sbuf_csv_guarded(&b, "-3", 2);
    assert_string_equal(b.p, "'=1+2|\"'=A1,\"\"x\"\"\"|-3");
    tlm_sbuf_reset(&b);
    tlm_sbuf_md(&b, "<script>a|b`c\\d\ne", 100, TLM_MD_CELL);
    assert_string_equal(b.p, "\\<script\\>a\\|b\\`c\\\\d e");
    tlm_sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_free),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_printf),
        cmocka_unit_test(test_oom_sticky),
        cmocka_unit_test(test_csv_field),
        cmocka_unit_test(test_one_escaping_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
