/*
 * test_tree.c - Trace2Tree (src/tree/tree.c) on small traces read with
 * tlm_trace_read_mem: nesting, touching siblings, equal timestamps, the
 * bleed rule, flows, missing flows (correlation fallback on/off), graph
 * launches, flows to non-GPU events, fwd/bwd links, GPU-event ranges and
 * busy time.  The printers: test_tree_print.c.
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

/* The same tree, node by node, whether the links were made beside the
 * stacks (threads 2) or after them. */
static void assert_same_trees(const tlm_tree *a, const tlm_tree *b)
{
    size_t n = tlm_tree_size(a);
    assert_int_equal(n, tlm_tree_size(b));
    assert_memory_equal(tlm_tree_stats_get(a), tlm_tree_stats_get(b),
                        sizeof(tlm_tree_stats));
    for (int32_t u = 0; u < (int32_t)n; u++) {
        assert_int_equal(tlm_tree_parent(a, u), tlm_tree_parent(b, u));
        assert_int_equal(tlm_tree_first_child(a, u),
                         tlm_tree_first_child(b, u));
        assert_int_equal(tlm_tree_next_sibling(a, u),
                         tlm_tree_next_sibling(b, u));
        assert_int_equal(tlm_tree_flags(a, u), tlm_tree_flags(b, u));
        assert_int_equal(tlm_tree_fwd_event(a, u), tlm_tree_fwd_event(b, u));
        assert_int_equal(tlm_tree_bwd_event(a, u), tlm_tree_bwd_event(b, u));
        size_t na, nb;
        const int32_t *ga = tlm_tree_gpu_events(a, u, &na);
        const int32_t *gb = tlm_tree_gpu_events(b, u, &nb);
        assert_int_equal(na, nb);
        if (na)
            assert_memory_equal(ga, gb, na * sizeof *ga);
    }
    size_t ra, rb;
    const int32_t *xa = tlm_tree_cpu_roots(a, &ra);
    const int32_t *xb = tlm_tree_cpu_roots(b, &rb);
    assert_int_equal(ra, rb);
    if (ra)
        assert_memory_equal(xa, xb, ra * sizeof *xa);
}

/* Every tree of these tests is built in one thread and in two, and the
 * two must agree. */
static tlm_tree *build(tlm_trace *tr, int fallback, int bleed_tol)
{
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    assert_int_equal(o.threads, 1);
    o.corr_fallback = fallback;
    o.bleed_tolerance = bleed_tol;
    tlm_tree *t = NULL, *t2 = NULL;
    assert_int_equal(tlm_tree_build(tr, &o, &t, NULL), TLM_OK);
    o.threads = 2;
    assert_int_equal(tlm_tree_build(tr, &o, &t2, NULL), TLM_OK);
    assert_same_trees(t, t2);
    tlm_tree_free(t2);
    return t;
}

static void test_nesting_and_links(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(TT_NESTED);
    tlm_tree *t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_parent(t, 0), -1);
    assert_int_equal(tlm_tree_parent(t, 1), 0);
    assert_int_equal(tlm_tree_parent(t, 2), 1);
    assert_int_equal(tlm_tree_parent(t, 3), 2);
    /* aten::add starts exactly when addmm ends: sibling, child of 0 */
    assert_int_equal(tlm_tree_parent(t, 6), 0);
    assert_int_equal(tlm_tree_parent(t, 7), 6);
    assert_int_equal(tlm_tree_parent(t, 8), 7);
    /* aten::empty starts when linear ends: a new root */
    assert_int_equal(tlm_tree_parent(t, 11), -1);
    assert_true(tlm_tree_flags(t, 11) & TLM_NODE_CPU_ROOT);
    assert_int_equal(tlm_tree_parent(t, 12), -1);
    assert_false(tlm_tree_flags(t, 12) & TLM_NODE_TREE);
    /* children in timestamp order */
    assert_int_equal(tlm_tree_first_child(t, 0), 1);
    assert_int_equal(tlm_tree_next_sibling(t, 1), 6);
    assert_int_equal(tlm_tree_next_sibling(t, 6), -1);

    size_t n;
    const int32_t *g = tlm_tree_gpu_events(t, 0, &n);
    assert_int_equal(n, 2);
    assert_int_equal(g[0], 3);
    assert_int_equal(g[1], 8);
    g = tlm_tree_gpu_events(t, 6, &n);
    assert_int_equal(n, 1);
    assert_int_equal(g[0], 8);
    tlm_tree_gpu_events(t, 11, &n);
    assert_int_equal(n, 0);

    const int32_t *roots = tlm_tree_cpu_roots(t, &n);
    assert_int_equal(n, 2);
    assert_int_equal(roots[0], 0);
    assert_int_equal(roots[1], 11);

    const tlm_tree_stats *s = tlm_tree_stats_get(t);
    assert_int_equal(s->n_gpu, 3);
    assert_int_equal(s->n_gpu_linked, 2);
    assert_int_equal(s->n_gpu_unlinked, 1);
    assert_int_equal(s->link_key, TLM_ARG_CORRELATION);

    /* busy time of both kernels: [30,70) and [75,80) = 45 us */
    double busy = 0;
    g = tlm_tree_gpu_events(t, 0, &n);
    assert_int_equal(tlm_tree_busy_us(t, g, n, &busy), TLM_OK);
    assert_true(busy > 44.999999 && busy < 45.000001);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Equal timestamps: the child comes first in the file.  Without a third
 * level the parent bleeds with depth 1 and is dropped; under a grandparent
 * it becomes the child's sibling (bleed rule, overlap < 1 us). */
