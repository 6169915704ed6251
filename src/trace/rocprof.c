/*
 * rocprof.c - the rocprofv3 JSON reader (tlm_rocprof.h).
 *
 * A recursive descent over the pull lexer (rp_lex.c): the top object, the
 * first tool record, and inside it the four sections kept (metadata,
 * agents, kernel_symbols, buffer_records); everything else is skipped a
 * token at a time, never held.  Records become fixed-size structs in
 * growable arrays; names are interned.  Kernel names are joined to
 * dispatches after the read (kernel_symbols may come after the records).
 *
 * Every value parser starts on the value's first token and leaves its
 * last token current.  Errors name the offset and the path being read,
 * e.g. "buffer_records.kernel_dispatch[12].dispatch_info.kernel_id:
 * expected an integer, got a string".
 */
#include "tlmpi/tlm_rocprof.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "rp_lex.h"
#include "rp_rec.h"

typedef struct rp_sym {
    int64_t kernel_id;
    uint32_t name;
    uint32_t pad_;
} rp_sym;

struct tlm_rocprof {
    const tlm_alloc *a;
    tlm_intern strs;
    tlm_rp_kernel *k;
    size_t nk, capk;
    tlm_rp_copy *c;
    size_t nc, capc;
    tlm_rp_api *api;
    size_t napi, capapi;
    tlm_rp_agent *ag;
    size_t nag, capag;
    rp_sym *sym;
    size_t nsym, capsym;
    tlm_rp_meta meta;
};

typedef struct rp {
    rp_lex lx;
    tlm_rocprof *r;
    unsigned max_depth;
    unsigned depth;
    const char *section; /* e.g. "buffer_records.kernel_dispatch" */
    int64_t index;       /* element of section, -1 none */
    const char *field;   /* field inside, NULL none */
    int has_buffers;
    rp_keys keys;
    unsigned char pred[RP_SITES * RP_FKEY_N]; /* rp_fast.pred */
} rp;

static int key_id(const rp *p, const char *s, size_t n)
{
    return rp_key_id(&p->keys, s, n);
}

/* ------------------------------------------------------------------ *
 * MARK: - errors and small helpers
 * ------------------------------------------------------------------ */

static tlm_status failf(rp *p, tlm_status code, const char *what)
{
    char where[160] = "";
    if (p->section && p->index >= 0)
        snprintf(where, sizeof where, "%s[%" PRId64 "]%s%s: ", p->section,
                 p->index, p->field ? "." : "", p->field ? p->field : "");
    else if (p->section)
        snprintf(where, sizeof where, "%s%s%s: ", p->section,
                 p->field ? "." : "", p->field ? p->field : "");
    return tlm_error_set(p->lx.err, code, p->lx.name, (int64_t)p->lx.off,
                         "%s%s", where, what);
}

static tlm_status bad_type(rp *p, const char *want)
{
    char m[96];
    snprintf(m, sizeof m, "expected %s, got %s", want,
             rp_tok_name(p->lx.tok));
    return failf(p, TLM_ESCHEMA, m);
}

RP_INLINE tlm_status next(rp *p)
{
    return rp_next(&p->lx);
}

static tlm_status skip_deep(rp *p)
{
    return rp_skip(&p->lx, p->max_depth > p->depth ? p->max_depth - p->depth
                                                   : 1);
}

/* A scalar is skipped already (its one token is current). */
RP_INLINE tlm_status skip(rp *p)
{
    int t = p->lx.tok;
    if (t == RP_STR || t == RP_INT || t == RP_NUM || t == RP_TRUE ||
        t == RP_FALSE || t == RP_NULL)
        return TLM_OK;
    return skip_deep(p);
}

/* Grows a record array through the reader's allocator. */
static tlm_status grow(tlm_rocprof *r, void **v, size_t *cap, size_t need,
                       size_t el)
{
    return tlm_grow_al(r->a, v, cap, need, el, 64);
}

