/*
 * test_reader.c - the streaming trace tokenizer (src/trace/reader.c)
 * through the public API of tlm_trace.h.
 *
 * Sections:
 *   - error corpus: invalid inputs with the exact status and byte offset.
 *     Inputs are written with ' for " so that the caret line under each
 *     one lines up in the source; the caret's column IS the expected offset
 *     (the test computes it from the caret string).  Every case is read with
 *     chunk sizes 1, 2, 3, 7, 64 and the default, plain and gzip'd: the
 *     offset (in the decompressed stream) must not depend on the chunking.
 *   - escapes, numbers, types, metadata, arguments, keys in any order,
 *     duplicates, callbacks, keep_events, bounds;
 *   - chunk-size equivalence and gzip streaming (multi-member, truncated,
 *     bad CRC) of a rich document;
 *   - allocation failure loop (curl torture style);
 *   - every trace that tlmpi-synth writes (schemas 1, 2, 3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlm_test_util.h"

/* ------------------------------------------------------------------ MARK:
 * Helpers. */

/* The JSON of a table entry: ' becomes ". */
static char *dq(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    assert_non_null(d);
    for (size_t i = 0; i <= n; i++)
        d[i] = s[i] == '\'' ? '"' : s[i];
    return d;
}

static size_t chunks[] = {0, 1, 2, 3, 7, 64, 4096};
#define N_CHUNKS (sizeof chunks / sizeof chunks[0])

static tlm_status read_opts(const void *d, size_t n, const tlm_read_opts *o,
                            tlm_trace **t, tlm_error *err)
{
    return tlm_trace_read_mem(d, n, "t.json", o, t, err);
}

/* Reads json (NUL-terminated) with default options. */
static tlm_trace *rd_ok(const char *json)
{
    tlm_trace *t = tt_read_ok(json);
    assert_non_null(t);
    return t;
}

static const tlm_event *ev_at(const tlm_trace *t, size_t i)
{
    size_t n;
    const tlm_event *ev = tlm_trace_events(t, &n);
    assert_true(i < n);
    return &ev[i];
}

static const char *str_of(const tlm_trace *t, uint32_t id)
{
    return tlm_trace_str(t, id, NULL);
}

/* Asserts that two traces hold the same events, strings, args, meta. */
/* The flow id of a kept event (tlm_event_flow_id), 0 when it has none. */
static int64_t fid(const tlm_trace *t, const tlm_event *e)
{
    int64_t v = 0;
    if (!tlm_event_flow_id(t, e, &v))
        return 0;
    return v;
}

static void assert_same_trace(const tlm_trace *a, const tlm_trace *b)
{
    size_t na, nb;
    const tlm_event *ea = tlm_trace_events(a, &na);
    const tlm_event *eb = tlm_trace_events(b, &nb);
    assert_int_equal(na, nb);
    assert_int_equal(tlm_trace_str_count(a), tlm_trace_str_count(b));
    for (uint32_t i = 0; i < tlm_trace_str_count(a); i++) {
        size_t la, lb;
        const char *sa = tlm_trace_str(a, i, &la);
        const char *sb = tlm_trace_str(b, i, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(sa, sb, la);
        assert_true(tlm_trace_str_hash(a, i) == tlm_trace_str_hash(b, i));
    }
    for (size_t i = 0; i < na; i++) {
        const tlm_event *x = &ea[i], *y = &eb[i];
        assert_true(x->ts == y->ts);
        assert_true(tlm_ev_dur(x) == tlm_ev_dur(y));
        assert_true(tlm_ev_pid(x) == tlm_ev_pid(y));
        assert_true(tlm_ev_tid(x) == tlm_ev_tid(y));
        assert_true(fid(a, x) == fid(b, y));
        assert_int_equal(x->name, y->name);
        assert_int_equal(x->cat, y->cat);
        assert_int_equal(x->cat_str, y->cat_str);
        assert_int_equal(x->ph, y->ph);
        assert_int_equal(x->flags, y->flags);
        assert_int_equal(x->has_tid, y->has_tid);
        uint64_t ia = 0, ib = 0;
        tlm_arg ka, kb;
        tlm_argv va, vb;
        for (;;) {
            int ma = tlm_event_arg_next(a, x, &ia, &ka, &va);
            int mb = tlm_event_arg_next(b, y, &ib, &kb, &vb);
            assert_int_equal(ma, mb);
            if (!ma)
                break;
            assert_int_equal(ka, kb);
            assert_int_equal(va.type, vb.type);
            assert_true(va.i == vb.i);
            assert_int_equal(va.str, vb.str);
        }
    }
    const tlm_trace_meta *ma = tlm_trace_meta_get(a);
    const tlm_trace_meta *mb = tlm_trace_meta_get(b);
    assert_int_equal(ma->has_distributed, mb->has_distributed);
    assert_true(ma->rank == mb->rank);
    assert_true(ma->world_size == mb->world_size);
    assert_true(ma->pg_count == mb->pg_count);
    assert_int_equal(ma->backend, mb->backend);
    assert_int_equal(ma->nccl_version, mb->nccl_version);
    assert_int_equal(ma->n_pgs, mb->n_pgs);
    for (size_t i = 0; i < ma->n_pgs; i++) {
        assert_int_equal(ma->pgs[i].pg_name, mb->pgs[i].pg_name);
        assert_int_equal(ma->pgs[i].pg_desc, mb->pgs[i].pg_desc);
        assert_int_equal(ma->pgs[i].ranks_text, mb->pgs[i].ranks_text);
        assert_int_equal(ma->pgs[i].n_ranks, mb->pgs[i].n_ranks);
        assert_true(ma->pgs[i].pg_size == mb->pgs[i].pg_size);
    }
    assert_int_equal(ma->has_base_time, mb->has_base_time);
    assert_true(ma->base_time_ns == mb->base_time_ns);
    assert_true(ma->schema_version == mb->schema_version);
    assert_int_equal(ma->trace_name, mb->trace_name);
    assert_int_equal(ma->device_properties, mb->device_properties);
    assert_int_equal(ma->has_trace_events, mb->has_trace_events);
    assert_true(tlm_trace_stats(a)->n_events == tlm_trace_stats(b)->n_events);
    assert_true(tlm_trace_stats(a)->bytes_json ==
                tlm_trace_stats(b)->bytes_json);
}

/* ------------------------------------------------------------------ MARK:
 * Error corpus.  E(input, caret, code): the caret marks the offending byte;
 * a caret one past the last character means "at the end of the input". */

typedef struct err_case {
    const char *json;
    const char *caret;
    tlm_status code;
    unsigned max_depth;   /* 0 = default */
    size_t max_string;    /* 0 = default */
    uint64_t max_events;  /* 0 = unlimited */
} err_case;

#define E(j, c, code) {j, c, code, 0, 0, 0}
#define E_DEPTH(j, c, d) {j, c, TLM_ELIMIT, d, 0, 0}
#define E_STR(j, c, s) {j, c, TLM_ELIMIT, 0, s, 0}
#define E_EVENTS(j, c, n) {j, c, TLM_ELIMIT, 0, 0, n}

static const err_case err_cases[] = {
    /* ---- not a trace at all */
    E("",
      "^", TLM_EFORMAT),
    E("   ",
      "   ^", TLM_EFORMAT),
    E("not json",
      "^", TLM_EFORMAT),
    E("42",
      "^", TLM_EFORMAT),
    E("'traceEvents'",
      "^", TLM_EFORMAT),
    E("{}",
      "  ^", TLM_ESCHEMA), /* no traceEvents */
    E("{'traceName':'x','distributedInfo':{}}",
      "                                      ^", TLM_ESCHEMA),
    /* ---- invalid UTF-8 (RFC 3629): the offending byte */
    E("[{'name':'a\xff'}]",
      "           ^", TLM_EFORMAT),
    E("[{'name':'a\xc3'}]",
      "            ^", TLM_EFORMAT), /* sequence cut by the quote */
    E("[{'name':'\xc0\xaf'}]",
      "          ^", TLM_EFORMAT), /* overlong lead */
    E("[{'name':'\xe0\x80\xaf'}]",
      "           ^", TLM_EFORMAT), /* overlong 3-byte form */
    E("[{'name':'\xed\xa0\x80'}]",
      "           ^", TLM_EFORMAT), /* UTF-16 surrogate */
    E("[{'name':'\xf4\x90\x80\x80'}]",
      "           ^", TLM_EFORMAT), /* above U+10FFFF */
    E("[{'name':'\xf5'}]",
      "          ^", TLM_EFORMAT),
    E("[{'name':'\x80'}]",
      "          ^", TLM_EFORMAT), /* stray continuation */
    E("[{'na\xffme':1}]",
      "     ^", TLM_EFORMAT), /* in a key */
    E("[{'args':{'zz':['ok','\xe2\x82x']}}]",
      "                        ^", TLM_EFORMAT), /* skipped value */
    E("[{'zz':{'a':'\xf0\x9f\x98!'}}]",
      "                ^", TLM_EFORMAT), /* skipped member */
    E("{'zz':'\xff','traceEvents':[]}",
      "       ^", TLM_EFORMAT), /* skipped top-level key */
    /* ---- top level */
    E("{",
      " ^", TLM_EFORMAT),
    E("{'traceEvents':[]",
      "                 ^", TLM_EFORMAT),
    E("{'traceEvents':[]}x",
      "                  ^", TLM_EFORMAT),
    E("{'traceEvents':[]} {}",
      "                   ^", TLM_EFORMAT),
    E("[]]",
      "  ^", TLM_EFORMAT),
    E("{'traceEvents':{}}",
      "               ^", TLM_ESCHEMA),
    E("{'traceEvents':null}",
      "               ^", TLM_ESCHEMA),
    E("{'traceEvents':[],}",
      "                  ^", TLM_EFORMAT),
    E("{'traceEvents' []}",
      "               ^", TLM_EFORMAT),
    E("{'traceEvents':[] 'x':1}",
      "                  ^", TLM_EFORMAT),
    E("{traceEvents:[]}",
      " ^", TLM_EFORMAT),
    E("{'traceEvents':[]}}",
      "                  ^", TLM_EFORMAT),
    /* ---- the events array */
    E("[1]",
      " ^", TLM_ESCHEMA),
    E("['x']",
      " ^", TLM_ESCHEMA),
    E("[[]]",
      " ^", TLM_ESCHEMA),
    E("[null]",
      " ^", TLM_ESCHEMA),
    E("[{},]",
      "    ^", TLM_EFORMAT),
    E("[,{}]",
      " ^", TLM_EFORMAT),
    E("[{}{}]",
      "   ^", TLM_EFORMAT),
    E("[{}",
      "   ^", TLM_EFORMAT),
    E("[{",
      "  ^", TLM_EFORMAT),
    E("[{'ph':'X'",
      "          ^", TLM_EFORMAT),
    E("[{'ph':'X'}, {'ph':'X', 'name':'trunc",
      "                                     ^", TLM_EFORMAT),
    /* ---- event objects */
    E("[{'ph' 'X'}]",
      "       ^", TLM_EFORMAT),
    E("[{'ph':'X' 'ts':1}]",
      "           ^", TLM_EFORMAT),
    E("[{'ph':'X',}]",
      "           ^", TLM_EFORMAT),
    E("[{ph:'X'}]",
      "  ^", TLM_EFORMAT),
    E("[{'ph':'X'}, {'ph':'X'} {}]",
      "                        ^", TLM_EFORMAT),
    /* ---- wrong types */
    E("[{'ts':'1'}]",
      "       ^", TLM_ESCHEMA),
    E("[{'ts':true}]",
      "       ^", TLM_ESCHEMA),
    E("[{'ts':null}]",
      "       ^", TLM_ESCHEMA),
    E("[{'dur':[1]}]",
      "        ^", TLM_ESCHEMA),
    E("[{'dur':{}}]",
      "        ^", TLM_ESCHEMA),
    E("[{'ph':1}]",
      "       ^", TLM_ESCHEMA),
    E("[{'cat':null}]",
      "        ^", TLM_ESCHEMA),
    E("[{'cat':['kernel']}]",
      "        ^", TLM_ESCHEMA),
    E("[{'pid':{}}]",
      "        ^", TLM_ESCHEMA),
    E("[{'tid':null}]",
      "        ^", TLM_ESCHEMA),
    E("[{'id':[5]}]",
      "       ^", TLM_ESCHEMA),
    E("[{'args':[]}]",
      "         ^", TLM_ESCHEMA),
    E("[{'args':1}]",
      "         ^", TLM_ESCHEMA),
    E("[{'args':'x'}]",
      "         ^", TLM_ESCHEMA),
    /* ---- numbers */
    E("[{'ts':1e30}]",
      "       ^", TLM_ERANGE),
    E("[{'ts':-1e30}]",
      "       ^", TLM_ERANGE),
    E("[{'ph':'X','dur':1e17}]",
      "                 ^", TLM_ERANGE),
    E("[{'ts':9223372036854775.808}]",
      "       ^", TLM_ERANGE),
    E("[{'ts':-9223372036854775.809}]",
      "       ^", TLM_ERANGE),
    E("[{'ts':x}]",
      "       ^", TLM_EFORMAT),
    E("[{'ts':+1}]",
      "       ^", TLM_EFORMAT),
    E("[{'ts':01}]",
      "        ^", TLM_EFORMAT),
    E("[{'ts':1.}]",
      "         ^", TLM_EFORMAT),
    E("[{'ts':.5}]",
      "       ^", TLM_EFORMAT),
    E("[{'ts':1.5e}]",
      "           ^", TLM_EFORMAT),
    E("[{'ts':1e+}]",
      "          ^", TLM_EFORMAT),
    E("[{'ts':-}]",
      "        ^", TLM_EFORMAT),
    E("[{'ts':1",
      "        ^", TLM_EFORMAT),
    E("[{'ts':1.5e",
      "           ^", TLM_EFORMAT),
    /* ---- literals and other values */
    E("[{'x':tru}]",
      "      ^", TLM_EFORMAT),
    E("[{'x':nul",
      "         ^", TLM_EFORMAT),
    E("[{'x':undefined}]",
      "      ^", TLM_EFORMAT),
    E("[{'x':[1 2]}]",
      "         ^", TLM_EFORMAT),
    E("[{'x':{'a' 1}}]",
      "           ^", TLM_EFORMAT),
    E("[{'x':{1:2}}]",
      "       ^", TLM_EFORMAT),
    E("[{'x':[1,]}]",
      "         ^", TLM_EFORMAT),
    E("[{'x':'unterminated}]",
      "                     ^", TLM_EFORMAT),
    /* ---- args */
    E("[{'args':{'stream':}}]",
      "                   ^", TLM_EFORMAT),
    E("[{'args':{'x':1,}}]",
      "                ^", TLM_EFORMAT),
    E("[{'args':{'grid':[1,2,}}]",
      "                      ^", TLM_EFORMAT),
    E("[{'args':{'grid':[1 2]}}]",
      "                    ^", TLM_EFORMAT),
    E("[{'args':{'stream' 7}}]",
      "                   ^", TLM_EFORMAT),
    E("[{'args':{'stream':7 'x':1}}]",
      "                     ^", TLM_EFORMAT),
    E("[{'args':{'Input Dims':[[1,2],[}}]",
      "                               ^", TLM_EFORMAT),
    /* ---- unknown top-level values (streaming skip) */
    E("{'x':[1}],'traceEvents':[]}",
      "       ^", TLM_EFORMAT),
    E("{'x':,'traceEvents':[]}",
      "     ^", TLM_EFORMAT),
    E("{'x':}",
      "     ^", TLM_EFORMAT),
    E("{'x':'abc",
      "         ^", TLM_EFORMAT),
    E("{'x':@,'traceEvents':[]}",
      "     ^", TLM_EFORMAT),
    E("{'x':[[[]]",
      "          ^", TLM_EFORMAT),
    /* ---- metadata */
    E("{'distributedInfo':{'rank' 1},'traceEvents':[]}",
      "                           ^", TLM_EFORMAT),
    E("{'distributedInfo':{'rank':1,},'traceEvents':[]}",
      "                             ^", TLM_EFORMAT),
    E("{'distributedInfo':{'pg_config':[{'ranks':[0,1]} {}]}}",
      "                                                 ^", TLM_EFORMAT),
    E("{'baseTimeNanoseconds':1x,'traceEvents':[]}",
      "                        ^", TLM_EFORMAT),
    E("{'deviceProperties':[{'id':0,}],'traceEvents':[]}",
      "                             ^", TLM_EFORMAT),
    /* ---- bounds */
    E_DEPTH("[{'args':{'x':[[]]}}]",
            "               ^", 5),
    E_DEPTH("[{'args':{'x':{'a':{}}}}]",
            "                   ^", 5),
    E_DEPTH("[{'args':{}}]",
            "         ^", 3),
    E_DEPTH("[{}]",
            " ^", 2),
    E_DEPTH("{'x':[[[[[]]]]],'traceEvents':[]}",
            "         ^", 5),
    E_DEPTH("{'x':[{'a':[{'b':[]}]}],'traceEvents':[]}",
            "                 ^", 5),
    E_STR("[{'name':'abcde'}]",
          "          ^", 4),
    E_STR("[{'ph':'X','args':{'Input type':'longer_valu'}}]",
          "                                 ^", 10),
    E_STR("[{'args':{'x':['abcdefgh']}}]",
          "                ^", 7),
    E_STR("{'traceName':'abcdefghij','traceEvents':[]}",
          "              ^", 9),
    E_STR("{'unknown_long_key':1,'traceEvents':[]}",
          "  ^", 15),
    E_EVENTS("[{},{},{}]",
             "         ^", 2),
};

static void run_err_case(const err_case *c, const char *json, size_t n,
                         int64_t want, int gz)
{
    size_t glen = 0;
    unsigned char *g = gz ? tt_gzip(json, n, &glen) : NULL;
    for (size_t k = 0; k < N_CHUNKS; k++) {
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.chunk_size = chunks[k];
        o.max_depth = c->max_depth;
        o.max_string = c->max_string;
        o.max_events = c->max_events;
        tlm_trace *t = (tlm_trace *)&o; /* must be reset to NULL */
        tlm_error err;
        tlm_status st = gz ? read_opts(g, glen, &o, &t, &err)
                           : read_opts(json, n, &o, &t, &err);
        if (st != c->code || err.offset != want) {
            char buf[1024];
            fprintf(stderr,
                    "case %s (chunk %zu%s): want %s at %lld, got %s: %s\n",
                    json, chunks[k], gz ? ", gzip" : "",
                    tlm_status_str(c->code), (long long)want,
                    tlm_status_str(st),
                    tlm_error_format(&err, buf, sizeof buf));
        }
        assert_int_equal(st, c->code);
        assert_int_equal(err.code, c->code);
        assert_true(err.offset == want);
        assert_null(t);
        assert_string_equal(err.file, "t.json");
        assert_true(err.msg[0] != '\0');
        char buf[1024], off[64];
        snprintf(off, sizeof off, "t.json: offset %lld: ", (long long)want);
        tlm_error_format(&err, buf, sizeof buf);
        assert_memory_equal(buf, off, strlen(off));
    }
    free(g);
}

static void test_error_corpus(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof err_cases / sizeof err_cases[0]; i++) {
        const err_case *c = &err_cases[i];
        const char *caret = strchr(c->caret, '^');
        assert_non_null(caret);
        int64_t want = caret - c->caret;
        char *json = dq(c->json);
        size_t n = strlen(json);
        assert_true(want <= (int64_t)n);
        run_err_case(c, json, n, want, 0);
        run_err_case(c, json, n, want, 1);
        free(json);
    }
}

