/*
 * test_rocprof.c - the rocprofv3 JSON reader (src/trace/rocprof.c,
 * rp_lex.c) and TraceLens's rocprof sheets (src/report/rocprof_sheets.c):
 *   - a small document read whole, in chunks of 1..64 bytes (every token
 *     cut by the window at every byte) and gzip'd: the same records;
 *   - names: truncated, else formatted, else kernel_name, else
 *     unknown_kernel_<id>; escapes decoded; agents and the gfx arch;
 *   - bad input: the code, the exact offset (caret under the input) and
 *     the path in the message; buffer_records missing is refused;
 *   - the fast record path (rp_fast.c) against the token path: documents
 *     with edge cases read whole (fast) and in 7-byte chunks (a record
 *     never fits the window: token by token) give the same records, or
 *     the same error, message and offset;
 *   - every allocation failing in turn: an error, nothing leaked;
 *   - the sheets of tests/data/rocprof/run1.dat in both modes, values
 *     written out by hand from the fixture (tests/data/README.md);
 *   - kernels all 0 ns long: TraceLens's int 0 percentages in compat.
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
#include "rp_keys.h"
#include "sbuf.h"

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

/* Every known key found by both tables, each word-table key exactly. */
static void test_key_tables(void **state)
{
    (void)state;
    static rp_keys k;
    assert_int_equal(rp_keys_init(&k), 0);
    int in_words = 0;
    for (int id = 1; id < K_COUNT; id++) {
        const char *s = rp_key_names[id];
        size_t n = strlen(s);
        assert_int_equal(rp_key_id(&k, s, n), id);
        assert_int_equal(rp_key_id(&k, s, n - 1), K_OTHER);
        if (n > RP_FKEY_MAX)
            continue;
        uint64_t w[3] = {0, 0, 0};
        memcpy(w, s, n); /* little-endian words, zero past the end */
        const rp_fkey *e = rp_fkey_find(&k, w);
        if (e->len == n && e->id == id) /* not a given on big-endian */
            in_words++;
    }
    /* the word table found every key on this (little-endian) machine */
    const uint16_t probe = 1;
    if (*(const unsigned char *)&probe == 1)
        assert_int_equal(in_words, K_COUNT - 1);
    assert_int_equal(rp_key_id(&k, "", 0), K_OTHER);
    assert_int_equal(rp_key_id(&k, "handles", 7), K_OTHER);
}

/* ---------------------------------------- fast path against token path */

/* Wraps records (the text inside "kernel_dispatch": [...]) and more
 * buffer sections into a document. */
static char *fast_doc(const char *kd, const char *rest)
{
    static const char head[] =
        "{\n\"rocprofiler-sdk-tool\": [\n{\n\"buffer_records\": {\n"
        "\"kernel_dispatch\": [\n";
    size_t n = strlen(head) + strlen(kd) + strlen(rest) + 32;
    char *d = malloc(n);
    assert_non_null(d);
    snprintf(d, n, "%s%s\n]%s\n}\n}\n]\n}\n", head, kd, rest);
    return d;
}

static void same_records(const tlm_rocprof *a, const tlm_rocprof *b)
{
    size_t na, nb;
    const tlm_rp_kernel *ka = tlm_rocprof_kernels(a, &na);
    const tlm_rp_kernel *kb = tlm_rocprof_kernels(b, &nb);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        const tlm_rp_kernel *x = &ka[i], *y = &kb[i];
        assert_true(x->start == y->start && x->end == y->end &&
                    x->thread_id == y->thread_id && x->corr == y->corr &&
                    x->agent == y->agent && x->queue == y->queue &&
                    x->stream == y->stream &&
                    x->dispatch_id == y->dispatch_id &&
                    x->kernel_id == y->kernel_id);
        assert_memory_equal(x->grid, y->grid, sizeof x->grid);
        assert_memory_equal(x->block, y->block, sizeof x->block);
    }
    const tlm_rp_copy *ca = tlm_rocprof_copies(a, &na);
    const tlm_rp_copy *cb = tlm_rocprof_copies(b, &nb);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++)
        assert_true(ca[i].start == cb[i].start && ca[i].end == cb[i].end &&
                    ca[i].bytes == cb[i].bytes &&
                    ca[i].src_agent == cb[i].src_agent &&
                    ca[i].dst_agent == cb[i].dst_agent &&
                    ca[i].stream == cb[i].stream &&
                    ca[i].corr == cb[i].corr &&
                    ca[i].operation == cb[i].operation &&
                    ca[i].thread_id == cb[i].thread_id);
    const tlm_rp_api *pa = tlm_rocprof_apis(a, &na);
    const tlm_rp_api *pb = tlm_rocprof_apis(b, &nb);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++)
        assert_true(pa[i].start == pb[i].start && pa[i].end == pb[i].end &&
                    pa[i].corr == pb[i].corr && pa[i].hsa == pb[i].hsa &&
                    pa[i].operation == pb[i].operation &&
                    pa[i].thread_id == pb[i].thread_id);
}

