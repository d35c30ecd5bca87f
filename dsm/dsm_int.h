/*
 * dsm_int.h -- state shared by dsm/dsm.c (region, allocation, API, inbox)
 * and dsm/protocol.c (the table-driven protocol engine).
 */
#ifndef KUMI_DSM_INT_H
#define KUMI_DSM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rt.h"
#include "check.h"
#include "protocol.h"

#define KUMI_DSM_MIN_BSHIFT 6     /* 64-byte blocks  */
#define KUMI_DSM_MAX_BSHIFT 12    /* 4096-byte blocks */
#define KUMI_DSM_BLOCK_MAX  (1u << KUMI_DSM_MAX_BSHIFT)
/* data bytes one message carries; larger blocks go as DATA_PART messages
 * followed by the protocol message with the last part */
#define KUMI_DSM_PART       2048u

/* Message types beyond the protocol's events (enum kumi_dsm_event). */
enum {
    KUMI_DSM_MSG_PART = 32,   /* a leading part of a block's data        */
    KUMI_DSM_MSG_NACK,        /* home: the address is not allocated      */
    KUMI_DSM_MSG_FREE,        /* a non-home PE frees an allocation       */
    KUMI_DSM_MSG_FREE_ACK,    /* the home noted it                       */
    KUMI_DSM_MSG_DIST_ADD,    /* a distributed allocation: note it, set up
                                 the directory of my part (to every PE)  */
    KUMI_DSM_MSG_DIST_FREE,   /* it is freed: settle my part, drop copies */
    KUMI_DSM_MSG_DIST_ACK,    /* either is done here                     */
    KUMI_DSM_MSG_SIZE,        /* kumi_dsm_realloc: the allocation's bytes? */
    KUMI_DSM_MSG_SIZE_ACK     /* the home's answer (data: uint64_t)      */
};

/* DIST_ADD's data: the allocation [off, off+len) (msg.off = off, msg.bshift
 * its block size) holding an object of nb blocks from off + lead (lead a
 * multiple of the block): part k homed at PE k (struct kumi_dsm_dist). */
struct kumi_dsm_dist_msg {
    uint64_t len, lead, nb;
    uint32_t zero;       /* kumi_dsm_calloc: each home zeroes its part */
    uint32_t pad;
};

/* An entry of the replicated table of distributed allocations: every PE
 * holds the same table (an allocation returns only after every PE noted
 * it), so any PE finds the home of any address without a message. */
struct kumi_dsm_dist {
    uint64_t off, len;
    uint64_t lead, nb;   /* the object: nb blocks from off + lead; part k
                            of P is its blocks [k*nb/P, (k+1)*nb/P), part 0
                            also the lead, part P-1 also what follows it */
    unsigned bshift;
};

/* Wire header of every DSM active message (data follows). */
struct kumi_dsm_msg {
    uint8_t  type;       /* event or KUMI_DSM_MSG_*                        */
    uint8_t  bshift;     /* block size log2 (0 in requests: home knows)    */
    uint8_t  need_done;  /* DATA_S/DATA_E/GRANT: the home waits for DONE   */
    uint8_t  fill;       /* DATA_S/DATA_E: data for the requester's miss;
                            2 in an assembled node: already in the copy   */
    int32_t  r;          /* the requester                                  */
    int32_t  acks;       /* DATA_E/GRANT: invalidation acks to expect;
                            requests: the requester's miss number (STALE)  */
    uint32_t len;        /* data bytes in this message                     */
    uint64_t off;        /* region offset: line (requests) or block        */
    uint32_t part_off;   /* MSG_PART: offset of this part in the block     */
    uint32_t pad2;
};
_Static_assert(sizeof(struct kumi_dsm_msg) == 32, "dsm header");
_Static_assert(sizeof(struct kumi_dsm_msg) + KUMI_DSM_PART <= KUMI_TP_AM_MAX_PAYLOAD,
               "a DSM message must fit one active message");

/* A received message waiting in the inbox or the home's deferred queue. */
struct kumi_dsm_node {
    struct kumi_dsm_node *next;
    int                   src;
    int                   parts;   /* messages it arrived in (a block's parts) */
    struct kumi_dsm_msg   msg;
    uint8_t               data[];
};

/* Directory entry, one per line of the region (only the entries of the
 * lines this PE homes are ever touched: the array is reserved, not
 * committed); the entry of a block's first line holds the block's state.
 * The sharer set follows. */
struct kumi_dsm_dir {
    uint8_t  state;      /* enum kumi_dsm_dstate                           */
    uint8_t  bshift;     /* block size log2 of the allocation (0: free)    */
    uint16_t pad;
    int32_t  owner;
    int32_t  pending;    /* requester of the transaction in flight         */
    uint32_t deferred;   /* requests waiting in the deferred queue         */
    uint64_t sharers[];  /* bit per PE                                     */
};

