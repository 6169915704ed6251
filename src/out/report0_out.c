/*
 * report0_out.c - rank 0's report files staged in the run's output set:
 * each file is opened under the temporary name the set gives it, beside
 * its final name; the caller publishes the whole set (tlm_outset_commit)
 * or removes it (tlm_outset_abort), so that a failed job leaves no
 * half-written report behind.
 */
#include "report0_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The memory stream of a file formatted for another process. */
static tlm_status open_mem(tlm_out_file *o, const tlm_out_dest *d,
                           const char *name, tlm_error *err)
{
    if (strlen(name) >= sizeof d->mem->f[0].name)
        return tlm_error_set(err, TLM_EINVAL, name, -1, "name too long");
    snprintf(o->path, sizeof o->path, "%s", name);
    o->mem = d->mem;
    o->mbuf = NULL;
    o->mlen = 0;
    o->f = open_memstream(&o->mbuf, &o->mlen);
    if (!o->f)
        return tlm_error_set(err, TLM_ENOMEM, name, -1, "out of memory");
    return TLM_OK;
}

tlm_status tlm_out_open(tlm_out_file *o, const tlm_out_dest *d,
                        const char *name, tlm_error *err)
{
    o->f = NULL;
    o->mem = NULL;
    if (d->mem)
        return open_mem(o, d, name, err);
    int w = snprintf(o->path, sizeof o->path, "%s/%s", d->dir, name);
    if (w < 0 || (size_t)w >= sizeof o->path)
        return tlm_error_set(err, TLM_EINVAL, d->dir, -1,
                             "output path too long");
    const char *tmp = NULL;
    tlm_status st = tlm_outset_stage(d->set, o->path, &tmp, err);
    if (st != TLM_OK)
        return st;
    o->f = fopen(tmp, "wbx");
    if (!o->f)
        return tlm_error_set(err, TLM_EIO, o->path, -1, "cannot write: %s",
                             strerror(errno));
    /* a sheet is megabytes: 256 KiB writes instead of 4 KiB ones */
    setvbuf(o->f, NULL, _IOFBF, (size_t)1 << 18);
    return TLM_OK;
}

void tlm_out_put_i64(FILE *f, int64_t v, int as_float)
{
    char t[32];
    size_t n = sizeof t;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (as_float) {
        t[--n] = '0';
        t[--n] = '.';
    }
    do {
        t[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        t[--n] = '-';
    fwrite(t + n, 1, sizeof t - n, f);
}

tlm_status tlm_out_close(tlm_out_file *o, tlm_error *err)
{
    FILE *f = o->f;
    o->f = NULL;
    if (!o->mem)
        return tlm_outset_fclose(f, o->path, err);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    tlm_out_memset *m = o->mem;
    tlm_out_memfile *g = bad ? NULL
                             : realloc(m->f, (m->n + 1) * sizeof *m->f);
    if (!g) {
        free(o->mbuf);
        return tlm_error_set(err, TLM_ENOMEM, o->path, -1, "out of memory");
    }
    m->f = g;
    /* open_mem checked the name's length */
    memcpy(g[m->n].name, o->path, strlen(o->path) + 1);
    g[m->n].data = o->mbuf;
    g[m->n].len = o->mlen;
    m->n++;
    return TLM_OK;
}

void tlm_out_memset_free(tlm_out_memset *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->f[i].data);
    free(m->f);
    m->f = NULL;
    m->n = 0;
}
