/*
 * perf_json.c - a small recursive-descent JSON parser producing a flat DOM.
 *
 * Used by the perf models to read an op event's argument texts (a few
 * hundred bytes of compact JSON) and by the GPU-arch loader (a file of a
 * few hundred bytes).  Each value needs at least one input byte, so
 * len + 1 nodes and len + 1 string bytes always suffice: one allocation,
 * no reallocation, and no way for input to grow memory beyond O(len).
 */
#include <stdlib.h>
#include <string.h>

#include "hexnum.h"
#include "perf_internal.h"

typedef struct pj_parser {
    const char *s;
    size_t len;
    size_t pos;
    size_t max_depth;
    tlm_pj_doc *doc;
    const char *what;
} pj_parser;

static void skip_ws(pj_parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            break;
        }
        p->pos++;
    }
}

static int new_node(pj_parser *p, tlm_pj_type type)
{
    tlm_pj_node *n;
    if (p->doc->n >= p->doc->cap) {
        return -1; /* cannot happen: cap = len + 1 */
    }
    n = &p->doc->nodes[p->doc->n];
    memset(n, 0, sizeof(*n));
    n->type = type;
    n->first = -1;
    n->next = -1;
    n->offset = p->pos;
    return (int)p->doc->n++;
}

static tlm_status fail(pj_parser *p, const char *what)
{
    p->what = what;
    return TLM_EFORMAT;
}

static void put_utf8(tlm_pj_doc *d, unsigned long cp)
{
    char *o = d->sbuf + d->sused;
    if (cp < 0x80) {
        o[0] = (char)cp;
        d->sused += 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        d->sused += 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        d->sused += 3;
    } else {
        o[0] = (char)(0xF0 | (cp >> 18));
        o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        d->sused += 4;
    }
}

static tlm_status read_hex4(pj_parser *p, unsigned long *out)
{
    unsigned long v = 0;
    int i;
    if (p->len - p->pos < 4) {
        return fail(p, "truncated \\u escape");
    }
    for (i = 0; i < 4; i++) {
        int h = tlm_hexval((unsigned char)p->s[p->pos + (size_t)i]);
        if (h < 0) {
            return fail(p, "bad hex digit in \\u escape");
        }
        v = v * 16 + (unsigned long)h;
    }
    p->pos += 4;
    *out = v;
    return TLM_OK;
}

/* Parses a string at p->pos (which is '"'); result in the side buffer.
 * Escaped output is never longer than its input. */
static tlm_status parse_string(pj_parser *p, const char **out, size_t *olen)
{
    tlm_pj_doc *d = p->doc;
    size_t start = d->sused;
    p->pos++; /* opening quote */
    for (;;) {
        unsigned char c;
        if (p->pos >= p->len) {
            return fail(p, "unterminated string");
        }
        c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            return fail(p, "control character in string");
        }
        if (c != '\\') {
            d->sbuf[d->sused++] = (char)c;
            p->pos++;
            continue;
        }
        p->pos++;
        if (p->pos >= p->len) {
            return fail(p, "unterminated escape");
        }
        c = (unsigned char)p->s[p->pos++];
        switch (c) {
        case '"': d->sbuf[d->sused++] = '"'; break;
        case '\\': d->sbuf[d->sused++] = '\\'; break;
        case '/': d->sbuf[d->sused++] = '/'; break;
        case 'b': d->sbuf[d->sused++] = '\b'; break;
        case 'f': d->sbuf[d->sused++] = '\f'; break;
        case 'n': d->sbuf[d->sused++] = '\n'; break;
        case 'r': d->sbuf[d->sused++] = '\r'; break;
        case 't': d->sbuf[d->sused++] = '\t'; break;
        case 'u': {
            unsigned long cp;
            tlm_status st = read_hex4(p, &cp);
            if (st != TLM_OK) {
                return st;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF && p->len - p->pos >= 6 &&
                p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
                unsigned long lo;
                size_t save = p->pos;
                p->pos += 2;
                st = read_hex4(p, &lo);
                if (st == TLM_OK && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else {
                    p->pos = save;
                }
            }
            put_utf8(d, cp);
            break;
        }
        default:
            return fail(p, "invalid escape");
        }
    }
    d->sbuf[d->sused++] = '\0';
    *out = d->sbuf + start;
    *olen = d->sused - start - 1;
    return TLM_OK;
}

