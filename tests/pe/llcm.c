/* llcm.c -- LLCM allocation: the same offset on every PE (exchanged and
 * compared), alignment to the size's power of two within [8, 64], zeroed,
 * no overlap, kumi_llcm() inside and outside; with a small KUMI_LLCM_SIZE,
 * (size_t)-1 when full on every PE, and the runtime still works.
 *
 * usage: llcm LLCM_BYTES [exhaust]   (LLCM_BYTES: the KUMI_LLCM_SIZE in force)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kumi.h>

#include "pe_test.h"

#define MAXALLOC 64
#define NONE     ((size_t)-1)

static int       me, npes;
static size_t    llcm_bytes;
static uint64_t *table;          /* npes x MAXALLOC offsets, row = PE */

static size_t expected_align(size_t size)
{
    size_t a = 8;
    while (a < size && a < 64)
        a *= 2;
    return a;
}

/* every PE's offsets equal mine */
static void exchange(const size_t *offs, int m, const char *what)
{
    uint64_t mine[MAXALLOC];

    for (int i = 0; i < m; i++)
        mine[i] = offs[i];
    for (int pe = 0; pe < npes; pe++)
        OK(kumi_put(table + (size_t)me * MAXALLOC, mine, (size_t)m * sizeof(uint64_t), pe));
    BARRIER();
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < m; i++)
            CHECK(table[(size_t)pe * MAXALLOC + i] == mine[i], "%s: allocation %d is at %llu "
                  "on pe %d but %llu here", what, i,
                  (unsigned long long)table[(size_t)pe * MAXALLOC + i], pe,
                  (unsigned long long)mine[i]);
    BARRIER();
}

static void test_alloc(void)
{
    static const size_t sizes[] = { 1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 100,
                                    128, 1000, 7, 2, 4096, 1 };
    const int m = (int)(sizeof(sizes) / sizeof(sizes[0]));
    size_t offs[MAXALLOC];
    volatile uint8_t *base = kumi_llcm(0);

    CHECK(base != NULL, "kumi_llcm(0) is NULL");
    for (int i = 0; i < m; i++) {
        offs[i] = kumi_llcm_alloc(sizes[i]);
        CHECK(offs[i] != NONE, "kumi_llcm_alloc(%zu) failed", sizes[i]);
        CHECK(offs[i] % expected_align(sizes[i]) == 0, "kumi_llcm_alloc(%zu) = %zu, not aligned "
              "to %zu", sizes[i], offs[i], expected_align(sizes[i]));
        CHECK(offs[i] + sizes[i] <= llcm_bytes, "kumi_llcm_alloc(%zu) = %zu runs past the LLCM",
              sizes[i], offs[i]);
        volatile uint8_t *p = kumi_llcm(offs[i]);
        CHECK(p == base + offs[i], "kumi_llcm(%zu) = %p, expected %p", offs[i], (void *)p,
              (void *)(base + offs[i]));
        CHECK(kumi_llcm(offs[i] + sizes[i] - 1) == base + offs[i] + sizes[i] - 1,
              "kumi_llcm(last byte of %zu)", offs[i]);
        for (size_t k = 0; k < sizes[i]; k++)
            CHECK(p[k] == 0, "kumi_llcm_alloc(%zu) = %zu: byte %zu is 0x%02x, not zero",
                  sizes[i], offs[i], k, p[k]);
        /* no overlap with anything before */
        for (int j = 0; j < i; j++)
            CHECK(offs[i] >= offs[j] + sizes[j] || offs[j] >= offs[i] + sizes[i],
                  "allocations %d (%zu at %zu) and %d (%zu at %zu) overlap", j, sizes[j],
                  offs[j], i, sizes[i], offs[i]);
    }
    exchange(offs, m, "kumi_llcm_alloc");

    /* fill every allocation with kicks from my left neighbour; the bytes
     * between them and the runtime's own areas must not be disturbed, which
     * the barriers (LLCM users themselves) would notice */
    int right = (me + 1) % npes;
    for (int i = 0; i < m; i++)
        for (size_t k = 0; k < sizes[i]; k++) {
            uint8_t v = (uint8_t)(0x5a ^ k ^ (size_t)i);
            OK(kumi_kick(right, offs[i] + k, &v, 1));
        }
    BARRIER();
    for (int i = 0; i < m; i++) {
        volatile uint8_t *p = kumi_llcm(offs[i]);
        for (size_t k = 0; k < sizes[i]; k++)
            CHECK(p[k] == (uint8_t)(0x5a ^ k ^ (size_t)i), "allocation %d byte %zu is 0x%02x",
                  i, k, p[k]);
    }
    BARRIER();

    CHECK(kumi_llcm(llcm_bytes - 1) == base + llcm_bytes - 1, "kumi_llcm(last byte)");
    CHECK(kumi_llcm(llcm_bytes) == NULL, "kumi_llcm(KUMI_LLCM_SIZE) is not NULL");
    CHECK(kumi_llcm(llcm_bytes + 4096) == NULL, "kumi_llcm past the end is not NULL");
    CHECK(kumi_llcm(NONE) == NULL, "kumi_llcm((size_t)-1) is not NULL");
}


