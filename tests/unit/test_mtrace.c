/*
 * test_mtrace.c - the core of the merged trace (tlm_mtrace.h): filter
 * names, hostile strings as JSON, nanoseconds as microseconds, flow ids
 * and roles, raw-deflate segments joined into one gzip member, a trace's
 * part records written and emitted with a clock shift, anchors of its
 * collectives, and a damaged part file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tlmpi/tlm_mtrace.h"

/* ------------------------------------------------------------ helpers */

static char *json_of(const char *s, size_t n)
{
    static char buf[8 * TLM_MTRACE_STR_MAX];
    size_t len = 0;
    assert_int_equal(tlm_mtrace_json_str(buf, sizeof buf, &len, s, n), 0);
    buf[len] = 0;
    return buf;
}

/* Inflates a whole gzip file (f, from its start) into a NUL-ended text. */
static char *gunzip_file(FILE *f, size_t *n_out)
{
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *in = malloc((size_t)n);
    assert_non_null(in);
    assert_int_equal(fread(in, 1, (size_t)n, f), (size_t)n);
    size_t cap = 8u << 20;
    char *out = malloc(cap);
    assert_non_null(out);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
    z.next_in = in;
    z.avail_in = (uInt)n;
    z.next_out = (unsigned char *)out;
    z.avail_out = (uInt)(cap - 1);
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END); /* CRC checked */
    *n_out = z.total_out;
    out[z.total_out] = 0;
    inflateEnd(&z);
    free(in);
    return out;
}

/* ------------------------------------------------------------ small */

static void test_filter(void **state)
{
    (void)state;
    tlm_mtrace_filter f = TLM_MTRACE_ALL;
    assert_int_equal(tlm_mtrace_filter_parse("kernels", &f), 0);
    assert_int_equal(f, TLM_MTRACE_KERNELS);
    assert_int_equal(tlm_mtrace_filter_parse("collectives", &f), 0);
    assert_int_equal(f, TLM_MTRACE_COLLECTIVES);
    assert_int_equal(tlm_mtrace_filter_parse("all", &f), 0);
    assert_int_equal(f, TLM_MTRACE_ALL);
    assert_int_equal(tlm_mtrace_filter_parse("Kernels", &f), -1);
    assert_int_equal(tlm_mtrace_filter_parse(NULL, &f), -1);
    assert_int_equal(f, TLM_MTRACE_ALL);
    assert_string_equal(tlm_mtrace_filter_name(TLM_MTRACE_COLLECTIVES),
                        "collectives");
}

