/*
 * dispatch.c - the command line of tlmpi, shared by its two executables:
 * the subcommands (which never touch MPI), --help, --version, a mistyped
 * command, and the hand-over of what needs MPI or HDF5 (the analysis,
 * tlmpi audit, tlmpi compare A.h5 B.h5) to the hooks the executable
 * gives: the MPI driver (mpi/main.c, tlmpi-mpi) runs them itself; the
 * front (tools/tlmpi_main.c, tlmpi), which links neither MPI nor HDF5,
 * executes tlmpi-mpi with the same command line.
 *
 * Started by mpirun, every process runs this: what a subcommand, the help
 * or the version prints would come once per rank.  Those run only on the
 * launcher's rank 0 (read from the environment, before any MPI call); the
 * other ranks exit 0 at once, so mpirun's exit code is rank 0's.  The
 * analysis mode prints from rank 0 itself (driver.c).
 *
 * Every rank returns the status all ranks agreed on (driver.c, audit.c),
 * after MPI_Finalize.  Open MPI's mpirun still prints its "process
 * returned a non-zero exit code" block and waits out its kill timeout
 * (about 1 s) when any process exits non-zero; tlmpi-run avoids both: it
 * names a file in TLMPI_RUN_STATUS, rank 0 writes the status there, every
 * rank exits 0 and tlmpi-run exits with the status (docs/cli.md).
 */
#include "cli.h"
#include "opts.h"
#include "suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tlmpi/tlm_version.h"

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
    {"compare", NULL, /* tlm_cmd_compare with the hooks' compare_runs */
     "REPORT REPORT... | A.h5 B.h5  compare reports, traces or runs"},

    {"diff", tlm_cmd_diff,
     "TRACE_A TRACE_B --output_dir D  TraceDiff of two call trees"},
    {"replay", tlm_cmd_replay,
     "TRACE --output_dir D  safe event-replay reproducer (PyTorch runner)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tlmpi <command> [options]\n"
               "       mpirun -n N tlmpi --trace_dir DIR [options]\n"
               "       tlmpi-run -n N --trace_dir DIR [options]\n"
               "       mpirun -n N tlmpi audit ROOT --output_dir D [options]\n"
               "       tlmpi --version | --help\n\n"
               "commands (one process, no MPI):\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'tlmpi <command> --help' describes a command; "
               "docs/cli.md and man tlmpi have the full reference.\n\n"
               "The analysis (no command; tlmpi-run starts it under mpirun "
               "allowing root\nand more ranks than cores):\n\n");
    fputs(tlm_cli_opts_usage(), f);
}

static void version(const char *git)
{
    printf("tlmpi %s", TLM_VERSION_STRING);
    if (git && git[0])
        printf(" (git %s)", git);
    printf("\n");
}

/* The rank the launcher gave this process (Open MPI, PMIx, MPICH's PMI,
 * Slurm), or 0 when it was not started by one. */
static long launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    return 0;
}

static int is_opt(const char *a, const char *lng, const char *shrt)
{
    return strcmp(a, lng) == 0 || (shrt && strcmp(a, shrt) == 0);
}

/* --version anywhere among the analysis options (before "--"). */
static int wants_version(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (is_opt(argv[i], "--version", i == 1 ? "-V" : NULL))
            return 1;
    return 0;
}

/* The process's exit status: code, or 0 under tlmpi-run once rank 0 has
 * written code to the file TLMPI_RUN_STATUS names (ranks > 0: 0; every
 * rank's code is the one all agreed on). */
static int leave(int code)
{
    const char *path = getenv("TLMPI_RUN_STATUS");
    if (!path || !*path)
        return code;
    if (launcher_rank() > 0)
        return 0;
    FILE *f = fopen(path, "w");
    if (!f)
        return code;
    int ok = fprintf(f, "%d\n", code) > 0;
    if (fclose(f) != 0 || !ok)
        return code;
    return 0;
}

/* A first word that is no command and no file but close to a command
 * name (`tlmpi reprot T`): 1 after rank 0 printed "did you mean". */
static int mistyped_command(const char *w, long rank)
{
    enum { N = sizeof commands / sizeof commands[0] };
    const char *names[N + 1];
    struct stat sb;
    if (w[0] == '-' || stat(w, &sb) == 0)
        return 0;
    for (size_t i = 0; i < N; i++)
        names[i] = commands[i].name;
    names[N] = "audit";
    const char *best = tlm_suggest(w, names, N + 1);
    if (!best)
        return 0;
    if (rank <= 0)
        fprintf(stderr, "tlmpi: '%s' is not a tlmpi command; did you mean "
                "`%s`? (see tlmpi --help)\n", w, best);
    return 1;
}

/* The command, the help, the version or the analysis: the exit code.
 * "compare-runs" is the front's hand-over of `tlmpi compare A.h5 B.h5`
 * (and of the run comparison's --help) to tlmpi-mpi: no user command. */
static int run_main(int argc, char **argv, const tlm_main_hooks *h)
{
    const command *cmd = NULL;
    for (size_t i = 0; argc >= 2 && i < sizeof commands / sizeof commands[0];
         i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            cmd = &commands[i];
    if (argc >= 2 && strcmp(argv[1], "audit") == 0)
        return h->audit(argc - 1, argv + 1); /* MPI, many jobs */
    if (argc >= 2 && strcmp(argv[1], "compare-runs") == 0) {
        if (launcher_rank() > 0)
            return 0;
        argv[1] = (char *)"compare";
        return h->compare_runs(argc - 1, argv + 1);
    }
    if (argc >= 2 && !cmd && mistyped_command(argv[1], launcher_rank()))
        return 2;
    int ver = !cmd && wants_version(argc, argv);
    if (argc >= 2 && !cmd && !ver && !is_opt(argv[1], "--help", "-h"))
        return h->analyze(argc, argv); /* the MPI analysis mode */
    if (launcher_rank() > 0)
        return 0; /* rank 0 prints and runs it, once */
    if (cmd && !cmd->fn)
        return tlm_cmd_compare(argc - 1, argv + 1, h->compare_runs);
    if (cmd)
        return cmd->fn(argc - 1, argv + 1);
    if (ver) {
        version(h->git_commit);
        return 0;
    }
    if (argc >= 2) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}

int tlm_cmd_main(int argc, char **argv, const tlm_main_hooks *h)
{
    int code = run_main(argc, argv, h);
    fflush(stdout);
    fflush(stderr);
    return leave(code);
}
