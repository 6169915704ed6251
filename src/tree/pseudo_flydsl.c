/*
 * pseudo_flydsl.c - TraceLens's pseudo ops for the two-stage MoE under
 * "aiter::fused_moe_" (docs/pseudo-ops.md), planned after the other
 * rules.  For each stage, in this order:
 *
 *   pseudo_op::moe_flydsl_stage1     marker flydsl_moe_stage1
 *   pseudo_op::moe_flydsl_stage2     marker flydsl_moe_stage2
 *   pseudo_op::moe_opus_stage2_a8w4  marker opus_moe_stage2_a8w4_decode_fwd
 *
 * the stage events are the cpu_ops named "sglang_profiler::...<marker>"
 * when there are any, else the python_function frames named
 * "...: <marker>"; each one below an "aiter::fused_moe_" op gets a pseudo
 * op above it, with the shapes of the nearest such op.  Events go by name
 * (names in order of first appearance), then by UID, as TraceLens's
 * name index.
 */
#include <stdlib.h>
#include <string.h>

#include "pseudo_internal.h"

static const char k_prof[] = "sglang_profiler::";

static const struct {
    int rule;
    const char *marker;
} stages[] = {
    {TLM_PSEUDO_FLYDSL_STAGE1, "flydsl_moe_stage1"},
    {TLM_PSEUDO_FLYDSL_STAGE2, "flydsl_moe_stage2"},
    {TLM_PSEUDO_OPUS_STAGE2, "opus_moe_stage2_a8w4_decode_fwd"},
};

static int ends_with(const char *s, size_t n, const char *suf, size_t m)
{
    return n >= m && memcmp(s + n - m, suf, m) == 0;
}

/* 1: a profiler op of the marker; 2: a python frame of it; else 0. */
static int stage_kind(const char *s, size_t n, const char *marker)
{
    size_t m = strlen(marker), pl = sizeof k_prof - 1;
    if (n >= pl && memcmp(s, k_prof, pl) == 0 && ends_with(s, n, marker, m))
        return 1;
    if (ends_with(s, n, marker, m) && n >= m + 2 &&
        memcmp(s + n - m - 2, ": ", 2) == 0)
        return 2;
    return 0;
}

/* Nearest "aiter::fused_moe_" above u, or -1. */
static int32_t fused_moe_above(const tlm_tree *t, int32_t u, uint32_t id)
{
    size_t steps = 0;
    for (int32_t a = t->nd[u].parent; a >= 0 && steps <= t->n;
         a = t->nd[a].parent, steps++)
        if (t->ev[a].name == id)
            return a;
    return -1;
}

typedef struct hit {
    uint32_t first; /* UID of the first event of the name */
    int32_t uid;
} hit;

static int by_name_then_uid(const void *a, const void *b)
{
    const hit *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return (x->uid > y->uid) - (x->uid < y->uid);
}

/* The stage events of one marker into h (one per event at most), in
 * name-then-UID order; their count.  The profiler ops when some event
 * has such a name (then only its cpu_ops count), else the python frames.
 * first[name id] is scratch (UINT32_MAX = unseen), reset here. */
static size_t stage_events(const tlm_pplan *p, const char *marker, hit *h,
                           uint32_t *first, uint32_t nstr)
{
    const tlm_tree *t = p->t;
    size_t m = 0, n;
    int want = 2;
    for (size_t i = 0; i < t->n && want == 2; i++) {
        const char *s = tlm_trace_str(t->trace, t->ev[i].name, &n);
        if (stage_kind(s, n, marker) == 1)
            want = 1;
    }
    for (size_t i = 0; i < t->n; i++) {
        uint32_t id = t->ev[i].name;
        const char *s = tlm_trace_str(t->trace, id, &n);
        if (id >= nstr || stage_kind(s, n, marker) != want)
            continue;
        if (first[id] == UINT32_MAX)
            first[id] = (uint32_t)i;
        unsigned cat = t->ev[i].cat;
        if (want == 1 ? cat == TLM_CAT_CPU_OP
                      : cat == TLM_CAT_PYTHON_FUNCTION)
            h[m++] = (hit){first[id], (int32_t)i};
    }
    memset(first, 0xff, (size_t)nstr * sizeof *first);
    qsort(h, m, sizeof *h, by_name_then_uid);
    return m;
}

int tlm_pplan_flydsl(tlm_pplan *p)
{
    const tlm_tree *t = p->t;
    uint32_t moe = tlm_trace_str_find(t->trace, "aiter::fused_moe_", 17);
    if (!tlm_pplan_name_exists(p, moe))
        return 0;
    uint32_t nstr = tlm_trace_str_count(t->trace);
    hit *h = malloc((t->n ? t->n : 1) * sizeof *h);
    uint32_t *first = malloc((nstr ? nstr : 1) * sizeof *first);
    int rc = h && first ? 0 : -1;
    if (first)
        memset(first, 0xff, (size_t)nstr * sizeof *first);
    for (size_t k = 0; rc == 0 && k < sizeof stages / sizeof *stages; k++) {
        size_t m = stage_events(p, stages[k].marker, h, first, nstr);
        for (size_t i = 0; i < m && rc == 0; i++) {
            int32_t d = fused_moe_above(t, h[i].uid, moe);
            if (d >= 0)
                rc = tlm_pplan_add(p, h[i].uid, d, stages[k].rule);
        }
    }
    free(h);
    free(first);
    return rc;
}
