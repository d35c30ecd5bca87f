/*
 * transport.h -- the seam between kumi's runtime and its networks.
 *
 * Every transport (shm/, tcp/, ucx/, and any added later:
 * docs/transports.md) fills one struct kumi_tp_ops.
 * Collectives, rings and the DSM use only this table plus the runtime, so
 * they run unchanged on every transport. A transport knows nothing of the
 * layers above it.
 *
 * Addresses are (segment, offset) pairs: KUMI_SEG_LLCM is the peer's
 * low-latency common memory, KUMI_SEG_HEAP its symmetric heap,
 * KUMI_SEG_DATA its symmetric static data (the program's .data and .bss,
 * size 0 unless the runtime passes a range in kumi_tp_params). Callers
 * (the runtime's public wrappers) have already validated PE numbers, ranges,
 * lengths and alignment; transports may assume valid arguments. Data that
 * arrives from a wire (tcp) is validated again by the receiver.
 *
 * Ordering contract: operations from one PE to one peer are delivered in
 * issue order (a put followed by a kick to the same PE: the kick is seen
 * only after the data). fence() orders; quiet() completes.
 */
#ifndef KUMI_TRANSPORT_H
#define KUMI_TRANSPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kumi.h"

/* The numbers travel on the tcp wire (frame header's seg): append only. */
enum kumi_seg { KUMI_SEG_LLCM = 0, KUMI_SEG_HEAP = 1, KUMI_SEG_DATA = 2, KUMI_SEG_COUNT };

/* The numbers travel on the tcp wire (frame header's op): append only. */
enum kumi_amo {
    KUMI_AMO_ADD,        /* *dst += operand                       */
    KUMI_AMO_FETCH_ADD,  /* old = *dst; *dst += operand           */
    KUMI_AMO_SWAP,       /* old = *dst; *dst = operand            */
    KUMI_AMO_CSWAP,      /* old = *dst; if old == compare: = op.  */
    KUMI_AMO_AND,        /* *dst &= operand                       */
    KUMI_AMO_OR,         /* *dst |= operand                       */
    KUMI_AMO_XOR,        /* *dst ^= operand                       */
    KUMI_AMO_FETCH_AND,  /* old = *dst; *dst &= operand           */
    KUMI_AMO_FETCH_OR,   /* old = *dst; *dst |= operand           */
    KUMI_AMO_FETCH_XOR,  /* old = *dst; *dst ^= operand           */
    KUMI_AMO_FETCH,      /* old = *dst (atomic load; no operand)  */
    KUMI_AMO_SET,        /* *dst = operand (atomic store)         */
    KUMI_AMO_COUNT
};

/* Does op return the old value? The others (ADD, AND, OR, XOR, SET) need
 * no reply from a remote target. */
static inline int kumi_tp_amo_fetches(enum kumi_amo op)
{
    return op != KUMI_AMO_ADD && op != KUMI_AMO_AND && op != KUMI_AMO_OR && op != KUMI_AMO_XOR
           && op != KUMI_AMO_SET;
}

struct kumi_tp;

/* Active-message handler: runs inside progress() on the target with the
 * sender's PE and payload. It must not block or send more than a queue's
 * worth of replies; the payload is valid only during the call. */
typedef void (*kumi_tp_am_fn)(struct kumi_tp *tp, int src_pe, const void *payload,
                              size_t len, void *arg);

#define KUMI_TP_AM_MAX_HANDLERS 32
#define KUMI_TP_AM_MAX_PAYLOAD  4096

/* Long active messages (the optional op am_send_long): a small header and
 * a payload the target places itself. place() runs once the header has
 * arrived, before any payload byte, and returns where the len payload
 * bytes go (NULL: the message is malformed, the connection fails); done()
 * runs once they have landed there. Both run inside progress like any
 * handler, in order with the pair's other active messages, and must not
 * block. */
typedef void *(*kumi_tp_am_place_fn)(struct kumi_tp *tp, int src_pe, const void *hdr,
                                     size_t hlen, size_t len, void *arg);
typedef void (*kumi_tp_am_long_fn)(struct kumi_tp *tp, int src_pe, const void *hdr,
                                   size_t hlen, void *dst, size_t len, void *arg);
