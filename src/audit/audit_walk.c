/*
 * audit_walk.c - rank 0 walks the audit root: every folder below it
 * (tlm_walk, walk.h: entries in name order, folder symlinks not followed, the
 * output folder left out) and lists its regular files; every process then
 * sniffs a block of them by content (tlm_sniff.h: one read of its head,
 * audit.c spreads the blocks) and rank 0 classifies them into traces and
 * skipped entries, paths relative to the root; grouping traces into runs
 * is audit_runs.c's.
 */
#include "audit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "tlmpi/tlm_sniff.h"
#include "walk.h"

typedef struct walker {
    const tlm_audit_walk_opts *w;
    tlm_audit_plan *p;
    int have_excl;
    struct stat excl;
} walker;

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

/* One entry (tlm_walk_fn): a folder is read (unless it is the output
 * folder or too deep), a regular file (or a link to one) a candidate,
 * anything else a skipped entry with its reason. */
static tlm_status visit(void *ctx, tlm_walk_entry *e, tlm_error *err)
{
    walker *k = ctx;
    char why[96];
    switch (e->kind) {
    case TLM_WALK_UNLISTED:
        if (e->depth == 0)
            return tlm_error_set(err, TLM_ENOTFOUND, k->w->root, -1,
                                 "cannot open the audit root: %s",
                                 strerror(e->err));
        k->p->n_unreadable++;
        snprintf(why, sizeof why, "folder not readable: %s",
                 strerror(e->err));
        return add_skip(k->p, e->rel, why);
    case TLM_WALK_NOSTAT:
        snprintf(why, sizeof why, "not readable: %s", strerror(e->err));
        k->p->n_unreadable++;
        return add_skip(k->p, e->rel, why);
    case TLM_WALK_BROKEN:
        return add_skip(k->p, e->rel, "broken symbolic link");
    case TLM_WALK_DIR:
        if (k->have_excl && e->st.st_dev == k->excl.st_dev &&
            e->st.st_ino == k->excl.st_ino) {
            e->descend = 0;
            return add_skip(k->p, e->rel, "the audit's output folder");
        }
        return e->descend ? TLM_OK
                          : add_skip(k->p, e->rel,
                                     "folder too deep (not read)");
    case TLM_WALK_DIR_LINK:
        return add_skip(k->p, e->rel,
                        "symbolic link to a folder (not followed)");
    case TLM_WALK_FILE: {
        char *rel = strdup(e->rel);
        return rel ? visit_file(k, rel) : TLM_ENOMEM;
    }
    default:
        return add_skip(k->p, e->rel, "not a regular file");
    }
}

tlm_status tlm_audit_walk(const tlm_audit_walk_opts *w, tlm_audit_plan *p,
                          tlm_error *err)
{
    memset(p, 0, sizeof *p);
    walker k = {.w = w, .p = p};
    k.have_excl = w->exclude && stat(w->exclude, &k.excl) == 0;
    tlm_walk_opts o = {.max_depth = w->max_depth,
                       .follow_file_links = 1,
                       .subdirs_last = 1};
    tlm_status st = tlm_walk(w->root, &o, visit, &k, err);
    if (st == TLM_ENOTFOUND)
        return st;
    if (st != TLM_OK)
        return tlm_error_set(err, st, w->root, -1, "walking the audit root: "
                             "%s", tlm_status_str(st));
    return TLM_OK;
}
