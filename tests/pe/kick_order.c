/* kick_order.c -- "put the data, then kick a flag" is a complete message.
 *
 * Each round puts a block (varying length, round-dependent content) into
 * one of W slots of the receiver's symmetric heap, then kicks the round
 * number into the receiver's LLCM flag. Whenever the receiver sees flag >= i
 * it must find round i's block complete; its ack frees the slot. First in a
 * lockstep ring of all PEs (ROUNDS rounds), then streaming between pairs of
 * PEs with up to W rounds in flight (4 x ROUNDS rounds). Then kicks of 1,
 * 2, 4 and 8 bytes at every aligned offset of a 32-byte area must change
 * exactly their bytes.
 *
 * usage: kick_order [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

#define W     4             /* slots: the sender may run W rounds ahead */
#define SLOT  8192

static int me, npes;

static inline uint8_t pattern(int src, uint64_t round, size_t k)
{
    uint32_t x = (uint32_t)k * 0x9e3779b1u + (uint32_t)round * 0x85ebca77u + (uint32_t)src;
    x ^= x >> 13;
    x *= 0xc2b2ae3du;
    return (uint8_t)(x ^ (x >> 16));
}

static size_t round_len(uint64_t round)
{
    return 8 + (size_t)((round * 2654435761u) % (SLOT - 8));
}

static void send_round(uint8_t *slots, uint8_t *src, size_t flag, int to, uint64_t r)
{
    size_t len = round_len(r);
    for (size_t k = 0; k < len; k++)
        src[k] = pattern(me, r, k);
    memcpy(src, &r, 8);                                         /* round number first */
    OK(kumi_put(slots + (r % W) * SLOT, src, len, to));
    OK(kumi_kick(to, flag, &r, 8));
}

/* flag >= r was seen: round r's block must be complete */
static void check_round(const uint8_t *slots, int from, uint64_t r, uint64_t seen)
{
    const uint8_t *d = slots + (r % W) * SLOT;
    size_t   len = round_len(r);
    uint64_t tag;

    memcpy(&tag, d, 8);
    CHECK(tag == r, "flag %llu seen but slot %llu holds round %llu", (unsigned long long)seen,
          (unsigned long long)(r % W), (unsigned long long)tag);
    for (size_t k = 8; k < len; k++)
        CHECK(d[k] == pattern(from, r, k), "flag %llu seen but round %llu byte %zu of %zu is "
              "0x%02x, expected 0x%02x", (unsigned long long)seen, (unsigned long long)r, k, len,
              d[k], pattern(from, r, k));
}

/* Lockstep ring: send round r right, receive round r from the left, ack it,
 * wait for the right neighbour's ack. Every PE takes part (n = 1: itself). */
static void test_ring(uint64_t rounds)
{
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint8_t  *slots = kumi_malloc((size_t)W * SLOT);
    uint8_t  *src   = malloc(SLOT);
    size_t    flag  = kumi_llcm_alloc(8);     /* written by my left neighbour  */
    size_t    ack   = kumi_llcm_alloc(8);     /* written by my right neighbour */
    volatile uint64_t *myflag = kumi_llcm(flag), *myack = kumi_llcm(ack);

    CHECK(slots && src && flag != (size_t)-1 && ack != (size_t)-1, "allocation failed");
    CHECK(*myflag == 0 && *myack == 0, "fresh LLCM words not zero");
    BARRIER();
    for (uint64_t r = 1; r <= rounds; r++) {
        send_round(slots, src, flag, right, r);
        OK(kumi_wait_until_u64(myflag, KUMI_CMP_GE, r));
        uint64_t seen = __atomic_load_n(myflag, __ATOMIC_ACQUIRE);
        CHECK(seen == r, "flag %llu while expecting round %llu", (unsigned long long)seen,
              (unsigned long long)r);
        check_round(slots, left, r, seen);
        OK(kumi_kick(left, ack, &r, 8));
        OK(kumi_wait_until_u64(myack, KUMI_CMP_GE, r));
    }
    BARRIER();
    kumi_free(slots);
    free(src);
}

