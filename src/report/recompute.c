/*
 * recompute.c - --detect_recompute ([perfreport] §3.5, §4; TraceLens's
 * _detect_recompute_events): every event in the subtree of a
 * python_function of torch/utils/checkpoint.py's recompute_fn (the
 * forward ops activation checkpointing runs again during the backward
 * pass) is marked; the tables split their rows by the mark.
 *
 * Needs python functions in the tree (tlm_tree_opts.python_functions);
 * without them no event is marked.  One pass over the events and one walk
 * of each marked subtree (explicit stack).
 */
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* 1 for a name of recompute_fn in torch/utils/checkpoint.py. */
static int is_recompute_fn(const char *nm)
{
    return strstr(nm, "torch/utils/checkpoint.py") &&
           strstr(nm, "recompute_fn");
}

tlm_status tlm_rctx_recompute(tlm_rctx *ctx)
{
    size_t n = ctx->n;
    ctx->rc = calloc(n ? n : 1, 1);
    uint8_t *seen = calloc(ctx->n_names ? ctx->n_names : 1, 1);
    int32_t *stk = malloc((n ? n : 1) * sizeof *stk);
    if (!ctx->rc || !seen || !stk) {
        free(seen);
        free(stk);
        return TLM_ENOMEM;
    }
    const tlm_tree *t = ctx->tree;
    for (size_t i = 0; i < n; i++) {
        const tlm_event *e = &ctx->ev[i];
        if (e->cat != TLM_CAT_PYTHON_FUNCTION || ctx->rc[i])
            continue;
        uint8_t *s = e->name < ctx->n_names ? &seen[e->name] : NULL;
        if (s && !*s)
            *s = is_recompute_fn(tlm_rctx_name(ctx, (int32_t)i)) ? 2 : 1;
        if (s ? *s != 2 : !is_recompute_fn(tlm_rctx_name(ctx, (int32_t)i)))
            continue;
        /* the host subtree, then its GPU events */
        size_t sp = 0;
        stk[sp++] = (int32_t)i;
        while (sp) {
            int32_t u = stk[--sp];
            ctx->rc[u] = 1;
            for (int32_t c = tlm_nd(t, u)->first_child; c >= 0;
                 c = tlm_nd(t, c)->next_sibling)
                if (!ctx->rc[c] && sp < n)
                    stk[sp++] = c;
        }
        size_t ng;
        const int32_t *g = tlm_nd_gpu(t, (int32_t)i, &ng);
        for (size_t k = 0; k < ng; k++)
            ctx->rc[g[k]] = 1;
    }
    free(seen);
    free(stk);
    return TLM_OK;
}
