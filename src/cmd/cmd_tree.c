/*
 * cmd_tree.c - `tlmpi tree` and `tlmpi modules`: look at the call tree of
 * one trace without MPI.
 *
 *   tlmpi tree TRACE [--uid N | --name REGEX] [--depth D] [--parents]
 *                    [--shapes] [--all] [--python]
 *     prints the subtree of event N (or of every event whose name matches
 *     REGEX, POSIX extended), or with --parents its chain of ancestors, in
 *     TraceLens's printer format (docs/report.md), each node with its GPU
 *     time.  Without --uid/--name: every cpu_op root that has GPU work.
 *   tlmpi modules TRACE [--depth D]
 *     the nn.Module hierarchy (python_function "nn.Module: X" events) with
 *     GPU time per module and the GPU time outside child modules.
 */
#include "cli.h"
#include "slip.h"

#include "tlmpi/tlm_format.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The usage text of tlmpi tree. */
static void tree_usage(FILE *f)
{
    fprintf(f,
        "usage: tlmpi tree TRACE [--uid N | --name REGEX] [--depth D]\n"
        "                  [--parents] [--shapes] [--all] [--python]\n"
        "  --uid N       subtree of the event with UID N (index in "
        "traceEvents)\n"
        "  --name REGEX  subtrees of every event whose name matches "
        "(POSIX ERE)\n"
        "  --depth D     print D levels below each start node\n"
        "  --parents     print the ancestors instead of the subtree\n"
        "  --shapes      print Input Dims/type/Strides/Concrete Inputs of "
        "cpu_ops\n"
        "  --all         also print nodes without GPU work (no pruning)\n"
        "  --python      put python_function events in the tree\n"
        "  --max N       at most N start nodes for --name (default 20)\n");
}

/* The usage text of tlmpi modules. */
static void modules_usage(FILE *f)
{
    fprintf(f,
        "usage: tlmpi modules TRACE [--depth D]\n"
        "  --depth D     print D levels of modules below each root "
        "(default all)\n");
}

/* A whole decimal number into *out: 1, else 0. */
static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return 0;
    *out = v;
    return 1;
}

/* The trace and its call tree; a format without host call stacks refused. */
static int load(const char *path, int python, tlm_trace **tr, tlm_tree **t)
{
    tlm_error err;
    char msg[1024];
    tlm_error_clear(&err);
    tlm_tree_opts o;
    tlm_tree_opts_init(&o);
    o.python_functions = python;
    int fmt;
    const tlm_format *f = NULL;
    if (tlm_format_of_file(path, &fmt) == TLM_OK &&
        (f = tlm_format_get(fmt)) != NULL && !f->host_stacks) {
        fprintf(stderr, "tlmpi: %s: a %s trace has no host call stacks "
                "(CPU ops with their launches): tlmpi tree needs a PyTorch "
                "profiler trace; tlmpi report and tlmpi inspect read this "
                "one (docs/formats.md)\n", path, f->name);
        return 1;
    }
    if (tlm_trace_read_file(path, NULL, tr, &err) != TLM_OK ||
        tlm_tree_build(*tr, &o, t, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi: %s\n", tlm_error_format(&err, msg,
                                                         sizeof msg));
        return 1;
    }
    return 0;
}

