/*
 * compare_runs_read.c - reads what `tlmpi compare A.h5 B.h5` compares from
 * an analysis file (tlmpi.h5, schema v1) with the plain HDF5 API, one
 * process.  Refuses, naming the file and the attribute or dataset: a file
 * that is not HDF5, another schema version, another kind (audit.h5,
 * comparison.h5: their `kind` attribute), a missing dataset or column,
 * a dataset whose type, shape or storage does not hold what it claims
 * (compare_runs_check.c: checked before any read; the rows then read in
 * bounded slices).  The command reads each file in a child process first
 * (tlm_cr_read_guarded): a file that crashes the HDF5 library itself (or
 * hangs it) is refused by name, never kills tlmpi.
 */
#include "h5write.h"
#include "compare_runs_check.h"
#include "compare_runs_mpi.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const unsigned char h5_magic[8] = {0x89, 'H', 'D', 'F',
                                          '\r', '\n', 0x1a, '\n'};

/* The HDF5 signature at byte 0; *size the file's size. */
static tlm_status not_h5(const char *path, hsize_t *size, tlm_error *err)
{
    FILE *f;
    tlm_status st = tlm_fopen_input(path, &f, err); /* no FIFO, no device */
    if (st != TLM_OK)
        return st;
    unsigned char b[8] = {0};
    size_t n = fread(b, 1, sizeof b, f);
    struct stat sb;
    *size = fstat(fileno(f), &sb) == 0 && sb.st_size > 0
                ? (hsize_t)sb.st_size : 0;
    fclose(f);
    if (n != sizeof b || memcmp(b, h5_magic, sizeof b) != 0)
        return tlm_error_set(err, TLM_EFORMAT, path, 0,
                             "not an HDF5 file (no HDF5 signature)");
    return TLM_OK;
}

static int attr_i64(hid_t f, const char *name, int64_t *v)
{
    if (H5Aexists(f, name) <= 0)
        return 0;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    int ok = a >= 0 && H5Aread(a, H5T_NATIVE_INT64, v) >= 0;
    if (a >= 0)
        H5Aclose(a);
    return ok;
}

/* A variable-length string attribute into buf ("" when absent). */
static void attr_str(hid_t f, const char *name, char *buf, size_t cap)
{
    buf[0] = 0;
    if (H5Aexists(f, name) <= 0)
        return;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
        if (H5Tis_variable_str(t) > 0) {
            char *s = NULL;
            if (H5Aread(a, t, &s) >= 0 && s) {
                tlm_strset(buf, cap, s);
                H5free_memory(s);
            }
        } else {
            snprintf(buf, cap, "(fixed string)");
        }
    } else {
        snprintf(buf, cap, "(not a string)");
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
}

static tlm_status check_attrs(hid_t f, tlm_cr_run *r, tlm_error *err)
{
    char kind[64];
    attr_str(f, "kind", kind, sizeof kind);
    if (kind[0])
        return tlm_error_set(err, TLM_EFORMAT, r->path, -1,
                             "attribute 'kind' is '%s': a %s file, not the "
                             "analysis of a job (tlmpi --trace_dir ... "
                             "--output FILE.h5)", kind, kind);
    int64_t ver = -1;
    if (!attr_i64(f, "schema_version", &ver))
        return tlm_error_set(err, TLM_EFORMAT, r->path, -1,
                             "no attribute 'schema_version': not a tlmpi "
                             "analysis file");
    if (ver != TLM_SCHEMA_VERSION)
        return tlm_error_set(err, TLM_EFORMAT, r->path, -1,
                             "attribute 'schema_version' is %lld, this "
                             "tlmpi reads version %d", (long long)ver,
                             TLM_SCHEMA_VERSION);
    r->world_size = r->n_traces = r->straggler_rank = -1;
    r->straggler_wait_ns = 0;
    attr_i64(f, "world_size", &r->world_size);
    attr_i64(f, "n_traces", &r->n_traces);
    attr_i64(f, "straggler_rank", &r->straggler_rank);
    attr_i64(f, "straggler_wait_ns", &r->straggler_wait_ns);
    return TLM_OK;
}

/* The columns of t absent from dataset ds (missing[i] set, t->n_cols
 * entries): only optional ones, tlm_cr_check_dataset refused the rest. */
