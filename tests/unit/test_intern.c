/*
 * test_intern.c - string interning of a trace (src/trace/intern.c,
 * internal API of trace_internal.h): dense first-seen ids, stable ids and
 * pointers while the table and the blocks grow, lookups, hashes, and
 * out-of-memory paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_util.h"
#include "trace_internal.h"

static size_t key(char *buf, size_t size, uint32_t i)
{
    return (size_t)snprintf(buf, size, "str_%u_%x", i, i * 2654435761u);
}

static void test_dense_ids(void **state)
{
    (void)state;
    tlm_intern in;
    assert_int_equal(tlm_intern_init(&in, tlm_alloc_default()), TLM_OK);
    /* id 0 is the empty string, always */
    assert_int_equal(tlm_intern_add(&in, "", 0), 0);
    assert_int_equal(tlm_intern_add(&in, "anything", 0), 0);
    assert_int_equal(tlm_intern_find(&in, "", 0), 0);
    assert_int_equal(in.n, 1);
    assert_int_equal(tlm_intern_add(&in, "a", 1), 1);
    assert_int_equal(tlm_intern_add(&in, "b", 1), 2);
    assert_int_equal(tlm_intern_add(&in, "a", 1), 1);
    assert_int_equal(tlm_intern_add(&in, "ab", 2), 3);
    assert_int_equal(tlm_intern_add(&in, "abc", 2), 3); /* length counts */
    assert_int_equal(tlm_intern_find(&in, "b", 1), 2);
    assert_int_equal(tlm_intern_find(&in, "c", 1), 0);
    assert_int_equal(in.n, 4);
    assert_string_equal(in.ents[3].s, "ab");
    assert_int_equal(in.ents[3].len, 2);
    assert_true(in.ents[3].hash == tlm_hash64("ab", 2));
    assert_true(in.ents[0].hash == tlm_hash64("", 0));
    tlm_intern_free(&in);
    tlm_intern_free(&in); /* twice is harmless */
}

/* Embedded NUL bytes are part of the string. */
static void test_nul_bytes(void **state)
{
    (void)state;
    tlm_intern in;
    assert_int_equal(tlm_intern_init(&in, tlm_alloc_default()), TLM_OK);
    uint32_t a = tlm_intern_add(&in, "a\0b", 3);
    uint32_t b = tlm_intern_add(&in, "a\0c", 3);
    uint32_t c = tlm_intern_add(&in, "a", 1);
    assert_true(a != b && b != c && a != c);
    assert_int_equal(tlm_intern_find(&in, "a\0b", 3), a);
    assert_memory_equal(in.ents[a].s, "a\0b", 4); /* NUL-terminated */
    tlm_intern_free(&in);
}

/* Many strings: ids stay first-seen and dense, pointers never move. */
static void test_growth_stable(void **state)
{
    (void)state;
    tlm_intern in;
    assert_int_equal(tlm_intern_init(&in, tlm_alloc_default()), TLM_OK);
    enum { N = 300000, KEEP = 1000 };
    const char *ptrs[KEEP];
    char buf[64];
    for (uint32_t i = 0; i < N; i++) {
        size_t n = key(buf, sizeof buf, i);
        uint32_t id = tlm_intern_add(&in, buf, n);
        assert_int_equal(id, i + 1);
        if (i < KEEP)
            ptrs[i] = in.ents[id].s;
        /* re-adding an old string gives its old id */
        if (i % 1000 == 999) {
            uint32_t j = i / 2;
            size_t m = key(buf, sizeof buf, j);
            assert_int_equal(tlm_intern_add(&in, buf, m), j + 1);
        }
    }
    assert_int_equal(in.n, N + 1);
    assert_true(in.nslots >= 2 * in.n);
    for (uint32_t i = 0; i < N; i += 7) {
        size_t n = key(buf, sizeof buf, i);
        assert_int_equal(tlm_intern_find(&in, buf, n), i + 1);
        assert_int_equal(in.ents[i + 1].len, n);
        assert_memory_equal(in.ents[i + 1].s, buf, n + 1);
    }
    for (uint32_t i = 0; i < KEEP; i++)
        assert_ptr_equal(in.ents[i + 1].s, ptrs[i]);
    assert_int_equal(tlm_intern_find(&in, "str_x", 5), 0);
    tlm_intern_free(&in);
}

