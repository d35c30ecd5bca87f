/*
 * nbc_coll.c -- the non-blocking collectives that move data without
 * reducing it (MPI_Ibarrier, Ibcast, Igather(v), Iscatter(v),
 * Iallgather(v), Ialltoall(v,w)) and MPI_Alltoallw, as schedules of the
 * engine in nbc.c; nbc_red.c has the reductions.
 *
 * Algorithms (p ranks):
 *   barrier         dissemination: ceil(log2 p) rounds
 *   bcast           binomial tree from the root
 *   gather(v)       the root receives every block at once (linear)
 *   scatter(v)      the root sends every block at once
 *   allgather(v)    ring: p-1 rounds of a block each
 *   alltoall(v,w)   every pair at once, sends staggered (rank + k)
 * Non-contiguous datatypes travel packed.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_inter.h"
#include "nbc.h"

static int truncate_error(const char *call, MPI_Comm comm, size_t have, size_t room)
{
    return kmpi_error(comm, MPI_ERR_TRUNCATE, call, "this rank's own block (%zu bytes) does "
                      "not fit its receive block (%zu bytes)", have, room);
}

/* ------------------------------------------------------------ barrier */

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_barrier("MPI_Ibarrier", comm, request);
    static const char  call[] = "MPI_Ibarrier";
    static char        token;
    int                rc, k = 0;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int d = 1; d < c->size; d <<= 1, k++) {
        kmpi_sched_send(s, &token, 0, (c->rank + d) % c->size, k);
        kmpi_sched_recv(s, &token, 0, (c->rank - d + c->size) % c->size, k);
        kmpi_sched_wait(s);
    }
    return kmpi_sched_go(s, request);
}

/* ------------------------------------------------------------ bcast */

static void bcast_build(struct kmpi_sched *s, void *buf, size_t count, struct kmpi_type *t,
                        int root, int p, int me)
{
    size_t bytes = count * t->size;
    int    vr = (me - root + p) % p, mask = 1;
    void  *img;

    if (p == 1 || bytes == 0)
        return;
    if (vr == 0) {
        img = (void *)kmpi_sched_send_image(s, buf, count, t);
        while (mask < p)
            mask <<= 1;
    } else {
        img = kmpi_sched_recv_image(s, buf, count, t);
        while (!(vr & mask))
            mask <<= 1;
        kmpi_sched_recv(s, img, bytes, (vr - mask + root) % p, 0);
        kmpi_sched_wait(s);
        kmpi_sched_recv_finish(s, img, buf, count, t);
    }
    /* the children, largest subtree first */
    for (int m = mask >> 1; m > 0; m >>= 1)
        if (vr + m < p)
            kmpi_sched_send(s, img, bytes, (vr + m + root) % p, 0);
    kmpi_sched_wait(s);
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request);
    static const char  call[] = "MPI_Ibcast";
    int                rc;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type  *t;
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((rc = kmpi_nbc_count(call, comm, count, "count")) != MPI_SUCCESS
        || (rc = kmpi_nbc_type(call, comm, datatype, "datatype", &t)) != MPI_SUCCESS
        || (rc = kmpi_nbc_root(call, comm, c, root)) != MPI_SUCCESS)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    bcast_build(s, buffer, (size_t)count, t, root, c->size, c->rank);
    return kmpi_sched_go(s, request);
}

/* ------------------------------------------------------------ gather, scatter */

