/*
 * tlm_trace.h - streaming reader for PyTorch profiler (Kineto / Chrome
 * trace) JSON files, plain or gzip-compressed.
 *
 * One pass over the input: the file is read (and inflated, for gzip input,
 * recognised by its magic bytes; multi-member gzip works) in fixed chunks and
 * tokenized by a parser specialised for Chrome-trace JSON.  There is never a
 * DOM of the document, and never the whole file in memory.
 *
 * Accepted documents: a top-level object with "traceEvents" anywhere among
 * its keys, or a bare top-level array of events.  Known top-level metadata
 * keys (distributedInfo, deviceProperties, baseTimeNanoseconds,
 * schemaVersion, traceName, ...) are kept; unknown keys are skipped.
 *
 * Each event becomes a compact tlm_event in the trace's arena:
 *   - ts and dur are int64 nanoseconds parsed exactly from the decimal
 *     microseconds of the JSON (no floating-point round trip; digits beyond
 *     the nanosecond are rounded half to even);
 *   - names, categories, string pids/tids and text arguments are interned:
 *     a 32-bit id, resolvable with tlm_trace_str();
 *   - the arguments later analyses use are kept in a compact per-event list
 *     (tlm_event_arg*), typed integers or compact text.
 *
 * Ownership: a tlm_trace owns every event, string and argument it returns;
 * all of it is released by tlm_trace_free().  Pointers returned by accessors
 * stay valid until then.  Not thread-safe per trace.
 */
#ifndef TLM_TRACE_H
#define TLM_TRACE_H

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Event categories with a fixed id.  X(enum, "cat string").  Events whose
 * "cat" is absent get TLM_CAT_NONE; any other string TLM_CAT_OTHER (its
 * text is still available through tlm_event.cat_str). */
#define TLM_CAT_LIST(X)                              \
    X(TLM_CAT_NONE, "")                              \
    X(TLM_CAT_CPU_OP, "cpu_op")                      \
    X(TLM_CAT_PYTHON_FUNCTION, "python_function")    \
    X(TLM_CAT_USER_ANNOTATION, "user_annotation")    \
    X(TLM_CAT_CUDA_RUNTIME, "cuda_runtime")          \
    X(TLM_CAT_CUDA_DRIVER, "cuda_driver")            \
    X(TLM_CAT_KERNEL, "kernel")                      \
    X(TLM_CAT_GPU_MEMSET, "gpu_memset")              \
    X(TLM_CAT_GPU_MEMCPY, "gpu_memcpy")              \
    X(TLM_CAT_GPU_USER_ANNOTATION, "gpu_user_annotation") \
    X(TLM_CAT_AC2G, "ac2g")                          \
    X(TLM_CAT_FWDBWD, "fwdbwd")                      \
    X(TLM_CAT_CPU_INSTANT_EVENT, "cpu_instant_event") \
    X(TLM_CAT_TRACE, "Trace")                        \
    X(TLM_CAT_OTHER, NULL)

typedef enum tlm_cat {
#define TLM_X_(e, s) e,
    TLM_CAT_LIST(TLM_X_)
#undef TLM_X_
    TLM_CAT_COUNT
} tlm_cat;

/* "cpu_op" for TLM_CAT_CPU_OP, "" for NONE, NULL for OTHER/out of range. */
TLM_API const char *tlm_cat_name(tlm_cat cat);

/* Argument keys kept from "args".  X(enum, "JSON key").  Values are stored
 * as TLM_ARGV_INT when the JSON value is an integer that fits int64, else as
 * interned compact text (strings unescaped; numbers, arrays, objects, true,
 * false and null as compact JSON text without whitespace). */