/* Strings larger than a block get their own; small ones go on packing. */
static void test_big_strings(void **state)
{
    (void)state;
    tlm_intern in;
    assert_int_equal(tlm_intern_init(&in, tlm_alloc_default()), TLM_OK);
    size_t big = 3u << 20;
    char *s = malloc(big);
    assert_non_null(s);
    for (size_t i = 0; i < big; i++)
        s[i] = (char)('a' + i % 23);
    uint32_t a = tlm_intern_add(&in, "small", 5);
    uint32_t b = tlm_intern_add(&in, s, big);
    uint32_t c = tlm_intern_add(&in, s, big / 3);
    uint32_t d = tlm_intern_add(&in, "small2", 6);
    assert_true(a == 1 && b == 2 && c == 3 && d == 4);
    assert_int_equal(in.ents[b].len, big);
    assert_memory_equal(in.ents[b].s, s, big);
    assert_int_equal(in.ents[b].s[big], '\0');
    assert_memory_equal(in.ents[c].s, s, big / 3);
    assert_string_equal(in.ents[a].s, "small");
    assert_string_equal(in.ents[d].s, "small2");
    assert_int_equal(tlm_intern_find(&in, s, big), b);
    assert_int_equal(tlm_intern_add(&in, s, big), b);
    tlm_intern_free(&in);
    free(s);
}

/* Equal 64-bit hashes (passed in by hand) still give distinct strings. */
static void test_hash_collisions(void **state)
{
    (void)state;
    tlm_intern in;
    assert_int_equal(tlm_intern_init(&in, tlm_alloc_default()), TLM_OK);
    uint32_t ids[100];
    char buf[32];
    for (uint32_t i = 0; i < 100; i++) {
        size_t n = (size_t)snprintf(buf, sizeof buf, "c%u", i);
        ids[i] = tlm_intern_add_h(&in, buf, n, 42);
        assert_int_equal(ids[i], i + 1);
    }
    for (uint32_t i = 0; i < 100; i++) {
        size_t n = (size_t)snprintf(buf, sizeof buf, "c%u", i);
        assert_int_equal(tlm_intern_add_h(&in, buf, n, 42), ids[i]);
    }
    tlm_intern_free(&in);
}

/* ------------------------------------------------------------------ MARK:
 * Out of memory. */

static void test_init_nomem(void **state)
{
    (void)state;
    for (long n = 1; n <= 3; n++) {
        tt_fail_alloc fa;
        tt_fail_alloc_init(&fa, n, 0);
        tlm_intern in;
        tlm_status st = tlm_intern_init(&in, &fa.a);
        if (fa.failed == 0) {
            assert_int_equal(st, TLM_OK);
            tlm_intern_free(&in);
        } else {
            assert_int_equal(st, TLM_ENOMEM);
        }
        assert_int_equal(fa.live, 0);
    }
}

/* Fail the Nth allocation while adding many strings: the add that fails
 * returns UINT32_MAX, everything added before keeps its id, and adding may
 * go on afterwards. */
static void test_add_nomem(void **state)
{
    (void)state;
    char buf[64];
    for (long n = 3; n < 40; n++) { /* 1, 2: init (above) */
        tt_fail_alloc fa;
        tt_fail_alloc_init(&fa, n, 0);
        tlm_intern in;
        assert_int_equal(tlm_intern_init(&in, &fa.a), TLM_OK);
        uint32_t next = 1;
        int failures = 0;
        for (uint32_t i = 0; i < 20000; i++) {
            size_t len = key(buf, sizeof buf, i);
            uint32_t id = tlm_intern_add(&in, buf, len);
            if (id == UINT32_MAX) {
                failures++;
                /* not there: a retry adds it under the next id */
                assert_int_equal(tlm_intern_find(&in, buf, len), 0);
                id = tlm_intern_add(&in, buf, len);
            }
            assert_int_equal(id, next);
            next++;
        }
        assert_true(failures <= 1);
        for (uint32_t i = 0; i < 20000; i += 13) {
            size_t len = key(buf, sizeof buf, i);
            assert_int_not_equal(tlm_intern_find(&in, buf, len), 0);
        }
        tlm_intern_free(&in);
        assert_int_equal(fa.live, 0);
        if (fa.failed == 0)
            break; /* n is beyond the last allocation */
    }
}

/* An allocator that refuses one size only: here the hash table's growth,
 * while the strings and the id array still get memory.  The table must not
 * fill up (a full open-addressing table would loop forever). */
typedef struct size_fail {
    tlm_alloc a;
    size_t bad_size;
    long live;
} size_fail;

