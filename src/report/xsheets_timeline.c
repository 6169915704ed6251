/*
 * xsheets_timeline.c - gpu_timeline and gpu_events_averages of the JAX
 * report (xsheets.h), as TraceLens's JaxGPUEventAnalyser computes them:
 *
 * - the GPU processes: trace-viewer pids below 100 that have events, in
 *   the order Python iterates `set(pids)` (a CPython set of small ints,
 *   simulated below: ascending unless two pids share a hash slot);
 * - per process, the events of its threads (lines) with tid < 100 (the
 *   streams; XLA's derived lines have large ids), split by name:
 *   memcpy when it starts with copy/memcpy/memset (any case),
 *   communication when it starts with "nccl", computation otherwise;
 * - the eight times of TraceLens's GPU timeline from the interval unions
 *   (computation, exposed communication = comm minus comp, exposed
 *   memcpy = memcpy minus comp minus comm, busy, idle, total = last end -
 *   first start, total comm, total memcpy), in microseconds, written as
 *   `time ms` and `percent` of total_time; averages: the mean over the
 *   processes of each time.
 * Times are summed in integer picoseconds (exact) and divided once.
 */
#include "xsheets.h"
#include "report_internal.h"

#include <stdlib.h>
#include <string.h>

#include "ivl.h"

#define XS_NMET 8
#define XS_MAXPID 100

static const char *const met_names[XS_NMET] = {
    "computation_time", "exposed_comm_time", "exposed_memcpy_time",
    "busy_time", "idle_time", "total_time", "total_comm_time",
    "total_memcpy_time"};

enum { L_ALL = 0, L_COMP, L_COMM, L_MEMCPY, L_N };

/* The eight times (ps) of one process's lists (merged in place).  -1 on
 * ENOMEM. */
static int metrics(tlm_ivl_vec *l, int64_t *m)
{
    tlm_ivl_vec t1 = {0}, t2 = {0};
    for (int i = 0; i < L_N; i++)
        l[i].n = tlm_ivl_union(l[i].v, l[i].n);
    const tlm_ivl_vec *comp = &l[L_COMP], *comm = &l[L_COMM];
    /* exposed: comm minus comp; memcpy minus comp minus comm */
    tlm_status rc = tlm_ivl_subtract(comm->v, comm->n, comp->v, comp->n, &t1);
    m[0] = tlm_ivl_length(comp->v, comp->n);
    m[1] = tlm_ivl_length(t1.v, t1.n);
    if (!rc)
        rc = tlm_ivl_subtract(l[L_MEMCPY].v, l[L_MEMCPY].n, comp->v, comp->n,
                              &t1);
    if (!rc)
        rc = tlm_ivl_subtract(t1.v, t1.n, comm->v, comm->n, &t2);
    m[2] = tlm_ivl_length(t2.v, t2.n);
    m[3] = tlm_ivl_length(l[L_ALL].v, l[L_ALL].n);
    m[5] = l[L_ALL].v[l[L_ALL].n - 1].e - l[L_ALL].v[0].s;
    m[4] = m[5] - m[3];
    m[6] = tlm_ivl_length(comm->v, comm->n);
    m[7] = tlm_ivl_length(l[L_MEMCPY].v, l[L_MEMCPY].n);
    free(t1.v);
    free(t2.v);
    return rc != TLM_OK ? -1 : 0;
}

static int lower_prefix(const char *s, const char *pre)
{
    for (; *pre; s++, pre++) {
        char c = *s >= 'A' && *s <= 'Z' ? (char)(*s + 32) : *s;
        if (c != *pre)
            return 0;
    }
    return 1;
}

static int kind_of(const char *name)
{
    if (lower_prefix(name, "copy") || lower_prefix(name, "memcpy") ||
        lower_prefix(name, "memset"))
        return L_MEMCPY;
    if (strncmp(name, "nccl", 4) == 0)
        return L_COMM;
    return L_COMP;
}

/* CPython's iteration order of set(keys) for small non-negative ints
 * (hash = value): open addressing, 9 linear probes then perturbation,
 * the table (8 slots first) quadrupled when 3/5 full. */
