/*
 * test_coll_cause.c - the attribution of a straggler's delay to causes
 * (src/coll/coll_cause.c) on hand-made instances, members and windows
 * ("fake ranks"): each term alone, waiting in other groups' collectives
 * (waiting_elsewhere), step windows (their start difference is other),
 * mixed terms in proportion, negative terms ignored, the clock term,
 * missing windows, ties, the median of
 * four, the op rows, rank -1, merging partial tables, allocation
 * failures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tlm_test_coll.h"
#include "tlmpi/tlm_cause.h"

#define MAXM 8
#define MAXI 8

/* A small job: instances of one allreduce group, members, windows. */
typedef struct fj {
    tlm_coll_instance in[MAXI];
    tlm_coll_member m[MAXI * MAXM];
    tlm_coll_window w[MAXI * MAXM];
    size_t ni, nm, nw;
} fj;

/* Instance seq with n members starting at starts[] (ns, raw), offsets
 * off[] (NULL: 0); windows from the end of the previous instance at
 * w0[r] (raw) with busy/host/launch/other from parts[r][4] (NULL: no
 * windows). */
static void add_inst(fj *j, int64_t seq, int n, const int64_t *starts,
                     const int64_t *off, const int64_t *w0,
                     int64_t (*parts)[4])
{
    tlm_coll_instance *in = &j->in[j->ni++];
    memset(in, 0, sizeof *in);
    in->match_key = 42;
    in->seq = seq;
    in->pg_hash = tlm_hash64("tp0", 3);
    snprintf(in->pg_name, sizeof in->pg_name, "tp0");
    in->coll = TLM_COLL_ALLREDUCE;
    in->n_members = n;
    in->group_size = n;
    for (int r = 0; r < n; r++) {
        tlm_coll_member *m = &j->m[j->nm++];
        memset(m, 0, sizeof *m);
        m->match_key = 42;
        m->seq = seq;
        m->trace_rank = r;
        m->start_ns = starts[r];
        m->offset_ns = off ? off[r] : 0;
        m->event_index = (uint64_t)(seq * 100 + r);
        m->coll = TLM_COLL_ALLREDUCE;
        if (!parts)
            continue;
        tlm_coll_window *w = &j->w[j->nw++];
        memset(w, 0, sizeof *w);
        w->trace_rank = r;
        w->event_index = m->event_index;
        w->win_start_ns = w0[r];
        w->busy_ns = parts[r][0];
        w->host_ns = parts[r][1];
        w->launch_ns = parts[r][2];
        w->other_ns = parts[r][3];
        w->win_ns = starts[r] - w0[r];
        /* the step window: the same parts from 1 ms earlier, all busy */
        w->step_start_ns = w0[r] - 1000000;
        w->step_busy_ns = parts[r][0] + 1000000;
        w->step_host_ns = parts[r][1];
        w->step_launch_ns = parts[r][2];
        w->step_other_ns = parts[r][3];
    }
}

static tlm_coll_cause_row *rows_of(const fj *j, int32_t rank, size_t *n)
{
    tlm_coll_cause_row *rows = NULL;
    assert_int_equal(tlm_coll_cause_compute(j->in, j->ni, j->m, j->nm, j->w,
                                            j->nw, rank, NULL, &rows, n,
                                            NULL),
                     TLM_OK);
    return rows;
}

/* The cause row of cause c (op_hash 0), or NULL. */
static const tlm_coll_cause_row *crow(const tlm_coll_cause_row *r, size_t n,
                                      int c)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].cause == c && r[i].op_hash == 0)
            return &r[i];
    return NULL;
}

static void expect(const tlm_coll_cause_row *r, size_t n, const int64_t *d,
                   int64_t total, int64_t n_inst)
{
    for (int c = 0; c < TLM_CAUSE_COUNT; c++) {
        const tlm_coll_cause_row *x = crow(r, n, c);
        assert_non_null(x);
        assert_int_equal(x->delay_ns, d[c]);
        assert_int_equal(x->total_delay_ns, total);
        assert_int_equal(x->n_instances, n_inst);
        assert_int_equal(x->trace_rank, 1);
        assert_string_equal(x->pg_name, "tp0");
    }
}