#define KUMI_TP_AM_LONG_HDR     64           /* header bytes of a long AM     */
#define KUMI_TP_AM_LONG_MAX     (512u << 10) /* payload bytes of a long AM    */

/* The bootstrap (runtime/boot.h) as a transport sees it: who shares my
 * host, and the exchange through which PEs meet. fence and allgather are
 * collective: every PE calls them, in the same order. Keys are short
 * printable strings ("tcp.ep"). Filled by the runtime; valid from open to
 * close. */
struct kumi_tp_boot {
    const char *name;            /* "kumirun", "pmix", "pmi2", "singleton" */
    int         nodes;           /* hosts the job spans                    */
    const int  *node_of;         /* per PE: its node, 0..nodes-1           */
    int         local_rank, local_size;   /* among the PEs of my node      */
    const char *job_id;          /* unique among this host's jobs          */
    /* numeric address of my host that the launcher chose (kumirun
     * --hosts, KUMI_TCP_ADDR), or NULL: the transport picks one */
    const char *host_addr;
    int  (*put)(const struct kumi_tp_boot *b, const char *key, const void *val, size_t len);
    int  (*fence)(const struct kumi_tp_boot *b);
    /* KUMI_ERR_INVALID when pe published no such key */
    int  (*get)(const struct kumi_tp_boot *b, int pe, const char *key, void *val, size_t cap,
                size_t *len);
    /* every PE's len bytes of mine into all (size * len), in rank order */
    int  (*allgather)(const struct kumi_tp_boot *b, const void *mine, void *all, size_t len);
    /* The launcher's channel (kumirun's rendezvous: heartbeats, its word
     * that the job fails) wants serving every KUMI_TP_BOOT_POLL_S while
     * the job runs. A transport with a thread of its own calls this from
     * it and sets tp->serves_boot in open; otherwise the bootstrap runs a
     * thread for it. Nonzero once the job failed (already recorded in
     * *failed). Never blocks; safe from any one thread at a time. */
    int  (*poll)(const struct kumi_tp_boot *b, double now);
    void *ctx;                   /* the runtime's                          */
};
#define KUMI_TP_BOOT_POLL_S 0.01

/* Everything a transport needs to open; filled by the runtime. */
struct kumi_tp_params {
    int         rank, size;
    const char *job_id;          /* names job-private resources            */
    size_t      llcm_size;       /* bytes of LLCM per PE                   */
    size_t      heap_size;       /* bytes of symmetric heap per PE         */
    size_t      heap_align;      /* heap base address alignment (1 GiB)    */
    /* KUMI_SEG_DATA: the program's static data, page-aligned, the same
     * size on every PE (data_size 0: no such segment). A transport that
     * maps peers (shm) moves the range into memory its peers can map,
     * keeping its address and contents; it is called before any other
     * thread of kumi exists. Others use the range as it is. */
    void       *data_base;
    size_t      data_size;
    double      connect_timeout; /* seconds to wait for peers at start-up  */
    /* The job's failure word and status (the launcher's control segment,
     * or the runtime's own pair when there is none): a transport that
     * detects a failure itself (tcp: a lost connection, a bad frame)
     * stores 1 + PE and a status here, first writer wins (kumi_tp_fail).
     * The one failure flag: *failed nonzero once the job fails. Never NULL
     * when the runtime opens a transport. */
    volatile uint32_t *failed;
    volatile int32_t  *fail_status;
    /* How PEs meet: the exchange, the node map. A transport never reads
     * the environment itself. */
    const struct kumi_tp_boot *boot;
    /* 1 (KUMI_INIT_THREADS): several threads of this PE may call kick,
     * put, get, atomic, am_send, fence, quiet and progress at once; the
     * transport locks what they share, and a thread that waits for a
     * reply or for room holds no lock another needs; settle() is ignored
     * (other threads may have issued operations during the barrier).
     * 0: one thread at a time (plus the transport's own threads), nothing
     * extra locked. open, connect and close are single-threaded always. */
    int         threads;
};

/* The value of *failed when the launcher, not a PE, ends the job (a
 * signal, the timeout, a lost rendezvous); otherwise *failed is 1 + PE.
 * The launcher's control segment (kumi_ctl.failed) uses the same value. */
