/*
 * region_taken.c -- the DSM region's address range is already mapped in
 * this process (here by the test itself, before kumi_init): kumi_init
 * still succeeds (programs without DSM must run), every DSM call fails
 * with a message that names the range and KUMI_DSM_BASE, and the rest of
 * kumi works. Then the same with a free KUMI_DSM_BASE chosen by the
 * environment: the region moves there.
 */
#include <sys/mman.h>

#include "pe_test.h"

#define TAKEN 0x567000000000ull

int main(int argc, char **argv)
{
    int moved = argc > 1 && strcmp(argv[1], "moved") == 0;

    if (!moved) {
        /* occupy the start of the range KUMI_DSM_BASE will name */
        void *p = mmap((void *)(uintptr_t)TAKEN, 2u << 20, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p != (void *)(uintptr_t)TAKEN) {
            fprintf(stderr, "cannot set the test up: %p mapped\n", p);
            return 1;
        }
    }
    OK(kumi_init());
    if (!moved) {
        capture_begin();
        void *d = kumi_dsm_malloc(64);
        const char *msg = capture_end();
        CHECK(d == NULL, "kumi_dsm_malloc succeeded over a taken range");
        CHECK(strstr(msg, "cannot reserve the DSM region 0x567000000000") != NULL
                  && strstr(msg, "KUMI_DSM_BASE") != NULL,
              "message does not name the range and KUMI_DSM_BASE: %s", msg);
        uint64_t v = 0;
        CHECK(kumi_dsm_read(&v, (void *)(uintptr_t)TAKEN, 8) != KUMI_OK, "read succeeded");
        CHECK(kumi_dsm_is_shared((void *)(uintptr_t)TAKEN) == 0, "is_shared without a region");
    } else {
        uint64_t *d = kumi_dsm_malloc(64);
        CHECK(d != NULL && (uintptr_t)d >= TAKEN && (uintptr_t)d < TAKEN + (64ull << 20),
              "region not at KUMI_DSM_BASE: %p", (void *)d);
        uint64_t v = 42, w = 0;
        OK(kumi_dsm_write(d, &v, 8));
        OK(kumi_dsm_read(&w, d, 8));
        CHECK(w == 42, "read back %llu", (unsigned long long)w);
        kumi_dsm_free(d);
    }
    BARRIER();
    OK(kumi_finalize());
    if (kumi_rank() == 0)
        printf("region_taken %s: ok\n", moved ? "moved" : "taken");
    return 0;
}
