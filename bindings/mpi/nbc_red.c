/*
 * nbc_red.c -- the non-blocking reductions as schedules of nbc.c:
 * MPI_Ireduce, MPI_Iallreduce, MPI_Ireduce_scatter(_block), MPI_Iscan,
 * MPI_Iexscan.
 *
 * Algorithms (p ranks):
 *   reduce          binomial tree; a non-commutative op is combined in
 *                   rank order (tree rooted at 0, then 0 -> root)
 *   allreduce       recursive doubling (the ranks above a power of two
 *                   fold into their neighbours first); rank order kept
 *   reduce_scatter  the reduction to rank 0, then its blocks scattered
 *   scan, exscan    recursive doubling on partial results
 * Operands live in the work buffers of nbc.h (kmpi_sched_red): what
 * travels is the work buffer itself.
 */
#include "coll_inter.h"
#include "nbc.h"

static int red_check(const char *call, MPI_Comm comm, int count, MPI_Datatype dt, MPI_Op op,
                     struct kmpi_type **t)
{
    int rc;

    if ((rc = kmpi_nbc_count(call, comm, count, "count")) != MPI_SUCCESS
        || (rc = kmpi_nbc_type(call, comm, dt, "datatype", t)) != MPI_SUCCESS)
        return rc;
    return kmpi_op_check(comm, call, op, dt);
}

/* The binomial-tree reduction of count elements of src (in the user's
 * layout) to rank root. Returns the work buffer that holds the result at
 * the root (NULL elsewhere). A non-commutative op combines in rank order:
 * a subtree of the tree rooted at 0 holds consecutive ranks, and a node's
 * own range comes before its child's. */
static void *reduce_build(struct kmpi_sched *s, const void *src, size_t count, int root, int p,
                          int me)
{
    size_t bytes = count * kmpi_sched_unit(s);
    int    commute = kmpi_sched_commutes(s);
    int    troot = commute ? root : 0, vr = (me - troot + p) % p;
    void  *acc = kmpi_sched_tmp(s, bytes), *in = kmpi_sched_tmp(s, bytes), *x;

    kmpi_sched_red_in(s, src, count, acc);
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            kmpi_sched_send(s, acc, bytes, (vr - mask + troot) % p, 0);
            kmpi_sched_wait(s);
            break;
        }
        if (vr + mask >= p)
            continue;
        kmpi_sched_recv(s, in, bytes, (vr + mask + troot) % p, 0);
        kmpi_sched_wait(s);
        if (commute) {
            kmpi_sched_apply(s, in, acc, count);
        } else {   /* acc op child: the result lands in the child's buffer */
            kmpi_sched_apply(s, acc, in, count);
            x = acc, acc = in, in = x;
        }
    }
    if (troot == root)
        return me == root ? acc : NULL;
    if (me == 0) {
        kmpi_sched_send(s, acc, bytes, root, 1);
        kmpi_sched_wait(s);
        return NULL;
    }
    if (me == root) {
        kmpi_sched_recv(s, acc, bytes, 0, 1);
        kmpi_sched_wait(s);
        return acc;
    }
    return NULL;
}

static int ireduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    int                rc;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type  *t;
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((rc = red_check(call, comm, count, datatype, op, &t)) != MPI_SUCCESS
        || (rc = kmpi_nbc_root(call, comm, c, root)) != MPI_SUCCESS)
        return rc;
    if (sendbuf == MPI_IN_PLACE && c->rank != root)
        return kmpi_nbc_in_place(call, comm, "as sendbuf but at the root");
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_sched_red(s, op, datatype, t, (size_t)count);
    if (count > 0) {
        const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
        void       *res = reduce_build(s, src, (size_t)count, root, c->size, c->rank);
        if (c->rank == root)
            kmpi_sched_red_out(s, res, (size_t)count, recvbuf);
    }
    return kmpi_sched_go(s, request);
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                                 request);
    return ireduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

/* Recursive doubling. With p not a power of two, the first 2 * rem ranks
 * pair up: the even one hands its data to the odd one and sits out. The
 * rest are numbered nr = 0 .. pof2-1 in rank order; at each step a rank
 * combines with nr ^ mask, the lower range on the left. */
