/*
 * phase_collectives.c - the collective analysis across ranks.  Each
 * collective record goes to its owner (owner key of tlm_coll.h modulo the
 * number of MPI ranks), which matches instances; rank 0 gathers every
 * member and fits the clock offsets, broadcast to all and re-applied by
 * the owners; stragglers are computed per owner and merged on rank 0;
 * instances and unmatched records are gathered on rank 0 in canonical
 * order and summarised; per-rank member rows go to the MPI rank holding
 * each trace.  Every exchange is preceded by an agreement on the status
 * (TLM_MPI_CHECK).  One module of the driver (module.h, its row
 * tlm_mpi_mod_collectives at the end): it keeps each trace's records and
 * windows while reading, routes the straggler causes (cause.c), and in the
 * write phase lists the collective datasets and builds the collective
 * findings (rules M1-M4, coll_findings.c) from rank 0's rows.
 */
#include "driver.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "cause_mpi.h"
#include "find_coll.h"
#include "findings_md.h"
#include "exchange.h"
#include "exposed_mpi.h"
#include "jobinfo.h"

/* Rank 0: says what in the collectives does not add up, so that odd
 * metadata (sizes, group sizes that disagree across ranks) is not only in
 * the HDF5 file. */
static void warn_collectives(const tlm_mpi_ctx *c, const tlm_mpi_colls *k)
{
    size_t why[4] = {0}, n_sig = 0, n_group = 0, n_inc = 0;
    for (size_t i = 0; i < k->n_unm; i++) {
        int r = k->unm[i].reason;
        why[r >= 1 && r <= 3 ? r : 0]++;
    }
    for (size_t i = 0; i < k->n_inst; i++) {
        n_sig += (k->inst[i].flags & TLM_COLL_INST_SIG_MISMATCH) != 0;
        n_group += (k->inst[i].flags & TLM_COLL_INST_GROUP_MISMATCH) != 0;
        n_inc += (k->inst[i].flags & TLM_COLL_INST_INCOMPLETE) != 0;
    }
    size_t n_unm = k->n_unm;
    if (n_unm > 0)
        tlm_mpi_say0(c,
                     "warning: %zu collective kernel%s not matched across "
                     "ranks (%zu signature mismatch, %zu not alignable, %zu "
                     "duplicate); see /collectives/unmatched",
                     n_unm, n_unm == 1 ? "" : "s",
                     why[TLM_COLL_UNM_SIG_MISMATCH],
                     why[TLM_COLL_UNM_NO_OVERLAP],
                     why[TLM_COLL_UNM_DUPLICATE]);
    if (n_sig > 0)
        tlm_mpi_say0(c,
                     "warning: %zu collective instance%s with members that "
                     "disagree on type, dtype or element counts (flag "
                     "SIG_MISMATCH)",
                     n_sig, n_sig == 1 ? "" : "s");
    if (n_group > 0)
        tlm_mpi_say0(c,
                     "warning: %zu collective instance%s with members that "
                     "disagree on the group size (flag GROUP_MISMATCH)",
                     n_group, n_group == 1 ? "" : "s");
    if (n_inc > 0)
        tlm_mpi_say0(c,
                     "note: %zu of %zu collective instances miss some ranks "
                     "of their group (flag INCOMPLETE: clipped windows or "
                     "missing traces)",
                     n_inc, k->n_inst);
}

static int cmp_mrow(const void *a, const void *b)
{
    const tlm_row_member *x = a, *y = b;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    if (x->match_key != y->match_key)
        return x->match_key < y->match_key ? -1 : 1;
    if (x->match_seq != y->match_seq)
        return x->match_seq < y->match_seq ? -1 : 1;
    return x->event_index < y->event_index ? -1
                                           : (x->event_index > y->event_index);
}