static tlm_status missing_cols(hid_t ds, const tlm_rowtab *t,
                               const char *path, unsigned char *missing,
                               tlm_error *err)
{
    hid_t ft = H5Dget_type(ds);
    if (ft < 0)
        return tlm_error_set(err, TLM_EHDF5, path, -1,
                             "cannot read dataset '/%s'", t->name);
    for (size_t i = 0; i < t->n_cols; i++)
        missing[i] = H5Tget_member_index(ft, t->cols[i].name) < 0;
    H5Tclose(ft);
    return TLM_OK;
}

/* The int64 columns missing[] names set to -1 in rows[0..n). */
static void unknown_cols(const tlm_rowtab *t, const unsigned char *missing,
                         void *rows, size_t n)
{
    for (size_t c = 0; c < t->n_cols; c++) {
        if (!missing[c] || t->cols[c].size != sizeof(int64_t))
            continue;
        for (size_t i = 0; i < n; i++) {
            int64_t v = -1;
            memcpy((char *)rows + i * t->row_size + t->cols[c].offset, &v,
                   sizeof v);
        }
    }
}

/* Rows [first, first + n) of ds into buf (a slice of the file). */
static herr_t read_slice(hid_t ds, hid_t mt, hsize_t first, hsize_t n,
                         void *buf)
{
    hid_t fsp = H5Dget_space(ds), msp = H5Screate_simple(1, &n, NULL);
    herr_t rc = fsp < 0 || msp < 0 ? -1
                : H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &first, NULL, &n,
                                      NULL);
    if (rc >= 0)
        rc = H5Dread(ds, mt, msp, fsp, H5P_DEFAULT, buf);
    if (msp >= 0)
        H5Sclose(msp);
    if (fsp >= 0)
        H5Sclose(fsp);
    return rc;
}

/* Dataset t->name of f (file_size bytes) into a new array of rows: the
 * dataset checked first (compare_runs_check.c), then read in slices of
 * at most SLICE_BYTES (HDF5's buffers stay small). */
static tlm_status read_table(hid_t f, const tlm_rowtab *t, const char *path,
                             hsize_t file_size, void **rows, size_t *n,
                             tlm_error *err)
{
    enum { SLICE_BYTES = 1 << 22 };
    *rows = NULL;
    *n = 0;
    if (H5Lexists(f, t->name, H5P_DEFAULT) <= 0)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "no dataset '/%s'", t->name);
    hid_t ds = H5Dopen2(f, t->name, H5P_DEFAULT);
    if (ds < 0)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "cannot open dataset '/%s'", t->name);
    hsize_t np = 0, slice = SLICE_BYTES / t->row_size + 1;
    hid_t mt = -1;
    unsigned char *missing = calloc(t->n_cols ? t->n_cols : 1, 1);
    tlm_status st = !missing ? tlm_error_set(err, TLM_ENOMEM, path, -1,
                                             "out of memory")
                    : tlm_cr_check_dataset(ds, t, path, file_size, &np, err);
    if (st == TLM_OK)
        st = missing_cols(ds, t, path, missing, err);
    if (st == TLM_OK && np > 0) {
        *rows = np <= SIZE_MAX / t->row_size ? calloc((size_t)np,
                                                      t->row_size)
                                             : NULL;
        mt = tlm_mpi_h5_type(t);
        if (!*rows)
            st = tlm_error_set(err, TLM_ENOMEM, path, -1,
                               "out of memory reading '/%s' (%llu rows)",
                               t->name, (unsigned long long)np);
        for (hsize_t at = 0; st == TLM_OK && at < np; at += slice) {
            hsize_t k = np - at < slice ? np - at : slice;
            if (mt < 0 || read_slice(ds, mt, at, k,
                                     (char *)*rows + at * t->row_size) < 0)
                st = tlm_error_set(err, TLM_EHDF5, path, -1,
                                   "cannot read dataset '/%s' (rows %llu "
                                   "to %llu: damaged?)", t->name,
                                   (unsigned long long)at,
                                   (unsigned long long)(at + k));
        }
    }
    if (st == TLM_OK) {
        *n = (size_t)np;
        unknown_cols(t, missing, *rows, *n);
    } else {
        free(*rows);
        *rows = NULL;
    }
    free(missing);
    if (mt >= 0)
        H5Tclose(mt);
    H5Dclose(ds);
    return st;
}

