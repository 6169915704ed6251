/*
 * replay_check.c - one op checked for replay (spec replay.md §10.3): the
 * name rules, then the four argument arrays: equal lengths, each entry
 * by its type (tensor: integer dims and strides within bounds, storage
 * bytes within the caps, overflow-checked; TensorList: the same per
 * tensor; Scalar / ScalarList: the strict Concrete Inputs grammar and the
 * allocation bound of integers; ""), written as one compact, typed JSON
 * object.  The first failure gives the op's reason.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf_internal.h"
#include "replay_internal.h"

#define GIB (1024ULL * 1024ULL * 1024ULL)

static const char *const keys[4] = {"Input Dims", "Input type",
                                    "Input Strides", "Concrete Inputs"};

void tlm_replay_opts_init(tlm_replay_opts *o)
{
    memset(o, 0, sizeof *o);
}

static uint64_t cap_tensor(const tlm_replay_opts *o)
{
    return o && o->max_tensor_bytes ? o->max_tensor_bytes : 8 * GIB;
}

static uint64_t cap_op(const tlm_replay_opts *o)
{
    return o && o->max_op_bytes ? o->max_op_bytes : 32 * GIB;
}

/* Work state of one check. */
typedef struct ck {
    tlm_pj_doc doc[4];
    const tlm_pj_node *arr[4];
    tlm_sbuf out[4];
    const tlm_replay_opts *o;
    uint64_t bytes;     /* the op's storage bytes so far */
    unsigned list_elsize; /* TensorList element size: the op's first
                             tensor's, else TLM_RP_LIST_ELSIZE (the
                             runner builds lists with that dtype) */
    int arg;            /* entry being checked */
} ck;

/* Dims and strides of one tensor (both arrays of integers, same length):
 * storage bytes in *bytes, JSON appended.  A reason. */
static tlm_replay_reason tensor(ck *c, const tlm_pj_doc *dd,
                                const tlm_pj_node *d, const tlm_pj_doc *sd,
                                const tlm_pj_node *s, unsigned elsize,
                                uint64_t *bytes)
{
    if (!d || d->type != TLM_PJ_ARR || d->count > TLM_RP_MAX_DIMS)
        return TLM_RR_BAD_DIMS;
    if (!s || s->type != TLM_PJ_ARR || s->count != d->count)
        return TLM_RR_BAD_STRIDES;
    uint64_t last = 0; /* Σ (d_i - 1) s_i */
    int empty = 0;
    for (size_t i = 0; i < d->count; i++) {
        const tlm_pj_node *x = tlm_pj_child(dd, d, i);
        const tlm_pj_node *y = tlm_pj_child(sd, s, i);
        if (x->type != TLM_PJ_NUM || !x->is_int || x->ival < 0 ||
            x->ival > TLM_RP_MAX_DIM)
            return TLM_RR_BAD_DIMS;
        if (y->type != TLM_PJ_NUM || !y->is_int || y->ival < 0 ||
            y->ival > TLM_RP_MAX_STRIDE)
            return TLM_RR_BAD_STRIDES;
        uint64_t t;
        if (x->ival == 0)
            empty = 1;
        else if (__builtin_mul_overflow((uint64_t)(x->ival - 1),
                                        (uint64_t)y->ival, &t) ||
                 __builtin_add_overflow(last, t, &last))
            return TLM_RR_TENSOR_TOO_LARGE;
    }
    uint64_t elems = empty ? 0 : last + 1;
    if (elems && __builtin_mul_overflow(elems, (uint64_t)elsize, bytes))
        return TLM_RR_TENSOR_TOO_LARGE;
    if (!elems)
        *bytes = 0;
    if (*bytes > cap_tensor(c->o))
        return TLM_RR_TENSOR_TOO_LARGE;
    if (__builtin_add_overflow(c->bytes, *bytes, &c->bytes) ||
        c->bytes > cap_op(c->o))
        return TLM_RR_OP_TOO_LARGE;
    return TLM_RR_OK;
}

static void put_ints(tlm_sbuf *b, const tlm_pj_doc *doc,
                     const tlm_pj_node *a)
{
    tlm_sbuf_putc(b, '[');
    for (size_t i = 0; i < a->count; i++)
        tlm_sbuf_printf(b, "%s%lld", i ? "," : "",
                        (long long)tlm_pj_child(doc, a, i)->ival);
    tlm_sbuf_putc(b, ']');
}

static int is_empty_arr(const tlm_pj_node *n)
{
    return n && n->type == TLM_PJ_ARR && n->count == 0;
}

