/*
 * xplane_cli.h - XPlane (JAX) traces in `tlmpi report` and `tlmpi
 * inspect` (xplane_cli.c): the commands find a trace's format
 * (tlm_format_detect) and hand XPlane files here through their rows.
 */
#ifndef TLM_CMD_XPLANE_CLI_H
#define TLM_CMD_XPLANE_CLI_H

#include "tlmpi/tlm_outset.h"

/* `tlmpi report` of an XPlane: the five JAX sheets staged in set, one CSV
 * per sheet in dir and/or the workbook xlsx (either may be NULL).  compat:
 * TLM_COMPAT_* bits.  Returns the exit status (0, or 1 after a message
 * naming the file; nothing staged is left). */
int tlm_cli_xplane_report(const char *path, unsigned compat, tlm_outset *set,
                          const char *dir, const char *xlsx, int quiet);

/* `tlmpi inspect` of an XPlane: planes, lines, events, MB/s.  0 or 1. */
int tlm_cli_xplane_inspect(const char *path);

#endif
