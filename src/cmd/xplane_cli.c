/*
 * xplane_cli.c - XPlane (JAX) traces in `tlmpi report` and `tlmpi
 * inspect` (xplane_cli.h).  The report writes the five sheets of
 * TraceLens's JAX report the XPlane determines (src/report/xsheets.h)
 * through the command's output set: staged under temporary names,
 * published together, nothing left on failure.
 */
#include "xplane_cli.h"

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_xplane.h"

#include "xlsx_write.h"
#include "xsheets.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Monotonic seconds. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Each JAX sheet as a CSV staged in the set. */
static tlm_status stage_csvs(tlm_tab *const *t, tlm_outset *set,
                             const char *dir, tlm_error *err)
{
    char path[4200];
    tlm_status st = TLM_OK;
    for (int i = 0; i < TLM_XSHEETS_N && st == TLM_OK; i++) {
        const char *tmp = NULL;
        snprintf(path, sizeof path, "%s/%s.csv", dir, t[i]->name);
        st = tlm_outset_stage(set, path, &tmp, err);
        if (st == TLM_OK)
            st = tlm_tab_write_csv(t[i], tmp, err);
    }
    return st;
}

/* The JAX sheets as one workbook staged in the set. */
static tlm_status stage_xlsx(tlm_tab *const *t, tlm_outset *set,
                             const char *xlsx, tlm_error *err)
{
    tlm_xlsx_sheet sh[TLM_XSHEETS_N];
    const char *names[TLM_XSHEETS_N];
    char valid[TLM_XSHEETS_N][TLM_XLSX_NAME_MAX];
    for (int i = 0; i < TLM_XSHEETS_N; i++)
        names[i] = t[i]->name;
    /* Excel's 31 characters: kernel_launchers_summary_by_cat */
    tlm_xlsx_sheet_names(names, TLM_XSHEETS_N, valid);
    for (int i = 0; i < TLM_XSHEETS_N; i++)
        sh[i] = (tlm_xlsx_sheet){t[i], valid[i], NULL};
    const char *tmp = NULL;
    tlm_status st = tlm_outset_stage(set, xlsx, &tmp, err);
    if (st == TLM_OK)
        st = tlm_xlsx_write(tmp, sh, TLM_XSHEETS_N, err);
    return st;
}

/* The summary line on stderr. */
static void summary(const char *path, const tlm_xplane *x, const char *dir,
                    const char *xlsx, double t_read, double t_all)
{
    const tlm_xplane_stats *s = tlm_xplane_stats_get(x);
    fprintf(stderr, "tlmpi report: %s: XPlane, %d tables in %s%s%s "
            "(read %.3f s, tables and write %.3f s)\n", path, TLM_XSHEETS_N,
            dir ? dir : "", dir && xlsx ? " and " : "", xlsx ? xlsx : "",
            t_read, t_all - t_read);
    fprintf(stderr, "  planes %u (GPU %u), events %llu, %llu bytes of "
            "protobuf%s\n", s->n_planes, s->n_gpu_planes,
            (unsigned long long)s->n_events,
            (unsigned long long)s->bytes_pb, s->gzip ? " (gzip)" : "");
}

int tlm_cli_xplane_report(const char *path, unsigned compat, tlm_outset *set,
                          const char *dir, const char *xlsx, int quiet)
{
    tlm_error err;
    tlm_error_clear(&err);
    tlm_xplane *x = NULL;
    tlm_tab *t[TLM_XSHEETS_N] = {0};
    double t0 = now_s(), t1 = t0;
    tlm_status st = tlm_xplane_read_file(path, NULL, &x, &err);
    if (st == TLM_OK) {
        t1 = now_s();
        st = tlm_xsheets_build(x, compat, t, &err);
        if (st != TLM_OK && !err.file[0]) /* name the file */
            snprintf(err.file, sizeof err.file, "%s", path);
    }
    if (st == TLM_OK && dir)
        st = stage_csvs(t, set, dir, &err);
    if (st == TLM_OK && xlsx)
        st = stage_xlsx(t, set, xlsx, &err);
    if (st == TLM_OK)
        st = tlm_outset_commit(set, &err);
    if (st != TLM_OK) {
        char msg[1024];
        tlm_outset_abort(set);
        fprintf(stderr, "tlmpi report: error: %s\n",
                tlm_error_format(&err, msg, sizeof msg));
    } else if (!quiet) {
        summary(path, x, dir, xlsx, t1 - t0, now_s() - t0);
    }
    for (int i = 0; i < TLM_XSHEETS_N; i++)
        tlm_tab_free(t[i]);
    tlm_xplane_free(x);
    return st == TLM_OK ? 0 : 1;
}

int tlm_cli_xplane_inspect(const char *path)
{
    tlm_error err;
    tlm_xplane *x = NULL;
    double t0 = now_s();
    if (tlm_xplane_read_file(path, NULL, &x, &err) != TLM_OK) {
        char msg[1024];
        fprintf(stderr, "tlmpi inspect: error: %s\n",
                tlm_error_format(&err, msg, sizeof msg));
        return 1;
    }
    double dt = now_s() - t0;
    const tlm_xplane_stats *s = tlm_xplane_stats_get(x);
    size_t np;
    const tlm_xp_plane *pl = tlm_xplane_planes(x, &np);
    char nm[128];
    printf("%s\n  trace format: xplane\n  format: xplane (XSpace protobuf%s)\n", path,
           s->gzip ? ", gzip" : "");
    printf("  bytes on disk: %llu; bytes of protobuf: %llu\n",
           (unsigned long long)s->bytes_in, (unsigned long long)s->bytes_pb);
    printf("  events: %llu\n  planes: %u (GPU: %u)\n",
           (unsigned long long)s->n_events, s->n_planes, s->n_gpu_planes);
    for (size_t i = 0; i < np && i < 64; i++)
        printf("    %s: id %lld, lines %u, events %llu%s\n",
               tlm_escape_ctrl(nm, 64, pl[i].name), (long long)pl[i].id,
               pl[i].n_lines, (unsigned long long)pl[i].n_events,
               pl[i].gpu ? " (GPU)" : "");
    if (np > 64)
        printf("    ... %zu more planes\n", np - 64);
    printf("  read: %.3f s, %.1f MB/s of protobuf\n", dt,
           dt > 0 ? (double)s->bytes_pb / 1e6 / dt : 0.0);
    tlm_xplane_free(x);
    return 0;
}
