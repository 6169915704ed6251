/*
 * tlm_format.h - the trace formats tlmpi reads, registered in one table
 * (src/trace/format.c), as Darshan registers its log formats: per format
 * its id (the sniff's verdict, tlm_sniff_format), its stable name, what
 * it holds, where a folder holds it, and its reader's entry points (read
 * a file into the format's model with the reader's defaults, the model's
 * summary, free).  The readers themselves (tlm_trace.h, tlm_rocprof.h,
 * tlm_xplane.h) are unchanged.
 *
 * A trace's format is found once (tlm_format_detect, tlm_format_of_file)
 * and the programs dispatch through rows indexed by the format's id (a
 * command's handler per format), never through if/else chains on it.
 * Adding a format: its reader in src/trace/, its verdict in sniff.c, one
 * row in format.c, then a handler in the rows of the programs that read
 * it (docs/architecture.md, "How to add ... a trace format").
 */
#ifndef TLM_FORMAT_H
#define TLM_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "tlm_common.h"
#include "tlm_sniff.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of format ids, TLM_FORMAT_UNKNOWN (0) included: a program's
 * per-format rows are arrays of this size indexed by the id. */
#define TLM_FORMAT_COUNT 4

/* What every format's model can say about the file it was read from. */
typedef struct tlm_format_summary {
    int gzip;               /* 1: the file was gzip-compressed */
    uint64_t bytes_in;      /* bytes read from the file */
    uint64_t bytes_content; /* bytes of JSON or protobuf (inflated) */
    uint64_t n_records;     /* events, or records (rocprof: dispatches,
                             * copies and API calls) */
} tlm_format_summary;

typedef struct tlm_format {
    int id;              /* tlm_sniff_format */
    const char *name;    /* stable short name: "kineto-json", ... */
    const char *title;   /* in words: "Kineto JSON (PyTorch profiler)" */
    int host_stacks;     /* 1: host call stacks (CPU ops and their
                          * launches): tlmpi tree, diff, replay read it */
    int analysis;        /* 1: the multi-rank analysis reads it */
    /* The file path stands for: path itself when it is not a folder,
     * else the format's file in the folder's layout (out, cap bytes).
     * NULL: the format has no folder layout. */
    tlm_status (*locate)(const char *path, char *out, size_t cap,
                         tlm_error *err);
    /* Reads the file at path with the reader's default options into its
     * model (tlm_trace *, tlm_rocprof *, tlm_xplane *). */
    tlm_status (*read)(const char *path, void **model, tlm_error *err);
    /* The model's summary. */
    void (*summary)(const void *model, tlm_format_summary *out);
    /* Frees a model read by read (NULL allowed). */
    void (*free)(void *model);
} tlm_format;

/* The row of format id; NULL for TLM_FORMAT_UNKNOWN or an id out of
 * range. */
TLM_API const tlm_format *tlm_format_get(int id);

/* The format of the file at path by content, from one sniff (no folder
 * looked into): *id is the sniff's format, TLM_FORMAT_UNKNOWN when no
 * format claims the file (not a trace, or unreadable: the reader that
 * gets it says why).  Returns TLM_OK or TLM_ENOMEM (*id UNKNOWN). */
TLM_API tlm_status tlm_format_of_file(const char *path, int *id);

/* The same for what a command's argument names: a file, or a folder in
 * the layout of a format that has one (tlm_format.locate: a JAX profile
 * folder stands for its XPlane).  Each file is sniffed once.  Returns
 * TLM_OK or TLM_ENOMEM. */
TLM_API tlm_status tlm_format_detect(const char *path, int *id);

#ifdef __cplusplus
}
#endif
#endif /* TLM_FORMAT_H */
