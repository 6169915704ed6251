/*
 * cli.h - subcommands of the tlmpi executable (src/cmd; mpi/main.c runs
 * them).  Each returns the process exit code (0 ok, 1 bad input, 2
 * usage).  Subcommands run without MPI; the analysis mode (no
 * subcommand) is the MPI driver.  tlm_cmd_main (dispatch.c) is the
 * whole command line of both executables, tlmpi and tlmpi-mpi.
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

/* What needs MPI or HDF5, run by the executable's own means: the MPI
 * driver's functions (tlmpi-mpi), or the front's hand-over to tlmpi-mpi
 * (tlmpi).  analyze gets the whole command line, audit and compare_runs
 * theirs from the command name ("audit", "compare") on. */
typedef struct tlm_main_hooks {
    tlm_cmd_fn analyze;
    tlm_cmd_fn audit;
    tlm_cmd_fn compare_runs;
    const char *git_commit; /* for --version; "" when unknown */
} tlm_main_hooks;

/* The command line of tlmpi: a subcommand, --help, --version, or a hook;
 * the process exit code (TLMPI_RUN_STATUS honoured, docs/cli.md). */
int tlm_cmd_main(int argc, char **argv, const tlm_main_hooks *h);

#endif
