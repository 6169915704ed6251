/*
 * test_report0.c - rank 0's report writer (src/out/report0.c): number
 * formatting of the TraceLens CSV sheets (Python repr, as pandas writes),
 * the sheets written from hand-made results, report.md sections, and the
 * schema reference.
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

#include "report0.h"
#include "report0_out.h"

static void test_csv_number(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {20.0, "20.0"},
        {0.05, "0.05"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1e-05, "1e-05"},
        {0.00015, "0.00015"},
        {1e16, "1e+16"},
        {2.5e16, "2.5e+16"},
        {123456789.0, "123456789.0"},
        {-0.5, "-0.5"},
        {0.0, "0.0"},
        {0.19073486328125, "0.19073486328125"},
        {3.814697265625e-06, "3.814697265625e-06"},
        {1.0 / 3.0, "0.3333333333333333"},
    };
    char b[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tlm_out_csv_number(b, sizeof b, cases[i].v);
        assert_string_equal(b, cases[i].want);
    }
    tlm_out_csv_number(b, sizeof b, NAN);
    assert_string_equal(b, "");
}

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tlm_report0_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_sheets(void **state)
{
    (void)state;
    tlm_cli_opts o;
    memset(&o, 0, sizeof o);
    tlm_row_trace tr[2];
    tlm_row_timeline tl[2];
    memset(tr, 0, sizeof tr);
    memset(tl, 0, sizeof tl);
    for (int i = 0; i < 2; i++) {
        tr[i].trace_rank = i;
        tl[i].trace_rank = i;
        tl[i].total_ns = 1000000 * (i + 1);
        tl[i].exposed_comm_ns = 250000;
    }
    tlm_coll_tl_straggler_row st[2] = {
        {1, 0, 0.0, 0.0, 1, 0, 50.0, 2, 50.0},
        {0, 0, 30.0, 15.0, 1, 2, 50.0, 2, 80.5},
    };
    tlm_coll_tl_sync_row sync;
    memset(&sync, 0, sizeof sync);
    snprintf(sync.collective_id, sizeof sync.collective_id, "0_0");
    snprintf(sync.pg_name, sizeof sync.pg_name, "0");
    snprintf(sync.pg_ranks, sizeof sync.pg_ranks, "[0, 1]");
    snprintf(sync.coll_name, sizeof sync.coll_name, "allreduce");
    snprintf(sync.dtype, sizeof sync.dtype, "Float");
    sync.group_size = 2;
    sync.in_nelems = sync.out_nelems = 1024;
    sync.in_mib = sync.out_mib = sync.full_mib = 0.00390625;
    sync.comm_latency_us = 20;
    sync.skew_start_us = 30;
    sync.earliest_arrival_rank = 1;
    sync.avg_wait_us = 15;
    sync.skew_end_us = 0;
    sync.algbw_gibps = NAN;
    sync.busbw_gibps = NAN;
    sync.n_ranks = 2; /* its members: sm[0..2) (tlm_coll_tl_order) */
    sync.mem_off = 0;
    tlm_coll_tl_sync_member sm[2];
    memset(sm, 0, sizeof sm);
    for (int i = 0; i < 2; i++) {
        snprintf(sm[i].collective_id, sizeof sm[i].collective_id, "0_0");
        sm[i].rank = i;
        sm[i].ts_us = 100 + 30 * i;
        sm[i].dur_us = 50 - 30 * i;
        sm[i].wait_us = 30 - 30 * i;
    }
    tlm_out_results r;
    memset(&r, 0, sizeof r);
    r.opts = &o;
    r.h5_path = "x.h5";
    r.nprocs = 2;
    r.world_size = 2;
    r.traces = tr;
    r.timeline = tl;
    r.n_traces = 2;
    r.tl_strag = st;
    r.n_tl_strag = 2;
    r.tl_sync = &sync;
    r.n_tl_sync = 1;
    r.tl_smem = sm;
    r.n_tl_smem = 2;
    tlm_error err;
    tlm_outset set;
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    assert_int_equal(tlm_out_report_write(&r, dir, dir, &set, &err), TLM_OK);
    /* nothing is published before the commit */
    assert_int_equal(set.n, 7); /* report.md, 5 sheets, findings.csv */
    assert_null(slurp("report.md"));
    assert_int_equal(tlm_outset_commit(&set, &err), TLM_OK);
    tlm_outset_free(&set);
    const char *s = slurp("straggler_summary.csv");
    assert_non_null(s);
    assert_string_equal(s,
                        "rank,total_wait_time_us,mean_wait_time_us,"
                        "times_arrived_last,times_arrived_first,"
                        "pct_arrived_last,num_collectives,total_nccl_dur_us\n"
                        "1,0.0,0.0,1,0,50.0,2,50.0\n"
                        "0,30.0,15.0,1,2,50.0,2,80.5\n");
    s = slurp("nccl_implicit_sync.csv");
    assert_non_null(s);
    assert_non_null(strstr(s, ",rank_0_ts,rank_0_dur,rank_1_ts,rank_1_dur,"
                              "rank_0_wait_time,rank_1_wait_time\n"));
    /* quoted list, NaN bandwidth as empty cells, per-rank columns */
    assert_non_null(strstr(s, "0_0,0,\"[0, 1]\",allreduce,2,Float,1024,1024,"
                              "0.00390625,0.00390625,0.00390625,20.0,30.0,"
                              "1,15.0,0.0,,,100.0,50.0,130.0,20.0,30.0,"
                              "0.0\n"));
    s = slurp("report.md");
    assert_non_null(s);
    assert_non_null(strstr(s, "# tlmpi report"));
    assert_non_null(strstr(s, "| exposed communication | 0.250 (rank 0)"));
    assert_non_null(strstr(s, "No collective instances."));
    assert_non_null(slurp("nccl_summary_implicit_sync.csv"));
    assert_non_null(slurp("nccl_long.csv"));
    assert_non_null(slurp("nccl_summary_long.csv"));
    s = slurp("findings.csv"); /* no findings: the header */
    assert_non_null(s);
    assert_string_equal(s, "id,rule,mode,severity,subject,pct_e2e,eff,"
                           "bound,impact_low,impact_mid,impact_high,text,"
                           "action_a,action_b,replay,evidence\n");

    /* existing outputs are refused without force, naming the file */
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    assert_int_equal(tlm_out_report_write(&r, dir, dir, &set, &err),
                     TLM_EEXIST);
    assert_non_null(strstr(err.file, "report.md"));
    tlm_outset_free(&set);
    /* a folder that cannot be made is an I/O error naming it */
    char bad[200];
    snprintf(bad, sizeof bad, "%s/report.md/sub", dir);
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    assert_int_equal(tlm_out_report_write(&r, bad, dir, &set, &err), TLM_EIO);
    assert_non_null(strstr(err.file, "report.md"));
    tlm_outset_free(&set);
    /* written, then abandoned: no file is left, not even a temporary one */
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*.csv '%s'/report.md", dir, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tlm_outset_init(&set, 0, &err), TLM_OK);
    assert_int_equal(tlm_out_report_write(&r, dir, dir, &set, &err), TLM_OK);
    tlm_outset_free(&set);
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    assert_int_equal(system(cmd), 0);
}

