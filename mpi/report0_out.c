/*
 * report0_out.c - rank 0's report files under temporary names: each file is
 * opened as <name>.tmp-<pid> beside its final name and, once closed
 * without error, recorded in a pending list; the caller renames every
 * pending file (tlm_mpi_pending_commit) or removes them all
 * (tlm_mpi_pending_abort), so that a failed job leaves no half-written
 * report behind.
 */
#include "report0_out.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

tlm_status tlm_mpi_out_open(tlm_mpi_out *o, const tlm_mpi_dest *d,
                            const char *name, tlm_error *err)
{
    o->pend = d->pend;
    o->f = NULL;
    if (d->pend->n >= TLM_MPI_MAX_PENDING)
        return tlm_error_set(err, TLM_EINVAL, name, -1,
                             "too many report files");
    int w = snprintf(o->path, sizeof o->path, "%s/%s", d->dir, name);
    if (w < 0 || (size_t)w >= sizeof o->path)
        return tlm_error_set(err, TLM_EINVAL, d->dir, -1,
                             "output path too long");
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", o->path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f)
        return tlm_error_set(err, TLM_EIO, o->path, -1, "cannot write: %s",
                             strerror(errno));
    return TLM_OK;
}

tlm_status tlm_mpi_out_close(tlm_mpi_out *o, tlm_error *err)
{
    int bad = ferror(o->f);
    int e = bad ? EIO : 0;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (bad) {
        unlink(o->tmp);
        return tlm_error_set(err, TLM_EIO, o->path, -1, "write failed: %s",
                             strerror(e));
    }
    tlm_mpi_pending *p = o->pend;
    memcpy(p->tmp[p->n], o->tmp, sizeof o->tmp);
    memcpy(p->path[p->n], o->path, sizeof o->path);
    p->n++;
    return TLM_OK;
}

void tlm_mpi_pending_abort(tlm_mpi_pending *p)
{
    for (size_t i = 0; i < p->n; i++)
        unlink(p->tmp[i]);
    p->n = 0;
}

tlm_status tlm_mpi_pending_commit(tlm_mpi_pending *p, tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < p->n; i++) {
        if (st == TLM_OK && rename(p->tmp[i], p->path[i]) != 0)
            st = tlm_error_set(err, TLM_EIO, p->path[i], -1,
                               "cannot rename %s: %s", p->tmp[i],
                               strerror(errno));
        if (st != TLM_OK)
            unlink(p->tmp[i]);
    }
    p->n = 0;
    return st;
}
