/*
 * test_pseudo_ops.c - TraceLens's pseudo ops (src/tree/pseudo_ops.c,
 * pseudo_inject.c, src/trace/append.c) on small traces read with
 * tlm_trace_read_mem: which kernels each rule family matches, the order
 * and names (up/down by start time), the injected event (name, cat,
 * times, arguments) and tree links, at most one pseudo op per kernel,
 * kernels without a launch or parent, the flydsl stages (above an op),
 * a second call, a foreign trace, tlm_trace_append_event's checks, and
 * the sglang_profiler renaming, the MLA decode / prefill and DeepSeek-V4
 * frames (pseudo_mla.c, pseudo_v4.c: wrapped children, donors, modes,
 * order, the cpu roots after, pseudo_roots.c).  Traces use ' for "
 * (tt_read_sq).
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

#define OPA(name, ts, dur, args)                                          \
    "{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':" #ts \
    ",'dur':" #dur ",'args':{" args "}}"
#define LAUNCH(ts, kname, kts, kdur, corr)                                \
    TT_RT("cudaLaunchKernel", ts, 1, corr) ","                            \
    TT_FLOW_S(corr, ts) "," TT_FLOW_F(corr, kts, 7) ","                   \
    TT_KER(kname, kts, kdur, corr, 7)

static tlm_tree *build(tlm_trace *tr)
{
    tlm_tree *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_tree_build(tr, NULL, &t, &err), TLM_OK);
    return t;
}

static const char *name_of(const tlm_trace *tr, int32_t u)
{
    size_t n;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    assert_true((size_t)u < n);
    return tlm_trace_str(tr, ev[u].name, NULL);
}

/* UID of the first event named s from uid from on, -1 if none. */
static int32_t find(const tlm_trace *tr, const char *s, int32_t from)
{
    size_t n;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    for (size_t i = (size_t)from; i < n; i++)
        if (!strcmp(tlm_trace_str(tr, ev[i].name, NULL), s))
            return (int32_t)i;
    return -1;
}

/* The pseudo op above kernel k: name checked, its UID returned. */
static int32_t pseudo_above(tlm_tree *t, int32_t k, const char *want)
{
    int32_t L = tlm_tree_parent(t, k);
    assert_true(L >= 0);
    int32_t P = tlm_tree_parent(t, L);
    assert_true(P >= 0);
    assert_string_equal(name_of(tlm_tree_trace(t), P), want);
    return P;
}

#define AITER_TRACE                                                       \
    "{'traceEvents':["                                                    \
    OPA("vllm::moe_forward", 0, 100, "") ","                 /* 0 */     \
    OPA("vllm::rocm_aiter_fused_moe", 5, 90,                 /* 1 */     \
        "'Input Dims':[[4,8]],'Input type':['c10::BFloat16']," \
        "'Sequence number':7") ","                                        \
    LAUNCH(10, "MoeSortingKernel<aiter::fmoe>", 1000, 5, 11) "," /* 2-5 */\
    LAUNCH(20, "aiter::fmoe_g1u1", 1010, 30, 12) ","          /* 6-9 */  \
    LAUNCH(30, "aiter::fmoe_QUANT", 1050, 4, 13) ","          /* 10-13 */\
    OPA("vllm::rocm_aiter_fused_moe", 200, 50, "") ","        /* 14 */   \
    LAUNCH(210, "aiter::fmoe_a", 1100, 10, 14) ","            /* 15-18 */\
    LAUNCH(220, "aiter::fmoe_b", 1120, 10, 15)                /* 19-22 */\
    "]}"

