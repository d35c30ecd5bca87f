/*
 * coll.c -- the MPI collective calls: argument checks, then the fastest
 * path that computes what MPI-3.1 says.
 *
 * Native paths (kumi's collectives on comm->team, no messages):
 *   Barrier          kumi_barrier
 *   Bcast            kumi_broadcast of the packed bytes (every rank moves
 *                    count * size bytes, whatever its datatype)
 *   Allreduce, Reduce  kumi_allreduce/kumi_reduce when kumi computes the
 *                    op on the type's basic elements (kmpi_op_native):
 *                    straight on the caller's buffers when they are
 *                    plain arrays of it, else through a work buffer
 *   Allgather, Alltoall  kumi_allgather/kumi_alltoall, packing around
 *                    them for non-contiguous datatypes
 *   Allgatherv       the same when every count is equal
 *   Alltoallv        the same when every rank's counts are uniform (the
 *                    ranks agree with one kumi_allreduce of a flag)
 *   Reduce_scatter(_block)  kumi_allreduce of the whole vector, then
 *                    each rank keeps its block
 * Everything else runs on messages (coll_msg.c): user ops, MAXLOC and
 * MINLOC, long double complex, Gather(v), Scatter(v), uneven Allgatherv
 * and Alltoallv, Scan, Exscan.
 *
 * Argument errors are reported before any communication; a rank that
 * finds one returns it (ERRORS_RETURN) without entering the collective,
 * as MPI leaves the others' behaviour undefined.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_inter.h"
#include "coll_msg.h"

/* ------------------------------------------------------------ argument checks
 * Each returns MPI_SUCCESS or the error it reported. */

static struct kmpi_comm *chk_comm(const char *call, MPI_Comm comm, int *rc)
{
    struct kmpi_comm *c;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                         comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    return c;
}

static int chk_count(MPI_Comm comm, const char *call, const char *what, int n)
{
    return n >= 0 ? MPI_SUCCESS
                  : kmpi_error(comm, MPI_ERR_COUNT, call, "%s %d is negative", what, n);
}

