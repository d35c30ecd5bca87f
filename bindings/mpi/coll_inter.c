/*
 * coll_inter.c -- the collectives on intercommunicators (MPI-3.1 5.2.2,
 * 5.2.3): the data of one group go to the other. Every one is a schedule
 * of the non-blocking collectives' engine (nbc.h), so the blocking form
 * (request NULL) and the MPI_I* form are the same code.
 *
 * On an intercommunicator's team a remote rank r is team rank r and a
 * local rank l team rank psize + l (mpi_int.h), so the schedules name
 * both groups directly. Algorithms (R, L: the remote and local sizes):
 *   rooted (bcast, gather, scatter)  the root exchanges with each of the
 *                    other group's members at once; the root's own group
 *                    (MPI_PROC_NULL) does nothing
 *   allgather, alltoall  every member exchanges with each remote member
 *   barrier          each group gathers at its rank 0, the two rank 0s
 *                    exchange, each tells its group
 *   reductions       each group reduces at its rank 0 in rank order (so
 *                    non-commutative ops get the order MPI asks), the
 *                    result goes to the root (reduce) or to the other
 *                    group's rank 0, which hands it (or its blocks) on
 * MPI_IN_PLACE has no meaning on an intercommunicator: MPI_ERR_BUFFER.
 * Scan, Exscan and the neighborhood collectives refuse intercommunicators
 * (MPI_ERR_COMM) in their own files.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_inter.h"
#include "nbc.h"

/* the call's communicator (an intercommunicator); a name "MPI_I..." is
 * the non-blocking form, whose request must not be NULL */
static struct kmpi_comm *ic_comm(const char *call, MPI_Comm comm, MPI_Request *request, int *rc)
{
    return kmpi_nbc_comm(call, comm, request, call[4] != 'I', rc);
}

static int local_team(const struct kmpi_comm *c, int l)
{
    return c->psize + l;
}

enum { ROOT_NONE, ROOT_ME, ROOT_REMOTE };

/* what root says about this member: MPI_ROOT (ROOT_ME), MPI_PROC_NULL
 * (ROOT_NONE), a rank of the remote group (ROOT_REMOTE); else the error */
static int root_kind(const char *call, MPI_Comm comm, const struct kmpi_comm *c, int root,
                     int *kind)
{
    if (root == MPI_ROOT)
        *kind = ROOT_ME;
    else if (root == MPI_PROC_NULL)
        *kind = ROOT_NONE;
    else if (root >= 0 && root < c->psize)
        *kind = ROOT_REMOTE;
    else
        return kmpi_error(comm, MPI_ERR_ROOT, call, "root %d is neither MPI_ROOT, "
                          "MPI_PROC_NULL nor a rank of the remote group (size %d)", root,
                          c->psize);
    return MPI_SUCCESS;
}

static int no_in_place(const char *call, MPI_Comm comm, const void *buf, const char *what)
{
    if (buf != MPI_IN_PLACE)
        return MPI_SUCCESS;
    return kmpi_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE as %s: not allowed on an "
                      "intercommunicator", what);
}

static int null_array(const char *call, MPI_Comm comm, const void *a, const char *what)
{
    return a != NULL ? MPI_SUCCESS
                     : kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
}

/* ------------------------------------------------------------ barrier */

int kmpi_icoll_barrier(const char *call, MPI_Comm comm, MPI_Request *request)
{
    static char        token;
    int                rc;
    struct kmpi_comm  *c = ic_comm(call, comm, request, &rc);
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if (c->rank != 0) {
        kmpi_sched_send(s, &token, 0, local_team(c, 0), 0);
        kmpi_sched_wait(s);
        kmpi_sched_recv(s, &token, 0, local_team(c, 0), 2);
        kmpi_sched_wait(s);
    } else {
        for (int l = 1; l < c->size; l++)
            kmpi_sched_recv(s, &token, 0, local_team(c, l), 0);
        kmpi_sched_wait(s);
        kmpi_sched_send(s, &token, 0, 0, 1);
        kmpi_sched_recv(s, &token, 0, 0, 1);
        kmpi_sched_wait(s);
        for (int l = 1; l < c->size; l++)
            kmpi_sched_send(s, &token, 0, local_team(c, l), 2);
        kmpi_sched_wait(s);
    }
    return kmpi_sched_go(s, request);
}

/* ------------------------------------------------------------ bcast, gather, scatter */

