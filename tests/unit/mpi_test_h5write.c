/*
 * mpi_test_h5write.c - the generic table writer (column list -> compound
 * type -> collective chunked, deflate-compressed write) on a singleton
 * communicator (MPI_COMM_SELF: under mpirun -n N every rank runs the same
 * checks on its own file), read back with the serial HDF5 API; plus checks
 * of every schema v1 table descriptor.  Multi-rank writes are exercised by the mpirun
 * integration tests (tests/integration/test_mpi_*.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "h5write.h"
#include "tables.h"

typedef struct row {
    int32_t a;
    int64_t b;
    uint64_t c;
    double d;
    char s[12];
} row;

#define ROWCOLS(X)                                  \
    X(I32, a, 0, "", "an int32")                    \
    X(I64, b, 0, "ns", "an int64 in ns")            \
    X(U64, c, 0, "", "a uint64")                    \
    X(F64, d, 0, "GB/s", "a double")                \
    X(STR, s, 12, "", "a short string")

#define TLM_ROW row
static const tlm_col cols[] = {ROWCOLS(TLM_COL_)};
#undef TLM_ROW
static const tlm_rowtab tab = {"grp/sub/rows", "test rows", cols, 5,
                                  sizeof(row)};

static char path[256];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/tlm_h5write_%ld.h5", (long)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static void fill(row *r, size_t n)
{
    memset(r, 0, n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        r[i].a = (int32_t)i - 1;
        r[i].b = INT64_C(1) << 40 | (int64_t)i;
        r[i].c = UINT64_MAX - i;
        r[i].d = 0.5 * (double)i;
        snprintf(r[i].s, sizeof r[i].s, "row%d", (int)(i % 100));
    }
}

/* Reads the dataset back (serial driver) and compares with want. */
static void check_file(const char *dset, const row *want, size_t n)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t ds = H5Dopen2(f, dset, H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t sp = H5Dget_space(ds);
    hsize_t dim = 0;
    assert_int_equal(H5Sget_simple_extent_dims(sp, &dim, NULL), 1);
    assert_int_equal(dim, n);
    hid_t mt = tlm_mpi_h5_type(&tab);
    assert_true(mt >= 0);
    row *got = calloc(n ? n : 1, sizeof *got);
    assert_non_null(got);
    if (n)
        assert_true(H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i].a, want[i].a);
        assert_int_equal(got[i].b, want[i].b);
        assert_true(got[i].c == want[i].c);
        assert_true(got[i].d == want[i].d);
        assert_string_equal(got[i].s, want[i].s);
    }
    /* chunked + deflate */
    hid_t dcpl = H5Dget_create_plist(ds);
    assert_int_equal(H5Pget_layout(dcpl), H5D_CHUNKED);
    assert_int_equal(H5Pget_nfilters(dcpl), 1);
    unsigned flags = 0, cd[4];
    size_t ncd = 4;
    assert_int_equal(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL,
                                    NULL),
                     H5Z_FILTER_DEFLATE);
    H5Pclose(dcpl);
    /* column attributes */
    hid_t at = H5Aopen(ds, "units", H5P_DEFAULT);
    assert_true(at >= 0);
    hid_t asp = H5Aget_space(at);
    hsize_t an = 0;
    H5Sget_simple_extent_dims(asp, &an, NULL);
    assert_int_equal(an, 5);
    H5Sclose(asp);
    H5Aclose(at);
    assert_true(H5Aexists(ds, "columns") > 0);
    assert_true(H5Aexists(ds, "doc") > 0);
    free(got);
    H5Tclose(mt);
    H5Sclose(sp);
    H5Dclose(ds);
    H5Fclose(f);
}

static void test_roundtrip(void **state)
{
    (void)state;
    row r[5];
    fill(r, 5);
    hid_t f;
    tlm_error err;
    assert_int_equal(tlm_mpi_h5_create(path, MPI_COMM_SELF, &f, &err),
                     TLM_OK);
    assert_int_equal(tlm_mpi_h5_write_table(f, &tab, r, 5, MPI_COMM_SELF,
                                            &err),
                     TLM_OK);
    assert_int_equal(tlm_mpi_h5_attr_i64(f, "schema_version", 1, &err),
                     TLM_OK);
    assert_int_equal(tlm_mpi_h5_attr_str(f, "command_line", "tlmpi x", &err),
                     TLM_OK);
    /* an empty table still exists */
    tlm_rowtab t0 = tab;
    t0.name = "empty";
    assert_int_equal(tlm_mpi_h5_write_table(f, &t0, NULL, 0, MPI_COMM_SELF,
                                            &err),
                     TLM_OK);
    /* explicit segments, in two pieces */
    tlm_rowtab t1 = tab;
    t1.name = "seg";
    int64_t seg[4] = {0, 2, 2, 3};
    assert_int_equal(tlm_mpi_h5_write_segments(f, &t1, r, seg, 2, 5,
                                               MPI_COMM_SELF, &err),
                     TLM_OK);
    /* a dataset that exists already is an HDF5 error, not a crash */
    assert_int_equal(tlm_mpi_h5_write_table(f, &tab, r, 5, MPI_COMM_SELF,
                                            &err),
                     TLM_EHDF5);
    assert_non_null(strstr(err.msg, "grp/sub/rows"));
    /* the file written is HDF5's image of it, byte for byte, though the
     * close writes it from the core driver's buffer (no copy) */
    assert_true(H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0);
    ssize_t n = H5Fget_file_image(f, NULL, 0);
    assert_true(n > 0);
    unsigned char *img = malloc((size_t)n), *got = malloc((size_t)n + 1);
    assert_non_null(img);
    assert_non_null(got);
    assert_int_equal(H5Fget_file_image(f, img, (size_t)n), n);
    assert_int_equal(tlm_mpi_h5_close(f, path, 0, MPI_COMM_SELF, &err),
                     TLM_OK);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(got, 1, (size_t)n + 1, fp), (size_t)n);
    fclose(fp);
    assert_memory_equal(got, img, (size_t)n);
    free(img);
    free(got);
    check_file("grp/sub/rows", r, 5);
    check_file("empty", r, 0);
    check_file("seg", r, 5);
}