static void test_equal_ts_and_bleed(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        TT_CPU("child", 0, 0.5, 1) ","     /* 0 */
        TT_CPU("parent", 0, 10, 1) ","     /* 1 */
        TT_CPU("g", -5, 40, 2) ","         /* 2: tid 2 */
        TT_CPU("c2", 0, 0.5, 2) ","        /* 3 */
        TT_CPU("p2", 0, 10, 2) ","         /* 4 */
        TT_CPU("a", 20, 10, 2) ","         /* 5 */
        TT_CPU("b", 29.5, 5, 2) ","        /* 6: overlap .5 */
        TT_CPU("c", 31, 20, 2)             /* 7: overlap 3.5 */
        "]}");
    tlm_tree *t = build(tr, 1, 0);
    const tlm_tree_stats *s = tlm_tree_stats_get(t);
    assert_true(tlm_tree_flags(t, 1) & TLM_NODE_BLEED_DROP);
    assert_false(tlm_tree_flags(t, 1) & TLM_NODE_TREE);
    assert_int_equal(tlm_tree_parent(t, 0), -1);
    /* tid 2: g > c2, p2 popped c2 and became its sibling */
    assert_int_equal(tlm_tree_parent(t, 3), 2);
    assert_int_equal(tlm_tree_parent(t, 4), 2);
    assert_int_equal(tlm_tree_parent(t, 5), 2);
    /* b bleeds past a by 0.5 us with depth 2: sibling of a */
    assert_int_equal(tlm_tree_parent(t, 6), 2);
    /* c overlaps b by 3.5 us: dropped */
    assert_true(tlm_tree_flags(t, 7) & TLM_NODE_BLEED_DROP);
    assert_int_equal(s->n_bleed_drop, 2);
    assert_int_equal(s->n_bleed_sibling, 2);
    tlm_tree_free(t);

    /* tolerant mode (#904): a child ending 0.5 us after its parent nests;
     * the snapshot rule drops it (overlap 5 us) */
    tlm_trace_free(tr);
    tr = tt_read_sq("{'traceEvents':[" TT_CPU("p", 0, 10, 1) ","
                    TT_CPU("q", 5, 5.5, 1) "]}");
    t = build(tr, 1, 1);
    assert_int_equal(tlm_tree_parent(t, 1), 0);
    tlm_tree_free(t);
    t = build(tr, 1, 0);
    assert_true(tlm_tree_flags(t, 1) & TLM_NODE_BLEED_DROP);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* A launch whose flow pair is missing: linked by correlation only with the
 * fallback. */
/* The host events' in-place sort: 100 events of one thread at one ts
 * (more than the sort's insertion-sort size, ordered by UID: a chain,
 * each longer one the parent), beside 100 of a wide tid in descending ts
 * (roots, put in ts order) and a few of a third thread. */
