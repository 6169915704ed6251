/*
 * test_instream.c - the byte stream under the tokenizer (src/trace/instream.c):
 * plain and gzip input from memory and from files, recognised by the magic
 * bytes; chunk sizes 1, 3, 7, 4096 and odd read capacities; multi-member
 * gzip (gzip(1) concatenation, empty members); truncated streams, bad CRC
 * and ISIZE, trailing garbage; byte counters; the ISA-L path (its CRC-32
 * and ISIZE checks, zlib's messages when it refuses).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlm_test_util.h"
#include "trace_internal.h"

/* Reads a whole stream with read capacity cap; returns the bytes (caller
 * frees) and the final status. */
static unsigned char *drain(tlm_instream *s, size_t cap, size_t *len,
                            tlm_status *st, tlm_error *err)
{
    size_t n = 0, bcap = 1024;
    unsigned char *out = malloc(bcap);
    unsigned char *tmp = malloc(cap);
    assert_non_null(out);
    assert_non_null(tmp);
    *st = TLM_OK;
    for (;;) {
        size_t got = 12345;
        *st = tlm_instream_read(s, tmp, cap, &got, err);
        if (*st != TLM_OK)
            break;
        assert_true(got <= cap);
        assert_true(got <= s->chunk); /* one step at a time */
        if (got == 0)
            break;
        if (n + got > bcap) {
            while (n + got > bcap)
                bcap *= 2;
            out = realloc(out, bcap);
            assert_non_null(out);
        }
        memcpy(out + n, tmp, got);
        n += got;
    }
    free(tmp);
    *len = n;
    return out;
}

static unsigned char *payload(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    assert_non_null(p);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        /* compressible but not trivial */
        p[i] = (unsigned char)(i % 61 < 40 ? 'a' + (i % 26) : (x >> 24));
    }
    return p;
}

static const size_t chunks[] = {1, 2, 3, 7, 64, 4096, 1u << 20};
static const size_t caps[] = {1, 5, 64, 4096, 100000};

static void check_stream(const unsigned char *src, size_t slen,
                         const unsigned char *want, size_t wlen, int gzip,
                         uint32_t members)
{
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
            tlm_instream s;
            tlm_error err;
            assert_int_equal(tlm_instream_open_mem(&s, src, slen, "m",
                                                   chunks[c],
                                                   tlm_alloc_default(),
                                                   &err),
                             TLM_OK);
            size_t n;
            tlm_status st;
            unsigned char *got = drain(&s, caps[k], &n, &st, &err);
            if (st != TLM_OK)
                fprintf(stderr, "chunk %zu cap %zu: %s\n", chunks[c],
                        caps[k], err.msg);
            assert_int_equal(st, TLM_OK);
            assert_int_equal(n, wlen);
            assert_memory_equal(got, want, wlen);
            assert_int_equal(s.gzip, gzip);
            assert_true(s.bytes_out == wlen);
            assert_true(s.bytes_in == slen);
            if (gzip)
                assert_int_equal(s.members, members);
            /* reading past the end keeps returning 0 bytes */
            unsigned char b[4];
            size_t g = 9;
            assert_int_equal(tlm_instream_read(&s, b, sizeof b, &g, &err),
                             TLM_OK);
            assert_int_equal(g, 0);
            tlm_instream_close(&s);
            free(got);
        }
    }
}

static void test_plain(void **state)
{
    (void)state;
    unsigned char *p = payload(10000);
    check_stream(p, 10000, p, 10000, 0, 0);
    check_stream(p, 1, p, 1, 0, 0);
    check_stream(p, 2, p, 2, 0, 0);
    check_stream(p, 0, p, 0, 0, 0);
    /* 0x1f alone, or 0x1f then not 0x8b: plain */
    static const unsigned char odd[] = {0x1f, 0x8c, 'x'};
    check_stream(odd, 1, odd, 1, 0, 0);
    check_stream(odd, 3, odd, 3, 0, 0);
    free(p);
    /* a NULL buffer is an empty one */
    tlm_instream s;
    tlm_error err;
    assert_int_equal(tlm_instream_open_mem(&s, NULL, 99, NULL, 0,
                                           tlm_alloc_default(), &err),
                     TLM_OK);
    size_t n;
    tlm_status st;
    unsigned char *got = drain(&s, 16, &n, &st, &err);
    assert_int_equal(st, TLM_OK);
    assert_int_equal(n, 0);
    free(got);
    tlm_instream_close(&s);
}