/* Reads doc whole and in 7-byte chunks: the same outcome (want, or any
 * error when want is -1).  Returns the records the whole read took by
 * the fast path. */
static uint64_t fast_vs_slow(const char *doc, unsigned max_depth, int want)
{
    tlm_rocprof_opts o1, o2;
    memset(&o1, 0, sizeof o1);
    memset(&o2, 0, sizeof o2);
    o2.chunk_size = 7;
    o1.max_depth = o2.max_depth = max_depth;
    o1.max_string = o2.max_string = 40;
    tlm_rocprof *a = NULL, *b = NULL;
    tlm_error ea, eb;
    tlm_status sa = tlm_rocprof_read_mem(doc, strlen(doc), "f", &o1, &a, &ea);
    tlm_status sb = tlm_rocprof_read_mem(doc, strlen(doc), "f", &o2, &b, &eb);
    if (want < 0 ? sa == TLM_OK : (int)sa != want)
        fprintf(stderr, "doc %s\n-> %d %s / %d %s\n", doc, (int)sa,
                sa ? ea.msg : "", (int)sb, sb ? eb.msg : "");
    assert_int_equal(sa, sb);
    if (want >= 0)
        assert_int_equal(sa, want);
    if (sa != TLM_OK) {
        assert_int_not_equal(want, TLM_OK);
        /* a bound may trip elsewhere in a smaller window */
        if (sa != TLM_ELIMIT)
            assert_int_equal(ea.offset, eb.offset);
        assert_string_equal(ea.msg, eb.msg);
        return 0;
    }
    same_records(a, b);
    assert_int_equal(tlm_rocprof_meta(b)->n_fast, 0);
    uint64_t n = tlm_rocprof_meta(a)->n_fast;
    tlm_rocprof_free(a);
    tlm_rocprof_free(b);
    return n;
}

/* A dispatch in rocprofv3's layout (a member per line), then variants. */
#define KD_PRETTY \
    "{\n\"size\": 1,\n\"kind\": 11,\n\"operation\": 1,\n\"thread_id\": " \
    "4321,\n\"correlation_id\": {\n\"internal\": 408,\n\"external\": {\n" \
    "\"value\": 0\n}\n},\n\"start_timestamp\": 2433180000123456,\n" \
    "\"end_timestamp\": 2433180000126261,\n\"dispatch_info\": {\n\"size\": " \
    "1,\n\"agent_id\": {\n\"handle\": 2\n},\n\"queue_id\": {\n\"handle\": " \
    "1\n},\n\"kernel_id\": 5,\n\"dispatch_id\": 408,\n" \
    "\"private_segment_size\": 0,\n\"group_segment_size\": 0,\n" \
    "\"workgroup_size\": {\n\"x\": 256,\n\"y\": 1,\n\"z\": 1\n},\n" \
    "\"grid_size\": {\n\"x\": 6400,\n\"y\": 1,\n\"z\": 1\n}\n},\n" \
    "\"stream_id\": {\n\"handle\": 1\n}\n}"

