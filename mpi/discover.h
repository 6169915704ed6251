/*
 * discover.h - finds the trace files of a job and what their names say
 * about their rank.  Pure POSIX (opendir, glob, regex, stat); no MPI: rank
 * 0 runs it and broadcasts the packed list.
 */
#ifndef TLM_MPI_DISCOVER_H
#define TLM_MPI_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "opts.h"
#include "tlmpi/tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a file's trace rank is decided once its header has been read. */
typedef enum tlm_mpi_rank_source {
    /* distributedInfo.rank, else the name (--trace_dir, file arguments) */
    TLM_MPI_RANK_TRACE_FIRST = 0,
    /* the name (pattern '*', --rank_regex), else distributedInfo.rank */
    TLM_MPI_RANK_NAME_FIRST = 1
} tlm_mpi_rank_source;

typedef struct tlm_mpi_filelist {
    size_t n;
    char **path;          /* n paths, pointing into blob */
    int64_t *size;        /* bytes on disk */
    int64_t *name_rank;   /* rank from the name, -1 if the name has none */
    int rank_source;      /* tlm_mpi_rank_source */
    char *blob;           /* the paths, NUL-separated */
    size_t blob_len;
    size_t n_skipped;     /* --trace_dir: JSON files skipped as non-traces */
    char skipped[256];    /* their names, comma-separated (truncated) */
} tlm_mpi_filelist;

/* Finds the files the options name: --trace_dir (every regular *.json /
 * *.json.gz file whose name contains "trace" (any case) or matches the rank
 * regex, sorted by name; other JSON files, e.g. ground_truth.json or a
 * config, are skipped and listed in n_skipped / skipped),
 * --trace_pattern (with --world_size:
 * rank i = the pattern with '*' := i, a missing file is an error unless
 * --allow_missing; without: the files matching the pattern as a glob whose
 * '*' part is an integer), --trace_glob (glob(3), sorted) or the positional
 * files.  Name ranks come from --rank_regex (default TraceLens's), searched
 * in the base name first, then in the whole path.
 * Errors: TLM_ENOTFOUND (no files, missing files: the message names them),
 * TLM_EINVAL (bad regex), TLM_EIO, TLM_ENOMEM.  On success the caller frees
 * *out with tlm_mpi_filelist_free(). */
tlm_status tlm_mpi_discover(const tlm_mpi_opts *opts, tlm_mpi_filelist *out,
                            tlm_error *err);

/* Rank in a file name by regex (POSIX ERE), the given group.  Base name
 * first, then the whole path.  Returns the rank or -1. */
int64_t tlm_mpi_name_rank(const char *path, const void *compiled_regex,
                          int group);

void tlm_mpi_filelist_free(tlm_mpi_filelist *fl);

/* Packs the list into one malloc'd buffer (for MPI_Bcast) and back.
 * unpack copies; the buffer stays the caller's. */
tlm_status tlm_mpi_filelist_pack(const tlm_mpi_filelist *fl, char **buf,
                                 size_t *len);
tlm_status tlm_mpi_filelist_unpack(const char *buf, size_t len,
                                   tlm_mpi_filelist *out, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_MPI_DISCOVER_H */
