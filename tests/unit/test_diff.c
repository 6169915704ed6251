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

#include <stdio.h>
#include <stdlib.h>

/* ---- building small traces ------------------------------------------- */

typedef struct tb {
    char buf[16384];
    size_t n;
    int corr;
} tb;

static void tb_add(tb *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t->n += (size_t)vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
    va_end(ap);
    assert_true(t->n < sizeof t->buf);
}

static void tb_init(tb *t)
{
    t->n = 0;
    t->corr = 0;
    tb_add(t, "{\"traceEvents\":[");
}

/* cpu_op NAME at [ts, ts + dur) */
static void op(tb *t, const char *name, int ts, int dur)
{
    tb_add(t, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,"
              "\"tid\":1,\"ts\":%d,\"dur\":%d,\"args\":{\"Input Dims\":[[%d]]}},",
           name, ts, dur, dur);
}

/* launch API LNAME at ts (1 us) linked to kernel KNAME at kts */
static void launchn(tb *t, const char *lname, int ts, const char *kname,
                    int kts, int kdur)
{
    int c = ++t->corr;
    tb_add(t, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
              "\"%s\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,"
              "\"args\":{\"correlation\":%d}},", lname, ts, c);
    tb_add(t, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,"
              "\"pid\":1,\"tid\":1,\"ts\":%d},", c, ts);
    tb_add(t, "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,"
              "\"pid\":0,\"tid\":7,\"ts\":%d,\"bp\":\"e\"},", c, kts);
    tb_add(t, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,"
              "\"tid\":7,\"ts\":%d,\"dur\":%d,\"args\":{\"correlation\":%d}},",
           kname, kts, kdur, c);
}

static void launch(tb *t, int ts, const char *kname, int kts, int kdur)
{
    launchn(t, "cudaLaunchKernel", ts, kname, kts, kdur);
}

/* op NAME at ts with one launched kernel */
static void opk(tb *t, const char *name, int ts, const char *kname, int kts)
{
    op(t, name, ts, 5);
    launch(t, ts + 1, kname, kts, 3);
}

typedef struct side {
    tlm_trace *tr;
    tlm_tree *tree;
} side;

static void tb_tree(tb *t, side *s)
{
    tb_add(t, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0}]}");
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(t->buf, t->n, "mem", NULL, &s->tr,
                                        &err), TLM_OK);
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    assert_int_equal(tlm_tree_build(s->tr, &o, &s->tree, &err), TLM_OK);
}

/* diff of the two traces: the text of output f compared with want */
static void diff_is(tb *a, tb *b, tlm_diff_file f, const char *want)
{
    side s[2];
    tb_tree(a, &s[0]);
    tb_tree(b, &s[1]);
    tlm_diff *d = NULL;
    tlm_error err;
    assert_int_equal(tlm_diff_build(s[0].tree, s[1].tree, NULL, &d, &err),
                     TLM_OK);
    char *text;
    size_t len;
    assert_int_equal(tlm_diff_render(d, f, &text, &len, &err), TLM_OK);
    assert_string_equal(text, want);
    free(text);
    tlm_diff_free(d);
    for (int k = 0; k < 2; k++) {
        tlm_tree_free(s[k].tree);
        tlm_trace_free(s[k].tr);
    }
}

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

/* §3: roots are paired by position: [x, y] vs [y] */
static void test_roots_by_position(void **state)
{
    (void)state;
    tb a, b;
    tb_init(&a);
    opk(&a, "aten::x", 0, "kx", 100);
    opk(&a, "aten::y", 10, "ky", 110);
    tb_init(&b);
    opk(&b, "aten::y", 10, "ky", 110);
    diff_is(&a, &b, TLM_DIFF_TREE,
            "\u251c\u2500\u2500 combined: aten::x | aten::y\n"
            "\u2502   \u2514\u2500\u2500 cudaLaunchKernel\n"
            "\u2502       \u2514\u2500\u2500 combined: kx | ky\n"
            "\u2514\u2500\u2500 >> trace1: aten::y\n"
            "    \u2514\u2500\u2500 >> trace1: cudaLaunchKernel\n"
            "        \u2514\u2500\u2500 >> trace1: ky\n");
}

/* §4 step 7: equal lengths without launches pair by position */
static void test_positional(void **state)
{
    (void)state;
    tb a, b;
    tb_init(&a);
    op(&a, "top", 0, 50);
    opk(&a, "aten::add", 1, "kA", 100);
    opk(&a, "aten::mul", 10, "kM", 110);
    tb_init(&b);
    op(&b, "top", 0, 50);
    opk(&b, "aten::mul", 1, "kM", 100);
    opk(&b, "aten::add", 10, "kA", 110);
    diff_is(&a, &b, TLM_DIFF_TREE,
            "\u2514\u2500\u2500 top\n"
            "    \u251c\u2500\u2500 combined: aten::add | aten::mul\n"
            "    \u2502   \u2514\u2500\u2500 cudaLaunchKernel\n"
            "    \u2502       \u2514\u2500\u2500 combined: kA | kM\n"
            "    \u2514\u2500\u2500 combined: aten::mul | aten::add\n"
            "        \u2514\u2500\u2500 cudaLaunchKernel\n"
            "            \u2514\u2500\u2500 combined: kM | kA\n");
}

