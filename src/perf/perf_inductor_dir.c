/*
 * perf_inductor_dir.c - reading an Inductor cache folder
 * (tlm_inductor_cache_load): its *.py files, as TraceLens's
 * recursive glob of *.py lists them (hidden names left out), folder by
 * folder depth-first (a folder's files, then its sub-folders, names in
 * byte order), bounded: 32 levels, 100,000 files, 64 MiB a file; symbolic links are
 * not followed and special files never opened (O_NOFOLLOW | O_NONBLOCK,
 * then fstat).  The walk is tlm_walk's (walk.h: explicit stack, no
 * recursion).
 */
#define _GNU_SOURCE 1 /* O_NOFOLLOW */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"
#include "walk.h"

#define MAX_DEPTH 32
#define MAX_FILES 100000
#define MAX_FILE (64u << 20)

/* The load's state: the cache, the count of *.py files met. */
typedef struct ind_walk {
    tlm_inductor_cache *c;
    size_t nfiles;
} ind_walk;

/* One file: 0, or -1 when out of memory. */
static int read_one(tlm_inductor_cache *c, const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        sb.st_size > (off_t)MAX_FILE) {
        if (fd >= 0)
            close(fd);
        tlm_inductor_count(c, 1, 1);
        return 0;
    }
    size_t n = (size_t)sb.st_size, got = 0;
    char *buf = malloc(n + 1);
    if (!buf) {
        close(fd);
        return -1;
    }
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    int r = 0;
    if (got != n)
        tlm_inductor_count(c, 1, 1);
    else
        r = tlm_inductor_take_text(c, buf, n);
    free(buf);
    return r;
}

static int ends_py(const char *s)
{
    size_t n = strlen(s);
    return n > 3 && !strcmp(s + n - 3, ".py");
}

/* One entry (tlm_walk_fn): a regular *.py file is read (over MAX_FILES,
 * counted as skipped).  TLM_ENOMEM when out of memory. */
static tlm_status visit(void *ctx, tlm_walk_entry *e, tlm_error *err)
{
    ind_walk *w = ctx;
    (void)err;
    if (e->kind != TLM_WALK_FILE || !ends_py(e->name))
        return TLM_OK;
    if (++w->nfiles > MAX_FILES)
        tlm_inductor_count(w->c, 1, 1);
    else if (read_one(w->c, e->path) < 0)
        return TLM_ENOMEM;
    return TLM_OK;
}

tlm_status tlm_inductor_cache_load(const char *dir, tlm_inductor_cache **out,
                                   tlm_error *err)
{
    *out = NULL;
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return tlm_error_set(err, TLM_EIO, dir, -1,
                             "--inductor_cache_dir: %s",
                             stat(dir, &sb) != 0 ? strerror(errno)
                                                 : "not a folder");
    tlm_inductor_cache *c = tlm_inductor_cache_new();
    tlm_walk_opts o = {.max_depth = MAX_DEPTH - 1,
                       .subdirs_last = 1,
                       .list_flags = TLM_DIR_NO_HIDDEN};
    ind_walk w = {c, 0};
    int oom = !c || tlm_walk(dir, &o, visit, &w, NULL) == TLM_ENOMEM;
    if (oom) {
        tlm_inductor_cache_free(c);
        return tlm_error_set(err, TLM_ENOMEM, dir, -1,
                             "--inductor_cache_dir: out of memory");
    }
    tlm_inductor_finalize(c);
    *out = c;
    return TLM_OK;
}
