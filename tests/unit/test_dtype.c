/*
 * test_dtype.c - element and collective types (src/coll/dtype.c): dtype
 * names in every accepted spelling with their sizes (ours and
 * TraceLens's), collective types from c10d names, profiling titles and the
 * kernel names of the NCCL naming schemes and RCCL, the nccl-tests bus
 * factor of every type and group size, the record signature, and the
 * median / quantile helpers the summaries use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm_test_coll.h"

static void test_dtype_names(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int size, tl;
    } dt[] = {{"Float", 4, 4},          {"Double", 8, 8},
              {"Half", 2, 2},           {"BFloat16", 2, 2},
              {"Float8_e4m3fn", 1, 0},  {"Float8_e5m2", 1, 0},
              {"Float8_e4m3fnuz", 1, 0}, {"Float8_e5m2fnuz", 1, 0},
              {"Char", 1, 0},           {"Byte", 1, 1},
              {"Bool", 1, 1},           {"Short", 2, 2},
              {"Int", 4, 4},            {"Long", 8, 8},
              {"UInt16", 2, 0},         {"UInt32", 4, 0},
              {"UInt64", 8, 0},         {"ComplexFloat", 8, 0},
              {"ComplexDouble", 16, 0}, {"c10::Half", 2, 2},
              {"f16", 2, 2},            {"bf16", 2, 2},
              {"int8_t", 1, 0},         {"float", 4, 4},
              {"torch.float32", 4, 4},  {"nope", 0, 0}};
    for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++) {
        tlm_dtype d = tlm_dtype_from_name(dt[i].s, strlen(dt[i].s));
        assert_int_equal(tlm_dtype_size(d), dt[i].size);
        assert_int_equal(tlm_dtype_tl_size(d), dt[i].tl);
    }
    assert_string_equal(tlm_dtype_name(TLM_DTYPE_CHAR), "Char");

    /* every canonical name reads back as itself */
    for (int d = 1; d < TLM_DTYPE_COUNT; d++) {
        const char *n = tlm_dtype_name((tlm_dtype)d);
        assert_int_equal(tlm_dtype_from_name(n, strlen(n)), d);
    }
    /* spellings, and names that are not NUL-terminated */
    static const struct {
        const char *s;
        tlm_dtype d;
    } al[] = {{"torch.bfloat16", TLM_DTYPE_BFLOAT16},
              {"c10::BFloat16", TLM_DTYPE_BFLOAT16},
              {"__nv_fp8_e4m3", TLM_DTYPE_FLOAT8_E4M3FN},
              {"f8e5m2", TLM_DTYPE_FLOAT8_E5M2},
              {"uint8_t", TLM_DTYPE_BYTE},
              {"i32", TLM_DTYPE_INT},
              {"u64", TLM_DTYPE_UINT64},
              {"complex64", TLM_DTYPE_COMPLEXFLOAT},
              {"Float4_e2m1fn_x2", TLM_DTYPE_FLOAT4_E2M1FN_X2}};
    for (size_t i = 0; i < sizeof al / sizeof al[0]; i++)
        assert_int_equal(tlm_dtype_from_name(al[i].s, strlen(al[i].s)),
                         al[i].d);
    assert_int_equal(tlm_dtype_from_name("Halfway", 4), TLM_DTYPE_HALF);
    assert_int_equal(tlm_dtype_from_name(NULL, 3), TLM_DTYPE_UNKNOWN);
    assert_int_equal(tlm_dtype_from_name("Float", 0), TLM_DTYPE_UNKNOWN);
    /* out of range */
    assert_string_equal(tlm_dtype_name(TLM_DTYPE_UNKNOWN), "");
    assert_string_equal(tlm_dtype_name(TLM_DTYPE_COUNT), "");
    assert_int_equal(tlm_dtype_size(TLM_DTYPE_COUNT), 0);
    assert_int_equal(tlm_dtype_tl_size(TLM_DTYPE_COUNT), 0);
    assert_int_equal(tlm_dtype_size(TLM_DTYPE_UNKNOWN), 0);
}