#define KUMI_TP_FAIL_LAUNCHER 0xffffffffu
/* *failed is KUMI_TP_FAIL_EXIT | (1 + PE) when PE asked the whole job to
 * end (kumi_global_exit), with the exit status it asked for: not a
 * failure, and not to be reported as one. */
#define KUMI_TP_FAIL_EXIT 0x80000000u
static inline int kumi_tp_fail_is_exit(uint32_t failed)
{
    return failed != KUMI_TP_FAIL_LAUNCHER && (failed & KUMI_TP_FAIL_EXIT) != 0;
}

struct kumi_tp_ops {
    size_t      size;            /* sizeof(struct kumi_tp_ops), for growth  */
    const char *name;

    int  (*open)(struct kumi_tp *tp, const struct kumi_tp_params *params);
    /* called after every PE returned from open: peers are reachable */
    int  (*connect)(struct kumi_tp *tp);
    void (*close)(struct kumi_tp *tp);

    /* AOTF send: len in {1,2,4,8}, llcm_off aligned to len */
    int  (*kick)(struct kumi_tp *tp, int pe, size_t llcm_off, uint64_t val, size_t len);
    int  (*put)(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                const void *src, size_t n);
    int  (*get)(struct kumi_tp *tp, void *dst, int pe, enum kumi_seg seg, size_t off,
                size_t n);
    /* width 4 or 8; off aligned to width; *old set for fetching ops */
    int  (*atomic)(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                   enum kumi_amo op, size_t width, uint64_t operand, uint64_t compare,
                   uint64_t *old);
    int  (*am_send)(struct kumi_tp *tp, int pe, unsigned handler, const void *payload,
                    size_t len);
    int  (*fence)(struct kumi_tp *tp);
    int  (*quiet)(struct kumi_tp *tp);
    /* serve incoming active messages; returns how many were handled (>= 0)
     * or a negative status */
    int  (*progress)(struct kumi_tp *tp);
    /* load/store pointer to pe's memory, or NULL if not mapped here */
    void *(*peer_ptr)(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off);
    /* optional (NULL): the runtime's waiter is about to sleep on its
     * doorbell (sleeping 1) or is back (0), so a transport with a progress
     * thread knows nobody else polls meanwhile */
    void (*idle)(struct kumi_tp *tp, int sleeping);
    /* optional: a barrier just completed, so every operation issued since
     * the quiet at its start was one of its own protocol messages, each
     * consumed by its target before that target could leave: a transport
     * that tracks completion for quiet() may forget them (tcp's quiet
     * otherwise pays a round trip per barrier partner, every barrier) */
    void (*settle)(struct kumi_tp *tp);
    /* optional: this PE ends the whole job (kumi_global_exit, after the
     * runtime recorded it in *failed): tell the launcher over the
     * transport's own channel (tcp: the rendezvous, the only way from a PE
     * on another host), wait (bounded) until it has heard, and leave the
     * peers without alarming them. Returns the job's exit status as the
     * launcher has it (another PE's request may have come first), or
     * status. Called once; close may follow. */
    int  (*exit_job)(struct kumi_tp *tp, int status);
    /* optional (NULL: join the parts and call am_send): am_send of a
     * header and a payload (hlen + len <= KUMI_TP_AM_MAX_PAYLOAD) that the
     * handler sees as one, so a layer that frames data (msg/) copies
     * neither into a buffer of its own first */
    int  (*am_sendv)(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                     size_t hlen, const void *payload, size_t len);
    /* optional (NULL: not offered; callers then send pieces of
     * am_sendv): a long active message to another PE (hlen <=
     * KUMI_TP_AM_LONG_HDR, len <= KUMI_TP_AM_LONG_MAX), its payload taken
     * from the caller's buffer before the call returns and placed by the
     * handler's place()/done() (kumi_tp_am_register_long) at the target
     * (tcp: written from and received into the user's buffers, no copy of
     * its own). May serve incoming traffic while it waits for room;
     * KUMI_ERR_UNSUPPORTED from inside a handler. */
    int  (*am_send_long)(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                         size_t hlen, const void *payload, size_t len);

