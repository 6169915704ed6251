/*
 * test_find_coll.c - the collective findings of the analysis
 * (src/find/find_coll.c) on hand-made rows: each rule M1-M4 triggered and not
 * triggered by its threshold, the link peaks, the order and the ids.
 */
#define _GNU_SOURCE 1 /* open_memstream */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "find_coll.h"
#include "findings_md.h"

/* Two ranks of 10 ms GPU time, 2 ms exposed communication of 4 ms. */
static tlm_row_timeline tl[2];
/* pg "1": 16 MiB allreduce, busbw 100 GB/s, skew 50 us vs 100 us latency */
static tlm_row_summary sum[1];
static tlm_row_straggler strag[3];

static void setup_rows(void)
{
    memset(tl, 0, sizeof tl);
    for (int i = 0; i < 2; i++) {
        tl[i].trace_rank = i;
        tl[i].total_ns = 10000000;
        tl[i].exposed_comm_ns = 2000000;
        tl[i].total_comm_ns = 4000000;
    }
    memset(sum, 0, sizeof sum);
    snprintf(sum[0].pg_name, sizeof sum[0].pg_name, "1");
    snprintf(sum[0].pg_desc, sizeof sum[0].pg_desc, "TP");
    snprintf(sum[0].coll, sizeof sum[0].coll, "allreduce");
    snprintf(sum[0].dtype, sizeof sum[0].dtype, "BFloat16");
    sum[0].bytes = 16 << 20;
    sum[0].group_size = 2;
    sum[0].count = 10;
    sum[0].total_latency_ns = 1000000;
    sum[0].latency_ns_mean = 100000;
    sum[0].start_skew_corr_ns_mean = 50000;
    sum[0].busbw_gbps_mean = 100.0;
    memset(strag, 0, sizeof strag);
    strag[0].trace_rank = 0; /* a per-group row: ignored */
    strag[0].wait_caused_corr_ns = 999999999;
    strag[1].trace_rank = 0;
    strag[1].overall = 1;
    strag[2].trace_rank = 1;
    strag[2].overall = 1;
    strag[2].n_instances = 10;
    strag[2].times_last_corr = 10;
    strag[2].wait_caused_corr_ns = 1000000;
}

static tlm_find_coll_in input(int64_t straggler)
{
    tlm_find_coll_in in = {tl,    2, sum, 1, strag, 3, straggler,
                          100000, "H100"};
    return in;
}

static const tlm_row_finding *rule(const tlm_row_finding *v, size_t n,
                                   const char *r)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].rule, r))
            return &v[i];
    return NULL;
}

static void test_all_rules(void **state)
{
    (void)state;
    setup_rows();
    tlm_find_coll_opts o;
    tlm_find_coll_opts_init(&o);
    tlm_find_coll_in in = input(1);
    tlm_row_finding *v = NULL;
    size_t n = 0;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    assert_int_equal(n, 4);
    /* M1: 1 ms caused over 2 ranks x 10 ms = 5 % */
    const tlm_row_finding *f = rule(v, n, "M1");
    assert_non_null(f);
    assert_string_equal(f->subject, "rank 1");
    assert_true(fabs(f->pct_e2e - 5.0) < 1e-9);
    assert_string_equal(f->severity, "high");
    assert_string_equal(f->mode, "mpi");
    /* M2: 50 us x 10 calls / 10 ms = 5 % */
    f = rule(v, n, "M2");
    assert_non_null(f);
    assert_true(fabs(f->pct_e2e - 5.0) < 1e-9);
    assert_non_null(strstr(f->subject, "allreduce 16.0 MiB BFloat16 on TP"));
    /* M3: 100 of 450 GB/s: 22 %, 1 ms x (1 - 100/450) / 10 ms */
    f = rule(v, n, "M3");
    assert_non_null(f);
    assert_true(fabs(f->eff - 100.0 * 100.0 / 450.0) < 1e-9);
    assert_true(fabs(f->pct_e2e - 10.0 * (1.0 - 100.0 / 450.0)) < 1e-9);
    assert_string_equal(f->severity, "high");
    /* M4: 2 of 10 ms */
    f = rule(v, n, "M4");
    assert_non_null(f);
    assert_true(fabs(f->pct_e2e - 20.0) < 1e-9);
    /* report order: by severity, then impact; ids P1.. */
    assert_string_equal(v[0].rule, "M4");
    assert_string_equal(v[1].rule, "M3");
    assert_string_equal(v[0].id, "P1");
    assert_string_equal(v[3].id, "P4");
    free(v);
}

