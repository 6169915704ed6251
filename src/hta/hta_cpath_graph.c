/*
 * hta_cpath_graph.c - the critical-path graph's edge store and its longest
 * path, in the order networkx 2.8.8 / 3.x gives (spec/hta.md §9).
 *
 * Edges live in one array in the order they were first added; a second
 * add of (u, v) replaces type and weight in place, as networkx's add_edge
 * updates the attributes of an edge that keeps its place in the
 * adjacency dicts.  The longest path then needs, per node, its successors
 * and its predecessors in that insertion order: two counting sorts of the
 * edge ids (CSR), no recursion.
 *
 * Topological order (networkx's topological_generations, flattened):
 * generation 0 is the nodes without incoming edges in node order; going
 * through a generation in order and through each node's out-edges in
 * insertion order, a target whose last incoming edge goes is appended to
 * the next generation.  Processing generations one after another is a
 * FIFO queue.  dag_longest_path: each node takes the first predecessor
 * (insertion order) with the largest distance + weight, a best value
 * below 0 (or none) resets the node to (0, itself); the path ends at the
 * first node of the topological order with the largest distance.
 */
#include "hta_cpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

int32_t tlm_cp_add_edge(tlm_cp_graph *g, int32_t u, int32_t v, int type,
                        int zero_weight)
{
    int64_t w = 0;
    if (u < 0 || v < 0 || u == v)
        return -2;
    if (!(type == TLM_CP_DEPENDENCY || type == TLM_CP_SYNC || zero_weight))
        w = tlm_cp_sub(g->node[v].ts, g->node[u].ts);
    int32_t id = tlm_i3map_get(&g->emap, u, v, 0);
    if (id >= 0) {
        g->edge[id].type = (uint8_t)type;
        g->edge[id].w = w;
        return id;
    }
    if (g->ne >= (size_t)INT32_MAX)
        return -1;
    if (tlm_grow((void **)&g->edge, &g->cap_e, g->ne + 1, sizeof *g->edge,
                 256) != TLM_OK)
        return -1;
    id = (int32_t)g->ne;
    if (tlm_i3map_put(&g->emap, u, v, 0, id) != TLM_OK)
        return -1;
    tlm_cp_edge *e = &g->edge[g->ne++];
    e->u = u;
    e->v = v;
    e->attr = -1;
    e->type = (uint8_t)type;
    e->w = w;
    return id;
}

void tlm_cp_attribute(tlm_cp_graph *g, int32_t e, int32_t src_parent)
{
    if (e < 0)
        return;
    tlm_cp_edge *ed = &g->edge[e];
    if (ed->type != TLM_CP_OPERATOR && ed->type != TLM_CP_KERNEL_DELAY)
        return;
    const tlm_cp_node *src = &g->node[ed->u];
    const tlm_cp_node *dst = &g->node[ed->v];
    if (ed->type == TLM_CP_KERNEL_DELAY || src->start)
        ed->attr = src->slot;
    else if (!dst->start)
        ed->attr = dst->slot;
    else
        ed->attr = src_parent;
}

/* ---------------------------------------------------------------- MARK: -
 * validation */

/* A sync edge between two events of one stream makes HTA fail. */
static int sync_same_stream(const tlm_cp_graph *g)
{
    for (size_t i = 0; i < g->ne; i++) {
        const tlm_cp_edge *e = &g->edge[i];
        if (e->type != TLM_CP_SYNC)
            continue;
        int64_t a = tlm_cp_ev(g, g->node[e->u].slot)->stream;
        int64_t b = tlm_cp_ev(g, g->node[e->v].slot)->stream;
        if (a != -1 && a == b)
            return 1;
    }
    return 0;
}

/* Q10: an edge of weight <= -1 us weighs 0 in the graph. */
static int64_t graph_weight(const tlm_cp_edge *e)
{
    return e->w <= -1000 ? 0 : e->w;
}

/* ---------------------------------------------------------------- MARK: -
 * adjacency in insertion order */

typedef struct csr {
    int32_t *off; /* nn + 1 */
    int32_t *ids; /* ne edge ids */
} csr;

static tlm_status csr_build(const tlm_cp_graph *g, int by_target, csr *c)
{
    c->off = calloc(g->nn + 1, sizeof *c->off);
    c->ids = malloc((g->ne ? g->ne : 1) * sizeof *c->ids);
    if (!c->off || !c->ids)
        return TLM_ENOMEM;
    for (size_t i = 0; i < g->ne; i++) {
        int32_t k = by_target ? g->edge[i].v : g->edge[i].u;
        c->off[k + 1]++;
    }
    for (size_t k = 0; k < g->nn; k++)
        c->off[k + 1] += c->off[k];
    int32_t *fill = malloc((g->nn ? g->nn : 1) * sizeof *fill);
    if (!fill)
        return TLM_ENOMEM;
    memcpy(fill, c->off, g->nn * sizeof *fill);
    for (size_t i = 0; i < g->ne; i++) {
        int32_t k = by_target ? g->edge[i].v : g->edge[i].u;
        c->ids[fill[k]++] = (int32_t)i;
    }
    free(fill);
    return TLM_OK;
}

