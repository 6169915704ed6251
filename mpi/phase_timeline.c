/*
 * phase_timeline.c - the timeline phase: --merged_trace written (mtrace.h
 * has the whole flow).  After the collective phase every process knows
 * its traces' clock offsets (c->k.offsets) and their matched members
 * (c->k.mrows); this phase
 *
 *   1. gives each member's anchor its flow role: the members of an
 *      instance meet at one process (flow id modulo the processes), are
 *      ordered by corrected time there (tlm_mtrace_roles) and the roles
 *      go back to the anchors' holders;
 *   2. compresses this process's part records with each trace's shift
 *      (base time relative to the first trace's, minus its offset) and
 *      its flow events into one raw deflate segment: rank 0's straight
 *      into the staged output after the head, the others' into a local
 *      unlinked temporary;
 *   3. sends the segments to rank 0 in process order, in messages of at
 *      most 4 MiB; rank 0 appends them, then the tail and the gzip
 *      trailer (CRCs combined).
 *
 * The status is agreed before each exchange (TLM_MPI_CHECK), so a failure
 * anywhere ends every process here; the output set is published (or
 * removed) by the publish phase as usual.  One module of the driver
 * (module.h, its row tlm_mpi_mod_timeline at the end), with its setup and
 * read sides (mtrace.h): the output staged by the setup phase, each
 * trace's events written into this process's part file while reading.
 */
#include "driver.h"
#include "exchange.h"
#include "module.h"
#include "mtrace.h"
#include "mtrace_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tlmpi/tlm_version.h"
#include "grow.h"
#include "search.h"

#define CHUNK (4u << 20)
#define TAG 2207

static int64_t shift_of(void *arg, int32_t rank)
{
    const tlm_mpi_ctx *c = arg;
    int64_t pos = tlm_mpi_rank_pos(c, rank);
    if (pos < 0 || c->n_res == 0)
        return 0;
    int64_t off = c->k.offsets ? c->k.offsets[pos] : 0;
    return c->res[pos].row.base_time_ns - c->res[0].row.base_time_ns - off;
}

/* ------------------------------------------------------------ roles */

static int cmp_anchor(const void *a, const void *b)
{
    const tlm_mtrace_anchor *x = a, *y = b;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    return (x->event_index > y->event_index) -
           (x->event_index < y->event_index);
}

/* tlm_lower_bound's order: > 0 when anchor elem is before key by
 * (trace_rank, event_index). */
static int anchor_before(const void *key, const void *elem)
{
    const tlm_mtrace_anchor *k = key, *a = elem;
    return a->trace_rank < k->trace_rank ||
           (a->trace_rank == k->trace_rank &&
            a->event_index < k->event_index);
}

/* The index of the anchor of (rank, ei), or -1. */
static int64_t find_anchor(const tlm_mtrace_anchors *an, int32_t rank,
                           uint64_t ei)
{
    tlm_mtrace_anchor key;
    memset(&key, 0, sizeof key);
    key.trace_rank = rank;
    key.event_index = ei;
    size_t lo = tlm_lower_bound(an->v, an->n, sizeof *an->v, &key,
                                anchor_before);
    return lo < an->n && an->v[lo].trace_rank == rank &&
                   an->v[lo].event_index == ei
               ? (int64_t)lo
               : -1;
}

/* The matched members' anchors with their corrected times, to the
 * owners of their instances. */
