/*
 * test_pg_ranks.c - process-group rank lists parsed once per distinct text
 * (src/trace/pg_ranks.c): the parse ("[0, 1, 2]", text lists, "..." cut
 * off, odd numbers as strtol reads them), the second sight of a list served
 * from the cache with the same ints, an allocation failure, unshared
 * parses, emptying it, and the reader using it for pg_config across
 * traces read with share_pg_ranks.
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

/* Parses s and checks the ints against want (k of them). */
static void check(const char *s, const int32_t *want, size_t k)
{
    int32_t *r = NULL;
    size_t n = 99;
    assert_int_equal(tlm_pg_ranks_parse(s, strlen(s), 1, tlm_alloc_default(),
                                        &r, &n),
                     TLM_OK);
    assert_int_equal(n, k);
    if (k)
        assert_memory_equal(r, want, k * sizeof *want);
    else
        assert_null(r);
    free(r);
}

static void test_parse_and_cache(void **state)
{
    (void)state;
    static const int32_t a[] = {0, 1, 2, 3}, b[] = {7, -3, 12},
                         c[] = {4, 5};
    uint64_t h0, p0, h1, p1;
    size_t kept0, kept1;
    tlm_pg_ranks_stats(&h0, &p0, &kept0);
    check("[0, 1, 2, 3]", a, 4);
    check("[7,-3, 12]", b, 3);
    check("[4, 5, ...]", c, 2);
    check("[]", NULL, 0);
    check("", NULL, 0);
    tlm_pg_ranks_stats(&h1, &p1, &kept1);
    assert_true(p1 - p0 == 5 && h1 == h0);
    assert_int_equal(kept1 - kept0, 5);
    /* the same texts again: served from the cache, the same ints */
    for (int i = 0; i < 3; i++) {
        check("[0, 1, 2, 3]", a, 4);
        check("[7,-3, 12]", b, 3);
        check("[]", NULL, 0);
    }
    tlm_pg_ranks_stats(&h0, &p0, &kept0);
    assert_true(h0 - h1 == 9 && p0 == p1 && kept0 == kept1);
    /* a text that differs in one byte is another list */
    static const int32_t d[] = {0, 1, 2, 4};
    check("[0, 1, 2, 4]", d, 4);
    /* a cached list whose copy cannot be allocated: TLM_ENOMEM */
    tt_fail_alloc fa;
    tt_fail_alloc_init(&fa, 1, 1);
    int32_t *r = (int32_t *)&fa;
    size_t n = 9;
    assert_int_equal(tlm_pg_ranks_parse("[0, 1, 2, 3]", 12, 1, &fa.a, &r,
                                        &n),
                     TLM_ENOMEM);
    assert_null(r);
    assert_int_equal(n, 0);
    assert_int_equal(fa.live, 0);
    /* not shared: parsed, neither looked up nor kept */
    tlm_pg_ranks_stats(&h1, &p1, &kept1);
    r = NULL;
    assert_int_equal(tlm_pg_ranks_parse("[9, 8]", 6, 0, tlm_alloc_default(),
                                        &r, &n),
                     TLM_OK);
    assert_int_equal(n, 2);
    assert_int_equal(r[1], 8);
    free(r);
    tlm_pg_ranks_stats(&h0, &p0, &kept0);
    assert_true(h0 == h1 && p0 == p1 && kept0 == kept1);
    /* emptied: the next sight parses again */
    tlm_trace_caches_free();
    tlm_pg_ranks_stats(&h0, &p0, &kept0);
    assert_int_equal(kept0, 0);
    check("[0, 1, 2, 3]", a, 4);
    tlm_pg_ranks_stats(&h1, &p1, &kept1);
    assert_true(p1 == p0 + 1 && kept1 == 1);
    tlm_trace_caches_free();
}

/* Two traces of a job with the same pg_config: the second one's lists all
 * come from the cache, and both traces hold their own, equal, ranks. */
static void test_reader_uses_cache(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"distributedInfo\":{\"rank\":%d,\"world_size\":4,\"pg_config\":["
        "{\"pg_name\":\"0\",\"ranks\":[100, 101, 102, 103]},"
        "{\"pg_name\":\"1\",\"ranks\":\"[100, 102]\"}]},"
        "\"traceEvents\":[]}";
    tlm_trace *t[2];
    uint64_t h0, p0, h1, p1;
    size_t k0, k1;
    for (int i = 0; i < 2; i++) {
        char buf[512];
        int len = snprintf(buf, sizeof buf, doc, i);
        tlm_read_opts o;
        tlm_read_opts_init(&o);
        o.share_pg_ranks = 1;
        tlm_error err;
        tlm_pg_ranks_stats(&h0, &p0, &k0);
        assert_int_equal(tlm_trace_read_mem(buf, (size_t)len, "t", &o, &t[i],
                                            &err),
                         TLM_OK);
        tlm_pg_ranks_stats(&h1, &p1, &k1);
        if (i == 0) {
            assert_true(p1 - p0 == 2 && h1 == h0);
        } else {
            assert_true(h1 - h0 == 2 && p1 == p0);
        }
    }
    for (int i = 0; i < 2; i++) {
        const tlm_trace_meta *m = tlm_trace_meta_get(t[i]);
        assert_int_equal(m->n_pgs, 2);
        assert_int_equal(m->pgs[0].n_ranks, 4);
        assert_int_equal(m->pgs[0].ranks[3], 103);
        assert_int_equal(m->pgs[1].n_ranks, 2);
        assert_int_equal(m->pgs[1].ranks[1], 102);
    }
    assert_true(t[0]->meta.pgs[0].ranks != t[1]->meta.pgs[0].ranks);
    tlm_trace_free(t[0]);
    tlm_trace_free(t[1]);
    tlm_trace_caches_free();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_cache),
        cmocka_unit_test(test_reader_uses_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
