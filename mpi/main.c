/*
 * main.c - entry point of tlmpi: dispatches subcommands (which never touch
 * MPI) and otherwise runs the multi-rank analysis driver (analyze.h,
 * driver.c).
 */
#include "analyze.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"inspect", tlm_cmd_inspect,
     "TRACE...  event counts by (ph, cat), metadata, read speed"},
    {"report", tlm_cmd_report,
     "TRACE --output_csvs_dir DIR  single-trace perf report (TraceLens)"},
    {"tree", tlm_cmd_tree, "TRACE [--uid N|--name RE]  print the call tree"},
    {"modules", tlm_cmd_modules, "TRACE  nn.Module view with GPU time"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tlmpi <command> [options]\n"
               "       mpirun -n N tlmpi --trace_dir DIR [options]\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'tlmpi <command> --help' describes a command; "
               "docs/cli.md has the full reference.\n");
}

int main(int argc, char **argv)
{
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].fn(argc - 1, argv + 1);
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    }
    if (argc >= 2)
        return tlm_mpi_analyze(argc, argv); /* the MPI analysis mode */
    usage(stderr);
    return 2;
}
