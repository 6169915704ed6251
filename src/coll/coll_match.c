/*
 * coll_match.c - matching collective records across traces into instances
 * and computing per-instance metrics.
 *
 * Records are grouped by match key (process group, or directed pair for
 * p2p).  Within a group:
 *
 *   - records whose seq came from the trace ("Seq", "Concrete Inputs") form
 *     an instance per seq;
 *   - ordinal records (no seq in the trace) are aligned rank by rank
 *     against a consensus sequence: each rank's sequence is placed at the
 *     offset k (its i-th collective <-> consensus slot i + k) that has the
 *     fewest signature mismatches, then the most constant end-time
 *     difference (a clock offset is a constant; a wrong shift by one makes
 *     the difference follow the gaps between collectives), then the
 *     smallest |median difference|, then the smallest |k|.  Ranks whose
 *     windows start or stop at other points extend the consensus at its
 *     ends, so clipped windows share the common instances and nothing is
 *     shifted.  Items whose signature disagrees with their slot are
 *     reported as unmatched.
 *
 * Several kernels of one rank with the same (key, seq) (one collective
 * launched as several kernels, same CPU op) are merged into one member:
 * first start to last end, durations summed.
 *
 * Metrics (all ns / bytes / GB/s = bytes per ns):
 *   comm_latency = min member duration; wait_r = latest start - start_r;
 *   start skew = latest - earliest start; end skew = latest - earliest end;
 *   algbw = bytes / comm_latency; busbw = algbw * bus factor(type, n).
 * Offset-corrected variants subtract each rank's clock offset first.
 */
#include "coll_internal.h"
#include "search.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* MARK: - sorting helpers */

int tlm_coll_inst_cmp(const tlm_coll_instance *x, const tlm_coll_instance *y)
{
    return tlm_coll_cmp_seq(x->match_key, x->seq, x->seq_src, y->match_key,
                            y->seq, y->seq_src);
}

int tlm_coll_mem_cmp(const tlm_coll_member *x, const tlm_coll_member *y)
{
    int c = tlm_coll_cmp_seq(x->match_key, x->seq, x->seq_src, y->match_key,
                             y->seq, y->seq_src);
    return c ? c : tlm_coll_cmp_i64(x->trace_rank, y->trace_rank);
}

int tlm_coll_inst_mem_cmp(const tlm_coll_instance *in,
                          const tlm_coll_member *m)
{
    return tlm_coll_cmp_seq(in->match_key, in->seq, in->seq_src,
                            m->match_key, m->seq, m->seq_src);
}

/* One qsort comparator per record type below: each type has its own key
 * (the fields differ), and qsort needs a plain function per type. */

static int cmp_inst(const void *a, const void *b)
{
    return tlm_coll_inst_cmp(a, b);
}

static int cmp_mem(const void *a, const void *b)
{
    return tlm_coll_mem_cmp(a, b);
}

static int cmp_unm(const void *a, const void *b)
{
    const tlm_coll_unmatched *x = a, *y = b;
    int c = tlm_coll_cmp_u64(x->match_key, y->match_key);
    if (!c)
        c = tlm_coll_cmp_i64(x->trace_rank, y->trace_rank);
    if (!c)
        c = tlm_coll_cmp_i64(x->seq, y->seq);
    if (!c)
        c = tlm_coll_cmp_u64(x->event_index, y->event_index);
    return c;
}

void tlm_coll_instances_sort(tlm_coll_instance *inst, size_t n)
{
    if (inst && n > 1)
        qsort(inst, n, sizeof *inst, cmp_inst);
}

void tlm_coll_members_sort(tlm_coll_member *mem, size_t n)
{
    if (mem && n > 1)
        qsort(mem, n, sizeof *mem, cmp_mem);
}

void tlm_coll_unmatched_sort(tlm_coll_unmatched *unm, size_t n)
{
    if (unm && n > 1)
        qsort(unm, n, sizeof *unm, cmp_unm);
}

static int is_seq_src(int s)
{
    return s == TLM_COLL_SEQ_TRACE || s == TLM_COLL_SEQ_CONCRETE;
}

/* Matching class of a record: 0 seq from the trace, 1 ordinal already
 * aligned (tlm_coll_records_apply_shifts), 2 ordinal found unalignable
 * there, 3 ordinal to align here. */
static int rec_class(const tlm_coll_record *r)
{
    if (is_seq_src(r->seq_src))
        return 0;
    if (r->flags & TLM_COLL_REC_UNALIGNED)
        return 2;
    if (r->flags & TLM_COLL_REC_ALIGNED)
        return 1;
    return 3;
}

/* Record order for grouping: (class, match_key, [classes 0-1: seq_src,
 * seq], trace_rank, seq, part, start, event_index). */
static int cmp_rec_group(const void *a, const void *b)
{
    const tlm_coll_record *x = *(const tlm_coll_record *const *)a;
    const tlm_coll_record *y = *(const tlm_coll_record *const *)b;
    int ox = rec_class(x), oy = rec_class(y);
    int c = tlm_coll_cmp_i64(ox, oy);
    if (!c)
        c = tlm_coll_cmp_u64(x->match_key, y->match_key);
    if (!c && ox <= 1)
        c = tlm_coll_cmp_i64(x->seq_src, y->seq_src);
    if (!c && ox <= 1)
        c = tlm_coll_cmp_i64(x->seq, y->seq);
    if (!c)
        c = tlm_coll_cmp_i64(x->trace_rank, y->trace_rank);
    if (!c)
        c = tlm_coll_cmp_i64(x->seq, y->seq);
    if (!c)
        c = tlm_coll_cmp_i64(x->part, y->part);
    if (!c)
        c = tlm_coll_cmp_i64(x->start_ns, y->start_ns);
    if (!c)
        c = tlm_coll_cmp_u64(x->event_index, y->event_index);
    return c;
}

