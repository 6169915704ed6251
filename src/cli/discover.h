/*
 * discover.h - finds the trace files of a job and what their names say
 * about their rank.  Pure POSIX (opendir, glob, regex, stat); no MPI: rank
 * 0 runs it and broadcasts the packed list.
 */
#ifndef TLM_CLI_DISCOVER_H
#define TLM_CLI_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "opts.h"
#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_sniff.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a file's trace rank is decided once its header has been read. */
typedef enum tlm_cli_rank_source {
    /* distributedInfo.rank, else the name (--trace_dir, file arguments) */
    TLM_CLI_RANK_TRACE_FIRST = 0,
    /* the name (pattern '*', --rank_regex), else distributedInfo.rank */
    TLM_CLI_RANK_NAME_FIRST = 1
} tlm_cli_rank_source;

typedef struct tlm_cli_filelist {
    size_t n;
    char **path;          /* n paths, pointing into blob */
    int64_t *size;        /* bytes on disk */
    int64_t *name_rank;   /* rank from the name, -1 if the name has none */
    int32_t *format;      /* per file: the format discovery's sniff found
                           * (tlm_format.h), -1 when not sniffed (the
                           * reader sniffs it); NULL: none sniffed */
    int rank_source;      /* tlm_cli_rank_source */
    char *blob;           /* the paths, NUL-separated */
    size_t blob_len;
    size_t n_skipped;     /* --trace_dir: files skipped as non-traces */
    char *skipped;        /* "a (why), b (why)" (first TLM_CLI_SKIP_LIST,
                           * then "and N more"); malloc'd, NULL if none;
                           * rank 0 only (not packed) */
    size_t n_own;         /* --trace_dir: tlmpi's own outputs left out
                           * (not in skipped); rank 0 only */
    char *lookalike;      /* --trace_dir: "a/, b/", the folders named
                           * like a trace that were not read (also in
                           * skipped); malloc'd, NULL if none; rank 0
                           * only (not packed) */
    int order_ranks;      /* 1: no name has a rank, name_rank[i] is the
                           * sorted order (i); warn if a trace uses it.
                           * rank 0 only (not packed) */
} tlm_cli_filelist;

/* Skipped files named in the note before "and N more". */
#define TLM_CLI_SKIP_LIST 20

/* Deepest folder level --recursive descends into below --trace_dir. */
#define TLM_CLI_MAX_DIR_DEPTH 32

/* Finds the files the options name: --trace_dir (every regular file, any
 * name, symlinks to files followed, whose content tlm_trace_sniff calls a
 * trace; with --recursive also in subfolders (symlinks to folders not
 * followed, TLM_CLI_MAX_DIR_DEPTH levels); other files are listed in
 * n_skipped / skipped with the reason, an error with --strict; the list
 * is made by tlm_cli_filelist_from_traces),
 * --trace_pattern (with --world_size:
 * rank i = the pattern with '*' := i, a missing file is an error unless
 * --allow_missing; without: the files matching the pattern as a glob whose
 * '*' part is an integer), --trace_glob (glob(3), sorted) or the positional
 * files.  Name ranks come from --rank_regex (default TraceLens's), searched
 * in the base name first, then in the whole path.
 * Errors: TLM_ENOTFOUND (no files, missing files: the message names them),
 * TLM_EINVAL (bad regex), TLM_EIO, TLM_ENOMEM.  On success the caller frees
 * *out with tlm_cli_filelist_free(). */
tlm_status tlm_cli_discover(const tlm_cli_opts *opts, tlm_cli_filelist *out,
                            tlm_error *err);

/* A file list from paths already known to be traces (paths[0..n), not
 * kept): sorted by path, sizes from stat(2), rank_source
 * TLM_CLI_RANK_TRACE_FIRST, and name ranks decided over the whole set
 * from the paths relative to base (a folder prefix of every path; NULL:
 * the paths as given): when all relative paths have the same non-digit
 * skeleton, the first digit position whose values are pairwise distinct
 * and below max(2n, 1024) ("worker3_step_12.1694128201545.pt.trace.json"
 * -> 3); else o->rank_regex (or TraceLens's default) per file; else, when
 * no path has a rank and n > 1, the sorted order with order_ranks set.
 * o may be NULL (default regex).  Errors: TLM_ENOTFOUND (a path cannot be
 * stat'ed), TLM_EINVAL (not a regular file, bad regex), TLM_ENOMEM.  On
 * success the caller frees *out with tlm_cli_filelist_free(). */
tlm_status tlm_cli_filelist_from_traces(char *const *paths, size_t n,
                                        const char *base,
                                        const tlm_cli_opts *o,
                                        tlm_cli_filelist *out,
                                        tlm_error *err);

/* Whether the file at path (rel: its path below --trace_dir; sn: its
 * sniff) is one of tlmpi's own outputs, by name and content
 * (own_outputs.c): tlmpi.h5, report.md, the CSV sheets, findings.csv,
 * plots/, hta/, a workbook, a merged trace.  Reads at most 16 KiB. */
int tlm_cli_own_output(const char *path, const char *rel,
                       const tlm_sniff *sn);

/* --trace_dir of tlm_cli_discover (discover_dir.c). */
tlm_status tlm_cli_discover_dir(const tlm_cli_opts *o, tlm_cli_filelist *out,
                                tlm_error *err);

/* Sniffs the n files of paths into out[i] as tlm_trace_sniff does (the
 * MPI driver shares them over its processes).  Returns TLM_OK, or
 * TLM_ENOMEM. */
typedef tlm_status (*tlm_cli_sniff_fn)(void *arg, char *const *paths,
                                       size_t n, tlm_sniff *out);

/* tlm_cli_discover and tlm_cli_discover_dir with --trace_dir's files
 * sniffed by fn(arg, ...) once the folder is walked (fn NULL: here, one
 * after another); the same list either way. */
tlm_status tlm_cli_discover_with(const tlm_cli_opts *o, tlm_cli_sniff_fn fn,
                                 void *arg, tlm_cli_filelist *out,
                                 tlm_error *err);
tlm_status tlm_cli_discover_dir_with(const tlm_cli_opts *o,
                                     tlm_cli_sniff_fn fn, void *arg,
                                     tlm_cli_filelist *out, tlm_error *err);

/* Name ranks of n paths by the shared-skeleton rule above: fills rank[]
 * and returns 1, or returns 0 (rank[] untouched) when no digit position
 * qualifies.  Pure; exposed for tests. */
int tlm_cli_skeleton_ranks(const char *const *rel, size_t n, int64_t *rank);

/* Rank in a file name by regex (POSIX ERE), the given group.  Base name
 * first, then the whole path.  Returns the rank or -1. */
int64_t tlm_cli_name_rank(const char *path, const void *compiled_regex,
                          int group);

void tlm_cli_filelist_free(tlm_cli_filelist *fl);

/* Packs the list into one malloc'd buffer (for MPI_Bcast) and back.
 * unpack copies; the buffer stays the caller's. */
tlm_status tlm_cli_filelist_pack(const tlm_cli_filelist *fl, char **buf,
                                 size_t *len);
tlm_status tlm_cli_filelist_unpack(const char *buf, size_t len,
                                   tlm_cli_filelist *out, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_CLI_DISCOVER_H */