static void test_host_sort_in_place(void **state)
{
    (void)state;
    size_t cap = 64 * 1024, o = 0;
    char *j = malloc(cap);
    assert_non_null(j);
    o += (size_t)snprintf(j + o, cap - o, "{'traceEvents':[");
    for (int i = 0; i < 100; i++) /* UIDs 0-99 */
        o += (size_t)snprintf(j + o, cap - o,
                              "{'ph':'X','cat':'cpu_op','name':'a',"
                              "'pid':1,'tid':1,'ts':0,'dur':%d},",
                              200 - i);
    for (int i = 0; i < 100; i++) /* UIDs 100-199 */
        o += (size_t)snprintf(j + o, cap - o,
                              "{'ph':'X','cat':'cpu_op','name':'b',"
                              "'pid':1,'tid':140241095264000,'ts':%d,"
                              "'dur':1},",
                              10000 - 10 * i);
    for (int i = 0; i < 3; i++) /* UIDs 200-202: 201 in 202, 200 alone */
        o += (size_t)snprintf(j + o, cap - o,
                              "{'ph':'X','cat':'cpu_op','name':'c',"
                              "'pid':2,'tid':1,'ts':%d,'dur':%d}%s",
                              i == 0 ? 500 : i == 1 ? 6 : 5, i == 2 ? 10 : 1,
                              i == 2 ? "" : ",");
    o += (size_t)snprintf(j + o, cap - o, "]}");
    assert_true(o < cap);
    tlm_trace *tr = tt_read_sq(j);
    free(j);
    tlm_tree *t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_parent(t, 0), -1);
    for (int32_t u = 1; u < 100; u++)
        assert_int_equal(tlm_tree_parent(t, u), u - 1);
    for (int32_t u = 100; u < 200; u++)
        assert_int_equal(tlm_tree_parent(t, u), -1);
    assert_int_equal(tlm_tree_parent(t, 200), -1);
    assert_int_equal(tlm_tree_parent(t, 201), 202);
    assert_int_equal(tlm_tree_parent(t, 202), -1);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

static void test_missing_flow(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        TT_CPU("op", 0, 10, 1) ","
        TT_RT("cudaLaunchKernel", 1, 2, 5) ","
        TT_KER("k", 3, 4, 5, 7) "]}");
    tlm_tree *t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_parent(t, 2), 1);
    assert_int_equal(tlm_tree_stats_get(t)->n_corr_fallback, 1);
    tlm_tree_free(t);
    t = build(tr, 0, 0);
    assert_int_equal(tlm_tree_parent(t, 2), -1);
    assert_int_equal(tlm_tree_stats_get(t)->n_gpu_unlinked, 1);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

static void test_graph_launch(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        TT_CPU("step", 0, 100, 1) ","
        TT_RT("cudaGraphLaunch", 1, 2, 9) ","
        TT_KER("k1", 10, 4, 9, 7) ","
        TT_KER("k2", 14, 4, 9, 8) ","
        TT_KER("k3", 20, 4, 9, 7) ","
        TT_FLOW_S(9, 1) "," TT_FLOW_F(9, 10, 7) "]}");
    tlm_tree *t = build(tr, 0, 0);
    assert_true(tlm_tree_flags(t, 1) & TLM_NODE_GRAPH_LAUNCH);
    size_t n;
    const int32_t *g = tlm_tree_gpu_events(t, 0, &n);
    assert_int_equal(n, 3);
    assert_int_equal(g[0], 2);
    assert_int_equal(g[2], 4);
    for (int k = 2; k <= 4; k++)
        assert_int_equal(tlm_tree_parent(t, k), 1);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* The GPU events of u's subtree in pre-order, appended to out (brute
 * force, against the slices the tree keeps compactly). */
static void subtree_gpu(const tlm_tree *t, int32_t u, int32_t *out, size_t *n)
{
    if (tlm_tree_flags(t, u) & TLM_NODE_GPU)
        out[(*n)++] = u;
    for (int32_t c = tlm_tree_first_child(t, u); c >= 0;
         c = tlm_tree_next_sibling(t, c))
        subtree_gpu(t, c, out, n);
}

/* Slices over several 64-node words: chains of one kernel (stored once,
 * at the chain's top), ops with two launches, ops without kernels. */
