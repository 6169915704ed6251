/*
 * modules.c - the table of the driver's cross-rank analyses (module.h):
 * one row per module, in the order of their phases.  Adding an analysis is
 * its file (its hooks and its tlm_mpi_module) and its row here
 * (docs/architecture.md, "How to add a cross-rank analysis").
 */
#include "module.h"

static const tlm_mpi_module *const modules[] = {
    &tlm_mpi_mod_collectives, /* records to owners, instances, clocks,
                               * stragglers and their causes, findings */
    &tlm_mpi_mod_timeline,    /* --merged_trace */
    &tlm_mpi_mod_tracelens,   /* TraceLens's collective tables */
    &tlm_mpi_mod_steps,       /* per-step rows and their summary */
    &tlm_mpi_mod_merge,       /* per-trace ops and kernels, ops merged */
    &tlm_mpi_mod_hta,         /* --hta */
};

#define N_MODULES (sizeof modules / sizeof modules[0])
_Static_assert(N_MODULES <= TLM_MPI_MAX_MODULES,
               "TLM_MPI_MAX_MODULES bounds the table");

const tlm_mpi_module *const *tlm_mpi_modules(size_t *n)
{
    *n = N_MODULES;
    return modules;
}

int tlm_mpi_module_on(const tlm_mpi_module *m, const tlm_mpi_ctx *c)
{
    return !m->active || m->active(c);
}
