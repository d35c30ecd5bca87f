/*
 * msg_wire.c -- the messaging layer's active-message handler against
 * malformed and hostile input (INTERNAL: it calls the registered handler
 * directly, as the transport would with bytes off a wire).
 *
 *   msg_wire [N]     N random messages (default 20000)
 *
 * Every message is random bytes, then shaped so that it cannot complete a
 * real request: lengths from 0 to the largest active message, unknown
 * types, DATA/CTS/FIN naming requests that do not exist, EAGER and RTS on
 * a team slot no team has. Nothing may crash (ASan/UBSan build: no bad
 * access), malformed messages are dropped with an error line, and the
 * layer must still work afterwards (messages to itself and to a
 * neighbour, eager and rendezvous). Credits a CREDIT message claims are
 * harmless: they only let this PE send more.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../msg/msg_int.h"
#include "pe_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    static unsigned char msg[KUMI_TP_AM_MAX_PAYLOAD];

    OK(kumi_init());
    int me = kumi_rank(), npes = kumi_size();
    kumi_team_t world = kumi_team_world();
    kumi_tp_am_fn fn = kumi_rt.tp.am[KUMI_RT_AM_MSG].fn;
    CHECK(fn != NULL, "the layer registered no handler");
    rng += (uint64_t)me;

    uint32_t *seq_in = calloc((size_t)npes, sizeof(uint32_t));
    CHECK(seq_in != NULL, "malloc");
    for (int pe = 0; pe < npes; pe++)
        seq_in[pe] = kumi_msg.peer[pe].seq_in;
    capture_begin();
    for (int i = 0; i < n; i++) {
        size_t len = (size_t)(next_rand() % (KUMI_TP_AM_MAX_PAYLOAD + 1));
        if (i % 4 == 0)
            len = (size_t)(next_rand() % (KUMI_MSG_HDR + 8));   /* around the header sizes */
        for (size_t k = 0; k < len; k += 8) {
            uint64_t x = next_rand();
            memcpy(msg + k, &x, len - k < 8 ? len - k : 8);
        }
        if (len >= KUMI_MSG_EAGER_HDR) {
            struct kumi_msg_hdr h;
            memcpy(&h, msg, len < KUMI_MSG_HDR ? len : KUMI_MSG_HDR);
            h.type = (uint8_t)(h.type % (KUMI_MSG_TYPE_LAST + 3));   /* the real ones and more */
            h.team = 0xffff;                             /* no team has this slot */
            if (h.type == KUMI_MSG_DATA || h.type == KUMI_MSG_CTS || h.type == KUMI_MSG_FIN
                || h.type == KUMI_MSG_CANCEL || h.type == KUMI_MSG_CANCEL_ACK)
                h.sid = h.rid = (next_rand() & 0xffffffff00000000ull) | 0x7fffffffu;  /* none */
            memcpy(msg, &h, len < KUMI_MSG_HDR ? len : KUMI_MSG_HDR);
        }
        fn(&kumi_rt.tp, (int)(next_rand() % (uint64_t)npes), len ? msg : NULL, len,
           kumi_rt.tp.am[KUMI_RT_AM_MSG].arg);
        if (i % 64 == 0) {   /* let the main thread drain what was queued */
            int flag;
            OK(kumi_iprobe(KUMI_ANY_SOURCE, 12345, world, &flag, NULL));
            CHECK(flag == 0, "a hostile message matched a real receive");
        }
    }
    int flag;
    OK(kumi_iprobe(KUMI_ANY_SOURCE, 12345, world, &flag, NULL));   /* drain the rest */
    const char *out = capture_end();
    CHECK(n < 100 || strstr(out, "msg: malformed message") != NULL, "no message dropped: %.200s",
          out);

    /* the hostile EAGER and RTS messages moved the per-pair sequence
     * numbers the layer checks (and logs when out of turn): put them back
     * once no PE injects any more, before real traffic */
    BARRIER();
    for (int pe = 0; pe < npes; pe++)
        kumi_msg.peer[pe].seq_in = seq_in[pe];
    free(seq_in);

    /* still working: eager and rendezvous, to myself and to my neighbour */
    static char a[100000], b[100000];
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (size_t len = 8; len <= sizeof a; len *= 100) {
        kumi_request_t r[2];
        kumi_status_t  st;
        memset(a, 'a' + me, len);
        OK(kumi_isend(a, len, right, 7, world, &r[0]));
        OK(kumi_isend(a, len, me, 8, world, &r[1]));
        OK(kumi_recv(b, len, left, 7, world, &st));
        CHECK(st.bytes == len && b[0] == 'a' + left && b[len - 1] == 'a' + left, "from left");
        OK(kumi_recv(b, len, me, 8, world, &st));
        CHECK(st.bytes == len && b[len - 1] == 'a' + me, "from myself");
        OK(kumi_waitall(2, r, NULL));
    }
    BARRIER();
    OK(kumi_finalize());
    if (me == 0)
        printf("msg_wire: %d hostile messages survived on %d PEs\n", n, npes);
    return 0;
}
