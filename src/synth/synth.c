/*
 * synth.c - tlmpi-synth's job model and driver: validates the options,
 * builds the process groups (default, tensor-parallel, data-parallel and
 * point-to-point pairs) and the per-node clock offsets, then runs the engine
 * of synth_gen.c in three passes:
 *
 *   0. (only with target_size) two steps into counting sinks, to learn the
 *      bytes per step and so the number of steps;
 *   1. every rank in lock-step without output: decides every collective's
 *      true times into the ground truth;
 *   2. one rank at a time, replaying its timeline with the collective times
 *      from pass 1 and writing its trace (under a temporary name, renamed
 *      when complete).
 *
 * Clipping is applied between passes 1 and 2: it marks the members dropped
 * and fixes each clipped rank's kept window.  Last, ground_truth.json is
 * written beside the traces.
 */
#include "synth_internal.h"

#include "grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SYN_BASE_TIME_NS 1763700000000000000ll
#define SYN_T0_NS 2000000000000ll

/* The defaults, one assignment per option (a table of values: the lines
 * look alike because they are data). */
static const char *const cause_names[] = {NULL, "slow_kernels",
                                          "host_busy", "late_launch"};

const char *tlm_synth_cause_name(int cause)
{
    return cause > 0 && cause <= TLM_SYNTH_CAUSE_LATE_LAUNCH
               ? cause_names[cause]
               : NULL;
}

int tlm_synth_cause_parse(const char *name)
{
    for (int c = 1; name && c <= TLM_SYNTH_CAUSE_LATE_LAUNCH; c++)
        if (strcmp(name, cause_names[c]) == 0)
            return c;
    return -1;
}

void tlm_synth_opts_init(tlm_synth_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->world_size = 8;
    opts->steps = 2;
    opts->layers = 4;
    opts->tp = 2;
    opts->gzip_level = 1;
    opts->seed = 1;
    opts->schema = 3;
    opts->straggler_rank = -1;
    opts->slow_kernel_factor = 1.0;
    opts->gpus_per_node = 8;
    opts->write_traces = 1;
    opts->hidden = 4096;
    opts->heads = 32;
    opts->seq_len = 2048;
    opts->batch = 1;
    opts->vocab = 32000;
}

int tlm_synth_parse_list(const char *s, int64_t *out, int max)
{
    int n = 0;
    if (!s || !*s)
        return -1;
    for (;;) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno == ERANGE)
            return -1;
        if (n >= max)
            return -1;
        out[n++] = (int64_t)v;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

/* MARK: - job setup */