/* Rank 1 100 us late; its window longer by 100 us of one kind. */
static void test_each_term_alone(void **state)
{
    (void)state;
    for (int kind = 0; kind < 4; kind++) {
        fj j;
        memset(&j, 0, sizeof j);
        int64_t st[2] = {1000000, 1100000}, w0[2] = {500000, 500000};
        int64_t p[2][4] = {{300000, 100000, 50000, 50000},
                           {300000, 100000, 50000, 50000}};
        p[1][kind] += 100000;
        add_inst(&j, 1, 2, st, NULL, w0, p);
        size_t n = 0;
        tlm_coll_cause_row *r = rows_of(&j, 1, &n);
        static const int cause_of[4] = {
            TLM_CAUSE_SLOW_KERNELS, TLM_CAUSE_HOST_BUSY,
            TLM_CAUSE_LATE_LAUNCH, TLM_CAUSE_OTHER};
        int64_t d[TLM_CAUSE_COUNT] = {0};
        d[cause_of[kind]] = 100000;
        expect(r, n, d, 100000, 1);
        tlm_coll_free(NULL, r);
        /* the rank that was not last: no rows */
        r = rows_of(&j, 0, &n);
        assert_int_equal(n, 0);
        tlm_coll_free(NULL, r);
    }
}

/* Time the rank's next op waited for another group's collective is
 * waiting_elsewhere, not slow_kernels; the median rank's longer wait there
 * (a negative term) takes nothing from the injected cause. */
static void test_waiting_elsewhere(void **state)
{
    (void)state;
    fj j;
    memset(&j, 0, sizeof j);
    int64_t st[2] = {1000000, 1100000}, w0[2] = {500000, 500000};
    int64_t p[2][4] = {{300000, 100000, 50000, 50000},
                       {300000, 100000, 50000, 50000}};
    add_inst(&j, 1, 2, st, NULL, w0, p);
    j.w[1].coll_ns = 100000;
    size_t n = 0;
    tlm_coll_cause_row *r = rows_of(&j, 1, &n);
    int64_t d[TLM_CAUSE_COUNT] = {0};
    d[TLM_CAUSE_WAITING_ELSEWHERE] = 100000;
    expect(r, n, d, 100000, 1);
    tlm_coll_free(NULL, r);

    /* rank 1 launched 100 us late; the median rank waited 80 us longer
     * in other groups' collectives and spent 80 us less in late launch:
     * late_launch takes the whole delay */
    memset(&j, 0, sizeof j);
    int64_t p2[2][4] = {{300000, 100000, 50000, 50000},
                        {300000, 100000, 70000, 50000}};
    add_inst(&j, 1, 2, st, NULL, w0, p2);
    j.w[0].coll_ns = 80000;
    j.w[1].launch_ns += 80000;
    r = rows_of(&j, 1, &n);
    memset(d, 0, sizeof d);
    d[TLM_CAUSE_LATE_LAUNCH] = 100000;
    expect(r, n, d, 100000, 1);
    tlm_coll_free(NULL, r);
}

/* When either window starts at the step (the group's first instance, or
 * a previous one that ran beside compute), both step windows are
 * compared and how far the steps started apart goes to other, not clock. */
static void test_step_windows(void **state)
{
    (void)state;
    fj j;
    memset(&j, 0, sizeof j);
    /* rank 1's step started 10 us after rank 0's; its step window holds
     * 90 us more host time */
    int64_t st[2] = {1000000, 1100000}, w0[2] = {500000, 510000};
    int64_t p[2][4] = {{300000, 100000, 50000, 50000},
                       {300000, 100000, 50000, 50000}};
    add_inst(&j, 1, 2, st, NULL, w0, p);
    j.w[0].flags = TLM_WIN_STEP;
    j.w[1].step_host_ns += 90000;
    size_t n = 0;
    tlm_coll_cause_row *r = rows_of(&j, 1, &n);
    int64_t d[TLM_CAUSE_COUNT] = {0};
    d[TLM_CAUSE_HOST_BUSY] = 90000;
    d[TLM_CAUSE_OTHER] = 10000;
    expect(r, n, d, 100000, 1);
    tlm_coll_free(NULL, r);
}

/* host +60, launch +40, busy -50: the positive terms in proportion
 * (60 : 40) of the 50 us delay; the clock term: window starts 30 us apart
 * after correction. */
