/*
 * hta_tables.c - the list of HTA table builders, the options, and the
 * job-level join of several ranks' tables (tlm_hta_merge).
 *
 * tlm_hta_build runs every builder of `builders` on one rank's event
 * table, in order; the tables appear in the result (and the CSV/HDF5
 * outputs) in that order.  A builder marked SEQ_RANK runs on the rank
 * chosen by --hta_rank only (the kernel sequences and the critical path).
 */
#include "hta_cpath.h"
#include "hta_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef tlm_status (*builder_fn)(const tlm_hta_events *ev,
                                 const tlm_hta_opts *o, tlm_hta_result *r,
                                 tlm_error *err);

enum { ALL_RANKS = 0, SEQ_RANK = 1 };

static const struct {
    builder_fn fn;
    int scope;
} builders[] = {
    /* temporal_breakdown, comm_comp_overlap, gpu_kernel_breakdown_by_type */
    {tlm_hta_build_temporal, ALL_RANKS},
    /* idle_time_breakdown, idle_interval_stats */
    {tlm_hta_build_idle, ALL_RANKS},
    /* cuda_kernel_launch_stats, cuda_kernel_launch_summary */
    {tlm_hta_build_launch, ALL_RANKS},
    {tlm_hta_build_queue, ALL_RANKS},
    {tlm_hta_build_kernels, ALL_RANKS},
    /* frequent_cuda_kernel_sequences (only with --hta_kernel_sequences) */
    {tlm_hta_build_seq, SEQ_RANK},
    /* critical_path_summary, critical_path_edges (spec §9, hta_cpath*.c);
     * without a window: notes.cp_reason */
    {tlm_hta_build_critical_path, SEQ_RANK},
};

static const tlm_hta_tdef *const tdefs[] = {
    &tlm_hta_def_temporal,      &tlm_hta_def_idle,
    &tlm_hta_def_idle_stats,    &tlm_hta_def_overlap,
    &tlm_hta_def_launch_stats,  &tlm_hta_def_launch_summary,
    &tlm_hta_def_queue,         &tlm_hta_def_by_type,
    &tlm_hta_def_kernels,       &tlm_hta_def_seq,
    &tlm_hta_def_cp_summary,    &tlm_hta_def_cp_edges,
};

const tlm_hta_tdef *tlm_hta_tdef_find(const char *name)
{
    for (size_t i = 0; i < sizeof tdefs / sizeof tdefs[0]; i++) {
        if (strcmp(tdefs[i]->name, name) == 0)
            return tdefs[i];
    }
    return NULL;
}

int tlm_hta_table_def(size_t i, const char **name, const char **doc,
                      const tlm_hta_col **cols, size_t *ncols)
{
    if (i >= sizeof tdefs / sizeof tdefs[0])
        return 0;
    *name = tdefs[i]->name;
    *doc = tdefs[i]->doc;
    *cols = tdefs[i]->cols;
    *ncols = tdefs[i]->ncols;
    return 1;
}

void tlm_hta_drop_rank_tables(tlm_hta_result *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->t[i]->def->rank_only)
            tlm_hta_table_free(r->t[i]);
        else
            r->t[k++] = r->t[i];
    }
    r->n = k;
}

tlm_status tlm_hta_split_rank_tables(tlm_hta_result *r,
                                     tlm_hta_result **rank_part)
{
    tlm_hta_result *p = calloc(1, sizeof *p);
    *rank_part = p;
    if (!p)
        return TLM_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->t[i]->def->rank_only)
            p->t[p->n++] = r->t[i];
        else
            r->t[k++] = r->t[i];
    }
    r->n = k;
    p->notes.steps_rank = -1;
    p->notes.n_seq_clamped = r->notes.n_seq_clamped;
    p->notes.seq_rank_found = r->notes.seq_rank_found;
    p->notes.n_cp_neg_edges = r->notes.n_cp_neg_edges;
    p->notes.n_cp_neg_on_path = r->notes.n_cp_neg_on_path;
    p->notes.n_cp_left_out = r->notes.n_cp_left_out;
    r->notes.n_cp_neg_edges = 0;
    r->notes.n_cp_neg_on_path = 0;
    r->notes.n_cp_left_out = 0;
    memcpy(p->notes.cp_reason, r->notes.cp_reason, sizeof p->notes.cp_reason);
    r->notes.n_seq_clamped = 0;
    r->notes.seq_rank_found = 0;
    r->notes.cp_reason[0] = '\0';
    return TLM_OK;
}

/* ---------------------------------------------------------------- MARK: -
 * options */

void tlm_hta_opts_init(tlm_hta_opts *o)
{
    memset(o, 0, sizeof *o);
    o->time = TLM_HTA_TIME_US;
    o->consecutive_kernel_delay = 30;
    o->runtime_cutoff = 50;
    o->launch_delay_cutoff = 100;
    o->min_pattern_len = 3;
    memcpy(o->cp_annotation, "ProfilerStep", sizeof "ProfilerStep");
    o->cp_first = 0;
    o->cp_last = 0;
}

