/*
 * tlm_test_report.h - helpers shared by the report's unit tests
 * (test_report.c, test_report_md.c, test_ops.c, test_sheets.c,
 * test_unified.c, test_kernels.c, test_timeline.c); header only, include it
 * after <cmocka.h> (the helpers assert).
 *
 *   (tt_read_sq() of tlm_test_util.h reads a trace written with ' for ".)
 *   TR_CPU/RT/KER    one cpu_op, runtime launch or kernel event.
 *   tr_ops_json()    the small trace of the op tables: a GEMM, a custom op
 *                    launching through "execute", a CUDA graph launch.
 *   tr_build()       tree and report of a trace (asserts success).
 *   tr_fix, tr_open(), tr_rebuild(), tr_close()
 *                    a trace with its tree and report, built and freed
 *                    together.
 *   tr_text()        a whole file as a NUL-terminated string.
 *   tr_cell(), tr_rows(), tr_find_row()
 *                    a table's cell text by column name, its row count,
 *                    the row holding a value.
 *   tr_same_reports() every table of two reports equal, cell by cell.
 */
#ifndef TLM_TEST_REPORT_H
#define TLM_TEST_REPORT_H

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "tlm_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TR_UNUSED __attribute__((unused))
#else
#define TR_UNUSED
#endif

#define TR_RT(name, ts, corr)                                             \
    "{'ph':'X','cat':'cuda_runtime','name':'" name "','pid':1,'tid':1,"   \
    "'ts':" #ts ",'dur':1,'args':{'correlation':" #corr "}}"
#define TR_KER(name, ts, dur, corr)                                       \
    "{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':7,'ts':"    \
    #ts ",'dur':" #dur ",'args':{'correlation':" #corr ",'stream':7}}"
#define TR_CPU(name, ts, dur)                                             \
    "{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':"    \
    #ts ",'dur':" #dur "}"

/* UIDs in comments.  Kernels: 20 us GEMM, 6 us reduce, 2 + 2 us in the
 * graph; the GPU window is [10, 415) us. */
static TR_UNUSED const char *tr_ops_json(void)
{
    return "{'traceEvents':["
        TR_CPU("aten::linear", 0, 100) ","                            /* 0 */
        "{'ph':'X','cat':'cpu_op','name':'aten::addmm','pid':1,'tid':1,"
        "'ts':1,'dur':50,'args':{'Input Dims':[[16],[8,32],[32,16]],"
        "'Input type':['c10::BFloat16','c10::BFloat16','c10::BFloat16'],"
        "'Input Strides':[[1],[32,1],[16,1]],"
        "'Concrete Inputs':['','','']}},"                             /* 1 */
        TR_RT("cudaLaunchKernel", 2, 1) ","                           /* 2 */
        TR_KER("sm90_gemm", 10, 20, 1) ","                            /* 3 */
        TR_CPU("aten::custom", 200, 100) ","                          /* 4 */
        TR_CPU("execute", 201, 50) ","                                /* 5 */
        TR_RT("cudaLaunchKernel", 202, 2) ","                         /* 6 */
        TR_KER("void at::native::reduce_kernel<1>", 210, 6, 2) ","    /* 7 */
        TR_RT("cudaGraphLaunch", 400, 3) ","                          /* 8 */
        TR_KER("graph_k1", 410, 2, 3) ","                             /* 9 */
        TR_KER("graph_k2", 413, 2, 3) "]}";                          /* 10 */
}

/* Tree (*tree) and report of tr with opts (NULL: defaults). */
static TR_UNUSED tlm_report *tr_build(tlm_trace *tr,
                                      const tlm_report_opts *opts,
                                      tlm_tree **tree)
{
    assert_int_equal(tlm_tree_build(tr, NULL, tree, NULL), TLM_OK);
    tlm_report *r = NULL;
    tlm_error err;
    tlm_status st = tlm_report_build(*tree, opts, &r, &err);
    if (st != TLM_OK)
        fail_msg("tlm_report_build: %s", err.msg);
    return r;
}

/* A trace, its tree and its report. */
typedef struct tr_fix {
    tlm_trace *tr;
    tlm_tree *tree;
    tlm_report *r;
} tr_fix;

/* The report of a trace (JSON with ' quotes) against GPU gpu (NULL: no
 * GPU), with the other options at their defaults. */
static TR_UNUSED tr_fix tr_open(const char *sq, const char *gpu)
{
    tr_fix f;
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.gpu_arch = gpu;
    f.tr = tt_read_sq(sq);
    f.r = tr_build(f.tr, &o, &f.tree);
    return f;
}

/* Builds f's tree and report again, with opts. */
static TR_UNUSED void tr_rebuild(tr_fix *f, const tlm_report_opts *opts)
{
    tlm_report_free(f->r);
    tlm_tree_free(f->tree);
    f->r = tr_build(f->tr, opts, &f->tree);
}

static TR_UNUSED void tr_close(tr_fix *f)
{
    tlm_report_free(f->r);
    tlm_tree_free(f->tree);
    tlm_trace_free(f->tr);
    memset(f, 0, sizeof *f);
}

/* The file at path as a string (it must exist); caller frees. */
static TR_UNUSED char *tr_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot open %s", path);
    size_t cap = 4096, n = 0, got;
    char *s = malloc(cap);
    assert_non_null(s);
    while ((got = fread(s + n, 1, cap - n - 1, fp)) > 0) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            s = realloc(s, cap);
            assert_non_null(s);
        }
    }
    fclose(fp);
    s[n] = '\0';
    return s;
}

/* Text of column col in row row of table tab (static buffer). */
static TR_UNUSED const char *tr_cell(const tlm_report *r, const char *tab,
                                     size_t row, const char *col)
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

/* Rows of table tab; 0 when there is no such table. */
static TR_UNUSED size_t tr_rows(const tlm_report *r, const char *tab)
{
    long t = tlm_report_table_find(r, tab);
    return t < 0 ? 0 : tlm_report_table_rows(r, (size_t)t);
}

/* Row of table tab whose column col reads v, or fails. */
static TR_UNUSED size_t tr_find_row(const tlm_report *r, const char *tab,
                                    const char *col, const char *v)
{
    for (size_t i = 0; i < tr_rows(r, tab); i++)
        if (!strcmp(tr_cell(r, tab, i, col), v))
            return i;
    fail_msg("%s: no row with %s == %s", tab, col, v);
    return 0;
}

/* Every table of a and b: the same sheets in the same order, the same
 * columns and the same text in every cell. */
static TR_UNUSED void tr_same_reports(const tlm_report *a,
                                      const tlm_report *b)
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

#endif /* TLM_TEST_REPORT_H */
