/*
 * mpi_int.h -- libkumi-mpi's internal interface, shared by its files:
 * init.c (environment), errh.c (errors and error handlers), comm.c
 * (communicators), datatype.c (the datatype engine), p2p.c and req.c
 * (point to point, requests), coll.c (collectives), op.c (reduction
 * operations).
 *
 * Layering: uses the public kumi.h (teams, collectives, two-sided
 * messages) and the messaging layer's internal entry points (msg/msg.h:
 * a context so that collective traffic never matches a user's receive,
 * synchronous sends). Never the transport.
 */
#ifndef KUMI_MPI_INT_H
#define KUMI_MPI_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kumi.h"
#include "mpi.h"

/* ------------------------------------------------------------ errors
 * Every MPI_ call that fails goes through kmpi_error: it formats one line
 * "kumi-mpi[rank]: MPI_Call: what (where)", then applies the
 * communicator's error handler (ERRORS_ARE_FATAL: print, end the job with
 * status 1 as MPI_Abort does; ERRORS_RETURN: print nothing unless
 * KUMI_MPI_VERBOSE, return code; a user handler: call it) and returns
 * code. comm may be MPI_COMM_NULL (then MPI_COMM_WORLD's handler). */
int kmpi_error(MPI_Comm comm, int code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* the MPI error class of a kumi return code (KUMI_ERR_INVALID -> ARG,
 * KUMI_ERR_TRUNCATE -> TRUNCATE, KUMI_ERR_PEER -> PROC_FAILED, ...) */
int kmpi_from_kumi(int kumi_rc);
/* MPI_ERR_OTHER... unless MPI_Init ran and MPI_Finalize did not: the
 * check every call makes first (MPI_Initialized etc. excepted) */
int kmpi_check_live(const char *call);

/* ------------------------------------------------------------ communicators */
struct kmpi_comm {
    kumi_team_t team;         /* its members; the native collectives run on it */
    int         rank, size;
    MPI_Errhandler errh;
    char        name[MPI_MAX_OBJECT_NAME];
};
/* NULL when c is not a live communicator (the caller reports MPI_ERR_COMM) */
struct kmpi_comm *kmpi_comm(MPI_Comm c);

/* Collective traffic on comm's own context: never matches a user's
 * send, receive or probe on the same communicator. Completed with
 * kumi_wait/kumi_waitall like any kumi request. rank: rank in comm. */
int kmpi_coll_isend(const void *buf, size_t bytes, int rank, int tag, struct kmpi_comm *c,
                    kumi_request_t *req);
int kmpi_coll_irecv(void *buf, size_t bytes, int rank, int tag, struct kmpi_comm *c,
                    kumi_request_t *req);

/* ------------------------------------------------------------ datatypes
 * The basic (predefined, element) types: one per KMPI_PREDEFINED_TYPES
 * entry, with the handle's value as id (1..38). */
#define KMPI_BASIC_MAX 39

struct kmpi_type {
    size_t   size;            /* bytes of data in one element (MPI_Type_size)   */
    MPI_Aint lb, extent;      /* MPI_Type_get_extent                            */
    MPI_Aint true_lb, true_extent;
    int      contig;          /* one element = size contiguous bytes at lb,
                                 extent == size: count elements are one block */
    int      basic;           /* the one predefined type all its data are made
                                 of (an op applies to count * nbasic of them),
                                 or 0 when it mixes types                      */
    size_t   nbasic;          /* how many of basic one element holds            */
    int      predefined;
    int      committed;       /* predefined types are committed                 */
    int      refs;            /* derived: kept alive while others are built on it */
    char     name[MPI_MAX_OBJECT_NAME];
    /* derived: the type map, flattened (datatype.c's own) */
    void    *map;
};
/* NULL when t is not a datatype (MPI_ERR_TYPE) */
struct kmpi_type *kmpi_type(MPI_Datatype t);
/* count elements of t at inbuf into packed (count * t->size bytes), and
 * back. Contiguous types are one memcpy. */
void kmpi_pack(const void *inbuf, size_t count, const struct kmpi_type *t, void *packed);
void kmpi_unpack(const void *packed, size_t count, const struct kmpi_type *t, void *outbuf);
/* bytes of the predefined basic type id (1..38) */
size_t kmpi_basic_size(int basic);

/* ------------------------------------------------------------ operations (op.c) */
struct kmpi_op {
    int                predefined;  /* MPI_MAX .. MPI_NO_OP, or 0 (user)    */
    int                commute;
    MPI_User_function *fn;          /* user                                  */
};
struct kmpi_op *kmpi_op(MPI_Op op);  /* NULL: not an operation (MPI_ERR_OP) */
/* inout[i] = in[i] op inout[i] for n elements of basic type `basic`;
 * MPI_ERR_OP when the pair is not defined by MPI (e.g. BAND on double),
 * else MPI_SUCCESS */
int kmpi_op_apply_basic(int op, int basic, const void *in, void *inout, size_t n);
/* the same for count elements of datatype dt (user ops get the handle) */
int kmpi_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, int count);
/* the kumi collectives' type/op for (basic, op), or -1 when kumi_allreduce
 * cannot do it (then the binding combines itself) */
int kmpi_kumi_type(int basic);
int kmpi_kumi_op(MPI_Op op);

#endif /* KUMI_MPI_INT_H */
