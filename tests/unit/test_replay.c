/*
 * test_replay.c - the replay layer (src/replay): the op-name policy, the
 * strict Concrete Inputs grammar, the checks of the four arrays (every
 * reason code, overflow-checked byte caps), the selection from a report,
 * the tlmpi.replay.v1 writer (nothing else of the trace), SHA-256 (FIPS
 * 180-4 examples), the deterministic .tar.gz and the embedded runner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <unistd.h>
#include <zlib.h>

#include "tlmpi/tlm_replay.h"

#include "perf_internal.h"
#include "replay_internal.h"
#include "tlm_test_report.h"

/* ---------------------------------------------------------------- names */

static tlm_replay_reason name_rc(const char *s, const char *ns)
{
    return tlm_rp_check_name(s, strlen(s), ns);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(name_rc("aten::mm", NULL), TLM_RR_OK);
    assert_int_equal(name_rc("aten::_scaled_dot_product_flash_attention",
                             NULL), TLM_RR_OK);
    assert_int_equal(name_rc("builtins::eval", NULL), TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("builtins::eval", "aten,builtins"),
                     TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("os::system", NULL), TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("evil::system", NULL), TLM_RR_NAMESPACE);
    assert_int_equal(name_rc("vllm::rms_norm", NULL), TLM_RR_NAMESPACE);
    assert_int_equal(name_rc("vllm::rms_norm", "aten,vllm"), TLM_RR_OK);
    assert_int_equal(name_rc("aten::save", NULL), TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("aten::from_file", NULL), TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("aten::record_stream", NULL), TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("aten::_c10d_all_reduce", NULL),
                     TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("c10d::allreduce_", NULL), TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("c10d::allreduce_", "aten,c10d"),
                     TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("prim::PythonOp", NULL), TLM_RR_DENIED_OP);
    assert_int_equal(name_rc("profiler::_record_function_enter", NULL),
                     TLM_RR_DENIED_OP);
    /* grammar */
    const char *bad[] = {"aten::__init__", "__builtins__::eval", "aten::mm.out",
                         "../x::y", "aten::_ops; import os", "aten::",
                         "::mm", "aten:mm", "aten::mm(", "aten::m m",
                         "record_param_comms", "aten::9mm", "a::b::c",
                         "autograd::engine::evaluate_function: MmBackward0",
                         "aten::\xc3\xa9", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(name_rc(bad[i], NULL), TLM_RR_BAD_OP_NAME);
    assert_int_equal(tlm_rp_check_name("aten::mm\0x", 10, NULL),
                     TLM_RR_BAD_OP_NAME);
    char longop[200] = "aten::";
    memset(longop + 6, 'a', 128);
    assert_int_equal(name_rc(longop, NULL), TLM_RR_BAD_OP_NAME);
    longop[6 + 127] = '\0';
    assert_int_equal(name_rc(longop, NULL), TLM_RR_OK);
}

static void test_namespaces(void **state)
{
    (void)state;
    tlm_error err;
    assert_int_equal(tlm_replay_ns_validate("aten", &err), TLM_OK);
    assert_int_equal(tlm_replay_ns_validate("aten,vllm,trtllm", &err),
                     TLM_OK);
    assert_int_equal(tlm_replay_ns_validate("", &err), TLM_EINVAL);
    assert_int_equal(tlm_replay_ns_validate("aten,", &err), TLM_EINVAL);
    assert_int_equal(tlm_replay_ns_validate("__main__", &err), TLM_EINVAL);
    assert_int_equal(tlm_replay_ns_validate("os.path", &err), TLM_EINVAL);
    assert_int_equal(tlm_replay_ns_validate("aten,c10d", &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "never"));
    tlm_replay_opts o;
    tlm_replay_opts_init(&o);
    o.filter = "(";
    assert_int_equal(tlm_replay_opts_check(&o, &err), TLM_EINVAL);
    o.filter = "^aten::(mm|addmm)$";
    assert_int_equal(tlm_replay_opts_check(&o, &err), TLM_OK);
}

/* ---------------------------------------------------------------- grammar */

static tlm_replay_reason conc(const char *s, char *out, size_t cap)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_rp_value v;
    tlm_replay_reason r = tlm_rp_concrete(s, strlen(s), &b, &v);
    snprintf(out, cap, "%s", b.p ? b.p : "");
    tlm_sbuf_free(&b);
    return r;
}

