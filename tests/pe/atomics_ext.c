/* atomics_ext.c -- the extended remote atomics (and, or, xor, their fetching
 * forms, fetch = atomic load, set = atomic store) on u32 and u64, from all
 * PEs at once on the same words, with every returned value checked.
 *
 * Each PE owns a few bits of a shared word (a byte of a u64, a nibble of a
 * u32) on PE 0 and on the last PE, and flips them k times with the bitwise
 * operations while everyone else flips theirs in the same word: an update
 * lost to a non-atomic read-modify-write shows as a wrong old value or a
 * wrong final word. set/fetch: everyone stores tagged values into one word
 * and loads it back (never torn, never a value nobody stored), and each PE
 * keeps a private slot whose loads must return its latest store.
 *
 * usage: atomics_ext [k]   (rounds, default 300) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

static int me, npes;

/* PE p's bits: a byte of the u64 word, a nibble of the u32 word (<= 8 PEs) */
static uint64_t mine64(int p)
{
    return 0xa5ull << (8 * p);
}
static uint32_t mine32(int p)
{
    return 0x9u << (4 * p);
}

struct words {
    uint64_t w64[3];    /* fetching ops, non-fetching ops, set/fetch */
    uint32_t w32[3];
    uint64_t slot64[8]; /* slot p: PE p's alone */
    uint32_t slot32[8];
};

/* k rounds on target's words; my bits go 0 -> set -> clear -> toggled on
 * -> toggled off each round, whatever the others do to theirs. */
static void flip_bits(struct words *w, int target, int k)
{
    const uint64_t m64 = mine64(me);
    const uint32_t m32 = mine32(me);
    uint64_t       o64;
    uint32_t       o32;

    for (int i = 0; i < k; i++) {
        /* fetching forms: the old value shows exactly my previous step */
        OK(kumi_atomic_fetch_or_u64(&w->w64[0], m64, target, &o64));
        CHECK((o64 & m64) == 0, "fetch_or_u64 round %d: my bits 0x%llx before setting", i,
              (unsigned long long)(o64 & m64));
        OK(kumi_atomic_fetch_and_u64(&w->w64[0], ~m64, target, &o64));
        CHECK((o64 & m64) == m64, "fetch_and_u64 round %d: my bits 0x%llx before clearing", i,
              (unsigned long long)(o64 & m64));
        OK(kumi_atomic_fetch_xor_u64(&w->w64[0], m64, target, &o64));
        CHECK((o64 & m64) == 0, "fetch_xor_u64 round %d (on): 0x%llx", i,
              (unsigned long long)(o64 & m64));
        OK(kumi_atomic_fetch_xor_u64(&w->w64[0], m64, target, &o64));
        CHECK((o64 & m64) == m64, "fetch_xor_u64 round %d (off): 0x%llx", i,
              (unsigned long long)(o64 & m64));

        OK(kumi_atomic_fetch_or_u32(&w->w32[0], m32, target, &o32));
        CHECK((o32 & m32) == 0, "fetch_or_u32 round %d: 0x%x", i, o32 & m32);
        OK(kumi_atomic_fetch_and_u32(&w->w32[0], ~m32, target, &o32));
        CHECK((o32 & m32) == m32, "fetch_and_u32 round %d: 0x%x", i, o32 & m32);
        OK(kumi_atomic_fetch_xor_u32(&w->w32[0], m32, target, &o32));
        CHECK((o32 & m32) == 0, "fetch_xor_u32 round %d (on): 0x%x", i, o32 & m32);
        OK(kumi_atomic_fetch_xor_u32(&w->w32[0], m32, target, &o32));
        CHECK((o32 & m32) == m32, "fetch_xor_u32 round %d (off): 0x%x", i, o32 & m32);

        /* non-fetching forms, observed with fetch (ordered after them:
         * same PE, same target) */
        OK(kumi_atomic_or_u64(&w->w64[1], m64, target));
        OK(kumi_atomic_or_u32(&w->w32[1], m32, target));
        if (i % 8 == 0) {
            OK(kumi_atomic_fetch_u64(&w->w64[1], target, &o64));
            CHECK((o64 & m64) == m64, "or_u64 round %d: my bits 0x%llx", i,
                  (unsigned long long)(o64 & m64));
            OK(kumi_atomic_fetch_u32(&w->w32[1], target, &o32));
            CHECK((o32 & m32) == m32, "or_u32 round %d: 0x%x", i, o32 & m32);
        }
        OK(kumi_atomic_and_u64(&w->w64[1], ~m64, target));
        OK(kumi_atomic_and_u32(&w->w32[1], ~m32, target));
        OK(kumi_atomic_xor_u64(&w->w64[1], m64, target));
        OK(kumi_atomic_xor_u32(&w->w32[1], m32, target));
        if (i % 8 == 4) {
            OK(kumi_atomic_fetch_u64(&w->w64[1], target, &o64));
            CHECK((o64 & m64) == m64, "xor_u64 round %d: my bits 0x%llx", i,
                  (unsigned long long)(o64 & m64));
            OK(kumi_atomic_fetch_u32(&w->w32[1], target, &o32));
            CHECK((o32 & m32) == m32, "xor_u32 round %d: 0x%x", i, o32 & m32);
        }
        OK(kumi_atomic_xor_u64(&w->w64[1], m64, target));
        OK(kumi_atomic_xor_u32(&w->w32[1], m32, target));
    }
}

