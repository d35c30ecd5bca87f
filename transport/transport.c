/* transport.c -- the pieces every transport shares: the registry (lookup,
 * the automatic pick), stubs, active message registration, and the
 * doorbell used by blocking waits. */
#include "transport.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "transports.h"

#define KUMI_TP_EXTERN(name) extern const struct kumi_tp_ops kumi_tp_##name##_ops;
KUMI_TP_LIST(KUMI_TP_EXTERN)
#undef KUMI_TP_EXTERN

#define KUMI_TP_ENTRY(name) &kumi_tp_##name##_ops,
static const struct kumi_tp_ops *const kumi_tp_given[] = { KUMI_TP_LIST(KUMI_TP_ENTRY) };
#undef KUMI_TP_ENTRY
#define KUMI_TP_COUNT (int)(sizeof(kumi_tp_given) / sizeof(kumi_tp_given[0]))

/* ------------------------------------------------------------- stubs
 * What an op a transport leaves NULL does: every table in the registry
 * has each op, so callers go through the kumi_tp_* wrappers and never
 * test for NULL. A missing required op fails with KUMI_ERR_UNSUPPORTED;
 * a missing optional one does what its NULL meant (transport.h). */

static int kumi_tp_stub_open(struct kumi_tp *tp, const struct kumi_tp_params *p)
{
    (void)tp; (void)p;
    return KUMI_ERR_UNSUPPORTED;
}
static int kumi_tp_stub_connect(struct kumi_tp *tp)
{
    (void)tp;
    return KUMI_ERR_UNSUPPORTED;
}
static void kumi_tp_stub_close(struct kumi_tp *tp)
{
    (void)tp;
}
static int kumi_tp_stub_kick(struct kumi_tp *tp, int pe, size_t off, uint64_t val, size_t len)
{
    (void)tp; (void)pe; (void)off; (void)val; (void)len;
    return KUMI_ERR_UNSUPPORTED;
}
static int kumi_tp_stub_put(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                            const void *src, size_t n)
{
    (void)tp; (void)pe; (void)seg; (void)off; (void)src; (void)n;
    return KUMI_ERR_UNSUPPORTED;
}
static int kumi_tp_stub_get(struct kumi_tp *tp, void *dst, int pe, enum kumi_seg seg,
                            size_t off, size_t n)
{
    (void)tp; (void)dst; (void)pe; (void)seg; (void)off; (void)n;
    return KUMI_ERR_UNSUPPORTED;
}
static int kumi_tp_stub_atomic(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                               enum kumi_amo op, size_t width, uint64_t operand,
                               uint64_t compare, uint64_t *old)
{
    (void)tp; (void)pe; (void)seg; (void)off; (void)op; (void)width; (void)operand;
    (void)compare; (void)old;
    return KUMI_ERR_UNSUPPORTED;
}
static int kumi_tp_stub_am_send(struct kumi_tp *tp, int pe, unsigned handler,
                                const void *payload, size_t len)
{
    (void)tp; (void)pe; (void)handler; (void)payload; (void)len;
    return KUMI_ERR_UNSUPPORTED;
}
static int kumi_tp_stub_sync(struct kumi_tp *tp)   /* fence, quiet, progress */
{
    (void)tp;
    return KUMI_ERR_UNSUPPORTED;
}
static void *kumi_tp_stub_peer_ptr(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off)
{
    (void)tp; (void)pe; (void)seg; (void)off;
    return NULL;   /* nobody's memory is mapped here */
}
static void kumi_tp_stub_idle(struct kumi_tp *tp, int sleeping)
{
    (void)tp; (void)sleeping;
}
static void kumi_tp_stub_settle(struct kumi_tp *tp)
{
    (void)tp;
}
static int kumi_tp_stub_exit_job(struct kumi_tp *tp, int status)
{
    (void)tp;
    return status;   /* no channel of its own: the launcher has it already */
}
/* am_sendv as the parts joined, then am_send */
static int kumi_tp_stub_am_sendv(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                                 size_t hlen, const void *payload, size_t len)
{
    _Alignas(16) unsigned char buf[KUMI_TP_AM_MAX_PAYLOAD];

    if (hlen + len > sizeof(buf))
        return KUMI_ERR_INVALID;
    memcpy(buf, hdr, hlen);
    if (len != 0)
        memcpy(buf + hlen, payload, len);
    return kumi_tp_am_send(tp, pe, handler, buf, hlen + len);
}
static int kumi_tp_stub_available(const struct kumi_tp_params *p, char *why, size_t len)
{
    (void)p; (void)why; (void)len;
    return KUMI_OK;
}

/* The registry: each transport's table as given, its NULL ops replaced by
 * the stubs, filled before main (and before any other thread). */
