/*
 * xlsx_read.c - a workbook package (xlsx_read.h): the zip archive, the
 * office document from _rels/.rels, the sheet list of the workbook part
 * in workbook order with each sheet's part from the workbook's
 * relationships, and the shared strings (rich-text runs concatenated,
 * phonetic runs left out, as openpyxl reads them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "xlsx_internal.h"

/* MARK: - relationships -------------------------------------------------- */

typedef struct rel {
    char *id, *type, *target;
} rel;

typedef struct rels_state {
    tlm_xml xs; /* first */
    rel *v;
    size_t n, cap;
} rels_state;

static char *dup(const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

static void rels_free(rels_state *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].id);
        free(r->v[i].type);
        free(r->v[i].target);
    }
    free(r->v);
}

static void rels_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    rels_state *r = ud;
    if (tlm_xml_enter(&r->xs) || strcmp(tlm_xml_local(name), "Relationship"))
        return;
    const char *id = tlm_xml_attr(atts, NULL, "Id");
    const char *type = tlm_xml_attr(atts, NULL, "Type");
    const char *target = tlm_xml_attr(atts, NULL, "Target");
    if (!id || !type || !target)
        return;
    if (tlm_grow((void **)&r->v, &r->cap, r->n + 1, sizeof *r->v, 8)) {
        tlm_xml_fail(&r->xs, TLM_ENOMEM, "out of memory");
        return;
    }
    rel *e = &r->v[r->n];
    e->id = dup(id);
    e->type = dup(type);
    e->target = dup(target);
    r->n++;
    if (!e->id || !e->type || !e->target)
        tlm_xml_fail(&r->xs, TLM_ENOMEM, "out of memory");
}

static void any_end(void *ud, const XML_Char *name)
{
    tlm_xml_leave(ud);
}

/* Reads the relationships part; an absent optional part is empty. */
static tlm_status rels_read(tlm_xlsx *x, const char *part, int optional,
                            rels_state *r, tlm_error *err)
{
    memset(r, 0, sizeof *r);
    tlm_status st = tlm_xml_init(&r->xs, x, part, err);
    if (st)
        return st;
    XML_SetElementHandler(r->xs.p, rels_start, any_end);
    st = tlm_xml_run(&r->xs, optional);
    tlm_xml_done(&r->xs);
    return st == TLM_ENOTFOUND ? TLM_OK : st;
}

/* Target of the first relationship whose type ends in /suffix. */
static const rel *rel_by_type(const rels_state *r, const char *suffix)
{
    size_t sl = strlen(suffix);
    for (size_t i = 0; i < r->n; i++) {
        size_t tl = strlen(r->v[i].type);
        if (tl > sl && r->v[i].type[tl - sl - 1] == '/' &&
            !strcmp(r->v[i].type + tl - sl, suffix))
            return &r->v[i];
    }
    return NULL;
}

static const rel *rel_by_id(const rels_state *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->v[i].id, id))
            return &r->v[i];
    return NULL;
}

/* MARK: - workbook -------------------------------------------------------- */

typedef struct book_state {
    tlm_xml xs; /* first */
    const rels_state *rels;
    const char *book_part;
} book_state;

static void book_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    book_state *b = ud;
    tlm_xlsx *x = b->xs.x;
    if (tlm_xml_enter(&b->xs) || strcmp(tlm_xml_local(name), "sheet"))
        return;
    const char *nm = tlm_xml_attr(atts, NULL, "name");
    const char *id = tlm_xml_attr(atts, "/relationships", "id");
    if (!nm || !id) {
        tlm_xml_fail(&b->xs, TLM_EFORMAT, "a sheet without name or r:id");
        return;
    }
    const rel *r = rel_by_id(b->rels, id);
    if (!r) {
        tlm_xml_fail(&b->xs, TLM_EFORMAT,
                     "sheet '%s': relationship '%s' not found", nm, id);
        return;
    }
    tlm_xlsx_entry *v = realloc(x->sheets, (x->nsheets + 1) * sizeof *v);
    if (!v) {
        tlm_xml_fail(&b->xs, TLM_ENOMEM, "out of memory");
        return;
    }
    x->sheets = v;
    tlm_xlsx_entry *e = &v[x->nsheets++];
    e->name = dup(nm);
    e->part = tlm_xlsx_resolve(b->book_part, r->target);
    if (!e->name || !e->part)
        tlm_xml_fail(&b->xs, TLM_ENOMEM, "out of memory");
}

/* MARK: - shared strings -------------------------------------------------- */

typedef struct sst_state {
    tlm_xml xs; /* first */
    int in_si, in_t, in_rph;
    tlm_sbuf raw; /* the text of the current si, escapes undecoded */
} sst_state;

