/*
 * test_report_md.c - report.md (src/report/report_md.c): the page of the
 * op tables' small trace, section by section with its numbers (findings,
 * GPU timeline, roofline, op categories, top ops, how the tree was built),
 * the finding without a GPU, and the Markdown tables' limits: at most 15
 * ops with a pointer to the CSV, '|' escaped, long names cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlm_test_report.h"
#include "tlm_test_util.h"

/* report.md of r, written with tlm_report_write_md; caller frees. */
static char *render(const tlm_report *r)
{
    char dir[256], path[512];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/report.md", dir);
    assert_int_equal(tlm_report_write_md(r, path, NULL), TLM_OK);
    char *s = tr_text(path);
    /* written under a temporary name, then renamed */
    snprintf(path, sizeof path, "%s/report.md.tmp", dir);
    assert_int_equal(access(path, F_OK), -1);
    tt_rm_rf(dir);
    return s;
}

/* The page holds block exactly, once. */
static void has_block(const char *md, const char *block)
{
    const char *p = strstr(md, block);
    if (!p)
        fail_msg("report.md lacks:\n%s\n--- page:\n%s", block, md);
    assert_null(strstr(p + 1, block));
}

/* Window [10, 415) us: 405 us, 30 us of kernels (20 GEMM, 6 reduce, 4 in
 * a graph launch), so 92.6 % idle. */
static void test_page(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.gpu_arch = "H100";
    o.trace_label = "rank|0";
    tr_rebuild(&f, &o);
    char *md = render(f.r);
    /* the title, then the findings */
    has_block(md,
        "# Performance report: rank\\|0\n\n"
        "Units: times in ms unless marked; bandwidth GB/s = 10^9 B/s.  "
        "Tables: the CSV files beside this page keep TraceLens's names, "
        "columns and units (\"MB\" there is MiB; see docs/report.md).\n\n"
        "GPU: H100 (source: option).\n\n"
        "## Findings\n\n"
        "- GPU idle 92.6% of the 0.405 ms window (busy 0.030 ms).\n"
        "- No communication kernels.\n"
        "- Largest op category: `GEMM`, 66.7% of op kernel time (1 ops).\n"
        "- Heaviest op: `aten::addmm`, 66.7% of op kernel time.\n"
        "- 3 kernels shorter than the short-kernel threshold "
        "(launch-bound candidates).\n"
        "- Least efficient heavy op: `aten::addmm` runs at 0.0% of its "
        "roofline (MEMORY_BOUND) over 0.020 ms of kernel time.\n\n");
    assert_true(strncmp(md, "# Performance report: ", 22) == 0);
    has_block(md,
        "## GPU timeline\n\n"
        "4 GPU operations; all devices and streams pooled (as TraceLens "
        "does).\n\n"
        "| type | time (ms) | % of total |\n|---|---:|---:|\n"
        "| computation | 0.030 | 7.41 |\n"
        "| exposed communication | 0.000 | 0.00 |\n"
        "| exposed memcpy | 0.000 | 0.00 |\n"
        "| busy | 0.030 | 7.41 |\n"
        "| idle | 0.375 | 92.59 |\n"
        "| total | 0.405 | 100.00 |\n"
        "| all communication | 0.000 | 0.00 |\n"
        "| all memcpy | 0.000 | 0.00 |\n\n");
    has_block(md,
        "## Roofline (H100: 3350 GB/s)\n\n"
        "Heavy ops (together 80% of kernel time), least efficient first:\n\n"
        "| op | input dims | category | bound | % of roofline | "
        "kernel time (ms) | count |\n"
        "|---|---|---|---|---:|---:|---:|\n"
        "| aten::addmm | ((16,), (8, 32), (32, 16)) | GEMM | MEMORY_BOUND | "
        "0.0 | 0.020 | 1 |\n\n");
    has_block(md,
        "## Op categories\n\n"
        "| category | ops | kernel time (ms) | % |\n|---|---:|---:|---:|\n"
        "| GEMM | 1 | 0.020 | 66.667 |\n"
        "| reduce | 1 | 0.006 | 20.000 |\n"
        "| other | 1 | 0.004 | 13.333 |\n\n");
    has_block(md,
        "## Top ops\n\n"
        "| op | count | kernel time (ms) | % | cum % |\n"
        "|---|---:|---:|---:|---:|\n"
        "| aten::addmm | 1 | 0.020 | 66.667 | 66.667 |\n"
        "| aten::custom | 1 | 0.006 | 20.000 | 86.667 |\n"
        "| cudaGraphLaunch | 1 | 0.004 | 13.333 | 100.000 |\n\n");
    /* empty cells print as '-' */
    has_block(md, "| aten::custom | - | - | 1 | 6.000 | 6.000 | 20.000 |\n");
    has_block(md, "| graph_k1 | cudaGraphLaunch | 1 | 2.000 | 2.000 | "
                  "6.667 |\n");
    has_block(md,
        "## How the call tree was built\n\n"
        "- 11 events, 7 host events in the stacks, 2 cpu_op roots.\n"
        "- 4 GPU operations, 4 linked to their launch (0 unlinked: launched "
        "before the capture window or without flow events); 2 linked by "
        "correlation id without a flow; 1 graph launches.\n");
    /* the sections in this order */
    static const char *const order[] = {
        "## Findings", "## GPU timeline", "## Roofline", "## Op categories",
        "## Top ops", "## Top shapes", "## Top kernels", "## Short kernels",
        "## How the call tree was built"};
    const char *prev = md;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *p = strstr(md, order[i]);
        assert_non_null(p);
        assert_true(p > prev);
        prev = p;
    }
    free(md);

    /* no GPU given: no roofline section, a finding says why; the label
     * defaults to the trace's path */
    tr_rebuild(&f, NULL);
    md = render(f.r);
    assert_null(strstr(md, "## Roofline"));
    has_block(md, "- No GPU known (--gpu_arch / --gpu_arch_json_path, or "
                  "a GPU the trace's deviceProperties name): roofline "
                  "efficiency not computed.\n");
    has_block(md, "GPU: none (source: none).\n\n");
    assert_true(strncmp(md, "# Performance report: t.json\n", 29) == 0);
    free(md);
    /* an unwritable path is an error naming the folder: a FIFO's */
    tlm_error err;
    assert_int_equal(
        tlm_report_write_md(f.r, "/dev/null/r.md", &err), TLM_EIO);
    assert_string_equal(err.file, "/dev/null");
    assert_non_null(strstr(err.msg, "output folder is a device"));
    tr_close(&f);
}

