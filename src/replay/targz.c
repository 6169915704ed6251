/*
 * targz.c - a deterministic .tar.gz of a few in-memory files (the replay
 * bundle): POSIX ustar headers with fixed mode, uid/gid 0, mtime 0 and no
 * owner names, the members in the caller's order, two zero blocks at the
 * end, all through zlib's gzip writer (no name or time in the gzip
 * header either).  Member names are fixed by the caller and checked here
 * to be plain relative names (no '/', no "..").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tlmpi/tlm_replay.h"

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 99 || s[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static void header(unsigned char h[512], const tlm_tar_member *m)
{
    memset(h, 0, 512);
    memcpy(h, m->name, strlen(m->name));
    snprintf((char *)h + 100, 8, "%07o", m->exec ? 0755u : 0644u);
    snprintf((char *)h + 108, 8, "%07o", 0u);
    snprintf((char *)h + 116, 8, "%07o", 0u);
    snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)m->len);
    snprintf((char *)h + 136, 12, "%011o", 0u);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
}

static int put(gzFile g, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n) {
        unsigned k = n > (1u << 30) ? 1u << 30 : (unsigned)n;
        if (gzwrite(g, c, k) != (int)k)
            return -1;
        c += k;
        n -= k;
    }
    return 0;
}

tlm_status tlm_targz_write(const char *path, const tlm_tar_member *m,
                           size_t n, tlm_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!name_ok(m[i].name) || (m[i].len && !m[i].data) ||
            m[i].len >= (1ULL << 33))
            return tlm_error_set(err, TLM_EINVAL, path, -1,
                                 "bundle member %zu: not a plain name of "
                                 "[A-Za-z0-9._-] or too large", i);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return tlm_error_set(err, TLM_EIO, path, -1, "%s", strerror(errno));
    gzFile g = gzdopen(fd, "wb9");
    if (!g) {
        close(fd);
        return tlm_error_set(err, TLM_EIO, path, -1, "gzdopen failed");
    }
    int bad = 0;
    unsigned char h[512];
    static const unsigned char zero[1024];
    for (size_t i = 0; !bad && i < n; i++) {
        header(h, &m[i]);
        bad = put(g, h, 512) || put(g, m[i].data, m[i].len) ||
              put(g, zero, (512 - m[i].len % 512) % 512);
    }
    if (!bad)
        bad = put(g, zero, 1024);
    int zc = gzclose(g); /* closes the descriptor too */
    if (bad || zc != Z_OK)
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "writing the gzip stream failed");
    return TLM_OK;
}
