/*
 * replay_select.c - which op instances are replayed (spec replay.md §1,
 * §10.1): one per row of the report's ops_unique_args (its ex_UID event),
 * optionally only the names a regular expression matches and only the N
 * rows of most direct kernel time; each checked (replay_check.c) into
 * the set.
 */
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "replay_internal.h"
#include "sortutil.h"

tlm_status tlm_replay_opts_check(const tlm_replay_opts *o, tlm_error *err)
{
    if (o->namespaces) {
        tlm_status st = tlm_replay_ns_validate(o->namespaces, err);
        if (st != TLM_OK)
            return st;
    }
    regex_t re;
    if (o->filter) {
        if (regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB) != 0)
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "--replay_filter: not a POSIX extended "
                                 "regular expression");
        regfree(&re);
    }
    return TLM_OK;
}

tlm_status tlm_replay_set_new(const char *trace_name, tlm_replay_set **out)
{
    *out = NULL;
    tlm_replay_set *s = calloc(1, sizeof *s);
    if (!s)
        return TLM_ENOMEM;
    const char *t = trace_name ? trace_name : "";
    s->trace_name = tlm_rp_printable(t, strlen(t), 255);
    if (!s->trace_name) {
        free(s);
        return TLM_ENOMEM;
    }
    *out = s;
    return TLM_OK;
}

tlm_status tlm_replay_set_add(tlm_replay_set *s, tlm_replay_op *op)
{
    if (tlm_grow((void **)&s->ops, &s->cap, s->n + 1, sizeof *s->ops, 32))
        return TLM_ENOMEM;
    s->ops[s->n++] = *op;
    memset(op, 0, sizeof *op);
    return TLM_OK;
}

void tlm_replay_set_free(tlm_replay_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        tlm_replay_op_clear(&s->ops[i]);
    free(s->ops);
    free(s->trace_name);
    free(s);
}

size_t tlm_replay_set_count(const tlm_replay_set *s)
{
    return s ? s->n : 0;
}

const tlm_replay_op *tlm_replay_set_op(const tlm_replay_set *s, size_t i)
{
    return s && i < s->n ? &s->ops[i] : NULL;
}

void tlm_replay_set_tally(const tlm_replay_set *s, size_t *counts)
{
    memset(counts, 0, TLM_RR_COUNT * sizeof *counts);
    for (size_t i = 0; s && i < s->n; i++)
        if ((unsigned)s->ops[i].status < TLM_RR_COUNT)
            counts[s->ops[i].status]++;
}

/* Columns of ops_unique_args the selection reads. */
typedef struct cols {
    long t;
    long name, count, mean, sum, uid;
} cols;

static long col(const tlm_report *r, size_t t, const char *name)
{
    for (size_t c = 0; c < tlm_report_table_cols(r, t); c++)
        if (strcmp(tlm_report_table_colname(r, t, c), name) == 0)
            return (long)c;
    return -1;
}

static double num(const tlm_report *r, const cols *c, size_t row, long k)
{
    double v = NAN;
    if (k >= 0)
        tlm_report_cell_num(r, (size_t)c->t, row, (size_t)k, &v);
    return v;
}

typedef struct sortctx {
    const tlm_report *r;
    const cols *c;
} sortctx;

/* Rows by direct kernel time (sum) descending, NaN last. */
static int by_time(const void *ud, size_t a, size_t b)
{
    const sortctx *x = ud;
    double p = num(x->r, x->c, a, x->c->sum), q = num(x->r, x->c, b, x->c->sum);
    if (isnan(p) || isnan(q))
        return isnan(p) - isnan(q);
    return p > q ? -1 : p < q;
}

