/* put_get.c -- kumi_put and kumi_get of every awkward size at odd alignments
 * of both the symmetric and the local side, to and from every PE (myself
 * included); guard bytes around each transfer must stay untouched. Then
 * kumi_put_signal: the data is complete whenever the signal is seen. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

static const size_t sizes[] = { 0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 4095, 4096, 4097, 65537,
                                1 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
static const size_t offs[] = { 0, 1, 3, 7 };
#define MAXSZ   ((size_t)1 << 20)
#define GUARD   16                 /* checked bytes on each side      */
#define SLOT    (MAXSZ + 2 * GUARD + 8)
#define SENTRY  0xee

static int me, npes;

/* Byte k of what PE src sends for one (size, soff, doff) case: a hash, so
 * a shifted or misplaced block never matches by accident. */
static inline uint8_t pattern(int src, size_t size, size_t soff, size_t doff, size_t k)
{
    uint32_t x = (uint32_t)k * 2654435761u ^ (uint32_t)(src * 0x9e3779b9u)
               ^ (uint32_t)(size * 40503u + soff * 977u + doff * 131u);
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return (uint8_t)x;
}

static void fill(uint8_t *p, int src, size_t size, size_t soff, size_t doff)
{
    for (size_t k = 0; k < size; k++)
        p[k] = pattern(src, size, soff, doff, k);
}

/* slot holds GUARD sentries, the data at GUARD + off, then sentries */
static void check_slot(const uint8_t *slot, int src, size_t size, size_t soff, size_t doff,
                       const char *what)
{
    const uint8_t *d = slot + GUARD + doff;
    for (size_t k = 0; k < GUARD + doff; k++)
        CHECK(slot[k] == SENTRY, "%s from pe %d size %zu soff %zu doff %zu: guard byte %zu "
              "before the data is 0x%02x", what, src, size, soff, doff, GUARD + doff - k,
              slot[k]);
    for (size_t k = 0; k < size; k++)
        CHECK(d[k] == pattern(src, size, soff, doff, k), "%s from pe %d size %zu soff %zu "
              "doff %zu: byte %zu is 0x%02x, expected 0x%02x", what, src, size, soff, doff, k,
              d[k], pattern(src, size, soff, doff, k));
    for (size_t k = 0; k < GUARD; k++)
        CHECK(d[size + k] == SENTRY, "%s from pe %d size %zu soff %zu doff %zu: guard byte %zu "
              "after the data is 0x%02x", what, src, size, soff, doff, k, d[size + k]);
}

/* all 16 alignment pairs for small sizes; four for the big ones */
static int use_pair(size_t size, size_t si, size_t di)
{
    return size < 65536 || di == (si + (size & 3)) % 4;
}

static void test_put(uint8_t *sym, uint8_t *local)
{
    for (size_t z = 0; z < NSIZES; z++)
        for (size_t si = 0; si < 4; si++)
            for (size_t di = 0; di < 4; di++) {
                size_t size = sizes[z], soff = offs[si], doff = offs[di];
                if (!use_pair(size, si, di))
                    continue;
                /* my slots (one per sender) to sentries; the source block */
                for (int src = 0; src < npes; src++)
                    memset(sym + (size_t)src * SLOT, SENTRY, GUARD + doff + size + GUARD);
                memset(local, 0x11, GUARD);
                fill(local + soff, me, size, soff, doff);
                OK(kumi_barrier(kumi_team_world()));
                for (int i = 0; i < npes; i++) {
                    int pe = (me + i) % npes;
                    OK(kumi_put(sym + (size_t)me * SLOT + GUARD + doff, local + soff, size, pe));
                }
                OK(kumi_barrier(kumi_team_world()));
                for (int src = 0; src < npes; src++)
                    check_slot(sym + (size_t)src * SLOT, src, size, soff, doff, "put");
            }
}

