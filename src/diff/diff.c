/*
 * diff.c - TraceDiff's entry points: the two sides, the merge, the rows,
 * the identical-trace check (§6.2) and the statistics.
 */
#include "diff_internal.h"

#include <stdlib.h>
#include <string.h>

void tlm_diff_opts_init(tlm_diff_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_wf_cells = (size_t)1 << 28;
}

static tlm_status side_init(tlm_dside *s, const tlm_tree *t)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->tr = tlm_tree_trace(t);
    s->ev = tlm_trace_events(s->tr, &s->n);
    s->n = tlm_tree_size(t);
    s->nstr = tlm_trace_str_count(s->tr) + 1;
    for (int k = 0; k < 2; k++) {
        s->nid[k] = malloc(s->nstr * sizeof *s->nid[k]);
        if (!s->nid[k])
            return TLM_ENOMEM;
        for (uint32_t i = 0; i < s->nstr; i++)
            s->nid[k][i] = -2;
    }
    s->pos = malloc((s->n + 1) * sizeof *s->pos);
    s->pos_stamp = calloc(s->n + 1, sizeof *s->pos_stamp);
    return s->pos && s->pos_stamp ? TLM_OK : TLM_ENOMEM;
}

static void side_free(tlm_dside *s)
{
    free(s->nid[0]);
    free(s->nid[1]);
    free(s->pos);
    free(s->pos_stamp);
}

void tlm_diff_free(tlm_diff *d)
{
    if (!d)
        return;
    tlm_diff_out_free(d);
    side_free(&d->s[0]);
    side_free(&d->s[1]);
    tlm_dstrtab_free(&d->names);
    tlm_sbuf_free(&d->tmp);
    free(d->nodes);
    tlm_ivec_free(&d->kids);
    tlm_ivec_free(&d->roots);
    tlm_i3map_free(&d->memo);
    free(d->mark);
    free(d->mval);
    free(d->rows);
    free(d);
}

const tlm_diff_stats *tlm_diff_stats_get(const tlm_diff *d) { return &d->st; }

/* §6.2: the trace1 rows equal the trace2 rows (a trace with itself). */
static int rows_identical(const tlm_diff *d)
{
    size_t n1 = 0, n2 = 0;
    for (size_t i = 0; i < d->nrows; i++)
        d->rows[i].side ? n2++ : n1++;
    if (n1 != n2)
        return 0;
    size_t a = 0, b = 0;
    for (size_t k = 0; k < n1; k++) {
        while (d->rows[a].side != 0)
            a++;
        while (d->rows[b].side != 1)
            b++;
        const tlm_drow *x = &d->rows[a++], *y = &d->rows[b++];
        if (x->g != y->g || x->cpu != y->cpu || x->lca != y->lca ||
            x->lca_name != y->lca_name || x->busy != y->busy)
            return 0;
        const tlm_event *ex = &d->s[0].ev[x->g], *ey = &d->s[1].ev[y->g];
        if (tlm_ev_dur(ex) != tlm_ev_dur(ey) ||
            strcmp(tlm_trace_str(d->s[0].tr, ex->name, NULL),
                   tlm_trace_str(d->s[1].tr, ey->name, NULL)) != 0 ||
            strcmp(tlm_trace_str(d->s[0].tr, d->s[0].ev[x->cpu].name, NULL),
                   tlm_trace_str(d->s[1].tr, d->s[1].ev[y->cpu].name,
                                 NULL)) != 0)
            return 0;
        for (tlm_arg key = TLM_ARG_INPUT_DIMS; key <= TLM_ARG_CONCRETE_INPUTS;
             key++) {
            const char *p = tlm_event_arg_str(d->s[0].tr,
                                              &d->s[0].ev[x->cpu], key, NULL);
            const char *q = tlm_event_arg_str(d->s[1].tr,
                                              &d->s[1].ev[y->cpu], key, NULL);
            if ((p == NULL) != (q == NULL) || (p && strcmp(p, q) != 0))
                return 0;
        }
    }
    return 1;
}

tlm_status tlm_diff_build(const tlm_tree *tree1, const tlm_tree *tree2,
                          const tlm_diff_opts *opts, tlm_diff **out,
                          tlm_error *err)
{
    *out = NULL;
    if (!tree1 || !tree2)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "no tree");
    tlm_diff *d = calloc(1, sizeof *d);
    if (!d)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (opts)
        d->opts = *opts;
    else
        tlm_diff_opts_init(&d->opts);
    tlm_sbuf_init(&d->tmp);
    tlm_status st = TLM_ENOMEM;
    if (side_init(&d->s[0], tree1) != TLM_OK ||
        side_init(&d->s[1], tree2) != TLM_OK ||
        tlm_dstrtab_init(&d->names) != TLM_OK ||
        tlm_i3map_init(&d->memo, 1024) != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory");
        goto fail;
    }
    if ((st = tlm_diff_merge(d, err)) != TLM_OK ||
        (st = tlm_diff_collect(d, err)) != TLM_OK)
        goto fail;
    size_t lcas = 0;
    uint8_t *seen = calloc(d->nn + 1, 1);
    if (!seen) {
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < d->nrows; i++) {
        tlm_drow *r = &d->rows[i];
        r->side ? d->st.rows2++ : d->st.rows1++;
        if (r->lca >= 0 && !seen[r->lca]) {
            seen[r->lca] = 1;
            lcas++;
        }
    }
    free(seen);
    d->st.lcas = lcas;
    d->st.no_gpu = d->nrows == 0;
    d->st.identical = d->nrows == 0 || rows_identical(d);
    d->identical = d->st.identical;
    d->no_gpu = d->st.no_gpu;
    *out = d;
    return TLM_OK;
fail:
    tlm_diff_free(d);
    return st;
}
