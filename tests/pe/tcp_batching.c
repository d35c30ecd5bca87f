/* tcp_batching.c -- when the tcp transport writes and how it reads
 * (internal: the transport's test hook kumi_tcp_test_counts).
 *
 * Writes: PE 1 sends PE 0 three short active messages after an engine
 * round (a quiet): the first is on the socket when am_send returns
 * (nothing left queued: the latency path of a reply), the next ones wait
 * in the buffer for the next round (a window of sends costs two writes,
 * not one each: seen queued in at least one of 20 tries, since the
 * progress thread may write them first), and the round after writes
 * everything. Reads: PE 1 then streams 16 long active messages of the
 * largest size to PE 0, which must take their payloads in place and read
 * each header alone: at most 16 KiB a message through the staging buffer
 * (reading a header with 64 KiB of its payload, as before, costs about
 * 64 KiB a message). PE 0 checks that every message arrived intact and in
 * order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "tcp/tcp.h"

#include "pe_test.h"

#define H_ID   29        /* a handler id nothing else uses */
#define TRIES  20
#define NBULK  16
#define BULK   KUMI_TP_AM_LONG_MAX

/* handlers run on whichever thread progresses the transport */
static int            got_short, got_long, bad;
static unsigned char *rbuf;

static void on_short(struct kumi_tp *tp, int src, const void *p, size_t len, void *arg)
{
    (void)tp;
    (void)arg;
    int k = __atomic_load_n(&got_short, __ATOMIC_RELAXED);
    if (src != 1 || len != sizeof k || memcmp(p, &k, sizeof k) != 0) {
        fprintf(stderr, "FAIL tcp_batching: short message %d from %d out of order\n", k, src);
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&got_short, k + 1, __ATOMIC_RELEASE);
}

static void *on_place(struct kumi_tp *tp, int src, const void *hdr, size_t hlen, size_t len,
                      void *arg)
{
    (void)tp;
    (void)arg;
    int k = __atomic_load_n(&got_long, __ATOMIC_RELAXED);
    if (src != 1 || hlen != sizeof k || len != BULK || memcmp(hdr, &k, sizeof k) != 0) {
        fprintf(stderr, "FAIL tcp_batching: long message %d from %d: hlen %zu len %zu\n", k,
                src, hlen, len);
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return rbuf;
}

static void on_done(struct kumi_tp *tp, int src, const void *hdr, size_t hlen, void *dst,
                    size_t len, void *arg)
{
    (void)tp;
    (void)src;
    (void)hdr;
    (void)hlen;
    (void)arg;
    int                  k = __atomic_load_n(&got_long, __ATOMIC_RELAXED);
    const unsigned char *d = dst;
    for (size_t i = 0; i < len; i++)
        if (d[i] != (unsigned char)(k * 7 + i * 13 + (i >> 12))) {
            fprintf(stderr, "FAIL tcp_batching: long message %d byte %zu\n", k, i);
            __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
            break;
        }
    __atomic_store_n(&got_long, k + 1, __ATOMIC_RELEASE);
}

static void wait_for(int *count, int n, const char *what)
{
    double t0 = kumi_wtime();
    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < n) {
        kumi_tp_progress(&kumi_rt.tp);
        CHECK(kumi_wtime() - t0 < 20, "only %d of %d %s messages in 20 s",
              __atomic_load_n(count, __ATOMIC_ACQUIRE), n, what);
    }
}

int main(void)
{
    OK(kumi_init());
    struct kumi_tp *tp = &kumi_rt.tp;
    int             me = kumi_rank();
    size_t          unsent;
    uint64_t        staged0, staged1;

    CHECK((rbuf = malloc(BULK)) != NULL, "malloc");
    OK(kumi_tp_am_register(tp, H_ID, on_short, NULL));
    OK(kumi_tp_am_register_long(tp, H_ID, on_place, on_done, NULL));
    CHECK(kumi_tcp_test_counts(tp, me, &unsent, &staged0) == KUMI_ERR_INVALID,
          "counts of my own connection");
    BARRIER();

    /* writes */
    if (me == 1) {
        int k = 0, queued = 0;
        for (int t = 0; t < TRIES; t++) {
            OK(kumi_tp_quiet(tp));   /* an engine round; everything written */
            OK(kumi_tcp_test_counts(tp, 0, &unsent, &staged0));
            CHECK(unsent == 0, "try %d: %zu bytes queued after a quiet", t, unsent);
            OK(kumi_tp_am_send(tp, 0, H_ID, &k, sizeof k));
            k++;
            OK(kumi_tcp_test_counts(tp, 0, &unsent, &staged0));
            CHECK(unsent == 0, "try %d: the first message after a round is not written at "
                  "once (%zu bytes queued)", t, unsent);
            for (int j = 0; j < 2; j++, k++)
                OK(kumi_tp_am_send(tp, 0, H_ID, &k, sizeof k));
            OK(kumi_tcp_test_counts(tp, 0, &unsent, &staged0));
            queued += unsent > 0;
        }
        OK(kumi_tp_quiet(tp));
        OK(kumi_tcp_test_counts(tp, 0, &unsent, &staged0));
        CHECK(unsent == 0, "%zu bytes queued after the last quiet", unsent);
        CHECK(queued > 0, "the messages after the first were written at once in all %d tries "
              "(no coalescing)", TRIES);
    } else if (me == 0) {
        wait_for(&got_short, 3 * TRIES, "short");
    }
    BARRIER();

    /* reads */
    if (me == 0)
        OK(kumi_tcp_test_counts(tp, 1, &unsent, &staged0));
    BARRIER();
    if (me == 1) {
        unsigned char *src = malloc(BULK);
        CHECK(src != NULL, "malloc");
        for (int k = 0; k < NBULK; k++) {
            for (size_t i = 0; i < BULK; i++)
                src[i] = (unsigned char)(k * 7 + i * 13 + (i >> 12));
            OK(kumi_tp_am_send_long(tp, 0, H_ID, &k, sizeof k, src, BULK));
        }
        OK(kumi_tp_quiet(tp));
        free(src);
    } else if (me == 0) {
        wait_for(&got_long, NBULK, "long");
        OK(kumi_tcp_test_counts(tp, 1, &unsent, &staged1));
        CHECK(staged1 - staged0 <= (uint64_t)NBULK * (16u << 10),
              "%llu bytes of %d long messages went through the staging buffer "
              "(headers are not read alone)", (unsigned long long)(staged1 - staged0), NBULK);
        printf("tcp_batching: %llu bytes staged for %d messages of %u bytes\n",
               (unsigned long long)(staged1 - staged0), NBULK, (unsigned)BULK);
    }
    BARRIER();
    /* every connection stays on this host: Reno, not the system's default
     * (BBR paces lo; transport/tcp/README.md) */
    for (int pe = 0; pe < kumi_size(); pe++) {
        char cc[16];
        if (pe == me)
            continue;
        OK(kumi_tcp_test_cc(tp, pe, cc, sizeof(cc)));
        CHECK(strcmp(cc, "reno") == 0, "connection to PE %d uses %s, not reno", pe, cc);
    }
    CHECK(__atomic_load_n(&bad, __ATOMIC_RELAXED) == 0, "%d bad messages", bad);
    free(rbuf);
    return kumi_finalize();
}
