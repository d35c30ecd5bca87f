/*
 * kumi.h -- the one public header of kumi, a PGAS / fine-grain DSM runtime.
 *
 * Programs are SPMD: kumirun starts N processes (PEs) that all run main().
 * A program started without kumirun is a job of one PE (singleton mode).
 *
 *   #include <kumi.h>           link with -lkumi, `pkg-config --libs kumi`,
 *                               CMake `find_package(kumi)` + `kumi::kumi`,
 *                               or compile with the `kumicc` wrapper.
 *
 * Conventions
 *   - Calls return int status unless they return a value: KUMI_OK (0) or a
 *     negative KUMI_ERR_* code. KUMI_AGAIN (positive) means "would block" for
 *     try-variants. kumi_strerror() names any code.
 *   - The first function that detects an error prints one line on stderr,
 *     e.g. "kumi[3]: kumi_put: pe 7 out of range (size 4)". With
 *     KUMI_ABORT_ON_ERROR=1 any error ends the whole job instead.
 *   - "Collective" calls must be made by every PE of the job (or team), in
 *     the same order, with matching arguments.
 *   - Symmetric addresses are pointers returned by kumi_malloc() and friends;
 *     the same pointer names the corresponding object on every PE.
 *   - Thread safety: by default call kumi from one thread per PE (or
 *     serialize). After kumi_init_ex(KUMI_INIT_THREADS) many threads of a
 *     PE may call the one-sided, atomic, wait, fence and quiet calls at once
 *     (collectives still one thread at a time per team).
 *
 * Environment variables are listed by `kumirun --help-env`.
 */
#ifndef KUMI_H
#define KUMI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KUMI_VERSION_MAJOR 0
#define KUMI_VERSION_MINOR 1
#define KUMI_VERSION_PATCH 0

/* ---------------------------------------------------------------- status */
enum {
    KUMI_OK              = 0,
    KUMI_AGAIN           = 1,   /* try-variant: the operation would block   */
    KUMI_ERR_INVALID     = -1,  /* bad argument: PE out of range, address
                                   outside the symmetric heap or LLCM, bad
                                   length, misaligned atomic, NULL pointer  */
    KUMI_ERR_NOMEM       = -2,  /* out of memory (heap, LLCM, queues)       */
    KUMI_ERR_PEER        = -3,  /* a peer PE died or left: the job fails    */
    KUMI_ERR_TIMEOUT     = -4,  /* a bounded wait expired                   */
    KUMI_ERR_TRANSPORT   = -5,  /* the transport failed (system call, map)  */
    KUMI_ERR_UNSUPPORTED = -6,  /* not available on this transport/build    */
    KUMI_ERR_STATE       = -7,  /* not initialized, or already finalized    */
    KUMI_ERR_TRUNCATE    = -8   /* a received message was longer than the
                                   receive buffer (kumi_recv and friends)  */
};

/* A static string naming a status code ("KUMI_ERR_PEER: a peer PE died..."). */
const char *kumi_strerror(int status);

/* --------------------------------------------------------------- runtime */

/* Starts this PE: reads the environment, maps peers, creates the symmetric
 * heap and LLCM. Collective. Returns KUMI_OK, or an error after printing why
 * (bad KUMI_* variable, transport failure). Calling it twice is KUMI_OK. */
int kumi_init(void);

/* kumi_init with options (kumi_init() is kumi_init_ex(0)):
 *   KUMI_INIT_SYMMETRIC_DATA  the program's static data (globals and
 *       statics of the executable) becomes symmetric: a valid target of
 *       put, get, atomics, put_signal, kumi_ptr and waits on every PE, at
 *       the same speed as the symmetric heap (shm maps it into every peer).
 *       Static data is read at the address the same variable has on this
 *       PE; PEs must run the same executable. On shm, threads the program
 *       started before kumi_init_ex must not write static data during it,
 *       and a child fork()ed later shares the static data with its parent.
 *   KUMI_INIT_THREADS  many threads of a PE may call the one-sided, atomic,
 *       wait, test, fence and quiet calls at once; a thread blocked in a
 *       wait never stops another from making progress. kumi_quiet completes
 *       every operation of the PE that happened before it, whichever thread
 *       issued it. Collectives, allocation and teams stay one thread at a
 *       time (per team); the DSM stays on the thread that called
 *       kumi_init_ex (only its waits serve DSM requests). Waits then yield
 *       even under KUMI_WAIT=spin, as a PE's threads may outnumber its cores.
 * Every PE must pass the same flags. */
