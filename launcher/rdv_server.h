/*
 * rdv_server.h -- kumirun's side of the rendezvous (runtime/rdv.h has the
 * protocol and the PE's side, runtime/rdv_wire.h the format).
 *
 * One listening socket and one connection per PE, all non-blocking and
 * behind one epoll descriptor, so the launcher polls a single fd next to
 * its signals. Nothing a client sends can block the server or make it
 * allocate more than a bounded amount: messages have maximum sizes checked
 * before their payload is read, unauthenticated connections are few and
 * short-lived, the blobs of a round are held once and sent to every PE
 * from one buffer, and a PE that stops reading is dropped. Rejected
 * connections (wrong key, garbage, a rank that already joined) are closed
 * and logged on stderr; the job goes on.
 */
#ifndef KUMI_RDV_SERVER_H
#define KUMI_RDV_SERVER_H

#include "rdv.h"

struct kumi_rdv_server;

/* What the server tells its owner about PE rank. */
enum kumi_rdv_event {
    KUMI_RDV_EV_JOINED,    /* authenticated                                */
    KUMI_RDV_EV_BYE,       /* said BYE(finalized); its EOF is expected now  */
    KUMI_RDV_EV_EXIT,      /* asked to end the job (value: the status); its
                              EOF is expected now                          */
    KUMI_RDV_EV_EOF,       /* connection ended without BYE                 */
    KUMI_RDV_EV_SILENT,    /* nothing heard for the server's dead_s        */
    KUMI_RDV_EV_INVALID,   /* sent a malformed message after joining, or
                              stopped reading: dropped                     */
};

/* Called from kumi_rdv_server_service; value is finalized (0/1) for BYE,
 * the status for EXIT. Each PE gets at most one of BYE, EXIT, EOF, SILENT,
 * INVALID. */
typedef void kumi_rdv_event_fn(void *arg, int rank, enum kumi_rdv_event ev, int value);

/* Asked before a joined PE silent for dead_s (silent: seconds since it
 * was last heard) is reported SILENT: 0 reports it now; w > 0 keeps it
 * (its connection stays open, heartbeats go on) and asks again in w
 * seconds unless it speaks first. kumirun spares PEs of its own host
 * whose process is alive this way (launcher/README.md). */
typedef double kumi_rdv_quiet_fn(void *arg, int rank, double silent);

/* Listens on addr (numeric IPv4 or IPv6, port chosen by the kernel) for
 * the npes PEs of a job with this key; a joined PE silent for dead_s
 * seconds is lost, and a connection gets as long to say hello. KUMI_OK,
 * or an error (KUMI_ERR_INVALID, KUMI_ERR_NOMEM, KUMI_ERR_TRANSPORT) with
 * a reason in err. */
int kumi_rdv_server_open(struct kumi_rdv_server **out, const char *addr, int npes,
                         const uint8_t key[KUMI_RDV_KEY_BYTES], double dead_s,
                         kumi_rdv_event_fn *fn, void *arg, char *err, size_t errlen);

/* Installs fn (NULL: none, the default: silence for dead_s is SILENT);
 * it gets the open call's arg. */
void kumi_rdv_server_set_quiet(struct kumi_rdv_server *s, kumi_rdv_quiet_fn *fn);

/* "addr:port" ("[addr]:port" for IPv6), the value of KUMI_RDV. */
const char *kumi_rdv_server_address(const struct kumi_rdv_server *s);

/* Readable (POLLIN) when the server has work; close-on-exec, as are all
 * of the server's descriptors. Call kumi_rdv_server_service then, and at
 * least every KUMI_RDV_HEARTBEAT_S / 2 in any case (heartbeats, silence). */
int kumi_rdv_server_fd(const struct kumi_rdv_server *s);

/* Accepts, reads, writes what is queued, sends heartbeats, detects
 * silence; never blocks. Events go to the callback. A call more than
 * KUMI_RDV_STALL_S after the previous one means the caller was not
 * listening (starved, stopped): that gap is nobody's silence (rdv.h). */
void kumi_rdv_server_service(struct kumi_rdv_server *s, double now);

/* Queues FAIL(failed, status) to every connected PE (once; later calls
 * do nothing), and stops watching for silence: the job is ending. */
void kumi_rdv_server_fail(struct kumi_rdv_server *s, uint32_t failed, int32_t status);

/* Number of PEs that joined so far. */
int kumi_rdv_server_joined(const struct kumi_rdv_server *s);

/* Closes every connection and frees s (NULL is fine). */
void kumi_rdv_server_close(struct kumi_rdv_server *s);

#endif /* KUMI_RDV_SERVER_H */