int kmpi_icoll_bcast(const char *call, void *buf, int count, MPI_Datatype dt, int root,
                     MPI_Comm comm, MPI_Request *request)
{
    int                rc, kind;
    struct kmpi_comm  *c = ic_comm(call, comm, request, &rc);
    struct kmpi_type  *t = NULL;
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((rc = root_kind(call, comm, c, root, &kind)) != MPI_SUCCESS)
        return rc;
    if (kind != ROOT_NONE
        && ((rc = kmpi_nbc_count(call, comm, count, "count")) != MPI_SUCCESS
            || (rc = kmpi_nbc_type(call, comm, dt, "datatype", &t)) != MPI_SUCCESS))
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    size_t bytes = kind != ROOT_NONE ? (size_t)count * t->size : 0;
    if (kind == ROOT_ME && bytes > 0) {
        const void *img = kmpi_sched_send_image(s, buf, (size_t)count, t);
        for (int r = 0; r < c->psize; r++)
            kmpi_sched_send(s, img, bytes, r, 0);
        kmpi_sched_wait(s);
    } else if (kind == ROOT_REMOTE && bytes > 0) {
        void *img = kmpi_sched_recv_image(s, buf, (size_t)count, t);
        kmpi_sched_recv(s, img, bytes, root, 0);
        kmpi_sched_wait(s);
        kmpi_sched_recv_finish(s, img, buf, (size_t)count, t);
    }
    return kmpi_sched_go(s, request);
}

/* the names of one direction's arguments, for the error messages */
struct dir_names {
    const char *dir, *buf, *count, *counts, *type;
};
static const struct dir_names SEND = { "send", "sendbuf", "sendcount", "sendcounts", "sendtype" };
static const struct dir_names RECV = { "recv", "recvbuf", "recvcount", "recvcounts", "recvtype" };

/* the one side of a rooted operation that a member of the other group has:
 * count elements of type dt at buf, checked */
static int leaf_side(const char *call, MPI_Comm comm, const void *buf, int count,
                     MPI_Datatype dt, const struct dir_names *n, struct kmpi_type **t)
{
    int rc;

    if ((rc = kmpi_nbc_count(call, comm, count, n->count)) != MPI_SUCCESS
        || (rc = kmpi_nbc_type(call, comm, dt, n->type, t)) != MPI_SUCCESS)
        return rc;
    return no_in_place(call, comm, buf, n->buf);
}

/* the side that holds a block for every remote rank (a gather's or
 * scatter's root, allgather's receiving side): its buffer not
 * MPI_IN_PLACE, the v-form's arrays, its type (into d->t) */
static int blocks_side(const char *call, MPI_Comm comm, int v, struct kmpi_nbc_side *d,
                       MPI_Datatype dt, const struct dir_names *n)
{
    int rc;

    if ((rc = no_in_place(call, comm, d->buf, n->buf)) != MPI_SUCCESS
        || (v && ((rc = null_array(call, comm, d->counts, n->counts)) != MPI_SUCCESS
                  || (rc = null_array(call, comm, d->displs, "displs")) != MPI_SUCCESS)))
        return rc;
    return kmpi_nbc_type(call, comm, dt, n->type, &d->t);
}

/* a new schedule; d (when not NULL) a blocks_side checked against it.
 * NULL with *rc on an error */
static struct kmpi_sched *blocks_sched(const char *call, MPI_Comm comm, struct kmpi_comm *c,
                                       struct kmpi_nbc_side *d,
                                       const struct dir_names *n, int *rc)
{
    struct kmpi_sched *s = kmpi_sched_new(call, comm, c);

    if (s == NULL) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    if (d != NULL
        && (*rc = kmpi_nbc_side_check(call, comm, s, d, c->psize, NULL, n->dir)) != MPI_SUCCESS) {
        kmpi_sched_discard(s);
        return NULL;
    }
    return s;
}

/* What gather and scatter share up to their schedule: the communicator
 * (*cp), what root says about this member (*kind), the leaf's one buffer
 * (lf: buf and count; its type into lf->t) and the root's blocks (blk;
 * its type into blk->t) checked, the schedule made. NULL with *rc (which
 * may be MPI_SUCCESS: nothing to do). gather: the leaves send, the root
 * receives; else the other way */
