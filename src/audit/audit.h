/*
 * audit.h - `tlmpi audit ROOT --output_dir D`: many jobs' traces analysed
 * in one MPI run (docs/cli.md, "tlmpi audit").  This layer (src/audit) is
 * the audit without MPI or HDF5:
 *
 *   audit_opts.c    its command line (the analysis options it shares are
 *                   parsed by opts.c)
 *   audit_walk.c    rank 0 walks ROOT; the sniffing of a block of its
 *                   files, and the verdicts classified into traces and
 *                   skipped entries
 *   audit_runs.c    traces grouped into runs
 *   audit_rows.c    a run's /runs row and signature rows from the results
 *                   of its analysis
 *   audit_scale.c   the cross-run tables: scaling metrics, stragglers over
 *                   runs, the baseline comparison
 *   (src/table/audit_tables.[ch]: audit.h5's schema, rows and descriptors)
 *   audit_md.c      audit.md, runs.csv, the schema reference
 *
 * The driver's side (mpi/audit_mpi.h): audit_plan.c (the plan shared over
 * every process), audit.c (the runs through the analysis phases),
 * audit_h5.c (audit.h5).
 */
#ifndef TLM_AUDIT_H
#define TLM_AUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "audit_tables.h"
#include "opts.h"
#include "report0.h"
#include "tlmpi/tlm_sniff.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of tlmpi audit (docs/cli.md). */
enum {
    TLM_AUDIT_EXIT_OK = 0,      /* every run ok (at least one) */
    TLM_AUDIT_EXIT_NOTHING = 1, /* nothing published */
    TLM_AUDIT_EXIT_USAGE = 2,
    TLM_AUDIT_EXIT_PARTIAL = 3  /* published; a run failed, a file or
                                 * folder could not be read, or no run */
};

/* Defaults of the audit's own options. */
#define TLM_AUDIT_MIN_EFF_DEFAULT 0.8
#define TLM_AUDIT_BW_DROP_DEFAULT 20.0

typedef struct tlm_audit_opts {
    const char *root;          /* ROOT (positional) */
    const char *baseline;      /* --baseline RUN (a runs.run value) */
    long run_depth;            /* --run_depth K; 0 = found by content */
    long wave_files;           /* --wave_files N; 0 = 8 x processes */
    double min_efficiency;     /* --min_efficiency E */
    double bw_drop_pct;        /* --bw_drop_pct P */
    int strict;                /* --strict: a skipped file fails the audit */
    int recursive;             /* --recursive (accepted, always on) */
    tlm_cli_opts a;            /* the analysis options it shares;
                                * a.output_dir is D */
} tlm_audit_opts;

/* Parses `tlmpi audit ...` (argv[0] = "audit").  argv is reordered.
 * Returns TLM_OK or TLM_EINVAL with the usage error in err. */
tlm_status tlm_audit_opts_parse(int argc, char **argv, tlm_audit_opts *o,
                                tlm_error *err);
const char *tlm_audit_usage(void);
/* Name (no "--") of the i-th audit-only option, NULL past the last. */
const char *tlm_audit_opts_name(size_t i);

/* ---- finding runs (rank 0) */

/* One trace found under the root. */
typedef struct tlm_audit_trace {
    char *rel;            /* path relative to the root */
    int64_t size;
    uint64_t dev, ino;
    int64_t dist_rank, dist_world; /* from the sniffed head, -1 unknown */
} tlm_audit_trace;

/* One run: traces of one job. */
typedef struct tlm_audit_run {
    char *rel;            /* folder relative to the root, "." the root */
    char *job;            /* its parent folder ("llama" of llama/n8); a
                           * run directly under the root is its own job
                           * ("megatron"); "." for the root itself */
    size_t *tr;           /* indices into the plan's traces, sorted by path */
    size_t n_tr;
    int prefail;          /* failed before reading (reason says why) */
    char reason[1024];    /* prefail: why; else warnings ("" none) */
} tlm_audit_run;

/* What the walk found. */
typedef struct tlm_audit_plan {
    tlm_audit_trace *tr;
    size_t n_tr, cap_tr;
    tlm_audit_run *run;
    size_t n_run;
    tlm_arow_skip *skip;  /* non-traces and unreadable entries */
    size_t n_skip, cap_skip;
    size_t n_unreadable;  /* of them: files or folders that failed to open */
    size_t n_seen;        /* regular files looked at */
    char **cand;          /* the walk's regular files, before sniffing */
    size_t n_cand, cap_cand;
    char notes[2048];     /* merges of subfolders, said in audit.md */
} tlm_audit_plan;

