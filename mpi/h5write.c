/*
 * h5write.c - the driver's generic HDF5 table writer.
 *
 * Why a generic writer: every dataset of the output file (traces, ops,
 * kernels, collective instances ...) is a flat array of C structs described
 * by an X-macro column list (tables.h).  One function turns any such list
 * into a compound type and writes it, so adding a column is a one-line
 * change that the file, the documentation and the Python loader all pick
 * up.
 *
 * Why rank 0 alone, in memory: parallel HDF5 1.10 does not survive a write
 * failing on one rank (ranks disagree inside collective calls and hang; a
 * file whose close failed crashes MPI_Finalize).  Here the other ranks
 * send their rows to rank 0 in messages of about 4 MiB, in row order (row
 * offsets from MPI_Exscan, or explicit segments for tables whose row order
 * must not depend on the number of MPI ranks); rank 0 writes them into a
 * file held by HDF5's core driver and, at the close, writes the file image
 * with plain write() calls whose failures are ordinary errors (from the
 * driver's own buffer: rank 0 never holds the file twice).  Every rank
 * agrees on the status after each table.  With several processes the
 * deflate work is shared (par_write): a table goes in rounds of chunks,
 * each chunk's rows moved to process k % np, which compresses it as
 * HDF5's deflate filter does (compress2, the same level), and rank 0
 * writes the compressed chunks with H5Dwrite_chunk: the same file, and
 * rank 0 no longer compresses every row alone.
 */
#include "h5write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

/* The deflate level of every dataset (create_ds, par_round: the same
 * compression whichever process makes it). */
#define DEFLATE_LEVEL 4

static int cmp_seg(const void *a, const void *b);

/* ------------------------------------------------------------------ *
 * MARK: - helpers
 * ------------------------------------------------------------------ */

/* The innermost HDF5 error message of the default stack, and the errno
 * of a failed system call when a message of the stack gives one (the
 * sec2 driver's "errno = 28, error message = ..."). */
typedef struct h5_cause {
    char detail[200];
    int sys_errno;
} h5_cause;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *ud)
{
    h5_cause *c = ud;
    (void)n;
    if (!e || !e->desc)
        return 0;
    /* walking downward: the last one is the cause */
    snprintf(c->detail, sizeof c->detail, "%s(): %s",
             e->func_name ? e->func_name : "?", e->desc);
    const char *p = strstr(e->desc, "errno = ");
    if (p && !c->sys_errno)
        c->sys_errno = atoi(p + 8);
    return 0;
}

/* The (start, rows) pairs each rank r sent (flat[dsp[r]..], cnt[r]
 * numbers) as (start, rows, r) triples appended to all, pairs of no rows
 * left out. */
static void seg_triples(const int64_t *flat, const int *cnt, const int *dsp,
                        int np, int64_t *all, size_t *n_all)
{
    for (int r = 0; r < np; r++)
        for (int k = 0; k < cnt[r]; k += 2) {
            int64_t *o = all + 3 * *n_all;
            o[0] = flat[dsp[r] + k];
            o[1] = flat[dsp[r] + k + 1];
            o[2] = r;
            if (o[1] > 0)
                (*n_all)++;
        }
}

/* Set when the file image's allocation failed (img_malloc, img_realloc):
 * the next HDF5 failure is that, out of memory. */
static int img_oom;

static tlm_status h5_fail(tlm_error *err, const char *what, const char *obj)
{
    h5_cause c = {"", 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &c);
    H5Eclear2(H5E_DEFAULT);
    if (img_oom) {
        img_oom = 0;
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "HDF5: %s failed for '%s': out of memory for "
                             "the file image", what, obj ? obj : "");
    }
    if (c.sys_errno > 0)
        return tlm_error_set(err, TLM_EHDF5, NULL, -1,
                             "HDF5: %s failed for '%s': %s", what,
                             obj ? obj : "", strerror(c.sys_errno));
    return tlm_error_set(err, TLM_EHDF5, NULL, -1,
                         "HDF5: %s failed for '%s'%s%s", what,
                         obj ? obj : "", c.detail[0] ? ": " : "", c.detail);
}

/* Agrees on the worst local status: every rank returns the same value. */
static tlm_status agree(tlm_status st, MPI_Comm comm)
{
    int in = (int)st, out = 0;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return TLM_EMPI;
    return (tlm_status)out;
}

/* Agrees on *st for table t: returns 0 when every rank succeeded; else
 * -1, and a rank that did not fail itself gets code with the message
 * "table '<name>': <what>". */
static int agree_table(tlm_status *st, MPI_Comm comm, tlm_status code,
                       const tlm_rowtab *t, const char *what,
                       tlm_error *err)
{
    if (agree(*st, comm) == TLM_OK)
        return 0;
    if (*st == TLM_OK)
        *st = tlm_error_set(err, code, NULL, -1, "table '%s': %s", t->name,
                            what);
    return -1;
}

