/*
 * coll_records.c - collective records of one trace.
 *
 * Every NCCL/RCCL kernel (cat "kernel", name containing "nccl" or "rccl",
 * case-insensitive, or a "cross_device_reduce" custom all-reduce) becomes a
 * flat tlm_coll_record.  Its metadata is looked up, field by field, in this
 * order:
 *
 *   1. the kernel's own args (Kineto copies record_param_comms args onto
 *      the kernel from ~PyTorch 2.4 on);
 *   2. the record_param_comms cpu_op linked to the kernel: by External id
 *      (named-key era: the kernel's External id differs from its
 *      correlation), else through the launch: kernel correlation -> the
 *      cuda_runtime launch with that correlation -> the innermost
 *      record_param_comms (and nccl:* user_annotation) span on the
 *      launching thread that contains the launch ts (older traces, where
 *      the kernel's External id is its own correlation);
 *   3. the kernel name (collective type, algorithm, element type).
 *
 * `wait` record_param_comms ops (named "wait", or in 2.2-era traces an op
 * whose first input is not a tensor) are never link targets.
 *
 * The sequence number is the "Seq" arg, else record_param_comms "Concrete
 * Inputs"[1] (2.2-era), else an ordinal of GPU start within (match key,
 * trace rank), counting only the first kernel of each CPU op.  send/recv
 * records are keyed by their directed pair and numbered per pair.
 */
#include "coll_internal.h"
#include "search.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MARK: - small text parsers */

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parses a signed decimal integer from s[0..len) (whole text, surrounding
 * blanks and quotes allowed).  1 on success. */
