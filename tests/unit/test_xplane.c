/*
 * test_xplane.c - the XPlane reader (src/trace/xplane_*.c): the model of
 * the generator's small file (names, display names, hlo_op as a string,
 * by reference and from the metadata, times, thread and process ids),
 * gzip, every truncation of the file in an exactly sized buffer, the
 * wire-format faults with their offsets and fields, the size cap, the
 * content sniff, and finding the file in JAX's folder layout.
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
#include "tlmpi/tlm_sniff.h"
#include "tlmpi/tlm_xplane.h"

#pragma GCC diagnostic ignored "-Wunused-function"
#define TLM_GEN_XPLANE_NO_MAIN
#include "../data/gen_xplane.c"

/* The bytes of a generated kind; caller frees. */
static unsigned char *made(int (*gen)(const char *), size_t *n)
{
    char dir[256], path[300];
    tt_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.pb", dir);
    if (gen(path) != 0)
        tt_die("generator");
    unsigned char *b = tt_slurp(path, n);
    tt_rm_rf(dir);
    return b;
}

static tlm_xplane *read_ok(const unsigned char *b, size_t n)
{
    tlm_xplane *x = NULL;
    tlm_error err;
    tlm_status st = tlm_xplane_read_mem(b, n, "t", NULL, &x, &err);
    if (st != TLM_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, TLM_OK);
    return x;
}

static const tlm_xp_event *find_ev(const tlm_xplane *x, const char *name,
                                   size_t nth)
{
    size_t n;
    const tlm_xp_event *ev = tlm_xplane_events(x, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tlm_xplane_str(x, ev[i].name), name) && nth-- == 0)
            return &ev[i];
    fail_msg("no event %s", name);
    return NULL;
}

static void check_small(const tlm_xplane *x)
{
    const tlm_xplane_stats *s = tlm_xplane_stats_get(x);
    assert_int_equal(s->n_planes, 3);
    assert_int_equal(s->n_gpu_planes, 2);
    assert_int_equal(s->n_events, 12);
    size_t np, nl, ne;
    const tlm_xp_plane *pl = tlm_xplane_planes(x, &np);
    const tlm_xp_line *ln = tlm_xplane_lines(x, &nl);
    tlm_xplane_events(x, &ne);
    assert_int_equal(np, 3);
    assert_int_equal(nl, 4); /* GPU lines only */
    assert_int_equal(ne, 11);
    assert_string_equal(pl[0].name, "/host:CPU");
    assert_false(pl[0].gpu);
    assert_true(pl[2].gpu);
    assert_int_equal(pl[2].pid, 2);
    assert_int_equal(pl[1].pid, 1);
    assert_string_equal(ln[2].name, "XLA Ops");
    assert_int_equal(ln[2].tid, 3735928560u);
    const tlm_xp_event *a = find_ev(x, "Cijk_Alik_Bljk_HHS", 0);
    assert_int_equal(a->ts_ps, 1000 * 1000);
    assert_int_equal(a->dur_ps, 10 * PS_US);
    assert_string_equal(tlm_xplane_str(x, a->hlo_op), "dot.1");
    const tlm_xp_event *h = find_ev(x, "Cijk_Alik_Bljk_HHS", 1);
    assert_int_equal(h->ts_ps, 1500 * 1000);
    /* display name; hlo_op by reference to a stat metadata's name */
    const tlm_xp_event *k = find_ev(x, "my_kernel", 0);
    assert_string_equal(tlm_xplane_str(x, k->hlo_op), "conv.7");
    /* hlo_op from the event metadata's stats */
    const tlm_xp_event *f = find_ev(x, "loop_add_fusion_3", 0);
    assert_string_equal(tlm_xplane_str(x, f->hlo_op), "add.3");
    assert_int_equal(find_ev(x, "MemcpyH2D", 0)->hlo_op, 0);
}