static uint64_t mixu(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static tlm_status validate(const tlm_synth_opts *o, tlm_error *err)
{
#define BAD(...) return tlm_error_set(err, TLM_EINVAL, NULL, -1, __VA_ARGS__)
    if (o->write_traces && (!o->out_dir || !*o->out_dir))
        BAD("--out: an output folder is required");
    if (o->world_size < 1 || o->world_size > (1 << 20))
        BAD("--world_size %d: must be in 1..1048576", o->world_size);
    if (o->steps < 1 || o->steps > 10000000)
        BAD("--steps %d: must be >= 1", o->steps);
    if (o->layers < 1 || o->layers > 4096)
        BAD("--layers %d: must be in 1..4096", o->layers);
    if (o->tp < 1 || o->world_size % o->tp != 0)
        BAD("--tp %d: must be >= 1 and divide --world_size %d", o->tp,
            o->world_size);
    if (o->schema < 1 || o->schema > 3)
        BAD("--schema %d: must be 1, 2 or 3", o->schema);
    if (o->gzip && (o->gzip_level < 1 || o->gzip_level > 9))
        BAD("--gzip_level %d: must be in 1..9", o->gzip_level);
    if (o->gpus_per_node < 1)
        BAD("--gpus_per_node %d: must be >= 1", o->gpus_per_node);
    if (o->hidden < 1 || o->heads < 1 || o->seq_len < 1 || o->batch < 1 ||
        o->vocab < 1)
        BAD("model sizes must be >= 1");
    if (o->hidden % o->heads || o->hidden % o->tp || o->heads % o->tp ||
        o->vocab % o->tp)
        BAD("hidden (%d) must be divisible by heads (%d) and tp (%d); "
            "heads and vocab (%d) by tp",
            o->hidden, o->heads, o->tp, o->vocab);
    if ((int64_t)o->batch * o->seq_len * o->hidden > ((int64_t)1 << 40))
        BAD("model too large: batch * seq_len * hidden > 2^40");
    int nodes = (o->world_size + o->gpus_per_node - 1) / o->gpus_per_node;
    if (o->n_node_offsets < 0 || o->n_node_offsets > TLM_SYNTH_MAX_NODES)
        BAD("--node_offset_us: at most %d entries", TLM_SYNTH_MAX_NODES);
    if (o->n_node_offsets > nodes)
        BAD("--node_offset_us: %d offsets for %d node(s)", o->n_node_offsets,
            nodes);
    if (o->clock_offset_ns < 0)
        BAD("--clock_offset_us must be >= 0");
    if (o->straggler_rank < -1 || o->straggler_rank >= o->world_size)
        BAD("--straggler %d: not a rank of the job", o->straggler_rank);
    if (o->straggler_delay_ns < 0 || o->jitter_ns < 0)
        BAD("--straggler_delay_us and --jitter_us must be >= 0");
    if (!(o->slow_kernel_factor > 0) || o->slow_kernel_factor > 1e6 ||
        (o->slow_kernel && !o->slow_kernel[0]))
        BAD("--slow_kernel needs a non-empty name part and "
            "--slow_kernel_factor a number in (0, 1e6]");
    if (o->slow_step < 0 || o->slow_step_delay_ns < 0)
        BAD("--slow_step and --slow_step_delay_us must be >= 0");
    if (o->straggler_cause < TLM_SYNTH_CAUSE_NONE ||
        o->straggler_cause > TLM_SYNTH_CAUSE_LATE_LAUNCH)
        BAD("--straggler_cause: slow_kernels, host_busy or late_launch");
    if (o->straggler_cause != TLM_SYNTH_CAUSE_NONE && o->straggler_rank < 0)
        BAD("--straggler_cause needs --straggler RANK");
    if (o->p2p_seq_first < 0 || o->p2p_seq_step < 0 ||
        o->p2p_seq_first > ((int64_t)1 << 40) ||
        o->p2p_seq_step > ((int64_t)1 << 20))
        BAD("--p2p_seq FIRST:STEP: 0 <= FIRST <= 2^40, 0 <= STEP <= 2^20");
    if (o->n_clips < 0 || o->n_clips > TLM_SYNTH_MAX_CLIPS)
        BAD("at most %d --clip_first/--clip_last options",
            TLM_SYNTH_MAX_CLIPS);
    for (int i = 0; i < o->n_clips; i++)
        if (o->clip[i].rank < 0 || o->clip[i].rank >= o->world_size ||
            o->clip[i].first < 0 || o->clip[i].last < 0)
            BAD("--clip_first/--clip_last %d:%d/%d: bad rank or count",
                o->clip[i].rank, o->clip[i].first, o->clip[i].last);
    if (o->n_only_ranks < 0 || (o->n_only_ranks > 0 && !o->only_ranks))
        BAD("--ranks: bad list");
    for (int i = 0; i < o->n_only_ranks; i++)
        if (o->only_ranks[i] < 0 || o->only_ranks[i] >= o->world_size)
            BAD("--ranks: %d is not a rank of the job", o->only_ranks[i]);
    if (o->name_pattern) {
        if (!*o->name_pattern || strchr(o->name_pattern, '/'))
            BAD("--name_pattern \"%s\": must be a plain file name",
                o->name_pattern);
        if (o->world_size > 1 && !strstr(o->name_pattern, "{r}"))
            BAD("--name_pattern \"%s\": must contain {r}", o->name_pattern);
        if (strlen(o->name_pattern) > 200)
            BAD("--name_pattern: too long");
    }
    return TLM_OK;
#undef BAD
}

static void trace_name(const tlm_synth_opts *o, int rank, char *buf,
                       size_t size)
{
    const char *pat = o->name_pattern;
    char def[32];
    if (!pat) {
        snprintf(def, sizeof def, "rank{r}_trace.json%s",
                 o->gzip ? ".gz" : "");
        pat = def;
    }
    size_t n = 0;
    buf[0] = '\0';
    while (*pat && n + 1 < size) {
        if (strncmp(pat, "{r}", 3) == 0) {
            int w = snprintf(buf + n, size - n, "%d", rank);
            if (w < 0 || (size_t)w >= size - n)
                break;
            n += (size_t)w;
            pat += 3;
        } else {
            buf[n++] = *pat++;
            buf[n] = '\0';
        }
    }
}

static tlm_status add_pg(tlm_synth_truth *t, size_t *cap, const char *desc,
                         int size, int start, int stride)
{
    if (tlm_grow((void **)&t->pgs, cap, t->n_pgs + 1, sizeof *t->pgs, 16) !=
        TLM_OK)
        return TLM_ENOMEM;
    tlm_synth_pg *pg = &t->pgs[t->n_pgs];
    memset(pg, 0, sizeof *pg);
    pg->ranks = malloc((size_t)size * sizeof *pg->ranks);
    if (!pg->ranks)
        return TLM_ENOMEM;
    snprintf(pg->name, sizeof pg->name, "%zu", t->n_pgs);
    snprintf(pg->desc, sizeof pg->desc, "%s", desc);
    pg->size = size;
    pg->rank_start = start;
    pg->rank_stride = stride;
    for (int i = 0; i < size; i++)
        pg->ranks[i] = start + i * stride;
    t->n_pgs++;
    return TLM_OK;
}

/* Adds count groups of one kind: group g holds size ranks from g * step,
 * stride apart. */
static tlm_status add_kind(syn_job *job, size_t *cap, int kind,
                           const char *desc, int count, int size, int step,
                           int stride)
{
    job->first_pg[kind] = (int)job->t->n_pgs;
    for (int g = 0; g < count; g++) {
        tlm_status st = add_pg(job->t, cap, desc, size, g * step, stride);
        if (st != TLM_OK)
            return st;
    }
    job->n_groups[kind] = count;
    return TLM_OK;
}

static void job_free(syn_job *job)
{
    if (job->rank_members)
        for (int r = 0; r < job->o.world_size; r++)
            free(job->rank_members[r]);
    free(job->rank_members);
    free(job->rank_nmem);
    free(job->rank_capmem);
    free(job->gidx);
    free(job->gpos);
    free(job->member_issue);
    free(job->pg_seq);
    free(job->clipped);
    free(job->write);
    tlm_synth_truth_free(job->t);
    memset(job, 0, sizeof *job);
}

static tlm_status job_init(syn_job *job, const tlm_synth_opts *o)
{
    memset(job, 0, sizeof *job);
    job->o = *o;
    int W = o->world_size;
    int tp = o->tp;
    int dp = W / tp;
    job->dp = dp;
    job->n_nodes = (W + o->gpus_per_node - 1) / o->gpus_per_node;
    job->t0 = SYN_T0_NS;
    tlm_synth_truth *t = calloc(1, sizeof *t);
    job->t = t;
    if (!t)
        return TLM_ENOMEM;
    t->world_size = W;
    t->steps = o->steps;
    t->base_time_ns = SYN_BASE_TIME_NS;
    t->ranks = calloc((size_t)W, sizeof *t->ranks);
    job->gidx = malloc((size_t)W * SYN_PG_KINDS * sizeof *job->gidx);
    job->gpos = malloc((size_t)W * SYN_PG_KINDS * sizeof *job->gpos);
    job->rank_members = calloc((size_t)W, sizeof *job->rank_members);
    job->rank_nmem = calloc((size_t)W, sizeof *job->rank_nmem);
    job->rank_capmem = calloc((size_t)W, sizeof *job->rank_capmem);
    job->clipped = calloc((size_t)W, sizeof *job->clipped);
    job->write = calloc((size_t)W, sizeof *job->write);
    if (!t->ranks || !job->gidx || !job->gpos || !job->rank_members ||
        !job->rank_nmem || !job->rank_capmem || !job->clipped || !job->write)
        return TLM_ENOMEM;
    for (int i = 0; i < W * SYN_PG_KINDS; i++) {
        job->gidx[i] = -1;
        job->gpos[i] = -1;
    }

    /* process groups: the default one, tp groups of consecutive ranks (one
     * per dp index), dp groups of ranks tp apart (one per tp index) */
    size_t cap = 0;
    tlm_status st = add_kind(job, &cap, SYN_PG_DEFAULT, "default_pg", 1, W,
                             0, 1);
    if (st == TLM_OK)
        st = add_kind(job, &cap, SYN_PG_TP, "mesh_tp", tp > 1 ? dp : 0, tp,
                      tp, 1);
    if (st == TLM_OK)
        st = add_kind(job, &cap, SYN_PG_DP, "mesh_dp", dp > 1 ? tp : 0, dp,
                      1, tp);
    if (st != TLM_OK)
        return st;
    job->first_pg[SYN_PG_P2P] = (int)t->n_pgs;
    if (dp > 1) {
        for (int i = 0; i < tp; i++) {
            for (int k = 0; k + 1 < dp; k += 2) {
                st = add_pg(t, &cap, "p2p", 2, k * tp + i, tp);
                if (st != TLM_OK)
                    return st;
                job->n_groups[SYN_PG_P2P]++;
            }
        }
    }
    for (int kind = 0; kind < SYN_PG_KINDS; kind++) {
        for (int g = 0; g < job->n_groups[kind]; g++) {
            const tlm_synth_pg *pg = &t->pgs[job->first_pg[kind] + g];
            for (int i = 0; i < pg->size; i++) {
                int r = pg->ranks[i];
                job->gidx[r * SYN_PG_KINDS + kind] = g;
                job->gpos[r * SYN_PG_KINDS + kind] = i;
            }
        }
    }
    job->pg_seq = calloc(t->n_pgs, sizeof *job->pg_seq);
    if (!job->pg_seq)
        return TLM_ENOMEM;

    /* ranks: node, clock offset, file name, whether written */
    for (int r = 0; r < W; r++) {
        tlm_synth_rank *tr = &t->ranks[r];
        int node = r / o->gpus_per_node;
        tr->node = node;
        if (node < o->n_node_offsets)
            tr->clock_offset_ns = o->node_offset_ns[node];
        else if (o->n_node_offsets == 0 && o->clock_offset_ns > 0 &&
                 node > 0) {
            uint64_t h = mixu(o->seed ^ mixu((uint64_t)node + 77));
            tr->clock_offset_ns =
                (int64_t)(h % (uint64_t)(2 * o->clock_offset_ns + 1)) -
                o->clock_offset_ns;
        }
        trace_name(o, r, tr->trace_file, sizeof tr->trace_file);
        int w = o->write_traces != 0;
        if (w && o->n_only_ranks > 0) {
            w = 0;
            for (int i = 0; i < o->n_only_ranks; i++)
                if (o->only_ranks[i] == r)
                    w = 1;
        }
        job->write[r] = w;
    }
    return TLM_OK;
}

void tlm_synth_truth_free(tlm_synth_truth *truth)
{
    if (!truth)
        return;
    for (size_t i = 0; i < truth->n_pgs; i++)
        free(truth->pgs[i].ranks);
    free(truth->pgs);
    free(truth->ranks);
    free(truth->colls);
    free(truth->members);
    free(truth);
}

/* MARK: - passes */

/* Pass 0: bytes per step from two steps into counting sinks. */
static tlm_status size_steps(const tlm_synth_opts *o, const syn_job *job,
                             int *steps)
{
    tlm_synth_opts o2 = *o;
    o2.steps = 2;
    syn_job tmp;
    tlm_status st = job_init(&tmp, &o2);
    int W = o->world_size;
    int *ranks = malloc((size_t)W * sizeof *ranks);
    tlm_synth_out *sinks = calloc((size_t)W, sizeof *sinks);
    tlm_synth_out **outs = calloc((size_t)W, sizeof *outs);
    uint64_t *sb = calloc((size_t)W * 3, sizeof *sb);
    int n_open = 0;
    if (st == TLM_OK && (!ranks || !sinks || !outs || !sb))
        st = TLM_ENOMEM;
    for (int r = 0; r < W && st == TLM_OK; r++) {
        ranks[r] = r;
        st = tlm_synth_out_open(&sinks[r], NULL, 0, 1);
        if (st == TLM_OK) {
            outs[r] = &sinks[r];
            n_open++;
        }
    }
    if (st == TLM_OK)
        st = tlm_synth_engine(&tmp, SYN_RESOLVE, ranks, W, 2, outs, sb);
    if (st == TLM_OK) {
        uint64_t per = 0;
        uint64_t head = 0;
        for (int r = 0; r < W; r++) {
            if (!job->write[r] && r != 0)
                continue;
            uint64_t p = sb[r * 3 + 2] - sb[r * 3 + 1];
            if (p > per) {
                per = p;
                head = sb[r * 3 + 1] > p ? sb[r * 3 + 1] - p : 0;
            }
        }
        if (per > 0 && o->target_size > head) {
            uint64_t need = (o->target_size - head + per - 1) / per;
            if (need > 10000000)
                need = 10000000;
            if ((int)need > *steps)
                *steps = (int)need;
        }
    }
    for (int r = 0; r < n_open; r++)
        tlm_synth_out_close(&sinks[r]);
    free(ranks);
    free(sinks);
    free(outs);
    free(sb);
    job_free(&tmp);
    return st;
}

/* Marks clipped members, sets windows, kept counts and local starts. */
static tlm_status apply_clips(syn_job *job, tlm_error *err)
{
    tlm_synth_truth *t = job->t;
    const tlm_synth_opts *o = &job->o;
    for (int r = 0; r < o->world_size; r++) {
        int first = 0;
        int last = 0;
        for (int i = 0; i < o->n_clips; i++) {
            if (o->clip[i].rank != r)
                continue;
            if (o->clip[i].first > first)
                first = o->clip[i].first;
            if (o->clip[i].last > last)
                last = o->clip[i].last;
        }
        size_t n = job->rank_nmem[r];
        tlm_synth_rank *tr = &t->ranks[r];
        tr->n_colls = n;
        if (first == 0 && last == 0) {
            tr->n_colls_kept = n;
            continue;
        }
        if ((size_t)first + (size_t)last >= n)
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "--clip_first/--clip_last: rank %d has "
                                 "only %zu collectives, clipping %d + %d "
                                 "leaves none",
                                 r, n, first, last);
        job->clipped[r] = 1;
        const size_t *mem = job->rank_members[r];
        for (size_t k = 0; k < n; k++)
            if (k < (size_t)first || k >= n - (size_t)last)
                t->members[mem[k]].kept = 0;
        tr->window_start_ns = job->member_issue[mem[first]];
        int64_t we = tr->window_start_ns;
        for (size_t k = (size_t)first; k < n - (size_t)last; k++)
            if (t->members[mem[k]].end_ns > we)
                we = t->members[mem[k]].end_ns;
        tr->window_end_ns = we;
        tr->n_colls_kept = n - (size_t)first - (size_t)last;
    }
    for (size_t i = 0; i < t->n_members; i++) {
        tlm_synth_member *m = &t->members[i];
        m->local_start_ns = m->start_ns + t->ranks[m->rank].clock_offset_ns;
    }
    return TLM_OK;
}

