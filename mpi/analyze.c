/*
 * analyze.c - the tlmpi analysis mode: the MPI driver of DESIGN.md.
 *
 *   rank 0     discover files, check the output, broadcast the list
 *   all ranks  LPT assignment by file size (computed identically everywhere)
 *              read each own trace: metadata -> trace rank, call tree ->
 *              GPU timeline, collective records (tlm_coll_extract)
 *              all-gather per-file results: every bad trace is reported by
 *              name, duplicate / missing ranks are checked
 *              route records to owner = owner_key % nprocs, match, clock
 *              offsets (rank 0 from all members), re-apply, stragglers
 *              TraceLens parity tables the same way (tl owner key)
 *              write tlmpi.h5 collectively (temporary name, renamed by
 *              rank 0 after every rank closed it)
 *   rank 0     report.md and CSV sheets
 *
 * Every step that follows a local failure point starts by agreeing on the
 * status (MPI_Allreduce MAX), so every rank takes the same branch: a bad
 * trace ends the job with a message and exit code 1, never a hang.
 *
 * Results do not depend on the number of MPI ranks: every table is written
 * in a canonical order (by trace rank, or by the sort keys of tlm_coll.h),
 * per-trace tables through explicit row segments.
 */
#include "analyze.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "assign.h"
#include "discover.h"
#include "exchange.h"
#include "h5write.h"
#include "opts.h"
#include "report0.h"
#include "tables.h"
#include "tlmpi/tlm_coll.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

/* Copies a fixed string field into another (truncating whole UTF-8
 * characters, NUL-padding). */
#define FIXSTR(dst, src) tlm_mpi_strnset((dst), sizeof(dst), (src), sizeof(src))

#define PATH_CAP 4096
#define MSG_CAP 768
#define TAG_PROGRESS 4242
#define MAX_WORLD (1 << 24)

/* What rank 0 broadcasts after discovery. */
typedef struct setup {
    int32_t status;
    int32_t exit_code;
    uint64_t packed_len;
    char msg[1024];
    char out[PATH_CAP];
    char tmp[PATH_CAP];
    char rdir[PATH_CAP];
    char cdir[PATH_CAP];
} setup;

/* Result of one file, all-gathered. */
typedef struct fileres {
    int64_t file_idx;
    int32_t status;
    int32_t owner;
    tlm_row_trace row;
    tlm_row_timeline tl;
    int64_t span[3][2];      /* local rows of ops, uargs, kernels: first,
                              * count (meaningful on the owner only) */
    char msg[MSG_CAP];
} fileres;

/* Rows of the per-trace report tables held on this rank. */
typedef struct rtabs {
    tlm_row_op *ops;
    size_t n_ops, cap_ops;
    tlm_row_uargs *ua;
    size_t n_ua, cap_ua;
    tlm_row_kernel *kn;
    size_t n_kn, cap_kn;
} rtabs;

typedef struct ctx {
    MPI_Comm comm;
    int me, np;
    tlm_mpi_opts o;
    char cmdline[8192];
    setup su;
    tlm_mpi_filelist fl;
    int *owner;              /* per file */
    double t0;
    double phase[5];         /* end of: read, check, collectives, tables,
                              * HDF5 (seconds since t0) */
    /* local */
    fileres *lres;
    size_t n_lres;
    tlm_coll_record *recs;   /* records of all local traces */
    size_t n_recs;
    rtabs rt;                /* report table rows of local traces */
    tlm_row_op *ord_ops;     /* the same, ordered by trace rank */
    tlm_row_uargs *ord_ua;
    tlm_row_kernel *ord_kn;
    tlm_row_op_merged *mops; /* rank 0: ops merged across ranks */
    size_t n_mops;
    /* global, every rank */
    fileres *res;            /* all files, sorted by trace_rank */
    size_t n_res;
    int64_t world;
    int32_t *holder;         /* MPI rank holding trace rank r (or -1) */
    int64_t *pos;            /* position of trace rank r in res (or -1) */
    uint64_t bytes_read;
} ctx;

/* ------------------------------------------------------------------ *
 * MARK: - small helpers
 * ------------------------------------------------------------------ */

static void say0(const ctx *c, const char *fmt, ...) TLM_PRINTF(2, 3);
static void warn_collectives(const ctx *c, const tlm_coll_instance *inst,
                             size_t n_inst, const tlm_coll_unmatched *unm,
                             size_t n_unm);
