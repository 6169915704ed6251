/*
 * tlmpi-synth - writes a deterministic, realistic multi-rank PyTorch
 * profiler (Kineto) job: one trace per rank plus ground_truth.json.  A thin
 * command line over tlm_synth_run(); see docs/synth.md.
 */
#include "tlmpi/tlm_synth.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: tlmpi-synth --out DIR [options]\n"
    "\n"
    "Writes one Kineto trace per rank of a simulated tensor- and data-\n"
    "parallel transformer training job, and DIR/ground_truth.json with the\n"
    "true timing of every collective.  Same options, same bytes.\n"
    "See docs/synth.md.\n"
    "\n"
    "Job:\n"
    "  --out DIR               output folder (created with its parents)\n"
    "  --world_size N          ranks (default 8)\n"
    "  --tp T                  tensor-parallel group size, divides N\n"
    "                          (default 2); data-parallel size = N / T\n"
    "  --steps S               training steps (default 2)\n"
    "  --layers L              transformer layers (default 4)\n"
    "  --target_size BYTES     approximate uncompressed JSON bytes per trace;\n"
    "                          adds steps until reached (suffix k, M, G ok)\n"
    "  --seed N                PRNG seed (default 1)\n"
    "  --schema 1|2|3          NCCL metadata generation (default 3):\n"
    "                          1 = seq in record_param_comms Concrete Inputs\n"
    "                          (Apr 2024 10-entry form: global rank start,\n"
    "                          stride, size), no named keys; 2 = named keys on\n"
    "                          record_param_comms and kernels, no seq;\n"
    "                          3 = as 2 plus Seq (and Src/Dst Rank, Comms Id)\n"
    "  --hidden H --heads A --seq_len Q --batch B --vocab V\n"
    "                          model size (default 4096 32 2048 1 32000)\n"
    "Files:\n"
    "  --gzip                  write .json.gz\n"
    "  --no_dist_info          leave distributedInfo out of every trace\n"
    "  --no_group_meta         collectives name no group (no Group size,\n"
    "                          Process Group Name/Description/Ranks, global\n"
    "                          rank start/stride, pg_config), as old traces\n"
    "  --gzip_level N          zlib level 1..9 (default 1)\n"
    "  --device_name NAME      deviceProperties[].name of every GPU\n"
    "                          (default \"NVIDIA H100 80GB HBM3\")\n"
    "  --name_pattern P        file name, {r} = rank\n"
    "                          (default rank{r}_trace.json[.gz])\n"
    "  --ranks LIST            write only these ranks' traces, e.g. 0 or 0,3\n"
    "                          (the ground truth still covers every rank;\n"
    "                          distributedInfo.world_size stays the world)\n"
    "  --profiled_ranks LIST   the same: a sampled subset of the job\n"
    "Timing:\n"
    "  --gpus_per_node G       ranks per node (default 8)\n"
    "  --node_offset_us LIST   clock offset per node in us, e.g. 0,150,-80\n"
    "  --clock_offset_us X     seed-derived offsets in [-X, X] for nodes > 0\n"
    "                          (when --node_offset_us is not given)\n"
    "  --slow_kernel SUBSTR    kernels whose name contains SUBSTR run\n"
    "  --slow_kernel_factor F  F times longer (default 1)\n"
    "  --straggler RANK        this rank arrives late at every collective\n"
    "  --straggler_delay_us D  by D us\n"
    "  --straggler_cause C     what makes it late: slow_kernels, host_busy\n"
    "                          or late_launch (truth per member in\n"
    "                          ground_truth.json)\n"
    "  --slow_step N           in ProfilerStep#N every rank arrives late at\n"
    "  --slow_step_delay_us D  each collective by D us\n"
    "  --jitter_us J           per-rank per-collective arrival jitter in\n"
    "                          [0, J] us\n"
    "  --clip_first RANK:K     RANK's trace misses its first K collectives\n"
    "  --clip_last RANK:K      ... its last K (both repeatable)\n"
    "  --p2p_seq FIRST:STEP    the Seq of each p2p pair's send/recv: FIRST,\n"
    "                          FIRST + STEP, ... (default 1:1)\n"
    "Other:\n"
    "  --quiet                 print nothing on success\n"
    "  --help                  this text\n"
    "  --version               the version\n";

