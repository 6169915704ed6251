/*
 * phase_hta.c - HTA's per-rank tables in the analysis mode (--hta,
 * docs/hta.md).
 *
 * While reading (the module's collect hook, on the rank that reads the
 * trace) each trace gets its HTA event table and its tables,
 * packed (tlm_hta_pack) and kept; the trace itself is freed as usual.  The
 * job-level rule that depends on other traces is the iteration filter
 * (spec §1.5: at least two distinct ProfilerStep names over all ranks).
 * A trace with two names of its own decides it alone; otherwise both
 * variants (unfiltered, filtered) are packed, and the hta phase picks one
 * once the step names of every trace are known (each process's distinct
 * names of its traces, at most two: enough to tell "at least two",
 * all-gathered, one record per process).  The job's time origin (§1.4) changes no output (durations and
 * gaps only), so each trace keeps its own.
 *
 * The rank-only tables (kernel sequences, critical path) are packed
 * apart: without --hta_rank every trace builds them (the lowest rank is
 * known only after the check phase), but only the chosen rank's travel.
 * The hta phase gathers the chosen tables on rank 0 in trace-rank order,
 * with the rank-only tables of the --hta_rank rank (default: the lowest),
 * joins them (tlm_hta_merge) and
 * broadcasts the result, so that every rank writes the same /hta
 * datasets (below, from the write phase: compound datasets /hta/<table>,
 * field names the CSV headers, text columns as wide as their longest value
 * so that every rank builds the same layout); rank 0 stages
 * <csv dir>/hta/<table>.csv and hands report.md its section (the publish
 * phase).  All of it is one module of the driver (module.h): its row
 * tlm_mpi_mod_hta at the end of this file, its state a struct hta_state.
 */
#include "driver.h"
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "h5write.h"

/* ------------------------------------------------------------------ *
 * MARK: - /hta in the HDF5 file
 * ------------------------------------------------------------------ */

/* Widest text field of /hta (bytes with the NUL): longer text (a name
 * from a hostile trace) is cut at a UTF-8 boundary; the CSVs keep it. */
#define TLM_MPI_HTA_STR_MAX 65536

static tlm_ctype ctype(tlm_hta_type t)
{
    return t == TLM_HTA_I64 ? TLM_CT_I64
                            : t == TLM_HTA_F64 ? TLM_CT_F64 : TLM_CT_STR;
}

/* The layout of one table; cols and the names are malloc'd into *mt. */
static tlm_status layout(const tlm_hta_table *t, tlm_rowtab *mt,
                         tlm_col **cols, char *name, size_t ncap)
{
    size_t nc = tlm_hta_table_cols(t), off = 0;
    tlm_col *c = calloc(nc ? nc : 1, sizeof *c);
    if (!c)
        return TLM_ENOMEM;
    for (size_t i = 0; i < nc; i++) {
        const tlm_hta_col *h = tlm_hta_table_col(t, i);
        size_t size = 8;
        if (h->type == TLM_HTA_STR) {
            size = 2;
            for (size_t r = 0; r < tlm_hta_table_rows(t); r++) {
                size_t len;
                tlm_hta_cell_str(t, r, i, &len);
                if (len + 1 > size)
                    size = len + 1;
            }
            if (size > TLM_MPI_HTA_STR_MAX) /* a hostile name: bounded */
                size = TLM_MPI_HTA_STR_MAX;
        }
        c[i] = (tlm_col){h->name, ctype(h->type), off, size,
                             h->unit, "HTA column (docs/hta.md)"};
        off += size;
    }
    snprintf(name, ncap, "hta/%s", tlm_hta_table_name(t));
    *mt = (tlm_rowtab){name, tlm_hta_table_doc(t), c, nc, off ? off : 1};
    *cols = c;
    return TLM_OK;
}

/* The table's doc, with the quirks that changed its numbers (issue 23:
 * "flagged in report.md and in the table's HDF5 doc"). */
