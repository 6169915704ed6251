/*
 * outset.c - output sets published all together or not at all
 * (tlm_outset.h): the output rules checked before any work, temporaries
 * beside the final names, and a commit that puts the previous files back
 * when any step fails.
 */
#define _GNU_SOURCE 1 /* gethostname, fsync, link on every libc */
#include "tlmpi/tlm_outset.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "walk.h"

/* MARK: - names ----------------------------------------------------------- */

/* ".tlmpi-<pid>@<host>", the host reduced to [A-Za-z0-9.-]. */
static void make_tag(char *tag, size_t cap)
{
    char host[65] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
            *p = '_';
    snprintf(tag, cap, ".tlmpi-%ld@%s", (long)getpid(),
             host[0] ? host : "localhost");
}

static char *cat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *p = malloc(la + lb + lc + 1);
    if (!p)
        return NULL;
    memcpy(p, a, la);
    memcpy(p + la, b, lb);
    memcpy(p + la + lb, c, lc + 1);
    return p;
}

/* The folder of path ("." when it has none) into a new string. */
static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s)
        return cat3(".", "", "");
    if (s == path)
        return cat3("/", "", "");
    char *d = malloc((size_t)(s - path) + 1);
    if (d) {
        memcpy(d, path, (size_t)(s - path));
        d[s - path] = '\0';
    }
    return d;
}

/* MARK: - set ------------------------------------------------------------- */

tlm_status tlm_outset_init(tlm_outset *s, int force, tlm_error *err)
{
    memset(s, 0, sizeof *s);
    s->force = force;
    s->f = calloc(TLM_OUTSET_MAX, sizeof *s->f);
    if (!s->f)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory for the output list");
    make_tag(s->tag, sizeof s->tag);
    return TLM_OK;
}

void tlm_outset_free(tlm_outset *s)
{
    if (!s || !s->f)
        return;
    tlm_outset_abort(s);
    for (size_t i = s->n_made; i-- > 0;) { /* innermost first */
        if (!s->committed)
            rmdir(s->made[i]); /* fails, harmlessly, unless empty */
        free(s->made[i]);
    }
    free(s->made);
    for (size_t i = 0; i < TLM_OUTSET_MAX; i++) {
        free(s->f[i].path);
        free(s->f[i].tmp);
        free(s->f[i].old);
    }
    free(s->f);
    free(s->inputs);
    memset(s, 0, sizeof *s);
}

tlm_status tlm_outset_add_input(tlm_outset *s, const char *path,
                                tlm_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return TLM_OK;
    /* (device, inode) pairs */
    if (tlm_grow((void **)&s->inputs, &s->cap_in, s->n_in + 1,
                 2 * sizeof *s->inputs, 64))
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory for the input list");
    s->inputs[2 * s->n_in] = (uint64_t)sb.st_dev;
    s->inputs[2 * s->n_in + 1] = (uint64_t)sb.st_ino;
    s->n_in++;
    return TLM_OK;
}

/* MARK: - checks ---------------------------------------------------------- */

static const char *kind_of(mode_t m)
{
    return tlm_file_kind((unsigned)m);
}

/* Notes a folder the set created (best effort: without memory it is only
 * not removed on failure). */
static void note_made(tlm_outset *s, const char *dir)
{
    char **m = realloc(s->made, (s->n_made + 1) * sizeof *m);
    if (!m)
        return;
    s->made = m;
    if ((m[s->n_made] = strdup(dir)) != NULL)
        s->n_made++;
}

/* mkdir -p of dir (modifies nothing else); the folders created are noted
 * in s. */
static tlm_status make_dirs(tlm_outset *s, char *dir, tlm_error *err)
{
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return TLM_OK;
        return tlm_error_set(err, TLM_EIO, dir, -1,
                             "output folder is %s, not a folder",
                             kind_of(sb.st_mode));
    }
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        tlm_status st = make_dirs(s, dir, err);
        *slash = '/';
        if (st != TLM_OK)
            return st;
    }
    if (mkdir(dir, 0777) == 0)
        note_made(s, dir);
    else if (errno != EEXIST)
        return tlm_error_set(err, TLM_EIO, dir, -1,
                             "cannot create the output folder: %s",
                             strerror(errno));
    return TLM_OK;
}

/* Can a file be created in dir?  (access() says yes on a read-only file
 * system mounted writable for root; creating one says the truth.) */
static tlm_status probe_dir(const tlm_outset *s, const char *dir,
                            tlm_error *err)
{
    char *p = cat3(dir, "/", s->tag);
    char *q = p ? cat3(p, ".probe", "") : NULL;
    free(p);
    if (!q)
        return tlm_error_set(err, TLM_ENOMEM, dir, -1, "out of memory");
    int fd = open(q, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(q);
    }
    free(q);
    if (fd < 0)
        return tlm_error_set(err, TLM_EIO, dir, -1,
                             "cannot write in the output folder: %s",
                             strerror(e));
    return TLM_OK;
}