/* counts[0..n) >= 0 and, when displs_what is set, displs not NULL */
static int chk_counts(MPI_Comm comm, const char *call, const char *what, const int *counts,
                      int n, const char *displs_what, const int *displs)
{
    if (counts == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    if (displs_what != NULL && displs == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", displs_what);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return kmpi_error(comm, MPI_ERR_COUNT, call, "%s[%d] = %d is negative", what, i,
                              counts[i]);
    return MPI_SUCCESS;
}

static const struct kmpi_type *chk_type(MPI_Comm comm, const char *call, const char *what,
                                        MPI_Datatype dt, int *rc)
{
    const struct kmpi_type *t = kmpi_type(dt);

    if (t == NULL)
        *rc = kmpi_error(comm, MPI_ERR_TYPE, call, "%s %d is no datatype%s", what, dt,
                         dt == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
    else if (!t->committed)
        *rc = kmpi_error(comm, MPI_ERR_TYPE, call, "%s %s is not committed", what, t->name);
    else
        *rc = MPI_SUCCESS;
    return *rc == MPI_SUCCESS ? t : NULL;
}

static int chk_root(MPI_Comm comm, const char *call, int root, const struct kmpi_comm *c)
{
    if (root >= 0 && root < c->size)
        return MPI_SUCCESS;
    return kmpi_error(comm, MPI_ERR_ROOT, call, "root %d is out of range (communicator size %d)",
                      root, c->size);
}

/* MPI_IN_PLACE where MPI does not allow it */
static int chk_not_in_place(MPI_Comm comm, const char *call, const void *buf, const char *what)
{
    return buf != MPI_IN_PLACE
               ? MPI_SUCCESS
               : kmpi_error(comm, MPI_ERR_BUFFER, call, "%s cannot be MPI_IN_PLACE here", what);
}

/* a NULL buffer for data at offset 0 (MPI_BOTTOM is NULL too, but goes
 * with types whose data sit at absolute addresses) */
static int chk_null(MPI_Comm comm, const char *call, const char *what, const void *buf,
                    size_t count, const struct kmpi_type *t)
{
    if (buf != NULL || count == 0 || t->size == 0 || t->true_lb != 0)
        return MPI_SUCCESS;
    return kmpi_error(comm, MPI_ERR_BUFFER, call, "%s is NULL for %zu elements of %s", what,
                      count, t->name);
}

static int kumi_failed(MPI_Comm comm, const char *call, int krc, const char *what)
{
    return krc == KUMI_OK ? MPI_SUCCESS : kmpi_error_kumi(comm, krc, call, what);
}

static int out_of_memory(MPI_Comm comm, const char *call)
{
    return kmpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for temporary buffers");
}

static struct kmpi_side side_of(const void *buf, int count, const int *counts,
                                const int *displs, const struct kmpi_type *t)
{
    return (struct kmpi_side){ .buf = buf, .count = count, .counts = counts, .displs = displs,
                               .t = t };
}

/* ------------------------------------------------------------ barrier, broadcast */

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_barrier("MPI_Barrier", comm, NULL);
    static const char call[] = "MPI_Barrier";
    struct kmpi_comm *c;
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm_fast(comm)) == NULL) {
        chk_comm(call, comm, &rc);
        return rc;
    }
    rc = kumi_barrier(c->team);
    return rc == KUMI_OK ? MPI_SUCCESS : kmpi_error_kumi(comm, rc, call, "kumi_barrier");
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL);
    static const char       call[] = "MPI_Bcast";
    const struct kmpi_type *t;
    struct kmpi_comm       *c;
    size_t                  bytes;
    void                   *tmp;
    int                     rc;

    if ((c = chk_comm(call, comm, &rc)) == NULL ||
        (rc = chk_count(comm, call, "count", count)) != MPI_SUCCESS ||
        (t = chk_type(comm, call, "datatype", datatype, &rc)) == NULL ||
        (rc = chk_root(comm, call, root, c)) != MPI_SUCCESS ||
        (rc = chk_null(comm, call, "buffer", buffer, (size_t)count, t)) != MPI_SUCCESS)
        return rc;
    bytes = (size_t)count * t->size;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (t->contig)
        return kumi_failed(comm, call,
                           kumi_broadcast(c->team, kmpi_at(buffer, t->true_lb), bytes, root),
                           "kumi_broadcast");
    if ((tmp = malloc(bytes)) == NULL)
        return out_of_memory(comm, call);
    if (c->rank == root)
        kmpi_pack(buffer, (size_t)count, t, tmp);
    rc = kumi_failed(comm, call, kumi_broadcast(c->team, tmp, bytes, root), "kumi_broadcast");
    if (rc == MPI_SUCCESS && c->rank != root)
        kmpi_unpack(tmp, (size_t)count, t, buffer);
    free(tmp);
    return rc;
}

/* ------------------------------------------------------------ reductions */

/* comm, count, datatype and op of a reduction */
static struct kmpi_comm *chk_reduction(const char *call, MPI_Comm comm, int count,
                                       MPI_Datatype dt, MPI_Op op,
                                       const struct kmpi_type **t, int *rc)
{
    struct kmpi_comm *c = chk_comm(call, comm, rc);

    if (c == NULL || (*rc = chk_count(comm, call, "count", count)) != MPI_SUCCESS ||
        (*t = chk_type(comm, call, "datatype", dt, rc)) == NULL ||
        (*rc = kmpi_op_check(comm, call, op, dt)) != MPI_SUCCESS)
        return NULL;
    return c;
}

/* kumi_allreduce (root < 0) or kumi_reduce of count elements of t from
 * in (the caller's layout) into out; mode from kmpi_op_native */
static int native_reduce(const char *call, MPI_Comm comm, struct kmpi_comm *c, const void *in,
                         void *out, size_t count, const struct kmpi_type *t, kumi_type_t kt,
                         kumi_op_t ko, int mode, int root)
{
    const size_t n       = count * t->nbasic;
    const int    has_out = root < 0 || c->rank == root;
    const char  *what    = root < 0 ? "kumi_allreduce" : "kumi_reduce";
    void        *w;
    int          rc;

    if (mode == KMPI_NATIVE && kmpi_work_direct(t)) {
        void       *dst = has_out ? kmpi_at(out, t->true_lb) : NULL;
        const void *src = kmpi_at(in, t->true_lb);
        return kumi_failed(comm, call,
                           root < 0 ? kumi_allreduce(c->team, dst, src, n, kt, ko)
                                    : kumi_reduce(c->team, dst, src, n, kt, ko, root),
                           what);
    }
    if ((w = malloc(kmpi_work_bytes(t, count))) == NULL)
        return out_of_memory(comm, call);
    rc = kmpi_work_in(in, count, t, w);
    if (rc == MPI_SUCCESS) {
        if (mode == KMPI_NATIVE_NORMALIZED && c->size > 1)   /* one rank: x_0 itself */
            kmpi_op_normalize(t->basic, w, n);
        rc = kumi_failed(comm, call,
                         root < 0 ? kumi_allreduce(c->team, w, w, n, kt, ko)
                                  : kumi_reduce(c->team, w, w, n, kt, ko, root),
                         what);
        if (rc == MPI_SUCCESS && has_out)
            rc = kmpi_work_out(w, count, t, out);
    }
    free(w);
    return rc == MPI_ERR_NO_MEM ? out_of_memory(comm, call) : rc;
}

