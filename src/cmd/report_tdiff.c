/*
 * report_tdiff.c - `tlmpi report --comparison_json_path T2` (TraceLens's
 * TraceDiff enrichment, shared/spec/tracediff.md §10.2): T2 read and its
 * tree built with the report's options, TraceDiff of the report's tree
 * (baseline) against it, the report enriched by src/rdiff.  TraceLens
 * also runs the vLLM attention annotation on T2's tree; that annotation
 * feeds only the InferenceAttention perf model, never TraceDiff, so T2
 * gets no report at all here.
 */
#include "report_tl.h"

#include "rdiff.h"

#include <stdio.h>

tlm_status tlm_cli_tl_compare(const tlm_cli_tl *t, const tlm_cli_ropts *co,
                              tlm_cli_built *b, tlm_error *err)
{
    if (!t->comparison_json_path)
        return TLM_OK;
    tlm_cli_built b2;
    tlm_status st = tlm_cli_build_tree(t->comparison_json_path, co, &b2, err);
    if (st != TLM_OK)
        return st;
    tlm_diff *d = NULL;
    st = tlm_diff_build(b->tree, b2.tree, NULL, &d, err);
    if (st == TLM_EINVAL) {
        char m[512];
        snprintf(m, sizeof m, "--comparison_json_path: %.480s", err->msg);
        tlm_error_set(err, st, t->comparison_json_path, -1, "%s", m);
    }
    if (st == TLM_OK)
        st = tlm_rdiff_enrich(b->rep, d, err);
    tlm_diff_free(d);
    tlm_cli_built_free(&b2);
    return st;
}
