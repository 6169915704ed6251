/*
 * xlsx_internal.h - what the workbook reader's files share (xlsx_zip.c:
 * bounded part streams into expat; xlsx_read.c: package, workbook,
 * shared strings; xlsx_sheet.c: one worksheet).
 */
#ifndef TLM_XLSX_INTERNAL_H
#define TLM_XLSX_INTERNAL_H

#include <expat.h>
#include <stddef.h>
#include <stdint.h>
#include <zip.h>

#include "sbuf.h"
#include "xlsx_read.h"

/* Bounds (xlsx_read.h). */
#define TLM_XLSX_ENTRY_MAX ((uint64_t)1 << 30)
#define TLM_XLSX_RATIO_FROM ((uint64_t)1 << 20)
#define TLM_XLSX_RATIO_MAX 200
#define TLM_XLSX_DEPTH_MAX 256
/* the texts of a sheet's string cells, shared strings counted per cell */
#define TLM_XLSX_MAX_TEXT ((size_t)256 << 20)

typedef struct tlm_xlsx_entry {
    char *name; /* sheet name */
    char *part; /* its worksheet part, e.g. xl/worksheets/sheet1.xml */
} tlm_xlsx_entry;

struct tlm_xlsx {
    zip_t *zip;
    char path[256];
    tlm_xlsx_entry *sheets;
    size_t nsheets;
    size_t *sst_off; /* shared string i: sst_text.p + sst_off[i], */
    size_t *sst_len; /* sst_len[i] bytes */
    size_t nsst, cap_sst;
    tlm_sbuf sst_text;
};

/* The state every part parser starts with: the parser, the part being
 * read, nesting depth, a sticky error.  Handlers that fail call
 * tlm_xml_fail (which stops the parser). */
typedef struct tlm_xml {
    XML_Parser p;
    tlm_xlsx *x;
    const char *part;
    int depth;
    tlm_status st;
    tlm_error *err;
} tlm_xml;

/* Local part of an expat name ("ns|local" with the '|' separator). */
const char *tlm_xml_local(const char *name);
/* Value of the attribute with local name `local` (any namespace whose
 * URI ends in ns_suffix; NULL for no namespace), or NULL. */
const char *tlm_xml_attr(const char **atts, const char *ns_suffix,
                         const char *local);
/* Records an error at the parser's current line and stops it. */
void tlm_xml_fail(tlm_xml *xs, tlm_status st, const char *fmt, ...)
    TLM_PRINTF(3, 4);
/* Depth bookkeeping for start / end handlers: 0, or -1 (and the error
 * set) when the nesting is too deep. */
int tlm_xml_enter(tlm_xml *xs);
void tlm_xml_leave(tlm_xml *xs);

/* Creates xs->p (namespace-aware, DTDs refused); its user data is xs,
 * the first member of each part parser's state (handlers cast it). */
tlm_status tlm_xml_init(tlm_xml *xs, tlm_xlsx *x, const char *part,
                        tlm_error *err);
/* Streams the zip entry xs->part through xs->p within the bounds.
 * TLM_ENOTFOUND (no error set) when the part is absent and optional. */
tlm_status tlm_xml_run(tlm_xml *xs, int optional);
void tlm_xml_done(tlm_xml *xs);

/* Part path of a relationship target relative to the part `base`
 * ("xl/workbook.xml" + "worksheets/s1.xml" -> "xl/worksheets/s1.xml";
 * "/xl/x.xml" -> "xl/x.xml"; ".." resolved).  NULL on ENOMEM. */
char *tlm_xlsx_resolve(const char *base, const char *target);

/* Appends s[0..n) to b with _xHHHH_ escapes decoded (as Excel does). */
void tlm_xlsx_unescape(tlm_sbuf *b, const char *s, size_t n);

/* The worksheet part into a raw table (xlsx_sheet.c). */
tlm_status tlm_xlsx_sheet_read(tlm_xlsx *x, const char *part,
                               tlm_rawtab **out, tlm_error *err);

#endif /* TLM_XLSX_INTERNAL_H */