static tlm_status make_items(tlm_mpi_ctx *c, tlm_mtrace_anchors *an,
                             tlm_mtrace_item **items, int **dest, size_t *n)
{
    const tlm_mpi_colls *k = &c->k;
    *n = 0;
    *items = malloc((k->n_mrows ? k->n_mrows : 1) * sizeof **items);
    *dest = malloc((k->n_mrows ? k->n_mrows : 1) * sizeof **dest);
    if (!*items || !*dest)
        return TLM_ENOMEM;
    for (size_t i = 0; i < k->n_mrows; i++) {
        const tlm_row_member *r = &k->mrows[i];
        int64_t at = find_anchor(an, r->trace_rank, (uint64_t)r->event_index);
        if (at < 0)
            continue;
        /* the flow joins the members of the instance the matcher made (a
         * record's own seq may be an unaligned ordinal) */
        tlm_mtrace_anchor *a = &an->v[at];
        a->match_key = r->match_key;
        a->seq = r->match_seq;
        a->flow_id = tlm_mtrace_flow_id(r->match_key, r->match_seq);
        tlm_mtrace_item *it = &(*items)[*n];
        memset(it, 0, sizeof *it);
        it->match_key = a->match_key;
        it->seq = a->seq;
        it->ts_ns = a->ts_ns + shift_of(c, a->trace_rank);
        it->idx = at;
        it->trace_rank = a->trace_rank;
        it->src = c->me;
        (*dest)[*n] = (int)(a->flow_id % (uint64_t)c->np);
        (*n)++;
    }
    return TLM_OK;
}

static tlm_status flow_roles(tlm_mpi_ctx *c, tlm_mtrace_anchors *an,
                             tlm_error *err)
{
    tlm_status st = TLM_OK;
    tlm_mtrace_item *items = NULL;
    int *dest = NULL;
    void *got = NULL, *back = NULL;
    size_t n = 0, n_got = 0, n_back = 0;
    if (an->n > 1)
        qsort(an->v, an->n, sizeof *an->v, cmp_anchor);
    TLM_MPI_CHECK(make_items(c, an, &items, &dest, &n));
    TLM_MPI_CHECK(tlm_mpi_route(items, n, sizeof *items, dest, c->comm, &got,
                                &n_got, err));
    tlm_mtrace_item *g = got;
    tlm_mtrace_roles(g, n_got);
    int *gd = malloc((n_got ? n_got : 1) * sizeof *gd);
    TLM_MPI_CHECK(gd ? TLM_OK : TLM_ENOMEM);
    for (size_t i = 0; i < n_got; i++)
        gd[i] = g[i].src;
    st = tlm_mpi_route(g, n_got, sizeof *g, gd, c->comm, &back, &n_back,
                       err);
    free(gd);
    TLM_MPI_CHECK(st);
    for (size_t i = 0; i < n_back; i++) {
        const tlm_mtrace_item *b = &((tlm_mtrace_item *)back)[i];
        if (b->idx >= 0 && (size_t)b->idx < an->n)
            an->v[b->idx].role = b->role;
    }
done:
    free(items);
    free(dest);
    free(got);
    free(back);
    return st;
}

/* ------------------------------------------------------------ head */

/* Rank 0: how the clocks were corrected, for the trace and stderr. */
static const char *clock_state(const tlm_mpi_ctx *c, size_t *n_raw)
{
    *n_raw = 0;
    if (c->n_res < 2)
        return "corrected";
    if (c->k.n_clk == 0) {
        *n_raw = c->n_res - 1;
        return "raw";
    }
    for (size_t i = 0; i < c->k.n_clk; i++)
        if ((c->k.clk[i].flags &
             (TLM_COLL_CLOCK_NO_DATA | TLM_COLL_CLOCK_FEW_SAMPLES)) &&
            c->k.clk[i].trace_rank != c->res[0].row.trace_rank)
            (*n_raw)++;
    return *n_raw == 0 ? "corrected"
           : *n_raw >= c->n_res - 1 ? "raw" : "partial";
}

