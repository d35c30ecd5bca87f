/* am.c -- the transport's active messages (internal: transport.h through
 * kumi_rt.tp). Phase 1: every PE sends M messages of every length from 0 to
 * KUMI_TP_AM_MAX_PAYLOAD to every PE (itself included); receivers poll
 * progress() and check count, order, content and checksums. Phase 2: all
 * PEs send B messages of 1 KiB to PE 0, which first sleeps so that its
 * queues fill (back-pressure) and then waits with kumi_wait_until_u64 on a
 * counter only its handler advances (waits must serve active messages).
 * Phase 3: bad handler ids and lengths are refused.
 *
 * usage: am          all phases
 *        am null0    only: a zero-length message with a NULL payload to
 *                    every PE arrives (no memcpy from NULL: run it under
 *                    UBSan, make test-asan) */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"
#include "transport.h"

#include "pe_test.h"

#define AM_ALL   30          /* handler ids well above any the runtime may take */
#define AM_BULK  31
#define BULK_LEN 1024
#define MAXP     KUMI_TP_AM_MAX_PAYLOAD

static int me, npes;

static size_t len_of(uint64_t seq)
{
    return seq == 0 ? 0 : seq == 1 ? MAXP : (size_t)((seq * 997) % (MAXP + 1));
}

static inline uint8_t pattern(int src, int dst, uint64_t seq, size_t k)
{
    uint32_t x = (uint32_t)k * 0x9e3779b1u ^ (uint32_t)seq * 0x85ebca77u
               ^ (uint32_t)(src * 131 + dst * 7919);
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    return (uint8_t)(x ^ (x >> 13));
}

/* receiver state, per source PE */
struct rx {
    uint64_t *seq;          /* next expected sequence number */
    uint64_t *sum;          /* checksum of the bytes received */
    uint64_t  errors;
    char      first_error[256];
};
static struct rx all_rx, bulk_rx;
/* Handlers may run on a transport's progress thread (tcp): all_rx is
 * shared with the main thread through this lock (bulk_rx is published by
 * bulk_count's release increment). */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t all_seq(int src)
{
    pthread_mutex_lock(&all_lock);
    uint64_t v = all_rx.seq[src];
    pthread_mutex_unlock(&all_lock);
    return v;
}
static volatile uint64_t bulk_count;   /* advanced only by on_bulk */

static void rx_error(struct rx *rx, const char *fmt, int src, uint64_t seq, size_t a, size_t b)
{
    if (rx->errors++ == 0)
        snprintf(rx->first_error, sizeof(rx->first_error), fmt, src, (unsigned long long)seq,
                 a, b);
}

static void on_all_locked(struct rx *rx, int src, const uint8_t *p, size_t len);

static void on_all(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    (void)tp;
    pthread_mutex_lock(&all_lock);
    on_all_locked(arg, src, payload, len);
    pthread_mutex_unlock(&all_lock);
}

static void on_all_locked(struct rx *rx, int src, const uint8_t *p, size_t len)
{
    uint64_t seq = rx->seq[src]++;

    if (len != len_of(seq)) {
        rx_error(rx, "from pe %d message %llu: length %zu, expected %zu", src, seq, len,
                 len_of(seq));
        return;
    }
    for (size_t k = 0; k < len; k++) {
        if (p[k] != pattern(src, me, seq, k)) {
            rx_error(rx, "from pe %d message %llu: byte %zu of %zu wrong", src, seq, k, len);
            break;
        }
        rx->sum[src] += p[k];
    }
}

static void on_bulk(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    struct rx     *rx = arg;
    const uint8_t *p  = payload;
    uint64_t       seq = rx->seq[src]++, tag;

    (void)tp;
    memcpy(&tag, p, sizeof(tag));
    if (len != BULK_LEN || tag != seq)
        rx_error(rx, "bulk from pe %d message %llu: length %zu (tag %zu)", src, seq, len,
                 (size_t)tag);
    else if (p[len - 1] != pattern(src, me, seq, len - 1) || p[8] != pattern(src, me, seq, 8))
        rx_error(rx, "bulk from pe %d message %llu: content wrong (%zu %zu)", src, seq, 0, 0);
    __atomic_add_fetch(&bulk_count, 1, __ATOMIC_RELEASE);
}

static void phase_all(int m)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    uint8_t        *buf = malloc(MAXP);
    uint64_t       *sent_sum = calloc((size_t)npes, sizeof(uint64_t));
    uint64_t       *sums = kumi_calloc((size_t)npes, sizeof(uint64_t));  /* [src] as sent */

    CHECK(buf && sent_sum && sums, "allocation failed");
    for (uint64_t seq = 0; seq < (uint64_t)m; seq++)
        for (int i = 0; i < npes; i++) {
            int    dst = (me + i) % npes;
            size_t len = len_of(seq);
            for (size_t k = 0; k < len; k++) {
                buf[k] = pattern(me, dst, seq, k);
                sent_sum[dst] += buf[k];
            }
            OK(kumi_tp_am_send(tp, dst, AM_ALL, buf, len));
        }
    /* serve until everyone's messages are in */
    double deadline = kumi_wtime() + 60;
    for (int src = 0; src < npes; src++)
        while (all_seq(src) < (uint64_t)m) {
            int rc = kumi_tp_progress(tp);
            CHECK(rc >= 0, "progress returned %s", kumi_strerror(rc));
            CHECK(kumi_wtime() < deadline, "only %llu of %d messages from pe %d arrived",
                  (unsigned long long)all_seq(src), m, src);
            if (rc == 0)
                sched_yield();
        }
    CHECK(all_rx.errors == 0, "%llu bad messages; first: %s", (unsigned long long)all_rx.errors,
          all_rx.first_error);
    BARRIER();
    for (int dst = 0; dst < npes; dst++)
        OK(kumi_put(&sums[me], &sent_sum[dst], sizeof(uint64_t), dst));
    BARRIER();
    for (int src = 0; src < npes; src++) {
        CHECK(all_rx.seq[src] == (uint64_t)m, "%llu messages from pe %d, expected %d",
              (unsigned long long)all_rx.seq[src], src, m);
        CHECK(all_rx.sum[src] == sums[src], "checksum from pe %d: %llu, sender says %llu", src,
              (unsigned long long)all_rx.sum[src], (unsigned long long)sums[src]);
    }
    BARRIER();
    kumi_free(sums);
    free(sent_sum);
    free(buf);
}

