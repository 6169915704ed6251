/*
 * test_diff.c - TraceDiff pieces: name normalisation (§2), the
 * "(<digits>)" strip (§6.1), Wagner-Fischer and its backtrack ties
 * (§4.1), the suffix-only fallback, the JSON string writer (§8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diff_csv.h"

static void norm_is(const char *in, int strip, const char *want)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_diff_norm(&b, in, strlen(in), strip);
    tlm_sbuf_putc(&b, 0);
    assert_string_equal(b.p, want);
    tlm_sbuf_free(&b);
}

static void test_norm(void **state)
{
    (void)state;
    norm_is("ptr 0x7f3aBC and 0x1", 0, "ptr 0xXXXX and 0xXXXX");
    norm_is("model.py(123): forward", 0, "model.py: forward");
    norm_is("a/b/model.py(12): forward", 1, "model.py");
    norm_is("x: y z", 1, "x: y z");
    norm_is("f: g", 1, "f");
    norm_is("hipModuleLaunchKernel", 0, "__kernel_launch__");
    norm_is("cuLaunchKernel", 1, "__kernel_launch__");
    norm_is("cudaLaunchKernel", 0, "cudaLaunchKernel");
    norm_is("0x", 0, "0x");
}

static void test_strip_paren(void **state)
{
    (void)state;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    const char *s = "foo.py(12): f (8) (x)";
    tlm_diff_strip_paren_digits(&b, s, strlen(s));
    tlm_sbuf_putc(&b, 0);
    assert_string_equal(b.p, "foo.py: f  (x)");
    tlm_sbuf_free(&b);
}

static void ops_are(const int32_t *a, size_t m, const int32_t *b, size_t n,
                    size_t cells, const char *want)
{
    tlm_dopvec v = {0};
    int fb = 0;
    assert_int_equal(tlm_diff_wf(a, m, b, n, cells, &v, &fb), TLM_OK);
    char got[256] = "";
    for (size_t k = 0; k < v.n; k++) {
        char one[32];
        if (v.p[k].type == TLM_DOP_MATCH)
            snprintf(one, sizeof one, "m%d%d ", v.p[k].i, v.p[k].j);
        else if (v.p[k].type == TLM_DOP_DEL)
            snprintf(one, sizeof one, "d%d ", v.p[k].i);
        else
            snprintf(one, sizeof one, "i%d ", v.p[k].j);
        strcat(got, one);
    }
    assert_string_equal(got, want);
    tlm_dopvec_free(&v);
}

static void test_wf(void **state)
{
    (void)state;
    /* [x, y] vs [y]: y matched, x deleted */
    int32_t a1[] = {1, 2}, b1[] = {2};
    ops_are(a1, 2, b1, 1, 0, "d0 m10 ");
    /* substitution: backtrack emits insert then delete; reversed */
    int32_t a2[] = {1}, b2[] = {3};
    ops_are(a2, 1, b2, 1, 0, "d0 i0 ");
    /* swapped pair: one match kept */
    int32_t a3[] = {1, 2}, b3[] = {2, 1};
    ops_are(a3, 2, b3, 2, 0, "i0 m01 d1 ");
    /* empty sides */
    ops_are(a1, 2, NULL, 0, 0, "d0 d1 ");
    ops_are(NULL, 0, b1, 1, 0, "i0 ");
    /* over the cell bound: suffix matched, rest deleted then inserted */
    int32_t a4[] = {5, 1, 9}, b4[] = {1, 6, 9};
    ops_are(a4, 3, b4, 3, 1, "d0 d1 i0 i1 m22 ");
    ops_are(a4, 3, b4, 3, 0, "d0 m10 i1 m22 ");
}

static void test_json_str(void **state)
{
    (void)state;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_diff_json_str(&b, "a\"b\\c\n\x01\xc3\xa9", 9);
    tlm_sbuf_putc(&b, 0);
    assert_string_equal(b.p, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\"");
    tlm_sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_norm),
        cmocka_unit_test(test_strip_paren),
        cmocka_unit_test(test_wf),
        cmocka_unit_test(test_json_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
