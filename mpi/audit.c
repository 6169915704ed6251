/*
 * audit.c - `tlmpi audit ROOT --output_dir D`: every job under ROOT in one
 * MPI run (docs/cli.md; src/audit/audit.h lists the parts).
 *
 *   1. the plan (audit_plan.c): rank 0 walks ROOT, every process sniffs
 *      a block of its files, rank 0 groups the traces into runs and
 *      checks every output before any trace is read; every process gets
 *      per run its name and file list;
 *   2. runs are taken in waves of at most --wave_files files: the files of
 *      a wave are balanced by bytes over every process together (the LPT
 *      of assign.c), each read into its run's context (driver.h);
 *   3. then each run of the wave goes through the analysis phases check
 *      ... publish over all processes (its collectives spread over all of
 *      them), writing D/runs/<run>/ as a single analysis would.  Its
 *      failure (a bad trace, a missing rank, an output fault) fails that
 *      run alone: the phases agree on their status, so every process
 *      moves on to the next run together.  Only an MPI failure ends the
 *      audit;
 *   4. rank 0 turns the rows it kept into audit.h5, audit.md and runs.csv,
 *      published together (tlm_outset).
 *
 * Memory per process: the files it reads in one wave and one run's
 * tables, whatever the number of runs.
 */
#include "audit_mpi.h"
#include "plots.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assign.h"
#include "driver.h"
#include "exchange.h"
#include "sigclean.h"
#include "tlmpi/tlm_version.h"

/* ---------------------------------------------------------------- runs */

/* Rank 0: the results of a run's analysis become its rows. */
static void on_results(void *arg, const tlm_out_results *r)
{
    void **a = arg;
    tlm_audit *A = a[0];
    size_t run = (size_t)(uintptr_t)a[1];
    if (tlm_audit_add_results(&A->acc, run, r,
                              A->o.a.straggler_threshold_us) != TLM_OK)
        tlm_strset(A->acc.runs[run].reason,
                       sizeof A->acc.runs[run].reason,
                       "warning: out of memory for the audit's rows");
}

/* A run's context, its file list moved in. */
static tlm_mpi_ctx *run_ctx(tlm_audit *A, size_t i)
{
    tlm_mpi_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->comm = MPI_COMM_WORLD;
    tlm_mpi_ctx_modules(c);
    c->me = A->me;
    c->np = A->np;
    c->o = A->o.a;
    c->say_quiet = A->o.a.quiet;
    c->o.quiet = 1;
    c->o.plots = 0; /* the audit's own, from audit.h5 */
    c->o.files = NULL;
    c->o.n_files = 0;
    memcpy(c->cmdline, A->cmdline, sizeof c->cmdline);
    c->t0 = c->t_launch = tlm_mpi_now();
    c->cur = -1;
    c->label = A->label[i];
    c->fl = A->fl[i];
    memset(&A->fl[i], 0, sizeof A->fl[i]);
    if (A->me == 0) {
        c->sink = A->acc.runs[i].reason;
        c->sink_cap = sizeof A->acc.runs[i].reason;
    }
    return c;
}

/* The runs [a, b) of one wave: contexts made, files read.  ctx[i - a]
 * stays NULL for a run failed before reading. */
static tlm_status read_wave(tlm_audit *A, size_t a, size_t b, tlm_mpi_ctx **ctx)
{
    size_t nf = 0;
    for (size_t i = a; i < b; i++)
        nf += A->prefail[i] ? 0 : A->fl[i].n;
    int64_t *sizes = malloc((nf ? nf : 1) * sizeof *sizes);
    int *owner = malloc((nf ? nf : 1) * sizeof *owner);
    tlm_status st = sizes && owner ? TLM_OK : TLM_ENOMEM;
    size_t k = 0;
    for (size_t i = a; st == TLM_OK && i < b; i++) {
        if (A->prefail[i])
            continue;
        for (size_t j = 0; j < A->fl[i].n; j++)
            sizes[k++] = A->fl[i].size[j];
        ctx[i - a] = run_ctx(A, i);
        if (!ctx[i - a])
            st = TLM_ENOMEM;
    }
    if (st == TLM_OK && tlm_cli_assign(sizes, nf, A->np, owner) != 0)
        st = TLM_ENOMEM;
    size_t mine = 0;
    for (size_t j = 0; st == TLM_OK && j < nf; j++)
        mine += owner[j] == A->me;
    tlm_mpi_heap_bound(mine);
    k = 0;
    for (size_t i = a; st == TLM_OK && i < b; i++) {
        tlm_mpi_ctx *c = ctx[i - a];
        if (!c)
            continue;
        c->owner = malloc((c->fl.n ? c->fl.n : 1) * sizeof *c->owner);
        c->lres = calloc(c->fl.n ? c->fl.n : 1, sizeof *c->lres);
        c->lmsg = calloc(c->fl.n ? c->fl.n : 1, sizeof *c->lmsg);
        if (!c->owner || !c->lres || !c->lmsg) {
            st = TLM_ENOMEM;
            break;
        }
        for (size_t j = 0; j < c->fl.n; j++, k++) {
            c->owner[j] = owner[k];
            if (owner[k] != A->me)
                continue;
            tlm_mpi_read_trace(c, j, &c->lres[c->n_lres++]);
            c->bytes_read += (uint64_t)c->fl.size[j];
        }
    }
    free(sizes);
    free(owner);
    return tlm_mpi_agree(st, MPI_COMM_WORLD);
}

