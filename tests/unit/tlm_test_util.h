/*
 * tlm_test_util.h - helpers shared by the reader's unit tests (header only:
 * every test is its own executable).
 *
 *   tt_gzip()        gzip a buffer in memory (zlib, deflateInit2(..., 31,
 *                    ...)): one complete gzip member.
 *   tt_gzip_members() the buffer cut into members at given offsets.
 *   tt_fail_alloc    a tlm_alloc that fails the Nth allocation (curl's
 *                    torture mode) and counts live blocks, so a test can
 *                    assert that every failure path frees what it took.
 *   tt_read_*()      tlm_trace_read_mem with a chosen chunk size.
 *   tt_read_sq()     tlm_trace_read_mem of JSON written with ' for ".
 *   TT_CPU() ...     one Kineto event each (cpu_op, runtime launch, kernel,
 *                    flow start/finish) for traces written in a test, and
 *                    TT_NESTED, a small trace of two linked launches.
 *   tt_tmpdir()      a fresh temporary folder.
 *   tt_synth_rank0() rank 0's trace of a small synthesized job.
 *   tt_rm_rf()       removes a folder and what it holds.
 *
 * Helpers abort the test program (never the library) when the test setup
 * itself fails.
 */
#ifndef TLM_TEST_UTIL_H
#define TLM_TEST_UTIL_H

#include "tlmpi/tlm_synth.h"
#include "tlmpi/tlm_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#if defined(__GNUC__) || defined(__clang__)
#define TT_UNUSED __attribute__((unused))
#else
#define TT_UNUSED
#endif

static TT_UNUSED void tt_die(const char *what)
{
    fprintf(stderr, "test setup failed: %s\n", what);
    abort();
}

/* ------------------------------------------------------------------ MARK:
 * gzip in memory. */

/* Appends one gzip member holding data[0..n) to *buf (realloc'd), *len
 * updated.  level: 0..9. */
static TT_UNUSED void tt_gzip_append(unsigned char **buf, size_t *len,
                                     const void *data, size_t n, int level)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        tt_die("deflateInit2");
    uLong bound = deflateBound(&zs, (uLong)n) + 64;
    unsigned char *nb = realloc(*buf, *len + bound);
    if (!nb)
        tt_die("realloc");
    *buf = nb;
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)n;
    zs.next_out = nb + *len;
    zs.avail_out = (uInt)bound;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        tt_die("deflate");
    *len += bound - zs.avail_out;
    deflateEnd(&zs);
}

/* One gzip member of data; caller frees. */
static TT_UNUSED unsigned char *tt_gzip(const void *data, size_t n,
                                        size_t *out_len)
{
    unsigned char *buf = NULL;
    *out_len = 0;
    tt_gzip_append(&buf, out_len, data, n, 6);
    return buf;
}

/* data cut at the nc offsets cuts[] (ascending, may repeat: empty members)
 * into nc + 1 gzip members, concatenated; caller frees. */
static TT_UNUSED unsigned char *tt_gzip_members(const void *data, size_t n,
                                                const size_t *cuts,
                                                size_t nc, size_t *out_len)
{
    unsigned char *buf = NULL;
    const unsigned char *d = data;
    size_t prev = 0;
    *out_len = 0;
    for (size_t i = 0; i <= nc; i++) {
        size_t end = i < nc ? cuts[i] : n;
        tt_gzip_append(&buf, out_len, d + prev, end - prev,
                       (int)(i % 10));
        prev = end;
    }
    return buf;
}

/* ------------------------------------------------------------------ MARK:
 * A failing allocator: the fail_at-th allocation (malloc or growing
 * realloc, counted from 1) and every later one fail when sticky, only that
 * one otherwise.  live counts blocks not yet freed. */

typedef struct tt_fail_alloc {
    tlm_alloc a;
    long fail_at;  /* 0: never fail */
    int sticky;
    long count;    /* allocations attempted */
    long failed;   /* allocations refused */
    long live;     /* blocks held */
} tt_fail_alloc;

static TT_UNUSED int tt_fa_should_fail(tt_fail_alloc *f)
{
    f->count++;
    if (f->fail_at > 0 &&
        (f->count == f->fail_at || (f->sticky && f->count > f->fail_at))) {
        f->failed++;
        return 1;
    }
    return 0;
}

static TT_UNUSED void *tt_fa_malloc(void *ctx, size_t size)
{
    tt_fail_alloc *f = ctx;
    if (tt_fa_should_fail(f))
        return NULL;
    void *p = malloc(size ? size : 1);
    if (p)
        f->live++;
    return p;
}

static TT_UNUSED void *tt_fa_realloc(void *ctx, void *ptr, size_t size)
{
    tt_fail_alloc *f = ctx;
    if (tt_fa_should_fail(f))
        return NULL;
    void *p = realloc(ptr, size ? size : 1);
    if (p && !ptr)
        f->live++;
    return p;
}

static TT_UNUSED void tt_fa_free(void *ctx, void *ptr)
{
    tt_fail_alloc *f = ctx;
    if (ptr)
        f->live--;
    free(ptr);
}

static TT_UNUSED void tt_fail_alloc_init(tt_fail_alloc *f, long fail_at,
                                         int sticky)
{
    memset(f, 0, sizeof *f);
    f->a.malloc_fn = tt_fa_malloc;
    f->a.realloc_fn = tt_fa_realloc;
    f->a.free_fn = tt_fa_free;
    f->a.ctx = f;
    f->fail_at = fail_at;
    f->sticky = sticky;
}

/* ------------------------------------------------------------------ MARK:
 * Reading. */

/* tlm_trace_read_mem of a NUL-terminated JSON text with chunk_size chunk
 * (0 = default) and otherwise default options. */
