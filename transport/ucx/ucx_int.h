/*
 * ucx_int.h -- state shared by the ucx transport's files: ucx.c (the
 * operations, progress, the active-message queue) and ucx_conn.c (memory,
 * the UCP context and worker, the exchange of worker addresses and rkeys
 * through the bootstrap, endpoints, the goodbye). See README.md.
 */
#ifndef KUMI_UCX_INT_H
#define KUMI_UCX_INT_H

#include <pthread.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "../transport.h"

/* The progress thread (README: progress): a caller that polled twice since
 * the thread last looked, the last time within ACTIVE_NS, is taken to be
 * inside a kumi wait (it polls every few us there), and the thread naps
 * while one is: NAP_NS first, each further nap twice the last, up to
 * NAP_MAX_NS (each wake costs a spinning caller on the same core ~20 us of
 * this VM's CPU); a PE that stops polling is served by the thread within
 * about NAP_NS after a short wait, NAP_MAX_NS after a long one, and at
 * once (a wake from the worker's fd) after that. */
#define KUMI_UCX_ACTIVE_NS 50000L
#ifndef KUMI_UCX_NAP_NS
#define KUMI_UCX_NAP_NS    100000L
#endif
#ifndef KUMI_UCX_NAP_MAX_NS
#define KUMI_UCX_NAP_MAX_NS 400000L
#endif
/* ... and while nothing else wanted the caller's CPU during the last naps
 * (its run-queue wait, /proc schedstat, grew by less than QUIET_WAIT_NS in
 * each), on up to NAP_QUIET_NS: a caller that keeps its CPU to itself needs no
 * backup, and each wake cost it ~15-20 us (README: Numbers, 2026-11-27
 * 17:50); a caller that has to share its CPU gets the 400 us naps back at
 * the next wake, whose boost keeps it on the CPU (the same Numbers) */
#ifndef KUMI_UCX_NAP_QUIET_NS
#define KUMI_UCX_NAP_QUIET_NS 1600000L
#endif
#define KUMI_UCX_QUIET_WAIT_NS 50000ull
/* ... and only after this many quiet 400 us naps in a row (4 ms) */
#define KUMI_UCX_CALM_NAPS 10u

/* ThreadSanitizer cannot see the atomics libucp applies for a peer (a
 * remote CSWAP or SWAP on this PE's memory, ATOMIC_MODE=cpu, inside
 * ucp_worker_progress): libucx is not built with it. So a lock that a
 * peer releases that way orders nothing in TSan's eyes, and a message
 * applied by the progress thread before the release races, for TSan, with
 * this PE's own access after it took the lock (tests/pe/atomics.c). What
 * stands in for those atomics: every thread releases `tsan_hb` before it
 * drives the worker, and this PE's own put, get or atomic on its own
 * memory acquires it. The same blindness for kicks of one byte into a word
 * that the waiter loads whole (the a2a and tree barriers' arrival words:
 * the release store and the acquire load are at different addresses, so
 * TSan pairs neither): a put the progress thread applied before such a
 * kick raced, for TSan, with the waiter's read after the barrier
 * (pe.put_get.ucxsm, 3 runs of 4 with KUMI_BARRIER=a2a). So every applied
 * message releases `tsan_hb` too, and every caller's progress acquires
 * it after driving and draining (a wait polls progress before each test),
 * and so does settle() at a barrier's end (its wait may have found the
 * kick on its first test, before any progress). Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define KUMI_UCX_TSAN_RELEASE(s) __tsan_release(&(s)->tsan_hb)
#define KUMI_UCX_TSAN_ACQUIRE(s) __tsan_acquire(&(s)->tsan_hb)
#else
#define KUMI_UCX_TSAN_RELEASE(s) ((void)(s))
#define KUMI_UCX_TSAN_ACQUIRE(s) ((void)(s))
#endif

/* UCP active-message ids (ucp_worker_set_am_recv_handler): everything
 * kumi sends as a message travels under one id, its kind in the header,
 * so kicks, kumi AMs and FIN share one ordered stream per endpoint */
#define KUMI_UCX_AM_ID   7

/* close: how long to wait for every peer's FIN; kumi_global_exit: how long
 * to push ours out */
#define KUMI_UCX_BYE_S   2.0
#define KUMI_UCX_EXIT_S  0.2

/* UCX's tcp fragments (TX_SEG_SIZE) unless the user chose: its own receive
 * segment's default (ucx_conn.c, kumi_ucx_tcp_seg) */
#define KUMI_UCX_TCP_SEG "64k"

/* puts up to this size travel as messages, in order with kicks and AMs
 * (no flush before the kick that follows: README, ordering) */
#define KUMI_UCX_PUT_AM_MAX (128u << 10)

