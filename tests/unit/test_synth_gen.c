/*
 * test_synth_gen.c - tlmpi-synth's step program and engine
 * (src/synth/synth_gen.c): the same options and seed give the same bytes;
 * the collectives of a step as docs/synth.md lists them (kinds, groups,
 * sizes, per-group seq), the timing model's identities (every member ends
 * at the last arrival + C), the NCCL streams of each kind of group, and
 * the trace's closing keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm_test_synth.h"
#include "tlm_test_util.h"
#include "tlmpi/tlm_trace.h"

/* Whole files a and b hold the same bytes. */
static int files_equal(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *ba = tt_slurp(a, &na);
    unsigned char *bb = tt_slurp(b, &nb);
    assert_non_null(ba);
    assert_non_null(bb);
    int eq = na == nb && memcmp(ba, bb, na) == 0;
    free(ba);
    free(bb);
    return eq;
}

/* The same seed twice: the same traces and ground truth; another seed:
 * other bytes. */
static void test_determinism(void **state)
{
    (void)state;
    char d[3][256];
    tlm_synth_opts o;
    tlm_error err;
    for (int i = 0; i < 3; i++) {
        tt_tmpdir(d[i], sizeof d[i]);
        ts_small_opts(&o, d[i]);
        o.jitter_ns = 20000;
        o.clock_offset_ns = 300000;
        o.seed = i < 2 ? 11 : 12;
        assert_int_equal(tlm_synth_write(&o, &err), TLM_OK);
    }
    const char *names[] = {"rank0_trace.json", "rank3_trace.json",
                           "ground_truth.json"};
    for (int i = 0; i < 3; i++) {
        char a[512], b[512], c[512];
        snprintf(a, sizeof a, "%s/%s", d[0], names[i]);
        snprintf(b, sizeof b, "%s/%s", d[1], names[i]);
        snprintf(c, sizeof c, "%s/%s", d[2], names[i]);
        assert_true(files_equal(a, b));
        assert_false(files_equal(a, c));
    }
    for (int i = 0; i < 3; i++)
        tt_rm_rf(d[i]);
}

/* Expected collectives of one step per process group kind (docs/synth.md
 * "What a trace holds"), for L layers, tokens T = 256 and hidden H = 256,
 * group size 2 except the default group (4 ranks). */
typedef struct want_coll {
    const char *desc, *name, *dtype;
    int per_step;       /* instances per group and step */
    int64_t in, out, bytes;
} want_coll;

static size_t want_colls(int L, want_coll *w)
{
    const int64_t TH = 256 * 256;
    /* layer parameters of one rank's shard: 4 H^2 attention + 8 H^2 MLP,
     * split over tp 2 -> 6 H^2; reduce-scatter out = in / 2 */
    const int64_t lp = 6 * 256 * 256;
    size_t n = 0;
    w[n++] = (want_coll){"default_pg", "broadcast", "Long", 1, 1, 1, 8};
    w[n++] = (want_coll){"default_pg", "allreduce", "Float", 1, 1, 1, 4};
    /* two forward (attention, MLP) and two backward per layer */
    w[n++] = (want_coll){"mesh_tp", "allreduce", "BFloat16", 4 * L, TH, TH,
                         2 * TH};
    /* layer 0 only */
    w[n++] = (want_coll){"mesh_dp", "all_to_all", "BFloat16", 1, TH / 4,
                         TH / 4, TH / 2};
    w[n++] = (want_coll){"mesh_dp", "_reduce_scatter_base", "BFloat16", L,
                         lp, lp / 2, 2 * lp};
    w[n++] = (want_coll){"mesh_dp", "_allgather_base", "BFloat16", L,
                         lp / 2, lp, 2 * lp};
    w[n++] = (want_coll){"p2p", "send", "BFloat16", 1, TH / 8, TH / 8,
                         TH / 4};
    return n;
}

/* Counts, sizes, per-group seq and the timing identities of the ground
 * truth of the small job with L layers. */
