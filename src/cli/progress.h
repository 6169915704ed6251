/*
 * progress.h - rank 0's progress display of the analysis mode (docs/cli.md,
 * "Progress").  Three modes, chosen on rank 0 (tlm_cli_progress_mode):
 *
 *   OFF    nothing (--quiet; stderr not a terminal; every other rank)
 *   TTY    one line on stderr, rewritten in place ("\r", erased with
 *          "\033[K"), shown once the run has taken a second: the phase,
 *          and while reading the traces read / total, MB on disk, MB/s and
 *          the MPI ranks that have read all theirs; erased at the end and
 *          before any other message (tlm_cli_progress_clear)
 *   LINES  plain lines for log files (--progress):
 *            tlmpi: [read] 5/8 traces, 4.6 MB on disk, 230.0 MB/s, 3/4 ranks
 *                   done                          (one line)
 *            tlmpi: [write] done in 0.21 s
 *          the first line at the first trace read, then at most one a
 *          second and one at the last trace; one "done" line per phase
 *
 * No MPI here: the read phase feeds the counts it learns from the
 * progress messages other ranks send it (phase_read.c).
 */
#ifndef TLM_CLI_PROGRESS_H
#define TLM_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TLM_CLI_PROG_OFF, TLM_CLI_PROG_TTY, TLM_CLI_PROG_LINES };

typedef struct tlm_cli_progress {
    int mode;                /* TLM_CLI_PROG_* */
    FILE *out;               /* stderr, or a test's file */
    double t_run;            /* start of the run */
    const char *phase;       /* current phase (static string), or NULL */
    double t_phase;          /* its start */
    double last;             /* last line shown; < 0: none in this phase */
    int drawn;               /* TTY: a line is on the screen */
    int counting;            /* the phase counts traces */
    size_t done, total;      /* traces read / to read */
    uint64_t bytes;          /* bytes on disk of the traces read */
    int ranks_done, ranks;   /* MPI ranks that read all their traces */
} tlm_cli_progress;

/* The mode for these options on this rank: OFF for quiet or rank != 0,
 * LINES for progress, TTY when stderr is a terminal, else OFF. */
int tlm_cli_progress_mode(int quiet, int progress, int rank, int is_tty);

/* Starts the display at time now (seconds, any monotonic origin). */
void tlm_cli_progress_init(tlm_cli_progress *p, int mode, FILE *out,
                           double now);

/* p may be NULL in the calls below (nothing happens). */

/* Ends the current phase (LINES: its "done" line) and starts the phase
 * name (a static string; NULL: no new phase, the end of the run). */
void tlm_cli_progress_phase(tlm_cli_progress *p, const char *name,
                            double now);

/* The read counts so far; shows them when due (force: now, the last). */
void tlm_cli_progress_files(tlm_cli_progress *p, size_t done, size_t total,
                            uint64_t bytes, int ranks_done, int ranks,
                            double now, int force);

/* TTY: erases the line, so that a message can follow on a clean line. */
void tlm_cli_progress_clear(tlm_cli_progress *p);

/* The text of the progress line at time now, without "tlmpi: " or a line
 * end, in buf (cap bytes, truncated). */
void tlm_cli_progress_text(const tlm_cli_progress *p, double now, char *buf,
                           size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* TLM_CLI_PROGRESS_H */