enum {
    KUMI_INIT_SYMMETRIC_DATA = 1u << 0,
    KUMI_INIT_THREADS        = 1u << 1
};
int kumi_init_ex(unsigned flags);
/* The flags in force (0 before init). */
unsigned kumi_init_flags(void);

/* Ends the whole job promptly with exit status status (0 included), from
 * any PE, whatever the others are doing (in a barrier, a wait, computing):
 * kumirun exits with status, every PE is stopped, nothing is left behind.
 * Before init (or without kumirun) it is exit(status). As with exit(),
 * status & 255 is what the job's parent sees, and this PE's atexit
 * handlers and stdio buffers run (a kumi_finalize there returns at once).
 * Calls other PEs are blocked in return KUMI_ERR_PEER, reported only with
 * KUMI_LOG=info; of concurrent calls, one status wins for the whole job. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define KUMI_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define KUMI_NORETURN _Noreturn
#elif defined(__GNUC__)
#define KUMI_NORETURN __attribute__((noreturn))
#else
#define KUMI_NORETURN
#endif
KUMI_NORETURN void kumi_global_exit(int status);

/* The node (host) pe runs on, numbered 0..kumi_node_count()-1 in order of
 * the lowest PE on each; PEs that share memory (shm) share a node, and
 * over tcp the PEs of one host (kumirun --hosts). -1 for a bad pe or
 * before init; kumi_node_count() is 0 before init. */
int kumi_pe_node(int pe);
int kumi_node_count(void);

/* Collective: waits for every PE, releases all resources. Safe to call once;
 * a second call returns KUMI_ERR_STATE. kumi calls made after it return
 * KUMI_ERR_STATE. */
int kumi_finalize(void);

int         kumi_rank(void);            /* my PE, 0..size-1 (-1 before init) */
int         kumi_size(void);            /* number of PEs (0 before init)     */
const char *kumi_transport_name(void);  /* "shm", "tcp", ... ("none" before) */
double      kumi_wtime(void);           /* seconds, monotonic clock          */

/* ---------------------------------------------------------- symmetric heap
 * KUMI_HEAP_SIZE bytes per PE (default 256m), managed by a jemalloc arena.
 * Allocation is collective: every PE gets the same offset, which kumi
 * verifies; a mismatch (PEs called with different sizes, or in different
 * order) fails loudly on every PE. On exhaustion every PE gets NULL and one
 * message naming KUMI_HEAP_SIZE. Size 0 returns NULL. */
void *kumi_malloc(size_t size);
void *kumi_calloc(size_t n, size_t size);
void *kumi_align(size_t alignment, size_t size);   /* alignment: power of 2 */
void  kumi_free(void *ptr);                         /* collective; NULL ok   */

/* A load/store pointer to pe's copy of the symmetric object at sym when
 * that PE's memory is mapped here (shm transport), else NULL. */
void *kumi_ptr(const void *sym, int pe);

/* ------------------------------------------------- one-sided communication
 * dst_sym/src_sym are symmetric addresses; the local buffers are any memory.
 * Any alignment and any length (including 0) are valid. On return the local
 * buffer may be reused; a get has completed. Puts and kicks from one PE to
 * another are delivered in issue order, so "put the data, then kick a flag"
 * is a complete message. */
int kumi_put(void *dst_sym, const void *src, size_t n, int pe);
int kumi_get(void *dst, const void *src_sym, size_t n, int pe);
/* put n bytes, then store sig_value into the 8-byte symmetric word sig_sym
 * (after the data is visible). */
int kumi_put_signal(void *dst_sym, const void *src, size_t n,
                    uint64_t *sig_sym, uint64_t sig_value, int pe);