static void test_aiter_fused(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(AITER_TRACE);
    tlm_tree *t = build(tr);
    size_t n0 = tlm_tree_size(t), added = 9, n;
    tlm_error err;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    /* MoeSorting and quant are not MoE compute; the second op has two
     * fmoe kernels, not exactly one: no pseudo op */
    assert_int_equal(added, 1);
    assert_int_equal(tlm_tree_size(t), n0 + 1);
    const tlm_event *ev = tlm_trace_events(tr, &n);
    assert_int_equal(n, n0 + 1);
    int32_t k = find(tr, "aiter::fmoe_g1u1", 0), u = (int32_t)n0;
    assert_int_equal(pseudo_above(t, k, "pseudo_op::moe_aiter_fused_1stage"),
                     u);
    /* between op 1 and the launch: the last child of op 1, the launch its
     * only child, the kernel its only GPU event */
    assert_int_equal(tlm_tree_parent(t, u), 1);
    assert_int_equal(tlm_tree_first_child(t, u), 6);
    assert_int_equal(tlm_tree_next_sibling(t, u), -1);
    assert_int_equal(tlm_tree_next_sibling(t, 6), -1);
    assert_int_equal(tlm_tree_first_child(t, 1), 2);
    assert_int_equal(tlm_tree_next_sibling(t, 2), 10);
    assert_int_equal(tlm_tree_next_sibling(t, 10), u);
    size_t ng;
    const int32_t *g = tlm_tree_gpu_events(t, u, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0], k);
    tlm_tree_gpu_events(t, 1, &ng);
    assert_int_equal(ng, 3); /* the parent keeps all three */
    assert_true(tlm_tree_flags(t, u) & TLM_NODE_TREE);
    assert_false(tlm_tree_flags(t, u) & TLM_NODE_CPU_ROOT);
    /* the event: cpu_op, the kernel's span, the op's shapes */
    assert_int_equal(ev[u].cat, TLM_CAT_CPU_OP);
    assert_int_equal(ev[u].ph, 'X');
    assert_int_equal(ev[u].ts, ev[k].ts);
    assert_int_equal(tlm_ev_dur(&(ev[u])), tlm_ev_dur(&(ev[k])));
    assert_int_equal(tlm_ev_pid(&ev[u]), 1);
    assert_int_equal(tlm_ev_tid(&ev[u]), 1);
    assert_string_equal(
        tlm_event_arg_str(tr, &ev[u], TLM_ARG_INPUT_DIMS, NULL), "[[4,8]]");
    assert_string_equal(
        tlm_event_arg_str(tr, &ev[u], TLM_ARG_INPUT_TYPE, NULL),
        "[\"c10::BFloat16\"]");
    assert_null(tlm_event_arg_str(tr, &ev[u], TLM_ARG_INPUT_STRIDES, NULL));
    int64_t v;
    assert_true(tlm_event_arg_int(tr, &ev[u], TLM_ARG_SEQUENCE_NUMBER, &v));
    assert_int_equal(v, 7);
    assert_true(tlm_event_arg_int(tr, &ev[u], TLM_ARG_EXTERNAL_ID, &v));
    assert_int_equal(v, 12);
    assert_int_equal(tlm_tree_stats_get(t)->n_pseudo_ops, 1);
    /* once per tree */
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, NULL, &err), TLM_EINVAL);
    assert_int_equal(tlm_tree_size(t), n0 + 1);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Triton unfused MoE: up = the earliest matmul_ogs kernel (launched
 * second), down = the other, then the one matmul_scatter; GPTQ/AWQ: the
 * case-sensitive name, up/down by start time, the third down too; the
 * donor's UID is the sequence number when it has none. */
#define MOE_TRACE                                                         \
    "{'traceEvents':["                                                    \
    OPA("vllm::moe_forward", 0, 100, "'Input Dims':[[4,8]]") ","   /* 0 */\
    LAUNCH(10, "_matmul_ogs_swiglu", 1040, 20, 21) ","         /* 1-4 */  \
    LAUNCH(20, "_MATMUL_OGS", 1000, 30, 22) ","                 /* 5-8 */  \
    LAUNCH(30, "_finalize_matmul_scatter", 1070, 5, 23) ","     /* 9-12 */ \
    OPA("vllm::outplace_fused_experts", 200, 100,            /* 13 */    \
        "'Sequence number':42") ","                                       \
    OPA("vllm::outplace_fused_experts", 201, 98, "") ","      /* 14 */   \
    LAUNCH(210, "fused_moe_kernel_gptq_awq", 2050, 12, 24) "," /* 15-18 */\
    LAUNCH(220, "Fused_Moe_Kernel_GPTQ_AWQ", 2020, 8, 25) ","  /* 19-22 */\
    LAUNCH(230, "fused_moe_kernel_gptq_awq", 2000, 9, 26) ","  /* 23-26 */\
    LAUNCH(240, "fused_moe_kernel_gptq_awq", 2090, 3, 27) ","  /* 27-30 */\
    TT_KER("fused_moe_kernel_gptq_awq", 3000, 1, 99, 7)        /* 31 */  \
    "]}"

