/*
 * hta_md.c - the "HTA" section of report.md: per rank the idle share by
 * cause (from idle_time_breakdown, all streams), the GPU idle share
 * (temporal_breakdown) and the communication overlap; the critical path's
 * split when it was built; and the HTA quirks that changed a number, with
 * counts (spec/hta.md §11).
 */
#include "hta_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"

static void num(tlm_sbuf *b, double v)
{
    if (isnan(v))
        tlm_sbuf_puts(b, "-");
    else
        tlm_sbuf_printf(b, "%.2f", v);
}

/* Value of column col for rank in a per-rank table, NaN if none. */
static double rank_val(const tlm_hta_table *t, int64_t rank, size_t col)
{
    for (size_t i = 0; t && i < t->tab->nrows; i++) {
        if (tlm_hta_cell_i64(t, i, 0) == rank)
            return tlm_hta_cell_f64(t, i, col);
    }
    return NAN;
}

static void idle_rows(tlm_sbuf *b, const tlm_hta_result *r)
{
    const tlm_hta_table *idle = tlm_hta_result_find(r, "idle_time_breakdown");
    const tlm_hta_table *tb = tlm_hta_result_find(r, "temporal_breakdown");
    const tlm_hta_table *ov = tlm_hta_result_find(r, "comm_comp_overlap");
    if (!idle || !tb)
        return;
    tlm_sbuf_puts(b, "| rank | GPU idle % | host_wait % | kernel_wait % | "
                     "other % | comm overlapped by compute % |\n"
                     "|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < tb->tab->nrows; i++) {
        int64_t rank = tlm_hta_cell_i64(tb, i, 0);
        double s[3] = {0, 0, 0}, tot = 0;
        for (size_t j = 0; j < idle->tab->nrows; j++) {
            if (tlm_hta_cell_i64(idle, j, 0) != rank)
                continue;
            const char *c = tlm_hta_cell_str(idle, j, 2, NULL);
            int k = c[0] == 'h' ? 0 : c[0] == 'k' ? 1 : 2;
            s[k] += tlm_hta_cell_f64(idle, j, 3);
        }
        tot = s[0] + s[1] + s[2];
        tlm_sbuf_printf(b, "| %lld | ", (long long)rank);
        num(b, tlm_hta_cell_f64(tb, i, 5));
        for (int k = 0; k < 3; k++) {
            tlm_sbuf_puts(b, " | ");
            num(b, tot != 0 ? 100.0 * s[k] / tot : NAN);
        }
        tlm_sbuf_puts(b, " | ");
        num(b, rank_val(ov, rank, 1));
        tlm_sbuf_puts(b, " |\n");
    }
    tlm_sbuf_puts(b, "\n");
}

static void cp_rows(tlm_sbuf *b, const tlm_hta_result *r)
{
    const tlm_hta_table *cp = tlm_hta_result_find(r, "critical_path_summary");
    if (!cp) {
        if (r->notes.cp_reason[0]) {
            tlm_sbuf_puts(b, "Critical path: none (");
            tlm_sbuf_md(b, r->notes.cp_reason, 160, TLM_MD_TEXT);
            tlm_sbuf_puts(b, ").\n\n");
        }
        return;
    }
    tlm_sbuf_puts(b, "Critical path (`critical_path_summary.csv`):");
    for (size_t i = 0; i < cp->tab->nrows; i++) {
        size_t len;
        const char *s = tlm_hta_cell_str(cp, i, 0, &len);
        if (len == 0 || strcmp(s, "total") == 0)
            continue;
        tlm_sbuf_puts(b, " ");
        tlm_sbuf_md(b, s, 64, TLM_MD_TEXT);
        tlm_sbuf_puts(b, " ");
        num(b, tlm_hta_cell_f64(cp, i, cp->def->ncols - 1));
        tlm_sbuf_puts(b, " %;");
    }
    tlm_sbuf_puts(b, "\n\n");
}