static tlm_status head(tlm_mpi_ctx *c, tlm_mtrace_z *z, tlm_error *err)
{
    size_t n_raw = 0;
    const char *cs = clock_state(c, &n_raw);
    const char *note =
        strcmp(cs, "raw") == 0
            ? "clock offsets could not be estimated (too few implicit-sync "
              "collectives across ranks): times are each trace's raw clock"
        : strcmp(cs, "partial") == 0
            ? "some ranks share no implicit-sync collective with the "
              "others, or fewer than 3: their times are on their raw "
              "clocks"
            : "times corrected by the clock offsets of "
              "/collectives/clock";
    if (strcmp(cs, "corrected") != 0)
        tlm_mpi_say0(c, "warning: merged trace: %s (%zu of %zu rank%s)",
                     note, n_raw, c->n_res, c->n_res == 1 ? "" : "s");
    char b[2048];
    int w = snprintf(
        b, sizeof b,
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tlmpi "
        "%s\",\"clock\":\"%s\",\"clock_note\":\"%s\",\"ranks_on_raw_clock\":"
        "%zu,\"ranks\":%zu,\"filter\":\"%s\",\"base_time_ns\":%lld,"
        "\"time_origin\":\"baseTimeNanoseconds of rank %d\"},"
        "\"traceEvents\":[\n",
        TLM_VERSION_STRING, cs, note, n_raw, c->n_res,
        tlm_mtrace_filter_name(c->mt->filter),
        (long long)(c->n_res ? c->res[0].row.base_time_ns : 0),
        c->n_res ? c->res[0].row.trace_rank : 0);
    tlm_status st = tlm_mtrace_z_write(z, b, (size_t)w, err);
    for (size_t i = 0; st == TLM_OK && i < c->n_res; i++) {
        int r = c->res[i].row.trace_rank;
        w = snprintf(b, sizeof b,
                     "%s{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\","
                     "\"args\":{\"name\":\"rank %d\"}},\n{\"ph\":\"M\","
                     "\"pid\":%d,\"name\":\"process_sort_index\",\"args\":"
                     "{\"sort_index\":%d}}",
                     i ? ",\n" : "", r, r, r, r);
        st = tlm_mtrace_z_write(z, b, (size_t)w, err);
        if (st == TLM_OK && c->res[i].row.node >= 0) {
            w = snprintf(b, sizeof b,
                         ",\n{\"ph\":\"M\",\"pid\":%d,\"name\":"
                         "\"process_labels\",\"args\":{\"labels\":\"node "
                         "%d\"}}",
                         r, (int)c->res[i].row.node);
            st = tlm_mtrace_z_write(z, b, (size_t)w, err);
        }
    }
    return st;
}

/* ------------------------------------------------------------ segments */

/* This process's parts and flows through z (opened by the caller). */
static tlm_status own_segment(tlm_mpi_ctx *c, tlm_mtrace_z *z,
                              tlm_error *err)
{
    tlm_mpi_mtrace *m = c->mt;
    tlm_status st = TLM_OK;
    if (m->part && fflush(m->part) != 0)
        return tlm_error_set(err, TLM_EIO, NULL, -1,
                             "merged trace: part file: %s", strerror(errno));
    for (size_t i = 0; st == TLM_OK && i < m->n_seg; i++)
        st = tlm_mtrace_emit_part(m->part, m->seg[i].from, m->seg[i].to,
                                  shift_of(c, m->seg[i].rank), z, err);
    if (st == TLM_OK)
        st = tlm_mtrace_emit_flows(m->an.v, m->an.n, shift_of, c, z, err);
    return st;
}

/* A local unlinked temporary for a segment. */
static FILE *temp_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[TLM_MPI_PATH_CAP];
    if (!dir || !*dir)
        dir = "/tmp";
    int w = snprintf(path, sizeof path, "%s/tlmpi-mtz-XXXXXX", dir);
    if (w < 0 || (size_t)w >= sizeof path)
        return NULL;
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    FILE *f = fdopen(fd, "w+b");
    if (!f)
        close(fd);
    return f;
}

typedef struct segmeta {
    uint64_t out_bytes, crc, in_bytes;
} segmeta;

