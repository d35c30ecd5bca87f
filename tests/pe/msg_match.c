/*
 * msg_match.c -- two-sided messaging: matching and ordering.
 *
 *   msg_match [PARTS]     PARTS: all (default), or a comma-separated list
 *                         of combos, posted, probe, cancel, trunc, team,
 *                         errors (cancel and team send before they receive:
 *                         correct only while their messages are eager)
 *
 *   combos  every PE sends to every PE (itself included) a stream of
 *           messages of sizes 0 .. 200000 bytes (eager and rendezvous)
 *           with tags 0..3, all outstanding at once; the receiver takes
 *           tag 0 by specific source and tag, tag 1 by ANY_SOURCE, tags 2
 *           and 3 by source and ANY_TAG, and a second round (tag 5) by
 *           ANY/ANY. Each (source, tag) stream must arrive in send order,
 *           with the right sizes and contents.
 *   posted  receives posted before the messages are sent match in posting
 *           order (ANY_SOURCE, and a specific source with ANY_TAG before
 *           an ANY_SOURCE with the tag)
 *   probe   probe and iprobe describe a message without taking it
 *   cancel  an unmatched receive cancels; a matched one does not
 *   trunc   a message longer than the buffer: KUMI_ERR_TRUNCATE, the
 *           buffer filled, status.bytes the full size (eager, rendezvous)
 *   team    on a team split from the world in reverse rank order, sources
 *           are team ranks, and a world message with the same tag between
 *           the same PEs is not taken by a receive on the team; both
 *           receives posted before the messages arrive (matched in the
 *           handler), a team's message is not taken by the world's
 *           receive posted first, and its status has the team rank
 *   errors  bad arguments: KUMI_ERR_INVALID and one line naming the call
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe_test.h"

static int me, npes;
static kumi_team_t world;

static const size_t sizes[] = { 0, 1, 8, 100, 4080, 4081, 65536, 200000, 13, 3000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSIZE 200000

static unsigned char pattern(int src, int dst, int tag, int idx, size_t i)
{
    return (unsigned char)(src * 131 + dst * 29 + tag * 7 + idx * 17 + i * 3 + (i >> 8));
}

static void fill(unsigned char *b, size_t n, int src, int dst, int tag, int idx)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(src, dst, tag, idx, i);
}

static void verify(const unsigned char *b, size_t n, int src, int dst, int tag, int idx)
{
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == pattern(src, dst, tag, idx, i),
              "message %d tag %d from %d: byte %zu is %u, expected %u", idx, tag, src, i, b[i],
              pattern(src, dst, tag, idx, i));
}

/* message k of a (src, dst) stream: its tag and its index within the
 * (src, dst, tag) stream */
#define PER_DEST 24
static int tag_of(int k)
{
    return k % 4;
}
static size_t size_of(int tag, int idx)
{
    return sizes[(size_t)(tag * 3 + idx) % NSIZES];
}

