/*
 * join.c - compare.md §3: the keyed full outer join of one sheet of every
 * report (left to right), the diff and percentage columns against the
 * baseline, and the column order keys | diffs | data.
 *
 * Row order is pandas >= 2.2's: ascending by the key tuple (text by code
 * point, numbers by value, False < True, missing after every value and
 * equal to missing); inside one key value each left row in table order
 * pairs with each right row in table order (m x n rows).  An integer
 * column that received a missing value becomes float, as in pandas.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"
#include "grow.h"
#include "npsort.h"
#include "sortutil.h"

#define MAX_JOIN_ROWS ((size_t)1 << 26)

void tlm_cmp_tab_free(tlm_cmp_tab *c)
{
    if (!c)
        return;
    tlm_tab_free(c->t);
    free(c->kind);
    free(c->tag);
    memset(c, 0, sizeof *c);
}

static int is_num(tlm_coltype t)
{
    return t != TLM_COL_STR;
}

/* -1, 0, 1: cell (ra, ca) of a against (rb, cb) of b in key order. */
static int key_cell_cmp(const tlm_tab *a, size_t ra, size_t ca,
                        const tlm_tab *b, size_t rb, size_t cb)
{
    const tlm_cell *x = tlm_tab_cell(a, ra, ca), *y = tlm_tab_cell(b, rb, cb);
    if (x->null || y->null)
        return x->null == y->null ? 0 : (x->null ? 1 : -1);
    tlm_coltype tx = a->coltypes[ca], ty = b->coltypes[cb];
    if (tx == TLM_COL_STR && ty == TLM_COL_STR) {
        int c = strcmp(x->v.s, y->v.s);
        return (c > 0) - (c < 0);
    }
    if (tx == TLM_COL_BOOL || ty == TLM_COL_BOOL) { /* vs "True"/"False" */
        const char *u = tx == TLM_COL_BOOL ? (x->v.i ? "True" : "False")
                                           : x->v.s;
        const char *v = ty == TLM_COL_BOOL ? (y->v.i ? "True" : "False")
                                           : y->v.s;
        if (tx == TLM_COL_STR || ty == TLM_COL_STR) {
            int c = strcmp(u, v);
            return (c > 0) - (c < 0);
        }
    }
    if (tx == TLM_COL_STR || ty == TLM_COL_STR)
        return tx == TLM_COL_STR ? 1 : -1; /* excluded by key_type */
    if (tx != TLM_COL_F64 && ty != TLM_COL_F64)
        return (x->v.i > y->v.i) - (x->v.i < y->v.i);
    double u = tx == TLM_COL_F64 ? x->v.f : (double)x->v.i;
    double v = ty == TLM_COL_F64 ? y->v.f : (double)y->v.i;
    return (u > v) - (u < v);
}

typedef struct keyset {
    const tlm_tab *t;
    const size_t *k;
    size_t nk;
} keyset;

static int row_cmp(const keyset *a, size_t ra, const keyset *b, size_t rb)
{
    for (size_t i = 0; i < a->nk; i++) {
        int c = key_cell_cmp(a->t, ra, a->k[i], b->t, rb, b->k[i]);
        if (c)
            return c;
    }
    return 0;
}

static int idx_cmp(const void *ctx, size_t a, size_t b)
{
    const keyset *k = ctx;
    return row_cmp(k, a, k, b);
}

static tlm_status sorted_rows(const keyset *k, size_t **out)
{
    size_t n = k->t->nrows;
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    tlm_status st = tlm_sort_idx(ix, n, idx_cmp, k);
    if (st != TLM_OK) {
        free(ix);
        return st;
    }
    *out = ix;
    return TLM_OK;
}

/* MARK: - pairing rows ---------------------------------------------------- */

/* Pairs of row indices (-1: none) in the joined order. */
typedef struct pairs {
    long *l, *r;
    size_t n, cap;
} pairs;

static int pairs_push(pairs *p, long l, long r)
{
    if (p->n >= MAX_JOIN_ROWS)
        return -1;
    size_t cl = p->cap, cr = p->cap; /* parallel arrays */
    if (tlm_grow((void **)&p->l, &cl, p->n + 1, sizeof *p->l, 256) ||
        tlm_grow((void **)&p->r, &cr, p->n + 1, sizeof *p->r, 256))
        return -1;
    p->cap = cl;
    p->l[p->n] = l;
    p->r[p->n++] = r;
    return 0;
}