    /* The registration (transports.h lists the built-in tables): with
     * KUMI_TRANSPORT=auto the runtime opens the available transport of
     * highest priority. */
    int      priority;
    unsigned flags;              /* KUMI_TP_F_*                             */
    /* optional (NULL: always): can this job use the transport? 0, or
     * KUMI_ERR_UNSUPPORTED with the reason in why (one phrase) */
    int  (*available)(const struct kumi_tp_params *p, char *why, size_t len);
    /* optional (NULL: not offered, and never stubbed): progress() for the
     * active messages from pe alone, in order, handlers run as progress()
     * runs them, at least the first waiting one (shm: only that one);
     * returns how many were handled (>= 0) or a negative status. For a
     * waiter that expects its next message from one PE
     * (msg/'s receive from a given source): polling one queue notices a
     * message sooner than a pass over every source's. The caller still
     * calls progress() regularly for everything else (the runtime's waits
     * do every progress_mask + 1 iterations). */
    int  (*progress_from)(struct kumi_tp *tp, int pe);
};

/* reaches only PEs of one host (a launcher placing PEs on several hosts
 * must not offer it) */
#define KUMI_TP_F_ONE_NODE 1u

/* The state every transport shares; a transport's private state follows
 * through priv. */
struct kumi_tp {
    const struct kumi_tp_ops *ops;
    int    rank, size;
    size_t seg_size[KUMI_SEG_COUNT];
    void  *local[KUMI_SEG_COUNT];             /* my own LLCM, heap, data    */
    volatile uint32_t *failed;                /* writable pair, see params   */
    volatile int32_t  *fail_status;
    /* waits call progress() when (iteration & progress_mask) == 0: shm
     * delivers by stores and polls rarely (63), tcp every time (0) */
    unsigned progress_mask;
    /* set by a transport whose puts, kicks and atomics are stores to mapped
     * memory, each kick a release store (shm): whoever sees a kick, directly
     * or through a chain of kicks, also sees every put its sender issued
     * before it, so a barrier needs no quiet() first (on x86 quiet is a
     * full fence, ~15% of a 2-PE barrier) */
    int    kicks_publish;
    struct {
        kumi_tp_am_fn       fn;
        void               *arg;
        kumi_tp_am_place_fn place;   /* long AMs (kumi_tp_am_register_long) */
        kumi_tp_am_long_fn  done;
        void               *long_arg;
    } am[KUMI_TP_AM_MAX_HANDLERS];
    /* set by the runtime when waiters may block (oversubscribed): writers
     * then ring the target's doorbell after each store */
    int    doorbells;
    int    finalized;       /* set by kumi_finalize before close(): clean end */
    int    serves_boot;     /* set by open: calls params->boot->poll itself */
    struct kumi_tp_doorbell *doorbell;        /* mine                       */
    void  *priv;
};

/* ------------------------------------------------------- the calls
 * Every op through one wrapper; tp->ops is a registered table (no NULL
 * op: kumi_tp_builtin). */
