/*
 * test_callstack.c - the call stacks of --include_call_stack
 * (src/report/callstack.c):
 * - "_<digits>" removed everywhere, as re.sub(r"_\d+", "", s);
 * - wrappers: built-ins, nn.Module frames, torch's dispatch files, known
 *   wrapper function names; model code is no wrapper;
 * - the entry point: inward (a .py frame below the op naming it, any
 *   case), outward (the nearest non-wrapper .py frame above), the op
 *   found with its trailing "_<digits>" removed, not found;
 * - call_stack_full: one stack flat, several as the common prefix and
 *   nested tails (also with no common prefix), strings quoted as Python;
 * - from a tree: a python_function tree gives the columns, a cpu_op-only
 *   tree (python functions left out) keeps only cpu_op frames, and
 *   without the option the columns do not exist.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_report.h"

#include "callstack.h"

static tlm_csf F(const char *s)
{
    tlm_csf f = {s, strlen(s)};
    return f;
}

static void test_strip(void **state)
{
    (void)state;
    static const char *const t[][2] = {
        {"nn.Module: Linear_75", "nn.Module: Linear"},
        {"a_1_2b", "ab"},
        {"sglang::foo_triton_340", "sglang::foo_triton"},
        {"x_", "x_"},
        {"_9", ""},
        {"fp8_e4m3", "fp8_e4m3"},
        {"triton_poi_fused_add_0", "triton_poi_fused_add"}};
    char out[64];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        size_t n = tlm_cs_strip(t[i][0], strlen(t[i][0]), out);
        out[n] = '\0';
        assert_string_equal(out, t[i][1]);
    }
}

static int wr(const char *s)
{
    return tlm_cs_is_wrapper(s, strlen(s));
}

static void test_wrapper(void **state)
{
    (void)state;
    assert_true(wr("<built-in method linear of type object>"));
    assert_true(wr("nn.Module: Linear"));
    assert_true(wr("/usr/lib/torch/nn/modules/module.py(1750): _call_impl"));
    assert_true(wr("/usr/lib/torch/_ops.py(10): __call__"));
    assert_true(wr("/app/deco.py(3): wrapper"));
    assert_true(wr("/app/deco.py(3): decorate_context"));
    assert_false(wr("/app/deco.py(3): my_wrapper"));
    assert_false(wr("/app/model.py(10): forward"));
}

static void test_entry(void **state)
{
    (void)state;
    tlm_csf in[] = {F("user_code.py(10): my_func"), F("aten::addmm"),
                    F("torch/functional.py(5): AddMM")};
    assert_int_equal(tlm_cs_entry(in, 3, "aten::addmm", 11), 2);
    tlm_csf out[] = {F("model.py(1): run"), F("user_code.py(10): forward"),
                     F("torch/_tensor.py(2): __matmul__"), F("aten::addmm"),
                     F("kernel")};
    assert_int_equal(tlm_cs_entry(out, 5, "aten::addmm", 11), 1);
    tlm_csf none[] = {F("torch/nn/modules/module.py(5): _call_impl"),
                      F("aten::addmm")};
    assert_int_equal(tlm_cs_entry(none, 2, "aten::addmm", 11), -1);
    assert_int_equal(tlm_cs_entry(none, 2, "aten::mm", 8), -1);
    /* the frames lost the op's "_340"; the local name keeps it */
    tlm_csf dig[] = {F("app.py(1): go"), F("sgl::foo_triton"),
                     F("impl.py(2): foo_triton")};
    assert_int_equal(tlm_cs_entry(dig, 3, "sgl::foo_triton_340", 19), 0);
    assert_int_equal(tlm_cs_entry(dig, 3, "sgl::foo_triton", 15), 2);
}

