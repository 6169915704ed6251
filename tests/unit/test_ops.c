/*
 * test_ops.c - kernel launchers and the op tables (src/ops.c, src/sheets.c,
 * src/unified.c, src/report.c): launcher attribution (python functions and
 * "execute" skipped, graph launches outside ops), ops_summary,
 * ops_summary_by_category, ops_unique_args, the GEMM perf sheet,
 * unified_perf_summary with synthetic rows, and the CSV / Markdown writers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "tlm_test_util.h"

static tlm_trace *rd(const char *sq)
{
    size_t n = strlen(sq);
    char *s = malloc(n + 1);
    assert_non_null(s);
    for (size_t i = 0; i <= n; i++)
        s[i] = sq[i] == '\'' ? '"' : sq[i];
    tlm_trace *t = NULL;
    assert_int_equal(tlm_trace_read_mem(s, n, "ops.json", NULL, &t, NULL),
                     TLM_OK);
    free(s);
    return t;
}

#define RT(name, ts, corr)                                                \
    "{'ph':'X','cat':'cuda_runtime','name':'" name "','pid':1,'tid':1,"   \
    "'ts':" #ts ",'dur':1,'args':{'correlation':" #corr "}}"
#define KER(name, ts, dur, corr)                                          \
    "{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':7,'ts':"    \
    #ts ",'dur':" #dur ",'args':{'correlation':" #corr ",'stream':7}}"
#define CPU(name, ts, dur)                                                \
    "{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':"    \
    #ts ",'dur':" #dur "}"

static const char *trace_json =
    "{'traceEvents':["
    CPU("aten::linear", 0, 100) ","                                   /* 0 */
    "{'ph':'X','cat':'cpu_op','name':'aten::addmm','pid':1,'tid':1,"
    "'ts':1,'dur':50,'args':{'Input Dims':[[16],[8,32],[32,16]],"
    "'Input type':['c10::BFloat16','c10::BFloat16','c10::BFloat16'],"
    "'Input Strides':[[1],[32,1],[16,1]],"
    "'Concrete Inputs':['','','']}},"                                 /* 1 */
    RT("cudaLaunchKernel", 2, 1) ","                                  /* 2 */
    KER("sm90_gemm", 10, 20, 1) ","                                   /* 3 */
    CPU("aten::custom", 200, 100) ","                                 /* 4 */
    CPU("execute", 201, 50) ","                                       /* 5 */
    RT("cudaLaunchKernel", 202, 2) ","                                /* 6 */
    KER("void at::native::reduce_kernel<1>", 210, 6, 2) ","           /* 7 */
    RT("cudaGraphLaunch", 400, 3) ","                                 /* 8 */
    KER("graph_k1", 410, 2, 3) ","                                    /* 9 */
    KER("graph_k2", 413, 2, 3) "]}";                                  /* 10 */

static const char *cell(tlm_report *r, const char *tab, size_t row,
                        const char *col)
{
    static char buf[4096];
    long t = tlm_report_table_find(r, tab);
    if (t < 0)
        fail_msg("no table %s", tab);
    assert_true(row < tlm_report_table_rows(r, (size_t)t));
    size_t nc = tlm_report_table_cols(r, (size_t)t);
    for (size_t c = 0; c < nc; c++)
        if (!strcmp(tlm_report_table_colname(r, (size_t)t, c), col)) {
            tlm_report_cell_text(r, (size_t)t, row, c, buf, sizeof buf);
            return buf;
        }
    fail_msg("no column %s in %s", col, tab);
    return NULL;
}

static size_t rows(tlm_report *r, const char *tab)
{
    long t = tlm_report_table_find(r, tab);
    return t < 0 ? 0 : tlm_report_table_rows(r, (size_t)t);
}

/* Row of a table whose column col equals v, or fails. */
static size_t find_row(tlm_report *r, const char *tab, const char *col,
                       const char *v)
{
    for (size_t i = 0; i < rows(r, tab); i++)
        if (!strcmp(cell(r, tab, i, col), v))
            return i;
    fail_msg("%s: no row with %s == %s", tab, col, v);
    return 0;
}

