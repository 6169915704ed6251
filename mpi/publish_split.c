/*
 * publish_split.c - the publish phase's report files formatted by two
 * processes at once.  Rank 0 sends rank 1 the nccl_long rows and the
 * GPUs per node; rank 1 formats nccl_long.csv and the all_to_allv sheets
 * into memory (TLM_OUT_PART_LONG) while rank 0
 * formats report.md and the other sheets, then streams rank 0 the files
 * in 1 MiB messages, which rank 0 writes into files staged in the output
 * set beside its own.  The bytes are those one process would write: the
 * same functions, the same rows.  Each side sends every message of the
 * exchange on every path (failures as statuses), so neither waits
 * forever.
 */
#include "publish_split.h"

#include <stdlib.h>
#include <string.h>

#include "report0_out.h"

#define TAG_PUB 7301 /* this file's messages, in their fixed order */
#define PUB_CHUNK ((size_t)1 << 20)

int tlm_mpi_pub_split(const tlm_mpi_ctx *c)
{
    return c->np > 1 && !c->o.no_report;
}

/* n bytes in messages of at most 1 GiB (MPI's int counts); the receiver
 * uses the same cut. */
static void send_bytes(const void *p, size_t n, int to, MPI_Comm comm)
{
    const char *b = p;
    while (n) {
        int k = n > ((size_t)1 << 30) ? 1 << 30 : (int)n;
        MPI_Send(b, k, MPI_BYTE, to, TAG_PUB, comm);
        b += k;
        n -= (size_t)k;
    }
}

static void recv_bytes(void *p, size_t n, int from, MPI_Comm comm)
{
    char *b = p;
    while (n) {
        int k = n > ((size_t)1 << 30) ? 1 << 30 : (int)n;
        MPI_Recv(b, k, MPI_BYTE, from, TAG_PUB, comm, MPI_STATUS_IGNORE);
        b += k;
        n -= (size_t)k;
    }
}

void tlm_mpi_pub_send(const tlm_mpi_ctx *c, int go, const tlm_out_results *r)
{
    int64_t h[3] = {go, 0, 0};
    if (go) {
        h[1] = r->opts ? r->opts->gpus_per_node : -1;
        h[2] = (int64_t)r->n_tl_long;
    }
    MPI_Send(h, 3, MPI_INT64_T, 1, TAG_PUB, c->comm);
    if (!go)
        return;
    int32_t ready = 0; /* rank 1 has room for the rows */
    MPI_Recv(&ready, 1, MPI_INT32_T, 1, TAG_PUB, c->comm, MPI_STATUS_IGNORE);
    if (ready)
        send_bytes(r->tl_long, r->n_tl_long * sizeof *r->tl_long, 1,
                   c->comm);
}

/* Rank 1's answer: its status and message, then each file: its name and
 * length, then its bytes in PUB_CHUNK messages. */
typedef struct pub_head {
    int64_t status, n_files;
    char msg[1024];
} pub_head;

typedef struct pub_file {
    char name[sizeof ((tlm_out_memfile *)0)->name];
    int64_t len;
} pub_file;

/* Rank 1: the files of the part formatted from the rows. */
static tlm_status format_long(const tlm_mpi_ctx *c, long gpn,
                              const tlm_out_tl_long *rows, size_t n,
                              tlm_out_memset *mem, tlm_error *err)
{
    tlm_cli_opts o = c->o;
    o.gpus_per_node = gpn;
    tlm_out_results r;
    memset(&r, 0, sizeof r);
    r.opts = &o;
    r.tl_long = rows;
    r.n_tl_long = n;
    return tlm_out_report_write_parts(&r, TLM_OUT_PART_LONG, NULL, NULL,
                                      NULL, mem, err);
}

