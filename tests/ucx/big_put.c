/* tests/ucx/big_put.c -- ROUNDS puts of BYTES (an RMA put over ucx: more
 * than 128 KiB), each followed by quiet, from PE 0 into PE 1's heap; every
 * round's data differs, and PE 1 checks after a barrier that the last
 * round's arrived whole. tests/ucx/seg.sh counts the sends of such a job
 * under strace (how many fragments UCX's tcp cut each put into).
 * ARGS: ROUNDS [BYTES] (20, 1 MiB). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <kumi.h>

static uint8_t big_put_byte(int round, size_t i)
{
    return (uint8_t)(round * 131 + (int)(i % 251) + (int)(i >> 16));
}

int main(int argc, char **argv)
{
    int    rounds = argc > 1 ? atoi(argv[1]) : 20;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : (size_t)1 << 20;

    if (rounds < 0 || bytes == 0 || kumi_init() != KUMI_OK)
        return 2;
    int      me = kumi_rank();
    uint8_t *dst = kumi_malloc(bytes), *src = malloc(bytes);

    if (kumi_size() != 2 || dst == NULL || src == NULL) {
        fprintf(stderr, "big_put: needs 2 PEs and %zu bytes\n", bytes);
        return 2;
    }
    for (size_t i = 0; i < bytes; i++)
        dst[i] = 0;
    kumi_barrier(kumi_team_world());
    for (int r = 1; me == 0 && r <= rounds; r++) {
        for (size_t i = 0; i < bytes; i++)
            src[i] = big_put_byte(r, i);
        if (kumi_put(dst, src, bytes, 1) != KUMI_OK || kumi_quiet() != KUMI_OK) {
            fprintf(stderr, "big_put: round %d failed\n", r);
            return 1;
        }
    }
    kumi_barrier(kumi_team_world());
    int bad = 0;
    for (size_t i = 0; me == 1 && rounds > 0 && i < bytes; i++)
        if (dst[i] != big_put_byte(rounds, i)) {
            fprintf(stderr, "big_put: PE 1 byte %zu is %u, want %u\n", i, dst[i],
                    big_put_byte(rounds, i));
            bad = 1;
            break;
        }
    free(src);
    return kumi_finalize() == KUMI_OK && !bad ? 0 : 1;
}
