/*
 * memcpy.c - memcpy_summary, a tlmpi table (not a TraceLens sheet): the
 * linked gpu_memcpy events per direction D2H, H2D, D2D, other with their
 * count, total time (us) and bytes (spec findings.md §1).  The direction
 * comes from the lower-cased event name, as TraceLens's agent
 * (orchestrator_prepare.py) reads it.  It feeds the findings (S4) and is
 * kept beside the report's sheets, not written as a CSV.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* 0 D2H, 1 H2D, 2 D2D, 3 other. */
static int direction(const char *nm)
{
    char low[128];
    size_t n = 0;
    for (; nm && nm[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)nm[n]);
    low[n] = 0;
    if (strstr(low, "dtoh") || strstr(low, "device -> host") ||
        strstr(low, "devicetohost"))
        return 0;
    if (strstr(low, "htod") || strstr(low, "host -> device") ||
        strstr(low, "hosttodevice"))
        return 1;
    if (strstr(low, "dtod") || strstr(low, "device -> device") ||
        strstr(low, "devicetodevice"))
        return 2;
    return 3;
}

tlm_status tlm_memcpy_summary(const tlm_tree *tree, int include_unlinked,
                              tlm_tab **out)
{
    static const char *const cols[] = {"direction", "count", "total_us",
                                       "bytes"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_I64, TLM_COL_F64,
                                     TLM_COL_I64};
    static const char *const dirs[] = {"D2H", "H2D", "D2D", "other"};
    *out = NULL;
    const tlm_trace *tr = tlm_tree_trace(tree);
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    int64_t cnt[4] = {0}, bytes[4] = {0};
    double us[4] = {0};
    for (size_t i = 0; i < n; i++) {
        const tlm_event *e = &ev[i];
        if (e->cat != TLM_CAT_GPU_MEMCPY || !tlm_ev_gpu(e))
            continue;
        if (!include_unlinked &&
            !(tlm_nd(tree, (int32_t)i)->flags & TLM_NODE_TREE))
            continue;
        int d = direction(tlm_trace_str(tr, e->name, NULL));
        int64_t b = 0;
        cnt[d]++;
        us[d] += tlm_ns_to_us(tlm_ev_dur(e));
        if (tlm_event_arg_int(tr, e, TLM_ARG_BYTES, &b))
            bytes[d] += b;
    }
    tlm_tab *t = tlm_tab_new("memcpy_summary", 4, cols, ty);
    if (!t)
        return TLM_ENOMEM;
    for (int d = 0; d < 4; d++) {
        long r = tlm_tab_add_row(t);
        if (r < 0)
            break;
        tlm_tab_set_s(t, (size_t)r, 0, dirs[d], strlen(dirs[d]));
        tlm_tab_set_i(t, (size_t)r, 1, cnt[d]);
        tlm_tab_set_f(t, (size_t)r, 2, us[d]);
        tlm_tab_set_i(t, (size_t)r, 3, bytes[d]);
    }
    if (t->oom) {
        tlm_tab_free(t);
        return TLM_ENOMEM;
    }
    *out = t;
    return TLM_OK;
}
