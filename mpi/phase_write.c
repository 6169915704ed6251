/*
 * phase_write.c - the write and publish phases.  tlmpi.h5, built by rank 0 from every rank's rows
 * (h5write.c: the other ranks send theirs in bounded messages) and written
 * under the temporary name staged in the setup phase.  First a check that
 * the output device has room (a clear message early), then the file
 * attributes and every table of tables.h in file order (the driver's
 * /traces and /timeline, and the datasets each module lists: module.h),
 * then the groups modules write themselves (/hta): rank 0's tables
 * as they are, the per-trace tables through explicit row segments so that
 * row order does not depend on which MPI rank read which trace.  No HDF5
 * call is collective, so a failing write on rank 0 cannot leave the other
 * ranks waiting; every rank agrees on the result.  On failure the
 * temporary file is removed.
 *
 * Then the publish phase, the last one: every rank has closed the HDF5
 * file (agreed in the write phase); rank 0 writes report.md and the CSV
 * sheets (src/out) under temporary names too, staged in the same output
 * set as the HDF5 file, then publishes the set (tlm_outset_commit: all
 * files or none, the previous ones restored on failure) and says what it
 * wrote.
 */
#include "driver.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "exchange.h"
#include "h5write.h"
#include "jobinfo.h"
#include "module.h"
#include "publish_split.h"
#include "tlmpi/tlm_version.h"
#include "zrun.h"

/* Every per-trace row starts with its trace rank (tables.h lists it
 * first). */
_Static_assert(offsetof(tlm_row_op, trace_rank) == 0 &&
                   offsetof(tlm_row_uargs, trace_rank) == 0 &&
                   offsetof(tlm_row_kernel, trace_rank) == 0 &&
                   offsetof(tlm_row_member, trace_rank) == 0,
               "trace_rank must lead the per-trace rows");

/* Per-trace table rows held here, sorted by trace rank (each row starts
 * with its int32 trace rank): segments from the global per-trace counts. */
static tlm_status write_per_trace(tlm_mpi_ctx *c, hid_t f,
                                  const tlm_rowtab *t, const void *rows,
                                  size_t n, tlm_error *err)
{
    tlm_status st = TLM_OK;
    int64_t *cnt = calloc(c->n_res ? c->n_res : 1, sizeof *cnt);
    int64_t *gcnt = calloc(c->n_res ? c->n_res : 1, sizeof *gcnt);
    int64_t *seg = NULL;
    size_t n_seg = 0;
    st = tlm_mpi_agree(cnt && gcnt ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory writing '%s'",
                      t->name);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t r;
        memcpy(&r, (const char *)rows + i * t->row_size, sizeof r);
        cnt[tlm_mpi_rank_pos(c, r)]++;
    }
    MPI_Allreduce(cnt, gcnt, (int)c->n_res, MPI_INT64_T, MPI_SUM, c->comm);
    seg = malloc(2 * (c->n_res ? c->n_res : 1) * sizeof *seg);
    st = tlm_mpi_agree(seg ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory writing '%s'",
                      t->name);
        goto done;
    }
    int64_t off = 0;
    for (size_t p = 0; p < c->n_res; p++) {
        if (cnt[p] > 0) {
            seg[2 * n_seg] = off;
            seg[2 * n_seg + 1] = cnt[p];
            n_seg++;
        }
        off += gcnt[p];
    }
    st = tlm_mpi_h5_write_segments(f, t, rows, seg, n_seg, off, c->comm, err);
done:
    free(cnt);
    free(gcnt);
    free(seg);
    return st;
}

/* qsort order of local results by trace rank (distinct after the check
 * phase). */
static int cmp_lres_rank(const void *a, const void *b)
{
    const tlm_job_fileres *x = *(const tlm_job_fileres *const *)a;
    const tlm_job_fileres *y = *(const tlm_job_fileres *const *)b;
    return (x->row.trace_rank > y->row.trace_rank) -
           (x->row.trace_rank < y->row.trace_rank);
}

/* The rows of the local segments of write_spans: where they are (c->rt's
 * ops) or unpacked into buf (c->pk). */
