/*
 * test_hta_cpath.c - HTA's critical path (src/hta/hta_cpath*.c,
 * spec/hta.md §9) on hand-made traces and graphs: launch, kernel-kernel
 * (and its 1500 us bound), sync and runtime-lock edges, the window and its
 * instance selection, networkx's tie order of the longest path, Q10's
 * negative weights, shorten_name and the communication rule; and, when
 * the shared traces are present, HTA's own critical_path_summary.csv for
 * each of them (duration per bound_by).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hta_cpath.h"
#include "tlmpi/tlm_hta.h"

#include "tlm_test_util.h"

/* ---------------------------------------------------------------- MARK: -
 * helpers */

typedef struct fix {
    tlm_trace *t;
    tlm_hta_events *ev;
    tlm_hta_cpath cp;
} fix;

static void run(fix *f, const char *sq, const char *ann, int64_t first,
                int64_t last)
{
    tlm_error err;
    f->t = tt_read_sq(sq);
    assert_int_equal(tlm_hta_events_build(f->t, 0, TLM_HTA_TIME_US, &f->ev,
                                          &err),
                     TLM_OK);
    tlm_hta_events_shift(f->ev, f->ev->min_ts);
    tlm_hta_cp_opts o = {ann, strlen(ann), first, last};
    assert_int_equal(tlm_hta_critical_path(f->ev, &o, &f->cp, &err), TLM_OK);
}

static void done(fix *f)
{
    tlm_hta_cpath_free(&f->cp);
    tlm_hta_events_free(f->ev);
    tlm_trace_free(f->t);
}

/* traceEvents index of the event a path row is attributed to, -1. */
static int64_t idx_of(const fix *f, size_t i)
{
    int32_t r = f->cp.rows[i].row;
    return r >= 0 ? f->ev->ev[r].index : -1;
}

static void expect_row(const fix *f, size_t i, int type, int64_t us,
                       int64_t idx, int bound)
{
    assert_true(i < f->cp.n);
    assert_int_equal(f->cp.rows[i].type, type);
    assert_int_equal(f->cp.rows[i].dur_ns, us * 1000);
    assert_int_equal(idx_of(f, i), idx);
    assert_int_equal(f->cp.rows[i].bound, bound);
}

#define ANN(name, ts, dur)                                                \
    "{'ph':'X','cat':'user_annotation','name':'" name                     \
    "','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur "}"
#define SYNC(name, ts, dur, corr, stream)                                 \
    "{'ph':'X','cat':'cuda_sync','name':'" name "','pid':0,'tid':"        \
    #stream ",'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #corr   \
    ",'stream':" #stream ",'device':0}}"

/* ---------------------------------------------------------------- MARK: -
 * edges on traces */

/* A launch into an empty queue, the kernel, a Stream Sync joining the
 * kernel's end to cudaStreamSynchronize's end (blocking: weight 0), then
 * the next op. */
#define T_SYNC                                                            \
    "{'traceEvents':["                                                    \
    ANN("ProfilerStep#1", 0, 100) ","                  /* 0 */            \
    TT_CPU("aten::mm", 10, 20, 1) ","                  /* 1 */            \
    TT_RT("cudaLaunchKernel", 12, 5, 1) ","            /* 2 */            \
    TT_KER("gemm", 20, 50, 1, 7) ","                   /* 3 */            \
    TT_RT("cudaStreamSynchronize", 35, 40, 2) ","      /* 4 */            \
    SYNC("Stream Sync", 70, 4, 2, 7) ","               /* 5 */            \
    TT_CPU("aten::add", 80, 10, 1) "]}"                /* 6 */

