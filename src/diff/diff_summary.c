/*
 * diff_summary.c - diff_stats_unique_args_summary (§7): rows grouped by
 * every column but kernel_time and the two UIDs, sorted by kernel time
 * then by the text of every column, and the cpu_op renaming of §8 that
 * TraceLens applies to it afterwards.
 */
#define _GNU_SOURCE 1 /* memmem, qsort_r */
#include "diff_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyrepr.h"

static const int KEY_COLS[] = {
    TLM_DC_NAME, TLM_DC_CPU_NAME, TLM_DC_CPU_UID, TLM_DC_SOURCE,
    TLM_DC_DIMS, TLM_DC_STRIDES, TLM_DC_TYPE, TLM_DC_CONCRETE, TLM_DC_BUSY,
    TLM_DC_LCA_NAME, TLM_DC_NN_STACK, TLM_DC_NN_PARENT};
#define NKEY (sizeof KEY_COLS / sizeof KEY_COLS[0])

typedef struct sctx {
    const tlm_diff *d;
    const tlm_dcells *c;
    const tlm_dsum *r;
} sctx;


static int cmp_text(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int k = memcmp(a, b, n);
    if (k)
        return k;
    return (an > bn) - (an < bn);
}

static int cmp_sum(const void *x, const void *y, void *ctx)
{
    const sctx *g = ctx;
    const tlm_dsum *a = x, *b = y;
    if (a->ksum != b->ksum)
        return a->ksum > b->ksum ? -1 : 1;
    char ta[40], tb[40];
    for (size_t k = 0; k <= NKEY + 1; k++) {
        size_t an, bn;
        const char *pa, *pb;
        if (k == 1) { /* operation_count */
            an = (size_t)snprintf(ta, sizeof ta, "%zu", a->count);
            bn = (size_t)snprintf(tb, sizeof tb, "%zu", b->count);
            pa = ta;
            pb = tb;
        } else if (k == NKEY + 1) { /* kernel_time_mean */
            pa = a->mean_txt;
            pb = b->mean_txt;
            an = strlen(pa);
            bn = strlen(pb);
        } else {
            int col = KEY_COLS[k ? k - 1 : 0];
            pa = tlm_dcell(g->c, a->first, col, &an);
            pb = tlm_dcell(g->c, b->first, col, &bn);
            if (col == TLM_DC_LCA_NAME) {
                if (g->d->rows[a->first].lca < 0) {
                    pa = "None";
                    an = 4;
                }
                if (g->d->rows[b->first].lca < 0) {
                    pb = "None";
                    bn = 4;
                }
            }
        }
        int c = cmp_text(pa, an, pb, bn);
        if (c)
            return c;
    }
    return (a->first > b->first) - (a->first < b->first);
}

static int32_t intern(tlm_diff *d, const char *s, size_t n)
{
    return tlm_dstrtab_intern(&d->names, s, n);
}

/* §8 common(n1, n2); -1 = none. */
static int32_t common(tlm_diff *d, int32_t n1, int32_t n2)
{
    size_t l1, l2;
    const char *a = tlm_dstrtab_str(&d->names, n1, &l1);
    const char *b = tlm_dstrtab_str(&d->names, n2, &l2);
    const char *s1 = a, *s2 = b;
    for (size_t i = 0; i + 1 < l1; i++)
        if (a[i] == ':' && a[i + 1] == ':')
            s1 = a + i + 2;
    for (size_t i = 0; i + 1 < l2; i++)
        if (b[i] == ':' && b[i + 1] == ':')
            s2 = b + i + 2;
    size_t m1 = l1 - (size_t)(s1 - a), m2 = l2 - (size_t)(s2 - b);
    if (m1 == m2 && memcmp(s1, s2, m1) == 0)
        return intern(d, s1, m1);
    if (m1 <= m2 && (m1 == 0 || memmem(s2, m2, s1, m1)))
        return intern(d, s1, m1);
    if (m2 <= m1 && (m2 == 0 || memmem(s1, m1, s2, m2)))
        return intern(d, s2, m2);
    size_t p1 = m1 < 20 ? m1 : 20, p2 = m2 < 20 ? m2 : 20;
    if (p1 == p2 && memcmp(s1, s2, p1) == 0) {
        tlm_sbuf t;
        tlm_sbuf_init(&t);
        tlm_sbuf_putn(&t, s1, m1);
        tlm_sbuf_putc(&t, '/');
        tlm_sbuf_putn(&t, s2, m2);
        int32_t id = t.oom ? -1 : intern(d, t.p, t.len);
        tlm_sbuf_free(&t);
        return id;
    }
    /* module fallback: every op's nn_module_parent is "root" here (the
     * trees hold no python functions) */
    return intern(d, "root", 4);
}

static int in_list(const int32_t *l, size_t n, int32_t x)
{
    for (size_t i = 0; i < n; i++)
        if (l[i] == x)
            return 1;
    return 0;
}