static const char *doc_of(const tlm_hta_table *t, const tlm_hta_notes *n,
                          char *buf, size_t cap)
{
    const char *name = tlm_hta_table_name(t), *doc = tlm_hta_table_doc(t);
    if (!strcmp(name, "temporal_breakdown") && n->n_temporal_neg)
        snprintf(buf, cap, "%s. Q2: a negative time on %llu rank(s) "
                 "(HTA raises and gives no table there)", doc,
                 (unsigned long long)n->n_temporal_neg);
    else if (!strcmp(name, "frequent_cuda_kernel_sequences") &&
             n->n_seq_clamped)
        snprintf(buf, cap, "%s. Q9: %llu negative durations taken as 0 in "
                 "the call stacks (HTA raises)", doc,
                 (unsigned long long)n->n_seq_clamped);
    else
        return doc;
    return buf;
}

static void fill_rows(const tlm_hta_table *t, const tlm_rowtab *mt,
                      char *rows)
{
    for (size_t r = 0; r < tlm_hta_table_rows(t); r++) {
        char *row = rows + r * mt->row_size;
        for (size_t i = 0; i < mt->n_cols; i++) {
            const tlm_col *c = &mt->cols[i];
            if (c->type == TLM_CT_I64) {
                int64_t v = tlm_hta_cell_i64(t, r, i);
                memcpy(row + c->offset, &v, 8);
            } else if (c->type == TLM_CT_F64) {
                double v = tlm_hta_cell_f64(t, r, i);
                memcpy(row + c->offset, &v, 8);
            } else {
                size_t len;
                const char *s = tlm_hta_cell_str(t, r, i, &len);
                size_t k = len < c->size ? len : tlm_utf8_cut(s, c->size - 1);
                memset(row + c->offset, 0, c->size);
                memcpy(row + c->offset, s, k);
            }
        }
    }
}

/* Writes /hta/<table> of hta, the joined tables (every rank calls it;
 * rank 0's rows; nothing when hta is NULL).  Collective. */
