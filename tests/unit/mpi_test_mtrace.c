/*
 * mpi_test_mtrace.c - the merged trace's paths (mpi/phase_timeline.c) without
 * MPI: in the analysis and in an audit run, a buffer too small.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mtrace.h"

static void test_mtrace_path(void **state)
{
    (void)state;
    tlm_mpi_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    char p[64];
    c->o.merged_trace = "out/m.json.gz";
    assert_int_equal(tlm_mpi_mtrace_path(c, p, sizeof p), 0);
    assert_string_equal(p, "out/m.json.gz");
    c->label = "llama/n8"; /* an audit run: its folder + the name */
    c->o.merged_trace = "merged.json.gz";
    tlm_strset(c->su.rdir, sizeof c->su.rdir, "D/runs/llama/n8");
    assert_int_equal(tlm_mpi_mtrace_path(c, p, sizeof p), 0);
    assert_string_equal(p, "D/runs/llama/n8/merged.json.gz");
    assert_int_equal(tlm_mpi_mtrace_path(c, p, 10), -1);
    tlm_mpi_mtrace_free(c); /* nothing held: a no-op */
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mtrace_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
