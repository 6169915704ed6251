/*
 * test_synth.c - tlmpi-synth's job model and driver (src/synth/synth.c):
 * options and list parsing, ground-truth consistency, and the written traces
 * read back with the project's reader: event counts, every kept collective
 * kernel at its trace-local start, clipping, clock offsets, and the keys
 * that tell the three NCCL schema generations apart.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tlmpi/tlm_synth.h"
#include "tlmpi/tlm_trace.h"
#include "tlm_test_synth.h"
#include "tlm_test_util.h"

#include <string.h>
#include <unistd.h>

/* MARK: - helpers */

static tlm_trace *read_rank(const char *dir, const tlm_synth_truth *t,
                            int r)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, t->ranks[r].trace_file);
    tlm_trace *tr = NULL;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = tlm_trace_read_file(path, NULL, &tr, &err);
    if (st != TLM_OK) {
        char buf[1024];
        fprintf(stderr, "%s\n", tlm_error_format(&err, buf, sizeof buf));
    }
    assert_int_equal(st, TLM_OK);
    return tr;
}

static int is_nccl_kernel(const tlm_trace *tr, const tlm_event *ev)
{
    if (ev->cat != TLM_CAT_KERNEL)
        return 0;
    const char *name = tlm_trace_str(tr, ev->name, NULL);
    return strncmp(name, "ncclDevKernel_", 14) == 0;
}

/* The NCCL kernel of member m (same local start and duration), or NULL. */
static const tlm_event *find_kernel(const tlm_trace *tr,
                                    const tlm_synth_member *m)
{
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    for (size_t i = 0; i < n; i++)
        if (is_nccl_kernel(tr, &ev[i]) && ev[i].ts == m->local_start_ns &&
            tlm_ev_dur(&(ev[i])) == m->end_ns - m->start_ns)
            return &ev[i];
    return NULL;
}

static size_t count_nccl_kernels(const tlm_trace *tr)
{
    size_t n = 0;
    size_t k = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    for (size_t i = 0; i < n; i++)
        k += (size_t)is_nccl_kernel(tr, &ev[i]);
    return k;
}

/* MARK: - options */

static void test_parse_list(void **state)
{
    (void)state;
    int64_t v[4];
    assert_int_equal(tlm_synth_parse_list("0,150,-80", v, 4), 3);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[1], 150);
    assert_int_equal(v[2], -80);
    assert_int_equal(tlm_synth_parse_list("7", v, 4), 1);
    assert_int_equal(v[0], 7);
    assert_int_equal(tlm_synth_parse_list("", v, 4), -1);
    assert_int_equal(tlm_synth_parse_list("1,,2", v, 4), -1);
    assert_int_equal(tlm_synth_parse_list("1,2,", v, 4), -1);
    assert_int_equal(tlm_synth_parse_list("1;2", v, 4), -1);
    assert_int_equal(tlm_synth_parse_list("1,2,3,4,5", v, 4), -1);
    assert_int_equal(tlm_synth_parse_list("99999999999999999999", v, 4),
                     -1);
}

static void test_bad_options(void **state)
{
    (void)state;
    tlm_synth_opts o;
    tlm_error err;
    tlm_synth_truth dummy;
    tlm_synth_truth *t = &dummy;

    ts_small_opts(&o, "/nonexistent-synth-dir");
    o.tp = 3;
    assert_int_equal(tlm_synth_run(&o, &t, &err), TLM_EINVAL);
    assert_null(t);
    assert_non_null(strstr(err.msg, "--tp"));

    ts_small_opts(&o, "/nonexistent-synth-dir");
    o.schema = 4;
    assert_int_equal(tlm_synth_write(&o, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "--schema"));

    ts_small_opts(&o, "/nonexistent-synth-dir");
    o.name_pattern = "trace.json";
    assert_int_equal(tlm_synth_write(&o, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "{r}"));

    ts_small_opts(&o, "/nonexistent-synth-dir");
    int bad_rank = 4;
    o.only_ranks = &bad_rank;
    o.n_only_ranks = 1;
    assert_int_equal(tlm_synth_write(&o, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "--ranks"));

    ts_small_opts(&o, "/nonexistent-synth-dir");
    o.n_node_offsets = 3; /* 2 nodes */
    assert_int_equal(tlm_synth_write(&o, &err), TLM_EINVAL);

    ts_small_opts(&o, NULL);
    assert_int_equal(tlm_synth_write(&o, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "--out"));

    /* clipping every collective of a rank away is refused */
    ts_small_opts(&o, NULL);
    o.write_traces = 0;
    o.clip[0].rank = 1;
    o.clip[0].first = 100000;
    o.n_clips = 1;
    assert_int_equal(tlm_synth_run(&o, &t, &err), TLM_EINVAL);
    assert_null(t);
    assert_non_null(strstr(err.msg, "rank 1"));
}

