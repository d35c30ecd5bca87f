/*
 * omp_libc.h -- what the libc wrappers (libc.c, libc_stdio.c), the heap
 * (memory.c), the atomics (atomic.c) and the tasks (task.c) of
 * libkumi-omp share. Internal: never installed.
 */
#ifndef KUMI_OMP_LIBC_H
#define KUMI_OMP_LIBC_H

#include <stddef.h>
#include <stdint.h>

#include "kumi.h"

/* A range handed to libc: [p, p+n) for KUMI_DSM_READ and/or KUMI_DSM_WRITE. */
struct kumi_omp_range {
    const void *p;
    size_t      n;
    int         mode;
};

/* Makes every DSM part of the n ranges valid at once (private ranges are
 * skipped): acquiring one range may serve a request that takes a line of
 * another, so it repeats until one pass finds all of them valid. Ends the
 * job with a message naming call when the DSM fails (a libc wrapper has no
 * status to return). */
void kumi_omp_acquire(const char *call, const struct kumi_omp_range *r, int n);
/* One range. */
void kumi_omp_acquire1(const char *call, const void *p, size_t n, int mode);
/* strlen of a string that may lie in the DSM, acquiring it line by line up
 * to its NUL (at most max bytes looked at; returns max when no NUL). The
 * string is left readable (with the NUL when found). */
size_t kumi_omp_strnlen_acquire(const char *call, const char *s, size_t max);
/* Stores the pointer v at dst (DSM or private) coherently. */
void kumi_omp_store_ptr(const char *call, void **dst, void *v);
/* Ends the job after a failure the caller reported (status 1). */
_Noreturn void kumi_omp_fail(const char *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The heap (memory.c): what translated code calls for malloc and friends. */
void *kumi_omp_malloc(size_t size);
void *kumi_omp_calloc(size_t n, size_t size);
void *kumi_omp_realloc(void *p, size_t size);
void  kumi_omp_free(void *p);
/* libc's heap for what never leaves this PE (kumi-translate's proof) */
void *kumi_omp_private_malloc(size_t size);
void *kumi_omp_private_calloc(size_t n, size_t size);
void *kumi_omp_aligned_alloc(size_t alignment, size_t size);
int   kumi_omp_posix_memalign(void **memptr, size_t alignment, size_t size);
void *kumi_omp_memalign(size_t alignment, size_t size);
void *kumi_omp_valloc(size_t size);
char *kumi_omp_strdup(const char *s);
char *kumi_omp_strndup(const char *s, size_t n);
/* DSM memory for the runtime's own objects (task records): like
 * kumi_omp_malloc, freed by kumi_omp_free. */
void *kumi_omp_dsm_alloc(const char *call, size_t size, size_t alignment);

/* stdio forwarding (libc_stdio.c): serves other PEs' requests on this
 * PE's files; called from every kumi wait (the runtime's binding poll
 * hook) and from the task scheduler's idle loop. Returns how many. */
int kumi_omp_libc_serve(void);
/* Sets up the request/reply handler (from the first wrapper call after
 * kumi_init, or explicitly from the start-up). */
void kumi_omp_libc_init(void);

#endif /* KUMI_OMP_LIBC_H */
