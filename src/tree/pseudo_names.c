/*
 * pseudo_names.c - the name clean-up TraceLens's pseudo-op pass does
 * first (docs/pseudo-ops.md): an event name "sglang_profiler::<op>_<n>"
 * (<op> not empty, <n> decimal digits) loses its "_<n>" when the first
 * event of that name (lowest UID) is a cpu_op; then every event of that
 * name is renamed, whatever its category.
 */
#include <stdlib.h>
#include <string.h>

#include "pseudo_internal.h"

static const char k_prefix[] = "sglang_profiler::";

/* Length of s without its "_<digits>" suffix, or 0 when there is none
 * (or nothing would be left after the prefix). */
static size_t stripped_len(const char *s, size_t n)
{
    const size_t p = sizeof k_prefix - 1;
    if (n <= p || memcmp(s, k_prefix, p) != 0)
        return 0;
    size_t i = n;
    while (i > p && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i == n || i <= p + 1 || s[i - 1] != '_')
        return 0;
    return i - 1;
}

/* new[id]: 0 undecided, UINT32_MAX kept, else the new name's id. */
static uint32_t decide(tlm_trace *tr, const tlm_event *e, tlm_status *st)
{
    size_t n;
    const char *s = tlm_trace_str(tr, e->name, &n);
    size_t m = stripped_len(s, n);
    if (!m || e->cat != TLM_CAT_CPU_OP)
        return UINT32_MAX;
    uint32_t id = tlm_trace_str_intern(tr, s, m, st);
    return *st == TLM_OK ? id : UINT32_MAX;
}

tlm_status tlm_pseudo_sglang_names(tlm_tree *t, tlm_trace *tr,
                                   size_t *renamed, tlm_error *err)
{
    *renamed = 0;
    uint32_t nstr = tlm_trace_str_count(tr);
    uint32_t *nw = calloc(nstr ? nstr : 1, sizeof *nw);
    if (!nw)
        return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(tr), -1,
                             "pseudo ops: out of memory");
    tlm_status st = TLM_OK;
    for (size_t i = 0; i < t->n && st == TLM_OK; i++) {
        const tlm_event *e = &t->ev[i];
        if (e->name >= nstr)
            continue;
        if (nw[e->name] == 0)
            nw[e->name] = decide(tr, e, &st);
        if (st == TLM_OK && nw[e->name] != UINT32_MAX) {
            st = tlm_trace_rename_event(tr, i, nw[e->name], err);
            *renamed += st == TLM_OK;
        }
    }
    free(nw);
    if (st == TLM_ENOMEM)
        return tlm_error_set(err, st, tlm_trace_path(tr), -1,
                             "pseudo ops: out of memory");
    return st;
}
