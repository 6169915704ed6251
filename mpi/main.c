/*
 * main.c - entry point of tlmpi-mpi, the MPI driver: the command line of
 * tlmpi (src/cmd/dispatch.c) with the analysis (analyze.h, driver.c),
 * tlmpi audit and tlmpi compare A.h5 B.h5 run here.  The tlmpi users
 * start (tools/tlmpi_main.c) links neither MPI nor HDF5 and executes this
 * one for those three.
 */
#include "analyze.h"
#include "audit_mpi.h"
#include "cli.h"
#include "compare_runs_mpi.h"

#include "tlm_git.h"

int main(int argc, char **argv)
{
    static const tlm_main_hooks hooks = {tlm_mpi_analyze, tlm_mpi_audit,
                                         tlm_cmd_compare_runs, TLM_GIT_COMMIT};
    return tlm_cmd_main(argc, argv, &hooks);
}
