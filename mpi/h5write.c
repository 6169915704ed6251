/*
 * h5write.c - the driver's generic parallel HDF5 table writer.
 *
 * Why a generic writer: every dataset of the output file (traces, ops,
 * kernels, collective instances ...) is a flat array of C structs described
 * by an X-macro column list (tables.h).  One function turns any such list
 * into a compound type and writes it collectively, so adding a column is a
 * one-line change that the file, the documentation and the Python loader
 * all pick up.
 *
 * Parallel HDF5 1.10 rules honoured here (see toolchain notes, section 3):
 * filters (deflate) need collective transfers; every rank calls H5Dcreate,
 * H5Acreate/H5Awrite and H5Dwrite, a rank with no rows selecting none; row
 * offsets come from MPI_Exscan (or explicit segments, for tables whose row
 * order must not depend on the number of MPI ranks).  Local failures are
 * agreed on with MPI_Allreduce before each collective transfer so that a
 * failing rank never leaves the others waiting inside HDF5.
 */
#include "h5write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ *
 * MARK: - helpers
 * ------------------------------------------------------------------ */

/* Length of s[0..n) without a trailing, incomplete UTF-8 sequence (what a
 * byte-wise truncation may leave). */
size_t tlm_mpi_utf8_cut(const char *s, size_t n)
{
    size_t k = n, back = 0;
    while (k > 0 && back < 4 && ((unsigned char)s[k - 1] & 0xC0) == 0x80) {
        k--;
        back++;
    }
    if (k == 0)
        return n;
    unsigned char lead = (unsigned char)s[k - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (need == 1)
        return n;
    return back + 1 >= need ? n : k - 1;
}

void tlm_mpi_strset(char *dst, size_t cap, const char *s)
{
    if (!dst || cap == 0)
        return;
    if (!s)
        s = "";
    size_t n = strlen(s);
    if (n >= cap)
        n = tlm_mpi_utf8_cut(s, cap - 1);
    memcpy(dst, s, n);
    memset(dst + n, 0, cap - n);
}

void tlm_mpi_strnset(char *dst, size_t cap, const char *src, size_t srccap)
{
    if (!dst || cap == 0)
        return;
    size_t n = src ? strnlen(src, srccap) : 0;
    if (n >= cap)
        n = tlm_mpi_utf8_cut(src, cap - 1);
    if (n)
        memcpy(dst, src, n);
    memset(dst + n, 0, cap - n);
}

/* Collects the innermost HDF5 error message of the default stack. */
static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *ud)
{
    char *buf = ud;
    (void)n;
    if (e && e->desc) /* walking downward: the last one is the cause */
        snprintf(buf, 200, "%s(): %s", e->func_name ? e->func_name : "?",
                 e->desc);
    return 0;
}

static tlm_status h5_fail(tlm_error *err, const char *what, const char *obj)
{
    char detail[200] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, detail);
    H5Eclear2(H5E_DEFAULT);
    return tlm_error_set(err, TLM_EHDF5, NULL, -1,
                         "HDF5: %s failed for '%s'%s%s", what,
                         obj ? obj : "", detail[0] ? ": " : "", detail);
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
                       const tlm_mpi_table *t, const char *what,
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