/* Cases with bytes that do not line up in the source (escapes, control
 * characters): explicit offsets. */
typedef struct raw_case {
    const char *json;
    tlm_status code;
    int64_t off;
} raw_case;

static const raw_case raw_cases[] = {
    /* [{"name":"a\tb"}]   (a real TAB byte)
     *            ^ 11 */
    {"[{\"name\":\"a\tb\"}]", TLM_EFORMAT, 11},
    /* [{"name":"a<NL>b"}] */
    {"[{\"name\":\"a\nb\"}]", TLM_EFORMAT, 11},
    /* [{"name":"\q"}]
     *           ^ 10 (the backslash) */
    {"[{\"name\":\"\\q\"}]", TLM_EFORMAT, 10},
    /* [{"name":"\u12G4"}]
     *               ^ 14 (the bad hex digit) */
    {"[{\"name\":\"\\u12G4\"}]", TLM_EFORMAT, 14},
    /* [{"name":"\u12"}]
     *               ^ 14 (the quote is not a hex digit) */
    {"[{\"name\":\"\\u12\"}]", TLM_EFORMAT, 14},
    /* [{"name":"\x41"}] */
    {"[{\"name\":\"\\x41\"}]", TLM_EFORMAT, 10},
    /* {"x":"a<TAB>","traceEvents":[]}: also in skipped values
     *        ^ 7 */
    {"{\"x\":\"a\t\",\"traceEvents\":[]}", TLM_EFORMAT, 7},
    /* [{"args":{"Input type":"a<0x01>"}}]
     *                         ^ 25 */
    {"[{\"args\":{\"Input type\":\"a\001\"}}]", TLM_EFORMAT, 25},
    /* [{"name":"\ */
    {"[{\"name\":\"\\", TLM_EFORMAT, 11},
    /* [{"name":"\u00 */
    {"[{\"name\":\"\\u00", TLM_EFORMAT, 14},
};

static void test_error_raw(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof raw_cases / sizeof raw_cases[0]; i++) {
        err_case c = {raw_cases[i].json, "^", raw_cases[i].code, 0, 0, 0};
        size_t n = strlen(c.json);
        run_err_case(&c, c.json, n, raw_cases[i].off, 0);
        run_err_case(&c, c.json, n, raw_cases[i].off, 1);
    }
}

/* A NUL byte inside the input is a control character, not an end. */
static void test_error_nul_byte(void **state)
{
    (void)state;
    static const char json[] = "[{\"name\":\"a\0b\"}]";
    err_case c = {json, "^", TLM_EFORMAT, 0, 0, 0};
    run_err_case(&c, json, sizeof json - 1, 11, 0);
    static const char json2[] = "[{\"ph\":\"X\"}\0]";
    run_err_case(&c, json2, sizeof json2 - 1, 11, 1);
}

/* The message names the field and the event being read. */
static void test_error_message(void **state)
{
    (void)state;
    tlm_trace *t;
    tlm_error err;
    char *json = dq("[{'ph':'X'},{'name':'aten::mm','ts':'12'}]");
    assert_int_equal(tt_read_chunk(json, 0, &t, &err), TLM_ESCHEMA);
    assert_non_null(strstr(err.msg, "traceEvents[1].ts"));
    assert_non_null(strstr(err.msg, "aten::mm"));
    free(json);
    json = dq("{'distributedInfo':{'rank':1 2},'traceEvents':[]}");
    assert_int_equal(tt_read_chunk(json, 3, &t, &err), TLM_EFORMAT);
    assert_non_null(strstr(err.msg, "distributedInfo"));
    free(json);
    /* an unnamed memory buffer: no file in the report */
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    assert_int_equal(tlm_trace_read_mem("[1]", 3, NULL, &o, &t, &err),
                     TLM_ESCHEMA);
    assert_string_equal(err.file, "");
    assert_true(err.offset == 1);
}

/* err is optional: the returned status must not depend on it. */
static tlm_status stop_cb(void *ud, tlm_trace *t, const tlm_event *ev,
                          uint64_t index, tlm_error *err)
{
    (void)ud;
    (void)t;
    (void)ev;
    (void)err;
    return index == 1 ? TLM_EINVAL : TLM_OK;
}

static void test_error_null_err(void **state)
{
    (void)state;
    tlm_trace *t = NULL;
    assert_int_equal(tlm_trace_read_mem("[1]", 3, "x", NULL, &t, NULL),
                     TLM_ESCHEMA);
    assert_null(t);
    assert_int_equal(tlm_trace_read_mem("[{\"ts\":1e30}]", 13, "x", NULL, &t,
                                        NULL),
                     TLM_ERANGE);
    assert_int_equal(tlm_trace_read_mem("{}", 2, "x", NULL, &t, NULL),
                     TLM_ESCHEMA);
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.max_depth = 2;
    assert_int_equal(tlm_trace_read_mem("[{}]", 4, "x", &o, &t, NULL),
                     TLM_ELIMIT);
    tlm_read_opts_init(&o);
    o.on_event = stop_cb;
    assert_int_equal(tlm_trace_read_mem("[{},{},{}]", 10, "x", &o, &t, NULL),
                     TLM_EINVAL);
    assert_null(t);
    assert_int_equal(tlm_trace_read_file("/nonexistent/x.json", NULL, &t,
                                         NULL),
                     TLM_EIO);
    assert_int_equal(tlm_trace_read_file(NULL, NULL, &t, NULL), TLM_EINVAL);
}

/* ------------------------------------------------------------------ MARK:
 * Escapes. */

static void expect_name(const char *json_str, const char *want, size_t wlen)
{
    size_t n = strlen(json_str);
    char *json = malloc(n + 32);
    assert_non_null(json);
    snprintf(json, n + 32, "[{\"name\":\"%s\"}]", json_str);
    for (size_t k = 0; k < N_CHUNKS; k++) {
        tlm_trace *t = NULL;
        tlm_error err;
        tlm_status st = tt_read_chunk(json, chunks[k], &t, &err);
        if (st != TLM_OK)
            fprintf(stderr, "%s: %s\n", json, err.msg);
        assert_int_equal(st, TLM_OK);
        size_t len;
        const char *s = tlm_trace_str(t, ev_at(t, 0)->name, &len);
        assert_int_equal(len, wlen);
        assert_memory_equal(s, want, wlen);
        assert_int_equal(s[len], '\0');
        /* the unescaped text is what gets interned and hashed */
        assert_int_equal(tlm_trace_str_find(t, want, wlen), ev_at(t, 0)->name);
        assert_true(tlm_trace_str_hash(t, ev_at(t, 0)->name) ==
                    tlm_hash64(want, wlen));
        tlm_trace_free(t);
    }
    free(json);
}

static void test_escapes_simple(void **state)
{
    (void)state;
    expect_name("plain", "plain", 5);
    expect_name("\\\"q\\\"", "\"q\"", 3);
    expect_name("a\\\\b", "a\\b", 3);
    expect_name("a\\/b", "a/b", 3);
    expect_name("\\b\\f\\n\\r\\t", "\b\f\n\r\t", 5);
    expect_name("tab\\tend\\n", "tab\tend\n", 8);
    /* raw UTF-8 passes through */
    expect_name("caf\xc3\xa9", "caf\xc3\xa9", 5);
}

static void test_escapes_unicode(void **state)
{
    (void)state;
    expect_name("\\u0041", "A", 1);
    expect_name("\\u00e9", "\xc3\xa9", 2);
    expect_name("\\u00C9", "\xc3\x89", 2);
    expect_name("\\u07ff", "\xdf\xbf", 2);
    expect_name("\\u0800", "\xe0\xa0\x80", 3);
    expect_name("\\u20ac", "\xe2\x82\xac", 3);
    expect_name("\\uffff", "\xef\xbf\xbf", 3);
    /* \u0000 is kept as its 6-byte escape: names are C strings, never
     * cut at a NUL (issue 33, case 11) */
    expect_name("a\\u0000b", "a\\u0000b", 8);
    /* surrogate pairs -> 4-byte UTF-8 */
    expect_name("\\ud83d\\ude00", "\xf0\x9f\x98\x80", 4);
    expect_name("\\uD83D\\uDE00", "\xf0\x9f\x98\x80", 4);
    expect_name("\\ud800\\udc00", "\xf0\x90\x80\x80", 4);
    expect_name("\\udbff\\udfff", "\xf4\x8f\xbf\xbf", 4);
    expect_name("x\\ud83d\\ude00y", "x\xf0\x9f\x98\x80y", 6);
    /* lone surrogates -> U+FFFD */
    expect_name("\\ud800", "\xef\xbf\xbd", 3);
    expect_name("\\ud800x", "\xef\xbf\xbdx", 4);
    expect_name("\\udc00", "\xef\xbf\xbd", 3);
    expect_name("\\udfff\\ud800", "\xef\xbf\xbd\xef\xbf\xbd", 6);
    expect_name("\\ud800\\u0041", "\xef\xbf\xbd" "A", 4);
    expect_name("\\ud800\\ud800\\udc00",
                "\xef\xbf\xbd\xf0\x90\x80\x80", 7);
    expect_name("\\ud800\\n", "\xef\xbf\xbd\n", 4);
}

/* Lone surrogates are counted once each, whatever the chunk size (a value
 * cut by the window is parsed again), in the strings that are decoded:
 * names, categories, string arguments; pairs are not counted. */
static void test_lone_surrogate_count(void **state)
{
    (void)state;
    const char *json =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"name\":\"a\\ud800b\",\"cat\":\"c\\udfff\"},"
        "{\"ph\":\"X\",\"name\":\"\\ud83d\\ude00\",\"args\":"
        "{\"Process Group Name\":\"\\udc00\",\"Input type\":[\"\\udc00\"],"
        "\"zz\":\"\\ud800\"}},"
        "{\"ph\":\"X\",\"name\":\"ok\"}]}";
    for (size_t chunk = 1; chunk <= 64; chunk++) {
        tlm_trace *t = NULL;
        tlm_error err;
        assert_int_equal(tt_read_chunk(json, chunk, &t, &err), TLM_OK);
        /* name, category, the string argument; not the compact JSON of
         * Input type (it keeps its escapes), not the skipped "zz" */
        assert_int_equal(tlm_trace_stats(t)->n_lone_surrogates, 3);
        tlm_trace_free(t);
    }
}

/* The string scanner works on 8-byte words: put every special byte at every
 * position of a word, next to bytes that look alike (0x7f, 0x80, 0xff,
 * 0x20, 0x21, 0x5b, 0x5d). */
static void test_string_scan_positions(void **state)
{
    (void)state;
    /* filler units: ASCII and valid UTF-8 of every length, so every byte
     * class meets every position of the 8-byte scan */
    static const char *const fill[] = {"a", "\x7f", "\xc2\x80", "\xf4\x8f\xbf\xbf",
                                       " ", "!", "[", "]", "\xc3\xa9",
                                       "\xe2\x82\xac", "\xed\x9f\xbf",
                                       "\xf0\x90\x80\x80"};
    const size_t nf = sizeof fill / sizeof fill[0];
    for (size_t f = 0; f < nf; f++) {
        for (size_t k = 0; k < 19; k++) {
            char json[256], want[256];
            size_t n = 0, w = 0;
            n += (size_t)snprintf(json, sizeof json, "[{\"name\":\"");
            for (size_t i = 0; i < k; i++) {
                size_t l = strlen(fill[f]);
                memcpy(json + n, fill[f], l);
                memcpy(want + w, fill[f], l);
                n += l;
                w += l;
            }
            size_t at = n; /* byte offset of the escaped quote */
            json[n++] = '\\';
            json[n++] = '"';
            want[w++] = '"';
            for (size_t i = 0; i < 9; i++) {
                const char *u = fill[(f + i) % nf];
                size_t l = strlen(u);
                memcpy(json + n, u, l);
                memcpy(want + w, u, l);
                n += l;
                w += l;
            }
            memcpy(json + n, "\"}]", 4);
            tlm_trace *t = rd_ok(json);
            size_t len;
            const char *s = tlm_trace_str(t, ev_at(t, 0)->name, &len);
            assert_int_equal(len, w);
            assert_memory_equal(s, want, w);
            tlm_trace_free(t);

            /* a control byte or an invalid UTF-8 byte where the escape
             * was: the error points at it */
            static const unsigned char bad[] = {0x00, 0x01, 0x1f, '\n',
                                                0x80, 0xc0, 0xf5, 0xff};
            for (size_t c = 0; c < sizeof bad; c++) {
                n = at;
                json[n] = (char)bad[c];
                for (size_t i = 1; i < 9; i++)
                    json[n + i] = 'b';
                memcpy(json + n + 9, "\"}]", 4);
                err_case ec = {json, "^", TLM_EFORMAT, 0, 0, 0};
                run_err_case(&ec, json, n + 12, (int64_t)n, 0);
            }
        }
    }
}

