/*
 * report_xlsx.c - the report's tables as one workbook staged in an
 * output set (tlm_report_stage_xlsx, tlm_report.h): worksheet names from
 * the table names (tlm_xlsx_sheet_names), cells by xlsx_write.c.
 */
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "tlmpi/tlm_outset.h"
#include "xlsx_write.h"

tlm_status tlm_report_stage_xlsx(const tlm_report *r, tlm_outset *set,
                                 const char *path, tlm_error *err)
{
    size_t n = r->ntabs;
    const char **names = calloc(n ? n : 1, sizeof *names);
    char(*sheet)[TLM_XLSX_NAME_MAX] = calloc(n ? n : 1, sizeof *sheet);
    tlm_xlsx_sheet *s = calloc(n ? n : 1, sizeof *s);
    tlm_status st = TLM_OK;
    if (!names || !sheet || !s) {
        st = tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        names[i] = r->tabs[i]->name;
    tlm_xlsx_sheet_names(names, n, sheet);
    for (size_t i = 0; i < n; i++)
        s[i] = (tlm_xlsx_sheet){r->tabs[i], sheet[i], NULL};
    const char *tmp = NULL;
    st = tlm_outset_stage(set, path, &tmp, err);
    if (st == TLM_OK && (st = tlm_xlsx_write(tmp, s, n, err)) != TLM_OK &&
        err) { /* name the file, not its temporary */
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        tlm_error_set(err, err->code, path, -1, "%s", m);
    }
    if (st != TLM_OK)
        tlm_outset_abort(set);
done:
    free(names);
    free(sheet);
    free(s);
    return st;
}
