/*
 * msg_flood.c -- floods of unexpected messages: memory stays bounded by
 * the credits, nothing is lost or reordered, nothing deadlocks.
 *
 *   msg_flood [N]     N messages per sender and part (default 3000)
 *
 *   fan-in    every PE (PE 0 itself included) sends N small messages
 *             (sizes 0..300, some eager-sized 4000) with blocking
 *             kumi_send to PE 0, which receives only after a barrier:
 *             the unexpected messages PE 0 ever held (the layer's own
 *             count, hence INTERNAL) stay within KUMI_MSG_CREDIT per
 *             sender; PE 0 then takes them by ANY_SOURCE, each sender's
 *             in order.
 *   exchange  every PE sends N / 4 messages to every other PE with
 *             blocking kumi_send before it receives any (a program MPI
 *             calls unsafe, correct with eager buffering: kumi's senders
 *             keep what credit does not cover), then receives them all.
 *   isend     the same with kumi_isend and a mix of eager and rendezvous
 *             sizes, completed by waitall after the receives.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../msg/msg_int.h"
#include "pe_test.h"

static int me, npes;
static kumi_team_t world;

static size_t flood_size(int k)
{
    return k % 97 == 0 ? 4000 : (size_t)(k * 7) % 301;
}

static void stamp(unsigned char *b, size_t n, int src, int k)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(src * 31 + k * 7 + i);
}

static void check_stamp(const unsigned char *b, size_t n, int src, int k)
{
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == (unsigned char)(src * 31 + k * 7 + i), "message %d from %d byte %zu", k,
              src, i);
}

static void fan_in(int n)
{
    unsigned char buf[4096];
    int          *next = calloc((size_t)npes, sizeof(int));
    CHECK(next != NULL, "malloc");

    for (int k = 0; k < n; k++) {
        size_t len = flood_size(k);
        stamp(buf, len, me, k);
        OK(kumi_send(buf, len, 0, 3, world));
    }
    BARRIER();
    BARRIER();   /* twice: every sender's queue had time to move */
    if (me == 0) {
        uint64_t bound = (uint64_t)npes * kumi_rt.cfg.msg_credit;
        CHECK(kumi_msg.unexp_peak <= bound, "unexpected bytes peaked at %llu, bound %llu",
              (unsigned long long)kumi_msg.unexp_peak, (unsigned long long)bound);
        CHECK(kumi_msg.unexp_peak > 0, "nothing was unexpected");
        for (int m = 0; m < n * npes; m++) {
            kumi_status_t st;
            OK(kumi_recv(buf, sizeof buf, KUMI_ANY_SOURCE, 3, world, &st));
            int k = next[st.source]++;
            CHECK(st.bytes == flood_size(k), "message %d from %d: %zu bytes", k, st.source,
                  st.bytes);
            check_stamp(buf, st.bytes, st.source, k);
        }
        printf("msg_flood: fan-in of %d messages, unexpected peak %llu bytes (bound %llu)\n",
               n * npes, (unsigned long long)kumi_msg.unexp_peak, (unsigned long long)bound);
    }
    free(next);
    BARRIER();
}

static void exchange(int n)
{
    unsigned char buf[4096];

    for (int k = 0; k < n; k++)
        for (int d = 0; d < npes; d++) {
            size_t len = flood_size(k);
            if (d == me)
                continue;
            stamp(buf, len, me, k);
            OK(kumi_send(buf, len, d, 4, world));
        }
    for (int s = 0; s < npes; s++)
        for (int k = 0; k < n && s != me; k++) {
            kumi_status_t st;
            OK(kumi_recv(buf, sizeof buf, s, 4, world, &st));
            CHECK(st.bytes == flood_size(k), "size");
            check_stamp(buf, st.bytes, s, k);
        }
    BARRIER();
}

static void isend(int n)
{
    static const size_t big[] = { 5000, 70000 };
    int             total = n * npes;
    kumi_request_t *req   = malloc((size_t)total * sizeof(*req));
    unsigned char  *src   = malloc(70000), *buf = malloc(70000);
    CHECK(req && src && buf, "malloc");

    stamp(src, 70000, me, 1);
    for (int k = 0; k < n; k++)
        for (int d = 0; d < npes; d++) {
            size_t len = k % 50 == 0 ? big[(k / 50) % 2] : flood_size(k);
            OK(kumi_isend(src, len, d, 5, world, &req[k * npes + d]));
        }
    for (int s = 0; s < npes; s++)
        for (int k = 0; k < n; k++) {
            kumi_status_t st;
            size_t        len = k % 50 == 0 ? big[(k / 50) % 2] : flood_size(k);
            OK(kumi_recv(buf, 70000, s, 5, world, &st));
            CHECK(st.bytes == len, "isend %d from %d: %zu bytes, expected %zu", k, s, st.bytes,
                  len);
            check_stamp(buf, len, s, 1);
        }
    OK(kumi_waitall(total, req, KUMI_STATUSES_IGNORE));
    free(req), free(src), free(buf);
    BARRIER();
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3000;

    OK(kumi_init());
    me = kumi_rank(), npes = kumi_size(), world = kumi_team_world();
    fan_in(n);
    exchange(n / 4);
    isend(n / 4);
    OK(kumi_finalize());
    if (me == 0)
        printf("msg_flood: OK on %d PEs\n", npes);
    return 0;
}
