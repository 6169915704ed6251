/*
 * plots.h - --plots: rank 0 runs scripts/tlmpi_plot.py (Python 3 with
 * matplotlib, through scripts/tlmpi_h5.py) on the HDF5 file just
 * published, which writes PNGs under <output folder>/plots
 * (docs/views.md).  Plots are an extra: a missing interpreter or
 * matplotlib is one line on stderr, never a failure of the analysis.
 */
#ifndef TLM_OUT_PLOTS_H
#define TLM_OUT_PLOTS_H

#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_outset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The PNG names the script writes (NULL-terminated), for the checks
 * before any work. */
extern const char *const tlm_out_plot_names[];

/* Setup phase (rank 0): each dir/plots/<name> checked as an output of
 * the set (absent or replaced with --force; folder created).  Errors as
 * tlm_outset_check. */
tlm_status tlm_out_plots_check(tlm_outset *out, const char *dir,
                               tlm_error *err);

/* Rank 0, after the outputs are published: runs the plot script on h5
 * with dir/plots as its output folder; says on stderr in one line what
 * went wrong (no interpreter, no matplotlib, the script failed).  The
 * script: $TLMPI_PLOT_SCRIPT, else tlmpi_plot.py of the install tree
 * (<bin>/../lib/python3/dist-packages), else of the source tree.  The
 * interpreter: $TLMPI_PYTHON, else python3 on PATH (then Debian's
 * /usr/bin/python3 when the first has no matplotlib).  Returns 0 when the
 * plots were written, -1 otherwise. */
int tlm_out_plots(const char *h5, const char *dir, int quiet);

/* 1 when this program runs from an install tree (the Python modules in
 * <bin>/../lib/python3/dist-packages: `import tlmpi_h5` works there), 0
 * from a build tree (scripts/ of the source). */
int tlm_out_installed(void);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUT_PLOTS_H */