/* Routes the records to their owners, which match them into k->mr. */
static tlm_status route_and_match(tlm_mpi_ctx *c, const tlm_coll_match_opts *mo,
                                  tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    void *tmp = NULL;
    size_t n_rr = 0;
    int *dest = malloc((c->n_recs ? c->n_recs : 1) * sizeof *dest);
    TLM_MPI_CHECK(dest ? TLM_OK : TLM_ENOMEM);
    for (size_t i = 0; i < c->n_recs; i++)
        dest[i] = (int)(tlm_coll_record_owner_key(&c->recs[i]) %
                        (uint64_t)c->np);
    TLM_MPI_CHECK(tlm_mpi_route(c->recs, c->n_recs, sizeof *c->recs, dest,
                                c->comm, &tmp, &n_rr, err));
    TLM_MPI_CHECK(tlm_coll_match(tmp, n_rr, mo, &k->mr, err));
done:
    free(dest);
    free(tmp);
    return st;
}

/* The members' trace ranks as positions in c->res (n_res dense ranks,
 * in the same order), so that the fit's arrays follow the traces found;
 * back with to_ranks(). */
static void to_positions(const tlm_mpi_ctx *c, tlm_coll_clock_pt *m,
                         size_t n)
{
    for (size_t i = 0; i < n; i++)
        m[i].trace_rank = (int32_t)tlm_mpi_rank_pos(c, m[i].trace_rank);
}

/* The fit's rows back on trace ranks: row i is the trace of res[i]. */
static void to_ranks(const tlm_mpi_ctx *c, tlm_coll_clock *clk, size_t n,
                     int own_domains)
{
    for (size_t i = 0; i < n; i++) {
        clk[i].trace_rank = c->res[i].row.trace_rank;
        clk[i].reference_rank = c->res[clk[i].reference_rank].row.trace_rank;
        if (own_domains)
            clk[i].domain = c->res[clk[i].domain].row.trace_rank;
    }
}

/* Rank 0: fits the clock offsets over every member's point (allm, trace
 * ranks made positions) into k->clk and k->offsets, one row per trace
 * found.  A failed fit other than out of memory is a warning: the
 * offsets stay 0. */
static tlm_status estimate_clocks(tlm_mpi_ctx *c, tlm_coll_clock_pt *allm,
                                  size_t n_allm, int32_t **dom,
                                  tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_coll_clock_opts co;
    tlm_coll_clock_opts_init(&co);
    co.n_ranks = (int32_t)c->n_res;
    to_positions(c, allm, n_allm);
    if (c->o.gpus_per_node > 0) {
        *dom = malloc((c->n_res ? c->n_res : 1) * sizeof **dom);
        if (*dom) {
            for (size_t i = 0; i < c->n_res; i++)
                (*dom)[i] = (int32_t)(c->res[i].row.trace_rank /
                                      c->o.gpus_per_node);
            co.domain_of_rank = *dom;
            co.n_domain_of_rank = c->n_res;
        }
    }
    tlm_error cerr;
    tlm_error_clear(&cerr);
    tlm_status cst = tlm_coll_clock_estimate_pts(allm, n_allm, &co, &k->clk,
                                                 &k->n_clk, &cerr);
    if (cst == TLM_OK) {
        to_ranks(c, k->clk, k->n_clk, co.domain_of_rank == NULL);
        tlm_coll_clock_offsets(k->clk, c->n_res, k->offsets);
    } else if (cst == TLM_ENOMEM) {
        return tlm_error_set(err, cst, NULL, -1,
                             "out of memory estimating clock offsets");
    } else {
        /* offsets are a refinement: go on with raw clocks */
        char cm[800];
        tlm_mpi_say0(c, "warning: clock offsets not estimated (%s); "
                        "corrected values equal raw ones",
                     tlm_error_format(&cerr, cm, sizeof cm));
        k->clk = NULL;
        k->n_clk = 0;
    }
    return TLM_OK;
}

_Static_assert(sizeof(tlm_coll_clock_pt) <= sizeof(tlm_coll_member),
               "the fit's points are written over the members");

/* Clock offsets: rank 0 fits them over every member, sent as the fit's
 * points (48 of a member's 128 bytes), every rank gets them and the
 * owners re-apply them to their instances. */
