/*
 * memcopy.c -- memcpy/memmove with both pointers in DSM memory, built by
 * kumicc (translated), at 2 PEs. PE 0 copies a 2000-byte range of A into B
 * (and memmoves overlapping ranges inside A and inside B) while PE 1 keeps
 * storing to words just outside those ranges, in their first and last
 * lines (false sharing). Copying after two back-to-back acquires is wrong
 * here: the second acquire may serve PE 1's request for a line of the
 * first range, and the copy then writes a line this PE no longer holds.
 * kumi-translate routes such calls through kumi_dsm_memmove. After each
 * round both PEs check the copied bytes and PE 1's words. Prints
 * "memcopy: PE p: ok" and exits 0 on success; "BAD" and 1 otherwise.
 */
#include <kumi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANGE  2000          /* copied bytes, from offset 8             */
#define SPAN   4096          /* bytes of A and of B                     */
#define ROUNDS 60
#define WRITES 3000          /* PE 1's stores per round                 */

static unsigned char pat(long i, int r) { return (unsigned char)(i * 7 + r * 13 + (i >> 8)); }

/* the words PE 1 writes: offset 0 and 2016 (same lines as the range's
 * first and last bytes, outside it) of A and of B */
static long *word(unsigned char *base, int k) { return (long *)(base + (k ? 2016 : 0)); }

int main(void)
{
    if (kumi_init() != KUMI_OK)
        return 1;
    int            me = kumi_rank(), np = kumi_size(), bad = 0;
    unsigned char *s = NULL;
    if (me == 0 && (s = kumi_dsm_malloc(2 * SPAN)) == NULL) {
        fprintf(stderr, "memcopy: BAD: kumi_dsm_malloc failed\n");
        return 1;
    }
    kumi_broadcast(kumi_team_world(), &s, sizeof s, 0);
    unsigned char *a = s, *b = s + SPAN;
    unsigned char *ra = malloc(SPAN), *rb = malloc(SPAN);   /* private replicas */
    if (ra == NULL || rb == NULL)
        return 1;
    if (me == 0) {
        memset(a, 0, 2 * SPAN);
        memset(ra, 0, SPAN);
        memset(rb, 0, SPAN);
    }
    kumi_barrier(kumi_team_world());

    for (int r = 0; r < ROUNDS && !bad; r++) {
        long last = (long)r * 100000 + WRITES - 1;
        if (me == 0) {
            for (long i = 8; i < 8 + RANGE; i++)
                a[i] = ra[i] = pat(i, r);
            for (int rep = 0; rep < 4; rep++)
                memcpy(b + 8, a + 8, RANGE);             /* both in DSM */
            memcpy(rb + 8, ra + 8, RANGE);
            if (r & 1) {   /* overlapping, forward and backward */
                memmove(a + 8 + 67, a + 8, RANGE - 67);
                memmove(ra + 8 + 67, ra + 8, RANGE - 67);
                memmove(b + 8, b + 8 + 77, RANGE - 77);
                memmove(rb + 8, rb + 8 + 77, RANGE - 77);
            }
        } else if (me == 1) {
            for (long k = 0; k < WRITES; k++)
                for (int w = 0; w < 2; w++) {
                    *word(a, w) = (long)r * 100000 + k;
                    *word(b, w) = (long)r * 100000 + k;
                }
        }
        kumi_barrier(kumi_team_world());
        /* every PE checks: the copies (against PE 0's replicas, so on PE 0)
         * and PE 1's last words (on every PE) */
        if (me == 0)
            for (long i = 8; i < 8 + RANGE; i++)
                if (a[i] != ra[i] || b[i] != rb[i]) {
                    fprintf(stderr, "memcopy: BAD: PE %d round %d: byte %ld: A %d (want %d) B %d (want %d)\n",
                            me, r, i, a[i], ra[i], b[i], rb[i]);
                    bad = 1;
                    break;
                }
        for (int w = 0; np > 1 && w < 2; w++)
            if (*word(a, w) != last || *word(b, w) != last) {
                fprintf(stderr, "memcopy: BAD: PE %d round %d: PE 1's word %d: A %ld B %ld (want %ld)\n",
                        me, r, w, *word(a, w), *word(b, w), last);
                bad = 1;
            }
        kumi_barrier(kumi_team_world());
        int any = bad;
        kumi_allreduce(kumi_team_world(), &any, &bad, 1, KUMI_INT32, KUMI_MAX);
    }
    printf("memcopy: PE %d: %s\n", me, bad ? "BAD" : "ok");
    kumi_barrier(kumi_team_world());
    if (me == 0)
        kumi_dsm_free(s);
    free(ra);
    free(rb);
    kumi_finalize();
    return bad;
}
