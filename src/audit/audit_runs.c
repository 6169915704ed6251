/*
 * audit_runs.c - the traces found under the audit root grouped into runs
 * (one job's traces each).  Pure: works on the plan audit_walk.c filled.
 *
 * A run is the folder holding traces, unless --run_depth says how deep
 * runs are.  Per-rank subfolders are merged bottom-up into their parent:
 * when every child group holds one trace and the child folders' names
 * differ only in their digits (rank0/, rank1/, ...), or when every child
 * group is an incomplete part of the same declared world size.  What was
 * merged is noted for audit.md.
 *
 * The job of a run is its parent folder (ROOT/llama/n8 belongs to
 * "llama"), except that a run folder directly under the root is its own
 * job (ROOT/megatron and ROOT/dlrm are two jobs, never compared).
 */
#include "audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* A group being formed: a folder and its traces. */
typedef struct group {
    char *dir;           /* relative folder, "." the root */
    size_t *tr;
    size_t n, cap;
    int dead;            /* merged into its parent */
} group;

/* The folder of a root-relative path ("." at the top), malloc'd. */
static char *dir_of(const char *rel)
{
    const char *s = strrchr(rel, '/');
    if (!s)
        return strdup(".");
    return strndup(rel, (size_t)(s - rel));
}

/* The first k folders of dir (dir itself when it is shallower). */
static char *prefix_dirs(const char *dir, long k)
{
    if (strcmp(dir, ".") == 0)
        return strdup(".");
    const char *s = dir;
    for (long i = 0; i < k; i++) {
        s = strchr(s, '/');
        if (!s)
            return strdup(dir);
        if (i + 1 < k)
            s++;
    }
    return strndup(dir, (size_t)(s - dir));
}

/* Adds trace t to group g. */
static tlm_status group_add(group *g, size_t t)
{
    if (tlm_grow((void **)&g->tr, &g->cap, g->n + 1, sizeof *g->tr, 8) !=
        TLM_OK)
        return TLM_ENOMEM;
    g->tr[g->n++] = t;
    return TLM_OK;
}

/* Groups by key (traces are sorted by path, so equal keys of one folder
 * are adjacent; keys of --run_depth may not be). */
static tlm_status group_by_key(tlm_audit_plan *p, long depth, group **out,
                               size_t *n_out)
{
    group *g = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < p->n_tr; i++) {
        char *d = dir_of(p->tr[i].rel);
        char *key = d && depth > 0 ? prefix_dirs(d, depth) : d;
        if (key != d)
            free(d);
        if (!key)
            goto oom;
        size_t j = 0;
        while (j < n && strcmp(g[j].dir, key) != 0)
            j++;
        if (j == n) {
            if (tlm_grow((void **)&g, &cap, n + 1, sizeof *g, 16) != TLM_OK) {
                free(key);
                goto oom;
            }
            memset(&g[n++], 0, sizeof *g);
            g[j].dir = key;
        } else {
            free(key);
        }
        if (group_add(&g[j], i) != TLM_OK)
            goto oom;
    }
    *out = g;
    *n_out = n;
    return TLM_OK;
oom:
    for (size_t j = 0; j < n; j++) {
        free(g[j].dir);
        free(g[j].tr);
    }
    free(g);
    return TLM_ENOMEM;
}

/* The name with every digit run replaced by one '#'. */
static void skeleton(const char *name, char *out, size_t cap)
{
    size_t k = 0;
    for (const char *s = name; *s && k + 2 < cap; s++) {
        if (*s >= '0' && *s <= '9') {
            out[k++] = '#';
            while (s[1] >= '0' && s[1] <= '9')
                s++;
        } else {
            out[k++] = *s;
        }
    }
    out[k] = 0;
}

/* The last component of a folder path. */
static const char *base_of(const char *dir)
{
    const char *s = strrchr(dir, '/');
    return s ? s + 1 : dir;
}

/* 1 when the child groups c[0..n) (n >= 2) form one job: their folder
 * names differ only in digits, and each holds one trace or all are
 * incomplete parts of the same declared world size. */