static tlm_status clock_offsets(tlm_mpi_ctx *c, const tlm_coll_match_opts *mo,
                                tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    void *allm = NULL;
    size_t n_allm = 0;
    int32_t *dom = NULL, *ranks = NULL;
    tlm_coll_clock_pt *pts = NULL;
    /* only instances with every member of their group inform the fit */
    tlm_coll_member *cm = malloc((k->mr.n_mem ? k->mr.n_mem : 1) * sizeof *cm);
    TLM_MPI_CHECK(cm ? TLM_OK : TLM_ENOMEM);
    size_t n_cm = tlm_coll_members_complete(&k->mr, cm);
    /* their points written over them in place (point i ends before
     * member i + 1 starts), the room given back */
    for (size_t i = 0; i < n_cm; i++) {
        tlm_coll_clock_pt one;
        tlm_coll_clock_pts_of(&cm[i], 1, &one);
        memcpy((char *)cm + i * sizeof one, &one, sizeof one);
    }
    pts = realloc(cm, (n_cm ? n_cm : 1) * sizeof *pts);
    if (!pts)
        pts = (tlm_coll_clock_pt *)(void *)cm;
    cm = NULL;
    TLM_MPI_CHECK(tlm_mpi_gather(pts, n_cm, sizeof *pts, 0, c->comm, &allm,
                                 &n_allm, err));
    free(pts);
    pts = NULL;
    size_t nr = c->n_res ? c->n_res : 1;
    k->offsets = calloc(nr, sizeof *k->offsets);
    ranks = malloc(nr * sizeof *ranks);
    st = k->offsets && ranks ? TLM_OK : TLM_ENOMEM;
    if (st == TLM_OK && c->me == 0)
        st = estimate_clocks(c, allm, n_allm, &dom, err);
    TLM_MPI_CHECK(st);
    free(allm);
    allm = NULL;
    MPI_Bcast(k->offsets, (int)c->n_res, MPI_INT64_T, 0, c->comm);
    for (size_t i = 0; i < c->n_res; i++)
        ranks[i] = c->res[i].row.trace_rank;
    tlm_coll_metrics_apply_offsets_by(&k->mr, ranks, k->offsets, c->n_res,
                                      mo->tie_ns, mo->latency_tol_ns);
done:
    free(cm);
    free(pts);
    free(allm);
    free(dom);
    free(ranks);
    return st;
}

/* Rank 0 takes the partial rows of process p (merged there) into its
 * merged rows k->strag (tlm_coll_straggler_merge_into): what it holds is
 * the merged rows plus one process's partial rows, not every owner's
 * partial rows at once. */
static tlm_status merge_from(tlm_mpi_ctx *c, int p,
                             const tlm_coll_straggler_row *ps, size_t n_ps,
                             tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    void *got = NULL;
    size_t n_got = 0;
    tlm_status st = tlm_mpi_check(
        c,
        tlm_mpi_gather(ps, c->me == p ? n_ps : 0, sizeof *ps, 0, c->comm,
                       &got, &n_got, err),
        err);
    if (st != TLM_OK)
        return st;
    if (c->me == 0 && n_got > 0) {
        /* room for exactly both: the merged rows never exceed them */
        void *q = realloc(k->strag, (k->n_strag + n_got) * sizeof *k->strag);
        if (q) {
            k->strag = q;
            tlm_coll_straggler_merge_into(k->strag, &k->n_strag, got, n_got);
        } else {
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                               "out of memory merging straggler rows");
        }
    }
    free(got);
    return tlm_mpi_check(c, st, err);
}

/* Stragglers: partial rows per owner (merged there), merged on rank 0 one
 * process at a time: rank 0's own rows start its merged rows. */
static tlm_status stragglers(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    tlm_coll_straggler_row *ps = NULL;
    size_t n_ps = 0;
    TLM_MPI_CHECK(tlm_coll_straggler_compute(k->mr.inst, k->mr.n_inst,
                                             k->mr.mem, k->mr.n_mem, NULL,
                                             &ps, &n_ps, err));
    tlm_coll_straggler_merge(ps, &n_ps);
    if (c->me == 0) {
        void *q = n_ps ? realloc(ps, n_ps * sizeof *ps) : NULL;
        k->strag = q ? q : ps; /* the room of the map given back */
        k->n_strag = n_ps;
        ps = NULL;
    }
    for (int p = 1; p < c->np && st == TLM_OK; p++)
        st = merge_from(c, p, ps, n_ps, err);
    if (st == TLM_OK && c->me == 0 && k->n_strag > 0) {
        void *q = realloc(k->strag, k->n_strag * sizeof *k->strag);
        if (q) /* the room of the last merge given back */
            k->strag = q;
    }
done:
    free(ps);
    return st;
}

