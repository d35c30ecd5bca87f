/*
 * memory.c -- the heap of translated OpenMP programs: kumi-translate
 * --openmp turns malloc, calloc, realloc, free, aligned_alloc,
 * posix_memalign, memalign, valloc, strdup and strndup into the
 * kumi_omp_ functions below, so every heap object is DSM memory that any
 * PE may use and free -- but for a malloc or calloc whose pointer the
 * translator proved never leaves the PE: kumi_omp_private_malloc/calloc,
 * libc's heap.
 *
 * Every object has a 16-byte header right before the pointer the program
 * sees: its size, and how it was allocated.
 *  - Small objects (up to 2032 bytes, alignment 16) come from size
 *    classes carved out of 64 KiB DSM chunks of the allocating PE's slice
 *    (it is their home: a thread's own data is served locally, as with
 *    first touch), one chunk per class. From 64 bytes on a slot is a
 *    power of two and the chunk's coherence block is the slot: an object
 *    (a row of a grid that NPB MG mallocs row by row) moves in one miss,
 *    not one per 64-byte line, and never shares a block with another
 *    object. KUMI_OMP_HEAP_BLOCK=line gives the former classes (1.25x
 *    steps) and 64-byte blocks (for comparisons). A free puts the object
 *    on the freeing PE's private list of its class, which that PE's next
 *    allocations reuse: no message, whoever allocated it. (kumi_dsm_malloc
 *    per object would cost a search of the PE's free extents each time:
 *    40000 list nodes took 0.8 s.)
 *  - Larger objects are DSM allocations of their own (kumi_dsm_malloc_obj, as
 *    kumi_dsm_malloc_fit: the block sized to the object up to 4 KiB; at
 *    KUMI_DSM_DIST_MIN bytes and up block-distributed over the PEs, so no one
 *    PE serves every miss of a big array), freed with kumi_dsm_free. A
 *    block-distributed object starts on a block boundary, its header alone
 *    in the block before: a row or a static chunk of a big array then has
 *    blocks of its own. Its parts are counted from the object (kumi_dsm_malloc_obj):
 *    part k is its blocks [k*nb/P, (k+1)*nb/P), homed at PE k, what thread k's
 *    static share of a loop over it touches.
 * kumi_omp_free accepts pointers that are not DSM memory (from libc, from
 * code that was not translated, from kumi_omp_private_malloc/calloc: the
 * allocations the translator proved no other PE can reach) and gives them
 * to libc's free.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_libc.h"
#include "check.h"
#include "rt.h"   /* kumi_rt.cfg.omp_heap_block */

#define KUMI_OMP_HDR       16u          /* header bytes before the object    */
#define KUMI_OMP_CHUNK     (64u << 10)  /* DSM bytes carved per refill        */

struct kumi_omp_hdr {
    uint64_t size;    /* bytes the program asked for                            */
    uint64_t back;    /* own allocation: object - allocation start (>= 16);
                         small class: 0                                          */
};

/* classes by slot size (header included). Fit (default): 32, 48, then
 * powers of two, each slot of 64 or more one coherence block. Line
 * (KUMI_OMP_HEAP_BLOCK=line): multiples of 16 up to 128, then roughly
 * 1.25x steps to 2048, 64-byte blocks; a slot of 64 or more is 64-aligned. */
static const uint32_t omp_class_fit[] = { 32, 48, 64, 128, 256, 512, 1024, 2048 };
static const uint32_t omp_class_line[] = { 32,  48,  64,  80,  96,  112,  128, 192, 256,
                                           320, 384, 512, 640, 768, 1024, 1280, 1536, 2048 };
#define NCLASS_MAX (sizeof omp_class_line / sizeof omp_class_line[0])

static struct {
    int             mode;                   /* 0: not yet chosen, 1 fit, 2 line   */
    const uint32_t *slot;                   /* the classes' slot sizes            */
    unsigned        nclass;
    char           *carve[NCLASS_MAX], *carve_end[NCLASS_MAX];   /* per class     */
    void          **free[NCLASS_MAX];       /* freed objects per class (private)  */
    size_t          nfree[NCLASS_MAX], cap[NCLASS_MAX];
} heap;

static void heap_mode(void)
{
    if (kumi_rt.cfg.omp_heap_block == 1) {   /* KUMI_OMP_HEAP_BLOCK=line */
        heap.slot   = omp_class_line;
        heap.nclass = NCLASS_MAX;
        heap.mode   = 2;
    } else {
        heap.slot   = omp_class_fit;
        heap.nclass = sizeof omp_class_fit / sizeof omp_class_fit[0];
        heap.mode   = 1;
    }
}

