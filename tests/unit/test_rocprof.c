/*
 * test_rocprof.c - the rocprofv3 JSON reader (src/trace/rocprof.c,
 * rp_lex.c) and TraceLens's rocprof sheets (src/report/rocprof_sheets.c):
 *   - a small document read whole, in chunks of 1..64 bytes (every token
 *     cut by the window at every byte) and gzip'd: the same records;
 *   - names: truncated, else formatted, else kernel_name, else
 *     unknown_kernel_<id>; escapes decoded; agents and the gfx arch;
 *   - bad input: the code, the exact offset (caret under the input) and
 *     the path in the message; buffer_records missing is refused;
 *   - every allocation failing in turn: an error, nothing leaked;
 *   - the sheets of tests/data/rocprof/run1.dat in both modes, values
 *     written out by hand from the fixture (tests/data/README.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_util.h"
#include "tlmpi/tlm_rocprof.h"
#include "tlmpi/tlm_sniff.h"

#include "rocprof_report.h"

/* A small document: two dispatches (one of an unknown kernel), a copy,
 * one HIP and one HSA call, skipped sections with nesting and escapes. */
static const char *const DOC =
    "{\"other\": {\"a\": [1, 2.5e3, true, null, \"x\\\"y\"]},\n"
    " \"rocprofiler-sdk-tool\": [{\n"
    "  \"metadata\": {\"pid\": 77, \"init_time\": 100, \"fini_time\": 900,"
    " \"node\": {\"hostname\": \"h\\u00e9\"}},\n"
    "  \"agents\": [{\"id\": {\"handle\": 5}, \"type\": 1, \"name\": \"cpu\"},"
    " {\"id\": {\"handle\": 9}, \"type\": \"GPU\", \"node_id\": 2,"
    " \"name\": \"gfx90a\", \"product_name\": \"AMD Instinct MI250X\"}],\n"
    "  \"strings\": {\"x\": [[[{\"deep\": \"\\\\\"}]]]},\n"
    "  \"kernel_symbols\": [{\"kernel_id\": 3, \"kernel_name\": \"k3.kd\","
    " \"formatted_kernel_name\": \"\", \"truncated_kernel_name\": \"\"},"
    " {\"kernel_id\": 4, \"kernel_name\": \"k4\", \"truncated_kernel_name\":"
    " \"gemm_\\u03b1\"}],\n"
    "  \"buffer_records\": {\n"
    "   \"kernel_dispatch\": [{\"thread_id\": 11, \"correlation_id\":"
    " {\"internal\": 21, \"external\": {\"value\": 0}}, \"start_timestamp\":"
    " 200, \"end_timestamp\": 260, \"dispatch_info\": {\"agent_id\":"
    " {\"handle\": 9}, \"queue_id\": {\"handle\": 1}, \"kernel_id\": 4,"
    " \"dispatch_id\": 1, \"grid_size\": {\"x\": 64, \"y\": 2, \"z\": 3},"
    " \"workgroup_size\": {\"x\": 32}}, \"stream_id\": {\"handle\": 6}},\n"
    "    {\"start_timestamp\": 300, \"end_timestamp\": 301, \"dispatch_info\":"
    " {\"kernel_id\": 8}}, {\"start_timestamp\": 400, \"end_timestamp\":"
    " 405, \"dispatch_info\": {\"kernel_id\": 3}}],\n"
    "   \"memory_copy\": [{\"start_timestamp\": 150, \"end_timestamp\": 250,"
    " \"bytes\": 4096, \"src_agent_id\": {\"handle\": 5}, \"dst_agent_id\":"
    " {\"handle\": 9}}],\n"
    "   \"hip_api\": [{\"start_timestamp\": 190, \"end_timestamp\": 199,"
    " \"correlation_id\": {\"internal\": 21}, \"operation\": 40}],\n"
    "   \"hsa_api\": [{\"start_timestamp\": 120, \"end_timestamp\": 121}],\n"
    "   \"page_migration\": [{\"x\": {}}]\n"
    "  }}, {\"ignored\": \"second tool record\"}]}\n";

static tlm_rocprof *read_doc(const char *text, size_t chunk)
{
    tlm_rocprof_opts o;
    memset(&o, 0, sizeof o);
    o.chunk_size = chunk;
    tlm_rocprof *rp = NULL;
    tlm_error err;
    tlm_status st = tlm_rocprof_read_mem(text, strlen(text), "doc", &o, &rp,
                                         &err);
    if (st != TLM_OK)
        fprintf(stderr, "read: %s\n", err.msg);
    assert_int_equal(st, TLM_OK);
    return rp;
}

