/*
 * job_trace.c - one trace on the process that owns it: read it, tell its rank
 * (file name or distributedInfo, --rank_regex / rank-source order), build
 * its call tree, its single-trace report (GPU timeline) and its collective
 * records (tlm_coll_extract), handed to the reader's collect callback
 * (the driver's modules, mpi/module.h: TLM_JOB_ON_TREE with the tree and
 * the report, TLM_JOB_ON_TRACE with the events and the records).  A bad
 * trace is recorded in its result (status and message) so that rank 0 can
 * name every bad trace at once.
 */
#include "job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_rocprof.h"
#include "tlmpi/tlm_format.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include "grow.h"
#include "rocprof_report.h"
#include "sortutil.h"

static int64_t ns_of_us(double us)
{
    return (int64_t)llround(us * 1000.0);
}

/* Starts fr for file fi: what is known before reading it. */
static void result_init(const tlm_job_reader *c, size_t fi, tlm_job_fileres *fr)
{
    const char *path = c->fl->path[fi];
    memset(fr, 0, sizeof *fr);
    fr->file_idx = (int64_t)fi;
    fr->owner = c->owner;
    tlm_row_trace *row = &fr->row;
    /* keep the tail of long paths: the file name matters most */
    size_t pl = strlen(path);
    tlm_strset(row->file, sizeof row->file,
                   pl >= sizeof row->file ? path + pl - (sizeof row->file - 1)
                                          : path);
    row->bytes_on_disk = c->fl->size[fi];
    row->name_rank = c->fl->name_rank[fi];
    row->dist_rank = -1;
    row->dist_world_size = -1;
    row->trace_rank = -1;
}

/* The trace's devices and the GPU its report uses (the same choice as
 * tlm_report_build makes from the same options). */
static tlm_status take_gpu(const tlm_job_reader *c, const tlm_trace *tr,
                           tlm_job_fileres *fr, tlm_error *err)
{
    tlm_row_trace *row = &fr->row;
    tlm_report_opts ropts;
    tlm_report_gpu g;
    tlm_report_opts_init(&ropts);
    ropts.gpu_arch = c->o->gpu_arch;
    ropts.gpu_arch_json_path = c->o->gpu_arch_json_path;
    tlm_status st = tlm_report_gpu_select(&ropts, tr, &g, err);
    if (st != TLM_OK)
        return st;
    tlm_strset(row->device_name, sizeof row->device_name,
                   g.devices.name);
    row->devices_mixed = g.devices.mixed;
    fr->n_device_props = g.devices.n_entries > INT32_MAX
                             ? INT32_MAX
                             : (int32_t)g.devices.n_entries;
    tlm_strset(row->gpu_arch, sizeof row->gpu_arch,
                   g.has_arch ? g.arch.name : "");
    tlm_strset(row->gpu_arch_source, sizeof row->gpu_arch_source,
                   tlm_arch_source_name(g.source));
    return TLM_OK;
}

/* The trace's rank (rank; -1: none found, 0 for a lone trace) into its
 * rows and node, or why not: "cannot tell the trace's rank: <why>". */
static tlm_status set_rank(const tlm_job_reader *c, const char *path,
                           tlm_job_fileres *fr, int64_t rank,
                           const char *why, tlm_error *err)
{
    if (rank < 0 && c->fl->n == 1)
        rank = 0; /* a lone trace without any rank is rank 0 */
    if (rank < 0)
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "cannot tell the trace's rank: %s", why);
    if (rank >= TLM_JOB_MAX_WORLD)
        return tlm_error_set(err, TLM_ERANGE, path, -1,
                             "trace rank %lld is too large", (long long)rank);
    fr->row.trace_rank = (int32_t)rank;
    fr->row.node = c->o->gpus_per_node > 0
                       ? (int32_t)(rank / c->o->gpus_per_node)
                       : -1;
    fr->tl.trace_rank = (int32_t)rank;
    return TLM_OK;
}

long tlm_job_gpus_per_node(tlm_job_fileres *res, size_t n, long opt,
                           const char **src)
{
    long g = -1;
    const char *from = "none";
    if (opt > 0) {
        g = opt;
        from = "--gpus_per_node";
    } else if (n > 0 && res[0].n_device_props > 0) {
        g = res[0].n_device_props;
        from = "deviceProperties";
    }
    for (size_t i = 0; i < n; i++)
        res[i].row.node =
            g > 0 ? (int32_t)(res[i].row.trace_rank / g) : -1;
    if (src)
        *src = from;
    return g;
}