static void test_triton_and_gptq(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(MOE_TRACE);
    tlm_tree *t = build(tr);
    size_t n0 = tlm_tree_size(t), added;
    tlm_error err;
    assert_int_equal(n0, 32);
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    /* 3 Triton; GPTQ: the nested ops share the three kernels, each gets
     * one pseudo op (from the outer op, first in UID order) */
    assert_int_equal(added, 6);
    assert_int_equal(pseudo_above(t, 8, "pseudo_op::moe_triton_unfused_up"),
                     32);
    assert_int_equal(
        pseudo_above(t, 4, "pseudo_op::moe_triton_unfused_down"), 33);
    assert_int_equal(
        pseudo_above(t, 12,
                     "pseudo_op::moe_triton_unfused_finalize_matmul_scatter"),
        34);
    assert_int_equal(pseudo_above(t, 26, "pseudo_op::moe_gptq_awq_up"), 35);
    assert_int_equal(pseudo_above(t, 18, "pseudo_op::moe_gptq_awq_down"), 36);
    assert_int_equal(pseudo_above(t, 30, "pseudo_op::moe_gptq_awq_down"), 37);
    assert_int_equal(tlm_tree_parent(t, 19), 14); /* case differs */
    assert_int_equal(tlm_tree_parent(t, 31), -1); /* no launch */
    size_t n;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    int64_t v;
    assert_true(tlm_event_arg_int(tr, &ev[32], TLM_ARG_SEQUENCE_NUMBER, &v));
    assert_int_equal(v, 0); /* the donor's UID */
    assert_string_equal(
        tlm_event_arg_str(tr, &ev[32], TLM_ARG_INPUT_DIMS, NULL), "[[4,8]]");
    assert_true(tlm_event_arg_int(tr, &ev[35], TLM_ARG_SEQUENCE_NUMBER, &v));
    assert_int_equal(v, 42);
    /* the launches of the nested op: under the pseudo ops, the op keeps
     * the other one */
    assert_int_equal(tlm_tree_first_child(t, 14), 19);
    assert_int_equal(tlm_tree_next_sibling(t, 19), 35);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* No gate, no pseudo op: matmul_ogs without vllm::moe_forward, aiter
 * kernels without vllm::rocm_aiter_fused_moe, an anchor name that is only
 * an argument value. */
static void test_no_match(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        OPA("aten::mm", 0, 100, "'Input type':['vllm::moe_forward']") ","
        LAUNCH(10, "_matmul_ogs", 1000, 5, 31) ","
        LAUNCH(20, "aiter::fmoe", 1010, 5, 32) "]}");
    tlm_tree *t = build(tr);
    size_t added = 7, n0 = tlm_tree_size(t);
    tlm_error err;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 0);
    assert_int_equal(tlm_tree_size(t), n0);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* A matched kernel whose launch has no parent op is left alone. */
static void test_launch_without_parent(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        OPA("vllm::moe_forward", 0, 100, "") ","
        LAUNCH(10, "_matmul_ogs", 1000, 5, 31) ","
        LAUNCH(200, "_matmul_ogs_b", 1010, 5, 32) "]}");
    tlm_tree *t = build(tr);
    size_t added;
    tlm_error err;
    int32_t k2 = find(tr, "_matmul_ogs_b", 0);
    assert_int_equal(tlm_tree_parent(t, tlm_tree_parent(t, k2)), -1);
    /* the op's own GPU events hold only the first kernel */
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 1);
    assert_int_equal(tlm_tree_stats_get(t)->n_pseudo_skipped, 0);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

static void test_foreign_trace(void **state)
{
    (void)state;
    tlm_trace *a = tt_read_sq(TT_NESTED), *b = tt_read_sq(TT_NESTED);
    tlm_tree *t = build(a);
    tlm_error err;
    assert_int_equal(tlm_tree_pseudo_ops(t, b, NULL, &err), TLM_EINVAL);
    assert_int_equal(tlm_tree_pseudo_ops(NULL, b, NULL, &err), TLM_EINVAL);
    tlm_tree_free(t);
    tlm_trace_free(a);
    tlm_trace_free(b);
}