/* This PE's one outstanding miss. */
struct kumi_dsm_pending {
    int      active;
    int32_t  seq;           /* miss number, carried by the request       */
    uint64_t line;          /* region offset of the line that missed     */
    int      acks_need;     /* -1 until DATA_E / GRANT says              */
    int      acks_got;
    int      need_done;
    int      nack;          /* the home said: not allocated              */
    int      rfo;           /* a load sent as GETX (read for ownership):
                               completes as a clean-exclusive copy      */
    int      upg_rd;        /* an upgrade of a copy my own read brought  */
    int      from_i;        /* the line was I: its data may be copied in
                               by the message handler (kumi_dsm_am)      */
    volatile uint32_t done;
};

/* Hints: one byte per line beside the state byte, a cache's memory of its
 * own history; never seen by other PEs or by protocol.def's rows.
 *   KUMI_DSM_H_XCLEAN (low 4 bits: the block's bshift - 5, 0 = none):
 *     a clean-exclusive copy. The directory made me the block's owner (a
 *     GETX answered; no other PE holds a copy), but the state bytes say S:
 *     loads hit, and the first store takes the slow path and makes the
 *     block E locally, without a message (the "M" of MESI after its "E").
 *     For the protocol such a copy is E (cache_state_of maps it); a
 *     request that takes it away while it is still clean proves the
 *     prediction below wrong and clears KUMI_DSM_H_PR.
 *   KUMI_DSM_H_RD: my S copy came from my own read miss.
 *   KUMI_DSM_H_PR: an upgrade followed such a read miss on this block
 *     (migratory data: read, then written, by one PE after another), so
 *     my next load miss on it asks for the block exclusive (GETX): one
 *     transaction instead of a read miss and an upgrade.
 * kumi_dsm_pstate_sync clears XCLEAN and RD of every line whose state
 * changes; PR stays until a wrong prediction. */
#define KUMI_DSM_H_XCLEAN 0x0fu
#define KUMI_DSM_H_RD     0x10u
#define KUMI_DSM_H_PR     0x20u

struct kumi_dsm {
    int       up;            /* region reserved and handler registered   */
    int       closing;       /* kumi_finalize tore the DSM down           */
    volatile uint32_t free_acked;   /* my kumi_dsm_free at another home   */
    int       setup_rc;      /* why not, reported by the first DSM call  */
    char      setup_err[256];
    int       me, npes;
    uint8_t  *base;
    size_t    size, slice;   /* region bytes; bytes each PE allocates in  */
    size_t    state_bytes;
    size_t    dir_stride, dir_bytes;
    uint8_t  *dir;           /* my slice's directory entries              */
    unsigned  sharer_words;
    /* block-distributed allocations (sorted by off), and per slice how
     * many of them lie in it (0: the home is the slice's PE) */
    struct kumi_dsm_dist *dist;
    size_t    ndist, cap_dist;
    unsigned *dist_in_slice;
    uint64_t  dist_min;      /* KUMI_DSM_DIST_MIN (0: only _malloc_dist)  */
    unsigned  dist_bshift;   /* log2 KUMI_DSM_DIST_BLOCK                  */
    volatile uint32_t dist_acks;    /* DIST_ACKs for my DIST_ADD/_FREE    */
    volatile uint32_t size_acked;   /* MSG_SIZE_ACK arrived (size_answer) */
    uint64_t  size_answer;
    unsigned  size_bshift;
    /* inbox: handlers (any thread) append, the main thread drains */
    int                   lock;
    struct kumi_dsm_node *in_head, *in_tail;
    int                   draining;
    struct kumi_dsm_node *def_head, *def_tail;   /* home's deferred requests */
    uint8_t             **stage;                 /* per source: parts of a block (to myself) */
    struct kumi_dsm_node **asm_node;             /* per source: a block being assembled
                                                    by the handler (dsm_am) */
    struct kumi_dsm_pending pend;
    kumi_dsm_stats_t      stats;
    uint8_t              *hint;      /* per line: KUMI_DSM_H_* */
    uint64_t              rfo;       /* loads sent as GETX (stats line)   */
    uint64_t              xclean_wr; /* clean-exclusive blocks made E locally */
    /* KUMI_DSM_STATS=1 only (the stats line): where a PE's time goes */
    uint64_t              miss_ns;     /* wall time waiting in misses */
    uint64_t              polls;       /* kumi_dsm_poll calls (back-edges, loop versions) */
    uint64_t              polls_served; /* ... that handled a message */
};

