/*
 * tlm_coll.h - NCCL/RCCL collectives across ranks: extraction of flat
 * collective records from one trace, matching of the same collective
 * instance across traces, per-instance metrics, clock-offset estimation,
 * summaries, straggler tables, and a TraceLens parity mode.
 *
 * Data flow (the MPI driver in mpi/ moves the bytes; this core never calls
 * MPI):
 *
 *   per trace     tlm_coll_extract()           -> tlm_coll_record[]
 *                 tlm_coll_tl_vote_records()   -> OR-reduce (parity mode)
 *   route         owner = tlm_coll_record_owner_key(rec) % nprocs
 *                 (records are flat, fixed-size, pointer-free: memcpy /
 *                 MPI_BYTE safe between ranks of one build)
 *   owner         tlm_coll_match()             -> instances, members,
 *                                                 unmatched records
 *   rank 0        tlm_coll_clock_estimate(all members)  -> offsets
 *   owner         tlm_coll_metrics_apply_offsets(result, offsets)
 *                 tlm_coll_straggler_compute() -> partial straggler rows
 *   rank 0        tlm_coll_straggler_merge(concatenated partial rows)
 *                 tlm_coll_summarize(concatenated instances)
 *
 * Partition independence: tlm_coll_match() groups the records it is given by
 * their owner key, so every owner that holds all records of an owner key
 * produces exactly the instances a single process would.  Every output array
 * is sorted by its documented key; concatenating the outputs of several
 * owners and sorting with the tlm_coll_*_sort() functions gives the same
 * bytes as one call on all records.  Straggler rows merge by integer sums
 * (no floating-point order effects).
 *
 * Identity of an instance: (match_key, seq).
 *   - match_key identifies the process group (its name, or a synthesized
 *     name when the trace has none, see tlm_coll_record.pg_name); for p2p it
 *     also includes the directed pair (src, dst).
 *   - seq comes from the trace's "Seq" arg (TLM_COLL_SEQ_TRACE), from
 *     record_param_comms "Concrete Inputs"[1] (2.2-era, TLM_COLL_SEQ_CONCRETE),
 *     or is an ordinal (TLM_COLL_SEQ_ORDINAL / TLM_COLL_SEQ_P2P): the k-th
 *     collective by GPU start within (match_key, trace rank).  Ordinal
 *     records are aligned across ranks by the matcher on their (collective,
 *     dtype, sizes) signature sequence and end times, so clipped profiling
 *     windows match the instances they share; they never shift every later
 *     match by one.  After matching, instance seq of ordinal groups is the
 *     aligned position (0-based, in the group's consensus order).
 *
 * Units (SI): times and durations int64 nanoseconds; sizes bytes; bandwidth
 * GB/s = 1e9 bytes/s (nccl-tests convention).  Only the TraceLens parity
 * structures (tlm_coll_tl_*) use TraceLens units: microseconds, MiB
 * (labelled "MB"), GiB/s (labelled "GB/s").
 *
 * Memory: every array returned is allocated with the caller's tlm_alloc
 * (NULL = default) and released with the matching *_free() function or,
 * for plain arrays, with tlm_coll_free(alloc, ptr).  Functions are
 * reentrant; no global state.
 */
#ifndef TLM_COLL_H
#define TLM_COLL_H

#include "tlm_common.h"
#include "tlm_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ sizes */

#define TLM_COLL_PG_NAME_LEN 64 /* pg_name (NUL-terminated, truncated) */
#define TLM_COLL_NAME_LEN 32    /* "Collective name" as in the trace */
#define TLM_COLL_DTYPE_LEN 24   /* dtype string as in the trace */
#define TLM_COLL_TEXT_LEN 64    /* list texts (ranks), truncated */
#define TLM_COLL_SPLIT_LEN 48   /* split-size texts, truncated */
#define TLM_COLL_ALGO_LEN 24    /* "RING_LL", "NVLS_TREE_SIMPLE", ... */
#define TLM_COLL_KERNEL_LEN 48  /* kernel name, truncated */
#define TLM_COLL_TL_ID_LEN 80   /* TraceLens collective_id text */

/* Unknown / absent integer fields are -1 unless stated otherwise. */

/* ------------------------------------------------------------------ dtypes */

/* X(enum, c10 ScalarType name, bytes per element, TraceLens bytes (0 = not
 * in TraceLens's dtype2bytes table)). */
#define TLM_DTYPE_LIST(X)                                  \
    X(TLM_DTYPE_UNKNOWN, "", 0, 0)                         \
    X(TLM_DTYPE_FLOAT, "Float", 4, 4)                      \
    X(TLM_DTYPE_DOUBLE, "Double", 8, 8)                    \
    X(TLM_DTYPE_HALF, "Half", 2, 2)                        \
    X(TLM_DTYPE_BFLOAT16, "BFloat16", 2, 2)                \
    X(TLM_DTYPE_FLOAT8_E4M3FN, "Float8_e4m3fn", 1, 0)      \
    X(TLM_DTYPE_FLOAT8_E5M2, "Float8_e5m2", 1, 0)          \
    X(TLM_DTYPE_FLOAT8_E4M3FNUZ, "Float8_e4m3fnuz", 1, 0)  \
    X(TLM_DTYPE_FLOAT8_E5M2FNUZ, "Float8_e5m2fnuz", 1, 0)  \
    X(TLM_DTYPE_FLOAT8_E8M0FNU, "Float8_e8m0fnu", 1, 0)    \
    X(TLM_DTYPE_FLOAT4_E2M1FN_X2, "Float4_e2m1fn_x2", 1, 0) \
    X(TLM_DTYPE_CHAR, "Char", 1, 0)                        \
    X(TLM_DTYPE_BYTE, "Byte", 1, 1)                        \
    X(TLM_DTYPE_BOOL, "Bool", 1, 1)                        \
    X(TLM_DTYPE_SHORT, "Short", 2, 2)                      \
    X(TLM_DTYPE_INT, "Int", 4, 4)                          \
    X(TLM_DTYPE_LONG, "Long", 8, 8)                        \
    X(TLM_DTYPE_UINT16, "UInt16", 2, 0)                    \
    X(TLM_DTYPE_UINT32, "UInt32", 4, 0)                    \
    X(TLM_DTYPE_UINT64, "UInt64", 8, 0)                    \
    X(TLM_DTYPE_COMPLEXHALF, "ComplexHalf", 4, 0)          \
    X(TLM_DTYPE_COMPLEXFLOAT, "ComplexFloat", 8, 0)        \
    X(TLM_DTYPE_COMPLEXDOUBLE, "ComplexDouble", 16, 0)     \
    X(TLM_DTYPE_QINT8, "QInt8", 1, 0)                      \
    X(TLM_DTYPE_QUINT8, "QUInt8", 1, 0)                    \
    X(TLM_DTYPE_QINT32, "QInt32", 4, 0)                    \
    X(TLM_DTYPE_QUINT4X2, "QUInt4x2", 1, 0)                \
    X(TLM_DTYPE_QUINT2X4, "QUInt2x4", 1, 0)                \
    X(TLM_DTYPE_BITS8, "Bits8", 1, 0)                      \
    X(TLM_DTYPE_BITS16, "Bits16", 2, 0)

typedef enum tlm_dtype {
#define TLM_X_(e, s, b, t) e,
    TLM_DTYPE_LIST(TLM_X_)
#undef TLM_X_
    TLM_DTYPE_COUNT
} tlm_dtype;

/* dtype from its name.  Accepts the c10 ScalarType names of TLM_DTYPE_LIST
 * (exact case), a "c10::" prefix ("c10::Half"), torch names ("float32",
 * "torch.bfloat16", "int8", "uint8", "float16", "float8_e4m3fn", ...)
 * and NCCL kernel-name suffixes ("f16", "bf16", "f32", "float", "half",
 * "int8_t", "uint8_t", "i32", "u64", "f8e4m3", "f8e5m2", ...).
 * s need not be NUL-terminated; NULL or unknown -> TLM_DTYPE_UNKNOWN. */
TLM_API tlm_dtype tlm_dtype_from_name(const char *s, size_t len);

