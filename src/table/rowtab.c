/*
 * rowtab.c - what the fixed-size rows of tlm_table.h need besides their
 * descriptors: copying text into a fixed string field without cutting a
 * UTF-8 character in two.
 */
#include <string.h>

#include "tlmpi/tlm_table.h"

/* Length of s[0..n) without a trailing, incomplete UTF-8 sequence (what a
 * byte-wise truncation may leave). */
size_t tlm_utf8_cut(const char *s, size_t n)
{
    size_t k = n, back = 0;
    while (k > 0 && back < 4 && ((unsigned char)s[k - 1] & 0xC0) == 0x80) {
        k--;
        back++;
    }
    if (k == 0)
        return n;
    unsigned char lead = (unsigned char)s[k - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (need == 1)
        return n;
    return back + 1 >= need ? n : k - 1;
}

void tlm_strset(char *dst, size_t cap, const char *s)
{
    if (!dst || cap == 0)
        return;
    if (!s)
        s = "";
    size_t n = strlen(s);
    if (n >= cap)
        n = tlm_utf8_cut(s, cap - 1);
    memcpy(dst, s, n);
    memset(dst + n, 0, cap - n);
}

void tlm_strnset(char *dst, size_t cap, const char *src, size_t srccap)
{
    if (!dst || cap == 0)
        return;
    size_t n = src ? strnlen(src, srccap) : 0;
    if (n >= cap)
        n = tlm_utf8_cut(src, cap - 1);
    if (n)
        memcpy(dst, src, n);
    memset(dst + n, 0, cap - n);
}
