/*
 * pyrepr.h - Python's repr() of floats and strings, and of JSON values as
 * the Python objects json.loads gives: the text pandas writes into the
 * CSV cells of TraceLens's sheets.  One implementation for the report,
 * the perf models and the driver's CSVs.
 */
#ifndef TLM_PYREPR_H
#define TLM_PYREPR_H

#include <stddef.h>

#include "sbuf.h"

/* Longest text tlm_py_float_repr writes, NUL included. */
#define TLM_PY_FLOAT_MAX 32

/* repr(float(v)) into buf (shortest round-trip digits; fixed notation for
 * 1e-4 <= |v| < 1e16, else exponent; "nan", "inf", "-inf", "-0.0").
 * Returns the text's length; writes at most size bytes, NUL included (as
 * snprintf does). */
size_t tlm_py_float_repr(double v, char *buf, size_t size);
/* The same text by the reference algorithm (the least "%.*e" precision
 * that strtod reads back, found by printf and strtod): slow, the fast
 * path's fallback and the tests' oracle. */
size_t tlm_py_float_repr_ref(double v, char *buf, size_t size);
/* repr(str) of n bytes into buf: single quotes unless the text holds ' and
 * no ", backslash escapes for \, the quote, \n \r \t and other control
 * bytes (\xNN).  Returns the length the whole text needs (as snprintf:
 * the output is cut to size - 1 bytes and NUL-terminated when size > 0). */
size_t tlm_py_str_repr(const char *s, size_t n, char *buf, size_t size);

/* The same, appended to a buffer. */
void tlm_sbuf_pyfloat(tlm_sbuf *b, double v);
void tlm_sbuf_pystr(tlm_sbuf *b, const char *s, size_t n);
/* Python repr of compact JSON text: arrays as tuples (as_tuple) or lists,
 * strings quoted, numbers as written, true/false/null as True/False/None.
 * Returns 0 on success, -1 when the text is not JSON this supports. */
int tlm_sbuf_json_pyrepr(tlm_sbuf *b, const char *json, size_t n,
                         int as_tuple);

#endif /* TLM_PYREPR_H */