static void check_doc(const tlm_rocprof *rp)
{
    size_t n;
    const tlm_rp_kernel *k = tlm_rocprof_kernels(rp, &n);
    assert_int_equal(n, 3);
    assert_int_equal(k[0].start, 200);
    assert_int_equal(k[0].end, 260);
    assert_int_equal(k[0].thread_id, 11);
    assert_int_equal(k[0].corr, 21);
    assert_int_equal(k[0].agent, 9);
    assert_int_equal(k[0].queue, 1);
    assert_int_equal(k[0].stream, 6);
    assert_int_equal(k[0].dispatch_id, 1);
    assert_int_equal(k[0].grid[0], 64);
    assert_int_equal(k[0].grid[1], 2);
    assert_int_equal(k[0].grid[2], 3);
    assert_int_equal(k[0].block[0], 32);
    assert_int_equal(k[0].block[1], 1); /* absent: 1, as TraceLens */
    assert_string_equal(tlm_rocprof_str(rp, k[0].name, NULL),
                        "gemm_\xce\xb1");
    assert_string_equal(tlm_rocprof_str(rp, k[1].name, NULL),
                        "unknown_kernel_8");
    /* truncated and formatted empty: kernel_name */
    assert_string_equal(tlm_rocprof_str(rp, k[2].name, NULL), "k3.kd");
    const tlm_rp_copy *c = tlm_rocprof_copies(rp, &n);
    assert_int_equal(n, 1);
    assert_int_equal(c[0].bytes, 4096);
    assert_int_equal(c[0].src_agent, 5);
    assert_int_equal(c[0].dst_agent, 9);
    const tlm_rp_api *a = tlm_rocprof_apis(rp, &n);
    assert_int_equal(n, 2);
    assert_int_equal(a[0].hsa, 0);
    assert_int_equal(a[0].corr, 21);
    assert_int_equal(a[0].operation, 40);
    assert_int_equal(a[1].hsa, 1);
    const tlm_rp_agent *ag = tlm_rocprof_agents(rp, &n);
    assert_int_equal(n, 2);
    assert_int_equal(ag[1].type, 2);
    assert_int_equal(ag[1].node_id, 2);
    assert_int_equal(ag[0].node_id, -1);
    const char *prod = NULL;
    assert_string_equal(tlm_rocprof_gpu_arch(rp, &prod), "gfx90a");
    assert_string_equal(prod, "AMD Instinct MI250X");
    const tlm_rp_meta *m = tlm_rocprof_meta(rp);
    assert_int_equal(m->pid, 77);
    assert_int_equal(m->has_times, 3);
    assert_int_equal(m->init_time, 100);
    assert_int_equal(m->fini_time, 900);
    assert_string_equal(tlm_rocprof_str(rp, m->hostname, NULL), "h\xc3\xa9");
    assert_int_equal(m->n_tools, 2);
    assert_int_equal(m->bytes_json, strlen(DOC));
}

static void test_read_every_chunk(void **state)
{
    (void)state;
    for (size_t chunk = 0; chunk <= 64; chunk++) {
        tlm_rocprof *rp = read_doc(DOC, chunk);
        check_doc(rp);
        tlm_rocprof_free(rp);
    }
}

static void test_read_gzip(void **state)
{
    (void)state;
    size_t gl;
    unsigned char *gz = tt_gzip(DOC, strlen(DOC), &gl);
    for (size_t chunk = 0; chunk <= 16; chunk += 3) {
        tlm_rocprof_opts o;
        memset(&o, 0, sizeof o);
        o.chunk_size = chunk;
        tlm_rocprof *rp = NULL;
        assert_int_equal(tlm_rocprof_read_mem(gz, gl, "doc.gz", &o, &rp,
                                              NULL), TLM_OK);
        check_doc(rp);
        assert_int_equal(tlm_rocprof_meta(rp)->gzip, 1);
        tlm_rocprof_free(rp);
    }
    /* a truncated member: refused, the offset in the inflated text */
    tlm_rocprof *rp = NULL;
    tlm_error err;
    assert_int_equal(tlm_rocprof_read_mem(gz, gl - 9, "cut.gz", NULL, &rp,
                                          &err), TLM_EGZIP);
    assert_null(rp);
    assert_string_equal(err.file, "cut.gz");
    free(gz);
}

