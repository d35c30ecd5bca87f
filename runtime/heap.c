/*
 * heap.c -- the symmetric heap: a jemalloc arena whose extent hooks serve
 * memory from this PE's heap segment.
 *
 * Symmetry comes from determinism: every PE makes the same allocation calls
 * in the same order on an arena that starts empty at a base aligned to
 * 1 GiB (kumi_align's largest alignment, so an aligned object's offset is
 * the same on every PE too), with no thread cache and no time-based decay,
 * so jemalloc hands out the same offsets everywhere. kumi_malloc still checks (one agree round)
 * and fails loudly if they ever differ.
 *
 * The hooks hand out extents by bumping a break pointer; jemalloc keeps
 * extents it no longer needs (dalloc opts out) and reuses them, splitting
 * and merging freely. The arena's own metadata also comes from the hooks,
 * in 2 MiB blocks, so the segment is larger than KUMI_HEAP_SIZE by a
 * reserve (kumi_rt_heap_reserve).
 */
#include <jemalloc/jemalloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

#define KUMI_HEAP_PAGE 4096

static struct {
    uint8_t *base, *brk, *end;
} kumi_heap;

static void *kumi_heap_alloc(extent_hooks_t *h, void *new_addr, size_t size, size_t alignment,
                             bool *zero, bool *commit, unsigned arena_ind)
{
    uintptr_t at;
    (void)h; (void)arena_ind;

    if (alignment < KUMI_HEAP_PAGE)
        alignment = KUMI_HEAP_PAGE;
    at = ((uintptr_t)kumi_heap.brk + alignment - 1) & ~(uintptr_t)(alignment - 1);
    if (new_addr != NULL && (uintptr_t)new_addr != at)
        return NULL;                      /* only growth at the break is possible */
    if (at > (uintptr_t)kumi_heap.end || size > (uintptr_t)kumi_heap.end - at)
        return NULL;
    kumi_heap.brk = (uint8_t *)(at + size);
    *zero   = true;                       /* never handed out before: still zero */
    *commit = true;
    return (void *)at;
}

static bool kumi_heap_dalloc(extent_hooks_t *h, void *addr, size_t size, bool committed,
                             unsigned arena_ind)
{
    (void)h; (void)addr; (void)size; (void)committed; (void)arena_ind;
    return true;                          /* opt out: jemalloc retains it for reuse */
}

static void kumi_heap_destroy(extent_hooks_t *h, void *addr, size_t size, bool committed,
                              unsigned arena_ind)
{
    (void)h; (void)addr; (void)size; (void)committed; (void)arena_ind;
}

static bool kumi_heap_commit(extent_hooks_t *h, void *addr, size_t size, size_t offset,
                             size_t length, unsigned arena_ind)
{
    (void)h; (void)addr; (void)size; (void)offset; (void)length; (void)arena_ind;
    return false;                         /* always committed */
}

static bool kumi_heap_decommit(extent_hooks_t *h, void *addr, size_t size, size_t offset,
                               size_t length, unsigned arena_ind)
{
    (void)h; (void)addr; (void)size; (void)offset; (void)length; (void)arena_ind;
    return true;                          /* refuse: peers may still address it */
}

static bool kumi_heap_split(extent_hooks_t *h, void *addr, size_t size, size_t size_a,
                            size_t size_b, bool committed, unsigned arena_ind)
{
    (void)h; (void)addr; (void)size; (void)size_a; (void)size_b; (void)committed; (void)arena_ind;
    return false;
}

static bool kumi_heap_merge(extent_hooks_t *h, void *addr_a, size_t size_a, void *addr_b,
                            size_t size_b, bool committed, unsigned arena_ind)
{
    (void)h; (void)addr_a; (void)size_a; (void)addr_b; (void)size_b; (void)committed;
    (void)arena_ind;
    return false;
}

static extent_hooks_t kumi_heap_hooks = {
    .alloc        = kumi_heap_alloc,
    .dalloc       = kumi_heap_dalloc,
    .destroy      = kumi_heap_destroy,
    .commit       = kumi_heap_commit,
    .decommit     = kumi_heap_decommit,
    .purge_lazy   = NULL,                 /* no purging: keeps the arena deterministic */
    .purge_forced = NULL,
    .split        = kumi_heap_split,
    .merge        = kumi_heap_merge,
};

