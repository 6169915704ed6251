/*
 * compare_runs_check.c - a run file's dataset checked against the schema
 * and the file's size before `tlmpi compare` reads it (issue 33): its
 * datatype (a compound whose members lie inside it, each column of the
 * schema of its class), its dataspace (simple, one dimension), its
 * storage (chunked, contiguous or compact; no external or virtual
 * storage; chunks of a sane size; deflate, shuffle and fletcher32 the
 * only filters) and its rows (no more than its stored bytes can hold:
 * the allocated chunks times their rows, the storage times deflate's
 * largest ratio, the file's size).  The HDF5 library trusts these
 * fields: a member offset past the type's end makes its conversion copy
 * out of bounds, an extent of 2^62 rows reads fill values.
 */
#include "compare_runs_check.h"
#include "tables.h"

#include <string.h>

enum {
    TYPE_MAX = 65536,       /* bytes of one row in the file */
    MEMBERS_MAX = 1024,     /* members of the row's compound type */
    DEFLATE_RATIO = 1032,   /* zlib's largest compression ratio */
};
#define CHUNK_BYTES_MAX ((hsize_t)64 << 20)
#define ROWS_MAX ((hsize_t)1 << 32)

/* The HDF5 class the schema's column type is stored as. */
static H5T_class_t col_class(tlm_ctype t)
{
    switch (t) {
    case TLM_CT_F64:
        return H5T_FLOAT;
    case TLM_CT_STR:
        return H5T_STRING;
    default:
        return H5T_INTEGER;
    }
}

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER:
        return "an integer";
    case H5T_FLOAT:
        return "a float";
    case H5T_STRING:
        return "a string";
    case H5T_COMPOUND:
        return "a compound";
    default:
        return "another class";
    }
}

/* One member of the file's row type: inside the row; a column of the
 * schema of the right class and a plain size. */
static tlm_status check_member(hid_t ft, unsigned i, size_t size,
                               const tlm_rowtab *t, const char *path,
                               tlm_error *err)
{
    char *name = H5Tget_member_name(ft, i);
    hid_t mt = H5Tget_member_type(ft, i);
    size_t off = H5Tget_member_offset(ft, i);
    size_t ms = mt >= 0 ? H5Tget_size(mt) : 0;
    H5T_class_t mc = mt >= 0 ? H5Tget_member_class(ft, i) : H5T_NO_CLASS;
    tlm_status st = TLM_OK;
    const char *nm = name ? name : "?";
    if (!name || mt < 0 || ms == 0)
        st = tlm_error_set(err, TLM_EFORMAT, path, -1,
                           "dataset '/%s': member %u of its row type "
                           "cannot be read", t->name, i);
    else if (off > size || ms > size - off)
        st = tlm_error_set(err, TLM_EFORMAT, path, -1,
                           "dataset '/%s': column '%.64s' lies outside its "
                           "row (offset %zu, %zu bytes, a row of %zu)",
                           t->name, nm, off, ms, size);
    for (size_t c = 0; st == TLM_OK && c < t->n_cols; c++) {
        if (strcmp(t->cols[c].name, nm))
            continue;
        H5T_class_t want = col_class(t->cols[c].type);
        int vlen = mc == H5T_STRING && H5Tis_variable_str(mt) > 0;
        if (mc != want || vlen ||
            (mc != H5T_STRING && ms != 4 && ms != 8))
            st = tlm_error_set(err, TLM_EFORMAT, path, -1,
                               "dataset '/%s': column '%s' is %s%s of %zu "
                               "bytes, the schema says %s", t->name, nm,
                               vlen ? "a variable-length " : "",
                               vlen ? "string" : class_name(mc), ms,
                               class_name(want));
    }
    if (mt >= 0)
        H5Tclose(mt);
    if (name)
        H5free_memory(name);
    return st;
}

/* Columns that files of an older tlmpi lack: read as -1 (unknown), so
 * that comparison.md says the split of exposed communication is unknown
 * (docs/compare-runs.md). */
int tlm_cr_optional_col(const tlm_rowtab *t, const char *col)
{
    static const char *const opt[] = {"exposed_transfer_ns",
                                      "exposed_waiting_ns",
                                      "exposed_unknown_ns"};
    if (t != &tlm_tab_timeline)
        return 0;
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (!strcmp(col, opt[i]))
            return 1;
    return 0;
}

/* The file's row type of dataset t. */
static tlm_status check_type(hid_t ft, const tlm_rowtab *t, const char *path,
                             size_t *row_bytes, tlm_error *err)
{
    if (H5Tget_class(ft) != H5T_COMPOUND)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s' is not a table", t->name);
    size_t size = H5Tget_size(ft);
    int nm = H5Tget_nmembers(ft);
    if (size == 0 || size > TYPE_MAX)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s': rows of %zu bytes (at most %d)",
                             t->name, size, TYPE_MAX);
    if (nm < 0 || nm > MEMBERS_MAX)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s': %d columns (at most %d)",
                             t->name, nm, MEMBERS_MAX);
    for (unsigned i = 0; i < (unsigned)nm; i++) {
        tlm_status st = check_member(ft, i, size, t, path, err);
        if (st != TLM_OK)
            return st;
    }
    for (size_t i = 0; i < t->n_cols; i++)
        if (H5Tget_member_index(ft, t->cols[i].name) < 0 &&
            !tlm_cr_optional_col(t, t->cols[i].name))
            return tlm_error_set(err, TLM_EFORMAT, path, -1,
                                 "dataset '/%s' has no column '%s'",
                                 t->name, t->cols[i].name);
    *row_bytes = size;
    return TLM_OK;
}

