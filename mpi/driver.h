/*
 * driver.h - what the phases of the tlmpi analysis mode share (the MPI
 * driver of docs/architecture.md).  driver.c runs the phases in order
 * over one context, tlm_mpi_ctx:
 *
 *   phase_setup.c        rank 0 discovers the traces and checks the
 *                        output; every rank gets the list and the LPT
 *                        assignment by file size
 *   phase_read.c         each rank reads its own traces (trace.c: one
 *                        trace, handed to each module's collect hooks),
 *                        with progress on rank 0
 *   phase_check.c        all-gather of the per-file results: bad traces,
 *                        duplicate and missing ranks, the world size
 *   one per module       the cross-rank analyses registered in driver.c
 *                        (module.h): collectives, timeline, tracelens,
 *                        steps, merge, hta
 *   phase_write.c        tlmpi.h5 built by rank 0 from every rank's rows
 *                        under a temporary name (src/job/job_rows.c: rank 0's
 *                        collective rows; each module lists its datasets)
 *   ... and publish      (phase_write.c too) rank 0 writes report.md and
 *                        the CSV sheets under temporary names (with what
 *                        each module hands over), then renames everything
 *                        or removes everything
 *
 * ctx.c holds what they all share (messages, the status agreement,
 * times).
 *
 * Every phase that follows a local failure point starts by agreeing on the
 * status (MPI_Allreduce MAX, tlm_mpi_agree), so every rank takes the same
 * branch: a bad trace ends the job with a message and exit code 1, never a
 * hang.  A phase returns the agreed status; the driver stops at the first
 * one that is not TLM_OK.
 *
 * Results do not depend on the number of MPI ranks: every table is written
 * in a canonical order (by trace rank, or by the sort keys of tlm_coll.h),
 * per-trace tables through explicit row segments.
 */
#ifndef TLM_MPI_DRIVER_H
#define TLM_MPI_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "discover.h"
#include "job.h"
#include "opts.h"
#include "progress.h"
#include "report0.h"
#include "tables.h"
#include "tlmpi/tlm_cause.h"
#include "tlmpi/tlm_coll.h"
#include "tlmpi/tlm_outset.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TLM_MPI_PATH_CAP 4096

/* What rank 0 broadcasts after discovery. */
typedef struct tlm_mpi_setup {
    int32_t status;
    int32_t exit_code;
    uint64_t packed_len;
    char msg[1024];
    char out[TLM_MPI_PATH_CAP];
    char tmp[TLM_MPI_PATH_CAP];
    char rdir[TLM_MPI_PATH_CAP];
    char cdir[TLM_MPI_PATH_CAP];
} tlm_mpi_setup;

/* Results of the collective phases. */
typedef struct tlm_mpi_colls {
    tlm_coll_match_result mr;        /* this owner's instances */
    tlm_coll_instance *inst;         /* rank 0: all, sorted */
    size_t n_inst;
    tlm_coll_unmatched *unm;         /* rank 0: all, sorted */
    size_t n_unm;
    tlm_coll_clock *clk;             /* rank 0 */
    size_t n_clk;
    int64_t *offsets;                /* every rank: offsets[i] is the
                                      * trace of res[i]'s (n_res entries) */
    tlm_coll_straggler_row *strag;   /* rank 0, merged */
    size_t n_strag;
    tlm_coll_cause_row *cause;       /* rank 0, merged: why the straggler
                                      * is late (cause.c) */
    size_t n_cause;
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
    tlm_out_tl_long *tl_long;
    size_t n_tl_long;
    tlm_coll_tl_summary_row *tl_sum;
    size_t n_tl_sum;
    tlm_coll_tl_straggler_row *tl_strag;
    size_t n_tl_strag;
} tlm_mpi_colls;

/* End times of the phases that the report and the last message show. */
enum {
    TLM_MPI_T_READ,
    TLM_MPI_T_CHECK,
    TLM_MPI_T_COLLECTIVES,
    TLM_MPI_T_TABLES,
    TLM_MPI_T_HDF5,
    TLM_MPI_N_T
};

/* The most modules driver.c registers (module.h), and the most phases
 * driver.c runs: setup, read, check, one per module, write, publish. */
#define TLM_MPI_MAX_MODULES 16
#define TLM_MPI_N_PHASES (TLM_MPI_MAX_MODULES + 5)

/* Rows of one per-trace table kept packed (tlm_mpi_rows_pack). */
typedef struct tlm_mpi_packed {
    uint8_t *buf;
    size_t len, cap;
} tlm_mpi_packed;