int kumi_fence(void);  /* order earlier puts/kicks to each PE before later ones */
int kumi_quiet(void);  /* wait until my earlier puts/kicks/atomics are complete
                          and visible at their targets */

/* ---------------------------------------------------------- remote atomics
 * On a symmetric word of pe (naturally aligned; a misaligned address is
 * KUMI_ERR_INVALID). Atomic with respect to each other and to local atomic
 * operations (C11 atomics / __atomic builtins) on the same word. The old
 * value is stored in *old (not NULL) only on success. */
int kumi_atomic_add_u64      (uint64_t *dst_sym, uint64_t v, int pe);
int kumi_atomic_fetch_add_u64(uint64_t *dst_sym, uint64_t v, int pe, uint64_t *old);
int kumi_atomic_swap_u64     (uint64_t *dst_sym, uint64_t v, int pe, uint64_t *old);
int kumi_atomic_cswap_u64    (uint64_t *dst_sym, uint64_t expected, uint64_t desired,
                              int pe, uint64_t *old);
int kumi_atomic_add_u32      (uint32_t *dst_sym, uint32_t v, int pe);
int kumi_atomic_fetch_add_u32(uint32_t *dst_sym, uint32_t v, int pe, uint32_t *old);
int kumi_atomic_swap_u32     (uint32_t *dst_sym, uint32_t v, int pe, uint32_t *old);
int kumi_atomic_cswap_u32    (uint32_t *dst_sym, uint32_t expected, uint32_t desired,
                              int pe, uint32_t *old);
/* Bitwise, atomic load (fetch) and atomic store (set), same rules. */
int kumi_atomic_and_u64      (uint64_t *dst_sym, uint64_t v, int pe);
int kumi_atomic_or_u64       (uint64_t *dst_sym, uint64_t v, int pe);
int kumi_atomic_xor_u64      (uint64_t *dst_sym, uint64_t v, int pe);
int kumi_atomic_fetch_and_u64(uint64_t *dst_sym, uint64_t v, int pe, uint64_t *old);
int kumi_atomic_fetch_or_u64 (uint64_t *dst_sym, uint64_t v, int pe, uint64_t *old);
int kumi_atomic_fetch_xor_u64(uint64_t *dst_sym, uint64_t v, int pe, uint64_t *old);
int kumi_atomic_fetch_u64    (const uint64_t *src_sym, int pe, uint64_t *out);
int kumi_atomic_set_u64      (uint64_t *dst_sym, uint64_t v, int pe);
int kumi_atomic_and_u32      (uint32_t *dst_sym, uint32_t v, int pe);
int kumi_atomic_or_u32       (uint32_t *dst_sym, uint32_t v, int pe);
int kumi_atomic_xor_u32      (uint32_t *dst_sym, uint32_t v, int pe);
int kumi_atomic_fetch_and_u32(uint32_t *dst_sym, uint32_t v, int pe, uint32_t *old);
int kumi_atomic_fetch_or_u32 (uint32_t *dst_sym, uint32_t v, int pe, uint32_t *old);
int kumi_atomic_fetch_xor_u32(uint32_t *dst_sym, uint32_t v, int pe, uint32_t *old);
int kumi_atomic_fetch_u32    (const uint32_t *src_sym, int pe, uint32_t *out);
int kumi_atomic_set_u32      (uint32_t *dst_sym, uint32_t v, int pe);

/* ------------------------------------------------ AOTF/LLCM low-latency path
 * Every PE has an LLCM ("low-latency common memory", KUMI_LLCM_SIZE bytes,
 * default 256k; DIMMnet-1 had 128 KB on the card): a small region peers
 * write into with kicks and the owner polls. kumi keeps its own flags and a
 * quarter of it for team areas (4 KiB a team); programs allocate the rest. */

/* Collective: returns the same offset on every PE, or (size_t)-1 when the
 * LLCM is full (KUMI_LLCM_SIZE). Aligned to the size rounded up to a power
 * of two, at least 8 and at most 64 bytes. The memory starts zeroed. LLCM
 * allocations last until kumi_finalize. */
size_t kumi_llcm_alloc(size_t size);

