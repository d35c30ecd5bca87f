/*
 * tcp_int.h -- state shared by the tcp transport's files: tcp.c (the
 * engine: operations, progress, the progress thread) and tcp_conn.c
 * (listening, connecting, hellos, the rendezvous). See README.md.
 */
#ifndef KUMI_TCP_INT_H
#define KUMI_TCP_INT_H

#include <pthread.h>
#include <stdint.h>

#include "../transport.h"
#include "frame.h"
#include "wire.h"

/* kumi_global_exit: how long to hand the peers their FIN */
#define KUMI_TCP_EXIT_FIN_S     0.2
/* a lost connection's line waits at most this long for the launcher's
 * verdict (kumi_tcp_lost_report) */
#define KUMI_TCP_LOST_REPORT_S  1.0

/* jobs of up to this many PEs poll their sockets directly (recv on each)
 * rather than through epoll while the main thread spins */
#define KUMI_TCP_DIRECT_MAX 4
#define KUMI_TCP_WINDOW     1024            /* counted frames in flight per direction */
#define KUMI_TCP_COPY_MAX   (16u << 10)     /* larger puts go out from the user buffer */
#define KUMI_TCP_FLUSH_AT   (64u << 10)     /* coalesced bytes that force a write */
#define KUMI_TCP_STAGE      (64u << 10)     /* receive staging buffer: bounds the
                                               bounce copy of a large payload's start */
/* after a bulk payload, the next read takes a frame header and the
 * largest long-AM header only, so the payload behind them is received
 * in place rather than through the staging buffer */
#define KUMI_TCP_HDR_READ   (sizeof(struct kumi_tcp_hdr) + KUMI_TP_AM_LONG_HDR)
#define KUMI_TCP_PENDING    16              /* accepted sockets awaiting their hello */
#define KUMI_TCP_HELLO_S    2.0             /* a hello must arrive within this */
#define KUMI_TCP_REJECT_LOG 10              /* rejected connections logged */

/* epoll data: kind in the high word, index in the low */
enum { KUMI_TCP_EV_CONN = 1, KUMI_TCP_EV_LISTEN, KUMI_TCP_EV_PEND,
       KUMI_TCP_EV_WAKE };
#define KUMI_TCP_EV(kind, idx) (((uint64_t)(kind) << 32) | (uint32_t)(idx))

/* A PE's listening endpoint. */
struct kumi_tcp_ep {
    uint8_t  family;       /* 4 or 6                                 */
    uint8_t  reserved;
    uint16_t port;         /* host byte order                        */
    uint8_t  addr[16];     /* IPv4 in the first 4 bytes              */
};

enum { KUMI_TCP_DOWN = 0, KUMI_TCP_CONNECTING, KUMI_TCP_UP, KUMI_TCP_CLOSED };

struct kumi_tcp_conn {
    int       fd;            /* -1 once closed                             */
    int       pe;
    int       state;         /* KUMI_TCP_*                                 */
    int       fin_rx;        /* the peer said FIN: its EOF is orderly      */
    char      name[64];      /* "addr:port" of the peer, for messages      */
    /* send side: coalescing buffer [spos, slen) not yet written */
    uint8_t  *sbuf;
    size_t    spos, slen, scap;
    int       busy;          /* a direct write is mid-frame on the socket  */
    int       pollout;       /* EPOLLOUT registered                        */
    int       dirty;         /* on the dirty list                          */
    int       wrote;         /* frames sent since the last quiet           */
    unsigned  sent_round;    /* s->rounds when an AM was last written at once */
    /* threads (quiet without the lock): counted frames queued so far, and
     * how many of them a returned quiet probe proved applied */
    uint64_t  wseq, wdone;
    int32_t   tx_credit;     /* counted frames I may still send            */
    uint32_t  rx_unreported; /* the peer's frames consumed, not yet credited */
    /* receive side */
    int       rx_bulk;       /* the last frame had KUMI_TCP_STAGE payload
                                bytes or more: read the next header alone
                                (kumi_tcp_conn_read)                      */
    uint64_t  rx_staged;     /* bytes read into the staging buffer (tests) */
    struct kumi_frame_rx  rx;
    struct kumi_frame_req req[KUMI_FRAME_TAGS];
    uint16_t  free_tag[KUMI_FRAME_TAGS];
    unsigned  nfree;
};

