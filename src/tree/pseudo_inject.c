/*
 * pseudo_inject.c - puts planned pseudo ops into the trace and the tree
 * (docs/pseudo-ops.md).  Above a kernel: the pseudo op Q becomes the last
 * child of the launch's parent P, the launch L its only child, and L
 * leaves P's children; Q owns the kernel's GPU slice only; its event has
 * P's pid/tid and the kernel's ts/dur (TraceLens gives it none).  Above
 * an event X (the flydsl stages): Q takes X's place among its parent's
 * children, X is its only child, Q owns X's GPU slice and has X's
 * pid/tid/ts/dur.  Q is a cpu_op with the arguments Input Dims / Input
 * type / Input Strides / Concrete Inputs of the donor, Sequence number
 * (the donor's, else the donor's UID) and, above a kernel, External id
 * (the kernel's correlation).  Wrapping a python frame X (MLA): Q is X's
 * only child, X's former children are Q's, Q owns X's GPU slice and has
 * X's pid/tid/ts/dur, its Sequence number falls back to X's UID; then the
 * cpu roots are the cpu_ops without a cpu_op above them again (Q is one
 * when X has none above it; the roots below Q are roots no more).
 */
#include <stdlib.h>
#include <string.h>

#include "pseudo_internal.h"

static const tlm_arg copied[] = {TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE,
                                 TLM_ARG_INPUT_STRIDES,
                                 TLM_ARG_CONCRETE_INPUTS};

/* The pseudo op's arguments; their count. */
static size_t pseudo_args(const tlm_tree *t, const tlm_pseudo_spec *s,
                          tlm_arg *k, tlm_argv *v)
{
    const tlm_trace *tr = t->trace;
    size_t n = 0;
    for (size_t i = 0; i < sizeof copied / sizeof *copied; i++)
        if (tlm_event_arg(tr, &t->ev[s->donor], copied[i], &v[n]) !=
            TLM_ARGV_NONE)
            k[n++] = copied[i];
    k[n] = TLM_ARG_SEQUENCE_NUMBER;
    int32_t seq = tlm_pseudo_kind(s->rule) == TLM_PSEUDO_WRAP ? s->target
                                                              : s->donor;
    if (tlm_event_arg(tr, &t->ev[s->donor], k[n], &v[n]) == TLM_ARGV_NONE)
        v[n] = (tlm_argv){TLM_ARGV_INT, seq, 0};
    n++;
    k[n] = TLM_ARG_EXTERNAL_ID;
    if (tlm_pseudo_kind(s->rule) == TLM_PSEUDO_KERNEL &&
        tlm_event_arg(tr, &t->ev[s->target], TLM_ARG_CORRELATION, &v[n]) !=
            TLM_ARGV_NONE)
        n++;
    return n;
}

/* The event of a pseudo op with the ids of par, the times of span. */
static tlm_event pseudo_event(const tlm_tree *t, int32_t par, int32_t span,
                              uint32_t name, uint32_t cat)
{
    const tlm_event *p = &t->ev[par], *k = &t->ev[span];
    tlm_event e;
    memset(&e, 0, sizeof e);
    e.ts = k->ts;
    e.dur_ = k->dur_;
    e.track = p->track;
    e.has_tid = p->has_tid;
    e.name = name;
    e.cat_str = cat;
    e.cat = TLM_CAT_CPU_OP;
    e.ph = 'X';
    e.flags = (uint8_t)(TLM_EV_HAS_TS | TLM_EV_HAS_DUR |
                        (p->flags & (TLM_EV_PID_STR | TLM_EV_TID_STR |
                                     TLM_EV_HAS_PID)));
    e.tflags = k->tflags; /* with dur_, TLM_EVT_DUR_WIDE */
    return e;
}

/* Node u (new) between P and L: L out of P's children, u last. */
static void relink_kernel(tlm_tree *t, int32_t u, int32_t P, int32_t L)
{
    tlm_tnode *nd = t->nd;
    int32_t *link = &nd[P].first_child;
    while (*link >= 0 && *link != L)
        link = &nd[*link].next_sibling;
    if (*link == L)
        *link = nd[L].next_sibling;
    while (*link >= 0)
        link = &nd[*link].next_sibling;
    *link = u;
    nd[u] = (tlm_tnode){P, L, -1,
                        (uint8_t)(TLM_NODE_TREE | TLM_NODE_HOST),
                        (uint8_t)TLM_CAT_CPU_OP, 0};
    nd[L].parent = u;
    nd[L].next_sibling = -1;
}

/* Node u (new) in X's place among P's children, X its only child. */
static void relink_above(tlm_tree *t, int32_t u, int32_t P, int32_t X)
{
    tlm_tnode *nd = t->nd;
    int32_t *link = &nd[P].first_child;
    while (*link >= 0 && *link != X)
        link = &nd[*link].next_sibling;
    *link = u; /* X is P's child: found */
    nd[u] = (tlm_tnode){P, X, nd[X].next_sibling,
                        (uint8_t)(TLM_NODE_TREE | TLM_NODE_HOST),
                        (uint8_t)TLM_CAT_CPU_OP, 0};
    nd[X].parent = u;
    nd[X].next_sibling = -1;
}