/* Instances and unmatched records: rank 0, canonical order, summarised. */
static tlm_status gather_instances(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    void *tmp = NULL;
    TLM_MPI_CHECK(tlm_mpi_gather(k->mr.inst, k->mr.n_inst,
                                 sizeof *k->mr.inst, 0, c->comm, &tmp,
                                 &k->n_inst, err));
    k->inst = tmp;
    tmp = NULL;
    TLM_MPI_CHECK(tlm_mpi_gather(k->mr.unm, k->mr.n_unm, sizeof *k->mr.unm,
                                 0, c->comm, &tmp, &k->n_unm, err));
    k->unm = tmp;
    st = TLM_OK;
    if (c->me == 0) {
        tlm_coll_instances_sort(k->inst, k->n_inst);
        tlm_coll_unmatched_sort(k->unm, k->n_unm);
        st = tlm_coll_summarize(k->inst, k->n_inst, 0, NULL, &k->sum,
                                &k->n_sum, err);
        warn_collectives(c, k);
    }
    TLM_MPI_CHECK(st);
done:
    return st;
}

/* The per-rank row of member mm of instance inst (NULL: not found), and
 * the MPI rank holding its trace (*to). */
static void member_row(const tlm_mpi_ctx *c, const tlm_coll_member *mm,
                       const tlm_coll_instance *inst, tlm_row_member *o,
                       int *to)
{
    o->trace_rank = mm->trace_rank;
    if (inst)
        tlm_strnset(o->pg_name, sizeof o->pg_name, inst->pg_name,
                        sizeof inst->pg_name);
    o->seq = mm->seq;
    o->match_seq = mm->seq;
    if (inst && (inst->flags & TLM_COLL_INST_P2P) && inst->trace_seq >= 0)
        o->seq = inst->trace_seq; /* as in /collectives/instances */
    tlm_strset(o->coll, sizeof o->coll,
                   tlm_coll_type_name((tlm_coll_type)mm->coll));
    o->start_ns = mm->start_ns;
    o->end_ns = mm->end_ns;
    o->dur_ns = mm->dur_ns;
    o->wait_ns = mm->wait_ns;
    o->wait_corr_ns = mm->wait_corr_ns;
    o->offset_ns = mm->offset_ns;
    o->send_bytes = mm->send_bytes;
    o->recv_bytes = mm->recv_bytes;
    o->n_kernels = mm->n_kernels;
    o->sig_mismatch = mm->sig_mismatch;
    o->event_index = (int64_t)mm->event_index;
    o->match_key = mm->match_key;
    int64_t at = tlm_mpi_rank_pos(c, mm->trace_rank);
    *to = at >= 0 ? c->res[at].owner : 0;
}

/* The span of member mm for the exposed split (exposed_mpi.h): its
 * latency is known when its instance has every member. */
static void member_span(const tlm_coll_member *mm,
                        const tlm_coll_instance *inst, tlm_coll_xspan *o)
{
    o->start_ns = mm->start_ns;
    o->end_ns = mm->end_ns;
    o->wait_ns = mm->wait_corr_ns;
    o->trace_rank = mm->trace_rank;
    o->known = inst && !(inst->flags & (TLM_COLL_INST_INCOMPLETE |
                                        TLM_COLL_INST_OVERFULL));
}

/* Per-rank rows: built by the owner (it knows the instance), sent to the
 * MPI rank holding the trace, sorted there; the members' spans split the
 * exposed communication of the traces (exposed.c). */
