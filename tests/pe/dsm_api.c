/*
 * dsm_api.c -- the DSM's allocation and access calls (kumi.h, DSM section)
 * as a program uses them, on every transport.
 *
 *   dsm_api [PART]     PART: all (default, every part below but exhaust),
 *                      alloc, calloc, blocks, big, free, flag, cross,
 *                      acquire, stats, errors, exhaust
 *
 *   alloc    every PE allocates (not collective: odd PEs allocate more than
 *            even ones); blocks are 64-byte aligned, disjoint across PEs,
 *            kumi_dsm_is_shared holds for them (first and last byte) and not
 *            for stack, malloc or symmetric-heap memory; what the home wrote
 *            is read by every other PE (kumi_dsm_ld8/ld64)
 *   calloc   kumi_dsm_calloc zeroes, also memory that was dirtied, cached by
 *            other PEs and freed; n x size overflow is NULL and a message
 *   blocks   kumi_dsm_malloc_block for 64..4096 (aligned to the block size,
 *            data moves); 63, 8192, 96, 0, 32, 1 are NULL and a message
 *   big      4 KiB blocks written whole (kumi_dsm_write, and word by word
 *            with kumi_dsm_st64) by each PE in turn and read whole by the
 *            others; one miss per block whatever the access width
 *   free     an allocation read by every PE and freed by a PE that is not
 *            its home: the home's next allocations work, and nobody sees
 *            the old data through a stale copy
 *   flag     data equal to the flag pattern that fills invalid lines
 *            (KUMI_DSM_FLAG64, FLAG32, the flag's bytes at 1- and 2-byte
 *            widths) written on one PE and read on others at every width,
 *            then partly overwritten and restored
 *   cross    unaligned ranges crossing lines and blocks through
 *            kumi_dsm_read/write, and crossing 2/4/8-byte accesses through
 *            the slow paths the translator calls for them
 *   acquire  kumi_dsm_acquire(READ) then a plain memcpy of the range;
 *            acquire(WRITE) then plain stores, read elsewhere; bad modes
 *   stats    kumi_dsm_stats counts exactly one read miss per missing block,
 *            an upgrade for a store to a shared copy, and messages
 *   errors   bad arguments: NULL buffers, addresses outside the region,
 *            freed memory, double free; after kumi_finalize KUMI_ERR_STATE
 *   solo     the checks' span (check.h's kumi_dsm_in) is empty exactly
 *            when the job has one PE and KUMI_DSM_SOLO is not 0, while
 *            kumi_dsm_is_shared, the explicit calls, free and realloc
 *            still know the region
 *   exhaust  (KUMI_DSM_SIZE=8m) each PE fills its share: NULL and one
 *            message naming KUMI_DSM_SIZE; the others' shares are
 *            unaffected; chunks freed by another PE are reused; everything
 *            freed coalesces
 *
 * Accesses go through dsm/check.h (what kumicc's translator emits) or the
 * explicit calls: a plain load of DSM memory is not coherent.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../dsm/check.h"
#include "pe_test.h"

static int me, npes;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A data word that is never the flag pattern. */
static uint64_t sig(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t v = mix(a * 1000003u ^ mix(b * 7919u ^ mix(c)));
    return v == KUMI_DSM_FLAG64 ? v + 1 : v;
}

