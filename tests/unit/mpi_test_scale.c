/*
 * mpi_test_scale.c - the exchange of a 4,096-rank job, simulated without
 * JSON (issue 17, "Performance and scale"): every MPI process fabricates
 * the collective records of the trace ranks it would hold (r % np == me),
 * then runs what the driver runs on them, in its order: the check phase's
 * all-gather of the per-file results (tlm_job_fileres, kept), route to the
 * owners (tlm_mpi_route), match, gather the members' fit points on rank 0
 * for the clock fit, broadcast the offsets, stragglers per owner merged on
 * rank 0 one process at a time (phase_collectives.c); the rows rank 0
 * keeps for the outputs stay held to the end.
 *
 * Rank 0's memory: the test's allocations and the project's go through
 * the wrappers below (linked with --wrap, tests/tests.cmake), which count
 * the bytes held and their peak; the exchange runs at N / 2 and at N
 * ranks.  Its peak is that of the route and match, which every owner
 * pays for the traces it holds and the groups it owns (rank 0 owns the
 * world group here); what rank 0 holds after the match beyond that (the
 * fit, the merge, the rows kept) must grow per added rank within the
 * budget docs/performance.md writes down ("Memory per process"; issue
 * 35).
 *
 * The job: N ranks, tensor-parallel groups of TP ranks ("tp<k>"), TP
 * data-parallel groups of N / TP ranks ("dp<k>"), the world group "0";
 * each rank takes part in C_TP allreduces of its tp group, C_DP of its dp
 * group and one of the world.  The sizes asserted follow from that
 * (formulas below); the figures are printed for docs/architecture.md
 * ("Scaling").  ctest runs it under mpirun -n 4 (tests/tests.cmake);
 * TLM_SCALE_RANKS sets N.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>
#include <malloc.h>

#include "coll_internal.h" /* tlm_coll_signature, as the extractor */
#include "driver.h"
#include "exchange.h"
#include "tlm_wrap_alloc.h"

#define TP 8
#define C_TP 4
#define C_DP 1
#define REC_PER_RANK (C_TP + C_DP + 1)

/* ---- the bytes this process holds (malloc_usable_size of each block
 * allocated through the wrappers), and their peak */

static size_t g_held, g_peak;

static void held_add(void *p)
{
    if (!p)
        return;
    g_held += malloc_usable_size(p);
    if (g_held > g_peak)
        g_peak = g_held;
}

static void held_sub(void *p)
{
    size_t n = p ? malloc_usable_size(p) : 0;
    g_held = n < g_held ? g_held - n : 0; /* a block from before: 0 */
}

void *__wrap_malloc(size_t size)
{
    void *p = __real_malloc(size);
    held_add(p);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    void *p = __real_calloc(n, size);
    held_add(p);
    return p;
}

void *__wrap_realloc(void *old, size_t size)
{
    held_sub(old);
    void *p = __real_realloc(old, size);
    held_add(p ? p : (size ? old : NULL)); /* failed: old stays */
    return p;
}

void __wrap_free(void *p)
{
    held_sub(p);
    __real_free(p);
}

typedef struct job {
    int me, np;
    int64_t n;            /* ranks of the job */
    tlm_coll_record *recs;
    size_t n_recs;
} job;

/* One allreduce record of trace rank r: instance seq of group pg (size
 * gs); the ranks' clocks disagree by a few µs, rank r arrives r % 7 µs
 * late. */
static tlm_coll_record mkrec(int32_t r, const char *pg, int32_t gs,
                             int64_t seq, int64_t t0)
{
    tlm_coll_record x;
    memset(&x, 0, sizeof x);
    x.trace_rank = r;
    snprintf(x.pg_name, sizeof x.pg_name, "%s", pg);
    snprintf(x.coll_name, sizeof x.coll_name, "allreduce");
    snprintf(x.dtype_name, sizeof x.dtype_name, "BFloat16");
    x.pg_hash = tlm_hash64(pg, strlen(pg));
    x.match_key = x.pg_hash;
    x.coll = (uint8_t)TLM_COLL_ALLREDUCE;
    x.dtype = (uint8_t)tlm_dtype_from_name("BFloat16", 8);
    x.in_nelems = x.out_nelems = 1 << 20;
    x.bytes = 2 << 20;
    x.group_size = gs;
    x.start_ns = x.ts_ns = t0 + (r % 7) * 1000 + (r / TP) % 3 * 500;
    x.dur_ns = 70000 - (r % 7) * 1000; /* the members end together */
    x.cpu_ts_ns = -1;
    x.send_bytes = x.recv_bytes = -1;
    x.max_peer_send_bytes = x.max_peer_recv_bytes = -1;
    x.stream = 7;
    x.link_id = -1;
    x.local_rank = -1;
    x.peer = -1;
    x.flags = TLM_COLL_REC_KMETA | TLM_COLL_REC_KPG | TLM_COLL_REC_TL_KEPT;
    x.seq_src = TLM_COLL_SEQ_TRACE;
    x.seq = seq;
    x.sig = tlm_coll_signature(x.coll, x.dtype, x.in_nelems, x.out_nelems);
    return x;
}

