/*
 * fuzz_gzip.c - libFuzzer target for the gzip path of the trace reader.
 *
 * Input: one mode byte, then the payload.
 *   mode % 4 == 0: the payload is fed as it is (seeds are gzip files, so the
 *                  fuzzer mutates gzip headers, deflate blocks, trailers and
 *                  member boundaries); read with a chunk size from the mode
 *                  byte.  Only memory safety is checked.
 *   mode % 4 == 1: the payload is gzipped here and cut short by an amount
 *                  taken from the mode byte: the read must fail (a
 *                  truncated stream is never a trace).
 *   mode % 4 == 2: the payload is gzipped in two members split at a point
 *                  from the mode byte: the read must agree exactly with
 *                  the read of the plain payload (status, error offset in
 *                  the decompressed stream, event count, strings).
 *   mode % 4 == 3: the payload is gzipped and one trailer byte (CRC or
 *                  ISIZE) is flipped: the read must fail.
 * A broken expectation calls abort().
 */
#include "tlmpi/tlm_trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_gzip: broken expectation: %s\n", what);
        abort();
    }
}

/* Appends one gzip member of d[0..n) to buf (capacity checked). */
static size_t gz_member(unsigned char *buf, size_t cap, const uint8_t *d,
                        size_t n, int level)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        abort();
    zs.next_in = (Bytef *)(uintptr_t)d;
    zs.avail_in = (uInt)n;
    zs.next_out = buf;
    zs.avail_out = (uInt)cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        abort();
    size_t out = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}

static tlm_status rd(const void *d, size_t n, size_t chunk, tlm_trace **t,
                     tlm_error *err)
{
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.chunk_size = chunk;
    o.max_depth = 16;
    o.max_string = 1024;
    o.max_event_bytes = 1u << 16;
    return tlm_trace_read_mem(d, n, "fuzz.gz", &o, t, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    tlm_trace *t = NULL, *u = NULL;
    tlm_error err, err2;
    size_t chunk = 1 + (size_t)(mode >> 2) * 3; /* 1 .. 190 */

    if (mode % 4 == 0) {
        tlm_status st = rd(p, n, chunk, &t, &err);
        check((st == TLM_OK) == (t != NULL), "trace iff OK");
        check(st == err.code, "error code");
        tlm_trace_free(t);
        return 0;
    }

    size_t cap = 2 * (n + 64) + 256;
    unsigned char *gz = malloc(cap);
    if (!gz)
        return 0;
    size_t glen;
    if (mode % 4 == 2) {
        size_t cut = n ? (size_t)(mode >> 2) * n / 64 : 0;
        glen = gz_member(gz, cap, p, cut, 1);
        glen += gz_member(gz + glen, cap - glen, p + cut, n - cut, 9);
        tlm_status sg = rd(gz, glen, chunk, &t, &err);
        tlm_status sp = rd(p, n, 0, &u, &err2);
        /* plain input starting with the gzip magic is not plain */
        if (!(n >= 2 && p[0] == 0x1f && p[1] == 0x8b)) {
            check(sg == sp, "two members vs plain: status");
            if (sg != TLM_OK) {
                check(err.offset == err2.offset, "error offset");
            } else {
                check(tlm_trace_stats(t)->n_events ==
                          tlm_trace_stats(u)->n_events,
                      "event count");
                check(tlm_trace_str_count(t) == tlm_trace_str_count(u),
                      "string count");
                check(tlm_trace_stats(t)->gzip_members == 2, "2 members");
                check(tlm_trace_stats(t)->bytes_json == n, "bytes of JSON");
            }
        }
    } else {
        glen = gz_member(gz, cap, p, n, 6);
        if (mode % 4 == 1) {
            size_t cut = 1 + (size_t)(mode >> 2) % glen;
            glen -= cut; /* 1 .. glen bytes removed */
        } else {
            gz[glen - 1 - (mode >> 2) % 8] ^= 0x5a; /* CRC32 or ISIZE */
        }
        tlm_status sg = rd(gz, glen, chunk, &t, &err);
        check(sg != TLM_OK && t == NULL, "damaged gzip read as a trace");
    }
    tlm_trace_free(t);
    tlm_trace_free(u);
    free(gz);
    return 0;
}
