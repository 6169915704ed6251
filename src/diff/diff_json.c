/*
 * diff_json.c - cpu_op_map.json, cpu_op_map_trace1.json and
 * cpu_op_map_trace2.json (§8) in Python's json.dump(indent=2,
 * ensure_ascii=False) layout, without a trailing newline.
 */
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

static const tlm_dstrtab *g_names;

static int cmp_id(const void *x, const void *y)
{
    size_t an, bn;
    const char *a = tlm_dstrtab_str(g_names, *(const int32_t *)x, &an);
    const char *b = tlm_dstrtab_str(g_names, *(const int32_t *)y, &bn);
    size_t n = an < bn ? an : bn;
    int k = memcmp(a, b, n);
    return k ? k : (an > bn) - (an < bn);
}

/* Sorted distinct names. */
static void sort_uniq(tlm_diff *d, tlm_ivec *v)
{
    g_names = &d->names;
    qsort(v->p, v->n, sizeof *v->p, cmp_id);
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

static void put_list(tlm_diff *d, tlm_sbuf *b, const tlm_ivec *v, int lvl)
{
    if (!v->n) {
        tlm_sbuf_puts(b, "[]");
        return;
    }
    tlm_sbuf_puts(b, "[\n");
    for (size_t i = 0; i < v->n; i++) {
        indent(b, lvl + 1);
        put_name(d, b, v->p[i]);
        tlm_sbuf_puts(b, i + 1 < v->n ? ",\n" : "\n");
    }
    indent(b, lvl);
    tlm_sbuf_putc(b, ']');
}

/* {"kernels": [...], "nn_module_parents": [...]} of op (rewritten name)
 * on one side; 0 when the side has no row of it. */
static int side_entry(tlm_diff *d, const tlm_dsummary *s, int32_t op,
                      int side, tlm_sbuf *b, int lvl, int *oom)
{
    tlm_ivec k = {0};
    for (size_t i = 0; i < s->n; i++)
        if (s->r[i].cpu_name == op && d->rows[s->r[i].first].side == side)
            tlm_ivec_push(&k, s->kname[s->r[i].first], oom);
    if (!k.n) {
        tlm_ivec_free(&k);
        return 0;
    }
    sort_uniq(d, &k);
    tlm_sbuf_puts(b, "{\n");
    indent(b, lvl + 1);
    tlm_sbuf_puts(b, "\"kernels\": ");
    put_list(d, b, &k, lvl + 1);
    tlm_sbuf_puts(b, ",\n");
    indent(b, lvl + 1);
    tlm_sbuf_puts(b, "\"nn_module_parents\": [\n");
    indent(b, lvl + 2);
    tlm_sbuf_puts(b, "\"root\"\n");
    indent(b, lvl + 1);
    tlm_sbuf_puts(b, "]\n");
    indent(b, lvl);
    tlm_sbuf_putc(b, '}');
    tlm_ivec_free(&k);
    return 1;
}

static int in_ops(const tlm_ivec *v, int32_t x)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->p[i] == x)
            return 1;
    return 0;
}

static tlm_status map_all(tlm_diff *d, const tlm_dsummary *s, tlm_sbuf *b)
{
    int oom = 0;
    tlm_ivec ops = {0};
    for (size_t i = 0; i < s->n; i++)
        if (!(d->identical && d->rows[s->r[i].first].side) &&
            !in_ops(&ops, s->r[i].cpu_name))
            tlm_ivec_push(&ops, s->r[i].cpu_name, &oom);
    if (!ops.n) {
        tlm_sbuf_puts(b, "{}");
        tlm_ivec_free(&ops);
        return oom ? TLM_ENOMEM : TLM_OK;
    }
    tlm_sbuf_puts(b, "{\n");
    for (size_t q = 0; q < ops.n; q++) {
        indent(b, 1);
        put_name(d, b, ops.p[q]);
        tlm_sbuf_puts(b, ": ");
        if (d->identical) {
            side_entry(d, s, ops.p[q], 0, b, 1, &oom);
        } else {
            tlm_sbuf_puts(b, "{\n");
            int first = 1;
            for (int side = 0; side < 2; side++) {
                size_t at = b->len;
                if (!first)
                    tlm_sbuf_puts(b, ",\n");
                indent(b, 2);
                tlm_sbuf_puts(b, side ? "\"trace2\": " : "\"trace1\": ");
                if (side_entry(d, s, ops.p[q], side, b, 2, &oom))
                    first = 0;
                else
                    b->len = at;
            }
            tlm_sbuf_putc(b, '\n');
            indent(b, 1);
            tlm_sbuf_putc(b, '}');
        }
        tlm_sbuf_puts(b, q + 1 < ops.n ? ",\n" : "\n");
    }
    tlm_sbuf_putc(b, '}');
    tlm_ivec_free(&ops);
    return oom ? TLM_ENOMEM : TLM_OK;
}

tlm_status tlm_diff_map_json(tlm_diff *d, const tlm_dcells *c,
                             const tlm_dsummary *s, int side, tlm_sbuf *b)
{
    (void)c;
    if (side < 0)
        return map_all(d, s, b);
    int oom = 0;
    tlm_ivec ops = {0}, k = {0};
    for (size_t i = 0; i < s->n; i++)
        if (d->rows[s->r[i].first].side == side)
            tlm_ivec_push(&ops, s->cname[s->r[i].first], &oom);
    sort_uniq(d, &ops);
    if (!ops.n)
        tlm_sbuf_puts(b, "{}");
    else
        tlm_sbuf_puts(b, "{\n");
    for (size_t q = 0; q < ops.n && !oom; q++) {
        k.n = 0;
        for (size_t i = 0; i < s->n; i++)
            if (d->rows[s->r[i].first].side == side &&
                s->cname[s->r[i].first] == ops.p[q])
                tlm_ivec_push(&k, s->kname[s->r[i].first], &oom);
        sort_uniq(d, &k);
        indent(b, 1);
        put_name(d, b, ops.p[q]);
        tlm_sbuf_puts(b, ": ");
        put_list(d, b, &k, 1);
        tlm_sbuf_puts(b, q + 1 < ops.n ? ",\n" : "\n}");
    }
    tlm_ivec_free(&ops);
    tlm_ivec_free(&k);
    return oom ? TLM_ENOMEM : TLM_OK;
}