/* Escapes in the other places strings are unescaped. */
static void test_escapes_elsewhere(void **state)
{
    (void)state;
    tlm_trace *t = rd_ok(
        "{\"traceName\":\"r\\u00e9n\",\"traceEvents\":[{\"cat\":\"k\\u0065rnel\","
        "\"tid\":\"str\\team\",\"args\":{\"Input type\":\"c10::\\\"Half\\\"\","
        "\"Concrete Inputs\":[\"\\u0041\",\"\\\"\"]}}]}");
    const tlm_event *ev = ev_at(t, 0);
    assert_string_equal(str_of(t, tlm_trace_meta_get(t)->trace_name),
                        "r\xc3\xa9n");
    /* a category written with an escape is still the known category */
    assert_int_equal(ev->cat, TLM_CAT_KERNEL);
    assert_string_equal(str_of(t, ev->cat_str), "kernel");
    assert_true(ev->flags & TLM_EV_TID_STR);
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_tid(ev)), "str\team");
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_INPUT_TYPE, NULL),
                        "c10::\"Half\"");
    /* compact text keeps the JSON escapes of strings inside arrays */
    assert_string_equal(
        tlm_event_arg_str(t, ev, TLM_ARG_CONCRETE_INPUTS, NULL),
        "[\"\\u0041\",\"\\\"\"]");
    tlm_trace_free(t);
}

/* ------------------------------------------------------------------ MARK:
 * Events: ph, cat, pid/tid, flow ids, times. */

static void test_event_fields(void **state)
{
    (void)state;
    char *json = dq(
        "[{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':12,'tid':34,"
        "'ts':1428625746277.044,'dur':2.5},"
        "{'ph':'X','cat':'kernel','name':'k','pid':0,'tid':'stream 7',"
        "'ts':0.0015,'dur':0.0025},"
        "{'ph':'s','id':5,'bp':'e','cat':'ac2g','name':'ac2g','pid':1,"
        "'tid':1,'ts':-1},"
        "{'ph':'f','id':'0x1f','cat':'ac2g','pid':'host','ts':1e-3},"
        "{'ph':'M','name':'process_name','pid':3,'args':{'name':'python'}},"
        "{'ph':'i','s':'t','cat':'my_cat','ts':0},"
        "{'ph':'B','cat':'','tid':1.5,'ts':7},"
        "{'ph':'E','ts':8,'bp':'x'},"
        "{}]");
    tlm_trace *t = rd_ok(json);
    free(json);
    size_t n;
    const tlm_event *ev = tlm_trace_events(t, &n);
    assert_int_equal(n, 9);

    assert_int_equal(ev[0].ph, 'X');
    assert_int_equal(ev[0].cat, TLM_CAT_CPU_OP);
    assert_string_equal(str_of(t, ev[0].cat_str), "cpu_op");
    assert_string_equal(str_of(t, ev[0].name), "aten::mm");
    assert_true(tlm_ev_pid(&ev[0]) == 12);
    assert_true(tlm_ev_tid(&ev[0]) == 34);
    assert_int_equal(ev[0].has_tid, 1);
    assert_true(ev[0].ts == 1428625746277044LL);
    assert_true(tlm_ev_dur(&(ev[0])) == 2500);
    assert_int_equal(ev[0].flags,
                     TLM_EV_HAS_TS | TLM_EV_HAS_DUR | TLM_EV_HAS_PID);

    assert_int_equal(ev[1].cat, TLM_CAT_KERNEL);
    assert_true(ev[1].flags & TLM_EV_TID_STR);
    assert_false(ev[1].flags & TLM_EV_PID_STR);
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_tid(&ev[1])), "stream 7");
    assert_true(ev[1].ts == 2);  /* 1.5 ns: half to even */
    assert_true(tlm_ev_dur(&(ev[1])) == 2); /* 2.5 ns: half to even */

    assert_int_equal(ev[2].ph, 's');
    assert_int_equal(ev[2].cat, TLM_CAT_AC2G);
    assert_true(ev[2].flags & TLM_EV_HAS_ID);
    assert_false(ev[2].flags & TLM_EV_ID_STR);
    assert_true(ev[2].flags & TLM_EV_BP_E);
    assert_true(fid(t, &ev[2]) == 5);
    assert_true(ev[2].ts == -1000);
    assert_false(ev[2].flags & TLM_EV_HAS_DUR);

    assert_int_equal(ev[3].ph, 'f');
    assert_true(ev[3].flags & TLM_EV_ID_STR);
    assert_string_equal(str_of(t, (uint32_t)fid(t, &ev[3])), "0x1f");
    assert_true(ev[3].flags & TLM_EV_PID_STR);
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_pid(&ev[3])), "host");
    assert_int_equal(ev[3].has_tid, 0);
    assert_false(ev[3].flags & TLM_EV_BP_E);
    assert_true(ev[3].ts == 1);

    assert_int_equal(ev[4].ph, 'M');
    assert_int_equal(ev[4].cat, TLM_CAT_NONE);
    assert_int_equal(ev[4].cat_str, 0);
    assert_string_equal(tlm_event_arg_str(t, &ev[4], TLM_ARG_NAME, NULL),
                        "python");
    assert_false(ev[4].flags & TLM_EV_HAS_TS);

    assert_int_equal(ev[5].ph, 'i');
    assert_int_equal(ev[5].cat, TLM_CAT_OTHER);
    assert_string_equal(str_of(t, ev[5].cat_str), "my_cat");
    assert_true(ev[5].flags & TLM_EV_HAS_TS);
    assert_true(ev[5].ts == 0);

    /* an empty cat is present but not a known category */
    assert_int_equal(ev[6].cat, TLM_CAT_OTHER);
    assert_int_equal(ev[6].cat_str, 0);
    /* a non-integer tid keeps its text */
    assert_true(ev[6].flags & TLM_EV_TID_STR);
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_tid(&ev[6])), "1.5");

    assert_int_equal(ev[7].ph, 'E');
    assert_false(ev[7].flags & TLM_EV_BP_E);

    assert_int_equal(ev[8].ph, 0);
    assert_int_equal(ev[8].flags, 0);
    assert_int_equal(ev[8].name, 0);
    assert_true(ev[8].args == 0);

    const tlm_read_stats *s = tlm_trace_stats(t);
    assert_true(s->n_events == 9);
    assert_int_equal(s->gzip, 0);
    assert_string_equal(tlm_trace_path(t), "t.json");
    tlm_trace_free(t);
}

/* Odd but valid events: a name that is not a string keeps its compact
 * text; unknown keys of any type are validated and dropped. */
static void test_event_odd(void **state)
{
    (void)state;
    tlm_trace *t = rd_ok(
        "[{\"name\":5},{\"name\":null},{\"name\":[1, {\"a\": 2}]},"
        "{\"name\":\"\"},{\"s\":\"t\",\"extra\":{\"deep\":[[[]]]},"
        "\"more\":[true,false,null,-0.5e-3],\"ph\":\"\"},"
        "{\"ph\":\"Xlong\",\"bp\":7,\"bp2\":\"e\"}]");
    assert_string_equal(str_of(t, ev_at(t, 0)->name), "5");
    assert_string_equal(str_of(t, ev_at(t, 1)->name), "null");
    assert_string_equal(str_of(t, ev_at(t, 2)->name), "[1,{\"a\":2}]");
    assert_int_equal(ev_at(t, 3)->name, 0);
    assert_int_equal(ev_at(t, 4)->ph, 0);
    assert_int_equal(ev_at(t, 4)->flags, 0);
    assert_int_equal(ev_at(t, 5)->ph, 'X'); /* first letter */
    assert_false(ev_at(t, 5)->flags & TLM_EV_BP_E);
    tlm_trace_free(t);

    tlm_read_opts o;
    memset(&o, 0x5a, sizeof o);
    tlm_read_opts_init(&o);
    assert_int_equal(o.keep_events, 1);
    assert_int_equal(o.chunk_size, 0);
    assert_int_equal(o.max_depth, 0);
    assert_null(o.on_event);
    assert_null(o.alloc);
}

/* Every category of the fixed list maps to its enum. */
static void test_event_categories(void **state)
{
    (void)state;
    char json[4096];
    size_t len = 0;
    len += (size_t)snprintf(json + len, sizeof json - len, "[");
    for (int c = 1; c < TLM_CAT_OTHER; c++)
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"cat\":\"%s\"}", c > 1 ? "," : "",
                                tlm_cat_name((tlm_cat)c));
    snprintf(json + len, sizeof json - len, "]");
    tlm_trace *t = rd_ok(json);
    for (int c = 1; c < TLM_CAT_OTHER; c++) {
        const tlm_event *ev = ev_at(t, (size_t)c - 1);
        assert_int_equal(ev->cat, c);
        assert_string_equal(str_of(t, ev->cat_str),
                            tlm_cat_name((tlm_cat)c));
    }
    tlm_trace_free(t);
    assert_string_equal(tlm_cat_name(TLM_CAT_NONE), "");
    assert_string_equal(tlm_cat_name(TLM_CAT_KERNEL), "kernel");
    assert_null(tlm_cat_name(TLM_CAT_OTHER));
    assert_null(tlm_cat_name(TLM_CAT_COUNT));
    /* case matters: "Kernel" is another category */
    t = rd_ok("[{\"cat\":\"Kernel\"},{\"cat\":\"kernel \"}]");
    assert_int_equal(ev_at(t, 0)->cat, TLM_CAT_OTHER);
    assert_int_equal(ev_at(t, 1)->cat, TLM_CAT_OTHER);
    tlm_trace_free(t);
}

/* Exact times through the reader (the parser itself: test_numparse.c). */
static void test_event_times(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t ns;
    } cases[] = {
        {"0", 0},
        {"-0", 0},
        {"1", 1000},
        {"1.5", 1500},
        {"0.0005", 0},
        {"0.0015", 2},
        {"0.00150000001", 2},
        {"0.00250000001", 3},
        {"1428625746277.044", 1428625746277044LL},
        {"1700000000000000.999", 1700000000000000999LL},
        {"1.7e15", 1700000000000000000LL},
        {"17E-1", 1700},
        {"9223372036854775.807", INT64_MAX},
        {"-9223372036854775.808", INT64_MIN},
        {"1e-30", 0},
        /* eight digits and more (read a word at a time) */
        {"12345678", 12345678000LL},
        {"1234567.8", 1234567800LL},
        {"98765432.1", 98765432100LL},
        {"123456789", 123456789000LL},
        {"2027098485.795", 2027098485795LL},
        {"-2027098485.795", -2027098485795LL},
        {"999999999999999", 999999999999999000LL},
        {"1234567e1", 12345670000LL},
        {"12345678e1", 123456780000LL},
        {"12345678.5e-1", 1234567850LL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[128];
        snprintf(json, sizeof json, "[{\"ts\":%s,\"dur\":%s}]", cases[i].text,
                 cases[i].text);
        tlm_trace *t = rd_ok(json);
        assert_true(ev_at(t, 0)->ts == cases[i].ns);
        assert_true(tlm_ev_dur(ev_at(t, 0)) == cases[i].ns);
        tlm_trace_free(t);
    }
}

/* ------------------------------------------------------------------ MARK:
 * Arguments. */

static void test_args_types(void **state)
{
    (void)state;
    char *json = dq(
        "[{'ph':'X','args':{"
        "'External id':42,'correlation':-7,'Python id':0,"
        "'Input Dims':[[1, 2], []],"
        "'Input type':['float', 'c10::Half', ''],"
        "'Input Strides':[ [ 4 , 1 ] ,\n[1,4] ],"
        "'Concrete Inputs':['', '1', 'True'],"
        "'memory bandwidth (GB/s)':1.5e3,"
        "'bytes':99999999999999999999,"
        "'kind':'Memset (Device)',"
        "'grid':[128, 1, 1],'block':[256,2,3],"
        "'stream':9223372036854775807,'device':-9223372036854775808,"
        "'Group size':1.0,"
        "'Process Group Ranks':'[0, 1, 2, 3]',"
        "'Seq':null,'labels':true,'sort_index':false,"
        "'kernel_file':{'a' : [1, {'b':'c'}]},"
        "'not kept':[1,2,3],'Unknown':'x'}}]");
    tlm_trace *t = rd_ok(json);
    free(json);
    const tlm_event *ev = ev_at(t, 0);
    int64_t v;
    size_t len;

    assert_true(tlm_event_arg_int(t, ev, TLM_ARG_EXTERNAL_ID, &v));
    assert_true(v == 42);
    assert_true(tlm_event_arg_int(t, ev, TLM_ARG_CORRELATION, &v));
    assert_true(v == -7);
    assert_true(tlm_event_arg_int(t, ev, TLM_ARG_PYTHON_ID, &v));
    assert_true(v == 0);
    assert_true(tlm_event_arg_int(t, ev, TLM_ARG_STREAM, &v));
    assert_true(v == INT64_MAX);
    assert_true(tlm_event_arg_int(t, ev, TLM_ARG_DEVICE, &v));
    assert_true(v == INT64_MIN);

    /* arrays become compact JSON text */
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_INPUT_DIMS, &len),
                        "[[1,2],[]]");
    assert_int_equal(len, 10);
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_INPUT_TYPE, NULL),
                        "[\"float\",\"c10::Half\",\"\"]");
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_INPUT_STRIDES, NULL),
                        "[[4,1],[1,4]]");
    assert_string_equal(
        tlm_event_arg_str(t, ev, TLM_ARG_CONCRETE_INPUTS, NULL),
        "[\"\",\"1\",\"True\"]");
    /* floats and integers beyond int64 keep their text */
    assert_string_equal(
        tlm_event_arg_str(t, ev, TLM_ARG_MEMORY_BANDWIDTH, NULL), "1.5e3");
    assert_false(tlm_event_arg_int(t, ev, TLM_ARG_MEMORY_BANDWIDTH, &v));
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_BYTES, NULL),
                        "99999999999999999999");
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_GROUP_SIZE, NULL),
                        "1.0");
    /* strings are unescaped text */
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_KIND, NULL),
                        "Memset (Device)");
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_PG_RANKS, NULL),
                        "[0, 1, 2, 3]");
    /* literals and objects */
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_SEQ, NULL), "null");
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_LABELS, NULL),
                        "true");
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_SORT_INDEX, NULL),
                        "false");
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_KERNEL_FILE, NULL),
                        "{\"a\":[1,{\"b\":\"c\"}]}");
    /* an int is not text and text is not an int */
    assert_null(tlm_event_arg_str(t, ev, TLM_ARG_EXTERNAL_ID, &len));
    assert_int_equal(len, 0);
    assert_false(tlm_event_arg_int(t, ev, TLM_ARG_KIND, &v));
    /* absent keys */
    assert_int_equal(tlm_event_arg(t, ev, TLM_ARG_DTYPE, NULL),
                     TLM_ARGV_NONE);
    assert_false(tlm_event_arg_int(t, ev, TLM_ARG_DTYPE, &v));
    assert_null(tlm_event_arg_str(t, ev, TLM_ARG_DTYPE, NULL));

    /* grid / block */
    int64_t xyz[3];
    assert_true(tlm_event_arg_dim3(t, ev, TLM_ARG_GRID, xyz));
    assert_true(xyz[0] == 128 && xyz[1] == 1 && xyz[2] == 1);
    assert_true(tlm_event_arg_dim3(t, ev, TLM_ARG_BLOCK, xyz));
    assert_true(xyz[0] == 256 && xyz[1] == 2 && xyz[2] == 3);
    assert_false(tlm_event_arg_dim3(t, ev, TLM_ARG_INPUT_DIMS, xyz));
    assert_false(tlm_event_arg_dim3(t, ev, TLM_ARG_EXTERNAL_ID, xyz));
    assert_false(tlm_event_arg_dim3(t, ev, TLM_ARG_DTYPE, xyz));

    /* the iterator sees every kept key once, in file order, and no
     * unknown key */
    static const tlm_arg order[] = {
        TLM_ARG_EXTERNAL_ID, TLM_ARG_CORRELATION, TLM_ARG_PYTHON_ID,
        TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE, TLM_ARG_INPUT_STRIDES,
        TLM_ARG_CONCRETE_INPUTS, TLM_ARG_MEMORY_BANDWIDTH, TLM_ARG_BYTES,
        TLM_ARG_KIND, TLM_ARG_GRID, TLM_ARG_BLOCK, TLM_ARG_STREAM,
        TLM_ARG_DEVICE, TLM_ARG_GROUP_SIZE, TLM_ARG_PG_RANKS, TLM_ARG_SEQ,
        TLM_ARG_LABELS, TLM_ARG_SORT_INDEX, TLM_ARG_KERNEL_FILE};
    uint64_t it = 0;
    tlm_arg key;
    tlm_argv val;
    size_t k = 0;
    while (tlm_event_arg_next(t, ev, &it, &key, &val)) {
        assert_true(k < sizeof order / sizeof order[0]);
        assert_int_equal(key, order[k]);
        tlm_argv again;
        assert_int_equal(tlm_event_arg(t, ev, key, &again), val.type);
        assert_true(again.i == val.i && again.str == val.str);
        k++;
    }
    assert_int_equal(k, sizeof order / sizeof order[0]);
    tlm_trace_free(t);
}

