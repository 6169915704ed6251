/*
 * fuzz_hta_cpath.c - libFuzzer target for HTA's critical path
 * (src/hta/hta_cpath*.c) on hostile event tables: any mix of durations
 * (negative after the rounding, zero, huge), overlapping threads, launches
 * without kernels, sync events without partners, cycles.
 *
 * Input: one configuration byte, then the text of the traceEvents array's
 * elements (without the brackets), wrapped into a trace.  Bits 0-1 of the
 * configuration: the first instance (0-3), bit 2: one instance or up to
 * the fourth, bit 3: annotation "ProfilerStep" (else the whole rank),
 * bit 4: --hta_time ns, bit 5: the iteration filter.
 *
 * Invariants beyond memory safety (abort() on violation): the call returns
 * OK (or ENOMEM with a message); a result has either rows or a one-line
 * reason; every row's event is in the table, its type and bound_by in
 * range; the per-bound_by sums and counts add up to the total; and the
 * builder's tables have as many edge rows as the path has edges.
 */
#include "hta_cpath.h"
#include "tlmpi/tlm_hta.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_hta_cpath: invariant broken: %s\n", what);
        abort();
    }
}

static const char k_head[] = "{\"traceEvents\":[";
static const char k_tail[] = "]}";

static void check_result(const tlm_hta_events *ev, const tlm_hta_cpath *cp)
{
    check((cp->n == 0) != (cp->reason[0] == '\0'), "rows xor reason");
    check(strchr(cp->reason, '\n') == NULL, "reason on one line");
    int64_t total = 0;
    size_t edges = 0;
    for (int b = 0; b < TLM_CP_BOUND_COUNT; b++) {
        total = tlm_cp_add(total, cp->bound_ns[b]);
        edges += cp->bound_edges[b];
    }
    check(edges == cp->n, "edges per bound_by add up");
    if (total != INT64_MAX && total != INT64_MIN)
        check(total == cp->total_ns, "durations per bound_by add up");
    for (size_t i = 0; i < cp->n; i++) {
        const tlm_hta_cp_row *r = &cp->rows[i];
        check(r->row >= -1 && (r->row < 0 || (size_t)r->row < ev->n),
              "attributed row in range");
        check(r->type <= TLM_CP_SYNC, "type in range");
        check(r->bound < TLM_CP_BOUND_COUNT, "bound_by in range");
    }
}

static void run(const tlm_hta_events *ev, uint8_t cfg)
{
    tlm_hta_cp_opts o = {"ProfilerStep", 12, cfg & 3,
                         (cfg & 4) ? 3 : (cfg & 3)};
    if (!(cfg & 8))
        o.annotation_len = 0;
    tlm_hta_cpath cp;
    tlm_error err;
    tlm_status st = tlm_hta_critical_path(ev, &o, &cp, &err);
    check(st == TLM_OK || st == TLM_ENOMEM, "status");
    if (st != TLM_OK) {
        check(err.msg[0] != '\0', "error message");
        return;
    }
    check_result(ev, &cp);
    size_t n = cp.n;
    tlm_hta_cpath_free(&cp);

    tlm_hta_opts ho;
    tlm_hta_opts_init(&ho);
    if (!(cfg & 8))
        ho.cp_annotation[0] = '\0';
    ho.cp_first = cfg & 3;
    ho.cp_last = (cfg & 4) ? 3 : (cfg & 3);
    tlm_hta_result *r = calloc(1, sizeof *r);
    if (!r)
        return;
    st = tlm_hta_build_critical_path(ev, &ho, r, &err);
    check(st == TLM_OK || st == TLM_ENOMEM, "builder status");
    const tlm_hta_table *t = tlm_hta_result_find(r, "critical_path_edges");
    if (st == TLM_OK)
        check(t ? tlm_hta_table_rows(t) == n : n == 0, "edge rows");
    tlm_hta_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t cfg = data[0];
    size_t n = sizeof k_head - 1 + (size - 1) + sizeof k_tail - 1;
    char *buf = malloc(n);
    if (!buf)
        return 0;
    memcpy(buf, k_head, sizeof k_head - 1);
    memcpy(buf + sizeof k_head - 1, data + 1, size - 1);
    memcpy(buf + sizeof k_head - 1 + size - 1, k_tail, sizeof k_tail - 1);
    tlm_trace *t = NULL;
    tlm_error err;
    tlm_status st = tlm_trace_read_mem(buf, n, "fuzz", NULL, &t, &err);
    free(buf);
    if (st != TLM_OK)
        return 0;
    tlm_hta_events *ev = NULL;
    tlm_hta_time tb = (cfg & 16) ? TLM_HTA_TIME_NS : TLM_HTA_TIME_US;
    if (tlm_hta_events_build(t, 0, tb, &ev, &err) == TLM_OK) {
        if (!(cfg & 32) ||
            tlm_hta_events_filter(ev, ev->n_step_names, 0, &err) == TLM_OK) {
            tlm_hta_events_shift(ev, ev->min_ts);
            run(ev, cfg);
        }
        tlm_hta_events_free(ev);
    }
    tlm_trace_free(t);
    return 0;
}