static void test_rules_off(void **state)
{
    (void)state;
    setup_rows();
    tlm_find_coll_opts o;
    tlm_find_coll_opts_init(&o);
    tlm_row_finding *v = NULL;
    size_t n = 0;
    /* no straggler verdict; skew under 60 % of latency; peak 150 GB/s
     * (100 > 50 % of it); exposed 20 % under 25 % */
    tlm_find_coll_in in = input(-1);
    o.skew_pct = 60;
    o.link_peak_gbps = 150;
    o.exposed_pct = 25;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    assert_int_equal(n, 0);
    free(v);
    /* the absolute skew floor alone, and the message size floor alone */
    tlm_find_coll_opts_init(&o);
    o.skew_min_us = 51;
    o.busbw_min_bytes = (double)(32 << 20);
    o.exposed_pct = 25;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    assert_int_equal(n, 0);
    free(v);
    /* an unknown GPU has no peak: no M3 */
    tlm_find_coll_opts_init(&o);
    in.gpu_arch = "";
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    assert_null(rule(v, n, "M3"));
    assert_non_null(rule(v, n, "M2"));
    free(v);
}

/* The split: 2 ms exposed of which 1.6 ms waiting: M4 counts transfer
 * and unknown (0.3 + 0.1 ms, 4 %: under its 5 %, then over 3 %), M2 names
 * the waiting; report.md says how the impacts overlap. */
static void test_split(void **state)
{
    (void)state;
    setup_rows();
    for (int i = 0; i < 2; i++) {
        tl[i].exposed_transfer_ns = 300000;
        tl[i].exposed_waiting_ns = 1600000;
        tl[i].exposed_unknown_ns = 100000;
    }
    tlm_find_coll_opts o;
    tlm_find_coll_opts_init(&o);
    tlm_find_coll_in in = input(1);
    tlm_row_finding *v = NULL;
    size_t n = 0;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    assert_null(rule(v, n, "M4"));
    const tlm_row_finding *f = rule(v, n, "M2");
    assert_non_null(f);
    assert_non_null(strstr(f->text, "1.600 ms per rank"));
    free(v);
    o.exposed_pct = 2;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    f = rule(v, n, "M4");
    assert_non_null(f);
    assert_true(fabs(f->pct_e2e - 3.0) < 1e-9);
    assert_non_null(strstr(f->text, "exposed transfer is 3.0 %"));
    assert_non_null(strstr(f->text, "1.600 ms (16.0 %) is waiting"));
    assert_non_null(strstr(f->text, "0.100 ms more cannot be split"));
    assert_non_null(strstr(f->action_a, "overlap communication"));
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    assert_non_null(mf);
    tlm_out_findings_md(mf, v, n, &o);
    fclose(mf);
    assert_non_null(strstr(buf, "Impacts overlap, do not add them: M1 and "
                                "M2 both count waiting"));
    assert_non_null(strstr(buf, "disjoint from the exposed waiting of "
                                "M1/M2"));
    free(buf);
    free(v);
}

static void test_link_peak(void **state)
{
    (void)state;
    tlm_find_coll_opts o;
    tlm_find_coll_opts_init(&o);
    assert_true(tlm_find_link_peak(&o, "H100", 8) == 450.0);
    assert_true(tlm_find_link_peak(&o, "MI300X", 8) == 448.0);
    assert_true(tlm_find_link_peak(&o, "MI300X-MAF", 4) == 448.0);
    assert_true(tlm_find_link_peak(&o, "B200", 2) == 900.0);
    assert_true(tlm_find_link_peak(&o, "H100", 16) == TLM_FIND_INTER_GBPS);
    assert_true(tlm_find_link_peak(&o, "", 8) == 0.0);
    /* the whole model name: "A10" is no A100, "L4" no L40S */
    assert_true(tlm_find_link_peak(&o, "V100-SXM2-32GB", 8) == 150.0);
    assert_true(tlm_find_link_peak(&o, "V100-PCIe-16GB", 8) == 16.0);
    assert_true(tlm_find_link_peak(&o, "A10", 8) == 32.0);
    assert_true(tlm_find_link_peak(&o, "A100", 8) == 300.0);
    assert_true(tlm_find_link_peak(&o, "L40S", 8) == 32.0);
    assert_true(tlm_find_link_peak(&o, "L40", 8) == 0.0);
    assert_true(tlm_find_link_peak(&o, "A10G", 8) == 0.0);
    assert_true(tlm_find_link_peak(&o, "MI250X", 8) == 0.0);
    assert_true(tlm_find_link_peak(&o, "H100 SXM", 8) == 450.0);
    o.gpus_per_node = 4;
    assert_true(tlm_find_link_peak(&o, "H100", 8) == TLM_FIND_INTER_GBPS);
    o.link_peak_gbps = 123;
    assert_true(tlm_find_link_peak(&o, "H100", 64) == 123.0);
}