/* Compact text against a reference: random JSON values written with random
 * whitespace, and at the same time without any; the reader's compact text
 * must be the latter, for every chunk size. */
typedef struct gen {
    char *pretty, *compact;
    size_t np, nc, cap;
    uint32_t rng;
} gen;

static uint32_t gen_rnd(gen *g, uint32_t n)
{
    g->rng = g->rng * 1664525u + 1013904223u;
    return (g->rng >> 8) % n;
}

static void gen_put(gen *g, const char *s, int both)
{
    size_t n = strlen(s);
    assert_true(g->np + n < g->cap && g->nc + n < g->cap);
    memcpy(g->pretty + g->np, s, n);
    g->np += n;
    if (both) {
        memcpy(g->compact + g->nc, s, n);
        g->nc += n;
    }
}

static void gen_ws(gen *g)
{
    static const char *ws[] = {"", "", " ", "\n", "\t", "\r\n  ", "   "};
    gen_put(g, ws[gen_rnd(g, 7)], 0);
}

static void gen_value(gen *g, int depth, int container)
{
    static const char *scalars[] = {
        "0", "-1", "42", "1.5", "-0.25e-3", "1E+9", "99999999999999999999",
        "true", "false", "null", "\"\"", "\"a b\"", "\"q\\\"q\"",
        "\"\\\\\"", "\"\\u00e9\\ud83d\\ude00\"", "\"\\n\\t\\/\"",
        "\"c10::Half\"", "\"[1, 2]\"", "\"{\\\"k\\\": 1}\""};
    uint32_t kind = container ? 1 + gen_rnd(g, 2) : gen_rnd(g, 4);
    if (depth > 4)
        kind = 0;
    if (kind == 0 || kind == 3) {
        gen_put(g, scalars[gen_rnd(g, sizeof scalars / sizeof scalars[0])],
                1);
        return;
    }
    int obj = kind == 2;
    uint32_t n = gen_rnd(g, 4);
    gen_put(g, obj ? "{" : "[", 1);
    gen_ws(g);
    for (uint32_t i = 0; i < n; i++) {
        if (i) {
            gen_put(g, ",", 1);
            gen_ws(g);
        }
        if (obj) {
            static const char *keys[] = {"\"k\"", "\"a b\"", "\"\"",
                                         "\"\\u0041\"", "\"x\\\"y\""};
            gen_put(g, keys[gen_rnd(g, 5)], 1);
            gen_ws(g);
            gen_put(g, ":", 1);
            gen_ws(g);
        }
        gen_value(g, depth + 1, 0);
        gen_ws(g);
    }
    gen_put(g, obj ? "}" : "]", 1);
}

static void test_args_compact_random(void **state)
{
    (void)state;
    gen g;
    g.cap = 1u << 16;
    g.pretty = malloc(g.cap);
    g.compact = malloc(g.cap);
    assert_non_null(g.pretty);
    assert_non_null(g.compact);
    g.rng = 2024;
    char *json = malloc(g.cap + 256);
    assert_non_null(json);
    for (int iter = 0; iter < 300; iter++) {
        g.np = g.nc = 0;
        gen_value(&g, 0, 1);
        g.pretty[g.np] = '\0';
        g.compact[g.nc] = '\0';
        snprintf(json, g.cap + 256,
                 "{\"deviceProperties\":%s,\"skipped\":%s,\"traceEvents\":"
                 "[{\"name\":%s,\"args\":{\"Input Dims\":%s}}]}",
                 g.pretty, g.pretty, g.pretty, g.pretty);
        for (size_t k = 0; k < N_CHUNKS; k += (size_t)(iter % 3 ? 3 : 1)) {
            tlm_trace *t = NULL;
            tlm_error err;
            tlm_status st = tt_read_chunk(json, chunks[k], &t, &err);
            if (st != TLM_OK)
                fprintf(stderr, "%s\n%s\n", json, err.msg);
            assert_int_equal(st, TLM_OK);
            const tlm_event *ev = ev_at(t, 0);
            const char *a = tlm_event_arg_str(t, ev, TLM_ARG_INPUT_DIMS,
                                              NULL);
            assert_non_null(a);
            if (strcmp(a, g.compact) != 0)
                fprintf(stderr, "in:   %s\nwant: %s\ngot:  %s\n", g.pretty,
                        g.compact, a);
            assert_string_equal(a, g.compact);
            assert_string_equal(str_of(t, ev->name), g.compact);
            assert_string_equal(
                str_of(t, tlm_trace_meta_get(t)->device_properties),
                g.compact);
            tlm_trace_free(t);
        }
    }
    free(json);
    free(g.pretty);
    free(g.compact);
}

/* The reader's memos (object keys, interned strings, compact argument
 * values) must never confuse look-alikes: values sharing a long prefix,
 * names differing only in the middle, keys sharing their first bytes, the
 * same value with other whitespace, all in random order and at every
 * chunk size. */
static void test_memo_lookalikes(void **state)
{
    (void)state;
    enum { NV = 40, NN = 30, NE = 900 };
    char vals[NV][128], cvals[NV][128], names[NN][96];
    for (int i = 0; i < NV; i++) {
        /* a 60-byte common head, then a distinct tail; odd ones spaced */
        const char *sp = i % 2 ? " " : "";
        snprintf(vals[i], sizeof vals[i],
                 "[[2048,%s4096],%s[4096,%s2048],%s[1,%s2,%s3,%s4,%s5],%s[%d]]",
                 sp, sp, sp, sp, sp, sp, sp, sp, sp, i / 2);
        snprintf(cvals[i], sizeof cvals[i],
                 "[[2048,4096],[4096,2048],[1,2,3,4,5],[%d]]", i / 2);
    }
    for (int i = 0; i < NN; i++)
        snprintf(names[i], sizeof names[i],
                 "void at::native::elementwise_kernel<%02d>(launch_bounds)",
                 i);
    size_t cap = (size_t)NE * 512;
    char *json = malloc(cap);
    assert_non_null(json);
    size_t n = (size_t)snprintf(json, cap, "{\"traceEvents\": [");
    uint32_t rng = 7;
    int pick_v[NE], pick_n[NE], pick_k[NE];
    for (int i = 0; i < NE; i++) {
        rng = rng * 1103515245u + 12345u;
        pick_v[i] = (int)((rng >> 8) % NV);
        pick_n[i] = (int)((rng >> 16) % NN);
        pick_k[i] = (int)((rng >> 4) % 2);
        n += (size_t)snprintf(
            json + n, cap - n,
            "%s{\"ph\": \"X\", \"name\": \"%s\", \"args\": {\"%s\": 7, "
            "\"Input Dim%s\": %s, \"Input Dims\": %s}}",
            i ? ", " : "", names[pick_n[i]],
            pick_k[i] ? "External ie" : "External id",
            pick_k[i] ? "z" : "x", vals[(pick_v[i] + 1) % NV],
            vals[pick_v[i]]);
        assert_true(n < cap);
    }
    n += (size_t)snprintf(json + n, cap - n, "]}");
    for (size_t k = 0; k < N_CHUNKS; k++) {
        tlm_trace *t = NULL;
        tlm_error err;
        tlm_status st = tt_read_chunk(json, chunks[k], &t, &err);
        assert_int_equal(st, TLM_OK);
        size_t ne;
        tlm_trace_events(t, &ne);
        assert_int_equal(ne, NE);
        for (int i = 0; i < NE; i++) {
            const tlm_event *ev = ev_at(t, (size_t)i);
            assert_string_equal(str_of(t, ev->name), names[pick_n[i]]);
            const char *a = tlm_event_arg_str(t, ev, TLM_ARG_INPUT_DIMS,
                                              NULL);
            assert_non_null(a);
            assert_string_equal(a, cvals[pick_v[i]]);
            int64_t x = -1;
            int has = tlm_event_arg_int(t, ev, TLM_ARG_EXTERNAL_ID, &x);
            assert_int_equal(has, !pick_k[i]);
            if (has)
                assert_int_equal(x, 7);
        }
        tlm_trace_free(t);
    }
    free(json);
}

static void test_args_dim3(void **state)
{
    (void)state;
    static const struct {
        const char *val;
        int ok;
        int64_t x, y, z;
    } cases[] = {
        {"[1,2,3]", 1, 1, 2, 3},
        {"[ 65535 , 1 , 1 ]", 1, 65535, 1, 1},
        {"[-1,0,2147483648]", 1, -1, 0, 2147483648LL},
        {"[1,2]", 0, 0, 0, 0},
        {"[1,2,3,4]", 0, 0, 0, 0},
        {"[]", 0, 0, 0, 0},
        {"[1.5,1,1]", 0, 0, 0, 0},
        {"[\"1\",1,1]", 0, 0, 0, 0},
        {"[[1],1,1]", 0, 0, 0, 0},
        {"{}", 0, 0, 0, 0},
        {"7", 0, 0, 0, 0},
        {"\"[1,2,3]\"", 1, 1, 2, 3}, /* a string holding the same text */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[128];
        snprintf(json, sizeof json, "[{\"args\":{\"grid\":%s}}]",
                 cases[i].val);
        tlm_trace *t = rd_ok(json);
        int64_t xyz[3] = {0, 0, 0};
        int ok = tlm_event_arg_dim3(t, ev_at(t, 0), TLM_ARG_GRID, xyz);
        if (ok != cases[i].ok)
            fprintf(stderr, "grid %s: dim3 gave %d\n", cases[i].val, ok);
        assert_int_equal(ok, cases[i].ok);
        if (ok) {
            assert_true(xyz[0] == cases[i].x);
            assert_true(xyz[1] == cases[i].y);
            assert_true(xyz[2] == cases[i].z);
        }
        tlm_trace_free(t);
    }
}

static void test_args_keys(void **state)
{
    (void)state;
    /* every key of the list round-trips through the reader */
    char json[8192];
    size_t len = (size_t)snprintf(json, sizeof json, "[{\"args\":{");
    for (int k = 1; k < TLM_ARG_COUNT; k++)
        len += (size_t)snprintf(json + len, sizeof json - len, "%s\"%s\":%d",
                                k > 1 ? "," : "", tlm_arg_key((tlm_arg)k),
                                k * 3);
    snprintf(json + len, sizeof json - len, "}}]");
    tlm_trace *t = rd_ok(json);
    for (int k = 1; k < TLM_ARG_COUNT; k++) {
        int64_t v = -1;
        assert_true(tlm_event_arg_int(t, ev_at(t, 0), (tlm_arg)k, &v));
        assert_true(v == k * 3);
    }
    tlm_trace_free(t);
    assert_null(tlm_arg_key(TLM_ARG_END_));
    assert_null(tlm_arg_key(TLM_ARG_COUNT));
    assert_string_equal(tlm_arg_key(TLM_ARG_EXTERNAL_ID), "External id");
    /* near misses are not kept */
    t = rd_ok("[{\"args\":{\"external id\":1,\"External id \":2,"
              "\"External i\":3,\"\":4}}]");
    assert_true(ev_at(t, 0)->args == 0);
    tlm_trace_free(t);
    /* an empty args object keeps nothing */
    t = rd_ok("[{\"args\":{}},{\"args\":{ }}]");
    assert_true(ev_at(t, 0)->args == 0);
    assert_true(ev_at(t, 1)->args == 0);
    tlm_trace_free(t);
}

/* ------------------------------------------------------------------ MARK:
 * Duplicate keys: the last one wins, as with Python's json. */

/* ------------------------------------------------------------------
 * The lean event: 32 bytes, the flow id kept with the args (seen through
 * tlm_event_flow_id, never by tlm_event_arg_next), also in a callback of
 * a read that keeps no events. */
_Static_assert(sizeof(tlm_event) == 32, "tlm_event is 32 bytes");

static tlm_status flow_cb(void *ud, tlm_trace *t, const tlm_event *ev,
                          uint64_t index, tlm_error *err)
{
    int64_t *got = ud;
    (void)err;
    int64_t v = -1;
    got[index] = tlm_event_flow_id(t, ev, &v) ? v : -2;
    return TLM_OK;
}

static void test_flow_id_in_args(void **state)
{
    (void)state;
    const char *json =
        "[{\"ph\":\"s\",\"id\":7,\"args\":{\"stream\":3},\"id\":-8},"
        "{\"ph\":\"f\",\"id\":4294967296123},"
        "{\"ph\":\"X\",\"args\":{\"stream\":5}},{\"ph\":\"f\"}]";
    tlm_trace *t = rd_ok(json);
    const tlm_event *e0 = ev_at(t, 0), *e1 = ev_at(t, 1), *e2 = ev_at(t, 2);
    int64_t v = 0;
    assert_true(tlm_event_flow_id(t, e0, &v));
    assert_true(v == -8); /* the last "id" wins */
    assert_true(tlm_event_flow_id(t, e1, &v));
    assert_true(v == 4294967296123LL);
    assert_true(e1->args != 0); /* the id lives in the blob */
    assert_false(tlm_event_flow_id(t, e2, &v));
    assert_false(tlm_event_flow_id(t, ev_at(t, 3), NULL));
    /* the arguments are what the JSON said, the id not among them */
    uint64_t it = 0;
    tlm_arg k;
    tlm_argv a;
    assert_true(tlm_event_arg_next(t, e0, &it, &k, &a));
    assert_int_equal(k, TLM_ARG_STREAM);
    assert_true(a.i == 3);
    assert_false(tlm_event_arg_next(t, e0, &it, &k, &a));
    it = 0;
    assert_false(tlm_event_arg_next(t, e1, &it, &k, &a));
    assert_int_equal(tlm_event_arg(t, e1, TLM_ARG_STREAM, NULL),
                     TLM_ARGV_NONE);
    tlm_trace_free(t);

    /* delivered events of a read that keeps none */
    int64_t got[4] = {0, 0, 0, 0};
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.keep_events = 0;
    o.on_event = flow_cb;
    o.on_event_ud = got;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, strlen(json), "f", &o, &t, &err),
                     TLM_OK);
    assert_true(got[0] == -8 && got[1] == 4294967296123LL);
    assert_true(got[2] == -2 && got[3] == -2);
    tlm_trace_free(t);
}

/* pid / tid as one (pid, tid) pair the process keeps once, durations of
 * 32 bits in the event and wider ones in the process's table: read back
 * exactly, a repeated key replacing the earlier value, string ids
 * unchanged. */