static void *sf_malloc(void *ctx, size_t size)
{
    size_fail *f = ctx;
    if (size == f->bad_size)
        return NULL;
    void *p = malloc(size);
    if (p)
        f->live++;
    return p;
}

static void *sf_realloc(void *ctx, void *ptr, size_t size)
{
    size_fail *f = ctx;
    if (size == f->bad_size)
        return NULL;
    void *p = realloc(ptr, size);
    if (p && !ptr)
        f->live++;
    return p;
}

static void sf_free(void *ctx, void *ptr)
{
    size_fail *f = ctx;
    if (ptr)
        f->live--;
    free(ptr);
}

static void test_table_growth_refused(void **state)
{
    (void)state;
    size_fail f = {{sf_malloc, sf_realloc, sf_free, NULL}, 0, 0};
    f.a.ctx = &f;
    tlm_intern in;
    assert_int_equal(tlm_intern_init(&in, &f.a), TLM_OK);
    f.bad_size = (size_t)in.nslots * 2 * sizeof *in.slots;
    uint32_t nslots = in.nslots;
    char buf[64];
    uint32_t added = 0, refused = 0;
    for (uint32_t i = 0; i < 3 * nslots; i++) {
        size_t len = key(buf, sizeof buf, i);
        uint32_t id = tlm_intern_add(&in, buf, len);
        if (id == UINT32_MAX) {
            refused++;
        } else {
            added++;
            assert_int_equal(tlm_intern_find(&in, buf, len), id);
        }
    }
    assert_true(refused > 0);
    assert_int_equal(in.nslots, nslots);
    /* never more than half full, so lookups of absent strings end */
    assert_true((uint64_t)in.n * 2 <= (uint64_t)in.nslots + 2);
    assert_int_equal(tlm_intern_find(&in, "absent", 6), 0);
    /* once memory is back, adding goes on */
    f.bad_size = 0;
    assert_int_not_equal(tlm_intern_add(&in, "later", 5), UINT32_MAX);
    assert_true(in.nslots > nslots);
    (void)added;
    tlm_intern_free(&in);
    assert_int_equal(f.live, 0);
}

/* After a read the event array and the argument blob hold no spare
 * capacity (tlm_trace_fit), and a synthetic event still appends. */
static void test_trace_fit(void **state)
{
    (void)state;
    size_t cap = 5000 * 64 + 8, n = 0;
    char *json = malloc(cap);
    assert_non_null(json);
    n += (size_t)snprintf(json, cap, "[");
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(json + n, cap - n,
                              "%s{\"ph\":\"X\",\"args\":{\"Seq\":%d}}",
                              i ? "," : "", i);
    n += (size_t)snprintf(json + n, cap - n, "]");
    tlm_trace *t = NULL;
    tlm_error err;
    assert_int_equal(tlm_trace_read_mem(json, n, "fit", NULL, &t, &err),
                     TLM_OK);
    free(json);
    assert_int_equal(t->n_events, 5000);
    assert_int_equal(t->cap_events, t->n_events);
    assert_int_equal(t->blob_cap, t->blob_len);
    tlm_event e;
    memset(&e, 0, sizeof e);
    e.ph = 'X';
    e.flags = TLM_EV_HAS_ID; /* a synthetic event has no flow id */
    tlm_arg k = TLM_ARG_SEQ;
    tlm_argv v = {TLM_ARGV_INT, 77, 0};
    uint64_t uid = 0;
    assert_int_equal(tlm_trace_append_event(t, &e, &k, &v, 1, &uid, &err),
                     TLM_OK);
    assert_int_equal(uid, 5000);
    size_t ne;
    const tlm_event *ev = tlm_trace_events(t, &ne);
    int64_t x = 0;
    assert_true(tlm_event_arg_int(t, &ev[5000], TLM_ARG_SEQ, &x) && x == 77);
    assert_true(tlm_event_arg_int(t, &ev[4999], TLM_ARG_SEQ, &x) &&
                x == 4999);
    assert_false(ev[5000].flags & TLM_EV_HAS_ID);
    assert_false(tlm_event_flow_id(t, &ev[5000], NULL));
    tlm_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_ids),
        cmocka_unit_test(test_trace_fit),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_growth_stable),
        cmocka_unit_test(test_big_strings),
        cmocka_unit_test(test_hash_collisions),
        cmocka_unit_test(test_init_nomem),
        cmocka_unit_test(test_add_nomem),
        cmocka_unit_test(test_table_growth_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
