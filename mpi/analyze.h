/*
 * analyze.h - the entry point of the multi-rank analysis mode of tlmpi
 * (the MPI driver, docs/architecture.md; driver.c runs the phases that
 * driver.h lists):
 *
 *     mpirun -n N tlmpi --trace_dir DIR [options]     (docs/cli.md)
 *
 * Discovers the traces (rank 0), balances them over the MPI ranks by size,
 * reads each on its owner, routes the collective records to their owners
 * (hash of process group and sequence number), matches instances, estimates
 * clock offsets, and writes one HDF5 file in parallel plus report.md and
 * CSV sheets on rank 0.
 */
#ifndef TLM_MPI_ANALYZE_H
#define TLM_MPI_ANALYZE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the analysis with the given command line (argv[0] = program name;
 * argv may be reordered).  Calls MPI_Init (unless MPI is already
 * initialised) and MPI_Finalize (when it called MPI_Init).  Works without
 * mpirun (singleton MPI, every trace in one process).  Returns the exit
 * code: 0 success, 1 bad input or failure (message on stderr, from rank 0,
 * naming every bad trace; no output file left), 2 usage error. */
int tlm_mpi_analyze(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_ANALYZE_H */