static void test_exhaust(void)
{
    size_t offs[MAXALLOC];
    int    n = 0;
    size_t total = 0;

    /* 1 KiB at a time until full: fewer than LLCM_BYTES / 1 KiB fit */
    for (;;) {
        CHECK(n < MAXALLOC, "%d KiB allocated from a %zu-byte LLCM", n, llcm_bytes);
        capture_begin();
        size_t off = kumi_llcm_alloc(1024);
        const char *out = capture_end();
        if (off == NONE) {
            CHECK(strstr(out, "kumi_llcm_alloc") != NULL && strstr(out, "KUMI_LLCM_SIZE") != NULL,
                  "no message naming KUMI_LLCM_SIZE: '%s'", out);
            if (me == 0)
                fputs(out, stderr);
            break;
        }
        CHECK(out[0] == '\0', "successful kumi_llcm_alloc printed '%s'", out);
        offs[n++] = off;
        total += 1024;
        CHECK(off + 1024 <= llcm_bytes, "allocation at %zu runs past the LLCM", off);
    }
    CHECK(total > llcm_bytes / 2, "only %zu of %zu bytes of LLCM were allocatable", total,
          llcm_bytes);
    exchange(offs, n, "before exhaustion");

    /* still full for anything bigger than what is left; huge sizes too */
    capture_begin();
    size_t huge  = kumi_llcm_alloc(llcm_bytes);
    size_t huger = kumi_llcm_alloc((size_t)1 << 40);
    size_t wrap  = kumi_llcm_alloc(NONE - 8);
    capture_end();
    CHECK(huge == NONE && huger == NONE && wrap == NONE, "impossible allocations succeeded: "
          "%zu %zu %zu", huge, huger, wrap);

    /* the runtime (barriers, kicks into what was allocated) still works */
    for (int i = 0; i < n; i++) {
        uint64_t v = 0x1111111111111111ull * (uint64_t)(i % 15 + 1);
        OK(kumi_kick((me + 1) % npes, offs[i] + 1016, &v, 8));
    }
    BARRIER();
    for (int i = 0; i < n; i++) {
        volatile uint64_t *w = kumi_llcm(offs[i] + 1016);
        CHECK(*w == 0x1111111111111111ull * (uint64_t)(i % 15 + 1), "kick into allocation %d "
              "lost", i);
    }
    for (int r = 0; r < 20; r++)
        BARRIER();
}

int main(int argc, char **argv)
{
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    CHECK(argc > 1, "usage: llcm LLCM_BYTES [exhaust]");
    llcm_bytes = strtoull(argv[1], NULL, 10);
    table = kumi_calloc((size_t)npes * MAXALLOC, sizeof(uint64_t));
    CHECK(table != NULL, "kumi_calloc failed");

    if (argc > 2 && strcmp(argv[2], "exhaust") == 0)
        test_exhaust();
    else
        test_alloc();
    if (me == 0)
        printf("llcm: %d PEs ok\n", npes);
    OK(kumi_finalize());
    return 0;
}
