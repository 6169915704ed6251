/*
 * test_find.c - the findings rules (src/find, spec findings.md): each rule
 * triggered and not triggered at its boundaries, from small in-memory
 * tables whose columns are typed as a CSV reader would type them (numbers
 * as I64 or F64, has_perf_model as text); the order, severities and
 * P-numbers; findings.csv's columns; the appendix's thresholds; the
 * Markdown escaping of a hostile op name; options and hardware peaks.
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

#include "find.h"
#include "tlm_test_util.h"
#include "tlmpi/tlm_synth.h"

/* ------------------------------------------------------------ builders */

/* A table from "name:t|name:t" (t: f F64, i I64, s STR, b BOOL). */
static tlm_tab *mk(const char *name, const char *spec)
{
    char buf[1024], *names[40];
    tlm_coltype ty[40];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *tok = strtok(buf, "|"); tok && n < 40; tok = strtok(NULL, "|")) {
        char *colon = strrchr(tok, ':');
        assert_non_null(colon);
        *colon = 0;
        names[n] = tok;
        ty[n] = colon[1] == 'f'   ? TLM_COL_F64
                : colon[1] == 'i' ? TLM_COL_I64
                : colon[1] == 'b' ? TLM_COL_BOOL
                                  : TLM_COL_STR;
        n++;
    }
    tlm_tab *t = tlm_tab_new(name, n, (const char *const *)names, ty);
    assert_non_null(t);
    return t;
}

static size_t row(tlm_tab *t)
{
    long r = tlm_tab_add_row(t);
    assert_true(r >= 0);
    return (size_t)r;
}

static void setn(tlm_tab *t, size_t r, const char *col, double v)
{
    long c = tlm_tab_col(t, col);
    assert_true(c >= 0);
    if (t->coltypes[c] == TLM_COL_I64)
        tlm_tab_set_i(t, r, (size_t)c, (int64_t)v);
    else if (t->coltypes[c] == TLM_COL_BOOL)
        tlm_tab_set_b(t, r, (size_t)c, v != 0);
    else
        tlm_tab_set_f(t, r, (size_t)c, v);
}

static void sets(tlm_tab *t, size_t r, const char *col, const char *s)
{
    long c = tlm_tab_col(t, col);
    assert_true(c >= 0);
    tlm_tab_set_s(t, r, (size_t)c, s, strlen(s));
}

/* gpu_timeline of a 100 ms window with these shares (%). */
static tlm_tab *timeline(double cmp, double idle, double comm, double mc,
                         double comm_total_ms)
{
    tlm_tab *t = mk("gpu_timeline", "type:s|time ms:f|percent:f");
    struct {
        const char *n;
        double p;
    } rows[] = {{"computation_time", cmp},
                {"exposed_comm_time", comm},
                {"exposed_memcpy_time", mc},
                {"busy_time", 100 - idle},
                {"idle_time", idle},
                {"total_time", 100},
                {"total_comm_time", comm_total_ms},
                {"total_memcpy_time", mc}};
    for (size_t i = 0; i < 8; i++) {
        size_t r = row(t);
        sets(t, r, "type", rows[i].n);
        setn(t, r, "time ms", rows[i].p); /* 100 ms window: ms = % */
        setn(t, r, "percent", rows[i].p);
    }
    return t;
}

#define UNI_SPEC                                                              \
    "name:s|op category:s|Input Dims:s|Input type:s|Input Strides:s|"         \
    "Concrete Inputs:s|ex_UID:i|operation_count:i|total_duration_us:f|"       \
    "GFLOPS:f|Data Moved (MB):f|FLOPS/Byte:f|Compute Spec:s|TB/s_mean:f|"     \
    "TFLOPS/s_mean:f|Kernel Time (\xc2\xb5s)_mean:f|Kernel Time "             \
    "(\xc2\xb5s)_std:f|Kernel Time (\xc2\xb5s)_sum:f|kernel_details_summary:" \
    "s|trunc_kernel_details:s|perf_params:s|has_perf_model:s"

static tlm_tab *unified(void) { return mk("unified_perf_summary", UNI_SPEC); }

/* A unified row: T us of kernel time over count calls; tbs TB/s, fpb
 * FLOPS/Byte, spec; model "True"/"False". */
static size_t urow(tlm_tab *u, const char *name, const char *cat, double T,
                   double count, double tbs, double tfs, double fpb,
                   const char *spec, const char *model)
{
    size_t r = row(u);
    sets(u, r, "name", name);
    sets(u, r, "op category", cat);
    sets(u, r, "Input Dims", "((16, 16), (16, 16))");
    sets(u, r, "Input type", "('c10::BFloat16', 'c10::BFloat16')");
    sets(u, r, "Input Strides", "((16, 1), (16, 1))");
    sets(u, r, "Concrete Inputs", "('', '')");
    setn(u, r, "ex_UID", (double)r + 1);
    setn(u, r, "operation_count", count);
    setn(u, r, "total_duration_us", T);
    setn(u, r, "GFLOPS", 1.0);
    setn(u, r, "Data Moved (MB)", 1.0);
    setn(u, r, "FLOPS/Byte", fpb);
    sets(u, r, "Compute Spec", spec);
    if (!isnan(tbs))
        setn(u, r, "TB/s_mean", tbs);
    if (!isnan(tfs))
        setn(u, r, "TFLOPS/s_mean", tfs);
    setn(u, r, "Kernel Time (\xc2\xb5s)_mean", T / count);
    setn(u, r, "Kernel Time (\xc2\xb5s)_std", 0.1 * T / count);
    setn(u, r, "Kernel Time (\xc2\xb5s)_sum", T);
    sets(u, r, "kernel_details_summary", "[{'name': 'cutlass_kernel'}]");
    sets(u, r, "trunc_kernel_details", "[{'name': 'cutlass_kernel'}]");
    sets(u, r, "perf_params", "{}");
    sets(u, r, "has_perf_model", model);
    return r;
}

