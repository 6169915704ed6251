/*
 * pseudo_mla.c - TraceLens's MLA decode / prefill pseudo ops
 * (docs/pseudo-ops.md), planned after the flydsl stages:
 *
 *   pseudo_mla_decode_fwd   when an event is named
 *       "aiter::mla_decode_stage1_asm_fwd": every python_function frame
 *       whose name has "aiter/mla" <any byte> "py(" <digits> "): mla_decode_fwd"
 *       (and "mla.py"), the donor the earliest-starting stage1 event below it;
 *   pseudo_mla_prefill_fwd  when an event is named
 *       "aiter::mla_prefill_ps_asm_fwd": every python_function frame whose
 *       name has ":" <blanks> "mla_fp8_prefill_attn" not followed by a word
 *       byte, the donor the earliest-starting such event below it.
 *
 * A frame without a donor below it, without GPU events or without
 * children gets none.  The pseudo op wraps all the frame's children
 * (pseudo_inject.c).  Frames go by name (in order of first appearance),
 * then by UID, as TraceLens's name index.
 */
#include <stdlib.h>
#include <string.h>

#include "pseudo_internal.h"

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

int tlm_pname_word(unsigned char c)
{
    return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z') || c >= 0x80;
}

int tlm_pname_blank(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

size_t tlm_pname_digits(const char *s, size_t n, size_t i)
{
    size_t d = i;
    while (d < n && is_digit((unsigned char)s[d]))
        d++;
    return d - i;
}

int tlm_pname_has(const char *s, size_t n, const char *w)
{
    size_t m = strlen(w);
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (memcmp(s + i, w, m) == 0)
            return 1;
    return 0;
}

int tlm_pname_at(const char *s, size_t n, size_t i, const char *w,
                 size_t *end)
{
    size_t m = strlen(w);
    if (i > n || n - i < m)
        return 0;
    for (size_t j = 0; j < m; j++)
        if (w[j] != '?' && s[i + j] != w[j])
            return 0;
    *end = i + m;
    return 1;
}

/* "aiter/mla.py\(\d+\): mla_decode_fwd" somewhere in s (re.search). */
static int decode_name(const char *s, size_t n)
{
    if (!tlm_pname_has(s, n, "mla.py") || !tlm_pname_has(s, n, "mla_decode_fwd"))
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t e, d;
        if (!tlm_pname_at(s, n, i, "aiter/mla?py(", &e))
            continue;
        d = tlm_pname_digits(s, n, e);
        if (d > 0 && tlm_pname_at(s, n, e + d, "): mla_decode_fwd", &e))
            return 1;
    }
    return 0;
}

/* ":\s*mla_fp8_prefill_attn(\b|$)" somewhere in s (ASCII blanks). */
static int prefill_name(const char *s, size_t n)
{
    static const char w[] = "mla_fp8_prefill_attn";
    if (!tlm_pname_has(s, n, w))
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t b = i + 1, e;
        if (s[i] != ':')
            continue;
        while (b < n && tlm_pname_blank((unsigned char)s[b]))
            b++;
        if (tlm_pname_at(s, n, b, w, &e) &&
            (e == n || !tlm_pname_word((unsigned char)s[e])))
            return 1;
    }
    return 0;
}

typedef tlm_pframe hit;

static int by_name_then_uid(const void *a, const void *b)
{
    const hit *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return (x->uid > y->uid) - (x->uid < y->uid);
}

typedef struct family {
    const char *donor; /* the op whose shapes the pseudo op takes */
    int (*frame)(const char *, size_t);
    int rule;
} family;

static const family families[] = {
    {"aiter::mla_decode_stage1_asm_fwd", decode_name, TLM_PSEUDO_MLA_DECODE},
    {"aiter::mla_prefill_ps_asm_fwd", prefill_name, TLM_PSEUDO_MLA_PREFILL},
};

size_t tlm_pplan_frames(const tlm_tree *t, int (*frame)(const char *, size_t),
                        int32_t *best, tlm_pframe *h, uint32_t *first,
                        uint32_t nstr)
{
    size_t m = 0, n;
    for (size_t i = 0; i < t->n; i++) {
        uint32_t id = t->ev[i].name;
        best[i] = -1;
        if (id >= nstr)
            continue;
        if (first[id] == UINT32_MAX) {
            const char *s = tlm_trace_str(t->trace, id, &n);
            first[id] = frame(s, n) ? (uint32_t)i : UINT32_MAX - 1;
        }
        if (first[id] != UINT32_MAX - 1 &&
            t->ev[i].cat == TLM_CAT_PYTHON_FUNCTION) {
            best[i] = -2;
            h[m++] = (hit){first[id], (int32_t)i};
        }
    }
    memset(first, 0xff, (size_t)nstr * sizeof *first);
    qsort(h, m, sizeof *h, by_name_then_uid);
    return m;
}

/* Each donor event (UID order) to the frames on its path up (itself
 * included), the earliest-starting one kept. */
static void donors(const tlm_tree *t, uint32_t id, int32_t *best)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->ev[i].name != id)
            continue;
        size_t steps = 0;
        for (int32_t a = (int32_t)i; a >= 0 && steps <= t->n;
             a = t->nd[a].parent, steps++)
            if (best[a] == -2 ||
                (best[a] >= 0 && t->ev[i].ts < t->ev[best[a]].ts))
                best[a] = (int32_t)i;
    }
}

static int one_family(tlm_pplan *p, const family *f, int32_t *best, hit *h,
                      uint32_t *first, uint32_t nstr)
{
    const tlm_tree *t = p->t;
    uint32_t id = tlm_trace_str_find(t->trace, f->donor, strlen(f->donor));
    if (!tlm_pplan_name_exists(p, id))
        return 0;
    size_t m = tlm_pplan_frames(t, f->frame, best, h, first, nstr);
    if (m == 0)
        return 0;
    donors(t, id, best);
    for (size_t i = 0; i < m; i++) {
        int32_t x = h[i].uid;
        const tlm_tnode *d = &t->nd[x];
        if (best[x] < 0 || !tlm_nd_has_gpu(t, x) || d->first_child < 0)
            continue;
        if (tlm_pplan_add(p, x, best[x], f->rule) != 0)
            return -1;
    }
    return 0;
}

int tlm_pplan_mla(tlm_pplan *p)
{
    const tlm_tree *t = p->t;
    uint32_t nstr = tlm_trace_str_count(t->trace);
    size_t n = t->n ? t->n : 1;
    int32_t *best = malloc(n * sizeof *best);
    hit *h = malloc(n * sizeof *h);
    uint32_t *first = malloc((nstr ? nstr : 1) * sizeof *first);
    int rc = best && h && first ? 0 : -1;
    if (first)
        memset(first, 0xff, (size_t)nstr * sizeof *first);
    for (size_t k = 0; rc == 0 && k < sizeof families / sizeof *families;
         k++)
        rc = one_family(p, &families[k], best, h, first, nstr);
    free(best);
    free(h);
    free(first);
    return rc;
}