extern struct kumi_dsm kumi_dsm;

/* p lies in the region. Not check.h's kumi_dsm_in, which reads
 * kumi_dsm_g.size, the span the access checks consider: 0 in a job of
 * one PE (KUMI_DSM_SOLO), where the checks have nothing to keep coherent
 * but the region, its allocator and its calls still work. */
static inline int kumi_dsm_owns(const void *p)
{
    return (uintptr_t)p - (uintptr_t)kumi_dsm.base < kumi_dsm.size;
}

static inline struct kumi_dsm_dir *kumi_dsm_dir_at(uint64_t off)
{
    return (struct kumi_dsm_dir *)(kumi_dsm.dir + (off >> KUMI_DSM_LINE_SHIFT) * kumi_dsm.dir_stride);
}
/* dsm_alloc.c: the home of off inside slice s, which holds distributed
 * allocations (a binary search of the table). */
int kumi_dsm_dist_home(uint64_t off, int s);
/* The home of region offset off: the PE whose part of a distributed
 * allocation off lies in, else the PE whose slice it lies in. */
static inline int kumi_dsm_home_of(uint64_t off)
{
    int s = (int)(off / kumi_dsm.slice);

    if (kumi_dsm.ndist == 0 || s >= kumi_dsm.npes || kumi_dsm.dist_in_slice[s] == 0)
        return s;
    return kumi_dsm_dist_home(off, s);
}
/* Test and debug query (tests/pe/dsm_place.c): the home PE of p, or -1
 * when p is not in the region. Local, no message. */
int kumi_dsm_home(const void *p);

/* protocol.c */
/* Runs the CACHE row for a CPU miss on line (LOAD or STORE). */
void kumi_dsm_cpu_event(uint64_t line, int event);
/* Handles one message (from the inbox). Returns 1 if the node was kept
 * (deferred), 0 if the caller may free it. */
int  kumi_dsm_handle(struct kumi_dsm_node *n);
/* Sends a protocol message (to myself through the inbox). data/len: the
 * block's bytes for data-carrying messages. */
void kumi_dsm_send(int pe, int type, int r, int acks, int need_done, uint64_t off,
                   unsigned bshift, const void *data, size_t len);
_Noreturn void kumi_dsm_violation(const char *what, int src, uint64_t off, int role,
                                  unsigned state, unsigned event);
void kumi_dsm_set_block_state(uint64_t block, unsigned bshift, uint8_t state);
void kumi_dsm_pstate_sync(uint64_t off, uint64_t len);
void kumi_dsm_flag_fill(uint64_t block, unsigned bshift);
/* The block of a clean-exclusive copy holding line, or (uint64_t)-1; its
 * bshift in *bshift. */
uint64_t kumi_dsm_xclean_block(uint64_t line, unsigned *bshift);
/* Clears every hint of [off, off + len) (new or freed memory). */
void kumi_dsm_hint_clear(uint64_t off, uint64_t len);

/* dsm.c: the layer, the inbox, misses, the explicit API */
extern struct kumi_rt_layer kumi_dsm_layer;
/* dsm_region.c: the layer's init (reserves and maps the region) */
int  kumi_dsm_layer_init(void);
void kumi_dsm_inbox_push(struct kumi_dsm_node *n);
int  kumi_dsm_drain(void);
void kumi_dsm_inbox_lock(void);
void kumi_dsm_inbox_unlock(void);
/* The active-message handler (KUMI_RT_AM_DSM): appends to the inbox. */
void kumi_dsm_am(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg);
/* The layer's poll hook: drains the inbox. */
int  kumi_dsm_poll_hook(void);
/* KUMI_OK if the DSM can be used by call, else the reported error. */
int  kumi_dsm_usable(const char *call);
/* Makes the line at off readable (or writable) here, missing if needed. */
int  kumi_dsm_line(const char *call, uint64_t off, int write);

/* dsm_alloc.c: the allocator's state (set up with the region), and the
 * allocation messages the inbox hands it */
void kumi_dsm_alloc_reset(void);
int  kumi_dsm_alloc_init(void);     /* my slice free; KUMI_ERR_NOMEM */
void kumi_dsm_alloc_fini(void);
void kumi_dsm_dist_add_msg(const struct kumi_dsm_node *n);
void kumi_dsm_dist_free_msg(const struct kumi_dsm_node *n);
/* Applies DIST_FREEs that waited for a busy part (none: nothing). */
void kumi_dsm_dist_free_retry(void);
void kumi_dsm_size_msg(const struct kumi_dsm_node *n);
/* Records a free another PE made of my memory, applied at my next call. */
void kumi_dsm_remote_free_note(uint64_t off);

#endif /* KUMI_DSM_INT_H */
