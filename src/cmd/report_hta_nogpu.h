/*
 * report_hta_nogpu.h - `tlmpi report --hta` on a trace without GPU events:
 * HTA's tables with headers only and report.md's reason (docs/hta.md).
 */
#ifndef TLM_REPORT_HTA_NOGPU_H
#define TLM_REPORT_HTA_NOGPU_H

#include "hta_cli.h"
#include "report_opts.h"

#include "tlmpi/tlm_outset.h"

/* Reads trace again; when its tree has no GPU event, stages DIR/hta/<table>.csv
 * and md (when not NULL) in set and returns 1; returns 0 when the trace
 * has GPU events (or cannot be read: the caller's error stands), -1 on
 * an error (in *err). */
int tlm_cli_hta_nogpu(const char *trace, const tlm_cli_ropts *co,
                      const tlm_cli_hta *h, const char *dir, const char *md,
                      tlm_outset *set, tlm_error *err);

#endif