static struct kmpi_sched *rooted_begin(const char *call, MPI_Comm comm, MPI_Request *request,
                                       int root, int gather, struct kmpi_nbc_side *lf,
                                       MPI_Datatype ldt, struct kmpi_nbc_side *blk,
                                       MPI_Datatype bdt, struct kmpi_comm **cp, int *kind,
                                       int *rc)
{
    const struct dir_names *ln = gather ? &SEND : &RECV, *bn = gather ? &RECV : &SEND;
    int                     v  = call[strlen(call) - 1] == 'v';
    struct kmpi_comm       *c  = ic_comm(call, comm, request, rc);

    if ((*cp = c) == NULL || (*rc = root_kind(call, comm, c, root, kind)) != MPI_SUCCESS)
        return NULL;
    if ((*kind == ROOT_REMOTE
         && (*rc = leaf_side(call, comm, lf->buf, lf->count, ldt, ln, &lf->t)) != MPI_SUCCESS)
        || (*kind == ROOT_ME && (*rc = blocks_side(call, comm, v, blk, bdt, bn)) != MPI_SUCCESS))
        return NULL;
    return blocks_sched(call, comm, c, *kind == ROOT_ME ? blk : NULL, bn, rc);
}

int kmpi_icoll_gather(const char *call, const void *sendbuf, int sendcount, MPI_Datatype st,
                      void *recvbuf, int recvcount, const int *recvcounts, const int *displs,
                      MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    int                  rc, kind;
    struct kmpi_comm    *c;
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount, .counts = recvcounts,
                                 .displs = displs };
    struct kmpi_sched   *s = rooted_begin(call, comm, request, root, 1, &snd, st, &rcv, rt, &c,
                                          &kind, &rc);

    if (s == NULL)
        return rc;
    if (kind == ROOT_ME) {
        void **img = kmpi_sched_tmp(s, (size_t)c->psize * sizeof(*img));
        for (int r = 0; img != NULL && r < c->psize; r++) {
            img[r] = NULL;
            if (kmpi_side_bytes(&rcv, r) == 0)
                continue;
            img[r] = kmpi_sched_recv_image(s, kmpi_side_block(&rcv, r),
                                           kmpi_side_count(&rcv, r), rcv.t);
            kmpi_sched_recv(s, img[r], kmpi_side_bytes(&rcv, r), r, 0);
        }
        kmpi_sched_wait(s);
        for (int r = 0; img != NULL && r < c->psize; r++)
            if (img[r] != NULL)
                kmpi_sched_recv_finish(s, img[r], kmpi_side_block(&rcv, r),
                                       kmpi_side_count(&rcv, r), rcv.t);
    } else if (kind == ROOT_REMOTE && (size_t)sendcount * snd.t->size > 0) {
        kmpi_sched_send(s, kmpi_sched_send_image(s, sendbuf, (size_t)sendcount, snd.t),
                        (size_t)sendcount * snd.t->size, root, 0);
        kmpi_sched_wait(s);
    }
    return kmpi_sched_go(s, request);
}

int kmpi_icoll_scatter(const char *call, const void *sendbuf, int sendcount,
                       const int *sendcounts, const int *displs, MPI_Datatype st,
                       void *recvbuf, int recvcount, MPI_Datatype rt, int root, MPI_Comm comm,
                       MPI_Request *request)
{
    int                  rc, kind;
    struct kmpi_comm    *c;
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount };
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount, .counts = sendcounts,
                                 .displs = displs };
    struct kmpi_sched   *s = rooted_begin(call, comm, request, root, 0, &rcv, rt, &snd, st, &c,
                                          &kind, &rc);

    if (s == NULL)
        return rc;
    if (kind == ROOT_ME) {
        for (int r = 0; r < c->psize; r++)
            if (kmpi_side_bytes(&snd, r) > 0)
                kmpi_sched_send(s, kmpi_sched_send_image(s, kmpi_side_block(&snd, r),
                                                         kmpi_side_count(&snd, r), snd.t),
                                kmpi_side_bytes(&snd, r), r, 0);
        kmpi_sched_wait(s);
    } else if (kind == ROOT_REMOTE && (size_t)recvcount * rcv.t->size > 0) {
        void *img = kmpi_sched_recv_image(s, recvbuf, (size_t)recvcount, rcv.t);
        kmpi_sched_recv(s, img, (size_t)recvcount * rcv.t->size, root, 0);
        kmpi_sched_wait(s);
        kmpi_sched_recv_finish(s, img, recvbuf, (size_t)recvcount, rcv.t);
    }
    return kmpi_sched_go(s, request);
}

/* ------------------------------------------------------------ allgather, alltoall */

