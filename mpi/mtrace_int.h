/*
 * mtrace_int.h - what the parts of phase_timeline.c share: the merged
 * trace's state in one run's context (tlm_mpi_ctx.mt).
 */
#ifndef TLM_MPI_MTRACE_INT_H
#define TLM_MPI_MTRACE_INT_H

#include <stdio.h>

#include "driver.h"
#include "tlmpi/tlm_mtrace.h"

/* One trace's records in the part file: [from, to). */
typedef struct tlm_mpi_mtrace_seg {
    int32_t rank;
    uint64_t from, to;
} tlm_mpi_mtrace_seg;

typedef struct tlm_mpi_mtrace {
    tlm_mtrace_filter filter;
    FILE *part;              /* this process's part file (unlinked) */
    uint64_t part_bytes;
    tlm_mpi_mtrace_seg *seg; /* its traces, in reading order */
    size_t n_seg, cap_seg;
    tlm_mtrace_anchors an;   /* their collectives' anchors */
    char path[TLM_MPI_PATH_CAP]; /* rank 0: the final name */
    char tmp[TLM_MPI_PATH_CAP];  /* rank 0: its staged temporary */
} tlm_mpi_mtrace;

#endif /* TLM_MPI_MTRACE_INT_H */
