/*
 * jobinfo.h - the job-level verdicts that report.md and the HDF5 root
 * attributes share: which GPU the job ran on (from the per-trace rows) and
 * which rank, if any, is the straggler.  Pure functions, no MPI: rank 0's
 * report and every rank's attribute write compute them the same way.
 */
#ifndef TLM_OUT_JOBINFO_H
#define TLM_OUT_JOBINFO_H

#include <stddef.h>
#include <stdint.h>

#include "tables.h"
#include "tlmpi/tlm_coll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU of the job over its traces. */
typedef struct tlm_out_gpu_sum {
    char arch[32];        /* the traces' common gpu_arch, "" none, "mixed"
                           * when traces use different ones */
    char source[8];       /* common gpu_arch_source, or "mixed" */
    char device[64];      /* first non-empty device_name, "" if none */
    int devices_mixed;    /* device names differ within or across traces */
    size_t n_no_device;   /* traces without deviceProperties names */
    size_t n_rows;        /* traces summarised */
} tlm_out_gpu_sum;

/* Summarises rows[0..n) (any order; n may be 0: "", "none"). */
void tlm_out_gpu_summary(const tlm_row_trace *rows, size_t n,
                         tlm_out_gpu_sum *out);

/* The same one row at a time, without allocating: init, then add each
 * row (the first row sets arch and source, later ones may make them
 * "mixed"). */
void tlm_out_gpu_summary_init(tlm_out_gpu_sum *out);
void tlm_out_gpu_summary_add(tlm_out_gpu_sum *out, const tlm_row_trace *r);

/* No-rank value of the straggler verdict (HDF5 attribute straggler_rank). */
#define TLM_OUT_NO_STRAGGLER (-1)

/* The straggler verdict over the overall straggler rows (overall = 1;
 * other rows are ignored): the rank that caused the most waiting
 * (wait_caused_corr_ns; ties: lowest rank), *wait_ns its mean caused wait
 * per collective it joined (wait_caused_corr_ns / n_instances; 0 when
 * none).  Returns that rank when *wait_ns exceeds threshold_us, else
 * TLM_OUT_NO_STRAGGLER.  *top gets the top rank (-1 when no rows). */
int32_t tlm_out_straggler_pick(const tlm_coll_straggler_row *rows, size_t n,
                               double threshold_us, int64_t *wait_ns,
                               int32_t *top);

/* The same verdict on raw (uncorrected) clocks: by wait_caused_ns.  A
 * verdict that differs from tlm_out_straggler_pick()'s is one the clock
 * offsets made (report.md names both). */
int32_t tlm_out_straggler_pick_raw(const tlm_coll_straggler_row *rows,
                                   size_t n, double threshold_us,
                                   int64_t *wait_ns, int32_t *top);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUT_JOBINFO_H */