/* report.md's units line, GPU line with the mixed-devices note, the
 * collective table (pg_desc, human sizes, '|' escaped) and the straggler
 * verdict on both sides of --straggler_threshold_us. */
static void test_md_gpu_units_straggler(void **state)
{
    (void)state;
    tlm_cli_opts o;
    memset(&o, 0, sizeof o);
    o.straggler_threshold_us = 50.0;
    tlm_row_trace tr[2];
    tlm_row_timeline tl[2];
    memset(tr, 0, sizeof tr);
    memset(tl, 0, sizeof tl);
    for (int i = 0; i < 2; i++) {
        tr[i].trace_rank = tl[i].trace_rank = i;
        tlm_strset(tr[i].gpu_arch_source, sizeof tr[i].gpu_arch_source,
                       "trace");
    }
    tlm_strset(tr[0].device_name, 64, "NVIDIA H100 80GB HBM3");
    tlm_strset(tr[0].gpu_arch, 32, "H100");
    tlm_strset(tr[1].device_name, 64, "AMD Instinct MI300X");
    tlm_strset(tr[1].gpu_arch, 32, "MI300X");
    tlm_coll_summary_row sum;
    memset(&sum, 0, sizeof sum);
    snprintf(sum.pg_name, sizeof sum.pg_name, "3");
    snprintf(sum.pg_desc, sizeof sum.pg_desc, "mesh|tp");
    snprintf(sum.dtype_name, sizeof sum.dtype_name, "BFloat16");
    sum.coll = TLM_COLL_ALLREDUCE;
    sum.bytes = 3 * 1024 * 1024 / 2;
    sum.count = 2;
    tlm_coll_straggler_row st[2];
    memset(st, 0, sizeof st);
    for (int i = 0; i < 2; i++) {
        st[i].trace_rank = i;
        st[i].overall = 1;
        st[i].n_instances = 10;
        st[i].wait_caused_corr_ns = 40000 * (i + 1); /* 4 and 8 us */
    }
    tlm_out_results r;
    memset(&r, 0, sizeof r);
    r.opts = &o;
    r.h5_path = "x.h5";
    r.nprocs = 1;
    r.world_size = 2;
    r.traces = tr;
    r.timeline = tl;
    r.n_traces = 2;
    r.sum = &sum;
    r.n_sum = 1;
    r.strag = st;
    r.n_strag = 2;
    tlm_error err;
    tlm_outset set;
    assert_int_equal(tlm_outset_init(&set, 1, &err), TLM_OK);
    assert_int_equal(tlm_out_report_write(&r, dir, dir, &set, &err), TLM_OK);
    assert_int_equal(tlm_outset_commit(&set, &err), TLM_OK);
    tlm_outset_free(&set);
    const char *s = slurp("report.md");
    assert_non_null(s);
    assert_non_null(strstr(s, "Units: times in ms unless a column says "
                              "otherwise; bandwidth GB/s = 10^9 B/s; "
                              "message sizes in binary units"));
    assert_non_null(strstr(s, "- GPU: mixed (source: trace; "
                              "deviceProperties: \"NVIDIA H100 80GB "
                              "HBM3\")\n- **Note: mixed devices**"));
    assert_non_null(strstr(s, "| 3 | mesh\\|tp | allreduce | BFloat16 | "
                              "1.5 MiB | 2 |"));
    assert_non_null(strstr(s, "No straggler: no rank made the others wait "
                              "more than 50.0 us per collective "
                              "(--straggler_threshold_us); the most, rank "
                              "1, 8.0 us."));
    assert_null(strstr(s, "Straggler: rank"));
    /* under a 5 us threshold rank 1 is named */
    o.straggler_threshold_us = 5.0;
    assert_int_equal(tlm_outset_init(&set, 1, &err), TLM_OK);
    assert_int_equal(tlm_out_report_write(&r, dir, dir, &set, &err), TLM_OK);
    assert_int_equal(tlm_outset_commit(&set, &err), TLM_OK);
    tlm_outset_free(&set);
    s = slurp("report.md");
    assert_non_null(strstr(s, "Straggler: rank 1 arrives last most "
                              "expensively: the other ranks waited 0.080 ms "
                              "for it in total, 8.0 us per collective"));
    /* one GPU: no note */
    tlm_strset(tr[1].device_name, 64, "NVIDIA H100 80GB HBM3");
    tlm_strset(tr[1].gpu_arch, 32, "H100");
    assert_int_equal(tlm_outset_init(&set, 1, &err), TLM_OK);
    assert_int_equal(tlm_out_report_write(&r, dir, dir, &set, &err), TLM_OK);
    assert_int_equal(tlm_outset_commit(&set, &err), TLM_OK);
    tlm_outset_free(&set);
    s = slurp("report.md");
    assert_non_null(strstr(s, "- GPU: H100 (source: trace; "
                              "deviceProperties: \"NVIDIA H100 80GB "
                              "HBM3\")\n"));
    assert_null(strstr(s, "mixed devices"));
}

