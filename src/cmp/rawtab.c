/*
 * rawtab.c - the table of untyped cells a reader fills (rawtab.h): rows
 * of cells, texts copied into an arena.  Typing the columns is
 * rawtab_type.c.
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "rawtab.h"

struct tlm_rawarena {
    struct tlm_rawarena *next;
    size_t used, cap;
    char data[];
};

static char *arena_copy(tlm_rawtab *r, const char *s, size_t n)
{
    struct tlm_rawarena *a = r->arena;
    if (!a || a->cap - a->used < n + 1) {
        size_t cap = n + 1 > 65536 ? n + 1 : 65536;
        struct tlm_rawarena *na = malloc(sizeof *na + cap);
        if (!na) {
            r->oom = 1;
            return NULL;
        }
        na->next = a;
        na->used = 0;
        na->cap = cap;
        r->arena = a = na;
    }
    char *p = a->data + a->used;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    a->used += n + 1;
    return p;
}

tlm_rawtab *tlm_rawtab_new(size_t ncols, const char *const *colnames)
{
    tlm_rawtab *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->ncols = ncols;
    r->colnames = calloc(ncols ? ncols : 1, sizeof *r->colnames);
    if (!r->colnames)
        goto fail;
    for (size_t i = 0; i < ncols; i++) {
        const char *nm = colnames && colnames[i] ? colnames[i] : "";
        r->colnames[i] = arena_copy(r, nm, strlen(nm));
        if (!r->colnames[i])
            goto fail;
    }
    return r;
fail:
    tlm_rawtab_free(r);
    return NULL;
}

void tlm_rawtab_free(tlm_rawtab *r)
{
    if (!r)
        return;
    struct tlm_rawarena *a = r->arena;
    while (a) {
        struct tlm_rawarena *na = a->next;
        free(a);
        a = na;
    }
    free(r->colnames);
    free(r->cells);
    free(r);
}

long tlm_rawtab_add_row(tlm_rawtab *r)
{
    size_t w = r->ncols ? r->ncols : 1;
    /* rows of w cells */
    if (tlm_grow((void **)&r->cells, &r->cap, r->nrows + 1,
                 w * sizeof *r->cells, 16)) {
        r->oom = 1;
        return -1;
    }
    size_t row = r->nrows++;
    memset(r->cells + row * w, 0, w * sizeof *r->cells);
    return (long)row;
}

/* The cell (row, col), or NULL when out of the table. */
static tlm_rawcell *cell_at(tlm_rawtab *r, size_t row, size_t col)
{
    if (row >= r->nrows || col >= r->ncols)
        return NULL;
    return &r->cells[row * r->ncols + col];
}

static void set_chars(tlm_rawtab *r, size_t row, size_t col, const char *s,
                      size_t n, tlm_rawkind kind)
{
    tlm_rawcell *c = cell_at(r, row, col);
    if (!c)
        return;
    const char *p = arena_copy(r, s ? s : "", s ? n : 0);
    memset(c, 0, sizeof *c);
    if (!p)
        return;
    c->kind = (uint8_t)kind;
    c->s = p;
    c->n = s ? n : 0;
}

void tlm_rawtab_set_text(tlm_rawtab *r, size_t row, size_t col,
                         const char *s, size_t n)
{
    set_chars(r, row, col, s, n, TLM_RAW_TEXT);
}

void tlm_rawtab_set_str(tlm_rawtab *r, size_t row, size_t col, const char *s,
                        size_t n)
{
    set_chars(r, row, col, s, n, TLM_RAW_STR);
}

void tlm_rawtab_set_num(tlm_rawtab *r, size_t row, size_t col, double v)
{
    tlm_rawcell *c = cell_at(r, row, col);
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->kind = TLM_RAW_NUM;
    c->v.f = v;
}

void tlm_rawtab_set_int(tlm_rawtab *r, size_t row, size_t col, int64_t v)
{
    tlm_rawcell *c = cell_at(r, row, col);
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->kind = TLM_RAW_INT;
    c->v.i = v;
}

void tlm_rawtab_set_bool(tlm_rawtab *r, size_t row, size_t col, int v)
{
    tlm_rawcell *c = cell_at(r, row, col);
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->kind = TLM_RAW_BOOL;
    c->v.b = v ? 1 : 0;
}
