/*
 * kmp_ext.c -- the few libomp extensions (kmp_*, declared by libomp's
 * omp.h and ours) whose meaning does not depend on libomp's internals:
 * the kmp_* allocation calls (memory any thread can use, so the DSM heap,
 * as malloc in translated code) and kmp_set_disp_num_buffers, a tuning
 * knob of libomp's dispatch buffers that kumi's loop slots do not need.
 * The rest (blocktime, affinity masks, kmp_set_defaults, ...) stay
 * undefined: a program calling them fails to link, naming the call.
 */
#include <stddef.h>
#include <stdint.h>

#include "omp.h"
#include "omp_libc.h"

void *kmp_malloc(size_t size)
{
    return kumi_omp_malloc(size);
}

void *kmp_aligned_malloc(size_t size, size_t alignment)
{
    /* libomp's contract: NULL unless the alignment is a power of two */
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        return NULL;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    return kumi_omp_aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}

void *kmp_calloc(size_t nelem, size_t elsize)
{
    return kumi_omp_calloc(nelem, elsize);
}

void *kmp_realloc(void *ptr, size_t size)
{
    return kumi_omp_realloc(ptr, size);
}

void kmp_free(void *ptr)
{
    kumi_omp_free(ptr);
}

void kmp_set_disp_num_buffers(int num)
{
    (void)num;   /* any number of dispatched loops may be in flight already */
}
