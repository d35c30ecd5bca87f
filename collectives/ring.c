/*
 * ring.c -- kumi_ring_*: the DIMMnet-1 LLCM producer-consumer ring
 * (the DIMMnet-1 LLCM ring protocol; docs/architecture.md, "Rings").
 * Built only on the transport ops table and the runtime's waits, so it runs
 * unchanged on every transport.
 *
 * Memory. The data buffer is a symmetric heap object (every PE allocates
 * it, only the consumer's copy is used) of `size` bytes, the capacity
 * rounded up to a power of two (at least KUMI_RING_MIN), so a position maps
 * to an offset with a mask. Two LLCM words (one 16-byte allocation):
 *   tail at tail_off, live in the CONSUMER's LLCM: written by producer kicks
 *   head at tail_off + 8, live in the PRODUCER's LLCM: written by consumer
 *        kicks
 * Each side polls only its own memory, as in the paper. LLCM is never
 * freed, so both words start at zero and are never reused by a later ring.
 *
 * Positions are byte counters that only grow (u64: no wrap in practice);
 * tail - head is the bytes in use, and a record starts at (pos & mask).
 * A record is [u64 length][payload, padded to 8]. A record that runs past
 * the end of the buffer continues at offset 0 (the payload is split, never
 * the 8-byte-aligned header), so no space is wasted and one message can be
 * as long as size - 8 bytes; it is still delivered whole.
 *
 * Producer (push): needs need = 8 + pad8(len) bytes: tail + need - head <=
 * size, judged first on its cached head, then on the head word in its own
 * LLCM (acquire load), then waiting there. It writes the record with put
 * (one put of header + payload for short records, staged on the stack;
 * header and payload as separate puts for long ones, no extra copy), then
 * kicks the new tail into the consumer's LLCM. The transport delivers puts
 * and kicks to one PE in issue order, so the consumer never sees a tail
 * before the bytes below it. An 8-byte message is one 16-byte put + one kick.
 *
 * Consumer (pop): reads the tail from its own LLCM (acquire load, only when
 * its cached tail says the ring is empty), copies the record out of its own
 * copy of the buffer with memcpy, advances head and, in batches (below),
 * kicks head into the producer's LLCM. The kick is issued after the copy
 * (a release store on shm; a message sent after the copy returned on wire
 * transports), so the producer cannot overwrite bytes still being read.
 *
 * Batching the head (saves kicks). The consumer kicks its head when (a) it
 * has consumed >= size/4 bytes since the last kick, or (b) the record it
 * just consumed was the last one it knows of (head == tail_seen). Claim:
 * a producer blocked in push returns after finitely many pops, and producer
 * and consumer are never both blocked on each other.
 *   I. Between pops, head_sent == head or head < tail_seen. Initially all
 *      are 0. A pop that consumes ends with head <= tail_seen (a record is
 *      accepted only below tail_seen); if equal, (b) kicks and head_sent =
 *      head. A pop that consumes nothing changes neither head nor
 *      head_sent, and tail_seen only grows.
 *  II. A blocked producer has kicked its tail T before waiting, T stays
 *      fixed, and it waits for head >= want = T + need - size <= T (need
 *      <= size).
 * Progress: every pop consumes a record below T or rereads the tail word
 * (where T arrives), so after finitely many pops head == T. Since head <=
 * tail_seen <= T, the pop that got there saw head == tail_seen and kicked
 * T >= want by (b); batches (a) may release the producer earlier.
 * No mutual wait: a consumer blocked in pop has head == tail_seen, so by I
 * head_sent == head, and its tail word equals head, so T == head (once T
 * is delivered the consumer is not blocked); then the producer's head
 * word holds T >= want and it is not blocked either.
 * The price: a consumer that stops popping while messages remain may hold
 * back up to size/4 bytes it has consumed; a producer needing exactly that
 * space waits until the consumer pops again (try_push says KUMI_AGAIN).

 * producer == consumer (and singleton jobs) use the same code: puts and
 * kicks to oneself. The producer then takes the head from the consumer
 * half of the handle (exact, no batching), and a blocking call that could
 * only be satisfied by this very PE is an error instead of a hang.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define KUMI_RING_MIN   64u     /* smallest buffer: header + some payload */
#define KUMI_RING_HDR   8u      /* the record header: u64 length          */
#define KUMI_RING_STAGE 256u    /* records up to this size: one put       */

enum { KUMI_RING_PRODUCER = 1, KUMI_RING_CONSUMER = 2 };

