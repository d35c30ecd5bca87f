/*
 * setup_thread.c -- shmem_init_thread: the level asked for is the level
 * given (SHMEM_THREAD_MULTIPLE included), shmem_query_thread agrees, and
 * with MULTIPLE four threads per PE put, get and signal at once.
 * argv[1] names the level (single, funneled, serialized, multiple).
 */
#include <pthread.h>
#include <string.h>

#include "core_test.h"

#define NT 4
#define N  256

static long     slots[NT][N];
static uint64_t sigs[NT];
static uint64_t acks[NT];   /* my right neighbour read round r of my puts */
static int      me, npes;

static void *worker(void *arg)
{
    int  t = (int)(long)arg, right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long src[N];
    shmem_ctx_t ctx;

    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create in thread %d", t);
    for (int round = 1; round <= 50; round++) {
        /* the previous round has been read before I overwrite it */
        shmem_signal_wait_until(&acks[t], SHMEM_CMP_GE, (uint64_t)round - 1);
        for (int i = 0; i < N; i++)
            src[i] = me * 100000 + t * 1000 + round;
        shmem_ctx_long_put_signal(ctx, slots[t], src, N, &sigs[t], (uint64_t)round,
                                  SHMEM_SIGNAL_SET, right);
        shmem_signal_wait_until(&sigs[t], SHMEM_CMP_GE, (uint64_t)round);
        for (int i = 0; i < N; i++)
            CHECK(slots[t][i] == left * 100000 + t * 1000 + round, "thread %d round %d", t,
                  round);
        shmem_ctx_putmem_signal(ctx, NULL, NULL, 0, &acks[t], (uint64_t)round,
                                SHMEM_SIGNAL_SET, left);
        long back = shmem_ctx_long_g(ctx, &slots[t][N - 1], right);
        CHECK(back / 1000 == me * 100 + t && back % 1000 >= round, "g from thread %d: %ld", t,
              back);
        shmem_ctx_quiet(ctx);
    }
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    static const char *names[] = { "single", "funneled", "serialized", "multiple" };
    int want = SHMEM_THREAD_MULTIPLE, got = -1, q = -1;

    for (int i = 0; argc > 1 && i < 4; i++)
        if (strcmp(argv[1], names[i]) == 0)
            want = i;
    CHECK(shmem_init_thread(want, &got) == 0, "shmem_init_thread(%d)", want);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_query_thread(&q);
    CHECK(got == want && q == want, "asked for %d, got %d, query says %d", want, got, q);
    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED
          && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED
          && SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE, "levels in order");
    if (got == SHMEM_THREAD_MULTIPLE) {
        pthread_t th[NT];
        for (int t = 0; t < NT; t++)
            CHECK(pthread_create(&th[t], NULL, worker, (void *)(long)t) == 0, "pthread_create");
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("setup_thread: level %s on %d PEs passed\n", names[got], npes);
    shmem_finalize();
    return 0;
}