/* Bytes per element (0 for UNKNOWN / out of range). */
TLM_API int tlm_dtype_size(tlm_dtype dt);

/* Bytes per element in TraceLens's dtype2bytes table; 0 when TraceLens has
 * no entry (its sizes are then None/NaN). */
TLM_API int tlm_dtype_tl_size(tlm_dtype dt);

/* Canonical c10 name ("BFloat16"); "" for UNKNOWN / out of range. */
TLM_API const char *tlm_dtype_name(tlm_dtype dt);

/* ------------------------------------------------------- collective types */

/* X(enum, canonical name, implicit-sync (all members finish together)). */
#define TLM_COLL_TYPE_LIST(X)                     \
    X(TLM_COLL_UNKNOWN, "unknown", 0)             \
    X(TLM_COLL_ALLREDUCE, "allreduce", 1)         \
    X(TLM_COLL_ALLGATHER, "allgather", 1)         \
    X(TLM_COLL_REDUCESCATTER, "reducescatter", 1) \
    X(TLM_COLL_ALLTOALL, "alltoall", 1)           \
    X(TLM_COLL_ALLTOALLV, "alltoallv", 1)         \
    X(TLM_COLL_BROADCAST, "broadcast", 0)         \
    X(TLM_COLL_REDUCE, "reduce", 0)               \
    X(TLM_COLL_GATHER, "gather", 0)               \
    X(TLM_COLL_SCATTER, "scatter", 0)             \
    X(TLM_COLL_BARRIER, "barrier", 1)             \
    X(TLM_COLL_SEND, "send", 0)                   \
    X(TLM_COLL_RECV, "recv", 0)                   \
    X(TLM_COLL_SENDRECV, "sendrecv", 0)           \
    X(TLM_COLL_COALESCED, "coalesced", 0)

typedef enum tlm_coll_type {
#define TLM_X_(e, s, i) e,
    TLM_COLL_TYPE_LIST(TLM_X_)
#undef TLM_X_
    TLM_COLL_TYPE_COUNT
} tlm_coll_type;

/* Canonical name ("allreduce"); "unknown" when out of range. */
TLM_API const char *tlm_coll_type_name(tlm_coll_type t);

/* 1 when all members of such a collective finish together (allreduce,
 * allgather, reducescatter, alltoall(v), barrier), else 0. */
TLM_API int tlm_coll_type_implicit_sync(tlm_coll_type t);

/* Type from a c10d "Collective name" ("allreduce", "_allgather_base",
 * "reduce_scatter", "all_to_allv", "send", ...), or from a profiling title
 * ("nccl:all_reduce"; the "nccl:" prefix is accepted).  "wait" and unknown
 * names give TLM_COLL_UNKNOWN; *is_wait (may be NULL) is set to 1 for
 * "wait".  s need not be NUL-terminated. */
TLM_API tlm_coll_type tlm_coll_type_from_name(const char *s, size_t len,
                                              int *is_wait);

/* Type (and what else the name says) from an NCCL/RCCL kernel name, for the
 * three NCCL naming schemes and RCCL:
 *   ncclKernel_AllReduce_RING_LL_Sum_float(...)      (NCCL <= 2.18)
 *   ncclDevKernel_AllReduce_Sum_f16_RING_LL(...)     (NCCL 2.19-2.20)
 *   ncclDevKernel_AllGather_RING_LL(...)             (NCCL >= 2.21)
 *   ncclDevKernel_Generic(...)                       (RCCL: UNKNOWN)
 * and "cross_device_reduce" custom all-reduce kernels (ALLREDUCE).
 * algo (may be NULL, TLM_COLL_ALGO_LEN bytes) receives "RING_LL" etc. or "";
 * *dtype (may be NULL) the element type when the name carries one.
 * SendRecv kernels give TLM_COLL_SENDRECV (they also run all_to_all). */
TLM_API tlm_coll_type tlm_coll_type_from_kernel(const char *name,
                                                char *algo,
                                                tlm_dtype *dtype);

/* Bus-bandwidth factor (nccl-tests): allreduce 2(n-1)/n; allgather,
 * reducescatter, alltoall, alltoallv (n-1)/n; broadcast, reduce, send,
 * recv, sendrecv 1; gather, scatter (n-1)/n; NaN for barrier, coalesced,
 * unknown, or n < 1. */
TLM_API double tlm_coll_bus_factor(tlm_coll_type t, int64_t n);

/* ----------------------------------------------------------------- records */

/* How seq was obtained (tlm_coll_record.seq_src, instance.seq_src). */
typedef enum tlm_coll_seq_src {
    TLM_COLL_SEQ_ORDINAL = 0,  /* k-th by GPU start in (match_key, rank) */
    TLM_COLL_SEQ_TRACE = 1,    /* "Seq" arg */
    TLM_COLL_SEQ_CONCRETE = 2, /* record_param_comms "Concrete Inputs"[1] */
    TLM_COLL_SEQ_P2P = 3       /* k-th send/recv of the directed pair */
} tlm_coll_seq_src;

/* Where the metadata of a record came from (meta_src). */
typedef enum tlm_coll_meta_src {
    TLM_COLL_META_NONE = 0,     /* kernel name only */
    TLM_COLL_META_KERNEL = 1,   /* the kernel's own args (Kineto copy) */
    TLM_COLL_META_EXTID = 2,    /* record_param_comms with the kernel's
                                 * External id */
    TLM_COLL_META_LAUNCH = 3,   /* kernel correlation -> runtime launch ->
                                 * enclosing record_param_comms / nccl:*
                                 * span on the launching thread */
    TLM_COLL_META_DISTINFO = 4  /* only PG ranks from distributedInfo */
} tlm_coll_meta_src;

/* Record flags. */
enum {
    TLM_COLL_REC_KMETA = 1u << 0,    /* kernel args carried the five size
                                      * fields (TraceLens sees them) */
    TLM_COLL_REC_KPG = 1u << 1,      /* kernel args carried "Process Group
                                      * Name" (TraceLens sees it) */
    TLM_COLL_REC_PG_SYNTH = 1u << 2, /* pg_name synthesized (no PG name in
                                      * the trace): "size<N>" or
                                      * "unknown/stream<S>" */
    TLM_COLL_REC_RANKS_TRUNC = 1u << 3, /* PG ranks list truncated ("...") */
    TLM_COLL_REC_SPLIT_TRUNC = 1u << 4, /* split list truncated: a2av peer
                                         * bytes are lower bounds */
    TLM_COLL_REC_NO_PEER = 1u << 5,  /* send/recv without Src/Dst Rank */
    TLM_COLL_REC_CUSTOM = 1u << 6,   /* custom kernel (cross_device_reduce) */
    TLM_COLL_REC_TL_KEPT = 1u << 7,  /* TraceLens would load this kernel */
    TLM_COLL_REC_ALIGNED = 1u << 8,  /* ordinal seq already aligned across
                                      * ranks (tlm_coll_records_apply_shifts)
                                      */
    TLM_COLL_REC_UNALIGNED = 1u << 9, /* ordinal sequence of this rank could
                                      * not be aligned: reported unmatched */
    TLM_COLL_REC_TRACE_SEQ = 1u << 10 /* p2p record whose trace gave a Seq:
                                       * kept in trace_seq (seq is the
                                       * ordinal matching uses) */
};

/* One NCCL/RCCL kernel of one trace.  Flat and pointer-free.  Several
 * kernels launched for one collective (same record_param_comms) become
 * several records with the same (match_key, seq) and part = 0, 1, ...;
 * the matcher merges them into one member (first start .. last end). */