/* Hardware: 1 TB/s, matrix_bf16 1000, vector_bf16 100 TFLOP/s. */
static tlm_find_hw hw1(void)
{
    tlm_gpu_arch a;
    memset(&a, 0, sizeof a);
    snprintf(a.name, sizeof a.name, "TEST");
    a.mem_bw_gbps = 1000;
    a.n_peaks = 2;
    snprintf(a.peaks[0].key, sizeof a.peaks[0].key, "matrix_bf16");
    a.peaks[0].tflops = 1000;
    snprintf(a.peaks[1].key, sizeof a.peaks[1].key, "vector_bf16");
    a.peaks[1].tflops = 100;
    tlm_find_hw hw;
    tlm_find_hw_from_arch(&a, "test", &hw);
    return hw;
}

typedef struct fx {
    tlm_tab *t[8];
    size_t n;
    tlm_find_hw hw;
    tlm_find_opts o;
    tlm_findings *f;
} fx;

static void fx_init(fx *x, int with_hw)
{
    memset(x, 0, sizeof *x);
    if (with_hw)
        x->hw = hw1();
    tlm_find_opts_init(&x->o);
}

static void fx_add(fx *x, tlm_tab *t) { x->t[x->n++] = t; }

static void fx_run(fx *x)
{
    tlm_find_input in = {(const tlm_tab *const *)x->t, x->n, &x->hw, "t"};
    tlm_error err;
    tlm_error_clear(&err);
    assert_int_equal(tlm_find_standalone(&in, &x->o, &x->f, &err), TLM_OK);
}

static void fx_free(fx *x)
{
    tlm_findings_free(x->f);
    for (size_t i = 0; i < x->n; i++)
        tlm_tab_free(x->t[i]);
}

/* The first finding of a rule, or NULL. */
static const tlm_finding *get(const tlm_findings *f, const char *rule)
{
    for (size_t i = 0; i < tlm_findings_count(f); i++) {
        const tlm_finding *x = tlm_findings_at(f, i);
        if (x && !strcmp(x->rule, rule))
            return x;
    }
    return NULL;
}

static size_t count(const tlm_findings *f, const char *rule)
{
    size_t n = 0;
    for (size_t i = 0; i < tlm_findings_count(f); i++)
        n += !strcmp(tlm_findings_at(f, i)->rule, rule);
    return n;
}

/* -1: no finding of that rule, else its severity. */
static int sev(const tlm_findings *f, const char *rule)
{
    const tlm_finding *x = get(f, rule);
    return x ? (int)x->sev : -1;
}

/* ------------------------------------------------------ system rules */

typedef struct tl_case {
    double cmp, idle, comm, mc, comm_total;
    const char *rule;
    int want; /* -1 none, else tlm_find_sev */
} tl_case;

static void test_timeline_rules(void **state)
{
    (void)state;
    static const tl_case cases[] = {
        {95.0, 5, 0, 0, 0, "S1", -1},
        {94.99, 5, 0, 0, 0, "S1", TLM_FIND_MEDIUM},
        {85.0, 5, 0, 0, 0, "S1", TLM_FIND_MEDIUM},
        {84.99, 5, 0, 0, 0, "S1", TLM_FIND_HIGH},
        {90, 5.0, 0, 0, 0, "S2", -1},
        {90, 5.01, 0, 0, 0, "S2", TLM_FIND_LOW},
        {80, 15.0, 0, 0, 0, "S2", TLM_FIND_LOW},
        {80, 15.01, 0, 0, 0, "S2", TLM_FIND_HIGH},
        {90, 0, 5.0, 0, 5.0, "S3", TLM_FIND_MEDIUM}, /* overlap 0 */
        {90, 0, 5.0, 0, 0.05, "S3", -1},    /* under 0.1 ms: no overlap rule */
        {90, 0, 5.01, 0, 0.05, "S3", TLM_FIND_MEDIUM},
        {70, 0, 15.01, 0, 0.05, "S3", TLM_FIND_HIGH},
        {90, 0, 0.31, 0, 1.0, "S3", TLM_FIND_MEDIUM}, /* overlap 0.69 */
        {90, 0, 0.30, 0, 1.0, "S3", -1},              /* overlap 0.70 */
        {90, 0, 0, 5.0, 0, "S4", -1},
        {90, 0, 0, 5.01, 0, "S4", TLM_FIND_MEDIUM},
        {80, 0, 0, 15.01, 0, "S4", TLM_FIND_HIGH},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tl_case *c = &cases[i];
        fx x;
        fx_init(&x, 0);
        fx_add(&x, timeline(c->cmp, c->idle, c->comm, c->mc, c->comm_total));
        fx_run(&x);
        if (sev(x.f, c->rule) != c->want)
            fail_msg("case %zu: %s severity %d, want %d", i, c->rule,
                     sev(x.f, c->rule), c->want);
        fx_free(&x);
    }
}

static tlm_tab *memcpy_tab(double d2h_count, double d2h_us)
{
    tlm_tab *t = mk("memcpy_summary", "direction:s|count:i|total_us:f|"
                                      "bytes:i");
    const char *d[] = {"D2H", "H2D", "D2D", "other"};
    for (size_t i = 0; i < 4; i++) {
        size_t r = row(t);
        sets(t, r, "direction", d[i]);
        setn(t, r, "count", i ? 0 : d2h_count);
        setn(t, r, "total_us", i ? 0 : d2h_us);
        setn(t, r, "bytes", i ? 0 : 4 * d2h_count);
    }
    return t;
}

