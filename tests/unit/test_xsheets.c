/*
 * test_xsheets.c - the JAX report sheets of an XPlane
 * (src/report/xsheets_*.c) on the generator's small file, against values
 * worked out by hand in tests/data/README.md: the timeline of both GPUs
 * and their average, the kernel summaries (names, display names,
 * categories from names and hlo_ops, digits stripped in xla_summary,
 * time per GPU), TraceLens's process order (a CPython set) and empty
 * sheets in both modes, the op categories, and the refusals (no GPU
 * plane, no GPU event).
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

#include "tlm_test_util.h"
#include "tlmpi/tlm_xplane.h"
#include "xsheets.h"

#pragma GCC diagnostic ignored "-Wunused-function"
#define TLM_GEN_XPLANE_NO_MAIN
#include "../data/gen_xplane.c"

static tlm_xplane *load(int (*gen)(const char *))
{
    char dir[256], path[300];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.pb", dir);
    if (gen(path) != 0)
        tt_die("generator");
    tlm_xplane *x = NULL;
    tlm_error err;
    assert_int_equal(tlm_xplane_read_file(path, NULL, &x, &err), TLM_OK);
    tt_rm_rf(dir);
    return x;
}

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-12 * fmax(1.0, fabs(want)))
        fail_msg("got %.17g, want %.17g", got, want);
}

static double f(const tlm_tab *t, size_t r, const char *col)
{
    long c = tlm_tab_col(t, col);
    assert_true(c >= 0);
    return tlm_tab_cell(t, r, (size_t)c)->v.f;
}

static int64_t i64(const tlm_tab *t, size_t r, const char *col)
{
    long c = tlm_tab_col(t, col);
    assert_true(c >= 0);
    return tlm_tab_cell(t, r, (size_t)c)->v.i;
}

static const char *str(const tlm_tab *t, size_t r, const char *col)
{
    long c = tlm_tab_col(t, col);
    assert_true(c >= 0);
    return tlm_tab_cell(t, r, (size_t)c)->v.s;
}

static void build(const tlm_xplane *x, unsigned compat, tlm_tab **t)
{
    tlm_error err;
    assert_int_equal(tlm_xsheets_build(x, compat, t, &err), TLM_OK);
}

static void free_all(tlm_tab **t)
{
    for (int i = 0; i < TLM_XSHEETS_N; i++)
        tlm_tab_free(t[i]);
}

static void test_timeline(void **state)
{
    (void)state;
    tlm_xplane *x = load(gen_small);
    tlm_tab *t[TLM_XSHEETS_N];
    build(x, 0, t);
    const tlm_tab *tl = t[0], *av = t[1];
    assert_string_equal(tl->name, "gpu_timeline");
    assert_int_equal(tl->nrows, 16);
    assert_int_equal(tl->ncols, 5); /* + device */
    /* GPU 0 (pid 1): us per metric, total 31.2 */
    static const double g0[8] = {15.7, 5, 2, 22.7, 8.5, 31.2, 6, 6};
    static const double g1[8] = {10.5, 0, 0, 10.5, 2, 12.5, 0, 0};
    for (int k = 0; k < 8; k++) {
        near(f(tl, (size_t)k, "time ms"), g0[k] / 1e3);
        near(f(tl, (size_t)k, "percent"), g0[k] / 31.2 * 100);
        assert_int_equal(i64(tl, (size_t)k, "gpu_pid"), 1);
        assert_int_equal(i64(tl, (size_t)k, "device"), 0);
        near(f(tl, 8 + (size_t)k, "time ms"), g1[k] / 1e3);
        assert_int_equal(i64(tl, 8 + (size_t)k, "gpu_pid"), 2);
        near(f(av, (size_t)k, "time ms"), (g0[k] + g1[k]) / 2 / 1e3);
        near(f(av, (size_t)k, "percent"),
             (g0[k] + g1[k]) / (31.2 + 12.5) * 100);
    }
    assert_string_equal(str(tl, 4, "type"), "idle_time");
    assert_int_equal(av->ncols, 3);
    free_all(t);
    build(x, TLM_COMPAT_ALL, t); /* TraceLens's columns only */
    assert_int_equal(t[0]->ncols, 4);
    free_all(t);
    tlm_xplane_free(x);
}