static tlm_status hta_write_h5(const tlm_mpi_ctx *c,
                               const tlm_hta_result *hta, hid_t f,
                               tlm_error *err)
{
    if (!c->o.hta || !hta)
        return TLM_OK;
    tlm_status st = TLM_OK;
    for (size_t k = 0; k < tlm_hta_result_tables(hta) && st == TLM_OK;
         k++) {
        const tlm_hta_table *t = tlm_hta_result_table(hta, k);
        tlm_rowtab mt;
        tlm_col *cols = NULL;
        char name[128];
        char *rows = NULL;
        size_t n = c->me == 0 ? tlm_hta_table_rows(t) : 0;
        char doc[1024];
        tlm_status ls = layout(t, &mt, &cols, name, sizeof name);
        mt.doc = doc_of(t, tlm_hta_result_notes(hta), doc, sizeof doc);
        if (ls == TLM_OK && n) {
            rows = calloc(n, mt.row_size);
            if (rows)
                fill_rows(t, &mt, rows);
            else
                ls = TLM_ENOMEM;
        }
        st = tlm_mpi_agree(ls, c->comm);
        if (st == TLM_OK)
            st = tlm_mpi_h5_write_table(f, &mt, rows, n, c->comm, err);
        else
            tlm_error_set(err, st, NULL, -1, "out of memory writing /hta");
        free(rows);
        free(cols);
    }
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - the module
 * ------------------------------------------------------------------ */

/* One trace's packed tables. */
struct tlm_mpi_hta_loc {
    int64_t trace_rank;
    /* [variant][part]: variant 0 filtered (or the only one), 1
     * unfiltered; part 0 the tables of every rank, 1 the rank-only ones
     * (sent for the --hta_rank rank only) */
    void *pk[2][2];
    size_t len[2][2];
};

/* The distinct ProfilerStep names of a process's traces (the first two
 * of each trace, cut to 127 bytes), at most 2: what decides whether the
 * job filters (job_step_names); all-gathered, one per process. */
typedef struct steps {
    int32_t n;
    char name[2][128];
} steps;

/* The module's state (tlm_mpi_ctx.mstate). */
typedef struct hta_state {
    struct tlm_mpi_hta_loc *loc; /* packed tables of local traces */
    size_t n_loc;
    tlm_hta_result *hta;         /* every rank: the joined tables */
    char *md;                    /* rank 0: report.md's HTA section */
    steps st;                    /* the local traces' step names */
} hta_state;

static tlm_status pack_one(const tlm_hta_events *ev, const tlm_hta_opts *o,
                           int seq, void **pk, size_t *len, tlm_error *err)
{
    tlm_hta_result *r = NULL, *rp = NULL;
    tlm_status st = tlm_hta_build(ev, o, seq, &r, err);
    if (st == TLM_OK)
        st = tlm_hta_split_rank_tables(r, &rp);
    if (st == TLM_OK)
        st = tlm_hta_pack(r, &pk[0], &len[0]);
    if (st == TLM_OK)
        st = tlm_hta_pack(rp, &pk[1], &len[1]);
    if (st == TLM_ENOMEM && !err->msg[0])
        tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    tlm_hta_result_free(r);
    tlm_hta_result_free(rp);
    return st;
}

static void loc_free(struct tlm_mpi_hta_loc *l)
{
    for (int v = 0; v < 2; v++) {
        free(l->pk[v][0]);
        free(l->pk[v][1]);
    }
}

/* Adds the first two step names of a trace to the process's distinct
 * names (at most 2 kept: two already decide). */
static void keep_steps(const tlm_hta_events *ev, steps *sn)
{
    size_t n = ev->n_step_names < 2 ? ev->n_step_names : 2;
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        const char *s = tlm_hta_events_step_name(ev, i, &len);
        char name[sizeof sn->name[0]];
        size_t k = len < sizeof name - 1 ? len : sizeof name - 1;
        memcpy(name, s, k);
        name[k] = '\0';
        int seen = 0;
        for (int32_t j = 0; j < sn->n && !seen; j++)
            seen = strcmp(sn->name[j], name) == 0;
        if (!seen && sn->n < 2)
            memcpy(sn->name[sn->n++], name, sizeof name);
    }
}

/* The collect hook: the trace's HTA tables, packed and kept on this rank
 * (after its rank is known); its step names join the process's distinct
 * names (hta_state.st). */
static tlm_status hta_trace(tlm_mpi_ctx *c, void **sp,
                            const tlm_job_trace_in *in, tlm_error *err)
{
    const tlm_trace *tr = in->tr;
    tlm_job_fileres *fr = in->fr;
    hta_state *hs = *sp;
    if (!hs && !(hs = *sp = calloc(1, sizeof *hs)))
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    const tlm_hta_opts *o = &c->o.hta_o;
    int64_t rank = fr->row.trace_rank;
    int seq = c->o.hta_rank < 0 || c->o.hta_rank == rank;
    struct tlm_mpi_hta_loc loc;
    memset(&loc, 0, sizeof loc);
    loc.trace_rank = rank;
    tlm_hta_events *ev = NULL;
    tlm_status st = tlm_hta_events_build(tr, rank, o->time, &ev, err);
    if (st != TLM_OK)
        return st;
    keep_steps(ev, &hs->st);
    tlm_hta_events_shift(ev, ev->min_ts == INT64_MAX ? 0 : ev->min_ts);
    if (ev->n_step_names < 2) /* the job decides: keep both */
        st = pack_one(ev, o, seq, loc.pk[1], loc.len[1], err);
    if (st == TLM_OK)
        st = tlm_hta_events_filter(ev, 2, o->include_last_step, err);
    if (st == TLM_OK)
        st = pack_one(ev, o, seq, loc.pk[0], loc.len[0], err);
    tlm_hta_events_free(ev);
    struct tlm_mpi_hta_loc *nl =
        st == TLM_OK ? realloc(hs->loc, (hs->n_loc + 1) * sizeof *nl)
                     : NULL;
    if (st == TLM_OK && !nl)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (st != TLM_OK) {
        loc_free(&loc);
        return st;
    }
    hs->loc = nl;
    hs->loc[hs->n_loc++] = loc;
    return TLM_OK;
}