hid_t tlm_mpi_h5_type(const tlm_mpi_table *t)
{
    hid_t ct = H5Tcreate(H5T_COMPOUND, t->row_size);
    if (ct < 0)
        return ct;
    for (size_t i = 0; i < t->n_cols; i++) {
        const tlm_mpi_col *c = &t->cols[i];
        hid_t ft = -1;
        int own = 0;
        switch (c->type) {
        case TLM_MPI_I32:
            ft = H5T_NATIVE_INT32;
            break;
        case TLM_MPI_I64:
            ft = H5T_NATIVE_INT64;
            break;
        case TLM_MPI_U64:
            ft = H5T_NATIVE_UINT64;
            break;
        case TLM_MPI_F64:
            ft = H5T_NATIVE_DOUBLE;
            break;
        case TLM_MPI_STR:
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

tlm_status tlm_mpi_h5_create(const char *path, MPI_Comm comm, hid_t *file,
                             tlm_error *err)
{
    /* HDF5 prints its error stack by default; messages go through err. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    *file = -1;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) {
        if (fapl >= 0)
            H5Pclose(fapl);
        return h5_fail(err, "H5Pset_fapl_mpio", path);
    }
    /* All metadata writes collective: fewer small writes, no races. */
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return h5_fail(err, "H5Fcreate", path);
    *file = f;
    return TLM_OK;
}

tlm_status tlm_mpi_h5_close(hid_t file, const char *path, int failed,
                            MPI_Comm comm, tlm_error *err)
{
    if (file < 0)
        return TLM_OK;
    int me = 0, np = 1, bad = failed != 0, any = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    tlm_status st = TLM_OK;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (!any && np == 1 && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
        /* a flush failing in one process is safe to retry; with several,
         * ranks can disagree inside HDF5, so they do not flush first */
        st = h5_fail(err, "H5Fflush", path);
        any = 1;
    }
    if (any) {
        /* the file is discarded: free its space so that the close can
         * write the metadata it still holds */
        int trc = me == 0 ? truncate(path, 0) : 0;
        (void)trc; /* if that fails too, the close below may fail */
        MPI_Barrier(comm);
        (void)H5Fflush(file, H5F_SCOPE_GLOBAL);
        if (st == TLM_OK)
            st = TLM_EHDF5; /* failed elsewhere; that error is reported */
    }
    if (H5Fclose(file) < 0 && st == TLM_OK)
        st = h5_fail(err, "H5Fclose", path);
    return st;
}

tlm_status tlm_mpi_h5_attr_str(hid_t obj, const char *name,
                               const char *value, tlm_error *err)
{
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

static tlm_status table_attrs(hid_t ds, const tlm_mpi_table *t,
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
static hsize_t chunk_rows(const tlm_mpi_table *t, int64_t total)
{
    hsize_t c = (hsize_t)(262144 / (t->row_size ? t->row_size : 1));
    if (c < 1)
        c = 1;
    if (total > 0 && (hsize_t)total < c)
        c = (hsize_t)total;
    return c;
}

tlm_status tlm_mpi_h5_write_segments(hid_t loc, const tlm_mpi_table *t,
                                     const void *rows, const int64_t *seg,
                                     size_t n_seg, int64_t total,
                                     MPI_Comm comm, tlm_error *err)
{
    tlm_status st = TLM_OK;
    hid_t mt = -1, ft = -1, fsp = -1, msp = -1, dcpl = -1, lcpl = -1;
    hid_t ds = -1, dxpl = -1;
    int64_t n_local = 0;
    for (size_t i = 0; i < n_seg; i++) {
        if (seg[2 * i] < 0 || seg[2 * i + 1] < 0 ||
            seg[2 * i] + seg[2 * i + 1] > total ||
            (i > 0 && seg[2 * i] < seg[2 * i - 2] + seg[2 * i - 1])) {
            st = tlm_error_set(err, TLM_EINVAL, NULL, -1,
                               "table '%s': bad row segment %zu", t->name,
                               i);
            break;
        }
        n_local += seg[2 * i + 1];
    }
    int64_t sum = 0;
    if (MPI_Allreduce(&n_local, &sum, 1, MPI_INT64_T, MPI_SUM, comm) !=
        MPI_SUCCESS)
        return tlm_error_set(err, TLM_EMPI, NULL, -1, "MPI_Allreduce failed");
    if (st == TLM_OK && sum != total)
        st = tlm_error_set(err, TLM_EINVAL, NULL, -1,
                           "table '%s': ranks hold %lld rows, expected %lld",
                           t->name, (long long)sum, (long long)total);
    if (agree_table(&st, comm, TLM_EINVAL, t, "another rank failed", err))
        return st;

    /* The file type is the memory type, padding included: any datatype
     * conversion breaks collective I/O, and filters need collective I/O. */
    mt = tlm_mpi_h5_type(t);
    ft = mt >= 0 ? H5Tcopy(mt) : -1;
    if (ft < 0) {
        st = h5_fail(err, "compound type", t->name);
        goto agree_create;
    }
    hsize_t dim = (hsize_t)total, maxdim = H5S_UNLIMITED;
    hsize_t chunk = chunk_rows(t, total);
    fsp = H5Screate_simple(1, &dim, &maxdim);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (fsp < 0 || dcpl < 0 || lcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
        H5Pset_deflate(dcpl, 4) < 0 ||
        H5Pset_create_intermediate_group(lcpl, 1) < 0) {
        st = h5_fail(err, "dataset properties", t->name);
        goto agree_create;
    }
    ds = H5Dcreate2(loc, t->name, ft, fsp, lcpl, dcpl, H5P_DEFAULT);
    if (ds < 0) {
        st = h5_fail(err, "H5Dcreate2", t->name);
        goto agree_create;
    }
agree_create:
    if (agree_table(&st, comm, TLM_EHDF5, t, "another rank failed", err))
        goto done;
    st = table_attrs(ds, t, err);
    if (agree_table(&st, comm, TLM_EHDF5, t, "another rank failed", err))
        goto done;
    if (total == 0)
        goto done;

    /* Selections: the union of this rank's segments, or none. */
    if (n_local > 0) {
        int first = 1;
        for (size_t i = 0; i < n_seg && st == TLM_OK; i++) {
            hsize_t start = (hsize_t)seg[2 * i];
            hsize_t count = (hsize_t)seg[2 * i + 1];
            if (count == 0)
                continue;
            if (H5Sselect_hyperslab(fsp, first ? H5S_SELECT_SET : H5S_SELECT_OR,
                                    &start, NULL, &count, NULL) < 0)
                st = h5_fail(err, "H5Sselect_hyperslab", t->name);
            first = 0;
        }
        hsize_t mdim = (hsize_t)n_local;
        msp = H5Screate_simple(1, &mdim, NULL);
    } else {
        hsize_t one = 1;
        msp = H5Screate_simple(1, &one, NULL);
        if (msp >= 0 && (H5Sselect_none(msp) < 0 || H5Sselect_none(fsp) < 0))
            st = h5_fail(err, "H5Sselect_none", t->name);
    }
    dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (st == TLM_OK &&
        (msp < 0 || dxpl < 0 ||
         H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0))
        st = h5_fail(err, "transfer properties", t->name);
    if (agree_table(&st, comm, TLM_EHDF5, t, "another rank failed", err))
        goto done;
    {
        static const char dummy[64];
        const void *buf = n_local > 0 ? rows : (const void *)dummy;
        if (H5Dwrite(ds, mt, msp, fsp, dxpl, buf) < 0)
            st = h5_fail(err, "H5Dwrite", t->name);
    }
    (void)agree_table(&st, comm, TLM_EHDF5, t,
                      "write failed on another rank", err);
done: /* each object has its own close function: one line each */
    if (dxpl >= 0)
        H5Pclose(dxpl);
    if (ds >= 0)
        H5Dclose(ds);
    if (msp >= 0)
        H5Sclose(msp);
    if (fsp >= 0)
        H5Sclose(fsp);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (ft >= 0)
        H5Tclose(ft);
    if (mt >= 0)
        H5Tclose(mt);
    return st;
}

tlm_status tlm_mpi_h5_write_table(hid_t loc, const tlm_mpi_table *t,
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
