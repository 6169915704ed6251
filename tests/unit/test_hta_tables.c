/*
 * test_hta_tables.c - HTA's tables (src/hta, spec/hta.md §1.6-§7) on
 * hand-made traces: kernel types by name, the interval merge (touching
 * intervals merge, Q1's negative groups), the idle classification
 * (host_wait / kernel_wait / other), the queue-length tie order (launch
 * before kernel start at equal ts, Q7), pandas' describe(), the join of
 * two ranks (by-type sums, notes) and the pack/unpack round trip.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hta_internal.h"
#include "sbuf.h"

#include "tlm_test_util.h"

static void test_kernel_types(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        tlm_hta_ktype k;
    } cases[] = {
        {"ncclKernel_AllReduce_RING_LL_Sum_float", TLM_HTA_K_COMMUNICATION},
        {"ncclDevKernel_AllGather", TLM_HTA_K_COMMUNICATION},
        {"void at::ncclKernel_x()", TLM_HTA_K_COMMUNICATION},
        {"hipKernel_whatever", TLM_HTA_K_COMMUNICATION}, /* Q5 */
        {"Memcpy DtoD (Device -> Device)", TLM_HTA_K_MEMORY},
        {"Memset (Device)", TLM_HTA_K_MEMORY},
        {"dma_copy", TLM_HTA_K_MEMORY},
        {"void gemm_kernel<float>()", TLM_HTA_K_COMPUTATION},
        {"void SyncBatchNorm_kernel()", TLM_HTA_K_OTHER}, /* Q5 */
        {"void my_Memcpy_like_kernel()", TLM_HTA_K_OTHER},
        {"cudaLaunchKernel", TLM_HTA_K_OTHER},
        {"Stream Wait Event", TLM_HTA_K_OTHER},
        {"a\nSync", TLM_HTA_K_COMPUTATION}, /* '.' stops at a newline */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(tlm_hta_kernel_type(cases[i].name,
                                             strlen(cases[i].name)),
                         cases[i].k);
    char label[96];
    tlm_hta_by_type_label(1 | 2, label, sizeof label);
    assert_string_equal(label, "COMPUTATION overlapping COMMUNICATION");
    tlm_hta_by_type_label(4, label, sizeof label);
    assert_string_equal(label, "MEMORY");
}

static void test_merge_iv(void **state)
{
    (void)state;
    tlm_ivl iv[] = {{10, 20}, {0, 5}, {5, 8}, {20, 30}, {40, 39},
                    {50, 60}, {52, 55}};
    size_t ng;
    assert_int_equal(tlm_ivl_union_stable(iv, 7, &ng), TLM_OK);
    assert_int_equal(ng, 4);
    /* [0,8] (touching merge), [10,30], [40,39] (Q1: -1), [50,60] */
    assert_int_equal(iv[0].s, 0);
    assert_int_equal(iv[0].e, 8);
    assert_int_equal(iv[1].s, 10);
    assert_int_equal(iv[1].e, 30);
    assert_int_equal(iv[2].e - iv[2].s, -1);
    assert_int_equal(iv[3].e, 60);
    assert_int_equal(tlm_ivl_length(iv, ng), 8 + 20 - 1 + 10);
}

static void test_describe(void **state)
{
    (void)state;
    double v[] = {4, NAN, 1, 3, 2};
    tlm_hta_describe d;
    tlm_hta_describe_of(v, 5, &d);
    assert_true(d.count == 4);
    assert_true(d.mean == 2.5);
    assert_true(fabs(d.std - 1.2909944487358056) < 1e-15);
    assert_true(d.q25 == 1.75 && d.q50 == 2.5 && d.q75 == 3.25);
    assert_true(d.min == 1 && d.max == 4);
    double one[] = {NAN};
    tlm_hta_describe_of(one, 1, &d);
    assert_true(d.count == 0 && isnan(d.mean) && isnan(d.std));
    assert_true(tlm_hta_round(0.125, 2) == 0.12); /* half to even */
    assert_true(tlm_hta_round(74.15, 1) == 74.2);
}

/* Events with ' for ": launches (cuda_runtime) and kernels on stream 7. */
#define L(ts, corr)                                                       \
    "{'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel','pid':1,"   \
    "'tid':1,'ts':" #ts ",'dur':1,'args':{'correlation':" #corr "}}"
#define KN(name, ts, dur, corr)                                           \
    "{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':7,'ts':"    \
    #ts ",'dur':" #dur ",'args':{'correlation':" #corr ",'stream':7}}"