static void expect_conc(const char *in, const char *json)
{
    char out[256];
    assert_int_equal(conc(in, out, sizeof out), TLM_RR_OK);
    assert_string_equal(out, json);
}

static void test_concrete(void **state)
{
    (void)state;
    expect_conc("", "null");
    expect_conc("1", "1");
    expect_conc("-1", "-1");
    expect_conc("0.", "0.0");
    expect_conc("0.125", "0.125");
    expect_conc("1e-05", "1e-05");
    expect_conc("9.9999999999999995e-08", "1e-07");
    expect_conc(".5", "0.5");
    expect_conc("True", "true");
    expect_conc("False", "false");
    expect_conc("[1, 1]", "[1,1]");
    expect_conc("[-1]", "[-1]");
    expect_conc("[True, False]", "[true,false]");
    expect_conc("[]", "[]");
    expect_conc("9223372036854775807", "9223372036854775807");
    expect_conc("-9223372036854775808", "-9223372036854775808");
    char out[256];
    const char *nonfinite[] = {"nan", "NaN", "inf", "-inf", "Infinity",
                               "1e999", "-1e999", "[1, nan]"};
    for (size_t i = 0; i < sizeof nonfinite / sizeof nonfinite[0]; i++)
        assert_int_equal(conc(nonfinite[i], out, sizeof out),
                         TLM_RR_NONFINITE);
    const char *bad[] = {
        "1_0", " 1", "1 ", "+1", "0x10", "1e", "e5", ".", "-", "true",
        "TRUE", "None", "[1,1]", "[1,  1]", "[1, 1", "1, 1]", "[, 1]",
        "[1, ]", "[[1]]", "'a'", "\"a\"", "__import__('os').system('touch X')",
        "9223372036854775808", "-9223372036854775809",
        "12345678901234567890", "1.0.0", "0.1e+", "[True, 'x']"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (conc(bad[i], out, sizeof out) != TLM_RR_BAD_CONCRETE)
            fail_msg("'%s' accepted", bad[i]);
    }
    /* 4096 bytes at most */
    char big[4200];
    big[0] = '[';
    size_t n = 1;
    while (n < 4100) {
        memcpy(big + n, "1, ", 3);
        n += 3;
    }
    memcpy(big + n, "1]", 3);
    assert_int_equal(conc(big, out, sizeof out), TLM_RR_BAD_CONCRETE);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_rp_value v;
    assert_int_equal(tlm_rp_concrete("1\0", 2, &b, &v), TLM_RR_BAD_CONCRETE);
    assert_int_equal(tlm_rp_concrete("[2, -3, 0]", 10, &b, &v), TLM_RR_OK);
    assert_int_equal(v.kind, TLM_RPV_LIST);
    assert_true(v.product == 6.0);
    assert_int_equal(v.max_abs, 3);
    tlm_sbuf_free(&b);
}

/* ---------------------------------------------------------------- checks */

typedef struct chk {
    tlm_replay_reason status;
    int arg;
    char json[2048];
    uint64_t bytes;
} chk;

static chk check4(const char *name, const char *d, const char *t,
                  const char *s, const char *c, const tlm_replay_opts *o)
{
    chk r;
    memset(&r, 0, sizeof r);
    tlm_replay_op op;
    tlm_error err;
    assert_int_equal(tlm_replay_check(name, strlen(name), d, t, s, c, o, &op,
                                      &err),
                     TLM_OK);
    r.status = op.status;
    r.arg = op.reason_arg;
    r.bytes = op.bytes;
    if (op.args_json)
        snprintf(r.json, sizeof r.json, "%s", op.args_json);
    if (op.status != TLM_RR_OK)
        assert_null(op.args_json);
    tlm_replay_op_clear(&op);
    return r;
}

static tlm_replay_reason rc1(const char *d, const char *t, const char *s,
                             const char *c)
{
    return check4("aten::mm", d, t, s, c, NULL).status;
}

