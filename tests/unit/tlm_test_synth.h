/*
 * tlm_test_synth.h - helpers shared by tlmpi-synth's unit tests
 * (test_synth.c, test_synth_gen.c, test_synth_out.c); header only.
 *
 *   ts_small_opts()  a small, fast job: 4 ranks (tp 2, dp 2), 2 per node,
 *                    2 steps of a 2-layer model of hidden size 256.
 */
#ifndef TLM_TEST_SYNTH_H
#define TLM_TEST_SYNTH_H

#include "tlmpi/tlm_synth.h"

#if defined(__GNUC__) || defined(__clang__)
#define TS_UNUSED __attribute__((unused))
#else
#define TS_UNUSED
#endif

/* Tokens per step T = seq_len * batch = 256, H = 256: the TP all-reduce
 * moves T * H elements. */
static TS_UNUSED void ts_small_opts(tlm_synth_opts *o, const char *dir)
{
    tlm_synth_opts_init(o);
    o->out_dir = dir;
    o->world_size = 4;
    o->tp = 2;
    o->steps = 2;
    o->layers = 2;
    o->gpus_per_node = 2;
    o->hidden = 256;
    o->heads = 4;
    o->seq_len = 256;
    o->vocab = 1024;
    o->seed = 11;
}

#endif /* TLM_TEST_SYNTH_H */