/* Node u (new) X's only child, X's former children u's. */
static void relink_wrap(tlm_tree *t, int32_t u, int32_t X)
{
    tlm_tnode *nd = t->nd;
    nd[u] = (tlm_tnode){X, nd[X].first_child, -1,
                        (uint8_t)(TLM_NODE_TREE | TLM_NODE_HOST),
                        (uint8_t)TLM_CAT_CPU_OP, 0};
    for (int32_t c = nd[X].first_child; c >= 0; c = nd[c].next_sibling)
        nd[c].parent = u;
    nd[X].first_child = u;
}

static tlm_status one(tlm_tree *t, tlm_trace *tr, const tlm_pseudo_spec *s,
                      const uint32_t *names, uint32_t cat, size_t n0,
                      tlm_grange *rg, int *skip, tlm_error *err)
{
    int kind = tlm_pseudo_kind(s->rule);
    int above = kind == TLM_PSEUDO_ABOVE, wrap = kind == TLM_PSEUDO_WRAP;
    int32_t L = above || wrap ? s->target : t->nd[s->target].parent;
    int32_t P = L >= 0 ? t->nd[L].parent : -1;
    /* no launch / parent, or the launch already under a pseudo op; a
     * wrapped frame needs children only */
    if (wrap)
        *skip = t->nd[L].first_child < 0;
    else
        *skip = P < 0 || (!above && (size_t)P >= n0);
    if (*skip)
        return TLM_OK;
    tlm_arg k[8];
    tlm_argv v[8];
    size_t na = pseudo_args(t, s, k, v);
    tlm_event e = above || wrap
                      ? pseudo_event(t, L, L, names[s->rule], cat)
                      : pseudo_event(t, P, s->target, names[s->rule], cat);
    uint64_t uid;
    tlm_status st = tlm_trace_append_event(tr, &e, k, v, na, &uid, err);
    if (st != TLM_OK)
        return st;
    t->ev = tlm_trace_events(tr, NULL);
    /* Q owns the GPU slice of the kernel (above a kernel) or of X */
    rg[t->n] = rg[above || wrap ? L : s->target];
    if (wrap)
        relink_wrap(t, (int32_t)t->n, L);
    else if (above)
        relink_above(t, (int32_t)t->n, P, L);
    else
        relink_kernel(t, (int32_t)t->n, P, L);
    t->n++;
    return TLM_OK;
}

static tlm_status intern_names(tlm_trace *tr, uint32_t *names,
                               uint32_t *cat)
{
    tlm_status st = TLM_OK;
    for (int r = 0; r < TLM_PSEUDO_RULE_COUNT && st == TLM_OK; r++) {
        const char *s = tlm_pseudo_rule_name(r);
        names[r] = tlm_trace_str_intern(tr, s, strlen(s), &st);
    }
    if (st == TLM_OK)
        *cat = tlm_trace_str_intern(tr, "cpu_op", 6, &st);
    return st;
}

tlm_status tlm_pseudo_inject(tlm_tree *t, tlm_trace *trace,
                             const tlm_pseudo_spec *sp, size_t n,
                             size_t *added, size_t *skipped,
                             tlm_error *err)
{
    size_t n0 = t->n, ntr;
    *added = *skipped = 0;
    tlm_trace_events(trace, &ntr);
    if (trace != t->trace || ntr != n0 || n0 + n > (size_t)INT32_MAX)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "pseudo ops: the tree does not cover the "
                             "trace's events");
    if (n == 0)
        return TLM_OK;
    uint32_t names[TLM_PSEUDO_RULE_COUNT], cat;
    tlm_tnode *nd = realloc(t->nd, (n0 + n) * sizeof *nd);
    if (!nd || intern_names(trace, names, &cat) != TLM_OK) {
        if (nd)
            t->nd = nd;
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "pseudo ops: out of memory");
    }
    t->nd = nd;
    /* the GPU slices as one array while nodes are relinked */
    tlm_grange *rg = tlm_tree_granges_open(t, n0 + n);
    if (!rg)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "pseudo ops: out of memory");
    int wrapped = 0;
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < n && st == TLM_OK; i++) {
        int skip;
        st = one(t, trace, &sp[i], names, cat, n0, rg, &skip, err);
        *skipped += (size_t)(st == TLM_OK && skip);
        *added += (size_t)(st == TLM_OK && !skip);
        wrapped |= st == TLM_OK && !skip &&
                   tlm_pseudo_kind(sp[i].rule) == TLM_PSEUDO_WRAP;
    }
    if (tlm_tree_granges_close(t, rg) != TLM_OK && st == TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "pseudo ops: out of memory");
    if (st != TLM_OK)
        return st;
    if (wrapped && tlm_pseudo_roots(t, n0) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "pseudo ops: out of memory");
    return TLM_OK;
}
