/*
 * format.c - the table of trace formats (tlm_format.h): one row per
 * format with its name, what it holds and its reader's entry points, and
 * the detection every program runs once before dispatching on the id.
 * A new format is one reader file and one row here.
 */
#include "tlmpi/tlm_format.h"

#include "tlmpi/tlm_rocprof.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_xplane.h"

#include <string.h>

/* MARK: - Kineto JSON ------------------------------------------------------ */

/* Reads a Kineto JSON with the reader's defaults (events kept). */
static tlm_status kineto_read(const char *path, void **model, tlm_error *err)
{
    tlm_trace *t = NULL;
    tlm_status st = tlm_trace_read_file(path, NULL, &t, err);
    *model = t;
    return st;
}

/* A Kineto trace's summary from its read statistics. */
static void kineto_summary(const void *model, tlm_format_summary *out)
{
    const tlm_read_stats *s = tlm_trace_stats((const tlm_trace *)model);
    out->gzip = s->gzip;
    out->bytes_in = s->bytes_in;
    out->bytes_content = s->bytes_json;
    out->n_records = s->n_events;
}

/* Frees a Kineto trace. */
static void kineto_free(void *model)
{
    tlm_trace_free(model);
}

/* MARK: - rocprofv3 JSON --------------------------------------------------- */

/* Reads a rocprofv3 JSON with the reader's defaults. */
static tlm_status rocprof_read(const char *path, void **model, tlm_error *err)
{
    tlm_rocprof *rp = NULL;
    tlm_status st = tlm_rocprof_read_file(path, NULL, &rp, err);
    *model = rp;
    return st;
}

/* A rocprofv3 trace's summary: its records are the kernel dispatches,
 * the memory copies and the API calls. */
static void rocprof_summary(const void *model, tlm_format_summary *out)
{
    const tlm_rocprof *rp = model;
    const tlm_rp_meta *m = tlm_rocprof_meta(rp);
    size_t nk = 0, nc = 0, na = 0;
    tlm_rocprof_kernels(rp, &nk);
    tlm_rocprof_copies(rp, &nc);
    tlm_rocprof_apis(rp, &na);
    out->gzip = m->gzip;
    out->bytes_in = m->bytes_in;
    out->bytes_content = m->bytes_json;
    out->n_records = (uint64_t)(nk + nc + na);
}

/* Frees a rocprofv3 trace. */
static void rocprof_free(void *model)
{
    tlm_rocprof_free(model);
}

/* MARK: - XPlane ------------------------------------------------------------ */

/* Reads an XPlane (a folder: the XPlane in it) with the reader's
 * defaults. */
static tlm_status xplane_read(const char *path, void **model, tlm_error *err)
{
    tlm_xplane *x = NULL;
    tlm_status st = tlm_xplane_read_file(path, NULL, &x, err);
    *model = x;
    return st;
}

/* An XPlane's summary from its statistics. */
static void xplane_summary(const void *model, tlm_format_summary *out)
{
    const tlm_xplane_stats *s = tlm_xplane_stats_get(model);
    out->gzip = s->gzip;
    out->bytes_in = s->bytes_in;
    out->bytes_content = s->bytes_pb;
    out->n_records = s->n_events;
}

/* Frees an XPlane. */
static void xplane_free(void *model)
{
    tlm_xplane_free(model);
}

/* MARK: - the table --------------------------------------------------------- */

/* One row per format, indexed by its id (TLM_FORMAT_UNKNOWN has none).
 * The rows with a folder layout (locate) are tried first by
 * tlm_format_detect, in this order. */
static const tlm_format formats[TLM_FORMAT_COUNT] = {
    [TLM_FORMAT_KINETO_JSON] = {TLM_FORMAT_KINETO_JSON, "kineto-json",
                                "Kineto JSON (PyTorch profiler)", 1, 1, NULL,
                                kineto_read, kineto_summary, kineto_free},
    [TLM_FORMAT_ROCPROF_JSON] = {TLM_FORMAT_ROCPROF_JSON, "rocprof-json",
                                 "rocprofv3 JSON", 0, 1, NULL, rocprof_read,
                                 rocprof_summary, rocprof_free},
    [TLM_FORMAT_XPLANE] = {TLM_FORMAT_XPLANE, "xplane",
                           "XPlane (JAX, TensorFlow)", 0, 0,
                           tlm_xplane_locate, xplane_read, xplane_summary,
                           xplane_free},
};

/* The row of a format id (tlm_format.h). */
const tlm_format *tlm_format_get(int id)
{
    if (id <= TLM_FORMAT_UNKNOWN || id >= TLM_FORMAT_COUNT ||
        !formats[id].name)
        return NULL;
    return &formats[id];
}

/* One sniff of a file (tlm_format.h). */
tlm_status tlm_format_of_file(const char *path, int *id)
{
    tlm_sniff sn;
    *id = TLM_FORMAT_UNKNOWN;
    if (tlm_trace_sniff(path, 0, &sn) != TLM_OK)
        return TLM_ENOMEM; /* its only error */
    if (sn.verdict == TLM_SNIFF_TRACE && tlm_format_get(sn.format))
        *id = sn.format;
    return TLM_OK;
}

/* A file or a folder that stands for one: the rows with a folder layout
 * first, each file sniffed once (tlm_format.h). */
tlm_status tlm_format_detect(const char *path, int *id)
{
    *id = TLM_FORMAT_UNKNOWN;
    for (int f = 0; f < TLM_FORMAT_COUNT; f++) {
        const tlm_format *r = tlm_format_get(f);
        char file[4096];
        tlm_sniff sn;
        if (!r || !r->locate ||
            r->locate(path, file, sizeof file, NULL) != TLM_OK)
            continue;
        if (tlm_trace_sniff(file, 0, &sn) != TLM_OK)
            return TLM_ENOMEM;
        int mine = sn.verdict == TLM_SNIFF_TRACE && sn.format == f;
        if (mine || strcmp(file, path) == 0) { /* path itself: sniffed */
            if (sn.verdict == TLM_SNIFF_TRACE && tlm_format_get(sn.format))
                *id = sn.format;
            return TLM_OK;
        }
    }
    return tlm_format_of_file(path, id);
}
