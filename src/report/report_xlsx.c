/*
 * report_xlsx.c - the single-trace report as one .xlsx workbook: every
 * table of the report in TraceLens's sheet order (tlm_report_tab), then
 * the caller's extra tables (findings), each a worksheet of the same name,
 * header and cells as its CSV (xlsx_write.c), staged in an output set.
 */
#include <stdlib.h>

#include "xlsx_write.h"

tlm_status tlm_report_stage_xlsx(const tlm_report *r,
                                 const tlm_tab *const *extra, size_t nextra,
                                 tlm_outset *set, const char *path,
                                 tlm_error *err)
{
    size_t nt = 0;
    while (tlm_report_tab(r, nt))
        nt++;
    size_t n = nt + nextra;
    const char **names = calloc(n ? n : 1, sizeof *names);
    char (*sn)[TLM_XLSX_NAME_MAX] = calloc(n ? n : 1, sizeof *sn);
    tlm_xlsx_sheet *sh = calloc(n ? n : 1, sizeof *sh);
    const char *tmp = NULL;
    tlm_status st = TLM_OK;
    if (!names || !sn || !sh) {
        st = tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        sh[i].tab = i < nt ? tlm_report_tab(r, i) : extra[i - nt];
        names[i] = sh[i].tab->name;
    }
    tlm_xlsx_sheet_names(names, n, sn);
    for (size_t i = 0; i < n; i++)
        sh[i].name = sn[i];
    st = tlm_outset_stage(set, path, &tmp, err);
    if (st == TLM_OK)
        st = tlm_xlsx_write(tmp, sh, n, err);
done:
    free(names);
    free(sn);
    free(sh);
    return st;
}
