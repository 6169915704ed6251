/*
 * test_coll_summary.c - summaries and straggler tables of matched
 * instances (src/coll/coll_summary.c), on "fake rank" records matched by
 * tlm_coll_match: the TraceLens test vector through the SI straggler rows
 * and summary; a 2-node job with a straggler and a clock offset
 * (corrected columns, incomplete instances in or out of the statistics);
 * partial straggler rows merging to the whole; allocation failures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm_test_coll.h"

/* The job of tlm_test_coll.h matched with its true clock offsets: the
 * state of the tests that use it. */
typedef struct job {
    tlm_coll_record *r;
    int64_t off[TC_JOB_R];
    tlm_coll_match_result res;
} job;

static int job_setup(void **state)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    for (int k = 0; k < TC_JOB_R; k++)
        j->off[k] = tc_job_theta[k / 4];
    tc_job_match(&j->r, 0, j->off, &j->res);
    assert_int_equal(j->res.n_inst, TC_JOB_C);
    *state = j;
    return 0;
}

static int job_teardown(void **state)
{
    job *j = *state;
    tlm_coll_match_result_free(&j->res);
    free(j->r);
    free(j);
    return 0;
}

/* The vector's instances: 0 with rank 2 alone last (80 us of waits
 * caused), 1 a 4-way tie. */
static void test_vector(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    size_t n = tc_vector_records(r);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    tlm_coll_straggler_row *sr = NULL;
    size_t nsr = 0;
    assert_int_equal(tlm_coll_straggler_compute(res.inst, res.n_inst,
                                                res.mem, res.n_mem, NULL,
                                                &sr, &nsr, NULL),
                     TLM_OK);
    /* 4 ranks x (pg row + overall row) */
    assert_int_equal(nsr, 8);
    for (size_t i = 0; i < nsr; i++) {
        const tlm_coll_straggler_row *x = &sr[i];
        assert_int_equal(x->overall, i >= 4);
        assert_int_equal(x->trace_rank, (int)(i % 4));
        assert_int_equal(x->n_instances, 2);
        /* instance 0: rank 2 alone last, caused 80 us; instance 1: a
         * 4-way tie, 250000 micro-credits each */
        int64_t credit = (x->trace_rank == 2 ? 1000000 : 0) + 250000;
        assert_int_equal(x->last_credit_u, credit);
        assert_int_equal(x->times_last, x->trace_rank == 2);
        assert_int_equal(x->wait_caused_ns, x->trace_rank == 2 ? 80000 : 0);
        static const int64_t ws[4] = {30000, 20000, 0, 30000};
        assert_int_equal(x->wait_suffered_ns, ws[x->trace_rank]);
        assert_int_equal(x->times_first, 0); /* 0 and 3 tie */
    }
    tlm_coll_free(NULL, sr);

    tlm_coll_summary_row *su = NULL;
    size_t nsu = 0;
    /* the group's description comes from its first instance */
    snprintf(res.inst[0].pg_desc, sizeof res.inst[0].pg_desc, "DP");
    assert_int_equal(tlm_coll_summarize(res.inst, res.n_inst, 0, NULL, &su,
                                        &nsu, NULL),
                     TLM_OK);
    assert_int_equal(nsu, 1);
    assert_string_equal(su[0].pg_desc, "DP");
    assert_int_equal(su[0].count, 2);
    assert_double_equal(su[0].latency_ns.mean, 25000, 1e-9);
    assert_double_equal(su[0].latency_ns.median, 25000, 1e-9);
    assert_double_equal(su[0].latency_ns.p95, 29500, 1e-9);
    assert_double_equal(su[0].start_skew_ns.max, 30000, 1e-9);
    assert_int_equal(su[0].total_latency_ns, 50000);
    tlm_coll_free(NULL, su);
    tlm_coll_match_result_free(&res);
}

/* Corrected clocks: rank 5 is the straggler of every complete instance
 * (7 of 40 are incomplete: ranks 3 and 6 miss some). */
