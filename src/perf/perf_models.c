/*
 * perf_models.c - TraceLens's analytical perf models in C: FLOPs, bytes
 * moved and the "param:" columns of every perf-model sheet (GEMM, SDPA,
 * CONV, elementwise, reduce, normalization).
 *
 * Each model reads the op's argument texts (compact JSON) the way the
 * Python class reads event["args"] (AMD-AGI/TraceLens:TraceLens/PerfModel/
 * perf_model.py, [perfreport] §6), including its quirks, so
 * that FLOPs, bytes and params match the reference CSVs for the same
 * inputs.  Python failure modes map to statuses: KeyError / IndexError /
 * TypeError on the args -> TLM_EFORMAT, ValueError / assertion / division
 * by zero inside a model -> TLM_ERANGE, NotImplementedError -> TLM_EINVAL.
 *
 * FLOPs and bytes are doubles.  Python computes them with exact integers
 * and converts once when dividing by 1e9; doubles give the same result
 * while the counts stay below 2^53 (9e15), which covers any single op.
 * Where Python itself computes in floats (causal halving, varlen, norms)
 * the C code uses the same operation order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_pm.h"
#include "pyrepr.h"
#include "tlmpi/tlm_perf.h"

static const char *const arg_names[A_COUNT] = {
    "Input Dims", "Input type", "Input Strides", "Concrete Inputs",
    "Output type"};

tlm_status pm_fail(pm_ctx *c, tlm_status st, const char *fmt,
                          const char *detail)
{
    if (c->st == TLM_OK) {
        c->st = st;
        tlm_error_set(c->err, st, NULL, -1, "%s: %s%s", c->name, fmt,
                      detail ? detail : "");
    }
    return c->st;
}


/* ------------------------------------------------------------------ */
/* MARK: - Arg access                                                 */
/* ------------------------------------------------------------------ */

int has_arg(const pm_ctx *c, int which)
{
    return c->root[which] != NULL;
}

/* Count of items of a list arg (KeyError when absent). */
int arg_len(pm_ctx *c, int which, size_t *n)
{
    const tlm_pj_node *r = c->root[which];
    if (r == NULL) {
        pm_fail(c, TLM_EFORMAT, "missing arg ", arg_names[which]);
        return 0;
    }
    if (r->type != TLM_PJ_ARR) {
        pm_fail(c, TLM_EFORMAT, "not a list: ", arg_names[which]);
        return 0;
    }
    *n = r->count;
    return 1;
}

/* i-th item of a list arg (KeyError / IndexError -> error). */
const tlm_pj_node *arg_at(pm_ctx *c, int which, size_t i)
{
    size_t n;
    const tlm_pj_node *r;
    if (!arg_len(c, which, &n)) {
        return NULL;
    }
    if (i >= n) {
        char msg[64];
        snprintf(msg, sizeof(msg), "[%zu] out of range", i);
        pm_fail(c, TLM_EFORMAT, arg_names[which], msg);
        return NULL;
    }
    r = tlm_pj_child(&c->doc[which], c->root[which], i);
    return r;
}

/* i-th Concrete Input as a string (they are strings in Kineto traces). */
const char *concrete_str(pm_ctx *c, size_t i)
{
    const tlm_pj_node *n = arg_at(c, A_CONCRETE, i);
    if (n == NULL) {
        return NULL;
    }
    if (n->type != TLM_PJ_STR) {
        pm_fail(c, TLM_EFORMAT, "Concrete Inputs entry is not a string",
                NULL);
        return NULL;
    }
    return n->str;
}

/* i-th Input type; a JSON null gives "" with *is_null = 1. */
const char *type_at(pm_ctx *c, size_t i)
{
    const tlm_pj_node *n = arg_at(c, A_TYPES, i);
    if (n == NULL) {
        return NULL;
    }
    if (n->type == TLM_PJ_STR) {
        return n->str;
    }
    pm_fail(c, TLM_EFORMAT, "Input type entry is not a string", NULL);
    return NULL;
}

/* A node of the Input Dims doc that must be a list of integers. */
int node_shape(pm_ctx *c, const tlm_pj_node *n, int64_t *dims,
                      size_t *nd)
{
    size_t i;
    if (n == NULL) {
        return 0;
    }
    if (n->type != TLM_PJ_ARR) {
        pm_fail(c, TLM_EFORMAT, "shape is not a list", NULL);
        return 0;
    }
    if (n->count > MAX_DIMS) {
        pm_fail(c, TLM_ELIMIT, "shape has too many dims", NULL);
        return 0;
    }
    for (i = 0; i < n->count; i++) {
        const tlm_pj_node *d = tlm_pj_child(&c->doc[A_DIMS], n, i);
        if (d == NULL || d->type != TLM_PJ_NUM || !d->is_int) {
            pm_fail(c, TLM_EFORMAT, "shape entry is not an integer", NULL);
            return 0;
        }
        dims[i] = d->ival;
    }
    *nd = n->count;
    return 1;
}

int dims_shape(pm_ctx *c, size_t i, int64_t *dims, size_t *nd)
{
    if (!node_shape(c, arg_at(c, A_DIMS, i), dims, nd))
        return 0;
    for (size_t k = 0; k < *nd; k++)
        if (dims[k] < 0) { /* no figures rather than negative ones */
            pm_fail(c, TLM_ERANGE, "negative dimension in Input Dims", NULL);
            c->out->out_of_range = 1;
            return 0;
        }
    return 1;
}

double prod(const int64_t *d, size_t n)
{
    double p = 1.0;
    size_t i;
    for (i = 0; i < n; i++) {
        p *= (double)d[i];
    }
    return p;
}

/* ------------------------------------------------------------------ */
/* MARK: - Python repr of values into params                          */
/* ------------------------------------------------------------------ */

typedef struct sbuf {
    char *p;
    size_t cap;
    size_t len;
    int over;
} sbuf;

static void sb_put(sbuf *b, const char *s)
{
    size_t k = strlen(s);
    if (b->len + k + 1 > b->cap) {
        b->over = 1;
        return;
    }
    memcpy(b->p + b->len, s, k + 1);
    b->len += k;
}

static void sb_int(sbuf *b, int64_t v)
{
    char t[32];
    snprintf(t, sizeof(t), "%lld", (long long)v);
    sb_put(b, t);
}

static void sb_float(sbuf *b, double v)
{
    char t[40];
    tlm_perf_float_repr(v, t, sizeof(t));
    sb_put(b, t);
}

static void sb_pystr(sbuf *b, const char *s)
{
    char t[2 * TLM_PERF_PARAM_VALUE + 8];
    size_t need = tlm_py_str_repr(s, strlen(s), t, sizeof(t));
    if (need >= sizeof(t)) {
        b->over = 1;
        return;
    }
    sb_put(b, t);
}

/* repr of a JSON value as Python sees it after json.loads. */
static void sb_node(sbuf *b, const tlm_pj_doc *d, const tlm_pj_node *n)
{
    size_t i;
    switch (n->type) {
    case TLM_PJ_NULL:
        sb_put(b, "None");
        break;
    case TLM_PJ_BOOL:
        sb_put(b, n->bval ? "True" : "False");
        break;
    case TLM_PJ_NUM:
        if (n->is_int) {
            sb_int(b, n->ival);
        } else {
            sb_float(b, n->dval);
        }
        break;
    case TLM_PJ_STR:
        sb_pystr(b, n->str);
        break;
    case TLM_PJ_ARR:
        sb_put(b, "[");
        for (i = 0; i < n->count; i++) {
            if (i) {
                sb_put(b, ", ");
            }
            sb_node(b, d, tlm_pj_child(d, n, i));
        }
        sb_put(b, "]");
        break;
    case TLM_PJ_OBJ:
        sb_put(b, "{");
        for (i = 0; i < n->count; i++) {
            const tlm_pj_node *m = tlm_pj_child(d, n, i);
            if (i) {
                sb_put(b, ", ");
            }
            sb_pystr(b, m->key);
            sb_put(b, ": ");
            sb_node(b, d, m);
        }
        sb_put(b, "}");
        break;
    }
}

static tlm_perf_param *p_new(pm_ctx *c, const char *name)
{
    tlm_perf_result *r = c->out;
    tlm_perf_param *p;
    size_t i;
    /* Re-setting a key keeps its position, like a Python dict. */
    for (i = 0; i < r->n_params; i++) {
        if (strcmp(r->params[i].name, name) == 0) {
            p = &r->params[i];
            memset(p->value, 0, sizeof(p->value));
            p->is_none = 0;
            p->is_str = 0;
            return p;
        }
    }
    if (r->n_params >= TLM_PERF_MAX_PARAMS) {
        pm_fail(c, TLM_ELIMIT, "too many params", NULL);
        return NULL;
    }
    p = &r->params[r->n_params++];
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", name);
    return p;
}

int p_text(pm_ctx *c, const char *name, const char *text, int is_str)
{
    tlm_perf_param *p = p_new(c, name);
    if (p == NULL) {
        return 0;
    }
    if (strlen(text) >= sizeof(p->value)) {
        pm_fail(c, TLM_ELIMIT, "param value too long: ", name);
        return 0;
    }
    snprintf(p->value, sizeof(p->value), "%s", text);
    p->is_str = is_str;
    return 1;
}

static int p_sb(pm_ctx *c, const char *name, const sbuf *b)
{
    if (b->over) {
        pm_fail(c, TLM_ELIMIT, "param value too long: ", name);
        return 0;
    }
    return p_text(c, name, b->p, 0);
}

int p_none(pm_ctx *c, const char *name)
{
    tlm_perf_param *p = p_new(c, name);
    if (p == NULL) {
        return 0;
    }
    snprintf(p->value, sizeof(p->value), "None");
    p->is_none = 1;
    return 1;
}

int p_int(pm_ctx *c, const char *name, int64_t v)
{
    char t[32];
    snprintf(t, sizeof(t), "%lld", (long long)v);
    return p_text(c, name, t, 0);
}

/* An integer count computed in double (products of dims): printed as an
 * int while it fits int64, else as the exact decimal of the double. */
int p_count(pm_ctx *c, const char *name, double v)
{
    char t[400];
    if (v == floor(v) && fabs(v) < 9.0e18) {
        return p_int(c, name, (int64_t)v);
    }
    if (isnan(v) || isinf(v)) {
        pm_fail(c, TLM_ERANGE, "count out of range: ", name);
        return 0;
    }
    snprintf(t, sizeof(t), "%.0f", v);
    return p_text(c, name, t, 0);
}

int p_bool(pm_ctx *c, const char *name, int v)
{
    return p_text(c, name, v ? "True" : "False", 0);
}

int p_float(pm_ctx *c, const char *name, double v)
{
    char t[40];
    tlm_perf_float_repr(v, t, sizeof(t));
    return p_text(c, name, t, 0);
}

int p_str(pm_ctx *c, const char *name, const char *s)
{
    return p_text(c, name, s, 1);
}

/* Writes item i of a sequence (items points to the whole of it). */
typedef void (*sb_item)(sbuf *b, const void *items, size_t i);

/* Python repr of a sequence of n items into param name: a tuple "(a, b)",
 * "(a,)", "()" or a list "[a, b]". */
static int p_seq(pm_ctx *c, const char *name, int tuple, const void *items,
                 size_t n, sb_item put)
{
    char buf[TLM_PERF_PARAM_VALUE];
    sbuf b = {buf, sizeof(buf), 0, 0};
    size_t i;
    buf[0] = '\0';
    sb_put(&b, tuple ? "(" : "[");
    for (i = 0; i < n; i++) {
        if (i) {
            sb_put(&b, ", ");
        }
        put(&b, items, i);
    }
    sb_put(&b, !tuple ? "]" : n == 1 ? ",)" : ")");
    return p_sb(c, name, &b);
}

/* A JSON list of one of the args' docs, as p_seq items. */
typedef struct node_items {
    const tlm_pj_doc *doc;
    const tlm_pj_node *n;
} node_items;

static void item_node(sbuf *b, const void *items, size_t i)
{
    const node_items *x = items;
    sb_node(b, x->doc, tlm_pj_child(x->doc, x->n, i));
}

static void item_int(sbuf *b, const void *items, size_t i)
{
    sb_int(b, ((const int64_t *)items)[i]);
}

/* A string, or None for NULL. */
static void item_str(sbuf *b, const void *items, size_t i)
{
    const char *const *s = items;
    if (s[i] == NULL) {
        sb_put(b, "None");
    } else {
        sb_pystr(b, s[i]);
    }
}