struct kumi_ring {
    /* producer side */
    uint64_t tail;                 /* next byte position to write           */
    uint64_t head_seen;            /* last head read from head_word         */
    /* consumer side */
    uint64_t head;                 /* next byte position to read            */
    uint64_t head_sent;            /* last head kicked to the producer      */
    uint64_t tail_seen;            /* last tail read from tail_word         */
    /* shared, fixed at create */
    volatile uint64_t *tail_word;  /* my LLCM (used by the consumer)        */
    volatile uint64_t *head_word;  /* my LLCM (used by the producer)        */
    uint8_t *data;                 /* symmetric buffer = my own copy        */
    size_t   data_off;             /* its heap offset (the target of puts)  */
    size_t   tail_off, head_off;   /* LLCM offsets of the two words         */
    uint64_t size, mask, batch;    /* size: buffer bytes, a power of two    */
    int      producer, consumer;
    int      role;                 /* KUMI_RING_PRODUCER | _CONSUMER, or 0  */
    struct kumi_ring *prev, *next; /* live rings of this PE                 */
};

/* Live handles of this PE: destroy refuses anything else (a second destroy
 * of one handle). push/pop do not look here: a destroyed handle is freed
 * memory, and using it is undefined like any use after free. */
static struct kumi_ring *kumi_ring_live;

static inline uint64_t kumi_ring_rec(uint64_t len)
{
    return KUMI_RING_HDR + ((len + 7) & ~(uint64_t)7);
}

static const char *kumi_ring_role_name(int want)
{
    return want == KUMI_RING_PRODUCER ? "producer" : "consumer";
}

/* The one message for a handle used on the wrong PE. */
static int kumi_ring_not_mine(const char *call, const struct kumi_ring *r, int want)
{
    if (r->role == 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "PE %d is neither producer nor consumer "
                             "of this ring (%d -> %d): its handle only serves "
                             "kumi_ring_destroy", kumi_rt.rank, r->producer, r->consumer);
    return kumi_rt_error(KUMI_ERR_INVALID, call, "PE %d is not the %s of this ring (%d -> %d)",
                         kumi_rt.rank, kumi_ring_role_name(want), r->producer, r->consumer);
}

/* ------------------------------------------------------------ producer */

/* Puts n bytes at buffer offset off of the consumer's copy, continuing at
 * offset 0 past the end. */
static int kumi_ring_put(struct kumi_tp *tp, const struct kumi_ring *r, uint64_t off,
                         const void *src, size_t n)
{
    size_t first = (size_t)(r->size - off);
    int    rc;

    if (n <= first)
        return kumi_tp_put(tp, r->consumer, KUMI_SEG_HEAP, r->data_off + off, src, n);
    rc = kumi_tp_put(tp, r->consumer, KUMI_SEG_HEAP, r->data_off + off, src, first);
    if (rc == KUMI_OK)
        rc = kumi_tp_put(tp, r->consumer, KUMI_SEG_HEAP, r->data_off,
                         (const uint8_t *)src + first, n - first);
    return rc;
}

/* Waits until *word reaches at_least; *seen gets what was read. Both sides
 * wait this way: the producer for the head (room), the consumer for the
 * tail (data). try: one more look after serving progress (wire transports
 * deliver kicks there), then KUMI_AGAIN. On a ring to oneself nobody else
 * can move the word, so a blocking wait is an error, not a hang; the
 * message names what the ring is (full/empty), what would fix it, and
 * the calls. */
static int kumi_ring_await(const char *call, struct kumi_ring *r, volatile uint64_t *word,
                           uint64_t at_least, uint64_t *seen, int block, const char *state,
                           const char *fix, const char *me, const char *other)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    int             rc;

    for (int pass = 0;; pass++) {
        /* acquire: what the other side wrote before its kick is visible */
        *seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        if (*seen >= at_least)
            return KUMI_OK;
        if (r->role == (KUMI_RING_PRODUCER | KUMI_RING_CONSUMER))
            return block ? kumi_rt_error(KUMI_ERR_INVALID, call, "the ring from PE %d to "
                                         "itself is %s: only this PE could %s it, so a "
                                         "blocking %s would never return (%s first or use "
                                         "kumi_ring_try_%s)", kumi_rt.rank, state, fix, me,
                                         other, me)
                         : KUMI_AGAIN;
        if (block)
            break;
        if (pass == 1)
            return kumi_rt_failed() ? kumi_rt_peer_error(call) : KUMI_AGAIN;
        rc = kumi_tp_progress(tp);
        if (rc < 0)
            return rc;
    }
    rc = kumi_rt_wait(call, word, 8, KUMI_CMP_GE, at_least);
    if (rc == KUMI_OK)
        *seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    return rc;
}