static struct kumi_tp_ops kumi_tp_reg[KUMI_TP_COUNT];
static const struct kumi_tp_ops *kumi_tp_all[KUMI_TP_COUNT];

#define KUMI_TP_STUB(field, fn)  \
    do {                         \
        if (o->field == NULL)    \
            o->field = fn;       \
    } while (0)

void kumi_tp_fill(struct kumi_tp_ops *o, const struct kumi_tp_ops *given)
{
    size_t n = given->size;

    /* a table built against an older, shorter struct leaves the rest
     * NULL: stubbed below */
    memset(o, 0, sizeof(*o));
    memcpy(o, given, n != 0 && n < sizeof(*o) ? n : sizeof(*o));
    o->size = sizeof(*o);
    KUMI_TP_STUB(open, kumi_tp_stub_open);
    KUMI_TP_STUB(connect, kumi_tp_stub_connect);
    KUMI_TP_STUB(close, kumi_tp_stub_close);
    KUMI_TP_STUB(kick, kumi_tp_stub_kick);
    KUMI_TP_STUB(put, kumi_tp_stub_put);
    KUMI_TP_STUB(get, kumi_tp_stub_get);
    KUMI_TP_STUB(atomic, kumi_tp_stub_atomic);
    KUMI_TP_STUB(am_send, kumi_tp_stub_am_send);
    KUMI_TP_STUB(fence, kumi_tp_stub_sync);
    KUMI_TP_STUB(quiet, kumi_tp_stub_sync);
    KUMI_TP_STUB(progress, kumi_tp_stub_sync);
    KUMI_TP_STUB(peer_ptr, kumi_tp_stub_peer_ptr);
    KUMI_TP_STUB(idle, kumi_tp_stub_idle);
    KUMI_TP_STUB(settle, kumi_tp_stub_settle);
    KUMI_TP_STUB(exit_job, kumi_tp_stub_exit_job);
    KUMI_TP_STUB(am_sendv, kumi_tp_stub_am_sendv);
    KUMI_TP_STUB(available, kumi_tp_stub_available);
}

__attribute__((constructor)) static void kumi_tp_register(void)
{
    for (int i = 0; i < KUMI_TP_COUNT; i++) {
        kumi_tp_fill(&kumi_tp_reg[i], kumi_tp_given[i]);
        kumi_tp_all[i] = &kumi_tp_reg[i];
    }
}
#undef KUMI_TP_STUB

const struct kumi_tp_ops *kumi_tp_builtin(int i)
{
    return i >= 0 && i < KUMI_TP_COUNT ? kumi_tp_all[i] : NULL;
}

const struct kumi_tp_ops *kumi_tp_lookup(const char *name)
{
    for (int i = 0; i < KUMI_TP_COUNT; i++)
        if (strcmp(kumi_tp_all[i]->name, name) == 0)
            return kumi_tp_all[i];
    return NULL;
}

int kumi_tp_available(const struct kumi_tp_ops *ops, const struct kumi_tp_params *p, char *why,
                      size_t len)
{
    if (len > 0)
        why[0] = '\0';
    if ((ops->flags & KUMI_TP_F_ONE_NODE) && p->boot != NULL && p->boot->nodes > 1) {
        snprintf(why, len, "%s reaches the PEs of one host only, and the job spans %d",
                 ops->name, p->boot->nodes);
        return KUMI_ERR_UNSUPPORTED;
    }
    return ops->available(p, why, len);
}

const struct kumi_tp_ops *kumi_tp_pick(const struct kumi_tp_params *p, char *why, size_t len)
{
    const struct kumi_tp_ops *best = NULL;
    size_t                    at = 0;

    if (len > 0)
        why[0] = '\0';
    for (int i = 0; i < KUMI_TP_COUNT; i++) {
        char one[800];

        /* one that cannot win is not asked: asking loads a plugin */
        if (best != NULL && kumi_tp_all[i]->priority <= best->priority)
            continue;
        if (kumi_tp_available(kumi_tp_all[i], p, one, sizeof(one)) == KUMI_OK) {
            if (best == NULL || kumi_tp_all[i]->priority > best->priority)
                best = kumi_tp_all[i];
        } else if (at < len) {
            at += (size_t)snprintf(why + at, len - at, "%s%s", at ? "; " : "", one);
        }
    }
    return best;
}