static void test_gzip_single(void **state)
{
    (void)state;
    unsigned char *p = payload(100000);
    size_t glen;
    unsigned char *gz = tt_gzip(p, 100000, &glen);
    check_stream(gz, glen, p, 100000, 1, 1);
    free(gz);
    gz = tt_gzip(p, 1, &glen);
    check_stream(gz, glen, p, 1, 1, 1);
    free(gz);
    /* an empty member is a valid, empty stream */
    gz = tt_gzip(p, 0, &glen);
    check_stream(gz, glen, p, 0, 1, 1);
    free(gz);
    free(p);
}

static void test_gzip_members(void **state)
{
    (void)state;
    size_t n = 50000;
    unsigned char *p = payload(n);
    size_t cuts[] = {0, 1, 1, 4999, 5000, 25000, 49999};
    size_t glen;
    unsigned char *gz = tt_gzip_members(p, n, cuts, 7, &glen);
    check_stream(gz, glen, p, n, 1, 8);
    free(gz);
    /* a member that ends exactly at a chunk boundary */
    size_t one[] = {4096};
    gz = tt_gzip_members(p, n, one, 1, &glen);
    check_stream(gz, glen, p, n, 1, 2);
    free(gz);
    /* many tiny members */
    size_t many[200];
    for (size_t i = 0; i < 200; i++)
        many[i] = i * 7;
    gz = tt_gzip_members(p, 2000, many, 200, &glen);
    check_stream(gz, glen, p, 2000, 1, 201);
    free(gz);
    free(p);
}

/* Every truncation fails with TLM_EGZIP, whatever the chunking, and no
 * byte beyond what the truncated stream holds is produced. */
static void test_gzip_truncated(void **state)
{
    (void)state;
    size_t n = 3000;
    unsigned char *p = payload(n);
    size_t cuts[] = {1000};
    size_t glen;
    unsigned char *gz = tt_gzip_members(p, n, cuts, 1, &glen);
    /* cutting exactly between the members leaves a valid stream */
    size_t first_len;
    free(tt_gzip_members(p, 1000, NULL, 0, &first_len));
    for (size_t cut = 2; cut < glen; cut++) {
        tlm_instream s;
        tlm_error err;
        for (size_t c = 0; c < 3; c++) {
            size_t chunk = c == 0 ? 1 : c == 1 ? 7 : 4096;
            assert_int_equal(tlm_instream_open_mem(&s, gz, cut, "t.gz", chunk,
                                                   tlm_alloc_default(),
                                                   &err),
                             TLM_OK);
            size_t got_n;
            tlm_status st;
            unsigned char *got = drain(&s, 333, &got_n, &st, &err);
            if (cut == first_len) {
                assert_int_equal(st, TLM_OK);
                assert_int_equal(got_n, 1000);
            } else {
                assert_int_equal(st, TLM_EGZIP);
                assert_int_equal(err.code, TLM_EGZIP);
                assert_string_equal(err.file, "t.gz");
                assert_true(err.offset == (int64_t)got_n);
                assert_true(got_n <= n);
            }
            assert_memory_equal(got, p, got_n);
            tlm_instream_close(&s);
            free(got);
        }
    }
    free(gz);
    free(p);
}