#define TLM_ARG_LIST(X)                                            \
    X(TLM_ARG_EXTERNAL_ID, "External id")                          \
    X(TLM_ARG_CORRELATION, "correlation")                          \
    X(TLM_ARG_PYTHON_ID, "Python id")                              \
    X(TLM_ARG_PYTHON_PARENT_ID, "Python parent id")                \
    X(TLM_ARG_PYTHON_MODULE_ID, "Python module id")                \
    X(TLM_ARG_STREAM, "stream")                                    \
    X(TLM_ARG_DEVICE, "device")                                    \
    X(TLM_ARG_SEQUENCE_NUMBER, "Sequence number")                  \
    X(TLM_ARG_FWD_THREAD_ID, "Fwd thread id")                      \
    X(TLM_ARG_EV_IDX, "Ev Idx")                                    \
    X(TLM_ARG_RECORD_FUNCTION_ID, "Record function id")            \
    X(TLM_ARG_GRID, "grid")                                        \
    X(TLM_ARG_BLOCK, "block")                                      \
    X(TLM_ARG_INPUT_DIMS, "Input Dims")                            \
    X(TLM_ARG_INPUT_TYPE, "Input type")                            \
    X(TLM_ARG_INPUT_STRIDES, "Input Strides")                      \
    X(TLM_ARG_CONCRETE_INPUTS, "Concrete Inputs")                  \
    X(TLM_ARG_KERNEL_FILE, "kernel_file")                          \
    X(TLM_ARG_BYTES, "bytes")                                      \
    X(TLM_ARG_MEMORY_BANDWIDTH, "memory bandwidth (GB/s)")         \
    X(TLM_ARG_KIND, "kind")                                        \
    X(TLM_ARG_CBID, "cbid")                                        \
    X(TLM_ARG_COLLECTIVE_NAME, "Collective name")                  \
    X(TLM_ARG_IN_MSG_NELEMS, "In msg nelems")                      \
    X(TLM_ARG_OUT_MSG_NELEMS, "Out msg nelems")                    \
    X(TLM_ARG_GROUP_SIZE, "Group size")                            \
    X(TLM_ARG_DTYPE, "dtype")                                      \
    X(TLM_ARG_IN_SPLIT_SIZE, "In split size")                      \
    X(TLM_ARG_OUT_SPLIT_SIZE, "Out split size")                    \
    X(TLM_ARG_PG_NAME, "Process Group Name")                       \
    X(TLM_ARG_PG_DESC, "Process Group Description")                \
    X(TLM_ARG_PG_RANKS, "Process Group Ranks")                     \
    X(TLM_ARG_PG_ID, "Process Group ID")                           \
    X(TLM_ARG_RANK, "Rank")                                        \
    X(TLM_ARG_GLOBAL_RANK_START, "Global rank start")              \
    X(TLM_ARG_GLOBAL_RANK_STRIDE, "Global rank stride")            \
    X(TLM_ARG_SEQ, "Seq")                                          \
    X(TLM_ARG_COMMS_ID, "Comms Id")                                \
    X(TLM_ARG_SRC_RANK, "Src Rank")                                \
    X(TLM_ARG_DST_RANK, "Dst Rank")                                \
    X(TLM_ARG_IN_TENSORS_START, "Input Tensors start")             \
    X(TLM_ARG_OUT_TENSORS_START, "Output Tensors start")           \
    X(TLM_ARG_NAME, "name")                                        \
    X(TLM_ARG_LABELS, "labels")                                    \
    X(TLM_ARG_SORT_INDEX, "sort_index")

typedef enum tlm_arg {
    TLM_ARG_END_ = 0, /* internal terminator, never a key */
#define TLM_X_(e, s) e,
    TLM_ARG_LIST(TLM_X_)
#undef TLM_X_
    TLM_ARG_COUNT
} tlm_arg;

/* JSON key of an argument ("External id"); NULL when out of range. */
TLM_API const char *tlm_arg_key(tlm_arg key);

/* Event flags (tlm_event.flags). */
enum {
    TLM_EV_HAS_TS = 1u << 0,    /* "ts" present */
    TLM_EV_HAS_DUR = 1u << 1,   /* "dur" present */
    TLM_EV_PID_STR = 1u << 2,   /* pid is an interned string id */
    TLM_EV_TID_STR = 1u << 3,   /* tid is an interned string id */
    TLM_EV_HAS_ID = 1u << 4,    /* flow "id" present (tlm_event_flow_id) */
    TLM_EV_ID_STR = 1u << 5,    /* flow id is an interned string id */
    TLM_EV_BP_E = 1u << 6,      /* "bp":"e" (enclosing-slice binding) */
    TLM_EV_HAS_PID = 1u << 7    /* pid present (tid: tlm_event.has_tid) */
};

