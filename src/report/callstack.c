/*
 * callstack.c - call_stack_full and entry_point of unified_perf_summary
 * with --include_call_stack ([perfreport] §4.7; callstack.h).
 *
 * A row's stacks are built once per summary row from its kernels: the
 * parent chain of each kernel, filtered and cleaned into one text arena,
 * deduplicated by hash (a graph launch has thousands of kernels whose
 * stacks differ only in the kernel name), merged, and searched for the
 * entry point.  No recursion; memory is the row's frames.
 */
#include "callstack.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pyrepr.h"
#include "report_internal.h"

/* MARK: - pure parts ------------------------------------------------------ */

size_t tlm_cs_strip(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '_' && i + 1 < n && isdigit((unsigned char)s[i + 1])) {
            i++;
            while (i < n && isdigit((unsigned char)s[i]))
                i++;
            continue;
        }
        out[o++] = s[i++];
    }
    return o;
}

static int has(const char *s, size_t n, const char *pat)
{
    size_t m = strlen(pat);
    for (size_t i = 0; m <= n && i + m <= n; i++)
        if (memcmp(s + i, pat, m) == 0)
            return 1;
    return 0;
}

/* Start of the function name in a "path.py(line): func" frame (after the
 * last "): "), or NULL. */
static const char *func_of(const char *s, size_t n, size_t *fn)
{
    const char *f = NULL;
    for (size_t i = 0; i + 3 <= n; i++)
        if (s[i] == ')' && s[i + 1] == ':' && s[i + 2] == ' ')
            f = s + i + 3;
    if (f)
        *fn = n - (size_t)(f - s);
    return f;
}

int tlm_cs_is_wrapper(const char *f, size_t n)
{
    static const char *const prefix[] = {"<built-in", "pybind11_builtins",
                                         "nn.Module:"};
    /* torch's dispatch layers, by file */
    static const char *const file[] = {
        "torch/_ops.py",          "torch/nn/modules/module.py",
        "torch/utils/_contextlib.py", "torch/utils/_device.py",
        "torch/_tensor.py",       "torch/functional.py",
        "torch/overrides.py",     "torch/_inductor/",
        "torch/_functorch/",      "torch/distributed/c10d_logger.py",
        "triton/backends/"};
    /* decorators and dispatch helpers, by function name */
    static const char *const func[] = {
        "__torch_function__", "_call_impl",     "_wrapped_call_impl",
        "decorate_context",   "dispatch_wrapper", "handle_torch_function",
        "wrapper",            "custom_wrapper", "wrapper_custom",
        "outer_wrapper"};
    for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++) {
        size_t m = strlen(prefix[i]);
        if (n >= m && memcmp(f, prefix[i], m) == 0)
            return 1;
    }
    for (size_t i = 0; i < sizeof file / sizeof *file; i++)
        if (has(f, n, file[i]))
            return 1;
    size_t fn;
    const char *fun = func_of(f, n, &fn);
    for (size_t i = 0; fun && i < sizeof func / sizeof *func; i++)
        if (strlen(func[i]) == fn && memcmp(fun, func[i], fn) == 0)
            return 1;
    return 0;
}

static int same(const tlm_csf *a, const char *s, size_t n)
{
    return a->n == n && memcmp(a->s, s, n) == 0;
}

/* 1 when the lowered text h[0..hn) holds the lowered needle. */
static int has_nocase(const char *h, size_t hn, const char *nd, size_t nn)
{
    for (size_t i = 0; nn <= hn && i + nn <= hn; i++) {
        size_t j = 0;
        while (j < nn && tolower((unsigned char)h[i + j]) ==
                             tolower((unsigned char)nd[j]))
            j++;
        if (j == nn)
            return 1;
    }
    return 0;
}

static long find_op(const tlm_csf *fr, size_t n, const char *op, size_t opn)
{
    for (size_t i = n; i-- > 0;)
        if (same(&fr[i], op, opn))
            return (long)i;
    /* a trailing "_<digits>" was removed from the frames */
    size_t m = opn;
    while (m > 0 && isdigit((unsigned char)op[m - 1]))
        m--;
    if (m == opn || m == 0 || op[m - 1] != '_')
        return -1;
    for (size_t i = n; i-- > 0;)
        if (same(&fr[i], op, m - 1))
            return (long)i;
    return -1;
}

long tlm_cs_entry(const tlm_csf *fr, size_t n, const char *op, size_t opn)
{
    long at = find_op(fr, n, op, opn);
    if (at < 0)
        return -1;
    /* the local name: after the last "::" */
    const char *loc = op;
    size_t ln = opn;
    for (size_t i = 0; i + 2 <= opn; i++)
        if (op[i] == ':' && op[i + 1] == ':') {
            loc = op + i + 2;
            ln = opn - i - 2;
        }
    for (size_t i = (size_t)at + 1; i < n; i++) {
        if (!has(fr[i].s, fr[i].n, ".py"))
            continue;
        size_t fn = fr[i].n;
        const char *fun = func_of(fr[i].s, fr[i].n, &fn);
        if (!fun)
            fun = fr[i].s;
        if (has_nocase(fun, fn, loc, ln))
            return (long)i;
    }
    for (long i = at - 1; i >= 0; i--)
        if (has(fr[i].s, fr[i].n, ".py") &&
            !tlm_cs_is_wrapper(fr[i].s, fr[i].n))
            return i;
    return -1;
}

