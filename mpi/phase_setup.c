/*
 * phase_setup.c - the first phase of the analysis: rank 0 discovers the
 * traces (discover.c), decides where the HDF5 file, its temporary name,
 * report.md and the CSV sheets go and checks that they can be written;
 * then every rank receives the file list and computes the same LPT
 * assignment of files to MPI ranks (assign.c).
 */
#include "driver.h"

#include <errno.h>
#include <stdarg.h>
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

/* Rank 0: discovers the traces, then checks every output. */
static tlm_status setup0(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_status st = tlm_cli_discover(&c->o, &c->fl, err);
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
