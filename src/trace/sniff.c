/*
 * sniff.c - is this file a trace?  Decided from the first bytes of its
 * content (tlm_sniff.h), never from its name.
 *
 * The file is opened once (O_NONBLOCK, so a FIFO never blocks the open)
 * and read only when fstat says it is a regular file: at most head_cap
 * bytes, or, when it starts with the gzip magic, at most 4 x head_cap
 * compressed bytes inflated into at most head_cap bytes, so a gzip bomb
 * costs one small buffer.  The head is then walked by a small scanner,
 * not the reader: it knows the top-level object's keys (escapes decoded,
 * so "trace\u0045vents" counts), skips every value with a depth counter
 * and a string state (no recursion, depth bounded), and reads integers
 * `rank` and `world_size` inside `distributedInfo`.  A head that ends
 * early is normal (it is a head): the verdict then rests on what was seen.
 */
#include "tlmpi/tlm_sniff.h"
#include "tlmpi/tlm_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hexnum.h"
#include "tlmpi/tlm_xplane.h"

#define SNIFF_MAX_DEPTH 1024
#define SNIFF_KEY_CAP 32

/* ------------------------------------------------------------------ *
 * MARK: - the head scanner
 * ------------------------------------------------------------------ */

enum { SC_OK = 0, SC_END, SC_BAD, SC_DEEP };

typedef struct scan {
    const unsigned char *p, *e, *h; /* cursor, end, first byte */
    int kineto; /* a Kineto key was seen (or traceEvents, value pending) */
} scan;

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int skip_ws(scan *s)
{
    while (s->p < s->e && is_ws(*s->p))
        s->p++;
    return s->p < s->e ? SC_OK : SC_END;
}

/* At '"': past the closing quote. */
static int skip_string(scan *s)
{
    for (s->p++; s->p < s->e; s->p++) {
        if (*s->p == '\\') {
            s->p++;
            if (s->p == s->e)
                return SC_END;
        } else if (*s->p == '"') {
            s->p++;
            return SC_OK;
        }
    }
    return SC_END;
}

/* One escape after the backslash at s->p; *c gets the byte it stands for
 * (0xFF for any character that is not ASCII: such keys match nothing). */
static int key_escape(scan *s, unsigned char *c)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (s->e - s->p < 2)
        return SC_END;
    const char *k = strchr(from, s->p[1]);
    if (s->p[1] && k) {
        *c = (unsigned char)to[k - from];
        s->p += 2;
        return SC_OK;
    }
    if (s->p[1] != 'u')
        return SC_BAD;
    if (s->e - s->p < 6)
        return SC_END;
    unsigned v = 0;
    for (int i = 2; i < 6; i++) {
        int h = tlm_hexval(s->p[i]);
        if (h < 0)
            return SC_BAD;
        v = v * 16 + (unsigned)h;
    }
    *c = v > 0 && v < 0x80 ? (unsigned char)v : 0xFF;
    s->p += 6;
    return SC_OK;
}

/* At '"': a key decoded into k (cap SNIFF_KEY_CAP; a longer key is cut
 * and marked so it matches nothing). */
static int read_key(scan *s, char *k)
{
    size_t n = 0;
    int over = 0;
    k[0] = 0;
    for (s->p++; s->p < s->e;) {
        unsigned char c = *s->p;
        if (c == '"') {
            s->p++;
            k[n] = 0;
            if (over)
                k[0] = '\x01';
            return SC_OK;
        }
        if (c == '\\') {
            int rc = key_escape(s, &c);
            if (rc != SC_OK) {
                k[0] = 0;
                return rc;
            }
        } else {
            s->p++;
        }
        if (n + 1 < SNIFF_KEY_CAP)
            k[n++] = (char)c;
        else
            over = 1;
    }
    k[0] = 0; /* cut by the head's end: no key yet */
    return SC_END;
}

/* One value, whatever it is: leaves s->p on the ',' '}' or ']' after it
 * (not consumed).  Lenient inside (the reader judges validity). */