static void test_launch_and_sync(void **state)
{
    (void)state;
    fix f;
    run(&f, T_SYNC, "ProfilerStep", 0, 0);
    assert_string_equal(f.cp.reason, "");
    assert_int_equal(f.cp.n, 6);
    expect_row(&f, 0, TLM_CP_OPERATOR, 2, 1, TLM_CP_BOUND_CPU);
    expect_row(&f, 1, TLM_CP_LAUNCH_DELAY, 8, -1, TLM_CP_BOUND_LAUNCH);
    expect_row(&f, 2, TLM_CP_OPERATOR, 50, 3, TLM_CP_BOUND_COMPUTE);
    expect_row(&f, 3, TLM_CP_SYNC, 0, -1, TLM_CP_BOUND_NONE);
    expect_row(&f, 4, TLM_CP_DEPENDENCY, 0, -1, TLM_CP_BOUND_NONE);
    expect_row(&f, 5, TLM_CP_OPERATOR, 10, 6, TLM_CP_BOUND_CPU);
    assert_int_equal(f.cp.total_ns, 70000);
    assert_int_equal(f.cp.bound_ns[TLM_CP_BOUND_COMPUTE], 50000);
    assert_int_equal(f.cp.bound_edges[TLM_CP_BOUND_NONE], 2);
    done(&f);
}

/* k1 launched into an empty queue (launch edge); k2 queued behind k3's
 * launch waits on k1 (kernel-kernel edge, attributed to k1); k3, queued
 * too, starts 1760 us after k2 ended: no edge (spec §9's 1500 us). */
#define T_KK                                                              \
    "{'traceEvents':["                                                    \
    ANN("ProfilerStep#1", 0, 3000) ","                 /* 0 */            \
    TT_RT("cudaLaunchKernel", 10, 5, 1) ","            /* 1 */            \
    TT_RT("cudaLaunchKernel", 35, 5, 2) ","            /* 2 */            \
    TT_KER("k1", 30, 100, 1, 7) ","                    /* 3 */            \
    TT_KER("k2", 140, 100, 2, 7) ","                   /* 4 */            \
    TT_RT("cudaLaunchKernel", 36, 5, 3) ","            /* 5 */            \
    TT_KER("k3", 2000, 100, 3, 7) "]}"                 /* 6 */

static void test_kernel_kernel(void **state)
{
    (void)state;
    fix f;
    run(&f, T_KK, "ProfilerStep", 0, 0);
    assert_int_equal(f.cp.n, 4);
    expect_row(&f, 0, TLM_CP_LAUNCH_DELAY, 20, -1, TLM_CP_BOUND_LAUNCH);
    expect_row(&f, 1, TLM_CP_OPERATOR, 100, 3, TLM_CP_BOUND_COMPUTE);
    expect_row(&f, 2, TLM_CP_KERNEL_DELAY, 10, 3, TLM_CP_BOUND_KK);
    expect_row(&f, 3, TLM_CP_OPERATOR, 100, 4, TLM_CP_BOUND_COMPUTE);
    assert_int_equal(f.cp.n_no_edge, 1); /* k3 */
    done(&f);
}

/* Queue-length tie (spec §5, Q7): the second launch and the first
 * kernel's start share ts 12; the launch counts first, so k1 starts with
 * one more kernel queued (1, not 0) and gets no launch edge (kernel first
 * would give it one, and a longer path through the launch). */
#define T_TIE                                                             \
    "{'traceEvents':["                                                    \
    ANN("ProfilerStep#1", 0, 100) ","                  /* 0 */            \
    TT_RT("cudaLaunchKernel", 5, 3, 1) ","             /* 1 */            \
    TT_RT("cudaLaunchKernel", 12, 2, 2) ","            /* 2 */            \
    TT_KER("k1", 12, 8, 1, 7) ","                      /* 3 */            \
    TT_KER("k2", 30, 5, 2, 7) "]}"                     /* 4 */

static void test_queue_tie(void **state)
{
    (void)state;
    fix f;
    run(&f, T_TIE, "ProfilerStep", 0, 0);
    assert_int_equal(f.cp.n_no_edge, 1); /* k1 */
    assert_int_equal(f.cp.n, 3);
    expect_row(&f, 0, TLM_CP_OPERATOR, 8, 3, TLM_CP_BOUND_COMPUTE);
    expect_row(&f, 1, TLM_CP_KERNEL_DELAY, 10, 3, TLM_CP_BOUND_KK);
    expect_row(&f, 2, TLM_CP_OPERATOR, 5, 4, TLM_CP_BOUND_COMPUTE);
    done(&f);
}

