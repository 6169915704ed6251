/*
 * audit_mpi.h - the driver's side of `tlmpi audit` (src/audit/audit.h is
 * the rest): the audit's state over every process, the plan shared
 * (audit_plan.c), the runs through the analysis phases (audit.c) and
 * audit.h5 (audit_h5.c).  audit.c calls audit_plan.c, never the other
 * way.
 */
#ifndef TLM_MPI_AUDIT_MPI_H
#define TLM_MPI_AUDIT_MPI_H

#include "audit.h"
#include "discover.h"
#include "tlmpi/tlm_outset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The audit's state.  The plan and the rows live on rank 0; every
 * process has the runs' names and file lists. */
typedef struct tlm_audit {
    tlm_audit_opts o;
    int me, np;
    char cmdline[8192];
    double t_launch, t_walk, t_runs;
    tlm_audit_plan plan;       /* rank 0 */
    size_t n_run;
    char **label;              /* per run: its path under ROOT */
    int *prefail;              /* per run: failed before reading */
    tlm_cli_filelist *fl;      /* per run */
    tlm_audit_acc acc;         /* rank 0 */
    tlm_outset out;            /* rank 0: audit.h5, audit.md, runs.csv */
    size_t n_failed;
    int usage_error;           /* rank 0: the setup failed on an option */
} tlm_audit;

/* Rank 0 prints "tlmpi: " fmt to stderr (escaped); others nothing
 * (audit_plan.c). */
void tlm_audit_say0(const tlm_audit *A, const char *fmt, ...)
    TLM_PRINTF(2, 3);

/* D/runs/<run> ("_root" for ROOT itself) in out: 0, or -1 when too
 * long (audit_plan.c). */
int tlm_audit_run_dir(const tlm_audit *A, const char *rel, char *out,
                      size_t cap);

/* Rank 0 walks, every process sniffs, rank 0 makes the plan and checks
 * the outputs; every process gets the runs' names and file lists.
 * Collective.  *code: the exit code when the status is not TLM_OK (2 for
 * an unknown --baseline, else 1); rank 0 has said why. */
tlm_status tlm_audit_share_plan(tlm_audit *A, int *code);

/* Writes audit.h5 into path (a temporary name; links relative to its
 * folder).  Errors: TLM_EHDF5, TLM_EIO, TLM_ENOMEM. */
tlm_status tlm_audit_h5_write(const char *path, const tlm_audit_acc *acc,
                              const tlm_audit_meta *m, tlm_error *err);

/* Entry point: `tlmpi audit ...` (main.c).  Returns the exit code. */
int tlm_mpi_audit(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_AUDIT_MPI_H */