static inline int kumi_tp_open(struct kumi_tp *tp, const struct kumi_tp_params *p)
{
    return tp->ops->open(tp, p);
}
static inline int kumi_tp_connect(struct kumi_tp *tp)
{
    return tp->ops->connect(tp);
}
static inline void kumi_tp_close(struct kumi_tp *tp)
{
    tp->ops->close(tp);
}
static inline int kumi_tp_kick(struct kumi_tp *tp, int pe, size_t llcm_off, uint64_t val,
                               size_t len)
{
    return tp->ops->kick(tp, pe, llcm_off, val, len);
}
static inline int kumi_tp_put(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                              const void *src, size_t n)
{
    return tp->ops->put(tp, pe, seg, off, src, n);
}
static inline int kumi_tp_get(struct kumi_tp *tp, void *dst, int pe, enum kumi_seg seg,
                              size_t off, size_t n)
{
    return tp->ops->get(tp, dst, pe, seg, off, n);
}
static inline int kumi_tp_atomic(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                                 enum kumi_amo op, size_t width, uint64_t operand,
                                 uint64_t compare, uint64_t *old)
{
    return tp->ops->atomic(tp, pe, seg, off, op, width, operand, compare, old);
}
static inline int kumi_tp_am_send(struct kumi_tp *tp, int pe, unsigned handler,
                                  const void *payload, size_t len)
{
    return tp->ops->am_send(tp, pe, handler, payload, len);
}
static inline int kumi_tp_am_sendv(struct kumi_tp *tp, int pe, unsigned handler,
                                   const void *hdr, size_t hlen, const void *payload,
                                   size_t len)
{
    return tp->ops->am_sendv(tp, pe, handler, hdr, hlen, payload, len);
}
/* Does the transport offer long active messages (am_send_long)? */
static inline int kumi_tp_has_am_long(const struct kumi_tp *tp)
{
    return tp->ops->am_send_long != NULL;
}
static inline int kumi_tp_am_send_long(struct kumi_tp *tp, int pe, unsigned handler,
                                       const void *hdr, size_t hlen, const void *payload,
                                       size_t len)
{
    return tp->ops->am_send_long(tp, pe, handler, hdr, hlen, payload, len);
}
static inline int kumi_tp_fence(struct kumi_tp *tp)
{
    return tp->ops->fence(tp);
}
static inline int kumi_tp_quiet(struct kumi_tp *tp)
{
    return tp->ops->quiet(tp);
}
static inline int kumi_tp_progress(struct kumi_tp *tp)
{
    return tp->ops->progress(tp);
}
/* Does the transport offer progress_from? */
static inline int kumi_tp_has_progress_from(const struct kumi_tp *tp)
{
    return tp->ops->progress_from != NULL;
}
static inline int kumi_tp_progress_from(struct kumi_tp *tp, int pe)
{
    return tp->ops->progress_from(tp, pe);
}
static inline void *kumi_tp_peer_ptr(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off)
{
    return tp->ops->peer_ptr(tp, pe, seg, off);
}
static inline void kumi_tp_idle(struct kumi_tp *tp, int sleeping)
{
    tp->ops->idle(tp, sleeping);
}
static inline void kumi_tp_settle(struct kumi_tp *tp)
{
    tp->ops->settle(tp);
}
static inline int kumi_tp_exit_job(struct kumi_tp *tp, int status)
{
    return tp->ops->exit_job(tp, status);
}

/* The transports built into this library (transports.h), in the order
 * KUMI_TRANSPORT lists them; NULL past the end. These are the registered
 * tables: each op a transport left NULL is a stub (transport.c), so every
 * op may be called, through the wrappers below. */
const struct kumi_tp_ops *kumi_tp_builtin(int i);
/* Copies the table given into o (an older, shorter table too), with each
 * NULL op replaced by its stub: what the registry does for every built-in
 * table, and plugin.c for a plugin's once it is loaded. */
void kumi_tp_fill(struct kumi_tp_ops *o, const struct kumi_tp_ops *given);
/* The built-in transport called name; NULL when there is none. */
const struct kumi_tp_ops *kumi_tp_lookup(const char *name);
/* The available transport of highest priority for p (KUMI_TRANSPORT=auto);
 * NULL when none is, with each one's reason in why. */
const struct kumi_tp_ops *kumi_tp_pick(const struct kumi_tp_params *p, char *why, size_t len);
/* Whether ops can run p's job: KUMI_OK, or KUMI_ERR_UNSUPPORTED with the
 * reason in why. */
int kumi_tp_available(const struct kumi_tp_ops *ops, const struct kumi_tp_params *p, char *why,
                      size_t len);

/* Executes op on the 4- or 8-byte word at addr with the CPU's atomics
 * (sequentially consistent) and returns the old value (0 for the ops
 * kumi_tp_amo_fetches says do not fetch): how
 * every transport applies an atomic to memory it can reach, so remote
 * atomics stay atomic with respect to the owner's own. */
uint64_t kumi_tp_amo_apply(void *addr, enum kumi_amo op, size_t width, uint64_t operand,
                           uint64_t compare);

/* Shared stub for operations a transport does not provide. */
int kumi_tp_unsupported(void);

/* Registers an active-message handler (id < KUMI_TP_AM_MAX_HANDLERS). */
int kumi_tp_am_register(struct kumi_tp *tp, unsigned id, kumi_tp_am_fn fn, void *arg);
/* Registers the long-AM side of handler id (place and done both set). */
int kumi_tp_am_register_long(struct kumi_tp *tp, unsigned id, kumi_tp_am_place_fn place,
                             kumi_tp_am_long_fn done, void *arg);

