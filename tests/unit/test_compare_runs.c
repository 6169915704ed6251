/*
 * mpi_test_compare_runs.c - the joins and findings of `tlmpi compare
 * A.h5 B.h5` (compare_runs_join.c, _sum.c, _find.c) on hand-made runs:
 * the collective key (group role, size<N> without pg_desc, groups of one
 * key summed), only_a / only_b rows, diff and pct (NaN when A is 0),
 * impacts per step, the findings R1, R2, R6; and comparison.h5 written
 * and read back through the same reader's checks (kind refused).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compare_runs.h"

static void sum_row(tlm_row_summary *s, const char *pg, const char *desc,
                    int32_t gsize, int64_t count, double lat, double bw)
{
    memset(s, 0, sizeof *s);
    snprintf(s->pg_name, sizeof s->pg_name, "%s", pg);
    snprintf(s->pg_desc, sizeof s->pg_desc, "%s", desc);
    snprintf(s->coll, sizeof s->coll, "allreduce");
    snprintf(s->dtype, sizeof s->dtype, "Float");
    s->bytes = 1 << 20;
    s->group_size = gsize;
    s->count = count;
    s->total_latency_ns = (int64_t)(lat * (double)count);
    s->latency_ns_mean = lat;
    s->busbw_gbps_mean = bw;
    s->algbw_gbps_mean = bw / 2;
    s->pg_hash = (uint64_t)pg[0];
}

typedef struct fake {
    tlm_row_summary sum[3];
    tlm_row_instance inst[2];
    tlm_row_straggler strag[2];
    tlm_row_op_merged ops[2];
    tlm_row_step_sum steps[2];
    tlm_row_timeline tl[2];
} fake;

/* A: two TP groups (4 calls each, 100 us, 200 GB/s), a group without
 * pg_desc of size 2 (A only); op "mm" 1 ms per rank over 2 steps.
 * B: one TP group (8 calls, 150 us, 100 GB/s) with a 50 us wait per
 * member; op "mm" the same, op "new" only in B; rank 1 the straggler. */
static void make(fake *f, tlm_cr_run *r, int b)
{
    memset(f, 0, sizeof *f);
    memset(r, 0, sizeof *r);
    r->path = b ? "b.h5" : "a.h5";
    r->name = b ? "B" : "A";
    r->world_size = r->n_traces = 2;
    r->straggler_rank = b ? 1 : -1;
    r->straggler_wait_ns = b ? 50000 : 0;
    if (!b) {
        sum_row(&f->sum[0], "1", "TP", 2, 4, 100000, 200);
        sum_row(&f->sum[1], "2", "TP", 2, 4, 100000, 200);
        sum_row(&f->sum[2], "3", "", 2, 2, 10000, 0);
        r->n_sum = 3;
    } else {
        sum_row(&f->sum[0], "7", "TP", 2, 8, 150000, 100);
        r->n_sum = 1;
        memset(&f->inst[0], 0, sizeof f->inst[0]);
        snprintf(f->inst[0].coll, sizeof f->inst[0].coll, "allreduce");
        snprintf(f->inst[0].pg_desc, sizeof f->inst[0].pg_desc, "TP");
        snprintf(f->inst[0].dtype, sizeof f->inst[0].dtype, "Float");
        f->inst[0].bytes = 1 << 20;
        f->inst[0].group_size = 2;
        f->inst[0].n_members = 2;
        f->inst[0].wait_sum_corr_ns = 100000;
        f->inst[0].last_rank_corr = 1;
        f->inst[0].n_last_corr = 1;
        r->n_inst = 1;
    }
    r->sum = f->sum;
    r->inst = f->inst;
    for (int i = 0; i < 2; i++) {
        f->strag[i].trace_rank = i;
        f->strag[i].overall = 1;
        f->strag[i].n_instances = 8;
        f->strag[i].wait_caused_corr_ns = b && i == 1 ? 400000 : 0;
        f->steps[i].step = i + 1;
        f->steps[i].dur_max_ns = b ? 3000000 : 2000000;
        f->steps[i].dur_median_ns = (double)f->steps[i].dur_max_ns;
        f->tl[i].trace_rank = i;
        f->tl[i].total_ns = 4000000;
    }
    r->strag = f->strag;
    r->n_strag = 2;
    r->steps = f->steps;
    r->n_steps = 2;
    r->tl = f->tl;
    r->n_tl = 2;
    snprintf(f->ops[0].name, sizeof f->ops[0].name, "mm");
    f->ops[0].n_ranks = 2;
    f->ops[0].count = 8;
    f->ops[0].mean_rank_ns = 1000000;
    f->ops[0].max_rank_ns = 1000000;
    snprintf(f->ops[1].name, sizeof f->ops[1].name, "new");
    f->ops[1].n_ranks = 2;
    f->ops[1].count = 2;
    f->ops[1].mean_rank_ns = 200000;
    r->ops = f->ops;
    r->n_ops = b ? 2 : 1;
}

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

static void test_h5_roundtrip(void **state)
{
    (void)state;
    fake fa, fb;
    tlm_cr_run a, b, back;
    make(&fa, &a, 0);
    make(&fb, &b, 1);
    tlm_cr_opts o = {1.0, 10};
    tlm_cr_result res;
    tlm_error err;
    assert_int_equal(tlm_cr_compare(&a, &b, &o, &res, &err), TLM_OK);
    char path[] = "/tmp/tlm_cr_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tlm_cr_write_h5(path, &a, &b, &res, &err), TLM_OK);
    /* a comparison is not a run */
    assert_int_not_equal(tlm_cr_read(&back, path, "x", &err), TLM_OK);
    assert_non_null(strstr(err.msg, "attribute 'kind' is 'comparison'"));
    assert_non_null(strstr(err.file, "tlm_cr_"));
    /* not HDF5 */
    FILE *f = fopen(path, "w");
    fputs("text", f);
    fclose(f);
    assert_int_not_equal(tlm_cr_read(&back, path, "x", &err), TLM_OK);
    assert_non_null(strstr(err.msg, "not an HDF5 file"));
    unlink(path);
    tlm_cr_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pct),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_h5_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