static void test_append_event(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(TT_NESTED);
    size_t n0, n;
    tlm_trace_events(tr, &n0);
    tlm_event e;
    memset(&e, 0, sizeof e);
    e.cat = TLM_CAT_CPU_OP;
    e.ts = 5;
    tlm_arg k[3] = {TLM_ARG_SEQUENCE_NUMBER, TLM_ARG_INPUT_DIMS,
                    TLM_ARG_EXTERNAL_ID};
    tlm_argv v[3] = {{TLM_ARGV_INT, -300000000000LL, 0},
                     {TLM_ARGV_STR, 0, 0},
                     {TLM_ARGV_INT, 1, 0}};
    tlm_status st;
    v[1].str = tlm_trace_str_intern(tr, "[[1]]", 5, &st);
    uint64_t uid;
    tlm_error err;
    assert_int_equal(tlm_trace_append_event(tr, &e, k, v, 3, &uid, &err),
                     TLM_OK);
    assert_int_equal(uid, n0);
    const tlm_event *ev = tlm_trace_events(tr, &n);
    assert_int_equal(n, n0 + 1);
    int64_t x;
    assert_true(tlm_event_arg_int(tr, &ev[uid], TLM_ARG_SEQUENCE_NUMBER, &x));
    assert_int_equal(x, -300000000000LL);
    assert_string_equal(
        tlm_event_arg_str(tr, &ev[uid], TLM_ARG_INPUT_DIMS, NULL), "[[1]]");
    /* the events before keep their arguments */
    assert_true(tlm_event_arg_int(tr, &ev[2], TLM_ARG_CORRELATION, &x));
    assert_int_equal(x, 7);
    /* no arguments: handle 0 */
    assert_int_equal(tlm_trace_append_event(tr, &e, NULL, NULL, 0, NULL,
                                            &err),
                     TLM_OK);
    ev = tlm_trace_events(tr, &n);
    assert_int_equal(ev[n - 1].args, 0);
    /* bad keys and types */
    k[0] = TLM_ARG_COUNT;
    assert_int_equal(tlm_trace_append_event(tr, &e, k, v, 1, NULL, &err),
                     TLM_EINVAL);
    k[0] = TLM_ARG_SEQUENCE_NUMBER;
    v[0].type = TLM_ARGV_NONE;
    assert_int_equal(tlm_trace_append_event(tr, &e, k, v, 1, NULL, &err),
                     TLM_EINVAL);
    assert_int_equal(tlm_trace_append_event(NULL, &e, k, v, 1, NULL, &err),
                     TLM_EINVAL);
    tlm_trace_events(tr, &n);
    assert_int_equal(n, n0 + 2);
    tlm_trace_free(tr);
}

/* flydsl: a pseudo op above each stage op below aiter::fused_moe_, with
 * its shapes; the profiler names after renaming; a stage outside the op
 * gets none. */
static void test_flydsl(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        OPA("aiter::fused_moe_", 0, 200,                          /* 0 */
            "'Input Dims':[[4,8]],'Sequence number':5") ","
        OPA("sglang_profiler::m_flydsl_moe_stage1_3", 10, 50, "") "," /* 1 */
        LAUNCH(20, "k1", 1000, 5, 41) ","                        /* 2-5 */
        OPA("sglang_profiler::m_flydsl_moe_stage2", 70, 50, "") ","  /* 6 */
        LAUNCH(80, "k2", 1010, 5, 42) ","                        /* 7-10 */
        OPA("sglang_profiler::m_flydsl_moe_stage1_3", 300, 50, "") "]}");
    tlm_tree *t = build(tr);
    size_t added, n;
    tlm_error err;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 2);
    const tlm_event *ev = tlm_trace_events(tr, &n);
    assert_int_equal(n, 14);
    assert_string_equal(name_of(tr, 12), "pseudo_op::moe_flydsl_stage1");
    assert_string_equal(name_of(tr, 13), "pseudo_op::moe_flydsl_stage2");
    /* 0 -> 12 -> 1, 0 -> 13 -> 6, in the stages' places */
    assert_int_equal(tlm_tree_first_child(t, 0), 12);
    assert_int_equal(tlm_tree_next_sibling(t, 12), 13);
    assert_int_equal(tlm_tree_next_sibling(t, 13), -1);
    assert_int_equal(tlm_tree_first_child(t, 12), 1);
    assert_int_equal(tlm_tree_parent(t, 1), 12);
    assert_int_equal(tlm_tree_next_sibling(t, 1), -1);
    assert_int_equal(tlm_tree_parent(t, 6), 13);
    size_t ng;
    const int32_t *g = tlm_tree_gpu_events(t, 12, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0], 5);
    assert_int_equal(ev[12].ts, ev[1].ts);
    assert_int_equal(tlm_ev_dur(&(ev[12])), tlm_ev_dur(&(ev[1])));
    assert_string_equal(
        tlm_event_arg_str(tr, &ev[12], TLM_ARG_INPUT_DIMS, NULL), "[[4,8]]");
    int64_t v;
    assert_true(tlm_event_arg_int(tr, &ev[13], TLM_ARG_SEQUENCE_NUMBER, &v));
    assert_int_equal(v, 5);
    assert_false(tlm_event_arg_int(tr, &ev[13], TLM_ARG_EXTERNAL_ID, &v));
    assert_int_equal(tlm_tree_parent(t, 11), -1); /* outside: none */
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Without profiler ops: the python frames "...: <marker>" (python
 * functions in the tree). */
