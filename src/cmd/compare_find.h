/*
 * compare_find.h - the comparative findings of `tlmpi compare`
 * (compare_find.c).
 */
#ifndef TLM_CMD_COMPARE_FIND_H
#define TLM_CMD_COMPARE_FIND_H

#include "cmp_internal.h"
#include "find.h"

/* What the command knows of one report besides its tables. */
typedef struct tlm_cmp_side {
    int has_arch;      /* a trace whose report chose a GPU */
    tlm_gpu_arch arch;
} tlm_cmp_side;

typedef struct tlm_cmp_find_in {
    tlm_rsrc *const *reps;
    const tlm_cmp_side *sides;
    const char *const *tags;
    size_t n;
    const tlm_find_opts *fo;
} tlm_cmp_find_in;

/* For every variant v (1..n-1): the rules of findings.md §5 with v as the
 * target and report 0 as the reference, as a Markdown section appended to
 * md and as a findings table in csv[v] (caller frees).  Errors: an unknown
 * --platform, a bad arch JSON, TLM_ENOMEM, those of loading a sheet. */
tlm_status tlm_cmp_findings(const tlm_cmp_find_in *in, tlm_sbuf *md,
                            tlm_tab **csv, tlm_error *err);

#endif
