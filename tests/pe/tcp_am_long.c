/* tcp_am_long.c -- the tcp transport's long active messages
 * (am_send_long, internal: the transport table). Every PE sends its right
 * neighbour long AMs whose headers are 0..64 bytes and whose payloads are
 * 0 bytes, copied (up to 16 KiB), written from the caller's buffer (above),
 * and the largest allowed, interleaved with short AMs; the receiver places
 * each payload in its own buffer, and must see every header and payload
 * intact, in sending order with the short ones. Bad arguments (header or
 * payload too long, to myself) return KUMI_ERR_INVALID.
 * With argument "refuse", PE 0's place() refuses a message: PE 0 must
 * report the frame from PE 1 as bad and exit 1 (tests/tcp.cmake). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#include "pe_test.h"

#define H_ID   30   /* a handler id nothing else uses */
#define NMSG   16

static const size_t hlens[] = { 0, 1, 48, 64 };
static const size_t plens[] = { 0, 1, 4096, 16384, 16385, 200001, KUMI_TP_AM_LONG_MAX, 70000 };
#define NH (sizeof(hlens) / sizeof(hlens[0]))
#define NP (sizeof(plens) / sizeof(plens[0]))

static unsigned char *rbuf[NMSG];
/* The handlers run on whichever thread progresses the transport (the
 * progress thread too), one at a time; main reads both while they run. */
static int             got;      /* messages delivered so far, short or long */
static int             bad;      /* atomically: bad bytes or messages seen */
static int             refuse;

static unsigned char pat(int src, int k, size_t i)
{
    return (unsigned char)(src * 31 + k * 7 + i * 13 + (i >> 9));
}

/* message k: a long one when k is even (sizes from the tables), a short
 * one otherwise */
