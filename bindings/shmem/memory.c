/*
 * memory.c -- the symmetric heap: shmem_malloc, calloc, align, realloc,
 * free, malloc_with_hints and the deprecated shmalloc family.
 *
 * kumi's allocation is already what SHMEM asks for: collective, the same
 * address on every PE (verified: PEs whose offsets disagree get NULL and a
 * message, never a silent mismatch), and an agreement of every PE before it returns
 * (the implicit barrier at the end of shmem_malloc, and at the start of
 * shmem_free: no PE still reaches into freed memory). Pending puts are
 * completed first, so the barrier also publishes them as the
 * specification's shmem_barrier_all would.
 */
#include <string.h>

#include "shmem_impl.h"

#define KUMI_SHMEM_MALLOC_HINTS (SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE)

/* Every PE gets an object of the largest size any PE asked for: the
 * specification wants the same size everywhere, but SHMEM 1.1 allowed
 * asymmetric sizes and programs (and test suites) still use them. One
 * agreement more per allocation; kumi's own then verifies the offsets. */
static void *kumi_shmem_alloc(const char *call, size_t size, size_t alignment, int zero)
{
    uint64_t hi = 0;

    if (kumi_shmem_check_init(call) != 0)
        return NULL;
    kumi_shmem_status(call, kumi_tp_quiet(&kumi_rt.tp));
    if (kumi_rt_agree(call, size, NULL, &hi) != KUMI_OK)
        return NULL;
    return kumi_rt_heap_alloc(call, (size_t)hi, alignment, zero);
}

void *shmem_malloc(size_t size)
{
    return kumi_shmem_alloc("shmem_malloc", size, 0, 0);
}

/* The hints describe how the memory will be used; kumi serves every use
 * from the same heap at the same speed, so they only have to be valid. */
void *shmem_malloc_with_hints(size_t size, long hints)
{
    static const char call[] = "shmem_malloc_with_hints";

    if ((hints & ~KUMI_SHMEM_MALLOC_HINTS) != 0 && kumi_shmem.debug)
        kumi_rt_log(KUMI_LOG_WARN, "%s: unknown hint bits 0x%lx ignored", call,
                    (unsigned long)(hints & ~KUMI_SHMEM_MALLOC_HINTS));
    return kumi_shmem_alloc(call, size, 0, 0);
}

void *shmem_calloc(size_t count, size_t size)
{
    static const char call[] = "shmem_calloc";

    if (size != 0 && count > SIZE_MAX / size) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "%zu x %zu bytes overflows", count, size);
        return NULL;
    }
    return kumi_shmem_alloc(call, count * size, 0, 1);
}

void *shmem_align(size_t alignment, size_t size)
{
    static const char call[] = "shmem_align";

    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > ((size_t)1 << 30)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "alignment %zu is not a power of 2 from 1 to "
                         "2^30", alignment);
        return NULL;
    }
    return kumi_shmem_alloc(call, size, alignment, 0);
}

static void kumi_shmem_release(const char *call, void *ptr)
{
    if (kumi_shmem_check_init(call) != 0)
        return;
    kumi_shmem_status(call, kumi_tp_quiet(&kumi_rt.tp));
    kumi_rt_heap_free(call, ptr);
}

void shmem_free(void *ptr)
{
    kumi_shmem_release("shmem_free", ptr);
}

/* A new object, the old contents copied (each PE copies its own), the old
 * one freed: collective like the rest, and the new address is the same on
 * every PE. NULL ptr: shmem_malloc; size 0: shmem_free, returns NULL. On
 * failure the old object stays as it was. */
static void *kumi_shmem_resize(const char *call, void *ptr, size_t size)
{
    void  *p;
    size_t old;

    if (ptr == NULL)
        return kumi_shmem_alloc(call, size, 0, 0);
    if (size == 0) {
        kumi_shmem_release(call, ptr);
        return NULL;
    }
    if (kumi_shmem_check_init(call) != 0)
        return NULL;
    if (kumi_rt_heap_off(ptr, 1) == (size_t)-1) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "%p is not in the symmetric heap", ptr);
        return NULL;
    }
    old = kumi_rt_heap_usable(ptr);
    p   = kumi_shmem_alloc(call, size, 0, 0);
    if (p == NULL)
        return NULL;
    memcpy(p, ptr, old < size ? old : size);
    kumi_rt_heap_free(call, ptr);
    return p;
}

void *shmem_realloc(void *ptr, size_t size)
{
    return kumi_shmem_resize("shmem_realloc", ptr, size);
}

/* ------------------------------------------------------------ deprecated */

void *shmalloc(size_t size)
{
    return kumi_shmem_alloc("shmalloc", size, 0, 0);
}

void *shmemalign(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > ((size_t)1 << 30)) {
        kumi_shmem_error(KUMI_ERR_INVALID, "shmemalign", "alignment %zu is not a power of 2 "
                         "from 1 to 2^30", alignment);
        return NULL;
    }
    return kumi_shmem_alloc("shmemalign", size, alignment, 0);
}

void *shrealloc(void *ptr, size_t size)
{
    return kumi_shmem_resize("shrealloc", ptr, size);
}

void shfree(void *ptr)
{
    kumi_shmem_release("shfree", ptr);
}
