/*
 * nbc_nbr.c -- the neighborhood collectives (MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v,w) and their MPI_Ineighbor_ forms) on the
 * topologies of topo.c, as one-round schedules of nbc.c.
 *
 * Neighbors (MPI-3.1 7.6): a Cartesian process has 2 per dimension, the
 * -1 then the +1 neighbor, as sources and as destinations; MPI_PROC_NULL
 * ones keep their buffer slot and move nothing. A message sent towards
 * the +1 neighbor arrives in that process's -1 slot, which the tags say
 * (slot 2d+1 sends with sub 2d+1, slot 2d receives sub 2d+1), so a
 * periodic dimension of size 1 or 2 pairs them right (MPI-4.0 states this
 * rule). A distributed graph's messages between one pair match in list
 * order.
 */
#include "topo.h"

/* the tag's sub of a message from/to slot i */
static int sub_out(const struct kmpi_topo *t, int j)
{
    return t->kind == MPI_CART ? j : 0;
}

static int sub_in(const struct kmpi_topo *t, int i)
{
    return t->kind == MPI_CART ? i ^ 1 : 0;
}

/* One round: a receive from every source into its block, a send of its
 * block to every destination. */
static void neighbor_build(struct kmpi_sched *s, const struct kmpi_topo *t,
                           const struct kmpi_nbc_side *snd, const struct kmpi_nbc_side *rcv)
{
    void      **img = kmpi_sched_tmp(s, (size_t)t->indeg * sizeof(*img));
    const void *same = NULL;

    if (img == NULL)
        return;
    for (int i = 0; i < t->indeg; i++) {
        img[i] = NULL;
        if (t->in[i] == MPI_PROC_NULL || kmpi_side_bytes(rcv, i) == 0)
            continue;
        img[i] = kmpi_sched_recv_image(s, kmpi_side_block(rcv, i), kmpi_side_count(rcv, i),
                                       kmpi_side_type(rcv, i));
        kmpi_sched_recv(s, img[i], kmpi_side_bytes(rcv, i), t->in[i], sub_in(t, i));
    }
    for (int j = 0; j < t->outdeg; j++) {
        size_t bytes = kmpi_side_bytes(snd, snd->same ? 0 : j);
        if (t->out[j] == MPI_PROC_NULL || bytes == 0)
            continue;
        const void *out = same;
        if (out == NULL) {
            out = kmpi_sched_send_image(s, kmpi_side_block(snd, j), kmpi_side_count(snd, j),
                                        kmpi_side_type(snd, j));
            if (snd->same)
                same = out;
        }
        kmpi_sched_send(s, out, bytes, t->out[j], sub_out(t, j));
    }
    kmpi_sched_wait(s);
    for (int i = 0; i < t->indeg; i++)
        if (img[i] != NULL)
            kmpi_sched_recv_finish(s, img[i], kmpi_side_block(rcv, i), kmpi_side_count(rcv, i),
                                   kmpi_side_type(rcv, i));
}

/* The checks and the run shared by the ten calls. Per-block arrays are
 * NULL-checked here (for a non-zero degree); types: per-block handles
 * (alltoallw) or NULL and the one type. */