static void check_program(int L)
{
    tlm_synth_opts o;
    ts_small_opts(&o, NULL);
    o.write_traces = 0;
    o.layers = L;
    o.straggler_rank = 2;
    o.straggler_delay_ns = 300000;
    tlm_synth_truth *t = NULL;
    assert_int_equal(tlm_synth_run(&o, &t, NULL), TLM_OK);
    /* groups: default, 2 mesh_tp, 2 mesh_dp, 2 p2p pairs */
    static const char *const desc[7] = {"default_pg", "mesh_tp", "mesh_tp",
                                        "mesh_dp", "mesh_dp", "p2p", "p2p"};
    static const int start[7] = {0, 0, 2, 0, 1, 0, 1};
    static const int stride[7] = {1, 1, 1, 2, 2, 2, 2};
    assert_int_equal(t->n_pgs, 7);
    for (size_t g = 0; g < 7; g++) {
        assert_string_equal(t->pgs[g].desc, desc[g]);
        assert_int_equal(t->pgs[g].rank_start, start[g]);
        assert_int_equal(t->pgs[g].rank_stride, stride[g]);
    }
    want_coll w[8];
    size_t nw = want_colls(L, w);
    int per_step = 0;
    for (size_t k = 0; k < nw; k++)
        per_step += w[k].per_step * (k < 2 ? 1 : 2);
    per_step += 2; /* all_to_allv: sizes vary, checked below */
    assert_int_equal(t->n_colls, (size_t)(per_step * o.steps));
    int64_t seq[7] = {0};
    uint64_t member_of[4] = {0};
    int count[8][2];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < t->n_colls; i++) {
        const tlm_synth_coll *c = &t->colls[i];
        const tlm_synth_pg *pg = &t->pgs[c->pg];
        assert_int_equal(c->seq, ++seq[c->pg]); /* from 1, per group */
        assert_int_equal(c->n_members, pg->size);
        size_t k = 0;
        while (k < nw && (strcmp(w[k].desc, pg->desc) ||
                          strcmp(w[k].name, c->name)))
            k++;
        if (k == nw) {
            assert_string_equal(c->name, "all_to_allv");
            assert_string_equal(pg->desc, "mesh_dp");
            assert_int_equal(c->bytes, 2 * c->in_nelems);
        } else {
            assert_string_equal(c->dtype, w[k].dtype);
            assert_int_equal(c->in_nelems, w[k].in);
            assert_int_equal(c->out_nelems, w[k].out);
            assert_int_equal(c->bytes, w[k].bytes);
        }
        count[k][c->step]++;
        /* every member ends at the last arrival + C */
        const tlm_synth_member *m = &t->members[c->first_member];
        int64_t amin = INT64_MAX, amax = INT64_MIN, dmin = INT64_MAX;
        for (int q = 0; q < c->n_members; q++) {
            assert_int_equal(m[q].rank, pg->ranks[q]);
            assert_int_equal(m[q].end_ns, c->end_ns);
            assert_int_equal(m[q].local_start_ns,
                             m[q].start_ns +
                                 t->ranks[m[q].rank].clock_offset_ns);
            amin = m[q].start_ns < amin ? m[q].start_ns : amin;
            amax = m[q].start_ns > amax ? m[q].start_ns : amax;
            int64_t d = m[q].end_ns - m[q].start_ns;
            dmin = d < dmin ? d : dmin;
            member_of[m[q].rank]++;
        }
        assert_int_equal(c->skew_ns, amax - amin);
        assert_int_equal(c->end_ns, amax + c->comm_ns);
        assert_int_equal(dmin, c->comm_ns);
    }
    for (size_t k = 0; k <= nw; k++)
        for (int s = 0; s < 2; s++) {
            int groups = k < 2 ? 1 : 2;
            int want = k < nw ? w[k].per_step * groups : 2;
            assert_int_equal(count[k][s], want);
        }
    for (int r = 0; r < 4; r++)
        assert_int_equal(t->ranks[r].n_colls, member_of[r]);
    tlm_synth_truth_free(t);
}

static void test_program(void **state)
{
    (void)state;
    check_program(2);
    check_program(3);
}

/* NCCL kernels of rank 0's trace by stream: 20 for the default group
 * (2 a step), 24 TP (4 L), 28 DP (2 + 2 L), 32 p2p (1); the trace closes
 * with its name, the display unit and the base time. */
static void test_streams_and_footer(void **state)
{
    (void)state;
    char dir[256], path[512];
    tt_tmpdir(dir, sizeof dir);
    tlm_synth_opts o;
    ts_small_opts(&o, dir);
    static const int only[1] = {0};
    o.only_ranks = only;
    o.n_only_ranks = 1;
    tlm_synth_truth *t = NULL;
    assert_int_equal(tlm_synth_run(&o, &t, NULL), TLM_OK);
    snprintf(path, sizeof path, "%s/rank0_trace.json", dir);
    tlm_trace *tr = NULL;
    assert_int_equal(tlm_trace_read_file(path, NULL, &tr, NULL), TLM_OK);
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    int per[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        const char *name = tlm_trace_str(tr, ev[i].name, NULL);
        if (ev[i].cat != TLM_CAT_KERNEL ||
            strncmp(name, "ncclDevKernel_", 14) != 0)
            continue;
        int64_t s = -1;
        assert_true(tlm_event_arg_int(tr, &ev[i], TLM_ARG_STREAM, &s));
        assert_true(s == 20 || s == 24 || s == 28 || s == 32);
        assert_int_equal(tlm_ev_tid(&ev[i]), s);
        per[(s - 20) / 4]++;
    }
    assert_int_equal(per[0], 2 * 2);
    assert_int_equal(per[1], 8 * 2);
    assert_int_equal(per[2], 6 * 2);
    assert_int_equal(per[3], 1 * 2);
    tlm_trace_free(tr);
    size_t len = 0;
    unsigned char *b = tt_slurp(path, &len);
    assert_non_null(b);
    assert_int_equal(len, t->ranks[0].n_bytes);
    static const char tail[] =
        "\n  ],\n  \"traceName\": \"rank0_trace.json\",\n"
        "  \"displayTimeUnit\": \"ms\",\n"
        "  \"baseTimeNanoseconds\": 1763700000000000000\n}\n";
    assert_true(len > sizeof tail);
    assert_memory_equal(b + len - (sizeof tail - 1), tail, sizeof tail - 1);
    assert_int_equal(t->base_time_ns, 1763700000000000000ll);
    free(b);
    tlm_synth_truth_free(t);
    tt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_program),
        cmocka_unit_test(test_streams_and_footer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
