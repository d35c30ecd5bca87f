/* atomics.c -- remote atomics under contention on PE 0's words: fetch-add
 * totals and uniqueness of the fetched values (u64 and u32), mixed remote
 * and local atomics, swap and compare-and-swap semantics, and a spin lock
 * built from cswap that protects a plain counter updated by get + put. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

static int me, npes;

/* PE 0 checks that vals[0..n) is a permutation of base..base+n-1 */
static void check_permutation(const uint64_t *vals, size_t n, uint64_t base, const char *what)
{
    uint8_t *seen = calloc(n, 1);
    CHECK(seen != NULL, "calloc");
    for (size_t i = 0; i < n; i++) {
        uint64_t v = vals[i] - base;
        CHECK(vals[i] >= base && v < n, "%s: value %llu (from pe %zu) out of range [%llu, %llu)",
              what, (unsigned long long)vals[i], i / (n / (size_t)npes),
              (unsigned long long)base, (unsigned long long)(base + n));
        CHECK(!seen[v], "%s: value %llu fetched twice (second by pe %zu)", what,
              (unsigned long long)vals[i], i / (n / (size_t)npes));
        seen[v] = 1;
    }
    free(seen);
}

static void test_fetch_add(int k)
{
    uint64_t *ctr64  = kumi_calloc(1, sizeof(uint64_t));
    uint32_t *ctr32  = kumi_calloc(2, sizeof(uint32_t));   /* [0] counter, [1] neighbour */
    uint64_t *gather = kumi_calloc((size_t)k * (size_t)npes, sizeof(uint64_t));
    uint64_t *mine   = malloc((size_t)k * sizeof(uint64_t));
    const uint64_t base64 = 0xfffffff0ull;   /* crosses 2^32: the full width counts */
    const uint32_t base32 = 0x7ffffff0u;

    CHECK(ctr64 && ctr32 && gather && mine, "allocation failed");
    if (me == 0) {
        *ctr64   = base64;
        ctr32[0] = base32;
        ctr32[1] = 0xa5a5a5a5u;
    }
    BARRIER();

    /* u64 */
    for (int i = 0; i < k; i++)
        OK(kumi_atomic_fetch_add_u64(ctr64, 1, 0, &mine[i]));
    for (int i = 1; i < k; i++)
        CHECK(mine[i] > mine[i - 1], "fetched values not increasing: %llu after %llu",
              (unsigned long long)mine[i], (unsigned long long)mine[i - 1]);
    OK(kumi_put(gather + (size_t)me * (size_t)k, mine, (size_t)k * sizeof(uint64_t), 0));
    BARRIER();
    if (me == 0) {
        CHECK(*ctr64 == base64 + (uint64_t)k * (uint64_t)npes, "u64 counter %llu, expected %llu",
              (unsigned long long)*ctr64, (unsigned long long)(base64 + (uint64_t)k * npes));
        check_permutation(gather, (size_t)k * (size_t)npes, base64, "fetch_add_u64");
    }
    BARRIER();

    /* u32 */
    for (int i = 0; i < k; i++) {
        uint32_t old = 0;
        OK(kumi_atomic_fetch_add_u32(&ctr32[0], 1, 0, &old));
        mine[i] = old;
    }
    OK(kumi_put(gather + (size_t)me * (size_t)k, mine, (size_t)k * sizeof(uint64_t), 0));
    BARRIER();
    if (me == 0) {
        CHECK(ctr32[0] == base32 + (uint32_t)(k * npes), "u32 counter %u, expected %u", ctr32[0],
              base32 + (uint32_t)(k * npes));
        CHECK(ctr32[1] == 0xa5a5a5a5u, "u32 atomics changed the next word: 0x%x", ctr32[1]);
        check_permutation(gather, (size_t)k * (size_t)npes, base32, "fetch_add_u32");
    }
    BARRIER();

    /* non-fetching adds from everyone, local atomics on PE 0 at the same time */
    if (me == 0) {
        *ctr64   = 0;
        ctr32[0] = 0;
    }
    BARRIER();
    for (int i = 0; i < k; i++) {
        if (me == 0 && (i & 1)) {
            __atomic_fetch_add(ctr64, 3, __ATOMIC_SEQ_CST);
            __atomic_fetch_add(&ctr32[0], 3, __ATOMIC_SEQ_CST);
        } else {
            OK(kumi_atomic_add_u64(ctr64, 3, 0));
            OK(kumi_atomic_add_u32(&ctr32[0], 3, 0));
        }
    }
    BARRIER();
    if (me == 0) {
        CHECK(*ctr64 == 3ull * (uint64_t)k * (uint64_t)npes, "u64 after adds %llu, expected %llu",
              (unsigned long long)*ctr64, 3ull * (uint64_t)k * (uint64_t)npes);
        CHECK(ctr32[0] == 3u * (uint32_t)(k * npes), "u32 after adds %u, expected %u", ctr32[0],
              3u * (uint32_t)(k * npes));
    }
    BARRIER();
    kumi_free(gather);
    kumi_free(ctr32);
    kumi_free(ctr64);
    free(mine);
}

