/*
 * tlm_synth.h - deterministic generator of realistic multi-rank PyTorch
 * profiler (Kineto) traces with a known ground truth.
 *
 * tlm_synth_run() writes one Kineto trace per rank of a simulated tensor- and
 * data-parallel transformer training job (python_function / nn.Module
 * hierarchy, cpu_ops with shapes, autograd backward thread, CUDA runtime
 * launches, kernels on a compute stream and one NCCL stream per process
 * group, memcpy / memset, NCCL collectives with the full event chain of
 * [nccl_trace_schema] in one of three schema generations), plus
 * ground_truth.json beside them.  Output is streamed through a fixed buffer
 * (plain JSON or gzip through zlib), so traces of many GB can be written in
 * constant memory.  The same options (seed included) always give the same
 * bytes.
 *
 * Timing model (all times int64 nanoseconds on one true global clock): each
 * collective instance has a communication time C derived from its size and
 * the group's bandwidth; participant r's NCCL kernel starts at its arrival
 * a_r (when its stream is ready, plus per-collective jitter, plus the
 * straggler delay) and every participant's kernel ends at max_r(a_r) + C, so
 * min over ranks of the kernel duration is exactly C.  Rank r's trace shows
 * global time + its node's clock offset.  See docs/synth.md.
 *
 * Thread-safety: tlm_synth_run() keeps all state in locals; distinct calls
 * may run concurrently if they write to distinct directories.
 */
#ifndef TLM_SYNTH_H
#define TLM_SYNTH_H

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most entries accepted in tlm_synth_opts.node_offset_ns / .clip. */
#define TLM_SYNTH_MAX_NODES 256
#define TLM_SYNTH_MAX_CLIPS 64

/* One clipped profiling window: rank `rank` misses its first `first` and its
 * last `last` collectives (counted in CPU issue order over all of its
 * process groups); every event of that rank outside the window spanned by
 * its kept collectives is dropped. */
typedef struct tlm_synth_clip {
    int rank;
    int first;
    int last;
} tlm_synth_clip;

typedef struct tlm_synth_opts {
    const char *out_dir;      /* output folder, created if missing (one
                                 level); required */
    int world_size;           /* ranks, >= 1 (default 8) */
    int steps;                /* training steps, >= 1 (default 2) */
    int layers;               /* transformer layers, >= 1 (default 4) */
    int tp;                   /* tensor-parallel group size; must divide
                                 world_size; dp = world_size / tp
                                 (default 2) */
    uint64_t target_size;     /* approximate bytes of uncompressed JSON per
                                 trace: more steps are generated until it is
                                 reached (0 = just `steps`) */
    int gzip;                 /* 1: write .json.gz (zlib) */
    int gzip_level;           /* 1..9 (default 1: fastest) */
    uint64_t seed;            /* PRNG seed (default 1) */
    int schema;               /* NCCL metadata generation 1, 2 or 3
                                 (default 3), see docs/synth.md */
    const char *name_pattern; /* trace file name; "{r}" becomes the rank;
                                 NULL = "rank{r}_trace.json" (+ ".gz") */
    int straggler_rank;       /* -1 = none (default) */
    int64_t straggler_delay_ns; /* added to that rank's every arrival */
    int slow_step;            /* ProfilerStep#N made slow: every rank
                                 arrives slow_step_delay_ns late at each
                                 of its collectives (0 = none, default) */
    int64_t slow_step_delay_ns;
    const char *slow_kernel;  /* every kernel whose name contains this runs
                                 slow_kernel_factor times longer (the GPU
                                 timeline after it shifts accordingly);
                                 NULL = none (default) */
    double slow_kernel_factor; /* > 0 (default 1) */
    int64_t jitter_ns;        /* per-rank per-collective arrival jitter,
                                 uniform in [0, jitter_ns] (default 0) */
    int gpus_per_node;        /* ranks per node (default 8) */
    int64_t node_offset_ns[TLM_SYNTH_MAX_NODES]; /* clock offset per node */
    int n_node_offsets;       /* entries used; nodes beyond get 0 unless
                                 clock_offset_ns is set */
    int64_t clock_offset_ns;  /* > 0 and no explicit offsets: node n > 0
                                 gets a seed-derived offset in
                                 [-clock_offset_ns, clock_offset_ns] */
    tlm_synth_clip clip[TLM_SYNTH_MAX_CLIPS];
    int n_clips;
    int write_traces;         /* 0: compute the ground truth only (no files;
                                 event counts stay 0) (default 1) */
    const int *only_ranks;    /* write trace files only for these ranks
                                 (n_only_ranks entries, caller-owned, read
                                 during the call); NULL = every rank.  The
                                 ground truth always covers the whole job;
                                 unwritten ranks report n_events 0 */
    int n_only_ranks;
    /* Model size (defaults: hidden 4096, heads 32, seq_len 2048, batch 1,
     * vocab 32000); hidden must be divisible by heads and tp, vocab by tp,
     * heads by tp. */
    int hidden;
    int heads;
    int seq_len;
    int batch;
    int vocab;
    const char *device_name;  /* deviceProperties[].name of every GPU;
                                 NULL = "NVIDIA H100 80GB HBM3" */
    int no_dist_info;         /* 1: no distributedInfo key in the traces
                                 (ranks only from the file names) */
    int no_group_meta;        /* 1: collectives name no group: no "Group
                                 size", "Process Group Name/Description/
                                 Ranks", "Global rank start/stride", -1 in
                                 Concrete Inputs' group entries, no
                                 pg_config in distributedInfo (as the DLRM
                                 traces of 2023) */
    int straggler_cause;      /* TLM_SYNTH_CAUSE_*: what makes the
                                 straggler late (needs straggler_rank);
                                 NONE = its kernels just start
                                 straggler_delay_ns late (default) */
    int64_t p2p_seq_first;    /* Seq of each p2p pair's first send/recv */
    int64_t p2p_seq_step;     /* and the step between its next ones (gaps
                                 when > 1); 0, 0 = 1, 1 (default) */
} tlm_synth_opts;