static void test_kernels(void **state)
{
    (void)state;
    tlm_xplane *x = load(gen_small);
    tlm_tab *t[TLM_XSHEETS_N];
    build(x, 0, t);
    const tlm_tab *s = t[2], *c = t[3], *xl = t[4];
    static const char *names[] = {"Cijk_Alik_Bljk_HHS",
                                  "ncclDevKernel_AllReduce",
                                  "loop_add_fusion_12", "loop_add_fusion_7",
                                  "my_kernel", "loop_add_fusion_3",
                                  "input_reduce_fusion"};
    static const double us[] = {18, 6, 3, 2, 1.5, 1.2, 0.5};
    static const int64_t cnt[] = {2, 1, 1, 1, 1, 1, 1};
    static const char *cats[] = {
        "['GEMM']", "['Communication rccl/nccl']",
        "['Uncategorized Events/XLA']", "['Uncategorized Events/XLA']",
        "['Conv']", "['Uncategorized Events/XLA']",
        "['Uncategorized Events/XLA']"};
    assert_int_equal(s->nrows, 7);
    double cum = 0;
    for (size_t r = 0; r < 7; r++) {
        assert_string_equal(str(s, r, "name"), names[r]);
        near(f(s, r, "total_direct_kernel_time_sum"), us[r]);
        near(f(s, r, "total_subtree_kernel_time_ms"), us[r] / 1e3);
        assert_int_equal(i64(s, r, "Count"), cnt[r]);
        assert_string_equal(str(s, r, "Categories"), cats[r]);
        near(f(s, r, "Percentage (%)"), us[r] / 32.2 * 100);
        cum += us[r] / 32.2 * 100;
        near(f(s, r, "Cumulative Percentage (%)"), cum);
        near(f(s, r, "time ms per gpu"), us[r] / 1e3 / 2);
    }
    static const char *cn[] = {"GEMM", "Uncategorized Events/XLA",
                               "Communication rccl/nccl", "Conv"};
    static const double cus[] = {18, 6.7, 6, 1.5};
    static const int64_t cc[] = {2, 4, 1, 1};
    assert_int_equal(c->nrows, 4);
    assert_int_equal(c->ncols, 6);
    for (size_t r = 0; r < 4; r++) {
        assert_string_equal(str(c, r, "op category"), cn[r]);
        assert_int_equal(i64(c, r, "Count"), cc[r]);
        near(f(c, r, "total_direct_kernel_time_ms"), cus[r] / 1e3);
        near(f(c, r, "time ms per gpu"), cus[r] / 1e3 / 2);
    }
    assert_int_equal(xl->nrows, 2);
    assert_string_equal(str(xl, 0, "name"), "loop_add_fusion_");
    assert_int_equal(i64(xl, 0, "Count"), 3);
    near(f(xl, 0, "total_direct_kernel_time_sum"), 6.2);
    near(f(xl, 0, "Percentage (%)"), 6.2 / 6.7 * 100);
    assert_string_equal(str(xl, 1, "name"), "input_reduce_fusion");
    near(f(xl, 1, "time ms per gpu"), 0.5 / 1e3 / 2);
    free_all(t);
    tlm_xplane_free(x);
}

/* GPU planes 7 and 0 (pids 8 and 1): a CPython set of {8, 1} iterates 8
 * first (slot 0 of 8); tlmpi's own order is ascending. */
static int gen_two(const char *out)
{
    TlmXp__XPlane *p[2];
    for (int i = 0; i < 2; i++) {
        p[i] = plane(i ? 0 : 7, i ? "/device:GPU:0" : "/device:GPU:7",
                     gpu_mds, N_GPU_MDS, 1);
        TlmXp__XLine *l = line(1, "Stream #1", 0, 1);
        l->events[l->n_events++] = event(3, 0, (i + 1) * PS_US, NULL);
        p[i]->lines[p[i]->n_lines++] = l;
    }
    return write_space(out, p, 2);
}

static void test_order_and_empty(void **state)
{
    (void)state;
    tlm_xplane *x = load(gen_two);
    tlm_tab *t[TLM_XSHEETS_N];
    build(x, TLM_COMPAT_ALL, t);
    assert_int_equal(i64(t[0], 0, "gpu_pid"), 8);
    assert_int_equal(i64(t[0], 8, "gpu_pid"), 1);
    assert_int_equal(t[4]->ncols, 0); /* no XLA kernel: a bare CSV */
    assert_string_equal(str(t[2], 0, "Categories"),
                        "OrderedSet(['Communication rccl/nccl'])");
    assert_int_equal(t[2]->nrows, 1); /* both ncclDevKernel_AllReduce */
    near(f(t[2], 0, "time ms per gpu"), 3.0 / 1e3 / 2);
    /* the only kernels are communication: exposed = all of it */
    near(f(t[1], 1, "time ms"), 1.5 / 1e3);
    free_all(t);
    build(x, 0, t);
    assert_int_equal(i64(t[0], 0, "gpu_pid"), 1);
    assert_int_equal(i64(t[0], 0, "device"), 0);
    assert_int_equal(i64(t[0], 8, "device"), 7);
    assert_int_equal(t[4]->ncols, 10); /* header only */
    assert_int_equal(t[4]->nrows, 0);
    free_all(t);
    tlm_xplane_free(x);
}

static void test_refusals(void **state)
{
    (void)state;
    int (*gens[])(const char *) = {gen_nogpu, gen_noevents};
    const char *msg[] = {"without GPU planes", "no GPU events"};
    for (int i = 0; i < 2; i++) {
        tlm_xplane *x = load(gens[i]);
        tlm_tab *t[TLM_XSHEETS_N];
        tlm_error err;
        assert_int_equal(tlm_xsheets_build(x, 0, t, &err), TLM_EFORMAT);
        assert_non_null(strstr(err.msg, msg[i]));
        for (int k = 0; k < TLM_XSHEETS_N; k++)
            assert_null(t[k]);
        tlm_xplane_free(x);
    }
}

static void test_category(void **state)
{
    (void)state;
    assert_string_equal(tlm_xsheets_category("Cijk_x", NULL), "GEMM");
    assert_string_equal(tlm_xsheets_category("nvjet_x", "fusion.3"),
                        "GEMM");
    /* the hlo_op's category wins when it has one */
    assert_string_equal(tlm_xsheets_category("Cijk_x", "conv.2"), "Conv");
    assert_string_equal(tlm_xsheets_category("fmha_bwd_x", ""), "FA BWD");
    assert_string_equal(tlm_xsheets_category("x", "fmha_fwd"), "FA FWD");
    assert_string_equal(tlm_xsheets_category("kernel_func", NULL), "FA V3");
    assert_string_equal(tlm_xsheets_category("transformer_engine::a", ""),
                        "TE");
    assert_string_equal(tlm_xsheets_category("rcclKernel", NULL),
                        "Communication rccl/nccl");
    assert_string_equal(tlm_xsheets_category("loop_fusion", "add.1"),
                        "Uncategorized Events/XLA");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_order_and_empty),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_category),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
