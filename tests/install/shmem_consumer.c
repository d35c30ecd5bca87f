/* An OpenSHMEM program built against an installed kumi: with oshcc,
 * pkg-config kumi-shmem and find_package(kumi) + kumi::shmem (install
 * test). A static variable as the target: symmetric in SHMEM. */
#include <shmem.h>
#include <stdio.h>

static long x;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_p(&x, 42 + me, (me + 1) % npes);
    shmem_barrier_all();
    long want = 42 + (me + npes - 1) % npes;
    printf("shmem_consumer: PE %d of %d: %ld\n", me, npes, x - (want - 42));
    shmem_finalize();
    return x != want;
}
