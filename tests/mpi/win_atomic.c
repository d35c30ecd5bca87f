/*
 * win_atomic.c -- accumulates are atomic under contention: every rank
 * hammers rank 0's counters with MPI_Fetch_and_op (each fetched value
 * must be unique: a ticket), MPI_Accumulate of a multi-element vector
 * (no element lost) and MPI_Compare_and_swap increments, all under
 * MPI_Win_lock_all; then the totals are checked. ITERS from argv[1].
 */
#include "win_util.h"

#define V 16

int main(int argc, char **argv)
{
    MPI_Win win;
    long   *mem;
    int     iters = argc > 1 ? atoi(argv[1]) : 200;

    t_init(&argc, &argv);
    MPI_OK(MPI_Win_allocate((3 + V) * (int)sizeof(long), sizeof(long), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, (3 + V) * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    long *tickets = calloc((size_t)iters, sizeof(long)), one = 1, vec[V];
    for (int i = 0; i < V; i++)
        vec[i] = i + 1;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < iters; k++) {
        MPI_OK(MPI_Fetch_and_op(&one, &tickets[k], MPI_LONG, 0, 0, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(vec, V, MPI_LONG, 0, 3, V, MPI_LONG, MPI_SUM, win));
        if (k % 4 == 0) {   /* CAS increments until they land */
            long cur = 0, nv, res;
            for (;;) {
                nv = cur + 1;
                MPI_OK(MPI_Compare_and_swap(&nv, &cur, &res, MPI_LONG, 0, 1, win));
                MPI_OK(MPI_Win_flush(0, win));
                if (res == cur)
                    break;
                cur = res;
            }
        }
        MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    /* every ticket was handed out once */
    long *all = t_rank == 0 ? malloc((size_t)iters * t_size * sizeof(long)) : NULL;
    MPI_Gather(tickets, iters, MPI_LONG, all, iters, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        long n = (long)iters * t_size;
        char *seen = calloc((size_t)n, 1);
        for (long i = 0; i < n; i++) {
            CHECK(all[i] >= 0 && all[i] < n && !seen[all[i]], "ticket %ld twice or out of range",
                  all[i]);
            seen[all[i]] = 1;
        }
        free(seen);
        CHECK(mem[0] == n, "counter %ld, expected %ld", mem[0], n);
        long cas = (long)((iters + 3) / 4) * t_size;
        CHECK(mem[1] == cas, "CAS counter %ld, expected %ld", mem[1], cas);
        for (int i = 0; i < V; i++)
            CHECK(mem[3 + i] == n * (i + 1), "vector[%d] = %ld, expected %ld", i, mem[3 + i],
                  n * (i + 1));
    }
    free(all);
    free(tickets);
    w_section("fetch_and_op tickets, vector accumulates, CAS increments under contention");
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
