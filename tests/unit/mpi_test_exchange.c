/*
 * mpi_test_exchange.c - record routing and gathering on a singleton MPI
 * rank (the multi-rank paths run in tests/integration/test_mpi_*.sh under
 * mpirun -n 2..8): order preserved, empty inputs, status agreement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exchange.h"

typedef struct rec {
    int64_t key;
    char text[13]; /* odd size: records are moved as opaque bytes */
} rec;

static void test_route_self(void **state)
{
    (void)state;
    rec r[3] = {{1, "one"}, {2, "two"}, {3, "three"}};
    int dest[3] = {0, 0, 0};
    void *out = NULL;
    size_t n = 0;
    tlm_error err;
    assert_int_equal(tlm_mpi_route(r, 3, sizeof *r, dest, MPI_COMM_WORLD,
                                   &out, &n, &err),
                     TLM_OK);
    assert_int_equal(n, 3);
    assert_memory_equal(out, r, sizeof r);
    free(out);
    assert_int_equal(tlm_mpi_route(NULL, 0, sizeof *r, NULL, MPI_COMM_WORLD,
                                   &out, &n, &err),
                     TLM_OK);
    assert_int_equal(n, 0);
    free(out);
}

static void test_gather(void **state)
{
    (void)state;
    rec r[2] = {{7, "seven"}, {8, "eight"}};
    void *out = NULL;
    size_t n = 0;
    tlm_error err;
    assert_int_equal(tlm_mpi_gather(r, 2, sizeof *r, 0, MPI_COMM_WORLD, &out,
                                    &n, &err),
                     TLM_OK);
    assert_int_equal(n, 2);
    assert_memory_equal(out, r, sizeof r);
    free(out);
    assert_int_equal(tlm_mpi_allgather(r, 1, sizeof *r, MPI_COMM_WORLD, &out,
                                       &n, &err),
                     TLM_OK);
    assert_int_equal(n, 1);
    assert_int_equal(((rec *)out)->key, 7);
    free(out);
    assert_int_equal(tlm_mpi_gather(NULL, 0, sizeof *r, 0, MPI_COMM_WORLD,
                                    &out, &n, &err),
                     TLM_OK);
    assert_int_equal(n, 0);
    free(out);
    /* a zero record size is refused, not sent */
    assert_int_equal(tlm_mpi_gather(r, 1, 0, 0, MPI_COMM_WORLD, &out, &n,
                                    &err),
                     TLM_EMPI);
}

static void test_agree(void **state)
{
    (void)state;
    assert_int_equal(tlm_mpi_agree(TLM_OK, MPI_COMM_WORLD), TLM_OK);
    assert_int_equal(tlm_mpi_agree(TLM_EFORMAT, MPI_COMM_WORLD),
                     TLM_EFORMAT);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route_self),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_agree),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
