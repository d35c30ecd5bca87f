/* ring.c -- kumi_ring_*: delivery, wrap-around, exact capacity, errors.
 *
 * usage: ring PART   (run under kumirun; any PE count unless noted)
 *   pairs       rings 0->1 and 1->0 at once; with 4+ PEs also 2->3 (n = 1:
 *               a ring 0->0). Random lengths 0..cap/2 from a PRNG both sides
 *               can replay; every byte checked; blocking and try calls mixed.
 *   neighbours  every PE produces to its right neighbour (ring i -> i+1)
 *               while consuming from its left one.
 *   wrap        a 256-byte ring 0 -> last, thousands of messages (with some
 *               of the maximal 248 bytes), so positions wrap ~1000 times.
 *   fill        try_push fills the ring exactly as the record sizes say;
 *               try_pop on empty is KUMI_AGAIN; messages of exactly the
 *               maximal size, split over the buffer's end; capacity rounding;
 *               pop with a too-small cap is KUMI_ERR_INVALID and the message
 *               stays.
 *   misuse      every misuse returns its code and prints its line; double
 *               destroy; a ring to oneself refuses to block forever.
 *   all         all of the above in order.
 *   peer_push   (n = 2) the consumer dies: the blocked producer gets
 *               KUMI_ERR_PEER. The job exits with status 3.
 *   peer_pop    (n = 2) the producer dies: the blocked consumer gets
 *               KUMI_ERR_PEER. The job exits with status 3.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

static int me, npes;

/* ---------------------------------------------------------------- data */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Message i of the stream with this seed: its length and its bytes. */
static size_t msg_len(uint64_t seed, uint64_t i, size_t maxlen)
{
    uint64_t h = mix(seed * 1000003u + i);
    if (h % 97 == 0)
        return maxlen;                          /* the edges, now and then */
    if (h % 89 == 0)
        return 0;
    return (size_t)((h >> 8) % (maxlen + 1));
}

static uint8_t msg_byte(uint64_t seed, uint64_t i, size_t k)
{
    return (uint8_t)(mix(seed ^ (i << 20) ^ (uint64_t)k) >> 56);
}

static void msg_fill(uint8_t *buf, uint64_t seed, uint64_t i, size_t len)
{
    for (size_t k = 0; k < len; k++)
        buf[k] = msg_byte(seed, i, k);
}

static void msg_check(const uint8_t *buf, size_t len, uint64_t seed, uint64_t i, size_t maxlen,
                      const char *what)
{
    size_t want = msg_len(seed, i, maxlen);
    CHECK(len == want, "%s: message %llu has %zu bytes, expected %zu", what,
          (unsigned long long)i, len, want);
    for (size_t k = 0; k < len; k++)
        CHECK(buf[k] == msg_byte(seed, i, k), "%s: message %llu byte %zu of %zu is 0x%02x, "
              "expected 0x%02x", what, (unsigned long long)i, k, len, buf[k],
              msg_byte(seed, i, k));
}

/* ------------------------------------------------- streams of messages */

/* One end of a ring on this PE: sends or receives count messages. */
struct end {
    kumi_ring_t r;
    int         produce;
    uint64_t    seed;
    long        count, done;
    size_t      maxlen;
    uint8_t    *buf;
    const char *name;
};

static void end_init(struct end *e, kumi_ring_t r, int produce, uint64_t seed, long count,
                     size_t maxlen, const char *name)
{
    *e = (struct end){ .r = r, .produce = produce, .seed = seed, .count = count,
                       .maxlen = maxlen, .name = name };
    e->buf = malloc(maxlen + 64);
    CHECK(e->buf != NULL, "malloc");
}

/* One message if possible; may_block: the only unfinished end of this PE,
 * so blocking calls cannot deadlock. Returns 1 if a message moved. */