/* MARK: - result building */

typedef struct builder {
    const tlm_alloc *a;
    tlm_coll_instance *inst;
    size_t n_inst, cap_inst;
    tlm_coll_member *mem;
    size_t n_mem, cap_mem;
    tlm_coll_unmatched *unm;
    size_t n_unm, cap_unm;
    int32_t world;              /* tlm_coll_match_opts.world_size */
} builder;

/* One rank's collective in a group: merged kernels. */
typedef struct item {
    const tlm_coll_record *rec; /* first kernel (NULL in tlm_coll_align) */
    uint64_t sig;
    int32_t rank;
    int64_t start, end, dur;
    int64_t send, recv;
    int32_t n_kernels;
    int64_t col;                /* aligned slot (ordinal groups) */
} item;

static int add_unmatched_seq(builder *b, const tlm_coll_record *r,
                             int reason, int64_t seq)
{
    if (!tlm_coll_grow(b->a, (void **)&b->unm, &b->cap_unm, b->n_unm + 1,
                       sizeof *b->unm))
        return 0;
    tlm_coll_unmatched *u = &b->unm[b->n_unm++];
    memset(u, 0, sizeof *u);
    u->match_key = r->match_key;
    u->seq = seq;
    u->start_ns = r->start_ns;
    u->dur_ns = r->dur_ns;
    u->event_index = r->event_index;
    u->sig = r->sig;
    u->trace_rank = r->trace_rank;
    u->reason = reason;
    u->coll = r->coll;
    u->seq_src = r->seq_src;
    memcpy(u->pg_name, r->pg_name, sizeof u->pg_name);
    return 1;
}

static int add_unmatched(builder *b, const tlm_coll_record *r, int reason)
{
    return add_unmatched_seq(b, r, reason, r->seq);
}

/* Merges the records r[i..j) of one rank and one (key, seq) into items:
 * kernels of the same CPU op (link id, or part > 0) merge; another part-0
 * record with a different link is a duplicate. */
static int make_item(builder *b, const tlm_coll_record *const *r, size_t i,
                     size_t j, item *it)
{
    const tlm_coll_record *h = r[i];
    it->rec = h;
    it->sig = h->sig;
    it->rank = h->trace_rank;
    it->start = h->start_ns;
    it->end = tlm_coll_sat_add(h->start_ns, h->dur_ns);
    it->dur = h->dur_ns;
    it->send = h->send_bytes;
    it->recv = h->recv_bytes;
    it->n_kernels = 1;
    it->col = 0;
    for (size_t q = i + 1; q < j; q++) {
        const tlm_coll_record *x = r[q];
        int same_op = x->part > 0 ||
                      (x->link_id >= 0 && x->link_id == h->link_id);
        if (!same_op) {
            if (!add_unmatched(b, x, TLM_COLL_UNM_DUPLICATE))
                return 0;
            continue;
        }
        if (x->start_ns < it->start)
            it->start = x->start_ns;
        if (tlm_coll_sat_add(x->start_ns, x->dur_ns) > it->end)
            it->end = tlm_coll_sat_add(x->start_ns, x->dur_ns);
        it->dur = tlm_coll_sat_add(it->dur, x->dur_ns);
        it->n_kernels++;
        if (x->part > 0 && x->send_bytes >= 0 && it->send < 0)
            it->send = x->send_bytes;
        if (x->part > 0 && x->recv_bytes >= 0 && it->recv < 0)
            it->recv = x->recv_bytes;
    }
    return 1;
}

/* The group of an instance whose representative names no group size:
 * another member's "Group size", else the size of the PG ranks list (or
 * distributedInfo's pg_config), else the world (flag GROUP_WORLD) for a
 * collective whose trace names no group at all; p2p pairs stay -1. */
static void resolve_group(tlm_coll_instance *in, const item *its, size_t n,
                          const tlm_coll_record *rep, int32_t world)
{
    for (size_t i = 0; i < n && in->group_size <= 0; i++)
        if (its[i].rec->group_size > 0)
            in->group_size = its[i].rec->group_size;
    for (size_t i = 0; i < n && in->group_size <= 0; i++)
        if (its[i].rec->pg_ranks_n > 0)
            in->group_size = its[i].rec->pg_ranks_n;
    if (in->group_size > 0 || (in->flags & TLM_COLL_INST_P2P) ||
        rep->coll == TLM_COLL_SENDRECV || world <= 0)
        return;
    in->group_size = world;
    in->flags |= TLM_COLL_INST_GROUP_WORLD;
}

/* Builds one instance from items (sorted by trace rank).  Items whose
 * signature differs from the majority are members with sig_mismatch = 1
 * (seq-identified) or unmatched (ordinal: drop_mismatch). */