static int mergeable(const tlm_audit_plan *p, group *const *c, size_t n)
{
    int ones = 1, same_w = 1;
    int64_t w = -1, total = 0;
    char sk0[256], sk[256];
    skeleton(base_of(c[0]->dir), sk0, sizeof sk0);
    for (size_t i = 0; i < n; i++) {
        /* sibling names alike but for their digits: rank0/, rank1/ */
        skeleton(base_of(c[i]->dir), sk, sizeof sk);
        if (strcmp(sk, sk0) != 0 || strcmp(base_of(c[i]->dir), sk) == 0)
            return 0;
        ones &= c[i]->n == 1;
        for (size_t j = 0; j < c[i]->n; j++) {
            int64_t dw = p->tr[c[i]->tr[j]].dist_world;
            if (dw <= 0 || (w >= 0 && dw != w))
                same_w = 0;
            w = dw;
        }
        total += (int64_t)c[i]->n;
        same_w &= w > 0 && (int64_t)c[i]->n < w;
    }
    return ones || (same_w && total <= w);
}

/* Adds a sentence (fmt with a, n) to the plan's notes for audit.md,
 * while there is room. */
static void note(tlm_audit_plan *p, const char *fmt, const char *a, size_t n)
{
    size_t len = strlen(p->notes);
    if (len + 200 >= sizeof p->notes)
        return;
    snprintf(p->notes + len, sizeof p->notes - len, fmt, n, a);
}

/* One round of merging: the children of one parent folder.  Returns 1
 * when something was merged. */
static int merge_round(tlm_audit_plan *p, group *g, size_t n, tlm_status *st)
{
    group **c = malloc((n ? n : 1) * sizeof *c);
    if (!c) {
        *st = TLM_ENOMEM;
        return 0;
    }
    int done = 0;
    for (size_t i = 0; i < n && !done; i++) {
        if (g[i].dead || strcmp(g[i].dir, ".") == 0)
            continue;
        char *par = dir_of(g[i].dir);
        if (!par) {
            *st = TLM_ENOMEM;
            break;
        }
        size_t m = 0, own = 0;
        for (size_t j = 0; j < n; j++) {
            if (g[j].dead)
                continue;
            if (strcmp(g[j].dir, par) == 0)
                own = 1;
            char *pj = strcmp(g[j].dir, ".") ? dir_of(g[j].dir) : NULL;
            if (pj && strcmp(pj, par) == 0)
                c[m++] = &g[j];
            free(pj);
        }
        if (!own && m >= 2 && mergeable(p, c, m)) {
            for (size_t j = 1; j < m && *st == TLM_OK; j++) {
                for (size_t t = 0; t < c[j]->n && *st == TLM_OK; t++)
                    *st = group_add(c[0], c[j]->tr[t]);
                c[j]->dead = 1;
            }
            free(c[0]->dir);
            c[0]->dir = par;
            par = NULL;
            note(p, "%zu subfolders of %s merged into one run; ", c[0]->dir,
                 m);
            done = 1;
        }
        free(par);
    }
    free(c);
    return done && *st == TLM_OK;
}

/* qsort order of size_t values. */
static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Adds a warning (fmt with a, b) to a run's reason, while there is room. */
static void reason_add(tlm_audit_run *r, const char *fmt, const char *a,
                       const char *b)
{
    size_t len = strlen(r->reason);
    if (len + 4 >= sizeof r->reason)
        return;
    snprintf(r->reason + len, sizeof r->reason - len, "%s", len ? "; " : "");
    len = strlen(r->reason);
    snprintf(r->reason + len, sizeof r->reason - len, fmt, a, b);
}

/* Same file twice in the run: kept once, said in the reason. */
static void dedupe(const tlm_audit_plan *p, tlm_audit_run *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n_tr; i++) {
        const tlm_audit_trace *t = &p->tr[r->tr[i]];
        size_t j = 0;
        while (j < k && (p->tr[r->tr[j]].dev != t->dev ||
                         p->tr[r->tr[j]].ino != t->ino))
            j++;
        if (j < k)
            reason_add(r, "%s is the same file as %s (read once)", t->rel,
                       p->tr[r->tr[j]].rel);
        else
            r->tr[k++] = r->tr[i];
    }
    r->n_tr = k;
}

/* Traces declaring different world sizes: the run fails, listing them. */
static void check_worlds(const tlm_audit_plan *p, tlm_audit_run *r)
{
    int64_t w0 = -1;
    const char *f0 = NULL;
    for (size_t i = 0; i < r->n_tr && !r->prefail; i++) {
        const tlm_audit_trace *t = &p->tr[r->tr[i]];
        if (t->dist_world <= 0)
            continue;
        if (w0 < 0) {
            w0 = t->dist_world;
            f0 = t->rel;
        } else if (t->dist_world != w0) {
            char msg[1024];
            snprintf(msg, sizeof msg, "traces declare different world "
                                      "sizes: %lld (%s) and %lld (%s)",
                     (long long)w0, f0, (long long)t->dist_world, t->rel);
            tlm_strset(r->reason, sizeof r->reason, msg);
            r->prefail = 1;
        }
    }
}