static int end_step(struct end *e, int may_block)
{
    uint64_t i     = (uint64_t)e->done;
    int      block = may_block && mix(e->seed + i * 7) % 4 != 0;  /* 3 in 4 */
    size_t   len;
    int      rc;

    if (e->produce) {
        len = msg_len(e->seed, i, e->maxlen);
        msg_fill(e->buf, e->seed, i, len);
        rc = block ? kumi_ring_push(e->r, e->buf, len) : kumi_ring_try_push(e->r, e->buf, len);
    } else {
        /* cap: sometimes exactly the length, sometimes much more */
        size_t cap = mix(i) % 3 == 0 ? msg_len(e->seed, i, e->maxlen) : e->maxlen + 64;
        rc = block ? kumi_ring_pop(e->r, e->buf, cap, &len)
                   : kumi_ring_try_pop(e->r, e->buf, cap, &len);
        if (rc == KUMI_OK)
            msg_check(e->buf, len, e->seed, i, e->maxlen, e->name);
    }
    if (rc == KUMI_AGAIN && !block)
        return 0;
    CHECK(rc == KUMI_OK, "%s: message %llu: %s", e->name, (unsigned long long)i,
          kumi_strerror(rc));
    e->done++;
    return 1;
}

/* Drives all ends of this PE until each has moved its count. */
static void run_ends(struct end *ends, int n)
{
    for (;;) {
        int open = 0, moved = 0;
        for (int k = 0; k < n; k++)
            open += ends[k].done < ends[k].count;
        if (open == 0)
            break;
        for (int k = 0; k < n; k++)
            if (ends[k].done < ends[k].count)
                moved += end_step(&ends[k], open == 1);
        if (moved == 0)
            sched_yield();   /* oversubscribed runs: let the peer run */
    }
    for (int k = 0; k < n; k++) {
        kumi_ring_t r = ends[k].r;
        size_t      len;
        if (!ends[k].produce)   /* nothing more than what was sent */
            CHECK(kumi_ring_try_pop(r, ends[k].buf, ends[k].maxlen + 64, &len) == KUMI_AGAIN,
                  "%s: a message beyond the %ld sent", ends[k].name, ends[k].count);
        free(ends[k].buf);
    }
}

/* Adds this PE's ends of ring r (producer p, consumer c). */
static int add_ends(struct end *ends, int n, kumi_ring_t r, int p, int c, uint64_t seed,
                    long count, size_t maxlen, const char *name)
{
    if (me == p)
        end_init(&ends[n++], r, 1, seed, count, maxlen, name);
    if (me == c)
        end_init(&ends[n++], r, 0, seed, count, maxlen, name);
    return n;
}

/* ------------------------------------------------------------ the parts */

static void test_pairs(void)
{
    const size_t cap = 4096;
    const long   count = npes > 2 ? 2000 : 4000;
    struct { int p, c; const char *name; } rings[] = {
        { 0, 1, "ring 0->1" }, { 2, 3, "ring 2->3" }, { 1, 0, "ring 1->0" },
    };
    kumi_ring_t r[3];
    struct end  ends[6];
    int         n = 0;

    if (npes == 1) {
        rings[0].c = 0;
        rings[0].name = "ring 0->0";
    }
    for (int k = 0; k < 3; k++) {
        if (rings[k].p >= npes || rings[k].c >= npes)
            continue;
        OK(kumi_ring_create(rings[k].p, rings[k].c, cap, &r[k]));
        n = add_ends(ends, n, r[k], rings[k].p, rings[k].c, 100 + (uint64_t)k, count, cap / 2,
                     rings[k].name);
    }
    run_ends(ends, n);
    for (int k = 0; k < 3; k++)
        if (rings[k].p < npes && rings[k].c < npes)
            OK(kumi_ring_destroy(r[k]));
}