typedef struct tlm_coll_record {
    /* identity */
    uint64_t match_key;   /* hash of the PG identity (+ directed pair) */
    int64_t seq;          /* see seq_src; ordinal is 0-based */
    int64_t trace_seq;    /* the trace's Seq of a p2p record (flag
                           * TRACE_SEQ; else unused) */
    uint64_t pg_hash;     /* tlm_hash64(pg_name) (full, untruncated) */
    uint64_t sig;         /* hash(coll type (send/recv -> p2p), dtype,
                           * in_nelems, out_nelems) */
    uint64_t pg_ranks_hash; /* hash of the PG ranks text; 0 if none */
    /* time (ns) */
    int64_t ts_ns;        /* kernel "ts" as in the trace (any int64,
                           * negative included) */
    int64_t start_ns;     /* ts_ns + baseTimeNanoseconds (if present);
                           * saturated only beyond int64 */
    int64_t dur_ns;
    int64_t cpu_ts_ns;    /* launching record_param_comms start on the same
                           * time base as start_ns; -1 unknown (link_id
                           * -1: a known time may be negative too) */
    /* sizes */
    int64_t in_nelems;
    int64_t out_nelems;
    int64_t bytes;        /* nccl-tests size S: out bytes for allgather and
                           * gather, else in bytes; -1 unknown */
    int64_t send_bytes;   /* bytes leaving this rank for other ranks (self
                           * chunk excluded; a2a(v) from the splits); -1 */
    int64_t recv_bytes;   /* bytes arriving from other ranks; -1 */
    int64_t max_peer_send_bytes; /* largest single-peer chunk sent; -1 */
    int64_t max_peer_recv_bytes; /* largest single-peer chunk received; -1 */
    int64_t stream;       /* -1 unknown */
    uint64_t event_index; /* kernel's index in the trace (file order) */
    int64_t link_id;      /* event index of the linked record_param_comms,
                           * -1 if none */
    int32_t trace_rank;   /* the caller's rank of this trace */
    int32_t group_size;   /* "Group size"; -1 */
    int32_t local_rank;   /* position of trace_rank in the PG ranks; -1 */
    int32_t peer;         /* p2p: global peer (Dst for send, Src for recv) */
    int32_t pg_rank_start;  /* first global rank of the PG; -1 */
    int32_t pg_rank_stride; /* stride when the ranks are an arithmetic
                             * progression, else 0; -1 unknown */
    int32_t pg_ranks_n;   /* number of ranks in the PG list; -1 */
    int32_t part;         /* 0 for the first kernel of a collective */
    uint32_t flags;       /* TLM_COLL_REC_* */
    uint8_t coll;         /* tlm_coll_type */
    uint8_t dtype;        /* tlm_dtype */
    uint8_t seq_src;      /* tlm_coll_seq_src */
    uint8_t meta_src;     /* tlm_coll_meta_src */
    uint8_t kname_coll;   /* tlm_coll_type parsed from the kernel name */
    uint8_t reserved_[7];
    char pg_name[TLM_COLL_PG_NAME_LEN];   /* "Process Group Name" (or ID) */
    char pg_desc[TLM_COLL_NAME_LEN];      /* "Process Group Description",
                                           * else pg_config's pg_desc;
                                           * cut at a UTF-8 boundary,
                                           * control characters as '?' */
    char coll_name[TLM_COLL_NAME_LEN];    /* "Collective name"; "" if none */
    char dtype_name[TLM_COLL_DTYPE_LEN];  /* dtype string; "" if none */
    char pg_ranks_text[TLM_COLL_TEXT_LEN];/* "Process Group Ranks" text */
    char in_split[TLM_COLL_SPLIT_LEN];    /* "In split size" text */
    char out_split[TLM_COLL_SPLIT_LEN];   /* "Out split size" text */
    char algo[TLM_COLL_ALGO_LEN];         /* from the kernel name */
    char kernel[TLM_COLL_KERNEL_LEN];     /* kernel name, truncated */
} tlm_coll_record;

typedef struct tlm_coll_extract_opts {
    int32_t trace_rank;      /* global rank of this trace (from discovery);
                              * < 0: use distributedInfo.rank (else 0) */
    int keep_wait;           /* reserved, must be 0 */
    const tlm_alloc *alloc;  /* NULL = default */
} tlm_coll_extract_opts;

/* Counters of one extraction. */
typedef struct tlm_coll_extract_stats {
    uint64_t n_kernels;       /* NCCL/RCCL (and custom) kernels seen */
    uint64_t n_meta_kernel;   /* metadata from the kernel's args */
    uint64_t n_meta_extid;    /* ... from record_param_comms by External id */
    uint64_t n_meta_launch;   /* ... through the runtime launch */
    uint64_t n_meta_none;     /* kernel name only */
    uint64_t n_seq_trace;     /* seq from "Seq" */
    uint64_t n_seq_concrete;  /* seq from Concrete Inputs */
    uint64_t n_seq_ordinal;   /* ordinal seq */
    uint64_t n_p2p;           /* send/recv records */
    uint64_t n_wait_skipped;  /* record_param_comms "wait" ops seen */
    uint64_t n_multi_part;    /* records with part > 0 */
} tlm_coll_extract_stats;

/* Initialises opts: trace_rank -1, alloc NULL. */
TLM_API void tlm_coll_extract_opts_init(tlm_coll_extract_opts *opts);

/* Extracts the collective records of one trace (read with keep_events = 1).
 * opts and stats may be NULL.  On success *out is a new array of *n_out
 * records (NULL when 0) sorted by (start_ns, event_index), freed with
 * tlm_coll_free(opts->alloc, *out).  Kernels without any metadata are kept
 * (type from the kernel name, PG "unknown/stream<S>").  Errors: TLM_EINVAL
 * (NULL trace/out, or events not kept), TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_extract(const tlm_trace *trace,
                                    const tlm_coll_extract_opts *opts,
                                    tlm_coll_record **out, size_t *n_out,
                                    tlm_coll_extract_stats *stats,
                                    tlm_error *err);

/* Releases an array returned by this module.  alloc NULL = default; ptr
 * NULL allowed. */
TLM_API void tlm_coll_free(const tlm_alloc *alloc, void *ptr);

/* Owner key for routing: owner = key % nprocs.  Records of one instance
 * always share the key.  Seq-carrying and ALIGNED records:
 * mix(match_key, seq); other ordinal and p2p records: mix(match_key)
 * (the whole group goes to one owner, which aligns it; see the two-phase
 * alignment below to avoid that). */
TLM_API uint64_t tlm_coll_record_owner_key(const tlm_coll_record *rec);

/* Owner key for the TraceLens parity mode: hash of TraceLens's process-group
 * label of the record ("all" in simplified mode, "Unknown_Group" when the
 * kernel carries no PG name). */
TLM_API uint64_t tlm_coll_record_tl_owner_key(const tlm_coll_record *rec,
                                              int simplified);

/* --------------------------------------------------------------- matching */

/* Instance flags. */
enum {
    TLM_COLL_INST_INCOMPLETE = 1u << 0, /* fewer members than group_size
                                         * (clipped window, missing trace) */
    TLM_COLL_INST_OVERFULL = 1u << 1,   /* more members than group_size
                                         * (ambiguous synthesized PG) */
    TLM_COLL_INST_SIG_MISMATCH = 1u << 2, /* members disagree on signature
                                           * (seq-identified instances) */
    TLM_COLL_INST_P2P = 1u << 3,        /* a send/recv pair */
    TLM_COLL_INST_CORRECTED = 1u << 4,  /* clock offsets were applied */
    TLM_COLL_INST_MULTI_KERNEL = 1u << 5, /* some member had > 1 kernel */
    TLM_COLL_INST_GROUP_MISMATCH = 1u << 7, /* members disagree on the
                                             * group size (both known) */
    TLM_COLL_INST_LATENCY_SUSPECT = 1u << 6, /* comm_latency > corrected
                                             * (earliest end - latest start)
                                             * + max(latency_tol_ns, 10% of
                                             * comm_latency): min dur is not
                                             * a pure transfer time */
    TLM_COLL_INST_GROUP_WORLD = 1u << 8 /* no member's trace names the
                                         * group (no Group size, PG ranks
                                         * or pg_config): group_size is
                                         * the world (match_opts
                                         * .world_size) */
};

/* Why an instance is set aside: left out of every statistic (summaries,
 * bandwidth, skew, the audit's scaling rows, plots) and counted by this
 * reason instead.  One rule for every output (docs/metrics-collectives.md,
 * "Instances set aside"). */