/* A TensorList entry: a list of tensors' dims and strides. */
static tlm_replay_reason tensor_list(ck *c, const tlm_pj_node *d,
                                     const tlm_pj_node *s)
{
    if (!d || d->type != TLM_PJ_ARR || d->count > TLM_RP_MAX_LIST)
        return TLM_RR_BAD_DIMS;
    if (!s || s->type != TLM_PJ_ARR || s->count != d->count)
        return TLM_RR_BAD_STRIDES;
    if (d->count == 0)
        return TLM_RR_EMPTY_LIST;
    for (size_t i = 0; i < d->count; i++) {
        uint64_t b;
        tlm_replay_reason r =
            tensor(c, &c->doc[0], tlm_pj_child(&c->doc[0], d, i), &c->doc[2],
                   tlm_pj_child(&c->doc[2], s, i), c->list_elsize, &b);
        if (r != TLM_RR_OK)
            return r;
    }
    tlm_sbuf_putc(&c->out[0], '[');
    tlm_sbuf_putc(&c->out[2], '[');
    for (size_t i = 0; i < d->count; i++) {
        tlm_sbuf_puts(&c->out[0], i ? "," : "");
        tlm_sbuf_puts(&c->out[2], i ? "," : "");
        put_ints(&c->out[0], &c->doc[0], tlm_pj_child(&c->doc[0], d, i));
        put_ints(&c->out[2], &c->doc[2], tlm_pj_child(&c->doc[2], s, i));
    }
    tlm_sbuf_putc(&c->out[0], ']');
    tlm_sbuf_putc(&c->out[2], ']');
    return TLM_RR_OK;
}

/* The Concrete Input of a scalar entry, with the allocation bound: an
 * integer (or a list's product) that, as an element count of 8-byte
 * elements, would exceed the tensor cap. */
static tlm_replay_reason concrete(ck *c, const tlm_pj_node *v,
                                  tlm_rp_kind kind)
{
    if (!v || v->type != TLM_PJ_STR)
        return TLM_RR_BAD_ARGS;
    tlm_rp_value val;
    tlm_replay_reason r = tlm_rp_concrete(v->str, v->slen, &c->out[3], &val);
    if (r != TLM_RR_OK)
        return r;
    int want_list = kind == TLM_RPK_SCALARLIST;
    int empty = val.kind == TLM_RPV_EMPTY;
    if (kind == TLM_RPK_NONE ? !empty
                             : empty || want_list != (val.kind == TLM_RPV_LIST))
        return TLM_RR_TYPE_MISMATCH;
    double lim = (double)(cap_tensor(c->o) / 8);
    if ((double)val.max_abs > lim || (want_list && val.product > lim))
        return TLM_RR_SCALAR_RANGE;
    return TLM_RR_OK;
}

/* Entry i of the four arrays. */
static tlm_replay_reason entry(ck *c, size_t i)
{
    const tlm_pj_node *d = tlm_pj_child(&c->doc[0], c->arr[0], i);
    const tlm_pj_node *t = tlm_pj_child(&c->doc[1], c->arr[1], i);
    const tlm_pj_node *s = tlm_pj_child(&c->doc[2], c->arr[2], i);
    const tlm_pj_node *v = tlm_pj_child(&c->doc[3], c->arr[3], i);
    if (t->type != TLM_PJ_STR)
        return TLM_RR_BAD_ARGS;
    const tlm_rp_type *ty = tlm_rp_type_find(t->str, t->slen);
    if (!ty)
        return TLM_RR_UNKNOWN_TYPE;
    for (int k = 0; k < 4; k++)
        tlm_sbuf_puts(&c->out[k], i ? "," : "");
    tlm_rp_json_str(&c->out[1], ty->name);
    tlm_replay_reason r = TLM_RR_OK;
    if (ty->kind == TLM_RPK_TENSOR || ty->kind == TLM_RPK_TENSORLIST) {
        if (!v || v->type != TLM_PJ_STR)
            return TLM_RR_BAD_ARGS;
        if (v->slen)
            return TLM_RR_TYPE_MISMATCH;
        tlm_sbuf_puts(&c->out[3], "null");
        if (ty->kind == TLM_RPK_TENSORLIST)
            return tensor_list(c, d, s);
        uint64_t b;
        r = tensor(c, &c->doc[0], d, &c->doc[2], s, ty->elsize, &b);
        if (r == TLM_RR_OK) {
            put_ints(&c->out[0], &c->doc[0], d);
            put_ints(&c->out[2], &c->doc[2], s);
        }
        return r;
    }
    if (!is_empty_arr(d) || !is_empty_arr(s))
        return TLM_RR_TYPE_MISMATCH;
    tlm_sbuf_puts(&c->out[0], "[]");
    tlm_sbuf_puts(&c->out[2], "[]");
    return concrete(c, v, ty->kind);
}