static void test_neighbours(void)
{
    const size_t cap = 1024;
    const long   count = npes > 2 ? 1500 : 4000;
    kumi_ring_t *r = malloc((size_t)npes * sizeof(*r));
    struct end   ends[2];
    char         names[2][32];
    int          n = 0;

    CHECK(r != NULL, "malloc");
    for (int i = 0; i < npes; i++) {            /* collective: every PE, same order */
        int c = (i + 1) % npes;
        OK(kumi_ring_create(i, c, cap, &r[i]));
        if (me == i || me == c) {
            snprintf(names[n], sizeof(names[n]), "ring %d->%d", i, c);
            n = add_ends(ends, n, r[i], i, c, 200 + (uint64_t)i, count, cap / 2, names[n]);
        }
    }
    run_ends(ends, n);
    for (int i = 0; i < npes; i++)
        OK(kumi_ring_destroy(r[i]));
    free(r);
}

static void test_wrap(void)
{
    const int    c = npes - 1;
    kumi_ring_t  r;
    struct end   ends[2];
    int          n;

    OK(kumi_ring_create(0, c, 256, &r));
    /* up to cap/2, then up to the maximum 248 (every 97th or so) */
    n = add_ends(ends, 0, r, 0, c, 300, 6000, 128, "wrap 128");
    run_ends(ends, n);
    BARRIER();   /* the consumer's "nothing beyond" check before stream 2 */
    n = add_ends(ends, 0, r, 0, c, 301, 3000, 248, "wrap 248");
    run_ends(ends, n);
    BARRIER();
    OK(kumi_ring_destroy(r));
}

/* try_push messages of len bytes (stream seed, from index *i) until
 * KUMI_AGAIN; returns how many went in. */
static long fill(kumi_ring_t r, uint64_t seed, uint64_t *i, size_t len)
{
    uint8_t buf[4096];
    long    n = 0;
    int     rc;

    for (;; n++) {
        memset(buf, 0, sizeof(buf));
        msg_fill(buf, seed, *i, len);
        rc = kumi_ring_try_push(r, buf, len);
        if (rc == KUMI_AGAIN)
            return n;
        CHECK(rc == KUMI_OK, "try_push %zu bytes: %s", len, kumi_strerror(rc));
        (*i)++;
        CHECK(n < 10000, "the ring never fills");
    }
}

/* try_pop count messages of len bytes, then KUMI_AGAIN. */
static void drain(kumi_ring_t r, uint64_t seed, uint64_t *i, long count, size_t len)
{
    uint8_t buf[4096];
    size_t  got;

    for (long k = 0; k < count; k++, (*i)++) {
        OK(kumi_ring_try_pop(r, buf, sizeof(buf), &got));
        CHECK(got == len, "drain: message %llu has %zu bytes, expected %zu",
              (unsigned long long)*i, got, len);
        for (size_t b = 0; b < len; b++)
            CHECK(buf[b] == msg_byte(seed, *i, b), "drain: message %llu byte %zu differs",
                  (unsigned long long)*i, b);
    }
    CHECK(kumi_ring_try_pop(r, buf, sizeof(buf), &got) == KUMI_AGAIN,
          "try_pop after %ld messages: not KUMI_AGAIN", count);
}

