/*
 * cli.h - subcommands of the tlmpi executable.  Each returns the process
 * exit code (0 ok, 1 bad input, 2 usage).  Subcommands run without MPI;
 * the analysis mode (no subcommand) is the MPI driver.
 */
#ifndef TLM_MPI_CLI_H
#define TLM_MPI_CLI_H

int tlm_cmd_inspect(int argc, char **argv);
int tlm_cmd_report(int argc, char **argv);
int tlm_cmd_tree(int argc, char **argv);
int tlm_cmd_modules(int argc, char **argv);
int tlm_cmd_compare(int argc, char **argv);

int tlm_cmd_diff(int argc, char **argv);
int tlm_cmd_replay(int argc, char **argv);

#endif