enum kumi_ucx_kind {
    KUMI_UCX_KICK = 1,     /* val (width bytes) -> LLCM[off]                 */
    KUMI_UCX_AM,           /* kumi AM: handler, payload                      */
    KUMI_UCX_FIN,          /* orderly end: the sender closes                 */
    KUMI_UCX_PUT,          /* payload -> segment handler at off; val != 0:
                              then answer PROBE_ACK val, as a PROBE          */
    KUMI_UCX_PROBE,        /* reply PROBE_ACK with val once everything
                              before it is applied                           */
    KUMI_UCX_PROBE_ACK,    /* val: the probe answered                        */
    KUMI_UCX_AMO,          /* non-fetching atomic: handler = seg | op << 8,
                              width, off, operand val; applied at the target
                              with CPU atomics                               */
};

/* The UCP AM header of every message (the payload, if any, is the UCP
 * AM's data). Validated by the receiver like a tcp frame. */
struct kumi_ucx_hdr {
    uint32_t src;          /* sender's PE                                */
    uint8_t  kind;         /* enum kumi_ucx_kind                         */
    uint8_t  width;        /* KICK: 1, 2, 4, 8                           */
    uint16_t handler;      /* AM: kumi handler id; PUT: the segment      */
    uint64_t off;          /* KICK: LLCM offset; PUT: segment offset     */
    uint64_t val;          /* KICK: value; PROBE, PROBE_ACK: sequence    */
};

struct kumi_ucx_peer {
    ucp_ep_h   ep;
    ucp_rkey_h rkey[KUMI_SEG_COUNT];
    uint64_t   base[KUMI_SEG_COUNT];   /* the peer's address of each segment */
    /* puts and atomics issued to it since its last flush: a message (kick,
     * AM) or get that follows must see them applied (README: ordering) */
    uint32_t   rma_pending;
    /* messages issued to it (mseq), and of them puts and atomics (pseq),
     * counted after issue; *done: how many of each an answered probe
     * proved applied. quiet probes while mdone < mseq, an RMA while
     * pdone < pseq: a probe covers whatever any thread issued before it */
    uint64_t   mseq, mdone, pseq, pdone;
    uint64_t   probe_seq;              /* probes sent                         */
    /* A put that carries a probe (PUT with val != 0: the target answers
     * PROBE_ACK val once it applied the put; single-threaded jobs only):
     * the first small put to a peer after its messages were last proven
     * asks for it, so a quiet or get right after waits for that answer
     * instead of sending a probe of its own (README: what each op costs).
     * pp_seq: that probe, pp_mupto/pp_pupto: the counts it covers,
     * pp_asked: set once a put asked, cleared when a probe's wait proves
     * the peer */
    uint64_t   pp_seq, pp_mupto, pp_pupto, pp_lupto;
    uint32_t   pp_asked;
    /* of pseq, the non-fetching atomics on its LLCM (a barrier's own, as
     * mcast's ADDs: consumed by the waits of their target, as kicks are),
     * and how many of them pdone covers: settle() counts the barrier's
     * atomics as done when they are all that is unproven */
    uint64_t   lseq, ldone;
    uint64_t   probe_ack;              /* highest probe it answered           */
    uint32_t   fin_rx;                 /* it said goodbye: its end is orderly */
    uint32_t   lost;                   /* its endpoint failed                 */
    struct kumi_ucx *s;
    int        pe;
};

struct kumi_ucx {
    struct kumi_tp       *tp;
    int                   rank, size, threads;
    double                timeout;
    const struct kumi_tp_boot *boot;
    void                 *map;         /* [LLCM][pad][heap], private anonymous */
    size_t                map_len;
    ucp_context_h         ctx;
    ucp_worker_h          worker;
    ucp_mem_h             mem[KUMI_SEG_COUNT];
    struct kumi_ucx_peer *peer;        /* size entries; mine unused           */
    /* received messages, applied in arrival order by progress (never
     * inside UCP's callback, so handlers may send and wait) */
    pthread_mutex_t       qlock;
    uint8_t              *q;
    size_t                qlen, qcap;
    uint32_t              draining;    /* a thread applies the queue          */
    uint32_t              closing;     /* endpoint errors are expected now    */
    uint32_t              reported;    /* the first lost peer was printed     */
    struct kumi_tp_doorbell bell;
    /* the progress thread: serves the worker while every caller sleeps on
     * its doorbell or computes (README: progress) */
    pthread_t             thread;
    int                   thread_on;
    int                   efd;         /* the worker's wakeup fd             */
    int                   cfd;         /* eventfd: wakes the thread's naps (idle, stop) */
    int                   caller_tid;  /* kumi_init's thread (the naps' schedstat) */
    uint32_t              stop;
    uint32_t              sleeping;    /* callers asleep on their doorbell   */
    uint32_t              polls;       /* bumped by every caller's progress   */
    uint64_t              poll_ns;     /* when a caller last polled (kumi_ucx_ns) */
    uint32_t              driving;     /* a thread is in ucp_worker_progress */
    uint32_t              calling;     /* callers inside another UCP call (kumi_ucx_in) */
    uint32_t              rma_any;     /* an RMA put since quiet's last flush */
    uint32_t              direct;      /* messages applied in UCP's callback  */
    uint32_t              tsan_hb;     /* KUMI_UCX_TSAN_RELEASE's address    */
};