/* Rank 0: a run's outputs checked and staged, then agreed on. */
static tlm_status run_outputs(tlm_audit *A, tlm_mpi_ctx *c)
{
    tlm_status st = TLM_OK;
    tlm_error err;
    tlm_error_clear(&err);
    if (A->me == 0) {
        char dir[TLM_MPI_PATH_CAP];
        if (tlm_audit_run_dir(A, c->label, dir, sizeof dir) != 0 ||
            snprintf(c->su.out, sizeof c->su.out, "%s/tlmpi.h5", dir) >=
                (int)sizeof c->su.out)
            st = tlm_error_set(&err, TLM_ELIMIT, NULL, -1,
                               "output path too long");
        tlm_strset(c->su.rdir, sizeof c->su.rdir, dir);
        tlm_strset(c->su.cdir, sizeof c->su.cdir, dir);
        if (st == TLM_OK)
            st = tlm_mpi_setup_outputs(c, &err);
    }
    return tlm_mpi_check(c, st, &err);
}

/* Rank 0: the line that says how a run went. */
static void run_line(const tlm_audit *A, size_t i)
{
    if (A->me != 0 || A->o.a.quiet)
        return;
    const tlm_arow_run *r = &A->acc.runs[i];
    if (strcmp(r->status, "ok") != 0) {
        tlm_audit_say0(A, "run %s: FAILED: %s", r->run, r->reason);
        return;
    }
    char step[48] = "no ProfilerStep";
    if (r->step_time_ns > 0)
        snprintf(step, sizeof step, "step %.1f ms",
                 (double)r->step_time_ns / 1e6);
    tlm_audit_say0(A, "run %s: ok, %lld traces, %lld collective instances, %s",
         r->run, (long long)r->ranks_read, (long long)r->instances, step);
}

/* One run through the analysis phases.  Returns TLM_EMPI only when MPI
 * failed (the audit ends); every other failure is the run's. */
static tlm_status run_one(tlm_audit *A, size_t i, tlm_mpi_ctx *c)
{
    void *arg[2] = {A, (void *)(uintptr_t)i};
    c->on_results = on_results;
    c->on_results_arg = arg;
    tlm_status st = run_outputs(A, c);
    if (st == TLM_OK)
        st = tlm_mpi_run_phases(c, TLM_MPI_PH_CHECK, TLM_MPI_PH_PUBLISH);
    if (A->me == 0) {
        tlm_arow_run *r = &A->acc.runs[i];
        if (st == TLM_OK) {
            tlm_strset(r->status, sizeof r->status, "ok");
            char h5[TLM_MPI_PATH_CAP];
            snprintf(h5, sizeof h5, "runs/%s/tlmpi.h5",
                     strcmp(c->label, ".") ? c->label : "_root");
            tlm_strset(r->h5, sizeof r->h5, h5);
        }
        if (r->n_files < 0)
            r->n_files = (int64_t)c->fl.n;
    }
    A->n_failed += st != TLM_OK;
    run_line(A, i);
    return st == TLM_EMPI ? st : TLM_OK;
}