/* Merges the two sorted row lists into the joined row pairs. */
static int merge_pairs(const keyset *L, const size_t *li, const keyset *R,
                       const size_t *ri, pairs *p)
{
    size_t i = 0, j = 0, nl = L->t->nrows, nr = R->t->nrows;
    while (i < nl || j < nr) {
        int c = i >= nl ? 1 : j >= nr ? -1 : row_cmp(L, li[i], R, ri[j]);
        size_t ie = i, je = j;
        if (c <= 0)
            while (ie < nl && row_cmp(L, li[i], L, li[ie]) == 0)
                ie++;
        if (c >= 0)
            while (je < nr && row_cmp(R, ri[j], R, ri[je]) == 0)
                je++;
        for (size_t a = i; a < ie; a++) {
            if (je == j && pairs_push(p, (long)li[a], -1) != 0)
                return -1;
            for (size_t b = j; b < je; b++)
                if (pairs_push(p, (long)li[a], (long)ri[b]) != 0)
                    return -1;
        }
        if (ie == i)
            for (size_t b = j; b < je; b++)
                if (pairs_push(p, -1, (long)ri[b]) != 0)
                    return -1;
        i = ie;
        j = je;
    }
    return 0;
}

/* MARK: - building the joined table -------------------------------------- */

typedef struct side {
    const tlm_tab *t;
    size_t *k;            /* key columns */
    size_t *data;         /* non-key columns, in order */
    size_t ndata;
    const unsigned char *kind; /* NULL: a report table (all DATA) */
    const int *tag;
    int rep;              /* report index of a report table */
    const char *label;
} side;

/* A text column holding only "True" and "False": pandas' object column of
 * booleans (a boolean column with a missing value). */
static int bool_text(const tlm_tab *t, size_t c)
{
    if (t->coltypes[c] != TLM_COL_STR)
        return 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const tlm_cell *x = tlm_tab_cell(t, r, c);
        if (!x->null && strcmp(x->v.s, "True") && strcmp(x->v.s, "False"))
            return 0;
    }
    return 1;
}

static tlm_coltype key_type(const tlm_tab *a, size_t ca, const tlm_tab *b,
                            size_t cb, int *bad)
{
    tlm_coltype x = a->coltypes[ca], y = b->coltypes[cb];
    int ex = tlm_tab_col_empty(a, ca), ey = tlm_tab_col_empty(b, cb);
    if (ex && !ey)
        return y;
    if (ey)
        return ex && x == TLM_COL_F64 ? y : x;
    if (x == y)
        return x;
    if ((x == TLM_COL_BOOL && bool_text(b, cb)) ||
        (y == TLM_COL_BOOL && bool_text(a, ca)))
        return TLM_COL_STR; /* booleans match booleans in an object column */
    if (is_num(x) && is_num(y))
        return TLM_COL_F64;
    *bad = 1;
    return TLM_COL_STR;
}

static char *prefixed(const char *tag, const char *col)
{
    size_t n = strlen(tag) + strlen(col) + 3;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s::%s", tag, col);
    return s;
}

/* Column names and types of the join of l and r. */
static tlm_status join_cols(const side *l, const side *r,
                            const char *const *keys, size_t nk,
                            const char *const *tags, char ***names,
                            tlm_coltype **types, size_t *ncols,
                            tlm_error *err)
{
    size_t nc = nk + l->ndata + r->ndata;
    char **nm = calloc(nc ? nc : 1, sizeof *nm);
    tlm_coltype *ty = calloc(nc ? nc : 1, sizeof *ty);
    if (!nm || !ty) {
        free(nm);
        free(ty);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    *names = nm;
    *types = ty;
    *ncols = nc;
    for (size_t i = 0; i < nk; i++) {
        int bad = 0;
        ty[i] = key_type(l->t, l->k[i], r->t, r->k[i], &bad);
        if (bad)
            return tlm_error_set(err, TLM_EFORMAT, r->label, -1,
                                 "sheet %s: key column '%s' holds text in "
                                 "one report and numbers in another",
                                 r->t->name, keys[i]);
        nm[i] = strdup(keys[i]);
    }
    size_t j = nk;
    const side *sd[2] = {l, r};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sd[s]->ndata; i++, j++) {
            size_t c = sd[s]->data[i];
            ty[j] = sd[s]->t->coltypes[c];
            nm[j] = sd[s]->kind ? strdup(sd[s]->t->colnames[c])
                                : prefixed(tags[sd[s]->rep],
                                           sd[s]->t->colnames[c]);
        }
    for (size_t i = 0; i < nc; i++)
        if (!nm[i])
            return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    return TLM_OK;
}