static int parse_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    while (i < len && (is_ws(s[i]) || s[i] == '"'))
        i++;
    while (len > i && (is_ws(s[len - 1]) || s[len - 1] == '"'))
        len--;
    if (i >= len)
        return 0;
    int neg = 0;
    if (s[i] == '-' || s[i] == '+') {
        neg = s[i] == '-';
        i++;
    }
    if (i >= len)
        return 0;
    int64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        int d = s[i] - '0';
        if (v > (INT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = neg ? -v : v;
    return 1;
}

/* Iterates over the top-level elements of a compact JSON array text.
 * Call with *pos = 0; returns 1 with [*b, *e) the element's text (quotes
 * of a string kept), 0 at the end. */
static int arr_next(const char *s, size_t len, size_t *pos, size_t *b,
                    size_t *e)
{
    size_t i = *pos;
    if (i == 0) {
        while (i < len && is_ws(s[i]))
            i++;
        if (i >= len || s[i] != '[')
            return 0;
        i++;
    }
    while (i < len && (is_ws(s[i]) || s[i] == ','))
        i++;
    if (i >= len || s[i] == ']')
        return 0;
    size_t start = i;
    int depth = 0, instr = 0;
    for (; i < len; i++) {
        char c = s[i];
        if (instr) {
            if (c == '\\')
                i++;
            else if (c == '"')
                instr = 0;
            continue;
        }
        if (c == '"')
            instr = 1;
        else if (c == '[' || c == '{')
            depth++;
        else if (c == ']' || c == '}') {
            if (depth == 0)
                break;
            depth--;
        } else if (c == ',' && depth == 0)
            break;
    }
    size_t end = i;
    while (end > start && is_ws(s[end - 1]))
        end--;
    *b = start;
    *e = end;
    *pos = i;
    return 1;
}

/* Element idx of a JSON array text as an integer (string or number). */
static int arr_get_i64(const char *s, size_t len, size_t idx, int64_t *out,
                       size_t *count)
{
    size_t pos = 0, b, e, k = 0;
    int found = 0;
    while (arr_next(s, len, &pos, &b, &e)) {
        if (k == idx)
            found = parse_i64(s + b, e - b, out);
        k++;
    }
    if (count)
        *count = k;
    return found;
}

/* Element idx as raw text [*b, *e) (string quotes stripped). */
static int arr_get_text(const char *s, size_t len, size_t idx, size_t *ob,
                        size_t *oe)
{
    size_t pos = 0, b, e, k = 0;
    while (arr_next(s, len, &pos, &b, &e)) {
        if (k++ == idx) {
            if (e - b >= 2 && s[b] == '"' && s[e - 1] == '"') {
                b++;
                e--;
            }
            *ob = b;
            *oe = e;
            return 1;
        }
    }
    return 0;
}

/* Number of elements of an "Input Dims" entry: [d0, d1, ...] is one tensor
 * (product), [[...], [...]] a tensor list (sum of products).  -1 when not
 * a shape. */
static int64_t dims_numel(const char *s, size_t len)
{
    size_t pos = 0, b, e;
    int64_t total = 0;
    int any = 0, nested = 0;
    int64_t prod = 1;
    while (arr_next(s, len, &pos, &b, &e)) {
        if (s[b] == '[') {
            nested = 1;
            int64_t sub = dims_numel(s + b, e - b);
            if (sub < 0 || total > INT64_MAX - sub)
                return -1;
            total += sub;
        } else {
            int64_t d;
            if (!parse_i64(s + b, e - b, &d) || d < 0)
                return -1;
            if (d && prod > INT64_MAX / d)
                return -1;
            prod *= d;
        }
        any = 1;
    }
    if (!any)
        return nested ? 0 : -1;
    return nested ? total : prod;
}

/* Summary of an integer list text such as "[0, 1, 2, ..., 7]". */
typedef struct int_list {
    int64_t n;          /* numbers seen */
    int truncated;      /* "..." present */
    int ok;             /* parsed */
    int64_t first;
    int64_t stride;     /* 0 when not an arithmetic progression */
    int64_t sum;
    int64_t idx_of;     /* index of value `find`; -1 */
    int64_t at_self;    /* value at index `self`; -1 */
    int64_t max_other;  /* max value at indexes != self; -1 */
} int_list;

static void parse_int_list(const char *s, size_t len, int64_t find,
                           int64_t self, int_list *L)
{
    memset(L, 0, sizeof *L);
    L->idx_of = -1;
    L->at_self = -1;
    L->max_other = -1;
    if (!s || len == 0)
        return;
    size_t pos = 0, b, e;
    int64_t prev = 0;
    int ap = 1;
    size_t i = 0;
    while (i < len && is_ws(s[i]))
        i++;
    if (i >= len || s[i] != '[')
        return;
    L->ok = 1;
    while (arr_next(s, len, &pos, &b, &e)) {
        const char *t = s + b;
        size_t tl = e - b;
        if (tl >= 2 && t[0] == '"' && t[tl - 1] == '"') {
            t++;
            tl -= 2;
        }
        if ((tl == 3 && memcmp(t, "...", 3) == 0) ||
            (tl == 8 && memcmp(t, "Ellipsis", 8) == 0)) {
            L->truncated = 1;
            continue;
        }
        int64_t v;
        if (!parse_i64(t, tl, &v) || v < -TLM_COLL_NELEMS_MAX ||
            v > TLM_COLL_NELEMS_MAX) {
            L->ok = 0;
            return;
        }
        if (L->truncated) /* values after "..." are not at their index */
            continue;
        if (L->n == 0)
            L->first = v;
        else if (L->n == 1)
            L->stride = v - prev;
        else if (v - prev != L->stride)
            ap = 0;
        if (v == find && L->idx_of < 0)
            L->idx_of = L->n;
        if (L->n == self)
            L->at_self = v;
        else if (v > L->max_other)
            L->max_other = v;
        if (v > 0 && L->sum > INT64_MAX - v)
            L->ok = 0;
        else
            L->sum += v;
        prev = v;
        L->n++;
    }
    if (!ap || L->n < 2)
        L->stride = (L->n == 1) ? 1 : (ap ? L->stride : 0);
}

/* MARK: - metadata gathered for one kernel */

typedef struct meta {
    const char *cname;
    size_t cname_len;
    int64_t in, out, gsize;
    const char *dtype;
    size_t dtype_len;
    const char *in_split, *out_split;
    size_t in_split_len, out_split_len;
    const char *pg, *pg_desc, *ranks;
    size_t pg_len, pg_desc_len, ranks_len;
    char pg_id_buf[32];
    int64_t src, dst, seq, rank_local, grs, grstride;
    int seq_src;   /* -1 none */
    int has_five;
} meta;

static void meta_init(meta *m)
{
    memset(m, 0, sizeof *m);
    m->in = m->out = m->gsize = -1;
    m->src = m->dst = m->seq = m->rank_local = m->grs = m->grstride = -1;
    m->seq_src = -1;
}

static const char *arg_text(const tlm_trace *t, const tlm_event *ev,
                            tlm_arg key, size_t *len)
{
    size_t l = 0;
    const char *s = tlm_event_arg_str(t, ev, key, &l);
    if (s && len)
        *len = l;
    return s;
}

/* Integer arg that may also be stored as text ("8"). */
static int arg_int(const tlm_trace *t, const tlm_event *ev, tlm_arg key,
                   int64_t *out)
{
    if (tlm_event_arg_int(t, ev, key, out))
        return 1;
    size_t l;
    const char *s = arg_text(t, ev, key, &l);
    return s && parse_i64(s, l, out);
}

/* Fills the fields of m that are still unknown from the named args of ev.
 * Returns 1 when ev carried the five size fields. */
static int meta_fill_named(const tlm_trace *t, const tlm_event *ev, meta *m)
{
    size_t l;
    const char *s;
    int n5 = 0;
    int64_t v;
    s = arg_text(t, ev, TLM_ARG_COLLECTIVE_NAME, &l);
    if (s) {
        n5++;
        if (!m->cname) {
            m->cname = s;
            m->cname_len = l;
        }
    }
    if (arg_int(t, ev, TLM_ARG_IN_MSG_NELEMS, &v)) {
        n5++;
        if (m->in < 0 && v >= 0 && v <= TLM_COLL_NELEMS_MAX)
            m->in = v;
    }
    if (arg_int(t, ev, TLM_ARG_OUT_MSG_NELEMS, &v)) {
        n5++;
        if (m->out < 0 && v >= 0 && v <= TLM_COLL_NELEMS_MAX)
            m->out = v;
    }
    if (arg_int(t, ev, TLM_ARG_GROUP_SIZE, &v)) {
        n5++;
        if (m->gsize < 0)
            m->gsize = v;
    }
    s = arg_text(t, ev, TLM_ARG_DTYPE, &l);
    if (s) {
        n5++;
        if (!m->dtype) {
            m->dtype = s;
            m->dtype_len = l;
        }
    }
    if (!m->in_split) {
        m->in_split = arg_text(t, ev, TLM_ARG_IN_SPLIT_SIZE,
                               &m->in_split_len);
        m->out_split = arg_text(t, ev, TLM_ARG_OUT_SPLIT_SIZE,
                                &m->out_split_len);
        if (!m->out_split)
            m->out_split_len = 0;
        if (!m->in_split)
            m->in_split_len = 0;
    }
    if (!m->pg) {
        m->pg = arg_text(t, ev, TLM_ARG_PG_NAME, &m->pg_len);
        if (!m->pg) {
            /* "Process Group ID" (Apr 2024 builds), int or text */
            if (tlm_event_arg_int(t, ev, TLM_ARG_PG_ID, &v)) {
                int k = snprintf(m->pg_id_buf, sizeof m->pg_id_buf, "%lld",
                                 (long long)v);
                m->pg = m->pg_id_buf;
                m->pg_len = k > 0 ? (size_t)k : 0;
            } else {
                m->pg = arg_text(t, ev, TLM_ARG_PG_ID, &m->pg_len);
            }
        }
        if (!m->pg)
            m->pg_len = 0;
    }
    if (!m->pg_desc) {
        m->pg_desc = arg_text(t, ev, TLM_ARG_PG_DESC, &m->pg_desc_len);
        if (!m->pg_desc)
            m->pg_desc_len = 0;
    }
    if (!m->ranks) {
        m->ranks = arg_text(t, ev, TLM_ARG_PG_RANKS, &m->ranks_len);
        if (!m->ranks)
            m->ranks_len = 0;
    }
    if (m->src < 0 && arg_int(t, ev, TLM_ARG_SRC_RANK, &v))
        m->src = v;
    if (m->dst < 0 && arg_int(t, ev, TLM_ARG_DST_RANK, &v))
        m->dst = v;
    if (m->seq_src < 0 && arg_int(t, ev, TLM_ARG_SEQ, &v) && v >= 0) {
        m->seq = v;
        m->seq_src = TLM_COLL_SEQ_TRACE;
    }
    if (m->rank_local < 0 && arg_int(t, ev, TLM_ARG_RANK, &v))
        m->rank_local = v;
    if (m->grs < 0 && arg_int(t, ev, TLM_ARG_GLOBAL_RANK_START, &v) &&
        v >= 0)
        m->grs = v;
    if (m->grstride < 0 && arg_int(t, ev, TLM_ARG_GLOBAL_RANK_STRIDE, &v) &&
        v > 0)
        m->grstride = v;
    return n5 == 5;
}

/* 1 when ev is a record_param_comms of a `wait` (never a link target). */
static int rpc_is_wait(const tlm_trace *t, const tlm_event *ev)
{
    size_t l;
    const char *s = arg_text(t, ev, TLM_ARG_COLLECTIVE_NAME, &l);
    if (s) {
        int w = 0;
        tlm_coll_type_from_name(s, l, &w);
        return w;
    }
    /* 2.2-era: the collective's first input is a tensor (list); the wait
     * op records scalars only. */
    s = arg_text(t, ev, TLM_ARG_INPUT_TYPE, &l);
    if (s) {
        size_t b, e;
        if (arr_get_text(s, l, 0, &b, &e))
            return strstr(s + b, "Tensor") == NULL ||
                   (size_t)(strstr(s + b, "Tensor") - s) >= e;
        return 1;
    }
    return 0;
}

/* 2.2/2.3-era fields from record_param_comms "Concrete Inputs":
 * [tensors, seq, pg, rank, name, in split, out split, (grs, stride,)
 *  world size]. */
static void meta_fill_concrete(const tlm_trace *t, const tlm_event *rpc,
                               meta *m, int64_t *world)
{
    size_t l;
    const char *s = arg_text(t, rpc, TLM_ARG_CONCRETE_INPUTS, &l);
    *world = -1;
    if (!s)
        return;
    size_t count = 0;
    int64_t v;
    int have_seq = arr_get_i64(s, l, 1, &v, &count);
    if (count < 8)
        return;
    if (have_seq && v >= 0 && m->seq_src < 0) {
        m->seq = v;
        m->seq_src = TLM_COLL_SEQ_CONCRETE;
    }
    if (arr_get_i64(s, l, count - 1, &v, NULL) && v > 0)
        *world = v;
    if (count >= 10) {
        int64_t a, b;
        if (m->grs < 0 && arr_get_i64(s, l, count - 3, &a, NULL) && a >= 0)
            m->grs = a;
        if (m->grstride < 0 && arr_get_i64(s, l, count - 2, &b, NULL) &&
            b > 0)
            m->grstride = b;
    }
}

/* The profiler's "Input type" of a tensor is its caffe2::TypeMeta name:
 * c10 names for some ("c10::Half", "c10::BFloat16"), C++ type names for
 * others ("float", "long int", "unsigned char", ...). */
static tlm_dtype typemeta_dtype(const char *s, size_t len)
{
    static const struct {
        const char *name;
        tlm_dtype dt;
    } cxx[] = {
        {"long int", TLM_DTYPE_LONG},       {"long", TLM_DTYPE_LONG},
        {"long long", TLM_DTYPE_LONG},      {"long long int", TLM_DTYPE_LONG},
        {"signed char", TLM_DTYPE_CHAR},    {"unsigned char", TLM_DTYPE_BYTE},
        {"short int", TLM_DTYPE_SHORT},     {"short", TLM_DTYPE_SHORT},
        {"unsigned short", TLM_DTYPE_UINT16},
        {"unsigned int", TLM_DTYPE_UINT32},
        {"unsigned long", TLM_DTYPE_UINT64},
        {"c10::complex<c10::Half>", TLM_DTYPE_COMPLEXHALF},
        {"c10::complex<float>", TLM_DTYPE_COMPLEXFLOAT},
        {"c10::complex<double>", TLM_DTYPE_COMPLEXDOUBLE},
    };
    tlm_dtype dt = tlm_dtype_from_name(s, len);
    for (size_t i = 0; dt == TLM_DTYPE_UNKNOWN && i < sizeof cxx / sizeof *cxx;
         i++)
        if (strlen(cxx[i].name) == len && memcmp(cxx[i].name, s, len) == 0)
            dt = cxx[i].dt;
    return dt;
}

/* MARK: - lookup tables */

typedef struct kv {
    int64_t key;
    uint64_t idx;
} kv;

static int cmp_kv(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->key, y->key);
    return c ? c : tlm_coll_cmp_u64(x->idx, y->idx);
}