tlm_status tlm_mpi_pub_helper(tlm_mpi_ctx *c)
{
    int64_t h[3];
    MPI_Recv(h, 3, MPI_INT64_T, 0, TAG_PUB, c->comm, MPI_STATUS_IGNORE);
    if (!h[0])
        return TLM_OK;
    size_t n = h[2] > 0 ? (size_t)h[2] : 0;
    tlm_out_tl_long *rows = malloc((n ? n : 1) * sizeof *rows);
    if (rows && getenv("TLMPI_TEST_PUB_FAIL")) { /* the test of the path */
        free(rows);
        rows = NULL;
    }
    int32_t ready = rows != NULL;
    MPI_Send(&ready, 1, MPI_INT32_T, 0, TAG_PUB, c->comm);
    tlm_error err;
    tlm_error_clear(&err);
    tlm_out_memset mem = {NULL, 0};
    tlm_status st;
    if (rows) {
        recv_bytes(rows, n * sizeof *rows, 0, c->comm);
        st = format_long(c, (long)h[1], rows, n, &mem, &err);
    } else {
        st = tlm_error_set(&err, TLM_ENOMEM, NULL, -1, "out of memory");
    }
    free(rows);
    pub_head ph;
    memset(&ph, 0, sizeof ph);
    ph.status = st;
    ph.n_files = st == TLM_OK ? (int64_t)mem.n : 0;
    if (st != TLM_OK)
        tlm_error_format(&err, ph.msg, sizeof ph.msg);
    MPI_Send(&ph, (int)sizeof ph, MPI_BYTE, 0, TAG_PUB, c->comm);
    for (int64_t i = 0; i < ph.n_files; i++) {
        pub_file pf;
        memset(&pf, 0, sizeof pf);
        memcpy(pf.name, mem.f[i].name, sizeof pf.name);
        pf.len = (int64_t)mem.f[i].len;
        MPI_Send(&pf, (int)sizeof pf, MPI_BYTE, 0, TAG_PUB, c->comm);
        for (size_t o = 0; o < mem.f[i].len; o += PUB_CHUNK) {
            size_t k = mem.f[i].len - o;
            MPI_Send(mem.f[i].data + o, (int)(k < PUB_CHUNK ? k : PUB_CHUNK),
                     MPI_BYTE, 0, TAG_PUB, c->comm);
        }
    }
    tlm_out_memset_free(&mem);
    return TLM_OK; /* a failure is rank 0's to report (its status) */
}

/* Rank 0: one of rank 1's files into the output set (st not TLM_OK:
 * its messages received and dropped). */
static tlm_status take_file(tlm_mpi_ctx *c, tlm_status st, char *buf,
                            tlm_error *err)
{
    pub_file pf;
    MPI_Recv(&pf, (int)sizeof pf, MPI_BYTE, 1, TAG_PUB, c->comm,
             MPI_STATUS_IGNORE);
    pf.name[sizeof pf.name - 1] = '\0';
    tlm_out_dest d = {c->su.cdir, &c->out, NULL};
    tlm_out_file o = {NULL, "", NULL, NULL, 0};
    if (st == TLM_OK)
        st = tlm_out_open(&o, &d, pf.name, err);
    size_t len = pf.len > 0 ? (size_t)pf.len : 0;
    for (size_t at = 0; at < len; at += PUB_CHUNK) {
        size_t k = len - at < PUB_CHUNK ? len - at : PUB_CHUNK;
        MPI_Recv(buf, (int)k, MPI_BYTE, 1, TAG_PUB, c->comm,
                 MPI_STATUS_IGNORE);
        if (o.f)
            fwrite(buf, 1, k, o.f);
    }
    if (o.f) {
        tlm_status cs = tlm_out_close(&o, err);
        st = st == TLM_OK ? cs : st;
    }
    return st;
}

tlm_status tlm_mpi_pub_take(tlm_mpi_ctx *c, tlm_status st, tlm_error *err)
{
    static char buf[PUB_CHUNK];
    pub_head ph;
    MPI_Recv(&ph, (int)sizeof ph, MPI_BYTE, 1, TAG_PUB, c->comm,
             MPI_STATUS_IGNORE);
    ph.msg[sizeof ph.msg - 1] = '\0';
    if (st == TLM_OK && ph.status != TLM_OK)
        st = tlm_error_set(err, (tlm_status)ph.status, NULL, -1, "%s",
                           ph.msg);
    for (int64_t i = 0; i < ph.n_files; i++)
        st = take_file(c, st, buf, err);
    return st;
}
