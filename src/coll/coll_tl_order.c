/*
 * coll_tl_order.c - TraceLens's row and column order for the per-instance
 * sheets of its multi-rank report ([collectives] 4.1).  TraceLens builds
 * those sheets from a list of per-id dicts taken in the order the ids
 * first appear in nccl_long (rank, then file order) and lets pandas make
 * the columns: the union of the dicts' keys in first-seen order.  So the
 * rank_{r} columns follow the first appearance of each rank across rows,
 * not 0..N-1, and pandas' idxmin over the wait columns (straggler_summary's
 * "arrived last") breaks ties by that column order.
 */
#include "coll_internal.h"

#include <stdlib.h>
#include <string.h>

/* Appearance order: the lowest member rank, its event, then the id. */
static int cmp_appear(const void *a, const void *b)
{
    const tlm_coll_tl_sync_row *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->first_rank, y->first_rank);
    if (!c)
        c = tlm_coll_cmp_u64(x->first_event, y->first_event);
    if (!c)
        c = strcmp(x->collective_id, y->collective_id);
    return c;
}

/* Members by (collective id, rank): an id names one row. */
static int cmp_mem_id(const void *a, const void *b)
{
    const tlm_coll_tl_sync_member *x = a, *y = b;
    int c = strncmp(x->collective_id, y->collective_id,
                    sizeof x->collective_id);
    return c ? c : tlm_coll_cmp_i64(x->rank, y->rank);
}

/* Row pointers by collective id. */
static int cmp_row_id(const void *a, const void *b)
{
    const tlm_coll_tl_sync_row *x = *(const tlm_coll_tl_sync_row *const *)a;
    const tlm_coll_tl_sync_row *y = *(const tlm_coll_tl_sync_row *const *)b;
    return strncmp(x->collective_id, y->collective_id,
                   sizeof x->collective_id);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

tlm_status tlm_coll_tl_first_seen(const int32_t *ranks,
                                  const int32_t *row, size_t n,
                                  const tlm_alloc *a, int32_t **cols,
                                  int32_t **batch, size_t *n_cols,
                                  tlm_error *err)
{
    if (!cols || !batch || !n_cols || (n && (!ranks || !row)))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_coll_tl_first_seen: NULL argument");
    *cols = NULL;
    *batch = NULL;
    *n_cols = 0;
    int32_t *d = tlm_coll_malloc(a, (n ? n : 1) * sizeof *d);
    int32_t *pos = tlm_coll_malloc(a, (n ? n : 1) * sizeof *pos);
    int32_t *c = tlm_coll_malloc(a, (n ? n : 1) * sizeof *c);
    int32_t *b = tlm_coll_malloc(a, (n ? n : 1) * sizeof *b);
    if (!d || !pos || !c || !b) {
        tlm_coll_mfree(a, d);
        tlm_coll_mfree(a, pos);
        tlm_coll_mfree(a, c);
        tlm_coll_mfree(a, b);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory ordering TraceLens columns");
    }
    if (n)
        memcpy(d, ranks, n * sizeof *d);
    qsort(d, n, sizeof *d, cmp_i32);
    size_t nd = 0;
    for (size_t i = 0; i < n; i++)
        if (nd == 0 || d[nd - 1] != d[i])
            d[nd++] = d[i];
    for (size_t i = 0; i < nd; i++)
        pos[i] = 0;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        const int32_t *p = bsearch(&ranks[i], d, nd, sizeof *d, cmp_i32);
        size_t k = (size_t)(p - d);
        if (pos[k])
            continue;
        pos[k] = 1;
        c[nc] = ranks[i];
        b[nc++] = row[i];
    }
    tlm_coll_mfree(a, d);
    tlm_coll_mfree(a, pos);
    *cols = c;
    *batch = b;
    *n_cols = nc;
    return TLM_OK;
}

/* Each row's member range in m (sorted by id, rank): mem_off and n_ranks;
 * rows without members get mem_off -1.  p: room for n row pointers. */
static void find_members(tlm_coll_tl_sync_row *rows, size_t n,
                         const tlm_coll_tl_sync_member *m, size_t n_mem,
                         tlm_coll_tl_sync_row **p)
{
    for (size_t i = 0; i < n; i++)
        p[i] = &rows[i];
    qsort(p, n, sizeof *p, cmp_row_id);
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        tlm_coll_tl_sync_row *r = p[i];
        while (j < n_mem && strncmp(m[j].collective_id, r->collective_id,
                                    sizeof r->collective_id) < 0)
            j++;
        size_t j1 = j;
        while (j1 < n_mem && strncmp(m[j1].collective_id, r->collective_id,
                                     sizeof r->collective_id) == 0)
            j1++;
        r->mem_off = j1 > j ? (int64_t)j : -1;
        r->n_ranks = (int32_t)(j1 - j);
        j = j1;
    }
}

