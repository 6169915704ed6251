/*
 * diff_names.c - names for TraceDiff: the small vectors, the string table
 * of normalised names, TraceLens's name normalisation (§2) and the
 * "(<digits>)" strip of LCA names (§6.1), and the per-node name ids.
 */
#include "diff_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

void tlm_ivec_push(tlm_ivec *v, int32_t x, int *oom)
{
    if (v->n == v->cap && tlm_ivec_reserve(v, 1, oom) != 0)
        return;
    v->p[v->n++] = x;
}

int tlm_ivec_reserve(tlm_ivec *v, size_t n, int *oom)
{
    if (v->n + n <= v->cap)
        return 0;
    if (tlm_grow((void **)&v->p, &v->cap, v->n + n, sizeof *v->p, 16)) {
        *oom = 1;
        return -1;
    }
    return 0;
}

void tlm_ivec_free(tlm_ivec *v)
{
    free(v->p);
    v->p = NULL;
    v->n = v->cap = 0;
}

void tlm_dopvec_push(tlm_dopvec *v, int32_t type, int32_t i, int32_t j,
                     int *oom)
{
    if (tlm_grow((void **)&v->p, &v->cap, v->n + 1, sizeof *v->p, 16)) {
        *oom = 1;
        return;
    }
    v->p[v->n].type = type;
    v->p[v->n].i = i;
    v->p[v->n].j = j;
    v->n++;
}

void tlm_dopvec_free(tlm_dopvec *v)
{
    free(v->p);
    v->p = NULL;
    v->n = v->cap = 0;
}

/* ---------------------------------------------------------- string table */

tlm_status tlm_dstrtab_init(tlm_dstrtab *t)
{
    memset(t, 0, sizeof *t);
    t->scap = 1024;
    t->slots = malloc(t->scap * sizeof *t->slots);
    t->ncap = 256;
    t->off = malloc(t->ncap * sizeof *t->off);
    t->len = malloc(t->ncap * sizeof *t->len);
    t->acap = 4096;
    t->arena = malloc(t->acap);
    if (!t->slots || !t->off || !t->len || !t->arena) {
        tlm_dstrtab_free(t);
        return TLM_ENOMEM;
    }
    memset(t->slots, 0xff, t->scap * sizeof *t->slots);
    t->arena[0] = 0; /* id 0: None, the empty text */
    t->alen = 1;
    t->off[0] = 0;
    t->len[0] = 0;
    t->n = 1;
    return TLM_OK;
}

void tlm_dstrtab_free(tlm_dstrtab *t)
{
    free(t->arena);
    free(t->off);
    free(t->len);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int grow_slots(tlm_dstrtab *t)
{
    size_t cap = t->scap * 2;
    int32_t *s = malloc(cap * sizeof *s);
    if (!s)
        return -1;
    memset(s, 0xff, cap * sizeof *s);
    for (size_t id = 1; id < t->n; id++) {
        uint64_t h = tlm_hash64(t->arena + t->off[id], t->len[id]);
        size_t k = (size_t)h & (cap - 1);
        while (s[k] >= 0)
            k = (k + 1) & (cap - 1);
        s[k] = (int32_t)id;
    }
    free(t->slots);
    t->slots = s;
    t->scap = cap;
    return 0;
}

int32_t tlm_dstrtab_intern(tlm_dstrtab *t, const char *s, size_t n)
{
    uint64_t h = tlm_hash64(s, n);
    size_t k = (size_t)h & (t->scap - 1);
    for (; t->slots[k] >= 0; k = (k + 1) & (t->scap - 1)) {
        int32_t id = t->slots[k];
        if (t->len[id] == n && memcmp(t->arena + t->off[id], s, n) == 0)
            return id;
    }
    if (n >= UINT32_MAX / 2 || t->alen + n + 1 >= UINT32_MAX)
        return -1;
    if (tlm_grow((void **)&t->arena, &t->acap, t->alen + n + 1, 1, 4096))
        return -1;
    size_t co = t->ncap, cl = t->ncap; /* parallel arrays */
    if (tlm_grow((void **)&t->off, &co, t->n + 1, sizeof *t->off, 256) ||
        tlm_grow((void **)&t->len, &cl, t->n + 1, sizeof *t->len, 256))
        return -1;
    t->ncap = co;
    int32_t id = (int32_t)t->n++;
    memcpy(t->arena + t->alen, s, n);
    t->arena[t->alen + n] = 0;
    t->off[id] = (uint32_t)t->alen;
    t->len[id] = (uint32_t)n;
    t->alen += n + 1;
    t->slots[k] = id;
    if (t->n * 2 > t->scap && grow_slots(t) != 0)
        return -1;
    return id;
}

const char *tlm_dstrtab_str(const tlm_dstrtab *t, int32_t id, size_t *n)
{
    if (n)
        *n = t->len[id];
    return t->arena + t->off[id];
}

/* ------------------------------------------------------- normalisation */

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
}

/* Length of "(<digits>)" at s (n bytes left), or 0. */
static size_t paren_digits(const char *s, size_t n)
{
    if (n < 3 || s[0] != '(' || !is_digit(s[1]))
        return 0;
    size_t k = 1;
    while (k < n && is_digit(s[k]))
        k++;
    return k < n && s[k] == ')' ? k + 1 : 0;
}

/* Step 3: start of a final ":\s+\S+$", or n. */
static size_t colon_tail(const char *s, size_t n)
{
    for (size_t p = 0; p < n; p++) {
        if (s[p] != ':')
            continue;
        size_t k = p + 1;
        while (k < n && is_space(s[k]))
            k++;
        if (k == p + 1 || k == n)
            continue;
        size_t q = k;
        while (q < n && !is_space(s[q]))
            q++;
        if (q == n)
            return p;
    }
    return n;
}