static void test_wide_pid_tid(void **state)
{
    (void)state;
    const char *json =
        "[{\"ph\":\"X\",\"pid\":2147483647,\"tid\":-2147483648,"
        "\"dur\":2147483.647},"
        "{\"ph\":\"X\",\"pid\":2147483648,\"tid\":140241095264000,"
        "\"dur\":2147483.648},"
        "{\"ph\":\"X\",\"tid\":140241095264000,\"pid\":2147483648,"
        "\"dur\":-9223372036854775.807},"
        "{\"ph\":\"X\",\"pid\":9223372036854775807,"
        "\"tid\":-9223372036854775807,\"pid\":5,\"tid\":\"s\","
        "\"dur\":1e9,\"dur\":3},"
        "{\"ph\":\"X\",\"pid\":\"host\",\"pid\":-9223372036854775807,"
        "\"tid\":6,\"tid\":140241095264000},{\"ph\":\"X\"}]";
    tlm_trace *t = rd_ok(json);
    const tlm_event *e = ev_at(t, 0);
    assert_true(tlm_ev_pid(e) == INT32_MAX && tlm_ev_tid(e) == INT32_MIN);
    assert_true(tlm_ev_dur(e) == INT32_MAX);
    assert_false(e->tflags & TLM_EVT_DUR_WIDE);
    e = ev_at(t, 1);
    assert_true(tlm_ev_pid(e) == 2147483648LL);
    assert_true(tlm_ev_tid(e) == 140241095264000LL);
    assert_true(tlm_ev_dur(e) == 2147483648LL);
    assert_true(e->tflags & TLM_EVT_DUR_WIDE);
    const tlm_event *e2 = ev_at(t, 2);
    assert_int_equal(e2->track, e->track); /* one entry per pair */
    assert_true(tlm_ev_dur(e2) == -9223372036854775807LL);
    e = ev_at(t, 3);
    assert_true(tlm_ev_pid(e) == 5);
    assert_true(e->flags & TLM_EV_TID_STR);
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_tid(e)), "s");
    assert_true(tlm_ev_dur(e) == 3000);
    assert_false(e->tflags & TLM_EVT_DUR_WIDE);
    e = ev_at(t, 4);
    assert_false(e->flags & TLM_EV_PID_STR);
    assert_true(tlm_ev_pid(e) == -9223372036854775807LL);
    assert_true(tlm_ev_tid(e) == 140241095264000LL);
    e = ev_at(t, 5);
    assert_true(e->track == 0 && tlm_ev_pid(e) == 0 && tlm_ev_tid(e) == 0);
    assert_true(tlm_ev_dur(e) == 0);
    tlm_trace_free(t);
    /* the last trace freed the tables: a new one starts them afresh, the
     * thread's caches not handing out the old entries */
    t = rd_ok("[{\"ph\":\"X\",\"pid\":9,\"tid\":10,\"dur\":5e6},"
              "{\"ph\":\"X\",\"pid\":2147483648,"
              "\"tid\":140241095264000,\"dur\":-9223372036854775.807}]");
    e = ev_at(t, 0);
    assert_true(tlm_ev_pid(e) == 9 && tlm_ev_tid(e) == 10);
    assert_true(tlm_ev_dur(e) == 5000000000LL);
    e = ev_at(t, 1);
    assert_true(tlm_ev_pid(e) == 2147483648LL);
    assert_true(tlm_ev_tid(e) == 140241095264000LL);
    assert_true(tlm_ev_dur(e) == -9223372036854775807LL);
    tlm_trace_free(t);
    /* many distinct pairs and wide values: the tables grow, each read
     * back */
    tlm_event x;
    memset(&x, 0, sizeof x);
    for (int64_t i = 0; i < 20000; i++) {
        int64_t v = (INT64_C(1) << 40) + i * 7919;
        assert_int_equal(tlm_ev_set_tid(&x, v), TLM_OK);
        assert_int_equal(tlm_ev_set_pid(&x, -v), TLM_OK);
        assert_true(tlm_ev_tid(&x) == v && tlm_ev_pid(&x) == -v);
        assert_int_equal(tlm_ev_set_dur(&x, v + 1), TLM_OK);
        assert_true(tlm_ev_dur(&x) == v + 1);
    }
    assert_int_equal(tlm_ev_set_tid(&x, 3), TLM_OK);
    assert_int_equal(tlm_ev_set_dur(&x, -3), TLM_OK);
    assert_true(tlm_ev_tid(&x) == 3 && tlm_ev_pid(&x) < 0);
    assert_true(tlm_ev_dur(&x) == -3);
    assert_false(x.tflags & TLM_EVT_DUR_WIDE);
}

/* pid and tid in any order, repeated (the last wins) or one alone: the
 * pair is set once at the end of the event (tlm_ev_set_track). */
static void test_pid_tid_keys(void **state)
{
    (void)state;
    tlm_trace *t = rd_ok("[{\"ph\":\"X\",\"tid\":4,\"pid\":1,\"pid\":7},"
                         "{\"ph\":\"X\",\"pid\":6},"
                         "{\"ph\":\"X\",\"tid\":8,\"tid\":\"w\"},"
                         "{\"pid\":7,\"ph\":\"X\",\"tid\":4},"
                         "{\"ph\":\"X\",\"pid\":0,\"tid\":0}]");
    const tlm_event *e = ev_at(t, 0);
    assert_true(tlm_ev_pid(e) == 7 && tlm_ev_tid(e) == 4);
    assert_int_equal(ev_at(t, 3)->track, e->track);
    e = ev_at(t, 1);
    assert_true(tlm_ev_pid(e) == 6 && tlm_ev_tid(e) == 0);
    e = ev_at(t, 2);
    assert_true(tlm_ev_pid(e) == 0 && (e->flags & TLM_EV_TID_STR));
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_tid(e)), "w");
    assert_int_equal(ev_at(t, 4)->track, 0);
    tlm_trace_free(t);
}

/* tlm_read_opts.drop_args: the keys dropped are skipped like unknown ones
 * (an event left with none has no args), the others kept. */
static void test_drop_args(void **state)
{
    (void)state;
    const char *json =
        "[{\"ph\":\"X\",\"args\":{\"Ev Idx\":5,\"External id\":9,"
        "\"grid\":[1,2,3]}},{\"ph\":\"X\",\"args\":{\"Python id\":4}},"
        "{\"ph\":\"s\",\"id\":3,\"args\":{\"cbid\":1}}]";
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.drop_args = TLM_ARGS_UNREAD;
    tlm_trace *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, strlen(json), "d", &o, &t, &err),
                     TLM_OK);
    int64_t v = 0;
    assert_true(tlm_event_arg_int(t, ev_at(t, 0), TLM_ARG_EXTERNAL_ID, &v));
    assert_true(v == 9);
    assert_false(tlm_event_arg_int(t, ev_at(t, 0), TLM_ARG_EV_IDX, NULL));
    assert_null(tlm_event_arg_str(t, ev_at(t, 0), TLM_ARG_GRID, NULL));
    assert_true(ev_at(t, 1)->args == 0);
    assert_true(tlm_event_flow_id(t, ev_at(t, 2), &v) && v == 3);
    assert_false(tlm_event_arg_int(t, ev_at(t, 2), TLM_ARG_CBID, NULL));
    /* the grid's text was never interned */
    assert_int_equal(tlm_trace_str_find(t, "[1,2,3]", 7), 0);
    tlm_trace_free(t);
    /* by default all are kept */
    t = rd_ok(json);
    assert_true(tlm_event_arg_int(t, ev_at(t, 0), TLM_ARG_EV_IDX, &v));
    assert_true(v == 5);
    assert_true(tlm_event_arg_int(t, ev_at(t, 1), TLM_ARG_PYTHON_ID, &v));
    assert_true(tlm_trace_str_find(t, "[1,2,3]", 7) != 0);
    tlm_trace_free(t);
}

static void test_duplicate_keys(void **state)
{
    (void)state;
    char *json = dq(
        "[{'ts':1,'ts':2,'name':'a','name':'b','ph':'B','ph':'E',"
        "'cat':'kernel','cat':'cpu_op','dur':5,'dur':6,"
        "'pid':'host','pid':7,'tid':'t','tid':8,'id':'x','id':9,"
        "'bp':'e','bp':'s',"
        "'args':{'stream':1,'stream':'two'},'args':{'device':3}},"
        "{'pid':7,'pid':'host','tid':8,'tid':'t','id':9,'id':'x',"
        "'bp':'s','bp':'e'}]");
    tlm_trace *t = rd_ok(json);
    free(json);
    const tlm_event *ev = ev_at(t, 0);
    assert_true(ev->ts == 2000);
    assert_true(tlm_ev_dur(ev) == 6000);
    assert_string_equal(str_of(t, ev->name), "b");
    assert_int_equal(ev->ph, 'E');
    assert_int_equal(ev->cat, TLM_CAT_CPU_OP);
    assert_true(tlm_ev_pid(ev) == 7);
    assert_false(ev->flags & TLM_EV_PID_STR);
    assert_true(tlm_ev_tid(ev) == 8);
    assert_false(ev->flags & TLM_EV_TID_STR);
    assert_true(fid(t, ev) == 9);
    assert_false(ev->flags & TLM_EV_ID_STR);
    assert_false(ev->flags & TLM_EV_BP_E);
    assert_string_equal(tlm_event_arg_str(t, ev, TLM_ARG_STREAM, NULL),
                        "two");
    int64_t v;
    assert_true(tlm_event_arg_int(t, ev, TLM_ARG_DEVICE, &v));
    assert_true(v == 3);

    ev = ev_at(t, 1);
    assert_true(ev->flags & TLM_EV_PID_STR);
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_pid(ev)), "host");
    assert_true(ev->flags & TLM_EV_TID_STR);
    assert_string_equal(str_of(t, (uint32_t)tlm_ev_tid(ev)), "t");
    assert_true(ev->flags & TLM_EV_ID_STR);
    assert_string_equal(str_of(t, (uint32_t)fid(t, ev)), "x");
    assert_true(ev->flags & TLM_EV_BP_E);
    tlm_trace_free(t);

    /* top-level metadata: the last value wins */
    json = dq("{'distributedInfo':{'rank':1,'rank':2},'traceName':'a',"
              "'traceEvents':[],'traceName':'b','distributedInfo':"
              "{'rank':3,'world_size':4},'schemaVersion':1,"
              "'schemaVersion':2}");
    t = rd_ok(json);
    free(json);
    const tlm_trace_meta *m = tlm_trace_meta_get(t);
    assert_true(m->rank == 3);
    assert_true(m->world_size == 4);
    assert_string_equal(str_of(t, m->trace_name), "b");
    assert_true(m->schema_version == 2);
    tlm_trace_free(t);

    /* two traceEvents arrays: a streaming reader cannot take back the
     * events of the first, so the events of both are read, in order */
    json = dq("{'traceEvents':[{'name':'a'}],'x':1,"
              "'traceEvents':[{'name':'b'},{'name':'c'}]}");
    t = rd_ok(json);
    free(json);
    size_t n;
    tlm_trace_events(t, &n);
    assert_int_equal(n, 3);
    assert_string_equal(str_of(t, ev_at(t, 2)->name), "c");
    tlm_trace_free(t);
}

/* ------------------------------------------------------------------ MARK:
 * Top level: keys in any order, unknown keys skipped, bare array. */

static const char *meta_json =
    "'distributedInfo':{'backend':'nccl','rank':3,'world_size':8,"
    "'pg_count':2,'pg_config':[{'pg_name':'0','pg_desc':'default_pg',"
    "'backend_config':'cuda:nccl','pg_size':8,'ranks':[0,1,2,3,4,5,6,7]},"
    "{'pg_name':'4','pg_desc':'undefined','pg_size':2,'ranks':'[2, 3]',"
    "'uid':9}],'nccl_version':'2.17.1'}";

static const char *events_json =
    "'traceEvents':[{'ph':'X','cat':'kernel','name':'k','ts':1,'dur':2,"
    "'args':{'grid':[1,1,1]}},{'ph':'M','name':'process_name','pid':1}]";

static const char *unknown_json =
    "'unknown':{'a':[1,2,{'b':'c}]','d':[[],[[{}]]]}],'e':-1.5e3,"
    "'f':true,'g':null,'h':'\\u00e9\\\\x','i':{}}";

static void check_meta_trace(const tlm_trace *t)
{
    const tlm_trace_meta *m = tlm_trace_meta_get(t);
    assert_int_equal(m->has_distributed, 1);
    assert_true(m->rank == 3);
    assert_true(m->world_size == 8);
    assert_true(m->pg_count == 2);
    assert_string_equal(str_of(t, m->backend), "nccl");
    assert_string_equal(str_of(t, m->nccl_version), "2.17.1");
    assert_int_equal(m->n_pgs, 2);
    assert_int_equal(m->has_trace_events, 1);
    size_t n;
    tlm_trace_events(t, &n);
    assert_int_equal(n, 2);
    assert_int_equal(ev_at(t, 0)->cat, TLM_CAT_KERNEL);
    assert_int_equal(ev_at(t, 1)->ph, 'M');
}

static void test_toplevel_order(void **state)
{
    (void)state;
    const char *parts[3] = {meta_json, events_json, unknown_json};
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p < 6; p++) {
        char buf[4096];
        snprintf(buf, sizeof buf, "{%s,%s,%s}", parts[perms[p][0]],
                 parts[perms[p][1]], parts[perms[p][2]]);
        char *json = dq(buf);
        for (size_t k = 0; k < N_CHUNKS; k++) {
            tlm_trace *t = NULL;
            tlm_error err;
            tlm_status st = tt_read_chunk(json, chunks[k], &t, &err);
            if (st != TLM_OK)
                fprintf(stderr, "%s\n%s\n", json, err.msg);
            assert_int_equal(st, TLM_OK);
            check_meta_trace(t);
            tlm_trace_free(t);
        }
        free(json);
    }
}

static void test_toplevel_bare_array(void **state)
{
    (void)state;
    tlm_trace *t = rd_ok(" \n[ {\"ph\":\"B\",\"ts\":0} ,\t{\"ph\":\"E\","
                         "\"ts\":10}\n]\n ");
    size_t n;
    tlm_trace_events(t, &n);
    assert_int_equal(n, 2);
    assert_true(ev_at(t, 1)->ts == 10000);
    const tlm_trace_meta *m = tlm_trace_meta_get(t);
    assert_int_equal(m->has_trace_events, 1);
    assert_int_equal(m->has_distributed, 0);
    assert_true(m->rank == -1);
    assert_true(m->world_size == -1);
    assert_true(m->schema_version == -1);
    assert_int_equal(m->has_base_time, 0);
    tlm_trace_free(t);
    t = rd_ok("[]");
    tlm_trace_events(t, &n);
    assert_int_equal(n, 0);
    assert_true(tlm_trace_stats(t)->n_events == 0);
    tlm_trace_free(t);
    t = rd_ok("{\"traceEvents\":[ ]}");
    assert_true(tlm_trace_stats(t)->n_events == 0);
    assert_int_equal(tlm_trace_meta_get(t)->has_trace_events, 1);
    tlm_trace_free(t);
}

/* A huge unknown value streams past in a window far smaller than it. */
static void test_toplevel_huge_unknown(void **state)
{
    (void)state;
    size_t big = 3u << 20;
    char *json = malloc(big + 4096);
    assert_non_null(json);
    size_t len = 0;
    len += (size_t)snprintf(json, 64, "{\"huge_string\":\"");
    for (size_t i = 0; i < big / 2; i++)
        json[len++] = (char)(i % 7 == 0 ? ' ' : 'a' + (int)(i % 26));
    memcpy(json + len, "\\\"\",\"huge_nested\":[", 19);
    len += 19;
    for (size_t i = 0; len < big; i++) {
        static const char piece[] = "{\"a\":[1,2.5e3,\"x]}\\\\\"],\"b\":{}},";
        memcpy(json + len, piece, sizeof piece - 1);
        len += sizeof piece - 1;
    }
    len += (size_t)snprintf(json + len, 4096,
                            "{}],\"traceEvents\":[{\"name\":\"after\"}],"
                            "\"tail\":[[[\"x\"]]]}");
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.chunk_size = 1000;
    o.max_event_bytes = 4096; /* far below the unknown values */
    o.max_string = 100;       /* skipped strings are not bounded by it */
    tlm_trace *t = NULL;
    tlm_error err;
    tlm_status st = tlm_trace_read_mem(json, len, "huge", &o, &t, &err);
    if (st != TLM_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, TLM_OK);
    assert_string_equal(str_of(t, ev_at(t, 0)->name), "after");
    assert_true(tlm_trace_stats(t)->bytes_json == len);
    tlm_trace_free(t);
    free(json);
}

/* ------------------------------------------------------------------ MARK:
 * Metadata. */

