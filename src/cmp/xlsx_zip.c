/*
 * xlsx_zip.c - the parts of a workbook package streamed from the zip
 * archive into expat within bounds (xlsx_internal.h): entry size and
 * compression ratio, nesting depth, no DTD; part paths of relationship
 * targets; Excel's _xHHHH_ escapes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlsx_internal.h"

const char *tlm_xml_local(const char *name)
{
    const char *bar = strrchr(name, '|');
    return bar ? bar + 1 : name;
}

const char *tlm_xml_attr(const char **atts, const char *ns_suffix,
                         const char *local)
{
    for (size_t i = 0; atts[i]; i += 2) {
        const char *bar = strrchr(atts[i], '|');
        const char *loc = bar ? bar + 1 : atts[i];
        if (strcmp(loc, local))
            continue;
        if (!ns_suffix && !bar)
            return atts[i + 1];
        if (ns_suffix && bar) {
            size_t nl = (size_t)(bar - atts[i]), sl = strlen(ns_suffix);
            if (nl >= sl && !memcmp(bar - sl, ns_suffix, sl))
                return atts[i + 1];
        }
    }
    return NULL;
}

void tlm_xml_fail(tlm_xml *xs, tlm_status st, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    if (xs->st)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    xs->st = tlm_error_set(xs->err, st, xs->x->path, -1, "%s: line %lu: %s",
                           xs->part,
                           (unsigned long)XML_GetCurrentLineNumber(xs->p),
                           msg);
    XML_StopParser(xs->p, XML_FALSE);
}

int tlm_xml_enter(tlm_xml *xs)
{
    if (++xs->depth > TLM_XLSX_DEPTH_MAX) {
        tlm_xml_fail(xs, TLM_ELIMIT, "XML nested deeper than %d levels",
                     TLM_XLSX_DEPTH_MAX);
        return -1;
    }
    return 0;
}

void tlm_xml_leave(tlm_xml *xs)
{
    xs->depth--;
}

static void on_doctype(void *ud, const XML_Char *name, const XML_Char *sys,
                       const XML_Char *pub, int has_internal)
{
    tlm_xml *xs = ud;
    tlm_xml_fail(xs, TLM_EFORMAT, "a DTD is not allowed in a workbook");
}

tlm_status tlm_xml_init(tlm_xml *xs, tlm_xlsx *x, const char *part,
                        tlm_error *err)
{
    memset(xs, 0, sizeof *xs);
    xs->x = x;
    xs->part = part;
    xs->err = err;
    xs->p = XML_ParserCreateNS(NULL, '|');
    if (!xs->p)
        return tlm_error_set(err, TLM_ENOMEM, x->path, -1,
                             "%s: out of memory", part);
    XML_SetUserData(xs->p, xs);
    XML_SetDoctypeDeclHandler(xs->p, on_doctype, NULL);
    return TLM_OK;
}

void tlm_xml_done(tlm_xml *xs)
{
    if (xs->p)
        XML_ParserFree(xs->p);
    xs->p = NULL;
}

static tlm_status part_error(tlm_xml *xs, tlm_status st, const char *what)
{
    if (xs->st)
        return xs->st;
    xs->st = tlm_error_set(xs->err, st, xs->x->path, -1, "%s: %s", xs->part,
                           what);
    return xs->st;
}

static tlm_status check_size(tlm_xml *xs, const zip_stat_t *zs)
{
    char msg[200];
    if (zs->size > TLM_XLSX_ENTRY_MAX) {
        snprintf(msg, sizeof msg, "%llu bytes uncompressed, above the "
                 "limit of %llu (refused as a zip bomb)",
                 (unsigned long long)zs->size,
                 (unsigned long long)TLM_XLSX_ENTRY_MAX);
        return part_error(xs, TLM_ELIMIT, msg);
    }
    if (zs->size > TLM_XLSX_RATIO_FROM &&
        zs->size / TLM_XLSX_RATIO_MAX > zs->comp_size) {
        snprintf(msg, sizeof msg, "%llu bytes uncompressed from %llu, more "
                 "than %d times (refused as a zip bomb)",
                 (unsigned long long)zs->size,
                 (unsigned long long)zs->comp_size, TLM_XLSX_RATIO_MAX);
        return part_error(xs, TLM_ELIMIT, msg);
    }
    return TLM_OK;
}

static tlm_status feed(tlm_xml *xs, const char *buf, size_t n, int last)
{
    if (XML_Parse(xs->p, buf, (int)n, last) == XML_STATUS_OK)
        return TLM_OK;
    if (xs->st)
        return xs->st;
    char msg[200];
    snprintf(msg, sizeof msg, "%s", XML_ErrorString(XML_GetErrorCode(xs->p)));
    tlm_xml_fail(xs, TLM_EFORMAT, "%s", msg);
    return xs->st;
}

static tlm_status stream(tlm_xml *xs, zip_file_t *zf, uint64_t declared)
{
    enum { CHUNK = 1 << 16 };
    char *buf = malloc(CHUNK);
    uint64_t total = 0;
    if (!buf)
        return part_error(xs, TLM_ENOMEM, "out of memory");
    tlm_status st = TLM_OK;
    for (;;) {
        zip_int64_t n = zip_fread(zf, buf, CHUNK);
        if (n < 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "corrupt zip entry: %s",
                     zip_file_strerror(zf));
            st = part_error(xs, TLM_EFORMAT, msg);
            break;
        }
        total += (uint64_t)n;
        if (total > declared) {
            st = part_error(xs, TLM_EFORMAT,
                            "zip entry larger than its declared size");
            break;
        }
        if ((st = feed(xs, buf, (size_t)n, n == 0)) || n == 0)
            break;
    }
    free(buf);
    return st;
}

tlm_status tlm_xml_run(tlm_xml *xs, int optional)
{
    zip_int64_t idx = zip_name_locate(xs->x->zip, xs->part, 0);
    if (idx < 0) {
        if (optional)
            return TLM_ENOTFOUND;
        return part_error(xs, TLM_EFORMAT, "part missing from the workbook");
    }
    zip_stat_t zs;
    zip_stat_init(&zs);
    if (zip_stat_index(xs->x->zip, (zip_uint64_t)idx, 0, &zs) ||
        !(zs.valid & ZIP_STAT_SIZE) || !(zs.valid & ZIP_STAT_COMP_SIZE))
        return part_error(xs, TLM_EFORMAT, "cannot read its zip entry");
    tlm_status st = check_size(xs, &zs);
    if (st)
        return st;
    zip_file_t *zf = zip_fopen_index(xs->x->zip, (zip_uint64_t)idx, 0);
    if (!zf) {
        char msg[200];
        snprintf(msg, sizeof msg, "cannot open its zip entry: %s",
                 zip_strerror(xs->x->zip));
        return part_error(xs, TLM_EFORMAT, msg);
    }
    st = stream(xs, zf, zs.size);
    zip_fclose(zf);
    return st;
}

char *tlm_xlsx_resolve(const char *base, const char *target)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    if (target[0] == '/') {
        target++;
    } else {
        const char *slash = strrchr(base, '/');
        if (slash)
            tlm_sbuf_putn(&b, base, (size_t)(slash - base) + 1);
    }
    tlm_sbuf_puts(&b, target);
    if (b.oom) {
        tlm_sbuf_free(&b);
        return NULL;
    }
    /* resolve "." and ".." segments in place */
    char *p = b.p, *w = b.p;
    for (int done = 0; !done;) {
        char *seg = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - seg);
        done = *p == '\0';
        p++; /* past the '/' (unread when done) */
        if ((n == 1 && seg[0] == '.') || n == 0)
            continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            if (w > b.p)
                w--; /* the '/' after the last kept segment */
            while (w > b.p && w[-1] != '/')
                w--;
            continue;
        }
        memmove(w, seg, n); /* w <= seg: the '/' below lands at or
                               before the separator already read */
        w += n;
        *w++ = '/';
    }
    if (w > b.p)
        w--;
    *w = '\0';
    return b.p;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void put_utf8(tlm_sbuf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 63));
        n = 2;
    } else {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 63));
        u[2] = (char)(0x80 | (cp & 63));
        n = 3;
    }
    tlm_sbuf_putn(b, u, n);
}

void tlm_xlsx_unescape(tlm_sbuf *b, const char *s, size_t n)
{
    size_t i = 0, from = 0;
    while (i + 7 <= n) {
        int h[4];
        if (s[i] == '_' && s[i + 1] == 'x' && s[i + 6] == '_' &&
            (h[0] = hexval(s[i + 2])) >= 0 && (h[1] = hexval(s[i + 3])) >= 0 &&
            (h[2] = hexval(s[i + 4])) >= 0 && (h[3] = hexval(s[i + 5])) >= 0) {
            unsigned cp = (unsigned)(h[0] << 12 | h[1] << 8 | h[2] << 4 | h[3]);
            if (cp >= 0xD800 && cp <= 0xDFFF) { /* a lone surrogate */
                i++;
                continue;
            }
            tlm_sbuf_putn(b, s + from, i - from);
            if (cp) /* a NUL would end the C string */
                put_utf8(b, cp);
            i += 7;
            from = i;
        } else {
            i++;
        }
    }
    tlm_sbuf_putn(b, s + from, n - from);
}
