/* transport.c -- the pieces every transport shares: lookup, stubs, active
 * message registration, and the doorbell used by blocking waits. */
#include "transport.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern const struct kumi_tp_ops kumi_tp_shm_ops;
extern const struct kumi_tp_ops kumi_tp_tcp_ops;

const struct kumi_tp_ops *kumi_tp_lookup(const char *name)
{
    static const struct kumi_tp_ops *const all[] = { &kumi_tp_shm_ops, &kumi_tp_tcp_ops };

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
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

void kumi_tp_fail(struct kumi_tp *tp, uint32_t failed, int32_t status)
{
    uint32_t zero = 0;

    if (tp->failed == NULL)
        return;
    /* status first, so whoever sees failed set reads a meaningful status;
     * the first verdict stays, unless it had no status and this one has */
    if (__atomic_load_n(tp->failed, __ATOMIC_ACQUIRE) != 0) {
        if (status == KUMI_TP_STATUS_UNKNOWN
            || __atomic_load_n(tp->fail_status, __ATOMIC_ACQUIRE) != KUMI_TP_STATUS_UNKNOWN)
            return;
        __atomic_store_n(tp->fail_status, status, __ATOMIC_RELEASE);
        __atomic_store_n(tp->failed, failed, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(tp->fail_status, status, __ATOMIC_RELAXED);
        __atomic_compare_exchange_n(tp->failed, &zero, failed, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
    }
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
    syscall(SYS_futex, &db->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void kumi_tp_doorbell_sleep(struct kumi_tp_doorbell *db, uint32_t seq, long timeout_ns)
{
    struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };

    syscall(SYS_futex, &db->seq, FUTEX_WAIT, seq, &ts, NULL, 0);
}
