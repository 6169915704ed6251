/*
 * walk.c - the one folder walker (walk.h): listing a folder in name order
 * and walking below a root with an explicit stack of folders.
 */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* strcmp over an array of strings, for qsort. */
static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void tlm_dir_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* Reads the names of an open folder into *v (*n, capacity *cap). */
static tlm_status read_names(DIR *d, const char *dir, unsigned flags,
                             size_t max, char ***v, size_t *n, size_t *cap,
                             tlm_error *err)
{
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        if (!strcmp(s, ".") || !strcmp(s, "..") ||
            ((flags & TLM_DIR_NO_HIDDEN) && s[0] == '.'))
            continue;
        if (max && *n == max) {
            if (flags & TLM_DIR_TRUNCATE)
                break;
            return tlm_error_set(err, TLM_ELIMIT, dir, -1,
                                 "more than %zu entries in the folder", max);
        }
        char *c = strdup(s);
        if (!c || tlm_grow((void **)v, cap, *n + 1, sizeof **v, 32) !=
                      TLM_OK) {
            free(c);
            return tlm_error_set(err, TLM_ENOMEM, dir, -1, "out of memory");
        }
        (*v)[(*n)++] = c;
    }
    return TLM_OK;
}

tlm_status tlm_dir_list(const char *dir, unsigned flags, size_t max,
                        char ***names, size_t *n, tlm_error *err)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        tlm_error_set(err, TLM_EIO, dir, -1, "cannot list: %s", strerror(e));
        errno = e;
        return TLM_EIO;
    }
    char **v = NULL;
    size_t k = 0, cap = 0;
    tlm_status st = read_names(d, dir, flags, max, &v, &k, &cap, err);
    closedir(d);
    if (st != TLM_OK) {
        tlm_dir_free(v, k);
        return st;
    }
    if (k > 1)
        qsort(v, k, sizeof *v, cmp_name);
    *names = v;
    *n = k;
    return TLM_OK;
}

/* A folder on the walk's stack: listed when it comes to the top. */
typedef struct wframe {
    char *path, *rel;
    int depth;
    int listed;
    char **names;
    size_t n, i;
} wframe;

typedef struct wstate {
    const tlm_walk_opts *o;
    wframe *f;
    size_t nf, cap;
    /* subdirs_last: sub-folders met in the top folder, in order */
    wframe *sub;
    size_t nsub, capsub;
} wstate;

/* a "/" b (b appended to a with a slash), or NULL. */
static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    s[la] = '/';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

/* The rel of entry name in the folder of relative path rel. */
static char *join_rel(const char *rel, const char *name)
{
    return strcmp(rel, ".") ? join(rel, name) : strdup(name);
}

static void frame_free(wframe *f)
{
    free(f->path);
    free(f->rel);
    tlm_dir_free(f->names, f->n);
}

/* Kind of the entry at e->path: lstat, and stat through a link. */
static void classify(const tlm_walk_opts *o, tlm_walk_entry *e)
{
    struct stat ts;
    if (lstat(e->path, &e->st) != 0) {
        e->err = errno;
        e->kind = TLM_WALK_NOSTAT;
        return;
    }
    e->is_link = S_ISLNK(e->st.st_mode) != 0;
    if (!e->is_link) {
        e->kind = S_ISDIR(e->st.st_mode)   ? TLM_WALK_DIR
                  : S_ISREG(e->st.st_mode) ? TLM_WALK_FILE
                                           : TLM_WALK_OTHER;
        return;
    }
    if (stat(e->path, &ts) != 0) {
        e->err = errno;
        e->kind = TLM_WALK_BROKEN;
    } else if (S_ISDIR(ts.st_mode)) {
        e->kind = o->follow_dir_links ? TLM_WALK_DIR : TLM_WALK_DIR_LINK;
    } else if (S_ISREG(ts.st_mode)) {
        e->kind = o->follow_file_links ? TLM_WALK_FILE : TLM_WALK_FILE_LINK;
    } else {
        e->kind = TLM_WALK_OTHER;
    }
    if (e->kind == TLM_WALK_DIR || e->kind == TLM_WALK_FILE ||
        (e->kind == TLM_WALK_OTHER && o->follow_file_links))
        e->st = ts;
}