static void item_bool(sbuf *b, const void *items, size_t i)
{
    sb_put(b, ((const int *)items)[i] ? "True" : "False");
}

/* tuple(node): "(a, b)", "(a,)", "()". */
int p_tuple_node(pm_ctx *c, int which, const char *name,
                        const tlm_pj_node *n)
{
    node_items x;
    if (n == NULL) {
        return 0;
    }
    if (n->type == TLM_PJ_STR) {
        /* tuple("ab") == ('a', 'b'): only happens on odd input */
        pm_fail(c, TLM_EFORMAT, "expected a list for ", name);
        return 0;
    }
    if (n->type != TLM_PJ_ARR) {
        pm_fail(c, TLM_EFORMAT, "expected a list for ", name);
        return 0;
    }
    x.doc = &c->doc[which];
    x.n = n;
    return p_seq(c, name, 1, &x, n->count, item_node);
}

int p_shape(pm_ctx *c, const char *name, const int64_t *d, size_t nd)
{
    return p_seq(c, name, 1, d, nd, item_int);
}

/* tuple of strings / None: dtype tuples. */
int p_str_tuple(pm_ctx *c, const char *name, const char *const *s,
                       size_t n)
{
    return p_seq(c, name, 1, s, n, item_str);
}

/* Python list of strings: ['a'] (Evoformer's dtype_A_B). */
static int p_str_list(pm_ctx *c, const char *name, const char *const *s,
                      size_t n)
{
    return p_seq(c, name, 0, s, n, item_str);
}

static int p_bool_list(pm_ctx *c, const char *name, const int *v, size_t n)
{
    return p_seq(c, name, 0, v, n, item_bool);
}

/* tuple(arg[i]) with Python's try/except KeyError: None when the arg is
 * absent, an error when the index is out of range. */
int p_stride_opt(pm_ctx *c, const char *name, size_t i)
{
    if (!has_arg(c, A_STRIDES)) {
        return p_none(c, name);
    }
    return p_tuple_node(c, A_STRIDES, name, arg_at(c, A_STRIDES, i));
}

/* tuple(arg[i]), KeyError not caught. */
int p_stride(pm_ctx *c, const char *name, size_t i)
{
    return p_tuple_node(c, A_STRIDES, name, arg_at(c, A_STRIDES, i));
}

/* ------------------------------------------------------------------ */
/* MARK: - Small parsers for Concrete Inputs                          */
/* ------------------------------------------------------------------ */

static const char *skip_sp(const char *s)
{
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    return s;
}

/* Python int(text) (is_float 0: optional spaces, sign, digits, spaces)
 * or float(text) (is_float 1: the usual spellings "0.", "0.125",
 * "1e-05"); the value goes to *iv or *dv only when the text parses. */
static int py_number(const char *s, int is_float, int64_t *iv, double *dv)
{
    char *end;
    long long i = 0;
    double d = 0.0;
    s = skip_sp(s);
    if (*s == '\0') {
        return 0;
    }
    if (is_float) {
        d = strtod(s, &end);
    } else {
        i = strtoll(s, &end, 10);
    }
    if (end == s || *skip_sp(end) != '\0') {
        return 0;
    }
    if (is_float) {
        *dv = d;
    } else {
        *iv = (int64_t)i;
    }
    return 1;
}

int py_int(const char *s, int64_t *out)
{
    return py_number(s, 0, out, NULL);
}

static int py_float(const char *s, double *out)
{
    return py_number(s, 1, NULL, out);
}

/* eval() of "True" / "False" (the only spellings Kineto writes). */
static int py_eval_bool(const char *s, int *out)
{
    if (strcmp(s, "True") == 0) {
        *out = 1;
        return 1;
    }
    if (strcmp(s, "False") == 0) {
        *out = 0;
        return 1;
    }
    return 0;
}

/* aten_conv.str_to_tuple: tuple(int(x) for x in s[1:-1].split(",")). */
static int str_to_tuple(const char *s, int64_t *v, size_t *n)
{
    size_t len = strlen(s);
    char tmp[256];
    char *p;
    size_t k = 0;
    if (len < 2 || len - 2 >= sizeof(tmp)) {
        return 0;
    }
    memcpy(tmp, s + 1, len - 2);
    tmp[len - 2] = '\0';
    p = tmp;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        if (k >= MAX_DIMS || !py_int(p, &v[k])) {
            return 0;
        }
        k++;
        if (comma == NULL) {
            break;
        }
        p = comma + 1;
    }
    *n = k;
    return 1;
}

/* parse_list(text, int|bool): ast.literal_eval of "[a, b]" where items
 * are ints or True/False.  Values come back as int64 (bools as 0/1). */
static int literal_list(const char *s, int64_t *v, size_t *n, size_t max)
{
    size_t k = 0;
    s = skip_sp(s);
    if (*s != '[') {
        return 0;
    }
    s = skip_sp(s + 1);
    if (*s == ']') {
        *n = 0;
        return *skip_sp(s + 1) == '\0';
    }
    for (;;) {
        int64_t x;
        if (k >= max) {
            return 0;
        }
        if (strncmp(s, "True", 4) == 0) {
            x = 1;
            s += 4;
        } else if (strncmp(s, "False", 5) == 0) {
            x = 0;
            s += 5;
        } else {
            char *end;
            long long t = strtoll(s, &end, 10);
            if (end == s) {
                return 0;
            }
            x = (int64_t)t;
            s = end;
        }
        v[k++] = x;
        s = skip_sp(s);
        if (*s == ',') {
            s = skip_sp(s + 1);
            if (*s == ']') { /* trailing comma */
                s++;
                break;
            }
            continue;
        }
        if (*s == ']') {
            s++;
            break;
        }
        return 0;
    }
    *n = k;
    return *skip_sp(s) == '\0';
}

/* Python's `x is not None` on Input Dims[i] (IndexError when short). */
static int dims_not_none(pm_ctx *c, size_t i, int *out)
{
    const tlm_pj_node *n = arg_at(c, A_DIMS, i);
    if (n == NULL) {
        return 0;
    }
    *out = n->type != TLM_PJ_NULL;
    return 1;
}

