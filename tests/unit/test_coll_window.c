/*
 * test_coll_window.c - the window before each collective of one trace
 * (src/coll/coll_window.c) on a small trace read from memory: GPU busy
 * time, the idle gaps split at the launch of the op that ends them, the
 * host time charged to the innermost host event, the launching op of the
 * busy time, the first collective of a group from the trace's start, the
 * other group's window, the step windows; on a second trace the late
 * start of a ready collective, the step anchor after an instance that ran
 * beside compute, the wait for another group's collective kernel, a host
 * blocked in a synchronize call; bad
 * arguments and allocation failures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tlm_test_coll.h"
#include "tlmpi/tlm_cause.h"
#include "tlmpi/tlm_trace.h"

/* Times in us.  Host thread 1: python step [0, 1000] > aten::mm [10, 20]
 * (launch corr 100 at [12, 15]), python work [100, 300], record_param_comms
 * [300, 330] (launch corr 101 at [310, 315]).  GPU stream 7: NCCL A
 * [0, 5] (corr 99), gemm [20, 120] (corr 100, External id 10), NCCL B
 * [400, 410] (corr 101).  A and B: one allreduce group; C [450, 460] in
 * another group (no launch in the trace). */
static const char TRACE[] =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(1): "
    "step\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1000},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
    "\"tid\": 1, \"ts\": 10, \"dur\": 10, \"args\": {\"External id\": 10}},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\","
    " \"pid\": 1, \"tid\": 1, \"ts\": 12, \"dur\": 3, \"args\": "
    "{\"External id\": 10, \"correlation\": 100}},"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(2): "
    "work\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 200},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", "
    "\"pid\": 1, \"tid\": 1, \"ts\": 300, \"dur\": 30, \"args\": "
    "{\"External id\": 20}},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\","
    " \"pid\": 1, \"tid\": 1, \"ts\": 310, \"dur\": 5, \"args\": "
    "{\"External id\": 20, \"correlation\": 101}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_A\", "
    "\"pid\": 0, \"tid\": 7, \"ts\": 0, \"dur\": 5, \"args\": "
    "{\"correlation\": 99, \"stream\": 7}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, "
    "\"tid\": 7, \"ts\": 20, \"dur\": 100, \"args\": {\"External id\": 10, "
    "\"correlation\": 100, \"stream\": 7}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_B\", "
    "\"pid\": 0, \"tid\": 7, \"ts\": 400, \"dur\": 10, \"args\": "
    "{\"External id\": 20, \"correlation\": 101, \"stream\": 7}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_C\", "
    "\"pid\": 0, \"tid\": 7, \"ts\": 450, \"dur\": 10, \"args\": "
    "{\"correlation\": 102, \"stream\": 7}}"
    "]}";

#define US 1000

typedef struct fx {
    tlm_trace *tr;
    tlm_coll_record rec[4];
} fx;

static uint64_t index_of(const tlm_trace *tr, const char *name)
{
    size_t n = 0;
    const tlm_event *e = tlm_trace_events(tr, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(tlm_trace_str(tr, e[i].name, NULL), name) == 0)
            return i;
    fail_msg("no event %s", name);
    return 0;
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    tlm_read_opts ro;
    tlm_read_opts_init(&ro);
    ro.keep_events = 1;
    if (tlm_trace_read_mem(TRACE, sizeof TRACE - 1, "t.json", &ro, &f->tr,
                           NULL) != TLM_OK)
        return -1;
    static const char *const names[3] = {"ncclDevKernel_B", "ncclDevKernel_A",
                                         "ncclDevKernel_C"};
    static const int64_t ts[3] = {400, 0, 450}, dur[3] = {10, 5, 10};
    for (int i = 0; i < 3; i++) {
        f->rec[i] = tc_mkrec(3, i == 2 ? "dp" : "tp", "allreduce", "Float",
                             1024, 2, ts[i] * US, dur[i] * US);
        f->rec[i].start_ns = f->rec[i].ts_ns + 7; /* a time base */
        f->rec[i].event_index = index_of(f->tr, names[i]);
    }
    /* a second kernel of B's collective: no window of its own */
    f->rec[3] = f->rec[0];
    f->rec[3].part = 1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tlm_trace_free(f->tr);
    free(f);
    return 0;
}

static const tlm_coll_window *by_index(const tlm_coll_window *w, size_t n,
                                       uint64_t ev)
{
    for (size_t i = 0; i < n; i++)
        if (w[i].event_index == ev)
            return &w[i];
    fail_msg("no window for event %llu", (unsigned long long)ev);
    return NULL;
}

