/*
 * ivl_tmpl.h - the interval routines of ivl.h written once for both
 * element types: ivl.c includes it twice, with
 *   IVL_T    the interval type (tlm_ivl, tlm_ivld),
 *   IVL_V    its value type (int64_t, double),
 *   IVL_VEC  its growable list,
 *   IVL_FN   the public name of a routine (tlm_ivl_x, tlm_ivld_x),
 *   IVL_SN   the name of a file-local helper,
 *   IVL_UB   the typed upper bound of search.h over the value type.
 * No include guard: one expansion per inclusion.
 */

/* (start, end) order: x may come before y. */
static inline int IVL_SN(le)(const IVL_T *x, const IVL_T *y)
{
    return x->s != y->s ? x->s < y->s : x->e <= y->e;
}

/* The same order for qsort. */
static int IVL_SN(cmp)(const void *a, const void *b)
{
    const IVL_T *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e < y->e ? -1 : 1;
    return 0;
}

/* Stable merge sort by (start, end) over the natural runs. */
TLM_DEFINE_RUN_SORT(IVL_SN(run_sort), IVL_T, IVL_SN(le))

/* Appends [s, e) (ivl.h). */
tlm_status IVL_FN(push)(IVL_VEC *a, IVL_V s, IVL_V e)
{
    if (tlm_grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v, 64))
        return TLM_ENOMEM;
    a->v[a->n].s = s;
    a->v[a->n].e = e;
    a->n++;
    return TLM_OK;
}

/* Sorts by (start, end) (ivl.h). */
void IVL_FN(sort)(IVL_T *v, size_t n)
{
    if (IVL_SN(run_sort)(v, n) != TLM_OK)
        qsort(v, n, sizeof *v, IVL_SN(cmp));
}

/* Merges a list sorted by start, in place (ivl.h). */
size_t IVL_FN(merge)(IVL_T *v, size_t n)
{
    if (n < 2)
        return n;
    size_t w = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].s <= v[w].e) {
            if (v[i].e > v[w].e)
                v[w].e = v[i].e;
        } else {
            v[++w] = v[i];
        }
    }
    return w + 1;
}

/* Sort then merge (ivl.h). */
size_t IVL_FN(union)(IVL_T *v, size_t n)
{
    IVL_FN(sort)(v, n);
    return IVL_FN(merge)(v, n);
}

/* Sum of the lengths, left to right (ivl.h). */
IVL_V IVL_FN(length)(const IVL_T *v, size_t n)
{
    IVL_V t = 0;
    for (size_t i = 0; i < n; i++)
        t += v[i].e - v[i].s;
    return t;
}

/* Length of the union (ivl.h). */
IVL_V IVL_FN(union_len)(IVL_T *v, size_t n)
{
    return IVL_FN(length)(v, IVL_FN(union)(v, n));
}

/* base minus rm, into out (ivl.h). */
tlm_status IVL_FN(subtract)(const IVL_T *base, size_t nb, const IVL_T *rm,
                            size_t nr, IVL_VEC *out)
{
    size_t j = 0;
    out->n = 0;
    for (size_t i = 0; i < nb; i++) {
        IVL_V cur = base[i].s, be = base[i].e;
        while (j < nr && rm[j].e <= cur)
            j++;
        for (size_t k = j; k < nr && rm[k].s < be; k++) {
            if (rm[k].s > cur &&
                IVL_FN(push)(out, cur, rm[k].s < be ? rm[k].s : be))
                return TLM_ENOMEM;
            if (rm[k].e > cur)
                cur = rm[k].e;
            if (cur >= be)
                break;
        }
        if (cur < be && IVL_FN(push)(out, cur, be))
            return TLM_ENOMEM;
    }
    return TLM_OK;
}

/* Length of a union inside [s, e) (ivl.h). */
IVL_V IVL_FN(clipped)(const IVL_T *v, size_t n, IVL_V s, IVL_V e)
{
    /* the first interval ending after s */
    size_t lo = IVL_UB(v, n, sizeof *v, offsetof(IVL_T, e), s);
    IVL_V t = 0;
    for (size_t i = lo; i < n && v[i].s < e; i++) {
        IVL_V x = v[i].s > s ? v[i].s : s;
        IVL_V y = v[i].e < e ? v[i].e : e;
        if (y > x)
            t += y - x;
    }
    return t;
}
