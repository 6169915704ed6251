/*
 * phase_publish.c - the last phase: every rank has closed the HDF5 file
 * (agreed in the write phase); rank 0 writes report.md and the CSV sheets
 * (report0.c) under temporary names too, staged in the same output set
 * as the HDF5 file, then publishes the set (tlm_outset_commit: all files
 * or none, the previous ones restored on failure) and says what it
 * wrote.
 */
#include "driver.h"
#include "module.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exchange.h"

/* What the report shows: rank 0's results, the phase timings, and what
 * each module hands over (its results hook).  rows and tls are the traces
 * with their clock offsets, and their timelines. */
static void results_of(const tlm_mpi_ctx *c, const tlm_row_trace *rows,
                       const tlm_row_timeline *tls, tlm_out_results *r)
{
    memset(r, 0, sizeof *r);
    r->opts = &c->o;
    r->h5_path = c->su.out;
    r->nprocs = c->np;
    r->world_size = c->world;
    r->elapsed_s = tlm_mpi_now() - c->t0;
    r->t_read_s = c->phase[TLM_MPI_T_READ];
    r->t_collectives_s =
        c->phase[TLM_MPI_T_COLLECTIVES] - c->phase[TLM_MPI_T_CHECK];
    r->t_hdf5_s = c->phase[TLM_MPI_T_HDF5] - c->phase[TLM_MPI_T_TABLES];
    r->traces = rows;
    r->timeline = tls;
    r->n_traces = c->n_res;
    size_t nm;
    const tlm_mpi_module *const *m = tlm_mpi_modules(&nm);
    for (size_t i = 0; i < nm; i++)
        if (m[i]->results && tlm_mpi_module_on(m[i], c))
            m[i]->results(c, &c->mstate[i], r);
    uint64_t b = 0;
    for (size_t i = 0; i < c->n_res; i++)
        b += (uint64_t)c->res[i].row.bytes_on_disk;
    r->bytes_read = b;
}

/* Rank 0: the files the modules stage themselves (their stage hook). */
static tlm_status stage_modules(tlm_mpi_ctx *c, tlm_error *err)
{
    size_t nm;
    const tlm_mpi_module *const *m = tlm_mpi_modules(&nm);
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && i < nm; i++)
        if (m[i]->stage && tlm_mpi_module_on(m[i], c))
            st = m[i]->stage(c, &c->mstate[i], err);
    return st;
}

/* Rank 0: report.md and the CSV sheets staged in the output set. */
static tlm_status write_report(tlm_mpi_ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = TLM_OK;
    tlm_row_trace *rows = malloc((c->n_res ? c->n_res : 1) * sizeof *rows);
    tlm_row_timeline *tls = malloc((c->n_res ? c->n_res : 1) * sizeof *tls);
    if (!rows || !tls) {
        st = TLM_ENOMEM;
        tlm_mpi_say0(c, "error: out of memory writing the report");
        goto done;
    }
    for (size_t i = 0; i < c->n_res; i++) {
        rows[i] = c->res[i].row;
        rows[i].clock_offset_ns = c->k.offsets[i];
        tls[i] = c->res[i].tl;
    }
    tlm_out_results r;
    results_of(c, rows, tls, &r);
    st = tlm_out_report_write(&r, c->su.rdir, c->su.cdir, &c->out, &err);
    if (st == TLM_OK && c->o.output_xlsx_path)
        st = tlm_out_report_xlsx(&r, c->su.cdir, c->o.output_xlsx_path,
                                 &c->out, &err);
    if (st == TLM_OK) /* files of their own: <csv dir>/hta/ (--hta) */
        st = stage_modules(c, &err);
    if (st == TLM_OK && c->on_results)
        c->on_results(c->on_results_arg, &r);
    if (st != TLM_OK) {
        char msg[1100];
        tlm_mpi_say0(c, "error: %s", tlm_error_format(&err, msg, sizeof msg));
    }
done:
    free(rows);
    free(tls);
    return st;
}

/* Rank 0: publishes the whole set (HDF5 file and report files), or, when
 * anything failed, removes every temporary; a failed commit has put the
 * previous files back. */
static tlm_status commit0(tlm_mpi_ctx *c, tlm_status st)
{
    tlm_error err;
    tlm_error_clear(&err);
    if (st != TLM_OK) {
        tlm_outset_abort(&c->out);
        return st;
    }
    tlm_mpi_test_stall(c, "commit");
    st = tlm_outset_commit(&c->out, &err);
    if (st != TLM_OK) {
        char msg[1100];
        tlm_mpi_say0(c, "error: %s (the previous outputs are kept)",
                     tlm_error_format(&err, msg, sizeof msg));
    }
    return st;
}

tlm_status tlm_mpi_phase_publish(tlm_mpi_ctx *c)
{
    tlm_status st = TLM_OK;
    if (c->me == 0 && !c->o.no_report)
        st = write_report(c);
    st = tlm_mpi_agree(st, c->comm);
    if (c->me == 0)
        st = commit0(c, st);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        return st;
    if (!c->o.quiet) {
        /* every part of the run, so that they add up to the total */
        char parts[512];
        double total = 0;
        tlm_mpi_phase_times(c, tlm_mpi_now(), parts, sizeof parts, &total);
        tlm_mpi_say0(c, "wrote %s (%zu traces, %zu collective instances) in "
                        "%.2f s: %s",
                     c->su.out, c->n_res, c->k.n_inst, total, parts);
    }
    return TLM_OK;
}
