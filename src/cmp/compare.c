/*
 * compare.c - compare.md §4: which sheets TraceLens's report comparison
 * produces, in its order, with their keys, metrics, deleted columns and
 * sorts: gpu_timeline, ops_summary, kernel_summary (PyTorch or rocprof
 * layout), the op-level splits (ops_all, ops_unique_args,
 * unified_perf_summary) and the perf-model ("roofline") splits.
 *
 * Default mode differs from TraceLens where TraceLens fails for no good
 * reason (docs/tracelens-differences.md): a summary sheet missing from
 * the baseline is skipped with a note unless it was asked for by its own
 * word.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_internal.h"
#include "grow.h"

#define US "\xc2\xb5s" /* µs */

/* MARK: - results ---------------------------------------------------------- */

void tlm_cmp_result_free(tlm_cmp_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        tlm_tab_free(r->v[i].t);
        free(r->v[i].hidden);
    }
    free(r->v);
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* Hidden columns of the workbook (compare.md §4.3, §4.4; Q10). */
static int hidden_col(const char *name, int roofline)
{
    static const char *const ops[] = {"kernel_names", "median", "std", "min",
                                      "max", "ex_UID"};
    static const char *const roof[] = {
        "kernel_names_first", "UID", "median", "std", "min", "max",
        "Input type_first", "Input Dims_first", "Input Strides_first",
        "Concrete Inputs_first"};
    const char *const *v = roofline ? roof : ops;
    size_t n = roofline ? sizeof roof / sizeof *roof : sizeof ops / sizeof *ops;
    for (size_t i = 0; i < n; i++)
        if (ends_with(name, v[i]))
            return 1;
    return 0;
}