/* kept out of MPI_Allreduce, whose thin path then saves fewer registers */
__attribute__((noinline)) static int allreduce_checked(const void *sendbuf, void *recvbuf,
                                                       int count, MPI_Datatype datatype,
                                                       MPI_Op op, MPI_Comm comm)
{
    static const char       call[] = "MPI_Allreduce";
    const struct kmpi_type *t;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_red         r;
    kumi_type_t             kt;
    kumi_op_t               ko;
    int                     rc, mode;
    const void             *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;

    if ((c = chk_reduction(call, comm, count, datatype, op, &t, &rc)) == NULL ||
        (rc = chk_not_in_place(comm, call, recvbuf, "recvbuf")) != MPI_SUCCESS ||
        (rc = chk_null(comm, call, "sendbuf", in, (size_t)count, t)) != MPI_SUCCESS ||
        (rc = chk_null(comm, call, "recvbuf", recvbuf, (size_t)count, t)) != MPI_SUCCESS)
        return rc;
    if (count == 0)
        return MPI_SUCCESS;
    mode = kmpi_op_native(op, t->basic, &kt, &ko);
    if (mode != KMPI_NATIVE_NO)
        return native_reduce(call, comm, c, in, recvbuf, (size_t)count, t, kt, ko, mode, -1);
    kmpi_red_init(&r, op, datatype);
    kmpi_coll_begin(&k, call, comm, c);
    return kmpi_coll_allreduce(&k, &r, in, recvbuf, (size_t)count);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm,
                                    NULL);
    static const char       call[] = "MPI_Allreduce";
    const struct kmpi_type *t;
    struct kmpi_comm       *c;
    kumi_type_t             kt;
    kumi_op_t               ko;
    int                     rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    /* the thin path: a plain array of a type and op kumi reduces natively */
    c = kmpi_comm_fast(comm);
    t = kmpi_type(datatype);
    if (c != NULL && t != NULL && t->committed && count > 0 && recvbuf != MPI_IN_PLACE &&
        recvbuf != NULL && sendbuf != NULL &&
        kmpi_op_native(op, t->basic, &kt, &ko) == KMPI_NATIVE &&
        (t->predefined || kmpi_work_direct(t))) {
        const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
        rc = kumi_allreduce(c->team, kmpi_at(recvbuf, t->true_lb), kmpi_at(in, t->true_lb),
                            (size_t)count * t->nbasic, kt, ko);
        return rc == KUMI_OK ? MPI_SUCCESS : kmpi_error_kumi(comm, rc, call, "kumi_allreduce");
    }
    return allreduce_checked(sendbuf, recvbuf, count, datatype, op, comm);
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                                 NULL);
    static const char       call[] = "MPI_Reduce";
    const struct kmpi_type *t;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_red         r;
    kumi_type_t             kt;
    kumi_op_t               ko;
    int                     rc, mode;
    const void             *in;

    if ((c = chk_reduction(call, comm, count, datatype, op, &t, &rc)) == NULL ||
        (rc = chk_root(comm, call, root, c)) != MPI_SUCCESS)
        return rc;
    /* at the root sendbuf may be MPI_IN_PLACE; elsewhere recvbuf is not
     * read (it may even alias sendbuf) */
    rc = c->rank == root ? chk_not_in_place(comm, call, recvbuf, "recvbuf")
                         : chk_not_in_place(comm, call, sendbuf, "sendbuf at a non-root rank");
    if (rc != MPI_SUCCESS || count == 0)
        return rc;
    in = c->rank == root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if ((rc = chk_null(comm, call, "sendbuf", in, (size_t)count, t)) != MPI_SUCCESS ||
        (c->rank == root &&
         (rc = chk_null(comm, call, "recvbuf", recvbuf, (size_t)count, t)) != MPI_SUCCESS))
        return rc;
    mode = kmpi_op_native(op, t->basic, &kt, &ko);
    if (mode != KMPI_NATIVE_NO)
        return native_reduce(call, comm, c, in, recvbuf, (size_t)count, t, kt, ko, mode, root);
    kmpi_red_init(&r, op, datatype);
    kmpi_coll_begin(&k, call, comm, c);
    return kmpi_coll_reduce(&k, &r, in, recvbuf, (size_t)count, root);
}