/* MARK: - ground truth and traces */

static void check_truth(const tlm_synth_truth *t)
{
    assert_true(t->n_colls > 0);
    for (size_t i = 0; i < t->n_colls; i++) {
        const tlm_synth_coll *c = &t->colls[i];
        const tlm_synth_member *m = &t->members[c->first_member];
        assert_int_equal(c->n_members, t->pgs[c->pg].size);
        int64_t mind = INT64_MAX;
        int64_t mx = INT64_MIN;
        int64_t mn = INT64_MAX;
        for (int k = 0; k < c->n_members; k++) {
            assert_int_equal(m[k].rank, t->pgs[c->pg].ranks[k]);
            assert_int_equal(m[k].end_ns, c->end_ns);
            int64_t d = m[k].end_ns - m[k].start_ns;
            if (d < mind)
                mind = d;
            if (m[k].start_ns > mx)
                mx = m[k].start_ns;
            if (m[k].start_ns < mn)
                mn = m[k].start_ns;
            assert_int_equal(m[k].local_start_ns,
                             m[k].start_ns +
                                 t->ranks[m[k].rank].clock_offset_ns);
        }
        assert_int_equal(mind, c->comm_ns);
        assert_int_equal(mx - mn, c->skew_ns);
        assert_int_equal(c->end_ns, mx + c->comm_ns);
        assert_true(c->seq >= 1);
    }
    /* per process group, seq runs 1, 2, 3, ... in issue order */
    for (size_t p = 0; p < t->n_pgs; p++) {
        int64_t next = 1;
        for (size_t i = 0; i < t->n_colls; i++)
            if (t->colls[i].pg == (int)p)
                assert_int_equal(t->colls[i].seq, next++);
    }
}

/* Every kept member's kernel is in its rank's trace at local_start; no
 * dropped member's is; event counts match the truth. */
