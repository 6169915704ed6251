/*
 * phase_setup.c - the first phase of the analysis: rank 0 discovers the
 * traces (discover.c; the files of a --trace_dir sniffed by every process,
 * a block each), decides where the HDF5 file, its temporary name,
 * report.md and the CSV sheets go and checks that they can be written;
 * then every rank receives the file list and computes the same LPT
 * assignment of files to MPI ranks (assign.c).
 */
#include "driver.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "exchange.h"
#include "mtrace.h"
#include "plots.h"
#include "sigclean.h"

/* snprintf for paths: 0, or -1 when the result did not fit. */
static int pathf(char *dst, size_t cap, const char *fmt, ...) TLM_PRINTF(3, 4);
static int pathf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

static void dirname_of(const char *path, char *out, size_t cap)
{
    const char *s = strrchr(path, '/');
    if (!s)
        snprintf(out, cap, ".");
    else if (s == path)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(s - path), path);
}

/* Rank 0: the output paths (HDF5 file, report folder, CSV folder). */
static tlm_status output_paths(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_mpi_setup *s = &c->su;
    int bad = 0;
    if (c->o.output)
        bad |= pathf(s->out, sizeof s->out, "%s", c->o.output);
    else if (c->o.trace_dir)
        bad |= pathf(s->out, sizeof s->out, "%s/tlmpi.h5", c->o.trace_dir);
    else {
        char d[TLM_MPI_PATH_CAP];
        dirname_of(c->fl.path[0], d, sizeof d);
        bad |= pathf(s->out, sizeof s->out, "%s/tlmpi.h5", d);
    }
    char odir[TLM_MPI_PATH_CAP];
    dirname_of(s->out, odir, sizeof odir);
    bad |= pathf(s->rdir, sizeof s->rdir, "%s",
                 c->o.output_dir ? c->o.output_dir : odir);
    bad |= pathf(s->cdir, sizeof s->cdir, "%s",
                 c->o.output_csvs_dir ? c->o.output_csvs_dir : s->rdir);
    if (bad)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "output path too long");
    return TLM_OK;
}

/* Rank 0: every output of the run checked before any trace is read
 * (regular file or absent, not an input, --force to replace, folder
 * created and writable) and the HDF5 file staged in c->out (driver.h). */
tlm_status tlm_mpi_setup_outputs(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_mpi_setup *s = &c->su;
    tlm_status st = tlm_outset_init(&c->out, c->o.force, err);
    tlm_cli_signals_track(&c->out);
    for (size_t i = 0; st == TLM_OK && i < c->fl.n; i++)
        st = tlm_outset_add_input(&c->out, c->fl.path[i], err);
    const char *tmp = NULL;
    if (st == TLM_OK)
        st = tlm_outset_stage(&c->out, s->out, &tmp, err);
    if (st == TLM_OK && pathf(s->tmp, sizeof s->tmp, "%s", tmp) != 0)
        st = tlm_error_set(err, TLM_ELIMIT, NULL, -1, "output path too long");
    if (st == TLM_OK)
        st = tlm_mpi_mtrace_stage(c, err);
    if (st == TLM_OK && c->o.plots)
        st = tlm_out_plots_check(&c->out, s->rdir, err);
    if (st != TLM_OK || c->o.no_report)
        return st;
    char p[TLM_MPI_PATH_CAP];
    if (pathf(p, sizeof p, "%s/report.md", s->rdir) != 0)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "output path too long");
    st = tlm_outset_check(&c->out, p, err);
    if (st == TLM_OK && c->o.output_xlsx_path)
        st = tlm_outset_check(&c->out, c->o.output_xlsx_path, err);
    for (size_t i = 0; st == TLM_OK && tlm_out_report_csvs[i]; i++) {
        if (pathf(p, sizeof p, "%s/%s", s->cdir, tlm_out_report_csvs[i]))
            return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                                 "output path too long");
        st = tlm_outset_check(&c->out, p, err);
    }
    /* --hta: <csv dir>/hta/<table>.csv, every table it may write */
    const char *name, *doc;
    const tlm_hta_col *cols;
    size_t nc;
    for (size_t i = 0; st == TLM_OK && c->o.hta &&
                       tlm_hta_table_def(i, &name, &doc, &cols, &nc);
         i++) {
        if (pathf(p, sizeof p, "%s/hta/%s.csv", s->cdir, name))
            return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                                 "output path too long");
        st = tlm_outset_check(&c->out, p, err);
    }
    return st;
}

