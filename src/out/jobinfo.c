/*
 * jobinfo.c - the GPU of the job and the straggler verdict (jobinfo.h).
 *
 * The straggler: the rank the others waited for most, named only when the
 * mean wait it caused per collective exceeds --straggler_threshold_us.
 * Without that threshold every job has a "straggler": some rank always
 * arrives last, by a few microseconds of launch jitter and clock-fit
 * residual (docs/metrics-collectives.md, "Straggler verdict").
 */
#include "jobinfo.h"

#include <string.h>

/* Folds one trace's value v into the job-level field cur (the first
 * trace's value; "mixed" once two traces disagree). */
static void merge_field(char *cur, size_t cap, int first, const char *v,
                        size_t vcap)
{
    if (first)
        tlm_strnset(cur, cap, v, vcap);
    else if (strncmp(cur, v, cap < vcap ? cap : vcap) != 0)
        tlm_strset(cur, cap, "mixed");
}

void tlm_out_gpu_summary_init(tlm_out_gpu_sum *out)
{
    memset(out, 0, sizeof *out);
    tlm_strset(out->source, sizeof out->source, "none");
}

void tlm_out_gpu_summary_add(tlm_out_gpu_sum *out, const tlm_row_trace *r)
{
    int first = out->n_rows++ == 0;
    merge_field(out->arch, sizeof out->arch, first, r->gpu_arch,
                sizeof r->gpu_arch);
    merge_field(out->source, sizeof out->source, first, r->gpu_arch_source,
                sizeof r->gpu_arch_source);
    out->devices_mixed |= r->devices_mixed != 0;
    if (!r->device_name[0])
        out->n_no_device++;
    else if (!out->device[0])
        tlm_strnset(out->device, sizeof out->device, r->device_name,
                        sizeof r->device_name);
    else if (strncmp(out->device, r->device_name, sizeof out->device) != 0)
        out->devices_mixed = 1;
}

void tlm_out_gpu_summary(const tlm_row_trace *rows, size_t n,
                         tlm_out_gpu_sum *out)
{
    tlm_out_gpu_summary_init(out);
    for (size_t i = 0; i < n; i++)
        tlm_out_gpu_summary_add(out, &rows[i]);
}

/* The pick of tlm_out_straggler_pick on corrected (raw = 0) or raw clocks
 * (raw = 1). */
static int32_t straggler_pick(const tlm_coll_straggler_row *rows, size_t n,
                              double threshold_us, int raw, int64_t *wait_ns,
                              int32_t *top)
{
    const tlm_coll_straggler_row *t = NULL;
    int64_t tw = 0;
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_straggler_row *r = &rows[i];
        if (!r->overall)
            continue;
        int64_t w = raw ? r->wait_caused_ns : r->wait_caused_corr_ns;
        if (!t || w > tw || (w == tw && r->trace_rank < t->trace_rank)) {
            t = r;
            tw = w;
        }
    }
    *wait_ns = 0;
    *top = t ? t->trace_rank : -1;
    if (!t || t->n_instances <= 0)
        return TLM_OUT_NO_STRAGGLER;
    *wait_ns = tw / t->n_instances;
    return (double)*wait_ns > threshold_us * 1e3 ? t->trace_rank
                                                 : TLM_OUT_NO_STRAGGLER;
}

int32_t tlm_out_straggler_pick(const tlm_coll_straggler_row *rows, size_t n,
                               double threshold_us, int64_t *wait_ns,
                               int32_t *top)
{
    return straggler_pick(rows, n, threshold_us, 0, wait_ns, top);
}

int32_t tlm_out_straggler_pick_raw(const tlm_coll_straggler_row *rows,
                                   size_t n, double threshold_us,
                                   int64_t *wait_ns, int32_t *top)
{
    return straggler_pick(rows, n, threshold_us, 1, wait_ns, top);
}