static void check_traces(const char *dir, const tlm_synth_truth *t,
                         int schema)
{
    for (int r = 0; r < t->world_size; r++) {
        if (!t->ranks[r].written)
            continue;
        tlm_trace *tr = read_rank(dir, t, r);
        size_t n = 0;
        tlm_trace_events(tr, &n);
        assert_int_equal(n, t->ranks[r].n_events);
        assert_int_equal(tlm_trace_stats(tr)->bytes_json,
                         t->ranks[r].n_bytes);
        const tlm_trace_meta *meta = tlm_trace_meta_get(tr);
        assert_int_equal(meta->rank, r);
        assert_int_equal(meta->world_size, t->world_size);
        assert_int_equal(meta->base_time_ns, t->base_time_ns);
        /* pg_config in every schema: schema 1 in the Apr 2024 form
         * (uid, no pg_desc) */
        assert_int_equal(meta->n_pgs, t->n_pgs);
        for (size_t p = 0; p < meta->n_pgs; p++) {
            const tlm_pg_config *pc = &meta->pgs[p];
            assert_int_equal(pc->uid, schema == 1 ? (int64_t)p : -1);
            assert_true(schema == 1 ? pc->pg_desc == 0 : pc->pg_desc != 0);
            assert_int_equal(pc->pg_size, t->pgs[p].size);
            assert_int_equal(pc->n_ranks, (size_t)t->pgs[p].size);
            for (size_t k = 0; k < pc->n_ranks; k++)
                assert_int_equal(pc->ranks[k], t->pgs[p].ranks[k]);
        }
        assert_int_equal(count_nccl_kernels(tr), t->ranks[r].n_colls_kept);
        uint64_t kept = 0;
        for (size_t i = 0; i < t->n_colls; i++) {
            const tlm_synth_coll *c = &t->colls[i];
            for (int k = 0; k < c->n_members; k++) {
                const tlm_synth_member *m = &t->members[c->first_member + k];
                if (m->rank != r)
                    continue;
                const tlm_event *ev = find_kernel(tr, m);
                if (!m->kept) {
                    assert_null(ev);
                    continue;
                }
                kept++;
                assert_non_null(ev);
                int64_t ext = 0;
                int64_t corr = 0;
                int64_t v = 0;
                assert_true(tlm_event_arg_int(tr, ev, TLM_ARG_EXTERNAL_ID,
                                              &ext));
                assert_true(tlm_event_arg_int(tr, ev, TLM_ARG_CORRELATION,
                                              &corr));
                const char *cname = tlm_event_arg_str(
                    tr, ev, TLM_ARG_COLLECTIVE_NAME, NULL);
                int64_t seq = 0;
                int has_seq =
                    tlm_event_arg_int(tr, ev, TLM_ARG_SEQ, &seq) != 0;
                if (schema == 1) {
                    assert_null(cname);
                    assert_false(has_seq);
                    assert_int_equal(ext, corr);
                } else {
                    assert_non_null(cname);
                    if (strcmp(c->name, "send") == 0)
                        assert_string_equal(cname, k == 0 ? "send"
                                                          : "recv");
                    else
                        assert_string_equal(cname, c->name);
                    assert_string_equal(
                        tlm_event_arg_str(tr, ev, TLM_ARG_DTYPE, NULL),
                        c->dtype);
                    assert_true(tlm_event_arg_int(
                        tr, ev, TLM_ARG_IN_MSG_NELEMS, &v));
                    assert_int_equal(v, c->in_nelems);
                    assert_string_equal(
                        tlm_event_arg_str(tr, ev, TLM_ARG_PG_NAME, NULL),
                        t->pgs[c->pg].name);
                    assert_int_equal(has_seq, schema == 3);
                    if (has_seq)
                        assert_int_equal(seq, c->seq);
                    assert_true(ext != corr);
                }
            }
        }
        assert_int_equal(kept, t->ranks[r].n_colls_kept);
        tlm_trace_free(tr);
    }
}

/* Entries of a compact "Concrete Inputs" text whose entries hold no
 * commas (["", "3", "", "0", "", "[]", "[]", "0", "1", "8"]). */
static int ci_count(const char *ci)
{
    int n = 1;
    for (const char *p = ci; *p; p++)
        n += *p == ',';
    return n;
}

/* record_param_comms: schema 1 carries the seq as Concrete Inputs[1] in
 * the 10-entry Apr 2024 form (global rank start, stride, group size last;
 * its wait record has 9 entries, the seq first), schemas 2 and 3 leave it
 * "" and have named keys. */
static void check_rpc(const char *dir, const tlm_synth_truth *t, int schema)
{
    tlm_trace *tr = read_rank(dir, t, 0);
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = tlm_trace_str(tr, ev[i].name, NULL);
        if (strcmp(name, "record_param_comms") != 0)
            continue;
        const char *ci =
            tlm_event_arg_str(tr, &ev[i], TLM_ARG_CONCRETE_INPUTS, NULL);
        const char *cn =
            tlm_event_arg_str(tr, &ev[i], TLM_ARG_COLLECTIVE_NAME, NULL);
        if (cn && strcmp(cn, "wait") == 0)
            continue;
        if (schema == 1 && ci && strncmp(ci, "[\"\",", 4) != 0) {
            /* the wait record of schema 1 */
            assert_int_equal(ci_count(ci), 9);
            static const char tail[] = "\"-1\",\"-1\",\"1\"]";
            size_t l = strlen(ci);
            assert_true(l > sizeof tail);
            assert_string_equal(ci + l - (sizeof tail - 1), tail);
            continue;
        }
        assert_non_null(ci);
        seen++;
        if (schema == 1) {
            assert_null(cn);
            assert_true(strncmp(ci, "[\"\",\"\"", 6) != 0);
            assert_int_equal(ci_count(ci), 10);
            /* rank 0: every group it is in starts at 0 */
            assert_non_null(strstr(ci, "\"[]\",\"[]\",\"0\",\""));
        } else {
            assert_non_null(cn);
            assert_true(strncmp(ci, "[\"\",\"\",", 7) == 0);
        }
    }
    assert_true(seen > 0);
    tlm_trace_free(tr);
}

