/*
 * assign.h - balances trace files over MPI ranks by size.
 */
#ifndef TLM_CLI_ASSIGN_H
#define TLM_CLI_ASSIGN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest-processing-time-first assignment: files in order of decreasing
 * size (ties: lower index first) each go to the least-loaded of nprocs
 * ranks (ties: lower rank).  owner[i] receives the rank of file i.  The
 * result depends only on (sizes, n, nprocs), so every rank computes the
 * same assignment without communication.  With nprocs > n, ranks n.. stay
 * idle.  Returns 0, or -1 when out of memory or nprocs < 1. */
int tlm_cli_assign(const int64_t *sizes, size_t n, int nprocs, int *owner);

#ifdef __cplusplus
}
#endif
#endif /* TLM_CLI_ASSIGN_H */
