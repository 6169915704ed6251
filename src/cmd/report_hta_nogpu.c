/*
 * report_hta_nogpu.c - `tlmpi report --hta` on a trace without GPU
 * events (issue 23, "Bad input"): TraceLens's sheets need GPU events and
 * are not written, but HTA's tables are, each with its header and no
 * rows, and report.md says why.  Used only after the report failed with
 * TLM_ENOTFOUND; the trace is read again and its tree decides.
 */
#include "report_hta_nogpu.h"

#include "sbuf.h"

#include "tlmpi/tlm_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* report.md: the reason, then the HTA section. */
static tlm_status stage_md(const char *trace, const char *md,
                           const char *hta_md, tlm_outset *set,
                           tlm_error *err)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_puts(&b, "# tlmpi report\n\nTrace: ");
    tlm_sbuf_md(&b, trace, 256, TLM_MD_TEXT);
    tlm_sbuf_puts(&b, "\n\nNo GPU events in this trace: TraceLens's "
                      "sheets are not written (they are built from GPU "
                      "events), and HTA's tables are written with their "
                      "headers and no rows.\n\n");
    tlm_sbuf_puts(&b, hta_md);
    const char *tmp = NULL;
    tlm_status st = b.oom ? tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                                          "out of memory")
                          : tlm_outset_stage(set, md, &tmp, err);
    FILE *f = st == TLM_OK ? fopen(tmp, "w") : NULL;
    if (st == TLM_OK && !f)
        st = tlm_error_set(err, TLM_EIO, md, -1, "cannot create: %s",
                           strerror(errno));
    if (f) {
        fwrite(b.p, 1, b.len, f);
        st = tlm_outset_fclose(f, md, err);
    }
    tlm_sbuf_free(&b);
    return st;
}

int tlm_cli_hta_nogpu(const char *trace, const tlm_cli_ropts *co,
                      const tlm_cli_hta *h, const char *dir, const char *md,
                      tlm_outset *set, tlm_error *err)
{
    tlm_cli_built b = {0};
    tlm_hta_result *r = NULL;
    char *hmd = NULL;
    tlm_error e2;
    tlm_error_clear(&e2);
    tlm_status st = tlm_cli_build_tree(trace, co, &b, &e2);
    int none = st == TLM_OK && tlm_tree_stats_get(b.tree)->n_gpu == 0;
    if (none) {
        st = tlm_cli_hta_single(b.tr, h, &r, err);
        if (st == TLM_OK && tlm_hta_markdown(r, &hmd) != TLM_OK)
            st = tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
        if (st == TLM_OK)
            st = tlm_hta_stage_csvs(r, set, dir, err);
        if (st == TLM_OK && md)
            st = stage_md(trace, md, hmd, set, err);
    }
    free(hmd);
    tlm_hta_result_free(r);
    tlm_cli_built_free(&b);
    if (!none)
        return 0;
    return st == TLM_OK ? 1 : -1;
}