static void part_combos(void)
{
    int             nsend = npes * PER_DEST;
    kumi_request_t *sreq  = calloc((size_t)nsend, sizeof(*sreq));
    unsigned char **sbuf  = calloc((size_t)nsend, sizeof(*sbuf));
    unsigned char  *rbuf  = malloc(MAXSIZE);
    int            *next  = calloc((size_t)npes * 6, sizeof(int));   /* [src][tag] */
    CHECK(sreq && sbuf && rbuf && next, "malloc");

    for (int d = 0; d < npes; d++) {
        int idx[4] = { 0, 0, 0, 0 };
        for (int k = 0; k < PER_DEST; k++) {
            int    t = tag_of(k), i = idx[t]++, s = d * PER_DEST + k;
            size_t n = size_of(t, i);
            sbuf[s] = malloc(n ? n : 1);
            CHECK(sbuf[s] != NULL, "malloc");
            fill(sbuf[s], n, me, d, t, i);
            OK(kumi_isend(sbuf[s], n, d, t, world, &sreq[s]));
        }
    }
    int per_tag = PER_DEST / 4;
    kumi_status_t st;
    /* tag 0: specific source and tag */
    for (int s = 0; s < npes; s++)
        for (int i = 0; i < per_tag; i++) {
            OK(kumi_recv(rbuf, MAXSIZE, s, 0, world, &st));
            CHECK(st.source == s && st.tag == 0 && st.bytes == size_of(0, i) && st.error == 0,
                  "status %d %d %zu", st.source, st.tag, st.bytes);
            verify(rbuf, st.bytes, s, me, 0, i);
        }
    /* tag 1: any source */
    for (int k = 0; k < npes * per_tag; k++) {
        OK(kumi_recv(rbuf, MAXSIZE, KUMI_ANY_SOURCE, 1, world, &st));
        CHECK(st.source >= 0 && st.source < npes && st.tag == 1, "status %d %d", st.source,
              st.tag);
        int i = next[st.source * 6 + 1]++;
        CHECK(st.bytes == size_of(1, i), "size %zu, expected %zu", st.bytes, size_of(1, i));
        verify(rbuf, st.bytes, st.source, me, 1, i);
    }
    /* tags 2 and 3: by source, any tag; posted as irecvs, completed by waitall */
    kumi_request_t *rr  = calloc((size_t)2 * per_tag, sizeof(*rr));
    unsigned char  *rb  = malloc((size_t)2 * per_tag * MAXSIZE);
    kumi_status_t  *rst = calloc((size_t)2 * per_tag, sizeof(*rst));
    CHECK(rr && rb && rst, "malloc");
    for (int s = npes - 1; s >= 0; s--) {
        for (int k = 0; k < 2 * per_tag; k++)
            OK(kumi_irecv(rb + (size_t)k * MAXSIZE, MAXSIZE, s, KUMI_ANY_TAG, world, &rr[k]));
        OK(kumi_waitall(2 * per_tag, rr, rst));
        for (int k = 0; k < 2 * per_tag; k++) {
            CHECK(rr[k] == KUMI_REQUEST_NULL, "waitall leaves null requests");
            CHECK(rst[k].source == s && (rst[k].tag == 2 || rst[k].tag == 3), "status %d %d",
                  rst[k].source, rst[k].tag);
            int i = next[s * 6 + rst[k].tag]++;
            CHECK(rst[k].bytes == size_of(rst[k].tag, i), "size");
            verify(rb + (size_t)k * MAXSIZE, rst[k].bytes, s, me, rst[k].tag, i);
        }
        /* the stream interleaved tags 2 and 3 in send order: 2 first */
        CHECK(rst[0].tag == 2, "ANY_TAG took tag %d before the earlier tag 2", rst[0].tag);
    }
    OK(kumi_waitall(nsend, sreq, KUMI_STATUSES_IGNORE));
    BARRIER();
    /* round 2: ANY/ANY, tag 5, one message of each size class per source */
    for (int d = 0; d < npes; d++)
        for (int i = 0; i < 4; i++) {
            int    s = d * PER_DEST + i;
            size_t n = size_of(5, i);
            free(sbuf[s]);
            sbuf[s] = malloc(n ? n : 1);
            CHECK(sbuf[s] != NULL, "malloc");
            fill(sbuf[s], n, me, d, 5, i);
            OK(kumi_isend(sbuf[s], n, d, 5, world, &sreq[s]));
        }
    for (int k = 0; k < npes * 4; k++) {
        OK(kumi_recv(rbuf, MAXSIZE, KUMI_ANY_SOURCE, KUMI_ANY_TAG, world, &st));
        CHECK(st.tag == 5, "tag %d", st.tag);
        int i = next[st.source * 6 + 5]++;
        CHECK(st.bytes == size_of(5, i), "size");
        verify(rbuf, st.bytes, st.source, me, 5, i);
    }
    OK(kumi_waitall(nsend, sreq, KUMI_STATUSES_IGNORE));
    BARRIER();
    for (int s = 0; s < nsend; s++)
        free(sbuf[s]);
    free(sbuf), free(sreq), free(rbuf), free(next), free(rr), free(rb), free(rst);
}