static void *bcast_ptr(void *p, int root)
{
    OK(kumi_broadcast(kumi_team_world(), &p, sizeof(p), root));
    return p;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Runs expr (a pointer-valued DSM call) with stderr captured: it must
 * return NULL and print one line containing text1 and text2. */
#define EXPECT_NULL(text1, text2, expr)                                                  \
    do {                                                                                 \
        capture_begin();                                                                 \
        void       *p_e_   = (void *)(expr);                                             \
        const char *out_e_ = capture_end();                                              \
        CHECK(p_e_ == NULL, "%s returned %p", #expr, p_e_);                              \
        CHECK(strstr(out_e_, (text1)) != NULL && strstr(out_e_, (text2)) != NULL,        \
              "%s printed '%s', expected '%s' ... '%s'", #expr, out_e_, (text1), (text2)); \
        CHECK(count_lines(out_e_) == 1, "%s printed %d lines: '%s'", #expr,              \
              count_lines(out_e_), out_e_);                                              \
    } while (0)

/* The same for a status-returning call. */
#define EXPECT_ERR(want, text, expr)                                                     \
    do {                                                                                 \
        capture_begin();                                                                 \
        int         rc_e_  = (expr);                                                     \
        const char *out_e_ = capture_end();                                              \
        CHECK(rc_e_ == (want), "%s returned %s", #expr, kumi_strerror(rc_e_));           \
        CHECK(strstr(out_e_, (text)) != NULL, "%s printed '%s', expected '%s'", #expr,   \
              out_e_, (text));                                                           \
    } while (0)

/* kumi_dsm_free returns nothing: a free that fails says so on stderr */
static void free_ok(void *p)
{
    capture_begin();
    kumi_dsm_free(p);
    const char *out = capture_end();
    CHECK(out[0] == '\0', "kumi_dsm_free(%p) printed '%s'", p, out);
}

/* What kumi_dsm_ld<w> / kumi_dsm_st<w> do, through memcpy so that an
 * unaligned (line-crossing) address is no misaligned C access. */
static uint64_t ld_any(const void *p, unsigned w)
{
    uint64_t bits = 0;
    memcpy(&bits, p, w);
    if (kumi_dsm_in(p) && (bits == kumi_dsm_flag_at(p, w) || kumi_dsm_crosses(p, w)))
        bits = kumi_dsm_load_miss(p, w);
    return bits;
}
static void st_any(void *p, uint64_t v, unsigned w)
{
    kumi_dsm_check_store(p, w);
    memcpy(p, &v, w);
}

/* ----------------------------------------------------------------- alloc */

#define NSIZES 6
static const size_t alloc_sizes[NSIZES] = { 1, 8, 100, 4096, 4097, 70000 };

static void test_alloc(void)
{
    uint8_t  *mine[NSIZES], *extra[3] = { NULL, NULL, NULL };
    uint8_t **all = malloc((size_t)npes * NSIZES * sizeof(*all));
    CHECK(all != NULL, "malloc");

    /* not collective: odd PEs allocate more, and in between */
    for (int i = 0; i < NSIZES; i++) {
        if (me % 2 == 1 && i < 3) {
            extra[i] = kumi_dsm_malloc(333 * (size_t)(i + 1));
            CHECK(extra[i] != NULL, "extra allocation %d", i);
        }
        mine[i] = kumi_dsm_malloc(alloc_sizes[i]);
        CHECK(mine[i] != NULL, "kumi_dsm_malloc(%zu) failed", alloc_sizes[i]);
        CHECK((uintptr_t)mine[i] % 64 == 0, "%p (%zu bytes) is not 64-byte aligned",
              (void *)mine[i], alloc_sizes[i]);
        CHECK(kumi_dsm_is_shared(mine[i]) == 1 && kumi_dsm_is_shared(mine[i] + alloc_sizes[i] - 1) == 1,
              "kumi_dsm_is_shared(%p) is not 1", (void *)mine[i]);
    }
    int               local = 0;
    void             *heap  = malloc(64);
    void             *sym   = kumi_malloc(64);
    CHECK(heap != NULL && sym != NULL, "malloc");
    CHECK(kumi_dsm_is_shared(&local) == 0, "a stack address is shared");
    CHECK(kumi_dsm_is_shared(heap) == 0, "a malloc address is shared");
    CHECK(kumi_dsm_is_shared(sym) == 0, "a symmetric heap address is shared");
    CHECK(kumi_dsm_is_shared(NULL) == 0, "NULL is shared");
    free(heap);

    OK(kumi_allgather(kumi_team_world(), all, mine, sizeof(mine)));
    /* disjoint: every allocation of every PE against every other */
    for (int a = 0; a < npes * NSIZES; a++)
        for (int b = a + 1; b < npes * NSIZES; b++) {
            uintptr_t pa = (uintptr_t)all[a], pb = (uintptr_t)all[b];
            size_t    la = alloc_sizes[a % NSIZES], lb = alloc_sizes[b % NSIZES];
            CHECK(pa + la <= pb || pb + lb <= pa, "PE %d's allocation %d [%p, +%zu) overlaps PE "
                  "%d's allocation %d [%p, +%zu)", a / NSIZES, a % NSIZES, (void *)pa, la,
                  b / NSIZES, b % NSIZES, (void *)pb, lb);
        }
    /* the home writes (it holds new blocks exclusively: no misses) */
    for (int i = 0; i < NSIZES; i++) {
        if (alloc_sizes[i] < 8) {
            kumi_dsm_st8(mine[i], (uint8_t)(0x40 + me));
            continue;
        }
        uint64_t *w = (uint64_t *)(void *)mine[i];
        for (size_t k = 0; k < alloc_sizes[i] / 8; k++)
            kumi_dsm_st64(&w[k], sig((uint64_t)me, (uint64_t)i, k));
    }
    BARRIER();
    /* every PE reads every PE's allocations */
    for (int d = 1; d <= npes; d++) {
        int pe = (me + d) % npes;
        for (int i = 0; i < NSIZES; i++) {
            uint8_t *p = all[pe * NSIZES + i];
            if (alloc_sizes[i] < 8) {
                uint8_t v = kumi_dsm_ld8(p);
                CHECK(v == 0x40 + pe, "PE %d's 1-byte allocation %p reads 0x%x", pe, (void *)p, v);
                continue;
            }
            const uint64_t *w = (const uint64_t *)(void *)p;
            for (size_t k = 0; k < alloc_sizes[i] / 8; k++) {
                uint64_t v = kumi_dsm_ld64(&w[k]);
                CHECK(v == sig((uint64_t)pe, (uint64_t)i, k), "PE %d's allocation %d word %zu "
                      "(%p) reads 0x%llx, expected 0x%llx", pe, i, k, (void *)&w[k],
                      (unsigned long long)v, (unsigned long long)sig((uint64_t)pe, (uint64_t)i, k));
            }
        }
    }
    BARRIER();
    for (int i = 0; i < NSIZES; i++)
        free_ok(mine[i]);
    for (int i = 0; i < 3; i++)
        free_ok(extra[i]);
    kumi_free(sym);
    free(all);
    BARRIER();
}

/* ---------------------------------------------------------------- calloc */

static void test_calloc(void)
{
    const size_t n = 1000, sz = 24;
    uint8_t     *junk = malloc(n * sz);
    uint8_t     *back = malloc(n * sz);
    CHECK(junk != NULL && back != NULL, "malloc");
    memset(junk, 0xa5, n * sz);

    /* dirty memory that every PE caches, then freed by its home */
    uint8_t *d = kumi_dsm_malloc(n * sz);
    CHECK(d != NULL, "kumi_dsm_malloc");
    OK(kumi_dsm_write(d, junk, n * sz));
    uint8_t **all = malloc((size_t)npes * sizeof(*all));
    CHECK(all != NULL, "malloc");
    OK(kumi_allgather(kumi_team_world(), all, &d, sizeof(d)));
    int right = (me + 1) % npes;
    OK(kumi_dsm_read(back, all[right], n * sz));
    CHECK(memcmp(back, junk, n * sz) == 0, "PE %d's dirty block does not read back", right);
    BARRIER();
    free_ok(d);

    uint64_t *z = kumi_dsm_calloc(n, sz);
    CHECK(z != NULL, "kumi_dsm_calloc(%zu, %zu)", n, sz);
    CHECK((uintptr_t)z % 64 == 0, "calloc'd %p not 64-byte aligned", (void *)z);
    for (size_t k = 0; k < n * sz / 8; k++)
        CHECK(kumi_dsm_ld64(&z[k]) == 0, "calloc'd word %zu is not 0 at its home", k);
    OK(kumi_allgather(kumi_team_world(), all, &z, sizeof(z)));
    BARRIER();
    /* the others read zeroes, not their stale copies of d */
    const uint64_t *rz = (const uint64_t *)(void *)all[right];
    for (size_t k = 0; k < n * sz / 8; k++)
        CHECK(kumi_dsm_ld64(&rz[k]) == 0, "PE %d's calloc'd word %zu reads 0x%llx here", right, k,
              (unsigned long long)kumi_dsm_ld64(&rz[k]));
    memset(back, 1, n * sz);
    OK(kumi_dsm_read(back, all[right], n * sz));
    for (size_t k = 0; k < n * sz; k++)
        CHECK(back[k] == 0, "PE %d's calloc'd byte %zu reads 0x%x (kumi_dsm_read)", right, k,
              back[k]);
    BARRIER();
    free_ok(z);

    /* small callocs of odd sizes */
    for (size_t s = 1; s < 200; s += 37) {
        uint8_t *c = kumi_dsm_calloc(3, s);
        CHECK(c != NULL, "kumi_dsm_calloc(3, %zu)", s);
        for (size_t k = 0; k < 3 * s; k++)
            CHECK(kumi_dsm_ld8(&c[k]) == 0, "calloc(3, %zu) byte %zu not 0", s, k);
        free_ok(c);
    }
    EXPECT_NULL("kumi_dsm_calloc", "overflows", kumi_dsm_calloc(SIZE_MAX / 2, 4));
    CHECK(kumi_dsm_calloc(0, 8) == NULL, "kumi_dsm_calloc(0, 8) is not NULL");
    CHECK(kumi_dsm_malloc(0) == NULL, "kumi_dsm_malloc(0) is not NULL");
    free(all);
    free(junk);
    free(back);
    BARRIER();
}

/* ---------------------------------------------------------------- blocks */

static void test_blocks(void)
{
    uint64_t *p[7];
    int       nb = 0;

    for (size_t bs = 64; bs <= 4096; bs *= 2, nb++) {
        /* sizes below, at and above the block size */
        size_t size = nb % 3 == 0 ? 8 : nb % 3 == 1 ? bs : bs * 3 + 8;
        p[nb]       = kumi_dsm_malloc_block(size, bs);
        CHECK(p[nb] != NULL, "kumi_dsm_malloc_block(%zu, %zu)", size, bs);
        CHECK((uintptr_t)p[nb] % bs == 0, "kumi_dsm_malloc_block(%zu, %zu) = %p is not aligned "
              "to its block", size, bs, (void *)p[nb]);
        for (size_t k = 0; k < size / 8; k++)
            kumi_dsm_st64(&p[nb][k], sig(bs, (uint64_t)me, k));
    }
    static const size_t bad[] = { 63, 8192, 96, 0, 32, 1, 4095, 65536 };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char num[32];
        snprintf(num, sizeof num, "block size %zu", bad[i]);
        EXPECT_NULL("kumi_dsm_malloc", num, kumi_dsm_malloc_block(128, bad[i]));
    }
    uint64_t **all = malloc((size_t)npes * sizeof(p));
    CHECK(all != NULL, "malloc");
    OK(kumi_allgather(kumi_team_world(), all, p, sizeof(p)));
    BARRIER();
    int pe = (me + 1) % npes;
    nb     = 0;
    for (size_t bs = 64; bs <= 4096; bs *= 2, nb++) {
        size_t    size = nb % 3 == 0 ? 8 : nb % 3 == 1 ? bs : bs * 3 + 8;
        uint64_t *q    = all[pe * 7 + nb];
        for (size_t k = 0; k < size / 8; k++)
            CHECK(kumi_dsm_ld64(&q[k]) == sig(bs, (uint64_t)pe, k), "PE %d's %zu-byte-block "
                  "allocation word %zu reads wrong", pe, bs, k);
    }
    BARRIER();
    for (int i = 0; i < 7; i++)
        free_ok(p[i]);
    free(all);
    BARRIER();
}

/* ------------------------------------------------------------------- big */

#define BIG_NB 8
static void test_big(void)
{
    const size_t bs = 4096;
    uint8_t     *r  = NULL;
    uint64_t    *buf = malloc(bs), *got = malloc(bs);
    CHECK(buf != NULL && got != NULL, "malloc");

    if (me == 0) {
        r = kumi_dsm_malloc_block(BIG_NB * bs, bs);
        CHECK(r != NULL, "kumi_dsm_malloc_block(%zu, 4096)", BIG_NB * bs);
    }
    r = bcast_ptr(r, 0);
    for (int round = 0; round < 2 * npes; round++) {
        int writer = round % npes, by_words = round >= npes;
        if (me == writer) {
            kumi_dsm_stats_t s0, s1;
            OK(kumi_dsm_stats(&s0));
            for (int b = 0; b < BIG_NB; b++) {
                uint64_t *blk = (uint64_t *)(void *)(r + (size_t)b * bs);
                for (size_t k = 0; k < bs / 8; k++)
                    buf[k] = sig((uint64_t)round, (uint64_t)b, k);
                if (by_words)
                    for (size_t k = 0; k < bs / 8; k++)
                        kumi_dsm_st64(&blk[k], buf[k]);
                else
                    OK(kumi_dsm_write(blk, buf, bs));
            }
            OK(kumi_dsm_stats(&s1));
            uint64_t w = (s1.write_misses - s0.write_misses) + (s1.upgrades - s0.upgrades);
            /* one miss per 4 KiB block (none when the writer still held them) */
            CHECK(w <= BIG_NB && (npes == 1 || round == 0 || w == BIG_NB),
                  "round %d: %llu write misses + upgrades for %d blocks", round,
                  (unsigned long long)w, BIG_NB);
        }
        BARRIER();
        if (me != writer) {
            kumi_dsm_stats_t s0, s1;
            OK(kumi_dsm_stats(&s0));
            for (int b = 0; b < BIG_NB; b++) {
                const uint64_t *blk = (const uint64_t *)(void *)(r + (size_t)b * bs);
                if ((b + me) % 2 == 0) {
                    OK(kumi_dsm_read(got, blk, bs));
                } else {
                    for (size_t k = 0; k < bs / 8; k++)
                        got[k] = kumi_dsm_ld64(&blk[k]);
                }
                for (size_t k = 0; k < bs / 8; k++)
                    CHECK(got[k] == sig((uint64_t)round, (uint64_t)b, k), "round %d (writer PE "
                          "%d): block %d word %zu reads 0x%llx", round, writer, b, k,
                          (unsigned long long)got[k]);
            }
            OK(kumi_dsm_stats(&s1));
            CHECK(s1.read_misses - s0.read_misses == BIG_NB, "round %d: %llu read misses for "
                  "%d fresh 4 KiB blocks (expected one each)", round,
                  (unsigned long long)(s1.read_misses - s0.read_misses), BIG_NB);
        }
        BARRIER();
    }
    BARRIER();
    if (me == npes - 1)
        free_ok(r);   /* by a non-home PE (when there is one) */
    free(buf);
    free(got);
    BARRIER();
}

/* ------------------------------------------------------------------ free */

static void test_free(void)
{
    const size_t size = 64 << 10, bs = 256;
    uint64_t    *a = NULL;
    uint64_t     n = size / 8;

    if (me == 0) {
        a = kumi_dsm_malloc_block(size, bs);
        CHECK(a != NULL, "kumi_dsm_malloc_block");
        for (uint64_t k = 0; k < n; k++)
            kumi_dsm_st64(&a[k], sig(1, 2, k));
    }
    a = bcast_ptr(a, 0);
    BARRIER();
    for (uint64_t k = 0; k < n; k++)   /* everyone holds a copy */
        CHECK(kumi_dsm_ld64(&a[k]) == sig(1, 2, k), "word %llu", (unsigned long long)k);
    BARRIER();
    if (me == npes - 1)
        free_ok(a);   /* not the home (unless alone) */
    BARRIER();
    /* the home allocates again, several times the freed size in total:
     * whatever it reuses must be its own again, with no stale copies */
    uint64_t *b[4] = { NULL, NULL, NULL, NULL };
    if (me == 0) {
        int reused = 0;
        for (int i = 0; i < 4; i++) {
            b[i] = kumi_dsm_malloc_block(size, bs);
            CHECK(b[i] != NULL, "kumi_dsm_malloc_block after a remote free");
            reused += (uintptr_t)b[i] < (uintptr_t)a + size && (uintptr_t)a < (uintptr_t)b[i] + size;
            for (uint64_t k = 0; k < n; k++)
                kumi_dsm_st64(&b[i][k], sig(3, (uint64_t)i, k));
        }
        printf("dsm_api free: the freed allocation %s reused\n", reused ? "was" : "was NOT");
    }
    OK(kumi_broadcast(kumi_team_world(), b, sizeof(b), 0));
    BARRIER();
    for (int i = 0; i < 4; i++)
        for (uint64_t k = 0; k < n; k++) {
            uint64_t v = kumi_dsm_ld64(&b[i][k]);
            CHECK(v == sig(3, (uint64_t)i, k), "allocation %d (after PE %d freed %p) word %llu "
                  "reads 0x%llx%s", i, npes - 1, (void *)a, (unsigned long long)k,
                  (unsigned long long)v, v == sig(1, 2, k) ? " (the freed data: a stale copy)" : "");
        }
    BARRIER();
    /* any PE frees, each allocation once */
    for (int i = me; i < 4; i += npes)
        free_ok(b[i]);
    BARRIER();
}

/* ------------------------------------------------------------------ flag */

static void check_flag_lines(const uint8_t *p, size_t lines, int skip_word, const char *when)
{
    for (size_t off = 0; off < lines * 64; off++) {
        const uint8_t *q   = p + off;
        int            in_skip = skip_word >= 0 && off % 64 / 8 == (size_t)skip_word;
        if (in_skip)
            continue;
        uint8_t v8 = kumi_dsm_ld8(q);
        CHECK(v8 == kumi_dsm_flag_at(q, 1), "%s: byte %zu reads 0x%x, flag byte 0x%llx", when,
              off, v8, (unsigned long long)kumi_dsm_flag_at(q, 1));
        if (off % 2 == 0) {
            uint16_t v = kumi_dsm_ld16((const uint16_t *)(const void *)q);
            CHECK(v == kumi_dsm_flag_at(q, 2), "%s: 2 bytes at %zu read 0x%x", when, off, v);
        }
        if (off % 4 == 0) {
            uint32_t v = kumi_dsm_ld32((const uint32_t *)(const void *)q);
            CHECK(v == KUMI_DSM_FLAG32, "%s: 4 bytes at %zu read 0x%x", when, off, v);
        }
        if (off % 8 == 0) {
            uint64_t v = kumi_dsm_ld64((const uint64_t *)(const void *)q);
            CHECK(v == KUMI_DSM_FLAG64, "%s: 8 bytes at %zu read 0x%llx", when, off,
                  (unsigned long long)v);
        }
    }
}

static void test_flag(void)
{
    enum { LINES = 4 };
    uint8_t *p = NULL;
    int      w1 = 1 % npes, w2 = 0;

    if (me == 0) {
        p = kumi_dsm_calloc(LINES, 64);
        CHECK(p != NULL, "kumi_dsm_calloc");
    }
    p = bcast_ptr(p, 0);
    BARRIER();
    /* everyone caches the zeroes first: the flag then arrives by update */
    for (size_t k = 0; k < LINES * 8; k++)
        CHECK(kumi_dsm_ld64((const uint64_t *)(const void *)p + k) == 0, "calloc'd word %zu", k);
    BARRIER();
    if (me == w1) {
        /* line 0 by 8-byte stores, 1 by 4, 2 by 1, 3 by 2: all the flag */
        for (size_t k = 0; k < 8; k++)
            kumi_dsm_st64((uint64_t *)(void *)(p + 8 * k), KUMI_DSM_FLAG64);
        for (size_t k = 0; k < 16; k++)
            kumi_dsm_st32((uint32_t *)(void *)(p + 64 + 4 * k), KUMI_DSM_FLAG32);
        for (size_t k = 0; k < 64; k++)
            kumi_dsm_st8(p + 128 + k, (uint8_t)kumi_dsm_flag_at(p + 128 + k, 1));
        for (size_t k = 0; k < 32; k++)
            kumi_dsm_st16((uint16_t *)(void *)(p + 192 + 2 * k),
                          (uint16_t)kumi_dsm_flag_at(p + 192 + 2 * k, 2));
    }
    BARRIER();
    check_flag_lines(p, LINES, -1, "flag data written by the neighbour");
    uint8_t whole[LINES * 64];
    OK(kumi_dsm_read(whole, p, sizeof whole));
    for (size_t k = 0; k < sizeof whole; k += 8) {
        uint64_t v;
        memcpy(&v, whole + k, 8);
        CHECK(v == KUMI_DSM_FLAG64, "kumi_dsm_read of flag data: word %zu is 0x%llx", k / 8,
              (unsigned long long)v);
    }
    BARRIER();
    /* another PE changes word 3 of each line; the rest stays the flag */
    if (me == w2)
        for (size_t l = 0; l < LINES; l++)
            kumi_dsm_st64((uint64_t *)(void *)(p + 64 * l + 24), sig(7, l, 0));
    BARRIER();
    check_flag_lines(p, LINES, 3, "after the update");
    for (size_t l = 0; l < LINES; l++) {
        uint64_t v = kumi_dsm_ld64((const uint64_t *)(const void *)(p + 64 * l + 24));
        CHECK(v == sig(7, l, 0), "line %zu word 3 reads 0x%llx after the update", l,
              (unsigned long long)v);
    }
    BARRIER();
    /* and back to the flag, by 1-byte stores from the first writer */
    if (me == w1)
        for (size_t l = 0; l < LINES; l++)
            for (size_t k = 24; k < 32; k++)
                kumi_dsm_st8(p + 64 * l + k, (uint8_t)kumi_dsm_flag_at(p + 64 * l + k, 1));
    BARRIER();
    check_flag_lines(p, LINES, -1, "after restoring the flag");
    /* a whole line of flag data by kumi_dsm_write, read by the others */
    BARRIER();
    if (me == (npes > 2 ? 2 : w2)) {
        uint64_t line[8];
        for (int k = 0; k < 8; k++)
            line[k] = k % 2 ? KUMI_DSM_FLAG64 : sig(8, (uint64_t)k, 0);
        OK(kumi_dsm_write(p + 64, line, 64));
    }
    BARRIER();
    for (int k = 0; k < 8; k++) {
        uint64_t v = kumi_dsm_ld64((const uint64_t *)(const void *)(p + 64 + 8 * k));
        CHECK(v == (k % 2 ? KUMI_DSM_FLAG64 : sig(8, (uint64_t)k, 0)), "mixed line word %d "
              "reads 0x%llx", k, (unsigned long long)v);
    }
    BARRIER();
    if (me == 0)
        free_ok(p);
    BARRIER();
}

/* ----------------------------------------------------------------- cross */

static void test_cross(void)
{
    const size_t size = 8192;
    uint8_t     *r[2] = { NULL, NULL };   /* 64- and 256-byte blocks */
    uint8_t     *shadow[2], *buf = malloc(size + 64);
    CHECK(buf != NULL, "malloc");

    for (int a = 0; a < 2; a++) {
        int home = (a + 1) % npes;
        if (me == home) {
            r[a] = kumi_dsm_malloc_block(size, a == 0 ? 64 : 256);
            CHECK(r[a] != NULL, "kumi_dsm_malloc_block");
            memset(buf, 0, size);
            OK(kumi_dsm_write(r[a], buf, size));
        }
        r[a]      = bcast_ptr(r[a], home);
        shadow[a] = calloc(1, size);
        CHECK(shadow[a] != NULL, "calloc");
    }
    BARRIER();
    for (int round = 0; round < 60; round++) {
        uint64_t h      = mix((uint64_t)round + 77);
        int      a      = (int)(h & 1);
        int      writer = (int)((h >> 1) % (uint64_t)npes);
        size_t   len    = 1 + (size_t)((h >> 8) % (round % 3 == 0 ? 600 : 70));
        size_t   off    = (size_t)((h >> 24) % (size - len));
        if (round % 5 == 0)
            off = ((h >> 24) % (size / 64 - 1)) * 64 + 64 - (len < 64 ? len / 2 + 1 : 7);
        if (off + len > size)
            off = size - len;
        for (size_t k = 0; k < len; k++)
            shadow[a][off + k] = (uint8_t)(mix(h ^ k) >> 32);
        if (me == writer)
            OK(kumi_dsm_write(r[a] + off, shadow[a] + off, len));
        BARRIER();
        /* readers look at a window around it, at other boundaries */
        size_t lo = off > 13 ? off - 13 : 0, hi = off + len + 29 > size ? size : off + len + 29;
        if (me != writer || npes == 1) {
            memset(buf, 0xee, hi - lo);
            OK(kumi_dsm_read(buf, r[a] + lo, hi - lo));
            for (size_t k = lo; k < hi; k++)
                CHECK(buf[k - lo] == shadow[a][k], "round %d: byte %zu of the %s-block region "
                      "reads 0x%x, expected 0x%x (written by PE %d at [%zu, +%zu))", round, k,
                      a ? "256" : "64", buf[k - lo], shadow[a][k], writer, off, len);
        }
        BARRIER();
    }
    /* crossing 2-, 4- and 8-byte accesses: what the translator calls for
     * them (a crossing access always takes the slow path) */
    static const unsigned widths[] = { 2, 4, 8 };
    for (int round = 0; round < 3 * 7 * 2; round++) {
        unsigned w      = widths[round % 3];
        int      a      = round / 21;
        size_t   line   = (size_t)(round * 3 % 60 + 1) * 64;   /* a boundary inside */
        size_t   off    = line - 1 - (size_t)(round / 3 % 7) % (w - 1);
        int      writer = round % npes;
        uint64_t v      = sig(9, (uint64_t)round, 0) & (w == 8 ? ~0ull : (1ull << (8 * w)) - 1);
        CHECK(off + w > line && off < line, "test bug: %zu+%u does not cross %zu", off, w, line);
        memcpy(shadow[a] + off, &v, w);
        if (me == writer)
            st_any(r[a] + off, v, w);
        BARRIER();
        uint64_t got = ld_any(r[a] + off, w);
        CHECK(got == v, "crossing %u-byte load at offset %zu of the %s-block region reads "
              "0x%llx, PE %d stored 0x%llx", w, off, a ? "256" : "64", (unsigned long long)got,
              writer, (unsigned long long)v);
        /* the neighbouring bytes are intact */
        uint8_t around[24];
        OK(kumi_dsm_read(around, r[a] + off - 8, w + 16));
        CHECK(memcmp(around, shadow[a] + off - 8, w + 16) == 0, "bytes around a crossing "
              "%u-byte store at %zu are wrong", w, off);
        BARRIER();
    }
    BARRIER();
    for (int a = 0; a < 2; a++) {
        if (me == (a + 1) % npes)
            free_ok(r[a]);
        free(shadow[a]);
    }
    free(buf);
    BARRIER();
}

/* --------------------------------------------------------------- acquire */

static void test_acquire(void)
{
    const size_t size = 10240, bs = 1024;
    uint8_t     *r = NULL, *want = malloc(size), *got = malloc(size);
    int          w1 = 1 % npes, w2 = npes - 1;
    CHECK(want != NULL && got != NULL, "malloc");

    if (me == 0) {
        r = kumi_dsm_malloc_block(size, bs);
        CHECK(r != NULL, "kumi_dsm_malloc_block");
    }
    r = bcast_ptr(r, 0);
    for (size_t k = 0; k < size; k++)
        want[k] = (uint8_t)(mix(k) >> 40);
    if (me == w1)
        OK(kumi_dsm_write(r, want, size));
    BARRIER();
    /* a range over several blocks, unaligned at both ends: valid for
     * reading, then handed to plain memcpy */
    const size_t lo = 13, n = 5000;
    OK(kumi_dsm_acquire(r + lo, n, KUMI_DSM_READ));
    memcpy(got, r + lo, n);
    CHECK(memcmp(got, want + lo, n) == 0, "plain memcpy after kumi_dsm_acquire(READ) differs");
    BARRIER();
    /* acquire for writing, plain stores */
    for (size_t k = 100; k < 3100; k++)
        want[k] = (uint8_t)(k * 7 + 1);
    if (me == w2) {
        OK(kumi_dsm_acquire(r + 100, 3000, KUMI_DSM_WRITE));
        memcpy(r + 100, want + 100, 3000);
    }
    BARRIER();
    OK(kumi_dsm_read(got, r, size));
    CHECK(memcmp(got, want, size) == 0, "after PE %d's plain stores into an acquired range, "
          "kumi_dsm_read differs", w2);
    BARRIER();
    /* read|write, one PE after another, each incrementing every byte */
    for (int t = 0; t < npes; t++) {
        if (me == t) {
            OK(kumi_dsm_acquire(r + 2000, 2100, KUMI_DSM_READ | KUMI_DSM_WRITE));
            for (size_t k = 2000; k < 4100; k++)
                r[k]++;
        }
        for (size_t k = 2000; k < 4100; k++)
            want[k]++;
        BARRIER();
    }
    OK(kumi_dsm_acquire(r, size, KUMI_DSM_READ));
    CHECK(memcmp(r, want, size) == 0, "after every PE's read-modify-write of an acquired range");
    BARRIER();
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_acquire: mode", kumi_dsm_acquire(r, 8, 0));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_acquire: mode", kumi_dsm_acquire(r, 8, 4));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_acquire: ", kumi_dsm_acquire(got, 8, KUMI_DSM_READ));
    OK(kumi_dsm_acquire(r, 0, KUMI_DSM_READ));
    BARRIER();
    if (me == 0)
        free_ok(r);
    free(want);
    free(got);
    BARRIER();
}

/* ----------------------------------------------------------------- stats */

static void test_stats(void)
{
    uint64_t        *x = NULL;
    kumi_dsm_stats_t s0, s1, s2, s3;
    int              other = npes > 1 ? 1 : 0;

    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_stats: ", kumi_dsm_stats(NULL));
    if (me == 0) {
        x = kumi_dsm_malloc_block(4096, 4096);
        CHECK(x != NULL, "kumi_dsm_malloc_block");
        OK(kumi_dsm_stats(&s0));
        for (int k = 0; k < 512; k++)
            kumi_dsm_st64(&x[k], (uint64_t)k);   /* new memory is the home's: no miss */
        OK(kumi_dsm_stats(&s1));
        CHECK(s1.write_misses == s0.write_misses && s1.upgrades == s0.upgrades
              && s1.read_misses == s0.read_misses, "stores to a new allocation at its home missed");
    }
    x = bcast_ptr(x, 0);
    BARRIER();
    if (me == other && npes > 1) {
        OK(kumi_dsm_stats(&s0));
        uint64_t sum = 0;
        for (int k = 0; k < 512; k++)
            sum += kumi_dsm_ld64(&x[k]);
        CHECK(sum == 511 * 512 / 2, "sum %llu", (unsigned long long)sum);
        OK(kumi_dsm_stats(&s1));
        CHECK(s1.read_misses == s0.read_misses + 1, "reading one remote 4 KiB block: %llu read "
              "misses", (unsigned long long)(s1.read_misses - s0.read_misses));
        CHECK(s1.msgs_sent > s0.msgs_sent && s1.msgs_received > s0.msgs_received,
              "a miss sent %llu and received %llu messages",
              (unsigned long long)(s1.msgs_sent - s0.msgs_sent),
              (unsigned long long)(s1.msgs_received - s0.msgs_received));
        for (int k = 0; k < 512; k++)   /* hits */
            sum += kumi_dsm_ld64(&x[k]);
        kumi_dsm_st64(&x[5], 1000);     /* shared -> exclusive */
        kumi_dsm_st64(&x[6], 1001);
        OK(kumi_dsm_stats(&s2));
        CHECK(s2.read_misses == s1.read_misses, "re-reading a cached block missed");
        CHECK(s2.upgrades + s2.write_misses == s1.upgrades + s1.write_misses + 1,
              "two stores to a shared copy: %llu upgrades, %llu write misses",
              (unsigned long long)(s2.upgrades - s1.upgrades),
              (unsigned long long)(s2.write_misses - s1.write_misses));
        CHECK(s2.upgrades == s1.upgrades + 1, "a store to a shared copy is not an upgrade");
    }
    BARRIER();
    if (me == 0 && npes > 1) {
        OK(kumi_dsm_stats(&s2));
        CHECK(kumi_dsm_ld64(&x[5]) == 1000 && kumi_dsm_ld64(&x[6]) == 1001, "PE %d's stores",
              other);
        OK(kumi_dsm_stats(&s3));
        CHECK(s3.read_misses == s2.read_misses + 1, "the home reading back its block from "
              "the owner: %llu read misses", (unsigned long long)(s3.read_misses - s2.read_misses));
        CHECK(s3.bytes_sent >= s0.bytes_sent + 4096, "the home sent %llu bytes for a 4 KiB "
              "block", (unsigned long long)(s3.bytes_sent - s0.bytes_sent));
        CHECK(s3.invalidations + s3.forwards > 0, "the home's copy was never invalidated "
              "nor forwarded a request");
    }
    BARRIER();
    if (me == 0)
        free_ok(x);
    BARRIER();
}

/* ---------------------------------------------------------------- errors */

static void test_errors(void)
{
    uint64_t *p = NULL, v = 0;
    int       stack = 0;

    if (me == 0) {
        p = kumi_dsm_malloc(256);
        CHECK(p != NULL, "kumi_dsm_malloc");
    }
    p = bcast_ptr(p, 0);
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_read: ", kumi_dsm_read(NULL, p, 8));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_write: ", kumi_dsm_write(p, NULL, 8));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_read: ", kumi_dsm_read(&v, &stack, 4));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_write: ", kumi_dsm_write(&stack, &v, 4));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_dsm_read: ", kumi_dsm_read(&v, NULL, 8));
    OK(kumi_dsm_read(&v, p, 0));
    OK(kumi_dsm_write(p, &v, 0));
    BARRIER();
    if (me == 0)
        free_ok(p);
    BARRIER();
    /* freed memory is not allocated any more: an explicit access says so */
    if (me == npes - 1 && npes > 1)
        EXPECT_ERR(KUMI_ERR_INVALID, "not allocated", kumi_dsm_read(&v, p, 8));
    BARRIER();
    if (me == 0) {
        capture_begin();
        kumi_dsm_free(p);   /* twice */
        const char *out = capture_end();
        CHECK(strstr(out, "kumi_dsm_free: ") != NULL, "a double free printed '%s'", out);
        capture_begin();
        kumi_dsm_free(&stack);
        out = capture_end();
        CHECK(strstr(out, "kumi_dsm_free: ") != NULL, "freeing a stack address printed '%s'",
              out);
        kumi_dsm_free(NULL);   /* no-op */
    }
    BARRIER();
}

