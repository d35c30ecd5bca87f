/*
 * dsm_place.c -- data placement of the DSM: block-distributed allocations
 * (kumi_dsm_malloc_dist, and kumi_dsm_malloc/calloc from KUMI_DSM_DIST_MIN
 * on), their homes, free and realloc from any PE, running out of space.
 *
 *   dsm_place [PART [N]]  PART: all (default: every part below but
 *                      exhaust), homes, calloc, stencil, free, realloc,
 *                      object, exhaust; N: the stencil's doubles per array (2^17)
 *
 *   homes    kumi_dsm_malloc_dist on PE 0 and on the last PE: 4 KiB
 *            aligned, part k (blocks [k*nb/P, (k+1)*nb/P)) homed at
 *            PE k on every PE (kumi_dsm_home, a local query); below the
 *            threshold, and kumi_dsm_malloc_block, the allocator is the
 *            home; at the threshold kumi_dsm_malloc distributes (unless
 *            KUMI_DSM_DIST_MIN=0, read from the environment). Each PE
 *            writes its own part without a single miss, and every PE reads
 *            what the others wrote.
 *   calloc   a distributed allocation dirtied and cached everywhere, freed by
 *            a PE that did not allocate it, then kumi_dsm_calloc of the same
 *            size (the same range again): zero everywhere, each part read
 *            by its home without a miss.
 *   stencil  an OpenMP-like pattern: PE 0 allocates two arrays of N
 *            doubles, each PE initializes its chunk, then 6 sweeps
 *            b[i] = (a[i-1] + a[i] + a[i+1]) / 3 over its chunk, a barrier
 *            after each. The chunks are the parts a distributed allocation
 *            of that size homes at each PE (as an owner-computes loop
 *            would split it), so no coherence block is written by two PEs
 *            in one sweep and the message counts do not depend on how the
 *            PEs interleave. Once with the arrays homed at PE 0
 *            (kumi_dsm_malloc_block, what kumi_dsm_malloc did before) and
 *            once distributed; prints misses and messages per PE for both
 *            and checks the result against a private computation and that
 *            the distributed run sends far fewer messages (PE 0's count and
 *            the busiest PE's).
 *   free     a distributed allocation read by every PE and freed by the last
 *            PE: the range is reused by the allocator and nobody sees old
 *            data; a pointer inside an allocation and a double free are
 *            refused with a message.
 *   realloc  growing a distributed allocation from another PE (contents
 *            kept, the new one distributed), a local allocation of PE 1
 *            grown by PE 0 (it asks PE 1 the size), shrinking in place,
 *            realloc(NULL, n) and realloc(p, 0).
 *   object   the OpenMP heap's big object (bindings/openmp/memory.c,
 *            big_alloc): 384 KiB from a block boundary after a header
 *            block, with alignment slack after it (kumi_dsm_malloc_obj).
 *            The object's blocks [k*nb/P, (k+1)*nb/P) are homed at PE k
 *            (counted from the object, not from the allocation), and each
 *            PE's first touch of its static-schedule share of the doubles
 *            (bindings/openmp/loop.c: balanced blocks) misses nowhere.
 *   exhaust  (KUMI_DSM_SIZE=8m) PE 0 fills its share with distributed 64 KiB
 *            allocations: NULL and a message naming KUMI_DSM_SIZE; a too
 *            big one likewise; the last PE frees them all and PE 0's share
 *            coalesces (one allocation of half of it works).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../dsm/dsm_int.h"
#include "pe_test.h"

static int me, npes;

static uint64_t sig(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x == KUMI_DSM_FLAG64 ? x + 1 : x;
}

static void *bcast_ptr(void *p, int root)
{
    OK(kumi_broadcast(kumi_team_world(), &p, sizeof(p), root));
    return p;
}

/* KUMI_DSM_DIST_BLOCK, default 4 KiB: distributed parts are rounded up
 * to it */
static uint64_t dist_block(void)
{
    const char *env = getenv("KUMI_DSM_DIST_BLOCK");
    uint64_t    b   = env != NULL ? strtoull(env, NULL, 0) : 4096;

    if (env != NULL && (env[strlen(env) - 1] == 'k' || env[strlen(env) - 1] == 'K'))
        b <<= 10;
    return b;
}