static void test_memcpy_direction(void **state)
{
    (void)state;
    /* 10 copies: none; 11: low; 10 copies taking 5.01 % of E2E: low */
    const double cnt[] = {10, 11, 10}, us[] = {100, 100, 5010};
    const int want[] = {-1, TLM_FIND_LOW, TLM_FIND_LOW};
    for (size_t i = 0; i < 3; i++) {
        fx x;
        fx_init(&x, 0);
        fx_add(&x, timeline(99, 0, 0, 0, 0));
        fx_add(&x, memcpy_tab(cnt[i], us[i]));
        fx_run(&x);
        assert_int_equal(sev(x.f, "S4"), want[i]);
        fx_free(&x);
    }
}

static void test_launch_bound(void **state)
{
    (void)state;
    /* idle 15.0 vs 15.01 with half the kernels short */
    const double idle[] = {15.0, 15.01, 15.01};
    const double shortn[] = {50, 50, 49};
    const int want[] = {-1, TLM_FIND_HIGH, -1};
    for (size_t i = 0; i < 3; i++) {
        fx x;
        fx_init(&x, 0);
        fx_add(&x, timeline(80, idle[i], 0, 0, 0));
        tlm_tab *k = mk("kernel_summary", "Parent op category:s|Kernel "
                                          "name:s|Kernel duration "
                                          "(\xc2\xb5s)_sum:f|Kernel duration "
                                          "(\xc2\xb5s)_count:i");
        size_t r = row(k);
        setn(k, r, "Kernel duration (\xc2\xb5s)_count", 100);
        /* busy 85 ms / 100 kernels: average far above 10 us */
        fx_add(&x, k);
        tlm_tab *h = mk("short_kernel_histogram", "bin_start:f|bin_end:f|"
                                                  "count:i");
        setn(h, row(h), "count", shortn[i]);
        fx_add(&x, h);
        fx_run(&x);
        assert_int_equal(sev(x.f, "S10"), want[i]);
        fx_free(&x);
    }
}

/* ------------------------------------------------------ per-op rules */

/* One memory-bound row (FLOPS/Byte 1, vector_bf16: ridge 100) of T us in
 * a 100 ms window at tbs TB/s of 1. */
static fx op_case(double T, double tbs, const char *model)
{
    fx x;
    fx_init(&x, 1);
    fx_add(&x, timeline(99, 0, 0, 0, 0));
    tlm_tab *u = unified();
    urow(u, "aten::copy_", "elementwise", T, 10, tbs, 0.01, 1.0,
         "vector_bf16", model);
    fx_add(&x, u);
    fx_run(&x);
    return x;
}