static const kv *kv_find(const kv *v, size_t n, int64_t key)
{
    size_t lo = tlm_lower_bound_i64_at(v, n, sizeof *v, offsetof(kv, key),
                                       key);
    return (lo < n && v[lo].key == key) ? &v[lo] : NULL;
}

/* A CPU span on one thread: record_param_comms or nccl:* annotation. */
typedef struct span {
    int64_t pid, tid, ts, end;
    uint64_t idx;
    int kind; /* 0 rpc, 1 annotation */
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->pid, y->pid);
    if (!c)
        c = tlm_coll_cmp_i64(x->tid, y->tid);
    if (!c)
        c = tlm_coll_cmp_i64(x->ts, y->ts);
    if (!c)
        c = tlm_coll_cmp_u64(x->idx, y->idx);
    return c;
}

/* tlm_lower_bound's order for an upper bound: > 0 when span elem is not
 * after key by (pid, tid, ts). */
static int span_not_after(const void *key, const void *elem)
{
    const span *k = key, *s = elem;
    int c = tlm_coll_cmp_i64(s->pid, k->pid);
    if (!c)
        c = tlm_coll_cmp_i64(s->tid, k->tid);
    if (!c)
        c = tlm_coll_cmp_i64(s->ts, k->ts);
    return c <= 0;
}

/* Innermost span of the given kind on (pid, tid) containing ts. */
static const span *span_find(const span *v, size_t n, int64_t pid,
                             int64_t tid, int64_t ts, int kind)
{
    /* first span with key > (pid, tid, ts) */
    span key = {.pid = pid, .tid = tid, .ts = ts};
    size_t lo = tlm_lower_bound(v, n, sizeof *v, &key, span_not_after);
    for (size_t k = lo, steps = 0; k > 0 && steps < 256; k--, steps++) {
        const span *s = &v[k - 1];
        if (s->pid != pid || s->tid != tid)
            break;
        if (s->kind == kind && s->ts <= ts && ts <= s->end)
            return s;
    }
    return NULL;
}

static int name_has_ci(const char *s, size_t len, const char *pat)
{
    size_t n = strlen(pat);
    for (size_t i = 0; i + n <= len; i++) {
        size_t k = 0;
        for (; k < n; k++) {
            int c = (unsigned char)s[i + k];
            if (c >= 'A' && c <= 'Z')
                c += 'a' - 'A';
            if (c != pat[k])
                break;
        }
        if (k == n)
            return 1;
    }
    return 0;
}

/* MARK: - extraction */

void tlm_coll_extract_opts_init(tlm_coll_extract_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->trace_rank = -1;
}

void tlm_coll_free(const tlm_alloc *alloc, void *ptr)
{
    tlm_coll_mfree(alloc, ptr);
}

static int cmp_rec_time(const void *a, const void *b)
{
    const tlm_coll_record *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->start_ns, y->start_ns);
    return c ? c : tlm_coll_cmp_u64(x->event_index, y->event_index);
}

/* Ranks of the PG from distributedInfo.pg_config by name. */
static const tlm_pg_config *find_pg_config(const tlm_trace *t,
                                           const tlm_trace_meta *md,
                                           const char *pg, size_t pg_len)
{
    if (!md || !pg)
        return NULL;
    for (size_t i = 0; i < md->n_pgs; i++) {
        size_t l;
        const char *nm = tlm_trace_str(t, md->pgs[i].pg_name, &l);
        if (md->pgs[i].pg_name && l == pg_len && memcmp(nm, pg, l) == 0)
            return &md->pgs[i];
    }
    return NULL;
}

/* Per-peer byte volumes of all_to_all(v) from a split list (rows per peer)
 * and the total element count: bytes(j) = split[j] * (nelems / sum) * bpe.
 * *total gets the bytes to peers other than self, *maxp the largest. */
static void a2a_bytes(const char *split, size_t split_len, int64_t nelems,
                      int bpe, int64_t gsize, int64_t self, int64_t *total,
                      int64_t *maxp, int *trunc)
{
    *total = -1;
    *maxp = -1;
    if (nelems < 0 || bpe <= 0)
        return;
    int_list L;
    parse_int_list(split, split_len, INT64_MIN, self, &L);
    if (!L.ok || L.n == 0) {
        /* equal splits */
        if (gsize > 0) {
            int64_t per = nelems / gsize * bpe;
            *maxp = gsize > 1 ? per : 0;
            *total = self >= 0 ? nelems * bpe - per
                               : (nelems * bpe) * (gsize - 1) / gsize;
        }
        return;
    }
    if (L.truncated) {
        *trunc = 1;
        return;
    }
    if (L.sum <= 0) {
        *total = 0;
        *maxp = 0;
        return;
    }
    double w = (double)nelems / (double)L.sum * (double)bpe;
    int64_t self_rows = L.at_self >= 0 ? L.at_self : 0;
    if (nelems % L.sum == 0) {
        int64_t we = nelems / L.sum * bpe;
        *total = (L.sum - self_rows) * we;
        *maxp = L.max_other >= 0 ? L.max_other * we : 0;
    } else {
        *total = (int64_t)((double)(L.sum - self_rows) * w + 0.5);
        *maxp = L.max_other >= 0 ? (int64_t)((double)L.max_other * w + 0.5)
                                 : 0;
    }
}