/* One trace event: 32 bytes.  UID = its index in tlm_trace_events(). */
/* tlm_event.tflags: "ts" / "dur" was a JSON integer token (no '.', no
 * exponent), which Python keeps as an int (spec addendum §A1);
 * TLM_EVT_DUR_WIDE: dur_ is an index into the process's table of wide
 * values (tlm_event_wide), the duration not fitting 32 bits. */
enum {
    TLM_EVT_TS_INT = 1u << 0,
    TLM_EVT_DUR_INT = 1u << 1,
    TLM_EVT_DUR_WIDE = 1u << 2
};

/* The flow "id" of s/f/t events is not a field: it is kept with the
 * event's arguments (tlm_event_flow_id), so that the 190,000 flow events
 * of a large trace do not give every other event 8 bytes more.  pid and
 * tid are one 32-bit index of a (pid, tid) pair the process keeps once
 * (a trace has a few dozen), the duration 32 bits unless wide. */
typedef struct tlm_event {
    int64_t ts;       /* ns; 0 unless TLM_EV_HAS_TS */
    int32_t dur_;     /* ns: read with tlm_ev_dur, set with tlm_ev_set_dur */
    uint32_t track;   /* (pid, tid): tlm_ev_pid / tlm_ev_tid; 0 = (0, 0) */
    uint32_t args;    /* handle of the kept args (and flow id); 0 = none */
    uint32_t name;    /* interned "name"; 0 = absent */
    uint32_t cat_str; /* interned "cat"; 0 = absent */
    uint8_t cat;      /* tlm_cat */
    char ph;          /* 'X', 'B', 'E', 'i', 's', 'f', 'M', ...; 0 = absent */
    uint8_t flags;    /* TLM_EV_* */
    uint8_t has_tid : 1; /* 1 when "tid" present */
    uint8_t tflags : 7;  /* TLM_EVT_* */
} tlm_event;

/* The value of a wide duration (TLM_EVT_DUR_WIDE): the process keeps each
 * distinct value that does not fit 32 bits once, for its lifetime. */
TLM_API int64_t tlm_event_wide(int32_t index);

/* The (pid, tid) pair of a track index: the process keeps each distinct
 * pair once, for its lifetime; index 0 is (0, 0). */
TLM_API const int64_t *tlm_event_track(uint32_t track);

/* Set ev's pid / tid (a number, or a string id when TLM_EV_PID_STR /
 * TLM_EV_TID_STR is set) and duration (ns, without the flag
 * TLM_EV_HAS_DUR, which the caller sets); TLM_ENOMEM when a new pair or
 * wide value cannot be kept. */
TLM_API tlm_status tlm_ev_set_pid(tlm_event *ev, int64_t v);
TLM_API tlm_status tlm_ev_set_tid(tlm_event *ev, int64_t v);
TLM_API tlm_status tlm_ev_set_dur(tlm_event *ev, int64_t v);

/* The event's pid: a number, or a string id when TLM_EV_PID_STR. */
static inline int64_t tlm_ev_pid(const tlm_event *ev)
{
    return ev->track ? tlm_event_track(ev->track)[0] : 0;
}

/* The event's tid: a number, or a string id when TLM_EV_TID_STR. */
static inline int64_t tlm_ev_tid(const tlm_event *ev)
{
    return ev->track ? tlm_event_track(ev->track)[1] : 0;
}

/* The event's duration in ns; 0 unless TLM_EV_HAS_DUR. */
static inline int64_t tlm_ev_dur(const tlm_event *ev)
{
    return (ev->tflags & TLM_EVT_DUR_WIDE) ? tlm_event_wide(ev->dur_)
                                           : (int64_t)ev->dur_;
}

/* Type of an argument value. */
typedef enum tlm_argv_type {
    TLM_ARGV_NONE = 0, /* not present */
    TLM_ARGV_INT = 1,  /* JSON integer that fits int64 */
    TLM_ARGV_STR = 2   /* interned text (see TLM_ARG_LIST) */
} tlm_argv_type;

typedef struct tlm_argv {
    tlm_argv_type type;
    int64_t i;        /* TLM_ARGV_INT */
    uint32_t str;     /* TLM_ARGV_STR: interned id */
} tlm_argv;