static void csr_free(csr *c)
{
    free(c->off);
    free(c->ids);
}

/* Topological order into order[0..nn); returns the count placed (< nn:
 * a cycle). */
static size_t topo_order(const tlm_cp_graph *g, const csr *out,
                         int32_t *indeg, int32_t *order)
{
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < g->ne; i++)
        indeg[g->edge[i].v]++;
    for (size_t k = 0; k < g->nn; k++) {
        if (indeg[k] == 0)
            order[tail++] = (int32_t)k;
    }
    while (head < tail) {
        int32_t u = order[head++];
        for (int32_t j = out->off[u]; j < out->off[u + 1]; j++) {
            int32_t v = g->edge[out->ids[j]].v;
            if (--indeg[v] == 0)
                order[tail++] = v;
        }
    }
    return tail;
}

/* dist/pred over the order; returns the end node of the path. */
static int32_t relax(const tlm_cp_graph *g, const csr *in,
                     const int32_t *order, int64_t *dist, int32_t *pred)
{
    int32_t best_node = -1;
    int64_t best = 0;
    for (size_t i = 0; i < g->nn; i++) {
        int32_t v = order[i];
        int have = 0;
        int64_t d = 0;
        int32_t p = -1;
        for (int32_t j = in->off[v]; j < in->off[v + 1]; j++) {
            const tlm_cp_edge *e = &g->edge[in->ids[j]];
            int64_t c = tlm_cp_add(dist[e->u], graph_weight(e));
            if (!have || c > d) {
                have = 1;
                d = c;
                p = in->ids[j];
            }
        }
        if (!have || d < 0) {
            d = 0;
            p = -1;
        }
        dist[v] = d;
        pred[v] = p;
        if (best_node < 0 || d > best) {
            best = d;
            best_node = v;
        }
    }
    return best_node;
}

static tlm_status follow_back(const tlm_cp_graph *g, const int32_t *pred,
                              int32_t end, int32_t **path, size_t *npath)
{
    size_t k = 1;
    for (int32_t v = end; pred[v] >= 0; v = g->edge[pred[v]].u)
        k++;
    int32_t *p = malloc(k * sizeof *p);
    if (!p)
        return TLM_ENOMEM;
    size_t i = k;
    int32_t v = end;
    p[--i] = v;
    while (pred[v] >= 0) {
        v = g->edge[pred[v]].u;
        p[--i] = v;
    }
    *path = p;
    *npath = k;
    return TLM_OK;
}

tlm_status tlm_cp_longest_path(tlm_cp_graph *g, int32_t **path,
                               size_t *npath)
{
    tlm_status st = TLM_ENOMEM;
    csr out = {0}, in = {0};
    int32_t *indeg = NULL, *order = NULL, *pred = NULL;
    int64_t *dist = NULL;
    *path = NULL;
    *npath = 0;
    for (size_t i = 0; i < g->ne; i++) {
        if (g->edge[i].w <= -1000)
            g->out->n_neg_weight++;
    }
    if (sync_same_stream(g)) {
        snprintf(g->out->reason, sizeof g->out->reason,
                 "a sync dependency joins two kernels of one stream");
        return TLM_OK;
    }
    if (g->nn == 0) {
        snprintf(g->out->reason, sizeof g->out->reason,
                 "no operator, runtime or kernel event in the window");
        return TLM_OK;
    }
    indeg = calloc(g->nn, sizeof *indeg);
    order = malloc(g->nn * sizeof *order);
    pred = malloc(g->nn * sizeof *pred);
    dist = malloc(g->nn * sizeof *dist);
    if (!indeg || !order || !pred || !dist)
        goto done;
    if (csr_build(g, 0, &out) != TLM_OK || csr_build(g, 1, &in) != TLM_OK)
        goto done;
    if (topo_order(g, &out, indeg, order) < g->nn) {
        snprintf(g->out->reason, sizeof g->out->reason,
                 "the graph has a cycle");
        st = TLM_OK;
        goto done;
    }
    int32_t end = relax(g, &in, order, dist, pred);
    st = follow_back(g, pred, end, path, npath);
    if (st == TLM_OK && *npath < 2) {
        free(*path);
        *path = NULL;
        *npath = 0;
        snprintf(g->out->reason, sizeof g->out->reason,
                 "the graph has no edge of positive length");
    }
done:
    csr_free(&out);
    csr_free(&in);
    free(indeg);
    free(order);
    free(pred);
    free(dist);
    return st;
}