/* What pass 2 found for one kernel besides its own args. */
typedef struct klink {
    const tlm_event *rpc; /* linked record_param_comms op, or NULL */
    uint64_t rpc_idx;
    const tlm_event *ann; /* enclosing nccl:* annotation, or NULL */
    int via;              /* TLM_COLL_META_* of the rpc link */
    int kmeta;            /* the kernel carried the five size fields */
    int kpg;              /* the kernel carried its PG name */
    int meta_src;
    int64_t world;        /* world size from Concrete Inputs, or -1 */
} klink;

/* Times, link, kernel name, flags and stream of a record (zeroed first). */
static void rec_kernel(const tlm_trace *t, const tlm_event *k, uint64_t kidx,
                       const klink *lk, int32_t trace_rank, int64_t base,
                       tlm_coll_record *r)
{
    const tlm_event *rpc = lk->rpc;
    memset(r, 0, sizeof *r);
    size_t knl = 0;
    const char *kname = tlm_trace_str(t, k->name, &knl);
    r->trace_rank = trace_rank;
    /* times as in the trace, whole int64 range (a clock far behind its
     * base gives negative ts); ts + base saturates only beyond int64 */
    r->ts_ns = k->ts;
    r->start_ns = tlm_coll_sat_add(k->ts, base);
    r->dur_ns = tlm_coll_clamp(tlm_ev_dur(k), 0, TLM_COLL_DUR_MAX);
    r->cpu_ts_ns = rpc ? tlm_coll_sat_add(rpc->ts, base) : -1;
    r->event_index = kidx;
    r->link_id = rpc ? (int64_t)lk->rpc_idx : -1;
    r->meta_src = (uint8_t)lk->meta_src;
    tlm_coll_strlcpy(r->kernel, sizeof r->kernel, kname, knl);

    int64_t corr = -1, ext = -1;
    int has_corr = tlm_event_arg_int(t, k, TLM_ARG_CORRELATION, &corr);
    int has_ext = tlm_event_arg_int(t, k, TLM_ARG_EXTERNAL_ID, &ext);
    r->flags |= TLM_COLL_REC_TL_KEPT * (uint32_t)(has_corr || has_ext);
    if (lk->kmeta)
        r->flags |= TLM_COLL_REC_KMETA;
    if (lk->kpg)
        r->flags |= TLM_COLL_REC_KPG;
    if (name_has_ci(kname, knl, "cross_device_reduce"))
        r->flags |= TLM_COLL_REC_CUSTOM;
    int64_t stream;
    if (tlm_event_arg_int(t, k, TLM_ARG_STREAM, &stream))
        r->stream = stream;
    else
        r->stream = (k->has_tid && !(k->flags & TLM_EV_TID_STR)) ? tlm_ev_tid(k)
                                                                 : -1;
}

/* Collective type: Collective name, else nccl:* title, else kernel name.
 * *kdt gets the element type the kernel name implies. */
static tlm_coll_type rec_type(const tlm_trace *t, const tlm_event *k,
                              const meta *m, const tlm_event *ann,
                              tlm_coll_record *r, tlm_dtype *kdt)
{
    size_t knl = 0;
    const char *kname = tlm_trace_str(t, k->name, &knl);
    *kdt = TLM_DTYPE_UNKNOWN;
    tlm_coll_type kt = tlm_coll_type_from_kernel(kname, r->algo, kdt);
    r->kname_coll = (uint8_t)kt;
    tlm_coll_type ct = TLM_COLL_UNKNOWN;
    if (m->cname) {
        tlm_coll_strlcpy(r->coll_name, sizeof r->coll_name, m->cname,
                         m->cname_len);
        ct = tlm_coll_type_from_name(m->cname, m->cname_len, NULL);
    }
    if (ct == TLM_COLL_UNKNOWN && ann) {
        size_t al;
        const char *an = tlm_trace_str(t, ann->name, &al);
        ct = tlm_coll_type_from_name(an, al, NULL);
    }
    if (ct == TLM_COLL_UNKNOWN)
        ct = kt;
    /* all_to_all with splits is all_to_allv when the name is the list API's
     * "all_to_all"; keep the recorded type otherwise */
    r->coll = (uint8_t)ct;
    return ct;
}

/* Element type: the dtype arg, else the annotation's first input type,
 * else what the kernel name implies (kdt). */
static tlm_dtype rec_dtype(const tlm_trace *t, const meta *m,
                           const tlm_event *ann, tlm_dtype kdt,
                           tlm_coll_record *r)
{
    tlm_dtype dt = TLM_DTYPE_UNKNOWN;
    if (m->dtype) {
        tlm_coll_strlcpy(r->dtype_name, sizeof r->dtype_name, m->dtype,
                         m->dtype_len);
        dt = tlm_dtype_from_name(m->dtype, m->dtype_len);
    }
    if (dt == TLM_DTYPE_UNKNOWN && ann) {
        size_t l, b, e;
        const char *it = arg_text(t, ann, TLM_ARG_INPUT_TYPE, &l);
        if (it && arr_get_text(it, l, 0, &b, &e))
            dt = typemeta_dtype(it + b, e - b);
    }
    if (dt == TLM_DTYPE_UNKNOWN)
        dt = kdt;
    r->dtype = (uint8_t)dt;
    return dt;
}

/* Element counts, group size and split texts. */
static void rec_sizes(const tlm_trace *t, const meta *m, const klink *lk,
                      tlm_coll_type ct, tlm_coll_record *r)
{
    r->in_nelems = m->in;
    r->out_nelems = m->out;
    int64_t gs = m->gsize > 0 ? m->gsize : lk->world;
    r->group_size = (gs > 0 && gs <= INT32_MAX) ? (int32_t)gs : -1;
    /* older traces: element count from "Input Dims" of the op, else of
     * the nccl:* annotation (the op may record empty dims) */
    for (int pass = 0; pass < 2 && r->in_nelems < 0; pass++) {
        const tlm_event *src = pass == 0 ? lk->rpc : lk->ann;
        size_t l, b, e;
        const char *dims = src ? arg_text(t, src, TLM_ARG_INPUT_DIMS, &l)
                               : NULL;
        if (!dims || !arr_get_text(dims, l, 0, &b, &e))
            continue;
        int64_t ne = dims_numel(dims + b, e - b);
        if (ne <= 0 || ne > TLM_COLL_NELEMS_MAX)
            continue;
        r->in_nelems = ne;
        if (ct == TLM_COLL_ALLREDUCE || ct == TLM_COLL_BROADCAST ||
            ct == TLM_COLL_REDUCE || ct == TLM_COLL_ALLTOALL)
            r->out_nelems = ne;
        else if (ct == TLM_COLL_ALLGATHER && r->group_size > 0)
            r->out_nelems = ne * r->group_size;
    }
    if (m->in_split)
        tlm_coll_strlcpy(r->in_split, sizeof r->in_split, m->in_split,
                         m->in_split_len);
    if (m->out_split)
        tlm_coll_strlcpy(r->out_split, sizeof r->out_split, m->out_split,
                         m->out_split_len);
}

