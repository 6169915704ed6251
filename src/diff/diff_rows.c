/*
 * diff_rows.c - the rows of diff_stats for the layers above (the TraceDiff
 * enrichment of a report, --comparison_json_path): each row's ids, side,
 * LCA and busy time, and the text of its cells as diff_stats.csv has them.
 */
#include "diff_csv.h"

#include <stdlib.h>

static const char *const COLS[TLM_DIFF_STATS_NCOLS] = {
    "name", "cpu_op_name", "cpu_op_uid", "source", "Input Dims",
    "Input Strides", "Input type", "Concrete Inputs", "kernel_time",
    "busy_time", "lowest_common_ancestor_name", "lowest_common_ancestor_id",
    "gpu_op_uid", "nn_module_stack", "nn_module_parent"};

_Static_assert(TLM_DIFF_STATS_NCOLS == TLM_DC_N, "diff_stats columns");

size_t tlm_diff_row_count(const tlm_diff *d) { return d ? d->nrows : 0; }

void tlm_diff_row_get(const tlm_diff *d, size_t i, tlm_diff_row *out)
{
    const tlm_drow *r = &d->rows[i];
    out->gpu_uid = r->g;
    out->cpu_uid = r->cpu;
    out->lca_id = r->lca;
    out->side = r->side;
    out->busy_time = r->busy;
    out->lca_name = "";
    out->lca_name_len = 0;
    if (r->lca >= 0 && r->lca_name > 0)
        out->lca_name = tlm_dstrtab_str(&d->names, r->lca_name,
                                        &out->lca_name_len);
}

const char *tlm_diff_stats_colname(int col)
{
    return col >= 0 && col < TLM_DIFF_STATS_NCOLS ? COLS[col] : NULL;
}

tlm_status tlm_diff_stats_cell(tlm_diff *d, size_t i, int col,
                               const char **text, size_t *len)
{
    *text = "";
    *len = 0;
    if (i >= d->nrows || col < 0 || col >= TLM_DIFF_STATS_NCOLS)
        return TLM_EINVAL;
    if (!d->cells) {
        d->cells = calloc(1, sizeof *d->cells);
        if (!d->cells)
            return TLM_ENOMEM;
        tlm_status st = tlm_dcells_build(d, d->cells);
        if (st != TLM_OK) {
            tlm_dcells_free(d->cells);
            free(d->cells);
            d->cells = NULL;
            return st;
        }
    }
    *text = tlm_dcell(d->cells, i, col, len);
    return TLM_OK;
}