static size_t pyset_order(const uint32_t *keys, size_t n, uint32_t *out)
{
    size_t mask = 7, used = 0;
    int64_t tab[1024];
    for (size_t i = 0; i <= mask; i++)
        tab[i] = -1;
    for (size_t k = 0; k < n; k++) {
        size_t i = keys[k] & mask, perturb = keys[k];
        int done = 0;
        while (!done) {
            size_t probes = i + 9 <= mask ? 9 : 0;
            for (size_t j = i; j <= i + probes && !done; j++) {
                if (tab[j] == (int64_t)keys[k])
                    done = 1;
                else if (tab[j] < 0) {
                    tab[j] = keys[k];
                    used++;
                    done = 2;
                }
            }
            perturb >>= 5;
            i = (i * 5 + 1 + perturb) & mask;
        }
        if (done == 2 && used * 5 >= mask * 3) {
            int64_t old[1024];
            size_t omask = mask, ns = 8;
            memcpy(old, tab, (omask + 1) * sizeof *old);
            while (ns <= used * 4)
                ns <<= 1;
            mask = ns - 1;
            for (size_t i2 = 0; i2 <= mask; i2++)
                tab[i2] = -1;
            used = 0;
            uint32_t tmp[1024];
            size_t nt = 0;
            for (size_t j = 0; j <= omask; j++)
                if (old[j] >= 0)
                    tmp[nt++] = (uint32_t)old[j];
            for (size_t j = 0; j < nt; j++) { /* clean reinsertion */
                size_t i3 = tmp[j] & mask, pt = tmp[j];
                for (;;) {
                    size_t pr = i3 + 9 <= mask ? 9 : 0, j2 = i3;
                    while (j2 <= i3 + pr && tab[j2] >= 0)
                        j2++;
                    if (j2 <= i3 + pr) {
                        tab[j2] = tmp[j];
                        break;
                    }
                    pt >>= 5;
                    i3 = (i3 * 5 + 1 + pt) & mask;
                }
                used++;
            }
        }
    }
    size_t m = 0;
    for (size_t i = 0; i <= mask; i++)
        if (tab[i] >= 0)
            out[m++] = (uint32_t)tab[i];
    return m;
}

/* The processes (pids < 100 with events) in TraceLens's order. */
static size_t gpu_pids(const tlm_xplane *x, unsigned compat, uint32_t *out)
{
    size_t np, nl, ne, n = 0;
    const tlm_xp_plane *pl = tlm_xplane_planes(x, &np);
    const tlm_xp_line *ln = tlm_xplane_lines(x, &nl);
    tlm_xplane_events(x, &ne);
    uint8_t has[XS_MAXPID] = {0};
    uint32_t keys[XS_MAXPID];
    for (size_t i = 0; i < nl; i++) {
        uint32_t pid = pl[ln[i].plane].pid;
        if (pid < XS_MAXPID && !has[pid] && pl[ln[i].plane].n_events) {
            has[pid] = 1;
            keys[n++] = pid;
        }
    }
    if (compat & TLM_COMPAT_NP_SORT)
        return pyset_order(keys, n, out);
    n = 0;
    for (uint32_t p = 0; p < XS_MAXPID; p++)
        if (has[p])
            out[n++] = p;
    return n;
}

static tlm_tab *new_tab(const char *name, int with_pid, int with_dev)
{
    static const char *const cols[] = {"type", "time ms", "percent",
                                       "gpu_pid", "device"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64, TLM_COL_F64,
                                     TLM_COL_I64, TLM_COL_I64};
    return tlm_tab_new(name, 3 + (size_t)with_pid + (size_t)with_dev, cols,
                       ty);
}

/* Eight rows of us[] (microseconds) into t. */
static int put_rows(tlm_tab *t, const double *us, int64_t pid, int64_t dev)
{
    for (int k = 0; k < XS_NMET; k++) {
        long r = tlm_tab_add_row(t);
        if (r < 0)
            return -1;
        tlm_tab_set_s(t, (size_t)r, 0, met_names[k], strlen(met_names[k]));
        tlm_tab_set_f(t, (size_t)r, 1, us[k] / 1e3);
        tlm_tab_set_f(t, (size_t)r, 2, us[k] / us[5] * 100);
        if (pid >= 0)
            tlm_tab_set_i(t, (size_t)r, 3, pid);
        if (dev >= 0)
            tlm_tab_set_i(t, (size_t)r, 4, dev);
    }
    return t->oom ? -1 : 0;
}