static int bad(const char *opt, const char *val)
{
    fprintf(stderr, "tlmpi-synth: bad value for %s: '%s'\n%s", opt,
            val ? val : "", "try tlmpi-synth --help\n");
    return 2;
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || end == s || *end || errno == ERANGE)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_int(const char *s, int *out)
{
    int64_t v;
    if (parse_i64(s, &v) || v < -2147483647 || v > 2147483647)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || end == s || errno == ERANGE || *s == '-')
        return -1;
    uint64_t mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1000;
    else if (*end == 'M')
        mul = 1000000;
    else if (*end == 'G')
        mul = 1000000000;
    if (mul != 1)
        end++;
    if (*end)
        return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

/* Microseconds (decimal, up to ns precision) to ns. */
static int parse_us(const char *s, int64_t *out)
{
    if (!*s)
        return -1;
    return tlm_parse_us_to_ns(s, strlen(s), out) == TLM_OK ? 0 : -1;
}

static int parse_clip(const char *s, tlm_synth_opts *o, int last)
{
    const char *colon = strchr(s, ':');
    if (!colon || o->n_clips >= TLM_SYNTH_MAX_CLIPS)
        return -1;
    char rb[32];
    size_t n = (size_t)(colon - s);
    if (n == 0 || n >= sizeof rb)
        return -1;
    memcpy(rb, s, n);
    rb[n] = '\0';
    int rank;
    int k;
    if (parse_int(rb, &rank) || parse_int(colon + 1, &k) || k < 0)
        return -1;
    tlm_synth_clip *c = &o->clip[o->n_clips++];
    c->rank = rank;
    c->first = last ? 0 : k;
    c->last = last ? k : 0;
    return 0;
}

/* The field of o that the plain integer option name sets, or NULL. */
static int *int_option(tlm_synth_opts *o, const char *name)
{
    const struct {
        const char *name;
        int *v;
    } t[] = {
        {"--world_size", &o->world_size},
        {"--steps", &o->steps},
        {"--layers", &o->layers},
        {"--tp", &o->tp},
        {"--gzip_level", &o->gzip_level},
        {"--schema", &o->schema},
        {"--straggler", &o->straggler_rank},
        {"--slow_step", &o->slow_step},
        {"--gpus_per_node", &o->gpus_per_node},
        {"--hidden", &o->hidden},
        {"--heads", &o->heads},
        {"--seq_len", &o->seq_len},
        {"--batch", &o->batch},
        {"--vocab", &o->vocab},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(name, t[i].name) == 0)
            return t[i].v;
    return NULL;
}

/* Sets option name (with its value val) in o; --ranks keeps its list in
 * ranks (ranks64 is scratch, both of 4096).  0, else the exit status
 * after the message. */
