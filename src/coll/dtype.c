/*
 * dtype.c - element types and collective types of NCCL/RCCL collectives.
 *
 * The dtype table (TLM_DTYPE_LIST in tlm_coll.h) is the complete list of
 * c10::ScalarType names PyTorch writes into the "dtype" arg, with the bytes
 * per element, plus the smaller table TraceLens uses (its sizes, or 0 where
 * TraceLens has no entry), so the parity mode can reproduce TraceLens's
 * NaNs.  Names are also accepted in torch ("float32"), c10 ("c10::Half")
 * and NCCL kernel-name ("f16", "int8_t") spellings.
 *
 * The collective-type half maps c10d "Collective name" values, profiling
 * titles ("nccl:all_reduce") and kernel names of the three NCCL naming
 * schemes and RCCL to tlm_coll_type, and gives the nccl-tests bus-bandwidth
 * factor of each type.
 */
#include "coll_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* MARK: - dtypes */

static const struct {
    const char *name;
    int size;
    int tl_size;
} dtype_tab[] = {
#define TLM_X_(e, s, b, t) {s, b, t},
    TLM_DTYPE_LIST(TLM_X_)
#undef TLM_X_
};

/* Other spellings: torch names and NCCL kernel suffixes.  (This and the
 * tables below are data: name -> value lists of other vocabularies.) */
static const struct {
    const char *alias;
    tlm_dtype dt;
} dtype_alias[] = {
    {"float32", TLM_DTYPE_FLOAT},     {"float", TLM_DTYPE_FLOAT},
    {"f32", TLM_DTYPE_FLOAT},         {"fp32", TLM_DTYPE_FLOAT},
    {"float64", TLM_DTYPE_DOUBLE},    {"double", TLM_DTYPE_DOUBLE},
    {"f64", TLM_DTYPE_DOUBLE},        {"float16", TLM_DTYPE_HALF},
    {"half", TLM_DTYPE_HALF},         {"f16", TLM_DTYPE_HALF},
    {"fp16", TLM_DTYPE_HALF},         {"bfloat16", TLM_DTYPE_BFLOAT16},
    {"bf16", TLM_DTYPE_BFLOAT16},     {"__nv_bfloat16", TLM_DTYPE_BFLOAT16},
    {"float8_e4m3fn", TLM_DTYPE_FLOAT8_E4M3FN},
    {"f8e4m3", TLM_DTYPE_FLOAT8_E4M3FN},
    {"__nv_fp8_e4m3", TLM_DTYPE_FLOAT8_E4M3FN},
    {"float8_e5m2", TLM_DTYPE_FLOAT8_E5M2},
    {"f8e5m2", TLM_DTYPE_FLOAT8_E5M2},
    {"__nv_fp8_e5m2", TLM_DTYPE_FLOAT8_E5M2},
    {"float8_e4m3fnuz", TLM_DTYPE_FLOAT8_E4M3FNUZ},
    {"float8_e5m2fnuz", TLM_DTYPE_FLOAT8_E5M2FNUZ},
    {"int8", TLM_DTYPE_CHAR},         {"int8_t", TLM_DTYPE_CHAR},
    {"i8", TLM_DTYPE_CHAR},           {"char", TLM_DTYPE_CHAR},
    {"uint8", TLM_DTYPE_BYTE},        {"uint8_t", TLM_DTYPE_BYTE},
    {"u8", TLM_DTYPE_BYTE},           {"bool", TLM_DTYPE_BOOL},
    {"int16", TLM_DTYPE_SHORT},       {"short", TLM_DTYPE_SHORT},
    {"int32", TLM_DTYPE_INT},         {"int32_t", TLM_DTYPE_INT},
    {"i32", TLM_DTYPE_INT},           {"int", TLM_DTYPE_INT},
    {"int64", TLM_DTYPE_LONG},        {"int64_t", TLM_DTYPE_LONG},
    {"i64", TLM_DTYPE_LONG},          {"long", TLM_DTYPE_LONG},
    {"uint16", TLM_DTYPE_UINT16},     {"uint32", TLM_DTYPE_UINT32},
    {"uint32_t", TLM_DTYPE_UINT32},   {"u32", TLM_DTYPE_UINT32},
    {"uint64", TLM_DTYPE_UINT64},     {"uint64_t", TLM_DTYPE_UINT64},
    {"u64", TLM_DTYPE_UINT64},        {"complex32", TLM_DTYPE_COMPLEXHALF},
    {"complex64", TLM_DTYPE_COMPLEXFLOAT},
    {"complex128", TLM_DTYPE_COMPLEXDOUBLE},
};

