/* threads_am.c -- KUMI_INIT_THREADS inside the runtime (internal: rt.h,
 * transport.h): active messages sent by many threads at once, and
 * kumi_rt_wait_pred waited on by many threads at once.
 *
 * usage: threads_am [am [M]]   (default)
 *   8 threads per PE each send M (default 200) messages to every PE
 *   (itself included), lengths 0 .. KUMI_TP_AM_MAX_PAYLOAD, so the queues
 *   fill and senders must serve their own PE's queues meanwhile. The
 *   handler (running on whichever thread serves the transport) checks
 *   each (sender PE, sender thread) stream: in order, every byte. Every
 *   thread then waits with kumi_rt_wait_pred for its own streams from
 *   every PE to be complete, and one for the total; the counts are exact.
 *
 * usage: threads_am fail
 *   PE 1 exits with status 3 while PE 0's threads wait in
 *   kumi_rt_wait_pred on predicates that never hold: each wait returns
 *   KUMI_ERR_PEER and reports it (the job ends with status 3). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"
#include "transport.h"

#include "pe_test.h"

#define NTHREADS 8
#define AM_T     30          /* a handler id the runtime does not use */
#define MAXP     KUMI_TP_AM_MAX_PAYLOAD

struct hdr {
    uint32_t src, thread;
    uint64_t seq;
};

static int me, npes, msgs;

/* receiver state: [src pe][sender thread]; the transport runs one handler
 * at a time, each publishing its update through the release add on got */
static uint64_t *next_seq;
static uint64_t  bad;
static char      first_bad[160];
static uint64_t  got;            /* messages received, all streams */

static size_t len_of(uint64_t seq, int thread)
{
    uint64_t x = seq * 977 + (uint64_t)thread * 131;
    return seq == 0 ? 0 : seq == 1 ? MAXP : (size_t)(x % (MAXP + 1 - sizeof(struct hdr)))
                                             + sizeof(struct hdr);
}

static inline uint8_t pattern(int src, int thread, uint64_t seq, size_t k)
{
    return (uint8_t)(src * 37 + thread * 11 + seq * 5 + k);
}

static void on_msg(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    struct hdr     h;
    const uint8_t *p = payload;

    (void)tp;
    (void)arg;
    if (len < sizeof(h)) {
        /* seq 0 of a stream is empty: only the total counts it */
        if (len != 0 && bad++ == 0)
            snprintf(first_bad, sizeof(first_bad), "from PE %d: %zu bytes", src, len);
    } else {
        memcpy(&h, p, sizeof(h));
        uint64_t *want = &next_seq[(size_t)src * NTHREADS + h.thread % NTHREADS];
        uint64_t  w = __atomic_load_n(want, __ATOMIC_RELAXED);
        if (h.src != (uint32_t)src || h.thread >= NTHREADS || h.seq != w
            || len != len_of(h.seq, (int)h.thread)) {
            if (bad++ == 0)
                snprintf(first_bad, sizeof(first_bad), "from PE %d thread %u: seq %llu "
                         "(expected %llu), %zu bytes", src, h.thread,
                         (unsigned long long)h.seq, (unsigned long long)w, len);
        } else {
            for (size_t k = sizeof(h); k < len; k++)
                if (p[k] != pattern(src, (int)h.thread, h.seq, k)) {
                    if (bad++ == 0)
                        snprintf(first_bad, sizeof(first_bad), "from PE %d thread %u seq "
                                 "%llu: byte %zu wrong", src, h.thread,
                                 (unsigned long long)h.seq, k);
                    break;
                }
            __atomic_store_n(want, w + 1, __ATOMIC_RELAXED);
        }
    }
    __atomic_add_fetch(&got, 1, __ATOMIC_RELEASE);
}

/* my streams (thread t of every PE) are complete: every message but the
 * empty first (seq 0) carries a header, and next_seq reaches msgs */
struct mine {
    int t;
};

static int streams_done(void *arg)
{
    const struct mine *m = arg;

    for (int src = 0; src < npes; src++)
        if (__atomic_load_n(&next_seq[(size_t)src * NTHREADS + m->t], __ATOMIC_ACQUIRE)
            < (uint64_t)msgs)
            return 0;
    return 1;
}

static int all_got(void *arg)
{
    (void)arg;
    return __atomic_load_n(&got, __ATOMIC_ACQUIRE) == (uint64_t)npes * NTHREADS * msgs;
}

