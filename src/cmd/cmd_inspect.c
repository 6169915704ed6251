/*
 * cmd_inspect.c - `tlmpi inspect TRACE...`: one streaming read per file,
 * then event counts by (ph, cat), the trace's distributed metadata, bytes
 * read and throughput.  With --keep every event is kept in memory as the
 * analyses do (for memory measurements).
 */
#include "cli.h"
#include "slip.h"
#include "xplane_cli.h"

#include "tlmpi/tlm_rocprof.h"
#include "tlmpi/tlm_format.h"
#include "tlmpi/tlm_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include <time.h>

typedef struct pc_count {
    char ph;
    uint32_t cat; /* interned cat string id; 0 = absent */
    int has_cat;
    uint64_t n;
} pc_count;

typedef struct counter {
    pc_count *v;
    size_t n, cap;
} counter;

/* Counts one (ph, cat); -1 out of memory. */
static int bump(counter *c, char ph, uint32_t cat, int has_cat)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].ph == ph && c->v[i].cat == cat &&
            c->v[i].has_cat == has_cat) {
            c->v[i].n++;
            return 0;
        }
    }
    if (tlm_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v, 16))
        return -1;
    c->v[c->n].ph = ph;
    c->v[c->n].cat = cat;
    c->v[c->n].has_cat = has_cat;
    c->v[c->n].n = 1;
    c->n++;
    return 0;
}

/* The reader's per-event callback: the counts. */
static tlm_status on_event(void *ud, tlm_trace *t, const tlm_event *ev,
                           uint64_t index, tlm_error *err)
{
    (void)t;
    (void)index;
    (void)err;
    counter *c = ud;
    /* "cat" absent shows as None, as Python's json.get would */
    int has_cat = ev->cat != TLM_CAT_NONE;
    return bump(c, ev->ph, ev->cat_str, has_cat) == 0 ? TLM_OK : TLM_ENOMEM;
}

/* Most frequent first. */
static int by_count(const void *a, const void *b)
{
    const pc_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    if (x->ph != y->ph)
        return x->ph < y->ph ? -1 : 1;
    return x->cat < y->cat ? -1 : x->cat > y->cat;
}

/* Monotonic seconds. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The usage text of tlmpi inspect. */
static void usage(FILE *f)
{
    fprintf(f,
            "usage: tlmpi inspect [--keep] [--chunk BYTES] TRACE...\n"
            "  Reads each trace (found by content: Kineto JSON, rocprofv3\n"
            "  JSON or XPlane protobuf, plain or gzip) in one streaming pass\n"
            "  and prints its format, event (or record) counts, the\n"
            "  distributedInfo metadata or the GPU arch, bytes read and MB/s.\n"
            "  An XPlane (JAX *.xplane.pb; a folder: the XPlane in it)\n"
            "  prints its planes, lines and events.\n"
            "  --keep         keep every event in memory (as the analyses "
            "do)\n"
            "  --chunk BYTES  read/inflate step (default 1048576)\n");
}

/* A rocprofv3 JSON: what the reader keeps, the GPU, the speed. */
static int inspect_rocprof(const char *path, int keep, size_t chunk)
{
    (void)keep; /* the records are always kept */
    tlm_rocprof_opts o;
    memset(&o, 0, sizeof o);
    o.chunk_size = chunk;
    tlm_rocprof *rp = NULL;
    tlm_error err;
    double t0 = now_s();
    tlm_status st = tlm_rocprof_read_file(path, &o, &rp, &err);
    double dt = now_s() - t0;
    if (st != TLM_OK) {
        char msg[1024];
        fprintf(stderr, "tlmpi inspect: error: %s\n",
                tlm_error_format(&err, msg, sizeof msg));
        return 1;
    }
    const tlm_rp_meta *m = tlm_rocprof_meta(rp);
    size_t nk, nc, na, nag, nhsa = 0;
    tlm_rocprof_kernels(rp, &nk);
    tlm_rocprof_copies(rp, &nc);
    const tlm_rp_api *api = tlm_rocprof_apis(rp, &na);
    tlm_rocprof_agents(rp, &nag);
    for (size_t i = 0; i < na; i++)
        nhsa += api[i].hsa != 0;
    const char *prod = "", *arch = tlm_rocprof_gpu_arch(rp, &prod);
    char ab[128], pb[128], hb[128];
    printf("%s\n", tlm_esc(path));
    printf("  trace format: %s\n",
           tlm_sniff_format_name(TLM_FORMAT_ROCPROF_JSON));
    printf("  format: %s", m->gzip ? "gzip" : "json");
    if (m->gzip)
        printf(" (%u member%s)", m->gzip_members,
               m->gzip_members == 1 ? "" : "s");
    printf("\n  bytes on disk: %llu; bytes of JSON: %llu\n",
           (unsigned long long)m->bytes_in,
           (unsigned long long)m->bytes_json);
    printf("  kernel dispatches: %zu; memory copies: %zu; hip_api: %zu; "
           "hsa_api: %zu; agents: %zu\n", nk, nc, na - nhsa, nhsa, nag);
    printf("  GPU arch: %s", arch ? tlm_escape_ctrl(ab, sizeof ab, arch)
                                  : "unknown");
    if (*prod)
        printf(" (%s)", tlm_escape_ctrl(pb, sizeof pb, prod));
    printf("\n  pid: %lld; host: %s\n", (long long)m->pid,
           m->hostname ? tlm_escape_ctrl(hb, sizeof hb,
                                         tlm_rocprof_str(rp, m->hostname,
                                                         NULL))
                       : "None");
    printf("  read: %.3f s, %.1f MB/s of JSON\n", dt,
           dt > 0 ? (double)m->bytes_json / 1e6 / dt : 0.0);
    tlm_rocprof_free(rp);
    return 0;
}