static tlm_status nomem(rp *p)
{
    return failf(p, TLM_ENOMEM, "out of memory");
}

/* Current token: an integer. */
static tlm_status get_int(rp *p, int64_t *v)
{
    if (p->lx.tok != RP_INT)
        return bad_type(p, "an integer");
    *v = p->lx.ival;
    return TLM_OK;
}

/* Current token: a string, interned into *id. */
static tlm_status get_str(rp *p, uint32_t *id)
{
    if (p->lx.tok != RP_STR)
        return bad_type(p, "a string");
    uint32_t x = tlm_intern_add(&p->r->strs, p->lx.s, p->lx.slen);
    if (x == UINT32_MAX)
        return nomem(p);
    *id = x;
    return TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - objects and arrays
 * ------------------------------------------------------------------ */

typedef tlm_status (*member_fn)(rp *p, int key, void *ud);
typedef tlm_status (*elem_fn)(rp *p, int64_t i, void *ud);

/* Current token '{': calls fn per member with the value's first token
 * current; ends on the '}'. */
static tlm_status obj_each(rp *p, member_fn fn, void *ud)
{
    tlm_status st;
    if (p->lx.tok != RP_LBRACE)
        return bad_type(p, "an object");
    if (++p->depth > p->max_depth)
        return failf(p, TLM_ELIMIT, "JSON nested too deeply");
    if ((st = next(p)) != TLM_OK)
        return st;
    if (p->lx.tok == RP_RBRACE) {
        p->depth--;
        return TLM_OK;
    }
    for (;;) {
        if (p->lx.tok != RP_STR)
            return failf(p, TLM_EFORMAT, "expected a key");
        int key = key_id(p, p->lx.s, p->lx.slen);
        if ((st = rp_punct(&p->lx)) != TLM_OK)
            return st;
        if (p->lx.tok != RP_COLON)
            return failf(p, TLM_EFORMAT, "expected ':'");
        if ((st = next(p)) != TLM_OK)
            return st;
        if ((st = fn(p, key, ud)) != TLM_OK)
            return st;
        if ((st = rp_punct(&p->lx)) != TLM_OK)
            return st;
        if (p->lx.tok == RP_RBRACE)
            break;
        if (p->lx.tok != RP_COMMA)
            return failf(p, TLM_EFORMAT, "expected ',' or '}'");
        if ((st = next(p)) != TLM_OK)
            return st;
    }
    p->depth--;
    return TLM_OK;
}

/* Current token '[': calls fn per element (first token current); ends on
 * the ']'. */
static tlm_status arr_each(rp *p, elem_fn fn, void *ud)
{
    tlm_status st;
    if (p->lx.tok != RP_LBRACK)
        return bad_type(p, "an array");
    if (++p->depth > p->max_depth)
        return failf(p, TLM_ELIMIT, "JSON nested too deeply");
    if ((st = next(p)) != TLM_OK)
        return st;
    if (p->lx.tok == RP_RBRACK) {
        p->depth--;
        return TLM_OK;
    }
    for (int64_t i = 0;; i++) {
        if ((st = fn(p, i, ud)) != TLM_OK)
            return st;
        if ((st = rp_punct(&p->lx)) != TLM_OK)
            return st;
        if (p->lx.tok == RP_RBRACK)
            break;
        if (p->lx.tok != RP_COMMA)
            return failf(p, TLM_EFORMAT, "expected ',' or ']'");
        if ((st = next(p)) != TLM_OK)
            return st;
    }
    p->depth--;
    return TLM_OK;
}

/* {"handle": N} (other keys skipped), or a bare integer. */
static tlm_status handle_member(rp *p, int key, void *ud)
{
    if (key != K_HANDLE)
        return skip(p);
    return get_int(p, ud);
}

static tlm_status get_handle(rp *p, int64_t *v)
{
    if (p->lx.tok == RP_INT)
        return get_int(p, v);
    return obj_each(p, handle_member, v);
}

/* {"x": .., "y": .., "z": ..} */
static tlm_status dim_member(rp *p, int key, void *ud)
{
    int64_t *v = ud;
    if (key >= K_X && key <= K_Z)
        return get_int(p, &v[key - K_X]);
    return skip(p);
}

/* correlation_id: {"internal": N, "external": ...} or an integer. */
static tlm_status corr_member(rp *p, int key, void *ud)
{
    if (key != K_INTERNAL)
        return skip(p);
    return get_int(p, ud);
}

static tlm_status get_corr(rp *p, int64_t *v)
{
    if (p->lx.tok == RP_INT)
        return get_int(p, v);
    return obj_each(p, corr_member, v);
}

/* ------------------------------------------------------------------ *
 * MARK: - buffer records
 * ------------------------------------------------------------------ */

typedef rp_timed timed;
typedef rp_kd kd;
typedef rp_mc mc;

/* The current token is a record's '{': reads it with the fast path
 * (rp_fast.c) when it lies in the window, leaving its '}' current as
 * obj_each does.  0: not read, rec untouched or to be started again. */
static int fast_rec(rp *p, int kind, void *rec)
{
    rp_lex *lx = &p->lx;
    /* the known keys must be within max_string (the token path's bound)
     * and the nested objects within max_depth */
    if (lx->tok != RP_LBRACE || p->depth + 3 > p->max_depth ||
        lx->max_str < RP_FKEY_MAX)
        return 0;
    rp_fast f = {lx->buf + lx->end, lx->attn, &p->keys, p->pred,
                 lx->max_str, p->max_depth};
    const unsigned char *s = lx->buf + lx->pos, *q;
    unsigned level = p->depth + 1;
    q = kind == 0   ? rp_fast_kd(&f, s, level, rec)
        : kind == 1 ? rp_fast_mc(&f, s, level, rec)
                    : rp_fast_api(&f, s, level, rec);
    if (!q)
        return 0;
    lx->tok = RP_RBRACE;
    lx->pos = (size_t)(q - lx->buf);
    lx->off = lx->base + (size_t)(q - 1 - lx->buf);
    p->r->meta.n_fast++;
    return 1;
}

/* The members a timed record shares; 1 when key was one of them. */
static int timed_member(rp *p, int key, timed *t, tlm_status *st)
{
    const char *f = p->field;
    if (key == K_START_TIMESTAMP) {
        p->field = "start_timestamp";
        *st = get_int(p, &t->start);
        t->seen |= 1;
    } else if (key == K_END_TIMESTAMP) {
        p->field = "end_timestamp";
        *st = get_int(p, &t->end);
        t->seen |= 2;
    } else if (key == K_THREAD_ID) {
        p->field = "thread_id";
        *st = get_int(p, &t->thread_id);
    } else if (key == K_CORRELATION_ID) {
        p->field = "correlation_id";
        *st = get_corr(p, &t->corr);
    } else if (key == K_OPERATION) {
        p->field = "operation";
        *st = get_int(p, &t->operation);
    } else if (key == K_STREAM_ID) {
        p->field = "stream_id";
        *st = get_handle(p, &t->stream);
    } else {
        return 0;
    }
    if (*st == TLM_OK)
        p->field = f;
    return 1;
}

/* After a record's '}': both times present, end not before start. */
static tlm_status timed_check(rp *p, const timed *t)
{
    p->field = NULL;
    if (!(t->seen & 1))
        return failf(p, TLM_ESCHEMA, "no start_timestamp (required)");
    if (!(t->seen & 2))
        return failf(p, TLM_ESCHEMA, "no end_timestamp (required)");
    if (t->end < t->start)
        return failf(p, TLM_ESCHEMA, "end_timestamp before start_timestamp");
    return TLM_OK;
}


static tlm_status dinfo_member(rp *p, int key, void *ud)
{
    kd *d = ud;
    tlm_status st;
    const char *f = p->field;
    if (key == K_KERNEL_ID) {
        p->field = "dispatch_info.kernel_id";
        d->has_kid = 1;
        st = get_int(p, &d->k.kernel_id);
    } else if (key == K_DISPATCH_ID) {
        p->field = "dispatch_info.dispatch_id";
        st = get_int(p, &d->k.dispatch_id);
    } else if (key == K_AGENT_ID) {
        p->field = "dispatch_info.agent_id";
        st = get_handle(p, &d->k.agent);
    } else if (key == K_QUEUE_ID) {
        p->field = "dispatch_info.queue_id";
        st = get_handle(p, &d->k.queue);
    } else if (key == K_GRID_SIZE) {
        p->field = "dispatch_info.grid_size";
        st = obj_each(p, dim_member, d->k.grid);
    } else if (key == K_WORKGROUP_SIZE) {
        p->field = "dispatch_info.workgroup_size";
        st = obj_each(p, dim_member, d->k.block);
    } else {
        return skip(p);
    }
    if (st == TLM_OK)
        p->field = f;
    return st;
}

static tlm_status kd_member(rp *p, int key, void *ud)
{
    kd *d = ud;
    tlm_status st = TLM_OK;
    if (timed_member(p, key, &d->t, &st))
        return st;
    if (key == K_DISPATCH_INFO) {
        p->field = "dispatch_info";
        st = obj_each(p, dinfo_member, d);
        if (st == TLM_OK)
            p->field = NULL;
        return st;
    }
    return skip(p);
}

static tlm_status kd_elem(rp *p, int64_t i, void *ud)
{
    tlm_rocprof *r = p->r;
    (void)ud;
    p->index = i;
    p->field = NULL;
    kd d;
    rp_kd_init(&d);
    tlm_status st = TLM_OK;
    if (!fast_rec(p, 0, &d)) {
        rp_kd_init(&d);
        st = obj_each(p, kd_member, &d);
    }
    if (st == TLM_OK)
        st = timed_check(p, &d.t);
    if (st == TLM_OK && !d.has_kid)
        st = failf(p, TLM_ESCHEMA, "no dispatch_info.kernel_id (required)");
    if (st != TLM_OK)
        return st;
    if (grow(r, (void **)&r->k, &r->capk, r->nk + 1, sizeof *r->k))
        return nomem(p);
    d.k.start = d.t.start;
    d.k.end = d.t.end;
    d.k.stream = d.t.stream;
    d.k.thread_id = d.t.thread_id;
    d.k.corr = d.t.corr;
    r->k[r->nk++] = d.k;
    return TLM_OK;
}


static tlm_status mc_member(rp *p, int key, void *ud)
{
    mc *m = ud;
    tlm_status st = TLM_OK;
    if (timed_member(p, key, &m->t, &st))
        return st;
    const char *f = p->field;
    if (key == K_BYTES) {
        p->field = "bytes";
        st = get_int(p, &m->c.bytes);
    } else if (key == K_SRC_AGENT_ID) {
        p->field = "src_agent_id";
        st = get_handle(p, &m->c.src_agent);
    } else if (key == K_DST_AGENT_ID) {
        p->field = "dst_agent_id";
        st = get_handle(p, &m->c.dst_agent);
    } else {
        return skip(p);
    }
    if (st == TLM_OK)
        p->field = f;
    return st;
}

static tlm_status mc_elem(rp *p, int64_t i, void *ud)
{
    tlm_rocprof *r = p->r;
    (void)ud;
    p->index = i;
    p->field = NULL;
    mc m;
    rp_mc_init(&m);
    tlm_status st = TLM_OK;
    if (!fast_rec(p, 1, &m)) {
        rp_mc_init(&m);
        st = obj_each(p, mc_member, &m);
    }
    if (st == TLM_OK)
        st = timed_check(p, &m.t);
    if (st != TLM_OK)
        return st;
    if (grow(r, (void **)&r->c, &r->capc, r->nc + 1, sizeof *r->c))
        return nomem(p);
    m.c.start = m.t.start;
    m.c.end = m.t.end;
    m.c.stream = m.t.stream;
    m.c.thread_id = m.t.thread_id;
    m.c.corr = m.t.corr;
    m.c.operation = m.t.operation;
    r->c[r->nc++] = m.c;
    return TLM_OK;
}

static tlm_status api_member(rp *p, int key, void *ud)
{
    tlm_status st = TLM_OK;
    if (timed_member(p, key, ud, &st))
        return st;
    return skip(p);
}

static tlm_status api_elem(rp *p, int64_t i, void *ud)
{
    tlm_rocprof *r = p->r;
    p->index = i;
    p->field = NULL;
    timed t;
    rp_timed_init(&t);
    tlm_status st = TLM_OK;
    if (!fast_rec(p, 2, &t)) {
        rp_timed_init(&t);
        st = obj_each(p, api_member, &t);
    }
    if (st == TLM_OK)
        st = timed_check(p, &t);
    if (st != TLM_OK)
        return st;
    if (grow(r, (void **)&r->api, &r->capapi, r->napi + 1, sizeof *r->api))
        return nomem(p);
    tlm_rp_api *a = &r->api[r->napi++];
    memset(a, 0, sizeof *a);
    a->start = t.start;
    a->end = t.end;
    a->thread_id = t.thread_id;
    a->corr = t.corr;
    a->operation = t.operation;
    a->hsa = *(const int *)ud;
    return TLM_OK;
}

static tlm_status buffers_member(rp *p, int key, void *ud)
{
    static const int hip = 0, hsa = 1;
    (void)ud;
    p->index = -1;
    p->field = NULL;
    if (key == K_KERNEL_DISPATCH) {
        p->section = "buffer_records.kernel_dispatch";
        return arr_each(p, kd_elem, NULL);
    }
    if (key == K_MEMORY_COPY) {
        p->section = "buffer_records.memory_copy";
        return arr_each(p, mc_elem, NULL);
    }
    if (key == K_HIP_API) {
        p->section = "buffer_records.hip_api";
        return arr_each(p, api_elem, (void *)&hip);
    }
    if (key == K_HSA_API) {
        p->section = "buffer_records.hsa_api";
        return arr_each(p, api_elem, (void *)&hsa);
    }
    return skip(p);
}

/* ------------------------------------------------------------------ *
 * MARK: - metadata, agents, kernel symbols
 * ------------------------------------------------------------------ */

static tlm_status node_member(rp *p, int key, void *ud)
{
    if (key != K_HOSTNAME)
        return skip(p);
    p->field = "node.hostname";
    return get_str(p, ud);
}

static tlm_status meta_member(rp *p, int key, void *ud)
{
    tlm_rp_meta *m = ud;
    tlm_status st;
    if (key == K_PID) {
        p->field = "pid";
        st = get_int(p, &m->pid);
    } else if (key == K_INIT_TIME) {
        p->field = "init_time";
        st = get_int(p, &m->init_time);
        m->has_times |= 1;
    } else if (key == K_FINI_TIME) {
        p->field = "fini_time";
        st = get_int(p, &m->fini_time);
        m->has_times |= 2;
    } else if (key == K_NODE) {
        p->field = "node";
        st = obj_each(p, node_member, &m->hostname);
    } else {
        return skip(p);
    }
    return st;
}

static tlm_status agent_member(rp *p, int key, void *ud)
{
    tlm_rp_agent *a = ud;
    if (key == K_ID) {
        p->field = "id";
        return get_handle(p, &a->handle);
    }
    if (key == K_TYPE) {
        p->field = "type";
        if (p->lx.tok == RP_STR) {
            a->type = p->lx.slen == 3 && !memcmp(p->lx.s, "GPU", 3)   ? 2
                      : p->lx.slen == 3 && !memcmp(p->lx.s, "CPU", 3) ? 1
                                                                       : 0;
            return TLM_OK;
        }
        return get_int(p, &a->type);
    }
    if (key == K_NODE_ID) {
        p->field = "node_id";
        return get_int(p, &a->node_id);
    }
    if (key == K_NAME) {
        p->field = "name";
        return get_str(p, &a->name);
    }
    if (key == K_PRODUCT_NAME) {
        p->field = "product_name";
        return get_str(p, &a->product);
    }
    return skip(p);
}

static tlm_status agent_elem(rp *p, int64_t i, void *ud)
{
    tlm_rocprof *r = p->r;
    (void)ud;
    p->index = i;
    p->field = NULL;
    tlm_rp_agent a;
    memset(&a, 0, sizeof a);
    a.node_id = -1;
    tlm_status st = obj_each(p, agent_member, &a);
    if (st != TLM_OK)
        return st;
    if (grow(r, (void **)&r->ag, &r->capag, r->nag + 1, sizeof *r->ag))
        return nomem(p);
    r->ag[r->nag++] = a;
    return TLM_OK;
}

typedef struct symrd {
    int64_t kernel_id;
    uint32_t names[3]; /* truncated, formatted, kernel_name (+1: seen) */
    int has_id, has_name;
} symrd;

static tlm_status sym_member(rp *p, int key, void *ud)
{
    symrd *s = ud;
    int slot = key == K_TRUNCATED_KERNEL_NAME   ? 0
               : key == K_FORMATTED_KERNEL_NAME ? 1
               : key == K_KERNEL_NAME           ? 2
                                                       : -1;
    if (key == K_KERNEL_ID) {
        p->field = "kernel_id";
        s->has_id = 1;
        return get_int(p, &s->kernel_id);
    }
    if (slot < 0)
        return skip(p);
    p->field = rp_key_names[key];
    if (slot == 2)
        s->has_name = 1;
    return get_str(p, &s->names[slot]);
}

static tlm_status sym_elem(rp *p, int64_t i, void *ud)
{
    tlm_rocprof *r = p->r;
    (void)ud;
    p->index = i;
    p->field = NULL;
    symrd s;
    memset(&s, 0, sizeof s);
    tlm_status st = obj_each(p, sym_member, &s);
    if (st == TLM_OK && !s.has_id)
        st = failf(p, TLM_ESCHEMA, "no kernel_id (required)");
    if (st != TLM_OK)
        return st;
    if (grow(r, (void **)&r->sym, &r->capsym, r->nsym + 1, sizeof *r->sym))
        return nomem(p);
    /* TraceLens: truncated or formatted (when not empty), else
     * kernel_name, else unknown_kernel_<id> (UINT32_MAX: none) */
    uint32_t name = s.names[0] ? s.names[0]
                    : s.names[1] ? s.names[1]
                    : s.has_name ? s.names[2]
                                 : UINT32_MAX;
    r->sym[r->nsym].kernel_id = s.kernel_id;
    r->sym[r->nsym].name = name;
    r->nsym++;
    return TLM_OK;
}

static tlm_status tool_member(rp *p, int key, void *ud)
{
    (void)ud;
    p->index = -1;
    p->field = NULL;
    if (key == K_METADATA) {
        p->section = "metadata";
        return obj_each(p, meta_member, &p->r->meta);
    }
    if (key == K_AGENTS) {
        p->section = "agents";
        return arr_each(p, agent_elem, NULL);
    }
    if (key == K_KERNEL_SYMBOLS) {
        p->section = "kernel_symbols";
        return arr_each(p, sym_elem, NULL);
    }
    if (key == K_BUFFER_RECORDS) {
        p->section = "buffer_records";
        p->has_buffers = 1;
        return obj_each(p, buffers_member, NULL);
    }
    p->section = NULL;
    return skip(p);
}

/* The first tool record is read, later ones skipped (TraceLens reads
 * rocprofiler-sdk-tool[0]). */
static tlm_status tool_elem(rp *p, int64_t i, void *ud)
{
    (void)ud;
    p->r->meta.n_tools++;
    if (i > 0)
        return skip(p);
    tlm_status st = obj_each(p, tool_member, NULL);
    p->section = "rocprofiler-sdk-tool[0]";
    p->index = -1;
    p->field = NULL;
    if (st == TLM_OK && !p->has_buffers)
        st = failf(p, TLM_ESCHEMA, "no buffer_records (required: a "
                   "rocprofv3 JSON without it is not read as empty)");
    return st;
}

static tlm_status top_member(rp *p, int key, void *ud)
{
    int *seen = ud;
    if (key != K_ROCPROFILER_SDK_TOOL)
        return skip(p);
    *seen = 1;
    p->section = "rocprofiler-sdk-tool";
    if (p->lx.tok == RP_LBRACE)
        return tool_elem(p, 0, NULL);
    tlm_status st = arr_each(p, tool_elem, NULL);
    if (st == TLM_OK && p->r->meta.n_tools == 0) {
        p->section = "rocprofiler-sdk-tool";
        st = failf(p, TLM_ESCHEMA, "empty: no tool record");
    }
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - kernel names, the read
 * ------------------------------------------------------------------ */

static int sym_cmp(const void *a, const void *b)
{
    const rp_sym *x = a, *y = b;
    return (x->kernel_id > y->kernel_id) - (x->kernel_id < y->kernel_id);
}

static tlm_status join_names(rp *p)
{
    tlm_rocprof *r = p->r;
    if (r->nsym > 1)
        qsort(r->sym, r->nsym, sizeof *r->sym, sym_cmp);
    for (size_t i = 0; i < r->nk; i++) {
        tlm_rp_kernel *k = &r->k[i];
        rp_sym key = {k->kernel_id, 0, 0};
        const rp_sym *s = r->nsym ? bsearch(&key, r->sym, r->nsym,
                                            sizeof *r->sym, sym_cmp)
                                  : NULL;
        if (s && s->name != UINT32_MAX) {
            k->name = s->name;
            continue;
        }
        char b[48];
        int n = snprintf(b, sizeof b, "unknown_kernel_%" PRId64,
                         k->kernel_id);
        k->name = tlm_intern_add(&r->strs, b, (size_t)n);
        if (k->name == UINT32_MAX)
            return tlm_error_set(p->lx.err, TLM_ENOMEM, p->lx.name, -1,
                                 "out of memory");
    }
    return TLM_OK;
}

static tlm_status parse_doc(rp *p)
{
    int seen = 0;
    tlm_status st = next(p);
    if (st != TLM_OK)
        return st;
    if (p->lx.tok != RP_LBRACE)
        return failf(p, TLM_ESCHEMA, "not a rocprofv3 JSON: the document "
                     "is not an object");
    st = obj_each(p, top_member, &seen);
    if (st != TLM_OK)
        return st;
    p->section = NULL;
    if ((st = next(p)) != TLM_OK)
        return st;
    if (p->lx.tok != RP_EOF)
        return failf(p, TLM_EFORMAT, "data after the document");
    if (!seen)
        return failf(p, TLM_ESCHEMA, "not a rocprofv3 JSON: no "
                     "rocprofiler-sdk-tool");
    return join_names(p);
}

void tlm_rocprof_free(tlm_rocprof *r)
{
    if (!r)
        return;
    const tlm_alloc *a = r->a;
    tlm_intern_free(&r->strs);
    a->free_fn(a->ctx, r->k);
    a->free_fn(a->ctx, r->c);
    a->free_fn(a->ctx, r->api);
    a->free_fn(a->ctx, r->ag);
    a->free_fn(a->ctx, r->sym);
    a->free_fn(a->ctx, r);
}

static tlm_status read_any(const char *path, const void *data, size_t size,
                           const tlm_rocprof_opts *o, tlm_rocprof **out,
                           tlm_error *err)
{
    tlm_rocprof_opts d = {0};
    if (o)
        d = *o;
    const tlm_alloc *a = d.alloc ? d.alloc : tlm_alloc_default();
    *out = NULL;
    tlm_error_clear(err);
    tlm_rocprof *r = a->malloc_fn(a->ctx, sizeof *r);
    if (!r)
        return tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    memset(r, 0, sizeof *r);
    r->a = a;
    r->meta.pid = -1;
    rp p;
    memset(&p, 0, sizeof p);
    p.r = r;
    p.index = -1;
    p.max_depth = d.max_depth ? d.max_depth : 64;
    if (rp_keys_init(&p.keys) != 0) { /* a fixed table: never */
        tlm_rocprof_free(r);
        return tlm_error_set(err, TLM_EINVAL, path, -1, "key table");
    }
    tlm_status st = tlm_intern_init(&r->strs, a);
    if (st != TLM_OK) {
        a->free_fn(a->ctx, r);
        return tlm_error_set(err, st, path, -1, "out of memory");
    }
    st = rp_open(&p.lx, path, data, size, d.chunk_size,
                 d.max_string ? d.max_string : (size_t)16 << 20, a, err);
    if (st == TLM_OK)
        st = parse_doc(&p);
    r->meta.bytes_in = p.lx.in.bytes_in;
    r->meta.bytes_json = p.lx.in.bytes_out;
    r->meta.gzip = p.lx.in.gzip;
    r->meta.gzip_members = p.lx.in.members;
    rp_close(&p.lx);
    if (st != TLM_OK) {
        if (err && !err->file[0] && path)
            snprintf(err->file, sizeof err->file, "%s", path);
        tlm_rocprof_free(r);
        return st;
    }
    *out = r;
    return TLM_OK;
}

tlm_status tlm_rocprof_read_file(const char *path,
                                 const tlm_rocprof_opts *opts,
                                 tlm_rocprof **out, tlm_error *err)
{
    return read_any(path, NULL, 0, opts, out, err);
}

tlm_status tlm_rocprof_read_mem(const void *data, size_t size,
                                const char *name, const tlm_rocprof_opts *opts,
                                tlm_rocprof **out, tlm_error *err)
{
    return read_any(name ? name : "", data ? data : "", size, opts, out,
                    err);
}

/* ------------------------------------------------------------------ *
 * MARK: - accessors
 * ------------------------------------------------------------------ */

const tlm_rp_kernel *tlm_rocprof_kernels(const tlm_rocprof *r, size_t *n)
{
    *n = r->nk;
    return r->k;
}

const tlm_rp_copy *tlm_rocprof_copies(const tlm_rocprof *r, size_t *n)
{
    *n = r->nc;
    return r->c;
}

const tlm_rp_api *tlm_rocprof_apis(const tlm_rocprof *r, size_t *n)
{
    *n = r->napi;
    return r->api;
}

const tlm_rp_agent *tlm_rocprof_agents(const tlm_rocprof *r, size_t *n)
{
    *n = r->nag;
    return r->ag;
}

const tlm_rp_meta *tlm_rocprof_meta(const tlm_rocprof *r)
{
    return &r->meta;
}

const char *tlm_rocprof_str(const tlm_rocprof *r, uint32_t id, size_t *len)
{
    if (id >= r->strs.n) {
        if (len)
            *len = 0;
        return "";
    }
    if (len)
        *len = r->strs.ents[id].len;
    return r->strs.ents[id].s;
}

const char *tlm_rocprof_gpu_arch(const tlm_rocprof *r, const char **product)
{
    for (size_t i = 0; i < r->nag; i++) {
        const char *nm = tlm_rocprof_str(r, r->ag[i].name, NULL);
        if (r->ag[i].type == 2 && !strncmp(nm, "gfx", 3)) {
            if (product)
                *product = tlm_rocprof_str(r, r->ag[i].product, NULL);
            return nm;
        }
    }
    if (product)
        *product = "";
    return NULL;
}
