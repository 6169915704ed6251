/*
 * job_tables.c - the rows of one trace's single-trace report that a
 * process of the driver keeps: ops_summary, ops_unique_args and kernel_summary, copied
 * cell by cell into the flat row structs of tables.h (/ops/per_rank,
 * /ops_unique_args, /kernels), with TraceLens's milliseconds and
 * microseconds turned into nanoseconds.  Tables and columns are found by
 * the names tlm_report.h exports (TLM_TABNAME_*, TLM_COLNAME_*), the same
 * constants src/ops.c and src/kernels.c define them with; a missing column
 * or an empty cell becomes NaN, -1 or "".
 */
#include "job.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* Where a report cell goes in a row struct, and how. */
typedef enum cellkind { CELL_STR, CELL_INT, CELL_NUM } cellkind;

typedef struct cellspec {
    const char *col;   /* report column name */
    cellkind kind;     /* STR: text; INT: int64_t, -1 if empty; NUM:
                        * double times scale, NaN if empty */
    size_t off, size;  /* the field in the row struct */
    double scale;
} cellspec;

#define CELL_(ROW, KIND, field, col, scale)                                 \
    {col, CELL_##KIND, offsetof(ROW, field), sizeof(((ROW *)0)->field),     \
     scale}

/* The three lists below are data (report column -> row field), one line a
 * column; their likeness is that of a table, not repeated logic. */

/* ops_summary -> tlm_row_op (TraceLens: milliseconds) */
static const cellspec ops_cells[] = {
    CELL_(tlm_row_op, STR, name, TLM_COLNAME_OPS_NAME, 0),
    CELL_(tlm_row_op, STR, categories, TLM_COLNAME_OPS_CATEGORIES, 0),
    CELL_(tlm_row_op, INT, count, TLM_COLNAME_OPS_COUNT, 0),
    CELL_(tlm_row_op, NUM, direct_kernel_ns, TLM_COLNAME_OPS_DIRECT_MS, 1e6),
    CELL_(tlm_row_op, NUM, subtree_kernel_ns, TLM_COLNAME_OPS_SUBTREE_MS,
          1e6),
    CELL_(tlm_row_op, NUM, percent, TLM_COLNAME_OPS_PERCENT, 1.0),
};

/* ops_unique_args -> tlm_row_uargs (TraceLens: microseconds) */
#define U_(KIND, field, col, scale)                                         \
    CELL_(tlm_row_uargs, KIND, field, col, scale)
static const cellspec uargs_cells[] = {
    U_(STR, name, TLM_COLNAME_UARGS_NAME, 0),
    U_(STR, op_category, TLM_COLNAME_UARGS_CATEGORY, 0),
    U_(STR, input_dims, TLM_COLNAME_UARGS_INPUT_DIMS, 0),
    U_(STR, input_type, TLM_COLNAME_UARGS_INPUT_TYPE, 0),
    U_(STR, input_strides, TLM_COLNAME_UARGS_INPUT_STRIDES, 0),
    U_(STR, concrete_inputs, TLM_COLNAME_UARGS_CONCRETE_INPUTS, 0),
    U_(INT, count, TLM_COLNAME_UARGS_COUNT, 0),
    U_(NUM, direct_kernel_ns_mean, TLM_COLNAME_UARGS_DIRECT_MEAN, 1e3),
    U_(NUM, direct_kernel_ns_median, TLM_COLNAME_UARGS_DIRECT_MEDIAN, 1e3),
    U_(NUM, direct_kernel_ns_min, TLM_COLNAME_UARGS_DIRECT_MIN, 1e3),
    U_(NUM, direct_kernel_ns_max, TLM_COLNAME_UARGS_DIRECT_MAX, 1e3),
    U_(NUM, direct_kernel_ns_sum, TLM_COLNAME_UARGS_DIRECT_SUM, 1e3),
    U_(NUM, subtree_kernel_ns_sum, TLM_COLNAME_UARGS_SUBTREE_SUM, 1e3),
    U_(INT, ex_uid, TLM_COLNAME_UARGS_EX_UID, 0),
    U_(NUM, percent, TLM_COLNAME_UARGS_PERCENT, 1.0),
};
#undef U_

/* kernel_summary -> tlm_row_kernel (TraceLens: microseconds) */
#define K_(KIND, field, col, scale)                                         \
    CELL_(tlm_row_kernel, KIND, field, col, scale)
static const cellspec kernel_cells[] = {
    K_(STR, parent_op_category, TLM_COLNAME_KERNEL_PARENT_CATEGORY, 0),
    K_(STR, parent_op, TLM_COLNAME_KERNEL_PARENT_OP, 0),
    K_(STR, kernel, TLM_COLNAME_KERNEL_NAME, 0),
    K_(INT, stream, TLM_COLNAME_KERNEL_STREAM, 0),
    K_(INT, count, TLM_COLNAME_KERNEL_DUR_COUNT, 0),
    K_(NUM, dur_ns_sum, TLM_COLNAME_KERNEL_DUR_SUM, 1e3),
    K_(NUM, dur_ns_mean, TLM_COLNAME_KERNEL_DUR_MEAN, 1e3),
    K_(NUM, dur_ns_min, TLM_COLNAME_KERNEL_DUR_MIN, 1e3),
    K_(NUM, dur_ns_max, TLM_COLNAME_KERNEL_DUR_MAX, 1e3),
    K_(NUM, percent_kernels, TLM_COLNAME_KERNEL_PCT_KERNELS, 1.0),
    K_(NUM, percent_total, TLM_COLNAME_KERNEL_PCT_TOTAL, 1.0),
};
#undef K_

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_CELLS 16

