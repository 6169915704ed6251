/*
 * test_find_runs.c - the run comparison's findings R1-R6
 * (src/find/find_runs.c) on hand-made joined rows, through the findings
 * list they share with the other rule sets: R1 first whatever its
 * severity, then severity and |impact| (an improvement "info"), the
 * straggler with an unknown impact after the known ones, --top and
 * --min_impact_pct, the ids and the mode.
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

#include "find_runs.h"

static tlm_cr_coll colls[2];
static tlm_cr_op ops[2];

/* A 10 ms step in B; a collective costing 1 ms (10 %), one saving 0.2 ms
 * (2 %), an op costing 0.3 ms (3 %), an op changing 0.01 ms (0.1 %). */
static tlm_find_runs_in input(void)
{
    memset(colls, 0, sizeof colls);
    memset(ops, 0, sizeof ops);
    const char *ck[2] = {"allreduce", "allgather"};
    double cimp[2] = {1e6, -2e5};
    for (int i = 0; i < 2; i++) {
        snprintf(colls[i].coll, sizeof colls[i].coll, "%s", ck[i]);
        snprintf(colls[i].group, sizeof colls[i].group, "TP");
        snprintf(colls[i].dtype, sizeof colls[i].dtype, "BFloat16");
        snprintf(colls[i].status, sizeof colls[i].status, "both");
        colls[i].bytes = 1 << 20;
        colls[i].impact_ns = cimp[i];
        colls[i].latency_ns_diff = cimp[i];
        colls[i].wait_ns_a = colls[i].wait_ns_b = 0;
        colls[i].last_rank_b = 1;
    }
    double oimp[2] = {3e5, 1e4};
    for (int i = 0; i < 2; i++) {
        snprintf(ops[i].name, sizeof ops[i].name, "aten::op%d", i);
        snprintf(ops[i].status, sizeof ops[i].status, "both");
        ops[i].impact_ns = oimp[i];
    }
    tlm_find_runs_in in = {0};
    in.per_step = 1;
    in.step_a = 9e6;
    in.step_b = 1e7;
    in.step_pct = 100.0 * (1e7 - 9e6) / 9e6;
    in.colls = colls;
    in.n_colls = 2;
    in.ops = ops;
    in.n_ops = 2;
    in.straggler_rank_a = in.straggler_rank_b = -1;
    in.n_traces_b = 2;
    in.n_steps_b = 3;
    return in;
}

static void test_order(void **state)
{
    (void)state;
    tlm_find_runs_in in = input();
    tlm_find_runs_opts o = {1.0, 10};
    tlm_row_finding *v = NULL;
    size_t n = 0;
    assert_int_equal(tlm_find_runs_build(&in, &o, &v, &n), TLM_OK);
    /* R1 (info) first, R2 high 10 %, R4 medium 3 %, R3 info 2 %; the
     * 0.1 % op is under the threshold */
    assert_int_equal(n, 4);
    const char *rules[4] = {"R1", "R2", "R4", "R3"};
    const char *sev[4] = {"info", "high", "medium", "info"};
    for (size_t i = 0; i < n; i++) {
        char id[8];
        snprintf(id, sizeof id, "P%zu", i + 1);
        assert_string_equal(v[i].id, id);
        assert_string_equal(v[i].rule, rules[i]);
        assert_string_equal(v[i].severity, sev[i]);
        assert_string_equal(v[i].mode, "compare");
        assert_true(isnan(v[i].eff));
        assert_true(v[i].impact_mid == v[i].pct_e2e ||
                    (isnan(v[i].impact_mid) && isnan(v[i].pct_e2e)));
    }
    assert_float_equal(v[1].pct_e2e, 10.0, 1e-9);
    assert_float_equal(v[3].pct_e2e, -2.0, 1e-9);
    assert_non_null(strstr(v[1].text, "costs 1.000 ms per rank per step"));
    free(v);
    /* --top 1: one collective, one op */
    o.top = 1;
    assert_int_equal(tlm_find_runs_build(&in, &o, &v, &n), TLM_OK);
    assert_int_equal(n, 3);
    free(v);
}

static void test_straggler_unknown_impact(void **state)
{
    (void)state;
    tlm_find_runs_in in = input();
    in.straggler_rank_b = 1; /* a new straggler, no row for it: NaN */
    in.straggler_wait_ns_b = 5000;
    in.n_colls = 1;
    in.ops = NULL;
    in.n_ops = 0;
    colls[0].impact_ns = 5e4; /* 0.5 %: low, like the NaN straggler */
    tlm_find_runs_opts o = {0.1, 10};
    tlm_row_finding *v = NULL;
    size_t n = 0;
    assert_int_equal(tlm_find_runs_build(&in, &o, &v, &n), TLM_OK);
    assert_int_equal(n, 3);
    assert_string_equal(v[0].rule, "R1");
    assert_string_equal(v[1].rule, "R2");
    assert_string_equal(v[2].rule, "R6");
    assert_string_equal(v[2].severity, "low");
    assert_true(isnan(v[2].pct_e2e));
    assert_string_equal(v[2].subject, "rank 1");
    free(v);
    /* nothing to compare: no finding, no array */
    tlm_find_runs_in none = {0};
    none.step_a = none.step_b = NAN;
    none.straggler_rank_a = none.straggler_rank_b = -1;
    assert_int_equal(tlm_find_runs_build(&none, &o, &v, &n), TLM_OK);
    assert_int_equal(n, 0);
    assert_null(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_straggler_unknown_impact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
