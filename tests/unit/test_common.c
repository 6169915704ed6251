/*
 * test_common.c - status strings, error reports, the default allocator,
 * the deterministic hash and the page-table warming (src/util/common.c).
 *
 * The hash is compared with fixed values: ranks and runs compare names by
 * it, so any change to tlm_hash64 must be deliberate (and changes every
 * output that stores a name hash).
 */
#define _DEFAULT_SOURCE /* mincore, madvise */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mem_internal.h"
#include "tlmpi/tlm_common.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

static void test_status_str(void **state)
{
    (void)state;
    assert_string_equal(tlm_status_str(TLM_OK), "success");
    assert_string_equal(tlm_status_str(TLM_ENOMEM), "out of memory");
    assert_string_equal(tlm_status_str(TLM_EFORMAT), "malformed JSON");
    assert_string_equal(tlm_status_str(TLM_EMISMATCH),
                        "inconsistent data across traces");
    assert_string_equal(tlm_status_str((tlm_status)999), "unknown status");
    assert_string_equal(tlm_status_str((tlm_status)-1), "unknown status");
    /* every listed code has its own, non-empty text */
    static const tlm_status all[] = {
#define TLM_X_(name, value, desc) name,
        TLM_STATUS_LIST(TLM_X_)
#undef TLM_X_
    };
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(all[i], (int)i); /* dense, from 0 */
        const char *s = tlm_status_str(all[i]);
        assert_true(s[0] != '\0');
        assert_string_not_equal(s, "unknown status");
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(s, tlm_status_str(all[j]));
    }
}

static void test_error_set_clear(void **state)
{
    (void)state;
    tlm_error err;
    memset(&err, 0x5a, sizeof err);
    tlm_error_clear(&err);
    assert_int_equal(err.code, TLM_OK);
    assert_true(err.offset == -1);
    assert_string_equal(err.file, "");
    assert_string_equal(err.msg, "");
    tlm_error_clear(NULL);

    assert_int_equal(tlm_error_set(&err, TLM_EFORMAT, "rank3.json.gz",
                                   18734211, "expected ',' or '}' while "
                                   "reading traceEvents[%d].args", 51234),
                     TLM_EFORMAT);
    assert_int_equal(err.code, TLM_EFORMAT);
    assert_true(err.offset == 18734211);
    assert_string_equal(err.file, "rank3.json.gz");
    assert_string_equal(err.msg, "expected ',' or '}' while reading "
                                 "traceEvents[51234].args");
    /* NULL err: the code still comes back */
    assert_int_equal(tlm_error_set(NULL, TLM_EIO, "f", 1, "x"), TLM_EIO);
    /* NULL file */
    assert_int_equal(tlm_error_set(&err, TLM_EIO, NULL, -1, "%s", "m"),
                     TLM_EIO);
    assert_string_equal(err.file, "");
}

static void test_error_truncation(void **state)
{
    (void)state;
    tlm_error err;
    /* a long path keeps its tail (the file name) */
    char path[600];
    memset(path, 'd', sizeof path);
    memcpy(path + 500, "/rank0001.json.gz", 18);
    tlm_error_set(&err, TLM_EIO, path, 0, "m");
    size_t n = strlen(err.file);
    assert_int_equal(n, sizeof err.file - 1);
    assert_string_equal(err.file + n - 17, "/rank0001.json.gz");
    /* exactly fitting names are kept whole */
    path[255] = '\0';
    tlm_error_set(&err, TLM_EIO, path, 0, "m");
    assert_string_equal(err.file, path);
    /* a long message is cut, NUL-terminated */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    tlm_error_set(&err, TLM_EIO, "f", 0, "%s", big);
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
}

