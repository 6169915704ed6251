/*
 * audit_plan.c - the first step of `tlmpi audit` (audit.c): rank 0 walks
 * ROOT (src/audit/audit_walk.c), every process sniffs a block of the files found,
 * rank 0 classifies them, groups the traces into runs (src/audit/audit_runs.c),
 * checks --baseline and every output before any trace is read, and every
 * process gets the plan: per run, its name and file list (ranks from the
 * traces, else from the names: discover.c).  It also holds rank 0's
 * messages (tlm_audit_say0) and a run's output folder, which audit.c
 * uses: audit.c calls this file, never the other way.
 */
#include "audit_mpi.h"
#include "plots.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"
#include "exchange.h"
#include "grow.h"
#include "sigclean.h"

/* ---------------------------------------------------------------- say */

/* Rank 0 prints "tlmpi: " and the message, escaped, to stderr. */
void tlm_audit_say0(const tlm_audit *A, const char *fmt, ...)
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
int tlm_audit_run_dir(const tlm_audit *A, const char *rel, char *out, size_t cap)
{
    int w = snprintf(out, cap, "%s/runs/%s", A->o.a.output_dir,
                     strcmp(rel, ".") ? rel : "_root");
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

/* ---------------------------------------------------------------- plan */

/* Rank 0: a run's file list from its traces (ranks from distributedInfo,
 * else from the names relative to the run's folder, decided over the set:
 * discover.c). */
static tlm_status run_files(const tlm_audit *A, const tlm_audit_run *r,
                            tlm_cli_filelist *fl, tlm_error *err)
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
    char base[TLM_MPI_PATH_CAP];
    snprintf(base, sizeof base, "%s%s%s", A->o.root,
             strcmp(r->rel, ".") ? "/" : "", strcmp(r->rel, ".") ? r->rel : "");
    if (st == TLM_OK) {
        st = tlm_cli_filelist_from_traces(paths, r->n_tr, base, &A->o.a, fl,
                                          err);
    } else {
        tlm_error_set(err, st, NULL, -1, "out of memory");
    }
    for (size_t i = 0; paths && i < r->n_tr; i++)
        free(paths[i]);
    free(paths);
    return st;
}

/* Appends n bytes to the growing buffer *b; -1 when out of memory. */
static int put_bytes(char **b, size_t *len, size_t *cap, const void *p,
                     size_t n)
{
    if (tlm_grow((void **)b, cap, *len + n, 1, 4096))
        return -1;
    memcpy(*b + *len, p, n);
    *len += n;
    return 0;
}

/* Rank 0: per run u64 prefail, u64 name length, name, u64 list length,
 * packed file list. */
static tlm_status pack_plan(tlm_audit *A, char **buf, size_t *len)
{
    size_t cap = 0;
    *buf = NULL;
    *len = 0;
    uint64_t n = A->plan.n_run;
    int bad = put_bytes(buf, len, &cap, &n, 8);
    for (size_t i = 0; !bad && i < A->plan.n_run; i++) {
        tlm_audit_run *r = &A->plan.run[i];
        tlm_cli_filelist fl;
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
        if (tlm_cli_filelist_pack(&fl, &pk, &pl) != TLM_OK)
            bad = 1;
        tlm_cli_filelist_free(&fl);
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

/* Every process: the plan from rank 0's packed buffer. */
static tlm_status unpack_plan(tlm_audit *A, const char *b, size_t len)
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
        tlm_status st = tlm_cli_filelist_unpack(b + off, (size_t)l, &A->fl[i],
                                                &err);
        if (st != TLM_OK)
            return st;
        off += (size_t)l;
    }
    return TLM_OK;
}

/* ---------------------------------------------------------------- setup */

/* Rank 0: a run's outputs must not exist unless --force. */
static tlm_status precheck_run(const tlm_audit *A, const char *rel,
                               tlm_error *err)
{
    char dir[TLM_MPI_PATH_CAP], p[TLM_MPI_PATH_CAP + 64];
    if (tlm_audit_run_dir(A, rel, dir, sizeof dir) != 0)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1, "output path too "
                             "long");
    const char *mt = A->o.a.merged_trace;
    for (size_t i = 0; i < 3 || tlm_out_report_csvs[i - 3]; i++) {
        const char *name = i == 0 ? "tlmpi.h5"
                           : i == 1 ? "report.md"
                           : i == 2 ? mt
                                    : tlm_out_report_csvs[i - 3];
        if (!name)
            continue;
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
static tlm_status check_outputs(tlm_audit *A, tlm_error *err)
{
    tlm_status st = tlm_outset_init(&A->out, A->o.a.force, err);
    tlm_cli_signals_track(&A->out);
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
    if (st == TLM_OK && A->o.a.plots)
        st = tlm_out_plots_check(&A->out, A->o.a.output_dir, err);
    for (size_t i = 0; st == TLM_OK && i < A->plan.n_run; i++)
        st = precheck_run(A, A->plan.run[i].rel, err);
    return st;
}

/* Rank 0: is --baseline one of the runs? */
static tlm_status check_baseline(const tlm_audit *A, tlm_error *err)
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
static tlm_status setup0(tlm_audit *A, const tlm_sniff *rows, char **buf,
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
static tlm_status bcast_status(tlm_audit *A, tlm_status st, tlm_error *err,
                               int *code)
{
    if (A->me == 0 && st != TLM_OK) {
        char msg[1200];
        if (err->code == TLM_OK)
            tlm_error_set(err, st, NULL, -1, "%s", tlm_status_str(st));
        tlm_audit_say0(A, "error: %s", tlm_error_format(err, msg, sizeof msg));
    }
    int32_t h[2] = {(int32_t)st, A->usage_error};
    if (MPI_Bcast(h, 2, MPI_INT32_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return TLM_EMPI;
    *code = h[1] ? TLM_AUDIT_EXIT_USAGE : TLM_AUDIT_EXIT_NOTHING;
    return (tlm_status)h[0];
}

/* Rank 0's buffer (*len bytes) to every process (others: malloc'd, *len
 * set). */
static tlm_status bcast_buf(tlm_audit *A, char **buf, size_t *len)
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
static tlm_status gather_sniffs(tlm_audit *A, const tlm_sniff *mine, size_t cnt,
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
static tlm_status sniff_all(tlm_audit *A, tlm_sniff **rows)
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
tlm_status tlm_audit_share_plan(tlm_audit *A, int *code)
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
        tlm_audit_say0(A, "error: cannot sniff the files under %s (%s)", A->o.root,
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
        tlm_audit_say0(A, "error: cannot share the plan of the audit (%s)",
             tlm_status_str(st));
    return st;
}

