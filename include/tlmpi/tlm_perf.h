/*
 * tlm_perf.h - op categorisation, analytical perf models (FLOPs / bytes),
 * GPU architecture table and roofline, after TraceLens
 * ([perfreport] §4.6, 5 and 6).
 *
 * Everything here is a pure function over strings: op names, kernel names
 * and the event's text arguments exactly as the trace reader keeps them
 * (compact JSON: "Input Dims" = "[[4,2048,4096],[4096,4096],[]]",
 * "Input type" = "[\"c10::BFloat16\",\"float\"]", "Concrete Inputs" =
 * "[\"\",\"0.125\",\"False\"]").  Nothing allocates memory the caller must
 * free; results are written into caller-owned structs.  All functions are
 * thread-safe (no global mutable state).
 *
 * Units: FLOPs and bytes are plain counts (double, exact for integers below
 * 2^53); times are microseconds; "MB" columns are MiB (bytes / 1048576),
 * labelled MB as TraceLens does.  docs/metrics-perf.md defines every column.
 */
#ifndef TLM_PERF_H
#define TLM_PERF_H

#include "tlm_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* MARK: - Op categorisation ([perfreport] §5.1)                             */
/* ------------------------------------------------------------------ */

/* TraceLens's categorize_torch_op(): the op category string printed in the
 * "op category" columns ("GEMM", "CONV_fwd", "CONV_bwd", "SDPA_fwd",
 * "SDPA_bwd", "NORM_fwd", "NORM_bwd", "elementwise", "reduce", "triton",
 * "record_param_comms", "multi_tensor_apply", "GroupedGEMM_fwd",
 * "MoE_comm_fwd", ..., or "other").
 *   name               op name (NULL is treated as "").
 *   first_kernel_name  name of the op's first direct kernel (kernel_details
 *                      [0].name, kernels sorted by ts), NULL if it has none.
 * Returns a static string (never NULL). */
TLM_API const char *tlm_op_category(const char *name,
                                    const char *first_kernel_name);

/* ------------------------------------------------------------------ */
/* MARK: - Kernel-name categorisation ([perfreport] §5.2 / 5.3)              */
/* ------------------------------------------------------------------ */

/* X(enum, "label").  Order = priority: the first rule that matches wins
 * (see docs/metrics-perf.md for every pattern). */
#define TLM_KCAT_LIST(X)                            \
    X(TLM_KCAT_COMMUNICATION, "communication")      \
    X(TLM_KCAT_MEMCPY, "memcpy")                    \
    X(TLM_KCAT_MEMSET, "memset")                    \
    X(TLM_KCAT_ATTENTION, "attention")              \
    X(TLM_KCAT_MOE, "MoE")                          \
    X(TLM_KCAT_NORM, "normalization")               \
    X(TLM_KCAT_CONV, "CONV")                        \
    X(TLM_KCAT_GEMM, "GEMM")                        \
    X(TLM_KCAT_SOFTMAX, "softmax")                  \
    X(TLM_KCAT_REDUCE, "reduce")                    \
    X(TLM_KCAT_QUANT, "quantization")               \
    X(TLM_KCAT_ELEMENTWISE, "elementwise")          \
    X(TLM_KCAT_OTHER, "other")

typedef enum tlm_kernel_category {
#define TLM_X_(e, s) e,
    TLM_KCAT_LIST(TLM_X_)
#undef TLM_X_
    TLM_KCAT_COUNT
} tlm_kernel_category;

/* Category of one GPU kernel / memcpy / memset from its name alone
 * (case-insensitive substring rules; NULL -> TLM_KCAT_OTHER). */
TLM_API tlm_kernel_category tlm_kernel_category_of(const char *kernel_name);
/* Static label of a category ("GEMM", "attention", ...); "other" if out of
 * range. */
TLM_API const char *tlm_kernel_category_str(tlm_kernel_category c);

/* TraceLens's is_communication_string: case-insensitive substring "nccl",
 * "rccl" or "cross_device_reduce".  NULL -> 0. */
TLM_API int tlm_kernel_is_communication(const char *kernel_name);