/* Streaming pairs (2k -> 2k+1): the sender runs up to W rounds ahead, so
 * later blocks land while the receiver checks earlier ones, and the flag
 * may jump several rounds at once. */
static void test_stream(uint64_t rounds)
{
    uint8_t  *slots = kumi_malloc((size_t)W * SLOT);
    uint8_t  *src   = malloc(SLOT);
    size_t    flag  = kumi_llcm_alloc(8);
    size_t    ack   = kumi_llcm_alloc(8);
    volatile uint64_t *myflag = kumi_llcm(flag), *myack = kumi_llcm(ack);
    int       sender = me % 2 == 0 && me + 1 < npes, receiver = me % 2 == 1;

    CHECK(slots && src && flag != (size_t)-1 && ack != (size_t)-1, "allocation failed");
    BARRIER();
    if (sender) {
        for (uint64_t r = 1; r <= rounds; r++) {
            if (r > W)
                OK(kumi_wait_until_u64(myack, KUMI_CMP_GE, r - W));
            send_round(slots, src, flag, me + 1, r);
        }
        OK(kumi_wait_until_u64(myack, KUMI_CMP_EQ, rounds));
    } else if (receiver) {
        uint64_t got = 0;
        while (got < rounds) {
            OK(kumi_wait_until_u64(myflag, KUMI_CMP_GT, got));
            uint64_t seen = __atomic_load_n(myflag, __ATOMIC_ACQUIRE);
            CHECK(seen <= got + W, "flag %llu ran ahead of the window (received %llu)",
                  (unsigned long long)seen, (unsigned long long)got);
            while (got < seen)
                check_round(slots, me - 1, ++got, seen);
            OK(kumi_kick(me - 1, ack, &got, 8));
        }
    }
    BARRIER();
    kumi_free(slots);
    free(src);
}

/* Kicks of each length at each aligned offset into my right neighbour's
 * 32-byte area: exactly those bytes change. */
static void test_kick_bytes(void)
{
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t    area = kumi_llcm_alloc(32);
    volatile uint8_t *mine = kumi_llcm(area);
    static const size_t lens[] = { 1, 2, 4, 8 };

    CHECK(area != (size_t)-1 && mine != NULL, "kumi_llcm_alloc(32) failed");
    for (size_t li = 0; li < 4; li++) {
        size_t len = lens[li];
        for (size_t off = 0; off < 32; off += len) {
            uint8_t val[8];
            for (size_t k = 0; k < 8; k++)
                val[k] = (uint8_t)(0x10 * (k + 1) + (size_t)me % 16);   /* 0x1m, 0x2m, ... */
            for (size_t k = 0; k < 32; k++)
                mine[k] = 0xa5;
            BARRIER();
            OK(kumi_kick(right, area + off, val, len));
            BARRIER();
            for (size_t k = 0; k < 32; k++) {
                uint8_t want = k >= off && k < off + len
                             ? (uint8_t)(0x10 * (k - off + 1) + (size_t)left % 16) : 0xa5;
                CHECK(mine[k] == want, "kick of %zu bytes at offset %zu from pe %d: byte %zu is "
                      "0x%02x, expected 0x%02x", len, off, left, k, mine[k], want);
            }
        }
    }
    BARRIER();
}

int main(int argc, char **argv)
{
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();

    uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 10)
                    : npes > 4 ? 2000 : npes > 2 ? 5000 : 20000;
    CHECK(rounds > 0, "bad ROUNDS '%s'", argv[1]);
    double t0 = kumi_wtime();
    test_ring(rounds);
    test_stream(4 * rounds);
    double t1 = kumi_wtime();
    test_kick_bytes();
    if (me == 0)
        printf("kick_order: %d PEs, %llu rounds ok (%.2fs, bytes %.2fs)\n", npes,
               (unsigned long long)rounds, t1 - t0, kumi_wtime() - t1);
    OK(kumi_finalize());
    return 0;
}
