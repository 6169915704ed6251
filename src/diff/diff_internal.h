/*
 * diff_internal.h - the inside of a tlm_diff (TraceDiff, shared/spec/
 * tracediff.md): the name table, the per-side view of each tree, the
 * merged nodes, the alignment and the rows of diff_stats.  Shared by the
 * files of src/diff and the unit tests.
 */
#ifndef TLM_DIFF_INTERNAL_H
#define TLM_DIFF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "i3map.h"
#include "sbuf.h"
#include "tlmpi/tlm_diff.h"
#include "tree_internal.h"

/* ---- growable int32 vector with a sticky out-of-memory flag ---------- */
typedef struct tlm_ivec {
    int32_t *p;
    size_t n, cap;
} tlm_ivec;

/* Appends x; on failure sets *oom and does nothing. */
void tlm_ivec_push(tlm_ivec *v, int32_t x, int *oom);
/* Makes room for n more; returns 0, or -1 and sets *oom. */
int tlm_ivec_reserve(tlm_ivec *v, size_t n, int *oom);
void tlm_ivec_free(tlm_ivec *v);

/* ---- string table: text -> dense id (0 is reserved for None) --------- */
typedef struct tlm_dstrtab {
    char *arena;            /* NUL-terminated texts, back to back */
    size_t alen, acap;
    uint32_t *off;          /* id -> offset in arena */
    uint32_t *len;          /* id -> length */
    size_t n, ncap;         /* ids used (id 0 = None) */
    int32_t *slots;         /* open addressing, -1 empty */
    size_t scap;
} tlm_dstrtab;

tlm_status tlm_dstrtab_init(tlm_dstrtab *t);
void tlm_dstrtab_free(tlm_dstrtab *t);
/* Id of the text (added when new); -1 when out of memory. */
int32_t tlm_dstrtab_intern(tlm_dstrtab *t, const char *s, size_t n);
const char *tlm_dstrtab_str(const tlm_dstrtab *t, int32_t id, size_t *n);

/* ---- name normalisation (§2) ------------------------------------------ */
/* norm(name, strip) of §2 appended to b. */
void tlm_diff_norm(tlm_sbuf *b, const char *s, size_t n, int strip);
/* strip_paren_digits (§6.1): every "(<digits>)" removed, appended to b. */
void tlm_diff_strip_paren_digits(tlm_sbuf *b, const char *s, size_t n);

/* ---- ops of an alignment ------------------------------------------------ */
enum { TLM_DOP_MATCH = 0, TLM_DOP_DEL = 1, TLM_DOP_INS = 2 };
typedef struct tlm_dop {
    int32_t type, i, j; /* i: side-1 index (-1 for INS), j: side 2 */
} tlm_dop;
typedef struct tlm_dopvec {
    tlm_dop *p;
    size_t n, cap;
} tlm_dopvec;
void tlm_dopvec_push(tlm_dopvec *v, int32_t type, int32_t i, int32_t j,
                     int *oom);
void tlm_dopvec_free(tlm_dopvec *v);

/* Wagner-Fischer over two sequences of name ids (§4.1), backtrack ties as
 * TraceLens.  Appends the ops (in order) to out.  Cells beyond max_cells:
 * the common suffix is matched and the rest is deleted then inserted
 * (*fallback set to 1).  Returns TLM_OK or TLM_ENOMEM. */
tlm_status tlm_diff_wf(const int32_t *a, size_t m, const int32_t *b,
                       size_t n, size_t max_cells, tlm_dopvec *out,
                       int *fallback);

/* ---- one side of the diff ------------------------------------------------ */
typedef struct tlm_dside {
    const tlm_tree *t;
    const tlm_trace *tr;
    const tlm_event *ev;
    size_t n;
    int32_t *nid[2];     /* trace string id -> normalised name id (strip
                            0/1); -2 = not computed */
    uint32_t nstr;
    int32_t *pos;        /* uid -> position (Phase 3), valid when
                            pos_stamp[uid] == stamp */
    uint32_t *pos_stamp;
    uint32_t stamp;
    size_t n_roots;
} tlm_dside;

/* One merged node (§4 step 10). */
typedef struct tlm_dnode {
    int32_t u1, u2;      /* -1 = absent on that side */
    int32_t kid_off, nkid; /* children: kids[kid_off .. +nkid) */
} tlm_dnode;

/* One row of diff_stats (§6.2). */
typedef struct tlm_drow {
    int32_t g;           /* GPU op UID */
    int32_t cpu;         /* nearest cpu_op UID */
    int32_t lca;         /* merged id of the LCA, -1 = none */
    int32_t lca_name;    /* id in names, 0 = none */
    int8_t side;         /* 0 = trace1, 1 = trace2 */
    double busy;         /* rounded */
} tlm_drow;

