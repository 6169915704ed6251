/*
 * tlm_diff.h - TraceDiff: the morphological comparison of two call trees
 * (TraceLens's TraceDiff, shared/spec/tracediff.md; docs/diff.md).
 *
 * tlm_diff_build aligns the host call trees of two traces (tree 1 the
 * baseline, tree 2 the variant) node by node into a merged tree (roots
 * paired by position, children aligned by Wagner-Fischer on normalised
 * names, wrapper collapses, same-name disambiguation), then collects one
 * row per GPU op under each divergence with its lowest common ancestor
 * (LCA) and the busy time of its side's group.  tlm_diff_stage writes
 * TraceLens's files (merged_tree_output.txt, diff_stats.csv,
 * diff_stats_unique_args_summary.csv, cpu_op_map*.json) and tlmpi's
 * diff_summary.csv into an output set.
 *
 * The trees must be built with python_functions = 0 (TraceLens's
 * TreePerfAnalyzer.from_file) and outlive the diff; they are not
 * modified.  No recursion: deep trees are walked with explicit stacks.
 */
#ifndef TLM_DIFF_H
#define TLM_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "tlm_common.h"
#include "tlm_outset.h"
#include "tlm_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlm_diff_opts {
    /* Wagner-Fischer cells (m x n of one pair of sibling lists) above
     * which the alignment falls back to matching the common suffix and
     * deleting/inserting the rest (counted in stats.wf_fallbacks).
     * 0 = default (1 << 28: 32 MiB of backtrack bits). */
    size_t max_wf_cells;
    /* Bytes one output may take (an upper bound of merged_tree_output.txt
     * is checked before any file is made: TLM_ELIMIT, nothing written).
     * 0 = default (TLM_DIFF_MAX_OUTPUT_DEFAULT). */
    uint64_t max_output_bytes;
} tlm_diff_opts;
#define TLM_DIFF_MAX_OUTPUT_DEFAULT ((uint64_t)4 << 30)

TLM_API void tlm_diff_opts_init(tlm_diff_opts *o);

typedef struct tlm_diff_stats {
    size_t roots1, roots2;     /* root trees per side (§3) */
    size_t merged_nodes;       /* nodes of the merged tree */
    size_t rows1, rows2;       /* diff_stats rows per side */
    size_t lcas;               /* distinct LCA ids among the rows */
    size_t summary_rows;       /* diff_stats_unique_args_summary rows */
    size_t wf_fallbacks;       /* alignments over max_wf_cells */
    int identical;             /* §6.2: a trace compared with itself */
    int no_gpu;                /* no row at all (§9 Q1) */
} tlm_diff_stats;

typedef struct tlm_diff tlm_diff;

/* Builds the merged tree and the rows.  Errors: TLM_EINVAL (a tree
 * without cpu root ops: "Both trees must have at least one root node"),
 * TLM_ENOMEM. */
TLM_API tlm_status tlm_diff_build(const tlm_tree *tree1,
                                  const tlm_tree *tree2,
                                  const tlm_diff_opts *opts, tlm_diff **out,
                                  tlm_error *err);
TLM_API void tlm_diff_free(tlm_diff *d);
TLM_API const tlm_diff_stats *tlm_diff_stats_get(const tlm_diff *d);

/* One row of diff_stats (§6.2), in row order: trace1 and trace2 rows
 * both, also when the traces are identical (the file keeps trace1's). */
typedef struct tlm_diff_row {
    int32_t gpu_uid;      /* gpu_op_uid: the GPU op's UID in its trace */
    int32_t cpu_uid;      /* cpu_op_uid: its nearest cpu_op */
    int32_t lca_id;       /* merged id of the LCA, -1 = none */
    int side;             /* 0 = trace1, 1 = trace2 */
    double busy_time;     /* the group's busy time, rounded as the file */
    const char *lca_name; /* lowest_common_ancestor_name ("" = none) */
    size_t lca_name_len;
} tlm_diff_row;

TLM_API size_t tlm_diff_row_count(const tlm_diff *d);
/* Row i (< tlm_diff_row_count); the name lives as long as d. */
TLM_API void tlm_diff_row_get(const tlm_diff *d, size_t i, tlm_diff_row *out);

/* The columns of diff_stats.csv and the text of one cell of row i as the
 * file has it (unquoted; "" for an empty cell), valid until the next
 * tlm_diff_render / _stage / _stats_cell call.  Errors: TLM_ENOMEM,
 * TLM_EINVAL (row or column out of range). */
#define TLM_DIFF_STATS_NCOLS 15
TLM_API const char *tlm_diff_stats_colname(int col);
TLM_API tlm_status tlm_diff_stats_cell(tlm_diff *d, size_t i, int col,
                                       const char **text, size_t *len);

/* Every output of the diff, in the order tlm_diff_stage writes them. */
#define TLM_DIFF_FILES(X)                                  \
    X(TLM_DIFF_TREE, "merged_tree_output.txt")             \
    X(TLM_DIFF_STATS, "diff_stats.csv")                    \
    X(TLM_DIFF_UNIQUE, "diff_stats_unique_args_summary.csv") \
    X(TLM_DIFF_MAP, "cpu_op_map.json")                     \
    X(TLM_DIFF_MAP1, "cpu_op_map_trace1.json")             \
    X(TLM_DIFF_MAP2, "cpu_op_map_trace2.json")             \
    X(TLM_DIFF_SUMMARY, "diff_summary.csv")

typedef enum tlm_diff_file {
#define TLM_X_(e, s) e,
    TLM_DIFF_FILES(TLM_X_)
#undef TLM_X_
    TLM_DIFF_NFILES
} tlm_diff_file;

TLM_API const char *tlm_diff_file_name(tlm_diff_file f);

/* Writes the text of one output into a string (malloc'ed, *len bytes,
 * NUL-terminated; free with free()).  Tables without rows are written
 * with their header only (TraceLens writes no file then; docs/diff.md).
 * Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_diff_render(tlm_diff *d, tlm_diff_file f, char **text,
                                   size_t *len, tlm_error *err);

/* Stages every output as dir/<name> in set (checked, written to the
 * temporaries); the caller commits.  Errors: those of tlm_outset_stage,
 * TLM_EIO, TLM_ENOMEM. */
TLM_API tlm_status tlm_diff_stage(tlm_diff *d, tlm_outset *set,
                                  const char *dir, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_DIFF_H */
