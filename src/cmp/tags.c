/*
 * tags.c - the tag of each compared report (compare.md §1): --names, or
 * the base name of the path without its last suffix.  tlmpi also drops a
 * trailing '/' (TraceLens gives such a folder the empty tag) and both
 * ".json.gz" and ".json" of a trace, outside compat mode.  Tags become
 * parts of column and file names, so they must be distinct, non-empty,
 * short and free of '/' and control characters.
 */
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"

#define TAG_MAX 128

static char *auto_tag(const char *path, int compat)
{
    size_t n = strlen(path);
    while (!compat && n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    size_t e = n;
    if (!compat && e - b > 8 && !strncmp(path + e - 8, ".json.gz", 8))
        e -= 8;
    else
        for (size_t i = e; i > b; i--)
            if (path[i - 1] == '.') {
                if (i - 1 > b) /* ".hidden" keeps its name (splitext) */
                    e = i - 1;
                break;
            }
    char *t = malloc(e - b + 1);
    if (t) {
        memcpy(t, path + b, e - b);
        t[e - b] = '\0';
    }
    return t;
}

static tlm_status check_tag(const char *t, size_t i, const char *path,
                            tlm_error *err)
{
    if (!t[0])
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "report %zu has an empty tag: use --names", i + 1);
    if (strlen(t) > TAG_MAX)
        return tlm_error_set(err, TLM_EINVAL, path, -1,
                             "tag of report %zu is longer than %d bytes: "
                             "use --names", i + 1, TAG_MAX);
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/')
            return tlm_error_set(err, TLM_EINVAL, path, -1,
                                 "tag of report %zu holds a '/' or a control "
                                 "character: use --names", i + 1);
    return TLM_OK;
}

tlm_status tlm_cmp_tags(const char *const *paths, const char *const *names,
                        size_t n, int compat, char **tags, tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < n; i++)
        tags[i] = NULL;
    for (size_t i = 0; i < n && st == TLM_OK; i++) {
        tags[i] = names ? strdup(names[i]) : auto_tag(paths[i], compat);
        if (!tags[i])
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        else
            st = check_tag(tags[i], i, paths[i], err);
        for (size_t j = 0; j < i && st == TLM_OK; j++)
            if (!strcmp(tags[i], tags[j]))
                st = tlm_error_set(err, TLM_EINVAL, paths[i], -1,
                                   "Tags must be unique - use --names to "
                                   "disambiguate (reports %zu and %zu are "
                                   "both '%s').", j + 1, i + 1, tags[i]);
    }
    if (st != TLM_OK)
        for (size_t i = 0; i < n; i++) {
            free(tags[i]);
            tags[i] = NULL;
        }
    return st;
}