static void run_schema(int schema, int gzip)
{
    char dir[256];
    tt_tmpdir(dir, sizeof dir);
    tlm_synth_opts o;
    tlm_error err;
    ts_small_opts(&o, dir);
    o.schema = schema;
    o.gzip = gzip;
    o.node_offset_ns[0] = 0;
    o.node_offset_ns[1] = 250000;
    o.n_node_offsets = 2;
    o.straggler_rank = 3;
    o.straggler_delay_ns = 800000;
    tlm_synth_truth *t = NULL;
    assert_int_equal(tlm_synth_run(&o, &t, &err), TLM_OK);
    assert_non_null(t);
    assert_int_equal(t->ranks[2].clock_offset_ns, 250000);
    assert_int_equal(t->ranks[1].clock_offset_ns, 0);
    check_truth(t);
    check_traces(dir, t, schema);
    check_rpc(dir, t, schema);
    /* the straggler arrives last at each of its collectives */
    for (size_t i = 0; i < t->n_colls; i++) {
        const tlm_synth_coll *c = &t->colls[i];
        const tlm_synth_member *m = &t->members[c->first_member];
        for (int k = 0; k < c->n_members; k++)
            if (m[k].rank == 3)
                assert_int_equal(m[k].end_ns - m[k].start_ns, c->comm_ns);
    }
    tlm_synth_truth_free(t);
    tt_rm_rf(dir);
}

static void test_schema1(void **state)
{
    (void)state;
    run_schema(1, 0);
}

static void test_schema2_gzip(void **state)
{
    (void)state;
    run_schema(2, 1);
}

static void test_schema3(void **state)
{
    (void)state;
    run_schema(3, 0);
}

/* --straggler_cause: each cause delays the straggler's arrivals by what
 * the truth records (late_launch exactly D everywhere; slow_kernels D at
 * the tensor-parallel all-reduces, whose last kernel it lengthens;
 * host_busy at least D: the host work ends D after the GPU's last op),
 * the other ranks record 0, and the traces stay consistent. */
static void test_straggler_cause(void **state)
{
    (void)state;
    assert_string_equal(tlm_synth_cause_name(TLM_SYNTH_CAUSE_HOST_BUSY),
                        "host_busy");
    assert_int_equal(tlm_synth_cause_parse("slow_kernels"),
                     TLM_SYNTH_CAUSE_SLOW_KERNELS);
    assert_int_equal(tlm_synth_cause_parse("slow"), -1);
    assert_null(tlm_synth_cause_name(TLM_SYNTH_CAUSE_NONE));
    for (int cause = 1; cause <= TLM_SYNTH_CAUSE_LATE_LAUNCH; cause++) {
        char dir[256];
        tt_tmpdir(dir, sizeof dir);
        tlm_synth_opts o;
        tlm_error err;
        ts_small_opts(&o, dir);
        o.straggler_rank = 1;
        o.straggler_delay_ns = 300000;
        o.straggler_cause = cause;
        tlm_synth_truth *t = NULL;
        assert_int_equal(tlm_synth_run(&o, &t, &err), TLM_OK);
        check_truth(t);
        check_traces(dir, t, o.schema);
        size_t n_tp = 0;
        for (size_t i = 0; i < t->n_colls; i++) {
            const tlm_synth_coll *c = &t->colls[i];
            const tlm_synth_member *m = &t->members[c->first_member];
            int tp = strcmp(t->pgs[c->pg].desc, "mesh_tp") == 0;
            for (int k = 0; k < c->n_members; k++) {
                int64_t d = m[k].cause_delay_ns;
                if (m[k].rank != 1) {
                    assert_int_equal(d, 0);
                    continue;
                }
                if (cause == TLM_SYNTH_CAUSE_LATE_LAUNCH)
                    assert_int_equal(d, 300000);
                else if (cause == TLM_SYNTH_CAUSE_HOST_BUSY)
                    assert_true(d >= 300000 && d < 400000);
                else if (tp) /* all of D when the GPU is the bottleneck */
                    assert_true(d > 0 && d <= 300000);
                n_tp += tp;
            }
        }
        assert_true(n_tp > 0);
        tlm_synth_truth_free(t);
        tt_rm_rf(dir);
    }
    tlm_synth_opts o;
    tlm_error err;
    tlm_synth_opts_init(&o);
    o.out_dir = "/nonexistent";
    o.straggler_cause = TLM_SYNTH_CAUSE_HOST_BUSY;
    assert_int_equal(tlm_synth_run(&o, NULL, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "--straggler_cause needs --straggler"));
}