/* ------------------------------------------------------------------ *
 * bad input
 * ------------------------------------------------------------------ */

typedef struct bad {
    const char *text;
    tlm_status code;
    int64_t offset;
    const char *msg; /* a part of the message */
} bad;

#define T0 "{\"rocprofiler-sdk-tool\": [{"
static const bad bads[] = {
    /* no buffer_records: refused, not an empty trace (T0 is 27 bytes)
     *  T0 "\"metadata\": {}}]}"
     *                     ^ 41: the tool record's '}' */
    {T0 "\"metadata\": {}}]}", TLM_ESCHEMA, 41, "no buffer_records"},
    /* a Kineto trace: at the end, no tool key
     *  "{\"traceEvents\": []}"
     *                     ^ 19 */
    {"{\"traceEvents\": []}", TLM_ESCHEMA, 19, "no rocprofiler-sdk-tool"},
    {"[1]", TLM_ESCHEMA, 0, "not an object"},
    {"{\"rocprofiler-sdk-tool\": []}", TLM_ESCHEMA, 26, "empty"},
    /* a string where an integer must be: the offset of the "5" (86) */
    {T0 "\"buffer_records\": {\"kernel_dispatch\": [{\"start_timestamp\": "
        "\"5\"}]}}]}",
     TLM_ESCHEMA, 86,
     "buffer_records.kernel_dispatch[0].start_timestamp: expected an "
     "integer, got a string"},
    {T0 "\"buffer_records\": {\"kernel_dispatch\": [{\"start_timestamp\": 1,"
        " \"end_timestamp\": 2}]}}]}",
     TLM_ESCHEMA, 107, "no dispatch_info.kernel_id"}, /* record's '}' */
    {T0 "\"buffer_records\": {\"memory_copy\": [{\"start_timestamp\": 9,"
        " \"end_timestamp\": 2}]}}]}",
     TLM_ESCHEMA, 103, "memory_copy[0]: end_timestamp before"},
    {T0 "\"buffer_records\": {\"hip_api\": [{\"end_timestamp\": 2}]}}]}",
     TLM_ESCHEMA, 77, "hip_api[0]: no start_timestamp"},
    {T0 "\"buffer_records\": []}]}", TLM_ESCHEMA, 45,
     "buffer_records: expected an object"},
    {T0 "\"agents\": [{\"name\": 7}], \"buffer_records\": {}}]}",
     TLM_ESCHEMA, 47, "agents[0].name: expected a string"},
    {T0 "\"buffer_records\": {\"kernel_dispatch\": [{\"start_timestamp\": "
        "1.5}]}}]}",
     TLM_ESCHEMA, 86, "expected an integer, got a number"},
    /* malformed JSON */
    {T0 "\"buffer_records\": {}}]} x", TLM_EFORMAT, 51,
     "unexpected character"},
    {T0 "\"buffer_records\": {}}]} {}", TLM_EFORMAT, 51, "data after"},
    /* skipped values are checked too: the '2' (54) */
    {T0 "\"buffer_records\": {\"a\": [1 2]}}]}", TLM_EFORMAT, 54,
     "expected ',' or ']'"},
    {T0 "\"buffer_records\": {\"a\": {\"k\" 1}}}]}", TLM_EFORMAT, 56,
     "expected ':'"},
    {T0 "\"buffer_records\": {\"a\": \"\x01\"}}]}", TLM_EFORMAT, 52,
     "control character"},
    {T0 "\"buffer_records\": {\"a\": \"\xc3\x28\"}}]}", TLM_EFORMAT, 52,
     "invalid UTF-8"},
    {T0 "\"buffer_records\": {\"a\": 01}}]}", TLM_EFORMAT, 51,
     "malformed number"},
    {T0 "\"buffer_records\": {\"a\": \"abc", TLM_EFORMAT, 51,
     "inside a string"},
    {T0 "\"buffer_records\": {", TLM_EFORMAT, 46, "expected a key"},
};

