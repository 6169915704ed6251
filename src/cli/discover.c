/*
 * discover.c - trace file discovery for the driver (rank 0 only).
 *
 * The four input modes of docs/cli.md become one flat list of (path, size
 * on disk, rank from the name).  The trace's own rank (distributedInfo) is
 * only known once its owner has read it; the driver checks duplicates and
 * missing ranks after an all-gather of the per-file results, so discovery
 * never opens a trace.  The list is packed into one buffer for MPI_Bcast.
 */
#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "tlmpi/tlm_format.h"

/* A growable list of malloc'd paths. */
typedef struct plist {
    char **v;
    int64_t *nr;
    size_t n, cap;
} plist;

/* Appends a path (copied) and its rank from the name; -1 out of memory. */
static int plist_add(plist *l, const char *p, int64_t name_rank)
{
    size_t cv = l->cap, cn = l->cap; /* parallel arrays */
    if (tlm_grow((void **)&l->v, &cv, l->n + 1, sizeof *l->v, 64) ||
        tlm_grow((void **)&l->nr, &cn, l->n + 1, sizeof *l->nr, 64))
        return -1;
    l->cap = cv;
    size_t len = strlen(p);
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, p, len + 1);
    l->v[l->n] = c;
    l->nr[l->n] = name_rank;
    l->n++;
    return 0;
}

/* Frees the paths and the list. */
static void plist_free(plist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->nr);
    memset(l, 0, sizeof *l);
}

int64_t tlm_cli_name_rank(const char *path, const void *compiled, int group)
{
    const regex_t *re = compiled;
    regmatch_t m[10];
    if (group < 0 || group > 9)
        return -1;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *where[2] = {base, path};
    for (int w = 0; w < 2; w++) {
        if (regexec(re, where[w], 10, m, 0) != 0)
            continue;
        if (m[group].rm_so < 0)
            continue;
        const char *s = where[w] + m[group].rm_so;
        size_t len = (size_t)(m[group].rm_eo - m[group].rm_so);
        if (len == 0 || len > 18)
            continue;
        int64_t v = 0;
        size_t k = 0;
        for (; k < len && s[k] >= '0' && s[k] <= '9'; k++)
            v = v * 10 + (s[k] - '0');
        if (k == len)
            return v;
    }
    return -1;
}

/* Rank from the '*' part of a pattern match: digits only, else -1. */
static int64_t star_rank(const char *path, const char *pat)
{
    const char *star = strchr(pat, '*');
    size_t pre = (size_t)(star - pat), suf = strlen(star + 1);
    size_t n = strlen(path);
    if (n < pre + suf + 1)
        return -1;
    int64_t v = 0;
    for (size_t k = pre; k < n - suf; k++) {
        if (path[k] < '0' || path[k] > '9' || k - pre > 17)
            return -1;
        v = v * 10 + (path[k] - '0');
    }
    return v;
}

typedef struct pathrank {
    char *p;
    int64_t nr;
} pathrank;

/* By path, byte order. */
static int cmp_pathrank(const void *a, const void *b)
{
    return strcmp(((const pathrank *)a)->p, ((const pathrank *)b)->p);
}

/* Sorts paths and their name ranks together, by path. */
static void sort_plist(plist *l, int *nomem)
{
    pathrank *pr = malloc((l->n ? l->n : 1) * sizeof *pr);
    if (!pr) {
        *nomem = 1;
        return;
    }
    for (size_t i = 0; i < l->n; i++)
        pr[i] = (pathrank){l->v[i], l->nr[i]};
    qsort(pr, l->n, sizeof *pr, cmp_pathrank);
    for (size_t i = 0; i < l->n; i++) {
        l->v[i] = pr[i].p;
        l->nr[i] = pr[i].nr;
    }
    free(pr);
}