/* Where part k of a distributed allocation of size bytes starts (k = P:
 * its end): its nb blocks [k*nb/P, (k+1)*nb/P) */
static uint64_t part_lo(uint64_t size, uint64_t k)
{
    uint64_t b  = dist_block();
    uint64_t nb = (size + b - 1) / b;
    return k >= (uint64_t)npes ? size : k * nb / (uint64_t)npes * b;
}

static int part_home(uint64_t size, uint64_t i)
{
    int k = 0;

    while (k + 1 < npes && part_lo(size, (uint64_t)k + 1) <= i)
        k++;
    return k;
}

/* Every PE: p (size bytes, distributed) has part k homed at PE k. */
static void check_dist_homes(const char *what, const uint8_t *p, uint64_t size)
{
    CHECK(((uintptr_t)p & 4095) == 0, "%s: %p not 4 KiB aligned", what, (const void *)p);
    for (uint64_t i = 0; i < size; i += 64) {
        int want = part_home(size, i);
        int got  = kumi_dsm_home(p + i);
        CHECK(got == want, "%s: home of +%llu is %d, want %d", what, (unsigned long long)i, got,
              want);
    }
    CHECK(kumi_dsm_home(p + size - 1) == part_home(size, size - 1), "%s: last byte", what);
}

static void check_local_home(const char *what, const uint8_t *p, uint64_t size, int home)
{
    for (uint64_t i = 0; i < size; i += 4096)
        CHECK(kumi_dsm_home(p + i) == home, "%s: home of +%llu is %d, want %d", what,
              (unsigned long long)i, kumi_dsm_home(p + i), home);
    CHECK(kumi_dsm_home(p + size - 1) == home, "%s: last byte", what);
}

static uint64_t misses(void)
{
    kumi_dsm_stats_t s;

    OK(kumi_dsm_stats(&s));
    return s.read_misses + s.write_misses + s.upgrades;
}

/* Each PE writes words of its own part of p (a distributed allocation of
 * size bytes) with sig(tag, word), without a miss; then every PE reads
 * the whole allocation. */
static void write_parts_read_all(const char *what, uint64_t *p, uint64_t size, uint64_t tag)
{
    uint64_t words = size / 8;
    uint64_t lo = part_lo(size, (uint64_t)me) / 8, hi = part_lo(size, (uint64_t)me + 1) / 8;

    if (hi > words)
        hi = words;
    uint64_t m0 = misses();
    for (uint64_t w = lo; w < hi; w++)
        kumi_dsm_st64(&p[w], sig(tag, w));
    CHECK(misses() == m0, "%s: PE %d's writes to its own part missed %llu times", what, me,
          (unsigned long long)(misses() - m0));
    BARRIER();
    for (uint64_t w = 0; w < words; w++) {
        uint64_t v = kumi_dsm_ld64(&p[w]);
        CHECK(v == sig(tag, w), "%s: word %llu reads %llx", what, (unsigned long long)w,
              (unsigned long long)v);
    }
    BARRIER();
}