/* My LLCM at offset (NULL if offset is outside it). */
volatile void *kumi_llcm(size_t offset);

/* AOTF send: writes len (1, 2, 4 or 8) bytes from val into pe's LLCM at
 * llcm_offset, which must be aligned to len. On the shm transport this is one
 * store. Ordered after earlier puts and kicks to the same PE. */
int kumi_kick(int pe, size_t llcm_offset, const void *val, size_t len);

/* ------------------------------------------ waiting on local memory
 * addr is local memory written by peers (LLCM or the symmetric heap). Waiting
 * follows KUMI_WAIT: spin while the PEs fit the cores, else yield and then
 * block. A wait returns KUMI_OK when the condition holds, or KUMI_ERR_PEER
 * if the job is failing (a peer died). Waits serve incoming requests. */
enum { KUMI_CMP_EQ, KUMI_CMP_NE, KUMI_CMP_GT, KUMI_CMP_GE, KUMI_CMP_LT, KUMI_CMP_LE };

int kumi_wait_until_u64(volatile uint64_t *addr, int cmp, uint64_t value);
int kumi_wait_until_u32(volatile uint32_t *addr, int cmp, uint32_t value);
int kumi_wait_until_u8 (volatile uint8_t  *addr, int cmp, uint8_t  value);
/* 1 if the condition holds now, 0 if not, KUMI_ERR_INVALID for a bad cmp. */
int kumi_test_u64(volatile uint64_t *addr, int cmp, uint64_t value);
int kumi_test_u32(volatile uint32_t *addr, int cmp, uint32_t value);
int kumi_test_u8 (volatile uint8_t  *addr, int cmp, uint8_t  value);

/* ------------------------------------------------------------------ teams
 * A team is an ordered set of PEs (Cenju-4 ran barriers and multicast over
 * any node set). The world team holds every PE in rank order and exists
 * from kumi_init to kumi_finalize. Team ranks follow the order given at
 * creation. Collectives on different teams, overlapping or not, may be
 * called back to back: each team keeps its own phases and slots.
 * A PE is in at most KUMI_LLCM_SIZE / 16 KiB teams at once (a quarter of
 * the LLCM holds their areas: 16 at the default 256k, KUMI_TEAM_MAX from
 * 2m up), the world included; a call that would make one more fails with
 * KUMI_ERR_NOMEM on every member of the parent (parent rank 0 says why).
 * A team's collectives that move more than 56 bytes use a heap scratch
 * area (KUMI_COLL_SCRATCH), taken on the first such call and kept until
 * the team is destroyed; when all KUMI_COLL_SCRATCH_AREAS are busy they
 * still work, in small pieces (slowly). */
#define KUMI_TEAM_MAX 128

typedef struct kumi_team *kumi_team_t;
kumi_team_t kumi_team_world(void);      /* NULL before init */
int kumi_team_rank(kumi_team_t t);      /* my rank in t, -1 if not a member */
int kumi_team_size(kumi_team_t t);      /* number of members (0 for NULL)   */
/* World PE number of team rank r (-1 if out of range). */
int kumi_team_pe(kumi_team_t t, int r);

/* Collective over the parent's members (all must call, same arguments):
 * the team of parent ranks start, start+stride, ... (size members, in
 * that order, all in range; stride may be negative, and 0 when size is 1).
 * Every caller gets a handle in *out; on PEs not in the new team
 * kumi_team_rank(*out) is -1 (such a handle may only be destroyed). */
int kumi_team_split_strided(kumi_team_t parent, int start, int stride, int size,
                            kumi_team_t *out);
/* Collective over the parent: the team of the listed parent ranks, in that
 * order (no duplicates). */
int kumi_team_create(kumi_team_t parent, const int *pes, int n, kumi_team_t *out);
/* Collective over the parent's members (each may pass its own color and
 * key, as MPI_Comm_split): members with the same color >= 0 form one team,
 * ranked by key, then parent rank; a member with color < 0 gets a handle
 * with rank -1 and size 0 (destroy only). The teams of one call count as
 * one against the limit above. */