static tlm_status parse_number(pj_parser *p, tlm_pj_node *n)
{
    char tmp[64];
    size_t start = p->pos;
    size_t k;
    int is_int = 1;
    char *end;
    if (p->pos < p->len && p->s[p->pos] == '-') {
        p->pos++;
    }
    if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
        return fail(p, "expected a digit");
    }
    if (p->s[p->pos] == '0') {
        p->pos++;
    } else {
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
            p->pos++;
        }
    }
    if (p->pos < p->len && p->s[p->pos] == '.') {
        is_int = 0;
        p->pos++;
        if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
            return fail(p, "expected a digit after '.'");
        }
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
            p->pos++;
        }
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        is_int = 0;
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-')) {
            p->pos++;
        }
        if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
            return fail(p, "expected a digit in exponent");
        }
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
            p->pos++;
        }
    }
    k = p->pos - start;
    if (k >= sizeof(tmp)) {
        p->pos = start;
        return fail(p, "number too long");
    }
    memcpy(tmp, p->s + start, k);
    tmp[k] = '\0';
    n->dval = strtod(tmp, &end);
    n->is_int = 0;
    if (is_int) {
        /* Manual int64 parse with overflow check (no errno games). */
        const char *q = tmp;
        int neg = 0;
        uint64_t v = 0;
        int ok = 1;
        if (*q == '-') {
            neg = 1;
            q++;
        }
        for (; *q; q++) {
            unsigned d = (unsigned)(*q - '0');
            if (v > (UINT64_MAX - d) / 10) {
                ok = 0;
                break;
            }
            v = v * 10 + d;
        }
        if (ok && !neg && v <= (uint64_t)INT64_MAX) {
            n->ival = (int64_t)v;
            n->is_int = 1;
        } else if (ok && neg && v <= (uint64_t)INT64_MAX + 1u) {
            n->ival = v == (uint64_t)INT64_MAX + 1u ? INT64_MIN
                                                    : -(int64_t)v;
            n->is_int = 1;
        }
    }
    return TLM_OK;
}

static int match_lit(pj_parser *p, const char *lit)
{
    size_t k = strlen(lit);
    if (p->len - p->pos >= k && memcmp(p->s + p->pos, lit, k) == 0) {
        p->pos += k;
        return 1;
    }
    return 0;
}

static tlm_status parse_value(pj_parser *p, size_t depth, int *out);