/* Parses the four texts: TLM_RR_OK, or missing / bad args, mismatch. */
static tlm_replay_reason parse4(ck *c, const char *const text[4],
                                tlm_status *st)
{
    for (int k = 0; k < 4; k++)
        if (!text[k])
            return TLM_RR_MISSING_ARGS;
    for (int k = 0; k < 4; k++) {
        size_t off;
        const char *what;
        tlm_status ps = tlm_pj_parse(text[k], strlen(text[k]), 8,
                                     &c->doc[k], &off, &what);
        if (ps == TLM_ENOMEM)
            *st = ps;
        if (ps != TLM_OK)
            return TLM_RR_BAD_ARGS;
        c->arr[k] = tlm_pj_node_at(&c->doc[k], c->doc[k].root);
        if (!c->arr[k] || c->arr[k]->type != TLM_PJ_ARR)
            return TLM_RR_BAD_ARGS;
    }
    size_t n = c->arr[1]->count;
    for (int k = 0; k < 4; k++)
        if (c->arr[k]->count != n)
            return TLM_RR_LENGTH_MISMATCH;
    c->list_elsize = TLM_RP_LIST_ELSIZE;
    for (size_t i = 0; i < n && i < TLM_RP_MAX_ARGS; i++) {
        const tlm_pj_node *t = tlm_pj_child(&c->doc[1], c->arr[1], i);
        const tlm_rp_type *ty =
            t->type == TLM_PJ_STR ? tlm_rp_type_find(t->str, t->slen) : NULL;
        if (ty && ty->kind == TLM_RPK_TENSOR) {
            c->list_elsize = ty->elsize;
            break;
        }
    }
    return n > TLM_RP_MAX_ARGS ? TLM_RR_TOO_MANY_ARGS : TLM_RR_OK;
}

static tlm_status finish_json(ck *c, tlm_replay_op *op)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_putc(&b, '{');
    for (int k = 0; k < 4; k++) {
        tlm_sbuf_printf(&b, "%s\"%s\":[", k ? "," : "", keys[k]);
        tlm_sbuf_putn(&b, c->out[k].p ? c->out[k].p : "", c->out[k].len);
        tlm_sbuf_putc(&b, ']');
    }
    tlm_sbuf_putc(&b, '}');
    if (b.oom || c->out[0].oom || c->out[1].oom || c->out[2].oom ||
        c->out[3].oom) {
        tlm_sbuf_free(&b);
        return TLM_ENOMEM;
    }
    op->args_json = b.p;
    return TLM_OK;
}

/* The arrays: the op's reason (TLM_RR_OK when all entries passed). */
static tlm_replay_reason check_args(ck *c, const char *const text[4],
                                    tlm_replay_op *op, tlm_status *st)
{
    tlm_replay_reason r = parse4(c, text, st);
    for (size_t i = 0; r == TLM_RR_OK && i < c->arr[1]->count; i++) {
        c->arg = (int)i;
        r = entry(c, i);
    }
    op->bytes = c->bytes;
    if (r == TLM_RR_OK && *st == TLM_OK)
        *st = finish_json(c, op);
    return r;
}

void tlm_replay_op_clear(tlm_replay_op *op)
{
    if (!op)
        return;
    free(op->name);
    free(op->args_json);
    memset(op, 0, sizeof *op);
}

tlm_status tlm_replay_check(const char *name, size_t name_len,
                            const char *dims, const char *types,
                            const char *strides, const char *concrete_in,
                            const tlm_replay_opts *o, tlm_replay_op *op,
                            tlm_error *err)
{
    memset(op, 0, sizeof *op);
    op->reason_arg = -1;
    op->count = 1;
    op->kernel_us_mean = NAN;
    if (!name)
        name = "";
    tlm_replay_reason rn = tlm_rp_check_name(name, name_len,
                                             o ? o->namespaces : NULL);
    op->name = tlm_rp_printable(name, name_len, rn == TLM_RR_BAD_OP_NAME
                                                    ? TLM_RP_MAX_NAME
                                                    : name_len);
    if (!op->name)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    ck c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.arg = -1;
    for (int k = 0; k < 4; k++)
        tlm_sbuf_init(&c.out[k]);
    const char *text[4] = {dims, types, strides, concrete_in};
    tlm_status st = TLM_OK;
    tlm_replay_reason ra = check_args(&c, text, op, &st);
    op->status = rn != TLM_RR_OK ? rn : ra;
    if (rn == TLM_RR_OK && ra != TLM_RR_OK)
        op->reason_arg = c.arg;
    if (ra != TLM_RR_OK) {
        free(op->args_json);
        op->args_json = NULL;
    }
    for (int k = 0; k < 4; k++) {
        tlm_pj_free(&c.doc[k]);
        tlm_sbuf_free(&c.out[k]);
    }
    if (st != TLM_OK) {
        tlm_replay_op_clear(op);
        return tlm_error_set(err, st, NULL, -1, "out of memory");
    }
    return TLM_OK;
}

const char *tlm_replay_reason_code(tlm_replay_reason r)
{
    static const char *const codes[] = {
#define TLM_X_(e, code, desc) code,
        TLM_REPLAY_REASONS(TLM_X_)
#undef TLM_X_
    };
    return (unsigned)r < TLM_RR_COUNT ? codes[r] : NULL;
}

const char *tlm_replay_reason_desc(tlm_replay_reason r)
{
    static const char *const descs[] = {
#define TLM_X_(e, code, desc) desc,
        TLM_REPLAY_REASONS(TLM_X_)
#undef TLM_X_
    };
    return (unsigned)r < TLM_RR_COUNT ? descs[r] : NULL;
}