/* Every run, wave by wave. */
static tlm_status run_all(tlm_audit *A)
{
    size_t cap = A->o.wave_files > 0 ? (size_t)A->o.wave_files
                                     : 8 * (size_t)A->np;
    tlm_status st = TLM_OK;
    for (size_t a = 0, b; st == TLM_OK && a < A->n_run; a = b) {
        size_t files = A->prefail[a] ? 0 : A->fl[a].n;
        for (b = a + 1; b < A->n_run; b++) {
            size_t f = A->prefail[b] ? 0 : A->fl[b].n;
            if (files + f > cap)
                break;
            files += f;
        }
        tlm_mpi_ctx **ctx = calloc(b - a, sizeof *ctx);
        st = tlm_mpi_agree(ctx ? TLM_OK : TLM_ENOMEM, MPI_COMM_WORLD);
        if (st == TLM_OK)
            st = read_wave(A, a, b, ctx);
        for (size_t i = a; st == TLM_OK && i < b; i++) {
            if (ctx[i - a])
                st = run_one(A, i, ctx[i - a]);
            else {
                A->n_failed++;
                run_line(A, i);
            }
            if (ctx[i - a]) {
                tlm_mpi_ctx_free(ctx[i - a]);
                free(ctx[i - a]);
                ctx[i - a] = NULL;
            }
        }
        for (size_t i = a; ctx && i < b; i++)
            if (ctx[i - a]) {
                tlm_mpi_ctx_free(ctx[i - a]);
                free(ctx[i - a]);
            }
        free(ctx);
    }
    return st;
}

/* Rank 0: a row per run before any is analysed (failed until it is). */
static tlm_status init_rows(tlm_audit *A)
{
    A->acc.n_runs = A->plan.n_run;
    A->acc.runs = calloc(A->plan.n_run ? A->plan.n_run : 1,
                         sizeof *A->acc.runs);
    if (!A->acc.runs)
        return TLM_ENOMEM;
    for (size_t i = 0; i < A->plan.n_run; i++) {
        const tlm_audit_run *r = &A->plan.run[i];
        tlm_arow_run *row = &A->acc.runs[i];
        tlm_audit_row_init(row, (int32_t)i, r->rel, r->job);
        tlm_strset(row->reason, sizeof row->reason, r->reason);
        row->n_files = (int64_t)r->n_tr;
    }
    return TLM_OK;
}

/* ---------------------------------------------------------------- outputs */

/* Rank 0: audit.h5, audit.md and runs.csv written to their temporaries,
 * then published together. */
static tlm_status write_outputs(tlm_audit *A, double t_launch)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_audit_meta m = {&A->o, &A->plan, A->cmdline, A->np, A->t_walk,
                        A->t_runs, tlm_mpi_now() - t_launch};
    tlm_status st = tlm_audit_finish(&A->acc, &A->o);
    if (st == TLM_OK)
        st = tlm_audit_h5_write(A->out.f[0].tmp, &A->acc, &m, &err);
    for (int k = 1; st == TLM_OK && k < 3; k++) {
        const char *tmp = A->out.f[k].tmp;
        FILE *f = fopen(tmp, "w");
        if (!f) {
            st = tlm_error_set(&err, TLM_EIO, tmp, -1, "%s", strerror(errno));
            break;
        }
        int bad = k == 1 ? tlm_audit_md_write(f, &A->acc, &m)
                         : tlm_audit_csv_write(f, &A->acc);
        st = tlm_outset_fclose(f, tmp, &err);
        if (st == TLM_OK && bad)
            st = tlm_error_set(&err, TLM_EIO, tmp, -1, "write failed");
    }
    if (st == TLM_OK)
        st = tlm_outset_commit(&A->out, &err);
    else
        tlm_outset_abort(&A->out);
    if (st != TLM_OK) {
        char msg[1200];
        if (err.code == TLM_OK)
            tlm_error_set(&err, st, NULL, -1, "%s", tlm_status_str(st));
        tlm_audit_say0(A, "error: %s", tlm_error_format(&err, msg, sizeof msg));
    }
    return st;
}

/* Frees the audit's state. */
static void audit_free(tlm_audit *A)
{
    tlm_cli_signals_untrack(&A->out);
    tlm_outset_free(&A->out);
    for (size_t i = 0; i < A->n_run; i++) {
        if (A->label)
            free(A->label[i]);
        if (A->fl)
            tlm_cli_filelist_free(&A->fl[i]);
    }
    free(A->label);
    free(A->prefail);
    free(A->fl);
    tlm_audit_plan_free(&A->plan);
    tlm_audit_acc_free(&A->acc);
}

