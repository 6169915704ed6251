/*
 * fuzz_rocprof.c - libFuzzer target for the rocprofv3 JSON reader
 * (src/trace/rocprof.c over rp_lex.c) and the rocprof sheets.
 *
 * Input: one configuration byte, then the document.  The configuration
 * picks the chunk size (1..32 bytes) and a small max_string.  The text is
 * read twice, with that chunk and with the default one (the whole input
 * in one window): both reads must agree (status, error offset, record
 * counts and every kernel's times and name), so a token cut by the window
 * at any byte reads as if whole.  A document that reads is also turned
 * into the six sheets in both modes.  A disagreement calls abort().
 */
#include "tlmpi/tlm_rocprof.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocprof_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_rocprof: mismatch: %s\n", what);
        abort();
    }
}

static void same(const tlm_rocprof *a, const tlm_rocprof *b)
{
    size_t na, nb;
    const tlm_rp_kernel *ka = tlm_rocprof_kernels(a, &na);
    const tlm_rp_kernel *kb = tlm_rocprof_kernels(b, &nb);
    check(na == nb, "kernel count");
    for (size_t i = 0; i < na; i++) {
        check(ka[i].start == kb[i].start && ka[i].end == kb[i].end,
              "kernel times");
        check(strcmp(tlm_rocprof_str(a, ka[i].name, NULL),
                     tlm_rocprof_str(b, kb[i].name, NULL)) == 0,
              "kernel name");
    }
    tlm_rocprof_copies(a, &na);
    tlm_rocprof_copies(b, &nb);
    check(na == nb, "copy count");
    tlm_rocprof_apis(a, &na);
    tlm_rocprof_apis(b, &nb);
    check(na == nb, "api count");
    tlm_rocprof_agents(a, &na);
    tlm_rocprof_agents(b, &nb);
    check(na == nb, "agent count");
}

static void sheets(const tlm_rocprof *rp)
{
    for (int compat = 0; compat <= 1; compat++) {
        tlm_rp_sheet_opts so;
        tlm_rp_sheet_opts_init(&so);
        so.compat = compat;
        so.hist_bins = 7;
        tlm_tab *tabs[TLM_RP_NSHEETS];
        if (tlm_rocprof_sheets(rp, &so, tabs, NULL) == TLM_OK)
            for (int i = 0; i < TLM_RP_NSHEETS; i++)
                tlm_tab_free(tabs[i]);
    }
    tlm_rp_busy b;
    tlm_rocprof_busy(rp, &b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    tlm_rocprof_opts o1, o2;
    memset(&o1, 0, sizeof o1);
    memset(&o2, 0, sizeof o2);
    o1.chunk_size = (size_t)(data[0] & 31) + 1;
    o1.max_string = o2.max_string = (data[0] & 32) ? 48 : 0;
    tlm_rocprof *a = NULL, *b = NULL;
    tlm_error ea, eb;
    tlm_status sa = tlm_rocprof_read_mem(data + 1, size - 1, "fuzz", &o1, &a,
                                         &ea);
    tlm_status sb = tlm_rocprof_read_mem(data + 1, size - 1, "fuzz", &o2, &b,
                                         &eb);
    check(sa == sb, "status");
    if (sa != TLM_OK) {
        /* a bound may trip at another place with a smaller window */
        check(sa == TLM_ELIMIT || ea.offset == eb.offset, "error offset");
        check(!a && !b, "no result on error");
        return 0;
    }
    same(a, b);
    sheets(a);
    tlm_rocprof_free(a);
    tlm_rocprof_free(b);
    return 0;
}
