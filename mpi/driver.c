/*
 * driver.c - the tlmpi analysis mode (the MPI driver of
 * docs/architecture.md): MPI start and stop, the command line, and a table
 * of phases run in order over one context (driver.h lists them and what
 * each does).  A phase returns the status every rank agreed on, so every
 * rank stops at the same phase; nothing is published unless the last one
 * succeeds (temporary names, renamed by rank 0 at the end).
 */
#include "analyze.h"
#include "driver.h"
#include "hta_mpi.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "exchange.h"
#include "mtrace.h"
#include "plots.h"
#include "sigclean.h"
#include "tlmpi/tlm_version.h"

/* One step of the analysis; mark is the TLM_MPI_T_* slot of c->phase that
 * gets its end time, or -1. */
typedef struct phase {
    const char *name;
    tlm_status (*run)(tlm_mpi_ctx *c);
    int mark;
} phase;

static const phase phases[] = {
    {"setup", tlm_mpi_phase_setup, -1},
    {"read", tlm_mpi_phase_read, TLM_MPI_T_READ},
    {"check", tlm_mpi_phase_check, TLM_MPI_T_CHECK},
    {"collectives", tlm_mpi_phase_collectives, -1},
    {"timeline", tlm_mpi_phase_timeline, -1},
    {"tracelens", tlm_mpi_phase_tracelens, TLM_MPI_T_COLLECTIVES},
    {"steps", tlm_mpi_phase_steps, -1},
    {"merge", tlm_mpi_phase_merge, TLM_MPI_T_TABLES},
    {"hta", tlm_mpi_phase_hta, -1},
    {"write", tlm_mpi_phase_write, TLM_MPI_T_HDF5},
    {"publish", tlm_mpi_phase_publish, -1},
};

/* Appends an error or warning line to a run's reason (audit). */
static void sink_add(char *sink, size_t cap, const char *line)
{
    if (strncmp(line, "error: ", 7) && strncmp(line, "warning: ", 9))
        return;
    size_t len = strlen(sink);
    if (len + 8 >= cap)
        return;
    snprintf(sink + len, cap - len, "%s%s", len ? "; " : "", line);
    if (strlen(sink) + 1 >= cap) /* cut: say so */
        memcpy(sink + cap - 5, "...", 4);
}

