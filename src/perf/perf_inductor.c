/*
 * perf_inductor.c - the Inductor cache of --inductor_cache_dir (tlm_perf.h,
 * TraceLens's TritonCompiledPerfModel V1): the Python wrappers torch.compile
 * writes, read as text and never run, give each Triton kernel's fused aten
 * ops ("Original ATen: [...]" in the comment above its definition), its
 * size_hints [xnumel(, rnumel)] and the pointer dtypes of its signature.
 *
 * TraceLens's regular expressions, by hand and bounded: definitions at a
 * line start `triton_<word> = async_compile.triton(`, the kernel's source up
 * to the next `''', device_str=`, the 600 characters before it for the
 * comment.  Files are read as Python's open() does: UTF-8 (a file that is
 * not is left out), universal newlines.  A size_hints item that int() would
 * refuse leaves the whole file out, as the exception does in TraceLens.
 */
#define _GNU_SOURCE 1 /* memmem, qsort_r */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"
#include "search.h"

#define MAX_BLOCK (4u << 20)
#define FILE_BUDGET (256u << 20) /* bytes scanned per file */
#define MAX_NAME 4096

typedef struct ientry {
    uint32_t name, ops;  /* offsets in the arena (NUL-terminated) */
    uint64_t order;      /* file index << 32 | ~position: the first file
                            wins, in a file the last definition */
    double fpe, x, r;    /* Σ FLOPs per element, xnumel, rnumel */
    uint32_t nptr;       /* pointer args of a known dtype */
    uint32_t bpe0;       /* bytes per element of the first one */
} ientry;

struct tlm_inductor_cache {
    char *arena;
    size_t alen, acap;
    ientry *e;
    size_t n, cap;
    uint32_t nfile;
    tlm_inductor_stats st;
};

tlm_inductor_cache *tlm_inductor_cache_new(void)
{
    return calloc(1, sizeof(tlm_inductor_cache));
}

void tlm_inductor_cache_free(tlm_inductor_cache *c)
{
    if (!c)
        return;
    free(c->arena);
    free(c->e);
    free(c);
}

const tlm_inductor_stats *tlm_inductor_cache_stats(const tlm_inductor_cache *c)
{
    return &c->st;
}

void tlm_inductor_count(tlm_inductor_cache *c, int file, int skipped)
{
    c->st.files += (size_t)file;
    c->st.skipped += (size_t)skipped;
}

static int put_text(tlm_inductor_cache *c, const char *s, size_t n,
                    uint32_t *off)
{
    /* 32-bit offsets: the capacity (4096 doubled) stays below 4 GiB */
    if (c->alen + n + 1 > (size_t)1 << 31 ||
        tlm_grow((void **)&c->arena, &c->acap, c->alen + n + 1, 1, 4096))
        return -1;
    *off = (uint32_t)c->alen;
    memcpy(c->arena + c->alen, s, n);
    c->arena[c->alen + n] = '\0';
    c->alen += n + 1;
    return 0;
}

/* ---- small matchers ---------------------------------------------------- */

static int is_word(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_';
}

static int is_space(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
           ch == '\f' || ch == '\v';
}

/* The group of `<lit>\s*<open>([^<close>]+)<close>` at its first match in
 * [s, e): *g, *gn; 0 when there is none. */
static int find_group(const char *s, const char *e, const char *lit,
                      char open, char close, const char **g, size_t *gn)
{
    size_t ll = strlen(lit);
    const char *p = s;
    while (p < e) {
        const char *h = memmem(p, (size_t)(e - p), lit, ll);
        if (!h)
            return 0;
        const char *q = h + ll;
        while (q < e && is_space((unsigned char)*q))
            q++;
        if (q < e && *q == open) {
            const char *z = memchr(q + 1, close, (size_t)(e - q - 1));
            if (z && z > q + 1) {
                *g = q + 1;
                *gn = (size_t)(z - q - 1);
                return 1;
            }
        }
        p = h + 1;
    }
    return 0;
}

