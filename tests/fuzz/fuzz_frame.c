/* fuzz_frame.c -- libFuzzer target for the tcp receive path (frame.c).
 *
 * The input is a byte stream from a hostile peer. The first byte picks how
 * the stream is cut into recv()-sized pieces and whether payloads are
 * received directly (want/got) or through feed(); the rest is the stream.
 * Segments are small heap buffers, so ASan catches any write the
 * validation lets through; a few requests are pending so that replies get
 * matched. Build: see tests/tcp.cmake (clang -fsanitize=fuzzer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

#define LLCM_SIZE 4096
#define HEAP_SIZE 65536
#define DATA_SIZE 8192

static uint8_t *longbuf;   /* the last long AM's payload (on_place) */

static int on_frame(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h, const void *payload,
                    void *arg)
{
    (void)arg;
    /* an AM payload must be readable for its whole length */
    if (h->type == KUMI_TCP_AM && h->len != 0) {
        volatile uint8_t x = 0;
        for (uint32_t i = 0; i < h->len; i++)
            x ^= ((const uint8_t *)payload)[i];
    }
    /* a long AM: its header readable, its payload where place() put it */
    if (h->type == KUMI_TCP_AM_LONG) {
        volatile uint8_t x = 0;
        for (uint64_t i = 0; i < h->val; i++)
            x ^= ((const uint8_t *)payload)[i];
        if (rx->dst != longbuf)
            abort();
        for (uint64_t i = 0; i < h->len - h->val; i++)
            x ^= rx->dst[i];
    }
    return 0;
}

/* long AMs: payloads of up to 4096 bytes land in a heap buffer of exactly
 * their size (ASan sees any byte beyond); a header whose first byte is
 * 0xff is refused */

static void *on_place(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h, const void *hdr,
                      void *arg)
{
    (void)arg;
    size_t len = h->len - (size_t)h->val;
    free(longbuf);
    longbuf = NULL;
    if ((h->val != 0 && ((const uint8_t *)hdr)[0] == 0xff) || len > 4096) {
        strcpy(rx->err, "refused");
        return NULL;
    }
    longbuf = malloc(len ? len : 1);
    return longbuf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct kumi_frame_limits lim = {
        .seg_size = { LLCM_SIZE, HEAP_SIZE, DATA_SIZE }, .max_payload = KUMI_TCP_MAX_PAYLOAD,
        .am_handlers = KUMI_TP_AM_MAX_HANDLERS, .tags = KUMI_FRAME_TAGS, .window = 1024,
    };
    static struct kumi_frame_rx  rx;
    static struct kumi_frame_req req[KUMI_FRAME_TAGS];
    uint8_t                     *seg[KUMI_SEG_COUNT] = { malloc(LLCM_SIZE), malloc(HEAP_SIZE),
                                                         malloc(DATA_SIZE) };
    uint8_t                     *getbuf = malloc(256);
    unsigned                     mode;
    size_t                       pos = 0;

    if (size == 0)
        goto out;
    mode = data[0];
    data++;
    size--;
    memset(req, 0, sizeof(req));
    /* tag 1: a get of 256 bytes; tag 2: an atomic; tag 3: an empty get */
    req[1] = (struct kumi_frame_req){ .kind = KUMI_REQ_GET, .len = 256, .dst = getbuf };
    req[2] = (struct kumi_frame_req){ .kind = KUMI_REQ_AMO };
    req[3] = (struct kumi_frame_req){ .kind = KUMI_REQ_GET, .len = 0 };
    kumi_frame_rx_init(&rx, &lim, seg, req, on_frame, NULL);
    rx.place = on_place;
    while (pos < size && !rx.failed) {
        size_t piece = (mode & 0x80) ? size - pos : 1 + (mode & 0x3f) + (pos * 7) % 61;
        void  *dst;
        size_t want = kumi_frame_rx_want(&rx, &dst);

        if (piece > size - pos)
            piece = size - pos;
        if ((mode & 0x40) && want > 0) {
            /* direct receive: the "kernel" writes at most want bytes */
            if (piece > want)
                piece = want;
            memcpy(dst, data + pos, piece);
            kumi_frame_rx_got(&rx, piece);
            pos += piece;
        } else {
            size_t used = kumi_frame_rx_feed(&rx, data + pos, piece);
            if (used != piece && !rx.failed)
                abort();            /* feed stops early only on failure */
            pos += used;
        }
    }
out:
    for (int i = 0; i < KUMI_SEG_COUNT; i++)
        free(seg[i]);
    free(getbuf);
    free(longbuf);
    longbuf = NULL;
    return 0;
}
