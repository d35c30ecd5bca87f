/*
 * coll_inter.h -- the collectives on intercommunicators (coll_inter.c),
 * for the entry points in coll.c, nbc_coll.c and nbc_red.c: each checks
 * kmpi_is_inter(comm) first and hands an intercommunicator over here.
 * request NULL: the blocking form (the call runs to its end).
 */
#ifndef KUMI_MPI_COLL_INTER_H
#define KUMI_MPI_COLL_INTER_H

#include "mpi_int.h"

static inline int kmpi_is_inter(MPI_Comm comm)
{
    struct kmpi_comm *c = kmpi_comm_fast(comm);
    return c != NULL && c->inter != 0;
}

int kmpi_icoll_barrier(const char *call, MPI_Comm comm, MPI_Request *request);
int kmpi_icoll_bcast(const char *call, void *buf, int count, MPI_Datatype dt, int root,
                     MPI_Comm comm, MPI_Request *request);
/* recvcounts/displs NULL: the same recvcount for every block */
int kmpi_icoll_gather(const char *call, const void *sendbuf, int sendcount, MPI_Datatype st,
                      void *recvbuf, int recvcount, const int *recvcounts, const int *displs,
                      MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request);
int kmpi_icoll_scatter(const char *call, const void *sendbuf, int sendcount,
                       const int *sendcounts, const int *displs, MPI_Datatype st,
                       void *recvbuf, int recvcount, MPI_Datatype rt, int root, MPI_Comm comm,
                       MPI_Request *request);
int kmpi_icoll_allgather(const char *call, const void *sendbuf, int sendcount, MPI_Datatype st,
                         void *recvbuf, int recvcount, const int *recvcounts,
                         const int *displs, MPI_Datatype rt, MPI_Comm comm,
                         MPI_Request *request);
/* w: counts, byte displacements and types per block; v: counts and
 * displacements in extents; else one count and type */
int kmpi_icoll_alltoall(const char *call, const void *sendbuf, int sendcount,
                        const int *sendcounts, const int *sdispls, MPI_Datatype st,
                        const MPI_Datatype *sts, void *recvbuf, int recvcount,
                        const int *recvcounts, const int *rdispls, MPI_Datatype rt,
                        const MPI_Datatype *rts, int w, MPI_Comm comm, MPI_Request *request);
int kmpi_icoll_reduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                      MPI_Request *request);
int kmpi_icoll_allreduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request);
/* recvcounts NULL: recvcount for every local rank (the _block form) */
int kmpi_icoll_reduce_scatter(const char *call, const void *sendbuf, void *recvbuf,
                              int recvcount, const int *recvcounts, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request);

#endif /* KUMI_MPI_COLL_INTER_H */
