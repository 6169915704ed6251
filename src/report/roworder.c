/*
 * roworder.c - TraceLens's row order of the summary tables (spec
 * addendum §A9): a groupby's output comes with its keys sorted ascending
 * (NaN last at each level), and `sort_values(one column,
 * ascending=False)` orders it with numpy's quicksort (npsort.h), which
 * does not keep ties in place.
 */
#include <math.h>
#include <stdlib.h>

#include "npsort.h"
#include "report_internal.h"

typedef struct key_cols {
    const tlm_tab *t;
    const size_t *cols;
    const unsigned char *mode; /* per key: TLM_KEY_*, NULL: all text */
    size_t n;
} key_cols;

/* The integers of a tuple / list text "(0, 1, 2)" or "[0, 1]" into v
 * (at most cap); -1 when the text is not one. */
static long int_seq(const char *s, long long *v, long cap)
{
    if (*s != '(' && *s != '[')
        return -1;
    char close = *s == '(' ? ')' : ']';
    long n = 0;
    s++;
    for (;;) {
        while (*s == ' ' || *s == ',')
            s++;
        if (*s == close)
            return s[1] ? -1 : n;
        char *e;
        long long x = strtoll(s, &e, 10);
        if (e == s || n == cap)
            return -1;
        v[n++] = x;
        s = e;
    }
}

/* Text cells as pandas compares the Python values behind them: numbers
 * kept as text (TLM_KEY_NUM) numerically, tuples of integers
 * (TLM_KEY_TUPLE: process group ranks, split sizes) element by element,
 * else (and when a cell is not one) code-point order (strcmp on UTF-8). */
static int cmp_text(const char *a, const char *b, unsigned mode)
{
    char *ea, *eb;
    if (mode == TLM_KEY_NUM) {
        double x = strtod(a, &ea), y = strtod(b, &eb);
        if (ea != a && !*ea && eb != b && !*eb && x != y)
            return x < y ? -1 : 1;
    }
    long long va[64], vb[64];
    long na = mode == TLM_KEY_TUPLE ? int_seq(a, va, 64) : -1;
    long nb = mode == TLM_KEY_TUPLE ? int_seq(b, vb, 64) : -1;
    if (na >= 0 && nb >= 0) {
        for (long i = 0; i < na && i < nb; i++)
            if (va[i] != vb[i])
                return va[i] < vb[i] ? -1 : 1;
        if (na != nb)
            return na < nb ? -1 : 1;
    }
    return strcmp(a, b);
}

static int cmp_cell(tlm_coltype ty, unsigned mode, const tlm_cell *x,
                    const tlm_cell *y)
{
    int nx = x->null || (ty == TLM_COL_F64 && isnan(x->v.f));
    int ny = y->null || (ty == TLM_COL_F64 && isnan(y->v.f));
    if (nx || ny)
        return nx - ny; /* null last */
    switch (ty) {
    case TLM_COL_F64:
        return (x->v.f > y->v.f) - (x->v.f < y->v.f);
    case TLM_COL_I64:
    case TLM_COL_BOOL:
        return (x->v.i > y->v.i) - (x->v.i < y->v.i);
    case TLM_COL_STR:
        return cmp_text(x->v.s, y->v.s, mode);
    }
    return 0;
}

static int cmp_keys(const void *vc, size_t a, size_t b)
{
    const key_cols *k = vc;
    for (size_t q = 0; q < k->n; q++) {
        size_t c = k->cols[q];
        int r = cmp_cell(k->t->coltypes[c], k->mode ? k->mode[q] : 0,
                         tlm_tab_cell(k->t, a, c), tlm_tab_cell(k->t, b, c));
        if (r)
            return r;
    }
    return 0;
}

tlm_status tlm_tab_sort_keys_asc(tlm_tab *t, const size_t *cols,
                                 const unsigned char *mode, size_t n)
{
    size_t *perm = malloc((t->nrows + 1) * sizeof *perm);
    if (!perm)
        return TLM_ENOMEM;
    for (size_t r = 0; r < t->nrows; r++)
        perm[r] = r;
    key_cols k = {t, cols, mode, n};
    tlm_status st = tlm_sort_idx(perm, t->nrows, cmp_keys, &k);
    if (st == TLM_OK)
        st = tlm_tab_permute(t, perm);
    free(perm);
    return st;
}

tlm_status tlm_tab_sort_desc_np(tlm_tab *t, size_t col)
{
    size_t n = t->nrows;
    double *v = malloc((n + 1) * sizeof *v);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    tlm_status st = TLM_ENOMEM;
    if (v && perm) {
        for (size_t r = 0; r < n; r++) {
            const tlm_cell *c = tlm_tab_cell(t, r, col);
            v[r] = c->null                               ? NAN
                   : t->coltypes[col] == TLM_COL_I64 ? (double)c->v.i
                                                         : c->v.f;
        }
        st = tlm_np_nargsort_desc(v, n, perm);
        if (st == TLM_OK)
            st = tlm_tab_permute(t, perm);
    }
    free(v);
    free(perm);
    return st;
}