/* The rename map (§8), as map[name id] = new name id or -1 (ids below
 * *nmap). */
static tlm_status rename_map(tlm_diff *d, const tlm_dsummary *s,
                             int32_t **mapo)
{
    tlm_status st = TLM_ENOMEM;
    int oom = 0;
    size_t nn = d->nn + 1, nmap = d->names.n;
    int32_t *cnt = calloc(nn + 1, sizeof *cnt);
    int32_t *rows = malloc((d->nrows + 1) * sizeof *rows);
    int32_t *order = malloc((nn + 1) * sizeof *order);
    uint8_t *seen = calloc(nmap + 1, 1);
    int32_t *map = malloc((nmap + 1) * sizeof *map);
    tlm_ivec n1 = {0}, n2 = {0};
    size_t no = 0;
    if (!cnt || !rows || !order || !seen || !map)
        goto done;
    memset(map, 0xff, (nmap + 1) * sizeof *map);
    /* rows bucketed by LCA id; LCAs in order of first appearance */
    for (size_t i = 0; i < d->nrows; i++) {
        int32_t l = d->rows[i].lca;
        if (l < 0)
            continue;
        if (!cnt[l + 1]++)
            order[no++] = l;
    }
    for (size_t l = 1; l <= nn; l++)
        cnt[l] += cnt[l - 1];
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].lca >= 0)
            rows[cnt[d->rows[i].lca]++] = (int32_t)i;
    /* cnt[l] is now the end of bucket l; its start is cnt[l - 1] */
    for (size_t q = 0; q < no; q++) {
        int32_t l = order[q];
        size_t b0 = l ? (size_t)cnt[l - 1] : 0, b1 = (size_t)cnt[l];
        n1.n = n2.n = 0;
        for (size_t k = b0; k < b1; k++) {
            int32_t r = rows[k];
            tlm_ivec *v = d->rows[r].side ? &n2 : &n1;
            if (!in_list(v->p, v->n, s->cname[r]))
                tlm_ivec_push(v, s->cname[r], &oom);
        }
        if (oom)
            goto done;
        if (!n1.n || !n2.n)
            continue;
        int all = 1;
        for (size_t k = 0; k < n1.n; k++)
            all &= seen[n1.p[k]];
        for (size_t k = 0; k < n2.n; k++)
            all &= seen[n2.p[k]];
        if (all)
            continue;
        for (size_t k = 0; k < n1.n; k++)
            seen[n1.p[k]] = 1;
        for (size_t k = 0; k < n2.n; k++)
            seen[n2.p[k]] = 1;
        if (n1.n == n2.n) {
            for (size_t k = 0; k < n1.n; k++) {
                if (n1.p[k] == n2.p[k])
                    continue;
                int32_t c = common(d, n1.p[k], n2.p[k]);
                if (c >= 0)
                    map[n1.p[k]] = map[n2.p[k]] = c;
            }
            continue;
        }
        for (size_t a = 0; a < n1.n; a++)
            for (size_t b = 0; b < n2.n; b++)
                if (n2.p[b] == n1.p[a]) {
                    n1.p[a] = n2.p[b] = -1;
                    break;
                }
        for (size_t a = 0; a < n1.n; a++) {
            if (n1.p[a] < 0)
                continue;
            for (size_t b = 0; b < n2.n; b++) {
                if (n2.p[b] < 0)
                    continue;
                int32_t c = common(d, n1.p[a], n2.p[b]);
                if (c < 0)
                    continue;
                map[n1.p[a]] = map[n2.p[b]] = c;
                n2.p[b] = -1;
                break;
            }
        }
    }
    st = TLM_OK;
done:
    free(cnt);
    free(rows);
    free(order);
    free(seen);
    tlm_ivec_free(&n1);
    tlm_ivec_free(&n2);
    if (st != TLM_OK) {
        free(map);
        map = NULL;
    }
    *mapo = map;
    return st;
}