static void *am_thread(void *arg)
{
    const int       t = (int)(intptr_t)arg;
    struct kumi_tp *tp = &kumi_rt.tp;
    uint8_t         buf[MAXP];
    struct mine     m = { t };

    for (uint64_t seq = 0; seq < (uint64_t)msgs; seq++)
        for (int i = 0; i < npes; i++) {
            int        dst = (me + i) % npes;
            size_t     len = len_of(seq, t);
            struct hdr h = { (uint32_t)me, (uint32_t)t, seq };
            if (len >= sizeof(h)) {
                memcpy(buf, &h, sizeof(h));
                for (size_t k = sizeof(h); k < len; k++)
                    buf[k] = pattern(me, t, seq, k);
            }
            OK(kumi_tp_am_send(tp, dst, AM_T, buf, len));
        }
    OK(kumi_rt_wait_pred("threads_am", streams_done, &m));
    if (t == 0)
        OK(kumi_rt_wait_pred("threads_am", all_got, NULL));
    return NULL;
}

static void run_am(void)
{
    pthread_t th[NTHREADS];

    next_seq = calloc((size_t)npes * NTHREADS, sizeof(uint64_t));
    CHECK(next_seq != NULL, "calloc");
    /* the empty message is seq 0: streams start expecting seq 1 */
    for (size_t i = 0; i < (size_t)npes * NTHREADS; i++)
        next_seq[i] = 1;
    OK(kumi_tp_am_register(&kumi_rt.tp, AM_T, on_msg, NULL));
    BARRIER();
    double t0 = kumi_wtime();
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, am_thread, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    double t1 = kumi_wtime();
    CHECK(bad == 0, "%llu bad messages; first: %s", (unsigned long long)bad, first_bad);
    CHECK(got == (uint64_t)npes * NTHREADS * msgs, "%llu messages, expected %llu",
          (unsigned long long)got, (unsigned long long)npes * NTHREADS * msgs);
    for (size_t i = 0; i < (size_t)npes * NTHREADS; i++)
        CHECK(next_seq[i] == (uint64_t)msgs, "stream %zu (PE %zu thread %zu) ended at %llu",
              i, i / NTHREADS, i % NTHREADS, (unsigned long long)next_seq[i]);
    BARRIER();
    if (me == 0)
        printf("threads_am: %d PEs x %d threads x %d messages to every PE on %s: %.3f s\n",
               npes, NTHREADS, msgs, kumi_transport_name(), t1 - t0);
    free(next_seq);
}

/* ------------------------------------------------------------------ fail */

static int never(void *arg)
{
    (void)arg;
    return 0;
}

static int failed_waits;

static void *fail_thread(void *arg)
{
    (void)arg;
    int rc = kumi_rt_wait_pred("fail_thread", never, NULL);
    CHECK(rc == KUMI_ERR_PEER, "kumi_rt_wait_pred returned %s", kumi_strerror(rc));
    __atomic_add_fetch(&failed_waits, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void run_fail(void)
{
    pthread_t th[4];

    BARRIER();
    if (me == 1) {
        struct timespec ts = { 0, 200 * 1000000L };
        nanosleep(&ts, NULL);       /* PE 0's threads are waiting by now */
        _exit(3);
    }
    if (me != 0)
        return;
    for (int t = 0; t < 4; t++)
        CHECK(pthread_create(&th[t], NULL, fail_thread, NULL) == 0, "pthread_create");
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    CHECK(failed_waits == 4, "%d waits failed", failed_waits);
    printf("threads_am fail: every waiting thread saw KUMI_ERR_PEER\n");
    fflush(stdout);
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "am";

    OK(kumi_init_ex(KUMI_INIT_THREADS));
    me   = kumi_rank();
    npes = kumi_size();
    if (strcmp(mode, "am") == 0) {
        msgs = argc > 2 ? atoi(argv[2]) : 200;
        CHECK(msgs >= 2, "bad M");
        run_am();
    } else if (strcmp(mode, "fail") == 0) {
        CHECK(npes >= 2, "fail needs 2 PEs");
        run_fail();
        pause();    /* PEs other than 0 and 1: the job ends around them */
    } else {
        fprintf(stderr, "usage: threads_am [am [M] | fail]\n");
        return 2;
    }
    OK(kumi_finalize());
    return 0;
}