/* Copies the trace's metadata and read statistics into fr and decides its
 * rank (fr->row.trace_rank, node, fr->tl.trace_rank). */
static tlm_status take_meta(const tlm_job_reader *c, const tlm_trace *tr,
                            const char *path, tlm_job_fileres *fr,
                            tlm_error *err)
{
    tlm_row_trace *row = &fr->row;
    const tlm_trace_meta *m = tlm_trace_meta_get(tr);
    const tlm_read_stats *rs = tlm_trace_stats(tr);
    row->bytes_json = (int64_t)rs->bytes_json;
    row->gzip = rs->gzip;
    row->n_events = (int64_t)rs->n_events;
    row->n_lone_surrogates = (int64_t)rs->n_lone_surrogates;
    if (m->has_distributed) {
        row->dist_rank = m->rank;
        row->dist_world_size = m->world_size;
    }
    row->base_time_ns = m->has_base_time ? m->base_time_ns : 0;
    int64_t rank = -1;
    if (c->fl->rank_source == TLM_CLI_RANK_NAME_FIRST)
        rank = row->name_rank >= 0 ? row->name_rank : row->dist_rank;
    else
        rank = row->dist_rank >= 0 ? row->dist_rank : row->name_rank;
    tlm_status st = set_rank(c, path, fr, rank,
                             "no distributedInfo.rank and the file name "
                             "does not match --rank_regex", err);
    return st == TLM_OK ? take_gpu(c, tr, fr, err) : st;
}

/* Builds the trace's report (*rep): its GPU timeline goes into fr->tl.  A
 * trace without GPU events is not an error (*rep NULL). */
static tlm_status take_report(const tlm_job_reader *c, tlm_tree *tree,
                              tlm_job_fileres *fr, tlm_report **out,
                              tlm_error *err)
{
    *out = NULL;
    tlm_report_opts ropts;
    tlm_report_opts_init(&ropts);
    ropts.short_kernel_study = 0;
    ropts.perf_sheets = 0;
    ropts.unified = 0;
    ropts.gpu_arch = c->o->gpu_arch;
    ropts.gpu_arch_json_path = c->o->gpu_arch_json_path;
    tlm_report *rep = NULL;
    tlm_error terr;
    tlm_error_clear(&terr);
    tlm_status ts = tlm_report_build(tree, &ropts, &rep, &terr);
    if (ts == TLM_ENOTFOUND)
        return TLM_OK; /* no GPU events */
    if (ts != TLM_OK) {
        *err = terr;
        return ts;
    }
    const tlm_gpu_timeline *tlp = tlm_report_timeline(rep);
    fr->tl.total_ns = ns_of_us(tlp->total_us);
    fr->tl.busy_ns = ns_of_us(tlp->busy_us);
    fr->tl.idle_ns = ns_of_us(tlp->idle_us);
    fr->tl.computation_ns = ns_of_us(tlp->computation_us);
    fr->tl.exposed_comm_ns = ns_of_us(tlp->exposed_comm_us);
    fr->tl.exposed_memcpy_ns = ns_of_us(tlp->exposed_memcpy_us);
    fr->tl.total_comm_ns = ns_of_us(tlp->total_comm_us);
    fr->tl.total_memcpy_ns = ns_of_us(tlp->total_memcpy_us);
    fr->tl.n_gpu_events = (int64_t)tlp->n_events;
    *out = rep;
    return TLM_OK;
}

/* Hands in to the reader's collect callback (when: TLM_JOB_ON_*). */
static tlm_status collect(const tlm_job_reader *c, int when,
                          const tlm_job_trace_in *in, tlm_error *err)
{
    return c->collect ? c->collect(c->arg, when, in, err) : TLM_OK;
}

/* The call tree of a trace with events: tree statistics, report, then the
 * collective records (*recs, *n_recs). */