static int skip_value(scan *s)
{
    int depth = 0;
    if (*s->p == '"')
        return skip_string(s);
    if (*s->p != '{' && *s->p != '[') { /* a number or a literal */
        while (s->p < s->e && !is_ws(*s->p) && *s->p != ',' &&
               *s->p != '}' && *s->p != ']')
            s->p++;
        return s->p < s->e ? SC_OK : SC_END;
    }
    while (s->p < s->e) {
        unsigned char c = *s->p;
        if (c == '"') {
            if (skip_string(s) != SC_OK)
                return SC_END;
            continue;
        }
        if (c == '{' || c == '[') {
            if (++depth > SNIFF_MAX_DEPTH)
                return SC_DEEP;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return SC_OK;
            depth--;
        } else if (c == ',' && depth == 0) {
            return SC_OK;
        }
        s->p++;
    }
    return SC_END;
}

/* Key, ':' and the first byte of the value. */
static int member_head(scan *s, char *key)
{
    key[0] = 0;
    if (*s->p != '"')
        return SC_BAD;
    int rc = read_key(s, key);
    if (rc == SC_OK)
        rc = skip_ws(s);
    if (rc != SC_OK)
        return rc;
    if (*s->p != ':')
        return SC_BAD;
    s->p++;
    return skip_ws(s);
}

/* After a member: ',' (consumed, *more = 1) or the closer (consumed). */
static int member_tail(scan *s, unsigned char closer, int *more)
{
    int rc = skip_ws(s);
    if (rc != SC_OK)
        return rc;
    if (*s->p != ',' && *s->p != closer)
        return SC_BAD;
    *more = *s->p == ',';
    s->p++;
    return SC_OK;
}

/* An integer value that ends inside the head; else skipped. */
static int read_int(scan *s, int64_t *v)
{
    const unsigned char *q = s->p;
    int neg = q < s->e && *q == '-';
    int64_t x = 0;
    size_t nd = 0;
    for (q += neg; q < s->e && *q >= '0' && *q <= '9'; q++, nd++)
        x = nd < 18 ? x * 10 + (*q - '0') : x;
    if (q == s->e)
        return SC_END; /* the number may go on past the head */
    if (nd == 0 || nd > 18 || *q == '.' || *q == 'e' || *q == 'E')
        return skip_value(s);
    *v = neg ? -x : x;
    s->p = q;
    return SC_OK;
}

/* At '{' of distributedInfo: picks rank and world_size. */
static int scan_dist(scan *s, tlm_sniff *out)
{
    char key[SNIFF_KEY_CAP];
    int more = 1, rc;
    s->p++;
    if ((rc = skip_ws(s)) != SC_OK)
        return rc;
    if (*s->p == '}') {
        s->p++;
        return SC_OK;
    }
    while (more) {
        if ((rc = skip_ws(s)) != SC_OK || (rc = member_head(s, key)) != SC_OK)
            return rc;
        if (strcmp(key, "rank") == 0)
            rc = read_int(s, &out->dist_rank);
        else if (strcmp(key, "world_size") == 0)
            rc = read_int(s, &out->dist_world);
        else
            rc = skip_value(s);
        if (rc != SC_OK || (rc = member_tail(s, '}', &more)) != SC_OK)
            return rc;
    }
    return SC_OK;
}