typedef struct span_src {
    const tlm_job_fileres **seg; /* the trace of each segment */
    int k;                       /* its table (TLM_JOB_SPAN_*) */
    const char *rows;            /* unpacked rows, or NULL */
    const tlm_mpi_packed *pk;    /* else the packed ones */
    size_t row_size;
    char *buf;                   /* the largest segment's rows */
    int bad;                     /* a packed row that did not unpack */
} span_src;

/* tlm_mpi_seg_fn: segment i's rows. */
static const void *span_rows(void *arg, size_t i)
{
    span_src *s = arg;
    const int64_t *sp = s->seg[i]->span[s->k];
    if (s->rows)
        return s->rows + (size_t)sp[0] * s->row_size;
    size_t at = (size_t)sp[0];
    for (int64_t r = 0; r < sp[1]; r++) {
        char *row = s->buf + (size_t)r * s->row_size;
        size_t used = at <= s->pk->len
                          ? tlm_zrun_unpack(s->pk->buf + at, s->pk->len - at,
                                            row, s->row_size)
                          : 0;
        if (!used) {
            memset(row, 0, s->row_size);
            s->bad = 1;
        }
        at += used;
    }
    return s->buf;
}

/* A per-trace table of the local traces written from where its rows are
 * kept: each local trace's span k is one segment, at the offset of its
 * trace rank among every trace's rows (no copy of the table in trace-rank
 * order); k's rows are c->rt's ops, or packed in c->pk[k]. */
static tlm_status write_spans(tlm_mpi_ctx *c, hid_t f, const tlm_rowtab *t,
                              int k, tlm_error *err)
{
    size_t nr = c->n_res ? c->n_res : 1, nl = c->n_lres ? c->n_lres : 1;
    int64_t *cnt = calloc(nr, sizeof *cnt), *gcnt = calloc(nr, sizeof *gcnt);
    int64_t *seg = malloc(2 * nl * sizeof *seg), most = 1;
    const tlm_job_fileres **by = malloc(nl * sizeof *by);
    span_src ss = {malloc(nl * sizeof *ss.seg), k,
                   k == TLM_JOB_SPAN_OPS ? (const char *)c->rt.ops : NULL,
                   &c->pk[k], t->row_size, NULL, 0};
    size_t n_seg = 0;
    for (size_t i = 0; i < c->n_lres; i++)
        most = c->lres[i].span[k][1] > most ? c->lres[i].span[k][1] : most;
    ss.buf = ss.rows ? NULL : malloc((size_t)most * t->row_size);
    tlm_status st = tlm_mpi_agree(cnt && gcnt && seg && by && ss.seg &&
                                          (ss.rows || ss.buf)
                                      ? TLM_OK
                                      : TLM_ENOMEM,
                                  c->comm);
    if (st != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory writing '%s'",
                      t->name);
        goto done;
    }
    for (size_t i = 0; i < c->n_lres; i++) {
        by[i] = &c->lres[i];
        int64_t p = tlm_mpi_rank_pos(c, c->lres[i].row.trace_rank);
        if (p >= 0)
            cnt[p] += c->lres[i].span[k][1];
    }
    qsort(by, c->n_lres, sizeof *by, cmp_lres_rank);
    MPI_Allreduce(cnt, gcnt, (int)c->n_res, MPI_INT64_T, MPI_SUM, c->comm);
    int64_t off = 0;
    size_t li = 0;
    for (size_t p = 0; p < c->n_res; p++) {
        while (li < c->n_lres && by[li]->row.trace_rank <
                                     c->res[p].row.trace_rank)
            li++;
        if (li < c->n_lres &&
            by[li]->row.trace_rank == c->res[p].row.trace_rank &&
            by[li]->span[k][1] > 0) {
            seg[2 * n_seg] = off;
            seg[2 * n_seg + 1] = by[li]->span[k][1];
            ss.seg[n_seg++] = by[li];
        }
        off += gcnt[p];
    }
    st = tlm_mpi_h5_write_segments_src(f, t, NULL, span_rows, &ss, seg,
                                       n_seg, off, c->comm, err);
    if (st == TLM_OK)
        st = tlm_mpi_agree(ss.bad ? TLM_EINVAL : TLM_OK, c->comm);
    if (st != TLM_OK && err->code == TLM_OK)
        tlm_error_set(err, st, NULL, -1, "table '%s': rows kept in memory "
                                         "did not unpack", t->name);