static void test_gzip_corrupt(void **state)
{
    (void)state;
    size_t n = 2000;
    unsigned char *p = payload(n);
    size_t glen;
    unsigned char *gz = tt_gzip(p, n, &glen);
    /* flip each trailer byte: CRC32 (first 4) then ISIZE (last 4) */
    for (size_t i = 0; i < 8; i++) {
        unsigned char *bad = malloc(glen);
        assert_non_null(bad);
        memcpy(bad, gz, glen);
        bad[glen - 8 + i] ^= 0x80;
        tlm_instream s;
        tlm_error err;
        assert_int_equal(tlm_instream_open_mem(&s, bad, glen, "c.gz", 3,
                                               tlm_alloc_default(), &err),
                         TLM_OK);
        size_t got_n;
        tlm_status st;
        unsigned char *got = drain(&s, 100, &got_n, &st, &err);
        assert_int_equal(st, TLM_EGZIP);
        assert_non_null(strstr(err.msg, i < 4 ? "incorrect data check"
                                              : "incorrect length check"));
        assert_int_equal(got_n, n); /* all data came out before the check */
        tlm_instream_close(&s);
        free(got);
        free(bad);
    }
    /* header damage: bad method byte */
    unsigned char *bad = malloc(glen);
    assert_non_null(bad);
    memcpy(bad, gz, glen);
    bad[2] = 7;
    tlm_instream s;
    tlm_error err;
    assert_int_equal(tlm_instream_open_mem(&s, bad, glen, "c.gz", 4096,
                                           tlm_alloc_default(), &err),
                     TLM_OK);
    size_t got_n;
    tlm_status st;
    unsigned char *got = drain(&s, 100, &got_n, &st, &err);
    assert_int_equal(st, TLM_EGZIP);
    assert_int_equal(got_n, 0);
    tlm_instream_close(&s);
    free(got);
    free(bad);
    /* trailing bytes after a complete member */
    bad = malloc(glen + 2);
    assert_non_null(bad);
    memcpy(bad, gz, glen);
    bad[glen] = '\n';
    bad[glen + 1] = 0;
    assert_int_equal(tlm_instream_open_mem(&s, bad, glen + 2, "c.gz", 7,
                                           tlm_alloc_default(), &err),
                     TLM_OK);
    got = drain(&s, 100, &got_n, &st, &err);
    assert_int_equal(st, TLM_EGZIP);
    assert_non_null(strstr(err.msg, "trailing garbage"));
    assert_int_equal(got_n, n);
    tlm_instream_close(&s);
    free(got);
    free(bad);
    free(gz);
    free(p);
}

static void test_files(void **state)
{
    (void)state;
    char dir[256], plain[300], gzp[300];
    tt_tmpdir(dir, sizeof dir);
    snprintf(plain, sizeof plain, "%s/a.json", dir);
    snprintf(gzp, sizeof gzp, "%s/a.json.gz", dir);
    size_t n = 70000, glen;
    unsigned char *p = payload(n);
    size_t cuts[] = {30000};
    unsigned char *gz = tt_gzip_members(p, n, cuts, 1, &glen);
    tt_write_file(plain, p, n);
    tt_write_file(gzp, gz, glen);
    for (int g = 0; g <= 1; g++) {
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c += 2) {
            tlm_instream s;
            tlm_error err;
            assert_int_equal(tlm_instream_open_file(&s, g ? gzp : plain,
                                                    chunks[c],
                                                    tlm_alloc_default(),
                                                    &err),
                             TLM_OK);
            size_t got_n;
            tlm_status st;
            unsigned char *got = drain(&s, 777, &got_n, &st, &err);
            assert_int_equal(st, TLM_OK);
            assert_int_equal(got_n, n);
            assert_memory_equal(got, p, n);
            assert_true(s.bytes_in == (g ? glen : n));
            assert_int_equal(s.gzip, g);
            tlm_instream_close(&s);
            free(got);
        }
    }
    /* a missing file */
    tlm_instream s;
    tlm_error err;
    char missing[320];
    snprintf(missing, sizeof missing, "%s/nope.json", dir);
    assert_int_equal(tlm_instream_open_file(&s, missing, 0,
                                            tlm_alloc_default(), &err),
                     TLM_EIO);
    assert_string_equal(err.file, missing);
    tlm_instream_close(&s);
    /* a folder: refused by the open (tlm_open_input), never read */
    tlm_status st = tlm_instream_open_file(&s, dir, 16, tlm_alloc_default(),
                                           &err);
    assert_int_equal(st, TLM_EINVAL);
    assert_non_null(strstr(err.msg, "Is a directory"));
    tlm_instream_close(&s);
    remove(plain);
    remove(gzp);
    rmdir(dir);
    free(gz);
    free(p);
}