/* How rank 0 walks. */
typedef struct tlm_audit_walk_opts {
    const char *root;
    const char *exclude;  /* a folder left out (the output folder), or
                           * NULL */
    size_t head_cap;      /* sniff bytes, 0 = default */
    int max_depth;        /* folders below the root, e.g. 32 */
} tlm_audit_walk_opts;

/* Walks the root (folder symlinks are not followed): its regular files
 * become p->cand (relative paths, in walk order), other entries and
 * folders that cannot be read p->skip.  Errors: TLM_ENOTFOUND (the root
 * cannot be opened: err names it), TLM_ENOMEM. */
tlm_status tlm_audit_walk(const tlm_audit_walk_opts *w, tlm_audit_plan *p,
                          tlm_error *err);

/* Sniffs candidates [first, first + n) of p under root into out[0..n).
 * Errors: TLM_ENOMEM. */
tlm_status tlm_audit_sniff_range(const tlm_audit_plan *p, const char *root,
                                 size_t first, size_t n, tlm_sniff *out);

/* Turns the candidates, sniffed as s[0..p->n_cand), into traces and
 * skipped entries (both then sorted by path); p->cand is emptied.
 * Errors: TLM_ENOMEM. */
tlm_status tlm_audit_classify(tlm_audit_plan *p, const tlm_sniff *s,
                              tlm_error *err);

/* Groups the plan's traces into runs (p->run, sorted by path): with
 * run_depth K the run of a trace is the first K folders of its path;
 * else its folder, and sibling folders whose names differ only in digits
 * (rank0/, rank1/, ...) are merged into their parent when each holds one
 * trace or all are incomplete parts of one declared world size.  A
 * file reached twice within a run is kept once; a file in two runs gets a
 * warning in both; traces declaring different world sizes fail their run.
 * Errors: TLM_ENOMEM. */
tlm_status tlm_audit_group(tlm_audit_plan *p, long run_depth,
                           tlm_error *err);

void tlm_audit_plan_free(tlm_audit_plan *p);

/* The job of the run folder rel (relative to the root), malloc'd: its
 * parent folder ("llama/n8" -> "llama"), but a run directly under the
 * root is its own job ("megatron" -> "megatron", "." -> ".").  NULL when
 * out of memory. */
char *tlm_audit_job_of(const char *rel);

/* ---- rows (rank 0) */

/* One (run, rank) of the straggler rows, kept for /scaling/stragglers. */
typedef struct tlm_audit_srank {
    int32_t run;          /* index in the runs */
    int32_t trace_rank;
    int32_t named;        /* the run's straggler */
    int32_t top;          /* caused the most waiting in the run */
    int64_t wait_caused_ns;
    int64_t n_instances;
} tlm_audit_srank;

/* Ops of a run's signature kept: the ones of most kernel time. */
#define TLM_AUDIT_SIG_OPS 64

/* Share of each run's kernel time that ops found in both runs must make
 * for their op signatures to agree. */
#define TLM_AUDIT_SIG_OP_SHARE 0.8

/* Efficiencies above this are flagged (TLM_AUDIT_OUT_ABOVE_ONE), not
 * ranked. */
#define TLM_AUDIT_EFF_FLAG 1.1

/* What a run does, to tell whether two runs may be one scaling series:
 * its collectives (kind and dtype, whatever the sizes and groups) and its
 * ops (name and share of the kernel time launched by ops). */
typedef struct tlm_audit_sig {
    int set;              /* filled from the run's results */
    char coll[256];       /* "allreduce/BFloat16 allgather/BFloat16",
                           * sorted, "" none; cut at 255 bytes */
    size_t n_ops;
    uint64_t op_hash[TLM_AUDIT_SIG_OPS]; /* FNV-1a of the op name */
    double op_share[TLM_AUDIT_SIG_OPS];  /* of the run's op kernel time */
} tlm_audit_sig;

/* Whether runs a and b may be one scaling series: both signatures filled,
 * the same collective set, and ops found in both making at least
 * TLM_AUDIT_SIG_OP_SHARE of each one's op kernel time.  *why (may be
 * NULL) gets "collectives differ" or "ops differ (...)" when not. */