tlm_status tlm_dsummary_build(tlm_diff *d, const tlm_dcells *c,
                              tlm_dsummary *s)
{
    memset(s, 0, sizeof *s);
    tlm_status st = TLM_ENOMEM;
    tlm_i3map keys;
    tlm_sbuf k;
    tlm_sbuf_init(&k);
    int32_t *map = NULL;
    size_t n = d->nrows;
    if (tlm_i3map_init(&keys, n + 16) != TLM_OK)
        return TLM_ENOMEM;
    s->r = malloc((n + 1) * sizeof *s->r);
    s->kname = malloc((n + 1) * sizeof *s->kname);
    s->cname = malloc((n + 1) * sizeof *s->cname);
    if (!s->r || !s->kname || !s->cname)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const tlm_drow *row = &d->rows[i];
        size_t ln;
        const char *t = tlm_dcell(c, i, TLM_DC_NAME, &ln);
        s->kname[i] = intern(d, t, ln);
        t = tlm_dcell(c, i, TLM_DC_CPU_NAME, &ln);
        s->cname[i] = intern(d, t, ln);
        if (s->kname[i] < 0 || s->cname[i] < 0)
            goto done;
        int64_t dur = tlm_ev_dur(&(d->s[row->side].ev[row->g]));
        if (dur % 1000)
            s->kt_float = 1;
        /* the grouping key (§7): the cpu_op's name and arguments follow
         * from (side, cpu_op_uid); nn_module columns are constant; the
         * text of busy_time from its value */
        uint64_t busy;
        memcpy(&busy, &row->busy, sizeof busy);
        int64_t ka = (int64_t)s->kname[i] * 2 + row->side;
        int64_t kb = (int64_t)row->cpu << 32 |
                     (uint32_t)(row->lca < 0 ? 1 : row->lca_name * 2 + 2);
        int32_t g = tlm_i3map_get(&keys, ka, kb, (int64_t)busy);
        if (g < 0) {
            g = (int32_t)s->n;
            if (tlm_i3map_put(&keys, ka, kb, (int64_t)busy, g) != TLM_OK)
                goto done;
            tlm_dsum *r = &s->r[s->n++];
            r->first = i;
            r->count = 0;
            r->ksum = 0;
        }
        tlm_dsum *r = &s->r[g];
        r->count++;
        r->ksum += (double)dur / 1000.0;
    }
    for (size_t i = 0; i < s->n; i++) {
        s->r[i].kmean = s->r[i].ksum / (double)s->r[i].count;
        k.len = 0;
        tlm_diff_float(&k, s->r[i].kmean);
        if (k.oom || k.len >= sizeof s->r[i].mean_txt)
            goto done;
        memcpy(s->r[i].mean_txt, k.p, k.len);
        s->r[i].mean_txt[k.len] = 0;
    }
    sctx g = {d, c, NULL};
    if (s->n > 1)
        qsort_r(s->r, s->n, sizeof *s->r, cmp_sum, &g);
    if (rename_map(d, s, &map) != TLM_OK)
        goto done;
    for (size_t i = 0; i < s->n; i++) {
        int32_t nm = s->cname[s->r[i].first];
        s->r[i].cpu_name = map[nm] >= 0 ? map[nm] : nm;
    }
    d->st.summary_rows = s->n;
    st = TLM_OK;
done:
    free(map);
    tlm_sbuf_free(&k);
    tlm_i3map_free(&keys);
    return st;
}

void tlm_dsummary_free(tlm_dsummary *s)
{
    free(s->r);
    free(s->kname);
    free(s->cname);
    memset(s, 0, sizeof *s);
}

void tlm_diff_unique_csv(tlm_diff *d, const tlm_dcells *c,
                         const tlm_dsummary *s, tlm_sbuf *b, FILE *fp,
                         int *werr)
{
    static const int cols[] = {
        TLM_DC_NAME, -1, TLM_DC_CPU_NAME, TLM_DC_CPU_UID, TLM_DC_SOURCE,
        TLM_DC_DIMS, TLM_DC_STRIDES, TLM_DC_TYPE, TLM_DC_CONCRETE,
        TLM_DC_BUSY, TLM_DC_LCA_NAME, TLM_DC_NN_STACK, TLM_DC_NN_PARENT, -2,
        -3};
    tlm_sbuf_puts(b, "name,operation_count,cpu_op_name,cpu_op_uid,");
    if (!d->identical)
        tlm_sbuf_puts(b, "source,");
    tlm_sbuf_puts(b, "Input Dims,Input Strides,Input type,Concrete Inputs,"
                     "busy_time,lowest_common_ancestor_name,"
                     "nn_module_stack,nn_module_parent,kernel_time_mean,"
                     "kernel_time_sum\n");
    for (size_t i = 0; i < s->n; i++) {
        const tlm_dsum *r = &s->r[i];
        if (d->identical && d->rows[r->first].side)
            continue;
        for (size_t q = 0; q < sizeof cols / sizeof cols[0]; q++) {
            int col = cols[q];
            if (col == TLM_DC_SOURCE && d->identical)
                continue;
            if (q)
                tlm_sbuf_putc(b, ',');
            size_t n;
            const char *t;
            if (col == -1) {
                tlm_sbuf_printf(b, "%zu", r->count);
            } else if (col == -2) {
                tlm_sbuf_puts(b, r->mean_txt);
            } else if (col == -3) {
                if (s->kt_float)
                    tlm_diff_float(b, r->ksum);
                else
                    tlm_sbuf_printf(b, "%.0f", r->ksum);
            } else if (col == TLM_DC_CPU_NAME) {
                t = tlm_dstrtab_str(&d->names, r->cpu_name, &n);
                tlm_diff_csv(b, t, n);
            } else {
                t = tlm_dcell(c, r->first, col, &n);
                tlm_diff_csv(b, t, n);
            }
        }
        tlm_sbuf_putc(b, '\n');
        tlm_diff_flush(b, fp, werr);
    }
}