/* ------------------------------------------------------------------ */
/* MARK: - Perf-model sheets                                          */
/* ------------------------------------------------------------------ */

/* Perf-model sheets in TraceLens's emission order ([perfreport] §4.12).
 * X(enum, "sheet name"). */
#define TLM_PERF_SHEET_LIST(X)                              \
    X(TLM_PERF_SHEET_NONE, "")                              \
    X(TLM_PERF_SHEET_GEMM, "GEMM")                          \
    X(TLM_PERF_SHEET_SDPA_FWD, "SDPA_fwd")                  \
    X(TLM_PERF_SHEET_SDPA_BWD, "SDPA_bwd")                  \
    X(TLM_PERF_SHEET_CONV_FWD, "CONV_fwd")                  \
    X(TLM_PERF_SHEET_CONV_BWD, "CONV_bwd")                  \
    X(TLM_PERF_SHEET_INFATTN_FWD, "InferenceAttention_fwd") \
    X(TLM_PERF_SHEET_BINARY, "BinaryElementwise")           \
    X(TLM_PERF_SHEET_ROPE_FWD, "RoPE_fwd")                  \
    X(TLM_PERF_SHEET_UNARY, "UnaryElementwise")             \
    X(TLM_PERF_SHEET_RMSNORM_FWD, "RMSNorm_fwd")            \
    X(TLM_PERF_SHEET_NORM, "Normalization")                 \
    X(TLM_PERF_SHEET_REDUCE_FWD, "Reduce_fwd")              \
    X(TLM_PERF_SHEET_REDUCE_BWD, "Reduce_bwd")

typedef enum tlm_perf_sheet {
#define TLM_X_(e, s) e,
    TLM_PERF_SHEET_LIST(TLM_X_)
#undef TLM_X_
    TLM_PERF_SHEET_COUNT
} tlm_perf_sheet;

/* Sheet name ("GEMM", ...); "" for NONE or out of range. */
TLM_API const char *tlm_perf_sheet_name(tlm_perf_sheet s);

/* 1 if tlmpi has a perf model for this exact op name (TraceLens's
 * op_to_perf_model_class_map restricted to the models tlmpi implements;
 * see docs/metrics-perf.md), or the name is a Triton-compiled op
 * (triton_poi_, triton_red_, triton_per_: modelled only when its args
 * allow, tlm_perf_can_model), else 0. */
TLM_API int tlm_perf_has_model(const char *op_name);

/* The model's own category for a pass (class.category for bwd == 0,
 * class.bwd_category for bwd == 1: "CONV_bwd", "SDPA_bwd", "NORM_bwd" or
 * NULL when the class has none, e.g. every GEMM).  NULL if no model. */
TLM_API const char *tlm_perf_model_category(const char *op_name, int bwd);

/* Which sheet a row of this op lands in, after TraceLens's fwd/bwd
 * shuffling ([perfreport] §4.6):
 *   bwd == 0: the row computed from the op's own kernels (flops()/bytes());
 *   bwd == 1: the row computed from its autograd backward kernels
 *             (flops_bwd()/bytes_bwd()), for ops that have bwd events.
 * TLM_PERF_SHEET_NONE if no model or no row for that pass. */
TLM_API tlm_perf_sheet tlm_perf_sheet_for(const char *op_name, int bwd);

/* ------------------------------------------------------------------ */
/* MARK: - Perf models ([perfreport] §6.2 - 6.7)                             */
/* ------------------------------------------------------------------ */

/* Inputs of one op event.  Every text is the compact JSON of that arg as
 * it appears in the trace, or NULL when the event lacks the arg. */
typedef struct tlm_perf_args {
    const char *name;            /* op name, required */
    const char *input_dims;      /* "Input Dims" */
    const char *input_types;     /* "Input type" */
    const char *input_strides;   /* "Input Strides" */
    const char *concrete_inputs; /* "Concrete Inputs" */
    const char *output_type;     /* "Output type" (reduce ops), or NULL */
    /* Names of the op's kernels in kernel_details order (GEMM transpose
     * param, [perfreport] §5.2); may be NULL when n_kernels == 0. */
    const char *const *kernel_names;
    size_t n_kernels;
    /* The op's annotation text (TraceToTree.apply_annotation: only
     * vllm::unified_attention_with_output ops get one), or NULL (None).
     * Read by the InferenceAttention models (addendum A4.4). */
    const char *annotation;
    /* Inductor's generated wrappers (--inductor_cache_dir), or NULL: the
     * Triton model's fallback for an op its arguments cannot model. */
    const struct tlm_inductor_cache *inductor;
} tlm_perf_args;