static void *on_place(struct kumi_tp *tp, int src, const void *hdr, size_t hlen, size_t len,
                      void *arg)
{
    (void)tp;
    (void)hdr;
    (void)arg;
    int k = __atomic_load_n(&got, __ATOMIC_ACQUIRE);
    if (refuse)
        return NULL;
    if (k >= NMSG || k % 2 != 0 || hlen != hlens[(k / 2) % NH] || len != plens[(k / 2) % NP]) {
        fprintf(stderr, "FAIL tcp_am_long: place: message %d from %d: hlen %zu len %zu\n", k,
                src, hlen, len);
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return rbuf[k];
}

static void on_done(struct kumi_tp *tp, int src, const void *hdr, size_t hlen, void *dst,
                    size_t len, void *arg)
{
    (void)tp;
    (void)arg;
    int                  k = __atomic_load_n(&got, __ATOMIC_ACQUIRE), nbad = 0;
    const unsigned char *h = hdr, *d = dst;
    if (dst != rbuf[k])
        nbad++;
    for (size_t i = 0; i < hlen; i++)
        if (h[i] != (unsigned char)(pat(src, k, i) ^ 0x5a))
            nbad++;
    for (size_t i = 0; i < len; i++)
        if (d[i] != pat(src, k, i)) {
            fprintf(stderr, "FAIL tcp_am_long: message %d byte %zu\n", k, i);
            nbad++;
            break;
        }
    __atomic_fetch_add(&bad, nbad, __ATOMIC_RELAXED);
    __atomic_store_n(&got, k + 1, __ATOMIC_RELEASE);   /* after the checks: main reads bad then */
}

static void on_short(struct kumi_tp *tp, int src, const void *p, size_t len, void *arg)
{
    (void)tp;
    (void)arg;
    int k = __atomic_load_n(&got, __ATOMIC_ACQUIRE);
    if (k % 2 != 1 || len != 4 || memcmp(p, &k, 4) != 0) {
        fprintf(stderr, "FAIL tcp_am_long: short message %d from %d out of order\n", k, src);
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&got, k + 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    OK(kumi_init());
    int             me = kumi_rank(), n = kumi_size(), right = (me + 1) % n;
    int             left = (me + n - 1) % n;
    struct kumi_tp *tp = &kumi_rt.tp;

    int refusing = argc > 1 && strcmp(argv[1], "refuse") == 0;
    refuse = refusing && me == 0;
    CHECK(kumi_tp_has_am_long(tp), "tcp offers no am_send_long");
    for (int k = 0; k < NMSG; k++)
        CHECK((rbuf[k] = calloc(1, KUMI_TP_AM_LONG_MAX)) != NULL, "malloc");
    OK(kumi_tp_am_register(tp, H_ID, on_short, NULL));
    OK(kumi_tp_am_register_long(tp, H_ID, on_place, on_done, NULL));
    CHECK(kumi_tp_am_register_long(tp, H_ID, NULL, on_done, NULL) == KUMI_ERR_INVALID,
          "register without place");
    BARRIER();

    unsigned char hdr[KUMI_TP_AM_LONG_HDR + 1];
    unsigned char *src = malloc(KUMI_TP_AM_LONG_MAX + 1);
    CHECK(src != NULL, "malloc");
    CHECK(kumi_tp_am_send_long(tp, right, H_ID, hdr, KUMI_TP_AM_LONG_HDR + 1, src, 1)
              == KUMI_ERR_INVALID, "header of 65 bytes accepted");
    CHECK(kumi_tp_am_send_long(tp, right, H_ID, hdr, 8, src, KUMI_TP_AM_LONG_MAX + 1)
              == KUMI_ERR_INVALID, "payload above the limit accepted");
    CHECK(kumi_tp_am_send_long(tp, me, H_ID, hdr, 8, src, 8) == KUMI_ERR_INVALID,
          "a long AM to myself accepted");
    for (int k = 0, rc; k < NMSG; k++) {
        if (k % 2 == 1) {
            rc = kumi_tp_am_send(tp, right, H_ID, &k, 4);
            CHECK(rc == KUMI_OK || refusing, "am_send: %s", kumi_strerror(rc));
            continue;
        }
        size_t hl = hlens[(k / 2) % NH], pl = plens[(k / 2) % NP];
        for (size_t i = 0; i < hl; i++)
            hdr[i] = (unsigned char)(pat(me, k, i) ^ 0x5a);
        for (size_t i = 0; i < pl; i++)
            src[i] = pat(me, k, i);
        rc = kumi_tp_am_send_long(tp, right, H_ID, hdr, hl, src, pl);
        CHECK(rc == KUMI_OK || refusing, "am_send_long: %s", kumi_strerror(rc));
        memset(src, 0xee, pl);   /* the call returned: the buffer is mine again */
    }
    double t0 = kumi_wtime();
    while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) < NMSG && !refuse) {
        kumi_tp_progress(tp);
        CHECK(kumi_wtime() - t0 < 20, "only %d of %d messages from PE %d in 20 s",
              __atomic_load_n(&got, __ATOMIC_ACQUIRE), NMSG, left);
    }
    if (refuse) {   /* PE 0: its decoder fails the connection; barriers end */
        while (kumi_wtime() - t0 < 20) {
            int rc = kumi_barrier(kumi_team_world());
            if (rc != KUMI_OK) {
                fprintf(stderr, "tcp_am_long: pe %d: barrier failed as expected\n", me);
                return 1;
            }
        }
        fprintf(stderr, "FAIL tcp_am_long: no failure after a refused long AM\n");
        return 2;
    }
    int nbad = __atomic_load_n(&bad, __ATOMIC_RELAXED);
    CHECK(nbad == 0, "%d bad bytes or messages from PE %d", nbad, left);
    if (refusing) {  /* on the other PEs: wait for the failure */
        while (kumi_wtime() - t0 < 20)
            if (kumi_barrier(kumi_team_world()) != KUMI_OK)
                return 1;
        return 2;
    }
    BARRIER();
    for (int k = 0; k < NMSG; k++)
        free(rbuf[k]);
    free(src);
    OK(kumi_finalize());
    return 0;
}