static tlm_status analyse_events(const tlm_job_reader *c, const tlm_trace *tr,
                                 const char *path, tlm_job_fileres *fr,
                                 tlm_coll_record **recs, size_t *n_recs,
                                 tlm_error *err)
{
    tlm_row_trace *row = &fr->row;
    tlm_tree *tree = NULL;
    tlm_status st = tlm_tree_build(tr, NULL, &tree, err);
    if (st != TLM_OK) {
        tlm_tree_free(tree);
        return st;
    }
    const tlm_tree_stats *tst = tlm_tree_stats_get(tree);
    row->n_bad_time = (int64_t)tst->n_no_time;
    row->n_gpu_unlinked = (int64_t)tst->n_gpu_unlinked;
    row->n_flow_warnings =
        (int64_t)(tst->n_flow_bad_target + tst->n_flow_half);
    tlm_report *rep = NULL;
    st = take_report(c, tree, fr, &rep, err);
    if (st == TLM_OK) { /* the modules' rows of the tree and the report */
        tlm_job_trace_in in = {.path = path, .tr = tr, .tree = tree,
                               .rep = rep, .fr = fr};
        st = collect(c, TLM_JOB_ON_TREE, &in, err);
    }
    tlm_report_free(rep);
    tlm_tree_free(tree);
    if (st != TLM_OK)
        return st;

    tlm_coll_extract_opts xo;
    tlm_coll_extract_opts_init(&xo);
    xo.trace_rank = row->trace_rank;
    tlm_coll_extract_stats xs;
    memset(&xs, 0, sizeof xs);
    st = tlm_coll_extract(tr, &xo, recs, n_recs, &xs, err);
    if (st != TLM_OK)
        return st;
    row->n_coll_records = (int64_t)*n_recs;
    row->n_seq_trace = (int64_t)(xs.n_seq_trace + xs.n_seq_concrete);
    row->n_seq_ordinal = (int64_t)xs.n_seq_ordinal;
    return TLM_OK;
}

/* The rank of a trace without distributedInfo (rocprof): from its name,
 * or 0 for a lone trace. */
static tlm_status rank_of_name(const tlm_job_reader *c, const char *path,
                               tlm_job_fileres *fr, tlm_error *err)
{
    return set_rank(c, path, fr, fr->row.name_rank,
                    "a rocprofv3 JSON has no distributedInfo and the file "
                    "name does not match --rank_regex", err);
}

/* The GPU of a rocprof trace: --gpu_arch, else the bundled GPU its GPU
 * agent's product name stands for (the gfx name when it has none). */
static void rocprof_gpu(const tlm_job_reader *c, const tlm_rocprof *rp,
                        tlm_row_trace *row)
{
    const char *prod = "", *gfx = tlm_rocprof_gpu_arch(rp, &prod);
    tlm_strset(row->device_name, sizeof row->device_name,
                   prod && *prod ? prod : gfx ? gfx : "");
    const tlm_gpu_arch *a = tlm_gpu_arch_match_device(prod);
    if (c->o->gpu_arch && strcmp(c->o->gpu_arch, "none") != 0) {
        tlm_strset(row->gpu_arch, sizeof row->gpu_arch, c->o->gpu_arch);
        tlm_strset(row->gpu_arch_source, sizeof row->gpu_arch_source,
                       "option");
    } else if (a && !c->o->gpu_arch && !c->o->gpu_arch_json_path) {
        tlm_strset(row->gpu_arch, sizeof row->gpu_arch, a->name);
        tlm_strset(row->gpu_arch_source, sizeof row->gpu_arch_source,
                       "trace");
    } else {
        tlm_strset(row->gpu_arch_source, sizeof row->gpu_arch_source,
                       "none");
    }
}

/* Kernel rows of a rocprof trace for /kernels: one per (name, stream),
 * longest total first; no launching op (rocprof keeps no host ops). */
static int rp_key_cmp(const void *ctx, size_t a, size_t b)
{
    const tlm_rp_kernel *k = ctx;
    if (k[a].name != k[b].name)
        return k[a].name < k[b].name ? -1 : 1;
    return (k[a].stream > k[b].stream) - (k[a].stream < k[b].stream);
}

static int row_sum_desc(const void *ctx, size_t a, size_t b)
{
    const tlm_row_kernel *r = ctx;
    return r[a].dur_ns_sum > r[b].dur_ns_sum   ? -1
           : r[a].dur_ns_sum < r[b].dur_ns_sum ? 1
                                               : 0;
}