static void test_meta_distributed(void **state)
{
    (void)state;
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{%s,'baseTimeNanoseconds':1700000000123456789,"
             "'schemaVersion':1,'traceName':'rank3.json',"
             "'deviceProperties':[ {'id':0, 'name':'NVIDIA H100',"
             " 'totalGlobalMem':85029158912} ],'traceEvents':[]}",
             meta_json);
    char *json = dq(buf);
    tlm_trace *t = rd_ok(json);
    free(json);
    const tlm_trace_meta *m = tlm_trace_meta_get(t);
    assert_int_equal(m->has_base_time, 1);
    assert_true(m->base_time_ns == 1700000000123456789LL);
    assert_true(m->schema_version == 1);
    assert_string_equal(str_of(t, m->trace_name), "rank3.json");
    assert_string_equal(str_of(t, m->device_properties),
                        "[{\"id\":0,\"name\":\"NVIDIA H100\","
                        "\"totalGlobalMem\":85029158912}]");
    assert_int_equal(m->n_pgs, 2);
    const tlm_pg_config *pg = &m->pgs[0];
    assert_string_equal(str_of(t, pg->pg_name), "0");
    assert_string_equal(str_of(t, pg->pg_desc), "default_pg");
    assert_string_equal(str_of(t, pg->backend_config), "cuda:nccl");
    assert_true(pg->pg_size == 8);
    assert_true(pg->uid == -1);
    assert_string_equal(str_of(t, pg->ranks_text), "[0,1,2,3,4,5,6,7]");
    assert_int_equal(pg->n_ranks, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(pg->ranks[i], i);
    /* ranks as a quoted string (older PyTorch) */
    pg = &m->pgs[1];
    assert_string_equal(str_of(t, pg->pg_name), "4");
    assert_true(pg->uid == 9);
    assert_string_equal(str_of(t, pg->ranks_text), "[2, 3]");
    assert_int_equal(pg->n_ranks, 2);
    assert_int_equal(pg->ranks[0], 2);
    assert_int_equal(pg->ranks[1], 3);
    assert_int_equal(pg->backend_config, 0);
    tlm_trace_free(t);
}

static void test_meta_odd(void **state)
{
    (void)state;
    /* wrong-typed metadata is ignored, not an error */
    char *json = dq(
        "{'distributedInfo':{'rank':'3','world_size':2.0,'pg_count':null,"
        "'backend':7,'pg_config':{'x':1},'extra':{'deep':[1]}},"
        "'baseTimeNanoseconds':'12','schemaVersion':[1],"
        "'traceName':['a', 'b'],'traceEvents':[]}");
    tlm_trace *t = rd_ok(json);
    free(json);
    const tlm_trace_meta *m = tlm_trace_meta_get(t);
    assert_int_equal(m->has_distributed, 1);
    assert_true(m->rank == -1);
    assert_true(m->world_size == -1);
    assert_true(m->pg_count == -1);
    assert_string_equal(str_of(t, m->backend), "7");
    assert_int_equal(m->n_pgs, 0);
    assert_int_equal(m->has_base_time, 0);
    assert_true(m->schema_version == -1);
    assert_string_equal(str_of(t, m->trace_name), "[\"a\",\"b\"]");
    tlm_trace_free(t);

    /* distributedInfo that is not an object, an empty pg_config, ranks
     * that are not numbers, a pg entry that is not an object */
    json = dq("{'distributedInfo':null,'traceEvents':[]}");
    t = rd_ok(json);
    free(json);
    assert_int_equal(tlm_trace_meta_get(t)->has_distributed, 0);
    tlm_trace_free(t);
    json = dq("{'distributedInfo':{'pg_config':[]},'traceEvents':[]}");
    t = rd_ok(json);
    free(json);
    assert_int_equal(tlm_trace_meta_get(t)->has_distributed, 1);
    assert_int_equal(tlm_trace_meta_get(t)->n_pgs, 0);
    tlm_trace_free(t);
    json = dq("{'distributedInfo':{'pg_config':[{'ranks':'...'},"
              "{'ranks':[]},7,{'ranks':'[0, 1, ...]'}]},'traceEvents':[]}");
    t = rd_ok(json);
    free(json);
    m = tlm_trace_meta_get(t);
    assert_int_equal(m->n_pgs, 4);
    assert_int_equal(m->pgs[0].n_ranks, 0);
    assert_int_equal(m->pgs[1].n_ranks, 0);
    assert_string_equal(str_of(t, m->pgs[1].ranks_text), "[]");
    assert_int_equal(m->pgs[2].n_ranks, 0);
    assert_true(m->pgs[2].pg_size == -1);
    assert_int_equal(m->pgs[3].n_ranks, 2);
    tlm_trace_free(t);
}

/* ------------------------------------------------------------------ MARK:
 * keep_events, callbacks, max_events. */

typedef struct cb_log {
    uint64_t calls;
    int64_t ts_sum;
    int64_t ext_sum;
    uint64_t stop_at;  /* stop when index == stop_at (UINT64_MAX: never) */
    tlm_status stop_with;
    int fill_err;
    uint64_t last_index;
} cb_log;

static tlm_status log_cb(void *ud, tlm_trace *t, const tlm_event *ev,
                         uint64_t index, tlm_error *err)
{
    cb_log *l = ud;
    int64_t v;
    assert_true(index == l->calls);
    l->calls++;
    l->last_index = index;
    l->ts_sum += ev->ts;
    /* args are readable during the call, kept or not */
    if (tlm_event_arg_int(t, ev, TLM_ARG_EXTERNAL_ID, &v))
        l->ext_sum += v;
    if (index == l->stop_at) {
        if (l->fill_err)
            return tlm_error_set(err, l->stop_with, "cb", 77,
                                 "callback says no at %llu",
                                 (unsigned long long)index);
        return l->stop_with;
    }
    return TLM_OK;
}

static char *many_events(int n)
{
    size_t cap = (size_t)n * 96 + 64, len = 0;
    char *json = malloc(cap);
    assert_non_null(json);
    len += (size_t)snprintf(json, cap, "{\"traceEvents\":[");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(json + len, cap - len,
                                "%s{\"ph\":\"X\",\"ts\":%d,\"name\":\"e%d\","
                                "\"args\":{\"External id\":%d}}",
                                i ? "," : "", i, i % 10, i);
    snprintf(json + len, cap - len, "]}");
    return json;
}

static void test_keep_events(void **state)
{
    (void)state;
    const int n = 5000;
    char *json = many_events(n);
    int64_t want_ts = 0, want_ext = 0;
    for (int i = 0; i < n; i++) {
        want_ts += (int64_t)i * 1000;
        want_ext += i;
    }
    for (int keep = 0; keep <= 1; keep++) {
        for (size_t k = 0; k < N_CHUNKS; k++) {
            cb_log l = {0, 0, 0, UINT64_MAX, TLM_OK, 0, 0};
            tlm_read_opts o;
            tlm_read_opts_init(&o);
            o.keep_events = keep;
            o.chunk_size = chunks[k];
            o.on_event = log_cb;
            o.on_event_ud = &l;
            tlm_trace *t;
            tlm_error err;
            assert_int_equal(
                tlm_trace_read_mem(json, strlen(json), "k", &o, &t, &err),
                TLM_OK);
            assert_true(l.calls == (uint64_t)n);
            assert_true(l.ts_sum == want_ts);
            assert_true(l.ext_sum == want_ext);
            assert_true(tlm_trace_stats(t)->n_events == (uint64_t)n);
            size_t cnt;
            const tlm_event *ev = tlm_trace_events(t, &cnt);
            if (keep) {
                assert_int_equal(cnt, n);
                int64_t v;
                assert_true(tlm_event_arg_int(t, &ev[n - 1],
                                              TLM_ARG_EXTERNAL_ID, &v));
                assert_true(v == n - 1);
                assert_string_equal(str_of(t, ev[17].name), "e7");
            } else {
                assert_null(ev);
                assert_int_equal(cnt, 0);
                /* the strings stay */
                assert_true(tlm_trace_str_find(t, "e7", 2) != 0);
            }
            tlm_trace_free(t);
        }
    }
    free(json);
}

static void test_callback_stop(void **state)
{
    (void)state;
    char *json = many_events(10);
    for (int fill = 0; fill <= 1; fill++) {
        for (size_t k = 0; k < N_CHUNKS; k++) {
            cb_log l = {0, 0, 0, 3, TLM_EMISMATCH, fill, 0};
            tlm_read_opts o;
            tlm_read_opts_init(&o);
            o.chunk_size = chunks[k];
            o.keep_events = (int)(k & 1);
            o.on_event = log_cb;
            o.on_event_ud = &l;
            tlm_trace *t = (tlm_trace *)&o;
            tlm_error err;
            assert_int_equal(
                tlm_trace_read_mem(json, strlen(json), "k", &o, &t, &err),
                TLM_EMISMATCH);
            assert_null(t);
            assert_true(l.calls == 4); /* no call after the stop */
            assert_int_equal(err.code, TLM_EMISMATCH);
            if (fill) {
                /* the callback's own report is kept */
                assert_true(err.offset == 77);
                assert_string_equal(err.file, "cb");
                assert_string_equal(err.msg, "callback says no at 3");
            } else {
                /* the reader's: just past event 3 */
                const char *end3 = strstr(json, "\"e3\"");
                assert_non_null(end3);
                end3 = strchr(end3, '}');
                end3 = strchr(end3 + 1, '}');
                assert_true(err.offset == end3 + 1 - json);
                assert_string_equal(err.file, "k");
                assert_non_null(strstr(err.msg, "traceEvents[3]"));
            }
        }
    }
    free(json);
}

static void test_max_events(void **state)
{
    (void)state;
    char *json = many_events(10);
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.max_events = 10;
    tlm_trace *t;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, strlen(json), "m", &o, &t,
                                        &err),
                     TLM_OK);
    tlm_trace_free(t);
    o.max_events = 9;
    assert_int_equal(tlm_trace_read_mem(json, strlen(json), "m", &o, &t,
                                        &err),
                     TLM_ELIMIT);
    assert_null(t);
    free(json);
}

/* ------------------------------------------------------------------ MARK:
 * Bounds. */

static void test_bounds_depth(void **state)
{
    (void)state;
    /* the default bound is 64 levels: the args object is level 4 */
    for (int extra = 59; extra <= 61; extra++) {
        char json[512];
        size_t len = (size_t)snprintf(json, sizeof json,
                                      "[{\"args\":{\"x\":");
        for (int i = 0; i < extra; i++)
            json[len++] = '[';
        for (int i = 0; i < extra; i++)
            json[len++] = ']';
        len += (size_t)snprintf(json + len, sizeof json - len, "}}]");
        tlm_trace *t;
        tlm_error err;
        tlm_status st = tt_read_chunk(json, 3, &t, &err);
        if (4 + extra <= 64) {
            assert_int_equal(st, TLM_OK);
            tlm_trace_free(t);
        } else {
            assert_int_equal(st, TLM_ELIMIT);
            /* the first bracket beyond the bound */
            assert_true(err.offset == 14 + 64 - 4);
        }
    }
    /* very deep input fails cleanly at the bound (no deep recursion) */
    size_t deep = 200000;
    char *json = malloc(deep + 64);
    assert_non_null(json);
    size_t len = (size_t)snprintf(json, 64, "[{\"args\":{\"x\":");
    memset(json + len, '[', deep);
    len += deep;
    tlm_trace *t;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, len, "d", NULL, &t, &err),
                     TLM_ELIMIT);
    assert_true(err.offset == 14 + 60);
    /* and in a skipped top-level value */
    len = (size_t)snprintf(json, 64, "{\"x\":");
    memset(json + len, '{', deep);
    len += deep;
    assert_int_equal(tlm_trace_read_mem(json, len, "d", NULL, &t, &err),
                     TLM_ELIMIT);
    assert_true(err.offset == 5 + 63);
    free(json);
}

/* A string longer than max_string is an error wherever the window ends,
 * even when an invalid byte follows beyond the bound. */
static void test_bounds_string(void **state)
{
    (void)state;
    char json[512];
    memset(json, 'a', sizeof json);
    memcpy(json, "[{\"name\":\"", 10);
    json[10 + 300] = '\t'; /* a control character at string byte 300 */
    memcpy(json + 10 + 301, "\"}]", 4);
    for (size_t k = 0; k < N_CHUNKS; k++) {
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.chunk_size = chunks[k];
        o.max_string = 256;
        tlm_trace *t;
        tlm_error err;
        assert_int_equal(tlm_trace_read_mem(json, strlen(json), "s", &o, &t,
                                            &err),
                         TLM_ELIMIT);
        assert_true(err.offset == 10);
        /* within the bound the control character is the error */
        o.max_string = 400;
        assert_int_equal(tlm_trace_read_mem(json, strlen(json), "s", &o, &t,
                                            &err),
                         TLM_EFORMAT);
        assert_true(err.offset == 310);
    }
    /* exactly max_string bytes is fine */
    json[10 + 300] = 'a';
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.max_string = 301;
    o.chunk_size = 5;
    tlm_trace *t;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, strlen(json), "s", &o, &t,
                                        &err),
                     TLM_OK);
    size_t len;
    tlm_trace_str(t, ev_at(t, 0)->name, &len);
    assert_int_equal(len, 301);
    tlm_trace_free(t);
    o.max_string = 300;
    assert_int_equal(tlm_trace_read_mem(json, strlen(json), "s", &o, &t,
                                        &err),
                     TLM_ELIMIT);
}

static void test_bounds_event_bytes(void **state)
{
    (void)state;
    /* one event larger than max_event_bytes: error at its start */
    char json[1024];
    size_t len = (size_t)snprintf(json, sizeof json,
                                  "[{\"ph\":\"X\"}, {\"name\":\"");
    memset(json + len, 'n', 200);
    len += 200;
    len += (size_t)snprintf(json + len, sizeof json - len, "\"}]");
    for (size_t k = 0; k < N_CHUNKS; k++) {
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.chunk_size = chunks[k];
        o.max_event_bytes = 128;
        tlm_trace *t;
        tlm_error err;
        assert_int_equal(tlm_trace_read_mem(json, len, "b", &o, &t, &err),
                         TLM_ELIMIT);
        assert_true(err.offset == 13);
        o.max_event_bytes = 256;
        assert_int_equal(tlm_trace_read_mem(json, len, "b", &o, &t, &err),
                         TLM_OK);
        tlm_trace_free(t);
    }
}

/* ------------------------------------------------------------------ MARK:
 * Chunk sizes and gzip streaming of a rich document. */

static char *rich_doc(size_t *len)
{
    size_t cap = 1u << 20;
    char *b = malloc(cap);
    assert_non_null(b);
    size_t n = 0;
    n += (size_t)snprintf(b + n, cap - n,
                          "{\"schemaVersion\":1,\"unknown\":{\"a\":[1,{\"b\":"
                          "\"\\\"]}\"}],\"c\":null},");
    char *mj = dq(meta_json);
    n += (size_t)snprintf(b + n, cap - n,
                          "%s,\"baseTimeNanoseconds\":1700000000000000000,"
                          "\"traceEvents\":[\n",
                          mj);
    free(mj);
    for (int i = 0; i < 600; i++) {
        n += (size_t)snprintf(
            b + n, cap - n,
            "%s  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op_%d"
            "\\u00e9\\ud83d\\ude00\", \"pid\": %d, \"tid\": %s, "
            "\"ts\": %d.%03d, \"dur\": %d.%d, \"args\": {\"External id\": %d,"
            " \"Input Dims\": [[%d, 2], []], \"grid\": [%d, 1, 1], "
            "\"memory bandwidth (GB/s)\": %d.25, \"ignored\": {\"x\": [1, "
            "2]}, \"Input type\": \"f\\n%d\"}}",
            i ? ",\n" : "", i % 3 ? "kernel" : "cpu_op", i % 37, i % 4,
            i % 5 ? "7" : "\"stream 7\"", 1000000 + i * 13, i % 1000, i % 50,
            i % 10, i, i % 9, i % 17, i, i % 11);
    }
    n += (size_t)snprintf(b + n, cap - n,
                          "\n],\"traceName\":\"rich\",\"deviceProperties\":"
                          "[{\"id\": 0}]}\n");
    *len = n;
    return b;
}