static hid_t str_type(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return t;
    if (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t tlm_mpi_h5_type(const tlm_rowtab *t)
{
    hid_t ct = H5Tcreate(H5T_COMPOUND, t->row_size);
    if (ct < 0)
        return ct;
    for (size_t i = 0; i < t->n_cols; i++) {
        const tlm_col *c = &t->cols[i];
        hid_t ft = -1;
        int own = 0;
        switch (c->type) {
        case TLM_CT_I32:
            ft = H5T_NATIVE_INT32;
            break;
        case TLM_CT_I64:
            ft = H5T_NATIVE_INT64;
            break;
        case TLM_CT_U64:
            ft = H5T_NATIVE_UINT64;
            break;
        case TLM_CT_F64:
            ft = H5T_NATIVE_DOUBLE;
            break;
        case TLM_CT_STR:
            ft = str_type(c->size);
            own = 1;
            break;
        }
        herr_t rc = ft < 0 ? -1 : H5Tinsert(ct, c->name, c->offset, ft);
        if (own && ft >= 0)
            H5Tclose(ft);
        if (rc < 0) {
            H5Tclose(ct);
            return -1;
        }
    }
    return ct;
}

/* ------------------------------------------------------------------ *
 * MARK: - file and attributes
 * ------------------------------------------------------------------ */

/* The core driver's buffer, allocated through these callbacks so that the
 * close can write it as it is (no second copy of the file on rank 0):
 * buf holds the file's first size bytes (the driver reads zeros past
 * them). */
typedef struct h5_img {
    unsigned char *buf;
    size_t size;
} h5_img;

/* Notes the buffer p of size bytes that an allocation returned (NULL:
 * failed). */
static void *img_keep(h5_img *m, void *p, size_t size)
{
    if (p) {
        m->buf = p;
        m->size = size;
    }
    img_oom |= !p;
    return p;
}

static void *img_malloc(size_t size, H5FD_file_image_op_t op, void *ud)
{
    (void)op;
    return img_keep(ud, malloc(size ? size : 1), size);
}

static void *img_memcpy(void *dst, const void *src, size_t size,
                        H5FD_file_image_op_t op, void *ud)
{
    (void)op;
    (void)ud;
    return memcpy(dst, src, size);
}

static void *img_realloc(void *ptr, size_t size, H5FD_file_image_op_t op,
                         void *ud)
{
    (void)op;
    return img_keep(ud, realloc(ptr, size ? size : 1), size);
}

static herr_t img_free(void *ptr, H5FD_file_image_op_t op, void *ud)
{
    (void)op;
    h5_img *m = ud;
    if (ptr == m->buf) {
        m->buf = NULL;
        m->size = 0;
    }
    free(ptr);
    return 0;
}

/* The property list shares one h5_img; tlm_mpi_h5_close frees it. */
static void *img_udata_copy(void *ud) { return ud; }
static herr_t img_udata_free(void *ud)
{
    (void)ud;
    return 0;
}

/* The h5_img of each file open for writing (HDF5 does not hand the
 * callbacks' udata back from the file's access list).  Only the driver's
 * thread opens these files, one or two at a time. */
enum { IMG_SLOTS = 8 };
static struct {
    hid_t file;
    h5_img *m;
} img_slots[IMG_SLOTS];

/* 1, or 0 when every slot is taken. */
static int img_put(hid_t file, h5_img *m)
{
    for (int i = 0; i < IMG_SLOTS; i++)
        if (!img_slots[i].m) {
            img_slots[i].file = file;
            img_slots[i].m = m;
            return 1;
        }
    return 0;
}

/* Takes file's h5_img out of its slot (NULL when it has none). */
static h5_img *img_take(hid_t file)
{
    for (int i = 0; i < IMG_SLOTS; i++)
        if (img_slots[i].m && img_slots[i].file == file) {
            h5_img *m = img_slots[i].m;
            img_slots[i].m = NULL;
            return m;
        }
    return NULL;
}

tlm_status tlm_mpi_h5_create(const char *path, MPI_Comm comm, hid_t *file,
                             tlm_error *err)
{
    /* HDF5 prints its error stack by default; messages go through err. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    *file = -1;
    int me = 0;
    MPI_Comm_rank(comm, &me);
    if (me != 0)
        return TLM_OK;
    /* in memory (the core driver, no backing store): HDF5 itself never
     * writes to disk, so a failing disk cannot leave it half-closed; grown
     * 1 MiB at a time (16 MiB steps cost rank 0 about 15 MB more peak RSS
     * on a 4 MB file of 1,024 traces) */
    img_oom = 0;
    h5_img *m = calloc(1, sizeof *m);
    if (!m)
        return tlm_error_set(err, TLM_ENOMEM, path, -1,
                             "out of memory for the HDF5 file");
    H5FD_file_image_callbacks_t cb = {img_malloc,     img_memcpy,
                                      img_realloc,    img_free,
                                      img_udata_copy, img_udata_free, m};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, 1u << 20, 0) < 0 ||
        H5Pset_file_image_callbacks(fapl, &cb) < 0) {
        if (fapl >= 0)
            H5Pclose(fapl);
        free(m);
        return h5_fail(err, "H5Pset_fapl_core", path);
    }
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0) {
        free(m);
        return h5_fail(err, "H5Fcreate", path);
    }
    if (!img_put(f, m)) {
        H5Fclose(f);
        free(m); /* after the close: the driver's buffer went through m */
        return tlm_error_set(err, TLM_ELIMIT, path, -1,
                             "more than %d HDF5 files open for writing",
                             IMG_SLOTS);
    }
    *file = f;
    return TLM_OK;
}

/* Writes n bytes to a new file at path (never an existing one): the
 * first have of buf, then zeros (what the core driver reads back past
 * its buffer); the first 24 bytes from head when it is not NULL. */
