/*
 * find_opts.c - the findings options (every threshold a --findings_<name>
 * option with a default) and the hardware peaks of a trace: an arch JSON
 * (--gpu_arch_json_path), the bundled table by --platform NAME, or the
 * GPU the report chose (spec findings.md §2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"

static const struct {
    const char *name;
    double def;
    const char *desc;
} thr[] = {
#define TLM_X_(f, d, s) {#f, d, s},
    TLM_FIND_THRESHOLDS(TLM_X_)
#undef TLM_X_
};

const char *tlm_find_threshold_name(size_t i)
{
    return i < TLM_FIND_NT ? thr[i].name : NULL;
}

double tlm_find_threshold_default(size_t i)
{
    return i < TLM_FIND_NT ? thr[i].def : NAN;
}

const char *tlm_find_threshold_desc(size_t i)
{
    return i < TLM_FIND_NT ? thr[i].desc : NULL;
}

void tlm_find_opts_init(tlm_find_opts *o)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < TLM_FIND_NT; i++)
        o->t[i] = thr[i].def;
}

int tlm_find_opt_parse(const char *opt, const char *val, tlm_find_opts *o,
                       tlm_error *err)
{
    if (!opt)
        return TLM_FIND_OPT_NOT_MINE;
    if (!strcmp(opt, "--platform") || !strcmp(opt, "--gpu_arch_json_path")) {
        if (!val || !*val) {
            tlm_error_set(err, TLM_EINVAL, NULL, -1, "%s needs a value", opt);
            return TLM_FIND_OPT_ERROR;
        }
        if (opt[2] == 'p')
            o->platform = val;
        else
            o->gpu_arch_json = val;
        return TLM_FIND_OPT_OK;
    }
    static const char pre[] = "--findings_";
    if (strncmp(opt, pre, sizeof pre - 1) != 0)
        return TLM_FIND_OPT_NOT_MINE;
    const char *name = opt + sizeof pre - 1;
    for (size_t i = 0; i < TLM_FIND_NT; i++) {
        if (strcmp(name, thr[i].name) != 0)
            continue;
        char *end = NULL;
        errno = 0;
        double v = val ? strtod(val, &end) : NAN;
        if (!val || errno || end == val || *end || !isfinite(v) || v < 0) {
            tlm_error_set(err, TLM_EINVAL, NULL, -1,
                          "%s takes a number >= 0 (got '%s')", opt,
                          val ? val : "");
            return TLM_FIND_OPT_ERROR;
        }
        o->t[i] = v;
        return TLM_FIND_OPT_OK;
    }
    tlm_error_set(err, TLM_EINVAL, NULL, -1,
                  "unknown option %s (the --findings_ thresholds are listed "
                  "in docs/findings.md)",
                  opt);
    return TLM_FIND_OPT_ERROR;
}

/* ------------------------------------------------------------ hardware */

double tlm_find_hw_peak(const tlm_find_hw *hw, const char *spec)
{
    if (!hw || !hw->known)
        return NAN;
    double v = tlm_gpu_arch_peak_tflops(&hw->arch, spec);
    return v > 0 ? v : NAN;
}

void tlm_find_hw_from_arch(const tlm_gpu_arch *a, const char *source,
                           tlm_find_hw *hw)
{
    memset(hw, 0, sizeof *hw);
    if (!a || !(a->mem_bw_gbps > 0))
        return;
    hw->known = 1;
    hw->arch = *a;
    hw->bw = a->mem_bw_gbps / 1000.0;
    double bf = tlm_gpu_arch_peak_tflops(a, "matrix_bf16");
    snprintf(hw->basis, sizeof hw->basis,
             "%.63s (%s): HBM %.2f TB/s, matrix_bf16 %.1f TFLOP/s; %.150s",
             a->name, source ? source : "given", hw->bw, bf,
             a->source[0] ? a->source : "no source given");
}

tlm_status tlm_find_hw_resolve(const tlm_find_opts *o,
                               const tlm_gpu_arch *fallback,
                               const char *fallback_source, tlm_find_hw *hw,
                               tlm_error *err)
{
    memset(hw, 0, sizeof *hw);
    if (o && o->gpu_arch_json) {
        tlm_gpu_arch a;
        tlm_status st = tlm_gpu_arch_load_json(o->gpu_arch_json, &a, err);
        if (st != TLM_OK)
            return st;
        tlm_find_hw_from_arch(&a, "arch JSON", hw);
        return TLM_OK;
    }
    if (o && o->platform) {
        char maf[96];
        snprintf(maf, sizeof maf, "%.80s-MAF", o->platform);
        const tlm_gpu_arch *a = tlm_gpu_arch_lookup(maf);
        const char *src = "--platform, max-achievable";
        if (!a) {
            a = tlm_gpu_arch_lookup(o->platform);
            src = "--platform, datasheet";
        }
        if (!a) {
            char known[256];
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "unknown --platform '%s' (known: %s)",
                                 o->platform,
                                 tlm_gpu_arch_names(known, sizeof known));
        }
        tlm_find_hw_from_arch(a, src, hw);
        return TLM_OK;
    }
    if (fallback)
        tlm_find_hw_from_arch(fallback, fallback_source, hw);
    return TLM_OK;
}