/* A PyTorch profiler trace (Kineto JSON, and what no format claims: the
 * reader says what is wrong): event counts, metadata, the speed. */
static int inspect_kineto(const char *path, int keep, size_t chunk)
{
    counter c = {0};
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.keep_events = keep;
    o.chunk_size = chunk;
    o.on_event = on_event;
    o.on_event_ud = &c;
    tlm_trace *t = NULL;
    tlm_error err;
    double t0 = now_s();
    tlm_status st = tlm_trace_read_file(path, &o, &t, &err);
    double dt = now_s() - t0;
    if (st != TLM_OK) {
        char msg[1024];
        fprintf(stderr, "tlmpi inspect: error: %s\n",
                tlm_error_format(&err, msg, sizeof msg));
        free(c.v);
        return 1;
    }
    const tlm_read_stats *s = tlm_trace_stats(t);
    const tlm_trace_meta *m = tlm_trace_meta_get(t);
    qsort(c.v, c.n, sizeof *c.v, by_count);
    printf("%s\n", tlm_esc(path));
    printf("  trace format: %s\n",
           tlm_sniff_format_name(TLM_FORMAT_KINETO_JSON));
    printf("  format: %s", s->gzip ? "gzip" : "json");
    if (s->gzip)
        printf(" (%u member%s)", s->gzip_members,
               s->gzip_members == 1 ? "" : "s");
    printf("\n  bytes on disk: %llu; bytes of JSON: %llu\n",
           (unsigned long long)s->bytes_in, (unsigned long long)s->bytes_json);
    printf("  events: %llu\n", (unsigned long long)s->n_events);
    if (s->n_lone_surrogates > 0)
        printf("  warning: %llu lone surrogate escape%s replaced by "
               "U+FFFD\n", (unsigned long long)s->n_lone_surrogates,
               s->n_lone_surrogates == 1 ? "" : "s");
    printf("  events by (ph, cat):");
    for (size_t i = 0; i < c.n; i++) {
        const char *cat =
            c.v[i].has_cat ? tlm_trace_str(t, c.v[i].cat, NULL) : "None";
        char ph[2] = {c.v[i].ph ? c.v[i].ph : '?', 0};
        printf("%s %s/%s=%llu", i ? "," : "", ph, tlm_esc(cat),
               (unsigned long long)c.v[i].n);
    }
    printf("\n");
    if (m->has_distributed) {
        printf("  distributedInfo rank/world: ");
        if (m->rank >= 0)
            printf("%lld", (long long)m->rank);
        else
            printf("None");
        if (m->world_size >= 0)
            printf("/%lld", (long long)m->world_size);
        else
            printf("/None");
        printf("; process groups: %zu", m->n_pgs);
        if (m->backend)
            printf("; backend: %s",
                   tlm_esc(tlm_trace_str(t, m->backend, NULL)));
        if (m->nccl_version)
            printf("; nccl: %s",
                   tlm_esc(tlm_trace_str(t, m->nccl_version, NULL)));
        printf("\n");
    } else {
        printf("  distributedInfo rank/world: None/None\n");
    }
    if (m->has_base_time)
        printf("  baseTimeNanoseconds: %lld\n", (long long)m->base_time_ns);
    if (keep) {
        size_t n;
        tlm_trace_events(t, &n);
        printf("  kept in memory: %zu events, %u strings\n", n,
               tlm_trace_str_count(t));
    }
    printf("  read: %.3f s, %.1f MB/s of JSON\n", dt,
           dt > 0 ? (double)s->bytes_json / 1e6 / dt : 0.0);
    tlm_trace_free(t);
    free(c.v);
    return 0;
}

/* An XPlane (JAX; a folder: the XPlane in it): planes, lines, events. */
static int inspect_xplane(const char *path, int keep, size_t chunk)
{
    (void)keep;
    (void)chunk;
    return tlm_cli_xplane_inspect(path);
}

/* The inspection of each trace format (tlm_format.h), indexed by its id. */
static int (*const inspect_by_format[TLM_FORMAT_COUNT])(const char *, int,
                                                         size_t) = {
    [TLM_FORMAT_UNKNOWN] = inspect_kineto,
    [TLM_FORMAT_KINETO_JSON] = inspect_kineto,
    [TLM_FORMAT_ROCPROF_JSON] = inspect_rocprof,
    [TLM_FORMAT_XPLANE] = inspect_xplane,
};

/* One file: its format found by content, then its inspection. */
static int inspect_one(const char *path, int keep, size_t chunk)
{
    int fmt;
    if (tlm_format_detect(path, &fmt) != TLM_OK) {
        fprintf(stderr, "tlmpi inspect: error: %s: out of memory\n",
                tlm_esc(path));
        return 1;
    }
    if (fmt != TLM_FORMAT_XPLANE && tlm_cmd_trace_is_folder("inspect", path))
        return 1; /* a folder that holds no XPlane run */
    return inspect_by_format[fmt](path, keep, chunk);
}

int tlm_cmd_inspect(int argc, char **argv)
{
    int keep = 0, rc = 0, nfiles = 0;
    size_t chunk = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--keep") == 0) {
            keep = 1;
        } else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
            char *end;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || v == 0) {
                fprintf(stderr, "tlmpi inspect: bad --chunk '%s'\n", argv[i]);
                return 2;
            }
            chunk = (size_t)v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            tlm_cmd_unknown_opt("inspect", argv[i], usage);
            return 2;
        }
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--chunk") == 0) {
            i++;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1])
            continue;
        nfiles++;
        if (inspect_one(argv[i], keep, chunk) != 0)
            rc = 1;
    }
    if (nfiles == 0) {
        usage(stderr);
        return 2;
    }
    return rc;
}
