/*
 * audit.c - `tlmpi audit ROOT --output_dir D`: every job under ROOT in one
 * MPI run (docs/cli.md; audit.h lists the parts).
 *
 *   1. rank 0 walks ROOT (audit_walk.c), groups the traces into runs
 *      (audit_runs.c) and checks every output before any trace is read;
 *      every process gets the plan: per run, its name and file list;
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
#include "audit.h"

#include <errno.h>
#include <stdarg.h>
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

/* The audit's state.  The plan and the rows live on rank 0; every
 * process has the runs' names and file lists. */
typedef struct audit {
    tlm_audit_opts o;
    int me, np;
    char cmdline[8192];
    double t_launch, t_walk, t_runs;
    tlm_audit_plan plan;       /* rank 0 */
    size_t n_run;
    char **label;              /* per run: its path under ROOT */
    int *prefail;              /* per run: failed before reading */
    tlm_mpi_filelist *fl;      /* per run */
    tlm_audit_acc acc;         /* rank 0 */
    tlm_outset out;            /* rank 0: audit.h5, audit.md, runs.csv */
    size_t n_failed;
    int usage_error;           /* rank 0: the setup failed on an option */
} audit;

static void say0(const audit *A, const char *fmt, ...) TLM_PRINTF(2, 3);
static void say0(const audit *A, const char *fmt, ...)
{
    if (A->me != 0)
        return;
    char msg[2048], esc[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tlmpi: %s\n", tlm_escape_ctrl(esc, sizeof esc, msg));
    fflush(stderr);
}

/* D/runs/<run> ("_root" for the root itself). */
static int run_dir(const audit *A, const char *rel, char *out, size_t cap)
{
    int w = snprintf(out, cap, "%s/runs/%s", A->o.a.output_dir,
                     strcmp(rel, ".") ? rel : "_root");
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

/* ---------------------------------------------------------------- plan */

/* Rank 0: a run's file list from its traces (ranks from distributedInfo,
 * else from the names). */
static tlm_status run_files(const audit *A, const tlm_audit_run *r,
                            tlm_mpi_filelist *fl, tlm_error *err)
{
    char **paths = calloc(r->n_tr ? r->n_tr : 1, sizeof *paths);
    tlm_status st = paths ? TLM_OK : TLM_ENOMEM;
    for (size_t i = 0; st == TLM_OK && i < r->n_tr; i++) {
        const char *rel = A->plan.tr[r->tr[i]].rel;
        size_t n = strlen(A->o.root) + strlen(rel) + 2;
        paths[i] = malloc(n);
        if (!paths[i])
            st = TLM_ENOMEM;
        else
            snprintf(paths[i], n, "%s/%s", A->o.root, rel);
    }
    if (st == TLM_OK) {
        tlm_mpi_opts fo = A->o.a;
        fo.files = paths;
        fo.n_files = r->n_tr;
        st = tlm_mpi_discover(&fo, fl, err);
    } else {
        tlm_error_set(err, st, NULL, -1, "out of memory");
    }
    for (size_t i = 0; paths && i < r->n_tr; i++)
        free(paths[i]);
    free(paths);
    return st;
}

static int put_bytes(char **b, size_t *len, size_t *cap, const void *p,
                     size_t n)
{
    if (*len + n > *cap) {
        size_t nc = (*cap ? 2 * *cap : 4096) + n;
        char *nb = realloc(*b, nc);
        if (!nb)
            return -1;
        *b = nb;
        *cap = nc;
    }
    memcpy(*b + *len, p, n);
    *len += n;
    return 0;
}

/* Rank 0: per run u64 prefail, u64 name length, name, u64 list length,
 * packed file list. */
static tlm_status pack_plan(audit *A, char **buf, size_t *len)
{
    size_t cap = 0;
    *buf = NULL;
    *len = 0;
    uint64_t n = A->plan.n_run;
    int bad = put_bytes(buf, len, &cap, &n, 8);
    for (size_t i = 0; !bad && i < A->plan.n_run; i++) {
        tlm_audit_run *r = &A->plan.run[i];
        tlm_mpi_filelist fl;
        memset(&fl, 0, sizeof fl);
        if (!r->prefail) {
            tlm_error err;
            tlm_error_clear(&err);
            if (run_files(A, r, &fl, &err) != TLM_OK) {
                r->prefail = 1;
                tlm_error_format(&err, r->reason, sizeof r->reason);
            }
        }
        char *pk = NULL;
        size_t pl = 0;
        if (tlm_mpi_filelist_pack(&fl, &pk, &pl) != TLM_OK)
            bad = 1;
        tlm_mpi_filelist_free(&fl);
        uint64_t h[2] = {(uint64_t)r->prefail, strlen(r->rel)};
        uint64_t l = pl;
        bad = bad || put_bytes(buf, len, &cap, h, 16) ||
              put_bytes(buf, len, &cap, r->rel, h[1]) ||
              put_bytes(buf, len, &cap, &l, 8) ||
              put_bytes(buf, len, &cap, pk, pl);
        free(pk);
    }
    return bad ? TLM_ENOMEM : TLM_OK;
}

static tlm_status unpack_plan(audit *A, const char *b, size_t len)
{
    uint64_t n, h[2], l;
    size_t off = 8;
    if (len < 8)
        return TLM_EINVAL;
    memcpy(&n, b, 8);
    if (n > len / 24)
        return TLM_EINVAL;
    A->n_run = (size_t)n;
    A->label = calloc(n ? n : 1, sizeof *A->label);
    A->prefail = calloc(n ? n : 1, sizeof *A->prefail);
    A->fl = calloc(n ? n : 1, sizeof *A->fl);
    if (!A->label || !A->prefail || !A->fl)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (off + 16 > len)
            return TLM_EINVAL;
        memcpy(h, b + off, 16);
        off += 16;
        if (h[1] > len - off || off + h[1] + 8 > len)
            return TLM_EINVAL;
        A->prefail[i] = (int)h[0];
        A->label[i] = strndup(b + off, (size_t)h[1]);
        off += (size_t)h[1];
        memcpy(&l, b + off, 8);
        off += 8;
        if (!A->label[i] || l > len - off)
            return A->label[i] ? TLM_EINVAL : TLM_ENOMEM;
        tlm_error err;
        tlm_status st = tlm_mpi_filelist_unpack(b + off, (size_t)l, &A->fl[i],
                                                &err);
        if (st != TLM_OK)
            return st;
        off += (size_t)l;
    }
    return TLM_OK;
}

/* ---------------------------------------------------------------- setup */

/* Rank 0: a run's outputs must not exist unless --force. */
static tlm_status precheck_run(const audit *A, const char *rel,
                               tlm_error *err)
{
    char dir[TLM_MPI_PATH_CAP], p[TLM_MPI_PATH_CAP + 64];
    if (run_dir(A, rel, dir, sizeof dir) != 0)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1, "output path too "
                             "long");
    for (size_t i = 0; i < 2 || tlm_mpi_report_csvs[i - 2]; i++) {
        const char *name = i == 0 ? "tlmpi.h5"
                           : i == 1 ? "report.md"
                                    : tlm_mpi_report_csvs[i - 2];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        struct stat sb;
        if (lstat(p, &sb) != 0)
            continue;
        if (!S_ISREG(sb.st_mode))
            return tlm_error_set(err, TLM_EINVAL, p, -1,
                                 "output exists and is not a regular file");
        if (!A->o.a.force)
            return tlm_error_set(err, TLM_EEXIST, p, -1,
                                 "output file exists; use --force to "
                                 "replace it");
    }
    return TLM_OK;
}