static void test_chunks_equivalent(void **state)
{
    (void)state;
    size_t len;
    char *json = rich_doc(&len);
    tlm_trace *ref = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, len, "r", NULL, &ref, &err),
                     TLM_OK);
    assert_true(tlm_trace_stats(ref)->n_events == 600);
    assert_true(tlm_trace_meta_get(ref)->rank == 3);
    assert_int_equal(tlm_trace_meta_get(ref)->n_pgs, 2);
    static const size_t sizes[] = {1, 2, 3, 7, 13, 64, 4096, 65536};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.chunk_size = sizes[k];
        tlm_trace *t = NULL;
        assert_int_equal(tlm_trace_read_mem(json, len, "r", &o, &t, &err),
                         TLM_OK);
        assert_same_trace(ref, t);
        tlm_trace_free(t);
    }
    tlm_trace_free(ref);
    free(json);
}

static void test_gzip_chunks(void **state)
{
    (void)state;
    size_t len, glen;
    char *json = rich_doc(&len);
    unsigned char *gz = tt_gzip(json, len, &glen);
    tlm_trace *ref = NULL, *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, len, "r", NULL, &ref, &err),
                     TLM_OK);
    static const size_t sizes[] = {0, 1, 3, 7, 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.chunk_size = sizes[k];
        assert_int_equal(tlm_trace_read_mem(gz, glen, "r.gz", &o, &t, &err),
                         TLM_OK);
        assert_same_trace(ref, t);
        const tlm_read_stats *s = tlm_trace_stats(t);
        assert_int_equal(s->gzip, 1);
        assert_int_equal(s->gzip_members, 1);
        assert_true(s->bytes_in == glen);
        assert_true(s->bytes_json == len);
        tlm_trace_free(t);
    }
    tlm_trace_free(ref);
    free(gz);
    free(json);
}

/* Two reads of one input (a, status sa, error ea; b, sb, eb) gave the
 * same: the trace and its statistics, or the error at the same offset;
 * frees both. */
static void assert_same_read(tlm_status sa, tlm_trace *a, const tlm_error *ea,
                             tlm_status sb, tlm_trace *b, const tlm_error *eb)
{
    assert_int_equal(sa, sb);
    if (sa == TLM_OK) {
        assert_same_trace(a, b);
        const tlm_read_stats *x = tlm_trace_stats(a), *y = tlm_trace_stats(b);
        assert_true(x->n_events == y->n_events);
        assert_true(x->n_lone_surrogates == y->n_lone_surrogates);
        assert_true(x->bytes_json == y->bytes_json);
    } else {
        if (ea->offset != eb->offset)
            print_message("first: %lld %s\nsecond: %lld %s\n",
                          (long long)ea->offset, ea->msg,
                          (long long)eb->offset, eb->msg);
        assert_true(ea->offset == eb->offset);
        assert_string_equal(ea->msg, eb->msg);
    }
    tlm_trace_free(a);
    tlm_trace_free(b);
}

/* A document for the lent-block path: n events of varied sizes, every
 * 97th with a long string argument of about big bytes (longer than a
 * lent step, and than a block when big > 64 KiB), every 13th with escapes
 * and non-ASCII text; *len gets the size. */
static char *view_doc(size_t n, size_t big, size_t *len)
{
    size_t cap = n * 400 + (n / 97 + 1) * (big + 200) + 4096, used = 0;
    char *d = malloc(cap);
    assert_non_null(d);
    used += (size_t)snprintf(d + used, cap - used,
                             "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    for (size_t i = 0; i < n; i++) {
        used += (size_t)snprintf(
            d + used, cap - used,
            "%s  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op_%zu%s\", "
            "\"pid\": %zu, \"tid\": %zu, \"ts\": %zu.%03zu, \"dur\": %zu, "
            "\"args\": {\"External id\": %zu, \"Input Dims\": [[%zu, 8]]",
            i ? ",\n" : "", i % 3 ? "cpu_op" : "kernel", i % 50,
            i % 13 ? "" : "\\n\\u00e9 caf\xc3\xa9", i % 4, i % 7,
            1000 + i * 3, i % 1000, 1 + i % 17, i, i % 9);
        if (i % 97 == 5) {
            used += (size_t)snprintf(d + used, cap - used, ", \"Trace name\": \"");
            for (size_t k = 0; k < big; k++)
                d[used++] = (char)('a' + (k * 7 + i) % 26);
            d[used++] = '"';
        }
        used += (size_t)snprintf(d + used, cap - used, "}}");
    }
    used += (size_t)snprintf(d + used, cap - used,
                             "\n], \"traceName\": \"v\"}\n");
    assert_true(used < cap);
    *len = used;
    return d;
}

/* Reads data (gzip with 3 members: the inflating thread, its blocks lent
 * to the reader) in blocks of chunk bytes, and serially (every byte copied); the
 * two must give the same trace, or the same error at the same offset. */
static void view_vs_copy(const unsigned char *gz, size_t glen,
                         size_t max_event, size_t chunk)
{
    tlm_read_opts o, os;
    tlm_read_opts_init(&o);
    o.chunk_size = chunk;
    o.max_event_bytes = max_event;
    os = o;
    os.serial_inflate = 1;
    tlm_trace *a = NULL, *b = NULL;
    tlm_error ea, eb;
    tlm_status sa = tlm_trace_read_mem(gz, glen, "v.gz", &o, &a, &ea);
    tlm_status sb = tlm_trace_read_mem(gz, glen, "v.gz", &os, &b, &eb);
    assert_same_read(sa, a, &ea, sb, b, &eb);
}

/* The lent blocks (tlm_instream_view): values cut by a block's end, values
 * longer than a step and than a block, the end of input inside a value,
 * syntax errors before, at and after block ends, and a value over
 * max_event_bytes give what the copying path gives. */
static void test_gzip_views(void **state)
{
    (void)state;
    size_t len, glen;
    char *json = view_doc(3000, 150000, &len);
    size_t cuts[2] = {len / 3, len / 3 + 100000};
    unsigned char *gz = tt_gzip_members(json, len, cuts, 2, &glen);
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.chunk_size = 65536;
    tlm_trace *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(gz, glen, "v.gz", &o, &t, &err),
                     TLM_OK);
    size_t n;
    tlm_trace_events(t, &n);
    assert_int_equal(n, 3000);
    tlm_trace_free(t);
    for (size_t c = 65536; c <= 262144; c *= 4) {
        view_vs_copy(gz, glen, 0, c);
        view_vs_copy(gz, glen, 100000, c); /* long values over the limit */
    }
    free(gz);
    /* damaged copies: a byte replaced, or the input cut short */
    static const size_t at[] = {65535, 65536, 65537, 131071, 200003,
                                 400000, 777777};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        size_t pos = at[k] % len;
        char keep = json[pos];
        json[pos] = '#';
        gz = tt_gzip_members(json, len, cuts, 2, &glen);
        view_vs_copy(gz, glen, 0, 262144);
        free(gz);
        json[pos] = keep;
        size_t cut2[2] = {pos / 3, pos / 2};
        gz = tt_gzip_members(json, pos, cut2, 2, &glen);
        view_vs_copy(gz, glen, 0, 262144);
        free(gz);
    }
    free(json);
}

/* A plain trace of about size bytes for the second parser: events of
 * many shapes (false starts "}, {" inside names, escapes, lone
 * surrogates, string pids and tids, wide durations, flow ids, nested and
 * repeated arguments, events longer than the helper's tail and than a
 * block), metadata before and after the array; *len gets the size. */
static char *par_doc(size_t size, size_t *len)
{
    size_t cap = size + (1 << 20), used = 0;
    char *d = malloc(cap);
    assert_non_null(d);
#define PUT(...) (used += (size_t)snprintf(d + used, cap - used, __VA_ARGS__))
    PUT("{\"schemaVersion\": 1, \"deviceProperties\": [], \"traceEvents\": "
        "[\n");
    for (size_t i = 0; used < size; i++) {
        PUT("%s  {\"ph\": \"%s\", \"cat\": \"%s\", \"name\": \"op_%zu%s\", ",
            i ? ",\n" : "", i % 11 == 3 ? "f" : "X",
            i % 3 ? "cpu_op" : (i % 5 ? "kernel" : "cat\\u00e9"), i % 300,
            i % 17 == 0   ? "}, {\\\"ph\\\": \\\"X\\\"}, {"
            : i % 29 == 0 ? "\\ud800 lone"
                          : "");
        if (i % 13 == 0)
            PUT("\"pid\": \"proc %zu\", \"tid\": \"th %zu\", ", i % 7, i % 5);
        else
            PUT("\"pid\": %zu, \"tid\": %zu, ", i % 4, i % 9);
        PUT("\"ts\": %zu.%03zu, \"dur\": %s, ", 1000 + i * 3, i % 1000,
            i % 101 == 0 ? "3000000000.5" : "12.250");
        if (i % 11 == 3)
            PUT("\"id\": %zu, \"bp\": \"e\", ", i);
        PUT("\"args\": {\"External id\": %zu, \"Input Dims\": [[%zu, 8], []], "
            "\"Input type\": [\"float\", {\"a\": [1, {\"b\": null}]}], "
            "\"External id\": %zu",
            i, i % 9, i + 1);
        if (i % 997 == 5 || i % 4001 == 7) { /* 20 KiB / 100 KiB strings */
            size_t big = i % 997 == 5 ? 20000 : 100000;
            PUT(", \"Trace name\": \"");
            for (size_t k = 0; k < big && used + 2 < cap; k++)
                d[used++] = (char)('a' + (k * 7 + i) % 26);
            PUT("\"");
        }
        PUT("}}");
    }
    PUT("\n], \"traceName\": \"p\", \"displayTimeUnit\": \"ms\"}\n");
#undef PUT
    assert_true(used < cap);
    *len = used;
    return d;
}

typedef struct par_seen {
    uint64_t n, hash; /* events delivered; a hash of (index, name) */
    uint64_t fail_at; /* 0, else the index whose delivery fails */
} par_seen;

static tlm_status par_cb(void *ud, tlm_trace *t, const tlm_event *ev,
                         uint64_t index, tlm_error *err)
{
    par_seen *s = ud;
    (void)err;
    size_t nl;
    const char *nm = tlm_trace_str(t, ev->name, &nl);
    s->hash = (s->hash ^ index ^ (nl ? (unsigned char)nm[nl / 2] : 0)) *
              0x100000001b3ull;
    s->n++;
    return s->fail_at && index == s->fail_at ? TLM_EINVAL : TLM_OK;
}

/* Reads path with and without the second parser (64 KiB blocks): the same
 * trace, statistics, deliveries and errors. */
static void par_vs_one(const char *path, uint64_t fail_at)
{
    tlm_read_opts o, o1;
    tlm_read_opts_init(&o);
    o.chunk_size = 65536;
    o.parse_helper = 1;
    o.on_event = par_cb;
    o1 = o;
    o1.parse_helper = 0;
    par_seen sa = {0, 0, fail_at}, sb = {0, 0, fail_at};
    o.on_event_ud = &sa;
    o1.on_event_ud = &sb;
    tlm_trace *a = NULL, *b = NULL;
    tlm_error ea, eb;
    tlm_status xa = tlm_trace_read_file(path, &o, &a, &ea);
    tlm_status xb = tlm_trace_read_file(path, &o1, &b, &eb);
    assert_true(sa.n == sb.n && sa.hash == sb.hash);
    assert_same_read(xa, a, &ea, xb, b, &eb);
}

/* The second parser (tlm_read_opts.parse_helper) on a 17 MB plain trace:
 * the trace, statistics and deliveries of one parser; the same error and
 * offset for a byte damaged in many places (in the helper's blocks, at
 * their starts and ends) and for a delivery that fails. */
static void test_parse_helper(void **state)
{
    (void)state;
    char dir[64], path[96];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/p.json", dir);
    size_t len;
    char *json = par_doc(17u << 20, &len);
    tt_write_file(path, json, len);
    par_vs_one(path, 0);
    par_vs_one(path, 40000); /* a delivery inside a helper's block fails */
    /* (64 KiB blocks: this thread reads blocks 0, 3, 6, ..., the helper
     * 1-2, 4-5, ...) */
    static const size_t at[] = {65536 * 3 + 10, 65536 * 5 - 1, 65536 * 5,
                                65536 * 5 + 1,  65536 * 6 + 5, 65536 * 7 + 300,
                                65536 * 40 + 77, 65536 * 101 - 3};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        char keep = json[at[k]];
        json[at[k]] = keep == '"' ? '}' : '"';
        tt_write_file(path, json, len);
        par_vs_one(path, 0);
        json[at[k]] = keep;
    }
    tt_write_file(path, json, len * 3 / 4); /* cut short */
    par_vs_one(path, 0);
    remove(path);
    rmdir(dir);
    free(json);
}

static void test_gzip_multi_member(void **state)
{
    (void)state;
    size_t len, glen;
    char *json = rich_doc(&len);
    /* cuts inside a key, an escape, a number; one empty member */
    size_t cuts[] = {1, 17, len / 3, len / 3, len / 2 + 1, len - 3};
    size_t nc = sizeof cuts / sizeof cuts[0];
    unsigned char *gz = tt_gzip_members(json, len, cuts, nc, &glen);
    tlm_trace *ref = NULL, *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, len, "r", NULL, &ref, &err),
                     TLM_OK);
    static const size_t sizes[] = {0, 1, 3, 7, 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.chunk_size = sizes[k];
        assert_int_equal(tlm_trace_read_mem(gz, glen, "m.gz", &o, &t, &err),
                         TLM_OK);
        assert_same_trace(ref, t);
        assert_int_equal(tlm_trace_stats(t)->gzip_members, nc + 1);
        assert_true(tlm_trace_stats(t)->bytes_in == glen);
        tlm_trace_free(t);
    }
    /* trailing garbage after the last member */
    unsigned char *g2 = malloc(glen + 3);
    assert_non_null(g2);
    memcpy(g2, gz, glen);
    memcpy(g2 + glen, "xyz", 3);
    assert_int_equal(tlm_trace_read_mem(g2, glen + 3, "m.gz", NULL, &t, &err),
                     TLM_EGZIP);
    assert_true(err.offset == (int64_t)len);
    /* a member start that is not a gzip header */
    memcpy(g2 + glen, "\x1f\x00\x00", 3);
    assert_int_equal(tlm_trace_read_mem(g2, glen + 3, "m.gz", NULL, &t, &err),
                     TLM_EGZIP);
    free(g2);
    tlm_trace_free(ref);
    free(gz);
    free(json);
}

static void test_gzip_truncated(void **state)
{
    (void)state;
    const char *json = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\","
                       "\"ts\":1,\"dur\":2}],\"traceName\":\"t\"}";
    size_t len = strlen(json), glen;
    unsigned char *gz = tt_gzip(json, len, &glen);
    for (size_t cut = 2; cut < glen; cut++) {
        for (size_t chunk = 1; chunk <= 7; chunk += 6) {
            tlm_read_opts o;
            tlm_read_opts_init(&o);
            o.chunk_size = chunk;
            tlm_trace *t = (tlm_trace *)&o;
            tlm_error err;
            tlm_status st = tlm_trace_read_mem(gz, cut, "t.gz", &o, &t, &err);
            assert_int_equal(st, TLM_EGZIP);
            assert_null(t);
            assert_true(err.offset >= 0 && err.offset <= (int64_t)len);
            assert_non_null(strstr(err.msg, "truncated"));
        }
    }
    /* 0 or 1 byte left: not gzip any more, not JSON either */
    tlm_trace *t;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(gz, 1, "t.gz", NULL, &t, &err),
                     TLM_EFORMAT);
    assert_int_equal(tlm_trace_read_mem(gz, 0, "t.gz", NULL, &t, &err),
                     TLM_EFORMAT);
    /* the second of two members truncated */
    size_t cuts[] = {len / 2};
    size_t mlen;
    unsigned char *mm = tt_gzip_members(json, len, cuts, 1, &mlen);
    assert_int_equal(tlm_trace_read_mem(mm, mlen - 5, "m.gz", NULL, &t, &err),
                     TLM_EGZIP);
    assert_non_null(strstr(err.msg, "member 2"));
    free(mm);
    free(gz);
}