/* set/fetch: a shared word everyone stores (pe, round) into, and my slot */
static void set_fetch(struct words *w, int target, int k)
{
    uint64_t o64;
    uint32_t o32;

    for (int i = 1; i <= k; i++) {
        uint64_t v64 = ((uint64_t)(me + 1) << 48) | ((uint64_t)i << 16) | 0x5e7;
        uint32_t v32 = ((uint32_t)(me + 1) << 24) | (uint32_t)i;

        OK(kumi_atomic_set_u64(&w->w64[2], v64, target));
        OK(kumi_atomic_set_u32(&w->w32[2], v32, target));
        OK(kumi_atomic_fetch_u64(&w->w64[2], target, &o64));
        CHECK((o64 & 0xffff) == 0x5e7 && (o64 >> 48) >= 1 && (o64 >> 48) <= (uint64_t)npes
              && ((o64 >> 16) & 0xffffffffull) >= 1 && ((o64 >> 16) & 0xffffffffull) <= (uint64_t)k,
              "fetch_u64 round %d: 0x%llx is no value anybody set", i, (unsigned long long)o64);
        OK(kumi_atomic_fetch_u32(&w->w32[2], target, &o32));
        CHECK((o32 >> 24) >= 1 && (o32 >> 24) <= (uint32_t)npes && (o32 & 0xffffff) >= 1
              && (o32 & 0xffffff) <= (uint32_t)k, "fetch_u32 round %d: 0x%x", i, o32);
        /* my own slot: my last store, always */
        if ((o64 >> 48) == (uint64_t)(me + 1))
            CHECK(((o64 >> 16) & 0xffffffffull) <= (uint64_t)i, "fetch_u64: my round %llu from "
                  "the future (now %d)", (unsigned long long)((o64 >> 16) & 0xffffffffull), i);
        OK(kumi_atomic_set_u64(&w->slot64[me], v64, target));
        OK(kumi_atomic_set_u32(&w->slot32[me], v32, target));
        OK(kumi_atomic_fetch_u64(&w->slot64[me], target, &o64));
        CHECK(o64 == v64, "slot fetch_u64 round %d: 0x%llx, stored 0x%llx", i,
              (unsigned long long)o64, (unsigned long long)v64);
        OK(kumi_atomic_fetch_u32(&w->slot32[me], target, &o32));
        CHECK(o32 == v32, "slot fetch_u32 round %d: 0x%x, stored 0x%x", i, o32, v32);
    }
}

