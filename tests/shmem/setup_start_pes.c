/*
 * setup_start_pes.c -- an old-style program: start_pes(0), _my_pe,
 * _num_pes, shmalloc, and no shmem_finalize at all. Returning 0 from main
 * must end the job cleanly (status 0): the library finalizes at exit.
 */
#include "core_test.h"

int main(void)
{
    start_pes(0);
    start_pes(0);                      /* again: no effect */
    int me = _my_pe(), npes = _num_pes();
    long *x = shmalloc(sizeof(long));
    CHECK(x != NULL, "shmalloc");
    *x = -1;
    shmem_barrier_all();
    shmem_long_p(x, me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(*x == (me + npes - 1) % npes, "put after start_pes");
    if (me == 0)
        printf("setup_start_pes: %d PEs, returning without shmem_finalize\n", npes);
    return 0;
}