/* TraceLens's TritonCompiledPerfModel V1 (--inductor_cache_dir D): the
 * kernels of the Python wrappers torch.compile writes to its Inductor
 * cache, read as text (never run): per `triton_* = async_compile.triton(`
 * definition its "Original ATen: [...]" ops, size_hints [xnumel(, rnumel)]
 * and the pointer dtypes of its signature (docs/report.md, "Triton
 * fallback").  Bounded: regular *.py files only (no symlink followed),
 * 32 levels, 100,000 files, 64 MiB a file, 4 MiB a kernel's source.
 * A file whose size_hints do not parse is left out (as TraceLens); the
 * first definition of a name in path order wins. */
typedef struct tlm_inductor_cache tlm_inductor_cache;

typedef struct tlm_inductor_stats {
    size_t files;        /* *.py files read */
    size_t wrappers;     /* of them, with async_compile.triton */
    size_t kernels;      /* distinct kernel names kept */
    size_t skipped;      /* files left out: too large, unreadable, bad
                            size_hints, beyond the limits */
} tlm_inductor_stats;

/* Reads the folder dir.  Errors: TLM_EIO (dir missing or not a folder:
 * the message names it), TLM_ENOMEM. */
TLM_API tlm_status tlm_inductor_cache_load(const char *dir,
                                           tlm_inductor_cache **out,
                                           tlm_error *err);
TLM_API void tlm_inductor_cache_free(tlm_inductor_cache *c);
TLM_API const tlm_inductor_stats *
tlm_inductor_cache_stats(const tlm_inductor_cache *c);
/* 1 when kernel `name` was found. */
TLM_API int tlm_inductor_cache_has(const tlm_inductor_cache *c,
                                   const char *name);
/* The text of one wrapper file parsed into c (tests, fuzzing): as a file
 * of the folder.  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_inductor_cache_parse(tlm_inductor_cache *c,
                                            const char *text, size_t len);
TLM_API tlm_inductor_cache *tlm_inductor_cache_new(void);

/* has_perf_model of one op event: tlm_perf_has_model(args->name), and for
 * a Triton-compiled op TraceLens's can_model: "Concrete Inputs", "Input
 * Dims" and "Input type" non-empty and some Concrete Input an integer,
 * or its kernel in args->inductor.  NULL -> 0. */
TLM_API int tlm_perf_can_model(const tlm_perf_args *args);

#define TLM_PERF_MAX_PARAMS 24
#define TLM_PERF_PARAM_NAME 32
#define TLM_PERF_PARAM_VALUE 256

/* One "param: <name>" column.  value is the text TraceLens's CSV cell
 * holds, i.e. Python str() of the value: "8944", "False", "(1024, 1)",
 * "('c10::BFloat16', 'float')", "0.0", "[True]", and a bare string for
 * string params ("conv2d", "mean"; is_str = 1, quoted only inside the
 * perf_params dict repr).  is_none = 1 for a missing value (Python None):
 * value is then "None"; the reference CSVs print an empty cell
 * ([perfreport] §4.6) while perf_params dicts print None.  A value longer than
 * TLM_PERF_PARAM_VALUE - 1 bytes makes tlm_perf_compute fail with
 * TLM_ELIMIT. */
typedef struct tlm_perf_param {
    char name[TLM_PERF_PARAM_NAME];
    char value[TLM_PERF_PARAM_VALUE];
    int is_none;
    int is_str;
} tlm_perf_param;