/* Reduce_scatter (v 1: counts[i] for rank i) and Reduce_scatter_block
 * (v 0: count each) */
static int reduce_scatter(const char *call, int v, const void *sendbuf, void *recvbuf,
                          const int *counts, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm)
{
    const struct kmpi_type *t;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_red         r;
    kumi_type_t             kt;
    kumi_op_t               ko;
    size_t                  total = 0, before = 0, mine, n;
    void                   *w;
    int                     rc, mode;
    const void             *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;

    if ((c = chk_reduction(call, comm, v ? 0 : count, datatype, op, &t, &rc)) == NULL ||
        (v && (rc = chk_counts(comm, call, "recvcounts", counts, c->size, NULL, NULL)) !=
                  MPI_SUCCESS) ||
        (rc = chk_not_in_place(comm, call, recvbuf, "recvbuf")) != MPI_SUCCESS)
        return rc;
    if (!v)
        counts = NULL;
    for (int i = 0; i < c->size; i++) {
        if (i == c->rank)
            before = total;
        total += v ? (size_t)counts[i] : (size_t)count;
    }
    mine = v ? (size_t)counts[c->rank] : (size_t)count;
    if ((rc = chk_null(comm, call, "sendbuf", in, total, t)) != MPI_SUCCESS ||
        (rc = chk_null(comm, call, "recvbuf", recvbuf, mine, t)) != MPI_SUCCESS || total == 0)
        return rc;
    mode = kmpi_op_native(op, t->basic, &kt, &ko);
    if (mode == KMPI_NATIVE_NO) {
        kmpi_red_init(&r, op, datatype);
        kmpi_coll_begin(&k, call, comm, c);
        return kmpi_coll_reduce_scatter(&k, &r, in, recvbuf, counts, count);
    }
    /* the whole vector reduced everywhere; each rank keeps its block */
    n = total * t->nbasic;
    if ((w = malloc(kmpi_work_bytes(t, total))) == NULL)
        return out_of_memory(comm, call);
    if (mode == KMPI_NATIVE && kmpi_work_direct(t))
        rc = kumi_failed(comm, call, kumi_allreduce(c->team, w, kmpi_at(in, t->true_lb), n, kt, ko),
                         "kumi_allreduce");
    else {
        rc = kmpi_work_in(in, total, t, w);
        if (rc == MPI_SUCCESS && mode == KMPI_NATIVE_NORMALIZED && c->size > 1)
            kmpi_op_normalize(t->basic, w, n);
        if (rc == MPI_SUCCESS)
            rc = kumi_failed(comm, call, kumi_allreduce(c->team, w, w, n, kt, ko),
                             "kumi_allreduce");
    }
    if (rc == MPI_SUCCESS)
        rc = kmpi_work_out(kmpi_at(w, (MPI_Aint)kmpi_work_bytes(t, before)), mine, t, recvbuf);
    free(w);
    return rc == MPI_ERR_NO_MEM ? out_of_memory(comm, call) : rc;
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, 0, recvcounts,
                                         datatype, op, comm, NULL);
    return reduce_scatter("MPI_Reduce_scatter", 1, sendbuf, recvbuf, recvcounts, 0, datatype, op,
                          comm);
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount,
                                         NULL, datatype, op, comm, NULL);
    return reduce_scatter("MPI_Reduce_scatter_block", 0, sendbuf, recvbuf, NULL, recvcount,
                          datatype, op, comm);
}

