/*
 * test_coll_records.c - extraction of collective records from small JSON
 * traces of each schema generation (read with tlm_trace_read_mem), then
 * end-to-end matching of several such traces; and, when the shared real
 * traces are present (TLM_SHARED_DIR), conformance checks on them.
 *
 * Generations:
 *   - named keys on the kernel (PyTorch >= 2.4), no seq: ordinal;
 *     p2p with Src/Dst Rank, all_to_allv split sizes, wait ops, a kernel
 *     launched before the window, two kernels of one CPU op;
 *   - 2.2-era: record_param_comms "Concrete Inputs" seq, kernel External id
 *     == correlation, link through the launch, type from nccl:* title;
 *   - "Seq" key (2026 kineto) and a ROCm-style kernel without metadata
 *     whose hipExtLaunchKernel carries the op's External id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm_test_util.h"
#include "tlmpi/tlm_coll.h"
#include "tlmpi/tlm_trace.h"

static tlm_trace *read_json(const char *json)
{
    tlm_trace *t = NULL;
    tlm_error e;
    tlm_status st = tlm_trace_read_mem(json, strlen(json), "test.json", NULL,
                                       &t, &e);
    if (st != TLM_OK) {
        char b[1024];
        print_error("read: %s\n", tlm_error_format(&e, b, sizeof b));
    }
    assert_int_equal(st, TLM_OK);
    assert_non_null(t);
    return t;
}

static size_t extract(const char *json, int32_t rank, tlm_coll_record **out,
                      tlm_coll_extract_stats *st)
{
    tlm_trace *t = read_json(json);
    tlm_coll_extract_opts o;
    tlm_coll_extract_opts_init(&o);
    o.trace_rank = rank;
    size_t n = 0;
    assert_int_equal(tlm_coll_extract(t, &o, out, &n, st, NULL), TLM_OK);
    tlm_trace_free(t);
    return n;
}

static const tlm_coll_record *by_kernel(const tlm_coll_record *r, size_t n,
                                        const char *prefix, int nth)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(r[i].kernel, prefix, strlen(prefix)) == 0 && nth-- == 0)
            return &r[i];
    fail_msg("no kernel %s", prefix);
    return NULL;
}

/* MARK: - named keys on the kernel, no seq */

#define KMETA_ALLREDUCE                                                   \
    "\"Collective name\":\"allreduce\",\"In msg nelems\":1000,"          \
    "\"Out msg nelems\":1000,\"Group size\":4,\"dtype\":\"BFloat16\","   \
    "\"In split size\":\"[]\",\"Out split size\":\"[]\","                \
    "\"Process Group Name\":\"0\",\"Process Group Description\":"        \
    "\"default_pg\",\"Process Group Ranks\":\"[0, 1, 2, 3]\""

