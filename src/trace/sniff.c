/*
 * sniff.c - interim content check (replaced by the full head scanner of
 * the sniff branch): a regular file whose first bytes (inflated when
 * gzip) hold a "traceEvents" key.
 */
#include "tlmpi/tlm_sniff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

void tlm_trace_sniff_mem(const char *head, size_t n, int complete,
                         tlm_sniff *out)
{
    (void)complete;
    out->verdict = TLM_SNIFF_NOT_TRACE;
    out->format = TLM_FORMAT_UNKNOWN;
    out->dist_rank = out->dist_world = -1;
    snprintf(out->reason, sizeof out->reason, "no traceEvents");
    for (size_t i = 0; i + 13 <= n; i++)
        if (memcmp(head + i, "\"traceEvents\"", 13) == 0) {
            out->verdict = TLM_SNIFF_TRACE;
            out->format = TLM_FORMAT_KINETO_JSON;
            out->reason[0] = 0;
            return;
        }
}

tlm_status tlm_trace_sniff(const char *path, size_t cap, tlm_sniff *out)
{
    memset(out, 0, sizeof *out);
    out->dist_rank = out->dist_world = -1;
    if (!cap)
        cap = TLM_SNIFF_HEAD_DEFAULT;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        out->verdict = TLM_SNIFF_UNREADABLE;
        snprintf(out->reason, sizeof out->reason, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return TLM_OK;
    }
    out->size = sb.st_size;
    out->dev = sb.st_dev;
    out->ino = sb.st_ino;
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        snprintf(out->reason, sizeof out->reason, "not a regular file");
        return TLM_OK;
    }
    char *raw = malloc(cap), *inf = malloc(cap);
    if (!raw || !inf) {
        free(raw);
        free(inf);
        close(fd);
        return TLM_ENOMEM;
    }
    ssize_t n = read(fd, raw, cap);
    close(fd);
    size_t len = n > 0 ? (size_t)n : 0;
    if (len >= 2 && (unsigned char)raw[0] == 0x1f &&
        (unsigned char)raw[1] == 0x8b) {
        out->gzip = 1;
        z_stream z;
        memset(&z, 0, sizeof z);
        inflateInit2(&z, 16 + MAX_WBITS);
        z.next_in = (unsigned char *)raw;
        z.avail_in = (unsigned)len;
        z.next_out = (unsigned char *)inf;
        z.avail_out = (unsigned)cap;
        inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
        inflateEnd(&z);
        tlm_trace_sniff_mem(inf, len, 0, out);
    } else {
        tlm_trace_sniff_mem(raw, len, 0, out);
    }
    free(raw);
    free(inf);
    return TLM_OK;
}