#define KUMI_TP_AMO(T)                                                                       \
    do {                                                                                     \
        T *w = (T *)addr, v = (T)operand, o = 0;                                             \
        switch (op) {                                                                        \
        case KUMI_AMO_ADD:       __atomic_add_fetch(w, v, __ATOMIC_SEQ_CST); break;          \
        case KUMI_AMO_FETCH_ADD: o = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST); break;      \
        case KUMI_AMO_SWAP:      o = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST); break;     \
        case KUMI_AMO_CSWAP:                                                                 \
            o = (T)compare;                                                                  \
            __atomic_compare_exchange_n(w, &o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
            break;                                                                           \
        case KUMI_AMO_AND:       __atomic_and_fetch(w, v, __ATOMIC_SEQ_CST); break;          \
        case KUMI_AMO_OR:        __atomic_or_fetch(w, v, __ATOMIC_SEQ_CST); break;           \
        case KUMI_AMO_XOR:       __atomic_xor_fetch(w, v, __ATOMIC_SEQ_CST); break;          \
        case KUMI_AMO_FETCH_AND: o = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST); break;      \
        case KUMI_AMO_FETCH_OR:  o = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST); break;       \
        case KUMI_AMO_FETCH_XOR: o = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST); break;      \
        case KUMI_AMO_FETCH:     o = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;            \
        case KUMI_AMO_SET:       __atomic_store_n(w, v, __ATOMIC_SEQ_CST); break;            \
        case KUMI_AMO_COUNT:     break;                                                      \
        }                                                                                    \
        return o;                                                                            \
    } while (0)

uint64_t kumi_tp_amo_apply(void *addr, enum kumi_amo op, size_t width, uint64_t operand,
                           uint64_t compare)
{
    if (width == 8)
        KUMI_TP_AMO(uint64_t);
    KUMI_TP_AMO(uint32_t);
}

int kumi_tp_unsupported(void)
{
    return KUMI_ERR_UNSUPPORTED;
}

int kumi_tp_am_register(struct kumi_tp *tp, unsigned id, kumi_tp_am_fn fn, void *arg)
{
    if (id >= KUMI_TP_AM_MAX_HANDLERS)
        return KUMI_ERR_INVALID;
    /* a progress thread may be dispatching: arg first, fn published last */
    __atomic_store_n(&tp->am[id].arg, arg, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->am[id].fn, fn, __ATOMIC_RELEASE);
    return KUMI_OK;
}

int kumi_tp_am_register_long(struct kumi_tp *tp, unsigned id, kumi_tp_am_place_fn place,
                             kumi_tp_am_long_fn done, void *arg)
{
    if (id >= KUMI_TP_AM_MAX_HANDLERS || place == NULL || done == NULL)
        return KUMI_ERR_INVALID;
    /* a progress thread may be dispatching: place is published last */
    __atomic_store_n(&tp->am[id].long_arg, arg, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->am[id].done, done, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->am[id].place, place, __ATOMIC_RELEASE);
    return KUMI_OK;
}

/* This process's writers of the failure pair, one at a time (the tcp
 * thread, the bootstrap's channel, kumi_global_exit): otherwise two first
 * failures could each store a status, and the loser's stay behind the
 * winner's flag. */
static int kumi_tp_fail_lock;

void kumi_tp_fail(struct kumi_tp *tp, uint32_t failed, int32_t status)
{
    int changed = 0;

    if (tp->failed == NULL)
        return;
    while (__atomic_exchange_n(&kumi_tp_fail_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    /* status first, so whoever sees failed set reads a meaningful status;
     * the first verdict stays, unless it had no status and this one has */
    if (__atomic_load_n(tp->failed, __ATOMIC_ACQUIRE) != 0) {
        if (status != KUMI_TP_STATUS_UNKNOWN
            && __atomic_load_n(tp->fail_status, __ATOMIC_ACQUIRE) == KUMI_TP_STATUS_UNKNOWN) {
            __atomic_store_n(tp->fail_status, status, __ATOMIC_RELEASE);
            __atomic_store_n(tp->failed, failed, __ATOMIC_RELEASE);
            changed = 1;
        }
    } else {
        /* another process (the launcher) may still set the word first:
         * then it keeps its own status too, which it writes before the
         * word, maybe between my load and my store: so my status goes in
         * only over the value I saw (never over the launcher's), and is
         * taken back only if it is still mine */
        int32_t  before = __atomic_load_n(tp->fail_status, __ATOMIC_ACQUIRE);
        int32_t  seen   = before;
        uint32_t zero   = 0;
        int      mine   = __atomic_compare_exchange_n(tp->fail_status, &seen, status, 0,
                                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);

        if (!__atomic_compare_exchange_n(tp->failed, &zero, failed, 0, __ATOMIC_SEQ_CST,
                                         __ATOMIC_SEQ_CST) && mine)   /* lost: its status */
            __atomic_compare_exchange_n(tp->fail_status, &status, before, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
        changed = 1;   /* the job failed either way: wake the sleepers */
    }
    __atomic_store_n(&kumi_tp_fail_lock, 0, __ATOMIC_RELEASE);
    if (!changed)
        return;
    if (tp->doorbell != NULL)
        kumi_tp_doorbell_ring(tp->doorbell);
}

/* Shared (not private) futexes: the doorbell lives in memory that several
 * processes map. */
void kumi_tp_doorbell_ring(struct kumi_tp_doorbell *db)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&db->waiters, __ATOMIC_RELAXED) == 0)
        return;
    __atomic_add_fetch(&db->seq, 1, __ATOMIC_SEQ_CST);
    kumi_tp_futex_wake(&db->seq, 1);
}

