/*
 * fuzz_runfile.c - libFuzzer target for the run-file reader of `tlmpi
 * compare A.h5 B.h5` (mpi/compare_runs_read.c, compare_runs_check.c),
 * the HDF5 library's own parsing included: the input is written to a
 * temporary file and read in this process (no child: the sanitizers see
 * every read of the library and of tlmpi).
 *
 * Input: the bytes of a file (the corpus: a real run file, its one-byte
 * mutants that crashed HDF5 before the checks, files whose datasets lie
 * about their rows; tests/fuzz/mutate_runfile.py finds more).
 * Properties: reading never crashes; it fails with a status and a
 * terminated message naming the file, or gives tables of at most the
 * rows the file's bytes can hold.  A violation calls abort().
 */
#include "compare_runs_mpi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_runfile: %s\n", what);
        abort();
    }
}

/* data into a new temporary file; its path in path, 0 or -1. */
static int to_file(const uint8_t *data, size_t size, char *path, size_t cap)
{
    const char *d = getenv("TMPDIR");
    snprintf(path, cap, "%s/fuzz_runfile.XXXXXX", d && *d ? d : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t k = write(fd, data + off, size - off);
        if (k <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        off += (size_t)k;
    }
    close(fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    if (to_file(data, size, path, sizeof path) != 0)
        return 0;
    tlm_cr_run r;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = tlm_cr_read(&r, path, "fuzz", &err);
    unlink(path);
    if (st != TLM_OK) {
        check(memchr(err.msg, 0, sizeof err.msg) != NULL, "message");
        check(err.code != TLM_OK, "status");
        check(strstr(err.file, "fuzz_runfile.") != NULL, "file named");
        check(r.sum == NULL && r.tl == NULL && r.n_tl == 0, "no rows");
        return 0;
    }
    /* every row read came from the file's bytes (1032: deflate's ratio) */
    size_t rows = r.n_sum + r.n_inst + r.n_strag + r.n_ops + r.n_steps +
                  r.n_tl;
    check(rows <= (size_t)1032 * size, "more rows than the bytes hold");
    check(!r.n_tl || r.tl, "timeline rows");
    tlm_cr_run_free(&r);
    return 0;
}
