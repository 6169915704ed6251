/*
 * progress.c - rank 0's progress line or lines (progress.h): a terminal
 * gets one line rewritten in place, a log file (--progress) plain lines.
 * Everything here is plain stdio on rank 0; the counts come from the read
 * phase.
 */
#include "progress.h"

#include <string.h>

/* TTY: how long the run goes before the line appears, and how often it is
 * redrawn; LINES: at most one counts line per LINES_EVERY seconds. */
#define TTY_AFTER 1.0
#define TTY_EVERY 0.1
#define LINES_EVERY 1.0

int tlm_cli_progress_mode(int quiet, int progress, int rank, int is_tty)
{
    if (quiet || rank != 0)
        return TLM_CLI_PROG_OFF;
    if (progress)
        return TLM_CLI_PROG_LINES;
    return is_tty ? TLM_CLI_PROG_TTY : TLM_CLI_PROG_OFF;
}

void tlm_cli_progress_init(tlm_cli_progress *p, int mode, FILE *out,
                           double now)
{
    memset(p, 0, sizeof *p);
    p->mode = mode;
    p->out = out;
    p->t_run = now;
    p->t_phase = now;
    p->last = -1.0;
}

void tlm_cli_progress_text(const tlm_cli_progress *p, double now, char *buf,
                           size_t cap)
{
    const char *ph = p->phase ? p->phase : "done";
    double el = now - p->t_phase;
    if (!p->counting) {
        snprintf(buf, cap, "[%s] %.1f s", ph, el);
        return;
    }
    double mb = (double)p->bytes / 1e6;
    snprintf(buf, cap,
             "[%s] %zu/%zu traces, %.1f MB on disk, %.1f MB/s, %d/%d ranks "
             "done",
             ph, p->done, p->total, mb, el > 0 ? mb / el : 0.0,
             p->ranks_done, p->ranks);
}

/* Rewrites the terminal line in place ('\r'). */
static void draw(tlm_cli_progress *p, double now)
{
    char text[256];
    tlm_cli_progress_text(p, now, text, sizeof text);
    if (p->mode == TLM_CLI_PROG_TTY) {
        fprintf(p->out, "\rtlmpi: %s\033[K", text);
        p->drawn = 1;
    } else {
        fprintf(p->out, "tlmpi: %s\n", text);
    }
    fflush(p->out);
    p->last = now;
}

void tlm_cli_progress_clear(tlm_cli_progress *p)
{
    if (!p || p->mode != TLM_CLI_PROG_TTY || !p->drawn)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->drawn = 0;
}

void tlm_cli_progress_phase(tlm_cli_progress *p, const char *name,
                            double now)
{
    if (!p)
        return;
    if (p->mode == TLM_CLI_PROG_LINES && p->phase && name) {
        fprintf(p->out, "tlmpi: [%s] done in %.2f s\n", p->phase,
                now - p->t_phase);
        fflush(p->out);
    }
    p->phase = name;
    p->t_phase = now;
    p->last = -1.0;
    p->counting = 0;
    if (!name)
        tlm_cli_progress_clear(p);
    else if (p->mode == TLM_CLI_PROG_TTY && now - p->t_run >= TTY_AFTER)
        draw(p, now);
}

void tlm_cli_progress_files(tlm_cli_progress *p, size_t done, size_t total,
                            uint64_t bytes, int ranks_done, int ranks,
                            double now, int force)
{
    if (!p)
        return;
    p->counting = 1;
    p->done = done;
    p->total = total;
    p->bytes = bytes;
    p->ranks_done = ranks_done;
    p->ranks = ranks;
    if (p->mode == TLM_CLI_PROG_OFF)
        return;
    int due;
    if (p->mode == TLM_CLI_PROG_TTY)
        due = now - p->t_run >= TTY_AFTER &&
              (force || p->last < 0 || now - p->last >= TTY_EVERY);
    else
        due = force || p->last < 0 || now - p->last >= LINES_EVERY;
    if (due)
        draw(p, now);
}