static void part_homes(void)
{
    const char *env     = getenv("KUMI_DSM_DIST_MIN");
    int         dist_on = env == NULL || strcmp(env, "0") != 0;
    uint64_t    size    = 300000 + 1000 * (uint64_t)npes;
    int         last    = npes - 1;

    uint64_t *a = me == 0 ? kumi_dsm_malloc_dist(size) : NULL;
    a = bcast_ptr(a, 0);
    CHECK(a != NULL, "kumi_dsm_malloc_dist(%llu) failed", (unsigned long long)size);
    check_dist_homes("malloc_dist by PE 0", (uint8_t *)a, size);
    write_parts_read_all("malloc_dist by PE 0", a, size, 1);

    /* allocated by the last PE: still part k at PE k (absolute) */
    uint64_t *b = me == last ? kumi_dsm_malloc(256 << 10) : NULL;
    b = bcast_ptr(b, last);
    CHECK(b != NULL, "kumi_dsm_malloc(256 KiB) failed");
    if (dist_on)
        check_dist_homes("malloc(256 KiB) by the last PE", (uint8_t *)b, 256 << 10);
    else
        check_local_home("malloc(256 KiB), KUMI_DSM_DIST_MIN=0", (uint8_t *)b, 256 << 10, last);

    uint8_t *c = me == 1 % npes ? kumi_dsm_malloc((256 << 10) - 1) : NULL;
    c = bcast_ptr(c, 1 % npes);
    CHECK(c != NULL, "kumi_dsm_malloc(256 KiB - 1) failed");
    check_local_home("malloc(256 KiB - 1)", c, (256 << 10) - 1, 1 % npes);

    uint8_t *d = me == 0 ? kumi_dsm_malloc_block(1 << 20, 4096) : NULL;
    d = bcast_ptr(d, 0);
    CHECK(d != NULL, "kumi_dsm_malloc_block(1 MiB) failed");
    check_local_home("malloc_block(1 MiB, 4096)", d, 1 << 20, 0);

    /* kumi_dsm_malloc_dist with a tiny size: parts of one block, the later
     * PEs home nothing */
    uint8_t *e = me == last ? kumi_dsm_malloc_dist(100) : NULL;
    e = bcast_ptr(e, last);
    CHECK(e != NULL, "kumi_dsm_malloc_dist(100) failed");
    check_dist_homes("malloc_dist(100)", e, 100);
    BARRIER();
    /* freed by PEs that did not allocate them */
    if (me == (last + 1) % npes) {
        kumi_dsm_free(a);
        kumi_dsm_free(b);
        kumi_dsm_free(c);
        kumi_dsm_free(d);
        kumi_dsm_free(e);
    }
    BARRIER();
    CHECK(kumi_dsm_home(a) == 0 && kumi_dsm_home(b) == last, "freed ranges belong to the "
          "allocator again: %d %d", kumi_dsm_home(a), kumi_dsm_home(b));
    if (me == 0)
        printf("homes: part k homed at PE k on %d PEs (KUMI_DSM_DIST_MIN %s)\n", npes,
               env ? env : "default");
}

static void part_calloc(void)
{
    uint64_t  size = 320 << 10, words = size / 8;
    uint64_t *a    = me == 0 ? kumi_dsm_malloc_dist(size) : NULL;

    a = bcast_ptr(a, 0);
    CHECK(a != NULL, "malloc_dist failed");
    /* every PE dirties words all over (copies everywhere) */
    for (uint64_t w = (uint64_t)me; w < words; w += 97)
        kumi_dsm_st64(&a[w], sig(9, w));
    BARRIER();
    for (uint64_t w = 0; w < words; w += 61)
        (void)kumi_dsm_ld64(&a[w]);
    BARRIER();
    if (me == npes - 1)
        kumi_dsm_free(a);
    BARRIER();
    uint64_t *z = me == 0 ? kumi_dsm_calloc(words, 8) : NULL;
    z = bcast_ptr(z, 0);
    CHECK(z != NULL, "kumi_dsm_calloc failed");
    CHECK(z == a, "the freed range is reused: %p vs %p", (void *)z, (void *)a);
    check_dist_homes("calloc(320 KiB)", (uint8_t *)z, size);
    /* my own part: zero, exclusive here (no miss) */
    uint64_t m0 = misses();
    for (uint64_t w = part_lo(size, (uint64_t)me) / 8; w < part_lo(size, (uint64_t)me + 1) / 8 && w < words; w++)
        CHECK(kumi_dsm_ld64(&z[w]) == 0, "calloc: word %llu is %llx", (unsigned long long)w,
              (unsigned long long)kumi_dsm_ld64(&z[w]));
    CHECK(misses() == m0, "calloc: PE %d's reads of its own part missed", me);
    BARRIER();
    for (uint64_t w = 0; w < words; w++)
        CHECK(kumi_dsm_ld64(&z[w]) == 0, "calloc: word %llu is %llx", (unsigned long long)w,
              (unsigned long long)kumi_dsm_ld64(&z[w]));
    BARRIER();
    if (me == 0)
        kumi_dsm_free(z);
    BARRIER();
    if (me == 0)
        printf("calloc: zero everywhere after a dirty free, each home reads its part without a miss\n");
}

/* ---------------------------------------------------------------- stencil */