static void test_check_ok(void **state)
{
    (void)state;
    chk r = check4("aten::mm", "[[8944,1024],[1024,2816]]",
                   "[\"c10::BFloat16\",\"c10::BFloat16\"]",
                   "[[1024,1],[1,1024]]", "[\"\",\"\"]", NULL);
    assert_int_equal(r.status, TLM_RR_OK);
    assert_int_equal(r.arg, -1);
    assert_string_equal(r.json,
        "{\"Input Dims\":[[8944,1024],[1024,2816]],"
        "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"],"
        "\"Input Strides\":[[1024,1],[1,1024]],"
        "\"Concrete Inputs\":[null,null]}");
    assert_int_equal(r.bytes, (8944ULL * 1024 + 1024ULL * 2816) * 2);
    /* the spec's SDPA example: scalars typed */
    r = check4("aten::_scaled_dot_product_flash_attention",
               "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[],[],[],[]]",
               "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
               "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
               "[[572416,35776,64,1],[572416,35776,64,1],[572416,35776,64,1],"
               "[],[],[],[]]",
               "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"0.125\"]", NULL);
    assert_int_equal(r.status, TLM_RR_OK);
    assert_non_null(strstr(r.json, "\"Concrete Inputs\":[null,null,null,0.0,"
                                   "true,false,0.125]"));
    /* 0-dim tensor, empty tensor, zero stride (expand), TensorList,
     * ScalarList, None */
    r = check4("aten::cat", "[[[2,3],[2,3]],[],[],[0,5],[4,4]]",
               "[\"TensorList\",\"Scalar\",\"double\",\"float\","
               "\"long int\"]",
               "[[[3,1],[3,1]],[],[],[5,1],[0,1]]",
               "[\"\",\"0\",\"\",\"\",\"\"]", NULL);
    assert_int_equal(r.status, TLM_RR_OK);
    /* the list takes the dtype of the op's first tensor (double) */
    assert_int_equal(r.bytes, 2 * 6 * 8 + 8 + 0 + 4 * 8);
    r = check4("aten::mean", "[[16,559,1024],[],[],[]]",
               "[\"float\",\"ScalarList\",\"Scalar\",\"\"]",
               "[[572416,1024,1],[],[],[]]", "[\"\",\"[-1]\",\"True\",\"\"]",
               NULL);
    assert_int_equal(r.status, TLM_RR_OK);
    assert_non_null(strstr(r.json, "[null,[-1],true,null]"));
    r = check4("aten::all", "[]", "[]", "[]", "[]", NULL);
    assert_int_equal(r.status, TLM_RR_OK);
}

