/*
 * discover_dir.c - `--trace_dir D`: the traces of a folder, found by their
 * content (tlm_trace_sniff), whatever their names.
 *
 * The walk is tlm_walk's (walk.h), every entry lstat'ed: folders are
 * descended into with --recursive (TLM_CLI_MAX_DIR_DEPTH levels),
 * symlinks to folders are never followed (no loops, no escaping the
 * tree), everything else is sniffed once the walk is done (a symlink to a
 * file is followed by the open; the MPI driver shares the sniffing over
 * its processes: tlm_cli_sniff_fn).  Traces go to
 * tlm_cli_filelist_from_traces, which sorts them and decides name ranks
 * over the whole set; tlmpi's own outputs (own_outputs.c) are left out
 * silently; the other files are listed with their reason in one note (or
 * one error with --strict).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "discover.h"
#include "grow.h"
#include "tlmpi/tlm_format.h"
#include "tlmpi/tlm_sniff.h"
#include "walk.h"

/* A growable array of malloc'd strings. */
typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static int strv_add(strv *s, const char *text)
{
    if (tlm_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, 64))
        return -1;
    size_t len = strlen(text);
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, text, len + 1);
    s->v[s->n++] = c;
    return 0;
}

static void strv_free(strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct walk {
    const tlm_cli_opts *o;
    size_t root_len; /* strlen(trace_dir) + 1: names below it */
    strv files;      /* every file found, to be sniffed */
    strv traces;     /* full paths */
    int32_t *fmt;    /* the sniffed format of each (tlm_format.h) */
    size_t fmt_cap;
    strv skipped;    /* "rel (reason)" */
    strv lookalike;  /* "rel/": folders named like a trace, not read */
    size_t n_own;    /* tlmpi's own outputs (tlm_cli_own_output) */
} walk;

static const char *rel_of(const walk *w, const char *p)
{
    return strlen(p) >= w->root_len ? p + w->root_len : p;
}

/* One entry that is not a folder, sniffed: a trace, or a skipped file. */
static int visit_file(walk *w, const char *p, tlm_sniff sn)
{
    char line[4096 + 128];
    if (tlm_cli_own_output(p, rel_of(w, p), &sn)) { /* a re-run's */
        w->n_own++;
        return 0;
    }
    if (sn.verdict == TLM_SNIFF_TRACE && sn.format == TLM_FORMAT_XPLANE)
        snprintf(sn.reason, sizeof sn.reason, "XPlane (JAX): read by "
                 "tlmpi report, not the multi-rank analysis");
    else if (sn.verdict == TLM_SNIFF_TRACE) {
        if (tlm_grow((void **)&w->fmt, &w->fmt_cap, w->traces.n + 1,
                     sizeof *w->fmt, 64))
            return -1;
        w->fmt[w->traces.n] = tlm_format_get(sn.format) ? sn.format
                                                         : TLM_FORMAT_UNKNOWN;
        return strv_add(&w->traces, p);
    }
    snprintf(line, sizeof line, "%s (%s)", rel_of(w, p), sn.reason);
    return strv_add(&w->skipped, line);
}

/* Whether a name ends like a trace file's (".json", ".json.gz",
 * ".pb"): a folder so named is likely a mistake worth naming. */
static int named_like_trace(const char *name)
{
    static const char *const ext[] = {".json", ".json.gz", ".pb"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        size_t k = strlen(ext[i]);
        if (n > k && strcmp(name + n - k, ext[i]) == 0)
            return 1;
    }
    return 0;
}

/* A folder not read (below the depth limit, or a link to a folder):
 * silent, unless its name looks like a trace's: then a skipped entry
 * and a name for the missing-rank error (issue 34). */
static tlm_status visit_unread_dir(walk *w, const tlm_walk_entry *e)
{
    char p[4096 + 128];
    if (!named_like_trace(e->name))
        return TLM_OK;
    snprintf(p, sizeof p, "%s/", rel_of(w, e->path));
    if (strv_add(&w->lookalike, p))
        return TLM_ENOMEM;
    snprintf(p, sizeof p, "%s/ (%s named like a trace: %s)",
             rel_of(w, e->path),
             e->kind == TLM_WALK_DIR_LINK ? "a link to a folder" : "a folder",
             e->kind == TLM_WALK_DIR_LINK ? "links to folders are not "
                                            "followed"
             : w->o->recursive ? "below the depth limit"
                               : "folders are read with --recursive");
    return strv_add(&w->skipped, p) ? TLM_ENOMEM : TLM_OK;
}

/* One folder entry (tlm_walk_fn): folders are descended into (the walk's
 * depth limit), links to folders left out, anything else sniffed; the
 * root unlisted is an error, a folder below it a skipped entry. */
static tlm_status visit(void *ctx, tlm_walk_entry *e, tlm_error *err)
{
    walk *w = ctx;
    char p[4096];
    if (e->kind == TLM_WALK_UNLISTED && e->depth == 0)
        return tlm_error_set(err, TLM_ENOTFOUND, e->path, -1,
                             "cannot open trace folder: %s",
                             strerror(e->err));
    if (e->kind == TLM_WALK_UNLISTED) {
        snprintf(p, sizeof p, "%s/ (folder: %s)", rel_of(w, e->path),
                 strerror(e->err));
        return strv_add(&w->skipped, p) ? TLM_ENOMEM : TLM_OK;
    }
    if (strlen(e->path) >= sizeof p) { /* as the fixed buffer did */
        e->descend = 0;
        return TLM_OK;
    }
    if ((e->kind == TLM_WALK_DIR && !e->descend) ||
        e->kind == TLM_WALK_DIR_LINK)
        return visit_unread_dir(w, e);
    if (e->kind == TLM_WALK_DIR)
        return TLM_OK;
    return strv_add(&w->files, e->path) ? TLM_ENOMEM : TLM_OK;
}

/* The default sniffer (tlm_cli_sniff_fn): here, one file after another. */
static tlm_status sniff_here(void *arg, char *const *paths, size_t n,
                             tlm_sniff *out)
{
    (void)arg;
    for (size_t i = 0; i < n; i++)
        if (tlm_trace_sniff(paths[i], 0, &out[i]) != TLM_OK)
            return TLM_ENOMEM;
    return TLM_OK;
}

/* Every file the walk found, sniffed by fn, then sorted into traces and
 * skipped files (both lists are sorted later: the order is the walk's). */
static tlm_status visit_files(walk *w, tlm_cli_sniff_fn fn, void *arg,
                              tlm_error *err)
{
    size_t n = w->files.n;
    tlm_sniff *sn = calloc(n ? n : 1, sizeof *sn);
    tlm_status st = sn ? (fn ? fn : sniff_here)(arg, w->files.v, n, sn)
                       : TLM_ENOMEM;
    for (size_t i = 0; st == TLM_OK && i < n; i++)
        if (visit_file(w, w->files.v[i], sn[i]))
            st = TLM_ENOMEM;
    free(sn);
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1, "out of memory");
    return TLM_OK;
}