void tlm_diff_norm(tlm_sbuf *b, const char *s, size_t n, int strip)
{
    tlm_sbuf a;
    tlm_sbuf_init(&a);
    /* 1: 0x<hex> -> 0xXXXX */
    for (size_t i = 0; i < n;) {
        if (s[i] == '0' && i + 2 < n + 0 && s[i + 1] == 'x' &&
            is_hex(s[i + 2])) {
            tlm_sbuf_putn(&a, "0xXXXX", 6);
            i += 2;
            while (i < n && is_hex(s[i]))
                i++;
        } else {
            tlm_sbuf_putc(&a, s[i++]);
        }
    }
    /* 2: .py(<digits>): -> .py: */
    size_t start = b->len;
    const char *t = a.p ? a.p : "";
    size_t tn = a.len;
    for (size_t i = 0; i < tn;) {
        size_t k;
        if (i + 3 <= tn && memcmp(t + i, ".py", 3) == 0 &&
            (k = paren_digits(t + i + 3, tn - i - 3)) != 0 &&
            i + 3 + k < tn && t[i + 3 + k] == ':') {
            tlm_sbuf_putn(b, ".py:", 4);
            i += 3 + k + 1;
        } else {
            tlm_sbuf_putc(b, t[i++]);
        }
    }
    tlm_sbuf_free(&a);
    if (b->oom)
        return;
    char *r = b->p ? b->p + start : NULL;
    size_t rn = b->len - start;
    if (strip && rn) {
        rn = colon_tail(r, rn);
        /* ^.*\/([^/]+\.py)$ : keep the file name ('.' stops at '\n') */
        size_t slash = rn;
        for (size_t i = rn; i-- > 0;)
            if (r[i] == '/') {
                slash = i;
                break;
            }
        if (slash < rn && rn - slash - 1 > 3 &&
            memcmp(r + rn - 3, ".py", 3) == 0 &&
            memchr(r, '\n', rn) == NULL) {
            memmove(r, r + slash + 1, rn - slash - 1);
            rn -= slash + 1;
        }
        b->len = start + rn;
    }
    if ((rn == 21 && memcmp(r, "hipModuleLaunchKernel", 21) == 0) ||
        (rn == 14 && memcmp(r, "cuLaunchKernel", 14) == 0)) {
        b->len = start;
        tlm_sbuf_puts(b, "__kernel_launch__");
    }
}

void tlm_diff_strip_paren_digits(tlm_sbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = paren_digits(s + i, n - i);
        if (k)
            i += k;
        else
            tlm_sbuf_putc(b, s[i++]);
    }
}

/* ------------------------------------------------------------ name ids */

const char *tlm_diff_opname(tlm_diff *d, int side, int32_t u, size_t *n,
                            char num[24])
{
    const tlm_dside *s = &d->s[side];
    size_t len = 0;
    const char *nm = s->ev[u].name ? tlm_trace_str(s->tr, s->ev[u].name,
                                                   &len)
                                   : "";
    if (!nm)
        nm = "";
    if (!len) {
        int k = snprintf(num, 24, "%ld", (long)u);
        *n = (size_t)k;
        return num;
    }
    *n = len;
    return nm;
}

static int32_t norm_id(tlm_diff *d, const char *s, size_t n, int strip)
{
    d->tmp.len = 0;
    tlm_diff_norm(&d->tmp, s, n, strip);
    if (d->tmp.oom)
        return -1;
    return tlm_dstrtab_intern(&d->names, d->tmp.p ? d->tmp.p : "",
                              d->tmp.len);
}

int32_t tlm_diff_name_id(tlm_diff *d, int side, int32_t u, int strip)
{
    tlm_dside *s = &d->s[side];
    uint32_t sid = s->ev[u].name;
    if (sid && sid < s->nstr && s->nid[strip][sid] != -2)
        return s->nid[strip][sid];
    char num[24];
    size_t n;
    const char *nm = tlm_diff_opname(d, side, u, &n, num);
    int32_t id = norm_id(d, nm, n, strip);
    if (nm != num && sid && sid < s->nstr && id >= 0)
        s->nid[strip][sid] = id;
    return id;
}

int32_t tlm_diff_nname(tlm_diff *d, int side, int32_t u)
{
    const tlm_dside *s = &d->s[side];
    if (u < 0)
        return 0;
    size_t len = 0;
    if (s->ev[u].name)
        (void)tlm_trace_str(s->tr, s->ev[u].name, &len);
    return len ? tlm_diff_name_id(d, side, u, 0) : 0;
}

uint32_t tlm_diff_mark_begin(tlm_diff *d)
{
    if (d->mcap < d->names.n + 64) { /* parallel arrays, new marks 0 */
        size_t c1 = d->mcap, c2 = d->mcap;
        if (tlm_grow((void **)&d->mark, &c1, d->names.n + 64,
                     sizeof *d->mark, 64) ||
            tlm_grow((void **)&d->mval, &c2, d->names.n + 64,
                     sizeof *d->mval, 64))
            return 0;
        memset(d->mark + d->mcap, 0, (c1 - d->mcap) * sizeof *d->mark);
        d->mcap = c1;
    }
    if (++d->mstamp == 0) {
        memset(d->mark, 0, d->mcap * sizeof *d->mark);
        d->mstamp = 1;
    }
    return d->mstamp;
}