static int emit_instance(builder *b, item *its, size_t n, int64_t seq,
                         int drop_mismatch)
{
    if (n == 0)
        return 1;
    /* majority signature; ties -> the lowest rank's */
    uint64_t best = its[0].rec->sig;
    size_t best_cnt = 0;
    for (size_t i = 0; i < n; i++) {
        size_t cnt = 0;
        for (size_t k = 0; k < n; k++)
            cnt += its[k].rec->sig == its[i].rec->sig;
        if (cnt > best_cnt) {
            best_cnt = cnt;
            best = its[i].rec->sig;
        }
    }
    const tlm_coll_record *rep = NULL;
    for (size_t i = 0; i < n && !rep; i++)
        if (its[i].rec->sig == best)
            rep = its[i].rec;
    if (!tlm_coll_grow(b->a, (void **)&b->inst, &b->cap_inst, b->n_inst + 1,
                       sizeof *b->inst))
        return 0;
    tlm_coll_instance *in = &b->inst[b->n_inst];
    memset(in, 0, sizeof *in);
    in->match_key = rep->match_key;
    in->seq = seq;
    in->trace_seq = -1;
    in->pg_hash = rep->pg_hash;
    in->sig = best;
    in->in_nelems = rep->in_nelems;
    in->out_nelems = rep->out_nelems;
    in->bytes = rep->bytes;
    in->group_size = rep->group_size;
    in->coll = rep->coll;
    in->dtype = rep->dtype;
    in->seq_src = rep->seq_src;
    memcpy(in->pg_name, rep->pg_name, sizeof in->pg_name);
    for (size_t i = 0; i < n && !in->pg_desc[0]; i++)
        memcpy(in->pg_desc, its[i].rec->pg_desc, sizeof in->pg_desc);
    memcpy(in->coll_name, rep->coll_name, sizeof in->coll_name);
    memcpy(in->dtype_name, rep->dtype_name, sizeof in->dtype_name);
    memcpy(in->algo, rep->algo, sizeof in->algo);
    if (rep->coll == TLM_COLL_SEND || rep->coll == TLM_COLL_RECV)
        in->flags |= TLM_COLL_INST_P2P;
    int32_t nm = 0;
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_record *r = its[i].rec;
        int mism = r->sig != best;
        if (mism && drop_mismatch) {
            if (!add_unmatched_seq(b, r, TLM_COLL_UNM_SIG_MISMATCH, seq))
                return 0;
            continue;
        }
        if (!tlm_coll_grow(b->a, (void **)&b->mem, &b->cap_mem,
                           b->n_mem + 1, sizeof *b->mem))
            return 0;
        tlm_coll_member *m = &b->mem[b->n_mem++];
        memset(m, 0, sizeof *m);
        m->match_key = in->match_key;
        m->seq = seq;
        m->trace_seq = (r->flags & TLM_COLL_REC_TRACE_SEQ) ? r->trace_seq : -1;
        if (m->trace_seq >= 0 &&
            (in->trace_seq < 0 || r->coll == TLM_COLL_SEND))
            in->trace_seq = m->trace_seq; /* the send's, else the recv's */
        m->start_ns = its[i].start;
        m->end_ns = its[i].end;
        m->dur_ns = its[i].dur;
        m->send_bytes = its[i].send;
        m->recv_bytes = its[i].recv;
        m->bytes = r->bytes;
        m->event_index = r->event_index;
        m->sig = r->sig;
        m->trace_rank = r->trace_rank;
        m->n_kernels = its[i].n_kernels;
        m->coll = r->coll;
        m->seq_src = in->seq_src;
        m->sig_mismatch = (uint8_t)mism;
        if (r->group_size > 0 && rep->group_size > 0 &&
            r->group_size != rep->group_size)
            in->flags |= TLM_COLL_INST_GROUP_MISMATCH;
        if (mism) {
            in->n_sig_mismatch++;
            in->flags |= TLM_COLL_INST_SIG_MISMATCH;
        }
        if (its[i].n_kernels > 1)
            in->flags |= TLM_COLL_INST_MULTI_KERNEL;
        nm++;
    }
    in->n_members = nm;
    resolve_group(in, its, n, rep, b->world);
    b->n_inst++;
    return 1;
}

/* MARK: - alignment of ordinal sequences */

typedef struct slot {
    uint64_t sig;
    int64_t end;
} slot;

typedef struct cand_score {
    int64_t ov;
    int64_t mism;
    int64_t mad;
    int64_t absmed;
    int64_t absk;
    int64_t k;
} cand_score;

/* A placement is acceptable when at most 10% of the overlapping slots
 * disagree on the signature.  Among acceptable placements the time shape
 * decides (a wrong shift follows the gaps between collectives), then the
 * size of the constant difference, then the mismatch count. */
static int score_less(const cand_score *x, const cand_score *y)
{
    int ax = x->mism * 10 <= x->ov, ay = y->mism * 10 <= y->ov;
    if (ax != ay)
        return ax > ay;
    if (!ax && x->mism != y->mism)
        return x->mism < y->mism;
    if (x->mad != y->mad)
        return x->mad < y->mad;
    if (x->absmed != y->absmed)
        return x->absmed < y->absmed;
    if (x->mism != y->mism)
        return x->mism < y->mism;
    if (x->absk != y->absk)
        return x->absk < y->absk;
    return x->k < y->k;
}

static int64_t i64abs(int64_t v)
{
    return tlm_coll_sat_abs(v);
}

#define ALIGN_SAMPLES 257

/* Scores placing items[0..m) at consensus offset k.  tmp holds
 * ALIGN_SAMPLES int64. */