static tlm_status parse_container(pj_parser *p, size_t depth, int idx,
                                  int is_obj)
{
    char close = is_obj ? '}' : ']';
    int last = -1;
    p->pos++; /* '[' or '{' */
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return TLM_OK;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen = 0;
        int child;
        tlm_status st;
        skip_ws(p);
        if (is_obj) {
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                return fail(p, "expected a string key");
            }
            st = parse_string(p, &key, &klen);
            if (st != TLM_OK) {
                return st;
            }
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                return fail(p, "expected ':'");
            }
            p->pos++;
            skip_ws(p);
        }
        st = parse_value(p, depth + 1, &child);
        if (st != TLM_OK) {
            return st;
        }
        p->doc->nodes[child].key = key;
        p->doc->nodes[child].klen = klen;
        if (last < 0) {
            p->doc->nodes[idx].first = child;
        } else {
            p->doc->nodes[last].next = child;
        }
        last = child;
        p->doc->nodes[idx].count++;
        skip_ws(p);
        if (p->pos >= p->len) {
            return fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        if (p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->s[p->pos] == close) {
            p->pos++;
            return TLM_OK;
        }
        return fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static tlm_status parse_value(pj_parser *p, size_t depth, int *out)
{
    int idx;
    char c;
    if (depth > p->max_depth) {
        p->what = "nesting too deep";
        return TLM_ELIMIT;
    }
    skip_ws(p);
    if (p->pos >= p->len) {
        return fail(p, "unexpected end of input");
    }
    c = p->s[p->pos];
    if (c == '[' || c == '{') {
        idx = new_node(p, c == '[' ? TLM_PJ_ARR : TLM_PJ_OBJ);
        if (idx < 0) {
            return fail(p, "internal node limit");
        }
        *out = idx;
        return parse_container(p, depth, idx, c == '{');
    }
    if (c == '"') {
        tlm_status st;
        const char *s;
        size_t sl;
        idx = new_node(p, TLM_PJ_STR);
        if (idx < 0) {
            return fail(p, "internal node limit");
        }
        st = parse_string(p, &s, &sl);
        if (st != TLM_OK) {
            return st;
        }
        p->doc->nodes[idx].str = s;
        p->doc->nodes[idx].slen = sl;
        *out = idx;
        return TLM_OK;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        idx = new_node(p, TLM_PJ_NUM);
        if (idx < 0) {
            return fail(p, "internal node limit");
        }
        *out = idx;
        return parse_number(p, &p->doc->nodes[idx]);
    }
    idx = new_node(p, TLM_PJ_NULL);
    if (idx < 0) {
        return fail(p, "internal node limit");
    }
    *out = idx;
    if (match_lit(p, "null")) {
        return TLM_OK;
    }
    if (match_lit(p, "true")) {
        p->doc->nodes[idx].type = TLM_PJ_BOOL;
        p->doc->nodes[idx].bval = 1;
        return TLM_OK;
    }
    if (match_lit(p, "false")) {
        p->doc->nodes[idx].type = TLM_PJ_BOOL;
        return TLM_OK;
    }
    return fail(p, "expected a JSON value");
}

tlm_status tlm_pj_parse(const char *text, size_t len, size_t max_depth,
                        tlm_pj_doc *doc, size_t *err_off,
                        const char **err_what)
{
    pj_parser p;
    tlm_status st;
    int root = -1;
    memset(doc, 0, sizeof(*doc));
    doc->root = -1;
    *err_off = 0;
    *err_what = "";
    if (text == NULL) {
        *err_what = "no input";
        return TLM_EFORMAT;
    }
    doc->cap = len + 1;
    doc->scap = len + 1;
    doc->nodes = malloc(doc->cap * sizeof(tlm_pj_node));
    doc->sbuf = malloc(doc->scap);
    if (doc->nodes == NULL || doc->sbuf == NULL) {
        *err_what = "out of memory";
        return TLM_ENOMEM;
    }
    p.s = text;
    p.len = len;
    p.pos = 0;
    p.max_depth = max_depth;
    p.doc = doc;
    p.what = "";
    st = parse_value(&p, 0, &root);
    if (st == TLM_OK) {
        skip_ws(&p);
        if (p.pos != len) {
            st = fail(&p, "trailing characters after the value");
        }
    }
    if (st != TLM_OK) {
        *err_off = p.pos;
        *err_what = p.what;
        return st;
    }
    doc->root = root;
    return TLM_OK;
}

void tlm_pj_free(tlm_pj_doc *doc)
{
    if (doc == NULL) {
        return;
    }
    free(doc->nodes);
    free(doc->sbuf);
    memset(doc, 0, sizeof(*doc));
    doc->root = -1;
}

const tlm_pj_node *tlm_pj_node_at(const tlm_pj_doc *doc, int idx)
{
    if (doc == NULL || idx < 0 || (size_t)idx >= doc->n) {
        return NULL;
    }
    return &doc->nodes[idx];
}

const tlm_pj_node *tlm_pj_child(const tlm_pj_doc *doc,
                                const tlm_pj_node *n, size_t i)
{
    int c;
    if (n == NULL || (n->type != TLM_PJ_ARR && n->type != TLM_PJ_OBJ) ||
        i >= n->count) {
        return NULL;
    }
    c = n->first;
    while (i > 0 && c >= 0) {
        c = doc->nodes[c].next;
        i--;
    }
    return tlm_pj_node_at(doc, c);
}

const tlm_pj_node *tlm_pj_member(const tlm_pj_doc *doc,
                                 const tlm_pj_node *n, const char *key)
{
    int c;
    size_t kl;
    if (n == NULL || n->type != TLM_PJ_OBJ || key == NULL) {
        return NULL;
    }
    kl = strlen(key);
    for (c = n->first; c >= 0; c = doc->nodes[c].next) {
        const tlm_pj_node *m = &doc->nodes[c];
        if (m->klen == kl && memcmp(m->key, key, kl) == 0) {
            return m;
        }
    }
    return NULL;
}