typedef enum tlm_coll_aside {
    TLM_COLL_ASIDE_NONE = 0,       /* used */
    TLM_COLL_ASIDE_INCOMPLETE = 1, /* INCOMPLETE or OVERFULL: members
                                    * missing (or more than the group) */
    TLM_COLL_ASIDE_MISMATCH = 2,   /* SIG_MISMATCH or GROUP_MISMATCH */
    TLM_COLL_ASIDE_SUSPECT = 3     /* LATENCY_SUSPECT */
} tlm_coll_aside;

/* The reason an instance with these flags is set aside (the first that
 * applies, in the enum's order), or TLM_COLL_ASIDE_NONE. */
TLM_API tlm_coll_aside tlm_coll_inst_aside(uint32_t flags);

/* The reason's word: "", "incomplete", "mismatch", "latency_suspect". */
TLM_API const char *tlm_coll_aside_name(tlm_coll_aside why);

/* One matched collective instance (pg, seq). */
typedef struct tlm_coll_instance {
    uint64_t match_key;
    int64_t seq;               /* identity (matching order; 0-based for
                                * ordinal and p2p instances) */
    int64_t trace_seq;         /* p2p: the trace's Seq of the send member
                                * (else of the recv); -1 none */
    uint64_t pg_hash;
    uint64_t sig;
    int64_t in_nelems;
    int64_t out_nelems;
    int64_t bytes;             /* nccl-tests size S (majority signature) */
    /* raw clocks */
    int64_t first_start_ns;
    int64_t last_start_ns;
    int64_t first_end_ns;
    int64_t last_end_ns;
    int64_t comm_latency_ns;   /* min member duration */
    int64_t max_dur_ns;
    int64_t start_skew_ns;     /* last_start - first_start */
    int64_t end_skew_ns;       /* last_end - first_end */
    int64_t wait_sum_ns;       /* sum over members of (last_start - start) */
    int64_t wall_ns;           /* last_end - first_start */
    /* offset-corrected clocks (== raw when no offsets) */
    int64_t start_skew_corr_ns;
    int64_t end_skew_corr_ns;
    int64_t wait_sum_corr_ns;
    int64_t wall_corr_ns;
    /* data volumes (bytes; -1 unknown) */
    int64_t send_bytes_total;  /* sum of members' send_bytes (self excl.) */
    int64_t recv_bytes_total;
    int64_t max_send_bytes;    /* largest member send_bytes */
    int64_t max_recv_bytes;
    /* bandwidth, GB/s = 1e9 B/s; NaN when unknown */
    double algbw_gbps;         /* bytes / comm_latency */
    double busbw_gbps;         /* algbw * tlm_coll_bus_factor(coll, n) */
    double throughput_gbps;    /* send_bytes_total / wall (corrected) */
    double send_imbalance;     /* max_send / mean send (members); NaN */
    double recv_imbalance;     /* max_recv / mean recv; NaN */
    int32_t group_size;        /* -1 unknown */
    int32_t n_members;         /* ranks present */
    int32_t n_sig_mismatch;    /* members whose signature differs */
    int32_t first_rank;        /* earliest start (raw); ties: lowest rank */
    int32_t last_rank;         /* latest start (raw); ties: lowest rank */
    int32_t n_last;            /* ranks tied for last (raw, within tie_ns) */
    int32_t first_rank_corr;
    int32_t last_rank_corr;
    int32_t n_last_corr;
    uint32_t flags;            /* TLM_COLL_INST_* */
    uint8_t coll;              /* tlm_coll_type */
    uint8_t dtype;             /* tlm_dtype */
    uint8_t seq_src;           /* tlm_coll_seq_src */
    uint8_t reserved_[5];
    char pg_name[TLM_COLL_PG_NAME_LEN];
    char pg_desc[TLM_COLL_NAME_LEN];  /* "Process Group Description" (or
                                       * pg_config's pg_desc) of the first
                                       * member that has one; "" none */
    char coll_name[TLM_COLL_NAME_LEN];
    char dtype_name[TLM_COLL_DTYPE_LEN];
    char algo[TLM_COLL_ALGO_LEN];
} tlm_coll_instance;

/* One rank's part in one instance (kernels of one collective merged). */
typedef struct tlm_coll_member {
    uint64_t match_key;
    int64_t seq;
    int64_t trace_seq;         /* p2p: its record's trace Seq; -1 none */
    int64_t start_ns;          /* raw (trace clock) */
    int64_t end_ns;
    int64_t dur_ns;            /* sum of kernel durations */
    int64_t wait_ns;           /* instance last_start - start (raw) */
    int64_t wait_corr_ns;      /* same on corrected clocks */
    int64_t offset_ns;         /* clock offset applied (0 if none) */
    int64_t send_bytes;        /* -1 unknown */
    int64_t recv_bytes;
    int64_t bytes;             /* size S as this rank recorded it; -1 */
    uint64_t event_index;      /* first kernel's event index */
    uint64_t sig;
    int32_t trace_rank;
    int32_t n_kernels;
    uint8_t coll;
    uint8_t seq_src;
    uint8_t sig_mismatch;      /* 1 when sig differs from the instance's */
    uint8_t reserved_[5];
} tlm_coll_member;

/* Why a record is not part of any instance. */
typedef enum tlm_coll_unmatched_reason {
    TLM_COLL_UNM_SIG_MISMATCH = 1, /* aligned slot, different signature */
    TLM_COLL_UNM_NO_OVERLAP = 2,   /* ordinal sequence could not be aligned
                                    * with the group's other ranks */
    TLM_COLL_UNM_DUPLICATE = 3     /* a second collective with the same
                                    * (key, seq, rank) and a different
                                    * CPU op */
} tlm_coll_unmatched_reason;

typedef struct tlm_coll_unmatched {
    uint64_t match_key;
    int64_t seq;               /* the record's own (provisional) seq */
    int64_t start_ns;
    int64_t dur_ns;
    uint64_t event_index;
    uint64_t sig;
    int32_t trace_rank;
    int32_t reason;            /* tlm_coll_unmatched_reason */
    uint8_t coll;
    uint8_t seq_src;
    uint8_t reserved_[6];
    char pg_name[TLM_COLL_PG_NAME_LEN];
} tlm_coll_unmatched;

typedef struct tlm_coll_match_opts {
    /* Clock offsets by trace rank: corrected time = trace time - offset.
     * NULL (or rank >= n_offsets) means 0. */
    const int64_t *offset_ns;
    size_t n_offsets;
    int64_t tie_ns;         /* starts within tie_ns of the latest count as
                             * tied for last; default 0 (exact ties) */
    int64_t latency_tol_ns; /* tolerance of LATENCY_SUSPECT; default 1000 */
    const tlm_alloc *alloc; /* NULL = default */
    int32_t world_size;     /* the group of a collective whose traces name
                             * none (flag GROUP_WORLD); <= 0 (default):
                             * unknown, the members present are the group */
} tlm_coll_match_opts;

typedef struct tlm_coll_match_result {
    tlm_coll_instance *inst;   /* sorted by (match_key, seq, seq_src) */
    size_t n_inst;
    tlm_coll_member *mem;      /* sorted by (match_key, seq, seq_src,
                                * trace_rank) */
    size_t n_mem;
    tlm_coll_unmatched *unm;   /* sorted by (match_key, trace_rank, seq,
                                * event_index) */
    size_t n_unm;
    const tlm_alloc *alloc;    /* the allocator of the arrays */
} tlm_coll_match_result;

/* Initialises opts with the defaults. */
TLM_API void tlm_coll_match_opts_init(tlm_coll_match_opts *opts);

/* Matches the records (any subset closed under owner key: all records of
 * each owner key it contains) into instances, members and unmatched
 * records, and computes every per-instance metric.  recs is not modified.
 * opts may be NULL.  res is overwritten (not freed first).  Errors:
 * TLM_EINVAL, TLM_ENOMEM (res is then empty). */
TLM_API tlm_status tlm_coll_match(const tlm_coll_record *recs, size_t n,
                                  const tlm_coll_match_opts *opts,
                                  tlm_coll_match_result *res,
                                  tlm_error *err);

