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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "walk.h"

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

/* The search's state: the best path so far, the count of xplanes in each
 * folder of the current branch. */
typedef struct xfind {
    char *found;
    size_t cap;
    int here[XP_FIND_DEPTH + 2];
} xfind;

/* One entry (tlm_walk_fn): a sub-folder restarts its count; an xplane
 * file is the best so far.  TLM_EEXIST stops at the second xplane of a
 * folder. */
static tlm_status visit(void *ctx, tlm_walk_entry *e, tlm_error *err)
{
    xfind *x = ctx;
    (void)err;
    if (strlen(e->path) >= 4096) { /* as the fixed buffer did: left out */
        e->descend = 0;
        return TLM_OK;
    }
    if (e->kind == TLM_WALK_DIR && e->descend) {
        x->here[e->depth + 1] = 0;
    } else if (e->kind == TLM_WALK_FILE && is_xplane_name(e->name)) {
        snprintf(x->found, x->cap, "%s", e->path);
        if (++x->here[e->depth] > 1)
            return TLM_EEXIST;
    }
    return TLM_OK;
}

/* Searches dir (depth-first, each sub-folder when it is met, links
 * followed, unreadable entries left out); *found holds the best path so
 * far.  1 when two xplanes share a folder (*found then names one of
 * them). */
static int search(const char *dir, char *found, size_t cap)
{
    tlm_walk_opts o = {.max_depth = XP_FIND_DEPTH,
                       .follow_dir_links = 1,
                       .follow_file_links = 1,
                       .list_flags = TLM_DIR_TRUNCATE,
                       .max_entries = XP_FIND_MAX_ENTRIES};
    xfind x = {.found = found, .cap = cap};
    return tlm_walk(dir, &o, visit, &x, NULL) == TLM_EEXIST;
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
    if (search(path, found, sizeof found))
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
