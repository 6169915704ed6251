/*
 * rsrc.c - a report to compare: a folder of per-sheet CSVs (TraceLens's
 * or tlmpi's), an .xlsx workbook, or CSV texts in memory (a report tlmpi
 * has just built from a trace, serialised the way its CSV files are so
 * that every kind of input is typed the same way).  As TraceLens does, a
 * path that is a folder is a CSV report and anything else a workbook
 * (compare.md §2.1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmp_internal.h"
#include "walk.h"
#include "xlsx_read.h"

typedef enum { RS_DIR, RS_XLSX, RS_MEM } rs_kind;

struct tlm_rsrc {
    rs_kind kind;
    char *path;
    char **sheets; /* sheet names (folder: sorted) */
    size_t nsheets;
    tlm_xlsx *x;   /* RS_XLSX */
    char **csv;    /* RS_MEM: texts, per sheet */
    size_t *len;
};

void tlm_rsrc_free(tlm_rsrc *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nsheets; i++) {
        free(r->sheets[i]);
        if (r->csv)
            free(r->csv[i]);
    }
    free(r->sheets);
    free(r->csv);
    free(r->len);
    if (r->x)
        tlm_xlsx_close(r->x);
    free(r->path);
    free(r);
}

const char *tlm_rsrc_path(const tlm_rsrc *r)
{
    return r->path;
}

size_t tlm_rsrc_nsheets(const tlm_rsrc *r)
{
    return r->nsheets;
}

const char *tlm_rsrc_sheet(const tlm_rsrc *r, size_t i)
{
    return i < r->nsheets ? r->sheets[i] : NULL;
}

static long sheet_index(const tlm_rsrc *r, const char *sheet)
{
    for (size_t i = 0; i < r->nsheets; i++)
        if (!strcmp(r->sheets[i], sheet))
            return (long)i;
    return -1;
}

int tlm_rsrc_has(const tlm_rsrc *r, const char *sheet)
{
    return sheet_index(r, sheet) >= 0;
}

static int push_sheet(tlm_rsrc *r, const char *name, size_t n)
{
    char **v = realloc(r->sheets, (r->nsheets + 1) * sizeof *v);
    if (!v)
        return -1;
    r->sheets = v;
    if (!(v[r->nsheets] = malloc(n + 1)))
        return -1;
    memcpy(v[r->nsheets], name, n);
    v[r->nsheets++][n] = '\0';
    return 0;
}

/* strcmp of two sheet names, for qsort. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's sheets: the *.csv names without the suffix, sorted (without
 * it: "a-b" sorts after "a" although "a-b.csv" sorts before "a.csv"). */
static tlm_status list_dir(tlm_rsrc *r, tlm_error *err)
{
    char **v;
    size_t n;
    tlm_status st = tlm_dir_list(r->path, 0, 0, &v, &n, err);
    for (size_t i = 0; st == TLM_OK && i < n; i++) {
        size_t l = strlen(v[i]);
        if (l > 4 && !strcmp(v[i] + l - 4, ".csv") &&
            push_sheet(r, v[i], l - 4) != 0)
            st = tlm_error_set(err, TLM_ENOMEM, r->path, -1, "out of memory");
    }
    tlm_dir_free(v, n);
    if (st == TLM_OK && r->nsheets)
        qsort(r->sheets, r->nsheets, sizeof *r->sheets, by_name);
    return st;
}

static tlm_status list_xlsx(tlm_rsrc *r, tlm_error *err)
{
    tlm_status st = tlm_xlsx_open(r->path, &r->x, err);
    size_t n = st == TLM_OK ? tlm_xlsx_nsheets(r->x) : 0;
    for (size_t i = 0; st == TLM_OK && i < n; i++) {
        const char *s = tlm_xlsx_sheet_name(r->x, i);
        if (push_sheet(r, s, strlen(s)) != 0)
            st = tlm_error_set(err, TLM_ENOMEM, r->path, -1, "out of memory");
    }
    return st;
}

tlm_status tlm_rsrc_open(const char *path, tlm_rsrc **out, tlm_error *err)
{
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return tlm_error_set(err, errno == ENOENT ? TLM_ENOTFOUND : TLM_EIO,
                             path, -1, "cannot open the report: %s",
                             strerror(errno));
    tlm_rsrc *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    }
    r->kind = S_ISDIR(sb.st_mode) ? RS_DIR : RS_XLSX;
    tlm_status st = r->kind == RS_DIR ? list_dir(r, err) : list_xlsx(r, err);
    if (st != TLM_OK) {
        tlm_rsrc_free(r);
        return st;
    }
    *out = r;
    return TLM_OK;
}

tlm_status tlm_rsrc_mem(const char *label, size_t n,
                        const char *const *names, const char *const *csv,
                        const size_t *len, tlm_rsrc **out, tlm_error *err)
{
    *out = NULL;
    tlm_rsrc *r = calloc(1, sizeof *r);
    int ok = r && (r->path = strdup(label)) &&
             (r->csv = calloc(n ? n : 1, sizeof *r->csv)) &&
             (r->len = calloc(n ? n : 1, sizeof *r->len));
    for (size_t i = 0; ok && i < n; i++) {
        ok = push_sheet(r, names[i], strlen(names[i])) == 0 &&
             (r->csv[i] = malloc(len[i] + 1)) != NULL;
        if (ok) {
            memcpy(r->csv[i], csv[i], len[i]);
            r->csv[i][len[i]] = '\0';
            r->len[i] = len[i];
        }
    }
    if (r)
        r->kind = RS_MEM;
    if (!ok) {
        tlm_rsrc_free(r);
        return tlm_error_set(err, TLM_ENOMEM, label, -1, "out of memory");
    }
    *out = r;
    return TLM_OK;
}

tlm_status tlm_rsrc_load(tlm_rsrc *r, const char *sheet, tlm_tab **out,
                         tlm_error *err)
{
    *out = NULL;
    long i = sheet_index(r, sheet);
    if (i < 0)
        return tlm_error_set(err, TLM_ENOTFOUND, r->path, -1,
                             r->kind == RS_XLSX
                                 ? "%s has no sheet named '%s'"
                                 : "%s has no '%s.csv'",
                             r->path, sheet);
    tlm_rawtab *raw = NULL;
    tlm_status st;
    if (r->kind == RS_XLSX) {
        st = tlm_xlsx_read_sheet(r->x, sheet, &raw, err);
    } else if (r->kind == RS_MEM) {
        st = tlm_csv_parse(r->csv[i], r->len[i], r->path, &raw, err);
    } else {
        size_t n = strlen(r->path) + strlen(sheet) + 6;
        char *p = malloc(n);
        if (!p)
            return tlm_error_set(err, TLM_ENOMEM, r->path, -1,
                                 "out of memory");
        snprintf(p, n, "%s/%s.csv", r->path, sheet);
        st = tlm_csv_read(p, &raw, err);
        free(p);
    }
    if (st == TLM_OK)
        st = tlm_rawtab_to_tab(raw, sheet, out, err);
    tlm_rawtab_free(raw);
    return st;
}