static void test_tables(void **state)
{
    (void)state;
    tlm_trace *tr = rd(trace_json);
    tlm_tree *tree = NULL;
    assert_int_equal(tlm_tree_build(tr, NULL, &tree, NULL), TLM_OK);
    tlm_report *r = NULL;
    assert_int_equal(tlm_report_build(tree, NULL, &r, NULL), TLM_OK);

    /* sheet order follows TraceLens */
    assert_string_equal(tlm_report_table_name(r, 0), "gpu_timeline");
    assert_string_equal(tlm_report_table_name(r, 1),
                        "ops_summary_by_category");
    assert_string_equal(tlm_report_table_name(r, 2), "ops_summary");
    assert_string_equal(tlm_report_table_name(r, 3), "ops_unique_args");

    /* launchers: addmm (GEMM), aten::custom through "execute" (reduce by
     * kernel name), the graph launch itself (other) */
    assert_int_equal(rows(r, "ops_summary"), 3);
    assert_string_equal(cell(r, "ops_summary", 0, "name"), "aten::addmm");
    assert_string_equal(cell(r, "ops_summary", 0, "Categories"),
                        "['GEMM']");
    assert_string_equal(
        cell(r, "ops_summary", 0, "total_direct_kernel_time_sum"), "20.0");
    size_t c = find_row(r, "ops_summary", "name", "aten::custom");
    assert_string_equal(cell(r, "ops_summary", c, "Categories"),
                        "['reduce']");
    c = find_row(r, "ops_summary", "name", "cudaGraphLaunch");
    assert_string_equal(
        cell(r, "ops_summary", c, "total_direct_kernel_time_sum"), "4.0");
    double cum = strtod(cell(r, "ops_summary", 2,
                             "Cumulative Percentage (%)"), NULL);
    assert_true(cum > 100.0 - 1e-9 && cum < 100.0 + 1e-9);

    assert_int_equal(rows(r, "ops_summary_by_category"), 3);
    assert_string_equal(cell(r, "ops_summary_by_category", 0, "op category"),
                        "GEMM");
    assert_string_equal(
        cell(r, "ops_summary_by_category", 0, "total_direct_kernel_time_ms"),
        "0.02");
    assert_string_equal(cell(r, "ops_summary_by_category", 0,
                             "Percentage (%)"),
                        "66.66666666666666");

    c = find_row(r, "ops_unique_args", "name", "aten::addmm");
    assert_string_equal(cell(r, "ops_unique_args", c, "Input Dims"),
                        "((16,), (8, 32), (32, 16))");
    assert_string_equal(cell(r, "ops_unique_args", c, "ex_UID"), "1");
    assert_string_equal(cell(r, "ops_unique_args", c, "thread_name"),
                        "Unknown");

    /* GEMM perf sheet: addmm M=8 K=32 N=16 with bias */
    assert_int_equal(rows(r, "GEMM"), 1);
    assert_string_equal(cell(r, "GEMM", 0, "param: M"), "8");
    assert_string_equal(cell(r, "GEMM", 0, "param: N"), "16");
    assert_string_equal(cell(r, "GEMM", 0, "param: K"), "32");
    assert_string_equal(cell(r, "GEMM", 0, "UID_first"), "1");
    assert_string_equal(cell(r, "GEMM", 0, "Input Dims_first"),
                        "[[16], [8, 32], [32, 16]]");
    assert_string_equal(cell(r, "GEMM", 0, "Kernel Time (\xc2\xb5s)_sum"),
                        "20.0");

    /* unified: addmm (model), "execute" (leaf below aten::custom), and two
     * synthetic rows for the graph kernels, numbered after the last UID */
    assert_int_equal(rows(r, "unified_perf_summary"), 4);
    assert_string_equal(cell(r, "unified_perf_summary", 0, "name"),
                        "aten::addmm");
    assert_string_equal(cell(r, "unified_perf_summary", 0, "has_perf_model"),
                        "True");
    c = find_row(r, "unified_perf_summary", "name", "execute");
    assert_string_equal(cell(r, "unified_perf_summary", c, "has_perf_model"),
                        "False");
    assert_string_equal(cell(r, "unified_perf_summary", c, "perf_params"),
                        "");
    c = find_row(r, "unified_perf_summary", "name",
                 "cudaGraphLaunch->graph_k1 (Synthetic Op)");
    assert_string_equal(cell(r, "unified_perf_summary", c, "ex_UID"), "11");

    /* writers */
    char dir[] = "/tmp/tlm_test_ops_XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(tlm_report_write_csvs(r, dir, NULL), TLM_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/report.md", dir);
    assert_int_equal(tlm_report_write_md(r, path, NULL), TLM_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char md[8192];
    size_t n = fread(md, 1, sizeof md - 1, f);
    md[n] = '\0';
    fclose(f);
    assert_non_null(strstr(md, "## Findings"));
    assert_non_null(strstr(md, "## GPU timeline"));
    assert_non_null(strstr(md, "aten::addmm"));
    unlink(path);
    for (size_t i = 0; i < tlm_report_table_count(r); i++) {
        snprintf(path, sizeof path, "%s/%s.csv", dir,
                 tlm_report_table_name(r, i));
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        assert_true(sb.st_size > 0);
        unlink(path);
    }
    rmdir(dir);
    /* an unwritable directory is an error, not a crash */
    tlm_error err;
    assert_int_equal(tlm_report_write_csvs(r, "/nonexistent/dir", &err),
                     TLM_EIO);
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
}

