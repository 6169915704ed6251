/*
 * xsheets.h - the five sheets of TraceLens's JAX report that an XPlane
 * alone determines (TraceLens_generate_perf_report_jax; docs/formats.md
 * "XPlane"), from the flat model of tlm_xplane.h:
 *
 *   gpu_timeline, gpu_events_averages          (xsheets_timeline.c)
 *   kernel_launchers_summary,
 *   kernel_launchers_summary_by_category, xla_summary (xsheets_kernels.c)
 *
 * TraceLens reads the XPlane through xprof's trace-viewer conversion:
 * GPU plane "/device:GPU:<n>" is process 1 + n, a line is a thread (its
 * display id), an event's name is its metadata's display name.
 */
#ifndef TLM_XSHEETS_H
#define TLM_XSHEETS_H

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"
#include "tlmpi/tlm_xplane.h"

#define TLM_XSHEETS_N 5

/* The sheets, in TraceLens's order, into out[0..TLM_XSHEETS_N) (NULL on
 * failure; free each with tlm_tab_free).  compat: TLM_COMPAT_* bits
 * (tracelens_columns: no tlmpi-only columns, empty summaries written as
 * TraceLens's bare CSV; numpy_sort_order: TraceLens's tie order).
 * Errors: TLM_EFORMAT (no GPU plane, no GPU event: nothing to report;
 * the message says what the file holds), TLM_ENOMEM. */
tlm_status tlm_xsheets_build(const tlm_xplane *x, unsigned compat,
                             tlm_tab **out, tlm_error *err);

/* The two timeline sheets (xsheets_timeline.c). */
tlm_status tlm_xsheets_timeline(const tlm_xplane *x, unsigned compat,
                                tlm_tab **timeline, tlm_tab **averages,
                                tlm_error *err);
/* The three kernel sheets (xsheets_kernels.c). */
tlm_status tlm_xsheets_kernels(const tlm_xplane *x, unsigned compat,
                               tlm_tab **summary, tlm_tab **by_cat,
                               tlm_tab **xla);

/* TraceLens's JAX kernel category of a kernel name and its hlo_op ("GEMM",
 * ..., "Uncategorized Events/XLA"). */
const char *tlm_xsheets_category(const char *name, const char *hlo_op);

#endif