static void sst_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    sst_state *s = ud;
    if (tlm_xml_enter(&s->xs))
        return;
    const char *l = tlm_xml_local(name);
    if (!strcmp(l, "si")) {
        s->in_si = 1;
        tlm_sbuf_reset(&s->raw);
    } else if (!strcmp(l, "rPh")) {
        s->in_rph = 1;
    } else if (!strcmp(l, "t") && s->in_si && !s->in_rph) {
        s->in_t = 1;
    }
}

static void sst_push(sst_state *s)
{
    tlm_xlsx *x = s->xs.x;
    size_t co = x->cap_sst, cl = x->cap_sst; /* parallel arrays */
    if (tlm_grow((void **)&x->sst_off, &co, x->nsst + 1, sizeof *x->sst_off,
                 64) ||
        tlm_grow((void **)&x->sst_len, &cl, x->nsst + 1, sizeof *x->sst_len,
                 64)) {
        tlm_xml_fail(&s->xs, TLM_ENOMEM, "out of memory");
        return;
    }
    x->cap_sst = co;
    size_t off = x->sst_text.len;
    tlm_xlsx_unescape(&x->sst_text, s->raw.p ? s->raw.p : "", s->raw.len);
    x->sst_off[x->nsst] = off;
    x->sst_len[x->nsst] = x->sst_text.len - off;
    x->nsst++;
    tlm_sbuf_putc(&x->sst_text, '\0');
    if (x->sst_text.oom || s->raw.oom)
        tlm_xml_fail(&s->xs, TLM_ENOMEM, "out of memory");
}

static void sst_end(void *ud, const XML_Char *name)
{
    sst_state *s = ud;
    tlm_xml_leave(&s->xs);
    const char *l = tlm_xml_local(name);
    if (!strcmp(l, "si")) {
        s->in_si = 0;
        sst_push(s);
    } else if (!strcmp(l, "rPh")) {
        s->in_rph = 0;
    } else if (!strcmp(l, "t")) {
        s->in_t = 0;
    }
}

static void sst_text(void *ud, const XML_Char *t, int n)
{
    sst_state *s = ud;
    if (s->in_t)
        tlm_sbuf_putn(&s->raw, t, (size_t)n);
}

static tlm_status sst_read(tlm_xlsx *x, const char *part, tlm_error *err)
{
    sst_state s;
    memset(&s, 0, sizeof s);
    tlm_sbuf_init(&s.raw);
    tlm_status st = tlm_xml_init(&s.xs, x, part, err);
    if (st)
        return st;
    XML_SetElementHandler(s.xs.p, sst_start, sst_end);
    XML_SetCharacterDataHandler(s.xs.p, sst_text);
    st = tlm_xml_run(&s.xs, 0);
    tlm_xml_done(&s.xs);
    tlm_sbuf_free(&s.raw);
    return st;
}

/* MARK: - the package ----------------------------------------------------- */

static tlm_status read_book(tlm_xlsx *x, tlm_error *err)
{
    rels_state top, wr;
    char *book = NULL, *book_rels = NULL, *sst = NULL;
    tlm_status st = rels_read(x, "_rels/.rels", 1, &top, err);
    memset(&wr, 0, sizeof wr);
    if (st)
        goto done;
    const rel *doc = rel_by_type(&top, "officeDocument");
    book = tlm_xlsx_resolve("", doc ? doc->target : "xl/workbook.xml");
    if (!book)
        goto oom;
    /* the workbook's relationships: <dir>/_rels/<name>.rels */
    const char *slash = strrchr(book, '/');
    size_t dl = slash ? (size_t)(slash - book) + 1 : 0;
    book_rels = malloc(strlen(book) + 16);
    if (!book_rels)
        goto oom;
    snprintf(book_rels, strlen(book) + 16, "%.*s_rels/%s.rels", (int)dl, book,
             book + dl);
    if ((st = rels_read(x, book_rels, 0, &wr, err)))
        goto done;
    book_state b;
    memset(&b, 0, sizeof b);
    if ((st = tlm_xml_init(&b.xs, x, book, err)))
        goto done;
    b.rels = &wr;
    b.book_part = book;
    XML_SetElementHandler(b.xs.p, book_start, any_end);
    st = tlm_xml_run(&b.xs, 0);
    tlm_xml_done(&b.xs);
    if (st)
        goto done;
    const rel *ss = rel_by_type(&wr, "sharedStrings");
    if (ss) {
        if (!(sst = tlm_xlsx_resolve(book, ss->target)))
            goto oom;
        st = sst_read(x, sst, err);
    }
    goto done;
oom:
    st = tlm_error_set(err, TLM_ENOMEM, x->path, -1, "out of memory");
done:
    rels_free(&top);
    rels_free(&wr);
    free(book);
    free(book_rels);
    free(sst);
    return st;
}

