/*
 * tree_print.c - the text views of a call tree ([perfreport] §2.6, §7.1):
 * the subtree of a node, the parent chain of a node, and the nn.Module
 * view with GPU time per module.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "pyrepr.h"
#include "trace_event.h"
#include "tree_internal.h"

/* MARK: - printing (§2.6, §7.1) ------------------------------------------ */

/* Deeper trees are cut (input-controlled recursion bound). */
#define PRINT_MAX_DEPTH 4096

typedef struct printer {
    tlm_tree *t;
    FILE *out;
    unsigned flags;
    int max_depth;
    tlm_sbuf line;
    tlm_sbuf prefix;
    tlm_status st;
} printer;

static int has_gpu_path(const tlm_tree *t, int32_t u)
{
    return (t->nd[u].flags & TLM_NODE_GPU) || tlm_nd_has_gpu(t, u);
}

static void put_name64(tlm_sbuf *b, const char *nm)
{
    size_t len = strlen(nm);
    if (len > 64) {
        tlm_sbuf_putn(b, nm, 64);
        tlm_sbuf_puts(b, "..");
    } else {
        tlm_sbuf_putn(b, nm, len);
    }
}

static void node_text(printer *p, int32_t u)
{
    tlm_tree *t = p->t;
    const tlm_event *e = &t->ev[u];
    tlm_sbuf *b = &p->line;
    const char *cat = e->cat_str ? tlm_trace_str(t->trace, e->cat_str, NULL)
                                 : "None";
    tlm_sbuf_printf(b, "UID: %ld, Category: %s, Name: ", (long)u, cat);
    put_name64(b, tlm_trace_str(t->trace, e->name, NULL));
    if (t->nd[u].flags & TLM_NODE_GPU) {
        tlm_sbuf_puts(b, ", Duration: ");
        tlm_sbuf_pyfloat(b, tlm_ns_to_us(tlm_ev_dur(e)));
    } else if ((p->flags & TLM_PRINT_GPU_TIME) && has_gpu_path(t, u)) {
        size_t n;
        const int32_t *g = tlm_tree_gpu_events(t, u, &n);
        double busy = 0.0;
        if (tlm_tree_busy_us(t, g, n, &busy) != TLM_OK)
            p->st = TLM_ENOMEM;
        tlm_sbuf_printf(b, ", GPU Time: %.3f us (%zu GPU ops)", busy, n);
    }
}

static void flush_line(printer *p)
{
    if (p->line.oom || p->prefix.oom)
        p->st = TLM_ENOMEM;
    if (p->st == TLM_OK && p->line.len &&
        fwrite(p->line.p, 1, p->line.len, p->out) != p->line.len)
        p->st = TLM_EIO;
    tlm_sbuf_reset(&p->line);
}

static const struct {
    tlm_arg key;
    const char *label;
} shape_fields[] = {{TLM_ARG_INPUT_DIMS, "Input Dims"},
                    {TLM_ARG_INPUT_TYPE, "Input type"},
                    {TLM_ARG_INPUT_STRIDES, "Input Strides"},
                    {TLM_ARG_CONCRETE_INPUTS, "Concrete Inputs"}};

static void print_shapes(printer *p, int32_t u, const char *child_prefix,
                         size_t cplen)
{
    const tlm_event *e = &p->t->ev[u];
    if (!(p->flags & TLM_PRINT_SHAPES) || e->cat != TLM_CAT_CPU_OP)
        return;
    int any = 0;
    for (size_t i = 0; i < sizeof shape_fields / sizeof shape_fields[0];
         i++) {
        size_t len;
        const char *v =
            tlm_event_arg_str(p->t->trace, e, shape_fields[i].key, &len);
        if (!v)
            continue;
        tlm_sbuf_putn(&p->line, child_prefix, cplen);
        tlm_sbuf_printf(&p->line, "|   %s: ", shape_fields[i].label);
        if (tlm_sbuf_json_pyrepr(&p->line, v, len, 0) != 0)
            tlm_sbuf_putn(&p->line, v, len);
        tlm_sbuf_putc(&p->line, '\n');
        any = 1;
    }
    if (any) {
        tlm_sbuf_putn(&p->line, child_prefix, cplen);
        tlm_sbuf_puts(&p->line, "|   \n");
    }
    flush_line(p);
}

static int visible(const printer *p, int32_t c)
{
    return (p->flags & TLM_PRINT_NO_PRUNE) || has_gpu_path(p->t, c);
}

static void print_rec(printer *p, int32_t u, int last, int depth)
{
    if (p->st != TLM_OK)
        return;
    size_t plen = p->prefix.len;
    tlm_sbuf_putn(&p->line, p->prefix.p ? p->prefix.p : "", plen);
    tlm_sbuf_puts(&p->line, last ? "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 "
                                 : "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 ");
    node_text(p, u);
    tlm_sbuf_putc(&p->line, '\n');
    flush_line(p);
    tlm_sbuf_puts(&p->prefix, last ? "    " : "\xe2\x94\x82   ");
    print_shapes(p, u, p->prefix.p, p->prefix.len);
    if ((p->max_depth < 0 || depth < p->max_depth) &&
        depth < PRINT_MAX_DEPTH) {
        int32_t c = p->t->nd[u].first_child;
        while (c >= 0 && !visible(p, c))
            c = p->t->nd[c].next_sibling;
        while (c >= 0 && p->st == TLM_OK) {
            int32_t nx = p->t->nd[c].next_sibling;
            while (nx >= 0 && !visible(p, nx))
                nx = p->t->nd[nx].next_sibling;
            print_rec(p, c, nx < 0, depth + 1);
            c = nx;
        }
    }
    p->prefix.len = plen;
}