/* Releases the arrays of res and zeroes it.  NULL allowed. */
TLM_API void tlm_coll_match_result_free(tlm_coll_match_result *res);

/* Recomputes every per-instance metric of res from its members with the
 * given clock offsets (by trace rank; NULL = none) and tie_ns.  Used after
 * tlm_coll_clock_estimate(); equal to matching again with the offsets. */
TLM_API void tlm_coll_metrics_apply_offsets(tlm_coll_match_result *res,
                                            const int64_t *offset_ns,
                                            size_t n_offsets,
                                            int64_t tie_ns,
                                            int64_t latency_tol_ns);

/* Same with offsets of the trace ranks ranks[0..n_offsets) (ascending,
 * distinct): offset_ns[k] is rank ranks[k]'s, other ranks 0.  Memory by
 * the traces present, not by the highest rank.  ranks NULL: as above. */
TLM_API void tlm_coll_metrics_apply_offsets_by(tlm_coll_match_result *res,
                                               const int32_t *ranks,
                                               const int64_t *offset_ns,
                                               size_t n_offsets,
                                               int64_t tie_ns,
                                               int64_t latency_tol_ns);

/* Two-phase alignment (optional; for large jobs without Seq).  Without
 * it, every ordinal record of a process group goes to one owner.  With it:
 *
 *   per trace   tlm_coll_align_keys(recs)     -> compact keys (40 bytes)
 *   route keys  owner = tlm_coll_align_key_owner(key) % nprocs
 *   owner       tlm_coll_align(keys)          -> one shift per (group, rank)
 *   back        every trace gets the shifts of its (group, rank) pairs
 *               (e.g. gather to all, or route by rank), sorted with
 *               tlm_coll_align_shifts_sort
 *   per trace   tlm_coll_records_apply_shifts(recs, shifts)
 *               -> ordinal seqs aligned (flag ALIGNED), owner keys now
 *                  mix(match_key, seq); then route and tlm_coll_match as
 *                  usual.
 *
 * The instances, members and unmatched records are identical to the
 * one-phase path (tested). */
typedef struct tlm_coll_align_key {
    uint64_t match_key;
    int64_t seq;          /* the record's ordinal */
    int64_t end_ns;       /* latest end over the collective's kernels */
    uint64_t sig;
    int32_t trace_rank;
    int32_t part;         /* 0 */
} tlm_coll_align_key;

typedef struct tlm_coll_align_shift {
    uint64_t match_key;
    int32_t trace_rank;
    int32_t ok;           /* 0: this rank's sequence could not be aligned */
    int64_t shift;        /* aligned seq = ordinal + shift */
} tlm_coll_align_shift;

/* Keys of the records that need alignment (ordinal / p2p, not yet
 * aligned), one per (match_key, rank, seq), sorted by (match_key, rank,
 * seq).  *out freed with tlm_coll_free(alloc, *out). */
TLM_API tlm_status tlm_coll_align_keys(const tlm_coll_record *recs,
                                       size_t n, const tlm_alloc *alloc,
                                       tlm_coll_align_key **out,
                                       size_t *n_out, tlm_error *err);

/* Owner key of an align key (equal to the one-phase owner key of its
 * records). */
TLM_API uint64_t tlm_coll_align_key_owner(const tlm_coll_align_key *k);

/* Aligns the keys (any order; all keys of each match_key present) with the
 * matcher's algorithm.  *out: one shift per (match_key, rank), sorted,
 * freed with tlm_coll_free(alloc, *out). */
TLM_API tlm_status tlm_coll_align(const tlm_coll_align_key *keys, size_t n,
                                  const tlm_alloc *alloc,
                                  tlm_coll_align_shift **out, size_t *n_out,
                                  tlm_error *err);

/* Sorts shifts by (match_key, trace_rank) (needed after concatenating the
 * outputs of several owners). */
TLM_API void tlm_coll_align_shifts_sort(tlm_coll_align_shift *sh, size_t n);

/* Applies sorted shifts to records that need alignment: seq += shift and
 * flag ALIGNED, or flag UNALIGNED when ok == 0.  Records without a shift
 * are left as they are. */
TLM_API void tlm_coll_records_apply_shifts(tlm_coll_record *recs, size_t n,
                                           const tlm_coll_align_shift *sh,
                                           size_t n_sh);

/* Canonical sorts, for merging the outputs of several owners. */
TLM_API void tlm_coll_instances_sort(tlm_coll_instance *inst, size_t n);
TLM_API void tlm_coll_members_sort(tlm_coll_member *mem, size_t n);
TLM_API void tlm_coll_unmatched_sort(tlm_coll_unmatched *unm, size_t n);

/* ------------------------------------------------------------ clock offsets */

/* Clock flags (tlm_coll_clock.flags). */
enum {
    TLM_COLL_CLOCK_REFERENCE = 1u << 0, /* the anchor of its component */
    TLM_COLL_CLOCK_NO_DATA = 1u << 1,   /* no usable instance: offset 0 */
    TLM_COLL_CLOCK_CLAMPED = 1u << 2,   /* the end-time estimate violated
                                         * causality and was moved into
                                         * [lo_ns, hi_ns] */
    TLM_COLL_CLOCK_INFEASIBLE = 1u << 3,/* lo_ns > hi_ns: the causality
                                         * bounds contradict (noise larger
                                         * than the constraint) */
    TLM_COLL_CLOCK_LARGE = 1u << 4,     /* |offset| >= large_ratio x the
                                         * median raw start skew of the
                                         * rank's instances: the raw skews
                                         * are mostly clock error */
    TLM_COLL_CLOCK_NOISY = 1u << 5,     /* residual MAD >= |offset|: the
                                         * offset is not significant */
    TLM_COLL_CLOCK_FEW_SAMPLES = 1u << 6 /* estimated from fewer than
                                         * min_samples instances: not
                                         * applied (offset_ns 0, the
                                         * estimate in end_estimate_ns) */
};

/* Fewest instances behind an applied offset (tlm_coll_clock_opts). */
#define TLM_COLL_CLOCK_MIN_SAMPLES 3

/* Estimated clock of one trace rank. */
typedef struct tlm_coll_clock {
    int32_t trace_rank;
    int32_t domain;          /* clock domain (node); = trace_rank default */
    int32_t reference_rank;  /* anchor of its connected component */
    uint32_t flags;          /* TLM_COLL_CLOCK_* */
    int64_t offset_ns;       /* trace clock - reference clock */
    int64_t end_estimate_ns; /* fitted estimate before clamping */
    int64_t lo_ns;           /* causality bounds on offset_ns given the
                              * other domains' offsets; INT64_MIN/MAX if
                              * unbounded */
    int64_t hi_ns;
    int64_t mad_ns;          /* median |end residual| after correction */
    int64_t median_skew_ns;  /* median raw start skew of its instances */
    int64_t n_samples;       /* instances used */
    int64_t n_causality_violations; /* instances where, after correction,
                              * this rank ends before another starts
                              * (beyond tol_ns) */
    int64_t n_offset_samples; /* instances that span the rank's clock
                              * domain and another: the evidence of its
                              * offset (FEW_SAMPLES below min_samples) */
} tlm_coll_clock;

typedef struct tlm_coll_clock_opts {
    int32_t n_ranks;          /* output size; <= 0: 1 + max trace rank */
    const int32_t *domain_of_rank; /* clock domain by trace rank (ranks on
                                    * one node share a clock); NULL: each
                                    * rank its own domain */
    size_t n_domain_of_rank;
    int32_t reference_rank;   /* anchor (offset 0); default 0; when absent
                               * from a component, the lowest rank of it */
    int64_t min_bytes;        /* use instances with bytes >= min_bytes
                               * (unknown bytes count as 0); default 0 */
    int max_iter;             /* median-polish sweeps; default 10 */
    int64_t tol_ns;           /* causality tolerance; default 1000 */
    double large_ratio;       /* LARGE threshold; default 0.5 */
    const tlm_alloc *alloc;
    int64_t min_samples;      /* an offset from fewer instances spanning
                               * its domain and another is not applied
                               * (offset 0, FEW_SAMPLES); default
                               * TLM_COLL_CLOCK_MIN_SAMPLES, <= 1: always
                               * applied */
} tlm_coll_clock_opts;