/* Everyone swaps its own value into PE 0's word once: the values returned
 * plus the final value are exactly the initial value and everyone's. */
static void test_swap(void)
{
    uint64_t *w64 = kumi_calloc(1, sizeof(uint64_t));
    uint32_t *w32 = kumi_calloc(1, sizeof(uint32_t));
    uint64_t *olds = kumi_calloc(2 * (size_t)npes, sizeof(uint64_t));
    const uint64_t init64 = 0xdeadbeefcafef00dull;
    const uint32_t init32 = 0xfeedf00du;
    uint64_t mine[2];
    uint32_t old32;

    CHECK(w64 && w32 && olds, "allocation failed");
    if (me == 0) {
        *w64 = init64;
        *w32 = init32;
    }
    BARRIER();
    OK(kumi_atomic_swap_u64(w64, ((uint64_t)(me + 1) << 40) | 0xabc, 0, &mine[0]));
    OK(kumi_atomic_swap_u32(w32, 0x80000000u | (uint32_t)me, 0, &old32));
    mine[1] = old32;
    OK(kumi_put(olds + 2 * (size_t)me, mine, sizeof(mine), 0));
    BARRIER();
    if (me == 0) {
        /* the chain: init -> v_a -> v_b -> ... -> final; each value once */
        int *seen64 = calloc((size_t)npes + 1, sizeof(int)), *seen32 = calloc((size_t)npes + 1,
                                                                              sizeof(int));
        CHECK(seen64 && seen32, "calloc");
        for (int pe = 0; pe <= npes; pe++) {
            uint64_t v64 = pe < npes ? olds[2 * pe] : *w64;
            uint64_t v32 = pe < npes ? olds[2 * pe + 1] : *w32;
            int i64 = v64 == init64 ? 0 : (int)(v64 >> 40);
            int i32 = v32 == init32 ? 0 : (int)(v32 & 0x7fffffffu) + 1;
            CHECK(v64 == init64 || ((v64 & 0xffffffffffull) == 0xabc && i64 >= 1 && i64 <= npes),
                  "swap_u64 returned a value nobody wrote: 0x%llx", (unsigned long long)v64);
            CHECK(v32 == init32 || ((v32 & 0x80000000u) && i32 >= 1 && i32 <= npes),
                  "swap_u32 returned a value nobody wrote: 0x%llx", (unsigned long long)v32);
            CHECK(!seen64[i64]++, "swap_u64: value of pe %d seen twice", i64 - 1);
            CHECK(!seen32[i32]++, "swap_u32: value of pe %d seen twice", i32 - 1);
        }
        free(seen64);
        free(seen32);
    }
    BARRIER();
    kumi_free(olds);
    kumi_free(w32);
    kumi_free(w64);
}

/* Everyone tries cswap(0 -> me + 1) once: exactly one wins, the others see
 * the winner's value and change nothing. */
