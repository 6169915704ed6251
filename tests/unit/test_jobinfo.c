/*
 * test_jobinfo.c - the job-level verdicts of src/out/jobinfo.c: the GPU
 * of the job over its traces (one GPU, mixed GPUs, mixed device names, no
 * devices) and the straggler verdict against the noise threshold (no
 * straggler, a straggler, ties, no rows).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jobinfo.h"

static void set_row(tlm_row_trace *r, const char *dev, const char *arch,
                    const char *src)
{
    memset(r, 0, sizeof *r);
    tlm_strset(r->device_name, sizeof r->device_name, dev);
    tlm_strset(r->gpu_arch, sizeof r->gpu_arch, arch);
    tlm_strset(r->gpu_arch_source, sizeof r->gpu_arch_source, src);
}

static void test_gpu_summary(void **state)
{
    (void)state;
    tlm_row_trace r[3];
    tlm_out_gpu_sum g;
    memset(r, 0, sizeof r);
    tlm_out_gpu_summary(r, 0, &g);
    assert_string_equal(g.arch, "");
    assert_string_equal(g.source, "none");
    for (int i = 0; i < 3; i++)
        set_row(&r[i], "AMD Instinct MI300X", "MI300X", "trace");
    tlm_out_gpu_summary(r, 3, &g);
    assert_string_equal(g.arch, "MI300X");
    assert_string_equal(g.source, "trace");
    assert_string_equal(g.device, "AMD Instinct MI300X");
    assert_int_equal(g.devices_mixed, 0);
    assert_int_equal(g.n_no_device, 0);
    /* one rank on another GPU */
    set_row(&r[2], "NVIDIA H100 80GB HBM3", "H100", "trace");
    tlm_out_gpu_summary(r, 3, &g);
    assert_string_equal(g.arch, "mixed");
    assert_string_equal(g.source, "trace");
    assert_int_equal(g.devices_mixed, 1);
    /* the option decides the arch; the devices still differ */
    for (int i = 0; i < 3; i++)
        tlm_strset(r[i].gpu_arch_source, sizeof r[i].gpu_arch_source,
                       "option");
    tlm_strset(r[2].gpu_arch, sizeof r[2].gpu_arch, "MI300X");
    tlm_out_gpu_summary(r, 3, &g);
    assert_string_equal(g.arch, "MI300X");
    assert_string_equal(g.source, "option");
    assert_int_equal(g.devices_mixed, 1);
    /* a trace whose own devices differ; one without devices */
    set_row(&r[0], "", "", "none");
    set_row(&r[1], "Tesla V100-SXM2-32GB", "", "none");
    set_row(&r[2], "Tesla V100-SXM2-32GB", "", "none");
    r[2].devices_mixed = 1;
    tlm_out_gpu_summary(r, 3, &g);
    assert_string_equal(g.arch, "");
    assert_string_equal(g.source, "none");
    assert_string_equal(g.device, "Tesla V100-SXM2-32GB");
    assert_int_equal(g.devices_mixed, 1);
    assert_int_equal(g.n_no_device, 1);
    /* traces disagreeing on where the GPU came from */
    set_row(&r[0], "NVIDIA H100 80GB HBM3", "H100", "trace");
    tlm_out_gpu_summary(r, 3, &g);
    assert_string_equal(g.arch, "mixed");
    assert_string_equal(g.source, "mixed");
}

static tlm_coll_straggler_row srow(int rank, int overall, int64_t n,
                                   int64_t caused_ns)
{
    tlm_coll_straggler_row r;
    memset(&r, 0, sizeof r);
    r.trace_rank = rank;
    r.overall = overall;
    r.n_instances = n;
    r.wait_caused_corr_ns = caused_ns;
    return r;
}

static void test_straggler_pick(void **state)
{
    (void)state;
    int64_t w = -5;
    int32_t top = -5;
    assert_int_equal(tlm_out_straggler_pick(NULL, 0, 50.0, &w, &top),
                     TLM_OUT_NO_STRAGGLER);
    assert_int_equal(w, 0);
    assert_int_equal(top, -1);
    /* clean job: ~6 us per collective, under 50 us */
    tlm_coll_straggler_row r[5] = {
        srow(0, 1, 54, 340000), srow(1, 1, 54, 332000),
        srow(2, 1, 54, 257000),
        srow(3, 0, 54, 99000000), /* a per-group row: ignored */
        srow(3, 1, 54, 273000),
    };
    assert_int_equal(tlm_out_straggler_pick(r, 5, 50.0, &w, &top),
                     TLM_OUT_NO_STRAGGLER);
    assert_int_equal(top, 0);
    assert_int_equal(w, 340000 / 54);
    /* a lower threshold names it; equal to the threshold does not */
    assert_int_equal(tlm_out_straggler_pick(r, 5, 6.0, &w, &top), 0);
    assert_int_equal(tlm_out_straggler_pick(r, 5, 6.296, &w, &top),
                     TLM_OUT_NO_STRAGGLER);
    /* a straggler: 718 us per collective */
    r[2].wait_caused_corr_ns = 38788000;
    assert_int_equal(tlm_out_straggler_pick(r, 5, 50.0, &w, &top), 2);
    assert_int_equal(top, 2);
    assert_int_equal(w, 38788000 / 54);
    /* ties: the lowest rank */
    r[1].wait_caused_corr_ns = 38788000;
    assert_int_equal(tlm_out_straggler_pick(r, 5, 50.0, &w, &top), 1);
    /* no instances: no verdict */
    r[1].n_instances = 0;
    assert_int_equal(tlm_out_straggler_pick(r, 5, 50.0, &w, &top),
                     TLM_OUT_NO_STRAGGLER);
    assert_int_equal(w, 0);
}

/* The raw verdict reads the raw caused waits: clock offsets that move the
 * straggler from rank 3 (raw) to rank 1 (corrected) give two verdicts. */
static void test_straggler_pick_raw(void **state)
{
    (void)state;
    int64_t w = -5;
    int32_t top = -5;
    assert_int_equal(tlm_out_straggler_pick_raw(NULL, 0, 50.0, &w, &top),
                     TLM_OUT_NO_STRAGGLER);
    assert_int_equal(top, -1);
    tlm_coll_straggler_row r[3] = {srow(0, 1, 10, 1000), srow(1, 1, 10,
                                   9000000), srow(3, 1, 10, 2000)};
    r[0].wait_caused_ns = 3000;
    r[1].wait_caused_ns = 4000;
    r[2].wait_caused_ns = 20000000;
    assert_int_equal(tlm_out_straggler_pick(r, 3, 50.0, &w, &top), 1);
    assert_int_equal(tlm_out_straggler_pick_raw(r, 3, 50.0, &w, &top), 3);
    assert_int_equal(w, 2000000);
    /* under the threshold on raw clocks: none, the top named */
    r[2].wait_caused_ns = 400000;
    assert_int_equal(tlm_out_straggler_pick_raw(r, 3, 50.0, &w, &top),
                     TLM_OUT_NO_STRAGGLER);
    assert_int_equal(top, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_summary),
        cmocka_unit_test(test_straggler_pick),
        cmocka_unit_test(test_straggler_pick_raw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