/* A text from the trace into dst[cap]: at most len bytes, cut before an
 * incomplete UTF-8 sequence, control characters (and NUL) as '?', so
 * that a hostile name cannot break a table or a terminal. */
static void text_field(char *dst, size_t cap, const char *s, size_t len)
{
    size_t n = 0;
    if (cap == 0)
        return;
    if (!s)
        len = 0;
    if (len >= cap) {
        len = cap - 1;
        /* back up over continuation bytes to the lead byte, and drop the
         * character when it does not fit whole */
        size_t k = len;
        while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
            k--;
        len = k;
    }
    for (; n < len; n++) {
        unsigned char ch = (unsigned char)s[n];
        dst[n] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    dst[n] = '\0';
}

/* Process group name (synthesized into synth[cap] when the trace has
 * none), hash and description.  Returns the name, *pg_len its length. */
static const char *rec_pg_name(const meta *m, tlm_coll_record *r,
                               char *synth, size_t cap, size_t *pg_len)
{
    const char *pg = m->pg;
    *pg_len = m->pg_len;
    if (!pg || *pg_len == 0) {
        int n;
        if (r->group_size > 0)
            n = snprintf(synth, cap, "size%d", r->group_size);
        else
            n = snprintf(synth, cap, "unknown/stream%lld",
                         (long long)r->stream);
        pg = synth;
        *pg_len = n > 0 ? (size_t)n : 0;
        r->flags |= TLM_COLL_REC_PG_SYNTH;
    }
    tlm_coll_strlcpy(r->pg_name, sizeof r->pg_name, pg, *pg_len);
    r->pg_hash = tlm_hash64(pg, *pg_len);
    if (m->pg_desc)
        text_field(r->pg_desc, sizeof r->pg_desc, m->pg_desc,
                   m->pg_desc_len);
    return pg;
}

/* The description of the record's process group from
 * distributedInfo.pg_config when the kernel's args have none (traces that
 * name groups only in the header, [nccl_trace_schema]). */
static void rec_pg_desc(const tlm_trace *t, const tlm_trace_meta *md,
                        const char *pg, size_t pg_len, tlm_coll_record *r)
{
    const tlm_pg_config *pc;
    size_t l = 0;
    if (r->pg_desc[0] || (r->flags & TLM_COLL_REC_PG_SYNTH))
        return;
    pc = find_pg_config(t, md, pg, pg_len);
    if (!pc || !pc->pg_desc)
        return;
    const char *d = tlm_trace_str(t, pc->pg_desc, &l);
    text_field(r->pg_desc, sizeof r->pg_desc, d, l);
}

/* Position of rank in first, first + stride, ... (n terms), or -1. */
static int32_t ap_position(int64_t rank, int64_t first, int64_t stride,
                           int32_t n)
{
    if (stride > 0 && rank >= first && (rank - first) % stride == 0 &&
        (rank - first) / stride < n)
        return (int32_t)((rank - first) / stride);
    return -1;
}

/* PG ranks from the "Process Group Ranks" list text.  1 when the list
 * gave them. */
static int ranks_from_list(const meta *m, int32_t trace_rank,
                           tlm_coll_record *r)
{
    int_list L;
    memset(&L, 0, sizeof L);
    if (m->ranks && m->ranks_len) {
        tlm_coll_strlcpy(r->pg_ranks_text, sizeof r->pg_ranks_text,
                         m->ranks, m->ranks_len);
        r->pg_ranks_hash = tlm_hash64(m->ranks, m->ranks_len);
        parse_int_list(m->ranks, m->ranks_len, trace_rank, -1, &L);
    }
    if (!L.ok || L.n == 0)
        return 0;
    r->pg_rank_start = (int32_t)L.first;
    r->pg_rank_stride = (int32_t)L.stride;
    r->pg_ranks_n = (int32_t)L.n;
    r->local_rank = (int32_t)L.idx_of;
    if (L.truncated) {
        r->flags |= TLM_COLL_REC_RANKS_TRUNC;
        r->pg_ranks_n = r->group_size;
        if (r->local_rank < 0)
            r->local_rank = ap_position(trace_rank, L.first, L.stride,
                                        r->group_size);
    }
    return 1;
}

/* PG ranks from distributedInfo.pg_config (named PGs only).  1 when the
 * config gave them. */
static int ranks_from_config(const tlm_trace *t, const tlm_trace_meta *md,
                             const char *pg, size_t pg_len, int meta_src,
                             int32_t trace_rank, tlm_coll_record *r)
{
    const tlm_pg_config *pc =
        (!(r->flags & TLM_COLL_REC_PG_SYNTH))
            ? find_pg_config(t, md, pg, pg_len) : NULL;
    if (!pc || !pc->ranks || !pc->n_ranks)
        return 0;
    r->pg_ranks_n = (int32_t)pc->n_ranks;
    r->pg_rank_start = pc->ranks[0];
    int ap = 1;
    int64_t st = pc->n_ranks > 1 ? pc->ranks[1] - pc->ranks[0] : 1;
    for (size_t i = 0; i < pc->n_ranks; i++) {
        if (i && pc->ranks[i] - pc->ranks[i - 1] != st)
            ap = 0;
        if (pc->ranks[i] == trace_rank && r->local_rank < 0)
            r->local_rank = (int32_t)i;
    }
    r->pg_rank_stride = ap ? (int32_t)st : 0;
    char key[64];
    int n = snprintf(key, sizeof key, "pg_config:%s", r->pg_name);
    r->pg_ranks_hash = tlm_hash64(key, n > 0 ? (size_t)n : 0);
    if (meta_src == TLM_COLL_META_NONE)
        r->meta_src = TLM_COLL_META_DISTINFO;
    return 1;
}

/* PG ranks where neither list nor config gave them: the start / stride
 * args, else the world for a synthesized PG as large as the job. */
static void ranks_from_args(const tlm_trace_meta *md, const meta *m,
                            int32_t trace_rank, tlm_coll_record *r)
{
    if (m->grs >= 0 && r->group_size > 0) {
        int64_t st = m->grstride > 0 ? m->grstride : 1;
        r->pg_rank_start = (int32_t)m->grs;
        r->pg_rank_stride = (int32_t)st;
        r->pg_ranks_n = r->group_size;
        r->local_rank = ap_position(trace_rank, m->grs, st, r->group_size);
        char key[64];
        int n = snprintf(key, sizeof key, "ap:%lld:%lld:%d",
                         (long long)m->grs, (long long)st, r->group_size);
        r->pg_ranks_hash = tlm_hash64(key, n > 0 ? (size_t)n : 0);
    } else if ((r->flags & TLM_COLL_REC_PG_SYNTH) && md &&
               r->group_size > 0 && md->world_size == r->group_size) {
        /* a synthesized PG as large as the job is the world */
        r->pg_rank_start = 0;
        r->pg_rank_stride = 1;
        r->pg_ranks_n = r->group_size;
        r->local_rank = trace_rank < r->group_size ? trace_rank : -1;
        r->pg_ranks_hash = tlm_hash64("world", 5);
    }
}

/* PG ranks: the list text, else distributedInfo, else the args; then the
 * local rank from the "Rank" arg where still unknown. */
static void rec_pg_ranks(const tlm_trace *t, const tlm_trace_meta *md,
                         const meta *m, const char *pg, size_t pg_len,
                         int meta_src, int32_t trace_rank,
                         tlm_coll_record *r)
{
    r->local_rank = -1;
    r->pg_rank_start = -1;
    r->pg_rank_stride = -1;
    r->pg_ranks_n = -1;
    if (!ranks_from_list(m, trace_rank, r) &&
        !ranks_from_config(t, md, pg, pg_len, meta_src, trace_rank, r))
        ranks_from_args(md, m, trace_rank, r);
    if (r->local_rank < 0 && m->rank_local >= 0 && r->group_size > 0 &&
        m->rank_local < r->group_size)
        r->local_rank = (int32_t)m->rank_local;
}

/* Bytes moved: total, per direction and largest per peer; the peer of a
 * send / recv. */
static void rec_bytes(const meta *m, tlm_coll_type ct, int bpe,
                      tlm_coll_record *r)
{
    int64_t in_b = (r->in_nelems >= 0 && bpe) ? r->in_nelems * bpe : -1;
    int64_t out_b = (r->out_nelems >= 0 && bpe) ? r->out_nelems * bpe : -1;
    r->bytes = (ct == TLM_COLL_ALLGATHER || ct == TLM_COLL_GATHER) ? out_b
                                                                   : in_b;
    r->send_bytes = r->recv_bytes = -1;
    r->max_peer_send_bytes = r->max_peer_recv_bytes = -1;
    r->peer = -1;
    if (ct == TLM_COLL_SEND || ct == TLM_COLL_RECV) {
        if (ct == TLM_COLL_SEND) {
            r->send_bytes = in_b;
            r->max_peer_send_bytes = in_b;
            r->peer = (m->dst >= 0 && m->dst <= INT32_MAX) ? (int32_t)m->dst
                                                           : -1;
        } else {
            r->recv_bytes = in_b >= 0 ? in_b : out_b;
            r->max_peer_recv_bytes = r->recv_bytes;
            if (r->bytes < 0)
                r->bytes = out_b;
            r->peer = (m->src >= 0 && m->src <= INT32_MAX) ? (int32_t)m->src
                                                           : -1;
        }
        if (r->peer < 0)
            r->flags |= TLM_COLL_REC_NO_PEER;
    } else if (ct == TLM_COLL_ALLTOALL || ct == TLM_COLL_ALLTOALLV) {
        int trunc = 0;
        a2a_bytes(m->in_split, m->in_split_len, r->in_nelems, bpe,
                  r->group_size, r->local_rank, &r->send_bytes,
                  &r->max_peer_send_bytes, &trunc);
        a2a_bytes(m->out_split, m->out_split_len, r->out_nelems, bpe,
                  r->group_size, r->local_rank, &r->recv_bytes,
                  &r->max_peer_recv_bytes, &trunc);
        if (trunc)
            r->flags |= TLM_COLL_REC_SPLIT_TRUNC;
    }
}

/* Identity: match key, sequence number and its source, signature. */
static void rec_identity(const meta *m, tlm_coll_type ct, tlm_dtype dt,
                         int32_t trace_rank, tlm_coll_record *r)
{
    r->match_key = r->pg_hash;
    if ((r->flags & TLM_COLL_REC_PG_SYNTH) && r->pg_ranks_hash)
        r->match_key = tlm_coll_mix(r->pg_hash, r->pg_ranks_hash);
    /* Without a PG name, a p2p group and a collective group over the same
     * ranks (start, stride, size) look alike; p2p ops keep their own key
     * (harmless where both share one seq counter, needed where not). */
    if ((r->flags & TLM_COLL_REC_PG_SYNTH) &&
        (ct == TLM_COLL_SEND || ct == TLM_COLL_RECV))
        r->match_key = tlm_coll_mix(r->match_key ^ 0x7032u, 2);
    if ((ct == TLM_COLL_SEND || ct == TLM_COLL_RECV) && r->peer >= 0) {
        int64_t src = ct == TLM_COLL_SEND ? trace_rank : r->peer;
        int64_t dst = ct == TLM_COLL_SEND ? r->peer : trace_rank;
        r->match_key = tlm_coll_mix(tlm_coll_mix(r->match_key ^ 0x9292u,
                                                 (uint64_t)src),
                                    (uint64_t)dst);
        r->seq_src = TLM_COLL_SEQ_P2P;
        r->seq = -1;
        if (m->seq_src >= 0) { /* the trace's own, kept for the outputs */
            r->trace_seq = m->seq;
            r->flags |= TLM_COLL_REC_TRACE_SEQ;
        }
    } else if (m->seq_src >= 0) {
        r->seq_src = (uint8_t)m->seq_src;
        r->seq = m->seq;
    } else {
        r->seq_src = TLM_COLL_SEQ_ORDINAL;
        r->seq = -1;
    }
    r->sig = tlm_coll_signature(ct, dt, r->in_nelems, r->out_nelems);
}

/* The record of kernel k (event kidx) from its metadata m and link lk. */
static void fill_record(const tlm_trace *t, const tlm_trace_meta *md,
                        const tlm_event *k, uint64_t kidx, const klink *lk,
                        const meta *m, int32_t trace_rank, int64_t base,
                        tlm_coll_record *r)
{
    rec_kernel(t, k, kidx, lk, trace_rank, base, r);
    tlm_dtype kdt;
    tlm_coll_type ct = rec_type(t, k, m, lk->ann, r, &kdt);
    tlm_dtype dt = rec_dtype(t, m, lk->ann, kdt, r);
    rec_sizes(t, m, lk, ct, r);
    char synth[64];
    size_t pg_len;
    const char *pg = rec_pg_name(m, r, synth, sizeof synth, &pg_len);
    rec_pg_ranks(t, md, m, pg, pg_len, lk->meta_src, trace_rank, r);
    rec_pg_desc(t, md, pg, pg_len, r);
    rec_bytes(m, ct, tlm_dtype_size(dt), r);
    rec_identity(m, ct, dt, trace_rank, r);
}

/* Ordinals: for each (match_key) on this trace, the k-th first kernel of a
 * collective by (start, event index); later kernels of the same CPU op get
 * their head's seq and part = 1, 2, ... */
typedef struct ordkey {
    uint64_t key;
    int64_t link;
    size_t idx;
} ordkey;

static int cmp_ordkey(const void *a, const void *b)
{
    const ordkey *x = a, *y = b;
    int c = tlm_coll_cmp_u64(x->key, y->key);
    if (!c)
        c = tlm_coll_cmp_i64(x->link, y->link);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static tlm_status assign_parts_and_ordinals(tlm_coll_record *r, size_t n,
                                            const tlm_alloc *a,
                                            tlm_coll_extract_stats *st)
{
    /* records are in (start, event_index) order */
    ordkey *ok = tlm_coll_calloc(a, n ? n : 1, sizeof *ok);
    if (!ok)
        return TLM_ENOMEM;
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].link_id >= 0)
            ok[nk++] = (ordkey){0, r[i].link_id, i};
    qsort(ok, nk, sizeof *ok, cmp_ordkey);
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && ok[j].link == ok[i].link)
            j++;
        for (size_t q = 1; q < j - i; q++) /* its later parts */
            r[ok[i + q].idx].part = (int32_t)q;
        if (st)
            st->n_multi_part += j - i - 1;
        i = j;
    }
    /* ordinals over part-0 records, per match_key, in time order */
    nk = 0;
    for (size_t i = 0; i < n; i++)
        if ((r[i].seq_src == TLM_COLL_SEQ_ORDINAL ||
             r[i].seq_src == TLM_COLL_SEQ_P2P) &&
            r[i].part == 0)
            ok[nk++] = (ordkey){r[i].match_key, 0, i};
    qsort(ok, nk, sizeof *ok, cmp_ordkey);
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && ok[j].key == ok[i].key)
            j++;
        for (size_t q = i; q < j; q++)
            r[ok[q].idx].seq = (int64_t)(q - i);
        i = j;
    }
    /* parts inherit their head's seq (the head precedes them in time) */
    nk = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].link_id >= 0)
            ok[nk++] = (ordkey){0, r[i].link_id, i};
    qsort(ok, nk, sizeof *ok, cmp_ordkey);
    for (size_t i = 0; i < nk;) {
        int64_t seq = r[ok[i].idx].seq;
        size_t j = i + 1;
        for (; j < nk && ok[j].link == ok[i].link; j++)
            r[ok[j].idx].seq = seq;
        i = j;
    }
    tlm_coll_mfree(a, ok);
    return TLM_OK;
}

