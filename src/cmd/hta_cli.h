/*
 * hta_cli.h - the --hta options (`tlmpi report` and the analysis mode)
 * and the single-trace run of HTA's tables (docs/hta.md).
 */
#ifndef TLM_CMD_HTA_CLI_H
#define TLM_CMD_HTA_CLI_H

#include "tlmpi/tlm_hta.h"

typedef struct tlm_cli_hta {
    int on;            /* --hta */
    int any;           /* some --hta_* option was given */
    int64_t rank;      /* --hta_rank; -1 = the lowest rank */
    tlm_hta_opts o;
} tlm_cli_hta;

void tlm_cli_hta_init(tlm_cli_hta *h);
/* Consumes argv[*i] (and its value) when it is an HTA option: 1, 0 when
 * it is not one, -1 after printing why (usage error). */
int tlm_cli_hta_opt(const char *cmd, int argc, char **argv, int *i,
                    tlm_cli_hta *h);
/* A --hta_* option without --hta: -1 after a message, else 0. */
int tlm_cli_hta_check(const char *cmd, const tlm_cli_hta *h);

/* One trace (`tlmpi report --hta`): its event table (rank from
 * distributedInfo, else 0), the filter and origin of that trace alone,
 * every table.  *out is freed with tlm_hta_result_free. */
tlm_status tlm_cli_hta_single(const tlm_trace *tr, const tlm_cli_hta *h,
                              tlm_hta_result **out, tlm_error *err);

#endif