static tlm_status member_rows(tlm_mpi_ctx *c, const tlm_mpi_exposed *x,
                              tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    void *tmp = NULL;
    tlm_row_member *out = calloc(k->mr.n_mem ? k->mr.n_mem : 1, sizeof *out);
    int *mdest = malloc((k->mr.n_mem ? k->mr.n_mem : 1) * sizeof *mdest);
    tlm_coll_xspan *xs = malloc((k->mr.n_mem ? k->mr.n_mem : 1) * sizeof *xs);
    TLM_MPI_CHECK(out && mdest && xs ? TLM_OK : TLM_ENOMEM);
    size_t ii = 0;
    for (size_t m = 0; m < k->mr.n_mem; m++) {
        const tlm_coll_member *mm = &k->mr.mem[m];
        while (ii < k->mr.n_inst &&
               (k->mr.inst[ii].match_key < mm->match_key ||
                (k->mr.inst[ii].match_key == mm->match_key &&
                 k->mr.inst[ii].seq < mm->seq)))
            ii++;
        int found = ii < k->mr.n_inst &&
                    k->mr.inst[ii].match_key == mm->match_key &&
                    k->mr.inst[ii].seq == mm->seq;
        member_row(c, mm, found ? &k->mr.inst[ii] : NULL, &out[m],
                   &mdest[m]);
        member_span(mm, found ? &k->mr.inst[ii] : NULL, &xs[m]);
    }
    TLM_MPI_CHECK(tlm_mpi_route(out, k->mr.n_mem, sizeof *out, mdest,
                                c->comm, &tmp, &k->n_mrows, err));
    k->mrows = tmp;
    if (k->n_mrows)
        qsort(k->mrows, k->n_mrows, sizeof *k->mrows, cmp_mrow);
    st = tlm_mpi_exposed_phase(c, x, xs, k->mr.n_mem, mdest, err);
done:
    free(out);
    free(mdest);
    free(xs);
    return st;
}

/* The exchange hook: the phase. */
static tlm_status coll_phase(tlm_mpi_ctx *c, void **sp)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);
    mo.world_size = c->world > 0 && c->world <= INT32_MAX ? (int32_t)c->world
                                                           : -1;
    tlm_status st = route_and_match(c, &mo, &err);
    if (st == TLM_OK)
        st = clock_offsets(c, &mo, &err);
    if (st == TLM_OK)
        st = stragglers(c, &err);
    if (st == TLM_OK)
        st = tlm_mpi_cause_phase(c, &err);
    if (st == TLM_OK)
        st = gather_instances(c, &err);
    if (st == TLM_OK)
        st = member_rows(c, *sp, &err);
    /* the owner's instances and members live on in k->inst (rank 0) and
     * k->mrows (their traces' holders): release them before the next
     * phase routes the records again */
    tlm_coll_match_result_free(&c->k.mr);
    tlm_mpi_exposed_free((tlm_mpi_exposed **)sp);
    return st;
}

/* ---------------------------------------------------------------- MARK: -
 * the module's other hooks and its row */

/* Appends a trace's collective records to c->recs. */
static tlm_status keep_records(tlm_mpi_ctx *c, const tlm_coll_record *recs,
                               size_t n_recs, const char *path,
                               tlm_error *err)
{
    if (n_recs == 0)
        return TLM_OK;
    tlm_coll_record *nr = realloc(c->recs, (c->n_recs + n_recs) * sizeof *nr);
    if (!nr)
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "out of memory keeping %zu collective records",
                             n_recs);
    memcpy(nr + c->n_recs, recs, n_recs * sizeof *nr);
    c->recs = nr;
    c->n_recs += n_recs;
    return TLM_OK;
}

/* The collect hook with the tree: the trace's exposed communication
 * (exposed.c). */
static tlm_status coll_tree(tlm_mpi_ctx *c, void **sp,
                            const tlm_job_trace_in *in, tlm_error *err)
{
    (void)c;
    return tlm_mpi_exposed_keep((tlm_mpi_exposed **)sp, in, err);
}

/* The collect hook: the trace's windows (cause.c) and records. */
static tlm_status coll_trace(tlm_mpi_ctx *c, void **sp,
                             const tlm_job_trace_in *in, tlm_error *err)
{
    (void)sp;
    tlm_status st = TLM_OK;
    if (in->n_events > 0)
        st = tlm_mpi_cause_keep(c, in->tr, in->recs, in->n_recs, err);
    if (st == TLM_OK)
        st = keep_records(c, in->recs, in->n_recs, in->path, err);
    return st;
}

/* Rank 0: the collective findings from its rows (coll_findings.c), kept
 * for report.md and findings.csv. */