static void test_check_reasons(void **state)
{
    (void)state;
    const char *T1 = "[\"float\"]", *D1 = "[[4,4]]", *S1 = "[[4,1]]",
               *C1 = "[\"\"]";
    assert_int_equal(rc1(D1, T1, S1, C1), TLM_RR_OK);
    /* missing, malformed, lengths */
    assert_int_equal(rc1(NULL, T1, S1, C1), TLM_RR_MISSING_ARGS);
    assert_int_equal(rc1(D1, T1, S1, NULL), TLM_RR_MISSING_ARGS);
    assert_int_equal(rc1("5", T1, S1, C1), TLM_RR_BAD_ARGS);
    assert_int_equal(rc1("[[4,4]", T1, S1, C1), TLM_RR_BAD_ARGS);
    assert_int_equal(rc1(D1, "[5]", S1, C1), TLM_RR_BAD_ARGS);
    assert_int_equal(rc1(D1, T1, S1, "[1]"), TLM_RR_BAD_ARGS);
    assert_int_equal(rc1("[[[[[[[[[[1]]]]]]]]]]", T1, S1, C1),
                     TLM_RR_BAD_ARGS); /* deeper than 8 */
    assert_int_equal(rc1("[[4,4],[4]]", T1, S1, C1), TLM_RR_LENGTH_MISMATCH);
    assert_int_equal(rc1(D1, T1, "[]", C1), TLM_RR_LENGTH_MISMATCH);
    char d[1024], t[1024], s[1024], c[1024];
    strcpy(d, "[");
    strcpy(t, "[");
    strcpy(s, "[");
    strcpy(c, "[");
    for (int i = 0; i < 65; i++) {
        strcat(d, i ? ",[]" : "[]");
        strcat(t, i ? ",\"\"" : "\"\"");
        strcat(s, i ? ",[]" : "[]");
        strcat(c, i ? ",\"\"" : "\"\"");
    }
    strcat(d, "]");
    strcat(t, "]");
    strcat(s, "]");
    strcat(c, "]");
    assert_int_equal(rc1(d, t, s, c), TLM_RR_TOO_MANY_ARGS);
    /* dims and strides */
    assert_int_equal(rc1("[[-1,4]]", T1, S1, C1), TLM_RR_BAD_DIMS);
    assert_int_equal(rc1("[[4.0,4]]", T1, S1, C1), TLM_RR_BAD_DIMS);
    assert_int_equal(rc1("[[\"4\",4]]", T1, S1, C1), TLM_RR_BAD_DIMS);
    assert_int_equal(rc1("[[1099511627777,1]]", T1, S1, C1),
                     TLM_RR_BAD_DIMS); /* 2^40 + 1 */
    assert_int_equal(rc1("[[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]]", T1,
                         "[[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]]", C1),
                     TLM_RR_BAD_DIMS);
    assert_int_equal(rc1(D1, T1, "[[4,-1]]", C1), TLM_RR_BAD_STRIDES);
    assert_int_equal(rc1(D1, T1, "[[4,1,1]]", C1), TLM_RR_BAD_STRIDES);
    assert_int_equal(rc1(D1, T1, "[[281474976710657,1]]", C1),
                     TLM_RR_BAD_STRIDES); /* 2^48 + 1 */
    /* byte caps, overflow-checked */
    assert_int_equal(rc1("[[1000000000000]]", T1, "[[1]]", C1),
                     TLM_RR_TENSOR_TOO_LARGE);
    assert_int_equal(rc1("[[1099511627776,1099511627776,1099511627776]]", T1,
                         "[[281474976710656,281474976710656,"
                         "281474976710656]]", C1),
                     TLM_RR_TENSOR_TOO_LARGE);
    assert_int_equal(rc1("[[2,2]]", T1, "[[281474976710656,"
                                         "281474976710656]]", C1),
                     TLM_RR_TENSOR_TOO_LARGE);
    tlm_replay_opts o;
    tlm_replay_opts_init(&o);
    o.max_tensor_bytes = 64;
    assert_int_equal(check4("aten::mm", D1, T1, S1, C1, &o).status,
                     TLM_RR_OK); /* 64 bytes: at the cap */
    assert_int_equal(check4("aten::mm", "[[4,5]]", T1, "[[5,1]]", C1, &o)
                         .status, TLM_RR_TENSOR_TOO_LARGE);
    o.max_tensor_bytes = 0;
    o.max_op_bytes = 100;
    chk r = check4("aten::mm", "[[4,4],[4,4]]", "[\"float\",\"float\"]",
                   "[[4,1],[4,1]]", "[\"\",\"\"]", &o);
    assert_int_equal(r.status, TLM_RR_OP_TOO_LARGE);
    assert_int_equal(r.arg, 1);
    /* types and values */
    assert_int_equal(rc1("[[]]", "[\"str\"]", "[[]]", "[\"x\"]"),
                     TLM_RR_UNKNOWN_TYPE);
    assert_int_equal(rc1("[[]]", "[\"c10::BFloat16 \"]", "[[]]", C1),
                     TLM_RR_UNKNOWN_TYPE);
    assert_int_equal(rc1(D1, T1, S1, "[\"1\"]"), TLM_RR_TYPE_MISMATCH);
    assert_int_equal(rc1("[[]]", "[\"Scalar\"]", "[[]]", "[\"\"]"),
                     TLM_RR_TYPE_MISMATCH);
    assert_int_equal(rc1("[[]]", "[\"Scalar\"]", "[[]]", "[\"[1]\"]"),
                     TLM_RR_TYPE_MISMATCH);
    assert_int_equal(rc1("[[]]", "[\"ScalarList\"]", "[[]]", "[\"1\"]"),
                     TLM_RR_TYPE_MISMATCH);
    assert_int_equal(rc1("[[]]", "[\"\"]", "[[]]", "[\"1\"]"),
                     TLM_RR_TYPE_MISMATCH);
    assert_int_equal(rc1("[[2]]", "[\"Scalar\"]", "[[]]", "[\"1\"]"),
                     TLM_RR_TYPE_MISMATCH);
    assert_int_equal(rc1("[[]]", "[\"Scalar\"]", "[[]]",
                         "[\"__import__('os').system('touch X')\"]"),
                     TLM_RR_BAD_CONCRETE);
    assert_int_equal(rc1("[[]]", "[\"Scalar\"]", "[[]]", "[\"1_0\"]"),
                     TLM_RR_BAD_CONCRETE);
    assert_int_equal(rc1("[[]]", "[\"Scalar\"]", "[[]]", "[\"nan\"]"),
                     TLM_RR_NONFINITE);
    assert_int_equal(rc1("[[]]", "[\"Scalar\"]", "[[]]",
                         "[\"1000000000000\"]"),
                     TLM_RR_SCALAR_RANGE);
    assert_int_equal(rc1("[[]]", "[\"ScalarList\"]", "[[]]",
                         "[\"[100000, 100000, 100000]\"]"),
                     TLM_RR_SCALAR_RANGE);
    assert_int_equal(rc1("[[]]", "[\"TensorList\"]", "[[]]", C1),
                     TLM_RR_EMPTY_LIST);
    assert_int_equal(rc1("[[[2],[-2]]]", "[\"TensorList\"]", "[[[1],[1]]]",
                         C1),
                     TLM_RR_BAD_DIMS);
    /* name first, then args: a bad name wins */
    r = check4("evil::system", D1, T1, S1, "[\"1\"]", NULL);
    assert_int_equal(r.status, TLM_RR_NAMESPACE);
    assert_int_equal(r.arg, -1);
    /* every code has a text */
    for (int k = 0; k < TLM_RR_COUNT; k++) {
        assert_non_null(tlm_replay_reason_code((tlm_replay_reason)k));
        assert_non_null(tlm_replay_reason_desc((tlm_replay_reason)k));
    }
    assert_null(tlm_replay_reason_code(TLM_RR_COUNT));
}

