/*
 * fuzz_sniff.c - libFuzzer target for content sniffing (src/trace/sniff.c).
 *
 * Input: the bytes of a file.  Properties: tlm_trace_sniff_mem never reads
 * past the head at any length (every 7th prefix, complete or not, in an
 * exactly sized buffer), its verdict is TRACE or NOT_TRACE with a
 * terminated reason; and whenever the full reader reads the same bytes
 * into at least one event, the sniff of the whole input says TRACE (for a
 * bare array: when its first event has a ph, a name or a ts, the keys the
 * sniff looks for).  A violation calls abort().
 */
#include "tlmpi/tlm_sniff.h"
#include "tlmpi/tlm_trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sniff: %s\n", what);
        abort();
    }
}

static void sniff_prefix(const uint8_t *data, size_t n, int complete,
                         tlm_sniff *out)
{
    char *h = malloc(n ? n : 1);
    if (!h)
        return;
    memcpy(h, data, n);
    tlm_trace_sniff_mem(h, n, complete, out);
    free(h);
    check(out->verdict == TLM_SNIFF_TRACE ||
              out->verdict == TLM_SNIFF_NOT_TRACE, "verdict");
    check(memchr(out->reason, 0, sizeof out->reason) != NULL, "reason");
}

/* The first non-blank byte is '[' (a bare array). */
static int bare(const uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d[i] != ' ' && d[i] != '\t' && d[i] != '\n' && d[i] != '\r')
            return d[i] == '[';
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tlm_sniff s;
    for (size_t n = 0; n < size; n += 7)
        sniff_prefix(data, n, 0, &s);
    sniff_prefix(data, size, 1, &s);
    tlm_read_opts o;
    tlm_read_opts_init(&o);
    tlm_trace *t = NULL;
    if (tlm_trace_read_mem(data, size, "fuzz", &o, &t, NULL) != TLM_OK)
        return 0;
    size_t ne = 0;
    const tlm_event *ev = tlm_trace_events(t, &ne);
    int want = ne > 0 && (!bare(data, size) || ev[0].ph || ev[0].name ||
                          ev[0].ts);
    tlm_trace_free(t);
    if (want)
        check(s.verdict == TLM_SNIFF_TRACE, "the reader reads events");
    return 0;
}