static void part_posted(void)
{
    /* PE 0 posts, then every other PE sends two messages, one after the other */
    char           a[16] = "", b[16] = "", c[16] = "", d[16] = "";
    kumi_request_t r[4];
    kumi_status_t  st[4];

    if (me == 0) {
        OK(kumi_irecv(a, sizeof a, KUMI_ANY_SOURCE, 7, world, &r[0]));
        OK(kumi_irecv(b, sizeof b, KUMI_ANY_SOURCE, 7, world, &r[1]));
        OK(kumi_irecv(c, sizeof c, npes - 1, KUMI_ANY_TAG, world, &r[2]));
        OK(kumi_irecv(d, sizeof d, KUMI_ANY_SOURCE, 9, world, &r[3]));
    }
    BARRIER();
    if (me == npes - 1) {
        OK(kumi_send("first", 6, 0, 7, world));
        OK(kumi_send("second", 7, 0, 7, world));
        OK(kumi_send("nine", 5, 0, 9, world));     /* the ANY_TAG receive posted first */
        OK(kumi_send("nine-b", 7, 0, 9, world));
    }
    if (me == 0) {
        OK(kumi_waitall(4, r, st));
        CHECK(strcmp(a, "first") == 0 && strcmp(b, "second") == 0, "posting order: '%s' '%s'", a,
              b);
        CHECK(strcmp(c, "nine") == 0 && st[2].tag == 9 && st[2].source == npes - 1,
              "ANY_TAG got '%s'", c);
        CHECK(strcmp(d, "nine-b") == 0 && st[3].source == npes - 1, "tag 9 got '%s'", d);
    }
    BARRIER();
}

static void part_probe(void)
{
    char          buf[256];
    kumi_status_t  st;
    int            flag = 0;
    char          *big = NULL;
    kumi_request_t big_req = KUMI_REQUEST_NULL;

    if (me == npes - 1) {
        big = malloc(50000);
        CHECK(big != NULL, "malloc");
        memset(big, 'p', 50000);
        OK(kumi_send(big, 123, 0, 5, world));
        OK(kumi_isend(big, 50000, 0, 6, world, &big_req));   /* rendezvous: done once taken */
    }
    if (me == 0) {
        OK(kumi_probe(KUMI_ANY_SOURCE, KUMI_ANY_TAG, world, &st));
        CHECK(st.source == npes - 1 && st.tag == 5 && st.bytes == 123, "probe %d %d %zu",
              st.source, st.tag, st.bytes);
        OK(kumi_iprobe(npes - 1, 5, world, &flag, &st));
        CHECK(flag == 1 && st.bytes == 123, "iprobe after probe");
        OK(kumi_iprobe(KUMI_ANY_SOURCE, 77, world, &flag, &st));
        CHECK(flag == 0, "iprobe of a tag nobody sent");
        OK(kumi_recv(buf, sizeof buf, KUMI_ANY_SOURCE, 5, world, &st));
        CHECK(st.bytes == 123 && buf[0] == 'p' && buf[122] == 'p', "recv after probe");
        /* a rendezvous message probes with its full size */
        do
            OK(kumi_iprobe(npes - 1, KUMI_ANY_TAG, world, &flag, &st));
        while (!flag);
        CHECK(st.tag == 6 && st.bytes == 50000, "iprobe %d %zu", st.tag, st.bytes);
        char *in = malloc(50000);
        CHECK(in != NULL, "malloc");
        OK(kumi_recv(in, 50000, npes - 1, 6, world, &st));
        CHECK(in[0] == 'p' && in[49999] == 'p', "rendezvous after probe");
        free(in);
    }
    OK(kumi_wait(&big_req, NULL));
    free(big);
    BARRIER();
}

static void part_cancel(void)
{
    char           buf[64];
    kumi_request_t r;
    kumi_status_t  st;

    /* a receive nobody will match */
    OK(kumi_irecv(buf, sizeof buf, KUMI_ANY_SOURCE, 4242, world, &r));
    OK(kumi_cancel(&r));
    OK(kumi_wait(&r, &st));
    CHECK(st.cancelled == 1 && r == KUMI_REQUEST_NULL, "cancelled %d", st.cancelled);
    /* a matched one: the cancel fails */
    OK(kumi_irecv(buf, sizeof buf, me, 4243, world, &r));
    OK(kumi_send("x", 2, me, 4243, world));
    int flag = 0;
    OK(kumi_iprobe(me, 4243, world, &flag, &st));   /* progress: the receive matches */
    CHECK(flag == 0, "a posted receive took the message: iprobe must not see it");
    OK(kumi_cancel(&r));
    OK(kumi_wait(&r, &st));
    CHECK(st.cancelled == 0 && st.bytes == 2 && buf[0] == 'x', "cancel after match");
    /* a send: the cancel fails, the send completes */
    OK(kumi_isend("y", 2, me, 4244, world, &r));
    OK(kumi_cancel(&r));
    OK(kumi_wait(&r, &st));
    CHECK(st.cancelled == 0, "send cancelled");
    OK(kumi_recv(buf, sizeof buf, me, 4244, world, &st));
    /* a cancelled receive must not eat a later message */
    OK(kumi_irecv(buf, sizeof buf, me, 4245, world, &r));
    OK(kumi_cancel(&r));
    OK(kumi_wait(&r, &st));
    OK(kumi_send("z", 2, me, 4245, world));
    OK(kumi_recv(buf, sizeof buf, me, 4245, world, &st));
    CHECK(buf[0] == 'z', "after cancel");
    BARRIER();
}