static void test_fast_path(void **state)
{
    (void)state;
    /* records the fast path reads, in layouts and shapes it must read
     * as the token path does */
    static const char *const ok[] = {
        KD_PRETTY ",\n" KD_PRETTY,
        "{\"start_timestamp\": 9223372036854775807, \"end_timestamp\":"
        " 9223372036854775807, \"dispatch_info\": {\"kernel_id\": 0}}",
        "{\r\n\t\"start_timestamp\"  :\t10 ,    \"end_timestamp\":20,"
        "\"dispatch_info\":{\"kernel_id\":3,\"grid_size\":{\"z\":4}},"
        "\"stream_id\": 7, \"correlation_id\": 9}",
        "{\"x\": [1, -2, 3.5e-3, true, false, null, \"s\", {\"k\": []}],"
        " \"start_timestamp\": 1, \"start_timestamp\": 5, \"end_timestamp\":"
        " 6, \"dispatch_info\": {\"kernel_id\": 1, \"kernel_id\": 2}}",
        "{\"start_timestamp\": 1, \"end_timestamp\": 2, \"dispatch_info\":"
        " {\"kernel_id\": 1}, \"na\\u00efve\": \"caf\xc3\xa9\", "
        "\"start\\u005ftimestamp\": 0}",
        "{\"truncated_kernel_name_xx\": 1, \"start_timestamp\": -5, "
        "\"end_timestamp\": 3, \"thread_id\": -1, \"dispatch_info\": "
        "{\"kernel_id\": 12345678901234567890123}}",
        "{\"start_timestamp\": 100000000000000000000, \"end_timestamp\": 1}",
        "{\"start_timestamp\": 3, \"end_timestamp\": 3.0}",
        "{\"start_timestamp\": 3, \"end_timestamp\": 4, \"dispatch_info\":"
        " {\"kernel_id\": 1, \"agent_id\": {\"id\": 3}}, \"y\": {\"a\": "
        "{\"b\": {\"c\": {\"d\": 1}}}}}",
    };
    static const char *const rest[] = {
        ",\n\"memory_copy\": [\n{\n\"start_timestamp\": 5,\n\"end_timestamp\""
        ": 9,\n\"bytes\": 4096,\n\"src_agent_id\": {\n\"handle\": 1\n},\n"
        "\"dst_agent_id\": 2,\n\"stream_id\": {\n\"handle\": 3\n},\n"
        "\"operation\": 2\n}\n],\n\"hip_api\": [\n{\n\"start_timestamp\": 1,\n"
        "\"end_timestamp\": 2,\n\"correlation_id\": {\n\"internal\": 8\n},\n"
        "\"args\": {\n\"a\": \"0x1\"\n}\n}\n],\n\"hsa_api\": [{\"end_timestamp"
        "\": 3, \"start_timestamp\": 2, \"thread_id\": 7}]",
        "",
    };
    uint64_t fast = 0;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char *d = fast_doc(ok[i], rest[i == 0 ? 0 : 1]);
        int want = i < 5 || i == 8 ? TLM_OK : TLM_ESCHEMA;
        fast += fast_vs_slow(d, 0, want);
        free(d);
    }
    assert_true(fast >= 9); /* the fast path did read most of them */
    /* refused, with the token path's message and offset */
    static const char *const refused[] = {
        "{\"start_timestamp\": 01, \"end_timestamp\": 2}",
        "{\"start_timestamp\": \"1\", \"end_timestamp\": 2}",
        "{\"start_timestamp\": 1, \"end_timestamp\": 2, \"dispatch_info\": []}",
        "{\"start_timestamp\": 1 \"end_timestamp\": 2}",
        "{\"start_timestamp\": 1, \"end_timestamp\": 2,}",
        "{\"s\": \"\xff\", \"start_timestamp\": 1}",
        "{\"s\": \"this string is longer than forty bytes, the bound\"}",
        ("{\"start_timestamp\": 2, \"end_timestamp\": 1, \"dispatch_info\": "
         "{\"kernel_id\": 1}}"),
        "{}",
        "{\"start_timestamp\": 1, \"end_timestamp\": 2, \"x\": tru}",
        "{\"start_timestamp\": 1, \"end_timestamp\": 2, \"x\": 1.}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *d = fast_doc(refused[i], "");
        fast_vs_slow(d, 0, -1);
        free(d);
    }
    /* nesting near max_depth: the token path decides */
    char *d = fast_doc(ok[8], "");
    for (unsigned depth = 5; depth <= 12; depth++)
        fast_vs_slow(d, depth, depth < 10 ? TLM_ELIMIT : TLM_OK);
    free(d);
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