struct tlm_diff {
    tlm_diff_opts opts;
    tlm_dside s[2];
    tlm_dstrtab names;   /* normalised names and LCA names */
    tlm_sbuf tmp;        /* scratch text */
    tlm_dnode *nodes;
    size_t nn, capn;
    tlm_ivec kids;
    tlm_ivec roots;      /* merged ids of the roots, pairing order */
    tlm_i3map memo;
    /* name-keyed scratch (stamped, indexed by name id) */
    uint32_t *mark;
    int32_t *mval;
    size_t mcap;
    uint32_t mstamp;
    tlm_drow *rows;
    size_t nrows, caprows;
    int identical;
    int no_gpu;
    tlm_diff_stats st;
    /* the text cells and the summary, made once for every output */
    struct tlm_dcells *cells;
    struct tlm_dsummary *sum;
};
/* Frees the cached cells and summary (diff_out.c). */
void tlm_diff_out_free(tlm_diff *d);

/* Names.  kind: 0 = opname normalised (WF; empty name -> str(uid)),
 * nname (None id 0 for an empty name); strip as §2. */
int32_t tlm_diff_name_id(tlm_diff *d, int side, int32_t u, int strip);
int32_t tlm_diff_nname(tlm_diff *d, int side, int32_t u);
/* The raw name (opname: the UID in decimal when empty), in d->tmp when it
 * had to be made. */
const char *tlm_diff_opname(tlm_diff *d, int side, int32_t u, size_t *n,
                            char num[24]);
/* Ensures the stamped name scratch covers every name id; returns the new
 * stamp (0 on out of memory). */
uint32_t tlm_diff_mark_begin(tlm_diff *d);

/* Node predicates. */
static inline int tlm_dgpu_op(const tlm_dside *s, int32_t u)
{
    unsigned c = s->t->nd[u].cat;
    return c == TLM_CAT_KERNEL || c == TLM_CAT_GPU_MEMCPY ||
           c == TLM_CAT_GPU_MEMSET;
}
static inline int tlm_dkernel_like(const tlm_dside *s, int32_t u)
{
    unsigned c = s->t->nd[u].cat;
    return u >= 0 && (c == TLM_CAT_KERNEL || c == TLM_CAT_GPU_MEMCPY);
}
static inline int tlm_dgraph(const tlm_dside *s, int32_t u)
{
    return (s->t->nd[u].flags & TLM_NODE_GRAPH_LAUNCH) != 0;
}
static inline int tlm_ddispatch(const tlm_dside *s, int32_t u)
{
    unsigned c = s->t->nd[u].cat;
    return (c == TLM_CAT_CUDA_RUNTIME || c == TLM_CAT_CUDA_DRIVER) &&
           !tlm_dgraph(s, u);
}
/* On the GPU path: a GPU op, or a node with linked GPU ops below. */
static inline int tlm_don_path(const tlm_dside *s, int32_t u)
{
    if (u < 0)
        return 0;
    if (tlm_dgpu_op(s, u))
        return 1;
    return tlm_nd_has_gpu(s->t, u);
}
/* TraceLens's gpu_events of a node (none on a GPU op itself). */
static inline const int32_t *tlm_dgpu_events(const tlm_dside *s, int32_t u,
                                             size_t *n)
{
    if (u < 0 || tlm_dgpu_op(s, u)) {
        *n = 0;
        return NULL;
    }
    return tlm_nd_gpu(s->t, u, n);
}

/* Collapse (§4 step 6): returns the deepest node, its GPU-path children
 * (child order) in kids (cleared first). */
int32_t tlm_diff_collapse(tlm_diff *d, int side, int32_t v, tlm_ivec *kids,
                          int *oom);
/* GPU-path children of u (child order), appended to out. */
void tlm_diff_gpu_kids(const tlm_dside *s, int32_t u, tlm_ivec *out,
                       int *oom);
/* align = disambiguate(WF) (§4.1, §4.2) of two UID lists; out cleared. */
tlm_status tlm_diff_align(tlm_diff *d, const int32_t *c1, size_t m,
                          const int32_t *c2, size_t n, int strip,
                          tlm_dopvec *out);
/* Same-name disambiguation alone (§4.2): rewrites ops in place. */
tlm_status tlm_diff_disambiguate(tlm_diff *d, const int32_t *c1, size_t m,
                                 const int32_t *c2, size_t n,
                                 tlm_dopvec *ops);
/* Scratch of one node's computation (diff_phases.c). */
typedef struct tlm_dwork {
    tlm_ivec c[2], kids, r[2], tmp, x[2], u[2], f[2], kd[2], koff[2];
    tlm_ivec fl[2];
    tlm_dopvec ops, p, q, out;
    int oom;
} tlm_dwork;
void tlm_dwork_free(tlm_dwork *w);
/* Steps 5-9 for the pair (*u1, u2): w->c[0], w->c[1] and w->ops get the
 * final child lists and ops; *u1 / *u2 may change (Phase 1). */
tlm_status tlm_diff_node_ops(tlm_diff *d, tlm_dwork *w, int32_t *u1,
                             int32_t *u2);
/* The merge (§3, §4). */
tlm_status tlm_diff_merge(tlm_diff *d, tlm_error *err);
/* The rows (§6). */
tlm_status tlm_diff_collect(tlm_diff *d, tlm_error *err);

#endif /* TLM_DIFF_INTERNAL_H */