TLM_API void tlm_coll_clock_opts_init(tlm_coll_clock_opts *opts);

/* Estimates one offset per clock domain from the end times of complete
 * implicit-sync instances (allreduce, allgather, reducescatter, alltoall(v),
 * barrier; p2p, incomplete and signature-mismatched instances are skipped):
 * model end(c, r) = E_c + theta_domain(r) + noise, a relative problem:
 * only instances spanning two or more domains inform the offsets.
 * Starting values from the median pairwise end differences between
 * domains (a maximum spanning tree of them), refined by median polish
 * (alternating medians over members and over instances) on those
 * instances, anchored at the reference rank's domain in each connected
 * component of the "shares an instance" graph; exact when the ends are.
 * Then each domain's estimate is checked against
 * causality (no rank finishes an instance before another member started
 * it, on corrected clocks): [lo_ns, hi_ns] are the bounds implied by every
 * instance given the other domains' offsets; an estimate outside is clamped
 * (flag CLAMPED).  A domain whose offset rests on fewer than
 * opts->min_samples instances spanning it and another domain keeps offset
 * 0 (its estimate in end_estimate_ns, flag FEW_SAMPLES; the reference of a
 * component is never flagged).  mem: all members of the instances (any order; sorted
 * internally on a copy).  *out: new array of n_ranks entries indexed by
 * trace rank, freed with tlm_coll_free(opts->alloc, *out).  Deterministic
 * and independent of the input order.  Errors: TLM_EINVAL, TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_clock_estimate(const tlm_coll_member *mem,
                                           size_t n_mem,
                                           const tlm_coll_clock_opts *opts,
                                           tlm_coll_clock **out,
                                           size_t *n_out, tlm_error *err);

/* What the offset fit reads of a member (48 bytes against a member's
 * 128): the driver's owners send these to rank 0 (issue 35). */
typedef struct tlm_coll_clock_pt {
    uint64_t match_key;
    int64_t seq;
    int64_t start_ns, end_ns;
    int64_t bytes;
    int32_t trace_rank;
    uint8_t coll, seq_src, sig_mismatch, pad_;
} tlm_coll_clock_pt;

/* The fit's points of n members, in order, into out (room for n). */
TLM_API void tlm_coll_clock_pts_of(const tlm_coll_member *mem, size_t n,
                                   tlm_coll_clock_pt *out);

/* tlm_coll_clock_estimate over points (tlm_coll_clock_pts_of): the same
 * result as over the members they came from. */
TLM_API tlm_status tlm_coll_clock_estimate_pts(const tlm_coll_clock_pt *pts,
                                               size_t n_pts,
                                               const tlm_coll_clock_opts *opts,
                                               tlm_coll_clock **out,
                                               size_t *n_out, tlm_error *err);

/* The members of the instances an offset fit may use (neither INCOMPLETE
 * nor OVERFULL: every member of the group present), copied in order into
 * out (room for res->n_mem).  Returns how many. */
TLM_API size_t tlm_coll_members_complete(const tlm_coll_match_result *res,
                                         tlm_coll_member *out);

/* Copies the offsets of clk into offset_ns[0..n) (by trace rank). */
TLM_API void tlm_coll_clock_offsets(const tlm_coll_clock *clk, size_t n,
                                    int64_t *offset_ns);

/* ------------------------------------------------------------- summaries */

/* Statistics of one metric over a group's instances (the metric's unit;
 * NaN when no value). p95: linear interpolation between order statistics
 * (numpy's default), median likewise. */
typedef struct tlm_coll_stat {
    double mean;
    double median;
    double min;
    double max;
    double p95;
    int64_t n;               /* values used (NaN values skipped) */
} tlm_coll_stat;

/* One row per (pg, collective type, collective name, dtype, bytes). */
typedef struct tlm_coll_summary_row {
    uint64_t pg_hash;
    int64_t bytes;           /* nccl-tests size S; -1 unknown */
    int64_t in_nelems;       /* of the first instance in key order */
    int64_t out_nelems;
    int64_t count;           /* instances used in the statistics */
    int64_t n_incomplete;    /* set aside: INCOMPLETE or OVERFULL */
    int64_t total_latency_ns;/* sum of comm_latency */
    int64_t total_wall_ns;   /* sum of wall (corrected) */
    tlm_coll_stat latency_ns;      /* comm_latency */
    tlm_coll_stat start_skew_ns;   /* raw */
    tlm_coll_stat end_skew_ns;     /* raw */
    tlm_coll_stat start_skew_corr_ns;
    tlm_coll_stat end_skew_corr_ns;
    tlm_coll_stat algbw_gbps;
    tlm_coll_stat busbw_gbps;
    tlm_coll_stat wall_ns;         /* corrected */
    tlm_coll_stat throughput_gbps; /* alltoall(v) */
    tlm_coll_stat send_imbalance;  /* alltoall(v) */
    tlm_coll_stat recv_imbalance;  /* alltoall(v) */
    int64_t n_mismatch;      /* set aside: SIG_ or GROUP_MISMATCH */
    int64_t n_suspect;       /* set aside: LATENCY_SUSPECT */
    int32_t group_size;
    uint8_t coll;
    uint8_t dtype;
    uint8_t reserved_[2];
    char pg_name[TLM_COLL_PG_NAME_LEN];
    char pg_desc[TLM_COLL_NAME_LEN];    /* the first instance's pg_desc */
    char coll_name[TLM_COLL_NAME_LEN];
    char dtype_name[TLM_COLL_DTYPE_LEN];
} tlm_coll_summary_row;

/* Summarises instances (any order; e.g. the concatenation of every owner's
 * instances).  include_incomplete: 0 leaves the instances set aside
 * (tlm_coll_inst_aside) out of count and the statistics; they are counted
 * in n_incomplete, n_mismatch or n_suspect by their reason.  1 uses every
 * instance (the counters still say which are flagged).  *rows:
 * new array sorted by total_latency_ns descending, then by key (pg_hash,
 * coll, coll_name, dtype, bytes); freed with tlm_coll_free(alloc, *rows).
 * Errors: TLM_EINVAL, TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_summarize(const tlm_coll_instance *inst,
                                      size_t n, int include_incomplete,
                                      const tlm_alloc *alloc,
                                      tlm_coll_summary_row **rows,
                                      size_t *n_rows, tlm_error *err);

/* Straggler row: one per (process group, rank), plus one per rank over all
 * groups (overall = 1, pg_hash 0, pg_name "*").  All counters are integer
 * sums, so partial rows from several owners merge exactly. */
typedef struct tlm_coll_straggler_row {
    uint64_t pg_hash;
    int64_t n_instances;      /* complete implicit-sync instances joined */
    int64_t times_last;       /* arrived last (raw clocks), ties shared:
                               * counted only when alone */
    int64_t last_credit_u;    /* arrived-last credit in millionths: 1e6 per
                               * instance, split evenly over tied ranks */
    int64_t times_first;      /* arrived first alone (raw) */
    int64_t wait_suffered_ns; /* sum of own waits (raw) */
    int64_t wait_caused_ns;   /* sum over instances where it was last of the
                               * other members' waits (split over ties) */
    int64_t times_last_corr;  /* same on corrected clocks */
    int64_t last_credit_corr_u;
    int64_t wait_suffered_corr_ns;
    int64_t wait_caused_corr_ns;
    int64_t dur_sum_ns;       /* sum of its member durations */
    int32_t trace_rank;
    int32_t overall;          /* 1: row over all process groups */
    char pg_name[TLM_COLL_PG_NAME_LEN];
} tlm_coll_straggler_row;

/* Computes straggler rows from matched instances and their members (any
 * order; only complete implicit-sync instances with >= 2 members count).
 * *rows: new array sorted by (overall, pg_hash, trace_rank), freed with
 * tlm_coll_free(alloc, *rows). */