#define ST_SWEEPS 6
static long st_n = 1 << 17;   /* doubles: 1 MiB; the second argument */
static long st_lo, st_hi;     /* this PE's chunk: the part it homes */

/* The chunk of each PE: the indices of an array of st_n doubles that a
 * distributed allocation homes at it (homes rise with the index; a PE
 * may have none). With chunks of ceil(st_n / P) doubles instead, a 4 KiB
 * block straddling two chunks is written by both PEs in the same sweep:
 * it bounces between them as often as their writes interleave, and the
 * message counts vary from run to run (3.8x instead of >= 4x once under
 * ASan, tcp, 3 PEs). */
static void st_partition(void)
{
    double *p = me == 0 ? kumi_dsm_malloc_dist(st_n * sizeof(double)) : NULL;
    p = bcast_ptr(p, 0);
    CHECK(p != NULL, "stencil: kumi_dsm_malloc_dist(%ld doubles)", st_n);
    long lo = 0, hi = st_n;   /* first index homed at >= me, then at > me */
    while (lo < hi) {
        long m = lo + (hi - lo) / 2;
        if (kumi_dsm_home(&p[m]) < me)
            lo = m + 1;
        else
            hi = m;
    }
    st_lo = lo;
    hi    = st_n;
    while (lo < hi) {
        long m = lo + (hi - lo) / 2;
        if (kumi_dsm_home(&p[m]) <= me)
            lo = m + 1;
        else
            hi = m;
    }
    st_hi = lo;
    BARRIER();
    if (me == 0)
        kumi_dsm_free(p);
    BARRIER();
}

struct st_count {
    uint64_t misses, sent, received;
};

static double st_init(long i)
{
    return (double)(sig(7, (uint64_t)i) >> 11) / 9007199254740992.0;
}

static void st_run(double *a, double *b, long lo, long hi)
{
    for (long i = lo; i < hi; i++) {
        kumi_dsm_std(&a[i], st_init(i));
        kumi_dsm_std(&b[i], 0.0);
    }
    BARRIER();
    for (int s = 0; s < ST_SWEEPS; s++) {
        for (long i = lo; i < hi; i++) {
            double v = kumi_dsm_ldd(&a[i]);
            if (i > 0 && i < st_n - 1)
                v = (kumi_dsm_ldd(&a[i - 1]) + v + kumi_dsm_ldd(&a[i + 1])) / 3.0;
            kumi_dsm_std(&b[i], v);
        }
        BARRIER();
        double *t = a;
        a = b;
        b = t;
    }
}

/* One placement: returns this PE's counters; PE 0 checks the result. */
static struct st_count st_placement(int dist)
{
    double *a = NULL, *b = NULL;

    if (me == 0) {
        a = dist ? kumi_dsm_malloc_dist(st_n * sizeof(double))
                 : kumi_dsm_malloc_block(st_n * sizeof(double), 64);
        b = dist ? kumi_dsm_malloc_dist(st_n * sizeof(double))
                 : kumi_dsm_malloc_block(st_n * sizeof(double), 64);
    }
    a = bcast_ptr(a, 0);
    b = bcast_ptr(b, 0);
    CHECK(a != NULL && b != NULL, "stencil allocation failed");
    long lo = st_lo, hi = st_hi;
    if (dist && lo < hi)
        CHECK(kumi_dsm_home(&a[lo]) == me && kumi_dsm_home(&b[hi - 1]) == me,
              "stencil: chunk [%ld, %ld) is not homed here", lo, hi);