static void allreduce_build(struct kmpi_sched *s, const void *src, void *recvbuf, size_t count,
                            int p, int me)
{
    size_t bytes = count * kmpi_sched_unit(s);
    int    commute = kmpi_sched_commutes(s), pof2 = 1, rem, nr;
    void  *acc = kmpi_sched_tmp(s, bytes), *in = kmpi_sched_tmp(s, bytes), *x;

    kmpi_sched_red_in(s, src, count, acc);
    while (pof2 * 2 <= p)
        pof2 *= 2;
    rem = p - pof2;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            kmpi_sched_send(s, acc, bytes, me + 1, 0);
            kmpi_sched_wait(s);
            nr = -1;
        } else {
            kmpi_sched_recv(s, in, bytes, me - 1, 0);
            kmpi_sched_wait(s);
            kmpi_sched_apply(s, in, acc, count);
            nr = me / 2;
        }
    } else {
        nr = me - rem;
    }
    for (int mask = 1, k = 1; nr >= 0 && mask < pof2; mask <<= 1, k++) {
        int np = nr ^ mask, peer = np < rem ? 2 * np + 1 : np + rem;
        kmpi_sched_send(s, acc, bytes, peer, k);
        kmpi_sched_recv(s, in, bytes, peer, k);
        kmpi_sched_wait(s);
        if (commute || np < nr) {
            kmpi_sched_apply(s, in, acc, count);
        } else {
            kmpi_sched_apply(s, acc, in, count);
            x = acc, acc = in, in = x;
        }
    }
    if (me < 2 * rem) {
        if (me % 2 == 1)
            kmpi_sched_send(s, acc, bytes, me - 1, 255);
        else
            kmpi_sched_recv(s, acc, bytes, me + 1, 255);
        kmpi_sched_wait(s);
    }
    kmpi_sched_red_out(s, acc, count, recvbuf);
}

/* Large vectors (at least KMPI_NBC_RSAG_MIN bytes) of a commutative
 * predefined op on a type whose buffers already are the work layout (a C
 * array of its basic type, no padding): Rabenseifner's reduce-scatter by
 * recursive halving, then an allgather by recursive doubling, straight
 * on the caller's buffers. Each rank combines only its 1/pof2 of the
 * vector, sends and receives about twice the vector's bytes in all
 * (recursive doubling: log2(p) whole vectors), and nothing passes through
 * work copies: the first halving step sends from sendbuf and receives
 * into recvbuf, where the sum is formed. Every element is combined by
 * one rank and then copied, so every rank ends with the same bits. The
 * ranks above a power of two fold into their neighbours first, as in
 * allreduce_build. At 2 PEs, 1 MiB: 2 x 512 KiB received per rank and
 * 512 KiB combined, against 1 MiB received, 1 MiB combined and two 1 MiB
 * work copies (bindings/mpi/README.md). */
#define KMPI_NBC_RSAG_MIN ((size_t)64 << 10)
#define KMPI_NBC_RSAG_LEVELS 32

static int allreduce_direct_ok(const struct kmpi_sched *s, const struct kmpi_type *t,
                               size_t count, int p)
{
    size_t unit = kmpi_sched_unit(s);

    return p > 1 && kmpi_sched_commutes(s) && kmpi_sched_predefined(s)
           && kmpi_work_direct(t) && unit == t->size && (MPI_Aint)unit == t->true_extent
           && unit == (size_t)t->extent && count >= (size_t)p
           && count * unit >= KMPI_NBC_RSAG_MIN;
}

