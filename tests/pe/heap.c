/* heap.c -- the symmetric heap: the same allocation calls give the same
 * object on every PE (offsets exchanged and compared, and used by peers);
 * kumi_calloc zeroes reused memory; kumi_align aligns; freed memory is
 * reused; kumi_ptr points at what kumi_get reads; PEs that disagree get NULL
 * and a message.
 *
 * usage: heap            (default KUMI_HEAP_SIZE)
 *        heap exhaust    (KUMI_HEAP_SIZE=8m: NULL on every PE, one message
 *                         naming KUMI_HEAP_SIZE, and the heap still works)
 *        heap bigfree    (KUMI_HEAP_SIZE=64m: after one 48 MiB object is
 *                         freed, 56 MiB of 512 KiB objects still fit)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kumi.h>

#include "pe_test.h"

#define MAXOBJ 64

static int      me, npes;
static uint8_t *ref;       /* the first allocation: offsets are relative to it */
static int64_t *table;     /* npes x MAXOBJ offsets, row = PE */


static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* ------------------------------------------------------------ symmetry */

/* Every PE sends the offsets of its objects to every PE; all rows must be
 * equal. Then each PE writes a signature into its copy of every object and
 * reads its right neighbour's through the same pointers. */
static void check_symmetric(uint8_t **objs, const size_t *sizes, int m, const char *what)
{
    int64_t mine[MAXOBJ];
    int     right = (me + 1) % npes;

    CHECK(m <= MAXOBJ, "too many objects");
    for (int i = 0; i < m; i++)
        mine[i] = objs[i] - ref;
    for (int pe = 0; pe < npes; pe++)
        OK(kumi_put(table + (size_t)me * MAXOBJ, mine, (size_t)m * sizeof(int64_t), pe));
    BARRIER();
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < m; i++)
            CHECK(table[(size_t)pe * MAXOBJ + i] == mine[i], "%s: object %d (%zu bytes) is at "
                  "offset %lld on pe %d but %lld here", what, i, sizes[i],
                  (long long)table[(size_t)pe * MAXOBJ + i], pe, (long long)mine[i]);

    for (int i = 0; i < m; i++) {
        objs[i][0]            = (uint8_t)(me * 16 + i);
        objs[i][sizes[i] - 1] = (uint8_t)(0xf0 ^ (me * 16 + i));
    }
    BARRIER();
    for (int i = 0; i < m; i++) {
        uint8_t first, last;
        OK(kumi_get(&first, objs[i], 1, right));
        OK(kumi_get(&last, objs[i] + sizes[i] - 1, 1, right));
        uint8_t want_first = sizes[i] == 1 ? (uint8_t)(0xf0 ^ (right * 16 + i))
                                            : (uint8_t)(right * 16 + i);
        CHECK(first == want_first && last == (uint8_t)(0xf0 ^ (right * 16 + i)),
              "%s: object %d of pe %d holds 0x%02x..0x%02x, not its signature", what, i, right,
              first, last);
    }
    BARRIER();
}

static void test_symmetry(void)
{
    static const size_t sizes[] = { 1, 8, 24, 100, 4096, 5000, 1 << 20, 3, 65536, 200000, 17,
                                    4097, 12 };
    const int m = (int)(sizeof(sizes) / sizeof(sizes[0]));
    uint8_t *objs[MAXOBJ];
    size_t   sz[MAXOBJ];
    int      n = 0;

    for (int i = 0; i < m; i++) {
        objs[n] = kumi_malloc(sizes[i]);
        CHECK(objs[n] != NULL, "kumi_malloc(%zu) failed", sizes[i]);
        sz[n++] = sizes[i];
        if (i == 5) {               /* free two in the middle, then allocate again */
            kumi_free(objs[2]);
            kumi_free(objs[4]);
            objs[2] = objs[3];
            sz[2]   = sz[3];
            objs[3] = objs[5];
            sz[3]   = sz[5];
            n       = 4;
        }
    }
    check_symmetric(objs, sz, n, "kumi_malloc");
    for (int i = 0; i < n; i++)
        kumi_free(objs[i]);
}

static void test_calloc(void)
{
    static const size_t cases[][2] = { { 10000, 1 }, { 1000, 10 }, { 3, 8 }, { 1, 24 },
                                       { 1, 1 << 20 }, { 4096, 16 } };

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        size_t   bytes = cases[c][0] * cases[c][1];
        uint8_t *dirty = kumi_malloc(bytes);
        CHECK(dirty != NULL, "kumi_malloc(%zu)", bytes);
        memset(dirty, 0xff, bytes);
        kumi_free(dirty);                               /* the same memory, dirty */
        uint8_t *z = kumi_calloc(cases[c][0], cases[c][1]);
        uint8_t *objs[1] = { z };
        CHECK(z != NULL, "kumi_calloc(%zu, %zu) failed", cases[c][0], cases[c][1]);
        for (size_t k = 0; k < bytes; k++)
            CHECK(z[k] == 0, "kumi_calloc(%zu, %zu): byte %zu is 0x%02x", cases[c][0],
                  cases[c][1], k, z[k]);
        check_symmetric(objs, &bytes, 1, "kumi_calloc");
        kumi_free(z);
    }
    CHECK(kumi_calloc(0, 8) == NULL && kumi_calloc(8, 0) == NULL, "calloc of 0 bytes not NULL");
}