static void test_gzip_bad_trailer(void **state)
{
    (void)state;
    const char *json = "[{\"ph\":\"X\",\"ts\":1}]";
    size_t len = strlen(json), glen;
    unsigned char *gz = tt_gzip(json, len, &glen);
    for (size_t i = 1; i <= 8; i++) {
        for (size_t chunk = 0; chunk <= 3; chunk += 3) {
            unsigned char *bad = malloc(glen);
            assert_non_null(bad);
            memcpy(bad, gz, glen);
            bad[glen - i] ^= 0x01; /* CRC32 (i > 4) or ISIZE (i <= 4) */
            tlm_read_opts o;
            tlm_read_opts_init(&o);
            o.chunk_size = chunk;
            tlm_trace *t = (tlm_trace *)&o;
            tlm_error err;
            assert_int_equal(
                tlm_trace_read_mem(bad, glen, "c.gz", &o, &t, &err),
                TLM_EGZIP);
            assert_null(t);
            assert_true(err.offset == (int64_t)len);
            assert_non_null(strstr(err.msg, i > 4 ? "data check"
                                                  : "length check"));
            free(bad);
        }
    }
    /* a corrupt deflate block */
    unsigned char *bad = malloc(glen);
    assert_non_null(bad);
    memcpy(bad, gz, glen);
    bad[10] = 0xff; /* first deflate byte: reserved block type 3 */
    tlm_trace *t;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(bad, glen, "c.gz", NULL, &t, &err),
                     TLM_EGZIP);
    free(bad);
    free(gz);
}

/* JSON errors inside gzip input report decompressed offsets. */
static void test_gzip_json_errors(void **state)
{
    (void)state;
    const char *json = "{\"traceEvents\":[{\"ts\":\"1\"}]}";
    size_t glen;
    unsigned char *gz = tt_gzip(json, strlen(json), &glen);
    tlm_trace *t;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(gz, glen, "j.gz", NULL, &t, &err),
                     TLM_ESCHEMA);
    assert_true(err.offset == 22);
    free(gz);
    gz = tt_gzip("not json", 8, &glen);
    assert_int_equal(tlm_trace_read_mem(gz, glen, "j.gz", NULL, &t, &err),
                     TLM_EFORMAT);
    assert_true(err.offset == 0);
    free(gz);
    gz = tt_gzip("", 0, &glen);
    assert_int_equal(tlm_trace_read_mem(gz, glen, "j.gz", NULL, &t, &err),
                     TLM_EFORMAT);
    free(gz);
}

/* ------------------------------------------------------------------ MARK:
 * Files. */

static void test_read_file(void **state)
{
    (void)state;
    char dir[256], path[300], gzpath[300];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/rank0.json", dir);
    snprintf(gzpath, sizeof gzpath, "%s/rank0.json.gz", dir);
    size_t len, glen;
    char *json = rich_doc(&len);
    size_t cuts[] = {len / 2};
    unsigned char *gz = tt_gzip_members(json, len, cuts, 1, &glen);
    tt_write_file(path, json, len);
    tt_write_file(gzpath, gz, glen);
    tlm_trace *a = NULL, *b = NULL, *c = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_file(path, NULL, &a, &err), TLM_OK);
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.chunk_size = 3;
    assert_int_equal(tlm_trace_read_file(gzpath, &o, &b, &err), TLM_OK);
    assert_int_equal(tlm_trace_read_mem(json, len, "m", NULL, &c, &err),
                     TLM_OK);
    assert_same_trace(a, b);
    assert_same_trace(a, c);
    assert_string_equal(tlm_trace_path(a), path);
    assert_string_equal(tlm_trace_path(b), gzpath);
    assert_true(tlm_trace_stats(a)->bytes_in == len);
    assert_true(tlm_trace_stats(b)->bytes_in == glen);
    assert_int_equal(tlm_trace_stats(b)->gzip_members, 2);
    tlm_trace_free(a);
    tlm_trace_free(b);
    tlm_trace_free(c);

    /* errors name the file; a folder is refused by the open */
    assert_int_equal(tlm_trace_read_file(dir, NULL, &a, &err), TLM_EINVAL);
    assert_null(a);
    assert_int_equal(err.code, TLM_EINVAL);
    char missing[320];
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    assert_int_equal(tlm_trace_read_file(missing, NULL, &a, &err), TLM_EIO);
    assert_string_equal(err.file, missing);
    tt_write_file(path, "[{\"ts\":1e30}]", 13);
    assert_int_equal(tlm_trace_read_file(path, NULL, &a, &err), TLM_ERANGE);
    assert_string_equal(err.file, path);
    assert_true(err.offset == 7);

    remove(path);
    remove(gzpath);
    rmdir(dir);
    free(gz);
    free(json);
}

/* ------------------------------------------------------------------ MARK:
 * Interning through the trace. */

static void test_trace_strings(void **state)
{
    (void)state;
    tlm_trace *t = rd_ok("[{\"name\":\"a\",\"cat\":\"zz\"},{\"name\":\"b\"},"
                         "{\"name\":\"a\",\"cat\":\"zz\"}]");
    const tlm_event *ev = tlm_trace_events(t, NULL);
    assert_int_equal(ev[0].name, ev[2].name);
    assert_int_not_equal(ev[0].name, ev[1].name);
    assert_int_equal(ev[0].cat_str, ev[2].cat_str);
    uint32_t n = tlm_trace_str_count(t);
    /* ids are dense */
    assert_true(ev[0].name < n && ev[1].name < n && ev[0].cat_str < n);
    assert_int_equal(tlm_trace_str_find(t, "a", 1), ev[0].name);
    assert_int_equal(tlm_trace_str_find(t, "nope", 4), 0);
    assert_int_equal(tlm_trace_str_find(t, "", 0), 0);
    tlm_status st = TLM_EIO;
    uint32_t id = tlm_trace_str_intern(t, "derived", 7, &st);
    assert_int_equal(st, TLM_OK);
    assert_int_equal(id, n);
    assert_int_equal(tlm_trace_str_count(t), n + 1);
    assert_int_equal(tlm_trace_str_intern(t, "a", 1, NULL), ev[0].name);
    assert_int_equal(tlm_trace_str_intern(t, "", 0, &st), 0);
    assert_int_equal(st, TLM_OK);
    assert_int_equal(tlm_trace_str_count(t), n + 1);
    assert_string_equal(tlm_trace_str(t, id, NULL), "derived");
    assert_true(tlm_trace_str_hash(t, id) == tlm_hash64("derived", 7));
    /* out-of-range ids read as "" */
    size_t len = 99;
    assert_string_equal(tlm_trace_str(t, n + 100, &len), "");
    assert_int_equal(len, 0);
    assert_true(tlm_trace_str_hash(t, 0) == tlm_hash64("", 0));
    tlm_trace_free(t);
    tlm_trace_free(NULL);
}

/* ------------------------------------------------------------------ MARK:
 * Allocation failures: fail the Nth allocation, N = 1, 2, ... until the
 * read succeeds.  Each failure must be TLM_ENOMEM with nothing leaked. */

static void torture(const void *data, size_t len, size_t chunk, int keep,
                    int sticky)
{
    long n;
    for (n = 1; n < 100000; n++) {
        tt_fail_alloc fa;
        tt_fail_alloc_init(&fa, n, sticky);
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.alloc = &fa.a;
        o.chunk_size = chunk;
        o.keep_events = keep;
        tlm_trace *t = (tlm_trace *)&o;
        tlm_error err;
        tlm_status st = tlm_trace_read_mem(data, len, "torture", &o, &t,
                                           &err);
        if (fa.failed == 0) {
            /* every allocation of a full read was tried: done */
            assert_int_equal(st, TLM_OK);
            assert_non_null(t);
            tlm_trace_free(t);
            assert_int_equal(fa.live, 0);
            break;
        }
        if (st != TLM_ENOMEM)
            fprintf(stderr, "allocation %ld failed: got %s (%s)\n", n,
                    tlm_status_str(st), err.msg);
        assert_int_equal(st, TLM_ENOMEM);
        assert_int_equal(err.code, TLM_ENOMEM);
        assert_null(t);
        assert_int_equal(fa.live, 0);
    }
    assert_true(n > 5); /* the loop did fail real allocations */
}

static void test_alloc_failures(void **state)
{
    (void)state;
    size_t glen;
    /* a smaller document keeps the loop short: the meta, the first events,
     * a long unknown value and a long event (the window must grow) */
    char small[16384];
    size_t sl = 0;
    char *mj = dq(meta_json);
    sl += (size_t)snprintf(small, sizeof small,
                           "{\"u\":[1,2,3,{\"x\":\"%0200d\"}],%s,"
                           "\"deviceProperties\":[{\"id\":0}],"
                           "\"traceName\":\"n\",\"traceEvents\":[",
                           7, mj);
    free(mj);
    for (int i = 0; i < 40; i++)
        sl += (size_t)snprintf(small + sl, sizeof small - sl,
                               "%s{\"name\":\"e%d_%0*d\",\"tid\":\"t%d\","
                               "\"args\":{\"Input Dims\":[[%d]],"
                               "\"External id\":%d}}",
                               i ? "," : "", i, i == 20 ? 3000 : 1, 0, i % 3,
                               i, i);
    sl += (size_t)snprintf(small + sl, sizeof small - sl, "]}");
    assert_true(sl < sizeof small - 1);
    unsigned char *gz = tt_gzip(small, sl, &glen);
    for (int sticky = 0; sticky <= 1; sticky++) {
        torture(small, sl, 0, 1, sticky);
        torture(small, sl, 7, 1, sticky);
        torture(small, sl, 64, 0, sticky);
        torture(gz, glen, 5, 1, sticky);
    }
    free(gz);
    /* growth of everything: 5000 events (the event array grows), unique
     * names (the string table and its index grow), args (the blob grows) */
    size_t cap = 5000 * 80 + 64, bl = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    bl += (size_t)snprintf(big, cap, "[");
    for (int i = 0; i < 5000; i++)
        bl += (size_t)snprintf(big + bl, cap - bl,
                               "%s{\"name\":\"n%d\",\"args\":{\"Seq\":%d}}",
                               i ? "," : "", i, i);
    bl += (size_t)snprintf(big + bl, cap - bl, "]");
    torture(big, bl, 0, 1, 0);
    free(big);
}

/* ------------------------------------------------------------------ MARK:
 * Every trace written by tlmpi-synth (schemas 1, 2, 3) reads cleanly. */

static int read_dir_traces(const char *dir, int schema, int *n_traces)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *de;
    int bad = 0;
    while ((de = readdir(d)) != NULL) {
        const char *nm = de->d_name;
        size_t n = strlen(nm);
        int is_trace = (n > 5 && strcmp(nm + n - 5, ".json") == 0) ||
                       (n > 8 && strcmp(nm + n - 8, ".json.gz") == 0);
        if (!is_trace || strncmp(nm, "ground_truth", 12) == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        tlm_trace *t = NULL, *u = NULL;
        tlm_error err;
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        tlm_status st = tlm_trace_read_file(path, &o, &t, &err);
        if (st != TLM_OK) {
            char buf[1024];
            fprintf(stderr, "synth trace: %s\n",
                    tlm_error_format(&err, buf, sizeof buf));
            bad++;
            continue;
        }
        /* the same with a small odd chunk */
        o.chunk_size = 7;
        st = tlm_trace_read_file(path, &o, &u, &err);
        assert_int_equal(st, TLM_OK);
        assert_same_trace(t, u);
        assert_true(tlm_trace_stats(t)->n_events > 0);
        const tlm_trace_meta *m = tlm_trace_meta_get(t);
        assert_int_equal(m->has_distributed, 1);
        /* rank{r}_trace.json carries rank r */
        assert_true(m->rank == strtol(nm + 4, NULL, 10));
        assert_true(m->world_size == 4);
        if (schema >= 2) {
            /* newer PyTorch: pg_config with every group's ranks */
            assert_true(m->pg_count > 0);
            assert_int_equal(m->n_pgs, (size_t)m->pg_count);
            assert_int_equal(m->pgs[0].n_ranks, 4);
            assert_string_equal(str_of(t, m->pgs[0].pg_desc), "default_pg");
        }
        assert_int_equal(tlm_trace_stats(t)->gzip,
                         n > 8 && strcmp(nm + n - 3, ".gz") == 0);
        size_t ne;
        const tlm_event *ev = tlm_trace_events(t, &ne);
        size_t kernels = 0;
        for (size_t i = 0; i < ne; i++)
            kernels += ev[i].cat == TLM_CAT_KERNEL;
        assert_true(kernels > 0);
        tlm_trace_free(t);
        tlm_trace_free(u);
        (*n_traces)++;
    }
    closedir(d);
    return bad;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        else
            remove(path);
    }
    closedir(d);
    rmdir(dir);
}

static void test_synth_traces(void **state)
{
    (void)state;
    const char *synth = getenv("TLMPI_SYNTH");
    if (!synth || !*synth || access(synth, X_OK) != 0) {
        fprintf(stderr, "TLMPI_SYNTH not set or not executable: skipped\n");
        skip();
    }
    char dir[256];
    tt_tmpdir(dir, sizeof dir);
    int n_traces = 0;
    for (int schema = 1; schema <= 3; schema++) {
        for (int gz = 0; gz <= 1; gz++) {
            char out[320], cmd[1024];
            snprintf(out, sizeof out, "%s/s%d_%d", dir, schema, gz);
            snprintf(cmd, sizeof cmd,
                     "'%s' --out '%s' --world_size 4 --tp 2 --steps 1 "
                     "--layers 1 --schema %d --seed %d%s > '%s.log' 2>&1",
                     synth, out, schema, 11 + schema, gz ? " --gzip" : "",
                     out);
            int rc = system(cmd);
            if (rc != 0) {
                fprintf(stderr, "failed (%d): %s\n", rc, cmd);
                char log[400];
                snprintf(log, sizeof log, "%s.log", out);
                size_t n;
                unsigned char *txt = tt_slurp(log, &n);
                if (txt)
                    fprintf(stderr, "%.*s\n", (int)n, (const char *)txt);
                free(txt);
            }
            assert_int_equal(rc, 0);
            int before = n_traces;
            assert_int_equal(read_dir_traces(out, schema, &n_traces), 0);
            assert_int_equal(n_traces - before, 4);
        }
    }
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_corpus),
        cmocka_unit_test(test_error_raw),
        cmocka_unit_test(test_error_nul_byte),
        cmocka_unit_test(test_error_message),
        cmocka_unit_test(test_error_null_err),
        cmocka_unit_test(test_escapes_simple),
        cmocka_unit_test(test_escapes_unicode),
        cmocka_unit_test(test_lone_surrogate_count),
        cmocka_unit_test(test_string_scan_positions),
        cmocka_unit_test(test_escapes_elsewhere),
        cmocka_unit_test(test_event_fields),
        cmocka_unit_test(test_event_odd),
        cmocka_unit_test(test_event_categories),
        cmocka_unit_test(test_event_times),
        cmocka_unit_test(test_args_types),
        cmocka_unit_test(test_args_compact_random),
        cmocka_unit_test(test_memo_lookalikes),
        cmocka_unit_test(test_args_dim3),
        cmocka_unit_test(test_args_keys),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_flow_id_in_args),
        cmocka_unit_test(test_pid_tid_keys),
        cmocka_unit_test(test_drop_args),
        cmocka_unit_test(test_wide_pid_tid),
        cmocka_unit_test(test_toplevel_order),
        cmocka_unit_test(test_toplevel_bare_array),
        cmocka_unit_test(test_toplevel_huge_unknown),
        cmocka_unit_test(test_meta_distributed),
        cmocka_unit_test(test_meta_odd),
        cmocka_unit_test(test_keep_events),
        cmocka_unit_test(test_callback_stop),
        cmocka_unit_test(test_max_events),
        cmocka_unit_test(test_bounds_depth),
        cmocka_unit_test(test_bounds_string),
        cmocka_unit_test(test_bounds_event_bytes),
        cmocka_unit_test(test_chunks_equivalent),
        cmocka_unit_test(test_gzip_chunks),
        cmocka_unit_test(test_gzip_multi_member),
        cmocka_unit_test(test_gzip_views),
        cmocka_unit_test(test_parse_helper),
        cmocka_unit_test(test_gzip_truncated),
        cmocka_unit_test(test_gzip_bad_trailer),
        cmocka_unit_test(test_gzip_json_errors),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_trace_strings),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_synth_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
