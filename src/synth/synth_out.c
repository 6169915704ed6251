/*
 * synth_out.c - the output side of tlmpi-synth: a 4 MiB buffer in front of a
 * FILE or a zlib gzFile, with integer and timestamp formatting done by hand
 * (no printf per value), so gigabyte traces are written at disk / deflate
 * speed in constant memory.
 */
#include "synth_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define OUT_CAP ((size_t)4 << 20)

tlm_status tlm_synth_out_open(tlm_synth_out *o, const char *path, int gzip,
                              int level)
{
    memset(o, 0, sizeof *o);
    o->st = TLM_OK;
    o->buf = malloc(OUT_CAP);
    if (!o->buf)
        return TLM_ENOMEM;
    o->cap = OUT_CAP;
    if (!path) {
        o->discard = 1;
        return TLM_OK;
    }
    if (gzip) {
        char mode[8];
        snprintf(mode, sizeof mode, "wb%d", level < 1 ? 1 : level > 9 ? 9
                                                                     : level);
        gzFile gz = gzopen(path, mode);
        if (!gz) {
            free(o->buf);
            o->buf = NULL;
            return TLM_EIO;
        }
        gzbuffer(gz, 1u << 20);
        o->gz = gz;
    } else {
        o->fp = fopen(path, "wb");
        if (!o->fp) {
            free(o->buf);
            o->buf = NULL;
            return TLM_EIO;
        }
    }
    return TLM_OK;
}

void tlm_synth_flush(tlm_synth_out *o)
{
    if (o->len == 0)
        return;
    if (o->st == TLM_OK && !o->discard) {
        if (o->gz) {
            if (gzwrite((gzFile)o->gz, o->buf, (unsigned)o->len) !=
                (int)o->len)
                o->st = TLM_EIO;
        } else if (o->fp) {
            if (fwrite(o->buf, 1, o->len, o->fp) != o->len)
                o->st = TLM_EIO;
        }
    }
    o->len = 0;
}

tlm_status tlm_synth_out_close(tlm_synth_out *o)
{
    if (o->buf)
        tlm_synth_flush(o);
    if (o->gz) {
        if (gzclose((gzFile)o->gz) != Z_OK && o->st == TLM_OK)
            o->st = TLM_EIO;
        o->gz = NULL;
    }
    if (o->fp) {
        if (fclose(o->fp) != 0 && o->st == TLM_OK)
            o->st = TLM_EIO;
        o->fp = NULL;
    }
    free(o->buf);
    o->buf = NULL;
    return o->st;
}

void tlm_synth_putn(tlm_synth_out *o, const char *s, size_t n)
{
    o->total += n;
    while (n > 0) {
        size_t room = o->cap - o->len;
        if (room == 0) {
            tlm_synth_flush(o);
            room = o->cap;
        }
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void tlm_synth_puts(tlm_synth_out *o, const char *s)
{
    tlm_synth_putn(o, s, strlen(s));
}

void tlm_synth_putc(tlm_synth_out *o, char c)
{
    if (o->len == o->cap)
        tlm_synth_flush(o);
    o->buf[o->len++] = c;
    o->total++;
}

/* |v| without overflow at INT64_MIN. */
static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* Writes the decimal digits of u, and a '-' when neg, in front of
 * tmp[i..size) (what is already there, if anything) and puts it all. */
static void put_number(tlm_synth_out *o, char *tmp, size_t size, size_t i,
                       uint64_t u, int neg)
{
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg)
        tmp[--i] = '-';
    tlm_synth_putn(o, tmp + i, size - i);
}

void tlm_synth_puti(tlm_synth_out *o, int64_t v)
{
    char tmp[24];
    put_number(o, tmp, sizeof tmp, sizeof tmp, magnitude(v), v < 0);
}

void tlm_synth_putus(tlm_synth_out *o, int64_t ns)
{
    char tmp[32];
    size_t i = sizeof tmp;
    uint64_t u = magnitude(ns);
    uint64_t frac = u % 1000;
    tmp[--i] = (char)('0' + frac % 10);
    tmp[--i] = (char)('0' + frac / 10 % 10);
    tmp[--i] = (char)('0' + frac / 100);
    tmp[--i] = '.';
    put_number(o, tmp, sizeof tmp, i, u / 1000, ns < 0);
}

void tlm_synth_put_ints(tlm_synth_out *o, const int *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            tlm_synth_putn(o, ", ", 2);
        tlm_synth_puti(o, v[i]);
    }
}

void tlm_synth_putq(tlm_synth_out *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    tlm_synth_putc(o, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        tlm_synth_putn(o, run, (size_t)(s - run));
        run = s + 1;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            tlm_synth_putn(o, e, 2);
        } else {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            tlm_synth_putn(o, e, 6);
        }
    }
    tlm_synth_putn(o, run, (size_t)(s - run));
    tlm_synth_putc(o, '"');
}
