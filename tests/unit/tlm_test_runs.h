/*
 * tlm_test_runs.h - the two hand-made runs of the run comparison's unit
 * tests (test_compare_runs.c, mpi_test_compare_runs.c); header only,
 * include it after <cmocka.h> and compare_runs.h.
 *
 *   sum_row()  one /collectives/summary row of a run.
 *   make()     run A (b = 0) or B (b = 1), its rows in a fake.
 */
#ifndef TLM_TEST_RUNS_H
#define TLM_TEST_RUNS_H

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

#endif /* TLM_TEST_RUNS_H */