static tlm_status printer_done(printer *p, tlm_error *err)
{
    tlm_status st = p->st;
    tlm_sbuf_free(&p->line);
    tlm_sbuf_free(&p->prefix);
    if (st != TLM_OK)
        return tlm_error_set(err, st, NULL, -1, "tree: printing failed: %s",
                             tlm_status_str(st));
    return TLM_OK;
}

tlm_status tlm_tree_print(tlm_tree *t, FILE *out, int32_t uid,
                          int max_depth, unsigned flags, tlm_error *err)
{
    if (!t || !out || uid < 0 || (size_t)uid >= t->n)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tree: UID %ld out of range", (long)uid);
    printer p = {t, out, flags, max_depth, {0}, {0}, TLM_OK};
    tlm_sbuf_init(&p.line);
    tlm_sbuf_init(&p.prefix);
    tlm_sbuf_putc(&p.prefix, 0);
    p.prefix.len = 0;
    print_rec(&p, uid, 1, 0);
    return printer_done(&p, err);
}

tlm_status tlm_tree_print_parents(tlm_tree *t, FILE *out, int32_t uid,
                                  unsigned flags, tlm_error *err)
{
    if (!t || !out || uid < 0 || (size_t)uid >= t->n)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tree: UID %ld out of range", (long)uid);
    printer p = {t, out, flags, 0, {0}, {0}, TLM_OK};
    tlm_sbuf_init(&p.line);
    tlm_sbuf_init(&p.prefix);
    int32_t u = uid;
    for (int k = 0; u >= 0 && p.st == TLM_OK && k < PRINT_MAX_DEPTH; k++) {
        if (k == 0)
            tlm_sbuf_puts(&p.line, "Node:\n  ");
        else
            tlm_sbuf_printf(&p.line, "%d-up:\n  ", k);
        node_text(&p, u);
        tlm_sbuf_putc(&p.line, '\n');
        flush_line(&p);
        print_shapes(&p, u, "  ", 2);
        u = t->nd[u].parent;
    }
    if (tlm_tree_fwd_event(t, uid) >= 0) {
        tlm_sbuf_puts(&p.line, "Forward op:\n  ");
        node_text(&p, tlm_tree_fwd_event(t, uid));
        tlm_sbuf_putc(&p.line, '\n');
        flush_line(&p);
    }
    return printer_done(&p, err);
}

/* nn.Module view ---------------------------------------------------------- */

static int32_t module_parent(const tlm_tree *t, int32_t u)
{
    for (u = t->nd[u].parent; u >= 0; u = t->nd[u].parent)
        if (t->nd[u].flags & TLM_NODE_NN_MODULE)
            return u;
    return -1;
}

/* Module children of m: DFS over children, a module is taken and not
 * descended into.  Appends to *kids (growing array). */
static tlm_status module_children(const tlm_tree *t, int32_t m,
                                  int32_t **kids, size_t *nk, size_t *cap)
{
    int32_t u = t->nd[m].first_child;
    while (u >= 0) {
        int descend = 0;
        if (t->nd[u].flags & TLM_NODE_NN_MODULE) {
            if (tlm_grow((void **)kids, cap, *nk + 1, sizeof **kids, 16))
                return TLM_ENOMEM;
            (*kids)[(*nk)++] = u;
        } else if (t->nd[u].first_child >= 0) {
            descend = 1;
        }
        if (descend) {
            u = t->nd[u].first_child;
            continue;
        }
        while (u >= 0 && u != m && t->nd[u].next_sibling < 0)
            u = t->nd[u].parent;
        if (u < 0 || u == m)
            break;
        u = t->nd[u].next_sibling;
    }
    return TLM_OK;
}