/* A trace swapped for a FIFO after it was found (issue 33, case 6): the
 * open refuses it at once instead of waiting for a writer; so does the
 * stream form and the plain descriptor form of the one input check. */
static void test_fifo_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/tlm_fifoXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/t.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    tlm_instream s;
    tlm_error err;
    tlm_error_clear(&err);
    assert_int_equal(tlm_instream_open_file(&s, path, 4096, NULL, &err),
                     TLM_EINVAL);
    assert_non_null(strstr(err.msg, "not a regular file (a FIFO)"));
    int fd = 0;
    assert_int_equal(tlm_open_input(path, &fd, &err), TLM_EINVAL);
    assert_int_equal(fd, -1);
    FILE *f = (FILE *)1;
    assert_int_equal(tlm_fopen_input(dir, &f, &err), TLM_EINVAL);
    assert_null(f);
    assert_non_null(strstr(err.msg, "Is a directory"));
    assert_int_equal(tlm_fopen_input(path, &f, NULL), TLM_EINVAL);
    unlink(path);
    rmdir(dir);
}

/* Built with libdeflate: a single-member gzip input (memory or file) is
 * inflated whole at open (no zlib stream), the same bytes come out; a
 * multi-member one, or one libdeflate refuses, is read again with zlib
 * from its start (messages and offsets: test_gzip_corrupt/truncated). */
static void test_whole_inflate(void **state)
{
    (void)state;
#ifndef TLM_HAVE_LIBDEFLATE
    skip();
#else
    size_t n = 50000, glen, mlen;
    unsigned char *p = payload(n);
    unsigned char *gz = tt_gzip(p, n, &glen);
    size_t cuts[] = {20000};
    unsigned char *mgz = tt_gzip_members(p, n, cuts, 1, &mlen);
    char dir[256], one[300], two[300];
    tt_tmpdir(dir, sizeof dir);
    snprintf(one, sizeof one, "%s/one.json.gz", dir);
    snprintf(two, sizeof two, "%s/two.json.gz", dir);
    tt_write_file(one, gz, glen);
    tt_write_file(two, mgz, mlen);
    for (int k = 0; k < 4; k++) {
        tlm_instream s;
        tlm_error err;
        tlm_status st =
            k < 2 ? tlm_instream_open_mem(&s, k ? mgz : gz, k ? mlen : glen,
                                          "m", 4096, tlm_alloc_default(),
                                          &err)
                  : tlm_instream_open_file(&s, k == 3 ? two : one, 4096,
                                           tlm_alloc_default(), &err);
        assert_int_equal(st, TLM_OK);
        int multi = k == 1 || k == 3;
        /* whole: no zlib (or ISA-L) stream, the inflated bytes held */
        assert_int_equal(s.zinit || s.isal != NULL, multi);
        assert_true((s.whole != NULL) == !multi);
        tlm_instream_start_thread(&s); /* a no-op when inflated whole */
        assert_true((s.zt == NULL) == !multi);
        size_t got_n;
        unsigned char *got = drain(&s, 1000, &got_n, &st, &err);
        assert_int_equal(st, TLM_OK);
        assert_int_equal(got_n, n);
        assert_memory_equal(got, p, n);
        assert_true(s.bytes_in == (multi ? mlen : glen));
        assert_true(s.bytes_out == n);
        assert_int_equal(s.members, multi ? 2 : 1);
        assert_null(s.whole); /* freed once handed out */
        tlm_instream_close(&s);
        free(got);
    }
    remove(one);
    remove(two);
    rmdir(dir);
    free(mgz);
    free(gz);
    free(p);
#endif
}

#ifdef TLM_HAVE_ISAL
/* Reads gz[0..len) (a file when path is set) with ISA-L from the start;
 * returns the bytes handed out and the status. */