/* The cached head says there is no room for need bytes: the head must
 * reach tail + need - size. On a ring to oneself the head is my own. */
static int kumi_ring_room(const char *call, struct kumi_ring *r, uint64_t need, int block)
{
    const int self = r->role == (KUMI_RING_PRODUCER | KUMI_RING_CONSUMER);

    return kumi_ring_await(call, r, self ? &r->head : r->head_word, r->tail + need - r->size,
                           &r->head_seen, block, "full", "empty", "push", "pop");
}

static int kumi_ring_push_bad(const char *call, const struct kumi_ring *r, const void *msg,
                              size_t len)
{
    if (r == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "ring is NULL");
    if (!(r->role & KUMI_RING_PRODUCER))
        return kumi_ring_not_mine(call, r, KUMI_RING_PRODUCER);
    if (msg == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "msg is NULL (length %zu)", len);
    return kumi_rt_error(KUMI_ERR_INVALID, call, "a message of %zu bytes can never fit: this "
                         "ring (%d -> %d) carries at most %llu (its %llu-byte buffer minus an "
                         "8-byte header)", len, r->producer, r->consumer,
                         (unsigned long long)(r->size - KUMI_RING_HDR),
                         (unsigned long long)r->size);
}

static int kumi_ring_push_any(const char *call, struct kumi_ring *r, const void *msg, size_t len,
                              int block)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    uint64_t        need, off;
    int             rc;

    if (__builtin_expect(kumi_rt.state != 1, 0))
        return kumi_rt_check_state(call);
    if (__builtin_expect(r == NULL || !(r->role & KUMI_RING_PRODUCER)
                         || len > r->size - KUMI_RING_HDR || (msg == NULL && len != 0), 0))
        return kumi_ring_push_bad(call, r, msg, len);

    need = kumi_ring_rec(len);
    if (r->tail + need - r->head_seen > r->size) {
        rc = kumi_ring_room(call, r, need, block);
        if (rc != KUMI_OK)
            return rc;
    }
    off = r->tail & r->mask;
    if (need <= KUMI_RING_STAGE) {
        /* header and payload in one put; the padding is zeroed so no stack
         * bytes travel to the peer */
        uint64_t stage[KUMI_RING_STAGE / 8];
        stage[need / 8 - 1] = 0;
        stage[0]            = len;
        if (len != 0)
            memcpy(&stage[1], msg, len);
        rc = kumi_ring_put(tp, r, off, stage, (size_t)need);
    } else {
        uint64_t hdr = len;
        rc = kumi_ring_put(tp, r, off, &hdr, sizeof(hdr));
        if (rc == KUMI_OK)
            rc = kumi_ring_put(tp, r, (off + KUMI_RING_HDR) & r->mask, msg, len);
    }
    if (rc != KUMI_OK)
        return kumi_rt_peer_status(call, rc);
    /* ordered after the puts above by the transport's contract */
    rc = kumi_tp_kick(tp, r->consumer, r->tail_off, r->tail + need, 8);
    if (rc == KUMI_OK)
        r->tail += need;
    /* a transport that learns of a death when it sends (ucx) returns a
     * silent KUMI_ERR_PEER: report it, naming the cause, as a wait would */
    return kumi_rt_peer_status(call, rc);
}

int kumi_ring_push(kumi_ring_t r, const void *msg, size_t len)
{
    return kumi_ring_push_any("kumi_ring_push", r, msg, len, 1);
}

int kumi_ring_try_push(kumi_ring_t r, const void *msg, size_t len)
{
    return kumi_ring_push_any("kumi_ring_try_push", r, msg, len, 0);
}

/* ------------------------------------------------------------ consumer */

/* The cached tail says the ring is empty: the tail must pass my head. */
static int kumi_ring_data(const char *call, struct kumi_ring *r, int block)
{
    return kumi_ring_await(call, r, r->tail_word, r->head + 1, &r->tail_seen, block, "empty",
                           "fill", "pop", "push");
}

/* Copies n bytes from buffer offset off of my copy, wrapping at the end. */
static void kumi_ring_copy_out(const struct kumi_ring *r, uint64_t off, void *dst, size_t n)
{
    size_t first = (size_t)(r->size - off);

    if (n <= first) {
        memcpy(dst, r->data + off, n);
    } else {
        memcpy(dst, r->data + off, first);
        memcpy((uint8_t *)dst + first, r->data, n - first);
    }
}