static void test_coll_type_names(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        tlm_coll_type t;
    } cn[] = {{"allreduce", TLM_COLL_ALLREDUCE},
              {"_allgather_base", TLM_COLL_ALLGATHER},
              {"reduce_scatter", TLM_COLL_REDUCESCATTER},
              {"_reduce_scatter_base", TLM_COLL_REDUCESCATTER},
              {"all_to_all", TLM_COLL_ALLTOALL},
              {"all_to_allv", TLM_COLL_ALLTOALLV},
              {"nccl:all_reduce", TLM_COLL_ALLREDUCE},
              {"nccl:_all_gather_base", TLM_COLL_ALLGATHER},
              {"broadcast", TLM_COLL_BROADCAST},
              {"send", TLM_COLL_SEND},
              {"recv", TLM_COLL_RECV},
              {"barrier", TLM_COLL_BARRIER},
              {"coalesced", TLM_COLL_COALESCED},
              {"AllReduce", TLM_COLL_ALLREDUCE}, /* any case */
              {"alltoall_base", TLM_COLL_ALLTOALLV},
              {"_reduce_oop", TLM_COLL_REDUCE},
              {"gather", TLM_COLL_GATHER},
              {"scatter", TLM_COLL_SCATTER},
              {"recvanysource", TLM_COLL_RECV},
              {"nccl:", TLM_COLL_UNKNOWN},
              {"frobnicate", TLM_COLL_UNKNOWN}};
    for (size_t i = 0; i < sizeof cn / sizeof cn[0]; i++)
        assert_int_equal(tlm_coll_type_from_name(cn[i].s, strlen(cn[i].s),
                                                 NULL),
                         cn[i].t);
    int w = 0;
    assert_int_equal(tlm_coll_type_from_name("wait", 4, &w),
                     TLM_COLL_UNKNOWN);
    assert_int_equal(w, 1);
    assert_int_equal(tlm_coll_type_from_name("nccl:wait", 9, &w),
                     TLM_COLL_UNKNOWN);
    assert_int_equal(w, 1);
    assert_int_equal(tlm_coll_type_from_name("send", 4, &w), TLM_COLL_SEND);
    assert_int_equal(w, 0);
    assert_int_equal(tlm_coll_type_from_name("sendx", 4, NULL),
                     TLM_COLL_SEND);
    assert_int_equal(tlm_coll_type_from_name(NULL, 4, &w), TLM_COLL_UNKNOWN);

    /* canonical names and the implicit-sync types */
    static const struct {
        tlm_coll_type t;
        const char *name;
        int sync;
    } ty[] = {{TLM_COLL_UNKNOWN, "unknown", 0},
              {TLM_COLL_ALLREDUCE, "allreduce", 1},
              {TLM_COLL_ALLGATHER, "allgather", 1},
              {TLM_COLL_REDUCESCATTER, "reducescatter", 1},
              {TLM_COLL_ALLTOALL, "alltoall", 1},
              {TLM_COLL_ALLTOALLV, "alltoallv", 1},
              {TLM_COLL_BROADCAST, "broadcast", 0},
              {TLM_COLL_REDUCE, "reduce", 0},
              {TLM_COLL_GATHER, "gather", 0},
              {TLM_COLL_SCATTER, "scatter", 0},
              {TLM_COLL_BARRIER, "barrier", 1},
              {TLM_COLL_SEND, "send", 0},
              {TLM_COLL_RECV, "recv", 0},
              {TLM_COLL_SENDRECV, "sendrecv", 0},
              {TLM_COLL_COALESCED, "coalesced", 0}};
    assert_int_equal(sizeof ty / sizeof ty[0], TLM_COLL_TYPE_COUNT);
    for (size_t i = 0; i < sizeof ty / sizeof ty[0]; i++) {
        assert_string_equal(tlm_coll_type_name(ty[i].t), ty[i].name);
        assert_int_equal(tlm_coll_type_implicit_sync(ty[i].t), ty[i].sync);
    }
    assert_string_equal(tlm_coll_type_name(TLM_COLL_TYPE_COUNT), "unknown");
    assert_int_equal(tlm_coll_type_implicit_sync(TLM_COLL_TYPE_COUNT), 0);
}

/* One kernel name: its type, algorithm text and element type. */
static void kern(const char *name, tlm_coll_type t, const char *algo,
                 tlm_dtype dt)
{
    char a[TLM_COLL_ALGO_LEN];
    tlm_dtype d = TLM_DTYPE_COUNT;
    assert_int_equal(tlm_coll_type_from_kernel(name, a, &d), t);
    assert_string_equal(a, algo);
    assert_int_equal(d, dt);
}