static int scan(const char *call, const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int exclusive)
{
    const struct kmpi_type *t;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_red         r;
    int                     rc;

    if ((c = chk_reduction(call, comm, count, datatype, op, &t, &rc)) == NULL ||
        (rc = chk_not_in_place(comm, call, recvbuf, "recvbuf")) != MPI_SUCCESS ||
        (rc = chk_null(comm, call, "sendbuf", sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                       (size_t)count, t)) != MPI_SUCCESS ||
        (rc = chk_null(comm, call, "recvbuf", recvbuf, (size_t)count, t)) != MPI_SUCCESS)
        return rc;
    if (count == 0)
        return MPI_SUCCESS;
    kmpi_red_init(&r, op, datatype);
    kmpi_coll_begin(&k, call, comm, c);
    return kmpi_coll_scan(&k, &r, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf,
                          (size_t)count, exclusive);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_inter_refuse("MPI_Scan", comm);
    return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, 0);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_inter_refuse("MPI_Exscan", comm);
    return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, 1);
}

/* ------------------------------------------------------------ gather, scatter */

/* Gather (v 0: recvcount from every rank) and Gatherv (v 1: recvcounts,
 * displs). Only the root reads recvbuf, recvcount(s), displs and recvtype. */
static int gather(const char *call, int v, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, const int *recvcounts,
                  const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const struct kmpi_type *st = NULL, *rt = NULL;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_side        send, recv;
    int                     rc, at_root;

    if ((c = chk_comm(call, comm, &rc)) == NULL ||
        (rc = chk_root(comm, call, root, c)) != MPI_SUCCESS)
        return rc;
    at_root = c->rank == root;
    if (!at_root || sendbuf != MPI_IN_PLACE) {
        if ((rc = chk_not_in_place(comm, call, sendbuf, "sendbuf at a non-root rank")) !=
                MPI_SUCCESS ||
            (rc = chk_count(comm, call, "sendcount", sendcount)) != MPI_SUCCESS ||
            (st = chk_type(comm, call, "sendtype", sendtype, &rc)) == NULL ||
            (rc = chk_null(comm, call, "sendbuf", sendbuf, (size_t)sendcount, st)) !=
                MPI_SUCCESS)
            return rc;
    }
    if (at_root) {
        if ((rc = chk_not_in_place(comm, call, recvbuf, "recvbuf")) != MPI_SUCCESS ||
            (rc = v ? chk_counts(comm, call, "recvcounts", recvcounts, c->size,
                                 "displs", displs)
                    : chk_count(comm, call, "recvcount", recvcount)) !=
                MPI_SUCCESS ||
            (rt = chk_type(comm, call, "recvtype", recvtype, &rc)) == NULL ||
            (!v && (rc = chk_null(comm, call, "recvbuf", recvbuf,
                                  (size_t)recvcount * (size_t)c->size, rt)) != MPI_SUCCESS))
            return rc;
    }
    send = side_of(sendbuf, sendcount, NULL, NULL, st);
    recv = side_of(recvbuf, recvcount, v ? recvcounts : NULL, displs, rt);
    kmpi_coll_begin(&k, call, comm, c);
    return kmpi_coll_gatherv(&k, &send, &recv, root);
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 NULL, NULL, recvtype, root, comm, NULL);
    return gather("MPI_Gather", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                  recvtype, root, comm);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_gather("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, 0,
                                 recvcounts, displs, recvtype, root, comm, NULL);
    return gather("MPI_Gatherv", 1, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                  displs, recvtype, root, comm);
}

/* Scatter (v 0: sendcount to every rank) and Scatterv (v 1: sendcounts,
 * displs). Only the root reads sendbuf, sendcount(s), displs and sendtype. */
