/*
 * tlm_rocprof.h - streaming reader for rocprofv3 JSON
 * (`rocprofv3 --output-format json`, the rocprofiler-sdk tool's layout),
 * plain or gzip-compressed (by magic bytes, as tlm_trace.h).
 *
 * The document is one object whose key "rocprofiler-sdk-tool" holds an
 * array of tool records (or one record); the first record is read, as
 * TraceLens does, later ones are skipped.  From that record:
 *   - metadata: pid, init_time, fini_time (ns), node.hostname;
 *   - agents: id.handle, type (2 or "GPU" = GPU), name ("gfx942"),
 *     product_name, node_id;
 *   - kernel_symbols: kernel_id -> name (truncated_kernel_name, else
 *     formatted_kernel_name, else kernel_name: TraceLens's choice);
 *   - buffer_records (REQUIRED: a file without it is refused, never read
 *     as an empty trace): kernel_dispatch, memory_copy, hip_api and
 *     hsa_api arrays (each optional); every other key is skipped.
 * Nothing else is kept (callback records, counters, strings, code
 * objects are skipped by a streaming scanner).  The input is read in
 * fixed chunks through the same instream as the Kineto reader, tokenized
 * by a pull lexer; there is never a DOM and never the whole file in
 * memory; what is kept is a fixed-size record per dispatch, copy and API
 * call, plus interned names.
 *
 * Errors (tlm_error: file, byte offset in the decompressed JSON, what was
 * being read, e.g. "buffer_records.kernel_dispatch[12].start_timestamp:
 * expected an integer"): TLM_EFORMAT (malformed JSON, invalid UTF-8),
 * TLM_ESCHEMA (a required section or field missing, a wrong type, an end
 * before its start), TLM_ELIMIT (a string or nesting past the bounds),
 * TLM_EGZIP, TLM_EIO, TLM_ENOMEM.
 *
 * Ownership: a tlm_rocprof owns every record and string it returns;
 * tlm_rocprof_free() releases all.  Not thread-safe per object.
 */
#ifndef TLM_ROCPROF_H
#define TLM_ROCPROF_H

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel dispatch (buffer_records.kernel_dispatch[i]). */
typedef struct tlm_rp_kernel {
    int64_t start, end;        /* ns: start_timestamp, end_timestamp */
    int64_t grid[3], block[3]; /* dispatch_info grid_size, workgroup_size
                                * (1 when absent, as TraceLens) */
    int64_t kernel_id, dispatch_id;
    int64_t agent;             /* dispatch_info.agent_id.handle (0) */
    int64_t queue;             /* dispatch_info.queue_id.handle (0) */
    int64_t stream;            /* stream_id.handle (0) */
    int64_t thread_id;         /* (0) */
    int64_t corr;              /* correlation_id.internal (0) */
    uint32_t name;             /* interned kernel name */
    uint32_t pad_;
} tlm_rp_kernel;

/* One memory copy (buffer_records.memory_copy[i]). */
typedef struct tlm_rp_copy {
    int64_t start, end;  /* ns */
    int64_t bytes;       /* (0) */
    int64_t src_agent, dst_agent, stream, thread_id, corr, operation;
} tlm_rp_copy;

/* One HIP or HSA API call (buffer_records.hip_api / hsa_api). */
typedef struct tlm_rp_api {
    int64_t start, end;  /* ns */
    int64_t thread_id, corr, operation;
    int32_t hsa;         /* 0: hip_api, 1: hsa_api */
    int32_t pad_;
} tlm_rp_api;

typedef struct tlm_rp_agent {
    int64_t handle;      /* id.handle */
    int64_t type;        /* 1 CPU, 2 GPU (a "GPU" string reads as 2) */
    int64_t node_id;     /* -1 when absent */
    uint32_t name;       /* interned "name" (e.g. "gfx942"), 0 absent */
    uint32_t product;    /* interned "product_name", 0 absent */
} tlm_rp_agent;

typedef struct tlm_rp_meta {
    int64_t pid;               /* -1 when absent */
    int64_t init_time;         /* ns; valid when has_times & 1 */
    int64_t fini_time;         /* ns; valid when has_times & 2 */
    int has_times;
    uint32_t hostname;         /* interned, 0 when absent */
    uint64_t bytes_in;         /* bytes read from the file */
    uint64_t bytes_json;       /* bytes of JSON tokenized */
    int gzip;                  /* input was gzip */
    uint32_t gzip_members;     /* gzip members inflated */
    uint32_t n_tools;          /* records in rocprofiler-sdk-tool */
    uint64_t n_fast;           /* buffer records read whole by the fast
                                * path (the rest token by token; the
                                * records are the same either way) */
} tlm_rp_meta;

typedef struct tlm_rocprof tlm_rocprof;

typedef struct tlm_rocprof_opts {
    size_t chunk_size;      /* bytes read / inflated per step; 0 = 1 MiB */
    size_t max_string;      /* longest string, bytes; 0 = 16 MiB */
    unsigned max_depth;     /* JSON nesting bound; 0 = 64 */
    const tlm_alloc *alloc; /* NULL = default */
} tlm_rocprof_opts;

/* Reads the rocprofv3 JSON at path.  opts may be NULL (defaults).  On
 * success *out is new, freed with tlm_rocprof_free(); on failure *out is
 * NULL and err (may be NULL) says why. */
TLM_API tlm_status tlm_rocprof_read_file(const char *path,
                                         const tlm_rocprof_opts *opts,
                                         tlm_rocprof **out, tlm_error *err);

/* Same from memory (name for messages, may be NULL; data not kept). */
TLM_API tlm_status tlm_rocprof_read_mem(const void *data, size_t size,
                                        const char *name,
                                        const tlm_rocprof_opts *opts,
                                        tlm_rocprof **out, tlm_error *err);

/* NULL allowed. */
TLM_API void tlm_rocprof_free(tlm_rocprof *rp);

/* The records in file order; *n gets the count (arrays owned by rp). */
TLM_API const tlm_rp_kernel *tlm_rocprof_kernels(const tlm_rocprof *rp,
                                                 size_t *n);
TLM_API const tlm_rp_copy *tlm_rocprof_copies(const tlm_rocprof *rp,
                                              size_t *n);
TLM_API const tlm_rp_api *tlm_rocprof_apis(const tlm_rocprof *rp, size_t *n);
TLM_API const tlm_rp_agent *tlm_rocprof_agents(const tlm_rocprof *rp,
                                               size_t *n);
TLM_API const tlm_rp_meta *tlm_rocprof_meta(const tlm_rocprof *rp);

/* Interned string by id (0 is ""); *len may be NULL. */
TLM_API const char *tlm_rocprof_str(const tlm_rocprof *rp, uint32_t id,
                                    size_t *len);

/* The GPU architecture: the name ("gfx942") of the first GPU agent whose
 * name starts with "gfx", else NULL.  *product (may be NULL) gets that
 * agent's product_name ("" when absent). */
TLM_API const char *tlm_rocprof_gpu_arch(const tlm_rocprof *rp,
                                         const char **product);

#ifdef __cplusplus
}
#endif
#endif /* TLM_ROCPROF_H */