/* Appends t (taken) to the result; hide: 0 none, 1 op-level, 2 roofline. */
static tlm_status push_out(tlm_cmp_result *r, tlm_tab *t, int hide,
                           tlm_error *err)
{
    if (tlm_grow((void **)&r->v, &r->cap, r->n + 1, sizeof *r->v, 16)) {
        tlm_tab_free(t);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    unsigned char *h = calloc(t->ncols ? t->ncols : 1, 1);
    if (!h) {
        tlm_tab_free(t);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    for (size_t i = 0; hide && i < t->ncols; i++)
        h[i] = (unsigned char)hidden_col(t->colnames[i], hide == 2);
    r->v[r->n].t = t;
    r->v[r->n++].hidden = h;
    return TLM_OK;
}

static void note(tlm_cmp_result *r, const char *fmt, const char *a,
                 const char *b)
{
    char buf[600];
    snprintf(buf, sizeof buf, fmt, a, b);
    char **v = realloc(r->notes, (r->nnotes + 1) * sizeof *v);
    if (!v)
        return;
    r->notes = v;
    if ((v[r->nnotes] = strdup(buf)) != NULL)
        r->nnotes++;
}

/* MARK: - loading ---------------------------------------------------------- */

typedef struct run {
    tlm_rsrc *const *reps;
    const char *const *tags;
    const char **labels;
    size_t n;
    const tlm_cmp_opts *o;
    tlm_cmp_result *res;
    tlm_tab **tabs; /* the sheet of every report while it is compared */
} run;

static void drop_tabs(run *x)
{
    for (size_t i = 0; i < x->n; i++) {
        tlm_tab_free(x->tabs[i]);
        x->tabs[i] = NULL;
    }
}

/* Loads sheet from every report; a variant without it is an error
 * naming the variant (compare.md §2.1). */
static tlm_status load_all(run *x, const char *sheet, tlm_error *err)
{
    for (size_t i = 0; i < x->n; i++) {
        tlm_status st = tlm_rsrc_load(x->reps[i], sheet, &x->tabs[i], err);
        if (st != TLM_OK) {
            drop_tabs(x);
            return st;
        }
    }
    return TLM_OK;
}

/* Removes the named columns from tabs[from..n). */
static tlm_status del_cols(run *x, size_t from, const char *const *cols,
                           size_t nc, tlm_error *err)
{
    for (size_t i = from; i < x->n; i++) {
        tlm_tab *t = x->tabs[i];
        size_t *keep = malloc((t->ncols ? t->ncols : 1) * sizeof *keep), k = 0;
        if (!keep)
            return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        for (size_t c = 0; c < t->ncols; c++) {
            int del = 0;
            for (size_t j = 0; j < nc && !del; j++)
                del = !strcmp(t->colnames[c], cols[j]);
            if (!del)
                keep[k++] = c;
        }
        tlm_tab *d = k == t->ncols ? NULL
                                   : tlm_tab_select(t, t->name, keep, k, NULL,
                                                    NULL, 0);
        free(keep);
        if (k != t->ncols && !d)
            return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        if (d) {
            tlm_tab_free(t);
            x->tabs[i] = d;
        }
    }
    return TLM_OK;
}

static tlm_status build(run *x, const char *const *keys, size_t nk,
                        const char *const *d, size_t nd, tlm_cmp_tab *c,
                        tlm_error *err)
{
    return tlm_cmp_build((const tlm_tab *const *)x->tabs, x->tags, x->labels,
                         x->n, keys, nk, d, nd, x->o->compat, c, err);
}

/* MARK: - the sheets -------------------------------------------------------- */

static tlm_status gpu_timeline(run *x, tlm_error *err)
{
    static const char *const k[] = {"type"}, *const d[] = {"time ms"};
    tlm_cmp_tab c;
    tlm_status st = load_all(x, "gpu_timeline", err);
    if (st == TLM_OK)
        st = build(x, k, 1, d, 1, &c, err);
    drop_tabs(x);
    if (st != TLM_OK)
        return st;
    st = push_out(x->res, c.t, 0, err);
    c.t = NULL;
    tlm_cmp_tab_free(&c);
    return st;
}

/* One summary sheet (compare.md §4.2). */
typedef struct summary_cfg {
    const char *key;
    const char *metrics[3];
    const char *del[6];
    size_t ndel;
} summary_cfg;

static const summary_cfg OPS_SUMMARY = {
    "name",
    {"total_direct_kernel_time_ms", "Count", NULL},
    {"total_direct_kernel_time_sum"},
    1};
static const summary_cfg KERNEL_SUMMARY = {
    "Kernel name",
    {"Kernel duration (" US ")_sum", "Kernel duration (" US ")_mean",
     "Kernel duration (" US ")_count"},
    {"Kernel duration (" US ")_min", "Kernel duration (" US ")_max",
     "Parent op category"},
    3};
static const summary_cfg KERNEL_SUMMARY_LEGACY = {
    "name",
    {"Total Kernel Time (ms)", "Mean Kernel Time (" US ")", "Count"},
    {"Total Kernel Time (" US ")", "Median Kernel Time (" US ")",
     "Std Kernel Time (" US ")", "Min Kernel Time (" US ")",
     "Max Kernel Time (" US ")", "Category"},
    6};

static tlm_status summary(run *x, const char *sheet, unsigned bit,
                          tlm_error *err)
{
    if (!tlm_rsrc_has(x->reps[0], sheet)) {
        if (!x->o->compat && !(x->o->named & bit)) {
            note(x->res, "%s: the baseline %s has no such sheet; skipped",
                 sheet, tlm_rsrc_path(x->reps[0]));
            return TLM_OK;
        }
        return tlm_error_set(err, TLM_ENOTFOUND, tlm_rsrc_path(x->reps[0]),
                             -1, "%s sheet not found in %s", sheet,
                             tlm_rsrc_path(x->reps[0]));
    }
    tlm_status st = load_all(x, sheet, err);
    if (st != TLM_OK)
        return st;
    const summary_cfg *cfg = &OPS_SUMMARY;
    if (!strcmp(sheet, "kernel_summary"))
        cfg = tlm_tab_col(x->tabs[0], "Kernel name") >= 0
                  ? &KERNEL_SUMMARY : &KERNEL_SUMMARY_LEGACY;
    static const char *const cum[] = {"Cumulative Percentage (%)"};
    size_t nm = cfg->metrics[2] ? 3 : 2;
    tlm_cmp_tab c = {0};
    st = del_cols(x, 0, cfg->del, cfg->ndel, err);
    if (st == TLM_OK)
        st = del_cols(x, 1, cum, 1, err);
    if (st == TLM_OK)
        st = build(x, &cfg->key, 1, cfg->metrics, nm, &c, err);
    drop_tabs(x);
    if (st == TLM_OK &&
        tlm_cmp_sort_desc(&c, 0, x->tags[0], cfg->metrics[0]) != TLM_OK)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    if (st == TLM_OK) {
        st = push_out(x->res, c.t, 0, err);
        c.t = NULL;
    }
    tlm_cmp_tab_free(&c);
    return st;
}

/* Splits c for every variant into the result. */
static tlm_status splits(run *x, const tlm_cmp_tab *c, const char *base,
                         const char *metric, int hide, tlm_error *err)
{
    for (size_t v = 1; v < x->n; v++) {
        tlm_tab *p[3];
        tlm_status st = tlm_cmp_split(c, base, x->tags, (int)v, metric, p,
                                      err);
        for (int i = 0; i < 3 && st == TLM_OK; i++) {
            st = push_out(x->res, p[i], hide, err);
            p[i] = NULL;
        }
        for (int i = 0; i < 3 && st != TLM_OK; i++)
            tlm_tab_free(p[i]);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

static tlm_status op_level(run *x, tlm_error *err)
{
    static const char *const sheets[] = {"ops_all", "ops_unique_args",
                                         "unified_perf_summary"};
    static const char *const keys[] = {"name", "Input type", "Input Dims",
                                       "Input Strides", "Concrete Inputs"};
    static const char *const d_ops[] = {"total_direct_kernel_time_sum",
                                        "total_direct_kernel_time_mean",
                                        "operation_count"};
    static const char *const d_uni[] = {"Kernel Time (" US ")_sum",
                                        "Kernel Time (" US ")_mean",
                                        "operation_count"};
    for (size_t s = 0; s < 3; s++) {
        if (!tlm_rsrc_has(x->reps[0], sheets[s]))
            continue;
        const char *const *d = s == 2 ? d_uni : d_ops;
        tlm_cmp_tab c = {0};
        tlm_status st = load_all(x, sheets[s], err);
        if (st == TLM_OK)
            st = build(x, keys, 5, d, 3, &c, err);
        drop_tabs(x);
        if (st == TLM_OK)
            st = splits(x, &c, sheets[s], d[0], 1, err);
        tlm_cmp_tab_free(&c);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* The join keys of a perf-model sheet: name, then the param: columns
 * every report has, by code point. */
static size_t roof_keys(const run *x, const char **keys, size_t cap)
{
    size_t n = 0;
    keys[n++] = "name";
    const tlm_tab *t = x->tabs[0];
    for (size_t c = 0; c < t->ncols && n < cap; c++) {
        const char *nm = t->colnames[c];
        if (strncmp(nm, "param:", 6) != 0)
            continue;
        size_t i = 1;
        while (i < x->n && tlm_tab_col(x->tabs[i], nm) >= 0)
            i++;
        if (i < x->n)
            continue;
        size_t at = n++;
        while (at > 1 && strcmp(keys[at - 1], nm) > 0) {
            keys[at] = keys[at - 1];
            at--;
        }
        keys[at] = nm;
    }
    return n;
}

static tlm_status roofline_one(run *x, const char *sheet, const char *base,
                               tlm_error *err)
{
    static const char *const del[] = {
        "GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first",
        "Input type_first", "Input Dims_first", "Input Strides_first",
        "Concrete Inputs_first"};
    static const char *const d[] = {"Kernel Time (" US ")_sum",
                                    "Kernel Time (" US ")_mean", "name_count",
                                    "TFLOPS/s_mean", "TB/s_mean"};
    tlm_status st = load_all(x, sheet, err);
    if (st == TLM_OK)
        st = del_cols(x, 1, del, sizeof del / sizeof *del, err);
    int empty = 0;
    for (size_t i = 0; st == TLM_OK && i < x->n; i++)
        empty |= x->tabs[i]->nrows == 0 || x->tabs[i]->ncols == 0;
    if (st == TLM_OK && empty) {
        note(x->res, "Skipping roofline sheet '%s' because one of the "
                     "reports is empty.%s", sheet, "");
        drop_tabs(x);
        return TLM_OK;
    }
    tlm_cmp_tab c = {0};
    if (st == TLM_OK) {
        const char *keys[64];
        size_t nk = roof_keys(x, keys, 64);
        st = build(x, keys, nk, d, 5, &c, err);
    }
    drop_tabs(x);
    if (st == TLM_OK)
        st = splits(x, &c, base, d[0], 2, err);
    tlm_cmp_tab_free(&c);
    return st;
}

static tlm_status roofline(run *x, tlm_error *err)
{
    static const char *const in[] = {"GEMM", "SDPA_fwd", "SDPA_bwd",
                                     "CONV_fwd", "CONV_bwd",
                                     "UnaryElementwise", "BinaryElementwise"};
    static const char *const out[] = {"GEMM", "SDPA_fwd", "SDPA_bwd",
                                      "CONV_fwd", "CONV_bwd", "un_eltwise",
                                      "bin_eltwise"};
    for (size_t s = 0; s < sizeof in / sizeof *in; s++) {
        if (!tlm_rsrc_has(x->reps[0], in[s]))
            continue;
        size_t lack = 1;
        while (lack < x->n && tlm_rsrc_has(x->reps[lack], in[s]))
            lack++;
        if (lack < x->n && !x->o->compat) { /* TraceLens fails here */
            note(x->res, "Skipping roofline sheet '%s': %s has no such "
                         "sheet (no such ops).", in[s],
                 tlm_rsrc_path(x->reps[lack]));
            continue;
        }
        tlm_status st = roofline_one(x, in[s], out[s], err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* MARK: - the run ---------------------------------------------------------- */

/* A PyTorch report has op sheets; a rocprof (or other GPU-only) report
 * has none (compare.md §4.2: its kernel_summary is the legacy layout). */
static int pytorch_kind(const tlm_rsrc *r)
{
    static const char *const ops[] = {"ops_summary", "ops_unique_args",
                                      "ops_all", "unified_perf_summary"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (tlm_rsrc_has(r, ops[i]))
            return 1;
    return 0;
}

static tlm_status same_kind(const run *x, tlm_error *err)
{
    int k0 = pytorch_kind(x->reps[0]);
    for (size_t i = 1; i < x->n; i++)
        if (pytorch_kind(x->reps[i]) != k0)
            return tlm_error_set(
                err, TLM_EFORMAT, tlm_rsrc_path(x->reps[i]), -1,
                "reports of different kinds: %s is a %s report, the "
                "baseline %s a %s report", tlm_rsrc_path(x->reps[i]),
                k0 ? "GPU-only (rocprof)" : "PyTorch",
                tlm_rsrc_path(x->reps[0]),
                k0 ? "PyTorch" : "GPU-only (rocprof)");
    return TLM_OK;
}

int tlm_cmp_sheet_word(const char *w, unsigned *bits, unsigned *named)
{
    static const struct {
        const char *w;
        unsigned b;
    } words[] = {{"gpu_timeline", TLM_CMP_GPU_TIMELINE},
                 {"ops_summary", TLM_CMP_OPS_SUMMARY},
                 {"kernel_summary", TLM_CMP_KERNEL_SUMMARY},
                 {"ops_all", TLM_CMP_OPS_ALL},
                 {"roofline", TLM_CMP_ROOFLINE},
                 {"all", TLM_CMP_ALL}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(w, words[i].w)) {
            *bits |= words[i].b;
            if (words[i].b != TLM_CMP_ALL)
                *named |= words[i].b;
            return 0;
        }
    return -1;
}

tlm_status tlm_cmp_run(tlm_rsrc *const *reps, const char *const *tags,
                       size_t n, const tlm_cmp_opts *o, tlm_cmp_result *out,
                       tlm_error *err)
{
    memset(out, 0, sizeof *out);
    run x = {reps, tags, NULL, n, o, out, NULL};
    x.labels = calloc(n ? n : 1, sizeof *x.labels);
    x.tabs = calloc(n ? n : 1, sizeof *x.tabs);
    tlm_status st = TLM_OK;
    if (!x.labels || !x.tabs)
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    for (size_t i = 0; st == TLM_OK && i < n; i++)
        x.labels[i] = tlm_rsrc_path(reps[i]);
    unsigned s = o->sheets;
    if (st == TLM_OK)
        st = same_kind(&x, err);
    if (st == TLM_OK && (s & TLM_CMP_GPU_TIMELINE))
        st = gpu_timeline(&x, err);
    if (st == TLM_OK && (s & TLM_CMP_OPS_SUMMARY))
        st = summary(&x, "ops_summary", TLM_CMP_OPS_SUMMARY, err);
    if (st == TLM_OK && (s & TLM_CMP_KERNEL_SUMMARY))
        st = summary(&x, "kernel_summary", TLM_CMP_KERNEL_SUMMARY, err);
    if (st == TLM_OK && (s & TLM_CMP_OPS_ALL))
        st = op_level(&x, err);
    if (st == TLM_OK && (s & TLM_CMP_ROOFLINE))
        st = roofline(&x, err);
    free(x.labels);
    free(x.tabs);
    if (st != TLM_OK)
        tlm_cmp_result_free(out);
    return st;
}
