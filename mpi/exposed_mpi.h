/*
 * exposed_mpi.h - each rank's exposed communication split into exposed
 * transfer and exposed waiting, the driver's part
 * (docs/metrics-collectives.md, "Exposed transfer and waiting"): each
 * trace's exposed communication kept while reading, the members' spans
 * (start, end, corrected wait, latency known) routed by the owners to the
 * MPI rank holding each trace, the split computed there
 * (tlm_coll_exposed_split) and shared with every rank into /timeline's
 * exposed_transfer_ns, exposed_waiting_ns, exposed_unknown_ns (exposed.c).
 */
#ifndef TLM_MPI_EXPOSED_MPI_H
#define TLM_MPI_EXPOSED_MPI_H

#include "job.h"
#include "tlmpi/tlm_coll.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tlm_mpi_ctx;

/* The traces read here: their exposed communication (the collectives
 * module's state). */
typedef struct tlm_mpi_exposed {
    struct tlm_mpi_xtrace {
        int32_t trace_rank;
        int64_t *iv;  /* sorted, disjoint [s, e) pairs (ns, records' clock) */
        size_t n;
    } *t;
    size_t n, cap;
} tlm_mpi_exposed;

/* Keeps the exposed communication of the trace in `in` (a collect hook
 * with its tree; a trace without GPU events keeps none) in *x, allocated
 * on first use.  Errors: TLM_ENOMEM. */
tlm_status tlm_mpi_exposed_keep(tlm_mpi_exposed **x,
                                const tlm_job_trace_in *in, tlm_error *err);

/* Collective: the spans sp[0..n) (dest[i]: the MPI rank holding span i's
 * trace) routed to their holders, each kept trace split there, and every
 * trace's split set in c->res[].tl on every rank (a trace with no kept
 * communication: all unknown).  Returns the agreed status. */
tlm_status tlm_mpi_exposed_phase(struct tlm_mpi_ctx *c,
                                 const tlm_mpi_exposed *x,
                                 const tlm_coll_xspan *sp, size_t n,
                                 const int *dest, tlm_error *err);

/* Frees *x and sets it NULL. */
void tlm_mpi_exposed_free(tlm_mpi_exposed **x);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_EXPOSED_MPI_H */