static int eq_ci(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    if (alen != blen)
        return 0;
    for (size_t i = 0; i < alen; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z')
            x += 'a' - 'A';
        if (y >= 'A' && y <= 'Z')
            y += 'a' - 'A';
        if (x != y)
            return 0;
    }
    return 1;
}

/* Whether s[0..len) is word exactly (case matters). */
static int tok_is(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(word, s, len) == 0;
}

tlm_dtype tlm_dtype_from_name(const char *s, size_t len)
{
    if (!s || len == 0)
        return TLM_DTYPE_UNKNOWN;
    if (len > 5 && memcmp(s, "c10::", 5) == 0) {
        s += 5;
        len -= 5;
    }
    if (len > 6 && memcmp(s, "torch.", 6) == 0) {
        s += 6;
        len -= 6;
    }
    /* exact c10 names first (case matters: "Char" is int8, "char" too) */
    for (int i = 1; i < TLM_DTYPE_COUNT; i++) {
        if (tok_is(s, len, dtype_tab[i].name))
            return (tlm_dtype)i;
    }
    for (size_t i = 0; i < sizeof dtype_alias / sizeof dtype_alias[0]; i++)
        if (eq_ci(s, len, dtype_alias[i].alias))
            return dtype_alias[i].dt;
    for (int i = 1; i < TLM_DTYPE_COUNT; i++)
        if (eq_ci(s, len, dtype_tab[i].name))
            return (tlm_dtype)i;
    return TLM_DTYPE_UNKNOWN;
}

int tlm_dtype_size(tlm_dtype dt)
{
    if ((int)dt < 0 || dt >= TLM_DTYPE_COUNT)
        return 0;
    return dtype_tab[dt].size;
}

int tlm_dtype_tl_size(tlm_dtype dt)
{
    if ((int)dt < 0 || dt >= TLM_DTYPE_COUNT)
        return 0;
    return dtype_tab[dt].tl_size;
}

const char *tlm_dtype_name(tlm_dtype dt)
{
    if ((int)dt < 0 || dt >= TLM_DTYPE_COUNT)
        return "";
    return dtype_tab[dt].name;
}

/* MARK: - collective types */

static const struct {
    const char *name;
    int implicit;
} coll_tab[] = {
#define TLM_X_(e, s, i) {s, i},
    TLM_COLL_TYPE_LIST(TLM_X_)
#undef TLM_X_
};

const char *tlm_coll_type_name(tlm_coll_type t)
{
    if ((int)t < 0 || t >= TLM_COLL_TYPE_COUNT)
        return "unknown";
    return coll_tab[t].name;
}

int tlm_coll_type_implicit_sync(tlm_coll_type t)
{
    if ((int)t < 0 || t >= TLM_COLL_TYPE_COUNT)
        return 0;
    return coll_tab[t].implicit;
}

/* c10d names (RECORD_PARAM_COMMS_DATA in ProcessGroupNCCL.cpp) and
 * profiling titles without their "nccl:" prefix. */
static const struct {
    const char *name;
    tlm_coll_type t;
} cname_tab[] = {
    {"allreduce", TLM_COLL_ALLREDUCE},
    {"all_reduce", TLM_COLL_ALLREDUCE},
    {"allreduce_coalesced", TLM_COLL_ALLREDUCE},
    {"all_reduce_coalesced", TLM_COLL_ALLREDUCE},
    {"allreduce_sparse", TLM_COLL_ALLREDUCE},
    {"reducescatter", TLM_COLL_REDUCESCATTER},
    {"reduce_scatter", TLM_COLL_REDUCESCATTER},
    {"_reduce_scatter_base", TLM_COLL_REDUCESCATTER},
    {"reduce_scatter_base", TLM_COLL_REDUCESCATTER},
    {"reduce_scatter_tensor_coalesced", TLM_COLL_REDUCESCATTER},
    {"reduce_scatter_tensor", TLM_COLL_REDUCESCATTER},
    {"allgather", TLM_COLL_ALLGATHER},
    {"all_gather", TLM_COLL_ALLGATHER},
    {"_allgather_base", TLM_COLL_ALLGATHER},
    {"_all_gather_base", TLM_COLL_ALLGATHER},
    {"allgather_base", TLM_COLL_ALLGATHER},
    {"all_gather_into_tensor_coalesced", TLM_COLL_ALLGATHER},
    {"allgather_into_tensor_coalesced", TLM_COLL_ALLGATHER},
    {"allgather_coalesced", TLM_COLL_ALLGATHER},
    {"all_gather_into_tensor", TLM_COLL_ALLGATHER},
    {"all_to_all", TLM_COLL_ALLTOALL},
    {"alltoall", TLM_COLL_ALLTOALL},
    {"all_to_allv", TLM_COLL_ALLTOALLV},
    {"alltoall_base", TLM_COLL_ALLTOALLV},
    {"broadcast", TLM_COLL_BROADCAST},
    {"_broadcast_oop", TLM_COLL_BROADCAST},
    {"reduce", TLM_COLL_REDUCE},
    {"_reduce_oop", TLM_COLL_REDUCE},
    {"gather", TLM_COLL_GATHER},
    {"scatter", TLM_COLL_SCATTER},
    {"barrier", TLM_COLL_BARRIER},
    {"send", TLM_COLL_SEND},
    {"recv", TLM_COLL_RECV},
    {"recvanysource", TLM_COLL_RECV},
    {"coalesced", TLM_COLL_COALESCED},
};

