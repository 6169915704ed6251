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

/* A growable list of malloc'd paths. */
typedef struct plist {
    char **v;
    int64_t *nr;
    size_t n, cap;
} plist;

static int plist_add(plist *l, const char *p, int64_t name_rank)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 64;
        char **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        int64_t *nn = realloc(l->nr, nc * sizeof *nn);
        if (!nn)
            return -1;
        l->nr = nn;
        l->cap = nc;
    }
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

static void plist_free(plist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->nr);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

int64_t tlm_mpi_name_rank(const char *path, const void *compiled, int group)
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

/* "trace" anywhere in the name, any case. */
static int has_trace_word(const char *s)
{
    for (; *s; s++) {
        static const char w[] = "trace";
        size_t k = 0;
        while (k < 5 && s[k] && (s[k] | 0x20) == w[k])
            k++;
        if (k == 5)
            return 1;
    }
    return 0;
}

static void note_skipped(char *buf, size_t cap, const char *name)
{
    size_t len = strlen(buf), n = strlen(name);
    if (len + n + 3 >= cap)
        return;
    if (len) {
        memcpy(buf + len, ", ", 2);
        len += 2;
    }
    memcpy(buf + len, name, n + 1);
}

static tlm_status finish(plist *l, int rank_source, tlm_mpi_filelist *out,
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
        tlm_mpi_filelist_free(out);
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
            tlm_mpi_filelist_free(out);
            return st;
        }
        if (!S_ISREG(sb.st_mode)) {
            tlm_status st = tlm_error_set(err, TLM_EINVAL, l->v[i], -1,
                                          "not a regular file");
            tlm_mpi_filelist_free(out);
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

tlm_status tlm_mpi_discover(const tlm_mpi_opts *o, tlm_mpi_filelist *out,
                            tlm_error *err)
{
    plist l = {0};
    tlm_status st = TLM_OK;
    regex_t re;
    int have_re = 0, group = 1;
    int src = TLM_MPI_RANK_TRACE_FIRST;
    int64_t *missing = NULL;
    size_t n_missing = 0;
    size_t dir_skipped = 0;
    char dir_skipped_names[256] = "";
    memset(out, 0, sizeof *out);

    char pre[1024];
    st = tlm_mpi_regex_to_posix(o->rank_regex ? o->rank_regex
                                              : "rank[\\[\\-_/]?(?P<rank>\\d+)",
                                pre, sizeof pre, &group, err);
    if (st != TLM_OK)
        return st;
    if (regcomp(&re, pre, REG_EXTENDED) != 0)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--rank_regex '%s' does not compile as POSIX "
                             "extended regex '%s'",
                             o->rank_regex ? o->rank_regex : "(default)", pre);
    have_re = 1;

    if (o->trace_dir) {
        DIR *d = opendir(o->trace_dir);
        if (!d) {
            st = tlm_error_set(err, TLM_ENOTFOUND, o->trace_dir, -1,
                               "cannot open trace folder: %s",
                               strerror(errno));
            goto done;
        }
        struct dirent *e;
        char p[4096];
        char skipped[256] = "";
        size_t n_skipped = 0;
        while ((e = readdir(d)) != NULL) {
            if (!has_suffix(e->d_name, ".json") &&
                !has_suffix(e->d_name, ".json.gz"))
                continue;
            int w = snprintf(p, sizeof p, "%s/%s", o->trace_dir, e->d_name);
            if (w < 0 || (size_t)w >= sizeof p)
                continue;
            /* a trace name that cannot be opened (a broken link, a
             * symlink loop) or is not a file stays in the list: the
             * checks below name it instead of silently dropping a rank */
            int64_t nr = tlm_mpi_name_rank(e->d_name, &re, group);
            if (nr < 0 && !has_trace_word(e->d_name)) {
                struct stat sb;
                if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
                    continue; /* a folder that is not named as a trace */
                note_skipped(skipped, sizeof skipped, e->d_name);
                n_skipped++;
                continue;
            }
            if (plist_add(&l, p, tlm_mpi_name_rank(p, &re, group)) != 0) {
                closedir(d);
                st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                   "out of memory listing traces");
                goto done;
            }
        }
        closedir(d);
        if (l.n == 0) {
            st = tlm_error_set(err, TLM_ENOTFOUND, o->trace_dir, -1,
                               "no *.json or *.json.gz trace files in the "
                               "folder%s%s%s",
                               n_skipped ? " (skipped, no 'trace' or rank in "
                                           "the name: "
                                         : "",
                               skipped, n_skipped ? ")" : "");
            goto done;
        }
        dir_skipped = n_skipped;
        memcpy(dir_skipped_names, skipped, sizeof skipped);
    } else if (o->trace_pattern && o->world_size > 0) {
        src = TLM_MPI_RANK_NAME_FIRST;
        const char *star = strchr(o->trace_pattern, '*');
        size_t pre_len = (size_t)(star - o->trace_pattern);
        missing = malloc((size_t)o->world_size * sizeof *missing);
        if (!missing) {
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
            goto done;
        }
        for (long r = 0; r < o->world_size; r++) {
            char p[4096];
            int w = snprintf(p, sizeof p, "%.*s%ld%s", (int)pre_len,
                             o->trace_pattern, r, star + 1);
            struct stat sb;
            if (w < 0 || (size_t)w >= sizeof p || stat(p, &sb) != 0) {
                missing[n_missing++] = r;
                continue;
            }
            if (plist_add(&l, p, r) != 0) {
                st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                   "out of memory listing traces");
                goto done;
            }
        }
        if (n_missing > 0 && (!o->allow_missing || l.n == 0)) {
            char msg[480];
            snprintf(msg, sizeof msg, "no file for rank%s ",
                     n_missing > 1 ? "s" : "");
            list_missing(msg, sizeof msg, missing, n_missing);
            st = tlm_error_set(err, TLM_ENOTFOUND, o->trace_pattern, -1,
                               "%s (--allow_missing goes on without them)",
                               msg);
            goto done;
        }
    } else if (o->trace_pattern || o->trace_glob) {
        const char *pat = o->trace_pattern ? o->trace_pattern : o->trace_glob;
        src = TLM_MPI_RANK_NAME_FIRST;
        glob_t g;
        int rc = glob(pat, 0, NULL, &g);
        if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
            if (rc == 0)
                globfree(&g);
            st = tlm_error_set(err, TLM_ENOTFOUND, pat, -1,
                               "no trace file matches");
            goto done;
        }
        if (rc != 0) {
            st = tlm_error_set(err, TLM_EIO, pat, -1, "glob failed (%d)", rc);
            goto done;
        }
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *p = g.gl_pathv[i];
            struct stat sb;
            if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
                continue; /* folders the pattern matches; broken links
                           * stay and are named below */
            int64_t nr = o->trace_pattern ? star_rank(p, pat)
                                          : tlm_mpi_name_rank(p, &re, group);
            if (o->trace_pattern && nr < 0)
                continue; /* '*' did not stand for a rank number */
            if (plist_add(&l, p, nr) != 0) {
                globfree(&g);
                st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                   "out of memory listing traces");
                goto done;
            }
        }
        globfree(&g);
        if (l.n == 0) {
            st = tlm_error_set(err, TLM_ENOTFOUND, pat, -1,
                               "no trace file matches with a rank number");
            goto done;
        }
    } else {
        for (size_t i = 0; i < o->n_files; i++) {
            if (plist_add(&l, o->files[i],
                          tlm_mpi_name_rank(o->files[i], &re, group)) != 0) {
                st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                   "out of memory listing traces");
                goto done;
            }
        }
    }
    if (o->trace_dir || o->trace_glob) {
        /* sort paths and their name ranks together */
        char **idx = malloc(l.n * sizeof *idx);
        int64_t *nr = malloc(l.n * sizeof *nr);
        if (!idx || !nr) {
            free(idx);
            free(nr);
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
            goto done;
        }
        memcpy(idx, l.v, l.n * sizeof *idx);
        qsort(idx, l.n, sizeof *idx, cmp_str);
        for (size_t i = 0; i < l.n; i++) {
            for (size_t k = 0; k < l.n; k++) {
                if (l.v[k] == idx[i]) {
                    nr[i] = l.nr[k];
                    break;
                }
            }
        }
        memcpy(l.v, idx, l.n * sizeof *idx);
        memcpy(l.nr, nr, l.n * sizeof *nr);
        free(idx);
        free(nr);
    }
    st = finish(&l, src, out, err);
    if (st == TLM_OK) {
        out->n_skipped = dir_skipped;
        memcpy(out->skipped, dir_skipped_names, sizeof out->skipped);
    }