static void quirks(tlm_sbuf *b, const tlm_hta_notes *n)
{
    tlm_sbuf_puts(b, "Quirks and input notes:\n\n");
    size_t before = b->len;
    if (n->n_rounded_ranks)
        tlm_sbuf_printf(b, "- HTA's microsecond rounding applied on %llu "
                           "rank(s) (`--hta_time us`)\n",
                        (unsigned long long)n->n_rounded_ranks);
    if (n->n_neg_dur && n->n_rounded_ranks)
        tlm_sbuf_printf(b, "- Q1: %llu events had duration -1 us after "
                           "HTA's rounding (%llu of them GPU events)\n",
                        (unsigned long long)n->n_neg_dur,
                        (unsigned long long)n->n_neg_dur_gpu);
    else if (n->n_neg_dur)
        tlm_sbuf_printf(b, "- %llu events with a negative duration in the "
                           "trace, used as given (%llu GPU events)\n",
                        (unsigned long long)n->n_neg_dur,
                        (unsigned long long)n->n_neg_dur_gpu);
    if (n->n_temporal_neg)
        tlm_sbuf_printf(b, "- Q2: temporal_breakdown has a negative time on "
                           "%llu rank(s) (HTA gives no table there)\n",
                        (unsigned long long)n->n_temporal_neg);
    if (n->n_ranks_filtered)
        tlm_sbuf_printf(b, "- Q4: iteration filter on %llu rank(s): %llu "
                           "events outside the analysed steps dropped\n",
                        (unsigned long long)n->n_ranks_filtered,
                        (unsigned long long)n->n_filtered_out);
    if (n->steps[0]) {
        tlm_sbuf_printf(b, "- steps analysed (rank %lld): ",
                        (long long)n->steps_rank);
        tlm_sbuf_md(b, n->steps, sizeof n->steps, TLM_MD_TEXT);
        tlm_sbuf_puts(b, "\n");
    }
    if (n->n_rocm_launches)
        tlm_sbuf_printf(b, "- Q8: %llu ROCm launch calls counted in the "
                           "launch tables (HTA has none)\n",
                        (unsigned long long)n->n_rocm_launches);
    if (n->n_driver_launches)
        tlm_sbuf_printf(b, "- Q8: %llu driver-API launches (cuLaunchKernel*) "
                           "kept out of the launch tables, as HTA\n",
                        (unsigned long long)n->n_driver_launches);
    if (n->n_seq_clamped)
        tlm_sbuf_printf(b, "- Q9: %llu negative durations taken as 0 in the "
                           "kernel-sequence call stacks (HTA raises)\n",
                        (unsigned long long)n->n_seq_clamped);
    if (n->n_dup_corr)
        tlm_sbuf_printf(b, "- %llu correlation ids shared by several events "
                           "of one side (last pairing wins)\n",
                        (unsigned long long)n->n_dup_corr);
    if (n->n_orphan_kernels)
        tlm_sbuf_printf(b, "- %llu GPU events without their launch in the "
                           "trace\n",
                        (unsigned long long)n->n_orphan_kernels);
    if (n->n_cp_neg_edges)
        tlm_sbuf_printf(b, "- Q10: %llu critical-path edges weigh <= -1 us "
                           "(%llu on the path): 0 in the path search, their "
                           "own weight in the tables\n",
                        (unsigned long long)n->n_cp_neg_edges,
                        (unsigned long long)n->n_cp_neg_on_path);
    if (n->n_cp_left_out)
        tlm_sbuf_printf(b, "- critical path: %llu launch or sync edges "
                           "left out (a partner without a node, or Event "
                           "Sync / Stream Wait Event; HTA stops or skips "
                           "them)\n",
                        (unsigned long long)n->n_cp_left_out);
    if (n->n_no_ts)
        tlm_sbuf_printf(b, "- %llu events without ts left out\n",
                        (unsigned long long)n->n_no_ts);
    if (n->has_seq && !n->seq_rank_found)
        tlm_sbuf_puts(b, "- frequent_cuda_kernel_sequences: the rank of "
                         "--hta_rank was not analysed\n");
    if (b->len == before)
        tlm_sbuf_puts(b, "- none\n");
    tlm_sbuf_puts(b, "\n");
}

tlm_status tlm_hta_markdown(const tlm_hta_result *r, char **md)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    const tlm_hta_notes *n = &r->notes;
    tlm_sbuf_puts(&b, "## HTA\n\n"
                      "Holistic Trace Analysis tables in `hta/` "
                      "(docs/hta.md); times in microseconds.\n\n");
    if (n->n_no_gpu)
        tlm_sbuf_printf(&b, "%llu rank(s) have no GPU events (no stream "
                            "argument): their tables have no rows.\n\n",
                        (unsigned long long)n->n_no_gpu);
    idle_rows(&b, r);
    cp_rows(&b, r);
    quirks(&b, n);
    if (b.oom) {
        tlm_sbuf_free(&b);
        return TLM_ENOMEM;
    }
    *md = b.p;
    if (!*md) {
        *md = calloc(1, 1);
        if (!*md)
            return TLM_ENOMEM;
    }
    return TLM_OK;
}
