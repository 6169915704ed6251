/*
 * perf_inductor_dir.c - reading an Inductor cache folder
 * (tlm_inductor_cache_load): its *.py files, as TraceLens's
 * recursive glob of *.py lists them (hidden names left out), folder by
 * folder depth-first (a folder's files, then its sub-folders, names in
 * byte order), bounded: 32 levels, 100,000 files, 64 MiB a file; symbolic links are
 * not followed and special files never opened (O_NOFOLLOW | O_NONBLOCK,
 * then fstat).  Explicit stack, no recursion.
 */
#define _GNU_SOURCE 1 /* O_NOFOLLOW */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"

#define MAX_DEPTH 32
#define MAX_FILES 100000
#define MAX_FILE (64u << 20)

typedef struct dent {
    char *path;
    int depth;
} dent;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

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

/* The sorted visible names of folder path, or NULL (*n = 0) when it
 * cannot be listed; *oom on failure. */
static char **list_dir(const char *path, size_t *n, int *oom)
{
    *n = 0;
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    char **v = NULL;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **p = realloc(v, nc * sizeof *p);
            if (!p) {
                *oom = 1;
                break;
            }
            v = p;
            cap = nc;
        }
        if (!(v[*n] = strdup(de->d_name))) {
            *oom = 1;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (*n)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

/* Visits folder top: files first in name order with sub-folders pushed
 * (reversed, so they pop in order).  Returns -1 on no memory. */
static int visit(tlm_inductor_cache *c, dent top, dent **st, size_t *ns,
                 size_t *cap, size_t *nfiles)
{
    size_t n;
    int oom = 0;
    char **names = list_dir(top.path, &n, &oom);
    char **subs = malloc((n + 1) * sizeof *subs);
    size_t nsub = 0;
    if (!subs)
        oom = 1;
    for (size_t i = 0; i < n && !oom; i++) {
        size_t pl = strlen(top.path) + strlen(names[i]) + 2;
        char *p = malloc(pl);
        if (!p) {
            oom = 1;
            break;
        }
        snprintf(p, pl, "%s/%s", top.path, names[i]);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) &&
            top.depth + 1 < MAX_DEPTH) {
            subs[nsub++] = p;
            continue;
        }
        if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && ends_py(names[i])) {
            if (++*nfiles > MAX_FILES)
                tlm_inductor_count(c, 1, 1);
            else if (read_one(c, p) < 0)
                oom = 1;
        }
        free(p);
    }
    for (size_t i = nsub; i-- > 0 && !oom;) {
        if (*ns == *cap) {
            size_t nc = *cap ? *cap * 2 : 16;
            dent *q = realloc(*st, nc * sizeof *q);
            if (!q) {
                oom = 1;
                break;
            }
            *st = q;
            *cap = nc;
        }
        (*st)[(*ns)++] = (dent){subs[i], top.depth + 1};
        subs[i] = NULL;
    }
    for (size_t i = 0; i < nsub; i++)
        free(subs[i]);
    free(subs);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return oom ? -1 : 0;
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
    dent *st = NULL;
    size_t ns = 0, cap = 0, nfiles = 0;
    int oom = !c;
    char *root = c ? strdup(dir) : NULL;
    if (!root)
        oom = 1;
    dent cur = {root, 0};
    while (!oom) {
        oom = visit(c, cur, &st, &ns, &cap, &nfiles) < 0;
        free(cur.path);
        cur.path = NULL;
        if (!ns)
            break;
        cur = st[--ns];
    }
    free(cur.path);
    while (ns)
        free(st[--ns].path);
    free(st);
    if (oom) {
        tlm_inductor_cache_free(c);
        return tlm_error_set(err, TLM_ENOMEM, dir, -1,
                             "--inductor_cache_dir: out of memory");
    }
    tlm_inductor_finalize(c);
    *out = c;
    return TLM_OK;
}
