/*
 * core_c99.c -- shmem.h compiled as C99 (-std=c99 -pedantic-errors
 * -Werror): no C11 generics there, the typed calls only; shmem_cmp_t.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

#if __STDC_VERSION__ < 201112L && (defined(shmem_put) || defined(shmem_p))
#error "the C11 generic interfaces must not be defined in C99"
#endif

long x[2];

/* shmem_cmp_t, the comparisons' type some other headers have */
static int is(long *ivar, shmem_cmp_t cmp, long value)
{
    return shmem_long_test(ivar, cmp, value);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_p(&x[0], me, (me + 1) % npes);
    shmem_barrier_all();
    if (x[0] != (me + npes - 1) % npes || !is(&x[0], SHMEM_CMP_EQ, (me + npes - 1) % npes)) {
        fprintf(stderr, "PE %d: C99 put: %ld\n", me, x[0]);
        return 1;
    }
    if (me == 0)
        printf("core_c99: %d PEs, %s\n", npes, SHMEM_VENDOR_STRING);
    shmem_finalize();
    return 0;
}