static void free_names(char **nm, size_t n)
{
    if (nm)
        for (size_t i = 0; i < n; i++)
            free(nm[i]);
    free(nm);
}

/* Fills the rows of d from the pairs; the key comes from the left row
 * when there is one. */
static void fill_rows(tlm_tab *d, const pairs *p, const side *l,
                      const side *r, size_t nk)
{
    for (size_t i = 0; i < p->n; i++) {
        long row = tlm_tab_add_row(d);
        if (row < 0)
            return;
        size_t R = (size_t)row;
        for (size_t k = 0; k < nk; k++) {
            if (p->l[i] >= 0)
                tlm_tab_copy_cell(d, R, k, l->t, (size_t)p->l[i], l->k[k]);
            else
                tlm_tab_copy_cell(d, R, k, r->t, (size_t)p->r[i], r->k[k]);
        }
        size_t j = nk;
        for (size_t c = 0; c < l->ndata; c++, j++)
            if (p->l[i] >= 0)
                tlm_tab_copy_cell(d, R, j, l->t, (size_t)p->l[i], l->data[c]);
        for (size_t c = 0; c < r->ndata; c++, j++)
            if (p->r[i] >= 0)
                tlm_tab_copy_cell(d, R, j, r->t, (size_t)p->r[i], r->data[c]);
    }
}

/* An integer column that holds a missing value is float (pandas). */
static void promote_ints(tlm_tab *t)
{
    for (size_t c = 0; c < t->ncols; c++) {
        if (t->coltypes[c] != TLM_COL_I64 || !t->nrows)
            continue;
        int miss = 0;
        for (size_t r = 0; r < t->nrows && !miss; r++)
            miss = tlm_tab_cell(t, r, c)->null;
        if (!miss)
            continue;
        for (size_t r = 0; r < t->nrows; r++) {
            tlm_cell *x = tlm_tab_cell(t, r, c);
            if (!x->null)
                x->v.f = (double)x->v.i;
        }
        t->coltypes[c] = TLM_COL_F64;
    }
}

