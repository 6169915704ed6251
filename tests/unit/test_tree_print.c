/*
 * test_tree_print.c - the text views of a call tree (src/tree/tree_print.c)
 * on small traces written in the test: the subtree printer (pruning of
 * nodes without GPU work, depth limit, GPU time, shapes, long names,
 * events without a category), the parent chain with its forward op, and
 * the nn.Module view; exact text, and the errors of bad arguments.
 *
 * Traces are written with ' for " (tt_read_sq swaps them).  Times are
 * microseconds as in Kineto traces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "tlm_test_util.h"

/* Box-drawing pieces of the printed tree. */
#define LAST "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 " /* "└── " */
#define MID "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 "  /* "├── " */
#define BAR "\xe2\x94\x82   "                        /* "│   " */
#define MU "\xc2\xb5"                                /* "µ" */

/* The tree of a trace read with tt_read_sq; *tr keeps the trace. */
static tlm_tree *tree_of(const char *sq, int python_functions,
                         tlm_trace **tr)
{
    *tr = tt_read_sq(sq);
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.python_functions = python_functions;
    tlm_tree *t = NULL;
    assert_int_equal(tlm_tree_build(*tr, &o, &t, NULL), TLM_OK);
    return t;
}

static char *print_to_string(tlm_tree *t, int32_t uid, int depth,
                             unsigned flags, int parents)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    tlm_status st = parents ? tlm_tree_print_parents(t, f, uid, flags, NULL)
                            : tlm_tree_print(t, f, uid, depth, flags, NULL);
    assert_int_equal(st, TLM_OK);
    fclose(f);
    return buf;
}

static char *modules_to_string(tlm_tree *t, int depth)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(tlm_tree_print_modules(t, f, depth, NULL), TLM_OK);
    fclose(f);
    return buf;
}

/* Subtree, GPU time at depth 1, parent chain of a kernel, and a UID out of
 * range. */
