/*
 * find_report.c - findings of a report tlmpi just built: its sheets plus
 * memcpy_summary as the input, the hardware from the findings options or
 * else the GPU the report chose (tlm_report_gpu_get).
 */
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"

tlm_status tlm_find_input_of_report(const tlm_report *r,
                                    const tlm_find_opts *o,
                                    tlm_find_rin *x, tlm_error *err)
{
    memset(x, 0, sizeof *x);
    const tlm_report_gpu *g = tlm_report_gpu_get(r);
    char src[64];
    snprintf(src, sizeof src, "report GPU, source: %s",
             tlm_arch_source_name(g->source));
    tlm_status st = tlm_find_hw_resolve(o, g->has_arch ? &g->arch : NULL,
                                        src, &x->hw, err);
    if (st != TLM_OK)
        return st;
    size_t n = tlm_report_table_count(r);
    x->tabs = calloc(n + 1, sizeof *x->tabs);
    if (!x->tabs)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "findings: out of memory");
    for (size_t i = 0; i < n; i++)
        x->tabs[i] = tlm_report_tab(r, i);
    x->tabs[n] = tlm_report_memcpy_tab(r);
    x->in.tabs = x->tabs;
    x->in.ntabs = n + (x->tabs[n] != NULL);
    x->in.hw = &x->hw;
    x->in.label = tlm_report_label(r);
    return TLM_OK;
}

void tlm_find_rin_free(tlm_find_rin *x)
{
    free(x->tabs);
    memset(x, 0, sizeof *x);
}

tlm_status tlm_find_report(const tlm_report *r, const tlm_find_opts *o,
                           tlm_findings **out, tlm_error *err)
{
    *out = NULL;
    tlm_find_rin x;
    tlm_status st = tlm_find_input_of_report(r, o, &x, err);
    if (st == TLM_OK)
        st = tlm_find_standalone(&x.in, o, out, err);
    tlm_find_rin_free(&x);
    return st;
}
