/*
 * hta_cpath.h - HTA's critical path (spec/hta.md §9) on one rank's event
 * table: the graph of start/end instants, its three edge passes, the
 * longest path in networkx's order, and the two tables
 * critical_path_summary / critical_path_edges (§10).
 *
 * tlm_hta_critical_path() is the entry point; the tlm_cp_* graph below is
 * shared by the hta_cpath*.c files (window and nodes in hta_cpath.c,
 * edge store and longest path in hta_cpath_graph.c, the runtime-lock and
 * call-stack passes in hta_cpath_stack.c, the kernel pass and the queue
 * lengths it reads in hta_cpath_kernels.c, the output rows in
 * hta_cpath_out.c).  Memory is linear in the events of the window; time
 * is a few scans of the rank's table plus sorts of the window.
 */
#ifndef TLM_HTA_CPATH_H
#define TLM_HTA_CPATH_H

#include <stddef.h>
#include <stdint.h>

#include "hta_internal.h"
#include "i3map.h"
#include "tlmpi/tlm_hta.h"

/* ------------------------------------------------------------ API */

/* Edge types (HTA's CPEdgeType), in the order of their names below. */
typedef enum tlm_cp_type {
    TLM_CP_OPERATOR = 0,     /* critical_path_operator */
    TLM_CP_DEPENDENCY = 1,   /* critical_path_dependency */
    TLM_CP_LAUNCH_DELAY = 2, /* critical_path_kernel_launch_delay */
    TLM_CP_KERNEL_DELAY = 3, /* critical_path_kernel_kernel_delay */
    TLM_CP_SYNC = 4          /* critical_path_sync_dependency */
} tlm_cp_type;

/* bound_by values, in the order HTA's groupby lists them (sorted). */
typedef enum tlm_cp_bound {
    TLM_CP_BOUND_NONE = 0,    /* "" (dependency and sync edges) */
    TLM_CP_BOUND_CPU = 1,     /* cpu_bound */
    TLM_CP_BOUND_COMM = 2,    /* gpu_communication_bound */
    TLM_CP_BOUND_COMPUTE = 3, /* gpu_compute_bound */
    TLM_CP_BOUND_KK = 4,      /* gpu_kernel_kernel_overhead */
    TLM_CP_BOUND_LAUNCH = 5,  /* gpu_kernel_launch_overhead */
    TLM_CP_BOUND_COUNT = 6
} tlm_cp_bound;

const char *tlm_cp_type_name(int type);
const char *tlm_cp_bound_name(int bound);

/* Which window: events whose name contains annotation (annotation_len
 * bytes; 0 = the whole rank), instances first..last (0-based, in table
 * order, inclusive). */
typedef struct tlm_hta_cp_opts {
    const char *annotation;
    size_t annotation_len;
    int64_t first;
    int64_t last;
} tlm_hta_cp_opts;

/* One edge of the critical path. */
typedef struct tlm_hta_cp_row {
    int32_t row;    /* attributed event: row of the event table, -1 none */
    uint8_t type;   /* tlm_cp_type */
    uint8_t bound;  /* tlm_cp_bound */
    int64_t dur_ns; /* the edge's weight (its own, also when negative: Q10) */
} tlm_hta_cp_row;

/* The result.  reason[0] != 0: no critical path (no tables), reason says
 * why in one line. */
typedef struct tlm_hta_cpath {
    tlm_hta_cp_row *rows; /* path edges, path order; malloc'd */
    size_t n;
    int64_t bound_ns[TLM_CP_BOUND_COUNT]; /* duration per bound_by */
    size_t bound_edges[TLM_CP_BOUND_COUNT];
    int64_t total_ns;
    char reason[256];
    /* what the graph held, and the places where HTA would have stopped
     * (an assert or a lookup of a missing node) and tlm went on */
    int64_t win_start, win_end; /* ns; the whole rank: INT64_MIN/MAX */
    size_t n_window;            /* events in the window */
    size_t n_nodes, n_edges;
    size_t n_neg_weight;   /* edges of weight <= -1 us: graph weight 0
                            * (Q10) */
    size_t n_neg_on_path;  /* ... of which on the path */
    size_t n_no_edge;      /* kernels that got neither a launch nor a
                            * kernel-kernel edge (HTA warns) */
    size_t n_missing_node; /* launch or sync partner without a node
                            * (HTA raises; the edge is left out) */
    size_t n_event_sync;   /* Event Sync / Stream Wait Event rows: HTA
                            * needs cudaEventRecord args tlm does not read;
                            * left out as HTA does without them */
    size_t n_unattributed; /* operator edges without an event on the path
                            * (HTA raises; bound_by "") */
    int remapped_bwd;      /* 1: the backward thread joined the forward */
} tlm_hta_cpath;

/* Critical path of the rank in ev (a filtered, shifted event table).
 * On TLM_OK *out is filled (caller frees with tlm_hta_cpath_free): either
 * the path, or an empty result with reason set (no matching annotation,
 * no such instance, an empty window, a graph HTA would reject).
 * Errors: TLM_ENOMEM, TLM_EINVAL (NULL arguments). */