/* Two steps: the instance picks the window. */
#define T_STEPS                                                           \
    "{'traceEvents':["                                                    \
    ANN("ProfilerStep#1", 0, 100) ","                  /* 0 */            \
    TT_CPU("aten::a", 10, 30, 1) ","                   /* 1 */            \
    ANN("ProfilerStep#2", 110, 100) ","                /* 2 */            \
    TT_CPU("aten::b", 120, 50, 1) "]}"                 /* 3 */

static void test_instances(void **state)
{
    (void)state;
    fix f;
    run(&f, T_STEPS, "ProfilerStep", 1, 1);
    assert_int_equal(f.cp.n, 1);
    expect_row(&f, 0, TLM_CP_OPERATOR, 50, 3, TLM_CP_BOUND_CPU);
    assert_int_equal(f.cp.win_start, 110000);
    done(&f);

    run(&f, T_STEPS, "ProfilerStep", 0, 0);
    assert_int_equal(f.cp.n, 1);
    expect_row(&f, 0, TLM_CP_OPERATOR, 30, 1, TLM_CP_BOUND_CPU);
    done(&f);

    run(&f, T_STEPS, "ProfilerStep", 0, 1); /* both: a, dependency, b */
    assert_int_equal(f.cp.n, 3);
    assert_int_equal(f.cp.total_ns, 80000);
    expect_row(&f, 1, TLM_CP_DEPENDENCY, 0, -1, TLM_CP_BOUND_NONE);
    done(&f);

    run(&f, T_STEPS, "Step#2", 0, 0); /* a substring */
    assert_int_equal(f.cp.total_ns, 50000);
    done(&f);

    run(&f, T_STEPS, "", 0, 0); /* the whole rank */
    assert_int_equal(f.cp.total_ns, 80000);
    done(&f);

    run(&f, T_STEPS, "ProfilerStep", 5, 7);
    assert_int_equal(f.cp.n, 0);
    assert_non_null(strstr(f.cp.reason, "2 instances"));
    done(&f);

    run(&f, T_STEPS, "NoSuch\nStep", 0, 0);
    assert_int_equal(f.cp.n, 0);
    assert_non_null(strstr(f.cp.reason, "no event name contains"));
    assert_null(strchr(f.cp.reason, '\n')); /* escaped, one line */
    done(&f);
}

/* Nested ops: time between two children counts for the parent
 * (end -> start edge attributed to the enclosing op). */
#define T_NEST                                                            \
    "{'traceEvents':["                                                    \
    ANN("ProfilerStep#1", 0, 100) ","                  /* 0 */            \
    TT_CPU("outer", 10, 50, 1) ","                     /* 1 */            \
    TT_CPU("inner_a", 12, 10, 1) ","                   /* 2 */            \
    TT_CPU("inner_b", 30, 10, 1) "]}"                  /* 3 */

static void test_nesting_attribution(void **state)
{
    (void)state;
    fix f;
    run(&f, T_NEST, "ProfilerStep", 0, 0);
    assert_int_equal(f.cp.n, 5);
    expect_row(&f, 0, TLM_CP_OPERATOR, 2, 1, TLM_CP_BOUND_CPU);
    expect_row(&f, 1, TLM_CP_OPERATOR, 10, 2, TLM_CP_BOUND_CPU);
    expect_row(&f, 2, TLM_CP_OPERATOR, 8, 1, TLM_CP_BOUND_CPU);
    expect_row(&f, 3, TLM_CP_OPERATOR, 10, 3, TLM_CP_BOUND_CPU);
    expect_row(&f, 4, TLM_CP_OPERATOR, 20, 1, TLM_CP_BOUND_CPU);
    assert_int_equal(f.cp.total_ns, 50000);
    done(&f);
}

/* An NCCL kernel on the path is communication-bound. */
#define T_COMM                                                            \
    "{'traceEvents':["                                                    \
    ANN("ProfilerStep#1", 0, 100) ","                                     \
    TT_RT("cudaLaunchKernel", 10, 5, 1) ","                               \
    TT_KER("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",     \
           20, 500, 1, 7) "]}"

static void test_comm_bound(void **state)
{
    (void)state;
    fix f;
    run(&f, T_COMM, "ProfilerStep", 0, 0);
    assert_int_equal(f.cp.bound_ns[TLM_CP_BOUND_COMM], 500000);
    done(&f);
}