/* §4 step 6: top -> wrap -> inner -> {a, b} vs top -> {a, b} */
static void test_wrapper_collapse(void **state)
{
    (void)state;
    tb a, b;
    tb_init(&a);
    op(&a, "aten::top", 0, 100);
    op(&a, "aten::wrap", 1, 98);
    op(&a, "aten::inner", 2, 96);
    opk(&a, "aten::a", 10, "ka", 200);
    opk(&a, "aten::b", 30, "kb", 210);
    tb_init(&b);
    op(&b, "aten::top", 0, 100);
    opk(&b, "aten::a", 10, "ka", 200);
    opk(&b, "aten::b", 30, "kb", 210);
    diff_is(&a, &b, TLM_DIFF_TREE,
            "\u2514\u2500\u2500 combined: aten::inner | aten::top\n"
            "    \u251c\u2500\u2500 aten::a\n"
            "    \u2502   \u2514\u2500\u2500 cudaLaunchKernel\n"
            "    \u2502       \u2514\u2500\u2500 ka\n"
            "    \u2514\u2500\u2500 aten::b\n"
            "        \u2514\u2500\u2500 cudaLaunchKernel\n"
            "            \u2514\u2500\u2500 kb\n");
}

/* §4.2: of two aten::add, the one whose subtree matches is paired (WF
 * alone would pair the last one) */
static void test_disambiguation(void **state)
{
    (void)state;
    tb a, b;
    tb_init(&a);
    op(&a, "top", 0, 50);
    opk(&a, "aten::add", 1, "k2", 100);
    opk(&a, "aten::add", 10, "k1", 110);
    tb_init(&b);
    op(&b, "top", 0, 50);
    opk(&b, "aten::add", 1, "k2", 100);
    diff_is(&a, &b, TLM_DIFF_TREE,
            "\u2514\u2500\u2500 top\n"
            "    \u251c\u2500\u2500 aten::add\n"
            "    \u2502   \u2514\u2500\u2500 cudaLaunchKernel\n"
            "    \u2502       \u2514\u2500\u2500 k2\n"
            "    \u2514\u2500\u2500 >> trace1: aten::add\n"
            "        \u2514\u2500\u2500 >> trace1: cudaLaunchKernel\n"
            "            \u2514\u2500\u2500 >> trace1: k1\n");
}

/* §6: an inserted op is reported under its combined parent, the kernel
 * pair is its own LCA; summary sorted by kernel time */
static void test_stats_rows(void **state)
{
    (void)state;
    tb a, b;
    tb_init(&a);
    op(&a, "top", 0, 50);
    opk(&a, "aten::mm", 1, "gemm", 100);
    tb_init(&b);
    op(&b, "top", 0, 50);
    opk(&b, "aten::mm", 1, "gemm", 100);
    opk(&b, "aten::neg", 10, "negk", 110);
    diff_is(&a, &b, TLM_DIFF_STATS,
            "name,cpu_op_name,cpu_op_uid,source,Input Dims,Input Strides,"
            "Input type,Concrete Inputs,kernel_time,busy_time,"
            "lowest_common_ancestor_name,lowest_common_ancestor_id,"
            "gpu_op_uid,nn_module_stack,nn_module_parent\n"
            "negk,aten::neg,6,trace2,\"((5,),)\",,,,3,3.0,top,0,10,root,root\n"
            "gemm,aten::mm,1,trace1,\"((5,),)\",,,,3,3.0,gemm,3,5,root,root\n"
            "gemm,aten::mm,1,trace2,\"((5,),)\",,,,3,3.0,gemm,3,5,root,root\n");
    tb_init(&a);
    op(&a, "top", 0, 50);
    opk(&a, "aten::mm", 1, "gemm", 100);
    tb_init(&b);
    op(&b, "top", 0, 50);
    opk(&b, "aten::mm", 1, "gemm", 100);
    opk(&b, "aten::neg", 10, "negk", 110);
    diff_is(&a, &b, TLM_DIFF_MAP2,
            "{\n  \"aten::mm\": [\n    \"gemm\"\n  ],\n"
            "  \"aten::neg\": [\n    \"negk\"\n  ]\n}");
}