    BARRIER();
    kumi_dsm_stats_t s0, s1;
    OK(kumi_dsm_stats(&s0));
    st_run(a, b, lo, hi);
    OK(kumi_dsm_stats(&s1));
    struct st_count c = {
        s1.read_misses + s1.write_misses + s1.upgrades
            - (s0.read_misses + s0.write_misses + s0.upgrades),
        s1.msgs_sent - s0.msgs_sent, s1.msgs_received - s0.msgs_received,
    };
    BARRIER();
    if (me == 0) {   /* the result (ST_SWEEPS even: in a) */
        double *x = malloc(st_n * sizeof *x), *y = malloc(st_n * sizeof *y);
        CHECK(x != NULL && y != NULL, "malloc");
        for (long i = 0; i < st_n; i++)
            x[i] = st_init(i);
        for (int s = 0; s < ST_SWEEPS; s++) {
            for (long i = 0; i < st_n; i++)
                y[i] = i > 0 && i < st_n - 1 ? (x[i - 1] + x[i] + x[i + 1]) / 3.0 : x[i];
            double *t = x;
            x = y;
            y = t;
        }
        for (long i = 0; i < st_n; i++)
            CHECK(kumi_dsm_ldd(&a[i]) == x[i], "stencil (%s): a[%ld] = %g, want %g",
                  dist ? "dist" : "PE 0", i, kumi_dsm_ldd(&a[i]), x[i]);
        free(x);
        free(y);
        kumi_dsm_free(a);
        kumi_dsm_free(b);
    }
    BARRIER();
    return c;
}

static void part_stencil(void)
{
    struct st_count  c[2];
    struct st_count *all = malloc(2 * (size_t)npes * sizeof *all);

    CHECK(all != NULL, "malloc");
    st_partition();
    c[0] = st_placement(0);
    c[1] = st_placement(1);
    OK(kumi_allgather(kumi_team_world(), all, c, sizeof c));
    if (me == 0) {
        uint64_t max[2] = { 0, 0 }, sum[2] = { 0, 0 };
        printf("stencil: 2 x %zu KiB arrays allocated by PE 0, %d sweeps, %d PEs\n",
               (size_t)st_n * sizeof(double) >> 10, ST_SWEEPS, npes);
        printf("  PE   homed at PE 0: misses   sent  received | distributed: misses   sent  "
               "received\n");
        for (int p = 0; p < npes; p++) {
            const struct st_count *o = &all[2 * p], *d = &all[2 * p + 1];
            printf("  %2d   %20llu %6llu %9llu | %20llu %6llu %9llu\n", p,
                   (unsigned long long)o->misses, (unsigned long long)o->sent,
                   (unsigned long long)o->received, (unsigned long long)d->misses,
                   (unsigned long long)d->sent, (unsigned long long)d->received);
            for (int k = 0; k < 2; k++) {
                uint64_t m = all[2 * p + k].sent + all[2 * p + k].received;
                max[k] = m > max[k] ? m : max[k];
                sum[k] += all[2 * p + k].sent;
            }
        }
        printf("  messages sent, all PEs: %llu -> %llu; busiest PE (sent + received): %llu -> "
               "%llu\n", (unsigned long long)sum[0], (unsigned long long)sum[1],
               (unsigned long long)max[0], (unsigned long long)max[1]);
        if (npes > 1) {
            CHECK(sum[1] * 4 < sum[0], "distributed: %llu messages, homed at PE 0: %llu",
                  (unsigned long long)sum[1], (unsigned long long)sum[0]);
            CHECK(max[1] * 4 < max[0], "busiest PE: distributed %llu, homed at PE 0 %llu",
                  (unsigned long long)max[1], (unsigned long long)max[0]);
            CHECK(all[1].sent + all[1].received < all[0].sent + all[0].received,
                  "PE 0 is not relieved");
        }
    }
    free(all);
    BARRIER();
}

/* ---------------------------------------------------------- free, realloc */

static void part_free(void)
{
    uint64_t  size = 288 << 10;
    uint64_t *a    = me == 0 ? kumi_dsm_malloc_dist(size) : NULL;

    a = bcast_ptr(a, 0);
    CHECK(a != NULL, "malloc_dist failed");
    write_parts_read_all("free: first", a, size, 3);
    if (me == npes - 1) {
        capture_begin();
        kumi_dsm_free((uint8_t *)a + 4096);
        const char *msg = capture_end();
        /* (one PE: nothing is distributed, the address is no allocation) */
        CHECK(strstr(msg, "kumi_dsm_free")
                  && strstr(msg, npes > 1 ? "not its start" : "not a DSM allocation"),
              "interior free: '%s'", msg);
        kumi_dsm_free(a);
    }
    BARRIER();
    uint64_t *b = me == 0 ? kumi_dsm_malloc_dist(size) : NULL;
    b = bcast_ptr(b, 0);
    CHECK(b == a, "the range is reused: %p vs %p", (void *)b, (void *)a);
    /* the new contents only: no stale copy survives anywhere */
    write_parts_read_all("free: reused", b, size, 4);
    if (me == 1 % npes)
        kumi_dsm_free(b);
    BARRIER();
    if (me == 0) {
        capture_begin();
        kumi_dsm_free(b);   /* double free */
        const char *msg = capture_end();
        CHECK(strstr(msg, "kumi_dsm_free") && strstr(msg, "not a DSM allocation"),
              "double free: '%s'", msg);
    }
    BARRIER();
    if (me == 0)
        printf("free: from any PE, range reused without stale data, bad frees refused\n");
}

