/*
 * suggest.h - "did you mean ...?" for mistyped commands and options: the
 * weighted edit distance git uses (help.c: a swap of two neighbours costs
 * 0, a substitution 2, an insertion 1, a deletion 3) and the closest
 * candidate under git's similarity floor.
 */
#ifndef TLM_SUGGEST_H
#define TLM_SUGGEST_H

#include <stddef.h>

/* The weighted (Damerau) edit distance turning a into b, with git's
 * weights. */
size_t tlm_edit_distance(const char *a, const char *b);

/* The candidate closest to word, or NULL when none is close enough (git's
 * floor: distance + 1 < 7; a candidate that word is a prefix of counts as
 * close).  Ties keep the first candidate. */
const char *tlm_suggest(const char *word, const char *const *cands,
                        size_t n);

/* The option of text (every "--name" in a usage text) closest to opt
 * (given with or without its "--" and "=value"), copied as "--name" into
 * out (cap bytes); 0 when none is close enough, 1 otherwise. */
int tlm_suggest_opt(const char *opt, const char *text, char *out,
                    size_t cap);

#endif