/* Python truthiness of a JSON value. */
int node_truthy(const tlm_pj_node *n)
{
    switch (n->type) {
    case TLM_PJ_NULL:
        return 0;
    case TLM_PJ_BOOL:
        return n->bval;
    case TLM_PJ_NUM:
        return n->dval != 0.0;
    case TLM_PJ_STR:
        return n->slen > 0;
    case TLM_PJ_ARR:
    case TLM_PJ_OBJ:
        return n->count > 0;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* MARK: - Transpose from GEMM kernel names ([perfreport] §5.2)              */
/* ------------------------------------------------------------------ */

static int is_lower3(const char *s)
{
    return s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z' &&
           s[2] >= 'a' && s[2] <= 'z';
}

/* Tensile: C[a-z]{3}_A[a-z]{3}_B[a-z]{3} anywhere in the name. */
static int is_tensile(const char *k)
{
    const char *p;
    for (p = k; *p; p++) {
        if (p[0] == 'C' && strlen(p) >= 14 && is_lower3(p + 1) &&
            p[4] == '_' && p[5] == 'A' && is_lower3(p + 6) && p[9] == '_' &&
            p[10] == 'B' && is_lower3(p + 11)) {
            return 1;
        }
    }
    return 0;
}

/* Returns 1 and sets ta/tb (0 false, 1 true, -1 None) when a kernel name
 * parses; 0 when none does; -1 on a nvjet name too short (IndexError). */
int gemm_transpose(const tlm_perf_args *a, int *ta, int *tb)
{
    size_t i;
    for (i = 0; i < a->n_kernels; i++) {
        const char *k = a->kernel_names ? a->kernel_names[i] : NULL;
        if (k == NULL) {
            continue;
        }
        if (is_tensile(k)) {
            *ta = strstr(k, "_Ailk_") ? 0 : strstr(k, "_Alik_") ? 1 : -1;
            *tb = strstr(k, "_Bljk_") ? 0 : strstr(k, "_Bjlk_") ? 1 : -1;
            return 1;
        }
        if (strncmp(k, "nvjet", 5) == 0) {
            const char *last = strrchr(k, '_');
            last = last ? last + 1 : k;
            if (strlen(last) < 2) {
                return -1;
            }
            *ta = last[0] == 'T';
            *tb = last[1] == 'T';
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* MARK: - GEMM ([perfreport] §6.2)                                          */
/* ------------------------------------------------------------------ */

static double gemm_flops(double M, double N, double K, int bias)
{
    return 2.0 * M * N * K + (bias ? M * N : 0.0);
}

static int gemm_bytes(double M, double N, double K, int bias, int b1, int b2,
                      int bb, int bo, double *out)
{
    if (b1 == 0 || b2 == 0 || bb == 0 || bo == 0) {
        return 0;
    }
    *out = M * K * b1 + K * N * b2 + M * N * bo + (bias ? N : 0.0) * bb;
    return 1;
}

/* A GEMM's shape and operand dtypes, as its variant's parser reads them. */
typedef struct gemm_op {
    int64_t M, N, K, Bt;
    int has_b;
    int bias;
    const char *dt[4];
    size_t ndt;
} gemm_op;

/* vllm::gemm_with_dynamic_quant: the first two 2-D shapes, else the first
 * two entries of Input Dims; params M, N, K, bias, strides, dtypes. */
static tlm_status gemm_vllm_dq(pm_ctx *c, gemm_op *g)
{
    int64_t A[MAX_DIMS], Bm[MAX_DIMS];
    size_t na = 0, nb = 0, ntypes = 0;
    size_t nd = 0, found = 0, i;
    const tlm_pj_node *sa = NULL, *sbn = NULL;

    if (has_arg(c, A_DIMS)) {
        TRY(arg_len(c, A_DIMS, &nd));
    }
    for (i = 0; i < nd && found < 2; i++) {
        const tlm_pj_node *s = arg_at(c, A_DIMS, i);
        if (s->type == TLM_PJ_ARR && s->count == 2) {
            if (found == 0) {
                sa = s;
            } else {
                sbn = s;
            }
            found++;
        }
    }
    if ((sa == NULL || sbn == NULL) && nd >= 2) {
        const tlm_pj_node *s0 = arg_at(c, A_DIMS, 0);
        const tlm_pj_node *s1 = arg_at(c, A_DIMS, 1);
        if (sa == NULL && s0->type == TLM_PJ_ARR) {
            sa = s0;
        }
        if (sbn == NULL && s1->type == TLM_PJ_ARR) {
            sbn = s1;
        }
    }
    if (sa == NULL || sbn == NULL || sa->count != 2 || sbn->count != 2) {
        return pm_fail(c, TLM_ERANGE, "missing 2D A,B shapes in Input Dims",
                       NULL);
    }
    TRY(node_shape(c, sa, A, &na));
    TRY(node_shape(c, sbn, Bm, &nb));
    g->M = A[0];
    g->K = A[1];
    g->N = Bm[0];
    if (!has_arg(c, A_TYPES)) {
        return pm_fail(c, TLM_ERANGE, "missing A,B dtypes", NULL);
    }
    TRY(arg_len(c, A_TYPES, &ntypes));
    if (ntypes < 2) {
        return pm_fail(c, TLM_ERANGE, "missing A,B dtypes", NULL);
    }
    TRY(g->dt[0] = type_at(c, 0));
    TRY(g->dt[1] = type_at(c, 1));
    TRY(p_int(c, "M", g->M) && p_int(c, "N", g->N) && p_int(c, "K", g->K) &&
        p_bool(c, "bias", 0));
    TRY(p_stride_opt(c, "stride_A", 0));
    TRY(p_stride_opt(c, "stride_B", 1));
    TRY(p_str_tuple(c, "dtype_A_B", g->dt, 2));
    return TLM_OK;
}

/* tex_ts::te_gemm_ts: A, B and C with their transposes and bias from
 * Concrete Inputs; four dtypes. */
static tlm_status gemm_te_ts(pm_ctx *c, gemm_op *g)
{
    int64_t A[MAX_DIMS], Bm[MAX_DIMS], C[MAX_DIMS];
    size_t na = 0, nb = 0, ncd = 0;
    const char *ci;
    int transa, transb;

    TRY(dims_shape(c, 10, C, &ncd));
    TRY(dims_shape(c, 0, A, &na));
    TRY(dims_shape(c, 5, Bm, &nb));
    TRY(ci = concrete_str(c, 4));
    transa = strcmp(ci, "1") == 0;
    TRY(ci = concrete_str(c, 9));
    transb = strcmp(ci, "1") == 0;
    if (na < 2 || nb < 2) {
        return pm_fail(c, TLM_EFORMAT, "A/B shape has < 2 dims", NULL);
    }
    g->M = transa ? A[0] : A[1];
    g->K = transa ? A[1] : A[0];
    g->N = transb ? Bm[1] : Bm[0];
    TRY(ci = concrete_str(c, 14));
    g->bias = ci[0] != '\0';
    TRY(g->dt[0] = type_at(c, 0));
    TRY(g->dt[1] = type_at(c, 5));
    TRY(g->dt[2] = type_at(c, 10));
    TRY(g->dt[3] = type_at(c, 18));
    g->ndt = 4;
    TRY(p_int(c, "M", g->M) && p_int(c, "N", g->N) && p_int(c, "K", g->K) &&
        p_bool(c, "bias", g->bias));
    TRY(p_stride_opt(c, "stride_A", 0));
    TRY(p_stride_opt(c, "stride_B", 5));
    TRY(p_str_tuple(c, "dtype_A_B", g->dt, 4));
    return TLM_OK;
}

/* mm, addmm, _scaled_mm, bmm, baddbmm and TE's v2 GEMM: operands at
 * Input Dims ia and ib (after the bias for addmm and baddbmm), batched
 * for bmm and baddbmm. */
static tlm_status gemm_aten(pm_ctx *c, tlm_perf_model_id m, gemm_op *g)
{
    int64_t A[MAX_DIMS], Bm[MAX_DIMS];
    size_t na = 0, nb = 0, ntypes = 0;
    size_t ia = 0, ib = 1, i;
    int batched = (m == TLM_PM_BMM || m == TLM_PM_BADDBMM);

    if (m == TLM_PM_ADDMM || m == TLM_PM_BADDBMM) {
        TRY(arg_at(c, A_DIMS, 0)); /* _C_shape = input_dims[0] */
        ia = 1;
        ib = 2;
        g->bias = 1;
    }
    TRY(dims_shape(c, ia, A, &na));
    TRY(dims_shape(c, ib, Bm, &nb));
    if (batched) {
        if (na != 3 || nb != 3) {
            return pm_fail(c, TLM_EFORMAT,
                           "bmm operands must be 3-D (B, M, K)", NULL);
        }
        g->Bt = A[0];
        g->M = A[1];
        g->K = A[2];
        g->N = Bm[2];
        g->has_b = 1;
    } else {
        if (na < 2 || nb < 2) {
            return pm_fail(c, TLM_EFORMAT, "operand has < 2 dims", NULL);
        }
        g->M = A[0];
        g->K = A[1];
        g->N = Bm[1];
    }
    if (m == TLM_PM_SCALED_MM) {
        size_t nd;
        TRY(arg_len(c, A_DIMS, &nd));
        g->bias = nd == 3;
    }
    /* dtype_A_B = tuple(types[ia:ia+2]) (slicing never fails) */
    TRY(arg_len(c, A_TYPES, &ntypes));
    g->ndt = 0;
    for (i = ia; i < ia + 2 && i < ntypes; i++) {
        TRY(g->dt[g->ndt] = type_at(c, i));
        g->ndt++;
    }
    if (g->has_b) {
        TRY(p_int(c, "B", g->Bt));
    }
    TRY(p_int(c, "M", g->M) && p_int(c, "N", g->N) && p_int(c, "K", g->K) &&
        p_bool(c, "bias", g->bias));
    TRY(p_stride_opt(c, "stride_A", ia));
    TRY(p_stride_opt(c, "stride_B", ib));
    TRY(p_str_tuple(c, "dtype_A_B", g->dt, g->ndt));
    return TLM_OK;
}

/* Bytes per element of A, B, bias and output: *b set to 0 when a dtype
 * is unknown (no bytes); an error for the variants that require them. */
static tlm_status gemm_bpe(pm_ctx *c, tlm_perf_model_id m, const gemm_op *g,
                           int b[4])
{
    const char *const *dt = g->dt;
    if (m == TLM_PM_TE_GEMM_TS) {
        b[0] = tlm_perf_dtype_bpe(dt[0]);
        b[1] = tlm_perf_dtype_bpe(dt[1]);
        b[3] = tlm_perf_dtype_bpe(dt[2]);
        b[2] = tlm_perf_dtype_bpe(dt[3]);
        return TLM_OK;
    }
    if (g->ndt < 2) {
        return pm_fail(c, TLM_EFORMAT, "fewer than 2 operand dtypes", NULL);
    }
    b[0] = tlm_perf_dtype_bpe(dt[0]);
    b[1] = b[0];
    b[2] = b[0];
    b[3] = b[0];
    if (m == TLM_PM_SCALED_MM) {
        int bB = tlm_perf_dtype_bpe(dt[1]);
        if (b[0] == 0 || bB == 0) {
            return pm_fail(c, TLM_ERANGE,
                           "dtypes of A and B are not supported", NULL);
        }
        b[3] = b[0] == 1 ? 2 : (b[0] == 2 || b[0] == 4) ? b[0] : 0;
    } else if (m == TLM_PM_TEV2_GEMM) {
        if (strcmp(dt[0], dt[1]) != 0) {
            return pm_fail(c, TLM_ERANGE,
                           "data types of A and B are different", NULL);
        }
        b[3] = 2;
    }
    return TLM_OK;
}

/* GEMMs ([perfreport] §6.2): the variant's parser, then the shared
 * params (B, transpose from the kernel names), FLOPs and bytes. */
static tlm_status m_gemm(pm_ctx *c, tlm_perf_model_id m)
{
    gemm_op g = {0, 0, 0, 1, 0, 0, {NULL, NULL, NULL, NULL}, 2};
    int b[4] = {0, 0, 0, 0};
    double flops, bytes;
    int has_bytes;
    int ta = -1, tb = -1, tr;
    tlm_status st;

    if (m == TLM_PM_VLLM_GEMM_DQ) {
        st = gemm_vllm_dq(c, &g);
    } else if (m == TLM_PM_TE_GEMM_TS) {
        st = gemm_te_ts(c, &g);
    } else {
        st = gemm_aten(c, m, &g);
    }
    if (st != TLM_OK) {
        return st;
    }
    if (!g.has_b) {
        TRY(p_int(c, "B", 1)); /* "B" not in param_details -> appended */
    }
    tr = gemm_transpose(c->a, &ta, &tb);
    if (tr < 0) {
        return pm_fail(c, TLM_EFORMAT, "nvjet kernel name too short", NULL);
    }
    if (tr > 0) {
        static const char *const tv[3] = {"None", "False", "True"};
        char t[32];
        snprintf(t, sizeof(t), "(%s, %s)", tv[ta + 1], tv[tb + 1]);
        TRY(p_text(c, "transpose", t, 0));
    }

    flops = gemm_flops((double)g.M, (double)g.N, (double)g.K, g.bias);
    st = gemm_bpe(c, m, &g, b);
    if (st != TLM_OK) {
        return st;
    }
    has_bytes = gemm_bytes((double)g.M, (double)g.N, (double)g.K, g.bias,
                           b[0], b[1], b[2], b[3], &bytes);
    if (g.has_b || m == TLM_PM_BMM || m == TLM_PM_BADDBMM) {
        flops *= (double)g.Bt;
        if (has_bytes) {
            bytes *= (double)g.Bt;
        }
    }
    c->out->flops = flops;
    c->out->has_bytes = has_bytes;
    c->out->bytes = has_bytes ? bytes : 0.0;
    c->prec_dtype = g.ndt > 0 ? g.dt[0] : NULL;
    c->maf = "matrix";
    if (c->bwd) {
        return pm_fail(c, TLM_EINVAL, "backward pass of a GEMM is not defined",
                       NULL);
    }
    return TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - SDPA ([perfreport] §6.4)                                          */
/* ------------------------------------------------------------------ */

typedef struct sdpa_cfg {
    double B, N_Q, H_Q, N_KV, H_KV, d_qk, d_v;
    int causal;
    int flash_impl;
} sdpa_cfg;

/* FLOPs f of a pass into *out, halved under causal=True (which needs
 * N_Q == N_KV). */
static int sdpa_causal(pm_ctx *c, const sdpa_cfg *s, double f, double *out)
{
    if (s->causal) {
        if (s->N_Q != s->N_KV) {
            pm_fail(c, TLM_ERANGE, "causal=True but N_Q != N_KV", NULL);
            return 0;
        }
        f /= 2.0;
    }
    *out = f;
    return 1;
}

static int sdpa_flops_fwd(pm_ctx *c, const sdpa_cfg *s, double *out)
{
    double f = s->B * s->H_Q * (2.0 * s->N_Q * s->N_KV * s->d_qk);
    f += s->B * s->H_Q * (2.0 * s->N_Q * s->d_v * s->N_KV);
    return sdpa_causal(c, s, f, out);
}

static int sdpa_flops_bwd(pm_ctx *c, const sdpa_cfg *s, double *out)
{
    double f = 0.0;
    double gqa;
    if (s->H_KV == 0.0) {
        pm_fail(c, TLM_ERANGE, "H_KV is 0", NULL);
        return 0;
    }
    gqa = floor(s->H_Q / s->H_KV) - 1.0;
    if (s->flash_impl) {
        f += s->B * s->H_Q * (2.0 * s->N_Q * s->N_KV * s->d_qk);
    }
    f += s->B * s->H_Q * (2.0 * s->N_KV * s->N_Q * s->d_v) +
         s->B * s->N_KV * s->d_v * gqa;
    f += s->B * s->H_Q * (2.0 * s->N_Q * s->N_KV * s->d_v);
    f += s->B * s->H_Q * (2.0 * s->N_Q * s->N_KV * s->d_qk);
    f += s->B * s->H_Q * (2.0 * s->N_KV * s->N_Q * s->d_qk) +
         s->B * s->N_KV * s->d_qk * gqa;
    return sdpa_causal(c, s, f, out);
}

static double sdpa_bytes_fwd(const sdpa_cfg *s, double bpe)
{
    double e = s->B * s->N_Q * s->H_Q * s->d_qk +
               s->B * s->N_KV * s->H_KV * s->d_qk +
               s->B * s->N_KV * s->H_KV * s->d_v +
               s->B * s->N_Q * s->H_Q * s->d_v;
    return e * bpe;
}

static double sdpa_bytes_bwd(const sdpa_cfg *s, double bpe)
{
    double e = s->B * s->N_Q * s->H_Q * s->d_qk +
               s->B * s->N_KV * s->H_KV * s->d_qk +
               s->B * s->N_KV * s->H_KV * s->d_v +
               s->B * s->N_Q * s->H_Q * s->d_v +
               s->B * s->N_Q * s->H_Q * s->d_qk +
               s->B * s->N_KV * s->H_KV * s->d_qk +
               s->B * s->N_KV * s->H_KV * s->d_v;
    return e * bpe;
}

/* extract_sdpa_cfg / extract_sdpa_varlen_cfg on Input Dims[q,k,v]. */
static int sdpa_shapes(pm_ctx *c, size_t iq, size_t ik, size_t iv,
                       const int *idx, size_t nidx, sdpa_cfg *s)
{
    int64_t q[MAX_DIMS], k[MAX_DIMS], v[MAX_DIMS];
    size_t nq, nk, nv, j;
    int64_t Bq = 1, Bk = 1, Bv = 1, Hq, Hk, Hv, Nq, Nk, Nv, dq, dk, dv;
    if (!dims_shape(c, iq, q, &nq) || !dims_shape(c, ik, k, &nk) ||
        !dims_shape(c, iv, v, &nv)) {
        return 0;
    }
    for (j = 0; j < nidx; j++) {
        if ((size_t)idx[j] >= nq || (size_t)idx[j] >= nk ||
            (size_t)idx[j] >= nv) {
            pm_fail(c, TLM_EFORMAT, "q/k/v shape has too few dims", NULL);
            return 0;
        }
    }
    if (nidx == 4) { /* (B, H, N, d) positions */
        Bq = q[idx[0]];
        Bk = k[idx[0]];
        Bv = v[idx[0]];
        Hq = q[idx[1]];
        Hk = k[idx[1]];
        Hv = v[idx[1]];
        Nq = q[idx[2]];
        Nk = k[idx[2]];
        Nv = v[idx[2]];
        dq = q[idx[3]];
        dk = k[idx[3]];
        dv = v[idx[3]];
        if (Bq != Bk || Bq != Bv) {
            pm_fail(c, TLM_ERANGE, "batch sizes do not match", NULL);
            return 0;
        }
    } else { /* varlen (H, N, d) positions, B = 1 */
        Bq = 1;
        Hq = q[idx[0]];
        Hk = k[idx[0]];
        Hv = v[idx[0]];
        Nq = q[idx[1]];
        Nk = k[idx[1]];
        Nv = v[idx[1]];
        dq = q[idx[2]];
        dk = k[idx[2]];
        dv = v[idx[2]];
    }
    if (Hk != Hv) {
        pm_fail(c, TLM_ERANGE, "head counts of K and V differ", NULL);
        return 0;
    }
    if (Nk != Nv) {
        pm_fail(c, TLM_ERANGE, "lengths of K and V differ", NULL);
        return 0;
    }
    if (dq != dk) {
        pm_fail(c, TLM_ERANGE, "head dims of Q and K differ", NULL);
        return 0;
    }
    s->B = (double)Bq;
    s->N_Q = (double)Nq;
    s->H_Q = (double)Hq;
    s->N_KV = (double)Nk;
    s->H_KV = (double)Hk;
    s->d_qk = (double)dq;
    s->d_v = (double)dv;
    (void)Bk;
    (void)Bv;
    return 1;
}

static int sdpa_base_params(pm_ctx *c, const sdpa_cfg *s)
{
    return p_count(c, "B", s->B) && p_count(c, "N_Q", s->N_Q) &&
           p_count(c, "H_Q", s->H_Q) && p_count(c, "N_KV", s->N_KV) &&
           p_count(c, "H_KV", s->H_KV) && p_count(c, "d_h_qk", s->d_qk) &&
           p_count(c, "d_h_v", s->d_v);
}

/* dropout_p parsing of the aiter/aten classes: float(c) unless "" or
 * "None"; unparsable -> 0.0 (the Python code swallows the ValueError). */
static int opt_dropout(pm_ctx *c, size_t i, double *out)
{
    const char *s = concrete_str(c, i);
    double v;
    if (s == NULL) {
        return 0;
    }
    *out = 0.0;
    if (strcmp(s, "") != 0 && strcmp(s, "None") != 0 && py_float(s, &v)) {
        *out = v;
    }
    return 1;
}

/* c.lower() == "true" unless "" or "None". */
static int opt_causal(pm_ctx *c, size_t i, int *out)
{
    const char *s = concrete_str(c, i);
    const char *t = "true";
    size_t k;
    if (s == NULL) {
        return 0;
    }
    *out = 0;
    if (strlen(s) != 4) {
        return 1;
    }
    for (k = 0; k < 4; k++) {
        char ch = s[k];
        if (ch >= 'A' && ch <= 'Z') {
            ch = (char)(ch - 'A' + 'a');
        }
        if (ch != t[k]) {
            return 1;
        }
    }
    *out = 1;
    return 1;
}

static int dtype_pair(pm_ctx *c, size_t from, const char **dt, size_t *ndt)
{
    size_t n, i;
    if (!arg_len(c, A_TYPES, &n)) {
        return 0;
    }
    *ndt = 0;
    for (i = from; i < from + 2 && i < n; i++) {
        dt[*ndt] = type_at(c, i);
        if (dt[*ndt] == NULL) {
            return 0;
        }
        (*ndt)++;
    }
    return 1;
}

/* What an SDPA model class reads from the args, and how its flops() and
 * bytes() compute. */
typedef struct sdpa_in {
    sdpa_cfg s;
    const char *dt[2];
    size_t ndt;
    int has_dtype;
    double dropout;
    int flops_is_bwd; /* flops() == flops_bwd() for bwd ops */
    double fwd_bpe;   /* bytes() default; < 0: from the dtype */
    int bytes_is_bwd;
    int strides_params;
    size_t iq, ik, iv; /* Input Dims of q, k, v */
    double nseq_q, nseq_kv;
    double max_q, max_kv;
    int varlen;
} sdpa_in;

static const int sdpa_bnhd[4] = {0, 2, 1, 3};

/* q, k, v at Input Dims 1, 2, 3 (the bwd ops: grad_out comes first). */
static void sdpa_qkv_from_1(sdpa_in *in)
{
    in->iq = 1;
    in->ik = 2;
    in->iv = 3;
}

/* aten::_scaled_dot_product_{flash,efficient,cudnn}_attention. */
static tlm_status sdpa_args_aten(pm_ctx *c, tlm_perf_model_id m,
                                 sdpa_in *in)
{
    static const int bhnd_std[4] = {0, 1, 2, 3};
    size_t idrop = m == TLM_PM_SDPA_FLASH ? 3 : 5;
    TRY(sdpa_shapes(c, 0, 1, 2, bhnd_std, 4, &in->s));
    TRY(opt_dropout(c, idrop, &in->dropout));
    TRY(opt_causal(c, idrop + 1, &in->s.causal));
    in->s.flash_impl = m == TLM_PM_SDPA_FLASH;
    TRY(dtype_pair(c, 0, in->dt, &in->ndt));
    return TLM_OK;
}

/* flash_attn's FlashAttnFunc forward and backward. */
static tlm_status sdpa_args_fa(pm_ctx *c, tlm_perf_model_id m, sdpa_in *in)
{
    const char *cs;
    size_t ncon = 0;
    if (m == TLM_PM_FA_BWD) {
        sdpa_qkv_from_1(in);
    }
    TRY(sdpa_shapes(c, in->iq, in->ik, in->iv, sdpa_bnhd, 4, &in->s));
    TRY(dtype_pair(c, 0, in->dt, &in->ndt));
    in->strides_params = 1;
    if (m == TLM_PM_FA) {
        TRY(cs = concrete_str(c, 3));
        if (!py_float(cs, &in->dropout)) {
            return pm_fail(c, TLM_EFORMAT, "dropout is not a float: ", cs);
        }
        TRY(cs = concrete_str(c, 5));
        if (!py_eval_bool(cs, &in->s.causal)) {
            return pm_fail(c, TLM_EFORMAT, "causal is not True/False: ", cs);
        }
        return TLM_OK;
    }
    if (has_arg(c, A_CONCRETE)) {
        TRY(arg_len(c, A_CONCRETE, &ncon));
    }
    in->dropout = 0.0;
    if (ncon > 8) {
        TRY(cs = concrete_str(c, 8));
        if (cs[0] != '\0' && !py_float(cs, &in->dropout)) {
            return pm_fail(c, TLM_EFORMAT, "dropout is not a float: ", cs);
        }
    }
    in->s.causal = 1;
    if (ncon > 10) {
        TRY(cs = concrete_str(c, 10));
        if (cs[0] != '\0' && !py_eval_bool(cs, &in->s.causal)) {
            return pm_fail(c, TLM_EFORMAT, "causal is not True/False: ", cs);
        }
    }
    in->flops_is_bwd = 1;
    in->bytes_is_bwd = 1;
    in->fwd_bpe = -1.0; /* from the dtype */
    return TLM_OK;
}

/* The number of sequences from cu_seqlens at Input Dims i (what names it
 * in the error). */
static int sdpa_num_seqs(pm_ctx *c, size_t i, const char *what,
                         double *out)
{
    int64_t cu[MAX_DIMS];
    size_t ncu;
    if (!dims_shape(c, i, cu, &ncu)) {
        return 0;
    }
    if (ncu < 1) {
        pm_fail(c, TLM_EFORMAT, what, NULL);
        return 0;
    }
    *out = (double)cu[0] - 1.0;
    return 1;
}

/* Concrete Input i as float(text) (what prefixes the error). */
static int concrete_float(pm_ctx *c, size_t i, const char *what,
                          double *out)
{
    const char *cs = concrete_str(c, i);
    if (cs == NULL) {
        return 0;
    }
    if (!py_float(cs, out)) {
        pm_fail(c, TLM_EFORMAT, what, cs);
        return 0;
    }
    return 1;
}

/* flash_attn's varlen forward and backward. */
static tlm_status sdpa_args_varlen(pm_ctx *c, tlm_perf_model_id m,
                                   sdpa_in *in)
{
    static const int hnd_varlen[3] = {1, 0, 2};
    int bwdop = m == TLM_PM_FA_VARLEN_BWD;
    size_t icu = bwdop ? 9 : 3;
    size_t imax = bwdop ? 11 : 5;
    const char *cs;
    if (bwdop) {
        sdpa_qkv_from_1(in);
    }
    TRY(sdpa_shapes(c, in->iq, in->ik, in->iv, hnd_varlen, 3, &in->s));
    TRY(dtype_pair(c, 0, in->dt, &in->ndt));
    in->strides_params = 1;
    TRY(sdpa_num_seqs(c, icu, "cu_seqlens_q has no dims", &in->nseq_q));
    TRY(sdpa_num_seqs(c, icu + 1, "cu_seqlens_k has no dims",
                      &in->nseq_kv));
    TRY(concrete_float(c, imax, "max_seqlen_q: ", &in->max_q));
    TRY(concrete_float(c, imax + 1, "max_seqlen_k: ", &in->max_kv));
    TRY(concrete_float(c, imax + 2, "dropout: ", &in->dropout));
    TRY(cs = concrete_str(c, imax + 4));
    if (!py_eval_bool(cs, &in->s.causal)) {
        return pm_fail(c, TLM_EFORMAT, "causal: ", cs);
    }
    in->varlen = 1;
    in->flops_is_bwd = bwdop;
    in->bytes_is_bwd = bwdop;
    return TLM_OK;
}

/* aiter's flash attention classes and flash_attn 3's forward. */
static tlm_status sdpa_args_aiter(pm_ctx *c, tlm_perf_model_id m,
                                  sdpa_in *in)
{
    size_t idrop = 3, icausal = 5;
    int bwdop = 0;
    switch (m) {
    case TLM_PM_AITER_FA_BWD:
        idrop = 10;
        icausal = 12;
        bwdop = 1;
        break;
    case TLM_PM_AITER_WRAP_V3_FWD:
        sdpa_qkv_from_1(in);
        idrop = 4;
        icausal = 6;
        break;
    case TLM_PM_AITER_WRAP_V3_BWD:
        sdpa_qkv_from_1(in);
        idrop = 7;
        icausal = 9;
        bwdop = 1;
        break;
    case TLM_PM_AITER_MHA_BWD:
        sdpa_qkv_from_1(in);
        idrop = 6;
        icausal = 8;
        bwdop = 1;
        break;
    case TLM_PM_FA3_FWD:
        icausal = 24;
        break;
    default:
        break;
    }
    TRY(sdpa_shapes(c, in->iq, in->ik, in->iv, sdpa_bnhd, 4, &in->s));
    if (m != TLM_PM_FA3_FWD) {
        TRY(opt_dropout(c, idrop, &in->dropout));
    }
    TRY(opt_causal(c, icausal, &in->s.causal));
    in->has_dtype = 0;
    in->flops_is_bwd = bwdop;
    in->bytes_is_bwd = bwdop;
    return TLM_OK;
}

/* DeepSpeed's Evoformer attention: its own shapes and params. */
static tlm_status sdpa_evoformer(pm_ctx *c, sdpa_in *in)
{
    int64_t q[MAX_DIMS];
    size_t nq, ntypes = 0;
    sdpa_cfg *s = &in->s;
    TRY(dims_shape(c, 0, q, &nq));
    if (nq != 5) {
        return pm_fail(c, TLM_EFORMAT, "Evoformer Q must be 5-D", NULL);
    }
    s->B = (double)q[0] * (double)q[1];
    s->N_Q = (double)q[2];
    s->N_KV = (double)q[2];
    s->H_Q = (double)q[3];
    s->H_KV = (double)q[3];
    s->d_qk = (double)q[4];
    s->d_v = (double)q[4];
    s->causal = 0;
    s->flash_impl = 0;
    if (has_arg(c, A_TYPES)) {
        TRY(arg_len(c, A_TYPES, &ntypes));
    }
    in->dt[0] = NULL;
    if (ntypes > 0) {
        TRY(in->dt[0] = type_at(c, 0));
    }
    in->ndt = 1;
    TRY(sdpa_base_params(c, s));
    TRY(p_bool(c, "causal", 0) && p_bool(c, "flash_impl", 0));
    TRY(p_str_list(c, "dtype_A_B", in->dt, 1));
    c->prec_dtype = in->dt[0];
    c->maf = "matrix";
    return TLM_OK;
}

/* The params of the SDPA classes, in their insertion order. */
static tlm_status sdpa_params(pm_ctx *c, const sdpa_in *in)
{
    TRY(sdpa_base_params(c, &in->s));
    if (in->strides_params) {
        TRY(p_stride(c, "q_stride", in->iq));
        TRY(p_stride(c, "k_stride", in->ik));
        TRY(p_stride(c, "v_stride", in->iv));
    }
    TRY(p_float(c, "dropout", in->dropout));
    TRY(p_bool(c, "causal", in->s.causal));
    TRY(p_bool(c, "flash_impl", in->s.flash_impl));
    if (in->has_dtype) {
        TRY(p_str_tuple(c, "dtype_A_B", in->dt, in->ndt));
        c->prec_dtype = in->ndt > 0 ? in->dt[0] : NULL;
    } else {
        c->prec_dtype = NULL;
    }
    if (in->varlen) {
        TRY(p_count(c, "num_seqs_q", in->nseq_q) &&
            p_count(c, "num_seqs_kv", in->nseq_kv));
        TRY(p_float(c, "max_seqlen_q", in->max_q) &&
            p_float(c, "max_seqlen_kv", in->max_kv));
    }
    c->maf = "matrix";
    return TLM_OK;
}

/* flops() or flops_bwd() of the class on cfg s. */
static int sdpa_flops(pm_ctx *c, const sdpa_in *in, const sdpa_cfg *s,
                      double *out)
{
    return in->flops_is_bwd ? sdpa_flops_bwd(c, s, out)
                            : sdpa_flops_fwd(c, s, out);
}

/* Varlen FLOPs: the longest sequence, plus the others at the mean length
 * of the rest. */
static tlm_status sdpa_varlen_flops(pm_ctx *c, const sdpa_in *in,
                                    double *flops)
{
    sdpa_cfg a = in->s;
    a.N_Q = in->max_q;
    a.N_KV = in->max_kv;
    TRY(sdpa_flops(c, in, &a, flops));
    if (in->nseq_q > 1.0) {
        double f2;
        if (in->nseq_kv - 1.0 == 0.0) {
            return pm_fail(c, TLM_ERANGE, "division by zero (num_seqs_kv)",
                           NULL);
        }
        a.N_Q = floor((in->s.N_Q - in->max_q) / (in->nseq_q - 1.0));
        a.N_KV = floor((in->s.N_KV - in->max_kv) / (in->nseq_kv - 1.0));
        TRY(sdpa_flops(c, in, &a, &f2));
        *flops += (in->nseq_q - 1.0) * f2;
    }
    return TLM_OK;
}

/* FLOPs and bytes into c->out: of the backward pass for the bwd row of a
 * forward op, else of the op itself. */
static tlm_status sdpa_compute(pm_ctx *c, sdpa_in *in)
{
    double flops = 0.0;
    double bytes = 0.0;
    const sdpa_cfg *s = &in->s;
    if (c->bwd) {
        /* flops_bwd() / bytes_bwd() with the default 2 bytes/elem */
        TRY(sdpa_flops_bwd(c, s, &flops));
        bytes = sdpa_bytes_bwd(s, 2.0);
    } else if (in->varlen) {
        tlm_status st = sdpa_varlen_flops(c, in, &flops);
        if (st != TLM_OK) {
            return st;
        }
        bytes = in->bytes_is_bwd ? sdpa_bytes_bwd(s, 2.0)
                                 : sdpa_bytes_fwd(s, 2.0);
    } else {
        TRY(sdpa_flops(c, in, s, &flops));
        if (in->fwd_bpe < 0.0) {
            int b = in->ndt > 0 ? tlm_perf_dtype_bpe(in->dt[0]) : 0;
            if (b == 0) {
                return pm_fail(c, TLM_ERANGE,
                               "no bytes-per-element for the q dtype", NULL);
            }
            in->fwd_bpe = (double)b;
        }
        bytes = in->bytes_is_bwd ? sdpa_bytes_bwd(s, in->fwd_bpe)
                                 : sdpa_bytes_fwd(s, in->fwd_bpe);
    }
    c->out->flops = flops;
    c->out->has_bytes = 1;
    c->out->bytes = bytes;
    return TLM_OK;
}

static tlm_status m_sdpa(pm_ctx *c, tlm_perf_model_id m)
{
    sdpa_in in;
    tlm_status st;
    memset(&in, 0, sizeof(in));
    in.s.flash_impl = 1;
    in.has_dtype = 1;
    in.fwd_bpe = 2.0;
    in.iq = 0;
    in.ik = 1;
    in.iv = 2;

    switch (m) {
    case TLM_PM_SDPA_FLASH:
    case TLM_PM_SDPA_EFFICIENT:
    case TLM_PM_SDPA_CUDNN:
        st = sdpa_args_aten(c, m, &in);
        break;
    case TLM_PM_FA:
    case TLM_PM_FA_BWD:
        st = sdpa_args_fa(c, m, &in);
        break;
    case TLM_PM_FA_VARLEN_FWD:
    case TLM_PM_FA_VARLEN_BWD:
        st = sdpa_args_varlen(c, m, &in);
        break;
    case TLM_PM_AITER_FA_FWD:
    case TLM_PM_AITER_FA_BWD:
    case TLM_PM_AITER_WRAP_V3_FWD:
    case TLM_PM_AITER_WRAP_V3_BWD:
    case TLM_PM_AITER_MHA_FWD:
    case TLM_PM_AITER_MHA_BWD:
    case TLM_PM_FA3_FWD:
        st = sdpa_args_aiter(c, m, &in);
        break;
    case TLM_PM_EVOFORMER:
        st = sdpa_evoformer(c, &in);
        return st != TLM_OK ? st : sdpa_compute(c, &in);
    case TLM_PM_VLLM_ATTN:
        return pm_fail(c, TLM_EINVAL,
                       "vLLM attention needs the vLLM user_annotation "
                       "(not supported)", NULL);
    default:
        return pm_fail(c, TLM_EINVAL, "not an SDPA model", NULL);
    }
    if (st == TLM_OK) {
        st = sdpa_params(c, &in);
    }
    return st != TLM_OK ? st : sdpa_compute(c, &in);
}

/* ------------------------------------------------------------------ */
/* MARK: - Convolution ([perfreport] §6.3)                                   */
/* ------------------------------------------------------------------ */

typedef struct conv_shape {
    int64_t v[MAX_DIMS];
    size_t n;
} conv_shape;

static double conv_flops(const conv_shape *x, const conv_shape *w,
                         const conv_shape *out, int bias, int transposed)
{
    double per = 2.0 * prod(w->v + 1, w->n > 0 ? w->n - 1 : 0);
    double f = (transposed ? prod(x->v, x->n) : prod(out->v, out->n)) * per;
    return f + (bias ? prod(out->v, out->n) : 0.0);
}

static double conv_bytes(const conv_shape *x, const conv_shape *w,
                         const conv_shape *out, int bias, double bpe)
{
    double e = prod(x->v, x->n) + prod(w->v, w->n) +
               (bias ? (double)out->v[1] : 0.0) + prod(out->v, out->n);
    return e * bpe;
}

static conv_shape conv_t(const conv_shape *s)
{
    conv_shape r = *s;
    if (r.n >= 2) {
        r.v[0] = s->v[1];
        r.v[1] = s->v[0];
    }
    return r;
}

static double conv_flops_bwd(const conv_shape *out, const conv_shape *x,
                             const conv_shape *w, int bias, int transposed)
{
    conv_shape tx = conv_t(x), tout = conv_t(out), tw = conv_t(w);
    double fin = conv_flops(out, w, x, 0, !transposed);
    double fw = transposed ? conv_flops(&tout, &tx, &tw, 0, 0)
                           : conv_flops(&tx, &tout, &tw, 0, 0);
    return fin + fw + (bias ? prod(out->v, out->n) : 0.0);
}

static double conv_bytes_bwd(const conv_shape *x, const conv_shape *w,
                             const conv_shape *out, int bias, double bpe)
{
    double bi = conv_bytes(out, w, x, 0, bpe);
    double bw = conv_bytes(out, x, w, 0, bpe);
    /* [QUIRK] bias term in elements, not multiplied by bpe */
    return bi + bw + (bias ? prod(out->v, out->n) + (double)out->v[1] : 0.0);
}

/* Concrete stride/padding/... list with default and broadcast. */
static int conv_list(pm_ctx *c, size_t ci, int64_t dflt, size_t nd,
                     int64_t *v, size_t *n)
{
    const char *s = concrete_str(c, ci);
    size_t i;
    if (s == NULL) {
        return 0;
    }
    if (s[0] == '\0') {
        for (i = 0; i < nd; i++) {
            v[i] = dflt;
        }
        *n = nd;
        return 1;
    }
    if (!str_to_tuple(s, v, n)) {
        pm_fail(c, TLM_EFORMAT, "cannot parse int tuple: ", s);
        return 0;
    }
    if (*n == 1) {
        for (i = 1; i < nd && i < MAX_DIMS; i++) {
            v[i] = v[0];
        }
        *n = nd;
    }
    return 1;
}

static int p_i64_tuple(pm_ctx *c, const char *name, const int64_t *v,
                       size_t n)
{
    return p_shape(c, name, v, n);
}

/* The convolution's parameters (Concrete Inputs) as CONV reads them. */
typedef struct conv_params {
    int64_t stride[MAX_DIMS], pad[MAX_DIMS], dil[MAX_DIMS], opad[MAX_DIMS];
    size_t ns, np, ndl, nop;
    int transposed;
    int64_t groups;
} conv_params;

/* CONV.get_output_shape. */
static tlm_status conv_out_shape(pm_ctx *c, const conv_shape *x,
                                 const conv_shape *w, const conv_params *p,
                                 conv_shape *out)
{
    size_t nd = x->n - 2, i;
    if (w->n < 2) {
        return pm_fail(c, TLM_EFORMAT, "filter shape has < 2 dims", NULL);
    }
    out->n = x->n;
    out->v[0] = x->v[0];
    out->v[1] = p->transposed ? w->v[1] : w->v[0];
    for (i = 0; i < nd; i++) {
        int64_t in_i = x->v[2 + i];
        int64_t k_i;
        double q;
        if (2 + i >= w->n || i >= p->ns || i >= p->np || i >= p->ndl ||
            (p->transposed && i >= p->nop)) {
            return pm_fail(c, TLM_EFORMAT, "spatial parameter too short",
                           NULL);
        }
        k_i = w->v[2 + i];
        /* double arithmetic: exact for realistic sizes, no int64
         * overflow on hostile ones */
        if (p->transposed) {
            q = ((double)in_i - 1.0) * (double)p->stride[i] -
                2.0 * (double)p->pad[i] +
                (double)p->dil[i] * ((double)k_i - 1.0) +
                (double)p->opad[i] + 1.0;
        } else {
            if (p->stride[i] == 0) {
                return pm_fail(c, TLM_ERANGE, "division by zero (stride)",
                               NULL);
            }
            q = ((double)in_i + 2.0 * (double)p->pad[i] -
                 (double)p->dil[i] * ((double)k_i - 1.0) - 1.0) /
                    (double)p->stride[i] +
                1.0;
            q = trunc(q); /* int(): truncation toward 0 */
        }
        if (!(fabs(q) < 4.0e18)) {
            return pm_fail(c, TLM_ERANGE, "output size out of range", NULL);
        }
        out->v[2 + i] = (int64_t)q;
    }
    return TLM_OK;
}

/* ConvBias_'s stride or padding: Concrete Input i as one int for every
 * spatial dim, unless empty (what prefixes the error). */
static int convbias_scalar(pm_ctx *c, size_t i, const char *what, size_t nd,
                           int64_t *v)
{
    const char *s = concrete_str(c, i);
    int64_t x;
    size_t k;
    if (s == NULL) {
        return 0;
    }
    if (s[0] == '\0') {
        return 1;
    }
    if (!py_int(s, &x)) {
        pm_fail(c, TLM_EFORMAT, what, s);
        return 0;
    }
    for (k = 0; k < nd; k++) {
        v[k] = x;
    }
    return 1;
}

/* The bias flag and its printed form (*repr, text in buf when it is
 * bias_sizes itself): aten::convolution has one with 3 Input Dims, its
 * backward with a truthy bias_sizes, ConvBias_ and ConvBiasReLU_ always. */
static tlm_status conv_bias(pm_ctx *c, tlm_perf_model_id m, int *bias,
                            const char **repr, char *buf)
{
    size_t ndims;
    const tlm_pj_node *b3;

    if (m != TLM_PM_CONV && m != TLM_PM_CONV_BWD) {
        *bias = 1; /* ConvBias_, ConvBiasReLU_ */
        *repr = "True";
        return TLM_OK;
    }
    TRY(arg_len(c, A_DIMS, &ndims));
    if (m == TLM_PM_CONV) {
        *bias = ndims == 3;
        *repr = *bias ? "True" : "False";
        return TLM_OK;
    }
    if (ndims <= 3) {
        *bias = 0;
        *repr = "False";
        return TLM_OK;
    }
    b3 = arg_at(c, A_DIMS, 3);
    TRY(b3);
    if (!node_truthy(b3)) {
        /* `x and ...` yields x itself: prints [] (or None) */
        sbuf b = {buf, TLM_PERF_PARAM_VALUE, 0, 0};
        buf[0] = '\0';
        sb_node(&b, &c->doc[A_DIMS], b3);
        *repr = buf;
        *bias = 0;
    } else {
        *bias = 1;
        *repr = "True";
    }
    return TLM_OK;
}

/* ConvBias_'s (and ConvBiasReLU_'s) stride and padding from Concrete
 * Inputs 3 and 4 (dilation 1, no output padding, one group), for nd
 * spatial dims. */
static tlm_status convbias_params(pm_ctx *c, size_t nd, conv_params *p)
{
    size_t ncon = 0, i;

    if (has_arg(c, A_CONCRETE)) {
        TRY(arg_len(c, A_CONCRETE, &ncon));
    } else {
        return pm_fail(c, TLM_EFORMAT, "missing arg Concrete Inputs", NULL);
    }
    for (i = 0; i < nd; i++) {
        p->stride[i] = 1;
        p->pad[i] = 0;
        p->dil[i] = 1;
        p->opad[i] = 0;
    }
    if (ncon > 3) {
        TRY(convbias_scalar(c, 3, "stride: ", nd, p->stride));
    }
    if (ncon > 4) {
        TRY(convbias_scalar(c, 4, "padding: ", nd, p->pad));
    }
    p->ns = p->np = p->ndl = p->nop = nd;
    p->transposed = 0;
    p->groups = 1;
    return TLM_OK;
}

/* aten::convolution's (and its backward's) stride, padding, dilation,
 * transposed, output_padding and groups: Concrete Inputs from ibase. */
static tlm_status conv_aten_params(pm_ctx *c, size_t ibase, size_t nd,
                                   conv_params *p)
{
    const char *s;

    TRY(conv_list(c, ibase, 1, nd, p->stride, &p->ns));
    TRY(conv_list(c, ibase + 1, 0, nd, p->pad, &p->np));
    TRY(conv_list(c, ibase + 2, 1, nd, p->dil, &p->ndl));
    TRY(s = concrete_str(c, ibase + 3));
    if (!py_eval_bool(s, &p->transposed)) {
        return pm_fail(c, TLM_EFORMAT, "transposed is not True/False: ", s);
    }
    TRY(conv_list(c, ibase + 4, 0, nd, p->opad, &p->nop));
    TRY(s = concrete_str(c, ibase + 5));
    if (!py_int(s, &p->groups)) {
        return pm_fail(c, TLM_EFORMAT, "groups is not an int: ", s);
    }
    return TLM_OK;
}

/* The params of a convolution, in TraceLens's order: input x at Input
 * Dims ix, weight w at iw. */
static tlm_status conv_put_params(pm_ctx *c, tlm_perf_model_id m,
                                  const char *convnd, size_t ix, size_t iw,
                                  const conv_shape *x, const conv_shape *w,
                                  const char *const *dt,
                                  const char *bias_repr,
                                  const conv_params *p)
{
    TRY(p_str(c, "convNd", convnd));
    TRY(p_shape(c, "input_shape", x->v, x->n));
    TRY(p_shape(c, "filter_shape", w->v, w->n));
    TRY(p_str_tuple(c, "dtype_input_weight", dt, 2));
    if (m == TLM_PM_CONVBIAS) {
        /* except (KeyError, IndexError) */
        size_t nst = 0;
        if (has_arg(c, A_STRIDES) && arg_len(c, A_STRIDES, &nst) &&
            nst > 1) {
            TRY(p_stride(c, "input_stride", 0));
            TRY(p_stride(c, "weight_stride", 1));
        } else {
            TRY(p_none(c, "input_stride") && p_none(c, "weight_stride"));
        }
    } else {
        TRY(p_stride_opt(c, "input_stride", ix));
        TRY(p_stride_opt(c, "weight_stride", iw));
    }
    TRY(p_text(c, "bias", bias_repr, 0));
    TRY(p_i64_tuple(c, "stride", p->stride, p->ns));
    TRY(p_i64_tuple(c, "padding", p->pad, p->np));
    TRY(p_i64_tuple(c, "dilation", p->dil, p->ndl));
    TRY(p_bool(c, "transposed_conv", p->transposed));
    TRY(p_i64_tuple(c, "output_padding", p->opad, p->nop));
    TRY(p_int(c, "groups", p->groups));
    return TLM_OK;
}

/* Convolutions ([perfreport] §6.3): aten::convolution, its backward,
 * ConvBias_ and ConvBiasReLU_ share the shapes, dtypes, output shape,
 * FLOPs and bytes; the variants differ in bias and parameters. */
static tlm_status m_conv(pm_ctx *c, tlm_perf_model_id m)
{
    conv_shape x, w, out;
    size_t ix = 0, iw = 1, ibase = 3;
    conv_params p;
    const char *dt[2] = {NULL, NULL};
    size_t ndt = 0;
    int bias = 0;
    const char *bias_repr = "False";
    char bias_buf[TLM_PERF_PARAM_VALUE];
    size_t nd;
    const char *convnd;
    int bpe;
    double flops, bytes = 0.0;
    int has_bytes;
    int flops_is_bwd = 0;
    tlm_status st;

    if (m == TLM_PM_CONVBIAS_BWD) {
        return pm_fail(c, TLM_ERANGE,
                       "needs the forward op's parameters (sequence-number "
                       "cache), not supported", NULL);
    }
    if (m == TLM_PM_CONV_BWD) {
        ix = 1;
        iw = 2;
        ibase = 4;
        flops_is_bwd = 1;
    }
    TRY(dims_shape(c, ix, x.v, &x.n));
    TRY(dims_shape(c, iw, w.v, &w.n));
    if (x.n < 2) {
        return pm_fail(c, TLM_ERANGE, "input shape has < 2 dims", NULL);
    }
    nd = x.n - 2;
    st = conv_bias(c, m, &bias, &bias_repr, bias_buf);
    if (st == TLM_OK) {
        st = m == TLM_PM_CONVBIAS ? convbias_params(c, nd, &p)
                                  : conv_aten_params(c, ibase, nd, &p);
    }
    if (st != TLM_OK) {
        return st;
    }
    TRY(dtype_pair(c, ix, dt, &ndt));
    if (ndt < 2) {
        return pm_fail(c, TLM_EFORMAT, "fewer than 2 dtypes", NULL);
    }
    if (strcmp(dt[0], dt[1]) != 0) {
        return pm_fail(c, TLM_ERANGE,
                       "data types of input and weight are different", NULL);
    }
    if (x.n == 3) {
        convnd = "conv1d";
    } else if (x.n == 4) {
        convnd = "conv2d";
    } else if (x.n == 5) {
        convnd = "conv3d";
    } else {
        return pm_fail(c, TLM_ERANGE, "unknown convolution dimension", NULL);
    }
    st = conv_put_params(c, m, convnd, ix, iw, &x, &w, dt, bias_repr, &p);
    if (st == TLM_OK) {
        st = conv_out_shape(c, &x, &w, &p, &out);
    }
    if (st != TLM_OK) {
        return st;
    }

    bpe = tlm_perf_dtype_bpe(dt[0]);
    has_bytes = bpe != 0;
    if (flops_is_bwd || c->bwd) {
        flops = conv_flops_bwd(&out, &x, &w, bias, p.transposed);
        if (has_bytes) {
            bytes = conv_bytes_bwd(&x, &w, &out, bias, (double)bpe);
        }
    } else {
        flops = conv_flops(&x, &w, &out, bias, p.transposed);
        if (has_bytes) {
            bytes = conv_bytes(&x, &w, &out, bias, (double)bpe);
        }
    }
    c->out->flops = flops;
    c->out->has_bytes = has_bytes;
    c->out->bytes = bytes;
    c->prec_dtype = dt[0];
    c->maf = "matrix";
    return TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - Elementwise ([perfreport] §6.5)                                   */
/* ------------------------------------------------------------------ */

static tlm_status m_unary(pm_ctx *c)
{
    int64_t shp[MAX_DIMS];
    size_t n, ndims;
    const char *din, *dout = NULL;
    const char *dtv[2];
    int bin, bout;
    double ne;
    TRY(dims_shape(c, 0, shp, &n));
    TRY(din = type_at(c, 0));
    TRY(p_shape(c, "op_shape", shp, n));
    TRY(arg_len(c, A_DIMS, &ndims));
    {
        /* stride_input first: the Python reads it before the output */
        const tlm_pj_node *s0 = arg_at(c, A_STRIDES, 0);
        TRY(s0);
    }
    if (ndims > 1 && node_truthy(arg_at(c, A_DIMS, 1))) {
        TRY(dout = type_at(c, 1));
        TRY(arg_at(c, A_STRIDES, 1));
    }
    dtv[0] = din;
    dtv[1] = dout;
    TRY(p_str_tuple(c, "dtype_in_out", dtv, 2));
    TRY(p_stride(c, "stride_input", 0));
    if (dout != NULL) {
        TRY(p_stride(c, "stride_output", 1));
    } else {
        TRY(p_none(c, "stride_output"));
    }
    ne = prod(shp, n);
    bin = tlm_perf_dtype_bpe(din);
    bout = dout != NULL ? tlm_perf_dtype_bpe(dout) : bin;
    c->out->flops = ne;
    c->out->has_bytes = bin != 0 && bout != 0;
    c->out->bytes = c->out->has_bytes ? ne * bin + ne * bout : 0.0;
    c->prec_dtype = din;
    c->maf = "vector";
    if (c->bwd) {
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    }
    return TLM_OK;
}

static tlm_status m_binary(pm_ctx *c, int liger)
{
    int64_t s1[MAX_DIMS], s2[MAX_DIMS], bc[MAX_DIMS];
    size_t n1, n2, nbc, ndims, i;
    const char *dtv[3] = {NULL, NULL, NULL};
    int b1, b2, bo;
    double e1, e2, eo;
    TRY(dims_shape(c, 0, s1, &n1));
    TRY(dims_shape(c, 1, s2, &n2));
    TRY(dtv[0] = type_at(c, 0));
    TRY(dtv[1] = type_at(c, 1));
    TRY(arg_at(c, A_STRIDES, 0));
    TRY(arg_at(c, A_STRIDES, 1));
    TRY(arg_len(c, A_DIMS, &ndims));
    if (!liger && ndims > 2 && node_truthy(arg_at(c, A_DIMS, 2))) {
        TRY(dtv[2] = type_at(c, 2));
        TRY(arg_at(c, A_STRIDES, 2));
    }
    TRY(p_shape(c, "shape_in1", s1, n1));
    TRY(p_shape(c, "shape_in2", s2, n2));
    TRY(p_str_tuple(c, "dtype_in1_in2_out", dtv, 3));
    TRY(p_stride(c, "stride_input1", 0));
    TRY(p_stride(c, "stride_input2", 1));
    if (dtv[2] != NULL) {
        TRY(p_stride(c, "stride_output", 2));
    } else {
        TRY(p_none(c, "stride_output"));
    }
    /* broadcast, right-aligned */
    nbc = n1 > n2 ? n1 : n2;
    for (i = 0; i < nbc; i++) {
        int64_t d1 = i + n1 >= nbc ? s1[i + n1 - nbc] : 1;
        int64_t d2 = i + n2 >= nbc ? s2[i + n2 - nbc] : 1;
        if (d1 != d2 && d1 != 1 && d2 != 1) {
            return pm_fail(c, TLM_ERANGE, "shapes not broadcastable", NULL);
        }
        bc[i] = d1 > d2 ? d1 : d2;
    }
    e1 = prod(s1, n1);
    e2 = prod(s2, n2);
    eo = prod(bc, nbc);
    b1 = tlm_perf_dtype_bpe(dtv[0]);
    b2 = tlm_perf_dtype_bpe(dtv[1]);
    if (dtv[2] != NULL) {
        bo = tlm_perf_dtype_bpe(dtv[2]);
    } else if (b1 && b2) {
        bo = (n1 > 0 && n2 > 0) ? (b1 > b2 ? b1 : b2) : b1;
    } else {
        bo = 0;
    }
    c->out->flops = eo;
    c->out->has_bytes = b1 && b2 && bo;
    c->out->bytes = c->out->has_bytes ? e1 * b1 + e2 * b2 + eo * bo : 0.0;
    c->prec_dtype = dtv[0];
    c->maf = "vector";
    if (c->bwd) {
        return pm_fail(c, TLM_EINVAL, "no backward model", NULL);
    }
    return TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - Reduce ([perfreport] §6.6)                                        */
/* ------------------------------------------------------------------ */

/* A reduction without an input shape: zero elements, no reduce_type. */
static tlm_status reduce_no_shape(pm_ctx *c)
{
    const char *dtv[2] = {NULL, NULL};

    TRY(p_int(c, "num_input_elems", 0) && p_int(c, "num_output_elems", 0));
    TRY(p_str_tuple(c, "dtype_in_out", dtv, 2));
    c->out->flops = 0.0;
    c->out->has_bytes = 0;
    c->out->bytes = 0.0;
    c->prec_dtype = NULL;
    c->maf = "vector";
    return TLM_OK;
}

/* dim / keepdim: only non-string Concrete values count ([QUIRK]: Kineto
 * writes strings, so this is normally a full reduction).  The last bool
 * after the first input is keepdim; the last int or int list other than
 * it is dim (into dims, *ndim).  Returns whether there is a dim. */
static int reduce_dims(const pm_ctx *c, int64_t *dims, size_t *ndim,
                       int *keepdim)
{
    long kidx = -1;
    size_t ncon = 0;
    long i;

    if (has_arg(c, A_CONCRETE) && c->root[A_CONCRETE]->type == TLM_PJ_ARR) {
        ncon = c->root[A_CONCRETE]->count;
    }
    if (ncon < 2) {
        return 0;
    }
    for (i = (long)ncon - 1; i >= 1; i--) {
        const tlm_pj_node *v = tlm_pj_child(&c->doc[A_CONCRETE],
                                            c->root[A_CONCRETE], (size_t)i);
        if (v->type == TLM_PJ_BOOL) {
            *keepdim = v->bval;
            kidx = i;
            break;
        }
    }
    for (i = (long)ncon - 1; i >= 1; i--) {
        const tlm_pj_node *v;
        if (i == kidx) {
            continue;
        }
        v = tlm_pj_child(&c->doc[A_CONCRETE], c->root[A_CONCRETE], (size_t)i);
        if (v->type == TLM_PJ_NULL || v->type == TLM_PJ_STR) {
            continue;
        }
        if (v->type == TLM_PJ_ARR) {
            size_t k;
            int ok = v->count <= MAX_DIMS;
            for (k = 0; ok && k < v->count; k++) {
                const tlm_pj_node *e = tlm_pj_child(&c->doc[A_CONCRETE], v, k);
                if (e->type == TLM_PJ_NUM && e->is_int) {
                    dims[k] = e->ival;
                } else if (e->type == TLM_PJ_BOOL) {
                    dims[k] = e->bval;
                } else {
                    ok = 0;
                }
            }
            if (ok) {
                *ndim = v->count;
                return 1;
            }
            continue;
        }
        if (v->type == TLM_PJ_NUM && v->is_int) {
            dims[0] = v->ival;
            *ndim = 1;
            return 1;
        }
    }
    return 0;
}

/* Elements of the output of reducing shape shp (n dims): all of them for
 * cumsum / cumprod, the dims kept (or set to 1 with keepdim) with a dim,
 * else one. */
static double reduce_out_elems(const pm_ctx *c, const int64_t *shp, size_t n,
                               double nin)
{
    int64_t dims[MAX_DIMS];
    int64_t outs[MAX_DIMS];
    int removed[MAX_DIMS];
    size_t ndim = 0, k;
    int keepdim = 0;
    int have_dim = reduce_dims(c, dims, &ndim, &keepdim);
    double nout;

    if (strstr(c->name, "cumsum") || strstr(c->name, "cumprod")) {
        return nin;
    }
    if (!have_dim || ndim == 0) {
        return 1.0;
    }
    memset(removed, 0, sizeof(removed));
    for (k = 0; k < n; k++) {
        outs[k] = shp[k];
    }
    for (k = 0; k < ndim; k++) {
        int64_t d = dims[k] >= 0 ? dims[k] : (int64_t)n + dims[k];
        if (d >= 0 && (size_t)d < n) {
            if (keepdim) {
                outs[d] = 1;
            } else {
                removed[d] = 1;
            }
        }
    }
    nout = 1.0;
    for (k = 0; k < n; k++) {
        if (!removed[k]) {
            nout *= (double)outs[k];
        }
    }
    return nout;
}

/* Reductions: elements in and out, dtypes, reduce_type from the name. */
static tlm_status m_reduce(pm_ctx *c)
{
    size_t ndims = 0, ntypes = 0;
    const tlm_pj_node *d0 = NULL;
    int64_t shp[MAX_DIMS];
    size_t n = 0;
    double nin, nout;
    const char *din = NULL, *dout = NULL;
    const char *dtv[2];
    const char *rt = "sum";
    int bin, bout;
    if (has_arg(c, A_DIMS)) {
        TRY(arg_len(c, A_DIMS, &ndims));
        if (ndims > 0) {
            d0 = arg_at(c, A_DIMS, 0);
        }
    }
    if (d0 == NULL || d0->type == TLM_PJ_NULL) {
        return reduce_no_shape(c);
    }
    TRY(node_shape(c, d0, shp, &n));
    nin = prod(shp, n);
    if (has_arg(c, A_TYPES)) {
        TRY(arg_len(c, A_TYPES, &ntypes));
        if (ntypes > 0) {
            TRY(din = type_at(c, 0));
        }
    }
    if (has_arg(c, A_OUTTYPE) && c->root[A_OUTTYPE]->type == TLM_PJ_ARR &&
        c->root[A_OUTTYPE]->count > 0) {
        const tlm_pj_node *o =
            tlm_pj_child(&c->doc[A_OUTTYPE], c->root[A_OUTTYPE], 0);
        if (o->type == TLM_PJ_STR) {
            dout = o->str;
        } else if (o->type != TLM_PJ_NULL) {
            return pm_fail(c, TLM_EFORMAT, "Output type entry not a string",
                           NULL);
        }
    }
    nout = reduce_out_elems(c, shp, n, nin);
    if (strstr(c->name, "mean")) {
        rt = "mean";
    } else if (strstr(c->name, "max")) {
        rt = "max";
    } else if (strstr(c->name, "min")) {
        rt = "min";
    } else if (strstr(c->name, "norm")) {
        rt = "norm";
    }
    TRY(p_count(c, "num_input_elems", nin));
    TRY(p_count(c, "num_output_elems", nout));
    dtv[0] = din;
    dtv[1] = dout;
    TRY(p_str_tuple(c, "dtype_in_out", dtv, 2));
    TRY(p_str(c, "reduce_type", rt));
    bin = (din != NULL && din[0] != '\0') ? tlm_perf_dtype_bpe(din) : 0;
    if (dout != NULL) {
        bout = dout[0] != '\0' ? tlm_perf_dtype_bpe(dout) : 0;
    } else {
        bout = bin;
    }
    c->out->flops = nin;
    c->out->has_bytes = bin != 0 && bout != 0;
    c->out->bytes = c->out->has_bytes ? nin * bin + nout * bout : 0.0;
    /* bytes_bwd = n_out*bpe_out + n_in*bpe_in: the same sum */
    if (c->bwd && c->out->has_bytes) {
        c->out->bytes = nout * bout + nin * bin;
    }
    c->prec_dtype = (din != NULL && din[0] != '\0') ? din : NULL;
    c->maf = "vector";
    return TLM_OK;
}

/* ------------------------------------------------------------------ */
/* MARK: - Normalization ([perfreport] §6.7)                                 */
/* ------------------------------------------------------------------ */

static double norm_flops(int training, double E, double C)
{
    double p = C * 3.0;
    if (training) {
        p += E * 3.0;
    }
    p += C * 3.0;
    return p + 2.0 * E;
}

static double norm_bytes(int has_bias, int affine, int training, double E,
                         double C, double bin, double bout)
{
    double w = 2.0;
    if (affine) {
        w += 1.0;
        if (has_bias) {
            w += 1.0;
        }
    }
    if (training) {
        w += 2.0;
    }
    return E * bin + E * bout + w * C * bin;
}

static double norm_flops_bwd(int training, double E, double C, int mask0)
{
    double epc = E / C;
    double f = training ? 0.0 : 3.0;
    f += 4.0 * epc;
    if (mask0) {
        if (training) {
            f += 5.0 * epc;
        }
    } else {
        f += 2.0 * epc;
    }
    return C * f;
}

static double norm_bytes_bwd(int has_bias, int affine, int training, double E,
                             double C, double bin, double bout, int mask0)
{
    double b = E * bout + E * bin * ((mask0 && training) ? 2.0 : 1.0);
    if (training) {
        b += C * bin;
    }
    if (affine) {
        b += C * bin;
        if (training) {
            b += C * bin * (has_bias ? 2.0 : 1.0);
        }
    }
    return b;
}

/* What a normalization class reads from the args. */
typedef struct norm_in {
    int64_t shp[MAX_DIMS];
    size_t n;
    size_t iin; /* Input Dims of the input */
    const char *din;
    double E, C;
    int c_is_float;
    int has_bias, affine, training;
    int mask[MAX_DIMS];
    size_t nmask;
    int is_bwd_op;
} norm_in;

/* Concrete Input i as a literal list (what prefixes the error). */
static int concrete_list(pm_ctx *c, size_t i, const char *what, int64_t *lv,
                         size_t *nl)
{
    const char *s = concrete_str(c, i);
    if (s == NULL) {
        return 0;
    }
    if (!literal_list(s, lv, nl, MAX_DIMS)) {
        pm_fail(c, TLM_EFORMAT, what, s);
        return 0;
    }
    return 1;
}

/* num_channels = prod(normalized_shape at Concrete Input i). */
static int norm_shape_channels(pm_ctx *c, size_t i, norm_in *in)
{
    int64_t lv[MAX_DIMS];
    size_t nl;
    if (!concrete_list(c, i, "normalized_shape: ", lv, &nl)) {
        return 0;
    }
    in->C = prod(lv, nl);
    return 1;
}

/* output_mask at Concrete Input i; at least min_n entries. */
static int norm_output_mask(pm_ctx *c, size_t i, size_t min_n, norm_in *in)
{
    int64_t lv[MAX_DIMS];
    size_t nl, k;
    if (!concrete_list(c, i, "output_mask: ", lv, &nl)) {
        return 0;
    }
    if (nl < min_n) {
        pm_fail(c, TLM_EFORMAT, "output_mask too short", NULL);
        return 0;
    }
    for (k = 0; k < nl; k++) {
        in->mask[k] = lv[k] != 0;
    }
    in->nmask = nl;
    return 1;
}

/* num_channels = shape[1]. */
static int norm_dim1_channels(pm_ctx *c, norm_in *in)
{
    if (in->n < 2) {
        pm_fail(c, TLM_EFORMAT, "shape has < 2 dims", NULL);
        return 0;
    }
    in->C = (double)in->shp[1];
    return 1;
}

/* Which Input Dims entry is the input, and what the bwd ops know before
 * reading it. */
static tlm_status norm_input(pm_ctx *c, tlm_perf_model_id m, norm_in *in)
{
    const char *s;
    switch (m) {
    case TLM_PM_BATCHNORM_BWD: {
        int has_output = 1;
        in->is_bwd_op = 1;
        in->iin = 1;
        if (strcmp(c->name, "aten::cudnn_batch_norm_backward") == 0 ||
            strcmp(c->name, "aten::miopen_batch_norm_backward") == 0) {
            in->iin = 0;
            in->training = 0;
        } else {
            TRY(dims_not_none(c, 0, &has_output));
            TRY(s = concrete_str(c, 7));
            in->training = s[0] != '\0';
        }
        in->mask[0] = has_output;
        in->nmask = 1;
        break;
    }
    case TLM_PM_LAYERNORM_BWD:
    case TLM_PM_GROUPNORM_BWD:
    case TLM_PM_RMSNORM_BWD:
        in->is_bwd_op = 1;
        in->iin = 1;
        break;
    default:
        break;
    }
    TRY(dims_shape(c, in->iin, in->shp, &in->n));
    TRY(in->din = type_at(c, in->iin));
    TRY(arg_at(c, A_STRIDES, in->iin));
    in->E = prod(in->shp, in->n);
    return TLM_OK;
}

/* num_channels, bias, affine, training and output_mask per class. */
static tlm_status norm_args(pm_ctx *c, tlm_perf_model_id m, norm_in *in)
{
    const char *s;
    switch (m) {
    case TLM_PM_BATCHNORM:
    case TLM_PM_INSTANCENORM:
        TRY(dims_not_none(c, 2, &in->affine));
        TRY(s = concrete_str(c, 5));
        in->training = s[0] != '\0'; /* [QUIRK] bool("False") is True */
        TRY(norm_dim1_channels(c, in));
        in->has_bias = 1;
        break;
    case TLM_PM_BATCHNORM_BWD:
        TRY(norm_dim1_channels(c, in));
        TRY(dims_not_none(c, 2, &in->affine));
        in->has_bias = 1;
        break;
    case TLM_PM_LAYERNORM:
        TRY(norm_shape_channels(c, 1, in));
        TRY(dims_not_none(c, 3, &in->has_bias));
        TRY(dims_not_none(c, 2, &in->affine));
        in->training = 1;
        break;
    case TLM_PM_LAYERNORM_BWD:
        TRY(norm_shape_channels(c, 2, in));
        TRY(norm_output_mask(c, 7, 3, in));
        in->affine = in->mask[1];
        in->has_bias = in->mask[2];
        in->training = 1;
        break;
    case TLM_PM_GROUPNORM:
        TRY(dims_not_none(c, 2, &in->affine));
        TRY(norm_dim1_channels(c, in));
        in->training = 1;
        in->has_bias = 1;
        break;
    case TLM_PM_GROUPNORM_BWD: {
        int64_t groups;
        TRY(dims_not_none(c, 5, &in->affine));
        TRY(norm_output_mask(c, 9, 0, in));
        if (in->n < 2) {
            return pm_fail(c, TLM_EFORMAT, "shape has < 2 dims", NULL);
        }
        TRY(s = concrete_str(c, 8));
        if (!py_int(s, &groups)) {
            return pm_fail(c, TLM_EFORMAT, "groups: ", s);
        }
        if (groups == 0) {
            return pm_fail(c, TLM_ERANGE, "division by zero (groups)", NULL);
        }
        in->C = (double)in->shp[1] / (double)groups; /* a float in Python */
        in->c_is_float = 1;
        in->training = 1;
        in->has_bias = 1;
        break;
    }
    case TLM_PM_RMSNORM:
        TRY(dims_not_none(c, 2, &in->affine));
        TRY(norm_shape_channels(c, 1, in));
        in->has_bias = 0;
        in->training = 0;
        break;
    case TLM_PM_RMSNORM_BWD:
        TRY(dims_not_none(c, 4, &in->affine));
        TRY(norm_shape_channels(c, 2, in));
        TRY(norm_output_mask(c, 5, 0, in));
        in->has_bias = 0;
        in->training = 0;
        break;
    default:
        return pm_fail(c, TLM_EINVAL, "not a norm model", NULL);
    }
    return TLM_OK;
}

/* The params of the normalization classes, in their insertion order. */
static tlm_status norm_params(pm_ctx *c, const norm_in *in)
{
    const char *dtv[2];
    TRY(p_shape(c, "op_shape", in->shp, in->n));
    dtv[0] = in->din;
    dtv[1] = NULL;
    TRY(p_str_tuple(c, "dtype_in_out", dtv, 2));
    TRY(p_stride(c, "stride_input", in->iin));
    TRY(p_none(c, "stride_output"));
    if (in->c_is_float) {
        TRY(p_float(c, "num_channels", in->C));
    } else {
        TRY(p_count(c, "num_channels", in->C));
    }
    TRY(p_bool(c, "has_bias", in->has_bias));
    TRY(p_bool(c, "is_affine", in->affine));
    TRY(p_bool(c, "is_training", in->training));
    if (in->is_bwd_op) {
        TRY(p_bool_list(c, "output_mask", in->mask, in->nmask));
    }
    c->prec_dtype = in->din;
    c->maf = "vector";
    return TLM_OK;
}

/* RMSNorm backward FLOPs and bytes (bin bytes per element). */
static tlm_status rmsnorm_bwd(pm_ctx *c, const norm_in *in, int bin)
{
    double E = in->E, C = in->C;
    double nn = E / C;
    double f = in->affine ? E : 0.0;
    if (in->nmask < 2) {
        return pm_fail(c, TLM_EFORMAT, "output_mask too short", NULL);
    }
    f += E;
    if (in->mask[0]) {
        f += 2.0 * E;
        f += 4.0 * E;
    }
    if (in->mask[1] && in->affine) {
        f += E;
        if (nn > 1.0) {
            f += E;
        }
    }
    c->out->flops = f;
    c->out->bytes =
        E * bin + E * bin * 2.0 + (in->affine ? C * bin * 2.0 : 0.0);
    return TLM_OK;
}

/* FLOPs and bytes into c->out. */
static tlm_status norm_compute(pm_ctx *c, tlm_perf_model_id m,
                               const norm_in *in)
{
    double E = in->E, C = in->C;
    int bin;
    if (c->bwd && !in->is_bwd_op) {
        return pm_fail(c, TLM_EINVAL, "backward pass is not defined", NULL);
    }
    bin = tlm_perf_dtype_bpe(in->din);
    if (bin == 0) {
        /* Python multiplies by None: TypeError */
        return pm_fail(c, TLM_ERANGE, "no bytes-per-element for dtype ",
                       in->din);
    }
    if (C == 0.0 && (in->is_bwd_op || m == TLM_PM_RMSNORM)) {
        return pm_fail(c, TLM_ERANGE, "division by zero (num_channels)",
                       NULL);
    }
    if (m == TLM_PM_RMSNORM) {
        double nn = E / C;
        c->out->flops = nn * (2.0 * C + 2.0) + E * (in->affine ? 2.0 : 1.0);
        c->out->bytes = E * bin + E * bin + (in->affine ? C * bin : 0.0);
    } else if (m == TLM_PM_RMSNORM_BWD) {
        tlm_status st = rmsnorm_bwd(c, in, bin);
        if (st != TLM_OK) {
            return st;
        }
    } else if (in->is_bwd_op) {
        if (in->nmask < 1) {
            return pm_fail(c, TLM_EFORMAT, "output_mask is empty", NULL);
        }
        c->out->flops = norm_flops_bwd(in->training, E, C, in->mask[0]);
        c->out->bytes = norm_bytes_bwd(in->has_bias, in->affine,
                                       in->training, E, C, bin, bin,
                                       in->mask[0]);
    } else {
        c->out->flops = norm_flops(in->training, E, C);
        c->out->bytes = norm_bytes(in->has_bias, in->affine, in->training, E,
                                   C, bin, bin);
    }
    c->out->has_bytes = 1;
    return TLM_OK;
}

static tlm_status m_norm(pm_ctx *c, tlm_perf_model_id m)
{
    norm_in in;
    tlm_status st;
    if (m == TLM_PM_INSTANCENORM_BWD) {
        return pm_fail(c, TLM_EINVAL,
                       "backward pass for InstanceNorm is not defined", NULL);
    }
    memset(&in, 0, sizeof(in));
    in.has_bias = 1;
    in.affine = 1;
    in.training = 1;
    st = norm_input(c, m, &in);
    if (st == TLM_OK) {
        st = norm_args(c, m, &in);
    }
    if (st == TLM_OK) {
        st = norm_params(c, &in);
    }
    return st != TLM_OK ? st : norm_compute(c, m, &in);
}

/* ------------------------------------------------------------------ */
/* MARK: - Entry point                                                */
/* ------------------------------------------------------------------ */

static tlm_status dispatch(pm_ctx *c, tlm_perf_model_id m)
{
    if (m >= TLM_PM_EXT_FIRST)
        return pm_ext_dispatch(c, m);
    switch (tlm_perf_family_of(m)) {
    case TLM_FAM_GEMM:
        return m_gemm(c, m);
    case TLM_FAM_SDPA:
        return m_sdpa(c, m);
    case TLM_FAM_CONV:
        return m_conv(c, m);
    case TLM_FAM_UNARY:
        return m_unary(c);
    case TLM_FAM_BINARY:
        return m_binary(c, m == TLM_PM_LIGER);
    case TLM_FAM_REDUCE:
        return m_reduce(c);
    case TLM_FAM_NORM:
        return m_norm(c, m);
    case TLM_FAM_NONE:
    default:
        return pm_fail(c, TLM_ENOTFOUND, "no perf model", NULL);
    }
}

tlm_status tlm_perf_compute(const tlm_perf_args *args, int bwd,
                            tlm_perf_result *out, tlm_error *err)
{
    pm_ctx c;
    tlm_perf_model_id model;
    const char *texts[A_COUNT];
    tlm_status st = TLM_OK;
    int i;
    if (args == NULL || out == NULL || args->name == NULL) {
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_perf_compute: NULL argument");
    }
    memset(out, 0, sizeof(*out));
    memset(&c, 0, sizeof(c));
    c.a = args;
    c.name = args->name;
    c.bwd = bwd ? 1 : 0;
    c.out = out;
    c.err = err;
    out->bwd = c.bwd;
    model = tlm_perf_model_of(args->name);
    if (model == TLM_PM_NONE) {
        return tlm_error_set(err, TLM_ENOTFOUND, NULL, -1,
                             "%s: no perf model", args->name);
    }
    out->sheet = tlm_perf_sheet_for(args->name, c.bwd);
    texts[A_DIMS] = args->input_dims;
    texts[A_TYPES] = args->input_types;
    texts[A_STRIDES] = args->input_strides;
    texts[A_CONCRETE] = args->concrete_inputs;
    texts[A_OUTTYPE] = args->output_type;
    for (i = 0; i < A_COUNT; i++) {
        size_t off;
        const char *what;
        tlm_status pst;
        if (texts[i] == NULL) {
            c.doc[i].root = -1;
            continue;
        }
        pst = tlm_pj_parse(texts[i], strlen(texts[i]), 32, &c.doc[i], &off,
                           &what);
        if (pst != TLM_OK) {
            st = tlm_error_set(err, pst == TLM_ENOMEM ? TLM_ENOMEM : TLM_EFORMAT,
                               NULL, (int64_t)off, "%s: %s: %s", args->name,
                               arg_names[i], what);
            goto done;
        }
        c.root[i] = tlm_pj_node_at(&c.doc[i], c.doc[i].root);
    }
    st = dispatch(&c, model);
    if (st == TLM_OK && !(out->flops >= 0.0 && out->flops < 0x1p63 &&
                          (!out->has_bytes ||
                           (out->bytes >= 0.0 && out->bytes < 0x1p63)))) {
        /* negative or overflowing dims: no figures (never a negative or
         * absurd Data Moved / TB/s); the coverage note says why */
        st = tlm_error_set(err, TLM_ERANGE, NULL, -1,
                           "%s: FLOPs or bytes out of range (negative or "
                           "overflowing dims): no perf figures",
                           args->name);
        out->flops = out->bytes = 0.0;
        out->has_bytes = 0;
        out->out_of_range = 1;
    }
    if (st == TLM_OK) {
        const char *prec =
            c.prec_dtype && c.prec_dtype[0] ? tlm_perf_dtype_precision(c.prec_dtype)
                                            : NULL;
        if (c.prec_text[0] != '\0')
            prec = c.prec_text;
        if (prec != NULL && c.maf != NULL) {
            snprintf(out->compute_spec, sizeof(out->compute_spec), "%s_%s",
                     c.maf, prec);
        }
    }
done:
    for (i = 0; i < A_COUNT; i++) {
        tlm_pj_free(&c.doc[i]);
    }
    return st;
}
