/*
 * audit_walk.c - rank 0 walks the audit root: every folder below it (its
 * own stack, entries in name order, folder symlinks not followed, the
 * output folder left out) and lists its regular files; every process then
 * sniffs a block of them by content (tlm_sniff.h: one read of its head,
 * audit.c spreads the blocks) and rank 0 classifies them into traces and
 * skipped entries, paths relative to the root; grouping traces into runs
 * is audit_runs.c's.
 */
#include "audit.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "tlmpi/tlm_sniff.h"

/* A folder waiting to be read: its path relative to the root, depth. */
typedef struct pending {
    char *rel;
    int depth;
} pending;

typedef struct walker {
    const tlm_audit_walk_opts *w;
    tlm_audit_plan *p;
    pending *stack;
    size_t n_stack, cap_stack;
    int have_excl;
    struct stat excl;
} walker;

/* "a/b" from the root-relative folder and an entry name ("." is the
 * root). */
static char *join_rel(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int top = strcmp(dir, ".") == 0;
    char *s = malloc((top ? 0 : a + 1) + b + 1);
    if (!s)
        return NULL;
    if (top)
        memcpy(s, name, b + 1);
    else {
        memcpy(s, dir, a);
        s[a] = '/';
        memcpy(s + a + 1, name, b + 1);
    }
    return s;
}

/* root/rel as a path to open (rel "." is the root itself). */
static char *full_path(const char *root, const char *rel)
{
    if (strcmp(rel, ".") == 0)
        rel = "";
    size_t a = strlen(root), b = strlen(rel);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, root, a);
    size_t k = a;
    if (b) {
        if (!a || root[a - 1] != '/')
            s[k++] = '/';
        memcpy(s + k, rel, b);
        k += b;
    }
    s[k] = 0;
    return s;
}

static tlm_status add_skip(tlm_audit_plan *p, const char *rel,
                           const char *reason)
{
    if (tlm_grow((void **)&p->skip, &p->cap_skip, p->n_skip + 1,
                 sizeof *p->skip, 64) != TLM_OK)
        return TLM_ENOMEM;
    tlm_arow_skip *s = &p->skip[p->n_skip++];
    tlm_strset(s->path, sizeof s->path, rel);
    tlm_strset(s->reason, sizeof s->reason, reason);
    return TLM_OK;
}

static tlm_status add_trace(tlm_audit_plan *p, char *rel, const tlm_sniff *s)
{
    if (tlm_grow((void **)&p->tr, &p->cap_tr, p->n_tr + 1, sizeof *p->tr,
                 64) != TLM_OK)
        return TLM_ENOMEM;
    tlm_audit_trace *t = &p->tr[p->n_tr++];
    t->rel = rel;
    t->size = s->size;
    t->dev = s->dev;
    t->ino = s->ino;
    t->dist_rank = s->dist_rank;
    t->dist_world = s->dist_world;
    return TLM_OK;
}

static int cmp_trace(const void *a, const void *b)
{
    return strcmp(((const tlm_audit_trace *)a)->rel,
                  ((const tlm_audit_trace *)b)->rel);
}

static int cmp_skip(const void *a, const void *b)
{
    return strcmp(((const tlm_arow_skip *)a)->path,
                  ((const tlm_arow_skip *)b)->path);
}

static tlm_status push(walker *k, char *rel, int depth)
{
    if (tlm_grow((void **)&k->stack, &k->cap_stack, k->n_stack + 1,
                 sizeof *k->stack, 16) != TLM_OK) {
        free(rel);
        return TLM_ENOMEM;
    }
    k->stack[k->n_stack].rel = rel;
    k->stack[k->n_stack].depth = depth;
    k->n_stack++;
    return TLM_OK;
}

/* One regular file (or a symlink to one): a candidate, sniffed later
 * (tlm_audit_classify). */
static tlm_status visit_file(walker *k, char *rel)
{
    tlm_audit_plan *p = k->p;
    if (tlm_grow((void **)&p->cand, &p->cap_cand, p->n_cand + 1,
                 sizeof *p->cand, 64) != TLM_OK) {
        free(rel);
        return TLM_ENOMEM;
    }
    p->cand[p->n_cand++] = rel;
    return TLM_OK;
}

