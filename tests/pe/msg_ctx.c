/*
 * msg_ctx.c -- the messaging layer's entry points for bindings (msg/msg.h):
 * contexts and synchronous sends.
 *
 *   ctx   a receive from ANY_SOURCE with ANY_TAG in the user context and a
 *         probe there never see messages of the collective context, sent
 *         before and after it was posted (eager and rendezvous); receives
 *         in the collective context take them; then a user message takes
 *         the user receive. kumi_iprobe/kumi_recv (the public calls) are the
 *         user context.
 *   sync  a KUMI_MSG_SYNC send of 8 bytes, of 0 bytes and of 100000 bytes
 *         to the right neighbour stays incomplete (kumi_test, 50 ms) until
 *         the neighbour posts its receive, then completes; one to oneself
 *         completes once received
 *   plain kumi_msg_req_finish reports a truncation without printing, and
 *         kumi_msg_req_cancel withdraws an unmatched receive
 *   hid   handle ids: a receive's id (> 0, < 2^30) is not reaped before its
 *         message, then is (status, the user word seen by by_hid), and is
 *         stale after (reap -1, by_hid NULL) even once the request is
 *         reused by the next send's id (a new generation); a held request
 *         (KUMI_MSG_USER_HELD) is refused by the reaps; a failed
 *         (truncated) one is left to the caller; kumi_msg_send_ctx
 *         finishes an eager send at once (1) and hands back a
 *         synchronous one (0); kumi_msg_reap_hid_array reaps the done
 *         prefix of an array of ids (stops at one not done, at 0, at one
 *         without the strip bits)
 *   recv  kumi_msg_recv_ctx (a blocking receive from one source) in the
 *         collective context takes the collective message though a user
 *         one with the same tag from the same source came first (which
 *         kumi_recv takes after); a truncated one returns
 *         KUMI_ERR_TRUNCATE with the full size and the sender in its status
 */
#include <time.h>

#include "pe_test.h"
#include "../../msg/msg.h"

static int me, npes, right, left;
static kumi_team_t world;

static void pause_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static void part_ctx(void)
{
    static char    big[100000], bigin[100000];
    int            a = me, b = -1, flag = 1;
    kumi_request_t user, s[3], c[3];
    kumi_status_t  st;

    OK(kumi_msg_irecv_ctx("test", &b, sizeof b, KUMI_ANY_SOURCE, KUMI_ANY_TAG, world,
                          KUMI_MSG_CTX_USER, &user));
    memset(big, 'c', sizeof big);
    OK(kumi_msg_isend_ctx("test", &a, sizeof a, right, 5, world, KUMI_MSG_CTX_COLL, 0, &s[0]));
    OK(kumi_msg_isend_ctx("test", big, sizeof big, right, 6, world, KUMI_MSG_CTX_COLL, 0, &s[1]));
    OK(kumi_msg_isend_ctx("test", &a, sizeof a, me, 7, world, KUMI_MSG_CTX_COLL, 0, &s[2]));
    BARRIER();
    /* everything has arrived by now (eager) or its RTS has */
    OK(kumi_test(&user, &flag, &st));
    CHECK(flag == 0, "the user receive took a collective message (tag %d)", st.tag);
    OK(kumi_iprobe(KUMI_ANY_SOURCE, KUMI_ANY_TAG, world, &flag, &st));
    CHECK(flag == 0, "kumi_iprobe saw a collective message (tag %d)", st.tag);
    OK(kumi_msg_probe_ctx("test", KUMI_ANY_SOURCE, KUMI_ANY_TAG, world, KUMI_MSG_CTX_COLL, 1,
                          NULL, &st));
    int x = -1, y = -1;
    OK(kumi_msg_irecv_ctx("test", &x, sizeof x, left, 5, world, KUMI_MSG_CTX_COLL, &c[0]));
    OK(kumi_msg_irecv_ctx("test", bigin, sizeof bigin, left, KUMI_ANY_TAG, world,
                          KUMI_MSG_CTX_COLL, &c[1]));
    OK(kumi_msg_irecv_ctx("test", &y, sizeof y, KUMI_ANY_SOURCE, 7, world, KUMI_MSG_CTX_COLL,
                          &c[2]));
    OK(kumi_waitall(3, c, NULL));
    OK(kumi_waitall(3, s, NULL));
    CHECK(x == left && y == me && bigin[0] == 'c' && bigin[sizeof bigin - 1] == 'c',
          "collective context: %d %d", x, y);
    OK(kumi_test(&user, &flag, &st));
    CHECK(flag == 0, "the user receive matched");
    BARRIER();
    OK(kumi_send(&a, sizeof a, right, 9, world));
    OK(kumi_wait(&user, &st));
    CHECK(b == left && st.tag == 9 && st.source == left, "user message: %d tag %d", b, st.tag);
}