/* An accepted socket whose hello is not complete yet. */
struct kumi_tcp_pend {
    int    fd;               /* -1: slot free */
    double deadline;
    size_t have;
    struct kumi_tcp_hello hello;
    char   name[64];
};

struct kumi_tcp {
    struct kumi_tp       *tp;
    int                   rank, size;
    uint8_t               key[KUMI_JOB_KEY_BYTES];
    double                timeout;
    /* memory: [LLCM][pad][heap], private anonymous */
    void                 *map;
    size_t                map_len;
    /* sockets */
    int                   lfd, epfd, wakefd;
    struct kumi_tcp_ep    mine;
    struct kumi_tcp_ep   *table;            /* every PE's endpoint        */
    struct kumi_tcp_conn *conn;             /* size entries               */
    int                  *dirty;            /* conns with bytes to write  */
    int                   ndirty;
    struct kumi_tcp_pend  pend[KUMI_TCP_PENDING];
    unsigned              rejected;
    struct kumi_frame_limits lim;
    uint8_t              *stage;
    /* the bootstrap's channel to the launcher (params->boot->poll), and
     * the held lost-connection line: served every KUMI_TP_BOOT_POLL_S */
    const struct kumi_tp_boot *boot;
    int                   boot_on;
    double                boot_next;   /* atomic: read by kumi_tcp_boot_poll */
    uint32_t              boot_busy;   /* a thread is in kumi_tcp_boot_tick */
    /* the first lost connection's line, held for kumirun's verdict
     * (kumi_tcp_lost_report): 0 none, 1 being written, 2 held, 3 done */
    uint32_t              lost_state;
    int                   lost_verdict;     /* a verdict was seen: decide next tick */
    double                lost_until;
    char                  lost_line[384];
    /* engine lock: one owner at a time, recursive for AM handlers */
    int                   lock;
    int                   depth;
    int                   in_rx;            /* AM handlers running: never block */
    int                   closing;
    int                   handled;          /* frames applied in this progress */
    unsigned              rounds;           /* engine rounds so far (kumi_tcp_am_flush) */
    unsigned              stored;           /* of them: stores to my memory and
                                               handlers (sleepers are woken) */
    /* messages to myself, delivered by progress like any other */
    uint8_t              *selfq;
    size_t                selfq_len, selfq_cap;
    /* progress thread */
    pthread_t             thread;
    int                   thread_on;
    uint32_t              stop;
    uint32_t              polls;            /* bumped by every caller's progress */
    unsigned              direct_polls;     /* callers' polls, for the epoll round */
    uint32_t              sleeping;         /* callers asleep on their doorbell */
    uint32_t              naps;             /* threads: times a caller went to sleep */
    uint32_t              park;             /* futex the thread parks on */
    uint32_t              unflushed;        /* some connection has queued bytes */
    struct kumi_tp_doorbell bell;
    /* kumi_tp_params.threads: several threads call the operations; one
     * that waits for a reply or a tag does so without the lock */
    int                   threads;
    /* test hook: the next frame to this PE goes out with bad fields */
    int                   corrupt_next;
    /* system calls of the socket engine, for tests (kumi_tcp_test_calls):
     * epoll_waits of the engine's round, recvs (of them: found nothing;
     * found nothing since the last that found something), send/writev */
    uint64_t              rx_epolls, rx_recvs, rx_empty, rx_trailing, tx_writes;
};

int    kumi_tcp_is_failed(struct kumi_tcp *s);
/* Marks pe's connection lost (bad frame, EOF without FIN, error) and the
 * job failed; prints why once. */
