/*
 * tlm_tree.h - Trace2Tree: host call stacks and launch -> GPU links over the
 * events of one trace (TraceLens's TraceToTree, [perfreport] §2).
 *
 * The tree is one compact record per event UID (the index in
 * tlm_trace_events()): parent, first child, next sibling, flags, and for
 * every node the range of linked GPU events below it.  No per-node
 * allocation: building costs O(n) memory (24 bytes per event, plus 20
 * per linked GPU event) and one sort of the host events of each thread.
 *
 * What is built (§2.2-§2.4):
 *   - host call stacks per raw (pid, tid) from timestamps: events with cat
 *     cpu_op, cuda_runtime, cuda_driver (and python_function when
 *     opts.python_functions), stable-sorted by ts; an event that starts at or
 *     after the top's end pops it (touching = sibling); an event that ends
 *     after the top's end "bleeds": popped to sibling when the overlap is
 *     < 1 us and the stack holds >= 2 events, else dropped from the tree;
 *   - runtime (launch) events linked to their GPU events (kernel,
 *     gpu_memset, gpu_memcpy) through ac2g flow pairs, the flow's target
 *     found by (pid, tid, link id) among GPU events only; graph launches
 *     (cudaGraphLaunch / hipGraphLaunch) own every GPU event with their
 *     link id; optionally a launch without flows is linked to the GPU
 *     event(s) carrying its link id (correlation fallback);
 *   - forward/backward links by "Sequence number".
 * Malformed input (flows whose target is not a GPU event, duplicate links,
 * GPU events without a launch, events without ts/dur) is counted in
 * tlm_tree_stats, never an error.
 *
 * Ownership: the tree refers to (does not copy) the trace, which must
 * outlive it.  tlm_tree_free() releases everything the tree allocated.
 * Not thread-safe per tree (busy-time scratch is shared).
 */
#ifndef TLM_TREE_H
#define TLM_TREE_H

#include <stdio.h>

#include "tlm_common.h"
#include "tlm_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Node flags (tlm_tree_flags). */
enum {
    TLM_NODE_TREE = 1u << 0,     /* placed in the tree (host or linked GPU) */
    TLM_NODE_CPU_ROOT = 1u << 1, /* outermost cpu_op of its thread stack */
    TLM_NODE_GPU = 1u << 2,      /* kernel / gpu_memset / gpu_memcpy */
    TLM_NODE_RUNTIME = 1u << 3,  /* cuda_runtime / cuda_driver */
    TLM_NODE_BLEED_DROP = 1u << 4, /* dropped by the bleed rule */
    TLM_NODE_NN_MODULE = 1u << 5,  /* python_function "nn.Module: ..." */
    TLM_NODE_GRAPH_LAUNCH = 1u << 6, /* cudaGraphLaunch / hipGraphLaunch */
    TLM_NODE_HOST = 1u << 7      /* participates in the host stacks */
};

typedef struct tlm_tree_opts {
    int python_functions;  /* 1: python_function events join the stacks */
    int bleed_tolerance;   /* 1: upstream #904: an event ending < 1 us after
                              the top's end is nested, not bleeding */
    int corr_fallback;     /* 1: link launches without ac2g flows by their
                              link id (TraceLens leaves them unlinked) */
    int threads;           /* 2: link launches to GPU events and forward to
                              backward ops in a second thread while the
                              host stacks are built (the same tree) */
} tlm_tree_opts;

/* Defaults: python_functions 0, bleed_tolerance 0, corr_fallback 1,
 * threads 1. */
TLM_API void tlm_tree_opts_init(tlm_tree_opts *opts);