static void rp_row(const tlm_rocprof *rp, const tlm_rp_kernel *k,
                   const size_t *ix, size_t n, int32_t rank,
                   tlm_row_kernel *o)
{
    memset(o, 0, sizeof *o);
    o->trace_rank = rank;
    const char *nm = tlm_rocprof_str(rp, k[ix[0]].name, NULL);
    size_t l = strlen(nm);
    if (l >= sizeof o->kernel)
        l = tlm_utf8_cut(nm, sizeof o->kernel - 1);
    memcpy(o->kernel, nm, l);
    o->stream = k[ix[0]].stream;
    o->count = (int64_t)n;
    o->dur_ns_min = o->dur_ns_max = (double)(k[ix[0]].end - k[ix[0]].start);
    for (size_t i = 0; i < n; i++) {
        double d = (double)(k[ix[i]].end - k[ix[i]].start);
        o->dur_ns_sum += d;
        o->dur_ns_min = d < o->dur_ns_min ? d : o->dur_ns_min;
        o->dur_ns_max = d > o->dur_ns_max ? d : o->dur_ns_max;
    }
    o->dur_ns_mean = o->dur_ns_sum / (double)n;
}

static tlm_status rocprof_kernel_rows(const tlm_job_reader *c, const tlm_rocprof *rp,
                                      int32_t rank, int64_t total_ns,
                                      tlm_job_fileres *fr)
{
    tlm_job_rtabs *t = c->rt;
    size_t nk;
    const tlm_rp_kernel *k = tlm_rocprof_kernels(rp, &nk);
    fr->span[0][0] = (int64_t)t->n_ops;
    fr->span[1][0] = (int64_t)t->n_ua;
    fr->span[2][0] = (int64_t)t->n_kn;
    if (nk == 0)
        return TLM_OK;
    size_t *ix = malloc(nk * sizeof *ix), *perm = NULL;
    tlm_row_kernel *rows = NULL;
    size_t nr = 0;
    tlm_status st = ix ? TLM_OK : TLM_ENOMEM;
    for (size_t i = 0; st == TLM_OK && i < nk; i++)
        ix[i] = i;
    if (st == TLM_OK)
        st = tlm_sort_idx(ix, nk, rp_key_cmp, k);
    if (st == TLM_OK && !(rows = malloc(nk * sizeof *rows)))
        st = TLM_ENOMEM;
    double all = 0.0;
    for (size_t a = 0, b; st == TLM_OK && a < nk; a = b) {
        for (b = a + 1; b < nk && rp_key_cmp(k, ix[a], ix[b]) == 0; b++)
            ;
        rp_row(rp, k, ix + a, b - a, rank, &rows[nr]);
        all += rows[nr++].dur_ns_sum;
    }
    if (st == TLM_OK && !(perm = malloc(nr * sizeof *perm)))
        st = TLM_ENOMEM;
    for (size_t i = 0; st == TLM_OK && i < nr; i++)
        perm[i] = i;
    if (st == TLM_OK)
        st = tlm_sort_idx(perm, nr, row_sum_desc, rows);
    if (st == TLM_OK &&
        tlm_grow((void **)&t->kn, &t->cap_kn, t->n_kn + nr, sizeof *t->kn,
                 64))
        st = TLM_ENOMEM;
    for (size_t i = 0; st == TLM_OK && i < nr; i++) {
        tlm_row_kernel *o = &t->kn[t->n_kn + i];
        *o = rows[perm[i]];
        o->percent_kernels = all > 0 ? o->dur_ns_sum / all * 100.0 : 0.0;
        o->percent_total =
            total_ns > 0 ? o->dur_ns_sum / (double)total_ns * 100.0 : 0.0;
    }
    if (st == TLM_OK) {
        fr->span[2][1] = (int64_t)nr;
        t->n_kn += nr;
    }
    free(ix);
    free(perm);
    free(rows);
    return st;
}

/* A rocprofv3 JSON: per-rank GPU time (kernels and copies merged) and
 * RCCL kernel time into the timeline; no collective records (rocprof
 * keeps no process group, sequence number or message size per call, so
 * the report says its collectives are not matched). */
