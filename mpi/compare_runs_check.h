/*
 * compare_runs_check.h - a run file's dataset checked before `tlmpi
 * compare` reads it (compare_runs_check.c).
 */
#ifndef TLM_MPI_COMPARE_RUNS_CHECK_H
#define TLM_MPI_COMPARE_RUNS_CHECK_H

#include <hdf5.h>

#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_table.h"

/* Checks dataset ds (table t of the file path, file_size bytes): its
 * type against t's columns, its shape, its storage and filters, and that
 * its rows fit in what it stores.  *rows its rows when TLM_OK.  Errors:
 * TLM_EFORMAT naming path, the dataset and what is wrong. */
/* 1 when col of t may be absent from a run file (an older tlmpi's). */
int tlm_cr_optional_col(const tlm_rowtab *t, const char *col);

tlm_status tlm_cr_check_dataset(hid_t ds, const tlm_rowtab *t,
                                const char *path, hsize_t file_size,
                                hsize_t *rows, tlm_error *err);

#endif