/* A bad name is kept as printable ASCII, cut at 128 bytes. */
static void test_bad_name_kept(void **state)
{
    (void)state;
    char name[400];
    memset(name, 'x', sizeof name);
    memcpy(name, "\x1b[31m\n", 6);
    tlm_replay_op op;
    tlm_error err;
    assert_int_equal(tlm_replay_check(name, sizeof name, "[]", "[]", "[]",
                                      "[]", NULL, &op, &err),
                     TLM_OK);
    assert_int_equal(op.status, TLM_RR_BAD_OP_NAME);
    assert_int_equal(strlen(op.name), 128);
    assert_memory_equal(op.name, "?[31m?x", 7);
    tlm_replay_op_clear(&op);
}

/* ---------------------------------------------------------------- select */

#define SECRET "HF_TOKEN=hf_SECRETSECRET"

static const char *hostile_json(void)
{
    return "{'traceEvents':["
        "{'ph':'M','name':'process_name','pid':1,'tid':0,'args':{'name':"
        "'" SECRET "'}},"
        "{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':1,'tid':1,'ts':1,"
        "'dur':50,'args':{'Input Dims':[[64,32],[32,16]],"
        "'Input type':['float','float'],'Input Strides':[[32,1],[16,1]],"
        "'Concrete Inputs':['',''],'Call stack':'" SECRET "'}},"
        TR_RT("cudaLaunchKernel", 2, 1) ","
        TR_KER("sgemm", 10, 30, 1) ","
        "{'ph':'X','cat':'cpu_op','name':'evil::system','pid':1,'tid':1,"
        "'ts':100,'dur':20,'args':{'Input Dims':[[]],"
        "'Input type':['Scalar'],'Input Strides':[[]],"
        "'Concrete Inputs':['touch X']}},"
        TR_RT("cudaLaunchKernel", 101, 2) ","
        TR_KER("k2", 110, 4, 2) "],"
        "'metadata':{'env':'" SECRET "'}}";
}