/* Walks the folder: --recursive reads TLM_CLI_MAX_DIR_DEPTH levels. */
static tlm_status walk_dir(walk *w, tlm_error *err)
{
    tlm_walk_opts o = {.max_depth = w->o->recursive ? TLM_CLI_MAX_DIR_DEPTH
                                                    : 0,
                       .follow_file_links = 1};
    tlm_status st = tlm_walk(w->o->trace_dir, &o, visit, w, err);
    if (st == TLM_ENOMEM)
        tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    return st;
}

/* "a (why), b (why), ... and N more" from the sorted skipped list. */
static char *skipped_text(strv *s)
{
    size_t len = 32, shown = s->n < TLM_CLI_SKIP_LIST ? s->n
                                                      : TLM_CLI_SKIP_LIST;
    qsort(s->v, s->n, sizeof *s->v, cmp_str);
    for (size_t i = 0; i < shown; i++)
        len += strlen(s->v[i]) + 2;
    char *t = malloc(len);
    if (!t)
        return NULL;
    size_t off = 0;
    for (size_t i = 0; i < shown; i++)
        off += (size_t)snprintf(t + off, len - off, "%s%s", i ? ", " : "",
                                s->v[i]);
    if (s->n > shown)
        snprintf(t + off, len - off, " and %zu more", s->n - shown);
    return t;
}