tlm_coll_type tlm_coll_type_from_name(const char *s, size_t len,
                                      int *is_wait)
{
    if (is_wait)
        *is_wait = 0;
    if (!s)
        return TLM_COLL_UNKNOWN;
    if (len > 5 && memcmp(s, "nccl:", 5) == 0) {
        s += 5;
        len -= 5;
    }
    if (eq_ci(s, len, "wait")) {
        if (is_wait)
            *is_wait = 1;
        return TLM_COLL_UNKNOWN;
    }
    for (size_t i = 0; i < sizeof cname_tab / sizeof cname_tab[0]; i++)
        if (eq_ci(s, len, cname_tab[i].name))
            return cname_tab[i].t;
    return TLM_COLL_UNKNOWN;
}

/* Kernel-name operation tokens ("AllReduce" in ncclDevKernel_AllReduce_...).
 * Longer tokens first so "ReduceScatter" wins over "Reduce". */
static const struct {
    const char *tok;
    tlm_coll_type t;
} ktok_tab[] = {
    {"ReduceScatter", TLM_COLL_REDUCESCATTER},
    {"AllReduce", TLM_COLL_ALLREDUCE},
    {"AllGather", TLM_COLL_ALLGATHER},
    {"AllToAll", TLM_COLL_ALLTOALL},
    {"Broadcast", TLM_COLL_BROADCAST},
    {"SendRecv", TLM_COLL_SENDRECV},
    {"Reduce", TLM_COLL_REDUCE},
    {"Send", TLM_COLL_SEND},
    {"Recv", TLM_COLL_RECV},
    {"Generic", TLM_COLL_UNKNOWN},
};

static const char *const algo_tok[] = {"RING", "TREE", "NVLS_TREE", "NVLS",
                                       "COLLNET_DIRECT", "COLLNET_CHAIN",
                                       "COLLNET", "PAT", NULL};
static const char *const proto_tok[] = {"LL128", "LL", "SIMPLE", NULL};

/* Whether tok[0..tl) is one of the words of tab (NULL-terminated). */
static int tok_in(const char *tok, size_t tl, const char *const *tab)
{
    for (; *tab; tab++)
        if (tok_is(tok, tl, *tab))
            return 1;
    return 0;
}

static int has_ci(const char *s, const char *pat)
{
    size_t n = strlen(pat);
    for (; *s; s++)
        if (eq_ci(s, strnlen(s, n), pat))
            return 1;
    return 0;
}

/* Splits the part of a kernel name before '(' into '_' tokens and reads
 * the operation, algorithm, protocol and element type. */