/* One round: block r of snd to remote rank r and block r of rcv from it
 * (snd->same: one block for all) */
static void exchange_build(struct kmpi_sched *s, const struct kmpi_comm *c,
                           const struct kmpi_nbc_side *snd, const struct kmpi_nbc_side *rcv)
{
    int    R = c->psize;
    void **img = kmpi_sched_tmp(s, (size_t)R * sizeof(*img));

    if (img == NULL)
        return;
    for (int r = 0; r < R; r++) {
        img[r] = NULL;
        if (kmpi_side_bytes(rcv, r) == 0)
            continue;
        img[r] = kmpi_sched_recv_image(s, kmpi_side_block(rcv, r), kmpi_side_count(rcv, r),
                                       kmpi_side_type(rcv, r));
        kmpi_sched_recv(s, img[r], kmpi_side_bytes(rcv, r), r, 0);
    }
    const void *one = NULL;
    if (snd->same && kmpi_side_bytes(snd, 0) > 0)
        one = kmpi_sched_send_image(s, snd->buf, kmpi_side_count(snd, 0), kmpi_side_type(snd, 0));
    for (int k = 0; k < R; k++) {
        int r = (c->rank + k) % R;   /* staggered */
        if (kmpi_side_bytes(snd, r) == 0)
            continue;
        const void *out = snd->same ? one
                                    : kmpi_sched_send_image(s, kmpi_side_block(snd, r),
                                                            kmpi_side_count(snd, r),
                                                            kmpi_side_type(snd, r));
        kmpi_sched_send(s, out, kmpi_side_bytes(snd, r), r, 0);
    }
    kmpi_sched_wait(s);
    for (int r = 0; r < R; r++)
        if (img[r] != NULL)
            kmpi_sched_recv_finish(s, img[r], kmpi_side_block(rcv, r), kmpi_side_count(rcv, r),
                                   kmpi_side_type(rcv, r));
}

int kmpi_icoll_allgather(const char *call, const void *sendbuf, int sendcount, MPI_Datatype st,
                         void *recvbuf, int recvcount, const int *recvcounts,
                         const int *displs, MPI_Datatype rt, MPI_Comm comm,
                         MPI_Request *request)
{
    int                  rc, v = call[strlen(call) - 1] == 'v';
    struct kmpi_comm    *c = ic_comm(call, comm, request, &rc);
    struct kmpi_sched   *s;
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount, .same = 1 };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount, .counts = recvcounts,
                                 .displs = displs };

    if (c == NULL)
        return rc;
    if ((rc = leaf_side(call, comm, sendbuf, sendcount, st, &SEND, &snd.t)) != MPI_SUCCESS
        || (rc = blocks_side(call, comm, v, &rcv, rt, &RECV)) != MPI_SUCCESS)
        return rc;
    if ((s = blocks_sched(call, comm, c, &rcv, &RECV, &rc)) == NULL)
        return rc;
    exchange_build(s, c, &snd, &rcv);
    return kmpi_sched_go(s, request);
}

int kmpi_icoll_alltoall(const char *call, const void *sendbuf, int sendcount,
                        const int *sendcounts, const int *sdispls, MPI_Datatype st,
                        const MPI_Datatype *sts, void *recvbuf, int recvcount,
                        const int *recvcounts, const int *rdispls, MPI_Datatype rt,
                        const MPI_Datatype *rts, int w, MPI_Comm comm, MPI_Request *request)
{
    int                  rc, v = sendcounts != NULL || recvcounts != NULL || w;
    struct kmpi_comm    *c = ic_comm(call, comm, request, &rc);
    struct kmpi_sched   *s;
    struct kmpi_nbc_side snd = { .buf = sendbuf, .count = sendcount, .counts = sendcounts };
    struct kmpi_nbc_side rcv = { .buf = recvbuf, .count = recvcount, .counts = recvcounts };

    if (c == NULL)
        return rc;
    if (w) {
        snd.bdispls = sdispls;
        rcv.bdispls = rdispls;
    } else {
        snd.displs = sdispls;
        rcv.displs = rdispls;
    }
    if ((rc = no_in_place(call, comm, sendbuf, "sendbuf")) != MPI_SUCCESS
        || (rc = no_in_place(call, comm, recvbuf, "recvbuf")) != MPI_SUCCESS)
        return rc;
    if (v && ((rc = null_array(call, comm, sendcounts, "sendcounts")) != MPI_SUCCESS
              || (rc = null_array(call, comm, sdispls, "sdispls")) != MPI_SUCCESS
              || (rc = null_array(call, comm, recvcounts, "recvcounts")) != MPI_SUCCESS
              || (rc = null_array(call, comm, rdispls, "rdispls")) != MPI_SUCCESS))
        return rc;
    if (w && ((rc = null_array(call, comm, sts, "sendtypes")) != MPI_SUCCESS
              || (rc = null_array(call, comm, rts, "recvtypes")) != MPI_SUCCESS))
        return rc;
    if (!w && ((rc = kmpi_nbc_type(call, comm, st, "sendtype", &snd.t)) != MPI_SUCCESS
               || (rc = kmpi_nbc_type(call, comm, rt, "recvtype", &rcv.t)) != MPI_SUCCESS))
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if ((rc = kmpi_nbc_side_check(call, comm, s, &snd, c->psize, w ? sts : NULL, "send"))
            != MPI_SUCCESS
        || (rc = kmpi_nbc_side_check(call, comm, s, &rcv, c->psize, w ? rts : NULL, "recv"))
               != MPI_SUCCESS) {
        kmpi_sched_discard(s);
        return rc;
    }
    exchange_build(s, c, &snd, &rcv);
    return kmpi_sched_go(s, request);
}