int tlm_cmd_tree(int argc, char **argv)
{
    const char *path = NULL, *name_re = NULL;
    long uid = -1, depth = -1, max = 20;
    int parents = 0, python = 0;
    unsigned flags = TLM_PRINT_GPU_TIME;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            tree_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--uid") || !strcmp(a, "--depth") ||
                   !strcmp(a, "--max")) {
            long v;
            if (i + 1 >= argc || !parse_long(argv[i + 1], &v) || v < 0) {
                fprintf(stderr, "tlmpi tree: %s needs a number >= 0\n", a);
                return 2;
            }
            i++;
            if (!strcmp(a, "--uid"))
                uid = v;
            else if (!strcmp(a, "--depth"))
                depth = v;
            else
                max = v;
        } else if (!strcmp(a, "--name")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tlmpi tree: --name needs a regex\n");
                return 2;
            }
            name_re = argv[++i];
        } else if (!strcmp(a, "--parents")) {
            parents = 1;
        } else if (!strcmp(a, "--shapes")) {
            flags |= TLM_PRINT_SHAPES;
        } else if (!strcmp(a, "--all")) {
            flags |= TLM_PRINT_NO_PRUNE;
        } else if (!strcmp(a, "--python")) {
            python = 1;
        } else if (a[0] == '-' && a[1]) {
            tlm_cmd_unknown_opt("tree", a, tree_usage);
            return 2;
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "tlmpi tree: one trace only\n");
            return 2;
        }
    }
    if (!path || (uid >= 0 && name_re)) {
        tree_usage(stderr);
        return 2;
    }
    if (tlm_cmd_trace_is_folder("tree", path))
        return 2;
    regex_t re;
    if (name_re && regcomp(&re, name_re, REG_EXTENDED | REG_NOSUB) != 0) {
        fprintf(stderr, "tlmpi tree: bad regex '%s'\n", name_re);
        return 2;
    }
    tlm_trace *tr = NULL;
    tlm_tree *t = NULL;
    int rc = load(path, python, &tr, &t);
    tlm_error err;
    char msg[1024];
    tlm_error_clear(&err);
    if (rc)
        goto done;
    size_t n = tlm_tree_size(t);
    const tlm_event *ev = tlm_trace_events(tr, &n);
    tlm_status st = TLM_OK;
    if (uid >= 0) {
        if ((size_t)uid >= n) {
            fprintf(stderr, "tlmpi tree: UID %ld out of range (0..%zu)\n",
                    uid, n ? n - 1 : 0);
            rc = 1;
            goto done;
        }
        st = parents ? tlm_tree_print_parents(t, stdout, (int32_t)uid, flags,
                                              &err)
                     : tlm_tree_print(t, stdout, (int32_t)uid, (int)depth,
                                      flags, &err);
    } else if (name_re) {
        long shown = 0;
        for (size_t i = 0; i < n && st == TLM_OK && shown < max; i++) {
            if (ev[i].ph != 'X')
                continue;
            const char *nm = tlm_trace_str(tr, ev[i].name, NULL);
            if (regexec(&re, nm, 0, NULL, 0) != 0)
                continue;
            shown++;
            st = parents ? tlm_tree_print_parents(t, stdout, (int32_t)i,
                                                  flags, &err)
                         : tlm_tree_print(t, stdout, (int32_t)i, (int)depth,
                                          flags, &err);
        }
        if (!shown)
            fprintf(stderr, "tlmpi tree: no event matches '%s'\n", name_re);
    } else {
        size_t nr;
        const int32_t *roots = tlm_tree_cpu_roots(t, &nr);
        for (size_t i = 0; i < nr && st == TLM_OK; i++) {
            size_t ng;
            tlm_tree_gpu_events(t, roots[i], &ng);
            if (ng || (flags & TLM_PRINT_NO_PRUNE))
                st = tlm_tree_print(t, stdout, roots[i], (int)depth, flags,
                                    &err);
        }
    }
    if (st != TLM_OK) {
        fprintf(stderr, "tlmpi tree: %s\n",
                tlm_error_format(&err, msg, sizeof msg));
        rc = 1;
    }
done:
    if (name_re)
        regfree(&re);
    tlm_tree_free(t);
    tlm_trace_free(tr);
    return rc;
}

int tlm_cmd_modules(int argc, char **argv)
{
    const char *path = NULL;
    long depth = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            modules_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--depth")) {
            if (i + 1 >= argc || !parse_long(argv[i + 1], &depth) ||
                depth < 0) {
                fprintf(stderr, "tlmpi modules: --depth needs a number\n");
                return 2;
            }
            i++;
        } else if (a[0] == '-' && a[1]) {
            tlm_cmd_unknown_opt("modules", a, modules_usage);
            return 2;
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "tlmpi modules: one trace only\n");
            return 2;
        }
    }
    if (!path) {
        modules_usage(stderr);
        return 2;
    }
    tlm_trace *tr = NULL;
    tlm_tree *t = NULL;
    if (tlm_cmd_trace_is_folder("modules", path))
        return 2;
    int rc = load(path, 1, &tr, &t);
    if (!rc) {
        tlm_error err;
        char msg[1024];
        tlm_error_clear(&err);
        if (tlm_tree_print_modules(t, stdout, (int)depth, &err) != TLM_OK) {
            fprintf(stderr, "tlmpi modules: %s\n",
                    tlm_error_format(&err, msg, sizeof msg));
            rc = 1;
        }
    }
    tlm_tree_free(t);
    tlm_trace_free(tr);
    return rc;
}