static void test_flydsl_frames(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        OPA("aiter::fused_moe_", 0, 100, "'Input Dims':[[2,8]]") ","  /* 0 */
        "{'ph':'X','cat':'python_function','name':'m.py(3): "
        "opus_moe_stage2_a8w4_decode_fwd','pid':1,'tid':1,'ts':5,"
        "'dur':50,'args':{'Python id':9}},"                           /* 1 */
        LAUNCH(10, "k", 1000, 5, 51) "]}");                         /* 2-5 */
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.python_functions = 1;
    tlm_tree *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_tree_build(tr, &o, &t, &err), TLM_OK);
    assert_int_equal(tlm_tree_parent(t, 1), 0);
    size_t added;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 1);
    assert_string_equal(name_of(tr, 6), "pseudo_op::moe_opus_stage2_a8w4");
    assert_int_equal(tlm_tree_parent(t, 1), 6);
    assert_int_equal(tlm_tree_parent(t, 6), 0);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* sglang_profiler::<op>_<n> loses "_<n>" when the first event of the
 * name is a cpu_op (then every event of it); other names stay. */
static void test_sglang_names(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        OPA("sglang_profiler::moe_up_12", 0, 10, "") ","      /* 0 */
        OPA("sglang_profiler::moe_up_12", 20, 10, "") ","     /* 1 */
        OPA("sglang_profiler::a_1_2", 40, 10, "") ","         /* 2 */
        OPA("sglang_profiler::_7", 60, 10, "") ","            /* 3 */
        OPA("sglang_profiler::x_", 80, 10, "") ","            /* 4 */
        OPA("sglang_profiler::y12", 100, 10, "") ","          /* 5 */
        TT_KER("sglang_profiler::k_3", 200, 1, 5, 7) ","      /* 6 */
        OPA("sglang_profiler::k_3", 300, 10, "") ","          /* 7 */
        OPA("other::z_4", 400, 10, "") "]}");                 /* 8 */
    tlm_tree *t = build(tr);
    tlm_error err;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, NULL, &err), TLM_OK);
    assert_string_equal(name_of(tr, 0), "sglang_profiler::moe_up");
    assert_string_equal(name_of(tr, 1), "sglang_profiler::moe_up");
    assert_string_equal(name_of(tr, 2), "sglang_profiler::a_1");
    assert_string_equal(name_of(tr, 3), "sglang_profiler::_7");
    assert_string_equal(name_of(tr, 4), "sglang_profiler::x_");
    assert_string_equal(name_of(tr, 5), "sglang_profiler::y12");
    /* the first of the name is a kernel: none of them renamed */
    assert_string_equal(name_of(tr, 6), "sglang_profiler::k_3");
    assert_string_equal(name_of(tr, 7), "sglang_profiler::k_3");
    assert_string_equal(name_of(tr, 8), "other::z_4");
    assert_int_equal(tlm_trace_rename_event(tr, 99, 1, &err), TLM_EINVAL);
    assert_int_equal(tlm_trace_rename_event(tr, 0, UINT32_MAX, &err),
                     TLM_EINVAL);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

#define PYF(name, ts, dur, id)                                            \
    "{'ph':'X','cat':'python_function','name':'" name "','pid':1,"      \
    "'tid':1,'ts':" #ts ",'dur':" #dur ",'args':{'Python id':" #id "}}"