static void test_md(void **state)
{
    (void)state;
    setup_rows();
    tlm_find_coll_opts o;
    tlm_find_coll_opts_init(&o);
    tlm_find_coll_in in = input(1);
    snprintf(sum[0].pg_desc, sizeof sum[0].pg_desc, "a|b");
    tlm_row_finding *v = NULL;
    size_t n = 0;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    tlm_out_findings_md(f, v, n, &o);
    tlm_out_findings_md_appendix(f, &o);
    fclose(f);
    assert_non_null(strstr(buf, "## Findings"));
    assert_non_null(strstr(buf, "on a\\|b")); /* escaped */
    assert_null(strstr(buf, "on a|b"));
    assert_non_null(strstr(buf, "| --findings_skew_pct | 25 |"));
    assert_non_null(strstr(buf, "| --findings_busbw_min_bytes | 1048576 |"));
    free(buf);
    free(v);
}

/* A group without a description is named by its name and size, not "-"
 * (issue 34): "allreduce 16.0 MiB BFloat16 on pg size8 (2 ranks)". */
static void test_subject_no_desc(void **state)
{
    (void)state;
    setup_rows();
    sum[0].pg_desc[0] = 0;
    snprintf(sum[0].pg_name, sizeof sum[0].pg_name, "size8");
    tlm_find_coll_opts o;
    tlm_find_coll_opts_init(&o);
    tlm_find_coll_in in = input(1);
    tlm_row_finding *v = NULL;
    size_t n = 0;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    const tlm_row_finding *f = rule(v, n, "M2");
    assert_non_null(f);
    assert_string_equal(f->subject,
                        "allreduce 16.0 MiB BFloat16 on pg size8 (2 ranks)");
    free(v);
    /* neither a description nor a name */
    sum[0].pg_name[0] = 0;
    sum[0].group_size = 0;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    f = rule(v, n, "M2");
    assert_non_null(f);
    assert_string_equal(f->subject,
                        "allreduce 16.0 MiB BFloat16 on an unnamed group");
    free(v);
}

/* Exposed time that cannot be split (instances lacking ranks): M4 says
 * so, with its share as impact, and gives no overlap advice. */
static void test_split_unknown(void **state)
{
    (void)state;
    setup_rows();
    for (int i = 0; i < 2; i++) {
        tl[i].exposed_transfer_ns = 0;
        tl[i].exposed_waiting_ns = 0;
        tl[i].exposed_unknown_ns = 1500000;
    }
    tlm_find_coll_opts o;
    tlm_find_coll_opts_init(&o);
    tlm_find_coll_in in = input(1);
    tlm_row_finding *v = NULL;
    size_t n = 0;
    assert_int_equal(tlm_find_coll_build(&in, &o, &v, &n), TLM_OK);
    const tlm_row_finding *f = rule(v, n, "M4");
    assert_non_null(f);
    assert_true(fabs(f->pct_e2e - 15.0) < 1e-9);
    assert_non_null(strstr(f->text, "cannot be split into transfer and "
                                    "waiting"));
    assert_null(strstr(f->action_a, "overlap communication"));
    assert_non_null(strstr(f->action_a, "profile every rank"));
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_rules),
        cmocka_unit_test(test_rules_off),
        cmocka_unit_test(test_link_peak),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_split_unknown),
        cmocka_unit_test(test_md),
        cmocka_unit_test(test_subject_no_desc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