/* Sender side of the join: meta, then the bytes, always all of them. */
static tlm_status send_segment(tlm_mpi_ctx *c, FILE *f, const segmeta *sm,
                               unsigned char *buf)
{
    tlm_status st = TLM_OK;
    MPI_Send(sm, 3, MPI_UINT64_T, 0, TAG, c->comm);
    if (f && fseeko(f, 0, SEEK_SET) != 0)
        st = TLM_EIO;
    for (uint64_t left = sm->out_bytes; left > 0;) {
        size_t k = left < CHUNK ? (size_t)left : CHUNK;
        if (st != TLM_OK || !f || fread(buf, 1, k, f) != k) {
            memset(buf, 0, k);
            st = TLM_EIO;
        }
        MPI_Send(buf, (int)k, MPI_BYTE, 0, TAG, c->comm);
        left -= k;
    }
    return st;
}

/* Rank 0: every other process's segment appended, in order. */
static tlm_status recv_segments(tlm_mpi_ctx *c, FILE *out, segmeta *tot,
                                unsigned char *buf, tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (int r = 1; r < c->np; r++) {
        segmeta sm;
        MPI_Recv(&sm, 3, MPI_UINT64_T, r, TAG, c->comm, MPI_STATUS_IGNORE);
        for (uint64_t left = sm.out_bytes; left > 0;) {
            size_t k = left < CHUNK ? (size_t)left : CHUNK;
            MPI_Recv(buf, (int)k, MPI_BYTE, r, TAG, c->comm,
                     MPI_STATUS_IGNORE);
            if (st == TLM_OK && fwrite(buf, 1, k, out) != k)
                st = tlm_error_set(err, TLM_EIO, NULL, -1,
                                   "merged trace: writing: %s",
                                   strerror(errno));
            left -= k;
        }
        tot->crc = tlm_mtrace_crc_combine((uint32_t)tot->crc,
                                          (uint32_t)sm.crc, sm.in_bytes);
        tot->in_bytes += sm.in_bytes;
    }
    return st;
}

/* Rank 0: the tail segment and the gzip trailer. */
static tlm_status finish(FILE *out, segmeta *tot, tlm_error *err)
{
    tlm_mtrace_z z;
    tlm_status st = tlm_mtrace_z_open(&z, out, 6, err);
    if (st != TLM_OK)
        return st;
    st = tlm_mtrace_z_write(&z, "\n]}\n", 4, err);
    if (st != TLM_OK) {
        tlm_mtrace_z_abort(&z);
        return st;
    }
    st = tlm_mtrace_z_close(&z, 1, err);
    if (st != TLM_OK)
        return st;
    tot->crc = tlm_mtrace_crc_combine((uint32_t)tot->crc, z.crc, z.in_bytes);
    tot->in_bytes += z.in_bytes;
    unsigned char tr[8];
    tlm_mtrace_gzip_trailer((uint32_t)tot->crc, tot->in_bytes, tr);
    if (fwrite(tr, 1, 8, out) != 8)
        return tlm_error_set(err, TLM_EIO, NULL, -1,
                             "merged trace: writing: %s", strerror(errno));
    return TLM_OK;
}

/* Compresses this process's segment: rank 0 into out after the gzip
 * header and the head, the others into *tmp. */
static tlm_status compress(tlm_mpi_ctx *c, FILE *out, FILE **tmp,
                           segmeta *sm, tlm_error *err)
{
    tlm_mtrace_z z;
    FILE *dst = out;
    if (c->me != 0) {
        *tmp = temp_file();
        if (!*tmp)
            return tlm_error_set(err, TLM_EIO, NULL, -1,
                                 "merged trace: cannot create a temporary "
                                 "file in TMPDIR: %s", strerror(errno));
        dst = *tmp;
    } else {
        unsigned char gh[10];
        tlm_mtrace_gzip_header(gh);
        if (fwrite(gh, 1, 10, out) != 10)
            return tlm_error_set(err, TLM_EIO, c->mt->tmp, -1, "%s",
                                 strerror(errno));
    }
    tlm_status st = tlm_mtrace_z_open(&z, dst, 1, err);
    if (st != TLM_OK)
        return st;
    if (c->me == 0)
        st = head(c, &z, err);
    if (st == TLM_OK)
        st = own_segment(c, &z, err);
    if (st != TLM_OK) {
        tlm_mtrace_z_abort(&z);
        return st;
    }
    st = tlm_mtrace_z_close(&z, 0, err);
    sm->out_bytes = z.out_bytes;
    sm->crc = z.crc;
    sm->in_bytes = z.in_bytes;
    if (st == TLM_OK && dst != out && fflush(dst) != 0)
        st = tlm_error_set(err, TLM_EIO, NULL, -1, "merged trace: %s",
                           strerror(errno));
    return st;
}