tlm_status tlm_cr_read(tlm_cr_run *r, const char *path, const char *name,
                       tlm_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->name = name;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hsize_t file_size = 0;
    tlm_status st = not_h5(path, &file_size, err);
    if (st != TLM_OK)
        return st;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "HDF5 cannot open it (damaged file?)");
    st = check_attrs(f, r, err);
    const struct {
        const tlm_rowtab *t;
        void **rows;
        size_t *n;
    } tabs[] = {
        {&tlm_tab_summary, (void **)&r->sum, &r->n_sum},
        {&tlm_tab_instances, (void **)&r->inst, &r->n_inst},
        {&tlm_tab_stragglers, (void **)&r->strag, &r->n_strag},
        {&tlm_tab_ops_merged, (void **)&r->ops, &r->n_ops},
        {&tlm_tab_step_summary, (void **)&r->steps, &r->n_steps},
        {&tlm_tab_timeline, (void **)&r->tl, &r->n_tl},
    };
    for (size_t i = 0; st == TLM_OK && i < sizeof tabs / sizeof tabs[0]; i++)
        st = read_table(f, tabs[i].t, path, file_size, tabs[i].rows,
                        tabs[i].n, err);
    H5Fclose(f);
    if (st != TLM_OK)
        tlm_cr_run_free(r);
    return st;
}

/* MARK: - the read tried in a child first ---------------------------- */

/* What the child sends back: its status and error. */
typedef struct child_msg {
    tlm_status st;
    tlm_error err;
} child_msg;

/* Reads the whole message from fd within deadline_s seconds: 1 when it
 * came, 0 when the child ended (or the time ran out) without it. */
static int child_result(int fd, child_msg *m, int deadline_s, int *late)
{
    size_t got = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    *late = 0;
    while (got < sizeof *m) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = (long)deadline_s * 1000 -
                    ((long)(t.tv_sec - t0.tv_sec) * 1000 +
                     (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0) {
            *late = 1;
            return 0;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return 0;
        if (r == 0)
            continue;
        ssize_t k = read(fd, (char *)m + got, sizeof *m - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        got += (size_t)k;
    }
    return 1;
}

/* The child: reads the file and sends what came of it. */
static void child_read(int fd, const char *path, const char *name)
{
    child_msg m;
    memset(&m, 0, sizeof m);
    tlm_cr_run r;
    tlm_error_clear(&m.err);
    m.st = tlm_cr_read(&r, path, name, &m.err);
    if (m.st == TLM_OK)
        tlm_cr_run_free(&r);
    const char *p = (const char *)&m;
    size_t left = sizeof m;
    while (left > 0) {
        ssize_t k = write(fd, p, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        p += k;
        left -= (size_t)k;
    }
    _exit(0);
}

tlm_status tlm_cr_read_guarded(tlm_cr_run *r, const char *path,
                               const char *name, int deadline_s,
                               tlm_error *err)
{
    memset(r, 0, sizeof *r);
    int fd[2];
    if (pipe(fd) != 0)
        return tlm_cr_read(r, path, name, err);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return tlm_cr_read(r, path, name, err);
    }
    if (pid == 0) {
        close(fd[0]);
        child_read(fd[1], path, name);
    }
    close(fd[1]);
    child_msg m;
    int late = 0, ok = child_result(fd[0], &m, deadline_s, &late);
    close(fd[0]);
    if (!ok)
        kill(pid, SIGKILL);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (ok && m.st != TLM_OK) {
        if (err)
            *err = m.err;
        return m.st;
    }
    if (ok)
        return tlm_cr_read(r, path, name, err);
    if (late)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "not a readable tlmpi run file (reading it "
                             "took over %d s)", deadline_s);
    if (WIFSIGNALED(ws))
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "not a readable tlmpi run file (the HDF5 "
                             "library crashed reading it: signal %d, %s)",
                             WTERMSIG(ws), strsignal(WTERMSIG(ws)));
    return tlm_error_set(err, TLM_EFORMAT, path, -1,
                         "not a readable tlmpi run file (reading it ended "
                         "without a result: exit status %d)",
                         WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
}

void tlm_cr_run_free(tlm_cr_run *r)
{
    free(r->sum);
    free(r->inst);
    free(r->strag);
    free(r->ops);
    free(r->steps);
    free(r->tl);
    r->sum = NULL;
    r->inst = NULL;
    r->strag = NULL;
    r->ops = NULL;
    r->steps = NULL;
    r->tl = NULL;
    r->n_sum = r->n_inst = r->n_strag = r->n_ops = r->n_steps = r->n_tl = 0;
}
