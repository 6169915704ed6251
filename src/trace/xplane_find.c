/*
 * xplane_find.c - the XPlane file a folder stands for (tlm_xplane_locate):
 * JAX writes `<logdir>/plugins/profile/<run>/<host>.xplane.pb`, so a
 * user may name the log folder, the profile folder or the run folder.
 * The search goes at most 4 levels down, visits subfolders in byte order
 * of their names and keeps the last `*.xplane.pb` (or `.xplane.pb.gz`) it
 * meets (run folders are named by date: the newest run).  Two or more in
 * the same folder (one per host) are refused: name the file.
 */
#include "xplane_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XP_FIND_DEPTH 4
#define XP_FIND_MAX_ENTRIES 4096

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n > k && strcmp(s + n - k, suf) == 0;
}

static int is_xplane_name(const char *s)
{
    return has_suffix(s, ".xplane.pb") || has_suffix(s, ".xplane.pb.gz");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir (without . and ..), at most XP_FIND_MAX_ENTRIES. */
static char **list_dir(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **v = calloc(XP_FIND_MAX_ENTRIES, sizeof *v);
    struct dirent *de;
    while (v && *n < XP_FIND_MAX_ENTRIES && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (!(v[*n] = strdup(de->d_name)))
            break;
        (*n)++;
    }
    closedir(d);
    if (v)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Searches dir; *found holds the best path so far.  1 when two xplanes
 * share a folder (*found then names one of them). */
static int search(const char *dir, int depth, char *found, size_t cap)
{
    size_t n = 0;
    char **v = list_dir(dir, &n);
    int here = 0, clash = 0;
    char path[4096];
    for (size_t i = 0; v && i < n && !clash; i++) {
        struct stat sb;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, v[i]) >=
                sizeof path ||
            stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode) && depth < XP_FIND_DEPTH) {
            clash = search(path, depth + 1, found, cap);
        } else if (S_ISREG(sb.st_mode) && is_xplane_name(v[i])) {
            if (++here > 1)
                clash = 1;
            snprintf(found, cap, "%s", path);
        }
    }
    free_list(v, n);
    return clash;
}

tlm_status tlm_xplane_locate(const char *path, char *out, size_t cap,
                             tlm_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        if ((size_t)snprintf(out, cap, "%s", path) >= cap)
            return tlm_error_set(err, TLM_ELIMIT, path, -1, "path too long");
        return TLM_OK;
    }
    char found[4096] = "";
    if (search(path, 0, found, sizeof found))
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "several .xplane.pb files in one folder (one "
                             "per host), e.g. %s: name the file", found);
    if (!found[0])
        return tlm_error_set(err, TLM_ENOTFOUND, path, -1,
                             "a folder without an .xplane.pb file (JAX "
                             "writes plugins/profile/<run>/<host>."
                             "xplane.pb)");
    if ((size_t)snprintf(out, cap, "%s", found) >= cap)
        return tlm_error_set(err, TLM_ELIMIT, path, -1, "path too long");
    return TLM_OK;
}
