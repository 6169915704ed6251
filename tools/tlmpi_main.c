/*
 * tlmpi_main.c - tlmpi, the executable users start: the single-trace
 * commands run here, in a process that loads neither MPI nor HDF5 (their
 * libraries and the ones they pull in cost about 10 ms and 9 MiB of
 * resident pages at every start, issue 35); the analysis, tlmpi audit and
 * tlmpi compare A.h5 B.h5 are handed to tlmpi-mpi, the MPI driver
 * installed beside this file, by executing it with the same command line
 * (under mpirun the process stays the one mpirun started).  The command
 * line itself is src/cmd/dispatch.c, shared by both.
 */
#include "cli.h"
#include "tlmpi/tlm_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tlm_git.h"

#define DRIVER "tlmpi-mpi"

static char **g_argv; /* the whole command line, for the analysis */

/* Executes the driver with argv (argv[0] replaced by its path); returns
 * only on failure, with the exit code after saying why. */
static int exec_driver(char **argv)
{
    char path[4200];
    if (tlm_self_dir_path(DRIVER, path, sizeof path) != 0) {
        fprintf(stderr, "tlmpi: cannot find the MPI driver " DRIVER
                        " (no path of this executable)\n");
        return 2;
    }
    fflush(stdout);
    fflush(stderr);
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr, "tlmpi: cannot start the MPI driver %s: %s (it is "
                    "installed beside tlmpi)\n", path, strerror(errno));
    return 2;
}

/* The analysis: the whole command line. */
static int analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return exec_driver(g_argv);
}

/* tlmpi audit: the whole command line too. */
static int audit(int argc, char **argv)
{
    return analyze(argc, argv);
}

/* tlmpi compare A.h5 B.h5 (and its --help part): DRIVER compare-runs
 * ARGS, argv[0] being "compare". */
static int compare_runs(int argc, char **argv)
{
    char **v = calloc((size_t)argc + 2, sizeof *v);
    if (!v) {
        fprintf(stderr, "tlmpi: out of memory\n");
        return 2;
    }
    v[0] = (char *)DRIVER;
    v[1] = (char *)"compare-runs";
    for (int i = 1; i < argc; i++)
        v[i + 1] = argv[i];
    int code = exec_driver(v);
    free(v);
    return code;
}

int main(int argc, char **argv)
{
    static const tlm_main_hooks hooks = {analyze, audit, compare_runs,
                                         TLM_GIT_COMMIT};
    g_argv = argv;
    return tlm_cmd_main(argc, argv, &hooks);
}