static tlm_status findings(tlm_mpi_ctx *c, const tlm_job_rows *h)
{
    if (c->me != 0)
        return TLM_OK;
    tlm_out_gpu_sum g;
    tlm_out_gpu_summary(h->tr, h->n, &g);
    int64_t wait = 0;
    int32_t top = -1;
    int32_t rank = tlm_out_straggler_pick(c->k.strag, c->k.n_strag,
                                          c->o.straggler_threshold_us,
                                          &wait, &top);
    tlm_find_coll_in in = {h->tl, h->n,     h->sr, h->ns, h->gr,
                          h->ng, rank,     wait,  g.arch};
    tlm_find_coll_opts fo;
    tlm_out_find_opts_of(&c->o, &fo);
    free(c->find);
    c->find = NULL;
    c->n_find = 0;
    return tlm_find_coll_build(&in, &fo, &c->find, &c->n_find);
}

/* The write hook: the collective datasets (rank 0's rows, job_rows.c,
 * the member rows of the traces read here), the straggler causes and the
 * findings. */
static tlm_status coll_h5(tlm_mpi_ctx *c, void **sp, tlm_job_rows *h,
                          tlm_mpi_dataset *sets, size_t *n)
{
    (void)sp;
    tlm_status st = findings(c, h);
    if (st == TLM_OK && c->me == 0)
        st = tlm_out_cause_rows(c->k.cause, c->k.n_cause, &h->xr, &h->nx);
    const tlm_mpi_dataset mine[] = {
        {&tlm_tab_instances, h->ir, h->ni, 0},
        {&tlm_tab_members, c->k.mrows, c->k.n_mrows, 1},
        {&tlm_tab_unmatched, h->ur, h->nu, 0},
        {&tlm_tab_summary, h->sr, h->ns, 0},
        {&tlm_tab_clock, h->cr, h->nc, 0},
        {&tlm_tab_stragglers, h->gr, h->ng, 0},
        {&tlm_tab_straggler_causes, h->xr, h->nx, 0},
        {&tlm_tab_findings, c->find, c->me == 0 ? c->n_find : 0, 0},
    };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        if (*n < TLM_MPI_MAX_DATASETS)
            sets[(*n)++] = mine[i];
    return st;
}

/* What report.md and the CSVs show of the collectives. */
static void coll_results(const tlm_mpi_ctx *c, void *const *sp,
                         tlm_out_results *r)
{
    (void)sp;
    const tlm_mpi_colls *k = &c->k;
    r->inst = k->inst;
    r->n_inst = k->n_inst;
    r->n_unmatched = k->n_unm;
    r->sum = k->sum;
    r->n_sum = k->n_sum;
    r->strag = k->strag;
    r->n_strag = k->n_strag;
    r->cause = k->cause;
    r->n_cause = k->n_cause;
    r->clk = k->clk;
    r->n_clk = k->n_clk;
    r->find = c->find;
    r->n_find = c->n_find;
}

void tlm_mpi_colls_free(tlm_mpi_colls *k)
{
    tlm_coll_match_result_free(&k->mr);
    free(k->inst);
    free(k->unm);
    tlm_coll_free(NULL, k->clk);
    free(k->offsets);
    free(k->strag);
    free(k->cause);
    tlm_coll_free(NULL, k->sum);
    free(k->mrows);
    free(k->tl_sync);
    free(k->tl_smem);
    free(k->tl_long);
    tlm_coll_free(NULL, k->tl_sum);
    tlm_coll_free(NULL, k->tl_strag);
    memset(k, 0, sizeof *k);
}

/* The free hook: the records, windows, results and findings. */
static void coll_free(tlm_mpi_ctx *c, void **sp)
{
    tlm_mpi_exposed_free((tlm_mpi_exposed **)sp);
    tlm_mpi_colls_free(&c->k);
    free(c->recs);
    c->recs = NULL;
    c->n_recs = 0;
    free(c->wins);
    c->wins = NULL;
    c->n_wins = 0;
    free(c->find);
    c->find = NULL;
    c->n_find = 0;
}

const tlm_mpi_module tlm_mpi_mod_collectives = {
    .name = "collectives",
    .mark = -1,
    .on_tree = coll_tree,
    .on_trace = coll_trace,
    .exchange = coll_phase,
    .h5_tables = coll_h5,
    .results = coll_results,
    .free = coll_free,
};
