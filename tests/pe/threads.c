/* threads.c -- kumi_init_ex(KUMI_INIT_THREADS): many threads of a PE call
 * kumi at once.
 *
 * usage: threads [mix [ROUNDS]]   (default)
 *   8 threads per PE, each for ROUNDS rounds (default 100):
 *   - a chain inside the PE: thread t bumps its own tick word (an atomic
 *     to myself) and waits for thread t-1's, so threads wait on words
 *     other threads of their PE set;
 *   - a ticket: fetch_add on one word of PE 0 shared by every thread of
 *     every PE, then an add on seen[ticket] there: at the end every
 *     ticket 0..N-1 was handed out exactly once;
 *   - counts: an add to count[t] of a PE chosen by (pe, round, thread):
 *     every PE's counts are checked exactly at the end;
 *   - put, quiet, get back and compare, in the thread's own slot of a
 *     rotating peer (itself included); every 16th round also 48 KiB (tcp:
 *     written from the caller's buffer, received in place, a pipelined
 *     get);
 *   - a ring per thread index: a message to the next PE, by put_signal
 *     (even rounds) or by put and a kick into its LLCM (odd rounds); wait
 *     for the previous PE's (a word set by another PE), check it, ack it
 *     with an add (the sender waits for the ack before reusing the slot,
 *     by kumi_wait_until or, odd rounds, polling kumi_test);
 *   - swap: thread t swaps r + 1 into its own word at the next PE and must
 *     get back r; every 4th round a compare-and-swap increment (fetch,
 *     then cswap until it takes) of one word at PE 0, counted exactly.
 *
 * usage: threads block [ITERS]
 *   A thread blocked in kumi_wait_until_u64 on a word that only this PE's
 *   other thread sets, after that thread did at least ITERS (default 300)
 *   rounds, and for at least 50 ms, of put, get, fetch_add and quiet with
 *   a peer (whose own waiter is blocked too), must not stop that thread:
 *   the job would hang (kumirun's --timeout) or the waiter would return
 *   early (checked). The worker starts 20 ms after its waiter entered the
 *   wait, so a waiter under KUMI_WAIT=block is asleep on its doorbell by
 *   then, and the atomic to myself that sets the word must wake it.
 *
 * usage: threads tags [MIB]
 *   Three threads each get MIB (default 160) MiB from the next PE at once
 *   while two others run fetch_adds and quiets: over tcp a get keeps up to
 *   128 requests (1 MiB each) in flight and a connection has 256 request
 *   tags, so the gets run out of tags; each must then wait for its own
 *   replies, not for a tag another holds (a hang otherwise). Needs
 *   KUMI_HEAP_SIZE of 3 x MIB and more. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kumi.h>

#include "pe_test.h"

#define NTHREADS 8
#define AREA     256     /* bytes a thread puts and gets back per round */
#define MSG      64      /* bytes of a ring message */
#define BIG      (48 << 10)  /* every 16th round: a put and get this large */

static int me, npes, rounds;

/* symmetric */
static uint64_t *ticket;   /* PE 0's is the one */
static uint64_t *seen;     /* PE 0's: [npes * NTHREADS * rounds] */
static uint64_t *count;    /* [NTHREADS] */
static uint64_t *tick;     /* [NTHREADS] */
static uint64_t *sig;      /* [NTHREADS]: set by the previous PE */
static uint64_t *ack;      /* [NTHREADS]: set by the next PE */
static uint8_t  *msg;      /* [NTHREADS][MSG] */
static uint8_t  *area;     /* [npes * NTHREADS][AREA] */
static uint8_t  *big;      /* [npes * NTHREADS][BIG] */
static uint64_t *swapw;    /* [npes * NTHREADS]: (pe, t)'s word at pe + 1 */
static uint64_t *casw;     /* PE 0's is the one */
static size_t    ksig;     /* LLCM: [NTHREADS] words, kicked by the previous PE */

static inline uint8_t pattern(int pe, int t, int r, size_t i)
{
    return (uint8_t)(pe * 131 + t * 17 + r * 7 + (int)i * 3 + 1);
}

static int count_target(int pe, int r, int t)
{
    return (pe + r + t) % npes;
}

