/*
 * xlsx_write.h - a list of report tables as one .xlsx workbook
 * (libxlsxwriter, constant-memory mode), one worksheet per table.
 *
 *     tlm_xlsx_sheet s[2] = {{tab_a, "gpu_timeline", NULL},
 *                            {tab_b, "ops_summary", hidden_flags}};
 *     tlm_xlsx_write("out.xlsx.tmp", s, 2, &err);
 *
 * Sheet names must already be valid Excel names (tlm_xlsx_sheet_names
 * makes them so); the writer refuses anything else with TLM_EINVAL.
 * Cells: see xlsx_write.c.
 */
#ifndef TLM_XLSX_WRITE_H
#define TLM_XLSX_WRITE_H

#include <stddef.h>

#include "tlmpi/tlm_outset.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"

/* Longest sheet name in code points (Excel's limit), and the bytes a
 * name buffer needs (4-byte UTF-8 characters and the NUL). */
#define TLM_XLSX_NAME_CHARS 31
#define TLM_XLSX_NAME_MAX (TLM_XLSX_NAME_CHARS * 4 + 1)

typedef struct tlm_xlsx_sheet {
    const tlm_tab *tab;
    const char *name;            /* the worksheet's name */
    const unsigned char *hidden; /* per column: nonzero hides it; or NULL */
} tlm_xlsx_sheet;

/* Writes the sheets, in order, as the workbook path (created or
 * replaced; nothing is left at path on failure).  Errors: TLM_EINVAL (a
 * name longer than 31 characters, empty, holding one of []:*?/\,
 * starting or ending with ', or equal to an earlier one ignoring ASCII
 * case; the message names it), TLM_EIO (libxlsxwriter's error string
 * and the path), TLM_ENOMEM. */
tlm_status tlm_xlsx_write(const char *path, const tlm_xlsx_sheet *sheets,
                          size_t n, tlm_error *err);

/* Valid, distinct sheet names for n result names, as pandas' to_excel
 * names them but without its overwrites (compare.md §5.2, Q11):
 * - the first 31 characters (UTF-8 code points) of the name;
 * - each of []:*?/\ becomes '_', a leading or trailing ' becomes '_',
 *   an empty name becomes "Sheet";
 * - a name equal (ignoring ASCII case) to an earlier result's gets its
 *   end replaced by "~2", "~3", ... (keeping 31 characters in all), the
 *   first suffix that makes it unique.
 * out[i] receives name i.  Names that need none of this are unchanged. */
void tlm_xlsx_sheet_names(const char *const *names, size_t n,
                          char (*out)[TLM_XLSX_NAME_MAX]);

/* Nonzero when name is a valid sheet name on its own (length, characters,
 * apostrophes; not uniqueness). */
int tlm_xlsx_name_ok(const char *name);
/* Nonzero when two sheet names are equal ignoring ASCII case (as Excel
 * compares them for ASCII names). */
int tlm_xlsx_same_name(const char *a, const char *b);

/* tlm_report_stage_xlsx (tlm_report.h) in two steps, so that the
 * workbook may be written in a thread of its own while the caller writes
 * other files: _start stages path in set (in the caller's thread) and,
 * when threaded, starts writing; _finish waits for it (or, not threaded,
 * writes it now), and must be called once for every started job, before
 * r or set go.  ok = 0 (the caller's other outputs failed): the workbook
 * is not written, or its temporary removed.  Errors: those of
 * tlm_report_stage_xlsx. */
typedef struct tlm_xlsx_job tlm_xlsx_job;
tlm_status tlm_report_xlsx_start(const tlm_report *r, tlm_outset *set,
                                 const char *path, int threaded,
                                 tlm_xlsx_job **out, tlm_error *err);
/* _start with one more sheet after r's, extra (NULL: none), which
 * must stay until _finish (findings.csv's table: the workbook has every
 * sheet of the CSV folder, in its order). */
tlm_status tlm_report_xlsx_start_with(const tlm_report *r,
                                      const tlm_tab *extra, tlm_outset *set,
                                      const char *path, int threaded,
                                      tlm_xlsx_job **out, tlm_error *err);
tlm_status tlm_report_xlsx_finish(tlm_xlsx_job *j, int ok, tlm_error *err);

#endif /* TLM_XLSX_WRITE_H */
