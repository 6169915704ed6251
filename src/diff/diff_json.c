/*
 * diff_json.c - cpu_op_map.json, cpu_op_map_trace1.json and
 * cpu_op_map_trace2.json (§8) in Python's json.dump(indent=2,
 * ensure_ascii=False) layout, without a trailing newline.
 */
#define _GNU_SOURCE 1 /* qsort_r */
#include "diff_csv.h"

#include <stdlib.h>
#include <string.h>

void tlm_diff_json_str(tlm_sbuf *b, const char *s, size_t n)
{
    tlm_sbuf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': tlm_sbuf_puts(b, "\\\""); break;
        case '\\': tlm_sbuf_puts(b, "\\\\"); break;
        case '\n': tlm_sbuf_puts(b, "\\n"); break;
        case '\r': tlm_sbuf_puts(b, "\\r"); break;
        case '\t': tlm_sbuf_puts(b, "\\t"); break;
        case '\b': tlm_sbuf_puts(b, "\\b"); break;
        case '\f': tlm_sbuf_puts(b, "\\f"); break;
        default:
            if (c < 0x20)
                tlm_sbuf_printf(b, "\\u%04x", c);
            else
                tlm_sbuf_putc(b, (char)c);
        }
    }
    tlm_sbuf_putc(b, '"');
}

static int cmp_id(const void *x, const void *y, void *names)
{
    size_t an, bn;
    const char *a = tlm_dstrtab_str(names, *(const int32_t *)x, &an);
    const char *b = tlm_dstrtab_str(names, *(const int32_t *)y, &bn);
    size_t n = an < bn ? an : bn;
    int k = memcmp(a, b, n);
    return k ? k : (an > bn) - (an < bn);
}

/* Sorted distinct names. */
static void sort_uniq(tlm_diff *d, tlm_ivec *v)
{
    if (v->n > 1)
        qsort_r(v->p, v->n, sizeof *v->p, cmp_id, &d->names);
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++)
        if (!k || v->p[k - 1] != v->p[i])
            v->p[k++] = v->p[i];
    v->n = k;
}

static void indent(tlm_sbuf *b, int lvl)
{
    for (int i = 0; i < lvl; i++)
        tlm_sbuf_putn(b, "  ", 2);
}

static void put_name(tlm_diff *d, tlm_sbuf *b, int32_t id)
{
    size_t n;
    const char *s = tlm_dstrtab_str(&d->names, id, &n);
    tlm_diff_json_str(b, s, n);
}

/* (group, side, kernel name) of one summary row; sorted by group, side,
 * then the kernel name's text. */
typedef struct trip {
    int32_t grp, side, kname;
} trip;

static int cmp_trip(const void *x, const void *y, void *names)
{
    const trip *a = x, *b = y;
    if (a->grp != b->grp)
        return a->grp < b->grp ? -1 : 1;
    if (a->side != b->side)
        return a->side < b->side ? -1 : 1;
    return cmp_id(&a->kname, &b->kname, names);
}

/* Sorted distinct triples of the summary rows; grp from grp_of (an id of
 * the row's op), rows of side only when side >= 0; the trace2 rows of
 * identical traces left out when skip_ident (d is only read: another
 * thread writes diff_stats.csv from it meanwhile). */
static trip *triples(tlm_diff *d, const tlm_dsummary *s, const int32_t *grp,
                     int side, int skip_ident, size_t *n)
{
    trip *t = malloc((s->n + 1) * sizeof *t);
    if (!t)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        int sd = d->rows[s->r[i].first].side;
        if (side >= 0 && sd != side)
            continue;
        if (skip_ident && d->identical && sd)
            continue;
        t[k].grp = grp[i];
        t[k].side = sd;
        t[k].kname = s->kname[s->r[i].first];
        k++;
    }
    if (k > 1)
        qsort_r(t, k, sizeof *t, cmp_trip, &d->names);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || t[u - 1].grp != t[i].grp || t[u - 1].side != t[i].side ||
            t[u - 1].kname != t[i].kname)
            t[u++] = t[i];
    *n = u;
    return t;
}

/* The kernel list of t[*at ..] while grp and side stay the same. */
static void put_kernels(tlm_diff *d, tlm_sbuf *b, const trip *t, size_t n,
                        size_t *at, int lvl)
{
    size_t e = *at;
    while (e < n && t[e].grp == t[*at].grp && t[e].side == t[*at].side)
        e++;
    tlm_sbuf_puts(b, "[\n");
    for (size_t i = *at; i < e; i++) {
        indent(b, lvl + 1);
        put_name(d, b, t[i].kname);
        tlm_sbuf_puts(b, i + 1 < e ? ",\n" : "\n");
    }
    indent(b, lvl);
    tlm_sbuf_putc(b, ']');
    *at = e;
}

static void put_entry(tlm_diff *d, tlm_sbuf *b, const trip *t, size_t n,
                      size_t *at, int lvl)
{
    tlm_sbuf_puts(b, "{\n");
    indent(b, lvl + 1);
    tlm_sbuf_puts(b, "\"kernels\": ");
    put_kernels(d, b, t, n, at, lvl + 1);
    tlm_sbuf_puts(b, ",\n");
    indent(b, lvl + 1);
    tlm_sbuf_puts(b, "\"nn_module_parents\": [\n");
    indent(b, lvl + 2);
    tlm_sbuf_puts(b, "\"root\"\n");
    indent(b, lvl + 1);
    tlm_sbuf_puts(b, "]\n");
    indent(b, lvl);
    tlm_sbuf_putc(b, '}');
}