static void part_trunc(void)
{
    int src = (me + npes - 1) % npes, dst = (me + 1) % npes;
    unsigned char *big = malloc(100000), *small = malloc(50000);
    kumi_request_t r[2];
    kumi_status_t  st;
    CHECK(big && small, "malloc");

    fill(big, 100000, me, dst, 1, 0);
    OK(kumi_isend(big, 100, dst, 1, world, &r[0]));
    OK(kumi_isend(big, 100000, dst, 2, world, &r[1]));
    capture_begin();
    int rc1 = kumi_recv(small, 10, src, 1, world, &st);
    const kumi_status_t st1 = st;
    int rc2 = kumi_recv(small, 50000, src, 2, world, &st);
    const char *out = capture_end();
    CHECK(rc1 == KUMI_ERR_TRUNCATE && st1.bytes == 100 && st1.error == KUMI_ERR_TRUNCATE,
          "eager: rc %d bytes %zu", rc1, st1.bytes);
    CHECK(rc2 == KUMI_ERR_TRUNCATE && st.bytes == 100000, "rendezvous: rc %d bytes %zu", rc2,
          st.bytes);
    verify(small, 50000, src, me, 1, 0);
    CHECK(strstr(out, "kumi_recv: message of 100 bytes") != NULL
          && strstr(out, "receive buffer (10 bytes)") != NULL, "message: %s", out);
    OK(kumi_waitall(2, r, KUMI_STATUSES_IGNORE));

    /* kumi_waitall with a truncated receive among others: its error
     * returned, every request finished, each status its own */
    kumi_request_t rr[3];
    kumi_status_t  sts[3];
    uint64_t       in[3] = { 0 }, v = 0x0102030405060708ull;
    OK(kumi_irecv(&in[0], 8, src, 3, world, &rr[0]));
    OK(kumi_irecv(&in[1], 4, src, 3, world, &rr[1]));
    OK(kumi_irecv(&in[2], 8, src, 3, world, &rr[2]));
    for (int i = 0; i < 3; i++)
        OK(kumi_send(&v, 8, dst, 3, world));
    capture_begin();
    int rc3 = kumi_waitall(3, rr, sts);
    out = capture_end();
    CHECK(rc3 == KUMI_ERR_TRUNCATE, "waitall: rc %d", rc3);
    for (int i = 0; i < 3; i++)
        CHECK(rr[i] == KUMI_REQUEST_NULL && sts[i].bytes == 8 && sts[i].tag == 3
                  && sts[i].error == (i == 1 ? KUMI_ERR_TRUNCATE : KUMI_OK)
                  && (i == 1 || in[i] == v),
              "waitall request %d: bytes %zu error %d", i, sts[i].bytes, sts[i].error);
    CHECK(strstr(out, "kumi_waitall: message of 8 bytes") != NULL, "message: %s", out);
    free(big), free(small);
    BARRIER();
}