static void test_mixed_and_clock(void **state)
{
    (void)state;
    fj j;
    memset(&j, 0, sizeof j);
    int64_t st[2] = {1000000, 1050000}, w0[2] = {500000, 500000};
    int64_t p[2][4] = {{400000, 50000, 50000, 0},
                       {350000, 110000, 90000, 0}};
    add_inst(&j, 1, 2, st, NULL, w0, p);
    size_t n = 0;
    tlm_coll_cause_row *r = rows_of(&j, 1, &n);
    int64_t d[TLM_CAUSE_COUNT] = {0, 30000, 20000, 0, 0, 0};
    expect(r, n, d, 50000, 1);
    tlm_coll_free(NULL, r);

    /* rank 1's clock is 100 us ahead, its offset estimated 70 us: after
     * correction it starts 30 us late at the previous instance's end and
     * 100 us late here; its window is 70 us longer, all host */
    memset(&j, 0, sizeof j);
    int64_t st2[2] = {1000000, 1170000}, w02[2] = {500000, 600000};
    int64_t off[2] = {0, 70000};
    int64_t p2[2][4] = {{500000, 0, 0, 0}, {500000, 70000, 0, 0}};
    add_inst(&j, 1, 2, st2, off, w02, p2);
    r = rows_of(&j, 1, &n);
    int64_t d2[TLM_CAUSE_COUNT] = {0, 70000, 0, 0, 30000, 0};
    expect(r, n, d2, 100000, 1);
    tlm_coll_free(NULL, r);
}

/* No windows at all, or all terms <= 0: everything is other. */
static void test_unexplained(void **state)
{
    (void)state;
    fj j;
    memset(&j, 0, sizeof j);
    int64_t st[2] = {1000000, 1040000};
    add_inst(&j, 1, 2, st, NULL, NULL, NULL);
    size_t n = 0;
    tlm_coll_cause_row *r = rows_of(&j, 1, &n);
    int64_t d[TLM_CAUSE_COUNT] = {0, 0, 0, 0, 0, 40000};
    expect(r, n, d, 40000, 1);
    tlm_coll_free(NULL, r);

    /* a window flagged NO_PREV counts as missing */
    memset(&j, 0, sizeof j);
    int64_t w0[2] = {500000, 500000};
    int64_t p[2][4] = {{100, 0, 0, 0}, {40100, 0, 0, 0}};
    add_inst(&j, 1, 2, st, NULL, w0, p);
    j.w[1].flags = TLM_WIN_NO_PREV;
    r = rows_of(&j, 1, &n);
    expect(r, n, d, 40000, 1);
    tlm_coll_free(NULL, r);
}

/* Four members: the median is the second earliest; two tied last share
 * the delay; rank -1 explains nothing. */
static void test_median_and_ties(void **state)
{
    (void)state;
    fj j;
    memset(&j, 0, sizeof j);
    int64_t st[4] = {1000000, 1300000, 1010000, 1020000};
    int64_t w0[4] = {0, 0, 0, 0};
    int64_t p[4][4] = {{1000000, 0, 0, 0}, {1010000, 290000, 0, 0},
                       {1010000, 0, 0, 0}, {1020000, 0, 0, 0}};
    add_inst(&j, 1, 4, st, NULL, w0, p);
    size_t n = 0;
    tlm_coll_cause_row *r = rows_of(&j, 1, &n);
    /* median member: rank 2 (1010000); delay 290 us, all host */
    int64_t d[TLM_CAUSE_COUNT] = {0, 290000, 0, 0, 0, 0};
    expect(r, n, d, 290000, 1);
    tlm_coll_free(NULL, r);
    r = rows_of(&j, -1, &n);
    assert_int_equal(n, 0);
    tlm_coll_free(NULL, r);

    memset(&j, 0, sizeof j);
    int64_t st2[4] = {1000000, 1100000, 1000000, 1100000};
    add_inst(&j, 1, 4, st2, NULL, NULL, NULL);
    r = rows_of(&j, 1, &n);
    int64_t d2[TLM_CAUSE_COUNT] = {0, 0, 0, 0, 0, 50000};
    expect(r, n, d2, 50000, 1);
    tlm_coll_free(NULL, r);
}

/* Op rows: S's top ops minus the median member's same op. */
static void test_op_rows(void **state)
{
    (void)state;
    fj j;
    memset(&j, 0, sizeof j);
    int64_t st[2] = {1000000, 1100000}, w0[2] = {0, 0};
    int64_t p[2][4] = {{1000000, 0, 0, 0}, {1100000, 0, 0, 0}};
    add_inst(&j, 1, 2, st, NULL, w0, p);
    tlm_cause_op *ms = j.w[0].kop, *ss = j.w[1].kop;
    snprintf(ms[0].name, sizeof ms[0].name, "aten::mm");
    ms[0].hash = 11;
    ms[0].ns = 700000;
    snprintf(ss[0].name, sizeof ss[0].name, "aten::mm");
    ss[0].hash = 11;
    ss[0].ns = 790000;
    snprintf(ss[1].name, sizeof ss[1].name, "aten::gelu");
    ss[1].hash = 12;
    ss[1].ns = 10000;
    size_t n = 0;
    tlm_coll_cause_row *r = rows_of(&j, 1, &n);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].op_hash)
            continue;
        assert_int_equal(r[i].cause, TLM_CAUSE_SLOW_KERNELS);
        if (r[i].op_hash == 11) {
            assert_string_equal(r[i].op_name, "aten::mm");
            assert_int_equal(r[i].delay_ns, 90000);
            found |= 1;
        } else {
            assert_int_equal(r[i].op_hash, 12);
            assert_int_equal(r[i].delay_ns, 10000);
            found |= 2;
        }
    }
    assert_int_equal(found, 3);
    tlm_coll_free(NULL, r);
}

