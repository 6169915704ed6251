/*
 * report_internal.h - what the report modules share (report.c,
 * timeline.c, ops.c, kernels.c, sheets.c, unified.c, builders.c,
 * report_md.c); not part of the public API.
 *
 * - tlm_tab (the table layer's, tlm_table.h): the in-memory table every
 *   report sheet is built into; here only the report's own helpers on it.
 * - tlm_rctx: the context the table builders share while a report is
 *   built, and its memoised lookups (names, categories, perf models).
 * - the table builders, called by report.c in TraceLens's sheet order.
 * The layers below provide the rest: util (string buffer, Python repr,
 * hash map, sorts, numpy statistics), trace (event time helpers), tree
 * (the node records the walks read inline).  See docs/architecture.md.
 */
#ifndef TLM_REPORT_INTERNAL_H
#define TLM_REPORT_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_perf.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "grow.h"
#include "i3map.h"
#include "mem_internal.h"
#include "npstats.h"
#include "pyrepr.h"
#include "sbuf.h"
#include "sortutil.h"
#include "trace_event.h"
#include "tree_internal.h"

/* ------------------------------------------------------------ tables
 * tlm_tab itself is the table layer's (tlm_table.h); what follows is the
 * report's own use of it. */

/* Marks the columns TraceLens has as int64 (sums, minima, maxima of
 * integer durations: int_times (TLM_INT_* bits) says which events' times
 * were integer tokens, GPU events for kernel times, host events for op
 * durations; or all zero, empty sums) to print as integers (inttype.c,
 * addendum §A1).  Errors: TLM_ENOMEM. */
tlm_status tlm_tab_int_columns(tlm_tab *t, int int_times);
/* tlm_idx_cmp over the rows of a table: by the double column kc
 * descending, then by the integer (UID) column uc ascending. */
typedef struct tlm_sum_uid_key {
    const tlm_tab *t;
    size_t kc, uc;
} tlm_sum_uid_key;
int tlm_cmp_sum_uid(const void *key, size_t a, size_t b);

/* ------------------------------------------------------------ report */

/* UID -> launcher index, kept after the launchers are found: bit u of
 * bits says whether op u is a launcher, its index is idx[rank[u / 64] +
 * the set bits of its word below u] (about 0.2 bytes a UID and 4 a
 * launcher, not 4 bytes a UID, while the sheets are built).  One
 * allocation. */
typedef struct tlm_lkmap {
    size_t words;
    uint32_t *rank;
    int32_t *idx;
    uint64_t bits[];
} tlm_lkmap;

/* The index in rctx.lk of the launcher op u, or -1. */
static inline int32_t tlm_lkmap_get(const tlm_lkmap *m, int32_t u)
{
    size_t w = (size_t)u >> 6;
    if (!m || u < 0 || w >= m->words)
        return -1;
    uint64_t bit = (uint64_t)1 << ((unsigned)u & 63u), word = m->bits[w];
    if (!(word & bit))
        return -1;
    return m->idx[m->rank[w] +
                  (uint32_t)__builtin_popcountll(word & (bit - 1))];
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
    struct tlm_lkmap *lk_of; /* UID -> launcher index (tlm_lkmap_get) */
    tlm_i3map meta;       /* (pid, tid, field) -> M event UID */
    int32_t *gpu;         /* UIDs of GPU events, UID order */
    uint8_t *gpu_fl;      /* per gpu[] entry: TLM_GPU_KERNEL, _COMM */
    size_t ngpu;
    int has_cpu_ops;
    int gpu_only;         /* no cpu_op, no "python_func" (TraceLens) */
    int int_times;        /* TLM_INT_GPU: every GPU event's ts and dur
                             were JSON integers (tlm_event.tflags);
                             TLM_INT_HOST: every other X event's */
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
    tlm_ivld *busy;        /* tlm_rctx_busy_us scratch */
    size_t busy_cap;
    /* set while another thread is still finding the launchers (lk,
     * lk_kernels, lk_of, nlk): waits until they are known and fills them
     * in; anything reading them (tlm_rctx_op_category) calls this first */
    tlm_status (*launchers_wait)(struct tlm_rctx *ctx);
    void *launchers_ud;
    const tlm_inductor_cache *inductor; /* opts.inductor_cache_dir's
                                         * kernels, or NULL (shared) */
    int32_t *ann;          /* user_annotation events by ts (annotate.c);
                            * none unless the trace has vLLM attention */
    size_t nann;
    uint8_t *rc;           /* --detect_recompute: per UID 1 under a
                            * recompute_fn (recompute.c); NULL when off */
    struct tlm_ovl *ovl;   /* --include_overlap_info: the overlap sweep
                            * (kl_overlap.c; shared, read-only); NULL off */
    struct tlm_ovl_sum *ovs; /* this thread's overlap summary scratch */
    int kl;                /* 1 while a builder makes its *_kl_overlap
                            * sheet: overlapping_kernel_names is a key */
    double n_out_of_range; /* ops whose model gave no figures: dims out
                              of range (unified_perf_summary; coverage) */
} tlm_rctx;

/* --include_overlap_info (kl_overlap.c, perfreport §4.11). */
#define TLM_KL_SUFFIX "_kl_overlap"
#define TLM_COLNAME_KL_NAMES "overlapping_kernel_names"
#define TLM_COLNAME_KL_DETAILS "overlapping_kernels_details"
#define TLM_COLNAME_KL_PCT "overlap_pct_mean"
/* The sweep over the GPU events into ctx->ovl.  Errors: TLM_ENOMEM,
 * TLM_ELIMIT (too many concurrent events of different streams). */
