/*
 * diff_csv.c - the tables of TraceDiff as text: the cells of every
 * diff_stats row (§6.2), diff_stats.csv (§6.3), the unique-args summary
 * with its grouping and sort (§7), and tlmpi's diff_summary.csv.
 */
#include "diff_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyrepr.h"

static const char *const STATS_COLS[TLM_DC_N] = {
    "name", "cpu_op_name", "cpu_op_uid", "source", "Input Dims",
    "Input Strides", "Input type", "Concrete Inputs", "kernel_time",
    "busy_time", "lowest_common_ancestor_name", "lowest_common_ancestor_id",
    "gpu_op_uid", "nn_module_stack", "nn_module_parent"};

void tlm_diff_float(tlm_sbuf *b, double v)
{
    double k = rint(v * 1000.0);
    if (v == 0.0 || !(fabs(k) < 1e15) || k / 1000.0 != v) {
        tlm_sbuf_pyfloat(b, v);
        return;
    }
    /* v is the double nearest k/1000 and k has at most 15 digits: the
     * trimmed decimal is its shortest round-trip text */
    long long q = (long long)k;
    unsigned long long a = (unsigned long long)(q < 0 ? -q : q);
    char frac[4] = {(char)('0' + a / 100 % 10), (char)('0' + a / 10 % 10),
                    (char)('0' + a % 10), 0};
    int nf = 3;
    while (nf > 1 && frac[nf - 1] == '0')
        nf--;
    tlm_sbuf_printf(b, "%s%llu.%.*s", q < 0 ? "-" : "", a / 1000, nf, frac);
}

const char *tlm_dcell(const tlm_dcells *c, size_t row, int col, size_t *n)
{
    size_t k = row * TLM_DC_N + (size_t)col;
    *n = c->len[k];
    return c->text.p + c->off[k];
}

static void put_arg(tlm_sbuf *b, const tlm_trace *tr, const tlm_event *e,
                    tlm_arg key)
{
    size_t len;
    const char *v = tlm_event_arg_str(tr, e, key, &len);
    if (!v) {
        int64_t iv;
        if (tlm_event_arg_int(tr, e, key, &iv))
            tlm_sbuf_printf(b, "%lld", (long long)iv);
        return;
    }
    size_t at = b->len;
    if (tlm_sbuf_json_pyrepr(b, v, len, 1) != 0) {
        b->len = at;
        tlm_sbuf_putn(b, v, len);
    }
}

tlm_status tlm_dcells_build(tlm_diff *d, tlm_dcells *c)
{
    memset(c, 0, sizeof *c);
    tlm_sbuf_init(&c->text);
    size_t n = d->nrows;
    c->off = malloc((n * TLM_DC_N + 1) * sizeof *c->off);
    c->len = malloc((n * TLM_DC_N + 1) * sizeof *c->len);
    if (!c->off || !c->len)
        return TLM_ENOMEM;
    int kt_float = 0, lca_float = 0;
    for (size_t i = 0; i < n; i++) {
        if (tlm_ev_dur(&(d->s[d->rows[i].side].ev[d->rows[i].g])) % 1000)
            kt_float = 1;
        if (d->rows[i].lca < 0)
            lca_float = 1;
    }
    tlm_sbuf_putc(&c->text, 0);
    for (size_t i = 0; i < n; i++) {
        const tlm_drow *r = &d->rows[i];
        const tlm_dside *s = &d->s[r->side];
        const tlm_event *ge = &s->ev[r->g], *ce = &s->ev[r->cpu];
        for (int col = 0; col < TLM_DC_N; col++) {
            size_t at = c->text.len;
            tlm_sbuf *b = &c->text;
            char num[24];
            size_t nl;
            const char *t;
            switch (col) {
            case TLM_DC_NAME:
                tlm_sbuf_puts(b, ge->name ? tlm_trace_str(s->tr, ge->name,
                                                          NULL) : "");
                break;
            case TLM_DC_CPU_NAME:
                t = tlm_diff_opname(d, r->side, r->cpu, &nl, num);
                tlm_sbuf_putn(b, t, nl);
                break;
            case TLM_DC_CPU_UID:
                tlm_sbuf_printf(b, "%ld", (long)r->cpu);
                break;
            case TLM_DC_SOURCE:
                tlm_sbuf_puts(b, r->side ? "trace2" : "trace1");
                break;
            case TLM_DC_DIMS:
            case TLM_DC_STRIDES:
            case TLM_DC_TYPE:
            case TLM_DC_CONCRETE: {
                static const tlm_arg keys[4] = {
                    TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_STRIDES,
                    TLM_ARG_INPUT_TYPE, TLM_ARG_CONCRETE_INPUTS};
                put_arg(b, s->tr, ce, keys[col - TLM_DC_DIMS]);
                break;
            }
            case TLM_DC_KTIME:
                if (kt_float)
                    tlm_diff_float(b, (double)tlm_ev_dur(ge) / 1000.0);
                else
                    tlm_sbuf_printf(b, "%lld",
                                    (long long)(tlm_ev_dur(ge) / 1000));
                break;
            case TLM_DC_BUSY:
                tlm_diff_float(b, r->busy);
                break;
            case TLM_DC_LCA_NAME:
                if (r->lca >= 0) {
                    t = tlm_dstrtab_str(&d->names, r->lca_name, &nl);
                    tlm_sbuf_putn(b, t, nl);
                }
                break;
            case TLM_DC_LCA_ID:
                if (r->lca >= 0)
                    tlm_sbuf_printf(b, lca_float ? "%ld.0" : "%ld",
                                    (long)r->lca);
                break;
            case TLM_DC_GPU_UID:
                tlm_sbuf_printf(b, "%ld", (long)r->g);
                break;
            default: /* nn_module_stack / parent: no python functions */
                tlm_sbuf_puts(b, "root");
                break;
            }
            if (b->len >= UINT32_MAX)
                return TLM_ELIMIT;
            c->off[i * TLM_DC_N + (size_t)col] = (uint32_t)at;
            c->len[i * TLM_DC_N + (size_t)col] = (uint32_t)(b->len - at);
            tlm_sbuf_putc(b, 0);
        }
    }
    c->n = n;
    return c->text.oom ? TLM_ENOMEM : TLM_OK;
}

void tlm_dcells_free(tlm_dcells *c)
{
    tlm_sbuf_free(&c->text);
    free(c->off);
    free(c->len);
    memset(c, 0, sizeof *c);
}

void tlm_diff_stats_csv(const tlm_diff *d, const tlm_dcells *c, tlm_sbuf *b,
                        FILE *fp, int *werr)
{
    int first = 1;
    for (int col = 0; col < TLM_DC_N; col++) {
        if (col == TLM_DC_SOURCE && d->identical)
            continue;
        if (!first)
            tlm_sbuf_putc(b, ',');
        first = 0;
        tlm_sbuf_puts(b, STATS_COLS[col]);
    }
    tlm_sbuf_putc(b, '\n');
    for (size_t i = 0; i < c->n; i++) {
        if (d->identical && d->rows[i].side)
            continue;
        first = 1;
        for (int col = 0; col < TLM_DC_N; col++) {
            if (col == TLM_DC_SOURCE && d->identical)
                continue;
            if (!first)
                tlm_sbuf_putc(b, ',');
            first = 0;
            size_t n;
            const char *t = tlm_dcell(c, i, col, &n);
            tlm_diff_csv(b, t, n);
        }
        tlm_sbuf_putc(b, '\n');
        tlm_diff_flush(b, fp, werr);
    }
}