/* The free hook. */
static void hta_free(tlm_mpi_ctx *c, void **sp)
{
    (void)c;
    hta_state *hs = *sp;
    if (!hs)
        return;
    for (size_t i = 0; i < hs->n_loc; i++)
        loc_free(&hs->loc[i]);
    free(hs->loc);
    tlm_hta_result_free(hs->hta);
    free(hs->md);
    free(hs);
    *sp = NULL;
}

/* ---------------------------------------------------------------- MARK: -
 * the phase */

/* Distinct ProfilerStep names of the job (capped at what decides): the
 * union of every process's distinct names (all-gathered, one record of
 * 260 B per process, not one per trace). */
static size_t job_step_names(const tlm_mpi_ctx *c, const hta_state *hs)
{
    steps mine;
    memset(&mine, 0, sizeof mine);
    if (hs)
        mine = hs->st;
    void *got = NULL;
    size_t n_got = 0;
    tlm_error err;
    if (tlm_mpi_allgather(&mine, 1, sizeof mine, c->comm, &got, &n_got,
                          &err) != TLM_OK)
        return 2; /* filtering is HTA's usual case */
    const steps *all = got;
    size_t n = 0;
    const char **names = malloc((2 * n_got + 1) * sizeof *names);
    if (!names) {
        free(got);
        return 2;
    }
    for (size_t i = 0; i < n_got; i++)
        for (int32_t j = 0; j < all[i].n && j < 2; j++)
            names[n++] = all[i].name[j];
    size_t d = tlm_hta_count_distinct(names, NULL, n);
    free(names);
    free(got);
    return d;
}

/* This rank's chosen variants, back to back: (trace_rank, len, the
 * tables of every rank, len, the rank-only tables: those of trace rank
 * keep only, else length 0). */
static tlm_status local_blob(const hta_state *hs, int filtered,
                             int64_t keep, char **out, size_t *len)
{
    size_t total = 0;
    size_t n_loc = hs ? hs->n_loc : 0;
    for (size_t i = 0; i < n_loc; i++) {
        const struct tlm_mpi_hta_loc *l = &hs->loc[i];
        int v = (!filtered && l->pk[1][0]) ? 1 : 0;
        total += 24 + l->len[v][0] +
                 (l->trace_rank == keep ? l->len[v][1] : 0);
    }
    char *b = malloc(total ? total : 1);
    if (!b)
        return TLM_ENOMEM;
    size_t o = 0;
    for (size_t i = 0; i < n_loc; i++) {
        const struct tlm_mpi_hta_loc *l = &hs->loc[i];
        int v = (!filtered && l->pk[1][0]) ? 1 : 0;
        uint64_t l0 = l->len[v][0];
        uint64_t l1 = l->trace_rank == keep ? l->len[v][1] : 0;
        memcpy(b + o, &l->trace_rank, 8);
        memcpy(b + o + 8, &l0, 8);
        memcpy(b + o + 16, l->pk[v][0], l0);
        o += 16 + l0;
        memcpy(b + o, &l1, 8);
        if (l1)
            memcpy(b + o + 8, l->pk[v][1], l1);
        o += 8 + l1;
    }
    *out = b;
    *len = total;
    return TLM_OK;
}

typedef struct part {
    int64_t rank;
    tlm_hta_result *r;
} part;