/* The list as a tlm_cli_filelist: paths in one blob, ranks beside them. */
static tlm_status finish(plist *l, int rank_source, tlm_cli_filelist *out,
                         tlm_error *err)
{
    memset(out, 0, sizeof *out);
    size_t blob = 0;
    for (size_t i = 0; i < l->n; i++)
        blob += strlen(l->v[i]) + 1;
    out->n = l->n;
    out->rank_source = rank_source;
    out->blob = malloc(blob ? blob : 1);
    out->path = malloc((l->n ? l->n : 1) * sizeof *out->path);
    out->size = calloc(l->n ? l->n : 1, sizeof *out->size);
    out->name_rank = calloc(l->n ? l->n : 1, sizeof *out->name_rank);
    if (!out->blob || !out->path || !out->size || !out->name_rank) {
        tlm_cli_filelist_free(out);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory listing traces");
    }
    size_t off = 0;
    for (size_t i = 0; i < l->n; i++) {
        size_t len = strlen(l->v[i]) + 1;
        memcpy(out->blob + off, l->v[i], len);
        out->path[i] = out->blob + off;
        off += len;
        out->name_rank[i] = l->nr[i];
        struct stat sb;
        if (stat(l->v[i], &sb) != 0) {
            tlm_status st = tlm_error_set(err, TLM_ENOTFOUND, l->v[i], -1,
                                          "cannot open trace file: %s",
                                          strerror(errno));
            tlm_cli_filelist_free(out);
            return st;
        }
        if (!S_ISREG(sb.st_mode)) {
            tlm_status st = tlm_error_set(
                err, TLM_EINVAL, l->v[i], -1, "%s",
                S_ISDIR(sb.st_mode) ? "a folder, given as a trace file "
                                      "(a folder of traces: --trace_dir "
                                      "FOLDER)"
                                    : "not a regular file");
            tlm_cli_filelist_free(out);
            return st;
        }
        out->size[i] = (int64_t)sb.st_size;
    }
    out->blob_len = blob;
    return TLM_OK;
}

/* Appends "a, b, c" (at most ~400 chars) to buf. */
static void list_missing(char *buf, size_t cap, const int64_t *r, size_t n)
{
    size_t len = strlen(buf);
    for (size_t i = 0; i < n && len + 24 < cap; i++) {
        if (len > 380) {
            snprintf(buf + len, cap - len, ", ... (%zu in all)", n);
            return;
        }
        int w = snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "",
                         (long long)r[i]);
        if (w < 0)
            return;
        len += (size_t)w;
    }
}

/* Compiles --rank_regex (or TraceLens's default) into *re. */
static tlm_status compile_rank_regex(const tlm_cli_opts *o, regex_t *re,
                                     int *group, tlm_error *err)
{
    char pre[1024];
    const char *rx = o && o->rank_regex ? o->rank_regex : NULL;
    tlm_status st = tlm_cli_regex_to_posix(
        rx ? rx : "rank[\\[\\-_/]?(?P<rank>\\d+)", pre, sizeof pre, group,
        err);
    if (st != TLM_OK)
        return st;
    if (regcomp(re, pre, REG_EXTENDED) != 0)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--rank_regex '%s' does not compile as POSIX "
                             "extended regex '%s'",
                             rx ? rx : "(default)", pre);
    return TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - name ranks over a set of files
 * ------------------------------------------------------------------ */

/* An ASCII digit (no locale). */
static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The same non-digit text around the digit runs. */
static int same_skeleton(const char *a, const char *b)
{
    while (*a && *b) {
        if (is_digit(*a) != is_digit(*b))
            return 0;
        if (is_digit(*a)) {
            while (is_digit(*a))
                a++;
            while (is_digit(*b))
                b++;
            continue;
        }
        if (*a++ != *b++)
            return 0;
    }
    return *a == *b;
}

/* Value of the k-th digit run of s (INT64_MAX when over 18 digits). */
static int64_t digit_run(const char *s, size_t k)
{
    for (; *s; s++) {
        if (!is_digit(*s))
            continue;
        if (k-- == 0) {
            int64_t v = 0;
            size_t nd = 0;
            for (; is_digit(*s); s++, nd++)
                v = nd < 18 ? v * 10 + (*s - '0') : INT64_MAX;
            return v;
        }
        while (is_digit(s[1]))
            s++;
    }
    return INT64_MAX;
}

