/*
 * rdv.h -- the rendezvous between kumirun and the PEs of a tcp job.
 *
 * kumirun listens on one address of the job (127.0.0.1 on one host; its
 * own address from --hosts otherwise) and passes "addr:port" to every PE
 * in KUMI_RDV, with the job key in KUMI_JOB_KEY (32 hex digits). Each PE
 * joins: it connects, authenticates with the key, publishes the endpoint
 * it listens on, and receives every PE's endpoint once all have joined.
 * The connection then stays open for the life of the job as its control
 * channel:
 *   - kumirun -> PE: heartbeats, and FAIL(failed, status) when the job is
 *     failing (failed = 1 + PE, or KUMI_CTL_FAIL_LAUNCHER);
 *   - PE -> kumirun: heartbeats, and BYE(finalized) before it closes.
 * Either side that hears nothing for KUMI_RDV_DEAD_S seconds treats the
 * other as gone: kumirun reports the PE lost (a host that vanished), a PE
 * marks the job failed. EOF without BYE is a failure too. This is how
 * PEs on hosts without kumirun's control segment learn that the job
 * fails, and how kumirun learns of a remote PE it cannot wait for.
 *
 * The wire format of this channel is private to rdv.c. The client side
 * below is used by the tcp transport; kumirun uses the server side
 * (declared after it).
 */
#ifndef KUMI_TCP_RDV_H
#define KUMI_TCP_RDV_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define KUMI_RDV_HEARTBEAT_S 0.5   /* each side sends one this often   */
#define KUMI_RDV_DEAD_S      2.0   /* silence after which the other is gone */

/* A PE's listening endpoint. */
struct kumi_tcp_ep {
    uint8_t  family;       /* 4 or 6                                 */
    uint8_t  reserved;
    uint16_t port;         /* host byte order                        */
    uint8_t  addr[16];     /* IPv4 in the first 4 bytes              */
};

/* ------------------------------------------------------------ client */

struct kumi_rdv_client {
    int    fd;             /* non-blocking after join; -1 when closed */
    double last_rx, last_tx;
    size_t have;           /* bytes of a partial message in buf       */
    uint8_t buf[64];
};

/* Parses KUMI_JOB_KEY (32 hex digits) into key; 0 or -1. */
int kumi_rdv_parse_key(const char *hex, uint8_t key[KUMI_JOB_KEY_BYTES]);

/* Blocking join (up to timeout_s): connects to rdv ("addr:port"),
 * authenticates with key, publishes mine, and fills table[0..size-1]
 * with every PE's endpoint. On failure returns -1 with a one-line reason
 * in err (naming the address, and what was missing or wrong). */
int kumi_rdv_join(struct kumi_rdv_client *c, const char *rdv,
                  const uint8_t key[KUMI_JOB_KEY_BYTES], int rank, int size,
                  const struct kumi_tcp_ep *mine, struct kumi_tcp_ep *table,
                  double timeout_s, char *err, size_t errlen);

/* Non-blocking service, called when c->fd is readable and at least every
 * KUMI_RDV_HEARTBEAT_S: reads what arrived, sends a heartbeat when one is
 * due, checks for silence. Returns 0 while the job is healthy, or 1 with
 * *failed (1 + PE, or KUMI_CTL_FAIL_LAUNCHER) and *status (the job's exit
 * status as kumirun will report it, or 1 when unknown) set, after which
 * the channel is closed. */
int kumi_rdv_service(struct kumi_rdv_client *c, double now, uint32_t *failed,
                     int32_t *status);

/* Says BYE (finalized nonzero: a clean kumi_finalize) and closes. */
void kumi_rdv_leave(struct kumi_rdv_client *c, int finalized);

/* ------------------------------------------------------------ server */
/* (used by kumirun; defined in rdv.c with the client) */

struct kumi_rdv_server;

#endif /* KUMI_TCP_RDV_H */