static TT_UNUSED tlm_status tt_read_chunk(const char *json, size_t chunk,
                                          tlm_trace **t, tlm_error *err)
{
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.chunk_size = chunk;
    return tlm_trace_read_mem(json, strlen(json), "t.json", &o, t, err);
}

static TT_UNUSED tlm_trace *tt_read_ok(const char *json)
{
    tlm_trace *t = NULL;
    tlm_error err;
    tlm_status st = tt_read_chunk(json, 0, &t, &err);
    if (st != TLM_OK) {
        char buf[1024];
        fprintf(stderr, "unexpected error: %s\n  input: %s\n",
                tlm_error_format(&err, buf, sizeof buf), json);
        return NULL;
    }
    return t;
}

/* tlm_trace_read_mem of JSON written with ' for " (easier to read in C
 * strings: every ' becomes "); aborts when the trace does not read. */
static TT_UNUSED tlm_trace *tt_read_sq(const char *sq)
{
    size_t n = strlen(sq);
    char *s = malloc(n + 1);
    if (!s)
        tt_die("malloc");
    for (size_t i = 0; i <= n; i++)
        s[i] = sq[i] == '\'' ? '"' : sq[i];
    tlm_trace *t = NULL;
    tlm_error err;
    if (tlm_trace_read_mem(s, n, "t.json", NULL, &t, &err) != TLM_OK) {
        fprintf(stderr, "read: %s\n", err.msg);
        tt_die("tlm_trace_read_mem");
    }
    free(s);
    return t;
}

/* Events of a trace written with ' for " (tt_read_sq); times in us. */
#define TT_CPU(name, ts, dur, tid)                                        \
    "{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':" #tid      \
    ",'ts':" #ts ",'dur':" #dur "}"
#define TT_RT(name, ts, dur, corr)                                        \
    "{'ph':'X','cat':'cuda_runtime','name':'" name                        \
    "','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur                          \
    ",'args':{'correlation':" #corr "}}"
#define TT_KER(name, ts, dur, corr, stream)                               \
    "{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':" #stream   \
    ",'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #corr           \
    ",'stream':" #stream ",'device':0}}"
#define TT_FLOW_S(id, ts)                                                 \
    "{'ph':'s','cat':'ac2g','name':'ac2g','id':" #id                      \
    ",'pid':1,'tid':1,'ts':" #ts "}"
#define TT_FLOW_F(id, ts, stream)                                         \
    "{'ph':'f','cat':'ac2g','name':'ac2g','id':" #id                      \
    ",'pid':0,'tid':" #stream ",'ts':" #ts ",'bp':'e'}"

/* Two ops launching one kernel each (linked by flows), an op without GPU
 * work and a stray kernel.  UIDs in the comments. */
#define TT_NESTED                                                         \
    "{'traceEvents':["                                                    \
    TT_CPU("aten::linear", 0, 100, 1) ","            /* 0 */              \
    TT_CPU("aten::addmm", 10, 50, 1) ","             /* 1 */              \
    TT_RT("cudaLaunchKernel", 20, 5, 7) ","          /* 2 */              \
    TT_KER("gemm_kernel", 30, 40, 7, 7) ","          /* 3 */              \
    TT_FLOW_S(7, 20) "," TT_FLOW_F(7, 30, 7) ","     /* 4, 5 */           \
    TT_CPU("aten::add", 60, 10, 1) ","               /* 6: touching 1 */  \
    TT_RT("cudaLaunchKernel", 62, 2, 8) ","          /* 7 */              \
    TT_KER("add_kernel", 75, 5, 8, 7) ","            /* 8 */              \
    TT_FLOW_S(8, 62) "," TT_FLOW_F(8, 75, 7) ","     /* 9, 10 */          \
    TT_CPU("aten::empty", 100, 1, 1) ","             /* 11: touches 0 */  \
    TT_KER("stray_kernel", 200, 3, 99, 7)            /* 12: no launch */  \
    "]}"

/* Whole file into memory; caller frees.  NULL (and *len 0) when it cannot
 * be read. */
static TT_UNUSED unsigned char *tt_slurp(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        if (n == cap) {
            unsigned char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return b;
}

static TT_UNUSED void tt_write_file(const char *path, const void *data,
                                    size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0)
        tt_die(path);
}

/* A fresh folder under $TMPDIR (or /tmp); fills buf. */
static TT_UNUSED char *tt_tmpdir(char *buf, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, size, "%s/tlmtestXXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(buf))
        tt_die("mkdtemp");
    return buf;
}

static TT_UNUSED void tt_rm_rf(const char *dir)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tt_die("rm -rf");
}

/* Synthesizes rank 0 of a 2-rank job (tp 2, one node) into a fresh folder
 * (dir, >= 64 bytes) and puts its trace's path in path: about target_size
 * bytes of JSON (0: two training steps).  Remove dir with tt_rm_rf. */
static TT_UNUSED void tt_synth_rank0(char *dir, size_t dsize, char *path,
                                     size_t psize, uint64_t target_size,
                                     uint64_t seed)
{
    tt_tmpdir(dir, dsize);
    tlm_synth_opts so;
    tlm_synth_opts_init(&so);
    so.out_dir = dir;
    so.world_size = 2;
    so.tp = 2;
    so.gpus_per_node = 2;
    so.seed = seed;
    so.target_size = target_size;
    static const int only[1] = {0};
    so.only_ranks = only;
    so.n_only_ranks = 1;
    tlm_synth_truth *truth = NULL;
    if (tlm_synth_run(&so, &truth, NULL) != TLM_OK)
        tt_die("tlm_synth_run");
    snprintf(path, psize, "%s/%s", dir, truth->ranks[0].trace_file);
    tlm_synth_truth_free(truth);
}

#endif /* TLM_TEST_UTIL_H */