/* The driver context: everything the phases pass on to each other. */
typedef struct tlm_mpi_ctx {
    MPI_Comm comm;
    int me, np;
    tlm_cli_opts o;
    char cmdline[8192];
    tlm_mpi_setup su;
    tlm_outset out;          /* rank 0: the output set (HDF5 file, report
                              * files), checked in the setup phase,
                              * published in the publish phase */
    tlm_cli_filelist fl;
    int *owner;              /* per file */
    double t0;
    double phase[TLM_MPI_N_T]; /* end of each TLM_MPI_T_* phase (seconds
                                * since t0) */
    double t_launch;         /* before MPI_Init (the clock of t0) */
    double pdur[TLM_MPI_N_PHASES]; /* duration of each finished phase */
    const char *pname[TLM_MPI_N_PHASES]; /* its name; NULL: not shown */
    int cur;                 /* the phase running (index in pdur) */
    double pstart;           /* its start */
    tlm_cli_progress *prog;  /* rank 0's progress display */
    /* local */
    tlm_job_fileres *lres;
    size_t n_lres;
    char **lmsg;             /* the message of each failed lres (malloc),
                              * else NULL; rank 0 fetches the ones it
                              * names (phase_check.c) */
    tlm_coll_record *recs;   /* records of all local traces */
    size_t n_recs;
    tlm_coll_window *wins;   /* their windows (cause.c), until routed */
    size_t n_wins;
    tlm_job_rtabs rt;        /* report table rows of local traces, in
                              * read order (each trace's span); the
                              * ops_unique_args and kernel rows only while
                              * their trace is read, then packed: */
    tlm_mpi_packed pk[3];    /* by TLM_JOB_SPAN_* (UARGS, KERNELS): the
                              * local traces' rows packed (src/util/zrun.h),
                              * each trace's at byte span[k][0] */
    tlm_row_op_merged *mops; /* rank 0: ops merged across ranks */
    size_t n_mops;
    /* global, every rank */
    tlm_job_fileres *res;    /* all files, sorted by trace_rank */
    size_t n_res;
    int64_t world;           /* world size (declared or inferred): the
                              * number written out, never an array size */
    const char *gpn_source;  /* where c->o.gpus_per_node came from
                              * (tlm_job_gpus_per_node; check phase) */
    int64_t nspan;           /* highest trace rank found + 1 (no array is
                              * sized by it: per-trace arrays follow res,
                              * tlm_mpi_rank_pos finds a rank there) */
    uint64_t bytes_read;
    tlm_mpi_colls k;         /* collectives and TraceLens parity tables */
    tlm_job_steps steps;     /* per-step tables */
    tlm_row_finding *find;   /* rank 0: collective findings (write phase,
                              * src/find/find_coll.c) */
    size_t n_find;
    const struct tlm_mpi_module *const *mods; /* the registered modules
                                               * (driver.c, module.h) */
    size_t n_mods;
    void *mstate[TLM_MPI_MAX_MODULES]; /* each module's own state
                                        * (module.h), by its row */
    int say_quiet;           /* --quiet: rank 0 prints only its "error: "
                              * lines (the sink still gets warnings) */
    /* set by tlmpi audit (audit.c) for each of its runs */
    const char *label;       /* messages read "run <label>: ..." */
    char *sink;              /* rank 0: its error and warning lines are
                              * appended here too ("; "-separated) */
    size_t sink_cap;
    /* rank 0, after the report is written: the results it was made of */
    void (*on_results)(void *arg, const tlm_out_results *r);
    void *on_results_arg;
    struct tlm_mpi_mtrace *mt; /* --merged_trace state (mtrace.h) */
} tlm_mpi_ctx;

/* ---- the phases driver.c runs around the modules' (module.h): each
 * returns the status every rank agreed on (rank 0 has printed why when it
 * is not TLM_OK) */
tlm_status tlm_mpi_phase_setup(tlm_mpi_ctx *c);
tlm_status tlm_mpi_phase_read(tlm_mpi_ctx *c);
tlm_status tlm_mpi_phase_check(tlm_mpi_ctx *c);
tlm_status tlm_mpi_phase_write(tlm_mpi_ctx *c);
tlm_status tlm_mpi_phase_publish(tlm_mpi_ctx *c);

/* Indices of the phases: setup, read, check, then one per module
 * (driver.c's table), then write and publish. */
enum { TLM_MPI_PH_SETUP, TLM_MPI_PH_READ, TLM_MPI_PH_CHECK };

/* The number of phases of a run (driver.c). */
int tlm_mpi_n_phases(void);

/* The last phase (publish). */
#define TLM_MPI_PH_PUBLISH (tlm_mpi_n_phases() - 1)

/* Runs phases first..last (indices above) over c in order, stopping at
 * the first that fails; returns its agreed status (TLM_OK when all
 * succeeded). */