static tlm_hta_result *build(const char *sq, tlm_hta_events **evp,
                             tlm_trace **tp)
{
    tlm_trace *t = tt_read_sq(sq);
    tlm_hta_events *ev = NULL;
    tlm_error err;
    assert_int_equal(tlm_hta_events_build(t, 0, TLM_HTA_TIME_US, &ev, &err),
                     TLM_OK);
    tlm_hta_opts o;
    tlm_hta_opts_init(&o);
    tlm_hta_result *r = NULL;
    assert_int_equal(tlm_hta_build(ev, &o, 1, &r, &err), TLM_OK);
    *evp = ev;
    *tp = t;
    return r;
}

static void release(tlm_hta_result *r, tlm_hta_events *ev, tlm_trace *t)
{
    tlm_hta_result_free(r);
    tlm_hta_events_free(ev);
    tlm_trace_free(t);
}

static double cell(const tlm_hta_table *t, size_t row, size_t col)
{
    return tlm_hta_cell_f64(t, row, col);
}

/* k2: launched after k1 ended -> host_wait 16; k3 launched long before,
 * gap 7 < 30 -> kernel_wait; k4 gap 58 -> other. */
static void test_idle_classification(void **state)
{
    (void)state;
    tlm_hta_events *ev;
    tlm_trace *t;
    tlm_hta_result *r = build("{'traceEvents':["
                              L(0, 1) "," KN("k1", 10, 5, 1) ","
                              L(30, 2) "," KN("k2", 31, 2, 2) ","
                              L(2, 3) "," KN("k3", 40, 2, 3) ","
                              L(3, 4) "," KN("k4", 100, 2, 4) "]}",
                              &ev, &t);
    const tlm_hta_table *it = tlm_hta_result_find(r, "idle_time_breakdown");
    assert_non_null(it);
    assert_int_equal(tlm_hta_table_rows(it), 3);
    assert_string_equal(tlm_hta_cell_str(it, 0, 2, NULL), "host_wait");
    assert_true(cell(it, 0, 3) == 16);
    assert_string_equal(tlm_hta_cell_str(it, 1, 2, NULL), "kernel_wait");
    assert_true(cell(it, 1, 3) == 7);
    assert_string_equal(tlm_hta_cell_str(it, 2, 2, NULL), "other");
    assert_true(cell(it, 2, 3) == 58);
    assert_true(cell(it, 2, 4) == tlm_hta_round(58.0 / 81.0, 2));
    const tlm_hta_table *st = tlm_hta_result_find(r, "idle_interval_stats");
    assert_true(cell(st, 2, 3) == 1); /* other: one gap, the first NaN */
    /* the temporal breakdown: span 10..102, busy 5+2+2+2 */
    const tlm_hta_table *tb = tlm_hta_result_find(r, "temporal_breakdown");
    assert_true(cell(tb, 0, 4) == 92 && cell(tb, 0, 1) == 81);
    release(r, ev, t);
}

/* Launch and kernel start at the same ts on one stream: launch first. */
static void test_queue_tie_order(void **state)
{
    (void)state;
    tlm_hta_events *ev;
    tlm_trace *t;
    /* (a kernel at index 0 would read as "no partner": icorr 0) */
    tlm_hta_result *r = build("{'traceEvents':[{'ph':'M','name':'x'},"
                              KN("k1", 10, 5, 1) "," L(10, 2) ","
                              L(0, 1) "," KN("k2", 20, 5, 2) "]}",
                              &ev, &t);
    const tlm_hta_table *q = tlm_hta_result_find(r, "queue_length_summary");
    assert_int_equal(tlm_hta_table_rows(q), 1);
    /* samples 1, 2, 1, 0 (a kernel-first order would give max 1) */
    assert_true(cell(q, 0, 2) == 4);
    assert_true(cell(q, 0, 3) == 1.0);
    assert_true(cell(q, 0, 9) == 2);
    release(r, ev, t);
}

/* Two ranks joined: rows in order, by-type summed, notes added; the
 * packed form reads back the same. */
