/*
 * report_internal.h - helpers shared by the tree, timeline, table and
 * writer modules (tree.c, timeline.c, ops.c, kernels.c, csv.c,
 * report_md.c).  Not part of the public API.
 *
 * - tlm_i3map: open-addressing hash map from a triple of int64 keys to an
 *   int32 value (threads, flow ids, correlation ids).
 * - tlm_tab: the in-memory table every report sheet is built into; csv.c
 *   writes it the way pandas' to_csv(index=False) does.
 * - Python repr helpers: floats (shortest round trip), JSON text to Python
 *   tuple/list repr, quoted strings.
 * - tlm_sbuf: a growable string buffer.
 * Includes mem_internal.h (page tables populated ahead of large arrays).
 */
#ifndef TLM_REPORT_INTERNAL_H
#define TLM_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_trace.h"

#include "mem_internal.h"

/* ------------------------------------------------------------ time */

/* Microseconds as TraceLens sees them: the correctly rounded double of the
 * decimal value (exact for <= 3 fractional digits, see docs). */
static inline double tlm_ns_to_us(int64_t ns)
{
    return (double)ns / 1000.0;
}

static inline double tlm_ev_ts_us(const tlm_event *e)
{
    return tlm_ns_to_us(e->ts);
}

/* t_end = ts + dur computed once, in double, as TraceLens does. */
static inline double tlm_ev_end_us(const tlm_event *e)
{
    return tlm_ns_to_us(e->ts) + tlm_ns_to_us(e->dur);
}

/* Starts loading an event a loop will read a few iterations later (the
 * loops over UID lists are latency-bound: one cache miss per event). */
#if defined(__GNUC__) || defined(__clang__)
#define TLM_PREFETCH(p) __builtin_prefetch(p)
#else
#define TLM_PREFETCH(p) ((void)(p))
#endif
#define TLM_PREFETCH_AHEAD 8

/* kernel / gpu_memset / gpu_memcpy (inline twin of tlm_event_is_gpu). */
/* tlm_event_is_gpu(), inline for the table builders' loops. */
static inline int tlm_ev_gpu(const tlm_event *e)
{
    const unsigned both = TLM_EV_HAS_TS | TLM_EV_HAS_DUR;
    return (e->cat == TLM_CAT_KERNEL || e->cat == TLM_CAT_GPU_MEMSET ||
            e->cat == TLM_CAT_GPU_MEMCPY) &&
           (e->flags & both) == both && e->dur >= 0;
}

/* ------------------------------------------------------------ string buf */

typedef struct tlm_sbuf {
    char *p;
    size_t len;
    size_t cap;
    int oom; /* sticky: an append failed */
} tlm_sbuf;

void tlm_sbuf_init(tlm_sbuf *b);
void tlm_sbuf_free(tlm_sbuf *b);
void tlm_sbuf_reset(tlm_sbuf *b);
void tlm_sbuf_putn(tlm_sbuf *b, const char *s, size_t n);
void tlm_sbuf_puts(tlm_sbuf *b, const char *s);
void tlm_sbuf_putc(tlm_sbuf *b, char c);
void tlm_sbuf_printf(tlm_sbuf *b, const char *fmt, ...) TLM_PRINTF(2, 3);

/* Python repr of a double: shortest round-trip digits, "nan", "inf". */
void tlm_sbuf_pyfloat(tlm_sbuf *b, double v);
/* Python repr of a str (quotes chosen as Python does). */
void tlm_sbuf_pystr(tlm_sbuf *b, const char *s, size_t n);
/* Python repr of compact JSON text: arrays as tuples (as_tuple) or lists,
 * strings quoted, numbers as written, true/false/null as True/False/None.
 * Returns 0 on success, -1 when the text is not JSON this supports. */
int tlm_sbuf_json_pyrepr(tlm_sbuf *b, const char *json, size_t n,
                         int as_tuple);

/* ------------------------------------------------------------ int map */

typedef struct tlm_i3map {
    int64_t *keys; /* 3 per slot */
    int32_t *vals; /* -1 = empty slot */
    size_t cap;    /* power of two */
    size_t count;
} tlm_i3map;