static void part_object(void)
{
    uint64_t b = dist_block(), size = 384 << 10, n = size / 8;
    uint8_t *base = me == 0 ? kumi_dsm_malloc_obj(b + size + b, 16, b, size, 1, 0) : NULL;

    base = bcast_ptr(base, 0);
    CHECK(base != NULL, "object: kumi_dsm_malloc_obj failed");
    CHECK(((uintptr_t)base & (b - 1)) == 0, "object: %p not block aligned", (void *)base);
    uint8_t *obj = base + b;   /* as big_alloc: the header's block, then the object */
    for (uint64_t i = 0; i < size; i += b)
        CHECK(kumi_dsm_home(obj + i) == part_home(size, i), "object: home of +%llu is %d, want %d",
              (unsigned long long)i, kumi_dsm_home(obj + i), part_home(size, i));
    CHECK(kumi_dsm_home(base) == 0, "object: the header's block is homed at %d",
          kumi_dsm_home(base));
    /* the static schedule's share of thread me (balanced: the first n % P
     * get one more) */
    uint64_t small = n / (uint64_t)npes, extras = n % (uint64_t)npes, u = (uint64_t)me;
    uint64_t first = u * small + (u < extras ? u : extras), mine = small + (u < extras);
    uint64_t *a = (uint64_t *)obj, m0 = misses();
    for (uint64_t w = first; w < first + mine; w++)
        kumi_dsm_st64(&a[w], sig(11, w));
    CHECK(misses() == m0, "object: PE %d's first touch of its share [%llu, %llu) missed %llu "
          "times", me, (unsigned long long)first, (unsigned long long)(first + mine),
          (unsigned long long)(misses() - m0));
    BARRIER();
    for (uint64_t w = 0; w < n; w += 509)
        CHECK(kumi_dsm_ld64(&a[w]) == sig(11, w), "object: word %llu", (unsigned long long)w);
    BARRIER();
    if (me == 0) {
        kumi_dsm_free(base);
        printf("object: parts counted from the object, each share touched without a miss\n");
    }
    BARRIER();
}

static void part_realloc(void)
{
    uint64_t  size = 300 << 10, words = size / 8;
    int       other = 1 % npes;
    uint64_t *a = me == 0 ? kumi_dsm_malloc_dist(size) : NULL;

    a = bcast_ptr(a, 0);
    CHECK(a != NULL, "malloc_dist failed");
    write_parts_read_all("realloc: before", a, size, 5);
    /* grown by another PE: a new distributed allocation of its own */
    uint64_t *g = NULL;
    if (me == other) {
        g = kumi_dsm_realloc(a, 2 * size);
        CHECK(g != NULL, "realloc to %llu failed", (unsigned long long)(2 * size));
        CHECK(npes == 1 || g != a, "growing moved");
    }
    g = bcast_ptr(g, other);
    check_dist_homes("realloc'd", (uint8_t *)g, 2 * size);
    for (uint64_t w = 0; w < words; w++)
        CHECK(kumi_dsm_ld64(&g[w]) == sig(5, w), "realloc: word %llu lost",
              (unsigned long long)w);
    BARRIER();
    /* shrinking a little: in place */
    if (me == 0) {
        CHECK(kumi_dsm_realloc(g, 2 * size - 1000) == g, "shrinking moved");
    }
    BARRIER();
    /* a local allocation of PE `other` grown by PE 0: PE 0 asks its size */
    uint8_t *l = me == other ? kumi_dsm_malloc(1000) : NULL;
    if (me == other)
        for (int i = 0; i < 1000; i++)
            kumi_dsm_st8(&l[i], (uint8_t)(i * 7 + 1));
    l = bcast_ptr(l, other);
    uint8_t *m = NULL;
    if (me == 0) {
        m = kumi_dsm_realloc(l, 5000);
        CHECK(m != NULL, "realloc of a remote allocation failed");
        for (int i = 0; i < 1000; i++)
            CHECK(kumi_dsm_ld8(&m[i]) == (uint8_t)(i * 7 + 1), "realloc: byte %d", i);
        CHECK(kumi_dsm_home(m) == 0, "a small realloc is homed at the caller");
        CHECK(kumi_dsm_realloc(m, 0) == NULL, "realloc(p, 0)");
        uint8_t *n = kumi_dsm_realloc(NULL, 100);
        CHECK(n != NULL && kumi_dsm_home(n) == 0, "realloc(NULL, 100)");
        kumi_dsm_free(n);
    }
    BARRIER();
    if (me == npes - 1)
        kumi_dsm_free(g);
    BARRIER();
    if (me == 0)
        printf("realloc: from any PE, contents kept, distributed stays distributed\n");
}