static void strip(const char **s, size_t *n)
{
    while (*n && is_space((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_space((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

/* Python's int() of an ASCII item (sign, digits, single '_' between
 * digits), below 2^63.  0 when it would raise (or overflow). */
static int py_int_text(const char *s, size_t n, double *out)
{
    strip(&s, &n);
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i >= n || s[i] < '0' || s[i] > '9')
        return 0;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] == '_' && i + 1 < n && s[i - 1] >= '0' && s[i - 1] <= '9' &&
            s[i + 1] >= '0' && s[i + 1] <= '9')
            continue;
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (v > (UINT64_C(1) << 62) / 5)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v >= (UINT64_C(1) << 63))
            return 0;
    }
    *out = neg ? -(double)v : (double)v;
    return 1;
}

/* V1's FLOPs per element (anything else 1). */
static double v1_fpe(const char *op, size_t n)
{
    static const struct {
        const char *op;
        int w;
    } t[] = {{"aten.add", 1},     {"aten.sub", 1},        {"aten.mul", 1},
             {"aten.div", 1},     {"aten.pow", 2},        {"aten.sqrt", 2},
             {"aten.rsqrt", 2},   {"aten.exp", 4},        {"aten.log", 4},
             {"aten.sigmoid", 4}, {"aten.tanh", 4},       {"aten.relu", 1},
             {"aten.silu", 4},    {"aten.gelu", 8},       {"aten.mean", 1},
             {"aten.sum", 1},     {"aten.var", 2},        {"aten.abs", 1},
             {"aten.neg", 1},     {"aten.reciprocal", 2}, {"aten.ne", 1},
             {"aten.eq", 1},      {"aten.lt", 1},         {"aten.gt", 1},
             {"aten._to_copy", 0}, {"aten.copy_", 0},     {"aten.clone", 0},
             {"aten.embedding", 0}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strlen(t[i].op) == n && !memcmp(op, t[i].op, n))
            return t[i].w;
    return 1;
}

static uint32_t ptr_bpe(const char *s, size_t n)
{
    static const struct {
        const char *t;
        uint32_t b;
    } tab[] = {{"*bf16", 2}, {"*fp16", 2}, {"*f16", 2}, {"*fp32", 4},
               {"*f32", 4},  {"*i8", 1},   {"*u8", 1},  {"*i32", 4},
               {"*i64", 8}};
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (strlen(tab[i].t) == n && !memcmp(s, tab[i].t, n))
            return tab[i].b;
    return 0;
}

/* ---- one kernel ------------------------------------------------------ */

/* The comment's ops: ", "-joined into b (arena text), Σ fpe. */
static int kernel_ops(tlm_inductor_cache *c, const char *region,
                      const char *start, uint32_t *off, double *fpe)
{
    const char *g;
    size_t gn;
    *fpe = 0.0;
    char *buf = NULL;
    size_t bl = 0;
    if (find_group(region, start, "Original ATen:", '[', ']', &g, &gn)) {
        buf = malloc(2 * gn + 2);
        if (!buf)
            return -1;
        const char *p = g, *e = g + gn;
        for (;;) {
            const char *q = memchr(p, ',', (size_t)(e - p));
            const char *ie = q ? q : e;
            const char *it = p;
            size_t in = (size_t)(ie - p);
            strip(&it, &in);
            if (bl) {
                memcpy(buf + bl, ", ", 2);
                bl += 2;
            }
            memcpy(buf + bl, it, in);
            bl += in;
            *fpe += v1_fpe(it, in);
            if (!q)
                break;
            p = q + 1;
        }
    }
    int r = put_text(c, buf ? buf : "", bl, off);
    free(buf);
    return r;
}

/* size_hints; 0 ok, 1 the file is left out (int() raises). */
static int kernel_hints(const char *b, const char *e, double *x, double *r)
{
    const char *g;
    size_t gn;
    *x = 0.0;
    *r = 1.0;
    if (!find_group(b, e, "size_hints=", '[', ']', &g, &gn))
        return 0;
    double v[2];
    size_t k = 0;
    const char *p = g, *end = g + gn;
    for (;;) {
        const char *q = memchr(p, ',', (size_t)(end - p));
        const char *ie = q ? q : end;
        double t;
        if (!py_int_text(p, (size_t)(ie - p), &t))
            return 1;
        if (k < 2)
            v[k] = t;
        k++;
        if (!q)
            break;
        p = q + 1;
    }
    *x = v[0];
    *r = k > 1 ? v[1] : 1.0;
    return 0;
}

static void kernel_sig(const char *b, const char *e, ientry *x)
{
    const char *g;
    size_t gn;
    x->nptr = x->bpe0 = 0;
    if (!find_group(b, e, "'signature':", '{', '}', &g, &gn))
        return;
    size_t i = 0;
    while (i < gn) {
        if (g[i] == '\'' && i + 1 < gn && g[i + 1] == '*') {
            size_t j = i + 2;
            while (j < gn && is_word((unsigned char)g[j]))
                j++;
            if (j > i + 2 && j < gn && g[j] == '\'') {
                uint32_t bb = ptr_bpe(g + i + 1, j - i - 1);
                if (bb) {
                    if (!x->nptr)
                        x->bpe0 = bb;
                    x->nptr++;
                }
                i = j + 1;
                continue;
            }
        }
        i++;
    }
}

/* ---- one file ---------------------------------------------------------- */

/* Start of the region 600 characters (code points) before p. */
static const char *back_600(const char *text, const char *p)
{
    int k = 0;
    while (p > text && k < 600) {
        p--;
        if (((unsigned char)*p & 0xC0) != 0x80)
            k++;
    }
    return p;
}

static int valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char ch = s[i];
        size_t k = ch < 0x80 ? 0 : (ch >> 5) == 6 ? 1 : (ch >> 4) == 14 ? 2
                 : (ch >> 3) == 30 ? 3 : 9;
        if (k == 9 || (k && ch < 0xC2) || i + k >= n + (k ? 0 : 1))
            return 0;
        for (size_t j = 1; j <= k; j++)
            if ((s[i + j] & 0xC0) != 0x80)
                return 0;
        /* overlong forms, surrogates, beyond U+10FFFF: Python refuses */
        unsigned char c1 = k ? s[i + 1] : 0;
        if ((ch == 0xE0 && c1 < 0xA0) || (ch == 0xED && c1 >= 0xA0) ||
            (ch == 0xF0 && c1 < 0x90) || (ch == 0xF4 && c1 >= 0x90) ||
            ch > 0xF4)
            return 0;
        i += k + 1;
    }
    return 1;
}

