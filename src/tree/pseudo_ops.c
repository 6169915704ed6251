/*
 * pseudo_ops.c - which kernels get a pseudo op (TraceLens's pseudo-op
 * extensions, docs/pseudo-ops.md), in TraceLens's order:
 *
 *   1. with a "vllm::moe_forward" event:
 *      a. and a "vllm::rocm_aiter_fused_moe" event: under each such op
 *         the one kernel whose name has "aiter::" and "fmoe" and neither
 *         "MoeSorting" nor "quant" (any case); none if not exactly one;
 *      b. else, when some kernel's name has "matmul_ogs" (any case): under
 *         each vllm::moe_forward every such kernel in start order, the
 *         first "up", the others "down"; then the GPU event whose name has
 *         "matmul_scatter" (any case), when there is exactly one;
 *   2. with a "vllm::outplace_fused_experts" event and some kernel whose
 *      name has "fused_moe_kernel_gptq_awq": under each such op every
 *      such kernel in start order, the first "up", the others "down".
 *
 *   3. the flydsl / opus stages under "aiter::fused_moe_"
 *      (pseudo_flydsl.c);
 *   4. the MLA decode, then prefill python frames (pseudo_mla.c);
 *   5. the DeepSeek-V4 paged decode frames (pseudo_v4.c).
 *
 * A kernel already given a pseudo op is not given a second one.  The
 * donor of the shapes is the MoE op.
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "pseudo_internal.h"

static const char *const rule_names[TLM_PSEUDO_RULE_COUNT] = {
    "pseudo_op::moe_aiter_fused_1stage",
    "pseudo_op::moe_triton_unfused_up",
    "pseudo_op::moe_triton_unfused_down",
    "pseudo_op::moe_triton_unfused_finalize_matmul_scatter",
    "pseudo_op::moe_gptq_awq_up",
    "pseudo_op::moe_gptq_awq_down",
    "pseudo_op::moe_flydsl_stage1",
    "pseudo_op::moe_flydsl_stage2",
    "pseudo_op::moe_opus_stage2_a8w4",
    "pseudo_mla_decode_fwd",
    "pseudo_mla_prefill_fwd",
    "pseudo_v4_paged_decode_swa",
    "pseudo_v4_paged_decode_csa",
    "pseudo_v4_paged_decode_hca",
};

const char *tlm_pseudo_rule_name(int rule)
{
    return rule >= 0 && rule < TLM_PSEUDO_RULE_COUNT ? rule_names[rule]
                                                     : NULL;
}

/* needle in s[0, n): exact bytes, or ASCII case-insensitive (ci). */
static int has(const char *s, size_t n, const char *needle, int ci)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m <= n && i <= n - m; i++) {
        size_t j = 0;
        while (j < m) {
            unsigned char a = (unsigned char)s[i + j];
            unsigned char b = (unsigned char)needle[j];
            if (ci && a >= 'A' && a <= 'Z')
                a = (unsigned char)(a - 'A' + 'a');
            if (a != b)
                break;
            j++;
        }
        if (j == m)
            return 1;
    }
    return 0;
}

typedef struct tlm_pkref {
    int64_t ts;
    int32_t pos, uid;
} kref;

typedef tlm_pplan plan;

static const char *ename(const plan *p, int32_t u, size_t *len)
{
    return tlm_trace_str(p->t->trace, p->t->ev[u].name, len);
}

static int is_kernel(const plan *p, int32_t g)
{
    return p->t->ev[g].cat == TLM_CAT_KERNEL;
}

int tlm_pplan_add(plan *p, int32_t kernel, int32_t donor, int rule)
{
    if (p->claimed[kernel])
        return 0;
    if (tlm_grow((void **)&p->sp, &p->cap, p->n + 1, sizeof *p->sp, 64))
        return -1;
    p->claimed[kernel] = 1;
    p->sp[p->n++] = (tlm_pseudo_spec){kernel, donor, rule};
    return 0;
}

int tlm_pplan_name_exists(const plan *p, uint32_t id)
{
    for (size_t i = 0; id && i < p->t->n; i++)
        if (p->t->ev[i].name == id)
            return 1;
    return 0;
}

static int kernel_name_has(const plan *p, const char *needle, int ci)
{
    for (size_t i = 0; i < p->t->n; i++) {
        size_t len;
        if (!is_kernel(p, (int32_t)i))
            continue;
        const char *s = ename(p, (int32_t)i, &len);
        if (has(s, len, needle, ci))
            return 1;
    }
    return 0;
}

static int aiter_kernel(const plan *p, int32_t g)
{
    size_t n;
    const char *s = ename(p, g, &n);
    return is_kernel(p, g) && has(s, n, "aiter::", 0) &&
           has(s, n, "fmoe", 0) && !has(s, n, "MoeSorting", 0) &&
           !has(s, n, "quant", 1);
}

static int triton_kernel(const plan *p, int32_t g)
{
    size_t n;
    const char *s = ename(p, g, &n);
    return is_kernel(p, g) && has(s, n, "matmul_ogs", 1);
}

static int gptq_kernel(const plan *p, int32_t g)
{
    size_t n;
    const char *s = ename(p, g, &n);
    return is_kernel(p, g) && has(s, n, "fused_moe_kernel_gptq_awq", 0);
}

static int scatter_event(const plan *p, int32_t g)
{
    size_t n;
    const char *s = ename(p, g, &n);
    return has(s, n, "matmul_scatter", 1);
}