/* A default output folder (beside the traces) that cannot be written:
 * the error names the options that put the outputs elsewhere. */
static void hint_outputs(const tlm_mpi_ctx *c, tlm_error *err)
{
    if (err->code != TLM_EIO || (c->o.output && c->o.output_dir))
        return;
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n,
             "; the outputs go beside the traces by default: --output F.h5 "
             "and --output_dir D write them elsewhere");
}

/* ---- discovery's sniffing shared over every process: rank 0 walks the
 * folder and broadcasts the paths {n, bytes} then the paths; each process
 * sniffs its block (n * r / np up to n * (r + 1) / np) and rank 0 gathers
 * the verdicts; {-1, 0} ends the other processes' wait (serve_sniffs). */

/* One request, on every process (paths and n: rank 0's). */
static tlm_status sniff_round(const tlm_mpi_ctx *c, char *const *paths,
                              int64_t n, int64_t blen, const char *blob,
                              tlm_sniff *out)
{
    char *buf = c->me == 0 ? NULL : malloc(blen > 0 ? (size_t)blen : 1);
    char **pv = c->me == 0 ? NULL : malloc((n > 0 ? (size_t)n : 1) *
                                           sizeof *pv);
    int64_t lo = n * c->me / c->np, hi = n * (c->me + 1) / c->np;
    tlm_sniff *mine = malloc((hi > lo ? (size_t)(hi - lo) : 1) *
                             sizeof *mine);
    int *cnt = calloc((size_t)c->np, sizeof *cnt);
    int *dsp = calloc((size_t)c->np, sizeof *dsp);
    tlm_status st = tlm_mpi_agree(
        (c->me == 0 || (buf && pv)) && mine && cnt && dsp ? TLM_OK
                                                          : TLM_ENOMEM,
        c->comm);
    if (st == TLM_OK) {
        MPI_Bcast(c->me == 0 ? (void *)blob : buf, (int)blen, MPI_BYTE, 0,
                  c->comm);
        for (int64_t i = 0, off = 0; c->me != 0 && i < n; i++) {
            pv[i] = buf + off; /* NUL-separated, checked by rank 0 */
            off += (int64_t)strnlen(buf + off, (size_t)(blen - off)) + 1;
        }
        char *const *pp = c->me == 0 ? paths : pv;
        for (int64_t i = lo; st == TLM_OK && i < hi; i++)
            if (tlm_trace_sniff(pp[i], 0, &mine[i - lo]) != TLM_OK)
                st = TLM_ENOMEM;
        for (int r = 0; r < c->np; r++) {
            cnt[r] = (int)((n * (r + 1) / c->np - n * r / c->np) *
                           (int64_t)sizeof *mine);
            dsp[r] = (int)(n * r / c->np * (int64_t)sizeof *mine);
        }
        MPI_Gatherv(mine, cnt[c->me], MPI_BYTE, out, cnt, dsp, MPI_BYTE, 0,
                    c->comm);
        st = tlm_mpi_agree(st, c->comm);
    }
    free(buf);
    free(pv);
    free(mine);
    free(cnt);
    free(dsp);
    return st;
}

/* Rank 0's sniffer for the discovery (tlm_cli_sniff_fn). */
static tlm_status sniff_shared(void *arg, char *const *paths, size_t n,
                               tlm_sniff *out)
{
    const tlm_mpi_ctx *c = arg;
    size_t blen = 0;
    for (size_t i = 0; i < n; i++)
        blen += strlen(paths[i]) + 1;
    char *blob = malloc(blen ? blen : 1);
    int64_t h[2] = {blob && blen < (size_t)INT32_MAX ? (int64_t)n : 0,
                    blob && blen < (size_t)INT32_MAX ? (int64_t)blen : 0};
    for (size_t i = 0, off = 0; blob && i < n; i++) {
        memcpy(blob + off, paths[i], strlen(paths[i]) + 1);
        off += strlen(paths[i]) + 1;
    }
    MPI_Bcast(h, 2, MPI_INT64_T, 0, c->comm);
    tlm_status st = h[0] == (int64_t)n
                        ? sniff_round(c, paths, h[0], h[1], blob, out)
                        : TLM_ENOMEM;
    if (h[0] != (int64_t)n) /* the others took part in an empty round */
        (void)sniff_round(c, paths, 0, 0, blob, out);
    free(blob);
    return st;
}