/* A file in two runs: both say so. */
static void cross_runs(const tlm_audit_plan *p)
{
    for (size_t a = 0; a < p->n_run; a++)
        for (size_t i = 0; i < p->run[a].n_tr; i++) {
            const tlm_audit_trace *t = &p->tr[p->run[a].tr[i]];
            for (size_t b = a + 1; b < p->n_run; b++)
                for (size_t j = 0; j < p->run[b].n_tr; j++) {
                    const tlm_audit_trace *u = &p->tr[p->run[b].tr[j]];
                    if (t->dev != u->dev || t->ino != u->ino)
                        continue;
                    reason_add(&p->run[a], "%s is also in run %s", t->rel,
                               p->run[b].rel);
                    reason_add(&p->run[b], "%s is also in run %s", u->rel,
                               p->run[a].rel);
                }
        }
}

/* Entries under a run's folder that could not be read: the run's reason
 * says so (a missing rank may be in one of them). */
static void attach_unreadable(tlm_audit_plan *p)
{
    for (size_t i = 0; i < p->n_skip; i++) {
        const tlm_arow_skip *s = &p->skip[i];
        if (strncmp(s->reason, "not readable", 12) != 0 &&
            strncmp(s->reason, "folder not readable", 19) != 0)
            continue;
        tlm_audit_run *best = NULL;
        size_t blen = 0;
        for (size_t r = 0; r < p->n_run; r++) {
            const char *d = p->run[r].rel;
            size_t n = strlen(d);
            int under = !strcmp(d, ".") ||
                        (!strncmp(s->path, d, n) && s->path[n] == '/');
            if (under && (!best || n > blen)) {
                best = &p->run[r];
                blen = n;
            }
        }
        if (best)
            reason_add(best, "warning: %s %s", s->path, s->reason);
    }
}

/* The job of a run folder (audit.h). */
char *tlm_audit_job_of(const char *rel)
{
    if (!strchr(rel, '/'))
        return strdup(rel); /* "." or a run directly under the root */
    return dir_of(rel);
}

/* qsort order of runs by path. */
static int cmp_run(const void *a, const void *b)
{
    return strcmp(((const tlm_audit_run *)a)->rel,
                  ((const tlm_audit_run *)b)->rel);
}

/* Moves the live groups into p->run. */
static tlm_status make_runs(tlm_audit_plan *p, group *g, size_t n)
{
    p->run = calloc(n ? n : 1, sizeof *p->run);
    if (!p->run)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (g[i].dead)
            continue;
        tlm_audit_run *r = &p->run[p->n_run++];
        r->rel = g[i].dir;
        r->job = tlm_audit_job_of(g[i].dir);
        r->tr = g[i].tr;
        r->n_tr = g[i].n;
        g[i].dir = NULL;
        g[i].tr = NULL;
        if (!r->job)
            return TLM_ENOMEM;
        qsort(r->tr, r->n_tr, sizeof *r->tr, cmp_size);
        dedupe(p, r);
        check_worlds(p, r);
    }
    qsort(p->run, p->n_run, sizeof *p->run, cmp_run);
    cross_runs(p);
    attach_unreadable(p);
    return TLM_OK;
}

/* The plan's traces grouped into runs (audit.h). */
tlm_status tlm_audit_group(tlm_audit_plan *p, long run_depth, tlm_error *err)
{
    group *g = NULL;
    size_t n = 0;
    tlm_status st = group_by_key(p, run_depth, &g, &n);
    while (st == TLM_OK && run_depth <= 0 && merge_round(p, g, n, &st))
        ;
    if (st == TLM_OK)
        st = make_runs(p, g, n);
    for (size_t i = 0; i < n; i++) {
        free(g[i].dir);
        free(g[i].tr);
    }
    free(g);
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1, "out of memory grouping "
                             "traces into runs");
    return TLM_OK;
}

/* Frees the plan's traces, runs, skipped entries and candidates. */
void tlm_audit_plan_free(tlm_audit_plan *p)
{
    for (size_t i = 0; i < p->n_tr; i++)
        free(p->tr[i].rel);
    free(p->tr);
    for (size_t i = 0; i < p->n_run; i++) {
        free(p->run[i].rel);
        free(p->run[i].job);
        free(p->run[i].tr);
    }
    free(p->run);
    free(p->skip);
    for (size_t i = 0; i < p->n_cand; i++)
        free(p->cand[i]);
    free(p->cand);
    memset(p, 0, sizeof *p);
}