static int scatter(const char *call, int v, const void *sendbuf, int sendcount,
                   const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const struct kmpi_type *st = NULL, *rt = NULL;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_side        send, recv;
    int                     rc, at_root;

    if ((c = chk_comm(call, comm, &rc)) == NULL ||
        (rc = chk_root(comm, call, root, c)) != MPI_SUCCESS)
        return rc;
    at_root = c->rank == root;
    if (at_root) {
        if ((rc = chk_not_in_place(comm, call, sendbuf, "sendbuf")) != MPI_SUCCESS ||
            (rc = v ? chk_counts(comm, call, "sendcounts", sendcounts, c->size, "displs",
                                 displs)
                    : chk_count(comm, call, "sendcount", sendcount)) !=
                MPI_SUCCESS ||
            (st = chk_type(comm, call, "sendtype", sendtype, &rc)) == NULL ||
            (!v && (rc = chk_null(comm, call, "sendbuf", sendbuf,
                                  (size_t)sendcount * (size_t)c->size, st)) != MPI_SUCCESS))
            return rc;
    }
    if (!at_root || recvbuf != MPI_IN_PLACE) {
        if ((rc = chk_not_in_place(comm, call, recvbuf, "recvbuf at a non-root rank")) !=
                MPI_SUCCESS ||
            (rc = chk_count(comm, call, "recvcount", recvcount)) != MPI_SUCCESS ||
            (rt = chk_type(comm, call, "recvtype", recvtype, &rc)) == NULL ||
            (rc = chk_null(comm, call, "recvbuf", recvbuf, (size_t)recvcount, rt)) !=
                MPI_SUCCESS)
            return rc;
    }
    send = side_of(sendbuf, sendcount, v ? sendcounts : NULL, displs, st);
    recv = side_of(recvbuf, recvcount, NULL, NULL, rt);
    kmpi_coll_begin(&k, call, comm, c);
    return kmpi_coll_scatterv(&k, &send, &recv, root);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_scatter("MPI_Scatter", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                                  recvcount, recvtype, root, comm, NULL);
    return scatter("MPI_Scatter", 0, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                   recvtype, root, comm);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_scatter("MPI_Scatterv", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                                  recvcount, recvtype, root, comm, NULL);
    return scatter("MPI_Scatterv", 1, sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                   recvcount, recvtype, root, comm);
}

/* ------------------------------------------------------------ allgather, alltoall */

/* sendbuf (or MPI_IN_PLACE), and recvbuf, of an all-to-all kind of call */
static int chk_all(const char *call, MPI_Comm comm, const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, const struct kmpi_type **st, const void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, const struct kmpi_type **rt)
{
    int rc;

    *st = NULL;
    if (sendbuf != MPI_IN_PLACE &&
        ((rc = chk_count(comm, call, "sendcount", sendcount)) != MPI_SUCCESS ||
         (*st = chk_type(comm, call, "sendtype", sendtype, &rc)) == NULL))
        return rc;
    if ((rc = chk_not_in_place(comm, call, recvbuf, "recvbuf")) != MPI_SUCCESS ||
        (rc = chk_count(comm, call, "recvcount", recvcount)) != MPI_SUCCESS ||
        (*rt = chk_type(comm, call, "recvtype", recvtype, &rc)) == NULL ||
        (rc = chk_null(comm, call, "recvbuf", recvbuf, (size_t)recvcount, *rt)) != MPI_SUCCESS)
        return rc;
    if (sendbuf != MPI_IN_PLACE)
        return chk_null(comm, call, "sendbuf", sendbuf, (size_t)sendcount, *st);
    return MPI_SUCCESS;
}

/* Everyone's block of recvcount elements of rt through kumi_allgather;
 * block i lands at displs[i] extents (displs NULL: i * recvcount). */