/* Rank 0: the skipped files, said once. */
static void say_skipped(const tlm_audit *A)
{
    const tlm_audit_plan *p = &A->plan;
    if (!p->n_skip || A->o.a.quiet)
        return;
    char list[1200] = "";
    size_t len = 0;
    for (size_t i = 0; i < p->n_skip && i < 20 && len + 200 < sizeof list;
         i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s (%s)",
                                i ? ", " : "", p->skip[i].path,
                                p->skip[i].reason);
    tlm_audit_say0(A, "%s: %zu %s under the root %s: %s%s",
         A->o.strict ? "error" : "note", p->n_skip,
         p->n_skip == 1 ? "entry" : "entries",
         p->n_skip == 1 ? "is not a trace or could not be read"
                        : "are not traces or could not be read",
         list, p->n_skip > 20 ? ", ..." : "");
}

/* The audit after its options: the exit code. */
static int audit_run(tlm_audit *A)
{
    double t0 = tlm_mpi_now();
    int code = TLM_AUDIT_EXIT_NOTHING;
    tlm_status st = tlm_audit_share_plan(A, &code);
    if (st != TLM_OK)
        return code;
    A->t_walk = tlm_mpi_now() - t0;
    if (A->me == 0 && !A->o.a.quiet)
        tlm_audit_say0(A, "%zu run%s, %zu trace files under %s, %d MPI rank%s",
             A->plan.n_run, A->plan.n_run == 1 ? "" : "s", A->plan.n_tr,
             A->o.root, A->np, A->np == 1 ? "" : "s");
    say_skipped(A);
    st = tlm_mpi_agree(A->me == 0 ? init_rows(A) : TLM_OK, MPI_COMM_WORLD);
    if (st == TLM_OK)
        st = run_all(A);
    A->t_runs = tlm_mpi_now() - t0 - A->t_walk;
    if (st != TLM_OK)
        return TLM_AUDIT_EXIT_NOTHING;
    st = tlm_mpi_agree(A->me == 0 ? write_outputs(A, A->t_launch) : TLM_OK,
                       MPI_COMM_WORLD);
    if (st != TLM_OK)
        return TLM_AUDIT_EXIT_NOTHING;
    int partial = A->n_failed > 0 || A->n_run == 0 ||
                  (A->me == 0 && (A->plan.n_unreadable > 0 ||
                                  (A->o.strict && A->plan.n_skip > 0)));
    MPI_Bcast(&partial, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!A->o.a.quiet)
        tlm_audit_say0(A, "wrote %s/audit.h5, audit.md, runs.csv: %zu run%s, %zu "
                "failed, in %.2f s", A->o.a.output_dir, A->n_run,
             A->n_run == 1 ? "" : "s", A->n_failed,
             tlm_mpi_now() - A->t_launch);
    if (A->o.a.plots && A->me == 0) {
        char h5[TLM_MPI_PATH_CAP];
        snprintf(h5, sizeof h5, "%s/audit.h5", A->o.a.output_dir);
        tlm_out_plots(h5, A->o.a.output_dir, A->o.a.quiet);
    }
    return partial ? TLM_AUDIT_EXIT_PARTIAL : TLM_AUDIT_EXIT_OK;
}

/* `tlmpi audit ...`: MPI set up if needed, the options, the audit; the
 * exit code. */
int tlm_mpi_audit(int argc, char **argv)
{
    tlm_audit A;
    memset(&A, 0, sizeof A);
    A.t_launch = tlm_mpi_now();
    int inited = 0, we_init = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
            fprintf(stderr, "tlmpi: error: MPI_Init failed\n");
            return TLM_AUDIT_EXIT_NOTHING;
        }
        we_init = 1;
    }
    tlm_cli_signals_install();
    MPI_Comm_rank(MPI_COMM_WORLD, &A.me);
    MPI_Comm_size(MPI_COMM_WORLD, &A.np);
    size_t len = 0;
    for (int i = 0; i < argc && len + 2 < sizeof A.cmdline; i++)
        len += (size_t)snprintf(A.cmdline + len, sizeof A.cmdline - len,
                                "%s%s", i ? " " : "tlmpi ", argv[i]);
    tlm_error err;
    int code = 0;
    if (tlm_audit_opts_parse(argc, argv, &A.o, &err) != TLM_OK) {
        if (A.me == 0)
            fprintf(stderr, "tlmpi: error: %s\nrun 'tlmpi audit --help' for "
                            "the options\n", err.msg);
        code = TLM_AUDIT_EXIT_USAGE;
    } else if (A.o.a.help) {
        if (A.me == 0)
            fputs(tlm_audit_usage(), stdout);
    } else if (A.o.a.print_schema) {
        if (A.me == 0)
            tlm_audit_schema_markdown(stdout);
    } else {
        A.o.root = A.o.a.files[0];
        code = audit_run(&A);
    }
    audit_free(&A);
    if (we_init)
        MPI_Finalize();
    return code;
}