static void score_offset(const slot *cons, size_t c, const item *its,
                         size_t m, int64_t k, int64_t *tmp, cand_score *sc)
{
    size_t lo = k < 0 ? (size_t)(-k) : 0;            /* first item index */
    size_t hi = m;
    if ((int64_t)m + k > (int64_t)c)
        hi = (size_t)((int64_t)c - k);
    int64_t mism = 0;
    for (size_t i = lo; i < hi; i++)
        mism += cons[(size_t)((int64_t)i + k)].sig != its[i].sig;
    size_t ov = hi - lo;
    size_t step = ov > ALIGN_SAMPLES ? (ov + ALIGN_SAMPLES - 1) /
                                           ALIGN_SAMPLES
                                     : 1;
    size_t ns = 0;
    for (size_t i = lo; i < hi && ns < ALIGN_SAMPLES; i += step) {
        const slot *s = &cons[(size_t)((int64_t)i + k)];
        tmp[ns++] = tlm_coll_sat_sub(its[i].end, s->end);
    }
    int64_t med = ns ? tlm_coll_median_i64(tmp, ns) : 0;
    for (size_t i = 0; i < ns; i++)
        tmp[i] = i64abs(tlm_coll_sat_sub(tmp[i], med));
    int64_t mad = ns ? tlm_coll_median_i64(tmp, ns) : 0;
    sc->ov = (int64_t)ov;
    sc->mism = mism;
    sc->mad = mad;
    sc->absmed = i64abs(med);
    sc->absk = i64abs(k);
    sc->k = k;
}

/* Aligns the items of each rank (rank r's items its[rs[r]..rs[r+1]) in
 * ordinal order) and sets item.col; unalignable items get col =
 * INT64_MIN. */
static int align_group(const tlm_alloc *a, item *its, const size_t *rs,
                       size_t nr)
{
    size_t *order = tlm_coll_malloc(a, (nr ? nr : 1) * sizeof *order);
    int64_t *tmp = tlm_coll_malloc(a, ALIGN_SAMPLES * sizeof *tmp);
    slot *cons = NULL;
    size_t c = 0, cap = 0;
    int64_t base = 0; /* column of cons[0] */
    int ok = order && tmp;
    if (!ok)
        goto done;
    for (size_t r = 0; r < nr; r++)
        order[r] = r;
    /* reference: most items, then lowest rank (ranks are in rank order) */
    for (size_t r = 1; r < nr; r++) {
        size_t len_r = rs[r + 1] - rs[r], len_0 = rs[order[0] + 1] -
                                                  rs[order[0]];
        if (len_r > len_0) {
            size_t t = order[0];
            order[0] = order[r];
            order[r] = t;
        }
    }
    /* keep the others in rank order */
    for (size_t r = 1; r + 1 < nr; r++)
        for (size_t q = r + 1; q < nr; q++)
            if (order[q] < order[r]) {
                size_t t = order[q];
                order[q] = order[r];
                order[r] = t;
            }
    for (size_t oi = 0; oi < nr; oi++) {
        item *s = its + rs[order[oi]];
        size_t m = rs[order[oi] + 1] - rs[order[oi]];
        if (m == 0)
            continue;
        if (c == 0) {
            if (!tlm_coll_grow(a, (void **)&cons, &cap, m, sizeof *cons)) {
                ok = 0;
                goto done;
            }
            for (size_t i = 0; i < m; i++) {
                cons[i].sig = s[i].sig;
                cons[i].end = s[i].end;
                s[i].col = (int64_t)i;
            }
            c = m;
            base = 0;
            continue;
        }
        size_t mn = m < c ? m : c;
        int64_t minov = (int64_t)((mn + 1) / 2);
        if (minov < 1)
            minov = 1;
        /* candidate offsets: near 0, near the tail alignment, near the
         * time-predicted offset */
        int64_t kt = 0;
        {
            size_t lo = tlm_lower_bound_i64_at(cons, c, sizeof *cons,
                                               offsetof(slot, end),
                                               s[0].end);
            if (lo > 0 &&
                (lo == c ||
                 i64abs(tlm_coll_sat_sub(cons[lo - 1].end, s[0].end)) <=
                     i64abs(tlm_coll_sat_sub(cons[lo].end, s[0].end))))
                lo--;
            kt = (int64_t)lo;
        }
        int64_t centers[3] = {0, (int64_t)c - (int64_t)m, kt};
        cand_score best;
        memset(&best, 0, sizeof best);
        int have = 0;
        for (int ci = 0; ci < 3; ci++) {
            for (int64_t k = centers[ci] - 16; k <= centers[ci] + 16; k++) {
                int dup = 0;
                for (int cj = 0; cj < ci; cj++)
                    if (i64abs(k - centers[cj]) <= 16)
                        dup = 1;
                if (dup)
                    continue;
                int64_t lo = k < 0 ? -k : 0;
                int64_t hi = (int64_t)m;
                if ((int64_t)m + k > (int64_t)c)
                    hi = (int64_t)c - k;
                if (hi - lo < minov)
                    continue;
                cand_score sc;
                score_offset(cons, c, s, m, k, tmp, &sc);
                if (!have || score_less(&sc, &best)) {
                    best = sc;
                    have = 1;
                }
            }
        }
        if (!have || best.mism * 10 > best.ov) {
            for (size_t i = 0; i < m; i++)
                s[i].col = INT64_MIN;
            continue;
        }
        int64_t k = best.k;
        /* extend the consensus: head when k < 0, tail when m + k > c */
        int64_t head = k < 0 ? -k : 0;
        int64_t tail = (int64_t)m + k > (int64_t)c ? (int64_t)m + k -
                                                         (int64_t)c
                                                   : 0;
        size_t nc = c + (size_t)head + (size_t)tail;
        if (!tlm_coll_grow(a, (void **)&cons, &cap, nc, sizeof *cons)) {
            ok = 0;
            goto done;
        }
        if (head) {
            memmove(cons + head, cons, c * sizeof *cons);
            for (int64_t i = 0; i < head; i++) {
                cons[i].sig = s[i].sig;
                cons[i].end = s[i].end;
            }
            base -= head;
        }
        size_t old_end = c + (size_t)head;
        for (int64_t i = 0; i < tail; i++) {
            size_t it_i = (size_t)((int64_t)m - tail + i);
            cons[old_end + (size_t)i].sig = s[it_i].sig;
            cons[old_end + (size_t)i].end = s[it_i].end;
        }
        c = nc;
        /* item i sits at consensus index i + k + head (after the shift),
         * i.e. column base + i + k + head */
        for (size_t i = 0; i < m; i++)
            s[i].col = base + (int64_t)i + k + head;
    }
done:
    tlm_coll_mfree(a, cons);
    tlm_coll_mfree(a, order);
    tlm_coll_mfree(a, tmp);
    return ok;
}