/* --------------------------------------------------------------- exhaust */

#define MAXCHUNK 512
static void test_exhaust(void)
{
    const size_t chunk = 64 << 10;
    uint8_t     *mine[MAXCHUNK];
    int          n = 0;
    const char  *env = getenv("KUMI_DSM_SIZE");
    CHECK(env != NULL && strcmp(env, "8m") == 0, "run the exhaust part with KUMI_DSM_SIZE=8m");
    size_t share = ((size_t)8 << 20) / (size_t)npes;

    /* PEs exhaust their shares one after the other: the others still
     * allocate meanwhile */
    for (int t = 0; t < npes; t++) {
        if (me == t) {
            capture_begin();
            while (n < MAXCHUNK && (mine[n] = kumi_dsm_malloc_block(chunk, 4096)) != NULL)
                n++;
            const char *out = capture_end();
            CHECK(n < MAXCHUNK, "%d chunks of 64 KiB from an 8 MiB region", n);
            CHECK((size_t)n * chunk >= share - chunk - 4096 && (size_t)n * chunk <= share,
                  "%d chunks of 64 KiB from a %zu-byte share", n, share);
            CHECK(count_lines(out) == 1 && strstr(out, "kumi_dsm_malloc: ") != NULL
                  && strstr(out, "KUMI_DSM_SIZE") != NULL,
                  "exhaustion printed '%s' (one line naming kumi_dsm_malloc and KUMI_DSM_SIZE "
                  "expected)", out);
            fputs(out, stderr);   /* for the log */
            /* full: a small allocation fails too */
            EXPECT_NULL("kumi_dsm_malloc", "KUMI_DSM_SIZE", kumi_dsm_malloc(share));
        } else if (me > t) {
            /* not yet exhausted: allocation works */
            void *q = kumi_dsm_malloc(1000);
            CHECK(q != NULL, "PE %d's share ran out while PE %d exhausted its own", me, t);
            free_ok(q);
        }
        BARRIER();
    }
    EXPECT_NULL("kumi_dsm_malloc", "KUMI_DSM_SIZE", kumi_dsm_malloc((size_t)16 << 20));
    /* the memory of a full region works: each chunk's first and last word,
     * written by the home, read by the right neighbour */
    for (int i = 0; i < n; i++) {
        uint64_t *w = (uint64_t *)(void *)mine[i];
        kumi_dsm_st64(&w[0], sig((uint64_t)me, (uint64_t)i, 0));
        kumi_dsm_st64(&w[chunk / 8 - 1], sig((uint64_t)me, (uint64_t)i, 1));
    }
    uint8_t **all = calloc((size_t)npes * MAXCHUNK, sizeof(*all));
    int      *cnt = calloc((size_t)npes, sizeof(int));
    CHECK(all != NULL && cnt != NULL, "calloc");
    OK(kumi_allgather(kumi_team_world(), all, mine, sizeof(mine)));
    OK(kumi_allgather(kumi_team_world(), cnt, &n, sizeof(n)));
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int i = 0; i < cnt[right]; i++) {
        const uint64_t *w = (const uint64_t *)(void *)all[right * MAXCHUNK + i];
        CHECK(kumi_dsm_ld64(&w[0]) == sig((uint64_t)right, (uint64_t)i, 0)
              && kumi_dsm_ld64(&w[chunk / 8 - 1]) == sig((uint64_t)right, (uint64_t)i, 1),
              "PE %d's chunk %d reads wrong", right, i);
    }
    BARRIER();
    /* each PE frees every other chunk of its left neighbour (not the home,
     * unless alone); after a barrier the home allocates that much again */
    for (int i = 0; i < cnt[left]; i += 2)
        free_ok(all[left * MAXCHUNK + i]);
    BARRIER();
    int again = 0;
    for (int i = 0; i < n; i += 2) {
        mine[i] = kumi_dsm_malloc_block(chunk, 4096);
        CHECK(mine[i] != NULL, "after PE %d freed %d of my chunks, only %d could be allocated "
              "again", left == me ? me : right, (n + 1) / 2, again);
        again++;
        uint64_t *w = (uint64_t *)(void *)mine[i];
        kumi_dsm_st64(&w[0], sig((uint64_t)me, (uint64_t)i, 2));
    }
    EXPECT_NULL("kumi_dsm_malloc", "KUMI_DSM_SIZE", kumi_dsm_malloc_block(chunk, 4096));
    OK(kumi_allgather(kumi_team_world(), all, mine, sizeof(mine)));
    BARRIER();
    for (int i = 0; i < cnt[right]; i++) {
        const uint64_t *w = (const uint64_t *)(void *)all[right * MAXCHUNK + i];
        uint64_t        v = kumi_dsm_ld64(&w[0]);
        CHECK(v == sig((uint64_t)right, (uint64_t)i, i % 2 == 0 ? 2 : 0), "PE %d's chunk %d "
              "(%s) reads 0x%llx", right, i, i % 2 == 0 ? "reallocated" : "kept",
              (unsigned long long)v);
    }
    BARRIER();
    /* everything freed (by the home) coalesces: one allocation of nearly
     * the whole share fits */
    for (int i = 0; i < n; i++)
        free_ok(mine[i]);
    size_t big  = (size_t)n * chunk;
    void  *whole = kumi_dsm_malloc_block(big, 4096);
    CHECK(whole != NULL, "after freeing everything, %zu bytes (what fit before) do not fit",
          big);
    free_ok(whole);
    free(all);
    free(cnt);
    BARRIER();
    if (me == 0)
        printf("dsm_api exhaust: %d chunks of 64 KiB per %zu-byte share\n", n, share);
}