static tlm_status write_image(const char *path, const unsigned char *head,
                              const unsigned char *buf, size_t have,
                              size_t n, tlm_error *err)
{
    static const unsigned char zeros[4096];
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot create: %s",
                             strerror(errno));
    int e = 0;
    if (have > n)
        have = n;
    for (size_t off = 0; off < n && !e;) {
        const unsigned char *from = off < have ? buf + off : zeros;
        size_t k = off < have ? have - off : n - off;
        if (head && off < 24) {
            from = head + off;
            k = 24 - off;
        }
        if (k > (64u << 20))
            k = 64u << 20;
        if (from == zeros && k > sizeof zeros)
            k = sizeof zeros;
        ssize_t w = write(fd, from, k);
        if (w < 0 && errno != EINTR)
            e = errno;
        else if (w > 0)
            off += (size_t)w;
    }
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        unlink(path);
        return tlm_error_set(err, TLM_EIO, path, -1, "write failed: %s",
                             strerror(e));
    }
    return TLM_OK;
}

/* The flushed file's n bytes (what H5Fget_file_image gives) written to
 * path.  From the core driver's buffer when m tracks it and the file
 * starts with a version 0 or 1 superblock: H5Fget_file_image's image is
 * then those bytes with the superblock's consistency flags (bytes 20-23,
 * "open for writing") cleared.  Else from a copy. */
static tlm_status write_file(hid_t file, const h5_img *m, const char *path,
                             tlm_error *err)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F',
                                         '\r', '\n', 0x1a, '\n'};
    ssize_t n = 0;
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0 ||
        (n = H5Fget_file_image(file, NULL, 0)) < 0)
        return h5_fail(err, "H5Fget_file_image", path);
    if (m && m->buf && m->size >= 24 && n >= 24 &&
        !memcmp(m->buf, sig, sizeof sig) && m->buf[8] <= 1) {
        unsigned char head[24];
        memcpy(head, m->buf, 20);
        memset(head + 20, 0, 4);
        return write_image(path, head, m->buf, m->size, (size_t)n, err);
    }
    unsigned char *img = malloc(n ? (size_t)n : 1);
    tlm_status st = TLM_OK;
    if (!img)
        st = tlm_error_set(err, TLM_ENOMEM, path, -1,
                           "out of memory for the HDF5 file image");
    else if (H5Fget_file_image(file, img, (size_t)n) != n)
        st = h5_fail(err, "H5Fget_file_image", path);
    else
        st = write_image(path, NULL, img, (size_t)n, (size_t)n, err);
    free(img);
    return st;
}

tlm_status tlm_mpi_h5_close(hid_t file, const char *path, int failed,
                            MPI_Comm comm, tlm_error *err)
{
    (void)comm;
    if (file < 0)
        return TLM_OK;
    h5_img *m = img_take(file);
    tlm_status st = failed ? TLM_EHDF5 : write_file(file, m, path, err);
    if (H5Fclose(file) < 0 && st == TLM_OK) {
        st = h5_fail(err, "H5Fclose", path);
        unlink(path); /* written, but HDF5 did not close cleanly */
    }
    free(m); /* after the close: the driver frees its buffer through m */
    return st; /* when failed: the caller has the first error */
}

tlm_status tlm_mpi_h5_attr_str(hid_t obj, const char *name,
                               const char *value, tlm_error *err)
{
    if (obj < 0)
        return TLM_OK; /* a rank that does not hold the file */
    tlm_status st = TLM_OK;
    hid_t ty = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a = -1;
    if (ty < 0 || sp < 0 || H5Tset_size(ty, H5T_VARIABLE) < 0 ||
        H5Tset_cset(ty, H5T_CSET_UTF8) < 0) {
        st = h5_fail(err, "string attribute type", name);
        goto done;
    }
    a = H5Acreate2(obj, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) {
        st = h5_fail(err, "H5Acreate2", name);
        goto done;
    }
    const char *v = value ? value : "";
    if (H5Awrite(a, ty, &v) < 0)
        st = h5_fail(err, "H5Awrite", name);
done:
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (ty >= 0)
        H5Tclose(ty);
    return st;
}

tlm_status tlm_mpi_h5_attr_i64(hid_t obj, const char *name, int64_t value,
                               tlm_error *err)
{
    if (obj < 0)
        return TLM_OK; /* a rank that does not hold the file */
    tlm_status st = TLM_OK;
    hid_t sp = H5Screate(H5S_SCALAR), a = -1;
    if (sp < 0)
        return h5_fail(err, "H5Screate", name);
    a = H5Acreate2(obj, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT64, &value) < 0)
        st = h5_fail(err, "integer attribute", name);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return st;
}

/* Writes an array attribute of variable-length strings. */
static tlm_status attr_strs(hid_t obj, const char *name, const char **v,
                            size_t n, tlm_error *err)
{
    tlm_status st = TLM_OK;
    hsize_t dim = n;
    hid_t ty = H5Tcopy(H5T_C_S1), sp = H5Screate_simple(1, &dim, NULL);
    hid_t a = -1;
    if (ty < 0 || sp < 0 || H5Tset_size(ty, H5T_VARIABLE) < 0 ||
        H5Tset_cset(ty, H5T_CSET_UTF8) < 0) {
        st = h5_fail(err, "string array attribute type", name);
        goto done;
    }
    a = H5Acreate2(obj, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, ty, v) < 0)
        st = h5_fail(err, "string array attribute", name);