typedef struct tlm_perf_result {
    tlm_perf_sheet sheet;     /* == tlm_perf_sheet_for(name, bwd) */
    int bwd;                  /* the pass computed */
    size_t n_params;          /* params in TraceLens's insertion order */
    tlm_perf_param params[TLM_PERF_MAX_PARAMS];
    double flops;             /* F: flops() or flops_bwd() */
    int has_bytes;            /* 0 when bytes() is None (unknown dtype) */
    double bytes;             /* Bytes: valid when has_bytes */
    /* "Compute Spec": "<matrix|vector>_<precision>" or "" when the
     * precision of the first input dtype is unknown. */
    char compute_spec[32];
    int out_of_range;         /* 1: no figures because the dims are out
                                 of range (negative, or FLOPs/bytes past
                                 2^63): counted in the perf-model
                                 coverage (issue 33) */
} tlm_perf_result;

/* Runs the op's perf model for one pass (bwd = 0 or 1).
 * Returns:
 *   TLM_OK         out filled;
 *   TLM_ENOTFOUND  no perf model for args->name;
 *   TLM_EINVAL     the model does not define this pass / op (TraceLens
 *                  raises NotImplementedError: e.g. GEMM backward,
 *                  vllm::unified_attention_with_output, InstanceNorm bwd);
 *                  unified_perf_summary drops such rows entirely;
 *   TLM_EFORMAT    the args are missing or malformed (TraceLens: KeyError,
 *                  IndexError, ValueError while reading them);
 *   TLM_ERANGE     the model rejected the shapes (causal SDPA with
 *                  N_Q != N_KV, non-broadcastable operands, mixed conv
 *                  dtypes, division by zero, ...);
 *   TLM_ELIMIT     a param text or a shape exceeds tlmpi's fixed bounds
 *                  (TLM_PERF_PARAM_VALUE, 16 dims, TLM_PERF_MAX_PARAMS);
 *   TLM_ENOMEM     allocation failed.
 * Rows with any status other than TLM_OK are skipped in the perf sheets.
 * args and out must not be NULL; err may be NULL. */
TLM_API tlm_status tlm_perf_compute(const tlm_perf_args *args, int bwd,
                                    tlm_perf_result *out, tlm_error *err);

/* Finds a param by name (without the "param: " prefix); NULL if absent. */
TLM_API const tlm_perf_param *tlm_perf_result_param(const tlm_perf_result *r,
                                                    const char *name);

/* Writes the unified_perf_summary "perf_params" cell: the Python dict repr
 * of the params, e.g. "{'M': 8944, 'bias': False, 'stride_output': None}".
 * Always NUL-terminates when size > 0.  Returns TLM_OK, or TLM_ELIMIT when
 * buf was too small (the text is then truncated). */
TLM_API tlm_status tlm_perf_params_repr(const tlm_perf_result *r, char *buf,
                                        size_t size);

/* Python repr of a double (shortest round-trip text: "0.0", "84.48",
 * "3.5776e-05", "1e-09", "inf", "nan"), as TraceLens prints floats.
 * Always NUL-terminates when size > 0; returns buf. */
TLM_API char *tlm_perf_float_repr(double x, char *buf, size_t size);

/* Bytes per element and Compute-Spec precision of a dtype string from
 * "Input type" (case-insensitive, [perfreport] §6.1 table).  tlm_perf_dtype_bpe
 * returns 0 when unknown (TraceLens None); tlm_perf_dtype_precision
 * returns "fp32", "bf16", ... or NULL. */
TLM_API int tlm_perf_dtype_bpe(const char *dtype);
TLM_API const char *tlm_perf_dtype_precision(const char *dtype);

/* ------------------------------------------------------------------ */
/* MARK: - GPU architectures ([perfreport] §6.1)                             */
/* ------------------------------------------------------------------ */

#define TLM_GPU_ARCH_MAX_PEAKS 24

/* One entry of max_achievable_tflops: key as in Compute Spec
 * ("matrix_bf16", "vector_fp32", ...), value in TFLOPS (TOPS for int8). */
typedef struct tlm_gpu_arch_peak {
    char key[32];
    double tflops;
} tlm_gpu_arch_peak;

