/*
 * test_compare_runs.c - the joins and findings of `tlmpi compare
 * A.h5 B.h5` (src/runs: compare_runs_join.c, _sum.c; the rules R1-R6) on
 * hand-made runs (tlm_test_runs.h): the collective key (group role,
 * size<N> without pg_desc, groups of one key summed), only_a / only_b
 * rows, diff and pct (NaN when A is 0), impacts per step, the findings
 * R1, R2, R6.  comparison.h5 written and read back:
 * mpi_test_compare_runs.c.
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

#include "compare_runs.h"
#include "tlm_test_runs.h"

static const tlm_cr_coll *coll(const tlm_cr_result *res, const char *group)
{
    for (size_t i = 0; i < res->n_colls; i++)
        if (!strcmp(res->colls[i].group, group))
            return &res->colls[i];
    return NULL;
}

static void test_pct(void **state)
{
    (void)state;
    assert_true(tlm_cr_diff(2, 3) == 1);
    assert_true(tlm_cr_pct(2, 3) == 50);
    assert_true(isnan(tlm_cr_pct(0, 3)));
    assert_true(isnan(tlm_cr_pct(NAN, 3)));
    assert_true(isnan(tlm_cr_diff(2, NAN)));
}

static void test_join(void **state)
{
    (void)state;
    fake fa, fb;
    tlm_cr_run a, b;
    make(&fa, &a, 0);
    make(&fb, &b, 1);
    tlm_cr_opts o = {1.0, 10};
    tlm_cr_result res;
    tlm_error err;
    assert_int_equal(tlm_cr_compare(&a, &b, &o, &res, &err), TLM_OK);
    assert_int_equal(res.per_step, 1);
    assert_int_equal(res.n_colls, 2);
    const tlm_cr_coll *tp = coll(&res, "TP");
    assert_non_null(tp);
    assert_string_equal(tp->status, "both");
    assert_int_equal(tp->n_groups_a, 2);
    assert_int_equal(tp->n_groups_b, 1);
    assert_true(tp->count_a == 8 && tp->count_b == 8);
    /* calls per member rank per step: 8 / 2 groups / 2 steps, 8 / 1 / 2 */
    assert_true(tp->calls_a == 2 && tp->calls_b == 4);
    assert_true(tp->latency_ns_a == 100000 && tp->latency_ns_b == 150000);
    assert_true(tp->latency_ns_pct == 50);
    assert_true(tp->busbw_gbps_diff == -100 && tp->busbw_gbps_pct == -50);
    assert_true(isnan(tp->wait_ns_a) && tp->wait_ns_b == 50000);
    assert_int_equal(tp->last_rank_b, 1);
    /* (150 + 50 us) x 4 - 100 us x 2 */
    assert_true(fabs(tp->impact_ns - 600000) < 1e-6);
    const tlm_cr_coll *s2 = coll(&res, "size2");
    assert_non_null(s2);
    assert_string_equal(s2->status, "only_a");
    assert_true(isnan(s2->latency_ns_b) && isnan(s2->latency_ns_pct));
    assert_true(fabs(s2->impact_ns + 10000) < 1e-6); /* 1 call per step */
    assert_ptr_equal(&res.colls[0], tp); /* by |impact| */
    /* ops: per rank per step */
    assert_int_equal(res.n_ops, 2);
    assert_string_equal(res.ops[0].name, "new");
    assert_string_equal(res.ops[0].status, "only_b");
    assert_true(res.ops[0].mean_rank_ns_b == 100000);
    assert_true(res.ops[0].impact_ns == 100000);
    assert_true(res.ops[1].mean_rank_ns_diff == 0);
    /* stragglers and summary */
    assert_int_equal(res.n_strag, 2);
    assert_int_equal(res.strag[1].named_b, 1);
    assert_int_equal(res.strag[1].named_a, 0);
    assert_true(res.strag[1].wait_caused_ns_diff == 400000);
    assert_true(isnan(res.strag[1].wait_caused_ns_pct)); /* A is 0 */
    assert_string_equal(res.sum[3].metric, "step_time_ns");
    assert_true(res.sum[3].a == 2000000 && res.sum[3].pct == 50);
    /* findings: R1 first, R6 new straggler, R2 the TP all-reduce (20 %
     * of B's 3 ms step), R4 the new op (3.3 %) */
    assert_string_equal(res.find[0].rule, "R1");
    assert_string_equal(res.find[0].id, "P1");
    int r2 = 0, r6 = 0, r4 = 0;
    for (size_t i = 0; i < res.n_find; i++) {
        const tlm_row_finding *f = &res.find[i];
        assert_string_equal(f->mode, "compare");
        if (!strcmp(f->rule, "R2")) {
            r2++;
            assert_true(fabs(f->pct_e2e - 20.0) < 1e-9);
            assert_non_null(strstr(f->text, "on TP: wait - -> 50.0 us"));
        }
        if (!strcmp(f->rule, "R6")) {
            r6++;
            assert_string_equal(f->subject, "rank 1");
            assert_non_null(strstr(f->text, "new in B"));
        }
        r4 += !strcmp(f->rule, "R4");
    }
    assert_int_equal(r2, 1);
    assert_int_equal(r6, 1);
    assert_int_equal(r4, 1);
    tlm_cr_result_free(&res);
    /* a higher threshold leaves R1 and R6 only */
    o.min_impact_pct = 50;
    assert_int_equal(tlm_cr_compare(&a, &b, &o, &res, &err), TLM_OK);
    assert_int_equal(res.n_find, 2);
    tlm_cr_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pct),
        cmocka_unit_test(test_join),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