static void test_bad_input(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        for (size_t chunk = 0; chunk <= 5; chunk += 5) {
            tlm_rocprof_opts o;
            memset(&o, 0, sizeof o);
            o.chunk_size = chunk;
            tlm_rocprof *rp = NULL;
            tlm_error err;
            tlm_status st = tlm_rocprof_read_mem(
                bads[i].text, strlen(bads[i].text), "bad.json", &o, &rp,
                &err);
            if (st != bads[i].code || err.offset != bads[i].offset ||
                !strstr(err.msg, bads[i].msg))
                fprintf(stderr, "case %zu: status %d offset %lld: %s\n", i,
                        (int)st, (long long)err.offset, err.msg);
            assert_int_equal(st, bads[i].code);
            assert_int_equal(err.offset, bads[i].offset);
            assert_non_null(strstr(err.msg, bads[i].msg));
            assert_string_equal(err.file, "bad.json");
            assert_null(rp);
        }
    }
}

static void test_bounds(void **state)
{
    (void)state;
    /* nesting past max_depth in a skipped value */
    char doc[512];
    snprintf(doc, sizeof doc, T0 "\"x\": %s, \"buffer_records\": {}}]}",
             "[[[[[[[[[[[[1]]]]]]]]]]]]");
    tlm_rocprof_opts o;
    memset(&o, 0, sizeof o);
    o.max_depth = 8;
    tlm_rocprof *rp = NULL;
    tlm_error err;
    assert_int_equal(tlm_rocprof_read_mem(doc, strlen(doc), "d", &o, &rp,
                                          &err), TLM_ELIMIT);
    /* a string longer than max_string */
    snprintf(doc, sizeof doc, T0 "\"x\": \"%0200d\", \"buffer_records\": "
             "{}}]}", 0);
    memset(&o, 0, sizeof o);
    o.max_string = 64;
    o.chunk_size = 16;
    assert_int_equal(tlm_rocprof_read_mem(doc, strlen(doc), "d", &o, &rp,
                                          &err), TLM_ELIMIT);
    assert_null(rp);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    for (long n = 1;; n++) {
        tt_fail_alloc fa;
        tt_fail_alloc_init(&fa, n, 0);
        tlm_rocprof_opts o;
        memset(&o, 0, sizeof o);
        o.alloc = &fa.a;
        o.chunk_size = 32;
        tlm_rocprof *rp = NULL;
        tlm_error err;
        tlm_status st = tlm_rocprof_read_mem(DOC, strlen(DOC), "doc", &o, &rp,
                                             &err);
        if (st == TLM_OK) {
            check_doc(rp);
            tlm_rocprof_free(rp);
            assert_int_equal(fa.live, 0);
            assert_true(fa.failed == 0 || n > 1);
            if (fa.failed == 0)
                break;
            continue;
        }
        assert_int_equal(st, TLM_ENOMEM);
        assert_null(rp);
        assert_int_equal(fa.live, 0);
    }
}

static void test_sniff_format(void **state)
{
    (void)state;
    tlm_sniff s;
    const char *h = "{\"rocprofiler-sdk-tool\": [{\"metadata\": ";
    for (size_t n = 0; n <= strlen(h); n++) {
        tlm_trace_sniff_mem(h, n, 0, &s);
        int decided = n >= strlen("{\"rocprofiler-sdk-tool\"");
        assert_int_equal(s.format,
                         decided ? TLM_FORMAT_ROCPROF_JSON : TLM_FORMAT_UNKNOWN);
        assert_int_equal(s.verdict,
                         decided ? TLM_SNIFF_TRACE : TLM_SNIFF_NOT_TRACE);
    }
    tlm_trace_sniff_mem("{\"rocprofiler-sdk-tool\": 3}", 27, 1, &s);
    assert_int_equal(s.verdict, TLM_SNIFF_NOT_TRACE);
    tlm_trace_sniff_mem("{\"traceEvents\": []}", 19, 1, &s);
    assert_int_equal(s.format, TLM_FORMAT_KINETO_JSON);
    assert_string_equal(tlm_sniff_format_name(TLM_FORMAT_ROCPROF_JSON),
                        "rocprof-json");
    assert_string_equal(tlm_sniff_format_name(TLM_FORMAT_KINETO_JSON),
                        "kineto-json");
    assert_string_equal(tlm_sniff_format_name(99), "unknown");
}

/* ------------------------------------------------------------------ *
 * sheets of tests/data/rocprof/run1.dat
 * ------------------------------------------------------------------ */

static tlm_rocprof *read_fixture(void)
{
    const char *src = getenv("TLM_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/rocprof/run1.dat",
             src ? src : ".");
    tlm_rocprof *rp = NULL;
    tlm_error err;
    if (tlm_rocprof_read_file(path, NULL, &rp, &err) != TLM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    return rp;
}

static char *csv_of(const tlm_tab *t)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_tab_csv_sbuf(t, &b);
    tlm_sbuf_putc(&b, 0);
    return b.p;
}