/* cpu_op_map.json: ops in order of first appearance in the sorted
 * summary (rewritten names). */
static tlm_status map_all(tlm_diff *d, const tlm_dsummary *s, tlm_sbuf *b)
{
    tlm_status st = TLM_ENOMEM;
    int32_t *grp = malloc((s->n + 1) * sizeof *grp);
    tlm_ivec ops = {0};
    trip *t = NULL;
    tlm_i3map m;
    int oom = 0;
    if (tlm_i3map_init(&m, s->n + 16) != TLM_OK) {
        free(grp);
        return TLM_ENOMEM;
    }
    if (!grp)
        goto done;
    for (size_t i = 0; i < s->n; i++) {
        if (d->identical && d->rows[s->r[i].first].side) {
            grp[i] = -1;
            continue;
        }
        int32_t g = tlm_i3map_get(&m, s->r[i].cpu_name, 0, 0);
        if (g < 0) {
            g = (int32_t)ops.n;
            tlm_ivec_push(&ops, s->r[i].cpu_name, &oom);
            if (oom || tlm_i3map_put(&m, s->r[i].cpu_name, 0, 0, g) != TLM_OK)
                goto done;
        }
        grp[i] = g;
    }
    size_t n;
    if (!(t = triples(d, s, grp, -1, 1, &n)))
        goto done;
    if (!ops.n) {
        tlm_sbuf_puts(b, "{}");
        st = TLM_OK;
        goto done;
    }
    tlm_sbuf_puts(b, "{\n");
    size_t at = 0;
    for (size_t q = 0; q < ops.n; q++) {
        indent(b, 1);
        put_name(d, b, ops.p[q]);
        tlm_sbuf_puts(b, ": ");
        if (d->identical) {
            put_entry(d, b, t, n, &at, 1);
        } else {
            tlm_sbuf_puts(b, "{\n");
            int first = 1;
            while (at < n && t[at].grp == (int32_t)q) {
                if (!first)
                    tlm_sbuf_puts(b, ",\n");
                first = 0;
                indent(b, 2);
                tlm_sbuf_puts(b, t[at].side ? "\"trace2\": " : "\"trace1\": ");
                put_entry(d, b, t, n, &at, 2);
            }
            tlm_sbuf_putc(b, '\n');
            indent(b, 1);
            tlm_sbuf_putc(b, '}');
        }
        tlm_sbuf_puts(b, q + 1 < ops.n ? ",\n" : "\n");
    }
    tlm_sbuf_putc(b, '}');
    st = TLM_OK;
done:
    free(grp);
    free(t);
    tlm_ivec_free(&ops);
    tlm_i3map_free(&m);
    return st;
}

tlm_status tlm_diff_map_json(tlm_diff *d, const tlm_dcells *c,
                             const tlm_dsummary *s, int side, tlm_sbuf *b)
{
    (void)c;
    if (side < 0)
        return map_all(d, s, b);
    /* keys: the original cpu_op names, sorted by text: group = the rank
     * of the name among the side's sorted distinct names */
    tlm_ivec keys = {0};
    int oom = 0;
    for (size_t i = 0; i < s->n; i++)
        if (d->rows[s->r[i].first].side == side)
            tlm_ivec_push(&keys, s->cname[s->r[i].first], &oom);
    if (oom) {
        tlm_ivec_free(&keys);
        return TLM_ENOMEM;
    }
    sort_uniq(d, &keys);
    tlm_i3map m;
    int32_t *grp = malloc((s->n + 1) * sizeof *grp);
    tlm_status st = TLM_ENOMEM;
    trip *t = NULL;
    if (tlm_i3map_init(&m, keys.n + 16) != TLM_OK) {
        free(grp);
        tlm_ivec_free(&keys);
        return TLM_ENOMEM;
    }
    if (!grp)
        goto done;
    for (size_t k = 0; k < keys.n; k++)
        if (tlm_i3map_put(&m, keys.p[k], 0, 0, (int32_t)k) != TLM_OK)
            goto done;
    for (size_t i = 0; i < s->n; i++)
        grp[i] = tlm_i3map_get(&m, s->cname[s->r[i].first], 0, 0);
    size_t n;
    t = triples(d, s, grp, side, 0, &n); /* both sides' rows count here */
    if (!t)
        goto done;
    if (!keys.n)
        tlm_sbuf_puts(b, "{}");
    else
        tlm_sbuf_puts(b, "{\n");
    size_t at = 0;
    for (size_t k = 0; k < keys.n; k++) {
        indent(b, 1);
        put_name(d, b, keys.p[k]);
        tlm_sbuf_puts(b, ": ");
        put_kernels(d, b, t, n, &at, 1);
        tlm_sbuf_puts(b, k + 1 < keys.n ? ",\n" : "\n}");
    }
    st = TLM_OK;
done:
    free(grp);
    free(t);
    tlm_ivec_free(&keys);
    tlm_i3map_free(&m);
    return st;
}