static const char *named_trace =
    "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":1,\"world_size\":4,"
    "\"pg_count\":1,\"pg_config\":[{\"pg_name\":\"0\",\"pg_desc\":"
    "\"default_pg\",\"backend_config\":\"cuda:nccl\",\"pg_size\":4,"
    "\"ranks\":[0,1,2,3]}]},"
    "\"baseTimeNanoseconds\":1711964646000000000,"
    "\"traceEvents\":["
    /* a kernel launched before the window: no External id, no launch */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_"
    "RING_LL(ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,\"tid\":7,"
    "\"ts\":50.0,\"dur\":4,\"args\":{\"stream\":7,\"correlation\":1}},"
    /* allreduce: op, launch, kernel with metadata */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":10,\"tid\":11,\"ts\":100.0,\"dur\":20,\"args\":{"
    "\"External id\":5,\"Rank\":1," KMETA_ALLREDUCE "}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
    "\"pid\":10,\"tid\":11,\"ts\":110,\"dur\":5,\"args\":{\"External id\":5,"
    "\"correlation\":900}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_"
    "bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\",\"pid\":0,"
    "\"tid\":7,\"ts\":200.5,\"dur\":30.25,\"args\":{\"External id\":5,"
    "\"correlation\":900,\"stream\":7," KMETA_ALLREDUCE "}},"
    /* the wait of it */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":10,\"tid\":11,\"ts\":240.0,\"dur\":2,\"args\":{"
    "\"External id\":6,\"Collective name\":\"wait\",\"dtype\":\"Byte\","
    "\"In msg nelems\":0,\"Out msg nelems\":0,\"Group size\":1,"
    "\"Process Group Ranks\":\"[]\"}},"
    /* all_to_allv: 4096-wide rows, splits in rows; two kernels */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":10,\"tid\":11,\"ts\":300.0,\"dur\":20,\"args\":{"
    "\"External id\":8,\"Collective name\":\"all_to_allv\"}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv("
    "ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,\"tid\":7,\"ts\":400,"
    "\"dur\":10,\"args\":{\"External id\":8,\"correlation\":901,"
    "\"stream\":7,\"Collective name\":\"all_to_allv\",\"In msg nelems\":"
    "40960,\"Out msg nelems\":32768,\"Group size\":4,\"dtype\":"
    "\"Float8_e4m3fn\",\"In split size\":\"[1, 2, 3, 4]\",\"Out split "
    "size\":\"[2, 2, 2, 2]\",\"Process Group Name\":\"0\","
    "\"Process Group Ranks\":\"[0, 1, 2, 3]\"}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv("
    "ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,\"tid\":7,\"ts\":411,"
    "\"dur\":6,\"args\":{\"External id\":8,\"correlation\":902,"
    "\"stream\":7}},"
    /* p2p: send to 3, recv from 0 */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv("
    "ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,\"tid\":9,\"ts\":500,"
    "\"dur\":3,\"args\":{\"External id\":20,\"correlation\":903,"
    "\"stream\":9,\"Collective name\":\"send\",\"In msg nelems\":256,"
    "\"Out msg nelems\":256,\"Group size\":4,\"dtype\":\"Float\","
    "\"Process Group Name\":\"0\",\"Dst Rank\":3}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv("
    "ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,\"tid\":9,\"ts\":510,"
    "\"dur\":3,\"args\":{\"External id\":21,\"correlation\":904,"
    "\"stream\":9,\"Collective name\":\"recv\",\"In msg nelems\":128,"
    "\"Out msg nelems\":128,\"Group size\":4,\"dtype\":\"Float\","
    "\"Process Group Name\":\"0\",\"Src Rank\":0}},"
    /* not a collective */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm_kernel<float>()\","
    "\"pid\":0,\"tid\":7,\"ts\":600,\"dur\":3,\"args\":{\"correlation\":"
    "905}}"
    "]}";

static void test_named_keys(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    tlm_coll_extract_stats st;
    size_t n = extract(named_trace, -1, &r, &st);
    assert_int_equal(n, 6);
    assert_int_equal(st.n_kernels, 6);
    assert_int_equal(st.n_wait_skipped, 1);
    assert_int_equal(st.n_meta_none, 1);
    assert_int_equal(st.n_p2p, 2);
    assert_int_equal(st.n_multi_part, 1);
    const int64_t base = 1711964646000000000LL;

    const tlm_coll_record *pre = by_kernel(r, n, "ncclDevKernel_AllGather",
                                           0);
    assert_int_equal(pre->meta_src, TLM_COLL_META_NONE);
    assert_int_equal(pre->coll, TLM_COLL_ALLGATHER);
    assert_string_equal(pre->pg_name, "unknown/stream7");
    assert_true(pre->flags & TLM_COLL_REC_PG_SYNTH);
    assert_int_equal(pre->seq_src, TLM_COLL_SEQ_ORDINAL);
    assert_int_equal(pre->seq, 0);
    assert_int_equal(pre->bytes, -1);
    assert_true(pre->flags & TLM_COLL_REC_TL_KEPT);
    assert_false(pre->flags & TLM_COLL_REC_KMETA);

    const tlm_coll_record *ar = by_kernel(r, n, "ncclDevKernel_AllReduce",
                                          0);
    assert_int_equal(ar->trace_rank, 1); /* distributedInfo.rank */
    assert_int_equal(ar->meta_src, TLM_COLL_META_KERNEL);
    assert_int_equal(ar->flags & (TLM_COLL_REC_KMETA | TLM_COLL_REC_KPG |
                                  TLM_COLL_REC_TL_KEPT),
                     TLM_COLL_REC_KMETA | TLM_COLL_REC_KPG |
                         TLM_COLL_REC_TL_KEPT);
    assert_int_equal(ar->coll, TLM_COLL_ALLREDUCE);
    assert_string_equal(ar->coll_name, "allreduce");
    assert_int_equal(ar->dtype, TLM_DTYPE_BFLOAT16);
    assert_int_equal(ar->in_nelems, 1000);
    assert_int_equal(ar->bytes, 2000);
    assert_int_equal(ar->group_size, 4);
    assert_string_equal(ar->pg_name, "0");
    assert_string_equal(ar->pg_desc, "default_pg");
    assert_string_equal(ar->pg_ranks_text, "[0, 1, 2, 3]");
    assert_int_equal(ar->pg_rank_start, 0);
    assert_int_equal(ar->pg_rank_stride, 1);
    assert_int_equal(ar->pg_ranks_n, 4);
    assert_int_equal(ar->local_rank, 1);
    assert_int_equal(ar->ts_ns, 200500);
    assert_int_equal(ar->start_ns, base + 200500);
    assert_int_equal(ar->dur_ns, 30250);
    assert_int_equal(ar->cpu_ts_ns, base + 100000);
    assert_int_equal(ar->stream, 7);
    assert_string_equal(ar->algo, "RING_LL");
    assert_int_equal(ar->seq_src, TLM_COLL_SEQ_ORDINAL);
    assert_int_equal(ar->seq, 0);
    assert_true(ar->link_id >= 0);

    const tlm_coll_record *a0 = by_kernel(r, n, "ncclDevKernel_SendRecv", 0);
    const tlm_coll_record *a1 = by_kernel(r, n, "ncclDevKernel_SendRecv", 1);
    /* no description in the args: pg_config's pg_desc of group "0"; none
     * for a synthesized group */
    assert_string_equal(a0->pg_desc, "default_pg");
    assert_string_equal(pre->pg_desc, "");
    assert_int_equal(a0->coll, TLM_COLL_ALLTOALLV);
    assert_int_equal(a0->kname_coll, TLM_COLL_SENDRECV);
    assert_int_equal(a0->part, 0);
    assert_int_equal(a1->part, 1);
    assert_int_equal(a1->seq, a0->seq);
    assert_int_equal(a1->link_id, a0->link_id);
    /* second kernel: metadata from the op (External id) */
    assert_int_equal(a1->meta_src, TLM_COLL_META_EXTID);
    assert_int_equal(a1->coll, TLM_COLL_ALLTOALLV);
    /* rows of 40960 / 10 = 4096 elements x 1 byte; self = local rank 1 */
    assert_int_equal(a0->send_bytes, (1 + 3 + 4) * 4096);
    assert_int_equal(a0->max_peer_send_bytes, 4 * 4096);
    assert_int_equal(a0->recv_bytes, 6 * 4096);
    assert_int_equal(a0->max_peer_recv_bytes, 2 * 4096);
    assert_string_equal(a0->in_split, "[1, 2, 3, 4]");

    const tlm_coll_record *snd = by_kernel(r, n, "ncclDevKernel_SendRecv",
                                           2);
    const tlm_coll_record *rcv = by_kernel(r, n, "ncclDevKernel_SendRecv",
                                           3);
    assert_int_equal(snd->coll, TLM_COLL_SEND);
    assert_int_equal(snd->peer, 3);
    assert_int_equal(snd->seq_src, TLM_COLL_SEQ_P2P);
    assert_int_equal(snd->send_bytes, 1024);
    assert_int_equal(snd->bytes, 1024);
    assert_int_equal(rcv->coll, TLM_COLL_RECV);
    assert_int_equal(rcv->peer, 0);
    assert_int_equal(rcv->recv_bytes, 512);
    assert_true(snd->match_key != rcv->match_key);
    assert_int_equal(snd->seq, 0);
    assert_int_equal(rcv->seq, 0);
    /* owner keys: the whole ordinal group on one owner */
    assert_true(tlm_coll_record_owner_key(ar) ==
                tlm_coll_record_owner_key(a0));
    tlm_coll_tl_vote v = {0, 0};
    tlm_coll_tl_vote_records(r, n, &v);
    assert_int_equal(v.any_pg, 1);
    assert_int_equal(v.multi_stream, 1);
    /* nccl_summary_long (test_coll_tl.c) keeps the kernels that carry
     * split sizes: the allreduce's "[]", not the send's */
    assert_string_equal(ar->in_split, "[]");
    assert_string_equal(snd->in_split, "");
    tlm_coll_free(NULL, r);
}

/* MARK: - 2.2-era: Concrete Inputs */

static const char *concrete_trace =
    "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,"
    "\"world_size\":8},\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::allreduce_\","
    "\"pid\":1,\"tid\":2590092,\"ts\":1706850122862310,\"dur\":126,"
    "\"args\":{\"External id\":93,\"Concrete Inputs\":[\"\",\"\",\"\",\"\","
    "\"-1\"]}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":1,\"tid\":2590092,\"ts\":1706850122862325,\"dur\":88,"
    "\"args\":{\"External id\":94,\"Concrete Inputs\":[\"\",\"337\","
    "\"93825114103440\",\"0\",\"\",\"[]\",\"[]\",\"8\"],\"Input type\":["
    "\"TensorList\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"ScalarList\","
    "\"ScalarList\",\"Scalar\"],\"Input Dims\":[[[4,2048,4096]],[],[],[],"
    "[],[],[],[]]}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\","
    "\"pid\":1,\"tid\":2590092,\"ts\":1706850122862342,\"dur\":61,"
    "\"args\":{\"External id\":95,\"Input type\":[\"c10::Half\"],"
    "\"Input Dims\":[[4,2048,4096]]}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
    "\"pid\":1,\"tid\":2590092,\"ts\":1706850122862350,\"dur\":10,"
    "\"args\":{\"External id\":95,\"correlation\":54777}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_"
    "Sum_f16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\",\"pid\":0,"
    "\"tid\":24,\"ts\":1706850122862403,\"dur\":662,\"args\":{"
    "\"External id\":54777,\"stream\":24,\"correlation\":54777}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":1,\"tid\":2590092,\"ts\":1706850122862449,\"dur\":37,"
    "\"args\":{\"External id\":96,\"Concrete Inputs\":[\"337\",\"0\",\"0\","
    "\"\",\"[]\",\"[]\",\"1\"],\"Input type\":[\"Scalar\",\"Scalar\","
    "\"Scalar\",\"\",\"ScalarList\",\"ScalarList\",\"Scalar\"]}}"
    "]}";

/* A hostile "Process Group Description": control characters become '?',
 * a description longer than the field is cut before a split UTF-8
 * character. */
static void test_pg_desc_hostile(void **state)
{
    (void)state;
    static const char *t =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_"
        "Sum_bf16_RING_LL(x)\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":3,"
        "\"args\":{\"stream\":7,\"Collective name\":\"allreduce\","
        "\"In msg nelems\":8,\"Out msg nelems\":8,\"Group size\":2,"
        "\"dtype\":\"Float\",\"Process Group Name\":\"5\","
        "\"Process Group Description\":\"TP\\n|\\u0001x\"}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_"
        "Sum_bf16_RING_LL(x)\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":3,"
        "\"args\":{\"stream\":7,\"Collective name\":\"allreduce\","
        "\"In msg nelems\":8,\"Out msg nelems\":8,\"Group size\":2,"
        "\"dtype\":\"Float\",\"Process Group Name\":\"6\","
        "\"Process Group Description\":"
        "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\u00e9\"}}]}";
    tlm_coll_record *r = NULL;
    tlm_coll_extract_stats st;
    size_t n = extract(t, 0, &r, &st);
    assert_int_equal(n, 2);
    int i5 = strcmp(r[0].pg_name, "5") == 0 ? 0 : 1;
    assert_string_equal(r[i5].pg_name, "5");
    assert_string_equal(r[i5].pg_desc, "TP?|?x");
    /* 30 'a' and the 2 bytes of e-acute do not fit 31: the 'a's only */
    assert_string_equal(r[1 - i5].pg_desc,
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    tlm_coll_free(NULL, r);
}

static void test_concrete_inputs(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    tlm_coll_extract_stats st;
    size_t n = extract(concrete_trace, 3, &r, &st);
    assert_int_equal(n, 1);
    assert_int_equal(st.n_wait_skipped, 1);
    assert_int_equal(st.n_meta_launch, 1);
    assert_int_equal(st.n_seq_concrete, 1);
    const tlm_coll_record *k = &r[0];
    assert_int_equal(k->meta_src, TLM_COLL_META_LAUNCH);
    assert_int_equal(k->seq_src, TLM_COLL_SEQ_CONCRETE);
    assert_int_equal(k->seq, 337);
    assert_int_equal(k->coll, TLM_COLL_ALLREDUCE);
    assert_int_equal(k->dtype, TLM_DTYPE_HALF);
    assert_int_equal(k->in_nelems, 4LL * 2048 * 4096);
    assert_int_equal(k->out_nelems, 4LL * 2048 * 4096);
    assert_int_equal(k->bytes, 2LL * 4 * 2048 * 4096);
    assert_int_equal(k->group_size, 8);
    assert_string_equal(k->pg_name, "size8");
    assert_true(k->flags & TLM_COLL_REC_PG_SYNTH);
    /* the world: a PG as large as the job */
    assert_int_equal(k->pg_ranks_n, 8);
    assert_int_equal(k->local_rank, 3);
    assert_int_equal(k->start_ns, 1706850122862403000LL);
    assert_int_equal(k->dur_ns, 662000);
    assert_int_equal(k->cpu_ts_ns, 1706850122862325000LL);
    assert_false(k->flags & TLM_COLL_REC_KMETA);
    assert_int_equal(k->trace_rank, 3);
    /* seq-carrying: owner by (key, seq) */
    tlm_coll_record k2 = *k;
    k2.seq = 338;
    assert_true(tlm_coll_record_owner_key(k) !=
                tlm_coll_record_owner_key(&k2));
    tlm_coll_free(NULL, r);
}

/* Apr 2024 builds: 10-entry Concrete Inputs with global rank start and
 * stride, no PG name: two disjoint groups of size 4 with the same seq stay
 * apart (the member list enters the match key). */
static char *concrete10_trace(int rank, int grs)
{
    char *s = malloc(4096);
    assert_non_null(s);
    snprintf(s, 4096,
             "{\"distributedInfo\":{\"rank\":%d,\"world_size\":8},"
             "\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
             "\"record_param_comms\",\"pid\":1,\"tid\":2,\"ts\":10,"
             "\"dur\":50,\"args\":{\"External id\":7,\"Record function "
             "id\":0,\"Concrete Inputs\":[\"\",\"33\",\"\",\"%d\",\"\","
             "\"[]\",\"[]\",\"%d\",\"1\",\"4\"],\"Input type\":["
             "\"TensorList\",\"Scalar\",\"\",\"Scalar\",\"\","
             "\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\","
             "\"Scalar\"],\"Input Dims\":[[[64]],[],[],[],[],[],[],[],[],"
             "[]]}},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
             "\"nccl:all_reduce\",\"pid\":1,\"tid\":2,\"ts\":12,"
             "\"dur\":40,\"args\":{\"Input type\":[\"float\"]}},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
             "\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":20,"
             "\"dur\":5,\"args\":{\"correlation\":77}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
             "\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\",\"pid\":0,"
             "\"tid\":7,\"ts\":30,\"dur\":9,\"args\":{\"External id\":"
             "77,\"correlation\":77,\"stream\":7}}]}",
             rank, rank - grs, grs);
    return s;
}

static void test_concrete10_groups(void **state)
{
    (void)state;
    tlm_coll_record all[8];
    for (int k = 0; k < 8; k++) {
        char *js = concrete10_trace(k, k < 4 ? 0 : 4);
        tlm_coll_record *r = NULL;
        size_t n = extract(js, -1, &r, NULL);
        free(js);
        assert_int_equal(n, 1);
        assert_int_equal(r[0].seq_src, TLM_COLL_SEQ_CONCRETE);
        assert_int_equal(r[0].seq, 33);
        assert_int_equal(r[0].group_size, 4);
        assert_string_equal(r[0].pg_name, "size4");
        assert_int_equal(r[0].pg_rank_start, k < 4 ? 0 : 4);
        assert_int_equal(r[0].local_rank, k % 4);
        assert_int_equal(r[0].dtype, TLM_DTYPE_FLOAT);
        assert_int_equal(r[0].bytes, 256);
        all[k] = r[0];
        tlm_coll_free(NULL, r);
    }
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(all, 8, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(res.inst[i].n_members, 4);
        assert_int_equal(res.inst[i].flags & (TLM_COLL_INST_INCOMPLETE |
                                              TLM_COLL_INST_OVERFULL),
                         0);
    }
    tlm_coll_match_result_free(&res);
}

/* One 10-entry-era op: record_param_comms > annotation > launch, then
 * its kernel; ts in us, correlation = id. */
static int concrete10_op(char *s, size_t cap, int ts, int id, int seq,
                         int local, int grs, int stride, int size,
                         const char *ann, const char *kernel)
{
    return snprintf(
        s, cap,
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
        "\"record_param_comms\",\"pid\":1,\"tid\":2,\"ts\":%d,"
        "\"dur\":50,\"args\":{\"External id\":%d,\"Concrete Inputs\":"
        "[\"\",\"%d\",\"\",\"%d\",\"\",\"[]\",\"[]\",\"%d\",\"%d\","
        "\"%d\"],\"Input Dims\":[[[64]],[],[],[],[],[],[],[],[],[]]}},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"%s\","
        "\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":40,\"args\":{"
        "\"Input type\":[\"long int\"],\"Input Dims\":[[64]]}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
        "\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":%d,"
        "\"dur\":5,\"args\":{\"correlation\":%d}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,"
        "\"tid\":7,\"ts\":%d,\"dur\":9,\"args\":{\"External id\":%d,"
        "\"correlation\":%d,\"stream\":7}}",
        ts, id, seq, local, grs, stride, size, ann, ts + 2, ts + 10, id + 50,
        kernel, ts + 20, id + 50, id + 50);
}

/* Strided groups of one size ({0,2,4,6} and {1,3,5,7}, stride 2) stay
 * apart by their global rank start; a p2p pair over the same ranks as a
 * collective group ({0,4}: start 0, stride 4, size 2, same seq) keeps its
 * own key; the element size comes from the annotation's TypeMeta name
 * ("long int"). */
static void test_concrete10_strided_p2p(void **state)
{
    (void)state;
    tlm_coll_record all[16];
    size_t na = 0;
    for (int k = 0; k < 8; k++) {
        char js[4096];
        int n = snprintf(js, sizeof js,
                         "{\"distributedInfo\":{\"rank\":%d,"
                         "\"world_size\":8},\"traceEvents\":[", k);
        n += concrete10_op(js + n, sizeof js - (size_t)n, 10, 7, 33, k / 2,
                           k % 2, 2, 4, "nccl:all_reduce",
                           "ncclDevKernel_AllReduce_Sum_i64_RING_LL(x)");
        if (k == 0 || k == 4) {
            n += snprintf(js + n, sizeof js - (size_t)n, ",");
            n += concrete10_op(js + n, sizeof js - (size_t)n, 200, 8, 5,
                               k / 4, 0, 4, 2, "nccl:all_reduce",
                               "ncclDevKernel_AllReduce_Sum_i64_RING_LL(x)");
            n += snprintf(js + n, sizeof js - (size_t)n, ",");
            n += concrete10_op(js + n, sizeof js - (size_t)n, 400, 9, 5,
                               k / 4, 0, 4, 2,
                               k ? "nccl:recv" : "nccl:send",
                               "ncclDevKernel_SendRecv(x)");
        }
        assert_true(n > 0 && (size_t)n + 3 < sizeof js);
        snprintf(js + n, sizeof js - (size_t)n, "]}");
        tlm_coll_record *r = NULL;
        size_t nr = extract(js, -1, &r, NULL);
        assert_int_equal(nr, (k == 0 || k == 4) ? 3 : 1);
        for (size_t i = 0; i < nr; i++) {
            assert_int_equal(r[i].seq_src, TLM_COLL_SEQ_CONCRETE);
            assert_int_equal(r[i].dtype, TLM_DTYPE_LONG);
            assert_int_equal(r[i].bytes, 64 * 8);
        }
        assert_int_equal(r[0].pg_rank_start, k % 2);
        assert_int_equal(r[0].pg_rank_stride, 2);
        assert_int_equal(r[0].local_rank, k / 2);
        if (nr == 3) {
            assert_int_equal(r[1].pg_rank_stride, 4);
            assert_int_equal(r[2].pg_rank_stride, 4);
            assert_int_equal(r[1].seq, r[2].seq);
            assert_true(r[1].match_key != r[2].match_key);
            assert_int_equal(r[2].coll, k ? TLM_COLL_RECV : TLM_COLL_SEND);
        }
        for (size_t i = 0; i < nr; i++)
            all[na++] = r[i];
        tlm_coll_free(NULL, r);
    }
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(all, na, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 4);
    assert_int_equal(res.n_unm, 0);
    int n4 = 0, n2 = 0;
    for (size_t i = 0; i < res.n_inst; i++) {
        assert_int_equal(res.inst[i].flags & (TLM_COLL_INST_INCOMPLETE |
                                              TLM_COLL_INST_OVERFULL),
                         0);
        n4 += res.inst[i].n_members == 4;
        n2 += res.inst[i].n_members == 2;
    }
    assert_int_equal(n4, 2);
    assert_int_equal(n2, 2);
    tlm_coll_match_result_free(&res);
}

/* MARK: - Seq key, ROCm launch link */

static const char *seq_trace =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":5,\"tid\":6,\"ts\":10.0,\"dur\":5,\"args\":{\"External id\":"
    "70,\"Collective name\":\"_allgather_base\",\"In msg nelems\":100,"
    "\"Out msg nelems\":800,\"Group size\":8,\"dtype\":\"Float8_e5m2\","
    "\"Process Group Name\":\"3\",\"Process Group Ranks\":\"[0, 2, 4, 6, "
    "8, 10, 12, 14]\",\"Seq\":4242}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_"
    "RING_LL(ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,\"tid\":7,"
    "\"ts\":20.0,\"dur\":4,\"args\":{\"External id\":70,\"correlation\":71,"
    "\"stream\":7,\"Collective name\":\"_allgather_base\",\"In msg "
    "nelems\":100,\"Out msg nelems\":800,\"Group size\":8,\"dtype\":"
    "\"Float8_e5m2\",\"Process Group Name\":\"3\",\"Process Group Ranks\":"
    "\"[0, 2, 4, 6, 8, 10, 12, 14]\",\"Seq\":4242}},"
    /* ROCm: the kernel has no metadata and no External id; its launch (on
     * another thread than the op) has the op's External id */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":5,\"tid\":6,\"ts\":30.0,\"dur\":2,\"args\":{\"External id\":"
    "1290,\"Collective name\":\"allreduce\",\"In msg nelems\":2873320,"
    "\"Out msg nelems\":2873320,\"Group size\":8,\"dtype\":\"BFloat16\","
    "\"Process Group Name\":\"0\",\"Process Group Ranks\":\"[0, 1, 2, 3, "
    "4, 5, 6, 7]\"}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipExtLaunchKernel\","
    "\"pid\":5,\"tid\":99,\"ts\":40.0,\"dur\":2,\"args\":{\"External id\":"
    "1290,\"correlation\":5183}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Generic("
    "ncclDevKernelArgsStorage<4096ul>)\",\"pid\":2,\"tid\":4,\"ts\":50.0,"
    "\"dur\":14.319,\"args\":{\"device\":2,\"stream\":4,\"correlation\":"
    "5183,\"kind\":\"Dispatch Kernel\"}}"
    "]}";

static void test_seq_key_and_rocm(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    tlm_coll_extract_stats st;
    size_t n = extract(seq_trace, 4, &r, &st);
    assert_int_equal(n, 2);
    assert_int_equal(st.n_seq_trace, 1);
    const tlm_coll_record *ag = &r[0], *gen = &r[1];
    assert_int_equal(ag->seq_src, TLM_COLL_SEQ_TRACE);
    assert_int_equal(ag->seq, 4242);
    assert_int_equal(ag->coll, TLM_COLL_ALLGATHER);
    assert_int_equal(ag->dtype, TLM_DTYPE_FLOAT8_E5M2);
    assert_int_equal(ag->bytes, 800); /* allgather: out bytes */
    assert_int_equal(ag->pg_rank_start, 0);
    assert_int_equal(ag->pg_rank_stride, 2);
    assert_int_equal(ag->local_rank, 2);
    assert_int_equal(gen->meta_src, TLM_COLL_META_EXTID);
    assert_int_equal(gen->kname_coll, TLM_COLL_UNKNOWN);
    assert_int_equal(gen->coll, TLM_COLL_ALLREDUCE);
    assert_int_equal(gen->in_nelems, 2873320);
    assert_string_equal(gen->pg_name, "0");
    assert_false(gen->flags & TLM_COLL_REC_KMETA);
    assert_false(gen->flags & TLM_COLL_REC_KPG);
    assert_int_equal(gen->seq_src, TLM_COLL_SEQ_ORDINAL);
    assert_int_equal(gen->dur_ns, 14319);
    tlm_coll_tl_vote v = {0, 0};
    tlm_coll_tl_vote_records(r, n, &v);
    assert_int_equal(v.any_pg, 1);
    assert_int_equal(v.multi_stream, 1);
    tlm_coll_free(NULL, r);
}

/* MARK: - several traces end to end */

/* One rank's trace: allreduces at 1 ms intervals, from collective `from`
 * to `to` (exclusive), rank r arriving r * 10 us late, all ending at
 * the same time. */
static char *rank_trace(int rank, int from, int to)
{
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len,
                            "{\"distributedInfo\":{\"rank\":%d,"
                            "\"world_size\":3},\"traceEvents\":[",
                            rank);
    for (int c = from; c < to; c++) {
        double ts = 1000.0 * c + 10.0 * rank;
        double dur = 100.0 - 10.0 * rank;
        int64_t ne = (c % 3) ? 1024 : 4096;
        len += (size_t)snprintf(
            s + len, cap - len,
            "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_"
            "AllReduce_Sum_f32_RING_LL(x)\",\"pid\":0,\"tid\":7,\"ts\":%.3f,"
            "\"dur\":%.3f,\"args\":{\"External id\":%d,\"correlation\":%d,"
            "\"stream\":7,\"Collective name\":\"allreduce\",\"In msg "
            "nelems\":%lld,\"Out msg nelems\":%lld,\"Group size\":3,"
            "\"dtype\":\"Float\",\"Process Group Name\":\"0\","
            "\"Process Group Ranks\":\"[0, 1, 2]\"}}",
            c == from ? "" : ",", ts, dur, 1000 + c, 5000 + c,
            (long long)ne, (long long)ne);
        assert_true(len < cap - 512);
    }
    len += (size_t)snprintf(s + len, cap - len, "]}");
    return s;
}

static void test_multi_trace_clipped(void **state)
{
    (void)state;
    /* rank 1 misses the first 2 collectives, rank 2 the last one */
    static const int win[3][2] = {{0, 12}, {2, 12}, {0, 11}};
    tlm_coll_record *all = NULL;
    size_t nall = 0;
    for (int k = 0; k < 3; k++) {
        char *js = rank_trace(k, win[k][0], win[k][1]);
        tlm_coll_record *r = NULL;
        size_t n = extract(js, -1, &r, NULL);
        free(js);
        all = realloc(all, (nall + n) * sizeof *all);
        assert_non_null(all);
        memcpy(all + nall, r, n * sizeof *r);
        nall += n;
        tlm_coll_free(NULL, r);
    }
    assert_int_equal(nall, 12 + 10 + 11);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(all, nall, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 12);
    assert_int_equal(res.n_unm, 0);
    for (size_t i = 0; i < res.n_inst; i++) {
        const tlm_coll_instance *in = &res.inst[i];
        int c = (int)in->seq;
        int want = 3 - (c < 2) - (c == 11);
        assert_int_equal(in->n_members, want);
        /* everyone ends at 1000 c + 100 us */
        assert_int_equal(in->end_skew_ns, 0);
        assert_int_equal(in->last_end_ns, (1000LL * c + 100) * 1000);
        if (want == 3) {
            assert_int_equal(in->start_skew_ns, 20000);
            assert_int_equal(in->last_rank, 2);
            assert_int_equal(in->comm_latency_ns, 80000);
        }
        assert_int_equal(in->bytes, ((c % 3) ? 1024 : 4096) * 4);
    }
    /* parity view: TraceLens pairs the k-th kernels and misaligns */
    tlm_coll_tl_result tl;
    assert_int_equal(tlm_coll_tl_match(all, nall, 0, NULL, &tl, NULL),
                     TLM_OK);
    assert_int_equal(tl.n_sync, 12);
    int mism = 0;
    for (size_t i = 0; i < tl.n_sync; i++)
        mism += tl.sync[i].meta_mismatch > 0;
    assert_true(mism > 0);
    tlm_coll_tl_result_free(&tl);
    tlm_coll_match_result_free(&res);
    free(all);
}

/* MARK: - odd input */

/* Valid JSON with odd values: huge or negative times and sizes, broken and
 * truncated lists, wrong types, kernels without a valid time.  Extraction and matching must not crash
 * (the sanitizer build checks for overflow) and must keep sane values. */
static const char *odd_trace =
    "{\"baseTimeNanoseconds\":9223372036854775807,\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce\","
    "\"pid\":0,\"tid\":7,\"ts\":9223372036854775.807,\"dur\":0,"
    "\"args\":{\"Collective name\":\"all_to_allv\",\"In msg nelems\":"
    "9223372036854775807,\"Out msg nelems\":-3,\"Group size\":"
    "99999999999,\"dtype\":\"ComplexDouble\",\"In split size\":"
    "\"[1, 2, ...]\",\"Out split size\":\"[a, b]\",\"Process Group "
    "Name\":\"\",\"Process Group Ranks\":\"[9223372036854775807, -1]\","
    "\"Seq\":\"x\",\"Dst Rank\":-7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"rcclGenericKernel\","
    "\"pid\":0,\"tid\":\"stream 7\",\"ts\":-100,\"dur\":1,\"args\":{"
    "\"Collective name\":7,\"In msg nelems\":\"12\",\"Group size\":"
    "\"2\",\"dtype\":[1],\"Process Group Ranks\":\"[0, 1, 2, ..., 9]\","
    "\"Process Group Name\":\"p\",\"correlation\":3}},"
    /* a negative duration: no interval, left out (as by the tree) */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Broadcast\","
    "\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":-5,\"args\":{}},"
    /* no ts: left out too */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Broadcast\","
    "\"pid\":0,\"tid\":7,\"dur\":5,\"args\":{}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
    "\"pid\":1,\"tid\":1,\"ts\":-200,\"dur\":5,\"args\":{"
    "\"correlation\":3}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
    "\"pid\":1,\"tid\":1,\"ts\":-300,\"dur\":500,\"args\":{"
    "\"Concrete Inputs\":[\"\",\"99999999999999999999\",[],{},\"\",\"\","
    "\"\",\"-4\"],\"Input type\":[\"TensorList\"],\"Input Dims\":"
    "[[[4611686018427387904,4611686018427387904]],[]]}}"
    "]}";

static void test_odd_inputs(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    size_t n = extract(odd_trace, 0, &r, NULL);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        assert_true(r[i].start_ns >= 0);
        assert_true(r[i].dur_ns >= 0);
        assert_true(r[i].in_nelems >= -1);
        assert_true(r[i].group_size == -1 || r[i].group_size > 0);
    }
    const tlm_coll_record *a = by_kernel(r, n, "ncclDevKernel_AllReduce", 0);
    assert_int_equal(a->coll, TLM_COLL_ALLTOALLV);
    assert_int_equal(a->in_nelems, -1);
    assert_int_equal(a->group_size, -1);
    assert_int_equal(a->send_bytes, -1);
    assert_int_equal(a->seq_src, TLM_COLL_SEQ_ORDINAL);
    assert_true(a->flags & TLM_COLL_REC_PG_SYNTH);
    /* ts + base beyond int64 saturates; a negative ts is kept */
    assert_true(a->start_ns == INT64_MAX);
    const tlm_coll_record *g = by_kernel(r, n, "rcclGenericKernel", 0);
    assert_true(g->ts_ns == -100000);
    assert_true(g->start_ns == INT64_MAX - 100000);
    assert_int_equal(g->in_nelems, 12);
    assert_int_equal(g->group_size, 2);
    assert_true(g->flags & TLM_COLL_REC_RANKS_TRUNC);
    assert_int_equal(g->local_rank, 0);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 2);
    tlm_coll_clock *clk = NULL;
    size_t nc = 0;
    assert_int_equal(tlm_coll_clock_estimate(res.mem, res.n_mem, NULL, &clk,
                                             &nc, NULL),
                     TLM_OK);
    tlm_coll_free(NULL, clk);
    tlm_coll_tl_result tl;
    assert_int_equal(tlm_coll_tl_match(r, n, 0, NULL, &tl, NULL), TLM_OK);
    tlm_coll_tl_result_free(&tl);
    tlm_coll_match_result_free(&res);
    tlm_coll_free(NULL, r);
}

