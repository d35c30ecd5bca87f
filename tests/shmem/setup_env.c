/*
 * setup_env.c -- the SHMEM_* environment: the cmake lines set
 * SHMEM_VERSION, SHMEM_INFO, SHMEM_SYMMETRIC_SIZE and check the output;
 * with an argument, the heap size in force must be that many bytes.
 */
#include <shmemx.h>

#include "core_test.h"

int main(int argc, char **argv)
{
    shmem_init();
    if (argc > 1) {
        size_t want = (size_t)strtoull(argv[1], NULL, 10);
        CHECK(shmemx_heap_size() == want, "heap size %zu, want %zu", shmemx_heap_size(), want);
        /* and most of it can be allocated */
        void *p = shmem_malloc(want / 2);
        CHECK(p != NULL, "half of SHMEM_SYMMETRIC_SIZE");
        shmem_free(p);
    }
    shmem_finalize();
    return 0;
}