static void test_select(void **state)
{
    (void)state;
    tr_fix f = tr_open(hostile_json(), NULL);
    tlm_replay_opts o;
    tlm_replay_opts_init(&o);
    tlm_replay_set *s = NULL;
    tlm_error err;
    assert_int_equal(tlm_replay_select(f.r, f.tr, "t.json", &o, &s, &err),
                     TLM_OK);
    assert_int_equal(tlm_replay_set_count(s), 2);
    size_t cnt[TLM_RR_COUNT];
    tlm_replay_set_tally(s, cnt);
    assert_int_equal(cnt[TLM_RR_OK], 1);
    assert_int_equal(cnt[TLM_RR_NAMESPACE], 1);
    const tlm_replay_op *mm = tlm_replay_set_op(s, 0);
    if (strcmp(mm->name, "aten::mm") != 0)
        mm = tlm_replay_set_op(s, 1);
    assert_string_equal(mm->name, "aten::mm");
    assert_int_equal(mm->uid, 1);
    assert_int_equal(mm->count, 1);
    assert_true(fabs(mm->kernel_us_mean - 30.0) < 1e-9);
    /* the IR: only what S9 allows */
    char *ir = NULL;
    size_t n = 0;
    assert_int_equal(tlm_replay_ir_json(s, &ir, &n), TLM_OK);
    assert_int_equal(strlen(ir), n);
    assert_null(strstr(ir, "SECRET"));
    assert_null(strstr(ir, "touch"));
    assert_null(strstr(ir, "sgemm"));
    tlm_pj_doc doc;
    size_t off;
    const char *what;
    assert_int_equal(tlm_pj_parse(ir, n, 32, &doc, &off, &what), TLM_OK);
    const tlm_pj_node *root = tlm_pj_node_at(&doc, doc.root);
    assert_int_equal(root->count, 2);
    assert_string_equal(tlm_pj_member(&doc, root, "format")->str,
                        "tlmpi.replay.v1");
    const tlm_pj_node *ops = tlm_pj_member(&doc, root, "ops");
    assert_int_equal(ops->count, 2);
    for (size_t i = 0; i < 2; i++) {
        const tlm_pj_node *op = tlm_pj_child(&doc, ops, i);
        assert_int_equal(op->count, 6);
        static const char *const keys[] = {"op_name", "count", "source",
                                           "trace_kernel_us_mean", "args",
                                           "status"};
        for (size_t k = 0; k < 6; k++)
            assert_non_null(tlm_pj_member(&doc, op, keys[k]));
        const tlm_pj_node *src = tlm_pj_member(&doc, op, "source");
        assert_string_equal(tlm_pj_member(&doc, src, "trace")->str,
                            "t.json");
        const char *st = tlm_pj_member(&doc, op, "status")->str;
        if (strcmp(st, "ok") != 0) {
            assert_string_equal(st, "namespace_not_allowed");
            assert_int_equal(tlm_pj_member(&doc, op, "args")->type,
                             TLM_PJ_NULL);
        }
    }
    tlm_pj_free(&doc);
    for (size_t i = 0; i < n; i++)
        assert_true((unsigned char)ir[i] < 0x7f);
    free(ir);
    char *md = NULL;
    assert_int_equal(tlm_replay_readme(s, &md, &n), TLM_OK);
    assert_non_null(strstr(md, "python3 -I tlmpi_replay.py"));
    assert_non_null(strstr(md, "`namespace_not_allowed` (1)"));
    assert_null(strstr(md, "SECRET"));
    free(md);
    tlm_replay_set_free(s);
    /* filter and top */
    o.filter = "^aten::";
    assert_int_equal(tlm_replay_select(f.r, f.tr, "t.json", &o, &s, &err),
                     TLM_OK);
    assert_int_equal(tlm_replay_set_count(s), 1);
    tlm_replay_set_free(s);
    o.filter = NULL;
    o.top = 1;
    assert_int_equal(tlm_replay_select(f.r, f.tr, "t.json", &o, &s, &err),
                     TLM_OK);
    assert_int_equal(tlm_replay_set_count(s), 1);
    assert_string_equal(tlm_replay_set_op(s, 0)->name, "aten::mm");
    tlm_replay_set_free(s);
    o.top = 0;
    o.filter = "[";
    assert_int_equal(tlm_replay_select(f.r, f.tr, "t.json", &o, &s, &err),
                     TLM_EINVAL);
    assert_null(s);
    tr_close(&f);
}

/* ---------------------------------------------------------------- sha256 */