static int cmp_part(const void *a, const void *b)
{
    const part *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* One packed part at all[*o] (length first); *r NULL for length 0. */
static tlm_status take(const char *all, size_t n, size_t *o,
                       tlm_hta_result **r)
{
    uint64_t l;
    *r = NULL;
    if (*o + 8 > n)
        return TLM_EFORMAT;
    memcpy(&l, all + *o, 8);
    *o += 8;
    if (l > n - *o)
        return TLM_EFORMAT;
    tlm_status st = l ? tlm_hta_unpack(all + *o, l, r) : TLM_OK;
    *o += l;
    return st;
}

/* Rank 0: every trace's result from the gathered blobs, joined in trace
 * rank order (the rank-only tables after their rank's). */
static tlm_status join0(const tlm_mpi_ctx *c, const char *all, size_t n,
                        tlm_hta_result **out, tlm_error *err)
{
    part *p = calloc(2 * c->n_res + 2, sizeof *p);
    size_t np = 0, o = 0;
    tlm_status st = p ? TLM_OK : TLM_ENOMEM;
    while (st == TLM_OK && o + 8 <= n && np + 2 <= 2 * c->n_res + 2) {
        int64_t rank;
        memcpy(&rank, all + o, 8);
        o += 8;
        p[np].rank = 2 * rank;
        st = take(all, n, &o, &p[np].r);
        if (st != TLM_OK)
            break;
        np++;
        p[np].rank = 2 * rank + 1;
        st = take(all, n, &o, &p[np].r);
        if (st == TLM_OK && p[np].r)
            np++;
    }
    if (st == TLM_OK) {
        qsort(p, np, sizeof *p, cmp_part);
        tlm_hta_result **rs = malloc((np ? np : 1) * sizeof *rs);
        st = rs ? TLM_OK : TLM_ENOMEM;
        for (size_t i = 0; i < np && st == TLM_OK; i++)
            rs[i] = p[i].r;
        if (st == TLM_OK)
            st = tlm_hta_merge(rs, np, out, err);
        free(rs);
    }
    for (size_t i = 0; p && i <= np && i < 2 * c->n_res + 2; i++)
        tlm_hta_result_free(p[i].r);
    free(p);
    if (st != TLM_OK && !err->msg[0])
        tlm_error_set(err, st, NULL, -1, "joining the HTA tables failed");
    return st;
}

/* Gathers every rank's blob on rank 0 (sizes, then the bytes); the
 * agreed status (rank 0's buffers allocated before the bytes move). */
static tlm_status gather(const tlm_mpi_ctx *c, const char *b, size_t len,
                         char **all, size_t *n_all)
{
    int n = (int)len, *cnt = NULL, *dsp = NULL;
    tlm_status st = TLM_OK;
    if (c->me == 0) {
        cnt = calloc((size_t)c->np, sizeof *cnt);
        dsp = calloc((size_t)c->np, sizeof *dsp);
        if (!cnt || !dsp)
            st = TLM_ENOMEM;
    }
    st = tlm_mpi_agree(st, c->comm);
    if (st == TLM_OK)
        MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, c->comm);
    size_t total = 0;
    if (st == TLM_OK && c->me == 0) {
        for (int i = 0; i < c->np; i++) {
            dsp[i] = (int)total;
            total += (size_t)cnt[i];
        }
        if (total > (size_t)INT32_MAX)
            st = TLM_ELIMIT;
        else if (!(*all = malloc(total ? total : 1)))
            st = TLM_ENOMEM;
        *n_all = total;
    }
    st = tlm_mpi_agree(st, c->comm);
    if (st == TLM_OK)
        MPI_Gatherv(b, n, MPI_BYTE, c->me == 0 ? *all : NULL, cnt, dsp,
                    MPI_BYTE, 0, c->comm);
    free(cnt);
    free(dsp);
    return st;
}

/* The exchange hook: the chosen tables gathered on rank 0, joined,
 * broadcast. */