/* §4 step 8 (the §4.4 example in small): miopen's GPU children hold an
 * aten::add_, so it is replaced by them; its launch and cudnn stay
 * unmatched at _convolution, the LCA; the launches below add_ differ
 * (hip vs cuda) and stay one-sided. */
static void conv_pair(tb *a, tb *b)
{
    tb_init(a);
    op(a, "aten::_convolution", 0, 100);
    op(a, "aten::miopen_convolution", 1, 90);
    launchn(a, "hipExtModuleLaunchKernel", 2, "k1", 200, 10);
    op(a, "aten::add_", 10, 5);
    launchn(a, "hipLaunchKernel", 11, "ka", 220, 3);
    tb_init(b);
    op(b, "aten::_convolution", 0, 100);
    op(b, "aten::cudnn_convolution", 1, 8);
    launch(b, 2, "k2", 200, 20);
    op(b, "aten::add_", 10, 5);
    launch(b, 11, "ka", 230, 4);
}

static void test_phase3(void **state)
{
    (void)state;
    tb a, b;
    conv_pair(&a, &b);
    diff_is(&a, &b, TLM_DIFF_TREE,
            "\u2514\u2500\u2500 aten::_convolution\n"
            "    \u251c\u2500\u2500 aten::add_\n"
            "    \u2502   \u251c\u2500\u2500 >> trace1: hipLaunchKernel\n"
            "    \u2502   \u2502   \u2514\u2500\u2500 >> trace1: ka\n"
            "    \u2502   \u2514\u2500\u2500 << trace2: cudaLaunchKernel\n"
            "    \u2502       \u2514\u2500\u2500 << trace2: ka\n"
            "    \u251c\u2500\u2500 >> trace1: hipExtModuleLaunchKernel\n"
            "    \u2502   \u2514\u2500\u2500 >> trace1: k1\n"
            "    \u2514\u2500\u2500 << trace2: aten::cudnn_convolution\n"
            "        \u2514\u2500\u2500 << trace2: cudaLaunchKernel\n"
            "            \u2514\u2500\u2500 << trace2: k2\n");
    /* §8: miopen and cudnn share no suffix: both renamed to their module
     * ("root"); summary order k2, k1, ka (trace2), ka (trace1) */
    conv_pair(&a, &b);
    diff_is(&a, &b, TLM_DIFF_MAP,
            "{\n"
            "  \"root\": {\n"
            "    \"trace1\": {\n"
            "      \"kernels\": [\n        \"k1\"\n      ],\n"
            "      \"nn_module_parents\": [\n        \"root\"\n      ]\n"
            "    },\n"
            "    \"trace2\": {\n"
            "      \"kernels\": [\n        \"k2\"\n      ],\n"
            "      \"nn_module_parents\": [\n        \"root\"\n      ]\n"
            "    }\n"
            "  },\n"
            "  \"aten::add_\": {\n"
            "    \"trace1\": {\n"
            "      \"kernels\": [\n        \"ka\"\n      ],\n"
            "      \"nn_module_parents\": [\n        \"root\"\n      ]\n"
            "    },\n"
            "    \"trace2\": {\n"
            "      \"kernels\": [\n        \"ka\"\n      ],\n"
            "      \"nn_module_parents\": [\n        \"root\"\n      ]\n"
            "    }\n"
            "  }\n"
            "}");
}

/* §4 step 9: the unmatched are collapsed to their deepest single-GPU-
 * child node and aligned again, then with the ": arg" suffix stripped;
 * the wrappers f1, f2, other do not appear. */
static void test_phase4(void **state)
{
    (void)state;
    tb a, b;
    tb_init(&a);
    op(&a, "top", 0, 100);
    op(&a, "f1", 1, 50);
    op(&a, "aten::inner: a", 2, 40);
    launch(&a, 3, "k", 200, 3);
    tb_init(&b);
    op(&b, "top", 0, 100);
    op(&b, "f2", 1, 20);
    op(&b, "aten::inner: b", 2, 10);
    launch(&b, 3, "k", 200, 3);
    op(&b, "other", 30, 20);
    op(&b, "aten::zzz", 31, 10);
    launch(&b, 32, "k3", 210, 3);
    diff_is(&a, &b, TLM_DIFF_TREE,
            "\u2514\u2500\u2500 top\n"
            "    \u251c\u2500\u2500 combined: aten::inner: a | aten::inner: b\n"
            "    \u2502   \u2514\u2500\u2500 cudaLaunchKernel\n"
            "    \u2502       \u2514\u2500\u2500 k\n"
            "    \u2514\u2500\u2500 << trace2: aten::zzz\n"
            "        \u2514\u2500\u2500 << trace2: cudaLaunchKernel\n"
            "            \u2514\u2500\u2500 << trace2: k3\n");
}

