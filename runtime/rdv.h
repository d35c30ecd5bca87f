/*
 * rdv.h -- the rendezvous between kumirun and its PEs: the exchange behind
 * the kumirun bootstrap (boot_kumirun.c) and the job's control channel.
 *
 * kumirun listens on one address of the job (127.0.0.1 on one host; its
 * own address from --hosts otherwise) and passes "addr:port" to every PE
 * in KUMI_RDV, with the job key in KUMI_JOB_KEY (32 hex digits). A PE
 * joins when it first needs the exchange (a transport that publishes an
 * address; shm on one host never does): it connects and authenticates
 * with the key. Then any number of all-gather rounds: each PE sends one
 * blob (up to KUMI_RDV_BLOB_MAX bytes, sizes may differ), and once every
 * PE of the job has sent its blob of the round, kumirun sends all of them
 * to every PE. The connection then stays open for the life of the job as
 * its control channel:
 *   - kumirun -> PE: heartbeats, and FAIL(failed, status) when the job is
 *     ending (failed = 1 + PE, KUMI_TP_FAIL_LAUNCHER, or
 *     KUMI_TP_FAIL_EXIT | (1 + PE) when that PE asked for it);
 *   - PE -> kumirun: heartbeats, EXIT(status) when it ends the whole job
 *     (kumi_global_exit), and BYE(finalized) before it closes.
 * Either side that hears nothing for dead_s seconds (KUMI_HEARTBEAT_TIMEOUT,
 * passed to kumi_rdv_join and kumi_rdv_server_open) treats the other as gone: kumirun reports the PE lost (a host that vanished), a PE
 * marks the job failed. EOF without BYE is a failure too. This is how
 * PEs on hosts without kumirun's control segment learn that the job
 * fails, and how kumirun learns of a remote PE it cannot wait for. A
 * joined PE must therefore be served (kumi_rdv_service) at least every
 * KUMI_RDV_HEARTBEAT_S.
 *
 * Silence is not always absence. On a loaded host a runnable thread can
 * wait seconds for a CPU (seen: 6 s for a PE bound to one core, load 14),
 * and a stopped process (SIGSTOP, a debugger) says nothing either. So:
 *   - neither side counts time it was not looking itself: a service that
 *     comes more than KUMI_RDV_STALL_S after the previous one (the serving
 *     thread starved, or its process stopped) moves every "last heard"
 *     forward by that gap, after reading what arrived meanwhile (one stall
 *     whole, repeated ones dead_s in all until the other side speaks
 *     again: a side that keeps stalling still gives its verdict within
 *     about 2 x dead_s);
 *   - when the other side runs on the same host and its process is alive
 *     (kumi_rdv_proc_state: not gone, not a zombie), its silence is not
 *     its loss until it lasts KUMI_RDV_ALIVE_FACTOR x dead_s: a PE on
 *     kumirun's host (kumirun asks through kumi_rdv_server_set_quiet, see
 *     launcher/README.md) and kumirun seen from such a PE (c->launcher).
 *     The longer bound still ends a job whose PE or kumirun is stuck or
 *     stopped for good.
 *
 * The wire format of this channel is in rdv_wire.h; the server, kumirun's
 * side, is launcher/rdv_server.h.
 */
#ifndef KUMI_RDV_H
#define KUMI_RDV_H

#include <stddef.h>
#include <stdint.h>

#include "../transport/transport.h"   /* KUMI_TP_FAIL_LAUNCHER */

#define KUMI_RDV_HEARTBEAT_S 0.5   /* each side sends one this often   */
#define KUMI_RDV_KEY_BYTES   16    /* KUMI_JOB_KEY: 32 hex digits       */
#define KUMI_RDV_BLOB_MAX    4096  /* one PE's part of one round        */
#define KUMI_RDV_MAX_PES     65536
/* a service this long after the previous one: the server's or client's own
 * thread was not running (starved, stopped) and did not listen meanwhile */
#define KUMI_RDV_STALL_S     (2 * KUMI_RDV_HEARTBEAT_S)
/* silence of a live process on this host that still ends the job, in
 * units of dead_s */
#define KUMI_RDV_ALIVE_FACTOR 6

/* ------------------------------------------------------------ client */