int tlm_audit_sig_match(const tlm_audit_sig *a, const tlm_audit_sig *b,
                        char *why, size_t cap);

/* Everything the audit's outputs are made of. */
typedef struct tlm_audit_acc {
    tlm_arow_run *runs;   /* one per run, by index */
    size_t n_runs;
    tlm_arow_coll *colls;
    size_t n_colls, cap_colls;
    tlm_audit_srank *sr;
    size_t n_sr, cap_sr;
    /* tlm_audit_finish() */
    tlm_arow_job *jobs;
    size_t n_jobs;
    tlm_arow_strag *strag;
    size_t n_strag;
    tlm_arow_cmp *cmp;
    size_t n_cmp;
    int32_t base_index;   /* --baseline's run, -1 none */
    tlm_audit_sig *sig;   /* one per run (audit_rows.c), NULL until the
                           * first run's results */
    int32_t *series;      /* tlm_audit_finish(): per run, the index of the
                           * run heading its series (-1: not ok) */
    char *causes_md;      /* why each run's straggler is late: Markdown
                           * (cause.c's sentences under a run heading) */
    size_t n_causes_md;
} tlm_audit_acc;

/* Fills the run row (index, run, job, status, reason, n_files and h5
 * already set by the caller) from the results of its analysis and adds
 * its signature and straggler rows to acc.  Errors: TLM_ENOMEM. */
tlm_status tlm_audit_add_results(tlm_audit_acc *acc, size_t run,
                                 const tlm_out_results *r,
                                 double straggler_threshold_us);

/* Initialises a run row: identity columns, every metric unknown. */
void tlm_audit_row_init(tlm_arow_run *row, int32_t index, const char *run,
                        const char *job);

/* Cross-run tables: /scaling/jobs, base bandwidth of /scaling/collectives,
 * /scaling/stragglers, /comparison (baseline: a run path, or NULL).  The
 * ok runs of one job fall into series (runs whose signatures agree with
 * the series' first run, the smallest by world size then path); a run is
 * compared only within its series, and stragglers are summed per series.
 * step_outlier_pct: the analysis option.  Errors: TLM_ENOMEM. */
tlm_status tlm_audit_finish(tlm_audit_acc *acc, const tlm_audit_opts *o);

void tlm_audit_acc_free(tlm_audit_acc *acc);

/* Bits of /scaling/jobs.stands_out (docs/metrics-audit.md). */
enum {
    TLM_AUDIT_OUT_STRAGGLER = 1,  /* a straggler is named */
    TLM_AUDIT_OUT_SLOW = 2,       /* step time > (1 + step_outlier_pct)
                                   * x median of its (job, world size) */
    TLM_AUDIT_OUT_EFFICIENCY = 4, /* weak efficiency < --min_efficiency */
    TLM_AUDIT_OUT_BANDWIDTH = 8,  /* a signature with >= 5% of the time
                                   * lost >= --bw_drop_pct of its base
                                   * bandwidth */
    TLM_AUDIT_OUT_INCOMPLETE = 16,/* > 5% of the instances incomplete */
    TLM_AUDIT_OUT_CLOCK = 32,     /* |clock offset| > 1 ms */
    TLM_AUDIT_OUT_ABOVE_ONE = 64  /* both efficiencies > TLM_AUDIT_EFF_FLAG:
                                   * more than ideal however the job
                                   * scales (different work): flagged, not
                                   * ranked */
};

/* ---- outputs (rank 0) */

/* What audit.h5 and audit.md say beside the tables. */
typedef struct tlm_audit_meta {
    const tlm_audit_opts *o;
    const tlm_audit_plan *plan;
    const char *cmdline;
    int nprocs;
    double t_walk_s, t_runs_s, t_total_s;
} tlm_audit_meta;

/* Writes audit.md to f.  Returns 0, or -1 when a write failed. */
int tlm_audit_md_write(FILE *f, const tlm_audit_acc *acc,
                       const tlm_audit_meta *m);

/* Writes runs.csv (the /runs table) to f.  Returns 0 or -1. */
int tlm_audit_csv_write(FILE *f, const tlm_audit_acc *acc);

/* Markdown reference of audit.h5's datasets (`tlmpi audit
 * --print_schema`). */
void tlm_audit_schema_markdown(FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* TLM_AUDIT_H */