/* Pushes a folder (path and rel owned by the stack from here on). */
static tlm_status push(wframe **v, size_t *n, size_t *cap, char *path,
                       char *rel, int depth)
{
    if (!path || !rel ||
        tlm_grow((void **)v, cap, *n + 1, sizeof **v, 16) != TLM_OK) {
        free(path);
        free(rel);
        return TLM_ENOMEM;
    }
    (*v)[(*n)++] = (wframe){.path = path, .rel = rel, .depth = depth};
    return TLM_OK;
}

/* Lists the top folder; an unlisted one goes to fn and is popped. */
static tlm_status list_top(wstate *w, tlm_walk_fn fn, void *ctx,
                           tlm_error *err)
{
    wframe *f = &w->f[w->nf - 1];
    tlm_error le;
    tlm_status st = tlm_dir_list(f->path, w->o->list_flags,
                                 w->o->max_entries, &f->names, &f->n, &le);
    f->listed = 1;
    if (st != TLM_OK && st != TLM_EIO && err)
        *err = le;
    if (st != TLM_EIO)
        return st;
    tlm_walk_entry e = {.path = f->path, .rel = f->rel, .depth = f->depth,
                        .kind = TLM_WALK_UNLISTED, .err = errno};
    const char *slash = strrchr(f->path, '/');
    e.name = f->depth && slash ? slash + 1 : f->path;
    st = fn(ctx, &e, err);
    frame_free(f);
    w->nf--;
    return st;
}

/* The next entry of the top folder to fn; a folder to descend is pushed
 * (or kept waiting with subdirs_last). */
static tlm_status step(wstate *w, tlm_walk_fn fn, void *ctx, tlm_error *err)
{
    wframe *f = &w->f[w->nf - 1];
    const char *name = f->names[f->i++];
    char *path = join(f->path, name);
    char *rel = path ? join_rel(f->rel, name) : NULL;
    if (!rel) {
        free(path);
        return TLM_ENOMEM;
    }
    tlm_walk_entry e = {.path = path, .rel = rel, .name = name,
                        .depth = f->depth};
    classify(w->o, &e);
    int depth = f->depth;
    e.descend = e.kind == TLM_WALK_DIR && depth + 1 <= w->o->max_depth;
    tlm_status st = fn(ctx, &e, err);
    if (st != TLM_OK || e.kind != TLM_WALK_DIR || !e.descend) {
        free(path);
        free(rel);
        return st;
    }
    if (w->o->subdirs_last)
        return push(&w->sub, &w->nsub, &w->capsub, path, rel, depth + 1);
    return push(&w->f, &w->nf, &w->cap, path, rel, depth + 1);
}

/* subdirs_last: the top folder is done; its sub-folders replace it, the
 * first met on top. */
static tlm_status finish_top(wstate *w)
{
    frame_free(&w->f[--w->nf]);
    while (w->nsub) {
        wframe s = w->sub[--w->nsub];
        tlm_status st = push(&w->f, &w->nf, &w->cap, s.path, s.rel, s.depth);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

tlm_status tlm_walk(const char *root, const tlm_walk_opts *o, tlm_walk_fn fn,
                    void *ctx, tlm_error *err)
{
    wstate w = {.o = o};
    tlm_status st = push(&w.f, &w.nf, &w.cap, strdup(root), strdup("."), 0);
    while (st == TLM_OK && w.nf) {
        wframe *f = &w.f[w.nf - 1];
        if (!f->listed)
            st = list_top(&w, fn, ctx, err);
        else if (f->i < f->n)
            st = step(&w, fn, ctx, err);
        else if (o->subdirs_last)
            st = finish_top(&w);
        else
            frame_free(&w.f[--w.nf]);
    }
    while (w.nf)
        frame_free(&w.f[--w.nf]);
    while (w.nsub)
        frame_free(&w.sub[--w.nsub]);
    free(w.f);
    free(w.sub);
    if (st == TLM_ENOMEM)
        return tlm_error_set(err, TLM_ENOMEM, root, -1, "out of memory");
    return st;
}