static void *mix_thread(void *arg)
{
    const int t = (int)(intptr_t)arg;
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    uint8_t   buf[AREA], back[AREA], m[MSG];
    uint8_t  *mine = area + (size_t)(me * NTHREADS + t) * AREA;
    uint8_t  *mine_big = big + (size_t)(me * NTHREADS + t) * BIG;
    uint8_t  *bbuf = malloc(BIG), *bback = malloc(BIG);

    CHECK(bbuf && bback, "malloc");

    for (int r = 0; r < rounds; r++) {
        /* the chain: a word another thread of mine sets */
        OK(kumi_atomic_add_u64(&tick[t], 1, me));
        OK(kumi_wait_until_u64(&tick[(t + NTHREADS - 1) % NTHREADS], KUMI_CMP_GE,
                               (uint64_t)r + 1));

        /* a ticket, handed out exactly once */
        uint64_t old = UINT64_MAX;
        OK(kumi_atomic_fetch_add_u64(ticket, 1, 0, &old));
        CHECK(old < (uint64_t)npes * NTHREADS * (uint64_t)rounds, "ticket %llu",
              (unsigned long long)old);
        OK(kumi_atomic_add_u64(&seen[old], 1, 0));

        OK(kumi_atomic_add_u64(&count[t], 1, count_target(me, r, t)));

        /* put, quiet, get back */
        int q = (me + 1 + r) % npes;
        for (size_t i = 0; i < AREA; i++)
            buf[i] = pattern(me, t, r, i);
        OK(kumi_put(mine, buf, AREA, q));
        OK(kumi_quiet());
        memset(back, 0, sizeof(back));
        OK(kumi_get(back, mine, AREA, q));
        for (size_t i = 0; i < AREA; i++)
            CHECK(back[i] == buf[i], "thread %d round %d: byte %zu from PE %d is %u, put %u",
                  t, r, i, q, back[i], buf[i]);
        if (r % 16 == 5) {
            for (size_t i = 0; i < BIG; i++)
                bbuf[i] = pattern(me, t, r, i * 7);
            OK(kumi_put(mine_big, bbuf, BIG, q));
            OK(kumi_quiet());
            OK(kumi_get(bback, mine_big, BIG, q));
            CHECK(memcmp(bback, bbuf, BIG) == 0, "thread %d round %d: 48 KiB from PE %d differ",
                  t, r, q);
        }

        /* the ring: my slot at the next PE is free once it acked round r-1 */
        if (r % 2 == 0) {
            OK(kumi_wait_until_u64(&ack[t], KUMI_CMP_GE, (uint64_t)r));
        } else {
            int h;
            while ((h = kumi_test_u64(&ack[t], KUMI_CMP_GE, (uint64_t)r)) == 0)
                sched_yield();
            CHECK(h == 1, "kumi_test_u64 returned %d", h);
        }
        for (size_t i = 0; i < MSG; i++)
            m[i] = pattern(me, t, r, i + 1000);
        if (r % 2 == 0) {
            OK(kumi_put_signal(msg + (size_t)t * MSG, m, MSG, &sig[t], (uint64_t)r + 1, next));
            OK(kumi_wait_until_u64(&sig[t], KUMI_CMP_GE, (uint64_t)r + 1));
        } else {
            uint64_t v = (uint64_t)r + 1;
            OK(kumi_put(msg + (size_t)t * MSG, m, MSG, next));
            OK(kumi_kick(next, ksig + 8 * (size_t)t, &v, 8));
            OK(kumi_wait_until_u64((volatile uint64_t *)kumi_llcm(ksig + 8 * (size_t)t),
                                   KUMI_CMP_GE, v));
        }
        for (size_t i = 0; i < MSG; i++)
            CHECK(msg[(size_t)t * MSG + i] == pattern(prev, t, r, i + 1000),
                  "thread %d round %d: ring byte %zu from PE %d is %u, expected %u", t, r, i,
                  prev, msg[(size_t)t * MSG + i], pattern(prev, t, r, i + 1000));
        OK(kumi_atomic_add_u64(&ack[t], 1, prev));

        uint64_t was = UINT64_MAX;
        OK(kumi_atomic_swap_u64(&swapw[me * NTHREADS + t], (uint64_t)r + 1, next, &was));
        CHECK(was == (uint64_t)r, "thread %d round %d: swap returned %llu", t, r,
              (unsigned long long)was);
        if (r % 4 == 3) {
            uint64_t cur = 0, seen_now = 0;
            OK(kumi_atomic_fetch_u64(casw, 0, &cur));
            for (;;) {
                OK(kumi_atomic_cswap_u64(casw, cur, cur + 1, 0, &seen_now));
                if (seen_now == cur)
                    break;
                cur = seen_now;
            }
        }
        if (r % 8 == 7)
            OK(kumi_fence());
    }
    OK(kumi_quiet());
    free(bback);
    free(bbuf);
    return NULL;
}