/* Counters of what was built and of odd input (warnings). */
typedef struct tlm_tree_stats {
    uint64_t n_events;          /* events of the trace */
    uint64_t n_host;            /* host events considered for the stacks */
    uint64_t n_cpu_roots;
    uint64_t n_gpu;             /* GPU events */
    uint64_t n_gpu_linked;      /* GPU events with a launch */
    uint64_t n_runtime;         /* runtime events */
    uint64_t n_graph_launches;
    uint64_t n_bleed_sibling;   /* bleed rule: popped, made a sibling */
    uint64_t n_bleed_drop;      /* warning: dropped by the bleed rule */
    uint64_t n_no_time;         /* warning: host X or GPU event without a
                                 * valid time (ts or dur missing, dur < 0):
                                 * left out of the tree and the tables */
    uint64_t n_flow_bad_target; /* warning: flow target not a GPU event */
    uint64_t n_flow_half;       /* warning: only one of the s/f pair */
    uint64_t n_gpu_dup_link;    /* warning: GPU event claimed twice */
    uint64_t n_gpu_unlinked;    /* warning: GPU event with no launch */
    uint64_t n_corr_fallback;   /* links made by the correlation fallback */
    uint64_t n_fwd_bwd;         /* forward/backward pairs linked */
    int link_key;               /* TLM_ARG_CORRELATION or EXTERNAL_ID */
    uint64_t n_pseudo_ops;      /* pseudo ops added (tlm_tree_pseudo_ops) */
    uint64_t n_pseudo_skipped;  /* matches left out: no launch or parent */
} tlm_tree_stats;

typedef struct tlm_tree tlm_tree;

/* Builds the tree over the trace's kept events.  opts may be NULL
 * (defaults).  On success *out is a new tree (free with tlm_tree_free).
 * Errors: TLM_EINVAL (trace NULL or without kept events), TLM_ENOMEM. */
TLM_API tlm_status tlm_tree_build(const tlm_trace *trace,
                                  const tlm_tree_opts *opts,
                                  tlm_tree **out, tlm_error *err);

/* The same tree, built while the trace is read: the per-event pass
 * (node kinds, thread of each host event, launch/flow/GPU link ids,
 * sequence numbers) runs in the reader's callback, on each event while it
 * and its arguments are still in cache, and the rest after the read.
 *
 *   tlm_tree_stream *s;  tlm_tree_stream_new(&opts, &s);
 *   ro.keep_events = 1; ro.on_event = tlm_tree_stream_event;
 *   ro.on_move = tlm_tree_stream_move;
 *   ro.on_event_ud = s;  tlm_trace_read_file(path, &ro, &trace, &err);
 *   tlm_tree_build_stream(trace, s, &tree, &err);  tlm_tree_stream_free(s);
 *
 * tlm_tree_stream_event is a tlm_event_cb (errors: TLM_ENOMEM, TLM_ELIMIT;
 * TLM_EINVAL when events come out of order).  tlm_tree_build_stream fails
 * with TLM_EINVAL unless the stream saw exactly the trace's kept events;
 * the stream is then spent (free it either way).  opts may be NULL. */
typedef struct tlm_tree_stream tlm_tree_stream;
TLM_API tlm_status tlm_tree_stream_new(const tlm_tree_opts *opts,
                                       tlm_tree_stream **out);
TLM_API tlm_status tlm_tree_stream_event(void *stream, tlm_trace *trace,
                                         const tlm_event *ev,
                                         uint64_t index, tlm_error *err);
TLM_API tlm_status tlm_tree_build_stream(const tlm_trace *trace,
                                         tlm_tree_stream *stream,
                                         tlm_tree **out, tlm_error *err);
TLM_API void tlm_tree_stream_free(tlm_tree_stream *stream);
/* The tlm_read_opts.on_move of a stream (needed with opts.threads >= 2:
 * the per-event pass then runs in a thread of its own, beside the
 * reader). */
TLM_API void tlm_tree_stream_move(void *stream, int phase);