/* Per-trace metadata from the top-level object. */
typedef struct tlm_pg_config {
    uint32_t pg_name;     /* interned; 0 if absent */
    uint32_t pg_desc;     /* interned; 0 if absent */
    uint32_t backend_config; /* interned; 0 if absent */
    int64_t pg_size;      /* -1 if absent */
    int64_t uid;          /* -1 if absent */
    uint32_t ranks_text;  /* interned compact text of "ranks"; 0 if absent */
    int32_t *ranks;       /* parsed global ranks (n_ranks), may be NULL */
    size_t n_ranks;
} tlm_pg_config;

typedef struct tlm_trace_meta {
    int has_distributed;  /* distributedInfo present */
    int64_t rank;         /* distributedInfo.rank; -1 if absent */
    int64_t world_size;   /* distributedInfo.world_size; -1 if absent */
    int64_t pg_count;     /* distributedInfo.pg_count; -1 if absent */
    uint32_t backend;     /* interned; 0 if absent */
    uint32_t nccl_version;/* interned; 0 if absent */
    tlm_pg_config *pgs;   /* distributedInfo.pg_config entries */
    size_t n_pgs;
    int has_base_time;
    int64_t base_time_ns; /* baseTimeNanoseconds */
    int64_t schema_version; /* -1 if absent */
    uint32_t trace_name;  /* interned; 0 if absent */
    uint32_t device_properties; /* interned compact JSON text; 0 if absent */
    int has_trace_events; /* "traceEvents" (or a bare array) seen */
} tlm_trace_meta;

/* Reader statistics. */
typedef struct tlm_read_stats {
    uint64_t bytes_in;     /* bytes read from the file (compressed size) */
    uint64_t bytes_json;   /* bytes of JSON (decompressed) tokenized */
    uint64_t n_events;     /* events seen in traceEvents */
    int gzip;              /* input was gzip */
    uint32_t gzip_members; /* gzip members inflated */
    uint64_t n_lone_surrogates; /* \uD800-\uDFFF escapes without their
                                 * pair, replaced by U+FFFD in the strings
                                 * decoded (names, categories, string
                                 * args; compact JSON keeps escapes) */
} tlm_read_stats;

typedef struct tlm_trace tlm_trace;

/* Called once per event while reading, in file order.  Return TLM_OK to go
 * on; any other status stops the read with that status (the callback may
 * fill err first; otherwise the reader fills in a generic message).  The
 * event pointer is valid only during the call when keep_events == 0. */
typedef tlm_status (*tlm_event_cb)(void *ud, tlm_trace *trace,
                                   const tlm_event *ev, uint64_t index,
                                   tlm_error *err);

typedef struct tlm_read_opts {
    size_t chunk_size;       /* bytes read / inflated per step; 0 = 1 MiB */
    unsigned max_depth;      /* JSON nesting bound; 0 = 64 */
    size_t max_string;       /* longest string, bytes; 0 = 16 MiB */
    size_t max_event_bytes;  /* largest single event/value; 0 = 256 MiB */
    uint64_t max_events;     /* 0 = unlimited */
    int keep_events;         /* 1: keep all events (tlm_trace_events) */
    tlm_event_cb on_event;   /* optional, may be NULL */
    void *on_event_ud;
    const tlm_alloc *alloc;  /* NULL = default */
    int serial_inflate;      /* 1: inflate gzip (read a plain file) in the
                                calling thread; 0: in a helper thread when
                                chunk_size >= 64 KiB (the allocator must
                                then be thread-safe) */
    /* Optional, with on_event and keep_events: called (with on_event_ud)
     * with TLM_MOVE_BEGIN before the reader moves an array that delivered
     * events use (the kept events, the argument blob, the table of
     * interned strings), TLM_MOVE_END after, and TLM_MOVE_FREE before a
     * failed read frees them (no END follows).  Lets another thread read
     * delivered events while the trace is still being read (see
     * tlm_tree_stream_new). */
    void (*on_move)(void *ud, int phase);
    /* 1: process-group rank lists (distributedInfo.pg_config) parsed once
     * per distinct list per process and kept, for a process that reads
     * many traces of one job; freed by tlm_trace_caches_free */
    int share_pg_ranks;
    /* Arguments not to keep: bit k set drops key k (1ull << TLM_ARG_*),
     * skipped like an unknown key; 0 = keep all.  For a reader that knows
     * which arguments it will ask for (tlmpi report: TLM_ARGS_UNREAD). */
    uint64_t drop_args;
    /* 1: for a plain file of 16 MiB or more read with the helper thread
     * (not serial_inflate), with keep_events and no max_events, a second
     * thread parses two of every three blocks of the events array, which
     * this one takes over in order: the same trace and errors as one
     * parser, in less wall time where two CPUs are free; 0 (the default):
     * one parser */
    int parse_helper;
} tlm_read_opts;