static int cmp_item_col(const void *a, const void *b)
{
    const item *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->col, y->col);
    if (!c)
        c = tlm_coll_cmp_i64(x->rank, y->rank);
    return c;
}

/* MARK: - metrics */

/* Clock offsets by trace rank: off[rank], or off[k] where rank[k] ==
 * rank (rank ascending; NULL: off is indexed by the rank itself). */
typedef struct offs {
    const int32_t *rank;
    const int64_t *off;
    size_t n;
} offs;

static int64_t off_of(const offs *o, int32_t rank)
{
    if (!o->off || rank < 0)
        return 0;
    if (!o->rank)
        return (size_t)rank < o->n ? o->off[rank] : 0;
    size_t lo = tlm_lower_bound_i32_at(o->rank, o->n, sizeof *o->rank, 0,
                                       rank);
    return lo < o->n && o->rank[lo] == rank ? o->off[lo] : 0;
}

/* Sum and maximum of the members' send (or receive) bytes; known is 0 once
 * a member does not know its count (-1). */
typedef struct byte_tally {
    int64_t total, max;
    int known;
} byte_tally;

static void tally(byte_tally *t, int64_t bytes)
{
    if (bytes < 0) {
        t->known = 0;
        return;
    }
    t->total = tlm_coll_sat_add(t->total, bytes);
    if (bytes > t->max)
        t->max = bytes;
}

/* The largest member's bytes over the mean of n members; NaN unknown. */
static double imbalance(const byte_tally *t, size_t n)
{
    return (t->known && t->total > 0)
               ? (double)t->max / ((double)t->total / (double)n)
               : NAN;
}

/* Computes the metrics of in from its members m[0..n). */
static void compute_metrics(tlm_coll_instance *in, tlm_coll_member *m,
                            size_t n, const offs *off, int64_t tie_ns,
                            int64_t tol_ns)
{
    if (n == 0)
        return;
    in->flags &= ~(uint32_t)(TLM_COLL_INST_CORRECTED |
                             TLM_COLL_INST_INCOMPLETE |
                             TLM_COLL_INST_OVERFULL |
                             TLM_COLL_INST_LATENCY_SUSPECT);
    int corrected = 0;
    for (int pass = 0; pass < 2; pass++) {
        int64_t fs = INT64_MAX, ls = INT64_MIN, fe = INT64_MAX,
                le = INT64_MIN;
        int32_t fr = -1, lr = -1;
        for (size_t i = 0; i < n; i++) {
            int64_t o = pass ? off_of(off, m[i].trace_rank) : 0;
            if (o)
                corrected = 1;
            int64_t s = tlm_coll_sat_sub(m[i].start_ns, o);
            int64_t e = tlm_coll_sat_sub(m[i].end_ns, o);
            if (s < fs || (s == fs && m[i].trace_rank < fr)) {
                fs = s;
                fr = m[i].trace_rank;
            }
            if (s > ls || (s == ls && m[i].trace_rank < lr)) {
                ls = s;
                lr = m[i].trace_rank;
            }
            if (e < fe)
                fe = e;
            if (e > le)
                le = e;
        }
        int64_t wsum = 0;
        int32_t nlast = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t o = pass ? off_of(off, m[i].trace_rank) : 0;
            int64_t s = tlm_coll_sat_sub(m[i].start_ns, o);
            int64_t w = tlm_coll_sat_sub(ls, s);
            if (pass) {
                m[i].wait_corr_ns = w;
                m[i].offset_ns = o;
            } else {
                m[i].wait_ns = w;
            }
            wsum = tlm_coll_sat_add(wsum, w);
            nlast += s >= tlm_coll_sat_sub(ls, tie_ns);
        }
        if (!pass) {
            in->first_start_ns = fs;
            in->last_start_ns = ls;
            in->first_end_ns = fe;
            in->last_end_ns = le;
            in->start_skew_ns = tlm_coll_sat_sub(ls, fs);
            in->end_skew_ns = tlm_coll_sat_sub(le, fe);
            in->wait_sum_ns = wsum;
            in->wall_ns = tlm_coll_sat_sub(le, fs);
            in->first_rank = fr;
            in->last_rank = lr;
            in->n_last = nlast;
        } else {
            in->start_skew_corr_ns = tlm_coll_sat_sub(ls, fs);
            in->end_skew_corr_ns = tlm_coll_sat_sub(le, fe);
            in->wait_sum_corr_ns = wsum;
            in->wall_corr_ns = tlm_coll_sat_sub(le, fs);
            in->first_rank_corr = fr;
            in->last_rank_corr = lr;
            in->n_last_corr = nlast;
            if (n >= 2 && tlm_coll_type_implicit_sync(in->coll) &&
                !(in->flags & TLM_COLL_INST_P2P)) {
                int64_t lat = INT64_MAX;
                for (size_t i = 0; i < n; i++)
                    if (m[i].dur_ns < lat)
                        lat = m[i].dur_ns;
                int64_t tol = tol_ns > lat / 10 ? tol_ns : lat / 10;
                if (lat > tlm_coll_sat_add(tlm_coll_sat_sub(fe, ls), tol))
                    in->flags |= TLM_COLL_INST_LATENCY_SUSPECT;
            }
        }
    }
    if (corrected)
        in->flags |= TLM_COLL_INST_CORRECTED;
    int64_t lat = INT64_MAX, mx = INT64_MIN;
    byte_tally snd = {0, -1, 1}, rcv = {0, -1, 1};
    for (size_t i = 0; i < n; i++) {
        if (m[i].dur_ns < lat)
            lat = m[i].dur_ns;
        if (m[i].dur_ns > mx)
            mx = m[i].dur_ns;
        tally(&snd, m[i].send_bytes);
        tally(&rcv, m[i].recv_bytes);
    }
    in->comm_latency_ns = lat;
    in->max_dur_ns = mx;
    in->send_bytes_total = snd.known ? snd.total : -1;
    in->recv_bytes_total = rcv.known ? rcv.total : -1;
    in->max_send_bytes = snd.known ? snd.max : -1;
    in->max_recv_bytes = rcv.known ? rcv.max : -1;
    in->send_imbalance = imbalance(&snd, n);
    in->recv_imbalance = imbalance(&rcv, n);
    in->throughput_gbps = (snd.known && in->wall_corr_ns > 0)
                              ? (double)snd.total / (double)in->wall_corr_ns
                              : NAN;
    int64_t gs = in->group_size > 0 ? in->group_size : in->n_members;
    if (in->flags & TLM_COLL_INST_P2P)
        gs = 2;
    if (in->n_members < gs)
        in->flags |= TLM_COLL_INST_INCOMPLETE;
    if (in->n_members > gs)
        in->flags |= TLM_COLL_INST_OVERFULL;
    in->algbw_gbps = NAN;
    in->busbw_gbps = NAN;
    /* a partial instance has no bandwidth: its latency and volume are the
     * members present's, not the collective's */
    if (in->flags & TLM_COLL_INST_INCOMPLETE)
        in->throughput_gbps = NAN;
    else if (lat > 0) {
        if (in->coll == TLM_COLL_ALLTOALLV) {
            /* per-rank data to peers: the largest sender's volume */
            if (snd.max >= 0 && snd.known) {
                in->busbw_gbps = (double)snd.max / (double)lat;
                double f = tlm_coll_bus_factor(TLM_COLL_ALLTOALLV, gs);
                in->algbw_gbps = f > 0 ? in->busbw_gbps / f : NAN;
            }
        } else if (in->bytes >= 0) {
            in->algbw_gbps = (double)in->bytes / (double)lat;
            int64_t fn = (in->flags & TLM_COLL_INST_P2P) ? 2 : gs;
            in->busbw_gbps = in->algbw_gbps *
                             tlm_coll_bus_factor(in->coll, fn);
        }
    }
}

