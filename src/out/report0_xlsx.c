/*
 * report0_xlsx.c - the analysis' workbook (--output_xlsx_path F): rank 0
 * writes TraceLens's collective sheets (the CSVs tlm_out_report_write
 * staged, read back from their temporaries, so a workbook cell is the CSV
 * cell) and the per-rank summaries (the traces, timeline, steps and
 * step_summary datasets of the HDF5 file, as tlm_out_table_csv prints
 * them), one worksheet each, with the report layer's writer
 * (xlsx_write.c: one writer for every workbook of tlmpi).
 *
 * Note: the CSV reader (tlm_csv_read, tlm_csv_parse) and its raw tables
 * (tlm_rawtab) are still the private headers of src/cmp (cmp_internal.h,
 * rawtab.h), which this layer sees through its link to cmp; a public CSV
 * reader of the table layer (a tlm_tab from a CSV) would be the clean
 * route, left for the table model's own step.
 */
#define _GNU_SOURCE 1 /* open_memstream */
#include "report0.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"
#include "rawtab.h"
#include "tables.h"
#include "xlsx_write.h"

#define MAX_SHEETS 16

typedef struct sheets {
    tlm_tab *t[MAX_SHEETS];
    size_t n;
} sheets;

static tlm_status add_raw(sheets *s, tlm_rawtab *raw, const char *name,
                          tlm_error *err)
{
    tlm_tab *t = NULL;
    tlm_status st = tlm_rawtab_to_tab(raw, name, &t, err);
    tlm_rawtab_free(raw);
    if (st == TLM_OK)
        s->t[s->n++] = t;
    return st;
}

/* A staged CSV of csv_dir, when tlm_out_report_write wrote it (some are
 * written only when not empty). */
static tlm_status add_staged(sheets *s, const tlm_outset *set,
                             const char *csv_dir, const char *file,
                             tlm_error *err)
{
    char path[TLM_OUT_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", csv_dir, file);
    for (size_t i = 0; i < set->n; i++) {
        const tlm_outfile *f = &set->f[i];
        if (f->state != TLM_OUT_STAGED || strcmp(f->path, path) != 0)
            continue;
        tlm_rawtab *raw = NULL;
        tlm_status st = tlm_csv_read(f->tmp, &raw, err);
        if (st != TLM_OK)
            return st;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(file) - 4), file);
        return add_raw(s, raw, name, err);
    }
    return TLM_OK;
}

/* A dataset's rows as the sheet name. */
static tlm_status add_rows(sheets *s, const char *name,
                           const tlm_rowtab *t, const void *rows, size_t n,
                           tlm_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    tlm_out_table_csv(f, t, rows, n);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(buf);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    tlm_rawtab *raw = NULL;
    tlm_status st = tlm_csv_parse(buf, len, name, &raw, err);
    free(buf);
    return st == TLM_OK ? add_raw(s, raw, name, err) : st;
}

static tlm_status write_book(sheets *s, const char *path, tlm_outset *set,
                             tlm_error *err)
{
    const char *names[MAX_SHEETS];
    char sn[MAX_SHEETS][TLM_XLSX_NAME_MAX];
    tlm_xlsx_sheet sh[MAX_SHEETS];
    for (size_t i = 0; i < s->n; i++)
        names[i] = s->t[i]->name;
    tlm_xlsx_sheet_names(names, s->n, sn);
    for (size_t i = 0; i < s->n; i++) {
        sh[i].tab = s->t[i];
        sh[i].name = sn[i];
        sh[i].hidden = NULL;
    }
    const char *tmp = NULL;
    tlm_status st = tlm_outset_stage(set, path, &tmp, err);
    if (st == TLM_OK)
        st = tlm_xlsx_write(tmp, sh, s->n, err);
    return st;
}

tlm_status tlm_out_report_xlsx(const tlm_out_results *r, const char *csv_dir,
                               const char *path, tlm_outset *set,
                               tlm_error *err)
{
    sheets s;
    memset(&s, 0, sizeof s);
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && tlm_out_report_csvs[i]; i++)
        st = add_staged(&s, set, csv_dir, tlm_out_report_csvs[i], err);
    if (st == TLM_OK)
        st = add_rows(&s, "traces", &tlm_tab_traces, r->traces, r->n_traces,
                      err);
    if (st == TLM_OK)
        st = add_rows(&s, "timeline", &tlm_tab_timeline, r->timeline,
                      r->n_traces, err);
    if (st == TLM_OK && r->n_steps)
        st = add_rows(&s, "steps", &tlm_tab_steps, r->steps, r->n_steps,
                      err);
    if (st == TLM_OK && r->n_step_sum)
        st = add_rows(&s, "step_summary", &tlm_tab_step_summary, r->step_sum,
                      r->n_step_sum, err);
    if (st == TLM_OK)
        st = write_book(&s, path, set, err);
    for (size_t i = 0; i < s.n; i++)
        tlm_tab_free(s.t[i]);
    if (st != TLM_OK)
        tlm_outset_abort(set);
    return st;
}