/* MARK: - clipping, --ranks, target size */

static void test_clip(void **state)
{
    (void)state;
    char dir[256];
    tt_tmpdir(dir, sizeof dir);
    tlm_synth_opts o;
    tlm_error err;
    ts_small_opts(&o, dir);
    o.jitter_ns = 5000;
    o.clip[0] = (tlm_synth_clip){1, 2, 0};
    o.clip[1] = (tlm_synth_clip){1, 0, 3};
    o.clip[2] = (tlm_synth_clip){2, 0, 1};
    o.n_clips = 3;
    tlm_synth_truth *t = NULL;
    assert_int_equal(tlm_synth_run(&o, &t, &err), TLM_OK);
    check_truth(t);
    /* rank 1 loses exactly its first 2 and last 3 collectives (issue
     * order), rank 2 its last one, the others nothing */
    for (int r = 0; r < 4; r++) {
        uint64_t n = t->ranks[r].n_colls;
        uint64_t drop = r == 1 ? 5 : r == 2 ? 1 : 0;
        assert_true(n > 10);
        assert_int_equal(t->ranks[r].n_colls_kept, n - drop);
        uint64_t k = 0;
        for (size_t i = 0; i < t->n_colls; i++) {
            const tlm_synth_coll *c = &t->colls[i];
            for (int j = 0; j < c->n_members; j++) {
                const tlm_synth_member *m = &t->members[c->first_member + j];
                if (m->rank != r)
                    continue;
                int want = 1;
                if (r == 1 && (k < 2 || k >= n - 3))
                    want = 0;
                if (r == 2 && k == n - 1)
                    want = 0;
                assert_int_equal(m->kept, want);
                if (want && (r == 1 || r == 2)) {
                    assert_true(m->start_ns >= t->ranks[r].window_start_ns);
                    assert_true(m->end_ns <= t->ranks[r].window_end_ns);
                }
                k++;
            }
        }
        assert_int_equal(k, n);
    }
    check_traces(dir, t, 3);
    /* the clipped trace has no event starting outside its window */
    tlm_trace *tr = read_rank(dir, t, 1);
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    int64_t off = t->ranks[1].clock_offset_ns;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].ph == 'M')
            continue;
        assert_true(ev[i].ts >= t->ranks[1].window_start_ns + off);
        assert_true(ev[i].ts <= t->ranks[1].window_end_ns + off);
    }
    assert_true(t->ranks[1].n_events < t->ranks[0].n_events);
    tlm_trace_free(tr);
    tlm_synth_truth_free(t);
    tt_rm_rf(dir);
}

static void test_only_ranks_and_gzip(void **state)
{
    (void)state;
    char d1[256];
    char d2[256];
    tt_tmpdir(d1, sizeof d1);
    tt_tmpdir(d2, sizeof d2);
    tlm_synth_opts o;
    tlm_error err;
    ts_small_opts(&o, d1);
    int only[2] = {0, 3};
    o.only_ranks = only;
    o.n_only_ranks = 2;
    o.name_pattern = "job_{r}.json";
    tlm_synth_truth *t1 = NULL;
    assert_int_equal(tlm_synth_run(&o, &t1, &err), TLM_OK);
    o.out_dir = d2;
    o.gzip = 1;
    o.gzip_level = 6;
    o.name_pattern = NULL;
    tlm_synth_truth *t2 = NULL;
    assert_int_equal(tlm_synth_run(&o, &t2, &err), TLM_OK);

    char p[512];
    for (int r = 0; r < 4; r++) {
        int want = r == 0 || r == 3;
        assert_int_equal(t1->ranks[r].written, want);
        snprintf(p, sizeof p, "%s/job_%d.json", d1, r);
        assert_int_equal(access(p, F_OK) == 0, want);
        snprintf(p, sizeof p, "%s/rank%d_trace.json.gz", d2, r);
        assert_int_equal(access(p, F_OK) == 0, want);
        /* the ground truth covers every rank either way */
        assert_true(t1->ranks[r].n_colls > 0);
        assert_int_equal(t1->ranks[r].n_colls, t2->ranks[r].n_colls);
        if (want) {
            assert_true(t1->ranks[r].n_events > 0);
            assert_int_equal(t1->ranks[r].n_events, t2->ranks[r].n_events);
        } else {
            assert_int_equal(t1->ranks[r].n_events, 0);
        }
    }
    assert_int_equal(t1->n_colls, t2->n_colls);
    check_traces(d2, t2, 3);
    /* the same job gzip'd inflates to the same JSON but for traceName */
    assert_int_equal(t2->ranks[3].n_bytes - t1->ranks[3].n_bytes,
                     strlen("rank3_trace.json.gz") - strlen("job_3.json"));
    snprintf(p, sizeof p, "%s/ground_truth.json", d2);
    assert_int_equal(access(p, F_OK), 0);
    tlm_synth_truth_free(t1);
    tlm_synth_truth_free(t2);
    tt_rm_rf(d1);
    tt_rm_rf(d2);
}

