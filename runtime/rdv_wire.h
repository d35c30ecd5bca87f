/*
 * rdv_wire.h -- the rendezvous' wire format, private to rdv.c (client),
 * launcher/rdv_server.c (server) and rdv_wire.c (what both use).
 * Little-endian like the tcp wire. Every message is an 8-byte header
 * { u8 type, u8 version, u16 0, u32 len } followed by len bytes; each type has a length range (one exact length
 * for most), checked before a payload byte is read, so a peer can never
 * make either side buffer more than it expects.
 *
 *   HELLO  PE -> kumirun   u32 magic, u32 rank, u32 size, u32 0, key[16]
 *   GATHER PE -> kumirun   u32 round, blob (0..KUMI_RDV_BLOB_MAX bytes)
 *   ALL    kumirun -> PE   u32 round, u32 npes, npes x { u32 len, blob }
 *   HB     both ways       empty
 *   FAIL   kumirun -> PE   u32 failed, i32 status (failed may be
 *                          KUMI_TP_FAIL_EXIT | (1 + PE): that PE asked the
 *                          job to end, with status)
 *   BYE    PE -> kumirun   u32 finalized
 *   EXIT   PE -> kumirun   u32 status: end the job (kumi_global_exit);
 *                          kumirun answers every PE, this one too, with FAIL
 *
 * Rounds are numbered from 0 per job; a PE sends GATHER for round r only
 * after it has ALL of round r - 1, so kumirun holds one round at a time.
 */
#ifndef KUMI_RDV_WIRE_H
#define KUMI_RDV_WIRE_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "rdv.h"

#define RDV_VERSION      3                    /* 3: rounds of blobs        */
#define RDV_MAGIC        0x5644524bu          /* "KRDV" little-endian      */
#define RDV_HDR          8
#define RDV_HELLO_LEN    (16 + KUMI_RDV_KEY_BYTES)

enum { RDV_HELLO = 1, RDV_ALL = 2, RDV_HB, RDV_FAIL, RDV_BYE, RDV_EXIT, RDV_GATHER };

static inline void rdv_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void rdv_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t rdv_get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t rdv_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void rdv_put_hdr(uint8_t *p, int type, uint32_t len)
{
    p[0] = (uint8_t)type;
    p[1] = RDV_VERSION;
    rdv_put16(p + 2, 0);
    rdv_put32(p + 4, len);
}

/* The lengths a message of this type may have in a job of npes. */
static inline int rdv_len_range(int type, int npes, uint64_t *lo, uint64_t *hi)
{
    switch (type) {
    case RDV_HELLO:  *lo = *hi = RDV_HELLO_LEN; return 0;
    case RDV_GATHER: *lo = 4; *hi = 4 + KUMI_RDV_BLOB_MAX; return 0;
    case RDV_ALL:
        *lo = 8 + 4 * (uint64_t)npes;
        *hi = *lo + (uint64_t)npes * KUMI_RDV_BLOB_MAX;
        return 0;
    case RDV_HB:     *lo = *hi = 0; return 0;
    case RDV_FAIL:   *lo = *hi = 8; return 0;
    case RDV_BYE:    *lo = *hi = 4; return 0;
    case RDV_EXIT:   *lo = *hi = 4; return 0;
    default:         return -1;
    }
}

/* Validates a header for a receiver that accepts the types in mask;
 * returns the payload length, or -1. */
static inline long rdv_check_hdr(const uint8_t *p, unsigned mask, int npes)
{
    uint64_t lo, hi, len = rdv_get32(p + 4);

    if (p[1] != RDV_VERSION || rdv_get16(p + 2) != 0 || p[0] >= 32 || !(mask & (1u << p[0]))
        || rdv_len_range(p[0], npes, &lo, &hi) != 0 || len < lo || len > hi)
        return -1;
    return (long)len;
}

/* The job key must not leak through timing, even though a wrong one only
 * costs a connection. */
/* How much of a stall of gap seconds (nobody was listening, rdv.h) to
 * add to a silence that has already been given credit seconds: a stall is
 * forgiven whole, stalls that keep coming dead_s in all per silence (the
 * client's and the server's rule). */
static inline double rdv_stall_credit(double gap, double dead_s, double credit)
{
    double limit = gap > dead_s ? gap : dead_s;

    return gap < limit - credit ? gap : limit - credit;
}

static inline int rdv_key_equal(const uint8_t *a, const uint8_t *b)
{
    volatile uint8_t diff = 0;

    for (int i = 0; i < KUMI_RDV_KEY_BYTES; i++)
        diff |= (uint8_t)(a[i] ^ b[i]);
    return diff == 0;
}

/* "a.b.c.d:port" or "[v6]:port" (rdv_wire.c) */
int  kumi_rdv_parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len);
void kumi_rdv_format_addr(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif /* KUMI_RDV_WIRE_H */
