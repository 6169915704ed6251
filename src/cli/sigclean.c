/*
 * sigclean.c - signal handlers that remove the temporaries of the output
 * sets in progress (sigclean.h).
 */
#define _GNU_SOURCE 1
#include "sigclean.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#define N_TRACKED 4

static tlm_outset *volatile tracked[N_TRACKED];
static volatile sig_atomic_t installed;

/* Removes the tracked sets' temporaries, exits 128 + sig (only
 * async-signal-safe calls). */
static void on_signal(int sig)
{
    for (int i = 0; i < N_TRACKED; i++) {
        tlm_outset *s = tracked[i];
        if (s)
            tlm_outset_unlink_tmps(s);
    }
    _exit(128 + sig);
}

void tlm_cli_signals_install(void)
{
    if (installed)
        return;
    installed = 1;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGXFSZ, SIG_IGN);
}

int tlm_cli_signals_track(tlm_outset *s)
{
    for (int i = 0; i < N_TRACKED; i++)
        if (!tracked[i]) {
            tracked[i] = s;
            return 0;
        }
    return -1;
}

void tlm_cli_signals_untrack(tlm_outset *s)
{
    for (int i = 0; i < N_TRACKED; i++)
        if (tracked[i] == s)
            tracked[i] = NULL;
}
