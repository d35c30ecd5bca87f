/*
 * kumi_bench_send.c -- kumi-bench's two-sided ops (kumi_send/kumi_recv),
 * between PEs 0 and 1, in the OSU shapes:
 *   send-lat   8-byte ping-pong: half the round trip (osu_latency)
 *   send-bw    PE 0 isends a window of KB_SEND_WINDOW messages, PE 1
 *              irecvs them, waitall on both, a 1-byte ack back; time per
 *              message (osu_bw)
 *   send-rate  the same loop, reported as messages per second (osu_mbw_mr
 *              with one pair)
 *   send-bibw  PEs 0 and 1 each irecv a window from the other and isend a
 *              window to it, waitall (osu_bibw); time per message, counting
 *              both directions, so mb_per_s is the sum of the two
 *   send-any   every PE but 0 isends a window to PE 0, which receives them
 *              all with KUMI_ANY_SOURCE, then acknowledges each sender
 *              (N-1 senders, one receiver); time per message received
 * Each size is checked once (pattern verified at the receivers) before it
 * is timed.
 */
#include "kumi_bench.h"

#include <stdlib.h>
#include <string.h>

#define KB_SEND_WINDOW 64

struct kb_send {
    kumi_team_t     world;
    int             peer, me, n;
    size_t          bytes;
    char           *buf, *rbuf;       /* rbuf: bibw's receive side         */
    kumi_request_t  req[2 * KB_SEND_WINDOW];
    kumi_request_t *many;             /* send-any at PE 0: (n-1) windows   */
};

static int kb_step_pingpong_msg(void *p)
{
    struct kb_send *x = p;
    int             rc;

    if (x->me == 0) {
        if ((rc = kumi_send(x->buf, x->bytes, 1, 1, x->world)) != KUMI_OK)
            return rc;
        return kumi_recv(x->buf, x->bytes, 1, 1, x->world, KUMI_STATUS_IGNORE);
    }
    if ((rc = kumi_recv(x->buf, x->bytes, 0, 1, x->world, KUMI_STATUS_IGNORE)) != KUMI_OK)
        return rc;
    return kumi_send(x->buf, x->bytes, 0, 1, x->world);
}

static int kb_step_window(void *p)
{
    struct kb_send *x = p;
    char            ack = 0;
    int             rc  = KUMI_OK;

    for (int i = 0; i < KB_SEND_WINDOW && rc == KUMI_OK; i++)
        rc = x->me == 0 ? kumi_isend(x->buf, x->bytes, 1, 2, x->world, &x->req[i])
                        : kumi_irecv(x->buf, x->bytes, 0, 2, x->world, &x->req[i]);
    if (rc == KUMI_OK)
        rc = kumi_waitall(KB_SEND_WINDOW, x->req, KUMI_STATUSES_IGNORE);
    if (rc == KUMI_OK)
        rc = x->me == 0 ? kumi_recv(&ack, 1, 1, 3, x->world, KUMI_STATUS_IGNORE)
                        : kumi_send(&ack, 1, 0, 3, x->world);
    return rc;
}

/* Both directions at once: a window in, a window out, one waitall. */
static int kb_step_bibw(void *p)
{
    struct kb_send *x    = p;
    int             peer = 1 - x->me, rc = KUMI_OK;

    for (int i = 0; i < KB_SEND_WINDOW && rc == KUMI_OK; i++)
        rc = kumi_irecv(x->rbuf, x->bytes, peer, 2, x->world, &x->req[i]);
    for (int i = 0; i < KB_SEND_WINDOW && rc == KUMI_OK; i++)
        rc = kumi_isend(x->buf, x->bytes, peer, 2, x->world, &x->req[KB_SEND_WINDOW + i]);
    return rc == KUMI_OK ? kumi_waitall(2 * KB_SEND_WINDOW, x->req, KUMI_STATUSES_IGNORE) : rc;
}

/* One message each way (the check before the loop). */
static int kb_step_bibw_once(struct kb_send *x)
{
    int peer = 1 - x->me, rc;

    rc = kumi_irecv(x->rbuf, x->bytes, peer, 0, x->world, &x->req[0]);
    if (rc == KUMI_OK)
        rc = kumi_isend(x->buf, x->bytes, peer, 0, x->world, &x->req[1]);
    return rc == KUMI_OK ? kumi_waitall(2, x->req, KUMI_STATUSES_IGNORE) : rc;
}

/* N-1 senders, one ANY_SOURCE receiver: PE 0 posts (n-1) windows of
 * receives from anyone, waits for all, then acknowledges every sender. */
static int kb_step_any(void *p)
{
    struct kb_send *x = p;
    char            ack = 0;
    int             rc  = KUMI_OK, total = KB_SEND_WINDOW * (x->n - 1);

    if (x->me != 0) {
        for (int i = 0; i < KB_SEND_WINDOW && rc == KUMI_OK; i++)
            rc = kumi_isend(x->buf, x->bytes, 0, 4, x->world, &x->req[i]);
        if (rc == KUMI_OK)
            rc = kumi_waitall(KB_SEND_WINDOW, x->req, KUMI_STATUSES_IGNORE);
        return rc == KUMI_OK ? kumi_recv(&ack, 1, 0, 5, x->world, KUMI_STATUS_IGNORE) : rc;
    }
    for (int i = 0; i < total && rc == KUMI_OK; i++)
        rc = kumi_irecv(x->buf, x->bytes, KUMI_ANY_SOURCE, 4, x->world, &x->many[i]);
    if (rc == KUMI_OK)
        rc = kumi_waitall(total, x->many, KUMI_STATUSES_IGNORE);
    for (int r = 1; r < x->n && rc == KUMI_OK; r++)
        rc = kumi_send(&ack, 1, r, 5, x->world);
    return rc;
}

