/*
 * tlm_outset.h - output sets: files published all together or not at all.
 *
 * Every output of tlmpi (the HDF5 file, report.md, CSV sheets) belongs to
 * a set.  Each file of a set is checked before any work starts
 * (tlm_outset_check: a regular file or absent, never an input, never
 * replaced without force, its folder created and writable), written under
 * a temporary name in its final folder (tlm_outset_stage), and the set is
 * published by tlm_outset_commit: every temporary is flushed to disk, the
 * previous files are kept aside, the temporaries are renamed; if any step
 * fails, the previous files are put back, so the folders hold either the
 * complete old set or the complete new one.
 *
 * Temporaries are named <final>.tlmpi-<pid>@<host>.tmp (and a previous
 * file kept aside <final>.tlmpi-<pid>@<host>.old): a run killed with
 * SIGKILL leaves recognisable names, which the next run that checks the
 * same output removes (same host, process gone).
 *
 * No printing, no exiting; errors carry the path and the errno text of
 * the call that failed.  A set holds at most TLM_OUTSET_MAX files; its
 * entry array never moves, so that a signal handler may remove the
 * temporaries (tlm_outset_unlink_tmps) while the set is in use.
 */
#ifndef TLM_OUTSET_H
#define TLM_OUTSET_H

#include <stddef.h>
#include <stdint.h>

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TLM_OUTSET_MAX 256

typedef struct tlm_outfile {
    char *path;                 /* final name */
    char *tmp;                  /* staged temporary */
    char *old;                  /* where the previous file is kept aside */
    volatile int state;         /* TLM_OUT_* */
    int had_old;                /* a previous file exists (at commit) */
    int old_linked;             /* kept aside by link() (final stays) */
} tlm_outfile;

enum {
    TLM_OUT_FREE = 0,
    TLM_OUT_STAGED = 1,         /* tmp may exist */
    TLM_OUT_COMMITTED = 2,      /* tmp renamed to path */
    TLM_OUT_DONE = 3            /* published, old removed */
};

typedef struct tlm_outset {
    tlm_outfile *f;             /* TLM_OUTSET_MAX entries, never moved */
    volatile size_t n;
    int force;                  /* replace existing outputs */
    uint64_t *inputs;           /* (device, inode) pairs */
    size_t n_in, cap_in;
    char tag[96];               /* ".tlmpi-<pid>@<host>" */
    char **made;                /* folders the checks created, in order:
                                 * removed (when still empty) by
                                 * tlm_outset_free unless committed */
    size_t n_made;
    int committed;              /* tlm_outset_commit succeeded */
} tlm_outset;

/* Starts an empty set.  force: existing regular files may be replaced.
 * Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_outset_init(tlm_outset *s, int force,
                                   tlm_error *err);

/* Removes every temporary not yet published, and the folders the set
 * created when nothing was committed (only while empty), and frees the
 * set. */
TLM_API void tlm_outset_free(tlm_outset *s);

/* Records an input file (by device and inode) that no output may be.  A
 * path that cannot be stat()ed is ignored (reading it will fail and say
 * why).  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_outset_add_input(tlm_outset *s, const char *path,
                                        tlm_error *err);

/* Checks that path can be an output of this set, before any work:
 *  - it is absent, or a regular file (not a symbolic link, folder, FIFO,
 *    socket or device), replaced only with force (TLM_EEXIST otherwise);
 *  - it is none of the inputs (same device and inode: a hard link or a
 *    second name of an input is refused, TLM_EINVAL);
 *  - its folder exists (created with its parents if missing) and a file
 *    can be created in it (a probe file, removed at once);
 * and removes stale temporaries of path left by dead processes of this
 * host.  Errors: TLM_EEXIST, TLM_EINVAL, TLM_EIO (errno text). */
TLM_API tlm_status tlm_outset_check(tlm_outset *s, const char *path,
                                    tlm_error *err);

/* Adds path to the set (after tlm_outset_check) and returns its temporary
 * name in *tmp (owned by the set): the caller writes the file there.
 * Errors: TLM_ELIMIT (set full), TLM_ENOMEM, TLM_EEXIST/TLM_EINVAL/TLM_EIO
 * from the check. */
TLM_API tlm_status tlm_outset_stage(tlm_outset *s, const char *path,
                                    const char **tmp, tlm_error *err);

/* Publishes the set: fsync()s every temporary, keeps each previous file
 * aside, renames every temporary to its final name, fsync()s the folders,
 * then removes the previous files.  Signals are blocked meanwhile.  On
 * failure every previous file is restored and every temporary removed
 * (the message names the file and the errno text).  Errors: TLM_EIO. */
TLM_API tlm_status tlm_outset_commit(tlm_outset *s, tlm_error *err);

/* Removes the temporaries of every staged, unpublished file. */
TLM_API void tlm_outset_abort(tlm_outset *s);

/* The same from a signal handler: only unlink(), no allocation, no
 * locks. */
TLM_API void tlm_outset_unlink_tmps(const tlm_outset *s);

/* Closes a stream written to a staged temporary: flushes it and reports a
 * write error with errno's text (ferror, fflush or fclose).  f is closed
 * in every case.  Errors: TLM_EIO. */
TLM_API tlm_status tlm_outset_fclose(void *file, const char *path,
                                     tlm_error *err);

/* Removes stale temporaries of path: <path>.tlmpi-<pid>@<host>.tmp/.old
 * left by processes of this host that no longer run (a previous file
 * kept aside is put back when path is missing).  Returns the number of
 * files removed or restored. */
TLM_API size_t tlm_outset_sweep(const char *path);

#ifdef __cplusplus
}
#endif
#endif /* TLM_OUTSET_H */
