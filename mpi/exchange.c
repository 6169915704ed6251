/*
 * exchange.c - record movement between MPI ranks.
 *
 * The driver never sends pointers: collective records and table rows are
 * flat structs, so one contiguous datatype per record size lets every
 * count be a record count.  Memory failures are agreed on before the
 * collective transfer, so one rank running out of memory makes every rank
 * return TLM_ENOMEM instead of leaving the others blocked.
 */
#include "exchange.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static tlm_status rec_type(size_t size, MPI_Datatype *t, tlm_error *err)
{
    if (size == 0 || size > INT_MAX ||
        MPI_Type_contiguous((int)size, MPI_BYTE, t) != MPI_SUCCESS ||
        MPI_Type_commit(t) != MPI_SUCCESS)
        return tlm_error_set(err, TLM_EMPI, NULL, -1,
                             "cannot make an MPI datatype of %zu bytes",
                             size);
    return TLM_OK;
}

static tlm_status agreed_nomem(tlm_status local, MPI_Comm comm,
                               tlm_error *err)
{
    tlm_status st = tlm_mpi_agree(local, comm);
    if (st != TLM_OK && local == TLM_OK)
        tlm_error_set(err, st, NULL, -1,
                      "another MPI rank ran out of memory exchanging "
                      "records");
    else if (st != TLM_OK)
        tlm_error_set(err, st, NULL, -1,
                      "out of memory exchanging records");
    return st;
}

tlm_status tlm_mpi_route(const void *recs, size_t n, size_t size,
                         const int *dest, MPI_Comm comm, void **out,
                         size_t *n_out, tlm_error *err)
{
    int np = 1, me = 0;
    MPI_Comm_size(comm, &np);
    MPI_Comm_rank(comm, &me);
    *out = NULL;
    *n_out = 0;
    tlm_status st = TLM_OK;
    int *sc = calloc((size_t)np, sizeof *sc);
    int *rc = calloc((size_t)np, sizeof *rc);
    int *sd = calloc((size_t)np, sizeof *sd);
    int *rd = calloc((size_t)np, sizeof *rd);
    int *fill = calloc((size_t)np, sizeof *fill);
    char *sbuf = malloc(n ? n * size : 1);
    char *rbuf = NULL;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    if (!sc || !rc || !sd || !rd || !fill || !sbuf)
        st = TLM_ENOMEM;
    if ((st = agreed_nomem(st, comm, err)) != TLM_OK)
        goto done;
    for (size_t i = 0; i < n; i++)
        sc[dest[i]]++;
    for (int r = 1; r < np; r++)
        sd[r] = sd[r - 1] + sc[r - 1];
    for (size_t i = 0; i < n; i++) {
        int d = dest[i];
        memcpy(sbuf + (size_t)(sd[d] + fill[d]++) * size,
               (const char *)recs + i * size, size);
    }
    if (MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm) != MPI_SUCCESS) {
        st = tlm_error_set(err, TLM_EMPI, NULL, -1, "MPI_Alltoall failed");
        goto done;
    }
    size_t total = 0;
    for (int r = 0; r < np; r++) {
        rd[r] = (int)total;
        total += (size_t)rc[r];
    }
    rbuf = malloc(total ? total * size : 1);
    if ((st = agreed_nomem(rbuf ? TLM_OK : TLM_ENOMEM, comm, err)) != TLM_OK)
        goto done;
    if ((st = rec_type(size, &t, err)) != TLM_OK)
        goto done;
    if (MPI_Alltoallv(sbuf, sc, sd, t, rbuf, rc, rd, t, comm) !=
        MPI_SUCCESS) {
        st = tlm_error_set(err, TLM_EMPI, NULL, -1, "MPI_Alltoallv failed");
        goto done;
    }
    *out = rbuf;
    *n_out = total;
    rbuf = NULL;
done:
    if (t != MPI_DATATYPE_NULL)
        MPI_Type_free(&t);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(fill);
    free(sbuf);
    free(rbuf);
    return st;
}

static tlm_status gather_(const void *recs, size_t n, size_t size, int root,
                          int all, MPI_Comm comm, void **out, size_t *n_out,
                          tlm_error *err)
{
    int np = 1, me = 0;
    MPI_Comm_size(comm, &np);
    MPI_Comm_rank(comm, &me);
    *out = NULL;
    *n_out = 0;
    tlm_status st = TLM_OK;
    int cnt = (int)n;
    int *rc = calloc((size_t)np, sizeof *rc);
    int *rd = calloc((size_t)np, sizeof *rd);
    char *rbuf = NULL;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    static const char dummy[8];
    if ((st = agreed_nomem(rc && rd ? TLM_OK : TLM_ENOMEM, comm, err)) !=
        TLM_OK)
        goto done;
    int rcode = all ? MPI_Allgather(&cnt, 1, MPI_INT, rc, 1, MPI_INT, comm)
                    : MPI_Gather(&cnt, 1, MPI_INT, rc, 1, MPI_INT, root, comm);
    if (rcode != MPI_SUCCESS) {
        st = tlm_error_set(err, TLM_EMPI, NULL, -1, "MPI_Gather failed");
        goto done;
    }
    size_t total = 0;
    if (all || me == root) {
        for (int r = 0; r < np; r++) {
            rd[r] = (int)total;
            total += (size_t)rc[r];
        }
        rbuf = malloc(total ? total * size : 1);
    }
    if ((st = agreed_nomem((all || me == root) && !rbuf ? TLM_ENOMEM : TLM_OK,
                           comm, err)) != TLM_OK)
        goto done;
    if ((st = rec_type(size, &t, err)) != TLM_OK)
        goto done;
    const void *sb = n ? recs : (const void *)dummy;
    rcode = all ? MPI_Allgatherv(sb, cnt, t, rbuf, rc, rd, t, comm)
                : MPI_Gatherv(sb, cnt, t, rbuf, rc, rd, t, root, comm);
    if (rcode != MPI_SUCCESS) {
        st = tlm_error_set(err, TLM_EMPI, NULL, -1, "MPI_Gatherv failed");
        goto done;
    }
    if (all || me == root) {
        *out = rbuf;
        *n_out = total;
        rbuf = NULL;
    }
done:
    if (t != MPI_DATATYPE_NULL)
        MPI_Type_free(&t);
    free(rc);
    free(rd);
    free(rbuf);
    return st;
}

tlm_status tlm_mpi_gather(const void *recs, size_t n, size_t size, int root,
                          MPI_Comm comm, void **out, size_t *n_out,
                          tlm_error *err)
{
    return gather_(recs, n, size, root, 0, comm, out, n_out, err);
}

tlm_status tlm_mpi_allgather(const void *recs, size_t n, size_t size,
                             MPI_Comm comm, void **out, size_t *n_out,
                             tlm_error *err)
{
    return gather_(recs, n, size, 0, 1, comm, out, n_out, err);
}