tlm_status tlm_i3map_init(tlm_i3map *m, size_t expect);
void tlm_i3map_free(tlm_i3map *m);
/* Sets (overwrites) the value for the key. */
tlm_status tlm_i3map_put(tlm_i3map *m, int64_t a, int64_t b, int64_t c,
                         int32_t v);
/* Value for the key, or -1. */
int32_t tlm_i3map_get(const tlm_i3map *m, int64_t a, int64_t b, int64_t c);

/* ------------------------------------------------------------ tables */

typedef enum tlm_coltype {
    TLM_COL_F64 = 0, /* double; NaN prints as empty */
    TLM_COL_I64 = 1, /* int64 */
    TLM_COL_STR = 2, /* text cell, NULL prints as empty */
    TLM_COL_BOOL = 3 /* True / False */
} tlm_coltype;

typedef struct tlm_cell {
    union {
        double f;
        int64_t i;
        const char *s; /* owned by the table's text arena */
    } v;
    uint8_t null;
} tlm_cell;

typedef struct tlm_tab_text tlm_tab_text;

typedef struct tlm_tab {
    char name[64];
    size_t ncols;
    char **colnames;
    tlm_coltype *coltypes;
    size_t nrows;
    size_t cap_rows;
    tlm_cell *cells; /* row-major, nrows * ncols */
    tlm_tab_text *text;
    int oom;
} tlm_tab;

/* New empty table.  Column names are copied.  NULL on ENOMEM. */
tlm_tab *tlm_tab_new(const char *name, size_t ncols,
                     const char *const *colnames, const tlm_coltype *types);
void tlm_tab_free(tlm_tab *t);
/* Appends a row of null cells and returns its index, or -1 on ENOMEM. */
long tlm_tab_add_row(tlm_tab *t);
void tlm_tab_set_f(tlm_tab *t, size_t row, size_t col, double v);
void tlm_tab_set_i(tlm_tab *t, size_t row, size_t col, int64_t v);
void tlm_tab_set_b(tlm_tab *t, size_t row, size_t col, int v);
/* Copies n bytes of text into the table. */
void tlm_tab_set_s(tlm_tab *t, size_t row, size_t col, const char *s,
                   size_t n);
void tlm_tab_set_null(tlm_tab *t, size_t row, size_t col);
tlm_cell *tlm_tab_cell(const tlm_tab *t, size_t row, size_t col);
/* Index of a column by name or -1. */
long tlm_tab_col(const tlm_tab *t, const char *name);
/* Reorders rows: new row i = old row perm[i]. */
tlm_status tlm_tab_permute(tlm_tab *t, const size_t *perm);
/* Truncates to n rows (n <= nrows). */
void tlm_tab_truncate(tlm_tab *t, size_t n);

/* Writes the table as pandas' to_csv(index=False) would. */
tlm_status tlm_tab_write_csv(const tlm_tab *t, const char *path,
                             tlm_error *err);
/* Same, into a buffer (used by tests). */
void tlm_tab_csv_sbuf(const tlm_tab *t, tlm_sbuf *b);

/* ------------------------------------------------------------ numpy */

/* numpy's pairwise summation (np.sum of a float64 array). */
double tlm_np_sum(const double *a, size_t n);
/* Population std (np.std, ddof=0) with numpy's algorithm. */
double tlm_np_std(const double *a, size_t n, double mean);
/* np.median; sorts a in place. */
double tlm_np_median(double *a, size_t n);
/* Sample std (ddof=1), NaN for n < 2 (pandas). */
double tlm_sample_std(const double *a, size_t n);
/* pandas' groupby sum (Kahan-compensated, row order). */
double tlm_pd_sum(const double *a, size_t n);
/* pandas' groupby std: Welford's running variance, ddof=1, NaN for n < 2. */
double tlm_pd_std(const double *a, size_t n);

/* Summary statistics over the non-NaN values of v (v is compacted and
 * sorted in place); all NaN when there are none. */