/* MARK: - times far from the base */

/* A clock 10^10 us behind its base (every ts negative) and ts near +-2^53
 * ns:
 * times are kept exactly, never clamped at 0 (issue 20). */
static char *shifted_trace(const char *ts_kernel, const char *ts_op)
{
    static const char *fmt =
        "{\"baseTimeNanoseconds\":1763700000000000000,\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
        "\"pid\":5,\"tid\":6,\"ts\":%s,\"dur\":5,\"args\":{\"External id\":"
        "70,\"Collective name\":\"allreduce\",\"In msg nelems\":100,"
        "\"Out msg nelems\":100,\"Group size\":2,\"dtype\":\"Float\","
        "\"Process Group Name\":\"0\",\"Process Group Ranks\":\"[0, 1]\","
        "\"Seq\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_"
        "Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,"
        "\"tid\":7,\"ts\":%s,\"dur\":4.001,\"args\":{\"External id\":70,"
        "\"correlation\":71,\"stream\":7}}]}";
    size_t cap = strlen(fmt) + strlen(ts_kernel) + strlen(ts_op) + 1;
    char *s = malloc(cap);
    assert_non_null(s);
    snprintf(s, cap, fmt, ts_op, ts_kernel);
    return s;
}

static void test_times_far_from_base(void **state)
{
    (void)state;
    static const struct {
        const char *ts_kernel, *ts_op;
        int64_t kernel_ns, op_ns;
    } cases[] = {
        {"-9999997999.999", "-9999998000.001", -9999997999999LL,
         -9999998000001LL},
        {"-2500000000.000", "-2500000001.000", -2500000000000LL,
         -2500000001000LL},
        {"9007199254740.993", "9007199254740.991", 9007199254740993LL,
         9007199254740991LL},
        {"-9007199254740.993", "-9007199254740.995", -9007199254740993LL,
         -9007199254740995LL},
    };
    const int64_t base = 1763700000000000000LL;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = shifted_trace(cases[i].ts_kernel, cases[i].ts_op);
        tlm_coll_record *r = NULL;
        size_t n = extract(json, 0, &r, NULL);
        assert_int_equal(n, 1);
        assert_true(r[0].ts_ns == cases[i].kernel_ns);
        assert_true(r[0].start_ns == base + cases[i].kernel_ns);
        assert_true(r[0].cpu_ts_ns == base + cases[i].op_ns);
        assert_int_equal(r[0].dur_ns, 4001);
        assert_int_equal(r[0].seq, 3);
        tlm_coll_free(NULL, r);
        free(json);
    }
}

