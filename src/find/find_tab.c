/*
 * find_tab.c - reading the input tables whatever their origin (a report
 * just built, or CSVs / a workbook typed as pandas would): a column by
 * name, the number of a cell whatever its type, and the per-row metrics
 * of spec findings.md §3.1 (efficiency, bound, ridge).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"

const tlm_tab *fnd_tab(const tlm_find_input *in, const char *name)
{
    for (size_t i = 0; in && i < in->ntabs; i++)
        if (in->tabs[i] && !strcmp(in->tabs[i]->name, name))
            return in->tabs[i];
    return NULL;
}

static const tlm_cell *cell(const tlm_tab *t, size_t row, const char *col,
                            tlm_coltype *ty)
{
    if (!t || row >= t->nrows)
        return NULL;
    long c = tlm_tab_col(t, col);
    if (c < 0)
        return NULL;
    const tlm_cell *x = tlm_tab_cell(t, row, (size_t)c);
    if (x->null)
        return NULL;
    *ty = t->coltypes[c];
    return x;
}

double fnd_num(const tlm_tab *t, size_t row, const char *col)
{
    tlm_coltype ty;
    const tlm_cell *x = cell(t, row, col, &ty);
    if (!x)
        return NAN;
    switch (ty) {
    case TLM_COL_F64:
        return x->v.f;
    case TLM_COL_I64:
        return (double)x->v.i;
    case TLM_COL_BOOL:
        return x->v.i ? 1.0 : 0.0;
    case TLM_COL_STR: {
        if (!x->v.s)
            return NAN;
        char *end;
        double v = strtod(x->v.s, &end);
        return end != x->v.s && !*end ? v : NAN;
    }
    }
    return NAN;
}

const char *fnd_str(const tlm_tab *t, size_t row, const char *col)
{
    tlm_coltype ty;
    const tlm_cell *x = cell(t, row, col, &ty);
    return x && ty == TLM_COL_STR && x->v.s ? x->v.s : "";
}

int fnd_bool(const tlm_tab *t, size_t row, const char *col)
{
    tlm_coltype ty;
    const tlm_cell *x = cell(t, row, col, &ty);
    if (!x)
        return -1;
    if (ty == TLM_COL_STR) {
        if (!strcmp(x->v.s, "True") || !strcmp(x->v.s, "true"))
            return 1;
        if (!strcmp(x->v.s, "False") || !strcmp(x->v.s, "false"))
            return 0;
        return -1;
    }
    double v = fnd_num(t, row, col);
    return isnan(v) ? -1 : v != 0;
}

double fnd_sum(const tlm_tab *t, const char *col)
{
    double s = 0;
    for (size_t i = 0; t && i < t->nrows; i++) {
        double v = fnd_num(t, i, col);
        if (!isnan(v))
            s += v;
    }
    return s;
}

int fnd_timeline(const tlm_tab *t, const char *type, double *ms, double *pct)
{
    for (size_t i = 0; t && i < t->nrows; i++) {
        if (strcmp(fnd_str(t, i, "type"), type) != 0)
            continue;
        *ms = fnd_num(t, i, "time ms");
        *pct = fnd_num(t, i, "percent");
        return 0;
    }
    *ms = *pct = NAN;
    return -1;
}

/* ---------------------------------------------------------- arguments */

/* The next top-level element of a Python tuple text "(a, (b, c), 'd')":
 * [*s0, *s1); p advances.  0 at the end. */
static int next_elem(const char **p, const char **s0, const char **s1)
{
    const char *q = *p;
    while (*q == ' ' || *q == ',')
        q++;
    if (!*q || *q == ')')
        return 0;
    int depth = 0;
    char quote = 0;
    *s0 = q;
    for (; *q; q++) {
        if (quote) {
            if (*q == quote)
                quote = 0;
        } else if (*q == '\'' || *q == '"') {
            quote = *q;
        } else if (*q == '(' || *q == '[') {
            depth++;
        } else if (*q == ')' || *q == ']') {
            if (depth == 0)
                break;
            depth--;
        } else if (*q == ',' && depth == 0) {
            break;
        }
    }
    *s1 = q;
    *p = q;
    return 1;
}