typedef struct tlm_stats {
    double mean, median, std, min, max, sum;
    size_t count;
} tlm_stats;
void tlm_stats_of(double *v, size_t n, tlm_stats *s);
/* Kahan accumulator as pandas' group_sum keeps one per group. */
typedef struct tlm_kahan {
    double sum, comp;
} tlm_kahan;
static inline void tlm_kahan_add(tlm_kahan *k, double v)
{
    double y = v - k->comp;
    double t = k->sum + y;
    k->comp = t - k->sum - y;
    k->sum = t;
}
/* Python/numpy round(x, 2) == rint(x*100)/100. */
double tlm_np_round2(double x);

/* (key, value) pairs ordered by key then value: a total order when the
 * values are distinct (UIDs). */
typedef struct tlm_pair {
    int64_t key;
    int64_t val;
} tlm_pair;
static inline int tlm_pair_le(const tlm_pair *a, const tlm_pair *b)
{
    return a->key != b->key ? a->key < b->key : a->val <= b->val;
}
/* Merge sort of pairs by (key, val) over the input's natural runs (fast
 * for a few sorted runs).  Errors: TLM_ENOMEM. */
tlm_status tlm_sort_pairs(tlm_pair *a, size_t n);

/* Stable sort of size_t indices by a comparison callback. */
typedef int (*tlm_idx_cmp)(const void *ctx, size_t a, size_t b);
tlm_status tlm_sort_idx(size_t *idx, size_t n, tlm_idx_cmp cmp,
                        const void *ctx);

/* tlm_idx_cmp over the rows of a table: by the double column kc
 * descending, then by the integer (UID) column uc ascending. */
typedef struct tlm_sum_uid_key {
    const tlm_tab *t;
    size_t kc, uc;
} tlm_sum_uid_key;
int tlm_cmp_sum_uid(const void *key, size_t a, size_t b);

/* ------------------------------------------------------------ report */

#include "tlmpi/tlm_perf.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_tree.h"

/* ------------------------------------------------------------ tree */

/* One node of the call tree, indexed by UID: everything a walk reads in
 * one 24-byte record (one cache line per node visited, not six arrays). */
typedef struct tlm_tnode {
    int32_t parent, first_child, next_sibling; /* -1 = none */
    int32_t gpu_lo, gpu_hi; /* slice of gpu_order for the subtree */
    uint8_t flags;          /* TLM_NODE_* */
    uint8_t cat;            /* the event's tlm_cat */
    uint16_t pad_;
} tlm_tnode;

struct tlm_uidmap;

struct tlm_tree {
    const tlm_trace *trace;
    const tlm_event *ev;
    size_t n;
    tlm_tnode *nd;
    struct tlm_uidmap *fwd; /* bwd node -> fwd op; NULL without sequence
                               numbers */
    struct tlm_uidmap *bwd; /* fwd op -> bwd node */
    int32_t *gpu_order;
    size_t n_gpu_order;
    double *gpu_se;        /* (start, end) us of each gpu_order entry */
    int32_t *roots;
    size_t n_roots;
    tlm_tree_stats stats;
    double *scratch; /* busy-time pairs */
    size_t scratch_cap;
};

/* tlm_tree_busy_us with the caller's scratch (*scratch, *cap grown with
 * realloc as needed), so that threads can share a finished tree. */
tlm_status tlm_tree_busy_us_buf(const tlm_tree *t, const int32_t *uids,
                                size_t n, double *out, double **scratch,
                                size_t *cap);

/* Inline twins of the tlm_tree_* accessors for the report modules. */
static inline const tlm_tnode *tlm_nd(const tlm_tree *t, int32_t u)
{
    return &t->nd[u];
}
static inline const int32_t *tlm_nd_gpu(const tlm_tree *t, int32_t u,
                                        size_t *n)
{
    *n = (size_t)(t->nd[u].gpu_hi - t->nd[u].gpu_lo);
    return t->gpu_order + t->nd[u].gpu_lo;
}

/* One kernel launcher (§4.1): the op whose direct kernels it owns. */
typedef struct tlm_launcher {
    int32_t uid;
    uint32_t k0, nk;      /* slice of rctx.lk_kernels, kernels by ts */
    double direct_us;     /* busy(direct kernels) */
    double subtree_us;    /* busy(all GPU events of the subtree) */
    const char *category; /* static (tlm_op_category) */
} tlm_launcher;

