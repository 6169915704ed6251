/*
 * callstack.h - the call stacks of `--include_call_stack` ([perfreport]
 * §4.7): for each kernel of a unified_perf_summary row, the names above
 * it from the root down (python functions naming an nn.Module or a path,
 * names with "::", every cpu_op; "_<digits>" removed), merged into
 * call_stack_full (one list, or the common prefix and each distinct
 * tail as a nested list) and the row's entry_point (the first model-code
 * .py frame, skipping torch and dispatch wrappers).
 *
 * The pure parts (frame text, merging, the entry point) take frames as
 * (text, length) pairs; tlm_cstack_row reads them from the tree.
 */
#ifndef TLM_CALLSTACK_H
#define TLM_CALLSTACK_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"
#include "tlmpi/tlm_common.h"

struct tlm_rctx;

/* One frame: text and length (not NUL-terminated). */
typedef struct tlm_csf {
    const char *s;
    size_t n;
} tlm_csf;

/* s[0..n) with every "_<digits>" removed (Python's re.sub(r"_\d+", "",
 * s)) into out, which holds n bytes; returns the new length. */
size_t tlm_cs_strip(const char *s, size_t n, char *out);

/* 1 when frame f is a wrapper the entry point skips: a built-in, a
 * pybind11 or nn.Module frame, a frame of torch's dispatch files, or a
 * "path.py(line): f" frame whose function is a known wrapper. */
int tlm_cs_is_wrapper(const char *f, size_t n);

/* The entry point of op among the flat frames fr[0..n) (root first):
 * the op is found from the end (exactly, else with a trailing "_<digits>"
 * removed); inward, the first later .py frame whose function name holds
 * the op's local name (after "::", any case); else outward, the nearest
 * earlier .py frame that is no wrapper.  Returns its index, or -1. */
long tlm_cs_entry(const tlm_csf *fr, size_t n, const char *op, size_t opn);

/* call_stack_full of k stacks (stack i is fr[off[i] .. off[i]+len[i]),
 * root first) as Python's repr: distinct stacks in first-appearance
 * order; one -> a flat list; several -> their common prefix followed by
 * each one's tail as a nested list.  Appends to out; the flat frames the
 * entry point reads (prefix, then the tails in order) go to flat, which
 * holds the sum of len[]; *nflat receives their number. */
void tlm_cs_merge(const tlm_csf *fr, const size_t *off, const size_t *len,
                  size_t k, tlm_sbuf *out, tlm_csf *flat, size_t *nflat);

/* Scratch reused across rows. */
typedef struct tlm_cstack tlm_cstack;

tlm_cstack *tlm_cstack_new(void);
void tlm_cstack_free(tlm_cstack *cs);

/* The stacks of the GPU events k[0..n) in the tree of ctx, merged: the
 * texts stay valid until the next call.  op is the row's name.  Errors:
 * TLM_ENOMEM. */
tlm_status tlm_cstack_row(tlm_cstack *cs, const struct tlm_rctx *ctx,
                          const int32_t *k, size_t n, const char *op,
                          size_t opn);
const tlm_sbuf *tlm_cstack_full(const tlm_cstack *cs);
const tlm_sbuf *tlm_cstack_entry_point(const tlm_cstack *cs);

#endif /* TLM_CALLSTACK_H */