static void test_gpu_slices_compact(void **state)
{
    (void)state;
    size_t cap = 1 << 16, len = 0;
    char *js = malloc(cap);
    assert_non_null(js);
    len += (size_t)snprintf(js + len, cap - len, "{'traceEvents':[");
    for (int i = 0, corr = 1; i < 40; i++) {
        long b = 1000L * i;
        len += (size_t)snprintf(js + len, cap - len,
                                "%s" TT_CPU("op", %ld, 500, 1) "," TT_CPU(
                                    "inner", %ld, 400, 1),
                                i ? "," : "", b, b + 1);
        int nl = i % 3 == 0 ? 2 : i % 3 == 1 ? 1 : 0;
        for (int l = 0; l < nl; l++, corr++)
            len += (size_t)snprintf(
                js + len, cap - len,
                "," TT_RT("cudaLaunchKernel", %ld, 2, %d) "," TT_KER(
                    "k", %ld, 5, %d, 7),
                b + 2 + 10 * l, corr, b + 600 + 10 * l, corr);
    }
    len += (size_t)snprintf(js + len, cap - len, "]}");
    assert_true(len < cap);
    tlm_trace *tr = tt_read_sq(js);
    free(js);
    tlm_tree *t = build(tr, 1, 0);
    size_t n = tlm_tree_size(t), nk = 0;
    assert_true(n > 128);
    int32_t *want = malloc(n * sizeof *want);
    assert_non_null(want);
    for (int32_t u = 0; u < (int32_t)n; u++) {
        size_t nw = 0, ng;
        if (tlm_tree_parent(t, u) >= 0 || tlm_tree_first_child(t, u) >= 0)
            subtree_gpu(t, u, want, &nw);
        const int32_t *g = tlm_tree_gpu_events(t, u, &ng);
        assert_int_equal(ng, nw);
        for (size_t j = 0; j < nw; j++)
            assert_int_equal(g[j], want[j]);
        nk += (tlm_tree_flags(t, u) & TLM_NODE_GPU) != 0;
    }
    assert_int_equal(nk, 41); /* 14 x 2 + 13 x 1 */
    free(want);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Flows whose target is a host event (even the launch itself), a flow
 * without its start, duplicate claims: warnings, no links, no cycle. */
static void test_bad_flows(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        TT_CPU("op", 0, 10, 1) ","
        TT_RT("cudaLaunchKernel", 1, 2, 3) ","                      /* 1 */
        "{'ph':'s','cat':'ac2g','name':'x','id':3,'pid':1,'tid':1,'ts':1},"
        "{'ph':'f','cat':'ac2g','name':'x','id':3,'pid':1,'tid':1,'ts':1},"
        TT_RT("cudaLaunchKernel", 4, 1, 4) ","                      /* 4 */
        "{'ph':'f','cat':'ac2g','name':'x','id':4,'pid':0,'tid':7,'ts':5},"
        TT_KER("k", 5, 1, 4, 7) "]}");                              /* 6 */
    tlm_tree *t = build(tr, 0, 0);
    const tlm_tree_stats *s = tlm_tree_stats_get(t);
    assert_int_equal(s->n_flow_bad_target, 1);
    assert_int_equal(s->n_flow_half, 1);
    assert_int_equal(tlm_tree_parent(t, 1), 0);
    assert_int_equal(tlm_tree_first_child(t, 1), -1);
    assert_int_equal(tlm_tree_parent(t, 6), -1);
    tlm_tree_free(t);
    /* with the fallback the half-flow launch gets its kernel */
    t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_parent(t, 6), 4);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

static void test_fwd_bwd(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        "{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':1,'tid':1,"
        "'ts':0,'dur':5,'args':{'Sequence number':5}},"
        "{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':1,'tid':1,"
        "'ts':6,'dur':5,'args':{'Sequence number':5}},"
        "{'ph':'X','cat':'cpu_op','name':'autograd::engine::evaluate_"
        "function: MmBackward0','pid':1,'tid':2,'ts':50,'dur':5,"
        "'args':{'Sequence number':5}}]}");
    tlm_tree *t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_fwd_event(t, 2), 1); /* largest ts wins */
    assert_int_equal(tlm_tree_bwd_event(t, 1), 2);
    assert_int_equal(tlm_tree_bwd_event(t, 0), -1);
    assert_int_equal(tlm_tree_stats_get(t)->n_fwd_bwd, 1);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* External id becomes the link key when the first launch lacks
 * correlation; an empty trace builds an empty tree. */