tlm_coll_type tlm_coll_type_from_kernel(const char *name, char *algo,
                                        tlm_dtype *dtype)
{
    if (algo)
        algo[0] = '\0';
    if (dtype)
        *dtype = TLM_DTYPE_UNKNOWN;
    if (!name)
        return TLM_COLL_UNKNOWN;
    if (has_ci(name, "cross_device_reduce"))
        return TLM_COLL_ALLREDUCE;
    const char *k = strstr(name, "Kernel_");
    if (!k)
        return TLM_COLL_UNKNOWN;
    k += 7;
    size_t end = strcspn(k, "(<");
    tlm_coll_type t = TLM_COLL_UNKNOWN;
    const char *al = NULL, *pr = NULL;
    size_t al_len = 0, pr_len = 0;
    size_t i = 0;
    int first = 1;
    while (i < end) {
        size_t j = i;
        while (j < end && k[j] != '_')
            j++;
        const char *tok = k + i;
        size_t tl = j - i;
        if (first) {
            for (size_t q = 0; q < sizeof ktok_tab / sizeof ktok_tab[0]; q++)
                if (tok_is(tok, tl, ktok_tab[q].tok)) {
                    t = ktok_tab[q].t;
                    break;
                }
            first = 0;
        } else {
            int used = 0;
            /* two-token algorithms: NVLS_TREE, COLLNET_DIRECT, ... */
            if (al && (size_t)(tok - al) == al_len + 1 &&
                (eq_ci(tok, tl, "TREE") || eq_ci(tok, tl, "DIRECT") ||
                 eq_ci(tok, tl, "CHAIN"))) {
                al_len += 1 + tl;
                used = 1;
            }
            if (!used && tok_in(tok, tl, algo_tok)) {
                al = tok;
                al_len = tl;
                used = 1;
            }
            if (!used && tok_in(tok, tl, proto_tok)) {
                pr = tok;
                pr_len = tl;
                used = 1;
            }
            if (!used && dtype && *dtype == TLM_DTYPE_UNKNOWN) {
                tlm_dtype d = tlm_dtype_from_name(tok, tl);
                if (d != TLM_DTYPE_UNKNOWN)
                    *dtype = d;
            }
        }
        i = j + 1;
    }
    if (algo && (al || pr)) {
        char buf[64];
        size_t n = 0;
        if (al) {
            memcpy(buf, al, al_len < 40 ? al_len : 40);
            n = al_len < 40 ? al_len : 40;
        }
        if (pr) {
            if (n)
                buf[n++] = '_';
            memcpy(buf + n, pr, pr_len < 16 ? pr_len : 16);
            n += pr_len < 16 ? pr_len : 16;
        }
        tlm_coll_strlcpy(algo, TLM_COLL_ALGO_LEN, buf, n);
    }
    return t;
}

double tlm_coll_bus_factor(tlm_coll_type t, int64_t n)
{
    if (n < 1)
        return NAN;
    double dn = (double)n;
    switch (t) {
    case TLM_COLL_ALLREDUCE:
        return 2.0 * (dn - 1.0) / dn;
    case TLM_COLL_ALLGATHER:
    case TLM_COLL_REDUCESCATTER:
    case TLM_COLL_ALLTOALL:
    case TLM_COLL_ALLTOALLV:
    case TLM_COLL_GATHER:
    case TLM_COLL_SCATTER:
        return (dn - 1.0) / dn;
    case TLM_COLL_BROADCAST:
    case TLM_COLL_REDUCE:
    case TLM_COLL_SEND:
    case TLM_COLL_RECV:
    case TLM_COLL_SENDRECV:
        return 1.0;
    default:
        return NAN;
    }
}

/* MARK: - shared helpers */

uint64_t tlm_coll_signature(int coll, int dtype, int64_t in_nelems,
                            int64_t out_nelems)
{
    if (coll == TLM_COLL_SEND || coll == TLM_COLL_RECV)
        coll = TLM_COLL_SENDRECV;
    if (coll == TLM_COLL_ALLTOALLV) /* sizes differ per rank by design */
        in_nelems = out_nelems = -1;
    uint64_t h = tlm_coll_mix(0x5167a7u, (uint64_t)coll);
    h = tlm_coll_mix(h, (uint64_t)dtype);
    h = tlm_coll_mix(h, (uint64_t)in_nelems);
    return tlm_coll_mix(h, (uint64_t)out_nelems);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t tlm_coll_sort_values(double *v, size_t n, double *sum)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    qsort(v, k, sizeof *v, cmp_dbl);
    double s = 0;
    for (size_t i = 0; i < k; i++)
        s += v[i];
    *sum = s;
    return k;
}

static int cmp_i64p(const void *a, const void *b)
{
    return tlm_coll_cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

int64_t tlm_coll_median_i64(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64p);
    if (n & 1)
        return v[n / 2];
    int64_t a = v[n / 2 - 1], b = v[n / 2];
    /* sorted: b >= a, so the difference fits in uint64 (computed there:
     * INT64_MAX - INT64_MIN overflows int64) and half of it is the floor */
    return a + (int64_t)(((uint64_t)b - (uint64_t)a) / 2u);
}

double tlm_coll_quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (n == 1)
        return v[0];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo >= n - 1)
        return v[n - 1];
    double frac = pos - (double)lo;
    return v[lo] + (v[lo + 1] - v[lo]) * frac;
}
