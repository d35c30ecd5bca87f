/*
 * memory_heap.c -- shmem_malloc, shmem_calloc, shmem_align (alignments up
 * to 64 MiB), shmem_realloc (growing and shrinking, contents kept, a put
 * into the new object), shmem_free, shmem_malloc_with_hints and the
 * deprecated shmalloc, shmemalign, shrealloc, shfree: every allocation
 * symmetric (a put to the right neighbour lands), zero sizes, NULL frees,
 * asymmetric sizes, and a 200 MiB object (the benchmark suites' need; the
 * default heap holds it).
 */
#include <stdint.h>
#include <string.h>

#include "core_test.h"

static int me, npes, right, left;

/* the object is symmetric: my value lands in my right neighbour's copy */
static void check_symmetric(void *p, size_t bytes, const char *what)
{
    long v = me + 1, *last = (long *)((char *)p + ((bytes - sizeof(long)) & ~(sizeof(long) - 1)));
    shmem_barrier_all();
    shmem_long_p((long *)p, v, right);
    shmem_long_p(last, v, right);
    shmem_barrier_all();
    CHECK(*(long *)p == left + 1 && *last == left + 1, "%s: a put to the right did not land",
          what);
}

int main(void)
{
    shmem_init();
    me    = shmem_my_pe();
    npes  = shmem_n_pes();
    right = (me + 1) % npes;
    left  = (me + npes - 1) % npes;

    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is NULL");
    shmem_free(NULL);

    long *a = shmem_malloc(100 * sizeof(long));
    CHECK(a != NULL, "shmem_malloc");
    check_symmetric(a, 100 * sizeof(long), "shmem_malloc");

    long *z = shmem_calloc(1000, sizeof(long));
    CHECK(z != NULL, "shmem_calloc");
    for (int i = 0; i < 1000; i++)
        CHECK(z[i] == 0, "shmem_calloc: [%d] = %ld", i, z[i]);
    check_symmetric(z, 1000 * sizeof(long), "shmem_calloc");

    for (size_t al = 1; al <= (1u << 20); al <<= 3) {
        void *p = shmem_align(al, 3 * al + 8);
        CHECK(p != NULL && ((uintptr_t)p & (al - 1)) == 0, "shmem_align(%zu)", al);
        check_symmetric(p, 3 * al + 8, "shmem_align");
        shmem_free(p);
    }
    /* alignments beyond 2 MiB (the mappings' page alignment): still the
     * same offset on every PE */
    for (size_t al = (size_t)4 << 20; al <= ((size_t)64 << 20); al <<= 4) {
        void *p = shmem_align(al, 2056);
        CHECK(p != NULL && ((uintptr_t)p & (al - 1)) == 0, "shmem_align(%zu MiB)", al >> 20);
        check_symmetric(p, 2056, "shmem_align beyond 2 MiB");
        shmem_free(p);
    }

    /* realloc: grow (contents kept), then shrink, then size 0 frees */
    for (int i = 0; i < 100; i++)
        a[i] = me * 1000 + i;
    shmem_barrier_all();
    a = shmem_realloc(a, 100000 * sizeof(long));
    CHECK(a != NULL, "shmem_realloc grow");
    for (int i = 0; i < 100; i++)
        CHECK(a[i] == me * 1000 + i, "shmem_realloc lost [%d] = %ld", i, a[i]);
    check_symmetric(a, 100000 * sizeof(long), "shmem_realloc grow");
    a[1] = me * 1000 + 1;
    a = shmem_realloc(a, 2 * sizeof(long));
    CHECK(a != NULL && a[1] == me * 1000 + 1, "shmem_realloc shrink");
    CHECK(shmem_realloc(a, 0) == NULL, "shmem_realloc(p, 0) frees, returns NULL");
    a = shmem_realloc(NULL, 16);
    CHECK(a != NULL, "shmem_realloc(NULL, n) allocates");
    check_symmetric(a, 16, "shmem_realloc(NULL)");
    shmem_free(a);

    long *h = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
    long *h2 = shmem_malloc_with_hints(64, SHMEM_MALLOC_SIGNAL_REMOTE | SHMEM_MALLOC_ATOMICS_REMOTE);
    long *h3 = shmem_malloc_with_hints(64, 0);
    CHECK(h && h2 && h3, "shmem_malloc_with_hints");
    check_symmetric(h2, 64, "shmem_malloc_with_hints");
    shmem_free(h3);
    shmem_free(h2);
    shmem_free(h);

    /* deprecated names */
    long *d = shmalloc(32);
    CHECK(d != NULL, "shmalloc");
    check_symmetric(d, 32, "shmalloc");
    d = shrealloc(d, 4096);
    CHECK(d != NULL, "shrealloc");
    check_symmetric(d, 4096, "shrealloc");
    shfree(d);
    d = shmemalign(4096, 64);
    CHECK(d != NULL && ((uintptr_t)d & 4095) == 0, "shmemalign");
    shfree(d);

    /* what the benchmark suites allocate: 200 MiB per PE, fits the default heap */
    char *big = shmem_malloc((size_t)200 << 20);
    CHECK(big != NULL, "200 MiB do not fit the default symmetric heap");
    check_symmetric(big, (size_t)200 << 20, "200 MiB");
    shmem_free(big);

    /* asymmetric sizes (SHMEM 1.1, still used): every PE may reach the
     * largest size any PE asked for on every other PE */
    int *asym = shmem_malloc(sizeof(int) * (size_t)(me + 1));
    CHECK(asym != NULL, "asymmetric shmem_malloc");
    int back[64];
    for (int i = 0; i <= right && i < 64; i++)
        back[i] = right;
    shmem_barrier_all();
    shmem_int_put(asym, back, (size_t)(right < 64 ? right + 1 : 64), right);
    shmem_barrier_all();
    for (int i = 0; i <= me && i < 64; i++)
        CHECK(asym[i] == me, "asymmetric object [%d] = %d", i, asym[i]);
    shmem_free(asym);

    /* many objects, freed in another order */
    void *objs[64];
    for (int i = 0; i < 64; i++) {
        objs[i] = shmem_malloc((size_t)(i + 1) * 24);
        CHECK(objs[i] != NULL, "object %d", i);
    }
    for (int i = 0; i < 64; i += 2)
        shmem_free(objs[i]);
    for (int i = 1; i < 64; i += 2) {
        check_symmetric(objs[i], (size_t)(i + 1) * 24, "interleaved");
        shmem_free(objs[i]);
    }
    shmem_free(z);
    if (me == 0)
        printf("memory_heap: %d PEs passed\n", npes);
    shmem_finalize();
    return 0;
}
