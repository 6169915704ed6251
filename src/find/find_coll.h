/*
 * find_coll.h - the collective findings of the multi-rank analysis
 * (report.md's Findings section, the /findings dataset, findings.csv):
 * deterministic rules over rank 0's HDF5 rows, through the findings list
 * of the find layer (find_list.c: record, severity, order, P-numbers).
 *   M1 straggler      the straggler verdict (jobinfo.h) and its cost
 *   M2 skew           mean corrected start skew above a share of latency
 *   M3 low-busbw      bus bandwidth of large messages far below the link
 *   M4 exposed-comm   communication not hidden by computation
 * Impact is a share of the job's time: the mean GPU timeline span over
 * ranks (T).  Thresholds are options (--findings_*, --link_peak_gbps),
 * printed in report.md's appendix (src/out/findings_md.c renders them).
 * docs/compare-runs.md, "Findings".
 */
#ifndef TLM_FIND_COLL_H
#define TLM_FIND_COLL_H

#include "tables.h"
#include "tlmpi/tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rule defaults (the options' defaults). */
#define TLM_FIND_SKEW_PCT 25.0        /* skew > 25 % of latency */
#define TLM_FIND_SKEW_MIN_US 10.0     /* ... and >= 10 us */
#define TLM_FIND_BUSBW_PCT 50.0       /* busbw < 50 % of the link peak */
#define TLM_FIND_BUSBW_MIN_BYTES 1048576.0 /* messages >= 1 MiB */
#define TLM_FIND_EXPOSED_PCT 5.0      /* exposed comm > 5 % of GPU time */
#define TLM_FIND_INTER_GBPS 50.0      /* a 400 Gb/s NIC per GPU */
#define TLM_FIND_MAX_PER_RULE 5       /* rows per rule (largest impact) */

typedef struct tlm_find_coll_opts {
    double link_peak_gbps;     /* 0: the GPU's default (link_peak) */
    double skew_pct, skew_min_us, busbw_pct, busbw_min_bytes, exposed_pct;
    long gpus_per_node;        /* a group larger spans nodes; -1: 8 */
} tlm_find_coll_opts;

typedef struct tlm_find_coll_in {
    const tlm_row_timeline *tl;
    size_t n_tl;
    const tlm_row_summary *sum;
    size_t n_sum;
    const tlm_row_straggler *strag;
    size_t n_strag;
    int64_t straggler_rank, straggler_wait_ns; /* the verdict */
    const char *gpu_arch;      /* the job's GPU ("" unknown) */
} tlm_find_coll_in;

/* Sets the defaults above. */
void tlm_find_coll_opts_init(tlm_find_coll_opts *o);

/* Peak bus bandwidth (GB/s) of a group of group_size ranks: the option,
 * else inter-node TLM_FIND_INTER_GBPS when the group spans nodes, else the
 * GPU's NVLink / xGMI figure; 0 when unknown (no M3 finding). */
double tlm_find_link_peak(const tlm_find_coll_opts *o, const char *gpu_arch,
                          int32_t group_size);

/* Builds the findings in report order (severity, then impact); *rows is
 * malloc'ed (may be NULL when *n is 0).  Errors: TLM_ENOMEM. */
tlm_status tlm_find_coll_build(const tlm_find_coll_in *in,
                               const tlm_find_coll_opts *o,
                               tlm_row_finding **rows, size_t *n);

#ifdef __cplusplus
}
#endif
#endif /* TLM_FIND_COLL_H */
