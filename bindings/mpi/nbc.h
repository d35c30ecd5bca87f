/*
 * nbc.h -- the schedule engine of the non-blocking collectives (nbc.c),
 * for its users: nbc_coll.c and nbc_red.c (every MPI_I* collective,
 * MPI_Alltoallw) and nbc_nbr.c (the neighborhood collectives).
 *
 * A schedule is a list of steps, built completely when the collective
 * starts and then run by the engine: message steps (send, receive) start
 * non-blocking messages on the communicator's collective context; local
 * steps (copy, pack, unpack, and the reduction steps) run when reached;
 * a wait step ends a round: the steps after it run once every message of
 * the round has completed. So a round's local post-processing is written
 * after its wait. A schedule moves whenever any MPI call polls
 * (kmpi_nbc_progress), so an outstanding collective never waits for its
 * caller to call MPI_Wait on it.
 *
 * Tags: every schedule takes the next number of its communicator's
 * nbc_seq (members start collectives in the same order, so the numbers
 * agree) and its messages carry KMPI_NBC_TAG | (seq << 8) | sub, where
 * sub (0..255) is the builder's: 0 unless one round sends two messages
 * between the same pair. Blocking collectives (coll.c) use tags below
 * KMPI_NBC_TAG, so the two never meet.
 *
 * Building never fails half-way for the caller: an allocation that fails
 * marks the schedule, and kmpi_sched_start/run report MPI_ERR_NO_MEM.
 */
#ifndef KUMI_MPI_NBC_H
#define KUMI_MPI_NBC_H

#include "mpi_int.h"

#define KMPI_NBC_TAG      (1 << 30)
#define KMPI_NBC_SEQ_MASK 0x3fffffu   /* seq bits: 8..29 of the tag */

struct kmpi_sched;

/* A new, empty schedule for call on comm (c = its kmpi_comm); takes the
 * communicator's next sequence number. NULL: out of memory (reported). */
struct kmpi_sched *kmpi_sched_new(const char *call, MPI_Comm comm, struct kmpi_comm *c);
/* Drops s before it started (an argument error found while building):
 * its sequence number is given back. */
void kmpi_sched_discard(struct kmpi_sched *s);
/* Scratch memory freed with the schedule (NULL after an allocation
 * failure, which start/run then report; bytes 0 gives a valid pointer). */
void *kmpi_sched_tmp(struct kmpi_sched *s, size_t bytes);

/* message steps: bytes at buf to/from rank peer of the communicator */
void kmpi_sched_send(struct kmpi_sched *s, const void *buf, size_t bytes, int peer, int sub);
void kmpi_sched_recv(struct kmpi_sched *s, void *buf, size_t bytes, int peer, int sub);
/* the end of a round */
void kmpi_sched_wait(struct kmpi_sched *s);
/* A local step calling fn(s, arg) when reached. fn returns
 * KMPI_SCHED_NEXT to go on, KMPI_SCHED_LATER to be called again at a later
 * progress (nothing after it runs meanwhile), or a position from
 * kmpi_sched_mark (taken while building, right after a wait step or at
 * the start) to run the schedule again from there; kmpi_sched_fail
 * records the collective's error class (the schedule goes on). */
#define KMPI_SCHED_NEXT  (-1)
#define KMPI_SCHED_LATER (-2)
void   kmpi_sched_call(struct kmpi_sched *s, int (*fn)(struct kmpi_sched *s, void *arg),
                       void *arg);
size_t kmpi_sched_mark(const struct kmpi_sched *s);
void   kmpi_sched_fail(struct kmpi_sched *s, int err);
/* nonzero while kumi's own waits (a blocking collective, a team call)
 * move the schedules through the runtime's hook */
extern int kmpi_nbc_in_kumi;
/* local steps */
void kmpi_sched_copy(struct kmpi_sched *s, const void *src, void *dst, size_t bytes);
void kmpi_sched_pack(struct kmpi_sched *s, const void *buf, size_t count,
                     struct kmpi_type *t, void *packed);
void kmpi_sched_unpack(struct kmpi_sched *s, const void *packed, size_t count,
                       struct kmpi_type *t, void *buf);

/* Typed messages: count elements of t at buf travel as count * t->size
 * packed bytes. send_image: the bytes to send (buf itself for a
 * contiguous t, else a temporary filled by a pack step added now).
 * recv_image: where to receive them (buf, or a temporary); recv_finish,
 * added after the round's wait, unpacks a temporary into buf. */
const void *kmpi_sched_send_image(struct kmpi_sched *s, const void *buf, size_t count,
                                  struct kmpi_type *t);
void *kmpi_sched_recv_image(struct kmpi_sched *s, void *buf, size_t count, struct kmpi_type *t);
void  kmpi_sched_recv_finish(struct kmpi_sched *s, const void *image, void *buf, size_t count,
                             struct kmpi_type *t);
/* a local typed copy of count elements (the same type signature: the
 * caller checked that the receive side holds them) */