/* Causes of --straggler_cause (docs/synth.md, docs/straggler-causes.md). */
enum {
    TLM_SYNTH_CAUSE_NONE = 0,
    TLM_SYNTH_CAUSE_SLOW_KERNELS = 1, /* the last compute kernel before each
                                         blocking collective runs D longer */
    TLM_SYNTH_CAUSE_HOST_BUSY = 2,    /* before each collective the host
                                         runs a python function until the
                                         GPU has idled D */
    TLM_SYNTH_CAUSE_LATE_LAUNCH = 3   /* each collective kernel starts D
                                         after its launch, the GPU idle */
};

/* "slow_kernels", "host_busy", "late_launch" (NULL for NONE / out of
 * range); tlm_synth_cause_parse gives the value of such a name, -1 if
 * none. */
TLM_API const char *tlm_synth_cause_name(int cause);
TLM_API int tlm_synth_cause_parse(const char *name);

/* Fills opts with the defaults above (out_dir NULL). */
TLM_API void tlm_synth_opts_init(tlm_synth_opts *opts);

/* ------------------------------------------------------------------ truth */

typedef struct tlm_synth_pg {
    char name[16];            /* pg_name, e.g. "0", "3" */
    char desc[32];            /* pg_desc: default_pg, mesh_tp, mesh_dp, p2p */
    int size;
    int *ranks;               /* global ranks, size entries */
    int rank_start;           /* Global rank start */
    int rank_stride;          /* Global rank stride */
} tlm_synth_pg;

/* One participant of a collective instance. */
typedef struct tlm_synth_member {
    int rank;                 /* global rank */
    int64_t start_ns;         /* kernel start, global clock (a_r) */
    int64_t end_ns;           /* kernel end, global clock */
    int64_t local_start_ns;   /* start_ns + the rank's clock offset */
    int kept;                 /* 1: in the rank's trace after clipping */
    int64_t cause_delay_ns;   /* --straggler_cause: how much later the
                                 injected cause made this member arrive
                                 (its arrival minus the arrival without
                                 the injection); 0 otherwise */
} tlm_synth_member;

typedef struct tlm_synth_coll {
    int pg;                   /* index into tlm_synth_truth.pgs */
    const char *name;         /* "Collective name": allreduce,
                                 _allgather_base, _reduce_scatter_base,
                                 broadcast, all_to_all, all_to_allv, send
                                 (p2p: member 0 sends, member 1 receives) */
    const char *dtype;        /* c10 name: BFloat16, Float, Long */
    int64_t in_nelems;        /* per rank */
    int64_t out_nelems;       /* per rank */
    int64_t bytes;            /* message size, see docs/synth.md */
    int64_t seq;              /* per-process-group sequence number, from 1 */
    int64_t comm_ns;          /* true communication time C */
    int64_t skew_ns;          /* max a_r - min a_r */
    int64_t end_ns;           /* max a_r + C (global clock) */
    int step;                 /* training step */
    size_t first_member;      /* into tlm_synth_truth.members */
    int n_members;
} tlm_synth_coll;

typedef struct tlm_synth_rank {
    int node;
    int64_t clock_offset_ns;
    char trace_file[256];     /* file name within out_dir */
    int written;              /* 1: the trace file was written */
    uint64_t n_events;        /* events written (0 when write_traces 0) */
    uint64_t n_bytes;         /* uncompressed JSON bytes written */
    uint64_t n_colls;         /* collectives issued by the rank */
    uint64_t n_colls_kept;    /* of which kept after clipping */
    int64_t window_start_ns;  /* kept window, global clock */
    int64_t window_end_ns;
} tlm_synth_rank;

typedef struct tlm_synth_truth {
    int world_size;
    int steps;                /* steps actually generated */
    int64_t base_time_ns;     /* baseTimeNanoseconds of every trace */
    tlm_synth_pg *pgs;
    size_t n_pgs;
    tlm_synth_rank *ranks;    /* world_size entries */
    tlm_synth_coll *colls;    /* in issue order */
    size_t n_colls;
    tlm_synth_member *members;
    size_t n_members;
} tlm_synth_truth;

/* Generates the job described by opts into opts->out_dir: one trace per rank
 * (named by name_pattern) and ground_truth.json.  Files are written under a
 * temporary name and renamed when complete.  When truth is not NULL, *truth
 * receives the ground truth (free with tlm_synth_truth_free); on failure it
 * is set to NULL.  Errors: TLM_EINVAL (bad options, with a message naming
 * the option), TLM_EIO (cannot create or write a file), TLM_ENOMEM. */
TLM_API tlm_status tlm_synth_run(const tlm_synth_opts *opts,
                                 tlm_synth_truth **truth, tlm_error *err);

/* Same as tlm_synth_run(opts, NULL, err). */
TLM_API tlm_status tlm_synth_write(const tlm_synth_opts *opts,
                                   tlm_error *err);

/* Releases a ground truth from tlm_synth_run.  NULL is allowed. */
TLM_API void tlm_synth_truth_free(tlm_synth_truth *truth);

/* Parses a CLI-style list of integers "0,150,-80" into out (at most max
 * entries); returns the count, or -1 on a syntax error or overflow. */
TLM_API int tlm_synth_parse_list(const char *s, int64_t *out, int max);

#ifdef __cplusplus
}
#endif
#endif /* TLM_SYNTH_H */