/* A GPU for the roofline: TraceLens's --gpu_arch_json_path format. */
typedef struct tlm_gpu_arch {
    char name[64];
    double mem_bw_gbps;   /* peak HBM bandwidth, GB/s (1e9 B/s) */
    double memory_gb;     /* HBM capacity, 0 if unknown */
    size_t n_peaks;
    tlm_gpu_arch_peak peaks[TLM_GPU_ARCH_MAX_PEAKS];
    char source[192];     /* where the numbers come from ("" if unknown) */
} tlm_gpu_arch;

/* Looks up a bundled GPU by name or alias, case-insensitively, ignoring
 * '-', '_' and ' ' ("H100", "h100-sxm", "H100_SXM5", "mi300x", "MI300X-MAF").
 * An ambiguous name ("MI300": MI300A or MI300X) is unknown.
 * Bundled: H100, H200, B200, A100, MI300X, MI325X, MI355X, V100-SXM2-32GB,
 * V100-SXM2-16GB, V100-PCIe-32GB, V100-PCIe-16GB, A10, A40, L4, L40S,
 * MI250X (one GCD), MI210 (datasheet peaks) and MI300X-MAF, MI325X-MAF
 * (TraceLens's max-achievable numbers).
 * Returns NULL if unknown.  The pointer is to static storage. */
TLM_API const tlm_gpu_arch *tlm_gpu_arch_lookup(const char *name);

/* Number of bundled architectures and the i-th one (NULL if out of range),
 * for listing them in --help. */
TLM_API size_t tlm_gpu_arch_count(void);
TLM_API const tlm_gpu_arch *tlm_gpu_arch_at(size_t i);

/* The bundled names, comma-separated ("H100, H200, ..."), into buf
 * (truncated to cap - 1 bytes; cap 0: nothing written).  Returns buf. */
TLM_API char *tlm_gpu_arch_names(char *buf, size_t cap);

/* The bundled GPU a device name reported by the driver stands for:
 * "NVIDIA H100 80GB HBM3" -> H100, "NVIDIA A100-SXM4-80GB" -> A100,
 * "AMD Instinct MI300X" -> MI300X, "Tesla V100-SXM2-32GB" ->
 * V100-SXM2-32GB.  A name matches when its alphanumeric tokens,
 * case-insensitively, include a model's tokens (H100, H200, B200, A100,
 * MI300X, MI325X, MI355X, V100 + SXM2|PCIE + 16GB|32GB, A10, A40, L4, L40S,
 * MI250X, MI210); never a -MAF entry.  NULL when nothing matches ("NVIDIA
 * A10G", "Tesla V100S-PCIE-32GB", "AMD Instinct MI250X/MI250": two parts)
 * or device_name is NULL.  The pointer is to static storage. */
TLM_API const tlm_gpu_arch *tlm_gpu_arch_match_device(const char *device_name);

#define TLM_GPU_DEVICE_NAME_LEN 64

/* What a trace's deviceProperties say about its GPUs. */
typedef struct tlm_gpu_devices {
    size_t n_devices;         /* entries with a string "name" */
    int mixed;                /* 1: the entries' names differ */
    char name[TLM_GPU_DEVICE_NAME_LEN]; /* the first entry's name, cut to
                                         * 63 bytes, bytes outside
                                         * printable ASCII as '?'; "" */
    const tlm_gpu_arch *arch; /* the bundled GPU every named entry stands
                               * for; NULL when none does or they differ */
    size_t n_entries;         /* entries of the array, named or not (what
                               * TraceLens takes as GPUs per node) */
} tlm_gpu_devices;

/* Reads deviceProperties (the JSON text of the array, as
 * tlm_trace_meta.device_properties keeps it; json may be NULL or len 0:
 * no devices) into *out.  Entries that are not objects or lack a string
 * "name" are skipped.  Errors (*out zeroed): TLM_EFORMAT (not JSON),
 * TLM_ELIMIT (nested deeper than 8 or over 1 MiB), TLM_ENOMEM, TLM_EINVAL
 * (out NULL). */
TLM_API tlm_status tlm_gpu_devices_parse(const char *json, size_t len,
                                         tlm_gpu_devices *out);

/* Peak TFLOPS for a Compute Spec key ("matrix_bf16"); NaN when the arch
 * has no such key, key is NULL/empty or arch is NULL. */
