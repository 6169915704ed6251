/*
 * rocprof_report.h - the six sheets of TraceLens's rocprof report
 * (TraceLens_generate_perf_report_rocprof --kernel_details
 * --short_kernel_study) from a rocprofv3 JSON (tlm_rocprof.h).
 *
 * Sheets, in TraceLens's order: gpu_timeline, kernel_summary,
 * kernel_summary_by_category, kernel_details, short_kernels_summary,
 * short_kernel_histogram.  With compat set the values are TraceLens's to
 * the quirk (durations in ns under "(µs)" labels, the short-kernel
 * threshold compared with ns, cumulative percentages summed before the
 * sort, pandas' unstable sort order, header orders of empty sheets);
 * without it those are fixed (docs/tracelens-differences.md, "rocprof").
 */
#ifndef TLM_ROCPROF_REPORT_H
#define TLM_ROCPROF_REPORT_H

#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_table.h"
#include "tlmpi/tlm_rocprof.h"

#define TLM_RP_NSHEETS 6

typedef struct tlm_rp_sheet_opts {
    int compat;                 /* 1: TraceLens's values, quirks kept */
    double short_threshold_us;  /* default 10 */
    int hist_bins;              /* default 100 */
} tlm_rp_sheet_opts;

void tlm_rp_sheet_opts_init(tlm_rp_sheet_opts *o);

/* Sheet names in order. */
extern const char *const tlm_rp_sheet_names[TLM_RP_NSHEETS];

/* Builds the sheets into tabs[0..5] (each freed with tlm_tab_free).
 * Errors: TLM_ENOMEM (tabs all NULL). */
tlm_status tlm_rocprof_sheets(const tlm_rocprof *rp,
                              const tlm_rp_sheet_opts *o,
                              tlm_tab *tabs[TLM_RP_NSHEETS], tlm_error *err);

/* TraceLens's kernel category of a rocprof kernel name (GEMM,
 * Elementwise, Reduction, Convolution, Normalization, Attention, Memory,
 * COMM, Other). */
const char *tlm_rp_category(const char *name);

/* GPU busy numbers of one trace for the multi-rank analysis (ns, exact):
 * kernels and copies merged, RCCL/NCCL kernels merged, the total span
 * (init..fini, else first start .. last end). */
typedef struct tlm_rp_busy {
    int64_t total_ns, busy_ns, idle_ns, kernel_ns, memcpy_ns, comm_ns,
        computation_ns;
    int64_t n_events, n_comm_kernels;
} tlm_rp_busy;
tlm_status tlm_rocprof_busy(const tlm_rocprof *rp, tlm_rp_busy *out);

#endif /* TLM_ROCPROF_REPORT_H */
