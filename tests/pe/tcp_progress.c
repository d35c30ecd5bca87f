/* tcp_progress.c -- one-sided operations complete while the target
 * computes. PE 1 spins without calling kumi until a flag in its heap is
 * set; meanwhile PE 0 gets from it and runs fetching atomics on it, then
 * sets the flag. Without progress on PE 1's behalf the flag never comes:
 * the test fails after 60 s (a deadline for a broken build, not a timing
 * requirement: a loaded machine only makes the spin longer). */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "pe_test.h"

#define OPS 200

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    OK(kumi_init());
    int       me = kumi_rank();
    uint64_t *data = kumi_malloc(64 * sizeof(uint64_t));
    uint64_t *ctr = kumi_malloc(sizeof(uint64_t));
    uint64_t *flag = kumi_malloc(sizeof(uint64_t));

    CHECK(data && ctr && flag, "kumi_malloc");
    for (int i = 0; i < 64; i++)
        data[i] = (uint64_t)me * 1000 + (uint64_t)i;
    *ctr = 0;
    *flag = 0;
    BARRIER();
    if (me == 1) {
        volatile uint64_t spin = 0;
        double            t0 = now();
        uint64_t          seen;
        while ((seen = __atomic_load_n(flag, __ATOMIC_ACQUIRE)) == 0 && now() - t0 < 60.0)
            spin++;                                  /* no kumi call */
        CHECK(seen == 1, "PE 0's operations did not complete in 60 s while PE 1 computed "
                         "(flag %llu)", (unsigned long long)seen);
        CHECK(__atomic_load_n(ctr, __ATOMIC_RELAXED) == OPS, "counter %llu",
              (unsigned long long)*ctr);
    } else if (me == 0) {
        double   t0 = now();
        uint64_t got[64], old = 0;
        for (int k = 0; k < OPS; k++) {
            OK(kumi_get(got, data, sizeof(got), 1));
            CHECK(got[k % 64] == 1000 + (uint64_t)(k % 64), "get word %d", k % 64);
            OK(kumi_atomic_fetch_add_u64(ctr, 1, 1, &old));
            CHECK(old == (uint64_t)k, "fetch_add returned %llu, expected %d",
                  (unsigned long long)old, k);
        }
        OK(kumi_atomic_add_u64(flag, 1, 1));      /* an atomic: PE 1 reads it atomically */
        OK(kumi_quiet());
        printf("tcp_progress: %d gets and fetch-adds to a computing PE in %.3f s\n", OPS,
               now() - t0);
    }
    BARRIER();
    kumi_free(data);
    kumi_free(ctr);
    kumi_free(flag);
    return kumi_finalize();
}