done:
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (ty >= 0)
        H5Tclose(ty);
    return st;
}

static tlm_status table_attrs(hid_t ds, const tlm_rowtab *t,
                              tlm_error *err)
{
    const char **names = malloc((t->n_cols ? t->n_cols : 1) * sizeof *names);
    const char **units = malloc((t->n_cols ? t->n_cols : 1) * sizeof *units);
    tlm_status st = TLM_OK;
    if (!names || !units) {
        st = tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                           "out of memory writing attributes of '%s'",
                           t->name);
        goto done;
    }
    for (size_t i = 0; i < t->n_cols; i++) {
        names[i] = t->cols[i].name;
        units[i] = t->cols[i].unit ? t->cols[i].unit : "";
    }
    st = tlm_mpi_h5_attr_str(ds, "doc", t->doc, err);
    if (st == TLM_OK)
        st = attr_strs(ds, "columns", names, t->n_cols, err);
    if (st == TLM_OK)
        st = attr_strs(ds, "units", units, t->n_cols, err);
done:
    free(names);
    free(units);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - tables
 * ------------------------------------------------------------------ */

/* Rows per chunk: about 256 KiB of rows, at most the table. */
static hsize_t chunk_rows(const tlm_rowtab *t, int64_t total)
{
    hsize_t c = (hsize_t)(262144 / (t->row_size ? t->row_size : 1));
    if (c < 1)
        c = 1;
    if (total > 0 && (hsize_t)total < c)
        c = (hsize_t)total;
    return c;
}

/* Checks this rank's segments against total, and that every rank's rows
 * add up to total.  Collective (agreed). */
static tlm_status check_segments(const tlm_rowtab *t, const int64_t *seg,
                                 size_t n_seg, int64_t total,
                                 int64_t *n_local, MPI_Comm comm,
                                 tlm_error *err)
{
    tlm_status st = TLM_OK;
    *n_local = 0;
    for (size_t i = 0; i < n_seg; i++) {
        if (seg[2 * i] < 0 || seg[2 * i + 1] < 0 ||
            seg[2 * i] + seg[2 * i + 1] > total ||
            (i > 0 && seg[2 * i] < seg[2 * i - 2] + seg[2 * i - 1])) {
            st = tlm_error_set(err, TLM_EINVAL, NULL, -1,
                               "table '%s': bad row segment %zu", t->name,
                               i);
            break;
        }
        *n_local += seg[2 * i + 1];
    }
    int64_t sum = 0;
    if (MPI_Allreduce(n_local, &sum, 1, MPI_INT64_T, MPI_SUM, comm) !=
        MPI_SUCCESS)
        return tlm_error_set(err, TLM_EMPI, NULL, -1, "MPI_Allreduce failed");
    if (st == TLM_OK && sum != total)
        st = tlm_error_set(err, TLM_EINVAL, NULL, -1,
                           "table '%s': ranks hold %lld rows, expected %lld",
                           t->name, (long long)sum, (long long)total);
    agree_table(&st, comm, TLM_EINVAL, t, "another rank failed", err);
    return st;
}

/* Rank 0: the dataset of total rows (chunked, deflate) and its
 * attributes; *mt its memory type. */
static tlm_status create_ds(hid_t loc, const tlm_rowtab *t, int64_t total,
                            hid_t *ds, hid_t *mt, tlm_error *err)
{
    tlm_status st = TLM_OK;
    hid_t fsp = -1, dcpl = -1, lcpl = -1;
    *ds = -1;
    *mt = tlm_mpi_h5_type(t);
    if (*mt < 0)
        return h5_fail(err, "compound type", t->name);
    hsize_t dim = (hsize_t)total, maxdim = H5S_UNLIMITED;
    hsize_t chunk = chunk_rows(t, total);
    fsp = H5Screate_simple(1, &dim, &maxdim);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (fsp < 0 || dcpl < 0 || lcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
        H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0 ||
        H5Pset_create_intermediate_group(lcpl, 1) < 0)
        st = h5_fail(err, "dataset properties", t->name);
    if (st == TLM_OK) {
        *ds = H5Dcreate2(loc, t->name, *mt, fsp, lcpl, dcpl, H5P_DEFAULT);
        if (*ds < 0)
            st = h5_fail(err, "H5Dcreate2", t->name);
    }
    if (st == TLM_OK)
        st = table_attrs(*ds, t, err);
    if (fsp >= 0)
        H5Sclose(fsp);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    return st;
}

/* Rank 0: writes count rows of buf at row first of ds. */
static tlm_status write_rows(hid_t ds, hid_t mt, const tlm_rowtab *t,
                             int64_t first, int64_t count, const void *buf,
                             tlm_error *err)
{
    if (count <= 0)
        return TLM_OK;
    tlm_status st = TLM_OK;
    hsize_t start = (hsize_t)first, n = (hsize_t)count;
    hid_t fsp = H5Dget_space(ds);
    hid_t msp = H5Screate_simple(1, &n, NULL);
    if (fsp < 0 || msp < 0 ||
        H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &n, NULL) < 0 ||
        H5Dwrite(ds, mt, msp, fsp, H5P_DEFAULT, buf) < 0)
        st = h5_fail(err, "H5Dwrite", t->name);
    if (msp >= 0)
        H5Sclose(msp);
    if (fsp >= 0)
        H5Sclose(fsp);
    return st;
}