/* MLA decode / prefill: a pseudo op wrapping the children of each
 * matching python frame with a donor op below it, the donor's shapes, the
 * frame's times; the cpu roots below it give way to it.  Non-matches: a
 * line number that is not digits, a frame without the donor below it, a
 * prefill name followed by a word byte. */
static const char mla_trace[] =
    "{'traceEvents':["
    PYF("/x/aiter/mla.py(120): mla_decode_fwd", 0, 100, 1) ","      /* 0 */
    OPA("aten::empty", 5, 5, "") ","                                /* 1 */
    OPA("aiter::mla_decode_stage1_asm_fwd", 20, 30,
        "'Input Dims':[[4,16,576]]") ","                            /* 2 */
    LAUNCH(25, "mla_k", 1000, 10, 61) ","                         /* 3-6 */
    OPA("aiter::mla_reduce", 60, 20, "") ","                        /* 7 */
    LAUNCH(65, "red_k", 1020, 5, 62) ","                         /* 8-11 */
    PYF("aiter/mla.py(x): mla_decode_fwd", 200, 50, 2) ","         /* 12 */
    OPA("aiter::mla_decode_stage1_asm_fwd", 210, 20, "") ","       /* 13 */
    LAUNCH(215, "mla_k", 1100, 10, 63) ","                      /* 14-17 */
    PYF("aiter/mla.py(9): mla_decode_fwd", 300, 50, 3) ","         /* 18 */
    OPA("aten::mm", 310, 20, "") ","                               /* 19 */
    LAUNCH(315, "mm_k", 1200, 10, 64) ","                       /* 20-23 */
    PYF("m.py(5): mla_fp8_prefill_attn", 400, 50, 4) ","           /* 24 */
    OPA("aiter::mla_prefill_ps_asm_fwd", 410, 20,
        "'Input Dims':[[8,16]],'Sequence number':7") ","           /* 25 */
    LAUNCH(415, "pf_k", 1300, 10, 65) ","                       /* 26-29 */
    PYF("m.py(5): mla_fp8_prefill_attn_v2", 500, 50, 5) ","        /* 30 */
    OPA("aiter::mla_prefill_ps_asm_fwd", 510, 20, "") ","          /* 31 */
    LAUNCH(515, "pf_k", 1400, 10, 66) "]}";                     /* 32-35 */

static void test_mla(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(mla_trace);
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.python_functions = 1;
    tlm_tree *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_tree_build(tr, &o, &t, &err), TLM_OK);
    size_t nr;
    const int32_t *r = tlm_tree_cpu_roots(t, &nr);
    assert_int_equal(nr, 7); /* 1 2 7 13 19 25 31 */
    size_t added, n;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 2);
    const tlm_event *ev = tlm_trace_events(tr, &n);
    assert_int_equal(n, 38);
    assert_string_equal(name_of(tr, 36), "pseudo_mla_decode_fwd");
    assert_string_equal(name_of(tr, 37), "pseudo_mla_prefill_fwd");
    /* 0 -> 36 -> 1, 2, 7 */
    assert_int_equal(tlm_tree_first_child(t, 0), 36);
    assert_int_equal(tlm_tree_parent(t, 36), 0);
    assert_int_equal(tlm_tree_next_sibling(t, 36), -1);
    assert_int_equal(tlm_tree_first_child(t, 36), 1);
    assert_int_equal(tlm_tree_parent(t, 1), 36);
    assert_int_equal(tlm_tree_parent(t, 2), 36);
    assert_int_equal(tlm_tree_parent(t, 7), 36);
    assert_int_equal(tlm_tree_parent(t, 25), 37);
    assert_int_equal(tlm_tree_parent(t, 37), 24);
    size_t ng;
    const int32_t *g = tlm_tree_gpu_events(t, 36, &ng);
    assert_int_equal(ng, 2);
    assert_int_equal(g[0], 6);
    assert_int_equal(g[1], 11);
    assert_int_equal(ev[36].ts, ev[0].ts);
    assert_int_equal(tlm_ev_dur(&(ev[36])), tlm_ev_dur(&(ev[0])));
    assert_int_equal(ev[36].cat, TLM_CAT_CPU_OP);
    assert_string_equal(
        tlm_event_arg_str(tr, &ev[36], TLM_ARG_INPUT_DIMS, NULL),
        "[[4,16,576]]");
    int64_t v;
    assert_true(tlm_event_arg_int(tr, &ev[36], TLM_ARG_SEQUENCE_NUMBER, &v));
    assert_int_equal(v, 0); /* the frame's UID */
    assert_false(tlm_event_arg_int(tr, &ev[36], TLM_ARG_EXTERNAL_ID, &v));
    assert_true(tlm_event_arg_int(tr, &ev[37], TLM_ARG_SEQUENCE_NUMBER, &v));
    assert_int_equal(v, 7);
    /* the non-matches keep their trees */
    assert_int_equal(tlm_tree_parent(t, 13), 12);
    assert_int_equal(tlm_tree_parent(t, 19), 18);
    assert_int_equal(tlm_tree_parent(t, 31), 30);
    /* roots: the pseudo ops in place of the roots below them */
    r = tlm_tree_cpu_roots(t, &nr);
    assert_int_equal(nr, 5);
    const int32_t want[] = {36, 13, 19, 37, 31};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(r[i], want[i]);
    assert_int_equal(tlm_tree_stats_get(t)->n_cpu_roots, 5);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Without the python frames in the tree there is no MLA pseudo op; with
 * a frame but no donor name in the trace neither. */
