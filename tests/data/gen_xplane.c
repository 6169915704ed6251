/*
 * gen_xplane.c - writes the XPlane test files (tests/data/README.md):
 * the good ones through protobuf-c's packers (the structs of
 * src/trace/xplane.proto), the broken ones as hand-assembled bytes whose
 * offsets the tests name.
 *
 *   tlm-gen-xplane KIND OUT [MB]
 *
 * (Unit tests #include this file with TLM_GEN_XPLANE_NO_MAIN defined.)
 * KIND: small (two GPUs, a host plane; the values the tests expect are
 * worked out in tests/data/README.md), nogpu (a host plane only),
 * noevents (a GPU plane with only an XLA Ops line), badvarint, pastend,
 * wiretype (one wire-format fault each, offsets in the README), big (MB
 * megabytes of 8 GPU planes, for scripts/bench.sh).
 */
#include "xplane.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_US 1000000LL /* picoseconds per microsecond */

/* ------------------------------------------------------------ builders */

typedef struct md {
    int64_t id;
    const char *name, *display, *hlo; /* hlo: a metadata-level hlo_op */
} md;

enum { SM_HLO = 1, SM_CORR = 2, SM_CONV7 = 3 };

static TlmXp__XStat *stat_str(int64_t mid, const char *s)
{
    TlmXp__XStat *st = calloc(1, sizeof *st);
    tlm_xp__xstat__init(st);
    st->metadata_id = mid;
    st->value_case = TLM_XP__XSTAT__VALUE_STR_VALUE;
    st->str_value = (char *)s;
    return st;
}

static TlmXp__XStat *stat_ref(int64_t mid, uint64_t ref)
{
    TlmXp__XStat *st = calloc(1, sizeof *st);
    tlm_xp__xstat__init(st);
    st->metadata_id = mid;
    st->value_case = TLM_XP__XSTAT__VALUE_REF_VALUE;
    st->ref_value = ref;
    return st;
}

static TlmXp__XStat *stat_int(int64_t mid, int64_t v)
{
    TlmXp__XStat *st = calloc(1, sizeof *st);
    tlm_xp__xstat__init(st);
    st->metadata_id = mid;
    st->value_case = TLM_XP__XSTAT__VALUE_INT64_VALUE;
    st->int64_value = v;
    return st;
}

/* An event: metadata id, [start, start + dur) in ps from the line start,
 * hlo_op as a string stat (NULL: none; "@conv7": by reference). */
static TlmXp__XEvent *event(int64_t mid, int64_t off_ps, int64_t dur_ps,
                            const char *hlo)
{
    TlmXp__XEvent *e = calloc(1, sizeof *e);
    tlm_xp__xevent__init(e);
    e->metadata_id = mid;
    e->data_case = TLM_XP__XEVENT__DATA_OFFSET_PS;
    e->offset_ps = off_ps;
    e->duration_ps = dur_ps;
    e->stats = calloc(2, sizeof *e->stats);
    e->stats[e->n_stats++] = stat_int(SM_CORR, mid * 7);
    if (hlo && strcmp(hlo, "@conv7") == 0)
        e->stats[e->n_stats++] = stat_ref(SM_HLO, SM_CONV7);
    else if (hlo)
        e->stats[e->n_stats++] = stat_str(SM_HLO, hlo);
    return e;
}

static TlmXp__XLine *line(int64_t id, const char *name, int64_t ts_ns,
                          size_t cap)
{
    TlmXp__XLine *l = calloc(1, sizeof *l);
    tlm_xp__xline__init(l);
    l->id = id;
    l->display_id = id;
    l->name = (char *)name;
    l->timestamp_ns = ts_ns;
    l->events = calloc(cap ? cap : 1, sizeof *l->events);
    return l;
}