void kmpi_sched_typed_copy(struct kmpi_sched *s, const void *sbuf, size_t scount,
                           struct kmpi_type *st, void *rbuf, struct kmpi_type *rt);

/* Reductions. kmpi_sched_red sets the schedule's operation (op on count
 * elements of dt, count at most maxcount per step); its operands then live
 * in work buffers of unit bytes an element (kmpi_sched_unit): a C array of
 * the basic type for predefined ops (mpi_int.h's work layout), packed
 * elements of dt for user ops. Work buffers travel as they are. */
void   kmpi_sched_red(struct kmpi_sched *s, MPI_Op op, MPI_Datatype dt, struct kmpi_type *t,
                      size_t maxcount);
size_t kmpi_sched_unit(const struct kmpi_sched *s);
int    kmpi_sched_commutes(const struct kmpi_sched *s);
/* the operation is a predefined one (work buffers are C arrays) */
int    kmpi_sched_predefined(const struct kmpi_sched *s);
/* count elements of dt at buf into work, and back */
void kmpi_sched_red_in(struct kmpi_sched *s, const void *buf, size_t count, void *work);
void kmpi_sched_red_out(struct kmpi_sched *s, const void *work, size_t count, void *buf);
/* inout = in op inout (in is the left operand), count elements of work */
void kmpi_sched_apply(struct kmpi_sched *s, const void *in, void *inout, size_t count);

/* Argument checks shared by the collectives (each reports its error on
 * comm and returns it): a live communicator (request: non-NULL unless
 * blocking), a committed datatype, a count >= 0. */
struct kmpi_comm *kmpi_nbc_comm(const char *call, MPI_Comm comm, MPI_Request *request,
                                int blocking, int *rc);
int kmpi_nbc_type(const char *call, MPI_Comm comm, MPI_Datatype dt, const char *what,
                  struct kmpi_type **t);
int kmpi_nbc_count(const char *call, MPI_Comm comm, int count, const char *what);
/* root a rank of c (else MPI_ERR_ROOT); the MPI_ERR_BUFFER of an
 * MPI_IN_PLACE where it is not allowed ("as recvbuf") */
int kmpi_nbc_root(const char *call, MPI_Comm comm, const struct kmpi_comm *c, int root);
int kmpi_nbc_in_place(const char *call, MPI_Comm comm, const char *what);
/* a datatype's name for messages ("MPI_INT", "a derived datatype") */
const char *kmpi_nbc_type_name(const struct kmpi_type *t);

/* One side of a data movement to or from many peers: block i is
 * counts[i] (or count) elements of types[i] (or t) at buf + displs[i]
 * extents (or i * count extents), or at buf + bdispls[i] / adispls[i]
 * bytes; same: every block is buf itself (neighbor allgather's send). */
struct kmpi_nbc_side {
    const void        *buf;
    int                count, same;
    const int         *counts;
    const int         *displs;
    const int         *bdispls;
    const MPI_Aint    *adispls;
    struct kmpi_type  *t;
    struct kmpi_type **types;
};
static inline size_t kmpi_side_count(const struct kmpi_nbc_side *d, int i)
{
    return (size_t)(d->counts != NULL ? d->counts[i] : d->count);
}
static inline struct kmpi_type *kmpi_side_type(const struct kmpi_nbc_side *d, int i)
{
    return d->types != NULL ? d->types[i] : d->t;
}
static inline void *kmpi_side_block(const struct kmpi_nbc_side *d, int i)
{
    if (d->same)
        return (void *)d->buf;
    if (d->bdispls != NULL)
        return kmpi_at(d->buf, d->bdispls[i]);
    if (d->adispls != NULL)
        return kmpi_at(d->buf, d->adispls[i]);
    MPI_Aint disp = d->displs != NULL ? d->displs[i] : (MPI_Aint)i * d->count;
    return kmpi_at(d->buf, disp * kmpi_side_type(d, i)->extent);
}
static inline size_t kmpi_side_bytes(const struct kmpi_nbc_side *d, int i)
{
    return kmpi_side_count(d, i) * kmpi_side_type(d, i)->size;
}
/* Checks a side's n blocks for call (what: "send"/"recv"): counts >= 0,
 * types committed (types[] are handles, converted into *d's own array,
 * allocated in s). */
int kmpi_nbc_side_check(const char *call, MPI_Comm comm, struct kmpi_sched *s,
                        struct kmpi_nbc_side *d, int n, const MPI_Datatype *handles,
                        const char *what);

/* Starts s as a request (*request); s belongs to the engine from here.
 * MPI_SUCCESS, or the error reported on the schedule's communicator. */
int kmpi_sched_start(struct kmpi_sched *s, MPI_Request *request);
/* The blocking form: runs s to its end (other schedules move meanwhile),
 * frees it; MPI_SUCCESS or the error reported. */
int kmpi_sched_run(struct kmpi_sched *s);
/* kmpi_sched_start with a request, kmpi_sched_run without (NULL) */
int kmpi_sched_go(struct kmpi_sched *s, MPI_Request *request);

#endif /* KUMI_MPI_NBC_H */