static unsigned char *isal_drain(const unsigned char *gz, size_t len,
                                 const char *path, size_t chunk,
                                 tlm_instream *s, size_t *got_n,
                                 tlm_status *st, tlm_error *err)
{
    if (path)
        assert_int_equal(tlm_instream_open_file(s, path, chunk,
                                                tlm_alloc_default(), err),
                         TLM_OK);
    else
        assert_int_equal(tlm_instream_open_mem(s, gz, len, "i.gz", chunk,
                                               tlm_alloc_default(), err),
                         TLM_OK);
    assert_non_null(s->isal); /* libdeflate does not take several members */
    if (chunk >= 65536) /* as the reader does */
        tlm_instream_start_thread(s);
    return drain(s, 100000, got_n, st, err);
}
#endif

/* ISA-L streaming (TLM_HAVE_ISAL): a two-member input is inflated by ISA-L
 * to its end, from memory and from a file, with and without the inflating
 * thread; a CRC-32 or ISIZE flipped in either member is refused by ISA-L's
 * own check and then reported by zlib, with zlib's message and offset; so
 * is a header flag that zlib refuses and ISA-L would not. */
static void test_isal(void **state)
{
    (void)state;
#ifndef TLM_HAVE_ISAL
    skip();
#else
    size_t n = 700000, mlen, first_len, got_n;
    unsigned char *p = payload(n);
    size_t cuts[] = {300000};
    unsigned char *mgz = tt_gzip_members(p, n, cuts, 1, &mlen);
    free(tt_gzip_members(p, 300000, NULL, 0, &first_len));
    char dir[256], two[300];
    tt_tmpdir(dir, sizeof dir);
    snprintf(two, sizeof two, "%s/two.json.gz", dir);
    tt_write_file(two, mgz, mlen);
    tlm_instream s;
    tlm_error err;
    tlm_status st;
    for (int k = 0; k < 4; k++) {
        unsigned char *got =
            isal_drain(mgz, mlen, k & 1 ? two : NULL,
                       k & 2 ? (size_t)1 << 20 : 4096, &s, &got_n, &st, &err);
        assert_int_equal(st, TLM_OK);
        assert_int_equal(got_n, n);
        assert_memory_equal(got, p, n);
        assert_int_equal(s.zinit, 0); /* ISA-L to the end */
        assert_true((s.zt != NULL) == ((k & 2) != 0));
        assert_int_equal(s.members, 2);
        assert_true(s.bytes_in == mlen && s.bytes_out == n);
        tlm_instream_close(&s);
        free(got);
    }
    unsigned char *bad = malloc(mlen);
    assert_non_null(bad);
    /* trailer bytes: CRC-32 (0..3) and ISIZE (4..7) of either member */
    for (int m = 0; m < 2; m++) {
        for (size_t i = 0; i < 8; i++) {
            memcpy(bad, mgz, mlen);
            bad[(m ? mlen : first_len) - 8 + i] ^= 0x04;
            unsigned char *got =
                isal_drain(bad, mlen, NULL, i & 1 ? 7 : (size_t)1 << 20, &s,
                           &got_n, &st, &err);
            assert_int_equal(st, TLM_EGZIP);
            assert_non_null(strstr(err.msg, i < 4 ? "incorrect data check"
                                                  : "incorrect length check"));
            assert_non_null(strstr(err.msg, m ? "member 2" : "member 1"));
            assert_true(err.offset == (int64_t)(m ? n : 300000));
            /* (bytes read with the error are not drained: the thread's
             * last block, or zlib's last step) */
            size_t want = m ? n : 300000;
            assert_true(got_n <= want && (!(i & 1) || got_n + 7 >= want));
            assert_memory_equal(got, p, got_n);
            assert_null(s.isal); /* refused: zlib read it again */
            assert_int_equal(s.zinit, 1);
            tlm_instream_close(&s);
            free(got);
        }
    }
    /* a reserved FLG bit in the second member's header: zlib's refusal */
    memcpy(bad, mgz, mlen);
    bad[first_len + 3] |= 0x20;
    unsigned char *got =
        isal_drain(bad, mlen, NULL, 4096, &s, &got_n, &st, &err);
    assert_int_equal(st, TLM_EGZIP);
    assert_non_null(strstr(err.msg, "unknown header flags set"));
    assert_true(err.offset == 300000 && got_n == 300000);
    tlm_instream_close(&s);
    free(got);
    free(bad);
    remove(two);
    rmdir(dir);
    free(mgz);
    free(p);
#endif
}