static void run_mix(void)
{
    pthread_t th[NTHREADS];
    size_t    tickets = (size_t)npes * NTHREADS * (size_t)rounds;

    ticket = kumi_calloc(1, sizeof(uint64_t));
    seen   = kumi_calloc(tickets, sizeof(uint64_t));
    count  = kumi_calloc(NTHREADS, sizeof(uint64_t));
    tick   = kumi_calloc(NTHREADS, sizeof(uint64_t));
    sig    = kumi_calloc(NTHREADS, sizeof(uint64_t));
    ack    = kumi_calloc(NTHREADS, sizeof(uint64_t));
    msg    = kumi_calloc(NTHREADS, MSG);
    area   = kumi_calloc((size_t)npes * NTHREADS, AREA);
    big    = kumi_calloc((size_t)npes * NTHREADS, BIG);
    swapw  = kumi_calloc((size_t)npes * NTHREADS, sizeof(uint64_t));
    casw   = kumi_calloc(1, sizeof(uint64_t));
    ksig   = kumi_llcm_alloc(8 * NTHREADS);
    CHECK(ticket && seen && count && tick && sig && ack && msg && area && big && swapw && casw,
          "kumi_calloc");
    CHECK(ksig != (size_t)-1, "kumi_llcm_alloc");
    BARRIER();

    double t0 = kumi_wtime();
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, mix_thread, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    double t1 = kumi_wtime();
    BARRIER();

    for (int t = 0; t < NTHREADS; t++) {
        uint64_t want = 0;
        for (int pe = 0; pe < npes; pe++)
            for (int r = 0; r < rounds; r++)
                want += count_target(pe, r, t) == me;
        CHECK(count[t] == want, "count[%d] is %llu, expected %llu", t,
              (unsigned long long)count[t], (unsigned long long)want);
        CHECK(tick[t] == (uint64_t)rounds, "tick[%d] is %llu", t, (unsigned long long)tick[t]);
        uint64_t last_even = (uint64_t)((rounds - 1) / 2 * 2) + 1;
        uint64_t last_odd  = rounds > 1 ? (uint64_t)((rounds - 2) / 2 * 2 + 1) + 1 : 0;
        uint64_t k = __atomic_load_n((volatile uint64_t *)kumi_llcm(ksig + 8 * (size_t)t),
                                     __ATOMIC_ACQUIRE);
        CHECK(sig[t] == last_even && k == last_odd && ack[t] == (uint64_t)rounds,
              "ring %d: sig %llu (expected %llu), kick %llu (expected %llu), ack %llu", t,
              (unsigned long long)sig[t], (unsigned long long)last_even,
              (unsigned long long)k, (unsigned long long)last_odd,
              (unsigned long long)ack[t]);
        int from = (me + npes - 1) % npes;
        CHECK(swapw[from * NTHREADS + t] == (uint64_t)rounds, "swap word of PE %d thread %d: "
              "%llu", from, t, (unsigned long long)swapw[from * NTHREADS + t]);
    }
    if (me == 0) {
        CHECK(*ticket == tickets, "ticket is %llu, expected %zu", (unsigned long long)*ticket,
              tickets);
        for (size_t i = 0; i < tickets; i++)
            CHECK(seen[i] == 1, "ticket %zu handed out %llu times", i,
                  (unsigned long long)seen[i]);
        uint64_t cas_want = (uint64_t)npes * NTHREADS * (uint64_t)(rounds / 4);
        CHECK(*casw == cas_want, "compare-and-swap counter is %llu, expected %llu",
              (unsigned long long)*casw, (unsigned long long)cas_want);
        printf("threads mix: %d PEs x %d threads x %d rounds on %s: %.3f s\n", npes, NTHREADS,
               rounds, kumi_transport_name(), t1 - t0);
    }
    BARRIER();
    kumi_free(casw);
    kumi_free(swapw);
    kumi_free(big);
    kumi_free(area);
    kumi_free(msg);
    kumi_free(ack);
    kumi_free(sig);
    kumi_free(tick);
    kumi_free(count);
    kumi_free(seen);
    kumi_free(ticket);
}