int kumi_team_split(kumi_team_t parent, int color, int key, kumi_team_t *out);
/* Collective over the members of t (non-members just free their handle).
 * The world team cannot be destroyed. */
int kumi_team_destroy(kumi_team_t t);

/* ------------------------------------------------------------ collectives
 * Collective over the members of the team; buffers are ordinary local
 * memory (symmetric not required). Every member gets bit-identical results,
 * floating point included: the reduction order is fixed, independent of
 * arrival order. Counts from 0 to hundreds of millions work. */
typedef enum {
    KUMI_INT32, KUMI_INT64, KUMI_UINT32, KUMI_UINT64, KUMI_FLOAT, KUMI_DOUBLE,
    KUMI_INT8, KUMI_INT16, KUMI_UINT8, KUMI_UINT16,
    KUMI_LONG_DOUBLE,                           /* long double (x86-64: 80-bit in 16 bytes) */
    KUMI_FLOAT_COMPLEX, KUMI_DOUBLE_COMPLEX     /* float/double _Complex: SUM, PROD only */
} kumi_type_t;
typedef enum { KUMI_SUM, KUMI_PROD, KUMI_MIN, KUMI_MAX, KUMI_BAND, KUMI_BOR, KUMI_BXOR } kumi_op_t;

/* Returns when every member has entered, after making every member's
 * earlier puts, kicks and atomics visible. KUMI_BARRIER selects the
 * algorithm (auto|tree|dissem|counter|mcast), KUMI_TREE_RADIX the tree. */
int kumi_barrier(kumi_team_t team);
/* dst = op over all members' src (count elements of type). dst == src is
 * allowed. Bitwise ops exist for the integer types only, MIN/MAX for all
 * but the complex ones (other pairs are KUMI_ERR_INVALID). A long double
 * result has its value bytes followed by zeros, whatever padding the
 * inputs carried. */
int kumi_allreduce(kumi_team_t team, void *dst, const void *src, size_t count, kumi_type_t type,
                   kumi_op_t op);
/* The same, result only at team rank root (dst ignored elsewhere, may be
 * NULL there). */
int kumi_reduce(kumi_team_t team, void *dst, const void *src, size_t count, kumi_type_t type,
                kumi_op_t op, int root);
/* n bytes of team rank root's buf into every member's buf. */
int kumi_broadcast(kumi_team_t team, void *buf, size_t n, int root);
/* dst (size x n_each bytes) gets member r's src at dst + r * n_each. */
int kumi_allgather(kumi_team_t team, void *dst, const void *src, size_t n_each);
/* member r's block j (src + j * n_each) lands in member j's dst + r * n_each.
 * Sends in a staggered order (rank i to i+1, i+2, ...); KUMI_ALLTOALL=naive
 * sends in rank order (for comparison). */
int kumi_alltoall(kumi_team_t team, void *dst, const void *src, size_t n_each);

/* -------------------------------------------- two-sided messaging (msg/)
 * MPI-style send and receive on a team: pe is a rank in the team, tag any
 * int >= 0. Buffers are any local memory (symmetric not required).
 * Matching follows MPI: a receive takes the first message, in arrival
 * order, whose team, source (or KUMI_ANY_SOURCE) and tag (or KUMI_ANY_TAG)
 * fit; posted receives are matched in the order they were posted; two
 * messages from one PE to another on one team with one tag never overtake
 * each other. A PE may send to itself.
 *
 * Protocols: a message of at most KUMI_MSG_EAGER bytes (default 4080)
 * travels at once in one active message and may wait at the receiver
 * until a receive matches it; a longer one by rendezvous: only its header
 * travels, and once a receive matches it the receiver copies the data
 * straight from the sender's buffer into its own (shm: one copy by
 * cross-memory attach; tcp: the sender streams it from its buffer), so a
 * long send completes only after the receiver matched it. Each receiver
 * holds at most KUMI_MSG_CREDIT bytes (default 64k) of unexpected
 * messages per sender; a sender out of credit keeps its eager messages
 * (copied) until credit returns, so a flood never exhausts the receiver's
 * memory and never deadlocks.
 *
 * Progress: messages move while this PE is inside any kumi call that
 * waits (kumi_wait, kumi_recv, a barrier, kumi_wait_until_*) or tests
 * (kumi_test, kumi_iprobe); a PE that computes for long without either
 * delays its peers' rendezvous sends and its credit returns.
 *
 * Completion: kumi_wait, kumi_test (when it finds the request done),
 * kumi_waitall and kumi_waitany free a request and set the handle to
 * KUMI_REQUEST_NULL; waiting on KUMI_REQUEST_NULL returns at once with an
 * empty status (source KUMI_ANY_SOURCE, tag KUMI_ANY_TAG, bytes 0).
 * A message longer than the receive buffer fills the buffer, and its
 * receive completes with KUMI_ERR_TRUNCATE (status bytes: the full size).
 * A peer that dies while this PE waits: KUMI_ERR_PEER naming it. Bad
 * arguments: KUMI_ERR_INVALID with one line naming the call and the cause.
 * Threads: one thread of a PE at a time calls these (with
 * KUMI_INIT_THREADS, the thread that called kumi_init_ex), as collectives. */