/* Ascending int64. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Pairwise distinct and all below lim (v is sorted in place). */
static int distinct_below(int64_t *v, size_t n, int64_t lim)
{
    qsort(v, n, sizeof *v, cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (v[i] >= lim || (i && v[i] == v[i - 1]))
            return 0;
    return 1;
}

int tlm_cli_skeleton_ranks(const char *const *rel, size_t n, int64_t *rank)
{
    size_t runs = 0;
    if (n == 0)
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!same_skeleton(rel[0], rel[i]))
            return 0;
    for (const char *s = rel[0]; *s; s++)
        runs += is_digit(*s) && !is_digit(s[1]);
    int64_t *v = malloc(n * sizeof *v);
    int64_t lim = n > 512 ? (int64_t)(2 * n) : 1024;
    if (!v)
        return 0;
    for (size_t k = 0; k < runs; k++) {
        for (size_t i = 0; i < n; i++)
            v[i] = digit_run(rel[i], k);
        if (!distinct_below(v, n, lim))
            continue;
        for (size_t i = 0; i < n; i++)
            rank[i] = digit_run(rel[i], k);
        free(v);
        return 1;
    }
    free(v);
    return 0;
}

/* ------------------------------------------------------------------ *
 * MARK: - file lists
 * ------------------------------------------------------------------ */

/* A path's part below base ("" base or none: the path). */
static const char *rel_path(const char *p, const char *base)
{
    size_t bl = base ? strlen(base) : 0;
    while (bl > 1 && base[bl - 1] == '/')
        bl--;
    if (bl == 0 || strncmp(p, base, bl) != 0)
        return p;
    if (p[bl] == '/')
        return p + bl + 1;
    return bl == 1 && base[0] == '/' ? p + 1 : p;
}

/* Name ranks of the sorted list l (see tlm_cli_filelist_from_traces);
 * returns 1 when the sorted order was used. */
static int set_name_ranks(plist *l, const char *base, const regex_t *re,
                          int group, int *nomem)
{
    const char **rel = calloc(l->n ? l->n : 1, sizeof *rel);
    int any = 0;
    if (!rel) {
        *nomem = 1;
        return 0;
    }
    for (size_t i = 0; i < l->n; i++)
        rel[i] = rel_path(l->v[i], base);
    if (tlm_cli_skeleton_ranks(rel, l->n, l->nr)) {
        free(rel);
        return 0;
    }
    for (size_t i = 0; i < l->n; i++) {
        l->nr[i] = tlm_cli_name_rank(rel[i], re, group);
        any |= l->nr[i] >= 0;
    }
    free(rel);
    if (any || l->n < 2)
        return 0;
    for (size_t i = 0; i < l->n; i++)
        l->nr[i] = (int64_t)i;
    return 1;
}

tlm_status tlm_cli_filelist_from_traces(char *const *paths, size_t n,
                                        const char *base,
                                        const tlm_cli_opts *o,
                                        tlm_cli_filelist *out,
                                        tlm_error *err)
{
    plist l = {0};
    regex_t re;
    int group = 1, nomem = 0;
    memset(out, 0, sizeof *out);
    tlm_status st = compile_rank_regex(o, &re, &group, err);
    if (st != TLM_OK)
        return st;
    for (size_t i = 0; i < n && !nomem; i++)
        nomem = plist_add(&l, paths[i], -1) != 0;
    if (!nomem)
        sort_plist(&l, &nomem);
    int order = nomem ? 0 : set_name_ranks(&l, base, &re, group, &nomem);
    regfree(&re);
    if (nomem)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                           "out of memory listing traces");
    else
        st = finish(&l, TLM_CLI_RANK_TRACE_FIRST, out, err);
    if (st == TLM_OK)
        out->order_ranks = order;
    plist_free(&l);
    return st;
}