void   kumi_tcp_conn_lost(struct kumi_tcp *s, struct kumi_tcp_conn *c, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void   kumi_tcp_conn_init(struct kumi_tcp *s, struct kumi_tcp_conn *c, int pe);
int    kumi_tcp_sock_tune(int fd);
void   kumi_tcp_sock_local(int fd);
void   kumi_tcp_set_events(struct kumi_tcp *s, struct kumi_tcp_conn *c, int pollout);

/* tcp_conn.c */
int    kumi_tcp_setup_listen(struct kumi_tcp *s, const char *addr, char *err, size_t errlen);
/* Publishes my endpoint (and PE 0 the key) through the bootstrap and
 * learns everyone's. */
int    kumi_tcp_exchange(struct kumi_tcp *s);
int    kumi_tcp_start_connects(struct kumi_tcp *s);
void   kumi_tcp_accept(struct kumi_tcp *s);
void   kumi_tcp_pend_read(struct kumi_tcp *s, int slot);
void   kumi_tcp_pend_sweep(struct kumi_tcp *s, double now);
void   kumi_tcp_boot_tick(struct kumi_tcp *s, double now);
/* Prints the held lost-connection line (kumi_tcp_conn_lost) once
 * the launcher's verdict is in and says the loss was news, i.e. not a PE
 * leaving because one asked the job to end (kumi_global_exit); or when no
 * verdict came within KUMI_TCP_LOST_REPORT_S; or, final, at close. Called
 * by whoever serves the rendezvous. */
void   kumi_tcp_lost_report(struct kumi_tcp *s, double now, int final);
void   kumi_tcp_connecting_ready(struct kumi_tcp *s, struct kumi_tcp_conn *c);


#define KUMI_TCP_SPIN_POLLS 2000   /* blocking ops busy-poll this often before sleeping */

static inline struct kumi_tcp *kumi_tcp_of(struct kumi_tp *tp)
{
    return tp->priv;
}

static inline void kumi_tcp_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* "a caller polls": the progress thread stays parked. Any thread may bump
 * it (KUMI_INIT_THREADS); an increment lost between two only means the
 * count moved less, which the thread reads the same. */
static inline void kumi_tcp_polled(struct kumi_tcp *s)
{
    __atomic_store_n(&s->polls, __atomic_load_n(&s->polls, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

/* A store to my own memory through kumi: wake my sleeping waiters (another
 * thread of mine may wait for it), as shm rings for every store. */
static inline void kumi_tcp_ring_self(struct kumi_tp *tp)
{
    if (__atomic_load_n(&tp->doorbells, __ATOMIC_RELAXED))
        kumi_tp_doorbell_ring(tp->doorbell);
}

/* tcp.c: the engine lock (recursive per thread), open/connect/close */
int kumi_tcp_trylock(struct kumi_tcp *s);
void kumi_tcp_lock(struct kumi_tcp *s);
void kumi_tcp_unlock(struct kumi_tcp *s);
void kumi_tcp_conn_close(struct kumi_tcp *s, struct kumi_tcp_conn *c);
int kumi_tcp_open(struct kumi_tp *tp, const struct kumi_tp_params *p);
int kumi_tcp_connect(struct kumi_tp *tp);
void kumi_tcp_stop_thread(struct kumi_tcp *s);
int kumi_tcp_exit_job(struct kumi_tp *tp, int status);
void kumi_tcp_close(struct kumi_tp *tp);

/* tcp_tx.c: the send side and requests */
int    kumi_tcp_flush(struct kumi_tcp *s, struct kumi_tcp_conn *c);
int    kumi_tcp_tx_append(struct kumi_tcp_conn *c, const void *p, size_t n);
int kumi_tcp_tx_hdr(struct kumi_tcp *s, struct kumi_tcp_conn *c, struct kumi_tcp_hdr *h);
void kumi_tcp_flush_dirty(struct kumi_tcp *s);
int kumi_tcp_tx_direct(struct kumi_tcp *s, struct kumi_tcp_conn *c,
                       struct kumi_tcp_hdr *h, const void *pre, size_t prelen,
                       const void *data, size_t len);
int kumi_tcp_credit(struct kumi_tcp *s, struct kumi_tcp_conn *c);
int kumi_tcp_await(struct kumi_tcp *s, volatile uint8_t *done, unsigned spins);
int kumi_tcp_tag_get(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned *tag);
void kumi_tcp_tag_put(struct kumi_tcp_conn *c, unsigned tag);
int kumi_tcp_wait_req(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned tag);

/* tcp_rx.c: the receive side, progress, the progress thread */
int    kumi_tcp_progress_locked(struct kumi_tcp *s, int timeout_ms);
int kumi_tcp_on_frame(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h,
                      const void *payload, void *arg);
void *kumi_tcp_on_place(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h,
                        const void *hdr, void *arg);
int kumi_tcp_progress_direct(struct kumi_tcp *s);
void kumi_tcp_futex_wake(uint32_t *w);
int kumi_tcp_boot_poll(struct kumi_tcp *s);
void *kumi_tcp_thread(void *arg);

/* tcp_ops.c: the operations and the ops table */
extern const struct kumi_tp_ops kumi_tp_tcp_ops;
int kumi_tcp_put(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                 const void *src, size_t n);
int kumi_tcp_fence(struct kumi_tp *tp);

#endif /* KUMI_TCP_INT_H */