static void test_mla_no_frames(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(mla_trace);
    tlm_tree *t = build(tr);
    size_t added, nr;
    tlm_error err;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 0);
    tlm_tree_cpu_roots(t, &nr);
    assert_int_equal(nr, 7);
    tlm_tree_free(t);
    tlm_trace_free(tr);
    tr = tt_read_sq("{'traceEvents':["
                    PYF("aiter/mla.py(1): mla_decode_fwd", 0, 100, 1) ","
                    OPA("aiter::other", 10, 30, "") ","
                    LAUNCH(15, "k", 1000, 10, 61) "]}");
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.python_functions = 1;
    assert_int_equal(tlm_tree_build(tr, &o, &t, &err), TLM_OK);
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 0);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* DeepSeek-V4 paged decode: the mode from the donor's GPU events (hca_*,
 * then fused_compress_attn* / _update_compressor_states_kernel*, else
 * swa); the frames in (pid, tid, start) order; a frame without the donor
 * above it, and a name followed by a word byte, get none. */
static const char v4_a[] =
        "{'traceEvents':["
        OPA("aiter::v4_attention_with_output", 100, 90,
            "'Input Dims':[[1,8,512]]") ","                          /* 0 */
        LAUNCH(105, "fused_compress_attn_x", 1100, 5, 71) ","     /* 1-4 */
        PYF("v4/paged_decode.py(12):  sparse_attn_v4_paged_decode", 120,
            50, 1) ","                                               /* 5 */
        OPA("aten::bmm", 125, 20, "") ","                            /* 6 */
        LAUNCH(130, "split_k", 1110, 5, 72) ","                  /* 7-10 */
        OPA("aiter::v4_attention_with_output", 0, 90, "") ","       /* 11 */
        LAUNCH(5, "hca_compress_forward", 1000, 5, 73) ","       /* 12-15 */
        PYF("paged_decode.py(3): sparse_attn_v4_paged_decode", 20, 50,
            2) ","                                                  /* 16 */
        OPA("aten::bmm", 25, 20, "") ","                            /* 17 */
        LAUNCH(30, "split_k", 1010, 5, 74) ",";                  /* 18-21 */
static const char v4_b[] =
        OPA("aiter::v4_attention_with_output", 200, 90, "") ","     /* 22 */
        PYF("paged_decode.py(3): sparse_attn_v4_paged_decode", 220, 50,
            3) ","                                                  /* 23 */
        OPA("aten::bmm", 225, 20, "") ","                           /* 24 */
        LAUNCH(230, "split_k", 1210, 5, 75) ","                  /* 25-28 */
        OPA("aiter::v4_attention_with_output", 300, 90, "") ","     /* 29 */
        PYF("paged_decode.py(3): sparse_attn_v4_paged_decode_x", 320,
            50, 4) ","                                              /* 30 */
        OPA("aten::bmm", 325, 20, "") ","                           /* 31 */
        LAUNCH(330, "split_k", 1310, 5, 76) ","                  /* 32-35 */
        PYF("paged_decode.py(3): sparse_attn_v4_paged_decode", 420, 50,
            5) ","                                                  /* 36 */
        OPA("aten::bmm", 425, 20, "") ","                           /* 37 */
        LAUNCH(430, "split_k", 1410, 5, 77) "]}";                /* 38-41 */

