/*
 * compare_runs_read.c - reads what `tlmpi compare A.h5 B.h5` compares from
 * an analysis file (tlmpi.h5, schema v1) with the plain HDF5 API, one
 * process.  Refuses, naming the file and the attribute or dataset: a file
 * that is not HDF5, another schema version, another kind (audit.h5,
 * comparison.h5: their `kind` attribute), a missing dataset or column.
 */
#include "h5write.h"
#include "compare_runs_mpi.h"

#include <stdlib.h>
#include <string.h>

static const unsigned char h5_magic[8] = {0x89, 'H', 'D', 'F',
                                          '\r', '\n', 0x1a, '\n'};

static tlm_status not_h5(const char *path, tlm_error *err)
{
    FILE *f;
    tlm_status st = tlm_fopen_input(path, &f, err); /* no FIFO, no device */
    if (st != TLM_OK)
        return st;
    unsigned char b[8] = {0};
    size_t n = fread(b, 1, sizeof b, f);
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

/* Every column of t in the file type ft. */
static tlm_status check_cols(hid_t ft, const tlm_rowtab *t,
                             const char *path, tlm_error *err)
{
    if (H5Tget_class(ft) != H5T_COMPOUND)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "dataset '/%s' is not a table", t->name);
    for (size_t i = 0; i < t->n_cols; i++)
        if (H5Tget_member_index(ft, t->cols[i].name) < 0)
            return tlm_error_set(err, TLM_EFORMAT, path, -1,
                                 "dataset '/%s' has no column '%s'",
                                 t->name, t->cols[i].name);
    return TLM_OK;
}

/* Dataset t->name of f into a new array of rows. */
static tlm_status read_table(hid_t f, const tlm_rowtab *t,
                             const char *path, void **rows, size_t *n,
                             tlm_error *err)
{
    *rows = NULL;
    *n = 0;
    if (H5Lexists(f, t->name, H5P_DEFAULT) <= 0)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "no dataset '/%s'", t->name);
    hid_t ds = H5Dopen2(f, t->name, H5P_DEFAULT);
    if (ds < 0)
        return tlm_error_set(err, TLM_EFORMAT, path, -1,
                             "cannot open dataset '/%s'", t->name);
    hid_t ft = H5Dget_type(ds), sp = H5Dget_space(ds), mt = -1;
    tlm_status st = ft < 0 || sp < 0
                        ? tlm_error_set(err, TLM_EHDF5, path, -1,
                                        "cannot read dataset '/%s'", t->name)
                        : check_cols(ft, t, path, err);
    hssize_t np = st == TLM_OK ? H5Sget_simple_extent_npoints(sp) : 0;
    if (st == TLM_OK && np > 0) {
        *rows = calloc((size_t)np, t->row_size);
        mt = tlm_mpi_h5_type(t);
        if (!*rows)
            st = tlm_error_set(err, TLM_ENOMEM, path, -1,
                               "out of memory reading '/%s'", t->name);
        else if (mt < 0 || H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                   *rows) < 0)
            st = tlm_error_set(err, TLM_EHDF5, path, -1,
                               "cannot read dataset '/%s'", t->name);
    }
    if (st == TLM_OK)
        *n = (size_t)(np > 0 ? np : 0);
    else {
        free(*rows);
        *rows = NULL;
    }
    if (mt >= 0)
        H5Tclose(mt);
    if (sp >= 0)
        H5Sclose(sp);
    if (ft >= 0)
        H5Tclose(ft);
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
    tlm_status st = not_h5(path, err);
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
        st = read_table(f, tabs[i].t, path, tabs[i].rows, tabs[i].n, err);
    H5Fclose(f);
    if (st != TLM_OK)
        tlm_cr_run_free(r);
    return st;
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