struct kumi_rdv_client {
    int      fd;           /* -1 when closed                          */
    int      rank, size;
    uint32_t round;        /* all-gathers completed                   */
    double   last_rx, last_tx;
    double   last_service; /* the previous kumi_rdv_service, or 0     */
    double   credit;       /* own stall time added to last_rx since
                              kumirun was last heard                  */
    double   dead_s;       /* silence after which kumirun is gone     */
    /* kumirun's pid when it runs on this host (the caller sets it after
     * kumi_rdv_join; 0: another host): alive, its silence is bounded by
     * KUMI_RDV_ALIVE_FACTOR x dead_s instead */
    long     launcher;
    double   look_at;      /* next look at the launcher's process     */
    int      launcher_alive;
    size_t   have;         /* bytes of a partial message in buf       */
    uint8_t  buf[64];
    char     addr[64];     /* "addr:port", for messages               */
};

/* What one all-gather round brought: PE i's blob is data + off[i], len[i]
 * bytes. kumi_rdv_all_free releases it. */
struct kumi_rdv_all {
    uint8_t  *data;
    uint32_t *off, *len;
    int       n;
};
void kumi_rdv_all_free(struct kumi_rdv_all *all);

/* Parses KUMI_JOB_KEY (32 hex digits) into key: KUMI_OK or KUMI_ERR_INVALID. */
int kumi_rdv_parse_key(const char *hex, uint8_t key[KUMI_RDV_KEY_BYTES]);

/* Connects to rdv ("addr:port") and says hello with key (blocking up to
 * timeout_s for the connection); from then on kumirun silent for dead_s
 * seconds is kumirun gone. A wrong key shows as the server closing
 * the connection, at the next round or service. KUMI_OK, or an error
 * (KUMI_ERR_INVALID: bad arguments or address; KUMI_ERR_TIMEOUT;
 * KUMI_ERR_TRANSPORT) with a one-line reason in err (naming the address). */
int kumi_rdv_join(struct kumi_rdv_client *c, const char *rdv,
                  const uint8_t key[KUMI_RDV_KEY_BYTES], int rank, int size,
                  double timeout_s, double dead_s, char *err, size_t errlen);

/* One all-gather round (blocking up to timeout_s; heartbeats go on
 * meanwhile, so kumirun can tell a slow job from a vanished PE): sends
 * mine (len <= KUMI_RDV_BLOB_MAX) and fills all with every PE's blob.
 * KUMI_OK, or an error with a reason in err, the channel then closed:
 * KUMI_ERR_PEER (kumirun's FAIL, EOF, silence), KUMI_ERR_TIMEOUT,
 * KUMI_ERR_TRANSPORT (a malformed answer, a socket error), KUMI_ERR_NOMEM;
 * KUMI_ERR_STATE (not joined) and KUMI_ERR_INVALID (blob too large)
 * leave it as it was. */
int kumi_rdv_allgather(struct kumi_rdv_client *c, const void *mine, size_t len,
                       struct kumi_rdv_all *all, double timeout_s, char *err, size_t errlen);

/* Non-blocking service, called when c->fd is readable and at least every
 * KUMI_RDV_HEARTBEAT_S: reads what arrived, sends a heartbeat when one is
 * due, checks for silence. Returns 0 while the job is healthy, or 1 with
 * *failed (1 + PE, or KUMI_TP_FAIL_LAUNCHER) and *status (the job's exit
 * status as kumirun will report it, or 1 when unknown) set, after which
 * the channel is closed. Never called during kumi_rdv_allgather. */
int kumi_rdv_service(struct kumi_rdv_client *c, double now, uint32_t *failed,
                     int32_t *status);

/* Asks kumirun to end the job with status 0..255 (kumi_global_exit) and
 * waits up to timeout_s for its answer, the FAIL every PE gets: then 1,
 * with *failed and *job_status as kumi_rdv_service sets them (the first
 * request kumirun heard wins: it may be another PE's). 0 when no answer
 * came in time. The channel is closed either way. Blocking: nobody else
 * may serve c meanwhile. */
int kumi_rdv_request_exit(struct kumi_rdv_client *c, int status, double timeout_s,
                          uint32_t *failed, int32_t *job_status);

/* Says BYE (finalized nonzero: a clean kumi_finalize) and closes. */
void kumi_rdv_leave(struct kumi_rdv_client *c, int finalized);

/* How process pid of this host is, from /proc/PID/task/TID/stat: 'R' (a
 * thread running or waiting for a CPU), 'D' (one waiting in the kernel),
 * 'T' (stopped or traced), 'S' (every thread asleep), in that order of
 * precedence; 0 when there is no such process or it is a zombie. */
char kumi_rdv_proc_state(long pid);

/* Every `now` here and in rdv_server.h is kumi_tp_now() (transport.h). */

#endif /* KUMI_RDV_H */