static void test_align(void)
{
    static const size_t aligns[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 4096, 65536, 1 << 21 };
    const int m = (int)(sizeof(aligns) / sizeof(aligns[0]));
    uint8_t *objs[MAXOBJ], *filler;
    size_t   sz[MAXOBJ];

    filler = kumi_malloc(40);          /* so that the next object is not aligned by luck */
    for (int i = 0; i < m; i++) {
        sz[i]   = 40 + (size_t)i;
        objs[i] = kumi_align(aligns[i], sz[i]);
        CHECK(objs[i] != NULL, "kumi_align(%zu) failed", aligns[i]);
        CHECK((uintptr_t)objs[i] % aligns[i] == 0, "kumi_align(%zu, %zu) = %p", aligns[i],
              sz[i], (void *)objs[i]);
    }
    check_symmetric(objs, sz, m, "kumi_align");
    for (int i = 0; i < m; i++)
        kumi_free(objs[i]);
    kumi_free(filler);
}

/* allocating and freeing far more than the heap holds works only if freed
 * memory is reused */
static void test_reuse(size_t each, int times)
{
    for (int i = 0; i < times; i++) {
        uint8_t *p = kumi_malloc(each);
        CHECK(p != NULL, "round %d: kumi_malloc(%zu) failed after %zu bytes allocated and "
              "freed", i, each, (size_t)i * each);
        p[0] = p[each - 1] = (uint8_t)i;
        kumi_free(p);
    }
}

static void test_ptr(void)
{
    const size_t n = 4096 + 3;
    uint8_t *obj = kumi_malloc(n), *buf = malloc(n);
    int      right = (me + 1) % npes;
    int      stack;

    CHECK(obj && buf, "allocation failed");
    for (size_t k = 0; k < n; k++)
        obj[k] = (uint8_t)(k * 31 + me);
    BARRIER();
    CHECK(kumi_ptr(obj, me) == obj, "kumi_ptr(obj, me) = %p, obj = %p", kumi_ptr(obj, me),
          (void *)obj);
    for (int pe = 0; pe < npes; pe++) {
        uint8_t *q = kumi_ptr(obj, pe);
        /* shm maps every PE's heap; tcp only my own (api.md: NULL when not
         * reachable by load/store) */
        if (strcmp(kumi_transport_name(), "shm") == 0 || pe == me)
            CHECK(q != NULL, "kumi_ptr(obj, %d) is NULL on %s", pe, kumi_transport_name());
        else if (strcmp(kumi_transport_name(), "tcp") == 0)
            CHECK(q == NULL, "kumi_ptr(obj, %d) = %p on tcp, want NULL for a peer", pe,
                  (void *)q);
        if (q == NULL)
            continue;
        OK(kumi_get(buf, obj, n, pe));
        CHECK(memcmp(q, buf, n) == 0, "kumi_ptr(obj, %d) and kumi_get differ", pe);
        CHECK(q[n - 1] == (uint8_t)((n - 1) * 31 + (size_t)pe), "kumi_ptr(obj, %d) points at "
              "the wrong object", pe);
        CHECK(kumi_ptr(obj + 100, pe) == q + 100, "kumi_ptr is not offset-preserving");
    }
    CHECK(kumi_ptr(obj, -1) == NULL && kumi_ptr(obj, npes) == NULL, "kumi_ptr: bad pe not NULL");
    CHECK(kumi_ptr(&stack, 0) == NULL && kumi_ptr(buf, 0) == NULL,
          "kumi_ptr of memory outside the heap is not NULL");
    BARRIER();
    /* stores through it land in the peer's copy */
    uint8_t *r = kumi_ptr(obj, right);
    if (r != NULL)
        r[7] = (uint8_t)(0x80 | me);
    BARRIER();
    if (r != NULL)
        CHECK(obj[7] == (uint8_t)(0x80 | ((me + npes - 1) % npes)), "store through kumi_ptr "
              "from my left neighbour not seen: 0x%02x", obj[7]);
    BARRIER();
    kumi_free(obj);
    free(buf);
}

/* PEs that ask for different sizes get NULL everywhere, with a message. */
static void test_mismatch(void)
{
    if (npes == 1)
        return;
    capture_begin();
    void *p = kumi_malloc(me == 0 ? 8 : (size_t)1 << 20);
    const char *out = capture_end();
    CHECK(p == NULL, "mismatched kumi_malloc returned %p", p);
    CHECK(strstr(out, "kumi_malloc") != NULL && strstr(out, "different") != NULL,
          "no message about the mismatch: '%s'", out);
    BARRIER();
}