done:
    free(missing);
    if (have_re)
        regfree(&re);
    plist_free(&l);
    return st;
}

void tlm_mpi_filelist_free(tlm_mpi_filelist *fl)
{
    if (!fl)
        return;
    free(fl->path);
    free(fl->size);
    free(fl->name_rank);
    free(fl->blob);
    memset(fl, 0, sizeof *fl);
}

/* Packed layout: u64 n, i64 rank_source, u64 blob_len, n x i64 size,
 * n x i64 name_rank, blob. */
tlm_status tlm_mpi_filelist_pack(const tlm_mpi_filelist *fl, char **buf,
                                 size_t *len)
{
    size_t n = fl->n;
    size_t total = 24 + 16 * n + fl->blob_len;
    char *b = malloc(total);
    if (!b)
        return TLM_ENOMEM;
    uint64_t h[3] = {n, (uint64_t)fl->rank_source, fl->blob_len};
    memcpy(b, h, 24);
    if (n) {
        memcpy(b + 24, fl->size, 8 * n);
        memcpy(b + 24 + 8 * n, fl->name_rank, 8 * n);
    }
    if (fl->blob_len)
        memcpy(b + 24 + 16 * n, fl->blob, fl->blob_len);
    *buf = b;
    *len = total;
    return TLM_OK;
}