static void read_rocprof(const tlm_job_reader *c, const char *path,
                         tlm_job_fileres *fr)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_rocprof *rp = NULL;
    tlm_row_trace *row = &fr->row;
    tlm_strset(row->format, sizeof row->format, "rocprof-json");
    tlm_status st = tlm_rocprof_read_file(path, NULL, &rp, &err);
    if (st == TLM_OK)
        st = rank_of_name(c, path, fr, &err);
    tlm_rp_busy b;
    if (st == TLM_OK && (st = tlm_rocprof_busy(rp, &b)) != TLM_OK)
        tlm_error_set(&err, st, path, -1, "out of memory");
    if (st == TLM_OK &&
        (st = rocprof_kernel_rows(c, rp, fr->row.trace_rank, b.total_ns,
                                  fr)) != TLM_OK)
        tlm_error_set(&err, st, path, -1,
                      "out of memory keeping kernel rows");
    if (st != TLM_OK) {
        tlm_rocprof_free(rp);
        fr->status = (int32_t)st;
        if (!err.file[0])
            tlm_strset(err.file, sizeof err.file, path);
        if (c->msg && c->msg_cap)
            tlm_error_format(&err, c->msg, c->msg_cap);
        return;
    }
    const tlm_rp_meta *m = tlm_rocprof_meta(rp);
    size_t na;
    tlm_rocprof_apis(rp, &na);
    row->bytes_json = (int64_t)m->bytes_json;
    row->gzip = m->gzip;
    row->n_events = b.n_events + (int64_t)na;
    rocprof_gpu(c, rp, row);
    fr->tl.total_ns = b.total_ns;
    fr->tl.busy_ns = b.busy_ns;
    fr->tl.idle_ns = b.idle_ns;
    fr->tl.computation_ns = b.computation_ns;
    fr->tl.total_comm_ns = b.comm_ns;
    fr->tl.exposed_comm_ns = b.kernel_ns - b.computation_ns;
    fr->tl.total_memcpy_ns = b.memcpy_ns;
    fr->tl.exposed_memcpy_ns = b.busy_ns - b.kernel_ns;
    fr->tl.n_gpu_events = b.n_events;
    tlm_rocprof_free(rp);
    fr->status = TLM_OK;
}

/* The driver's reader of each trace format (tlm_format.h) by its id;
 * NULL: the Kineto JSON path of tlm_job_read_trace (whose reader also
 * judges what no format claims). */
static void (*const read_by_format[TLM_FORMAT_COUNT])(
    const tlm_job_reader *, const char *, tlm_job_fileres *) = {
    [TLM_FORMAT_ROCPROF_JSON] = read_rocprof,
};

void tlm_job_read_trace(const tlm_job_reader *c, size_t fi,
                        tlm_job_fileres *fr)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_trace *tr = NULL;
    tlm_coll_record *recs = NULL;
    size_t n_recs = 0;
    const char *path = c->fl->path[fi];
    result_init(c, fi, fr);
    int fmt;
    if (c->fl->format && c->fl->format[fi] >= 0 &&
        c->fl->format[fi] < TLM_FORMAT_COUNT)
        fmt = c->fl->format[fi]; /* discovery sniffed it */
    else
        (void)tlm_format_of_file(path, &fmt); /* out of memory: UNKNOWN */
    if (read_by_format[fmt]) {
        read_by_format[fmt](c, path, fr);
        return;
    }
    tlm_strset(fr->row.format, sizeof fr->row.format, "kineto-json");

    tlm_read_opts ro;
    tlm_read_opts_init(&ro);
    ro.keep_events = 1;
    ro.share_pg_ranks = 1; /* every trace repeats the job's groups */
    tlm_status st = tlm_trace_read_file(path, &ro, &tr, &err);
    if (st != TLM_OK)
        goto fail;
    st = take_meta(c, tr, path, fr, &err);
    if (st != TLM_OK)
        goto fail;
    size_t n_ev = 0;
    tlm_trace_events(tr, &n_ev);
    if (n_ev > 0) {
        st = analyse_events(c, tr, path, fr, &recs, &n_recs, &err);
        if (st != TLM_OK)
            goto fail;
    }
    /* the modules' part of the trace: records, windows, events */
    tlm_job_trace_in in = {.path = path, .tr = tr, .n_events = n_ev,
                           .recs = recs, .n_recs = n_recs, .fr = fr};
    st = collect(c, TLM_JOB_ON_TRACE, &in, &err);
    if (st != TLM_OK)
        goto fail;
    tlm_coll_free(NULL, recs);
    tlm_trace_free(tr);
    fr->status = TLM_OK;
    return;
fail:
    tlm_coll_free(NULL, recs);
    tlm_trace_free(tr);
    fr->status = (int32_t)(st != TLM_OK ? st : TLM_EINVAL);
    if (!err.file[0])
        tlm_strset(err.file, sizeof err.file, path);
    if (c->msg && c->msg_cap)
        tlm_error_format(&err, c->msg, c->msg_cap);
}