static void test_options(void **state)
{
    (void)state;
    unsigned bits = 0;
    tlm_error err;
    assert_int_equal(tlm_compat_parse("all", &bits, NULL), TLM_OK);
    assert_int_equal(bits, TLM_COMPAT_ALL);
    assert_int_equal(
        tlm_compat_parse("short_kernel_null_keys,no_corr_fallback", &bits,
                         NULL),
        TLM_OK);
    assert_int_equal(bits, TLM_COMPAT_SHORT_NULL_DROP |
                               TLM_COMPAT_NO_CORR_FALLBACK);
    assert_int_equal(tlm_compat_parse("bogus", &bits, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "bogus"));

    tlm_trace *tr = rd(trace_json);
    tlm_tree *tree = NULL;
    assert_int_equal(tlm_tree_build(tr, NULL, &tree, NULL), TLM_OK);
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.gpu_arch = "no-such-gpu";
    tlm_report *r = NULL;
    assert_int_equal(tlm_report_build(tree, &o, &r, &err), TLM_EINVAL);
    assert_null(r);
    /* a bundled GPU adds the roofline columns */
    o.gpu_arch = "H100";
    assert_int_equal(tlm_report_build(tree, &o, &r, &err), TLM_OK);
    const char *bound = cell(r, "GEMM", 0, "Roofline Bound_first");
    assert_true(!strcmp(bound, "MEMORY_BOUND") ||
                !strcmp(bound, "COMPUTE_BOUND"));
    tlm_report_free(r);
    /* GPU-less trace: TraceLens raises; we return ENOTFOUND */
    tlm_tree_free(tree);
    tlm_trace_free(tr);
    tr = rd("{'traceEvents':[" CPU("aten::empty", 0, 1) "]}");
    assert_int_equal(tlm_tree_build(tr, NULL, &tree, NULL), TLM_OK);
    assert_int_equal(tlm_report_build(tree, NULL, &r, &err), TLM_ENOTFOUND);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
}

/* Every table, cell by cell, of a report built with opts.threads 1 and
 * 2: the same sheets in the same order with the same text. */
static void assert_same_reports(tlm_report *a, tlm_report *b)
{
    static char x[8192], y[8192];
    assert_int_equal(tlm_report_table_count(a), tlm_report_table_count(b));
    for (size_t t = 0; t < tlm_report_table_count(a); t++) {
        assert_string_equal(tlm_report_table_name(a, t),
                            tlm_report_table_name(b, t));
        size_t nr = tlm_report_table_rows(a, t);
        size_t nc = tlm_report_table_cols(a, t);
        assert_int_equal(nr, tlm_report_table_rows(b, t));
        assert_int_equal(nc, tlm_report_table_cols(b, t));
        for (size_t c = 0; c < nc; c++)
            assert_string_equal(tlm_report_table_colname(a, t, c),
                                tlm_report_table_colname(b, t, c));
        for (size_t i = 0; i < nr; i++)
            for (size_t c = 0; c < nc; c++) {
                tlm_report_cell_text(a, t, i, c, x, sizeof x);
                tlm_report_cell_text(b, t, i, c, y, sizeof y);
                if (strcmp(x, y))
                    fail_msg("%s row %zu col %s: '%s' vs '%s'",
                             tlm_report_table_name(a, t), i,
                             tlm_report_table_colname(a, t, c), x, y);
            }
    }
}

/* unified_perf_summary built in a second thread (opts.threads = 2) gives
 * the report of one thread, on a synthesized training step with GEMMs,
 * attention, elementwise ops, backward links and collectives, and on the
 * small trace above. */
static void test_threads_same_report(void **state)
{
    (void)state;
    char dir[256], path[1024];
    tt_synth_rank0(dir, sizeof dir, path, sizeof path, 0, 5);
    tlm_trace *trs[2] = {NULL, rd(trace_json)};
    assert_int_equal(tlm_trace_read_file(path, NULL, &trs[0], NULL), TLM_OK);
    for (int k = 0; k < 2; k++) {
        tlm_tree *tree = NULL;
        assert_int_equal(tlm_tree_build(trs[k], NULL, &tree, NULL), TLM_OK);
        tlm_report_opts o;
        tlm_report_opts_init(&o);
        o.gpu_arch = "H100";
        tlm_report *r1 = NULL, *r2 = NULL;
        assert_int_equal(o.threads, 1);
        assert_int_equal(tlm_report_build(tree, &o, &r1, NULL), TLM_OK);
        o.threads = 2;
        assert_int_equal(tlm_report_build(tree, &o, &r2, NULL), TLM_OK);
        assert_true(tlm_report_table_find(r1, "unified_perf_summary") >= 0);
        if (k == 0) /* the synthesized step has modelled ops */
            assert_true(tlm_report_table_find(r1, "GEMM") >= 0 &&
                        tlm_report_table_rows(
                            r1, (size_t)tlm_report_table_find(
                                    r1, "unified_perf_summary")) > 10);
        assert_same_reports(r1, r2);
        tlm_report_free(r1);
        tlm_report_free(r2);
        tlm_tree_free(tree);
        tlm_trace_free(trs[k]);
    }
    tt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_threads_same_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