/* Everything the table builders share while a report is built. */
typedef struct tlm_rctx {
    tlm_tree *tree;
    const tlm_trace *trace;
    const tlm_event *ev;
    size_t n;
    tlm_report_opts opts;
    tlm_gpu_timeline tl;
    int has_timeline;
    tlm_gpu_arch arch;
    int has_arch;
    tlm_launcher *lk;
    size_t nlk;
    int32_t *lk_kernels;
    int32_t *lk_of;       /* per UID: launcher index or -1 */
    tlm_i3map meta;       /* (pid, tid, field) -> M event UID */
    int32_t *gpu;         /* UIDs of GPU events, UID order */
    uint8_t *gpu_fl;      /* per gpu[] entry: TLM_GPU_KERNEL, _COMM */
    size_t ngpu;
    int has_cpu_ops;
    int32_t max_uid;      /* next synthetic UID - 1 */
    tlm_tab **tabs;
    size_t ntabs, cap_tabs;
    tlm_sbuf s1, s2;      /* scratch */
    uint8_t *comm_cache;  /* per name id: 0 unknown, 1 no, 2 comm */
    uint8_t *model_cache; /* per name id: 0 unknown, 1 no, 2 perf model */
    int meta_last_ok;     /* tlm_rctx_meta_ids: last (pid, tid) */
    int64_t meta_last_pid, meta_last_tid;
    int64_t meta_last[3];
    uint32_t n_names;
    tlm_i3map *cat_cache; /* (name id, first kernel name id) -> cat index */
    const char **cats;    /* distinct category strings seen */
    size_t ncats, cap_cats;
    tlm_i3map *perf_cache; /* perf-model inputs -> index in perf_res */
    tlm_perf_result *perf_res;
    tlm_status *perf_st;
    int64_t (*perf_ids)[6]; /* the exact inputs of each entry (the map
                             * key is a hash of them): name id, the
                             * tlm_argv_id of Input Dims, Input type,
                             * Input Strides, Concrete Inputs, and a hash
                             * of the kernel names */
    size_t nperf, cap_perf;
    double *busy;          /* tlm_rctx_busy_us scratch */
    size_t busy_cap;
    /* set while another thread is still finding the launchers (lk,
     * lk_kernels, lk_of, nlk): waits until they are known and fills them
     * in; anything reading them (tlm_rctx_op_category) calls this first */
    tlm_status (*launchers_wait)(struct tlm_rctx *ctx);
    void *launchers_ud;
} tlm_rctx;

/* Busy time (us) of the union of GPU events uids[0..n) (tlm_tree_busy_us,
 * with this context's scratch). */
static inline tlm_status tlm_rctx_busy_us(tlm_rctx *ctx, const int32_t *uids,
                                          size_t n, double *out)
{
    return tlm_tree_busy_us_buf(ctx->tree, uids, n, out, &ctx->busy,
                                &ctx->busy_cap);
}

struct tlm_report {
    tlm_tab **tabs;
    size_t ntabs;
    tlm_gpu_timeline tl;
    tlm_tree_stats stats;
    int has_arch;
    tlm_gpu_arch arch;
    char label[256];
    size_t n_gpu_total;
    size_t n_gpu_linked;
};

/* ctx->gpu_fl bits: cat kernel; tlm_rctx_is_comm. */
enum { TLM_GPU_KERNEL = 1, TLM_GPU_COMM = 2 };

/* Appends t to ctx->tabs (takes ownership; frees t on failure). */
tlm_status tlm_rctx_add_tab(tlm_rctx *ctx, tlm_tab *t);

/* Metadata strings ("Unknown" when absent). */
const char *tlm_rctx_process_name(const tlm_rctx *ctx, const tlm_event *e);
const char *tlm_rctx_process_label(const tlm_rctx *ctx, const tlm_event *e);
const char *tlm_rctx_thread_name(const tlm_rctx *ctx, const tlm_event *e);