static void part_sync(void)
{
    static char out[100000], in[100000];
    static const size_t sizes[] = { 8, 0, sizeof out };

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t         n = sizes[k];
        kumi_request_t s, r;
        int            flag = 0, go = 1;
        memset(out, 'a' + (int)k, n);
        OK(kumi_msg_isend_ctx("test", out, n, right, 20, world, KUMI_MSG_CTX_USER,
                              KUMI_MSG_SYNC, &s));
        for (int i = 0; i < 50 && !flag; i++) {
            OK(kumi_test(&s, &flag, NULL));
            pause_ms(1);
        }
        CHECK(!flag || right == me, "a sync send of %zu bytes completed unmatched", n);
        OK(kumi_send(&go, sizeof go, right, 21, world));
        OK(kumi_recv(&go, sizeof go, left, 21, world, NULL));
        OK(kumi_irecv(in, sizeof in, left, 20, world, &r));
        OK(kumi_wait(&r, NULL));
        if (!flag)
            OK(kumi_wait(&s, NULL));
        CHECK(n == 0 || (in[0] == 'a' + (int)k && in[n - 1] == 'a' + (int)k), "data");
    }
    /* to oneself: completes once received */
    kumi_request_t s;
    int            v = 42, w = 0, flag = 0;
    OK(kumi_msg_isend_ctx("test", &v, sizeof v, me, 22, world, KUMI_MSG_CTX_USER,
                          KUMI_MSG_SYNC, &s));
    OK(kumi_test(&s, &flag, NULL));
    CHECK(flag == 0, "a sync send to myself completed unmatched");
    OK(kumi_recv(&w, sizeof w, me, 22, world, NULL));
    OK(kumi_wait(&s, NULL));
    CHECK(w == 42, "sync to myself");
    BARRIER();
}

static void part_plain(void)
{
    int            v[4] = { 1, 2, 3, 4 }, w[2] = { 0, 0 };
    kumi_request_t s, r;
    kumi_status_t  st;

    OK(kumi_isend(v, sizeof v, right, 30, world, &s));
    OK(kumi_msg_irecv_ctx("test", w, sizeof w, left, 30, world, KUMI_MSG_CTX_USER, &r));
    OK(kumi_msg_req_wait("test", r));
    capture_begin();
    int rc = kumi_msg_req_finish(r, &st);
    const char *out = capture_end();
    CHECK(rc == KUMI_ERR_TRUNCATE && st.bytes == sizeof v && w[1] == 2 && out[0] == '\0',
          "finish: %s, %zu bytes, printed '%s'", kumi_strerror(rc), st.bytes, out);
    OK(kumi_wait(&s, NULL));
    OK(kumi_msg_irecv_ctx("test", w, sizeof w, left, 31, world, KUMI_MSG_CTX_USER, &r));
    CHECK(kumi_msg_req_cancel(r) == 1 && kumi_msg_req_done(r), "cancel");
    rc = kumi_msg_req_finish(r, &st);
    CHECK(rc == KUMI_OK && st.cancelled == 1, "a cancelled receive");
    BARRIER();
}

