/*
 * pmpi_wrap.c -- the profiling interface (MPI-3.1 14.2) as a tool uses
 * it: this program defines MPI_Init, MPI_Send, MPI_Comm_dup and
 * MPI_Finalize itself, each counting its calls and passing on to the
 * PMPI_ name. The wrappers must be the ones called (the library's MPI_
 * names are weak), the real work must still happen (a ring of MPI_Send,
 * checked values), and the library's own calls must not reach them
 * (MPI_Sendrecv and MPI_Comm_dup_with_info send and dup without calling
 * MPI_Send or MPI_Comm_dup). Rank 0 prints the counts; Open MPI 4.1
 * prints the same lines (its MPI_Sendrecv and MPI_Comm_dup_with_info do
 * not call the MPI_ names either).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int n_init, n_send, n_dup, n_finalize;

int MPI_Init(int *argc, char ***argv)
{
    n_init++;
    return PMPI_Init(argc, argv);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm)
{
    n_send++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    n_dup++;
    return PMPI_Comm_dup(comm, newcomm);
}

int MPI_Finalize(void)
{
    n_finalize++;
    return PMPI_Finalize();
}

#define FAIL(...)                                                       \
    do {                                                                \
        fprintf(stderr, "pmpi_wrap: " __VA_ARGS__);                     \
        fputc('\n', stderr);                                            \
        MPI_Abort(MPI_COMM_WORLD, 3);                                   \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n_init != 1)
        FAIL("MPI_Init wrapper called %d times", n_init);

    /* a ring of 5 rounds through the wrapper: the data must arrive */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < 5; round++) {
        int out[64], in[64];
        for (int i = 0; i < 64; i++)
            out[i] = rank * 1000 + round * 64 + i;
        if (rank % 2 == 0) {
            MPI_Send(out, 64, MPI_INT, right, round, MPI_COMM_WORLD);
            MPI_Recv(in, 64, MPI_INT, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 64, MPI_INT, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, 64, MPI_INT, right, round, MPI_COMM_WORLD);
        }
        for (int i = 0; i < 64; i++)
            if (in[i] != left * 1000 + round * 64 + i)
                FAIL("round %d: in[%d] = %d", round, i, in[i]);
    }
    /* the library's own sends and dups do not go through the wrappers */
    int x = rank, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, right, 9, &y, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (y != left)
        FAIL("MPI_Sendrecv got %d", y);
    MPI_Comm c1, c2;
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c2);
    MPI_Bcast(&x, 1, MPI_INT, 0, c2);
    if (x != 0)
        FAIL("MPI_Bcast on the dup gave %d", x);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    /* calling PMPI_ directly bypasses the wrapper */
    if (size > 1 && rank == 0)
        PMPI_Send(&x, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
    if (size > 1 && rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    int counts[3] = { n_init, n_send, n_dup }, all[3];
    MPI_Allreduce(counts, all, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("size %d: MPI_Init %d, MPI_Send %d, MPI_Comm_dup %d (sums over ranks)\n", size,
               all[0], all[1], all[2]);
    if (all[0] != size || all[1] != 5 * size || all[2] != size)
        FAIL("wrong counts");
    MPI_Finalize();
    if (n_finalize != 1)
        FAIL("MPI_Finalize wrapper called %d times", n_finalize);
    if (rank == 0)
        printf("MPI_Finalize 1\n");
    return 0;
}