static int is_input(const tlm_outset *s, const struct stat *sb)
{
    for (size_t i = 0; i < s->n_in; i++)
        if (s->inputs[2 * i] == (uint64_t)sb->st_dev &&
            s->inputs[2 * i + 1] == (uint64_t)sb->st_ino)
            return 1;
    return 0;
}

/* The rules on the path itself (its folder exists). */
static tlm_status check_file(const tlm_outset *s, const char *path,
                             tlm_error *err)
{
    struct stat lsb, sb;
    if (lstat(path, &lsb) != 0) {
        if (errno == ENOENT)
            return TLM_OK;
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot check: %s",
                             strerror(errno));
    }
    int have = stat(path, &sb) == 0;
    if (have && is_input(s, &sb))
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "output is one of the input traces");
    if (S_ISLNK(lsb.st_mode))
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "output is a symbolic link (to %s); outputs "
                             "must be regular files: give the real path",
                             have ? kind_of(sb.st_mode) : "nothing");
    if (!S_ISREG(lsb.st_mode))
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "output is %s; outputs must be regular files",
                             kind_of(lsb.st_mode));
    if (!s->force)
        return tlm_error_set(err, TLM_EEXIST, path, -1,
                             "output file exists; use --force to replace "
                             "it");
    return TLM_OK;
}

tlm_status tlm_outset_check(tlm_outset *s, const char *path, tlm_error *err)
{
    if (!path || !path[0])
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "empty output path");
    char *dir = dir_of(path);
    if (!dir)
        return tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    tlm_status st = make_dirs(s, dir, err);
    if (st == TLM_OK)
        st = probe_dir(s, dir, err);
    free(dir);
    if (st != TLM_OK)
        return st;
    tlm_outset_sweep(path);
    return check_file(s, path, err);
}

/* MARK: - staging --------------------------------------------------------- */

tlm_status tlm_outset_stage(tlm_outset *s, const char *path,
                            const char **tmp, tlm_error *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->f[i].path, path) == 0)
            return tlm_error_set(err, TLM_EINVAL, path, -1,
                                 "the same output twice in one set");
    if (s->n >= TLM_OUTSET_MAX)
        return tlm_error_set(err, TLM_ELIMIT, path, -1,
                             "more than %d output files", TLM_OUTSET_MAX);
    tlm_status st = tlm_outset_check(s, path, err);
    if (st != TLM_OK)
        return st;
    tlm_outfile *f = &s->f[s->n];
    f->path = cat3(path, "", "");
    f->tmp = cat3(path, s->tag, ".tmp");
    f->old = cat3(path, s->tag, ".old");
    if (!f->path || !f->tmp || !f->old) {
        free(f->path);
        free(f->tmp);
        free(f->old);
        f->path = f->tmp = f->old = NULL;
        return tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    }
    f->state = TLM_OUT_STAGED;
    s->n++; /* after the names: a signal handler sees whole entries */
    *tmp = f->tmp;
    return TLM_OK;
}

tlm_status tlm_outset_fclose(void *file, const char *path, tlm_error *err)
{
    FILE *f = file;
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    if (!e && fflush(f) != 0)
        e = errno ? errno : EIO;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (e)
        return tlm_error_set(err, TLM_EIO, path, -1, "write failed: %s",
                             strerror(e));
    return TLM_OK;
}

void tlm_outset_abort(tlm_outset *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->f[i].state == TLM_OUT_STAGED) {
            unlink(s->f[i].tmp);
            s->f[i].state = TLM_OUT_FREE;
        }
}

void tlm_outset_unlink_tmps(const tlm_outset *s)
{
    size_t n = s->n;
    for (size_t i = 0; i < n && i < TLM_OUTSET_MAX; i++)
        if (s->f[i].state == TLM_OUT_STAGED && s->f[i].tmp)
            unlink(s->f[i].tmp);
}

/* MARK: - commit ---------------------------------------------------------- */