/* Event name / category of op u as TraceLens's categorize_torch_op. */
const char *tlm_rctx_name(const tlm_rctx *ctx, int32_t u);
const char *tlm_rctx_op_category(const tlm_rctx *ctx, int32_t u);
/* Small integer ids for grouping keys: the category string's index among
 * those seen (content-compared), the interned id of a metadata string
 * (0 = "Unknown"), and of an argument (0 = absent; integers map to
 * negative ids). */
int64_t tlm_rctx_cat_index(const tlm_rctx *ctx, const char *cat);
int64_t tlm_rctx_meta_id(const tlm_rctx *ctx, const tlm_event *e, int field);
int64_t tlm_rctx_arg_id(const tlm_rctx *ctx, const tlm_event *e,
                        tlm_arg key);
/* tlm_rctx_meta_id of fields 1..3 (process name, labels, thread name). */
void tlm_rctx_meta_ids(const tlm_rctx *ctx, const tlm_event *e,
                       int64_t ids[3]);
/* tlm_perf_has_model of op u's name, cached per name id. */
int tlm_rctx_has_model(const tlm_rctx *ctx, int32_t u);
/* Several arguments of e in one scan of its argument list: vals[i] gets
 * keys[i] as tlm_event_arg would (type TLM_ARGV_NONE when absent, the
 * last occurrence wins).  n <= 32. */
void tlm_rctx_args(const tlm_rctx *ctx, const tlm_event *e,
                   const tlm_arg *keys, size_t n, tlm_argv *vals);
/* The id tlm_rctx_arg_id gives for an argument value. */
static inline int64_t tlm_argv_id(const tlm_argv *v)
{
    if (v->type == TLM_ARGV_STR)
        return (int64_t)v->str + 1;
    if (v->type == TLM_ARGV_INT)
        return -(int64_t)(v->i & 0x3fffffffffffll) - 2;
    return 0;
}
/* Appends the 8 bytes of v to a binary grouping key. */
static inline void tlm_key_id(tlm_sbuf *b, int64_t v)
{
    if (!b->oom && b->len + sizeof v + 1 <= b->cap) {
        /* fast path, same bytes as tlm_sbuf_putn */
        memcpy(b->p + b->len, &v, sizeof v);
        b->len += sizeof v;
        b->p[b->len] = '\0';
        return;
    }
    tlm_sbuf_putn(b, (const char *)&v, sizeof v);
}
/* Two independent 64-bit hashes of a binary key (8-byte words). */
static inline void tlm_key_hash(const tlm_sbuf *b, int64_t out[3])
{
    uint64_t h1 = 0x9E3779B97F4A7C15ull, h2 = 0xC2B2AE3D27D4EB4Full;
    size_t n = b->len / 8;
    for (size_t i = 0; i < n; i++) {
        uint64_t w;
        memcpy(&w, b->p + 8 * i, 8);
        h1 = (h1 ^ w) * 0x100000001B3ull;
        h1 ^= h1 >> 29;
        h2 = (h2 + w) * 0xFF51AFD7ED558CCDull;
        h2 ^= h2 >> 32;
    }
    for (size_t i = 8 * n; i < b->len; i++) {
        h1 = (h1 ^ (unsigned char)b->p[i]) * 0x100000001B3ull;
        h2 = (h2 + (unsigned char)b->p[i]) * 0xFF51AFD7ED558CCDull;
    }
    out[0] = (int64_t)(h1 ^ (h1 >> 31));
    out[1] = (int64_t)(h2 ^ (h2 >> 29));
    out[2] = (int64_t)b->len;
}
/* tlm_kernel_is_communication of the event's name, cached per name id. */
int tlm_rctx_is_comm(const tlm_rctx *ctx, int32_t u);

/* Sets cell (row, col) to the Python repr of the event's arg as a tuple
 * (as_tuple) or list; null when absent.  Also returns the text through
 * key (NULL allowed): "None" when absent. */
void tlm_rctx_set_arg(tlm_rctx *ctx, tlm_tab *t, size_t row, size_t col,
                      const tlm_event *e, tlm_arg key, int as_tuple);

