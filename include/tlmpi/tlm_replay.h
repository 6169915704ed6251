/*
 * tlm_replay.h - event replay (docs/replay.md, spec replay.md §10, §11):
 * op instances of a trace chosen from its ops_unique_args rows, checked
 * against the safety rules S1-S9 and written as replay_events.json
 * (format tlmpi.replay.v1), the input of the fixed runner
 * scripts/tlmpi_replay.py.
 *
 * Every string of a trace is hostile input.  An op is "ok" only when its
 * name is in the grammar ns::op, its namespace allowed and the op not
 * denied, its four argument arrays ("Input Dims", "Input type", "Input
 * Strides", "Concrete Inputs") have equal lengths, integer dims and
 * strides within bounds, tensors within the byte caps (overflow-checked),
 * types from a fixed table and Concrete Inputs in a strict grammar.
 * Anything else carries one reason code and no argument of the trace.
 *
 * Also the bundle helpers: SHA-256 (FIPS 180-4) and a deterministic
 * .tar.gz writer (ustar, fixed mtime/uid/gid/mode).  No printing, no
 * exiting; the caller (the driver) writes and publishes the files.
 */
#ifndef TLM_REPLAY_H
#define TLM_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "tlm_common.h"
#include "tlm_report.h"
#include "tlm_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TLM_REPLAY_FORMAT "tlmpi.replay.v1"

/* Reason codes: X(enum, code written in the JSON, meaning). */
#define TLM_REPLAY_REASONS(X)                                                \
    X(TLM_RR_OK, "ok", "valid: the runner may replay it")                    \
    X(TLM_RR_BAD_OP_NAME, "bad_op_name",                                     \
      "name outside ns::op ([A-Za-z_][A-Za-z0-9_]*, no component "          \
      "starting with __)")                                                   \
    X(TLM_RR_NAMESPACE, "namespace_not_allowed",                             \
      "namespace not in --replay_namespaces (default aten)")                 \
    X(TLM_RR_DENIED_OP, "denied_op",                                         \
      "side-effecting, file, communication or profiler op")                  \
    X(TLM_RR_MISSING_ARGS, "missing_args",                                   \
      "one of the four argument arrays is absent")                           \
    X(TLM_RR_BAD_ARGS, "bad_args",                                           \
      "an argument array is not a JSON array of the expected form")          \
    X(TLM_RR_LENGTH_MISMATCH, "length_mismatch",                             \
      "the four arrays differ in length")                                    \
    X(TLM_RR_TOO_MANY_ARGS, "too_many_args", "more than 64 arguments")       \
    X(TLM_RR_BAD_DIMS, "bad_dims",                                           \
      "dims not integers in [0, 2^40], more than 16 dims or 256 tensors")    \
    X(TLM_RR_BAD_STRIDES, "bad_strides",                                     \
      "strides not integers in [0, 2^48] or not one per dim")                \
    X(TLM_RR_TENSOR_TOO_LARGE, "tensor_too_large",                           \
      "a tensor's storage exceeds --replay_max_tensor_bytes")                \
    X(TLM_RR_OP_TOO_LARGE, "op_too_large",                                   \
      "the op's tensors exceed --replay_max_op_bytes")                       \
    X(TLM_RR_EMPTY_LIST, "empty_tensor_list",                                \
      "a TensorList without recorded tensors (older PyTorch records "       \
      "none)")                                                               \
    X(TLM_RR_UNKNOWN_TYPE, "unknown_type",                                   \
      "an Input type outside the fixed table")                               \
    X(TLM_RR_BAD_CONCRETE, "bad_concrete_input",                             \
      "a Concrete Input outside the strict grammar")                         \
    X(TLM_RR_NONFINITE, "nonfinite_scalar", "a scalar is NaN or infinite")   \
    X(TLM_RR_SCALAR_RANGE, "scalar_out_of_range",                            \
      "an integer scalar (or a list's product) could size an allocation "    \
      "above --replay_max_tensor_bytes")                                     \
    X(TLM_RR_TYPE_MISMATCH, "type_value_mismatch",                           \
      "value does not fit its type (a tensor with a concrete value, a "      \
      "Scalar without one, dims on a scalar)")

typedef enum tlm_replay_reason {
#define TLM_X_(e, code, desc) e,
    TLM_REPLAY_REASONS(TLM_X_)
#undef TLM_X_
    TLM_RR_COUNT
} tlm_replay_reason;

/* The code ("ok", "bad_op_name", ...) and its meaning; NULL out of
 * range. */
TLM_API const char *tlm_replay_reason_code(tlm_replay_reason r);
TLM_API const char *tlm_replay_reason_desc(tlm_replay_reason r);

typedef struct tlm_replay_opts {
    const char *namespaces;    /* comma list; NULL = "aten" */
    uint64_t max_tensor_bytes; /* 0 = 8 GiB */
    uint64_t max_op_bytes;     /* 0 = 32 GiB */
    const char *filter;        /* POSIX extended regex on op names; NULL */
    size_t top;                /* 0 = every row; N: the N rows of most
                                  direct kernel time (sum) */
} tlm_replay_opts;