static void test_error_format(void **state)
{
    (void)state;
    tlm_error err;
    char buf[128];
    tlm_error_set(&err, TLM_EFORMAT, "a.json", 42, "bad thing");
    assert_string_equal(tlm_error_format(&err, buf, sizeof buf),
                        "a.json: offset 42: bad thing");
    tlm_error_set(&err, TLM_EIO, "a.json", -1, "cannot open");
    assert_string_equal(tlm_error_format(&err, buf, sizeof buf),
                        "a.json: cannot open");
    tlm_error_set(&err, TLM_EFORMAT, NULL, 0, "at the start");
    assert_string_equal(tlm_error_format(&err, buf, sizeof buf),
                        "offset 0: at the start");
    tlm_error_set(&err, TLM_ENOMEM, NULL, -1, "%s", "");
    /* no message: the status text */
    assert_string_equal(tlm_error_format(&err, buf, sizeof buf),
                        "out of memory");
    assert_string_equal(tlm_error_format(NULL, buf, sizeof buf), "");
    /* small buffers are NUL-terminated; size 0 and NULL are fine */
    tlm_error_set(&err, TLM_EFORMAT, "a.json", 42, "bad thing");
    char small[8];
    assert_ptr_equal(tlm_error_format(&err, small, sizeof small), small);
    assert_string_equal(small, "a.json:");
    assert_ptr_equal(tlm_error_format(&err, small, 0), small);
    assert_null(tlm_error_format(&err, NULL, 10));
}

static void test_escape_ctrl(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(tlm_escape_ctrl(buf, sizeof buf, "a\nb\tc\rd\x1b[2J"),
                        "a\\nb\\tc\\rd\\x1b[2J");
    assert_string_equal(tlm_escape_ctrl(buf, sizeof buf, "back\\slash\x7f"),
                        "back\\slash\\x7f");
    assert_string_equal(tlm_escape_ctrl(buf, sizeof buf, "r\xc3\xa9sum\xc3\xa9"),
                        "r\xc3\xa9sum\xc3\xa9");
    assert_string_equal(tlm_escape_ctrl(buf, sizeof buf, NULL), "");
    /* too long: cut with "..." inside the buffer */
    char small[8];
    assert_string_equal(tlm_escape_ctrl(small, sizeof small, "abcdefghij"),
                        "abcd...");
    assert_string_equal(tlm_escape_ctrl(small, sizeof small, "\n\n\n\n\n"),
                        "\\n\\n...");
    assert_string_equal(tlm_escape_ctrl(small, sizeof small, "abcdefg"),
                        "abcdefg");
    /* the error's file and message are escaped when formatted */
    tlm_error err;
    tlm_error_set(&err, TLM_EIO, "evil\nname", -1, "bad\x07");
    assert_string_equal(tlm_error_format(&err, buf, sizeof buf),
                        "evil\\nname: bad\\x07");
}

static void test_alloc_default(void **state)
{
    (void)state;
    const tlm_alloc *a = tlm_alloc_default();
    assert_non_null(a);
    assert_ptr_equal(a, tlm_alloc_default());
    char *p = a->malloc_fn(a->ctx, 0); /* 0 bytes still gives a block */
    assert_non_null(p);
    p = a->realloc_fn(a->ctx, p, 100);
    assert_non_null(p);
    memset(p, 1, 100);
    p = a->realloc_fn(a->ctx, p, 0);
    assert_non_null(p);
    a->free_fn(a->ctx, p);
    a->free_fn(a->ctx, NULL);
}

/* ------------------------------------------------------------------ MARK:
 * Hash. */

