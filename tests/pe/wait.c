/* wait.c -- kumi_wait_until_u8/u32/u64 with every comparison, on LLCM words
 * (written by kicks) and on symmetric heap words (written by puts), and
 * kumi_test_* on fixed values. The left neighbour first writes a value that
 * does not satisfy the condition, pauses, then one that does: the wait must
 * return only after the second, and the word must then satisfy it.
 * Run under each KUMI_WAIT policy. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kumi.h>

#include "pe_test.h"

static int me, npes;

static const char *const cmp_names[] = { "EQ", "NE", "GT", "GE", "LT", "LE" };

/* per comparison: initial value, a non-satisfying write, the satisfying one,
 * around target 100 (plus a width-dependent base so u32/u64 use high bits) */
static const struct { int cmp; uint64_t init, miss, hit; } cases[] = {
    { KUMI_CMP_EQ, 0, 99, 100 },
    { KUMI_CMP_NE, 100, 100, 7 },
    { KUMI_CMP_GT, 0, 100, 101 },
    { KUMI_CMP_GE, 0, 99, 100 },
    { KUMI_CMP_LT, 200, 100, 99 },
    { KUMI_CMP_LE, 200, 101, 100 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void nap_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static int holds(uint64_t a, int cmp, uint64_t b)
{
    switch (cmp) {
    case KUMI_CMP_EQ: return a == b;
    case KUMI_CMP_NE: return a != b;
    case KUMI_CMP_GT: return a > b;
    case KUMI_CMP_GE: return a >= b;
    case KUMI_CMP_LT: return a < b;
    default:          return a <= b;
    }
}

static uint64_t load(volatile void *w, size_t width)
{
    /* atomic: on tcp the progress thread delivers while we read */
    return width == 1   ? __atomic_load_n((volatile uint8_t *)w, __ATOMIC_ACQUIRE)
           : width == 4 ? __atomic_load_n((volatile uint32_t *)w, __ATOMIC_ACQUIRE)
                        : __atomic_load_n((volatile uint64_t *)w, __ATOMIC_ACQUIRE);
}

static void store(volatile void *w, size_t width, uint64_t v)
{
    if (width == 1)
        *(volatile uint8_t *)w = (uint8_t)v;
    else if (width == 4)
        *(volatile uint32_t *)w = (uint32_t)v;
    else
        *(volatile uint64_t *)w = v;
}

static int wait_until(volatile void *w, size_t width, int cmp, uint64_t v)
{
    if (width == 1)
        return kumi_wait_until_u8(w, cmp, (uint8_t)v);
    if (width == 4)
        return kumi_wait_until_u32(w, cmp, (uint32_t)v);
    return kumi_wait_until_u64(w, cmp, v);
}

/* One case: my word (in LLCM at llcm_off, or the heap word sym) is written
 * by my left neighbour; I write my right neighbour's. */
static void run_case(size_t width, size_t ci, int use_llcm, size_t llcm_off, uint8_t *sym)
{
    const int right = (me + 1) % npes;
    uint64_t  base = width == 8 ? 0xf000000000000000ull : width == 4 ? 0xf0000000ull : 0;
    uint64_t  init = base + cases[ci].init, miss = base + cases[ci].miss,
              hit = base + cases[ci].hit, target = base + 100;
    int       cmp = cases[ci].cmp;
    volatile void *mine = use_llcm ? (volatile void *)kumi_llcm(llcm_off) : (volatile void *)sym;
    const char *where = use_llcm ? "LLCM" : "heap";

    store(mine, width, init);
    BARRIER();
    /* write my right neighbour's word: miss, pause, hit */
    uint64_t vals[2] = { miss, hit };
    for (int i = 0; i < 2; i++) {
        if (use_llcm)
            OK(kumi_kick(right, llcm_off, &vals[i], width));   /* little endian */
        else
            OK(kumi_put(sym, &vals[i], width, right));
        if (i == 0)
            nap_ms(2);
    }
    int rc = wait_until(mine, width, cmp, target);
    CHECK(rc == KUMI_OK, "wait_until_u%zu(%s %s) returned %s", width * 8, where,
          cmp_names[cmp], kumi_strerror(rc));
    uint64_t now = load(mine, width);
    CHECK(now == hit, "wait_until_u%zu(%s, %s %llu) returned with the word at %llu, expected "
          "%llu", width * 8, where, cmp_names[cmp], (unsigned long long)target,
          (unsigned long long)now, (unsigned long long)hit);
    CHECK(holds(now, cmp, target), "condition does not hold after the wait");
    BARRIER();
}

static void test_waits(void)
{
    static const size_t widths[] = { 1, 4, 8 };
    size_t   llcm_off = kumi_llcm_alloc(8);
    uint8_t *sym = kumi_calloc(1, 8);

    CHECK(llcm_off != (size_t)-1 && sym != NULL, "allocation failed");
    for (size_t w = 0; w < 3; w++)
        for (size_t ci = 0; ci < NCASES; ci++)
            for (int use_llcm = 0; use_llcm < 2; use_llcm++)
                run_case(widths[w], ci, use_llcm, llcm_off, sym);
    kumi_free(sym);
}

/* kumi_test_*: local values, every comparison, edge values */
static void test_tests(void)
{
    static volatile uint64_t w64;
    static volatile uint32_t w32;
    static volatile uint8_t  w8;
    static const uint64_t vals64[] = { 0, 1, 100, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                       UINT64_MAX };
    static const uint32_t vals32[] = { 0, 1, 100, 0x7fffffffu, 0x80000000u, UINT32_MAX };
    static const uint8_t  vals8[]  = { 0, 1, 100, 127, 128, 255 };

    for (int cmp = KUMI_CMP_EQ; cmp <= KUMI_CMP_LE; cmp++)
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                w64 = vals64[i];
                w32 = vals32[i];
                w8  = vals8[i];
                int r64 = kumi_test_u64(&w64, cmp, vals64[j]);
                int r32 = kumi_test_u32(&w32, cmp, vals32[j]);
                int r8  = kumi_test_u8(&w8, cmp, vals8[j]);
                CHECK(r64 == holds(vals64[i], cmp, vals64[j]), "kumi_test_u64(%llu %s %llu) = %d",
                      (unsigned long long)vals64[i], cmp_names[cmp],
                      (unsigned long long)vals64[j], r64);
                CHECK(r32 == holds(vals32[i], cmp, vals32[j]), "kumi_test_u32(%u %s %u) = %d",
                      vals32[i], cmp_names[cmp], vals32[j], r32);
                CHECK(r8 == holds(vals8[i], cmp, vals8[j]), "kumi_test_u8(%u %s %u) = %d",
                      vals8[i], cmp_names[cmp], vals8[j], r8);
                /* a condition that holds returns from a wait at once */
                if (r64)
                    OK(kumi_wait_until_u64(&w64, cmp, vals64[j]));
                if (r32)
                    OK(kumi_wait_until_u32(&w32, cmp, vals32[j]));
                if (r8)
                    OK(kumi_wait_until_u8(&w8, cmp, vals8[j]));
            }
}

/* kumi_test on a word a peer sets: 0 until the peer writes, then 1 */
static void test_test_remote(void)
{
    size_t off = kumi_llcm_alloc(8);
    volatile uint64_t *mine = kumi_llcm(off);
    uint64_t one = 1;

    CHECK(off != (size_t)-1, "kumi_llcm_alloc failed");
    CHECK(kumi_test_u64(mine, KUMI_CMP_EQ, 1) == 0, "kumi_test saw a value nobody wrote");
    BARRIER();
    OK(kumi_kick((me + 1) % npes, off, &one, 8));
    while (kumi_test_u64(mine, KUMI_CMP_EQ, 1) == 0)
        sched_yield();
    BARRIER();
}

int main(void)
{
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    double t0 = kumi_wtime();
    test_tests();
    test_test_remote();
    test_waits();
    if (me == 0) {
        const char *w = getenv("KUMI_WAIT");
        printf("wait: %d PEs ok (KUMI_WAIT=%s, %.2fs)\n", npes, w ? w : "(auto)",
               kumi_wtime() - t0);
    }
    OK(kumi_finalize());
    return 0;
}