static void test_open_nomem(void **state)
{
    (void)state;
    tt_fail_alloc fa;
    tt_fail_alloc_init(&fa, 1, 1);
    tlm_instream s;
    tlm_error err;
    assert_int_equal(tlm_instream_open_mem(&s, "abc", 3, "m", 8, &fa.a,
                                           &err),
                     TLM_ENOMEM);
    tlm_instream_close(&s);
    assert_int_equal(fa.live, 0);
}

/* Lent blocks (tlm_instream_view): with the thread, the views of a
 * two-member gzip input and of a plain file give the same bytes as
 * tlm_instream_read, each at most one block; a read after a view goes on
 * where the view ended; without the thread nothing is lent (TLM_EINVAL).
 * A corrupt member's error comes with its last view. */
static void test_views(void **state)
{
    (void)state;
    size_t n = 700000, glen;
    unsigned char *p = payload(n);
    size_t cuts[1] = {n / 2};
    unsigned char *gz = tt_gzip_members(p, n, cuts, 1, &glen);
    for (int k = 0; k < 2; k++) {
        tlm_instream s;
        tlm_error err;
        assert_int_equal(tlm_instream_open_mem(&s, k ? p : gz, k ? n : glen,
                                               "v", 65536,
                                               tlm_alloc_default(), &err),
                         TLM_OK);
        unsigned char *v;
        size_t vn, got = 0;
        if (k) { /* a plain buffer: no thread, nothing lent */
            assert_int_equal(tlm_instream_view_size(&s), 0);
            assert_int_equal(tlm_instream_view(&s, &v, &vn, &err),
                             TLM_EINVAL);
            tlm_instream_close(&s);
            continue;
        }
        tlm_instream_start_thread(&s);
        assert_int_equal(tlm_instream_view_size(&s), 65536);
        unsigned char *out = malloc(n);
        assert_non_null(out);
        for (int i = 0; i < 3; i++) { /* three views, then reads */
            assert_int_equal(tlm_instream_view(&s, &v, &vn, &err), TLM_OK);
            assert_true(vn > 0 && vn <= 65536);
            memcpy(out + got, v, vn);
            got += vn;
        }
        size_t rest;
        tlm_status st;
        unsigned char *r = drain(&s, 1000, &rest, &st, &err);
        assert_int_equal(st, TLM_OK);
        assert_int_equal(got + rest, n);
        memcpy(out + got, r, rest);
        assert_memory_equal(out, p, n);
        assert_int_equal(tlm_instream_view(&s, &v, &vn, &err), TLM_OK);
        assert_int_equal(vn, 0);
        free(r);
        free(out);
        tlm_instream_close(&s);
    }
    /* a flipped byte in the second member's deflate data: the error with
     * the last view, then the end */
    gz[glen - 100] ^= 0x55;
    tlm_instream s;
    tlm_error err;
    assert_int_equal(tlm_instream_open_mem(&s, gz, glen, "v", 65536,
                                           tlm_alloc_default(), &err),
                     TLM_OK);
    tlm_instream_start_thread(&s);
    unsigned char *v;
    size_t vn, total = 0;
    tlm_status st;
    while ((st = tlm_instream_view(&s, &v, &vn, &err)) == TLM_OK && vn)
        total += vn;
    assert_int_not_equal(st, TLM_OK);
    assert_true(total < n);
    assert_int_equal(tlm_instream_view(&s, &v, &vn, &err), TLM_OK);
    assert_int_equal(vn, 0);
    tlm_instream_close(&s);
    free(gz);
    free(p);
}