/* --trace_pattern with --world_size: rank r is the pattern with '*' := r. */
static tlm_status discover_ranked(const tlm_cli_opts *o, plist *l,
                                  tlm_error *err)
{
    const char *star = strchr(o->trace_pattern, '*');
    size_t pre_len = (size_t)(star - o->trace_pattern), n_missing = 0;
    int64_t *missing = malloc((size_t)o->world_size * sizeof *missing);
    tlm_status st = TLM_OK;
    if (!missing)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    for (long r = 0; r < o->world_size && st == TLM_OK; r++) {
        char p[4096];
        int w = snprintf(p, sizeof p, "%.*s%ld%s", (int)pre_len,
                         o->trace_pattern, r, star + 1);
        struct stat sb;
        if (w < 0 || (size_t)w >= sizeof p || stat(p, &sb) != 0)
            missing[n_missing++] = r;
        else if (plist_add(l, p, r) != 0)
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                               "out of memory listing traces");
    }
    if (st == TLM_OK && n_missing > 0 && (!o->allow_missing || l->n == 0)) {
        char msg[480];
        snprintf(msg, sizeof msg, "no file for rank%s ",
                 n_missing > 1 ? "s" : "");
        list_missing(msg, sizeof msg, missing, n_missing);
        st = tlm_error_set(err, TLM_ENOTFOUND, o->trace_pattern, -1,
                           "%s (--allow_missing goes on without them)", msg);
    }
    free(missing);
    return st;
}

/* --trace_pattern (no --world_size) or --trace_glob. */
static tlm_status discover_glob(const tlm_cli_opts *o, const regex_t *re,
                                int group, plist *l, tlm_error *err)
{
    const char *pat = o->trace_pattern ? o->trace_pattern : o->trace_glob;
    glob_t g;
    int rc = glob(pat, 0, NULL, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
        if (rc == 0)
            globfree(&g);
        return tlm_error_set(err, TLM_ENOTFOUND, pat, -1,
                             "no trace file matches");
    }
    if (rc != 0)
        return tlm_error_set(err, TLM_EIO, pat, -1, "glob failed (%d)", rc);
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < g.gl_pathc && st == TLM_OK; i++) {
        const char *p = g.gl_pathv[i];
        struct stat sb;
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            continue; /* folders the pattern matches; broken links
                       * stay and are named later */
        int64_t nr = o->trace_pattern ? star_rank(p, pat)
                                      : tlm_cli_name_rank(p, re, group);
        if (o->trace_pattern && nr < 0)
            continue; /* '*' did not stand for a rank number */
        if (plist_add(l, p, nr) != 0)
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                               "out of memory listing traces");
    }
    globfree(&g);
    if (st == TLM_OK && l->n == 0)
        st = tlm_error_set(err, TLM_ENOTFOUND, pat, -1,
                           "no trace file matches with a rank number");
    return st;
}

tlm_status tlm_cli_discover(const tlm_cli_opts *o, tlm_cli_filelist *out,
                            tlm_error *err)
{
    return tlm_cli_discover_with(o, NULL, NULL, out, err);
}

tlm_status tlm_cli_discover_with(const tlm_cli_opts *o, tlm_cli_sniff_fn fn,
                                 void *arg, tlm_cli_filelist *out,
                                 tlm_error *err)
{
    plist l = {0};
    regex_t re;
    int group = 1, nomem = 0;
    int src = TLM_CLI_RANK_NAME_FIRST;
    memset(out, 0, sizeof *out);
    if (o->trace_dir)
        return tlm_cli_discover_dir_with(o, fn, arg, out, err);
    tlm_status st = compile_rank_regex(o, &re, &group, err);
    if (st != TLM_OK)
        return st;
    if (o->trace_pattern && o->world_size > 0) {
        st = discover_ranked(o, &l, err);
    } else if (o->trace_pattern || o->trace_glob) {
        st = discover_glob(o, &re, group, &l, err);
    } else {
        src = TLM_CLI_RANK_TRACE_FIRST;
        for (size_t i = 0; i < o->n_files && !nomem; i++)
            nomem = plist_add(&l, o->files[i], tlm_cli_name_rank(
                                                   o->files[i], &re,
                                                   group)) != 0;
    }
    if (st == TLM_OK && o->trace_glob)
        sort_plist(&l, &nomem);
    if (st == TLM_OK && nomem)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                           "out of memory listing traces");
    if (st == TLM_OK)
        st = finish(&l, src, out, err);
    regfree(&re);
    plist_free(&l);
    return st;
}

