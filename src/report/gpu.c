/*
 * gpu.c - which GPU a report's roofline is computed for, and where that
 * choice came from: --gpu_arch (a bundled name, or "none"), else
 * --gpu_arch_json_path, else the trace's own deviceProperties (the device
 * names the CUDA/ROCm driver reported, matched to the bundled table by
 * tlm_gpu_arch_match_device).  TraceLens never looks at deviceProperties;
 * TLM_COMPAT_NO_ARCH_FROM_TRACE turns the detection off so that a parity
 * run has no roofline columns unless asked.
 */
#include <string.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"

const char *tlm_arch_source_name(tlm_arch_source src)
{
    switch (src) {
    case TLM_ARCH_SRC_OPTION:
        return "option";
    case TLM_ARCH_SRC_JSON:
        return "json";
    case TLM_ARCH_SRC_TRACE:
        return "trace";
    case TLM_ARCH_SRC_NONE:
        break;
    }
    return "none";
}

/* deviceProperties of the trace into out->devices (none when the text is
 * absent or does not parse: a header we cannot read is not fatal; running
 * out of memory is). */
static tlm_status read_devices(const tlm_trace *trace, tlm_report_gpu *out,
                               tlm_error *err)
{
    const tlm_trace_meta *m = trace ? tlm_trace_meta_get(trace) : NULL;
    size_t len = 0;
    const char *text = NULL;
    if (m && m->device_properties)
        text = tlm_trace_str(trace, m->device_properties, &len);
    tlm_status st =
        tlm_gpu_devices_parse(text, text ? len : 0, &out->devices);
    if (st == TLM_ENOMEM)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(trace), -1,
                             "out of memory reading deviceProperties");
    if (st != TLM_OK)
        memset(&out->devices, 0, sizeof out->devices);
    return TLM_OK;
}

/* --gpu_arch NAME: a bundled GPU or "none". */
static tlm_status from_option(const char *name, tlm_report_gpu *out,
                              tlm_error *err)
{
    out->source = TLM_ARCH_SRC_OPTION;
    if (strcmp(name, "none") == 0)
        return TLM_OK;
    const tlm_gpu_arch *a = tlm_gpu_arch_lookup(name);
    if (!a) {
        char known[256];
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "unknown GPU '%s' for --gpu_arch (known: %s, "
                             "none)",
                             name, tlm_gpu_arch_names(known, sizeof known));
    }
    out->arch = *a;
    out->has_arch = 1;
    return TLM_OK;
}

tlm_status tlm_report_gpu_select(const tlm_report_opts *opts,
                                 const tlm_trace *trace, tlm_report_gpu *out,
                                 tlm_error *err)
{
    tlm_report_opts def;
    if (!opts) {
        tlm_report_opts_init(&def);
        opts = &def;
    }
    memset(out, 0, sizeof *out);
    tlm_status st = read_devices(trace, out, err);
    if (st != TLM_OK)
        return st;
    if (opts->gpu_arch && opts->gpu_arch_json_path)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--gpu_arch and --gpu_arch_json_path are "
                             "mutually exclusive");
    if (opts->gpu_arch)
        return from_option(opts->gpu_arch, out, err);
    if (opts->gpu_arch_json_path) {
        st = tlm_gpu_arch_load_json(opts->gpu_arch_json_path, &out->arch, err);
        if (st != TLM_OK) {
            memset(&out->arch, 0, sizeof out->arch);
            return st;
        }
        out->source = TLM_ARCH_SRC_JSON;
        out->has_arch = 1;
        return TLM_OK;
    }
    if (!(opts->compat & TLM_COMPAT_NO_ARCH_FROM_TRACE) &&
        out->devices.arch) {
        out->arch = *out->devices.arch;
        out->has_arch = 1;
        out->source = TLM_ARCH_SRC_TRACE;
    }
    return TLM_OK;
}