/* Lookup tables of pass 1: record_param_comms by External id, launches by
 * correlation, CPU spans per thread (each sorted for binary search). */
typedef struct link_index {
    kv *ext, *corr;
    span *sp;
    size_t n_ext, n_corr, n_sp;
    size_t cap_ext, cap_corr, cap_sp;
} link_index;

static void link_index_free(const tlm_alloc *a, link_index *ix)
{
    tlm_coll_mfree(a, ix->ext);
    tlm_coll_mfree(a, ix->corr);
    tlm_coll_mfree(a, ix->sp);
}

/* Appends (key, idx) to the table *v.  0, or -1 when out of memory. */
static int kv_add(const tlm_alloc *a, kv **v, size_t *n, size_t *cap,
                  int64_t key, size_t idx)
{
    if (!tlm_coll_grow(a, (void **)v, cap, *n + 1, sizeof **v))
        return -1;
    (*v)[(*n)++] = (kv){key, idx};
    return 0;
}

/* Appends the span of event e (index idx).  0, or -1 when out of memory. */
static int span_add(const tlm_alloc *a, link_index *ix, const tlm_event *e,
                    size_t idx, int kind)
{
    if (!tlm_coll_grow(a, (void **)&ix->sp, &ix->cap_sp, ix->n_sp + 1,
                       sizeof *ix->sp))
        return -1;
    ix->sp[ix->n_sp++] = (span){tlm_ev_pid(e), tlm_ev_tid(e), e->ts,
                                e->ts + tlm_ev_dur(e), idx,
                                kind};
    return 0;
}