static void test_schema_markdown(void **state)
{
    (void)state;
    char p[128];
    snprintf(p, sizeof p, "%s/schema.md", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    tlm_out_schema_markdown(f);
    fclose(f);
    const char *s = slurp("schema.md");
    for (size_t t = 0; tlm_rowtabs[t]; t++) {
        char h[96];
        snprintf(h, sizeof h, "### `/%s`", tlm_rowtabs[t]->name);
        assert_non_null(strstr(s, h));
    }
    assert_non_null(strstr(s, "| `comm_latency_ns` | int64 | ns |"));
}

/* TraceLens's node_span of a "Process Group Ranks" text. */
static void test_node_span(void **state)
{
    (void)state;
    assert_string_equal(tlm_out_node_span("[0, 1, 2, 3]", 64, 4),
                        "intra_node");
    assert_string_equal(tlm_out_node_span("[0, 1, 2, 3]", 64, 2),
                        "inter_node");
    assert_string_equal(tlm_out_node_span("[4, 12]", 64, 8), "inter_node");
    assert_string_equal(tlm_out_node_span("[8, 15]", 64, 8), "intra_node");
    assert_string_equal(tlm_out_node_span("", 64, 8), "unknown");
    assert_string_equal(tlm_out_node_span("[]", 64, 8), "unknown");
    /* a list cut with "...": the ranks it shows */
    assert_string_equal(tlm_out_node_span("[0, 1, ...]", 64, 8),
                        "intra_node");
    /* never past cap */
    assert_string_equal(tlm_out_node_span("[0, 9]", 3, 8), "intra_node");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_number),
        cmocka_unit_test(test_node_span),
        cmocka_unit_test_setup_teardown(test_sheets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_md_gpu_units_straggler, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_schema_markdown, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