static void test_low_efficiency(void **state)
{
    (void)state;
    static const struct {
        double T, tbs;
        const char *rule;
        int want;
    } cases[] = {
        {5000, 0.3999, "S6", TLM_FIND_MEDIUM}, /* eff 39.99, mid 2.6 */
        {2000, 0.4000, "S6", TLM_FIND_LOW},    /* 40: mid 1.05 >= 1, low */
        {1500, 0.4000, "S6", -1},              /* 40: mid 0.79 < 1 */
        {2000, 0.6000, "S6", -1},              /* 60: Good */
        {5000, 0.0500, "S6", TLM_FIND_MEDIUM}, /* eff 5: mid 4.16 */
        {9000, 0.0500, "S6", TLM_FIND_HIGH},   /* mid 7.48 */
        {990, 0.1, "S6", -1},                  /* 0.99 % of E2E: not set */
        {5000, 1.1001, "S7", TLM_FIND_INFO},
        {5000, 1.0999, "S7", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx x = op_case(cases[i].T, cases[i].tbs, "True");
        if (sev(x.f, cases[i].rule) != cases[i].want)
            fail_msg("case %zu: %s severity %d want %d", i, cases[i].rule,
                     sev(x.f, cases[i].rule), cases[i].want);
        fx_free(&x);
    }
    /* impact = gap * pct: eff 37.4 % of 6.04 % -> 3.78 / 3.31 / 2.84 */
    fx x = op_case(6042, 0.374, "True");
    const tlm_finding *s6 = get(x.f, "S6");
    assert_non_null(s6);
    assert_true(fabs(s6->imp_high - 0.626 * 6.042) < 1e-9);
    assert_true(fabs(s6->imp_mid - 0.875 * s6->imp_high) < 1e-9);
    assert_true(fabs(s6->imp_low - 0.75 * s6->imp_high) < 1e-9);
    assert_string_equal(s6->bound, "memory");
    /* S18: projection to 50 and 80 % in the detail */
    assert_non_null(s6->detail);
    assert_non_null(strstr(s6->detail, "| 50 % |"));
    assert_non_null(strstr(s6->detail, "| 80 % |"));
    fx_free(&x);
}

static void test_no_model(void **state)
{
    (void)state;
    fx x = op_case(5000, NAN, "False"); /* 5 %: 0.75 / 1.5 / 2.25 */
    const tlm_finding *s8 = get(x.f, "S8");
    assert_non_null(s8);
    assert_int_equal(s8->sev, TLM_FIND_MEDIUM);
    assert_true(fabs(s8->imp_mid - 1.5) < 1e-9);
    assert_null(get(x.f, "S6"));
    fx_free(&x);
    x = op_case(990, NAN, "False"); /* below the analysis set */
    assert_null(get(x.f, "S8"));
    fx_free(&x);
    x = op_case(5000, 0.1, "True"); /* modelled: S6, not S8 */
    assert_null(get(x.f, "S8"));
    assert_non_null(get(x.f, "S6"));
    fx_free(&x);
}

static void test_replay_flag(void **state)
{
    (void)state;
    /* 11 % of compute (99 ms) at eff 10: replay; 9.9 %: not */
    const double T[] = {10890, 9801};
    const int want[] = {1, 0};
    for (size_t i = 0; i < 2; i++) {
        fx x = op_case(T[i], 0.1, "True");
        const tlm_finding *s6 = get(x.f, "S6");
        assert_non_null(s6);
        assert_int_equal(s6->replay, want[i]);
        fx_free(&x);
    }
}

static void test_short_seq_attention(void **state)
{
    (void)state;
    /* SDPA row, N_Q 559: eff_cmp 5.0 is within 5-15 % -> capped low */
    const double tfs[] = {50.0, 49.9};
    const int want[] = {TLM_FIND_LOW, TLM_FIND_HIGH};
    for (size_t i = 0; i < 2; i++) {
        fx x;
        fx_init(&x, 1);
        fx_add(&x, timeline(99, 0, 0, 0, 0));
        tlm_tab *u = unified();
        size_t r = urow(u, "aten::_scaled_dot_product_flash_attention",
                        "SDPA_fwd", 20000, 10, 0.05, tfs[i], 2000,
                        "matrix_bf16", "True");
        sets(u, r, "perf_params", "{'B': 16, 'N_Q': 559, 'H_Q': 16}");
        fx_add(&x, u);
        fx_run(&x);
        assert_int_equal(sev(x.f, "S6"), want[i]);
        fx_free(&x);
    }
}

static void test_norm_vs_baseline(void **state)
{
    (void)state;
    /* baseline: aten::add of 8 MiB x 100 calls in 1000 us = 0.839 TB/s
     * (83.9 %); norm at 19.99 % vs 20 % of peak */
    const double tbs[] = {0.1999, 0.2000};
    const int want[] = {TLM_FIND_HIGH, -1};
    for (size_t i = 0; i < 2; i++) {
        fx x;
        fx_init(&x, 1);
        fx_add(&x, timeline(99, 0, 0, 0, 0));
        tlm_tab *u = unified();
        size_t r = urow(u, "aten::add", "elementwise", 1000, 100, 0.8, 0.01,
                        0.1, "vector_bf16", "True");
        setn(u, r, "Data Moved (MB)", 8.0);
        urow(u, "aten::native_layer_norm", "NORM_fwd", 5000, 10, tbs[i], 0.01,
             1.0, "vector_bf16", "True");
        fx_add(&x, u);
        fx_run(&x);
        assert_int_equal(sev(x.f, "S14"), want[i]);
        fx_free(&x);
    }
}

static void test_variance_library_sync(void **state)
{
    (void)state;
    fx x;
    fx_init(&x, 1);
    fx_add(&x, timeline(99, 0, 0, 0, 0));
    tlm_tab *u = unified();
    /* S17: 11 calls, 5 % of E2E, CoV 1.01; the twin at CoV 1.0 does not */
    size_t a = urow(u, "aten::a", "elementwise", 5000, 11, 0.9, 0.01, 1,
                    "vector_bf16", "True");
    setn(u, a, "Kernel Time (\xc2\xb5s)_std", 1.01 * 5000 / 11);
    size_t b = urow(u, "aten::b", "elementwise", 5000, 11, 0.9, 0.01, 1,
                    "vector_bf16", "True");
    setn(u, b, "Kernel Time (\xc2\xb5s)_std", 1.0 * 5000 / 11);
    /* S19: a GEMM on a generic framework kernel */
    size_t g = urow(u, "aten::mm", "GEMM", 2000, 4, 0.9, 900, 5000,
                    "matrix_bf16", "True");
    sets(u, g, "kernel_details_summary",
         "[{'name': 'void at::native::gemm_kernel'}]");
    /* S16: CPU time 5.01x the GPU time, 1.002 ms beyond it */
    size_t s = urow(u, "aten::item", "other", 250, 1, NAN, NAN, 0, "",
                    "False");
    setn(u, s, "total_duration_us", 1252);
    fx_add(&x, u);
    fx_run(&x);
    assert_int_equal(count(x.f, "S17"), 1);
    assert_non_null(strstr(get(x.f, "S17")->subject, "aten::a"));
    assert_int_equal(sev(x.f, "S19"), TLM_FIND_LOW);
    assert_int_equal(sev(x.f, "S16"), TLM_FIND_LOW);
    fx_free(&x);
}

/* --------------------------------------------------- pattern rules */

static void test_tiny_gemm(void **state)
{
    (void)state;
    const double B[] = {1000, 999, 1000}, N[] = {8, 8, 65};
    const int want[] = {TLM_FIND_MEDIUM, -1, -1};
    for (size_t i = 0; i < 3; i++) {
        fx x;
        fx_init(&x, 0);
        fx_add(&x, timeline(99, 0, 0, 0, 0));
        tlm_tab *g = mk("GEMM", "name:s|param: B:i|param: M:i|param: N:i|"
                                "param: K:i|Kernel Time (\xc2\xb5s)_sum:f|"
                                "name_count:i");
        size_t r = row(g);
        sets(g, r, "name", "aten::bmm");
        setn(g, r, "param: B", B[i]);
        setn(g, r, "param: M", 64);
        setn(g, r, "param: N", N[i]);
        setn(g, r, "param: K", 64);
        setn(g, r, "Kernel Time (\xc2\xb5s)_sum", 2000);
        setn(g, r, "name_count", 3);
        fx_add(&x, g);
        fx_run(&x);
        assert_int_equal(sev(x.f, "S11"), want[i]);
        fx_free(&x);
    }
}

static void test_unfused_attention(void **state)
{
    (void)state;
    const double sm[] = {2.0, 1.99, 17.0, 2.0};
    const int flash[] = {0, 0, 0, 1};
    const int want[] = {TLM_FIND_MEDIUM, -1, TLM_FIND_HIGH, -1};
    for (size_t i = 0; i < 4; i++) {
        fx x;
        fx_init(&x, 0);
        fx_add(&x, timeline(99, 0, 0, 0, 0));
        tlm_tab *o = mk("ops_summary", "name:s|total_direct_kernel_time_ms:"
                                       "f|Count:i|Percentage (%):f");
        const char *n[] = {"aten::_softmax", "aten::bmm", "aten::mul"};
        const double p[] = {sm[i], 3.0, 50.0};
        for (size_t k = 0; k < 3; k++) {
            size_t r = row(o);
            sets(o, r, "name", n[k]);
            setn(o, r, "Percentage (%)", p[k]);
            setn(o, r, "total_direct_kernel_time_ms", p[k]);
        }
        if (flash[i])
            sets(o, row(o), "name", "aten::_flash_attention_forward");
        fx_add(&x, o);
        fx_run(&x);
        assert_int_equal(sev(x.f, "S12"), want[i]);
        fx_free(&x);
    }
}

static void test_conv_layout(void **state)
{
    (void)state;
    /* layout kernels of 1000 us conv time; CNHW in capitals counts */
    const double lay[] = {100.0, 100.1, 200.0, 200.1};
    const int want[] = {-1, TLM_FIND_MEDIUM, TLM_FIND_MEDIUM, TLM_FIND_HIGH};
    for (size_t i = 0; i < 4; i++) {
        fx x;
        fx_init(&x, 0);
        fx_add(&x, timeline(99, 0, 0, 0, 0));
        tlm_tab *k = mk("kernel_summary", "Parent op category:s|Kernel "
                                          "name:s|Kernel duration "
                                          "(\xc2\xb5s)_sum:f|Kernel duration "
                                          "(\xc2\xb5s)_count:i");
        size_t r = row(k);
        sets(k, r, "Parent op category", "CONV_fwd");
        sets(k, r, "Kernel name", "transpose_CNHW2NCHW_V2");
        setn(k, r, "Kernel duration (\xc2\xb5s)_sum", lay[i]);
        r = row(k);
        sets(k, r, "Parent op category", "CONV_bwd");
        sets(k, r, "Kernel name", "igemm_bwd");
        setn(k, r, "Kernel duration (\xc2\xb5s)_sum", 1000 - lay[i]);
        r = row(k); /* not a convolution: ignored */
        sets(k, r, "Parent op category", "elementwise");
        sets(k, r, "Kernel name", "batched_transpose");
        setn(k, r, "Kernel duration (\xc2\xb5s)_sum", 5000);
        fx_add(&x, k);
        fx_run(&x);
        assert_int_equal(sev(x.f, "S15"), want[i]);
        fx_free(&x);
    }
}

/* --------------------------------------------- order, output, text */

static void test_order_and_numbers(void **state)
{
    (void)state;
    fx x;
    fx_init(&x, 1);
    /* S1 high, S2 high (system), S6 high (per-op), S6 below 0.5 */
    fx_add(&x, timeline(70, 20, 0, 0, 0));
    tlm_tab *u = unified();
    urow(u, "aten::big", "elementwise", 9000, 10, 0.05, 0.01, 1,
         "vector_bf16", "True");
    urow(u, "aten::small", "elementwise", 1000, 10, 0.55, 0.01, 1,
         "vector_bf16", "True");
    fx_add(&x, u);
    x.o.t[TLM_FIND_T_eff_ok] = 60;
    fx_run(&x);
    size_t n = tlm_findings_count(x.f);
    assert_true(n >= 3);
    const tlm_finding *a = tlm_findings_at(x.f, 0);
    assert_string_equal(a->id, "P1");
    assert_int_equal(a->sev, TLM_FIND_HIGH);
    assert_true(a->system);
    /* every numbered finding before every appendix one, P in order */
    int seen_app = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const tlm_finding *y = tlm_findings_at(x.f, i);
        if (y->appendix) {
            seen_app = 1;
            assert_string_equal(y->id, "");
            continue;
        }
        assert_false(seen_app);
        char want[12];
        snprintf(want, sizeof want, "P%zu", ++k);
        assert_string_equal(y->id, want);
        if (i)
            assert_true(tlm_findings_at(x.f, i - 1)->sev <= y->sev);
    }
    /* high system findings come before the high per-op one */
    const tlm_finding *big = NULL;
    for (size_t i = 0; i < n; i++)
        if (strstr(tlm_findings_at(x.f, i)->subject, "aten::big"))
            big = tlm_findings_at(x.f, i);
    assert_non_null(big);
    assert_int_equal(big->sev, TLM_FIND_HIGH);
    assert_string_equal(big->id, "P3");
    fx_free(&x);
}