static void allreduce_direct_build(struct kmpi_sched *s, const void *src, void *dst,
                                   size_t count, int p, int me, int in_place)
{
    size_t  unit = kmpi_sched_unit(s), lo = 0, hi = count;
    size_t  los[KMPI_NBC_RSAG_LEVELS], his[KMPI_NBC_RSAG_LEVELS], mids[KMPI_NBC_RSAG_LEVELS];
    int     pof2 = 1, rem, nr, levels = 0, ready = in_place;   /* dst holds my partial */
    char   *r = dst;
    const char *x = src;
    void   *tmp;

    while (pof2 * 2 <= p)
        pof2 *= 2;
    rem = p - pof2;
    if (me < 2 * rem) {
        if (me % 2 == 0) {   /* hand everything to me + 1, take the result back */
            kmpi_sched_send(s, x, count * unit, me + 1, 0);
            kmpi_sched_wait(s);
            kmpi_sched_recv(s, r, count * unit, me + 1, 255);
            kmpi_sched_wait(s);
            return;
        }
        if (in_place) {   /* dst holds mine: the neighbour's comes through tmp */
            tmp = kmpi_sched_tmp(s, count * unit);
            kmpi_sched_recv(s, tmp, count * unit, me - 1, 0);
            kmpi_sched_wait(s);
            kmpi_sched_apply(s, tmp, r, count);
        } else {
            kmpi_sched_recv(s, r, count * unit, me - 1, 0);
            kmpi_sched_wait(s);
            kmpi_sched_apply(s, x, r, count);
        }
        ready = 1;
        nr = me / 2;
    } else {
        nr = me - rem;
    }
    tmp = kmpi_sched_tmp(s, (count / 2 + 1) * unit);
    /* reduce-scatter: at each level keep the half my bit of nr names */
    for (int mask = pof2 / 2, k = 1; mask > 0; mask /= 2, k++) {
        int    np = nr ^ mask, peer = np < rem ? 2 * np + 1 : np + rem;
        size_t mid = lo + (hi - lo) / 2, klo, khi, slo, shi;
        if (nr & mask)
            klo = mid, khi = hi, slo = lo, shi = mid;
        else
            klo = lo, khi = mid, slo = mid, shi = hi;
        los[levels] = lo, his[levels] = hi, mids[levels] = mid, levels++;
        kmpi_sched_send(s, (ready ? r : x) + slo * unit, (shi - slo) * unit, peer, k);
        if (ready) {
            kmpi_sched_recv(s, tmp, (khi - klo) * unit, peer, k);
            kmpi_sched_wait(s);
            kmpi_sched_apply(s, tmp, r + klo * unit, khi - klo);
        } else {   /* the first step: the peer's part lands in dst, mine joins it */
            kmpi_sched_recv(s, r + klo * unit, (khi - klo) * unit, peer, k);
            kmpi_sched_wait(s);
            kmpi_sched_apply(s, x + klo * unit, r + klo * unit, khi - klo);
            ready = 1;
        }
        lo = klo, hi = khi;
    }
    /* allgather: the levels in reverse, each time my range grows by the peer's */
    for (int mask = 1, k = 64; mask < pof2; mask *= 2, k++) {
        int    np = nr ^ mask, peer = np < rem ? 2 * np + 1 : np + rem;
        int    l = --levels;
        size_t plo = (nr & mask) ? los[l] : mids[l], phi = (nr & mask) ? mids[l] : his[l];
        kmpi_sched_send(s, r + lo * unit, (hi - lo) * unit, peer, k);
        kmpi_sched_recv(s, r + plo * unit, (phi - plo) * unit, peer, k);
        kmpi_sched_wait(s);
        lo = los[l], hi = his[l];
    }
    if (me < 2 * rem) {   /* odd: the whole result back to me - 1 */
        kmpi_sched_send(s, r, count * unit, me - 1, 255);
        kmpi_sched_wait(s);
    }
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm,
                                    request);
    static const char  call[] = "MPI_Iallreduce";
    int                rc;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type  *t;
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((rc = red_check(call, comm, count, datatype, op, &t)) != MPI_SUCCESS)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return kmpi_nbc_in_place(call, comm, "as recvbuf");
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_sched_red(s, op, datatype, t, (size_t)count);
    if (count > 0 && allreduce_direct_ok(s, t, (size_t)count, c->size))
        allreduce_direct_build(s, kmpi_at(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, t->true_lb),
                               kmpi_at(recvbuf, t->true_lb), (size_t)count, c->size, c->rank,
                               sendbuf == MPI_IN_PLACE);
    else if (count > 0)
        allreduce_build(s, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, (size_t)count,
                        c->size, c->rank);
    return kmpi_sched_go(s, request);
}

/* counts[i] elements for rank i: the reduction of the whole vector to
 * rank 0, which sends each rank its part */