static int is_kineto_key(const char *k)
{
    static const char *const keys[] = {"schemaVersion", "deviceProperties",
                                       "distributedInfo", "traceName",
                                       "baseTimeNanoseconds"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

static void verdict(tlm_sniff *out, int v, const char *reason)
{
    out->verdict = v;
    out->format = v == TLM_SNIFF_TRACE ? TLM_FORMAT_KINETO_JSON
                                       : TLM_FORMAT_UNKNOWN;
    snprintf(out->reason, sizeof out->reason, "%s", reason);
}

/* The format's name in the table of formats (format.c). */
const char *tlm_sniff_format_name(int format)
{
    const tlm_format *f = tlm_format_get(format);
    return f ? f->name : "unknown";
}

/* The rocprofv3 tool's key: its value (an array of tool records, or one
 * record) decides; the reader judges the rest. */
static void rocprof_verdict(tlm_sniff *out, unsigned char first)
{
    if (first == '[' || first == '{') {
        verdict(out, TLM_SNIFF_TRACE, "");
        out->format = TLM_FORMAT_ROCPROF_JSON;
    } else {
        verdict(out, TLM_SNIFF_NOT_TRACE,
                "rocprofiler-sdk-tool is not an array or object");
    }
}

/* The top-level object, past its '{'.  SC_OK with a verdict set. */
static int scan_object(scan *s, tlm_sniff *out)
{
    char key[SNIFF_KEY_CAP];
    int more = 1, rc;
    if ((rc = skip_ws(s)) != SC_OK)
        return rc;
    if (*s->p == '}')
        more = 0;
    while (more) {
        key[0] = 0;
        if ((rc = skip_ws(s)) != SC_OK || (rc = member_head(s, key)) != SC_OK) {
            if (rc == SC_END && strcmp(key, "rocprofiler-sdk-tool") == 0) {
                rocprof_verdict(out, '['); /* cut right after the key */
                return SC_OK;
            }
            if (rc == SC_END) /* the key is in, its value is not */
                s->kineto |= strcmp(key, "traceEvents") == 0 ||
                             is_kineto_key(key);
            return rc;
        }
        if (strcmp(key, "rocprofiler-sdk-tool") == 0) {
            rocprof_verdict(out, *s->p);
            return SC_OK;
        }
        if (strcmp(key, "traceEvents") == 0) {
            if (*s->p == '[')
                verdict(out, TLM_SNIFF_TRACE, "");
            else
                verdict(out, TLM_SNIFF_NOT_TRACE,
                        "traceEvents is not an array");
            return SC_OK;
        }
        s->kineto |= is_kineto_key(key);
        if (strcmp(key, "distributedInfo") == 0 && *s->p == '{')
            rc = scan_dist(s, out);
        else
            rc = skip_value(s);
        if (rc != SC_OK || (rc = member_tail(s, '}', &more)) != SC_OK)
            return rc;
        if (more && skip_ws(s) == SC_OK && *s->p == '}')
            more = 0; /* a trailing comma: lenient */
    }
    verdict(out, TLM_SNIFF_NOT_TRACE, "JSON without traceEvents");
    return SC_OK;
}

/* A bare array, past its '['.  Its first element must be an event. */
static int scan_array(scan *s, tlm_sniff *out)
{
    char key[SNIFF_KEY_CAP];
    int more = 1, rc;
    if ((rc = skip_ws(s)) != SC_OK)
        return rc;
    if (*s->p == ']') {
        verdict(out, TLM_SNIFF_NOT_TRACE, "empty JSON array");
        return SC_OK;
    }
    if (*s->p != '{') {
        verdict(out, TLM_SNIFF_NOT_TRACE, "JSON array, not of trace events");
        return SC_OK;
    }
    s->p++;
    if ((rc = skip_ws(s)) != SC_OK)
        return rc;
    more = *s->p != '}';
    while (more) {
        key[0] = 0;
        if ((rc = skip_ws(s)) == SC_OK)
            rc = member_head(s, key);
        if (!strcmp(key, "ph") || !strcmp(key, "ts") || !strcmp(key, "name")) {
            verdict(out, TLM_SNIFF_TRACE, ""); /* value in or not */
            return SC_OK;
        }
        if (rc != SC_OK || (rc = skip_value(s)) != SC_OK ||
            (rc = member_tail(s, '}', &more)) != SC_OK)
            return rc;
    }
    verdict(out, TLM_SNIFF_NOT_TRACE, "JSON array, not of trace events");
    return SC_OK;
}

/* File kinds told by their first bytes; NULL when none. */
static const char *magic(const unsigned char *h, size_t n)
{
    if (n >= 4 && memcmp(h, "\x89HDF", 4) == 0)
        return "HDF5 file";
    if (n >= 4 && memcmp(h, "PK\3\4", 4) == 0)
        return "zip file";
    if (n >= 4 && memcmp(h, "\x7f" "ELF", 4) == 0)
        return "ELF file";
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
        return "gzip data";
    return NULL;
}

/* The head ran out (or was malformed) before a verdict. */
static void undecided(tlm_sniff *out, const scan *s, int rc, size_t n,
                      int complete, int array)
{
    if (rc == SC_DEEP) {
        verdict(out, TLM_SNIFF_NOT_TRACE, "JSON nested too deeply");
    } else if (rc == SC_BAD) {
        snprintf(out->reason, sizeof out->reason, "not JSON (offset %zu)",
                 (size_t)(s->p - s->h));
    } else if (s->kineto) {
        verdict(out, TLM_SNIFF_TRACE, ""); /* a head, or a cut trace */
    } else if (complete) {
        verdict(out, TLM_SNIFF_NOT_TRACE, array
                    ? "JSON array, not of trace events"
                    : "JSON without traceEvents");
    } else if (n % 1024 == 0) {
        snprintf(out->reason, sizeof out->reason,
                 "no traceEvents in the first %zu KiB", n / 1024);
    } else {
        snprintf(out->reason, sizeof out->reason,
                 "no traceEvents in the first %zu bytes", n);
    }
}

void tlm_trace_sniff_mem(const char *head, size_t n, int complete,
                         tlm_sniff *out)
{
    const unsigned char *h = (const unsigned char *)head;
    scan s = {h, h + n, h, 0};
    out->verdict = TLM_SNIFF_NOT_TRACE;
    out->format = TLM_FORMAT_UNKNOWN;
    out->dist_rank = out->dist_world = -1;
    out->reason[0] = 0;
    static const char gen[] = /* tlmpi's merged trace (phase_timeline.c) */
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tlmpi ";
    out->by_tlmpi = n >= sizeof gen - 1 && memcmp(h, gen, sizeof gen - 1) == 0;
    const char *m = magic(h, n);
    if (n == 0 || m) {
        verdict(out, TLM_SNIFF_NOT_TRACE, m ? m : "empty file");
        return;
    }
    if (tlm_xplane_sniff(h, n, complete)) { /* binary: never JSON */
        verdict(out, TLM_SNIFF_TRACE, "");
        out->format = TLM_FORMAT_XPLANE;
        return;
    }
    if (n >= 3 && memcmp(h, "\xEF\xBB\xBF", 3) == 0)
        s.p += 3;
    int rc = skip_ws(&s), array = 0;
    if (rc == SC_OK && *s.p != '{' && *s.p != '[') {
        verdict(out, TLM_SNIFF_NOT_TRACE, "not JSON");
        return;
    }
    if (rc == SC_OK) {
        array = *s.p == '[';
        s.p++;
        rc = array ? scan_array(&s, out) : scan_object(&s, out);
    } else if (complete) {
        verdict(out, TLM_SNIFF_NOT_TRACE, "not JSON (only whitespace)");
        return;
    }
    if (rc != SC_OK) {
        verdict(out, TLM_SNIFF_NOT_TRACE, "");
        undecided(out, &s, rc, n, complete, array);
    }
}

/* ------------------------------------------------------------------ *
 * MARK: - the file
 * ------------------------------------------------------------------ */

/* Reads up to cap bytes (short only at the end of the file). */
static int read_full(int fd, unsigned char *buf, size_t cap, size_t *got)
{
    *got = 0;
    while (*got < cap) {
        ssize_t r = read(fd, buf + *got, cap - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return 0;
}

/* Inflates the gzip file into out (at most cap bytes, at most 4 x cap
 * compressed bytes read; in holds the first *n_in bytes already read).
 * Returns 0, or -1 with the reason in sn (corrupt data, read error). */
static int inflate_head(int fd, unsigned char *in, size_t n_in, size_t cap,
                        unsigned char *out, size_t *n_out, int *complete,
                        tlm_sniff *sn)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        verdict(sn, TLM_SNIFF_UNREADABLE, "zlib cannot start");
        return -1;
    }
    size_t total_in = n_in;
    int eof = n_in < cap, rc = Z_OK, ret = 0;
    z.next_in = in;
    z.avail_in = (uInt)n_in;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    while (z.avail_out > 0) {
        if (z.avail_in == 0) {
            if (eof || total_in >= 4 * cap)
                break;
            if (read_full(fd, in, cap, &n_in) != 0) {
                verdict(sn, TLM_SNIFF_UNREADABLE, strerror(errno));
                ret = -1;
                break;
            }
            eof = n_in < cap;
            total_in += n_in;
            z.next_in = in;
            z.avail_in = (uInt)n_in;
            if (n_in == 0)
                break;
        }
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END && z.avail_in == 0 && eof)
            break;
        if (rc == Z_STREAM_END) {
            rc = inflateReset(&z); /* members are concatenated */
            if (z.avail_in && z.next_in[0] != 0x1f)
                break; /* trailing bytes: the reader names them */
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(sn->reason, sizeof sn->reason, "corrupt gzip data (%s)",
                     z.msg ? z.msg : "zlib error");
            ret = -1;
            break;
        }
    }
    *n_out = cap - z.avail_out;
    *complete = rc == Z_STREAM_END && z.avail_in == 0 && eof;
    inflateEnd(&z);
    return ret;
}

static void sniff_fd(int fd, size_t cap, unsigned char *in,
                     unsigned char *out, tlm_sniff *sn)
{
    size_t got = 0, n_out = 0;
    int complete = 0;
    if (read_full(fd, in, cap, &got) != 0) {
        verdict(sn, TLM_SNIFF_UNREADABLE, strerror(errno));
        return;
    }
    if (got < 2 || in[0] != 0x1f || in[1] != 0x8b) {
        int64_t size = sn->size;
        tlm_trace_sniff_mem((const char *)in, got,
                            got < cap || (int64_t)got >= size, sn);
        return;
    }
    sn->gzip = 1;
    if (inflate_head(fd, in, got, cap, out, &n_out, &complete, sn) != 0)
        return;
    tlm_trace_sniff_mem((const char *)out, n_out, complete, sn);
    if (n_out == 0 && complete)
        verdict(sn, TLM_SNIFF_NOT_TRACE, "empty gzip file");
}

tlm_status tlm_trace_sniff(const char *path, size_t head_cap, tlm_sniff *out)
{
    struct stat sb;
    memset(out, 0, sizeof *out);
    out->dist_rank = out->dist_world = -1;
    if (head_cap == 0)
        head_cap = TLM_SNIFF_HEAD_DEFAULT;
    int fd;
    tlm_error oe;
    tlm_error_clear(&oe);
    tlm_status ost = tlm_open_input(path, &fd, &oe); /* the one check */
    if (ost == TLM_EINVAL) {
        verdict(out, TLM_SNIFF_NOT_TRACE, strstr(oe.msg, "directory")
                                              ? "a folder"
                                              : "not a regular file");
        return TLM_OK;
    }
    if (ost != TLM_OK || fstat(fd, &sb) != 0) {
        const char *m = strstr(oe.msg, "cannot open: ");
        m = ost != TLM_OK ? (m ? m + 13 : oe.msg) : strerror(errno);
        char why[sizeof out->reason];
        size_t k = strlen(m) < sizeof why ? strlen(m) : sizeof why - 1;
        memcpy(why, m, k);
        why[k] = '\0';
        verdict(out, TLM_SNIFF_UNREADABLE, why);
        if (fd >= 0)
            close(fd);
        return TLM_OK;
    }
    out->size = (int64_t)sb.st_size;
    out->dev = (uint64_t)sb.st_dev;
    out->ino = (uint64_t)sb.st_ino;
    unsigned char *in = malloc(head_cap), *inf = malloc(head_cap);
    tlm_status st = TLM_OK;
    if (!in || !inf) {
        verdict(out, TLM_SNIFF_UNREADABLE, "out of memory");
        st = TLM_ENOMEM;
    } else {
        sniff_fd(fd, head_cap, in, inf, out);
    }
    free(in);
    free(inf);
    close(fd);
    return st;
}