/* The four interval lists of process pid.  kind: per string id, 0 not
 * yet known, else 1 + kind_of(name). */
static int collect(const tlm_xplane *x, uint32_t pid, uint8_t *kind,
                   tlm_ivl_vec *l)
{
    size_t np, nl, ne;
    const tlm_xp_plane *pl = tlm_xplane_planes(x, &np);
    const tlm_xp_line *ln = tlm_xplane_lines(x, &nl);
    const tlm_xp_event *ev = tlm_xplane_events(x, &ne);
    for (size_t i = 0; i < ne; i++) {
        const tlm_xp_line *li = &ln[ev[i].line];
        if (pl[li->plane].pid != pid || li->tid >= XS_MAXPID)
            continue;
        int64_t s = ev[i].ts_ps, e = s + ev[i].dur_ps;
        uint8_t *k = &kind[ev[i].name];
        if (!*k)
            *k = (uint8_t)(1 + kind_of(tlm_xplane_str(x, ev[i].name)));
        if (tlm_ivl_push(&l[L_ALL], s, e) || tlm_ivl_push(&l[*k - 1], s, e))
            return -1;
    }
    return 0;
}

static int64_t device_of(const tlm_xplane *x, uint32_t pid)
{
    size_t np;
    const tlm_xp_plane *pl = tlm_xplane_planes(x, &np);
    for (size_t i = 0; i < np; i++)
        if (pl[i].gpu && pl[i].pid == pid)
            return pl[i].id;
    return (int64_t)pid - 1;
}

/* One process: its rows, its times added to sum.  1: no stream event
 * (skipped), 0 done, -1 ENOMEM. */
static int one_gpu(const tlm_xplane *x, uint32_t pid, int dev_col,
                   uint8_t *kind, tlm_tab *t, double *sum)
{
    tlm_ivl_vec l[L_N];
    memset(l, 0, sizeof l);
    int rc = collect(x, pid, kind, l);
    int64_t m[XS_NMET];
    if (!rc && l[L_ALL].n == 0)
        rc = 1;
    if (!rc)
        rc = metrics(l, m);
    for (int i = 0; i < L_N; i++)
        free(l[i].v);
    if (rc)
        return rc;
    double us[XS_NMET];
    for (int k = 0; k < XS_NMET; k++) {
        us[k] = (double)m[k] / 1e6;
        sum[k] += us[k];
    }
    return put_rows(t, us, pid, dev_col ? device_of(x, pid) : -1);
}

tlm_status tlm_xsheets_timeline(const tlm_xplane *x, unsigned compat,
                                tlm_tab **timeline, tlm_tab **averages,
                                tlm_error *err)
{
    uint32_t pids[XS_MAXPID];
    size_t n = gpu_pids(x, compat, pids), used = 0;
    int dev = !(compat & TLM_COMPAT_COLUMNS);
    double sum[XS_NMET] = {0};
    *timeline = new_tab("gpu_timeline", 1, dev);
    *averages = new_tab("gpu_events_averages", 0, 0);
    uint8_t *kind = calloc(tlm_xplane_str_count(x) + 1, 1);
    int rc = *timeline && *averages && kind ? 0 : -1;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        rc = one_gpu(x, pids[i], dev, kind, *timeline, sum);
        used += rc == 0;
    }
    free(kind);
    if (rc >= 0 && used == 0)
        return tlm_error_set(err, TLM_EFORMAT, NULL, -1,
                             "XPlane: no GPU events (no event on a stream "
                             "line, id < 100, of a /device:GPU:<n> plane)");
    for (int k = 0; k < XS_NMET && rc >= 0; k++)
        sum[k] /= (double)used;
    if (rc >= 0)
        rc = put_rows(*averages, sum, -1, -1);
    if (rc < 0)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory building gpu_timeline");
    return TLM_OK;
}
