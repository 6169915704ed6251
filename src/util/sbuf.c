/*
 * sbuf.c - the growable string buffer (tlm_sbuf) every writer builds text
 * in: appends never fail loudly; an allocation failure sets a sticky oom
 * flag that the caller checks once at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sbuf.h"

void tlm_sbuf_init(tlm_sbuf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void tlm_sbuf_free(tlm_sbuf *b)
{
    free(b->p);
    tlm_sbuf_init(b);
}

void tlm_sbuf_reset(tlm_sbuf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

int tlm_sbuf_reserve(tlm_sbuf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    if (tlm_grow((void **)&b->p, &b->cap, b->len + extra + 1, 1, 64)) {
        b->oom = 1;
        return -1;
    }
    return 0;
}

void tlm_sbuf_putn(tlm_sbuf *b, const char *s, size_t n)
{
    if (tlm_sbuf_reserve(b, n))
        return;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void tlm_sbuf_puts(tlm_sbuf *b, const char *s)
{
    tlm_sbuf_putn(b, s, strlen(s));
}

void tlm_sbuf_putc(tlm_sbuf *b, char c)
{
    tlm_sbuf_putn(b, &c, 1);
}

void tlm_sbuf_printf(tlm_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        tlm_sbuf_putn(b, small, (size_t)n);
        return;
    }
    if (tlm_sbuf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

int tlm_csv_needs_quotes(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            return 1;
    return 0;
}

void tlm_csv_fput(FILE *f, const char *s, size_t n)
{
    if (!tlm_csv_needs_quotes(s, n)) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

void tlm_sbuf_csv_field(tlm_sbuf *b, const char *s, size_t n)
{
    if (!tlm_csv_needs_quotes(s, n)) {
        tlm_sbuf_putn(b, s, n);
        return;
    }
    tlm_sbuf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            tlm_sbuf_putc(b, '"');
        tlm_sbuf_putc(b, s[i]);
    }
    tlm_sbuf_putc(b, '"');
}

int tlm_formula_like(const char *s)
{
    if (!s || !s[0] || !strchr("=+-@\t\r", s[0]))
        return 0;
    char *end;
    (void)strtod(s, &end);
    return end == s || *end != '\0';
}

void tlm_sbuf_csv_guarded(tlm_sbuf *b, const char *s, size_t n)
{
    if (!n || !tlm_formula_like(s)) {
        tlm_sbuf_csv_field(b, s, n);
        return;
    }
    /* the "'" first; quoted when the text needs it */
    int q = tlm_csv_needs_quotes(s, n);
    if (q)
        tlm_sbuf_putc(b, '"');
    tlm_sbuf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (q && s[i] == '"')
            tlm_sbuf_putc(b, '"');
        tlm_sbuf_putc(b, s[i]);
    }
    if (q)
        tlm_sbuf_putc(b, '"');
}

void tlm_sbuf_md(tlm_sbuf *b, const char *s, size_t maxlen, int mode)
{
    size_t n = s ? strlen(s) : 0;
    size_t cut = n > maxlen ? maxlen : n;
    while (cut < n && cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
        cut--; /* never inside a UTF-8 character */
    for (size_t i = 0; i < cut; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            tlm_sbuf_putc(b, ' ');
        else if (strchr("\\|<>`", c) ||
                 (mode == TLM_MD_TEXT && strchr("*_[]#~&", c)))
            tlm_sbuf_putc(b, '\\'), tlm_sbuf_putc(b, (char)c);
        else
            tlm_sbuf_putc(b, (char)c);
    }
    if (cut < n)
        tlm_sbuf_puts(b, "...");
}
