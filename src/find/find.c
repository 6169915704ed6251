/*
 * find.c - the entry points: standalone findings (S1-S19) of one trace,
 * comparative findings (C1-C6, then C7 = the target's standalone ones).
 */
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"
#include "grow.h"

static void label(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static void hw_copy(const tlm_find_input *in, tlm_find_hw *dst)
{
    if (in->hw)
        *dst = *in->hw;
    else
        memset(dst, 0, sizeof *dst);
}

static tlm_status done(tlm_findings *f, tlm_findings **out, tlm_error *err)
{
    if (f && !f->oom && !f->skipped.oom && !f->summary.oom &&
        !f->analysis.oom) {
        *out = f;
        return TLM_OK;
    }
    tlm_findings_free(f);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "findings: out of memory");
}

static void run_standalone(const tlm_find_input *in, const tlm_find_opts *o,
                           tlm_findings *f)
{
    fnd_ctx c;
    fnd_ctx_init(&c, in, o);
    fnd_summary(&c, f);
    fnd_rules_system(&c, f);
    fnd_rules_ops(&c, f);
    fnd_rules_misc(&c, f);
}

tlm_status tlm_find_standalone(const tlm_find_input *in,
                               const tlm_find_opts *o, tlm_findings **out,
                               tlm_error *err)
{
    tlm_find_opts def;
    if (!o) {
        tlm_find_opts_init(&def);
        o = &def;
    }
    *out = NULL;
    tlm_findings *f = fnd_list_new(o);
    if (f) {
        label(f->label, sizeof f->label, in->label);
        hw_copy(in, &f->hw);
        run_standalone(in, o, f);
        fnd_finish(f);
    }
    return done(f, out, err);
}

/* Moves s's findings to the end of f, numbering on from f's last P. */
static void append(tlm_findings *f, tlm_findings *s)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].id[0])
            k++;
    for (size_t i = 0; i < s->n && !f->oom; i++) {
        if (tlm_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v, 16)) {
            f->oom = 1;
            break;
        }
        f->v[f->n] = s->v[i];
        if (f->v[f->n].id[0])
            snprintf(f->v[f->n].id, sizeof f->v[f->n].id, "P%zu", ++k);
        f->n++;
        memset(&s->v[i], 0, sizeof s->v[i]); /* moved: nothing to free */
    }
    tlm_sbuf_putn(&f->skipped, s->skipped.p ? s->skipped.p : "",
                  s->skipped.len);
    tlm_sbuf_putn(&f->analysis, s->analysis.p ? s->analysis.p : "",
                  s->analysis.len);
    f->oom |= s->oom;
}

tlm_status tlm_find_compare(const tlm_find_input *target,
                            const tlm_find_input *reference,
                            const tlm_find_opts *o, tlm_findings **out,
                            tlm_error *err)
{
    tlm_find_opts def;
    if (!o) {
        tlm_find_opts_init(&def);
        o = &def;
    }
    *out = NULL;
    tlm_findings *f = fnd_list_new(o);
    tlm_findings *s = fnd_list_new(o);
    if (f && s) {
        f->has_ref = 1;
        label(f->label, sizeof f->label, target->label);
        label(f->label_ref, sizeof f->label_ref, reference->label);
        hw_copy(target, &f->hw);
        hw_copy(reference, &f->hw_ref);
        fnd_ctx t, r;
        fnd_ctx_init(&t, target, o);
        fnd_ctx_init(&r, reference, o);
        fnd_rules_compare(&t, &r, f);
        fnd_finish(f);
        f->n_comparative = f->n;
        run_standalone(target, o, s);
        fnd_finish(s);
        tlm_sbuf_putn(&f->summary, s->summary.p ? s->summary.p : "",
                      s->summary.len);
        append(f, s);
    } else if (f) {
        f->oom = 1;
    }
    tlm_findings_free(s);
    return done(f, out, err);
}