/* no_dist_info: the traces lack distributedInfo, all else is the same. */
static void test_no_dist_info(void **state)
{
    (void)state;
    char d1[256], d2[256];
    tt_tmpdir(d1, sizeof d1);
    tt_tmpdir(d2, sizeof d2);
    tlm_synth_opts o;
    tlm_error err;
    ts_small_opts(&o, d1);
    tlm_synth_truth *t1 = NULL, *t2 = NULL;
    assert_int_equal(tlm_synth_run(&o, &t1, &err), TLM_OK);
    o.out_dir = d2;
    o.no_dist_info = 1;
    assert_int_equal(tlm_synth_run(&o, &t2, &err), TLM_OK);
    for (int r = 0; r < 2; r++) {
        tlm_trace *a = read_rank(d1, t1, r), *b = read_rank(d2, t2, r);
        assert_int_equal(tlm_trace_meta_get(a)->has_distributed, 1);
        assert_int_equal(tlm_trace_meta_get(a)->rank, r);
        assert_int_equal(tlm_trace_meta_get(b)->has_distributed, 0);
        assert_int_equal(tlm_trace_stats(a)->n_events,
                         tlm_trace_stats(b)->n_events);
        assert_int_equal(t1->ranks[r].n_events, t2->ranks[r].n_events);
        assert_true(t2->ranks[r].n_bytes < t1->ranks[r].n_bytes);
        tlm_trace_free(a);
        tlm_trace_free(b);
    }
    tlm_synth_truth_free(t1);
    tlm_synth_truth_free(t2);
    tt_rm_rf(d1);
    tt_rm_rf(d2);
}

static void test_target_size(void **state)
{
    (void)state;
    char dir[256];
    tt_tmpdir(dir, sizeof dir);
    tlm_synth_opts o;
    tlm_error err;
    ts_small_opts(&o, dir);
    o.steps = 1;
    o.target_size = 3000000;
    int only = 0;
    o.only_ranks = &only;
    o.n_only_ranks = 1;
    tlm_synth_truth *t = NULL;
    assert_int_equal(tlm_synth_run(&o, &t, &err), TLM_OK);
    assert_true(t->steps > 2);
    assert_true(t->ranks[0].n_bytes >= 2900000);
    assert_true(t->ranks[0].n_bytes <= 3300000);
    check_truth(t);
    tlm_synth_truth_free(t);

    /* truth only: no files, same timing as with files */
    tlm_synth_opts o2;
    ts_small_opts(&o2, NULL);
    o2.steps = 3;
    o2.write_traces = 0;
    tlm_synth_truth *t2 = NULL;
    assert_int_equal(tlm_synth_run(&o2, &t2, &err), TLM_OK);
    assert_int_equal(t2->steps, 3);
    assert_int_equal(t2->ranks[0].n_events, 0);
    check_truth(t2);
    tlm_synth_truth_free(t2);
    tt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_list),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_schema1),
        cmocka_unit_test(test_schema2_gzip),
        cmocka_unit_test(test_schema3),
        cmocka_unit_test(test_straggler_cause),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_only_ranks_and_gzip),
        cmocka_unit_test(test_no_dist_info),
        cmocka_unit_test(test_target_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