/* kernel_details summary (§4.5) over rows: row r's kernels are
 * pool[off[r] .. off[r]+len[r]).  Writes the Python repr into summary
 * and the truncated form into trunc (empty when there is none). */
void tlm_kd_summary(tlm_rctx *ctx, const int32_t *pool, const size_t *off,
                    const size_t *len, size_t nrows, tlm_sbuf *summary,
                    tlm_sbuf *trunc);

/* Renders report.md into the file tmp (messages name path; tmp is removed
 * on failure). */
tlm_status tlm_report_md_to(const tlm_report *r, const char *path,
                            const char *tmp, tlm_error *err);

/* Puts the summary tlm_kd_summary() left in ctx->s1 / ctx->s2 into columns
 * col and col + 1 of row R (an out-of-memory there marks the table). */
void tlm_kd_set(tlm_rctx *ctx, tlm_tab *t, size_t R, size_t col);

/* Helpers of the perf sheets and unified_perf_summary (sheets.c). */
/* Columns col .. col + 2 of row R: process_name, process_label and
 * thread_name of event e. */
void tlm_rctx_set_proc(tlm_rctx *ctx, tlm_tab *t, size_t R, size_t col,
                       const tlm_event *e);
/* The rows of one group: the first non-NaN metrics ("_first" columns)
 * and, four per row in mv, TB/s, TFLOPS/s, Pct Roofline, kernel time. */
typedef struct tlm_grp_metrics {
    double gflops, data_moved_mb, flops_per_byte, roofline_time_us;
    const char *bound; /* first roofline bound; NULL while none */
    double *mv;
    size_t k; /* rows added */
} tlm_grp_metrics;
void tlm_grp_metrics_init(tlm_grp_metrics *g, double *mv);
void tlm_grp_metrics_add(tlm_grp_metrics *g, const tlm_perf_metrics *m,
                         double kernel_us);
/* Statistics of the group's metric `which` (0..3, as in mv); v is
 * scratch for g->k values. */
void tlm_grp_metrics_stats(const tlm_grp_metrics *g, size_t which,
                           double *v, tlm_stats *s);
/* Group of the key hashed from key in map; a new group *ng (then *ng is
 * incremented and *is_new set) when the key is new.  -1 when out of
 * memory. */
int32_t tlm_group_of(tlm_i3map *map, const tlm_sbuf *key, size_t *ng,
                     int *is_new);
/* Sorts the rows of t by the double column kc descending, then by the
 * UID column uc.  Errors: TLM_ENOMEM. */
tlm_status tlm_tab_sort_sum_uid(tlm_tab *t, size_t kc, size_t uc);
/* Ends a table builder: adds t to ctx, or frees it when st is an error
 * or t has no rows.  Returns st, or tlm_rctx_add_tab's status. */
tlm_status tlm_rctx_keep_tab(tlm_rctx *ctx, tlm_tab *t, tlm_status st);

/* tlm_perf_compute of op u (pass bwd) with the kernels k[0..nk) (their
 * names feed the model), memoised on the interned ids of the inputs.
 * *out points into the cache (valid until ctx is freed).  Returns the
 * model's status; TLM_ENOMEM when the cache cannot grow. */
tlm_status tlm_rctx_perf(tlm_rctx *ctx, int32_t u, int bwd, const int32_t *k,
                         size_t nk, const tlm_perf_result **out);

/* Table builders (each adds its tables to ctx). */
tlm_status tlm_rctx_timeline(tlm_rctx *ctx, tlm_error *err);
tlm_status tlm_rctx_launchers(tlm_rctx *ctx);
tlm_status tlm_rctx_ops_tables(tlm_rctx *ctx);
tlm_status tlm_rctx_perf_sheets(tlm_rctx *ctx);
tlm_status tlm_rctx_unified(tlm_rctx *ctx);
tlm_status tlm_rctx_kernel_tables(tlm_rctx *ctx);
tlm_status tlm_rctx_coll_analysis(tlm_rctx *ctx);

#endif /* TLM_REPORT_INTERNAL_H */