/* Pass 1: the link tables of the trace's CPU side.  0, or -1 when out of
 * memory. */
static int index_links(const tlm_trace *trace, const tlm_event *ev,
                       size_t nev, const tlm_alloc *a,
                       tlm_coll_extract_stats *stats, link_index *ix)
{
    uint32_t rpc_name = tlm_trace_str_find(trace, "record_param_comms", 18);
    for (size_t i = 0; i < nev; i++) {
        const tlm_event *e = &ev[i];
        int has_span = e->has_tid && (e->flags & TLM_EV_HAS_DUR) &&
                       tlm_ev_dur(e) >= 0;
        if (e->cat == TLM_CAT_CPU_OP && rpc_name && e->name == rpc_name) {
            if (rpc_is_wait(trace, e)) {
                if (stats)
                    stats->n_wait_skipped++;
                continue;
            }
            int64_t x;
            if (tlm_event_arg_int(trace, e, TLM_ARG_EXTERNAL_ID, &x) &&
                kv_add(a, &ix->ext, &ix->n_ext, &ix->cap_ext, x, i))
                return -1;
            if (has_span && span_add(a, ix, e, i, 0))
                return -1;
        } else if (e->cat == TLM_CAT_USER_ANNOTATION && has_span) {
            size_t l;
            const char *nm = tlm_trace_str(trace, e->name, &l);
            if (l > 5 && memcmp(nm, "nccl:", 5) == 0 &&
                span_add(a, ix, e, i, 1))
                return -1;
        } else if (e->cat == TLM_CAT_CUDA_RUNTIME ||
                   e->cat == TLM_CAT_CUDA_DRIVER) {
            int64_t c;
            if (e->ph == 'X' &&
                tlm_event_arg_int(trace, e, TLM_ARG_CORRELATION, &c) &&
                kv_add(a, &ix->corr, &ix->n_corr, &ix->cap_corr, c, i))
                return -1;
        }
    }
    if (ix->n_ext)
        qsort(ix->ext, ix->n_ext, sizeof *ix->ext, cmp_kv);
    if (ix->n_corr)
        qsort(ix->corr, ix->n_corr, sizeof *ix->corr, cmp_kv);
    if (ix->n_sp)
        qsort(ix->sp, ix->n_sp, sizeof *ix->sp, cmp_span);
    return 0;
}

/* An NCCL / RCCL kernel or custom all-reduce (by name). */
static int is_coll_kernel(const tlm_trace *trace, const tlm_event *k)
{
    if (k->cat != TLM_CAT_KERNEL || !tlm_event_is_gpu(k))
        return 0; /* without a valid time: left out, as by the tree */
    size_t l;
    const char *nm = tlm_trace_str(trace, k->name, &l);
    return name_has_ci(nm, l, "nccl") || name_has_ci(nm, l, "rccl") ||
           name_has_ci(nm, l, "cross_device_reduce");
}

static void set_rpc(klink *lk, const tlm_event *ev, uint64_t idx, int via)
{
    lk->rpc = &ev[idx];
    lk->rpc_idx = idx;
    lk->via = via;
}

/* The record_param_comms op of kernel k (by External id where that differs
 * from the correlation, else through the launch: the enclosing op span,
 * else the launch's External id) and the nccl:* annotation around the
 * launch. */
static void find_links(const tlm_trace *trace, const tlm_event *ev,
                       const link_index *ix, const tlm_event *k, klink *lk)
{
    int64_t kext = -1, kcorr = -1;
    int has_ext = tlm_event_arg_int(trace, k, TLM_ARG_EXTERNAL_ID, &kext);
    int has_corr = tlm_event_arg_int(trace, k, TLM_ARG_CORRELATION, &kcorr);
    if (has_ext && (!has_corr || kext != kcorr)) {
        const kv *f = kv_find(ix->ext, ix->n_ext, kext);
        if (f)
            set_rpc(lk, ev, f->idx, TLM_COLL_META_EXTID);
    }
    const kv *f = has_corr ? kv_find(ix->corr, ix->n_corr, kcorr) : NULL;
    if (!f)
        return;
    const tlm_event *ln = &ev[f->idx];
    if (!lk->rpc) {
        const span *s = span_find(ix->sp, ix->n_sp, tlm_ev_pid(ln),
                                  tlm_ev_tid(ln),
                                  ln->ts, 0);
        int64_t lx;
        const kv *g = NULL;
        if (s)
            set_rpc(lk, ev, s->idx, TLM_COLL_META_LAUNCH);
        else if (tlm_event_arg_int(trace, ln, TLM_ARG_EXTERNAL_ID, &lx))
            g = kv_find(ix->ext, ix->n_ext, lx);
        if (g)
            set_rpc(lk, ev, g->idx, TLM_COLL_META_EXTID);
    }
    const span *s2 = span_find(ix->sp, ix->n_sp, tlm_ev_pid(ln),
                               tlm_ev_tid(ln), ln->ts,
                               1);
    if (s2)
        lk->ann = &ev[s2->idx];
}