static void test_fill(void)
{
    const int   p = 0, c = npes - 1;
    kumi_ring_t r;
    uint64_t    ip = 0, ic = 0;     /* producer's and consumer's message index */
    const char *out;
    uint8_t     buf[256];
    size_t      got = 12345;
    long        n;

    /* capacity 100 rounds up to a 128-byte buffer */
    OK(kumi_ring_create(p, c, 100, &r));
    if (me == c)
        CHECK(kumi_ring_try_pop(r, buf, sizeof(buf), &got) == KUMI_AGAIN && got == 12345,
              "try_pop on a new ring: not KUMI_AGAIN, or len written");
    BARRIER();
    /* 1: 8-byte messages are 16-byte records: exactly 8 fit */
    if (me == p)
        CHECK((n = fill(r, 1, &ip, 8)) == 8, "%ld 8-byte messages fit in 128 bytes, not 8", n);
    BARRIER();
    if (me == c)
        drain(r, 1, &ic, 8, 8);
    BARRIER();
    /* 2: empty messages are 8-byte records: exactly 16 fit */
    if (me == p)
        CHECK((n = fill(r, 1, &ip, 0)) == 16, "%ld empty messages fit in 128 bytes, not 16", n);
    BARRIER();
    if (me == c)
        drain(r, 1, &ic, 16, 0);
    BARRIER();
    OK(kumi_ring_destroy(r));

    /* a fresh 128-byte ring for the split cases, deterministic from zero */
    OK(kumi_ring_create(p, c, 128, &r));
    ip = ic = 0;
    if (me == p) {
        OK(kumi_ring_try_push(r, NULL, 0));                          /* 8 bytes  */
        CHECK((n = fill(r, 2, &ip, 20)) == 3, "%ld 20-byte messages fit after 8 bytes, not 3", n);
    }
    BARRIER();
    if (me == c) {
        OK(kumi_ring_try_pop(r, NULL, 0, &got));
        CHECK(got == 0, "empty message has %zu bytes", got);
        drain(r, 2, &ic, 3, 20);                                     /* used 104 */
    }
    BARRIER();
    /* 3: the maximal message, 120 bytes, fills the whole buffer from offset
     *    104: header at 104, payload at 112..127 and 0..103 */
    if (me == p) {
        CHECK((n = fill(r, 2, &ip, 120)) == 1, "%ld maximal messages fit, not 1", n);
        capture_begin();
        int rc = kumi_ring_try_push(r, buf, 121);
        out = capture_end();
        CHECK(rc == KUMI_ERR_INVALID && strstr(out, "kumi_ring_try_push: a message of 121 "
              "bytes can never fit") != NULL, "121 bytes on a 128-byte ring: %s / %s",
              kumi_strerror(rc), out);
    }
    BARRIER();
    if (me == c) {
        /* too small a buffer: KUMI_ERR_INVALID, and the message stays */
        for (int blocking = 0; blocking < 2; blocking++) {
            capture_begin();
            got = 777;
            int rc = blocking ? kumi_ring_pop(r, buf, 119, &got)
                              : kumi_ring_try_pop(r, buf, 0, &got);
            out = capture_end();
            CHECK(rc == KUMI_ERR_INVALID && got == 777 && strstr(out, "the next message has "
                  "120 bytes, more than cap") != NULL, "pop with a small cap: %s / %s",
                  kumi_strerror(rc), out);
        }
        drain(r, 2, &ic, 1, 120);
    }
    BARRIER();
    OK(kumi_ring_destroy(r));

    /* 4: capacity/2 = 2048 of a 4096 ring (2056-byte records): one fits at
     *    a time, at offsets moving by 2056 */
    static const size_t half[] = { 2048, 2041, 2047, 2044, 2042, 2048 };
    OK(kumi_ring_create(p, c, 4096, &r));
    ip = ic = 0;
    for (int round = 0; round < 6; round++) {
        if (me == p)
            CHECK((n = fill(r, 4, &ip, half[round])) == 1,
                  "round %d: %ld messages of %zu bytes fit, not 1", round, n, half[round]);
        BARRIER();
        if (me == c)
            drain(r, 4, &ic, 1, half[round]);
        BARRIER();
    }
    /* 5: a consumer that emptied the ring gives all of it back at once,
     *    though it consumed less than its batch (a quarter of the ring) */
    if (me == p)
        CHECK((n = fill(r, 5, &ip, 8)) == 256, "%ld 8-byte messages fit in 4096 bytes, not 256",
              n);
    BARRIER();
    if (me == c)
        drain(r, 5, &ic, 256, 8);
    BARRIER();
    for (int round = 0; round < 3; round++) {
        uint64_t ip0 = ip;
        if (me == p)   /* 3 messages, popped: 48 bytes, less than the batch */
            for (int k = 0; k < 3; k++, ip++) {
                msg_fill(buf, 5, ip, 8);
                OK(kumi_ring_push(r, buf, 8));
            }
        BARRIER();
        if (me == c)
            drain(r, 5, &ic, 3, 8);
        BARRIER();
        if (me == p)
            CHECK((n = fill(r, 5, &ip, 8)) == 256, "round %d: after 3 messages (from %llu) "
                  "went through an emptied ring, %ld 8-byte ones fit, not 256", round,
                  (unsigned long long)ip0, n);
        BARRIER();
        if (me == c)
            drain(r, 5, &ic, 256, 8);
        BARRIER();
    }
    OK(kumi_ring_destroy(r));
}