TLM_API tlm_status tlm_coll_straggler_compute(
    const tlm_coll_instance *inst, size_t n_inst,
    const tlm_coll_member *mem, size_t n_mem, const tlm_alloc *alloc,
    tlm_coll_straggler_row **rows, size_t *n_rows, tlm_error *err);

/* Merges rows (e.g. several owners' partial tables concatenated) in place:
 * rows with the same (overall, pg_hash, trace_rank) are summed; the result
 * is sorted as above and *n updated. */
TLM_API void tlm_coll_straggler_merge(tlm_coll_straggler_row *rows,
                                      size_t *n);

/* Merges rows b[0..nb) (merged: tlm_coll_straggler_merge) into acc, whose
 * first *n_acc rows are merged and which has room for *n_acc + nb: the
 * same rows as tlm_coll_straggler_merge of both concatenated, in linear
 * time and in place (the driver's rank 0 takes the owners' partial rows
 * one process at a time, issue 35). */
TLM_API void tlm_coll_straggler_merge_into(tlm_coll_straggler_row *acc,
                                           size_t *n_acc,
                                           const tlm_coll_straggler_row *b,
                                           size_t nb);

/* ------------------------------------------------------ TraceLens parity */

/* Parity mode reproduces TraceLens's NcclAnalyser (AMD-AGI/TraceLens
 * 171dd747) as specified in [collectives] §2 and 3.2-3.4:
 * TraceLens sees only the kernels' own args (records flagged KMETA/KPG),
 * ids "<pg>_<k>" by GPU start within (pg, rank) with file-order ties,
 * TraceLens's dtype table, MiB/GiB units, its tie rules, first-row-wins
 * metadata.  Differences: a metadata mismatch is counted (meta_mismatch)
 * instead of aborting. */

/* Per-trace vote deciding the simplified ("inference") mode: OR-reduce over
 * all traces, then simplified = !any_pg && !multi_stream. */
typedef struct tlm_coll_tl_vote {
    int32_t any_pg;       /* some kept kernel carries Process Group Name */
    int32_t multi_stream; /* some rank has > 1 distinct stream */
} tlm_coll_tl_vote;

/* Votes over the records of one trace (several traces are fine when each
 * trace's records are contiguous); ORs into *v, which is not cleared. */
TLM_API void tlm_coll_tl_vote_records(const tlm_coll_record *recs, size_t n,
                                      tlm_coll_tl_vote *v);
TLM_API int tlm_coll_tl_simplified(const tlm_coll_tl_vote *v);

/* One row of the nccl_long sheet (one per TraceLens-kept kernel). */
typedef struct tlm_coll_tl_long_row {
    char collective_id[TLM_COLL_TL_ID_LEN];
    char pg_name[TLM_COLL_PG_NAME_LEN]; /* TraceLens label */
    int64_t index_in_group;
    uint64_t event_index;
    int32_t rank;
    int32_t record;        /* index into the recs array given */
    double in_mib;         /* NaN when None */
    double out_mib;
    double ts_us;
    double dur_us;
} tlm_coll_tl_long_row;

/* One row of nccl_implicit_sync (one per implicit-sync collective id). */
typedef struct tlm_coll_tl_sync_row {
    char collective_id[TLM_COLL_TL_ID_LEN];
    char pg_name[TLM_COLL_PG_NAME_LEN];
    char pg_ranks[TLM_COLL_TEXT_LEN];
    char coll_name[TLM_COLL_NAME_LEN];  /* "" = None */
    char dtype[TLM_COLL_DTYPE_LEN];     /* "" = None */
    int64_t group_size;                 /* -1 = None */
    int64_t in_nelems;                  /* -1 = None */
    int64_t out_nelems;
    double in_mib;                      /* NaN = None */
    double out_mib;
    double full_mib;
    double comm_latency_us;
    double skew_start_us;
    int32_t earliest_arrival_rank;      /* argmax wait; ties: highest rank */
    int32_t last_arrival_rank;          /* argmin wait; ties: lowest rank */
    double avg_wait_us;
    double skew_end_us;
    double algbw_gibps;                 /* NaN = None */
    double busbw_gibps;
    int64_t index_in_group;             /* k of "<pg>_<k>", for sorting */
    int32_t n_ranks;
    int32_t meta_mismatch;              /* fields differing across ranks */
    uint64_t pg_hash;                   /* hash of pg_name (sorting) */
    int32_t first_rank;                 /* lowest member rank and its */
    int32_t reserved2_;
    uint64_t first_event;               /* event_index: where the id first
                                         * appears in nccl_long */
    int64_t mem_off;                    /* after tlm_coll_tl_order: its
                                         * members' first index; -1 */
} tlm_coll_tl_sync_row;

/* Per-rank columns of nccl_implicit_sync (rank_{r}_ts/dur/wait_time). */
typedef struct tlm_coll_tl_sync_member {
    char collective_id[TLM_COLL_TL_ID_LEN];
    uint64_t pg_hash;
    int64_t index_in_group;
    int32_t rank;
    int32_t reserved_;
    double ts_us;
    double dur_us;
    double wait_us;
} tlm_coll_tl_sync_member;

typedef struct tlm_coll_tl_result {
    tlm_coll_tl_long_row *lng;       /* sorted by (rank, event_index) */
    size_t n_long;
    tlm_coll_tl_sync_row *sync;      /* sorted by (pg_hash, pg_name,
                                      * index_in_group) */
    size_t n_sync;
    tlm_coll_tl_sync_member *smem;   /* sorted by (pg_hash, pg_name,
                                      * index_in_group, rank) */
    size_t n_smem;
    const tlm_alloc *alloc;
} tlm_coll_tl_result;

/* TraceLens matching and the implicit-sync table over records that hold
 * every record of each TraceLens PG label (route with
 * tlm_coll_record_tl_owner_key, or give all records).  Records not kept
 * by TraceLens (flag TL_KEPT clear) are ignored.  res is overwritten and
 * released with tlm_coll_tl_result_free().  Errors: TLM_EINVAL,
 * TLM_ENOMEM (res empty). */
TLM_API tlm_status tlm_coll_tl_match(const tlm_coll_record *recs, size_t n,
                                     int simplified, const tlm_alloc *alloc,
                                     tlm_coll_tl_result *res, tlm_error *err);
TLM_API void tlm_coll_tl_result_free(tlm_coll_tl_result *res);

/* TraceLens's order of nccl_implicit_sync (coll_tl_order.c): the rows
 * (any order) put in the order their id first appears in nccl_long
 * (first_rank, first_event); the members (*n_mem of them, any order) laid
 * out row after row in rank order, each row's at mem_off (n_ranks of
 * them; members of no row dropped, *n_mem updated); and each row's
 * last_arrival_rank re-decided as pandas' idxmin over the
 * rank_{r}_wait_time columns does: ties go to the rank whose column comes
 * first (tlm_coll_tl_first_seen over the rows in this order).  Errors:
 * TLM_EINVAL, TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_tl_order(tlm_coll_tl_sync_row *rows, size_t n,
                                     tlm_coll_tl_sync_member *mem,
                                     size_t *n_mem, const tlm_alloc *alloc,
                                     tlm_error *err);

/* The per-rank columns of a TraceLens sheet made from per-row dicts
 * (pandas: the union of keys in first-seen order): ranks[i] is a member
 * of row row[i] (rows non-decreasing, members in rank order); *cols gets
 * the distinct ranks in first-seen order and *batch the row that brought
 * each (TraceLens writes, per such row, the new ranks' first columns, then
 * their later ones: rank_{r}_ts/_dur, then rank_{r}_wait_time).  *n_cols
 * entries, freed with tlm_coll_free(alloc, ...).  Errors: TLM_EINVAL,
 * TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_tl_first_seen(const int32_t *ranks,
                                          const int32_t *row, size_t n,
                                          const tlm_alloc *alloc,
                                          int32_t **cols, int32_t **batch,
                                          size_t *n_cols, tlm_error *err);

/* Sorts rows from several owners into the canonical order above. */
TLM_API void tlm_coll_tl_sync_sort(tlm_coll_tl_sync_row *rows, size_t n);
TLM_API void tlm_coll_tl_smem_sort(tlm_coll_tl_sync_member *m, size_t n);