static int parse_uint(const char *s, size_t n, int *out)
{
    if (n == 0 || n > 9)
        return 0;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

tlm_status tlm_hta_cp_parse(const char *text, tlm_hta_opts *o,
                            tlm_error *err)
{
    const char *colon = strrchr(text, ':');
    int a = 0, b;
    size_t alen = colon ? (size_t)(colon - text) : strlen(text);
    if (alen >= sizeof o->cp_annotation)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--hta_critical_path: annotation too long");
    if (colon) {
        const char *r = colon + 1, *dash = strchr(r, '-');
        size_t l1 = dash ? (size_t)(dash - r) : strlen(r);
        if (!parse_uint(r, l1, &a))
            goto bad;
        b = a;
        if (dash && !parse_uint(dash + 1, strlen(dash + 1), &b))
            goto bad;
        if (b < a)
            goto bad;
        o->cp_first = a;
        o->cp_last = b;
    } else {
        o->cp_first = o->cp_last = 0;
    }
    memcpy(o->cp_annotation, text, alen);
    o->cp_annotation[alen] = '\0';
    return TLM_OK;
bad:
    return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                         "--hta_critical_path '%.100s': expected "
                         "ANNOTATION[:I[-J]] with I <= J",
                         text);
}

/* ---------------------------------------------------------------- MARK: -
 * one rank */

/* The distinct ProfilerStep names left in the table (first seen first),
 * joined by ", ", cut to the notes' buffer. */
static void steps_text(const tlm_hta_events *ev, tlm_hta_notes *nt)
{
    size_t len = 0, cap = sizeof nt->steps;
    uint32_t seen[64];
    size_t ns = 0;
    nt->steps[0] = '\0';
    nt->steps_rank = -1;
    for (size_t i = 0; i < ev->n && ns < 64; i++) {
        const tlm_hta_ev *r = &ev->ev[i];
        int dup = 0;
        if (!r->step || r->gpu_side)
            continue;
        for (size_t k = 0; k < ns && !dup; k++)
            dup = seen[k] == r->name;
        if (dup)
            continue;
        seen[ns++] = r->name;
        size_t l;
        const char *s = tlm_trace_str(ev->trace, r->name, &l);
        if (len + l + 3 >= cap) {
            if (len + 4 < cap)
                memcpy(nt->steps + len, "...", 4);
            break;
        }
        if (len) {
            memcpy(nt->steps + len, ", ", 2);
            len += 2;
        }
        memcpy(nt->steps + len, s, l);
        len += l;
        nt->steps[len] = '\0';
        nt->steps_rank = ev->rank;
    }
}

tlm_status tlm_hta_build(const tlm_hta_events *ev, const tlm_hta_opts *o,
                         int is_seq_rank, tlm_hta_result **out,
                         tlm_error *err)
{
    *out = NULL;
    tlm_hta_result *r = calloc(1, sizeof *r);
    if (!r)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    tlm_hta_notes *nt = &r->notes;
    nt->n_events = ev->n;
    nt->n_neg_dur = ev->n_neg_dur;
    nt->n_neg_dur_gpu = ev->n_neg_dur_gpu;
    nt->n_no_ts = ev->n_no_ts;
    nt->n_dup_corr = ev->n_dup_corr;
    nt->n_filtered_out =
        ev->n_before_filter > ev->n ? ev->n_before_filter - ev->n : 0;
    nt->n_ranks_filtered = ev->filtered ? 1 : 0;
    nt->n_rounded_ranks = ev->rounded ? 1 : 0;
    nt->n_no_gpu = tlm_hta_has_gpu(ev) ? 0 : 1;
    nt->has_seq = o->kernel_seq_op != NULL;
    for (size_t i = 0; i < ev->n; i++) {
        const tlm_hta_ev *e = &ev->ev[i];
        nt->n_orphan_kernels += e->gpu_side && e->icorr == 0;
    }
    steps_text(ev, nt);
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < sizeof builders / sizeof builders[0]; i++) {
        if (builders[i].scope == SEQ_RANK && !is_seq_rank)
            continue;
        st = builders[i].fn(ev, o, r, err);
        if (st != TLM_OK)
            break;
    }
    if (st != TLM_OK) {
        tlm_hta_result_free(r);
        if (st == TLM_ENOMEM)
            return tlm_error_set(err, st, tlm_trace_path(ev->trace), -1,
                                 "out of memory building the HTA tables");
        return st;
    }
    *out = r;
    return TLM_OK;
}

/* ---------------------------------------------------------------- MARK: -
 * several ranks */