static void test_job_stragglers(void **state)
{
    const tlm_coll_match_result *res = &((const job *)*state)->res;
    tlm_coll_straggler_row *sr = NULL;
    size_t nsr = 0;
    assert_int_equal(tlm_coll_straggler_compute(res->inst, res->n_inst,
                                                res->mem, res->n_mem, NULL,
                                                &sr, &nsr, NULL),
                     TLM_OK);
    assert_int_equal(nsr, 2 * TC_JOB_R);
    int complete = TC_JOB_C - 3 - 4;
    for (size_t i = 0; i < nsr; i++) {
        const tlm_coll_straggler_row *x = &sr[i];
        assert_int_equal(x->overall, i >= TC_JOB_R);
        assert_int_equal(x->trace_rank, (int)(i % TC_JOB_R));
        assert_string_equal(x->pg_name, i >= TC_JOB_R ? "*" : "7");
        assert_int_equal(x->n_instances, complete);
        assert_int_equal(x->times_last_corr,
                         x->trace_rank == 5 ? complete : 0);
        assert_int_equal(x->last_credit_corr_u,
                         x->trace_rank == 5 ? 1000000LL * complete : 0);
        if (x->trace_rank == 5)
            assert_int_equal(x->wait_suffered_corr_ns, 0);
        else
            assert_true(x->wait_suffered_corr_ns >= 49000LL * complete);
    }
    tlm_coll_free(NULL, sr);
}

/* Two sizes (1 MiB elements for c % 4 != 3, 4096 otherwise): two rows;
 * incomplete instances are counted, and used only when asked for. */
static void test_job_summary(void **state)
{
    const tlm_coll_match_result *res = &((const job *)*state)->res;
    for (int inc = 0; inc < 2; inc++) {
        tlm_coll_summary_row *su = NULL;
        size_t nsu = 0;
        assert_int_equal(tlm_coll_summarize(res->inst, res->n_inst, inc, NULL,
                                            &su, &nsu, NULL),
                         TLM_OK);
        assert_int_equal(nsu, 2);
        for (int big = 0; big < 2; big++) {
            /* the rows by total latency: the big size first */
            const tlm_coll_summary_row *x = &su[big ? 0 : 1];
            int64_t count = 0, n_inc = 0, total = 0;
            for (int c = 0; c < TC_JOB_C; c++) {
                if ((c % 4 != 3) != big)
                    continue;
                int incomplete = c < 3 || c >= TC_JOB_C - 4;
                n_inc += incomplete;
                if (incomplete && !inc)
                    continue;
                count++;
                total += 20000 + (c % 5) * 1000;
            }
            assert_int_equal(x->count, count);
            assert_int_equal(x->n_incomplete, n_inc);
            assert_int_equal(x->total_latency_ns, total);
            assert_int_equal(x->latency_ns.n, count);
            assert_double_equal(x->latency_ns.min, 20000, 0);
            assert_double_equal(x->latency_ns.max, 24000, 0);
            assert_int_equal(x->bytes, (big ? 1 << 20 : 4096) * 2);
            assert_int_equal(x->group_size, TC_JOB_R);
            assert_string_equal(x->pg_name, "7");
            assert_string_equal(x->coll_name, "allreduce");
            assert_string_equal(x->dtype_name, "BFloat16");
            /* corrected: everyone ends together */
            assert_double_equal(x->end_skew_corr_ns.max, 0, 0);
            assert_double_equal(x->end_skew_ns.min, 37000, 0);
            /* not all-to-all: no throughput */
            assert_int_equal(x->throughput_gbps.n, 0);
        }
        assert_int_equal(su[0].n_incomplete, 6);
        assert_int_equal(su[1].n_incomplete, 1);
        tlm_coll_free(NULL, su);
    }
    tlm_coll_summary_row *su = (tlm_coll_summary_row *)1;
    size_t nsu = 5;
    assert_int_equal(tlm_coll_summarize(NULL, 0, 0, NULL, &su, &nsu, NULL),
                     TLM_OK);
    assert_null(su);
    assert_int_equal(nsu, 0);
    tlm_error err;
    assert_int_equal(tlm_coll_summarize(NULL, 2, 0, NULL, &su, &nsu, &err),
                     TLM_EINVAL);
}