static void add_md(TlmXp__XPlane *p, const md *m)
{
    TlmXp__XPlane__EventMetadataEntry *e = calloc(1, sizeof *e);
    TlmXp__XEventMetadata *v = calloc(1, sizeof *v);
    tlm_xp__xplane__event_metadata_entry__init(e);
    tlm_xp__xevent_metadata__init(v);
    v->id = m->id;
    v->name = (char *)m->name;
    if (m->display)
        v->display_name = (char *)m->display;
    if (m->hlo) {
        v->stats = calloc(1, sizeof *v->stats);
        v->stats[v->n_stats++] = stat_str(SM_HLO, m->hlo);
    }
    e->key = m->id;
    e->value = v;
    p->event_metadata[p->n_event_metadata++] = e;
}

static void add_smd(TlmXp__XPlane *p, int64_t id, const char *name)
{
    TlmXp__XPlane__StatMetadataEntry *e = calloc(1, sizeof *e);
    TlmXp__XStatMetadata *v = calloc(1, sizeof *v);
    tlm_xp__xplane__stat_metadata_entry__init(e);
    tlm_xp__xstat_metadata__init(v);
    v->id = id;
    v->name = (char *)name;
    e->key = id;
    e->value = v;
    p->stat_metadata[p->n_stat_metadata++] = e;
}

static TlmXp__XPlane *plane(int64_t id, const char *name, const md *mds,
                            size_t nmd, size_t nlines)
{
    TlmXp__XPlane *p = calloc(1, sizeof *p);
    tlm_xp__xplane__init(p);
    p->id = id;
    p->name = (char *)name;
    p->lines = calloc(nlines ? nlines : 1, sizeof *p->lines);
    p->event_metadata = calloc(nmd ? nmd : 1, sizeof *p->event_metadata);
    p->stat_metadata = calloc(3, sizeof *p->stat_metadata);
    for (size_t i = 0; i < nmd; i++)
        add_md(p, &mds[i]);
    add_smd(p, SM_HLO, "hlo_op");
    add_smd(p, SM_CORR, "correlation_id");
    add_smd(p, SM_CONV7, "conv.7");
    return p;
}

static void free_stats(TlmXp__XStat **st, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(st[i]);
    free(st);
}

static void free_line(TlmXp__XLine *l)
{
    for (size_t k = 0; k < l->n_events; k++) {
        free_stats(l->events[k]->stats, l->events[k]->n_stats);
        free(l->events[k]);
    }
    free(l->events);
    free(l);
}

static void free_plane(TlmXp__XPlane *p)
{
    for (size_t i = 0; i < p->n_lines; i++)
        free_line(p->lines[i]);
    for (size_t i = 0; i < p->n_event_metadata; i++) {
        TlmXp__XEventMetadata *v = p->event_metadata[i]->value;
        free_stats(v->stats, v->n_stats);
        free(v);
        free(p->event_metadata[i]);
    }
    for (size_t i = 0; i < p->n_stat_metadata; i++) {
        free(p->stat_metadata[i]->value);
        free(p->stat_metadata[i]);
    }
    free(p->lines);
    free(p->event_metadata);
    free(p->stat_metadata);
    free(p);
}

/* The XSpace's bytes written to path; the planes freed. */
static int write_space(const char *path, TlmXp__XPlane **planes, size_t n)
{
    TlmXp__XSpace s;
    tlm_xp__xspace__init(&s);
    s.planes = planes;
    s.n_planes = n;
    size_t len = tlm_xp__xspace__get_packed_size(&s);
    uint8_t *b = malloc(len ? len : 1);
    tlm_xp__xspace__pack(&s, b);
    for (size_t i = 0; i < n; i++)
        free_plane(planes[i]);
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(b, 1, len, f) != len;
    if ((f && fclose(f) != 0) || bad) {
        perror(path);
        free(b);
        return 1;
    }
    free(b);
    return 0;
}

/* ------------------------------------------------------------ kinds */

static const md gpu_mds[] = {
    {1, "Cijk_Alik_Bljk_HHS", NULL, NULL},
    {2, "loop_add_fusion_12", NULL, NULL},
    {3, "ncclDevKernel_AllReduce", NULL, NULL},
    {4, "MemcpyD2D", NULL, NULL},
    {5, "_Z9my_kernelv", "my_kernel", NULL},
    {6, "loop_add_fusion_3", NULL, "add.3"},
    {7, "MemcpyH2D", NULL, NULL},
    {8, "dot.1", NULL, NULL},
    {9, "loop_add_fusion_7", NULL, NULL},
    {10, "input_reduce_fusion", NULL, NULL},
};
#define N_GPU_MDS (sizeof gpu_mds / sizeof gpu_mds[0])