/* Calls expr with stderr captured; it must return want and print a line
 * containing text. */
#define EXPECT_ERR(want, text, expr)                                                   \
    do {                                                                               \
        capture_begin();                                                               \
        int rc_e_ = (expr);                                                            \
        const char *out_e_ = capture_end();                                            \
        CHECK(rc_e_ == (want), "%s returned %s", #expr, kumi_strerror(rc_e_));         \
        CHECK(strstr(out_e_, (text)) != NULL, "%s printed '%s', expected '%s'", #expr, \
              out_e_, (text));                                                         \
    } while (0)

static void test_misuse(void)
{
    const int   p = 0, c = npes - 1;
    kumi_ring_t r = NULL, s;
    uint8_t     buf[64] = { 1, 2, 3 };
    size_t      got;
    char        text[128];

    snprintf(text, sizeof(text), "kumi_ring_create: producer pe %d out of range", npes);
    EXPECT_ERR(KUMI_ERR_INVALID, text, kumi_ring_create(npes, 0, 1024, &r));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_create: consumer pe -1 out of range",
               kumi_ring_create(0, -1, 1024, &r));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_create: capacity 10 bytes is outside",
               kumi_ring_create(0, 0, 10, &r));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_create: capacity 0 bytes", kumi_ring_create(0, 0, 0, &r));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_create: out is NULL",
               kumi_ring_create(0, 0, 1024, NULL));
    CHECK(r == NULL, "a failed create wrote *out");
    if (npes > 1)   /* PEs passing different arguments: all of them fail */
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_create: PEs disagree",
                   kumi_ring_create(0, c, me == 0 ? 1024 : 2048, &r));
    if (npes > 2 && me == 1)   /* one PE's own arguments are bad: all fail */
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_create: consumer pe 99 out of range",
                   kumi_ring_create(0, 99, 1024, &r));
    else if (npes > 2)
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_create: PEs disagree",
                   kumi_ring_create(0, 1, 1024, &r));
    CHECK(r == NULL, "a failed create wrote *out");

    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_push: ring is NULL", kumi_ring_push(NULL, buf, 1));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_try_pop: ring is NULL",
               kumi_ring_try_pop(NULL, buf, 1, &got));
    EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_destroy: ring is NULL", kumi_ring_destroy(NULL));

    OK(kumi_ring_create(p, c, 1024, &r));
    if (me != p && me != c) {
        snprintf(text, sizeof(text), "kumi_ring_push: PE %d is neither producer nor consumer "
                 "of this ring (%d -> %d)", me, p, c);
        EXPECT_ERR(KUMI_ERR_INVALID, text, kumi_ring_push(r, buf, 8));
        EXPECT_ERR(KUMI_ERR_INVALID, "is neither producer nor consumer",
                   kumi_ring_try_pop(r, buf, 8, &got));
    }
    if (me == c && p != c) {
        snprintf(text, sizeof(text), "kumi_ring_try_push: PE %d is not the producer of this "
                 "ring (%d -> %d)", me, p, c);
        EXPECT_ERR(KUMI_ERR_INVALID, text, kumi_ring_try_push(r, buf, 8));
    }
    if (me == p && p != c)
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_pop: PE 0 is not the consumer",
                   kumi_ring_pop(r, buf, 8, &got));
    if (me == p) {
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_push: a message of 1017 bytes can never fit",
                   kumi_ring_push(r, buf, 1017));
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_push: msg is NULL", kumi_ring_push(r, NULL, 5));
        OK(kumi_ring_push(r, buf, 3));     /* still fine after the errors */
    }
    if (me == c) {
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_pop: len is NULL", kumi_ring_pop(r, buf, 8, NULL));
        EXPECT_ERR(KUMI_ERR_INVALID, "kumi_ring_pop: buf is NULL but cap is 8",
                   kumi_ring_pop(r, NULL, 8, &got));
        OK(kumi_ring_pop(r, buf + 10, 8, &got));
        CHECK(got == 3 && memcmp(buf + 10, buf, 3) == 0, "message after errors: %zu bytes", got);
    }

    /* a ring to oneself: a blocking call only this PE could satisfy fails */
    OK(kumi_ring_create(npes - 1, npes - 1, 256, &s));
    if (me == npes - 1) {
        int k = 0;
        EXPECT_ERR(KUMI_ERR_INVALID, "itself is empty", kumi_ring_pop(s, buf, 64, &got));
        while (kumi_ring_try_push(s, buf, 24) == KUMI_OK)
            k++;
        CHECK(k == 8, "%d 24-byte messages fit in 256 bytes, not 8", k);
        EXPECT_ERR(KUMI_ERR_INVALID, "itself is full", kumi_ring_push(s, buf, 24));
        /* one popped (32 bytes, less than the batch): the producer half
         * sees the room at once */
        OK(kumi_ring_pop(s, buf + 32, 32, &got));
        OK(kumi_ring_push(s, buf, 24));
    }
    OK(kumi_ring_destroy(s));

    OK(kumi_ring_destroy(r));
    /* destroyed twice: every PE says so, nobody hangs */
    EXPECT_ERR(KUMI_ERR_INVALID, "is not a live ring handle", kumi_ring_destroy(r));
    BARRIER();
}