/* Metadata of kernel k: its own args, then those of its linked op (the
 * link is the metadata source where the kernel had none, whether or not
 * the op added fields). */
static void kernel_meta(const tlm_trace *trace, const tlm_event *ev,
                        const link_index *ix, const tlm_event *k, meta *m,
                        klink *lk)
{
    memset(lk, 0, sizeof *lk);
    lk->via = TLM_COLL_META_NONE;
    lk->world = -1;
    meta_init(m);
    lk->kmeta = meta_fill_named(trace, k, m);
    lk->kpg = m->pg != NULL && m->pg != m->pg_id_buf &&
              tlm_event_arg_str(trace, k, TLM_ARG_PG_NAME, NULL);
    lk->meta_src = (m->cname || lk->kmeta) ? TLM_COLL_META_KERNEL
                                           : TLM_COLL_META_NONE;
    find_links(trace, ev, ix, k, lk);
    if (lk->rpc) {
        meta_fill_named(trace, lk->rpc, m);
        meta_fill_concrete(trace, lk->rpc, m, &lk->world);
        if (lk->meta_src == TLM_COLL_META_NONE)
            lk->meta_src = lk->via;
    } else if (lk->ann && lk->meta_src == TLM_COLL_META_NONE) {
        lk->meta_src = TLM_COLL_META_LAUNCH;
    }
}

/* Adds one to the counter slot[v], or to dflt where v has none. */
static void count_in(uint64_t *const *slot, size_t n, unsigned v,
                     uint64_t *dflt)
{
    uint64_t *p = v < n ? slot[v] : NULL;
    (*(p ? p : dflt))++;
}

/* Counts one extracted kernel and its metadata source. */
static void count_meta_src(tlm_coll_extract_stats *stats,
                           const tlm_coll_record *r)
{
    uint64_t *const slot[] = {
        [TLM_COLL_META_KERNEL] = &stats->n_meta_kernel,
        [TLM_COLL_META_EXTID] = &stats->n_meta_extid,
        [TLM_COLL_META_LAUNCH] = &stats->n_meta_launch,
    };
    stats->n_kernels++;
    count_in(slot, sizeof slot / sizeof *slot, r->meta_src,
             &stats->n_meta_none);
}

/* Counts the sources of the records' sequence numbers. */
static void count_seq_src(tlm_coll_extract_stats *stats,
                          const tlm_coll_record *r, size_t n)
{
    uint64_t *const slot[] = {
        [TLM_COLL_SEQ_TRACE] = &stats->n_seq_trace,
        [TLM_COLL_SEQ_CONCRETE] = &stats->n_seq_concrete,
        [TLM_COLL_SEQ_P2P] = &stats->n_p2p,
    };
    for (size_t i = 0; i < n; i++)
        count_in(slot, sizeof slot / sizeof *slot, r[i].seq_src,
                 &stats->n_seq_ordinal);
}

tlm_status tlm_coll_extract(const tlm_trace *trace,
                            const tlm_coll_extract_opts *opts,
                            tlm_coll_record **out, size_t *n_out,
                            tlm_coll_extract_stats *stats, tlm_error *err)
{
    if (out)
        *out = NULL;
    if (n_out)
        *n_out = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (!trace || !out || !n_out)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_coll_extract: NULL argument");
    const tlm_alloc *a = opts ? opts->alloc : NULL;
    size_t nev = 0;
    const tlm_event *ev = tlm_trace_events(trace, &nev);
    const tlm_trace_meta *md = tlm_trace_meta_get(trace);
    const char *path = tlm_trace_path(trace);
    if (!ev || nev == 0)
        return TLM_OK;
    int32_t trace_rank = 0;
    if (opts && opts->trace_rank >= 0)
        trace_rank = opts->trace_rank;
    else if (md && md->rank >= 0 && md->rank <= INT32_MAX)
        trace_rank = (int32_t)md->rank;
    int64_t base = (md && md->has_base_time) ? md->base_time_ns : 0;

    link_index ix;
    memset(&ix, 0, sizeof ix);
    tlm_coll_record *recs = NULL;
    size_t n_rec = 0, cap_rec = 0;
    if (index_links(trace, ev, nev, a, stats, &ix))
        goto nomem;
    /* pass 2: kernels */
    for (size_t i = 0; i < nev; i++) {
        const tlm_event *k = &ev[i];
        if (!is_coll_kernel(trace, k))
            continue;
        meta m;
        klink lk;
        kernel_meta(trace, ev, &ix, k, &m, &lk);
        if (!tlm_coll_grow(a, (void **)&recs, &cap_rec, n_rec + 1,
                           sizeof *recs))
            goto nomem;
        fill_record(trace, md, k, i, &lk, &m, trace_rank, base,
                    &recs[n_rec]);
        if (stats)
            count_meta_src(stats, &recs[n_rec]);
        n_rec++;
    }
    if (n_rec) {
        qsort(recs, n_rec, sizeof *recs, cmp_rec_time);
        if (assign_parts_and_ordinals(recs, n_rec, a, stats) != TLM_OK)
            goto nomem;
    }
    if (stats)
        count_seq_src(stats, recs, n_rec);
    link_index_free(a, &ix);
    if (n_rec == 0) {
        tlm_coll_mfree(a, recs);
        recs = NULL;
    }
    *out = recs;
    *n_out = n_rec;
    return TLM_OK;
nomem:
    link_index_free(a, &ix);
    tlm_coll_mfree(a, recs);
    if (stats)
        memset(stats, 0, sizeof *stats);
    return tlm_error_set(err, TLM_ENOMEM, path, -1,
                         "out of memory while extracting collectives");
}

/* MARK: - keys and order */

uint64_t tlm_coll_record_owner_key(const tlm_coll_record *rec)
{
    if (!rec)
        return 0;
    if (rec->seq_src == TLM_COLL_SEQ_TRACE ||
        rec->seq_src == TLM_COLL_SEQ_CONCRETE ||
        ((rec->flags & TLM_COLL_REC_ALIGNED) &&
         !(rec->flags & TLM_COLL_REC_UNALIGNED)))
        return tlm_coll_mix(rec->match_key, (uint64_t)rec->seq);
    return tlm_coll_mix(rec->match_key, UINT64_MAX);
}

uint64_t tlm_coll_record_tl_owner_key(const tlm_coll_record *rec,
                                      int simplified)
{
    if (!rec)
        return 0;
    if (simplified)
        return tlm_hash64("all", 3);
    if (rec->flags & TLM_COLL_REC_KPG)
        return tlm_hash64(rec->pg_name, strlen(rec->pg_name));
    return tlm_hash64("Unknown_Group", 13);
}