static int native_allgather(const char *call, MPI_Comm comm, struct kmpi_comm *c,
                            const void *sendbuf, int sendcount, const struct kmpi_type *st,
                            void *recvbuf, int recvcount, const int *displs,
                            const struct kmpi_type *rt)
{
    const int    P = c->size, me = c->rank;
    const size_t n = (size_t)recvcount * rt->size;
    unsigned char *tmp;
    const void    *src;
    int            rc;

    if (sendbuf != MPI_IN_PLACE && (size_t)sendcount * st->size != n)
        return kmpi_error(comm, MPI_ERR_TRUNCATE, call,
                          "sends %zu bytes but each receive block holds %zu",
                          (size_t)sendcount * st->size, n);
    if (n == 0)
        return MPI_SUCCESS;
    if (rt->contig && displs == NULL) {   /* straight into recvbuf */
        unsigned char *dst = kmpi_at(recvbuf, rt->true_lb);
        tmp = NULL;
        if (sendbuf == MPI_IN_PLACE)
            src = dst + (size_t)me * n;
        else if (st->contig)
            src = kmpi_at(sendbuf, st->true_lb);
        else if ((tmp = malloc(n)) == NULL)
            return out_of_memory(comm, call);
        else {
            kmpi_pack(sendbuf, (size_t)sendcount, st, tmp);
            src = tmp;
        }
        rc = kumi_failed(comm, call, kumi_allgather(c->team, dst, src, n), "kumi_allgather");
        free(tmp);
        return rc;
    }
    /* packed blocks in rank order, then each to its place */
    if ((tmp = malloc((size_t)P * n)) == NULL)
        return out_of_memory(comm, call);
    if (sendbuf == MPI_IN_PLACE) {
        MPI_Aint d = displs != NULL ? displs[me] : (MPI_Aint)me * recvcount;
        kmpi_pack(kmpi_at(recvbuf, d * rt->extent), (size_t)recvcount, rt, tmp + (size_t)me * n);
        src = tmp + (size_t)me * n;
    } else if (st->contig)
        src = kmpi_at(sendbuf, st->true_lb);
    else {
        kmpi_pack(sendbuf, (size_t)sendcount, st, tmp + (size_t)me * n);
        src = tmp + (size_t)me * n;
    }
    rc = kumi_failed(comm, call, kumi_allgather(c->team, tmp, src, n), "kumi_allgather");
    if (rc == MPI_SUCCESS && displs == NULL)
        kmpi_unpack(tmp, (size_t)P * (size_t)recvcount, rt, recvbuf);
    for (int i = 0; rc == MPI_SUCCESS && displs != NULL && i < P; i++)
        kmpi_unpack(tmp + (size_t)i * n, (size_t)recvcount, rt,
                    kmpi_at(recvbuf, (MPI_Aint)displs[i] * rt->extent));
    free(tmp);
    return rc;
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, NULL, NULL, recvtype, comm, NULL);
    static const char       call[] = "MPI_Allgather";
    const struct kmpi_type *st, *rt;
    struct kmpi_comm       *c;
    int                     rc;

    if ((c = chk_comm(call, comm, &rc)) == NULL ||
        (rc = chk_all(call, comm, sendbuf, sendcount, sendtype, &st, recvbuf, recvcount,
                      recvtype, &rt)) != MPI_SUCCESS)
        return rc;
    return native_allgather(call, comm, c, sendbuf, sendcount, st, recvbuf, recvcount, NULL, rt);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_allgather("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, 0,
                                    recvcounts, displs, recvtype, comm, NULL);
    static const char       call[] = "MPI_Allgatherv";
    const struct kmpi_type *st, *rt;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_side        send, recv;
    int                     rc, uniform = 1, canonical = 1;

    if ((c = chk_comm(call, comm, &rc)) == NULL ||
        (rc = chk_counts(comm, call, "recvcounts", recvcounts, c->size, "displs", displs)) !=
            MPI_SUCCESS ||
        (rc = chk_all(call, comm, sendbuf, sendcount, sendtype, &st, recvbuf, 0, recvtype,
                      &rt)) != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < c->size; i++) {   /* every rank sees the same counts */
        uniform &= recvcounts[i] == recvcounts[0];
        canonical &= displs[i] == i * recvcounts[0];
    }
    if (uniform)
        return native_allgather(call, comm, c, sendbuf, sendcount, st, recvbuf, recvcounts[0],
                                canonical ? NULL : displs, rt);
    send = side_of(sendbuf, sendcount, NULL, NULL, st);
    recv = side_of(recvbuf, 0, recvcounts, displs, rt);
    kmpi_coll_begin(&k, call, comm, c);
    return kmpi_coll_allgatherv(&k, &send, &recv);
}

/* kumi_alltoall of blocks of recvcount elements of rt; sendbuf may be
 * MPI_IN_PLACE (then recvbuf holds the blocks to send) */