static TlmXp__XPlane *host_plane(void)
{
    static const md host_mds[] = {{1, "PjitFunction(train_step)", NULL,
                                   NULL}};
    TlmXp__XPlane *h = plane(0, "/host:CPU", host_mds, 1, 1);
    TlmXp__XLine *l = line(1000, "python3", 1000, 1);
    l->events[l->n_events++] = event(1, 0, 40 * PS_US, NULL);
    h->lines[h->n_lines++] = l;
    return h;
}

static int gen_small(const char *out)
{
    const int64_t T = 1000; /* line start, ns */
    TlmXp__XPlane *g0 = plane(0, "/device:GPU:0", gpu_mds, N_GPU_MDS, 3);
    TlmXp__XLine *s1 = line(1, "Stream #1(Compute)", T, 8);
    s1->events[s1->n_events++] = event(1, 0, 10 * PS_US, "dot.1");
    s1->events[s1->n_events++] = event(2, 12 * PS_US, 3 * PS_US, "add.12");
    s1->events[s1->n_events++] = event(3, 14 * PS_US, 6 * PS_US,
                                       "all-reduce.3");
    s1->events[s1->n_events++] = event(4, 22 * PS_US, 2 * PS_US, NULL);
    s1->events[s1->n_events++] = event(5, 25 * PS_US, 1500000, "@conv7");
    s1->events[s1->n_events++] = event(6, 30 * PS_US, 1200000, NULL);
    TlmXp__XLine *s2 = line(2, "Stream #2(MemcpyH2D)", T, 1);
    s2->events[s2->n_events++] = event(7, 5 * PS_US, 4 * PS_US, NULL);
    TlmXp__XLine *ops = line(3735928560LL, "XLA Ops", T, 1);
    ops->events[ops->n_events++] = event(8, 0, 10 * PS_US, NULL);
    g0->lines[g0->n_lines++] = s1;
    g0->lines[g0->n_lines++] = s2;
    g0->lines[g0->n_lines++] = ops;
    TlmXp__XPlane *g1 = plane(1, "/device:GPU:1", gpu_mds, N_GPU_MDS, 1);
    TlmXp__XLine *t1 = line(1, "Stream #1(Compute)", T + 500, 3);
    t1->events[t1->n_events++] = event(1, 0, 8 * PS_US, "dot.1");
    t1->events[t1->n_events++] = event(9, 9 * PS_US, 2 * PS_US, "add.7");
    t1->events[t1->n_events++] = event(10, 12 * PS_US, 500000, "reduce.4");
    g1->lines[g1->n_lines++] = t1;
    TlmXp__XPlane *planes[] = {host_plane(), g0, g1};
    return write_space(out, planes, 3);
}

static int gen_nogpu(const char *out)
{
    TlmXp__XPlane *planes[] = {host_plane()};
    return write_space(out, planes, 1);
}

static int gen_noevents(const char *out)
{
    TlmXp__XPlane *g0 = plane(0, "/device:GPU:0", gpu_mds, N_GPU_MDS, 1);
    TlmXp__XLine *ops = line(3735928560LL, "XLA Ops", 1000, 1);
    ops->events[ops->n_events++] = event(8, 0, 10 * PS_US, NULL);
    g0->lines[g0->n_lines++] = ops;
    TlmXp__XPlane *planes[] = {host_plane(), g0};
    return write_space(out, planes, 2);
}

static int write_bytes(const char *out, const unsigned char *b, size_t n)
{
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
        perror(out);
        return 1;
    }
    return 0;
}

#define GPU0 0x12, 13, '/', 'd', 'e', 'v', 'i', 'c', 'e', ':', 'G', 'P', \
             'U', ':', '0'