static void test_small(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = made(gen_small, &n);
    tlm_xplane *x = read_ok(b, n);
    check_small(x);
    assert_false(tlm_xplane_stats_get(x)->gzip);
    tlm_xplane_free(x);
    size_t gn;
    unsigned char *gz = tt_gzip(b, n, &gn);
    x = read_ok(gz, gn);
    check_small(x);
    assert_true(tlm_xplane_stats_get(x)->gzip);
    assert_int_equal(tlm_xplane_stats_get(x)->bytes_pb, n);
    tlm_xplane_free(x);
    /* the gzip cut: an error naming the truncation */
    tlm_error err;
    assert_int_equal(tlm_xplane_read_mem(gz, gn - 9, "t", NULL, &x, &err),
                     TLM_EGZIP);
    assert_non_null(strstr(err.msg, "truncated gzip"));
    assert_null(x);
    free(gz);
    free(b);
}

/* Every prefix, in a buffer of exactly its size: an error inside the
 * prefix, or (cut between planes) a smaller XSpace. */
static void test_truncations(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = made(gen_small, &n);
    for (size_t k = 0; k < n; k++) {
        unsigned char *p = malloc(k ? k : 1);
        memcpy(p, b, k);
        tlm_xplane *x = NULL;
        tlm_error err;
        tlm_status st = tlm_xplane_read_mem(p, k, "t", NULL, &x, &err);
        if (st == TLM_OK) {
            assert_true(tlm_xplane_stats_get(x)->n_planes < 3);
            tlm_xplane_free(x);
        } else {
            assert_int_equal(st, TLM_EFORMAT);
            assert_true(err.offset >= 0 && (size_t)err.offset <= k);
            assert_null(x);
        }
        free(p);
    }
    free(b);
}

typedef struct bad {
    int (*gen)(const char *);
    int64_t offset;
    const char *msg;
} bad;

