/*
 * compare_runs_mpi.h - the HDF5 side of `tlmpi compare A.h5 B.h5`
 * (src/runs/compare_runs.h is the rest): the inputs read with the plain
 * HDF5 API (compare_runs_read.c), comparison.h5 written and the command
 * itself (compare_runs_h5.c).  One process, no MPI calls.
 */
#ifndef TLM_MPI_COMPARE_RUNS_MPI_H
#define TLM_MPI_COMPARE_RUNS_MPI_H

#include "compare_runs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads path as run name.  Checks the file: HDF5, schema_version 1, not
 * another kind (kind attribute absent), every dataset read present with
 * its columns.  Errors name the file and the dataset or attribute. */
tlm_status tlm_cr_read(tlm_cr_run *r, const char *path, const char *name,
                       tlm_error *err);
void tlm_cr_run_free(tlm_cr_run *r);
/* tlm_cr_read, tried first in a child process (fork): a file on which
 * the HDF5 library crashes, or that takes over deadline_s seconds, is
 * refused ("not a readable tlmpi run file (...)"); otherwise the child's
 * error, or the file read here. */
tlm_status tlm_cr_read_guarded(tlm_cr_run *r, const char *path,
                               const char *name, int deadline_s,
                               tlm_error *err);

/* Writes comparison.h5 at path (a temporary of the output set). */
tlm_status tlm_cr_write_h5(const char *path, const tlm_cr_run *a,
                           const tlm_cr_run *b, const tlm_cr_result *res,
                           tlm_error *err);

/* The command (.h5 inputs of `tlmpi compare` come here).  Returns the
 * exit code. */
int tlm_cmd_compare_runs(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_COMPARE_RUNS_MPI_H */