done:
    free(cnt);
    free(gcnt);
    free(seg);
    free(by);
    free(ss.seg);
    free(ss.buf);
    return st;
}

/* Rows of table k kept for the local traces (their spans). */
static uint64_t span_rows_n(const tlm_mpi_ctx *c, int k)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->n_lres; i++)
        n += (uint64_t)c->lres[i].span[k][1];
    return n;
}

/* Before any HDF5 write: is there room for the file (its rows
 * uncompressed, an upper bound) and the report?  Parallel HDF5 1.10 does
 * not survive a write failing for lack of space (ranks disagree inside the
 * library and hang, or a half-closed file crashes MPI_Finalize), so a full
 * disk is caught here, with a message that says so. */
static tlm_status check_space(tlm_mpi_ctx *c, tlm_error *err)
{
    const tlm_mpi_colls *k = &c->k;
    int r0 = c->me == 0;
    uint64_t local =
        (uint64_t)c->rt.n_ops * sizeof *c->rt.ops +
        span_rows_n(c, TLM_JOB_SPAN_UARGS) * sizeof *c->rt.ua +
        span_rows_n(c, TLM_JOB_SPAN_KERNELS) * sizeof *c->rt.kn +
        (uint64_t)k->n_mrows * sizeof *k->mrows;
    if (r0)
        local += (uint64_t)c->n_res *
                     (sizeof(tlm_row_trace) + sizeof(tlm_row_timeline)) +
                 (uint64_t)c->n_mops * sizeof *c->mops +
                 (uint64_t)k->n_inst * sizeof(tlm_row_instance) +
                 (uint64_t)k->n_unm * sizeof(tlm_row_unmatched) +
                 (uint64_t)k->n_sum * sizeof(tlm_row_summary) +
                 (uint64_t)k->n_clk * sizeof(tlm_row_clock) +
                 (uint64_t)k->n_strag * sizeof(tlm_row_straggler) +
                 (uint64_t)k->n_cause * sizeof(tlm_row_cause);
    uint64_t total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, c->comm);
    tlm_status st = TLM_OK;
    if (r0) {
        /* metadata, attributes and the report: a few MiB at most */
        uint64_t need = total + (4u << 20);
        char dir[TLM_MPI_PATH_CAP];
        tlm_strset(dir, sizeof dir, c->su.tmp);
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
        else
            tlm_strset(dir, sizeof dir, ".");
        struct statvfs vs;
        if (statvfs(dir, &vs) == 0) {
            uint64_t avail = (uint64_t)vs.f_bavail * vs.f_frsize;
            if (avail < need)
                st = tlm_error_set(err, TLM_EIO, dir, -1,
                                   "no space left on the output device: "
                                   "%.1f MB free, the HDF5 file and the "
                                   "report may need up to %.1f MB",
                                   (double)avail / 1e6, (double)need / 1e6);
        }
    }
    return tlm_mpi_agree(st, c->comm);
}

/* The GPU of the job (jobinfo.h), from every rank's copy of the
 * per-trace rows: the same values on every rank. */