static void test_merge_and_pack(void **state)
{
    (void)state;
    tlm_hta_events *e1, *e2;
    tlm_trace *t1, *t2;
    tlm_hta_result *r1 = build("{'traceEvents':[" L(0, 1) ","
                               KN("gemm", 10, 5, 1) "]}", &e1, &t1);
    tlm_hta_result *r2 = build("{'traceEvents':[" L(0, 1) ","
                               KN("ncclKernel_x", 10, 3, 1) "]}", &e2, &t2);
    tlm_hta_result *parts[2] = {r1, r2}, *m = NULL;
    tlm_error err;
    assert_int_equal(tlm_hta_merge(parts, 2, &m, &err), TLM_OK);
    const tlm_hta_table *bt =
        tlm_hta_result_find(m, "gpu_kernel_breakdown_by_type");
    assert_int_equal(tlm_hta_table_rows(bt), 2);
    assert_string_equal(tlm_hta_cell_str(bt, 0, 0, NULL), "COMPUTATION");
    assert_true(cell(bt, 0, 1) == 5 && cell(bt, 0, 2) == 62.5);
    assert_true(cell(bt, 1, 1) == 3 && cell(bt, 1, 2) == 37.5);
    assert_int_equal(
        tlm_hta_table_rows(tlm_hta_result_find(m, "temporal_breakdown")), 2);
    assert_int_equal(tlm_hta_result_notes(m)->n_events, 4);
    void *buf = NULL;
    size_t len = 0;
    assert_int_equal(tlm_hta_pack(m, &buf, &len), TLM_OK);
    tlm_hta_result *u = NULL;
    assert_int_equal(tlm_hta_unpack(buf, len, &u), TLM_OK);
    assert_int_equal(tlm_hta_result_tables(u), tlm_hta_result_tables(m));
    const tlm_hta_table *k = tlm_hta_result_find(u, "gpu_kernel_breakdown");
    assert_int_equal(tlm_hta_table_rows(k), 2);
    assert_string_equal(tlm_hta_cell_str(k, 1, 0, NULL), "ncclKernel_x");
    tlm_hta_result *cut = NULL;
    assert_int_equal(tlm_hta_unpack(buf, len - 1, &cut), TLM_EFORMAT);
    assert_null(cut);
    free(buf);
    tlm_hta_result_free(u);
    tlm_hta_result_free(m);
    release(r1, e1, t1);
    release(r2, e2, t2);
}

/* The cells are a tlm_tab: a new row's defaults (I64 0, F64 NaN, text
 * empty), text with a NUL kept whole through the packed form and into
 * the CSV, as pandas writes it. */
static void test_tab_cells(void **state)
{
    (void)state;
    tlm_hta_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    tlm_hta_table *t = tlm_hta_result_add(r, &tlm_hta_def_kernels);
    assert_non_null(t);
    size_t row;
    assert_int_equal(tlm_hta_row_add(t, &row), TLM_OK);
    assert_int_equal(tlm_hta_cell_i64(t, row, 7), 0);
    assert_true(isnan(tlm_hta_cell_f64(t, row, 1)));
    size_t len = 9;
    assert_string_equal(tlm_hta_cell_str(t, row, 0, &len), "");
    assert_int_equal(len, 0);
    assert_int_equal(tlm_hta_set_str(t, row, 0, "a\0b", 3), TLM_OK);
    tlm_hta_set_f64(t, row, 1, 2.5);
    void *buf = NULL;
    size_t n = 0;
    assert_int_equal(tlm_hta_pack(r, &buf, &n), TLM_OK);
    tlm_hta_result *u = NULL;
    assert_int_equal(tlm_hta_unpack(buf, n, &u), TLM_OK);
    const tlm_hta_table *k = tlm_hta_result_table(u, 0);
    assert_memory_equal(tlm_hta_cell_str(k, 0, 0, &len), "a\0b", 3);
    assert_int_equal(len, 3);
    assert_true(tlm_hta_cell_f64(k, 0, 1) == 2.5);
    assert_true(isnan(tlm_hta_cell_f64(k, 0, 2)));
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_row(k->tab, 0, &b);
    assert_int_equal(b.len, 15);
    assert_memory_equal(b.p, "a\0b,2.5,,,,,,0\n", 15);
    tlm_sbuf_free(&b);
    free(buf);
    tlm_hta_result_free(u);
    tlm_hta_result_free(r);
}

static void test_cp_parse(void **state)
{
    (void)state;
    tlm_hta_opts o;
    tlm_hta_opts_init(&o);
    assert_string_equal(o.cp_annotation, "ProfilerStep");
    tlm_error err;
    assert_int_equal(tlm_hta_cp_parse("## forward ##:2-4", &o, &err), TLM_OK);
    assert_string_equal(o.cp_annotation, "## forward ##");
    assert_int_equal(o.cp_first, 2);
    assert_int_equal(o.cp_last, 4);
    assert_int_equal(tlm_hta_cp_parse("X:5", &o, &err), TLM_OK);
    assert_int_equal(o.cp_first, 5);
    assert_int_equal(o.cp_last, 5);
    assert_int_equal(tlm_hta_cp_parse("X:3-1", &o, &err), TLM_EINVAL);
    assert_int_equal(tlm_hta_cp_parse("X:a", &o, &err), TLM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_types),
        cmocka_unit_test(test_merge_iv),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_idle_classification),
        cmocka_unit_test(test_queue_tie_order),
        cmocka_unit_test(test_merge_and_pack),
        cmocka_unit_test(test_tab_cells),
        cmocka_unit_test(test_cp_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