static void test_v4(void **state)
{
    (void)state;
    char *j = malloc(sizeof v4_a + sizeof v4_b);
    assert_non_null(j);
    memcpy(j, v4_a, sizeof v4_a - 1);
    memcpy(j + sizeof v4_a - 1, v4_b, sizeof v4_b);
    tlm_trace *tr = tt_read_sq(j);
    free(j);
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.python_functions = 1;
    tlm_tree *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_tree_build(tr, &o, &t, &err), TLM_OK);
    size_t added, n;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 3);
    const tlm_event *ev = tlm_trace_events(tr, &n);
    assert_int_equal(n, 45);
    /* start order: frame 16 (20), 5 (120), 23 (220) */
    assert_string_equal(name_of(tr, 42), "pseudo_v4_paged_decode_hca");
    assert_int_equal(tlm_tree_parent(t, 42), 16);
    assert_string_equal(name_of(tr, 43), "pseudo_v4_paged_decode_csa");
    assert_int_equal(tlm_tree_parent(t, 43), 5);
    assert_int_equal(tlm_tree_parent(t, 6), 43);
    assert_string_equal(name_of(tr, 44), "pseudo_v4_paged_decode_swa");
    assert_int_equal(tlm_tree_parent(t, 44), 23);
    assert_string_equal(
        tlm_event_arg_str(tr, &ev[43], TLM_ARG_INPUT_DIMS, NULL),
        "[[1,8,512]]");
    int64_t v;
    assert_true(tlm_event_arg_int(tr, &ev[43], TLM_ARG_SEQUENCE_NUMBER, &v));
    assert_int_equal(v, 5); /* the frame's UID */
    assert_int_equal(ev[43].ts, ev[5].ts);
    size_t ng;
    tlm_tree_gpu_events(t, 43, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(tlm_tree_parent(t, 31), 30); /* _x: a word byte */
    assert_int_equal(tlm_tree_parent(t, 37), 36); /* no donor above */
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Nested matching frames: each gets a pseudo op (outer first); the inner
 * one sits below the outer one and is not a cpu root. */
static void test_mla_nested(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        PYF("aiter/mla.py(1): mla_decode_fwd", 0, 100, 1) ","      /* 0 */
        PYF("aiter/mla.py(1): mla_decode_fwd", 5, 90, 2) ","       /* 1 */
        OPA("aiter::mla_decode_stage1_asm_fwd", 10, 30, "") ","    /* 2 */
        LAUNCH(15, "k", 1000, 10, 61) "]}");                    /* 3-6 */
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.python_functions = 1;
    tlm_tree *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_tree_build(tr, &o, &t, &err), TLM_OK);
    size_t added, nr;
    assert_int_equal(tlm_tree_pseudo_ops(t, tr, &added, &err), TLM_OK);
    assert_int_equal(added, 2);
    /* 0 -> 7 -> 1 -> 8 -> 2 */
    assert_int_equal(tlm_tree_parent(t, 7), 0);
    assert_int_equal(tlm_tree_parent(t, 1), 7);
    assert_int_equal(tlm_tree_parent(t, 8), 1);
    assert_int_equal(tlm_tree_parent(t, 2), 8);
    const int32_t *r = tlm_tree_cpu_roots(t, &nr);
    assert_int_equal(nr, 1);
    assert_int_equal(r[0], 7);
    assert_true(tlm_tree_flags(t, 7) & TLM_NODE_CPU_ROOT);
    assert_false(tlm_tree_flags(t, 8) & TLM_NODE_CPU_ROOT);
    assert_false(tlm_tree_flags(t, 2) & TLM_NODE_CPU_ROOT);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aiter_fused),
        cmocka_unit_test(test_triton_and_gptq),
        cmocka_unit_test(test_no_match),
        cmocka_unit_test(test_launch_without_parent),
        cmocka_unit_test(test_foreign_trace),
        cmocka_unit_test(test_append_event),
        cmocka_unit_test(test_sglang_names),
        cmocka_unit_test(test_flydsl),
        cmocka_unit_test(test_flydsl_frames),
        cmocka_unit_test(test_mla),
        cmocka_unit_test(test_mla_no_frames),
        cmocka_unit_test(test_v4),
        cmocka_unit_test(test_mla_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