/* The class of a small object (alignment 16), or -1. */
static int omp_class(size_t size, size_t alignment)
{
    size_t need = size + KUMI_OMP_HDR;
    if (heap.mode == 0)
        heap_mode();
    if (alignment > 16)
        return -1;
    for (unsigned c = 0; c < heap.nclass; c++)
        if (heap.slot[c] >= need)
            return (int)c;
    return -1;
}

static void hdr_put(const char *call, char *obj, uint64_t size, uint64_t back)
{
    struct kumi_omp_hdr h = { size, back };
    /* the header may share a line with a neighbour another PE writes */
    if (kumi_dsm_write(obj - KUMI_OMP_HDR, &h, sizeof h) != KUMI_OK)
        kumi_omp_fail(call, "cannot write the header of %p", (void *)obj);
}

static void *small_alloc(const char *call, size_t size, int c)
{
    char  *obj;
    size_t slot = heap.slot[c];

    if (heap.nfree[c] > 0) {
        obj = heap.free[c][--heap.nfree[c]];
    } else {
        /* 64-byte slots and up start on a 64-byte boundary (fit: on their
         * own size, as the chunk and the slots are powers of two) */
        uintptr_t at = (uintptr_t)heap.carve[c];
        if (slot >= 64)
            at = (at + 63) & ~(uintptr_t)63;
        if (heap.carve[c] == NULL || at + slot > (uintptr_t)heap.carve_end[c]) {
            size_t block = heap.mode == 1 && slot > 64 ? slot : 64;
            char  *chunk = kumi_dsm_malloc_block(KUMI_OMP_CHUNK, block);
            if (chunk == NULL) {
                errno = ENOMEM;   /* reported by kumi_dsm_malloc_block */
                return NULL;
            }
            heap.carve[c]     = chunk;
            heap.carve_end[c] = chunk + KUMI_OMP_CHUNK;
            at                = (uintptr_t)chunk;
        }
        heap.carve[c] = (char *)(at + slot);
        obj           = (char *)at + KUMI_OMP_HDR;
    }
    hdr_put(call, obj, size, 0);
    return obj;
}

/* An object of its own DSM allocation, aligned to alignment (a power of
 * two >= 16). */
static void *big_alloc(const char *call, size_t size, size_t alignment, int zero)
{
    /* A block-distributed object starts on a block boundary, not 16 bytes
     * after one: else every block of a row-major array holds the end of
     * one row and the start of the next, and the PEs that own neighbouring
     * rows or columns fight over it (fft at 2 PEs: 1.5x the misses). */
    if (kumi_rt.cfg.dsm_dist_min != 0 && size >= kumi_rt.cfg.dsm_dist_min
        && alignment < kumi_rt.cfg.dsm_dist_block)
        alignment = (size_t)kumi_rt.cfg.dsm_dist_block;
    size_t lead = alignment > KUMI_OMP_HDR ? alignment : KUMI_OMP_HDR;
    if (size > SIZE_MAX - 2 * lead) {
        errno = ENOMEM;
        return NULL;
    }
    /* DSM allocations are 64-byte aligned at least: room to align beyond */
    size_t total = lead + size + (alignment > 64 ? alignment : 0);
    /* calloc zeroes a distributed allocation at each part's home, without
     * moving its lines here; its parts are counted from the object, not
     * from base (at 3 and 4 PEs a block per boundary was homed at the
     * neighbour of the thread whose static share it is) */
    char  *base  = kumi_dsm_malloc_obj(total, KUMI_OMP_HDR, alignment, size, heap.mode == 1, zero);
    if (base == NULL) {
        errno = ENOMEM;   /* kumi_dsm_malloc reported why */
        return NULL;
    }
    uintptr_t obj = ((uintptr_t)base + KUMI_OMP_HDR + alignment - 1) & ~(uintptr_t)(alignment - 1);
    hdr_put(call, (char *)obj, size, obj - (uintptr_t)base);
    return (void *)obj;
}

static void *omp_alloc(const char *call, size_t size, size_t alignment, int zero)
{
    if (alignment < 16)
        alignment = 16;
    int c = omp_class(size, alignment);
    if (c < 0)
        return big_alloc(call, size, alignment, zero);
    char *p = small_alloc(call, size, c);
    if (p != NULL && zero) {
        /* a reused object may be homed elsewhere */
        kumi_omp_acquire1(call, p, size, KUMI_DSM_WRITE);
        memset(p, 0, size);
    }
    return p;
}

static struct kumi_omp_hdr omp_header(const char *call, const void *p)
{
    struct kumi_omp_hdr h;

