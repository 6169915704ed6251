/*
 * common.c - status strings, error reports, the default allocator, the
 * deterministic hash and the page-table warming shared by every module.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "tlmpi/tlm_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "mem_internal.h"
#include "mix.h"

const char *tlm_status_str(tlm_status st)
{
    switch (st) {
#define TLM_X_(name, value, desc) \
    case name:                    \
        return desc;
        TLM_STATUS_LIST(TLM_X_)
#undef TLM_X_
    }
    return "unknown status";
}

void tlm_error_clear(tlm_error *err)
{
    if (!err)
        return;
    err->code = TLM_OK;
    err->offset = -1;
    err->file[0] = '\0';
    err->msg[0] = '\0';
}

tlm_status tlm_error_set(tlm_error *err, tlm_status code, const char *file,
                         int64_t offset, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->offset = offset;
    if (file) {
        size_t n = strlen(file);
        if (n >= sizeof err->file) {
            /* keep the tail: the file name matters more than its folder */
            file += n - (sizeof err->file - 1);
        }
        snprintf(err->file, sizeof err->file, "%s", file);
    } else {
        err->file[0] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

char *tlm_escape_ctrl(char *dst, size_t cap, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    if (!dst || cap == 0)
        return dst;
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)(src ? src : "");
         *s; s++) {
        char e[5];
        size_t n = 0;
        if (*s == '\n' || *s == '\r' || *s == '\t') {
            e[n++] = '\\';
            e[n++] = *s == '\n' ? 'n' : *s == '\r' ? 'r' : 't';
        } else if (*s < 0x20 || *s == 0x7f) {
            e[n++] = '\\';
            e[n++] = 'x';
            e[n++] = hex[*s >> 4];
            e[n++] = hex[*s & 15];
        } else {
            e[n++] = (char)*s;
        }
        if (o + n >= cap) {
            size_t k = cap > 4 ? cap - 4 : 0;
            if (o > k)
                o = k;
            while (o < cap - 1 && o < k + 3)
                dst[o++] = '.';
            break;
        }
        memcpy(dst + o, e, n);
        o += n;
    }
    dst[o] = '\0';
    return dst;
}

const char *tlm_esc(const char *src)
{
    static _Thread_local char buf[8][1024];
    static _Thread_local unsigned k;
    char *b = buf[k++ & 7];
    return tlm_escape_ctrl(b, sizeof buf[0], src);
}

const char *tlm_file_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    return S_ISREG(m)                    ? "a regular file"
           : S_ISDIR(m)                  ? "a folder"
           : S_ISFIFO(m)                 ? "a FIFO"
           : S_ISSOCK(m)                 ? "a socket"
           : S_ISCHR(m) || S_ISBLK(m)    ? "a device"
                                         : "not a regular file";
}

int tlm_self_dir_path(const char *rel, char *out, size_t cap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    int w = snprintf(out, cap, "%s/%s", exe, rel);
    return w > 0 && (size_t)w < cap ? 0 : -1;
}

tlm_status tlm_open_input(const char *path, int *fdp, tlm_error *err)
{
    *fdp = -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return tlm_error_set(err, e == ENOENT ? TLM_ENOTFOUND : TLM_EIO,
                             path, -1, "cannot open: %s", strerror(e));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot open: %s",
                             strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        if (S_ISDIR(sb.st_mode)) /* the words of read(2)'s EISDIR */
            return tlm_error_set(err, TLM_EINVAL, path, -1,
                                 "cannot open: %s", strerror(EISDIR));
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "not a regular file (%s)",
                             tlm_file_kind((unsigned)sb.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    *fdp = fd;
    return TLM_OK;
}

tlm_status tlm_fopen_input(const char *path, FILE **f, tlm_error *err)
{
    int fd;
    *f = NULL;
    tlm_status st = tlm_open_input(path, &fd, err);
    if (st != TLM_OK)
        return st;
    if (!(*f = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot open: %s",
                             strerror(e));
    }
    return TLM_OK;
}

char *tlm_error_format(const tlm_error *err, char *buf, size_t size)
{
    if (!buf || size == 0)
        return buf;
    if (!err) {
        buf[0] = '\0';
        return buf;
    }
    char file[4 * sizeof err->file];
    tlm_escape_ctrl(file, sizeof file, err->file);
    const char *msg = err->msg[0] ? err->msg : tlm_status_str(err->code);
    char m[4 * sizeof err->msg];
    tlm_escape_ctrl(m, sizeof m, msg);
    if (file[0] && err->offset >= 0)
        snprintf(buf, size, "%s: offset %lld: %s", file,
                 (long long)err->offset, m);
    else if (file[0])
        snprintf(buf, size, "%s: %s", file, m);
    else if (err->offset >= 0)
        snprintf(buf, size, "offset %lld: %s", (long long)err->offset, m);
    else
        snprintf(buf, size, "%s", m);
    return buf;
}

static void *std_malloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size ? size : 1);
}

static void *std_realloc(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    return realloc(ptr, size ? size : 1);
}

static void std_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static const tlm_alloc default_alloc = {std_malloc, std_realloc, std_free,
                                        NULL};

const tlm_alloc *tlm_alloc_default(void)
{
    return &default_alloc;
}

static uint64_t rd64le(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
           (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* An xxHash64-style loop over little-endian words (the byte order is fixed,
 * so every host gives the same value), then a splitmix64 finaliser. */
uint64_t tlm_hash64(const void *data, size_t len)
{
    const uint64_t p1 = 0x9e3779b185ebca87ull, p2 = 0xc2b2ae3d27d4eb4full;
    const unsigned char *p = data;
    uint64_t h = 0x27d4eb2f165667c5ull ^ ((uint64_t)len * p1);
    while (len >= 8) {
        uint64_t w = rd64le(p) * p2;
        h ^= rotl64(w, 31) * p1;
        h = rotl64(h, 27) * p1 + 0x85ebca77c2b2ae63ull;
        p += 8;
        len -= 8;
    }
    uint64_t t = 0;
    for (size_t i = 0; i < len; i++)
        t |= (uint64_t)p[i] << (8 * i);
    h ^= rotl64(t * p2, 31) * p1;
    return tlm_mix64(h);
}

/* MARK: - page-table warming ------------------------------------------- */

#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

/* The address as a number: memory about to be written, not yet read. */
static size_t prefault_at(uintptr_t p, size_t n)
{
#if defined(__linux__)
    if (!p || n < TLM_PREFAULT_MIN)
        return 0;
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    uintptr_t a = (p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t e = (p + n) & ~(uintptr_t)(page - 1);
    if (e <= a)
        return 0;
    /* errors (an old kernel, a locked range) leave the ordinary faults */
    (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
    return e - a;
#else
    (void)p;
    (void)n;
    return 0;
#endif
}

size_t tlm_prefault(const void *p, size_t n)
{
    return prefault_at((uintptr_t)p, n);
}

void *tlm_malloc_warm(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p)
        prefault_at((uintptr_t)p, n);
    return p;
}

void tlm_warm_upto(tlm_warm *w, const void *base, size_t used, size_t end)
{
    if (base != w->base) { /* moved: what was written moved with it */
        w->base = base;
        w->done = used;
    }
    if (w->done < used)
        w->done = used;
    if (end <= w->done)
        return;
    tlm_prefault((const char *)base + w->done, end - w->done);
    w->done = end;
}

void tlm_warm_slow(tlm_warm *w, const void *base, size_t used, size_t cap)
{
    size_t end = used + TLM_WARM_STEP;
    tlm_warm_upto(w, base, used, end > cap || end < used ? cap : end);
}