/* One row of nccl_summary_implicit_sync (agg mean/median/min/max;
 * std is the sample standard deviation, NaN for one value). */
typedef struct tlm_coll_tl_agg {
    double mean, median, min, max, std;
} tlm_coll_tl_agg;

typedef struct tlm_coll_tl_summary_row {
    char coll_name[TLM_COLL_NAME_LEN];  /* "Unknown" when None */
    char dtype[TLM_COLL_DTYPE_LEN];     /* "Unknown" when None */
    char in_nelems[24];                 /* text key; "Unknown" when None */
    char pg_name[TLM_COLL_PG_NAME_LEN]; /* first of group */
    int64_t group_size;                 /* first; -1 None */
    double full_mib;                    /* first; NaN None */
    tlm_coll_tl_agg comm_latency_us;
    tlm_coll_tl_agg skew_start_us;
    tlm_coll_tl_agg skew_end_us;
    tlm_coll_tl_agg algbw_gibps;        /* NaN aggs when all NaN */
    tlm_coll_tl_agg busbw_gibps;
    int64_t count;
    double total_comm_latency_ms;
} tlm_coll_tl_summary_row;

/* nccl_summary_implicit_sync from all sync rows.  Groups by
 * (collective name, dtype, In msg nelems) across process groups, as
 * TraceLens does; "first" columns take the first non-null value in the
 * order given (TraceLens's, order of appearance: tlm_coll_tl_order).  Rows
 * sorted by total_comm_latency_ms descending, ties in key order.  *out
 * freed with tlm_coll_free(alloc, *out). */
TLM_API tlm_status tlm_coll_tl_summary(const tlm_coll_tl_sync_row *rows,
                                       size_t n, const tlm_alloc *alloc,
                                       tlm_coll_tl_summary_row **out,
                                       size_t *n_out, tlm_error *err);

/* One row of straggler_summary. */
typedef struct tlm_coll_tl_straggler_row {
    int32_t rank;
    int32_t reserved_;
    double total_wait_time_us;  /* rounded to 0.1 */
    double mean_wait_time_us;   /* rounded to 0.1 */
    int64_t times_arrived_last;
    int64_t times_arrived_first;
    double pct_arrived_last;    /* rounded to 0.1 */
    int64_t num_collectives;
    double total_nccl_dur_us;   /* rounded to 0.1 */
} tlm_coll_tl_straggler_row;

/* Sum of kernel durations (µs) per rank over every TraceLens-kept kernel
 * (any type): total_nccl_dur_us input.  dur_us[0..n_ranks) is added to
 * (not cleared), so per-trace calls accumulate. */
TLM_API void tlm_coll_tl_rank_dur(const tlm_coll_record *recs, size_t n,
                                  double *dur_us, size_t n_ranks);

/* Same into dur_us[k] for rank ranks[k] (ascending, distinct; n_ranks
 * entries; other ranks left out).  ranks NULL: as above. */
TLM_API void tlm_coll_tl_rank_dur_by(const tlm_coll_record *recs, size_t n,
                                     const int32_t *ranks, double *dur_us,
                                     size_t n_ranks);

/* straggler_summary from all sync rows and their members (any order),
 * one row per rank present, sorted by total_wait_time_us ascending (stable
 * in rank order).  rank_dur (may be NULL: NaN) gives total_nccl_dur_us by
 * rank.  *out freed with tlm_coll_free(alloc, *out). */
TLM_API tlm_status tlm_coll_tl_straggler(
    const tlm_coll_tl_sync_row *rows, size_t n_rows,
    const tlm_coll_tl_sync_member *mem, size_t n_mem,
    const double *rank_dur_us, size_t n_rank_dur, const tlm_alloc *alloc,
    tlm_coll_tl_straggler_row **out, size_t *n_out, tlm_error *err);

/* Same with rank_dur_us[k] the duration of rank dur_ranks[k] (ascending,
 * distinct; n_rank_dur entries).  dur_ranks NULL: by rank, as above.
 * Memory by the ranks present, never by the highest rank. */
TLM_API tlm_status tlm_coll_tl_straggler_by(
    const tlm_coll_tl_sync_row *rows, size_t n_rows,
    const tlm_coll_tl_sync_member *mem, size_t n_mem,
    const int32_t *dur_ranks, const double *rank_dur_us, size_t n_rank_dur,
    const tlm_alloc *alloc, tlm_coll_tl_straggler_row **out, size_t *n_out,
    tlm_error *err);

/* One row of nccl_summary_long ([collectives] 3.5): per (rank, PG
 * name, PG ranks, collective name, group size, dtype, in/out nelems, in/out
 * split, stream) over the kernels TraceLens keeps; groups with any missing
 * key are dropped (pandas dropna), so only kernels carrying their metadata
 * (KMETA and KPG) count. */
typedef struct tlm_coll_tl_long_summary_row {
    int32_t rank;
    int32_t reserved_;
    char pg_name[TLM_COLL_PG_NAME_LEN];
    char pg_ranks[TLM_COLL_TEXT_LEN];
    char coll_name[TLM_COLL_NAME_LEN];
    int64_t group_size;
    char dtype[TLM_COLL_DTYPE_LEN];
    int64_t in_nelems;
    int64_t out_nelems;
    char in_split[TLM_COLL_SPLIT_LEN];
    char out_split[TLM_COLL_SPLIT_LEN];
    int64_t stream;
    double in_mib_first;    /* NaN when the dtype is not in TraceLens's
                             * table */
    double out_mib_first;
    double dur_sum_us;
    double dur_mean_us;
    double dur_std_us;      /* sample std; NaN for one kernel */
    double dur_min_us;
    double dur_max_us;
    int64_t operation_count;
} tlm_coll_tl_long_summary_row;

/* nccl_summary_long over records of any ranks (the driver calls it on all
 * records of the job).  Sorted by dur_sum_us descending, then by key.
 * *out freed with tlm_coll_free(alloc, *out). */
TLM_API tlm_status tlm_coll_tl_long_summary(
    const tlm_coll_record *recs, size_t n, const tlm_alloc *alloc,
    tlm_coll_tl_long_summary_row **out, size_t *n_out, tlm_error *err);

/* ---------------------------------------- exposed transfer and waiting */

/* One rank's part in one instance, as the split of its exposed
 * communication needs it (times on the rank's own clock, ns). */
typedef struct tlm_coll_xspan {
    int64_t start_ns, end_ns; /* the member's kernels, first start to last
                               * end */
    int64_t wait_ns;          /* the instance's last start (corrected
                               * clocks) - start: wait_corr_ns */
    int32_t trace_rank;
    int32_t known;            /* 1: the instance's latency is known (every
                               * member present); 0: unknown */
} tlm_coll_xspan;

/* A rank's exposed communication split (ns): transfer + waiting +
 * unknown = the exposed communication the split was given. */
typedef struct tlm_coll_xsplit {
    int64_t transfer_ns; /* inside a known member after the last start */
    int64_t waiting_ns;  /* inside a known member before the last start,
                          * and not in any transfer or unknown span */
    int64_t unknown_ns;  /* the rest: unknown members, unmatched kernels */
} tlm_coll_xsplit;

/* Splits one rank's exposed communication x (n_x sorted, disjoint [s, e)
 * pairs, x[2i], x[2i + 1]) by the rank's members m[0..n_m) (any order;
 * their trace_rank is not looked at): a time of x is transfer when some
 * known member is in [start + wait, end], else unknown when some unknown
 * member spans it, else waiting when some known member is in
 * [start, start + wait), else unknown (docs/metrics-collectives.md,
 * "Exposed transfer and waiting").  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_coll_exposed_split(const int64_t *x, size_t n_x,
                                          const tlm_coll_xspan *m,
                                          size_t n_m, tlm_coll_xsplit *out);

#ifdef __cplusplus
}
#endif
#endif /* TLM_COLL_H */