static void test_coll_type_kernels(void **state)
{
    (void)state;
    /* NCCL <= 2.18 */
    kern("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned "
         "long, ncclWork*)",
         TLM_COLL_ALLREDUCE, "RING_LL", TLM_DTYPE_FLOAT);
    kern("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)", TLM_COLL_SENDRECV,
         "RING_SIMPLE", TLM_DTYPE_CHAR);
    /* NCCL 2.19-2.20 */
    kern("ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*, unsigned "
         "long, ncclWork*)",
         TLM_COLL_ALLREDUCE, "RING_LL", TLM_DTYPE_HALF);
    kern("ncclDevKernel_ReduceScatter_Sum_bf16_NVLS_TREE_SIMPLE(x)",
         TLM_COLL_REDUCESCATTER, "NVLS_TREE_SIMPLE", TLM_DTYPE_BFLOAT16);
    kern("ncclDevKernel_Reduce_Sum_u64_TREE_LL128(x)", TLM_COLL_REDUCE,
         "TREE_LL128", TLM_DTYPE_UINT64);
    kern("ncclDevKernel_Broadcast_RING_LL(x)", TLM_COLL_BROADCAST, "RING_LL",
         TLM_DTYPE_UNKNOWN);
    kern("ncclDevKernel_AllReduce_Sum_f32_COLLNET_DIRECT_SIMPLE(x)",
         TLM_COLL_ALLREDUCE, "COLLNET_DIRECT_SIMPLE", TLM_DTYPE_FLOAT);
    /* NCCL >= 2.21: no element type in the name */
    kern("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         TLM_COLL_ALLGATHER, "RING_LL", TLM_DTYPE_UNKNOWN);
    kern("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
         TLM_COLL_SENDRECV, "", TLM_DTYPE_UNKNOWN);
    kern("ncclDevKernel_AllToAll_PAT_SIMPLE(x)", TLM_COLL_ALLTOALL,
         "PAT_SIMPLE", TLM_DTYPE_UNKNOWN);
    /* RCCL's generic kernel, custom all-reduce, not a collective */
    kern("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
         TLM_COLL_UNKNOWN, "", TLM_DTYPE_UNKNOWN);
    kern("void cross_device_reduce_2stage<bf16>()", TLM_COLL_ALLREDUCE, "",
         TLM_DTYPE_UNKNOWN);
    kern("void gemm_kernel<float>()", TLM_COLL_UNKNOWN, "",
         TLM_DTYPE_UNKNOWN);
    /* algo and dtype may be NULL */
    assert_int_equal(tlm_coll_type_from_kernel(
                         "ncclKernel_AllGather_RING_LL_Sum_half(x)", NULL,
                         NULL),
                     TLM_COLL_ALLGATHER);
    assert_int_equal(tlm_coll_type_from_kernel(NULL, NULL, NULL),
                     TLM_COLL_UNKNOWN);
}

/* 2(n-1)/n, (n-1)/n or 1 by type; NaN where nccl-tests has none. */
static void test_bus_factor(void **state)
{
    (void)state;
    /* per type: 'A' 2(n-1)/n, 'G' (n-1)/n, '1' one, 'N' NaN */
    static const char kind[TLM_COLL_TYPE_COUNT + 1] = "NAGGGG11GGN111N";
    static const int64_t ns[] = {1, 2, 3, 4, 8, 1024};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        double n = (double)ns[i];
        for (int t = 0; t < TLM_COLL_TYPE_COUNT; t++) {
            double f = tlm_coll_bus_factor((tlm_coll_type)t, ns[i]);
            if (kind[t] == 'A')
                assert_true(f == 2.0 * (n - 1.0) / n);
            else if (kind[t] == 'G')
                assert_true(f == (n - 1.0) / n);
            else if (kind[t] == '1')
                assert_true(f == 1.0);
            else
                assert_true(isnan(f));
        }
    }
    assert_double_equal(tlm_coll_bus_factor(TLM_COLL_ALLREDUCE, 8), 1.75,
                        0);
    assert_double_equal(tlm_coll_bus_factor(TLM_COLL_ALLGATHER, 8), 0.875,
                        0);
    assert_double_equal(tlm_coll_bus_factor(TLM_COLL_ALLREDUCE, 1), 0.0, 0);
    assert_true(isnan(tlm_coll_bus_factor(TLM_COLL_ALLREDUCE, 0)));
    assert_true(isnan(tlm_coll_bus_factor(TLM_COLL_SEND, -1)));
}

/* Equal signatures match across ranks: a send and its recv agree, an
 * all_to_allv ignores its per-rank sizes, anything else tells apart. */