static void test_cswap(void)
{
    uint64_t *w64  = kumi_calloc(1, sizeof(uint64_t));
    uint32_t *w32  = kumi_calloc(1, sizeof(uint32_t));
    uint64_t *olds = kumi_calloc(2 * (size_t)npes, sizeof(uint64_t));
    uint64_t  mine[2], old64;
    uint32_t  old32;

    CHECK(w64 && w32 && olds, "allocation failed");
    BARRIER();
    OK(kumi_atomic_cswap_u64(w64, 0, 0x100000000ull + (uint64_t)me, 0, &mine[0]));
    OK(kumi_atomic_cswap_u32(w32, 0, 0x1000u + (uint32_t)me, 0, &old32));
    mine[1] = old32;
    OK(kumi_put(olds + 2 * (size_t)me, mine, sizeof(mine), 0));
    BARRIER();
    if (me == 0) {
        int win64 = -1, win32 = -1;
        for (int pe = 0; pe < npes; pe++) {
            if (olds[2 * pe] == 0) {
                CHECK(win64 < 0, "cswap_u64: pes %d and %d both won", win64, pe);
                win64 = pe;
            }
            if (olds[2 * pe + 1] == 0) {
                CHECK(win32 < 0, "cswap_u32: pes %d and %d both won", win32, pe);
                win32 = pe;
            }
        }
        CHECK(win64 >= 0 && win32 >= 0, "cswap: nobody won (%d %d)", win64, win32);
        CHECK(*w64 == 0x100000000ull + (uint64_t)win64, "cswap_u64 final 0x%llx, winner %d",
              (unsigned long long)*w64, win64);
        CHECK(*w32 == 0x1000u + (uint32_t)win32, "cswap_u32 final 0x%x, winner %d", *w32, win32);
        for (int pe = 0; pe < npes; pe++) {
            CHECK(pe == win64 || olds[2 * pe] == *w64, "cswap_u64: loser %d saw 0x%llx", pe,
                  (unsigned long long)olds[2 * pe]);
            CHECK(pe == win32 || olds[2 * pe + 1] == *w32, "cswap_u32: loser %d saw 0x%llx", pe,
                  (unsigned long long)olds[2 * pe + 1]);
        }
    }
    BARRIER();
    /* a failing cswap with a matching low half does not write (full width) */
    if (me == npes - 1) {
        uint64_t cur;
        OK(kumi_get(&cur, w64, sizeof(cur), 0));
        OK(kumi_atomic_cswap_u64(w64, cur & 0xffffffffull, 7, 0, &old64));
        CHECK(old64 == cur, "cswap_u64 returned 0x%llx, word was 0x%llx",
              (unsigned long long)old64, (unsigned long long)cur);
        OK(kumi_get(&old64, w64, sizeof(old64), 0));
        CHECK(old64 == cur, "failed cswap_u64 changed the word to 0x%llx",
              (unsigned long long)old64);
    }
    BARRIER();
    kumi_free(olds);
    kumi_free(w32);
    kumi_free(w64);
}

/* A test-and-set lock on PE 0 (cswap 0 -> me + 1, released by swap back to
 * 0) around a read-modify-write of a plain counter by get and put. */
static void test_lock(int iters)
{
    uint64_t *lock = kumi_calloc(1, sizeof(uint64_t));
    uint64_t *ctr  = kumi_calloc(1, sizeof(uint64_t));
    uint64_t *in   = kumi_calloc(1, sizeof(uint64_t));  /* holders inside, by atomic add */

    CHECK(lock && ctr && in, "allocation failed");
    BARRIER();
    for (int i = 0; i < iters; i++) {
        uint64_t old, v, inside;
        unsigned tries = 0;
        for (;;) {
            OK(kumi_atomic_cswap_u64(lock, 0, (uint64_t)me + 1, 0, &old));
            if (old == 0)
                break;
            CHECK(old >= 1 && old <= (uint64_t)npes, "lock word holds 0x%llx",
                  (unsigned long long)old);
            if (++tries > 4)
                sched_yield();      /* let the holder run when oversubscribed */
        }
        OK(kumi_atomic_fetch_add_u64(in, 1, 0, &inside));
        CHECK(inside == 0, "%llu other PE(s) inside the critical section",
              (unsigned long long)inside);
        OK(kumi_get(&v, ctr, sizeof(v), 0));
        v++;
        OK(kumi_put(ctr, &v, sizeof(v), 0));
        OK(kumi_atomic_fetch_add_u64(in, (uint64_t)-1, 0, &inside));
        CHECK(inside == 1, "critical section count %llu on leaving", (unsigned long long)inside);
        OK(kumi_quiet());
        OK(kumi_atomic_swap_u64(lock, 0, 0, &old));
        CHECK(old == (uint64_t)me + 1, "lock held by 0x%llx when pe %d released it",
              (unsigned long long)old, me);
    }
    BARRIER();
    if (me == 0)
        CHECK(*ctr == (uint64_t)iters * (uint64_t)npes && *lock == 0,
              "lock-protected counter %llu, expected %llu (lock 0x%llx)",
              (unsigned long long)*ctr, (unsigned long long)iters * npes,
              (unsigned long long)*lock);
    BARRIER();
    kumi_free(in);
    kumi_free(ctr);
    kumi_free(lock);
}

int main(void)
{
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();

    int oversub = npes > 2;
    test_fetch_add(oversub ? 5000 : 20000);
    test_swap();
    test_cswap();
    test_lock(npes > 4 ? 500 : 2000);
    if (me == 0)
        printf("atomics: %d PEs ok\n", npes);
    OK(kumi_finalize());
    return 0;
}