/* Rank 0: the audit's own outputs checked and staged; every trace is an
 * input none of them may be. */
static tlm_status check_outputs(audit *A, tlm_error *err)
{
    tlm_status st = tlm_outset_init(&A->out, A->o.a.force, err);
    tlm_mpi_signals_track(&A->out);
    char p[TLM_MPI_PATH_CAP];
    for (size_t i = 0; st == TLM_OK && i < A->plan.n_tr; i++) {
        snprintf(p, sizeof p, "%s/%s", A->o.root, A->plan.tr[i].rel);
        st = tlm_outset_add_input(&A->out, p, err);
    }
    static const char *const names[] = {"audit.h5", "audit.md", "runs.csv"};
    for (size_t i = 0; st == TLM_OK && i < 3; i++) {
        const char *tmp;
        snprintf(p, sizeof p, "%s/%s", A->o.a.output_dir, names[i]);
        st = tlm_outset_stage(&A->out, p, &tmp, err);
    }
    for (size_t i = 0; st == TLM_OK && i < A->plan.n_run; i++)
        st = precheck_run(A, A->plan.run[i].rel, err);
    return st;
}

/* Rank 0: is --baseline one of the runs? */
static tlm_status check_baseline(const audit *A, tlm_error *err)
{
    if (!A->o.baseline)
        return TLM_OK;
    for (size_t i = 0; i < A->plan.n_run; i++)
        if (!strcmp(A->plan.run[i].rel, A->o.baseline))
            return TLM_OK;
    return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                         "--baseline '%s' is not a run found under %s (runs "
                         "are named by their path under the root, as in "
                         "audit.md)", A->o.baseline, A->o.root);
}