static void put_list(tlm_sbuf *out, const tlm_csf *f, size_t n)
{
    tlm_sbuf_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            tlm_sbuf_puts(out, ", ");
        tlm_sbuf_pystr(out, f[i].s, f[i].n);
    }
    tlm_sbuf_putc(out, ']');
}

void tlm_cs_merge(const tlm_csf *fr, const size_t *off, const size_t *len,
                  size_t k, tlm_sbuf *out, tlm_csf *flat, size_t *nflat)
{
    *nflat = 0;
    if (k == 0) {
        tlm_sbuf_puts(out, "[]");
        return;
    }
    /* common prefix of every stack */
    size_t p = len[0];
    for (size_t i = 1; i < k; i++) {
        size_t q = 0;
        while (q < p && q < len[i] &&
               same(&fr[off[0] + q], fr[off[i] + q].s, fr[off[i] + q].n))
            q++;
        p = q;
    }
    if (k == 1) {
        put_list(out, fr + off[0], len[0]);
        memcpy(flat, fr + off[0], len[0] * sizeof *flat);
        *nflat = len[0];
        return;
    }
    tlm_sbuf_putc(out, '[');
    for (size_t q = 0; q < p; q++) {
        if (q)
            tlm_sbuf_puts(out, ", ");
        tlm_sbuf_pystr(out, fr[off[0] + q].s, fr[off[0] + q].n);
        flat[(*nflat)++] = fr[off[0] + q];
    }
    for (size_t i = 0; i < k; i++) {
        if (p || i)
            tlm_sbuf_puts(out, ", ");
        put_list(out, fr + off[i] + p, len[i] - p);
        memcpy(flat + *nflat, fr + off[i] + p, (len[i] - p) * sizeof *flat);
        *nflat += len[i] - p;
    }
    tlm_sbuf_putc(out, ']');
}

/* MARK: - from the tree --------------------------------------------------- */

struct tlm_cstack {
    tlm_sbuf text;           /* cleaned frame texts */
    size_t *foff, *fn;       /* frames: offsets into text, lengths */
    size_t nf, capf;
    size_t *soff, *slen;     /* distinct stacks: first frame, count */
    uint64_t *shash;
    size_t ns, caps;
    int32_t *up;             /* a kernel's ancestors */
    size_t capu;
    tlm_csf *fr, *flat;      /* frames as pairs, the merge's flat list */
    size_t capfr;
    tlm_sbuf full, entry;
};

tlm_cstack *tlm_cstack_new(void)
{
    tlm_cstack *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    tlm_sbuf_init(&cs->text);
    tlm_sbuf_init(&cs->full);
    tlm_sbuf_init(&cs->entry);
    return cs;
}

void tlm_cstack_free(tlm_cstack *cs)
{
    if (!cs)
        return;
    tlm_sbuf_free(&cs->text);
    tlm_sbuf_free(&cs->full);
    tlm_sbuf_free(&cs->entry);
    free(cs->foff);
    free(cs->fn);
    free(cs->soff);
    free(cs->slen);
    free(cs->shash);
    free(cs->up);
    free(cs->fr);
    free(cs->flat);
    free(cs);
}

static int push_frame(tlm_cstack *cs, const char *s, size_t n)
{
    size_t c = cs->capf;
    if (tlm_grow((void **)&cs->foff, &c, cs->nf + 1, sizeof *cs->foff,
                 16) ||
        tlm_grow((void **)&cs->fn, &cs->capf, cs->nf + 1, sizeof *cs->fn,
                 16))
        return -1;
    if (tlm_sbuf_reserve(&cs->text, n) != 0)
        return -1;
    size_t o = cs->text.len;
    size_t m = tlm_cs_strip(s, n, cs->text.p + o);
    cs->text.len += m;
    cs->text.p[cs->text.len] = '\0';
    cs->foff[cs->nf] = o;
    cs->fn[cs->nf++] = m;
    return 0;
}

/* Which ancestors are frames: every cpu_op, and names naming an
 * nn.Module, a C++ scope ("::") or a path ("/"). */
static int is_frame(unsigned cat, const char *s, size_t n)
{
    return cat == TLM_CAT_CPU_OP || has(s, n, "nn.Module") ||
           has(s, n, "::") || has(s, n, "/");
}

/* Ancestor names are cut at 256 bytes + ".." (TraceLens's stacks). */
enum { CS_NAME_MAX = 256 };

