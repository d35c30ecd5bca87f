/* put_probe.c -- a small put followed at once by what must see it applied
 * at the target: quiet, a get of the same word, a second put and a get, a
 * kick, a fetching atomic, a put of more than 128 KiB (ucx: the first
 * small put after quiet carries quiet's probe, transport/ucx/README.md).
 * Each PE works on the next one; every value is checked where it lands.
 * ARGS: rounds (300). "loop N": PE 0 does N puts of 8 bytes, each followed
 * by quiet, and nothing else; "barriers N": N barriers; "putpp N": a put
 * ping-pong, PE 0 puts a word to PE 1, which waits for it and puts it back
 * (tests/ucx/put_probe.sh counts the sends of both). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

#define BIG ((size_t)160 << 10)     /* above ucx's 128 KiB message limit */

int main(int argc, char **argv)
{
    int loop = argc > 2 && strcmp(argv[1], "loop") == 0;
    int bars = argc > 2 && strcmp(argv[1], "barriers") == 0;
    int pp = argc > 2 && strcmp(argv[1], "putpp") == 0;
    int rounds = loop || bars || pp ? atoi(argv[2]) : argc > 1 ? atoi(argv[1]) : 300;

    OK(kumi_init());
    int       me = kumi_rank(), npes = kumi_size(), to = (me + 1) % npes;
    int       from = (me + npes - 1) % npes;
    uint64_t *a = kumi_malloc(64), *ctr = kumi_malloc(8);
    uint8_t  *big = kumi_malloc(BIG);
    static uint8_t bigsrc[BIG];
    size_t    off = kumi_llcm_alloc(8);
    volatile uint64_t *kick = kumi_llcm(off);
    uint64_t  v, got, old;

    CHECK(a != NULL && ctr != NULL && big != NULL, "allocation");
    memset(a, 0, 64);
    *ctr = 0;
    BARRIER();
    for (int i = 0; i < rounds && bars; i++)
        BARRIER();
    if (bars) {
        OK(kumi_finalize());
        return 0;
    }
    if (pp) {
        for (uint64_t i = 1; i <= (uint64_t)rounds && me < 2 && npes > 1; i++) {
            if (me == 0)
                OK(kumi_put(ctr, &i, 8, 1));
            OK(kumi_wait_until_u64((volatile uint64_t *)ctr, KUMI_CMP_EQ, i));
            if (me == 1)
                OK(kumi_put(ctr, &i, 8, 0));
        }
        BARRIER();
        OK(kumi_finalize());
        return 0;
    }
    if (loop) {
        for (int i = 0; i < rounds && me == 0 && npes > 1; i++) {
            v = (uint64_t)i + 1;
            OK(kumi_put(&a[0], &v, 8, 1));
            OK(kumi_quiet());
        }
        BARRIER();
        if (me == 1 && rounds > 0)
            CHECK(a[0] == (uint64_t)rounds, "a[0] is %llu, want %d", (unsigned long long)a[0],
                  rounds);
        BARRIER();
        OK(kumi_finalize());
        return 0;
    }
    for (int i = 1; i <= rounds; i++) {
        uint64_t base = (uint64_t)i << 8;
        /* put, quiet, get */
        v = base + 1;
        OK(kumi_put(&a[0], &v, 8, to));
        OK(kumi_quiet());
        OK(kumi_get(&got, &a[0], 8, to));
        CHECK(got == v, "round %d: put, quiet, get: %llx, want %llx", i,
              (unsigned long long)got, (unsigned long long)v);
        /* two puts to one word, then a get: the second one's value */
        v = base + 2;
        OK(kumi_put(&a[1], &v, 8, to));
        v = base + 3;
        OK(kumi_put(&a[1], &v, 8, to));
        OK(kumi_get(&got, &a[1], 8, to));
        CHECK(got == v, "round %d: put, put, get: %llx, want %llx", i,
              (unsigned long long)got, (unsigned long long)v);
        /* put, then a fetching atomic on the same word sees it */
        v = base + 4;
        OK(kumi_put(&a[2], &v, 8, to));
        OK(kumi_atomic_fetch_add_u64(&a[2], 1, to, &old));
        CHECK(old == v, "round %d: put, fetch_add: old %llx, want %llx", i,
              (unsigned long long)old, (unsigned long long)v);
        /* put, then a large put (RMA over ucx), then a get of each */
        v = base + 5;
        memset(bigsrc, i & 0xff, BIG);
        OK(kumi_put(&a[3], &v, 8, to));
        OK(kumi_put(big, bigsrc, BIG, to));
        OK(kumi_get(&got, &a[3], 8, to));
        CHECK(got == v, "round %d: put, big put, get: %llx, want %llx", i,
              (unsigned long long)got, (unsigned long long)v);
        OK(kumi_get(&got, big + BIG - 8, 8, to));
        CHECK(got == 0x0101010101010101ull * (uint64_t)(i & 0xff), "round %d: big put's tail "
              "%llx", i, (unsigned long long)got);
        /* put, kick: the target sees the data once it sees the kick */
        v = base + 6;
        OK(kumi_put(&a[4], &v, 8, to));
        OK(kumi_kick(to, off, &v, 8));
        OK(kumi_wait_until_u64((uint64_t *)kick, KUMI_CMP_EQ, base + 6));
        CHECK(a[4] == base + 6, "round %d: put then kick from pe %d: data %llx", i, from,
              (unsigned long long)a[4]);
        BARRIER();
    }
    OK(kumi_finalize());
    return 0;
}