static void test_sha256(void **state)
{
    (void)state;
    char hex[65];
    tlm_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
                             "b00361a396177a9cb410ff61f20015ad");
    tlm_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb924"
                             "27ae41e4649b934ca495991b7852b855");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    tlm_sha256_hex(m, strlen(m), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039"
                             "a33ce45964ff2167f6ecedd419db06c1");
    const char *m2 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                     "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    tlm_sha256_hex(m2, strlen(m2), hex);
    assert_string_equal(hex, "cf5b16a778af8380036ce59e7b049237"
                             "0b249b11e8f07a51afac45037afee9d1");
    char *a = malloc(1000000);
    assert_non_null(a);
    memset(a, 'a', 1000000);
    tlm_sha256_hex(a, 1000000, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
                             "f1809a48a497200e046d39ccc7112cd0");
    free(a);
    /* every length around the padding boundary differs */
    char prev[65] = "";
    for (size_t k = 50; k < 70; k++) {
        tlm_sha256_hex(m2, k, hex);
        assert_string_not_equal(hex, prev);
        memcpy(prev, hex, sizeof hex);
    }
}

/* ---------------------------------------------------------------- tar */

static void test_targz(void **state)
{
    (void)state;
    char path[] = "/tmp/tlm_test_replay_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    tlm_tar_member m[2] = {{"a.json", "{}\n", 3, 0},
                           {"run.py", "print()\n", 8, 1}};
    tlm_error err;
    assert_int_equal(tlm_targz_write(path, m, 2, &err), TLM_OK);
    gzFile g = gzopen(path, "rb");
    assert_non_null(g);
    unsigned char buf[4096];
    int n = gzread(g, buf, sizeof buf);
    gzclose(g);
    assert_int_equal(n, 512 * 4 + 1024);
    assert_string_equal((char *)buf, "a.json");
    assert_memory_equal(buf + 100, "0000644", 7);
    assert_memory_equal(buf + 124, "00000000003", 11);
    assert_memory_equal(buf + 136, "00000000000", 11); /* mtime 0 */
    assert_memory_equal(buf + 257, "ustar", 6);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += i >= 148 && i < 156 ? ' ' : buf[i];
    assert_int_equal(strtoul((char *)buf + 148, NULL, 8), sum);
    assert_memory_equal(buf + 512, "{}\n", 3);
    assert_string_equal((char *)buf + 1024, "run.py");
    assert_memory_equal(buf + 1024 + 100, "0000755", 7);
    assert_memory_equal(buf + 1536, "print()\n", 8);
    for (int i = 2048; i < n; i++)
        assert_int_equal(buf[i], 0);
    /* same input, same bytes */
    FILE *f = fopen(path, "rb");
    unsigned char one[4096], two[4096];
    size_t l1 = fread(one, 1, sizeof one, f);
    fclose(f);
    assert_int_equal(tlm_targz_write(path, m, 2, &err), TLM_OK);
    f = fopen(path, "rb");
    size_t l2 = fread(two, 1, sizeof two, f);
    fclose(f);
    assert_int_equal(l1, l2);
    assert_memory_equal(one, two, l1);
    /* member names never from elsewhere than a fixed list */
    const char *bad[] = {"../x", "/etc/passwd", "a/b", ".hidden", "", "a b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tlm_tar_member b = {bad[i], "x", 1, 0};
        assert_int_equal(tlm_targz_write(path, &b, 1, &err), TLM_EINVAL);
    }
    unlink(path);
    assert_int_equal(tlm_targz_write("/nonexistent/dir/x.tar.gz", m, 2,
                                     &err), TLM_EIO);
}

/* ---------------------------------------------------------------- runner */

static void test_runner_embedded(void **state)
{
    (void)state;
    const char *src = getenv("TLM_SOURCE_DIR");
    if (!src)
        skip();
    char path[4096];
    snprintf(path, sizeof path, "%s/scripts/tlmpi_replay.py", src);
    char *want = tr_text(path);
    size_t n = 0;
    const char *have = tlm_replay_runner(&n);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(have, want, n);
    assert_int_equal(have[n], '\0');
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_namespaces),
        cmocka_unit_test(test_concrete),
        cmocka_unit_test(test_check_ok),
        cmocka_unit_test(test_check_reasons),
        cmocka_unit_test(test_bad_name_kept),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_sha256),
        cmocka_unit_test(test_targz),
        cmocka_unit_test(test_runner_embedded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
