/* tcp_backpressure.c -- every PE puts many small and some large messages
 * to every other PE without quiet, so send buffers, socket buffers and
 * credit windows fill on all sides at once; nobody may deadlock, and
 * after one quiet and a barrier every byte must be right. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pe_test.h"

#define SMALL_N   20000
#define SMALL_LEN 64
#define LARGE_N   16
#define LARGE_LEN (384 << 10)

static uint8_t val(int src, int dst, size_t i, int round)
{
    return (uint8_t)(src * 31 + dst * 17 + i * 7 + (size_t)round * 3);
}

int main(void)
{
    OK(kumi_init());
    int      me = kumi_rank(), n = kumi_size();
    /* per source: SMALL_N small slots, then one large area */
    size_t   per = (size_t)SMALL_N * SMALL_LEN + LARGE_LEN;
    uint8_t *dst = kumi_malloc(per * (size_t)n);
    uint8_t *src = malloc(LARGE_LEN);

    CHECK(dst && src, "allocation");
    BARRIER();
    for (int k = 1; k < n; k++) {
        int      pe = (me + k) % n;
        uint8_t *mine = dst + per * (size_t)me;      /* my area on pe */
        for (int j = 0; j < SMALL_N; j++) {
            uint8_t s[SMALL_LEN];
            for (size_t i = 0; i < SMALL_LEN; i++)
                s[i] = val(me, pe, (size_t)j * SMALL_LEN + i, 0);
            OK(kumi_put(mine + (size_t)j * SMALL_LEN, s, SMALL_LEN, pe));
        }
        for (int r = 0; r < LARGE_N; r++) {        /* the last round stays */
            for (size_t i = 0; i < LARGE_LEN; i++)
                src[i] = val(me, pe, i, r);
            OK(kumi_put(mine + (size_t)SMALL_N * SMALL_LEN, src, LARGE_LEN, pe));
        }
    }
    OK(kumi_quiet());
    BARRIER();
    for (int s = 0; s < n; s++) {
        if (s == me)
            continue;
        const uint8_t *a = dst + per * (size_t)s;
        for (size_t i = 0; i < (size_t)SMALL_N * SMALL_LEN; i++)
            CHECK(a[i] == val(s, me, i, 0), "small byte %zu from PE %d", i, s);
        for (size_t i = 0; i < LARGE_LEN; i++)
            CHECK(a[(size_t)SMALL_N * SMALL_LEN + i] == val(s, me, i, LARGE_N - 1),
                  "large byte %zu from PE %d", i, s);
    }
    BARRIER();
    kumi_free(dst);
    free(src);
    if (me == 0)
        printf("tcp_backpressure: %d PEs ok\n", n);
    return kumi_finalize();
}