static void test_signature(void **state)
{
    (void)state;
    uint64_t ar = tlm_coll_signature(TLM_COLL_ALLREDUCE, TLM_DTYPE_FLOAT,
                                     1024, 1024);
    /* the same bytes in every build: records travel between ranks */
    assert_true(ar == 15116468770539940663ull);
    assert_true(ar == tlm_coll_mix(tlm_coll_mix(tlm_coll_mix(tlm_coll_mix(
                                                     0x5167a7u,
                                                     TLM_COLL_ALLREDUCE),
                                                 TLM_DTYPE_FLOAT),
                                                1024),
                                   1024));
    uint64_t s = tlm_coll_signature(TLM_COLL_SEND, TLM_DTYPE_HALF, 8, 8);
    assert_true(s == tlm_coll_signature(TLM_COLL_RECV, TLM_DTYPE_HALF, 8, 8));
    assert_true(s ==
                tlm_coll_signature(TLM_COLL_SENDRECV, TLM_DTYPE_HALF, 8, 8));
    assert_true(s != tlm_coll_signature(TLM_COLL_SEND, TLM_DTYPE_HALF, 9, 9));
    uint64_t v = tlm_coll_signature(TLM_COLL_ALLTOALLV, TLM_DTYPE_BFLOAT16,
                                    100, 200);
    assert_true(v == tlm_coll_signature(TLM_COLL_ALLTOALLV,
                                        TLM_DTYPE_BFLOAT16, 7, 3));
    assert_true(v != tlm_coll_signature(TLM_COLL_ALLTOALLV,
                                        TLM_DTYPE_FLOAT, 7, 3));
    assert_true(ar != tlm_coll_signature(TLM_COLL_ALLREDUCE,
                                         TLM_DTYPE_HALF, 1024, 1024));
    assert_true(ar != tlm_coll_signature(TLM_COLL_ALLREDUCE,
                                         TLM_DTYPE_FLOAT, 1024, 2048));
    assert_true(ar != tlm_coll_signature(TLM_COLL_ALLREDUCE,
                                         TLM_DTYPE_FLOAT, 2048, 1024));
    assert_true(ar != tlm_coll_signature(TLM_COLL_BROADCAST,
                                         TLM_DTYPE_FLOAT, 1024, 1024));
}

/* Median of int64 (the floor of the middle pair's mean) and numpy's
 * linear quantile. */
static void test_median_quantile(void **state)
{
    (void)state;
    int64_t a[] = {9, 1, 5};
    assert_int_equal(tlm_coll_median_i64(a, 3), 5);
    assert_int_equal(a[0], 1); /* sorted in place */
    assert_int_equal(a[2], 9);
    int64_t b[] = {4, 1, 2, 3};
    assert_int_equal(tlm_coll_median_i64(b, 4), 2); /* floor(2.5) */
    int64_t c[] = {-3, 0};
    assert_int_equal(tlm_coll_median_i64(c, 2), -2); /* floor(-1.5) */
    int64_t d[] = {INT64_MAX, INT64_MIN};
    assert_int_equal(tlm_coll_median_i64(d, 2), -1); /* no overflow */
    int64_t e[] = {42};
    assert_int_equal(tlm_coll_median_i64(e, 1), 42);

    static const double v[] = {10.0, 20.0, 30.0, 40.0, 50.0};
    assert_true(tlm_coll_quantile_sorted(v, 5, 0.0) == 10.0);
    assert_true(tlm_coll_quantile_sorted(v, 5, 0.5) == 30.0);
    assert_true(tlm_coll_quantile_sorted(v, 5, 1.0) == 50.0);
    /* numpy.percentile([10, 20, 30, 40, 50], 95) = 48.0 */
    assert_double_equal(tlm_coll_quantile_sorted(v, 5, 0.95), 48.0, 1e-12);
    assert_double_equal(tlm_coll_quantile_sorted(v, 4, 0.95), 38.5, 1e-12);
    assert_true(tlm_coll_quantile_sorted(v, 2, 0.25) == 12.5);
    assert_true(tlm_coll_quantile_sorted(v + 3, 1, 0.95) == 40.0);
    assert_true(isnan(tlm_coll_quantile_sorted(v, 0, 0.5)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_names),
        cmocka_unit_test(test_coll_type_names),
        cmocka_unit_test(test_coll_type_kernels),
        cmocka_unit_test(test_bus_factor),
        cmocka_unit_test(test_signature),
        cmocka_unit_test(test_median_quantile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
