/*
 * wire.h -- what crosses a socket in the tcp transport: the PE-to-PE
 * hello and frames. Shared by the transport (tcp.c, frame.c) and the
 * frame fuzzer. Every field is validated on receipt (frame.c); a frame
 * that fails validation closes its connection with an error naming the
 * peer and never touches memory.
 *
 * Byte order: little-endian on the wire (kumi targets x86-64 and
 * aarch64 Linux, both little-endian); the hello's magic doubles as the
 * byte-order check.
 *
 * Connection life: the connecting PE sends a hello; the accepting PE
 * reads exactly sizeof(struct kumi_tcp_hello) bytes (with a deadline),
 * checks magic, version, job key (constant-time compare), that dst_rank
 * is itself, src_rank is a valid PE not yet connected and size matches;
 * anything else closes the socket before a single frame is read. After
 * the hello, both directions carry frames: a kumi_tcp_hdr, then len bytes
 * of payload. Delivery is in order and exactly once per pair (TCP), and
 * frames are applied in arrival order, so "put, then kick" is a complete
 * message, as on the shm path.
 */
#ifndef KUMI_TCP_WIRE_H
#define KUMI_TCP_WIRE_H

#include <stdint.h>

#define KUMI_TCP_MAGIC       0x494d554bu   /* "KUMI" little-endian */
#define KUMI_TCP_VERSION     1
#define KUMI_JOB_KEY_BYTES   16            /* the job's tcp key (tcp.c: PE 0's,
                                              sent through the bootstrap)  */

/* What every PE publishes through the bootstrap (an all-gather, at
 * open): its listening endpoint and, from PE 0, the key every hello must
 * carry. Encoded explicitly (kumi_tcp_ep_encode), little-endian. */
#define KUMI_TCP_BOOT_BYTES  (20 + KUMI_JOB_KEY_BYTES)

struct kumi_tcp_hello {
    uint32_t magic;                        /* KUMI_TCP_MAGIC             */
    uint16_t version;                      /* KUMI_TCP_VERSION           */
    uint16_t reserved;                     /* 0                          */
    uint8_t  key[KUMI_JOB_KEY_BYTES];      /* the job key                */
    uint32_t src_rank, dst_rank, size;
    uint32_t reserved2;                    /* 0                          */
};                                         /* 40 bytes */

enum kumi_tcp_type {
    KUMI_TCP_KICK    = 1,  /* val (width bytes) -> LLCM[off]                   */
    KUMI_TCP_PUT     = 2,  /* payload (len) -> seg[off]                        */
    KUMI_TCP_GET_REQ = 3,  /* read val bytes at seg[off]; reply with GET_REP   */
    KUMI_TCP_GET_REP = 4,  /* payload = the data for request tag               */
    KUMI_TCP_AMO_REQ = 5,  /* op on width bytes at seg[off] (operand val,
                              compare cmp); reply AMO_REP when the op fetches
                              (kumi_tp_amo_fetches, tag), else tag 0         */
    KUMI_TCP_AMO_REP = 6,  /* val = old value for request tag                  */
    KUMI_TCP_AM      = 7,  /* active message: handler = seg, payload (len)     */
    KUMI_TCP_CREDIT  = 8,  /* no payload: returns credit only                  */
    KUMI_TCP_FIN     = 9,  /* orderly close: the sender finalized              */
    KUMI_TCP_AM_LONG = 10, /* long active message: handler = seg; val header
                              bytes (<= KUMI_TP_AM_LONG_HDR), then len - val
                              payload bytes, received where the handler's
                              place() says (kumi_tp_am_register_long)       */
    KUMI_TCP_TYPE_MAX
};

/* One frame header, 48 bytes. Fields a type does not use must be 0. */
struct kumi_tcp_hdr {
    uint8_t  version;      /* KUMI_TCP_VERSION                               */
    uint8_t  type;         /* enum kumi_tcp_type                             */
    uint8_t  seg;          /* enum kumi_seg (LLCM 0, HEAP 1, DATA 2); AM:
                              handler id                                     */
    uint8_t  width;        /* KICK 1/2/4/8; AMO_REQ 4/8; else 0              */
    uint8_t  op;           /* AMO_REQ: enum kumi_amo; else 0                 */
    uint8_t  reserved[3];  /* 0                                              */
    uint32_t len;          /* payload bytes that follow                      */
    uint32_t credit;       /* frames of the peer's this side has consumed
                              since its last report (piggybacked)            */
    uint64_t off;          /* target offset in seg                           */
    uint64_t val;          /* KICK value, AMO operand, GET_REQ length,
                              AMO_REP old value                              */
    uint64_t cmp;          /* AMO_REQ CSWAP compare                          */
    uint32_t tag;          /* GET/AMO request id, echoed in the reply        */
    uint32_t reserved2;    /* 0                                              */
};

/* Largest payload of one frame; larger puts and gets are split. */
#define KUMI_TCP_MAX_PAYLOAD ((uint32_t)1 << 20)

_Static_assert(sizeof(struct kumi_tcp_hello) == 40, "hello is 40 bytes");
_Static_assert(sizeof(struct kumi_tcp_hdr) == 48, "frame header is 48 bytes");

#endif /* KUMI_TCP_WIRE_H */
