/*
 * slip.h - slips of the single-trace commands answered with the fix: an
 * unknown option gets the closest option of the command's usage ("did you
 * mean"), a folder given where a trace file is expected names --trace_dir.
 */
#ifndef TLM_SLIP_H
#define TLM_SLIP_H

#include <stdio.h>

/* Prints "tlmpi CMD: unknown option OPT; did you mean `--x`? (see tlmpi
 * CMD --help)" on stderr, the suggestion taken from what usage prints
 * (left out when no option is close). */
void tlm_cmd_unknown_opt(const char *cmd, const char *opt,
                         void (*usage)(FILE *));

/* 1 (after printing why, naming --trace_dir) when path is a folder where
 * command cmd wants one trace file; 0 otherwise (absent paths included:
 * the reader's own error names them). */
int tlm_cmd_trace_is_folder(const char *cmd, const char *path);

#endif
