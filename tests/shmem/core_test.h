/*
 * core_test.h -- what the shmem-core tests share: CHECK, which names the
 * PE, the file and line and ends the job with status 1 (kumirun then ends
 * the others), and a value pattern every RMA type can hold exactly.
 */
#ifndef KUMI_SHMEM_CORE_TEST_H
#define KUMI_SHMEM_CORE_TEST_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "PE %d: %s:%d: CHECK(%s) failed: ", shmem_my_pe(), __FILE__,     \
                    __LINE__, #cond);                                                        \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fprintf(stderr, "\n");                                                           \
            fflush(stderr);                                                                  \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* 1..100: exact in every RMA type (int8 to long double) */
static inline int test_val(int pe, int i, int phase)
{
    return (pe * 13 + i * 3 + phase * 7) % 100 + 1;
}

#endif
