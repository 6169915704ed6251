/*
 * replay_runner.c - the runner scripts/tlmpi_replay.py as built into the
 * library (cmake/tlm_embed.cmake): `tlmpi replay` writes these bytes, so
 * the copy in an output folder or bundle is the project's file exactly,
 * whatever the install layout (rule S10).
 */
#include "tlmpi/tlm_replay.h"

extern const unsigned char tlm_replay_runner_py[];
extern const size_t tlm_replay_runner_py_len;

const char *tlm_replay_runner(size_t *len)
{
    *len = tlm_replay_runner_py_len;
    return (const char *)tlm_replay_runner_py;
}