size_t kumi_rt_heap_reserve(size_t heap_size, size_t scratch)
{
    /* metadata blocks (2 MiB each), size-class round-up of extents, and
     * the collectives' scratch pool */
    size_t r = ((size_t)8 << 20) + heap_size / 4 + scratch;
    return (r + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
}

static int kumi_heap_flags(size_t size, size_t alignment, int zero);

static int kumi_heap_ctl_ssize(unsigned arena, const char *what, ssize_t v)
{
    char name[64];
    snprintf(name, sizeof(name), "arena.%u.%s", arena, what);
    return mallctl(name, NULL, NULL, &v, sizeof(v));
}

int kumi_rt_heap_init(void)
{
    extent_hooks_t *hooks = &kumi_heap_hooks;
    unsigned        arena;
    size_t          sz = sizeof(arena);
    int             err;

    kumi_heap.base = kumi_rt.tp.local[KUMI_SEG_HEAP];
    kumi_heap.brk  = kumi_heap.base;
    kumi_heap.end  = kumi_heap.base + kumi_rt.tp.seg_size[KUMI_SEG_HEAP];
    err = mallctl("arenas.create", &arena, &sz, &hooks, sizeof(hooks));
    if (err != 0)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "cannot create the symmetric heap "
                             "arena (jemalloc error %d: %s)", err, strerror(err));
    /* Decay 0: a freed extent is "purged" at once, synchronously (never on
     * a timer, which would differ between PEs); purging is not supported
     * by the hooks, so it lands among the retained extents, which jemalloc
     * splits for requests of any size. Left dirty instead, a freed 48 MiB
     * object could not serve 512 KiB requests (the active-fit limit). */
    if (kumi_heap_ctl_ssize(arena, "dirty_decay_ms", 0) != 0
        || kumi_heap_ctl_ssize(arena, "muzzy_decay_ms", 0) != 0)
        kumi_rt_log(KUMI_LOG_WARN, "cannot set the decay of the heap arena");
    kumi_rt.arena    = arena;
    kumi_rt.arena_ok = 1;
    return KUMI_OK;
}

int kumi_rt_heap_scratch_init(size_t bytes)
{
    /* the first allocation of the arena on every PE: the same offset */
    void *p = mallocx(bytes, kumi_heap_flags(bytes, 4096, 1));

    if (p == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no room for %zu bytes of collective "
                             "scratch in the symmetric heap (KUMI_HEAP_SIZE, KUMI_COLL_SCRATCH)",
                             bytes);
    kumi_rt.scratch_off = kumi_rt_heap_off(p, bytes);
    return KUMI_OK;
}

void kumi_rt_heap_fini(void)
{
    char name[64];

    if (!kumi_rt.arena_ok)
        return;
    snprintf(name, sizeof(name), "arena.%u.destroy", kumi_rt.arena);
    int err = mallctl(name, NULL, NULL, NULL, 0);
    if (err != 0)
        kumi_rt_log(KUMI_LOG_WARN, "cannot destroy the heap arena: %s", strerror(err));
    kumi_rt.arena_ok = 0;
}

static int kumi_heap_flags(size_t size, size_t alignment, int zero)
{
    int flags = (int)MALLOCX_ARENA(kumi_rt.arena) | MALLOCX_TCACHE_NONE;

    /* Large objects start on a page on every PE: below page alignment,
     * jemalloc offsets large objects by a random number of cache lines
     * (cache-oblivious placement), which differs between PEs. */
    if (size >= KUMI_HEAP_PAGE && alignment < KUMI_HEAP_PAGE)
        alignment = KUMI_HEAP_PAGE;
    if (alignment != 0)
        flags |= MALLOCX_ALIGN(alignment);
    if (zero)
        flags |= MALLOCX_ZERO;        /* zeroed before the agree: peers may put at once */
    return flags;
}

