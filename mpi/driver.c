/*
 * driver.c - the tlmpi analysis mode (the MPI driver of
 * docs/architecture.md): MPI start and stop, the command line, and the
 * phases run in order over one context: setup, read and check, one phase
 * per registered module (the table below, module.h), write and publish.
 * A phase returns the status every rank agreed on, so every rank stops at
 * the same phase; nothing is published unless the last one
 * succeeds (temporary names, renamed by rank 0 at the end).
 */
#include "analyze.h"
#include "driver.h"
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plots.h"
#include "sigclean.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_version.h"

/* One step of the analysis around the modules' phases; mark is the
 * TLM_MPI_T_* slot of c->phase that gets its end time, or -1. */
typedef struct phase {
    const char *name;
    tlm_status (*run)(tlm_mpi_ctx *c);
    int mark;
} phase;

/* The phases before the modules' (setup, read, check) and after them. */
static const phase first_phases[] = {
    {"setup", tlm_mpi_phase_setup, -1},
    {"read", tlm_mpi_phase_read, TLM_MPI_T_READ},
    {"check", tlm_mpi_phase_check, TLM_MPI_T_CHECK},
};
static const phase last_phases[] = {
    {"write", tlm_mpi_phase_write, TLM_MPI_T_HDF5},
    {"publish", tlm_mpi_phase_publish, -1},
};
#define N_FIRST (sizeof first_phases / sizeof first_phases[0])
#define N_LAST (sizeof last_phases / sizeof last_phases[0])

/* The registered cross-rank analyses, one row per module, in the order
 * of their phases.  Adding an analysis is its file (its hooks and its
 * tlm_mpi_module) and its row here (docs/architecture.md, "How to add a
 * cross-rank analysis"). */
static const tlm_mpi_module *const modules[] = {
    &tlm_mpi_mod_collectives, /* records to owners, instances, clocks,
                               * stragglers and their causes, findings */
    &tlm_mpi_mod_timeline,    /* --merged_trace */
    &tlm_mpi_mod_tracelens,   /* TraceLens's collective tables */
    &tlm_mpi_mod_steps,       /* per-step rows and their summary */
    &tlm_mpi_mod_merge,       /* per-trace ops and kernels, ops merged */
    &tlm_mpi_mod_hta,         /* --hta */
};

#define N_MODULES (sizeof modules / sizeof modules[0])
_Static_assert(N_MODULES <= TLM_MPI_MAX_MODULES,
               "TLM_MPI_MAX_MODULES bounds the table");

void tlm_mpi_ctx_modules(tlm_mpi_ctx *c)
{
    c->mods = modules;
    c->n_mods = N_MODULES;
}

void tlm_mpi_ctx_free(tlm_mpi_ctx *c)
{
    for (size_t i = 0; i < c->n_mods; i++)
        if (c->mods[i]->free)
            c->mods[i]->free(c, &c->mstate[i]);
    tlm_cli_signals_untrack(&c->out);
    tlm_outset_free(&c->out);
    tlm_cli_filelist_free(&c->fl);
    free(c->owner);
    for (size_t i = 0; c->lmsg && i < c->n_lres; i++)
        free(c->lmsg[i]);
    free(c->lmsg);
    free(c->lres);
    free(c->res);
    tlm_trace_caches_free(); /* the rank lists the traces shared */
}

/* The command line as one string (the HDF5 file records it). */
static void join_cmdline(int argc, char **argv, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < argc && len + 2 < cap; i++) {
        int w = snprintf(out + len, cap - len, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        len += (size_t)w;
        if (len >= cap)
            len = cap - 1;
    }
}

int tlm_mpi_n_phases(void)
{
    return (int)(N_FIRST + N_MODULES + N_LAST);
}

/* Phase i of the run: a driver phase (*m NULL) or module *m's (its row
 * *mi); *name NULL when it takes no part in this run. */
