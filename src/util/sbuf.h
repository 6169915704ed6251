/*
 * sbuf.h - a growable string buffer.  Appends never fail loudly: an
 * allocation failure sets the sticky oom flag (checked once by the caller
 * when the text is complete) and later appends do nothing.
 */
#ifndef TLM_SBUF_H
#define TLM_SBUF_H

#include <stddef.h>
#include <stdio.h>

#include "tlmpi/tlm_common.h"

typedef struct tlm_sbuf {
    char *p;
    size_t len;
    size_t cap;
    int oom; /* sticky: an append failed */
} tlm_sbuf;

void tlm_sbuf_init(tlm_sbuf *b);
void tlm_sbuf_free(tlm_sbuf *b);
void tlm_sbuf_reset(tlm_sbuf *b);
/* Room for extra more bytes and a NUL; 0 on success, -1 (and oom) when
 * the buffer cannot grow. */
int tlm_sbuf_reserve(tlm_sbuf *b, size_t extra);
void tlm_sbuf_putn(tlm_sbuf *b, const char *s, size_t n);
void tlm_sbuf_puts(tlm_sbuf *b, const char *s);
void tlm_sbuf_putc(tlm_sbuf *b, char c);
void tlm_sbuf_printf(tlm_sbuf *b, const char *fmt, ...) TLM_PRINTF(2, 3);

/* One CSV field as Python's csv.QUOTE_MINIMAL writes it: quoted when it
 * holds ',', '"', '\r' or '\n' (tlm_csv_needs_quotes), quotes doubled. */
int tlm_csv_needs_quotes(const char *s, size_t n);
void tlm_sbuf_csv_field(tlm_sbuf *b, const char *s, size_t n);
/* The same field written to f. */
void tlm_csv_fput(FILE *f, const char *s, size_t n);

/* The one formula rule of every text output: a text a spreadsheet would
 * run as a formula starts with = + - @ (or a tab or carriage return) and
 * is not a plain number.  Outside --tracelens_compat such a cell or
 * header gets a leading "'" (tlm_sbuf_csv_guarded; the compare's sheets,
 * the report's CSVs; the workbooks write text cells as strings, never as
 * formulas; scripts/tlmpi_replay.py has the same rule). */
int tlm_formula_like(const char *s);
/* tlm_sbuf_csv_field of s, with the leading "'" when tlm_formula_like. */
void tlm_sbuf_csv_guarded(tlm_sbuf *b, const char *s, size_t n);

/* Text from a trace (an op or kernel name) made safe in Markdown:
 * control characters (newlines included) become spaces; \\ | < > ` are
 * escaped (TLM_MD_CELL: enough inside a table cell that is not a code
 * span: no cell split, no HTML tag, no code span);
 * TLM_MD_TEXT also escapes the characters that start markup or HTML
 * (\\ ` * _ < > [ ] # ~ &).  At most maxlen bytes of s, then "...".  The
 * one Markdown escape of the core (report.md, findings). */
enum { TLM_MD_CELL = 0, TLM_MD_TEXT = 1 };
void tlm_sbuf_md(tlm_sbuf *b, const char *s, size_t maxlen, int mode);

#endif /* TLM_SBUF_H */
