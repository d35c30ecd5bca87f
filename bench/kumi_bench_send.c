/*
 * kumi_bench_send.c -- kumi-bench's two-sided ops (kumi_send/kumi_recv),
 * between PEs 0 and 1, in the OSU shapes:
 *   send-lat   8-byte ping-pong: half the round trip (osu_latency)
 *   send-bw    PE 0 isends a window of KB_SEND_WINDOW messages, PE 1
 *              irecvs them, waitall on both, a 1-byte ack back; time per
 *              message (osu_bw)
 *   send-rate  the same loop, reported as messages per second (osu_mbw_mr
 *              with one pair)
 * Each size is checked once (pattern verified at PE 1) before it is timed.
 */
#include "kumi_bench.h"

#include <stdlib.h>
#include <string.h>

#define KB_SEND_WINDOW 64

struct kb_send {
    kumi_team_t    world;
    int            peer, me;
    size_t         bytes;
    char          *buf;
    kumi_request_t req[KB_SEND_WINDOW];
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
