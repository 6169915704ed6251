/*
 * test_audit.c - the parts of `tlmpi audit` without MPI (src/audit):
 * grouping traces into runs (audit_runs.c: folders, per-rank subfolders,
 * parts of one world size, --run_depth, a file twice, a file in two runs,
 * mixed world sizes), a run's row from hand-made results (audit_rows.c:
 * latency-weighted bus bandwidth, skew, step median, straggler cost, the
 * signature rows), the cross-run tables (audit_scale.c: base run,
 * efficiencies, stand-out bits, stragglers over runs, the baseline
 * comparison) and the command line (audit_opts.c).
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

#include "audit.h"

/* ---- grouping */

typedef struct tr_def {
    const char *rel;
    int64_t world;
    uint64_t ino;
} tr_def;

static void plan_of(tlm_audit_plan *p, const tr_def *d, size_t n)
{
    memset(p, 0, sizeof *p);
    p->tr = calloc(n, sizeof *p->tr);
    assert_non_null(p->tr);
    p->n_tr = p->cap_tr = n;
    for (size_t i = 0; i < n; i++) {
        p->tr[i].rel = strdup(d[i].rel);
        p->tr[i].dist_world = d[i].world;
        p->tr[i].dist_rank = -1;
        p->tr[i].dev = 1;
        p->tr[i].ino = d[i].ino ? d[i].ino : 1000 + i;
    }
}

static const tlm_audit_run *find_run(const tlm_audit_plan *p, const char *rel)
{
    for (size_t i = 0; i < p->n_run; i++)
        if (!strcmp(p->run[i].rel, rel))
            return &p->run[i];
    return NULL;
}