/* One kept table, in TLM_JOB_SPAN_* order. */
typedef struct sheet {
    const char *table;
    const cellspec *cells;
    size_t n_cells;
    size_t row_size;
} sheet;

static const sheet sheets[3] = {
    {TLM_TABNAME_OPS_SUMMARY, ops_cells, N_(ops_cells), sizeof(tlm_row_op)},
    {TLM_TABNAME_OPS_UNIQUE_ARGS, uargs_cells, N_(uargs_cells),
     sizeof(tlm_row_uargs)},
    {TLM_TABNAME_KERNEL_SUMMARY, kernel_cells, N_(kernel_cells),
     sizeof(tlm_row_kernel)},
};

/* Every kept row starts with its trace rank (tables.h lists it first). */
_Static_assert(offsetof(tlm_row_op, trace_rank) == 0 &&
                   offsetof(tlm_row_uargs, trace_rank) == 0 &&
                   offsetof(tlm_row_kernel, trace_rank) == 0,
               "trace_rank must lead the per-trace rows");
_Static_assert(N_(ops_cells) <= MAX_CELLS && N_(uargs_cells) <= MAX_CELLS &&
                   N_(kernel_cells) <= MAX_CELLS,
               "MAX_CELLS too small");

/* Index of column name in table t, or -1. */
static long col_of(const tlm_report *r, long t, const char *name)
{
    if (t < 0)
        return -1;
    size_t nc = tlm_report_table_cols(r, (size_t)t);
    for (size_t k = 0; k < nc; k++)
        if (strcmp(tlm_report_table_colname(r, (size_t)t, k), name) == 0)
            return (long)k;
    return -1;
}

static double cell_num(const tlm_report *r, long t, size_t row, long col)
{
    double v = NAN;
    if (t >= 0 && col >= 0)
        tlm_report_cell_num(r, (size_t)t, row, (size_t)col, &v);
    return v;
}

static int64_t cell_int(const tlm_report *r, long t, size_t row, long col)
{
    double v = cell_num(r, t, row, col);
    return isnan(v) ? -1 : (int64_t)llround(v);
}

static void cell_str(const tlm_report *r, long t, size_t row, long col,
                     char *dst, size_t cap)
{
    if (t < 0 || col < 0) {
        tlm_strset(dst, cap, "");
        return;
    }
    size_t full = tlm_report_cell_text(r, (size_t)t, row, (size_t)col, dst,
                                       cap);
    size_t n = strlen(dst);
    if (full > n)
        n = tlm_utf8_cut(dst, n); /* truncated: whole characters only */
    memset(dst + n, 0, cap - n);
}

/* Fills the n rows at out from table t of the report, cell by cell. */
static void copy_rows(const tlm_report *rep, long t, const sheet *sh,
                      size_t n, int32_t rank, char *out)
{
    long col[MAX_CELLS];
    for (size_t k = 0; k < sh->n_cells; k++)
        col[k] = col_of(rep, t, sh->cells[k].col);
    for (size_t i = 0; i < n; i++) {
        char *o = out + i * sh->row_size;
        memset(o, 0, sh->row_size);
        memcpy(o, &rank, sizeof rank);
        for (size_t k = 0; k < sh->n_cells; k++) {
            const cellspec *cs = &sh->cells[k];
            if (cs->kind == CELL_STR) {
                cell_str(rep, t, i, col[k], o + cs->off, cs->size);
            } else if (cs->kind == CELL_INT) {
                int64_t v = cell_int(rep, t, i, col[k]);
                memcpy(o + cs->off, &v, sizeof v);
            } else {
                double v = cell_num(rep, t, i, col[k]) * cs->scale;
                memcpy(o + cs->off, &v, sizeof v);
            }
        }
    }
}

tlm_status tlm_job_keep_report_rows(tlm_job_rtabs *t, const tlm_report *rep,
                                    int32_t rank, tlm_job_fileres *fr)
{
    void **rows[3] = {(void **)&t->ops, (void **)&t->ua, (void **)&t->kn};
    size_t *have[3] = {&t->n_ops, &t->n_ua, &t->n_kn};
    size_t *cap[3] = {&t->cap_ops, &t->cap_ua, &t->cap_kn};
    long tab[3];
    size_t n[3];
    for (int k = 0; k < 3; k++) {
        tab[k] = tlm_report_table_find(rep, sheets[k].table);
        n[k] = tab[k] >= 0 ? tlm_report_table_rows(rep, (size_t)tab[k]) : 0;
    }
    for (int k = 0; k < 3; k++)
        if (tlm_grow(rows[k], cap[k], *have[k] + n[k], sheets[k].row_size,
                     64))
            return TLM_ENOMEM;
    for (int k = 0; k < 3; k++) {
        fr->span[k][0] = (int64_t)*have[k];
        fr->span[k][1] = (int64_t)n[k];
        if (n[k] > 0) /* the array may still be NULL otherwise */
            copy_rows(rep, tab[k], &sheets[k], n[k], rank,
                      (char *)*rows[k] + *have[k] * sheets[k].row_size);
        *have[k] += n[k];
    }
    /* kernels without a launch (no parent op, no launcher): TraceLens's
     * null category gets a label (docs/hdf5-schema.md, /kernels) */
    for (size_t i = (size_t)fr->span[2][0]; i < t->n_kn; i++)
        if (!t->kn[i].parent_op_category[0])
            tlm_strset(t->kn[i].parent_op_category,
                       sizeof t->kn[i].parent_op_category, "unlinked");
    return TLM_OK;
}

void tlm_job_rtabs_free(tlm_job_rtabs *rt)
{
    free(rt->ops);
    free(rt->ua);
    free(rt->kn);
    memset(rt, 0, sizeof *rt);
}