#define KUMI_ANY_SOURCE (-1)
#define KUMI_ANY_TAG    (-1)
#define KUMI_UNDEFINED  (-32766)     /* kumi_waitany: no active request */

typedef struct kumi_request *kumi_request_t;
#define KUMI_REQUEST_NULL ((kumi_request_t)0)

typedef struct kumi_status {
    int    source;     /* team rank of the sender                            */
    int    tag;        /* the message's tag                                  */
    size_t bytes;      /* the message's size (the full size when truncated)  */
    int    error;      /* KUMI_OK or the request's own error (TRUNCATE, PEER) */
    int    cancelled;  /* 1: a receive cancelled before any message matched  */
} kumi_status_t;
#define KUMI_STATUS_IGNORE   ((kumi_status_t *)0)
#define KUMI_STATUSES_IGNORE ((kumi_status_t *)0)

/* Starts sending bytes bytes of buf to team rank pe with tag; *req is
 * the handle to complete. buf must stay untouched until then. */
int kumi_isend(const void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
               kumi_request_t *req);
/* Posts a receive of at most bytes bytes into buf from team rank pe (or
 * KUMI_ANY_SOURCE) with tag (or KUMI_ANY_TAG). */
int kumi_irecv(void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
               kumi_request_t *req);
/* Blocking forms: kumi_send returns when buf may be reused (an eager
 * message at once, a rendezvous one once the receiver has its data);
 * kumi_recv when the message is in buf. status may be KUMI_STATUS_IGNORE. */
int kumi_send(const void *buf, size_t bytes, int pe, int tag, kumi_team_t team);
int kumi_recv(void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
              kumi_status_t *status);

/* Waits until *req completes; frees it, sets *req to KUMI_REQUEST_NULL,
 * fills status (a send's: its destination, tag and size). Returns the
 * request's error (KUMI_ERR_TRUNCATE) or KUMI_ERR_PEER. */
int kumi_wait(kumi_request_t *req, kumi_status_t *status);
/* Waits for all n requests (KUMI_REQUEST_NULL entries are skipped);
 * statuses is an array of n or KUMI_STATUSES_IGNORE. Returns KUMI_OK or
 * the first error met; each status carries its request's error. */
int kumi_waitall(int n, kumi_request_t reqs[], kumi_status_t statuses[]);
/* Waits until one of the n requests completes, frees it and stores its
 * position in *index; *index is KUMI_UNDEFINED (and the call returns
 * KUMI_OK at once) when every entry is KUMI_REQUEST_NULL. */
int kumi_waitany(int n, kumi_request_t reqs[], int *index, kumi_status_t *status);
/* Makes progress once; *flag = 1 (and as kumi_wait) if *req is complete,
 * else *flag = 0. A null request: flag 1 and an empty status. */
int kumi_test(kumi_request_t *req, int *flag, kumi_status_t *status);

/* Waits until a message that a receive with these arguments would match
 * has arrived, and describes it (source, tag, bytes) without receiving it. */