static void module_rec(printer *p, int32_t m, int last, int depth,
                       double parent_time)
{
    tlm_tree *t = p->t;
    if (p->st != TLM_OK)
        return;
    size_t ng;
    const int32_t *g = tlm_tree_gpu_events(t, m, &ng);
    double gt = 0.0;
    if (tlm_tree_busy_us(t, g, ng, &gt) != TLM_OK) {
        p->st = TLM_ENOMEM;
        return;
    }
    size_t plen = p->prefix.len;
    tlm_sbuf_putn(&p->line, p->prefix.p ? p->prefix.p : "", plen);
    tlm_sbuf_puts(&p->line, last ? "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 "
                                 : "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 ");
    tlm_sbuf_printf(&p->line, "UID: %ld, Name: ", (long)m);
    tlm_sbuf_puts(&p->line, tlm_trace_str(t->trace, t->ev[m].name, NULL));
    tlm_sbuf_printf(&p->line, ", GPU Time: %.2f \xc2\xb5s", gt);
    if (parent_time > 0.0)
        tlm_sbuf_printf(&p->line, ", Pct Parent: %.2f%%",
                        gt / parent_time * 100.0);
    tlm_sbuf_putc(&p->line, '\n');
    flush_line(p);
    tlm_sbuf_puts(&p->prefix, last ? "    " : "\xe2\x94\x82   ");
    int32_t *kids = NULL;
    size_t nk = 0, cap = 0;
    if (module_children(t, m, &kids, &nk, &cap) != TLM_OK) {
        p->st = TLM_ENOMEM;
        free(kids);
        return;
    }
    /* GPU events of m not under any module child: the slices of the module
     * children are disjoint sub-slices of m's slice, in pre-order. */
    int32_t *rest = malloc((ng ? ng : 1) * sizeof *rest);
    size_t nr = 0;
    if (!rest) {
        p->st = TLM_ENOMEM;
        free(kids);
        return;
    }
    int32_t base = tlm_nd_grange(t, m).lo;
    uint8_t *cover = calloc(ng ? ng : 1, 1);
    if (!cover) {
        p->st = TLM_ENOMEM;
        free(rest);
        free(kids);
        return;
    }
    for (size_t i = 0; i < nk; i++)
        for (tlm_grange r = tlm_nd_grange(t, kids[i]); r.lo < r.hi; r.lo++)
            cover[r.lo - base] = 1;
    for (size_t j = 0; j < ng; j++)
        if (!cover[j])
            rest[nr++] = g[j];
    free(cover);
    double rt = 0.0;
    if (tlm_tree_busy_us(t, rest, nr, &rt) != TLM_OK)
        p->st = TLM_ENOMEM;
    free(rest);
    if ((p->max_depth < 0 || depth < p->max_depth) &&
        depth < PRINT_MAX_DEPTH) {
        for (size_t i = 0; i < nk && p->st == TLM_OK; i++)
            module_rec(p, kids[i], 0, depth + 1, gt);
    }
    if (p->st == TLM_OK) {
        tlm_sbuf_putn(&p->line, p->prefix.p, p->prefix.len);
        tlm_sbuf_printf(&p->line,
                        "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 Non-nn.Module "
                        "GPU Time: %.2f \xc2\xb5s, Pct Parent: %.2f%%\n",
                        rt, gt > 0.0 ? rt / gt * 100.0 : 0.0);
        flush_line(p);
    }
    free(kids);
    p->prefix.len = plen;
}

tlm_status tlm_tree_print_modules(tlm_tree *t, FILE *out, int max_depth,
                                  tlm_error *err)
{
    if (!t || !out)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tree: NULL tree or stream");
    printer p = {t, out, 0, max_depth, {0}, {0}, TLM_OK};
    tlm_sbuf_init(&p.line);
    tlm_sbuf_init(&p.prefix);
    tlm_sbuf_putc(&p.prefix, 0);
    p.prefix.len = 0;
    size_t nroots = 0;
    for (size_t i = 0; i < t->n && p.st == TLM_OK; i++) {
        int32_t u = (int32_t)i;
        if (!(t->nd[u].flags & TLM_NODE_NN_MODULE) ||
            !(t->nd[u].flags & TLM_NODE_TREE) || module_parent(t, u) >= 0)
            continue;
        nroots++;
        module_rec(&p, u, 1, 0, 0.0);
    }
    if (p.st == TLM_OK && nroots == 0) {
        tlm_sbuf_puts(&p.line, "no nn.Module events in the tree "
                               "(python_function events needed)\n");
        flush_line(&p);
    }
    /* GPU work outside any module, at the top level. */
    if (p.st == TLM_OK && t->n_gpu_order) {
        double all = 0.0, outside = 0.0;
        int32_t *rest = malloc(t->n_gpu_order * sizeof *rest);
        size_t nr = 0;
        if (!rest) {
            p.st = TLM_ENOMEM;
        } else {
            for (size_t j = 0; j < t->n_gpu_order; j++) {
                int32_t g = t->gpu_order[j];
                int32_t a = t->nd[g].parent;
                while (a >= 0 && !(t->nd[a].flags & TLM_NODE_NN_MODULE))
                    a = t->nd[a].parent;
                if (a < 0)
                    rest[nr++] = g;
            }
            if (tlm_tree_busy_us(t, t->gpu_order, t->n_gpu_order, &all) !=
                    TLM_OK ||
                tlm_tree_busy_us(t, rest, nr, &outside) != TLM_OK)
                p.st = TLM_ENOMEM;
            free(rest);
            tlm_sbuf_printf(&p.line,
                            "Non-nn.Module GPU Time (top level): %.2f "
                            "\xc2\xb5s of %.2f \xc2\xb5s linked GPU busy "
                            "time (%.2f%%)\n",
                            outside, all,
                            all > 0.0 ? outside / all * 100.0 : 0.0);
            flush_line(&p);
        }
    }
    return printer_done(&p, err);
}
