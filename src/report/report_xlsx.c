/*
 * report_xlsx.c - the report's tables as one workbook staged in an
 * output set (tlm_report_stage_xlsx, tlm_report.h): every table in
 * TraceLens's sheet order, worksheet names from the table names
 * (tlm_xlsx_sheet_names), cells by xlsx_write.c.
 *
 * Writing a workbook is mostly deflate and number printing (libxlsxwriter
 * compresses every part at zlib's default level, which it does not let
 * us change), so it may run in a thread of its own beside the CSVs and
 * report.md (tlm_report_xlsx_start / _finish): staging (the output set is
 * not thread-safe) happens in the caller's thread, only the file is
 * written in the other one.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "tlmpi/tlm_outset.h"
#include "xlsx_write.h"

struct tlm_xlsx_job {
    const char **names;
    char (*sn)[TLM_XLSX_NAME_MAX];
    tlm_xlsx_sheet *sh;
    size_t n;
    char *tmp;        /* the staged temporary (a copy) */
    char *path;       /* the final name, for messages (a copy) */
    pthread_t th;
    int threaded;
    tlm_status st;
    tlm_error err;
};

static void job_free(tlm_xlsx_job *j)
{
    if (!j)
        return;
    free(j->names);
    free(j->sn);
    free(j->sh);
    free(j->tmp);
    free(j->path);
    free(j);
}

static void job_write(tlm_xlsx_job *j)
{
    tlm_error_clear(&j->err);
    j->st = tlm_xlsx_write(j->tmp, j->sh, j->n, &j->err);
    if (j->st != TLM_OK) { /* name the file, not its temporary */
        char m[sizeof j->err.msg];
        memcpy(m, j->err.msg, sizeof m);
        tlm_error_set(&j->err, j->err.code, j->path, -1, "%s", m);
    }
}

static void *job_main(void *arg)
{
    job_write(arg);
    return NULL;
}

static char *dup_str(const char *s)
{
    char *p = malloc(strlen(s) + 1);
    return p ? strcpy(p, s) : NULL;
}

/* The sheets of r with valid, distinct names, then extra (when not
 * NULL: findings.csv's table, the last CSV of the folder). */
static tlm_status job_sheets(tlm_xlsx_job *j, const tlm_report *r,
                             const tlm_tab *extra)
{
    size_t n = r->ntabs + (extra != NULL);
    j->n = n;
    j->names = calloc(n ? n : 1, sizeof *j->names);
    j->sn = calloc(n ? n : 1, sizeof *j->sn);
    j->sh = calloc(n ? n : 1, sizeof *j->sh);
    if (!j->names || !j->sn || !j->sh)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        j->names[i] = i < r->ntabs ? r->tabs[i]->name : extra->name;
    tlm_xlsx_sheet_names(j->names, n, j->sn);
    for (size_t i = 0; i < n; i++)
        j->sh[i] = (tlm_xlsx_sheet){i < r->ntabs ? r->tabs[i] : extra,
                                    j->sn[i], NULL};
    return TLM_OK;
}

tlm_status tlm_report_xlsx_start(const tlm_report *r, tlm_outset *set,
                                 const char *path, int threaded,
                                 tlm_xlsx_job **out, tlm_error *err)
{
    return tlm_report_xlsx_start_with(r, NULL, set, path, threaded, out,
                                      err);
}

tlm_status tlm_report_xlsx_start_with(const tlm_report *r,
                                      const tlm_tab *extra, tlm_outset *set,
                                      const char *path, int threaded,
                                      tlm_xlsx_job **out, tlm_error *err)
{
    *out = NULL;
    tlm_xlsx_job *j = calloc(1, sizeof *j);
    const char *tmp = NULL;
    if (!j || job_sheets(j, r, extra) != TLM_OK || !(j->path = dup_str(path))) {
        job_free(j);
        return tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    }
    tlm_status st = tlm_outset_stage(set, path, &tmp, err);
    if (st == TLM_OK && !(j->tmp = dup_str(tmp)))
        st = tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    if (st != TLM_OK) {
        job_free(j);
        return st;
    }
    j->threaded = threaded && pthread_create(&j->th, NULL, job_main, j) == 0;
    *out = j;
    return TLM_OK;
}

tlm_status tlm_report_xlsx_finish(tlm_xlsx_job *j, int ok, tlm_error *err)
{
    if (!j)
        return TLM_OK;
    if (j->threaded)
        pthread_join(j->th, NULL);
    else if (ok)
        job_write(j);
    else
        j->st = TLM_OK; /* not written: nothing to report */
    tlm_status st = j->st;
    if (st != TLM_OK && err)
        *err = j->err;
    if (st != TLM_OK || !ok)
        remove(j->tmp); /* the set may have been aborted meanwhile */
    job_free(j);
    return st;
}

tlm_status tlm_report_stage_xlsx(const tlm_report *r, tlm_outset *set,
                                 const char *path, tlm_error *err)
{
    tlm_xlsx_job *j = NULL;
    tlm_status st = tlm_report_xlsx_start(r, set, path, 0, &j, err);
    if (st == TLM_OK)
        st = tlm_report_xlsx_finish(j, 1, err);
    if (st != TLM_OK)
        tlm_outset_abort(set);
    return st;
}
