/*
 * tlm_fault.c - a fault-injection library for the output tests, loaded with
 * LD_PRELOAD: it interposes the calls that write, flush and publish files
 * (write, pwrite, pwrite64, fsync, fdatasync, fclose, rename, link) and
 * makes one of them fail, so that a test can break every write of every
 * output in turn.
 *
 * Environment:
 *   TLM_FAULT_OP      the call to break: write (also pwrite/pwrite64),
 *                     fsync (also fdatasync), fclose, rename, link;
 *                     crash: the matching blocking open() raises SIGSEGV (a
 *                     library that crashes on an input file: HDF5 on a
 *                     run file, test_compare_bad.sh)
 *   TLM_FAULT_AT      N: the N-th matching call fails (1-based); 0 or
 *                     unset: none fails, the calls are only counted
 *   TLM_FAULT_MATCH   substring of the file's path a call must touch to
 *                     match (default ".tlmpi-": tlmpi's temporaries)
 *   TLM_FAULT_ERRNO   errno of the failure (default 28, ENOSPC)
 *   TLM_FAULT_RANK    only in the process whose OMPI_COMM_WORLD_RANK is
 *                     this (default: every process)
 *   TLM_FAULT_COUNT   a file that receives, at exit, the number of
 *                     matching calls this process made
 *
 * glibc's stdio writes through internal calls that cannot be interposed:
 * for streams the failure is injected at fflush/fclose (fclose), or at the
 * fsync that publication makes.  Test code only; never installed.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int g_init, g_active, g_errno = 28;
static long g_at, g_count;
static char g_op[16], g_match[256] = ".tlmpi-", g_count_file[512];

static void report_count(void)
{
    if (!g_count_file[0])
        return;
    FILE *f = fopen(g_count_file, "w");
    if (f) {
        fprintf(f, "%ld\n", g_count);
        fclose(f);
    }
}

static void init(void)
{
    if (g_init)
        return;
    g_init = 1;
    const char *op = getenv("TLM_FAULT_OP");
    if (!op)
        return;
    const char *rank = getenv("TLM_FAULT_RANK");
    const char *me = getenv("OMPI_COMM_WORLD_RANK");
    if (rank && rank[0] && strcmp(rank, me ? me : "0") != 0)
        return;
    snprintf(g_op, sizeof g_op, "%s", op);
    const char *v = getenv("TLM_FAULT_AT");
    g_at = v ? atol(v) : 0;
    if ((v = getenv("TLM_FAULT_MATCH")) != NULL)
        snprintf(g_match, sizeof g_match, "%s", v);
    if ((v = getenv("TLM_FAULT_ERRNO")) != NULL)
        g_errno = atoi(v);
    if ((v = getenv("TLM_FAULT_COUNT")) != NULL) {
        snprintf(g_count_file, sizeof g_count_file, "%s", v);
        atexit(report_count);
    }
    g_active = 1;
}

/* 1 when this call (op on path) is the one to fail. */
static int hit(const char *op, const char *path)
{
    init();
    if (!g_active || strcmp(op, g_op) != 0 || !path ||
        !strstr(path, g_match))
        return 0;
    g_count++;
    report_count();
    return g_at > 0 && g_count == g_at;
}

static int hit_fd(const char *op, int fd)
{
    init();
    if (!g_active || strcmp(op, g_op) != 0)
        return 0;
    char link[64], path[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return hit(op, path);
}

#define REAL(ret, name, args)                                               \
    static ret(*real_##name) args;                                          \
    if (!real_##name)                                                       \
        *(void **)&real_##name = dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(ssize_t, write, (int, const void *, size_t));
    if (hit_fd("write", fd)) {
        errno = g_errno;
        return -1;
    }
    return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REAL(ssize_t, pwrite, (int, const void *, size_t, off_t));
    if (hit_fd("write", fd)) {
        errno = g_errno;
        return -1;
    }
    return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    REAL(ssize_t, pwrite64, (int, const void *, size_t, off_t));
    if (hit_fd("write", fd)) {
        errno = g_errno;
        return -1;
    }
    return real_pwrite64(fd, buf, n, off);
}

int fsync(int fd)
{
    REAL(int, fsync, (int));
    if (hit_fd("fsync", fd)) {
        errno = g_errno;
        return -1;
    }
    return real_fsync(fd);
}

int fdatasync(int fd)
{
    REAL(int, fdatasync, (int));
    if (hit_fd("fsync", fd)) {
        errno = g_errno;
        return -1;
    }
    return real_fdatasync(fd);
}

int fclose(FILE *f)
{
    REAL(int, fclose, (FILE *));
    int fail = hit_fd("fclose", fileno(f));
    int rc = real_fclose(f);
    if (fail) {
        errno = g_errno;
        return EOF;
    }
    return rc;
}

int rename(const char *from, const char *to)
{
    REAL(int, rename, (const char *, const char *));
    init();
    const char *p = g_active && strstr(from, g_match) ? from : to;
    if (hit("rename", p)) {
        errno = g_errno;
        return -1;
    }
    return real_rename(from, to);
}

int link(const char *from, const char *to)
{
    REAL(int, link, (const char *, const char *));
    init();
    const char *p = g_active && strstr(to, g_match) ? to : from;
    if (hit("link", p)) {
        errno = g_errno;
        return -1;
    }
    return real_link(from, to);
}

int open(const char *path, int flags, ...)
{
    REAL(int, open, (const char *, int, ...));
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    /* a library's open, not tlmpi's type check (tlm_open_input opens
     * with O_NONBLOCK before handing the path to the library) */
    if (!(flags & O_NONBLOCK) && hit("crash", path))
        raise(SIGSEGV);
    return real_open(path, flags, mode);
}