/* sendbuf MPI_IN_PLACE at the root: its block is in place */
static void gather_build(struct kmpi_sched *s, const void *sendbuf, size_t scount,
                         struct kmpi_type *st, const struct kmpi_nbc_side *rcv, int root, int p,
                         int me)
{
    if (me != root) {
        size_t bytes = scount * st->size;
        if (bytes > 0) {
            kmpi_sched_send(s, kmpi_sched_send_image(s, sendbuf, scount, st), bytes, root, 0);
            kmpi_sched_wait(s);
        }
        return;
    }
    void **img = kmpi_sched_tmp(s, (size_t)p * sizeof(*img));
    if (img == NULL)
        return;
    for (int k = 1; k < p; k++) {
        int i = (root + k) % p;
        img[i] = NULL;
        if (kmpi_side_bytes(rcv, i) == 0)
            continue;
        img[i] = kmpi_sched_recv_image(s, kmpi_side_block(rcv, i), kmpi_side_count(rcv, i),
                                       rcv->t);
        kmpi_sched_recv(s, img[i], kmpi_side_bytes(rcv, i), i, 0);
    }
    if (sendbuf != MPI_IN_PLACE)
        kmpi_sched_typed_copy(s, sendbuf, scount, st, kmpi_side_block(rcv, root), rcv->t);
    kmpi_sched_wait(s);
    for (int k = 1; k < p; k++) {
        int i = (root + k) % p;
        if (img[i] != NULL)
            kmpi_sched_recv_finish(s, img[i], kmpi_side_block(rcv, i), kmpi_side_count(rcv, i),
                                   rcv->t);
    }
}

/* recvbuf MPI_IN_PLACE at the root: its block stays */
static void scatter_build(struct kmpi_sched *s, const struct kmpi_nbc_side *snd, void *recvbuf,
                          size_t rcount, struct kmpi_type *rt, int root, int p, int me)
{
    if (me != root) {
        size_t bytes = rcount * rt->size;
        if (bytes > 0) {
            void *img = kmpi_sched_recv_image(s, recvbuf, rcount, rt);
            kmpi_sched_recv(s, img, bytes, root, 0);
            kmpi_sched_wait(s);
            kmpi_sched_recv_finish(s, img, recvbuf, rcount, rt);
        }
        return;
    }
    for (int k = 1; k < p; k++) {
        int i = (root + k) % p;
        if (kmpi_side_bytes(snd, i) > 0)
            kmpi_sched_send(s, kmpi_sched_send_image(s, kmpi_side_block(snd, i),
                                                     kmpi_side_count(snd, i), snd->t),
                            kmpi_side_bytes(snd, i), i, 0);
    }
    if (recvbuf != MPI_IN_PLACE)
        kmpi_sched_typed_copy(s, kmpi_side_block(snd, root), kmpi_side_count(snd, root), snd->t,
                              recvbuf, rt);
    kmpi_sched_wait(s);
}

static int igatherv(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int *recvcounts, int recvcount, const int *displs,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    int                  rc;
    struct kmpi_comm    *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type    *st = NULL;
    struct kmpi_sched   *s;
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount, .counts = recvcounts,
                                 .displs = displs };

    if (c == NULL)
        return rc;
    if ((rc = kmpi_nbc_root(call, comm, c, root)) != MPI_SUCCESS)
        return rc;
    int me = c->rank, root_in_place = me == root && sendbuf == MPI_IN_PLACE;
    if (!root_in_place
        && ((rc = kmpi_nbc_count(call, comm, sendcount, "sendcount")) != MPI_SUCCESS
            || (rc = kmpi_nbc_type(call, comm, sendtype, "sendtype", &st)) != MPI_SUCCESS))
        return rc;
    if (sendbuf == MPI_IN_PLACE && me != root)
        return kmpi_nbc_in_place(call, comm, "as sendbuf but at the root");
    if (me == root) {   /* the receive arguments matter only here */
        if (recvbuf == MPI_IN_PLACE)
            return kmpi_nbc_in_place(call, comm, "as recvbuf");
        if (displs == NULL && recvcounts != NULL)
            return kmpi_error(comm, MPI_ERR_ARG, call, "displs is NULL");
        if (recvcounts == NULL && displs != NULL)
            return kmpi_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
        if ((rc = kmpi_nbc_type(call, comm, recvtype, "recvtype", &rcv.t)) != MPI_SUCCESS)
            return rc;
    }
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if (me == root && (rc = kmpi_nbc_side_check(call, comm, s, &rcv, c->size, NULL, "recv"))
                          != MPI_SUCCESS) {
        kmpi_sched_discard(s);
        return rc;
    }
    if (!root_in_place && me == root
        && (size_t)sendcount * st->size > kmpi_side_bytes(&rcv, root)) {
        kmpi_sched_discard(s);
        return truncate_error(call, comm, (size_t)sendcount * st->size,
                              kmpi_side_bytes(&rcv, root));
    }
    gather_build(s, sendbuf, (size_t)(root_in_place ? 0 : sendcount), st, &rcv, root, c->size,
                 me);
    return kmpi_sched_go(s, request);
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 NULL, NULL, recvtype, root, comm, request);
    return igatherv("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, NULL,
                    recvtype, root, comm, request);
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_gather("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, 0,
                                 recvcounts, displs, recvtype, root, comm, request);
    static const char call[] = "MPI_Igatherv";
    struct kmpi_comm *c = kmpi_live(call) == MPI_SUCCESS ? kmpi_comm_fast(comm) : NULL;

    /* at the root both arrays are needed; elsewhere they are not read */
    if (c != NULL && c->rank == root && (recvcounts == NULL || displs == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL at the root",
                          recvcounts == NULL ? "recvcounts" : "displs");
    return igatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, 0, displs,
                    recvtype, root, comm, request);
}