/* start order, ties in the op's GPU-event order (a stable sort) */
static int by_ts(const void *a, const void *b)
{
    const kref *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The GPU events of op u matching f (in start order when sorted) into
 * p->tmp; their count. */
static size_t collect(plan *p, int32_t u, int (*f)(const plan *, int32_t),
                      int sorted)
{
    size_t ng, m = 0;
    const int32_t *g = tlm_nd_gpu(p->t, u, &ng);
    for (size_t i = 0; i < ng; i++)
        if (f(p, g[i]))
            p->tmp[m++] = (kref){p->t->ev[g[i]].ts, (int32_t)i, g[i]};
    if (sorted && m > 1)
        qsort(p->tmp, m, sizeof *p->tmp, by_ts);
    return m;
}

/* Every op named id in UID order, with rule family fam. */
static int each_op(plan *p, uint32_t id, int fam)
{
    for (size_t i = 0; id && i < p->t->n; i++) {
        int32_t u = (int32_t)i;
        if (p->t->ev[u].name != id || !(p->t->nd[u].flags & TLM_NODE_TREE))
            continue;
        size_t m;
        if (fam == TLM_PSEUDO_AITER_FUSED) {
            if (collect(p, u, aiter_kernel, 0) == 1 &&
                tlm_pplan_add(p, p->tmp[0].uid, u, TLM_PSEUDO_AITER_FUSED) != 0)
                return -1;
            continue;
        }
        int up = fam == TLM_PSEUDO_GPTQ_UP ? TLM_PSEUDO_GPTQ_UP
                                           : TLM_PSEUDO_TRITON_UP;
        m = collect(p, u, up == TLM_PSEUDO_GPTQ_UP ? gptq_kernel
                                                   : triton_kernel, 1);
        if (m == 0)
            continue;
        for (size_t k = 0; k < m; k++)
            if (tlm_pplan_add(p, p->tmp[k].uid, u, k == 0 ? up : up + 1) != 0)
                return -1;
        if (up == TLM_PSEUDO_TRITON_UP &&
            collect(p, u, scatter_event, 0) == 1 &&
            tlm_pplan_add(p, p->tmp[0].uid, u, TLM_PSEUDO_TRITON_SCATTER) != 0)
            return -1;
    }
    return 0;
}

static uint32_t sid(const tlm_tree *t, const char *s)
{
    return tlm_trace_str_find(t->trace, s, strlen(s));
}

static int run_rules(plan *p)
{
    const tlm_tree *t = p->t;
    if (tlm_pplan_name_exists(p, sid(t, "vllm::moe_forward"))) {
        uint32_t aiter = sid(t, "vllm::rocm_aiter_fused_moe");
        if (tlm_pplan_name_exists(p, aiter)) {
            if (each_op(p, aiter, TLM_PSEUDO_AITER_FUSED) != 0)
                return -1;
        } else if (kernel_name_has(p, "matmul_ogs", 1) &&
                   each_op(p, sid(t, "vllm::moe_forward"),
                           TLM_PSEUDO_TRITON_UP) != 0) {
            return -1;
        }
    }
    uint32_t gptq = sid(t, "vllm::outplace_fused_experts");
    if (tlm_pplan_name_exists(p, gptq) &&
        kernel_name_has(p, "fused_moe_kernel_gptq_awq", 0) &&
        each_op(p, gptq, TLM_PSEUDO_GPTQ_UP) != 0)
        return -1;
    if (tlm_pplan_flydsl(p) != 0)
        return -1;
    if (tlm_pplan_mla(p) != 0)
        return -1;
    return tlm_pplan_v4(p);
}

tlm_status tlm_pseudo_plan(const tlm_tree *t, tlm_pseudo_spec **out,
                           size_t *n)
{
    plan p = {t, NULL, NULL, 0, 0, NULL};
    *out = NULL;
    *n = 0;
    p.claimed = calloc(t->n ? t->n : 1, 1);
    p.tmp = malloc((t->n_gpu_order ? t->n_gpu_order : 1) * sizeof *p.tmp);
    int bad = !p.claimed || !p.tmp || run_rules(&p) != 0;
    free(p.claimed);
    free(p.tmp);
    if (bad) {
        free(p.sp);
        return TLM_ENOMEM;
    }
    *out = p.sp;
    *n = p.n;
    return TLM_OK;
}

tlm_status tlm_tree_pseudo_ops(tlm_tree *tree, tlm_trace *trace,
                               size_t *added, tlm_error *err)
{
    if (added)
        *added = 0;
    if (!tree || !trace || tree->trace != trace)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "pseudo ops: the trace is not the tree's");
    if (tree->pseudo_done)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "pseudo ops: already added to this tree");
    tree->pseudo_done = 1;
    tlm_pseudo_spec *sp;
    size_t n, got = 0, skipped = 0, renamed;
    tlm_status st = tlm_pseudo_sglang_names(tree, trace, &renamed, err);
    if (st != TLM_OK)
        return st;
    if (tlm_pseudo_plan(tree, &sp, &n) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "pseudo ops: out of memory");
    st = tlm_pseudo_inject(tree, trace, sp, n, &got, &skipped, err);
    free(sp);
    tree->stats.n_pseudo_ops += got;
    tree->stats.n_pseudo_skipped += skipped;
    if (added)
        *added = got;
    return st;
}