/* ------------------------------------------------------------ reductions */

static int red_args(const char *call, MPI_Comm comm, const void *buf, const char *bname,
                    int count, MPI_Datatype dt, MPI_Op op, struct kmpi_type **t)
{
    int rc;

    if ((rc = kmpi_nbc_count(call, comm, count, "count")) != MPI_SUCCESS
        || (rc = kmpi_nbc_type(call, comm, dt, "datatype", t)) != MPI_SUCCESS
        || (rc = no_in_place(call, comm, buf, bname)) != MPI_SUCCESS)
        return rc;
    return kmpi_op_check(comm, call, op, dt);
}

/* The reduction over the local group, in rank order, of count elements
 * at src: the work buffer holding it at local rank 0, NULL elsewhere. */
static void *local_reduce(struct kmpi_sched *s, const struct kmpi_comm *c, const void *src,
                          size_t count)
{
    size_t bytes = count * kmpi_sched_unit(s);
    int    L     = c->size;

    if (c->rank != 0) {
        void *w = kmpi_sched_tmp(s, bytes);
        kmpi_sched_red_in(s, src, count, w);
        kmpi_sched_send(s, w, bytes, local_team(c, 0), 1);
        kmpi_sched_wait(s);
        return NULL;
    }
    char *w = kmpi_sched_tmp(s, (size_t)L * bytes);
    if (w == NULL)
        return NULL;
    kmpi_sched_red_in(s, src, count, w);
    for (int l = 1; l < L; l++)
        kmpi_sched_recv(s, w + (size_t)l * bytes, bytes, local_team(c, l), 1);
    kmpi_sched_wait(s);
    /* acc = x[l] op acc from the right: x0 op (x1 op (... op x[L-1])) */
    for (int l = L - 2; l >= 0; l--)
        kmpi_sched_apply(s, w + (size_t)l * bytes, w + (size_t)(L - 1) * bytes, count);
    return w + (size_t)(L - 1) * bytes;
}

int kmpi_icoll_reduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                      MPI_Request *request)
{
    int                rc, kind;
    struct kmpi_comm  *c = ic_comm(call, comm, request, &rc);
    struct kmpi_type  *t = NULL;
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((rc = root_kind(call, comm, c, root, &kind)) != MPI_SUCCESS)
        return rc;
    if (kind == ROOT_REMOTE
        && (rc = red_args(call, comm, sendbuf, "sendbuf", count, dt, op, &t)) != MPI_SUCCESS)
        return rc;
    if (kind == ROOT_ME
        && (rc = red_args(call, comm, recvbuf, "recvbuf", count, dt, op, &t)) != MPI_SUCCESS)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if (kind != ROOT_NONE && count > 0) {
        kmpi_sched_red(s, op, dt, t, (size_t)count);
        size_t bytes = (size_t)count * kmpi_sched_unit(s);
        if (kind == ROOT_REMOTE) {
            void *acc = local_reduce(s, c, sendbuf, (size_t)count);
            if (c->rank == 0) {
                kmpi_sched_send(s, acc, bytes, root, 2);
                kmpi_sched_wait(s);
            }
        } else {
            void *w = kmpi_sched_tmp(s, bytes);
            kmpi_sched_recv(s, w, bytes, 0, 2);
            kmpi_sched_wait(s);
            kmpi_sched_red_out(s, w, (size_t)count, recvbuf);
        }
    }
    return kmpi_sched_go(s, request);
}

