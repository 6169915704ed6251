/*
 * fuzz_xplane.c - libFuzzer target for the XPlane reader and the JAX
 * sheets (src/trace/xplane_*.c, src/report/xsheets_*.c).
 *
 * Input: the bytes of a file (gzip or not).  Properties: the reader
 * returns TLM_OK or an error whose offset lies inside the (inflated)
 * input and whose message is terminated; on TLM_OK every event's line
 * and every line's plane index is in range, every duration is >= 0, and
 * the sheets build (or refuse with TLM_EFORMAT) in both modes; the sniff
 * never reads past its head at any prefix.  A violation calls abort().
 */
#include "tlmpi/tlm_xplane.h"

#include "xsheets.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_xplane: %s\n", what);
        abort();
    }
}

static void check_model(const tlm_xplane *x)
{
    size_t np, nl, ne;
    tlm_xplane_planes(x, &np);
    const tlm_xp_line *ln = tlm_xplane_lines(x, &nl);
    const tlm_xp_event *ev = tlm_xplane_events(x, &ne);
    for (size_t i = 0; i < nl; i++)
        check(ln[i].plane < np && ln[i].name != NULL, "line");
    for (size_t i = 0; i < ne; i++)
        check(ev[i].line < nl && ev[i].dur_ps >= 0, "event");
    for (unsigned compat = 0; compat < 2; compat++) {
        tlm_tab *t[TLM_XSHEETS_N];
        tlm_error err;
        tlm_status st = tlm_xsheets_build(x, compat ? TLM_COMPAT_ALL : 0, t,
                                          &err);
        check(st == TLM_OK || st == TLM_EFORMAT, "sheets status");
        for (int k = 0; k < TLM_XSHEETS_N; k++) {
            check((st == TLM_OK) == (t[k] != NULL), "sheet");
            tlm_tab_free(t[k]);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t n = 0; n < size && n < 256; n += 5) {
        uint8_t *h = malloc(n ? n : 1);
        if (!h)
            return 0;
        memcpy(h, data, n);
        (void)tlm_xplane_sniff(h, n, 0);
        free(h);
    }
    tlm_xplane_opts o;
    tlm_xplane_opts_init(&o);
    o.max_bytes = 64u << 20;
    tlm_xplane *x = NULL;
    tlm_error err;
    tlm_status st = tlm_xplane_read_mem(data, size, "fuzz", &o, &x, &err);
    if (st != TLM_OK) {
        check(x == NULL, "no model on error");
        check(memchr(err.msg, 0, sizeof err.msg) != NULL, "message");
        check(err.offset >= -1, "offset");
        if (size < 2 || data[0] != 0x1f || data[1] != 0x8b)
            check(err.offset <= (int64_t)size, "offset inside the input");
        return 0;
    }
    check_model(x);
    tlm_xplane_free(x);
    return 0;
}
