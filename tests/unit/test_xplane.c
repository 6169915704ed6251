/*
 * test_xplane.c - the XPlane reader (src/trace/xplane_*.c): the model of
 * the generator's small file (names, display names, hlo_op as a string,
 * by reference and from the metadata, times, thread and process ids),
 * gzip, every truncation of the file in an exactly sized buffer, the
 * wire-format faults with their offsets and fields, the size cap, the
 * content sniff, finding the file in JAX's folder layout, and wire forms
 * written by hand: fields out of order, keys of more bytes, unknown
 * fields, faults inside events (the event decoder's checks).
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

/* ------------------------------------------------ wire forms by hand */

/* A message under construction. */
typedef struct wb {
    unsigned char b[512];
    size_t n;
} wb;

static void w_raw(wb *w, const void *p, size_t n)
{
    assert_true(w->n + n <= sizeof w->b);
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void w_varint(wb *w, uint64_t v)
{
    unsigned char c;
    while (v >= 0x80) {
        c = (unsigned char)(v | 0x80);
        w_raw(w, &c, 1);
        v >>= 7;
    }
    c = (unsigned char)v;
    w_raw(w, &c, 1);
}

/* key byte(s), then a varint value */
static void w_vf(wb *w, unsigned key, uint64_t v)
{
    w_varint(w, key);
    w_varint(w, v);
}

static void w_len(wb *w, unsigned key, const void *p, size_t n)
{
    w_varint(w, key);
    w_varint(w, n);
    w_raw(w, p, n);
}

static void w_msg(wb *w, unsigned key, const wb *m)
{
    w_len(w, key, m->b, m->n);
}

/* stat_metadata entry: key k, name nm */
static void w_smd(wb *pl, int64_t k, const char *nm)
{
    wb v = {0}, e = {0};
    w_vf(&v, 0x08, (uint64_t)k);
    w_len(&v, 0x12, nm, strlen(nm));
    w_vf(&e, 0x08, (uint64_t)k);
    w_msg(&e, 0x12, &v);
    w_msg(pl, 0x2a, &e);
}

/* A GPU plane whose line writes its fields after its events, with keys
 * of more bytes than needed, unknown fields, stats in any order, the
 * oneof set twice, a 10-byte varint: the same model as protobuf's. */
static void test_wire_forms(void **state)
{
    (void)state;
    wb pl = {0}, line = {0}, ev = {0}, st = {0}, emd = {0}, ent = {0};
    w_vf(&pl, 0x08, 0);
    w_len(&pl, 0x12, "/device:GPU:0", 13);
    w_vf(&emd, 0x08, 1);
    w_len(&emd, 0x12, "k1", 2);
    w_vf(&ent, 0x08, 1);
    w_msg(&ent, 0x12, &emd);
    w_msg(&pl, 0x22, &ent);
    w_smd(&pl, 5, "hlo_op");
    w_smd(&pl, 6, "other");
    /* A: the usual form */
    w_vf(&ev, 0x08, 1);
    w_vf(&ev, 0x10, 100);
    w_vf(&ev, 0x18, 10);
    w_vf(&st, 0x08, 5);
    w_len(&st, 0x2a, "a.1", 3);
    w_msg(&ev, 0x22, &st);
    w_msg(&line, 0x22, &ev);
    /* B: two-byte keys, an unknown field, a stat with its value first
     * and an unknown fixed32, then a later hlo_op stat (an int) */
    memset(&ev, 0, sizeof ev);
    memset(&st, 0, sizeof st);
    w_raw(&ev, "\x88\x00\x01\x90\x00\xac\x02\x98\x00\x14", 10);
    w_vf(&ev, 9 << 3, 77);
    w_len(&st, 0x2a, "b.1", 3);
    w_vf(&st, 0x08, 5);
    w_raw(&st, "\x65\x01\x02\x03\x04", 5);
    w_msg(&ev, 0x22, &st);
    memset(&st, 0, sizeof st);
    w_vf(&st, 0x08, 5);
    w_vf(&st, 0x20, 42);
    w_raw(&ev, "\xa2\x00", 2); /* stats under a two-byte key */
    w_varint(&ev, st.n);
    w_raw(&ev, st.b, st.n);
    w_msg(&line, 0x22, &ev);
    /* C: a stat whose first metadata is not hlo_op; num_occurrences
     * after offset_ps; a 10-byte duration */
    memset(&ev, 0, sizeof ev);
    memset(&st, 0, sizeof st);
    w_vf(&ev, 0x08, 1);
    w_vf(&ev, 0x10, 500);
    w_vf(&ev, 0x28, 3);
    w_raw(&ev, "\x18\x85\x80\x80\x80\x80\x80\x80\x80\x80\x00", 11);
    w_vf(&st, 0x08, 6);
    w_vf(&st, 0x08, 5);
    w_len(&st, 0x2a, "c.1", 3);
    w_msg(&ev, 0x22, &st);
    w_msg(&line, 0x22, &ev);
    /* the line's own fields last */
    w_vf(&line, 0x18, 2);
    w_len(&line, 0x5a, "L", 1);
    w_vf(&line, 0x08, 7);
    w_msg(&pl, 0x1a, &line);
    wb sp = {0};
    w_msg(&sp, 0x0a, &pl);
    tlm_xplane *x = read_ok(sp.b, sp.n);
    size_t nl, ne;
    const tlm_xp_line *ln = tlm_xplane_lines(x, &nl);
    const tlm_xp_event *e = tlm_xplane_events(x, &ne);
    assert_int_equal(nl, 1);
    assert_int_equal(ne, 3);
    assert_string_equal(ln[0].name, "L");
    assert_int_equal(ln[0].tid, 7);
    assert_int_equal(e[0].ts_ps, 2100);
    assert_int_equal(e[0].dur_ps, 10);
    assert_string_equal(tlm_xplane_str(x, e[0].name), "k1");
    assert_string_equal(tlm_xplane_str(x, e[0].hlo_op), "a.1");
    assert_int_equal(e[1].ts_ps, 2300);
    assert_int_equal(e[1].dur_ps, 20);
    assert_string_equal(tlm_xplane_str(x, e[1].hlo_op), "42");
    assert_int_equal(e[2].ts_ps, 2000);
    assert_int_equal(e[2].dur_ps, 5);
    assert_int_equal(e[2].hlo_op, 0);
    assert_int_equal(tlm_xplane_stats_get(x)->n_events, 3);
    tlm_xplane_free(x);
}

/* Faults inside events (the decoder's checks): each named with its
 * offset and field, on the fast path and off it, on GPU and host
 * planes; the first in file order wins. */
static void test_event_faults(void **state)
{
    (void)state;
    static const struct {
        const char *plane;
        unsigned char ev[8];
        size_t n, at; /* at: the fault's offset in ev */
        const char *msg;
    } cases[] = {
        {"/device:GPU:1", {0x08, 1, 0x10, 0x80}, 4, 3,
         "XEvent.offset_ps (field 2): varint cut by the end"},
        {"/device:GPU:1", {0x08, 1, 0xa2, 0x00, 2, 0x09, 0}, 7, 5,
         "XStat.metadata_id (field 1): wire type 1"},
        {"/device:GPU:1", {0x22, 3, 0x08, 5, 0x2a}, 5, 5,
         "XStat.str_value (field 5): bad length varint"},
        {"/device:GPU:1", {0x22, 9, 0x08}, 3, 0,
         "XEvent.stats (field 4): length 9 past the end"},
        {"/device:GPU:1", {0x00, 1}, 2, 0,
         "XEvent field 0: field number out of range"},
        {"/host:CPU", {0x08, 1, 0x3b}, 3, 2, "XEvent field 7: groups are not"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wb pl = {0}, line = {0}, sp = {0};
        w_len(&pl, 0x12, cases[i].plane, strlen(cases[i].plane));
        w_raw(&line, "\x22\x00", 2); /* an empty event first */
        w_len(&line, 0x22, cases[i].ev, cases[i].n);
        w_msg(&pl, 0x1a, &line);
        w_msg(&sp, 0x0a, &pl);
        size_t at = sp.n - cases[i].n + cases[i].at;
        /* a later fault at the plane level: the earlier one is named */
        w_raw(&sp, "\x0a\x01\x07", 3);
        tlm_xplane *x = NULL;
        tlm_error err;
        assert_int_equal(tlm_xplane_read_mem(sp.b, sp.n, "t", NULL, &x,
                                             &err), TLM_EFORMAT);
        assert_null(x);
        if (!strstr(err.msg, cases[i].msg) || err.offset != (int64_t)at)
            fail_msg("case %zu: offset %lld (want %zu): %s", i,
                     (long long)err.offset, at, err.msg);
    }
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
        cmocka_unit_test(test_wire_forms),
        cmocka_unit_test(test_event_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