int kumi_probe(int pe, int tag, kumi_team_t team, kumi_status_t *status);
/* The same without waiting: *flag = 1 and status filled if there is one. */
int kumi_iprobe(int pe, int tag, kumi_team_t team, int *flag, kumi_status_t *status);

/* Cancels a receive that no message has matched yet; it must still be
 * completed (kumi_wait, kumi_test), and its status says cancelled = 1.
 * A receive already matched, and any send, complete normally (cancelled 0):
 * the cancel failed, as MPI allows. */
int kumi_cancel(kumi_request_t *req);

/* -------------------------------------------- producer-consumer rings
 * The DIMMnet-1 LLCM ring protocol: one producer PE, one consumer PE. The
 * producer puts a message into the consumer's buffer and kicks the new tail
 * into the consumer's LLCM; the consumer polls its LLCM for the tail and
 * kicks the new head back into the producer's LLCM. Each side polls only its
 * own memory. Messages are variable length, delivered whole and in order.
 * The capacity (at least 64 bytes) is rounded up to a power of two; a
 * message may be up to that size minus 8 bytes (its header). The consumer
 * returns space to the producer in batches (every capacity/4 bytes, and
 * whenever the ring runs empty). Blocking calls follow KUMI_WAIT and return
 * KUMI_ERR_PEER if the job fails; a blocking call on a ring to oneself that
 * could never finish returns KUMI_ERR_INVALID instead of hanging. Destroy
 * rings before kumi_finalize. */
typedef struct kumi_ring *kumi_ring_t;
/* Collective over all PEs (every PE calls with the same arguments; PEs
 * other than producer and consumer get a handle they can only destroy).
 * producer == consumer is allowed. */
int kumi_ring_create(int producer, int consumer, size_t capacity_bytes, kumi_ring_t *out);
int kumi_ring_push(kumi_ring_t r, const void *msg, size_t len);      /* blocks while full  */
int kumi_ring_try_push(kumi_ring_t r, const void *msg, size_t len);  /* KUMI_AGAIN if full */
/* Copies the next message into buf (cap bytes) and its length into *len.
 * A message longer than cap is KUMI_ERR_INVALID and stays in the ring. */
int kumi_ring_pop(kumi_ring_t r, void *buf, size_t cap, size_t *len);     /* blocks while empty */
int kumi_ring_try_pop(kumi_ring_t r, void *buf, size_t cap, size_t *len); /* KUMI_AGAIN if empty */
int kumi_ring_destroy(kumi_ring_t r);    /* collective; a second destroy is invalid */

/* ------------------------------------------------- DSM: shared memory
 * A fine-grain software distributed shared memory in the style of Shasta:
 * one region at the same virtual address in every PE (KUMI_DSM_SIZE bytes,
 * default 1 GiB of address space, reserved at KUMI_DSM_BASE; nothing is
 * committed until touched), kept coherent at the grain of a block (64
 * bytes unless set per allocation) by a directory protocol that runs over
 * the transport's active messages, so it works on every transport.
 *
 * Memory model: sequential consistency for DSM accesses made through code
 * translated by kumicc or through the calls below; kumi_barrier and the
 * kumi_mutex calls are synchronization points. Incoming coherence requests
 * are served whenever this PE is inside a kumi call that waits (a miss, a
 * barrier, kumi_wait_until, ...) or calls kumi_dsm_poll: a PE that
 * computes for a long time without either delays PEs that need its data.
 *
 * A peer that dies while others need its blocks ends the job with
 * KUMI_ERR_PEER naming it (the explicit calls return it; a miss in
 * translated code, which cannot return a status, ends the job). */

/* Not collective: any PE may call; the address is valid on every PE. The
 * space comes from the caller's share of the region (1/P of it). Below
 * KUMI_DSM_DIST_MIN bytes (default 256 KiB) the caller is the home of the
 * new blocks; from it on the allocation is block-distributed as by
 * kumi_dsm_malloc_dist (and has its block size). Returns NULL (and reports KUMI_ERR_NOMEM naming
 * KUMI_DSM_SIZE) when this PE's share of the region is full, or for size
 * 0. Memory is block-aligned. Contents are unspecified (kumi_dsm_calloc
 * zeroes; a distributed one at each part's home). */
