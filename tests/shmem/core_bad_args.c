/*
 * core_bad_args.c -- bad arguments get one line naming the shmem call and
 * never a crash: a PE out of range (RMA, signals, a team context), a
 * non-symmetric address (stack, malloc), NULL buffers, SHMEM_CTX_INVALID,
 * a bad signal operation, a bad comparison, a bad thread level. The job
 * ends with status 0; the test's cmake line checks one of the messages and
 * this program checks that nothing was written where it must not be.
 */
#include <string.h>

#include "core_test.h"

static long target[4];

int main(void)
{
    long     local[4] = { 1, 2, 3, 4 }, stack_sym[4] = { 0 };
    uint64_t sig_local = 0;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *mal = malloc(sizeof(local));
    CHECK(mal != NULL, "malloc");

    /* PE out of range: -1 and npes, every family */
    shmem_long_put(target, local, 4, npes);
    shmem_long_put(target, local, 4, -1);
    shmem_long_get(local, target, 4, npes + 7);
    shmem_long_p(target, 5, npes);
    CHECK(shmem_long_g(target, -3) == 0, "g from a bad PE returns 0");
    shmem_long_iput(target, local, 1, 1, 4, npes);
    shmem_long_iget(local, target, 1, 1, 4, npes);
    shmem_putmem_nbi(target, local, 8, npes);
    shmem_long_put_signal(target, local, 4, (uint64_t *)&target[3], 1, SHMEM_SIGNAL_SET, npes);
    shmem_ctx_long_put(SHMEM_CTX_DEFAULT, target, local, 4, npes);
    CHECK(shmem_ptr(target, npes) == NULL, "shmem_ptr to a bad PE is NULL");

    /* non-symmetric addresses: stack, malloc, one past the heap */
    shmem_long_put(stack_sym, local, 4, (me + 1) % npes);
    shmem_long_get(local, mal, 4, (me + 1) % npes);
    shmem_putmem(mal, local, sizeof(local), (me + 1) % npes);
    shmem_long_iput(stack_sym, local, 2, 1, 2, (me + 1) % npes);
    shmem_long_put_signal(target, local, 4, &sig_local, 1, SHMEM_SIGNAL_SET, (me + 1) % npes);
    long *heap = shmem_malloc(sizeof(long));
    shmem_long_put(heap, local, 1 << 30, (me + 1) % npes);   /* runs off the heap */

    /* NULL local buffers; NULL symmetric address */
    shmem_long_put(target, NULL, 4, me);
    shmem_long_get(NULL, target, 4, me);
    shmem_putmem(NULL, local, 8, me);

    /* invalid context, bad signal op, bad comparison, bad thread level */
    shmem_ctx_long_put(SHMEM_CTX_INVALID, target, local, 4, me);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_long_put_signal(target, local, 1, (uint64_t *)&target[2], 1, 42, me);
    CHECK(shmem_signal_wait_until((uint64_t *)&target[2], 99, 0) == 0, "bad cmp returns 0");
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(1L << 20, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
          "unknown context options are refused");
    CHECK(shmem_align(3, 64) == NULL, "alignment 3 is refused");

    /* nothing above reached the targets */
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK(target[i] == 0 && stack_sym[i] == 0, "a bad call wrote target[%d] = %ld", i,
              target[i]);
    CHECK(sig_local == 0, "a bad signal was delivered");
    shmem_barrier_all();                    /* every PE checked before the good put */

    /* and the library still works */
    shmem_long_p(target, me + 1, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(target[0] == (me + npes - 1) % npes + 1, "a good put after the bad ones");
    shmem_free(heap);
    free(mal);
    if (me == 0)
        printf("core_bad_args: %d PEs: every bad call reported, none crashed\n", npes);
    shmem_finalize();
    return 0;
}