/* The output folder, created with its parents (mkdir -p). */
static tlm_status make_dir(const char *dir, tlm_error *err)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n < sizeof buf) {
        memcpy(buf, dir, n + 1);
        for (size_t i = 1; i < n; i++) {
            if (buf[i] != '/' || buf[i - 1] == '/')
                continue;
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return tlm_error_set(err, TLM_EIO, buf, -1,
                                     "cannot create the output folder: %s",
                                     strerror(errno));
            buf[i] = '/';
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return tlm_error_set(err, TLM_EIO, dir, -1,
                             "cannot create the output folder: %s",
                             strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return tlm_error_set(err, TLM_EIO, dir, -1, "not a folder");
    return TLM_OK;
}

static tlm_status path_join(char *buf, size_t size, const char *dir,
                            const char *name, const char *suffix,
                            tlm_error *err)
{
    int w = snprintf(buf, size, "%s/%s%s", dir, name, suffix);
    if (w < 0 || (size_t)w >= size)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--out: path too long");
    return TLM_OK;
}

/* A file written under NAME.tmp and renamed to NAME when complete, so a
 * reader never sees half a file. */
typedef struct tmp_file {
    char path[4096];
    char tmp[4200];
    tlm_synth_out out;
} tmp_file;

/* Opens dir/name.tmp for writing (gzip at level when gzip != 0). */
static tlm_status tmp_open(tmp_file *f, const char *dir, const char *name,
                           int gzip, int level, tlm_error *err)
{
    tlm_status st = path_join(f->path, sizeof f->path, dir, name, "", err);
    if (st == TLM_OK)
        st = path_join(f->tmp, sizeof f->tmp, dir, name, ".tmp", err);
    if (st != TLM_OK)
        return st;
    st = tlm_synth_out_open(&f->out, f->tmp, gzip, level);
    if (st != TLM_OK)
        return tlm_error_set(err, st, f->tmp, -1, "cannot open for writing");
    return TLM_OK;
}

/* Closes f and, when st and the close are TLM_OK, renames it to its name;
 * otherwise removes it and reports what failed on its name. */
static tlm_status tmp_commit(tmp_file *f, tlm_status st, const char *what,
                             tlm_error *err)
{
    tlm_status cs = tlm_synth_out_close(&f->out);
    if (st == TLM_OK)
        st = cs;
    if (st == TLM_OK && rename(f->tmp, f->path) != 0)
        st = TLM_EIO;
    if (st != TLM_OK) {
        remove(f->tmp);
        return tlm_error_set(err, st, f->path, -1, "%s", what);
    }
    return TLM_OK;
}

/* Pass 2: one rank's trace. */
static tlm_status write_rank(syn_job *job, int r, int steps, tlm_error *err)
{
    tmp_file f;
    tlm_status st = tmp_open(&f, job->o.out_dir, job->t->ranks[r].trace_file,
                             job->o.gzip, job->o.gzip_level, err);
    if (st != TLM_OK)
        return st;
    tlm_synth_out *outs[1] = {&f.out};
    st = tlm_synth_engine(job, SYN_REPLAY, &r, 1, steps, outs, NULL);
    st = tmp_commit(&f, st, "writing the trace failed", err);
    if (st != TLM_OK)
        return st;
    job->t->ranks[r].written = 1;
    return TLM_OK;
}

/* MARK: - ground_truth.json */

#define PUTL(o, lit) tlm_synth_putn((o), "" lit, sizeof(lit) - 1)

static void gt_key(tlm_synth_out *o, const char *k, int64_t v, int first)
{
    if (!first)
        PUTL(o, ", ");
    tlm_synth_putq(o, k);
    PUTL(o, ": ");
    tlm_synth_puti(o, v);
}

static void gt_keys(tlm_synth_out *o, const char *k, const char *v)
{
    PUTL(o, ", ");
    tlm_synth_putq(o, k);
    PUTL(o, ": ");
    tlm_synth_putq(o, v);
}

static void gt_ranks(tlm_synth_out *o, const tlm_synth_pg *pg)
{
    tlm_synth_putc(o, '[');
    tlm_synth_put_ints(o, pg->ranks, pg->size);
    tlm_synth_putc(o, ']');
}

/* Writes ground_truth.json.  One put per key, in the order of the file,
 * so the code reads as the JSON it writes: the object writers of clips,
 * ranks and members look alike but list other keys. */
static tlm_status write_truth(const syn_job *job, tlm_error *err)
{
    tmp_file f;
    tlm_status st = tmp_open(&f, job->o.out_dir, "ground_truth.json", 0, 1,
                             err);
    if (st != TLM_OK)
        return st;
    tlm_synth_out *o = &f.out;
    const tlm_synth_truth *t = job->t;
    const tlm_synth_opts *op = &job->o;

    PUTL(o, "{\n  \"generator\": \"tlmpi-synth\",\n  \"format_version\": 1,"
            "\n  \"time_unit\": \"ns\",\n  \"params\": {");
    gt_key(o, "world_size", op->world_size, 1);
    gt_key(o, "steps", t->steps, 0);
    gt_key(o, "layers", op->layers, 0);
    gt_key(o, "tp", op->tp, 0);
    gt_key(o, "dp", job->dp, 0);
    gt_key(o, "schema", op->schema, 0);
    PUTL(o, ", \"seed\": ");
    char sbuf[32];
    snprintf(sbuf, sizeof sbuf, "%llu", (unsigned long long)op->seed);
    tlm_synth_puts(o, sbuf);
    gt_key(o, "gzip", op->gzip != 0, 0);
    gt_key(o, "gpus_per_node", op->gpus_per_node, 0);
    gt_key(o, "n_nodes", job->n_nodes, 0);
    gt_key(o, "straggler_rank", op->straggler_rank, 0);
    gt_key(o, "straggler_delay_ns", op->straggler_delay_ns, 0);
    if (op->straggler_cause) /* only when used: older truths unchanged */
        gt_keys(o, "straggler_cause",
                tlm_synth_cause_name(op->straggler_cause));
    if (op->slow_step > 0) { /* only when used: older truths unchanged */
        gt_key(o, "slow_step", op->slow_step, 0);
        gt_key(o, "slow_step_delay_ns", op->slow_step_delay_ns, 0);
    }
    if (op->slow_kernel) { /* only when used: older truths unchanged */
        char fb[32];
        gt_keys(o, "slow_kernel", op->slow_kernel);
        snprintf(fb, sizeof fb, "%.17g", op->slow_kernel_factor);
        PUTL(o, ", \"slow_kernel_factor\": ");
        tlm_synth_puts(o, fb);
    }
    gt_key(o, "jitter_ns", op->jitter_ns, 0);
    gt_key(o, "clock_offset_ns", op->clock_offset_ns, 0);
    gt_key(o, "target_size", (int64_t)op->target_size, 0);
    gt_key(o, "hidden", op->hidden, 0);
    gt_key(o, "heads", op->heads, 0);
    gt_key(o, "seq_len", op->seq_len, 0);
    gt_key(o, "batch", op->batch, 0);
    gt_key(o, "vocab", op->vocab, 0);
    PUTL(o, ", \"clips\": [");
    for (int i = 0; i < op->n_clips; i++) {
        tlm_synth_puts(o, i ? ", {" : "{");
        gt_key(o, "rank", op->clip[i].rank, 1);
        gt_key(o, "first", op->clip[i].first, 0);
        gt_key(o, "last", op->clip[i].last, 0);
        tlm_synth_putc(o, '}');
    }
    PUTL(o, "]},\n  \"base_time_ns\": ");
    tlm_synth_puti(o, t->base_time_ns);

    PUTL(o, ",\n  \"pgs\": [");
    for (size_t i = 0; i < t->n_pgs; i++) {
        const tlm_synth_pg *pg = &t->pgs[i];
        tlm_synth_puts(o, i ? ",\n    {\"index\": " : "\n    {\"index\": ");
        tlm_synth_puti(o, (int64_t)i);
        gt_keys(o, "pg_name", pg->name);
        gt_keys(o, "pg_desc", pg->desc);
        gt_key(o, "pg_size", pg->size, 0);
        PUTL(o, ", \"ranks\": ");
        gt_ranks(o, pg);
        gt_key(o, "rank_start", pg->rank_start, 0);
        gt_key(o, "rank_stride", pg->rank_stride, 0);
        tlm_synth_putc(o, '}');
    }
    PUTL(o, "\n  ],\n  \"ranks\": [");
    for (int r = 0; r < t->world_size; r++) {
        const tlm_synth_rank *tr = &t->ranks[r];
        tlm_synth_puts(o, r ? ",\n    {" : "\n    {");
        gt_key(o, "rank", r, 1);
        gt_key(o, "node", tr->node, 0);
        gt_key(o, "clock_offset_ns", tr->clock_offset_ns, 0);
        gt_keys(o, "trace_file", tr->trace_file);
        PUTL(o, ", \"written\": ");
        tlm_synth_puts(o, tr->written ? "true" : "false");
        gt_key(o, "n_events", (int64_t)tr->n_events, 0);
        gt_key(o, "n_bytes", (int64_t)tr->n_bytes, 0);
        gt_key(o, "n_colls", (int64_t)tr->n_colls, 0);
        gt_key(o, "n_colls_kept", (int64_t)tr->n_colls_kept, 0);
        PUTL(o, ", \"clipped\": ");
        tlm_synth_puts(o, job->clipped[r] ? "true" : "false");
        gt_key(o, "window_start_ns", tr->window_start_ns, 0);
        gt_key(o, "window_end_ns", tr->window_end_ns, 0);
        tlm_synth_putc(o, '}');
    }
    PUTL(o, "\n  ],\n  \"n_collectives\": ");
    tlm_synth_puti(o, (int64_t)t->n_colls);
    PUTL(o, ",\n  \"collectives\": [");
    for (size_t i = 0; i < t->n_colls; i++) {
        const tlm_synth_coll *c = &t->colls[i];
        const tlm_synth_pg *pg = &t->pgs[c->pg];
        tlm_synth_puts(o, i ? ",\n    {" : "\n    {");
        gt_key(o, "id", (int64_t)i, 1);
        gt_keys(o, "pg_name", pg->name);
        gt_keys(o, "pg_desc", pg->desc);
        gt_key(o, "pg_index", c->pg, 0);
        PUTL(o, ", \"ranks\": ");
        gt_ranks(o, pg);
        gt_keys(o, "name", c->name);
        gt_keys(o, "dtype", c->dtype);
        gt_key(o, "in_nelems", c->in_nelems, 0);
        gt_key(o, "out_nelems", c->out_nelems, 0);
        gt_key(o, "bytes", c->bytes, 0);
        gt_key(o, "seq", c->seq, 0);
        gt_key(o, "step", c->step, 0);
        gt_key(o, "comm_ns", c->comm_ns, 0);
        gt_key(o, "skew_ns", c->skew_ns, 0);
        gt_key(o, "end_ns", c->end_ns, 0);
        PUTL(o, ", \"members\": [");
        for (int k = 0; k < c->n_members; k++) {
            const tlm_synth_member *m = &t->members[c->first_member + k];
            tlm_synth_puts(o, k ? ", {" : "{");
            gt_key(o, "rank", m->rank, 1);
            gt_key(o, "start_ns", m->start_ns, 0);
            gt_key(o, "end_ns", m->end_ns, 0);
            gt_key(o, "dur_ns", m->end_ns - m->start_ns, 0);
            gt_key(o, "local_start_ns", m->local_start_ns, 0);
            PUTL(o, ", \"kept\": ");
            tlm_synth_puts(o, m->kept ? "true" : "false");
            if (op->straggler_cause && m->rank == op->straggler_rank) {
                gt_keys(o, "cause", tlm_synth_cause_name(op->straggler_cause));
                gt_key(o, "cause_delay_ns", m->cause_delay_ns, 0);
            }
            tlm_synth_putc(o, '}');
        }
        PUTL(o, "]}");
    }
    PUTL(o, "\n  ]\n}\n");
    return tmp_commit(&f, TLM_OK, "writing the ground truth failed", err);
}

/* MARK: - entry points */

tlm_status tlm_synth_run(const tlm_synth_opts *opts, tlm_synth_truth **truth,
                         tlm_error *err)
{
    if (truth)
        *truth = NULL;
    if (!opts)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "opts is NULL");
    tlm_status st = validate(opts, err);
    if (st != TLM_OK)
        return st;
    syn_job job;
    st = job_init(&job, opts);
    if (st != TLM_OK)
        goto fail;
    int steps = opts->steps;
    if (opts->target_size > 0) {
        st = size_steps(opts, &job, &steps);
        if (st != TLM_OK)
            goto fail;
    }
    job.o.steps = steps;
    job.t->steps = steps;
    if (opts->write_traces) {
        st = make_dir(opts->out_dir, err);
        if (st != TLM_OK)
            goto fail_err;
    }

    int W = opts->world_size;
    int *all = malloc((size_t)W * sizeof *all);
    if (!all) {
        st = TLM_ENOMEM;
        goto fail;
    }
    for (int r = 0; r < W; r++)
        all[r] = r;
    st = tlm_synth_engine(&job, SYN_RESOLVE, all, W, steps, NULL, NULL);
    free(all);
    if (st != TLM_OK)
        goto fail;
    st = apply_clips(&job, err);
    if (st != TLM_OK)
        goto fail_err;
    if (opts->write_traces) {
        for (int r = 0; r < W; r++) {
            if (!job.write[r])
                continue;
            st = write_rank(&job, r, steps, err);
            if (st != TLM_OK)
                goto fail_err;
        }
        st = write_truth(&job, err);
        if (st != TLM_OK)
            goto fail_err;
    }
    if (truth) {
        *truth = job.t;
        job.t = NULL;
    }
    job_free(&job);
    return TLM_OK;
fail:
    tlm_error_set(err, st, NULL, -1, "tlmpi-synth: %s", tlm_status_str(st));
fail_err:
    job_free(&job);
    return st;
}

tlm_status tlm_synth_write(const tlm_synth_opts *opts, tlm_error *err)
{
    return tlm_synth_run(opts, NULL, err);
}
