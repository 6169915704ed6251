/*
 * plots.c - --plots (plots.h): finding the plot script and an interpreter
 * and running it as a child of rank 0 (posix_spawn, no shell: the paths
 * are passed as arguments, never parsed).
 *
 * Exit codes of scripts/tlmpi_plot.py: 0 written, 3 a module it needs
 * (matplotlib, h5py, pandas) is missing, anything else a failure it has
 * explained on stderr.
 */
#include "plots.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TLM_SCRIPTS_DIR
#define TLM_SCRIPTS_DIR "scripts"
#endif

extern char **environ;

const char *const tlm_out_plot_names[] = {
    "arrival_heatmap.png", "busbw.png", "gpu_time.png", "scaling.png", NULL};

tlm_status tlm_out_plots_check(tlm_outset *out, const char *dir,
                               tlm_error *err)
{
    char p[4096];
    for (size_t i = 0; tlm_out_plot_names[i]; i++) {
        int w = snprintf(p, sizeof p, "%s/plots/%s", dir,
                         tlm_out_plot_names[i]);
        if (w < 0 || (size_t)w >= sizeof p)
            return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                                 "--plots: output path too long");
        tlm_status st = tlm_outset_check(out, p, err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* <bin>/../lib/python3/dist-packages/name of this program into out; 0
 * when it is a file. */
static int installed_file(const char *name, char *out, size_t cap)
{
    char rel[512];
    int w = snprintf(rel, sizeof rel, "../lib/python3/dist-packages/%s", name);
    if (w <= 0 || (size_t)w >= sizeof rel ||
        tlm_self_dir_path(rel, out, cap) != 0)
        return -1;
    return is_file(out) ? 0 : -1;
}

int tlm_out_installed(void)
{
    char p[4200];
    return installed_file("tlmpi_h5.py", p, sizeof p) == 0;
}

/* The script's path into out: environment, install tree, source tree. */
static int find_script(char *out, size_t cap)
{
    const char *env = getenv("TLMPI_PLOT_SCRIPT");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return is_file(out) ? 0 : -1;
    }
    if (installed_file("tlmpi_plot.py", out, cap) == 0)
        return 0;
    int w = snprintf(out, cap, "%s/tlmpi_plot.py", TLM_SCRIPTS_DIR);
    return w > 0 && (size_t)w < cap && is_file(out) ? 0 : -1;
}

/* Runs py script h5 --out dir/plots; returns its exit code, 127 when it
 * cannot be started, -1 when killed. */
static int run(const char *py, const char *script, const char *h5,
               const char *pdir, int quiet)
{
    char *argv[8];
    int k = 0;
    argv[k++] = (char *)py;
    argv[k++] = (char *)script;
    argv[k++] = (char *)h5;
    argv[k++] = (char *)"--out";
    argv[k++] = (char *)pdir;
    if (quiet)
        argv[k++] = (char *)"--quiet";
    argv[k] = NULL;
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    int rc = strchr(py, '/') ? posix_spawn(&pid, py, NULL, NULL, argv, environ)
                             : posix_spawnp(&pid, py, NULL, NULL, argv,
                                            environ);
    if (rc != 0)
        return 127;
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (!WIFEXITED(ws))
        return -1;
    return WEXITSTATUS(ws);
}

/* Why the plots were skipped, as one line: on stderr unless quiet, and
 * always in the run's report (report.md, else audit.md, in dir), so that
 * --quiet loses nothing. */
static void skipped(const char *dir, int quiet, const char *fmt, ...)
    TLM_PRINTF(3, 4);
static void skipped(const char *dir, int quiet, const char *fmt, ...)
{
    char msg[600], p[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!quiet)
        fprintf(stderr, "tlmpi: %s\n", msg);
    static const char *const reports[] = {"report.md", "audit.md"};
    for (size_t i = 0; i < 2; i++) {
        int w = snprintf(p, sizeof p, "%s/%s", dir, reports[i]);
        if (w < 0 || (size_t)w >= sizeof p || !is_file(p))
            continue;
        FILE *f = fopen(p, "a");
        if (f) {
            fprintf(f, "\n**Plots**: %s\n", msg);
            fclose(f);
        }
        return;
    }
}

int tlm_out_plots(const char *h5, const char *dir, int quiet)
{
    char script[4096], pdir[4096];
    if (find_script(script, sizeof script) != 0) {
        skipped(dir, quiet, "plots skipped: tlmpi_plot.py not found "
                            "(set TLMPI_PLOT_SCRIPT); the analysis is "
                            "complete");
        return -1;
    }
    int w = snprintf(pdir, sizeof pdir, "%s/plots", dir);
    if (w < 0 || (size_t)w >= sizeof pdir)
        return -1;
    const char *env = getenv("TLMPI_PYTHON");
    const char *py = env && *env ? env : "python3";
    int rc = run(py, script, h5, pdir, quiet);
    if (rc == 3 && !(env && *env) && is_file("/usr/bin/python3"))
        rc = run("/usr/bin/python3", script, h5, pdir, quiet);
    if (rc == 0)
        return 0;
    if (rc == 127)
        skipped(dir, quiet, "plots skipped: no Python interpreter '%s' "
                            "(install python3 and python3-matplotlib, or "
                            "set TLMPI_PYTHON); the analysis is complete",
                py);
    else if (rc == 3)
        skipped(dir, quiet, "plots skipped: Python has no matplotlib, "
                            "h5py or pandas (Debian: apt install "
                            "python3-matplotlib python3-h5py "
                            "python3-pandas); the analysis is complete");
    else
        skipped(dir, quiet, "warning: plots failed (tlmpi_plot.py exit "
                            "%d); the analysis is complete", rc);
    return -1;
}