/* Nothing in the window has a node. */
static void test_empty_window(void **state)
{
    (void)state;
    fix f;
    run(&f,
        "{'traceEvents':[" ANN("ProfilerStep#1", 0, 100) ","
        "{'ph':'X','cat':'python_function','name':'f','pid':1,'tid':1,"
        "'ts':5,'dur':3}]}",
        "ProfilerStep", 0, 0);
    assert_int_equal(f.cp.n, 0);
    assert_true(f.cp.reason[0] != '\0');
    done(&f);
}

/* ---------------------------------------------------------------- MARK: -
 * hand-made graphs */

typedef struct hg {
    tlm_cp_graph g;
    tlm_hta_cpath out;
    tlm_cp_node nodes[16];
} hg;

static void hg_init(hg *h, const int64_t *ts_us, size_t n)
{
    memset(h, 0, sizeof *h);
    for (size_t i = 0; i < n; i++) {
        h->nodes[i].ts = ts_us[i] * 1000;
        h->nodes[i].slot = (int32_t)i;
        h->nodes[i].start = (uint8_t)(i % 2 == 0);
    }
    h->g.node = h->nodes;
    h->g.nn = n;
    h->g.out = &h->out;
    assert_int_equal(tlm_i3map_init(&h->g.emap, 16), TLM_OK);
}

static void hg_free(hg *h)
{
    free(h->g.edge);
    tlm_i3map_free(&h->g.emap);
}

