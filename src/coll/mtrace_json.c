/*
 * mtrace_json.c - the small pieces of the merged trace (tlm_mtrace.h):
 * the filter names, flow ids, the role of each member of an instance, and
 * the JSON text of hostile strings and of nanosecond times.
 *
 * Strings: a trace's names may hold anything the tokenizer decoded (NUL
 * bytes from \u0000, lone surrogates, invalid UTF-8 from a broken file).
 * The merged trace must still parse everywhere (Python's json, Perfetto),
 * so the text written is valid UTF-8 with every control character
 * escaped, and bounded.
 */
#include "tlmpi/tlm_mtrace.h"

#include <stdlib.h>
#include <string.h>

static const char *const filter_names[] = {"all", "kernels", "collectives"};

int tlm_mtrace_filter_parse(const char *s, tlm_mtrace_filter *out)
{
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, filter_names[i]) == 0) {
            *out = (tlm_mtrace_filter)i;
            return 0;
        }
    return -1;
}

const char *tlm_mtrace_filter_name(tlm_mtrace_filter f)
{
    return (unsigned)f < 3 ? filter_names[f] : "?";
}

uint64_t tlm_mtrace_flow_id(uint64_t match_key, int64_t seq)
{
    uint64_t k[2] = {match_key, (uint64_t)seq};
    uint64_t h = tlm_hash64(k, sizeof k) >> 11; /* 53 bits */
    return h ? h : 1;
}

/* ---------------------------------------------------------------- roles */

static int cmp_item(const void *a, const void *b)
{
    const tlm_mtrace_item *x = a, *y = b;
    if (x->match_key != y->match_key)
        return x->match_key < y->match_key ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->ts_ns != y->ts_ns)
        return x->ts_ns < y->ts_ns ? -1 : 1;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

void tlm_mtrace_roles(tlm_mtrace_item *items, size_t n)
{
    if (n > 1)
        qsort(items, n, sizeof *items, cmp_item);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && items[j].match_key == items[i].match_key &&
               items[j].seq == items[i].seq)
            j++;
        for (size_t k = i; k < j; k++)
            items[k].role = j - i < 2     ? TLM_MTRACE_ROLE_NONE
                            : k == i      ? TLM_MTRACE_ROLE_START
                            : k == j - 1  ? TLM_MTRACE_ROLE_END
                                          : TLM_MTRACE_ROLE_STEP;
        i = j;
    }
}

/* ---------------------------------------------------------------- text */

/* Length of the valid UTF-8 sequence at s[0..n) (1..4), or 0 when the
 * bytes there are not one (overlong forms, surrogates and values above
 * U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2
                              : (c & 0xf0) == 0xe0 ? 3
                              : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f
                                                                : c & 0x07;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

int tlm_mtrace_json_str(char *buf, size_t cap, size_t *len, const char *s,
                        size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t o = *len;
    if (n > TLM_MTRACE_STR_MAX)
        n = TLM_MTRACE_STR_MAX;
    if (o + 1 >= cap)
        return -1;
    buf[o++] = '"';
    for (size_t i = 0; i < n;) {
        size_t l = utf8_len(u + i, n - i);
        if (o + 8 >= cap)
            return -1;
        if (l == 0) { /* invalid, or a sequence the cut split */
            memcpy(buf + o, "\\ufffd", 6);
            o += 6;
            i++;
            continue;
        }
        unsigned c = u[i];
        if (l > 1) {
            memcpy(buf + o, u + i, l);
            o += l;
        } else if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(buf + o, "\\u00", 4);
            buf[o + 4] = hex[c >> 4];
            buf[o + 5] = hex[c & 15];
            o += 6;
        } else {
            buf[o++] = (char)c;
        }
        i += l;
    }
    if (o + 1 >= cap)
        return -1;
    buf[o++] = '"';
    *len = o;
    return 0;
}

int tlm_mtrace_json_us(char *buf, size_t cap, size_t *len, int64_t ns)
{
    char tmp[32];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    size_t k = 0;
    /* digits, least significant first: 3 decimals, the point, the rest */
    for (int d = 0; d < 3; d++) {
        tmp[k++] = (char)('0' + a % 10);
        a /= 10;
    }
    tmp[k++] = '.';
    do {
        tmp[k++] = (char)('0' + a % 10);
        a /= 10;
    } while (a);
    if (ns < 0)
        tmp[k++] = '-';
    if (*len + k + 1 > cap)
        return -1;
    for (size_t i = 0; i < k; i++)
        buf[*len + i] = tmp[k - 1 - i];
    *len += k;
    return 0;
}