/* ------------------------------------------------------------------ block */

static uint64_t *word;          /* mine: set by my worker when it is done */
static uint64_t *cells;         /* [2]: the worker's put/get cell and counter */
static int       waiting;       /* my waiter is about to wait */
static int       woken;         /* my waiter's wait returned */
static int       worker_done;   /* my worker has finished its RMA */
static double    set_at;        /* when the worker set the word */

static void *block_waiter(void *arg)
{
    double *woke = arg;

    __atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
    OK(kumi_wait_until_u64(word, KUMI_CMP_GE, 1));
    *woke = kumi_wtime();
    __atomic_store_n(&woken, 1, __ATOMIC_RELEASE);
    CHECK(__atomic_load_n(&worker_done, __ATOMIC_ACQUIRE),
          "the wait returned before the word was set");
    return NULL;
}

static void run_block(int iters)
{
    int       peer = (me + 1) % npes;
    pthread_t waiter;
    double    woke = 0;

    word  = kumi_calloc(1, sizeof(uint64_t));
    cells = kumi_calloc(2, sizeof(uint64_t));
    CHECK(word && cells, "kumi_calloc");
    BARRIER();
    CHECK(pthread_create(&waiter, NULL, block_waiter, &woke) == 0, "pthread_create");

    /* my waiter (and my peer's) is blocked meanwhile */
    while (!__atomic_load_n(&waiting, __ATOMIC_ACQUIRE))
        sched_yield();
    struct timespec ms20 = { 0, 20 * 1000000L };
    nanosleep(&ms20, NULL);
    double t0 = kumi_wtime();
    int    i;
    for (i = 0; i < iters || kumi_wtime() - t0 < 0.05; i++) {
        uint64_t v = ((uint64_t)me << 32) | (uint64_t)i, back = 0, old = 0;
        OK(kumi_put(&cells[0], &v, sizeof(v), peer));
        OK(kumi_get(&back, &cells[0], sizeof(back), peer));
        CHECK(back == v, "iteration %d: got %llx back, put %llx", i,
              (unsigned long long)back, (unsigned long long)v);
        OK(kumi_atomic_fetch_add_u64(&cells[1], 1, peer, &old));
        CHECK(old == (uint64_t)i, "iteration %d: fetch_add returned %llu", i,
              (unsigned long long)old);
        OK(kumi_quiet());
        CHECK(__atomic_load_n(word, __ATOMIC_ACQUIRE) == 0, "word set by someone else");
    }
    double t1 = kumi_wtime();
    iters = i;
    CHECK(!__atomic_load_n(&woken, __ATOMIC_ACQUIRE), "the waiter returned early");
    __atomic_store_n(&worker_done, 1, __ATOMIC_RELEASE);
    set_at = kumi_wtime();
    uint64_t old = 0;
    OK(kumi_atomic_swap_u64(word, 1, me, &old));     /* through kumi: wakes a sleeper */
    CHECK(old == 0, "word was %llu", (unsigned long long)old);
    pthread_join(waiter, NULL);
    CHECK(woke - set_at < 1.0, "the waiter woke %.3f s after the word was set",
          woke - set_at);
    BARRIER();
    /* my counter was counted by my left neighbour, which may have done
     * more rounds than I did */
    uint64_t mine = cells[1];
    OK(kumi_put(&cells[0], &mine, sizeof(mine), (me + npes - 1) % npes));
    BARRIER();
    CHECK(cells[0] == (uint64_t)iters, "my right neighbour counted %llu of my %d rounds",
          (unsigned long long)cells[0], iters);
    if (me == 0)
        printf("threads block: %d PEs on %s: %d RMA rounds beside a blocked wait in %.3f s "
               "(%.1f us each); the waiter woke %.1f us after the store\n", npes,
               kumi_transport_name(), iters, t1 - t0, 1e6 * (t1 - t0) / iters,
               1e6 * (woke - set_at));
    BARRIER();
    kumi_free(cells);
    kumi_free(word);
}

/* ------------------------------------------------------------------- tags */

#define TAG_GETTERS 3
#define TAG_COUNTERS 2
#define TAG_ADDS    500