void tlm_mpi_say0(const tlm_mpi_ctx *c, const char *fmt, ...)
{
    if (c->me != 0)
        return;
    if (c->prog)
        tlm_cli_progress_clear(c->prog);
    char msg[2048], esc[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tlm_escape_ctrl(esc, sizeof esc, msg);
    if (c->label)
        fprintf(stderr, "tlmpi: run %s: %s\n", c->label, esc);
    else
        fprintf(stderr, "tlmpi: %s\n", esc);
    fflush(stderr);
    if (c->sink)
        sink_add(c->sink, c->sink_cap, esc);
}

void tlm_mpi_test_stall(const tlm_mpi_ctx *c, const char *point)
{
    const char *want = getenv("TLMPI_TEST_STALL");
    if (c->me != 0 || !want || strcmp(want, point) != 0)
        return;
    fprintf(stderr, "tlmpi: test stall before %s\n", point);
    fflush(stderr);
    for (int i = 0; i < 300; i++) { /* 30 s at most; a signal ends it */
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
}

double tlm_mpi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

tlm_status tlm_mpi_check(const tlm_mpi_ctx *c, tlm_status local,
                         const tlm_error *err)
{
    tlm_status st = tlm_mpi_agree(local, c->comm);
    if (st == TLM_OK)
        return st;
    if (err->code != TLM_OK) {
        char msg[800];
        tlm_mpi_say0(c, "error: %s", tlm_error_format(err, msg, sizeof msg));
    } else {
        tlm_mpi_say0(c, "error: collective analysis failed on another rank "
                        "(%s)", tlm_status_str(st));
    }
    return st;
}

void tlm_mpi_colls_free(tlm_mpi_colls *k)
{
    tlm_coll_match_result_free(&k->mr);
    free(k->inst);
    free(k->unm);
    tlm_coll_free(NULL, k->clk);
    free(k->offsets);
    free(k->strag);
    free(k->cause);
    tlm_coll_free(NULL, k->sum);
    free(k->mrows);
    free(k->tl_sync);
    free(k->tl_smem);
    free(k->tl_long);
    tlm_coll_free(NULL, k->tl_sum);
    tlm_coll_free(NULL, k->tl_strag);
    memset(k, 0, sizeof *k);
}

void tlm_mpi_ctx_free(tlm_mpi_ctx *c)
{
    tlm_cli_signals_untrack(&c->out);
    tlm_outset_free(&c->out);
    tlm_mpi_colls_free(&c->k);
    tlm_mpi_hta_free(c);
    tlm_cli_filelist_free(&c->fl);
    free(c->owner);
    free(c->lres);
    free(c->recs);
    free(c->wins);
    free(c->rt.ops);
    free(c->rt.ua);
    free(c->rt.kn);
    free(c->ord_ops);
    free(c->ord_ua);
    free(c->ord_kn);
    free(c->mops);
    tlm_mpi_steps_free(&c->steps);
    free(c->find);
    c->find = NULL;
    c->n_find = 0;
    free(c->res);
    tlm_mpi_mtrace_free(c);
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

/* A phase that has nothing to do in this run and is neither shown nor
 * timed: the HTA phase without --hta. */
static int skipped(const tlm_mpi_ctx *c, int i)
{
    return i == TLM_MPI_PH_HTA && !c->o.hta;
}

void tlm_mpi_phase_times(const tlm_mpi_ctx *c, double now, char *buf,
                         size_t cap, double *total)
{
    /* the phases run back to back: the first began at pstart less the
     * finished ones */
    double finished = 0;
    for (int i = 0; i < c->cur; i++)
        finished += c->pdur[i];
    double first = c->cur >= 0 ? c->pstart - finished : now;
    int w = snprintf(buf, cap, "init %.2f", first - c->t_launch);
    size_t len = w > 0 && (size_t)w < cap ? (size_t)w : 0;
    for (int i = 0; i <= c->cur && len < cap; i++) {
        if (skipped(c, i))
            continue;
        double d = i < c->cur ? c->pdur[i] : now - c->pstart;
        w = snprintf(buf + len, cap - len, " + %s %.2f", phases[i].name, d);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    *total = now - c->t_launch;
}

void tlm_mpi_heap_bound(size_t n_traces)
{
#ifdef __GLIBC__
    /* glibc raises its mmap threshold to the largest block freed (up to
     * 32 MiB); the big arrays of the next trace then come from the heap,
     * where the blocks one trace leaves (its records and rows) keep the
     * pages around them mapped, and the peak grows with every trace read.
     * A fixed threshold keeps every block over 4 MiB mmapped and returned
     * when freed.  It costs page faults, so only where a process reads
     * several traces. */
    if (n_traces > 1)
        mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
#else
    (void)n_traces;
#endif
}

tlm_status tlm_mpi_run_phases(tlm_mpi_ctx *c, int first, int last)
{
    _Static_assert(sizeof phases / sizeof phases[0] == TLM_MPI_N_PHASES,
                   "TLM_MPI_N_PHASES counts phases[]");
    _Static_assert(TLM_MPI_PH_PUBLISH + 1 == TLM_MPI_N_PHASES,
                   "TLM_MPI_PH_* index phases[]");
    double t = tlm_mpi_now();
    tlm_status st = TLM_OK;
    for (int i = first; i <= last && i < TLM_MPI_N_PHASES; i++) {
        if (skipped(c, i)) {
            c->pdur[i] = 0;
            continue;
        }
        c->cur = i;
        c->pstart = t;
        tlm_cli_progress_phase(c->prog, phases[i].name, t);
        tlm_mpi_test_stall(c, phases[i].name);
        st = phases[i].run(c);
        t = tlm_mpi_now();
        c->pdur[i] = t - c->pstart;
        if (phases[i].mark >= 0)
            c->phase[phases[i].mark] = t - c->t0;
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
            tlm_mpi_schema_markdown(stdout);
    } else {
        tlm_cli_progress prog;
        tlm_cli_progress_init(
            &prog,
            tlm_cli_progress_mode(c.o.quiet, c.o.progress, c.me,
                                  isatty(STDERR_FILENO)),
            stderr, t_launch);
        c.prog = &prog;
        code = tlm_mpi_run_phases(&c, 0, TLM_MPI_N_PHASES - 1) == TLM_OK
                   ? 0
                   : 1;
        c.prog = NULL;
        if (code == 0 && c.o.plots && c.me == 0)
            tlm_mpi_plots(c.su.out, c.su.rdir, c.o.quiet);
    }
    tlm_mpi_ctx_free(&c);
    if (we_init)
        MPI_Finalize();
    return code;
}
