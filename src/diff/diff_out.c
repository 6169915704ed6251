/*
 * diff_out.c - merged_tree_output.txt (§5), tlmpi's diff_summary.csv, and
 * the rendering and staging of every output file.
 */
#define _GNU_SOURCE 1 /* qsort_r */
#include "diff_csv.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "pyrepr.h"

static const char *const FILE_NAMES[TLM_DIFF_NFILES] = {
#define TLM_X_(e, s) s,
    TLM_DIFF_FILES(TLM_X_)
#undef TLM_X_
};

const char *tlm_diff_file_name(tlm_diff_file f)
{
    return (unsigned)f < TLM_DIFF_NFILES ? FILE_NAMES[f] : NULL;
}

static void put_opname(tlm_diff *d, tlm_sbuf *b, int side, int32_t u)
{
    char num[24];
    size_t n;
    const char *s = tlm_diff_opname(d, side, u, &n, num);
    tlm_sbuf_putn(b, s, n);
}

/* The indent stops growing at this depth: deeper lines keep the prefix
 * of this depth and say their level ("[depth N] "), so the file stays
 * linear in the tree's size (a chain of 200,000 calls would need 80 GB
 * of indent otherwise). */
enum { TREE_INDENT_MAX = 32 };
/* Bytes of one line besides the names: the prefix (at most 6 bytes a
 * level), the branch (10), "combined: " and " | " (13), "[depth N] "
 * (18), the newline. */
#define TREE_LINE_FIXED (6 * TREE_INDENT_MAX + 10 + 13 + 18 + 1)

static void tree_line(tlm_diff *d, tlm_sbuf *b, const tlm_sbuf *prefix,
                      int32_t id, int last, int32_t depth)
{
    const tlm_dnode *n = &d->nodes[id];
    tlm_sbuf_putn(b, prefix->p ? prefix->p : "", prefix->len);
    tlm_sbuf_puts(b, last ? "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 "
                          : "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 ");
    if (depth > TREE_INDENT_MAX)
        tlm_sbuf_printf(b, "[depth %ld] ", (long)depth);
    if (n->u1 >= 0 && n->u2 >= 0) {
        size_t a0 = b->len;
        put_opname(d, b, 0, n->u1);
        size_t a1 = b->len;
        put_opname(d, b, 1, n->u2);
        size_t l1 = a1 - a0, l2 = b->len - a1;
        if (l1 == l2 && memcmp(b->p + a0, b->p + a1, l1) == 0) {
            b->len = a1;
        } else {
            tlm_sbuf t;
            tlm_sbuf_init(&t);
            tlm_sbuf_putn(&t, b->p + a0, b->len - a0);
            b->len = a0;
            tlm_sbuf_puts(b, "combined: ");
            tlm_sbuf_putn(b, t.p, l1);
            tlm_sbuf_puts(b, " | ");
            tlm_sbuf_putn(b, t.p + l1, l2);
            tlm_sbuf_free(&t);
        }
    } else if (n->u1 >= 0) {
        tlm_sbuf_puts(b, ">> trace1: ");
        put_opname(d, b, 0, n->u1);
    } else {
        tlm_sbuf_puts(b, "<< trace2: ");
        put_opname(d, b, 1, n->u2);
    }
    tlm_sbuf_putc(b, '\n');
}

static int kind(const tlm_dnode *n)
{
    return n->u1 >= 0 && n->u2 >= 0 ? 0 : n->u1 >= 0 ? 1 : 2;
}

/* Pre-order with an explicit stack of (id, last, depth); the prefix is
 * cut back to the depth of each node. */