static int set_option(tlm_synth_opts *o, const char *name, const char *val,
                      int64_t *ranks64, int *ranks)
{
    int64_t v64;
    int *iv = int_option(o, name);
    if (iv) {
        if (parse_int(val, iv))
            return bad(name, val);
    } else if (strcmp(name, "--out") == 0) {
        o->out_dir = val;
    } else if (strcmp(name, "--target_size") == 0) {
        if (parse_size(val, &o->target_size))
            return bad(name, val);
    } else if (strcmp(name, "--seed") == 0) {
        if (parse_i64(val, &v64) || v64 < 0)
            return bad(name, val);
        o->seed = (uint64_t)v64;
    } else if (strcmp(name, "--name_pattern") == 0) {
        o->name_pattern = val;
    } else if (strcmp(name, "--device_name") == 0) {
        o->device_name = val;
    } else if (strcmp(name, "--straggler_cause") == 0) {
        o->straggler_cause = tlm_synth_cause_parse(val);
        if (o->straggler_cause < 0)
            return bad(name, val);
    } else if (strcmp(name, "--slow_kernel") == 0) {
        o->slow_kernel = val;
    } else if (strcmp(name, "--slow_kernel_factor") == 0) {
        char *end;
        o->slow_kernel_factor = strtod(val, &end);
        if (end == val || *end)
            return bad(name, val);
    } else if (strcmp(name, "--slow_step_delay_us") == 0) {
        if (parse_us(val, &o->slow_step_delay_ns))
            return bad(name, val);
    } else if (strcmp(name, "--straggler_delay_us") == 0) {
        if (parse_us(val, &o->straggler_delay_ns))
            return bad(name, val);
    } else if (strcmp(name, "--jitter_us") == 0) {
        if (parse_us(val, &o->jitter_ns))
            return bad(name, val);
    } else if (strcmp(name, "--node_offset_us") == 0) {
        int n = tlm_synth_parse_list(val, o->node_offset_ns,
                                     TLM_SYNTH_MAX_NODES);
        if (n < 0)
            return bad(name, val);
        for (int k = 0; k < n; k++) {
            if (o->node_offset_ns[k] > INT64_MAX / 1000 ||
                o->node_offset_ns[k] < -(INT64_MAX / 1000))
                return bad(name, val);
            o->node_offset_ns[k] *= 1000;
        }
        o->n_node_offsets = n;
    } else if (strcmp(name, "--clock_offset_us") == 0) {
        if (parse_us(val, &o->clock_offset_ns))
            return bad(name, val);
    } else if (strcmp(name, "--clip_first") == 0) {
        if (parse_clip(val, o, 0))
            return bad(name, val);
    } else if (strcmp(name, "--p2p_seq") == 0) {
        const char *colon = strchr(val, ':');
        char first[32];
        if (!colon || (size_t)(colon - val) >= sizeof first)
            return bad(name, val);
        memcpy(first, val, (size_t)(colon - val));
        first[colon - val] = '\0';
        if (parse_i64(first, &o->p2p_seq_first) ||
            parse_i64(colon + 1, &o->p2p_seq_step))
            return bad(name, val);
    } else if (strcmp(name, "--clip_last") == 0) {
        if (parse_clip(val, o, 1))
            return bad(name, val);
    } else if (strcmp(name, "--ranks") == 0 ||
               strcmp(name, "--profiled_ranks") == 0) {
        int n = tlm_synth_parse_list(val, ranks64, 4096);
        if (n < 0)
            return bad(name, val);
        for (int k = 0; k < n; k++) {
            if (ranks64[k] < 0 || ranks64[k] > 2147483647)
                return bad(name, val);
            ranks[k] = (int)ranks64[k];
        }
        o->only_ranks = ranks;
        o->n_only_ranks = n;
    } else {
        fprintf(stderr, "tlmpi-synth: unknown option '%s'\n%s", name,
                "try tlmpi-synth --help\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    tlm_synth_opts o;
    tlm_synth_opts_init(&o);
    int quiet = 0;
    int64_t ranks64[4096];
    int ranks[4096];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            printf("tlmpi-synth %s\n", TLM_VERSION_STRING);
            return 0;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "tlmpi-synth: unexpected argument '%s'\n", a);
            return 2;
        }
        char name[64];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name) {
            fprintf(stderr, "tlmpi-synth: unknown option '%s'\n", a);
            return 2;
        }
        memcpy(name, a, nl);
        name[nl] = '\0';
        if (strcmp(name, "--gzip") == 0 || strcmp(name, "--quiet") == 0 ||
            strcmp(name, "--no_dist_info") == 0 ||
            strcmp(name, "--no_group_meta") == 0) {
            if (eq)
                return bad(name, eq + 1);
            if (name[2] == 'g')
                o.gzip = 1;
            else if (name[2] == 'q')
                quiet = 1;
            else if (name[5] == 'd')
                o.no_dist_info = 1;
            else
                o.no_group_meta = 1;
            continue;
        }
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc) {
                fprintf(stderr, "tlmpi-synth: %s needs a value\n", name);
                return 2;
            }
            val = argv[++i];
        }
        int rc = set_option(&o, name, val, ranks64, ranks);
        if (rc)
            return rc;
    }
    if (!o.out_dir) {
        fprintf(stderr, "tlmpi-synth: --out DIR is required\n%s", usage);
        return 2;
    }

    tlm_error err;
    tlm_error_clear(&err);
    tlm_synth_truth *t = NULL;
    tlm_status st = tlm_synth_run(&o, &t, &err);
    if (st != TLM_OK) {
        char buf[1024];
        fprintf(stderr, "tlmpi-synth: %s\n",
                tlm_error_format(&err, buf, sizeof buf));
        return st == TLM_EINVAL ? 2 : 1;
    }
    if (!quiet) {
        size_t written = 0;
        uint64_t bytes = 0;
        for (int r = 0; r < t->world_size; r++) {
            if (!t->ranks[r].written)
                continue;
            written++;
            bytes += t->ranks[r].n_bytes;
        }
        printf("tlmpi-synth: %zu trace(s) in %s (world %d, tp %d, %d "
               "steps, schema %d, %zu collectives, %llu JSON bytes), "
               "ground_truth.json\n",
               written, o.out_dir, t->world_size, o.tp, t->steps, o.schema,
               t->n_colls, (unsigned long long)bytes);
    }
    tlm_synth_truth_free(t);
    return 0;
}
