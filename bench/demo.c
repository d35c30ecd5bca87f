/*
 * demo.c -- the small job `make demo` runs: every mechanism of the
 * foundation once, checked, with a few timings.
 *
 *   kumirun -n 4 build/bin/kumi-demo [iterations]
 *
 * 1. ring exchange: each PE puts a block into its right neighbour's
 *    symmetric buffer and kicks a flag into its LLCM (AOTF), then checks
 *    what its left neighbour sent;
 * 2. remote atomics: every PE fetch-adds into a counter on PE 0;
 * 3. kick ping-pong between PEs 0 and 1 (half round trip);
 * 4. barrier latency over all PEs.
 */
#include <kumi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        int rc_ = (call);                                                             \
        if (rc_ != KUMI_OK) {                                                         \
            fprintf(stderr, "demo[%d]: %s failed: %s\n", kumi_rank(), #call,          \
                    kumi_strerror(rc_));                                              \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define BLOCK 4096

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;

    CHECK(kumi_init());
    int me = kumi_rank(), n = kumi_size();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* 1. ring exchange: put, then kick */
    uint8_t *buf  = kumi_malloc(BLOCK);
    size_t   flag = kumi_llcm_alloc(8);
    uint8_t  mine[BLOCK];
    if (buf == NULL || flag == (size_t)-1)
        return 1;
    for (int i = 0; i < BLOCK; i++)
        mine[i] = (uint8_t)(me * 31 + i);
    uint64_t one = 1;
    CHECK(kumi_put(buf, mine, BLOCK, right));
    CHECK(kumi_kick(right, flag, &one, 8));
    CHECK(kumi_wait_until_u64((volatile uint64_t *)kumi_llcm(flag), KUMI_CMP_EQ, 1));
    for (int i = 0; i < BLOCK; i++)
        if (buf[i] != (uint8_t)(left * 31 + i)) {
            fprintf(stderr, "demo[%d]: byte %d from PE %d is wrong\n", me, i, left);
            return 1;
        }

    /* 2. atomics */
    uint64_t *counter = kumi_calloc(1, sizeof(uint64_t)), old;
    CHECK(kumi_barrier(kumi_team_world()));
    for (int i = 0; i < 1000; i++)
        CHECK(kumi_atomic_fetch_add_u64(counter, 1, 0, &old));
    CHECK(kumi_barrier(kumi_team_world()));
    uint64_t total;
    CHECK(kumi_get(&total, counter, sizeof(total), 0));

    /* 3. kick ping-pong between PEs 0 and 1 */
    size_t ping = kumi_llcm_alloc(8);
    double half_rtt = 0;
    CHECK(kumi_barrier(kumi_team_world()));
    if (n > 1 && me < 2) {
        volatile uint64_t *p = kumi_llcm(ping);
        int peer = 1 - me;
        double t0 = 0;
        for (long i = 1; i <= iters + 100; i++) {
            uint64_t v = (uint64_t)i;
            if (i == 101)
                t0 = kumi_wtime();
            if (me == 0) {
                CHECK(kumi_kick(peer, ping, &v, 8));
                CHECK(kumi_wait_until_u64(p, KUMI_CMP_EQ, v));
            } else {
                CHECK(kumi_wait_until_u64(p, KUMI_CMP_EQ, v));
                CHECK(kumi_kick(peer, ping, &v, 8));
            }
        }
        half_rtt = (kumi_wtime() - t0) / (double)iters / 2 * 1e6;
    }

    /* 4. barrier latency */
    CHECK(kumi_barrier(kumi_team_world()));
    double t0 = kumi_wtime();
    for (long i = 0; i < iters; i++)
        CHECK(kumi_barrier(kumi_team_world()));
    double bar = (kumi_wtime() - t0) / (double)iters * 1e6;

    if (me == 0) {
        printf("kumi demo: %d PEs on transport %s\n", n, kumi_transport_name());
        printf("  ring exchange (put %d B + kick)  ok\n", BLOCK);
        printf("  atomic fetch-add total           %llu (expected %d) %s\n",
               (unsigned long long)total, 1000 * n, total == (uint64_t)(1000 * n) ? "ok" : "WRONG");
        if (n > 1)
            printf("  kick ping-pong half round trip   %.3f us (%ld iterations)\n", half_rtt, iters);
        printf("  barrier                          %.3f us (%ld iterations)\n", bar, iters);
    }
    kumi_free(counter);
    kumi_free(buf);
    int bad = me == 0 && total != (uint64_t)(1000 * n);
    CHECK(kumi_finalize());
    return bad;
}