/* Rows per message from a rank to rank 0: about 4 MiB. */
static int64_t msg_rows(const tlm_rowtab *t)
{
    int64_t r = (int64_t)((4u << 20) / (t->row_size ? t->row_size : 1));
    return r > 0 ? r : 1;
}

/* Rank 0 receives segment (first, count) of rank `from` in messages of
 * msg_rows rows and writes them (unless *st already failed: the rows are
 * still received, so the sender never waits forever). */
static void recv_segment(hid_t ds, hid_t mt, const tlm_rowtab *t,
                         int from, int64_t first, int64_t count, char *buf,
                         MPI_Comm comm, tlm_status *st, tlm_error *err)
{
    int64_t per = msg_rows(t);
    for (int64_t k = 0; k < count; k += per) {
        int64_t m = count - k < per ? count - k : per;
        MPI_Recv(buf, (int)(m * (int64_t)t->row_size), MPI_BYTE, from, 77,
                 comm, MPI_STATUS_IGNORE);
        if (*st == TLM_OK)
            *st = write_rows(ds, mt, t, first + k, m, buf, err);
    }
}

/* Rank != 0: sends its rows, segment by segment, in msg_rows messages
 * (segment i's rows at src(arg, i), or back to back from rows when src
 * is NULL). */
static void send_rows(const tlm_rowtab *t, const void *rows,
                      tlm_mpi_seg_fn src, void *arg, const int64_t *seg,
                      size_t n_seg, MPI_Comm comm)
{
    int64_t per = msg_rows(t);
    const char *p = rows;
    for (size_t i = 0; i < n_seg; i++)
        for (int64_t k = 0; k < seg[2 * i + 1]; k += per) {
            if (src && k == 0)
                p = src(arg, i);
            int64_t m = seg[2 * i + 1] - k < per ? seg[2 * i + 1] - k : per;
            MPI_Send(p, (int)(m * (int64_t)t->row_size), MPI_BYTE, 0, 77,
                     comm);
            p += m * (int64_t)t->row_size;
        }
}

/* Every rank's segments on rank 0: *all holds (first, count, rank)
 * triples sorted by first row. */
static tlm_status gather_segments(const int64_t *seg, size_t n_seg, int me,
                                  int np, MPI_Comm comm, int64_t **all,
                                  size_t *n_all);

/* Rank 0: every segment in row order, its own written from rows (or
 * from src(arg, j) for its j-th segment, when src is not NULL), the
 * others received from their ranks into buf (msg_rows rows). */
static tlm_status write_all_segments(hid_t loc, const tlm_rowtab *t,
                                     const void *rows, tlm_mpi_seg_fn src,
                                     void *arg, int64_t total,
                                     const int64_t *all, size_t n_all,
                                     char *buf, MPI_Comm comm, tlm_error *err)
{
    hid_t ds = -1, mt = -1;
    tlm_status st = loc < 0 ? TLM_EHDF5 : create_ds(loc, t, total, &ds, &mt,
                                                     err);
    const char *own = rows;
    size_t j = 0; /* rank 0's own segments, in the same (row) order */
    for (size_t i = 0; i < n_all; i++) {
        int64_t first = all[3 * i], count = all[3 * i + 1];
        int from = (int)all[3 * i + 2];
        if (from == 0) {
            if (src)
                own = src(arg, j++);
            if (st == TLM_OK)
                st = write_rows(ds, mt, t, first, count, own, err);
            own += count * (int64_t)t->row_size;
        } else {
            recv_segment(ds, mt, t, from, first, count, buf, comm, &st, err);
        }
    }
    if (ds >= 0)
        H5Dclose(ds);
    if (mt >= 0)
        H5Tclose(mt);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - chunks compressed by every process
 * ------------------------------------------------------------------ */

/* Chunks per process and round of par_write. */
#define PAR_CHUNKS 4

/* One process's cursor over its own rows, segment by segment. */
typedef struct row_cursor {
    const int64_t *seg;      /* its (first, count) pairs */
    size_t n_seg, i;         /* segments, the current one */
    int64_t off;             /* rows of the segments before i */
    const char *p;           /* the current segment's rows, or NULL */
    const void *rows;        /* back to back, or */
    tlm_mpi_seg_fn src;      /* one segment at a time */
    void *arg;
    size_t row_size;
} row_cursor;

/* The rows of the current segment (src called once per segment). */
static const char *cursor_rows(row_cursor *c)
{
    if (!c->p)
        c->p = c->src ? c->src(c->arg, c->i)
                      : (const char *)c->rows + (size_t)c->off * c->row_size;
    return c->p;
}

/* Own rows of [r0, r1) into the send buffer, by destination process
 * (chunk k of crow rows to k % np) and row; fill[p]: bytes placed. */
static void pack_sends(row_cursor *cur, int64_t r0, int64_t r1,
                       int64_t crow, int np, char *send, const int *sdsp,
                       int *fill)
{
    size_t rs = cur->row_size;
    memset(fill, 0, (size_t)np * sizeof *fill);
    for (int64_t x = r0; x < r1 && cur->i < cur->n_seg;) {
        int64_t f = cur->seg[2 * cur->i], e = f + cur->seg[2 * cur->i + 1];
        if (f >= r1)
            break;
        int64_t a = x > f ? x : f, k = a / crow, y = (k + 1) * crow;
        y = y < e ? y : e;
        y = y < r1 ? y : r1;
        if (y > a) {
            int to = (int)(k % np);
            memcpy(send + sdsp[to] + fill[to],
                   cursor_rows(cur) + (size_t)(a - f) * rs,
                   (size_t)(y - a) * rs);
            fill[to] += (int)((y - a) * (int64_t)rs);
        }
        x = y > a ? y : a;
        if (y >= e) {
            cur->off += cur->seg[2 * cur->i + 1];
            cur->i++;
            cur->p = NULL;
        }
    }
}

/* Every rank's segments on every rank: (first, count, rank) triples
 * sorted by first row, empty ones left out.  Collective. */
static tlm_status allgather_segments(const int64_t *seg, size_t n_seg,
                                     int np, MPI_Comm comm, int64_t **all,
                                     size_t *n_all)
{
    int mine = (int)(2 * n_seg);
    int *cnt = calloc((size_t)np, sizeof *cnt);
    int *dsp = calloc((size_t)np, sizeof *dsp);
    tlm_status st = agree(cnt && dsp ? TLM_OK : TLM_ENOMEM, comm);
    int64_t *flat = NULL;
    *all = NULL;
    *n_all = 0;
    if (st == TLM_OK)
        MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, comm);
    size_t tot = 0;
    for (int r = 0; st == TLM_OK && r < np; r++) {
        dsp[r] = (int)tot;
        tot += (size_t)cnt[r];
    }
    if (st == TLM_OK) {
        flat = malloc((tot ? tot : 1) * sizeof *flat);
        *all = malloc((tot / 2 * 3 + 1) * sizeof **all);
        st = agree(flat && *all ? TLM_OK : TLM_ENOMEM, comm);
    }
    if (st == TLM_OK)
        MPI_Allgatherv(seg, mine, MPI_INT64_T, flat, cnt, dsp, MPI_INT64_T,
                       comm);
    if (st == TLM_OK)
        seg_triples(flat, cnt, dsp, np, *all, n_all);
    if (st == TLM_OK)
        qsort(*all, *n_all, 3 * sizeof **all, cmp_seg);
    free(cnt);
    free(dsp);
    free(flat);
    return st;
}

