/*
 * ctx.c - what every phase and module of the driver shares about its
 * context (driver.h): rank 0's messages (prefixed for an audit's run and
 * collected in its sink), the status agreement before each collective
 * step, the clock and the times line of the phases, the test stall, the
 * heap bound of a process reading several traces; and the agreement
 * itself (tlm_mpi_agree, exchange.h: an all-reduce of the status), which
 * exchange.c's transfers also run before they move records.
 */
#include "driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "exchange.h"

/* The highest status of every rank (MPI_MAX all-reduce); TLM_EMPI when
 * the all-reduce itself fails. */
tlm_status tlm_mpi_agree(tlm_status st, MPI_Comm comm)
{
    int in = (int)st, out = 0;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return TLM_EMPI;
    return (tlm_status)out;
}

/* Appends an error or warning line to a run's reason (audit). */
static void sink_add(char *sink, size_t cap, const char *line)
{
    if (strncmp(line, "error: ", 7) && strncmp(line, "warning: ", 9))
        return;
    size_t len = strlen(sink);
    if (len + 8 >= cap)
        return;
    snprintf(sink + len, cap - len, "%s%s", len ? "; " : "", line);
    if (strlen(sink) + 1 >= cap) /* cut: say so */
        memcpy(sink + cap - 5, "...", 4);
}

void tlm_mpi_say0(const tlm_mpi_ctx *c, const char *fmt, ...)
{
    if (c->me != 0)
        return;
    if (c->prog)
        tlm_cli_progress_clear(c->prog);
    char msg[2048], esc[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tlm_escape_ctrl(esc, sizeof esc, msg);
    if (c->sink)
        sink_add(c->sink, c->sink_cap, esc);
    if (c->say_quiet && strncmp(esc, "error: ", 7) != 0)
        return;
    if (c->label)
        fprintf(stderr, "tlmpi: run %s: %s\n", c->label, esc);
    else
        fprintf(stderr, "tlmpi: %s\n", esc);
    fflush(stderr);
}

void tlm_mpi_test_stall(const tlm_mpi_ctx *c, const char *point)
{
    const char *want = getenv("TLMPI_TEST_STALL");
    if (c->me != 0 || !want || strcmp(want, point) != 0)
        return;
    fprintf(stderr, "tlmpi: test stall before %s\n", point);
    fflush(stderr);
    for (int i = 0; i < 300; i++) { /* 30 s at most; a signal ends it */
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
}

double tlm_mpi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

tlm_status tlm_mpi_check(const tlm_mpi_ctx *c, tlm_status local,
                         const tlm_error *err)
{
    tlm_status st = tlm_mpi_agree(local, c->comm);
    if (st == TLM_OK)
        return st;
    if (err->code != TLM_OK) {
        char msg[800];
        tlm_mpi_say0(c, "error: %s", tlm_error_format(err, msg, sizeof msg));
    } else {
        tlm_mpi_say0(c, "error: collective analysis failed on another rank "
                        "(%s)", tlm_status_str(st));
    }
    return st;
}

void tlm_mpi_phase_times(const tlm_mpi_ctx *c, double now, char *buf,
                         size_t cap, double *total)
{
    /* the phases run back to back: the first began at pstart less the
     * finished ones */
    double finished = 0;
    for (int i = 0; i < c->cur; i++)
        finished += c->pdur[i];
    double first = c->cur >= 0 ? c->pstart - finished : now;
    int w = snprintf(buf, cap, "init %.2f", first - c->t_launch);
    size_t len = w > 0 && (size_t)w < cap ? (size_t)w : 0;
    for (int i = 0; i <= c->cur && len < cap; i++) {
        if (!c->pname[i]) /* a module that takes no part: not shown */
            continue;
        double d = i < c->cur ? c->pdur[i] : now - c->pstart;
        w = snprintf(buf + len, cap - len, " + %s %.2f", c->pname[i], d);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    *total = now - c->t_launch;
}

void tlm_mpi_heap_bound(size_t n_traces)
{
#ifdef __GLIBC__
    /* glibc raises its mmap threshold to the largest block freed (up to
     * 32 MiB); the big arrays of the next trace then come from the heap,
     * where the blocks one trace leaves (its records and rows) keep the
     * pages around them mapped, and the peak grows with every trace read.
     * A fixed threshold keeps every block over 4 MiB mmapped and returned
     * when freed.  It costs page faults, so only where a process reads
     * several traces. */
    if (n_traces > 1)
        mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
#else
    (void)n_traces;
#endif
}