/* TraceLens's pseudo ops (--enable_pseudo_ops, docs/pseudo-ops.md): for
 * each kernel a rule matches (AITER fused MoE, Triton unfused MoE,
 * GPTQ/AWQ MoE), a synthetic cpu_op "op -> pseudo op -> launch -> kernel"
 * with the shapes of the MoE op, and above each flydsl / opus stage op
 * under aiter::fused_moe_; first, as TraceLens, the events named
 * "sglang_profiler::<op>_<n>" lose their "_<n>" (tlm_trace_rename_event).
 * The pseudo ops are appended to the trace (tlm_trace_append_event: UIDs
 * from the trace's old event count on) and to the tree, so every accessor
 * sees them as events.  trace must be the tree's trace (not const: it
 * grows); call before anything reads the tree's size; once per tree.
 * *added (may be NULL) gets the count.  Errors: TLM_EINVAL (another
 * trace, a second call), TLM_ENOMEM. */
TLM_API tlm_status tlm_tree_pseudo_ops(tlm_tree *tree, tlm_trace *trace,
                                       size_t *added, tlm_error *err);

/* Releases the tree (not the trace).  NULL is allowed. */
TLM_API void tlm_tree_free(tlm_tree *tree);

TLM_API const tlm_trace *tlm_tree_trace(const tlm_tree *tree);
TLM_API const tlm_tree_stats *tlm_tree_stats_get(const tlm_tree *tree);

/* Number of nodes (== number of events). */
TLM_API size_t tlm_tree_size(const tlm_tree *tree);

/* Structure; -1 = none.  uid must be < tlm_tree_size(). */
TLM_API int32_t tlm_tree_parent(const tlm_tree *tree, int32_t uid);
TLM_API int32_t tlm_tree_first_child(const tlm_tree *tree, int32_t uid);
TLM_API int32_t tlm_tree_next_sibling(const tlm_tree *tree, int32_t uid);
TLM_API unsigned tlm_tree_flags(const tlm_tree *tree, int32_t uid);
/* Forward op of a backward autograd node, backward node of a forward op. */
TLM_API int32_t tlm_tree_fwd_event(const tlm_tree *tree, int32_t uid);
TLM_API int32_t tlm_tree_bwd_event(const tlm_tree *tree, int32_t uid);

/* Linked GPU events in the subtree of uid (the node itself included when it
 * is a GPU event), ordered by a pre-order walk of the launches.  *n gets the
 * count; the array is owned by the tree. */
TLM_API const int32_t *tlm_tree_gpu_events(const tlm_tree *tree,
                                           int32_t uid, size_t *n);

/* cpu_op roots in (ts, UID) order; owned by the tree. */
TLM_API const int32_t *tlm_tree_cpu_roots(const tlm_tree *tree, size_t *n);

/* Busy time (length of the union of [ts, t_end)) of the given events, in
 * us.  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_tree_busy_us(tlm_tree *tree, const int32_t *uids,
                                    size_t n, double *out);


/* Printing (§2.6 format).  Flags for tlm_tree_print: */
enum {
    TLM_PRINT_SHAPES = 1u << 0,   /* Input Dims/type/Strides/Concrete */
    TLM_PRINT_NO_PRUNE = 1u << 1, /* also show nodes without GPU work */
    TLM_PRINT_GPU_TIME = 1u << 2  /* append ", GPU Time: x us" */
};

/* Prints the subtree of uid to out, depth-limited (max_depth < 0: no
 * limit).  Errors: TLM_EINVAL (uid out of range), TLM_EIO, TLM_ENOMEM. */
TLM_API tlm_status tlm_tree_print(tlm_tree *tree, FILE *out, int32_t uid,
                                  int max_depth, unsigned flags,
                                  tlm_error *err);

/* Prints uid and its ancestors ("Node:", "1-up:", ...). */
TLM_API tlm_status tlm_tree_print_parents(tlm_tree *tree, FILE *out,
                                          int32_t uid, unsigned flags,
                                          tlm_error *err);

/* Prints the nn.Module view (§7.1): every root module, its module
 * children with GPU time and percent of parent, and per module a
 * "Non-nn.Module GPU Time" line.  Needs a tree built with
 * python_functions = 1 (otherwise prints that no module was found). */
TLM_API tlm_status tlm_tree_print_modules(tlm_tree *tree, FILE *out,
                                          int max_depth, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_TREE_H */