/* Rows of three disjoint shares of the instances, concatenated and merged,
 * are the rows of all, and so are the shares merged one at a time into
 * the rows so far (tlm_coll_straggler_merge_into, the driver's rank 0);
 * the summary does not depend on the order of the instances. */
static void test_merge_and_order(void **state)
{
    const tlm_coll_match_result *res = &((const job *)*state)->res;
    tlm_coll_straggler_row *all = NULL, *cat = NULL, *acc = NULL;
    size_t nall = 0, ncat = 0, nacc = 0;
    assert_int_equal(tlm_coll_straggler_compute(res->inst, res->n_inst,
                                                res->mem, res->n_mem, NULL,
                                                &all, &nall, NULL),
                     TLM_OK);
    tlm_coll_instance *inst = calloc(res->n_inst, sizeof *inst);
    tlm_coll_member *mem = calloc(res->n_mem, sizeof *mem);
    cat = calloc(3 * nall, sizeof *cat);
    acc = calloc(3 * nall, sizeof *acc);
    assert_true(inst && mem && cat && acc);
    for (int p = 0; p < 3; p++) {
        size_t ni = 0, nm = 0;
        for (size_t i = 0; i < res->n_inst; i++)
            if (res->inst[i].seq % 3 == p)
                inst[ni++] = res->inst[i];
        for (size_t i = 0; i < res->n_mem; i++)
            if (res->mem[i].seq % 3 == p)
                mem[nm++] = res->mem[i];
        tlm_coll_straggler_row *part = NULL;
        size_t np = 0;
        assert_int_equal(tlm_coll_straggler_compute(inst, ni, mem, nm, NULL,
                                                    &part, &np, NULL),
                         TLM_OK);
        assert_true(ncat + np <= 3 * nall);
        memcpy(cat + ncat, part, np * sizeof *part);
        ncat += np;
        tlm_coll_straggler_merge(part, &np);
        assert_true(nacc + np <= 3 * nall);
        size_t before = nacc;
        tlm_coll_straggler_merge_into(acc, &nacc, part, np);
        assert_true(nacc <= before + np);
        assert_true(p == 0 || nacc < before + np); /* shared keys summed */
        tlm_coll_free(NULL, part);
    }
    assert_true(ncat > nall);
    tlm_coll_straggler_merge(cat, &ncat);
    assert_int_equal(ncat, nall);
    assert_memory_equal(cat, all, nall * sizeof *all);
    assert_int_equal(nacc, nall);
    assert_memory_equal(acc, all, nall * sizeof *all);
    free(acc);

    tlm_coll_summary_row *s1 = NULL, *s2 = NULL;
    size_t n1 = 0, n2 = 0;
    assert_int_equal(tlm_coll_summarize(res->inst, res->n_inst, 1, NULL, &s1,
                                        &n1, NULL),
                     TLM_OK);
    for (size_t i = 0; i < res->n_inst; i++)
        inst[i] = res->inst[res->n_inst - 1 - i];
    assert_int_equal(tlm_coll_summarize(inst, res->n_inst, 1, NULL, &s2, &n2,
                                        NULL),
                     TLM_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(s1, s2, n1 * sizeof *s1);
    tlm_coll_free(NULL, s1);
    tlm_coll_free(NULL, s2);
    tlm_coll_free(NULL, all);
    free(cat);
    free(inst);
    free(mem);
}

/* Straggler rows and the summary of the job's instances. */
static tlm_status summary_all(const tlm_alloc *a, const void *ctx)
{
    const tlm_coll_match_result *res = ctx;
    tlm_coll_straggler_row *sr = NULL;
    tlm_coll_summary_row *su = NULL;
    size_t nsr = 0, nsu = 0;
    tlm_status st = tlm_coll_straggler_compute(res->inst, res->n_inst,
                                               res->mem, res->n_mem, a, &sr,
                                               &nsr, NULL);
    if (st == TLM_OK)
        st = tlm_coll_summarize(res->inst, res->n_inst, 0, a, &su, &nsu,
                                NULL);
    if (st == TLM_OK)
        assert_true(nsr == 2 * TC_JOB_R && nsu == 2);
    tlm_coll_free(a, sr);
    tlm_coll_free(a, su);
    return st;
}

/* One rule for flagged instances: incomplete, mismatched and
 * latency-suspect instances are set aside (counted by reason, in no
 * statistic); include_incomplete = 1 uses them all. */
static void test_set_aside(void **state)
{
    (void)state;
    const uint32_t fl[5] = {0, TLM_COLL_INST_INCOMPLETE,
                            TLM_COLL_INST_SIG_MISMATCH |
                                TLM_COLL_INST_LATENCY_SUSPECT,
                            TLM_COLL_INST_LATENCY_SUSPECT,
                            TLM_COLL_INST_OVERFULL |
                                TLM_COLL_INST_LATENCY_SUSPECT};
    tlm_coll_instance in[5];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 5; i++) {
        in[i].match_key = in[i].pg_hash = 42;
        in[i].seq = i;
        in[i].coll = TLM_COLL_ALLREDUCE;
        in[i].bytes = 4096;
        in[i].flags = fl[i];
        in[i].comm_latency_ns = i ? 1000000 : 100;
        in[i].busbw_gbps = i ? 0.001 : 61.44;
        in[i].algbw_gbps = i ? 0.001 : 40.96;
        in[i].start_skew_corr_ns = i ? 999999 : 5;
        snprintf(in[i].pg_name, sizeof in[i].pg_name, "0");
    }
    assert_int_equal(tlm_coll_inst_aside(fl[2]), TLM_COLL_ASIDE_MISMATCH);
    assert_int_equal(tlm_coll_inst_aside(fl[4]), TLM_COLL_ASIDE_INCOMPLETE);
    assert_int_equal(tlm_coll_inst_aside(fl[3]), TLM_COLL_ASIDE_SUSPECT);
    assert_string_equal(tlm_coll_aside_name(TLM_COLL_ASIDE_SUSPECT),
                        "latency_suspect");
    tlm_coll_summary_row *su = NULL;
    size_t nsu = 0;
    assert_int_equal(tlm_coll_summarize(in, 5, 0, NULL, &su, &nsu, NULL),
                     TLM_OK);
    assert_int_equal(nsu, 1);
    assert_int_equal(su[0].count, 1);
    assert_int_equal(su[0].n_incomplete, 2);
    assert_int_equal(su[0].n_mismatch, 1);
    assert_int_equal(su[0].n_suspect, 1);
    assert_int_equal(su[0].total_latency_ns, 100);
    assert_double_equal(su[0].busbw_gbps.max, 61.44, 1e-12);
    assert_double_equal(su[0].start_skew_corr_ns.p95, 5.0, 1e-12);
    tlm_coll_free(NULL, su);
    assert_int_equal(tlm_coll_summarize(in, 5, 1, NULL, &su, &nsu, NULL),
                     TLM_OK);
    assert_int_equal(su[0].count, 5);
    assert_int_equal(su[0].n_suspect, 1); /* still said */
    tlm_coll_free(NULL, su);
    /* every instance set aside: a row, counted, no figure */
    assert_int_equal(tlm_coll_summarize(in + 1, 4, 0, NULL, &su, &nsu, NULL),
                     TLM_OK);
    assert_int_equal(su[0].count, 0);
    assert_true(isnan(su[0].latency_ns.mean) && isnan(su[0].busbw_gbps.mean));
    tlm_coll_free(NULL, su);
}

static void test_alloc_failures(void **state)
{
    const tlm_coll_match_result *res = &((const job *)*state)->res;
    assert_true(tc_alloc_torture(summary_all, res) >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector),
        cmocka_unit_test(test_set_aside),
        cmocka_unit_test_setup_teardown(test_job_stragglers, job_setup,
                                        job_teardown),
        cmocka_unit_test_setup_teardown(test_job_summary, job_setup,
                                        job_teardown),
        cmocka_unit_test_setup_teardown(test_merge_and_order, job_setup,
                                        job_teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, job_setup,
                                        job_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
