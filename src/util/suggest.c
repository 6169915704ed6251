/*
 * suggest.c - "did you mean ...?": git's weighted edit distance and the
 * closest candidate among commands or the options of a usage text.
 */
#include "suggest.h"

#include <stdlib.h>
#include <string.h>

enum { W_SWAP = 0, W_SUB = 2, W_INS = 1, W_DEL = 3, FLOOR = 7 };

#define MAXLEN 256

/* min of two sizes. */
static size_t min2(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Three rows of the optimal-string-alignment table, as git computes it. */
size_t tlm_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAXLEN)
        la = MAXLEN;
    if (lb > MAXLEN)
        lb = MAXLEN;
    size_t r0[MAXLEN + 1], r1[MAXLEN + 1], r2[MAXLEN + 1];
    size_t *p0 = r0, *p1 = r1, *p2 = r2;
    for (size_t j = 0; j <= lb; j++)
        p1[j] = j * W_INS;
    for (size_t i = 0; i < la; i++) {
        p2[0] = (i + 1) * W_DEL;
        for (size_t j = 0; j < lb; j++) {
            p2[j + 1] = p1[j] + (a[i] != b[j]) * W_SUB;
            if (i > 0 && j > 0 && a[i - 1] == b[j] && a[i] == b[j - 1])
                p2[j + 1] = min2(p2[j + 1], p0[j - 1] + W_SWAP);
            p2[j + 1] = min2(p2[j + 1], p1[j + 1] + W_DEL);
            p2[j + 1] = min2(p2[j + 1], p2[j] + W_INS);
        }
        size_t *t = p0;
        p0 = p1;
        p1 = p2;
        p2 = t;
    }
    return p1[lb];
}

/* The similarity of word to cand as git scores it (lower is closer). */
static size_t score(const char *word, const char *cand)
{
    size_t lw = strlen(word);
    if (lw && strncmp(cand, word, lw) == 0)
        return 0; /* a prefix of the candidate */
    return tlm_edit_distance(word, cand) + 1;
}

const char *tlm_suggest(const char *word, const char *const *cands,
                        size_t n)
{
    const char *best = NULL;
    size_t bs = FLOOR;
    for (size_t i = 0; word && *word && i < n; i++) {
        if (!cands[i] || !*cands[i])
            continue;
        size_t s = score(word, cands[i]);
        if (s < bs) {
            bs = s;
            best = cands[i];
        }
    }
    return best;
}

/* Is c part of an option name? */
static int optch(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int tlm_suggest_opt(const char *opt, const char *text, char *out,
                    size_t cap)
{
    char word[MAXLEN + 1], cand[MAXLEN + 1], best[MAXLEN + 1];
    while (*opt == '-')
        opt++;
    size_t lw = strcspn(opt, "=");
    if (!lw || lw > MAXLEN || !text || cap < 3)
        return 0;
    memcpy(word, opt, lw);
    word[lw] = 0;
    size_t bs = FLOOR;
    best[0] = 0;
    for (const char *p = strstr(text, "--"); p; p = strstr(p, "--")) {
        p += 2;
        size_t l = 0;
        while (optch(p[l]))
            l++;
        if (l == 0 || l > MAXLEN || p[0] == '-')
            continue;
        memcpy(cand, p, l);
        cand[l] = 0;
        p += l;
        size_t s = strcmp(cand, word) == 0 ? FLOOR : score(word, cand);
        if (s < bs) {
            bs = s;
            memcpy(best, cand, l + 1);
        }
    }
    if (!best[0] || strlen(best) + 3 > cap)
        return 0;
    out[0] = out[1] = '-';
    memcpy(out + 2, best, strlen(best) + 1);
    return 1;
}