/* The records of the trace ranks this process holds. */
static void fabricate(job *j)
{
    size_t held = 0;
    for (int64_t r = j->me; r < j->n; r += j->np)
        held++;
    j->recs = calloc(held * REC_PER_RANK + 1, sizeof *j->recs);
    assert_non_null(j->recs);
    char pg[32];
    for (int64_t r = j->me; r < j->n; r += j->np) {
        int64_t t = 1000000;
        snprintf(pg, sizeof pg, "tp%lld", (long long)(r / TP));
        for (int k = 0; k < C_TP; k++, t += 1000000)
            j->recs[j->n_recs++] = mkrec((int32_t)r, pg, TP, k, t);
        snprintf(pg, sizeof pg, "dp%lld", (long long)(r % TP));
        for (int k = 0; k < C_DP; k++, t += 1000000)
            j->recs[j->n_recs++] =
                mkrec((int32_t)r, pg, (int32_t)(j->n / TP), k, t);
        j->recs[j->n_recs++] = mkrec((int32_t)r, "0", (int32_t)j->n, 0, t);
    }
}

static uint64_t sum_u64(uint64_t v)
{
    uint64_t s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

static uint64_t max_u64(uint64_t v)
{
    uint64_t s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return s;
}

/* Route + match: returns this owner's result; *sent = bytes it sent. */
static void route_match(job *j, tlm_coll_match_result *mr, uint64_t *sent)
{
    int *dest = malloc((j->n_recs + 1) * sizeof *dest);
    assert_non_null(dest);
    for (size_t i = 0; i < j->n_recs; i++)
        dest[i] = (int)(tlm_coll_record_owner_key(&j->recs[i]) %
                        (uint64_t)j->np);
    void *rr = NULL;
    size_t n_rr = 0;
    tlm_error err;
    assert_int_equal(tlm_mpi_route(j->recs, j->n_recs, sizeof *j->recs, dest,
                                   MPI_COMM_WORLD, &rr, &n_rr, &err),
                     TLM_OK);
    *sent = (uint64_t)j->n_recs * sizeof *j->recs;
    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);
    assert_int_equal(tlm_coll_match(rr, n_rr, &mo, mr, &err), TLM_OK);
    free(rr);
    free(dest);
}

/* The members' fit points to rank 0 (phase_collectives.c), clock fit
 * there, offsets to all, re-applied; rank 0 keeps the clock rows (*clk,
 * for the outputs), every process the offsets (*off). */
static void clocks(const job *j, tlm_coll_match_result *mr, uint64_t *gath,
                   size_t *n_clk, tlm_coll_clock **clk, int64_t **off)
{
    void *allm = NULL;
    size_t n_allm = 0;
    tlm_error err;
    tlm_coll_clock_pt *pts = malloc((mr->n_mem + 1) * sizeof *pts);
    assert_non_null(pts);
    tlm_coll_clock_pts_of(mr->mem, mr->n_mem, pts);
    assert_int_equal(tlm_mpi_gather(pts, mr->n_mem, sizeof *pts, 0,
                                    MPI_COMM_WORLD, &allm, &n_allm, &err),
                     TLM_OK);
    free(pts);
    *gath = (uint64_t)n_allm * sizeof(tlm_coll_clock_pt);
    *off = calloc((size_t)j->n, sizeof **off);
    assert_non_null(*off);
    *n_clk = 0;
    *clk = NULL;
    if (j->me == 0) {
        tlm_coll_clock_opts co;
        tlm_coll_clock_opts_init(&co);
        co.n_ranks = (int32_t)j->n;
        assert_int_equal(tlm_coll_clock_estimate_pts(allm, n_allm, &co, clk,
                                                     n_clk, &err),
                         TLM_OK);
        tlm_coll_clock_offsets(*clk, (size_t)j->n, *off);
    }
    free(allm);
    MPI_Bcast(*off, (int)j->n, MPI_INT64_T, 0, MPI_COMM_WORLD);
    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);
    tlm_coll_metrics_apply_offsets(mr, *off, (size_t)j->n, mo.tie_ns,
                                   mo.latency_tol_ns);
}

/* Straggler rows per owner (merged there), merged on rank 0 one process
 * at a time as phase_collectives.c does: *rows, *n_rows there (kept for
 * the outputs); *gath: the partial rows rank 0 received. */