static void build(const tlm_rocprof *rp, int compat, tlm_tab **tabs)
{
    tlm_rp_sheet_opts so;
    tlm_rp_sheet_opts_init(&so);
    so.compat = compat;
    assert_int_equal(tlm_rocprof_sheets(rp, &so, tabs, NULL), TLM_OK);
    for (int i = 0; i < TLM_RP_NSHEETS; i++)
        assert_string_equal(tabs[i]->name, tlm_rp_sheet_names[i]);
}

static void free_tabs(tlm_tab **tabs)
{
    for (int i = 0; i < TLM_RP_NSHEETS; i++)
        tlm_tab_free(tabs[i]);
}

static void expect_csv(const tlm_tab *t, const char *want)
{
    char *got = csv_of(t);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "%s:\n%s--- wanted:\n%s", t->name, got, want);
    assert_string_equal(got, want);
    free(got);
}

static void test_sheets_compat(void **state)
{
    (void)state;
    tlm_rocprof *rp = read_fixture();
    assert_non_null(rp);
    tlm_tab *tabs[TLM_RP_NSHEETS];
    build(rp, 1, tabs);
    /* kernel union 72519 ns, copies 9000, both 79514, run 101000 ns */
    expect_csv(tabs[0], "type,time ms,percent\n"
                        "total_time,0.101,100.0\n"
                        "kernel,0.07251900000000024,71.80099009901014\n"
                        "memory,0.009,8.91089108910891\n"
                        "busy_time,0.07951400000000013,78.72673267326745\n"
                        "idle,0.021485999999999877,21.27326732673255\n");
    /* ns under "(ms)": GEMM 50000 ns of 97519 ns; cumulative taken in
     * name order (COMM, Elementwise, GEMM, Other) before the sort */
    expect_csv(tabs[2],
               "op category,Count,total_direct_kernel_time_ms,"
               "Percentage (%),Cumulative Percentage (%)\n"
               "GEMM,2,50.0,51.27205980373056,99.47292322521767\n"
               "COMM,1,40.0,41.01764784298445,41.01764784298445\n"
               "Elementwise,2,7.005,7.183215578502651,48.2008634214871\n"
               "Other,3,0.514,0.5270767747823502,100.00000000000001\n");
    /* the threshold (10) compared with ns: only the 8 and 6 ns kernels */
    expect_csv(tabs[4],
               "name,Short Kernel count,Short Kernel duration (µs) sum,"
               "Short Kernel duration (µs) mean,"
               "Short Kernel duration (µs) percent of total time\n"
               "tiny_kernel,2,14,7.0,0.014356176745044556\n");
    char *h = csv_of(tabs[5]);
    assert_non_null(strstr(h, "bin_start,bin_end,count\n6.0,6.02,1\n"));
    assert_non_null(strstr(h, "\n7.98,8.0,1\n"));
    assert_int_equal(tabs[5]->nrows, 100);
    free(h);
    /* kernel_details: ns as integers, longest first */
    char *d = csv_of(tabs[3]);
    assert_non_null(strstr(d, "\nncclDevKernel_Generic,40000,2,4,2048,1,1,"
                              "64,1,1,2,101\n"));
    assert_int_equal(tabs[3]->nrows, 8);
    free(d);
    char *s = csv_of(tabs[1]);
    assert_non_null(strstr(s, "\nCijk_Ailk_Bljk_HHS_BH_MT128x128x64,2,"
                              "25000.0,25000.0,7071.067811865475,20000,"
                              "30000,51.27205980373055,51.27205980373055,"
                              "50.0,GEMM\n"));
    assert_non_null(strstr(s, "\nunknown_kernel_9,1,500.0,500.0,,500,500,"));
    free(s);
    free_tabs(tabs);
    tlm_rocprof_free(rp);
}