static void warn_traces(const ctx *c, size_t n);
static void say0(const ctx *c, const char *fmt, ...)
{
    if (c->me != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("tlmpi: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
}

/* Rank 0: one line per kind of odd input the traces had, with a count and
 * the first file (counts per trace are in /traces). */
static void warn_traces(const ctx *c, size_t n)
{
    static const struct {
        size_t off;
        const char *what;
    } kinds[] = {
        {offsetof(tlm_row_trace, n_bad_time),
         "events without a valid ts/dur (missing, or dur < 0) left out"},
        {offsetof(tlm_row_trace, n_flow_warnings),
         "ac2g flows pointing to no GPU event or missing a half"},
        {offsetof(tlm_row_trace, n_lone_surrogates),
         "lone surrogate escapes replaced by U+FFFD"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int64_t total = 0;
        size_t traces = 0;
        const char *first = NULL;
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            memcpy(&v, (const char *)&c->res[i].row + kinds[k].off,
                   sizeof v);
            if (v > 0) {
                total += v;
                if (traces++ == 0)
                    first = c->res[i].row.file;
            }
        }
        if (traces > 0)
            say0(c, "warning: %lld %s, in %zu trace%s (first: %s)",
                 (long long)total, kinds[k].what, traces,
                 traces == 1 ? "" : "s", first);
    }
}

/* Rank 0: says what in the collectives does not add up, so that odd
 * metadata (sizes, group sizes that disagree across ranks) is not only in
 * the HDF5 file. */
static void warn_collectives(const ctx *c, const tlm_coll_instance *inst,
                             size_t n_inst, const tlm_coll_unmatched *unm,
                             size_t n_unm)
{
    size_t why[4] = {0}, n_sig = 0, n_group = 0, n_inc = 0;
    for (size_t i = 0; i < n_unm; i++)
        why[unm[i].reason >= 1 && unm[i].reason <= 3 ? unm[i].reason : 0]++;
    for (size_t i = 0; i < n_inst; i++) {
        n_sig += (inst[i].flags & TLM_COLL_INST_SIG_MISMATCH) != 0;
        n_group += (inst[i].flags & TLM_COLL_INST_GROUP_MISMATCH) != 0;
        n_inc += (inst[i].flags & TLM_COLL_INST_INCOMPLETE) != 0;
    }
    if (n_unm > 0)
        say0(c,
             "warning: %zu collective kernel%s not matched across ranks "
             "(%zu signature mismatch, %zu not alignable, %zu duplicate); "
             "see /collectives/unmatched",
             n_unm, n_unm == 1 ? "" : "s",
             why[TLM_COLL_UNM_SIG_MISMATCH], why[TLM_COLL_UNM_NO_OVERLAP],
             why[TLM_COLL_UNM_DUPLICATE]);
    if (n_sig > 0)
        say0(c,
             "warning: %zu collective instance%s with members that disagree "
             "on type, dtype or element counts (flag SIG_MISMATCH)",
             n_sig, n_sig == 1 ? "" : "s");
    if (n_group > 0)
        say0(c,
             "warning: %zu collective instance%s with members that disagree "
             "on the group size (flag GROUP_MISMATCH)",
             n_group, n_group == 1 ? "" : "s");
    if (n_inc > 0)
        say0(c,
             "note: %zu of %zu collective instances miss some ranks of their "
             "group (flag INCOMPLETE: clipped windows or missing traces)",
             n_inc, n_inst);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* snprintf for paths: 0, or -1 when the result did not fit. */
static int pathf(char *dst, size_t cap, const char *fmt, ...) TLM_PRINTF(3, 4);
static int pathf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

static void dirname_of(const char *path, char *out, size_t cap)
{
    const char *s = strrchr(path, '/');
    if (!s)
        snprintf(out, cap, ".");
    else if (s == path)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(s - path), path);
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static tlm_status ensure_dir(const char *p, tlm_error *err)
{
    if (is_dir(p))
        return TLM_OK;
    if (mkdir(p, 0777) != 0 && !is_dir(p))
        return tlm_error_set(err, TLM_EIO, p, -1,
                             "cannot create output folder: %s",
                             strerror(errno));
    return TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - setup on rank 0
 * ------------------------------------------------------------------ */

static tlm_status setup0(ctx *c, tlm_error *err)
{
    setup *s = &c->su;
    int bad = 0;
    tlm_status st = tlm_mpi_discover(&c->o, &c->fl, err);
    if (st != TLM_OK)
        return st;
    if (c->o.output)
        bad |= pathf(s->out, sizeof s->out, "%s", c->o.output);
    else if (c->o.trace_dir)
        bad |= pathf(s->out, sizeof s->out, "%s/tlmpi.h5", c->o.trace_dir);
    else {
        char d[PATH_CAP];
        dirname_of(c->fl.path[0], d, sizeof d);
        bad |= pathf(s->out, sizeof s->out, "%s/tlmpi.h5", d);
    }
    if (bad)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "output path too long");
    char odir[PATH_CAP];
    dirname_of(s->out, odir, sizeof odir);
    if (!is_dir(odir))
        return tlm_error_set(err, TLM_ENOTFOUND, odir, -1,
                             "output folder does not exist");
    if (access(odir, W_OK) != 0)
        return tlm_error_set(err, TLM_EIO, odir, -1,
                             "output folder is not writable: %s",
                             strerror(errno));
    if (access(s->out, F_OK) == 0 && !c->o.force)
        return tlm_error_set(err, TLM_EEXIST, s->out, -1,
                             "output file exists; use --force to replace "
                             "it");
    bad |= pathf(s->tmp, sizeof s->tmp, "%s.tmp-%ld", s->out, (long)getpid());
    if (c->o.output_dir)
        bad |= pathf(s->rdir, sizeof s->rdir, "%s", c->o.output_dir);
    else
        bad |= pathf(s->rdir, sizeof s->rdir, "%s", odir);
    bad |= pathf(s->cdir, sizeof s->cdir, "%s",
             c->o.output_csvs_dir ? c->o.output_csvs_dir : s->rdir);
    if (bad)
        return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                             "output path too long");
    if (!c->o.no_report) {
        if ((st = ensure_dir(s->rdir, err)) != TLM_OK ||
            (st = ensure_dir(s->cdir, err)) != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* Rank 0 discovers; everyone receives the list.  Returns the agreed
 * status (message printed by rank 0). */
static tlm_status share_setup(ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    char *packed = NULL;
    size_t plen = 0;
    if (c->me == 0) {
        tlm_status st = setup0(c, &err);
        if (st == TLM_OK)
            st = tlm_mpi_filelist_pack(&c->fl, &packed, &plen);
        c->su.status = (int32_t)st;
        c->su.packed_len = plen;
        if (st != TLM_OK) {
            if (err.code == TLM_OK)
                tlm_error_set(&err, st, NULL, -1, "%s", tlm_status_str(st));
            tlm_error_format(&err, c->su.msg, sizeof c->su.msg);
        }
    }
    if (MPI_Bcast(&c->su, (int)sizeof c->su, MPI_BYTE, 0, c->comm) !=
        MPI_SUCCESS)
        return TLM_EMPI;
    if (c->su.status != TLM_OK) {
        say0(c, "error: %s", c->su.msg);
        free(packed);
        return (tlm_status)c->su.status;
    }
    if (c->me != 0) {
        packed = malloc(c->su.packed_len ? c->su.packed_len : 1);
    }
    tlm_status st = tlm_mpi_agree(packed ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        say0(c, "error: out of memory");
        free(packed);
        return st;
    }
    if (MPI_Bcast(packed, (int)c->su.packed_len, MPI_BYTE, 0, c->comm) !=
        MPI_SUCCESS) {
        free(packed);
        return TLM_EMPI;
    }
    if (c->me != 0)
        st = tlm_mpi_filelist_unpack(packed, c->su.packed_len, &c->fl, &err);
    free(packed);
    c->owner = malloc((c->fl.n ? c->fl.n : 1) * sizeof *c->owner);
    if (st == TLM_OK && (!c->owner ||
                         tlm_mpi_assign(c->fl.size, c->fl.n, c->np,
                                        c->owner) != 0))
        st = TLM_ENOMEM;
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        say0(c, "error: cannot distribute the file list (%s)",
             tlm_status_str(st));
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - one trace
 * ------------------------------------------------------------------ */

static int64_t ns_of_us(double us)
{
    return (int64_t)llround(us * 1000.0);
}

/* Report cell helpers: a missing column or an empty cell is NaN / "". */
static long col_of(const tlm_report *r, long t, const char *name)
{
    if (t < 0)
        return -1;
    size_t nc = tlm_report_table_cols(r, (size_t)t);
    for (size_t k = 0; k < nc; k++)
        if (strcmp(tlm_report_table_colname(r, (size_t)t, k), name) == 0)
            return (long)k;
    return -1;
}

static double cell_num(const tlm_report *r, long t, size_t row, long col)
{
    double v = NAN;
    if (t >= 0 && col >= 0)
        tlm_report_cell_num(r, (size_t)t, row, (size_t)col, &v);
    return v;
}

static int64_t cell_int(const tlm_report *r, long t, size_t row, long col)
{
    double v = cell_num(r, t, row, col);
    return isnan(v) ? -1 : (int64_t)llround(v);
}

static void cell_str(const tlm_report *r, long t, size_t row, long col,
                     char *dst, size_t cap)
{
    if (t < 0 || col < 0) {
        tlm_mpi_strset(dst, cap, "");
        return;
    }
    size_t full = tlm_report_cell_text(r, (size_t)t, row, (size_t)col, dst,
                                       cap);
    size_t n = strlen(dst);
    if (full > n)
        n = tlm_mpi_utf8_cut(dst, n); /* truncated: whole characters only */
    memset(dst + n, 0, cap - n);
}

/* Grows a row array to hold n more rows. */
static int grow(void **p, size_t *cap, size_t have, size_t more, size_t sz)
{
    if (have + more <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < have + more)
        nc *= 2;
    void *q = realloc(*p, nc * sz);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* Copies the ops_summary, ops_unique_args and kernel_summary rows of one
 * trace's report into c->rt; fr->span records where. */
static tlm_status keep_report_rows(ctx *c, const tlm_report *rep,
                                   int32_t rank, fileres *fr)
{
    rtabs *t = &c->rt;
    long to = tlm_report_table_find(rep, "ops_summary");
    long tu = tlm_report_table_find(rep, "ops_unique_args");
    long tk = tlm_report_table_find(rep, "kernel_summary");
    size_t no = to >= 0 ? tlm_report_table_rows(rep, (size_t)to) : 0;
    size_t nu = tu >= 0 ? tlm_report_table_rows(rep, (size_t)tu) : 0;
    size_t nk = tk >= 0 ? tlm_report_table_rows(rep, (size_t)tk) : 0;
    if (grow((void **)&t->ops, &t->cap_ops, t->n_ops, no, sizeof *t->ops) ||
        grow((void **)&t->ua, &t->cap_ua, t->n_ua, nu, sizeof *t->ua) ||
        grow((void **)&t->kn, &t->cap_kn, t->n_kn, nk, sizeof *t->kn))
        return TLM_ENOMEM;
    fr->span[0][0] = (int64_t)t->n_ops;
    fr->span[0][1] = (int64_t)no;
    fr->span[1][0] = (int64_t)t->n_ua;
    fr->span[1][1] = (int64_t)nu;
    fr->span[2][0] = (int64_t)t->n_kn;
    fr->span[2][1] = (int64_t)nk;
    long c_name = col_of(rep, to, "name");
    long c_cat = col_of(rep, to, "Categories");
    long c_cnt = col_of(rep, to, "Count");
    long c_dir = col_of(rep, to, "total_direct_kernel_time_ms");
    long c_sub = col_of(rep, to, "total_subtree_kernel_time_ms");
    long c_pct = col_of(rep, to, "Percentage (%)");
    for (size_t i = 0; i < no; i++) {
        tlm_row_op *o = &t->ops[t->n_ops++];
        memset(o, 0, sizeof *o);
        o->trace_rank = rank;
        cell_str(rep, to, i, c_name, o->name, sizeof o->name);
        cell_str(rep, to, i, c_cat, o->categories, sizeof o->categories);
        o->count = cell_int(rep, to, i, c_cnt);
        o->direct_kernel_ns = cell_num(rep, to, i, c_dir) * 1e6;
        o->subtree_kernel_ns = cell_num(rep, to, i, c_sub) * 1e6;
        o->percent = cell_num(rep, to, i, c_pct);
    }
    long u[14];
    static const char *un[14] = {
        "name", "op category", "Input Dims", "Input type", "Input Strides",
        "Concrete Inputs", "operation_count",
        "total_direct_kernel_time_mean", "total_direct_kernel_time_median",
        "total_direct_kernel_time_min", "total_direct_kernel_time_max",
        "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
        "ex_UID"};
    for (int k = 0; k < 14; k++)
        u[k] = col_of(rep, tu, un[k]);
    long u_pct = col_of(rep, tu, "Percentage (%)");
    for (size_t i = 0; i < nu; i++) {
        tlm_row_uargs *o = &t->ua[t->n_ua++];
        memset(o, 0, sizeof *o);
        o->trace_rank = rank;
        cell_str(rep, tu, i, u[0], o->name, sizeof o->name);
        cell_str(rep, tu, i, u[1], o->op_category, sizeof o->op_category);
        cell_str(rep, tu, i, u[2], o->input_dims, sizeof o->input_dims);
        cell_str(rep, tu, i, u[3], o->input_type, sizeof o->input_type);
        cell_str(rep, tu, i, u[4], o->input_strides, sizeof o->input_strides);
        cell_str(rep, tu, i, u[5], o->concrete_inputs,
                 sizeof o->concrete_inputs);
        o->count = cell_int(rep, tu, i, u[6]);
        /* TraceLens: microseconds */
        o->direct_kernel_ns_mean = cell_num(rep, tu, i, u[7]) * 1e3;
        o->direct_kernel_ns_median = cell_num(rep, tu, i, u[8]) * 1e3;
        o->direct_kernel_ns_min = cell_num(rep, tu, i, u[9]) * 1e3;
        o->direct_kernel_ns_max = cell_num(rep, tu, i, u[10]) * 1e3;
        o->direct_kernel_ns_sum = cell_num(rep, tu, i, u[11]) * 1e3;
        o->subtree_kernel_ns_sum = cell_num(rep, tu, i, u[12]) * 1e3;
        o->ex_uid = cell_int(rep, tu, i, u[13]);
        o->percent = cell_num(rep, tu, i, u_pct);
    }
    long k_cat = col_of(rep, tk, "Parent op category");
    long k_op = col_of(rep, tk, "Parent cpu_op");
    long k_nm = col_of(rep, tk, "Kernel name");
    long k_st = col_of(rep, tk, "Kernel stream");
    long k_sum = col_of(rep, tk, "Kernel duration (\xc2\xb5s)_sum");
    long k_cnt = col_of(rep, tk, "Kernel duration (\xc2\xb5s)_count");
    long k_mean = col_of(rep, tk, "Kernel duration (\xc2\xb5s)_mean");
    long k_min = col_of(rep, tk, "Kernel duration (\xc2\xb5s)_min");
    long k_max = col_of(rep, tk, "Kernel duration (\xc2\xb5s)_max");
    long k_pk = col_of(rep, tk, "Percent of kernels time (%)");
    long k_pt = col_of(rep, tk, "Percent of total time (%)");
    for (size_t i = 0; i < nk; i++) {
        tlm_row_kernel *o = &t->kn[t->n_kn++];
        memset(o, 0, sizeof *o);
        o->trace_rank = rank;
        cell_str(rep, tk, i, k_cat, o->parent_op_category,
                 sizeof o->parent_op_category);
        cell_str(rep, tk, i, k_op, o->parent_op, sizeof o->parent_op);
        cell_str(rep, tk, i, k_nm, o->kernel, sizeof o->kernel);
        o->stream = cell_int(rep, tk, i, k_st);
        o->count = cell_int(rep, tk, i, k_cnt);
        o->dur_ns_sum = cell_num(rep, tk, i, k_sum) * 1e3;
        o->dur_ns_mean = cell_num(rep, tk, i, k_mean) * 1e3;
        o->dur_ns_min = cell_num(rep, tk, i, k_min) * 1e3;
        o->dur_ns_max = cell_num(rep, tk, i, k_max) * 1e3;
        o->percent_kernels = cell_num(rep, tk, i, k_pk);
        o->percent_total = cell_num(rep, tk, i, k_pt);
    }
    return TLM_OK;
}

/* Reads file fi and fills fr; appends its collective records to c->recs.
 * A failure is recorded in fr (status, message), never fatal here. */
static void process_trace(ctx *c, size_t fi, fileres *fr)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_trace *tr = NULL;
    tlm_tree *tree = NULL;
    tlm_coll_record *recs = NULL;
    size_t n_recs = 0;
    const char *path = c->fl.path[fi];
    memset(fr, 0, sizeof *fr);
    fr->file_idx = (int64_t)fi;
    fr->owner = c->me;
    tlm_row_trace *row = &fr->row;
    {
        /* keep the tail of long paths: the file name matters most */
        size_t pl = strlen(path);
        tlm_mpi_strset(row->file, sizeof row->file,
                       pl >= sizeof row->file
                           ? path + pl - (sizeof row->file - 1)
                           : path);
    }
    row->bytes_on_disk = c->fl.size[fi];
    row->name_rank = c->fl.name_rank[fi];
    row->dist_rank = -1;
    row->dist_world_size = -1;
    row->trace_rank = -1;

    tlm_read_opts ro;
    tlm_read_opts_init(&ro);
    ro.keep_events = 1;
    tlm_status st = tlm_trace_read_file(path, &ro, &tr, &err);
    if (st != TLM_OK)
        goto fail;
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
    if (c->fl.rank_source == TLM_MPI_RANK_NAME_FIRST)
        rank = row->name_rank >= 0 ? row->name_rank : row->dist_rank;
    else
        rank = row->dist_rank >= 0 ? row->dist_rank : row->name_rank;
    if (rank < 0 && c->fl.n == 1)
        rank = 0; /* a lone trace without any rank is rank 0 */
    if (rank < 0) {
        st = tlm_error_set(&err, TLM_EINVAL, path, -1,
                           "cannot tell the trace's rank: no "
                           "distributedInfo.rank and the file name does "
                           "not match --rank_regex");
        goto fail;
    }
    if (rank >= MAX_WORLD) {
        st = tlm_error_set(&err, TLM_ERANGE, path, -1,
                           "trace rank %lld is too large", (long long)rank);
        goto fail;
    }
    row->trace_rank = (int32_t)rank;
    row->node = c->o.gpus_per_node > 0
                    ? (int32_t)(rank / c->o.gpus_per_node)
                    : -1;
    fr->tl.trace_rank = (int32_t)rank;

    /* GPU timeline through the call tree */
    size_t n_ev = 0;
    tlm_trace_events(tr, &n_ev);
    if (n_ev > 0) {
        st = tlm_tree_build(tr, NULL, &tree, &err);
        if (st != TLM_OK)
            goto fail;
        const tlm_tree_stats *tst = tlm_tree_stats_get(tree);
        row->n_bad_time = (int64_t)tst->n_no_time;
        row->n_gpu_unlinked = (int64_t)tst->n_gpu_unlinked;
        row->n_flow_warnings =
            (int64_t)(tst->n_flow_bad_target + tst->n_flow_half);
        tlm_report_opts ropts;
        tlm_report_opts_init(&ropts);
        ropts.short_kernel_study = 0;
        ropts.perf_sheets = 0;
        ropts.unified = 0;
        ropts.gpu_arch_json_path = c->o.gpu_arch_json_path;
        tlm_report *rep = NULL;
        tlm_error terr;
        tlm_error_clear(&terr);
        tlm_status ts = tlm_report_build(tree, &ropts, &rep, &terr);
        if (ts == TLM_OK) {
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
            ts = keep_report_rows(c, rep, (int32_t)rank, fr);
            tlm_report_free(rep);
            if (ts != TLM_OK) {
                st = tlm_error_set(&err, ts, path, -1,
                                   "out of memory keeping report tables");
                goto fail;
            }
        } else if (ts != TLM_ENOTFOUND) {
            /* no GPU events is not an error: empty tables */
            st = ts;
            err = terr;
            goto fail;
        }
        tlm_tree_free(tree);
        tree = NULL;

        tlm_coll_extract_opts xo;
        tlm_coll_extract_opts_init(&xo);
        xo.trace_rank = (int32_t)rank;
        tlm_coll_extract_stats xs;
        memset(&xs, 0, sizeof xs);
        st = tlm_coll_extract(tr, &xo, &recs, &n_recs, &xs, &err);
        if (st != TLM_OK)
            goto fail;
        row->n_coll_records = (int64_t)n_recs;
        row->n_seq_trace = (int64_t)(xs.n_seq_trace + xs.n_seq_concrete);
        row->n_seq_ordinal = (int64_t)xs.n_seq_ordinal;
    }
    if (n_recs > 0) {
        tlm_coll_record *nr =
            realloc(c->recs, (c->n_recs + n_recs) * sizeof *nr);
        if (!nr) {
            st = tlm_error_set(&err, TLM_ENOMEM, path, -1,
                               "out of memory keeping %zu collective "
                               "records",
                               n_recs);
            goto fail;
        }
        memcpy(nr + c->n_recs, recs, n_recs * sizeof *nr);
        c->recs = nr;
        c->n_recs += n_recs;
    }
    tlm_coll_free(NULL, recs);
    tlm_trace_free(tr);
    fr->status = TLM_OK;
    return;
fail:
    tlm_coll_free(NULL, recs);
    tlm_tree_free(tree);
    tlm_trace_free(tr);
    fr->status = (int32_t)(st != TLM_OK ? st : TLM_EINVAL);
    if (!err.file[0])
        tlm_mpi_strset(err.file, sizeof err.file, path);
    tlm_error_format(&err, fr->msg, sizeof fr->msg);
}

/* ------------------------------------------------------------------ *
 * MARK: - reading, with progress on rank 0
 * ------------------------------------------------------------------ */

typedef struct progress {
    size_t done, total;
    uint64_t bytes;
    double last;
} progress;

static void progress_print(const ctx *c, progress *p, int force)
{
    double t = now();
    if (!force && t - p->last < 1.0)
        return;
    p->last = t;
    double el = t - c->t0;
    fprintf(stderr,
            "tlmpi: %zu/%zu traces read, %.1f MB on disk, %.1f MB/s\n",
            p->done, p->total, (double)p->bytes / 1e6,
            el > 0 ? (double)p->bytes / 1e6 / el : 0.0);
    fflush(stderr);
}

static void progress_drain(const ctx *c, progress *p, int block)
{
    for (;;) {
        int flag = 0;
        MPI_Status ms;
        if (block && p->done < p->total) {
            MPI_Probe(MPI_ANY_SOURCE, TAG_PROGRESS, c->comm, &ms);
            flag = 1;
        } else {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_PROGRESS, c->comm, &flag, &ms);
        }
        if (!flag)
            return;
        int64_t msg[2];
        MPI_Recv(msg, 2, MPI_INT64_T, ms.MPI_SOURCE, TAG_PROGRESS, c->comm,
                 MPI_STATUS_IGNORE);
        p->done++;
        p->bytes += (uint64_t)msg[0];
        progress_print(c, p, p->done == p->total);
        if (p->done >= p->total)
            return;
    }
}

static tlm_status read_traces(ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->fl.n; i++)
        n += c->owner[i] == c->me;
    c->lres = calloc(n ? n : 1, sizeof *c->lres);
    tlm_status st = tlm_mpi_agree(c->lres ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        say0(c, "error: out of memory");
        return st;
    }
    int show = !c->o.quiet;
    progress p = {0, c->fl.n, 0, now()};
    int64_t (*msgs)[2] = show && c->me != 0 ? calloc(n ? n : 1, sizeof *msgs)
                                            : NULL;
    MPI_Request *reqs = show && c->me != 0 ? calloc(n ? n : 1, sizeof *reqs)
                                           : NULL;
    int can_send = !show || c->me == 0 || (msgs && reqs);
    size_t k = 0;
    /* own files in list order (the assignment balanced their sizes) */
    for (size_t i = 0; i < c->fl.n; i++) {
        if (c->owner[i] != c->me)
            continue;
        process_trace(c, i, &c->lres[k]);
        c->bytes_read += (uint64_t)c->fl.size[i];
        if (show && c->me == 0) {
            p.done++;
            p.bytes += (uint64_t)c->fl.size[i];
            progress_print(c, &p, p.done == p.total);
            progress_drain(c, &p, 0);
        } else if (show && can_send) {
            msgs[k][0] = c->fl.size[i];
            msgs[k][1] = c->lres[k].status;
            MPI_Isend(msgs[k], 2, MPI_INT64_T, 0, TAG_PROGRESS, c->comm,
                      &reqs[k]);
        } else if (show) {
            /* no memory for messages: send blocking */
            int64_t one[2] = {c->fl.size[i], c->lres[k].status};
            MPI_Send(one, 2, MPI_INT64_T, 0, TAG_PROGRESS, c->comm);
        }
        k++;
    }
    c->n_lres = k;
    if (show && c->me == 0)
        progress_drain(c, &p, 1);
    else if (show && can_send && k > 0)
        MPI_Waitall((int)k, reqs, MPI_STATUSES_IGNORE);
    free(msgs);
    free(reqs);
    return TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - checking the set of traces
 * ------------------------------------------------------------------ */

static int cmp_res(const void *a, const void *b)
{
    const fileres *x = a, *y = b;
    if (x->row.trace_rank != y->row.trace_rank)
        return x->row.trace_rank < y->row.trace_rank ? -1 : 1;
    return x->file_idx < y->file_idx ? -1 : (x->file_idx > y->file_idx);
}

/* All-gathers the per-file results; reports bad traces, duplicates and
 * missing ranks (rank 0 prints).  Returns the agreed status. */
static tlm_status check_traces(ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    void *all = NULL;
    size_t n_all = 0;
    tlm_status st = tlm_mpi_allgather(c->lres, c->n_lres, sizeof(fileres),
                                      c->comm, &all, &n_all, &err);
    if (st != TLM_OK) {
        say0(c, "error: %s", err.msg);
        return st;
    }
    c->res = all;
    c->n_res = n_all;
    size_t n_bad = 0;
    for (size_t i = 0; i < n_all; i++) {
        if (c->res[i].status != TLM_OK) {
            say0(c, "error: %s", c->res[i].msg);
            n_bad++;
        }
    }
    if (n_bad) {
        say0(c, "%zu of %zu traces could not be analysed; no output "
                "written", n_bad, n_all);
        return TLM_EFORMAT;
    }
    qsort(c->res, n_all, sizeof *c->res, cmp_res);
    warn_traces(c, n_all);
    /* duplicates */
    size_t n_dup = 0;
    for (size_t i = 1; i < n_all; i++) {
        if (c->res[i].row.trace_rank == c->res[i - 1].row.trace_rank) {
            say0(c, "error: rank %d appears twice: %s and %s",
                 (int)c->res[i].row.trace_rank, c->res[i - 1].row.file,
                 c->res[i].row.file);
            n_dup++;
        }
    }
    if (n_dup)
        return TLM_EMISMATCH;
    /* world size */
    int64_t maxr = n_all ? c->res[n_all - 1].row.trace_rank : -1;
    int64_t w = c->o.world_size;
    const char *wsrc = "--world_size";
    if (w < 0) {
        w = maxr + 1;
        wsrc = "the highest trace rank";
        size_t at = 0;
        for (size_t i = 0; i < n_all; i++) {
            if (c->res[i].row.dist_world_size > w) {
                w = c->res[i].row.dist_world_size;
                wsrc = "distributedInfo.world_size";
                at = i;
            }
        }
        for (size_t i = 0; i < n_all; i++) {
            int64_t dw = c->res[i].row.dist_world_size;
            if (dw > 0 && dw != w) {
                say0(c, "warning: traces disagree on world_size: %s says "
                        "%lld, %s says %lld (using %lld)",
                     c->res[i].row.file, (long long)dw, c->res[at].row.file,
                     (long long)w, (long long)w);
                break;
            }
        }
    }
    if (c->o.world_size > 0) {
        for (size_t i = 0; i < n_all; i++) {
            int64_t dw = c->res[i].row.dist_world_size;
            if (dw > 0 && dw != w) {
                say0(c, "warning: %s says world_size %lld, --world_size is "
                        "%lld", c->res[i].row.file, (long long)dw,
                     (long long)w);
                break;
            }
        }
    }
    if (maxr >= w) {
        say0(c, "error: %s has rank %lld, outside world size %lld (%s)",
             c->res[n_all - 1].row.file, (long long)maxr, (long long)w,
             wsrc);
        return TLM_EMISMATCH;
    }
    if (w > MAX_WORLD) {
        say0(c, "error: world size %lld is too large", (long long)w);
        return TLM_ERANGE;
    }
    if ((int64_t)n_all < w) {
        char list[400] = "";
        size_t len = 0, nm = 0, k = 0;
        for (int64_t r = 0; r < w; r++) {
            while (k < n_all && c->res[k].row.trace_rank < r)
                k++;
            if (k < n_all && c->res[k].row.trace_rank == r)
                continue;
            nm++;
            if (len < 320) {
                int wr = snprintf(list + len, sizeof list - len, "%s%lld",
                                  nm > 1 ? ", " : "", (long long)r);
                if (wr > 0)
                    len += (size_t)wr;
            } else if (len < 390) {
                len += (size_t)snprintf(list + len, sizeof list - len,
                                        ", ...");
            }
        }
        if (!c->o.allow_missing) {
            say0(c, "error: %zu of %lld ranks have no trace (world size "
                    "from %s): %s; --allow_missing goes on without them",
                 nm, (long long)w, wsrc, list);
            return TLM_ENOTFOUND;
        }
        say0(c, "warning: %zu of %lld ranks have no trace: %s", nm,
             (long long)w, list);
    }
    c->world = w;
    c->holder = malloc((size_t)w * sizeof *c->holder);
    c->pos = malloc((size_t)w * sizeof *c->pos);
    st = tlm_mpi_agree(c->holder && c->pos ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        say0(c, "error: out of memory");
        return st;
    }
    for (int64_t r = 0; r < w; r++) {
        c->holder[r] = -1;
        c->pos[r] = -1;
    }
    for (size_t i = 0; i < n_all; i++) {
        c->holder[c->res[i].row.trace_rank] = c->res[i].owner;
        c->pos[c->res[i].row.trace_rank] = (int64_t)i;
    }
    return TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - collectives
 * ------------------------------------------------------------------ */

typedef struct colls {
    tlm_coll_match_result mr;        /* this owner's instances */
    tlm_coll_instance *inst;         /* rank 0: all, sorted */
    size_t n_inst;
    tlm_coll_unmatched *unm;         /* rank 0: all, sorted */
    size_t n_unm;
    tlm_coll_clock *clk;             /* rank 0 */
    size_t n_clk;
    int64_t *offsets;                /* every rank, world entries */
    tlm_coll_straggler_row *strag;   /* rank 0, merged */
    size_t n_strag;
    tlm_coll_summary_row *sum;       /* rank 0 */
    size_t n_sum;
    tlm_row_member *mrows;           /* rows held here (own traces) */
    size_t n_mrows;
    /* TraceLens parity */
    int simplified;
    tlm_coll_tl_sync_row *tl_sync;   /* rank 0 */
    size_t n_tl_sync;
    tlm_coll_tl_sync_member *tl_smem;
    size_t n_tl_smem;
    tlm_mpi_tl_long *tl_long;
    size_t n_tl_long;
    tlm_coll_tl_summary_row *tl_sum;
    size_t n_tl_sum;
    tlm_coll_tl_straggler_row *tl_strag;
    size_t n_tl_strag;
} colls;

static void colls_free(colls *k)
{
    tlm_coll_match_result_free(&k->mr);
    free(k->inst);
    free(k->unm);
    tlm_coll_free(NULL, k->clk);
    free(k->offsets);
    free(k->strag);
    tlm_coll_free(NULL, k->sum);
    free(k->mrows);
    free(k->tl_sync);
    free(k->tl_smem);
    free(k->tl_long);
    tlm_coll_free(NULL, k->tl_sum);
    tlm_coll_free(NULL, k->tl_strag);
    memset(k, 0, sizeof *k);
}

static const char *seq_src_name(int s)
{
    switch (s) {
    case TLM_COLL_SEQ_TRACE:
        return "trace";
    case TLM_COLL_SEQ_CONCRETE:
        return "concrete";
    case TLM_COLL_SEQ_P2P:
        return "p2p";
    default:
        return "ordinal";
    }
}

static int cmp_mrow(const void *a, const void *b)
{
    const tlm_row_member *x = a, *y = b;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    if (x->match_key != y->match_key)
        return x->match_key < y->match_key ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->event_index < y->event_index ? -1
                                           : (x->event_index > y->event_index);
}

static int cmp_tl_long(const void *a, const void *b)
{
    const tlm_mpi_tl_long *x = a, *y = b;
    if (x->row.rank != y->row.rank)
        return x->row.rank < y->row.rank ? -1 : 1;
    return x->row.event_index < y->row.event_index
               ? -1
               : (x->row.event_index > y->row.event_index);
}

#define CHECK_(expr)                                                       \
    do {                                                                   \
        st = tlm_mpi_agree((expr), c->comm);                               \
        if (st != TLM_OK) {                                                \
            if (err.code != TLM_OK)                                        \
                say0(c, "error: %s",                                       \
                     tlm_error_format(&err, msg, sizeof msg));             \
            else                                                           \
                say0(c, "error: collective analysis failed on another "    \
                        "rank (%s)", tlm_status_str(st));                  \
            goto done;                                                     \
        }                                                                  \
    } while (0)

static tlm_status tracelens(ctx *c, colls *k)
{
    tlm_error err;
    tlm_error_clear(&err);
    char msg[800];
    tlm_status st = TLM_OK;
    int *dest = NULL;
    tlm_coll_record *rr = NULL;
    size_t n_rr = 0;
    tlm_coll_tl_result tr;
    memset(&tr, 0, sizeof tr);
    tlm_mpi_tl_long *ext = NULL;
    double *rdur = NULL, *rdur0 = NULL;

    /* simplified-mode vote: per trace, OR over all */
    tlm_coll_tl_vote v = {0, 0};
    size_t i0 = 0;
    while (i0 < c->n_recs) {
        size_t i1 = i0;
        while (i1 < c->n_recs &&
               c->recs[i1].trace_rank == c->recs[i0].trace_rank)
            i1++;
        tlm_coll_tl_vote_records(c->recs + i0, i1 - i0, &v);
        i0 = i1;
    }
    int32_t lv[2] = {v.any_pg ? 1 : 0, v.multi_stream ? 1 : 0}, gv[2];
    MPI_Allreduce(lv, gv, 2, MPI_INT32_T, MPI_MAX, c->comm);
    v.any_pg = gv[0];
    v.multi_stream = gv[1];
    k->simplified = tlm_coll_tl_simplified(&v);

    dest = malloc((c->n_recs ? c->n_recs : 1) * sizeof *dest);
    CHECK_(dest ? TLM_OK : TLM_ENOMEM);
    for (size_t i = 0; i < c->n_recs; i++)
        dest[i] = (int)(tlm_coll_record_tl_owner_key(&c->recs[i],
                                                     k->simplified) %
                        (uint64_t)c->np);
    void *tmp = NULL;
    CHECK_(tlm_mpi_route(c->recs, c->n_recs, sizeof *c->recs, dest, c->comm,
                         &tmp, &n_rr, &err));
    rr = tmp;
    CHECK_(tlm_coll_tl_match(rr, n_rr, k->simplified, NULL, &tr, &err));
    ext = calloc(tr.n_long ? tr.n_long : 1, sizeof *ext);
    CHECK_(ext ? TLM_OK : TLM_ENOMEM);
    for (size_t i = 0; i < tr.n_long; i++) {
        const tlm_coll_record *r = &rr[tr.lng[i].record];
        tlm_mpi_tl_long *e = &ext[i];
        e->row = tr.lng[i];
        int km = (r->flags & TLM_COLL_REC_KMETA) != 0;
        int kpg = (r->flags & TLM_COLL_REC_KPG) != 0;
        tlm_mpi_strnset(e->pg_ranks, sizeof e->pg_ranks,
                        kpg ? r->pg_ranks_text : "", sizeof r->pg_ranks_text);
        tlm_mpi_strnset(e->coll_name, sizeof e->coll_name,
                        km ? r->coll_name : "", sizeof r->coll_name);
        tlm_mpi_strnset(e->dtype, sizeof e->dtype, km ? r->dtype_name : "",
                        sizeof r->dtype_name);
        tlm_mpi_strnset(e->in_split, sizeof e->in_split, r->in_split,
                        sizeof r->in_split);
        tlm_mpi_strnset(e->out_split, sizeof e->out_split, r->out_split,
                        sizeof r->out_split);
        e->group_size = km ? r->group_size : -1;
        e->in_nelems = km ? r->in_nelems : -1;
        e->out_nelems = km ? r->out_nelems : -1;
        e->stream = r->stream;
    }
    tmp = NULL;
    CHECK_(tlm_mpi_gather(tr.sync, tr.n_sync, sizeof *tr.sync, 0, c->comm,
                          &tmp, &k->n_tl_sync, &err));
    k->tl_sync = tmp;
    tmp = NULL;
    CHECK_(tlm_mpi_gather(tr.smem, tr.n_smem, sizeof *tr.smem, 0, c->comm,
                          &tmp, &k->n_tl_smem, &err));
    k->tl_smem = tmp;
    tmp = NULL;
    CHECK_(tlm_mpi_gather(ext, tr.n_long, sizeof *ext, 0, c->comm, &tmp,
                          &k->n_tl_long, &err));
    k->tl_long = tmp;

    /* total NCCL duration per rank: each trace adds to its own entry */
    rdur = calloc((size_t)c->world, sizeof *rdur);
    rdur0 = calloc((size_t)c->world, sizeof *rdur0);
    CHECK_(rdur && rdur0 ? TLM_OK : TLM_ENOMEM);
    tlm_coll_tl_rank_dur(c->recs, c->n_recs, rdur, (size_t)c->world);
    MPI_Reduce(rdur, rdur0, (int)c->world, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    st = TLM_OK;
    if (c->me == 0) {
        tlm_coll_tl_sync_sort(k->tl_sync, k->n_tl_sync);
        tlm_coll_tl_smem_sort(k->tl_smem, k->n_tl_smem);
        if (k->n_tl_long)
            qsort(k->tl_long, k->n_tl_long, sizeof *k->tl_long, cmp_tl_long);
        st = tlm_coll_tl_summary(k->tl_sync, k->n_tl_sync, NULL, &k->tl_sum,
                                 &k->n_tl_sum, &err);
        if (st == TLM_OK && k->n_tl_sync > 0)
            st = tlm_coll_tl_straggler(k->tl_sync, k->n_tl_sync, k->tl_smem,
                                       k->n_tl_smem, rdur0,
                                       (size_t)c->world, NULL, &k->tl_strag,
                                       &k->n_tl_strag, &err);
    }
    CHECK_(st);
done:
    free(dest);
    free(rr);
    free(ext);
    free(rdur);
    free(rdur0);
    tlm_coll_tl_result_free(&tr);
    return st;
}

static tlm_status collectives(ctx *c, colls *k)
{
    tlm_error err;
    tlm_error_clear(&err);
    char msg[800];
    tlm_status st = TLM_OK;
    int *dest = NULL;
    tlm_coll_record *rr = NULL;
    size_t n_rr = 0;
    tlm_coll_member *allm = NULL;
    size_t n_allm = 0;
    tlm_coll_straggler_row *ps = NULL;
    size_t n_ps = 0;
    tlm_row_member *out = NULL;
    int *mdest = NULL;
    int32_t *dom = NULL;
    void *tmp = NULL;

    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);

    /* route records to owners and match */
    dest = malloc((c->n_recs ? c->n_recs : 1) * sizeof *dest);
    CHECK_(dest ? TLM_OK : TLM_ENOMEM);
    for (size_t i = 0; i < c->n_recs; i++)
        dest[i] = (int)(tlm_coll_record_owner_key(&c->recs[i]) %
                        (uint64_t)c->np);
    CHECK_(tlm_mpi_route(c->recs, c->n_recs, sizeof *c->recs, dest, c->comm,
                         &tmp, &n_rr, &err));
    rr = tmp;
    CHECK_(tlm_coll_match(rr, n_rr, &mo, &k->mr, &err));
    free(rr);
    rr = NULL;

    /* clock offsets: rank 0 fits them over every member */
    tmp = NULL;
    CHECK_(tlm_mpi_gather(k->mr.mem, k->mr.n_mem, sizeof *k->mr.mem, 0,
                          c->comm, &tmp, &n_allm, &err));
    allm = tmp;
    k->offsets = calloc((size_t)c->world, sizeof *k->offsets);
    st = k->offsets ? TLM_OK : TLM_ENOMEM;
    if (st == TLM_OK && c->me == 0) {
        tlm_coll_clock_opts co;
        tlm_coll_clock_opts_init(&co);
        co.n_ranks = (int32_t)c->world;
        if (c->o.gpus_per_node > 0) {
            dom = malloc((size_t)c->world * sizeof *dom);
            if (dom) {
                for (int64_t r = 0; r < c->world; r++)
                    dom[r] = (int32_t)(r / c->o.gpus_per_node);
                co.domain_of_rank = dom;
                co.n_domain_of_rank = (size_t)c->world;
            }
        }
        tlm_error cerr;
        tlm_error_clear(&cerr);
        tlm_status cst = tlm_coll_clock_estimate(allm, n_allm, &co, &k->clk,
                                                 &k->n_clk, &cerr);
        if (cst == TLM_OK) {
            tlm_coll_clock_offsets(k->clk, (size_t)c->world, k->offsets);
        } else if (cst == TLM_ENOMEM) {
            st = tlm_error_set(&err, cst, NULL, -1,
                               "out of memory estimating clock offsets");
        } else {
            /* offsets are a refinement: go on with raw clocks */
            char cm[800];
            say0(c, "warning: clock offsets not estimated (%s); corrected "
                    "values equal raw ones",
                 tlm_error_format(&cerr, cm, sizeof cm));
            k->clk = NULL;
            k->n_clk = 0;
        }
    }
    CHECK_(st);
    free(allm);
    allm = NULL;
    MPI_Bcast(k->offsets, (int)c->world, MPI_INT64_T, 0, c->comm);
    tlm_coll_metrics_apply_offsets(&k->mr, k->offsets, (size_t)c->world,
                                   mo.tie_ns, mo.latency_tol_ns);

    /* stragglers: partial rows per owner, merged on rank 0 */
    CHECK_(tlm_coll_straggler_compute(k->mr.inst, k->mr.n_inst, k->mr.mem,
                                      k->mr.n_mem, NULL, &ps, &n_ps, &err));
    tmp = NULL;
    CHECK_(tlm_mpi_gather(ps, n_ps, sizeof *ps, 0, c->comm, &tmp,
                          &k->n_strag, &err));
    k->strag = tmp;
    if (c->me == 0)
        tlm_coll_straggler_merge(k->strag, &k->n_strag);

    /* instances and unmatched records: rank 0, canonical order */
    tmp = NULL;
    CHECK_(tlm_mpi_gather(k->mr.inst, k->mr.n_inst, sizeof *k->mr.inst, 0,
                          c->comm, &tmp, &k->n_inst, &err));
    k->inst = tmp;
    tmp = NULL;
    CHECK_(tlm_mpi_gather(k->mr.unm, k->mr.n_unm, sizeof *k->mr.unm, 0,
                          c->comm, &tmp, &k->n_unm, &err));
    k->unm = tmp;
    st = TLM_OK;
    if (c->me == 0) {
        tlm_coll_instances_sort(k->inst, k->n_inst);
        tlm_coll_unmatched_sort(k->unm, k->n_unm);
        st = tlm_coll_summarize(k->inst, k->n_inst, 0, NULL, &k->sum,
                                &k->n_sum, &err);
        warn_collectives(c, k->inst, k->n_inst, k->unm, k->n_unm);
    }
    CHECK_(st);

    /* per-rank rows: built by the owner (it knows the instance), sent to
     * the MPI rank holding the trace */
    out = calloc(k->mr.n_mem ? k->mr.n_mem : 1, sizeof *out);
    mdest = malloc((k->mr.n_mem ? k->mr.n_mem : 1) * sizeof *mdest);
    CHECK_(out && mdest ? TLM_OK : TLM_ENOMEM);
    {
        size_t ii = 0;
        for (size_t m = 0; m < k->mr.n_mem; m++) {
            const tlm_coll_member *mm = &k->mr.mem[m];
            while (ii < k->mr.n_inst &&
                   (k->mr.inst[ii].match_key < mm->match_key ||
                    (k->mr.inst[ii].match_key == mm->match_key &&
                     k->mr.inst[ii].seq < mm->seq)))
                ii++;
            tlm_row_member *o = &out[m];
            o->trace_rank = mm->trace_rank;
            if (ii < k->mr.n_inst &&
                k->mr.inst[ii].match_key == mm->match_key &&
                k->mr.inst[ii].seq == mm->seq)
                tlm_mpi_strnset(o->pg_name, sizeof o->pg_name,
                                k->mr.inst[ii].pg_name,
                                sizeof k->mr.inst[ii].pg_name);
            o->seq = mm->seq;
            tlm_mpi_strset(o->coll, sizeof o->coll,
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
            int32_t h = mm->trace_rank >= 0 && mm->trace_rank < c->world
                            ? c->holder[mm->trace_rank]
                            : -1;
            mdest[m] = h >= 0 ? h : 0;
        }
    }
    tmp = NULL;
    CHECK_(tlm_mpi_route(out, k->mr.n_mem, sizeof *out, mdest, c->comm, &tmp,
                         &k->n_mrows, &err));
    k->mrows = tmp;
    if (k->n_mrows)
        qsort(k->mrows, k->n_mrows, sizeof *k->mrows, cmp_mrow);

    st = tracelens(c, k);
done:
    free(dest);
    free(rr);
    free(allm);
    free(ps);
    free(out);
    free(mdest);
    free(dom);
    return st;
}

#undef CHECK_

/* ------------------------------------------------------------------ *
 * MARK: - per-trace report tables
 * ------------------------------------------------------------------ */

static int cmp_lres_rank(const void *a, const void *b)
{
    const fileres *x = *(const fileres *const *)a;
    const fileres *y = *(const fileres *const *)b;
    return x->row.trace_rank - y->row.trace_rank;
}

/* Concatenates the rows of table k (0 ops, 1 uargs, 2 kernels) of the local
 * traces in trace-rank order. */
static void *order_rows(const ctx *c, const fileres *const *by_rank, int k,
                        const void *base, size_t n, size_t sz)
{
    char *out = malloc(n ? n * sz : 1);
    if (!out)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < c->n_lres; i++) {
        const int64_t *sp = by_rank[i]->span[k];
        if (sp[1] == 0)
            continue; /* base may be NULL when there are no rows */
        memcpy(out + at * sz, (const char *)base + (size_t)sp[0] * sz,
               (size_t)sp[1] * sz);
        at += (size_t)sp[1];
    }
    return out;
}

static int cmp_op_name(const void *a, const void *b)
{
    const tlm_row_op *x = a, *y = b;
    int cmp = strncmp(x->name, y->name, sizeof x->name);
    if (cmp)
        return cmp;
    return x->trace_rank - y->trace_rank;
}

static int cmp_mop(const void *a, const void *b)
{
    const tlm_row_op_merged *x = a, *y = b;
    if (x->direct_kernel_ns != y->direct_kernel_ns)
        return x->direct_kernel_ns > y->direct_kernel_ns ? -1 : 1;
    return strncmp(x->name, y->name, sizeof x->name);
}

static double nz(double v)
{
    return isnan(v) ? 0.0 : v;
}

/* Orders the local report rows and merges the ops on rank 0. */
static tlm_status report_tables(ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    const fileres **by = malloc((c->n_lres ? c->n_lres : 1) * sizeof *by);
    tlm_status st = TLM_OK;
    if (by) {
        for (size_t i = 0; i < c->n_lres; i++)
            by[i] = &c->lres[i];
        qsort(by, c->n_lres, sizeof *by, cmp_lres_rank);
        c->ord_ops = order_rows(c, by, 0, c->rt.ops, c->rt.n_ops,
                                sizeof *c->rt.ops);
        c->ord_ua = order_rows(c, by, 1, c->rt.ua, c->rt.n_ua,
                               sizeof *c->rt.ua);
        c->ord_kn = order_rows(c, by, 2, c->rt.kn, c->rt.n_kn,
                               sizeof *c->rt.kn);
    }
    if (!by || !c->ord_ops || !c->ord_ua || !c->ord_kn)
        st = TLM_ENOMEM;
    free(by);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK) {
        say0(c, "error: out of memory ordering report tables");
        return st;
    }
    void *tmp = NULL;
    size_t n = 0;
    st = tlm_mpi_gather(c->ord_ops, c->rt.n_ops, sizeof *c->ord_ops, 0,
                        c->comm, &tmp, &n, &err);
    if (st != TLM_OK) {
        say0(c, "error: %s", err.msg);
        return st;
    }
    tlm_row_op *all = tmp;
    if (c->me == 0 && n > 0) {
        qsort(all, n, sizeof *all, cmp_op_name);
        c->mops = calloc(n, sizeof *c->mops);
        if (!c->mops)
            st = TLM_ENOMEM;
        double total = 0;
        for (size_t i = 0; st == TLM_OK && i < n; i++) {
            tlm_row_op_merged *m = c->n_mops ? &c->mops[c->n_mops - 1] : NULL;
            if (!m || strncmp(m->name, all[i].name, sizeof m->name) != 0) {
                m = &c->mops[c->n_mops++];
                memcpy(m->name, all[i].name, sizeof m->name);
                memcpy(m->categories, all[i].categories,
                       sizeof m->categories);
                m->min_rank_ns = INFINITY;
                m->max_rank_ns = -INFINITY;
            }
            double d = nz(all[i].direct_kernel_ns);
            m->n_ranks++;
            m->count += all[i].count > 0 ? all[i].count : 0;
            m->direct_kernel_ns += d;
            m->subtree_kernel_ns += nz(all[i].subtree_kernel_ns);
            if (d < m->min_rank_ns) {
                m->min_rank_ns = d;
                m->min_rank = all[i].trace_rank;
            }
            if (d > m->max_rank_ns) {
                m->max_rank_ns = d;
                m->max_rank = all[i].trace_rank;
            }
            total += d;
        }
        for (size_t i = 0; i < c->n_mops; i++) {
            tlm_row_op_merged *m = &c->mops[i];
            m->mean_rank_ns = m->direct_kernel_ns / m->n_ranks;
            m->percent = total > 0 ? 100.0 * m->direct_kernel_ns / total
                                   : NAN;
        }
        if (c->n_mops > 1)
            qsort(c->mops, c->n_mops, sizeof *c->mops, cmp_mop);
    }
    free(all);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        say0(c, "error: out of memory merging ops");
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - HDF5
 * ------------------------------------------------------------------ */

static const char *unm_reason(int r)
{
    switch (r) {
    case TLM_COLL_UNM_SIG_MISMATCH:
        return "sig_mismatch";
    case TLM_COLL_UNM_NO_OVERLAP:
        return "no_overlap";
    case TLM_COLL_UNM_DUPLICATE:
        return "duplicate";
    default:
        return "";
    }
}

static void fill_stat(double *dst, const tlm_coll_stat *s)
{
    dst[0] = s->mean;
    dst[1] = s->median;
    dst[2] = s->min;
    dst[3] = s->max;
    dst[4] = s->p95;
}

/* Per-trace table rows held here, sorted by trace rank: segments from the
 * global per-trace counts. */
static tlm_status write_per_trace(ctx *c, hid_t f, const tlm_mpi_table *t,
                                  const void *rows, size_t n,
                                  const int32_t *rank_of_row,
                                  size_t row_stride, tlm_error *err)
{
    tlm_status st = TLM_OK;
    int64_t *cnt = calloc(c->n_res ? c->n_res : 1, sizeof *cnt);
    int64_t *gcnt = calloc(c->n_res ? c->n_res : 1, sizeof *gcnt);
    int64_t *seg = NULL;
    size_t n_seg = 0;
    st = tlm_mpi_agree(cnt && gcnt ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory writing '%s'",
                      t->name);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t r = *(const int32_t *)(const void *)((const char *)rank_of_row +
                                                     i * row_stride);
        cnt[c->pos[r]]++;
    }
    MPI_Allreduce(cnt, gcnt, (int)c->n_res, MPI_INT64_T, MPI_SUM, c->comm);
    seg = malloc(2 * (c->n_res ? c->n_res : 1) * sizeof *seg);
    st = tlm_mpi_agree(seg ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory writing '%s'",
                      t->name);
        goto done;
    }
    int64_t off = 0;
    for (size_t p = 0; p < c->n_res; p++) {
        if (cnt[p] > 0) {
            seg[2 * n_seg] = off;
            seg[2 * n_seg + 1] = cnt[p];
            n_seg++;
        }
        off += gcnt[p];
    }
    st = tlm_mpi_h5_write_segments(f, t, rows, seg, n_seg, off, c->comm, err);
done:
    free(cnt);
    free(gcnt);
    free(seg);
    return st;
}

/* Before any HDF5 write: is there room for the file (its rows
 * uncompressed, an upper bound) and the report?  Parallel HDF5 1.10 does
 * not survive a write failing for lack of space (ranks disagree inside the
 * library and hang, or a half-closed file crashes MPI_Finalize), so a full
 * disk is caught here, with a message that says so. */
static tlm_status check_space(ctx *c, colls *k, tlm_error *err)
{
    int r0 = c->me == 0;
    uint64_t local =
        (uint64_t)c->rt.n_ops * sizeof *c->ord_ops +
        (uint64_t)c->rt.n_ua * sizeof *c->ord_ua +
        (uint64_t)c->rt.n_kn * sizeof *c->ord_kn +
        (uint64_t)k->n_mrows * sizeof *k->mrows;
    if (r0)
        local += (uint64_t)c->n_res *
                     (sizeof(tlm_row_trace) + sizeof(tlm_row_timeline)) +
                 (uint64_t)c->n_mops * sizeof *c->mops +
                 (uint64_t)k->n_inst * sizeof(tlm_row_instance) +
                 (uint64_t)k->n_unm * sizeof(tlm_row_unmatched) +
                 (uint64_t)k->n_sum * sizeof(tlm_row_summary) +
                 (uint64_t)k->n_clk * sizeof(tlm_row_clock) +
                 (uint64_t)k->n_strag * sizeof(tlm_row_straggler);
    uint64_t total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, c->comm);
    tlm_status st = TLM_OK;
    if (r0) {
        /* metadata, attributes and the report: a few MiB at most */
        uint64_t need = total + (4u << 20);
        char dir[PATH_CAP];
        tlm_mpi_strset(dir, sizeof dir, c->su.tmp);
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
        else
            tlm_mpi_strset(dir, sizeof dir, ".");
        struct statvfs vs;
        if (statvfs(dir, &vs) == 0) {
            uint64_t avail = (uint64_t)vs.f_bavail * vs.f_frsize;
            if (avail < need)
                st = tlm_error_set(err, TLM_EIO, dir, -1,
                                   "no space left on the output device: "
                                   "%.1f MB free, the HDF5 file and the "
                                   "report may need up to %.1f MB",
                                   (double)avail / 1e6, (double)need / 1e6);
        }
    }
    return tlm_mpi_agree(st, c->comm);
}

static tlm_status write_h5(ctx *c, colls *k, tlm_error *err)
{
    hid_t f = -1;
    tlm_status st = check_space(c, k, err);
    if (st != TLM_OK)
        return st;
    st = tlm_mpi_h5_create(c->su.tmp, c->comm, &f, err);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        return st;
    int r0 = c->me == 0;
    tlm_row_trace *tr = NULL;
    tlm_row_timeline *tl = NULL;
    tlm_row_instance *ir = NULL;
    tlm_row_unmatched *ur = NULL;
    tlm_row_summary *sr = NULL;
    tlm_row_clock *cr = NULL;
    tlm_row_straggler *gr = NULL;
    size_t n = r0 ? c->n_res : 0;
    tr = calloc(n ? n : 1, sizeof *tr);
    tl = calloc(n ? n : 1, sizeof *tl);
    size_t ni = r0 ? k->n_inst : 0, nu = r0 ? k->n_unm : 0;
    size_t ns = r0 ? k->n_sum : 0, nc = r0 ? k->n_clk : 0;
    size_t ng = r0 ? k->n_strag : 0;
    ir = calloc(ni ? ni : 1, sizeof *ir);
    ur = calloc(nu ? nu : 1, sizeof *ur);
    sr = calloc(ns ? ns : 1, sizeof *sr);
    cr = calloc(nc ? nc : 1, sizeof *cr);
    gr = calloc(ng ? ng : 1, sizeof *gr);
    st = tlm_mpi_agree(tr && tl && ir && ur && sr && cr && gr ? TLM_OK
                                                              : TLM_ENOMEM,
                       c->comm);
    if (st != TLM_OK) {
        tlm_error_set(err, st, NULL, -1, "out of memory writing HDF5");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        tr[i] = c->res[i].row;
        int32_t r = tr[i].trace_rank;
        tr[i].clock_offset_ns = k->offsets ? k->offsets[r] : 0;
        tl[i] = c->res[i].tl;
    }
    for (size_t i = 0; i < ni; i++) {
        const tlm_coll_instance *s = &k->inst[i];
        tlm_row_instance *o = &ir[i];
        FIXSTR(o->pg_name, s->pg_name);
        o->seq = s->seq;
        tlm_mpi_strset(o->seq_src, sizeof o->seq_src, seq_src_name(s->seq_src));
        tlm_mpi_strset(o->coll, sizeof o->coll,
                       tlm_coll_type_name((tlm_coll_type)s->coll));
        FIXSTR(o->coll_name, s->coll_name);
        FIXSTR(o->dtype, s->dtype_name);
        FIXSTR(o->algo, s->algo);
        o->group_size = s->group_size;
        o->n_members = s->n_members;
        o->in_nelems = s->in_nelems;
        o->out_nelems = s->out_nelems;
        o->bytes = s->bytes;
        o->first_start_ns = s->first_start_ns;
        o->last_start_ns = s->last_start_ns;
        o->first_end_ns = s->first_end_ns;
        o->last_end_ns = s->last_end_ns;
        o->comm_latency_ns = s->comm_latency_ns;
        o->max_dur_ns = s->max_dur_ns;
        o->start_skew_ns = s->start_skew_ns;
        o->end_skew_ns = s->end_skew_ns;
        o->wait_sum_ns = s->wait_sum_ns;
        o->wall_ns = s->wall_ns;
        o->start_skew_corr_ns = s->start_skew_corr_ns;
        o->end_skew_corr_ns = s->end_skew_corr_ns;
        o->wait_sum_corr_ns = s->wait_sum_corr_ns;
        o->wall_corr_ns = s->wall_corr_ns;
        o->send_bytes_total = s->send_bytes_total;
        o->recv_bytes_total = s->recv_bytes_total;
        o->algbw_gbps = s->algbw_gbps;
        o->busbw_gbps = s->busbw_gbps;
        o->throughput_gbps = s->throughput_gbps;
        o->send_imbalance = s->send_imbalance;
        o->recv_imbalance = s->recv_imbalance;
        o->first_rank = s->first_rank;
        o->last_rank = s->last_rank;
        o->n_last = s->n_last;
        o->first_rank_corr = s->first_rank_corr;
        o->last_rank_corr = s->last_rank_corr;
        o->n_last_corr = s->n_last_corr;
        o->incomplete = (s->flags & TLM_COLL_INST_INCOMPLETE) != 0;
        o->flags = s->flags;
        o->match_key = s->match_key;
        o->pg_hash = s->pg_hash;
    }
    for (size_t i = 0; i < nu; i++) {
        const tlm_coll_unmatched *s = &k->unm[i];
        tlm_row_unmatched *o = &ur[i];
        o->trace_rank = s->trace_rank;
        FIXSTR(o->pg_name, s->pg_name);
        o->seq = s->seq;
        tlm_mpi_strset(o->coll, sizeof o->coll,
                       tlm_coll_type_name((tlm_coll_type)s->coll));
        tlm_mpi_strset(o->reason, sizeof o->reason, unm_reason(s->reason));
        o->start_ns = s->start_ns;
        o->dur_ns = s->dur_ns;
        o->event_index = (int64_t)s->event_index;
        o->match_key = s->match_key;
    }
    for (size_t i = 0; i < ns; i++) {
        const tlm_coll_summary_row *s = &k->sum[i];
        tlm_row_summary *o = &sr[i];
        FIXSTR(o->pg_name, s->pg_name);
        tlm_mpi_strset(o->coll, sizeof o->coll,
                       tlm_coll_type_name((tlm_coll_type)s->coll));
        FIXSTR(o->coll_name, s->coll_name);
        FIXSTR(o->dtype, s->dtype_name);
        o->bytes = s->bytes;
        o->group_size = s->group_size;
        o->in_nelems = s->in_nelems;
        o->out_nelems = s->out_nelems;
        o->count = s->count;
        o->n_incomplete = s->n_incomplete;
        o->total_latency_ns = s->total_latency_ns;
        o->total_wall_ns = s->total_wall_ns;
        fill_stat(&o->latency_ns_mean, &s->latency_ns);
        fill_stat(&o->start_skew_ns_mean, &s->start_skew_ns);
        fill_stat(&o->start_skew_corr_ns_mean, &s->start_skew_corr_ns);
        fill_stat(&o->end_skew_ns_mean, &s->end_skew_ns);
        fill_stat(&o->algbw_gbps_mean, &s->algbw_gbps);
        fill_stat(&o->busbw_gbps_mean, &s->busbw_gbps);
        o->pg_hash = s->pg_hash;
    }
    for (size_t i = 0; i < nc; i++) {
        const tlm_coll_clock *s = &k->clk[i];
        tlm_row_clock *o = &cr[i];
        o->trace_rank = s->trace_rank;
        o->domain = s->domain;
        o->reference_rank = s->reference_rank;
        o->offset_ns = s->offset_ns;
        o->end_estimate_ns = s->end_estimate_ns;
        o->lo_ns = s->lo_ns;
        o->hi_ns = s->hi_ns;
        o->mad_ns = s->mad_ns;
        o->median_skew_ns = s->median_skew_ns;
        o->n_samples = s->n_samples;
        o->n_causality_violations = s->n_causality_violations;
        o->flags = s->flags;
    }
    for (size_t i = 0; i < ng; i++) {
        const tlm_coll_straggler_row *s = &k->strag[i];
        tlm_row_straggler *o = &gr[i];
        o->trace_rank = s->trace_rank;
        o->overall = s->overall;
        FIXSTR(o->pg_name, s->pg_name);
        o->n_instances = s->n_instances;
        o->times_last = s->times_last;
        o->last_credit = (double)s->last_credit_u / 1e6;
        o->times_first = s->times_first;
        o->wait_suffered_ns = s->wait_suffered_ns;
        o->wait_caused_ns = s->wait_caused_ns;
        o->times_last_corr = s->times_last_corr;
        o->last_credit_corr = (double)s->last_credit_corr_u / 1e6;
        o->wait_suffered_corr_ns = s->wait_suffered_corr_ns;
        o->wait_caused_corr_ns = s->wait_caused_corr_ns;
        o->dur_sum_ns = s->dur_sum_ns;
        o->pg_hash = s->pg_hash;
    }

    st = tlm_mpi_h5_attr_i64(f, "schema_version", TLM_MPI_SCHEMA_VERSION, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_str(f, "creator", "tlmpi 0.1.0", err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_str(f, "command_line", c->cmdline, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_str(f, "units",
                                 "times and durations int64 ns; sizes "
                                 "bytes; GB/s = 1e9 bytes/s; per-column "
                                 "units in each dataset's 'units' "
                                 "attribute",
                                 err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "world_size", c->world, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "n_traces", (int64_t)c->n_res, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_attr_i64(f, "tracelens_simplified_mode",
                                 k->simplified, err);
    st = tlm_mpi_agree(st, c->comm);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_traces, tr, n, c->comm, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_timeline, tl, n, c->comm,
                                    err);
    if (st == TLM_OK)
        st = write_per_trace(c, f, &tlm_tab_ops, c->ord_ops, c->rt.n_ops,
                             c->rt.n_ops ? &c->ord_ops[0].trace_rank : NULL,
                             sizeof *c->ord_ops, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_ops_merged, c->mops,
                                    r0 ? c->n_mops : 0, c->comm, err);
    if (st == TLM_OK)
        st = write_per_trace(c, f, &tlm_tab_uargs, c->ord_ua, c->rt.n_ua,
                             c->rt.n_ua ? &c->ord_ua[0].trace_rank : NULL,
                             sizeof *c->ord_ua, err);
    if (st == TLM_OK)
        st = write_per_trace(c, f, &tlm_tab_kernels, c->ord_kn, c->rt.n_kn,
                             c->rt.n_kn ? &c->ord_kn[0].trace_rank : NULL,
                             sizeof *c->ord_kn, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_instances, ir, ni, c->comm,
                                    err);
    if (st == TLM_OK)
        st = write_per_trace(c, f, &tlm_tab_members, k->mrows, k->n_mrows,
                             k->n_mrows ? &k->mrows[0].trace_rank : NULL,
                             sizeof *k->mrows, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_unmatched, ur, nu, c->comm,
                                    err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_summary, sr, ns, c->comm,
                                    err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_clock, cr, nc, c->comm, err);
    if (st == TLM_OK)
        st = tlm_mpi_h5_write_table(f, &tlm_tab_stragglers, gr, ng, c->comm,
                                    err);
done:;
    tlm_status cst = tlm_mpi_h5_close(f, c->su.tmp, st != TLM_OK,
                                      c->comm, st == TLM_OK ? err : NULL);
    if (st == TLM_OK)
        st = cst;
    st = tlm_mpi_agree(st, c->comm);
    free(tr);
    free(tl);
    free(ir);
    free(ur);
    free(sr);
    free(cr);
    free(gr);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - entry point
 * ------------------------------------------------------------------ */

static void join_cmdline(int argc, char **argv, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < argc && len + 2 < cap; i++) {
        int w = snprintf(out + len, cap - len, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        len += (size_t)w;
        if (len >= cap)
            len = cap - 1;
    }
}

static int run(ctx *c)
{
    colls k;
    memset(&k, 0, sizeof k);
    tlm_error err;
    tlm_error_clear(&err);
    char msg[1100];
    int code = 1;
    tlm_status st = share_setup(c);
    if (st != TLM_OK)
        goto done;
    if (!c->o.quiet && c->fl.n_skipped)
        say0(c, "note: skipped %zu JSON file%s without 'trace' or a rank in "
                "the name: %s (name traces as files to include them)",
             c->fl.n_skipped, c->fl.n_skipped == 1 ? "" : "s",
             c->fl.skipped);
    if (!c->o.quiet)
        say0(c, "%zu trace file%s, %d MPI rank%s", c->fl.n,
             c->fl.n == 1 ? "" : "s", c->np,
             c->np > 1 ? "s" : "");
    if ((st = read_traces(c)) != TLM_OK)
        goto done;
    c->phase[0] = now() - c->t0;
    if ((st = check_traces(c)) != TLM_OK)
        goto done;
    c->phase[1] = now() - c->t0;
    if ((st = collectives(c, &k)) != TLM_OK)
        goto done;
    c->phase[2] = now() - c->t0;
    if ((st = report_tables(c)) != TLM_OK)
        goto done;
    c->phase[3] = now() - c->t0;
    st = write_h5(c, &k, &err);
    c->phase[4] = now() - c->t0;
    if (st != TLM_OK) {
        if (err.code != TLM_OK)
            say0(c, "error: %s", tlm_error_format(&err, msg, sizeof msg));
        else
            say0(c, "error: writing %s failed on another rank", c->su.tmp);
        if (c->me == 0)
            unlink(c->su.tmp);
        goto done;
    }
    /* every rank closed the file (agreed in write_h5); rank 0 writes the
     * report under temporary names too, then publishes everything or
     * nothing */
    tlm_mpi_pending pend;
    pend.n = 0;
    if (c->me == 0 && !c->o.no_report) {
        tlm_row_trace *rows = malloc((c->n_res ? c->n_res : 1) * sizeof *rows);
        tlm_row_timeline *tls =
            malloc((c->n_res ? c->n_res : 1) * sizeof *tls);
        if (!rows || !tls) {
            st = TLM_ENOMEM;
            say0(c, "error: out of memory writing the report");
        } else {
            for (size_t i = 0; i < c->n_res; i++) {
                rows[i] = c->res[i].row;
                rows[i].clock_offset_ns = k.offsets[rows[i].trace_rank];
                tls[i] = c->res[i].tl;
            }
            tlm_mpi_results r;
            memset(&r, 0, sizeof r);
            r.opts = &c->o;
            r.h5_path = c->su.out;
            r.nprocs = c->np;
            r.world_size = c->world;
            r.elapsed_s = now() - c->t0;
            r.t_read_s = c->phase[0];
            r.t_collectives_s = c->phase[2] - c->phase[1];
            r.t_hdf5_s = c->phase[4] - c->phase[3];
            r.traces = rows;
            r.timeline = tls;
            r.n_traces = c->n_res;
            r.ops = c->mops;
            r.n_ops = c->n_mops;
            r.inst = k.inst;
            r.n_inst = k.n_inst;
            r.n_unmatched = k.n_unm;
            r.sum = k.sum;
            r.n_sum = k.n_sum;
            r.strag = k.strag;
            r.n_strag = k.n_strag;
            r.clk = k.clk;
            r.n_clk = k.n_clk;
            r.tl_simplified = k.simplified;
            r.tl_sync = k.tl_sync;
            r.n_tl_sync = k.n_tl_sync;
            r.tl_smem = k.tl_smem;
            r.n_tl_smem = k.n_tl_smem;
            r.tl_long = k.tl_long;
            r.n_tl_long = k.n_tl_long;
            r.tl_sum = k.tl_sum;
            r.n_tl_sum = k.n_tl_sum;
            r.tl_strag = k.tl_strag;
            r.n_tl_strag = k.n_tl_strag;
            uint64_t b = 0;
            for (size_t i = 0; i < c->n_res; i++)
                b += (uint64_t)c->res[i].row.bytes_on_disk;
            r.bytes_read = b;
            st = tlm_mpi_report_write(&r, c->su.rdir, c->su.cdir, &pend,
                                      &err);
            if (st != TLM_OK)
                say0(c, "error: %s", tlm_error_format(&err, msg, sizeof msg));
        }
        free(rows);
        free(tls);
    }
    st = tlm_mpi_agree(st, c->comm);
    if (c->me == 0) {
        if (st == TLM_OK) {
            st = tlm_mpi_pending_commit(&pend, &err);
            if (st == TLM_OK && rename(c->su.tmp, c->su.out) != 0)
                st = tlm_error_set(&err, TLM_EIO, c->su.out, -1,
                                   "cannot rename %s: %s", c->su.tmp,
                                   strerror(errno));
            if (st != TLM_OK)
                say0(c, "error: %s",
                     tlm_error_format(&err, msg, sizeof msg));
        }
        if (st != TLM_OK) {
            tlm_mpi_pending_abort(&pend);
            unlink(c->su.tmp);
        }
    }
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        goto done;
    if (!c->o.quiet)
        say0(c, "wrote %s (%zu traces, %zu collective instances) in %.2f s "
                "(reading %.2f s, collectives %.2f s, HDF5 %.2f s)",
             c->su.out, c->n_res, k.n_inst, now() - c->t0, c->phase[0],
             c->phase[2] - c->phase[1], c->phase[4] - c->phase[3]);
    code = 0;
done:
    colls_free(&k);
    return code;
}

int tlm_mpi_analyze(int argc, char **argv)
{
    int inited = 0, we_init = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
            fprintf(stderr, "tlmpi: error: MPI_Init failed\n");
            return 1;
        }
        we_init = 1;
    }
    ctx c;
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.me);
    MPI_Comm_size(c.comm, &c.np);
    c.t0 = now();
    join_cmdline(argc, argv, c.cmdline, sizeof c.cmdline);
    tlm_error err;
    int code = 0;
    if (tlm_mpi_opts_parse(argc, argv, &c.o, &err) != TLM_OK) {
        if (c.me == 0)
            fprintf(stderr, "tlmpi: error: %s\n%s", err.msg,
                    "run 'tlmpi --help' for the options\n");
        code = 2;
    } else if (c.o.help) {
        if (c.me == 0)
            fputs(tlm_mpi_opts_usage(), stdout);
    } else if (c.o.print_schema) {
        if (c.me == 0)
            tlm_mpi_schema_markdown(stdout);
    } else {
        code = run(&c);
    }
    tlm_mpi_filelist_free(&c.fl);
    free(c.owner);
    free(c.lres);
    free(c.recs);
    free(c.rt.ops);
    free(c.rt.ua);
    free(c.rt.kn);
    free(c.ord_ops);
    free(c.ord_ua);
    free(c.ord_kn);
    free(c.mops);
    free(c.res);
    free(c.holder);
    free(c.pos);
    if (we_init)
        MPI_Finalize();
    return code;
}