/* Frames of kernel g, root first.  0 or -1 (ENOMEM). */
static int stack_of(tlm_cstack *cs, const tlm_rctx *ctx, int32_t g)
{
    const tlm_tree *t = ctx->tree;
    size_t nu = 0;
    for (int32_t a = tlm_nd(t, g)->parent; a >= 0 && nu < 100000;
         a = tlm_nd(t, a)->parent) {
        if (tlm_grow((void **)&cs->up, &cs->capu, nu + 1, sizeof *cs->up, 16))
            return -1;
        cs->up[nu++] = a;
    }
    char cut[CS_NAME_MAX + 2];
    while (nu-- > 0) {
        int32_t a = cs->up[nu];
        const char *s = tlm_rctx_name(ctx, a);
        size_t n = strlen(s);
        if (!is_frame(tlm_nd(t, a)->cat, s, n))
            continue;
        if (n > CS_NAME_MAX) {
            memcpy(cut, s, CS_NAME_MAX);
            memcpy(cut + CS_NAME_MAX, "..", 2);
            s = cut;
            n = CS_NAME_MAX + 2;
        }
        if (push_frame(cs, s, n))
            return -1;
    }
    const char *k = tlm_rctx_name(ctx, g);
    return push_frame(cs, k, strlen(k));
}

static uint64_t hash_frames(const tlm_cstack *cs, size_t f0, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = f0; i < f0 + n; i++) {
        h ^= tlm_hash64(cs->text.p + cs->foff[i], cs->fn[i]);
        h *= 1099511628211ull;
    }
    return h;
}

static int equal_frames(const tlm_cstack *cs, size_t a, size_t b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cs->fn[a + i] != cs->fn[b + i] ||
            memcmp(cs->text.p + cs->foff[a + i],
                   cs->text.p + cs->foff[b + i], cs->fn[a + i]) != 0)
            return 0;
    return 1;
}

/* Adds the stack that starts at frame f0 unless an equal one is there
 * (then its frames are dropped).  0 or -1. */
static int add_stack(tlm_cstack *cs, size_t f0)
{
    size_t n = cs->nf - f0;
    uint64_t h = hash_frames(cs, f0, n);
    for (size_t i = 0; i < cs->ns; i++)
        if (cs->shash[i] == h && cs->slen[i] == n &&
            equal_frames(cs, cs->soff[i], f0, n)) {
            cs->text.len = cs->foff[f0]; /* frames are appended in order */
            cs->nf = f0;
            return 0;
        }
    size_t c1 = cs->caps, c2 = cs->caps;
    if (tlm_grow((void **)&cs->soff, &c1, cs->ns + 1, sizeof *cs->soff,
                 16) ||
        tlm_grow((void **)&cs->slen, &c2, cs->ns + 1, sizeof *cs->slen,
                 16) ||
        tlm_grow((void **)&cs->shash, &cs->caps, cs->ns + 1,
                 sizeof *cs->shash, 16))
        return -1;
    cs->soff[cs->ns] = f0;
    cs->slen[cs->ns] = n;
    cs->shash[cs->ns++] = h;
    return 0;
}

tlm_status tlm_cstack_row(tlm_cstack *cs, const tlm_rctx *ctx,
                          const int32_t *k, size_t n, const char *op,
                          size_t opn)
{
    tlm_sbuf_reset(&cs->text);
    tlm_sbuf_reset(&cs->full);
    tlm_sbuf_reset(&cs->entry);
    cs->nf = cs->ns = 0;
    for (size_t i = 0; i < n; i++) {
        size_t f0 = cs->nf;
        if (stack_of(cs, ctx, k[i]) || add_stack(cs, f0))
            return TLM_ENOMEM;
    }
    size_t c = cs->capfr;
    if (tlm_grow((void **)&cs->fr, &c, cs->nf + 1, sizeof *cs->fr, 16) ||
        tlm_grow((void **)&cs->flat, &cs->capfr, cs->nf + 1,
                 sizeof *cs->flat, 16))
        return TLM_ENOMEM;
    for (size_t i = 0; i < cs->nf; i++) {
        cs->fr[i].s = cs->text.p + cs->foff[i];
        cs->fr[i].n = cs->fn[i];
    }
    size_t nflat;
    tlm_cs_merge(cs->fr, cs->soff, cs->slen, cs->ns, &cs->full, cs->flat,
                 &nflat);
    long e = tlm_cs_entry(cs->flat, nflat, op, opn);
    if (e >= 0)
        tlm_sbuf_putn(&cs->entry, cs->flat[e].s, cs->flat[e].n);
    else
        tlm_sbuf_puts(&cs->entry, "Not found");
    return cs->text.oom || cs->full.oom || cs->entry.oom ? TLM_ENOMEM
                                                          : TLM_OK;
}

const tlm_sbuf *tlm_cstack_full(const tlm_cstack *cs)
{
    return &cs->full;
}

const tlm_sbuf *tlm_cstack_entry_point(const tlm_cstack *cs)
{
    return &cs->entry;
}