static int native_alltoall(const char *call, MPI_Comm comm, struct kmpi_comm *c,
                           const void *sendbuf, int sendcount, const struct kmpi_type *st,
                           void *recvbuf, int recvcount, const struct kmpi_type *rt)
{
    const size_t   P = (size_t)c->size, n = (size_t)recvcount * rt->size;
    unsigned char *stmp = NULL, *rtmp = NULL;
    const void    *src;
    void          *dst;
    int            rc;

    if (sendbuf != MPI_IN_PLACE && (size_t)sendcount * st->size != n)
        return kmpi_error(comm, MPI_ERR_TRUNCATE, call,
                          "sends %zu bytes per rank but each receive block holds %zu",
                          (size_t)sendcount * st->size, n);
    if (n == 0)
        return MPI_SUCCESS;
    if (sendbuf == MPI_IN_PLACE || !st->contig) {   /* kumi's src and dst must differ */
        if ((stmp = malloc(P * n)) == NULL)
            return out_of_memory(comm, call);
        if (sendbuf == MPI_IN_PLACE)
            kmpi_pack(recvbuf, P * (size_t)recvcount, rt, stmp);
        else
            kmpi_pack(sendbuf, P * (size_t)sendcount, st, stmp);
        src = stmp;
    } else
        src = kmpi_at(sendbuf, st->true_lb);
    if (rt->contig)
        dst = kmpi_at(recvbuf, rt->true_lb);
    else if ((dst = rtmp = malloc(P * n)) == NULL) {
        free(stmp);
        return out_of_memory(comm, call);
    }
    rc = kumi_failed(comm, call, kumi_alltoall(c->team, dst, src, n), "kumi_alltoall");
    if (rc == MPI_SUCCESS && rtmp != NULL)
        kmpi_unpack(rtmp, P * (size_t)recvcount, rt, recvbuf);
    free(rtmp);
    free(stmp);
    return rc;
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_alltoall("MPI_Alltoall", sendbuf, sendcount, NULL, NULL, sendtype, NULL,
                                   recvbuf, recvcount, NULL, NULL, recvtype, NULL, 0, comm, NULL);
    static const char       call[] = "MPI_Alltoall";
    const struct kmpi_type *st, *rt;
    struct kmpi_comm       *c;
    int                     rc;

    if ((c = chk_comm(call, comm, &rc)) == NULL ||
        (rc = chk_all(call, comm, sendbuf, sendcount, sendtype, &st, recvbuf, recvcount,
                      recvtype, &rt)) != MPI_SUCCESS)
        return rc;
    return native_alltoall(call, comm, c, sendbuf, sendcount, st, recvbuf, recvcount, rt);
}

/* counts all equal and displs i * count */
static int uniform_blocks(const int *counts, const int *displs, int P)
{
    for (int i = 0; i < P; i++)
        if (counts[i] != counts[0] || displs[i] != i * counts[0])
            return 0;
    return 1;
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_alltoall("MPI_Alltoallv", sendbuf, 0, sendcounts, sdispls, sendtype, NULL,
                                   recvbuf, 0, recvcounts, rdispls, recvtype, NULL, 0, comm, NULL);
    static const char       call[] = "MPI_Alltoallv";
    const struct kmpi_type *st, *rt;
    struct kmpi_comm       *c;
    struct kmpi_coll        k;
    struct kmpi_side        send, recv;
    int                     rc, inplace = sendbuf == MPI_IN_PLACE, uniform, all;

    if ((c = chk_comm(call, comm, &rc)) == NULL ||
        (!inplace && (rc = chk_counts(comm, call, "sendcounts", sendcounts, c->size, "sdispls",
                                      sdispls)) != MPI_SUCCESS) ||
        (rc = chk_counts(comm, call, "recvcounts", recvcounts, c->size, "rdispls", rdispls)) !=
            MPI_SUCCESS ||
        (rc = chk_all(call, comm, sendbuf, 0, sendtype, &st, recvbuf, 0, recvtype, &rt)) !=
            MPI_SUCCESS)
        return rc;
    /* Uniform on every rank, it is an Alltoall: one small native
     * allreduce tells whether it is (a rank alone cannot know). */
    uniform = uniform_blocks(recvcounts, rdispls, c->size) &&
              (inplace || (uniform_blocks(sendcounts, sdispls, c->size) &&
                           (size_t)sendcounts[0] * st->size == (size_t)recvcounts[0] * rt->size));
    rc = kumi_failed(comm, call,
                     kumi_allreduce(c->team, &all, &uniform, 1, KUMI_INT32, KUMI_MIN),
                     "kumi_allreduce");
    if (rc != MPI_SUCCESS)
        return rc;
    if (all)
        return native_alltoall(call, comm, c, sendbuf, inplace ? 0 : sendcounts[0], st, recvbuf,
                               recvcounts[0], rt);
    send = side_of(sendbuf, 0, sendcounts, sdispls, st);
    recv = side_of(recvbuf, 0, recvcounts, rdispls, rt);
    kmpi_coll_begin(&k, call, comm, c);
    return kmpi_coll_alltoallv(&k, &send, &recv);
}
