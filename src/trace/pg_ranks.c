/*
 * pg_ranks.c - process-group rank lists ("ranks": "[0, 1, 2]" in
 * distributedInfo.pg_config) parsed once per distinct list per process.
 *
 * Every trace of a job repeats the job's process groups, so a process that
 * reads many traces (rank 0 of a 1,024-rank job) parsed the same lists once
 * per trace.  The parsed ints are kept here, keyed by the list's text (hash,
 * length, bytes), behind a mutex (readers may run on several threads); each
 * trace still gets its own copy.  The cache is bounded (TLM_PGR_MAX_INTS
 * ints in all); past that, lists are parsed without being kept.  Only
 * reads with tlm_read_opts.share_pg_ranks use it (the multi-rank analysis,
 * src/job/job_trace.c); tlm_trace_caches_free empties it (mpi/driver.c,
 * at the end of a run).
 */
#include "trace_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TLM_PGR_MAX_INTS (1u << 20) /* 4 MiB of ranks at most */
#define TLM_PGR_MAX_TEXT (1u << 22) /* and 4 MiB of their texts */

typedef struct pgr_entry {
    uint64_t hash;
    char *text;
    size_t text_len;
    int32_t *ranks;
    size_t n;
} pgr_entry;

static pthread_mutex_t pgr_mu = PTHREAD_MUTEX_INITIALIZER;
static pgr_entry *pgr_tab;   /* open addressing, pgr_cap slots */
static size_t pgr_cap, pgr_used, pgr_ints, pgr_text;
static uint64_t pgr_hits, pgr_parses;

/* "[0, 1, 2]" -> ints; stops at anything else ("..." in long lists).
 * Returns the count; writes at most cap of them when out is set. */
static int64_t text_ranks(const char *s, size_t n, int32_t *out, size_t cap)
{
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && (s[i] == '[' || s[i] == ' ' || s[i] == ','))
            i++;
        if (i >= n || !((s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            break;
        char *endp;
        char tmp[24];
        size_t j = 0;
        while (i < n && j < sizeof tmp - 1 &&
               ((s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            tmp[j++] = s[i++];
        tmp[j] = '\0';
        long v = strtol(tmp, &endp, 10);
        if (out && k < cap)
            out[k] = (int32_t)v;
        k++;
    }
    return (int64_t)k;
}

/* FNV-1a over the text. */
static uint64_t pgr_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The slot of text (found, or the empty one where it goes); NULL without a
 * table. */
static pgr_entry *pgr_slot(uint64_t h, const char *s, size_t n)
{
    if (!pgr_cap)
        return NULL;
    size_t i = (size_t)h & (pgr_cap - 1);
    for (;;) {
        pgr_entry *e = &pgr_tab[i];
        if (!e->text || (e->hash == h && e->text_len == n &&
                         memcmp(e->text, s, n) == 0))
            return e;
        i = (i + 1) & (pgr_cap - 1);
    }
}

/* Room for one more entry (grows the table at half full); 0 on failure. */
static int pgr_reserve(void)
{
    if (pgr_cap && (pgr_used + 1) * 2 <= pgr_cap)
        return 1;
    size_t cap = pgr_cap ? pgr_cap * 2 : 64;
    pgr_entry *t = calloc(cap, sizeof *t);
    if (!t)
        return 0;
    for (size_t i = 0; i < pgr_cap; i++) {
        pgr_entry *o = &pgr_tab[i];
        if (!o->text)
            continue;
        size_t j = (size_t)o->hash & (cap - 1);
        while (t[j].text)
            j = (j + 1) & (cap - 1);
        t[j] = *o;
    }
    free(pgr_tab);
    pgr_tab = t;
    pgr_cap = cap;
    return 1;
}

/* Keeps a parsed list (best effort: nothing kept when over the bounds or
 * out of memory).  Called with the mutex held. */
static void pgr_keep(uint64_t h, const char *s, size_t n, const int32_t *r,
                     size_t k)
{
    if (pgr_ints + k > TLM_PGR_MAX_INTS || pgr_text + n > TLM_PGR_MAX_TEXT ||
        !pgr_reserve())
        return;
    pgr_entry *e = pgr_slot(h, s, n);
    char *text = malloc(n ? n : 1);
    int32_t *ranks = malloc(k ? k * sizeof *ranks : 1);
    if (!text || !ranks) {
        free(text);
        free(ranks);
        return;
    }
    memcpy(text, s, n);
    if (k)
        memcpy(ranks, r, k * sizeof *ranks);
    *e = (pgr_entry){h, text, n, ranks, k};
    pgr_used++;
    pgr_ints += k;
    pgr_text += n;
}

/* Parses s into a new array from a (none when empty). */
static tlm_status pgr_parse(const char *s, size_t n, const tlm_alloc *a,
                            int32_t **out, size_t *n_out)
{
    int64_t k = text_ranks(s, n, NULL, 0);
    if (k > 0) {
        *out = a->malloc_fn(a->ctx, (size_t)k * sizeof **out);
        if (!*out)
            return TLM_ENOMEM;
        text_ranks(s, n, *out, (size_t)k);
        *n_out = (size_t)k;
    }
    return TLM_OK;
}

tlm_status tlm_pg_ranks_parse(const char *s, size_t n, int shared,
                              const tlm_alloc *a, int32_t **out,
                              size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!shared)
        return pgr_parse(s, n, a, out, n_out);
    uint64_t h = pgr_hash(s, n);
    pthread_mutex_lock(&pgr_mu);
    pgr_entry *e = pgr_slot(h, s, n);
    if (e && e->text) {
        pgr_hits++;
        if (e->n) {
            *out = a->malloc_fn(a->ctx, e->n * sizeof **out);
            if (*out) {
                memcpy(*out, e->ranks, e->n * sizeof **out);
                *n_out = e->n;
            }
        }
        size_t k = e->n;
        pthread_mutex_unlock(&pgr_mu);
        return k && !*out ? TLM_ENOMEM : TLM_OK;
    }
    pthread_mutex_unlock(&pgr_mu);
    tlm_status st = pgr_parse(s, n, a, out, n_out);
    if (st != TLM_OK)
        return st;
    pthread_mutex_lock(&pgr_mu);
    pgr_parses++;
    e = pgr_slot(h, s, n);
    if (!e || !e->text)
        pgr_keep(h, s, n, *out, *n_out);
    pthread_mutex_unlock(&pgr_mu);
    return TLM_OK;
}

void tlm_pg_ranks_stats(uint64_t *hits, uint64_t *parses, size_t *kept)
{
    pthread_mutex_lock(&pgr_mu);
    *hits = pgr_hits;
    *parses = pgr_parses;
    *kept = pgr_used;
    pthread_mutex_unlock(&pgr_mu);
}

void tlm_trace_caches_free(void)
{
    pthread_mutex_lock(&pgr_mu);
    for (size_t i = 0; i < pgr_cap; i++) {
        free(pgr_tab[i].text);
        free(pgr_tab[i].ranks);
    }
    free(pgr_tab);
    pgr_tab = NULL;
    pgr_cap = pgr_used = pgr_ints = pgr_text = 0;
    pthread_mutex_unlock(&pgr_mu);
}