static int kumi_ring_pop_bad(const char *call, const struct kumi_ring *r, size_t cap,
                             const size_t *lenp)
{
    if (r == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "ring is NULL");
    if (!(r->role & KUMI_RING_CONSUMER))
        return kumi_ring_not_mine(call, r, KUMI_RING_CONSUMER);
    if (lenp == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "len is NULL");
    return kumi_rt_error(KUMI_ERR_INVALID, call, "buf is NULL but cap is %zu", cap);
}

static int kumi_ring_pop_any(const char *call, struct kumi_ring *r, void *buf, size_t cap,
                             size_t *lenp, int block)
{
    uint64_t len, need, off;
    int      rc;

    if (__builtin_expect(kumi_rt.state != 1, 0))
        return kumi_rt_check_state(call);
    if (__builtin_expect(r == NULL || !(r->role & KUMI_RING_CONSUMER) || lenp == NULL
                         || (buf == NULL && cap != 0), 0))
        return kumi_ring_pop_bad(call, r, cap, lenp);

    if (r->head == r->tail_seen) {
        rc = kumi_ring_data(call, r, block);
        if (rc != KUMI_OK)
            return rc;
    }
    off = r->head & r->mask;
    memcpy(&len, r->data + off, sizeof(len));      /* 8-aligned: never split */
    need = kumi_ring_rec(len);
    if (__builtin_expect(len > r->size - KUMI_RING_HDR || need > r->tail_seen - r->head, 0))
        return kumi_rt_error(KUMI_ERR_TRANSPORT, call, "ring %d -> %d: corrupt record at "
                             "position %llu (length %llu, %llu bytes available)", r->producer,
                             r->consumer, (unsigned long long)r->head, (unsigned long long)len,
                             (unsigned long long)(r->tail_seen - r->head));
    if (__builtin_expect(len > cap, 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "the next message has %llu bytes, more than "
                             "cap (%zu); it stays in the ring", (unsigned long long)len, cap);
    if (len != 0)
        kumi_ring_copy_out(r, (off + KUMI_RING_HDR) & r->mask, buf, (size_t)len);
    r->head += need;
    /* batched head update: the progress argument is at the top of the file */
    if (r->head - r->head_sent >= r->batch || r->head == r->tail_seen) {
        rc = kumi_tp_kick(&kumi_rt.tp, r->producer, r->head_off, r->head, 8);
        if (rc != KUMI_OK)
            return kumi_rt_peer_status(call, rc);   /* as the push's */
        r->head_sent = r->head;
    }
    *lenp = (size_t)len;
    return KUMI_OK;
}

int kumi_ring_pop(kumi_ring_t r, void *buf, size_t cap, size_t *len)
{
    return kumi_ring_pop_any("kumi_ring_pop", r, buf, cap, len, 1);
}

int kumi_ring_try_pop(kumi_ring_t r, void *buf, size_t cap, size_t *len)
{
    return kumi_ring_pop_any("kumi_ring_try_pop", r, buf, cap, len, 0);
}

/* --------------------------------------------------- create and destroy */

static uint64_t kumi_ring_pair(int producer, int consumer)
{
    return (uint64_t)(uint32_t)producer << 32 | (uint32_t)consumer;
}

/* Local checks; returns 0 or the status already reported. */
static int kumi_ring_check_args(const char *call, int producer, int consumer, size_t capacity,
                                const kumi_ring_t *out)
{
    size_t heap = kumi_rt.tp.seg_size[KUMI_SEG_HEAP];

    if (out == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "out is NULL");
    if ((unsigned)producer >= (unsigned)kumi_rt.size)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "producer pe %d out of range (size %d)",
                             producer, kumi_rt.size);
    if ((unsigned)consumer >= (unsigned)kumi_rt.size)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "consumer pe %d out of range (size %d)",
                             consumer, kumi_rt.size);
    if (capacity < KUMI_RING_MIN || capacity > heap)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "capacity %zu bytes is outside %u..%zu "
                             "(the symmetric heap, KUMI_HEAP_SIZE)", capacity, KUMI_RING_MIN,
                             heap);
    return 0;
}

/* Collective over all PEs. Every PE first agrees on the arguments (a PE
 * whose own checks failed contributes a poison value), so a call that is
 * wrong on some PEs fails on all of them instead of hanging the others in
 * the allocations that follow. */