/* Blocking support for waiters (wait policy "block"): one doorbell per PE,
 * kept by the transport where its peers can ring it (the shm segment
 * header; tcp rings locally when it delivers). A waiter that decided to
 * sleep registers in waiters, rechecks its condition, then sleeps on seq
 * with a timeout; writers ring the target after their store when
 * tp->doorbells is set, so the spinning fast path pays nothing. */
struct kumi_tp_doorbell {
    uint32_t seq;        /* bumped on every ring                  */
    uint32_t waiters;    /* threads asleep (or about to) on seq   */
};

/* Records that the job failed: failed is 1 + the PE at fault (or the
 * launcher's code), status the exit status to report (or
 * KUMI_TP_STATUS_UNKNOWN). The first failure recorded wins, with its
 * status, except that a verdict with a status replaces one without. The
 * writers of one process take turns, so a failure that loses the race
 * never leaves its status behind the winner's flag. */
void kumi_tp_fail(struct kumi_tp *tp, uint32_t failed, int32_t status);
/* status of a failure seen on a wire (a connection lost) before kumirun's
 * verdict: kumi_tp_fail lets a later verdict with a status replace it */
#define KUMI_TP_STATUS_UNKNOWN INT32_MIN

/* ------------------------------------------------ clock and futexes */
/* The one clock of kumi's deadlines, timeouts and kumi_wtime:
 * CLOCK_MONOTONIC, in seconds. */
double kumi_tp_now(void);
/* Sleeps while *w == v, for timeout_ns at most (or until woken).
 * shared: the word lives in memory several processes map (a doorbell);
 * else the cheaper process-private futex. */
void kumi_tp_futex_wait(uint32_t *w, uint32_t v, long timeout_ns, int shared);
/* Wakes every sleeper on w (whoever changed *w first). */
void kumi_tp_futex_wake(uint32_t *w, int shared);

/* Wakes every sleeper of db if there is one (full fence first). */
void kumi_tp_doorbell_ring(struct kumi_tp_doorbell *db);
/* Sleeps until db->seq differs from seq or timeout_ns passes. */
void kumi_tp_doorbell_sleep(struct kumi_tp_doorbell *db, uint32_t seq, long timeout_ns);

/* What every transport's open copies from p into tp: priv, rank, size,
 * the failure flag and status, the segments' sizes and the static data's
 * place (the LLCM's and heap's places are the transport's own). */
void kumi_tp_take_params(struct kumi_tp *tp, const struct kumi_tp_params *p, void *priv);

/* Private anonymous memory for a transport whose peers reach its LLCM and
 * heap through the network (tcp, ucx): the LLCM, rounded up to pages,
 * directly below the heap, which starts at a multiple of p->heap_align;
 * sets tp->local[] for both and returns the mapping for munmap. KUMI_OK,
 * or KUMI_ERR_NOMEM logged as who's. */
int kumi_tp_map_private(struct kumi_tp *tp, const struct kumi_tp_params *p, const char *who,
                        void **map, size_t *map_len);

/* ------------------------------------------------------------ messages */
/* A transport reports through the runtime's log, never straight to
 * stderr: kumi_tp_log(level, "tcp", ...) comes out as the runtime's
 * "kumi[rank]: tcp: message" line, filtered by KUMI_LOG. The runtime
 * installs its function (kumi_tp_set_log) from a constructor; without
 * one the line goes to stderr as "kumi: tcp: message". Levels are the
 * runtime's KUMI_LOG_* (runtime/config.h). A transport does not name its
 * caller (kumi_init, a wait): it may be called from anywhere. */
enum { KUMI_TP_LOG_ERROR, KUMI_TP_LOG_WARN, KUMI_TP_LOG_INFO, KUMI_TP_LOG_DEBUG };
typedef void kumi_tp_log_fn(int level, const char *who, const char *fmt, va_list ap);
void kumi_tp_set_log(kumi_tp_log_fn *fn);
void kumi_tp_log(int level, const char *who, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif /* KUMI_TRANSPORT_H */