/* One dimension of *rows rows (a null dataspace: none). */
static tlm_status check_space(hid_t sp, const tlm_rowtab *t, const char *path,
                              hsize_t *rows, tlm_error *err)
{
    H5S_class_t c = H5Sget_simple_extent_type(sp);
    *rows = 0;
    if (c == H5S_NULL)
        return TLM_OK;
    int nd = c == H5S_SIMPLE ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t dim = 0, max = 0;
    if (nd != 1 || H5Sget_simple_extent_dims(sp, &dim, &max) != 1)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s' is not a list of rows (%d "
                             "dimensions)", t->name, nd);
    if (dim > ROWS_MAX)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s' says %llu rows (at most %llu)",
                             t->name, (unsigned long long)dim,
                             (unsigned long long)ROWS_MAX);
    *rows = dim;
    return TLM_OK;
}

/* Deflate, shuffle and fletcher32 only; *ratio the most one stored byte
 * can give. */
static tlm_status check_filters(hid_t dcpl, const tlm_rowtab *t,
                                const char *path, hsize_t *ratio,
                                tlm_error *err)
{
    int nf = H5Pget_nfilters(dcpl);
    *ratio = 1;
    if (nf < 0 || nf > 4)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s': %d filters", t->name, nf);
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0, cd[8];
        size_t ncd = 8;
        char nm[64] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd,
                                         cd, sizeof nm, nm, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            *ratio = DEFLATE_RATIO;
        else if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
            return tlm_error_set(err, TLM_EFORMAT, path, -1,
                                 "dataset '/%s': filter %d is not one "
                                 "tlmpi writes (deflate, shuffle, "
                                 "fletcher32)", t->name, (int)id);
    }
    return TLM_OK;
}

/* A chunked dataset: chunks of a sane size, no more rows than its
 * allocated chunks hold. */
static tlm_status check_chunks(hid_t ds, hid_t dcpl, const tlm_rowtab *t,
                               const char *path, hsize_t rows,
                               size_t row_bytes, tlm_error *err)
{
    hsize_t cdim = 0;
    if (H5Pget_chunk(dcpl, 1, &cdim) != 1 || cdim == 0 ||
        cdim > CHUNK_BYTES_MAX / row_bytes)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s': chunks of %llu rows of %zu "
                             "bytes (at most %llu bytes)", t->name,
                             (unsigned long long)cdim, row_bytes,
                             (unsigned long long)CHUNK_BYTES_MAX);
    hid_t sp = H5Dget_space(ds);
    hsize_t nchunks = 0;
    herr_t rc = sp < 0 ? -1 : H5Dget_num_chunks(ds, sp, &nchunks);
    if (sp >= 0)
        H5Sclose(sp);
    if (rc < 0)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s': its chunk index cannot be read",
                             t->name);
    if (rows > nchunks * cdim)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s' says %llu rows, its %llu "
                             "stored chunks hold at most %llu", t->name,
                             (unsigned long long)rows,
                             (unsigned long long)nchunks,
                             (unsigned long long)(nchunks * cdim));
    return TLM_OK;
}

/* The storage of ds: its kind, chunks and filters; rows within what the
 * stored bytes (and the file) can hold. */
static tlm_status check_storage(hid_t ds, const tlm_rowtab *t,
                                const char *path, hsize_t rows,
                                size_t row_bytes, hsize_t file_size,
                                tlm_error *err)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    if (dcpl < 0)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s': its storage cannot be read",
                             t->name);
    H5D_layout_t lay = H5Pget_layout(dcpl);
    hsize_t ratio = 1;
    tlm_status st = TLM_OK;
    if (H5Pget_external_count(dcpl) != 0 ||
        (lay != H5D_CHUNKED && lay != H5D_CONTIGUOUS && lay != H5D_COMPACT))
        st = tlm_error_set(err, TLM_EFORMAT, path, -1,
                           "dataset '/%s': stored outside the file or in a "
                           "layout tlmpi does not write", t->name);
    if (st == TLM_OK)
        st = check_filters(dcpl, t, path, &ratio, err);
    if (st == TLM_OK && lay == H5D_CHUNKED && rows > 0)
        st = check_chunks(ds, dcpl, t, path, rows, row_bytes, err);
    H5Pclose(dcpl);
    if (st != TLM_OK || rows == 0)
        return st;
    hsize_t stored = H5Dget_storage_size(ds);
    if (stored > file_size)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s' says it stores %llu bytes, the "
                             "file has %llu", t->name,
                             (unsigned long long)stored,
                             (unsigned long long)file_size);
    if (rows > stored * ratio / row_bytes)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s' says %llu rows of %zu bytes, "
                             "its %llu stored bytes hold at most %llu",
                             t->name, (unsigned long long)rows, row_bytes,
                             (unsigned long long)stored,
                             (unsigned long long)(stored * ratio /
                                                  row_bytes));
    return TLM_OK;
}

tlm_status tlm_cr_check_dataset(hid_t ds, const tlm_rowtab *t,
                                const char *path, hsize_t file_size,
                                hsize_t *rows, tlm_error *err)
{
    *rows = 0;
    hid_t ft = H5Dget_type(ds), sp = H5Dget_space(ds);
    size_t row_bytes = 0;
    hsize_t n = 0;
    tlm_status st = ft < 0 || sp < 0
                        ? tlm_error_set(err, TLM_EFORMAT, path, -1,
                                        "dataset '/%s': its type or shape "
                                        "cannot be read", t->name)
                        : check_type(ft, t, path, &row_bytes, err);
    if (st == TLM_OK)
        st = check_space(sp, t, path, &n, err);
    if (st == TLM_OK)
        st = check_storage(ds, t, path, n, row_bytes, file_size, err);
    if (sp >= 0)
        H5Sclose(sp);
    if (ft >= 0)
        H5Tclose(ft);
    if (st == TLM_OK)
        *rows = n;
    return st;
}