static void test_merge(void **state)
{
    (void)state;
    tlm_csf fr[] = {F("a"), F("b"), F("k1"), F("a"), F("b"), F("k'2"),
                    F("x"), F("k3")};
    size_t off[] = {0, 3, 6}, len[] = {3, 3, 2};
    tlm_csf flat[8];
    size_t nf;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_cs_merge(fr, off, len, 1, &b, flat, &nf);
    assert_string_equal(b.p, "['a', 'b', 'k1']");
    assert_int_equal(nf, 3);
    tlm_sbuf_reset(&b);
    tlm_cs_merge(fr, off, len, 2, &b, flat, &nf);
    assert_string_equal(b.p, "['a', 'b', ['k1'], [\"k'2\"]]");
    assert_int_equal(nf, 4);
    assert_int_equal(flat[3].n, 3);
    tlm_sbuf_reset(&b);
    tlm_cs_merge(fr, off, len, 3, &b, flat, &nf);
    assert_string_equal(
        b.p, "[['a', 'b', 'k1'], ['a', 'b', \"k'2\"], ['x', 'k3']]");
    assert_int_equal(nf, 8);
    tlm_sbuf_reset(&b);
    tlm_cs_merge(fr, off, len, 0, &b, flat, &nf);
    assert_string_equal(b.p, "[]");
    tlm_sbuf_free(&b);
}

static tlm_report *build(tlm_trace *tr, int python, int call_stack,
                         tlm_tree **tree)
{
    tlm_tree_opts to;
    tlm_tree_opts_init(&to);
    to.python_functions = python;
    assert_int_equal(tlm_tree_build(tr, &to, tree, NULL), TLM_OK);
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.include_call_stack = call_stack;
    tlm_report *r = NULL;
    assert_int_equal(tlm_report_build(*tree, &o, &r, NULL), TLM_OK);
    return r;
}

static void test_report(void **state)
{
    (void)state;
    const char *src = getenv("TLM_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/callstack_small.json",
             src ? src : ".");
    char *js = tr_text(path);
    tlm_trace *tr = NULL;
    assert_int_equal(
        tlm_trace_read_mem(js, strlen(js), "cs.json", NULL, &tr, NULL),
        TLM_OK);
    tlm_tree *tree;
    tlm_report *r = build(tr, 1, 1, &tree);
    const char *U = "unified_perf_summary";
    size_t i = tr_find_row(r, U, "name", "aten::addmm");
    assert_string_equal(tr_cell(r, U, i, "entry_point"),
                        "/work/app/model.py(10): forward");
    assert_string_equal(
        tr_cell(r, U, i, "call_stack_full"),
        "['nn.Module: Model', '/work/app/model.py(10): forward', "
        "'aten::linear', 'aten::addmm', ['Cijk_gemm_kernel'], "
        "['void at::native::elementwise_kernel<4>']]");
    i = tr_find_row(r, U, "name", "mylib::fused_op");
    assert_string_equal(tr_cell(r, U, i, "entry_point"),
                        "/work/app/ops.py(5): fused_op");
    i = tr_find_row(r, U, "name", "aten::copy_");
    assert_string_equal(tr_cell(r, U, i, "entry_point"), "Not found");
    assert_string_equal(tr_cell(r, U, i, "call_stack_full"),
                        "['nn.Module: Model', 'aten::copy_', 'copy_kernel']");
    tlm_report_free(r);
    tlm_tree_free(tree);
    /* python functions left out of the tree: cpu_op frames only */
    r = build(tr, 0, 1, &tree);
    i = tr_find_row(r, U, "name", "aten::copy_");
    assert_string_equal(tr_cell(r, U, i, "call_stack_full"),
                        "['aten::copy_', 'copy_kernel']");
    tlm_report_free(r);
    tlm_tree_free(tree);
    /* off: no such columns */
    r = build(tr, 1, 0, &tree);
    long t = tlm_report_table_find(r, U);
    assert_true(t >= 0);
    for (size_t c = 0; c < tlm_report_table_cols(r, (size_t)t); c++)
        assert_string_not_equal(
            tlm_report_table_colname(r, (size_t)t, c), "entry_point");
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
    free(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strip),
        cmocka_unit_test(test_wrapper),
        cmocka_unit_test(test_entry),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