static void part_team(void)
{
    kumi_team_t   t;
    kumi_status_t st;
    int           v, w;

    OK(kumi_team_split(world, me % 2, -me, &t));
    int r = kumi_team_rank(t), n = kumi_team_size(t);
    int right = (r + 1) % n, left = (r + n - 1) % n;
    /* first a world message to the same PE, same tag */
    v = -1000 - me;
    OK(kumi_send(&v, sizeof v, kumi_team_pe(t, right), 1, world));
    v = me;
    OK(kumi_send(&v, sizeof v, right, 1, t));
    OK(kumi_recv(&w, sizeof w, KUMI_ANY_SOURCE, KUMI_ANY_TAG, t, &st));
    CHECK(st.source == left && w == kumi_team_pe(t, left), "team message: source %d value %d "
          "(left %d, world PE %d)", st.source, w, left, kumi_team_pe(t, left));
    OK(kumi_recv(&w, sizeof w, KUMI_ANY_SOURCE, 1, world, &st));
    CHECK(st.source == kumi_team_pe(t, left) && w == -1000 - st.source, "world message %d from %d",
          w, st.source);
    /* the receives posted before the messages arrive (matched in the
     * handler): a world receive posted first with the same tag does not
     * take the team's message, whose status has the team rank */
    kumi_request_t rq[2];
    int            a = -1, b = -1;
    OK(kumi_irecv(&a, sizeof a, KUMI_ANY_SOURCE, 2, world, &rq[0]));
    OK(kumi_irecv(&b, sizeof b, KUMI_ANY_SOURCE, 2, t, &rq[1]));
    BARRIER();
    v = 5000 + me;   /* the team's message first, then the world's, to one PE */
    OK(kumi_send(&v, sizeof v, right, 2, t));
    v = 6000 + me;
    OK(kumi_send(&v, sizeof v, kumi_team_pe(t, right), 2, world));
    OK(kumi_wait(&rq[0], &st));
    CHECK(st.source == kumi_team_pe(t, left) && a == 6000 + st.source,
          "posted world receive: source %d value %d", st.source, a);
    OK(kumi_wait(&rq[1], &st));
    CHECK(st.source == left && b == 5000 + kumi_team_pe(t, left),
          "posted team receive: source %d value %d (left %d)", st.source, b, left);
    OK(kumi_team_destroy(t));
    BARRIER();
}

static void part_errors(void)
{
    kumi_request_t r;
    char           buf[8];

    capture_begin();
    int rc1 = kumi_isend(buf, 8, npes + 3, 0, world, &r);
    int rc2 = kumi_irecv(buf, 8, 0, -5, world, &r);
    int rc3 = kumi_send(NULL, 8, 0, 0, world);
    int rc4 = kumi_recv(buf, 8, 0, 0, NULL, NULL);
    int rc5 = kumi_wait(NULL, NULL);
    int rc6 = kumi_isend(buf, 8, 0, -1, world, &r);
    const char *out = capture_end();
    char want[128];
    snprintf(want, sizeof want, "kumi[%d]: kumi_isend: pe %d out of range (team size %d)", me,
             npes + 3, npes);
    CHECK(rc1 == KUMI_ERR_INVALID && strstr(out, want) != NULL, "isend: %s", out);
    CHECK(rc2 == KUMI_ERR_INVALID && strstr(out, "kumi_irecv: tag -5 is negative") != NULL,
          "irecv: %s", out);
    CHECK(rc3 == KUMI_ERR_INVALID && strstr(out, "kumi_send: buffer is NULL for 8 bytes"),
          "send: %s", out);
    CHECK(rc4 == KUMI_ERR_INVALID && strstr(out, "kumi_recv: team is NULL"), "recv: %s", out);
    CHECK(rc5 == KUMI_ERR_INVALID && strstr(out, "kumi_wait: req is NULL"), "wait: %s", out);
    CHECK(rc6 == KUMI_ERR_INVALID && strstr(out, "kumi_isend: tag -1 is negative"), "tag: %s",
          out);
    /* a null request completes at once */
    kumi_status_t st;
    int           flag = 0, idx = 0;
    r = KUMI_REQUEST_NULL;
    OK(kumi_wait(&r, &st));
    CHECK(st.source == KUMI_ANY_SOURCE && st.bytes == 0, "null request status");
    OK(kumi_test(&r, &flag, NULL));
    CHECK(flag == 1, "test of a null request");
    OK(kumi_waitany(1, &r, &idx, NULL));
    CHECK(idx == KUMI_UNDEFINED, "waitany of null requests: %d", idx);
    BARRIER();
}

static int has_part(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    int         all  = strcmp(part, "all") == 0, done = 0;

    OK(kumi_init());
    me = kumi_rank(), npes = kumi_size(), world = kumi_team_world();
#define PART(name)                                     \
    if (all || has_part(part, #name)) {                \
        part_##name();                                 \
        done++;                                        \
    }
    PART(combos)
    PART(posted)
    PART(probe)
    PART(cancel)
    PART(trunc)
    PART(team)
    PART(errors)
    CHECK(done > 0, "unknown part '%s'", part);
    OK(kumi_finalize());
    if (me == 0)
        printf("msg_match %s: OK on %d PEs\n", part, npes);
    return 0;
}