/* An impact range of one value is printed once ("Impact: 6.93 %", not
 * "6.93–6.93 %"); a true range keeps both ends and the mid (issue 34). */
static void test_impact_one_value(void **state)
{
    (void)state;
    fx x = op_case(5000, 0.1, "True");
    assert_true(tlm_findings_count(x.f) >= 1);
    tlm_finding *y = (tlm_finding *)tlm_findings_at(x.f, 0);
    y->has_impact = 1;
    y->imp_low = y->imp_mid = y->imp_high = 6.93;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_findings_md(x.f, &b, 0);
    assert_false(b.oom);
    assert_non_null(strstr(b.p, "**Impact**: 6.93 % of E2E"));
    assert_null(strstr(b.p, "6.93\xe2\x80\x93" "6.93"));
    tlm_sbuf_reset(&b);
    y->imp_low = 5.2;
    y->imp_mid = 6.1;
    tlm_findings_md(x.f, &b, 0);
    assert_non_null(strstr(b.p, "**Impact**: 5.20\xe2\x80\x93" "6.93 % of E2E "
                                "(mid 6.10)"));
    tlm_sbuf_free(&b);
    fx_free(&x);
}

static void test_table_and_appendix(void **state)
{
    (void)state;
    fx x = op_case(5000, 0.1, "True");
    tlm_tab *t = tlm_findings_table(x.f);
    assert_non_null(t);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    assert_true(!strncmp(b.p, "id,rule,mode,severity,subject,pct_e2e,eff,"
                              "bound,impact_low,impact_mid,impact_high,text,"
                              "action_a,action_b,replay,evidence,ratio,"
                              "expected,expected_kind,excess\n",
                         strlen("id,rule,mode,severity,subject,pct_e2e,eff,"
                                "bound,impact_low,impact_mid,impact_high,"
                                "text,action_a,action_b,replay,evidence,"
                                "ratio,expected,expected_kind,excess\n")));
    assert_non_null(strstr(b.p, "\nP1,S6,standalone,medium,"));
    tlm_tab_free(t);
    tlm_sbuf_reset(&b);
    x.o.t[0] = 1.0;
    tlm_findings_md(x.f, &b, 0);
    assert_false(b.oom);
    for (size_t i = 0; i < TLM_FIND_NT; i++) {
        char opt[96];
        snprintf(opt, sizeof opt, "| `--findings_%s` | %g | %g |",
                 tlm_find_threshold_name(i), tlm_find_threshold_default(i),
                 tlm_find_threshold_default(i));
        if (!strstr(b.p, opt))
            fail_msg("appendix lacks %s", opt);
    }
    assert_non_null(strstr(b.p, "### Appendix"));
    assert_non_null(strstr(b.p, "- Hardware: TEST (test)"));
    assert_non_null(strstr(b.p, "#### P1 "));
    tlm_sbuf_free(&b);
    fx_free(&x);
}