/* Re-decides each row's last arrival (min wait; ties: the rank whose
 * column comes first) from the column order cols[0..nc). */
static void last_by_columns(tlm_coll_tl_sync_row *rows, size_t n,
                            const tlm_coll_tl_sync_member *m,
                            const int32_t *cols, size_t nc, int32_t *sorted,
                            int32_t *colpos)
{
    for (size_t i = 0; i < nc; i++)
        sorted[i] = cols[i];
    qsort(sorted, nc, sizeof *sorted, cmp_i32);
    for (size_t i = 0; i < nc; i++) {
        const int32_t *p = bsearch(&cols[i], sorted, nc, sizeof *sorted,
                                   cmp_i32);
        colpos[p - sorted] = (int32_t)i;
    }
    for (size_t i = 0; i < n; i++) {
        if (rows[i].mem_off < 0)
            continue;
        const tlm_coll_tl_sync_member *x = &m[rows[i].mem_off];
        int32_t best = -1, bpos = 0;
        double bw = 0;
        for (int32_t q = 0; q < rows[i].n_ranks; q++) {
            const int32_t *p = bsearch(&x[q].rank, sorted, nc,
                                       sizeof *sorted, cmp_i32);
            int32_t cp = colpos[p - sorted];
            if (best < 0 || x[q].wait_us < bw ||
                (x[q].wait_us == bw && cp < bpos)) {
                best = x[q].rank;
                bw = x[q].wait_us;
                bpos = cp;
            }
        }
        rows[i].last_arrival_rank = best;
    }
}

/* The flat (rank, row) lists of rows in order, for first_seen. */
static void flatten(const tlm_coll_tl_sync_row *rows, size_t n,
                    const tlm_coll_tl_sync_member *m, int32_t *rk,
                    int32_t *rw, size_t *nf)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (int32_t q = 0; rows[i].mem_off >= 0 && q < rows[i].n_ranks;
             q++) {
            rk[k] = m[rows[i].mem_off + q].rank;
            rw[k++] = (int32_t)i;
        }
    *nf = k;
}

tlm_status tlm_coll_tl_order(tlm_coll_tl_sync_row *rows, size_t n,
                             tlm_coll_tl_sync_member *mem, size_t *n_mem,
                             const tlm_alloc *a, tlm_error *err)
{
    if ((!rows && n) || !n_mem || (!mem && *n_mem))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_coll_tl_order: NULL argument");
    size_t nm = *n_mem;
    tlm_coll_tl_sync_row **p = tlm_coll_malloc(a, (n ? n : 1) * sizeof *p);
    tlm_coll_tl_sync_member *tmp =
        tlm_coll_malloc(a, (nm ? nm : 1) * sizeof *tmp);
    int32_t *rk = tlm_coll_malloc(a, (nm ? nm : 1) * sizeof *rk);
    int32_t *rw = tlm_coll_malloc(a, (nm ? nm : 1) * sizeof *rw);
    int32_t *cols = NULL, *batch = NULL;
    size_t nc = 0, nf = 0;
    tlm_status st = TLM_ENOMEM;
    if (!p || !tmp || !rk || !rw)
        goto done;
    if (nm) /* qsort's base may not be NULL, even for 0 items */
        qsort(mem, nm, sizeof *mem, cmp_mem_id);
    find_members(rows, n, mem, nm, p);
    if (n)
        qsort(rows, n, sizeof *rows, cmp_appear);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].mem_off < 0)
            continue;
        memcpy(&tmp[k], &mem[rows[i].mem_off],
               (size_t)rows[i].n_ranks * sizeof *tmp);
        rows[i].mem_off = (int64_t)k;
        k += (size_t)rows[i].n_ranks;
    }
    if (k)
        memcpy(mem, tmp, k * sizeof *mem);
    *n_mem = k;
    flatten(rows, n, mem, rk, rw, &nf);
    st = tlm_coll_tl_first_seen(rk, rw, nf, a, &cols, &batch, &nc, err);
    if (st != TLM_OK)
        goto done;
    /* rk and rw are free again: room for the sorted ranks and positions */
    last_by_columns(rows, n, mem, cols, nc, rk, rw);
done:
    tlm_coll_mfree(a, p);
    tlm_coll_mfree(a, tmp);
    tlm_coll_mfree(a, rk);
    tlm_coll_mfree(a, rw);
    tlm_coll_mfree(a, cols);
    tlm_coll_mfree(a, batch);
    if (st == TLM_ENOMEM)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory ordering TraceLens rows");
    return st;
}
