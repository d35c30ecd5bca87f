/*
 * core_state.c -- calls before shmem_init and after shmem_finalize: one
 * message naming the call, no crash, no effect; the library starts once.
 */
#include "core_test.h"

static long word;

int main(void)
{
    long v = 1;

    /* before shmem_init */
    shmem_putmem(&word, &v, sizeof(v), 0);
    CHECK(shmem_long_g(&word, 0) == 0, "g before init returns 0");
    CHECK(shmem_my_pe() == -1 && shmem_n_pes() == -1, "queries before init return -1");
    CHECK(shmem_malloc(8) == NULL, "shmem_malloc before init");
    shmem_quiet();
    shmem_finalize();                       /* finalize before init: a message */

    shmem_init();
    shmem_init();                           /* a second init: no effect */
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(me >= 0 && me < npes, "my_pe after init");
    shmem_barrier_all();
    shmem_finalize();

    /* after shmem_finalize */
    shmem_putmem(&word, &v, sizeof(v), 0);
    CHECK(shmem_my_pe() == -1, "my_pe after finalize");
    shmem_finalize();
    if (me == 0)
        printf("core_state: %d PEs passed\n", npes);
    return 0;
}