static void test_hostile_name(void **state)
{
    (void)state;
    fx x;
    fx_init(&x, 0);
    fx_add(&x, timeline(99, 0, 0, 0, 0));
    tlm_tab *u = unified();
    urow(u, "evil|op*`x`\n<script>alert(1)</script>_[a](b)", "other", 5000,
         10, NAN, NAN, 0, "", "False");
    fx_add(&x, u);
    tlm_tab *o = mk("ops_summary", "name:s|total_direct_kernel_time_ms:f|"
                                   "Count:i|Percentage (%):f");
    sets(o, row(o), "name", "evil|op*`x`\n<script>");
    fx_add(&x, o);
    fx_run(&x);
    assert_non_null(get(x.f, "S8"));
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_findings_md(x.f, &b, 0);
    assert_null(strstr(b.p, "<script>"));
    assert_null(strstr(b.p, "evil|"));
    assert_null(strstr(b.p, "op*`"));
    assert_non_null(strstr(b.p, "evil\\|op\\*\\`x\\` \\<script\\>"));
    /* no line break inside the card's heading */
    const char *h = strstr(b.p, "#### P1 ");
    assert_non_null(h);
    assert_non_null(strstr(h, "\\</script\\>\\_\\[a\\](b)"));
    assert_true(strchr(h, '\n') > strstr(h, "(b)"));
    tlm_sbuf_free(&b);
    fx_free(&x);
}

/* ------------------------------------------------------ comparisons */

/* A side: a 100 ms window and one unified row "aten::x" of T us over
 * count calls, plus "aten::only_<tag>" on this side only. */
static void side(fx *x, double T, double count, const char *only, double To)
{
    fx_init(x, 0);
    fx_add(x, timeline(99, 0, 0, 0, 0));
    tlm_tab *u = unified();
    size_t r = urow(u, "aten::x", "elementwise", T, count, 0.5, 0.01, 1,
                    "vector_bf16", "True");
    setn(u, r, "GFLOPS", 0.001); /* memory-bound at any of these peaks */
    if (only)
        urow(u, only, "other", To, 1, NAN, NAN, 0, "", "False");
    fx_add(x, u);
}

static tlm_findings *compare(fx *t, fx *r)
{
    tlm_find_input ti = {(const tlm_tab *const *)t->t, t->n, &t->hw, "tgt"};
    tlm_find_input ri = {(const tlm_tab *const *)r->t, r->n, &r->hw, "ref"};
    tlm_findings *f = NULL;
    tlm_error err;
    tlm_error_clear(&err);
    assert_int_equal(tlm_find_compare(&ti, &ri, &t->o, &f, &err), TLM_OK);
    return f;
}