/* Universal newlines in place; the new length. */
static size_t newlines(char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r') {
            s[w++] = '\n';
            if (i + 1 < n && s[i + 1] == '\n')
                i++;
        } else {
            s[w++] = s[i];
        }
    }
    return w;
}

/* A definition `triton_<word>\s*=\s*async_compile.triton(` at line start
 * p: the name's length, or 0. */
static size_t def_at(const char *p, const char *e)
{
    static const char call[] = "async_compile.triton(";
    if ((size_t)(e - p) < 8 || memcmp(p, "triton_", 7) != 0 ||
        !is_word((unsigned char)p[7]))
        return 0;
    const char *q = p + 8;
    while (q < e && is_word((unsigned char)*q))
        q++;
    size_t nl = (size_t)(q - p);
    while (q < e && is_space((unsigned char)*q))
        q++;
    if (q >= e || *q != '=')
        return 0;
    q++;
    while (q < e && is_space((unsigned char)*q))
        q++;
    if ((size_t)(e - q) < sizeof call - 1 || memcmp(q, call, sizeof call - 1))
        return 0;
    return nl;
}

static int add_entry(tlm_inductor_cache *c, ientry *x)
{
    if (tlm_grow((void **)&c->e, &c->cap, c->n + 1, sizeof *c->e, 64))
        return -1;
    c->e[c->n++] = *x;
    return 0;
}

