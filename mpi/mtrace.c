/*
 * mtrace.c - the merged trace's setup and read sides (mtrace.h): the
 * output staged on rank 0, and each trace's events written to this
 * process's part file while the trace is in memory.  The part file is a
 * local temporary ($TMPDIR, else /tmp) unlinked as soon as it is open, so
 * nothing is left behind whatever ends the run; the timeline phase
 * (phase_timeline.c) reads it back.
 */
#include "mtrace.h"
#include "mtrace_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"

int tlm_mpi_mtrace_path(const tlm_mpi_ctx *c, char *out, size_t cap)
{
    int w;
    if (c->label) /* audit: one per run, in the run's folder */
        w = snprintf(out, cap, "%s/%s", c->su.rdir, c->o.merged_trace);
    else
        w = snprintf(out, cap, "%s", c->o.merged_trace);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

static tlm_mpi_mtrace *mt_get(tlm_mpi_ctx *c)
{
    if (!c->mt) {
        c->mt = calloc(1, sizeof *c->mt);
        if (c->mt)
            tlm_mtrace_filter_parse(c->o.merged_trace_filter
                                        ? c->o.merged_trace_filter
                                        : "all",
                                    &c->mt->filter);
    }
    return c->mt;
}

tlm_status tlm_mpi_mtrace_stage(tlm_mpi_ctx *c, tlm_error *err)
{
    if (!c->o.merged_trace)
        return TLM_OK;
    tlm_mpi_mtrace *m = mt_get(c);
    if (!m)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (tlm_mpi_mtrace_path(c, m->path, sizeof m->path) != 0)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "--merged_trace: path too long");
    const char *tmp = NULL;
    tlm_status st = tlm_outset_stage(&c->out, m->path, &tmp, err);
    if (st == TLM_OK)
        tlm_strset(m->tmp, sizeof m->tmp, tmp);
    return st;
}

/* Opens this process's part file: created, unlinked, buffered. */
static tlm_status open_part(tlm_mpi_mtrace *m, tlm_error *err)
{
    const char *dir = getenv("TMPDIR");
    char path[TLM_MPI_PATH_CAP];
    if (!dir || !*dir)
        dir = "/tmp";
    int w = snprintf(path, sizeof path, "%s/tlmpi-mtrace-XXXXXX", dir);
    if (w < 0 || (size_t)w >= sizeof path)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "merged trace: TMPDIR path too long");
    int fd = mkstemp(path);
    if (fd < 0)
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "merged trace: cannot create a temporary "
                             "file: %s", strerror(errno));
    unlink(path);
    m->part = fdopen(fd, "w+b");
    if (!m->part) {
        close(fd);
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "merged trace: %s", strerror(errno));
    }
    setvbuf(m->part, NULL, _IOFBF, 1u << 20);
    return TLM_OK;
}

tlm_status tlm_mpi_mtrace_add(tlm_mpi_ctx *c, const tlm_trace *tr,
                              int32_t rank, const tlm_coll_record *recs,
                              size_t n_recs, tlm_error *err)
{
    if (!c->o.merged_trace)
        return TLM_OK;
    tlm_mpi_mtrace *m = mt_get(c);
    if (!m)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (!m->part) {
        tlm_status st = open_part(m, err);
        if (st != TLM_OK)
            return st;
    }
    if (tlm_grow((void **)&m->seg, &m->cap_seg, m->n_seg + 1,
                 sizeof *m->seg, 8))
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    uint64_t bytes = 0;
    tlm_status st = tlm_mtrace_part_write(tr, rank, m->filter, recs, n_recs,
                                          m->part, &m->an, &bytes, err);
    if (st != TLM_OK)
        return st;
    tlm_mpi_mtrace_seg *s = &m->seg[m->n_seg++];
    s->rank = rank;
    s->from = m->part_bytes;
    s->to = m->part_bytes + bytes;
    m->part_bytes += bytes;
    return TLM_OK;
}

void tlm_mpi_mtrace_free(tlm_mpi_ctx *c)
{
    tlm_mpi_mtrace *m = c->mt;
    if (!m)
        return;
    if (m->part)
        fclose(m->part);
    free(m->an.v);
    free(m->seg);
    free(m);
    c->mt = NULL;
}
