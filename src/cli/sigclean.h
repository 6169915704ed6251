/*
 * sigclean.h - what tlmpi does on SIGINT, SIGTERM, SIGHUP and SIGPIPE:
 * remove the temporaries of the output sets in progress and exit with
 * 128 + the signal number (the shell's convention).  SIGXFSZ is ignored,
 * so that a write beyond a file-size limit (ulimit -f, a quota) fails with
 * EFBIG and is reported like any other write error instead of killing the
 * process.  No MPI calls.
 */
#ifndef TLM_CLI_SIGCLEAN_H
#define TLM_CLI_SIGCLEAN_H

#include "tlmpi/tlm_outset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the handlers (once per process; later calls do nothing). */
void tlm_cli_signals_install(void);

/* The handlers remove s's temporaries until it is untracked.  At most 4
 * sets at a time (a fifth is not tracked: returns -1). */
int tlm_cli_signals_track(tlm_outset *s);
void tlm_cli_signals_untrack(tlm_outset *s);

#ifdef __cplusplus
}
#endif
#endif /* TLM_CLI_SIGCLEAN_H */