static int neighbor(const char *call, struct kmpi_nbc_side *snd, const MPI_Datatype *stypes,
                    MPI_Datatype stype, struct kmpi_nbc_side *rcv, const MPI_Datatype *rtypes,
                    MPI_Datatype rtype, int v, MPI_Comm comm, MPI_Request *request,
                    int blocking)
{
    int                rc;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, blocking, &rc);
    struct kmpi_topo  *t;
    struct kmpi_sched *s;

    if (c != NULL && c->inter)
        return kmpi_inter_refuse(call, comm);
    if (c == NULL || (t = kmpi_topo_get(call, comm, 0, &rc)) == NULL)
        return rc;
    if (snd->buf == MPI_IN_PLACE || rcv->buf == MPI_IN_PLACE)
        return kmpi_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed in "
                          "neighborhood collectives");
    /* v: the receive side (and the send side, unless it is one block)
     * has arrays; v == 2: of types too */
    int sv = v && !snd->same;
    if (t->outdeg > 0 && sv
        && (snd->counts == NULL || (snd->displs == NULL && snd->adispls == NULL)
            || (v == 2 && stypes == NULL)))
        return kmpi_error(comm, MPI_ERR_ARG, call, "sendcounts, sdispls or sendtypes is NULL");
    if (t->indeg > 0 && v
        && (rcv->counts == NULL || (rcv->displs == NULL && rcv->adispls == NULL)
            || (v == 2 && rtypes == NULL)))
        return kmpi_error(comm, MPI_ERR_ARG, call, "recvcounts, the displacements or "
                          "recvtypes is NULL");
    if (v != 2 && ((rc = kmpi_nbc_type(call, comm, stype, "sendtype", &snd->t)) != MPI_SUCCESS
                   || (rc = kmpi_nbc_type(call, comm, rtype, "recvtype", &rcv->t))
                          != MPI_SUCCESS))
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if ((rc = kmpi_nbc_side_check(call, comm, s, snd, snd->same ? 0 : t->outdeg, stypes,
                                  "send")) != MPI_SUCCESS
        || (rc = kmpi_nbc_side_check(call, comm, s, rcv, t->indeg, rtypes, "recv"))
               != MPI_SUCCESS) {
        kmpi_sched_discard(s);
        return rc;
    }
    neighbor_build(s, t, snd, rcv);
    return blocking ? kmpi_sched_run(s) : kmpi_sched_start(s, request);
}

static int nb_allgather(const char *call, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
                        int blocking)
{
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount, .same = 1 };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount };

    return neighbor(call, &snd, NULL, sendtype, &rcv, NULL, recvtype, 0, comm, request,
                    blocking);
}

static int nb_allgatherv(const char *call, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                         const int *displs, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request, int blocking)
{
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount, .same = 1 };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .counts = recvcounts, .displs = displs };

    return neighbor(call, &snd, NULL, sendtype, &rcv, NULL, recvtype, 1, comm, request,
                    blocking);
}

static int nb_alltoall(const char *call, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int blocking)
{
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount };

    return neighbor(call, &snd, NULL, sendtype, &rcv, NULL, recvtype, 0, comm, request,
                    blocking);
}

static int nb_alltoallv(const char *call, const void *sendbuf, const int *sendcounts,
                        const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Request *request, int blocking)
{
    struct kmpi_nbc_side snd = { .buf = sendbuf, .counts = sendcounts, .displs = sdispls };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .counts = recvcounts, .displs = rdispls };

    return neighbor(call, &snd, NULL, sendtype, &rcv, NULL, recvtype, 1, comm, request,
                    blocking);
}

static int nb_alltoallw(const char *call, const void *sendbuf, const int *sendcounts,
                        const MPI_Aint *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                        const int *recvcounts, const MPI_Aint *rdispls,
                        const MPI_Datatype *recvtypes, MPI_Comm comm, MPI_Request *request,
                        int blocking)
{
    struct kmpi_nbc_side snd = { .buf = sendbuf, .counts = sendcounts, .adispls = sdispls };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .counts = recvcounts, .adispls = rdispls };

    return neighbor(call, &snd, sendtypes, MPI_DATATYPE_NULL, &rcv, recvtypes,
                    MPI_DATATYPE_NULL, 2, comm, request, blocking);
}

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return nb_allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf,
                        recvcount, recvtype, comm, NULL, 1);
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return nb_allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf,
                        recvcount, recvtype, comm, request, 0);
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return nb_allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                         recvcounts, displs, recvtype, comm, NULL, 1);
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return nb_allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                         recvcounts, displs, recvtype, comm, request, 0);
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return nb_alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf,
                       recvcount, recvtype, comm, NULL, 1);
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return nb_alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf,
                       recvcount, recvtype, comm, request, 0);
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return nb_alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype,
                        recvbuf, recvcounts, rdispls, recvtype, comm, NULL, 1);
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return nb_alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype,
                        recvbuf, recvcounts, rdispls, recvtype, comm, request, 0);
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return nb_alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                        recvbuf, recvcounts, rdispls, recvtypes, comm, NULL, 1);
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    return nb_alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                        recvbuf, recvcounts, rdispls, recvtypes, comm, request, 0);
}