/* The buffers of par_write: rows sent and received per round, the
 * compressed chunks, the counts. */
typedef struct par_bufs {
    char *send, *recv, *zout, *zall;
    int *scnt, *sdsp, *rcnt, *rdsp, *zcnt, *zdsp;
    uLong zcap;              /* compressBound of one chunk */
} par_bufs;

static void par_free(par_bufs *b)
{
    free(b->send);
    free(b->recv);
    free(b->zout);
    free(b->zall);
    free(b->scnt);
    free(b->sdsp);
    free(b->rcnt);
    free(b->rdsp);
    free(b->zcnt);
    free(b->zdsp);
}

/* One round: rows [r0, r1) (whole chunks of crow rows, chunk k to process
 * k % np) moved to the processes that compress them (Alltoallv), each
 * chunk compressed (zero-padded, as HDF5's deflate filter sees it), the
 * chunks gathered on rank 0 and written there in order (H5Dwrite_chunk).
 * *st: rank 0's HDF5 status (the rounds go on after a failure). */
static void par_round(hid_t ds, const tlm_rowtab *t, int64_t crow,
                      int64_t r0, int64_t r1, const int64_t *all,
                      size_t n_all, size_t *ai, row_cursor *cur, int me,
                      int np, par_bufs *b, MPI_Comm comm, tlm_status *st,
                      tlm_error *err)
{
    size_t rs = t->row_size, cb = (size_t)crow * rs;
    int64_t k0 = r0 / crow, nk = (r1 - r0 + crow - 1) / crow;
    memset(b->scnt, 0, (size_t)np * sizeof *b->scnt);
    memset(b->rcnt, 0, (size_t)np * sizeof *b->rcnt);
    for (size_t i = *ai; i < n_all && all[3 * i] < r1; i++) {
        int64_t e = all[3 * i] + all[3 * i + 1];
        e = e < r1 ? e : r1;
        for (int64_t x = all[3 * i] > r0 ? all[3 * i] : r0; x < e;) {
            int64_t k = x / crow, y = (k + 1) * crow < e ? (k + 1) * crow : e;
            int to = (int)(k % np), from = (int)all[3 * i + 2];
            if (from == me)
                b->scnt[to] += (int)((y - x) * (int64_t)rs);
            if (to == me)
                b->rcnt[from] += (int)((y - x) * (int64_t)rs);
            x = y;
        }
    }
    for (int p = 0, so = 0, ro = 0; p < np; p++) {
        b->sdsp[p] = so;
        b->rdsp[p] = ro;
        so += b->scnt[p];
        ro += b->rcnt[p];
    }
    pack_sends(cur, r0, r1, crow, np, b->send, b->sdsp, b->zcnt);
    MPI_Alltoallv(b->send, b->scnt, b->sdsp, MPI_BYTE, b->recv, b->rcnt,
                  b->rdsp, MPI_BYTE, comm);
    int *took = b->zdsp; /* bytes taken from each source so far */
    memset(took, 0, (size_t)np * sizeof *took);
    int zlen = 0;
    char *raw = b->send; /* sent: one chunk at a time now */
    for (int64_t k = k0; k < k0 + nk; k++) {
        if ((int)(k % np) != me)
            continue;
        int64_t c0 = k * crow, c1 = c0 + crow < r1 ? c0 + crow : r1;
        memset(raw, 0, cb);
        for (size_t i = *ai; i < n_all && all[3 * i] < c1; i++) {
            int64_t a = all[3 * i] > c0 ? all[3 * i] : c0;
            int64_t e = all[3 * i] + all[3 * i + 1];
            e = e < c1 ? e : c1;
            if (a >= e)
                continue;
            int from = (int)all[3 * i + 2];
            memcpy(raw + (size_t)(a - c0) * rs,
                   b->recv + b->rdsp[from] + took[from],
                   (size_t)(e - a) * rs);
            took[from] += (int)((e - a) * (int64_t)rs);
        }
        uLongf zn = b->zcap;
        if (compress2((Bytef *)b->zout + zlen + 8, &zn, (const Bytef *)raw,
                      (uLong)cb, DEFLATE_LEVEL) != Z_OK)
            zn = 0; /* rank 0 fails the table */
        int64_t hdr = (int64_t)zn;
        memcpy(b->zout + zlen, &hdr, 8);
        zlen += 8 + (int)zn;
    }
    MPI_Gather(&zlen, 1, MPI_INT, b->zcnt, 1, MPI_INT, 0, comm);
    for (int p = 0, o = 0; me == 0 && p < np; p++) {
        b->zdsp[p] = o;
        o += b->zcnt[p];
    }
    MPI_Gatherv(b->zout, zlen, MPI_BYTE, b->zall, b->zcnt, b->zdsp,
                MPI_BYTE, 0, comm);
    for (int64_t k = k0; me == 0 && k < k0 + nk; k++) {
        int p = (int)(k % np);
        int64_t zn;
        memcpy(&zn, b->zall + b->zdsp[p], 8);
        const char *z = b->zall + b->zdsp[p] + 8;
        b->zdsp[p] += 8 + (int)zn;
        hsize_t off = (hsize_t)(k * crow);
        if (*st == TLM_OK &&
            (zn <= 0 ||
             H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &off, (size_t)zn, z) < 0))
            *st = h5_fail(err, "H5Dwrite_chunk", t->name);
    }
    while (*ai < n_all && all[3 * *ai] + all[3 * *ai + 1] <= r1)
        (*ai)++;
}