static void test_json_str(void **state)
{
    (void)state;
    assert_string_equal(json_of("abc", 3), "\"abc\"");
    assert_string_equal(json_of("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
    assert_string_equal(json_of("\x01\n\x1f\x7f", 4),
                        "\"\\u0001\\u000a\\u001f\\u007f\"");
    assert_string_equal(json_of("a\0b", 3), "\"a\\u0000b\"");
    /* invalid UTF-8: a lone byte, an overlong form, a surrogate, > U+10FFFF */
    assert_string_equal(json_of("x\xffy", 3), "\"x\\ufffdy\"");
    assert_string_equal(json_of("\xc0\x80", 2), "\"\\ufffd\\ufffd\"");
    assert_string_equal(json_of("\xed\xa0\x80", 3),
                        "\"\\ufffd\\ufffd\\ufffd\"");
    assert_string_equal(json_of("\xf4\x90\x80\x80", 4),
                        "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    /* valid multi-byte kept as is */
    assert_string_equal(json_of("\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80", 9),
                        "\"\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\"");
    /* cut at TLM_MTRACE_STR_MAX bytes; a character split by the cut */
    char big[TLM_MTRACE_STR_MAX + 10];
    memset(big, 'x', sizeof big);
    big[TLM_MTRACE_STR_MAX - 1] = (char)0xc3;
    big[TLM_MTRACE_STR_MAX] = (char)0xa9;
    const char *j = json_of(big, sizeof big);
    size_t jl = strlen(j);
    assert_int_equal(jl, TLM_MTRACE_STR_MAX - 1 + 6 + 2);
    assert_string_equal(j + jl - 7, "\\ufffd\"");
    /* too small a buffer */
    char small[8];
    size_t len = 0;
    assert_int_equal(tlm_mtrace_json_str(small, sizeof small, &len,
                                         "abcdefgh", 8), -1);
}

static void test_json_us(void **state)
{
    (void)state;
    static const struct {
        int64_t ns;
        const char *us;
    } cases[] = {{0, "0.000"},
                 {1, "0.001"},
                 {999, "0.999"},
                 {1000, "1.000"},
                 {-1500, "-1.500"},
                 {1763700002000035486LL, "1763700002000035.486"},
                 {INT64_MIN, "-9223372036854775.808"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char b[32];
        size_t len = 0;
        assert_int_equal(tlm_mtrace_json_us(b, sizeof b, &len, cases[i].ns),
                         0);
        b[len] = 0;
        assert_string_equal(b, cases[i].us);
    }
    char b[4];
    size_t len = 0;
    assert_int_equal(tlm_mtrace_json_us(b, sizeof b, &len, 123456), -1);
}

static void test_flow_id(void **state)
{
    (void)state;
    uint64_t a = tlm_mtrace_flow_id(42, 7), b = tlm_mtrace_flow_id(42, 8);
    assert_true(a != 0 && a < (1ULL << 53));
    assert_true(b != 0 && b < (1ULL << 53));
    assert_true(a != b);
    assert_int_equal(a, tlm_mtrace_flow_id(42, 7));
}

static tlm_mtrace_item item(uint64_t key, int64_t seq, int64_t ts, int rank,
                            int64_t idx)
{
    tlm_mtrace_item it;
    memset(&it, 0, sizeof it);
    it.match_key = key;
    it.seq = seq;
    it.ts_ns = ts;
    it.trace_rank = rank;
    it.idx = idx;
    it.role = -1;
    return it;
}

static void test_roles(void **state)
{
    (void)state;
    tlm_mtrace_item it[] = {
        item(1, 5, 300, 2, 0), item(1, 5, 100, 3, 1), item(1, 5, 200, 0, 2),
        item(2, 1, 50, 0, 3),                       /* alone */
        item(3, 9, 70, 4, 4), item(3, 9, 70, 1, 5), /* tied: by rank */
    };
    tlm_mtrace_roles(it, 6);
    int role[6];
    for (size_t i = 0; i < 6; i++)
        role[it[i].idx] = it[i].role;
    assert_int_equal(role[1], TLM_MTRACE_ROLE_START);
    assert_int_equal(role[2], TLM_MTRACE_ROLE_STEP);
    assert_int_equal(role[0], TLM_MTRACE_ROLE_END);
    assert_int_equal(role[3], TLM_MTRACE_ROLE_NONE);
    assert_int_equal(role[5], TLM_MTRACE_ROLE_START);
    assert_int_equal(role[4], TLM_MTRACE_ROLE_END);
    tlm_mtrace_roles(NULL, 0);
}

/* ------------------------------------------------------------ segments */

/* Three segments (two "processes" and a tail) joined as the driver does:
 * one gzip member that zlib inflates, CRC and length checked. */
static void test_segments_join(void **state)
{
    (void)state;
    FILE *out = tmpfile(), *side = tmpfile();
    assert_non_null(out);
    assert_non_null(side);
    unsigned char gh[10];
    tlm_mtrace_gzip_header(gh);
    assert_int_equal(fwrite(gh, 1, 10, out), 10);
    tlm_mtrace_z z1, z2, z3;
    tlm_error err;
    const char *t1 = "{\"traceEvents\":[\n{\"a\":1}";
    assert_int_equal(tlm_mtrace_z_open(&z1, out, 1, &err), TLM_OK);
    assert_int_equal(tlm_mtrace_z_write(&z1, t1, strlen(t1), &err), TLM_OK);
    assert_int_equal(tlm_mtrace_z_close(&z1, 0, &err), TLM_OK);
    /* the second segment is large: several internal buffers */
    size_t n2 = 3u << 20;
    char *t2 = malloc(n2);
    assert_non_null(t2);
    for (size_t i = 0; i < n2; i++)
        t2[i] = (char)(i % 7 == 0 ? ',' : 'a' + (char)(i * 31 % 26));
    assert_int_equal(tlm_mtrace_z_open(&z2, side, 6, &err), TLM_OK);
    assert_int_equal(tlm_mtrace_z_write(&z2, t2, n2, &err), TLM_OK);
    assert_int_equal(tlm_mtrace_z_close(&z2, 0, &err), TLM_OK);
    assert_int_equal(z2.in_bytes, n2);
    /* copy the side segment after the first, as rank 0 does */
    rewind(side);
    char *cp = malloc(z2.out_bytes);
    assert_non_null(cp);
    assert_int_equal(fread(cp, 1, z2.out_bytes, side), z2.out_bytes);
    assert_int_equal(fwrite(cp, 1, z2.out_bytes, out), z2.out_bytes);
    uint32_t crc = tlm_mtrace_crc_combine(z1.crc, z2.crc, z2.in_bytes);
    uint64_t len = z1.in_bytes + z2.in_bytes;
    assert_int_equal(tlm_mtrace_z_open(&z3, out, 6, &err), TLM_OK);
    assert_int_equal(tlm_mtrace_z_write(&z3, "]}\n", 3, &err), TLM_OK);
    assert_int_equal(tlm_mtrace_z_close(&z3, 1, &err), TLM_OK);
    crc = tlm_mtrace_crc_combine(crc, z3.crc, z3.in_bytes);
    len += z3.in_bytes;
    unsigned char tr[8];
    tlm_mtrace_gzip_trailer(crc, len, tr);
    assert_int_equal(fwrite(tr, 1, 8, out), 8);
    fflush(out);
    size_t n = 0;
    char *text = gunzip_file(out, &n);
    assert_int_equal(n, len);
    assert_memory_equal(text, t1, strlen(t1));
    assert_memory_equal(text + strlen(t1), t2, n2);
    assert_string_equal(text + strlen(t1) + n2, "]}\n");
    free(text);
    free(cp);
    free(t2);
    fclose(out);
    fclose(side);
}

/* ------------------------------------------------------------ parts */

#define KMETA                                                             \
    "\"Collective name\":\"allreduce\",\"In msg nelems\":1000,"          \
    "\"Out msg nelems\":1000,\"Group size\":2,\"dtype\":\"Float\","      \
    "\"Process Group Name\":\"0\",\"Process Group Description\":"        \
    "\"default_pg\",\"Process Group Ranks\":\"[0, 1]\",\"Seq\":3"

static const char *part_trace =
    "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":1,\"world_size\":2},"
    "\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":11,"
    "\"args\":{\"name\":\"main \\\"thread\\\"\"}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\\u0001\","
    "\"pid\":10,\"tid\":11,\"ts\":90.5,\"dur\":3},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":10,\"tid\":11,\"ts\":100.0,\"dur\":20,\"args\":{"
    "\"External id\":5,\"Rank\":1," KMETA "}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
    "\"pid\":10,\"tid\":11,\"ts\":110,\"dur\":5,\"args\":{\"External id\":5,"
    "\"correlation\":900}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_"
    "f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\",\"pid\":0,"
    "\"tid\":7,\"ts\":200.5,\"dur\":30.25,\"args\":{\"External id\":5,"
    "\"correlation\":900,\"stream\":7," KMETA "}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgemm\",\"pid\":0,"
    "\"tid\":7,\"ts\":240,\"dur\":10,\"args\":{\"stream\":7}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_op\",\"name\":\"instant\",\"pid\":10,"
    "\"tid\":11,\"ts\":95,\"s\":\"t\"}"
    "]}";

/* Writes part_trace's part with filter f, emits it with a shift of 1 ms
 * and returns the text (free()); *an gets the anchors. */
static char *part_text(tlm_mtrace_filter f, tlm_mtrace_anchors *an)
{
    tlm_trace *tr = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(part_trace, strlen(part_trace),
                                        "p.json", NULL, &tr, &err),
                     TLM_OK);
    tlm_coll_extract_opts xo;
    tlm_coll_extract_opts_init(&xo);
    xo.trace_rank = 1;
    tlm_coll_record *recs = NULL;
    size_t n_recs = 0;
    assert_int_equal(tlm_coll_extract(tr, &xo, &recs, &n_recs, NULL, &err),
                     TLM_OK);
    assert_int_equal(n_recs, 1);
    FILE *part = tmpfile(), *out = tmpfile();
    uint64_t bytes = 0;
    assert_int_equal(tlm_mtrace_part_write(tr, 1, f, recs, n_recs, part, an,
                                           &bytes, &err),
                     TLM_OK);
    assert_true(bytes > 0);
    unsigned char gh[10];
    tlm_mtrace_gzip_header(gh);
    fwrite(gh, 1, 10, out);
    tlm_mtrace_z z;
    assert_int_equal(tlm_mtrace_z_open(&z, out, 1, &err), TLM_OK);
    fflush(part);
    assert_int_equal(tlm_mtrace_emit_part(part, 0, bytes, 1000000, &z, &err),
                     TLM_OK);
    assert_int_equal(tlm_mtrace_z_close(&z, 1, &err), TLM_OK);
    unsigned char tl[8];
    tlm_mtrace_gzip_trailer(z.crc, z.in_bytes, tl);
    fwrite(tl, 1, 8, out);
    fflush(out);
    size_t n = 0;
    char *text = gunzip_file(out, &n);
    fclose(part);
    fclose(out);
    tlm_coll_free(NULL, recs);
    tlm_trace_free(tr);
    return text;
}

static void test_part_all(void **state)
{
    (void)state;
    tlm_mtrace_anchors an = {NULL, 0, 0};
    char *t = part_text(TLM_MTRACE_ALL, &an);
    /* times shifted by 1 ms; the CPU thread named from the trace, the
     * GPU stream by default; a hostile name escaped; the instant left out */
    assert_non_null(strstr(t, ",\n{\"ts\":1090.500,\"dur\":3.000,\"ph\":\"X\","
                              "\"pid\":1,\"tid\":1025,\"name\":"
                              "\"aten::mm\\u0001\",\"cat\":\"cpu_op\"}"));
    assert_non_null(strstr(t, "\"args\":{\"name\":\"main \\\"thread\\\"\"}"));
    assert_non_null(strstr(t, "\"args\":{\"name\":\"GPU 0 stream 7\"}"));
    assert_non_null(strstr(t, "{\"ts\":1200.500,\"dur\":30.250,\"ph\":\"X\","
                              "\"pid\":1,\"tid\":1026,"));
    assert_non_null(strstr(t, "\"args\":{\"coll\":\"allreduce\",\"pg\":\"0\","
                              "\"seq\":3,\"bytes\":4000}"));
    assert_non_null(strstr(t, "\"name\":\"thread_sort_index\",\"args\":"
                              "{\"sort_index\":100001}"));
    assert_null(strstr(t, "instant"));
    assert_non_null(strstr(t, "sgemm"));
    /* one anchor: the middle of the collective kernel, on its thread */
    assert_int_equal(an.n, 1);
    assert_int_equal(an.v[0].ts_ns, 200500 + 30250 / 2);
    assert_int_equal(an.v[0].tid, 1026);
    assert_int_equal(an.v[0].trace_rank, 1);
    assert_int_equal(an.v[0].seq, 3);
    assert_int_equal(an.v[0].flow_id,
                     tlm_mtrace_flow_id(an.v[0].match_key, 3));
    free(t);
    free(an.v);
}

static void test_part_filters(void **state)
{
    (void)state;
    tlm_mtrace_anchors an = {NULL, 0, 0};
    char *k = part_text(TLM_MTRACE_KERNELS, &an);
    assert_non_null(strstr(k, "sgemm"));
    assert_non_null(strstr(k, "ncclDevKernel_AllReduce"));
    assert_null(strstr(k, "aten::mm"));
    assert_null(strstr(k, "record_param_comms"));
    assert_null(strstr(k, "main \\\"thread")); /* unused thread unnamed */
    free(k);
    char *c = part_text(TLM_MTRACE_COLLECTIVES, &an);
    assert_non_null(strstr(c, "ncclDevKernel_AllReduce"));
    assert_non_null(strstr(c, "record_param_comms"));
    assert_null(strstr(c, "sgemm"));
    assert_null(strstr(c, "aten::mm"));
    free(c);
    assert_int_equal(an.n, 2); /* appended across calls */
    free(an.v);
}

static void test_flows(void **state)
{
    (void)state;
    tlm_mtrace_anchor a[3];
    memset(a, 0, sizeof a);
    for (int i = 0; i < 3; i++) {
        a[i].flow_id = 77;
        a[i].trace_rank = i;
        a[i].tid = (uint32_t)(i * 1024 + 2);
        a[i].ts_ns = 1000 * (i + 1);
    }
    a[0].role = TLM_MTRACE_ROLE_START;
    a[1].role = TLM_MTRACE_ROLE_NONE;
    a[2].role = TLM_MTRACE_ROLE_END;
    FILE *out = tmpfile();
    unsigned char gh[10];
    tlm_mtrace_gzip_header(gh);
    fwrite(gh, 1, 10, out);
    tlm_mtrace_z z;
    tlm_error err;
    assert_int_equal(tlm_mtrace_z_open(&z, out, 1, &err), TLM_OK);
    int64_t (*shift)(void *, int32_t) = NULL;
    (void)shift;
    assert_int_equal(tlm_mtrace_emit_flows(a, 3, NULL, NULL, &z, &err),
                     TLM_EINVAL);
    tlm_mtrace_z_abort(&z);
    fclose(out);
}

static int64_t shift_rank(void *arg, int32_t rank)
{
    (void)arg;
    return rank * 500;
}

static void test_flows_text(void **state)
{
    (void)state;
    tlm_mtrace_anchor a[2];
    memset(a, 0, sizeof a);
    a[0].flow_id = a[1].flow_id = 77;
    a[0].trace_rank = 0;
    a[1].trace_rank = 3;
    a[0].tid = 2;
    a[1].tid = 3074;
    a[0].ts_ns = 1000;
    a[1].ts_ns = 2000;
    a[0].role = TLM_MTRACE_ROLE_START;
    a[1].role = TLM_MTRACE_ROLE_END;
    FILE *out = tmpfile();
    unsigned char gh[10];
    tlm_mtrace_gzip_header(gh);
    fwrite(gh, 1, 10, out);
    tlm_mtrace_z z;
    tlm_error err;
    assert_int_equal(tlm_mtrace_z_open(&z, out, 1, &err), TLM_OK);
    assert_int_equal(tlm_mtrace_emit_flows(a, 2, shift_rank, NULL, &z, &err),
                     TLM_OK);
    assert_int_equal(tlm_mtrace_z_close(&z, 1, &err), TLM_OK);
    unsigned char tl[8];
    tlm_mtrace_gzip_trailer(z.crc, z.in_bytes, tl);
    fwrite(tl, 1, 8, out);
    fflush(out);
    size_t n = 0;
    char *t = gunzip_file(out, &n);
    assert_string_equal(
        t, ",\n{\"ts\":1.000,\"ph\":\"s\",\"bp\":\"e\",\"id\":77,\"pid\":0,"
           "\"tid\":2,\"name\":\"collective\",\"cat\":\"tlmpi.collective\"}"
           ",\n{\"ts\":3.500,\"ph\":\"f\",\"bp\":\"e\",\"id\":77,\"pid\":3,"
           "\"tid\":3074,\"name\":\"collective\",\"cat\":"
           "\"tlmpi.collective\"}");
    free(t);
    fclose(out);
}

/* More threads than ids: the rest share the last id, named once. */
static void test_many_threads(void **state)
{
    (void)state;
    size_t cap = 1 << 20, len = 0;
    char *js = malloc(cap);
    assert_non_null(js);
    len += (size_t)snprintf(js, cap, "{\"traceEvents\":[");
    for (int i = 0; i < 1100; i++)
        len += (size_t)snprintf(js + len, cap - len,
                                "%s{\"ph\":\"X\",\"cat\":\"cpu_op\","
                                "\"name\":\"op\",\"pid\":1,\"tid\":%d,"
                                "\"ts\":%d,\"dur\":1}",
                                i ? "," : "", 5000 + i, i);
    snprintf(js + len, cap - len, "]}");
    tlm_trace *tr = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(js, strlen(js), "t.json", NULL, &tr,
                                        &err), TLM_OK);
    FILE *part = tmpfile(), *out = tmpfile();
    tlm_mtrace_anchors an = {NULL, 0, 0};
    uint64_t bytes = 0;
    assert_int_equal(tlm_mtrace_part_write(tr, 2, TLM_MTRACE_ALL, NULL, 0,
                                           part, &an, &bytes, &err),
                     TLM_OK);
    assert_int_equal(an.n, 0);
    unsigned char gh[10];
    tlm_mtrace_gzip_header(gh);
    fwrite(gh, 1, 10, out);
    tlm_mtrace_z z;
    assert_int_equal(tlm_mtrace_z_open(&z, out, 1, &err), TLM_OK);
    fflush(part);
    assert_int_equal(tlm_mtrace_emit_part(part, 0, bytes, 0, &z, &err),
                     TLM_OK);
    assert_int_equal(tlm_mtrace_z_close(&z, 1, &err), TLM_OK);
    unsigned char tl[8];
    tlm_mtrace_gzip_trailer(z.crc, z.in_bytes, tl);
    fwrite(tl, 1, 8, out);
    fflush(out);
    size_t n = 0;
    char *t = gunzip_file(out, &n);
    size_t names = 0, others = 0;
    for (const char *q = t; (q = strstr(q, "\"thread_name\"")); q++)
        names++;
    for (const char *q = t; (q = strstr(q, "\"other threads\"")); q++)
        others++;
    assert_int_equal(names, 1024); /* 1,023 own ids + the shared one */
    assert_int_equal(others, 1);
    assert_non_null(strstr(t, "\"tid\":3072,")); /* 2 x 1024 + 1023 + 1 */
    assert_null(strstr(t, "\"tid\":3073,"));
    free(t);
    fclose(part);
    fclose(out);
    tlm_trace_free(tr);
    free(js);
}

static void test_damaged_part(void **state)
{
    (void)state;
    FILE *part = tmpfile(), *out = tmpfile();
    struct {
        int64_t ts;
        uint32_t len, kind;
    } h = {5, 3, 7}; /* no such kind */
    fwrite(&h, sizeof h, 1, part);
    fwrite("}}}", 1, 3, part);
    fflush(part);
    tlm_mtrace_z z;
    tlm_error err;
    tlm_error_clear(&err);
    assert_int_equal(tlm_mtrace_z_open(&z, out, 1, &err), TLM_OK);
    assert_int_equal(tlm_mtrace_emit_part(part, 0, sizeof h + 3, 0, &z, &err),
                     TLM_EFORMAT);
    /* a length past the end */
    h.kind = 0;
    h.len = 100;
    rewind(part);
    fwrite(&h, sizeof h, 1, part);
    fflush(part);
    assert_int_equal(tlm_mtrace_emit_part(part, 0, sizeof h + 3, 0, &z, &err),
                     TLM_EFORMAT);
    tlm_mtrace_z_abort(&z);
    fclose(part);
    fclose(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_json_str),
        cmocka_unit_test(test_json_us),
        cmocka_unit_test(test_flow_id),
        cmocka_unit_test(test_roles),
        cmocka_unit_test(test_segments_join),
        cmocka_unit_test(test_part_all),
        cmocka_unit_test(test_part_filters),
        cmocka_unit_test(test_flows),
        cmocka_unit_test(test_flows_text),
        cmocka_unit_test(test_many_threads),
        cmocka_unit_test(test_damaged_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
