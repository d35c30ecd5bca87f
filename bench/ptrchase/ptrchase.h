/*
 * ptrchase.h -- what the three pointer-chasing programs share: a failure
 * exit naming the program, malloc that fails loudly, a xorshift
 * generator and a monotonic clock. Define PTRCHASE_PROG (the program's
 * name) before including it.
 */
#ifndef PTRCHASE_H
#define PTRCHASE_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef PTRCHASE_PROG
#error "define PTRCHASE_PROG before including ptrchase.h"
#endif

/* "<prog>: what (a, b)" on stderr, exit status 1 */
static void fail(const char *what, uint64_t a, uint64_t b)
{
    fprintf(stderr, PTRCHASE_PROG ": %s (%" PRIu64 ", %" PRIu64 ")\n", what, a, b);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        fail("out of memory", n, 0);
    return p;
}

/* xorshift64: *s must not be 0 */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif /* PTRCHASE_H */