void tlm_cli_filelist_free(tlm_cli_filelist *fl)
{
    if (!fl)
        return;
    free(fl->path);
    free(fl->size);
    free(fl->name_rank);
    free(fl->format);
    free(fl->blob);
    free(fl->skipped);
    free(fl->lookalike);
    memset(fl, 0, sizeof *fl);
}

/* Packed layout: u64 n, i64 rank_source, u64 blob_len, u64 order_ranks,
 * n x i64 size, n x i64 name_rank, n x i64 format (-1: not sniffed),
 * blob. */
tlm_status tlm_cli_filelist_pack(const tlm_cli_filelist *fl, char **buf,
                                 size_t *len)
{
    size_t n = fl->n;
    size_t total = 32 + 24 * n + fl->blob_len;
    char *b = malloc(total);
    if (!b)
        return TLM_ENOMEM;
    uint64_t h[4] = {n, (uint64_t)fl->rank_source, fl->blob_len,
                     (uint64_t)fl->order_ranks};
    memcpy(b, h, 32);
    if (n) {
        memcpy(b + 32, fl->size, 8 * n);
        memcpy(b + 32 + 8 * n, fl->name_rank, 8 * n);
    }
    for (size_t i = 0; i < n; i++) {
        int64_t f = fl->format ? fl->format[i] : -1;
        memcpy(b + 32 + 16 * n + 8 * i, &f, 8);
    }
    if (fl->blob_len)
        memcpy(b + 32 + 24 * n, fl->blob, fl->blob_len);
    *buf = b;
    *len = total;
    return TLM_OK;
}

tlm_status tlm_cli_filelist_unpack(const char *buf, size_t len,
                                   tlm_cli_filelist *out, tlm_error *err)
{
    memset(out, 0, sizeof *out);
    uint64_t h[4];
    if (len < 32)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "bad file list");
    memcpy(h, buf, 32);
    size_t n = (size_t)h[0], bl = (size_t)h[2];
    if (n > (len - 32) / 24 || 32 + 24 * n + bl != len)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "bad file list");
    out->n = n;
    out->rank_source = (int)h[1];
    out->order_ranks = h[3] != 0;
    out->blob_len = bl;
    out->path = malloc((n ? n : 1) * sizeof *out->path);
    out->size = malloc((n ? n : 1) * 8);
    out->name_rank = malloc((n ? n : 1) * 8);
    out->format = malloc((n ? n : 1) * sizeof *out->format);
    out->blob = malloc(bl ? bl : 1);
    if (!out->path || !out->size || !out->name_rank || !out->format ||
        !out->blob) {
        tlm_cli_filelist_free(out);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    if (n) {
        memcpy(out->size, buf + 32, 8 * n);
        memcpy(out->name_rank, buf + 32 + 8 * n, 8 * n);
    }
    for (size_t i = 0; i < n; i++) {
        int64_t f;
        memcpy(&f, buf + 32 + 16 * n + 8 * i, 8);
        out->format[i] = f >= 0 && f < TLM_FORMAT_COUNT ? (int32_t)f : -1;
    }
    if (bl)
        memcpy(out->blob, buf + 32 + 24 * n, bl);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        const char *z = off < bl ? memchr(out->blob + off, 0, bl - off) : NULL;
        if (!z) {
            tlm_cli_filelist_free(out);
            return tlm_error_set(err, TLM_EINVAL, NULL, -1, "bad file list");
        }
        out->path[i] = out->blob + off;
        off = (size_t)(z - out->blob) + 1;
    }
    return TLM_OK;
}