static tlm_status gpu_attrs(const tlm_mpi_ctx *c, hid_t f, tlm_error *err)
{
    tlm_out_gpu_sum g;
    tlm_out_gpu_summary_init(&g);
    for (size_t i = 0; i < c->n_res; i++)
        tlm_out_gpu_summary_add(&g, &c->res[i].row);
    tlm_status st = tlm_mpi_h5_attr_str(f, "gpu_arch", g.arch, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_str(f, "gpu_arch_source", g.source, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "gpu_devices_mixed", g.devices_mixed,
                                 err);
    return st;
}

/* The straggler verdict of report.md: rank 0 holds the rows and
 * broadcasts {rank, wait_ns}, so that every rank writes the same
 * attributes.  Called by every rank before any attribute is written. */
static void straggler_verdict(const tlm_mpi_ctx *c, int64_t v[2])
{
    v[0] = TLM_OUT_NO_STRAGGLER;
    v[1] = 0;
    if (c->me == 0) {
        int32_t top = -1;
        v[0] = tlm_out_straggler_pick(c->k.strag, c->k.n_strag,
                                      c->o.straggler_threshold_us, &v[1],
                                      &top);
    }
    MPI_Bcast(v, 2, MPI_INT64_T, 0, c->comm);
}

static tlm_status straggler_attrs(const tlm_mpi_ctx *c, hid_t f,
                                  const int64_t v[2], tlm_error *err)
{
    tlm_status st = tlm_mpi_h5_attr_i64(f, "straggler_rank", v[0], err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "straggler_wait_ns", v[1], err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(
            f, "straggler_threshold_ns",
            (int64_t)llround(c->o.straggler_threshold_us * 1e3), err);
    return st;
}

/* The root attributes: schema, creator, command line, units, sizes. */
static tlm_status file_attrs(const tlm_mpi_ctx *c, hid_t f, tlm_error *err)
{
    int64_t strag[2];
    straggler_verdict(c, strag); /* collective: before any write */
    tlm_status st =
        tlm_mpi_h5_attr_i64(f, "schema_version", TLM_SCHEMA_VERSION, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_str(f, "creator",
                                     "tlmpi " TLM_VERSION_STRING, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_str(f, "command_line", c->cmdline, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_str(f, "units",
                                 "times and durations int64 ns; sizes "
                                 "bytes; GB/s = 1e9 bytes/s; per-column "
                                 "units in each dataset's 'units' "
                                 "attribute",
                                 err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "world_size", c->world, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "n_traces", (int64_t)c->n_res, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "tracelens_simplified_mode",
                                 c->k.simplified, err);
    if (st == TLM_OK)
        st = gpu_attrs(c, f, err);
    if (st == TLM_OK)
        st = straggler_attrs(c, f, strag, err);
    return st;
}

tlm_status tlm_mpi_h5rows_build(const tlm_mpi_ctx *c, tlm_job_rows *h)
{
    const tlm_mpi_colls *k = &c->k;
    tlm_job_rows_in in;
    memset(&in, 0, sizeof in);
    if (c->me == 0) { /* the other ranks hold no such rows */
        in = (tlm_job_rows_in){c->res,    c->n_res,    k->offsets,
                               k->inst,   k->n_inst,   k->unm,
                               k->n_unm,  k->sum,      k->n_sum,
                               k->clk,    k->n_clk,    k->strag,
                               k->n_strag};
    }
    return tlm_mpi_agree(tlm_job_rows_build(&in, h), c->comm);
}

/* Every dataset of this run: the driver's own (/traces, /timeline) and
 * each module's (its h5_tables hook); a local status. */
static tlm_status datasets(tlm_mpi_ctx *c, tlm_job_rows *h,
                           tlm_mpi_dataset *sets, size_t *n)
{
    sets[0] = (tlm_mpi_dataset){&tlm_tab_traces, h->tr, h->n, 0};
    sets[1] = (tlm_mpi_dataset){&tlm_tab_timeline, h->tl, h->n, 0};
    *n = 2;
    size_t nm = c->n_mods;
    const tlm_mpi_module *const *m = c->mods;
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < nm; i++) {
        if (!m[i]->h5_tables || !tlm_mpi_module_on(m[i], c))
            continue;
        tlm_status ms = m[i]->h5_tables(c, &c->mstate[i], h, sets, n);
        if (st == TLM_OK)
            st = ms;
    }
    return st;
}

/* Every dataset in file order (tables.h's tlm_rowtabs), then the groups
 * the modules write themselves (their h5_write hook). */
static tlm_status write_tables(tlm_mpi_ctx *c, hid_t f,
                               const tlm_mpi_dataset *sets, size_t n,
                               tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (size_t t = 0; st == TLM_OK && tlm_rowtabs[t]; t++) {
        for (size_t i = 0; st == TLM_OK && i < n; i++) {
            const tlm_mpi_dataset *d = &sets[i];
            if (d->t != tlm_rowtabs[t])
                continue;
            if (d->per_trace >= 2)
                st = write_spans(c, f, d->t, d->per_trace - 2, err);
            else if (d->per_trace)
                st = write_per_trace(c, f, d->t, d->rows, d->n, err);
            else
                st = tlm_mpi_h5_write_table(f, d->t, d->rows, d->n,
                                            c->comm, err);
        }
    }
    size_t nm = c->n_mods;
    const tlm_mpi_module *const *m = c->mods;
    for (size_t i = 0; st == TLM_OK && i < nm; i++)
        if (m[i]->h5_write && tlm_mpi_module_on(m[i], c))
            st = m[i]->h5_write(c, &c->mstate[i], f, err);
    return st;
}

/* Creates, fills and closes the file under its temporary name. */
static tlm_status write_h5(tlm_mpi_ctx *c, tlm_error *err)
{
    hid_t f = -1;
    tlm_status st = check_space(c, err);
    if (st != TLM_OK)
        return st;
    st = tlm_mpi_h5_create(c->su.tmp, c->comm, &f, err);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        return st;
    tlm_job_rows h;
    st = tlm_mpi_h5rows_build(c, &h);
    if (st != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory writing HDF5");
        goto done;
    }
    tlm_mpi_dataset sets[TLM_MPI_MAX_DATASETS];
    size_t n_sets = 0;
    tlm_status fst = datasets(c, &h, sets, &n_sets);
    st = file_attrs(c, f, err); /* collective: every rank calls it */
    if (fst != TLM_OK && st == TLM_OK)
        st = tlm_error_set(err, fst, NULL, -1,
                           "out of memory building the findings");
    st = tlm_mpi_agree(st, c->comm);
    if (st == TLM_OK)
        st = write_tables(c, f, sets, n_sets, err);
    /* written: the per-trace rows go before rank 0 copies the file image */
    tlm_mpi_rows_free(c);
done:;
    tlm_status cst = tlm_mpi_h5_close(f, c->su.tmp, st != TLM_OK, c->comm,
                                      st == TLM_OK ? err : NULL);
    if (st == TLM_OK)
        st = cst;
    st = tlm_mpi_agree(st, c->comm);
    free(h.xr);
    tlm_job_rows_free(&h);
    return st;
}

tlm_status tlm_mpi_phase_write(tlm_mpi_ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = write_h5(c, &err);
    if (st != TLM_OK) {
        char msg[1100];
        if (err.code != TLM_OK &&
            (!err.file[0] || strstr(err.file, ".tlmpi-")))
            tlm_strset(err.file, sizeof err.file, c->su.out);
        if (err.code != TLM_OK)
            tlm_mpi_say0(c, "error: %s",
                         tlm_error_format(&err, msg, sizeof msg));
        else
            tlm_mpi_say0(c, "error: writing %s failed on another rank",
                         c->su.out);
        if (c->me == 0)
            tlm_outset_abort(&c->out);
    }
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - publish
 * ------------------------------------------------------------------ */

/* What the report shows: rank 0's results, the phase timings, and what
 * each module hands over (its results hook).  rows and tls are the traces
 * with their clock offsets, and their timelines. */
static void results_of(const tlm_mpi_ctx *c, const tlm_row_trace *rows,
                       const tlm_row_timeline *tls, tlm_out_results *r)
{
    memset(r, 0, sizeof *r);
    r->opts = &c->o;
    r->gpn_source = c->gpn_source;
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
    size_t nm = c->n_mods;
    const tlm_mpi_module *const *m = c->mods;
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
    size_t nm = c->n_mods;
    const tlm_mpi_module *const *m = c->mods;
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
        if (tlm_mpi_pub_split(c)) /* rank 1 waits for word */
            tlm_mpi_pub_send(c, 0, NULL);
        goto done;
    }
    for (size_t i = 0; i < c->n_res; i++) {
        rows[i] = c->res[i].row;
        rows[i].clock_offset_ns = c->k.offsets[i];
        tls[i] = c->res[i].tl;
    }
    tlm_out_results r;
    results_of(c, rows, tls, &r);
    if (tlm_mpi_pub_split(c)) { /* rank 1 formats the nccl_long sheets */
        tlm_mpi_pub_send(c, 1, &r);
        st = tlm_out_report_write_parts(&r, TLM_OUT_PART_MAIN, c->su.rdir,
                                        c->su.cdir, &c->out, NULL, &err);
        st = tlm_mpi_pub_take(c, st, &err);
    } else {
        st = tlm_out_report_write(&r, c->su.rdir, c->su.cdir, &c->out, &err);
    }
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
    else if (c->me == 1 && tlm_mpi_pub_split(c))
        st = tlm_mpi_pub_helper(c);
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
