/*
 * mpi_test_compare_runs.c - comparison.h5 of `tlmpi compare A.h5 B.h5`
 * (mpi/compare_runs_h5.c) written from the hand-made runs of
 * tlm_test_runs.h and read back through the inputs' reader
 * (compare_runs_read.c): a comparison is refused as a run (its kind), a
 * text file as not HDF5.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compare_runs_mpi.h"
#include "tlm_test_runs.h"

static void test_h5_roundtrip(void **state)
{
    (void)state;
    fake fa, fb;
    tlm_cr_run a, b, back;
    make(&fa, &a, 0);
    make(&fb, &b, 1);
    tlm_cr_opts o = {1.0, 10};
    tlm_cr_result res;
    tlm_error err;
    assert_int_equal(tlm_cr_compare(&a, &b, &o, &res, &err), TLM_OK);
    char path[] = "/tmp/tlm_cr_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tlm_cr_write_h5(path, &a, &b, &res, &err), TLM_OK);
    /* a comparison is not a run */
    assert_int_not_equal(tlm_cr_read(&back, path, "x", &err), TLM_OK);
    assert_non_null(strstr(err.msg, "attribute 'kind' is 'comparison'"));
    assert_non_null(strstr(err.file, "tlm_cr_"));
    /* not HDF5 */
    FILE *f = fopen(path, "w");
    fputs("text", f);
    fclose(f);
    assert_int_not_equal(tlm_cr_read(&back, path, "x", &err), TLM_OK);
    assert_non_null(strstr(err.msg, "not an HDF5 file"));
    unlink(path);
    tlm_cr_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h5_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