/* The table written by every process (np > 1): rank 0 creates the
 * dataset; then rounds of min(np, 8) x PAR_CHUNKS chunks, each chunk
 * compressed by process k % np (par_round).  Collective; the status
 * agreed. */
static tlm_status par_write(hid_t loc, const tlm_rowtab *t, row_cursor *cur,
                            int64_t total, int me, int np, MPI_Comm comm,
                            tlm_error *err)
{
    hid_t ds = -1, mt = -1;
    tlm_status st = TLM_OK;
    if (me == 0)
        st = loc < 0 ? TLM_EHDF5 : create_ds(loc, t, total, &ds, &mt, err);
    int64_t *all = NULL;
    size_t n_all = 0, ai = 0;
    par_bufs b;
    memset(&b, 0, sizeof b);
    int64_t crow = (int64_t)chunk_rows(t, total);
    size_t cb = (size_t)crow * t->row_size;
    int wc = (np < 8 ? np : 8) * PAR_CHUNKS; /* chunks per round */
    b.zcap = compressBound((uLong)cb);
    tlm_status ast = allgather_segments(cur->seg, cur->n_seg, np, comm, &all,
                                        &n_all);
    if (ast == TLM_OK) {
        b.send = malloc((size_t)wc * cb);
        b.recv = malloc((size_t)PAR_CHUNKS * cb);
        b.zout = malloc((size_t)PAR_CHUNKS * (b.zcap + 8));
        b.zall = me == 0 ? malloc((size_t)wc * (b.zcap + 8)) : NULL;
        b.scnt = calloc((size_t)np, sizeof(int));
        b.sdsp = calloc((size_t)np, sizeof(int));
        b.rcnt = calloc((size_t)np, sizeof(int));
        b.rdsp = calloc((size_t)np, sizeof(int));
        b.zcnt = calloc((size_t)np, sizeof(int));
        b.zdsp = calloc((size_t)np, sizeof(int));
        int ok = b.send && b.recv && b.zout && (me != 0 || b.zall) &&
                 b.scnt && b.sdsp && b.rcnt && b.rdsp && b.zcnt && b.zdsp;
        ast = agree(ok ? TLM_OK : TLM_ENOMEM, comm);
    }
    if (ast != TLM_OK && st == TLM_OK)
        st = tlm_error_set(err, ast, NULL, -1, "out of memory writing '%s'",
                           t->name);
    if (agree_table(&st, comm, TLM_EHDF5, t, "another rank failed", err))
        goto done;
    for (int64_t r0 = 0; r0 < total; r0 += (int64_t)wc * crow) {
        int64_t r1 = r0 + (int64_t)wc * crow < total ? r0 + wc * crow
                                                      : total;
        par_round(ds, t, crow, r0, r1, all, n_all, &ai, cur, me, np, &b,
                  comm, &st, err);
    }
    (void)agree_table(&st, comm, TLM_EHDF5, t, "writing failed on rank 0",
                      err);
done:
    if (ds >= 0)
        H5Dclose(ds);
    if (mt >= 0)
        H5Tclose(mt);
    par_free(&b);
    free(all);
    return st;
}