static void test_print(void **state)
{
    (void)state;
    tlm_trace *tr = NULL;
    tlm_tree *t = tree_of(TT_NESTED, 0, &tr);
    char *s = print_to_string(t, 0, -1, 0, 0);
    assert_string_equal(
        s, LAST "UID: 0, Category: cpu_op, Name: aten::linear\n"
           "    " MID "UID: 1, Category: cpu_op, Name: aten::addmm\n"
           "    " BAR LAST "UID: 2, Category: cuda_runtime, "
           "Name: cudaLaunchKernel\n"
           "    " BAR "    " LAST "UID: 3, Category: kernel, "
           "Name: gemm_kernel, Duration: 40.0\n"
           "    " LAST "UID: 6, Category: cpu_op, Name: aten::add\n"
           "        " LAST "UID: 7, Category: cuda_runtime, "
           "Name: cudaLaunchKernel\n"
           "            " LAST "UID: 8, Category: kernel, "
           "Name: add_kernel, Duration: 5.0\n");
    free(s);
    s = print_to_string(t, 0, 1, TLM_PRINT_GPU_TIME, 0);
    assert_string_equal(
        s, LAST "UID: 0, Category: cpu_op, Name: aten::linear, "
           "GPU Time: 45.000 us (2 GPU ops)\n"
           "    " MID "UID: 1, Category: cpu_op, Name: aten::addmm, "
           "GPU Time: 40.000 us (1 GPU ops)\n"
           "    " LAST "UID: 6, Category: cpu_op, Name: aten::add, "
           "GPU Time: 5.000 us (1 GPU ops)\n");
    free(s);
    /* depth 0: the node alone; a node without GPU work is printed when
     * asked for, its children only with TLM_PRINT_NO_PRUNE */
    s = print_to_string(t, 6, 0, 0, 0);
    assert_string_equal(s, LAST "UID: 6, Category: cpu_op, "
                                "Name: aten::add\n");
    free(s);
    s = print_to_string(t, 11, -1, TLM_PRINT_GPU_TIME, 0);
    assert_string_equal(s, LAST "UID: 11, Category: cpu_op, "
                                "Name: aten::empty\n");
    free(s);
    s = print_to_string(t, 8, -1, 0, 1);
    assert_string_equal(
        s, "Node:\n  UID: 8, Category: kernel, Name: add_kernel, "
           "Duration: 5.0\n"
           "1-up:\n  UID: 7, Category: cuda_runtime, "
           "Name: cudaLaunchKernel\n"
           "2-up:\n  UID: 6, Category: cpu_op, Name: aten::add\n"
           "3-up:\n  UID: 0, Category: cpu_op, Name: aten::linear\n");
    free(s);
    tlm_error err;
    assert_int_equal(tlm_tree_print(t, stdout, 1000, -1, 0, &err),
                     TLM_EINVAL);
    assert_string_equal(err.msg, "tree: UID 1000 out of range");
    assert_int_equal(tlm_tree_print(t, stdout, -1, -1, 0, NULL),
                     TLM_EINVAL);
    assert_int_equal(tlm_tree_print(t, NULL, 0, -1, 0, NULL), TLM_EINVAL);
    assert_int_equal(tlm_tree_print_parents(t, stdout, 13, 0, &err),
                     TLM_EINVAL);
    assert_string_equal(err.msg, "tree: UID 13 out of range");
    assert_int_equal(tlm_tree_print_parents(NULL, stdout, 0, 0, NULL),
                     TLM_EINVAL);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Shapes of cpu_ops (as Python lists), names cut at 64 bytes, an event
 * without "cat", and pruning with and without TLM_PRINT_NO_PRUNE. */
static void test_print_shapes_and_prune(void **state)
{
    (void)state;
    tlm_trace *tr = NULL;
    tlm_tree *t = tree_of(
        "{'traceEvents':["
        "{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':1,'tid':1,"
        "'ts':0,'dur':50,'args':{'Input Dims':[[2,3],[3]],"
        "'Input type':['float','c10::Half'],'Input Strides':[[3,1],[1]],"
        "'Concrete Inputs':['','1.5']}},"                          /* 0 */
        "{'ph':'X','name':'nocat','pid':1,'tid':1,'ts':1,'dur':2},"  /* 1 */
        "{'ph':'X','cat':'cuda_driver','name':'cuModuleLoad','pid':1,"
        "'tid':1,'ts':1,'dur':2},"                                   /* 2 */
        TT_CPU("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
               "bbbbbbbbbb", 5, 20, 1) ","                          /* 3 */
        TT_RT("cudaLaunchKernel", 6, 2, 3) ","                       /* 4 */
        TT_KER("k", 30, 4, 3, 7) "]}",                               /* 5 */
        0, &tr);
    char *s = print_to_string(t, 0, -1, TLM_PRINT_SHAPES, 0);
    assert_string_equal(
        s, LAST "UID: 0, Category: cpu_op, Name: aten::mm\n"
           "    |   Input Dims: [[2, 3], [3]]\n"
           "    |   Input type: ['float', 'c10::Half']\n"
           "    |   Input Strides: [[3, 1], [1]]\n"
           "    |   Concrete Inputs: ['', '1.5']\n"
           "    |   \n"
           "    " LAST "UID: 3, Category: cpu_op, Name: "
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
           "bbbb..\n"
           "        " LAST "UID: 4, Category: cuda_runtime, "
           "Name: cudaLaunchKernel\n"
           "            " LAST "UID: 5, Category: kernel, Name: k, "
           "Duration: 4.0\n");
    free(s);
    s = print_to_string(t, 0, 1, TLM_PRINT_NO_PRUNE, 0);
    assert_string_equal(
        s, LAST "UID: 0, Category: cpu_op, Name: aten::mm\n"
           "    " MID "UID: 2, Category: cuda_driver, Name: cuModuleLoad\n"
           "    " LAST "UID: 3, Category: cpu_op, Name: "
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
           "bbbb..\n");
    free(s);
    /* an event without "cat" is no tree node, but can be printed */
    s = print_to_string(t, 1, -1, 0, 0);
    assert_string_equal(s, LAST "UID: 1, Category: None, Name: nocat\n");
    free(s);
    /* the parent chain prints the shapes of each cpu_op under it */
    s = print_to_string(t, 3, -1, TLM_PRINT_SHAPES, 1);
    assert_string_equal(
        s, "Node:\n  UID: 3, Category: cpu_op, Name: "
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
           "bbbb..\n"
           "1-up:\n  UID: 0, Category: cpu_op, Name: aten::mm\n"
           "  |   Input Dims: [[2, 3], [3]]\n"
           "  |   Input type: ['float', 'c10::Half']\n"
           "  |   Input Strides: [[3, 1], [1]]\n"
           "  |   Concrete Inputs: ['', '1.5']\n"
           "  |   \n");
    free(s);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* A backward op's parent chain ends with its forward op. */
static void test_print_parents_forward(void **state)
{
    (void)state;
    tlm_trace *tr = NULL;
    tlm_tree *t = tree_of(
        "{'traceEvents':["
        "{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':1,'tid':1,"
        "'ts':0,'dur':5,'args':{'Sequence number':5}},"
        "{'ph':'X','cat':'cpu_op','name':'autograd::engine::evaluate_"
        "function: MmBackward0','pid':1,'tid':2,'ts':50,'dur':5,"
        "'args':{'Sequence number':5}}]}",
        0, &tr);
    char *s = print_to_string(t, 1, -1, 0, 1);
    assert_string_equal(s, "Node:\n  UID: 1, Category: cpu_op, "
                           "Name: autograd::engine::evaluate_function: "
                           "MmBackward0\n"
                           "Forward op:\n  UID: 0, Category: cpu_op, "
                           "Name: aten::mm\n");
    free(s);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

static const char *module_trace =
    "{'traceEvents':["
    "{'ph':'X','cat':'python_function','name':'nn.Module: Net_0',"
    "'pid':1,'tid':1,'ts':0,'dur':100},"
    "{'ph':'X','cat':'python_function','name':'nn.Module: Linear_0',"
    "'pid':1,'tid':1,'ts':1,'dur':40},"
    TT_CPU("aten::addmm", 2, 30, 1) ","
    TT_RT("cudaLaunchKernel", 3, 1, 1) ","
    TT_KER("gemm", 10, 20, 1, 7) ","
    TT_CPU("aten::relu", 50, 10, 1) ","
    TT_RT("cudaLaunchKernel", 51, 1, 2) ","
    TT_KER("relu", 60, 10, 2, 7) ","
    TT_CPU("aten::copy_", 200, 10, 1) ","
    TT_RT("cudaLaunchKernel", 201, 1, 3) ","
    TT_KER("copy", 205, 10, 3, 7) "]}";

/* GPU time per module, the share of the parent, the GPU time outside the
 * module children, and the work outside any module. */
static void test_modules(void **state)
{
    (void)state;
    tlm_trace *tr = NULL;
    tlm_tree *t = tree_of(module_trace, 1, &tr);
    assert_true(tlm_tree_flags(t, 0) & TLM_NODE_NN_MODULE);
    char *s = modules_to_string(t, -1);
    assert_string_equal(
        s, LAST "UID: 0, Name: nn.Module: Net_0, GPU Time: 30.00 " MU "s\n"
           "    " MID "UID: 1, Name: nn.Module: Linear_0, GPU Time: "
           "20.00 " MU "s, Pct Parent: 66.67%\n"
           "    " BAR LAST "Non-nn.Module GPU Time: 20.00 " MU "s, "
           "Pct Parent: 100.00%\n"
           "    " LAST "Non-nn.Module GPU Time: 10.00 " MU "s, "
           "Pct Parent: 33.33%\n"
           "Non-nn.Module GPU Time (top level): 10.00 " MU "s of 40.00 "
           MU "s linked GPU busy time (25.00%)\n");
    free(s);
    /* depth 0: the root module and its own remainder only */
    s = modules_to_string(t, 0);
    assert_string_equal(
        s, LAST "UID: 0, Name: nn.Module: Net_0, GPU Time: 30.00 " MU "s\n"
           "    " LAST "Non-nn.Module GPU Time: 10.00 " MU "s, "
           "Pct Parent: 33.33%\n"
           "Non-nn.Module GPU Time (top level): 10.00 " MU "s of 40.00 "
           MU "s linked GPU busy time (25.00%)\n");
    free(s);
    tlm_tree_free(t);
    tlm_trace_free(tr);

    /* without python_function events: no module */
    t = tree_of(module_trace, 0, &tr);
    s = modules_to_string(t, -1);
    assert_string_equal(
        s, "no nn.Module events in the tree (python_function events "
           "needed)\n"
           "Non-nn.Module GPU Time (top level): 40.00 " MU "s of 40.00 "
           MU "s linked GPU busy time (100.00%)\n");
    free(s);
    tlm_error err;
    assert_int_equal(tlm_tree_print_modules(t, NULL, -1, &err), TLM_EINVAL);
    assert_string_equal(err.msg, "tree: NULL tree or stream");
    assert_int_equal(tlm_tree_print_modules(NULL, stdout, -1, NULL),
                     TLM_EINVAL);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_print_shapes_and_prune),
        cmocka_unit_test(test_print_parents_forward),
        cmocka_unit_test(test_modules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