/* Appends src's rows to dst (the same definition). */
static tlm_status copy_rows(tlm_hta_table *dst, const tlm_hta_table *src)
{
    size_t nc = src->def->ncols;
    for (size_t i = 0; i < src->tab->nrows; i++) {
        size_t row;
        if (tlm_hta_row_add(dst, &row) != TLM_OK)
            return TLM_ENOMEM;
        for (size_t c = 0; c < nc; c++) {
            const tlm_cell *x = tlm_tab_cell(src->tab, i, c);
            if (src->def->cols[c].type == TLM_HTA_I64)
                tlm_hta_set_i64(dst, row, c, x->v.i);
            else if (src->def->cols[c].type == TLM_HTA_F64)
                tlm_hta_set_f64(dst, row, c, x->v.f);
            else if (!x->null &&
                     tlm_hta_set_str(dst, row, c, x->v.s, x->len) != TLM_OK)
                return TLM_ENOMEM;
        }
    }
    return TLM_OK;
}

/* gpu_kernel_breakdown_by_type of the job: sums per label (bits order),
 * percentages of the job's total. */
static tlm_status sum_by_type(tlm_hta_table *t)
{
    double sum[8] = {0};
    for (size_t i = 0; i < t->tab->nrows; i++) {
        const char *s = tlm_hta_cell_str(t, i, 0, NULL);
        for (int b = 1; b < 8; b++) {
            char label[96];
            tlm_hta_by_type_label(b, label, sizeof label);
            if (strcmp(label, s) == 0)
                sum[b] += tlm_hta_cell_f64(t, i, 1);
        }
    }
    tlm_tab_truncate(t->tab, 0);
    double total = 0;
    for (int b = 1; b < 8; b++)
        total += sum[b];
    for (int b = 1; b < 8; b++) {
        if (sum[b] == 0)
            continue;
        char label[96];
        size_t row;
        tlm_hta_by_type_label(b, label, sizeof label);
        if (tlm_hta_row_add(t, &row) != TLM_OK ||
            tlm_hta_set_str(t, row, 0, label, strlen(label)) != TLM_OK)
            return TLM_ENOMEM;
        tlm_hta_set_f64(t, row, 1, sum[b]);
        tlm_hta_set_f64(t, row, 2,
                        total != 0 ? tlm_hta_round(100.0 * sum[b] / total, 1)
                                   : NAN);
    }
    return TLM_OK;
}

static void add_notes(tlm_hta_notes *a, const tlm_hta_notes *b)
{
    a->n_events += b->n_events;
    a->n_neg_dur += b->n_neg_dur;
    a->n_neg_dur_gpu += b->n_neg_dur_gpu;
    a->n_no_ts += b->n_no_ts;
    a->n_dup_corr += b->n_dup_corr;
    a->n_filtered_out += b->n_filtered_out;
    a->n_ranks_filtered += b->n_ranks_filtered;
    a->n_rounded_ranks += b->n_rounded_ranks;
    a->n_no_gpu += b->n_no_gpu;
    a->n_temporal_neg += b->n_temporal_neg;
    a->n_seq_clamped += b->n_seq_clamped;
    a->n_driver_launches += b->n_driver_launches;
    a->n_rocm_launches += b->n_rocm_launches;
    a->n_orphan_kernels += b->n_orphan_kernels;
    a->n_cp_neg_edges += b->n_cp_neg_edges;
    a->n_cp_neg_on_path += b->n_cp_neg_on_path;
    a->n_cp_left_out += b->n_cp_left_out;
    a->has_seq |= b->has_seq;
    a->seq_rank_found |= b->seq_rank_found;
    if (!a->steps[0] && b->steps[0]) {
        memcpy(a->steps, b->steps, sizeof a->steps);
        a->steps_rank = b->steps_rank;
    }
    if (!a->cp_reason[0] && b->cp_reason[0])
        memcpy(a->cp_reason, b->cp_reason, sizeof a->cp_reason);
}

static tlm_hta_table *find_mut(tlm_hta_result *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->t[i]->def->name, name) == 0)
            return r->t[i];
    }
    return NULL;
}

tlm_status tlm_hta_merge(tlm_hta_result *const *parts, size_t n,
                         tlm_hta_result **out, tlm_error *err)
{
    *out = NULL;
    tlm_hta_result *m = calloc(1, sizeof *m);
    tlm_status st = m ? TLM_OK : TLM_ENOMEM;
    for (size_t p = 0; p < n && st == TLM_OK; p++) {
        add_notes(&m->notes, &parts[p]->notes);
        for (size_t i = 0; i < parts[p]->n && st == TLM_OK; i++) {
            const tlm_hta_table *src = parts[p]->t[i];
            tlm_hta_table *dst = find_mut(m, src->def->name);
            if (!dst)
                dst = tlm_hta_result_add(m, src->def);
            st = dst ? copy_rows(dst, src) : TLM_ENOMEM;
        }
    }
    for (size_t i = 0; m && i < m->n && st == TLM_OK; i++) {
        if (m->t[i]->def->sum_by_type)
            st = sum_by_type(m->t[i]);
    }
    if (st != TLM_OK) {
        tlm_hta_result_free(m);
        return tlm_error_set(err, st, NULL, -1,
                             "out of memory joining the HTA tables");
    }
    *out = m;
    return TLM_OK;
}