tlm_status tlm_mpi_h5_write_segments(hid_t loc, const tlm_rowtab *t,
                                     const void *rows, const int64_t *seg,
                                     size_t n_seg, int64_t total,
                                     MPI_Comm comm, tlm_error *err)
{
    return tlm_mpi_h5_write_segments_src(loc, t, rows, NULL, NULL, seg,
                                         n_seg, total, comm, err);
}

tlm_status tlm_mpi_h5_write_segments_src(hid_t loc, const tlm_rowtab *t,
                                         const void *rows, tlm_mpi_seg_fn src,
                                         void *arg, const int64_t *seg,
                                         size_t n_seg,
                                         int64_t total, MPI_Comm comm,
                                         tlm_error *err)
{
    int me = 0, np = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    int64_t n_local = 0;
    tlm_status st = check_segments(t, seg, n_seg, total, &n_local, comm, err);
    if (st != TLM_OK)
        return st;
    if (np > 1 && total > 0) { /* every process compresses chunks */
        row_cursor cur = {seg, n_seg, 0, 0, NULL, rows, src, arg,
                          t->row_size};
        return par_write(loc, t, &cur, total, me, np, comm, err);
    }
    int64_t *all = NULL;
    size_t n_all = 0;
    char *buf = me == 0 ? malloc((size_t)msg_rows(t) * t->row_size) : NULL;
    st = gather_segments(seg, n_seg, me, np, comm, &all, &n_all);
    if (me == 0 && !buf)
        st = TLM_ENOMEM;
    if (st != TLM_OK)
        tlm_error_set(err, st, NULL, -1, "out of memory writing '%s'",
                      t->name);
    if (agree_table(&st, comm, TLM_ENOMEM, t, "out of memory", err))
        goto done;
    if (me == 0)
        st = write_all_segments(loc, t, rows, src, arg, total, all, n_all,
                                buf, comm, err);
    else
        send_rows(t, rows, src, arg, seg, n_seg, comm);
    (void)agree_table(&st, comm, TLM_EHDF5, t, "writing failed on rank 0",
                      err);
done:
    free(buf);
    free(all);
    return st;
}

static int cmp_seg(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static tlm_status gather_segments(const int64_t *seg, size_t n_seg, int me,
                                  int np, MPI_Comm comm, int64_t **all,
                                  size_t *n_all)
{
    int mine = (int)(2 * n_seg), *cnt = NULL, *dsp = NULL;
    int64_t *flat = NULL;
    tlm_status st = TLM_OK;
    *all = NULL;
    *n_all = 0;
    if (me == 0) {
        cnt = calloc((size_t)np, sizeof *cnt);
        dsp = calloc((size_t)np, sizeof *dsp);
        if (!cnt || !dsp)
            st = TLM_ENOMEM;
    }
    st = agree(st, comm);
    if (st == TLM_OK)
        MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
    size_t tot = 0;
    for (int r = 0; st == TLM_OK && me == 0 && r < np; r++) {
        dsp[r] = (int)tot;
        tot += (size_t)cnt[r];
    }
    if (st == TLM_OK && me == 0) {
        flat = malloc((tot ? tot : 1) * sizeof *flat);
        *all = malloc((tot / 2 * 3 + 1) * sizeof **all);
        if (!flat || !*all)
            st = TLM_ENOMEM;
    }
    st = agree(st, comm);
    if (st == TLM_OK)
        MPI_Gatherv(seg, mine, MPI_INT64_T, flat, cnt, dsp, MPI_INT64_T, 0,
                    comm);
    if (st == TLM_OK && me == 0)
        seg_triples(flat, cnt, dsp, np, *all, n_all);
    if (st == TLM_OK && me == 0)
        qsort(*all, *n_all, 3 * sizeof **all, cmp_seg);
    free(cnt);
    free(dsp);
    free(flat);
    return st;
}

tlm_status tlm_mpi_h5_write_table(hid_t loc, const tlm_rowtab *t,
                                  const void *rows, size_t n_local,
                                  MPI_Comm comm, tlm_error *err)
{
    int64_t n = (int64_t)n_local, off = 0, total = 0;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (MPI_Exscan(&n, &off, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, comm) !=
            MPI_SUCCESS)
        return tlm_error_set(err, TLM_EMPI, NULL, -1,
                             "MPI_Exscan/Allreduce failed for '%s'", t->name);
    if (rank == 0)
        off = 0; /* MPI_Exscan leaves rank 0's result undefined */
    int64_t seg[2] = {off, n};
    return tlm_mpi_h5_write_segments(loc, t, rows, seg, n > 0 ? 1 : 0, total,
                                     comm, err);
}

tlm_status tlm_mpi_h5_write_local(hid_t loc, const tlm_rowtab *t,
                                  const void *rows, size_t n,
                                  tlm_error *err)
{
    hid_t ds = -1, mt = -1;
    tlm_status st = create_ds(loc, t, (int64_t)n, &ds, &mt, err);
    if (st == TLM_OK)
        st = write_rows(ds, mt, t, 0, (int64_t)n, rows, err);
    if (ds >= 0)
        H5Dclose(ds);
    if (mt >= 0)
        H5Tclose(mt);
    return st;
}