tlm_status tlm_mpi_filelist_unpack(const char *buf, size_t len,
                                   tlm_mpi_filelist *out, tlm_error *err)
{
    memset(out, 0, sizeof *out);
    uint64_t h[3];
    if (len < 24)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "bad file list");
    memcpy(h, buf, 24);
    size_t n = (size_t)h[0], bl = (size_t)h[2];
    if (n > (len - 24) / 16 || 24 + 16 * n + bl != len)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1, "bad file list");
    out->n = n;
    out->rank_source = (int)h[1];
    out->blob_len = bl;
    out->path = malloc((n ? n : 1) * sizeof *out->path);
    out->size = malloc((n ? n : 1) * 8);
    out->name_rank = malloc((n ? n : 1) * 8);
    out->blob = malloc(bl ? bl : 1);
    if (!out->path || !out->size || !out->name_rank || !out->blob) {
        tlm_mpi_filelist_free(out);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    if (n) {
        memcpy(out->size, buf + 24, 8 * n);
        memcpy(out->name_rank, buf + 24 + 8 * n, 8 * n);
    }
    if (bl)
        memcpy(out->blob, buf + 24 + 16 * n, bl);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        const char *z = off < bl ? memchr(out->blob + off, 0, bl - off) : NULL;
        if (!z) {
            tlm_mpi_filelist_free(out);
            return tlm_error_set(err, TLM_EINVAL, NULL, -1, "bad file list");
        }
        out->path[i] = out->blob + off;
        off = (size_t)(z - out->blob) + 1;
    }
    return TLM_OK;
}