TLM_API double tlm_gpu_arch_peak_tflops(const tlm_gpu_arch *arch,
                                        const char *key);

/* Parses a GPU arch JSON document (text of len bytes; fname is only used
 * in error messages, may be NULL):
 *   {"name": "MI300X", "mem_bw_gbps": 5300,
 *    "max_achievable_tflops": {"matrix_bf16": 708, ...},
 *    "memory_gb": 192, "_reference": "..."}
 * Required: mem_bw_gbps (number > 0) and max_achievable_tflops (object of
 * numbers, at most TLM_GPU_ARCH_MAX_PEAKS keys).  "name" (string) is
 * optional; other keys (freq_mhz, num_cus, ...) are ignored.
 * Errors: TLM_EFORMAT (not JSON; offset = byte of the problem),
 * TLM_ESCHEMA (wrong type or missing required key), TLM_ELIMIT (too many
 * keys, nesting > 32 or document > 1 MiB), TLM_EINVAL (NULL args). */
TLM_API tlm_status tlm_gpu_arch_parse_json(const char *text, size_t len,
                                           const char *fname,
                                           tlm_gpu_arch *out,
                                           tlm_error *err);

/* Reads and parses the file at path (TLM_EIO if unreadable). */
TLM_API tlm_status tlm_gpu_arch_load_json(const char *path,
                                          tlm_gpu_arch *out, tlm_error *err);

/* ------------------------------------------------------------------ */
/* MARK: - Metrics and roofline ([perfreport] §6.1)                          */
/* ------------------------------------------------------------------ */

typedef enum tlm_roofline_bound {
    TLM_ROOFLINE_NONE = 0,      /* no arch, no peak for the spec, ... */
    TLM_ROOFLINE_COMPUTE_BOUND,
    TLM_ROOFLINE_MEMORY_BOUND
} tlm_roofline_bound;

/* "COMPUTE_BOUND", "MEMORY_BOUND" or "" (NONE). */
TLM_API const char *tlm_roofline_bound_str(tlm_roofline_bound b);

/* Metric columns of one perf-sheet row.  NaN where TraceLens prints NaN
 * (an empty CSV cell). */
typedef struct tlm_perf_metrics {
    double gflops;            /* GFLOPS = F / 1e9 */
    double data_moved_mb;     /* Data Moved (MB) = Bytes / 1048576 */
    double flops_per_byte;    /* FLOPS/Byte = GFLOPS*1e9 / Bytes */
    double tflops_s;          /* TFLOPS/s = (GFLOPS/1e3) / (T/1e6) */
    double tb_s;              /* TB/s = (Bytes/1e12) / (T/1e6) */
    /* With an arch only (else NaN / NONE): */
    double roofline_time_us;  /* Roofline Time (µs) = max(compute, memory) */
    tlm_roofline_bound bound; /* Roofline Bound */
    double pct_roofline;      /* Pct Roofline = roofline time / T * 100 */
    /* tlmpi additions (not TraceLens columns), NaN without an arch: */
    double peak_tflops;       /* arch peak for the Compute Spec */
    double attainable_tflops; /* min(peak, FLOPS/Byte * bandwidth) */
    double ridge_flops_per_byte; /* peak / bandwidth: the roofline knee */
} tlm_perf_metrics;

/* Computes the metrics of r for a measured kernel time (µs, busy time of
 * the row's kernels; 0 when it has none).  arch may be NULL.  Never
 * fails; r and m must not be NULL. */
TLM_API void tlm_perf_metrics_compute(const tlm_perf_result *r,
                                      double kernel_time_us,
                                      const tlm_gpu_arch *arch,
                                      tlm_perf_metrics *m);

/* The same from raw numbers: flops, bytes (has_bytes = 0 for None),
 * compute_spec ("" or NULL for none). */
TLM_API void tlm_perf_metrics_from(double flops, int has_bytes, double bytes,
                                   const char *compute_spec,
                                   double kernel_time_us,
                                   const tlm_gpu_arch *arch,
                                   tlm_perf_metrics *m);

#ifdef __cplusplus
}
#endif
#endif /* TLM_PERF_H */