/* MARK: - bad arguments */

static void test_bad_args(void **state)
{
    (void)state;
    tlm_coll_record *r = (tlm_coll_record *)1;
    size_t n = 1;
    tlm_error e;
    assert_int_equal(tlm_coll_extract(NULL, NULL, &r, &n, NULL, &e),
                     TLM_EINVAL);
    assert_null(r);
    assert_int_equal(n, 0);
    tlm_trace *t = read_json("{\"traceEvents\":[]}");
    assert_int_equal(tlm_coll_extract(t, NULL, &r, &n, NULL, NULL), TLM_OK);
    assert_null(r);
    assert_int_equal(n, 0);
    tlm_trace_free(t);
}

/* Extraction with the N-th allocation failing, for every N. */
static void test_extract_alloc_failures(void **state)
{
    (void)state;
    tlm_trace *t = read_json(named_trace);
    int done = 0;
    for (long fail_at = 1; !done && fail_at < 10000; fail_at++) {
        tt_fail_alloc fa;
        tt_fail_alloc_init(&fa, fail_at, 0);
        tlm_coll_extract_opts o;
        tlm_coll_extract_opts_init(&o);
        o.alloc = &fa.a;
        tlm_coll_record *r = NULL;
        size_t n = 0;
        tlm_error e;
        tlm_status st = tlm_coll_extract(t, &o, &r, &n, NULL, &e);
        assert_true(st == TLM_OK || st == TLM_ENOMEM);
        if (st == TLM_OK) {
            done = 1;
            assert_int_equal(n, 6);
        } else {
            assert_null(r);
            assert_int_equal(e.code, TLM_ENOMEM);
        }
        tlm_coll_free(&fa.a, r);
        assert_int_equal(fa.live, 0);
    }
    assert_true(done);
    tlm_trace_free(t);
}

