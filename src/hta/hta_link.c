/*
 * hta_link.c - HTA's correlation links (spec §1.3,
 * transform_correlation_to_index): every CPU-side row points at the
 * GPU-side row of its correlation and back, through traceEvents indices.
 * Rows with a correlation but no partner keep 0 (which later lookups read
 * as "the event at index 0", quirk Q3); rows without one keep -1.  When a
 * correlation has several CPU-side or GPU-side rows the last pairing in
 * file order wins, i.e. each side points at the other side's last row.
 */
#include "hta_internal.h"

#include <stdlib.h>

#include "sortutil.h"

tlm_status tlm_hta_link(tlm_hta_events *ev)
{
    size_t m = 0;
    tlm_pair *p = malloc((ev->n ? ev->n : 1) * sizeof *p);
    if (!p)
        return TLM_ENOMEM;
    for (size_t i = 0; i < ev->n; i++) {
        tlm_hta_ev *r = &ev->ev[i];
        r->icorr = r->corr < 0 ? r->corr : 0;
        if (r->corr != -1) {
            p[m].key = r->corr;
            p[m].val = (int64_t)i;
            m++;
        }
    }
    if (tlm_sort_pairs(p, m) != TLM_OK) {
        free(p);
        return TLM_ENOMEM;
    }
    ev->n_dup_corr = 0;
    for (size_t lo = 0; lo < m;) {
        size_t hi = lo;
        int64_t last_cpu = -1, last_gpu = -1;
        size_t n_cpu = 0, n_gpu = 0;
        while (hi < m && p[hi].key == p[lo].key) {
            const tlm_hta_ev *r = &ev->ev[p[hi].val];
            if (r->gpu_side) {
                last_gpu = r->index;
                n_gpu++;
            } else {
                last_cpu = r->index;
                n_cpu++;
            }
            hi++;
        }
        ev->n_dup_corr += n_cpu > 1 || n_gpu > 1;
        if (n_cpu && n_gpu) {
            for (size_t k = lo; k < hi; k++) {
                tlm_hta_ev *r = &ev->ev[p[k].val];
                r->icorr = r->gpu_side ? last_cpu : last_gpu;
            }
        }
        lo = hi;
    }
    free(p);
    return TLM_OK;
}