static const phase *phase_at(const tlm_mpi_ctx *c, int i,
                             const tlm_mpi_module **m, size_t *mi,
                             const char **name)
{
    size_t nm = c->n_mods;
    const tlm_mpi_module *const *mods = c->mods;
    *m = NULL;
    if ((size_t)i < N_FIRST || (size_t)i >= N_FIRST + nm) {
        const phase *p = (size_t)i < N_FIRST
                             ? &first_phases[i]
                             : &last_phases[(size_t)i - N_FIRST - nm];
        *name = p->name;
        return p;
    }
    *mi = (size_t)i - N_FIRST;
    *m = mods[*mi];
    *name = tlm_mpi_module_on(*m, c) ? (*m)->name : NULL;
    return NULL;
}

tlm_status tlm_mpi_run_phases(tlm_mpi_ctx *c, int first, int last)
{
    double t = tlm_mpi_now();
    tlm_status st = TLM_OK;
    int n = tlm_mpi_n_phases();
    for (int i = first; i <= last && i < n; i++) {
        const tlm_mpi_module *m;
        size_t mi = 0;
        const char *name;
        const phase *p = phase_at(c, i, &m, &mi, &name);
        c->pname[i] = name;
        if (!name) { /* a module that takes no part: not run, not shown */
            c->pdur[i] = 0;
            continue;
        }
        c->cur = i;
        c->pstart = t;
        tlm_cli_progress_phase(c->prog, name, t);
        tlm_mpi_test_stall(c, name);
        st = p ? p->run(c)
               : m->exchange ? m->exchange(c, &c->mstate[mi]) : TLM_OK;
        t = tlm_mpi_now();
        c->pdur[i] = t - c->pstart;
        int mark = p ? p->mark : m->mark;
        if (mark >= 0)
            c->phase[mark] = t - c->t0;
        if (st != TLM_OK)
            break;
    }
    tlm_cli_progress_phase(c->prog, NULL, t);
    return st;
}

int tlm_mpi_analyze(int argc, char **argv)
{
    double t_launch = tlm_mpi_now();
    int inited = 0, we_init = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
            fprintf(stderr, "tlmpi: error: MPI_Init failed\n");
            return 1;
        }
        we_init = 1;
    }
    tlm_cli_signals_install();
    tlm_mpi_ctx c;
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.me);
    MPI_Comm_size(c.comm, &c.np);
    c.t0 = tlm_mpi_now();
    c.t_launch = t_launch;
    c.cur = -1;
    tlm_mpi_ctx_modules(&c);
    join_cmdline(argc, argv, c.cmdline, sizeof c.cmdline);
    tlm_error err;
    int code = 0;
    if (tlm_cli_opts_parse(argc, argv, &c.o, &err) != TLM_OK) {
        if (c.me == 0)
            fprintf(stderr, "tlmpi: error: %s\n%s", err.msg,
                    "run 'tlmpi --help' for the options\n");
        code = 2;
    } else if (c.o.help) {
        if (c.me == 0)
            fputs(tlm_cli_opts_usage(), stdout);
    } else if (c.o.version) {
        if (c.me == 0)
            printf("tlmpi %s\n", TLM_VERSION_STRING);
    } else if (c.o.print_schema) {
        if (c.me == 0)
            tlm_out_schema_markdown(stdout);
    } else {
        c.say_quiet = c.o.quiet;
        tlm_cli_progress prog;
        tlm_cli_progress_init(
            &prog,
            tlm_cli_progress_mode(c.o.quiet, c.o.progress, c.me,
                                  isatty(STDERR_FILENO)),
            stderr, t_launch);
        c.prog = &prog;
        code = tlm_mpi_run_phases(&c, 0, TLM_MPI_PH_PUBLISH) == TLM_OK
                   ? 0
                   : 1;
        c.prog = NULL;
        if (code == 0 && c.o.plots && c.me == 0)
            tlm_out_plots(c.su.out, c.su.rdir, c.o.quiet);
    }
    tlm_mpi_ctx_free(&c);
    if (we_init)
        MPI_Finalize();
    return code;
}