void tlm_diff_tree_text(tlm_diff *d, tlm_sbuf *b, FILE *fp, int *werr)
{
    tlm_sbuf prefix;
    tlm_sbuf_init(&prefix);
    tlm_ivec st = {0};
    tlm_ivec plen = {0}; /* prefix length per depth */
    int oom = 0;
    for (size_t r = d->roots.n; r-- > 0;) {
        tlm_ivec_push(&st, d->roots.p[r], &oom);
        tlm_ivec_push(&st, r + 1 == d->roots.n, &oom);
        tlm_ivec_push(&st, 0, &oom);
    }
    tlm_ivec_push(&plen, 0, &oom);
    while (st.n && !oom && !b->oom) {
        int32_t depth = st.p[--st.n];
        int32_t last = st.p[--st.n];
        int32_t id = st.p[--st.n];
        int32_t pd = depth < TREE_INDENT_MAX ? depth : TREE_INDENT_MAX;
        prefix.len = (size_t)plen.p[pd];
        tree_line(d, b, &prefix, id, last, depth);
        tlm_diff_flush(b, fp, werr);
        const tlm_dnode *n = &d->nodes[id];
        if (!n->nkid)
            continue;
        if (depth < TREE_INDENT_MAX) {
            tlm_sbuf_puts(&prefix, last ? "    " : "\xe2\x94\x82   ");
            plen.n = (size_t)depth + 1;
            tlm_ivec_push(&plen, (int32_t)prefix.len, &oom);
        }
        /* children grouped combined, trace1, trace2; pushed reversed */
        size_t cnt = 0;
        for (int k = 2; k >= 0; k--)
            for (int32_t q = n->nkid; q-- > 0;) {
                int32_t c = d->kids.p[n->kid_off + q];
                if (kind(&d->nodes[c]) != k)
                    continue;
                tlm_ivec_push(&st, c, &oom);
                tlm_ivec_push(&st, cnt == 0, &oom);
                tlm_ivec_push(&st, depth + 1, &oom);
                cnt++;
            }
    }
    if (oom || prefix.oom)
        b->oom = 1;
    tlm_sbuf_free(&prefix);
    tlm_ivec_free(&st);
    tlm_ivec_free(&plen);
}

/* An upper bound of merged_tree_output.txt's bytes: every line with the
 * deepest prefix and both names. */
static uint64_t tree_bound(tlm_diff *d)
{
    uint64_t total = 0;
    char num[24];
    for (size_t i = 0; i < d->nn; i++) {
        const tlm_dnode *n = &d->nodes[i];
        size_t k = 0;
        total += TREE_LINE_FIXED;
        if (n->u1 >= 0) {
            tlm_diff_opname(d, 0, n->u1, &k, num);
            total += k;
        }
        if (n->u2 >= 0) {
            tlm_diff_opname(d, 1, n->u2, &k, num);
            total += k;
        }
    }
    return total;
}

/* ------------------------------------------------------ diff_summary */

typedef struct opsum {
    int32_t name;
    int64_t count[2];
    double time[2];
} opsum;

static int cmp_opsum(const void *x, const void *y, void *names)
{
    const opsum *a = x, *b = y;
    double da = a->time[1] - a->time[0], db = b->time[1] - b->time[0];
    da = da < 0 ? -da : da;
    db = db < 0 ? -db : db;
    if (da != db)
        return da > db ? -1 : 1;
    return strcmp(tlm_dstrtab_str(names, a->name, NULL),
                  tlm_dstrtab_str(names, b->name, NULL));
}

/* Per cpu_op name over the whole of both traces: every linked GPU op is
 * attributed to its nearest cpu_op ancestor (docs/diff.md). */
tlm_status tlm_diff_summary_csv(tlm_diff *d, tlm_sbuf *b)
{
    opsum *v = NULL;
    size_t nv = 0, cap = 0;
    tlm_i3map map;
    if (tlm_i3map_init(&map, 1024) != TLM_OK)
        return TLM_ENOMEM;
    tlm_status st = TLM_ENOMEM;
    for (int k = 0; k < 2; k++) {
        tlm_dside *s = &d->s[k];
        if (++s->stamp == 0) {
            memset(s->pos_stamp, 0, s->n * sizeof *s->pos_stamp);
            s->stamp = 1;
        }
        for (size_t g = 0; g < s->n; g++) {
            if (!tlm_dgpu_op(s, (int32_t)g) || s->t->nd[g].parent < 0 ||
                !(s->t->nd[g].flags & TLM_NODE_TREE))
                continue;
            int32_t cpu = -1;
            for (int32_t p = s->t->nd[g].parent; p >= 0;
                 p = s->t->nd[p].parent)
                if (s->t->nd[p].cat == TLM_CAT_CPU_OP) {
                    cpu = p;
                    break;
                }
            if (cpu < 0)
                continue;
            char num[24];
            size_t n;
            const char *nm = tlm_diff_opname(d, k, cpu, &n, num);
            int32_t id = tlm_dstrtab_intern(&d->names, nm, n);
            if (id < 0)
                goto done;
            int32_t at = tlm_i3map_get(&map, id, 0, 0);
            if (at < 0) {
                if (tlm_grow((void **)&v, &cap, nv + 1, sizeof *v, 256))
                    goto done;
                at = (int32_t)nv++;
                memset(&v[at], 0, sizeof v[at]);
                v[at].name = id;
                if (tlm_i3map_put(&map, id, 0, 0, at) != TLM_OK)
                    goto done;
            }
            if (s->pos_stamp[cpu] != s->stamp) {
                s->pos_stamp[cpu] = s->stamp;
                v[at].count[k]++;
            }
            v[at].time[k] += (double)tlm_ev_dur(&(s->ev[g])) / 1000.0;
        }
    }
    if (nv > 1)
        qsort_r(v, nv, sizeof *v, cmp_opsum, &d->names);
    tlm_sbuf_puts(b, "op,count_trace1,count_trace2,gpu_time_trace1_us,"
                     "gpu_time_trace2_us,delta_us (trace2 - trace1),"
                     "delta_pct\n");
    for (size_t i = 0; i < nv; i++) {
        size_t n;
        const char *nm = tlm_dstrtab_str(&d->names, v[i].name, &n);
        tlm_diff_csv(b, nm, n);
        tlm_sbuf_printf(b, ",%lld,%lld,", (long long)v[i].count[0],
                        (long long)v[i].count[1]);
        double t1 = rint(v[i].time[0] * 1000.0) / 1000.0;
        double t2 = rint(v[i].time[1] * 1000.0) / 1000.0;
        double dl = rint((v[i].time[1] - v[i].time[0]) * 1000.0) / 1000.0;
        tlm_diff_float(b, t1);
        tlm_sbuf_putc(b, ',');
        tlm_diff_float(b, t2);
        tlm_sbuf_putc(b, ',');
        tlm_diff_float(b, dl + 0.0);
        tlm_sbuf_putc(b, ',');
        if (v[i].time[0] > 0)
            tlm_diff_float(b, rint((v[i].time[1] - v[i].time[0]) /
                                   v[i].time[0] * 100.0 * 100.0) / 100.0 +
                                  0.0);
        tlm_sbuf_putc(b, '\n');
    }
    st = b->oom ? TLM_ENOMEM : TLM_OK;
done:
    free(v);
    tlm_i3map_free(&map);
    return st;
}

