/*
 * pseudo_v4.c - TraceLens's DeepSeek-V4 sparse paged decode pseudo ops
 * (docs/pseudo-ops.md), planned after MLA: every python_function frame
 * whose name has "paged_decode.py(" <digits> "):" <blanks>
 * "sparse_attn_v4_paged_decode" not followed by a word byte, below an
 * "aiter::v4_attention_with_output" op (the nearest is the donor), with
 * GPU events and children, gets pseudo_v4_paged_decode_<mode> wrapping
 * its children, where mode is, from the names of the donor's GPU events:
 * hca when one starts with "hca_", else csa when one starts with
 * "fused_compress_attn" or "_update_compressor_states_kernel", else swa.
 * Frames go by (pid, tid, start), ties by name (first appearance) and UID.
 */
#include <stdlib.h>
#include <string.h>

#include "pseudo_internal.h"

static const char k_call[] = "sparse_attn_v4_paged_decode";
static const char k_donor[] = "aiter::v4_attention_with_output";

static int v4_name(const char *s, size_t n)
{
    if (!tlm_pname_has(s, n, k_call))
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t e, d;
        if (!tlm_pname_at(s, n, i, "paged_decode.py(", &e))
            continue;
        d = tlm_pname_digits(s, n, e);
        if (d == 0 || !tlm_pname_at(s, n, e + d, "):", &e))
            continue;
        while (e < n && tlm_pname_blank((unsigned char)s[e]))
            e++;
        if (tlm_pname_at(s, n, e, k_call, &e) &&
            (e == n || !tlm_pname_word((unsigned char)s[e])))
            return 1;
    }
    return 0;
}

static int starts(const char *s, size_t n, const char *w)
{
    size_t m = strlen(w);
    return n >= m && memcmp(s, w, m) == 0;
}

/* The mode's rule from the donor's GPU events. */
static int mode(const tlm_tree *t, int32_t donor)
{
    size_t ng, n;
    const int32_t *g = tlm_nd_gpu(t, donor, &ng);
    int csa = 0;
    for (size_t i = 0; i < ng; i++) {
        const char *s = tlm_trace_str(t->trace, t->ev[g[i]].name, &n);
        if (starts(s, n, "hca_"))
            return TLM_PSEUDO_V4_HCA;
        csa |= starts(s, n, "fused_compress_attn") ||
               starts(s, n, "_update_compressor_states_kernel");
    }
    return csa ? TLM_PSEUDO_V4_CSA : TLM_PSEUDO_V4_SWA;
}

static int32_t donor_above(const tlm_tree *t, int32_t u, uint32_t id)
{
    size_t steps = 0;
    for (int32_t a = t->nd[u].parent; a >= 0 && steps <= t->n;
         a = t->nd[a].parent, steps++)
        if (t->ev[a].name == id)
            return a;
    return -1;
}

typedef struct okey {
    int64_t pid, tid, ts;
    size_t pos;
    int32_t uid;
} okey;

static int by_program_order(const void *a, const void *b)
{
    const okey *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int plan_frames(tlm_pplan *p, const tlm_pframe *h, size_t m,
                       okey *o, uint32_t id)
{
    const tlm_tree *t = p->t;
    for (size_t i = 0; i < m; i++) {
        const tlm_event *e = &t->ev[h[i].uid];
        o[i] = (okey){tlm_ev_pid(e), tlm_ev_tid(e), e->ts, i, h[i].uid};
    }
    qsort(o, m, sizeof *o, by_program_order);
    for (size_t i = 0; i < m; i++) {
        int32_t x = o[i].uid, d = donor_above(t, x, id);
        const tlm_tnode *nd = &t->nd[x];
        if (d < 0 || !tlm_nd_has_gpu(t, x) || nd->first_child < 0)
            continue;
        if (tlm_pplan_add(p, x, d, mode(t, d)) != 0)
            return -1;
    }
    return 0;
}

int tlm_pplan_v4(tlm_pplan *p)
{
    const tlm_tree *t = p->t;
    uint32_t id = tlm_trace_str_find(t->trace, k_donor, sizeof k_donor - 1);
    if (!tlm_pplan_name_exists(p, id))
        return 0; /* no donor: no frame can have one */
    uint32_t nstr = tlm_trace_str_count(t->trace);
    size_t n = t->n ? t->n : 1;
    int32_t *mark = malloc(n * sizeof *mark);
    tlm_pframe *h = malloc(n * sizeof *h);
    okey *o = malloc(n * sizeof *o);
    uint32_t *first = malloc((nstr ? nstr : 1) * sizeof *first);
    int rc = mark && h && o && first ? 0 : -1;
    if (rc == 0) {
        memset(first, 0xff, (size_t)nstr * sizeof *first);
        size_t m = tlm_pplan_frames(t, v4_name, mark, h, first, nstr);
        rc = plan_frames(p, h, m, o, id);
    }
    free(mark);
    free(h);
    free(o);
    free(first);
    return rc;
}
