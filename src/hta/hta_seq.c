/*
 * hta_seq.c - HTA's frequent CUDA kernel sequences (spec §8,
 * CudaKernelAnalysis.get_frequent_cuda_kernel_sequences), on the rank
 * --hta_rank picks, when --hta_kernel_sequences names the operator.
 */
#include "hta_internal.h"

#include <stdlib.h>
#include <string.h>

static const tlm_hta_col cols[] = {
    {"pattern", TLM_HTA_STR, "", NULL},
    {"count", TLM_HTA_I64, "", NULL},
    {"GPU kernel duration (us)", TLM_HTA_F64, "us", NULL},
    {"CPU op duration (us)", TLM_HTA_F64, "us", NULL},
};
const tlm_hta_tdef tlm_hta_def_seq = {
    "frequent_cuda_kernel_sequences",
    "HTA frequent kernel sequences on one rank (spec/hta.md §8): operator "
    "name and the kernels below it joined by '|', count, GPU and CPU time",
    cols, sizeof cols / sizeof cols[0], 0, 1};

tlm_status tlm_hta_build_seq(const tlm_hta_events *ev,
                             const tlm_hta_opts *o, tlm_hta_result *r,
                             tlm_error *err)
{
    (void)err;
    if (!o->kernel_seq_op)
        return TLM_OK;
    tlm_hta_table *t = tlm_hta_result_add(r, &tlm_hta_def_seq);
    if (!t)
        return TLM_ENOMEM;
    r->notes.seq_rank_found = 1;
    return tlm_hta_seq_rows(ev, o, t, &r->notes);
}