/* ----------------------------------------------------------- render */

void tlm_diff_out_free(tlm_diff *d)
{
    if (d->cells)
        tlm_dcells_free(d->cells);
    if (d->sum)
        tlm_dsummary_free(d->sum);
    free(d->cells);
    free(d->sum);
    d->cells = NULL;
    d->sum = NULL;
}

/* The cells and the summary, made on first use. */
static tlm_status tables(tlm_diff *d)
{
    if (d->sum)
        return TLM_OK;
    tlm_diff_out_free(d);
    d->cells = calloc(1, sizeof *d->cells);
    tlm_dsummary *s = calloc(1, sizeof *s);
    tlm_status st = TLM_ENOMEM;
    if (d->cells && s && (st = tlm_dcells_build(d, d->cells)) == TLM_OK &&
        (st = tlm_dsummary_build(d, d->cells, s)) == TLM_OK) {
        d->sum = s;
        return TLM_OK;
    }
    if (s)
        tlm_dsummary_free(s);
    free(s);
    tlm_diff_out_free(d);
    return st;
}

tlm_status tlm_diff_render(tlm_diff *d, tlm_diff_file f, char **text,
                           size_t *len, tlm_error *err)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_status st = TLM_OK;
    *text = NULL;
    *len = 0;
    if (f == TLM_DIFF_TREE) {
        tlm_diff_tree_text(d, &b, NULL, NULL);
    } else if (f == TLM_DIFF_SUMMARY) {
        st = tlm_diff_summary_csv(d, &b);
    } else if ((unsigned)f < TLM_DIFF_NFILES) {
        st = tables(d);
        if (st == TLM_OK) {
            if (f == TLM_DIFF_STATS)
                tlm_diff_stats_csv(d, d->cells, &b, NULL, NULL);
            else if (f == TLM_DIFF_UNIQUE)
                tlm_diff_unique_csv(d, d->cells, d->sum, &b, NULL, NULL);
            else
                st = tlm_diff_map_json(d, d->cells, d->sum,
                                       f == TLM_DIFF_MAP ? -1
                                       : f == TLM_DIFF_MAP1 ? 0 : 1, &b);
        }
    } else {
        st = TLM_EINVAL;
    }
    if (st == TLM_OK && b.oom)
        st = TLM_ENOMEM;
    if (st != TLM_OK) {
        tlm_sbuf_free(&b);
        return tlm_error_set(err, st, tlm_diff_file_name(f), -1,
                             "cannot render the output");
    }
    tlm_sbuf_putc(&b, 0);
    if (b.oom) {
        tlm_sbuf_free(&b);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    *text = b.p;
    *len = b.len - 1;
    return TLM_OK;
}