static size_t    tag_bytes;
static uint64_t *tag_src;      /* [TAG_GETTERS * tag_bytes / 8], filled by its owner */
static uint64_t *tag_count;

static inline uint64_t tag_word(int pe, size_t i)
{
    return ((uint64_t)pe << 48) ^ (i * 0x9e3779b97f4a7c15ull);
}

static void *tag_getter(void *arg)
{
    const int  t = (int)(intptr_t)arg, peer = (me + 1) % npes;
    size_t     words = tag_bytes / 8;
    uint64_t  *dst = malloc(tag_bytes);

    CHECK(dst != NULL, "malloc of %zu bytes", tag_bytes);
    OK(kumi_get(dst, tag_src + (size_t)t * words, tag_bytes, peer));
    for (size_t i = 0; i < words; i += 509)
        CHECK(dst[i] == tag_word(peer, (size_t)t * words + i), "getter %d: word %zu is %llx",
              t, i, (unsigned long long)dst[i]);
    CHECK(dst[words - 1] == tag_word(peer, (size_t)t * words + words - 1), "getter %d: last "
          "word", t);
    free(dst);
    return NULL;
}

static void *tag_counter(void *arg)
{
    (void)arg;
    for (int i = 0; i < TAG_ADDS; i++) {
        uint64_t old = 0;
        OK(kumi_atomic_fetch_add_u64(tag_count, 1, (me + 1) % npes, &old));
        if (i % 50 == 0)
            OK(kumi_quiet());
    }
    return NULL;
}

static void run_tags(size_t mib)
{
    pthread_t th[TAG_GETTERS + TAG_COUNTERS];
    size_t    words;

    tag_bytes = mib << 20;
    words     = TAG_GETTERS * tag_bytes / 8;
    tag_src   = kumi_malloc(TAG_GETTERS * tag_bytes);
    tag_count = kumi_calloc(1, sizeof(uint64_t));
    CHECK(tag_src && tag_count, "kumi_malloc of %zu MiB (KUMI_HEAP_SIZE)", TAG_GETTERS * mib);
    for (size_t i = 0; i < words; i++)
        tag_src[i] = tag_word(me, i);
    BARRIER();
    double t0 = kumi_wtime();
    for (int t = 0; t < TAG_GETTERS; t++)
        CHECK(pthread_create(&th[t], NULL, tag_getter, (void *)(intptr_t)t) == 0, "pthread");
    for (int t = 0; t < TAG_COUNTERS; t++)
        CHECK(pthread_create(&th[TAG_GETTERS + t], NULL, tag_counter, NULL) == 0, "pthread");
    for (int t = 0; t < TAG_GETTERS + TAG_COUNTERS; t++)
        pthread_join(th[t], NULL);
    double t1 = kumi_wtime();
    BARRIER();
    CHECK(*tag_count == (uint64_t)TAG_COUNTERS * TAG_ADDS, "counter %llu",
          (unsigned long long)*tag_count);
    if (me == 0)
        printf("threads tags: %d PEs on %s: %d gets of %zu MiB beside %d x %d fetch_adds in "
               "%.3f s\n", npes, kumi_transport_name(), TAG_GETTERS, mib, TAG_COUNTERS,
               TAG_ADDS, t1 - t0);
    BARRIER();
    kumi_free(tag_count);
    kumi_free(tag_src);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "mix";

    OK(kumi_init_ex(KUMI_INIT_THREADS));
    CHECK(kumi_init_flags() & KUMI_INIT_THREADS, "kumi_init_flags() is 0x%x", kumi_init_flags());
    me   = kumi_rank();
    npes = kumi_size();
    if (strcmp(mode, "mix") == 0) {
        rounds = argc > 2 ? atoi(argv[2]) : 100;
        CHECK(rounds > 0, "bad ROUNDS");
        run_mix();
    } else if (strcmp(mode, "block") == 0) {
        int iters = argc > 2 ? atoi(argv[2]) : 300;
        CHECK(iters > 0, "bad ITERS");
        run_block(iters);
    } else if (strcmp(mode, "tags") == 0) {
        int mib = argc > 2 ? atoi(argv[2]) : 160;
        CHECK(mib > 0, "bad MIB");
        run_tags((size_t)mib);
    } else {
        fprintf(stderr, "usage: threads [mix [ROUNDS] | block [ITERS] | tags [MIB]]\n");
        return 2;
    }
    OK(kumi_finalize());
    return 0;
}