void tlm_coll_metrics_apply_offsets(tlm_coll_match_result *res,
                                    const int64_t *offset_ns,
                                    size_t n_offsets, int64_t tie_ns,
                                    int64_t latency_tol_ns)
{
    tlm_coll_metrics_apply_offsets_by(res, NULL, offset_ns, n_offsets,
                                      tie_ns, latency_tol_ns);
}

void tlm_coll_metrics_apply_offsets_by(tlm_coll_match_result *res,
                                       const int32_t *ranks,
                                       const int64_t *offset_ns,
                                       size_t n_offsets, int64_t tie_ns,
                                       int64_t latency_tol_ns)
{
    if (!res)
        return;
    offs o = {ranks, offset_ns, n_offsets};
    size_t j = 0;
    for (size_t i = 0; i < res->n_inst; i++) {
        tlm_coll_instance *in = &res->inst[i];
        while (j < res->n_mem &&
               tlm_coll_inst_mem_cmp(in, &res->mem[j]) > 0)
            j++;
        size_t k = j;
        while (k < res->n_mem && tlm_coll_inst_mem_cmp(in, &res->mem[k]) == 0)
            k++;
        compute_metrics(in, res->mem + j, k - j, &o, tie_ns,
                        latency_tol_ns);
        j = k;
    }
}

/* MARK: - matching */

void tlm_coll_match_opts_init(tlm_coll_match_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->tie_ns = 0;
    opts->latency_tol_ns = 1000;
}

void tlm_coll_match_result_free(tlm_coll_match_result *res)
{
    if (!res)
        return;
    tlm_coll_mfree(res->alloc, res->inst);
    tlm_coll_mfree(res->alloc, res->mem);
    tlm_coll_mfree(res->alloc, res->unm);
    memset(res, 0, sizeof *res);
}

/* Items of records p[i..j) (sorted by rank, seq, part, ...): one per (rank,
 * seq).  rs (nr + 1 entries) receives the first item of each rank when
 * not NULL.  Returns the number of items, or (size_t)-1 on ENOMEM. */
static size_t build_items(builder *b, const tlm_coll_record *const *p,
                          size_t i, size_t j, item *its, size_t *rs,
                          size_t *nr)
{
    size_t ni = 0, nrank = 0;
    size_t q = i;
    while (q < j) {
        size_t e = q + 1;
        while (e < j && p[e]->trace_rank == p[q]->trace_rank &&
               p[e]->seq == p[q]->seq)
            e++;
        if (q == i || p[q]->trace_rank != p[q - 1]->trace_rank) {
            if (rs)
                rs[nrank] = ni;
            nrank++;
        }
        if (!make_item(b, p, q, e, &its[ni]))
            return (size_t)-1;
        ni++;
        q = e;
    }
    if (rs)
        rs[nrank] = ni;
    if (nr)
        *nr = nrank;
    return ni;
}

