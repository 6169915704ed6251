/*
 * report_rp.h - `tlmpi report` on a rocprofv3 JSON (report_rp.c).
 */
#ifndef TLM_CMD_REPORT_RP_H
#define TLM_CMD_REPORT_RP_H

#include "tlmpi/tlm_outset.h"

typedef struct tlm_rp_cli {
    const char *trace;          /* the rocprofv3 JSON */
    const char *dir, *xlsx, *md; /* outputs (NULL: not written) */
    int compat;                 /* --tracelens_compat rocprof_quirks */
    double short_threshold_us;
    int hist_bins;
    int kernel_summary;   /* 0: no kernel_summary(_by_category) sheets */
    int short_kernels;    /* 0: no short-kernel sheets */
    int quiet;
} tlm_rp_cli;

/* Reads the trace, builds the six sheets, stages them in set (already
 * checked by the caller) and commits it.  Returns the exit status (0, or
 * 1 after a message naming the file, offset and field). */
int tlm_cli_report_rocprof(const tlm_rp_cli *c, tlm_outset *set);

#endif
