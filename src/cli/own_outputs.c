/*
 * own_outputs.c - tlmpi's own outputs met in a trace folder (issue 34):
 * the default outputs go beside the traces (tlmpi.h5, report.md, the CSV
 * sheets, findings.csv, plots/, hta/, a merged trace, a workbook), so a
 * re-run in that folder meets them.  Each is recognised by its name and
 * its content (the HDF5 signature and tlmpi's writer string, tlmpi's CSV
 * headers, report.md's title, the PNG or zip signature, a merged trace's
 * otherData.generator): `--trace_dir` neither lists them as "not traces"
 * nor reads them as traces.  A user's file of the same name with other
 * content is still listed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "discover.h"

/* A CSV of tlmpi's by name, and the start of its header. */
typedef struct own_csv {
    const char *name, *head;
} own_csv;

static const own_csv k_csvs[] = {
    {"nccl_summary_implicit_sync.csv", "Collective name,dtype,"},
    {"nccl_summary_long.csv", "rank,Process Group Name,"},
    {"nccl_summary_all2allv.csv", "Process Group Name,dtype,"},
    {"nccl_long.csv", "collective_id,index_in_group,rank,"},
    {"nccl_implicit_sync.csv", "collective_id,Process Group Name,"},
    {"nccl_all2allv.csv", "collective_id,Process Group Name,"},
    {"straggler_summary.csv", "rank,total_wait_time_us,"},
    {"findings.csv", "id,rule,mode,"},
    /* tlmpi report --output_csvs_dir: TraceLens's main sheets */
    {"gpu_timeline.csv", "type,time ms,"},
    {"ops_summary_by_category.csv", "op category,"},
    {"ops_summary.csv", "name,"},
    {"ops_unique_args.csv", "name,"},
    {"unified_perf_summary.csv", "name,"},
    {"kernel_summary.csv", "Parent op category,"},
    {"short_kernel_histogram.csv", "bin_start,bin_end,"},
    {"short_kernels_summary.csv", "Parent cpu_op,"},
};

/* The first bytes of path (not inflated): their count, or -1. */
static long read_head(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < cap) {
        ssize_t r = read(fd, buf + got, cap - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return (long)got;
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* Whether buf[0..n) holds the bytes of s somewhere. */
static int has_bytes(const char *buf, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; k && i + k <= n; i++)
        if (buf[i] == s[0] && memcmp(buf + i, s, k) == 0)
            return 1;
    return 0;
}

/* The folder holding rel's last component is `dir` ("dir/x", "a/dir/x"). */
static int in_folder(const char *rel, const char *dir)
{
    const char *slash = strrchr(rel, '/');
    size_t k = strlen(dir);
    if (!slash || (size_t)(slash - rel) < k)
        return 0;
    const char *d = slash - k;
    return memcmp(d, dir, k) == 0 && (d == rel || d[-1] == '/');
}

/* A CSV by name and header: tlmpi's sheets, and any CSV of hta/. */
static int own_csv_file(const char *rel, const char *base, const char *h,
                        size_t n)
{
    for (size_t i = 0; i < sizeof k_csvs / sizeof *k_csvs; i++)
        if (strcmp(base, k_csvs[i].name) == 0) {
            size_t k = strlen(k_csvs[i].head);
            return n >= k && memcmp(h, k_csvs[i].head, k) == 0;
        }
    /* hta/<table>.csv: a header line of names (HTA's tables, --hta) */
    return in_folder(rel, "hta") && n > 0 && h[0] != '{' && h[0] != '[' &&
           memchr(h, ',', n) != NULL && memchr(h, '\n', n) != NULL;
}

int tlm_cli_own_output(const char *path, const char *rel,
                       const tlm_sniff *sn)
{
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (sn->verdict == TLM_SNIFF_TRACE) /* only tlmpi's merged trace */
        return sn->by_tlmpi;
    if (sn->verdict != TLM_SNIFF_NOT_TRACE || sn->gzip)
        return 0;
    char h[16384];
    long got = read_head(path, h, sizeof h);
    if (got <= 0)
        return 0;
    size_t n = (size_t)got;
    if (ends_with(base, ".h5")) /* the signature and tlmpi's writer */
        return n >= 8 && memcmp(h, "\x89HDF\r\n\x1a\n", 8) == 0 &&
               (strcmp(base, "tlmpi.h5") == 0 ||
                strcmp(base, "audit.h5") == 0 || has_bytes(h, n, "tlmpi "));
    if (ends_with(base, ".csv"))
        return own_csv_file(rel, base, h, n);
    if (strcmp(base, "report.md") == 0 || strcmp(base, "audit.md") == 0)
        return (n >= 8 && memcmp(h, "# tlmpi ", 8) == 0) ||
               (n >= 22 && memcmp(h, "# Performance report: ", 22) == 0);
    if (ends_with(base, ".png")) /* --plots: plots/<name>.png */
        return in_folder(rel, "plots") && n >= 8 &&
               memcmp(h, "\x89PNG\r\n\x1a\n", 8) == 0;
    if (ends_with(base, ".xlsx")) /* --output_xlsx_path, report's default */
        return n >= 4 && memcmp(h, "PK\3\4", 4) == 0;
    return 0;
}