tlm_status tlm_rctx_overlap(tlm_rctx *ctx);
void tlm_rctx_overlap_free(tlm_rctx *ctx);
void tlm_rctx_ovs_free(tlm_rctx *ctx);
/* Summarises the kernels k[0..nk) (ts order) into ctx->ovs.  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_rctx_kl_eval(tlm_rctx *ctx, const int32_t *k, size_t nk);
/* Appends the last summary's names (count, name ids) to a grouping key. */
void tlm_rctx_kl_key(const tlm_rctx *ctx, tlm_sbuf *key);
/* The last summary's overlap_pct (NaN when its kernels were never busy). */
double tlm_rctx_kl_pct(const tlm_rctx *ctx);
/* Appends the three overlap columns to t, the first at *c0.  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_rctx_kl_add_cols(tlm_tab *t, size_t *c0);
/* Row R's names and details from the last summary, and pct_mean. */
void tlm_rctx_kl_set(tlm_rctx *ctx, tlm_tab *t, size_t R, size_t c0,
                     double pct_mean);
/* base + TLM_KL_SUFFIX into out. */
void tlm_rctx_kl_name(const char *base, char *out, size_t size);
/* Mean of the non-NaN values added. */
typedef struct tlm_kl_acc {
    double sum;
    size_t n;
} tlm_kl_acc;
static inline void tlm_kl_acc_add(tlm_kl_acc *a, double v)
{
    if (!isnan(v)) {
        a->sum += v;
        a->n++;
    }
}
static inline double tlm_kl_acc_mean(const tlm_kl_acc *a)
{
    return a->n ? a->sum / (double)a->n : (double)NAN;
}

/* --detect_recompute: fills ctx->rc.  Errors: TLM_ENOMEM. */
tlm_status tlm_rctx_recompute(tlm_rctx *ctx);
/* 1 when event u is recomputed (always 0 without --detect_recompute). */
static inline int tlm_rctx_rc(const tlm_rctx *ctx, int32_t u)
{
    return ctx->rc && u >= 0 && ctx->rc[u];
}

/* annotate.c: the annotations of vllm::unified_attention_with_output
 * ops (addendum A4.4).  tlm_rctx_annotations fills ctx->ann (shared by the
 * threads' contexts; errors: TLM_ENOMEM); tlm_rctx_annotation gives the
 * UID of op u's annotation event, or -1. */
tlm_status tlm_rctx_annotations(tlm_rctx *ctx);
int32_t tlm_rctx_annotation(const tlm_rctx *ctx, int32_t u);

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
    tlm_report_gpu gpu;   /* the choice and the trace's devices */
    char label[256];
    size_t n_gpu_total;
    size_t n_gpu_linked;
    tlm_tab *memcpy_tab;  /* memcpy_summary (not written as a CSV) */
    char *findings_md;    /* the findings section of report.md, or NULL */
    double n_out_of_range; /* tlm_rctx's, for the perf-model coverage */
};

/* memcpy_summary (memcpy.c): linked gpu_memcpy events per direction (D2H,
 * H2D, D2D, other): count, total_us, bytes.  Errors: TLM_ENOMEM. */
tlm_status tlm_memcpy_summary(const tlm_tree *tree, int include_unlinked,
                              tlm_tab **out);
/* The report's table accessors (tlm_report_tab, _memcpy_tab, _tab_mut,
 * _insert_tab, _set_findings_md) are public: tlm_report.h. */

/* tlm_rctx.int_times bits. */
enum { TLM_INT_GPU = 1, TLM_INT_HOST = 2 };

/* ctx->gpu_fl bits: cat kernel; tlm_rctx_is_comm. */
enum { TLM_GPU_KERNEL = 1, TLM_GPU_COMM = 2 };

/* Appends t to ctx->tabs (takes ownership; frees t on failure). */
tlm_status tlm_rctx_add_tab(tlm_rctx *ctx, tlm_tab *t);
/* The end of a table builder: t is freed when st is an error (and st
 * returned), else added as tlm_rctx_add_tab does. */
tlm_status tlm_rctx_finish_tab(tlm_rctx *ctx, tlm_tab *t, tlm_status st);

/* ROCm 7.1 legacy copy / fill kernel names (timeline.c, §1.5): 1 copy,
 * 2 fill, 0 neither. */
int tlm_rocm_legacy_kind(const char *nm);

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

/* Helpers the table builders share (builders.c). */
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
/* TraceLens's row order (roworder.c, spec addendum §A9): a stable sort by
 * the columns cols[0..n) ascending, nulls last at each level (a groupby's
 * sorted keys; mode[i], or all TLM_KEY_TEXT when NULL, says how a text
 * key compares); numpy-quicksort order of column col descending, nulls
 * last (sort_values(col, ascending=False)).  Errors: TLM_ENOMEM. */
enum {
    TLM_KEY_TEXT = 0, /* code-point order */
    TLM_KEY_NUM = 1,  /* a number kept as text */
    TLM_KEY_TUPLE = 2 /* a tuple / list of integers kept as text */
};
tlm_status tlm_tab_sort_keys_asc(tlm_tab *t, const size_t *cols,
                                 const unsigned char *mode, size_t n);
tlm_status tlm_tab_sort_desc_np(tlm_tab *t, size_t col);
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
