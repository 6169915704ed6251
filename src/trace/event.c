/*
 * event.c - predicates of one event (public twins of trace_event.h).
 */
#include "trace_event.h"

int tlm_event_is_gpu(const tlm_event *ev)
{
    return tlm_ev_gpu(ev);
}