/* The exchange hook: the phase. */
static tlm_status timeline_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    if (!c->o.merged_trace)
        return TLM_OK;
    tlm_error e;
    tlm_error *err = &e;
    tlm_error_clear(err);
    tlm_status st = TLM_OK;
    FILE *out = NULL, *tmp = NULL;
    segmeta sm = {0, 0, 0};
    unsigned char *buf = NULL;
    if (!c->mt) /* no trace read here */
        c->mt = calloc(1, sizeof *c->mt);
    TLM_MPI_CHECK(c->mt ? TLM_OK : TLM_ENOMEM);
    if (c->me == 0)
        tlm_mtrace_filter_parse(c->o.merged_trace_filter
                                    ? c->o.merged_trace_filter : "all",
                                &c->mt->filter);
    TLM_MPI_CHECK(flow_roles(c, &c->mt->an, err));
    buf = malloc(CHUNK);
    st = buf ? TLM_OK : TLM_ENOMEM;
    if (st == TLM_OK && c->me == 0) {
        out = fopen(c->mt->tmp, "wb");
        if (!out)
            st = tlm_error_set(err, TLM_EIO, c->mt->tmp, -1, "%s",
                               strerror(errno));
    }
    if (st == TLM_OK)
        st = compress(c, out, &tmp, &sm, err);
    TLM_MPI_CHECK(st);
    if (c->me != 0) {
        st = send_segment(c, tmp, &sm, buf);
        if (st != TLM_OK)
            tlm_error_set(err, st, NULL, -1,
                          "merged trace: reading a compressed segment back");
    } else {
        st = recv_segments(c, out, &sm, buf, err);
        if (st == TLM_OK)
            st = finish(out, &sm, err);
        tlm_status cst = tlm_outset_fclose(out, c->mt->tmp, err);
        out = NULL;
        if (st == TLM_OK)
            st = cst;
    }
    TLM_MPI_CHECK(st);
done:
    if (out)
        fclose(out);
    if (tmp)
        fclose(tmp);
    free(buf);
    /* the part file and anchors are not needed any more */
    if (c->mt && c->mt->part) {
        fclose(c->mt->part);
        c->mt->part = NULL;
    }
    return st;
}

/* ---------------------------------------------------------------- MARK: -
 * the setup and read sides: the output staged on rank 0, and each trace's
 * events written to this process's part file while the trace is in
 * memory.  The part file is a local temporary ($TMPDIR, else /tmp)
 * unlinked as soon as it is open, so nothing is left behind whatever ends
 * the run; the phase above reads it back. */