/* The error when nothing is left (or --strict refuses the skipped). */
static tlm_status refuse(const walk *w, const char *list, tlm_error *err)
{
    if (w->traces.n == 0)
        return tlm_error_set(err, TLM_ENOTFOUND, w->o->trace_dir, -1,
                             "no trace files in the folder%s%s%s%s",
                             w->o->recursive ? " or below it" : "",
                             list ? " (not traces: " : "", list ? list : "",
                             list ? ")" : "");
    return tlm_error_set(err, TLM_EINVAL, w->o->trace_dir, -1,
                         "%zu %s (--strict): %s", w->skipped.n,
                         w->skipped.n == 1
                             ? "file in the folder is not a trace"
                             : "files in the folder are not traces",
                         list);
}

/* A trace's path and the format its sniff found. */
typedef struct path_fmt {
    const char *path;
    int32_t fmt;
} path_fmt;

static int cmp_path_fmt(const void *a, const void *b)
{
    return strcmp(((const path_fmt *)a)->path, ((const path_fmt *)b)->path);
}

/* out->format from the walk's sniffs (each listed file was sniffed once:
 * the reader need not sniff it again); left NULL without memory. */
static void set_formats(const walk *w, tlm_cli_filelist *out)
{
    path_fmt *pf = malloc((w->traces.n ? w->traces.n : 1) * sizeof *pf);
    out->format = malloc((out->n ? out->n : 1) * sizeof *out->format);
    if (!pf || !out->format) {
        free(pf);
        free(out->format);
        out->format = NULL;
        return;
    }
    for (size_t i = 0; i < w->traces.n; i++)
        pf[i] = (path_fmt){w->traces.v[i], w->fmt[i]};
    qsort(pf, w->traces.n, sizeof *pf, cmp_path_fmt);
    for (size_t i = 0; i < out->n; i++) {
        path_fmt key = {out->path[i], 0};
        const path_fmt *f = bsearch(&key, pf, w->traces.n, sizeof *pf,
                                    cmp_path_fmt);
        out->format[i] = f ? f->fmt : -1;
    }
    free(pf);
}

tlm_status tlm_cli_discover_dir(const tlm_cli_opts *o, tlm_cli_filelist *out,
                                tlm_error *err)
{
    return tlm_cli_discover_dir_with(o, NULL, NULL, out, err);
}

tlm_status tlm_cli_discover_dir_with(const tlm_cli_opts *o,
                                     tlm_cli_sniff_fn fn, void *arg,
                                     tlm_cli_filelist *out, tlm_error *err)
{
    walk w = {o, strlen(o->trace_dir) + 1, {0}, {0}, NULL, 0, {0}, {0}, 0};
    char *list = NULL;
    memset(out, 0, sizeof *out);
    tlm_status st = walk_dir(&w, err);
    if (st == TLM_OK)
        st = visit_files(&w, fn, arg, err);
    if (st == TLM_OK && w.skipped.n && !(list = skipped_text(&w.skipped)))
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (st == TLM_OK && (w.traces.n == 0 || (o->strict && w.skipped.n)))
        st = refuse(&w, list, err);
    if (st == TLM_OK)
        st = tlm_cli_filelist_from_traces(w.traces.v, w.traces.n,
                                          o->trace_dir, o, out, err);
    if (st == TLM_OK)
        set_formats(&w, out);
    if (st == TLM_OK) {
        out->n_skipped = w.skipped.n;
        out->n_own = w.n_own;
        out->skipped = list;
        list = NULL;
        if (w.lookalike.n && !(out->lookalike = skipped_text(&w.lookalike)))
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    free(list);
    strv_free(&w.lookalike);
    strv_free(&w.traces);
    strv_free(&w.files);
    free(w.fmt);
    strv_free(&w.skipped);
    return st;
}
