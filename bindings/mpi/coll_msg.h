/*
 * coll_msg.h -- the collectives' algorithms over messages (coll_msg.c),
 * for coll.c: what kumi's native collectives cannot do (gather/scatter,
 * the v-variants, reductions with user ops or MAXLOC/MINLOC, scans) runs
 * on collective-context messages (kmpi_coll_isend/irecv), so it never
 * meets a user's point-to-point traffic.
 *
 * Tags: each call that sends messages takes the next number of its
 * communicator's coll_seq (the same on every member, as every member makes
 * the same collective calls in the same order and takes the same path), and
 * its messages carry tag (seq mod 2^22) << 8 | step, below 1 << 30 (the
 * non-blocking collectives' tags, nbc.h, lie above). Within one call every
 * ordered pair of ranks exchanges at most one message per step, so no
 * message can meet a receive of another call or of another step.
 *
 * Every function returns MPI_SUCCESS or an MPI error class it has reported
 * through kmpi_error on the call's communicator; temporary buffers are
 * freed on every path, and a failed call still waits for the messages it
 * started.
 */
#ifndef KUMI_MPI_COLL_MSG_H
#define KUMI_MPI_COLL_MSG_H

#include "mpi_int.h"

/* one collective call */
struct kmpi_coll {
    const char       *call;
    MPI_Comm          comm;
    struct kmpi_comm *c;
    unsigned          seq;
};
/* takes the call's tag number from c->coll_seq */
void kmpi_coll_begin(struct kmpi_coll *k, const char *call, MPI_Comm comm, struct kmpi_comm *c);

/* A reduction's operands. Predefined ops work on the work layout of
 * mpi_int.h (a C array of the basic type: unit bytes per element of dt);
 * user ops on dt's own layout, as MPI hands them to the function: a buffer
 * of n elements spans span(n) bytes from its pointer + lb (true_lb). */
struct kmpi_red {
    MPI_Op                  op;
    MPI_Datatype            dt;
    const struct kmpi_type *t;
    const struct kmpi_op   *o;
    int                     user;
    size_t                  unit;
    MPI_Aint                lb;
};
void kmpi_red_init(struct kmpi_red *r, MPI_Op op, MPI_Datatype dt);

/* out: significant at root only (reduce), on every rank otherwise; in is
 * the caller's send buffer (or recvbuf for MPI_IN_PLACE), in dt's layout. */
int kmpi_coll_reduce(struct kmpi_coll *k, const struct kmpi_red *r, const void *in, void *out,
                     size_t count, int root);
int kmpi_coll_allreduce(struct kmpi_coll *k, const struct kmpi_red *r, const void *in,
                        void *out, size_t count);
/* counts[i] elements for rank i (counts NULL: count each); in holds them
 * all in rank order */
int kmpi_coll_reduce_scatter(struct kmpi_coll *k, const struct kmpi_red *r, const void *in,
                             void *out, const int *counts, int count);
/* exclusive: MPI_Exscan (out untouched at rank 0) */
int kmpi_coll_scan(struct kmpi_coll *k, const struct kmpi_red *r, const void *in, void *out,
                   size_t count, int exclusive);

/* A side of a data movement: count elements of t at buf, or per rank
 * counts[i] elements at displs[i] extents (counts NULL: count each, rank i
 * at i * count). */
struct kmpi_side {
    const void             *buf;
    int                     count;
    const int              *counts, *displs;
    const struct kmpi_type *t;
};
/* recv at root only; send.buf MPI_IN_PLACE at root: its block is in place */
int kmpi_coll_gatherv(struct kmpi_coll *k, const struct kmpi_side *send,
                      const struct kmpi_side *recv, int root);
/* send at root only; recv.buf MPI_IN_PLACE at root: its block stays */
int kmpi_coll_scatterv(struct kmpi_coll *k, const struct kmpi_side *send,
                       const struct kmpi_side *recv, int root);
/* send.buf MPI_IN_PLACE: my block is in recv already */
int kmpi_coll_allgatherv(struct kmpi_coll *k, const struct kmpi_side *send,
                         const struct kmpi_side *recv);
/* send.buf MPI_IN_PLACE: recv holds what is sent, with recv's layout */
int kmpi_coll_alltoallv(struct kmpi_coll *k, const struct kmpi_side *send,
                        const struct kmpi_side *recv);

/* a local typed copy: scount elements of st at sbuf into rbuf as rt;
 * MPI_ERR_TRUNCATE when they do not fit in rcount elements of rt,
 * MPI_ERR_NO_MEM; not reported */
int kmpi_coll_copy(const void *sbuf, size_t scount, const struct kmpi_type *st, void *rbuf,
                   size_t rcount, const struct kmpi_type *rt);

#endif /* KUMI_MPI_COLL_MSG_H */