/* MARK: - real traces (skipped when absent) */

static const char *shared_dir(void)
{
    const char *d = getenv("TLM_SHARED_DIR");
    if (!d || !d[0])
        return NULL;
    char p[4096];
    snprintf(p, sizeof p, "%s/traces/dlrm_v100_8rank", d);
    DIR *x = opendir(p);
    if (!x)
        return NULL;
    closedir(x);
    return d;
}

static size_t extract_file(const char *path, int32_t rank,
                           tlm_coll_record **out)
{
    tlm_trace *t = NULL;
    tlm_error e;
    assert_int_equal(tlm_trace_read_file(path, NULL, &t, &e), TLM_OK);
    tlm_coll_extract_opts o;
    tlm_coll_extract_opts_init(&o);
    o.trace_rank = rank;
    size_t n = 0;
    assert_int_equal(tlm_coll_extract(t, &o, out, &n, NULL, NULL), TLM_OK);
    tlm_trace_free(t);
    return n;
}

/* DLRM, 8 ranks, 2023: no collective metadata, no seq.  Metadata comes
 * through the launches, identity from order; every instance must be
 * complete with end skew <= 7 us (spec/nccl_trace_schema.md, 5). */
static void test_real_dlrm(void **state)
{
    (void)state;
    const char *d = shared_dir();
    if (!d)
        skip();
    char p[4096];
    snprintf(p, sizeof p, "%s/traces/dlrm_v100_8rank", d);
    DIR *dir = opendir(p);
    assert_non_null(dir);
    struct dirent *de;
    tlm_coll_record *all = NULL;
    size_t nall = 0;
    int nfiles = 0;
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, "worker", 6) != 0)
            continue;
        char f[8192];
        snprintf(f, sizeof f, "%s/%s", p, de->d_name);
        tlm_coll_record *r = NULL;
        size_t n = extract_file(f, -1, &r);
        assert_int_equal(n, 8);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(r[i].meta_src, TLM_COLL_META_LAUNCH);
            assert_true(r[i].in_nelems > 0);
        }
        all = realloc(all, (nall + n) * sizeof *all);
        assert_non_null(all);
        memcpy(all + nall, r, n * sizeof *r);
        nall += n;
        nfiles++;
        tlm_coll_free(NULL, r);
    }
    closedir(dir);
    assert_int_equal(nfiles, 8);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(all, nall, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 8);
    assert_int_equal(res.n_unm, 0);
    int n_a2a = 0;
    for (size_t i = 0; i < res.n_inst; i++) {
        assert_int_equal(res.inst[i].n_members, 8);
        assert_true(res.inst[i].end_skew_ns <= 7000);
        n_a2a += res.inst[i].coll == TLM_COLL_ALLTOALL;
    }
    assert_int_equal(n_a2a, 5);
    tlm_coll_clock *clk = NULL;
    size_t nc = 0;
    assert_int_equal(tlm_coll_clock_estimate(res.mem, res.n_mem, NULL, &clk,
                                             &nc, NULL),
                     TLM_OK);
    assert_int_equal(nc, 8);
    for (size_t i = 0; i < nc; i++) /* one host: offsets within the skew */
        assert_true(clk[i].offset_ns >= -7000 && clk[i].offset_ns <= 7000);
    tlm_coll_free(NULL, clk);
    tlm_coll_match_result_free(&res);
    free(all);
}