static void path_is(hg *h, const int32_t *want, size_t n)
{
    int32_t *p = NULL;
    size_t np = 0;
    assert_int_equal(tlm_cp_longest_path(&h->g, &p, &np), TLM_OK);
    assert_int_equal(np, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(p[i], want[i]);
    free(p);
}

/* Two equally long ways into node 3: the predecessor whose edge into 3
 * was added first wins (networkx's max over G.pred in insertion order). */
static void test_tie_first_inserted_pred(void **state)
{
    (void)state;
    static const int64_t ts[] = {0, 10, 10, 20};
    hg h;
    hg_init(&h, ts, 4);
    assert_true(tlm_cp_add_edge(&h.g, 0, 1, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 0, 2, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 2, 3, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 1, 3, TLM_CP_OPERATOR, 0) >= 0);
    static const int32_t want[] = {0, 2, 3};
    path_is(&h, want, 3);
    hg_free(&h);

    /* the same edges, 1 -> 3 added first */
    hg_init(&h, ts, 4);
    assert_true(tlm_cp_add_edge(&h.g, 0, 1, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 0, 2, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 1, 3, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 2, 3, TLM_CP_OPERATOR, 0) >= 0);
    static const int32_t want2[] = {0, 1, 3};
    path_is(&h, want2, 3);
    hg_free(&h);
}

/* Two separate chains of equal length: the path ends at the first node
 * of the topological order with the largest distance (generation order:
 * node 1 is reached before node 3). */
static void test_tie_first_end(void **state)
{
    (void)state;
    static const int64_t ts[] = {0, 5, 0, 5};
    hg h;
    hg_init(&h, ts, 4);
    assert_true(tlm_cp_add_edge(&h.g, 2, 3, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 0, 1, TLM_CP_OPERATOR, 0) >= 0);
    static const int32_t want[] = {0, 1};
    path_is(&h, want, 2);
    hg_free(&h);
}

/* Q10: an edge of -2 us weighs 0 in the graph, keeps -2 in its row; a
 * re-added edge keeps its place and takes the new type. */
static void test_negative_and_replace(void **state)
{
    (void)state;
    static const int64_t ts[] = {0, 10, 8, 30};
    hg h;
    hg_init(&h, ts, 4);
    assert_true(tlm_cp_add_edge(&h.g, 0, 1, TLM_CP_OPERATOR, 0) >= 0);
    int32_t e = tlm_cp_add_edge(&h.g, 1, 2, TLM_CP_OPERATOR, 0);
    assert_int_equal(h.g.edge[e].w, -2000);
    assert_true(tlm_cp_add_edge(&h.g, 2, 3, TLM_CP_OPERATOR, 0) >= 0);
    static const int32_t want[] = {0, 1, 2, 3};
    path_is(&h, want, 4); /* 10 + 0 + 22 = 32 > 30 */
    assert_int_equal(h.out.n_neg_weight, 1);
    assert_int_equal(tlm_cp_add_edge(&h.g, 0, 1, TLM_CP_DEPENDENCY, 0), 0);
    assert_int_equal(h.g.edge[0].type, TLM_CP_DEPENDENCY);
    assert_int_equal(h.g.edge[0].w, 0);
    assert_int_equal(h.g.ne, 3);
    hg_free(&h);
}

/* A cycle: no path, a reason. */
static void test_cycle(void **state)
{
    (void)state;
    static const int64_t ts[] = {0, 10};
    hg h;
    hg_init(&h, ts, 2);
    assert_true(tlm_cp_add_edge(&h.g, 0, 1, TLM_CP_OPERATOR, 0) >= 0);
    assert_true(tlm_cp_add_edge(&h.g, 1, 0, TLM_CP_DEPENDENCY, 0) >= 0);
    int32_t *p = NULL;
    size_t np = 9;
    assert_int_equal(tlm_cp_longest_path(&h.g, &p, &np), TLM_OK);
    assert_int_equal(np, 0);
    assert_non_null(strstr(h.out.reason, "cycle"));
    hg_free(&h);
}

/* The runtime lock across two threads: launch B [12, 15] inside launch A
 * [10, 20].  At B's end both stacked starts go (own: operator edge, A's:
 * dependency); at A's end a dependency from B's end (the previous lock
 * node was an end). */
static void test_runtime_lock(void **state)
{
    (void)state;
    static const int64_t ts[] = {10, 12, 15, 20};
    hg h;
    hg_init(&h, ts, 4);
    const int32_t slot[] = {0, 1, 1, 0};
    const uint8_t start[] = {1, 1, 0, 0};
    for (int i = 0; i < 4; i++) {
        h.nodes[i].slot = slot[i];
        h.nodes[i].start = start[i];
        h.nodes[i].lock = 1;
    }
    assert_int_equal(tlm_cp_pass_lock(&h.g), TLM_OK);
    assert_int_equal(h.g.ne, 3);
    assert_int_equal(h.g.edge[0].u, 1);
    assert_int_equal(h.g.edge[0].v, 2);
    assert_int_equal(h.g.edge[0].type, TLM_CP_OPERATOR);
    assert_int_equal(h.g.edge[0].attr, 1);
    assert_int_equal(h.g.edge[1].u, 0);
    assert_int_equal(h.g.edge[1].v, 2);
    assert_int_equal(h.g.edge[1].type, TLM_CP_DEPENDENCY);
    assert_int_equal(h.g.edge[2].u, 2);
    assert_int_equal(h.g.edge[2].v, 3);
    assert_int_equal(h.g.edge[2].type, TLM_CP_DEPENDENCY);
    hg_free(&h);
}

/* ---------------------------------------------------------------- MARK: -
 * names */

static void shorten_is(const char *in, const char *want)
{
    char *buf = malloc(strlen(in) + 1);
    assert_non_null(buf);
    size_t n = tlm_hta_shorten_name(in, strlen(in), buf);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
    free(buf);
}

static void test_shorten_and_comm(void **state)
{
    (void)state;
    shorten_is("void at::native::vectorized_elementwise_kernel<4, "
               "at::native::FillFunctor<float>, at::detail::Array<char*, "
               "1> >(int, at::native::FillFunctor<float>, "
               "at::detail::Array<char*, 1>)",
               "at::native::vectorized_elementwise_kernel");
    shorten_is("aten::add", "aten::add");
    shorten_is("a->b", "ab");
    shorten_is("a b", "a b"); /* no bracket: whole */
    shorten_is("f<a->b>(x) g->h(y)", "gh");
    shorten_is("Memset (Device)", "Memset (Device)");
    shorten_is("autograd::engine::evaluate_function: DivBackward1",
               "autograd::engine::evaluate_function: DivBackward1");
    shorten_is("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
               "ncclDevKernel_Generic");
    shorten_is("x)) y", "y");
    shorten_is("", "");
    assert_true(tlm_hta_is_comm_name("ncclDevKernel_Generic", 21));
    assert_true(tlm_hta_is_comm_name("hipMemcpy", 9));
    assert_true(tlm_hta_is_comm_name("void ncclKernel_x", 17));
    assert_false(tlm_hta_is_comm_name("a\nncclKernel", 12));
    assert_false(tlm_hta_is_comm_name("gemm", 4));
}

/* ---------------------------------------------------------------- MARK: -
 * HTA's output for the shared traces */

/* Sums of HTA's critical_path_summary.csv, parsed by hand: bound_by,
 * duration, edges, duration_pctg. */
static int ref_duration(const char *csv, const char *bound, double *dur)
{
    FILE *fp = fopen(csv, "r");
    char line[512];
    int found = 0;
    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp)) {
        char *c = strchr(line, ',');
        if (!c)
            continue;
        *c = '\0';
        if (strcmp(line, bound) == 0) {
            *dur = strtod(c + 1, NULL);
            found = 1;
        }
    }
    fclose(fp);
    return found;
}