/* ------------------------------------------------------------------ solo */

static void test_solo(void)
{
    const char *env  = getenv("KUMI_DSM_SOLO");
    int         solo = npes == 1 && !(env != NULL && strcmp(env, "0") == 0);
    uint64_t   *p    = kumi_dsm_malloc(4096), v = 0;

    CHECK(p != NULL, "kumi_dsm_malloc(4096)");
    CHECK(kumi_dsm_is_shared(p) && kumi_dsm_is_shared((char *)p + 4095),
          "kumi_dsm_is_shared(%p) with %d PE(s)", (void *)p, npes);
    CHECK(kumi_dsm_in(p) == !solo, "kumi_dsm_in(%p) is %d with %d PE(s), KUMI_DSM_SOLO=%s",
          (void *)p, kumi_dsm_in(p), npes, env ? env : "(unset)");
    /* the flag pattern itself, through the checks and the explicit calls */
    st_any(p, KUMI_DSM_FLAG64, 8);
    CHECK(ld_any(p, 8) == KUMI_DSM_FLAG64, "flag-valued word read back");
    OK(kumi_dsm_write(p + 1, &(uint64_t){ 42 }, 8));
    OK(kumi_dsm_read(&v, p + 1, 8));
    CHECK(v == 42 && ld_any(p + 1, 8) == 42, "kumi_dsm_write/read: %llu",
          (unsigned long long)v);
    p = kumi_dsm_realloc(p, 8192);
    CHECK(p != NULL && ld_any(p + 1, 8) == 42, "kumi_dsm_realloc kept the data");
    free_ok(p);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    int         all  = strcmp(part, "all") == 0, ran = 0;

    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
#define PART(name, call)                                              \
    if (all ? strcmp(name, "exhaust") != 0 : strcmp(part, name) == 0) { \
        call;                                                         \
        BARRIER();                                                    \
        if (me == 0)                                                  \
            printf("dsm_api %s: ok\n", name);                         \
        fflush(stdout);                                               \
        ran++;                                                        \
    }
    PART("alloc", test_alloc());
    PART("calloc", test_calloc());
    PART("blocks", test_blocks());
    PART("big", test_big());
    PART("free", test_free());
    PART("flag", test_flag());
    PART("cross", test_cross());
    PART("acquire", test_acquire());
    PART("stats", test_stats());
    PART("errors", test_errors());
    PART("solo", test_solo());
    PART("exhaust", test_exhaust());
    CHECK(ran > 0, "unknown part '%s'", part);
    OK(kumi_finalize());
    uint64_t v;
    capture_begin();
    void *late = kumi_dsm_malloc(64);
    int   rc   = kumi_dsm_read(&v, (void *)(uintptr_t)0x1000, 8);
    capture_end();
    CHECK(late == NULL, "kumi_dsm_malloc after kumi_finalize");
    CHECK(rc == KUMI_ERR_STATE, "kumi_dsm_read after kumi_finalize returned %s",
          kumi_strerror(rc));
    if (me == 0)
        printf("dsm_api %s: %d PEs ok\n", part, npes);
    return 0;
}