/* 16 ops named "op|NN" (kernels of NN + 1 us) and one with an 80-character
 * name (100 us): the top-ops table keeps 15 rows, escapes '|' and cuts
 * text at 70 characters, the findings at 60. */
#define X10 "abcdefghij"
#define Y10 "klmnopqrst"
#define Z10 "0123456789"

static void test_table_limits(void **state)
{
    (void)state;
    size_t cap = 1 << 16, len = 0;
    char *js = malloc(cap);
    assert_non_null(js);
    len += (size_t)snprintf(js + len, cap - len, "{'traceEvents':[");
    char name[96];
    for (int i = 0; i < 17; i++) {
        if (i < 16)
            snprintf(name, sizeof name, "op|%02d", i);
        else
            snprintf(name, sizeof name, "%s%s%s", X10 X10 X10, Y10 Y10 Y10,
                     Z10 Z10);
        int ts = i * 100;
        len += (size_t)snprintf(
            js + len, cap - len,
            "%s{'ph':'X','cat':'cpu_op','name':'%s','pid':1,'tid':1,"
            "'ts':%d,'dur':50},"
            "{'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel',"
            "'pid':1,'tid':1,'ts':%d,'dur':1,'args':{'correlation':%d}},"
            "{'ph':'X','cat':'kernel','name':'k%d','pid':0,'tid':7,"
            "'ts':%d,'dur':%d,'args':{'correlation':%d,'stream':7}}",
            i ? "," : "", name, ts, ts + 1, i + 1, i, ts + 10,
            i < 16 ? i + 1 : 100, i + 1);
    }
    len += (size_t)snprintf(js + len, cap - len, "]}");
    assert_true(len < cap);
    tr_fix f = tr_open(js, NULL);
    free(js);
    assert_int_equal(tr_rows(f.r, "ops_summary"), 17);
    char *md = render(f.r);
    has_block(md, "| " X10 X10 X10 Y10 Y10 Y10 Z10 "... | 1 | 0.100 |");
    has_block(md, "- Heaviest op: `" X10 X10 X10 Y10 Y10 Y10 "...`, ");
    has_block(md, "| op\\|15 | 1 | 0.016 |");
    has_block(md, "| op\\|02 | 1 | 0.003 |");
    /* op|01 (2 us) and op|00 (1 us) are rows 16 and 17 */
    char *top = strstr(md, "## Top ops");
    assert_non_null(top);
    char *end = strstr(top, "## Top shapes");
    assert_non_null(end);
    *end = '\0';
    assert_null(strstr(top, "op\\|01"));
    *end = '#';
    has_block(md, "\n(15 of 17 rows; full table: ops_summary.csv)\n");
    free(md);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page),
        cmocka_unit_test(test_table_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
