/*
 * xlsx_names.c - Excel sheet names: what is valid (at most 31
 * characters, none of []:*?/\, no ' at either end, not empty) and the
 * distinct names tlm_xlsx_sheet_names derives from result names
 * (xlsx_write.h).
 */
#include <stdio.h>
#include <string.h>

#include "xlsx_write.h"

/* Bytes of the first max code points of s. */
static size_t utf8_prefix(const char *s, size_t max)
{
    size_t i = 0, k = 0;
    while (s[i] && k < max) {
        i++;
        while ((s[i] & 0xC0) == 0x80)
            i++;
        k++;
    }
    return i;
}

static size_t utf8_len(const char *s)
{
    size_t k = 0;
    for (; *s; s++)
        k += (*s & 0xC0) != 0x80;
    return k;
}

static int forbidden(char c)
{
    return c && strchr("[]:*?/\\", c) != NULL;
}

int tlm_xlsx_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (!n || utf8_len(name) > TLM_XLSX_NAME_CHARS || name[0] == '\'' ||
        name[n - 1] == '\'')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (forbidden(name[i]))
            return 0;
    return 1;
}

int tlm_xlsx_same_name(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y)
            return 0;
        if (!x)
            return 1;
    }
}

static int taken(char (*out)[TLM_XLSX_NAME_MAX], size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (tlm_xlsx_same_name(out[i], s))
            return 1;
    return 0;
}

/* name cut to 31 characters, forbidden characters replaced. */
static void clean(const char *name, char *dst)
{
    size_t n = utf8_prefix(name ? name : "", TLM_XLSX_NAME_CHARS);
    memcpy(dst, name ? name : "", n);
    dst[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (forbidden(dst[i]))
            dst[i] = '_';
    if (!n)
        strcpy(dst, "Sheet");
    n = strlen(dst);
    if (dst[0] == '\'')
        dst[0] = '_';
    if (dst[n - 1] == '\'')
        dst[n - 1] = '_';
}

void tlm_xlsx_sheet_names(const char *const *names, size_t n,
                          char (*out)[TLM_XLSX_NAME_MAX])
{
    for (size_t i = 0; i < n; i++) {
        char base[TLM_XLSX_NAME_MAX];
        clean(names[i], base);
        memcpy(out[i], base, sizeof base);
        for (unsigned k = 2; taken(out, i, out[i]) && k < 100000000u;
             k++) {
            char suf[16];
            int sl = snprintf(suf, sizeof suf, "~%u", k);
            size_t keep = utf8_prefix(base, TLM_XLSX_NAME_CHARS -
                                                (size_t)sl);
            memcpy(out[i], base, keep);
            memcpy(out[i] + keep, suf, (size_t)sl + 1);
        }
    }
}