static void test_compare_excess(void **state)
{
    (void)state;
    /* same GPU (no peaks: expected 1); per call 100 us on the reference */
    static const struct {
        double Tt;
        const char *rule;
        int want;
        int appendix;
    } cases[] = {
        {12499, "C2", -1, 0},             /* excess 1.2499: C3 */
        {12500, "C2", TLM_FIND_MEDIUM, 0}, /* 1.25, saving 2.5 % */
        {20000, "C2", TLM_FIND_HIGH, 0},  /* 2.0 */
        {12499, "C3", TLM_FIND_INFO, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx t, r;
        side(&t, cases[i].Tt, 100, NULL, 0);
        side(&r, 10000, 100, NULL, 0);
        tlm_findings *f = compare(&t, &r);
        assert_int_equal(sev(f, cases[i].rule), cases[i].want);
        if (cases[i].want >= 0) {
            const tlm_finding *y = get(f, cases[i].rule);
            assert_int_equal(y->appendix, cases[i].appendix);
            assert_true(fabs(y->excess - cases[i].Tt / 10000) < 1e-9);
            assert_string_equal(y->mode, "comparative");
        }
        assert_non_null(get(f, "C1"));
        tlm_findings_free(f);
        fx_free(&t);
        fx_free(&r);
    }
    /* saving 0.49 % of target E2E: C2 goes to the appendix */
    fx t, r;
    side(&t, 1960, 100, NULL, 0); /* 1.96 %: ratio 1.3266, save 0.482 ms */
    side(&r, 1470, 100, NULL, 0);
    tlm_findings *f = compare(&t, &r);
    assert_non_null(get(f, "C2"));
    assert_int_equal(get(f, "C2")->appendix, 1);
    tlm_findings_free(f);
    fx_free(&t);
    fx_free(&r);
}

static void test_compare_latency_missing_count(void **state)
{
    (void)state;
    fx t, r;
    /* 1000 calls at 2 us vs 1 us: latency-bound, gap 1 ms = 1 %; the
     * target has 200 calls more (C6); aten::only_t is 2 % of the target */
    side(&t, 2000, 1000, "aten::only_t", 2000);
    side(&r, 800, 800, "aten::only_r", 900);
    tlm_findings *f = compare(&t, &r);
    assert_int_equal(sev(f, "C4"), TLM_FIND_LOW);
    assert_null(get(f, "C2"));
    assert_int_equal(sev(f, "C6"), TLM_FIND_INFO);
    assert_int_equal(count(f, "C5"), 1); /* only_r is 0.9 %: none */
    assert_string_equal(get(f, "C5")->subject, "aten::only_t");
    /* C7: the target's own findings follow, numbered on */
    const tlm_finding *s8 = get(f, "S8");
    assert_non_null(s8);
    assert_string_equal(s8->mode, "standalone");
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_findings_md(f, &b, 1);
    assert_non_null(strstr(b.p, "| Reference (ms) | Target (ms) |"));
    assert_non_null(strstr(b.p, "Target on its own (C7)"));
    assert_null(strstr(b.p, "better"));
    assert_null(strstr(b.p, "worse"));
    tlm_sbuf_free(&b);
    tlm_findings_free(f);
    fx_free(&t);
    fx_free(&r);
    /* ops_summary names on one side only (no unified row): 1.5 % vs
     * 0.99 % of E2E */
    side(&t, 10000, 100, NULL, 0);
    side(&r, 10000, 100, NULL, 0);
    const char *on[2] = {"aten::only_ops_t", "aten::only_ops_r"};
    const double oms[2] = {1.5, 0.99};
    fx *sd[2] = {&t, &r};
    for (size_t k = 0; k < 2; k++) {
        tlm_tab *o = mk("ops_summary", "name:s|total_direct_kernel_time_ms:"
                                       "f|Count:i|Percentage (%):f");
        size_t q = row(o);
        sets(o, q, "name", on[k]);
        setn(o, q, "total_direct_kernel_time_ms", oms[k]);
        q = row(o);
        sets(o, q, "name", "aten::x");
        setn(o, q, "total_direct_kernel_time_ms", 10);
        fx_add(sd[k], o);
    }
    f = compare(&t, &r);
    assert_int_equal(count(f, "C5"), 1);
    assert_string_equal(get(f, "C5")->subject, "aten::only_ops_t");
    tlm_findings_free(f);
    fx_free(&t);
    fx_free(&r);
    /* idle +5 points: a C1 finding; +4.99: none */
    const double idle[] = {10, 9.99};
    const int want[] = {2, 1};
    for (size_t i = 0; i < 2; i++) {
        fx a, c;
        fx_init(&a, 0);
        fx_add(&a, timeline(85, idle[i], 0, 0, 0));
        fx_init(&c, 0);
        fx_add(&c, timeline(90, 5, 0, 0, 0));
        f = compare(&a, &c);
        assert_int_equal(count(f, "C1"), want[i]);
        tlm_findings_free(f);
        fx_free(&a);
        fx_free(&c);
    }
}

static void test_compare_roofline_ratio(void **state)
{
    (void)state;
    /* target half the bandwidth of the reference: a memory-bound row
     * expected 2x slower; 2.4x is excess 1.2 (C3), 2.6x 1.3 (C2) */
    const double Tt[] = {24000, 26000};
    const char *want[] = {"C3", "C2"};
    for (size_t i = 0; i < 2; i++) {
        fx t, r;
        side(&t, Tt[i], 100, NULL, 0);
        side(&r, 10000, 100, NULL, 0);
        t.hw = hw1();
        r.hw = hw1();
        r.hw.bw = 2.0;
        tlm_findings *f = compare(&t, &r);
        const tlm_finding *y = get(f, want[i]);
        assert_non_null(y);
        assert_string_equal(y->expected_kind, "roofline");
        assert_true(fabs(y->expected - 2.0) < 1e-9);
        tlm_findings_free(f);
        fx_free(&t);
        fx_free(&r);
    }
}

/* A synthetic one-GPU job, its flash-attention kernels factor times
 * slower, as a report.  *dir to remove. */
typedef struct synth_rep {
    char dir[256];
    tlm_trace *tr;
    tlm_tree *tree;
    tlm_report *rep;
} synth_rep;

static void synth_report(synth_rep *x, double factor)
{
    tt_tmpdir(x->dir, sizeof x->dir);
    tlm_synth_opts so;
    tlm_synth_opts_init(&so);
    so.out_dir = x->dir;
    so.world_size = 1;
    so.tp = 1;
    so.layers = 2;
    so.steps = 1;
    so.seed = 5;
    if (factor != 1.0) {
        so.slow_kernel = "flash_fwd";
        so.slow_kernel_factor = factor;
    }
    tlm_synth_truth *truth = NULL;
    assert_int_equal(tlm_synth_run(&so, &truth, NULL), TLM_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", x->dir, truth->ranks[0].trace_file);
    tlm_synth_truth_free(truth);
    tlm_error err;
    tlm_error_clear(&err);
    assert_int_equal(tlm_trace_read_file(path, NULL, &x->tr, &err), TLM_OK);
    assert_int_equal(tlm_tree_build(x->tr, NULL, &x->tree, &err), TLM_OK);
    assert_int_equal(tlm_report_build(x->tree, NULL, &x->rep, &err), TLM_OK);
}

static void synth_free(synth_rep *x)
{
    tlm_report_free(x->rep);
    tlm_tree_free(x->tree);
    tlm_trace_free(x->tr);
    tt_rm_rf(x->dir);
}

/* The same job with and without an injected slow kernel: the one
 * unexpected slowdown (C2) is the op of that kernel. */
static void test_synth_slow_kernel(void **state)
{
    (void)state;
    synth_rep base, slow;
    synth_report(&base, 1.0);
    synth_report(&slow, 3.0);
    tlm_find_opts o;
    tlm_find_opts_init(&o);
    tlm_find_rin rb, rs;
    tlm_error err;
    assert_int_equal(tlm_find_input_of_report(base.rep, &o, &rb, &err),
                     TLM_OK);
    assert_int_equal(tlm_find_input_of_report(slow.rep, &o, &rs, &err),
                     TLM_OK);
    assert_true(rs.hw.known); /* the synthesizer's H100 deviceProperties */
    tlm_findings *f = NULL;
    assert_int_equal(tlm_find_compare(&rs.in, &rb.in, &o, &f, &err), TLM_OK);
    assert_int_equal(count(f, "C2"), 1);
    const tlm_finding *c2 = get(f, "C2");
    assert_non_null(strstr(c2->subject,
                           "aten::_scaled_dot_product_flash_attention"));
    assert_int_equal(c2->sev, TLM_FIND_HIGH);
    assert_true(fabs(c2->ratio - 3.0) < 0.01);
    assert_string_equal(c2->id, "P1");
    /* and the standalone findings of the base report come through the
     * report's own tables, memcpy_summary included */
    tlm_findings_free(f);
    assert_int_equal(tlm_find_report(base.rep, &o, &f, &err), TLM_OK);
    assert_true(tlm_findings_count(f) > 0);
    assert_non_null(tlm_report_memcpy_tab(base.rep));
    tlm_findings_free(f);
    tlm_find_rin_free(&rb);
    tlm_find_rin_free(&rs);
    synth_free(&base);
    synth_free(&slow);
}

/* ------------------------------------------------ options, hardware */

static void test_options(void **state)
{
    (void)state;
    tlm_find_opts o;
    tlm_find_opts_init(&o);
    tlm_error err;
    assert_int_equal(o.t[TLM_FIND_T_idle], 5.0);
    assert_int_equal(tlm_find_opt_parse("--findings_idle", "7.5", &o, &err),
                     TLM_FIND_OPT_OK);
    assert_true(o.t[TLM_FIND_T_idle] == 7.5);
    assert_int_equal(tlm_find_opt_parse("--findings_idle", "x", &o, &err),
                     TLM_FIND_OPT_ERROR);
    assert_int_equal(tlm_find_opt_parse("--findings_nope", "1", &o, &err),
                     TLM_FIND_OPT_ERROR);
    assert_non_null(strstr(err.msg, "--findings_nope"));
    assert_int_equal(tlm_find_opt_parse("--threads", "1", &o, &err),
                     TLM_FIND_OPT_NOT_MINE);
    assert_int_equal(tlm_find_opt_parse("--platform", "MI300X", &o, &err),
                     TLM_FIND_OPT_OK);
    tlm_find_hw hw;
    assert_int_equal(tlm_find_hw_resolve(&o, NULL, NULL, &hw, &err), TLM_OK);
    assert_true(hw.known && fabs(hw.bw - 5.3) < 1e-9);
    assert_true(fabs(tlm_find_hw_peak(&hw, "matrix_bf16") - 708) < 1e-9);
    o.platform = "MI325X";
    assert_int_equal(tlm_find_hw_resolve(&o, NULL, NULL, &hw, &err), TLM_OK);
    assert_true(fabs(tlm_find_hw_peak(&hw, "matrix_bf16") - 843) < 1e-9);
    o.platform = "H100";
    assert_int_equal(tlm_find_hw_resolve(&o, NULL, NULL, &hw, &err), TLM_OK);
    assert_true(fabs(hw.bw - 3.35) < 1e-9);
    o.platform = "Z80";
    assert_int_equal(tlm_find_hw_resolve(&o, NULL, NULL, &hw, &err),
                     TLM_EINVAL);
    assert_non_null(strstr(err.msg, "Z80"));
    /* no option: the fallback GPU, or none */
    tlm_find_opts_init(&o);
    assert_int_equal(tlm_find_hw_resolve(&o, tlm_gpu_arch_lookup("A100"),
                                         "report", &hw, &err),
                     TLM_OK);
    assert_true(hw.known && strstr(hw.basis, "A100"));
    assert_int_equal(tlm_find_hw_resolve(&o, NULL, NULL, &hw, &err), TLM_OK);
    assert_false(hw.known);
}

static void test_missing_tables(void **state)
{
    (void)state;
    fx x;
    fx_init(&x, 0);
    fx_run(&x); /* nothing at all */
    assert_int_equal(tlm_findings_count(x.f), 0);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_findings_md(x.f, &b, 0);
    assert_non_null(strstr(b.p, "no gpu_timeline table"));
    assert_non_null(strstr(b.p, "no hardware peaks given"));
    tlm_sbuf_free(&b);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline_rules),
        cmocka_unit_test(test_memcpy_direction),
        cmocka_unit_test(test_launch_bound),
        cmocka_unit_test(test_low_efficiency),
        cmocka_unit_test(test_no_model),
        cmocka_unit_test(test_replay_flag),
        cmocka_unit_test(test_short_seq_attention),
        cmocka_unit_test(test_norm_vs_baseline),
        cmocka_unit_test(test_variance_library_sync),
        cmocka_unit_test(test_tiny_gemm),
        cmocka_unit_test(test_unfused_attention),
        cmocka_unit_test(test_conv_layout),
        cmocka_unit_test(test_order_and_numbers),
        cmocka_unit_test(test_table_and_appendix),
        cmocka_unit_test(test_impact_one_value),
        cmocka_unit_test(test_hostile_name),
        cmocka_unit_test(test_compare_excess),
        cmocka_unit_test(test_compare_latency_missing_count),
        cmocka_unit_test(test_compare_roofline_ratio),
        cmocka_unit_test(test_synth_slow_kernel),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_missing_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