static void test_link_key_and_empty(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(
        "{'traceEvents':["
        "{'ph':'X','cat':'cuda_runtime','name':'hipLaunchKernel','pid':1,"
        "'tid':1,'ts':0,'dur':1,'args':{'External id':4}}]}");
    tlm_tree *t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_stats_get(t)->link_key, TLM_ARG_EXTERNAL_ID);
    tlm_tree_free(t);
    tlm_trace_free(tr);
    tr = tt_read_sq("{'traceEvents':[]}");
    t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_size(t), 0);
    size_t n;
    tlm_tree_cpu_roots(t, &n);
    assert_int_equal(n, 0);
    tlm_tree_free(t);
    tlm_trace_free(tr);
    assert_int_equal(tlm_tree_build(NULL, NULL, &t, NULL), TLM_EINVAL);
}

/* Link ids far apart (no direct table: the hash-map path), two GPU
 * events sharing one link id on different streams (the flow's target
 * stream decides, whichever came last), and host events written child
 * first on two threads (the sort restores the stacks). */
static const char *sparse =
    "{'traceEvents':["
    TT_CPU("aten::mm", 30, 10, 2) ","                /* 0: thread 2, child */
    TT_RT("cudaLaunchKernel", 12, 2, 9000000000000) "," /* 1: child of 2 */
    TT_CPU("aten::linear", 10, 20, 1) ","            /* 2: thread 1 */
    TT_CPU("aten::matmul", 25, 20, 2) ","            /* 3: parent of 0 */
    TT_KER("k_s9", 40, 5, 9000000000000, 9) ","      /* 4 */
    TT_KER("k_s7", 41, 5, 9000000000000, 7) ","      /* 5: same link id */
    TT_FLOW_S(9000000000000, 12) ","                 /* 6 */
    TT_FLOW_F(9000000000000, 40, 9) ","              /* 7 */
    TT_RT("cudaLaunchKernel", 16, 2, 3) ","          /* 8: child of 2 */
    TT_KER("k_small", 50, 5, 3, 7) ","               /* 9 */
    TT_FLOW_S(3, 16) "," TT_FLOW_F(3, 50, 7)            /* 10, 11 */
    "]}";