static void part_hid(void)
{
    int            a = me, b = -1, w[4] = { 1, 2, 3, 4 }, send;
    unsigned       user = 0;
    size_t         bytes = 0;
    kumi_request_t r, s;
    kumi_status_t  st;

    int hr = kumi_msg_irecv_hid("test", &b, sizeof b, left, 40, world, KUMI_MSG_CTX_USER, 77, &r);
    CHECK(hr > 0 && hr < (1 << 30), "irecv_hid: %d", hr);
    CHECK(kumi_msg_req_by_hid((unsigned)hr, &user, &send, &bytes) == r && user == 77 && !send
          && bytes == sizeof b, "by_hid: user %u send %d bytes %zu", user, send, bytes);
    /* (nothing is sent to us before the barrier) */
    CHECK(kumi_msg_reap_hid((unsigned)hr, &st) == 0, "reaped before its message");
    BARRIER();
    int hs = kumi_msg_isend_hid("test", &a, sizeof a, right, 40, world, KUMI_MSG_CTX_USER, 0, 5,
                                &s);
    CHECK(hs > 0 && hs != hr, "isend_hid: %d (receive %d)", hs, hr);
    int d, krc = KUMI_OK;
    while ((d = kumi_msg_reap_hid((unsigned)hr, &st)) == 0)
        (void)kumi_msg_poll("test");   /* (KUMI_AGAIN when it served nothing) */
    CHECK(d == 1 && b == left && st.source == left && st.tag == 40 && st.bytes == sizeof b,
          "reap: %d, b %d, source %d", d, b, st.source);
    CHECK(kumi_msg_wait_reap_hid("test", (unsigned)hs, &st, &krc) == 1, "wait_reap of a send");
    CHECK(kumi_msg_reap_hid((unsigned)hr, &st) == -1
              && kumi_msg_req_by_hid((unsigned)hr, &user, &send, &bytes) == NULL,
          "a reaped id still names a request");
    /* the next id'd start reuses a request: the old ids stay stale */
    int h2 = kumi_msg_isend_hid("test", &a, sizeof a, right, 41, world, KUMI_MSG_CTX_USER, 0, 6,
                                &s);
    CHECK(h2 > 0 && h2 != hs && h2 != hr, "a reused request's id %d (was %d, %d)", h2, hs, hr);
    CHECK(kumi_msg_reap_hid((unsigned)hs, &st) == -1 && kumi_msg_reap_hid((unsigned)hr, &st) == -1,
          "stale ids reaped");
    /* held: the reaps leave it; the caller finishes it */
    kumi_msg_req_set_user(s, KUMI_MSG_USER_HELD | 6);
    CHECK(kumi_msg_reap_hid((unsigned)h2, &st) == -1
              && kumi_msg_wait_reap_hid("test", (unsigned)h2, &st, &krc) == -1, "held reaped");
    OK(kumi_msg_req_wait("test", s));
    OK(kumi_msg_req_finish(s, NULL));
    OK(kumi_recv(&b, sizeof b, left, 41, world, NULL));
    /* failed (truncated): left to the caller */
    BARRIER();
    hr = kumi_msg_irecv_hid("test", &b, sizeof b, left, 42, world, KUMI_MSG_CTX_USER, 1, &r);
    OK(kumi_send(w, sizeof w, right, 42, world));
    CHECK(kumi_msg_wait_reap_hid("test", (unsigned)hr, &st, &krc) == -1 && krc == KUMI_OK,
          "a truncated receive reaped");
    capture_begin();
    int rc = kumi_msg_req_finish(r, &st);
    capture_end();
    CHECK(rc == KUMI_ERR_TRUNCATE, "finish of the truncated one: %s", kumi_strerror(rc));
    /* reap_hid_array: [receive not done] -> 0; once done [send, receive, 0] -> 2 */
    {
        enum { STRIP = 1 << 30 };
        int           ids[3];
        kumi_status_t sts[3];
        int           c = -1;
        ids[1] = kumi_msg_irecv_hid("test", &c, sizeof c, left, 45, world, KUMI_MSG_CTX_USER, 0,
                                    &r) | STRIP;
        CHECK(kumi_msg_reap_hid_array(1, &ids[1], STRIP, sts) == 0, "array: not done reaped");
        BARRIER();
        ids[0] = kumi_msg_isend_hid("test", &a, sizeof a, right, 45, world, KUMI_MSG_CTX_USER,
                                    0, 0, &s) | STRIP;
        ids[2] = 0;
        while (!kumi_msg_req_done(r) || !kumi_msg_req_done(s))
            (void)kumi_msg_poll("test");
        d = kumi_msg_reap_hid_array(3, ids, STRIP, sts);
        CHECK(d == 2 && c == left && sts[1].source == left && sts[1].tag == 45
                  && sts[1].bytes == sizeof c, "array: %d reaped, c %d", d, c);
        CHECK(kumi_msg_reap_hid_array(1, ids, STRIP, NULL) == 0, "array: a reaped id again");
        BARRIER();
    }
    /* kumi_msg_send_ctx: eager at once, synchronous handed back */
    kumi_request_t rr;
    OK(kumi_msg_irecv_ctx("test", &b, sizeof b, left, 43, world, KUMI_MSG_CTX_USER, &rr));
    CHECK(kumi_msg_send_ctx("test", &a, sizeof a, right, 43, world, KUMI_MSG_CTX_USER, 0, &s)
              == 1, "an eager send not finished at once");
    OK(kumi_msg_req_wait("test", rr));
    OK(kumi_msg_req_finish(rr, NULL));
    OK(kumi_msg_irecv_ctx("test", &b, sizeof b, left, 44, world, KUMI_MSG_CTX_USER, &rr));
    d = kumi_msg_send_ctx("test", &a, sizeof a, right, 44, world, KUMI_MSG_CTX_USER,
                          KUMI_MSG_SYNC, &s);
    CHECK(d == 0 || npes == 1, "a synchronous send: %d", d);
    if (d == 0) {
        OK(kumi_msg_req_wait("test", s));
        OK(kumi_msg_req_finish(s, NULL));
    }
    OK(kumi_msg_req_wait("test", rr));
    OK(kumi_msg_req_finish(rr, NULL));
    BARRIER();
}