static int ireduce_scatter(const char *call, const void *sendbuf, void *recvbuf,
                           const int *counts, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, MPI_Request *request)
{
    int                rc, p, me;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type  *t;
    struct kmpi_sched *s;
    size_t             total = 0;

    if (c == NULL)
        return rc;
    p  = c->size;
    me = c->rank;
    if (counts == NULL && count < 0)
        return kmpi_nbc_count(call, comm, count, "recvcount");
    if (counts == NULL && count >= 0)
        total = (size_t)count * (size_t)p;
    for (int i = 0; counts != NULL && i < p; i++) {
        if (counts[i] < 0)
            return kmpi_error(comm, MPI_ERR_COUNT, call, "recvcounts[%d] = %d is negative", i,
                              counts[i]);
        total += (size_t)counts[i];
    }
    if (total > (size_t)INT32_MAX)
        return kmpi_error(comm, MPI_ERR_COUNT, call, "the counts add up to %zu elements, more "
                          "than an int holds", total);
    if ((rc = red_check(call, comm, (int)total, datatype, op, &t)) != MPI_SUCCESS)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return kmpi_nbc_in_place(call, comm, "as recvbuf");
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_sched_red(s, op, datatype, t, total);
    if (total > 0) {
        size_t unit = kmpi_sched_unit(s), mine = counts ? (size_t)counts[me] : (size_t)count;
        void  *res = reduce_build(s, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total, 0, p,
                                  me);
        if (me == 0) {
            size_t off = 0;
            for (int i = 0; i < p; i++) {
                size_t n = counts ? (size_t)counts[i] : (size_t)count;
                if (i == 0)
                    kmpi_sched_red_out(s, res, n, recvbuf);
                else if (n > 0)
                    kmpi_sched_send(s, kmpi_at(res, (MPI_Aint)(off * unit)), n * unit, i, 2);
                off += n;
            }
            kmpi_sched_wait(s);
        } else if (mine > 0) {
            void *w = kmpi_sched_tmp(s, mine * unit);
            kmpi_sched_recv(s, w, mine * unit, 0, 2);
            kmpi_sched_wait(s);
            kmpi_sched_red_out(s, w, mine, recvbuf);
        }
    }
    return kmpi_sched_go(s, request);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, 0, recvcounts,
                                         datatype, op, comm, request);
    static const char call[] = "MPI_Ireduce_scatter";

    if (recvcounts == NULL && kmpi_live(call) == MPI_SUCCESS)
        return kmpi_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    return ireduce_scatter(call, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_icoll_reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount,
                                         NULL, datatype, op, comm, request);
    return ireduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, NULL, recvcount,
                           datatype, op, comm, request);
}

/* Recursive doubling on partial results: after the step of mask, part
 * holds the reduction of the aligned block of 2 * mask ranks around me
 * (those that exist), res that of the ranks of it below me (and me,
 * inclusive). A partner beyond p has nothing to give. */
static void scan_build(struct kmpi_sched *s, const void *src, void *recvbuf, size_t count,
                       int exclusive, int p, int me)
{
    size_t bytes = count * kmpi_sched_unit(s);
    int    commute = kmpi_sched_commutes(s), have = !exclusive, k = 0;
    void  *part = kmpi_sched_tmp(s, bytes), *in = kmpi_sched_tmp(s, bytes);
    void  *res = kmpi_sched_tmp(s, bytes), *x;

    kmpi_sched_red_in(s, src, count, part);
    if (!exclusive)
        kmpi_sched_copy(s, part, res, bytes);
    for (int mask = 1; mask < p; mask <<= 1, k++) {
        int peer = me ^ mask;
        if (peer >= p)
            continue;
        kmpi_sched_send(s, part, bytes, peer, k);
        kmpi_sched_recv(s, in, bytes, peer, k);
        kmpi_sched_wait(s);
        if (peer < me) {   /* in: the ranks just below my block's half */
            if (have)
                kmpi_sched_apply(s, in, res, count);
            else
                kmpi_sched_copy(s, in, res, bytes);
            have = 1;
            kmpi_sched_apply(s, in, part, count);
        } else if (commute) {
            kmpi_sched_apply(s, in, part, count);
        } else {
            kmpi_sched_apply(s, part, in, count);
            x = part, part = in, in = x;
        }
    }
    if (have)
        kmpi_sched_red_out(s, res, count, recvbuf);
}

static int iscan(const char *call, const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                 int exclusive)
{
    int                rc;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, 0, &rc);
    struct kmpi_type  *t;
    struct kmpi_sched *s;

    if (c == NULL)
        return rc;
    if ((rc = red_check(call, comm, count, datatype, op, &t)) != MPI_SUCCESS)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return kmpi_nbc_in_place(call, comm, "as recvbuf");
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_sched_red(s, op, datatype, t, (size_t)count);
    if (count > 0)
        scan_build(s, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, (size_t)count,
                   exclusive, c->size, c->rank);
    return kmpi_sched_go(s, request);
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_inter_refuse("MPI_Iscan", comm);
    return iscan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, request, 0);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    if (kmpi_is_inter(comm))
        return kmpi_inter_refuse("MPI_Iexscan", comm);
    return iscan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, request, 1);
}