/* Parses one file's text (normalised); 0 ok, 1 left out, -1 no memory. */
static int parse_text(tlm_inductor_cache *c, const char *t, size_t n)
{
    static const char endm[] = "''', device_str=";
    const char *e = t + n;
    size_t n0 = c->n, a0 = c->alen, budget = FILE_BUDGET;
    uint32_t pos = 0;
    const char *bend = NULL; /* the next block end at or after p */
    for (const char *p = t; p < e; pos++) {
        size_t nl = def_at(p, e);
        if (nl && nl <= MAX_NAME) {
            if (!bend || bend < p)
                bend = memmem(p, (size_t)(e - p), endm, sizeof endm - 1);
            if (!bend)
                break; /* no later kernel has an end either */
            /* the source and the comment window (600 characters, at
             * most 2,400 bytes) count against the file's budget */
            size_t bl = (size_t)(bend - p);
            if (bl > MAX_BLOCK || bl + 2400 > budget)
                goto skip;
            budget -= bl + 2400;
            ientry x;
            memset(&x, 0, sizeof x);
            x.order = ((uint64_t)c->nfile << 32) | (UINT32_MAX - pos);
            if (put_text(c, p, nl, &x.name) ||
                kernel_ops(c, back_600(t, p), p, &x.ops, &x.fpe))
                return -1;
            if (kernel_hints(p, bend, &x.x, &x.r)) {
                c->n = n0;
                c->alen = a0;
                return 1;
            }
            kernel_sig(p, bend, &x);
            if (add_entry(c, &x))
                return -1;
        }
    skip:;
        const char *q = memchr(p, '\n', (size_t)(e - p));
        if (!q)
            break;
        p = q + 1;
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b, void *arena)
{
    const ientry *x = a, *y = b;
    int k = strcmp((const char *)arena + x->name, (const char *)arena + y->name);
    if (k)
        return k;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorted by name, one entry per name (the smallest order). */
void tlm_inductor_finalize(tlm_inductor_cache *c)
{
    if (c->n > 1)
        qsort_r(c->e, c->n, sizeof *c->e, cmp_entry, c->arena);
    size_t w = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!w || strcmp(c->arena + c->e[w - 1].name, c->arena + c->e[i].name))
            c->e[w++] = c->e[i];
    c->n = w;
    c->st.kernels = w;
}

/* A file's text as TraceLens reads it: 0 ok (or left out and counted),
 * -1 no memory. */
int tlm_inductor_take_text(tlm_inductor_cache *c, char *buf, size_t n)
{
    c->st.files++;
    if (!valid_utf8((const unsigned char *)buf, n)) {
        c->st.skipped++;
        return 0;
    }
    n = newlines(buf, n);
    if (!memmem(buf, n, "async_compile.triton", 20))
        return 0;
    c->st.wrappers++;
    int r = parse_text(c, buf, n);
    if (r > 0)
        c->st.skipped++;
    c->nfile++;
    return r < 0 ? -1 : 0;
}

tlm_status tlm_inductor_cache_parse(tlm_inductor_cache *c, const char *text,
                                    size_t len)
{
    char *buf = malloc(len + 1);
    if (!buf)
        return TLM_ENOMEM;
    if (len)
        memcpy(buf, text, len);
    int r = tlm_inductor_take_text(c, buf, len);
    free(buf);
    if (r < 0)
        return TLM_ENOMEM;
    tlm_inductor_finalize(c);
    return TLM_OK;
}

/* A name to look up and the arena the entries' names are in. */
typedef struct ikey {
    const char *name, *arena;
} ikey;

/* tlm_lower_bound's order: strcmp of the key's name and the entry's. */
static int cmp_ikey(const void *key, const void *elem)
{
    const ikey *k = key;
    return strcmp(k->name, k->arena + ((const ientry *)elem)->name);
}

/* The entry of name (names are unique: tlm_inductor_finalize), or NULL. */
static const ientry *find(const tlm_inductor_cache *c, const char *name)
{
    ikey k = {name, c->arena};
    size_t i = tlm_lower_bound(c->e, c->n, sizeof *c->e, &k, cmp_ikey);
    return i < c->n && !cmp_ikey(&k, &c->e[i]) ? &c->e[i] : NULL;
}

int tlm_inductor_cache_has(const tlm_inductor_cache *c, const char *name)
{
    return c && name && find(c, name) != NULL;
}

int tlm_inductor_v1(const tlm_inductor_cache *c, const char *name,
                    tlm_inductor_v1_meta *m)
{
    const ientry *x = c && name ? find(c, name) : NULL;
    if (!x)
        return 0;
    m->fused_ops = c->arena + x->ops;
    m->fpe = x->fpe;
    m->xnumel = x->x;
    m->rnumel = x->r;
    m->nptr = x->nptr;
    m->bpe0 = x->bpe0;
    return 1;
}