static int iscatterv(const char *call, const void *sendbuf, const int *sendcounts,
                     int sendcount, const int *displs, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request)
{
    int                  rc;
    struct kmpi_comm    *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type    *rt = NULL;
    struct kmpi_sched   *s;
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount, .counts = sendcounts,
                                 .displs = displs };

    if (c == NULL)
        return rc;
    if ((rc = kmpi_nbc_root(call, comm, c, root)) != MPI_SUCCESS)
        return rc;
    int me = c->rank, root_in_place = me == root && recvbuf == MPI_IN_PLACE;
    if (!root_in_place
        && ((rc = kmpi_nbc_count(call, comm, recvcount, "recvcount")) != MPI_SUCCESS
            || (rc = kmpi_nbc_type(call, comm, recvtype, "recvtype", &rt)) != MPI_SUCCESS))
        return rc;
    if (recvbuf == MPI_IN_PLACE && me != root)
        return kmpi_nbc_in_place(call, comm, "as recvbuf but at the root");
    if (me == root) {   /* the send arguments matter only here */
        if (sendbuf == MPI_IN_PLACE)
            return kmpi_nbc_in_place(call, comm, "as sendbuf");
        if ((rc = kmpi_nbc_type(call, comm, sendtype, "sendtype", &snd.t)) != MPI_SUCCESS)
            return rc;
    }
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if (me == root && (rc = kmpi_nbc_side_check(call, comm, s, &snd, c->size, NULL, "send"))
                          != MPI_SUCCESS) {
        kmpi_sched_discard(s);
        return rc;
    }
    if (!root_in_place && me == root
        && kmpi_side_bytes(&snd, root) > (size_t)recvcount * rt->size) {
        kmpi_sched_discard(s);
        return truncate_error(call, comm, kmpi_side_bytes(&snd, root),
                              (size_t)recvcount * rt->size);
    }
    scatter_build(s, &snd, recvbuf, (size_t)(root_in_place ? 0 : recvcount), rt, root, c->size,
                  me);
    return kmpi_sched_go(s, request);
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_scatter("MPI_Iscatter", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                                  recvcount, recvtype, root, comm, request);
    return iscatterv("MPI_Iscatter", sendbuf, NULL, sendcount, NULL, sendtype, recvbuf,
                     recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_scatter("MPI_Iscatterv", sendbuf, 0, sendcounts, displs, sendtype,
                                  recvbuf, recvcount, recvtype, root, comm, request);
    static const char call[] = "MPI_Iscatterv";
    struct kmpi_comm *c = kmpi_live(call) == MPI_SUCCESS ? kmpi_comm_fast(comm) : NULL;

    if (c != NULL && c->rank == root && (sendcounts == NULL || displs == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL at the root",
                          sendcounts == NULL ? "sendcounts" : "displs");
    return iscatterv(call, sendbuf, sendcounts, 0, displs, sendtype, recvbuf, recvcount,
                     recvtype, root, comm, request);
}

/* ------------------------------------------------------------ allgather */

/* Ring: at step k every rank passes block me - k to its right neighbour
 * and takes block me - k - 1 from its left one. A non-contiguous recvtype
 * works on a packed image of every block, unpacked at the end. */
static void allgather_build(struct kmpi_sched *s, const void *sendbuf, size_t scount,
                            struct kmpi_type *st, const struct kmpi_nbc_side *rcv, int p, int me)
{
    struct kmpi_type *rt = rcv->t;
    void            **img = kmpi_sched_tmp(s, (size_t)p * sizeof(*img));
    size_t            total = 0;

    if (img == NULL)
        return;
    if (!rt->contig) {
        for (int i = 0; i < p; i++)
            total += kmpi_side_bytes(rcv, i);
        char *packed = kmpi_sched_tmp(s, total);
        if (packed == NULL)
            return;
        size_t off = 0;
        for (int i = 0; i < p; i++) {
            img[i] = packed + off;
            off += kmpi_side_bytes(rcv, i);
        }
        if (sendbuf != MPI_IN_PLACE)
            kmpi_sched_pack(s, sendbuf, scount, st, img[me]);
        else
            kmpi_sched_pack(s, kmpi_side_block(rcv, me), kmpi_side_count(rcv, me), rt, img[me]);
    } else {
        for (int i = 0; i < p; i++)
            img[i] = kmpi_side_block(rcv, i);
        if (sendbuf != MPI_IN_PLACE)
            kmpi_sched_typed_copy(s, sendbuf, scount, st, img[me], rt);
    }
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int out = (me - k + p) % p, in = (me - k - 1 + p) % p;
        if (kmpi_side_bytes(rcv, out) > 0)
            kmpi_sched_send(s, img[out], kmpi_side_bytes(rcv, out), right, 0);
        if (kmpi_side_bytes(rcv, in) > 0)
            kmpi_sched_recv(s, img[in], kmpi_side_bytes(rcv, in), left, 0);
        kmpi_sched_wait(s);
    }
    if (!rt->contig)
        for (int i = 0; i < p; i++)
            if (i != me || sendbuf != MPI_IN_PLACE)
                kmpi_sched_unpack(s, img[i], kmpi_side_count(rcv, i), rt,
                                  kmpi_side_block(rcv, i));
}