static tlm_status join2(const side *l, const side *r, const char *const *keys,
                        size_t nk, const char *const *tags, tlm_cmp_tab *out,
                        tlm_error *err)
{
    char **nm = NULL;
    tlm_coltype *ty = NULL;
    size_t nc = 0;
    size_t *li = NULL, *ri = NULL;
    pairs p = {0};
    tlm_status st = join_cols(l, r, keys, nk, tags, &nm, &ty, &nc, err);
    keyset kl = {l->t, l->k, nk}, kr = {r->t, r->k, nk};
    if (st == TLM_OK && (sorted_rows(&kl, &li) != TLM_OK ||
                         sorted_rows(&kr, &ri) != TLM_OK))
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (st == TLM_OK && merge_pairs(&kl, li, &kr, ri, &p) != 0)
        st = tlm_error_set(err, TLM_ENOMEM, r->label, -1,
                           "sheet %s: the join has too many rows (out of "
                           "memory or over %zu)", r->t->name, MAX_JOIN_ROWS);
    tlm_tab *d = NULL;
    if (st == TLM_OK) {
        d = tlm_tab_new(l->t->name, nc, (const char *const *)nm, ty);
        out->kind = calloc(nc ? nc : 1, 1);
        out->tag = calloc(nc ? nc : 1, sizeof *out->tag);
        if (!d || !out->kind || !out->tag)
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    if (st == TLM_OK) {
        fill_rows(d, &p, l, r, nk);
        if (d->oom)
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        promote_ints(d);
        for (size_t i = 0; i < nc; i++) {
            out->kind[i] = i < nk ? TLM_CMP_KEY : TLM_CMP_DATA;
            out->tag[i] = -1;
        }
        size_t j = nk;
        for (size_t i = 0; i < l->ndata; i++, j++)
            out->tag[j] = l->tag ? l->tag[l->data[i]] : l->rep;
        for (size_t i = 0; i < r->ndata; i++, j++)
            out->tag[j] = r->rep;
    }
    out->t = d;
    free_names(nm, nc);
    free(ty);
    free(li);
    free(ri);
    free(p.l);
    free(p.r);
    return st;
}

/* MARK: - sides ------------------------------------------------------------ */

static tlm_status side_of(side *s, const tlm_tab *t, const unsigned char *kind,
                          const int *tag, int rep, const char *label,
                          const char *const *keys, size_t nk, tlm_error *err)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->kind = kind;
    s->tag = tag;
    s->rep = rep;
    s->label = label;
    s->k = malloc((nk ? nk : 1) * sizeof *s->k);
    s->data = malloc((t->ncols ? t->ncols : 1) * sizeof *s->data);
    if (!s->k || !s->data)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    for (size_t i = 0; i < nk; i++) {
        long c = tlm_tab_col(t, keys[i]);
        if (c < 0 || (kind && kind[c] != TLM_CMP_KEY))
            return tlm_error_set(err, TLM_EFORMAT, label, -1,
                                 "sheet %s has no column '%s'", t->name,
                                 keys[i]);
        s->k[i] = (size_t)c;
    }
    for (size_t c = 0; c < t->ncols; c++) {
        int key = kind ? kind[c] == TLM_CMP_KEY : 0;
        for (size_t i = 0; !kind && i < nk; i++)
            key |= s->k[i] == c;
        if (!key)
            s->data[s->ndata++] = c;
    }
    return TLM_OK;
}

static void side_free(side *s)
{
    free(s->k);
    free(s->data);
}

/* MARK: - diff columns ------------------------------------------------------ */

static long data_col(const tlm_cmp_tab *c, int tag, const char *tagname,
                     const char *col)
{
    size_t lt = strlen(tagname);
    for (size_t i = 0; i < c->t->ncols; i++) {
        const char *nm = c->t->colnames[i];
        if (c->kind[i] == TLM_CMP_DATA && c->tag[i] == tag &&
            !strncmp(nm, tagname, lt) && !strncmp(nm + lt, "::", 2) &&
            !strcmp(nm + lt + 2, col))
            return (long)i;
    }
    return -1;
}

/* One diff or pct column being computed. */
typedef struct dcol {
    char *name;
    tlm_coltype type;
    int tag;
    tlm_cell *cells;
} dcol;

/* M__v_diff = v::M - t0::M and M__v_pct = 100 * (diff / t0::M), missing
 * where either is missing or the base is 0 (compare.md §3.3). */