/* Both groups reduce total elements at their rank 0s, which swap the
 * results; then block l of the other group's result goes to local rank
 * l's recvbuf: counts[l] elements after those of the blocks before, or
 * when counts is NULL count elements at l * stride. */
static void swap_scatter(struct kmpi_sched *s, const struct kmpi_comm *c, const void *sendbuf,
                         void *recvbuf, size_t total, const int *counts, size_t count,
                         size_t stride)
{
    size_t unit = kmpi_sched_unit(s), bytes = total * unit;
    void  *acc  = local_reduce(s, c, sendbuf, total);

    if (c->rank == 0) {
        void *other = kmpi_sched_tmp(s, bytes);
        kmpi_sched_recv(s, other, bytes, 0, 2);
        kmpi_sched_send(s, acc, bytes, 0, 2);
        kmpi_sched_wait(s);
        size_t off = 0;
        for (int l = 0; l < c->size; l++) {
            size_t n = counts != NULL ? (size_t)counts[l] : count;
            if (l == 0)
                kmpi_sched_red_out(s, other, n, recvbuf);
            else if (n > 0)
                kmpi_sched_send(s, (char *)other + off * unit, n * unit, local_team(c, l), 3);
            off += counts != NULL ? n : stride;
        }
        kmpi_sched_wait(s);
        return;
    }
    size_t mine = counts != NULL ? (size_t)counts[c->rank] : count;
    if (mine > 0) {
        void *w = kmpi_sched_tmp(s, mine * unit);
        kmpi_sched_recv(s, w, mine * unit, local_team(c, 0), 3);
        kmpi_sched_wait(s);
        kmpi_sched_red_out(s, w, mine, recvbuf);
    }
}

int kmpi_icoll_allreduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int                rc;
    struct kmpi_comm  *c = ic_comm(call, comm, request, &rc);
    struct kmpi_type  *t = NULL;
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((rc = red_args(call, comm, sendbuf, "sendbuf", count, dt, op, &t)) != MPI_SUCCESS
        || (rc = no_in_place(call, comm, recvbuf, "recvbuf")) != MPI_SUCCESS)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if (count > 0) {
        kmpi_sched_red(s, op, dt, t, (size_t)count);
        /* every local rank gets the whole result: block l is all of it */
        swap_scatter(s, c, sendbuf, recvbuf, (size_t)count, NULL, (size_t)count, 0);
    }
    return kmpi_sched_go(s, request);
}

int kmpi_icoll_reduce_scatter(const char *call, const void *sendbuf, void *recvbuf,
                              int recvcount, const int *recvcounts, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request)
{
    int                rc;
    struct kmpi_comm  *c = ic_comm(call, comm, request, &rc);
    struct kmpi_type  *t = NULL;
    struct kmpi_sched *s;
    size_t             total = 0;

    if (c == NULL)
        return rc;
    if (recvcounts == NULL) {
        if ((rc = kmpi_nbc_count(call, comm, recvcount, "recvcount")) != MPI_SUCCESS)
            return rc;
        total = (size_t)recvcount * (size_t)c->size;
    }
    for (int l = 0; recvcounts != NULL && l < c->size; l++) {
        if (recvcounts[l] < 0)
            return kmpi_error(comm, MPI_ERR_COUNT, call, "recvcounts[%d] = %d is negative", l,
                              recvcounts[l]);
        total += (size_t)recvcounts[l];
    }
    if (total > (size_t)INT32_MAX)
        return kmpi_error(comm, MPI_ERR_COUNT, call, "the counts add up to %zu elements, more "
                          "than an int holds", total);
    if ((rc = red_args(call, comm, sendbuf, "sendbuf", (int)total, dt, op, &t)) != MPI_SUCCESS
        || (rc = no_in_place(call, comm, recvbuf, "recvbuf")) != MPI_SUCCESS)
        return rc;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    if (total > 0) {
        kmpi_sched_red(s, op, dt, t, total);
        swap_scatter(s, c, sendbuf, recvbuf, total, recvcounts, (size_t)recvcount,
                     (size_t)recvcount);
    }
    return kmpi_sched_go(s, request);
}