static const char *short_dtype(const char *s, size_t n, char *buf, size_t cap)
{
    static const struct {
        const char *in, *out;
    } m[] = {{"c10::BFloat16", "bf16"}, {"c10::Half", "fp16"},
             {"float", "fp32"},         {"double", "fp64"},
             {"c10::Float8_e4m3fn", "fp8"}, {"long int", "int64"},
             {"int", "int32"},          {"bool", "bool"}};
    while (n && (*s == '\'' || *s == '"' || *s == ' '))
        s++, n--;
    while (n && (s[n - 1] == '\'' || s[n - 1] == '"' || s[n - 1] == ' '))
        n--;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (strlen(m[i].in) == n && !strncmp(s, m[i].in, n))
            return m[i].out;
    snprintf(buf, cap, "%.*s", (int)(n < 40 ? n : 40), s);
    return buf;
}

/* dims "(16, 16)" -> "(16,16)" into out. */
static void compact(const char *s0, const char *s1, char *out, size_t cap)
{
    size_t k = 0;
    for (const char *q = s0; q < s1 && k + 1 < cap; q++)
        if (*q != ' ')
            out[k++] = *q;
    out[k] = 0;
}

void fnd_args(tlm_sbuf *b, const char *dims, const char *types)
{
    const char *pd = dims && *dims == '(' ? dims + 1 : "";
    const char *pt = types && *types == '(' ? types + 1 : "";
    char prev[160] = "", cur[160], tb[48];
    const char *prev_t = "";
    char prev_tb[48] = "";
    int count = 0, first = 1;
    for (;;) {
        const char *d0, *d1, *t0 = "", *t1 = "";
        if (!next_elem(&pd, &d0, &d1))
            break;
        int ht = next_elem(&pt, &t0, &t1);
        if (d1 - d0 < 3 || *d0 != '(') /* scalar or () */
            continue;
        compact(d0, d1, cur, sizeof cur);
        const char *ty =
            ht ? short_dtype(t0, (size_t)(t1 - t0), tb, sizeof tb) : "";
        if (count && !strcmp(cur, prev) && !strcmp(ty, prev_t)) {
            count++;
            continue;
        }
        if (count) {
            tlm_sbuf_printf(b, "%s%s %s", first ? "" : ", ", prev, prev_t);
            if (count > 1)
                tlm_sbuf_printf(b, " \xc3\x97%d", count);
            first = 0;
        }
        snprintf(prev, sizeof prev, "%s", cur);
        snprintf(prev_tb, sizeof prev_tb, "%s", ty);
        prev_t = prev_tb;
        count = 1;
    }
    if (count) {
        tlm_sbuf_printf(b, "%s%s %s", first ? "" : ", ", prev, prev_t);
        if (count > 1)
            tlm_sbuf_printf(b, " \xc3\x97%d", count);
    }
}

void fnd_subject(tlm_sbuf *b, const tlm_tab *u, size_t row)
{
    tlm_sbuf_puts(b, fnd_str(u, row, "name"));
    size_t len = b->len;
    tlm_sbuf_putc(b, ' ');
    fnd_args(b, fnd_str(u, row, "Input Dims"), fnd_str(u, row, "Input type"));
    if (b->len == len + 1 && !b->oom) { /* no tensor args */
        b->len = len;
        b->p[len] = 0;
    }
}

/* ---------------------------------------------------------- context */

void fnd_ctx_init(fnd_ctx *c, const tlm_find_input *in,
                  const tlm_find_opts *o)
{
    memset(c, 0, sizeof *c);
    c->in = in;
    c->o = o;
    c->hw = in->hw && in->hw->known ? in->hw : NULL;
    c->tl = fnd_tab(in, "gpu_timeline");
    c->ops = fnd_tab(in, "ops_summary");
    c->uni = fnd_tab(in, "unified_perf_summary");
    c->gemm = fnd_tab(in, "GEMM");
    c->ks = fnd_tab(in, "kernel_summary");
    c->skh = fnd_tab(in, "short_kernel_histogram");
    c->coll = fnd_tab(in, "coll_analysis");
    c->mc = fnd_tab(in, "memcpy_summary");
    double ms, pct;
    c->e2e_us = c->cmp_us = NAN;
    if (fnd_timeline(c->tl, "total_time", &ms, &pct) == 0)
        c->e2e_us = ms * 1000.0;
    if (fnd_timeline(c->tl, "computation_time", &ms, &pct) == 0)
        c->cmp_us = ms * 1000.0;
}