/* After everyone's rounds: the bitwise words are back to their start on
 * every bit of every PE, the slots hold each PE's last value. */
static void check_final(struct words *w, int target, int k)
{
    uint64_t o64;
    uint32_t o32;

    OK(kumi_atomic_fetch_u64(&w->w64[0], target, &o64));
    CHECK(o64 == 0, "fetching u64 word on PE %d ends 0x%llx, expected 0", target,
          (unsigned long long)o64);
    OK(kumi_atomic_fetch_u32(&w->w32[0], target, &o32));
    CHECK(o32 == 0, "fetching u32 word on PE %d ends 0x%x, expected 0", target, o32);
    OK(kumi_atomic_fetch_u64(&w->w64[1], target, &o64));
    CHECK(o64 == 0, "non-fetching u64 word on PE %d ends 0x%llx", target, (unsigned long long)o64);
    OK(kumi_atomic_fetch_u32(&w->w32[1], target, &o32));
    CHECK(o32 == 0, "non-fetching u32 word on PE %d ends 0x%x", target, o32);
    for (int p = 0; p < npes; p++) {
        OK(kumi_atomic_fetch_u64(&w->slot64[p], target, &o64));
        CHECK(o64 == (((uint64_t)(p + 1) << 48) | ((uint64_t)k << 16) | 0x5e7),
              "slot64[%d] on PE %d: 0x%llx", p, target, (unsigned long long)o64);
        OK(kumi_atomic_fetch_u32(&w->slot32[p], target, &o32));
        CHECK(o32 == (((uint32_t)(p + 1) << 24) | (uint32_t)k), "slot32[%d] on PE %d: 0x%x", p,
              target, o32);
    }
}