/* The other PE dies; the blocked one must return KUMI_ERR_PEER. */
static void test_peer(int victim_is_consumer)
{
    kumi_ring_t r;
    uint8_t     buf[512] = { 0 };
    size_t      got;
    int         rc = KUMI_OK;

    CHECK(npes == 2, "peer_* parts run with 2 PEs");
    pe_test_marks_t marks;
    pe_test_marks_begin(&marks);
    OK(kumi_ring_create(0, 1, 4096, &r));
    BARRIER();
    if (me == (victim_is_consumer ? 1 : 0)) {
        /* let the survivor leave the barrier first (it marks when it has,
         * and goes on into the ring): over tcp a PE that dies at once may
         * take its last barrier kick with it (an exit with unread data
         * resets the connection, and the reset drops what the survivor had
         * not read yet). The wait is no kumi call: nothing more is served. */
        pe_test_wait_marks(&marks, me, 60);
        _exit(3);
    }
    pe_test_mark(&marks);
    for (long k = 0; k < 1000000 && rc == KUMI_OK; k++)
        rc = victim_is_consumer ? kumi_ring_push(r, buf, sizeof(buf))
                                : kumi_ring_pop(r, buf, sizeof(buf), &got);
    CHECK(rc == KUMI_ERR_PEER, "blocked call returned %s", kumi_strerror(rc));
    fprintf(stderr, "ring: PE %d got KUMI_ERR_PEER as it should\n", me);
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    int         all  = strcmp(part, "all") == 0, ran = 0;

    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
#define PART(name, call)                        \
    if (all || strcmp(part, name) == 0) {       \
        call;                                   \
        BARRIER();                              \
        ran++;                                  \
    }
    PART("pairs", test_pairs());
    PART("neighbours", test_neighbours());
    PART("wrap", test_wrap());
    PART("fill", test_fill());
    PART("misuse", test_misuse());
    if (strcmp(part, "peer_push") == 0)
        test_peer(1);
    if (strcmp(part, "peer_pop") == 0)
        test_peer(0);
    CHECK(ran > 0, "unknown part '%s'", part);
    OK(kumi_finalize());
    EXPECT_ERR(KUMI_ERR_STATE, "kumi_ring_create: ", kumi_ring_create(0, 0, 64, NULL));
    if (me == 0)
        printf("ring %s: %d PEs ok\n", part, npes);
    return 0;
}