    if (kumi_dsm_read(&h, (const char *)p - KUMI_OMP_HDR, sizeof h) != KUMI_OK)
        kumi_omp_fail(call, "cannot read the header of %p", p);
    if ((h.back != 0 && h.back < KUMI_OMP_HDR) || h.back > ((uint64_t)1 << 32)
        || h.size > ((uint64_t)1 << 48))
        kumi_omp_fail(call, "%p is not an object of the OpenMP heap (kumi_omp_malloc)", p);
    return h;
}

void *kumi_omp_dsm_alloc(const char *call, size_t size, size_t alignment)
{
    return omp_alloc(call, size, alignment, 0);
}

void *kumi_omp_malloc(size_t size)
{
    return omp_alloc("malloc", size == 0 ? 1 : size, 16, 0);
}

void *kumi_omp_calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return omp_alloc("calloc", n * size == 0 ? 1 : n * size, 16, 1);
}

/* An allocation whose pointer never leaves this PE (kumi-translate
 * --openmp proved it: dsm/translate/omp.c, "private heap"): libc's heap,
 * no DSM memory, no checks on its accesses. kumi_omp_free and
 * kumi_omp_realloc take such pointers. */
void *kumi_omp_private_malloc(size_t size)
{
    return malloc(size);
}

void *kumi_omp_private_calloc(size_t n, size_t size)
{
    return calloc(n, size);
}

void kumi_omp_free(void *p)
{
    if (p == NULL)
        return;
    if (!kumi_dsm_is_shared(p)) {
        free(p);
        return;
    }
    struct kumi_omp_hdr h = omp_header("free", p);
    if (h.back != 0) {
        kumi_dsm_free((char *)p - h.back);
        return;
    }
    int c = omp_class(h.size, 16);
    if (c < 0)
        kumi_omp_fail("free", "%p: bad header (size %llu)", p, (unsigned long long)h.size);
    if (heap.nfree[c] == heap.cap[c]) {
        size_t ncap = heap.cap[c] ? heap.cap[c] * 2 : 256;
        void **nf   = realloc(heap.free[c], ncap * sizeof(*nf));
        if (nf == NULL)
            return;   /* keep going without reusing it */
        heap.free[c] = nf;
        heap.cap[c]  = ncap;
    }
    heap.free[c][heap.nfree[c]++] = p;
}

void *kumi_omp_realloc(void *p, size_t size)
{
    static const char call[] = "realloc";

    if (p == NULL)
        return kumi_omp_malloc(size);
    if (size == 0) {
        kumi_omp_free(p);
        return NULL;
    }
    size_t old;
    if (kumi_dsm_is_shared(p)) {
        struct kumi_omp_hdr h = omp_header(call, p);
        old = h.size;
        if (h.back == 0 && omp_class(size, 16) == omp_class(old, 16)) {
            hdr_put(call, p, size, 0);   /* same slot: only the size changes */
            return p;
        }
    } else {
        old = malloc_usable_size(p);
    }
    void *q = kumi_omp_malloc(size);
    if (q == NULL)
        return NULL;
    kumi_dsm_memmove(q, p, old < size ? old : size);   /* either may be DSM */
    kumi_omp_free(p);
    return q;
}

static int align_ok(size_t a)
{
    return a != 0 && (a & (a - 1)) == 0;
}

void *kumi_omp_aligned_alloc(size_t alignment, size_t size)
{
    if (!align_ok(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    return omp_alloc("aligned_alloc", size == 0 ? 1 : size, alignment, 0);
}

void *kumi_omp_memalign(size_t alignment, size_t size)
{
    if (!align_ok(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    return omp_alloc("memalign", size == 0 ? 1 : size, alignment, 0);
}

void *kumi_omp_valloc(size_t size)
{
    return omp_alloc("valloc", size == 0 ? 1 : size, (size_t)sysconf(_SC_PAGESIZE), 0);
}

int kumi_omp_posix_memalign(void **memptr, size_t alignment, size_t size)
{
    if (!align_ok(alignment) || alignment % sizeof(void *) != 0)
        return EINVAL;
    void *p = omp_alloc("posix_memalign", size == 0 ? 1 : size, alignment, 0);
    if (p == NULL)
        return ENOMEM;
    kumi_omp_store_ptr("posix_memalign", memptr, p);
    return 0;
}

char *kumi_omp_strndup(const char *s, size_t n)
{
    size_t len = kumi_omp_strnlen_acquire("strndup", s, n);
    char  *d   = kumi_omp_malloc(len + 1);

    if (d == NULL)
        return NULL;
    kumi_dsm_memmove(d, s, len);
    char z = '\0';
    kumi_dsm_memmove(d + len, &z, 1);
    return d;
}

char *kumi_omp_strdup(const char *s)
{
    return kumi_omp_strndup(s, SIZE_MAX);
}
