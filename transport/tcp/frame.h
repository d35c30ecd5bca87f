/*
 * frame.h -- the receive side of the tcp transport as a pure state machine:
 * header validation and a stream decoder that puts payloads straight into
 * target memory. No socket calls here, so the fuzzer (tests/fuzz) drives
 * exactly the code a PE runs.
 *
 * Use: the caller owns the bytes. Either feed() what recv() put into a
 * staging buffer, or ask want() where the next payload bytes go and recv()
 * there directly (OTF receive: puts and get replies land in the heap or the
 * requester's buffer without a bounce copy), then got(). Each complete
 * frame is applied (KICK, PUT, GET_REP, AMO_REP touch memory here) and then
 * handed to on_frame for what needs the transport (replies, AM handlers,
 * credit). After an error the decoder stays failed and rx->err says why.
 */
#ifndef KUMI_TCP_FRAME_H
#define KUMI_TCP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "../transport.h"
#include "wire.h"

#define KUMI_FRAME_TAGS 256   /* outstanding GET/AMO requests per connection */

/* What the receiver accepts; a frame outside it is malformed. */
struct kumi_frame_limits {
    uint64_t seg_size[KUMI_SEG_COUNT];   /* 0: no such segment here   */
    uint32_t max_payload;   /* KUMI_TCP_MAX_PAYLOAD                    */
    uint32_t am_handlers;   /* KUMI_TP_AM_MAX_HANDLERS                 */
    uint32_t tags;          /* request tags are < tags                 */
    uint32_t window;        /* credit a single frame may return        */
};

/* One request of mine awaiting its reply (indexed by tag). */
enum { KUMI_REQ_FREE = 0, KUMI_REQ_GET, KUMI_REQ_AMO };
struct kumi_frame_req {
    uint8_t           kind;     /* KUMI_REQ_*                           */
    uint8_t           discard;  /* nobody waits: free on reply          */
    volatile uint8_t  done;     /* release-set by the decoder           */
    uint32_t          len;      /* GET: bytes expected                  */
    void             *dst;      /* GET: where they go                   */
    uint64_t          val;      /* AMO: old value                       */
};

struct kumi_frame_rx;
/* Called once per complete, applied frame; payload is the AM buffer for
 * KUMI_TCP_AM and KUMI_TCP_AM_LONG (its header; rx->dst holds where its
 * payload went), else NULL. Returns KUMI_OK, or an error (KUMI_ERR_*) after
 * writing a reason to rx->err (the frame is then treated as malformed). */
typedef int (*kumi_frame_fn)(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h,
                             const void *payload, void *arg);

/* A long active message's header (h->val bytes at hdr) has arrived:
 * returns where its h->len - h->val payload bytes go, or NULL after
 * writing a reason to rx->err (the frame is malformed). */
typedef void *(*kumi_frame_place_fn)(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h,
                                     const void *hdr, void *arg);

struct kumi_frame_rx {
    /* set by the owner */
    const struct kumi_frame_limits *lim;
    uint8_t               *seg[KUMI_SEG_COUNT];   /* my LLCM, heap, data     */
    struct kumi_frame_req *req;                   /* lim->tags entries        */
    kumi_frame_fn          on_frame;
    kumi_frame_place_fn    place;    /* NULL: long AMs are malformed      */
    void                  *arg;
    /* state */
    int                    failed;
    size_t                 have;     /* bytes of hdr or payload so far   */
    int                    in_payload;
    struct kumi_tcp_hdr    hdr;
    uint8_t               *dst;      /* payload destination (AM_LONG: of
                                        the bytes after the header)      */
    size_t                 skip;     /* AM_LONG: its header bytes (in
                                        am_buf), else 0                  */
    char                   err[192];
    uint8_t                am_buf[KUMI_TP_AM_MAX_PAYLOAD];
};

/* seg: where each segment of lim starts here (NULL where its size is 0). */
void kumi_frame_rx_init(struct kumi_frame_rx *rx, const struct kumi_frame_limits *lim,
                        uint8_t *const seg[KUMI_SEG_COUNT], struct kumi_frame_req *req,
                        kumi_frame_fn on_frame, void *arg);

/* KUMI_OK when h is a well-formed frame within lim, else KUMI_ERR_INVALID
 * with a reason in why. */
int kumi_frame_check(const struct kumi_tcp_hdr *h, const struct kumi_frame_limits *lim,
                     char *why, size_t whylen);

/* Consumes up to n bytes of stream; returns how many (n unless it failed:
 * then rx->failed is set). */
size_t kumi_frame_rx_feed(struct kumi_frame_rx *rx, const uint8_t *p, size_t n);

/* Where the next payload bytes may be received directly, and how many
 * (0 when in a header, an AM payload or a long AM's header: feed() those). */
size_t kumi_frame_rx_want(struct kumi_frame_rx *rx, void **buf);
/* n bytes were written to want()'s buffer. KUMI_OK, or KUMI_ERR_INVALID
 * when the frame failed. */
int kumi_frame_rx_got(struct kumi_frame_rx *rx, size_t n);

/* Is the decoder between frames (nothing partial)? */
static inline int kumi_frame_rx_idle(const struct kumi_frame_rx *rx)
{
    return rx->have == 0 && !rx->in_payload;
}

/* The kick store: an atomic release store of width bytes. */
void kumi_frame_store(uint8_t *dst, unsigned width, uint64_t v);

/* Frame types that count against the credit window. */
static inline int kumi_frame_counted(unsigned type)
{
    return type == KUMI_TCP_KICK || type == KUMI_TCP_PUT || type == KUMI_TCP_GET_REQ
           || type == KUMI_TCP_AMO_REQ || type == KUMI_TCP_AM || type == KUMI_TCP_AM_LONG;
}

#endif /* KUMI_TCP_FRAME_H */