/* §7: equal kernel_time_sum, ties broken by the text of the columns */
static void test_summary_sort(void **state)
{
    (void)state;
    tb a, b;
    tb_init(&a);
    op(&a, "top", 0, 50);
    opk(&a, "aten::mm", 1, "gemm", 100);
    tb_init(&b);
    op(&b, "top", 0, 50);
    opk(&b, "aten::mm", 1, "gemm", 100);
    opk(&b, "aten::neg", 10, "negk", 110);
    diff_is(&a, &b, TLM_DIFF_UNIQUE,
            "name,operation_count,cpu_op_name,cpu_op_uid,source,Input Dims,"
            "Input Strides,Input type,Concrete Inputs,busy_time,"
            "lowest_common_ancestor_name,nn_module_stack,nn_module_parent,"
            "kernel_time_mean,kernel_time_sum\n"
            "gemm,1,aten::mm,1,trace1,\"((5,),)\",,,,3.0,gemm,root,root,3.0,3\n"
            "gemm,1,aten::mm,1,trace2,\"((5,),)\",,,,3.0,gemm,root,root,3.0,3\n"
            "negk,1,aten::neg,6,trace2,\"((5,),)\",,,,3.0,top,root,root,3.0,3\n");
}

/* A chain of nested cpu_ops far deeper than a recursive walk could take
 * on the C stack (explicit stacks everywhere); the one kernel at the
 * bottom differs in name, so the pair of kernels is the LCA. */
static char *deep_trace(int depth, const char *kname, size_t *len)
{
    size_t cap = (size_t)depth * 96 + 1024, n = 0;
    char *p = malloc(cap);
    assert_non_null(p);
    n += (size_t)snprintf(p + n, cap - n, "{\"traceEvents\":[");
    for (int i = 0; i < depth; i++)
        n += (size_t)snprintf(p + n, cap - n,
                              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                              "\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                              "\"dur\":%d},", i % 7, i, 4 * depth - 2 * i);
    n += (size_t)snprintf(p + n, cap - n,
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
        "\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,"
        "\"args\":{\"correlation\":1}},"
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,"
        "\"pid\":1,\"tid\":1,\"ts\":%d},"
        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,"
        "\"pid\":0,\"tid\":7,\"ts\":%d,\"bp\":\"e\"},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,"
        "\"tid\":7,\"ts\":%d,\"dur\":3,\"args\":{\"correlation\":1}}]}",
        depth + 1, depth + 1, 5 * depth, kname, 5 * depth);
    assert_true(n < cap);
    *len = n;
    return p;
}

static void test_deep_tree(void **state)
{
    (void)state;
    const int depth = 100000;
    side s[2];
    const char *kn[2] = {"ka", "kb"};
    for (int k = 0; k < 2; k++) {
        size_t n;
        char *p = deep_trace(depth, kn[k], &n);
        tlm_error err;
        tlm_read_opts ro;
        tlm_read_opts_init(&ro);
        ro.max_depth = 16;
        assert_int_equal(tlm_trace_read_mem(p, n, "deep", &ro, &s[k].tr,
                                            &err), TLM_OK);
        free(p);
        assert_int_equal(tlm_tree_build(s[k].tr, NULL, &s[k].tree, &err),
                         TLM_OK);
    }
    tlm_diff *d = NULL;
    tlm_error err;
    assert_int_equal(tlm_diff_build(s[0].tree, s[1].tree, NULL, &d, &err),
                     TLM_OK);
    const tlm_diff_stats *st = tlm_diff_stats_get(d);
    assert_int_equal(st->merged_nodes, depth + 2);
    assert_int_equal(st->rows1, 1);
    assert_int_equal(st->rows2, 1);
    assert_int_equal(st->lcas, 1);
    char *text;
    size_t len;
    assert_int_equal(tlm_diff_render(d, TLM_DIFF_STATS, &text, &len, &err),
                     TLM_OK);
    assert_non_null(strstr(text, "\nka,op4,99999,trace1,"));
    assert_non_null(strstr(text, ",ka | kb,100001,100003,root,root\n"));
    free(text);
    tlm_diff_free(d);
    for (int k = 0; k < 2; k++) {
        tlm_tree_free(s[k].tree);
        tlm_trace_free(s[k].tr);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_norm),
        cmocka_unit_test(test_strip_paren),
        cmocka_unit_test(test_wf),
        cmocka_unit_test(test_json_str),
        cmocka_unit_test(test_roots_by_position),
        cmocka_unit_test(test_positional),
        cmocka_unit_test(test_wrapper_collapse),
        cmocka_unit_test(test_disambiguation),
        cmocka_unit_test(test_stats_rows),
        cmocka_unit_test(test_deep_tree),
        cmocka_unit_test(test_phase3),
        cmocka_unit_test(test_phase4),
        cmocka_unit_test(test_summary_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