static int iallgatherv(const char *call, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                       int recvcount, const int *displs, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request)
{
    int                  rc;
    struct kmpi_comm    *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type    *st = NULL;
    struct kmpi_sched   *s;
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount, .counts = recvcounts,
                                 .displs = displs };

    if (c == NULL)
        return rc;
    if (sendbuf != MPI_IN_PLACE
        && ((rc = kmpi_nbc_count(call, comm, sendcount, "sendcount")) != MPI_SUCCESS
            || (rc = kmpi_nbc_type(call, comm, sendtype, "sendtype", &st)) != MPI_SUCCESS))
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return kmpi_nbc_in_place(call, comm, "as recvbuf");
    if ((rc = kmpi_nbc_type(call, comm, recvtype, "recvtype", &rcv.t)) != MPI_SUCCESS)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if ((rc = kmpi_nbc_side_check(call, comm, s, &rcv, c->size, NULL, "recv")) != MPI_SUCCESS) {
        kmpi_sched_discard(s);
        return rc;
    }
    if (sendbuf != MPI_IN_PLACE
        && (size_t)sendcount * st->size > kmpi_side_bytes(&rcv, c->rank)) {
        kmpi_sched_discard(s);
        return truncate_error(call, comm, (size_t)sendcount * st->size,
                              kmpi_side_bytes(&rcv, c->rank));
    }
    allgather_build(s, sendbuf, sendbuf == MPI_IN_PLACE ? 0 : (size_t)sendcount, st, &rcv,
                    c->size, c->rank);
    return kmpi_sched_go(s, request);
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, NULL, NULL, recvtype, comm, request);
    return iallgatherv("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
                       NULL, recvtype, comm, request);
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, 0,
                                    recvcounts, displs, recvtype, comm, request);
    static const char call[] = "MPI_Iallgatherv";

    if ((recvcounts == NULL || displs == NULL) && kmpi_live(call) == MPI_SUCCESS)
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL",
                          recvcounts == NULL ? "recvcounts" : "displs");
    return iallgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, 0, displs,
                       recvtype, comm, request);
}