static void check_shared(const char *folder, const char *file)
{
    const char *sh = getenv("TLM_SHARED_DIR");
    char path[1024], csv[1024];
    snprintf(path, sizeof path, "%s/traces/%s/%s", sh, folder, file);
    snprintf(csv, sizeof csv, "%s/traces/%s/hta_csvs/critical_path_summary.csv",
             sh, folder);
    tlm_trace *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_file(path, NULL, &t, &err), TLM_OK);
    tlm_hta_events *ev = NULL;
    assert_int_equal(tlm_hta_events_build(t, 0, TLM_HTA_TIME_US, &ev, &err),
                     TLM_OK);
    assert_int_equal(tlm_hta_events_filter(ev, ev->n_step_names, 0, &err),
                     TLM_OK);
    tlm_hta_events_shift(ev, ev->min_ts);
    tlm_hta_cp_opts o = {"ProfilerStep", 12, 0, 0};
    tlm_hta_cpath cp;
    assert_int_equal(tlm_hta_critical_path(ev, &o, &cp, &err), TLM_OK);
    assert_string_equal(cp.reason, "");
    for (int b = 0; b < TLM_CP_BOUND_COUNT; b++) {
        double want = 0;
        int has = ref_duration(csv, tlm_cp_bound_name(b), &want);
        assert_int_equal(has, cp.bound_edges[b] > 0);
        assert_true((double)cp.bound_ns[b] / 1000.0 == want);
    }
    double total = 0;
    assert_true(ref_duration(csv, "total", &total));
    assert_true((double)cp.total_ns / 1000.0 == total);
    tlm_hta_cpath_free(&cp);
    tlm_hta_events_free(ev);
    tlm_trace_free(t);
}

static void test_shared_traces(void **state)
{
    (void)state;
    const char *sh = getenv("TLM_SHARED_DIR");
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/traces/MANIFEST.md", sh ? sh : "");
    FILE *fp = sh ? fopen(probe, "r") : NULL;
    if (!fp)
        skip();
    fclose(fp);
    check_shared("qwen_h100", "trace.json.gz");
    check_shared("resnet_mi300", "resnet_act_checkpoint.json.gz");
    check_shared("nccl_a100", "nccl_data.json.gz");
    /* DLRM: the job's step names are the rank's (every rank has the same
     * two); the origin does not change a duration */
    check_shared("dlrm_v100_8rank",
                 "worker0_step_12.1694128201545.pt.trace.json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_and_sync),
        cmocka_unit_test(test_kernel_kernel),
        cmocka_unit_test(test_queue_tie),
        cmocka_unit_test(test_instances),
        cmocka_unit_test(test_nesting_attribution),
        cmocka_unit_test(test_comm_bound),
        cmocka_unit_test(test_empty_window),
        cmocka_unit_test(test_tie_first_inserted_pred),
        cmocka_unit_test(test_tie_first_end),
        cmocka_unit_test(test_negative_and_replace),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_runtime_lock),
        cmocka_unit_test(test_shorten_and_comm),
        cmocka_unit_test(test_shared_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
