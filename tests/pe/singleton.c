/* singleton.c -- a program started without kumirun is a job of one PE in
 * which everything works. Also run under `kumirun -n 1`.
 *
 * usage: singleton [alone]   (alone: also assert no launcher environment)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "alone") == 0)
        CHECK(getenv("KUMI_JOB_ID") == NULL && getenv("KUMI_RANK") == NULL,
              "started with launcher variables (KUMI_JOB_ID=%s)", getenv("KUMI_JOB_ID"));

    OK(kumi_init());
    CHECK(kumi_rank() == 0 && kumi_size() == 1, "rank %d size %d", kumi_rank(), kumi_size());
    /* the transport asked for (kumirun --transport sets KUMI_TRANSPORT), shm by default */
    const char *want = getenv("KUMI_TRANSPORT") != NULL ? getenv("KUMI_TRANSPORT") : "shm";
    CHECK(strcmp(kumi_transport_name(), want) == 0, "transport %s, want %s",
          kumi_transport_name(), want);
    CHECK(kumi_team_size(kumi_team_world()) == 1 && kumi_team_rank(kumi_team_world()) == 0,
          "world team");

    /* heap, put/get to myself */
    uint8_t *a = kumi_malloc(100000), *b = kumi_calloc(100000, 1), buf[100000];
    CHECK(a != NULL && b != NULL, "kumi_malloc");
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 13 + 5);
    OK(kumi_put(a + 3, buf, sizeof(buf) - 3, 0));
    CHECK(memcmp(a + 3, buf, sizeof(buf) - 3) == 0, "put to myself");
    OK(kumi_get(b, a + 3, 1000, 0));
    CHECK(memcmp(b, buf, 1000) == 0 && b[1000] == 0, "get from myself");
    CHECK(kumi_ptr(a, 0) == a, "kumi_ptr(a, 0) = %p, a = %p", kumi_ptr(a, 0), (void *)a);

    /* atomics */
    uint64_t *w = kumi_calloc(2, sizeof(uint64_t)), old = 0;
    CHECK(w != NULL, "kumi_calloc");
    OK(kumi_atomic_fetch_add_u64(w, 5, 0, &old));
    OK(kumi_atomic_add_u64(w, 5, 0));
    OK(kumi_atomic_swap_u64(w, 42, 0, &old));
    CHECK(old == 10, "swap returned %llu", (unsigned long long)old);
    OK(kumi_atomic_cswap_u64(w, 42, 43, 0, &old));
    CHECK(old == 42 && w[0] == 43, "cswap: old %llu now %llu", (unsigned long long)old,
          (unsigned long long)w[0]);
    OK(kumi_put_signal(a, buf, 64, &w[1], 9, 0));
    OK(kumi_wait_until_u64(&w[1], KUMI_CMP_EQ, 9));

    /* LLCM and kicks */
    size_t off = kumi_llcm_alloc(16);
    CHECK(off != (size_t)-1 && kumi_llcm(off) != NULL, "kumi_llcm_alloc");
    uint32_t v = 0xc0ffee;
    OK(kumi_kick(0, off + 4, &v, 4));
    OK(kumi_wait_until_u32((volatile uint32_t *)((volatile uint8_t *)kumi_llcm(off) + 4),
                           KUMI_CMP_EQ, 0xc0ffee));
    OK(kumi_fence());
    OK(kumi_quiet());
    for (int i = 0; i < 100; i++)
        OK(kumi_barrier(kumi_team_world()));

    kumi_free(w);
    kumi_free(b);
    kumi_free(a);
    OK(kumi_finalize());
    CHECK(kumi_rank() == -1, "rank after finalize");
    printf("singleton ok\n");
    return 0;
}