static void test_sheets_default(void **state)
{
    (void)state;
    tlm_rocprof *rp = read_fixture();
    assert_non_null(rp);
    tlm_tab *tabs[TLM_RP_NSHEETS];
    build(rp, 0, tabs);
    /* us, cumulative down the sorted rows */
    expect_csv(tabs[2],
               "op category,Count,total_direct_kernel_time_ms,"
               "Percentage (%),Cumulative Percentage (%)\n"
               "GEMM,2,0.05,51.27205980373055,51.27205980373055\n"
               "COMM,1,0.04,41.01764784298444,92.28970764671499\n"
               "Elementwise,2,0.007005,7.18321557850265,99.47292322521764\n"
               "Other,3,0.000514,0.5270767747823502,99.99999999999999\n");
    /* threshold 10 us: 5.005, 2, 0.5, 0.008 and 0.006 us */
    expect_csv(tabs[4],
               "name,Short Kernel count,Short Kernel duration (µs) sum,"
               "Short Kernel duration (µs) mean,"
               "Short Kernel duration (µs) percent of total time\n"
               "at::native::vectorized_elementwise_kernel,2,7.005,3.5025,"
               "7.183215578502651\n"
               "unknown_kernel_9,1,0.5,0.5,0.5127205980373056\n"
               "tiny_kernel,2,0.014,0.007,0.014356176745044556\n");
    char *s = csv_of(tabs[1]);
    assert_non_null(strstr(s, "\nncclDevKernel_Generic,1,40.0,40.0,,40.0,"
                              "40.0,41.01764784298445,92.28970764671502,"
                              "0.04,COMM\n"));
    free(s);
    free_tabs(tabs);
    tlm_rocprof_free(rp);
}

static void test_sheets_empty(void **state)
{
    (void)state;
    const char *doc = T0 "\"buffer_records\": {}}]}";
    tlm_rocprof *rp = read_doc(doc, 0);
    tlm_tab *tabs[TLM_RP_NSHEETS];
    build(rp, 1, tabs);
    expect_csv(tabs[0], "type,time ms,percent\n");
    /* TraceLens's empty kernel_summary lists Total before Percentage */
    expect_csv(tabs[1], "name,Count,Mean Kernel Time (µs),"
                        "Median Kernel Time (µs),Std Kernel Time (µs),"
                        "Min Kernel Time (µs),Max Kernel Time (µs),"
                        "Total Kernel Time (ms),Percentage (%),"
                        "Cumulative Percentage (%),Category\n");
    expect_csv(tabs[3], "\n"); /* pd.DataFrame(): no columns at all */
    expect_csv(tabs[5], "bin_start,bin_end,count\n");
    free_tabs(tabs);
    build(rp, 0, tabs);
    assert_int_equal(tabs[3]->ncols, 12);
    assert_int_equal(tabs[1]->nrows, 0);
    free_tabs(tabs);
    tlm_rocprof_free(rp);
}

static void test_categories_and_busy(void **state)
{
    (void)state;
    assert_string_equal(tlm_rp_category("Cijk_Alik"), "GEMM");
    assert_string_equal(tlm_rp_category("my_ELEMENTWISE_k"), "Elementwise");
    assert_string_equal(tlm_rp_category("reduce_sum"), "Reduction");
    assert_string_equal(tlm_rp_category("conv2d"), "Convolution");
    assert_string_equal(tlm_rp_category("layer_norm"), "Normalization");
    assert_string_equal(tlm_rp_category("fmha_fwd"), "Attention");
    assert_string_equal(tlm_rp_category("__amd_rocclr_copyBuffer"), "Memory");
    assert_string_equal(tlm_rp_category("rcclGenericKernel"), "COMM");
    assert_string_equal(tlm_rp_category("foo"), "Other");
    tlm_rocprof *rp = read_fixture();
    assert_non_null(rp);
    tlm_rp_busy b;
    assert_int_equal(tlm_rocprof_busy(rp, &b), TLM_OK);
    assert_int_equal(b.total_ns, 101000);
    assert_int_equal(b.kernel_ns, 72519);
    assert_int_equal(b.memcpy_ns, 9000);
    assert_int_equal(b.busy_ns, 79514);
    assert_int_equal(b.idle_ns, 21486);
    assert_int_equal(b.comm_ns, 40000);
    assert_int_equal(b.computation_ns, 52519);
    assert_int_equal(b.n_comm_kernels, 1);
    assert_int_equal(b.n_events, 10);
    tlm_rocprof_free(rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_every_chunk),
        cmocka_unit_test(test_read_gzip),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_sniff_format),
        cmocka_unit_test(test_sheets_compat),
        cmocka_unit_test(test_sheets_default),
        cmocka_unit_test(test_sheets_empty),
        cmocka_unit_test(test_categories_and_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