/* Writes output f to its temporary tmp. */
static tlm_status write_one(tlm_diff *d, int f, const char *tmp,
                            tlm_error *err)
{
    char *text = NULL;
    size_t len = 0;
    tlm_status st = TLM_OK;
    FILE *fp = fopen(tmp, "wb");
    if (!fp)
        return tlm_error_set(err, TLM_EIO, tmp, -1, "cannot create");
    int werr = 0;
    if (f == TLM_DIFF_TREE || f == TLM_DIFF_STATS || f == TLM_DIFF_UNIQUE) {
        /* streamed: they can be large (the cells are made already) */
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        if (f == TLM_DIFF_TREE)
            tlm_diff_tree_text(d, &b, fp, &werr);
        else if (f == TLM_DIFF_STATS)
            tlm_diff_stats_csv(d, d->cells, &b, fp, &werr);
        else
            tlm_diff_unique_csv(d, d->cells, d->sum, &b, fp, &werr);
        if (!b.oom && fwrite(b.p ? b.p : "", 1, b.len, fp) != b.len)
            werr = 1;
        if (b.oom)
            st = tlm_error_set(err, TLM_ENOMEM, tmp, -1, "out of memory");
        tlm_sbuf_free(&b);
    } else if ((st = tlm_diff_render(d, (tlm_diff_file)f, &text, &len,
                                     err)) == TLM_OK) {
        werr = fwrite(text, 1, len, fp) != len;
    }
    free(text);
    tlm_status cs = tlm_outset_fclose(fp, tmp, err);
    if (st == TLM_OK)
        st = cs;
    if (st == TLM_OK && werr)
        st = tlm_error_set(err, TLM_EIO, tmp, -1, "short write");
    return st;
}

/* The helper thread's share: the tree and diff_stats.csv, which only
 * read the diff (the cells are made before it starts); the calling
 * thread writes the rest, which adds names to the diff's table. */
typedef struct wjob {
    tlm_diff *d;
    const char *tmp[TLM_DIFF_NFILES];
    tlm_error err;
    tlm_status st;
} wjob;

static int in_helper(int f) { return f == TLM_DIFF_TREE || f == TLM_DIFF_STATS; }

static void *write_helper(void *arg)
{
    wjob *j = arg;
    j->st = TLM_OK;
    for (int f = 0; f < TLM_DIFF_NFILES && j->st == TLM_OK; f++)
        if (in_helper(f))
            j->st = write_one(j->d, f, j->tmp[f], &j->err);
    return NULL;
}

tlm_status tlm_diff_stage(tlm_diff *d, tlm_outset *set, const char *dir,
                          tlm_error *err)
{
    wjob j;
    memset(&j, 0, sizeof j);
    j.d = d;
    tlm_error_clear(&j.err);
    char paths[TLM_DIFF_NFILES][4096];
    for (int f = 0; f < TLM_DIFF_NFILES; f++)
        snprintf(paths[f], sizeof paths[f], "%s/%s", dir, FILE_NAMES[f]);
    uint64_t tb = tree_bound(d);
    uint64_t cap = d->opts.max_output_bytes ? d->opts.max_output_bytes
                                            : TLM_DIFF_MAX_OUTPUT_DEFAULT;
    if (tb > cap) /* before any file is made */
        return tlm_error_set(
            err, TLM_ELIMIT, paths[TLM_DIFF_TREE], -1,
            "would be up to %.1f MB (%zu merged nodes), over the cap of "
            "%.0f MB of one output: nothing written",
            (double)tb / 1e6, d->nn, (double)cap / 1e6);
    for (int f = 0; f < TLM_DIFF_NFILES; f++) {
        tlm_status st = tlm_outset_stage(set, paths[f], &j.tmp[f], err);
        if (st != TLM_OK)
            return st;
    }
    tlm_status st = tables(d);
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1, "out of memory");
    pthread_t th;
    int threaded = pthread_create(&th, NULL, write_helper, &j) == 0;
    for (int f = 0; f < TLM_DIFF_NFILES && st == TLM_OK; f++)
        if (!in_helper(f))
            st = write_one(d, f, j.tmp[f], err);
    if (threaded)
        pthread_join(th, NULL);
    else
        write_helper(&j);
    if (st == TLM_OK && j.st != TLM_OK) {
        *err = j.err;
        st = j.st;
    }
    for (int f = 0; st != TLM_OK && err && f < TLM_DIFF_NFILES; f++)
        if (j.tmp[f] && !strcmp(err->file, j.tmp[f])) { /* the output,
                                                          not its temporary */
            char m[sizeof err->msg];
            memcpy(m, err->msg, sizeof m);
            tlm_error_set(err, err->code, paths[f], -1, "%s", m);
        }
    return st;
}