static void stragglers(const job *j, const tlm_coll_match_result *mr,
                       uint64_t *gath, void **rows, size_t *n_rows)
{
    tlm_coll_straggler_row *ps = NULL, *acc = NULL;
    size_t n_ps = 0;
    tlm_error err;
    assert_int_equal(tlm_coll_straggler_compute(mr->inst, mr->n_inst,
                                                mr->mem, mr->n_mem, NULL,
                                                &ps, &n_ps, &err),
                     TLM_OK);
    tlm_coll_straggler_merge(ps, &n_ps);
    *n_rows = 0;
    *gath = 0;
    if (j->me == 0) {
        acc = n_ps ? realloc(ps, n_ps * sizeof *ps) : ps;
        assert_non_null(acc);
        *n_rows = n_ps;
        *gath = (uint64_t)n_ps * sizeof *ps;
        ps = NULL;
    }
    for (int p = 1; p < j->np; p++) {
        void *got = NULL;
        size_t n_got = 0;
        assert_int_equal(tlm_mpi_gather(ps, j->me == p ? n_ps : 0,
                                        sizeof *ps, 0, MPI_COMM_WORLD, &got,
                                        &n_got, &err),
                         TLM_OK);
        if (n_got > 0) {
            acc = realloc(acc, (*n_rows + n_got) * sizeof *acc);
            assert_non_null(acc);
            tlm_coll_straggler_merge_into(acc, n_rows, got, n_got);
            *gath += (uint64_t)n_got * sizeof *ps;
        }
        free(got);
    }
    if (*n_rows > 0) {
        acc = realloc(acc, *n_rows * sizeof *acc);
        assert_non_null(acc);
    }
    *rows = acc;
    tlm_coll_free(NULL, ps);
}

/* The check phase's all-gather of one result per file, kept in *all for
 * the rest of the run (c->res); returns the bytes every process
 * receives. */
static uint64_t fileres_allgather(const job *j, void **all)
{
    size_t held = (size_t)((j->n - j->me + j->np - 1) / j->np);
    tlm_job_fileres *fr = calloc(held + 1, sizeof *fr);
    assert_non_null(fr);
    for (size_t i = 0; i < held; i++) {
        fr[i].row.trace_rank = (int32_t)(j->me + (int64_t)i * j->np);
        fr[i].owner = j->me;
    }
    size_t n_all = 0;
    tlm_error err;
    assert_int_equal(tlm_mpi_allgather(fr, held, sizeof *fr, MPI_COMM_WORLD,
                                       all, &n_all, &err),
                     TLM_OK);
    assert_int_equal(n_all, (size_t)j->n);
    free(fr);
    return (uint64_t)n_all * sizeof(tlm_job_fileres);
}

static int sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
    return 1;
#endif
#endif
    return 0;
}

/* What the exchange costs a process (bytes above what it held before):
 * its peak over the whole exchange, the peak of the route and match that
 * every owner does (the all-gathered file results held), and its peak
 * after the match above what it held then (its results and its match:
 * the fit, the straggler merge and the rows kept for the outputs). */
typedef struct peaks {
    uint64_t all, route, extra;
} peaks;

/* The exchange of an n-rank job in the program's order: the check
 * phase's file results (kept), route and match, clocks, stragglers. */
