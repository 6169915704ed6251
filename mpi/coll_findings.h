/*
 * coll_findings.h - the collective findings of the multi-rank analysis
 * (report.md's Findings section, the /findings dataset, findings.csv):
 * deterministic rules over rank 0's HDF5 rows, no MPI, no HDF5 calls.
 *   M1 straggler      the straggler verdict (jobinfo.h) and its cost
 *   M2 skew           mean corrected start skew above a share of latency
 *   M3 low-busbw      bus bandwidth of large messages far below the link
 *   M4 exposed-comm   communication not hidden by computation
 * Impact is a share of the job's time: the mean GPU timeline span over
 * ranks (T).  Thresholds are options (--findings_*, --link_peak_gbps),
 * printed in report.md's appendix.  docs/compare-runs.md, "Findings".
 */
#ifndef TLM_MPI_COLL_FINDINGS_H
#define TLM_MPI_COLL_FINDINGS_H

#include <stdio.h>

#include "opts.h"
#include "tables.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rule defaults (the options' defaults TLM_FIND_SKEW_PCT ... are in
 * opts.h). */
#define TLM_FIND_INTER_GBPS 50.0      /* a 400 Gb/s NIC per GPU */
#define TLM_FIND_MAX_PER_RULE 5       /* rows per rule (largest impact) */

typedef struct tlm_mpi_find_opts {
    double link_peak_gbps;     /* 0: the GPU's default (link_peak) */
    double skew_pct, skew_min_us, busbw_pct, busbw_min_bytes, exposed_pct;
    long gpus_per_node;        /* a group larger spans nodes; -1: 8 */
} tlm_mpi_find_opts;

typedef struct tlm_mpi_find_in {
    const tlm_row_timeline *tl;
    size_t n_tl;
    const tlm_row_summary *sum;
    size_t n_sum;
    const tlm_row_straggler *strag;
    size_t n_strag;
    int64_t straggler_rank, straggler_wait_ns; /* the verdict */
    const char *gpu_arch;      /* the job's GPU ("" unknown) */
} tlm_mpi_find_in;

/* Sets the defaults above. */
void tlm_mpi_find_opts_init(tlm_mpi_find_opts *o);

/* The finding options of the analysis options. */
void tlm_mpi_find_opts_of(const tlm_cli_opts *o, tlm_mpi_find_opts *fo);

/* Peak bus bandwidth (GB/s) of a group of group_size ranks: the option,
 * else inter-node TLM_FIND_INTER_GBPS when the group spans nodes, else the
 * GPU's NVLink / xGMI figure; 0 when unknown (no M3 finding). */
double tlm_mpi_link_peak(const tlm_mpi_find_opts *o, const char *gpu_arch,
                         int32_t group_size);

/* Builds the findings in report order (severity, then impact); *rows is
 * malloc'ed (may be NULL when *n is 0).  Errors: TLM_ENOMEM. */
tlm_status tlm_mpi_findings_build(const tlm_mpi_find_in *in,
                                  const tlm_mpi_find_opts *o,
                                  tlm_row_finding **rows, size_t *n);

/* report.md's Findings section and its appendix of thresholds. */
void tlm_mpi_findings_md(FILE *f, const tlm_row_finding *rows, size_t n,
                         const tlm_mpi_find_opts *o);
void tlm_mpi_findings_md_appendix(FILE *f, const tlm_mpi_find_opts *o);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_COLL_FINDINGS_H */