/* One checked message 0 -> 1, then the timed loop; us per message. */
static int kb_send_run(const struct kb_run *run, struct kb_sample *out, kb_step step,
                       double per_step)
{
    struct kb_send x    = { .world = kumi_team_world(), .me = kb.me, .bytes = run->bytes };
    uint64_t       seed = kb_seed(run->bytes, 0);
    int            runs = kb.me < 2, rc = KUMI_OK;

    x.buf = kb_xmalloc(run->op->name, run->bytes > 0 ? run->bytes : 1);
    if (kb.me == 0) {
        kb_fill(x.buf, run->bytes, seed);
        rc = kumi_send(x.buf, run->bytes, 1, 0, x.world);
    } else if (kb.me == 1) {
        memset(x.buf, 0, run->bytes);
        rc = kumi_recv(x.buf, run->bytes, 0, 0, x.world, KUMI_STATUS_IGNORE);
        if (rc == KUMI_OK)
            kb_expect_block(run, x.buf, run->bytes, seed, "the received message");
    }
    rc = kb_agree(run->op->name, "kumi_send", rc);
    if (rc == KUMI_OK) {
        out->us  = kb_timed(run, "kumi_send", runs, step, NULL, &x) / per_step;
        out->ran = runs;
    }
    free(x.buf);
    return rc;
}

int kb_op_send_lat(const struct kb_run *run, struct kb_sample *out)
{
    return kb_send_run(run, out, kb_step_pingpong_msg, 2.0);
}

int kb_op_send_bw(const struct kb_run *run, struct kb_sample *out)
{
    return kb_send_run(run, out, kb_step_window, KB_SEND_WINDOW);
}

int kb_op_send_rate(const struct kb_run *run, struct kb_sample *out)
{
    return kb_send_run(run, out, kb_step_window, KB_SEND_WINDOW);
}

/* One checked message each way between 0 and 1, then the timed loop. */
int kb_op_send_bibw(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_send x = { .world = kumi_team_world(), .me = kb.me, .n = kb.n,
                         .bytes = run->bytes };
    int            rc = KUMI_OK, runs = kb.me < 2;
    size_t         alloc = run->bytes > 0 ? run->bytes : 1;

    x.buf  = kb_xmalloc(run->op->name, alloc);
    x.rbuf = kb_xmalloc(run->op->name, alloc);
    if (runs) {
        kb_fill(x.buf, run->bytes, kb_seed(run->bytes, (uint64_t)kb.me));
        memset(x.rbuf, 0, run->bytes);
        rc = kb_step_bibw_once(&x);
        if (rc == KUMI_OK)
            kb_expect_block(run, x.rbuf, run->bytes, kb_seed(run->bytes, (uint64_t)(1 - kb.me)),
                            "the received message");
    }
    rc = kb_agree(run->op->name, "kumi_isend", rc);
    if (rc == KUMI_OK) {
        out->us  = kb_timed(run, "kumi_waitall", runs, kb_step_bibw, NULL, &x) /
                   (2.0 * KB_SEND_WINDOW);
        out->ran = runs;
    }
    free(x.rbuf);
    free(x.buf);
    return rc;
}

/* Checked first: one message from every sender, received from ANY_SOURCE
 * into its own buffer and checked against the source its status names
 * (each source exactly once). Then the timed loop; every PE times it: us
 * per message PE 0 receives. */
int kb_op_send_any(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_send x = { .world = kumi_team_world(), .me = kb.me, .n = kb.n,
                         .bytes = run->bytes };
    size_t         alloc = run->bytes > 0 ? run->bytes : 1;
    int            rc = KUMI_OK, senders = kb.n - 1;

    x.buf = kb_xmalloc(run->op->name, alloc);
    if (kb.me != 0) {
        kb_fill(x.buf, run->bytes, kb_seed(run->bytes, (uint64_t)kb.me));
        rc = kumi_send(x.buf, run->bytes, 0, 0, x.world);
    } else {
        char *got  = kb_xmalloc(run->op->name, alloc * (size_t)senders);
        char *seen = calloc((size_t)kb.n, 1);
        x.many = kb_xmalloc(run->op->name, sizeof *x.many * KB_SEND_WINDOW * (size_t)senders);
        if (seen == NULL)
            kb_die(run->op->name, "calloc", KUMI_ERR_NOMEM);
        for (int i = 0; i < senders && rc == KUMI_OK; i++) {
            kumi_status_t st;
            char         *at = got + (size_t)i * alloc;
            rc = kumi_recv(at, run->bytes, KUMI_ANY_SOURCE, 0, x.world, &st);
            if (rc != KUMI_OK)
                break;
            if (st.source < 1 || st.source >= kb.n || seen[st.source] || st.bytes != run->bytes)
                kb_wrong(run, "message %d: source %d, %zu bytes", i, st.source, st.bytes);
            seen[st.source] = 1;
            kb_expect_block(run, at, run->bytes, kb_seed(run->bytes, (uint64_t)st.source),
                            "a message received from KUMI_ANY_SOURCE");
        }
        free(seen);
        free(got);
    }
    rc = kb_agree(run->op->name, "kumi_recv", rc);
    if (rc == KUMI_OK) {
        out->us  = kb_timed(run, "kumi_waitall", 1, kb_step_any, NULL, &x) /
                   (double)(KB_SEND_WINDOW * senders);
        out->ran = 1;
    }
    free(x.many);
    free(x.buf);
    return rc;
}