/* XEvent.duration_ps as an 11-byte varint at offset 22. */
static int gen_badvarint(const char *out)
{
    static const unsigned char b[] = {
        0x0a, 32, GPU0, 0x1a, 15, 0x22, 13, 0x18, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    return write_bytes(out, b, sizeof b);
}

/* XPlane.lines (key at offset 17) of length 127 with 2 bytes left. */
static int gen_pastend(const char *out)
{
    static const unsigned char b[] = {0x0a, 19, GPU0, 0x1a, 0x7f, 0x08,
                                      0x01};
    return write_bytes(out, b, sizeof b);
}

/* XPlane.id (key at offset 17) length-delimited. */
static int gen_wiretype(const char *out)
{
    static const unsigned char b[] = {0x0a, 18, GPU0, 0x0a, 0x01, 0x00};
    return write_bytes(out, b, sizeof b);
}

/* ------------------------------------------------------------ big */

static void put_varint(FILE *f, uint64_t v)
{
    while (v >= 0x80) {
        fputc((int)(v & 0x7f) | 0x80, f);
        v >>= 7;
    }
    fputc((int)v, f);
}

/* mb megabytes: 8 GPU planes of lines of 50,000 kernels each; each line
 * packed on its own, a plane's bytes framed by hand. */
static int gen_big(const char *out, long mb)
{
    FILE *f = fopen(out, "wb");
    if (!f) {
        perror(out);
        return 1;
    }
    long per_plane = mb * 1000000L / 8;
    for (int g = 0; g < 8; g++) {
        char name[32];
        snprintf(name, sizeof name, "/device:GPU:%d", g);
        TlmXp__XPlane *p = plane(g, name, gpu_mds, N_GPU_MDS, 0);
        size_t hl = tlm_xp__xplane__get_packed_size(p);
        uint8_t *head = malloc(hl);
        tlm_xp__xplane__pack(p, head);
        size_t cap = (size_t)per_plane + (1 << 22), len = hl;
        uint8_t *body = malloc(cap);
        memcpy(body, head, hl);
        free(head);
        for (int li = 0; (long)len < per_plane; li++) {
            TlmXp__XLine *l = line(1 + li % 4, "Stream #1(Compute)",
                                   1000000LL * li, 50000);
            for (int k = 0; k < 50000; k++)
                l->events[l->n_events++] =
                    event(1 + k % 10, (int64_t)k * 3 * PS_US, 2 * PS_US,
                          k % 3 ? "fusion.1" : NULL);
            size_t ll = tlm_xp__xline__get_packed_size(l);
            uint8_t tmp[10];
            size_t nh = 1;
            tmp[0] = 0x1a;
            for (uint64_t v = ll; ; v >>= 7) {
                tmp[nh++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
                if (v < 0x80)
                    break;
            }
            memcpy(body + len, tmp, nh);
            tlm_xp__xline__pack(l, body + len + nh);
            len += nh + ll;
            free_line(l);
        }
        free_plane(p);
        fputc(0x0a, f);
        put_varint(f, len);
        fwrite(body, 1, len, f);
        free(body);
    }
    return fclose(f) != 0;
}

#ifndef TLM_GEN_XPLANE_NO_MAIN /* unit tests include the builders */
int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tlm-gen-xplane KIND OUT [MB]\n");
        return 2;
    }
    const char *k = argv[1], *out = argv[2];
    if (!strcmp(k, "small"))
        return gen_small(out);
    if (!strcmp(k, "nogpu"))
        return gen_nogpu(out);
    if (!strcmp(k, "noevents"))
        return gen_noevents(out);
    if (!strcmp(k, "badvarint"))
        return gen_badvarint(out);
    if (!strcmp(k, "pastend"))
        return gen_pastend(out);
    if (!strcmp(k, "wiretype"))
        return gen_wiretype(out);
    if (!strcmp(k, "big"))
        return gen_big(out, argc > 3 ? atol(argv[3]) : 100);
    fprintf(stderr, "tlm-gen-xplane: unknown kind %s\n", k);
    return 2;
}
#endif