void kumi_tp_doorbell_sleep(struct kumi_tp_doorbell *db, uint32_t seq, long timeout_ns)
{
    kumi_tp_futex_wait(&db->seq, seq, timeout_ns, 1);
}

/* ------------------------------------------------ clock and futexes */

double kumi_tp_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kumi_tp_futex_wait(uint32_t *w, uint32_t v, long timeout_ns, int shared)
{
    struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };

    syscall(SYS_futex, w, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
}

void kumi_tp_futex_wake(uint32_t *w, int shared)
{
    syscall(SYS_futex, w, shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* ------------------------------------------------------------ messages */

static kumi_tp_log_fn *kumi_tp_logger;

void kumi_tp_set_log(kumi_tp_log_fn *fn)
{
    __atomic_store_n(&kumi_tp_logger, fn, __ATOMIC_RELEASE);
}

void kumi_tp_log(int level, const char *who, const char *fmt, ...)
{
    kumi_tp_log_fn *fn = __atomic_load_n(&kumi_tp_logger, __ATOMIC_ACQUIRE);
    va_list         ap;

    va_start(ap, fmt);
    if (fn != NULL) {
        fn(level, who, fmt, ap);
    } else {
        char line[1024];
        int  n = snprintf(line, sizeof(line), "kumi: %s: ", who);
        if (n < 0 || (size_t)n >= sizeof(line))
            n = 0;
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
        fprintf(stderr, "%s\n", line);   /* one write: lines of PEs do not interleave */
    }
    va_end(ap);
}

/* ---------------------------------------------------- a transport's tp */

void kumi_tp_take_params(struct kumi_tp *tp, const struct kumi_tp_params *p, void *priv)
{
    tp->priv                    = priv;
    tp->rank                    = p->rank;
    tp->size                    = p->size;
    tp->failed                  = p->failed;
    tp->fail_status             = p->fail_status;
    tp->seg_size[KUMI_SEG_LLCM] = p->llcm_size;
    tp->seg_size[KUMI_SEG_HEAP] = p->heap_size;
    tp->seg_size[KUMI_SEG_DATA] = p->data_size;   /* the program's own range */
    tp->local[KUMI_SEG_DATA]    = p->data_size != 0 ? p->data_base : NULL;
}

/* ------------------------------------------------- private LLCM and heap */

int kumi_tp_map_private(struct kumi_tp *tp, const struct kumi_tp_params *p, const char *who,
                        void **map, size_t *map_len)
{
    size_t    llcm = (p->llcm_size + 4095) & ~(size_t)4095;
    size_t    align = p->heap_align ? p->heap_align : 4096;
    size_t    len = llcm + p->heap_size + align;
    uint8_t  *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
    uintptr_t heap;

    if (m == MAP_FAILED) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, who, "cannot map %zu bytes of LLCM and heap: %s", len,
                    strerror(errno));
        return KUMI_ERR_NOMEM;
    }
    heap = ((uintptr_t)m + llcm + align - 1) & ~(uintptr_t)(align - 1);
    if (mprotect((void *)(heap - llcm), llcm + p->heap_size, PROT_READ | PROT_WRITE) != 0) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, who, "cannot map %zu bytes of LLCM and heap: %s",
                    llcm + p->heap_size, strerror(errno));
        munmap(m, len);
        return KUMI_ERR_NOMEM;
    }
    /* only the LLCM and the heap stay mapped (the alignment's slack is
     * large: 1 GiB) */
    if (heap - llcm > (uintptr_t)m)
        munmap(m, heap - llcm - (uintptr_t)m);
    if ((uintptr_t)m + len > heap + p->heap_size)
        munmap((void *)(heap + p->heap_size), (uintptr_t)m + len - (heap + p->heap_size));
    *map     = (void *)(heap - llcm);
    *map_len = llcm + p->heap_size;
    tp->local[KUMI_SEG_LLCM] = (void *)(heap - llcm);
    tp->local[KUMI_SEG_HEAP] = (void *)heap;
    return KUMI_OK;
}