/* One PE, deterministic: each operation's result and old value. */
static void exact_values(struct words *w)
{
    uint64_t o64;
    uint32_t o32;
    int      pe = (me + 1) % npes;

    BARRIER();
    OK(kumi_atomic_set_u64(&w->slot64[me], 0xf0f0f0f0f0f0f0f0ull, pe));
    OK(kumi_atomic_and_u64(&w->slot64[me], 0xff00ff00ff00ff00ull, pe));
    OK(kumi_atomic_fetch_u64(&w->slot64[me], pe, &o64));
    CHECK(o64 == 0xf000f000f000f000ull, "and_u64: 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_or_u64(&w->slot64[me], 0x0000000f0000000full, pe));
    OK(kumi_atomic_xor_u64(&w->slot64[me], 0xffffffff00000000ull, pe));
    OK(kumi_atomic_fetch_xor_u64(&w->slot64[me], 1, pe, &o64));
    CHECK(o64 == 0x0fff0ff0f000f00full, "or+xor_u64: 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_fetch_and_u64(&w->slot64[me], 0xffffull, pe, &o64));
    CHECK(o64 == 0x0fff0ff0f000f00eull, "fetch_xor_u64 result: 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_fetch_or_u64(&w->slot64[me], 0x8000000000000000ull, pe, &o64));
    CHECK(o64 == 0xf00eull, "fetch_and_u64 result: 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_fetch_u64(&w->slot64[me], pe, &o64));
    CHECK(o64 == 0x800000000000f00eull, "fetch_or_u64 result: 0x%llx", (unsigned long long)o64);

    OK(kumi_atomic_set_u32(&w->slot32[me], 0xf0f0f0f0u, pe));
    OK(kumi_atomic_and_u32(&w->slot32[me], 0xff00ff00u, pe));
    OK(kumi_atomic_or_u32(&w->slot32[me], 0x0000000fu, pe));
    OK(kumi_atomic_xor_u32(&w->slot32[me], 0xffff0000u, pe));
    OK(kumi_atomic_fetch_xor_u32(&w->slot32[me], 1, pe, &o32));
    CHECK(o32 == 0x0ffff00fu, "and/or/xor_u32: 0x%x", o32);
    OK(kumi_atomic_fetch_and_u32(&w->slot32[me], 0xffffu, pe, &o32));
    CHECK(o32 == 0x0ffff00eu, "fetch_xor_u32 result: 0x%x", o32);
    OK(kumi_atomic_fetch_or_u32(&w->slot32[me], 0x80000000u, pe, &o32));
    CHECK(o32 == 0xf00eu, "fetch_and_u32 result: 0x%x", o32);
    OK(kumi_atomic_fetch_u32(&w->slot32[me], pe, &o32));
    CHECK(o32 == 0x8000f00eu, "fetch_or_u32 result: 0x%x", o32);
    /* the neighbouring slot was not touched by the u32 ops */
    BARRIER();
    CHECK(w->slot32[(me + npes - 1) % npes] == 0x8000f00eu, "my slot32 as left set it: 0x%x",
          w->slot32[(me + npes - 1) % npes]);
    BARRIER();
}

static void bad_arguments(struct words *w)
{
    uint64_t    o64, local = 0;
    uint32_t    o32;
    const char *msg;
    int         r[8];

    capture_begin();
    r[0] = kumi_atomic_fetch_u64(&w->w64[0], npes, &o64);
    r[1] = kumi_atomic_fetch_u64(&w->w64[0], 0, NULL);
    r[2] = kumi_atomic_fetch_and_u32(&w->w32[0], 1, 0, NULL);
    r[3] = kumi_atomic_or_u64((uint64_t *)(void *)((char *)&w->w64[0] + 4), 1, 0);
    r[4] = kumi_atomic_set_u32((uint32_t *)(void *)((char *)&w->w32[0] + 2), 1, 0);
    r[5] = kumi_atomic_xor_u64(&local, 1, 0);
    r[6] = kumi_atomic_fetch_u32((uint32_t *)(void *)&local, 0, &o32);
    r[7] = kumi_atomic_fetch_xor_u64(&w->w64[0], 1, -1, &o64);
    msg = capture_end();
    for (int i = 0; i < 8; i++)
        CHECK(r[i] == KUMI_ERR_INVALID, "bad call %d returned %d", i, r[i]);
    static const char *const want[] = {
        "kumi_atomic_fetch_u64: pe ", "kumi_atomic_fetch_u64: out is NULL",
        "kumi_atomic_fetch_and_u32: old is NULL", "kumi_atomic_or_u64: address",
        "not 8-byte aligned", "kumi_atomic_set_u32: address", "not 4-byte aligned",
        "kumi_atomic_xor_u64: address", "outside the symmetric heap",
        "kumi_atomic_fetch_u32: address", "kumi_atomic_fetch_xor_u64: pe -1 out of range",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        CHECK(strstr(msg, want[i]) != NULL, "no '%s' in:\n%s", want[i], msg);
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 300;

    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    CHECK(npes <= 8, "at most 8 PEs (a byte of a u64 each)");
    CHECK(k >= 1, "k %d", k);

    struct words *w = kumi_calloc(1, sizeof(*w));
    CHECK(w != NULL, "kumi_calloc");
    BARRIER();
    /* contended: everyone on PE 0's words, then on the last PE's */
    for (int t = 0; t < 2; t++) {
        int target = t == 0 ? 0 : npes - 1;
        flip_bits(w, target, k);
        set_fetch(w, target, k);
        BARRIER();
        check_final(w, target, k);
        BARRIER();
        if (me == target)
            memset(w, 0, sizeof(*w));
        BARRIER();
    }
    exact_values(w);
    bad_arguments(w);
    BARRIER();
    kumi_free(w);
    OK(kumi_finalize());
    if (me == 0)
        printf("atomics_ext: %d PEs, %d rounds ok\n", npes, k);
    return 0;
}