static int cmp_item_rank(const void *a, const void *b)
{
    const item *x = a, *y = b;
    return tlm_coll_cmp_i64(x->rank, y->rank);
}

tlm_status tlm_coll_match(const tlm_coll_record *recs, size_t n,
                          const tlm_coll_match_opts *opts,
                          tlm_coll_match_result *res, tlm_error *err)
{
    if (!res || (!recs && n))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_coll_match: NULL argument");
    tlm_coll_match_opts o;
    if (opts)
        o = *opts;
    else
        tlm_coll_match_opts_init(&o);
    memset(res, 0, sizeof *res);
    res->alloc = o.alloc;
    builder b;
    memset(&b, 0, sizeof b);
    b.a = o.alloc;
    b.world = o.world_size;
    const tlm_coll_record **p = NULL;
    item *its = NULL;
    size_t *rs = NULL;
    if (n == 0)
        return TLM_OK;
    p = tlm_coll_malloc(b.a, n * sizeof *p);
    its = tlm_coll_malloc(b.a, n * sizeof *its);
    rs = tlm_coll_malloc(b.a, (n + 1) * sizeof *rs);
    if (!p || !its || !rs)
        goto nomem;
    for (size_t i = 0; i < n; i++)
        p[i] = &recs[i];
    qsort(p, n, sizeof *p, cmp_rec_group);
    size_t i = 0;
    while (i < n) {
        const tlm_coll_record *r = p[i];
        size_t j = i + 1;
        int cls = rec_class(r);
        if (cls <= 1) {
            while (j < n && rec_class(p[j]) == cls &&
                   p[j]->match_key == r->match_key &&
                   p[j]->seq_src == r->seq_src && p[j]->seq == r->seq)
                j++;
            size_t ni = build_items(&b, p, i, j, its, NULL, NULL);
            if (ni == (size_t)-1)
                goto nomem;
            if (!emit_instance(&b, its, ni, r->seq, cls == 1))
                goto nomem;
        } else if (cls == 2) {
            if (r->part == 0 &&
                !add_unmatched(&b, r, TLM_COLL_UNM_NO_OVERLAP))
                goto nomem;
        } else {
            while (j < n && rec_class(p[j]) == 3 &&
                   p[j]->match_key == r->match_key)
                j++;
            size_t nr = 0;
            size_t ni = build_items(&b, p, i, j, its, rs, &nr);
            if (ni == (size_t)-1)
                goto nomem;
            if (!align_group(b.a, its, rs, nr))
                goto nomem;
            size_t keep = 0;
            for (size_t q = 0; q < ni; q++) {
                if (its[q].col == INT64_MIN) {
                    if (!add_unmatched(&b, its[q].rec,
                                       TLM_COLL_UNM_NO_OVERLAP))
                        goto nomem;
                } else {
                    its[keep++] = its[q];
                }
            }
            qsort(its, keep, sizeof *its, cmp_item_col);
            int64_t base = keep ? its[0].col : 0;
            for (size_t q = 0; q < keep;) {
                size_t e = q + 1;
                while (e < keep && its[e].col == its[q].col)
                    e++;
                qsort(its + q, e - q, sizeof *its, cmp_item_rank);
                if (!emit_instance(&b, its + q, e - q, its[q].col - base,
                                   1))
                    goto nomem;
                q = e;
            }
        }
        i = j;
    }
    tlm_coll_mfree(b.a, p);
    tlm_coll_mfree(b.a, its);
    tlm_coll_mfree(b.a, rs);
    p = NULL;
    its = NULL;
    rs = NULL;
    /* instances whose members all went to the unmatched list */
    size_t keep = 0;
    for (size_t q = 0; q < b.n_inst; q++)
        if (b.inst[q].n_members > 0)
            b.inst[keep++] = b.inst[q];
    b.n_inst = keep;
    tlm_coll_instances_sort(b.inst, b.n_inst);
    tlm_coll_members_sort(b.mem, b.n_mem);
    tlm_coll_unmatched_sort(b.unm, b.n_unm);
    res->inst = b.inst;
    res->n_inst = b.n_inst;
    res->mem = b.mem;
    res->n_mem = b.n_mem;
    res->unm = b.unm;
    res->n_unm = b.n_unm;
    tlm_coll_metrics_apply_offsets(res, o.offset_ns, o.n_offsets, o.tie_ns,
                                   o.latency_tol_ns);
    return TLM_OK;
nomem:
    tlm_coll_mfree(b.a, p);
    tlm_coll_mfree(b.a, its);
    tlm_coll_mfree(b.a, rs);
    tlm_coll_mfree(b.a, b.inst);
    tlm_coll_mfree(b.a, b.mem);
    tlm_coll_mfree(b.a, b.unm);
    memset(res, 0, sizeof *res);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "out of memory while matching collectives");
}

/* MARK: - two-phase alignment */

/* Align keys and shifts: (key, rank[, seq]), as the unmatched records; a
 * plain qsort/bsearch comparator per type. */
static int cmp_akey(const void *a, const void *b)
{
    const tlm_coll_align_key *x = a, *y = b;
    int c = tlm_coll_cmp_u64(x->match_key, y->match_key);
    if (!c)
        c = tlm_coll_cmp_i64(x->trace_rank, y->trace_rank);
    if (!c)
        c = tlm_coll_cmp_i64(x->seq, y->seq);
    return c;
}

static int needs_align(const tlm_coll_record *r)
{
    return rec_class(r) == 3;
}