static void *kumi_heap_malloc(const char *call, size_t size, size_t alignment, int zero)
{
    void    *p;
    uint64_t v[KUMI_RT_AGREE_N], lo[KUMI_RT_AGREE_N], hi[KUMI_RT_AGREE_N];

    if (kumi_rt_check_state(call) != KUMI_OK || size == 0)
        return NULL;
    p    = mallocx(size, kumi_heap_flags(size, alignment, zero));
    v[0] = p != NULL ? (uint64_t)kumi_rt_heap_off(p, size) : UINT64_MAX;
    v[1] = size;
    if (kumi_rt_agree_n(call, v, lo, hi) != KUMI_OK) {
        if (p != NULL)
            dallocx(p, MALLOCX_TCACHE_NONE);
        return NULL;
    }
    if (lo[0] == hi[0] && lo[1] == hi[1] && p != NULL)
        return p;
    if (p != NULL)
        dallocx(p, MALLOCX_TCACHE_NONE);
    if (lo[1] != hi[1]) {
        /* a program bug: the job's allocations are no longer the same */
        kumi_rt_error(KUMI_ERR_INVALID, call, "PEs asked for different sizes (%llu..%llu "
                      "bytes): kumi_malloc is collective, every PE must ask for the same size",
                      (unsigned long long)lo[1], (unsigned long long)hi[1]);
    } else if (hi[0] == UINT64_MAX) {
        /* every PE (or some) ran out: one message for the job */
        if (kumi_rt.rank == 0)
            kumi_rt_error(KUMI_ERR_NOMEM, call, "symmetric heap exhausted: %zu bytes do not fit "
                          "(KUMI_HEAP_SIZE=%zu; set it larger)", size,
                          (size_t)kumi_rt.cfg.heap_size);
        else if (kumi_rt.cfg.abort_on_error)
            kumi_rt_abort("symmetric heap exhausted");
    } else {
        kumi_rt_error(KUMI_ERR_INVALID, call, "PEs got different heap offsets (%llu..%llu) for "
                      "%zu bytes: were kumi_malloc/kumi_free called in the same order on every "
                      "PE?", (unsigned long long)lo[0], (unsigned long long)hi[0], size);
    }
    return NULL;
}

void *kumi_malloc(size_t size)
{
    return kumi_heap_malloc("kumi_malloc", size, 0, 0);
}

void *kumi_calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size) {
        kumi_rt_error(KUMI_ERR_INVALID, "kumi_calloc", "%zu x %zu bytes overflows", n, size);
        return NULL;
    }
    return kumi_heap_malloc("kumi_calloc", n * size, 0, 1);
}

void *kumi_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > ((size_t)1 << 30)) {
        kumi_rt_error(KUMI_ERR_INVALID, "kumi_align", "alignment %zu is not a power of 2 "
                      "from 1 to 2^30", alignment);
        return NULL;
    }
    return kumi_heap_malloc("kumi_align", size, alignment, 0);
}

void kumi_free(void *ptr)
{
    kumi_rt_heap_free("kumi_free", ptr);
}

/* The allocation calls for a binding (the SHMEM one): the same, with
 * messages naming call. */
void *kumi_rt_heap_alloc(const char *call, size_t size, size_t alignment, int zero)
{
    return kumi_heap_malloc(call, size, alignment, zero);
}

size_t kumi_rt_heap_usable(const void *ptr)
{
    return sallocx(ptr, 0);
}

void kumi_rt_heap_free(const char *call, void *ptr)
{
    uint64_t off, lo, hi;

    if (kumi_rt_check_state(call) != KUMI_OK)
        return;
    if (ptr == NULL) {
        off = UINT64_MAX;
    } else {
        off = kumi_rt_heap_off(ptr, 1);
        if (off == (uint64_t)-1) {
            kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not in the symmetric heap", ptr);
            off = UINT64_MAX - 1;
        }
    }
    /* also a barrier: no PE may still be reaching into the object */
    if (kumi_rt_agree(call, off, &lo, &hi) != KUMI_OK)
        return;
    if (lo != hi) {
        if (kumi_rt.rank == 0)
            kumi_rt_error(KUMI_ERR_INVALID, call, "PEs freed different objects (offsets "
                          "%llu..%llu); nothing freed", (unsigned long long)lo,
                          (unsigned long long)hi);
        return;
    }
    if (off < UINT64_MAX - 1)
        dallocx(ptr, MALLOCX_TCACHE_NONE);
}

void *kumi_ptr(const void *sym, int pe)
{
    enum kumi_seg seg;
    size_t        off;

    if (kumi_rt.state != 1 || (unsigned)pe >= (unsigned)kumi_rt.size)
        return NULL;
    /* the heap or (KUMI_INIT_SYMMETRIC_DATA) static data */
    if (kumi_rt_sym_lookup(sym, 1, &seg, &off) != KUMI_OK)
        return NULL;
    return kumi_tp_peer_ptr(&kumi_rt.tp, pe, seg, off);
}