static tlm_status fsync_path(const char *p, int dir, tlm_error *err)
{
    int fd = open(p, (dir ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tlm_error_set(err, TLM_EIO, p, -1, "cannot open to sync: %s",
                             strerror(errno));
    int rc = fsync(fd), e = errno;
    close(fd);
    /* some file systems cannot sync a folder: that is not a failure */
    if (rc != 0 && !(dir && (e == EINVAL || e == ENOTSUP)))
        return tlm_error_set(err, TLM_EIO, p, -1, "fsync failed: %s",
                             strerror(e));
    return TLM_OK;
}

/* Keeps the previous file of f aside: a hard link (the final name stays
 * in place until the rename replaces it), or a rename where links are not
 * supported. */
static tlm_status keep_old(tlm_outfile *f, tlm_error *err)
{
    struct stat sb;
    f->had_old = lstat(f->path, &sb) == 0;
    if (!f->had_old)
        return TLM_OK;
    if (!S_ISREG(sb.st_mode)) {
        f->had_old = 0;
        return tlm_error_set(err, TLM_EIO, f->path, -1,
                             "output became %s since it was checked",
                             kind_of(sb.st_mode));
    }
    unlink(f->old);
    if (link(f->path, f->old) == 0) {
        f->old_linked = 1;
        return TLM_OK;
    }
    if (rename(f->path, f->old) == 0)
        return TLM_OK;
    f->had_old = 0;
    return tlm_error_set(err, TLM_EIO, f->path, -1,
                         "cannot keep the previous file aside: %s",
                         strerror(errno));
}

/* Undoes a failed commit: files 0..n-1 of the set are put back as they
 * were (published ones replaced by their previous file, or removed). */
static void roll_back(tlm_outset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        tlm_outfile *f = &s->f[i];
        if (f->state == TLM_OUT_COMMITTED) {
            if (f->had_old)
                rename(f->old, f->path);
            else
                unlink(f->path);
            f->state = TLM_OUT_FREE;
        } else {
            if (f->had_old && f->old_linked)
                unlink(f->old);
            else if (f->had_old)
                rename(f->old, f->path);
            if (f->state == TLM_OUT_STAGED)
                unlink(f->tmp);
            f->state = TLM_OUT_FREE;
        }
        f->had_old = 0;
    }
}

/* fsync of every temporary and every folder, previous files aside, the
 * renames. */
static tlm_status commit_steps(tlm_outset *s, tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && i < s->n; i++)
        st = fsync_path(s->f[i].tmp, 0, err);
    for (size_t i = 0; st == TLM_OK && i < s->n; i++)
        st = keep_old(&s->f[i], err);
    for (size_t i = 0; st == TLM_OK && i < s->n; i++) {
        if (rename(s->f[i].tmp, s->f[i].path) != 0)
            st = tlm_error_set(err, TLM_EIO, s->f[i].path, -1,
                               "cannot publish (rename): %s",
                               strerror(errno));
        else
            s->f[i].state = TLM_OUT_COMMITTED;
    }
    for (size_t i = 0; st == TLM_OK && i < s->n; i++) {
        char *d = dir_of(s->f[i].path);
        st = d ? fsync_path(d, 1, err)
               : tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        free(d);
    }
    return st;
}

tlm_status tlm_outset_commit(tlm_outset *s, tlm_error *err)
{
    sigset_t all, prev;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &prev);
    tlm_status st = commit_steps(s, err);
    if (st != TLM_OK) {
        roll_back(s);
    } else {
        for (size_t i = 0; i < s->n; i++) {
            if (s->f[i].had_old)
                unlink(s->f[i].old);
            s->f[i].state = TLM_OUT_DONE;
        }
        s->committed = 1;
    }
    sigprocmask(SIG_SETMASK, &prev, NULL);
    return st;
}

/* MARK: - stale temporaries ---------------------------------------------- */

/* name = <base>.tlmpi-<pid>@<host>.tmp|.old of this host and a process
 * that is gone?  *is_old says which. */
static int stale(const char *name, const char *base, const char *host,
                 int *is_old)
{
    size_t lb = strlen(base);
    if (strncmp(name, base, lb) != 0 || strncmp(name + lb, ".tlmpi-", 7))
        return 0;
    const char *p = name + lb + 7;
    char *end;
    long pid = strtol(p, &end, 10);
    if (end == p || *end != '@' || pid <= 0)
        return 0;
    size_t lh = strlen(host), ln = strlen(end + 1);
    if (ln != lh + 4 || strncmp(end + 1, host, lh) != 0)
        return 0;
    const char *ext = end + 1 + lh;
    if (strcmp(ext, ".tmp") != 0 && strcmp(ext, ".old") != 0)
        return 0;
    *is_old = ext[1] == 'o';
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 &&
           errno == ESRCH;
}

size_t tlm_outset_sweep(const char *path)
{
    char tag[96];
    make_tag(tag, sizeof tag);
    const char *host = strchr(tag, '@') + 1;
    char *dir = dir_of(path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char **v = NULL;
    size_t nv = 0, n = 0;
    if (dir && tlm_dir_list(dir, 0, 0, &v, &nv, NULL) != TLM_OK)
        nv = 0;
    for (size_t i = 0; i < nv; i++) {
        int is_old = 0;
        if (!stale(v[i], base, host, &is_old))
            continue;
        char *p = cat3(dir, "/", v[i]);
        struct stat sb;
        if (p && is_old && lstat(path, &sb) != 0)
            n += rename(p, path) == 0; /* the previous file, put back */
        else if (p)
            n += unlink(p) == 0;
        free(p);
    }
    tlm_dir_free(v, nv);
    free(dir);
    return n;
}