static void test_windows(void **state)
{
    fx *f = *state;
    tlm_coll_window *w = NULL;
    size_t n = 0;
    assert_int_equal(tlm_coll_windows(f->tr, f->rec, 4, NULL, &w, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 3);
    const tlm_coll_window *a = by_index(w, n, f->rec[1].event_index);
    const tlm_coll_window *b = by_index(w, n, f->rec[0].event_index);
    const tlm_coll_window *c = by_index(w, n, f->rec[2].event_index);
    /* first of their groups: from the trace's start (no ProfilerStep) */
    assert_int_equal(a->flags, TLM_WIN_STEP);
    assert_int_equal(a->win_ns, 0);
    assert_int_equal(c->flags, TLM_WIN_STEP);
    assert_int_equal(c->win_start_ns, 7);
    /* C: [0, 450) = host 12 + launch 8 before the gemm, busy 100, then
     * idle until C, which has no launch: other 330 (A and B, collective
     * kernels, are left out) */
    assert_int_equal(c->win_ns, 450 * US);
    assert_int_equal(c->busy_ns, 100 * US);
    assert_int_equal(c->host_ns, 12 * US);
    assert_int_equal(c->launch_ns, 8 * US);
    assert_int_equal(c->coll_ns, 0);
    assert_int_equal(c->other_ns, 330 * US);
    assert_int_equal(c->step_busy_ns, c->busy_ns);
    assert_int_equal(c->step_other_ns, c->other_ns);
    assert_int_equal(a->trace_rank, 3);
    assert_int_equal(b->owner_key, tlm_coll_record_owner_key(&f->rec[0]));

    /* B: [5, 400) = busy 100 (gemm) + host 7 ([5, 12)) + launch 8
     * ([12, 20)) + host 190 ([120, 310)) + launch 90 ([310, 400)) */
    assert_int_equal(b->flags, 0);
    assert_int_equal(b->win_start_ns, 5 * US + 7);
    assert_int_equal(b->win_ns, 395 * US);
    assert_int_equal(b->busy_ns, 100 * US);
    assert_int_equal(b->host_ns, 197 * US);
    assert_int_equal(b->launch_ns, 98 * US);
    assert_int_equal(b->other_ns, 0);
    assert_int_equal(b->coll_ns, 0);
    /* B's step window: from the trace's start, 5 us more of host */
    assert_int_equal(b->step_start_ns, 7);
    assert_int_equal(b->step_busy_ns, 100 * US);
    assert_int_equal(b->step_host_ns, 202 * US);
    assert_int_equal(b->step_launch_ns, 98 * US);
    assert_int_equal(b->step_coll_ns + b->step_other_ns, 0);
    assert_string_equal(b->kop[0].name, "aten::mm");
    assert_int_equal(b->kop[0].ns, 100 * US);
    assert_int_equal(b->kop[0].hash, tlm_hash64("aten::mm", 8));
    assert_int_equal(b->kop[1].hash, 0);
    /* host: work 180 ([120, 300)), record_param_comms 10, step 5, mm 2 */
    assert_string_equal(b->hop[0].name, "train.py(2): work");
    assert_int_equal(b->hop[0].ns, 180 * US);
    assert_string_equal(b->hop[1].name, "record_param_comms");
    assert_int_equal(b->hop[1].ns, 10 * US);
    tlm_coll_free(NULL, w);
}

/* A window whose closing op has no launch: other. */
static void test_no_launch(void **state)
{
    fx *f = *state;
    tlm_coll_record r[2] = {f->rec[0], f->rec[2]};
    r[1].match_key = r[0].match_key; /* C follows B in B's group */
    tlm_coll_window *w = NULL;
    size_t n = 0;
    assert_int_equal(tlm_coll_windows(f->tr, r, 2, NULL, &w, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 2);
    const tlm_coll_window *c = by_index(w, n, f->rec[2].event_index);
    assert_int_equal(c->win_ns, 40 * US);
    assert_int_equal(c->other_ns, 40 * US);
    assert_int_equal(c->busy_ns + c->host_ns + c->launch_ns, 0);
    tlm_coll_free(NULL, w);
}

/* Times in us.  Host: ProfilerStep#3 [100, 1900]; launches (2 us each)
 * of gemm1 at 110, P1 130, gemm2 140, P2 150, gemm3 160, T1 170, X1 172,
 * gemm4 175, T2 180.  GPU: gemm1 [120, 300], gemm2 [300, 600], gemm3
 * [600, 1000], gemm4 [1200, 1250] (stream 7); P1 [150, 400] and P2
 * [900, 950] of group dp (stream 28, beside compute); T1 [1000, 1100] and
 * T2 [1300, 1350] of group tp (stream 24); X1 [1120, 1200] of group x
 * (stream 30), which gemm4 waits for.  Then the host sits in
 * cudaStreamSynchronize [185, 1395] (X2 [1360, 1380] of group x runs),
 * launches gemm5 [1410, 1500] at 1400 and T3 [1600, 1650] at 1550. */
#define LAUNCH(ts, c)                                                        \
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "                   \
    "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts             \
    ", \"dur\": 2, \"args\": {\"correlation\": " #c "}},"
#define KERNEL(name, stream, ts, dur, c)                                     \
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": " \
    "0, \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur ", \"args\": " \
    "{\"correlation\": " #c ", \"stream\": " #stream "}}"
static const char TRACE2[] =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
    "\"ProfilerStep#3\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 1800},"
    LAUNCH(110, 200) LAUNCH(130, 201) LAUNCH(140, 202) LAUNCH(150, 203)
    LAUNCH(160, 204) LAUNCH(170, 205) LAUNCH(172, 208) LAUNCH(175, 207)
    LAUNCH(180, 206) LAUNCH(183, 211)
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaStreamSynchronize\", \"pid\": 1, \"tid\": 1, \"ts\": 185, "
    "\"dur\": 1210},"
    LAUNCH(1400, 209) LAUNCH(1550, 210)
    KERNEL("gemm1", 7, 120, 180, 200) ","
    KERNEL("gemm2", 7, 300, 300, 202) ","
    KERNEL("gemm3", 7, 600, 400, 204) ","
    KERNEL("gemm4", 7, 1200, 50, 207) ","
    KERNEL("ncclP1", 28, 150, 250, 201) ","
    KERNEL("ncclP2", 28, 900, 50, 203) ","
    KERNEL("ncclT1", 24, 1000, 100, 205) ","
    KERNEL("ncclX1", 30, 1120, 80, 208) ","
    KERNEL("ncclT2", 24, 1300, 50, 206) ","
    KERNEL("ncclX2", 30, 1360, 20, 211) ","
    KERNEL("gemm5", 7, 1410, 90, 209) ","
    KERNEL("ncclT3", 24, 1600, 50, 210)
    "]}";

/* The rules of the windows on TRACE2: a collective ready (launched, all
 * work launched before it done) but started later counts as late_launch
 * although compute ran meanwhile; a group's previous instance that ran
 * beside compute does not line the ranks up, so the window starts at the
 * ProfilerStep; the time an op waited for another group's collective
 * kernel is coll (waiting_elsewhere), the time before that kernel started
 * split by its own launch; a host blocked in cudaStreamSynchronize is not
 * host_busy. */
static void test_rules(void **state)
{
    (void)state;
    tlm_trace *tr = NULL;
    tlm_read_opts ro;
    tlm_read_opts_init(&ro);
    ro.keep_events = 1;
    assert_int_equal(tlm_trace_read_mem(TRACE2, sizeof TRACE2 - 1, "t2.json",
                                        &ro, &tr, NULL),
                     TLM_OK);
    static const char *const names[7] = {"ncclP1", "ncclP2", "ncclT1",
                                         "ncclT2", "ncclX1", "ncclT3",
                                         "ncclX2"};
    static const char *const pgs[7] = {"dp", "dp", "tp", "tp", "x", "tp",
                                       "x"};
    static const int64_t ts[7] = {150, 900, 1000, 1300, 1120, 1600, 1360};
    static const int64_t dur[7] = {250, 50, 100, 50, 80, 50, 20};
    tlm_coll_record rec[7];
    for (int i = 0; i < 7; i++) {
        rec[i] = tc_mkrec(0, pgs[i], "allreduce", "Float", 1024, 2,
                          ts[i] * US, dur[i] * US);
        rec[i].start_ns = rec[i].ts_ns;
        rec[i].event_index = index_of(tr, names[i]);
    }
    tlm_coll_window *w = NULL;
    size_t n = 0;
    assert_int_equal(tlm_coll_windows(tr, rec, 7, NULL, &w, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 7);
    /* P1: first of dp, from the step: host 10 + launch 10 before gemm1,
     * busy 12 until P1 was ready (its launch ended at 132), late 18 */
    const tlm_coll_window *p1 = by_index(w, n, rec[0].event_index);
    assert_int_equal(p1->flags, TLM_WIN_STEP);
    assert_int_equal(p1->win_start_ns, 100 * US);
    assert_int_equal(p1->win_ns, 50 * US);
    assert_int_equal(p1->host_ns, 10 * US);
    assert_int_equal(p1->busy_ns, 12 * US);
    assert_int_equal(p1->launch_ns, 28 * US);
    /* P2: P1 ran beside compute (250 of its 250 us), so from the step;
     * ready at 600 (gemm2, launched before it, ended), started at 900
     * while gemm3 ran: 300 us late_launch, not busy */
    const tlm_coll_window *p2 = by_index(w, n, rec[1].event_index);
    assert_int_equal(p2->flags, TLM_WIN_STEP);
    assert_int_equal(p2->win_ns, 800 * US);
    assert_int_equal(p2->busy_ns, 480 * US);
    assert_int_equal(p2->host_ns, 10 * US);
    assert_int_equal(p2->launch_ns, 310 * US);
    assert_int_equal(p2->coll_ns, 0);
    /* T2: T1 blocked compute, so from T1's end: gemm4 waited for X1 (80,
     * coll), X1 for nothing after its launch (20, late_launch), gemm4 50
     * busy, then T2 ready at 1250 and 50 late */
    const tlm_coll_window *t2 = by_index(w, n, rec[3].event_index);
    assert_int_equal(t2->flags, 0);
    assert_int_equal(t2->win_start_ns, 1100 * US);
    assert_int_equal(t2->busy_ns, 50 * US);
    assert_int_equal(t2->coll_ns, 80 * US);
    assert_int_equal(t2->launch_ns, 70 * US);
    assert_int_equal(t2->host_ns + t2->other_ns, 0);
    /* gemm4 only, charged to the annotation around its launch */
    assert_string_equal(t2->kop[0].name, "ProfilerStep#3");
    assert_int_equal(t2->kop[0].ns, 50 * US);
    assert_int_equal(t2->kop[1].hash, 0); /* collective kernels left out */
    /* its step window: gemm4 waited for X1, X1 for T1 (coll 100 + 80) */
    assert_int_equal(t2->step_start_ns, 100 * US);
    assert_int_equal(t2->step_busy_ns, 930 * US);
    assert_int_equal(t2->step_host_ns, 10 * US);
    assert_int_equal(t2->step_launch_ns, 80 * US);
    assert_int_equal(t2->step_coll_ns, 180 * US);
    assert_int_equal(t2->step_other_ns, 0);
    /* T1: from the step, all compute (P1, P2 left out) */
    const tlm_coll_window *t1 = by_index(w, n, rec[2].event_index);
    assert_int_equal(t1->flags, TLM_WIN_STEP);
    assert_int_equal(t1->busy_ns, 880 * US);
    assert_int_equal(t1->host_ns + t1->launch_ns, 20 * US);
    /* T3: before gemm5's launch the host sat in cudaStreamSynchronize
     * until 1395, waiting for the GPU: X2's 20 us there are coll, the
     * other 25 launch, only [1395, 1400) and [1500, 1550) host */
    const tlm_coll_window *t3 = by_index(w, n, rec[5].event_index);
    assert_int_equal(t3->flags, 0);
    assert_int_equal(t3->win_ns, 250 * US);
    assert_int_equal(t3->busy_ns, 90 * US);
    assert_int_equal(t3->host_ns, 55 * US);
    assert_int_equal(t3->coll_ns, 20 * US);
    assert_int_equal(t3->launch_ns, 85 * US);
    assert_int_equal(t3->other_ns, 0);
    tlm_coll_free(NULL, w);
    tlm_trace_free(tr);
}

static tlm_status torture_step(const tlm_alloc *a, const void *ctx)
{
    const fx *f = ctx;
    tlm_coll_window *w = NULL;
    size_t n = 0;
    tlm_status st = tlm_coll_windows(f->tr, f->rec, 4, a, &w, &n, NULL);
    tlm_coll_free(a, w);
    return st;
}

static void test_bad_args_and_alloc(void **state)
{
    fx *f = *state;
    tlm_coll_window *w = NULL;
    size_t n = 0;
    assert_int_equal(tlm_coll_windows(NULL, f->rec, 1, NULL, &w, &n, NULL),
                     TLM_EINVAL);
    assert_int_equal(tlm_coll_windows(f->tr, NULL, 1, NULL, &w, &n, NULL),
                     TLM_EINVAL);
    assert_int_equal(tlm_coll_windows(f->tr, NULL, 0, NULL, &w, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 0);
    tlm_coll_free(NULL, w);
    assert_true(tc_alloc_torture(torture_step, f) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_windows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_launch, setup, teardown),
        cmocka_unit_test(test_rules),
        cmocka_unit_test_setup_teardown(test_bad_args_and_alloc, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
