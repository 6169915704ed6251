/*
 * test_coll_window.c - the window before each collective of one trace
 * (src/coll/coll_window.c) on a small trace read from memory: GPU busy
 * time, the idle gaps split at the launch of the op that ends them, the
 * host time charged to the innermost host event, the launching op of the
 * busy time, the first collective of a group without a window, the other
 * group's window, bad arguments and allocation failures.
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
    assert_true(a->flags & TLM_WIN_NO_PREV);
    assert_true(c->flags & TLM_WIN_NO_PREV);
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
        cmocka_unit_test_setup_teardown(test_bad_args_and_alloc, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
