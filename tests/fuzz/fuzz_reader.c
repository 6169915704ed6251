/*
 * fuzz_reader.c - libFuzzer target for the streaming trace tokenizer.
 *
 * Input: one configuration byte, then the JSON text.  The configuration
 * picks the chunk size (1..32 bytes), keep_events and the bounds.  The text
 * is read twice, with that chunk size and with the default one (the whole
 * input in one window), and both reads must agree exactly: same status,
 * same error offset, same events, strings, arguments and metadata.  So the
 * target checks the restartable window as well as memory safety: a value
 * cut at any byte must parse as if it had been whole.
 *
 * A disagreement calls abort(), which libFuzzer and the replay driver report
 * as a crash.
 */
#include "tlmpi/tlm_trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_reader: mismatch: %s\n", what);
        abort();
    }
}

static tlm_status on_event(void *ud, tlm_trace *t, const tlm_event *ev,
                           uint64_t index, tlm_error *err)
{
    uint64_t *sum = ud;
    uint64_t it = 0;
    tlm_arg key;
    tlm_argv v;
    (void)err;
    /* touch everything the callback may read */
    *sum += index + (uint64_t)ev->ts + (uint64_t)tlm_ev_dur(ev) + ev->ph;
    *sum += tlm_trace_str_hash(t, ev->name);
    int64_t f;
    if (tlm_event_flow_id(t, ev, &f))
        *sum += (uint64_t)f;
    while (tlm_event_arg_next(t, ev, &it, &key, &v)) {
        *sum += (uint64_t)key;
        if (v.type == TLM_ARGV_STR)
            *sum += tlm_trace_str_hash(t, v.str);
        else
            *sum += (uint64_t)v.i;
    }
    return TLM_OK;
}

/* The flow id of a kept event (tlm_event_flow_id), 0 when it has none. */
static int64_t fid(const tlm_trace *t, const tlm_event *e)
{
    int64_t v = 0;
    if (!tlm_event_flow_id(t, e, &v))
        return 0;
    return v;
}

static int same_str(const tlm_trace *a, uint32_t ia, const tlm_trace *b,
                    uint32_t ib)
{
    size_t la, lb;
    const char *sa = tlm_trace_str(a, ia, &la);
    const char *sb = tlm_trace_str(b, ib, &lb);
    return la == lb && memcmp(sa, sb, la) == 0;
}

static void compare(const tlm_trace *a, const tlm_trace *b, int kept)
{
    size_t na, nb;
    const tlm_event *ea = tlm_trace_events(a, &na);
    const tlm_event *eb = tlm_trace_events(b, &nb);
    check(na == (kept ? nb : 0), "event count");
    check(tlm_trace_stats(a)->n_events == tlm_trace_stats(b)->n_events,
          "events seen");
    check(tlm_trace_stats(a)->n_lone_surrogates ==
              tlm_trace_stats(b)->n_lone_surrogates,
          "lone surrogates counted once whatever the chunking");
    /* interning is first-seen order: ids agree whatever the chunking */
    check(tlm_trace_str_count(a) == tlm_trace_str_count(b), "string count");
    for (uint32_t i = 0; i < tlm_trace_str_count(a); i++)
        check(same_str(a, i, b, i), "string table");
    for (size_t i = 0; i < na; i++) {
        const tlm_event *x = &ea[i], *y = &eb[i];
        check(x->ts == y->ts && tlm_ev_dur(x) == tlm_ev_dur(y) &&
                  tlm_ev_pid(x) == tlm_ev_pid(y) &&
                  tlm_ev_tid(x) == tlm_ev_tid(y) && fid(a, x) == fid(b, y) &&
                  x->name == y->name && x->cat == y->cat &&
                  x->cat_str == y->cat_str && x->ph == y->ph &&
                  x->flags == y->flags && x->has_tid == y->has_tid,
              "event fields");
        uint64_t ia = 0, ib = 0;
        tlm_arg ka, kb;
        tlm_argv va, vb;
        for (;;) {
            int ma = tlm_event_arg_next(a, x, &ia, &ka, &va);
            int mb = tlm_event_arg_next(b, y, &ib, &kb, &vb);
            check(ma == mb, "argument count");
            if (!ma)
                break;
            check(ka == kb && va.type == vb.type && va.i == vb.i &&
                      va.str == vb.str,
                  "argument");
        }
        int64_t xa[3], xb[3];
        int da = tlm_event_arg_dim3(a, x, TLM_ARG_GRID, xa);
        int db = tlm_event_arg_dim3(b, y, TLM_ARG_GRID, xb);
        check(da == db && (!da || memcmp(xa, xb, sizeof xa) == 0), "grid");
    }
    const tlm_trace_meta *ma = tlm_trace_meta_get(a);
    const tlm_trace_meta *mb = tlm_trace_meta_get(b);
    check(ma->has_distributed == mb->has_distributed &&
              ma->rank == mb->rank && ma->world_size == mb->world_size &&
              ma->pg_count == mb->pg_count && ma->backend == mb->backend &&
              ma->n_pgs == mb->n_pgs && ma->has_base_time == mb->has_base_time &&
              ma->base_time_ns == mb->base_time_ns &&
              ma->schema_version == mb->schema_version &&
              ma->trace_name == mb->trace_name &&
              ma->device_properties == mb->device_properties,
          "metadata");
    for (size_t i = 0; i < ma->n_pgs; i++) {
        const tlm_pg_config *pa = &ma->pgs[i], *pb = &mb->pgs[i];
        check(pa->pg_name == pb->pg_name && pa->pg_size == pb->pg_size &&
                  pa->ranks_text == pb->ranks_text &&
                  pa->n_ranks == pb->n_ranks &&
                  (pa->n_ranks == 0 ||
                   memcmp(pa->ranks, pb->ranks,
                          pa->n_ranks * sizeof *pa->ranks) == 0),
              "pg_config");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t cfg = data[0];
    const uint8_t *json = data + 1;
    size_t n = size - 1;

    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.chunk_size = 1 + (cfg & 31u);
    o.keep_events = (cfg & 32u) ? 0 : 1;
    o.max_depth = (cfg & 64u) ? 5 : 12;
    o.max_string = (cfg & 128u) ? 40 : 300;
    o.max_event_bytes = (cfg & 128u) ? 700 : 2048;
    o.max_events = 500;
    uint64_t sum_a = 0, sum_b = 0;
    o.on_event = on_event;
    o.on_event_ud = &sum_a;

    tlm_trace *ta = NULL, *tb = NULL;
    tlm_error ea, eb;
    tlm_status sa = tlm_trace_read_mem(json, n, "fuzz", &o, &ta, &ea);

    o.chunk_size = 0; /* default: everything in the first window */
    o.keep_events = 1;
    o.on_event_ud = &sum_b;
    tlm_status sb = tlm_trace_read_mem(json, n, "fuzz", &o, &tb, &eb);

    check(sa == sb, "status");
    check(sa == ea.code && sb == eb.code, "error code");
    check((sa == TLM_OK) == (ta != NULL) && (sb == TLM_OK) == (tb != NULL),
          "trace returned iff OK");
    if (sa != TLM_OK) {
        check(ea.offset == eb.offset, "error offset");
        check(ea.offset <= (int64_t)n, "error offset within the input");
        check(ea.msg[0] != '\0', "error message");
    } else {
        check(sum_a == sum_b, "callback view");
        compare(ta, tb, !(cfg & 32u));
    }
    tlm_trace_free(ta);
    tlm_trace_free(tb);
    return 0;
}