tlm_status tlm_audit_sniff_range(const tlm_audit_plan *p, const char *root,
                                 size_t first, size_t n, tlm_sniff *out)
{
    for (size_t i = 0; i < n; i++) {
        char *full = full_path(root, p->cand[first + i]);
        if (!full)
            return TLM_ENOMEM;
        tlm_status st = tlm_trace_sniff(full, 0, &out[i]);
        free(full);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

tlm_status tlm_audit_classify(tlm_audit_plan *p, const tlm_sniff *s,
                              tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && i < p->n_cand; i++) {
        char *rel = p->cand[i];
        p->cand[i] = NULL;
        p->n_seen++;
        if (s[i].verdict == TLM_SNIFF_TRACE &&
            s[i].format == TLM_FORMAT_XPLANE) { /* not for the analysis */
            st = add_skip(p, rel, "XPlane (JAX): read by tlmpi report");
            free(rel);
            continue;
        }
        if (s[i].verdict == TLM_SNIFF_TRACE) {
            st = add_trace(p, rel, &s[i]);
            if (st != TLM_OK)
                free(rel);
            continue;
        }
        if (s[i].verdict == TLM_SNIFF_UNREADABLE) {
            char why[96 + 16];
            snprintf(why, sizeof why, "not readable: %.80s", s[i].reason);
            p->n_unreadable++;
            st = add_skip(p, rel, why);
        } else {
            st = add_skip(p, rel, s[i].reason);
        }
        free(rel);
    }
    free(p->cand);
    p->cand = NULL;
    p->n_cand = p->cap_cand = 0;
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1, "out of memory listing "
                             "traces");
    if (p->n_tr)
        qsort(p->tr, p->n_tr, sizeof *p->tr, cmp_trace);
    if (p->n_skip)
        qsort(p->skip, p->n_skip, sizeof *p->skip, cmp_skip);
    return TLM_OK;
}

/* One entry of folder dir (depth below the root). */
static tlm_status visit(walker *k, const char *dir, const char *name,
                        int depth)
{
    char *rel = join_rel(dir, name);
    char *full = rel ? full_path(k->w->root, rel) : NULL;
    if (!full) {
        free(rel);
        return TLM_ENOMEM;
    }
    struct stat ls, ts;
    int lok = lstat(full, &ls) == 0;
    int tok = stat(full, &ts) == 0;
    free(full);
    tlm_status st = TLM_OK;
    if (!lok || (S_ISLNK(ls.st_mode) && !tok)) {
        char why[96];
        snprintf(why, sizeof why, "not readable: %s", strerror(errno));
        k->p->n_unreadable += lok == 0;
        st = add_skip(k->p, rel, lok ? "broken symbolic link" : why);
    } else if (S_ISDIR(ls.st_mode)) {
        if (k->have_excl && ls.st_dev == k->excl.st_dev &&
            ls.st_ino == k->excl.st_ino)
            st = add_skip(k->p, rel, "the audit's output folder");
        else if (depth + 1 > k->w->max_depth)
            st = add_skip(k->p, rel, "folder too deep (not read)");
        else
            return push(k, rel, depth + 1);
    } else if (S_ISLNK(ls.st_mode) && S_ISDIR(ts.st_mode)) {
        st = add_skip(k->p, rel, "symbolic link to a folder (not followed)");
    } else if (S_ISREG(ts.st_mode)) {
        return visit_file(k, rel);
    } else {
        st = add_skip(k->p, rel, "not a regular file");
    }
    free(rel);
    return st;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads one folder: its entries in name order. */
static tlm_status read_dir(walker *k, const pending *d)
{
    char *full = full_path(k->w->root, d->rel);
    if (!full)
        return TLM_ENOMEM;
    DIR *dh = opendir(full);
    free(full);
    if (!dh) {
        k->p->n_unreadable++;
        char why[96];
        snprintf(why, sizeof why, "folder not readable: %s", strerror(errno));
        return add_skip(k->p, d->rel, why);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    tlm_status st = TLM_OK;
    struct dirent *e;
    while (st == TLM_OK && (e = readdir(dh)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *nm = strdup(e->d_name);
        if (!nm || tlm_grow((void **)&names, &cap, n + 1, sizeof *names,
                            32) != TLM_OK) {
            free(nm);
            st = TLM_ENOMEM;
            break;
        }
        names[n++] = nm;
    }
    closedir(dh);
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    /* pushed in reverse, so that folders are read in name order */
    size_t mark = k->n_stack;
    for (size_t i = 0; st == TLM_OK && i < n; i++)
        st = visit(k, d->rel, names[i], d->depth);
    for (size_t a = mark, b = k->n_stack; st == TLM_OK && a + 1 < b; a++, b--) {
        pending t = k->stack[a];
        k->stack[a] = k->stack[b - 1];
        k->stack[b - 1] = t;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

tlm_status tlm_audit_walk(const tlm_audit_walk_opts *w, tlm_audit_plan *p,
                          tlm_error *err)
{
    memset(p, 0, sizeof *p);
    walker k = {.w = w, .p = p};
    k.have_excl = w->exclude && stat(w->exclude, &k.excl) == 0;
    DIR *rd = opendir(w->root);
    if (!rd)
        return tlm_error_set(err, TLM_ENOTFOUND, w->root, -1,
                             "cannot open the audit root: %s",
                             strerror(errno));
    closedir(rd);
    char *top = strdup(".");
    tlm_status st = top ? push(&k, top, 0) : TLM_ENOMEM;
    while (st == TLM_OK && k.n_stack) {
        pending d = k.stack[--k.n_stack];
        st = read_dir(&k, &d);
        free(d.rel);
    }
    while (k.n_stack)
        free(k.stack[--k.n_stack].rel);
    free(k.stack);
    if (st != TLM_OK)
        return tlm_error_set(err, st, w->root, -1, "walking the audit root: "
                             "%s", tlm_status_str(st));
    return TLM_OK;
}
