/*
 * module.h - the cross-rank analyses of the driver as modules, registered
 * in one table (driver.c's modules[], handed to every context as
 * tlm_mpi_ctx.mods), as Darshan registers its modules with
 * darshan_module_funcs.  Each analysis that runs per rank, exchanges and
 * merges is one module: a row of hooks the driver calls at its points:
 *
 *   after a trace is read   on_tree (its call tree and report), on_trace
 *                           (its events and collective records): collect
 *   the exchange            exchange: one phase of the driver, between the
 *                           check phase and the write phase, in table order
 *   the write phase         h5_tables (datasets of tables.h, written in the
 *                           file's order), h5_write (groups of its own)
 *   the publish phase       results (what rank 0's report.md and CSVs
 *                           show), stage (files of its own in the output
 *                           set)
 *   cleanup                 free
 *
 * Every hook may be NULL.  A module whose active() says no takes no part
 * in the run: none of its hooks is called and its phase is neither run
 * nor shown.  A hook that ends in a collective call agrees on the status
 * first (tlm_mpi_check), so that every rank takes the same branch.
 * "How to add a cross-rank analysis" in docs/architecture.md.
 */
#ifndef TLM_MPI_MODULE_H
#define TLM_MPI_MODULE_H

#include <hdf5.h>

#include "driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One dataset of tables.h that a module writes: this rank's rows. */
typedef struct tlm_mpi_dataset {
    const tlm_rowtab *t;
    const void *rows;
    size_t n;
    int per_trace;   /* rows of the traces read here, in segments: 1 sorted
                      * by trace rank; 2 + k: rows is a table of c->rt,
                      * each local trace's rows at its span[k] (read
                      * order, not copied into trace-rank order) */
} tlm_mpi_dataset;

/* The most datasets of tables.h one run writes. */
#define TLM_MPI_MAX_DATASETS 32

/* A module's private state: *st is its slot in tlm_mpi_ctx (NULL at the
 * start; freed by its free hook). */
typedef struct tlm_mpi_module {
    const char *name;   /* its phase in the progress and the times line */
    int mark;           /* TLM_MPI_T_* slot of its phase's end, or -1 */
    int (*active)(const tlm_mpi_ctx *c);
    tlm_status (*on_tree)(tlm_mpi_ctx *c, void **st,
                          const tlm_job_trace_in *in, tlm_error *err);
    tlm_status (*on_trace)(tlm_mpi_ctx *c, void **st,
                           const tlm_job_trace_in *in, tlm_error *err);
    /* its phase: returns the status every rank agreed on (rank 0 has said
     * why when it is not TLM_OK); NULL: the module has no phase */
    tlm_status (*exchange)(tlm_mpi_ctx *c, void **st);
    /* appends its datasets to sets (*n of them so far; every rank the
     * same list); h: rank 0's rows (src/job/job_rows.c).  A local status: the
     * write phase agrees on it */
    tlm_status (*h5_tables)(tlm_mpi_ctx *c, void **st, tlm_job_rows *h,
                            tlm_mpi_dataset *sets, size_t *n);
    /* writes groups of its own after the tables (every rank calls it) */
    tlm_status (*h5_write)(tlm_mpi_ctx *c, void **st, hid_t f,
                           tlm_error *err);
    void (*results)(const tlm_mpi_ctx *c, void *const *st,
                    tlm_out_results *r);
    tlm_status (*stage)(tlm_mpi_ctx *c, void **st, tlm_error *err);
    void (*free)(tlm_mpi_ctx *c, void **st);
} tlm_mpi_module;

/* Is module m taking part in this run (its active hook, or always)? */
static inline int tlm_mpi_module_on(const tlm_mpi_module *m,
                                    const tlm_mpi_ctx *c)
{
    return !m->active || m->active(c);
}

/* ---- the rows of driver.c's table: each module's file defines its own */
extern const tlm_mpi_module tlm_mpi_mod_collectives; /* phase_collectives.c */
extern const tlm_mpi_module tlm_mpi_mod_timeline;    /* phase_timeline.c */
extern const tlm_mpi_module tlm_mpi_mod_tracelens;   /* phase_tracelens.c */
extern const tlm_mpi_module tlm_mpi_mod_steps;       /* phase_steps.c */
extern const tlm_mpi_module tlm_mpi_mod_merge;       /* phase_merge.c */
extern const tlm_mpi_module tlm_mpi_mod_hta;         /* phase_hta.c */

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_MODULE_H */