/* Rank 0: the traces classified, grouped into runs, every output checked,
 * the plan packed. */
static tlm_status setup0(audit *A, const tlm_sniff *rows, char **buf,
                         size_t *len, tlm_error *err)
{
    tlm_status st = tlm_audit_classify(&A->plan, rows, err);
    if (st == TLM_OK)
        st = tlm_audit_group(&A->plan, A->o.run_depth, err);
    if (st == TLM_OK) {
        st = check_baseline(A, err);
        A->usage_error = st != TLM_OK;
    }
    if (st == TLM_OK)
        st = check_outputs(A, err);
    if (st == TLM_OK && (st = pack_plan(A, buf, len)) != TLM_OK)
        tlm_error_set(err, st, NULL, -1, "out of memory");
    return st;
}

/* Rank 0's status after a step it did alone, with its message; every
 * process gets it.  usage: the exit code is 2, not 1. */
static tlm_status bcast_status(audit *A, tlm_status st, tlm_error *err,
                               int *code)
{
    if (A->me == 0 && st != TLM_OK) {
        char msg[1200];
        if (err->code == TLM_OK)
            tlm_error_set(err, st, NULL, -1, "%s", tlm_status_str(st));
        say0(A, "error: %s", tlm_error_format(err, msg, sizeof msg));
    }
    int32_t h[2] = {(int32_t)st, A->usage_error};
    if (MPI_Bcast(h, 2, MPI_INT32_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return TLM_EMPI;
    *code = h[1] ? TLM_AUDIT_EXIT_USAGE : TLM_AUDIT_EXIT_NOTHING;
    return (tlm_status)h[0];
}

/* Rank 0's buffer (*len bytes) to every process (others: malloc'd, *len
 * set). */
static tlm_status bcast_buf(audit *A, char **buf, size_t *len)
{
    uint64_t l = *len;
    if (MPI_Bcast(&l, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return TLM_EMPI;
    if (l > INT32_MAX)
        return TLM_ELIMIT;
    *len = (size_t)l;
    if (A->me != 0)
        *buf = malloc(l ? (size_t)l : 1);
    tlm_status st = tlm_mpi_agree(*buf ? TLM_OK : TLM_ENOMEM, MPI_COMM_WORLD);
    if (st == TLM_OK &&
        MPI_Bcast(*buf, (int)l, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        st = TLM_EMPI;
    return st;
}

/* Rank 0 gathers every process's sniff rows, in candidate order. */
static tlm_status gather_sniffs(audit *A, const tlm_sniff *mine, size_t cnt,
                                tlm_sniff *all, size_t n)
{
    int *counts = NULL, *displs = NULL;
    if (A->me == 0) {
        counts = malloc((size_t)A->np * sizeof *counts);
        displs = malloc((size_t)A->np * sizeof *displs);
    }
    tlm_status st = tlm_mpi_agree(A->me || (counts && displs) ? TLM_OK
                                                              : TLM_ENOMEM,
                                  MPI_COMM_WORLD);
    if (st == TLM_OK && n * sizeof *all > INT32_MAX)
        st = TLM_ELIMIT;
    for (int r = 0; st == TLM_OK && A->me == 0 && r < A->np; r++) {
        size_t f = (size_t)(n * (uint64_t)r / (uint64_t)A->np);
        size_t e = (size_t)(n * (uint64_t)(r + 1) / (uint64_t)A->np);
        counts[r] = (int)((e - f) * sizeof *all);
        displs[r] = (int)(f * sizeof *all);
    }
    if (st == TLM_OK &&
        MPI_Gatherv(mine, (int)(cnt * sizeof *mine), MPI_BYTE, all, counts,
                    displs, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        st = TLM_EMPI;
    free(counts);
    free(displs);
    return st;
}

/* Every process sniffs a block of the walk's files; rank 0 gets every
 * verdict in *rows (others: NULL). */
static tlm_status sniff_all(audit *A, tlm_sniff **rows)
{
    tlm_audit_plan *p = &A->plan;
    char *blob = NULL;
    size_t len = 0;
    for (size_t i = 0; A->me == 0 && i < p->n_cand; i++)
        len += strlen(p->cand[i]) + 1;
    if (A->me == 0 && (blob = malloc(len ? len : 1)) != NULL)
        for (size_t i = 0, off = 0; i < p->n_cand; i++) {
            size_t n = strlen(p->cand[i]) + 1;
            memcpy(blob + off, p->cand[i], n);
            off += n;
        }
    tlm_status st = tlm_mpi_agree(A->me || blob ? TLM_OK : TLM_ENOMEM,
                                  MPI_COMM_WORLD);
    if (st == TLM_OK)
        st = bcast_buf(A, &blob, &len);
    uint64_t n = p->n_cand;
    if (st == TLM_OK)
        MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (st == TLM_OK && A->me != 0) { /* the same candidates, borrowed */
        p->cand = calloc(n ? (size_t)n : 1, sizeof *p->cand);
        for (size_t i = 0, off = 0; p->cand && i < n; i++) {
            p->cand[i] = blob + off;
            off += strlen(blob + off) + 1;
        }
        st = tlm_mpi_agree(p->cand ? TLM_OK : TLM_ENOMEM, MPI_COMM_WORLD);
    } else if (st == TLM_OK) {
        st = tlm_mpi_agree(TLM_OK, MPI_COMM_WORLD);
    }
    size_t first = (size_t)(n * (uint64_t)A->me / (uint64_t)A->np);
    size_t cnt = (size_t)(n * (uint64_t)(A->me + 1) / (uint64_t)A->np) - first;
    tlm_sniff *mine = calloc(cnt ? cnt : 1, sizeof *mine);
    if (st == TLM_OK)
        st = tlm_mpi_agree(mine ? tlm_audit_sniff_range(p, A->o.root, first,
                                                        cnt, mine)
                                : TLM_ENOMEM,
                           MPI_COMM_WORLD);
    if (st == TLM_OK && A->me == 0)
        *rows = calloc(n ? (size_t)n : 1, sizeof **rows);
    if (st == TLM_OK)
        st = tlm_mpi_agree(A->me || *rows ? TLM_OK : TLM_ENOMEM,
                           MPI_COMM_WORLD);
    if (st == TLM_OK)
        st = gather_sniffs(A, mine, cnt, *rows, (size_t)n);
    free(mine);
    if (A->me != 0) {
        free(p->cand);
        p->cand = NULL;
    }
    free(blob);
    return st;
}

/* Rank 0 walks; every process sniffs; rank 0 makes the plan, which every
 * process gets.  *code: the exit code when the status is not TLM_OK. */
static tlm_status share_plan(audit *A, int *code)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = TLM_OK;
    *code = TLM_AUDIT_EXIT_NOTHING;
    if (A->me == 0) {
        tlm_audit_walk_opts w = {A->o.root, A->o.a.output_dir, 0, 32};
        st = tlm_audit_walk(&w, &A->plan, &err);
    }
    if ((st = bcast_status(A, st, &err, code)) != TLM_OK)
        return st;
    tlm_sniff *rows = NULL;
    st = sniff_all(A, &rows);
    if (st != TLM_OK) {
        free(rows);
        say0(A, "error: cannot sniff the files under %s (%s)", A->o.root,
             tlm_status_str(st));
        return st;
    }
    char *buf = NULL;
    size_t len = 0;
    if (A->me == 0)
        st = setup0(A, rows, &buf, &len, &err);
    free(rows);
    if ((st = bcast_status(A, st, &err, code)) == TLM_OK)
        st = bcast_buf(A, &buf, &len);
    if (st == TLM_OK)
        st = tlm_mpi_agree(unpack_plan(A, buf, len), MPI_COMM_WORLD);
    free(buf);
    if (st != TLM_OK && *code != TLM_AUDIT_EXIT_USAGE)
        say0(A, "error: cannot share the plan of the audit (%s)",
             tlm_status_str(st));
    return st;
}

/* ---------------------------------------------------------------- runs */

/* Rank 0: the results of a run's analysis become its rows. */
static void on_results(void *arg, const tlm_mpi_results *r)
{
    void **a = arg;
    audit *A = a[0];
    size_t run = (size_t)(uintptr_t)a[1];
    if (tlm_audit_add_results(&A->acc, run, r,
                              A->o.a.straggler_threshold_us) != TLM_OK)
        tlm_mpi_strset(A->acc.runs[run].reason,
                       sizeof A->acc.runs[run].reason,
                       "warning: out of memory for the audit's rows");
}

/* A run's context, its file list moved in. */
static tlm_mpi_ctx *run_ctx(audit *A, size_t i)
{
    tlm_mpi_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->comm = MPI_COMM_WORLD;
    c->me = A->me;
    c->np = A->np;
    c->o = A->o.a;
    c->o.quiet = 1;
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
static tlm_status read_wave(audit *A, size_t a, size_t b, tlm_mpi_ctx **ctx)
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
    if (st == TLM_OK && tlm_mpi_assign(sizes, nf, A->np, owner) != 0)
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
        if (!c->owner || !c->lres) {
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
static tlm_status run_outputs(audit *A, tlm_mpi_ctx *c)
{
    tlm_status st = TLM_OK;
    tlm_error err;
    tlm_error_clear(&err);
    if (A->me == 0) {
        char dir[TLM_MPI_PATH_CAP];
        if (run_dir(A, c->label, dir, sizeof dir) != 0 ||
            snprintf(c->su.out, sizeof c->su.out, "%s/tlmpi.h5", dir) >=
                (int)sizeof c->su.out)
            st = tlm_error_set(&err, TLM_ELIMIT, NULL, -1,
                               "output path too long");
        tlm_mpi_strset(c->su.rdir, sizeof c->su.rdir, dir);
        tlm_mpi_strset(c->su.cdir, sizeof c->su.cdir, dir);
        if (st == TLM_OK)
            st = tlm_mpi_setup_outputs(c, &err);
    }
    return tlm_mpi_check(c, st, &err);
}

/* Rank 0: the line that says how a run went. */
static void run_line(const audit *A, size_t i)
{
    if (A->me != 0 || A->o.a.quiet)
        return;
    const tlm_arow_run *r = &A->acc.runs[i];
    if (strcmp(r->status, "ok") != 0) {
        say0(A, "run %s: FAILED: %s", r->run, r->reason);
        return;
    }
    char step[48] = "no ProfilerStep";
    if (r->step_time_ns > 0)
        snprintf(step, sizeof step, "step %.1f ms",
                 (double)r->step_time_ns / 1e6);
    say0(A, "run %s: ok, %lld traces, %lld collective instances, %s",
         r->run, (long long)r->ranks_read, (long long)r->instances, step);
}

/* One run through the analysis phases.  Returns TLM_EMPI only when MPI
 * failed (the audit ends); every other failure is the run's. */
static tlm_status run_one(audit *A, size_t i, tlm_mpi_ctx *c)
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
            tlm_mpi_strset(r->status, sizeof r->status, "ok");
            char h5[TLM_MPI_PATH_CAP];
            snprintf(h5, sizeof h5, "runs/%s/tlmpi.h5",
                     strcmp(c->label, ".") ? c->label : "_root");
            tlm_mpi_strset(r->h5, sizeof r->h5, h5);
        }
        if (r->n_files < 0)
            r->n_files = (int64_t)c->fl.n;
    }
    A->n_failed += st != TLM_OK;
    run_line(A, i);
    return st == TLM_EMPI ? st : TLM_OK;
}

/* Every run, wave by wave. */
static tlm_status run_all(audit *A)
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
static tlm_status init_rows(audit *A)
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
        tlm_mpi_strset(row->reason, sizeof row->reason, r->reason);
        row->n_files = (int64_t)r->n_tr;
    }
    return TLM_OK;
}

/* ---------------------------------------------------------------- outputs */

/* Rank 0: audit.h5, audit.md and runs.csv written to their temporaries,
 * then published together. */
static tlm_status write_outputs(audit *A, double t_launch)
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
        say0(A, "error: %s", tlm_error_format(&err, msg, sizeof msg));
    }
    return st;
}

static void audit_free(audit *A)
{
    tlm_mpi_signals_untrack(&A->out);
    tlm_outset_free(&A->out);
    for (size_t i = 0; i < A->n_run; i++) {
        if (A->label)
            free(A->label[i]);
        if (A->fl)
            tlm_mpi_filelist_free(&A->fl[i]);
    }
    free(A->label);
    free(A->prefail);
    free(A->fl);
    tlm_audit_plan_free(&A->plan);
    tlm_audit_acc_free(&A->acc);
}

/* Rank 0: the skipped files, said once. */
static void say_skipped(const audit *A)
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
    say0(A, "%s: %zu %s under the root %s: %s%s",
         A->o.strict ? "error" : "note", p->n_skip,
         p->n_skip == 1 ? "entry" : "entries",
         p->n_skip == 1 ? "is not a trace or could not be read"
                        : "are not traces or could not be read",
         list, p->n_skip > 20 ? ", ..." : "");
}

/* The audit after its options: the exit code. */
static int audit_run(audit *A)
{
    double t0 = tlm_mpi_now();
    int code = TLM_AUDIT_EXIT_NOTHING;
    tlm_status st = share_plan(A, &code);
    if (st != TLM_OK)
        return code;
    A->t_walk = tlm_mpi_now() - t0;
    if (A->me == 0 && !A->o.a.quiet)
        say0(A, "%zu run%s, %zu trace files under %s, %d MPI rank%s",
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
        say0(A, "wrote %s/audit.h5, audit.md, runs.csv: %zu run%s, %zu "
                "failed, in %.2f s", A->o.a.output_dir, A->n_run,
             A->n_run == 1 ? "" : "s", A->n_failed,
             tlm_mpi_now() - A->t_launch);
    return partial ? TLM_AUDIT_EXIT_PARTIAL : TLM_AUDIT_EXIT_OK;
}

int tlm_mpi_audit(int argc, char **argv)
{
    audit A;
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
    tlm_mpi_signals_install();
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