/* Every kernel 0 ns long: TraceLens's `... if total > 0 else 0` makes the
 * percentage columns pandas' int 0 (and their cumsum); default mode keeps
 * floats.  Expected CSVs: TraceLens's rocprof report run on this document
 * (docs/formats.md, "Checked against TraceLens"). */
static void test_sheets_zero_durations(void **state)
{
    (void)state;
    const char *doc =
        T0 "\"metadata\": {\"init_time\": 0, \"fini_time\": 100},"
           " \"kernel_symbols\": [{\"kernel_id\": 1, \"kernel_name\":"
           " \"gemm_a\"}, {\"kernel_id\": 2, \"kernel_name\": \"b\"}],"
           " \"buffer_records\": {\"kernel_dispatch\": ["
           "{\"start_timestamp\": 10, \"end_timestamp\": 10,"
           " \"dispatch_info\": {\"kernel_id\": 1}},"
           " {\"start_timestamp\": 20, \"end_timestamp\": 20,"
           " \"dispatch_info\": {\"kernel_id\": 2}},"
           " {\"start_timestamp\": 30, \"end_timestamp\": 30,"
           " \"dispatch_info\": {\"kernel_id\": 2}}]}}]}";
    tlm_rocprof *rp = read_doc(doc, 0);
    tlm_tab *tabs[TLM_RP_NSHEETS];
    build(rp, 1, tabs);
    expect_csv(tabs[1],
               "name,Count,Mean Kernel Time (µs),Median Kernel Time (µs),"
               "Std Kernel Time (µs),Min Kernel Time (µs),"
               "Max Kernel Time (µs),Percentage (%),"
               "Cumulative Percentage (%),Total Kernel Time (ms),Category\n"
               "b,2,0.0,0.0,0.0,0,0,0,0,0.0,Other\n"
               "gemm_a,1,0.0,0.0,,0,0,0,0,0.0,GEMM\n");
    expect_csv(tabs[2],
               "op category,Count,total_direct_kernel_time_ms,"
               "Percentage (%),Cumulative Percentage (%)\n"
               "GEMM,1,0.0,0,0\n"
               "Other,2,0.0,0,0\n");
    expect_csv(tabs[4],
               "name,Short Kernel count,Short Kernel duration (µs) sum,"
               "Short Kernel duration (µs) mean,"
               "Short Kernel duration (µs) percent of total time\n"
               "b,2,0,0.0,0\n"
               "gemm_a,1,0,0.0,0\n");
    expect_csv(tabs[0], "type,time ms,percent\n"
                        "total_time,0.0001,100.0\n"
                        "kernel,0.0,0.0\n"
                        "memory,0.0,0.0\n"
                        "busy_time,0.0,0.0\n"
                        "idle,0.0001,100.0\n");
    free_tabs(tabs);
    build(rp, 0, tabs);
    expect_csv(tabs[2],
               "op category,Count,total_direct_kernel_time_ms,"
               "Percentage (%),Cumulative Percentage (%)\n"
               "GEMM,1,0.0,0.0,0.0\n"
               "Other,2,0.0,0.0,0.0\n");
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
    /* Python's lower(): U+212A KELVIN SIGN is 'k' (checked with
     * TraceLens), U+0130 is "i" + U+0307, which breaks "elementwise" */
    assert_string_equal(tlm_rp_category("CIJ\xe2\x84\xaa_x"), "GEMM");
    assert_string_equal(tlm_rp_category("cij\xe2\x84"), "Other");
    assert_string_equal(tlm_rp_category("ELEMENTW\xc4\xb0SE"), "Other");
    char long_name[700];
    memset(long_name, 'x', sizeof long_name);
    memcpy(long_name + 600, "Cij\xe2\x84\xaa", 6);
    long_name[sizeof long_name - 1] = 0;
    assert_string_equal(tlm_rp_category(long_name), "GEMM");
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
        cmocka_unit_test(test_key_tables),
        cmocka_unit_test(test_fast_path),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_sniff_format),
        cmocka_unit_test(test_sheets_compat),
        cmocka_unit_test(test_sheets_default),
        cmocka_unit_test(test_sheets_empty),
        cmocka_unit_test(test_sheets_zero_durations),
        cmocka_unit_test(test_categories_and_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