double kumi_ucx_now(void);
/* CLOCK_MONOTONIC in ns: every caller's progress stamps poll_ns with it (a
 * vDSO read, beside the epoll_wait of every ucp_worker_progress over tcp) */
uint64_t kumi_ucx_ns(void);
int    kumi_ucx_is_failed(struct kumi_ucx *s);
/* A caller's progress (every wait inside the transport too): counts in
 * `polls` and stamps `poll_ns`, drives the worker unless another thread is at it, and applies
 * what arrived; handlers run unless this thread is inside one. Returns
 * messages applied. */
int    kumi_ucx_progress_(struct kumi_ucx *s);
/* The progress thread's turn, which does not count as a caller's: drives
 * the worker until idle and arms it (*armed: its wakeup fd signals the
 * next event), holding `driving` throughout, so the thread never waits on
 * UCX's lock for a caller inside progress (a caller preempted there made
 * it spin for a whole time slice); then applies. Returns messages
 * applied, or -1 when a caller drives. */
int    kumi_ucx_serve(struct kumi_ucx *s, int *armed);
/* Around a caller's UCP call that takes the worker's lock (a spinlock,
 * UCS_THREAD_MODE_MULTI) and may hold it long: ucp_put_nbx of an RMA put
 * over UCX's tcp pushes every 8 KiB fragment it can from inside the call
 * (a millisecond for 1 MiB), a flush likewise. The progress thread
 * neither starts nor goes on driving while one is open (it naps): on the
 * caller's CPU (kumirun binds a PE's threads together) it would otherwise
 * spin on the lock its preempted caller holds for a whole time slice
 * (README: Numbers, 1 MiB). */
static inline void kumi_ucx_in(struct kumi_ucx *s)
{
    __atomic_add_fetch(&s->calling, 1, __ATOMIC_ACQ_REL);
}

static inline void kumi_ucx_out(struct kumi_ucx *s)
{
    __atomic_sub_fetch(&s->calling, 1, __ATOMIC_RELEASE);
}
/* Waits for req (NULL: done) with progress; KUMI_OK, or KUMI_ERR_PEER
 * once the request failed or the job did (the request is then left to
 * UCP, which frees it when it ends). */
int    kumi_ucx_wait(struct kumi_ucx *s, ucs_status_ptr_t req);
/* Same with a deadline (seconds, absolute): KUMI_ERR_TIMEOUT past it. */
int    kumi_ucx_wait_until(struct kumi_ucx *s, ucs_status_ptr_t req, double deadline);
/* UCP's AM callback: queues the message (ucx.c). */
ucs_status_t kumi_ucx_am_cb(void *arg, const void *header, size_t hlen, void *data,
                            size_t len, const ucp_am_recv_param_t *param);
/* Sends one message (ucx.c); FIN carries nothing. */
int    kumi_ucx_send(struct kumi_ucx *s, int pe, const struct kumi_ucx_hdr *h,
                     const void *a, size_t alen, const void *b, size_t blen);

/* Sends pe a probe and waits for its answer: every message sent to pe
 * before it has been applied (ucx.c). */
int    kumi_ucx_probe(struct kumi_ucx *s, int pe);

/* ucx_am.c */
/* Whether this thread runs a kumi AM handler now (the progress thread
 * runs them too): such a thread leaves the put-carried probes alone, which
 * only the PE's own thread keeps (no lock) */
int    kumi_ucx_in_handler(void);
int    kumi_ucx_enqueue(struct kumi_ucx *s, const struct kumi_ucx_hdr *h, const void *a,
                        size_t alen, const void *b, size_t blen);
void   kumi_ucx_store(void *p, unsigned width, uint64_t v);

/* A store to my own memory: wake my sleeping waiters, as tcp does. */
static inline void kumi_ucx_ring(struct kumi_tp *tp)
{
    if (__atomic_load_n(&tp->doorbells, __ATOMIC_RELAXED))
        kumi_tp_doorbell_ring(tp->doorbell);
}

/* ucx_conn.c */
int    kumi_ucx_thread_start(struct kumi_ucx *s);
void   kumi_ucx_thread_stop(struct kumi_ucx *s);
/* Cuts the thread's nap (or its wait on the worker) short: it looks again */
void   kumi_ucx_thread_wake(struct kumi_ucx *s);
int    kumi_ucx_setup(struct kumi_ucx *s, const struct kumi_tp_params *p);
int    kumi_ucx_exchange(struct kumi_ucx *s);
void   kumi_ucx_ep_err(void *arg, ucp_ep_h ep, ucs_status_t status);
void   kumi_ucx_teardown(struct kumi_ucx *s);

#endif /* KUMI_UCX_INT_H */