static tlm_status diff_pair(const tlm_cmp_tab *c, const char *m, int v,
                            const char *const *tags,
                            const char *const *labels, dcol d[2],
                            tlm_error *err)
{
    const tlm_tab *t = c->t;
    long b = data_col(c, 0, tags[0], m), x = data_col(c, v, tags[v], m);
    if (b < 0 || x < 0)
        return tlm_error_set(err, TLM_EFORMAT, labels[b < 0 ? 0 : v], -1,
                             "sheet %s has no column '%s'", t->name, m);
    /* a text column with no value (a sheet with a header and no rows is
     * all text, as pandas' object) subtracts as missing */
    int bs = t->coltypes[b] == TLM_COL_STR && !tlm_tab_col_empty(t, (size_t)b);
    if (bs || (t->coltypes[x] == TLM_COL_STR &&
               !tlm_tab_col_empty(t, (size_t)x)))
        return tlm_error_set(err, TLM_EFORMAT, labels[bs ? 0 : v], -1,
                             "sheet %s: column '%s' is not numeric", t->name,
                             m);
    int ints = t->coltypes[b] == TLM_COL_I64 && t->coltypes[x] == TLM_COL_I64;
    size_t n = strlen(m) + strlen(tags[v]) + 8, rows = t->nrows ? t->nrows : 1;
    for (int k = 0; k < 2; k++) {
        d[k].name = malloc(n);
        d[k].cells = calloc(rows, sizeof *d[k].cells);
        d[k].tag = v;
        d[k].type = k == 0 && ints ? TLM_COL_I64 : TLM_COL_F64;
        if (!d[k].name || !d[k].cells)
            return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        snprintf(d[k].name, n, "%s__%s_%s", m, tags[v], k ? "pct" : "diff");
    }
    for (size_t r = 0; r < t->nrows; r++) {
        double bv, xv;
        d[0].cells[r].null = d[1].cells[r].null = 1;
        if (!tlm_tab_num(t, r, (size_t)b, &bv) ||
            !tlm_tab_num(t, r, (size_t)x, &xv))
            continue;
        d[0].cells[r].null = 0;
        if (ints)
            d[0].cells[r].v.i = tlm_tab_cell(t, r, (size_t)x)->v.i -
                                tlm_tab_cell(t, r, (size_t)b)->v.i;
        else
            d[0].cells[r].v.f = xv - bv;
        if (bv != 0.0) {
            double p = (xv - bv) / bv * 100.0;
            d[1].cells[r].v.f = p;
            d[1].cells[r].null = isnan(p);
        }
    }
    return TLM_OK;
}

/* TraceLens's diff-block test, re.match(".*__.*_diff|.*__.*_pct"): a
 * "__" followed somewhere by "_diff" or "_pct" (compat mode only). */
static int looks_diff(const char *name)
{
    const char *u = strstr(name, "__");
    return u && (strstr(u + 2, "_diff") || strstr(u + 2, "_pct"));
}

/* Keys, the diff block, the data: the final table (cells moved). */
static tlm_status assemble(tlm_cmp_tab *c, dcol *d, size_t nd, int compat,
                           tlm_error *err)
{
    tlm_tab *t = c->t;
    size_t nc = t->ncols + nd, j = 0;
    long *src = malloc(nc * sizeof *src); /* >= 0: t's column, else ~dcol */
    const char **nm = malloc(nc * sizeof *nm);
    tlm_coltype *ty = malloc(nc * sizeof *ty);
    unsigned char *kind = malloc(nc);
    int *tag = malloc(nc * sizeof *tag);
    tlm_tab *o = NULL;
    if (src && nm && ty && kind && tag) {
        for (int pass = 0; pass < 3; pass++) {
            for (size_t i = 0; i < t->ncols; i++) {
                int k = c->kind[i] == TLM_CMP_KEY ? 0
                        : compat && looks_diff(t->colnames[i]) ? 1 : 2;
                if (k != pass)
                    continue;
                src[j] = (long)i;
                nm[j] = t->colnames[i];
                ty[j] = t->coltypes[i];
                kind[j] = c->kind[i];
                tag[j++] = c->tag[i];
            }
            for (size_t i = 0; pass == 1 && i < nd; i++) {
                src[j] = ~(long)i;
                nm[j] = d[i].name;
                ty[j] = d[i].type;
                kind[j] = TLM_CMP_DIFF;
                tag[j++] = d[i].tag;
            }
        }
        o = tlm_tab_new(t->name, nc, nm, ty);
    }
    for (size_t r = 0; o && r < t->nrows; r++) {
        if (tlm_tab_add_row(o) < 0)
            break;
        for (size_t k = 0; k < nc; k++)
            *tlm_tab_cell(o, r, k) = src[k] >= 0
                                         ? *tlm_tab_cell(t, r, (size_t)src[k])
                                         : d[~src[k]].cells[r];
    }
    tlm_status st = !o || o->oom || !kind || !tag ? TLM_ENOMEM : TLM_OK;
    if (st == TLM_OK) {
        o->text = t->text; /* the moved text cells live in t's arena */
        t->text = NULL;
        tlm_tab_free(t);
        free(c->kind);
        free(c->tag);
        c->t = o;
        c->kind = kind;
        c->tag = tag;
    } else {
        tlm_tab_free(o);
        free(kind);
        free(tag);
    }
    free(src);
    free(nm);
    free(ty);
    return st == TLM_OK ? TLM_OK
                        : tlm_error_set(err, st, NULL, -1, "out of memory");
}

