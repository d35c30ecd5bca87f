/* am_queue.c -- the edges of an active-message queue (internal: transport.h
 * through kumi_rt.tp). On shm (transport/shm/shm.c, struct kumi_shm_amq) a
 * record is published by its own header word, and stale bytes of an
 * earlier lap must never read as one; these streams make every header
 * land on bytes that would:
 *
 *   1. every PE sends S messages to every other while that PE sleeps, so
 *      its queue fills and the senders wait for room, then both directions
 *      at once (a sender waiting for room serves its own queues);
 *   2. the messages' lengths run through phases: the largest (wrap with a
 *      skip record), 56 bytes (a record of exactly one line: they end
 *      exactly at the queue's end), 4088 (ends at the end too), small mixed
 *      lengths (records kept inside one line: alignment skips), and a mix
 *      of all of these;
 *   3. every payload is made of words that look like a published header
 *      (length 8, this test's handler), so a header read from stale bytes
 *      delivers a message of the wrong length, order or content;
 *   4. messages of 16 bytes or more go as a 16-byte header and the rest
 *      (am_sendv, as msg/ sends), so those of 16..32 bytes take shm's
 *      straight path for small records, which clears the first word of
 *      the next line ahead: a phase of them (every fifth 57 bytes, which
 *      moves them across the lines), the sleeper napping 8 times in it, so
 *      its queues fill with them and wrap.
 *
 * The receiver checks each message's sequence number, length and bytes,
 * and ends the test at the first wrong one.
 *
 * usage: am_queue [messages per pair] */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"
#include "transport.h"

#include "pe_test.h"

#define AM_Q  29
#define MAXP  KUMI_TP_AM_MAX_PAYLOAD

/* what shm's header word for an 8-byte message to AM_Q would be */
static const uint64_t fake_hdr = 8u | (uint64_t)AM_Q << 32 | (uint64_t)1 << 48;

static int me, npes;

static size_t len_of(uint64_t seq, uint64_t total)
{
    static const size_t mix[] = { 0, 8, MAXP, 1, 57, 24, 2000, 56, 4088, 7, 63, 100 };
    uint64_t            phase = seq * 6 / total;

    switch (phase) {
    case 0:  return MAXP;
    case 1:  return seq % 2 ? 56 : 4088;
    case 2:  return (size_t)(seq * 37 % 101);
    case 3:  return seq % 5 == 4 ? 57 : 16 + (size_t)(seq * 7 % 17);
    default: return mix[seq % (sizeof(mix) / sizeof(mix[0]))];
    }
}

static inline uint8_t byte_of(uint64_t seq, size_t k)
{
    /* the first word carries the sequence number, the others fake headers */
    if (k < 8)
        return (uint8_t)(seq >> (8 * k));
    return (uint8_t)(fake_hdr >> (8 * (k % 8)));
}

/* per source; atomic: on tcp the handler may run on the progress thread
 * while main reads it */
static uint64_t *next_seq;
static uint64_t  total;

/* A wrong message ends the test at once: a receiver that read a stale
 * header has lost its place in the queue, and its sender may then wait
 * for room forever. */
static void on_q(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    const uint8_t *p   = payload;
    uint64_t       seq = __atomic_load_n(&next_seq[src], __ATOMIC_RELAXED);

    __atomic_store_n(&next_seq[src], seq + 1, __ATOMIC_RELEASE);

    (void)tp;
    (void)arg;
    CHECK(seq < total, "from pe %d: message %llu of %llu", src, (unsigned long long)seq,
          (unsigned long long)total);
    CHECK(len == len_of(seq, total), "from pe %d message %llu: %zu bytes, expected %zu", src,
          (unsigned long long)seq, len, len_of(seq, total));
    for (size_t k = 0; k < len; k++)
        CHECK(p[k] == byte_of(seq, k), "from pe %d message %llu: byte %zu of %zu is %#x, "
              "expected %#x", src, (unsigned long long)seq, k, len, p[k], byte_of(seq, k));
}

static void serve_until_all(void)
{
    double deadline = kumi_wtime() + 60;

    for (int src = 0; src < npes; src++)
        while (src != me && __atomic_load_n(&next_seq[src], __ATOMIC_ACQUIRE) < total) {
            int rc = kumi_tp_progress(&kumi_rt.tp);
            CHECK(rc >= 0, "progress: %s", kumi_strerror(rc));
            CHECK(kumi_wtime() < deadline, "only %llu of %llu messages from pe %d arrived",
                  (unsigned long long)__atomic_load_n(&next_seq[src], __ATOMIC_ACQUIRE),
                  (unsigned long long)total, src);
            if (rc == 0)
                sched_yield();
        }
}

static void send_all(int sleeper)
{
    uint8_t *buf = malloc(MAXP);

    CHECK(buf != NULL, "malloc");
    if (me == sleeper) {   /* let the others fill my queues */
        struct timespec ts = { 0, 30 * 1000000L };
        nanosleep(&ts, NULL);
    }
    for (uint64_t seq = 0; seq < total; seq++) {
        if (me == sleeper && seq * 6 / total == 3 && seq * 48 / total != (seq - 1) * 48 / total) {
            /* 8 more naps in the small records' phase: its queues fill
             * with them, each time ending elsewhere in a line */
            struct timespec ts = { 0, 10 * 1000000L };
            nanosleep(&ts, NULL);
        }
        for (int i = 1; i < npes; i++) {
            size_t len = len_of(seq, total);
            for (size_t k = 0; k < len; k++)
                buf[k] = byte_of(seq, k);
            if (len >= 16)   /* header and payload as msg/ sends them */
                OK(kumi_tp_am_sendv(&kumi_rt.tp, (me + i) % npes, AM_Q, buf, 16, buf + 16,
                                    len - 16));
            else
                OK(kumi_tp_am_send(&kumi_rt.tp, (me + i) % npes, AM_Q, buf, len));
        }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    CHECK(npes >= 2, "needs 2 PEs or more");
    total    = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
    next_seq = calloc((size_t)npes, sizeof(uint64_t));
    CHECK(total >= 6, "at least 6 messages");
    CHECK(next_seq != NULL, "calloc");
    OK(kumi_tp_am_register(&kumi_rt.tp, AM_Q, on_q, NULL));
    BARRIER();                       /* nobody sends before everyone registered */

    double t0 = kumi_wtime();
    send_all(npes - 1);              /* the last PE sleeps first: its queues fill */
    serve_until_all();
    BARRIER();                       /* nothing more arrives: exactly total each */
    kumi_tp_progress(&kumi_rt.tp);
    for (int src = 0; src < npes; src++)
        CHECK(src == me || __atomic_load_n(&next_seq[src], __ATOMIC_ACQUIRE) == total,
              "%llu messages from pe %d, expected %llu",
              (unsigned long long)__atomic_load_n(&next_seq[src], __ATOMIC_ACQUIRE), src,
              (unsigned long long)total);
    if (me == 0)
        printf("am_queue: %d PEs x %llu messages each way ok in %.2fs\n", npes,
               (unsigned long long)total, kumi_wtime() - t0);
    BARRIER();
    OK(kumi_finalize());
    return 0;
}