static tlm_status open_zip_error(tlm_xlsx *x, zip_error_t *ze, tlm_error *err)
{
    int code = zip_error_code_zip(ze);
    tlm_status st = code == ZIP_ER_OPEN || code == ZIP_ER_READ ||
                            code == ZIP_ER_NOENT || code == ZIP_ER_SEEK
                        ? TLM_EIO
                        : code == ZIP_ER_MEMORY ? TLM_ENOMEM : TLM_EFORMAT;
    return tlm_error_set(err, st, x->path, -1, "%s%s",
                         st == TLM_EFORMAT ? "not a workbook (zip archive): "
                                           : "cannot open the workbook: ",
                         zip_error_strerror(ze));
}

static tlm_status finish_open(tlm_xlsx *x, tlm_xlsx **out, tlm_error *err)
{
    tlm_status st = read_book(x, err);
    if (st) {
        tlm_xlsx_close(x);
        return st;
    }
    *out = x;
    return TLM_OK;
}

static tlm_xlsx *new_book(const char *label)
{
    tlm_xlsx *x = calloc(1, sizeof *x);
    if (x) {
        snprintf(x->path, sizeof x->path, "%s", label ? label : "");
        tlm_sbuf_init(&x->sst_text);
    }
    return x;
}

tlm_status tlm_xlsx_open(const char *path, tlm_xlsx **out, tlm_error *err)
{
    *out = NULL;
    tlm_xlsx *x = new_book(path);
    if (!x)
        return tlm_error_set(err, TLM_ENOMEM, path, -1, "out of memory");
    FILE *f; /* opened as every input is: never a FIFO, never blocking */
    tlm_status ost = tlm_fopen_input(path, &f, err);
    if (ost != TLM_OK) {
        tlm_xlsx_close(x);
        if (ost != TLM_ENOTFOUND && ost != TLM_EIO)
            return ost; /* a FIFO, a folder: said as such */
        const char *m = err ? strstr(err->msg, "cannot open: ") : NULL;
        char why[128];
        snprintf(why, sizeof why, "%s", m ? m + 13 : "not readable");
        return tlm_error_set(err, TLM_EIO, path, -1,
                             "cannot open the workbook: %s", why);
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_filep_create(f, 0, -1, &ze);
    if (!src)
        fclose(f);
    else if (!(x->zip = zip_open_from_source(src, ZIP_RDONLY, &ze)))
        zip_source_free(src); /* closes f */
    if (!x->zip) {
        tlm_status st = open_zip_error(x, &ze, err);
        zip_error_fini(&ze);
        tlm_xlsx_close(x);
        return st;
    }
    zip_error_fini(&ze);
    return finish_open(x, out, err);
}

tlm_status tlm_xlsx_open_mem(const void *data, size_t n, const char *label,
                             tlm_xlsx **out, tlm_error *err)
{
    *out = NULL;
    tlm_xlsx *x = new_book(label);
    if (!x)
        return tlm_error_set(err, TLM_ENOMEM, label, -1, "out of memory");
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(data, n, 0, &ze);
    if (src && !(x->zip = zip_open_from_source(src, ZIP_RDONLY, &ze)))
        zip_source_free(src);
    if (!x->zip) {
        tlm_status st = open_zip_error(x, &ze, err);
        zip_error_fini(&ze);
        tlm_xlsx_close(x);
        return st;
    }
    zip_error_fini(&ze);
    return finish_open(x, out, err);
}

size_t tlm_xlsx_nsheets(const tlm_xlsx *x)
{
    return x->nsheets;
}

const char *tlm_xlsx_sheet_name(const tlm_xlsx *x, size_t i)
{
    return i < x->nsheets ? x->sheets[i].name : NULL;
}

tlm_status tlm_xlsx_read_sheet(tlm_xlsx *x, const char *name,
                               tlm_rawtab **out, tlm_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < x->nsheets; i++)
        if (!strcmp(x->sheets[i].name, name))
            return tlm_xlsx_sheet_read(x, x->sheets[i].part, out, err);
    return tlm_error_set(err, TLM_ENOTFOUND, x->path, -1,
                         "%s has no sheet named '%s'", x->path, name);
}

void tlm_xlsx_close(tlm_xlsx *x)
{
    if (!x)
        return;
    if (x->zip)
        zip_discard(x->zip);
    for (size_t i = 0; i < x->nsheets; i++) {
        free(x->sheets[i].name);
        free(x->sheets[i].part);
    }
    free(x->sheets);
    free(x->sst_off);
    free(x->sst_len);
    tlm_sbuf_free(&x->sst_text);
    free(x);
}