/* The arguments no analysis of tlmpi reads (kept by default for callers
 * of the library): tlmpi report drops them (tlm_read_opts.drop_args). */
#define TLM_ARGS_UNREAD                                                   \
    ((1ull << TLM_ARG_PYTHON_ID) | (1ull << TLM_ARG_PYTHON_PARENT_ID) |   \
     (1ull << TLM_ARG_PYTHON_MODULE_ID) | (1ull << TLM_ARG_DEVICE) |      \
     (1ull << TLM_ARG_FWD_THREAD_ID) | (1ull << TLM_ARG_EV_IDX) |         \
     (1ull << TLM_ARG_RECORD_FUNCTION_ID) | (1ull << TLM_ARG_GRID) |      \
     (1ull << TLM_ARG_BLOCK) | (1ull << TLM_ARG_KERNEL_FILE) |            \
     (1ull << TLM_ARG_MEMORY_BANDWIDTH) | (1ull << TLM_ARG_KIND) |        \
     (1ull << TLM_ARG_CBID) | (1ull << TLM_ARG_COMMS_ID) |                \
     (1ull << TLM_ARG_IN_TENSORS_START) |                                 \
     (1ull << TLM_ARG_OUT_TENSORS_START) | (1ull << TLM_ARG_SORT_INDEX))

enum { TLM_MOVE_END = 0, TLM_MOVE_BEGIN = 1, TLM_MOVE_FREE = 2 };

/* Fills opts with the defaults (keep_events = 1). */
TLM_API void tlm_read_opts_init(tlm_read_opts *opts);
/* Frees what reads with share_pg_ranks kept (thread-safe; reads may
 * follow and fill it again). */
TLM_API void tlm_trace_caches_free(void);

/* Reads the trace at path (JSON or gzip'd JSON, by magic bytes).
 * opts may be NULL (defaults).  On success *out is a new trace the caller
 * frees with tlm_trace_free().  On failure *out is NULL and err says why. */
TLM_API tlm_status tlm_trace_read_file(const char *path,
                                       const tlm_read_opts *opts,
                                       tlm_trace **out, tlm_error *err);

/* Same, from memory.  name is used in error messages (may be NULL).  The
 * buffer is not retained. */
TLM_API tlm_status tlm_trace_read_mem(const void *data, size_t size,
                                      const char *name,
                                      const tlm_read_opts *opts,
                                      tlm_trace **out, tlm_error *err);

/* Releases the trace and everything it owns.  NULL is allowed. */
TLM_API void tlm_trace_free(tlm_trace *trace);

/* Events kept (opts.keep_events); *n receives their count.  NULL/0 when
 * events were not kept. */
TLM_API const tlm_event *tlm_trace_events(const tlm_trace *trace,
                                          size_t *n);

TLM_API const tlm_trace_meta *tlm_trace_meta_get(const tlm_trace *trace);
TLM_API const tlm_read_stats *tlm_trace_stats(const tlm_trace *trace);

/* Name of the file the trace came from ("" for memory without a name). */
TLM_API const char *tlm_trace_path(const tlm_trace *trace);

/* Interned string by id; id 0 is "".  *len (may be NULL) gets the length.
 * Strings are NUL-terminated and may contain NUL bytes from \u0000. */
TLM_API const char *tlm_trace_str(const tlm_trace *trace, uint32_t id,
                                  size_t *len);

/* Deterministic 64-bit hash of an interned string (tlm_hash64). */
TLM_API uint64_t tlm_trace_str_hash(const tlm_trace *trace, uint32_t id);