static void test_get(uint8_t *sym, uint8_t *local)
{
    for (size_t z = 0; z < NSIZES; z++)
        for (size_t si = 0; si < 4; si++)
            for (size_t di = 0; di < 4; di++) {
                size_t size = sizes[z], soff = offs[si], doff = offs[di];
                if (!use_pair(size, si, di))
                    continue;
                /* my source block at soff in slot 0; dst offset is the getter's */
                OK(kumi_barrier(kumi_team_world()));   /* everyone done reading */
                memset(sym, 0x22, GUARD + 8);
                fill(sym + soff, me, size, soff, 0);
                OK(kumi_barrier(kumi_team_world()));
                for (int i = 0; i < npes; i++) {
                    int pe = (me + npes - i) % npes;
                    memset(local, SENTRY, GUARD + doff + size + GUARD);
                    OK(kumi_get(local + GUARD + doff, sym + soff, size, pe));
                    /* the source pattern does not depend on doff: check with 0 */
                    const uint8_t *d = local + GUARD + doff;
                    for (size_t k = 0; k < GUARD + doff; k++)
                        CHECK(local[k] == SENTRY, "get from pe %d size %zu soff %zu doff %zu: "
                              "local byte %zu before the data changed", pe, size, soff, doff, k);
                    for (size_t k = 0; k < size; k++)
                        CHECK(d[k] == pattern(pe, size, soff, 0, k), "get from pe %d size %zu "
                              "soff %zu doff %zu: byte %zu is 0x%02x, expected 0x%02x", pe, size,
                              soff, doff, k, d[k], pattern(pe, size, soff, 0, k));
                    for (size_t k = 0; k < GUARD; k++)
                        CHECK(d[size + k] == SENTRY, "get from pe %d size %zu soff %zu doff "
                              "%zu: local byte %zu after the data changed", pe, size, soff, doff,
                              k);
                }
            }
    OK(kumi_barrier(kumi_team_world()));
}

/* A ring: each PE sends round r's block to its right neighbour with
 * put_signal(sig = r) and waits for the neighbour's ack before the next. */
static void test_put_signal(void)
{
    const int rounds = npes > 4 ? 500 : 2000;
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const size_t maxlen = 65537 + 8;
    uint8_t  *data = kumi_malloc(maxlen);
    uint64_t *sig  = kumi_calloc(2, sizeof(uint64_t));   /* [0] data signal, [1] ack */
    uint8_t  *src  = malloc(maxlen);

    CHECK(data != NULL && sig != NULL && src != NULL, "allocation failed");
    for (int r = 1; r <= rounds; r++) {
        size_t len = 1 + ((size_t)r * 7919) % 65537;
        size_t off = (size_t)r % 8;
        fill(src, me, len, off, (size_t)r);
        OK(kumi_put_signal(data + off, src, len, &sig[0], (uint64_t)r, right));

        /* receive round r from the left */
        OK(kumi_wait_until_u64(&sig[0], KUMI_CMP_GE, (uint64_t)r));
        CHECK(sig[0] == (uint64_t)r, "signal %llu while expecting round %d",
              (unsigned long long)sig[0], r);
        for (size_t k = 0; k < len; k++)
            CHECK(data[off + k] == pattern(left, len, off, (size_t)r, k), "round %d (len %zu): "
                  "signal seen but byte %zu is 0x%02x, expected 0x%02x", r, len, k,
                  data[off + k], pattern(left, len, off, (size_t)r, k));
        OK(kumi_put_signal(data, NULL, 0, &sig[1], (uint64_t)r, left));   /* ack */

        /* my right neighbour consumed round r before I send r + 1 */
        OK(kumi_wait_until_u64(&sig[1], KUMI_CMP_GE, (uint64_t)r));
    }
    OK(kumi_barrier(kumi_team_world()));
    kumi_free(sig);
    kumi_free(data);
    free(src);
}

int main(void)
{
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();

    uint8_t *sym   = kumi_malloc((size_t)npes * SLOT);
    uint8_t *local = malloc(SLOT);
    CHECK(sym != NULL && local != NULL, "cannot allocate %zu symmetric bytes",
          (size_t)npes * SLOT);

    double t0 = kumi_wtime();
    test_put(sym, local);
    double t1 = kumi_wtime();
    test_get(sym, local);
    double t2 = kumi_wtime();
    test_put_signal();
    if (me == 0)
        printf("put_get: %d PEs ok (put %.2fs, get %.2fs, put_signal %.2fs)\n", npes, t1 - t0,
               t2 - t1, kumi_wtime() - t2);
    kumi_free(sym);
    free(local);
    OK(kumi_finalize());
    return 0;
}