/* The check of one row's event into the set. */
static tlm_status add_row(tlm_replay_set *s, const tlm_report *r,
                          const cols *c, size_t row, const tlm_trace *tr,
                          const tlm_replay_opts *o, tlm_error *err)
{
    size_t nev;
    const tlm_event *ev = tlm_trace_events(tr, &nev);
    double u = num(r, c, row, c->uid);
    if (isnan(u) || u < 0 || u >= (double)nev)
        return tlm_error_set(err, TLM_EFORMAT, tlm_trace_path(tr), -1,
                             "ops_unique_args row %zu: ex_UID is no event "
                             "of the trace", row);
    const tlm_event *e = &ev[(size_t)u];
    size_t nl;
    const char *name = tlm_trace_str(tr, e->name, &nl);
    const char *a[4];
    static const tlm_arg k[4] = {TLM_ARG_INPUT_DIMS, TLM_ARG_INPUT_TYPE,
                                 TLM_ARG_INPUT_STRIDES,
                                 TLM_ARG_CONCRETE_INPUTS};
    for (int i = 0; i < 4; i++)
        a[i] = tlm_event_arg_str(tr, e, k[i], NULL);
    tlm_replay_op op;
    tlm_status st = tlm_replay_check(name, nl, a[0], a[1], a[2], a[3], o,
                                     &op, err);
    if (st != TLM_OK)
        return st;
    op.uid = (int64_t)u;
    double cnt = num(r, c, row, c->count);
    op.count = isnan(cnt) ? 1 : (int64_t)cnt;
    op.kernel_us_mean = num(r, c, row, c->mean);
    st = tlm_replay_set_add(s, &op);
    tlm_replay_op_clear(&op);
    return st == TLM_OK ? st : tlm_error_set(err, st, NULL, -1,
                                             "out of memory");
}

/* Rows kept by the filter, in table order; *n of them in *rows. */
static tlm_status pick_rows(const tlm_report *r, const cols *c,
                            const tlm_replay_opts *o, size_t **rows,
                            size_t *n, tlm_error *err)
{
    size_t nr = tlm_report_table_rows(r, (size_t)c->t);
    regex_t re;
    int has_re = o && o->filter;
    if (has_re && regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB) != 0)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--replay_filter: not a POSIX extended regular "
                             "expression");
    *rows = malloc((nr ? nr : 1) * sizeof **rows);
    *n = 0;
    if (!*rows) {
        if (has_re)
            regfree(&re);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    char name[512];
    for (size_t i = 0; i < nr; i++) {
        if (has_re) {
            size_t need = tlm_report_cell_text(r, (size_t)c->t, i,
                                               (size_t)c->name, name,
                                               sizeof name);
            if (need >= sizeof name || regexec(&re, name, 0, NULL, 0) != 0)
                continue;
        }
        (*rows)[(*n)++] = i;
    }
    if (has_re)
        regfree(&re);
    return TLM_OK;
}

tlm_status tlm_replay_select(const tlm_report *rep, const tlm_trace *trace,
                             const char *trace_name,
                             const tlm_replay_opts *o, tlm_replay_set **out,
                             tlm_error *err)
{
    *out = NULL;
    cols c;
    c.t = tlm_report_table_find(rep, "ops_unique_args");
    if (c.t < 0)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "no ops_unique_args table: nothing to replay");
    c.name = col(rep, (size_t)c.t, "name");
    c.count = col(rep, (size_t)c.t, "operation_count");
    c.mean = col(rep, (size_t)c.t, "total_direct_kernel_time_mean");
    c.sum = col(rep, (size_t)c.t, "total_direct_kernel_time_sum");
    c.uid = col(rep, (size_t)c.t, "ex_UID");
    if (c.name < 0 || c.uid < 0)
        return tlm_error_set(err, TLM_EINVAL, tlm_trace_path(trace), -1,
                             "ops_unique_args without name or ex_UID");
    size_t *rows = NULL, n = 0;
    tlm_status st = pick_rows(rep, &c, o, &rows, &n, err);
    if (st != TLM_OK)
        return st;
    if (o && o->top) {
        sortctx sc = {rep, &c};
        if (tlm_sort_idx(rows, n, by_time, &sc) != TLM_OK) {
            free(rows);
            return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        }
        if (n > o->top)
            n = o->top;
    }
    tlm_replay_set *s = NULL;
    st = tlm_replay_set_new(trace_name, &s);
    if (st != TLM_OK)
        tlm_error_set(err, st, NULL, -1, "out of memory");
    for (size_t i = 0; st == TLM_OK && i < n; i++)
        st = add_row(s, rep, &c, rows[i], trace, o, err);
    free(rows);
    if (st != TLM_OK) {
        tlm_replay_set_free(s);
        return st;
    }
    *out = s;
    return TLM_OK;
}