void *kumi_dsm_malloc(size_t size);
void *kumi_dsm_calloc(size_t n, size_t size);
/* The same with a coherence block of block_bytes (64..4096, a power of
 * two): the unit the protocol moves and invalidates (Shasta let each data
 * structure choose). Never distributed: the caller is always the home. */
void *kumi_dsm_malloc_block(size_t size, size_t block_bytes);
/* Block-distributed whatever the size: the allocation (4 KiB aligned) is
 * cut into P contiguous parts at boundaries of its coherence block,
 * KUMI_DSM_DIST_BLOCK (default 4 KiB: one miss moves
 * 64 lines, as a row of a big array is usually read whole): of its nb
 * blocks part k holds [k*nb/P, (k+1)*nb/P), as a static schedule splits a
 * loop over it, and part k is homed at PE k (absolute: PE 0 homes the
 * first part whoever allocates), so the PE that works on part k finds its
 * misses served locally. Not collective, but it returns only after every
 * PE has noted the allocation (each serves that in its next kumi call that
 * waits or polls): allocate big data this way, not in inner loops. */
void *kumi_dsm_malloc_dist(size_t size);
/* Any PE may free any DSM allocation (once, when no PE uses it any more);
 * the memory is recalled to its home before it is reused (a distributed
 * one: every PE drops its copies; the call waits for all PEs). */
void  kumi_dsm_free(void *p);
/* realloc for DSM allocations, from any PE: p itself when size fits and
 * at least half of it is used, else a new allocation (distributed if p was
 * or size reaches KUMI_DSM_DIST_MIN; p's block size) holding p's bytes,
 * and p freed. NULL p: kumi_dsm_malloc; size 0: kumi_dsm_free, NULL.
 * NULL on failure, p untouched. */
void *kumi_dsm_realloc(void *p, size_t size);
int   kumi_dsm_is_shared(const void *p);   /* 1 if p lies in the DSM region */

/* A fair (FIFO ticket) lock. It may live in DSM memory (then it moves
 * through the coherence protocol like other data) or in the symmetric heap
 * (then PE 0's copy is the lock, driven by remote atomics). Initialize it
 * once (one PE, before any PE locks it: e.g. init, then kumi_barrier).
 * Lock and unlock are synchronization points for DSM data. */
typedef struct kumi_mutex {
    __attribute__((aligned(64))) uint64_t next;     /* next ticket          */
    __attribute__((aligned(64))) uint64_t serving;  /* ticket being served  */
    uint8_t pad_[56];
} kumi_mutex_t;
int kumi_mutex_init(kumi_mutex_t *m);
int kumi_mutex_lock(kumi_mutex_t *m);
int kumi_mutex_unlock(kumi_mutex_t *m);

/* What the translator inserts; also usable by hand in untranslated code.
 * read/write copy n bytes between DSM memory and private memory, each
 * block of the range moved coherently (sequentially consistent per
 * block). acquire makes [p, p+n) locally valid for reading (KUMI_DSM_READ)
 * or writing (KUMI_DSM_WRITE) before it is handed to code that is not
 * translated (libc, other libraries); the range stays valid until this PE
 * next serves requests (its next kumi call that waits or polls). */
enum { KUMI_DSM_READ = 1, KUMI_DSM_WRITE = 2 };
int  kumi_dsm_read (void *dst, const void *shared_src, size_t n);
int  kumi_dsm_write(void *shared_dst, const void *src, size_t n);
int  kumi_dsm_acquire(const void *p, size_t n, int mode);
void kumi_dsm_poll(void);   /* serve incoming coherence requests */

/* Counters of this PE's DSM activity since kumi_init (kumi-bench prints
 * them per kernel). */
typedef struct kumi_dsm_stats {
    uint64_t read_misses, write_misses, upgrades;
    uint64_t msgs_sent, msgs_received, bytes_sent;
    uint64_t invalidations, forwards, deferred, stale;
} kumi_dsm_stats_t;
int kumi_dsm_stats(kumi_dsm_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif /* KUMI_H */