void fnd_row_metrics(const fnd_ctx *c, size_t row, fnd_rowm *m)
{
    const tlm_tab *u = c->uni;
    memset(m, 0, sizeof *m);
    m->T = fnd_num(u, row, FND_US);
    m->pct_e2e = c->e2e_us > 0 ? 100.0 * m->T / c->e2e_us : NAN;
    m->pct_cmp = c->cmp_us > 0 ? 100.0 * m->T / c->cmp_us : NAN;
    m->eff_mem = m->eff_cmp = m->eff = m->ridge = m->peak = NAN;
    m->fpb = fnd_num(u, row, "FLOPS/Byte");
    m->tbs = fnd_num(u, row, "TB/s_mean");
    m->tfs = fnd_num(u, row, "TFLOPS/s_mean");
    m->modelled = fnd_bool(u, row, "has_perf_model") == 1 && !isnan(m->tbs);
    if (!m->modelled || !c->hw)
        return;
    const char *spec = fnd_str(u, row, "Compute Spec");
    m->peak = tlm_find_hw_peak(c->hw, spec);
    m->eff_mem = 100.0 * m->tbs / c->hw->bw;
    if (!isnan(m->peak)) {
        m->eff_cmp = isnan(m->tfs) ? NAN : 100.0 * m->tfs / m->peak;
        m->ridge = m->peak / c->hw->bw;
        snprintf(m->bound, sizeof m->bound, "%s",
                 m->fpb >= m->ridge ? "compute" : "memory");
        m->eff = isnan(m->eff_cmp) ? m->eff_mem
                                   : fmax(m->eff_mem, m->eff_cmp);
    } else {
        snprintf(m->bound, sizeof m->bound, "%s",
                 m->fpb < 50    ? "memory"
                 : m->fpb > 200 ? "compute"
                                : "balanced");
        if (strcmp(m->bound, "compute") != 0)
            m->eff = m->eff_mem;
        else
            m->why = "no peak for this compute spec";
    }
    m->defined = !isnan(m->eff);
    m->anomaly = m->defined && m->eff > c->o->t[TLM_FIND_T_anomaly];
}

const char *fnd_band(const tlm_find_opts *o, double eff)
{
    if (eff >= o->t[TLM_FIND_T_eff_good])
        return "Excellent";
    if (eff >= o->t[TLM_FIND_T_eff_ok])
        return "Good";
    if (eff >= o->t[TLM_FIND_T_eff_low])
        return "Acceptable";
    return "Needs investigation";
}

static int has(const char *s, const char *sub)
{
    return s && strstr(s, sub) != NULL;
}

const char *fnd_kernel_library(const char *name, const char *k)
{
    if (has(name, "aiter::") || has(name, "rocm_aiter"))
        return "AITER";
    if (has(name, "fbgemm"))
        return "FBGEMM";
    if (has(name, "miopen"))
        return "MIOpen";
    if (has(name, "triton"))
        return "Triton";
    static const struct {
        const char *m, *lib;
    } km[] = {{"aiter", "AITER"},
              {"ck_tile::", "CK"},
              {"ck_tile6kentry", "CK"},
              {"FmhaFwd", "CK"},
              {"FmhaBwd", "CK"},
              {"Cijk_", "Tensile"},
              {"wvSplitK", "rocBLAS"},
              {"splitKreduce", "rocBLAS"},
              {"rocprim::", "rocPRIM"},
              {"triton_", "Triton"},
              {"flash_fwd", "FlashAttention"},
              {"flash_bwd", "FlashAttention"},
              {"cutlass", "vendor BLAS"},
              {"xmma", "vendor BLAS"},
              {"cublas", "vendor BLAS"},
              {"void at::native::", "PyTorch native"}};
    /* first marker by position in the kernel text wins */
    const char *best = NULL, *pos = NULL;
    for (size_t i = 0; k && i < sizeof km / sizeof km[0]; i++) {
        const char *p = strstr(k, km[i].m);
        if (p && (!pos || p < pos)) {
            pos = p;
            best = km[i].lib;
        }
    }
    return best;
}