static void part_recv(void)
{
    int            a = me, u = 100 + me, b = -1, d;
    long           big[2] = { me, me };
    kumi_status_t  st;
    kumi_request_t s;

    OK(kumi_send(&u, sizeof u, right, 50, world));
    d = kumi_msg_send_ctx("test", &a, sizeof a, right, 50, world, KUMI_MSG_CTX_COLL, 0, &s);
    CHECK(d == 1, "recv: an eager send not finished at once (%d)", d);
    OK(kumi_msg_recv_ctx("test", &b, sizeof b, left, 50, world, KUMI_MSG_CTX_COLL, &st));
    CHECK(b == left && st.source == left && st.tag == 50 && st.bytes == sizeof b,
          "recv: %d from %d tag %d, %zu bytes", b, st.source, st.tag, st.bytes);
    OK(kumi_recv(&b, sizeof b, left, 50, world, KUMI_STATUS_IGNORE));
    CHECK(b == 100 + left, "recv: the user message %d", b);
    d = kumi_msg_send_ctx("test", big, sizeof big, right, 51, world, KUMI_MSG_CTX_COLL, 0, &s);
    CHECK(d == 1, "recv: an eager send not finished at once (%d)", d);
    b = -1;
    d = kumi_msg_recv_ctx("test", &b, sizeof b, left, 51, world, KUMI_MSG_CTX_COLL, &st);
    CHECK(d == KUMI_ERR_TRUNCATE && st.error == KUMI_ERR_TRUNCATE && st.bytes == sizeof big
              && st.source == left && st.tag == 51,
          "recv: truncated: %d, status %d %zu bytes from %d", d, st.error, st.bytes, st.source);
    BARRIER();
}

int main(void)
{
    OK(kumi_init());
    me    = kumi_rank();
    npes  = kumi_size();
    world = kumi_team_world();
    right = (me + 1) % npes;
    left  = (me + npes - 1) % npes;
    part_ctx();
    part_sync();
    part_plain();
    part_hid();
    part_recv();
    OK(kumi_finalize());
    if (me == 0)
        printf("msg_ctx: contexts, sync sends and the bindings' calls on %d PEs\n", npes);
    return 0;
}
