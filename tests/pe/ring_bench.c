/* ring_bench.c -- throughput of kumi_ring between PE 0 (producer) and PE 1
 * (consumer), next to a hand-made two-copy pipeline over the same bytes.
 * Built by tests/ring.cmake but not a test (timings never assert).
 *
 * usage: kumirun -n 2 pe_ring_bench [MSG_BYTES [COUNT [CAPACITY [REPS]]]]
 *   defaults: 8 B x 20,000,000 messages, capacity 64 KiB, 3 repetitions
 *
 *   ring   kumi_ring_push on PE 0, kumi_ring_pop on PE 1
 *   pipe   the ideal two-copy pipeline the ring is measured against:
 *          CAPACITY/MSG slots; PE 0 kumi_put()s a message into a free slot
 *          of PE 1's buffer and kicks a counter; PE 1 waits for the counter,
 *          memcpy()s the slot out and kicks an ack counter back. Only for
 *          MSG_BYTES >= 4096 (for small messages it is a different protocol).
 * Each repetition starts after a barrier and ends when the consumer has the
 * last message; the best repetition is printed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

static int me;

static double run_ring(kumi_ring_t r, size_t msg, long count, uint8_t *src, uint8_t *dst)
{
    double t0;
    size_t len;

    BARRIER();
    t0 = kumi_wtime();
    if (me == 0) {
        for (long i = 0; i < count; i++) {
            memcpy(src, &i, sizeof(i) < msg ? sizeof(i) : msg);
            OK(kumi_ring_push(r, src, msg));
        }
    } else if (me == 1) {
        for (long i = 0; i < count; i++) {
            OK(kumi_ring_pop(r, dst, msg, &len));
            if (msg >= sizeof(i)) {
                long got;
                memcpy(&got, dst, sizeof(got));
                CHECK(len == msg && got == i, "message %ld: got %ld (%zu bytes)", i, got, len);
            }
        }
    }
    double t = kumi_wtime() - t0;
    BARRIER();
    return t;
}

static double run_pipe(uint8_t *slots, size_t nslots, size_t msg, long count, uint8_t *src,
                       uint8_t *dst, size_t flag, size_t ack, uint64_t base)
{
    /* both counters only grow: base is the number of earlier messages */
    volatile uint64_t *myflag = kumi_llcm(flag), *myack = kumi_llcm(ack);
    const uint64_t     base_flag = base, base_ack = base;
    double             t0;

    BARRIER();
    t0 = kumi_wtime();
    if (me == 0) {
        for (uint64_t i = 0; i < (uint64_t)count; i++) {
            if (i >= nslots)
                OK(kumi_wait_until_u64(myack, KUMI_CMP_GE, base_ack + i - nslots + 1));
            memcpy(src, &i, sizeof(i));
            OK(kumi_put(slots + (i % nslots) * msg, src, msg, 1));
            uint64_t v = base_flag + i + 1;
            OK(kumi_kick(1, flag, &v, 8));
        }
    } else if (me == 1) {
        for (uint64_t i = 0; i < (uint64_t)count; i++) {
            OK(kumi_wait_until_u64(myflag, KUMI_CMP_GE, base_flag + i + 1));
            memcpy(dst, slots + (i % nslots) * msg, msg);
            uint64_t got, v = base_ack + i + 1;
            memcpy(&got, dst, sizeof(got));
            CHECK(got == i, "pipe message %llu: got %llu", (unsigned long long)i,
                  (unsigned long long)got);
            OK(kumi_kick(0, ack, &v, 8));
        }
    }
    double t = kumi_wtime() - t0;
    BARRIER();
    return t;
}

int main(int argc, char **argv)
{
    size_t msg   = argc > 1 ? strtoul(argv[1], NULL, 0) : 8;
    long   count = argc > 2 ? strtol(argv[2], NULL, 0) : 20000000;
    size_t cap   = argc > 3 ? strtoul(argv[3], NULL, 0) : 65536;
    int    reps  = argc > 4 ? atoi(argv[4]) : 3;
    double best_ring = 1e30, best_pipe = 1e30;

    OK(kumi_init());
    me = kumi_rank();
    CHECK(kumi_size() == 2, "run with -n 2");

    uint8_t    *src = malloc(msg + 8), *dst = malloc(msg + 8);
    kumi_ring_t r;
    CHECK(src && dst, "malloc");
    memset(src, 0x5a, msg + 8);
    memset(dst, 0, msg + 8);
    OK(kumi_ring_create(0, 1, cap, &r));

    /* the pipe over the same bytes, when it makes sense */
    size_t   nslots = cap / (msg ? msg : 1);
    int      pipe   = msg >= 4096 && nslots >= 2;
    uint8_t *slots  = NULL;
    size_t   flag = 0, ack = 0;
    uint64_t done = 0;
    if (pipe) {
        slots = kumi_malloc(nslots * msg);
        flag  = kumi_llcm_alloc(8);
        ack   = kumi_llcm_alloc(8);
        CHECK(slots && flag != (size_t)-1 && ack != (size_t)-1, "pipe allocation");
    }

    /* warm up, then alternate ring and pipe so both see the same machine */
    run_ring(r, msg, count / 10 + 1, src, dst);
    if (pipe) {
        run_pipe(slots, nslots, msg, count / 10 + 1, src, dst, flag, ack, done);
        done += (uint64_t)(count / 10 + 1);
    }
    for (int k = 0; k < reps; k++) {
        double t = run_ring(r, msg, count, src, dst);
        if (t < best_ring)
            best_ring = t;
        if (pipe) {
            t = run_pipe(slots, nslots, msg, count, src, dst, flag, ack, done);
            done += (uint64_t)count;
            if (t < best_pipe)
                best_pipe = t;
        }
    }
    OK(kumi_ring_destroy(r));
    if (pipe)
        kumi_free(slots);

    /* reference: one core copying MSG bytes between two private buffers */
    double best_copy = 1e30;
    long   ncopy     = count < 1000 ? 1000 : count;
    for (int k = 0; k < reps; k++) {
        double t0 = kumi_wtime();
        for (long i = 0; i < ncopy; i++) {
            memcpy(dst, src, msg);
            __asm__ __volatile__("" ::"r"(dst) : "memory");
        }
        double t = kumi_wtime() - t0;
        if (t < best_copy)
            best_copy = t;
    }

    if (me == 1) {
        printf("copy  %zu B memcpy on one core: %.0f MB/s\n", msg,
               (double)msg * (double)ncopy / 1e6 / best_copy);
        double mb = (double)msg * (double)count / 1e6;
        printf("ring  %zu B x %ld, capacity %zu: %.3f s, %.2f M msg/s, %.0f MB/s\n", msg, count,
               cap, best_ring, count / best_ring / 1e6, mb / best_ring);
        if (best_pipe < 1e30)
            printf("pipe  %zu B x %ld, %zu slots:      %.3f s, %.2f M msg/s, %.0f MB/s  "
                   "(ring = %.0f%% of pipe)\n", msg, count, nslots, best_pipe,
                   count / best_pipe / 1e6, mb / best_pipe, 100.0 * best_pipe / best_ring);
    }
    free(src);
    free(dst);
    OK(kumi_finalize());
    return 0;
}