/* Number of interned strings (ids are 0 .. count-1). */
TLM_API uint32_t tlm_trace_str_count(const tlm_trace *trace);

/* Looks up a string without adding it: its id, or 0 if never seen. */
TLM_API uint32_t tlm_trace_str_find(const tlm_trace *trace, const char *s,
                                    size_t len);

/* Interns a string into the trace (e.g. for derived names).  Returns its
 * id, or 0 with TLM_ENOMEM in *st when out of memory. */
TLM_API uint32_t tlm_trace_str_intern(tlm_trace *trace, const char *s,
                                      size_t len, tlm_status *st);

/* Appends a synthetic event after the trace's own (it gets the next UID,
 * written to *uid when uid is not NULL), with the given arguments stored
 * as the reader stores kept ones (ev->args is ignored).  The trace must
 * have kept its events.  Pointers from tlm_trace_events() are invalid
 * afterwards.  Errors: TLM_EINVAL (no kept events, a bad key or value
 * type), TLM_ENOMEM. */
TLM_API tlm_status tlm_trace_append_event(tlm_trace *trace,
                                          const tlm_event *ev,
                                          const tlm_arg *keys,
                                          const tlm_argv *vals,
                                          size_t n_args, uint64_t *uid,
                                          tlm_error *err);

/* Gives event uid the interned name id (TraceLens's renaming of
 * `sglang_profiler::<op>_<n>` ops under --enable_pseudo_ops).  Errors:
 * TLM_EINVAL (uid or name out of range). */
TLM_API tlm_status tlm_trace_rename_event(tlm_trace *trace, uint64_t uid,
                                          uint32_t name, tlm_error *err);

/* 1 when the event is a GPU op: a kernel, gpu_memset or gpu_memcpy with a
 * valid time (ts and dur present, dur >= 0). */
TLM_API int tlm_event_is_gpu(const tlm_event *ev);

/* Argument of an event.  Returns the value's type (TLM_ARGV_NONE when the
 * event does not carry the key); *out (may be NULL) gets the value. */
TLM_API tlm_argv_type tlm_event_arg(const tlm_trace *trace,
                                    const tlm_event *ev, tlm_arg key,
                                    tlm_argv *out);

/* Integer argument: 1 and *out set when present as an integer, else 0. */
TLM_API int tlm_event_arg_int(const tlm_trace *trace, const tlm_event *ev,
                              tlm_arg key, int64_t *out);

/* Text argument: the interned text (NUL-terminated) when stored as text,
 * else NULL.  *len may be NULL. */
TLM_API const char *tlm_event_arg_str(const tlm_trace *trace,
                                      const tlm_event *ev, tlm_arg key,
                                      size_t *len);

/* grid/block as three integers: 1 when the arg is a 3-element integer
 * array, else 0. */
TLM_API int tlm_event_arg_dim3(const tlm_trace *trace, const tlm_event *ev,
                               tlm_arg key, int64_t xyz[3]);

/* Iterates over every kept argument of an event: call with *it = 0 first;
 * returns 1 and fills *key and *val per argument, 0 at the end. */
TLM_API int tlm_event_arg_next(const tlm_trace *trace, const tlm_event *ev,
                               uint64_t *it, tlm_arg *key, tlm_argv *val);

/* Flow "id" of an event (s/f/t): 1 and *out (may be NULL) set when
 * TLM_EV_HAS_ID (a number, or an interned string id when TLM_EV_ID_STR),
 * else 0.  ev must be an event of this trace: a kept one, or the one an
 * on_event callback is given, during the call. */
TLM_API int tlm_event_flow_id(const tlm_trace *trace, const tlm_event *ev,
                              int64_t *out);

/* Exact parse of a decimal JSON number of microseconds into nanoseconds,
 * rounding half to even beyond the nanosecond.  Accepts JSON number syntax
 * (sign, fraction, exponent).  Returns TLM_OK, TLM_EFORMAT (not a number)
 * or TLM_ERANGE (does not fit int64). */
TLM_API tlm_status tlm_parse_us_to_ns(const char *s, size_t len,
                                      int64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* TLM_TRACE_H */
