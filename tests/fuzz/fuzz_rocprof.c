/*
 * fuzz_rocprof.c - libFuzzer target for the rocprofv3 JSON reader
 * (src/trace/rocprof.c over rp_lex.c) and the rocprof sheets.
 *
 * Input: one configuration byte, then the document.  The configuration
 * picks the chunk size (1..32 bytes) and a small max_string.  The text is
 * read twice, with that chunk and with the default one (the whole input
 * in one window): both reads must agree (status, error offset and
 * message, every field of every record, every kernel's name), so a token
 * cut by the window at any byte reads as if whole.  The small window also
 * keeps records from the fast record path (rp_fast.c), which reads a
 * record only when it lies wholly in the window: the two reads check the
 * fast path against the token path.  A document that reads is also turned
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

static void same_kernels(const tlm_rocprof *a, const tlm_rocprof *b)
{
    size_t na, nb;
    const tlm_rp_kernel *ka = tlm_rocprof_kernels(a, &na);
    const tlm_rp_kernel *kb = tlm_rocprof_kernels(b, &nb);
    check(na == nb, "kernel count");
    for (size_t i = 0; i < na; i++) {
        const tlm_rp_kernel *x = &ka[i], *y = &kb[i];
        check(x->start == y->start && x->end == y->end, "kernel times");
        check(x->thread_id == y->thread_id && x->corr == y->corr &&
                  x->agent == y->agent && x->queue == y->queue &&
                  x->stream == y->stream && x->dispatch_id == y->dispatch_id &&
                  x->kernel_id == y->kernel_id,
              "kernel fields");
        check(memcmp(x->grid, y->grid, sizeof x->grid) == 0 &&
                  memcmp(x->block, y->block, sizeof x->block) == 0,
              "kernel sizes");
        check(strcmp(tlm_rocprof_str(a, x->name, NULL),
                     tlm_rocprof_str(b, y->name, NULL)) == 0,
              "kernel name");
    }
}

static void same(const tlm_rocprof *a, const tlm_rocprof *b)
{
    size_t na, nb;
    same_kernels(a, b);
    const tlm_rp_copy *ca = tlm_rocprof_copies(a, &na);
    const tlm_rp_copy *cb = tlm_rocprof_copies(b, &nb);
    check(na == nb, "copy count");
    for (size_t i = 0; i < na; i++)
        check(ca[i].start == cb[i].start && ca[i].end == cb[i].end &&
                  ca[i].bytes == cb[i].bytes &&
                  ca[i].src_agent == cb[i].src_agent &&
                  ca[i].dst_agent == cb[i].dst_agent &&
                  ca[i].stream == cb[i].stream && ca[i].corr == cb[i].corr &&
                  ca[i].operation == cb[i].operation &&
                  ca[i].thread_id == cb[i].thread_id,
              "copy fields");
    const tlm_rp_api *pa = tlm_rocprof_apis(a, &na);
    const tlm_rp_api *pb = tlm_rocprof_apis(b, &nb);
    check(na == nb, "api count");
    for (size_t i = 0; i < na; i++)
        check(pa[i].start == pb[i].start && pa[i].end == pb[i].end &&
                  pa[i].corr == pb[i].corr && pa[i].hsa == pb[i].hsa &&
                  pa[i].operation == pb[i].operation &&
                  pa[i].thread_id == pb[i].thread_id,
              "api fields");
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
        check(sa == TLM_ELIMIT || strcmp(ea.msg, eb.msg) == 0,
              "error message");
        check(!a && !b, "no result on error");
        return 0;
    }
    same(a, b);
    sheets(a);
    tlm_rocprof_free(a);
    tlm_rocprof_free(b);
    return 0;
}