int tlm_mpi_mtrace_path(const tlm_mpi_ctx *c, char *out, size_t cap)
{
    int w;
    if (c->label) /* audit: one per run, in the run's folder */
        w = snprintf(out, cap, "%s/%s", c->su.rdir, c->o.merged_trace);
    else
        w = snprintf(out, cap, "%s", c->o.merged_trace);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

static tlm_mpi_mtrace *mt_get(tlm_mpi_ctx *c)
{
    if (!c->mt) {
        c->mt = calloc(1, sizeof *c->mt);
        if (c->mt)
            tlm_mtrace_filter_parse(c->o.merged_trace_filter
                                        ? c->o.merged_trace_filter
                                        : "all",
                                    &c->mt->filter);
    }
    return c->mt;
}

tlm_status tlm_mpi_mtrace_stage(tlm_mpi_ctx *c, tlm_error *err)
{
    if (!c->o.merged_trace)
        return TLM_OK;
    tlm_mpi_mtrace *m = mt_get(c);
    if (!m)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (tlm_mpi_mtrace_path(c, m->path, sizeof m->path) != 0)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "--merged_trace: path too long");
    const char *tmp = NULL;
    tlm_status st = tlm_outset_stage(&c->out, m->path, &tmp, err);
    if (st == TLM_OK)
        tlm_strset(m->tmp, sizeof m->tmp, tmp);
    return st;
}

/* Opens this process's part file: created, unlinked, buffered. */
static tlm_status open_part(tlm_mpi_mtrace *m, tlm_error *err)
{
    const char *dir = getenv("TMPDIR");
    char path[TLM_MPI_PATH_CAP];
    if (!dir || !*dir)
        dir = "/tmp";
    int w = snprintf(path, sizeof path, "%s/tlmpi-mtrace-XXXXXX", dir);
    if (w < 0 || (size_t)w >= sizeof path)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "merged trace: TMPDIR path too long");
    int fd = mkstemp(path);
    if (fd < 0)
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "merged trace: cannot create a temporary "
                             "file: %s", strerror(errno));
    unlink(path);
    m->part = fdopen(fd, "w+b");
    if (!m->part) {
        close(fd);
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "merged trace: %s", strerror(errno));
    }
    setvbuf(m->part, NULL, _IOFBF, 1u << 20);
    return TLM_OK;
}

tlm_status tlm_mpi_mtrace_add(tlm_mpi_ctx *c, const tlm_trace *tr,
                              int32_t rank, const tlm_coll_record *recs,
                              size_t n_recs, tlm_error *err)
{
    if (!c->o.merged_trace)
        return TLM_OK;
    tlm_mpi_mtrace *m = mt_get(c);
    if (!m)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (!m->part) {
        tlm_status st = open_part(m, err);
        if (st != TLM_OK)
            return st;
    }
    if (tlm_grow((void **)&m->seg, &m->cap_seg, m->n_seg + 1,
                 sizeof *m->seg, 8))
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    uint64_t bytes = 0;
    tlm_status st = tlm_mtrace_part_write(tr, rank, m->filter, recs, n_recs,
                                          m->part, &m->an, &bytes, err);
    if (st != TLM_OK)
        return st;
    tlm_mpi_mtrace_seg *s = &m->seg[m->n_seg++];
    s->rank = rank;
    s->from = m->part_bytes;
    s->to = m->part_bytes + bytes;
    m->part_bytes += bytes;
    return TLM_OK;
}

void tlm_mpi_mtrace_free(tlm_mpi_ctx *c)
{
    tlm_mpi_mtrace *m = c->mt;
    if (!m)
        return;
    if (m->part)
        fclose(m->part);
    free(m->an.v);
    free(m->seg);
    free(m);
    c->mt = NULL;
}

/* The collect hook: with --merged_trace, the trace's events into this
 * process's part file (above). */
static tlm_status timeline_trace(tlm_mpi_ctx *c, void **sp,
                                 const tlm_job_trace_in *in, tlm_error *err)
{
    (void)sp;
    if (in->n_events == 0 || !c->o.merged_trace)
        return TLM_OK;
    return tlm_mpi_mtrace_add(c, in->tr, in->fr->row.trace_rank, in->recs,
                              in->n_recs, err);
}

/* The free hook. */
static void timeline_free(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_mpi_mtrace_free(c);
}

const tlm_mpi_module tlm_mpi_mod_timeline = {
    .name = "timeline",
    .mark = -1,
    .on_trace = timeline_trace,
    .exchange = timeline_phase,
    .free = timeline_free,
};
