/*
 * pseudo_internal.h - TraceLens's pseudo ops inside the tree layer
 * (pseudo_names.c, pseudo_ops.c, pseudo_flydsl.c, pseudo_mla.c,
 * pseudo_inject.c;
 * docs/pseudo-ops.md).
 */
#ifndef TLM_PSEUDO_INTERNAL_H
#define TLM_PSEUDO_INTERNAL_H

#include "tree_internal.h"

/* Pseudo ops (--enable_pseudo_ops, pseudo_ops.c / pseudo_inject.c): one
 * planned injection, "donor op -> pseudo op -> launch -> kernel". */
typedef enum tlm_pseudo_rule {
    TLM_PSEUDO_AITER_FUSED = 0, /* pseudo_op::moe_aiter_fused_1stage */
    TLM_PSEUDO_TRITON_UP,       /* pseudo_op::moe_triton_unfused_up */
    TLM_PSEUDO_TRITON_DOWN,     /* pseudo_op::moe_triton_unfused_down */
    TLM_PSEUDO_TRITON_SCATTER,  /* ..._finalize_matmul_scatter */
    TLM_PSEUDO_GPTQ_UP,         /* pseudo_op::moe_gptq_awq_up */
    TLM_PSEUDO_GPTQ_DOWN,       /* pseudo_op::moe_gptq_awq_down */
    TLM_PSEUDO_FLYDSL_STAGE1,   /* pseudo_op::moe_flydsl_stage1 */
    TLM_PSEUDO_FLYDSL_STAGE2,   /* pseudo_op::moe_flydsl_stage2 */
    TLM_PSEUDO_OPUS_STAGE2,     /* pseudo_op::moe_opus_stage2_a8w4 */
    TLM_PSEUDO_MLA_DECODE,      /* pseudo_mla_decode_fwd */
    TLM_PSEUDO_MLA_PREFILL,     /* pseudo_mla_prefill_fwd */
    TLM_PSEUDO_V4_SWA,          /* pseudo_v4_paged_decode_swa */
    TLM_PSEUDO_V4_CSA,          /* pseudo_v4_paged_decode_csa */
    TLM_PSEUDO_V4_HCA,          /* pseudo_v4_paged_decode_hca */
    TLM_PSEUDO_RULE_COUNT
} tlm_pseudo_rule;

/* kernel: "parent of the launch -> pseudo op -> launch -> kernel"
 * (target = the kernel); above: "parent -> pseudo op -> target" (the
 * flydsl stages, target = the stage event); wrap: "target -> pseudo op
 * -> the target's former children" (MLA, target = the python frame). */
enum { TLM_PSEUDO_KERNEL = 0, TLM_PSEUDO_ABOVE = 1, TLM_PSEUDO_WRAP = 2 };
static inline int tlm_pseudo_kind(int rule)
{
    if (rule >= TLM_PSEUDO_MLA_DECODE)
        return TLM_PSEUDO_WRAP;
    return rule >= TLM_PSEUDO_FLYDSL_STAGE1 ? TLM_PSEUDO_ABOVE
                                            : TLM_PSEUDO_KERNEL;
}

typedef struct tlm_pseudo_spec {
    int32_t target; /* the kernel, or the event the pseudo op goes above */
    int32_t donor;  /* the op whose shapes and sequence number it takes */
    int32_t rule;   /* tlm_pseudo_rule */
} tlm_pseudo_spec;

/* Planning state shared by the rule files (pseudo_ops.c,
 * pseudo_flydsl.c). */
typedef struct tlm_pplan {
    const tlm_tree *t;
    uint8_t *claimed; /* per UID: target already planned */
    tlm_pseudo_spec *sp;
    size_t n, cap;
    struct tlm_pkref *tmp; /* scratch of n_gpu_order entries */
} tlm_pplan;

/* Plans a pseudo op for target unless it has one: 0, or -1 when out of
 * memory. */
int tlm_pplan_add(tlm_pplan *p, int32_t target, int32_t donor, int rule);
/* An event named id exists (id 0: never interned). */
int tlm_pplan_name_exists(const tlm_pplan *p, uint32_t id);
/* The flydsl / opus MoE stages (pseudo_flydsl.c): 0, or -1 when out of
 * memory. */
int tlm_pplan_flydsl(tlm_pplan *p);
/* The MLA decode / prefill frames (pseudo_mla.c): 0, or -1 when out of
 * memory. */
int tlm_pplan_mla(tlm_pplan *p);

/* Name of a rule's pseudo op. */
const char *tlm_pseudo_rule_name(int rule);

/* The injections the rules ask for, in TraceLens's order (at most one per
 * kernel).  *out is malloc'ed (free it), *n its length.  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_pseudo_plan(const tlm_tree *t, tlm_pseudo_spec **out,
                           size_t *n);

/* TraceLens's first step: "sglang_profiler::<op>_<n>" names lose "_<n>"
 * (pseudo_names.c); *renamed counts the events renamed.  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_pseudo_sglang_names(tlm_tree *t, tlm_trace *trace,
                                   size_t *renamed, tlm_error *err);

/* Appends one pseudo op per spec to the trace (UIDs n, n + 1, ...) and
 * to the tree; a kernel spec whose kernel has no launch, whose launch has
 * no parent, or whose launch already went under a pseudo op, and an
 * above spec whose target has no parent, are skipped (*skipped counts
 * them).  Errors: TLM_EINVAL (trace is not the tree's),
 * TLM_ENOMEM. */
tlm_status tlm_pseudo_inject(tlm_tree *t, tlm_trace *trace,
                             const tlm_pseudo_spec *sp, size_t n,
                             size_t *added, size_t *skipped,
                             tlm_error *err);

/* Name matching of the frame rules (pseudo_mla.c): a word byte of
 * Python's re (ASCII letters, digits, '_', and every byte >= 0x80); an
 * ASCII blank (\s); the count of digits at s[i]; w in s[0, n); s[i, n)
 * starts with w ('?' in w: any byte), *end after it. */
int tlm_pname_word(unsigned char c);
int tlm_pname_blank(unsigned char c);
size_t tlm_pname_digits(const char *s, size_t n, size_t i);
int tlm_pname_has(const char *s, size_t n, const char *w);
int tlm_pname_at(const char *s, size_t n, size_t i, const char *w,
                 size_t *end);

/* A python frame a frame rule matched. */
typedef struct tlm_pframe {
    uint32_t first; /* UID of the first event of the name */
    int32_t uid;
} tlm_pframe;

/* The python_function events whose name frame() matches into h, by name
 * (in order of first appearance), then UID; their count.  mark[u]: -2
 * for them, -1 for the others.  first[name id] is scratch of nstr
 * entries, all UINT32_MAX on entry and on return. */
size_t tlm_pplan_frames(const tlm_tree *t, int (*frame)(const char *, size_t),
                        int32_t *mark, tlm_pframe *h, uint32_t *first,
                        uint32_t nstr);
/* The DeepSeek-V4 paged decode frames (pseudo_v4.c): 0, or -1 when out
 * of memory. */
int tlm_pplan_v4(tlm_pplan *p);

/* The cpu roots again after pseudo ops n0.. were added (pseudo_roots.c):
 * the cpu_ops without a cpu_op above them, by (start, UID).  Errors:
 * TLM_ENOMEM (the roots unchanged). */
tlm_status tlm_pseudo_roots(tlm_tree *t, size_t n0);

#endif /* TLM_PSEUDO_INTERNAL_H */
