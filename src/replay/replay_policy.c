/*
 * replay_policy.c - which ops and types a replay may touch (spec
 * replay.md §11 S1, S3, S4): the op-name grammar, the namespace
 * allow-list, the deny-list of side-effecting, file, communication and
 * profiler ops, and the fixed table of argument types.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

static const tlm_rp_type types[] = {
    {"c10::BFloat16", TLM_RPK_TENSOR, 2},
    {"c10::Half", TLM_RPK_TENSOR, 2},
    {"float", TLM_RPK_TENSOR, 4},
    {"double", TLM_RPK_TENSOR, 8},
    {"bool", TLM_RPK_TENSOR, 1},
    {"long int", TLM_RPK_TENSOR, 8},
    {"long", TLM_RPK_TENSOR, 8},
    {"int", TLM_RPK_TENSOR, 4},
    {"short int", TLM_RPK_TENSOR, 2},
    {"signed char", TLM_RPK_TENSOR, 1},
    {"unsigned char", TLM_RPK_TENSOR, 1},
    {"c10::complex<float>", TLM_RPK_TENSOR, 8},
    {"c10::complex<double>", TLM_RPK_TENSOR, 16},
    {"c10::Float8_e4m3fn", TLM_RPK_TENSOR, 1},
    {"c10::Float8_e5m2", TLM_RPK_TENSOR, 1},
    {"c10::Float8_e4m3fnuz", TLM_RPK_TENSOR, 1},
    {"c10::Float8_e5m2fnuz", TLM_RPK_TENSOR, 1},
    {"Scalar", TLM_RPK_SCALAR, 0},
    {"ScalarList", TLM_RPK_SCALARLIST, 0},
    {"TensorList", TLM_RPK_TENSORLIST, TLM_RP_LIST_ELSIZE},
    {"", TLM_RPK_NONE, 0},
};

const tlm_rp_type *tlm_rp_type_find(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == n && memcmp(types[i].name, s, n) == 0)
            return &types[i];
    return NULL;
}

/* Namespaces never replayed, whatever --replay_namespaces says:
 * collectives (they would hang or talk to other hosts), the profiler,
 * TorchScript's interpreter primitives. */
static const char *const denied_ns[] = {
    "c10d", "_c10d_functional", "c10d_functional", "_c10d_functional_autograd",
    "_dtensor", "profiler", "prim", "record_param_comms", "cuda", "nccl",
    "builtins", "os", "sys", "subprocess", "posix", "importlib",
};

/* Op names (any allowed namespace) never replayed: files, stream and
 * process state, asserts and printing, storage swapping. */
static const char *const denied_ops[] = {
    "save", "load", "from_file", "_save_jit_module", "record_stream",
    "set_", "_assert_async", "_assert_scalar", "_assert_tensor_metadata",
    "_print", "_cufft_clear_plan_cache", "_cufft_set_plan_cache_max_size",
    "sym_constrain_range", "_functional_sym_constrain_range",
    "_make_dep_token", "_nested_tensor_from_mask", "_set_cudnn_enabled",
};

/* Substrings of denied op names: collectives and files in any form. */
static const char *const denied_parts[] = {
    "allreduce", "all_reduce", "allgather", "all_gather", "reduce_scatter",
    "alltoall", "all_to_all", "barrier", "_send", "_recv", "isend", "irecv",
    "file", "_load", "_save",
};

int tlm_rp_ident(const char *s, size_t n, size_t max)
{
    if (n == 0 || n > max)
        return 0;
    if ((s[0] >= '0' && s[0] <= '9') || (n >= 2 && s[0] == '_' && s[1] == '_'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              (c >= 'A' && c <= 'Z')))
            return 0;
    }
    return 1;
}

static int in_list(const char *const *v, size_t nv, const char *s, size_t n)
{
    for (size_t i = 0; i < nv; i++)
        if (strlen(v[i]) == n && memcmp(v[i], s, n) == 0)
            return 1;
    return 0;
}

static int has_part(const char *s, size_t n)
{
    char buf[TLM_RP_MAX_NAME + 1];
    if (n > TLM_RP_MAX_NAME)
        return 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    buf[n] = '\0';
    for (size_t i = 0; i < sizeof denied_parts / sizeof denied_parts[0]; i++)
        if (strstr(buf, denied_parts[i]))
            return 1;
    return 0;
}

/* 1 when ns[0..n) is one of the comma list's names. */
static int ns_allowed(const char *ns, size_t n, const char *list)
{
    if (!list)
        list = "aten";
    while (*list) {
        const char *e = strchr(list, ',');
        size_t k = e ? (size_t)(e - list) : strlen(list);
        if (k == n && memcmp(list, ns, n) == 0)
            return 1;
        if (!e)
            break;
        list = e + 1;
    }
    return 0;
}

tlm_replay_reason tlm_rp_check_name(const char *s, size_t n,
                                    const char *nslist)
{
    const char *sep = NULL;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == ':' && s[i + 1] == ':') {
            sep = s + i;
            break;
        }
    if (!sep || memchr(s, '\0', n))
        return TLM_RR_BAD_OP_NAME;
    size_t nsl = (size_t)(sep - s), opl = n - nsl - 2;
    const char *op = sep + 2;
    if (!tlm_rp_ident(s, nsl, 63) || !tlm_rp_ident(op, opl, 127))
        return TLM_RR_BAD_OP_NAME;
    if (in_list(denied_ns, sizeof denied_ns / sizeof denied_ns[0], s, nsl))
        return TLM_RR_DENIED_OP;
    if (!ns_allowed(s, nsl, nslist))
        return TLM_RR_NAMESPACE;
    if (in_list(denied_ops, sizeof denied_ops / sizeof denied_ops[0], op,
                opl) || has_part(op, opl))
        return TLM_RR_DENIED_OP;
    return TLM_RR_OK;
}

tlm_status tlm_replay_ns_validate(const char *list, tlm_error *err)
{
    if (!list || !*list)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--replay_namespaces: empty list");
    size_t count = 0;
    for (const char *p = list;; count++) {
        const char *e = strchr(p, ',');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (!tlm_rp_ident(p, k, 63) || count >= TLM_RP_MAX_NS)
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "--replay_namespaces: '%.*s' is not a "
                                 "namespace name ([A-Za-z_][A-Za-z0-9_]*, "
                                 "not starting with __; at most %d names)",
                                 (int)(k > 64 ? 64 : k), p, TLM_RP_MAX_NS);
        if (in_list(denied_ns, sizeof denied_ns / sizeof denied_ns[0], p, k))
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "--replay_namespaces: '%.*s' is never "
                                 "replayed (communication, profiler or "
                                 "interpreter ops)", (int)k, p);
        if (!e)
            break;
        p = e + 1;
    }
    return TLM_OK;
}

char *tlm_rp_printable(const char *s, size_t n, size_t max)
{
    if (n > max)
        n = max;
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        o[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    o[n] = '\0';
    return o;
}

void tlm_rp_json_str(tlm_sbuf *b, const char *s)
{
    tlm_sbuf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            tlm_sbuf_putc(b, '\\');
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            tlm_sbuf_printf(b, "\\u%04x", (unsigned char)*s);
        else
            tlm_sbuf_putc(b, *s);
    }
    tlm_sbuf_putc(b, '"');
}