tlm_status tlm_hta_critical_path(const tlm_hta_events *ev,
                                 const tlm_hta_cp_opts *opts,
                                 tlm_hta_cpath *out, tlm_error *err);
void tlm_hta_cpath_free(tlm_hta_cpath *cp);

/* HTA's s_name (shorten_name) as its critical_path_edges show it: a name
 * with a bracket (<, >, (, )) loses "->", its <...> and (...) groups (an
 * unbalanced closer pops to the bottom) and all but its last
 * space-separated word; a name without brackets, or one this leaves
 * empty ("Memset (Device)"), stays whole.  dst holds len + 1 bytes; the
 * result is NUL-terminated; returns its length. */
size_t tlm_hta_shorten_name(const char *s, size_t len, char *dst);
/* §1.6 rule 1 on a (shortened) name: nccl*, hip*, hccl*, *ncclKernel*. */
int tlm_hta_is_comm_name(const char *s, size_t len);

/* ------------------------------------------------------------ graph */

/* Saturating int64 arithmetic: times come from the trace (each within
 * int64 ns), their sums and differences must not overflow. */
static inline int64_t tlm_cp_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}
static inline int64_t tlm_cp_sub(int64_t a, int64_t b)
{
    if (b < 0 && a > INT64_MAX + b)
        return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b)
        return INT64_MIN;
    return a - b;
}

typedef struct tlm_cp_node {
    int64_t ts;     /* ns */
    int32_t slot;   /* window slot of the event */
    uint8_t start;  /* 1: start instant, 0: end */
    uint8_t lock;   /* event takes the CUDA runtime lock (Q11) */
    uint8_t blocking;
    uint8_t pad_;
} tlm_cp_node;

typedef struct tlm_cp_edge {
    int32_t u, v;
    int32_t attr; /* attributed window slot, -1 none */
    uint8_t type; /* tlm_cp_type */
    int64_t w;    /* ns, the edge's own weight */
} tlm_cp_edge;

typedef struct tlm_cp_graph {
    const tlm_hta_events *ev;
    int32_t *win;       /* window slot -> table row, by index */
    size_t nwin;
    tlm_i3map slot_of;  /* (index, 0, 0) -> window slot */
    int32_t *start_of;  /* per slot: start node or -1 */
    int32_t *end_of;
    tlm_cp_node *node;
    size_t nn;
    tlm_cp_edge *edge;
    size_t ne, cap_e;
    tlm_i3map emap;     /* (u, v, 0) -> edge id */
    tlm_hta_cpath *out; /* counters */
} tlm_cp_graph;

/* Slot of the event with traceEvents index `index`, -1 outside. */
int32_t tlm_cp_slot(const tlm_cp_graph *g, int64_t index);
const tlm_hta_ev *tlm_cp_ev(const tlm_cp_graph *g, int32_t slot);
/* Name id of a literal in the trace (0 when the trace never has it). */
uint32_t tlm_cp_name_id(const tlm_cp_graph *g, const char *lit);

/* Adds edge u -> v (or replaces the type and weight of an existing one,
 * keeping its place and its attribution).  Weight: 0 for dependency and
 * sync edges or with zero_weight, else ts(v) - ts(u).  Returns the edge
 * id or -1 (ENOMEM). */
int32_t tlm_cp_add_edge(tlm_cp_graph *g, int32_t u, int32_t v, int type,
                        int zero_weight);
/* HTA's _attribute_edge: operator and kernel-kernel edges get an event
 * (kernel-kernel: the earlier kernel; from a start: its event; to an end:
 * its event; end -> start: src_parent). */
void tlm_cp_attribute(tlm_cp_graph *g, int32_t e, int32_t src_parent);

/* Pass 1 (runtime lock) and pass 2 (call stacks). */
tlm_status tlm_cp_pass_lock(tlm_cp_graph *g);
tlm_status tlm_cp_pass_stacks(tlm_cp_graph *g);
/* Pass 3 (kernels, queue lengths, sync events). */
tlm_status tlm_cp_pass_kernels(tlm_cp_graph *g);

/* Validation and longest path: on success *path (malloc'd node ids, path
 * order) and *npath; a graph HTA rejects sets out->reason and returns
 * TLM_OK with *npath 0.  Errors: TLM_ENOMEM. */
tlm_status tlm_cp_longest_path(tlm_cp_graph *g, int32_t **path,
                               size_t *npath);

/* ------------------------------------------------------------ tables */

/* The builder in hta_tables.c's list (hta_cpath_out.c): adds
 * critical_path_summary and critical_path_edges for the window
 * o->cp_annotation, o->cp_first..o->cp_last, or leaves them out and
 * writes r->notes.cp_reason.  Errors: TLM_ENOMEM. */
tlm_status tlm_hta_build_critical_path(const tlm_hta_events *ev,
                                       const tlm_hta_opts *o,
                                       tlm_hta_result *r, tlm_error *err);
extern const tlm_hta_tdef tlm_hta_def_cp_summary, tlm_hta_def_cp_edges;

#endif /* TLM_HTA_CPATH_H */
