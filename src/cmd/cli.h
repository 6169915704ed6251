/*
 * cli.h - subcommands of the tlmpi executable (src/cmd; mpi/main.c runs
 * them).  Each returns the process exit code (0 ok, 1 bad input, 2
 * usage).  Subcommands run without MPI; the analysis mode (no
 * subcommand) is the MPI driver.
 */
#ifndef TLM_CMD_CLI_H
#define TLM_CMD_CLI_H

/* A subcommand: argv[0] is its name. */
typedef int (*tlm_cmd_fn)(int argc, char **argv);

int tlm_cmd_inspect(int argc, char **argv);
int tlm_cmd_report(int argc, char **argv);
int tlm_cmd_tree(int argc, char **argv);
int tlm_cmd_modules(int argc, char **argv);
/* tlmpi compare of reports and traces.  runs is the run comparison
 * (`tlmpi compare A.h5 B.h5`, which reads HDF5: the driver's
 * tlm_cmd_compare_runs): HDF5 inputs go to it, and --help prints its help
 * after this one's; NULL: no run comparison. */
int tlm_cmd_compare(int argc, char **argv, tlm_cmd_fn runs);

int tlm_cmd_diff(int argc, char **argv);
int tlm_cmd_replay(int argc, char **argv);

#endif