static void test_faults(void **state)
{
    (void)state;
    static const bad cases[] = {
        {gen_badvarint, 22, "XEvent.duration_ps (field 3): varint longer"},
        {gen_pastend, 17, "XPlane.lines (field 3): length 127 past the end"},
        {gen_wiretype, 17, "XPlane.id (field 1): wire type 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        unsigned char *b = made(cases[i].gen, &n);
        tlm_xplane *x = NULL;
        tlm_error err;
        assert_int_equal(tlm_xplane_read_mem(b, n, "t", NULL, &x, &err),
                         TLM_EFORMAT);
        assert_int_equal(err.offset, cases[i].offset);
        assert_non_null(strstr(err.msg, cases[i].msg));
        assert_true(tlm_xplane_sniff(b, n, 1));
        free(b);
    }
    /* a group, an invalid wire type, a zero field number, empty input */
    static const unsigned char grp[] = {0x0a, 3, 0x12, 0x00, 0x3b};
    static const unsigned char wt7[] = {0x0a, 3, 0x12, 0x00, 0x3f};
    static const unsigned char zero[] = {0x0a, 4, 0x12, 0x00, 0x00, 0x00};
    const unsigned char *in[] = {grp, wt7, zero};
    size_t len[] = {sizeof grp, sizeof wt7, sizeof zero};
    const char *msg[] = {"groups", "invalid wire type", "out of range"};
    for (int i = 0; i < 3; i++) {
        tlm_xplane *x = NULL;
        tlm_error err;
        assert_int_equal(tlm_xplane_read_mem(in[i], len[i], "t", NULL, &x,
                                             &err), TLM_EFORMAT);
        assert_non_null(strstr(err.msg, msg[i]));
        assert_int_equal(err.offset, 4);
    }
    tlm_xplane *x = NULL;
    tlm_error err;
    assert_int_equal(tlm_xplane_read_mem("", 0, "t", NULL, &x, &err),
                     TLM_EFORMAT);
}

static void test_limit(void **state)
{
    (void)state;
    size_t n, gn;
    unsigned char *b = made(gen_small, &n);
    unsigned char *gz = tt_gzip(b, n, &gn);
    tlm_xplane_opts o;
    tlm_xplane_opts_init(&o);
    o.max_bytes = 100;
    tlm_xplane *x = NULL;
    tlm_error err;
    assert_int_equal(tlm_xplane_read_mem(b, n, "t", &o, &x, &err),
                     TLM_ELIMIT);
    assert_int_equal(tlm_xplane_read_mem(gz, gn, "t", &o, &x, &err),
                     TLM_ELIMIT);
    assert_null(x);
    free(gz);
    free(b);
}

static void test_sniff(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = made(gen_small, &n);
    for (size_t k = 0; k <= n; k++) {
        unsigned char *p = malloc(k ? k : 1);
        memcpy(p, b, k);
        if (k < 2 || k > 3) /* 2, 3: no byte of the plane yet */
            assert_int_equal(tlm_xplane_sniff(p, k, k == n), k > 3);
        tlm_sniff s;
        tlm_trace_sniff_mem((const char *)p, k, k == n, &s);
        if (k > 3) {
            assert_int_equal(s.verdict, TLM_SNIFF_TRACE);
            assert_int_equal(s.format, TLM_FORMAT_XPLANE);
        }
        free(p);
    }
    free(b);
    /* JSON that starts with a newline stays JSON */
    static const char *json[] = {"\n{\"traceEvents\": []}",
                                 "\n\n[{\"ph\": \"X\"}]", "\n\x08", "\n"};
    for (int i = 0; i < 4; i++)
        assert_false(tlm_xplane_sniff((const unsigned char *)json[i],
                                      strlen(json[i]), 1));
    tlm_sniff s;
    tlm_trace_sniff_mem(json[0], strlen(json[0]), 1, &s);
    assert_int_equal(s.format, TLM_FORMAT_KINETO_JSON);
}

static void test_locate(void **state)
{
    (void)state;
    char dir[256], sub[400], f[500], out[600];
    tlm_error err;
    tt_tmpdir(dir, sizeof dir);
    assert_int_equal(tlm_xplane_locate(dir, out, sizeof out, &err),
                     TLM_ENOTFOUND);
    snprintf(sub, sizeof sub, "%s/plugins", dir);
    mkdir(sub, 0755);
    snprintf(sub, sizeof sub, "%s/plugins/profile", dir);
    mkdir(sub, 0755);
    snprintf(sub, sizeof sub, "%s/plugins/profile/2024_01_01", dir);
    mkdir(sub, 0755);
    snprintf(f, sizeof f, "%s/host.xplane.pb", sub);
    assert_int_equal(gen_small(f), 0);
    assert_int_equal(tlm_xplane_locate(dir, out, sizeof out, &err), TLM_OK);
    assert_string_equal(out, f);
    tlm_xplane *x = NULL;
    assert_int_equal(tlm_xplane_read_file(dir, NULL, &x, &err), TLM_OK);
    check_small(x);
    tlm_xplane_free(x);
    /* a later run folder wins; two hosts in one folder are refused */
    snprintf(sub, sizeof sub, "%s/plugins/profile/2024_02_01", dir);
    mkdir(sub, 0755);
    snprintf(f, sizeof f, "%s/a.xplane.pb", sub);
    assert_int_equal(gen_nogpu(f), 0);
    assert_int_equal(tlm_xplane_locate(dir, out, sizeof out, &err), TLM_OK);
    assert_string_equal(out, f);
    snprintf(f, sizeof f, "%s/b.xplane.pb", sub);
    assert_int_equal(gen_nogpu(f), 0);
    assert_int_equal(tlm_xplane_locate(dir, out, sizeof out, &err),
                     TLM_EINVAL);
    /* a file is itself */
    assert_int_equal(tlm_xplane_locate(f, out, sizeof out, &err), TLM_OK);
    assert_string_equal(out, f);
    tt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),   cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_faults),  cmocka_unit_test(test_limit),
        cmocka_unit_test(test_sniff),   cmocka_unit_test(test_locate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