int kumi_ring_create(int producer, int consumer, size_t capacity, kumi_ring_t *out)
{
    static const char call[] = "kumi_ring_create";
    struct kumi_ring *r = NULL;
    uint64_t          v[KUMI_RT_AGREE_N], lo[KUMI_RT_AGREE_N], hi[KUMI_RT_AGREE_N];
    uint64_t          size = KUMI_RING_MIN;
    size_t            llcm;
    int               bad, rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    bad = kumi_ring_check_args(call, producer, consumer, capacity, out);
    if (bad == 0) {
        while (size < capacity)
            size <<= 1;
        r = calloc(1, sizeof(*r));
        if (r == NULL)
            bad = kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory for the ring handle");
    }
    v[0] = bad ? UINT64_MAX : kumi_ring_pair(producer, consumer);
    v[1] = bad ? UINT64_MAX : size;
    rc   = kumi_rt_agree_n(call, v, lo, hi);
    if (rc == KUMI_OK && bad == 0 && (lo[0] != hi[0] || lo[1] != hi[1]))
        bad = kumi_rt_error(KUMI_ERR_INVALID, call, "PEs disagree: another PE passed different "
                            "arguments or rejected its own (kumi_ring_create is collective: "
                            "every PE calls it with the same producer, consumer, capacity)");
    if (rc != KUMI_OK || bad != 0)
        goto err_handle;

    /* a power of two: jemalloc aligns it to min(size, page), so a record
     * of up to 64 bytes touches one or two cache lines */
    r->data = kumi_malloc((size_t)size);
    if (r->data == NULL) {
        /* kumi_malloc reported why: the heap, or a failing job */
        rc = kumi_rt_failed() ? KUMI_ERR_PEER : KUMI_ERR_NOMEM;
        goto err_handle;
    }
    llcm = kumi_llcm_alloc(16);
    if (llcm == (size_t)-1) {
        rc = kumi_rt_failed() ? KUMI_ERR_PEER : KUMI_ERR_NOMEM;  /* reported */
        goto err_data;
    }
    r->tail_off  = llcm;
    r->head_off  = llcm + 8;
    r->tail_word = (volatile uint64_t *)((uint8_t *)kumi_rt.tp.local[KUMI_SEG_LLCM] + r->tail_off);
    r->head_word = (volatile uint64_t *)((uint8_t *)kumi_rt.tp.local[KUMI_SEG_LLCM] + r->head_off);
    r->data_off  = kumi_rt_heap_off(r->data, (size_t)size);
    r->size      = size;
    r->mask      = size - 1;
    r->batch     = size / 4;
    r->producer  = producer;
    r->consumer  = consumer;
    r->role      = (kumi_rt.rank == producer ? KUMI_RING_PRODUCER : 0)
                 | (kumi_rt.rank == consumer ? KUMI_RING_CONSUMER : 0);
    r->next = kumi_ring_live;
    if (kumi_ring_live != NULL)
        kumi_ring_live->prev = r;
    kumi_ring_live = r;
    *out = r;
    return KUMI_OK;

err_data:
    kumi_free(r->data);
err_handle:
    free(r);
    return rc != KUMI_OK ? rc : bad;
}

/* Collective over all PEs, like create. A handle may be destroyed once: a
 * second call (or a handle never returned by create) is KUMI_ERR_INVALID,
 * and still takes part in the collective step so the other PEs do not hang.
 * Messages still in the ring are dropped. */
int kumi_ring_destroy(kumi_ring_t r)
{
    static const char call[] = "kumi_ring_destroy";
    struct kumi_tp   *tp = &kumi_rt.tp;
    struct kumi_ring *p;
    uint64_t          v[KUMI_RT_AGREE_N], lo[KUMI_RT_AGREE_N], hi[KUMI_RT_AGREE_N];
    int               bad = 0, rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    for (p = kumi_ring_live; p != NULL && p != r; p = p->next)
        ;
    if (r == NULL)
        bad = kumi_rt_error(KUMI_ERR_INVALID, call, "ring is NULL");
    else if (p == NULL)
        bad = kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not a live ring handle (destroyed "
                            "twice?)", (void *)r);
    /* my puts and kicks into the buffer and LLCM complete before anyone frees */
    rc = kumi_tp_quiet(tp);
    if (rc != KUMI_OK)
        return rc;
    v[0] = bad ? UINT64_MAX : r->data_off;
    v[1] = bad ? UINT64_MAX : kumi_ring_pair(r->producer, r->consumer);
    rc   = kumi_rt_agree_n(call, v, lo, hi);
    if (rc != KUMI_OK || bad != 0)
        return rc != KUMI_OK ? rc : bad;
    if (lo[0] != hi[0] || lo[1] != hi[1])
        return kumi_rt_error(KUMI_ERR_INVALID, call, "PEs disagree on the ring to destroy "
                             "(kumi_ring_destroy is collective: every PE passes its handle of "
                             "the same ring); nothing destroyed");
    kumi_free(r->data);
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        kumi_ring_live = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    free(r);
    return KUMI_OK;
}