/* Two owners' partial tables merge to the whole; the split sums exactly
 * (odd numbers, three terms). */
static void test_merge(void **state)
{
    (void)state;
    fj j;
    memset(&j, 0, sizeof j);
    for (int s = 1; s <= 4; s++) {
        int64_t st[2] = {1000000 * s, 1000000 * s + 77777 * s};
        int64_t w0[2] = {1000000 * s - 500000, 1000000 * s - 500000 + 1};
        int64_t p[2][4] = {{200000, 100000, 100000, 100000},
                           {200000 + 333 * s, 100000 + 12345, 100000 + 7,
                            100000}};
        add_inst(&j, s, 2, st, NULL, w0, p);
    }
    size_t nw = 0, na = 0, nb = 0;
    tlm_coll_cause_row *whole = rows_of(&j, 1, &nw);
    tlm_coll_cause_row *a = NULL, *b = NULL;
    assert_int_equal(tlm_coll_cause_compute(j.in, 2, j.m, 4, j.w, j.nw, 1,
                                            NULL, &a, &na, NULL),
                     TLM_OK);
    assert_int_equal(tlm_coll_cause_compute(j.in + 2, 2, j.m + 4, 4, j.w,
                                            j.nw, 1, NULL, &b, &nb, NULL),
                     TLM_OK);
    tlm_coll_cause_row *all = malloc((na + nb) * sizeof *all);
    assert_non_null(all);
    memcpy(all, a, na * sizeof *a);
    memcpy(all + na, b, nb * sizeof *b);
    size_t n = na + nb;
    tlm_coll_cause_merge(all, &n);
    assert_int_equal(n, nw);
    int64_t sum = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(all[i].delay_ns, whole[i].delay_ns);
        assert_int_equal(all[i].total_delay_ns, whole[i].total_delay_ns);
        assert_int_equal(all[i].n_instances, whole[i].n_instances);
        if (!all[i].op_hash) {
            sum += all[i].delay_ns;
            total = all[i].total_delay_ns;
        }
    }
    assert_int_equal(sum, total);
    assert_int_equal(total, 77777 * 10);
    free(all);
    tlm_coll_free(NULL, a);
    tlm_coll_free(NULL, b);
    tlm_coll_free(NULL, whole);
    assert_string_equal(tlm_cause_name(TLM_CAUSE_LATE_LAUNCH),
                        "late_launch");
    assert_null(tlm_cause_name(TLM_CAUSE_COUNT));
}

static tlm_status torture_step(const tlm_alloc *a, const void *ctx)
{
    const fj *j = ctx;
    tlm_coll_cause_row *r = NULL;
    size_t n = 0;
    tlm_status st = tlm_coll_cause_compute(j->in, j->ni, j->m, j->nm, j->w,
                                           j->nw, 1, a, &r, &n, NULL);
    tlm_coll_free(a, r);
    return st;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    fj *j = calloc(1, sizeof *j);
    assert_non_null(j);
    for (int s = 1; s <= 3; s++) {
        int64_t st[2] = {1000000 * s, 1000000 * s + 5000};
        int64_t w0[2] = {0, 0};
        int64_t p[2][4] = {{1000, 0, 0, 0}, {6000, 0, 0, 0}};
        add_inst(j, s, 2, st, NULL, w0, p);
    }
    assert_true(tc_alloc_torture(torture_step, j) > 0);
    tlm_coll_cause_row *r = NULL;
    size_t n = 0;
    assert_int_equal(tlm_coll_cause_compute(NULL, 1, j->m, j->nm, j->w,
                                            j->nw, 1, NULL, &r, &n, NULL),
                     TLM_EINVAL);
    free(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_term_alone),
        cmocka_unit_test(test_waiting_elsewhere),
        cmocka_unit_test(test_step_windows),
        cmocka_unit_test(test_mixed_and_clock),
        cmocka_unit_test(test_unexplained),
        cmocka_unit_test(test_median_and_ties),
        cmocka_unit_test(test_op_rows),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