static void part_exhaust(void)
{
    size_t slice = kumi_dsm.slice, chunk = 64 << 10;
    size_t cap   = slice / chunk + 2, n = 0;
    void **v     = calloc(cap, sizeof *v);

    CHECK(v != NULL, "calloc");
    if (me == 0) {
        capture_begin();
        void *big = kumi_dsm_malloc_dist(slice + 4096);
        const char *msg = capture_end();
        CHECK(big == NULL && strstr(msg, "KUMI_DSM_SIZE"), "too big: %p '%s'", big, msg);
        for (;;) {
            CHECK(n < cap, "more than %zu chunks of %zu bytes in a %zu-byte share", n, chunk,
                  slice);
            capture_begin();
            v[n] = kumi_dsm_malloc_dist(chunk);
            msg = capture_end();
            if (v[n] == NULL) {
                CHECK(strstr(msg, "kumi_dsm_malloc_dist") && strstr(msg, "KUMI_DSM_SIZE"),
                      "out of space: '%s'", msg);
                break;
            }
            n++;
        }
        CHECK(n * chunk <= slice && (n + 1) * chunk > slice / 2,
              "%zu chunks of %zu in %zu bytes", n, chunk, slice);
    }
    OK(kumi_broadcast(kumi_team_world(), &n, sizeof n, 0));
    OK(kumi_broadcast(kumi_team_world(), v, n * sizeof *v, 0));
    /* others' shares are unaffected */
    if (me == npes - 1 && npes > 1) {
        void *x = kumi_dsm_malloc_dist(chunk);
        CHECK(x != NULL, "the last PE's share is not full");
        kumi_dsm_free(x);
    }
    BARRIER();
    if (me == npes - 1)
        for (size_t i = 0; i < n; i++)
            kumi_dsm_free(v[i]);
    BARRIER();
    if (me == 0) {
        void *h = kumi_dsm_malloc_dist(slice / 2);
        CHECK(h != NULL, "after the frees half of the share is one piece again");
        kumi_dsm_free(h);
        printf("exhaust: %zu x %zu KiB distributed in a %zu KiB share, then NULL; freed by "
               "PE %d, coalesced\n", n, chunk >> 10, slice >> 10, npes - 1);
    }
    free(v);
    BARRIER();
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    int         all  = strcmp(part, "all") == 0;

    if (argc > 2)
        st_n = atol(argv[2]);
    if (st_n < 64)
        st_n = 64;
    setvbuf(stdout, NULL, _IOLBF, 0);
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    if (all || strcmp(part, "homes") == 0)
        part_homes();
    if (all || strcmp(part, "calloc") == 0)
        part_calloc();
    if (all || strcmp(part, "stencil") == 0)
        part_stencil();
    if (all || strcmp(part, "free") == 0)
        part_free();
    if (all || strcmp(part, "realloc") == 0)
        part_realloc();
    if (all || strcmp(part, "object") == 0)
        part_object();
    if (strcmp(part, "exhaust") == 0)
        part_exhaust();
    OK(kumi_finalize());
    return 0;
}