/* MARK: - the whole step ---------------------------------------------------- */

static tlm_status join_all(const tlm_tab *const *tabs,
                           const char *const *tags,
                           const char *const *labels, size_t n,
                           const char *const *keys, size_t nk,
                           tlm_cmp_tab *acc, tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (size_t i = 1; i < n && st == TLM_OK; i++) {
        side l = {0}, r = {0};
        tlm_cmp_tab next = {0};
        if (i == 1)
            st = side_of(&l, tabs[0], NULL, NULL, 0, labels[0], keys, nk,
                         err);
        else
            st = side_of(&l, acc->t, acc->kind, acc->tag, 0, labels[0], keys,
                         nk, err);
        if (st == TLM_OK)
            st = side_of(&r, tabs[i], NULL, NULL, (int)i, labels[i], keys, nk,
                         err);
        if (st == TLM_OK)
            st = join2(&l, &r, keys, nk, tags, &next, err);
        side_free(&l);
        side_free(&r);
        tlm_cmp_tab_free(acc);
        *acc = next;
    }
    return st;
}

tlm_status tlm_cmp_build(const tlm_tab *const *tabs,
                         const char *const *tags, const char *const *labels,
                         size_t n, const char *const *keys, size_t nkeys,
                         const char *const *metrics, size_t nmetrics,
                         int compat, tlm_cmp_tab *out, tlm_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "need at least two reports");
    tlm_status st = join_all(tabs, tags, labels, n, keys, nkeys, out, err);
    size_t nd = nmetrics * (n - 1) * 2;
    dcol *d = calloc(nd ? nd : 1, sizeof *d);
    if (st == TLM_OK && !d)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    for (size_t m = 0, k = 0; st == TLM_OK && m < nmetrics; m++)
        for (size_t v = 1; st == TLM_OK && v < n; v++, k += 2)
            st = diff_pair(out, metrics[m], (int)v, tags, labels, d + k, err);
    if (st == TLM_OK)
        st = assemble(out, d, nd, compat, err);
    out->np_order = compat != 0;
    for (size_t k = 0; d && k < nd; k++) {
        free(d[k].name);
        free(d[k].cells);
    }
    free(d);
    if (st != TLM_OK)
        tlm_cmp_tab_free(out);
    return st;
}

/* MARK: - sorting ------------------------------------------------------------ */

tlm_status tlm_cmp_sort_desc(tlm_cmp_tab *c, int tag, const char *tagname,
                             const char *col)
{
    long k = data_col(c, tag, tagname, col);
    if (k < 0 || c->t->nrows < 2)
        return TLM_OK;
    size_t n = c->t->nrows;
    size_t *ix = malloc(n * sizeof *ix);
    if (!ix)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    tlm_status st = tlm_cmp_order_desc(c->t, (size_t)k, ix, n, c->np_order);
    if (st == TLM_OK)
        st = tlm_tab_permute(c->t, ix);
    free(ix);
    return st;
}

tlm_status tlm_cmp_order_desc(const tlm_tab *t, size_t col, size_t *rows,
                              size_t n, int np)
{
    if (!np)
        return tlm_tab_sort_desc(t, col, rows, n);
    double *v = calloc(n ? n : 1, sizeof *v);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    size_t *was = malloc((n ? n : 1) * sizeof *was);
    tlm_status st = TLM_ENOMEM;
    if (v && perm && was) {
        for (size_t i = 0; i < n; i++) { /* the column as pandas has it */
            double x;
            v[i] = tlm_tab_num(t, rows[i], col, &x) ? x : NAN;
            was[i] = rows[i];
        }
        st = tlm_np_nargsort_desc(v, n, perm);
        for (size_t i = 0; st == TLM_OK && i < n; i++)
            rows[i] = was[perm[i]];
    }
    free(v);
    free(perm);
    free(was);
    return st;
}

long tlm_cmp_data_col(const tlm_cmp_tab *c, int tag, const char *tagname,
                      const char *col)
{
    return data_col(c, tag, tagname, col);
}