static void test_group_folders(void **state)
{
    (void)state;
    /* traces sorted by path, as the walk leaves them */
    const tr_def d[] = {
        {"llama/n4/rank0_trace.json", 4, 0}, {"llama/n4/rank1_trace.json", 4, 0},
        {"llama/n4/rank2_trace.json", 4, 0}, {"llama/n4/rank3_trace.json", 4, 0},
        {"llama/n8/a.json", 8, 0},           {"llama/n8/b.json", 8, 0},
        {"moe/perrank/rank0/trace.json", -1, 0},
        {"moe/perrank/rank1/trace.json", -1, 0},
        {"nodes/node0/r0.json", 4, 0},       {"nodes/node0/r1.json", 4, 0},
        {"nodes/node1/r2.json", 4, 0},       {"nodes/node1/r3.json", 4, 0},
        {"top.json", 1, 0},
    };
    tlm_audit_plan p;
    plan_of(&p, d, sizeof d / sizeof d[0]);
    tlm_error err;
    assert_int_equal(tlm_audit_group(&p, 0, &err), TLM_OK);
    assert_int_equal(p.n_run, 5);
    const char *want[] = {".", "llama/n4", "llama/n8", "moe/perrank", "nodes"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(p.run[i].rel, want[i]);
    assert_string_equal(find_run(&p, "llama/n4")->job, "llama");
    assert_string_equal(find_run(&p, ".")->job, ".");
    /* a run directly under the root is its own job */
    assert_string_equal(find_run(&p, "nodes")->job, "nodes");
    assert_int_equal(find_run(&p, "moe/perrank")->n_tr, 2);
    assert_int_equal(find_run(&p, "nodes")->n_tr, 4);
    assert_int_equal(find_run(&p, "llama/n4")->n_tr, 4);
    /* n4 and n8 are complete, differently named runs: never merged */
    assert_non_null(find_run(&p, "llama/n8"));
    assert_non_null(strstr(p.notes, "moe/perrank"));
    assert_non_null(strstr(p.notes, "nodes"));
    tlm_audit_plan_free(&p);
}

static void test_group_depth_and_files(void **state)
{
    (void)state;
    const tr_def d[] = {
        {"a/x/r0.json", -1, 0}, {"a/y/r1.json", -1, 0},
        {"b/r0.json", 2, 7},    {"b/r0_link.json", 2, 7},
        {"b/r1.json", 2, 0},    {"c/r0.json", 2, 0},
        {"c/r1.json", 4, 0},    {"d/same.json", 2, 8},
        {"e/also.json", 2, 8},
    };
    tlm_audit_plan p;
    plan_of(&p, d, sizeof d / sizeof d[0]);
    tlm_error err;
    assert_int_equal(tlm_audit_group(&p, 1, &err), TLM_OK);
    assert_int_equal(p.n_run, 5);
    assert_int_equal(find_run(&p, "a")->n_tr, 2);
    /* the same file twice in a run: read once, said */
    const tlm_audit_run *b = find_run(&p, "b");
    assert_int_equal(b->n_tr, 2);
    assert_non_null(strstr(b->reason, "same file"));
    assert_int_equal(b->prefail, 0);
    /* mixed world sizes fail the run, naming both files */
    const tlm_audit_run *c = find_run(&p, "c");
    assert_int_equal(c->prefail, 1);
    assert_non_null(strstr(c->reason, "c/r0.json"));
    assert_non_null(strstr(c->reason, "c/r1.json"));
    /* one file in two runs: both say so */
    assert_non_null(strstr(find_run(&p, "d")->reason, "also in run e"));
    assert_non_null(strstr(find_run(&p, "e")->reason, "also in run d"));
    tlm_audit_plan_free(&p);
}

static void test_group_unreadable(void **state)
{
    (void)state;
    const tr_def d[] = {{"a/r0.json", 2, 0}, {"b/r0.json", 2, 0}};
    tlm_audit_plan p;
    plan_of(&p, d, 2);
    p.skip = calloc(3, sizeof *p.skip);
    p.n_skip = p.cap_skip = 3;
    tlm_strset(p.skip[0].path, sizeof p.skip[0].path, "a/r1.json");
    tlm_strset(p.skip[0].reason, sizeof p.skip[0].reason,
                   "not readable: Permission denied");
    tlm_strset(p.skip[1].path, sizeof p.skip[1].path, "b/notes.md");
    tlm_strset(p.skip[1].reason, sizeof p.skip[1].reason,
                   "no traceEvents");
    tlm_strset(p.skip[2].path, sizeof p.skip[2].path, "ab/x");
    tlm_strset(p.skip[2].reason, sizeof p.skip[2].reason,
                   "folder not readable: Permission denied");
    tlm_error err;
    assert_int_equal(tlm_audit_group(&p, 0, &err), TLM_OK);
    assert_non_null(strstr(find_run(&p, "a")->reason,
                           "a/r1.json not readable: Permission denied"));
    /* a non-trace is no problem of its run; "ab/x" is not under "a" */
    assert_string_equal(find_run(&p, "b")->reason, "");
    assert_null(strstr(find_run(&p, "a")->reason, "ab/x"));
    tlm_audit_plan_free(&p);
}

/* ---- rows */

static tlm_coll_instance inst(int coll, int64_t bytes, int64_t lat,
                              double busbw, int64_t skew, uint32_t flags)
{
    tlm_coll_instance in;
    memset(&in, 0, sizeof in);
    in.coll = (uint8_t)coll;
    in.bytes = bytes;
    in.comm_latency_ns = lat;
    in.busbw_gbps = busbw;
    in.algbw_gbps = busbw / 2;
    in.start_skew_corr_ns = skew;
    in.flags = flags;
    in.n_members = 4;
    in.group_size = 4;
    snprintf(in.pg_desc, sizeof in.pg_desc, "dp");
    snprintf(in.dtype_name, sizeof in.dtype_name, "BFloat16");
    return in;
}

static void fill_results(tlm_out_results *r, tlm_coll_instance *in,
                         size_t n_in, tlm_row_step_sum *ss, size_t n_ss,
                         tlm_row_timeline *tl, tlm_row_trace *tr,
                         tlm_coll_straggler_row *sg, size_t n_sg)
{
    memset(r, 0, sizeof *r);
    r->world_size = 4;
    r->inst = in;
    r->n_inst = n_in;
    r->step_sum = ss;
    r->n_step_sum = n_ss;
    r->timeline = tl;
    r->traces = tr;
    r->n_traces = 2;
    r->strag = sg;
    r->n_strag = n_sg;
}

static void test_run_row(void **state)
{
    (void)state;
    tlm_coll_instance in[] = {
        inst(TLM_COLL_ALLREDUCE, 1000, 100, 10.0, 50, 0),
        inst(TLM_COLL_ALLREDUCE, 1000, 300, 2.0, 70, 0),
        /* incomplete: counted, not used */
        inst(TLM_COLL_ALLREDUCE, 1000, 100, 99.0, 9999,
             TLM_COLL_INST_INCOMPLETE),
        inst(TLM_COLL_SEND, 64, 10, 5.0, 0, TLM_COLL_INST_P2P),
        /* latency-suspect: set aside as report.md and /collectives/summary
         * do, counted */
        inst(TLM_COLL_ALLREDUCE, 1000, 900, 0.5, 8888,
             TLM_COLL_INST_LATENCY_SUSPECT),
    };
    tlm_row_step_sum ss[4];
    memset(ss, 0, sizeof ss);
    int64_t dur[] = {40, 10, 30, 20};
    for (int i = 0; i < 4; i++) {
        ss[i].dur_max_ns = dur[i];
        ss[i].exposed_comm_max_ns = 5;
    }
    tlm_row_timeline tl[2];
    memset(tl, 0, sizeof tl);
    tl[0].total_ns = 1000;
    tl[1].total_ns = 1001;
    tl[0].exposed_comm_ns = 10;
    tl[1].total_comm_ns = 30;
    tlm_row_trace tr[2];
    memset(tr, 0, sizeof tr);
    tr[1].clock_offset_ns = -250;
    tlm_coll_straggler_row sg[2];
    memset(sg, 0, sizeof sg);
    sg[0].overall = sg[1].overall = 1;
    sg[0].trace_rank = 0;
    sg[1].trace_rank = 1;
    sg[1].wait_caused_corr_ns = 800000;
    sg[1].n_instances = 4;
    tlm_out_results r;
    fill_results(&r, in, 5, ss, 4, tl, tr, sg, 2);
    tlm_audit_acc acc;
    memset(&acc, 0, sizeof acc);
    acc.n_runs = 1;
    acc.runs = calloc(1, sizeof *acc.runs);
    tlm_audit_row_init(&acc.runs[0], 0, "j/n4", "j");
    assert_int_equal(tlm_audit_add_results(&acc, 0, &r, 50.0), TLM_OK);
    const tlm_arow_run *w = &acc.runs[0];
    /* latency-weighted: (10*100 + 2*300) / 400 */
    assert_true(fabs(w->busbw_allreduce_gbps - 4.0) < 1e-12);
    assert_true(fabs(w->busbw_p2p_gbps - 5.0) < 1e-12);
    assert_true(isnan(w->busbw_allgather_gbps));
    assert_int_equal(w->instances, 5);
    assert_int_equal(w->incomplete, 1);
    assert_int_equal(w->latency_suspect, 1);
    assert_int_equal(w->mismatch, 0);
    assert_int_equal(w->max_start_skew_ns, 70);
    assert_int_equal(w->p95_start_skew_ns, 70);
    /* median of 10 20 30 40 */
    assert_int_equal(w->step_time_ns, 25);
    assert_int_equal(w->n_steps, 4);
    assert_true(fabs(w->comm_share - 20.0 / 100.0) < 1e-12);
    assert_int_equal(w->gpu_total_ns, 1000);
    assert_int_equal(w->exposed_comm_ns, 5);
    assert_int_equal(w->comm_ns, 15);
    assert_int_equal(w->clock_offset_max_ns, 250);
    /* 800 us caused over 4 collectives: 200 us each, over 50 us */
    assert_int_equal(w->straggler_rank, 1);
    assert_int_equal(w->straggler_wait_ns, 200000);
    assert_int_equal(w->straggler_cost_ns, 800000);
    /* signatures: allreduce 1000 B, send 64 B */
    assert_int_equal(acc.n_colls, 2);
    assert_string_equal(acc.colls[0].coll, "allreduce");
    assert_int_equal(acc.colls[0].count, 2);
    assert_int_equal(acc.colls[0].n_incomplete, 1);
    assert_int_equal(acc.colls[0].n_suspect, 1);
    assert_int_equal(acc.colls[0].latency_median_ns, 200);
    assert_true(fabs(acc.colls[0].time_share - 400.0 / 410.0) < 1e-12);
    assert_int_equal(acc.n_sr, 2);
    tlm_audit_acc_free(&acc);
}

/* ---- cross-run tables */

static void ok_row(tlm_arow_run *row, int32_t i, const char *run,
                   const char *job, int64_t w, int64_t step)
{
    tlm_audit_row_init(row, i, run, job);
    tlm_strset(row->status, sizeof row->status, "ok");
    row->world_size = w;
    row->step_time_ns = step;
    row->comm_share = 0.1 * (double)w / 4;
    row->instances = 100;
    row->incomplete = 0;
}

static void test_finish(void **state)
{
    (void)state;
    tlm_audit_acc acc;
    memset(&acc, 0, sizeof acc);
    acc.n_runs = 4;
    acc.runs = calloc(4, sizeof *acc.runs);
    ok_row(&acc.runs[0], 0, "j/n4", "j", 4, 100);
    ok_row(&acc.runs[1], 1, "j/n8", "j", 8, 125);
    ok_row(&acc.runs[2], 2, "j/n8b", "j", 8, 200);
    tlm_audit_row_init(&acc.runs[3], 3, "k/bad", "k");
    acc.runs[1].straggler_rank = 3;
    acc.sr = calloc(2, sizeof *acc.sr);
    acc.n_sr = acc.cap_sr = 2;
    acc.sr[0] = (tlm_audit_srank){1, 3, 1, 1, 9000, 3};
    acc.sr[1] = (tlm_audit_srank){2, 3, 0, 1, 1000, 2};
    tlm_audit_opts o;
    memset(&o, 0, sizeof o);
    o.min_efficiency = 0.8;
    o.bw_drop_pct = 20;
    o.a.step_outlier_pct = 20;
    assert_int_equal(tlm_audit_finish(&acc, &o), TLM_OK);
    assert_int_equal(acc.n_jobs, 3); /* the failed run has none */
    const tlm_arow_job *n8 = &acc.jobs[1];
    assert_string_equal(n8->run, "j/n8");
    assert_string_equal(n8->base_run, "j/n4");
    assert_true(fabs(n8->eff_weak - 0.8) < 1e-12);
    assert_true(fabs(n8->eff_strong - 0.4) < 1e-12);
    assert_true(n8->stands_out & TLM_AUDIT_OUT_STRAGGLER);
    assert_false(n8->stands_out & TLM_AUDIT_OUT_EFFICIENCY);
    /* 200 against the median 162.5 of its size: over 20% */
    assert_true(acc.jobs[2].stands_out & TLM_AUDIT_OUT_SLOW);
    assert_true(acc.jobs[2].stands_out & TLM_AUDIT_OUT_EFFICIENCY);
    assert_int_equal(acc.jobs[0].stands_out, 0);
    /* rank 3 of job j: named once in 3 runs, top twice */
    assert_int_equal(acc.n_strag, 1);
    assert_int_equal(acc.strag[0].runs, 3);
    assert_int_equal(acc.strag[0].runs_named, 1);
    assert_int_equal(acc.strag[0].runs_top, 2);
    assert_int_equal(acc.strag[0].wait_caused_ns, 10000);
    assert_int_equal(acc.strag[0].wait_per_coll_ns, 2000);
    assert_int_equal(acc.n_cmp, 0);
    free(acc.jobs);
    free(acc.strag);
    acc.jobs = NULL;
    acc.strag = NULL;
    acc.n_jobs = acc.n_strag = 0;
    /* --baseline: every other ok run compared with it, 11 metrics each */
    o.baseline = "j/n8";
    assert_int_equal(tlm_audit_finish(&acc, &o), TLM_OK);
    assert_int_equal(acc.n_cmp, 2 * 11);
    assert_string_equal(acc.cmp[0].run, "j/n4");
    assert_string_equal(acc.cmp[0].metric, "step_time_ns");
    assert_true(acc.cmp[0].baseline == 125 && acc.cmp[0].value == 100);
    assert_true(fabs(acc.cmp[0].ratio - 0.8) < 1e-12);
    assert_string_equal(acc.jobs[0].base_run, "j/n8");
    tlm_audit_acc_free(&acc);
}

/* The job of a run folder: its parent, or itself directly under the
 * root. */
static void test_job_of(void **state)
{
    (void)state;
    static const char *const t[][2] = {
        {".", "."},          {"megatron", "megatron"}, {"dlrm", "dlrm"},
        {"llama/n8", "llama"}, {"a/b/c", "a/b"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char *j = tlm_audit_job_of(t[i][0]);
        assert_non_null(j);
        assert_string_equal(j, t[i][1]);
        free(j);
    }
}

/* A signature: the collective set and ops (hash, share). */
static void sig_of(tlm_audit_sig *s, const char *coll, size_t n,
                   const uint64_t *h, const double *share)
{
    memset(s, 0, sizeof *s);
    s->set = 1;
    snprintf(s->coll, sizeof s->coll, "%s", coll);
    s->n_ops = n;
    for (size_t i = 0; i < n; i++) {
        s->op_hash[i] = h[i];
        s->op_share[i] = share[i];
    }
}

/* Signatures agree on the same collective set and ops that make 80 % of
 * both runs' kernel time; anything else is another series. */
static void test_sig_match(void **state)
{
    (void)state;
    const uint64_t h[] = {1, 2, 3, 4};
    const double sh[] = {0.5, 0.3, 0.15, 0.05};
    tlm_audit_sig a, b;
    char why[128];
    sig_of(&a, "allreduce/BFloat16", 4, h, sh);
    sig_of(&b, "allreduce/BFloat16", 4, h, sh);
    assert_true(tlm_audit_sig_match(&a, &b, why, sizeof why));
    assert_string_equal(why, "");
    /* other collectives: never one series */
    sig_of(&b, "allreduce/Float alltoall/Float", 4, h, sh);
    assert_false(tlm_audit_sig_match(&a, &b, why, sizeof why));
    assert_string_equal(why, "collectives differ");
    /* b lacks op 4 (5 % of a's time): still one series */
    sig_of(&b, "allreduce/BFloat16", 3, h, sh);
    assert_true(tlm_audit_sig_match(&a, &b, NULL, 0));
    /* b lacks ops 3 and 4 and has another: 80 % of a, 80 % of b */
    const uint64_t h2[] = {1, 2, 9};
    const double sh2[] = {0.5, 0.3, 0.2};
    sig_of(&b, "allreduce/BFloat16", 3, h2, sh2);
    assert_true(tlm_audit_sig_match(&a, &b, NULL, 0));
    /* ... with op 2 missing too: 50 % in common */
    const uint64_t h3[] = {1, 8, 9};
    sig_of(&b, "allreduce/BFloat16", 3, h3, sh2);
    assert_false(tlm_audit_sig_match(&a, &b, why, sizeof why));
    assert_non_null(strstr(why, "ops differ"));
    /* a run without results matches nothing */
    b.set = 0;
    assert_false(tlm_audit_sig_match(&a, &b, NULL, 0));
}

/* Runs of one job folder with different signatures are different series:
 * each its own base, its stragglers its own; a series' run faster than
 * ideal is flagged, not ranked. */
static void test_series(void **state)
{
    (void)state;
    tlm_audit_acc acc;
    memset(&acc, 0, sizeof acc);
    acc.n_runs = 5;
    acc.runs = calloc(5, sizeof *acc.runs);
    acc.sig = calloc(5, sizeof *acc.sig);
    ok_row(&acc.runs[0], 0, "dlrm", "dlrm", 8, 20);
    ok_row(&acc.runs[1], 1, "train/dlrm", "train", 8, 20);
    ok_row(&acc.runs[2], 2, "train/mega16", "train", 16, 10);
    ok_row(&acc.runs[3], 3, "train/mega4", "train", 4, 50);
    ok_row(&acc.runs[4], 4, "train/mega8", "train", 8, 600);
    const uint64_t h[] = {1, 2};
    const double sh[] = {0.6, 0.4};
    sig_of(&acc.sig[0], "allreduce/Float alltoall/Float", 2, h, sh);
    sig_of(&acc.sig[1], "allreduce/Float alltoall/Float", 2, h, sh);
    for (int i = 2; i < 5; i++)
        sig_of(&acc.sig[i], "allreduce/BFloat16", 2, h, sh);
    /* rank 3 late in train/dlrm and in train/mega8: not one row */
    acc.sr = calloc(2, sizeof *acc.sr);
    acc.n_sr = acc.cap_sr = 2;
    acc.sr[0] = (tlm_audit_srank){1, 3, 1, 1, 9000, 3};
    acc.sr[1] = (tlm_audit_srank){4, 3, 1, 1, 1000, 2};
    tlm_audit_opts o;
    memset(&o, 0, sizeof o);
    o.min_efficiency = 0.8;
    o.bw_drop_pct = 20;
    o.a.step_outlier_pct = 20;
    assert_int_equal(tlm_audit_finish(&acc, &o), TLM_OK);
    /* series heads: the smallest run of each */
    const int32_t want[] = {0, 1, 3, 3, 3};
    for (int i = 0; i < 5; i++)
        assert_int_equal(acc.series[i], want[i]);
    assert_int_equal(acc.n_jobs, 5);
    for (size_t i = 0; i < acc.n_jobs; i++) {
        const tlm_arow_job *j = &acc.jobs[i];
        if (!strcmp(j->run, "train/dlrm")) {
            /* against no run of the other series: its own base */
            assert_string_equal(j->series, "train/dlrm");
            assert_string_equal(j->base_run, "train/dlrm");
            assert_true(j->eff_weak == 1.0);
            /* 20 against 600 of the same size, other series: not slow */
            assert_false(j->stands_out & TLM_AUDIT_OUT_SLOW);
        } else if (!strcmp(j->run, "train/mega16")) {
            /* 50 -> 10 at 4x the ranks: strong 1.25, weak 5: flagged */
            assert_string_equal(j->base_run, "train/mega4");
            assert_true(j->stands_out & TLM_AUDIT_OUT_ABOVE_ONE);
            assert_false(j->stands_out & TLM_AUDIT_OUT_EFFICIENCY);
        } else if (!strcmp(j->run, "train/mega8")) {
            assert_string_equal(j->series, "train/mega4");
            assert_true(j->stands_out & TLM_AUDIT_OUT_EFFICIENCY);
            assert_false(j->stands_out & TLM_AUDIT_OUT_ABOVE_ONE);
        }
    }
    /* the job order: job, series, world size */
    assert_string_equal(acc.jobs[0].run, "dlrm");
    assert_string_equal(acc.jobs[1].run, "train/dlrm");
    assert_string_equal(acc.jobs[2].run, "train/mega4");
    assert_int_equal(acc.n_strag, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(acc.strag[i].runs_named, 1);
        assert_int_equal(acc.strag[i].runs,
                         !strcmp(acc.strag[i].series, "train/dlrm") ? 1 : 3);
    }
    /* --baseline of another series: not the base of this one */
    free(acc.jobs);
    free(acc.strag);
    acc.jobs = NULL;
    acc.strag = NULL;
    acc.n_jobs = acc.n_strag = 0;
    o.baseline = "train/dlrm";
    assert_int_equal(tlm_audit_finish(&acc, &o), TLM_OK);
    for (size_t i = 0; i < acc.n_jobs; i++)
        if (!strcmp(acc.jobs[i].run, "train/mega8"))
            assert_string_equal(acc.jobs[i].base_run, "train/mega4");
    tlm_audit_acc_free(&acc);
}

/* ---- command line */

static tlm_status parse(const char *line, tlm_audit_opts *o, tlm_error *err)
{
    static char buf[512];
    static char *argv[32];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    return tlm_audit_opts_parse(argc, argv, o, err);
}

static void test_opts(void **state)
{
    (void)state;
    tlm_audit_opts o;
    tlm_error err;
    assert_int_equal(parse("audit R --output_dir D --baseline x/y "
                           "--run_depth 2 --allow_missing_ranks --force "
                           "--min_efficiency=0.5 --steps 2-3",
                           &o, &err),
                     TLM_OK);
    assert_string_equal(o.a.files[0], "R");
    assert_string_equal(o.a.output_dir, "D");
    assert_string_equal(o.baseline, "x/y");
    assert_int_equal(o.run_depth, 2);
    assert_int_equal(o.a.allow_missing, 1);
    assert_int_equal(o.a.force, 1);
    assert_true(o.min_efficiency == 0.5);
    assert_true(o.bw_drop_pct == TLM_AUDIT_BW_DROP_DEFAULT);
    assert_string_equal(o.a.steps, "2-3");
    const char *bad[] = {
        "audit --output_dir D",            /* no root */
        "audit R",                         /* no output folder */
        "audit R S --output_dir D",        /* two roots */
        "audit R --output_dir D --trace_dir X",
        "audit R --output_dir D --world_size 8",
        "audit R --output_dir D --run_depth 0",
        "audit R --output_dir D --min_efficiency x",
        "audit R --output_dir D --no_such_option",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], &o, &err), TLM_EINVAL);
    assert_int_equal(parse("audit --help", &o, &err), TLM_OK);
    assert_int_equal(o.a.help, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_folders),
        cmocka_unit_test(test_group_depth_and_files),
        cmocka_unit_test(test_group_unreadable),
        cmocka_unit_test(test_run_row),
        cmocka_unit_test(test_finish),
        cmocka_unit_test(test_job_of),
        cmocka_unit_test(test_sig_match),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_opts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