static void test_sparse_ids_and_shared_links(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(sparse);
    tlm_tree *t = build(tr, 1, 0);
    assert_int_equal(tlm_tree_parent(t, 0), 3);
    assert_int_equal(tlm_tree_parent(t, 3), -1);
    assert_int_equal(tlm_tree_parent(t, 1), 2);
    assert_int_equal(tlm_tree_parent(t, 8), 2);
    assert_int_equal(tlm_tree_first_child(t, 2), 1);
    assert_int_equal(tlm_tree_next_sibling(t, 1), 8);
    /* the flow ends on stream 9: k_s9, not the later k_s7 */
    assert_int_equal(tlm_tree_parent(t, 4), 1);
    assert_int_equal(tlm_tree_parent(t, 5), -1);
    assert_int_equal(tlm_tree_parent(t, 9), 8);
    size_t n;
    const int32_t *roots = tlm_tree_cpu_roots(t, &n);
    assert_int_equal(n, 2);
    assert_int_equal(roots[0], 2);
    assert_int_equal(roots[1], 3);
    const int32_t *g = tlm_tree_gpu_events(t, 2, &n);
    assert_int_equal(n, 2);
    assert_int_equal(g[0], 4);
    assert_int_equal(g[1], 9);
    const tlm_tree_stats *s = tlm_tree_stats_get(t);
    assert_int_equal(s->n_gpu, 3);
    assert_int_equal(s->n_gpu_linked, 2);
    assert_int_equal(s->n_flow_bad_target, 0);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Reads json (single quotes allowed) with the tree's per-event pass in
 * the reader's callback (threads 1) or beside the reader (threads 2);
 * a small read chunk makes the reader move its arrays many times. */
static tlm_status read_streamed(const char *json, size_t n, int threads,
                                int keep, tlm_trace **tr, tlm_tree **tree,
                                int on_move)
{
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.threads = threads;
    tlm_tree_stream *s = NULL;
    assert_int_equal(tlm_tree_stream_new(&o, &s), TLM_OK);
    tlm_read_opts ro;
    tlm_read_opts_init(&ro);
    ro.keep_events = keep;
    ro.chunk_size = 4096;
    ro.on_event = tlm_tree_stream_event;
    ro.on_move = on_move ? tlm_tree_stream_move : NULL;
    ro.on_event_ud = s;
    *tr = NULL;
    *tree = NULL;
    tlm_error err;
    tlm_status st = tlm_trace_read_mem(json, n, "s.json", &ro, tr, &err);
    if (st == TLM_OK)
        st = tlm_tree_build_stream(*tr, s, tree, &err);
    tlm_tree_stream_free(s);
    return st;
}

static char *unquote(const char *sq)
{
    char *s = strdup(sq);
    assert_non_null(s);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    return s;
}

/* The tree built while reading (in the callback, or in a thread of its
 * own beside the reader) is the tree built after it, on the small traces
 * above and on a synthesized training step of ~40k events. */
static void test_stream_same_tree(void **state)
{
    (void)state;
    char dir[256], path[1024];
    tt_synth_rank0(dir, sizeof dir, path, sizeof path, 8u << 20, 9);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char big[64 << 20];
    size_t nbig = fread(big, 1, sizeof big - 1, f);
    fclose(f);
    assert_true(nbig > 0 && nbig < sizeof big - 1);
    char *small[2] = {unquote(TT_NESTED), unquote(sparse)};
    const char *texts[3] = {small[0], small[1], big};
    size_t lens[3] = {strlen(small[0]), strlen(small[1]), nbig};
    for (int k = 0; k < 3; k++) {
        tlm_trace *tr = NULL;
        assert_int_equal(tlm_trace_read_mem(texts[k], lens[k], "b.json",
                                            NULL, &tr, NULL),
                         TLM_OK);
        tlm_tree *ref = build(tr, 1, 0);
        if (k == 2)
            assert_true(tlm_tree_size(ref) > 20000 &&
                        tlm_tree_stats_get(ref)->n_gpu_linked > 1000);
        for (int th = 1; th <= 2; th++) {
            tlm_trace *tr2;
            tlm_tree *t2;
            assert_int_equal(
                read_streamed(texts[k], lens[k], th, 1, &tr2, &t2, 1),
                TLM_OK);
            assert_same_trees(ref, t2);
            tlm_tree_free(t2);
            tlm_trace_free(tr2);
        }
        tlm_tree_free(ref);
        tlm_trace_free(tr);
    }
    /* a threaded stream needs the events kept and on_move; a read that
     * fails half way (the worker is running) leaves nothing behind */
    tlm_trace *tr2;
    tlm_tree *t2;
    assert_int_equal(read_streamed(big, nbig, 2, 0, &tr2, &t2, 1),
                     TLM_EINVAL);
    assert_null(t2);
    assert_int_equal(read_streamed(big, nbig, 2, 1, &tr2, &t2, 0),
                     TLM_EINVAL);
    assert_null(t2);
    /* one thread needs neither */
    assert_int_equal(read_streamed(big, nbig, 1, 1, &tr2, &t2, 0), TLM_OK);
    tlm_tree_free(t2);
    tlm_trace_free(tr2);
    for (int th = 1; th <= 2; th++) {
        assert_int_equal(read_streamed(big, nbig / 2, th, 1, &tr2, &t2, 1),
                         TLM_EFORMAT);
        assert_null(tr2);
        assert_null(t2);
    }
    /* the stream must have seen the trace it builds */
    tlm_tree_stream *s = NULL;
    assert_int_equal(tlm_tree_stream_new(NULL, &s), TLM_OK);
    tlm_trace *tr = NULL;
    assert_int_equal(tlm_trace_read_mem(texts[0], lens[0], "b.json", NULL,
                                        &tr, NULL),
                     TLM_OK);
    tlm_error err;
    assert_int_equal(tlm_tree_build_stream(tr, s, &t2, &err), TLM_EINVAL);
    assert_null(t2);
    assert_non_null(strstr(err.msg, "stream saw 0 events"));
    tlm_tree_stream_free(s);
    tlm_trace_free(tr);
    free(small[0]);
    free(small[1]);
    tt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_and_links),
        cmocka_unit_test(test_equal_ts_and_bleed),
        cmocka_unit_test(test_host_sort_in_place),
        cmocka_unit_test(test_missing_flow),
        cmocka_unit_test(test_graph_launch),
        cmocka_unit_test(test_gpu_slices_compact),
        cmocka_unit_test(test_bad_flows),
        cmocka_unit_test(test_fwd_bwd),
        cmocka_unit_test(test_link_key_and_empty),
        cmocka_unit_test(test_sparse_ids_and_shared_links),
        cmocka_unit_test(test_stream_same_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