static tlm_status hta_phase(tlm_mpi_ctx *c, void **sp)
{
    hta_state *hs = *sp;
    if (!hs)
        hs = *sp = calloc(1, sizeof *hs);
    tlm_error err;
    tlm_error_clear(&err);
    int filtered = job_step_names(c, hs) >= 2;
    /* the rank of the kernel sequences and the critical path */
    int64_t keep = c->o.hta_rank >= 0 ? c->o.hta_rank
                   : c->n_res           ? c->res[0].row.trace_rank
                                        : -1;
    char *b = NULL, *all = NULL;
    size_t len = 0, n_all = 0;
    tlm_status st = hs ? local_blob(hs, filtered, keep, &b, &len)
                       : TLM_ENOMEM;
    st = tlm_mpi_check(c, st, &err);
    if (st != TLM_OK)
        return st;
    if (len > (size_t)INT32_MAX)
        st = TLM_ELIMIT;
    st = tlm_mpi_check(c, st, &err);
    if (st == TLM_OK) {
        st = gather(c, b, len, &all, &n_all);
        if (st != TLM_OK) {
            tlm_error_set(&err, st, NULL, -1,
                          "gathering the HTA tables on rank 0 failed");
            st = tlm_mpi_check(c, st, &err);
        }
    }
    free(b);
    void *pk = NULL;
    size_t pk_len = 0;
    tlm_hta_result *m = NULL;
    tlm_status s0 = TLM_OK;
    if (st == TLM_OK && c->me == 0) {
        s0 = all ? join0(c, all, n_all, &m, &err) : TLM_ENOMEM;
        if (s0 == TLM_OK)
            s0 = tlm_hta_pack(m, &pk, &pk_len);
        if (s0 == TLM_OK && tlm_hta_markdown(m, &hs->md) != TLM_OK)
            s0 = TLM_ENOMEM;
    }
    free(all);
    if (st == TLM_OK)
        st = tlm_mpi_check(c, s0, &err);
    /* every rank gets the joined tables (the /hta datasets' layout) */
    uint64_t plen = pk_len;
    if (st == TLM_OK)
        MPI_Bcast(&plen, 1, MPI_UINT64_T, 0, c->comm);
    if (st == TLM_OK && c->me != 0) {
        pk = malloc(plen ? plen : 1);
        s0 = pk ? TLM_OK : TLM_ENOMEM;
    }
    if (st == TLM_OK)
        st = tlm_mpi_check(c, s0, &err);
    if (st == TLM_OK && plen > (uint64_t)INT32_MAX)
        st = tlm_mpi_check(c, TLM_ELIMIT, &err);
    if (st == TLM_OK)
        MPI_Bcast(pk, (int)plen, MPI_BYTE, 0, c->comm);
    if (st == TLM_OK && c->me != 0)
        s0 = tlm_hta_unpack(pk, plen, &m);
    if (st == TLM_OK)
        st = tlm_mpi_check(c, s0, &err);
    free(pk);
    if (st == TLM_OK)
        hs->hta = m;
    else
        tlm_hta_result_free(m);
    return st;
}

/* ---------------------------------------------------------------- MARK: -
 * the outputs and the module's row */

/* --hta only. */
static int hta_active(const tlm_mpi_ctx *c)
{
    return c->o.hta;
}

/* The write hook: /hta/<table> (hta_write_h5). */
static tlm_status hta_h5(tlm_mpi_ctx *c, void **sp, hid_t f, tlm_error *err)
{
    const hta_state *hs = *sp;
    return hta_write_h5(c, hs ? hs->hta : NULL, f, err);
}

/* report.md's HTA section. */
static void hta_results(const tlm_mpi_ctx *c, void *const *sp,
                        tlm_out_results *r)
{
    (void)c;
    const hta_state *hs = *sp;
    r->hta_md = hs ? hs->md : NULL;
}

/* Rank 0: <csv dir>/hta/<table>.csv. */
static tlm_status hta_stage(tlm_mpi_ctx *c, void **sp, tlm_error *err)
{
    const hta_state *hs = *sp;
    if (!hs || !hs->hta)
        return TLM_OK;
    return tlm_hta_stage_csvs(hs->hta, &c->out, c->su.cdir, err);
}

const tlm_mpi_module tlm_mpi_mod_hta = {
    .name = "hta",
    .mark = -1,
    .active = hta_active,
    .on_trace = hta_trace,
    .exchange = hta_phase,
    .h5_write = hta_h5,
    .results = hta_results,
    .stage = hta_stage,
    .free = hta_free,
};