static void test_hash_fixed(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint64_t h;
    } cases[] = {
        {"", 0x323def0871273387ull},
        {"a", 0x7de045f609c4af0bull},
        {"ab", 0x4db7247e61f8a770ull},
        {"abcdefg", 0x77d9f563a4da8465ull},
        {"abcdefgh", 0x513c8d9d111008c4ull},
        {"abcdefghi", 0xba131aa9a56fc57full},
        {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0x94f31d78821b68acull},
        {"aten::mm", 0xa43b37e44200bee7ull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t h = tlm_hash64(cases[i].s, strlen(cases[i].s));
        if (h != cases[i].h)
            fprintf(stderr, "tlm_hash64(\"%s\") = 0x%016llx\n", cases[i].s,
                    (unsigned long long)h);
        assert_true(h == cases[i].h);
    }
    /* length is part of the input: "" and "\0" differ */
    unsigned char z[2] = {0, 0};
    assert_true(tlm_hash64(z, 1) == 0x131d28f4094bb8faull);
    assert_true(tlm_hash64(z, 1) != tlm_hash64(z, 2));
    assert_true(tlm_hash64(z, 0) == tlm_hash64("", 0));
    assert_true(tlm_hash64(NULL, 0) == tlm_hash64("", 0));
}

/* The same bytes at any address hash alike (no alignment dependence). */
static void test_hash_alignment(void **state)
{
    (void)state;
    char buf[64 + 16];
    const char *text = "ncclDevKernel_AllGather_RING_LL_Sum_bf16_x";
    size_t n = strlen(text);
    uint64_t ref = tlm_hash64(text, n);
    for (size_t off = 0; off < 16; off++) {
        memcpy(buf + off, text, n);
        assert_true(tlm_hash64(buf + off, n) == ref);
    }
}

/* No collisions among many similar names, and one flipped input bit
 * changes about half of the output bits. */