static peaks run_scale(int64_t n_ranks)
{
    job j;
    memset(&j, 0, sizeof j);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.me);
    MPI_Comm_size(MPI_COMM_WORLD, &j.np);
    j.n = n_ranks;
    size_t base = g_held;
    g_peak = g_held;
    assert_true(j.n >= 2 * TP && j.n % TP == 0);
    fabricate(&j);
    uint64_t n = (uint64_t)j.n, recs = n * REC_PER_RANK;
    uint64_t inst = n / TP * C_TP + TP * C_DP + 1;
    assert_int_equal(sum_u64(j.n_recs), recs);
    void *res = NULL, *strag = NULL;
    uint64_t g_res = fileres_allgather(&j, &res);

    tlm_coll_match_result mr;
    memset(&mr, 0, sizeof mr);
    uint64_t sent = 0, g_mem = 0, g_strag = 0;
    size_t n_clk = 0, n_strag = 0;
    route_match(&j, &mr, &sent);
    free(j.recs);
    peaks pk = {0, g_peak - base, 0};
    size_t h0 = g_held;
    g_peak = g_held;
    assert_int_equal(sum_u64(mr.n_inst), inst);
    assert_int_equal(sum_u64(mr.n_mem), recs);
    assert_int_equal(sum_u64(mr.n_unm), 0);
    /* every record leaves its holder once: (N / np) x 6 x record size */
    assert_int_equal(sum_u64(sent), recs * sizeof(tlm_coll_record));
    tlm_coll_clock *clk = NULL;
    int64_t *off = NULL;
    clocks(&j, &mr, &g_mem, &n_clk, &clk, &off);
    stragglers(&j, &mr, &g_strag, &strag, &n_strag);
    pk.extra = g_peak - h0;
    pk.all = pk.route > pk.extra + (h0 - base) ? pk.route
                                               : pk.extra + (h0 - base);
    if (j.me == 0) {
        assert_int_equal(g_mem, recs * sizeof(tlm_coll_clock_pt));
        assert_int_equal(n_clk, (size_t)n);
        /* one row per (group, rank): tp, dp and world; one per rank
         * overall */
        assert_int_equal(n_strag, (size_t)(3 * n + n));
    }
    assert_int_equal(g_res, n * sizeof(tlm_job_fileres));

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t peak = max_u64((uint64_t)ru.ru_maxrss);
    uint64_t sent_max = max_u64(sent);
    uint64_t route_max = max_u64(pk.route);
    if (j.me == 0)
        printf("scale: N=%llu ranks, %d MPI processes, %d records per rank\n"
               "  record %zu B, fit point %zu B, straggler row %zu B, "
               "file result %zu B\n"
               "  Alltoallv bytes sent per process (max): %llu\n"
               "  rank 0 gathers: fit points %llu B, straggler rows %llu B\n"
               "  every process all-gathers the file results: %llu B\n"
               "  instances %llu, clock rows %zu, peak RSS (max) %llu KiB\n"
               "  route+match peak: rank 0 %llu B, max %llu B; rank 0 "
               "after the match: %llu B more\n",
               (unsigned long long)n, j.np, REC_PER_RANK,
               sizeof(tlm_coll_record), sizeof(tlm_coll_clock_pt),
               sizeof(tlm_coll_straggler_row), sizeof(tlm_job_fileres),
               (unsigned long long)sent_max,
               (unsigned long long)g_mem, (unsigned long long)g_strag,
               (unsigned long long)g_res, (unsigned long long)inst, n_clk,
               (unsigned long long)peak, (unsigned long long)pk.route,
               (unsigned long long)route_max,
               (unsigned long long)pk.extra);
    /* generous: the arrays above are ~60 MB at N = 4,096 */
    if (!sanitized())
        assert_true(peak < 512u * 1024u);
    tlm_coll_free(NULL, clk);
    free(off);
    free(strag);
    free(res);
    tlm_coll_match_result_free(&mr);
    return pk;
}

/* Rank 0's bytes per trace rank after the match, beyond what it holds
 * like any process (its file results, its match): the clock fit's peak,
 * which is the largest of its stages: the fit points of every collective
 * (REC_PER_RANK per rank, 48 B each), the fit's working arrays (about
 * FIT_WORK_PER_POINT per point, measured: its 64-byte samples, index and
 * scratch arrays, the per-domain arrays with one domain per rank here)
 * and the clock row and offset kept.  The straggler stage stays below it
 * (rank 0's own partial rows become its merged rows, each other
 * process's rows are merged in turn: 4 rows per rank kept plus one
 * process's partial rows).  docs/performance.md, "Memory per process". */
#define FIT_WORK_PER_POINT 150
#define RANK0_EXTRA_PER_RANK                                               \
    (REC_PER_RANK * (sizeof(tlm_coll_clock_pt) + FIT_WORK_PER_POINT) +     \
     sizeof(tlm_coll_clock) + sizeof(int64_t))

static void test_scale(void **state)
{
    (void)state;
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *ev = getenv("TLM_SCALE_RANKS");
    int64_t n = ev ? atoll(ev) : 4096;
    peaks p1 = run_scale(n / 2), p2 = run_scale(n);
    if (me != 0)
        return;
    /* what one more trace rank costs rank 0, measured over n / 2 ranks */
    double d = (double)(n - n / 2);
    double per_all = ((double)p2.all - (double)p1.all) / d;
    double per_route = ((double)p2.route - (double)p1.route) / d;
    double per_extra = ((double)p2.extra - (double)p1.extra) / d;
    printf("scale: rank 0 peak %llu B at N=%lld, %llu B at N=%lld: "
           "%.0f B per rank; route+match %.0f B per rank; after the match "
           "%.0f B per rank more (budget %zu B)\n",
           (unsigned long long)p1.all, (long long)(n / 2),
           (unsigned long long)p2.all, (long long)n, per_all, per_route,
           per_extra, (size_t)RANK0_EXTRA_PER_RANK);
    assert_true(p2.all > p1.all && p2.extra > p1.extra); /* they count */
    assert_true(per_extra <= 1.25 * (double)RANK0_EXTRA_PER_RANK);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_scale)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
