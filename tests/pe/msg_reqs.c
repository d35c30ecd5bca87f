/*
 * msg_reqs.c -- many outstanding requests, completed by kumi_waitany,
 * kumi_test and kumi_waitall; large messages (64 MiB) with their contents
 * checked.
 *
 *   msg_reqs [R] [BIG_MIB]   R requests each way (default 256), BIG_MIB
 *                            the large message (default 64; 0: none)
 *
 *   ring   each PE pre-posts R receives from its left neighbour (one tag),
 *          half of them ANY_SOURCE, then sends R messages of mixed sizes
 *          (eager and rendezvous) to its right; receive k must get
 *          message k (posting order, no overtaking); the receives
 *          complete through waitany (first half) and test loops (the
 *          rest), the sends through waitall.
 *   big    PE 0 and PE 1 exchange BIG_MIB MiB at once (each isends and
 *          irecvs), every 8-byte word checked; then every PE sends 1 MiB
 *          to itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe_test.h"

static int me, npes;
static kumi_team_t world;

static size_t msg_size(int k)
{
    static const size_t s[] = { 8, 0, 4080, 4081, 1, 20000, 512 };
    return s[k % 7];
}

static void ring(int r)
{
    int             left = (me + npes - 1) % npes, right = (me + 1) % npes;
    kumi_request_t *rr = calloc((size_t)r, sizeof(*rr)), *sr = calloc((size_t)r, sizeof(*sr));
    uint32_t      **rb = calloc((size_t)r, sizeof(*rb)), **sb = calloc((size_t)r, sizeof(*sb));
    int            *seen = calloc((size_t)r, sizeof(int));
    CHECK(rr && sr && rb && sb && seen, "malloc");

    for (int k = 0; k < r; k++) {
        rb[k] = calloc(1, 20000 + 8);
        sb[k] = malloc(20000 + 8);
        CHECK(rb[k] && sb[k], "malloc");
        for (size_t i = 0; i < (20000 + 8) / 4; i++)
            sb[k][i] = (uint32_t)(me << 24 | k << 8 | (i & 255));
        OK(kumi_irecv(rb[k], msg_size(k), k % 2 ? KUMI_ANY_SOURCE : left, 11, world, &rr[k]));
    }
    BARRIER();
    for (int k = 0; k < r; k++)
        OK(kumi_isend(sb[k], msg_size(k), right, 11, world, &sr[k]));
    int done = 0;
    while (done < r / 2) {
        int           idx;
        kumi_status_t st;
        OK(kumi_waitany(r, rr, &idx, &st));
        CHECK(idx >= 0 && idx < r && !seen[idx] && rr[idx] == KUMI_REQUEST_NULL, "waitany %d",
              idx);
        CHECK(st.source == left && st.tag == 11 && st.bytes == msg_size(idx), "status");
        seen[idx] = 1;
        done++;
    }
    while (done < r) {
        for (int k = 0; k < r; k++) {
            int           flag;
            kumi_status_t st;
            if (seen[k])
                continue;
            OK(kumi_test(&rr[k], &flag, &st));
            if (flag) {
                CHECK(st.source == left && st.bytes == msg_size(k), "test status");
                seen[k] = 1;
                done++;
            }
        }
    }
    for (int k = 0; k < r; k++) {
        size_t n = msg_size(k) / 4;
        for (size_t i = 0; i < n; i++)
            CHECK(rb[k][i] == (uint32_t)(left << 24 | k << 8 | (i & 255)),
                  "receive %d word %zu: %08x", k, i, rb[k][i]);
    }
    OK(kumi_waitall(r, sr, KUMI_STATUSES_IGNORE));
    for (int k = 0; k < r; k++)
        free(rb[k]), free(sb[k]);
    free(rr), free(sr), free(rb), free(sb), free(seen);
    BARRIER();
}

static void big(size_t mib)
{
    size_t          n = mib << 20, words = n / 8;
    kumi_request_t  r[2];
    kumi_status_t   st[2];

    if (me < 2 && npes >= 2 && n > 0) {
        uint64_t *out = malloc(n), *in = malloc(n);
        CHECK(out && in, "malloc %zu", n);
        for (size_t i = 0; i < words; i++)
            out[i] = (uint64_t)me << 56 ^ i * 0x9e3779b97f4a7c15ull;
        memset(in, 0, n);
        double t = kumi_wtime();
        OK(kumi_irecv(in, n, 1 - me, 21, world, &r[0]));
        OK(kumi_isend(out, n, 1 - me, 21, world, &r[1]));
        OK(kumi_waitall(2, r, st));
        t = kumi_wtime() - t;
        CHECK(st[0].bytes == n && st[0].source == 1 - me, "big status");
        for (size_t i = 0; i < words; i++)
            CHECK(in[i] == ((uint64_t)(1 - me) << 56 ^ i * 0x9e3779b97f4a7c15ull),
                  "word %zu of %zu", i, words);
        if (me == 0)
            printf("msg_reqs: %zu MiB each way in %.3f s\n", mib, t);
        free(out), free(in);
    }
    /* to myself, rendezvous size */
    size_t    m = 1 << 20;
    uint8_t  *a = malloc(m), *b = malloc(m);
    CHECK(a && b, "malloc");
    for (size_t i = 0; i < m; i++)
        a[i] = (uint8_t)(i * 13 + me);
    OK(kumi_isend(a, m, me, 22, world, &r[1]));
    OK(kumi_recv(b, m, me, 22, world, &st[0]));
    OK(kumi_wait(&r[1], NULL));
    CHECK(memcmp(a, b, m) == 0 && st[0].source == me, "self 1 MiB");
    free(a), free(b);
    BARRIER();
}

int main(int argc, char **argv)
{
    int r   = argc > 1 ? atoi(argv[1]) : 256;
    int mib = argc > 2 ? atoi(argv[2]) : 64;

    OK(kumi_init());
    me = kumi_rank(), npes = kumi_size(), world = kumi_team_world();
    ring(r);
    big((size_t)mib);
    OK(kumi_finalize());
    if (me == 0)
        printf("msg_reqs: OK on %d PEs\n", npes);
    return 0;
}