static void test_exhaust(void)
{
    size_t big = (size_t)64 << 20;

    test_reuse((size_t)4 << 20, 50);          /* 200 MiB through an 8 MiB heap */

    /* most of KUMI_HEAP_SIZE is usable */
    uint8_t *blocks[6];
    size_t   sz[6];
    for (int i = 0; i < 6; i++) {
        sz[i]     = (size_t)1 << 20;
        blocks[i] = kumi_malloc(sz[i]);
        CHECK(blocks[i] != NULL, "only %d MiB of an 8 MiB heap could be allocated", i);
    }
    check_symmetric(blocks, sz, 6, "1 MiB blocks");
    for (int i = 0; i < 6; i++)
        kumi_free(blocks[i]);

    capture_begin();
    void *a = kumi_malloc(big);
    void *b = kumi_calloc(64, (size_t)1 << 20);
    void *c = kumi_align(4096, big);
    const char *out = capture_end();
    CHECK(a == NULL && b == NULL && c == NULL, "64 MiB from an 8 MiB heap: %p %p %p", a, b, c);
    if (me == 0) {
        CHECK(count_lines(out) == 3, "expected 3 lines (one per call) on PE 0, got: '%s'", out);
        CHECK(strstr(out, "kumi[0]: kumi_malloc: ") != NULL
              && strstr(out, "kumi[0]: kumi_calloc: ") != NULL
              && strstr(out, "kumi[0]: kumi_align: ") != NULL, "calls not named: '%s'", out);
        for (const char *line = out; *line; line = strchr(line, '\n') + 1)
            CHECK(strstr(line, "KUMI_HEAP_SIZE") != NULL && strstr(line, "KUMI_HEAP_SIZE")
                  < strchr(line, '\n'), "message does not name KUMI_HEAP_SIZE: '%s'", out);
    } else {
        CHECK(out[0] == '\0', "one message per job expected, but PE %d printed '%s'", me, out);
    }
    fputs(out, stderr);          /* for the log */

    /* the heap still works */
    uint8_t *after[2];
    size_t   asz[2] = { (size_t)1 << 20, 100 };
    after[0] = kumi_malloc(asz[0]);
    after[1] = kumi_malloc(asz[1]);
    CHECK(after[0] != NULL && after[1] != NULL, "heap unusable after exhaustion");
    check_symmetric(after, asz, 2, "after exhaustion");
    kumi_free(after[1]);
    kumi_free(after[0]);
}

/* Memory freed as one big object serves later smaller ones: with
 * KUMI_HEAP_SIZE=64m, allocate and free 48 MiB, then 7/8 of the heap in
 * 512 KiB objects must fit (everything else is free). */
static void test_bigfree(void)
{
    const size_t small = (size_t)512 << 10, want = 112;   /* 56 MiB */
    uint8_t **objs = calloc(want, sizeof(*objs));
    uint8_t *big = kumi_malloc((size_t)48 << 20);

    CHECK(objs != NULL && big != NULL, "kumi_malloc(48 MiB) from a 64 MiB heap failed");
    memset(big, 1, (size_t)48 << 20);
    kumi_free(big);
    for (size_t i = 0; i < want; i++) {
        objs[i] = kumi_malloc(small);
        CHECK(objs[i] != NULL, "after a 48 MiB object was freed, only %zu KiB of 512 KiB "
              "objects fit in KUMI_HEAP_SIZE=64m (everything else is free; want %zu KiB): "
              "freed memory is not reused", i * 512, want * 512);
        objs[i][0] = 1;
    }
    for (size_t i = 0; i < want; i++)
        kumi_free(objs[i]);
    free(objs);
}

int main(int argc, char **argv)
{
    int exhaust = argc > 1 && strcmp(argv[1], "exhaust") == 0;
    int bigfree = argc > 1 && strcmp(argv[1], "bigfree") == 0;

    OK(kumi_init());
    me    = kumi_rank();
    npes  = kumi_size();
    ref   = kumi_malloc(64);
    table = kumi_calloc((size_t)npes * MAXOBJ, sizeof(int64_t));
    CHECK(ref != NULL && table != NULL, "first allocations failed");
    CHECK(kumi_malloc(0) == NULL, "kumi_malloc(0) is not NULL");
    kumi_free(NULL);

    if (exhaust) {
        test_exhaust();
    } else if (bigfree) {
        test_bigfree();
    } else {
        test_symmetry();
        test_calloc();
        test_align();
        test_reuse((size_t)8 << 20, 80);      /* 640 MiB through the default 256 MiB */
        test_ptr();
        test_mismatch();
    }
    if (me == 0)
        printf("heap%s: %d PEs ok\n", exhaust ? " exhaust" : bigfree ? " bigfree" : "", npes);
    OK(kumi_finalize());
    return 0;
}