/* RCCL (MI300X): 17 kernels, 12 with metadata, 5 launched before the
 * window (kernel name only: "Generic"). */
static void test_real_rccl(void **state)
{
    (void)state;
    const char *d = shared_dir();
    if (!d)
        skip();
    char p[4096];
    snprintf(p, sizeof p, "%s/traces/resnet_mi300/"
                          "resnet_act_checkpoint.json.gz", d);
    tlm_coll_record *r = NULL;
    size_t n = extract_file(p, 0, &r);
    assert_int_equal(n, 17);
    int meta = 0, none = 0;
    for (size_t i = 0; i < n; i++) {
        meta += r[i].meta_src == TLM_COLL_META_KERNEL;
        none += r[i].meta_src == TLM_COLL_META_NONE;
        assert_int_equal(r[i].kname_coll, TLM_COLL_UNKNOWN);
    }
    assert_int_equal(meta, 12);
    assert_int_equal(none, 5);
    tlm_coll_free(NULL, r);

    snprintf(p, sizeof p, "%s/traces/nccl_a100/nccl_data.json.gz", d);
    n = extract_file(p, -1, &r);
    assert_int_equal(n, 21);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].meta_src, TLM_COLL_META_KERNEL);
        assert_int_equal(r[i].group_size, 2);
        assert_int_equal(r[i].local_rank, 0);
    }
    tlm_coll_free(NULL, r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_keys),
        cmocka_unit_test(test_pg_desc_hostile),
        cmocka_unit_test(test_concrete_inputs),
        cmocka_unit_test(test_concrete10_groups),
        cmocka_unit_test(test_concrete10_strided_p2p),
        cmocka_unit_test(test_seq_key_and_rocm),
        cmocka_unit_test(test_multi_trace_clipped),
        cmocka_unit_test(test_odd_inputs),
        cmocka_unit_test(test_times_far_from_base),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_extract_alloc_failures),
        cmocka_unit_test(test_real_dlrm),
        cmocka_unit_test(test_real_rccl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