static void test_hash_quality(void **state)
{
    (void)state;
    enum { N = 200000 };
    uint64_t *h = malloc(N * sizeof *h);
    assert_non_null(h);
    char buf[64];
    for (int i = 0; i < N; i++) {
        int n = snprintf(buf, sizeof buf, "aten::op_%d", i);
        h[i] = tlm_hash64(buf, (size_t)n);
    }
    /* sort and look for equal neighbours */
    for (size_t gap = N / 2; gap > 0; gap /= 2) /* shell sort */
        for (size_t i = gap; i < N; i++)
            for (size_t j = i; j >= gap && h[j - gap] > h[j]; j -= gap) {
                uint64_t t = h[j];
                h[j] = h[j - gap];
                h[j - gap] = t;
            }
    for (size_t i = 1; i < N; i++)
        assert_true(h[i] != h[i - 1]);
    free(h);

    unsigned char in[24];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 37 + 11);
    for (size_t len = 1; len <= sizeof in; len += 5) {
        uint64_t base = tlm_hash64(in, len);
        double sum = 0;
        int flips = 0;
        for (size_t bit = 0; bit < len * 8; bit++) {
            in[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            uint64_t x = tlm_hash64(in, len) ^ base;
            in[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            int pop = 0;
            while (x) {
                pop += (int)(x & 1);
                x >>= 1;
            }
            assert_true(pop > 0);
            sum += pop;
            flips++;
        }
        double avg = sum / flips;
        assert_true(avg > 26.0 && avg < 38.0);
    }
}

/* MARK: - page-table warming ------------------------------------------- */

#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Fresh anonymous pages: nothing resident until written or populated. */
static unsigned char *fresh(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    /* no transparent huge pages: residency is then counted in 4 KiB */
    (void)madvise(p, n, MADV_NOHUGEPAGE);
    return p;
}

/* Resident pages of [p, p + n) (p page-aligned). */
static size_t resident(const unsigned char *p, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t np = (n + page - 1) / page, r = 0;
    unsigned char *v = malloc(np);
    assert_non_null(v);
    assert_int_equal(mincore((void *)p, n, v), 0);
    for (size_t i = 0; i < np; i++)
        r += v[i] & 1;
    free(v);
    return r;
}

/* Whether this kernel populates on request (Linux >= 5.14). */
static int can_populate(void)
{
    unsigned char *p = fresh(1 << 16);
    int ok = madvise(p, 1 << 16, MADV_POPULATE_WRITE) == 0;
    munmap(p, 1 << 16);
    return ok;
}
#endif

static void test_prefault(void **state)
{
    (void)state;
    /* small, empty and NULL ranges are left alone */
    char small[64] = {0};
    assert_int_equal(tlm_prefault(small, sizeof small), 0);
    assert_int_equal(tlm_prefault(NULL, TLM_PREFAULT_MIN * 4), 0);
    assert_int_equal(tlm_prefault(small, 0), 0);
#if defined(__linux__)
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = TLM_PREFAULT_MIN * 4;
    unsigned char *p = fresh(n);
    assert_int_equal(resident(p, n), 0);
    /* an unaligned range: only its whole pages are asked for */
    size_t got = tlm_prefault(p + 100, n - 200);
    assert_int_equal(got, n - 2 * page);
    if (can_populate()) {
        assert_int_equal(resident(p, n), n / page - 2);
        assert_int_equal(resident(p, page), 0);
        assert_int_equal(resident(p + n - page, page), 0);
    }
    for (size_t i = 0; i < n; i++) /* populated pages read as zeros */
        assert_int_equal(p[i], 0);
    /* contents are never changed */
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + 3);
    assert_int_equal(tlm_prefault(p, n), n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(p[i], (unsigned char)(i * 7 + 3));
    munmap(p, n);
#endif
    /* malloc'd and populated: a usable block, also for 0 bytes */
    unsigned char *m = tlm_malloc_warm(TLM_PREFAULT_MIN * 2);
    assert_non_null(m);
    memset(m, 0xab, TLM_PREFAULT_MIN * 2);
    free(m);
    m = tlm_malloc_warm(0);
    assert_non_null(m);
    free(m);
}

static void test_warm_ahead(void **state)
{
    (void)state;
#if defined(__linux__)
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t cap = 8 * TLM_WARM_STEP;
    unsigned char *a = fresh(cap);
    int pop = can_populate();
    tlm_warm w = {0};
    /* appends of 64 bytes: populated at most one step ahead of use, never
     * beyond the capacity */
    for (size_t used = 64; used <= cap; used += 64) {
        tlm_warm_ahead(&w, a, used, cap);
        assert_true(w.done >= used);
        assert_true(w.done <= used + TLM_WARM_STEP);
        assert_true(w.done <= cap);
        if (used % TLM_WARM_STEP == 0 && used < cap && pop) {
            size_t r = resident(a, cap) * page;
            assert_true(r >= used);
            assert_true(r <= used + TLM_WARM_STEP);
        }
    }
    assert_int_equal(w.done, cap);
    tlm_warm_ahead(&w, a, cap, cap); /* full: nothing left to do */
    assert_int_equal(w.done, cap);
    /* moved: what was written moved along, the rest is populated anew */
    unsigned char *b = fresh(cap);
    tlm_warm_ahead(&w, b, 3 * page, cap);
    assert_ptr_equal(w.base, b);
    assert_int_equal(w.done, 3 * page + TLM_WARM_STEP);
    if (pop) /* the first 3 pages are the caller's (here: never written) */
        assert_int_equal(resident(b, cap), TLM_WARM_STEP / page);
    munmap(a, cap);
    munmap(b, cap);
#endif
    /* a capacity below the step: populated to the end, once */
    tlm_warm v = {0};
    unsigned char buf[256];
    tlm_warm_ahead(&v, buf, 10, sizeof buf);
    assert_int_equal(v.done, sizeof buf);
    tlm_warm_ahead(&v, buf, sizeof buf, sizeof buf);
    assert_int_equal(v.done, sizeof buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_str),
        cmocka_unit_test(test_error_set_clear),
        cmocka_unit_test(test_error_truncation),
        cmocka_unit_test(test_error_format),
        cmocka_unit_test(test_escape_ctrl),
        cmocka_unit_test(test_alloc_default),
        cmocka_unit_test(test_hash_fixed),
        cmocka_unit_test(test_hash_alignment),
        cmocka_unit_test(test_hash_quality),
        cmocka_unit_test(test_prefault),
        cmocka_unit_test(test_warm_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