tlm_status tlm_mpi_run_phases(tlm_mpi_ctx *c, int first, int last);

/* Hands c the table of modules (driver.c): every context gets it before
 * its first phase (the analysis, each run of an audit). */
void tlm_mpi_ctx_modules(tlm_mpi_ctx *c);

/* Frees everything c holds (not c itself). */
void tlm_mpi_ctx_free(tlm_mpi_ctx *c);

/* Rank 0: the output paths of c->su (out, rdir, cdir set) checked and
 * the HDF5 file staged in c->out (phase_setup.c; every trace of c->fl is
 * an input that no output may be).  Errors as tlm_outset_*. */
tlm_status tlm_mpi_setup_outputs(tlm_mpi_ctx *c, tlm_error *err);

/* ---- shared by the phases */

/* Rank 0 prints "tlmpi: " fmt to stderr; other ranks print nothing. */
void tlm_mpi_say0(const tlm_mpi_ctx *c, const char *fmt, ...)
    TLM_PRINTF(2, 3);

/* Test hook: when the environment variable TLMPI_TEST_STALL names point
 * (a phase, or "commit"), rank 0 says so on stderr and waits 30 s there,
 * so that a test can send a signal at a known point of a run
 * (tests/integration/test_signals.sh). */
void tlm_mpi_test_stall(const tlm_mpi_ctx *c, const char *point);

/* Position of trace rank r in c->res (sorted by rank, ranks distinct once
 * the check phase passed), or -1: a binary search, so that nothing is
 * indexed by the trace rank itself (a rank near 2^24 costs nothing). */
int64_t tlm_mpi_rank_pos(const tlm_mpi_ctx *c, int64_t r);

/* Monotonic clock, seconds. */
double tlm_mpi_now(void);

/* The time of every part of the run up to now, in buf:
 * "init 0.12 + setup 0.00 + read 0.51 + ... + publish 0.02" (init: MPI
 * start and the options; the running phase counts up to now, later ones
 * are left out); *total gets the time since before MPI_Init, which the
 * parts add up to. */
void tlm_mpi_phase_times(const tlm_mpi_ctx *c, double now, char *buf,
                         size_t cap, double *total);

/* Agrees on a local status across every rank (the collective phases'
 * check before each exchange); when the result is not TLM_OK rank 0
 * prints err's message, or says that the collective analysis failed on
 * another rank. */
tlm_status tlm_mpi_check(const tlm_mpi_ctx *c, tlm_status local,
                         const tlm_error *err);

/* tlm_mpi_check() on expr, then a jump to done when the agreed status is
 * not TLM_OK.  Needs c, st (tlm_status) and err (tlm_error *) in scope. */
#define TLM_MPI_CHECK(expr)                                                 \
    do {                                                                    \
        st = tlm_mpi_check(c, (expr), err);                                 \
        if (st != TLM_OK)                                                   \
            goto done;                                                      \
    } while (0)

/* Reads file fi (src/job/job_trace.c) and fills fr; hands the trace to
 * each module's collect hooks (phase_read.c).  A failure is recorded in fr
 * (status, message), never fatal. */
void tlm_mpi_read_trace(tlm_mpi_ctx *c, size_t fi, tlm_job_fileres *fr);

/* After file fr's trace is read: its ops_unique_args and kernel rows
 * moved from c->rt into c->pk, packed (src/util/zrun.h; their span[k][0]
 * then a byte offset there), so that a process keeps about a third of
 * their fixed-width bytes (phase_merge.c).  A failure is recorded in fr,
 * its message in msg (cap bytes). */
void tlm_mpi_rows_pack(tlm_mpi_ctx *c, tlm_job_fileres *fr, char *msg,
                       size_t cap);

/* Frees the per-trace report rows (c->rt, c->pk) once they are written
 * (phase_merge.c; the write phase, before the file image is made). */
void tlm_mpi_rows_free(tlm_mpi_ctx *c);

/* Before reading n_traces traces in this process: with more than one,
 * large blocks are kept out of the heap (glibc: a fixed mmap threshold),
 * so that the peak stays bounded by the largest trace (docs/robustness.md,
 * memory). */
void tlm_mpi_heap_bound(size_t n_traces);

/* Fills *h with rank 0's rows (src/job/job_rows.c; other ranks: none;
 * every array allocated, possibly empty).  Errors: TLM_ENOMEM, agreed
 * over every rank (phase_write.c). */
tlm_status tlm_mpi_h5rows_build(const tlm_mpi_ctx *c, tlm_job_rows *h);

/* Frees every array of k and zeroes it (phase_collectives.c). */
void tlm_mpi_colls_free(tlm_mpi_colls *k);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_DRIVER_H */