/* ------------------------------------------------------------ alltoall */

/* Every pair at once: the receives, then the sends to me+1, me+2, ...
 * snd NULL (MPI_IN_PLACE): what is sent is packed from rcv first. */
static void alltoall_build(struct kmpi_sched *s, const struct kmpi_nbc_side *snd,
                           const struct kmpi_nbc_side *rcv, int p, int me)
{
    void **img = kmpi_sched_tmp(s, (size_t)p * sizeof(*img));

    if (img == NULL)
        return;
    if (snd != NULL)
        kmpi_sched_typed_copy(s, kmpi_side_block(snd, me), kmpi_side_count(snd, me),
                              kmpi_side_type(snd, me), kmpi_side_block(rcv, me),
                              kmpi_side_type(rcv, me));
    else
        for (int k = 1; k < p; k++) {
            int i = (me + k) % p;
            img[i] = kmpi_sched_tmp(s, kmpi_side_bytes(rcv, i));
            if (img[i] != NULL)
                kmpi_sched_pack(s, kmpi_side_block(rcv, i), kmpi_side_count(rcv, i),
                                kmpi_side_type(rcv, i), img[i]);
        }
    const void **out = kmpi_sched_tmp(s, (size_t)p * sizeof(*out));
    if (out == NULL)
        return;
    for (int k = 1; k < p; k++) {   /* the send images first: in place, img is the packed copy */
        int i = (me + k) % p;
        out[i] = snd != NULL ? kmpi_sched_send_image(s, kmpi_side_block(snd, i),
                                                     kmpi_side_count(snd, i),
                                                     kmpi_side_type(snd, i))
                             : img[i];
    }
    for (int k = 1; k < p; k++) {
        int i = (me - k + p) % p;
        img[i] = NULL;
        if (kmpi_side_bytes(rcv, i) == 0)
            continue;
        img[i] = kmpi_sched_recv_image(s, kmpi_side_block(rcv, i), kmpi_side_count(rcv, i),
                                       kmpi_side_type(rcv, i));
        kmpi_sched_recv(s, img[i], kmpi_side_bytes(rcv, i), i, 0);
    }
    for (int k = 1; k < p; k++) {
        int    i = (me + k) % p;
        size_t bytes = snd != NULL ? kmpi_side_bytes(snd, i) : kmpi_side_bytes(rcv, i);
        if (bytes > 0)
            kmpi_sched_send(s, out[i], bytes, i, 0);
    }
    kmpi_sched_wait(s);
    for (int k = 1; k < p; k++) {
        int i = (me - k + p) % p;
        if (img[i] != NULL)
            kmpi_sched_recv_finish(s, img[i], kmpi_side_block(rcv, i), kmpi_side_count(rcv, i),
                                   kmpi_side_type(rcv, i));
    }
}

/* the checks and the build shared by alltoall, v and w (and blocking w) */
static int alltoallw(const char *call, struct kmpi_nbc_side *snd, const MPI_Datatype *stypes,
                     MPI_Datatype stype, struct kmpi_nbc_side *rcv, const MPI_Datatype *rtypes,
                     MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request, int blocking)
{
    int                rc;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, blocking, &rc);
    struct kmpi_sched *s;
    int                in_place = snd->buf == MPI_IN_PLACE;

    if (c == NULL)
        return rc;
    if (rcv->buf == MPI_IN_PLACE)
        return kmpi_nbc_in_place(call, comm, "as recvbuf");
    if (!in_place && stypes == NULL
        && (rc = kmpi_nbc_type(call, comm, stype, "sendtype", &snd->t)) != MPI_SUCCESS)
        return rc;
    if (rtypes == NULL
        && (rc = kmpi_nbc_type(call, comm, rtype, "recvtype", &rcv->t)) != MPI_SUCCESS)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if ((!in_place
         && (rc = kmpi_nbc_side_check(call, comm, s, snd, c->size, stypes, "send"))
                != MPI_SUCCESS)
        || (rc = kmpi_nbc_side_check(call, comm, s, rcv, c->size, rtypes, "recv"))
               != MPI_SUCCESS) {
        kmpi_sched_discard(s);
        return rc;
    }
    if (!in_place && kmpi_side_bytes(snd, c->rank) > kmpi_side_bytes(rcv, c->rank)) {
        kmpi_sched_discard(s);
        return truncate_error(call, comm, kmpi_side_bytes(snd, c->rank),
                              kmpi_side_bytes(rcv, c->rank));
    }
    alltoall_build(s, in_place ? NULL : snd, rcv, c->size, c->rank);
    return kmpi_sched_go(s, request);
}