static void test_bad_segments(void **state)
{
    (void)state;
    row r[3];
    fill(r, 3);
    hid_t f;
    tlm_error err;
    assert_int_equal(tlm_mpi_h5_create(path, MPI_COMM_SELF, &f, &err),
                     TLM_OK);
    int64_t overlap[4] = {0, 2, 1, 1};
    assert_int_equal(tlm_mpi_h5_write_segments(f, &tab, r, overlap, 2, 3,
                                               MPI_COMM_SELF, &err),
                     TLM_EINVAL);
    assert_non_null(strstr(err.msg, "segment"));
    int64_t past[2] = {2, 2};
    assert_int_equal(tlm_mpi_h5_write_segments(f, &tab, r, past, 1, 3,
                                               MPI_COMM_SELF, &err),
                     TLM_EINVAL);
    int64_t gap[4] = {0, 1, 2, 1}; /* only 2 of 3 rows held */
    assert_int_equal(tlm_mpi_h5_write_segments(f, &tab, r, gap, 2, 3,
                                               MPI_COMM_SELF, &err),
                     TLM_EINVAL);
    assert_non_null(strstr(err.msg, "expected 3"));
    /* writing failed: the file is given up, closed without a crash */
    assert_int_equal(tlm_mpi_h5_write_table(f, &tab, r, 3, MPI_COMM_SELF,
                                            &err),
                     TLM_OK);
    assert_int_equal(tlm_mpi_h5_close(f, path, 1, MPI_COMM_SELF, &err),
                     TLM_EHDF5);
}

static void test_create_fails(void **state)
{
    (void)state;
    hid_t f;
    tlm_error err;
    /* the file is built in memory: the folder is found missing when the
     * image is written, with the errno's text */
    assert_int_equal(tlm_mpi_h5_create("/nonexistent/dir/x.h5",
                                       MPI_COMM_SELF, &f, &err),
                     TLM_OK);
    assert_int_equal(tlm_mpi_h5_attr_i64(f, "a", 1, &err), TLM_OK);
    assert_int_equal(tlm_mpi_h5_close(f, "/nonexistent/dir/x.h5", 0,
                                      MPI_COMM_SELF, &err),
                     TLM_EIO);
    assert_string_equal(err.file, "/nonexistent/dir/x.h5");
    assert_non_null(strstr(err.msg, "No such file or directory"));
    /* a write that failed before the close: nothing is written */
    assert_int_equal(tlm_mpi_h5_create("/tmp/tlm_never.h5", MPI_COMM_SELF,
                                       &f, &err),
                     TLM_OK);
    assert_int_equal(tlm_mpi_h5_close(f, "/tmp/tlm_never.h5", 1,
                                      MPI_COMM_SELF, &err),
                     TLM_EHDF5);
    assert_int_equal(access("/tmp/tlm_never.h5", F_OK), -1);
}

static void test_strset(void **state)
{
    (void)state;
    char b[5];
    tlm_strset(b, sizeof b, "abcdefgh");
    assert_string_equal(b, "abcd");
    tlm_strset(b, sizeof b, NULL);
    assert_string_equal(b, "");
    /* "aµb": truncation never splits the 2-byte character */
    char u[8];
    tlm_strset(u, 3, "a\xc2\xb5" "b");
    assert_string_equal(u, "a");
    tlm_strset(u, 4, "a\xc2\xb5" "b");
    assert_string_equal(u, "a\xc2\xb5");
    assert_int_equal(tlm_utf8_cut("ab\xe2\x82", 4), 2);
    assert_int_equal(tlm_utf8_cut("ab\xe2\x82\xac", 5), 5);
    assert_int_equal(tlm_utf8_cut("abc", 3), 3);
    char fixed[3] = {'x', 'y', 'z'}; /* no NUL */
    tlm_strnset(b, sizeof b, fixed, sizeof fixed);
    assert_string_equal(b, "xyz");
}

static void test_schema_tables(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t t = 0; tlm_rowtabs[t]; t++, n++) {
        const tlm_rowtab *tb = tlm_rowtabs[t];
        hid_t ty = tlm_mpi_h5_type(tb);
        assert_true(ty >= 0);
        assert_int_equal(H5Tget_nmembers(ty), (int)tb->n_cols);
        H5Tclose(ty);
        for (size_t i = 0; i < tb->n_cols; i++) {
            assert_true(tb->cols[i].offset + tb->cols[i].size <=
                        tb->row_size);
            assert_non_null(tb->cols[i].doc);
            assert_true(tb->cols[i].doc[0] != 0);
            for (size_t j = 0; j < i; j++)
                assert_true(strcmp(tb->cols[i].name, tb->cols[j].name) != 0);
        }
    }
    assert_int_equal(n, 16); /* ... /findings and /straggler_causes */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_segments, setup, teardown),
        cmocka_unit_test(test_create_fails),
        cmocka_unit_test(test_strset),
        cmocka_unit_test(test_schema_tables),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
