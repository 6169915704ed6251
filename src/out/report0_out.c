/*
 * report0_out.c - rank 0's report files staged in the run's output set:
 * each file is opened under the temporary name the set gives it, beside
 * its final name; the caller publishes the whole set (tlm_outset_commit)
 * or removes it (tlm_outset_abort), so that a failed job leaves no
 * half-written report behind.
 */
#include "report0_out.h"

#include <errno.h>
#include <string.h>

tlm_status tlm_out_open(tlm_out_file *o, const tlm_out_dest *d,
                        const char *name, tlm_error *err)
{
    o->f = NULL;
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
    return TLM_OK;
}

tlm_status tlm_out_close(tlm_out_file *o, tlm_error *err)
{
    FILE *f = o->f;
    o->f = NULL;
    return tlm_outset_fclose(f, o->path, err);
}