static int null_arrays(const char *call, MPI_Comm comm, const void *a, const char *an,
                       const void *b, const char *bn)
{
    if (kmpi_live(call) != MPI_SUCCESS || (a != NULL && b != NULL))
        return MPI_SUCCESS;
    return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", a == NULL ? an : bn);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_alltoall("MPI_Ialltoall", sendbuf, sendcount, NULL, NULL, sendtype, NULL,
                                   recvbuf, recvcount, NULL, NULL, recvtype, NULL, 0, comm,
                                   request);
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount };

    return alltoallw("MPI_Ialltoall", &snd, NULL, sendtype, &rcv, NULL, recvtype, comm, request,
                     0);
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_alltoall("MPI_Ialltoallv", sendbuf, 0, sendcounts, sdispls, sendtype,
                                   NULL, recvbuf, 0, recvcounts, rdispls, recvtype, NULL, 0, comm,
                                   request);
    static const char    call[] = "MPI_Ialltoallv";
    struct kmpi_nbc_side snd = { .buf = sendbuf, .counts = sendcounts, .displs = sdispls };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .counts = recvcounts, .displs = rdispls };
    int                  rc;

    if ((sendbuf != MPI_IN_PLACE
         && (rc = null_arrays(call, comm, sendcounts, "sendcounts", sdispls, "sdispls")) != 0)
        || (rc = null_arrays(call, comm, recvcounts, "recvcounts", rdispls, "rdispls")) != 0)
        return rc;
    return alltoallw(call, &snd, NULL, sendtype, &rcv, NULL, recvtype, comm, request, 0);
}

static int alltoallw_entry(const char *call, const void *sendbuf, const int sendcounts[],
                           const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                           const int recvcounts[], const int rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request,
                           int blocking)
{
    struct kmpi_nbc_side snd = { .buf = sendbuf, .counts = sendcounts, .bdispls = sdispls };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .counts = recvcounts, .bdispls = rdispls };
    int                  rc;

    if ((sendbuf != MPI_IN_PLACE
         && ((rc = null_arrays(call, comm, sendcounts, "sendcounts", sdispls, "sdispls")) != 0
             || (rc = null_arrays(call, comm, sendtypes, "sendtypes", sendtypes, "")) != 0))
        || (rc = null_arrays(call, comm, recvcounts, "recvcounts", rdispls, "rdispls")) != 0
        || (rc = null_arrays(call, comm, recvtypes, "recvtypes", recvtypes, "")) != 0)
        return rc;
    return alltoallw(call, &snd, sendtypes, MPI_DATATYPE_NULL, &rcv, recvtypes,
                     MPI_DATATYPE_NULL, comm, request, blocking);
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_alltoall("MPI_Ialltoallw", sendbuf, 0, sendcounts, sdispls,
                                   MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls,
                                   MPI_DATATYPE_NULL, recvtypes, 1, comm, request);
    return alltoallw_entry("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, comm, request, 0);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_alltoall("MPI_Alltoallw", sendbuf, 0, sendcounts, sdispls,
                                   MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls,
                                   MPI_DATATYPE_NULL, recvtypes, 1, comm, NULL);
    return alltoallw_entry("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, comm, NULL, 1);
}