/* The processes other than rank 0 during the discovery: each request's
 * round, until rank 0 says it is done. */
static void serve_sniffs(const tlm_mpi_ctx *c)
{
    for (;;) {
        int64_t h[2] = {-1, 0};
        MPI_Bcast(h, 2, MPI_INT64_T, 0, c->comm);
        if (h[0] < 0)
            return;
        (void)sniff_round(c, NULL, h[0], h[1], NULL, NULL);
    }
}

/* Rank 0: the end of the discovery's requests. */
static void end_sniffs(const tlm_mpi_ctx *c)
{
    int64_t h[2] = {-1, 0};
    MPI_Bcast(h, 2, MPI_INT64_T, 0, c->comm);
}

/* Rank 0: discovers the traces, then checks every output. */
static tlm_status setup0(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_status st = c->np > 1 ? tlm_cli_discover_with(&c->o, sniff_shared,
                                                       c, &c->fl, err)
                              : tlm_cli_discover(&c->o, &c->fl, err);
    if (c->np > 1)
        end_sniffs(c);
    if (st == TLM_OK)
        st = output_paths(c, err);
    if (st == TLM_OK && (st = tlm_mpi_setup_outputs(c, err)) != TLM_OK)
        hint_outputs(c, err);
    return st;
}

/* Rank 0 discovers; everyone receives the list and the assignment.
 * Returns the agreed status (message printed by rank 0). */
static tlm_status share_setup(tlm_mpi_ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    char *packed = NULL;
    size_t plen = 0;
    if (c->me != 0)
        serve_sniffs(c);
    if (c->me == 0) {
        tlm_status st = setup0(c, &err);
        if (st == TLM_OK)
            st = tlm_cli_filelist_pack(&c->fl, &packed, &plen);
        c->su.status = (int32_t)st;
        c->su.packed_len = plen;
        if (st != TLM_OK) {
            if (err.code == TLM_OK)
                tlm_error_set(&err, st, NULL, -1, "%s", tlm_status_str(st));
            tlm_error_format(&err, c->su.msg, sizeof c->su.msg);
        }
    }
    if (MPI_Bcast(&c->su, (int)sizeof c->su, MPI_BYTE, 0, c->comm) !=
        MPI_SUCCESS)
        return TLM_EMPI;
    if (c->su.status != TLM_OK) {
        tlm_mpi_say0(c, "error: %s", c->su.msg);
        free(packed);
        return (tlm_status)c->su.status;
    }
    if (c->me != 0) {
        packed = malloc(c->su.packed_len ? c->su.packed_len : 1);
    }
    tlm_status st = tlm_mpi_agree(packed ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: out of memory");
        free(packed);
        return st;
    }
    if (MPI_Bcast(packed, (int)c->su.packed_len, MPI_BYTE, 0, c->comm) !=
        MPI_SUCCESS) {
        free(packed);
        return TLM_EMPI;
    }
    if (c->me != 0)
        st = tlm_cli_filelist_unpack(packed, c->su.packed_len, &c->fl, &err);
    free(packed);
    c->owner = malloc((c->fl.n ? c->fl.n : 1) * sizeof *c->owner);
    if (st == TLM_OK && (!c->owner ||
                         tlm_cli_assign(c->fl.size, c->fl.n, c->np,
                                        c->owner) != 0))
        st = TLM_ENOMEM;
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        tlm_mpi_say0(c, "error: cannot distribute the file list (%s)",
                     tlm_status_str(st));
    return st;
}

tlm_status tlm_mpi_phase_setup(tlm_mpi_ctx *c)
{
    tlm_status st = share_setup(c);
    if (st != TLM_OK)
        return st;
    if (!c->o.quiet && c->fl.n_skipped)
        tlm_mpi_say0(c, "note: skipped %zu %s: %s", c->fl.n_skipped,
                     c->fl.n_skipped == 1 ? "file that is not a trace"
                                          : "files that are not traces",
                     c->fl.skipped ? c->fl.skipped : "");
    if (!c->o.quiet)
        tlm_mpi_say0(c, "%zu trace file%s, %d MPI rank%s", c->fl.n,
                     c->fl.n == 1 ? "" : "s", c->np, c->np > 1 ? "s" : "");
    return TLM_OK;
}