TLM_API void tlm_replay_opts_init(tlm_replay_opts *o);
/* Checks the options before any work: the namespace list
 * (tlm_replay_ns_validate) and the filter's syntax.  TLM_EINVAL with
 * why. */
TLM_API tlm_status tlm_replay_opts_check(const tlm_replay_opts *o,
                                         tlm_error *err);

/* One op: its checked form. */
typedef struct tlm_replay_op {
    char *name;           /* op name; for bad_op_name its printable ASCII,
                             at most 128 bytes ('?' for other bytes) */
    tlm_replay_reason status;
    int reason_arg;       /* argument index the reason is about; -1 */
    int64_t uid;          /* event index in the trace (ex_UID) */
    int64_t count;        /* operation_count; 1 when not from a row */
    double kernel_us_mean;/* total_direct_kernel_time_mean; NaN if none */
    char *args_json;      /* normalised, typed args object (compact JSON)
                             when every array checked; else NULL */
    uint64_t bytes;       /* storage bytes of the op's tensors */
} tlm_replay_op;

typedef struct tlm_replay_set tlm_replay_set;

/* Checks one op from its name and the four arrays as compact JSON text
 * (NULL: absent).  Fills *op (free with tlm_replay_op_clear).  Errors:
 * TLM_ENOMEM, TLM_EINVAL (bad namespace list); a rejected op is not an
 * error (op->status). */
TLM_API tlm_status tlm_replay_check(const char *name, size_t name_len,
                                    const char *dims, const char *types,
                                    const char *strides,
                                    const char *concrete,
                                    const tlm_replay_opts *o,
                                    tlm_replay_op *op, tlm_error *err);
TLM_API void tlm_replay_op_clear(tlm_replay_op *op);

/* Checks the namespace list ("aten,prims": names in the op grammar's
 * namespace part, comma separated, at most 16).  TLM_EINVAL with why. */
TLM_API tlm_status tlm_replay_ns_validate(const char *list, tlm_error *err);

/* The selection: one op per ops_unique_args row of rep (its ex_UID event
 * in trace), optionally filtered by name and cut to the top N by direct
 * kernel time, each checked.  trace_name is the trace's basename, written
 * as the ops' source.  Errors: TLM_ENOMEM, TLM_EINVAL (bad regex, or a
 * report without ops_unique_args), TLM_EFORMAT (an ex_UID that is no
 * event of the trace). */
TLM_API tlm_status tlm_replay_select(const tlm_report *rep,
                                     const tlm_trace *trace,
                                     const char *trace_name,
                                     const tlm_replay_opts *o,
                                     tlm_replay_set **out, tlm_error *err);
/* An empty set to add ops to by hand (tests, other front ends). */
TLM_API tlm_status tlm_replay_set_new(const char *trace_name,
                                      tlm_replay_set **out);
/* Takes op over (its fields; *op is left empty). */
TLM_API tlm_status tlm_replay_set_add(tlm_replay_set *s, tlm_replay_op *op);
TLM_API void tlm_replay_set_free(tlm_replay_set *s);
TLM_API size_t tlm_replay_set_count(const tlm_replay_set *s);
TLM_API const tlm_replay_op *tlm_replay_set_op(const tlm_replay_set *s,
                                               size_t i);
/* Number of ops per reason (counts[TLM_RR_COUNT]). */
TLM_API void tlm_replay_set_tally(const tlm_replay_set *s, size_t *counts);

/* replay_events.json (tlmpi.replay.v1) as a malloc'd NUL-terminated
 * text: format, the source trace's basename, the reason table, the ops.
 * Nothing else of the trace (rule S9).  Errors: TLM_ENOMEM. */
TLM_API tlm_status tlm_replay_ir_json(const tlm_replay_set *s, char **text,
                                      size_t *len);
/* README.md of an output folder or bundle (how to run the runner), as a
 * malloc'd text. */
TLM_API tlm_status tlm_replay_readme(const tlm_replay_set *s, char **text,
                                     size_t *len);

/* The runner scripts/tlmpi_replay.py, byte for byte as it was at build
 * time (not NUL-terminated data of *len bytes; a NUL follows). */
TLM_API const char *tlm_replay_runner(size_t *len);

/* SHA-256 of data, as 64 lowercase hex digits and a NUL. */
TLM_API void tlm_sha256_hex(const void *data, size_t len, char hex[65]);
TLM_API void tlm_sha256(const void *data, size_t len, uint8_t out[32]);

/* A deterministic .tar.gz: members in the given order, each a regular
 * file with mode 0644 (0755 when exec), uid/gid 0, mtime 0, no user or
 * group names; names must be relative, at most 99 bytes of [A-Za-z0-9._-]
 * (TLM_EINVAL otherwise).  Written to path (a temporary the caller
 * publishes).  Errors: TLM_EINVAL, TLM_EIO (with errno text). */
typedef struct tlm_tar_member {
    const char *name;
    const void *data;
    size_t len;
    int exec;
} tlm_tar_member;

TLM_API tlm_status tlm_targz_write(const char *path,
                                   const tlm_tar_member *m, size_t n,
                                   tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_REPLAY_H */