/* A plain file read beside a second parser (tlm_instream_lazy_plan):
 * blocks j % 3 != 0 are left to the caller, read only when a view
 * reaches them (16 KiB first, then the rest), passed unread by
 * tlm_instream_view_pass; what is lent is the file's bytes at their
 * offsets.  A file cut short under such a block: TLM_EIO at the offset
 * where its bytes end. */
#define LZ_B ((size_t)65536)
static void lazy_open(tlm_instream *s, const char *path, size_t n)
{
    tlm_error err;
    assert_int_equal(tlm_instream_open_file(s, path, LZ_B,
                                            tlm_alloc_default(), &err),
                     TLM_OK);
    tlm_instream_start_thread(s);
    assert_int_equal(tlm_instream_view_size(s), LZ_B);
    tlm_instream_lazy_plan(s, 3, n);
}

static void test_lazy_views(void **state)
{
    (void)state;
    size_t n = ((size_t)17 << 20) + 12345; /* a thread from 16 MiB */
    unsigned char *p = payload(n);
    char dir[256], path[300];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/plain.json", dir);
    tt_write_file(path, p, n);
    tlm_instream s;
    tlm_error err;
    lazy_open(&s, path, n);
    uint64_t off = 0;
    size_t passed_bytes = 0, heads = 0, vn, k;
    unsigned char *v;
    for (;;) {
        uint64_t j = off / LZ_B;
        /* pass every helper block of every other unit (when whole) */
        if (j % 3 == 1 && j % 2 == 0 && off % LZ_B == 0 &&
            tlm_instream_view_pass(&s, 2 * LZ_B, &k)) {
            assert_int_equal(k, LZ_B);
            off += k;
            passed_bytes += k;
            continue;
        }
        assert_int_equal(tlm_instream_view(&s, &v, &vn, &err), TLM_OK);
        if (vn == 0)
            break;
        if (j >= 5 && j % 3 != 0 && off % LZ_B == 0 && off + LZ_B <= n) {
            assert_int_equal(vn, TLM_INSTREAM_LAZY_HEAD); /* lazy */
            heads++;
        }
        assert_memory_equal(v, p + off, vn);
        off += vn;
        /* a lazy block's rest passed after its first 16 KiB */
        if (j % 3 == 2 && j % 5 == 0 && off % LZ_B == TLM_INSTREAM_LAZY_HEAD &&
            tlm_instream_view_pass(&s, LZ_B, &k)) {
            assert_int_equal(k, LZ_B - TLM_INSTREAM_LAZY_HEAD);
            off += k;
            passed_bytes += k;
        }
    }
    assert_int_equal(off, n);
    assert_true(passed_bytes > 0 && heads > 100);
    assert_int_equal(s.bytes_out, n);
    tlm_instream_close(&s);

    /* cut short to 40 blocks and 100 bytes once 10 blocks are read:
     * block 40 (left to the caller) ends early */
    lazy_open(&s, path, n);
    off = 0;
    tlm_status st = TLM_OK;
    while ((st = tlm_instream_view(&s, &v, &vn, &err)) == TLM_OK && vn) {
        assert_memory_equal(v, p + off, vn);
        off += vn;
        if (off == 10 * LZ_B)
            assert_int_equal(truncate(path, (off_t)(40 * LZ_B + 100)), 0);
    }
    assert_int_equal(st, TLM_EIO);
    assert_int_equal(err.offset, (int64_t)(40 * LZ_B + 100));
    assert_non_null(strstr(err.msg, "shorter than when its read began"));
    assert_int_equal(off, 40 * LZ_B);
    /* then the end, as after any error */
    assert_int_equal(tlm_instream_view(&s, &v, &vn, &err), TLM_OK);
    assert_int_equal(vn, 0);
    tlm_instream_close(&s);
    tt_rm_rf(dir);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_gzip_single),
        cmocka_unit_test(test_gzip_members),
        cmocka_unit_test(test_gzip_truncated),
        cmocka_unit_test(test_gzip_corrupt),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_open_nomem),
        cmocka_unit_test(test_whole_inflate),
        cmocka_unit_test(test_isal),
        cmocka_unit_test(test_fifo_refused),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_lazy_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