static void phase_bulk(int b)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    uint8_t         buf[BULK_LEN];
    const int       target = 0;
    double          t0;

    BARRIER();
    t0 = kumi_wtime();
    if (me == target) {
        struct timespec ts = { 0, 50 * 1000000L };   /* let the queues fill up */
        nanosleep(&ts, NULL);
    }
    for (uint64_t seq = 0; seq < (uint64_t)b; seq++) {
        for (size_t k = 0; k < BULK_LEN; k++)
            buf[k] = pattern(me, target, seq, k);
        memcpy(buf, &seq, sizeof(seq));
        OK(kumi_tp_am_send(tp, target, AM_BULK, buf, BULK_LEN));
    }
    double t_send = kumi_wtime() - t0;
    if (me == target) {
        OK(kumi_wait_until_u64(&bulk_count, KUMI_CMP_GE, (uint64_t)b * (uint64_t)npes));
        CHECK(bulk_count == (uint64_t)b * (uint64_t)npes, "%llu bulk messages, expected %llu",
              (unsigned long long)bulk_count, (unsigned long long)b * npes);
        for (int src = 0; src < npes; src++)
            CHECK(bulk_rx.seq[src] == (uint64_t)b, "%llu bulk messages from pe %d, expected %d",
                  (unsigned long long)bulk_rx.seq[src], src, b);
        CHECK(bulk_rx.errors == 0, "%llu bad bulk messages; first: %s",
              (unsigned long long)bulk_rx.errors, bulk_rx.first_error);
        printf("am: %d PEs x %d bulk messages of %d bytes to pe 0 in %.3fs\n", npes, b,
               BULK_LEN, kumi_wtime() - t0);
    } else if (me == 1) {
        printf("am: pe 1 sent its bulk messages in %.3fs (queue full while pe 0 slept)\n",
               t_send);
    }
    BARRIER();
}

static void phase_bad(void)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    uint8_t         buf[MAXP + 1] = { 0 };

    CHECK(kumi_tp_am_send(tp, me, KUMI_TP_AM_MAX_HANDLERS, buf, 8) == KUMI_ERR_INVALID,
          "handler id %d accepted", KUMI_TP_AM_MAX_HANDLERS);
    CHECK(kumi_tp_am_send(tp, me, AM_ALL, buf, MAXP + 1) == KUMI_ERR_INVALID,
          "payload of %d bytes accepted", MAXP + 1);
    CHECK(kumi_tp_am_register(tp, KUMI_TP_AM_MAX_HANDLERS, on_all, NULL) == KUMI_ERR_INVALID,
          "handler id %d registered", KUMI_TP_AM_MAX_HANDLERS);
    BARRIER();
}

/* len 0 with payload NULL, to every PE */
static void phase_null0(void)
{
    struct kumi_tp *tp = &kumi_rt.tp;

    for (int i = 0; i < npes; i++)
        OK(kumi_tp_am_send(tp, (me + i) % npes, AM_ALL, NULL, 0));
    double deadline = kumi_wtime() + 60;
    for (int src = 0; src < npes; src++)
        while (all_seq(src) < 1) {
            CHECK(kumi_tp_progress(tp) >= 0, "progress failed");
            CHECK(kumi_wtime() < deadline, "empty message from pe %d never arrived", src);
        }
    CHECK(all_rx.errors == 0, "%s", all_rx.first_error);
    BARRIER();
}

int main(int argc, char **argv)
{
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();

    all_rx.seq  = calloc((size_t)npes, sizeof(uint64_t));
    all_rx.sum  = calloc((size_t)npes, sizeof(uint64_t));
    bulk_rx.seq = calloc((size_t)npes, sizeof(uint64_t));
    bulk_rx.sum = calloc((size_t)npes, sizeof(uint64_t));
    CHECK(all_rx.seq && all_rx.sum && bulk_rx.seq && bulk_rx.sum, "calloc");
    OK(kumi_tp_am_register(&kumi_rt.tp, AM_ALL, on_all, &all_rx));
    OK(kumi_tp_am_register(&kumi_rt.tp, AM_BULK, on_bulk, &bulk_rx));
    BARRIER();                       /* nobody sends before everyone registered */

    if (argc > 1 && strcmp(argv[1], "null0") == 0) {
        phase_null0();
        OK(kumi_finalize());
        return 0;
    }
    double t0 = kumi_wtime();
    phase_all(npes > 4 ? 300 : 1000);
    double t1 = kumi_wtime();
    phase_bulk(npes > 4 ? 2000 : 5000);
    phase_bad();
    if (me == 0)
        printf("am: %d PEs ok (all-to-all %.2fs, bulk %.2fs)\n", npes, t1 - t0,
               kumi_wtime() - t1);
    OK(kumi_finalize());
    return 0;
}
