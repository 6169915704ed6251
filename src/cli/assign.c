/*
 * assign.c - LPT (largest first, to the least-loaded rank) assignment of
 * trace files to MPI ranks.  A trace's reading cost is close to linear in
 * its size, and LPT is within 4/3 of the optimal makespan.  The least-
 * loaded rank is kept in a binary heap keyed by (load, rank), so the whole
 * assignment is O(n log n + n log p) and deterministic.
 */
#include "assign.h"

#include <stdlib.h>

typedef struct item {
    int64_t size;
    size_t idx;
} item;

/* Largest file first; ties by index (a stable order on every rank). */
static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

typedef struct slot {
    int64_t load;
    int rank;
} slot;

/* Heap order: the least loaded rank first, ties by rank. */
static int less(const slot *a, const slot *b)
{
    return a->load < b->load || (a->load == b->load && a->rank < b->rank);
}

/* Restores the min-heap below slot i. */
static void sift_down(slot *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && less(&h[l], &h[m]))
            m = l;
        if (r < n && less(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        slot t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int tlm_cli_assign(const int64_t *sizes, size_t n, int nprocs, int *owner)
{
    if (nprocs < 1)
        return -1;
    if (n == 0)
        return 0;
    item *it = malloc(n * sizeof *it);
    slot *h = malloc((size_t)nprocs * sizeof *h);
    if (!it || !h) {
        free(it);
        free(h);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        it[i].size = sizes[i] > 0 ? sizes[i] : 0;
        it[i].idx = i;
    }
    qsort(it, n, sizeof *it, cmp_item);
    /* all loads 0, ranks ascending: already a heap */
    for (int r = 0; r < nprocs; r++) {
        h[r].load = 0;
        h[r].rank = r;
    }
    for (size_t k = 0; k < n; k++) {
        owner[it[k].idx] = h[0].rank;
        /* +1 so that empty files still spread over the ranks */
        h[0].load += it[k].size + 1;
        sift_down(h, (size_t)nprocs, 0);
    }
    free(it);
    free(h);
    return 0;
}
