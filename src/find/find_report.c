/*
 * find_report.c - findings of a report tlmpi just built: its sheets plus
 * memcpy_summary as the input, the hardware from the findings options or
 * else the GPU the report chose (tlm_report_gpu_get).
 */
#include <stdlib.h>

#include "find_internal.h"

tlm_status tlm_find_report(const tlm_report *r, const tlm_find_opts *o,
                           tlm_findings **out, tlm_error *err)
{
    *out = NULL;
    const tlm_report_gpu *g = tlm_report_gpu_get(r);
    tlm_find_hw hw;
    char src[64];
    snprintf(src, sizeof src, "report GPU, source: %s",
             tlm_arch_source_name(g->source));
    tlm_status st = tlm_find_hw_resolve(o, g->has_arch ? &g->arch : NULL,
                                        src, &hw, err);
    if (st != TLM_OK)
        return st;
    size_t n = tlm_report_table_count(r);
    const tlm_tab **tabs = calloc(n + 1, sizeof *tabs);
    if (!tabs)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "findings: out of memory");
    for (size_t i = 0; i < n; i++)
        tabs[i] = tlm_report_tab(r, i);
    tabs[n] = tlm_report_memcpy_tab(r);
    tlm_find_input in = {tabs, n + (tabs[n] != NULL), &hw, r->label};
    st = tlm_find_standalone(&in, o, out, err);
    free(tabs);
    return st;
}
