/*
 * hta_internal.h - what the files of src/hta/ share: the correlation
 * links, the row index, the kernel types (§1.6), merged intervals (§1.7,
 * util's ivl.h), numpy/pandas statistics helpers and the tables the
 * builders fill (tlm_tab, the table layer's model, with their
 * definitions).
 */
#ifndef TLM_HTA_INTERNAL_H
#define TLM_HTA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_hta.h"
#include "tlmpi/tlm_outset.h"

#include "ivl.h"

/* §1.3: index_correlation of every row (rows in file order). */
tlm_status tlm_hta_link(tlm_hta_events *ev);
/* Rebuilds row_of_index after the rows changed. */
tlm_status tlm_hta_reindex(tlm_hta_events *ev);


/* ================================================================ tables */

/* A table's definition: name, doc, columns, how ranks combine. */
typedef struct tlm_hta_tdef {
    const char *name;
    const char *doc;
    const tlm_hta_col *cols;
    size_t ncols;
    int sum_by_type; /* gpu_kernel_breakdown_by_type: summed over ranks */
    int rank_only;   /* built on the --hta_rank rank only (sequences,
                      * critical path) */
} tlm_hta_tdef;

/* A table: its definition and its cells, a tlm_tab of def's columns
 * (text cells are their bytes, NULs included: tlm_tab.text_bytes). */
struct tlm_hta_table {
    const tlm_hta_tdef *def;
    tlm_tab *tab;
};

#define TLM_HTA_MAX_TABLES 16

struct tlm_hta_result {
    tlm_hta_table *t[TLM_HTA_MAX_TABLES];
    size_t n;
    tlm_hta_notes notes;
};

/* Every table definition, for tlm_hta_unpack and the docs test. */
const tlm_hta_tdef *tlm_hta_tdef_find(const char *name);

/* A new empty table of def appended to r; NULL when out of memory. */
tlm_hta_table *tlm_hta_result_add(tlm_hta_result *r,
                                  const tlm_hta_tdef *def);
void tlm_hta_table_free(tlm_hta_table *t);
/* Appends a row (I64 0, F64 NaN, STR empty); its index in *row. */
tlm_status tlm_hta_row_add(tlm_hta_table *t, size_t *row);
void tlm_hta_set_i64(tlm_hta_table *t, size_t row, size_t col, int64_t v);
void tlm_hta_set_f64(tlm_hta_table *t, size_t row, size_t col, double v);
tlm_status tlm_hta_set_str(tlm_hta_table *t, size_t row, size_t col,
                           const char *s, size_t len);

/* ---- kernel types (§1.6) */
typedef enum tlm_hta_ktype {
    TLM_HTA_K_COMPUTATION = 0,
    TLM_HTA_K_COMMUNICATION = 1,
    TLM_HTA_K_MEMORY = 2,
    TLM_HTA_K_OTHER = 3
} tlm_hta_ktype;
tlm_hta_ktype tlm_hta_kernel_type(const char *name, size_t len);
const char *tlm_hta_ktype_name(tlm_hta_ktype k);

/* ---- merged intervals (§1.7): util's tlm_ivl_union_stable (HTA's
 * merge_kernel_intervals: sorted stably by start, the input order breaking
 * ties; an end may be < start, Q1) and tlm_ivl_length */

/* ---- statistics (pandas describe) */
typedef struct tlm_hta_describe {
    double count, mean, std, min, q25, q50, q75, max;
} tlm_hta_describe;
/* Over the non-NaN values of v (sorted in place). */
void tlm_hta_describe_of(double *v, size_t n, tlm_hta_describe *d);
double tlm_hta_round(double x, int digits);

/* ---- rows helpers */
/* The GPU events of §2/§4/§6: rows with stream != -1. */
static inline int tlm_hta_is_gpu(const tlm_hta_ev *r)
{
    return r->stream != -1;
}
/* us as the tables print them */
static inline double tlm_hta_us(int64_t ns)
{
    return (double)ns / 1000.0;
}

/* "COMPUTATION overlapping MEMORY" for bits 1|4 (§6). */
void tlm_hta_by_type_label(int bits, char *buf, size_t size);
/* 1 when the rank has a GPU event (stream != -1). */
int tlm_hta_has_gpu(const tlm_hta_events *ev);

/* ---- queue length (§5): the +1/-1 steps of every stream in HTA's order
 * (stream, ts, launch before start, table row), with the stream's queue
 * length after each step; *out malloc'd (the caller frees it).  The
 * critical path (§9) reads the queue length at a launch / kernel here. */
typedef struct tlm_hta_qstep {
    int64_t stream, ts;
    int kind;  /* 0 a launch (+1 on the stream of its GPU event), 1 a GPU
                * event's start (-1) */
    size_t row; /* the launch's or the GPU event's row */
    int64_t q;  /* queue length of the stream after this step */
} tlm_hta_qstep;
tlm_status tlm_hta_queue_steps(const tlm_hta_events *ev,
                               tlm_hta_qstep **out, size_t *n);

/* ---- builders (one per file); temporal also builds comm_comp_overlap
 * and gpu_kernel_breakdown_by_type (same merged groups) */
tlm_status tlm_hta_build_temporal(const tlm_hta_events *ev,
                                  const tlm_hta_opts *o, tlm_hta_result *r,
                                  tlm_error *err);
tlm_status tlm_hta_build_idle(const tlm_hta_events *ev,
                              const tlm_hta_opts *o, tlm_hta_result *r,
                              tlm_error *err);
tlm_status tlm_hta_build_launch(const tlm_hta_events *ev,
                                const tlm_hta_opts *o, tlm_hta_result *r,
                                tlm_error *err);
tlm_status tlm_hta_build_queue(const tlm_hta_events *ev,
                               const tlm_hta_opts *o, tlm_hta_result *r,
                               tlm_error *err);
tlm_status tlm_hta_build_kernels(const tlm_hta_events *ev,
                                 const tlm_hta_opts *o, tlm_hta_result *r,
                                 tlm_error *err);
tlm_status tlm_hta_build_seq(const tlm_hta_events *ev,
                             const tlm_hta_opts *o, tlm_hta_result *r,
                             tlm_error *err);

/* The rows of frequent_cuda_kernel_sequences (hta_callstack.c). */
tlm_status tlm_hta_seq_rows(const tlm_hta_events *ev, const tlm_hta_opts *o,
                            tlm_hta_table *t, tlm_hta_notes *notes);

extern const tlm_hta_tdef tlm_hta_def_temporal, tlm_hta_def_idle,
    tlm_hta_def_idle_stats, tlm_hta_def_overlap, tlm_hta_def_launch_stats,
    tlm_hta_def_launch_summary, tlm_hta_def_queue, tlm_hta_def_by_type,
    tlm_hta_def_kernels, tlm_hta_def_seq;

#endif /* TLM_HTA_INTERNAL_H */