tlm_status tlm_coll_align_keys(const tlm_coll_record *recs, size_t n,
                               const tlm_alloc *a, tlm_coll_align_key **out,
                               size_t *n_out, tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)out, n_out, recs || !n,
                                     "tlm_coll_align_keys", err);
    if (st != TLM_OK)
        return st;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += needs_align(&recs[i]);
    if (m == 0)
        return TLM_OK;
    tlm_coll_align_key *k = tlm_coll_malloc(a, m * sizeof *k);
    if (!k)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory while building align keys");
    m = 0;
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_record *r = &recs[i];
        if (!needs_align(r))
            continue;
        tlm_coll_align_key *x = &k[m++];
        memset(x, 0, sizeof *x);
        x->match_key = r->match_key;
        x->seq = r->seq;
        x->end_ns = tlm_coll_sat_add(r->start_ns, r->dur_ns);
        x->sig = r->part == 0 ? r->sig : 0;
        x->trace_rank = r->trace_rank;
        x->part = r->part;
    }
    qsort(k, m, sizeof *k, cmp_akey);
    /* one key per (match_key, rank, seq): the head's signature and the
     * latest end of its kernels */
    size_t w = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        tlm_coll_align_key h = k[i];
        while (j < m && cmp_akey(&k[i], &k[j]) == 0) {
            if (k[j].end_ns > h.end_ns)
                h.end_ns = k[j].end_ns;
            if (k[j].part < h.part) {
                h.part = k[j].part;
                h.sig = k[j].sig;
            }
            j++;
        }
        h.part = 0;
        k[w++] = h;
        i = j;
    }
    *out = k;
    *n_out = w;
    return TLM_OK;
}

uint64_t tlm_coll_align_key_owner(const tlm_coll_align_key *k)
{
    return k ? tlm_coll_mix(k->match_key, UINT64_MAX) : 0;
}

tlm_status tlm_coll_align(const tlm_coll_align_key *keys, size_t n,
                          const tlm_alloc *a, tlm_coll_align_shift **out,
                          size_t *n_out, tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)out, n_out, keys || !n,
                                     "tlm_coll_align", err);
    if (st != TLM_OK)
        return st;
    if (n == 0)
        return TLM_OK;
    tlm_coll_align_key *k = tlm_coll_malloc(a, n * sizeof *k);
    item *its = tlm_coll_malloc(a, n * sizeof *its);
    size_t *rs = tlm_coll_malloc(a, (n + 1) * sizeof *rs);
    tlm_coll_align_shift *sh = NULL;
    size_t nsh = 0, cap = 0;
    if (!k || !its || !rs)
        goto nomem;
    memcpy(k, keys, n * sizeof *k);
    qsort(k, n, sizeof *k, cmp_akey);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && k[j].match_key == k[i].match_key)
            j++;
        size_t nr = 0;
        for (size_t q = i; q < j; q++) {
            if (q == i || k[q].trace_rank != k[q - 1].trace_rank)
                rs[nr++] = q - i;
            item *it = &its[q - i];
            memset(it, 0, sizeof *it);
            it->sig = k[q].sig;
            it->rank = k[q].trace_rank;
            it->end = k[q].end_ns;
        }
        rs[nr] = j - i;
        if (!align_group(a, its, rs, nr))
            goto nomem;
        int64_t base = INT64_MAX;
        for (size_t q = 0; q < j - i; q++)
            if (its[q].col != INT64_MIN && its[q].col < base)
                base = its[q].col;
        if (!tlm_coll_grow(a, (void **)&sh, &cap, nsh + nr, sizeof *sh))
            goto nomem;
        for (size_t r = 0; r < nr; r++) {
            const item *f = &its[rs[r]];
            tlm_coll_align_shift *x = &sh[nsh++];
            memset(x, 0, sizeof *x);
            x->match_key = k[i].match_key;
            x->trace_rank = f->rank;
            x->ok = f->col != INT64_MIN;
            x->shift = x->ok ? f->col - base - k[i + rs[r]].seq : 0;
        }
        i = j;
    }
    tlm_coll_mfree(a, k);
    tlm_coll_mfree(a, its);
    tlm_coll_mfree(a, rs);
    *out = sh;
    *n_out = nsh;
    return TLM_OK;
nomem:
    tlm_coll_mfree(a, k);
    tlm_coll_mfree(a, its);
    tlm_coll_mfree(a, rs);
    tlm_coll_mfree(a, sh);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "out of memory while aligning ordinals");
}

static int cmp_shift(const void *a, const void *b)
{
    const tlm_coll_align_shift *x = a, *y = b;
    int c = tlm_coll_cmp_u64(x->match_key, y->match_key);
    return c ? c : tlm_coll_cmp_i64(x->trace_rank, y->trace_rank);
}

void tlm_coll_align_shifts_sort(tlm_coll_align_shift *sh, size_t n)
{
    if (sh && n > 1)
        qsort(sh, n, sizeof *sh, cmp_shift);
}

void tlm_coll_records_apply_shifts(tlm_coll_record *recs, size_t n,
                                   const tlm_coll_align_shift *sh,
                                   size_t n_sh)
{
    if (!recs)
        return;
    for (size_t i = 0; i < n; i++) {
        tlm_coll_record *r = &recs[i];
        if (!needs_align(r))
            continue;
        tlm_coll_align_shift key;
        memset(&key, 0, sizeof key);
        key.match_key = r->match_key;
        key.trace_rank = r->trace_rank;
        const tlm_coll_align_shift *f =
            (sh && n_sh) ? bsearch(&key, sh, n_sh, sizeof *sh, cmp_shift)
                         : NULL;
        if (!f)
            continue;
        if (f->ok) {
            r->seq += f->shift;
            r->flags |= TLM_COLL_REC_ALIGNED;
        } else {
            r->flags |= TLM_COLL_REC_UNALIGNED;
        }
    }
}
